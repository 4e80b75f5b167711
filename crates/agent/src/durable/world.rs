//! The reference agent's world: workspaces, tabs, panes, turns, asks, conversations, and the
//! rules that govern them (SPEC A1–A17, H4, H5, L). Pure: every call takes `now`, nothing here
//! touches a socket or a file. The HTTP layer (`server`) and the demo script (`script`) drive it.

// The error of every route here is the reply body itself (`ErrorBody`), built once per refused
// request and sent at once: boxing it would only add an allocation.
#![allow(clippy::result_large_err)]

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use time::OffsetDateTime;

use super::faults::{Breaks, Rule};
use crate::wire::{
    self, AbortRequest, ActionRequest, Answer, AnswerRequest, Ask, BeltButton, CloseRequest,
    ConversationState, ConversationSummary, ConversationsPage, DecidedBy, Effect, ErrorBody,
    ErrorCode, Event, EventType, EventsReply, Hello, Host, Item, ItemKind, ItemsPage, OUR_PROTOCOL,
    Outcome, Pane, PaneState, PaneView, PostReply, RenameRequest, ReopenRequest, ReplyCode,
    SendRequest, Snapshot, Starter, Tab, TargetKind, Turn, TurnState, Workspace, limits,
};

/// Decided asks whose outcome a pane keeps (SPEC A14 asks for at least 500).
pub(crate) const REMEMBERED_DECISIONS: usize = 500;
/// Events a pane keeps for readers; one that falls further behind gets the view (SPEC H5, L).
pub(crate) const RETAINED_EVENTS: usize = 4000;

/// Something the world did because a phone asked, for the script to act on.
#[derive(Debug, Clone, PartialEq)]
pub enum Happening {
    AskAnswered {
        pane: String,
        ask_id: String,
        tool_call_id: String,
        outcome: Outcome,
    },
    TextSent {
        pane: String,
        turn_id: String,
        text: String,
        steered: bool,
    },
    Aborted {
        pane: String,
        turn_id: String,
    },
    ButtonPressed {
        pane: String,
        button_id: String,
    },
    StarterRun {
        pane: String,
        starter_id: String,
    },
    Reopened {
        pane: String,
    },
    Closed {
        pane: String,
    },
    /// A phone chose a value of one of a hosted pane's settings; the host asks the agent.
    SettingChosen {
        pane: String,
        setting_id: String,
        value: String,
    },
}

/// An open ask with what the agent needs to know beside the wire shape.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpenAsk {
    pub ask: Ask,
    pub(crate) tool_call_id: String,
}

/// Who closed an ask (SPEC A4–A6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Closer {
    Phone,
    Agent(DecidedBy),
}

/// The first outcome of a decided ask, kept for late taps (SPEC A7, A14).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Decision {
    pub ask_id: String,
    pub closer: Closer,
    pub outcome: Outcome,
}

/// A pane as the agent keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PaneRecord {
    pub id: String,
    pub title: String,
    pub conversation_id: String,
    pub belt: Vec<BeltButton>,
    /// The agent's mode and options as it last said them (docs/WIRE.md § 5.13). Not kept
    /// across a restart: the agent says them again when its session opens.
    #[serde(skip)]
    pub(crate) settings: Vec<wire::Setting>,
    /// Every command the agent takes (docs/WIRE.md § 5.14).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<wire::AgentCommand>,
    /// The context used, the window and the cost, as the agent last said them (docs/WIRE.md
    /// § 5.15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) usage: Option<wire::Usage>,
    pub turn: Option<Turn>,
    pub turns_started: u64,
    pub(crate) starting: bool,
    /// The agent says it waits for the person (ACP v2's `requires_action`) while no ask of
    /// this pane is open: the pane reads as waiting (SPEC A2). Said again by the agent after a
    /// restart, so not kept.
    #[serde(skip)]
    pub(crate) waiting: bool,
    pub asks: Vec<OpenAsk>,
    pub decisions: VecDeque<Decision>,
    /// The ACP host's tool notices still waiting or running, in the order shown: (item id,
    /// the notice's words before its status). Kept with the layout so a host that comes back
    /// from a kill settles them with its failed turn (docs/ACP.md, "Tool calls and their
    /// notices"); the host's own memory of its calls died with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub open_tools: Vec<(String, String)>,
    /// Events are per epoch: never persisted (SPEC H5).
    #[serde(skip)]
    pub events: VecDeque<Event>,
    #[serde(skip)]
    pub last_seq: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TabRecord {
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) panes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkspaceRecord {
    pub id: String,
    pub title: String,
    pub(crate) tabs: Vec<TabRecord>,
}

/// A conversation: a pane's chat, kept after the pane closes (SPEC W5 history).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Conversation {
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) created: u64,
    pub pane_id: Option<String>,
    pub(crate) updated_at: String,
    pub items: Vec<Item>,
}

/// What the agent keeps across a restart (with `--state`): everything but the epoch, the
/// events and the request ids, which belong to one epoch (SPEC H5, Q3).
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Layout {
    pub host_name: String,
    pub workspaces: Vec<WorkspaceRecord>,
    pub panes: BTreeMap<String, PaneRecord>,
    pub conversations: BTreeMap<String, Conversation>,
    pub starters: Vec<Starter>,
    pub next_id: u64,
    /// Decided asks of closed panes, newest pane last, so a late tap on a closed pane still
    /// gets `409 decided` with the first outcome (SPEC A7, A14).
    #[serde(default)]
    pub closed_pane_decisions: VecDeque<(String, VecDeque<Decision>)>,
    /// The ACP host's sessions, by conversation id: which agent, in which folder, under which
    /// ACP session id. Empty for the reference worlds.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[serde(rename = "hosted")]
    pub held_sessions: BTreeMap<String, HostedSession>,
    /// The workspace each starter opens its pane in; a starter not named here uses the first.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub starter_homes: BTreeMap<String, String>,
}

/// A conversation held by an outside agent (the ACP host).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostedSession {
    pub agent: String,
    pub cwd: std::path::PathBuf,
    /// The agent's session id, once `session/new` answered.
    pub session: Option<String>,
}

/// Closed panes whose decided asks are kept.
pub(crate) const REMEMBERED_CLOSED_PANES: usize = 256;

