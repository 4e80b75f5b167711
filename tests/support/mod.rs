pub mod faulty;
