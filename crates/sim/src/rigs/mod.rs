//! The rigs: the reference durable agent's play and everything else made to demo and test the
//! phone and other agents. None of it is needed to host a real coding agent.
//!
//! `worlds` lays out the demo, empty and big worlds and `script` makes them move (the play,
//! one driver of `crate::durable`), which may break rules on purpose (`--break`, kept by
//! `crate::durable::faults`); `chaos*` are the failures made on purpose (`--chaos`); `replay` serves a recording
//! instead of a world; `dsh_bridge` is the reference DSH bridge over a fake desktop; and
//! `acp_scripted` is our own ACP agent, a real process for the ACP host's demo and tests.

pub mod acp_scripted;
#[cfg(test)]
mod agent_tests;
pub mod chaos;
pub mod chaos_serve;
pub(crate) mod chaos_state;
pub mod dsh_bridge;
pub mod replay;
pub(crate) mod script;
pub mod worlds;

use std::sync::Arc;

use time::OffsetDateTime;

use crate::durable::faults::Breaks;
use crate::durable::world::World;
use crate::durable::{AgentOptions, Drive, Driver};

/// Which world the agent starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum WorldKind {
    /// 3 workspaces, 8+ panes that stream items and ask questions at a human pace.
    #[default]
    Demo,
    /// No workspaces at all, but starters.
    Empty,
    /// Every limit filled (`collie-phone rules L`), for benchmarks and stress tests.
    Big,
}

/// How the reference agent plays its world: one [`Drive`] of `crate::durable`.
#[derive(Debug, Clone)]
pub struct WorldOptions {
    pub kind: WorldKind,
    /// Seed of the demo's random choices: the same seed plays the same world.
    pub seed: u64,
    /// Scales the demo's clock: 2.0 plays twice as fast.
    pub speed: f64,
    /// Rules broken on purpose (`--break`), for `check`'s own tests.
    pub breaks: Breaks,
}

impl Default for WorldOptions {
    fn default() -> Self {
        Self {
            kind: WorldKind::Demo,
            seed: 1,
            speed: 1.0,
            breaks: Breaks::default(),
        }
    }
}

impl Drive for WorldOptions {
    fn first_world(&self, allow_always: bool, host_name: &str, now: OffsetDateTime) -> World {
        worlds::build(self.kind, self.seed, allow_always, host_name, now)
    }

    /// The script, fresh or over a restored world alike: running turns carry on and open asks
    /// are waited for.
    fn start(&self, world: &mut World, _restored: bool, now: OffsetDateTime) -> Box<dyn Driver> {
        Box::new(script::Script::new(
            self.kind, self.seed, self.speed, now, world,
        ))
    }

    fn breaks(&self) -> Breaks {
        self.breaks.clone()
    }

    fn restarts_in_place(&self) -> bool {
        true
    }
}

/// The reference agent playing `world`, with the defaults of a private socket; so
/// `Agent::new(WorldOptions { … })` starts one.
impl From<WorldOptions> for AgentOptions {
    fn from(world: WorldOptions) -> Self {
        AgentOptions::new(Arc::new(world))
    }
}
