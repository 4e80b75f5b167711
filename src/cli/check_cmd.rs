//! `collie-phone check`: the conformance suite against any durable agent, and with `--acp`
//! against an ACP agent over its stdio (`check_acp`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use super::connect::ConnectArgs;
use crate::check::{self, Probe};
use crate::check_acp;
use crate::config::Config;
use crate::transport::Token;
use crate::transport::token::TokenSource;

/// Exit code when a rule failed.
const EXIT_FAILED: u8 = 1;
/// Exit code when the agent could not be reached at all, so nothing was checked.
const EXIT_UNREACHABLE: u8 = 2;

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) connect: ConnectArgs,
    /// Which of several agents (by name) to check.
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// Also run the checks that change the agent's state (answers, sends, starters).
    #[arg(long)]
    pub(crate) allow_writes: bool,
    /// Print the results as JSON instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also write the results as JUnit XML to FILE, for CI.
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<PathBuf>,
    /// Check an ACP agent instead (`collie-phone rules P`): COMMAND is split like a shell line
    /// and run directly, never through a shell; or NAME, an agent of the config's [acp.NAME].
    #[arg(long, value_name = "COMMAND|NAME")]
    pub(crate) acp: Option<String>,
    /// With --acp: the folder its sessions work in (default: a scratch folder of the check's
    /// own, removed at the end).
    #[arg(long, value_name = "DIR", requires = "acp")]
    pub(crate) workspace: Option<PathBuf>,
    /// With --acp: run one turn with this prompt, to check the rules of a turn (its model
    /// answers it). May be given more than once, one turn each.
    #[arg(long, value_name = "TEXT", requires = "acp")]
    pub(crate) prompt: Vec<String>,
    /// With --acp: switch the session of the prompts to this mode first (one that asks before
    /// it acts, e.g. `default` for Claude Code, `read-only` for Codex), so the turns show the
    /// agent's permission requests. The check never approves one.
    #[arg(long, value_name = "MODE", requires = "prompt")]
    pub(crate) mode: Option<String>,
    /// With --acp: the ACP version to ask for and judge by: 1, or the draft 2 (the rules in
    /// v2's terms: docs/SPEC.md, P).
    #[arg(long, value_name = "VERSION", requires = "acp", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=2))]
    pub(crate) protocol: u16,
    /// With --acp: where the agent's stderr goes (default: agent.log in a private folder of the
    /// check's own in the temporary folder, 0700 with a random name, named in the report's
    /// first line).
    #[arg(long, value_name = "FILE", requires = "acp")]
    pub(crate) log: Option<PathBuf>,
}

/// Exit 0 when nothing failed (skips are fine) or, with --acp, when the verdict is conformant
/// (SPEC P, "Tiers and the verdict"); 1 otherwise; 2 when the agent could not be reached.
pub(crate) fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    if let Some(acp) = &args.acp {
        return run_acp(&args, acp);
    }
    let config = args.connect.read_config()?;
    let spec = args.connect.one_agent(&config, args.agent.as_deref())?;
    let token = token_of(&args.connect, &config, &spec.name);
    let probe = match Probe::connect(spec.endpoint, token, args.allow_writes) {
        Ok(probe) => probe,
        Err(unreachable) => return Ok(unreachable_exit(&spec.name, &unreachable, args.json)),
    };
    let report = match check::run(probe) {
        Ok(report) => report,
        Err(unreachable) => return Ok(unreachable_exit(&spec.name, &unreachable, args.json)),
    };
    finish(&args, &report)
}

