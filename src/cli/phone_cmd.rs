//! `collie-phone` with no subcommand: the phone itself, over the engine, in this terminal.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;
use time::OffsetDateTime;

use super::connect::{ConnectArgs, RecordArgs};
use super::logging;
use crate::app::AppSetup;
use crate::app::settings::Settings;
use crate::config::Config;
use crate::engine::dsh::BridgeSpec;
use crate::engine::{AgentSpec, Engine, EngineOptions, Journal};
use crate::look::theme::Theme;
use crate::shell::App;
use crate::transport::own_files;
use crate::tui::{Tui, terminal};

#[derive(Debug, Clone, Args, Default)]
pub(crate) struct PhoneArgs {
    #[command(flatten)]
    pub(crate) connect: ConnectArgs,
    #[command(flatten)]
    pub(crate) record: RecordArgs,
    /// auto (light or dark by the terminal's background; the default), a built-in theme (dark,
    /// light, high-contrast) or a theme file. NO_COLOR is honoured.
    #[arg(long, value_name = "NAME|PATH")]
    pub(crate) theme: Option<String>,
    /// Write the log here instead of $XDG_STATE_HOME/collie-phone/phone.log.
    #[arg(long, value_name = "FILE")]
    pub(crate) log: Option<PathBuf>,
}

/// Everything the phone needs besides its agents.
pub(crate) struct PhoneSetup {
    /// The config's settings for the phone: keys, how asks are announced, the mouse.
    pub(crate) settings: Settings,
    pub(crate) theme: Theme,
    pub(crate) journal: PathBuf,
    pub(crate) engine: EngineOptions,
    /// The demo's own agent: its name, its socket, and where its runner says it stopped.
    pub(crate) demo: Option<DemoSide>,
}

/// What `collie-phone demo` gives the phone of the agent it runs.
pub(crate) struct DemoSide {
    pub(crate) agent: String,
    pub(crate) socket: PathBuf,
    pub(crate) news: tokio::sync::mpsc::UnboundedReceiver<crate::app::Message>,
}

impl PhoneSetup {
    /// The phone's part of the config, and the theme: `--theme` wins over the file's `theme`.
    /// `auto` (the default) asks the terminal for its background, here, before the screens
    /// take the terminal over.
    pub(crate) fn load(config: &Config, theme: Option<&str>) -> anyhow::Result<Self> {
        let detect = crate::tui::background::detect;
        let theme = match theme {
            Some(flag) => crate::config::theme_from_env(Some(flag), detect)?,
            None => match config.theme(detect) {
                Some(from_file) => from_file.inspect_err(|error| {
                    tracing::error!(%error, "the config file's theme is refused");
                })?,
                None => crate::config::theme_from_env(None, detect)?,
            },
        };
        Ok(Self {
            settings: config.settings().clone(),
            theme,
            journal: Journal::default_path().map_err(not_yours)?,
            engine: EngineOptions::default(),
            demo: None,
        })
    }
}

/// A folder or file of the person's that is not theirs alone, as the one sentence they act on.
pub(crate) fn not_yours(refused: crate::transport::NotPrivate) -> anyhow::Error {
    anyhow::anyhow!(refused.with_fix())
}

/// `$XDG_STATE_HOME/collie-phone/phone.log`, in the state folder of the person's own (SPEC S8).
fn default_log_path() -> anyhow::Result<PathBuf> {
    let folder = own_files::state_dir().map_err(not_yours)?;
    own_files::make_private_dir(&folder).map_err(not_yours)?;
    Ok(folder.join("phone.log"))
}

/// Starts tracing into a file: the terminal belongs to the screens. A `--log` path is the
/// person's choice of folder; the file itself is opened as every file of ours (SPEC S9).
pub(crate) fn start_log(path: Option<&Path>) -> anyhow::Result<logging::LogGuard> {
    let path = match path {
        Some(path) => path.to_path_buf(),
        None => default_log_path()?,
    };
    logging::init(Some(&path), "info")
}

pub(crate) fn run(args: PhoneArgs) -> anyhow::Result<()> {
    let _log = start_log(args.log.as_deref())?;
    let config = args.connect.read_config()?;
    let mut setup = PhoneSetup::load(&config, args.theme.as_deref())?;
    setup.engine.record = args.record.record.clone();
    let (agents, bridges) = args.connect.agents_and_bridges(&config)?;
    super::runtime()?.block_on(open_phone_mixed(agents, bridges, setup))
}

