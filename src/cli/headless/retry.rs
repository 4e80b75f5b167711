//! `--retry REQUEST_ID`: the person's retry of an intent whose outcome is unknown (or that never
//! reached the agent), from its receipt in the journal: the same request id and the same body,
//! and never a third time (SPEC Q4, Q5). Works for the receipts of the phone's screens too.

use std::process::ExitCode;

use super::args::ScriptArgs;
use super::exit::Exit;
use super::journal_hold::JournalHold;
use super::link::Link;
use super::out::{Failure, Report, run_to_end};
use super::receipt::{command_of, report};
use crate::model::intents::is_retryable;

/// Runs `collie-phone COMMAND --retry REQUEST_ID`.
pub(crate) fn run(
    common: &ScriptArgs,
    command: &'static str,
    request_id: &str,
) -> anyhow::Result<ExitCode> {
    run_to_end(common.json, retry(common, command, request_id))
}

async fn retry(common: &ScriptArgs, command: &str, request_id: &str) -> Result<Report, Failure> {
    let journal = JournalHold::shared()?;
    let shown = journal.shown();
    let config = common.connect.read_config()?;
    let specs = common.connect.agents(&config)?;
    let mut link = Link::open(specs, journal, common.record.record.clone())?;
    let Some(receipt) = link
        .receipts()
        .iter()
        .find(|r| r.request_id == request_id)
        .cloned()
    else {
        return Err(Failure::new(
            Exit::NotFound,
            format!(
                "there is no receipt with request id {request_id} in {shown} (it keeps every open intent and the 500 newest finished ones)"
            ),
        ));
    };
    match command_of(&receipt.kind) {
        Some(own) if own == command => {}
        Some(own) => {
            return Err(Failure::new(
                Exit::BadArguments,
                format!(
                    "{request_id} is the receipt of a {}; retry it with `collie-phone {own} --retry {request_id}`",
                    receipt.kind.verb()
                ),
            ));
        }
        None => {
            return Err(Failure::new(
                Exit::BadArguments,
                format!(
                    "{request_id} is the receipt of a {} from the phone's screens; retry it there",
                    receipt.kind.verb()
                ),
            ));
        }
    }
    let dial = common.dial_flags();
    if !is_retryable(&receipt) {
        // SPEC Q5: a settled intent (or a second try that is itself unknown) is never sent again.
        let mut told = report(&receipt, &dial, &shown);
        told.lines.insert(
            0,
            format!("{request_id} already has an outcome, so it is not sent again:"),
        );
        if let serde_json::Value::Object(map) = &mut told.json {
            map.insert("sentAgain".into(), serde_json::json!(false));
        }
        return Ok(told);
    }
    if !link.views.contains_key(&receipt.agent) {
        let known: Vec<&str> = link.views.keys().map(String::as_str).collect();
        return Err(Failure::new(
            Exit::BadArguments,
            format!(
                "{request_id} went to the agent {}, but these flags dial {}; give the same --socket, --url or --agent as the first try",
                receipt.agent,
                known.join(", ")
            ),
        ));
    }
    link.views.retain(|name, _| *name == receipt.agent);
    link.wait_for(common.patience()).await?;
    let record = link.retry(request_id).await?;
    let mut told = report(&record, &dial, &shown);
    if let serde_json::Value::Object(map) = &mut told.json {
        map.insert("sentAgain".into(), serde_json::json!(true));
    }
    Ok(told)
}
