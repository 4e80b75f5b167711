//! What became of a send or an answer, in a few words: one wording for the card, the line next
//! to the box, the status line and the headless receipt (SPEC Q4, Q5).

use crate::engine::{IntentRecord, IntentState};

/// An intent's state in a few words, for the line next to the input and for messages.
pub fn intent_words(record: &IntentRecord) -> String {
    match &record.state {
        IntentState::Created | IntentState::Sending => "sending…".into(),
        IntentState::Done { reply } if reply.queued == Some(true) => {
            "queued: the agent reads it when this turn ends".into()
        }
        IntentState::Done { .. } => "sent".into(),
        IntentState::Replayed { .. } => "sent (the agent had it already)".into(),
        IntentState::Stale { .. } => "refused: the ask changed".into(),
        IntentState::Decided { .. } => "refused: already decided".into(),
        IntentState::TooLate => "not taken: the agent no longer knows it".into(),
        IntentState::RequestIdReused => "refused: request-id-reused".into(),
        IntentState::Refused { code, message, .. } => match message {
            Some(message) => format!("refused: {code}: {message}"),
            None => format!("refused: {code}"),
        },
        // SPEC Q4: the engine resends it with the same request id; the reply settles it.
        IntentState::Unknown { .. } if record.checking => "not sure it arrived: checking…".into(),
        IntentState::Unknown { why } if super::intents::is_retryable(record) => {
            format!("unknown: {why}")
        }
        IntentState::Unknown { .. } | IntentState::MaybeApplied => {
            "maybe applied: check the chat".into()
        }
        IntentState::NotSent { why } => format!("not sent: {why}"),
    }
}
