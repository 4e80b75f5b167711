//! `collie-phone check`: the conformance suite against any durable agent.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::connect::ConnectArgs;

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

pub fn run(_args: CheckArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("check is being built")
}
