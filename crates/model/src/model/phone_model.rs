//! The phone's model as one value (docs/ARCHITECTURE.md, "The model"): the agents as heard, the
//! intents and what became of them, the conversations read back, the cards opened, each pane's
//! box, the outbox, what each DSH bridge told beyond its panes and the pane a reply named.
//! Its fields are its own: the glass and the headless commands read it
//! and change it only through the methods below, each of which keeps a rule of the model (a
//! person's words are never lost, a card keeps what was typed on it, a bridge is a set of
//! capabilities). No terminal, no I/O.

use std::collections::HashMap;

use time::OffsetDateTime;

use crate::chat::pane_log::{ChatEntry, ClosedAsk};
use crate::dsh_wire::TaskStatus;
use crate::engine::{IntentKind, IntentRecord, IntentState};
use crate::model::agents::{AgentView, Agents};
use crate::model::capabilities::{self, Capabilities};
use crate::model::card_state::{AgentOffer, CardState};
use crate::model::deny_words::DenyWords;
use crate::model::dsh_state::DshView;
use crate::model::editor::Editor;
use crate::model::history::HistoryStore;
use crate::model::inbox::AskKey;
use crate::model::intents::{self, Intents};
use crate::model::outbox::Outbox;
use crate::model::seen::Seen;
use crate::wire::{Ask, Snapshot};

#[derive(Debug, Clone, Default)]
pub struct PhoneModel {
    agents: Agents,
    intents: Intents,
    history: HistoryStore,
    /// Cards opened, by ask: what was picked or typed survives leaving the card.
    cards: HashMap<AskKey, CardState>,
    /// Unsent text per (agent, pane): a person's words are never lost.
    drafts: HashMap<(String, String), Editor>,
    /// Words that left a box with Enter, until the agent took them (one send = one Enter).
    outbox: Outbox,
    /// What each DSH bridge told beyond its panes, by agent name (SPEC D).
    dsh: HashMap<String, DshView>,
    /// A pane a starter or reopen named, opened as soon as the snapshot has it (SPEC A17, W5).
    awaiting_pane: Option<(String, String)>,
    /// The words after each Deny on its way, and the messages they became (SPEC A21).
    deny_words: DenyWords,
    /// What the person last saw of each pane, and the panes with news since (SPEC A22).
    seen: Seen,
}

impl PhoneModel {
    /// The model of a phone that has heard nothing yet: `agents` by name with whether each is
    /// reached over TLS, `bridges` the names of those that are DSH bridges.
    pub fn new(
        agents: impl IntoIterator<Item = (String, bool)>,
        bridges: impl IntoIterator<Item = String>,
    ) -> Self {
        Self {
            agents: Agents::new(agents),
            dsh: bridges
                .into_iter()
                .map(|name| (name, DshView::default()))
                .collect(),
            ..Self::default()
        }
    }

    // What was heard, as read.

    /// The agents as last heard.
    pub fn agents(&self) -> &Agents {
        &self.agents
    }

    /// What was asked of the agents, and how it went.
    pub fn intents(&self) -> &Intents {
        &self.intents
    }

    /// The conversations read back from the agents.
    pub fn history(&self) -> &HistoryStore {
        &self.history
    }

    /// The cards opened, by ask, with what was picked or typed on them.
    pub fn cards(&self) -> &HashMap<AskKey, CardState> {
        &self.cards
    }

    pub fn card(&self, key: &AskKey) -> Option<&CardState> {
        self.cards.get(key)
    }

    pub fn outbox(&self) -> &Outbox {
        &self.outbox
    }

    pub fn dsh_view(&self, agent: &str) -> Option<&DshView> {
        self.dsh.get(agent)
    }

    /// What the person last saw of each pane, and which panes have news since (SPEC A22).
    pub fn seen(&self) -> &Seen {
        &self.seen
    }

