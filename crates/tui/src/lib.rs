//! The phone's glass (docs/ARCHITECTURE.md), on the phone's model (collie-model: `chat`,
//! `text`, `model`): `look` below, the glass's state (`app`), the drawing kit (`ui`), the rooms (`screens`), the shell above them (`shell`: the
//! router and the frame's root), the terminal loop (`tui`) and the config file (`config`).

pub(crate) use collie_client::{engine, transport};
pub(crate) use collie_model::{chat, model, text};
pub(crate) use collie_wire::{dsh_wire, out, wire};

pub mod app;
pub mod config;
pub mod look;
pub mod screens;
pub mod shell;
pub mod tui;
pub mod ui;
