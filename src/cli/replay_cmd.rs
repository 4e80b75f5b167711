//! `collie-phone replay FILE`: serves a recording made with `--record` as a fake agent on a
//! private socket, so a bug report can be played back in the phone. With `--socket PATH` it only
//! serves (and prints `listening unix:PATH`, like the agent); without, it serves from a private
//! temp folder and opens the phone on it in this terminal, removing the folder at the end.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::Args;

use super::logging;
use super::phone_cmd::{PhoneSetup, open_phone, start_log};
use crate::durable::listen;
use crate::engine::AgentSpec;
use crate::rigs::replay::{Answers, Recording, ReplayServer, Speed};
use crate::transport::Endpoint;
use crate::wire::limits::MAX_SOCKET_PATH;

const SOCKET_NAME: &str = "agent.sock";

#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// The recording, written by `--record FILE`.
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,
    /// Only serve, on this socket (`collie-phone rules S`), and print `listening unix:PATH`;
    /// point the phone at it with --socket PATH.
    #[arg(long, value_name = "PATH")]
    pub(crate) socket: Option<PathBuf>,
    /// Recorded seconds per second: 1 plays it as it happened, 10 ten times faster, 0 jumps
    /// straight to the end state.
    #[arg(long, value_name = "N", default_value = "1", value_parser = Speed::parse)]
    pub(crate) speed: Speed,
    /// Which agent of the recording to serve, when it holds several.
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// auto (light or dark by the terminal's background; the default), a built-in theme
    /// (dark, light, high-contrast) or a theme file.
    #[arg(long, value_name = "NAME|PATH")]
    pub(crate) theme: Option<String>,
    /// The config file for theme, bell and keys.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// Write the log here (with --socket the default is stderr, else
    /// $XDG_STATE_HOME/collie-phone/phone.log).
    #[arg(long, value_name = "FILE")]
    pub(crate) log: Option<PathBuf>,
}

pub(crate) fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    match args.socket.clone() {
        Some(socket) => serve_only(&args, &socket)?,
        None => serve_and_open(&args)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn load(args: &ReplayArgs) -> anyhow::Result<(Recording, Arc<ReplayServer>)> {
    let recording = Recording::load(&args.file, args.agent.as_deref())?;
    if recording.exchanges.is_empty() {
        bail!(
            "{} holds no reply of agent {} to serve",
            args.file.display(),
            recording.agent
        );
    }
    tracing::info!(
        file = %args.file.display(),
        agent = %recording.agent,
        exchanges = recording.exchanges.len(),
        skipped = recording.skipped,
        seconds = recording.length_ms() / 1000,
        speed = ?args.speed,
        "replaying"
    );
    let server = ReplayServer::new(Answers::new(&recording.exchanges), args.speed);
    Ok((recording, server))
}

fn serve_only(args: &ReplayArgs, socket: &Path) -> anyhow::Result<()> {
    let _log = logging::init(args.log.as_deref(), "info")?;
    let (_, server) = load(args)?;
    super::runtime()?.block_on(async {
        let binding = listen::bind_unix(socket)?;
        let stop = super::signal::shutdown_signal();
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "listening {}", binding.url())
            .and_then(|()| stdout.flush())
            .context("could not write to stdout")?;
        drop(stdout);
        binding.serve(server, stop).await;
        Ok(())
    })
}

fn serve_and_open(args: &ReplayArgs) -> anyhow::Result<()> {
    let _log = start_log(args.log.as_deref())?;
    let (recording, server) = load(args)?;
    let config = super::connect::read_config_at(args.config.as_deref())?;
    let mut setup = PhoneSetup::load(&config, args.theme.as_deref())?;
    let folder = private_folder()?;
    // The replay's intents stay with the replay: a real journal never sees them.
    setup.journal = folder.path().join("intents.jsonl");
    let socket = folder.path().join(SOCKET_NAME);
    super::runtime()?.block_on(async {
        let binding = listen::bind_unix(&socket)?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(binding.serve(server, async {
            let _ = stopped.await;
        }));
        let spec = AgentSpec {
            name: recording.agent.clone(),
            endpoint: Endpoint::socket(socket.clone()),
        };
        let shown = open_phone(vec![spec], setup).await;
        let _ = stop.send(());
        if let Err(error) = serving.await {
            tracing::warn!(%error, "the replay server did not stop cleanly");
        }
        shown
    })?;
    drop(folder);
    Ok(())
}

/// A fresh folder of mode 0700 for the socket (SPEC S2), under `$XDG_RUNTIME_DIR` when there is
/// one, else the temp folder, wherever the socket path stays within 103 bytes (SPEC S1).
fn private_folder() -> anyhow::Result<tempfile::TempDir> {
    let bases = [
        std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from),
        Some(std::env::temp_dir()),
        Some(PathBuf::from("/tmp")),
    ];
    for base in bases
        .into_iter()
        .flatten()
        .filter(|base| base.is_absolute() && base.is_dir())
    {
        let folder = tempfile::Builder::new()
            .prefix("collie-phone-replay-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(&base);
        match folder {
            Ok(folder) if folder.path().join(SOCKET_NAME).as_os_str().len() <= MAX_SOCKET_PATH => {
                return Ok(folder);
            }
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(%error, base = %base.display(), "cannot make the replay folder here");
            }
        }
    }
    bail!(
        "could not make a private folder for the replay's socket under $XDG_RUNTIME_DIR or the temp folder; give one with --socket PATH"
    )
}
