//! What the phone knows of each agent: its state, hello, last snapshot and each pane's chat,
//! kept from the engine's changes (SPEC H1–H6, A1–A6).

use std::collections::HashMap;
use std::sync::Arc;

use time::OffsetDateTime;

use crate::app::card_state::AgentOffer;
use crate::chat::pane_log::PaneLog;
use crate::engine::AgentChange;
use crate::engine::status::AgentStatus;
use crate::wire::{Ask, Hello, Pane, PaneState, Snapshot, Tab, Turn, Workspace, caps};

/// One agent as the screens see it.
#[derive(Debug, Clone)]
pub struct AgentView {
    pub name: String,
    /// Reached over TLS, so no allow-always (SPEC A11).
    pub(crate) is_tls: bool,
    /// The host whose socket ssh forwards to this phone (`--ssh`), when it is one.
    pub(crate) through_ssh: Option<String>,
    /// The socket of the agent `collie-phone demo` started, said so headless commands can
    /// name it (docs/SCRIPTING.md).
    pub(crate) demo_socket: Option<String>,
    /// What the demo's runner last said of its own agent stopping and coming back.
    pub(crate) demo_news: Option<DemoNews>,
    pub status: AgentStatus,
    pub(crate) hello: Option<Hello>,
    pub snapshot: Option<Arc<Snapshot>>,
    pub panes: HashMap<String, PaneLog>,
    /// The last poll that went through.
    pub synced: Option<OffsetDateTime>,
    /// Why the last poll failed, when it is the only failure since a good read (SPEC H6).
    pub(crate) missed: Option<String>,
    /// Epochs seen since the phone started; more than one means the agent restarted (SPEC H5).
    pub(crate) epochs: u32,
    /// When each open ask expires, if it says (SPEC A13), kept as the snapshot and the chats
    /// change: every frame counts the open asks and the runner looks for the next countdown
    /// change at every wake, and going over every pane of every agent for it was most of an idle
    /// phone's work (docs/ENGINE.md, "The phone in a terminal").
    ask_deadlines: Vec<Option<OffsetDateTime>>,
}

/// What `collie-phone demo` saw of the agent it runs: it stopped on its own (with its exit
/// status, e.g. "killed by signal 9") and is being started again, or it is back.
#[derive(Debug, Clone, PartialEq)]
pub enum DemoNews {
    Stopped(String),
    Back(String),
}

impl DemoNews {
    /// The sentence Home says of it.
    pub(crate) fn sentence(&self) -> String {
        match self {
            Self::Stopped(status) => format!(
                "The demo's agent stopped ({status}); starting it again with its state kept."
            ),
            Self::Back(status) => {
                format!(
                    "The demo's agent stopped ({status}) and was started again with its state kept."
                )
            }
        }
    }
}

/// How the phone reaches an agent: up, one poll missed (what is shown may be old), down, or
/// not yet (connecting, starting).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Link<'a> {
    Up,
    Missed(&'a str),
    Down(&'a AgentStatus),
    Waiting(&'a AgentStatus),
}

/// A pane with where it lives, as read from the snapshot and its chat.
#[derive(Debug, Clone, Copy)]
pub struct PaneRef<'a> {
    pub(crate) workspace: &'a Workspace,
    pub(crate) tab: &'a Tab,
    pub pane: &'a Pane,
    pub log: Option<&'a PaneLog>,
}

impl<'a> PaneRef<'a> {
    /// The chat's state once its events were read, else the snapshot's.
    pub fn state(&self) -> &'a PaneState {
        self.log
            .and_then(|l| l.state.as_ref())
            .unwrap_or(&self.pane.state)
    }

    /// The pane's latest turn, the one send and abort name (SPEC A16).
    pub fn turn(&self) -> Option<&'a Turn> {
        match self.log {
            Some(log) if log.state.is_some() => log.turn.as_ref(),
            _ => self.pane.turn.as_ref(),
        }
    }

    /// Open asks, oldest first (SPEC A2): the chat's when its events were read, since they are
    /// newer than the snapshot's.
    pub fn asks(&self) -> &'a [Ask] {
        match self.log {
            Some(log) if log.state.is_some() => &log.asks,
            _ => &self.pane.asks,
        }
    }
}

impl AgentView {
    pub fn new(name: &str, is_tls: bool) -> Self {
        Self {
            name: name.to_string(),
            is_tls,
            through_ssh: None,
            demo_socket: None,
            demo_news: None,
            status: AgentStatus::Connecting,
            hello: None,
            snapshot: None,
            panes: HashMap::new(),
            synced: None,
            missed: None,
            epochs: 0,
            ask_deadlines: Vec::new(),
        }
    }

