//! `collie-phone answer ASK OPTION --say TEXT`: a Deny with the words that tell the agent what
//! to do instead, as Claude Code's own "No, and tell Claude what to do differently" (docs/
//! SCRIPTING.md, "Deny, and say why"). One action: the Deny goes first; only once the agent
//! took it do the words go to the same pane, as `collie-phone send` sends them (SPEC A16: they
//! name the turn the command saw, so they steer it or start the next one). One receipt says
//! both; words that could not go are printed back whole, never dropped.

use serde_json::{Value, json};

use super::exit::Exit;
use super::link::Link;
use super::out::{Failure, Report};
use super::receipt::report;
use crate::engine::{IntentKind, IntentRecord, IntentState};
use crate::model::outcome::AfterDeny;
use crate::wire::{Answer, Ask, AskKind, Effect, limits};

/// Whether `text` may follow `answer` to `ask`: a permission ask's deny, and words that fit a
/// message. Checked before anything leaves.
pub(crate) fn check(ask: &Ask, answer: &Answer, text: &str) -> Result<(), Failure> {
    let bad = |why: String| Failure::new(Exit::BadArguments, why);
    if ask.kind != AskKind::Permission {
        return Err(bad(format!(
            "--say follows a Deny: {} is a {} ask, not a permission; nothing was sent",
            ask.id, ask.kind
        )));
    }
    let denies = ask
        .options()
        .iter()
        .find(|o| Some(&o.id) == answer.option_id.as_ref())
        .is_some_and(|o| o.effect == Some(Effect::Deny));
    if !denies {
        return Err(bad(format!(
            "--say follows a Deny: the option chosen for {} does not deny; nothing was sent",
            ask.id
        )));
    }
    if text.trim().is_empty() {
        return Err(bad(
            "Type the words first: --say is empty; nothing was sent.".into(),
        ));
    }
    if text.len() > limits::MAX_SEND_TEXT {
        return Err(bad(format!(
            "Not sent: the words are {:.1} KiB and the limit is 32 KiB. Shorten them first.",
            text.len() as f64 / 1024.0
        )));
    }
    Ok(())
}

/// After the Deny's outcome (`denied`): the words to the same pane when the agent took it, and
/// one receipt of both.
pub(crate) async fn after(
    link: &mut Link,
    agent: &str,
    denied: &IntentRecord,
    text: &str,
    dial: &str,
    journal: &str,
) -> Result<Report, Failure> {
    let mut deny = report(denied, dial, journal);
    let IntentKind::Answer { pane, .. } = &denied.kind else {
        return Ok(deny);
    };
    let taken = matches!(
        denied.state,
        IntentState::Done { .. } | IntentState::Replayed { .. }
    );
    if !taken {
        deny.lines.push(
            AfterDeny::NotDenied {
                words: &super::quoted(text),
                how: None,
            }
            .said(),
        );
        merge(
            &mut deny.json,
            json!({ "say": { "sent": false, "text": text } }),
        );
        return Ok(deny);
    }
    let turn_id = link
        .pane(agent, pane)
        .and_then(|p| p.turn().map(|t| t.id.clone()));
    let sent = link
        .submit(
            agent,
            IntentKind::Send {
                pane: pane.clone(),
                turn_id,
                text: text.to_string(),
            },
        )
        .await?;
    let words = report(&sent, dial, journal);
    let went = matches!(
        sent.state,
        IntentState::Done { .. } | IntentState::Replayed { .. }
    );
    let first = if went {
        AfterDeny::Sent.said()
    } else {
        AfterDeny::Waits {
            words: &super::quoted(text),
            how: &format!("collie-phone send {pane} … sends them again"),
        }
        .said()
    };
    let mut lines = vec![first];
    lines.extend(deny.lines);
    lines.extend(words.lines);
    let mut json = deny.json;
    merge(
        &mut json,
        json!({ "say": { "sent": went, "text": text, "receipt": words.json } }),
    );
    Ok(Report {
        exit: words.exit,
        lines,
        json,
    })
}

/// Adds `more`'s fields to the object `into`.
fn merge(into: &mut Value, more: Value) {
    if let (Value::Object(into), Value::Object(more)) = (into, more) {
        into.extend(more);
    }
}
