//! A session's modes and config options as the pane's settings (docs/ACP.md, "Modes, options
//! and commands"; docs/WIRE.md § 5.13), and which of them let the agent act without asking.
//!
//! The session's modes (`SessionModeState`) are the setting `mode`; each select config option
//! (`SessionConfigOption`) is a setting under its own id. A config option of the `mode`
//! category, or one whose id is `mode`, is left off while the session has modes: Codex's adapter
//! offers its approval presets both ways, and the phone shows one of them. A boolean option
//! (`type: "boolean"`, offered to us since we advertise `session.configOptions.boolean`) is a
//! setting of two choices, `true` ("On") and `false` ("Off"). Options whose ids break the wire's
//! id rule are left off.

use agent_client_protocol::v1::schema::{
    SessionConfigKind, SessionConfigOption, SessionConfigOptionCategory, SessionConfigOptionValue,
    SessionConfigSelectOptions, SessionModeState,
};

use super::text::clean_line;
use crate::wire::{Setting, SettingChoice, check_id, limits};

/// The setting id of the session's mode.
pub(crate) const MODE: &str = "mode";

/// The modes and option values that let an agent act without asking first, by their ACP id:
/// the one table of them (docs/ACP.md). A phone asks for an explicit yes before choosing one,
/// as it does for Allow always. Read from each adapter's code (tests/fixtures/acp/real/README.md).
///
/// | id | agent | what it does |
/// |---|---|---|
/// | `auto` | Claude Code (`claude-agent-acp` 0.101), its `auto_review` kind | "Claude handles permission decisions" |
/// | `bypassPermissions` | Claude Code, its `full_access` kind | "Accepts all permissions" |
/// | `agent` | Codex (`codex-acp` 2.6), "Auto review", its `auto_review` kind | "Only ask for actions detected as potentially unsafe" |
/// | `agent-full-access` | Codex (`codex-acp` 2.6), its `full_access` kind | never asks, no sandbox |
/// | `full-access` | Codex (`codex-acp` 0.16), its approval preset | no sandbox, never asks |
/// | `yolo` | Gemini CLI (`gemini --acp` 0.61.0), and our scripted agent | "Auto-approves all tools" |
pub(crate) const ACTS_WITHOUT_ASKING: &[&str] = &[
    "auto",
    "bypassPermissions",
    "agent",
    "agent-full-access",
    "full-access",
    "yolo",
];

/// The modes that ask the most before the agent acts, by their ACP id, best first: a new
/// session starts in the first one its agent offers unless the person chose another
/// (`--acp-mode`, `mode` under `[acp.NAME]`; docs/ACP.md, "The mode a session starts in").
///
/// | id | agent | what it does |
/// |---|---|---|
/// | `read-only` | Codex (`codex-acp` 2.6) | "Requires approval to edit files and access the internet." |
/// | `default` | Claude Code ("Manual": "Always ask before making changes"), Gemini CLI | asks before every edit and command |
/// | `ask` | our scripted agent (`demo --acp`, the tests) | "Asks before it runs anything" |
pub(crate) const ASKS_MOST: &[&str] = &["read-only", "default", "ask"];

/// Whether a mode or option value lets the agent act without asking (the table above).
pub(crate) fn acts_without_asking(id: &str) -> bool {
    ACTS_WITHOUT_ASKING.contains(&id)
}

/// The mode a new session should be switched to, if any: the one the person chose for this
/// agent when the session offers it, else the first of [`ASKS_MOST`] it offers. `None` when
/// the session is in it already or offers none of them. The `Err` says a chosen mode the
/// agent does not offer, in a pane's words; the session then starts as if none was chosen.
pub(crate) fn starting_mode(
    agent: &str,
    offered: &[&str],
    current: &str,
    chosen: Option<&str>,
) -> (Option<String>, Option<String>) {
    let mut note = None;
    let wanted = match chosen {
        Some(mode) if offered.contains(&mode) => Some(mode),
        Some(mode) => {
            note = Some(format!(
                "{agent} offers no mode {}; the session starts in the mode that asks most before acting. Its modes: {}.",
                clean_line(mode),
                offered.iter().map(|m| clean_line(m)).collect::<Vec<_>>().join(", ")
            ));
            None
        }
        None => None,
    }
    .or_else(|| ASKS_MOST.iter().copied().find(|m| offered.contains(m)));
    (wanted.filter(|m| *m != current).map(str::to_string), note)
}

/// What a setting of the pane switches on the agent's side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// `session/set_mode`.
    Mode,
    /// `session/set_config_option` of this option id, with one of its value ids.
    Option(String),
    /// `session/set_config_option` of this boolean option, with `true` or `false`.
    Switch(String),
}

