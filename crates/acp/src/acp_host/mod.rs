//! The ACP host: a durable agent whose panes are sessions of real coding agents that speak the
//! Agent Client Protocol (JSON-RPC over the agent process's stdio), by the official crate
//! `agent-client-protocol`. docs/ACP.md is the mapping, rule by rule.
//!
//! `spec` names the agents and their commands, `client` runs one agent process and its
//! connection, `host` drives the world from both sides, `stream` turns session updates into
//! items, `settings` a session's modes and options into the pane's settings, `sessions` a
//! session's life on the agent's side (new in its starting mode, load, resume, close, list),
//! `history` the agent's listed sessions as conversations, `kept_modes` the mode each
//! conversation comes back in, `process` starts and stops an agent's process, `lines` reads its
//! output with a cap, `permission` turns permission
//! requests into asks, `elicitation` an agent's questions into asks and their answers back,
//! `usage` a session's usage and title, and `text` cleans what agents say; `card_fixtures`
//! plays the adapters' recorded asks through the stream and the card (tests). `v2` is the
//! whole of ACP v2, where the person asks for it: its connection, and `v2::told` turning what
//! a v2 agent says into the host's own events; `shared_lines` lets the v1 connection go on over
//! the same pipes when an agent offered 2 answers 1; `reply` answers a request on the version
//! it came over; `sign_in` is the card of the ways a v2 agent signs in itself (`auth/login`).
//! The host is one driver of `crate::durable` (`impl Drive for AcpHostOptions`, in `host`);
//! nothing here plays a demo,
//! breaks a rule or replays a recording. Our own ACP agent for `demo --acp` and the tests is a
//! rig of collie-sim, `rigs::acp_scripted`.

mod card_fixtures;
pub(crate) mod client;
pub(crate) mod elicitation;
mod history;
pub(crate) mod host;
mod kept_modes;
pub(crate) mod lines;
pub(crate) mod permission;
pub(crate) mod process;
pub(crate) mod reply;
pub(crate) mod sessions;
pub(crate) mod settings;
mod shared_lines;
pub(crate) mod sign_in;
pub mod spec;
pub(crate) mod startup_failure;
pub(crate) mod stderr_tail;
pub(crate) mod stream;
pub mod text;
pub(crate) mod usage;
pub(crate) mod v2;

use std::path::PathBuf;

pub use spec::{AcpSpec, Protocol};

/// What the host runs: its agents, and the folders they may work in.
#[derive(Debug, Clone, Default)]
pub struct AcpHostOptions {
    pub agents: Vec<AcpSpec>,
    /// Each folder is a workspace; every agent has a starter in each.
    pub workspaces: Vec<PathBuf>,
    /// `demo --acp`: the first starter runs at once with these words, so there is something
    /// to see without typing.
    pub opening: Option<String>,
    /// The host's state folder (`--state`), where it keeps each conversation's mode.
    pub state: Option<PathBuf>,
}