/// The world of one agent epoch.
#[derive(Debug)]
pub struct World {
    pub epoch: String,
    pub rev: u64,
    pub ready: bool,
    /// False over TLS (SPEC A11).
    pub(crate) allow_always: bool,
    pub layout: Layout,
    pub(crate) happenings: Vec<Happening>,
    pub requests: super::requests::RequestMemory,
    /// Rules broken on purpose (`agent --break`), so `check` can prove it sees each one.
    /// Empty in normal use; set once by [`super::broken::lay_out_breaks`].
    pub(crate) breaks: Breaks,
    /// Driven by outside agents (the ACP host): a send during a turn waits for the next turn
    /// instead of steering (`caps.queueSend`), and a starter's pane starts as `starting`
    /// until its agent has a session.
    pub outside_agents: bool,
    /// Hosted panes no outside agent holds (their agent is not run by this host): a send
    /// there is refused `404 no-such-pane`, never answered as applied (docs/ACP.md).
    pub unheld: std::collections::BTreeSet<String>,
}

fn now_text(now: OffsetDateTime) -> String {
    wire::time::format(now)
}

pub(crate) fn error(code: ErrorCode, message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(code).with_message(message)
}

/// `409 decided` with who decided first and the first outcome (SPEC A7).
fn decided_error(decision: &Decision) -> ErrorBody {
    let mut body = error(
        ErrorCode::Decided,
        "this ask was decided before the answer arrived",
    );
    match &decision.closer {
        Closer::Phone => body.by = Some("phone".into()),
        Closer::Agent(by) => body.decided_by = Some(by.clone()),
    }
    body.outcome = Some(decision.outcome.clone());
    body
}

/// A fresh epoch: 128 random bits as hex, never reused (SPEC H1).
pub(crate) fn fresh_epoch() -> String {
    let bytes: [u8; 16] = rand::random();
    hex::encode(bytes)
}

impl World {
    pub fn new(layout: Layout, allow_always: bool) -> Self {
        let mut world = Self {
            epoch: fresh_epoch(),
            rev: 1,
            ready: false,
            allow_always,
            layout,
            happenings: Vec::new(),
            requests: Default::default(),
            breaks: Breaks::default(),
            outside_agents: false,
            unheld: Default::default(),
        };
        if !allow_always {
            for pane in world.layout.panes.values_mut() {
                for open in &mut pane.asks {
                    strip_allow_always(&mut open.ask);
                }
            }
        }
        world
    }

    /// The pane's turn, running or the last one ended; None for no pane or no turn yet.
    pub fn turn(&self, pane_id: &str) -> Option<&Turn> {
        self.layout.panes.get(pane_id).and_then(|p| p.turn.as_ref())
    }

    pub fn fresh_id(&mut self, prefix: &str) -> String {
        self.layout.next_id += 1;
        format!("{prefix}-{}", self.layout.next_id)
    }

    /// A change a snapshot reader can see: the ETag moves (SPEC H4).
    pub fn touch(&mut self) {
        self.rev += 1;
    }

    pub fn hello(&self, tls: bool) -> Hello {
        let mut caps = BTreeMap::new();
        caps.insert(
            wire::caps::ALLOW_ALWAYS.to_string(),
            self.allow_always && !tls,
        );
        for cap in [
            wire::caps::HISTORY,
            wire::caps::STARTERS,
            wire::caps::RENAME,
            wire::caps::CLOSE,
        ] {
            caps.insert(cap.to_string(), true);
        }
        if self.outside_agents {
            caps.insert(wire::caps::QUEUE_SEND.to_string(), true);
        }
        Hello {
            service: wire::SERVICE.to_string(),
            protocol: OUR_PROTOCOL,
            host: Host {
                name: wire::sanitize::truncate_to(&self.layout.host_name, limits::MAX_HOST_NAME)
                    .to_string(),
            },
            epoch: self.epoch.clone(),
            ready: self.ready,
            caps,
        }
    }

    pub fn etag(&self) -> String {
        wire::etag(&self.epoch, self.rev)
    }

    // ----- reading -------------------------------------------------------------------------

    pub(crate) fn pane_state(pane: &PaneRecord) -> PaneState {
        if !pane.asks.is_empty() || pane.waiting {
            PaneState::Waiting
        } else if pane.starting {
            PaneState::Starting
        } else {
            match pane.turn.as_ref().map(|t| &t.state) {
                Some(TurnState::Running) => PaneState::Running,
                Some(TurnState::Failed) => PaneState::Failed,
                _ => PaneState::Idle,
            }
        }
    }

