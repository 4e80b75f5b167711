//! What moves a durable agent's world, as the runtime sees it: a [`Drive`] (the options of one
//! driver, kept in `AgentOptions`) lays out the first world and starts a [`Driver`], which the
//! runtime ticks. The server keeps every rule whatever drives the world, and names no driver:
//! the reference agent's play lives in collie-sim (`rigs`), the ACP host in collie-acp
//! (`acp_host`).

use std::fmt;

use time::OffsetDateTime;

use super::faults::Breaks;
use super::world::World;

/// The options of one driver: what the agent is told about what moves its world.
pub trait Drive: fmt::Debug + Send + Sync {
    /// The world laid out fresh, when the state folder holds none (or none that reads).
    fn first_world(&self, allow_always: bool, host_name: &str, now: OffsetDateTime) -> World;

    /// The driver of `world`: fresh, or `restored` from the state folder (SPEC A9, H5).
    fn start(&self, world: &mut World, restored: bool, now: OffsetDateTime) -> Box<dyn Driver>;

    /// The rules broken on purpose (`--break`); none unless a driver says so.
    fn breaks(&self) -> Breaks {
        Breaks::default()
    }

    /// Whether `restart_every` may start this driver again over the restored world without
    /// leaving the process. False for a driver of real agent processes, which a restart in
    /// place cannot stop.
    fn restarts_in_place(&self) -> bool {
        false
    }
}

/// What moves the world between requests; the runtime ticks it on a timer and after every POST.
pub trait Driver: Send {
    /// Moves the world on to `now`. Called whether or not the world is ready (SPEC H3): a
    /// driver that cannot act on a world laid out again still takes its happenings.
    fn tick(&mut self, world: &mut World, now: OffsetDateTime);
}
