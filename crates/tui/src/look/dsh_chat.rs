//! How a notice that must stand out reads in the chat (SPEC D4): a tool that failed (with its
//! error code), a request that used another model than the task asked for, a gap the bridge
//! admits, a desktop reload, a failed turn, a task no longer addressed. The engine says which
//! of its own sentences these are with the item's [`Tone`] (`engine::dsh::pane`,
//! `engine::dsh::session`), so a change of words there changes no colour here; the tests below
//! feed real events through the engine to hold both ends.

use ratatui::style::{Modifier, Style};

use super::theme::Theme;
use crate::wire::Tone;

/// The style of a notice of `tone`; None for a plain one.
pub(crate) fn notice_style(tone: Tone, theme: &Theme) -> Option<Style> {
    match tone {
        Tone::Plain => None,
        Tone::Caution => Some(theme.warn),
        Tone::Alert => Some(theme.warn.add_modifier(Modifier::BOLD)),
        Tone::Danger => Some(theme.danger),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsh_wire::{Event, TaskView};
    use crate::engine::dsh::pane::TaskPane;

    fn pane() -> TaskPane {
        let task: TaskView = serde_json::from_value(serde_json::json!({
            "taskId": "t1", "workspaceId": "w", "sessionId": "s1", "status": "running",
            "requestedConfig": {"provider": "p", "model": "m", "reasoningEffort": "high"}
        }))
        .expect("task");
        TaskPane::new(&task)
    }

    fn first_tone(pane: &mut TaskPane, json: serde_json::Value) -> Tone {
        let event: Event = serde_json::from_value(json).expect("event");
        pane.take(&event)
            .into_iter()
            .find_map(|e| e.item.map(|i| i.tone))
            .expect("an item")
    }

    #[test]
    fn d4_a_failed_tool_a_differing_config_and_a_gap_stand_out() {
        let theme = Theme::builtin("dark").expect("theme");
        let mut pane = pane();
        let failed = first_tone(
            &mut pane,
            serde_json::json!({"taskId": "t1", "sessionSeq": 2, "at": 1,
                "sessionEventType": "tool", "kind": "execution", "phase": "tool-result",
                "callId": "c1", "failed": true, "error": {"code": "EXIT_101"}}),
        );
        assert_eq!(notice_style(failed, &theme), Some(theme.danger));
        let ok = first_tone(
            &mut pane,
            serde_json::json!({"taskId": "t1", "sessionSeq": 3, "at": 1,
                "sessionEventType": "tool", "kind": "execution", "phase": "tool-result",
                "callId": "c2", "failed": false, "outputPreview": "failed, once"}),
        );
        assert_eq!(notice_style(ok, &theme), None);
        let header = first_tone(
            &mut pane,
            serde_json::json!({"taskId": "t1", "sessionSeq": 4, "at": 1,
                "sessionEventType": "request", "kind": "execution", "phase": "request-header",
                "observedConfig": {"provider": "p", "model": "m", "reasoningEffort": "low"}}),
        );
        assert_eq!(notice_style(header, &theme), Some(theme.warn));
        let gap = pane
            .gap(40)
            .and_then(|e| e.item)
            .map(|i| i.tone)
            .expect("a gap");
        assert!(notice_style(gap, &theme).is_some());
        let turn = first_tone(
            &mut pane,
            serde_json::json!({"taskId": "t1", "sessionSeq": 5, "at": 1,
                "sessionEventType": "turn", "kind": "execution", "phase": "turn-failed",
                "turn": 2, "error": {"code": "E", "message": "boom"}}),
        );
        assert_eq!(notice_style(turn, &theme), Some(theme.danger));
    }
}
