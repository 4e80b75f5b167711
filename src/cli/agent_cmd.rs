//! `collie-phone agent`: the reference durable agent, on a private Unix socket (SPEC S1, S2)
//! or on TCP with a token, over TLS or plain loopback http (SPEC T1–T3, A11); with `--tls auto`
//! on a certificate of its own, kept across restarts, and it says the phone command that pins it
//! (T10).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};

use super::{WorldFlags, logging};
use crate::acp_host::AcpHostOptions;
use crate::durable::Drive;
use crate::durable::faults::Breaks;
use crate::durable::listen::{self, Binding, Handler, TlsFiles};
use crate::durable::runtime::Agent;
use crate::durable::server::{Access, Server, TokenGate};
use crate::durable::tls_auto::{self, AutoTls, Story};
use crate::rigs::WorldOptions;
use crate::rigs::chaos::Chaos;
use crate::rigs::chaos_serve::Chaotic;

#[derive(Debug, Args)]
pub(crate) struct AgentArgs {
    /// Listen on this Unix socket: an absolute path of at most 103 bytes
    /// (`collie-phone rules S`).
    #[arg(long, value_name = "PATH", env = "COLLIE_DURABLE_SOCKET")]
    pub(crate) socket: Option<PathBuf>,
    /// Listen on TCP instead, e.g. 127.0.0.1:0 (port 0 picks one). Plain http only on loopback.
    #[arg(long, value_name = "ADDR", requires = "token_file")]
    pub(crate) listen: Option<String>,
    /// The bearer token for --listen, in a file only you may read or write
    /// (`collie-phone rules T`).
    #[arg(long, value_name = "FILE", requires = "listen")]
    pub(crate) token_file: Option<PathBuf>,
    /// Serve https with a certificate the agent makes: `auto` makes one (not a CA) for this
    /// host's names and addresses once, keeps it in tls/ of the --state folder (else
    /// $XDG_STATE_HOME/collie-phone/agent-tls/), uses it again at every start until it expires,
    /// and prints the phone command with its pin (`collie-phone rules T10`).
    #[arg(
        long,
        value_enum,
        value_name = "auto",
        requires = "listen",
        conflicts_with_all = ["tls_cert", "tls_key"]
    )]
    pub(crate) tls: Option<TlsMode>,
    /// Serve https with this PEM certificate chain (needs --tls-key). Its own certificate must not
    /// be a CA: add `-addext basicConstraints=critical,CA:FALSE` to `openssl req -x509`.
    #[arg(long, value_name = "FILE", requires_all = ["tls_key", "listen"])]
    pub(crate) tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub(crate) tls_key: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) world: WorldFlags,
    /// Break one rule on purpose, named by its id (`collie-phone rules` lists them), so `check` can be seen to
    /// catch it. May be given more than once. Never for real use.
    #[arg(long = "break", value_name = "RULE")]
    pub(crate) breaks: Vec<String>,
    /// Fail now and then on purpose, e.g.
    /// `drop-after-apply=0.1,delay=0.05:3s,restart-every=60s,expire-early=0.1,dup-events=0.05`.
    #[arg(long, value_name = "SPEC")]
    pub(crate) chaos: Option<String>,
    /// Write the log to this file instead of stderr.
    #[arg(long, value_name = "FILE")]
    pub(crate) log: Option<PathBuf>,
    /// Host a real coding agent that speaks ACP (Agent Client Protocol) instead of the demo
    /// world: NAME=COMMAND, e.g. `claude="npx -y @agentclientprotocol/claude-agent-acp"`. The command
    /// is split like a shell line and run directly, never through a shell. May be given more
    /// than once; `[acp.NAME] command = [...]` in the config adds more. See docs/ACP.md.
    #[arg(long = "acp", value_name = "NAME=COMMAND")]
    pub(crate) acp: Vec<String>,
    /// The mode an ACP agent's new sessions start in: NAME=MODE, e.g. `claude=acceptEdits`.
    /// Without it a session starts in the agent's mode that asks most before acting
    /// (Claude's `default`, codex's `read-only`). May be given once per agent; `mode = "..."`
    /// under `[acp.NAME]` does the same. See docs/ACP.md.
    #[arg(long = "acp-mode", value_name = "NAME=MODE")]
    pub(crate) acp_modes: Vec<String>,
    /// The ACP version the host offers an agent: NAME=2 offers the draft ACP v2 (the agent may
    /// still answer 1, and then runs on v1); NAME=1, the default, offers v1 alone. May be given
    /// once per agent; `protocol = 2` under `[acp.NAME]` does the same. See docs/ACP.md.
    #[arg(long = "acp-protocol", value_name = "NAME=VERSION")]
    pub(crate) acp_protocols: Vec<String>,
    /// A folder the ACP agents may work in: a workspace with a starter per agent. May be given
    /// more than once; the default is the current folder.
    #[arg(long = "workspace", value_name = "PATH")]
    pub(crate) workspaces: Vec<PathBuf>,
    /// With ACP agents: start the first agent in the first folder at once and send it this.
    #[arg(long, value_name = "TEXT")]
    pub(crate) first_prompt: Option<String>,
    /// The config file with `[acp.NAME]` agents (default: the phone's config file).
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
}

