//! The part of the app a screen may touch: the phone's model, what floats over the screen,
//! the footer's message, the steps a room asked of the stack of screens, and the view context
//! it reads (the settings, the clock, the size). A room (`screens/<name>/`) gets its own state
//! and `&mut Phone`, never the stack of screens: it asks for a screen to open or to go back
//! with [`Phone::open`] and [`Phone::back`], and the app applies those steps once the room is
//! done (docs/ARCHITECTURE.md, "Rooms").

use std::path::PathBuf;

use time::OffsetDateTime;

use super::geometry;
use super::keymap::Keymap;
use super::{AppSetup, Command};
use crate::app::overlay::{Deferred, Overlay};
use crate::app::toast::{Footer, Subject, Toast};
use crate::app::view_context::ViewContext;
use crate::app::wire_log::WireLog;
use crate::engine::{IntentKind, ToEngine};
use crate::look::theme::Theme;
use crate::model::inbox::AskKey;
use crate::model::phone_model::PhoneModel;

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

/// The phone as a room sees it: the model, the glass's own few fields, and what the room reads
/// of its surroundings. A room changes the model through its named methods, and the glass
/// through the methods here; it reads the surroundings (`ViewContext`) and never writes them.
#[derive(Clone)]
pub struct Phone {
    /// The phone's model: every fact about the agents and what the person said to them. The
    /// glass reads it through `Deref` and changes it only through its named methods.
    pub(crate) model: PhoneModel,
    pub(crate) overlay: Option<Overlay>,
    /// The footer's message line.
    pub(crate) footer: Footer,
    /// What the rooms asked of the stack of screens, oldest first, until the app applies it.
    pub(crate) steps: Vec<Step>,
    /// What a room reads and the shell keeps: the settings, the clock, the size, the terminal's
    /// facts, the wire log and the layout memo.
    pub(crate) view: ViewContext,
}

impl Phone {
    pub(crate) fn new(setup: AppSetup) -> Self {
        Self {
            model: PhoneModel::new(setup.agents, setup.bridges),
            overlay: None,
            footer: Footer::default(),
            steps: Vec::new(),
            view: ViewContext::new(setup.settings, setup.theme, setup.now, setup.size),
        }
    }

    /// What floats over the screen, if anything.
    pub fn overlay(&self) -> Option<&Overlay> {
        self.overlay.as_ref()
    }

    /// The newest exchanges with the agents, for the wire inspector.
    pub fn wire(&self) -> &WireLog {
        self.view.wire()
    }

    /// The phone's clock.
    pub fn now(&self) -> OffsetDateTime {
        self.view.now()
    }

    /// The terminal's columns and rows.
    pub(crate) fn size(&self) -> (u16, u16) {
        self.view.size()
    }

    pub(crate) fn keymap(&self) -> &Keymap {
        self.view.keymap()
    }

    pub(crate) fn theme(&self) -> &Theme {
        self.view.theme()
    }

    /// Where the wire inspector saves its exports.
    pub fn set_export_dir(&mut self, dir: PathBuf) {
        self.view.set_export_dir(dir);
    }

    /// Forgets every chat entry as laid out, so the next frame lays them out again.
    pub fn forget_chat_layout(&mut self) {
        self.view.forget_chat_layout();
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
        if self.model.open_card(&key, self.now()) {
            self.open(Goto::Card(key));
        }
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
        let toast = Toast::new(text.into(), trouble, self.now(), about);
        self.footer.show(toast);
    }

    /// A pane's turn as it is now, for a message about it.
    pub(crate) fn pane_turn_subject(&self, agent: &str, pane: &str) -> Subject {
        let seen = self
            .model
            .agents()
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
            .model
            .dsh_view(agent)
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
            .model
            .draft(agent, pane)
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
        let Some(toast) = self.footer.toast() else {
            return;
        };
        let now_seen = match &toast.about {
            Subject::Screen => None,
            Subject::PaneTurn { agent, pane, .. } => Some(self.pane_turn_subject(agent, pane)),
            Subject::TaskTurn { agent, task, .. } => Some(self.task_turn_subject(agent, task)),
            Subject::Draft { agent, pane, .. } => Some(self.draft_subject(agent, pane)),
        };
        if toast.is_over(self.now(), now_seen.as_ref()) {
            self.footer.clear();
        }
    }

    /// How many rows a list screen shows at this size, with or without its filter line.
    pub(crate) fn list_height(&self, filter_shown: bool) -> usize {
        usize::from(
            geometry::listing(self.size().0, self.size().1, filter_shown)
                .list
                .height,
        )
    }

    /// Hands a new intent to the engine (SPEC Q1: it gets its own request id there).
    pub(crate) fn submit(&mut self, agent: &str, kind: IntentKind) -> Vec<Command> {
        self.model.submitted(agent, kind.clone());
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
            Deferred::Quit => self.quit_now(),
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

    /// Quits now. What was seen of each pane is kept by the runner as it stops (SPEC A22).
    fn quit_now(&mut self) -> Vec<Command> {
        vec![Command::Quit]
    }

    /// Quits, asking first when unsent words would be dropped.
    pub(crate) fn quit(&mut self) -> Vec<Command> {
        let drafts = self.model.unsent_drafts();
        if drafts == 0 {
            return self.quit_now();
        }
        let question = if drafts == 1 {
            "One message is typed but not sent. Quit and drop it?".to_string()
        } else {
            format!("{drafts} messages are typed but not sent. Quit and drop them?")
        };
        self.overlay = Some(Overlay::confirm(question, Deferred::Quit));
        Vec::new()
    }

    /// Takes down an allow-always question about a card that changed or closed under it.
    pub(crate) fn drop_allow_always_question(&mut self, key: &AskKey) {
        if matches!(&self.overlay, Some(Overlay::AllowAlways(q)) if q.key == *key) {
            self.overlay = None;
            let closed = self.model.card(key).is_some_and(|c| c.closed.is_some());
            let why = if closed {
                "This ask closed before you confirmed allow always. Nothing was sent."
            } else {
                "This ask changed before you confirmed allow always. Nothing was sent. Read it again."
            };
            if let Some(card) = self.model.card_mut(key) {
                card.notice = Some(why.to_string());
            }
        }
    }

    /// Redraws open cards from the live asks (SPEC A3). A card whose ask changed starts its
    /// reading time again, and an allow-always question about the ask it was is taken down.
    pub(crate) fn refresh_cards(&mut self) {
        for key in self.model.refresh_cards(self.now()) {
            self.drop_allow_always_question(&key);
        }
    }
}

impl std::ops::Deref for Phone {
    type Target = PhoneModel;

    /// The model, read: what a room shows. A change goes through `phone.model` and one of its
    /// named methods, which keep its rules.
    fn deref(&self) -> &PhoneModel {
        &self.model
    }
}