    /// The pane a reply named that the snapshot does not have yet.
    pub fn awaiting_pane(&self) -> Option<&(String, String)> {
        self.awaiting_pane.as_ref()
    }

    // The parts that keep their own rules, to be changed through their own methods.

    /// An agent's view, for the news of it (`AgentView::apply` keeps what a change may do).
    pub fn agent_mut(&mut self, agent: &str) -> Option<&mut AgentView> {
        self.agents.get_mut(agent)
    }

    pub fn intents_mut(&mut self) -> &mut Intents {
        &mut self.intents
    }

    pub fn history_mut(&mut self) -> &mut HistoryStore {
        &mut self.history
    }

    pub fn outbox_mut(&mut self) -> &mut Outbox {
        &mut self.outbox
    }

    pub fn dsh_view_mut(&mut self, agent: &str) -> Option<&mut DshView> {
        self.dsh.get_mut(agent)
    }

    /// What a bridge told beyond its panes, kept for an agent that turned out to be one.
    pub fn dsh_view_or_new(&mut self, agent: &str) -> &mut DshView {
        self.dsh.entry(agent.to_string()).or_default()
    }

    /// A card opened before, to take the person's keys.
    pub fn card_mut(&mut self, key: &AskKey) -> Option<&mut CardState> {
        self.cards.get_mut(key)
    }

    /// Every card, for what changes all of them at once (a new theme, a new size).
    pub fn cards_mut(&mut self) -> impl Iterator<Item = &mut CardState> {
        self.cards.values_mut()
    }

    // The model's own rules.

    /// Whether any agent is a DSH bridge (the New page offers its tasks then).
    pub fn has_bridges(&self) -> bool {
        !self.dsh.is_empty()
    }

    /// What `agent` can do: a DSH bridge's set, or a Collie agent's. Rooms ask this, never
    /// the peer's kind.
    pub fn can(&self, agent: &str) -> Capabilities {
        if self.dsh.contains_key(agent) {
            capabilities::DSH_BRIDGE
        } else {
            capabilities::COLLIE
        }
    }

    /// What an agent lets its cards offer (SPEC A11).
    pub fn agent_offer(&self, agent: &str) -> AgentOffer {
        AgentOffer {
            deny_with_words: self.can(agent).deny_with_words,
            ..self
                .agents
                .get(agent)
                .map_or_else(AgentOffer::default, AgentView::offer)
        }
    }

    /// A Deny with words is handed to the engine (SPEC A21): the words leave the card and wait
    /// for its outcome here.
    pub fn deny_with_words(&mut self, key: &AskKey, text: String) {
        if let Some(words) = self.cards.get_mut(key).and_then(CardState::say_why_mut) {
            *words = Editor::new();
        }
        self.deny_words.deny_sent(key.clone(), text);
    }

    /// The words after each Deny on its way (SPEC A21).
    pub(crate) fn deny_words_mut(&mut self) -> &mut DenyWords {
        &mut self.deny_words
    }

    /// A new intent handed on to the engine (SPEC Q1).
    pub fn submitted(&mut self, agent: &str, kind: IntentKind) {
        self.intents.submitted(agent, kind);
    }

    /// Opens the card of an open ask, keeping what was typed on it before; false when the
    /// ask is not open (there is nothing to open).
    pub fn open_card(&mut self, key: &AskKey, now: OffsetDateTime) -> bool {
        let Some(pane) = self.agents.pane(&key.agent, &key.pane) else {
            return false;
        };
        let Some(ask) = pane.asks().iter().find(|a| a.id == key.ask_id) else {
            return false;
        };
        let ask = ask.clone();
        let title = pane.pane.title.clone();
        self.cards
            .entry(key.clone())
            .and_modify(|card| card.reopen(now))
            .or_insert_with(|| CardState::new(key.clone(), ask, title, now));
        true
    }

    /// Lets a card go: its ask was answered or closed, and what it held is told elsewhere.
    pub fn forget_card(&mut self, key: &AskKey) {
        self.cards.remove(key);
    }

