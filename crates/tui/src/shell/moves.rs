//! The keys that move between panes without going back (docs/KEYS.md, "Moving without going
//! back"; SPEC A23): the next and the previous pane in the tree's order across every agent,
//! the next pane with news, and back to where the last move began. The same keys on every
//! screen, so they are the router's, as Ctrl-N is. A move from a pane or a card takes its
//! place, so Esc still goes back to where the walk began; from any other screen it opens over
//! it. A pane a move lands on holds back, for the reading time, a key that acts on its agent:
//! a key on its way was meant for the screen before (docs/KEYS.md, "Keys that act on an
//! agent"). The order and the marks are the model's (`model::pane_order`, `model::seen`).

use super::App;
use crate::app::keymap::Action;
use crate::app::phone::{Goto, Step};
use crate::model::arming::{Arming, Why};
use crate::model::pane_order;
use crate::screens::{PaneFocus, Screen};

/// Where the last move began, to go back to.
#[derive(Debug, Clone)]
pub(super) enum Before {
    /// The pane or card the move took the place of.
    Place(Goto),
    /// The move opened over a screen that is no pane or card (Home, Workspaces…), with this
    /// many screens in the stack: going back goes down to them.
    Under(usize),
}

impl App {
    /// The pane or card on top, as a place to come back to.
    pub(super) fn place_on_top(&self) -> Option<Goto> {
        match self.nav.top() {
            Screen::Pane(pane) => Some(Goto::Pane {
                agent: pane.agent.clone(),
                pane: pane.pane.clone(),
            }),
            Screen::Card(card) => Some(Goto::Card(card.key.clone())),
            _ => None,
        }
    }

    /// The pane the person is at: the one on screen, or the one whose ask the card shows.
    fn pane_here(&self) -> Option<(String, String)> {
        match self.nav.top() {
            Screen::Pane(pane) => Some((pane.agent.clone(), pane.pane.clone())),
            Screen::Card(card) => Some((card.key.agent.clone(), card.key.pane.clone())),
            _ => None,
        }
    }

    /// A key that moves between panes: Alt-↓, Alt-↑, Alt-n or Alt-o by default.
    pub(super) fn take_move(&mut self, action: Action) {
        let here = self.pane_here();
        let here = here.as_ref().map(|(a, p)| (a.as_str(), p.as_str()));
        let target = {
            let order = pane_order::every_pane(self.phone.agents());
            let seen = self.phone.seen();
            let index = match action {
                Action::NextPane => pane_order::step(&order, here, true),
                Action::PrevPane => pane_order::step(&order, here, false),
                Action::NextNews => pane_order::next_with_news(&order, here, |(agent, pane)| {
                    seen.news(agent, pane).is_some()
                }),
                _ => None,
            };
            match (index, order.len()) {
                (Some(index), _) => Ok(Goto::Pane {
                    agent: order[index].0.to_string(),
                    pane: order[index].1.to_string(),
                }),
                (None, _) if action == Action::NextNews => Err("No other pane has news."),
                (None, 0) => Err("No pane yet: no agent has laid out a pane."),
                (None, _) => Err("This is the only pane."),
            }
        };
        match target {
            Ok(goto) => self.move_to(goto),
            Err(words) => self.phone.show_toast(words, false),
        }
    }

    /// Back to where the last move began: the pane or card it left, or the screen it opened
    /// over. Pressed again, it goes back again, so two places take turns.
    pub(super) fn go_where_you_were(&mut self) {
        match self.before.take() {
            Some(Before::Place(goto)) if self.still_there(&goto) => self.move_to(goto),
            Some(Before::Place(_)) => {
                self.phone
                    .show_toast("The pane or card you were on is gone.", false);
            }
            Some(Before::Under(depth)) if self.nav.depth() > depth => {
                let left = self.place_on_top();
                while self.nav.depth() > depth {
                    self.back();
                }
                self.before = left.map(Before::Place);
            }
            _ => {
                let key = self
                    .phone
                    .keymap()
                    .key_label(self.context(), Action::NextPane)
                    .unwrap_or_else(|| "the key to the next pane".to_string());
                self.phone.show_toast(
                    format!("No move to go back from yet: {key} and the other moves make one."),
                    false,
                );
            }
        }
    }

    /// Whether what `goto` names is still there: the pane in its agent's layout, the ask open.
    fn still_there(&self, goto: &Goto) -> bool {
        match goto {
            Goto::Pane { agent, pane } => self.phone.agents().pane(agent, pane).is_some(),
            Goto::Card(key) => self
                .phone
                .agents()
                .pane(&key.agent, &key.pane)
                .is_some_and(|p| p.asks().iter().any(|a| a.id == key.ask_id)),
            _ => false,
        }
    }

    /// Goes to `goto` in place of the pane or card on top, or over the screen on top, and
    /// remembers where the move began. The box keeps the typing focus from pane to pane.
    fn move_to(&mut self, goto: Goto) {
        let into_box = matches!(self.nav.top(), Screen::Pane(p) if p.focus == PaneFocus::Input);
        let to_pane = matches!(goto, Goto::Pane { .. });
        let before = match self.place_on_top() {
            Some(place) => {
                self.back();
                Before::Place(place)
            }
            None => Before::Under(self.nav.depth()),
        };
        match goto {
            Goto::Card(key) => self.phone.open_card(key),
            other => self.phone.open(other),
        }
        if to_pane && into_box {
            self.phone.steps.push(Step::FocusBox);
        }
        self.apply_steps();
        self.before = Some(before);
        if to_pane {
            self.landed = Some((
                Arming::start(Why::Moved, self.phone.now()),
                self.nav.moves(),
            ));
        }
    }

    /// A move made by another key (Ctrl-N's walk): where it began is remembered as a move's is,
    /// when the screen on top changed.
    pub(super) fn note_move(&mut self, from: Option<Goto>, depth: usize, moves: u64) {
        if self.nav.moves() != moves {
            self.before = Some(from.map_or(Before::Under(depth), Before::Place));
        }
    }

    /// The person looks at the pane on top, if a pane is: what it shows is seen (SPEC A22).
    pub(super) fn look_at_top(&mut self) {
        if let Screen::Pane(pane) = self.nav.top() {
            let (agent, pane) = (pane.agent.clone(), pane.pane.clone());
            self.phone.model.look_at(&agent, &pane);
        }
    }

    /// The pane of `agent` on top, if one is: the one the person looks at.
    pub(super) fn pane_looked_at(&self, agent: &str) -> Option<String> {
        match self.nav.top() {
            Screen::Pane(pane) if pane.agent == agent => Some(pane.pane.clone()),
            _ => None,
        }
    }
}
