//! `GET /session/v1/snapshot`: the layout (SPEC W5, H4, L, A2, A17).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::ask::Ask;
use super::id::check_id;
use super::kind::open_enum;
use super::limits::{
    MAX_BELT_BUTTONS, MAX_BELT_LABEL_CHARS, MAX_OPEN_ASKS_PER_PANE, MAX_PANES, MAX_PROMPT,
    MAX_STARTERS, MAX_TABS, MAX_TITLE, MAX_WORKSPACES,
};
use super::sanitize::{ChangeKind, Lines, Report, cap, clean, clean_chars, clean_opt};
use super::settings::{AgentCommand, Setting, sanitize_commands, sanitize_settings};

open_enum! {
    /// What a pane is doing (SPEC A2: `waiting` while any ask is open).
    PaneState {
        Starting => "starting",
        Running => "running",
        Waiting => "waiting",
        Idle => "idle",
        Failed => "failed",
    }
}

open_enum! {
    /// Where a turn is (SPEC A16).
    TurnState {
        Running => "running",
        Done => "done",
        Aborted => "aborted",
        Failed => "failed",
    }
}

/// The whole layout at one `rev` (SPEC H4). Counts are capped over the whole snapshot (SPEC L).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub epoch: String,
    pub rev: u64,
    #[serde(default)]
    pub workspaces: Vec<Workspace>,
    #[serde(default)]
    pub starters: Vec<Starter>,
}

/// A workspace and its tabs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workspace {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub tabs: Vec<Tab>,
}

/// A tab and its panes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tab {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub panes: Vec<Pane>,
}

/// A pane: one agent with its chat, turn, belt and open asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pane {
    pub id: String,
    pub title: String,
    pub state: PaneState,
    /// The pane's latest turn, the one send and abort name (SPEC A16). None before the first.
    #[serde(default)]
    pub turn: Option<Turn>,
    /// The conversation this pane shows, for history and reopen (SPEC W5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// Up to 4 buttons (SPEC L).
    #[serde(default)]
    pub belt: Vec<BeltButton>,
    /// Open asks, oldest first, at most 50 (SPEC A2, L).
    #[serde(default)]
    pub asks: Vec<Ask>,
    /// What the agent lets a person switch: its mode and options, at most 8 (docs/WIRE.md
    /// § 5.13). Absent from agents that have none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<Setting>,
    /// Every command the agent takes as `/name`, at most 64 (docs/WIRE.md § 5.14); the belt
    /// carries four of them at most.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<AgentCommand>,
    /// The context used, the window's size and the cost, as the agent last said them
    /// (docs/WIRE.md § 5.15). Absent from agents that say nothing of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<super::Usage>,
}

/// A turn of the pane's agent (SPEC A16).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub id: String,
    pub state: TurnState,
}

/// One button of a pane's tool belt (SPEC L: 4 per pane, label 16 characters).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BeltButton {
    pub id: String,
    pub label: String,
}

/// One row of the phone's "New" page (SPEC A17).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Starter {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl Snapshot {
    /// Every pane in order, with its workspace and tab.
    pub fn panes(&self) -> impl Iterator<Item = (&Workspace, &Tab, &Pane)> {
        self.workspaces.iter().flat_map(|w| {
            w.tabs
                .iter()
                .flat_map(move |t| t.panes.iter().map(move |p| (w, t, p)))
        })
    }

    pub fn pane(&self, id: &str) -> Option<&Pane> {
        self.panes().map(|(_, _, p)| p).find(|p| p.id == id)
    }

    /// Cuts, cleans and caps the whole layout (SPEC L, L1). Entries with bad ids are dropped.
    pub fn sanitize(&mut self, report: &mut Report) {
        clean(
            &mut self.epoch,
            super::limits::MAX_EPOCH,
            Lines::Single,
            "epoch",
            report,
        );
        keep_valid(&mut self.workspaces, |w| &w.id, "workspaces", report);
        cap(&mut self.workspaces, MAX_WORKSPACES, "workspaces", report);
        let mut tabs_left = MAX_TABS;
        let mut panes_left = MAX_PANES;
        for (wi, workspace) in self.workspaces.iter_mut().enumerate() {
            let wpath = format_args!("workspaces[{wi}]");
            clean(
                &mut workspace.title,
                MAX_TITLE,
                Lines::Single,
                format_args!("{wpath}.title"),
                report,
            );
            keep_valid(
                &mut workspace.tabs,
                |t| &t.id,
                format_args!("{wpath}.tabs"),
                report,
            );
            cap(
                &mut workspace.tabs,
                tabs_left,
                format_args!("{wpath}.tabs"),
                report,
            );
            tabs_left -= workspace.tabs.len();
            for (ti, tab) in workspace.tabs.iter_mut().enumerate() {
                let tpath = format_args!("{wpath}.tabs[{ti}]");
                clean(
                    &mut tab.title,
                    MAX_TITLE,
                    Lines::Single,
                    format_args!("{tpath}.title"),
                    report,
                );
                keep_valid(
                    &mut tab.panes,
                    |p| &p.id,
                    format_args!("{tpath}.panes"),
                    report,
                );
                cap(
                    &mut tab.panes,
                    panes_left,
                    format_args!("{tpath}.panes"),
                    report,
                );
                panes_left -= tab.panes.len();
                for (pi, pane) in tab.panes.iter_mut().enumerate() {
                    pane.sanitize(format_args!("{tpath}.panes[{pi}]"), report);
                }
            }
        }
        keep_valid(&mut self.starters, |s| &s.id, "starters", report);
        cap(&mut self.starters, MAX_STARTERS, "starters", report);
        for (si, starter) in self.starters.iter_mut().enumerate() {
            let spath = format_args!("starters[{si}]");
            clean(
                &mut starter.title,
                MAX_TITLE,
                Lines::Single,
                format_args!("{spath}.title"),
                report,
            );
            clean_opt(
                &mut starter.description,
                MAX_PROMPT,
                Lines::Multi,
                format_args!("{spath}.description"),
                report,
            );
        }
    }
}

