//! One running agent: its world, the script that makes the world move, and (with `--state`)
//! the store that keeps it across restarts (SPEC H3, H5, A9).

use std::time::Instant;
use time::OffsetDateTime;

use super::WorldOptions;
use super::world::{Layout, World};

/// A world with what drives it. The server holds one behind a mutex and calls [`Agent::tick`]
/// on a timer and after every POST.
pub struct Agent {
    pub world: World,
    started: Instant,
    options: WorldOptions,
}

impl Agent {
    pub fn new(options: WorldOptions) -> anyhow::Result<Self> {
        let layout = Layout { host_name: options.host_name.clone(), ..Layout::default() };
        let world = World::new(layout, options.allow_always);
        Ok(Self { world, started: Instant::now(), options })
    }

    /// Moves the world on to `now`: expiries, the script, readiness (SPEC H3).
    pub fn tick(&mut self, now: OffsetDateTime) {
        self.world.expire_asks(now);
        self.world.take_happenings();
        if !self.world.ready && self.started.elapsed() >= self.options.ready_after {
            self.world.ready = true;
        }
    }
}
