//! `collie-phone acp-scripted-agent` (hidden): our own ACP agent on stdin and stdout, which
//! `demo --acp` and the tests start behind the host. Its log goes to stderr, which the host
//! keeps in its own log; stdout carries only ACP.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::rigs::acp_scripted::{self, ScriptedOptions};

#[derive(Debug, Args)]
pub(crate) struct ScriptedArgs {
    /// The pause between streamed words, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 60)]
    pub(crate) pace: u64,
    /// Offer neither loadSession nor session/resume, like agents that cannot resume a
    /// conversation.
    #[arg(long)]
    pub(crate) no_load: bool,
    /// Do not offer session/resume, so a known session comes back with session/load.
    #[arg(long)]
    pub(crate) no_resume: bool,
    /// Want a sign-in before any session, like an agent run for the first time.
    #[arg(long)]
    pub(crate) sign_in: bool,
    /// Keep sessions in this folder, so a new process can load them.
    #[arg(long, value_name = "DIR")]
    pub(crate) sessions: Option<PathBuf>,
    /// Break this rule of ACP on purpose, for `check --acp` to catch (`collie-phone rules P`).
    /// May be given more than once; never for anything but tests.
    #[arg(long = "break", value_name = "RULE")]
    pub(crate) breaks: Vec<String>,
    /// The newest ACP version it speaks: 2 (v1 and the draft v2, each to a client that asks
    /// for it) or 1 (v1 alone, as agents before v2).
    #[arg(long, value_name = "VERSION", default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=2))]
    pub(crate) protocol: u16,
}

pub(crate) fn run(args: ScriptedArgs) -> anyhow::Result<()> {
    let breaks = acp_scripted::checked_breaks(&args.breaks).map_err(anyhow::Error::msg)?;
    acp_scripted::run(ScriptedOptions {
        pace: Duration::from_millis(args.pace),
        load_session: !args.no_load,
        resume: !args.no_resume && !args.no_load,
        sign_in: args.sign_in,
        sessions: args.sessions,
        breaks,
        v1_only: args.protocol == 1,
    })
}
