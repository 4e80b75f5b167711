//! collie-sim: the rigs (`rigs`), made to demo and test the phone and other agents; see
//! docs/ARCHITECTURE.md. The crates below are re-exported under their own names, so
//! `crate::durable::…` reads the same here as in the root package.

pub(crate) use collie_agent::durable;
pub(crate) use collie_client::transport;
pub(crate) use collie_wire::{dsh_wire, wire};

pub mod rigs;