    /// The live ask of a card, and how it closed if the chat says.
    pub fn live_ask(&self, key: &AskKey) -> (Option<&Ask>, Option<&ClosedAsk>) {
        let Some(pane) = self.agents.pane(&key.agent, &key.pane) else {
            return (None, None);
        };
        let live = pane.asks().iter().find(|a| a.id == key.ask_id);
        let closed = pane.log.and_then(|log| {
            log.entries.iter().rev().find_map(|entry| match entry {
                ChatEntry::Closed(closed) if closed.ask_id == key.ask_id => Some(closed),
                _ => None,
            })
        });
        (live, closed)
    }

    /// Redraws open cards from the live asks (SPEC A3); gives the cards whose ask changed or
    /// closed under them, so a question about the ask they were can be taken down.
    pub fn refresh_cards(&mut self, now: OffsetDateTime) -> Vec<AskKey> {
        let keys: Vec<AskKey> = self.cards.keys().cloned().collect();
        let mut changed = Vec::new();
        for key in keys {
            // An agent that is not ready keeps showing what it had (SPEC H6).
            let ready = self
                .agents
                .get(&key.agent)
                .is_some_and(|a| a.status.is_ready());
            let (live, closed) = self.live_ask(&key);
            if live.is_none() && !ready {
                continue;
            }
            let (live, closed) = (live.cloned(), closed.cloned());
            let offer = self.agent_offer(&key.agent);
            if self
                .cards
                .get_mut(&key)
                .is_some_and(|card| card.refresh(live.as_ref(), closed.as_ref(), offer, now))
            {
                changed.push(key);
            }
        }
        changed
    }

    // News marks (SPEC A22): what the person saw of each pane.

    /// Goes over `agent`'s panes after news of it: the pane on screen is seen, the others are
    /// marked when they changed since the person saw them.
    pub fn hear_seen(&mut self, agent: &str, on_screen: Option<&str>) {
        if let Some(view) = self.agents.get(agent) {
            self.seen.hear(view, on_screen);
        }
    }

    /// The person looks at this pane: what it shows now is seen, and its mark goes.
    pub fn look_at(&mut self, agent: &str, pane: &str) {
        if let Some(view) = self.agents.get(agent) {
            self.seen.look_at(view, pane);
        }
    }

    /// What a phone kept in its state folder before it stopped (`Seen::to_json`).
    pub fn recall_seen(&mut self, kept: &str) {
        self.seen = Seen::from_json(kept);
    }

    /// What to keep in the state folder now, when what was seen changed since it was kept.
    pub fn seen_to_keep(&mut self) -> Option<String> {
        self.seen.changed().then(|| self.seen.to_json())
    }

    /// Waits for the pane a reply named (a starter's, a reopen's, a bridge task's).
    pub fn await_pane(&mut self, agent: &str, pane: &str) {
        self.awaiting_pane = Some((agent.to_string(), pane.to_string()));
    }

    /// The pane waited for, once the snapshot has it; it is waited for no more.
    pub fn awaited_pane_arrived(&mut self) -> Option<(String, String)> {
        let (agent, pane) = self.awaiting_pane.as_ref()?;
        self.agents.pane(agent, pane)?;
        self.awaiting_pane.take()
    }

    // Each pane's box: a person's words are never lost (SPEC A16, docs/ENGINE.md).

    pub fn draft(&self, agent: &str, pane: &str) -> Option<&Editor> {
        self.drafts.get(&(agent.to_string(), pane.to_string()))
    }

    /// Empties a pane's box: its words left it into the outbox, which keeps them from here.
    pub fn clear_draft(&mut self, agent: &str, pane: &str) {
        self.drafts.remove(&(agent.to_string(), pane.to_string()));
    }

    pub fn draft_mut(&mut self, agent: &str, pane: &str) -> &mut Editor {
        self.drafts
            .entry((agent.to_string(), pane.to_string()))
            .or_default()
    }

