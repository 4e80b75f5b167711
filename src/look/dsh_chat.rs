//! How a DSH bridge's notices read in the chat (SPEC D4): the engine writes each event as a
//! plain notice, and among them a few must stand out — a tool that failed (with its error
//! code), a request that used another model than the task asked for, a gap the bridge admits,
//! a desktop reload, a failed turn, a task no longer addressed. These are the engine's own
//! sentences (`engine::dsh::pane`, `engine::dsh::session`); the tests below feed real events
//! through it so a change of words there shows here.

use ratatui::style::{Modifier, Style};

use super::theme::Theme;

/// The style of a notice that must stand out; None for an ordinary one.
pub(crate) fn notice_style(text: &str, theme: &Theme) -> Option<Style> {
    let first = text.lines().next().unwrap_or_default();
    let failed_tool = first.starts_with("Tool result") && first.contains(": failed,");
    let failed_turn = first.starts_with("Turn") && first.contains(" failed");
    let stopped = first.starts_with("The phone stopped addressing this task")
        || first.starts_with("The bridge refused to show more of this pane")
        || first.starts_with("The bridge stopped following this session");
    if failed_tool || failed_turn || stopped {
        return Some(theme.danger);
    }
    let gap = first.starts_with("Events before #") && first.contains("gap");
    let differs = first.starts_with("The request used") && first.contains("they differ");
    let reloaded = first.starts_with("The desktop reloaded");
    if gap || reloaded {
        return Some(theme.warn.add_modifier(Modifier::BOLD));
    }
    if differs {
        return Some(theme.warn);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsh::wire::{Event, TaskView};
    use crate::engine::dsh::pane::TaskPane;

    fn pane() -> TaskPane {
        let task: TaskView = serde_json::from_value(serde_json::json!({
            "taskId": "t1", "workspaceId": "w", "sessionId": "s1", "status": "running",
            "requestedConfig": {"provider": "p", "model": "m", "reasoningEffort": "high"}
        }))
        .expect("task");
        TaskPane::new(&task)
    }

    fn first_text(pane: &mut TaskPane, json: serde_json::Value) -> String {
        let event: Event = serde_json::from_value(json).expect("event");
        pane.take(&event)
            .into_iter()
            .find_map(|e| e.item.map(|i| i.text))
            .expect("an item")
    }

    #[test]
    fn d4_a_failed_tool_a_differing_config_and_a_gap_stand_out() {
        let theme = Theme::builtin("dark").expect("theme");
        let mut pane = pane();
        let failed = first_text(
            &mut pane,
            serde_json::json!({"taskId": "t1", "sessionSeq": 2, "at": 1,
                "sessionEventType": "tool", "kind": "execution", "phase": "tool-result",
                "callId": "c1", "failed": true, "error": {"code": "EXIT_101"}}),
        );
        assert_eq!(notice_style(&failed, &theme), Some(theme.danger));
        let ok = first_text(
            &mut pane,
            serde_json::json!({"taskId": "t1", "sessionSeq": 3, "at": 1,
                "sessionEventType": "tool", "kind": "execution", "phase": "tool-result",
                "callId": "c2", "failed": false, "outputPreview": "failed, once"}),
        );
        assert_eq!(notice_style(&ok, &theme), None);
        let header = first_text(
            &mut pane,
            serde_json::json!({"taskId": "t1", "sessionSeq": 4, "at": 1,
                "sessionEventType": "request", "kind": "execution", "phase": "request-header",
                "observedConfig": {"provider": "p", "model": "m", "reasoningEffort": "low"}}),
        );
        assert_eq!(notice_style(&header, &theme), Some(theme.warn));
        let gap = pane
            .gap(40)
            .and_then(|e| e.item)
            .map(|i| i.text)
            .expect("a gap");
        assert!(notice_style(&gap, &theme).is_some());
        let turn = first_text(
            &mut pane,
            serde_json::json!({"taskId": "t1", "sessionSeq": 5, "at": 1,
                "sessionEventType": "turn", "kind": "execution", "phase": "turn-failed",
                "turn": 2, "error": {"code": "E", "message": "boom"}}),
        );
        assert_eq!(notice_style(&turn, &theme), Some(theme.danger));
    }
}
