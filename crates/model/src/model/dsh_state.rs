//! What the screens keep of each DSH bridge beyond its panes (SPEC D): the desktop's health,
//! what `/capabilities` offers (presets, model catalog, whether a workspace may be registered),
//! the workspaces and tasks, desktop reloads, tasks the engine stopped addressing, and the
//! person's choice of message kind and mode per pane.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::dsh_wire::{
    AppendKind, AppendMode, Capabilities, Health, TaskView, Unread, Workspace, WorkspaceList,
};
use crate::engine::dsh::DshChange;
use crate::engine::dsh::pane::session_of_pane;

/// What a bridge's form on the New page makes: a task, or a registered workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DshPurpose {
    Task,
    Register,
}

/// Reloads kept to show; older ones only matter to the log.
const RELOADS_KEPT: usize = 4;

/// How the next message of one pane goes (seed POST /tasks/append): instruction and queue
/// unless the person chose otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendPrefs {
    pub kind: AppendKind,
    pub mode: AppendMode,
}

impl Default for SendPrefs {
    fn default() -> Self {
        Self {
            kind: AppendKind::Instruction,
            mode: AppendMode::Queue,
        }
    }
}

/// One model of the catalog as a choice: its provider, id and declared efforts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    pub provider: String,
    pub model: String,
    pub efforts: Vec<String>,
}

impl ModelChoice {
    pub fn label(&self) -> String {
        format!("{}/{}", self.provider, self.model)
    }
}

/// One bridge as its own screens see it.
#[derive(Debug, Clone, Default)]
pub struct DshView {
    pub health: Option<Arc<Health>>,
    pub capabilities: Option<Arc<Capabilities>>,
    pub workspaces: Option<Arc<WorkspaceList>>,
    pub tasks: Arc<Vec<TaskView>>,
    /// Desktop reloads seen, oldest first: (old pid, new pid).
    pub reloads: Vec<(u64, u64)>,
    /// Tasks the engine no longer addresses (session/workspace-mismatch), with why.
    pub stopped: BTreeMap<String, String>,
    /// The message kind and mode chosen per pane.
    pub prefs: HashMap<String, SendPrefs>,
    /// What could not be read of the bridge's replies, by route, to say on screen (docs/DSH.md,
    /// "How the phone reads a bridge").
    pub unread: Arc<BTreeMap<String, Vec<Unread>>>,
}

impl DshView {
    pub fn apply(&mut self, change: DshChange) {
        match change {
            DshChange::Health(health) => self.health = Some(health),
            DshChange::Capabilities(capabilities) => self.capabilities = Some(capabilities),
            DshChange::Workspaces(list) => self.workspaces = Some(list),
            DshChange::Tasks(tasks) => self.tasks = tasks,
            DshChange::DesktopReloaded { old_pid, new_pid } => {
                self.reloads.push((old_pid, new_pid));
                let extra = self.reloads.len().saturating_sub(RELOADS_KEPT);
                self.reloads.drain(..extra);
            }
            DshChange::TaskStopped(stopped) => {
                self.stopped.insert(stopped.task_id, stopped.why);
            }
            DshChange::Unread(unread) => self.unread = unread,
        }
    }

    /// The open task a pane shows (pane id = task id), if it is one.
    pub fn task(&self, pane: &str) -> Option<&TaskView> {
        self.tasks.iter().find(|t| t.task_id == pane)
    }

    /// Tasks that are not closed (the real bridge lists closed ones too).
    pub fn open_tasks(&self) -> usize {
        self.tasks
            .iter()
            .filter(|t| t.status != crate::dsh_wire::TaskStatus::Closed)
            .count()
    }

    /// True for a pane of a desktop session no task follows (read-only until adopted).
    pub fn is_session_pane(pane: &str) -> bool {
        session_of_pane(pane).is_some()
    }

    /// Sentences for the person about what the bridge sent that could not be read or is not
    /// available, the catalog and presets first: what was left out, and what that means.
    pub fn unread_sentences(&self) -> Vec<String> {
        let mut out = Vec::new();
        let capabilities = self.capabilities.as_deref();
        if let Some(reason) = capabilities.and_then(|c| c.model_catalog.unavailable.as_deref()) {
            out.push(format!(
                "The desktop has no model catalog now ({reason}); models are not offered."
            ));
        }
        for (route, parts) in self.unread.iter() {
            let whole = parts
                .iter()
                .find(|p| p.path == crate::engine::dsh::UNREADABLE);
            if route == crate::dsh_wire::routes::CAPABILITIES {
                if let Some(whole) = whole {
                    out.push(format!(
                        "The capabilities could not be read: {}; presets and models are not offered.",
                        whole.why
                    ));
                    continue;
                }
                let under = |prefix: &str| -> Vec<&Unread> {
                    parts
                        .iter()
                        .filter(|p| p.path.starts_with(prefix))
                        .collect()
                };
                let catalog = under("value.modelCatalog");
                let presets = under("value.agentPresets");
                if !catalog.is_empty() {
                    out.push(format!(
                        "The model catalog could not be read whole: {}; models left out are not offered.",
                        list_parts(&catalog)
                    ));
                }
                if !presets.is_empty() {
                    out.push(format!(
                        "The agent presets could not be read whole: {}; presets left out are not offered.",
                        list_parts(&presets)
                    ));
                }
                let rest: Vec<&Unread> = parts
                    .iter()
                    .filter(|p| {
                        !p.path.starts_with("value.modelCatalog")
                            && !p.path.starts_with("value.agentPresets")
                    })
                    .collect();
                if !rest.is_empty() {
                    out.push(format!(
                        "Part of the capabilities could not be read and was left out: {}.",
                        list_parts(&rest)
                    ));
                }
            } else {
                let all: Vec<&Unread> = parts.iter().collect();
                out.push(format!(
                    "Part of the bridge's {route} reply could not be read and was left out: {}.",
                    list_parts(&all)
                ));
            }
        }
        out
    }

