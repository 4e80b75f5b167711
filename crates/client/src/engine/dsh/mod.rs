//! The phone's client of a DSH collaboration bridge (seed 002, SPEC D1–D7), inside the same
//! engine as the Collie agents.
//!
//! A bridge is dialled with `--dsh URL --dsh-token-file FILE` (or `[dsh.NAME]` in the config)
//! and becomes one more agent of the engine, by its name: its [`session::BridgeSession`] sends
//! the same `FromEngine::Agent` changes a Collie agent does (status, snapshot, pane views and
//! events), plus `AgentChange::Dsh(DshChange)` for what only a bridge has (capabilities, model
//! catalog, workspaces, tasks, desktop reloads). Actions are intents like any other
//! (`IntentKind::Dsh*`), with a receipt in the journal before the request leaves and the
//! seed's error table followed for each refusal ([`intents`]).
//!
//! For the screens:
//! - pane id = task id for a task; `session:<sessionId>` for a session no task follows
//!   ([`pane::session_pane_id`], [`pane::session_of_pane`]); its workspace id is the bridge's.
//! - a permission wait is an ask of kind [`pane::DESKTOP_ASK_KIND`]: not answerable here,
//!   its title says to answer it on the desktop.

pub(crate) mod backoff;
pub(crate) mod base;
pub(crate) mod follower;
// Test support for `collie-testkit` (docs/FUZZING.md), not in the product.
#[cfg(feature = "fuzzing")]
pub mod fuzz;
pub(crate) mod http;
pub mod intents;
pub mod pane;
pub(crate) mod session;
pub(crate) mod sse;

use std::sync::Arc;

pub use base::{BridgeUrl, BridgeUrlError, DEFAULT_BRIDGE_URL};
pub(crate) use http::BridgeClient;

use crate::dsh_wire::{Capabilities, Health, TaskView, WorkspaceList};
use crate::transport::Token;

/// One bridge to dial.
#[derive(Debug, Clone)]
pub struct BridgeSpec {
    /// The agent name the engine and the screens use for it.
    pub name: String,
    pub url: BridgeUrl,
    pub token: Token,
}

/// What a bridge tells the screens beyond the panes (`AgentChange::Dsh`).
#[derive(Debug, Clone, PartialEq)]
pub enum DshChange {
    /// `GET /health`, when it changed: the bridge's name, the desktop's pid, `autoApprove`.
    Health(Arc<Health>),
    /// `GET /capabilities`, read once per desktop process: the presets that may be chosen
    /// (only these, seed §2), the model catalog with each model's reasoning efforts, whether
    /// this token may register a workspace (`capabilities.workspaces.create`), and what is
    /// unavailable.
    Capabilities(Arc<Capabilities>),
    /// `GET /workspaces`, when it changed: ids, titles, paths, dir status, the token's scope.
    Workspaces(Arc<WorkspaceList>),
    /// `GET /tasks/list`, when it changed: every open task's public view (objective,
    /// requested and observed config, last turn, rounds), pane id = task id.
    Tasks(Arc<Vec<TaskView>>),
    /// The desktop's process changed (seed §4.8): every task pane also gets a notice.
    DesktopReloaded { old_pid: u64, new_pid: u64 },
    /// The engine stopped addressing a task after `session/workspace-mismatch` (seed §1: stop
    /// cross-workspace addressing, a person confirms on the desktop).
    TaskStopped(TaskStopped),
    /// What could not be read of the bridge's replies, by route, when it changed (docs/DSH.md,
    /// "How the phone reads a bridge"): those parts were left out and everything else is shown.
    /// `/capabilities` may also hold a whole reply that could not be read ([`UNREADABLE`]).
    Unread(Arc<std::collections::BTreeMap<String, Vec<crate::dsh_wire::Unread>>>),
}

/// The path of an [`DshChange::Unread`] part that stands for a whole reply not read.
pub const UNREADABLE: &str = "(the whole reply)";

/// A task the engine no longer addresses, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStopped {
    pub task_id: String,
    pub why: String,
}