impl Pane {
    pub(crate) fn sanitize(&mut self, path: impl fmt::Display, report: &mut Report) {
        clean(
            &mut self.title,
            MAX_TITLE,
            Lines::Single,
            format_args!("{path}.title"),
            report,
        );
        if let Some(turn) = &self.turn
            && check_id(&turn.id).is_err()
        {
            self.turn = None;
            report.note(format!("{path}.turn"), ChangeKind::Dropped);
        }
        if let Some(conversation) = &self.conversation_id
            && check_id(conversation).is_err()
        {
            self.conversation_id = None;
            report.note(format!("{path}.conversationId"), ChangeKind::Dropped);
        }
        keep_valid(
            &mut self.belt,
            |b| &b.id,
            format_args!("{path}.belt"),
            report,
        );
        cap(
            &mut self.belt,
            MAX_BELT_BUTTONS,
            format_args!("{path}.belt"),
            report,
        );
        for (bi, button) in self.belt.iter_mut().enumerate() {
            clean_chars(
                &mut button.label,
                MAX_BELT_LABEL_CHARS,
                Lines::Single,
                format_args!("{path}.belt[{bi}].label"),
                report,
            );
        }
        sanitize_settings(&mut self.settings, &path, report);
        sanitize_commands(&mut self.commands, &path, report);
        if let Some(usage) = &mut self.usage {
            usage.sanitize(&path, report);
        }
        cap(
            &mut self.asks,
            MAX_OPEN_ASKS_PER_PANE,
            format_args!("{path}.asks"),
            report,
        );
        let mut index = 0;
        self.asks.retain_mut(|ask| {
            let keep = ask.sanitize(format_args!("{path}.asks[{index}]"), report);
            index += 1;
            keep
        });
    }
}

/// Drops entries whose id breaks SPEC L.
fn keep_valid<T>(
    list: &mut Vec<T>,
    id: impl Fn(&T) -> &String,
    path: impl fmt::Display,
    report: &mut Report,
) {
    let before = list.len();
    list.retain(|entry| check_id(id(entry)).is_ok());
    if list.len() != before {
        report.note(path, ChangeKind::Dropped);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn l_panes_capped_over_whole_snapshot() {
        let tab = |t: usize| {
            json!({"id": format!("t{t}"), "title": "T", "panes":
            (0..100).map(|p| json!({"id": format!("p{t}-{p}"), "title": "P", "state": "idle"})).collect::<Vec<_>>()})
        };
        let mut snapshot: Snapshot = serde_json::from_value(json!({
            "epoch": "e", "rev": 1,
            "workspaces": [{"id": "w", "title": "W", "tabs": (0..4).map(tab).collect::<Vec<_>>()}]
        }))
        .expect("decodes");
        let mut report = Report::default();
        snapshot.sanitize(&mut report);
        assert_eq!(snapshot.panes().count(), MAX_PANES);
        assert!(!report.is_empty());
    }

    #[test]
    fn l_belt_four_buttons_of_sixteen_chars() {
        let mut pane: Pane = serde_json::from_value(json!({
            "id": "p", "title": "P", "state": "running",
            "belt": (0..6).map(|i| json!({"id": format!("b{i}"), "label": "A label that is far too long"})).collect::<Vec<_>>()
        }))
        .expect("decodes");
        let mut report = Report::default();
        pane.sanitize("p", &mut report);
        assert_eq!(pane.belt.len(), 4);
        assert_eq!(pane.belt[0].label, "A label that is ");
    }

    #[test]
    fn v2_unknown_pane_state_and_fields_are_kept_or_ignored() {
        let pane: Pane = serde_json::from_value(json!({
            "id": "p", "title": "P", "state": "dreaming", "colour": "blue"
        }))
        .expect("decodes");
        assert_eq!(pane.state, PaneState::Unknown("dreaming".into()));
    }
}
