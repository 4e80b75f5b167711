//! An intent's outcome as a headless command prints it: one line (two when there is a command
//! to run next) or one JSON object, with the request id, the state and the exit code. The
//! sentences are the SPEC's (A3–A8, Q4, Q5), as the phone's cards say them.

use serde_json::{Value, json};

use super::exit::Exit;
use super::out::Report;
use crate::engine::{IntentKind, IntentRecord, IntentState};
use crate::model::intents::is_retryable;
use crate::model::outcome::{IntentOutcome, What};

/// The headless command that sends this kind of intent, if one does.
pub(crate) fn command_of(kind: &IntentKind) -> Option<&'static str> {
    match kind {
        IntentKind::Answer { .. } => Some("answer"),
        IntentKind::Send { .. } => Some("send"),
        IntentKind::Abort { .. } => Some("abort"),
        IntentKind::Starter { .. } => Some("start"),
        _ => None,
    }
}

/// What the intent was, in a few words.
fn subject(kind: &IntentKind) -> String {
    match kind {
        IntentKind::Answer { pane, ask_id, .. } => format!("answer to {ask_id} in pane {pane}"),
        IntentKind::Send { pane, .. } => format!("message to pane {pane}"),
        IntentKind::Abort { pane, turn_id } => format!("stop of turn {turn_id} in pane {pane}"),
        IntentKind::Starter { starter_id } => format!("starter {starter_id}"),
        other => other.verb().to_string(),
    }
}

/// The sentence for an outcome: the one wording the card and the footer say (SPEC Q7), with
/// the shell's next step.
fn sentence(record: &IntentRecord) -> String {
    IntentOutcome::when_waiting_ended(record)
        .wording_alone(What::of(&record.kind))
        .at_shell()
}

/// The command that retries this intent, when one may (SPEC Q4).
fn retry_line(record: &IntentRecord, dial: &str) -> Option<String> {
    let may =
        is_retryable(record) || matches!(record.state, IntentState::Created | IntentState::Sending);
    let command = command_of(&record.kind)?;
    may.then(|| {
        let mut line = format!("collie-phone {command} --retry {}", record.request_id);
        if !dial.is_empty() {
            line.push(' ');
            line.push_str(dial);
        }
        line
    })
}

