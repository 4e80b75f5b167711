//! `collie-phone abort PANE`: stop the pane's running turn, naming it as the phone's pane
//! screen does (SPEC A16), so a turn that ended meanwhile is refused, never a newer one stopped.

use std::process::ExitCode;

use clap::Args;

use super::args::ScriptArgs;
use super::exit::{self, Exit};
use super::link::Sending;
use super::out::{Failure, Report, run_to_end};
use super::receipt::report;
use super::send::no_such_pane;
use crate::engine::IntentKind;
use crate::wire::TurnState;

#[derive(Debug, Args)]
// PANE is needed unless --retry is given: the usage says so (clap's would show it optional).
#[command(
    after_help = exit::help(),
    override_usage = "collie-phone abort [OPTIONS] PANE\n       collie-phone abort [OPTIONS] --retry REQUEST_ID"
)]
pub(crate) struct AbortArgs {
    #[command(flatten)]
    pub(crate) common: ScriptArgs,
    /// The pane's id. Needed unless --retry.
    #[arg(required_unless_present = "retry")]
    pub(crate) pane: Option<String>,
    /// Send the stop with this request id again, from its receipt, after an unknown outcome
    /// (same id, same body; never a third time).
    #[arg(long, value_name = "REQUEST_ID", conflicts_with = "pane")]
    pub(crate) retry: Option<String>,
}

pub(crate) fn run(args: AbortArgs) -> anyhow::Result<ExitCode> {
    if let Some(request_id) = &args.retry {
        return super::retry::run(&args.common, "abort", request_id);
    }
    run_to_end(args.common.json, abort(&args))
}

async fn abort(args: &AbortArgs) -> Result<Report, Failure> {
    let Some(pane_id) = &args.pane else {
        return Err(Failure::new(Exit::BadArguments, "give a PANE"));
    };
    let Sending {
        mut link,
        agent,
        journal_shown: shown,
    } = Sending::open(&args.common).await?;
    let Some(pane) = link.pane(&agent, pane_id) else {
        return Err(no_such_pane(&link, &agent, pane_id));
    };
    let Some(turn) = pane.turn().filter(|t| t.state == TurnState::Running) else {
        let last = pane
            .turn()
            .map(|t| format!(" (its last turn {} is {})", t.id, t.state))
            .unwrap_or_default();
        return Err(Failure::new(
            Exit::NotFound,
            format!("No turn is running in pane {pane_id}{last}; nothing was sent."),
        ));
    };
    let kind = IntentKind::Abort {
        pane: pane_id.clone(),
        turn_id: turn.id.clone(),
    };
    let record = link.submit(&agent, kind).await?;
    Ok(report(&record, &args.common.dial_flags(), &shown))
}
