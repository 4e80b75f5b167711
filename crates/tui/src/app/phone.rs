//! The part of the app a screen may touch: the agents as last heard, the intents, the cards,
//! drafts and outbox, the overlay and the footer's message, the settings, the clock and the
//! terminal's size. A room (`screens/<name>/`) gets its own state and `&mut Phone`, never the
//! stack of screens: it asks for a screen to open or to go back with [`Phone::open`] and
//! [`Phone::back`], and the app applies those steps once the room is done (docs/ARCHITECTURE.md,
//! "Rooms").

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use time::OffsetDateTime;

use super::geometry;
use super::keymap::Keymap;
use super::{AppSetup, Command};
use crate::app::overlay::{Deferred, Overlay};
use crate::app::toast::{Subject, Toast};
use crate::app::wire_log::WireLog;
use crate::chat::pane_log::{ChatEntry, ClosedAsk};
use crate::engine::{IntentKind, ToEngine};
use crate::look::chat_view::ChatLayout;
use crate::look::theme::Theme;
use crate::model::agents::{AgentView, Agents};
use crate::model::card_state::{AgentOffer, CardState};
use crate::model::dsh_state;
use crate::model::editor::Editor;
use crate::model::history::HistoryStore;
use crate::model::inbox::AskKey;
use crate::model::intents::Intents;
use crate::model::outbox::Outbox;

/// Where a room asks to go, as data: the app (the router) makes the screen with the room's
/// constructor, so no room names another and the phone names none.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Goto {
    /// A pane of an agent.
    Pane { agent: String, pane: String },
    /// The card of an ask.
    Card(AskKey),
    /// An agent's workspaces, tabs and panes.
    Layout { agent: String },
    /// The New page.
    New,
    /// An agent's past conversations.
    History { agent: String },
    /// One past conversation, by its id, with the title the list showed.
    Conversation {
        agent: String,
        conversation: String,
        title: String,
    },
    /// The wire inspector's list.
    Inspector,
    /// One exchange of the wire log, by its number.
    Exchange { number: u64 },
    /// The New page's form for a bridge.
    DshForm {
        agent: String,
        purpose: crate::model::dsh_state::DshPurpose,
    },
}

/// A change to the stack of screens that a room asked for, applied by the app after it.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Opens a screen over the one on top (not again when it is already the one on top).
    Open(Goto),
    /// Goes back one screen.
    Back,
    /// Puts the typing focus in the box of the pane on top: words came back to it.
    FocusBox,
}

#[derive(Clone)]
pub struct Phone {
    pub(crate) agents: Agents,
    pub(crate) intents: Intents,
    pub(crate) history: HistoryStore,
    pub(crate) overlay: Option<Overlay>,
    /// Cards opened, by ask: what was picked or typed survives leaving the card.
    pub(crate) cards: HashMap<AskKey, CardState>,
    /// Unsent text per (agent, pane): a person's words are never lost.
    pub(crate) drafts: HashMap<(String, String), Editor>,
    /// Words that left a box with Enter, until the agent took them (one send = one Enter).
    pub(crate) outbox: Outbox,
    /// What each DSH bridge told beyond its panes, by agent name (SPEC D).
    pub(crate) dsh: HashMap<String, dsh_state::DshView>,
    pub(crate) toast: Option<Toast>,
    /// How many short messages were shown so far, to tell a new one from one left standing.
    pub(crate) toasts_shown: u64,
    /// True while a paste without markers is handed on that continues the one before it
    /// (nothing the person did came between): its text joins that paste's undo step.
    pub(crate) paste_continues: bool,
    /// Chat entries as laid out, kept between frames (a memo, see `look::chat_view`).
    pub(crate) chat_layout: ChatLayout,
    pub(crate) keymap: Keymap,
    pub(crate) theme: Theme,
    /// How the phone rings: where the person is, the mute, the rules (`app::ringer`).
    pub(crate) ringer: super::ringer::Ringer,
    /// Whether the phone takes the mouse (`app::mouse`).
    pub(crate) mouse: bool,
    /// The phone runs in tmux whose `set-clipboard` is not `on`: tmux drops the OSC 52 a copy
    /// writes, so a copy says the line that lets it through (docs/KEYS.md, "Copy").
    pub(crate) tmux_keeps_clipboard: bool,
    /// The newest exchanges with the agents, for the wire inspector.
    pub(crate) wire: WireLog,
    /// Where the wire inspector saves its exports.
    pub(crate) export_dir: PathBuf,
    /// The export the runner is writing, and how many exchanges it holds.
    pub(crate) pending_export: Option<(PathBuf, usize)>,
    pub(crate) now: OffsetDateTime,
    pub(crate) size: (u16, u16),
    /// A pane a starter or reopen named, opened as soon as the snapshot has it (SPEC A17, W5).
    pub(crate) awaiting_pane: Option<(String, String)>,
    pub(crate) quitting: bool,
    /// What the rooms asked of the stack of screens, oldest first, until the app applies it.
    pub(crate) steps: Vec<Step>,
}

