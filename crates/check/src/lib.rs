//! `collie-phone check` (every rule of docs/SPEC.md that can be probed, against a live peer;
//! `check --acp` judges an ACP agent over its stdio)
//! and `collie-phone doctor` (one agent, step by step, with what to fix). Both stand on the
//! client and the wire only: they never see the app.

pub(crate) use collie_client::{engine, transport};
pub(crate) use collie_wire::{out, wire};

pub mod check;
pub mod check_acp;
pub mod doctor;
