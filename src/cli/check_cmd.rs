//! `collie-phone check`: the conformance suite against any durable agent.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use super::connect::ConnectArgs;
use crate::check::{self, Probe};

/// Exit code when a rule failed.
const EXIT_FAILED: u8 = 1;
/// Exit code when the agent could not be reached at all, so nothing was checked.
const EXIT_UNREACHABLE: u8 = 2;

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Which of several agents (by name) to check.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Also run the checks that change the agent's state (answers, sends, starters).
    #[arg(long)]
    pub allow_writes: bool,
    /// Print the results as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also write the results as JUnit XML to FILE, for CI.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

/// Exit 0 when nothing failed (skips are fine), 1 on any failure, 2 when the agent could not
/// be reached.
pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let spec = args.connect.one_agent(args.agent.as_deref())?;
    let probe = match Probe::connect(spec.endpoint, args.allow_writes) {
        Ok(probe) => probe,
        Err(unreachable) => return Ok(unreachable_exit(&spec.name, &unreachable, args.json)),
    };
    let report = match check::run(probe) {
        Ok(report) => report,
        Err(unreachable) => return Ok(unreachable_exit(&spec.name, &unreachable, args.json)),
    };
    if let Some(path) = &args.junit {
        std::fs::write(path, report.junit())
            .with_context(|| format!("cannot write the JUnit report to {}", path.display()))?;
    }
    if args.json {
        let text = serde_json::to_string_pretty(&report.json())
            .context("the report did not encode as JSON")?;
        println!("{text}");
    } else {
        print!("{}", report.table());
    }
    tracing::info!(summary = ?report.summary(), failed = ?report.failed_rules(), "check done");
    Ok(if report.summary().failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAILED)
    })
}

/// Says why on stderr (and, with `--json`, as `{"agent", "unreachable"}` on stdout).
fn unreachable_exit(name: &str, unreachable: &check::Unreachable, json: bool) -> ExitCode {
    if json {
        println!(
            "{}",
            serde_json::json!({"agent": name, "unreachable": unreachable.to_string()})
        );
    }
    eprintln!(
        "collie-phone check: could not reach the agent {name}, so nothing was checked: {unreachable}.\n\
         Run `collie-phone doctor` with the same flags to see which step fails."
    );
    ExitCode::from(EXIT_UNREACHABLE)
}
