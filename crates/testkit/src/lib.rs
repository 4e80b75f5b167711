//! collie-testkit: what the fuzz targets and the tests share, out of the product; see
//! docs/ARCHITECTURE.md. The crates below are re-exported under their own names, so
//! `crate::look::…` reads the same here as in the root package.

pub(crate) use collie_client::engine;
pub(crate) use collie_model::model;
pub(crate) use collie_tui::look;
pub(crate) use collie_wire::{out, wire};

pub mod fuzz_checks;