/// Opens the phone on these agents in this terminal until the person quits or a stop signal
/// comes; the terminal is restored either way.
pub(crate) async fn open_phone(agents: Vec<AgentSpec>, setup: PhoneSetup) -> anyhow::Result<()> {
    open_phone_mixed(agents, Vec::new(), setup).await
}

/// [`open_phone`] on Collie agents and DSH bridges together (SPEC D): each bridge is one more
/// agent of the phone, by its name.
pub(crate) async fn open_phone_mixed(
    agents: Vec<AgentSpec>,
    bridges: Vec<BridgeSpec>,
    setup: PhoneSetup,
) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        bail!("the phone needs a terminal: run it in one (stdin and stdout are not a TTY)");
    }
    // TLS agents need a crypto provider before their first client is built.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut named: Vec<(String, bool)> = agents
        .iter()
        .map(|a| (a.name.clone(), a.endpoint.is_tls()))
        .collect();
    let dials: Vec<(String, String)> = agents
        .iter()
        .map(|a| (a.name.clone(), super::rings::answer_dial(a)))
        .collect();
    let through_ssh: Vec<(String, String)> = agents
        .iter()
        .filter_map(|a| Some((a.name.clone(), a.endpoint.through_ssh()?.to_string())))
        .collect();
    let bridge_names: Vec<String> = bridges.iter().map(|b| b.name.clone()).collect();
    named.extend(bridge_names.iter().map(|name| (name.clone(), false)));
    let engine = Engine::start_mixed(agents, bridges, &setup.journal, setup.engine.clone())?;
    let (terminal, _guard) =
        terminal::enter(setup.settings.mouse).context("could not take over the terminal")?;
    let size = terminal
        .size()
        .map(|s| (s.width, s.height))
        .unwrap_or((80, 24));
    let mut app = App::new(AppSetup {
        agents: named,
        settings: setup.settings,
        bridges: bridge_names,
        theme: setup.theme.clone(),
        now: OffsetDateTime::now_utc(),
        size,
    });
    for (agent, host) in &through_ssh {
        app.reached_through_ssh(agent, host);
    }
    for (agent, flags) in dials {
        app.answers_with(&agent, flags);
    }
    if crate::tui::osc::tmux_clipboard_now() == Some(true) {
        app.tmux_keeps_the_clipboard();
    }
    // Looked at again only once it woke: crossterm's stream spins on its reader's lock at
    // every look (`tui::woken_stream`).
    let events = terminal_events();
    let mut side = None;
    if let Some(demo) = setup.demo {
        app.demo_socket(&demo.agent, &demo.socket.display().to_string());
        side = Some(demo.news);
    }
    let mut tui = Tui::new(terminal, events, engine, app)
        .with_bell(terminal::bell)
        .with_notifier(terminal::notify)
        .with_raw_out(crate::tui::osc::write_to_terminal)
        .with_mouse_switch(terminal::set_mouse)
        .with_clipboard_check(crate::tui::osc::tmux_clipboard_now)
        .with_outside_editor(
            crate::tui::outside_editor::edit_on_terminal,
            terminal_events,
        );
    if let Some(side) = side {
        tui = tui.with_side_messages(side);
    }
    // Next to the journal, in the state folder of the person's own (SPEC S8, A22).
    if let Some(folder) = setup.journal.parent() {
        tui = tui.with_seen_file(folder.join(crate::tui::seen_file::FILE_NAME));
    }
    tokio::select! {
        result = tui.run() => result,
        () = terminal::stop_signal() => {
            tracing::info!("stopped by a signal");
            Ok(())
        }
    }
}

/// The terminal's events as the runner reads them, looked at again only once the stream woke:
/// crossterm's stream spins on its reader's lock at every look (`tui::woken_stream`). A new one
/// after the person's editor gave the terminal back.
fn terminal_events() -> crate::tui::woken_stream::WokenStream<crossterm::event::EventStream> {
    crate::tui::woken_stream::WokenStream::new(crossterm::event::EventStream::new())
}
