//! `collie-phone doctor`: one read-only pass that says why the phone can or cannot reach an
//! agent, line by line, with the fix for each line that fails.

use std::process::ExitCode;

use clap::Args;

use super::connect::ConnectArgs;

#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Which of several agents (by name) to look at.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Print the findings as JSON instead of lines.
    #[arg(long)]
    pub json: bool,
}

pub fn run(_args: DoctorArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("doctor is being built")
}
