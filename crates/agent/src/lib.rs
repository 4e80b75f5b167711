//! The reference durable agent (docs/AGENT.md): its world, journal, HTTP host and TLS, with the
//! `Drive`/`Driver` traits its drivers (the reference play, the ACP host) implement.

pub(crate) use collie_client::transport;
pub(crate) use collie_wire::wire;

pub mod durable;
