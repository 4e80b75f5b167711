//! Home: every agent with its state, then "Needs your answer" (SPEC A2). The selection moves
//! from the agents down into the inbox and back.

pub(crate) mod draw;
pub(crate) mod draw_dsh;
pub(crate) mod keys;

use crate::app::keymap::{Action, Context};
use crate::app::list::Filter;
use crate::app::list::ListCursor;
use crate::app::phone::Goto;
use crate::app::phone::Phone;
use crate::app::{Command, geometry};
use crate::model::inbox::{self, InboxRow};
use crate::screens::room::Room;

#[derive(Debug, Clone, Default)]
pub struct HomeScreen {
    pub(crate) agents: ListCursor,
    pub(crate) inbox: ListCursor,
    /// True when the selection is in "Needs your answer", false in the agents.
    pub(crate) in_inbox: bool,
    pub(crate) filter: Filter,
}

/// Indices of the agents the filter lets through.
pub(crate) fn home_agents(phone: &Phone, filter: &Filter) -> Vec<usize> {
    phone
        .agents()
        .list
        .iter()
        .enumerate()
        .filter(|(_, a)| filter.matches(&format!("{} {}", a.display_name(), a.status.sentence())))
        .map(|(i, _)| i)
        .collect()
}

/// The inbox rows the filter lets through, in the order they need the person: the nearest
/// deadline first, then the oldest (SPEC A2; `model::triage`). Asks on an agent the phone
/// cannot reach come after those it can answer, set apart.
pub(crate) fn home_inbox<'a>(phone: &'a Phone, filter: &Filter) -> Vec<InboxRow<'a>> {
    crate::model::triage::rows_in_order(inbox::rows(phone.agents()), phone.now())
        .into_iter()
        .filter(|row| {
            filter.matches(&format!(
                "{} {} {} {}",
                row.agent.name,
                row.pane.pane.title,
                row.ask.title,
                row.ask.kind.as_str()
            ))
        })
        .collect()
}

fn home_heights(phone: &Phone) -> (usize, usize) {
    let parts = geometry::home(phone.size().0, phone.size().1, phone.agents().list.len());
    (
        usize::from(parts.agents.height),
        usize::from(parts.inbox.height),
    )
}

/// Opens the history of an agent and reads its first page.
pub(crate) fn open_history(phone: &mut Phone, agent: &str) -> Vec<Command> {
    let has_history = phone
        .agents()
        .get(agent)
        .is_some_and(|a| a.has_cap(crate::wire::caps::HISTORY));
    if !has_history {
        phone.show_toast(
            format!("{agent} keeps no history the phone can read."),
            true,
        );
        return Vec::new();
    }
    phone.open(Goto::History {
        agent: agent.to_string(),
    });
    phone
        .model
        .history_mut()
        .open_conversations(agent)
        .map(Command::Engine)
        .into_iter()
        .collect::<Vec<Command>>()
}

