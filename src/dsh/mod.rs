//! The Codex ↔ DSH collaboration bridge (seed 002, SPEC D1–D7): a second kind of agent the
//! phone speaks to. `wire` holds every shape both sides share; `bridge` is the reference bridge
//! (`collie-phone dsh-bridge`) that tests and the demo talk to. The contract is docs/DSH.md.

pub mod bridge;
pub mod client;
pub mod fuzz;
pub mod wire;
mod wire_enum;
mod wire_events;
mod wire_lenient;
mod wire_sse;
mod wire_values;
