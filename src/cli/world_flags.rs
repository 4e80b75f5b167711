//! The flags that shape the agent's world, shared by `agent` and `demo`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use crate::durable::{AgentOptions, Drive};
use crate::rigs::{WorldKind, WorldOptions};

#[derive(Debug, Clone, Args)]
pub(crate) struct WorldFlags {
    /// Which world to start with.
    #[arg(long, value_enum, default_value_t = WorldKind::Demo)]
    pub(crate) world: WorldKind,
    /// Seed of the demo's random choices: the same seed plays the same world.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Speed of the demo's clock: 2 plays twice as fast, 0 freezes it.
    #[arg(long, default_value_t = 1.0, value_parser = parse_speed)]
    pub(crate) speed: f64,
    /// Keep conversations and open asks in this folder across restarts.
    #[arg(long, value_name = "DIR")]
    pub(crate) state: Option<PathBuf>,
    /// Stay not ready this many milliseconds after start (`collie-phone rules H`).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub(crate) ready_after: u64,
    /// The name the agent gives in hello (host.name).
    #[arg(long, value_name = "TEXT")]
    pub(crate) name: Option<String>,
}

impl WorldFlags {
    /// The agent's options around `drive`; `allow_always` depends on the transport (SPEC A11).
    pub(crate) fn options(&self, allow_always: bool, drive: Arc<dyn Drive>) -> AgentOptions {
        let defaults = AgentOptions::new(drive);
        AgentOptions {
            state_dir: self.state.clone(),
            ready_after: Duration::from_millis(self.ready_after),
            allow_always,
            host_name: self.name.clone().unwrap_or(defaults.host_name),
            ..defaults
        }
    }

    /// The reference agent's play as these flags shape it; nothing broken, no chaos.
    pub(crate) fn play(&self) -> WorldOptions {
        WorldOptions {
            kind: self.world,
            seed: self.seed,
            speed: self.speed,
            ..WorldOptions::default()
        }
    }
}

fn parse_speed(text: &str) -> Result<f64, String> {
    let speed: f64 = text
        .parse()
        .map_err(|_| format!("{text} is not a number"))?;
    if speed.is_finite() && speed >= 0.0 {
        Ok(speed)
    } else {
        Err("the speed is a number of 0 or more".to_string())
    }
}