/// Where the https certificate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TlsMode {
    /// Made by the agent, kept in its state folder.
    Auto,
}

/// The certificate of an https listener.
enum Https {
    /// `--tls-cert` and `--tls-key`.
    Files(TlsFiles),
    /// `--tls auto`, kept in this folder.
    Auto(PathBuf),
}

/// How the agent is reached.
enum Transport {
    Socket(PathBuf),
    Tcp {
        address: String,
        token_file: PathBuf,
        tls: Option<Https>,
    },
}

impl AgentArgs {
    /// `--listen` wins over a socket path that came from the environment; both named on the
    /// command line is a mistake worth saying.
    fn transport(&self) -> anyhow::Result<Transport> {
        match (&self.listen, &self.token_file, &self.socket) {
            (Some(address), Some(token_file), _) => {
                let tls = match (&self.tls, &self.tls_cert, &self.tls_key) {
                    (Some(TlsMode::Auto), _, _) => {
                        Some(Https::Auto(match self.world.state.as_deref() {
                            Some(state) => tls_auto::folder_in(state),
                            None => crate::transport::own_files::state_dir()
                                .map_err(super::phone_cmd::not_yours)?
                                .join("agent-tls"),
                        }))
                    }
                    (None, Some(cert), Some(key)) => Some(Https::Files(TlsFiles {
                        cert: cert.clone(),
                        key: key.clone(),
                    })),
                    _ => None,
                };
                Ok(Transport::Tcp {
                    address: address.clone(),
                    token_file: token_file.clone(),
                    tls,
                })
            }
            (Some(_), None, _) => bail!(
                "--listen needs --token-file: every request over TCP carries the token (docs/SPEC.md § TLS and the token)"
            ),
            (None, _, Some(path)) => Ok(Transport::Socket(path.clone())),
            (None, _, None) => bail!(
                "say where to listen: --socket PATH (or COLLIE_DURABLE_SOCKET), or --listen 127.0.0.1:PORT --token-file FILE"
            ),
        }
    }
}

pub(crate) fn run(args: AgentArgs) -> anyhow::Result<()> {
    let _log = logging::init(args.log.as_deref(), "info")?;
    let transport = args.transport()?;
    let faults = Faults {
        breaks: Breaks::parse(&args.breaks).map_err(anyhow::Error::msg)?,
        chaos: Chaos::parse(args.chaos.as_deref().unwrap_or_default())
            .map_err(anyhow::Error::msg)?,
    };
    let driven = match hosted(&args)? {
        Some(_) if !faults.chaos.is_quiet() => {
            bail!("--chaos plays failures of the demo world; it does not apply with --acp")
        }
        Some(_) if !faults.breaks.is_empty() => {
            bail!("--break breaks rules of the demo world; it does not apply with --acp")
        }
        Some(hosted) => Driven::Acp(hosted),
        None => Driven::Play(WorldOptions {
            breaks: faults.breaks,
            ..args.world.play()
        }),
    };
    super::runtime()?.block_on(serve(&args.world, driven, faults.chaos, transport))
}

