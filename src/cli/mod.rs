//! The `collie-phone` command line: which command runs, with which flags. `main` parses and
//! hands over here; each command lives in its own file.

pub mod agent_cmd;
pub mod demo_cmd;
mod logging;
pub mod phone_cmd;
mod world_flags;

use clap::{Parser, Subcommand};

pub use world_flags::WorldFlags;

/// A terminal phone for AI coding agents, and a reference durable agent to talk to.
/// With no subcommand, opens the phone.
#[derive(Debug, Parser)]
#[command(
    name = "collie-phone",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub phone: phone_cmd::PhoneArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the reference durable agent: an HTTP server that keeps every agent-side rule.
    Agent(agent_cmd::AgentArgs),
    /// Try it out: the phone on a demo agent started on a private socket.
    Demo(demo_cmd::DemoArgs),
}

/// Runs the chosen command to its end.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Agent(args)) => agent_cmd::run(args),
        Some(Command::Demo(args)) => demo_cmd::run(args),
        None => phone_cmd::run(cli.phone),
    }
}

/// The runtime every long-running command uses.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    use anyhow::Context;
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")
}
