//! The phone's model of its agents (docs/ARCHITECTURE.md, "The model"): what it heard of each
//! agent (`agents`), the inbox of open asks across them (`inbox`) and the order they need the
//! person in (`triage`), each card's state and the answer it builds (`card_state`, with
//! `arming` and `ask_diff`), the person's intents and what became of them (`intents`, `words`),
//! the messages held for a busy pane (`outbox`) and the words that follow a Deny
//! (`deny_words`), the conversations read back (`history`), a DSH bridge's own view
//! (`dsh_state`), every pane in the tree's order (`pane_order`) and what the person last saw of
//! each (`seen`, the news marks). No terminal, no I/O.

pub mod agents;
pub mod arming;
pub mod ask_diff;
pub mod capabilities;
pub mod card_shape;
pub mod card_state;
pub mod deny_words;
pub mod dsh_state;
pub mod editor;
pub mod history;
pub mod inbox;
pub mod intents;
pub mod news;
pub mod outbox;
pub mod outcome;
pub mod pane_order;
pub mod phone_model;
pub mod rings;
pub mod seen;
pub mod triage;
