//! The `collie-phone` command line: which command runs, with which flags. `main` parses and
//! hands over here; each command lives in its own file.

pub(crate) mod agent_cmd;
pub(crate) mod check_cmd;
pub(crate) mod connect;
pub(crate) mod demo_cmd;
pub(crate) mod doctor_cmd;
pub(crate) mod dsh_bridge_cmd;
pub(crate) mod headless;
mod logging;
pub(crate) mod phone_cmd;
pub(crate) mod replay_cmd;
pub(crate) mod rings;
pub mod rule_book;
pub(crate) mod scripted_cmd;
mod shell_cmd;
mod signal;
pub(crate) mod ssh_forward;
mod world_flags;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub(crate) use world_flags::WorldFlags;

/// A terminal phone for AI coding agents, and a reference durable agent to talk to.
/// With no subcommand, opens the phone.
#[derive(Debug, Parser)]
#[command(
    name = "collie-phone",
    version,
    about,
    args_conflicts_with_subcommands = true,
    // clap's own `help` takes no --help; ours does, as every command does (`Command::Help`).
    disable_help_subcommand = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    #[command(flatten)]
    pub(crate) phone: phone_cmd::PhoneArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run the reference durable agent: an HTTP server that keeps every agent-side rule.
    Agent(agent_cmd::AgentArgs),
    /// Try it out: the phone on a demo agent started on a private socket.
    Demo(demo_cmd::DemoArgs),
    /// Why can't I reach my agent? One read-only pass, a line per step, a fix for each failure.
    Doctor(doctor_cmd::DoctorArgs),
    /// Check that an agent keeps the protocol, rule by rule (the rules `collie-phone rules` lists);
    /// non-zero on any failure.
    Check(check_cmd::CheckArgs),
    /// List the open asks.
    Asks(headless::AsksArgs),
    /// Answer an ask: with an option, --text, or --field name=value.
    Answer(headless::AnswerArgs),
    /// Send text to a pane.
    Send(headless::SendArgs),
    /// Stop a pane's running turn.
    Abort(headless::AbortArgs),
    /// Run a starter.
    Start(headless::StartArgs),
    /// Print what happens (events, agent states, ask changes) until stopped.
    Watch(headless::WatchArgs),
    /// Serve a recording made with --record as a fake agent, to play a bug back in the phone.
    Replay(replay_cmd::ReplayArgs),
    /// Run the reference DSH collaboration bridge with a demo desktop host
    /// (`collie-phone rules D`).
    DshBridge(dsh_bridge_cmd::DshBridgeArgs),
    /// Print the completion script for a shell, e.g. `collie-phone completions bash >
    /// ~/.local/share/bash-completion/completions/collie-phone`.
    Completions(shell_cmd::CompletionsArgs),
    /// Print the man page (`collie-phone man | man -l -`), or write one per command with --dir.
    Man(shell_cmd::ManArgs),
    /// Print a rule of the rule book (`collie-phone rules S1`), a family (`rules S`), or the
    /// list of every rule with no id.
    Rules(RulesArgs),
    /// Print the help of collie-phone, or of a command (`collie-phone help answer`).
    Help(shell_cmd::HelpArgs),
    /// Our own ACP agent on stdin and stdout, for `demo --acp` and the tests.
    #[command(hide = true)]
    AcpScriptedAgent(scripted_cmd::ScriptedArgs),
}

/// True for an error that is the person's command, not the world: the config file holding what
/// the command line refuses as a usage error (a socket path of the wrong shape, SPEC S1), so it
/// exits 2 as the same mistake after `--socket` does.
pub fn is_usage_error(error: &anyhow::Error) -> bool {
    error
        .downcast_ref::<crate::config::ConfigError>()
        .is_some_and(crate::config::ConfigError::is_usage)
        || error.downcast_ref::<connect::SeveralDemos>().is_some()
}

/// The exit code of a command that ended in `error`: 2 for a usage error, else 1.
pub fn failure_code(error: &anyhow::Error) -> ExitCode {
    if is_usage_error(error) {
        ExitCode::from(2)
    } else {
        ExitCode::FAILURE
    }
}

/// Runs the chosen command to its end; the exit code tells how it went.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let result = run_command(cli);
    // The ssh forwards a command opened end with it (docs/REMOTE.md).
    ssh_forward::end_all();
    result
}

fn run_command(cli: Cli) -> anyhow::Result<ExitCode> {
    let done = |result: anyhow::Result<()>| result.map(|()| ExitCode::SUCCESS);
    match cli.command {
        Some(Command::Agent(args)) => done(agent_cmd::run(args)),
        Some(Command::Demo(args)) => done(demo_cmd::run(args)),
        Some(Command::Doctor(args)) => doctor_cmd::run(args),
        Some(Command::Check(args)) => check_cmd::run(args),
        Some(Command::Asks(args)) => headless::asks(args),
        Some(Command::Answer(args)) => headless::answer(args),
        Some(Command::Send(args)) => headless::send(args),
        Some(Command::Abort(args)) => headless::abort(args),
        Some(Command::Start(args)) => headless::start(args),
        Some(Command::Watch(args)) => headless::watch(args),
        Some(Command::Replay(args)) => replay_cmd::run(args),
        Some(Command::DshBridge(args)) => done(dsh_bridge_cmd::run(args)),
        Some(Command::Completions(args)) => done(shell_cmd::completions(args)),
        Some(Command::Man(args)) => done(shell_cmd::man(args)),
        Some(Command::Rules(args)) => Ok(rules(&args)),
        Some(Command::Help(args)) => Ok(shell_cmd::help(&args)),
        Some(Command::AcpScriptedAgent(args)) => done(scripted_cmd::run(args)),
        None => done(phone_cmd::run(cli.phone)),
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct RulesArgs {
    /// A rule's id (W4, S1, L.layout) or a family's letter (S); none lists them all.
    #[arg(value_name = "ID")]
    pub(crate) id: Option<String>,
}

/// `collie-phone rules [ID]`: the book built into the binary, so the help's pointers work
/// without the repository.
fn rules(args: &RulesArgs) -> ExitCode {
    match rule_book::look_up(rule_book::BOOK, args.id.as_deref()) {
        Ok(text) => {
            // A reader that went away (`| head`) is not an error.
            let _ = crate::out::print(&text);
            ExitCode::SUCCESS
        }
        Err(why) => {
            crate::out::eprintln(&format!("collie-phone: {why}"));
            ExitCode::from(2)
        }
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
