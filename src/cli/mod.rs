//! The `collie-phone` command line: which command runs, with which flags. `main` parses and
//! hands over here; each command lives in its own file.

pub mod agent_cmd;
pub mod demo_cmd;
mod logging;
mod world_flags;

use clap::{Parser, Subcommand};

pub use world_flags::WorldFlags;

/// A terminal phone for AI coding agents, and a reference durable agent to talk to.
#[derive(Debug, Parser)]
#[command(name = "collie-phone", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the reference durable agent: an HTTP server that keeps every agent-side rule.
    Agent(agent_cmd::AgentArgs),
    /// Try it out: a demo agent on a private socket, and how to reach it.
    Demo(demo_cmd::DemoArgs),
}

/// Runs the chosen command to its end.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Agent(args) => agent_cmd::run(args),
        Command::Demo(args) => demo_cmd::run(args),
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