/// The ACP agents to host, from `--acp` and the config's `[acp.NAME]`, with their folders;
/// None when there is none.
fn hosted(args: &AgentArgs) -> anyhow::Result<Option<AcpHostOptions>> {
    use crate::acp_host::{AcpSpec, Protocol};
    let mut agents = Vec::new();
    for text in &args.acp {
        agents.push(AcpSpec::parse(text).map_err(anyhow::Error::msg)?);
    }
    let config = super::connect::read_config_at(args.config.as_deref())?;
    for (name, entry) in &config.acp {
        if agents.iter().any(|a| &a.name == name) {
            continue;
        }
        let mut spec = AcpSpec::new(name, entry.command.clone())
            .map_err(|why| anyhow::anyhow!("{}: [acp.{name}]: {why}", config.path().display()))?;
        spec.mode = entry.mode.clone();
        if let Some(number) = entry.protocol {
            spec.protocol = Protocol::from_number(number).map_err(|why| {
                anyhow::anyhow!("{}: [acp.{name}] protocol: {why}", config.path().display())
            })?;
        }
        agents.push(spec);
    }
    for text in &args.acp_modes {
        let (name, mode) = text
            .split_once('=')
            .map(|(n, m)| (n.trim(), m.trim()))
            .filter(|(n, m)| !n.is_empty() && !m.is_empty())
            .ok_or_else(|| {
                anyhow::anyhow!("--acp-mode takes NAME=MODE, e.g. claude=default; got {text:?}")
            })?;
        let Some(agent) = agents.iter_mut().find(|a| a.name == name) else {
            bail!(
                "--acp-mode {text}: no ACP agent is named {name} (name it with --acp or [acp.{name}])"
            );
        };
        agent.mode = Some(mode.to_string());
    }
    for text in &args.acp_protocols {
        let (name, number) = text
            .split_once('=')
            .map(|(n, v)| (n.trim(), v.trim()))
            .filter(|(n, _)| !n.is_empty())
            .ok_or_else(|| {
                anyhow::anyhow!("--acp-protocol takes NAME=VERSION, e.g. claude=2; got {text:?}")
            })?;
        let protocol = number
            .parse::<i64>()
            .map_err(|_| format!("the ACP protocol is 1 or 2 (the draft v2); got {number:?}"))
            .and_then(Protocol::from_number)
            .map_err(|why| anyhow::anyhow!("--acp-protocol {text}: {why}"))?;
        let Some(agent) = agents.iter_mut().find(|a| a.name == name) else {
            bail!(
                "--acp-protocol {text}: no ACP agent is named {name} (name it with --acp or [acp.{name}])"
            );
        };
        agent.protocol = protocol;
    }
    if agents.is_empty() {
        if !args.workspaces.is_empty() || args.first_prompt.is_some() {
            bail!(
                "--workspace and --first-prompt are for ACP agents: name one with --acp NAME=COMMAND"
            );
        }
        return Ok(None);
    }
    let mut workspaces = Vec::new();
    let folders = if args.workspaces.is_empty() {
        vec![std::env::current_dir().context("cannot read the current folder")?]
    } else {
        args.workspaces.clone()
    };
    for folder in folders {
        let folder = folder
            .canonicalize()
            .with_context(|| format!("--workspace {}: no such folder", folder.display()))?;
        if !folder.is_dir() {
            bail!("--workspace {}: not a folder", folder.display());
        }
        if !workspaces.contains(&folder) {
            workspaces.push(folder);
        }
    }
    Ok(Some(AcpHostOptions {
        agents,
        workspaces,
        opening: args.first_prompt.clone(),
        state: args.world.state.clone(),
    }))
}

/// What moves the agent's world, before it is handed to the agent as a [`Drive`].
enum Driven {
    /// The reference agent plays a world of its own (`agent`, `demo`).
    Play(WorldOptions),
    /// The ACP host: the world is the sessions of real coding agents (`agent --acp`).
    Acp(AcpHostOptions),
}

/// What the agent does wrong on purpose.
struct Faults {
    breaks: Breaks,
    chaos: Chaos,
}

