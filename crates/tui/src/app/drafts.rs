//! A pane's box on the glass (SPEC A16, docs/ENGINE.md): words that come back to a box put
//! the typing focus there, and a send that waited too long for its agent says where it went
//! back. The boxes themselves and the rule that words are never lost are the model's
//! (`model::phone_model`).

use time::OffsetDateTime;

use crate::app::phone::{Phone, Step};

impl Phone {
    /// Puts words back into a pane's box, in order, before what is typed there, and the typing
    /// focus in it: the one home of "take back", for held sends and for sends a stopped turn
    /// dropped.
    pub(crate) fn back_into_box(&mut self, agent: &str, pane_id: &str, taken: &[String]) {
        if self.model.back_into_box(agent, pane_id, taken) {
            self.steps.push(Step::FocusBox);
        }
    }

    /// Sends that waited too long for their agent come back to their boxes, with a line above
    /// each box that says so and lasts until the person sends or edits the box (docs/ENGINE.md).
    pub(crate) fn bring_back_waited(&mut self, now: OffsetDateTime) {
        for (agent, pane_id) in self.model.bring_back_waited(now) {
            self.steps.push(Step::FocusBox);
            // The pane says it until the box changes; this says where, for a person elsewhere.
            let minutes = crate::model::outbox::WAIT_FOR_AGENT_SECONDS / 60;
            let title = self
                .model
                .agents()
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
}
