//! Home: every agent with its state, then "Needs your answer" (SPEC A2). The selection moves
//! from the agents down into the inbox and back.

pub(crate) mod draw;
pub(crate) mod draw_dsh;
pub(crate) mod keys;

use crate::app::inbox::{self, InboxRow};
use crate::app::keymap::Action;
use crate::app::list::Filter;
use crate::app::list::ListCursor;
use crate::app::{App, Command, geometry};
use crate::screens::{HistoryScreen, LayoutScreen, NewScreen, Screen};

#[derive(Debug, Clone, Default)]
pub struct HomeScreen {
    pub(crate) agents: ListCursor,
    pub(crate) inbox: ListCursor,
    /// True when the selection is in "Needs your answer", false in the agents.
    pub(crate) in_inbox: bool,
    pub(crate) filter: Filter,
}

impl App {
    /// Indices of the agents the filter lets through.
    pub(crate) fn home_agents(&self, filter: &Filter) -> Vec<usize> {
        self.agents
            .list
            .iter()
            .enumerate()
            .filter(|(_, a)| {
                filter.matches(&format!("{} {}", a.display_name(), a.status.sentence()))
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The inbox rows the filter lets through, oldest first (SPEC A2).
    pub(crate) fn home_inbox<'a>(&'a self, filter: &Filter) -> Vec<InboxRow<'a>> {
        inbox::rows(&self.agents)
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

    fn home_heights(&self) -> (usize, usize) {
        let parts = geometry::home(self.size.0, self.size.1, self.agents.list.len());
        (
            usize::from(parts.agents.height),
            usize::from(parts.inbox.height),
        )
    }

    pub(crate) fn home_action(&mut self, action: Action) -> Vec<Command> {
        let Screen::Home(home) = self.nav.top() else {
            return Vec::new();
        };
        let filter = home.filter.clone();
        let agents = self.home_agents(&filter);
        let asks: Vec<_> = self.home_inbox(&filter).iter().map(InboxRow::key).collect();
        let (agents_height, inbox_height) = self.home_heights();
        let Screen::Home(home) = self.nav.top_mut() else {
            return Vec::new();
        };
        match action {
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                match (action, home.in_inbox) {
                    (Action::Up, true) if home.inbox.selected == 0 && !agents.is_empty() => {
                        home.in_inbox = false;
                    }
                    (Action::Down, false)
                        if home.agents.selected + 1 >= agents.len() && !asks.is_empty() =>
                    {
                        home.in_inbox = true;
                    }
                    (Action::Top, _) => {
                        home.in_inbox = agents.is_empty();
                        home.agents.apply(Action::Top, agents.len(), agents_height);
                        home.inbox.apply(Action::Top, asks.len(), inbox_height);
                    }
                    (Action::Bottom, _) => {
                        home.in_inbox = !asks.is_empty();
                        home.agents
                            .apply(Action::Bottom, agents.len(), agents_height);
                        home.inbox.apply(Action::Bottom, asks.len(), inbox_height);
                    }
                    (_, true) => {
                        home.inbox.apply(action, asks.len(), inbox_height);
                    }
                    (_, false) => {
                        home.agents.apply(action, agents.len(), agents_height);
                    }
                }
                Vec::new()
            }
            Action::Open => {
                if home.in_inbox {
                    match asks.get(home.inbox.selected) {
                        Some(key) => {
                            let key = key.clone();
                            self.open_card(key);
                        }
                        None => self.show_toast("Nothing needs your answer.", false),
                    }
                } else if let Some(index) = agents.get(home.agents.selected) {
                    let name = self.agents.list[*index].name.clone();
                    self.nav.push(Screen::Layout(LayoutScreen {
                        agent: name,
                        cursor: Default::default(),
                        filter: Default::default(),
                    }));
                }
                Vec::new()
            }
            Action::JumpExpiring => {
                let rows = self.home_inbox(&Filter::default());
                match inbox::soonest_expiring(&rows, self.now) {
                    Some(index) => {
                        let key = rows[index].key();
                        self.open_card(key);
                    }
                    None => self.show_toast("No open ask has a time limit.", false),
                }
                Vec::new()
            }
            Action::NewPage => {
                self.nav.push(Screen::New(NewScreen::default()));
                Vec::new()
            }
            Action::History => {
                let agent = if home.in_inbox {
                    asks.get(home.inbox.selected).map(|k| k.agent.clone())
                } else {
                    agents
                        .get(home.agents.selected)
                        .map(|i| self.agents.list[*i].name.clone())
                };
                match agent {
                    Some(agent) => self.open_history(&agent),
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// Opens the history of an agent and reads its first page.
    pub(crate) fn open_history(&mut self, agent: &str) -> Vec<Command> {
        let has_history = self
            .agents
            .get(agent)
            .is_some_and(|a| a.has_cap(crate::wire::caps::HISTORY));
        if !has_history {
            self.show_toast(
                format!("{agent} keeps no history the phone can read."),
                true,
            );
            return Vec::new();
        }
        self.nav.push(Screen::History(HistoryScreen {
            agent: agent.to_string(),
            cursor: Default::default(),
            filter: Default::default(),
        }));
        self.history
            .open_conversations(agent)
            .map(Command::Engine)
            .into_iter()
            .collect::<Vec<Command>>()
    }

    pub(crate) fn home_click(&mut self, column: u16, row: u16) -> Vec<Command> {
        let parts = geometry::home(self.size.0, self.size.1, self.agents.list.len());
        let Screen::Home(home) = self.nav.top() else {
            return Vec::new();
        };
        let filter = home.filter.clone();
        let agents = self.home_agents(&filter).len();
        let asks = self.home_inbox(&filter).len();
        let Screen::Home(home) = self.nav.top_mut() else {
            return Vec::new();
        };
        let (in_inbox, list_row) = if geometry::contains(parts.agents, column, row) {
            (false, row - parts.agents.y)
        } else if geometry::contains(parts.inbox, column, row) {
            (true, row - parts.inbox.y)
        } else {
            return Vec::new();
        };
        let cursor = if in_inbox {
            &mut home.inbox
        } else {
            &mut home.agents
        };
        let before = (home.in_inbox, cursor.selected);
        let len = if in_inbox { asks } else { agents };
        if !cursor.click(usize::from(list_row), len) {
            return Vec::new();
        }
        let after = (in_inbox, cursor.selected);
        home.in_inbox = in_inbox;
        // A click on the selected row opens it.
        if before == after {
            return self.home_action(Action::Open);
        }
        Vec::new()
    }

    pub(crate) fn home_wheel(&mut self, down: bool, _column: u16, _row: u16) -> Vec<Command> {
        let action = if down { Action::Down } else { Action::Up };
        let mut commands = Vec::new();
        for _ in 0..3 {
            commands.extend(self.home_action(action));
        }
        commands
    }
}
