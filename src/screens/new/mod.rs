//! The New page: every agent's starters as rows (SPEC A17). Running one opens its pane as
//! soon as the agent's snapshot has it.

pub(crate) mod draw;
pub(crate) mod keys;

use crate::app::keymap::Action;
use crate::app::list::{Filter, ListCursor};
use crate::app::{App, Command};
use crate::engine::IntentKind;
use crate::screens::Screen;
use crate::wire::Starter;

#[derive(Debug, Clone, Default)]
pub struct NewScreen {
    pub(crate) cursor: ListCursor,
    pub(crate) filter: Filter,
}

/// One starter with its agent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StarterRow<'a> {
    pub(crate) agent: &'a str,
    pub(crate) starter: &'a Starter,
}

impl App {
    pub(crate) fn starter_rows(&self, filter: &Filter) -> Vec<StarterRow<'_>> {
        self.agents
            .list
            .iter()
            .filter_map(|agent| agent.snapshot.as_ref().map(|s| (agent, s)))
            .flat_map(|(agent, snapshot)| {
                snapshot.starters.iter().map(move |starter| StarterRow {
                    agent: &agent.name,
                    starter,
                })
            })
            .filter(|row| {
                filter.matches(&format!(
                    "{} {} {}",
                    row.agent,
                    row.starter.title,
                    row.starter.description.as_deref().unwrap_or_default()
                ))
            })
            .collect()
    }

    pub(crate) fn new_action(&mut self, action: Action) -> Vec<Command> {
        let Screen::New(screen) = self.nav.top() else {
            return Vec::new();
        };
        let filter = screen.filter.clone();
        let selected = screen.cursor.selected;
        let rows = self.starter_rows(&filter);
        let bridge_rows = self.dsh_new_rows(&filter);
        let len = rows.len() + bridge_rows.len();
        // Below the starters: a task or a workspace on each DSH bridge (SPEC D3).
        let bridge_row = selected
            .checked_sub(rows.len())
            .and_then(|i| bridge_rows.get(i).cloned());
        let chosen = rows.get(selected).map(|r| {
            (
                r.agent.to_string(),
                r.starter.id.clone(),
                r.starter.title.clone(),
            )
        });
        let height = self.list_height(filter.is_active());
        match action {
            Action::Back => self.back(),
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                if let Screen::New(screen) = self.nav.top_mut() {
                    screen.cursor.apply(action, len, height);
                }
                Vec::new()
            }
            Action::Open if bridge_row.is_some() => {
                if let Some(row) = bridge_row {
                    self.open_dsh_form(&row.agent, row.purpose);
                }
                Vec::new()
            }
            Action::Open => {
                let Some((agent, starter_id, title)) = chosen else {
                    self.show_toast("No agent offers a starter yet.", false);
                    return Vec::new();
                };
                self.show_toast(format!("Starting “{title}”…"), false);
                self.submit(&agent, IntentKind::Starter { starter_id })
            }
            _ => Vec::new(),
        }
    }
}
