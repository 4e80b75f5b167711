//! One agent's workspaces, tabs and panes as a tree; open a pane, rename a workspace or a tab,
//! close any of them after a confirm (SPEC W5).

pub(crate) mod draw;
pub(crate) mod keys;

use crate::app::Command;
use crate::app::keymap::{Action, Context};
use crate::app::list::{Filter, ListCursor};
use crate::app::overlay::{Deferred, Overlay};
use crate::app::phone::Goto;
use crate::app::phone::Phone;
use crate::engine::IntentKind;
use crate::model::agents::PaneRef;
use crate::model::editor::Editor;
use crate::screens::room::Room;
use crate::wire::{Tab, Workspace, caps};

/// The workspaces, tabs and panes of one agent.
#[derive(Debug, Clone)]
pub struct LayoutScreen {
    pub(crate) agent: String,
    pub(crate) cursor: ListCursor,
    pub(crate) filter: Filter,
}

impl LayoutScreen {
    /// An agent's layout, from its top.
    pub(crate) fn new(agent: String) -> Self {
        Self {
            agent,
            cursor: Default::default(),
            filter: Default::default(),
        }
    }
}

/// One row of the tree.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TreeRow<'a> {
    Workspace(&'a Workspace),
    Tab(&'a Tab),
    Pane(PaneRef<'a>),
}

impl TreeRow<'_> {
    /// The target kind of rename and close, its id and title.
    pub(crate) fn target(&self) -> (&'static str, &str, &str) {
        match self {
            TreeRow::Workspace(w) => ("workspace", &w.id, &w.title),
            TreeRow::Tab(t) => ("tab", &t.id, &t.title),
            TreeRow::Pane(p) => ("pane", &p.pane.id, &p.pane.title),
        }
    }
}

pub(crate) fn agent_can(phone: &Phone, agent: &str, cap: &str) -> bool {
    phone.agents().get(agent).is_some_and(|a| a.has_cap(cap))
}

impl LayoutScreen {
    /// The rows of an agent's tree; with a filter, the matching panes and what holds them.
    pub(crate) fn rows<'a>(&self, phone: &'a Phone) -> Vec<TreeRow<'a>> {
        let Some(agent) = phone.agents().get(&self.agent) else {
            return Vec::new();
        };
        let Some(snapshot) = &agent.snapshot else {
            return Vec::new();
        };
        let filter = &self.filter;
        let panes = agent.panes();
        let mut rows = Vec::new();
        for workspace in &snapshot.workspaces {
            let mut workspace_rows = Vec::new();
            for tab in &workspace.tabs {
                let mut tab_rows = Vec::new();
                for pane in panes
                    .iter()
                    .filter(|p| p.tab.id == tab.id && p.workspace.id == workspace.id)
                {
                    let words = format!(
                        "{} {} {} {}",
                        workspace.title,
                        tab.title,
                        pane.pane.title,
                        pane.state().as_str()
                    );
                    if filter.matches(&words) {
                        tab_rows.push(TreeRow::Pane(*pane));
                    }
                }
                let tab_matches = filter.matches(&format!("{} {}", workspace.title, tab.title));
                if !tab_rows.is_empty() || tab_matches {
                    workspace_rows.push(TreeRow::Tab(tab));
                    workspace_rows.extend(tab_rows);
                }
            }
            if !workspace_rows.is_empty() || filter.matches(&workspace.title) {
                rows.push(TreeRow::Workspace(workspace));
                rows.extend(workspace_rows);
            }
        }
        rows
    }
}

