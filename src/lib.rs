pub mod agent;
pub mod engine;
pub mod transport;
pub mod wire;
