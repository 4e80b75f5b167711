//! The router's side of the rings: what the screen shows of a happening's subject (its card,
//! its pane, its agent), handed to the ringer (`app::ringer`) with each agent's news and each
//! tick, and what a run of the person's command came to.

use crate::app::Command;
use crate::model::inbox::AskKey;
use crate::model::rings::Subject;
use crate::screens::Screen;

use super::App;

/// What the screen on top shows, as far as rings go.
struct Shown {
    /// The pane on screen (a card's is its pane's).
    pane: Option<(String, String)>,
    /// The card on screen.
    card: Option<AskKey>,
    home: bool,
}

impl Shown {
    /// True when the screen shows what `subject` is about: the ask's own card, or its pane
    /// (a card of another ask shows only that one); the pane; for an agent, Home or one of its
    /// panes.
    fn shows(&self, subject: &Subject) -> bool {
        let on_pane = |agent: &str, id: &str| {
            self.pane
                .as_ref()
                .is_some_and(|(a, p)| a == agent && p == id)
        };
        match subject {
            Subject::Ask {
                agent,
                pane,
                ask_id,
            } => match &self.card {
                Some(key) => key.agent == *agent && key.pane == *pane && key.ask_id == *ask_id,
                None => on_pane(agent, pane),
            },
            Subject::Pane { agent, pane } => on_pane(agent, pane),
            Subject::Agent(agent) => {
                self.home || self.pane.as_ref().is_some_and(|(a, _)| a == agent)
            }
        }
    }
}

impl App {
    fn shown(&self) -> Shown {
        let top = self.nav.top();
        Shown {
            pane: top.room().pane_on_screen(),
            card: match top {
                Screen::Card(card) => Some(card.key.clone()),
                _ => None,
            },
            home: matches!(top, Screen::Home(_)),
        }
    }

    /// What the agent's news rings, after the phone took it in.
    pub(super) fn ring_heard(&mut self, agent: &str) -> Vec<Command> {
        let now = self.phone.now();
        let Some(view) = self.phone.model.agents().get(agent) else {
            return Vec::new();
        };
        let happenings = self.phone.view.ringer_mut().rings.heard(view, now);
        if happenings.is_empty() {
            return Vec::new();
        }
        let shown = self.shown();
        let (commands, line) = self
            .phone
            .view
            .ringer_mut()
            .ring(happenings, now, &|subject| shown.shows(subject));
        if let Some(line) = line {
            self.phone.show_toast(line, false);
        }
        commands
    }

    /// The clock's rings: asks about to expire, and the person's command for what waited.
    pub(super) fn ring_tick(&mut self) -> Vec<Command> {
        let now = self.phone.now();
        let shown = self.shown();
        let (commands, line) = self
            .phone
            .view
            .ringer_mut()
            .tick(now, &|subject| shown.shows(subject));
        if let Some(line) = line {
            self.phone.show_toast(line, false);
        }
        commands
    }

    /// A run of the person's command ended; a failure is said once.
    pub(super) fn pushed(&mut self, failure: Option<String>) {
        if let Some(words) =
            failure.and_then(|sentence| self.phone.view.ringer_mut().failed(sentence))
        {
            self.phone.show_toast(words, true);
        }
    }
}
