//! The durable-agent server: one world that keeps every agent-side rule of SPEC (W2–W7, H1, H3,
//! H4, T3, T5, A1–A16, Q3, V4, L), served over the private socket or TLS, whatever drives it.
//!
//! `world` holds the rules and the state, `runtime` owns a world with its driver and store,
//! `settings` a pane's mode, options and commands, `server` answers HTTP over `listen`'s sockets, `requests` remembers request ids (SPEC Q3) and
//! `store` keeps the layout across restarts; `faults` names the rules an agent may break on
//! purpose (`--break`, for `check`'s own tests) and `broken` lays out in a world what they need.
//! `driver` says what moves a world: [`AgentOptions::drive`] holds one [`Drive`], and nothing
//! here names a driver. Two exist: the reference agent's play (collie-sim's `rigs`, for demos and
//! tests) and the ACP host (collie-acp's `acp_host`, real coding agents).

pub(crate) mod broken;
pub mod cards;
pub mod driver;
pub mod faults;
pub mod listen;
pub mod requests;
pub mod runtime;
pub mod server;
pub(crate) mod settings;
pub mod store;
pub mod tls_auto;
pub mod world;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use driver::{Drive, Driver};

/// What every durable agent is told, whatever drives its world.
#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// Where conversations and open asks are kept across restarts.
    pub state_dir: Option<PathBuf>,
    /// Ready stays false this long after start (SPEC H3).
    pub ready_after: Duration,
    /// False over TLS (SPEC A11).
    pub allow_always: bool,
    /// Shown as `host.name` (SPEC H1).
    pub host_name: String,
    /// `--chaos restart-every`: the agent starts again in place this often (SPEC H3, H5, A9).
    pub restart_every: Option<Duration>,
    /// What moves the world: one driver, with the options only it has.
    pub drive: Arc<dyn Drive>,
}

impl AgentOptions {
    /// `drive` on a private socket: ready at once, allow-always offered, no restarts.
    pub fn new(drive: Arc<dyn Drive>) -> Self {
        Self {
            state_dir: None,
            ready_after: Duration::ZERO,
            allow_always: true,
            host_name: "collie-phone reference agent".into(),
            restart_every: None,
            drive,
        }
    }
}