    pub fn snapshot(&self) -> Snapshot {
        let workspaces = self
            .layout
            .workspaces
            .iter()
            .map(|w| Workspace {
                id: w.id.clone(),
                title: w.title.clone(),
                tabs: w
                    .tabs
                    .iter()
                    .map(|t| Tab {
                        id: t.id.clone(),
                        title: t.title.clone(),
                        panes: t
                            .panes
                            .iter()
                            .filter_map(|id| self.layout.panes.get(id))
                            .map(|p| Pane {
                                id: p.id.clone(),
                                title: p.title.clone(),
                                state: Self::pane_state(p),
                                turn: p.turn.clone(),
                                conversation_id: Some(p.conversation_id.clone()),
                                belt: p.belt.clone(),
                                asks: p.asks.iter().map(|a| a.ask.clone()).collect(),
                                settings: p.settings.clone(),
                                commands: p.commands.clone(),
                                usage: p.usage.clone(),
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        Snapshot {
            epoch: self.epoch.clone(),
            rev: self.rev,
            workspaces,
            starters: self.layout.starters.clone(),
        }
    }

    pub(crate) fn pane(&self, id: &str) -> Result<&PaneRecord, ErrorBody> {
        self.layout
            .panes
            .get(id)
            .ok_or_else(|| error(ErrorCode::NoSuchPane, format!("no pane {id}")))
    }

    /// Events after `after`, or the whole current view when the reader's epoch is not ours or
    /// its cursor is not one we can continue from (SPEC H5, L).
    pub fn events(
        &self,
        pane_id: &str,
        after: u64,
        epoch: Option<&str>,
    ) -> Result<EventsReply, ErrorBody> {
        let pane = self.pane(pane_id)?;
        let oldest_kept = pane.events.front().map_or(pane.last_seq + 1, |e| e.seq);
        let continuable = epoch == Some(self.epoch.as_str())
            && after <= pane.last_seq
            && after + 1 >= oldest_kept;
        if !continuable {
            return Ok(EventsReply {
                epoch: self.epoch.clone(),
                cursor: pane.last_seq,
                events: Vec::new(),
                more: false,
                view: Some(self.view(pane)),
            });
        }
        let start = pane.events.partition_point(|e| e.seq <= after);
        let events: Vec<Event> = pane
            .events
            .iter()
            .skip(start)
            .take(if self.breaks.has(Rule::LEvents) {
                usize::MAX
            } else {
                limits::MAX_EVENTS_PER_REPLY
            })
            .cloned()
            .collect();
        let cursor = events.last().map_or(after, |e| e.seq);
        Ok(EventsReply {
            epoch: self.epoch.clone(),
            cursor,
            more: cursor < pane.last_seq,
            events,
            view: None,
        })
    }

    fn view(&self, pane: &PaneRecord) -> PaneView {
        let items = self
            .layout
            .conversations
            .get(&pane.conversation_id)
            .map(|c| {
                let skip = c.items.len().saturating_sub(limits::MAX_VIEW_ITEMS);
                c.items[skip..].to_vec()
            })
            .unwrap_or_default();
        PaneView {
            state: Self::pane_state(pane),
            turn: pane.turn.clone(),
            items,
            asks: pane.asks.iter().map(|a| a.ask.clone()).collect(),
        }
    }

    pub fn conversations(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<ConversationsPage, ErrorBody> {
        let before = match after {
            None => u64::MAX,
            Some(cursor) => cursor
                .strip_prefix("before-")
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| {
                    error(
                        ErrorCode::BadRequest,
                        "after is not a cursor this agent gave",
                    )
                })?,
        };
        let limit = limit.clamp(1, limits::MAX_CONVERSATIONS_PAGE)
            + usize::from(self.breaks.has(Rule::LHistoryPage));
        let mut rows: Vec<&Conversation> = self
            .layout
            .conversations
            .values()
            .filter(|c| c.created < before)
            .collect();
        rows.sort_by_key(|row| std::cmp::Reverse(row.created));
        let more = rows.len() > limit;
        rows.truncate(limit);
        let next = if more {
            let mark = if self.breaks.has(Rule::LCursor) {
                "before "
            } else {
                "before-"
            };
            rows.last().map(|c| format!("{mark}{}", c.created))
        } else {
            None
        };
        Ok(ConversationsPage {
            conversations: rows
                .into_iter()
                .map(|c| ConversationSummary {
                    id: c.id.clone(),
                    title: c.title.clone(),
                    state: if c.pane_id.is_some() {
                        ConversationState::Open
                    } else {
                        ConversationState::Closed
                    },
                    pane_id: c.pane_id.clone(),
                    updated_at: Some(c.updated_at.clone()),
                    item_count: c.items.len() as u64,
                })
                .collect(),
            next,
        })
    }

    pub fn conversation_items(
        &self,
        id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<ItemsPage, ErrorBody> {
        let conversation = self.layout.conversations.get(id).ok_or_else(|| {
            error(
                ErrorCode::NoSuchConversation,
                format!("no conversation {id}"),
            )
        })?;
        let start: usize = match after {
            None => 0,
            Some(cursor) => cursor
                .strip_prefix("from-")
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| {
                    error(
                        ErrorCode::BadRequest,
                        "after is not a cursor this agent gave",
                    )
                })?,
        };
        let limit = limit.clamp(1, limits::MAX_ITEMS_PAGE);
        let start = start.min(conversation.items.len());
        let end = (start + limit).min(conversation.items.len());
        Ok(ItemsPage {
            items: conversation.items[start..end].to_vec(),
            next: (end < conversation.items.len()).then(|| format!("from-{end}")),
        })
    }

    // ----- the script's side: things the agent does by itself ----------------------------

    fn push_event(&mut self, pane_id: &str, mut event: Event, now: OffsetDateTime) {
        let Some(pane) = self.layout.panes.get_mut(pane_id) else {
            return;
        };
        pane.last_seq += 1;
        event.seq = pane.last_seq;
        event.at = Some(now_text(now));
        pane.events.push_back(event);
        while pane.events.len() > RETAINED_EVENTS {
            pane.events.pop_front();
        }
    }

    /// Adds an item to a pane's chat and conversation. Text is cut to its limit (SPEC L).
    pub fn push_item(
        &mut self,
        pane_id: &str,
        kind: ItemKind,
        text: &str,
        now: OffsetDateTime,
    ) -> Option<String> {
        let mut item = Item::text(
            "",
            kind.clone(),
            wire::sanitize::truncate_to(text, Item::text_limit(&kind)),
        );
        self.push_built_item(pane_id, &mut item, now)
    }

    /// Adds a prepared item (code with a language, a link), giving it an id and the turn.
    pub fn push_built_item(
        &mut self,
        pane_id: &str,
        item: &mut Item,
        now: OffsetDateTime,
    ) -> Option<String> {
        let id = self.fresh_id("i");
        let pane = self.layout.panes.get(pane_id)?;
        item.id = id.clone();
        item.at = Some(now_text(now));
        item.turn_id = pane.turn.as_ref().map(|t| t.id.clone());
        let conversation_id = pane.conversation_id.clone();
        if let Some(conversation) = self.layout.conversations.get_mut(&conversation_id) {
            conversation.items.push(item.clone());
            conversation.updated_at = now_text(now);
        }
        let mut event = Event::new(0, EventType::Item);
        event.item = Some(item.clone());
        self.push_event(pane_id, event, now);
        Some(id)
    }

    fn push_state(&mut self, pane_id: &str, now: OffsetDateTime) {
        if let Some(pane) = self.layout.panes.get(pane_id) {
            let mut event = Event::new(0, EventType::State);
            event.state = Some(Self::pane_state(pane));
            self.push_event(pane_id, event, now);
        }
    }

    /// Starts a new turn on a pane; the previous one, if running, is done.
    pub fn start_turn(&mut self, pane_id: &str, now: OffsetDateTime) -> Option<String> {
        let pane = self.layout.panes.get_mut(pane_id)?;
        pane.turns_started += 1;
        let turn = Turn {
            id: format!("{}.turn-{}", pane.id, pane.turns_started),
            state: TurnState::Running,
        };
        pane.turn = Some(turn.clone());
        pane.starting = false;
        let mut event = Event::new(0, EventType::Turn);
        event.turn = Some(turn.clone());
        self.push_event(pane_id, event, now);
        self.push_state(pane_id, now);
        self.touch();
        Some(turn.id)
    }

    /// Ends the pane's running turn with `state` (done, aborted, failed).
    pub fn end_turn(&mut self, pane_id: &str, state: TurnState, now: OffsetDateTime) {
        let forget_decisions = self.breaks.has(Rule::A14);
        let Some(pane) = self.layout.panes.get_mut(pane_id) else {
            return;
        };
        let Some(turn) = pane.turn.as_mut().filter(|t| t.state == TurnState::Running) else {
            return;
        };
        turn.state = state;
        if forget_decisions {
            pane.decisions.clear();
        }
        let mut event = Event::new(0, EventType::Turn);
        event.turn = Some(turn.clone());
        self.push_event(pane_id, event, now);
        self.push_state(pane_id, now);
        self.touch();
    }

    /// Opens an ask under the id of SPEC A9. Asking again an ask that is open is a no-op, so a
    /// restart that re-asks does not duplicate it. Returns the ask id.
    pub fn open_ask(
        &mut self,
        pane_id: &str,
        tool_call_id: &str,
        mut ask: Ask,
        now: OffsetDateTime,
    ) -> Option<String> {
        let id = wire::ask_id(pane_id, tool_call_id);
        let pane = self.layout.panes.get_mut(pane_id)?;
        if pane.asks.iter().any(|a| a.ask.id == id) {
            return Some(id);
        }
        if pane.asks.len() >= limits::MAX_OPEN_ASKS_PER_PANE && !self.breaks.has(Rule::LOpenAsks) {
            return None;
        }
        ask.id = id.clone();
        ask.revision = ask.revision.max(1);
        ask.opened_at.get_or_insert_with(|| wire::Stamp::of(now));
        if !self.allow_always {
            strip_allow_always(&mut ask);
        }
        pane.asks.push(OpenAsk {
            ask: ask.clone(),
            tool_call_id: tool_call_id.to_string(),
        });
        let mut event = Event::new(0, EventType::Ask);
        event.ask = Some(ask);
        self.push_event(pane_id, event, now);
        self.push_state(pane_id, now);
        self.touch();
        Some(id)
    }

    /// Changes an open ask in place; its revision rises (SPEC A3).
    pub fn change_ask(
        &mut self,
        pane_id: &str,
        ask_id: &str,
        change: impl FnOnce(&mut Ask),
        now: OffsetDateTime,
    ) -> bool {
        let allow_always = self.allow_always;
        let Some(pane) = self.layout.panes.get_mut(pane_id) else {
            return false;
        };
        let Some(open) = pane.asks.iter_mut().find(|a| a.ask.id == ask_id) else {
            return false;
        };
        change(&mut open.ask);
        open.ask.id = ask_id.to_string();
        open.ask.revision += 1;
        if !allow_always {
            strip_allow_always(&mut open.ask);
        }
        let mut event = Event::new(0, EventType::AskChanged);
        event.ask = Some(open.ask.clone());
        self.push_event(pane_id, event, now);
        self.touch();
        true
    }

    /// Closes an open ask and remembers the outcome (SPEC A4–A6, A14).
    pub(crate) fn close_ask(
        &mut self,
        pane_id: &str,
        ask_id: &str,
        closer: Closer,
        outcome: Outcome,
        now: OffsetDateTime,
    ) -> Option<OpenAsk> {
        let pane = self.layout.panes.get_mut(pane_id)?;
        let index = pane.asks.iter().position(|a| a.ask.id == ask_id)?;
        let open = pane.asks.remove(index);
        pane.decisions.push_back(Decision {
            ask_id: ask_id.to_string(),
            closer: closer.clone(),
            outcome: outcome.clone(),
        });
        while pane.decisions.len() > REMEMBERED_DECISIONS {
            pane.decisions.pop_front();
        }
        let mut event = Event::new(0, EventType::AskClosed);
        event.ask_id = Some(ask_id.to_string());
        event.title = Some(open.ask.title.clone());
        match closer {
            Closer::Phone => event.by = Some("phone".into()),
            Closer::Agent(by) => event.decided_by = Some(by),
        }
        event.outcome = Some(outcome);
        self.push_event(pane_id, event, now);
        self.push_state(pane_id, now);
        self.touch();
        Some(open)
    }

    /// Times out every open ask whose `expiresAt` has passed (SPEC A6, A13).
    pub fn expire_asks(&mut self, now: OffsetDateTime) -> usize {
        let mut due = Vec::new();
        for pane in self.layout.panes.values() {
            for open in &pane.asks {
                if let Some(expires) = open.ask.expires_at.as_ref().and_then(wire::Stamp::at)
                    && expires <= now
                {
                    due.push((pane.id.clone(), open.ask.clone()));
                }
            }
        }
        for (pane, ask) in &due {
            let outcome = default_outcome(ask, "Timed out before an answer");
            self.close_ask(
                pane,
                &ask.id,
                Closer::Agent(DecidedBy::Timeout),
                outcome,
                now,
            );
        }
        due.len()
    }

    /// The agent decides an ask itself (SPEC A5).
    pub fn decide_ask(
        &mut self,
        pane_id: &str,
        ask_id: &str,
        summary: &str,
        now: OffsetDateTime,
    ) -> bool {
        let Some(ask) = self
            .layout
            .panes
            .get(pane_id)
            .and_then(|p| p.asks.iter().find(|a| a.ask.id == ask_id))
            .map(|a| a.ask.clone())
        else {
            return false;
        };
        let outcome = default_outcome(&ask, summary);
        self.close_ask(
            pane_id,
            ask_id,
            Closer::Agent(DecidedBy::Program),
            outcome,
            now,
        )
        .is_some()
    }

    /// Creates a pane (and its conversation) in a tab; returns its id.
    pub fn add_pane(
        &mut self,
        workspace_id: &str,
        tab_id: &str,
        title: &str,
        belt: Vec<BeltButton>,
        now: OffsetDateTime,
    ) -> Option<String> {
        let pane_id = self.fresh_id("p");
        let conversation_id = self.fresh_id("c");
        let created = self.layout.next_id;
        let tab = self
            .layout
            .workspaces
            .iter_mut()
            .find(|w| w.id == workspace_id)?
            .tabs
            .iter_mut()
            .find(|t| t.id == tab_id)?;
        tab.panes.push(pane_id.clone());
        self.layout.conversations.insert(
            conversation_id.clone(),
            Conversation {
                id: conversation_id.clone(),
                title: title.to_string(),
                created,
                pane_id: Some(pane_id.clone()),
                updated_at: now_text(now),
                items: Vec::new(),
            },
        );
        self.layout.panes.insert(
            pane_id.clone(),
            PaneRecord::new(&pane_id, title, &conversation_id, belt),
        );
        self.touch();
        Some(pane_id)
    }

    pub fn add_workspace(&mut self, title: &str) -> String {
        let id = self.fresh_id("w");
        self.layout.workspaces.push(WorkspaceRecord {
            id: id.clone(),
            title: title.to_string(),
            tabs: Vec::new(),
        });
        self.touch();
        id
    }

    pub fn add_tab(&mut self, workspace_id: &str, title: &str) -> Option<String> {
        let id = self.fresh_id("t");
        let workspace = self
            .layout
            .workspaces
            .iter_mut()
            .find(|w| w.id == workspace_id)?;
        workspace.tabs.push(TabRecord {
            id: id.clone(),
            title: title.to_string(),
            panes: Vec::new(),
        });
        self.touch();
        Some(id)
    }

    /// Adds a closed conversation to history (the demo's past).
    pub fn add_past_conversation(
        &mut self,
        title: &str,
        items: Vec<(ItemKind, String)>,
        at: OffsetDateTime,
    ) -> String {
        let id = self.fresh_id("c");
        let created = self.layout.next_id;
        let items = items
            .into_iter()
            .map(|(kind, text)| {
                self.layout.next_id += 1;
                let mut item = Item::text(format!("i-{}", self.layout.next_id), kind, text);
                item.at = Some(now_text(at));
                item
            })
            .collect();
        self.layout.conversations.insert(
            id.clone(),
            Conversation {
                id: id.clone(),
                title: title.to_string(),
                created,
                pane_id: None,
                updated_at: now_text(at),
                items,
            },
        );
        id
    }

    /// Every pane's events, rebuilt after a restart so readers get a full view (SPEC H3, H5).
    pub(crate) fn replay_layout_events(&mut self, now: OffsetDateTime) {
        let ids: Vec<String> = self.layout.panes.keys().cloned().collect();
        for id in ids {
            if let Some(pane) = self.layout.panes.get_mut(&id) {
                pane.events.clear();
                pane.last_seq = 0;
            }
            self.push_state(&id, now);
            let asks: Vec<Ask> = self
                .layout
                .panes
                .get(&id)
                .map(|p| p.asks.iter().map(|a| a.ask.clone()).collect())
                .unwrap_or_default();
            for ask in asks {
                let mut event = Event::new(0, EventType::Ask);
                event.ask = Some(ask);
                self.push_event(&id, event, now);
            }
        }
        self.touch();
    }

    // ----- the phone's side: POST routes -------------------------------------------------

    /// `POST /pane/:id/answer` (SPEC A3, A4, A7, A8, A11, A15).
    pub fn answer(
        &mut self,
        pane_id: &str,
        request: &AnswerRequest,
        now: OffsetDateTime,
    ) -> Result<PostReply, ErrorBody> {
        self.expire_asks(now);
        let Some(pane) = self.layout.panes.get(pane_id) else {
            // A closed pane: its decided asks still answer a late tap (SPEC A7, A14).
            let decision = self
                .layout
                .closed_pane_decisions
                .iter()
                .find(|(id, _)| id == pane_id)
                .and_then(|(_, decisions)| {
                    decisions.iter().rev().find(|d| d.ask_id == request.ask_id)
                });
            return Err(match decision {
                Some(decision) => decided_error(decision),
                None => error(ErrorCode::NoSuchPane, format!("no pane {pane_id}")),
            });
        };
        let Some(open) = pane.asks.iter().find(|a| a.ask.id == request.ask_id) else {
            if let Some(decision) = pane
                .decisions
                .iter()
                .rev()
                .find(|d| d.ask_id == request.ask_id)
            {
                if self.breaks.has(Rule::A7) {
                    // Broken on purpose: the late tap is taken as if it ran.
                    let mut reply = PostReply::ok(&request.request_id);
                    reply.outcome = Some(decision.outcome.clone());
                    return Ok(reply);
                }
                return Err(decided_error(decision));
            }
            if self.breaks.has(Rule::A8) {
                return Err(error(
                    ErrorCode::NotFound,
                    format!("no ask {}", request.ask_id),
                ));
            }
            let mut reply = PostReply::ok(&request.request_id);
            reply.code = ReplyCode::TooLate;
            return Ok(reply);
        };
        if open.ask.revision != request.revision && !self.breaks.has(Rule::A3) {
            let mut body = error(ErrorCode::Stale, "this ask changed; read it again");
            body.revision = Some(open.ask.revision);
            return Err(body);
        }
        let outcome = check_answer(&open.ask, &request.answer)?;
        let tool_call_id = open.tool_call_id.clone();
        self.close_ask(
            pane_id,
            &request.ask_id,
            Closer::Phone,
            outcome.clone(),
            now,
        );
        self.happenings.push(Happening::AskAnswered {
            pane: pane_id.to_string(),
            ask_id: request.ask_id.clone(),
            tool_call_id,
            outcome: outcome.clone(),
        });
        let mut reply = PostReply::ok(&request.request_id);
        reply.outcome = Some(outcome);
        Ok(reply)
    }

    /// `POST /pane/:id/send` (SPEC A16, L): steers the running turn or starts the next.
    pub fn send(
        &mut self,
        pane_id: &str,
        request: &SendRequest,
        now: OffsetDateTime,
    ) -> Result<PostReply, ErrorBody> {
        if request.text.len() > limits::MAX_SEND_TEXT {
            return Err(error(ErrorCode::TextTooLong, "text over 32 KiB"));
        }
        if request.text.trim().is_empty() {
            return Err(error(ErrorCode::BadRequest, "text is empty"));
        }
        let pane = self.pane(pane_id)?;
        if self.outside_agents && self.unheld.contains(pane_id) {
            return Err(error(
                ErrorCode::NoSuchPane,
                "no agent holds this pane any more; start a new one from New",
            ));
        }
        let latest = pane.turn.clone();
        if latest.as_ref().map(|t| &t.id) != request.turn_id.as_ref() {
            let mut body = error(
                ErrorCode::TurnChanged,
                "the pane's turn is not the one named",
            );
            body.turn_id = latest.map(|t| t.id);
            return Err(body);
        }
        let running = latest
            .as_ref()
            .is_some_and(|t| t.state == TurnState::Running);
        let queued = running && self.outside_agents;
        let steered = running && !queued;
        let turn_id = match latest {
            Some(turn) if running => turn.id,
            _ => self
                .start_turn(pane_id, now)
                .ok_or_else(|| error(ErrorCode::NoSuchPane, "pane went away"))?,
        };
        self.push_item(pane_id, ItemKind::User, &request.text, now);
        self.happenings.push(Happening::TextSent {
            pane: pane_id.to_string(),
            turn_id: turn_id.clone(),
            text: request.text.clone(),
            steered,
        });
        let mut reply = PostReply::ok(&request.request_id);
        reply.turn_id = Some(turn_id);
        reply.steered = Some(steered);
        if queued {
            reply.queued = Some(true);
        }
        Ok(reply)
    }

    /// `POST /pane/:id/abort` (SPEC A16, A5: a stopped turn decides its open asks).
    pub fn abort(
        &mut self,
        pane_id: &str,
        request: &AbortRequest,
        now: OffsetDateTime,
    ) -> Result<PostReply, ErrorBody> {
        let pane = self.pane(pane_id)?;
        let latest = pane.turn.clone();
        match &latest {
            Some(turn) if turn.id == request.turn_id && turn.state == TurnState::Running => {}
            Some(turn) if turn.id == request.turn_id => {
                let mut body = error(ErrorCode::NotRunning, "that turn has already ended");
                body.turn_id = Some(turn.id.clone());
                return Err(body);
            }
            _ => {
                let mut body = error(
                    ErrorCode::TurnChanged,
                    "the pane's turn is not the one named",
                );
                body.turn_id = latest.map(|t| t.id);
                return Err(body);
            }
        }
        let ask_ids: Vec<String> = pane.asks.iter().map(|a| a.ask.id.clone()).collect();
        for ask_id in ask_ids {
            self.decide_ask(pane_id, &ask_id, "Denied: the turn was stopped", now);
        }
        self.end_turn(pane_id, TurnState::Aborted, now);
        self.push_item(
            pane_id,
            ItemKind::Notice,
            "Turn stopped from the phone.",
            now,
        );
        self.happenings.push(Happening::Aborted {
            pane: pane_id.to_string(),
            turn_id: request.turn_id.clone(),
        });
        let mut reply = PostReply::ok(&request.request_id);
        reply.turn_id = Some(request.turn_id.clone());
        Ok(reply)
    }

    /// `POST /pane/:id/action`: a belt button press.
    pub fn action(
        &mut self,
        pane_id: &str,
        request: &ActionRequest,
        now: OffsetDateTime,
    ) -> Result<PostReply, ErrorBody> {
        let pane = self.pane(pane_id)?;
        let Some(button) = pane
            .belt
            .iter()
            .find(|b| b.id == request.button_id)
            .cloned()
        else {
            return Err(error(
                ErrorCode::NoSuchButton,
                format!("no button {}", request.button_id),
            ));
        };
        let turn_id = match pane.turn.as_ref().filter(|t| t.state == TurnState::Running) {
            Some(turn) => turn.id.clone(),
            None => self
                .start_turn(pane_id, now)
                .ok_or_else(|| error(ErrorCode::NoSuchPane, "pane went away"))?,
        };
        self.push_item(
            pane_id,
            ItemKind::Notice,
            &format!("Pressed “{}”.", button.label),
            now,
        );
        self.happenings.push(Happening::ButtonPressed {
            pane: pane_id.to_string(),
            button_id: button.id,
        });
        let mut reply = PostReply::ok(&request.request_id);
        reply.turn_id = Some(turn_id);
        Ok(reply)
    }

    /// `POST /rename`: a workspace or a tab.
    pub fn rename(&mut self, request: &RenameRequest) -> Result<PostReply, ErrorBody> {
        let title = request.title.trim();
        if title.is_empty() || title.len() > limits::MAX_TITLE {
            return Err(error(ErrorCode::BadRequest, "a title is 1–256 bytes"));
        }
        let found = match request.kind {
            TargetKind::Workspace => self
                .layout
                .workspaces
                .iter_mut()
                .find(|w| w.id == request.id)
                .map(|w| &mut w.title),
            TargetKind::Tab => self
                .layout
                .workspaces
                .iter_mut()
                .flat_map(|w| w.tabs.iter_mut())
                .find(|t| t.id == request.id)
                .map(|t| &mut t.title),
            _ => {
                return Err(error(
                    ErrorCode::BadRequest,
                    "only a workspace or a tab can be renamed",
                ));
            }
        };
        let Some(slot) = found else {
            return Err(error(
                ErrorCode::NoSuchTarget,
                format!("no {} {}", request.kind, request.id),
            ));
        };
        *slot = title.to_string();
        self.touch();
        Ok(PostReply::ok(&request.request_id))
    }

    /// `POST /close`: a pane, a tab or a workspace. Open asks of a closed pane are decided by
    /// the program (SPEC A5); its conversation stays in history as closed.
    pub(crate) fn close(
        &mut self,
        request: &CloseRequest,
        now: OffsetDateTime,
    ) -> Result<PostReply, ErrorBody> {
        let panes: Vec<String> = match request.kind {
            TargetKind::Pane => {
                self.pane(&request.id)?;
                vec![request.id.clone()]
            }
            TargetKind::Tab => self
                .layout
                .workspaces
                .iter()
                .flat_map(|w| &w.tabs)
                .find(|t| t.id == request.id)
                .map(|t| t.panes.clone())
                .ok_or_else(|| error(ErrorCode::NoSuchTarget, format!("no tab {}", request.id)))?,
            TargetKind::Workspace => self
                .layout
                .workspaces
                .iter()
                .find(|w| w.id == request.id)
                .map(|w| w.tabs.iter().flat_map(|t| t.panes.clone()).collect())
                .ok_or_else(|| {
                    error(
                        ErrorCode::NoSuchTarget,
                        format!("no workspace {}", request.id),
                    )
                })?,
            TargetKind::Unknown(_) => {
                return Err(error(
                    ErrorCode::BadRequest,
                    "kind is pane, tab or workspace",
                ));
            }
        };
        for pane in &panes {
            self.close_pane(pane, now);
        }
        match request.kind {
            TargetKind::Tab => self
                .layout
                .workspaces
                .iter_mut()
                .for_each(|w| w.tabs.retain(|t| t.id != request.id)),
            TargetKind::Workspace => self.layout.workspaces.retain(|w| w.id != request.id),
            _ => {}
        }
        self.touch();
        Ok(PostReply::ok(&request.request_id))
    }

    /// Closes a pane on the agent's own account (its conversation stays in history).
    pub fn close_pane_now(&mut self, pane_id: &str, now: OffsetDateTime) {
        self.close_pane(pane_id, now);
        self.touch();
    }

    fn close_pane(&mut self, pane_id: &str, now: OffsetDateTime) {
        let ask_ids: Vec<String> = self
            .layout
            .panes
            .get(pane_id)
            .map(|p| p.asks.iter().map(|a| a.ask.id.clone()).collect())
            .unwrap_or_default();
        for ask_id in ask_ids {
            self.decide_ask(pane_id, &ask_id, "Denied: the pane was closed", now);
        }
        self.end_turn(pane_id, TurnState::Aborted, now);
        if let Some(pane) = self.layout.panes.remove(pane_id) {
            if let Some(conversation) = self.layout.conversations.get_mut(&pane.conversation_id) {
                conversation.pane_id = None;
                conversation.updated_at = now_text(now);
            }
            if !pane.decisions.is_empty() {
                let kept = &mut self.layout.closed_pane_decisions;
                kept.push_back((pane.id, pane.decisions));
                while kept.len() > REMEMBERED_CLOSED_PANES {
                    kept.pop_front();
                }
            }
        }
        for workspace in &mut self.layout.workspaces {
            for tab in &mut workspace.tabs {
                tab.panes.retain(|p| p != pane_id);
            }
        }
        self.happenings.push(Happening::Closed {
            pane: pane_id.to_string(),
        });
    }

    /// `POST /starter/:id` (SPEC A17): a new pane in a new tab of the first workspace.
    pub fn run_starter(
        &mut self,
        starter_id: &str,
        request_id: &str,
        now: OffsetDateTime,
    ) -> Result<PostReply, ErrorBody> {
        let Some(starter) = self
            .layout
            .starters
            .iter()
            .find(|s| s.id == starter_id)
            .cloned()
        else {
            return Err(error(
                ErrorCode::NoSuchStarter,
                format!("no starter {starter_id}"),
            ));
        };
        let home = self
            .layout
            .starter_homes
            .get(starter_id)
            .filter(|id| self.layout.workspaces.iter().any(|w| &w.id == *id))
            .cloned();
        let workspace_id =
            match home.or_else(|| self.layout.workspaces.first().map(|w| w.id.clone())) {
                Some(id) => id,
                None => self.add_workspace("Started"),
            };
        if self.layout.panes.len() >= limits::MAX_PANES || self.tab_count() >= limits::MAX_TABS {
            return Err(error(
                ErrorCode::BadRequest,
                "this agent is full: close a pane first",
            ));
        }
        let tab_id = self
            .add_tab(&workspace_id, &starter.title)
            .ok_or_else(|| error(ErrorCode::Internal, "no workspace"))?;
        let pane_id = self
            .add_pane(&workspace_id, &tab_id, &starter.title, self.new_belt(), now)
            .ok_or_else(|| error(ErrorCode::Internal, "no tab"))?;
        if self.outside_agents {
            self.set_starting(&pane_id, true, now);
        } else {
            self.start_turn(&pane_id, now);
        }
        self.push_item(
            &pane_id,
            ItemKind::Notice,
            &format!("Started from “{}”.", starter.title),
            now,
        );
        self.happenings.push(Happening::StarterRun {
            pane: pane_id.clone(),
            starter_id: starter_id.to_string(),
        });
        let mut reply = PostReply::ok(request_id);
        reply.pane_id = Some(pane_id);
        Ok(reply)
    }

    /// The belt of a new pane: the reference buttons, or none for a hosted pane, whose agent
    /// fills it with its own commands.
    fn new_belt(&self) -> Vec<BeltButton> {
        if self.outside_agents {
            Vec::new()
        } else {
            default_belt()
        }
    }

    /// Marks a pane as starting (its agent has no session yet) or not.
    pub fn set_starting(&mut self, pane_id: &str, starting: bool, now: OffsetDateTime) {
        let Some(pane) = self.layout.panes.get_mut(pane_id) else {
            return;
        };
        if pane.starting == starting {
            return;
        }
        pane.starting = starting;
        self.push_state(pane_id, now);
        self.touch();
    }

    /// Marks a pane as waiting for the person by the agent's word, or no longer (ACP v2's
    /// `state_update`; docs/ACP.md, "ACP v1 and v2").
    pub fn set_waiting(&mut self, pane_id: &str, waiting: bool, now: OffsetDateTime) {
        let Some(pane) = self.layout.panes.get_mut(pane_id) else {
            return;
        };
        if pane.waiting == waiting {
            return;
        }
        pane.waiting = waiting;
        self.push_state(pane_id, now);
        self.touch();
    }

    /// Sets a pane's belt (the snapshot shows it).
    pub fn set_belt(&mut self, pane_id: &str, belt: Vec<BeltButton>, _now: OffsetDateTime) {
        if let Some(pane) = self.layout.panes.get_mut(pane_id)
            && pane.belt != belt
        {
            pane.belt = belt;
            self.touch();
        }
    }

    /// Replaces an item's text in place: an agent's message growing as it streams. The pane
    /// sends the item again under its id (readers replace it, docs/WIRE.md § 5.8); of its older
    /// events only the first stays, holding the new text, so a long message costs its readers
    /// two copies at most. False when the item is not there.
    pub fn grow_item(
        &mut self,
        pane_id: &str,
        item_id: &str,
        text: &str,
        now: OffsetDateTime,
    ) -> bool {
        let Some(pane) = self.layout.panes.get_mut(pane_id) else {
            return false;
        };
        let Some(conversation) = self.layout.conversations.get_mut(&pane.conversation_id) else {
            return false;
        };
        let Some(item) = conversation
            .items
            .iter_mut()
            .rev()
            .find(|i| i.id == item_id)
        else {
            return false;
        };
        item.text = wire::sanitize::truncate_to(text, Item::text_limit(&item.kind)).to_string();
        let item = item.clone();
        conversation.updated_at = now_text(now);
        // A reader that has not reached the item's first event yet finds it there, grown, in
        // its place in the chat; a reader past it gets the new event and replaces it in place.
        // The versions in between are dropped: each item is kept at most twice.
        let mut first = true;
        pane.events.retain_mut(|e| {
            let this =
                e.kind == EventType::Item && e.item.as_ref().is_some_and(|i| i.id == item_id);
            if !this {
                return true;
            }
            if std::mem::take(&mut first) {
                e.item = Some(item.clone());
                return true;
            }
            false
        });
        let mut event = Event::new(0, EventType::Item);
        event.item = Some(item);
        self.push_event(pane_id, event, now);
        true
    }

    fn tab_count(&self) -> usize {
        self.layout.workspaces.iter().map(|w| w.tabs.len()).sum()
    }

    /// `POST /reopen`: shows a closed conversation in a new pane; an open one answers with its
    /// pane.
    pub fn reopen(
        &mut self,
        request: &ReopenRequest,
        now: OffsetDateTime,
    ) -> Result<PostReply, ErrorBody> {
        let Some(conversation) = self
            .layout
            .conversations
            .get(&request.conversation_id)
            .cloned()
        else {
            return Err(error(
                ErrorCode::NoSuchConversation,
                format!("no conversation {}", request.conversation_id),
            ));
        };
        let mut reply = PostReply::ok(&request.request_id);
        if let Some(pane) = conversation.pane_id {
            reply.pane_id = Some(pane);
            return Ok(reply);
        }
        if self.layout.panes.len() >= limits::MAX_PANES {
            return Err(error(
                ErrorCode::BadRequest,
                "this agent is full: close a pane first",
            ));
        }
        let workspace_id = match self.layout.workspaces.first() {
            Some(w) => w.id.clone(),
            None => self.add_workspace("Reopened"),
        };
        let tab_id = match self
            .layout
            .workspaces
            .iter()
            .find(|w| w.id == workspace_id)
            .and_then(|w| w.tabs.iter().find(|t| t.title == "Reopened"))
        {
            Some(tab) => tab.id.clone(),
            None => self
                .add_tab(&workspace_id, "Reopened")
                .ok_or_else(|| error(ErrorCode::Internal, "no workspace"))?,
        };
        let pane_id = self.fresh_id("p");
        if let Some(tab) = self
            .layout
            .workspaces
            .iter_mut()
            .flat_map(|w| w.tabs.iter_mut())
            .find(|t| t.id == tab_id)
        {
            tab.panes.push(pane_id.clone());
        }
        self.layout.panes.insert(
            pane_id.clone(),
            PaneRecord::new(
                &pane_id,
                &conversation.title,
                &conversation.id,
                self.new_belt(),
            ),
        );
        if let Some(stored) = self.layout.conversations.get_mut(&conversation.id) {
            stored.pane_id = Some(pane_id.clone());
            stored.updated_at = now_text(now);
        }
        self.push_state(&pane_id, now);
        self.push_item(&pane_id, ItemKind::Notice, "Conversation reopened.", now);
        self.touch();
        self.happenings.push(Happening::Reopened {
            pane: pane_id.clone(),
        });
        reply.pane_id = Some(pane_id);
        Ok(reply)
    }
}

impl PaneRecord {
    pub(crate) fn new(id: &str, title: &str, conversation_id: &str, belt: Vec<BeltButton>) -> Self {
        Self {
            id: id.to_string(),
            title: title.to_string(),
            conversation_id: conversation_id.to_string(),
            belt,
            settings: Vec::new(),
            commands: Vec::new(),
            usage: None,
            turn: None,
            turns_started: 0,
            starting: false,
            waiting: false,
            asks: Vec::new(),
            decisions: VecDeque::new(),
            open_tools: Vec::new(),
            events: VecDeque::new(),
            last_seq: 0,
        }
    }
}

/// The belt every demo pane carries.
pub(crate) fn default_belt() -> Vec<BeltButton> {
    vec![
        BeltButton {
            id: "run-tests".into(),
            label: "Run tests".into(),
        },
        BeltButton {
            id: "summarize".into(),
            label: "Summarize".into(),
        },
    ]
}

/// Over TLS no allow-always is offered (SPEC A11).
fn strip_allow_always(ask: &mut Ask) {
    if let Some(body) = &mut ask.permission {
        body.options
            .retain(|o| o.effect != Some(Effect::AllowAlways));
    }
}

/// What an ask decided without a person becomes: deny for a permission, no answer otherwise.
fn default_outcome(ask: &Ask, summary: &str) -> Outcome {
    let deny = ask
        .permission
        .as_ref()
        .and_then(|p| p.options.iter().find(|o| o.effect == Some(Effect::Deny)));
    Outcome {
        option_id: deny.map(|o| o.id.clone()),
        effect: deny.map(|_| Effect::Deny),
        summary: summary.to_string(),
        ..Outcome::default()
    }
}

/// Checks an answer against its ask (`wire::accepts`, the check the phone runs too) and
/// builds the outcome (SPEC A15).
fn check_answer(ask: &Ask, answer: &Answer) -> Result<Outcome, ErrorBody> {
    let picked = wire::accepts(ask, answer)
        .map_err(|problem| error(ErrorCode::BadAnswer, problem.to_string()))?;
    Ok(match picked {
        Some(option) => Outcome {
            option_id: Some(option.id.clone()),
            effect: option.effect.clone(),
            summary: option.label.clone(),
            ..Outcome::default()
        },
        None if answer.values.is_some() => Outcome {
            values: answer.values.clone(),
            summary: "Submitted".into(),
            ..Outcome::default()
        },
        None => Outcome {
            text: answer.text.clone(),
            summary: "Answered".into(),
            ..Outcome::default()
        },
    })
}

/// Per-pane lookups the script uses.
impl World {
    pub fn take_happenings(&mut self) -> Vec<Happening> {
        std::mem::take(&mut self.happenings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{AskKind, AskOption, PermissionBody, TargetKind};

    fn permission() -> Ask {
        Ask {
            id: String::new(),
            revision: 1,
            kind: AskKind::Permission,
            title: "shell: ls".into(),
            opened_at: None,
            expires_at: None,
            permission: Some(PermissionBody {
                tool: "shell".into(),
                arguments: serde_json::json!({"command": "ls"}),
                options: vec![
                    AskOption {
                        id: "allow-once".into(),
                        label: "Allow once".into(),
                        effect: Some(Effect::Allow),
                    },
                    AskOption {
                        id: "deny".into(),
                        label: "Deny".into(),
                        effect: Some(Effect::Deny),
                    },
                ],
            }),
            choice: None,
            text: None,
            form: None,
            words_altered: false,
        }
    }

    fn world_with_pane() -> (World, String) {
        let now = OffsetDateTime::now_utc();
        let mut world = World::new(Layout::default(), true);
        let workspace = world.add_workspace("W");
        let tab = world.add_tab(&workspace, "T").expect("tab");
        let pane = world
            .add_pane(&workspace, &tab, "P", default_belt(), now)
            .expect("pane");
        (world, pane)
    }

    fn answer(ask_id: &str, request_id: &str) -> AnswerRequest {
        AnswerRequest {
            request_id: request_id.into(),
            ask_id: ask_id.into(),
            revision: 1,
            answer: Answer {
                option_id: Some("allow-once".into()),
                ..Answer::default()
            },
        }
    }

    #[test]
    fn a7_a14_late_tap_on_a_closed_pane_gets_decided_with_the_first_outcome() {
        let now = OffsetDateTime::now_utc();
        let (mut world, pane) = world_with_pane();
        let ask = world
            .open_ask(&pane, "call-1", permission(), now)
            .expect("ask");
        assert!(world.answer(&pane, &answer(&ask, "r1"), now).is_ok());
        let close = CloseRequest {
            request_id: "r2".into(),
            kind: TargetKind::Pane,
            id: pane.clone(),
        };
        assert!(world.close(&close, now).is_ok());
        let late = world
            .answer(&pane, &answer(&ask, "r3"), now)
            .expect_err("decided");
        assert_eq!(late.code, ErrorCode::Decided);
        assert_eq!(late.by.as_deref(), Some("phone"));
        assert_eq!(
            late.outcome.and_then(|o| o.option_id).as_deref(),
            Some("allow-once")
        );
        let unknown = world
            .answer("p-none", &answer(&ask, "r4"), now)
            .expect_err("no pane");
        assert_eq!(unknown.code, ErrorCode::NoSuchPane);
    }

    #[test]
    fn a5_closing_a_pane_decides_its_open_asks_by_program() {
        let now = OffsetDateTime::now_utc();
        let (mut world, pane) = world_with_pane();
        let ask = world
            .open_ask(&pane, "call-1", permission(), now)
            .expect("ask");
        let close = CloseRequest {
            request_id: "r2".into(),
            kind: TargetKind::Pane,
            id: pane.clone(),
        };
        assert!(world.close(&close, now).is_ok());
        let late = world
            .answer(&pane, &answer(&ask, "r3"), now)
            .expect_err("decided");
        assert_eq!(late.decided_by, Some(DecidedBy::Program));
        assert_eq!(late.outcome.and_then(|o| o.effect), Some(Effect::Deny));
    }
}
