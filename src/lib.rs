pub mod agent;
pub mod cli;
pub mod engine;
pub mod transport;
pub mod wire;
