//! A pane's settings and commands (docs/WIRE.md § 5.13, § 5.14, § 4.10): what the agent lets a
//! person switch (its mode, its options, each a choice among named values, the ones that let the
//! agent act without asking marked by the agent), and every command it takes as `/name`.
//! Cut, cleaned and capped on decode like every agent string (SPEC L, L1).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::id::check_id;
use super::limits::{MAX_COMMANDS, MAX_LABEL, MAX_SETTING_CHOICES, MAX_SETTINGS, MAX_TITLE};
use super::sanitize::{ChangeKind, Lines, Report, cap, clean, clean_opt};

/// One thing the agent lets a person switch: its mode, or one of its options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Setting {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The id of the choice in effect, as the agent last said it.
    pub current: String,
    #[serde(default)]
    pub choices: Vec<SettingChoice>,
}

/// One value a setting can take.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingChoice {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The agent says this choice lets it act without asking first (a mode that bypasses its
    /// permission requests): a phone asks for an explicit yes before choosing it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub acts_without_asking: bool,
}

/// A command the agent takes as a message `/name …`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCommand {
    /// Without its `/`: one id, or a few separated by single spaces for a command with
    /// subcommands (Gemini CLI's `memory show`), at most [`MAX_COMMAND_NAME`] bytes
    /// ([`is_command_name`], docs/WIRE.md § 5.14).
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// What to type after the name, when it takes words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// `POST /pane/:id/setting`: choose one value of one of the pane's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingRequest {
    pub request_id: String,
    pub setting_id: String,
    pub value: String,
}

impl Setting {
    /// The choice in effect, when the setting lists it.
    pub fn current_choice(&self) -> Option<&SettingChoice> {
        self.choices.iter().find(|c| c.id == self.current)
    }

    /// The name of the choice in effect, or its id when the setting does not list it.
    pub fn current_name(&self) -> &str {
        self.current_choice().map_or(&self.current, |c| &c.name)
    }
}

/// Cuts, cleans and caps a pane's settings (SPEC L, L1): bad ids drop the entry (a setting whose
/// `current` is not an id is dropped too: a switch could not name it).
pub(crate) fn sanitize_settings(
    settings: &mut Vec<Setting>,
    path: impl fmt::Display,
    report: &mut Report,
) {
    let before = settings.len();
    settings.retain(|s| check_id(&s.id).is_ok() && check_id(&s.current).is_ok());
    if settings.len() != before {
        report.note(format!("{path}.settings"), ChangeKind::Dropped);
    }
    cap(
        settings,
        MAX_SETTINGS,
        format_args!("{path}.settings"),
        report,
    );
    for (si, setting) in settings.iter_mut().enumerate() {
        let spath = format!("{path}.settings[{si}]");
        clean(
            &mut setting.name,
            MAX_LABEL,
            Lines::Single,
            format_args!("{spath}.name"),
            report,
        );
        clean_opt(
            &mut setting.description,
            MAX_TITLE,
            Lines::Single,
            format_args!("{spath}.description"),
            report,
        );
        let before = setting.choices.len();
        setting.choices.retain(|c| check_id(&c.id).is_ok());
        if setting.choices.len() != before {
            report.note(format!("{spath}.choices"), ChangeKind::Dropped);
        }
        cap(
            &mut setting.choices,
            MAX_SETTING_CHOICES,
            format_args!("{spath}.choices"),
            report,
        );
        for (ci, choice) in setting.choices.iter_mut().enumerate() {
            clean(
                &mut choice.name,
                MAX_LABEL,
                Lines::Single,
                format_args!("{spath}.choices[{ci}].name"),
                report,
            );
            clean_opt(
                &mut choice.description,
                MAX_TITLE,
                Lines::Single,
                format_args!("{spath}.choices[{ci}].description"),
                report,
            );
        }
    }
}

/// Cuts, cleans and caps a pane's commands (SPEC L, L1): a name that is not an id is dropped.
/// The longest command name kept, in bytes.
pub const MAX_COMMAND_NAME: usize = 64;

