pub mod agent;
pub mod app;
pub mod check;
pub mod cli;
pub mod config;
pub mod doctor;
pub mod dsh;
pub mod engine;
#[doc(hidden)]
pub mod fuzz_checks;
pub mod look;
pub mod out;
pub mod screens;
pub mod transport;
pub mod tui;
pub mod ui;
pub mod wire;
