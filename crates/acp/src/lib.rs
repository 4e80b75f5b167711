//! collie-acp: the ACP host (`acp_host`); see docs/ARCHITECTURE.md and docs/ACP.md. The crates
//! below are re-exported under their own names, so `crate::durable::…` reads the same here as in
//! the root package; the tests reach the rigs as `crate::rigs`, through the dev-dependency.

pub(crate) use collie_agent::durable;
#[cfg(test)]
pub(crate) use collie_sim::rigs;
pub(crate) use collie_wire::{out, wire};

pub mod acp_host;