/// The outcome of an intent as a report: `dial` is the flags that reach the same agent.
pub(crate) fn report(record: &IntentRecord, dial: &str, journal: &str) -> Report {
    let exit = Exit::of(record);
    let sentence = sentence(record);
    let retry = retry_line(record, dial);
    // What the agent or the engine said beside the outcome goes with what the intent was,
    // so the sentence stays the table's.
    let context = IntentOutcome::when_waiting_ended(record)
        .context()
        .map_or_else(String::new, |context| format!("; {context}"));
    let mut lines = vec![format!(
        "{} {} ({}{context}): {}",
        record.state.name(),
        record.request_id,
        subject(&record.kind),
        sentence
    )];
    if let Some(retry) = &retry {
        lines.push(format!("  {retry}"));
    }
    let mut object = json!({
        "exit": exit.number(),
        "result": exit.name(),
        "requestId": record.request_id,
        "agent": record.agent,
        "action": record.kind.verb(),
        "state": record.state.name(),
        "replayed": matches!(record.state, IntentState::Replayed { .. }),
        "attempts": record.attempts,
        "message": sentence,
        "journal": journal,
    });
    let Value::Object(map) = &mut object else {
        return Report {
            exit,
            lines,
            json: object,
        };
    };
    match &record.kind {
        IntentKind::Answer {
            pane,
            ask_id,
            revision,
            answer,
        } => {
            map.insert("pane".into(), json!(pane));
            map.insert("askId".into(), json!(ask_id));
            map.insert("revision".into(), json!(revision));
            map.insert("answer".into(), json!(answer));
        }
        IntentKind::Send { pane, turn_id, .. } => {
            map.insert("pane".into(), json!(pane));
            map.insert("turnId".into(), json!(turn_id));
        }
        IntentKind::Abort { pane, turn_id } => {
            map.insert("pane".into(), json!(pane));
            map.insert("turnId".into(), json!(turn_id));
        }
        IntentKind::Starter { starter_id } => {
            map.insert("starterId".into(), json!(starter_id));
        }
        _ => {}
    }
    match &record.state {
        IntentState::Done { reply } | IntentState::Replayed { reply } => {
            map.insert("code".into(), json!(reply.code));
            map.insert("reply".into(), json!(reply));
        }
        IntentState::Stale { revision } => {
            map.insert("code".into(), json!("stale"));
            map.insert("currentRevision".into(), json!(revision));
        }
        IntentState::Decided { by, outcome } => {
            map.insert("code".into(), json!("decided"));
            map.insert("decidedBy".into(), json!(by));
            map.insert("outcome".into(), json!(outcome));
        }
        IntentState::TooLate => {
            map.insert("code".into(), json!("too-late"));
        }
        IntentState::RequestIdReused => {
            map.insert("code".into(), json!("request-id-reused"));
        }
        IntentState::Refused { status, code, .. } => {
            map.insert("code".into(), json!(code));
            map.insert("status".into(), json!(status));
        }
        IntentState::Unknown { why } | IntentState::NotSent { why } => {
            map.insert("why".into(), json!(why));
        }
        _ => {}
    }
    if let Some(retry) = retry {
        map.insert("retry".into(), json!(retry));
    }
    Report {
        exit,
        lines,
        json: object,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Decider;
    use crate::model::card_state::CardStatus;
    use crate::model::inbox::AskKey;
    use crate::model::intents::Intents;
    use crate::model::outcome;
    use crate::wire::{Answer, Outcome, PostReply};

    fn answer(state: IntentState, attempts: u32) -> IntentRecord {
        IntentRecord {
            request_id: "r-1".into(),
            agent: "demo".into(),
            kind: IntentKind::Answer {
                pane: "p-1".into(),
                ask_id: "a-1".into(),
                revision: 1,
                answer: Answer::default(),
            },
            attempts,
            state,
            created_at: "2026-12-07T09:00:00Z".into(),
            checking: false,
            epoch: None,
        }
    }

    fn card_sentence(record: &IntentRecord) -> String {
        let mut intents = Intents::default();
        intents.note(record.clone(), time::OffsetDateTime::UNIX_EPOCH);
        let key = AskKey {
            agent: "demo".into(),
            pane: "p-1".into(),
            ask_id: "a-1".into(),
        };
        CardStatus::of(&intents, &key)
            .expect("the answer's status")
            .sentence()
    }

    /// SPEC Q7: every outcome of an answer is one sentence on the card, in the footer, in the
    /// receipt's line and in `--json`'s `message`; each surface adds only its own next step.
    #[test]
    fn q7_the_card_the_footer_and_the_receipt_say_one_sentence() {
        let mut summarised = PostReply::ok("r-1");
        summarised.outcome = Some(Outcome {
            summary: "Allow once".into(),
            ..Outcome::default()
        });
        let won = Outcome {
            summary: "Deny".into(),
            ..Outcome::default()
        };
        let states = [
            IntentState::Done {
                reply: summarised.clone(),
            },
            IntentState::Replayed { reply: summarised },
            IntentState::Stale { revision: Some(2) },
            IntentState::Decided {
                by: Decider::Program,
                outcome: Some(won.clone()),
            },
            IntentState::Decided {
                by: Decider::Phone,
                outcome: None,
            },
            IntentState::Decided {
                by: Decider::Timeout,
                outcome: Some(won),
            },
            IntentState::TooLate,
            IntentState::RequestIdReused,
            IntentState::Refused {
                status: 409,
                code: "conflict".into(),
                message: Some("the pane is closing".into()),
            },
            IntentState::Unknown {
                why: "no complete reply within 3000 ms".into(),
            },
            IntentState::MaybeApplied,
            IntentState::NotSent {
                why: "the agent is not reachable".into(),
            },
        ];
        for state in states {
            let record = answer(state.clone(), 1);
            let said = outcome::said(&record);
            let alone = IntentOutcome::when_waiting_ended(&record)
                .wording_alone(What::of(&record.kind))
                .said;
            // Alone, a done answer names what the agent took; every other row is the same.
            assert!(
                alone == said || (said.starts_with("Answered.") && alone.starts_with("Answered: ")),
                "{state:?}: {alone} / {said}"
            );
            let receipt = report(&record, "--socket /s", "/j");
            let message = receipt.json["message"].as_str().expect("a message");
            assert!(
                message.starts_with(&alone),
                "{state:?}: {message} / {alone}"
            );
            assert!(
                receipt.lines[0].ends_with(message),
                "{state:?}: {}",
                receipt.lines[0]
            );
            let card = card_sentence(&record);
            assert!(card.starts_with(&said), "{state:?}: {card} / {said}");
        }
    }

    #[test]
    fn q7_a_headless_line_names_what_the_agent_took_and_why_no_reply_came() {
        let mut reply = PostReply::ok("r-1");
        reply.outcome = Some(Outcome {
            summary: "Allow once".into(),
            ..Outcome::default()
        });
        let receipt = report(&answer(IntentState::Done { reply }, 1), "", "/j");
        assert_eq!(
            receipt.lines[0],
            "done r-1 (answer to a-1 in pane p-1): Answered: Allow once."
        );
        let lost = answer(
            IntentState::Unknown {
                why: "the connection was cut".into(),
            },
            1,
        );
        let receipt = report(&lost, "--socket /s", "/j");
        assert_eq!(
            receipt.lines,
            [
                "unknown r-1 (answer to a-1 in pane p-1; the connection was cut): Not sure the answer arrived. Retry sends it again with the same request id:",
                "  collie-phone answer --retry r-1 --socket /s",
            ]
        );
    }
}