/// `check --acp`: the agent named or given is started and judged by the rules of SPEC P.
fn run_acp(args: &CheckArgs, acp: &str) -> anyhow::Result<ExitCode> {
    let connect = &args.connect;
    if !connect.sockets.is_empty()
        || !connect.urls.is_empty()
        || !connect.ssh.is_empty()
        || !connect.dsh.is_empty()
        || connect.token_file.is_some()
        || connect.dsh_token_file.is_some()
        || connect.ca_cert.is_some()
        || connect.pin.is_some()
        || args.agent.is_some()
        || args.allow_writes
    {
        anyhow::bail!(
            "--acp checks an ACP agent over its stdio; --socket, --url, --ssh, --dsh, their tokens and certificates, --agent and --allow-writes are for durable agents: give one or the other"
        );
    }
    let config = connect.read_config()?;
    let (command, shown) = match config.acp.get(acp.trim()) {
        Some(entry) => (
            entry.command.clone(),
            format!(
                "{} ([acp.{}])",
                shell_words::join(&entry.command),
                acp.trim()
            ),
        ),
        None => (
            shell_words::split(acp)
                .map_err(|error| anyhow::anyhow!("the command of --acp cannot be read: {error}"))?,
            acp.to_string(),
        ),
    };
    if command
        .first()
        .is_none_or(|program| program.trim().is_empty())
    {
        anyhow::bail!(
            "--acp needs a command, e.g. --acp \"gemini --acp\", or the name of an [acp.NAME] agent of the config"
        );
    }
    let options = check_acp::AcpOptions {
        command,
        shown: shown.clone(),
        workspace: args.workspace.clone(),
        prompts: args.prompt.clone(),
        mode: args.mode.clone(),
        protocol: args.protocol,
        log: args.log.clone(),
    };
    if args.protocol == 2 && args.mode.is_some() {
        anyhow::bail!(
            "--mode switches a session's mode, and ACP v2 has no modes (no session/set_mode): leave --mode out with --protocol 2"
        );
    }
    let report = match check_acp::run(options) {
        Ok(report) => report,
        Err(unstartable) => {
            if args.json {
                write_out(crate::out::println_json(
                    serde_json::json!({"agent": shown, "unreachable": unstartable.to_string()}),
                ));
            }
            crate::out::eprintln(&format!(
                "collie-phone check --acp: could not start the agent {shown}, so nothing was checked: {unstartable}."
            ));
            return Ok(ExitCode::from(EXIT_UNREACHABLE));
        }
    };
    finish(args, &report)
}

/// Writes the report (JUnit, then JSON or the table) and gives the exit code.
fn finish(args: &CheckArgs, report: &check::Report) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.junit {
        crate::out::write_file(path, &report.junit())
            .with_context(|| format!("cannot write the JUnit report to {}", path.display()))?;
    }
    if args.json {
        let text = serde_json::to_string_pretty(&report.json())
            .context("the report did not encode as JSON")?;
        write_out(crate::out::println(&text));
    } else {
        write_out(crate::out::print(&report.table()));
    }
    tracing::info!(summary = ?report.summary(), failed = ?report.failed_rules(), "check done");
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAILED)
    })
}

/// The token the agent's endpoint was given, found the same way: the config entry's token
/// file, else --token-file, else `COLLIE_DURABLE_TOKEN`. The check needs its text for the few
/// requests the phone's transport never sends (paths outside /session/v1).
fn token_of(connect: &ConnectArgs, config: &Config, name: &str) -> Option<Token> {
    let entry_file = config
        .agents
        .get(name)
        .and_then(|entry| entry.token_file.clone());
    let source = TokenSource::from_env(connect.token_file.clone());
    match entry_file.or(source.file) {
        Some(file) => Token::from_file(&file).ok(),
        None => source.env.and_then(|text| Token::new(&text).ok()),
    }
}

/// A closed stdout ends the output, not the check: its exit code still tells.
fn write_out(written: std::io::Result<()>) {
    if let Err(error) = written {
        tracing::warn!("could not write the report to stdout: {error}");
    }
}

/// Says why on stderr (and, with `--json`, as `{"agent", "unreachable"}` on stdout).
fn unreachable_exit(name: &str, unreachable: &check::Unreachable, json: bool) -> ExitCode {
    if json {
        write_out(crate::out::println_json(
            serde_json::json!({"agent": name, "unreachable": unreachable.to_string()}),
        ));
    }
    crate::out::eprintln(&format!(
        "collie-phone check: could not reach the agent {name}, so nothing was checked: {unreachable}.\n\
         Run `collie-phone doctor` with the same flags to see which step fails."
    ));
    ExitCode::from(EXIT_UNREACHABLE)
}
