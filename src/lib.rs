pub use collie_agent::durable;
pub use collie_check::{check, doctor};
pub use collie_client::{engine, transport};
pub use collie_wire::{dsh_wire, out, wire};
pub mod acp_host;
pub mod app;
pub mod chat;
pub mod cli;
pub mod config;
#[doc(hidden)]
pub mod fuzz_checks;
pub mod look;
pub mod rigs;
pub mod screens;
pub mod tui;
pub mod ui;