    /// The box of a pane as it reads now ("" when there is none).
    pub fn box_text(&self, agent: &str, pane_id: &str) -> String {
        self.draft(agent, pane_id)
            .map(Editor::text)
            .unwrap_or_default()
    }

    /// Pane drafts, sends not taken yet and open cards with the person's own words on them (a
    /// text answer, the words under a Deny; a form's defaults are the agent's, not typed).
    pub fn unsent_drafts(&self) -> usize {
        let panes = self.drafts.values().filter(|e| !e.is_empty()).count() + self.outbox.unsent();
        let cards = self
            .cards
            .values()
            .filter(|card| card.closed.is_none() && card.has_own_words())
            .count();
        panes + cards
    }

    /// True when a send of the outbox stopped: it failed, or its outcome is unknown.
    pub fn send_is_held(&self, request_id: &str) -> bool {
        self.intents.get(request_id).is_some_and(|r| {
            !intents::is_in_flight(&r.state)
                && !matches!(
                    r.state,
                    IntentState::Done { .. } | IntentState::Replayed { .. }
                )
        })
    }

    /// Puts words back into a pane's box, in order, before what is typed there: the one home
    /// of "take back", for held sends and for sends a stopped turn dropped. False when there
    /// were none.
    pub fn back_into_box(&mut self, agent: &str, pane_id: &str, taken: &[String]) -> bool {
        if taken.is_empty() {
            return false;
        }
        let draft = self.draft_mut(agent, pane_id);
        let typed = draft.text();
        let mut text = taken.join("\n");
        if !typed.is_empty() {
            text.push('\n');
            text.push_str(&typed);
        }
        *draft = Editor::from_text(&text);
        true
    }

