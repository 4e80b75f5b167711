//! `collie-phone send PANE TEXT`: text for a pane, naming the turn this command saw, as the
//! phone's pane screen does (SPEC A16): it steers the running turn or starts the next one.

use std::io::Read;
use std::process::ExitCode;

use clap::Args;

use super::args::ScriptArgs;
use super::exit::{self, Exit};
use super::link::{Link, Sending};
use super::out::{Failure, Report, run_to_end};
use super::receipt::report;
use crate::engine::IntentKind;
use crate::wire::limits;

#[derive(Debug, Args)]
// PANE and TEXT are needed unless --retry is given; clap's own usage would show them as
// optional, so the usage names the two ways to call it.
#[command(
    after_help = exit::help(),
    override_usage = "collie-phone send [OPTIONS] PANE TEXT\n       collie-phone send [OPTIONS] --retry REQUEST_ID"
)]
pub(crate) struct SendArgs {
    #[command(flatten)]
    pub(crate) common: ScriptArgs,
    /// The pane's id (`collie-phone asks` and `watch` show them). Needed unless --retry.
    #[arg(required_unless_present = "retry")]
    pub(crate) pane: Option<String>,
    /// What to send (at most 32 KiB); `-` reads it from stdin. Needed unless --retry.
    #[arg(required_unless_present = "retry")]
    pub(crate) text: Option<String>,
    /// Send the message with this request id again, from its receipt, after an unknown outcome
    /// (same id, same body; never a third time).
    #[arg(long, value_name = "REQUEST_ID", conflicts_with_all = ["pane", "text"])]
    pub(crate) retry: Option<String>,
}

pub(crate) fn run(args: SendArgs) -> anyhow::Result<ExitCode> {
    if let Some(request_id) = &args.retry {
        return super::retry::run(&args.common, "send", request_id);
    }
    run_to_end(args.common.json, send(&args))
}

async fn send(args: &SendArgs) -> Result<Report, Failure> {
    let (Some(pane_id), Some(text)) = (&args.pane, &args.text) else {
        return Err(Failure::new(Exit::BadArguments, "give a PANE and a TEXT"));
    };
    let text = if text == "-" {
        let mut read = String::new();
        std::io::stdin()
            .read_to_string(&mut read)
            .map_err(|e| Failure::new(Exit::BadArguments, format!("could not read stdin: {e}")))?;
        read
    } else {
        text.clone()
    };
    if text.trim().is_empty() {
        return Err(Failure::new(
            Exit::BadArguments,
            "Type a message first: the text is empty.",
        ));
    }
    if text.len() > limits::MAX_SEND_TEXT {
        return Err(Failure::new(
            Exit::BadArguments,
            format!(
                "Not sent: the message is {:.1} KiB and the limit is 32 KiB. Shorten it first.",
                text.len() as f64 / 1024.0
            ),
        ));
    }
    let Sending {
        mut link,
        agent,
        journal_shown: shown,
    } = Sending::open(&args.common).await?;
    let Some(pane) = link.pane(&agent, pane_id) else {
        return Err(no_such_pane(&link, &agent, pane_id));
    };
    let turn_id = pane.turn().map(|t| t.id.clone());
    let kind = IntentKind::Send {
        pane: pane_id.clone(),
        turn_id,
        text,
    };
    let record = link.submit(&agent, kind).await?;
    Ok(report(&record, &args.common.dial_flags(), &shown))
}

/// Nothing to act on: the pane is not in the agent's layout. The JSON lists the panes there
/// are, with their state and turn, so a script can pick one.
pub(crate) fn no_such_pane(link: &Link, agent: &str, pane_id: &str) -> Failure {
    let panes: Vec<serde_json::Value> = link
        .views
        .get(agent)
        .map(|view| {
            view.panes()
                .into_iter()
                .map(|p| {
                    serde_json::json!({
                        "id": p.pane.id,
                        "title": p.pane.title,
                        "state": p.state(),
                        "turn": p.turn(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let ids: Vec<&str> = panes.iter().filter_map(|p| p["id"].as_str()).collect();
    Failure::new(
        Exit::NotFound,
        format!(
            "the agent \"{agent}\" has no pane {pane_id}; its panes are {}",
            if ids.is_empty() {
                "none".to_string()
            } else {
                ids.join(", ")
            }
        ),
    )
    .with(serde_json::json!({ "panes": panes }))
}