impl Room for HomeScreen {
    fn key_parts() -> &'static [Context] {
        &[keys::HOME]
    }

    fn keys(&self, _phone: &Phone) -> Context {
        keys::HOME
    }

    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        let filter = self.filter.clone();
        let agents = home_agents(phone, &filter);
        let asks: Vec<_> = home_inbox(phone, &filter)
            .iter()
            .map(InboxRow::key)
            .collect();
        let (agents_height, inbox_height) = home_heights(phone);
        match action {
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                match (action, self.in_inbox) {
                    (Action::Up, true) if self.inbox.selected == 0 && !agents.is_empty() => {
                        self.in_inbox = false;
                    }
                    (Action::Down, false)
                        if self.agents.selected + 1 >= agents.len() && !asks.is_empty() =>
                    {
                        self.in_inbox = true;
                    }
                    (Action::Top, _) => {
                        self.in_inbox = agents.is_empty();
                        self.agents.apply(Action::Top, agents.len(), agents_height);
                        self.inbox.apply(Action::Top, asks.len(), inbox_height);
                    }
                    (Action::Bottom, _) => {
                        self.in_inbox = !asks.is_empty();
                        self.agents
                            .apply(Action::Bottom, agents.len(), agents_height);
                        self.inbox.apply(Action::Bottom, asks.len(), inbox_height);
                    }
                    (_, true) => {
                        self.inbox.apply(action, asks.len(), inbox_height);
                    }
                    (_, false) => {
                        self.agents.apply(action, agents.len(), agents_height);
                    }
                }
                Vec::new()
            }
            Action::Open => {
                if self.in_inbox {
                    match asks.get(self.inbox.selected) {
                        Some(key) => {
                            let key = key.clone();
                            phone.open_card(key);
                        }
                        None => phone.show_toast("Nothing needs your answer.", false),
                    }
                } else if let Some(index) = agents.get(self.agents.selected) {
                    let name = phone.agents().list[*index].name.clone();
                    phone.open(Goto::Layout { agent: name });
                }
                Vec::new()
            }
            Action::JumpExpiring => {
                let rows = home_inbox(phone, &Filter::default());
                match inbox::soonest_expiring(&rows, phone.now()) {
                    Some(index) => {
                        let key = rows[index].key();
                        phone.open_card(key);
                    }
                    None => phone.show_toast("No open ask has a time limit.", false),
                }
                Vec::new()
            }
            Action::NewPage => {
                phone.open(Goto::New);
                Vec::new()
            }
            Action::History => {
                let agent = if self.in_inbox {
                    asks.get(self.inbox.selected).map(|k| k.agent.clone())
                } else {
                    agents
                        .get(self.agents.selected)
                        .map(|i| phone.agents().list[*i].name.clone())
                };
                match agent {
                    Some(agent) => open_history(phone, &agent),
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    fn click(&mut self, phone: &mut Phone, column: u16, row: u16) -> Vec<Command> {
        let parts = geometry::home(phone.size().0, phone.size().1, phone.agents().list.len());
        let filter = self.filter.clone();
        let agents = home_agents(phone, &filter).len();
        let asks = home_inbox(phone, &filter).len();
        let (in_inbox, list_row) = if geometry::contains(parts.agents, column, row) {
            (false, row - parts.agents.y)
        } else if geometry::contains(parts.inbox, column, row) {
            (true, row - parts.inbox.y)
        } else {
            return Vec::new();
        };
        let cursor = if in_inbox {
            &mut self.inbox
        } else {
            &mut self.agents
        };
        let before = (self.in_inbox, cursor.selected);
        let len = if in_inbox { asks } else { agents };
        if !cursor.click(usize::from(list_row), len) {
            return Vec::new();
        }
        let after = (in_inbox, cursor.selected);
        self.in_inbox = in_inbox;
        // A click on the selected row opens it.
        if before == after {
            return self.act(phone, Action::Open);
        }
        Vec::new()
    }

    fn wheel(&mut self, phone: &mut Phone, down: bool, _column: u16, _row: u16) -> Vec<Command> {
        let action = if down { Action::Down } else { Action::Up };
        let mut commands = Vec::new();
        for _ in 0..3 {
            commands.extend(self.act(phone, action));
        }
        commands
    }

    fn offers(&self, phone: &Phone, action: Action) -> bool {
        match action {
            Action::Open if self.in_inbox => !home_inbox(phone, &self.filter).is_empty(),
            Action::Open => !home_agents(phone, &self.filter).is_empty(),
            Action::JumpExpiring => {
                inbox::soonest_expiring(&home_inbox(phone, &Filter::default()), phone.now())
                    .is_some()
            }
            _ => true,
        }
    }

    fn filter(&self) -> Option<&Filter> {
        Some(&self.filter)
    }

    fn filter_mut(&mut self) -> Option<&mut Filter> {
        Some(&mut self.filter)
    }

    fn filter_changed(&mut self) {
        self.agents = Default::default();
        self.inbox = Default::default();
    }

    fn follow(&mut self, phone: &Phone) {
        let (agents, inbox) = self.row_keys(phone);
        let parts = geometry::home(phone.size().0, phone.size().1, phone.agents().list.len());
        self.agents
            .follow(&agents, usize::from(parts.agents.height));
        self.inbox.follow(&inbox, usize::from(parts.inbox.height));
        // An emptied inbox gives the selection back to the agents.
        if inbox.is_empty() {
            self.in_inbox = false;
        }
    }

    fn remember(&mut self, phone: &Phone) {
        let (agents, inbox) = self.row_keys(phone);
        self.agents.remember(&agents);
        self.inbox.remember(&inbox);
    }
}

impl HomeScreen {
    /// What each row of the agents and of the inbox shows, as a key that stays with the row.
    fn row_keys(&self, phone: &Phone) -> (Vec<String>, Vec<String>) {
        let agents = phone.agents().list.iter().map(|a| a.name.clone()).collect();
        let inbox = home_inbox(phone, &self.filter)
            .iter()
            .map(|row| {
                let key = row.key();
                format!("{}\u{0}{}\u{0}{}", key.agent, key.pane, key.ask_id)
            })
            .collect();
        (agents, inbox)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::phone::Step;
    use crate::screens::harness::Harness;

    #[test]
    fn home_asks_for_the_new_page_and_says_when_nothing_is_there_to_open() {
        let mut harness = Harness::new();
        let mut home = HomeScreen::default();
        harness.act(&mut home, Action::NewPage);
        assert!(matches!(harness.steps()[..], [Step::Open(Goto::New)]));
        harness.act(&mut home, Action::JumpExpiring);
        assert_eq!(harness.toast(), Some("No open ask has a time limit."));
        assert!(harness.steps().is_empty(), "no card opens for no ask");
        // The agent is known but has sent no history capability.
        harness.act(&mut home, Action::History);
        assert_eq!(
            harness.toast(),
            Some("demo keeps no history the phone can read.")
        );
        assert!(harness.steps().is_empty());
    }
}