impl Phone {
    pub(crate) fn new(setup: AppSetup) -> Self {
        Self {
            agents: Agents::new(setup.agents),
            intents: Intents::default(),
            history: HistoryStore::default(),
            overlay: None,
            cards: HashMap::new(),
            drafts: HashMap::new(),
            outbox: Outbox::default(),
            dsh: setup
                .bridges
                .into_iter()
                .map(|name| (name, dsh_state::DshView::default()))
                .collect(),
            toast: None,
            toasts_shown: 0,
            paste_continues: false,
            chat_layout: ChatLayout::default(),
            keymap: setup.settings.keymap,
            theme: setup.theme,
            ringer: super::ringer::Ringer::new(
                setup.settings.rings,
                setup.settings.notify,
                setup.now,
            ),
            mouse: setup.settings.mouse,
            tmux_keeps_clipboard: false,
            wire: WireLog::default(),
            export_dir: crate::app::wire_log::default_export_dir(),
            pending_export: None,
            now: setup.now,
            size: setup.size,
            awaiting_pane: None,
            quitting: false,
            steps: Vec::new(),
        }
    }

    /// The cards opened, by ask, with what was picked or typed on them.
    pub fn cards(&self) -> &HashMap<AskKey, CardState> {
        &self.cards
    }

    /// What floats over the screen, if anything.
    pub fn overlay(&self) -> Option<&Overlay> {
        self.overlay.as_ref()
    }

    /// The agents as last heard.
    pub fn agents(&self) -> &Agents {
        &self.agents
    }

    /// What was asked of the agents, and how it went.
    pub fn intents(&self) -> &Intents {
        &self.intents
    }

    /// The newest exchanges with the agents, for the wire inspector.
    pub fn wire(&self) -> &WireLog {
        &self.wire
    }

    /// The phone's clock.
    pub fn now(&self) -> OffsetDateTime {
        self.now
    }

    /// Where the wire inspector saves its exports.
    pub fn set_export_dir(&mut self, dir: PathBuf) {
        self.export_dir = dir;
    }

    /// What an export the runner wrote (or could not write) came to, and whether it is
    /// trouble.
    pub(crate) fn export_words(
        &mut self,
        path: &Path,
        result: Result<(), String>,
    ) -> (String, bool) {
        let count = match self.pending_export.take() {
            Some((pending, count)) if pending == path => Some(count),
            other => {
                self.pending_export = other;
                None
            }
        };
        let shown = path.display();
        match result {
            Ok(()) => {
                let what = match count {
                    Some(1) => "1 exchange".to_string(),
                    Some(n) => format!("{n} exchanges"),
                    None => "the exchanges".to_string(),
                };
                (format!("Saved {what} to {shown}"), false)
            }
            Err(error) => (format!("Could not save to {shown}: {error}"), true),
        }
    }

    /// Forgets every chat entry as laid out, so the next frame lays them out again.
    pub fn forget_chat_layout(&mut self) {
        self.chat_layout = ChatLayout::default();
    }

    /// Opens the screen `goto` names over the one on top, once the room that asked is done.
    pub(crate) fn open(&mut self, goto: Goto) {
        self.steps.push(Step::Open(goto));
    }

    /// Goes back one screen, once the room that asked is done. A card whose ask is gone is
    /// forgotten then, its words going to its pane's box.
    pub(crate) fn back(&mut self) -> Vec<Command> {
        self.steps.push(Step::Back);
        Vec::new()
    }

