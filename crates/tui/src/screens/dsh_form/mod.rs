//! The New page's form for a DSH bridge (SPEC D3): a task (`tasks/create`) in a workspace with a
//! title, an objective, a preset `/capabilities` lists, a model of the catalog and one of the
//! efforts that model declares, or adopting a session of that workspace; or a workspace to
//! register by its absolute path (`/workspaces/create`) where the token may. Everything is
//! checked here before it is sent, and the receipt of what was sent stays on the form.

pub(crate) mod keys;

pub(crate) mod draw;

use crossterm::event::{KeyCode, KeyEvent};

use crate::app::keymap::{Action, Context};
use crate::app::list::{Filter, step_around};
use crate::app::phone::Phone;
use crate::app::{Command, typing};
use crate::dsh_wire::{ModelConfig, limits};
use crate::engine::dsh::pane::session_of_pane;
use crate::engine::{IntentKind, IntentRecord};
pub(crate) use crate::model::dsh_state::DshPurpose;
use crate::model::dsh_state::{DshView, ModelChoice};
use crate::model::editor::Editor;
use crate::model::intents;
use crate::model::news::Heard;
use crate::screens::room::{Heeded, Room};

/// One field of a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DshField {
    Workspace,
    Session,
    Title,
    Objective,
    Preset,
    Model,
    Effort,
    Path,
    WorkspaceTitle,
}

impl DshField {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Workspace => "Workspace",
            Self::Session => "Session",
            Self::Title => "Title",
            Self::Objective => "Objective",
            Self::Preset => "Preset",
            Self::Model => "Model",
            Self::Effort => "Effort",
            Self::Path => "Path",
            Self::WorkspaceTitle => "Title",
        }
    }

    pub(crate) fn is_text(self) -> bool {
        matches!(
            self,
            Self::Title | Self::Objective | Self::Path | Self::WorkspaceTitle
        )
    }
}

const TASK_FIELDS: [DshField; 7] = [
    DshField::Workspace,
    DshField::Session,
    DshField::Title,
    DshField::Objective,
    DshField::Preset,
    DshField::Model,
    DshField::Effort,
];
const REGISTER_FIELDS: [DshField; 2] = [DshField::Path, DshField::WorkspaceTitle];

/// A row the New page offers for a bridge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DshNewRow {
    pub(crate) agent: String,
    pub(crate) purpose: DshPurpose,
    pub(crate) title: String,
    pub(crate) description: String,
}

/// The form's state.
#[derive(Debug, Clone)]
pub struct DshFormScreen {
    pub(crate) agent: String,
    pub(crate) purpose: DshPurpose,
    /// The focused field's index in [`DshFormScreen::fields`].
    pub(crate) field: usize,
    /// Index into the bridge's workspaces.
    pub(crate) workspace: usize,
    /// 0 = a new session, n = the n-th session of the workspace no task follows.
    pub(crate) session: usize,
    pub(crate) title: Editor,
    pub(crate) objective: Editor,
    /// 0 = the desktop's default, n = the n-th listed preset.
    pub(crate) preset: usize,
    /// 0 = the catalog's default, n = the n-th model of the catalog.
    pub(crate) model: usize,
    /// 0 = the model's default, n = the n-th effort the chosen model declares.
    pub(crate) effort: usize,
    pub(crate) path: Editor,
    pub(crate) workspace_title: Editor,
    /// Why the last submit was not sent, in the phone's words.
    pub(crate) problem: Option<String>,
    /// What was sent last, to find its receipt.
    pub(crate) sent: Option<IntentKind>,
}

impl DshFormScreen {
    pub(crate) fn new(agent: &str, purpose: DshPurpose) -> Self {
        Self {
            agent: agent.to_string(),
            purpose,
            field: 0,
            workspace: 0,
            session: 0,
            title: Editor::default(),
            objective: Editor::default(),
            preset: 0,
            model: 0,
            effort: 0,
            path: Editor::default(),
            workspace_title: Editor::default(),
            problem: None,
            sent: None,
        }
    }

