//! One running agent: its world, the script that makes the world move, and (with `--state`)
//! the store that keeps it across restarts (SPEC H3, H5, A9).

use std::time::Instant;
use time::OffsetDateTime;

use super::WorldOptions;
use super::script::Script;
use super::store::{Found, Store};
use super::world::World;
use super::worlds;

/// A world with what drives it. The server holds one behind a mutex and calls [`Agent::tick`]
/// on a timer and after every POST.
pub struct Agent {
    pub world: World,
    script: Script,
    store: Option<Store>,
    /// The wall-clock start: the script's clock and `ready_after` count from here.
    origin: OffsetDateTime,
    /// The same start on the monotonic clock, so a clock stepped backwards cannot hold
    /// `ready` off forever.
    started: Instant,
    options: WorldOptions,
    restored: bool,
}

impl Agent {
    pub fn new(options: WorldOptions) -> anyhow::Result<Self> {
        Self::new_at(options, OffsetDateTime::now_utc())
    }

    /// An agent that starts at `now`; with a fixed `now` and seed the world and the script are
    /// the same every time (tests drive [`Agent::tick`] with synthetic times from here).
    ///
    /// With a state folder holding a saved layout, the world is that layout in a new epoch:
    /// every pane's view and every open ask is laid out again under its old id before `ready`
    /// can turn true (SPEC A9, H3, H5).
    pub fn new_at(options: WorldOptions, now: OffsetDateTime) -> anyhow::Result<Self> {
        let store = options.state_dir.as_deref().map(Store::open).transpose()?;
        let found = match &store {
            Some(store) => store.load(now)?,
            None => Found::Nothing,
        };
        let restored = matches!(found, Found::Layout(_));
        let mut world = match found {
            Found::Layout(layout) => {
                let mut layout = *layout;
                layout.host_name = options.host_name.clone();
                let mut world = World::new(layout, options.allow_always);
                world.replay_layout_events(now);
                tracing::info!(
                    panes = world.layout.panes.len(),
                    conversations = world.layout.conversations.len(),
                    open_asks = world.layout.panes.values().map(|p| p.asks.len()).sum::<usize>(),
                    epoch = %world.epoch,
                    "restored the saved world in a new epoch"
                );
                world
            }
            Found::Nothing | Found::Corrupt(_) => worlds::build(
                options.kind,
                options.seed,
                options.allow_always,
                &options.host_name,
                now,
            ),
        };
        world.ready = options.ready_after.is_zero();
        let script = Script::new(options.kind, options.seed, options.speed, now, &world);
        let mut agent = Self {
            world,
            script,
            store,
            origin: now,
            started: Instant::now(),
            options,
            restored,
        };
        if let Some(store) = &mut agent.store {
            store.save_if_due(&agent.world, now);
        }
        Ok(agent)
    }

    /// Moves the world on to `now`: expiries (SPEC A6, A13), the script, the store, readiness
    /// (SPEC H3). Cheap when nothing is due.
    pub fn tick(&mut self, now: OffsetDateTime) {
        self.world.expire_asks(now);
        if self.world.ready {
            self.script.tick(&mut self.world, now);
        } else {
            // Nothing can act on a world that is not ready (every route answers 503).
            self.world.take_happenings();
        }
        if let Some(store) = &mut self.store {
            store.save_if_due(&self.world, now);
        }
        if !self.world.ready
            && (self.started.elapsed() >= self.options.ready_after
                || now - self.origin >= self.options.ready_after)
        {
            self.world.ready = true;
        }
    }

    /// Writes the layout to the state folder now and waits for the disk. Call it when the
    /// agent stops; a no-op without a state folder.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        match &mut self.store {
            Some(store) => store.flush(&self.world, OffsetDateTime::now_utc()),
            None => Ok(()),
        }
    }

    /// When this agent started: the zero of its script's clock.
    pub fn origin(&self) -> OffsetDateTime {
        self.origin
    }

    /// True when the world came from the state folder rather than being laid out fresh.
    pub fn restored(&self) -> bool {
        self.restored
    }

    pub fn options(&self) -> &WorldOptions {
        &self.options
    }
}

impl Drop for Agent {
    /// A clean stop keeps everything up to the last change.
    fn drop(&mut self) {
        if let Err(e) = self.flush() {
            tracing::error!(error = %e, "cannot save the world on stop");
        }
    }
}
