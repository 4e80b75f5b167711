//! `collie-phone doctor`: one read-only pass that says why the phone can or cannot reach an
//! agent, line by line, with the fix for each line that fails. Exit 0 only when all hold.

use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;

use super::connect::ConnectArgs;
use crate::doctor::{self, Place, Report, Target};

#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    #[command(flatten)]
    pub(crate) connect: ConnectArgs,
    /// Look only at this agent (by name), of several.
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// Print the findings as JSON instead of lines.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn run(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let config = args.connect.read_config()?;
    let token_file = args.connect.token_file.as_deref();
    let configured = config.agents.iter().filter_map(|(name, entry)| {
        let place = Place::named(
            entry.socket.as_deref(),
            entry.url.as_deref(),
            entry.token_file.as_deref().or(token_file),
            entry.ca_cert.as_deref(),
        )?;
        Some(Target {
            name: name.clone(),
            place,
        })
    });
    let mut targets = doctor::targets(
        &args.connect.sockets,
        &args.connect.urls,
        token_file,
        args.connect.ca_cert.as_deref(),
        configured,
    );
    // Through ssh the forward is the first step: when it fails, that is the finding.
    for target in &args.connect.ssh {
        let local = super::ssh_forward::open(target).map_err(anyhow::Error::msg)?;
        if let Some(place) = Place::named(Some(&local), None, None, None) {
            targets.insert(
                0,
                Target {
                    name: target.name(),
                    place,
                },
            );
        }
    }
    if let Some(name) = &args.agent {
        targets.retain(|t| &t.name == name);
        if targets.is_empty() {
            bail!("no agent called {name}");
        }
    }
    if targets.is_empty() {
        bail!(
            "no agent to look at: give --socket PATH or --url URL --token-file FILE, set COLLIE_DURABLE_SOCKET, or name agents in {}",
            config.path().display()
        );
    }
    let reports: Vec<Report> = super::runtime()?.block_on(async {
        let mut reports = Vec::new();
        for target in &targets {
            reports.push(doctor::examine(target).await);
        }
        reports
    });
    let all_hold = reports.iter().all(|r| r.ok);
    if args.json {
        let value = if reports.len() == 1 {
            serde_json::to_value(&reports[0])
        } else {
            serde_json::to_value(&reports)
        }
        .context("could not write the report as JSON")?;
        // Cleaned value by value (SPEC L1): the report quotes the agent's words.
        let json = serde_json::to_string_pretty(&crate::out::json(value))
            .context("could not write the report as JSON")?;
        written(crate::out::println(&json));
    } else {
        let texts: Vec<String> = reports.iter().map(Report::to_text).collect();
        written(crate::out::print(&texts.join("\n")));
    }
    Ok(if all_hold {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A closed stdout ends the output, not the doctor: its exit code still tells.
fn written(result: std::io::Result<()>) {
    if let Err(error) = result {
        tracing::warn!("could not write the report to stdout: {error}");
    }
}
