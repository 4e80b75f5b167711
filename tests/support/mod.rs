pub mod faulty;
pub mod hostile;
