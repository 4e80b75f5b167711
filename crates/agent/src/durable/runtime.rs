//! One running agent: its world, the script that makes the world move, and (with `--state`)
//! the store that keeps it across restarts (SPEC H3, H5, A9).

use std::time::{Duration, Instant};
use time::OffsetDateTime;

use super::AgentOptions;
use super::driver::Driver;
use super::faults::Breaks;
use super::store::{Found, Store};
use super::world::{Layout, World};

/// How long a restart made by `--chaos restart-every` answers `503 starting` at least, so a
/// phone polling every second can see it (SPEC H3).
pub(crate) const CHAOS_RESTART_STARTING: Duration = Duration::from_millis(500);

/// A world with what drives it. The server holds one behind a mutex and calls [`Agent::tick`]
/// on a timer and after every POST.
pub struct Agent {
    pub world: World,
    driver: Box<dyn Driver>,
    store: Option<Store>,
    /// The wall-clock start: the script's clock and `ready_after` count from here.
    origin: OffsetDateTime,
    /// The same start on the monotonic clock, so a clock stepped backwards cannot hold
    /// `ready` off forever.
    started: Instant,
    options: AgentOptions,
    restored: bool,
    /// Ready stays false this long after the (re)start (SPEC H3).
    starting_for: Duration,
}

impl Agent {
    pub fn new(options: impl Into<AgentOptions>) -> anyhow::Result<Self> {
        Self::new_at(options.into(), OffsetDateTime::now_utc())
    }

    /// An agent that starts at `now`; with a fixed `now` and seed the world and the script are
    /// the same every time (tests drive [`Agent::tick`] with synthetic times from here).
    ///
    /// With a state folder holding a saved layout, the world is that layout in a new epoch:
    /// every pane's view and every open ask is laid out again under its old id before `ready`
    /// can turn true (SPEC A9, H3, H5).
    pub fn new_at(options: impl Into<AgentOptions>, now: OffsetDateTime) -> anyhow::Result<Self> {
        let options = options.into();
        let drive = std::sync::Arc::clone(&options.drive);
        let store = options.state_dir.as_deref().map(Store::open).transpose()?;
        let found = match &store {
            Some(store) => store.load(now)?,
            None => Found::Nothing,
        };
        let restored = matches!(found, Found::Layout(_));
        let mut world = match found {
            Found::Layout(layout) => restored_world(*layout, &options, now),
            Found::Nothing | Found::Corrupt => {
                drive.first_world(options.allow_always, &options.host_name, now)
            }
        };
        world.ready = options.ready_after.is_zero();
        let driver = drive.start(&mut world, restored, now);
        let mut agent = Self {
            world,
            driver,
            store,
            origin: now,
            started: Instant::now(),
            starting_for: options.ready_after,
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
        if let Some(every) = self.options.restart_every
            && now - self.origin >= every
        {
            self.restart_in_place(now);
        }
        self.world.expire_asks(now);
        self.driver.tick(&mut self.world, now);
        if let Some(store) = &mut self.store {
            store.save_if_due(&self.world, now);
        }
        if !self.world.ready
            && (self.started.elapsed() >= self.starting_for
                || now - self.origin >= self.starting_for)
        {
            self.world.ready = true;
        }
    }

    /// `--chaos restart-every`: the agent starts again without leaving the process, the way a
    /// real restart does (SPEC H3, H5, A9): the layout as it would be read back (from the
    /// state folder when there is one, else the same bytes kept in memory), a new epoch, every
    /// pane's view rebuilt and every open ask asked again under its old id, a new script, and
    /// `503 starting` for a moment.
    ///
    /// The request ids of SPEC Q3 are carried over: the chaos plays a crash of the process,
    /// not the loss of what a durable agent keeps, and a retry across the restart must still
    /// be answered `replayed` rather than run a second time.
    pub(crate) fn restart_in_place(&mut self, now: OffsetDateTime) {
        if !self.options.drive.restarts_in_place() {
            // A real restart stops the agents' processes; their driver has no play-acted one.
            tracing::warn!(
                "chaos: restart-every does not apply to a driver of real agent processes"
            );
            self.origin = now;
            return;
        }
        let layout = match self.saved_layout(now) {
            Ok(layout) => layout,
            Err(error) => {
                tracing::error!(%error, "chaos: cannot lay the world out again; no restart");
                self.origin = now;
                return;
            }
        };
        let old_epoch = std::mem::take(&mut self.world.epoch);
        let requests = std::mem::take(&mut self.world.requests);
        let mut world = restored_world(layout, &self.options, now);
        world.requests = requests;
        world.ready = false;
        tracing::info!(
            kind = %"restart",
            old_epoch = %old_epoch,
            epoch = %world.epoch,
            "chaos"
        );
        self.driver = self.options.drive.start(&mut world, true, now);
        self.world = world;
        self.origin = now;
        self.started = Instant::now();
        self.starting_for = self.options.ready_after.max(CHAOS_RESTART_STARTING);
        self.restored = true;
    }

    /// The layout a restarted agent would find: the state file after a flush, or, without a
    /// state folder, the same encoding round-tripped in memory (so nothing survives that a
    /// save would not keep).
    fn saved_layout(&mut self, now: OffsetDateTime) -> anyhow::Result<Layout> {
        if let Some(store) = &mut self.store {
            store.flush(&self.world, now)?;
            if let Found::Layout(layout) = store.load(now)? {
                return Ok(*layout);
            }
            anyhow::bail!("the state file was not there right after it was written");
        }
        let bytes = serde_json::to_vec(&self.world.layout)?;
        Ok(serde_json::from_slice(&bytes)?)
    }

    /// Writes the layout to the state folder now and waits for the disk. Call it when the
    /// agent stops; a no-op without a state folder.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        match &mut self.store {
            Some(store) => store.flush(&self.world, OffsetDateTime::now_utc()),
            None => Ok(()),
        }
    }

    /// True when the world came from the state folder (or a restart in place) rather than
    /// being laid out fresh.
    pub fn restored(&self) -> bool {
        self.restored
    }

    /// The rules broken on purpose, as the driver's options say.
    pub(crate) fn breaks(&self) -> Breaks {
        self.options.drive.breaks()
    }
}

/// A saved layout as a world of a new epoch, every pane's events laid out again (SPEC A9, H5).
fn restored_world(mut layout: Layout, options: &AgentOptions, now: OffsetDateTime) -> World {
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

impl Drop for Agent {
    /// A clean stop keeps everything up to the last change.
    fn drop(&mut self) {
        if let Err(e) = self.flush() {
            tracing::error!(error = %e, "cannot save the world on stop");
        }
    }
}
