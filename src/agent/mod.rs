//! The reference durable agent: a demo and test peer that keeps every agent-side rule of
//! SPEC (W2–W7, H1, H3, H4, T3, T5, A1–A16, Q3, V4, L).
//!
//! `world` holds the rules and the state, `runtime` owns a world with its script and store,
//! `server` speaks HTTP over `listen`'s sockets. `replay` is the other server on those sockets:
//! it answers from a recording instead of a world.

pub mod acp;
pub(crate) mod broken;
pub(crate) mod chaos;
pub(crate) mod chaos_serve;
pub(crate) mod chaos_state;
pub(crate) mod dsh_bridge;
pub mod faults;
pub mod listen;
pub(crate) mod replay;
pub(crate) mod requests;
pub mod runtime;
pub(crate) mod script;
pub mod server;
pub(crate) mod store;
pub mod world;
pub mod worlds;

use std::path::PathBuf;
use std::time::Duration;

/// Which world the agent starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum WorldKind {
    /// 3 workspaces, 8+ panes that stream items and ask questions at a human pace.
    #[default]
    Demo,
    /// No workspaces at all, but starters.
    Empty,
    /// Every limit of docs/SPEC.md § Limits filled, for benchmarks and stress tests.
    Big,
}

/// How the agent's world behaves, apart from how it is reached.
#[derive(Debug, Clone)]
pub struct WorldOptions {
    pub kind: WorldKind,
    /// Seed of the demo's random choices: the same seed plays the same world.
    pub seed: u64,
    /// Scales the demo's clock: 2.0 plays twice as fast.
    pub speed: f64,
    /// Where conversations and open asks are kept across restarts.
    pub state_dir: Option<PathBuf>,
    /// Ready stays false this long after start (SPEC H3).
    pub ready_after: Duration,
    /// False over TLS (SPEC A11).
    pub allow_always: bool,
    /// Shown as `host.name` (SPEC H1).
    pub host_name: String,
    /// Rules broken on purpose (`--break`), for `check`'s own tests.
    pub breaks: faults::Breaks,
    /// Failures made on purpose (`--chaos`).
    pub chaos: chaos::Chaos,
    /// Host ACP agents instead of playing a world (`--acp`): the world is their sessions.
    pub acp: Option<acp::HostOptions>,
}

impl Default for WorldOptions {
    fn default() -> Self {
        Self {
            kind: WorldKind::Demo,
            seed: 1,
            speed: 1.0,
            state_dir: None,
            ready_after: Duration::ZERO,
            allow_always: true,
            host_name: "collie-phone reference agent".into(),
            breaks: faults::Breaks::default(),
            chaos: chaos::Chaos::default(),
            acp: None,
        }
    }
}
