pub mod agent;
pub mod app;
pub mod cli;
pub mod engine;
pub mod transport;
pub mod tui;
pub mod ui;
pub mod wire;