    pub(crate) fn open_pane(&mut self, agent: &str, pane: &str) {
        self.open(Goto::Pane {
            agent: agent.to_string(),
            pane: pane.to_string(),
        });
    }

    /// Opens the card of an ask, keeping what was typed on it before. From wherever it opens
    /// (the inbox, a pane, the soonest-expiring jump), no key answers it within the reading
    /// time (docs/ASKS.md, "The reading time").
    pub(crate) fn open_card(&mut self, key: AskKey) {
        let Some(pane) = self.agents.pane(&key.agent, &key.pane) else {
            return;
        };
        let Some(ask) = pane.asks().iter().find(|a| a.id == key.ask_id) else {
            return;
        };
        let ask = ask.clone();
        let title = pane.pane.title.clone();
        let now = self.now;
        self.cards
            .entry(key.clone())
            .and_modify(|card| card.reopen(now))
            .or_insert_with(|| CardState::new(key.clone(), ask, title, now));
        self.open(Goto::Card(key));
    }

    /// A message about the screen it is shown on.
    pub(crate) fn show_toast(&mut self, text: impl Into<String>, trouble: bool) {
        self.show_toast_about(text, trouble, Subject::Screen);
    }

    /// A message about `about`: it goes when that changes, as well as when its time is up.
    pub(crate) fn show_toast_about(
        &mut self,
        text: impl Into<String>,
        trouble: bool,
        about: Subject,
    ) {
        self.toasts_shown += 1;
        self.toast = Some(Toast::new(text.into(), trouble, self.now, about));
    }

    /// A pane's turn as it is now, for a message about it.
    pub(crate) fn pane_turn_subject(&self, agent: &str, pane: &str) -> Subject {
        let seen = self
            .agents
            .pane(agent, pane)
            .and_then(|p| p.turn())
            .map(|turn| (turn.id.clone(), turn.state.clone()));
        Subject::PaneTurn {
            agent: agent.to_string(),
            pane: pane.to_string(),
            seen,
        }
    }

    /// A bridge task's status as it is now, for a message about its turn.
    pub(crate) fn task_turn_subject(&self, agent: &str, task: &str) -> Subject {
        let seen = self
            .dsh
            .get(agent)
            .and_then(|view| view.task(task))
            .map(|task| task.status.to_string());
        Subject::TaskTurn {
            agent: agent.to_string(),
            task: task.to_string(),
            seen,
        }
    }

    /// A pane's box as it is now, for a message about its words.
    pub(crate) fn draft_subject(&self, agent: &str, pane: &str) -> Subject {
        let seen = self
            .drafts
            .get(&(agent.to_string(), pane.to_string()))
            .map(|editor| editor.text())
            .unwrap_or_default();
        Subject::Draft {
            agent: agent.to_string(),
            pane: pane.to_string(),
            seen,
        }
    }

    /// Takes the footer's message down once its time is up or what it speaks of is no longer
    /// as it was (`app::toast`).
    pub(crate) fn settle_toast(&mut self) {
        let Some(toast) = &self.toast else {
            return;
        };
        let now_seen = match &toast.about {
            Subject::Screen => None,
            Subject::PaneTurn { agent, pane, .. } => Some(self.pane_turn_subject(agent, pane)),
            Subject::TaskTurn { agent, task, .. } => Some(self.task_turn_subject(agent, task)),
            Subject::Draft { agent, pane, .. } => Some(self.draft_subject(agent, pane)),
        };
        if toast.is_over(self.now, now_seen.as_ref()) {
            self.toast = None;
        }
    }

    /// How many rows a list screen shows at this size, with or without its filter line.
    pub(crate) fn list_height(&self, filter_shown: bool) -> usize {
        usize::from(
            geometry::listing(self.size.0, self.size.1, filter_shown)
                .list
                .height,
        )
    }

    /// Hands a new intent to the engine (SPEC Q1: it gets its own request id there).
    pub(crate) fn submit(&mut self, agent: &str, kind: IntentKind) -> Vec<Command> {
        self.intents.submitted(agent, kind.clone());
        vec![Command::Engine(ToEngine::Submit {
            agent: agent.to_string(),
            kind,
        })]
    }

