//! A bridge's tasks as the phone knows them (SPEC D2, D5): what an agent can do, whether
//! a task takes actions, whether its turn runs, the question before closing it, the chat a
//! closed task leaves to its session, and the words for a bridge intent's state. The pane and
//! the layout both ask them, so they are the phone's, not a room's.

use crate::app::Command;
use crate::app::overlay::{Deferred, Overlay};
use crate::app::phone::Phone;
use crate::dsh_wire::TaskStatus;
use crate::engine::{IntentKind, IntentRecord, IntentState};
use crate::model::capabilities::{self, Capabilities};
use crate::model::dsh_state::DshView;
use crate::model::intents;

impl Phone {
    /// What `agent` can do: a DSH bridge's set, or a Collie agent's. Rooms ask this, never
    /// the peer's kind.
    pub(crate) fn can(&self, agent: &str) -> Capabilities {
        if self.dsh.contains_key(agent) {
            capabilities::DSH_BRIDGE
        } else {
            capabilities::COLLIE
        }
    }

    pub fn dsh_view(&self, agent: &str) -> Option<&DshView> {
        self.dsh.get(agent)
    }

    /// Whether the bridge takes actions for this pane (a task it follows).
    pub(crate) fn dsh_writable(&self, agent: &str, pane: &str) -> bool {
        self.dsh_unwritable(agent, pane).is_none()
    }

    /// Whether a turn of this task runs, so a cancel has something to stop.
    pub(crate) fn dsh_turn_running(&self, agent: &str, pane: &str) -> bool {
        self.dsh_writable(agent, pane) && self.dsh_turn_runs(agent, pane)
    }

    /// Why this pane takes no action, if it does not: a session not adopted, or a task the
    /// engine stopped addressing (SPEC D2).
    pub(crate) fn dsh_unwritable(&self, agent: &str, pane: &str) -> Option<String> {
        if DshView::is_session_pane(pane) {
            return Some(
                "This desktop session has no task yet, so the bridge takes nothing for it: adopt it on the New page (n from Home) first."
                    .into(),
            );
        }
        self.dsh
            .get(agent)
            .and_then(|v| v.stopped.get(pane))
            .map(|why| {
                format!("The phone no longer addresses this task ({why}); check it on the desktop.")
            })
    }

    /// A task the bridge closed leaves the layout and its session shows among the sessions:
    /// the chat the phone held for the task moves to the session's pane, since the bridge
    /// shows no history of a session a closed task held (docs/DSH.md) and the person's record
    /// of it must not vanish with the task.
    pub(crate) fn carry_closed_task_chats(&mut self, agent: &str, next: &crate::wire::Snapshot) {
        let Some(dsh) = self.dsh.get(agent) else {
            return;
        };
        let Some(view) = self.agents.get_mut(agent) else {
            return;
        };
        let Some(before) = view.snapshot.clone() else {
            return;
        };
        for (_, _, gone) in before
            .panes()
            .filter(|(_, _, p)| next.pane(&p.id).is_none())
        {
            let Some(task) = dsh.task(&gone.id) else {
                continue;
            };
            let session_pane = crate::engine::dsh::pane::session_pane_id(&task.session_id);
            if next.pane(&session_pane).is_none() || view.panes.contains_key(&session_pane) {
                continue;
            }
            if let Some(mut log) = view.panes.remove(&gone.id) {
                // Only the words move: the task's state, turn and open waits were the task's,
                // and the session pane says its own state.
                log.state = None;
                log.turn = None;
                log.asks.clear();
                view.panes.insert(session_pane, log);
            }
        }
        view.note_asks();
    }

    /// True while a turn of this task runs: as the bridge lists the task, or as its session's
    /// events show it (a task that adopted a session mid-turn is listed idle while the turn
    /// the desktop started goes on, and `tasks/cancel` stops that turn too).
    pub(crate) fn dsh_turn_runs(&self, agent: &str, pane: &str) -> bool {
        let listed = self
            .dsh
            .get(agent)
            .and_then(|v| v.task(pane))
            .is_some_and(|t| !matches!(t.status, TaskStatus::Idle | TaskStatus::Closed));
        let seen = self
            .agents
            .pane(agent, pane)
            .is_some_and(|p| *p.state() == crate::wire::PaneState::Running);
        listed || seen
    }

    /// A task as a person knows it, quoted: the pane's title (the name the phone shows everywhere),
    /// else the bridge's title, never the task id.
    pub(crate) fn dsh_task_name(&self, agent: &str, pane: &str) -> String {
        let pane_title = self
            .agents
            .pane(agent, pane)
            .map(|p| p.pane.title.trim().to_string())
            .filter(|t| !t.is_empty() && t != pane);
        let task_title = || {
            self.dsh
                .get(agent)
                .and_then(|v| v.task(pane))
                .and_then(|t| t.title.clone())
                .filter(|t| !t.trim().is_empty() && t != pane)
        };
        pane_title
            .or_else(task_title)
            .map_or_else(|| "this task".to_string(), |t| format!("the task “{t}”"))
    }

    /// Asks first: `tasks/close` ends the phone's following; the session stays on the desktop.
    pub(crate) fn dsh_ask_close(&mut self, agent: &str, pane: &str) -> Vec<Command> {
        if let Some(why) = self.dsh_unwritable(agent, pane) {
            self.show_toast(why, false);
            return Vec::new();
        }
        let title = self.dsh_task_name(agent, pane);
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