impl Room for LayoutScreen {
    fn key_parts() -> &'static [Context] {
        &[keys::LAYOUT]
    }

    fn keys(&self, _phone: &Phone) -> Context {
        keys::LAYOUT
    }

    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        let rows = self.rows(phone);
        let height = phone.list_height(self.filter.is_active());
        let len = rows.len();
        let selected = rows
            .get(self.cursor.selected.min(len.saturating_sub(1)))
            .copied();
        let agent = self.agent.clone();
        // What the selected row is, owned, so the screen can change below.
        let chosen = selected.map(|row| {
            let (kind, id, title) = row.target();
            let first_pane = match row {
                TreeRow::Pane(p) => Some(p.pane.id.clone()),
                TreeRow::Tab(t) => t.panes.first().map(|p| p.id.clone()),
                TreeRow::Workspace(w) => w
                    .tabs
                    .iter()
                    .flat_map(|t| t.panes.first())
                    .next()
                    .map(|p| p.id.clone()),
            };
            (kind, id.to_string(), title.to_string(), first_pane)
        });
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
            Action::Open => {
                match chosen.and_then(|c| c.3) {
                    Some(pane) => phone.open_pane(&agent, &pane),
                    None => phone.show_toast("This holds no pane to open.", false),
                }
                Vec::new()
            }
            Action::Rename => {
                let Some((kind, id, title, _)) = chosen else {
                    return Vec::new();
                };
                if kind == "pane" {
                    // The wire renames workspaces and tabs only (docs/WIRE.md § 4.6); a pane's
                    // title is its agent's.
                    let rename = phone
                        .keymap()
                        .key_label(keys::LAYOUT, Action::Rename)
                        .unwrap_or_default();
                    phone.show_toast(
                        format!(
                            "Panes are named by their agent; {rename} on the tab renames the tab."
                        ),
                        false,
                    );
                    return Vec::new();
                }
                if !agent_can(phone, &agent, caps::RENAME) {
                    phone.show_toast(format!("{agent} does not rename workspaces or tabs."), true);
                    return Vec::new();
                }
                phone.overlay = Some(Overlay::Prompt {
                    title: format!("New title for the {kind} “{title}”"),
                    editor: Editor::from_text(&title),
                    then: Deferred::Rename {
                        agent,
                        target: kind.to_string(),
                        id,
                    },
                });
                Vec::new()
            }
            Action::Close => {
                let Some((kind, id, title, _)) = chosen else {
                    return Vec::new();
                };
                if phone.can(&agent).closes_only_tasks {
                    if kind == "pane" {
                        return phone.dsh_ask_close(&agent, &id);
                    }
                    phone.show_toast(
                        "A DSH bridge closes tasks only: its workspaces stay on the desktop.",
                        false,
                    );
                    return Vec::new();
                }
                if !agent_can(phone, &agent, caps::CLOSE) {
                    phone.show_toast(format!("{agent} does not close {kind}s."), true);
                    return Vec::new();
                }
                let what = match kind {
                    "workspace" => "and every tab and pane in it",
                    "tab" => "and every pane in it",
                    _ => "and stop its agent",
                };
                phone.overlay = Some(Overlay::confirm(
                    format!("Close the {kind} “{title}” {what}?"),
                    Deferred::Submit {
                        agent,
                        kind: IntentKind::Close {
                            target: kind.to_string(),
                            id,
                        },
                    },
                ));
                Vec::new()
            }
            Action::NewPage => {
                phone.open(Goto::New);
                Vec::new()
            }
            Action::History => crate::screens::home::open_history(phone, &agent),
            _ => Vec::new(),
        }
    }

    fn wheel(&mut self, phone: &mut Phone, down: bool, _column: u16, _row: u16) -> Vec<Command> {
        let (len, height) = (
            self.rows(phone).len(),
            phone.list_height(self.filter.is_active()),
        );
        self.cursor.wheel(down, len, height);
        Vec::new()
    }

    fn offers(&self, phone: &Phone, action: Action) -> bool {
        let rows = self.rows(phone);
        let selected = rows.get(self.cursor.selected.min(rows.len().saturating_sub(1)));
        let can = phone.can(&self.agent);
        match action {
            Action::Open => selected.is_some_and(|row| match row {
                TreeRow::Pane(_) => true,
                TreeRow::Tab(t) => !t.panes.is_empty(),
                TreeRow::Workspace(w) => w.tabs.iter().any(|t| !t.panes.is_empty()),
            }),
            Action::Rename => {
                can.rename
                    && agent_can(phone, &self.agent, caps::RENAME)
                    && selected.is_some_and(|row| !matches!(row, TreeRow::Pane(_)))
            }
            Action::Close if can.closes_only_tasks => {
                selected.is_some_and(|row| matches!(row, TreeRow::Pane(_)))
            }
            Action::Close => selected.is_some() && agent_can(phone, &self.agent, caps::CLOSE),
            _ => true,
        }
    }

    crate::screens::room::plain_list!();
}

impl LayoutScreen {
    fn len(&self, phone: &Phone) -> usize {
        self.rows(phone).len()
    }

    /// What each row shows, as a key that stays with the row.
    fn row_keys(&self, phone: &Phone) -> Vec<String> {
        self.rows(phone)
            .iter()
            .map(|row| {
                let (kind, id, _) = row.target();
                format!("{kind}\u{0}{id}")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::phone::Step;
    use crate::screens::harness::Harness;

    #[test]
    fn an_agent_not_heard_from_has_no_rows_and_opening_one_says_so() {
        let mut harness = Harness::new();
        let mut room = LayoutScreen {
            agent: "demo".into(),
            cursor: Default::default(),
            filter: Default::default(),
        };
        assert!(room.rows(&harness.phone).is_empty());
        harness.act(&mut room, Action::Open);
        assert_eq!(harness.toast(), Some("This holds no pane to open."));
        harness.act(&mut room, Action::NewPage);
        assert!(matches!(harness.steps()[..], [Step::Open(Goto::New)]));
    }
}
