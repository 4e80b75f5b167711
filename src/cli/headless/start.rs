//! `collie-phone start STARTER`: run one of the agent's starters, the rows of the phone's
//! "New" page (SPEC A17); the reply names the new pane.

use std::process::ExitCode;

use clap::Args;

use super::args::ScriptArgs;
use super::exit::{self, Exit};
use super::link::Sending;
use super::out::{Failure, Report, run_to_end};
use super::receipt::report;
use crate::engine::IntentKind;

#[derive(Debug, Args)]
// STARTER is needed unless --retry is given: the usage says so (clap's would show it optional).
#[command(
    after_help = exit::help(),
    override_usage = "collie-phone start [OPTIONS] STARTER\n       collie-phone start [OPTIONS] --retry REQUEST_ID"
)]
pub(crate) struct StartArgs {
    #[command(flatten)]
    pub(crate) common: ScriptArgs,
    /// The starter's id (a wrong one prints the agent's starters). Needed unless --retry.
    #[arg(required_unless_present = "retry")]
    pub(crate) starter: Option<String>,
    /// Run the starter with this request id again, from its receipt, after an unknown outcome
    /// (same id, same body; never a third time).
    #[arg(long, value_name = "REQUEST_ID", conflicts_with = "starter")]
    pub(crate) retry: Option<String>,
}

pub(crate) fn run(args: StartArgs) -> anyhow::Result<ExitCode> {
    if let Some(request_id) = &args.retry {
        return super::retry::run(&args.common, "start", request_id);
    }
    run_to_end(args.common.json, start(&args))
}

async fn start(args: &StartArgs) -> Result<Report, Failure> {
    let Some(starter_id) = &args.starter else {
        return Err(Failure::new(Exit::BadArguments, "give a STARTER"));
    };
    let Sending {
        mut link,
        agent,
        journal_shown: shown,
    } = Sending::open(&args.common).await?;
    let starters: Vec<(String, String)> = link
        .views
        .get(&agent)
        .and_then(|v| v.snapshot.as_ref())
        .map(|s| {
            s.starters
                .iter()
                .map(|st| (st.id.clone(), st.title.clone()))
                .collect()
        })
        .unwrap_or_default();
    if !starters.iter().any(|(id, _)| id == starter_id) {
        let listed: Vec<String> = starters
            .iter()
            .map(|(id, title)| format!("{id} ({title})"))
            .collect();
        return Err(Failure::new(
            Exit::NotFound,
            format!(
                "the agent \"{agent}\" has no starter {starter_id}; its starters are {}",
                if listed.is_empty() {
                    "none".to_string()
                } else {
                    listed.join(", ")
                }
            ),
        )
        .with(serde_json::json!({
            "starters": starters.iter().map(|(id, _)| id).collect::<Vec<_>>()
        })));
    }
    let kind = IntentKind::Starter {
        starter_id: starter_id.clone(),
    };
    let record = link.submit(&agent, kind).await?;
    Ok(report(&record, &args.common.dial_flags(), &shown))
}
