//! `collie-phone dsh-bridge`: the reference DSH collaboration bridge (seed 002, SPEC D) with a
//! demo desktop host behind it, on loopback http with bearer tokens.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;

use super::logging;
use crate::dsh_wire::{DEFAULT_PREFIX, limits};
use crate::rigs::dsh_bridge::{self, BridgeOptions, DesktopOptions};

#[derive(Debug, Args)]
pub(crate) struct DshBridgeArgs {
    /// Serve the demo desktop host: three workspaces whose sessions work at a human pace.
    /// Required: the reference bridge fronts no real desktop, so it says so on its command line.
    #[arg(long)]
    pub(crate) demo: bool,
    /// Loopback address to listen on; port 0 picks one.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:19387")]
    pub(crate) listen: String,
    /// The full-scope bearer token (all workspaces, may register new ones), in a file only you
    /// may read or write.
    #[arg(long, value_name = "FILE")]
    pub(crate) token_file: PathBuf,
    /// More tokens, one JSON object a line: {"token":"…","workspaceIds":["ws-docs"] or
    /// null,"allowWorkspaceCreate":false}. The file must be private (chmod 600).
    #[arg(long, value_name = "FILE")]
    pub(crate) tokens: Option<PathBuf>,
    /// The route prefix.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_PREFIX)]
    pub(crate) prefix: String,
    /// Seed of the demo's random choices: the same seed plays the same sessions.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Speed of the demo's clock: 2 plays twice as fast, 0 freezes it.
    #[arg(long, default_value_t = 1.0, value_parser = parse_speed)]
    pub(crate) speed: f64,
    /// Events each task's follower keeps in memory (eventCacheLimit).
    #[arg(long, value_name = "N", default_value_t = limits::DEFAULT_EVENT_CACHE)]
    pub(crate) event_cache: usize,
    /// Events each session's durable log keeps; a transcript older than that shows a gap.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub(crate) durable_log: usize,
    /// Upper bound of tasks/wait's waitMs (maxWaitMs).
    #[arg(long, value_name = "MS", default_value_t = limits::DEFAULT_MAX_WAIT_MS)]
    pub(crate) max_wait_ms: u64,
    /// Milliseconds between `: keep-alive` comments on /events.
    #[arg(long, value_name = "MS", default_value_t = limits::KEEP_ALIVE_SECS * 1000)]
    pub(crate) keep_alive_ms: u64,
    /// Answer 503 bridge/not-ready to everything but /health for this many milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub(crate) ready_after: u64,
    /// Simulate a desktop reload this often (e.g. 90s): a new pid on /health and the last
    /// events sent again. SIGHUP does it once.
    #[arg(long, value_name = "DURATION")]
    pub(crate) reload_every: Option<humantime::Duration>,
    /// Where the demo's workspace directories go (default: a new temporary directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) root: Option<PathBuf>,
    /// Also allow workspaces under this directory (the deployment's workspacePaths). The demo
    /// root is always allowed. May be given more than once.
    #[arg(long = "workspace-path", value_name = "DIR")]
    pub(crate) workspace_paths: Vec<PathBuf>,
    /// Refuse every /workspaces/create (the deployment's allowWorkspaceCreate: false).
    #[arg(long)]
    pub(crate) no_workspace_create: bool,
    /// Write the log to this file instead of stderr.
    #[arg(long, value_name = "FILE")]
    pub(crate) log: Option<PathBuf>,
}

fn parse_speed(text: &str) -> Result<f64, String> {
    let speed: f64 = text
        .parse()
        .map_err(|_| format!("{text} is not a number"))?;
    if speed.is_finite() && speed >= 0.0 {
        Ok(speed)
    } else {
        Err("the speed is a number of 0 or more".to_string())
    }
}

pub(crate) fn run(args: DshBridgeArgs) -> anyhow::Result<()> {
    let _log = logging::init(args.log.as_deref(), "info")?;
    if !args.demo {
        bail!("the reference bridge has only a demo desktop host: run it with --demo");
    }
    if !args.prefix.starts_with('/') || args.prefix.ends_with('/') {
        bail!(
            "--prefix {:?} must start with / and not end with /, e.g. /codex-bridge",
            args.prefix
        );
    }
    if args.event_cache == 0 || args.durable_log == 0 {
        bail!("--event-cache and --durable-log are at least 1");
    }
    // Kept alive until the bridge stops; removed then, with the demo's directories.
    let temporary = match &args.root {
        Some(_) => None,
        None => Some(tempfile::tempdir().context("could not make a temporary demo directory")?),
    };
    let root = match (&args.root, &temporary) {
        (Some(root), _) => root.clone(),
        (None, Some(dir)) => dir.path().to_path_buf(),
        (None, None) => bail!("no demo directory"),
    };
    std::fs::create_dir_all(&root)
        .with_context(|| format!("could not make the demo directory {}", root.display()))?;
    let root = root
        .canonicalize()
        .with_context(|| format!("could not resolve {}", root.display()))?;
    let mut workspace_paths = vec![root.clone()];
    for path in &args.workspace_paths {
        workspace_paths.push(path.canonicalize().with_context(|| {
            format!(
                "--workspace-path {} is not an existing directory",
                path.display()
            )
        })?);
    }
    let options = BridgeOptions {
        desktop: DesktopOptions {
            seed: args.seed,
            speed: args.speed,
            event_cache: args.event_cache,
            durable_log: args.durable_log,
            root,
            workspace_paths,
            allow_workspace_create: !args.no_workspace_create,
            route_prefix: args.prefix.clone(),
            keep_alive_ms: args.keep_alive_ms,
            max_wait_ms: args.max_wait_ms,
        },
        listen: args.listen.clone(),
        token_file: args.token_file.clone(),
        scoped_tokens: args.tokens.clone(),
        ready_after: Duration::from_millis(args.ready_after),
        reload_every: args.reload_every.map(Into::into),
    };
    super::runtime()?.block_on(async move {
        let stop = crate::cli::signal::shutdown_signal();
        let bound = dsh_bridge::bind(options).await?;
        announce(&bound.url)?;
        tracing::info!(at = %bound.url, "the reference DSH bridge is listening");
        bound.serve(stop).await
    })
}

/// Like the agent: exactly `listening <url>` on stdout, flushed, so whoever started the bridge
/// can wait for it and learn a picked port.
fn announce(url: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening {url}").context("could not write to stdout")?;
    stdout.flush().context("could not write to stdout")
}
