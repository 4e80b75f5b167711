//! The New page: every agent's starters as rows (SPEC A17). Running one opens its pane as
//! soon as the agent's snapshot has it.

pub(crate) mod draw;
pub(crate) mod keys;

use crate::app::Command;
use crate::app::keymap::{Action, Context};
use crate::app::list::{Filter, ListCursor};
use crate::app::phone::Phone;
use crate::engine::IntentKind;
use crate::model::news::Heard;
use crate::screens::room::{Heeded, Room};
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

pub(crate) fn starter_rows<'a>(phone: &'a Phone, filter: &Filter) -> Vec<StarterRow<'a>> {
    phone
        .agents()
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

impl Room for NewScreen {
    /// The pane this page started is here: the page gives way to it (SPEC A17).
    fn heard(&self, _phone: &Phone, news: &Heard) -> Heeded {
        match news {
            Heard::PaneReady { .. } => Heeded::Leave,
            _ => Heeded::Nothing,
        }
    }

    fn key_parts() -> &'static [Context] {
        &[keys::NEW]
    }

    fn keys(&self, _phone: &Phone) -> Context {
        keys::NEW
    }

    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        let filter = self.filter.clone();
        let selected = self.cursor.selected;
        let rows = starter_rows(phone, &filter);
        let bridge_rows = crate::screens::dsh_form::dsh_new_rows(phone, &filter);
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
        let height = phone.list_height(filter.is_active());
        match action {
            Action::Back => phone.back(),
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                self.cursor.apply(action, len, height);
                Vec::new()
            }
            Action::Open if bridge_row.is_some() => {
                if let Some(row) = bridge_row {
                    phone.open(crate::app::phone::Goto::DshForm {
                        agent: row.agent.clone(),
                        purpose: row.purpose,
                    });
                }
                Vec::new()
            }
            Action::Open => {
                let Some((agent, starter_id, title)) = chosen else {
                    phone.show_toast("No agent offers a starter yet.", false);
                    return Vec::new();
                };
                phone.show_toast(format!("Starting “{title}”…"), false);
                phone.submit(&agent, IntentKind::Starter { starter_id })
            }
            _ => Vec::new(),
        }
    }

    fn wheel(&mut self, phone: &mut Phone, down: bool, _column: u16, _row: u16) -> Vec<Command> {
        let (len, height) = (self.len(phone), phone.list_height(self.filter.is_active()));
        self.cursor.wheel(down, len, height);
        Vec::new()
    }

    fn offers(&self, phone: &Phone, action: Action) -> bool {
        action != Action::Open || self.len(phone) > 0
    }

    crate::screens::room::plain_list!();
}

impl NewScreen {
    /// The starters, then the DSH bridges' rows.
    fn len(&self, phone: &Phone) -> usize {
        starter_rows(phone, &self.filter).len()
            + crate::screens::dsh_form::dsh_new_rows(phone, &self.filter).len()
    }

    /// What each row shows, as a key that stays with the row.
    fn row_keys(&self, phone: &Phone) -> Vec<String> {
        starter_rows(phone, &self.filter)
            .iter()
            .map(|row| format!("starter\u{0}{}\u{0}{}", row.agent, row.starter.id))
            .chain(
                crate::screens::dsh_form::dsh_new_rows(phone, &self.filter)
                    .iter()
                    .map(|row| format!("dsh\u{0}{}\u{0}{}", row.agent, row.title)),
            )
            .collect()
    }
}