    /// Puts the words typed on a card into the box of its ask's pane, after what is there;
    /// gives the pane's title when there were words.
    pub fn give_back_card_words(&mut self, key: &AskKey) -> Option<String> {
        let card = self.cards.get(key)?;
        let words = card.typed_words()?;
        let title = card.pane_title.clone();
        let draft = self.draft_mut(&key.agent, &key.pane);
        let mut text = draft.text();
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&words);
        *draft = Editor::from_text(&text);
        Some(title)
    }

    /// When words came back to this pane's box, while the box still holds them as they came.
    pub fn came_back(&self, agent: &str, pane_id: &str) -> Option<OffsetDateTime> {
        let box_text = self.box_text(agent, pane_id);
        self.outbox
            .came_back(agent, pane_id, &box_text)
            .map(|back| back.at)
    }

    /// A box that was sent or edited since its words came back no longer carries the line
    /// that says so.
    pub fn settle_came_back(&mut self) {
        let drafts = &self.drafts;
        self.outbox.settle_came_back(|agent, pane_id| {
            drafts
                .get(&(agent.to_string(), pane_id.to_string()))
                .map(Editor::text)
                .unwrap_or_default()
        });
    }

    /// Sends that waited too long for their agent, back in their boxes with the line that
    /// says so: each (agent, pane) they went back to (docs/ENGINE.md).
    pub fn bring_back_waited(&mut self, now: OffsetDateTime) -> Vec<(String, String)> {
        let mut back = Vec::new();
        for (agent, pane_id, words) in self.outbox.waited_too_long(now) {
            if !self.back_into_box(&agent, &pane_id, &words) {
                continue;
            }
            let box_text = self.box_text(&agent, &pane_id);
            self.outbox.note_came_back(&agent, &pane_id, now, box_text);
            back.push((agent, pane_id));
        }
        back
    }

    // A DSH bridge's tasks (SPEC D2, D5): the pane and the layout both ask them.

    /// Whether the bridge takes actions for this pane (a task it follows).
    pub fn dsh_writable(&self, agent: &str, pane: &str) -> bool {
        self.dsh_unwritable(agent, pane).is_none()
    }

    /// Whether a turn of this task runs, so a cancel has something to stop.
    pub fn dsh_turn_running(&self, agent: &str, pane: &str) -> bool {
        self.dsh_writable(agent, pane) && self.dsh_turn_runs(agent, pane)
    }

    /// Why this pane takes no action, if it does not: a session not adopted, or a task the
    /// engine stopped addressing (SPEC D2).
    pub fn dsh_unwritable(&self, agent: &str, pane: &str) -> Option<String> {
        if DshView::is_session_pane(pane) {
            return Some(
                "This desktop session has no task yet, so the bridge takes nothing for it: adopt it on the New page (n from Home) first."
                    .into(),
            );
        }
        self.dsh
            .get(agent)
            .and_then(|v| v.stopped.get(pane))
            .map(|why| {
                format!("The phone no longer addresses this task ({why}); check it on the desktop.")
            })
    }

    /// True while a turn of this task runs: as the bridge lists the task, or as its session's
    /// events show it (a task that adopted a session mid-turn is listed idle while the turn
    /// the desktop started goes on, and `tasks/cancel` stops that turn too).
    pub fn dsh_turn_runs(&self, agent: &str, pane: &str) -> bool {
        let listed = self
            .dsh
            .get(agent)
            .and_then(|v| v.task(pane))
            .is_some_and(|t| !matches!(t.status, TaskStatus::Idle | TaskStatus::Closed));
        let seen = self
            .agents
            .pane(agent, pane)
            .is_some_and(|p| *p.state() == crate::wire::PaneState::Running);
        listed || seen
    }

    /// A task as a person knows it, quoted: the pane's title (the name the phone shows
    /// everywhere), else the bridge's title, never the task id.
    pub fn dsh_task_name(&self, agent: &str, pane: &str) -> String {
        let pane_title = self
            .agents
            .pane(agent, pane)
            .map(|p| p.pane.title.trim().to_string())
            .filter(|t| !t.is_empty() && t != pane);
        let task_title = || {
            self.dsh
                .get(agent)
                .and_then(|v| v.task(pane))
                .and_then(|t| t.title.clone())
                .filter(|t| !t.trim().is_empty() && t != pane)
        };
        pane_title
            .or_else(task_title)
            .map_or_else(|| "this task".to_string(), |t| format!("the task “{t}”"))
    }

    /// A task the bridge closed leaves the layout and its session shows among the sessions:
    /// the chat the phone held for the task moves to the session's pane, since the bridge
    /// shows no history of a session a closed task held (docs/DSH.md) and the person's record
    /// of it must not vanish with the task.
    pub fn carry_closed_task_chats(&mut self, agent: &str, next: &Snapshot) {
        let Some(dsh) = self.dsh.get(agent) else {
            return;
        };
        let Some(view) = self.agents.get_mut(agent) else {
            return;
        };
        let Some(before) = view.snapshot.clone() else {
            return;
        };
        for (_, _, gone) in before
            .panes()
            .filter(|(_, _, p)| next.pane(&p.id).is_none())
        {
            let Some(task) = dsh.task(&gone.id) else {
                continue;
            };
            let session_pane = crate::engine::dsh::pane::session_pane_id(&task.session_id);
            if next.pane(&session_pane).is_none() || view.panes.contains_key(&session_pane) {
                continue;
            }
            if let Some(mut log) = view.panes.remove(&gone.id) {
                // Only the words move: the task's state, turn and open waits were the task's,
                // and the session pane says its own state.
                log.state = None;
                log.turn = None;
                log.asks.clear();
                view.panes.insert(session_pane, log);
            }
        }
        view.note_asks();
    }

    /// The record of an intent, as the engine tells it; gives the state it had before.
    pub fn note_intent(
        &mut self,
        record: IntentRecord,
        now: OffsetDateTime,
    ) -> Option<IntentState> {
        self.intents.note(record, now)
    }
}
