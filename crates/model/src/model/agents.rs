//! What the phone knows of each agent: its state, hello, last snapshot and each pane's chat,
//! kept from the engine's changes (SPEC H1–H6, A1–A6).

use std::collections::HashMap;
use std::sync::Arc;

use time::OffsetDateTime;

use crate::chat::pane_log::PaneLog;
use crate::engine::AgentChange;
use crate::engine::status::AgentStatus;
use crate::model::card_state::AgentOffer;
use crate::wire::{Ask, Hello, Pane, PaneState, Snapshot, Tab, Turn, Workspace, caps};

/// One agent as the screens see it.
#[derive(Debug, Clone)]
pub struct AgentView {
    pub name: String,
    /// Reached over TLS, so no allow-always (SPEC A11).
    pub is_tls: bool,
    /// The host whose socket ssh forwards to this phone (`--ssh`), when it is one.
    pub through_ssh: Option<String>,
    /// The socket of the agent `collie-phone demo` started, said so headless commands can
    /// name it (docs/SCRIPTING.md).
    pub demo_socket: Option<String>,
    /// What the demo's runner last said of its own agent stopping and coming back.
    pub demo_news: Option<DemoNews>,
    pub status: AgentStatus,
    pub hello: Option<Hello>,
    pub snapshot: Option<Arc<Snapshot>>,
    pub panes: HashMap<String, PaneLog>,
    /// The last poll that went through.
    pub synced: Option<OffsetDateTime>,
    /// Why the last poll failed, when it is the only failure since a good read (SPEC H6).
    pub missed: Option<String>,
    /// Epochs seen since the phone started; more than one means the agent restarted (SPEC H5).
    pub epochs: u32,
    /// When each open ask expires, if it says (SPEC A13), kept as the snapshot and the chats
    /// change: every frame counts the open asks and the runner looks for the next countdown
    /// change at every wake, and going over every pane of every agent for it was most of an idle
    /// phone's work (docs/ENGINE.md, "The phone in a terminal").
    ask_deadlines: Vec<Option<OffsetDateTime>>,
    /// The bytes all of `panes` hold, kept as each chat changes (SPEC L2): the budget is looked
    /// at with every change of a chat, and counting 256 chats again each time would cost more
    /// than the change.
    chat_bytes: usize,
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
    pub fn sentence(&self) -> String {
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
pub enum Link<'a> {
    Up,
    Missed(&'a str),
    Down(&'a AgentStatus),
    Waiting(&'a AgentStatus),
}

/// A pane with where it lives, as read from the snapshot and its chat.
#[derive(Debug, Clone, Copy)]
pub struct PaneRef<'a> {
    pub workspace: &'a Workspace,
    pub tab: &'a Tab,
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
            chat_bytes: 0,
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
                let bytes = &mut self.chat_bytes;
                self.panes.retain(|id, log| {
                    let kept = snapshot.panes().any(|(_, _, p)| &p.id == id);
                    if !kept {
                        *bytes -= log.bytes();
                    }
                    kept
                });
                self.snapshot = Some(snapshot);
                self.note_asks();
            }
            AgentChange::PaneEvents { pane, events } => {
                let log = self.panes.entry(pane).or_default();
                let before = log.bytes();
                log.apply(&events);
                self.chat_bytes = self.chat_bytes - before + log.bytes();
                self.note_asks();
            }
            AgentChange::PaneView { pane, view } => {
                let log = self.panes.entry(pane).or_default();
                let before = log.bytes();
                log.reset(view);
                self.chat_bytes = self.chat_bytes - before + log.bytes();
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

    /// The bytes the chats of all this agent's panes hold (SPEC L2).
    pub fn chat_bytes(&self) -> usize {
        self.chat_bytes
    }

    /// Keeps the chats of this agent within `budget` bytes (SPEC L2): the oldest entries of the
    /// panes off screen go first, the largest chats first, so that each is cut to one level
    /// (the fewest chats lose anything, and none is emptied while another keeps more); then,
    /// only if that was not enough, the oldest of `on_screen`, the pane the person reads. Each
    /// chat that lost entries shows `words` at its top. Costs nothing under the budget; over
    /// it, a sort of the panes and the entries let go.
    pub fn keep_within(&mut self, budget: usize, on_screen: Option<&str>, words: &str) {
        debug_assert_eq!(
            self.chat_bytes,
            self.panes.values().map(PaneLog::bytes).sum::<usize>(),
            "the running count of SPEC L2 is the chats' own"
        );
        if self.chat_bytes <= budget {
            return;
        }
        let mut off_screen: Vec<(usize, &String)> = self
            .panes
            .iter()
            .filter(|(id, _)| Some(id.as_str()) != on_screen)
            .map(|(id, log)| (log.bytes(), id))
            .collect();
        off_screen.sort_unstable_by(|a, b| b.cmp(a));
        let sizes: Vec<usize> = off_screen.iter().map(|(bytes, _)| *bytes).collect();
        let level = level_to_cut(&sizes, self.chat_bytes - budget);
        let cut: Vec<String> = off_screen
            .into_iter()
            .take_while(|(bytes, _)| *bytes > level)
            .map(|(_, id)| id.clone())
            .collect();
        for id in cut {
            if let Some(log) = self.panes.get_mut(&id) {
                self.chat_bytes -= log.let_go_down_to(level, words);
            }
        }
        if self.chat_bytes > budget
            && let Some(log) = on_screen.and_then(|id| self.panes.get_mut(id))
        {
            let keep = log.bytes().saturating_sub(self.chat_bytes - budget);
            self.chat_bytes -= log.let_go_down_to(keep, words);
        }
    }

    /// Notes again when each open ask expires, after the snapshot or a chat changed.
    pub fn note_asks(&mut self) {
        let deadlines = self
            .panes()
            .iter()
            .flat_map(|pane| pane.asks())
            .map(|ask| ask.expires_at.as_ref().and_then(crate::wire::Stamp::at))
            .collect();
        self.ask_deadlines = deadlines;
    }

    /// When each open ask expires (`None`: it does not say), in no order.
    pub fn ask_deadlines(&self) -> &[Option<OffsetDateTime>] {
        &self.ask_deadlines
    }

    /// How the phone reaches this agent now, for every screen that shows its panes.
    pub fn link(&self) -> Link<'_> {
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
    /// What this agent lets its cards offer (SPEC A11). Whether a Deny carries words depends
    /// on the kind of peer, which the phone's model adds (`PhoneModel::agent_offer`).
    pub fn offer(&self) -> AgentOffer {
        AgentOffer {
            tls: self.is_tls,
            allows_always: self.allows_always(),
            deny_with_words: false,
        }
    }

    pub fn allows_always(&self) -> bool {
        !self.is_tls
            && self
                .hello
                .as_ref()
                .is_some_and(|h| h.cap(caps::ALLOW_ALWAYS))
    }

    pub fn has_cap(&self, cap: &str) -> bool {
        self.hello.as_ref().is_some_and(|h| h.cap(cap))
    }

    /// The name to show: the configured one, with the agent's own name when it differs.
    pub fn display_name(&self) -> String {
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

    pub fn pane(&self, id: &str) -> Option<PaneRef<'_>> {
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

/// The level to cut chats of `sizes` bytes (largest first) down to so that at least `excess`
/// bytes go: the highest level at which what lies above it adds up to `excess`, 0 when all of
/// them together hold less.
fn level_to_cut(sizes: &[usize], excess: usize) -> usize {
    let mut above = 0;
    for (count, size) in sizes.iter().enumerate() {
        above += size;
        let next = sizes.get(count + 1).copied().unwrap_or(0);
        let count = count + 1;
        // Cut to `next`, these `count` chats would give `above - count * next`.
        if above - count * next >= excess {
            return (above - excess) / count;
        }
    }
    0
}

/// Every agent, in the order they were given.
#[derive(Debug, Clone, Default)]
pub struct Agents {
    pub list: Vec<AgentView>,
}

impl Agents {
    pub fn new(agents: impl IntoIterator<Item = (String, bool)>) -> Self {
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

    pub fn get_mut(&mut self, name: &str) -> Option<&mut AgentView> {
        self.list.iter_mut().find(|a| a.name == name)
    }

    /// A pane of an agent, if both are known.
    pub fn pane(&self, agent: &str, pane: &str) -> Option<PaneRef<'_>> {
        self.get(agent)?.pane(pane)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::pane_log::ChatEntry;
    use crate::wire::{Event, EventType, Item, ItemKind};

    /// `count` items of 100 bytes into `pane`, as events.
    fn fill(view: &mut AgentView, pane: &str, count: usize) {
        let events: Vec<Event> = (0..count)
            .map(|n| {
                let mut event = Event::new(n as u64 + 1, EventType::Item);
                event.item = Some(Item::text(
                    format!("{pane}-{n}"),
                    ItemKind::Reply,
                    "x".repeat(100),
                ));
                event
            })
            .collect();
        view.apply(AgentChange::PaneEvents {
            pane: pane.into(),
            events,
        });
    }

    fn bytes(view: &AgentView, pane: &str) -> usize {
        view.panes[pane].bytes()
    }

    fn noted(view: &AgentView, pane: &str) -> bool {
        matches!(view.panes[pane].entries.front(), Some(ChatEntry::LetGo(note)) if note.words == "let go")
    }

    fn counted_right(view: &AgentView) -> bool {
        view.chat_bytes() == view.panes.values().map(PaneLog::bytes).sum::<usize>()
    }

    #[test]
    fn l2_off_screen_chats_let_go_first_the_largest_first_and_say_so() {
        let mut view = AgentView::new("demo", false);
        fill(&mut view, "read", 10);
        fill(&mut view, "big", 10);
        fill(&mut view, "small", 5);
        assert_eq!(view.chat_bytes(), 2500);
        // Under the budget nothing moves.
        view.keep_within(2500, Some("read"), "let go");
        assert_eq!(view.chat_bytes(), 2500);
        assert!(!noted(&view, "big"));
        // 500 over: the largest chat off screen gives its five oldest, no other chat a byte.
        view.keep_within(2000, Some("read"), "let go");
        assert_eq!(
            (
                bytes(&view, "read"),
                bytes(&view, "big"),
                bytes(&view, "small")
            ),
            (1000, 500, 500)
        );
        assert_eq!(view.chat_bytes(), 2000);
        assert!(counted_right(&view));
        assert!(noted(&view, "big") && !noted(&view, "small") && !noted(&view, "read"));
        assert!(matches!(&view.panes["big"].entries[1], ChatEntry::Item(i) if i.id == "big-5"));
        assert_eq!(view.panes["big"].let_go(), 5);
        // Both off screen at one level next: 400 more go, 200 from each.
        view.keep_within(1600, Some("read"), "let go");
        assert_eq!(
            (
                bytes(&view, "read"),
                bytes(&view, "big"),
                bytes(&view, "small")
            ),
            (1000, 300, 300)
        );
        assert_eq!(view.panes["big"].let_go(), 7);
        assert!(noted(&view, "small") && !noted(&view, "read"));
        assert!(counted_right(&view));
    }

    #[test]
    fn l2_the_pane_read_lets_go_last_and_only_what_is_over() {
        let mut view = AgentView::new("demo", false);
        fill(&mut view, "read", 10);
        fill(&mut view, "other", 10);
        fill(&mut view, "third", 5);
        view.keep_within(300, Some("read"), "let go");
        // Every chat off screen is emptied before the one read gives anything, and it gives
        // only the 700 bytes still over.
        assert_eq!(
            (
                bytes(&view, "read"),
                bytes(&view, "other"),
                bytes(&view, "third")
            ),
            (300, 0, 0)
        );
        assert_eq!(view.chat_bytes(), 300);
        assert!(counted_right(&view));
        assert!(noted(&view, "read") && noted(&view, "other") && noted(&view, "third"));
        // An emptied chat is its note alone; the one read keeps its newest three.
        assert_eq!(view.panes["other"].entries.len(), 1);
        let read: Vec<&str> = view.panes["read"]
            .entries
            .iter()
            .filter_map(|e| match e {
                ChatEntry::Item(i) => Some(i.id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(read, ["read-7", "read-8", "read-9"]);
        // New items keep counting from there; no pane read: all are off screen.
        fill(&mut view, "other", 4);
        assert_eq!(view.chat_bytes(), 700);
        view.keep_within(500, None, "let go");
        assert!(view.chat_bytes() <= 500);
        assert!(counted_right(&view));
    }

    #[test]
    fn l2_the_level_cuts_the_largest_chats_to_one_size() {
        // 500 over: the two largest cut to 650 give 350 and 150.
        assert_eq!(level_to_cut(&[1000, 800, 100], 500), 650);
        // 200 over: the largest alone, down to 800.
        assert_eq!(level_to_cut(&[1000, 800, 100], 200), 800);
        // More over than all of them hold: all go.
        assert_eq!(level_to_cut(&[1000, 800], 5000), 0);
        assert_eq!(level_to_cut(&[], 10), 0);
    }
}
