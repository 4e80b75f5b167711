//! The phone's model (docs/ARCHITECTURE.md, "The model"): `chat`, a pane's chat as heard;
//! `text`, text measured and wrapped in terminal columns; `model`, the agents as heard, the
//! inbox, the cards' state, the intents, the outbox and the words for what became of them. No
//! terminal and no I/O: the phone's glass (collie-tui) and the headless commands both read it.

pub use collie_client::engine;
pub use collie_wire::{dsh_wire, out, wire};

pub mod chat;
pub mod model;
pub mod text;
