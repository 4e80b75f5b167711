//! Playing back a recording made with `--record`: a fake agent that serves what a real one sent.
//!
//! [`recording`] reads the file, [`answers`] picks the recorded reply for each request along the
//! recording's timeline, and [`server`] answers on a private socket through the agent's own
//! listeners (SPEC S1, S2), so the phone can be pointed at it like at any agent.
//!
//! The engine writes recordings (`engine::record`); the format both share is
//! [`crate::wire::recording`], so the agent layer never imports the engine.

pub(crate) mod answers;
pub(crate) mod recording;
pub(crate) mod server;

pub use answers::Answers;
pub use recording::Recording;
pub use server::{ReplayServer, Speed};