    pub(crate) fn fields(&self) -> &'static [DshField] {
        match self.purpose {
            DshPurpose::Task => &TASK_FIELDS,
            DshPurpose::Register => &REGISTER_FIELDS,
        }
    }

    pub(crate) fn focused(&self) -> DshField {
        let fields = self.fields();
        fields[self.field.min(fields.len() - 1)]
    }

    fn editor_mut(&mut self, field: DshField) -> Option<&mut Editor> {
        match field {
            DshField::Title => Some(&mut self.title),
            DshField::Objective => Some(&mut self.objective),
            DshField::Path => Some(&mut self.path),
            DshField::WorkspaceTitle => Some(&mut self.workspace_title),
            _ => None,
        }
    }

    pub(crate) fn editor(&self, field: DshField) -> Option<&Editor> {
        match field {
            DshField::Title => Some(&self.title),
            DshField::Objective => Some(&self.objective),
            DshField::Path => Some(&self.path),
            DshField::WorkspaceTitle => Some(&self.workspace_title),
            _ => None,
        }
    }
}

/// The options of the form's choice fields as the bridge offers them now.
#[derive(Debug, Clone, Default)]
pub(crate) struct DshChoices {
    /// (workspace id, title, path, status word)
    pub(crate) workspaces: Vec<(String, String, String, String)>,
    /// (session id, title) of the chosen workspace's sessions no task follows.
    pub(crate) sessions: Vec<(String, String)>,
    /// (preset id, title)
    pub(crate) presets: Vec<(String, Option<String>)>,
    pub(crate) models: Vec<ModelChoice>,
    pub(crate) default_model: Option<String>,
}

impl DshChoices {
    /// The chosen model's efforts (none when the catalog's default is kept).
    pub(crate) fn efforts(&self, form: &DshFormScreen) -> Vec<String> {
        form.model
            .checked_sub(1)
            .and_then(|i| self.models.get(i))
            .map(|m| m.efforts.clone())
            .unwrap_or_default()
    }

    /// How many options a choice field has (its first is the default where there is one).
    pub(crate) fn count(&self, form: &DshFormScreen, field: DshField) -> usize {
        match field {
            DshField::Workspace => self.workspaces.len(),
            DshField::Session => self.sessions.len() + 1,
            DshField::Preset => self.presets.len() + 1,
            DshField::Model => self.models.len() + 1,
            DshField::Effort => self.efforts(form).len() + 1,
            _ => 0,
        }
    }

    /// The words of a choice field's current option.
    pub(crate) fn shown(&self, form: &DshFormScreen, field: DshField) -> String {
        match field {
            DshField::Workspace => match self.workspaces.get(form.workspace) {
                Some((id, title, _, status)) => {
                    let status = if status == "ok" {
                        String::new()
                    } else {
                        format!(" [{status}]")
                    };
                    format!("{title} ({id}){status}")
                }
                None => "none: the bridge lists no workspace for this token".into(),
            },
            DshField::Session => match form.session.checked_sub(1) {
                None => "a new session".into(),
                Some(i) => self.sessions.get(i).map_or_else(
                    || "a new session".into(),
                    |(id, title)| format!("adopt “{title}” ({id})"),
                ),
            },
            DshField::Preset => match form.preset.checked_sub(1) {
                None => "the desktop's default".into(),
                Some(i) => self.presets.get(i).map_or_else(
                    || "the desktop's default".into(),
                    |(id, title)| match title {
                        Some(title) => format!("{id} ({title})"),
                        None => id.clone(),
                    },
                ),
            },
            DshField::Model => match form.model.checked_sub(1) {
                None => match &self.default_model {
                    Some(default) => format!("the catalog's default, {default}"),
                    None => "the catalog's default".into(),
                },
                Some(i) => self
                    .models
                    .get(i)
                    .map_or_else(|| "the catalog's default".into(), ModelChoice::label),
            },
            DshField::Effort => {
                let efforts = self.efforts(form);
                match form.effort.checked_sub(1) {
                    None if form.model == 0 => "the default model's own".into(),
                    None if efforts.is_empty() => "none: this model declares no effort".into(),
                    None => format!("the model's default (it declares {})", efforts.join(", ")),
                    Some(i) => efforts
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| "the model's default".into()),
                }
            }
            _ => String::new(),
        }
    }
}

