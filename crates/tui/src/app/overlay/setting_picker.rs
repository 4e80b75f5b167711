//! The settings picker over a pane: its agent's mode and options from the keyboard
//! (docs/WIRE.md § 5.13, docs/KEYS.md), and the explicit yes a choice that lets the agent act
//! without asking needs first, as Allow always does (docs/ACP.md, "Modes, options and
//! commands"). It floats, so it is the phone's; the value shown changes only when the agent
//! said yes: the snapshot says it.

use crate::app::Command;
use crate::app::keymap::Action;
use crate::app::overlay::{About, Deferred, Overlay, SettingPicker};
use crate::app::phone::Phone;
use crate::engine::IntentKind;
use crate::wire::Setting;

impl Phone {
    /// The pane's settings, as the last snapshot has them.
    pub(crate) fn pane_settings(&self, agent: &str, pane: &str) -> Vec<Setting> {
        self.agents()
            .pane(agent, pane)
            .map(|p| p.pane.settings.clone())
            .unwrap_or_default()
    }

    /// Opens the picker on the pane's first setting, its choice in effect lit.
    pub(crate) fn open_settings(&mut self, agent: &str, pane: &str) -> Vec<Command> {
        let settings = self.pane_settings(agent, pane);
        let Some(first) = settings.first() else {
            self.show_toast(
                format!("{agent} offers no mode or option to switch in this pane."),
                false,
            );
            return Vec::new();
        };
        self.overlay = Some(Overlay::Setting(SettingPicker {
            agent: agent.to_string(),
            pane: pane.to_string(),
            setting: 0,
            selected: lit(first),
        }));
        Vec::new()
    }

    /// The picker's keys.
    pub(crate) fn setting_picker_key(&mut self, action: Option<Action>) -> Vec<Command> {
        let Some(Overlay::Setting(mut picker)) = self.overlay.clone() else {
            return Vec::new();
        };
        let settings = self.pane_settings(&picker.agent, &picker.pane);
        let Some(setting) = settings.get(picker.setting) else {
            // The agent took the setting away since: nothing to choose from.
            self.overlay = None;
            self.show_toast(
                "This setting is gone from the pane; nothing was switched.",
                false,
            );
            return Vec::new();
        };
        let count = setting.choices.len();
        // The agent may have fewer choices than when the picker opened.
        picker.selected = picker.selected.min(count.saturating_sub(1));
        let chosen = match action {
            Some(Action::Up) if count > 0 => {
                picker.selected = picker.selected.checked_sub(1).unwrap_or(count - 1);
                None
            }
            Some(Action::Down) if count > 0 => {
                picker.selected = (picker.selected + 1) % count;
                None
            }
            Some(Action::NextField | Action::PrevField) => {
                let n = settings.len();
                picker.setting = if action == Some(Action::NextField) {
                    (picker.setting + 1) % n
                } else {
                    picker.setting.checked_sub(1).unwrap_or(n - 1)
                };
                picker.selected = lit(&settings[picker.setting]);
                None
            }
            // A number lights its choice and Enter switches, as on a card: a number never
            // acts at once, so the Enter after it cannot reach the pane below (docs/KEYS.md).
            Some(Action::Pick(n)) if (1..=count).contains(&usize::from(n)) => {
                let index = usize::from(n) - 1;
                // The key is never silent: lit already, it says what switches.
                if picker.selected == index
                    && let Some(choice) = setting.choices.get(index)
                {
                    let enter = self
                        .keymap()
                        .key_label(super::keys::SETTING_PICKER, Action::Confirm)
                        .unwrap_or_else(|| "Enter".into());
                    self.show_toast(
                        format!("“{}” is lit: {enter} switches to it.", choice.name),
                        false,
                    );
                }
                picker.selected = index;
                None
            }
            Some(Action::Pick(n)) => {
                self.show_toast(
                    format!(
                        "{} has {count} choices; there is no choice {n}.",
                        setting.name
                    ),
                    false,
                );
                None
            }
            Some(Action::Confirm) => Some(picker.selected),
            Some(Action::Cancel) => {
                self.overlay = None;
                return Vec::new();
            }
            _ => None,
        };
        let Some(index) = chosen else {
            self.overlay = Some(Overlay::Setting(picker));
            return Vec::new();
        };
        self.overlay = None;
        let Some(choice) = setting.choices.get(index) else {
            return Vec::new();
        };
        let (agent, pane) = (picker.agent, picker.pane);
        if choice.id == setting.current {
            self.show_toast(
                format!("{} is {} already.", setting.name, choice.name),
                false,
            );
            return Vec::new();
        }
        let kind = IntentKind::Setting {
            pane: pane.clone(),
            setting_id: setting.id.clone(),
            value: choice.id.clone(),
        };
        if !choice.acts_without_asking {
            return self.submit(&agent, kind);
        }
        // The question stands alone: an older message would speak of another moment.
        self.footer.clear();
        let what = choice
            .description
            .as_deref()
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        let question = format!(
            "Switch {} to “{}”? The agent acts without asking you in it: it runs commands and changes files with no permission card first{what}. Until you switch back, nothing it does waits for your answer.",
            setting.name, choice.name
        );
        self.overlay = Some(Overlay::confirm_unattended(
            question,
            Deferred::Submit {
                agent: agent.clone(),
                kind,
            },
            About::Setting {
                agent,
                pane,
                setting: setting.id.clone(),
                value: choice.id.clone(),
            },
            self.now(),
        ));
        Vec::new()
    }

    /// Why the picker is over, if it is: the setting it shows is gone from the pane.
    pub(crate) fn setting_picker_over(&self, picker: &SettingPicker) -> Option<String> {
        let settings = self.pane_settings(&picker.agent, &picker.pane);
        settings.get(picker.setting).is_none().then(|| {
            format!(
                "{} no longer offers that setting; nothing was switched.",
                picker.agent
            )
        })
    }

    /// Why the question about switching to `value` is over, if it is: the pane no longer
    /// offers it, or the agent is in it already.
    pub(crate) fn setting_question_over(
        &self,
        agent: &str,
        pane: &str,
        setting: &str,
        value: &str,
    ) -> Option<String> {
        let settings = self.pane_settings(agent, pane);
        let offered = settings
            .iter()
            .find(|s| s.id == setting)
            .filter(|s| s.choices.iter().any(|c| c.id == value));
        match offered {
            None => Some(format!(
                "{agent} no longer offers that choice; nothing was switched."
            )),
            Some(s) if s.current == value => Some(format!(
                "{agent} is in “{}” already; nothing was switched.",
                s.current_name()
            )),
            Some(_) => None,
        }
    }
}

/// The place of the choice in effect, the one the picker lights first.
fn lit(setting: &Setting) -> usize {
    setting
        .choices
        .iter()
        .position(|c| c.id == setting.current)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lit_is_the_choice_in_effect() {
        let setting: Setting = serde_json::from_value(serde_json::json!({
            "id": "mode", "name": "Mode", "current": "plan",
            "choices": [{"id": "ask", "name": "Ask"}, {"id": "plan", "name": "Plan"}]
        }))
        .expect("a setting");
        assert_eq!(lit(&setting), 1);
    }
}
