//! The key to the ask that needs the person first (docs/KEYS.md, "The ask that needs you
//! first"): from any screen it opens the first ask of `model::triage`'s order across every
//! agent; on a card it goes on to the next, in place of the card, so Esc still goes back to
//! where the walk began. The opened card starts its own reading time (docs/ASKS.md), so a key
//! meant for the card before never answers it.

use super::phone::{Goto, Phone};
use crate::engine::IntentState;
use crate::model::inbox::{self, AskKey};
use crate::model::intents::Intents;
use crate::model::triage;

impl Phone {
    /// Opens the next ask of the walk from the card on screen (`on_screen`), or the first
    /// from any other screen, and says how many more need the person.
    pub(crate) fn open_next_ask(&mut self, on_screen: Option<&AskKey>) {
        let now = self.now();
        let (next, unreachable) = {
            let rows = triage::rows_in_order(inbox::rows(self.agents()), now);
            let here = on_screen.and_then(|key| rows.iter().position(|r| r.key() == *key));
            let intents = self.intents();
            let next = triage::next(
                &rows,
                now,
                triage::Facts::of,
                |row| answered(intents, &row.key()),
                here,
            )
            .map(|next| (rows[next.index].key(), next.more));
            let unreachable = inbox::tally(self.agents(), now).unreachable;
            (next, unreachable)
        };
        let Some((key, more)) = next else {
            let mut words = if on_screen.is_some() {
                "Nothing else needs your answer.".to_string()
            } else {
                "Nothing needs your answer.".to_string()
            };
            if unreachable > 0 {
                words.push_str(&format!(
                    " {} on an agent that cannot be reached.",
                    crate::out::count(unreachable, "ask waits", "asks wait")
                ));
            }
            self.show_toast(words, false);
            return;
        };
        if !self.model.open_card(&key, now) {
            return;
        }
        if on_screen.is_some() {
            self.back();
        }
        self.open(Goto::Card(key));
        self.show_toast(triage::more_words(more), false);
    }
}

/// True when an answer to the ask is on its way or was taken (the ask leaves the snapshot at
/// the next poll): the walk passes it over. One refused, stale, too late or of an unknown
/// outcome still needs the person.
fn answered(intents: &Intents, key: &AskKey) -> bool {
    intents.answer_pending(key)
        || intents.latest_answer(key).is_some_and(|record| {
            matches!(
                record.state,
                IntentState::Done { .. }
                    | IntentState::Replayed { .. }
                    | IntentState::Decided { .. }
            )
        })
}
