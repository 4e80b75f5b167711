//! `collie-phone replay FILE`: serves a recording made with `--record` as a fake agent on a
//! private socket, so a bug report can be played back in the phone.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The recording, written by `--record FILE`.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

pub fn run(_args: ReplayArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("replay is being built")
}
