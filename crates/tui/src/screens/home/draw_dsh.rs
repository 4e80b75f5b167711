//! A DSH bridge on Home: marked as one, and when chosen, what it holds — its workspaces by
//! name, its open tasks and sessions, the desktop's process — beside the Collie agents.

use crate::app::phone::Phone;
use crate::engine::AgentStatus;
use crate::model::agents::AgentView;
use crate::model::dsh_state::DshView;

/// The name shown for an agent on Home: a bridge says that it is one.
pub(crate) fn name(phone: &Phone, agent: &AgentView) -> String {
    match phone.can(&agent.name).kind_label {
        Some(kind) => format!("{} ({kind})", agent.name),
        None => agent.display_name(),
    }
}

/// The chosen bridge's sentence; None for a Collie agent or a bridge that is not ready.
pub(crate) fn detail(phone: &Phone, agent: &AgentView) -> Option<String> {
    let view = phone.dsh_view(&agent.name)?;
    if agent.status != AgentStatus::Ready {
        return None;
    }
    let workspaces: Vec<&str> = view
        .workspace_list()
        .iter()
        .map(|w| w.title.as_str())
        .collect();
    let sessions = agent
        .panes()
        .iter()
        .filter(|p| DshView::is_session_pane(&p.pane.id))
        .count();
    let desktop = view
        .health
        .as_ref()
        .and_then(|h| h.pid)
        .map(|pid| format!(" on the desktop's process {pid}"))
        .unwrap_or_default();
    let reloaded = view
        .last_reload()
        .map(|r| format!(" Last: {r}."))
        .unwrap_or_default();
    let unread = view
        .unread_summary()
        .map(|summary| format!(" {summary}"))
        .unwrap_or_default();
    Some(format!(
        "Ready{desktop}.{unread} {} and {} in {} ({}). Waits are answered on the desktop.{reloaded}",
        crate::out::count(view.open_tasks(), "open task", "open tasks"),
        crate::out::count(sessions, "session", "sessions"),
        crate::out::count(workspaces.len(), "workspace", "workspaces"),
        workspaces.join(", ")
    ))
}
