//! A DSH bridge task in a pane (SPEC D3, D5, D6): send is `tasks/append` with the kind and
//! mode chosen for this pane, stop is `tasks/cancel`, close is `tasks/close`, each after the
//! same kind of confirm the Collie actions use. A session no task follows is read-only here.

use crate::app::dsh_state::{DshView, kind_words, mode_words};
use crate::app::keymap::Action;
use crate::app::overlay::{About, Deferred, Overlay};
use crate::app::phone::Phone;
use crate::app::{Command, intents};
use crate::dsh_wire::{AppendKind, AppendMode, TaskStatus};
use crate::engine::{IntentKind, IntentRecord, IntentState};
use crate::screens::PaneScreen;

/// The longest message the phone sends to a bridge; the body must stay under its 256 KiB
/// (seed: maxRequestBytes), and the JSON around the words needs room.
pub(crate) const MAX_BRIDGE_MESSAGE: usize = 240 * 1024;

impl Phone {
    /// True when `agent` is a DSH bridge.
    pub(crate) fn is_bridge(&self, agent: &str) -> bool {
        self.dsh.contains_key(agent)
    }

    pub fn dsh_view(&self, agent: &str) -> Option<&DshView> {
        self.dsh.get(agent)
    }

    /// What an action means on a bridge's pane; None when it means what it means on a
    /// Collie pane (scrolling, typing, opening the wait's card).
    pub(crate) fn dsh_pane_action(
        &mut self,
        agent: &str,
        pane: &str,
        action: Action,
    ) -> Option<Vec<Command>> {
        let commands = match action {
            Action::Abort => self.dsh_ask_cancel(agent, pane),
            Action::Close => self.dsh_ask_close(agent, pane),
            Action::MessageKind => {
                if let Some(why) = self.dsh_unwritable(agent, pane) {
                    self.show_toast(why, false);
                    return Some(Vec::new());
                }
                let current = self
                    .dsh
                    .get(agent)
                    .map(|v| v.prefs(pane).kind)
                    .unwrap_or(AppendKind::Instruction);
                let selected = AppendKind::ALL
                    .iter()
                    .position(|k| *k == current)
                    .unwrap_or(0);
                self.overlay = Some(Overlay::DshKind {
                    agent: agent.to_string(),
                    pane: pane.to_string(),
                    selected,
                });
                Vec::new()
            }
            Action::SendMode => {
                if let Some(why) = self.dsh_unwritable(agent, pane) {
                    self.show_toast(why, false);
                    return Some(Vec::new());
                }
                let Some(view) = self.dsh.get_mut(agent) else {
                    return Some(Vec::new());
                };
                let prefs = view.prefs.entry(pane.to_string()).or_default();
                prefs.mode = match prefs.mode {
                    AppendMode::Steer => AppendMode::Queue,
                    _ => AppendMode::Steer,
                };
                let words = format!(
                    "Mode {}: the next message {}.",
                    prefs.mode,
                    mode_words(&prefs.mode)
                );
                self.show_toast(words, false);
                Vec::new()
            }
            _ => return None,
        };
        Some(commands)
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
    fn dsh_unwritable(&self, agent: &str, pane: &str) -> Option<String> {
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

    /// The kind picker's keys.
    pub(crate) fn kind_picker_key(&mut self, action: Option<Action>) -> Vec<Command> {
        let Some(Overlay::DshKind {
            agent,
            pane,
            selected,
        }) = self.overlay.clone()
        else {
            return Vec::new();
        };
        let last = AppendKind::ALL.len() - 1;
        let chosen = match action {
            Some(Action::Up) => {
                let selected = selected.checked_sub(1).unwrap_or(last);
                self.overlay = Some(Overlay::DshKind {
                    agent,
                    pane,
                    selected,
                });
                return Vec::new();
            }
            Some(Action::Down) => {
                let selected = if selected >= last { 0 } else { selected + 1 };
                self.overlay = Some(Overlay::DshKind {
                    agent,
                    pane,
                    selected,
                });
                return Vec::new();
            }
            Some(Action::Pick(n)) if (1..=last + 1).contains(&usize::from(n)) => usize::from(n) - 1,
            Some(Action::Confirm) => selected,
            Some(Action::Cancel) => {
                self.overlay = None;
                return Vec::new();
            }
            _ => return Vec::new(),
        };
        self.overlay = None;
        let kind = AppendKind::ALL[chosen.min(last)].clone();
        if let Some(view) = self.dsh.get_mut(&agent) {
            view.prefs.entry(pane).or_default().kind = kind.clone();
        }
        self.show_toast(
            format!("Kind {kind}: the next message is {}.", kind_words(&kind)),
            false,
        );
        Vec::new()
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
    fn dsh_task_name(&self, agent: &str, pane: &str) -> String {
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

    /// Asks first: `tasks/cancel` stops the running turn only (seed POST /tasks/cancel).
    fn dsh_ask_cancel(&mut self, agent: &str, pane: &str) -> Vec<Command> {
        if let Some(why) = self.dsh_unwritable(agent, pane) {
            self.show_toast(why, false);
            return Vec::new();
        }
        let task = self.dsh.get(agent).and_then(|v| v.task(pane));
        let Some(task) = task else {
            self.show_toast("This task is not open on the bridge any more.", false);
            return Vec::new();
        };
        if !self.dsh_turn_runs(agent, pane) {
            self.show_toast(
                format!("No turn is running in this task (it is {}).", task.status),
                false,
            );
            return Vec::new();
        }
        let title = self.dsh_task_name(agent, pane);
        self.overlay = Some(Overlay::confirm_about(
            format!(
                "Cancel the running turn of {title}? Queued messages and any wait on the desktop stay."
            ),
            Deferred::Submit {
                agent: agent.to_string(),
                kind: IntentKind::DshCancel {
                    task_id: pane.to_string(),
                },
            },
            About::DshTurn {
                agent: agent.to_string(),
                task: pane.to_string(),
            },
        ));
        Vec::new()
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

/// A bridge intent's state in a few words (SPEC D5): a replay is said as such, and a lost
/// reply says who may resend it and how.
pub(crate) fn dsh_intent_words(record: &IntentRecord) -> String {
    match &record.state {
        IntentState::Replayed { .. } => "replayed (already applied)".into(),
        IntentState::Done { .. } => match &record.kind {
            IntentKind::DshCreate { .. } => "created".into(),
            IntentKind::DshRegisterWorkspace { .. } => "registered".into(),
            IntentKind::DshCancel { .. } => "cancel taken by the bridge".into(),
            IntentKind::DshClose { .. } => "closed".into(),
            _ => "accepted".into(),
        },
        IntentState::Unknown { why } if intents::is_retryable(record) => {
            format!("no reply ({why}); it may or may not have arrived")
        }
        _ => crate::app::intent_words(record),
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
        _ => (dsh_intent_words(record), None),
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

impl PaneScreen {
    /// `tasks/append` with this pane's kind and mode; the words stay until the bridge took
    /// them (SPEC D5), so a refusal or a lost reply never loses them.
    pub(crate) fn dsh_send(&mut self, phone: &mut Phone) -> Vec<Command> {
        let (agent, pane) = (self.agent.clone(), self.pane.clone());
        let (agent, pane) = (agent.as_str(), pane.as_str());
        if let Some(why) = phone.dsh_unwritable(agent, pane) {
            phone.show_toast(why, true);
            return Vec::new();
        }
        let Some(draft) = phone.draft(agent, pane).filter(|d| !d.is_empty()) else {
            phone.show_toast("Type a message first.", false);
            return Vec::new();
        };
        let text = draft.text();
        if text.trim().is_empty() {
            phone.show_toast("The bridge takes only words: this message is blank.", false);
            return Vec::new();
        }
        if text.len() > MAX_BRIDGE_MESSAGE {
            phone.show_toast(
                format!(
                    "Not sent: the message is {} and the bridge takes at most {} KiB. Split it first.",
                    crate::screens::pane::size_words(text.len()),
                    MAX_BRIDGE_MESSAGE / 1024
                ),
                true,
            );
            return Vec::new();
        }
        if phone.agents.pane(agent, pane).is_none() {
            phone.show_toast("This task is gone; the words stay here.", true);
            return Vec::new();
        }
        let prefs = phone
            .dsh
            .get(agent)
            .map(|v| v.prefs(pane))
            .unwrap_or_default();
        self.dispatch_send(
            phone,
            IntentKind::DshAppend {
                task_id: pane.to_string(),
                message_kind: prefs.kind,
                message: text,
                mode: prefs.mode,
                model: None,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert_eq!(dsh_intent_words(&replayed), "replayed (already applied)");
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
        assert!(dsh_intent_words(&lost).contains("may or may not have arrived"));
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
