pub mod agent;
pub mod transport;
pub mod wire;
