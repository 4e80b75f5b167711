pub mod agent;
pub mod wire;