/// The New page's rows for bridges: a task on each, and registering a workspace where the
/// token may (`capabilities.workspaces.create`).
pub(crate) fn dsh_new_rows(phone: &Phone, filter: &Filter) -> Vec<DshNewRow> {
    let mut rows = Vec::new();
    for agent in &phone.agents().list {
        let Some(view) = phone.dsh_view(&agent.name) else {
            continue;
        };
        rows.push(DshNewRow {
            agent: agent.name.clone(),
            purpose: DshPurpose::Task,
            title: "New task…".into(),
            description: "tasks/create in a workspace, or adopt one of its sessions".into(),
        });
        if view.may_register() {
            rows.push(DshNewRow {
                agent: agent.name.clone(),
                purpose: DshPurpose::Register,
                title: "Register a workspace…".into(),
                description: "an existing directory, by its absolute path".into(),
            });
        }
    }
    rows.retain(|row| filter.matches(&format!("{} {} {}", row.agent, row.title, row.description)));
    rows
}

/// The options of a form, from the bridge's capabilities, workspaces and layout.
pub(crate) fn dsh_choices(phone: &Phone, form: &DshFormScreen) -> DshChoices {
    let Some(view) = phone.dsh_view(&form.agent) else {
        return DshChoices::default();
    };
    let workspaces: Vec<(String, String, String, String)> = view
        .workspace_list()
        .iter()
        .map(|w| {
            (
                w.workspace_id.clone(),
                w.title.clone(),
                w.path.clone(),
                w.status.as_str().to_string(),
            )
        })
        .collect();
    let sessions = workspaces
        .get(form.workspace)
        .map(|(id, ..)| dsh_sessions(phone, &form.agent, id))
        .unwrap_or_default();
    DshChoices {
        workspaces,
        sessions,
        presets: view.presets(),
        models: view.models(),
        default_model: view.default_model(),
    }
}

/// The sessions of a workspace no task follows: the panes of its "sessions" tab.
fn dsh_sessions(phone: &Phone, agent: &str, workspace_id: &str) -> Vec<(String, String)> {
    phone
        .agents()
        .get(agent)
        .map(|a| a.panes())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.workspace.id == workspace_id)
        .filter_map(|p| {
            session_of_pane(&p.pane.id).map(|id| (id.to_string(), p.pane.title.clone()))
        })
        .collect()
}

/// The receipt of what the form sent last.
pub(crate) fn dsh_form_receipt<'a>(
    phone: &'a Phone,
    form: &DshFormScreen,
) -> Option<&'a IntentRecord> {
    let sent = form.sent.as_ref()?;
    phone
        .intents()
        .latest(|r| r.agent == form.agent && r.kind == *sent)
}

pub(crate) fn dsh_form_pending(phone: &Phone, form: &DshFormScreen) -> bool {
    form.sent.as_ref().is_some_and(|sent| {
        phone
            .intents()
            .is_pending(|agent, kind| agent == form.agent && kind == sent)
    })
}

/// The form's state is boxed in the stack of screens (it is much larger than the others).
impl Room for Box<DshFormScreen> {
    /// The task this form started is here: the form gives way to it (SPEC A17). A bridge
    /// intent's trouble shows in the form's receipt.
    fn heard(&self, _phone: &Phone, news: &Heard) -> Heeded {
        match news {
            Heard::PaneReady { .. } => Heeded::Leave,
            Heard::Trouble { kind, .. } if kind.is_dsh() => Heeded::ShownHere,
            _ => Heeded::Nothing,
        }
    }