/// A command's name: ids separated by single spaces, at most [`MAX_COMMAND_NAME`] bytes, so what
/// a phone sends (`/memory show`) is the words the agent offered.
pub fn is_command_name(name: &str) -> bool {
    name.len() <= MAX_COMMAND_NAME && name.split(' ').all(|word| check_id(word).is_ok())
}

pub(crate) fn sanitize_commands(
    commands: &mut Vec<AgentCommand>,
    path: impl fmt::Display,
    report: &mut Report,
) {
    let before = commands.len();
    commands.retain(|c| is_command_name(&c.name));
    if commands.len() != before {
        report.note(format!("{path}.commands"), ChangeKind::Dropped);
    }
    cap(
        commands,
        MAX_COMMANDS,
        format_args!("{path}.commands"),
        report,
    );
    for (ci, command) in commands.iter_mut().enumerate() {
        clean_opt(
            &mut command.description,
            MAX_TITLE,
            Lines::Single,
            format_args!("{path}.commands[{ci}].description"),
            report,
        );
        clean_opt(
            &mut command.hint,
            MAX_LABEL,
            Lines::Single,
            format_args!("{path}.commands[{ci}].hint"),
            report,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Pane;
    use serde_json::json;

    #[test]
    fn a_command_name_is_ids_with_single_spaces() {
        for kept in ["review", "memory show", "mcp:desc", "a b c"] {
            assert!(is_command_name(kept), "{kept}");
        }
        for dropped in [
            "",
            " memory",
            "memory  show",
            "memory\tshow",
            "a/b",
            &"x".repeat(65),
        ] {
            assert!(!is_command_name(dropped), "{dropped:?}");
        }
    }

    #[test]
    fn l_settings_and_commands_are_capped_cleaned_and_bad_ids_dropped() {
        let choices: Vec<_> = (0..40)
            .map(|i| json!({"id": format!("c{i}"), "name": "Plan\u{1b}[2J Mode"}))
            .collect();
        let settings: Vec<_> = (0..10)
            .map(|i| json!({"id": format!("s{i}"), "name": "Mode", "current": "c0", "choices": choices}))
            .chain([json!({"id": "bad id", "name": "X", "current": "c0"})])
            .collect();
        let commands: Vec<_> = (0..70)
            .map(|i| json!({"name": format!("cmd{i}"), "description": "Runs\nthe tests", "hint": "file"}))
            .chain([json!({"name": "has space"})])
            .collect();
        let mut pane: Pane = serde_json::from_value(json!({
            "id": "p", "title": "P", "state": "idle",
            "settings": settings, "commands": commands
        }))
        .expect("decodes");
        let mut report = Report::default();
        pane.sanitize("p", &mut report);
        assert_eq!(pane.settings.len(), MAX_SETTINGS);
        assert_eq!(pane.settings[0].choices.len(), MAX_SETTING_CHOICES);
        assert_eq!(pane.settings[0].choices[0].name, "Plan[2J Mode");
        assert_eq!(pane.commands.len(), MAX_COMMANDS);
        assert_eq!(
            pane.commands[0].description.as_deref(),
            Some("Runsthe tests")
        );
        assert!(!report.is_empty());
    }

    #[test]
    fn v2_a_pane_without_settings_or_commands_has_none_and_a_choice_asks_by_default() {
        let pane: Pane = serde_json::from_value(json!({
            "id": "p", "title": "P", "state": "idle",
            "settings": [{"id": "mode", "name": "Mode", "current": "ask",
                "choices": [{"id": "ask", "name": "Ask"}, {"id": "yolo", "name": "Yolo", "actsWithoutAsking": true}]}]
        }))
        .expect("decodes");
        assert!(pane.commands.is_empty());
        let mode = &pane.settings[0];
        assert_eq!(mode.current_name(), "Ask");
        assert!(!mode.choices[0].acts_without_asking);
        assert!(mode.choices[1].acts_without_asking);
        let old: Pane = serde_json::from_value(json!({"id": "p", "title": "P", "state": "idle"}))
            .expect("decodes");
        assert!(old.settings.is_empty());
    }
}
