//! An intent's outcome as a headless command prints it: one line (two when there is a command
//! to run next) or one JSON object, with the request id, the state and the exit code. The
//! sentences are the SPEC's (A3–A8, Q4, Q5), as the phone's cards say them.

use serde_json::{Value, json};

use super::exit::Exit;
use super::out::Report;
use crate::engine::{Decider, IntentKind, IntentRecord, IntentState};
use crate::model::intents::is_retryable;

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

/// The sentence for an outcome.
fn sentence(record: &IntentRecord) -> String {
    match &record.state {
        IntentState::Done { reply } | IntentState::Replayed { reply } => {
            let what = match (&record.kind, reply) {
                (IntentKind::Answer { .. }, reply) => match &reply.outcome {
                    Some(outcome)
                        if !outcome.summary.is_empty()
                            && !outcome.summary.trim_end_matches('.').eq_ignore_ascii_case("answered") =>
                    {
                        format!("Answered: {}.", outcome.summary.trim_end_matches('.'))
                    }
                    _ => "Answered.".to_string(),
                },
                (IntentKind::Send { .. }, reply) => match (&reply.turn_id, reply.steered) {
                    (Some(turn), _) if reply.queued == Some(true) => format!(
                        "Queued: turn {turn} is running, and the agent reads this when it ends."
                    ),
                    (Some(turn), Some(true)) => format!("Sent: it steers turn {turn}."),
                    (Some(turn), _) => format!("Sent: it started turn {turn}."),
                    (None, _) => "Sent.".to_string(),
                },
                (IntentKind::Abort { turn_id, .. }, _) => format!("Stopped turn {turn_id}."),
                (IntentKind::Starter { .. }, reply) => match &reply.pane_id {
                    Some(pane) => format!("Started: the new pane is {pane}."),
                    None => "Started.".to_string(),
                },
                _ => "Done.".to_string(),
            };
            if matches!(record.state, IntentState::Replayed { .. }) {
                format!(
                    "{what} Replayed: the agent had this request id already and ran nothing again."
                )
            } else {
                what
            }
        }
        IntentState::Stale { revision } => match revision {
            Some(revision) => format!(
                "This ask changed (now revision {revision}). Read it again (collie-phone asks) and answer again."
            ),
            None => {
                "This ask changed. Read it again (collie-phone asks) and answer again.".to_string()
            }
        },
        IntentState::Decided { by, outcome } => {
            let who = match by {
                Decider::Program => "Decided on the durable agent.",
                Decider::Timeout => "Timed out before an answer.",
                Decider::Phone => "Already answered.",
            };
            match outcome {
                Some(outcome) if !outcome.summary.is_empty() => format!(
                    "{who} Nothing ran. First outcome: {}.",
                    outcome.summary.trim_end_matches('.')
                ),
                _ => format!("{who} Nothing ran."),
            }
        }
        IntentState::TooLate => "Not taken. The question may come back in a moment.".to_string(),
        IntentState::Unknown { why } if is_retryable(record) => {
            format!("Not sure it arrived ({why}). Retry sends it again with the same request id:")
        }
        IntentState::Unknown { .. } | IntentState::MaybeApplied => {
            "May already be applied. Check the chat. It is never sent again.".to_string()
        }
        IntentState::NotSent { why } => {
            format!("Not sent: {why}. Nothing reached the agent; send it again with:")
        }
        IntentState::RequestIdReused => {
            "Refused: the agent already took this request id for another request.".to_string()
        }
        IntentState::Refused {
            status: 0, message, ..
        } => format!(
            "Not sent: {}.",
            message.as_deref().unwrap_or("it could not be built")
        ),
        IntentState::Refused {
            status,
            code,
            message,
        } => match message {
            Some(message) => format!("Refused ({status} {code}): {message}."),
            None => format!("Refused ({status} {code})."),
        },
        IntentState::Created | IntentState::Sending => {
            "No reply came in time; it may have arrived. Retry sends it again with the same request id:"
                .to_string()
        }
    }
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
    let mut lines = vec![format!(
        "{} {} ({}): {}",
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