impl Target {
    /// The option id and the value `session/set_config_option` carries for a chosen setting
    /// value; `None` for the mode (`session/set_mode`).
    pub(crate) fn option_value(&self, value: &str) -> Option<(String, SessionConfigOptionValue)> {
        match self {
            Target::Mode => None,
            Target::Option(id) => Some((
                id.clone(),
                SessionConfigOptionValue::value_id(value.to_string()),
            )),
            Target::Switch(id) => {
                Some((id.clone(), SessionConfigOptionValue::boolean(value == ON)))
            }
        }
    }
}

/// The choice ids of a boolean option's setting: the JSON words, so the wire and the
/// journal read as the agent's own value.
const ON: &str = "true";
const OFF: &str = "false";

/// A session's modes and options as the agent last said them.
#[derive(Debug, Default, Clone)]
pub(crate) struct Settings {
    modes: Option<SessionModeState>,
    options: Vec<SessionConfigOption>,
}

impl Settings {
    /// From the reply to `session/new` or `session/load`.
    pub(crate) fn new(
        modes: Option<SessionModeState>,
        options: Option<Vec<SessionConfigOption>>,
    ) -> Self {
        Self {
            modes,
            options: options.unwrap_or_default(),
        }
    }

    /// The agent's mode changed (`current_mode_update`, or its yes to `session/set_mode`).
    pub(crate) fn set_mode(&mut self, mode: &str) {
        if let Some(modes) = &mut self.modes {
            modes.current_mode_id = mode.to_string().into();
        }
    }

    /// The agent's options changed (`config_option_update`, or its answer to
    /// `session/set_config_option`): the whole list, as ACP sends it.
    pub(crate) fn set_options(&mut self, options: Vec<SessionConfigOption>) {
        self.options = options;
    }

    /// What a setting id of the pane switches, when the session has it.
    pub(crate) fn target(&self, setting: &str) -> Option<Target> {
        if setting == MODE && self.modes.is_some() {
            return Some(Target::Mode);
        }
        self.shown_options()
            .find(|o| o.id.0.as_ref() == setting)
            .map(|o| match o.kind {
                SessionConfigKind::Boolean(_) => Target::Switch(o.id.0.to_string()),
                _ => Target::Option(o.id.0.to_string()),
            })
    }

    fn shown_options(&self) -> impl Iterator<Item = &SessionConfigOption> {
        let has_modes = self.modes.is_some();
        self.options.iter().filter(move |o| {
            let mode_like = o.id.0.as_ref() == MODE
                || matches!(o.category, Some(SessionConfigOptionCategory::Mode));
            !(has_modes && mode_like)
                && check_id(&o.id.0).is_ok()
                && matches!(
                    o.kind,
                    SessionConfigKind::Select(_) | SessionConfigKind::Boolean(_)
                )
        })
    }

    /// The pane's settings: the mode first, then each option, cut, cleaned and capped as the
    /// wire keeps them (SPEC L, L1).
    pub(crate) fn wire(&self) -> Vec<Setting> {
        let mut settings = Vec::new();
        if let Some(modes) = &self.modes
            && check_id(&modes.current_mode_id.0).is_ok()
        {
            let choices = modes
                .available_modes
                .iter()
                .map(|m| choice(&m.id.0, &m.name, m.description.as_deref()));
            settings.push(Setting {
                id: MODE.to_string(),
                name: "Mode".to_string(),
                description: None,
                current: modes.current_mode_id.0.to_string(),
                choices: kept(choices),
            });
        }
        for option in self.shown_options() {
            let (current, values) = match &option.kind {
                SessionConfigKind::Select(select) => {
                    let values: Vec<SettingChoice> = match &select.options {
                        SessionConfigSelectOptions::Ungrouped(values) => values
                            .iter()
                            .map(|v| choice(&v.value.0, &v.name, v.description.as_deref()))
                            .collect(),
                        SessionConfigSelectOptions::Grouped(groups) => groups
                            .iter()
                            .flat_map(|g| g.options.iter())
                            .map(|v| choice(&v.value.0, &v.name, v.description.as_deref()))
                            .collect(),
                        _ => Vec::new(),
                    };
                    (select.current_value.0.to_string(), values)
                }
                SessionConfigKind::Boolean(switch) => {
                    let current = if switch.current_value { ON } else { OFF };
                    let values = vec![choice(ON, "On", None), choice(OFF, "Off", None)];
                    (current.to_string(), values)
                }
                _ => continue,
            };
            if check_id(&current).is_err() {
                continue;
            }
            settings.push(Setting {
                id: option.id.0.to_string(),
                name: short(&option.name),
                description: option.description.as_deref().map(clean_line),
                current,
                choices: kept(values.into_iter()),
            });
        }
        settings.truncate(limits::MAX_SETTINGS);
        settings
    }
}

