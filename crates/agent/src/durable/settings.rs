//! A pane's settings and commands on the agent's side (docs/WIRE.md § 4.10, § 5.13, § 5.14):
//! the driver says what they are, a phone chooses a value with `POST /pane/:id/setting`.
//!
//! A world of outside agents (the ACP host) never changes a setting on a phone's word: it
//! passes the choice on (`Happening::SettingChosen`), and the value shown changes only when the
//! agent answered (docs/ACP.md). The reference world is its own agent and takes it at once.

// The error of every route here is the reply body itself, as in `world`.
#![allow(clippy::result_large_err)]

use time::OffsetDateTime;

use super::world::{Happening, World, error};
use crate::wire::{AgentCommand, ErrorBody, ErrorCode, PostReply, Setting, SettingRequest, limits};

impl World {
    /// `POST /pane/:id/setting`: one value of one of the pane's settings.
    pub(crate) fn choose_setting(
        &mut self,
        pane_id: &str,
        request: &SettingRequest,
        _now: OffsetDateTime,
    ) -> Result<PostReply, ErrorBody> {
        let pane = self.pane(pane_id)?;
        if self.outside_agents && self.unheld.contains(pane_id) {
            return Err(error(
                ErrorCode::NoSuchPane,
                "no agent holds this pane any more; start a new one from New",
            ));
        }
        let Some(setting) = pane.settings.iter().find(|s| s.id == request.setting_id) else {
            return Err(error(
                ErrorCode::NoSuchSetting,
                format!("no setting {}", request.setting_id),
            ));
        };
        if !setting.choices.iter().any(|c| c.id == request.value) {
            return Err(error(
                ErrorCode::BadRequest,
                format!("{} is not a choice of {}", request.value, setting.id),
            ));
        }
        let unchanged = setting.current == request.value;
        if !unchanged {
            if self.outside_agents {
                self.happenings.push(Happening::SettingChosen {
                    pane: pane_id.to_string(),
                    setting_id: request.setting_id.clone(),
                    value: request.value.clone(),
                });
            } else {
                self.set_current(pane_id, &request.setting_id, &request.value);
            }
        }
        Ok(PostReply::ok(&request.request_id))
    }

    /// Sets a pane's settings as its agent said them, capped (SPEC L).
    pub fn set_settings(&mut self, pane_id: &str, mut settings: Vec<Setting>) {
        settings.truncate(limits::MAX_SETTINGS);
        if let Some(pane) = self.layout.panes.get_mut(pane_id)
            && pane.settings != settings
        {
            pane.settings = settings;
            self.touch();
        }
    }

    /// Sets the value in effect of one setting, as the agent said it.
    pub(crate) fn set_current(&mut self, pane_id: &str, setting_id: &str, value: &str) {
        if let Some(setting) = self
            .layout
            .panes
            .get_mut(pane_id)
            .and_then(|p| p.settings.iter_mut().find(|s| s.id == setting_id))
            && setting.current != value
        {
            setting.current = value.to_string();
            self.touch();
        }
    }

    /// A pane's settings, to read one.
    pub fn settings(&self, pane_id: &str) -> &[Setting] {
        self.layout
            .panes
            .get(pane_id)
            .map_or(&[][..], |p| &p.settings[..])
    }

    /// Sets every command a pane's agent takes, capped (SPEC L).
    /// The pane's usage, as the agent last said it (docs/WIRE.md § 5.15).
    pub fn set_usage(&mut self, pane_id: &str, usage: crate::wire::Usage) {
        if let Some(pane) = self.layout.panes.get_mut(pane_id)
            && pane.usage.as_ref() != Some(&usage)
        {
            pane.usage = Some(usage);
            self.touch();
        }
    }

    /// The agent titled its session: the pane and its conversation take the title, cleaned
    /// and cut (SPEC L1) by the host before it comes here.
    pub fn retitle(&mut self, pane_id: &str, title: &str) {
        let Some(pane) = self.layout.panes.get_mut(pane_id) else {
            return;
        };
        if title.is_empty() || pane.title == title {
            return;
        }
        pane.title = title.to_string();
        let conversation = pane.conversation_id.clone();
        if let Some(conversation) = self.layout.conversations.get_mut(&conversation) {
            conversation.title = title.to_string();
        }
        self.touch();
    }

    pub fn set_commands(&mut self, pane_id: &str, mut commands: Vec<AgentCommand>) {
        commands.truncate(limits::MAX_COMMANDS);
        if let Some(pane) = self.layout.panes.get_mut(pane_id)
            && pane.commands != commands
        {
            pane.commands = commands;
            self.touch();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::durable::world::Layout;
    use crate::wire::SettingChoice;

    fn mode() -> Setting {
        Setting {
            id: "mode".into(),
            name: "Mode".into(),
            description: None,
            current: "ask".into(),
            choices: ["ask", "plan"]
                .iter()
                .map(|id| SettingChoice {
                    id: id.to_string(),
                    name: id.to_string(),
                    description: None,
                    acts_without_asking: false,
                })
                .collect(),
        }
    }

    fn world(outside: bool) -> (World, String) {
        let now = OffsetDateTime::UNIX_EPOCH;
        let mut world = World::new(Layout::default(), true);
        world.outside_agents = outside;
        let workspace = world.add_workspace("W");
        let tab = world.add_tab(&workspace, "T").expect("a tab");
        let pane = world
            .add_pane(&workspace, &tab, "P", Vec::new(), now)
            .expect("a pane");
        world.set_settings(&pane, vec![mode()]);
        (world, pane)
    }

    fn choose(setting: &str, value: &str) -> SettingRequest {
        SettingRequest {
            request_id: "r-1".into(),
            setting_id: setting.into(),
            value: value.into(),
        }
    }

    #[test]
    fn a_hosted_pane_passes_the_choice_on_and_keeps_its_value_until_the_agent_answers() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let (mut world, pane) = world(true);
        world.take_happenings();
        world
            .choose_setting(&pane, &choose("mode", "plan"), now)
            .expect("ok");
        assert_eq!(world.settings(&pane)[0].current, "ask");
        assert_eq!(
            world.take_happenings(),
            vec![Happening::SettingChosen {
                pane: pane.clone(),
                setting_id: "mode".into(),
                value: "plan".into()
            }]
        );
        let unknown = world
            .choose_setting(&pane, &choose("speed", "fast"), now)
            .expect_err("no such setting");
        assert_eq!(unknown.code, ErrorCode::NoSuchSetting);
        let bad = world
            .choose_setting(&pane, &choose("mode", "yolo"), now)
            .expect_err("not a choice");
        assert_eq!(bad.code, ErrorCode::BadRequest);
    }

    #[test]
    fn the_reference_world_takes_a_choice_at_once() {
        let (mut world, pane) = world(false);
        world
            .choose_setting(&pane, &choose("mode", "plan"), OffsetDateTime::UNIX_EPOCH)
            .expect("ok");
        assert_eq!(world.settings(&pane)[0].current, "plan");
        assert_eq!(
            world.snapshot().pane(&pane).expect("pane").settings[0].current,
            "plan"
        );
    }
}
