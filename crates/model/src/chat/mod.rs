//! The phone's model of a pane's chat: the items and closed-ask notes it keeps, built from the
//! events and views the engine passes on. Pure, and below the app and the look, which both read
//! it; the engine that fetches the events never uses it (docs/ARCHITECTURE.md).

pub mod pane_log;