    fn key_parts() -> &'static [Context] {
        &[keys::FORM]
    }

    fn keys(&self, _phone: &Phone) -> Context {
        keys::FORM
    }

    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        let count = self.fields().len();
        match action {
            Action::Back => phone.back(),
            Action::NextField | Action::PrevField => {
                self.field = step_around(self.field, count, action == Action::NextField);
                Vec::new()
            }
            Action::Submit => self.submit(phone),
            Action::Retry => {
                let retry = dsh_form_receipt(phone, self)
                    .filter(|r| intents::is_retryable(r))
                    .map(|r| r.request_id.clone());
                match retry {
                    Some(request_id) => phone.retry(&request_id),
                    None => {
                        phone.show_toast("Nothing here needs a resend.", false);
                        Vec::new()
                    }
                }
            }
            _ => Vec::new(),
        }
    }

    fn typed(&mut self, phone: &mut Phone, key: &KeyEvent) {
        let field = self.focused();
        if field.is_text() {
            if let Some(editor) = self.editor_mut(field) {
                typing::edit(editor, key, typing::Shape::OneLine);
                self.problem = None;
            }
            return;
        }
        let forward = match key.code {
            KeyCode::Left => false,
            KeyCode::Right | KeyCode::Char(' ') => true,
            _ => return,
        };
        let choices = dsh_choices(phone, self);
        let count = choices.count(self, field);
        if count == 0 {
            return;
        }
        {
            let slot = match field {
                DshField::Workspace => &mut self.workspace,
                DshField::Session => &mut self.session,
                DshField::Preset => &mut self.preset,
                DshField::Model => &mut self.model,
                DshField::Effort => &mut self.effort,
                _ => return,
            };
            *slot = step_around(*slot, count, forward);
            // Another workspace has other sessions; another model other efforts.
            match field {
                DshField::Workspace => self.session = 0,
                DshField::Model => self.effort = 0,
                _ => {}
            }
            self.problem = None;
        }
    }

    fn paste(&mut self, _phone: &mut Phone, text: &str) {
        {
            let field = self.focused();
            if let Some(editor) = self.editor_mut(field) {
                typing::paste(editor, text, false);
            }
        }
    }
}

impl DshFormScreen {
    fn submit(&mut self, phone: &mut Phone) -> Vec<Command> {
        let in_flight = dsh_form_pending(phone, self)
            || dsh_form_receipt(phone, self).is_some_and(|r| intents::is_in_flight(&r.state));
        if in_flight {
            phone.show_toast("Still sending…", false);
            return Vec::new();
        }
        let built = match phone.dsh_view(&self.agent) {
            Some(view) => build(self, view, &dsh_choices(phone, self)),
            None => Err(format!("{} is not a DSH bridge.", self.agent)),
        };
        let agent = self.agent.clone();
        match built {
            Ok(kind) => {
                {
                    self.problem = None;
                    self.sent = Some(kind.clone());
                }
                phone.submit(&agent, kind)
            }
            Err(problem) => {
                {
                    self.problem = Some(problem);
                }
                Vec::new()
            }
        }
    }
}

