//! What a DSH bridge intent's outcome changes on screen (SPEC D5): a closed task's pane goes,
//! a created task's pane opens once the snapshot has it, and trouble shows where the person
//! is. The router takes it: it touches the stack of screens.

use super::App;
use crate::app::Command;
use crate::engine::{IntentKind, IntentRecord, ToEngine};
use crate::model::intents;
use crate::screens::Screen;
use crate::wire::PostReply;

impl App {
    /// What a bridge intent's outcome changes on screen; None for a Collie intent.
    pub(super) fn dsh_on_intent(
        &mut self,
        record: &IntentRecord,
        done: Option<&PostReply>,
    ) -> Option<Vec<Command>> {
        if !record.kind.is_dsh() {
            return None;
        }
        let agent = record.agent.clone();
        let mut commands = Vec::new();
        match (&record.kind, done) {
            (IntentKind::DshClose { task_id }, Some(_)) => {
                let task_id = task_id.clone();
                self.nav.retain(
                    |s| !matches!(s, Screen::Pane(p) if p.agent == agent && p.pane == task_id),
                );
                self.phone
                    .show_toast("Closed the task. Its session stays on the desktop.", false);
                commands.push(Command::Engine(ToEngine::PollNow {
                    agent: agent.clone(),
                }));
            }
            // The real bridge takes a cancel during a permission wait (`accepted: true`) and
            // the desktop goes on waiting: say so, the card stays.
            (IntentKind::DshCancel { task_id }, Some(_)) => {
                let waits = self
                    .agents()
                    .pane(&agent, task_id)
                    .map_or(0, |p| p.pane.asks.len());
                if waits > 0 {
                    self.phone.show_toast(
                        "The bridge took the cancel, but the desktop still waits for an answer: answer it there.",
                        false,
                    );
                }
            }
            (IntentKind::DshCreate { .. }, Some(reply)) => {
                if let Some(pane) = &reply.pane_id {
                    commands.extend(self.await_pane(&agent, pane));
                }
            }
            (IntentKind::DshRegisterWorkspace { path, .. }, Some(_)) => {
                self.phone.show_toast(
                    format!("Registered {path}: it shows among the bridge's workspaces."),
                    false,
                );
                commands.push(Command::Engine(ToEngine::PollNow {
                    agent: agent.clone(),
                }));
            }
            _ => {}
        }
        // Trouble shows where the person is: the pane's status line or the form's receipt.
        let shown_in_place = matches!(self.nav.top(), Screen::Pane(_) | Screen::DshForm(_));
        if !shown_in_place && done.is_none() && !intents::is_in_flight(&record.state) {
            self.phone.show_toast(
                format!(
                    "{}: {}",
                    record.kind.verb(),
                    crate::model::outcome::short(record)
                ),
                true,
            );
        }
        Some(commands)
    }
}
