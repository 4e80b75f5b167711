//! A DSH bridge task in a pane (SPEC D3, D5, D6): send is `tasks/append` with the kind and
//! mode chosen for this pane, stop is `tasks/cancel`, close is `tasks/close`, each after the
//! same kind of confirm the Collie actions use. A session no task follows is read-only here.

use crate::app::Command;
use crate::app::keymap::Action;
use crate::app::overlay::{About, Deferred, Overlay};
use crate::app::phone::Phone;
use crate::dsh_wire::{AppendKind, AppendMode};
use crate::engine::IntentKind;
use crate::model::dsh_state::mode_words;
use crate::screens::PaneScreen;

/// The longest message the phone sends to a bridge; the body must stay under its 256 KiB
/// (seed: maxRequestBytes), and the JSON around the words needs room.
pub(crate) const MAX_BRIDGE_MESSAGE: usize = 240 * 1024;

/// What an action means on a bridge's pane; None when it means what it means on a
/// Collie pane (scrolling, typing, opening the wait's card).
pub(crate) fn pane_action(
    phone: &mut Phone,
    agent: &str,
    pane: &str,
    action: Action,
) -> Option<Vec<Command>> {
    let commands = match action {
        Action::Abort => ask_cancel(phone, agent, pane),
        Action::Close => phone.dsh_ask_close(agent, pane),
        Action::MessageKind => {
            if let Some(why) = phone.dsh_unwritable(agent, pane) {
                phone.show_toast(why, false);
                return Some(Vec::new());
            }
            let current = phone
                .dsh_view(agent)
                .map(|v| v.prefs(pane).kind)
                .unwrap_or(AppendKind::Instruction);
            let selected = AppendKind::ALL
                .iter()
                .position(|k| *k == current)
                .unwrap_or(0);
            phone.overlay = Some(Overlay::DshKind {
                agent: agent.to_string(),
                pane: pane.to_string(),
                selected,
            });
            Vec::new()
        }
        Action::SendMode => {
            if let Some(why) = phone.dsh_unwritable(agent, pane) {
                phone.show_toast(why, false);
                return Some(Vec::new());
            }
            let Some(view) = phone.model.dsh_view_mut(agent) else {
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
            phone.show_toast(words, false);
            Vec::new()
        }
        _ => return None,
    };
    Some(commands)
}

/// Asks first: `tasks/cancel` stops the running turn only (seed POST /tasks/cancel).
fn ask_cancel(phone: &mut Phone, agent: &str, pane: &str) -> Vec<Command> {
    if let Some(why) = phone.dsh_unwritable(agent, pane) {
        phone.show_toast(why, false);
        return Vec::new();
    }
    let task = phone.dsh_view(agent).and_then(|v| v.task(pane));
    let Some(task) = task else {
        phone.show_toast("This task is not open on the bridge any more.", false);
        return Vec::new();
    };
    if !phone.dsh_turn_runs(agent, pane) {
        let words = format!("No turn is running in this task (it is {}).", task.status);
        let about = phone.task_turn_subject(agent, pane);
        phone.show_toast_about(words, false, about);
        return Vec::new();
    }
    let title = phone.dsh_task_name(agent, pane);
    phone.overlay = Some(Overlay::confirm_about(
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
        if phone.agents().pane(agent, pane).is_none() {
            phone.show_toast("This task is gone; the words stay here.", true);
            return Vec::new();
        }
        let prefs = phone
            .dsh_view(agent)
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
