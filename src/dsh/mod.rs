//! The wire of the Codex ↔ DSH collaboration bridge (seed 002, SPEC D1–D7), a second kind of
//! agent the phone speaks to: every shape both sides share, and nothing that does I/O. It sits
//! beside `crate::wire` and imports only `wire` and `out`; the phone's client of a bridge is
//! `engine::dsh`, the reference bridge (`collie-phone dsh-bridge`) is `agent::dsh_bridge`. The
//! contract is docs/DSH.md.

pub mod wire;