async fn serve(
    world: &WorldFlags,
    driven: Driven,
    chaos: Chaos,
    transport: Transport,
) -> anyhow::Result<()> {
    // SPEC A11: with a token the token is the only access control, so no allow-always; the
    // private socket (SPEC S5) may offer it.
    let (access, allow_always) = match &transport {
        Transport::Socket(_) => (
            Access {
                token: None,
                tls: false,
            },
            true,
        ),
        Transport::Tcp {
            token_file, tls, ..
        } => {
            let token = crate::transport::Token::from_file(token_file)?;
            (
                Access {
                    token: Some(TokenGate::new(&token)),
                    tls: tls.is_some(),
                },
                false,
            )
        }
    };
    if matches!(driven, Driven::Acp(_))
        && let Some(token) = crate::transport::token::TokenSource::from_env(None).env
    {
        // SPEC T2: the host's agents never get COLLIE_DURABLE_TOKEN (docs/ACP.md, "The agent's
        // process"), but it is a token this process knows, and an agent could still come by it
        // (another process's environment, a file): what an agent prints loses it before it
        // reaches a pane or the log. The --token-file token was remembered when it was read.
        crate::out::secrets::remember(&token);
    }
    let mut host_name = None;
    match &driven {
        Driven::Acp(hosted) if world.name.is_none() => {
            let names: Vec<&str> = hosted.agents.iter().map(|a| a.name.as_str()).collect();
            host_name = Some(format!("ACP host: {}", names.join(", ")));
        }
        Driven::Play(play) if !play.breaks.is_empty() => {
            let broken: Vec<&str> = play.breaks.ids().collect();
            tracing::warn!("breaking on purpose: {}", broken.join(", "));
        }
        _ => {}
    }
    let drive: Arc<dyn Drive> = match driven {
        Driven::Play(play) => Arc::new(play),
        Driven::Acp(hosted) => Arc::new(hosted),
    };
    let mut options = world.options(allow_always, drive);
    options.restart_every = chaos.restart_every;
    if let Some(host_name) = host_name {
        options.host_name = host_name;
    }
    let agent = Agent::new(options).context("could not start the agent's world")?;
    let mut auto = None;
    let binding = match &transport {
        Transport::Socket(path) => listen::bind_unix(path)?,
        Transport::Tcp {
            address, tls: None, ..
        } => listen::bind_tcp(address, None).await?,
        Transport::Tcp {
            address,
            tls: Some(Https::Files(files)),
            ..
        } => listen::bind_tcp(address, Some(files)).await?,
        Transport::Tcp {
            address,
            tls: Some(Https::Auto(folder)),
            ..
        } => {
            let at = listen::listen_address(address).await?;
            let made = tls_auto::ensure(folder, at.ip(), time::OffsetDateTime::now_utc())?;
            let binding = listen::bind_tcp(address, Some(&made.files)).await?;
            auto = Some(made);
            binding
        }
    };
    let server = Server::new(agent, access);
    // `--chaos` acts around the server; a quiet agent is served as it is.
    let chaotic = (!chaos.is_quiet()).then(|| Chaotic::new(Arc::clone(&server), chaos, world.seed));
    let stop = super::signal::shutdown_signal();
    announce(&binding)?;
    if let (Some(auto), Transport::Tcp { token_file, .. }) = (&auto, &transport) {
        announce_pin(&binding, auto, token_file)?;
    }
    tracing::info!(at = %binding.url(), world = ?world.world, "the reference agent is listening");
    match chaotic {
        Some(chaotic) => serve_until_stopped(binding, server, chaotic, stop).await,
        None => serve_until_stopped(binding, Arc::clone(&server), server, stop).await,
    }
}

/// SPEC S2: exactly `listening <url>` on stdout, flushed, so whoever started the agent can
/// wait for it and learn a picked port.
fn announce(binding: &Binding) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening {}", binding.url()).context("could not write to stdout")?;
    stdout.flush().context("could not write to stdout")
}

/// SPEC T10: after the `listening` line, which certificate is served (kept, made, or remade and
/// why), what it covers, and the one phone command that pins it.
fn announce_pin(binding: &Binding, auto: &AutoTls, token_file: &Path) -> anyhow::Result<()> {
    let how = match &auto.story {
        Story::Kept => "kept from the last start (the pin is unchanged)".to_string(),
        Story::Made => "made now".to_string(),
        Story::Remade(why) => {
            format!("made again because {why} (a new pin: phones need the new command)")
        }
    };
    let token_file = std::path::absolute(token_file).unwrap_or_else(|_| token_file.to_path_buf());
    let command = format!(
        "collie-phone --url {} --token-file {} --pin {}",
        phone_url(binding),
        super::headless::quoted(&token_file.display().to_string()),
        auto.pin
    );
    let mut stdout = std::io::stdout().lock();
    writeln!(
        stdout,
        "certificate {}: {how}; for {}; valid until {}; {}",
        auto.files.cert.display(),
        auto.names.join(", "),
        tls_auto::shown_time(auto.not_after),
        auto.pin
    )
    .and_then(|()| writeln!(stdout, "dial it with: {command}"))
    .and_then(|()| stdout.flush())
    .context("could not write to stdout")
}

/// The URL a phone dials: the listening one, with the host's name in place of an unspecified
/// address (0.0.0.0 or ::), which no phone can dial.
fn phone_url(binding: &Binding) -> String {
    let url = binding.url();
    match binding.tcp_address() {
        Some(at) if at.ip().is_unspecified() => {
            let host = tls_auto::host_name().unwrap_or_else(|| "localhost".to_string());
            format!("https://{host}:{}", at.port())
        }
        _ => url,
    }
}

/// Serves `handler` (the server, or a wrapper around it) with the world ticking until `stop`
/// resolves, then saves the world; the socket file goes with the binding.
async fn serve_until_stopped<H: Handler>(
    binding: Binding,
    server: Arc<Server>,
    handler: Arc<H>,
    stop: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let ticker = server.spawn_ticker();
    binding.serve(handler, stop).await;
    ticker.abort();
    server.flush().context("could not save the world on stop")
}
