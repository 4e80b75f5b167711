//! The phone from a script: headless commands over the same engine as the screens, with the
//! same request-id receipts and outcomes, and exit codes that tell the outcomes apart.

use std::process::ExitCode;

use clap::Args;

use super::connect::{ConnectArgs, RecordArgs};

/// The flags every headless command shares.
#[derive(Debug, Clone, Args)]
pub struct ScriptArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    pub record: RecordArgs,
    /// Which of several agents (by name) to talk to.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Print JSON instead of lines.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct AsksArgs {
    #[command(flatten)]
    pub common: ScriptArgs,
}

#[derive(Debug, Args)]
pub struct AnswerArgs {
    #[command(flatten)]
    pub common: ScriptArgs,
    /// The ask's id.
    pub ask: String,
    /// The option to choose.
    pub option: Option<String>,
    /// Answer a text ask with this text.
    #[arg(long, value_name = "TEXT", conflicts_with = "option")]
    pub text: Option<String>,
    /// Answer a form ask, a field at a time: --field name=value.
    #[arg(long = "field", value_name = "NAME=VALUE", conflicts_with_all = ["option", "text"])]
    pub fields: Vec<String>,
}

#[derive(Debug, Args)]
pub struct SendArgs {
    #[command(flatten)]
    pub common: ScriptArgs,
    /// The pane's id.
    pub pane: String,
    /// What to send.
    pub text: String,
}

#[derive(Debug, Args)]
pub struct AbortArgs {
    #[command(flatten)]
    pub common: ScriptArgs,
    /// The pane's id.
    pub pane: String,
}

#[derive(Debug, Args)]
pub struct StartArgs {
    #[command(flatten)]
    pub common: ScriptArgs,
    /// The starter's id.
    pub starter: String,
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    #[command(flatten)]
    pub common: ScriptArgs,
}

pub fn asks(_args: AsksArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("asks is being built")
}
pub fn answer(_args: AnswerArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("answer is being built")
}
pub fn send(_args: SendArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("send is being built")
}
pub fn abort(_args: AbortArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("abort is being built")
}
pub fn start(_args: StartArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("start is being built")
}
pub fn watch(_args: WatchArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("watch is being built")
}