    /// One short sentence for Home when something could not be read: which replies, and
    /// where the whole story is (the New page and the log).
    pub fn unread_summary(&self) -> Option<String> {
        let catalog_gone = self
            .capabilities
            .as_deref()
            .is_some_and(|c| c.model_catalog.unavailable.is_some());
        if self.unread.is_empty() && !catalog_gone {
            return None;
        }
        let mut what: Vec<String> = self
            .unread
            .iter()
            .map(|(route, parts)| match parts.len() {
                1 => format!("{route}, 1 part"),
                n => format!("{route}, {n} parts"),
            })
            .collect();
        if catalog_gone {
            what.push("the model catalog (the desktop has none now)".into());
        }
        Some(format!(
            "Not all it sent could be read ({}): the New page says what is missing.",
            what.join(", ")
        ))
    }

    pub fn prefs(&self, pane: &str) -> SendPrefs {
        self.prefs.get(pane).cloned().unwrap_or_default()
    }

    pub fn workspace_list(&self) -> &[Workspace] {
        self.workspaces
            .as_deref()
            .map_or(&[], |w| w.items.as_slice())
    }

    /// Whether this token may register a workspace (`capabilities.workspaces.create`).
    pub fn may_register(&self) -> bool {
        self.capabilities
            .as_ref()
            .is_some_and(|c| c.capabilities.workspaces.create)
    }

    /// The presets `/capabilities` lists: the only ones that may be chosen (seed §2).
    pub fn presets(&self) -> Vec<(String, Option<String>)> {
        self.capabilities
            .as_ref()
            .map(|c| {
                c.agent_presets
                    .iter()
                    .map(|p| (p.id.clone(), p.title.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every model of the catalog, group by group.
    pub fn models(&self) -> Vec<ModelChoice> {
        let Some(capabilities) = &self.capabilities else {
            return Vec::new();
        };
        capabilities
            .model_catalog
            .groups
            .iter()
            .flat_map(|group| {
                group.models.iter().map(|model| ModelChoice {
                    provider: group.provider.clone(),
                    model: model.id.clone(),
                    efforts: model
                        .reasoning
                        .as_ref()
                        .map(crate::dsh_wire::Reasoning::ids)
                        .unwrap_or_default(),
                })
            })
            .collect()
    }

    /// The catalog's default config, in words.
    pub fn default_model(&self) -> Option<String> {
        self.capabilities
            .as_ref()
            .and_then(|c| c.model_catalog.default.as_ref())
            .map(|d| d.label())
    }

    /// The newest reload, in words, for a pane's info line.
    pub fn last_reload(&self) -> Option<String> {
        self.reloads
            .last()
            .map(|(old, new)| format!("desktop reloaded (process {old} → {new})"))
    }
}

/// Words for a message kind in the picker.
pub fn kind_words(kind: &AppendKind) -> &'static str {
    match kind {
        AppendKind::Instruction => "what to do next",
        AppendKind::Feedback => "what you think of what it did",
        AppendKind::Question => "something you want to know",
        AppendKind::Review => "a review of its work",
        AppendKind::Clarification => "what you meant before",
        AppendKind::Note => "for the record; it asks nothing",
        AppendKind::Unknown(_) => "",
    }
}

/// Words for a mode.
pub fn mode_words(mode: &AppendMode) -> &'static str {
    match mode {
        AppendMode::Queue => "waits for the running turn to end",
        AppendMode::Steer => "goes into the running turn now",
        AppendMode::Unknown(_) => "",
    }
}

/// At most three parts, `path (why)`, and how many more.
fn list_parts(parts: &[&Unread]) -> String {
    let mut words: Vec<String> = parts.iter().take(3).map(|p| p.to_string()).collect();
    if parts.len() > 3 {
        words.push(format!("and {} more", parts.len() - 3));
    }
    words.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::dsh::TaskStopped;

    #[test]
    fn d3_prefs_default_to_instruction_and_queue() {
        let view = DshView::default();
        assert_eq!(view.prefs("t1"), SendPrefs::default());
        assert_eq!(view.prefs("t1").kind, AppendKind::Instruction);
        assert_eq!(view.prefs("t1").mode, AppendMode::Queue);
    }

    #[test]
    fn d2_a_stopped_task_and_reloads_are_kept() {
        let mut view = DshView::default();
        view.apply(DshChange::TaskStopped(TaskStopped {
            task_id: "t1".into(),
            why: "session/workspace-mismatch: moved".into(),
        }));
        for pid in 0..6 {
            view.apply(DshChange::DesktopReloaded {
                old_pid: pid,
                new_pid: pid + 1,
            });
        }
        assert!(view.stopped.contains_key("t1"));
        assert_eq!(view.reloads.len(), RELOADS_KEPT);
        assert_eq!(
            view.last_reload().as_deref(),
            Some("desktop reloaded (process 5 → 6)")
        );
    }
}