fn optional(editor: &Editor) -> Option<String> {
    let text = editor.text().trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// The intent of a filled-in form, or what is wrong with it, in the phone's words.
pub(crate) fn build(
    form: &DshFormScreen,
    view: &DshView,
    choices: &DshChoices,
) -> Result<IntentKind, String> {
    match form.purpose {
        DshPurpose::Register => {
            if !view.may_register() {
                return Err("This token may not register workspaces: the bridge's capabilities say so. A token for all workspaces with allowWorkspaceCreate may.".into());
            }
            let path = form.path.text().trim().to_string();
            if path.is_empty() {
                return Err("Type the directory's full path, e.g. /home/you/project.".into());
            }
            if !path.starts_with('/') {
                return Err(format!(
                    "“{path}” is not a full path: it must start with /. The bridge registers a directory only by its absolute path."
                ));
            }
            Ok(IntentKind::DshRegisterWorkspace {
                path,
                title: optional(&form.workspace_title),
            })
        }
        DshPurpose::Task => {
            let Some((workspace_id, ..)) = choices.workspaces.get(form.workspace) else {
                return Err("The bridge lists no workspace this token may use: register one, or use a token whose scope covers one.".into());
            };
            let objective = optional(&form.objective);
            if let Some(objective) = &objective {
                let chars = objective.chars().count();
                if chars > limits::MAX_TASK_TEXT_CHARS {
                    return Err(format!(
                        "The objective is {chars} characters; the bridge takes at most {}. Shorten it.",
                        limits::MAX_TASK_TEXT_CHARS
                    ));
                }
            }
            let adopted = match form.session.checked_sub(1) {
                None => None,
                Some(i) => Some(
                    choices
                        .sessions
                        .get(i)
                        .ok_or("That session is gone from the workspace; choose again.")?,
                ),
            };
            let adopt_session = adopted.map(|(id, _)| id.clone());
            // An adopted session keeps the name the form showed for it, unless the person
            // typed another: the bridge would otherwise name the task by its id.
            let title = optional(&form.title).or_else(|| {
                adopted
                    .map(|(_, title)| title.trim().to_string())
                    .filter(|t| !t.is_empty())
            });
            let preset =
                match form.preset.checked_sub(1) {
                    None => None,
                    Some(i) => {
                        Some(choices.presets.get(i).map(|(id, _)| id.clone()).ok_or(
                            "That preset is no longer listed by the bridge; choose again.",
                        )?)
                    }
                };
            let model = match form.model.checked_sub(1) {
                None => None,
                Some(i) => {
                    let chosen = choices
                        .models
                        .get(i)
                        .ok_or("That model is no longer in the catalog; choose again.")?;
                    let reasoning_effort = match form.effort.checked_sub(1) {
                        None => None,
                        Some(e) => Some(chosen.efforts.get(e).cloned().ok_or_else(|| {
                            format!(
                                "{} declares no such effort; it declares {}.",
                                chosen.label(),
                                if chosen.efforts.is_empty() {
                                    "none".to_string()
                                } else {
                                    chosen.efforts.join(", ")
                                }
                            )
                        })?),
                    };
                    Some(Box::new(ModelConfig {
                        provider: Some(chosen.provider.clone()),
                        model: Some(chosen.model.clone()),
                        reasoning_effort,
                    }))
                }
            };
            Ok(IntentKind::DshCreate {
                workspace_id: workspace_id.clone(),
                title,
                objective,
                preset,
                model,
                adopt_session,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn view(create: bool) -> DshView {
        let capabilities = serde_json::from_value(serde_json::json!({
            "capabilities": {"workspaces": {"list": true, "create": create}},
            "agentPresets": [{"id": "standard"}, {"id": "ptc"}],
            "modelCatalog": {"groups": [{"provider": "p", "models": [
                {"id": "fast", "reasoning": {"efforts": ["low", "high"]}},
                {"id": "plain"}
            ]}]}
        }))
        .expect("capabilities");
        DshView {
            capabilities: Some(Arc::new(capabilities)),
            ..DshView::default()
        }
    }

    fn choices(view: &DshView) -> DshChoices {
        DshChoices {
            workspaces: vec![("ws-1".into(), "一".into(), "/w".into(), "ok".into())],
            sessions: vec![("s-1".into(), "old".into())],
            presets: view.presets(),
            models: view.models(),
            default_model: None,
        }
    }

    #[test]
    fn d3_create_takes_only_listed_presets_and_declared_efforts() {
        let view = view(false);
        let choices = choices(&view);
        let mut form = DshFormScreen::new("dsh", DshPurpose::Task);
        form.preset = 2;
        form.model = 1;
        form.effort = 2;
        form.session = 1;
        let Ok(IntentKind::DshCreate {
            preset,
            model,
            adopt_session,
            workspace_id,
            title,
            ..
        }) = build(&form, &view, &choices)
        else {
            panic!("a create")
        };
        // No title typed: the adopted session's name, not its id, names the task.
        assert_eq!(title.as_deref(), Some("old"));
        assert_eq!(preset.as_deref(), Some("ptc"));
        assert_eq!(workspace_id, "ws-1");
        assert_eq!(adopt_session.as_deref(), Some("s-1"));
        let model = model.expect("a model");
        assert_eq!(model.reasoning_effort.as_deref(), Some("high"));
        // The second model declares no effort, so no effort can be chosen for it.
        form.model = 2;
        assert_eq!(choices.count(&form, DshField::Effort), 1);
        form.effort = 1;
        assert!(build(&form, &view, &choices).is_err());
    }

    #[test]
    fn d3_register_needs_the_capability_and_an_absolute_path() {
        let mut form = DshFormScreen::new("dsh", DshPurpose::Register);
        form.path = Editor::from_text("/srv/project");
        let refused = build(&form, &view(false), &DshChoices::default());
        assert!(
            refused
                .expect_err("no capability")
                .contains("may not register")
        );
        form.path = Editor::from_text("project");
        let relative = build(&form, &view(true), &DshChoices::default());
        assert!(relative.expect_err("relative").contains("full path"));
        form.path = Editor::from_text("/srv/project");
        assert!(build(&form, &view(true), &DshChoices::default()).is_ok());
    }
}