    /// SPEC Q4: the same request id, the same body, only when the person asks.
    pub(crate) fn retry(&mut self, request_id: &str) -> Vec<Command> {
        vec![Command::Engine(ToEngine::Retry {
            request_id: request_id.to_string(),
        })]
    }

    pub(crate) fn run_deferred(
        &mut self,
        deferred: Deferred,
        text: Option<String>,
    ) -> Vec<Command> {
        match deferred {
            Deferred::Quit => {
                self.quitting = true;
                vec![Command::Quit]
            }
            Deferred::Submit { agent, kind } => self.submit(&agent, kind),
            Deferred::MuteUntil => {
                self.mute_until_typed(text.as_deref().unwrap_or_default());
                Vec::new()
            }
            Deferred::Rename { agent, target, id } => match text {
                Some(title) => self.submit(&agent, IntentKind::Rename { target, id, title }),
                None => Vec::new(),
            },
        }
    }

    /// Quits, asking first when unsent words would be dropped.
    pub(crate) fn quit(&mut self) -> Vec<Command> {
        let drafts = self.unsent_drafts();
        if drafts == 0 {
            self.quitting = true;
            return vec![Command::Quit];
        }
        let question = if drafts == 1 {
            "One message is typed but not sent. Quit and drop it?".to_string()
        } else {
            format!("{drafts} messages are typed but not sent. Quit and drop them?")
        };
        self.overlay = Some(Overlay::confirm(question, Deferred::Quit));
        Vec::new()
    }

    /// Pane drafts, sends not taken yet and card answers with words in them.
    pub fn unsent_drafts(&self) -> usize {
        let panes = self.drafts.values().filter(|e| !e.is_empty()).count() + self.outbox.unsent();
        let cards = self
            .cards
            .values()
            .filter(|card| card.closed.is_none() && !card.text.is_empty())
            .count();
        panes + cards
    }

    /// Puts the words typed on a card into the box of its ask's pane, after what is there;
    /// gives the pane's title when there were words.
    pub(crate) fn give_back_card_words(&mut self, key: &AskKey) -> Option<String> {
        let card = self.cards.get(key)?;
        let words = card.typed_words()?;
        let title = card.pane_title.clone();
        let draft = self
            .drafts
            .entry((key.agent.clone(), key.pane.clone()))
            .or_default();
        let mut text = draft.text();
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&words);
        *draft = Editor::from_text(&text);
        Some(title)
    }

    /// What an agent lets its cards offer (SPEC A11).
    pub fn agent_offer(&self, agent: &str) -> AgentOffer {
        self.agents
            .get(agent)
            .map_or_else(AgentOffer::default, AgentView::offer)
    }

    /// The live ask of a card, and how it closed if the chat says.
    pub(crate) fn live_ask(&self, key: &AskKey) -> (Option<&crate::wire::Ask>, Option<&ClosedAsk>) {
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

    /// Takes down an allow-always question about a card that changed or closed under it.
    pub(crate) fn drop_allow_always_question(&mut self, key: &AskKey) {
        if matches!(&self.overlay, Some(Overlay::AllowAlways(q)) if q.key == *key) {
            self.overlay = None;
            let closed = self.cards.get(key).is_some_and(|c| c.closed.is_some());
            let why = if closed {
                "This ask closed before you confirmed allow always. Nothing was sent."
            } else {
                "This ask changed before you confirmed allow always. Nothing was sent. Read it again."
            };
            if let Some(card) = self.cards.get_mut(key) {
                card.notice = Some(why.to_string());
            }
        }
    }

    /// Redraws open cards from the live asks (SPEC A3). A card whose ask changed starts its
    /// reading time again, and an allow-always question about the ask it was is taken down.
    pub(crate) fn refresh_cards(&mut self) {
        let keys: Vec<AskKey> = self.cards.keys().cloned().collect();
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
            let now = self.now;
            let changed = self
                .cards
                .get_mut(&key)
                .is_some_and(|card| card.refresh(live.as_ref(), closed.as_ref(), offer, now));
            if changed {
                self.drop_allow_always_question(&key);
            }
        }
    }
}
