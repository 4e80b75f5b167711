//! A bridge's tasks on the glass (SPEC D2, D5): the question before closing one and the words
//! for a bridge intent's state. What a task can take and whether its turn runs are the
//! model's (`model::phone_model`).

use crate::app::Command;
use crate::app::overlay::{Deferred, Overlay};
use crate::app::phone::Phone;
use crate::engine::{IntentKind, IntentRecord, IntentState};
use crate::model::intents;

impl Phone {
    /// Asks first: `tasks/close` ends the phone's following; the session stays on the desktop.
    pub(crate) fn dsh_ask_close(&mut self, agent: &str, pane: &str) -> Vec<Command> {
        if let Some(why) = self.model.dsh_unwritable(agent, pane) {
            self.show_toast(why, false);
            return Vec::new();
        }
        let title = self.model.dsh_task_name(agent, pane);
        self.overlay = Some(Overlay::confirm(
            format!(
                "Close {title}? The bridge stops following it; its session stays on the desktop and can be adopted again from the New page."
            ),
            Deferred::Submit {
                agent: agent.to_string(),
                kind: IntentKind::DshClose {
                    task_id: pane.to_string(),
                },
            },
        ));
        Vec::new()
    }
}

/// A bridge intent's state split for a one-line status: a few words, and the bridge's whole
/// sentence (with its advice) for the line above when there is one.
pub(crate) fn dsh_intent_parts(record: &IntentRecord) -> (String, Option<String>) {
    match &record.state {
        IntentState::Refused {
            code,
            message: Some(message),
            ..
        } => (format!("refused: {code}"), Some(message.clone())),
        IntentState::NotSent { why } => ("not sent".into(), Some(why.clone())),
        IntentState::Unknown { why } if intents::is_retryable(record) => (
            "no reply: it may or may not have arrived".into(),
            Some(why.clone()),
        ),
        _ => (crate::model::outcome::short(record), None),
    }
}

/// The verb of a bridge intent with what qualifies it: "send feedback (steer)".
pub(crate) fn dsh_verb(kind: &IntentKind) -> String {
    match kind {
        IntentKind::DshAppend {
            message_kind, mode, ..
        } => format!("send {message_kind} ({mode})"),
        IntentKind::DshCancel { .. } => "cancel turn".into(),
        IntentKind::DshClose { .. } => "close task".into(),
        IntentKind::DshCreate { .. } => "create task".into(),
        IntentKind::DshRegisterWorkspace { .. } => "register workspace".into(),
        other => other.verb().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsh_wire::{AppendKind, AppendMode};
    use crate::wire::PostReply;

    fn record(state: IntentState, attempts: u32) -> IntentRecord {
        IntentRecord {
            request_id: "r-1".into(),
            agent: "dsh".into(),
            kind: IntentKind::DshAppend {
                task_id: "t1".into(),
                message_kind: AppendKind::Feedback,
                message: "go".into(),
                mode: AppendMode::Steer,
                model: None,
            },
            attempts,
            state,
            created_at: "2026-11-29T00:00:00Z".into(),
            checking: false,
            epoch: None,
        }
    }

    #[test]
    fn d5_replayed_is_said_as_already_applied() {
        let replayed = record(
            IntentState::Replayed {
                reply: PostReply::ok("r-1"),
            },
            1,
        );
        assert_eq!(
            crate::model::outcome::short(&replayed),
            "replayed (already applied)"
        );
        assert_eq!(dsh_verb(&replayed.kind), "send feedback (steer)");
    }

    #[test]
    fn d5_a_lost_reply_may_be_resent_once_by_the_person() {
        let lost = record(
            IntentState::Unknown {
                why: "reset".into(),
            },
            1,
        );
        assert!(crate::model::outcome::short(&lost).contains("may or may not have arrived"));
        assert!(intents::is_retryable(&lost));
        let twice = record(
            IntentState::Unknown {
                why: "reset".into(),
            },
            2,
        );
        assert!(!intents::is_retryable(&twice));
    }
}
