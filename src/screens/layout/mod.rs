//! One agent's workspaces, tabs and panes as a tree; open a pane, rename a workspace or a tab,
//! close any of them after a confirm (SPEC W5).

pub(crate) mod draw;
pub(crate) mod keys;

use crate::app::agents::PaneRef;
use crate::app::keymap::Action;
use crate::app::list::{Filter, ListCursor};
use crate::app::{App, Command, editor::Editor, geometry};
use crate::engine::IntentKind;
use crate::screens::Screen;
use crate::screens::overlay::{Deferred, Overlay};
use crate::wire::{Tab, Workspace, caps};

/// The workspaces, tabs and panes of one agent.
#[derive(Debug, Clone)]
pub struct LayoutScreen {
    pub(crate) agent: String,
    pub(crate) cursor: ListCursor,
    pub(crate) filter: Filter,
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

impl App {
    /// The rows of an agent's tree; with a filter, the matching panes and what holds them.
    pub(crate) fn layout_rows(&self, screen: &LayoutScreen) -> Vec<TreeRow<'_>> {
        let Some(agent) = self.agents.get(&screen.agent) else {
            return Vec::new();
        };
        let Some(snapshot) = &agent.snapshot else {
            return Vec::new();
        };
        let filter = &screen.filter;
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

    pub(crate) fn layout_action(&mut self, action: Action) -> Vec<Command> {
        let Screen::Layout(screen) = self.nav.top() else {
            return Vec::new();
        };
        let screen = screen.clone();
        let rows = self.layout_rows(&screen);
        let height = self.list_height(screen.filter.is_active());
        let len = rows.len();
        let selected = rows
            .get(screen.cursor.selected.min(len.saturating_sub(1)))
            .copied();
        let agent = screen.agent.clone();
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
            Action::Back => self.back(),
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                if let Screen::Layout(screen) = self.nav.top_mut() {
                    screen.cursor.apply(action, len, height);
                }
                Vec::new()
            }
            Action::Open => {
                match chosen.and_then(|c| c.3) {
                    Some(pane) => self.open_pane(&agent, &pane),
                    None => self.show_toast("This holds no pane to open.", false),
                }
                Vec::new()
            }
            Action::Rename => {
                let Some((kind, id, title, _)) = chosen else {
                    return Vec::new();
                };
                if kind == "pane" {
                    self.show_toast(
                        "A pane has no title of its own to rename: pick its tab or workspace.",
                        false,
                    );
                    return Vec::new();
                }
                if !self.agent_can(&agent, caps::RENAME) {
                    self.show_toast(format!("{agent} does not rename workspaces or tabs."), true);
                    return Vec::new();
                }
                self.overlay = Some(Overlay::Prompt {
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
                if self.is_bridge(&agent) {
                    if kind == "pane" {
                        return self.dsh_ask_close(&agent, &id);
                    }
                    self.show_toast(
                        "A DSH bridge closes tasks only: its workspaces stay on the desktop.",
                        false,
                    );
                    return Vec::new();
                }
                if !self.agent_can(&agent, caps::CLOSE) {
                    self.show_toast(format!("{agent} does not close {kind}s."), true);
                    return Vec::new();
                }
                let what = match kind {
                    "workspace" => "and every tab and pane in it",
                    "tab" => "and every pane in it",
                    _ => "and stop its agent",
                };
                self.overlay = Some(Overlay::Confirm {
                    question: format!("Close the {kind} “{title}” {what}?"),
                    then: Deferred::Submit {
                        agent,
                        kind: IntentKind::Close {
                            target: kind.to_string(),
                            id,
                        },
                    },
                });
                Vec::new()
            }
            Action::NewPage => {
                self.nav.push(Screen::New(Default::default()));
                Vec::new()
            }
            Action::History => self.open_history(&agent),
            _ => Vec::new(),
        }
    }

    pub(crate) fn agent_can(&self, agent: &str, cap: &str) -> bool {
        self.agents.get(agent).is_some_and(|a| a.has_cap(cap))
    }

    /// A click on a row of a plain list screen selects it; on the selected row, opens it.
    pub(crate) fn list_click(&mut self, column: u16, row: u16) -> Vec<Command> {
        let filter_shown = self.nav.top().filter().is_some_and(|f| f.is_active());
        let list = geometry::listing(self.size.0, self.size.1, filter_shown).list;
        if !geometry::contains(list, column, row) {
            return Vec::new();
        }
        let len = self.list_len_at(self.nav.depth() - 1);
        let cursor = match self.nav.top_mut() {
            Screen::Layout(s) => &mut s.cursor,
            Screen::New(s) => &mut s.cursor,
            Screen::History(s) => &mut s.cursor,
            _ => return Vec::new(),
        };
        let before = cursor.selected;
        if !cursor.click(usize::from(row - list.y), len) {
            return Vec::new();
        }
        if cursor.selected == before {
            let context = self.context();
            return self.screen_action(context, Action::Open);
        }
        Vec::new()
    }

    pub(crate) fn list_wheel(&mut self, down: bool) -> Vec<Command> {
        let filter_shown = self.nav.top().filter().is_some_and(|f| f.is_active());
        let height = self.list_height(filter_shown);
        let len = self.list_len_at(self.nav.depth() - 1);
        let cursor = match self.nav.top_mut() {
            Screen::Layout(s) => &mut s.cursor,
            Screen::New(s) => &mut s.cursor,
            Screen::History(s) => &mut s.cursor,
            _ => return Vec::new(),
        };
        cursor.wheel(down, len, height);
        let mut commands = Vec::new();
        if let Screen::History(s) = self.nav.top() {
            let (agent, selected) = (s.agent.clone(), s.cursor.selected);
            commands.extend(
                self.history
                    .more_conversations(&agent, selected)
                    .map(Command::Engine),
            );
        }
        commands
    }
}
