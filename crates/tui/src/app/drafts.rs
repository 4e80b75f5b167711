//! A pane's box as the phone keeps it (SPEC A16, docs/ENGINE.md): the draft of each pane, the
//! words that come back to it from the outbox (a held send taken back, a stopped turn's queue,
//! a send that waited too long for its agent), and the line that says they came back.

use time::OffsetDateTime;

use crate::app::phone::{Phone, Step};
use crate::model::editor::Editor;

impl Phone {
    pub fn draft(&self, agent: &str, pane: &str) -> Option<&Editor> {
        self.drafts.get(&(agent.to_string(), pane.to_string()))
    }

    pub(crate) fn draft_mut(&mut self, agent: &str, pane: &str) -> &mut Editor {
        self.drafts
            .entry((agent.to_string(), pane.to_string()))
            .or_default()
    }

    /// True when a send of the outbox stopped: it failed, or its outcome is unknown.
    pub(crate) fn send_is_held(&self, request_id: &str) -> bool {
        self.intents.get(request_id).is_some_and(|r| {
            !crate::model::intents::is_in_flight(&r.state)
                && !matches!(
                    r.state,
                    crate::engine::IntentState::Done { .. }
                        | crate::engine::IntentState::Replayed { .. }
                )
        })
    }

    /// Puts words back into a pane's box, in order, before what is typed there: the one home
    /// of "take back", for held sends and for sends a stopped turn dropped.
    pub(crate) fn back_into_box(&mut self, agent: &str, pane_id: &str, taken: &[String]) {
        if taken.is_empty() {
            return;
        }
        let draft = self.draft_mut(agent, pane_id);
        let typed = draft.text();
        let mut text = taken.join("\n");
        if !typed.is_empty() {
            text.push('\n');
            text.push_str(&typed);
        }
        *draft = Editor::from_text(&text);
        self.steps.push(Step::FocusBox);
    }

    /// The box of a pane as it reads now ("" when there is none).
    fn box_text(&self, agent: &str, pane_id: &str) -> String {
        self.draft(agent, pane_id)
            .map(Editor::text)
            .unwrap_or_default()
    }

    /// Sends that waited too long for their agent come back to their boxes, with a line above
    /// each box that says so and lasts until the person sends or edits the box (docs/ENGINE.md).
    pub(crate) fn bring_back_waited(&mut self, now: OffsetDateTime) {
        for (agent, pane_id, words) in self.outbox.waited_too_long(now) {
            if words.is_empty() {
                continue;
            }
            self.back_into_box(&agent, &pane_id, &words);
            let box_text = self.box_text(&agent, &pane_id);
            self.outbox.note_came_back(&agent, &pane_id, now, box_text);
            // The pane says it until the box changes; this says where, for a person elsewhere.
            let minutes = crate::model::outbox::WAIT_FOR_AGENT_SECONDS / 60;
            let title = self
                .agents
                .pane(&agent, &pane_id)
                .map_or_else(|| pane_id.clone(), |p| p.pane.title.clone());
            self.show_toast(
                format!(
                    "Back in the box of {title}: not sent, {agent} was not ready for {minutes} minutes."
                ),
                true,
            );
        }
    }

    /// When words came back to this pane's box, while the box still holds them as they came.
    pub(crate) fn came_back(&self, agent: &str, pane_id: &str) -> Option<OffsetDateTime> {
        let box_text = self.box_text(agent, pane_id);
        self.outbox
            .came_back(agent, pane_id, &box_text)
            .map(|back| back.at)
    }

    /// After every message: a box that was sent or edited since its words came back no longer
    /// carries the line that says so.
    pub(crate) fn settle_came_back(&mut self) {
        let drafts = &self.drafts;
        self.outbox.settle_came_back(|agent, pane_id| {
            drafts
                .get(&(agent.to_string(), pane_id.to_string()))
                .map(Editor::text)
                .unwrap_or_default()
        });
    }
}