fn choice(id: &str, name: &str, description: Option<&str>) -> SettingChoice {
    SettingChoice {
        id: id.to_string(),
        name: short(name),
        description: description.map(clean_line).filter(|d| !d.is_empty()),
        acts_without_asking: acts_without_asking(id),
    }
}

/// The choices whose ids are ids, at most as many as the wire keeps.
fn kept(choices: impl Iterator<Item = SettingChoice>) -> Vec<SettingChoice> {
    choices
        .filter(|c| check_id(&c.id).is_ok())
        .take(limits::MAX_SETTING_CHOICES)
        .collect()
}

/// A name, one clean line of at most `limits::MAX_LABEL` bytes.
fn short(name: &str) -> String {
    crate::wire::sanitize::truncate_to(&clean_line(name), limits::MAX_LABEL).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{SessionConfigSelectOption, SessionMode};

    /// The modes Claude Code's adapter (`claude-code-acp` 0.16.2, not as root) opens a
    /// session with.
    fn claude_modes() -> SessionModeState {
        SessionModeState::new(
            "default",
            vec![
                SessionMode::new("default", "Default")
                    .description("Standard behavior, prompts for dangerous operations".to_string()),
                SessionMode::new("acceptEdits", "Accept Edits"),
                SessionMode::new("plan", "Plan Mode"),
                SessionMode::new("dontAsk", "Don't Ask"),
                SessionMode::new("bypassPermissions", "Bypass Permissions")
                    .description("Bypass all permission checks".to_string()),
            ],
        )
    }

    #[test]
    fn claude_codes_modes_are_one_setting_and_only_bypass_acts_without_asking() {
        let settings = Settings::new(Some(claude_modes()), None).wire();
        assert_eq!(settings.len(), 1);
        let mode = &settings[0];
        assert_eq!((mode.id.as_str(), mode.current_name()), ("mode", "Default"));
        let unattended: Vec<&str> = mode
            .choices
            .iter()
            .filter(|c| c.acts_without_asking)
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(unattended, ["bypassPermissions"]);
    }

    /// The settings of a real adapter's `session/new` reply (tests/fixtures/acp/real), as
    /// (setting id, current value, the choices that act without asking).
    fn real(fixture: &str) -> Vec<(String, String, Vec<String>)> {
        let line: serde_json::Value = serde_json::from_str(fixture).expect("json");
        let reply: agent_client_protocol::v1::schema::NewSessionResponse =
            serde_json::from_value(line["result"].clone()).expect("a session/new reply");
        Settings::new(reply.modes, reply.config_options)
            .wire()
            .into_iter()
            .map(|s| {
                let unattended = s
                    .choices
                    .iter()
                    .filter(|c| c.acts_without_asking)
                    .map(|c| c.id.clone())
                    .collect();
                (s.id, s.current, unattended)
            })
            .collect()
    }

    #[test]
    fn the_real_adapters_session_new_replies_become_settings() {
        let claude = real(include_str!(
            "../../../../tests/fixtures/acp/real/claude-code-acp-0.16.2-session-new.json"
        ));
        assert_eq!(
            claude,
            [(
                "mode".into(),
                "default".into(),
                vec!["bypassPermissions".into()]
            )]
        );
        // Codex with `approval_policy = "untrusted"` offers no modes, only its options.
        let codex = real(include_str!(
            "../../../../tests/fixtures/acp/real/codex-acp-0.16.0-session-new.json"
        ));
        assert_eq!(
            codex,
            [
                ("model".into(), "gpt-5.4".into(), vec![]),
                ("reasoning_effort".into(), "medium".into(), vec![]),
            ]
        );
        let gemini = real(include_str!(
            "../../../../tests/fixtures/acp/real/gemini-cli-0.61.0-session-new.json"
        ));
        assert_eq!(
            gemini,
            [("mode".into(), "default".into(), vec!["yolo".into()])]
        );
    }

    #[test]
    fn codex_offers_its_presets_as_modes_and_as_an_option_and_the_phone_sees_them_once() {
        let presets = ["read-only", "auto", "full-access"];
        let modes = SessionModeState::new(
            "auto",
            presets.iter().map(|p| SessionMode::new(*p, *p)).collect(),
        );
        let preset_option = SessionConfigOption::select(
            "mode",
            "Approval Preset",
            "auto",
            presets
                .iter()
                .map(|p| SessionConfigSelectOption::new(*p, *p))
                .collect::<Vec<_>>(),
        )
        .category(SessionConfigOptionCategory::Mode);
        let model = SessionConfigOption::select(
            "model",
            "Model",
            "gpt-5",
            vec![SessionConfigSelectOption::new("gpt-5", "GPT-5")],
        );
        let mut settings = Settings::new(Some(modes), Some(vec![preset_option, model]));
        let wire = settings.wire();
        let ids: Vec<&str> = wire.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["mode", "model"]);
        assert!(wire[0].choices[2].acts_without_asking);
        assert_eq!(settings.target("mode"), Some(Target::Mode));
        assert_eq!(
            settings.target("model"),
            Some(Target::Option("model".into()))
        );
        assert_eq!(settings.target("speed"), None);
        settings.set_mode("full-access");
        assert_eq!(settings.wire()[0].current, "full-access");
    }

    /// The `session/new` reply of today's adapters (tests/fixtures/acp/real): the mode each
    /// starts in of itself, and every mode it offers.
    fn offered(fixture: &str) -> (String, Vec<String>) {
        let line: serde_json::Value = serde_json::from_str(fixture).expect("json");
        let reply: agent_client_protocol::v1::schema::NewSessionResponse =
            serde_json::from_value(line["result"].clone()).expect("a session/new reply");
        let modes = reply.modes.expect("modes");
        (
            modes.current_mode_id.0.to_string(),
            modes
                .available_modes
                .iter()
                .map(|m| m.id.0.to_string())
                .collect(),
        )
    }

    #[test]
    fn todays_adapters_start_in_a_mode_that_acts_without_asking_and_the_host_picks_the_one_that_asks_most()
     {
        for (fixture, own, asks_most, unattended) in [
            (
                include_str!(
                    "../../../../tests/fixtures/acp/real/claude-agent-acp-0.101.0-session-new.json"
                ),
                "auto",
                "default",
                vec!["auto", "bypassPermissions"],
            ),
            (
                include_str!(
                    "../../../../tests/fixtures/acp/real/codex-acp-2.6.0-session-new.json"
                ),
                "agent",
                "read-only",
                vec!["agent", "agent-full-access"],
            ),
        ] {
            let (current, offered) = offered(fixture);
            let offered: Vec<&str> = offered.iter().map(String::as_str).collect();
            assert_eq!(current, own);
            assert!(acts_without_asking(&current), "{current}");
            let marked: Vec<&str> = offered
                .iter()
                .copied()
                .filter(|m| acts_without_asking(m))
                .collect();
            assert_eq!(marked, unattended);
            assert_eq!(
                starting_mode("x", &offered, &current, None),
                (Some(asks_most.to_string()), None)
            );
            // The person's choice wins where offered; one not offered is said, and the
            // session starts in the one that asks most.
            assert_eq!(
                starting_mode("x", &offered, &current, Some(offered[1])),
                (Some(offered[1].to_string()), None)
            );
            let (mode, note) = starting_mode("x", &offered, &current, Some("fast"));
            assert_eq!(mode.as_deref(), Some(asks_most));
            assert!(
                note.is_some_and(|n| n.starts_with("x offers no mode fast;")),
                "a chosen mode it does not offer is said"
            );
            assert_eq!(starting_mode("x", &offered, asks_most, None), (None, None));
        }
    }

    /// A boolean option as Claude Code's adapter sends it to a client that takes booleans
    /// (`createFastModeConfigOption` in `claude-agent-acp` 0.101.0, offered when the model
    /// has a fast mode; `type: "boolean"`, `currentValue`), and the value a switch of it
    /// carries, which that adapter checks (`Config option fast takes a boolean value`).
    #[test]
    fn a_boolean_option_is_an_on_off_setting_and_its_switch_carries_a_boolean() {
        let options: Vec<SessionConfigOption> = serde_json::from_value(serde_json::json!([
            {"id": "fast", "name": "Fast mode", "type": "boolean", "currentValue": true,
             "description": "Faster responses on supported models", "category": "model_config"},
            {"id": "bad id", "name": "Broken", "type": "boolean", "currentValue": false}
        ]))
        .expect("the schema's shape");
        let settings = Settings::new(None, Some(options));
        let wire = settings.wire();
        assert_eq!(
            wire.len(),
            1,
            "an id that breaks the wire's rule is left off"
        );
        let switch = &wire[0];
        assert_eq!(
            (switch.id.as_str(), switch.current.as_str()),
            ("fast", "true")
        );
        assert_eq!(switch.current_name(), "On");
        let choices: Vec<(&str, &str, bool)> = switch
            .choices
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_str(), c.acts_without_asking))
            .collect();
        assert_eq!(choices, [("true", "On", false), ("false", "Off", false)]);
        let target = settings.target("fast").expect("a target");
        assert_eq!(target, Target::Switch("fast".into()));
        let (id, value) = target.option_value("false").expect("an option");
        assert_eq!(id, "fast");
        assert_eq!(
            serde_json::to_value(value).expect("json"),
            serde_json::json!({"type": "boolean", "value": false})
        );
        let (_, select) = Target::Option("speed".into())
            .option_value("quick")
            .expect("an option");
        assert_eq!(
            serde_json::to_value(select).expect("json"),
            serde_json::json!({"value": "quick"}),
            "a select's value goes as before: no type, a value id"
        );
    }
}