    /// Takes one change from the engine.
    pub fn apply(&mut self, change: AgentChange) {
        match change {
            AgentChange::Status(status) => {
                self.missed = None;
                self.status = status;
            }
            AgentChange::Hello(hello) => {
                if self.epochs == 0 {
                    self.epochs = 1;
                }
                self.hello = Some(hello);
            }
            AgentChange::NewEpoch { .. } => self.epochs += 1,
            AgentChange::Snapshot { snapshot, .. } => {
                // Panes gone from the layout take their chat with them.
                self.panes
                    .retain(|id, _| snapshot.panes().any(|(_, _, p)| &p.id == id));
                self.snapshot = Some(snapshot);
                self.note_asks();
            }
            AgentChange::PaneEvents { pane, events } => {
                self.panes.entry(pane).or_default().apply(&events);
                self.note_asks();
            }
            AgentChange::PaneView { pane, view } => {
                self.panes.entry(pane).or_default().reset(view);
                self.note_asks();
            }
            AgentChange::Synced(at) => {
                self.missed = None;
                self.synced = Some(at);
            }
            AgentChange::Missed { reason } => self.missed = Some(reason),
            // What only a DSH bridge tells (capabilities, tasks, reloads) is for its own screens.
            AgentChange::Dsh(_) => {}
        }
    }

    /// Notes again when each open ask expires, after the snapshot or a chat changed.
    pub(crate) fn note_asks(&mut self) {
        let deadlines = self
            .panes()
            .iter()
            .flat_map(|pane| pane.asks())
            .map(|ask| ask.expires_at.as_ref().and_then(crate::wire::Stamp::at))
            .collect();
        self.ask_deadlines = deadlines;
    }

    /// When each open ask expires (`None`: it does not say), in no order.
    pub(crate) fn ask_deadlines(&self) -> &[Option<OffsetDateTime>] {
        &self.ask_deadlines
    }

    /// How the phone reaches this agent now, for every screen that shows its panes.
    pub(crate) fn link(&self) -> Link<'_> {
        match &self.status {
            AgentStatus::Ready => match &self.missed {
                None => Link::Up,
                Some(reason) => Link::Missed(reason),
            },
            AgentStatus::Connecting | AgentStatus::Starting => Link::Waiting(&self.status),
            other => Link::Down(other),
        }
    }

    /// True when allow-always may be offered at all on this agent (SPEC A11).
    /// What this agent lets its cards offer (SPEC A11).
    pub fn offer(&self) -> AgentOffer {
        AgentOffer {
            tls: self.is_tls,
            allows_always: self.allows_always(),
        }
    }

    pub(crate) fn allows_always(&self) -> bool {
        !self.is_tls
            && self
                .hello
                .as_ref()
                .is_some_and(|h| h.cap(caps::ALLOW_ALWAYS))
    }

    pub(crate) fn has_cap(&self, cap: &str) -> bool {
        self.hello.as_ref().is_some_and(|h| h.cap(cap))
    }

    /// The name to show: the configured one, with the agent's own name when it differs.
    pub(crate) fn display_name(&self) -> String {
        match &self.hello {
            Some(hello) if !hello.host.name.is_empty() && hello.host.name != self.name => {
                format!("{} ({})", self.name, hello.host.name)
            }
            _ => self.name.clone(),
        }
    }

    /// Every pane in layout order.
    pub fn panes(&self) -> Vec<PaneRef<'_>> {
        let Some(snapshot) = &self.snapshot else {
            return Vec::new();
        };
        snapshot
            .panes()
            .map(|(workspace, tab, pane)| PaneRef {
                workspace,
                tab,
                pane,
                log: self.panes.get(&pane.id),
            })
            .collect()
    }

    pub(crate) fn pane(&self, id: &str) -> Option<PaneRef<'_>> {
        let snapshot = self.snapshot.as_ref()?;
        snapshot
            .panes()
            .find(|(_, _, p)| p.id == id)
            .map(|(workspace, tab, pane)| PaneRef {
                workspace,
                tab,
                pane,
                log: self.panes.get(&pane.id),
            })
    }
}

/// Every agent, in the order they were given.
#[derive(Debug, Clone, Default)]
pub struct Agents {
    pub(crate) list: Vec<AgentView>,
}

impl Agents {
    pub(crate) fn new(agents: impl IntoIterator<Item = (String, bool)>) -> Self {
        Self {
            list: agents
                .into_iter()
                .map(|(name, tls)| AgentView::new(&name, tls))
                .collect(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&AgentView> {
        self.list.iter().find(|a| a.name == name)
    }

    pub(crate) fn get_mut(&mut self, name: &str) -> Option<&mut AgentView> {
        self.list.iter_mut().find(|a| a.name == name)
    }

    /// A pane of an agent, if both are known.
    pub(crate) fn pane(&self, agent: &str, pane: &str) -> Option<PaneRef<'_>> {
        self.get(agent)?.pane(pane)
    }
}
