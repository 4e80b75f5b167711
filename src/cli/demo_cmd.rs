//! `collie-phone demo`: starts the reference agent as a child process on a private socket in a
//! fresh folder, opens the phone on it, and, with `--restart-every`, restarts the agent now and
//! then (same socket, same state) so the demo shows "starting" and a new epoch (SPEC H3, H5). An
//! agent that stops on its own is started again the same way, its exit status in the log.
//! Quitting stops the agent and removes the folder.
//!
//! With `--dsh` it also starts the reference DSH bridge (`dsh-bridge --demo`) on a loopback port
//! with a fresh token in the same private folder, and the phone shows both side by side: the
//! Collie agent "demo" and the bridge "dsh" (SPEC D).

use std::fs::DirBuilder;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::Mutex;

use super::WorldFlags;
use super::phone_cmd::{DemoSide, PhoneSetup, open_phone_mixed, start_log};
use crate::app::Message;
use crate::engine::AgentSpec;
use crate::engine::dsh::{BridgeSpec, BridgeUrl};
use crate::model::agents::DemoNews;
use crate::transport::Endpoint;
use crate::transport::Token;
use crate::wire::limits::MAX_SOCKET_PATH;

const SOCKET_NAME: &str = "agent.sock";
/// The name the phone gives the demo's agent.
const DEMO_AGENT: &str = "demo";
/// How long the agent may take to say `listening`.
const START_DEADLINE: Duration = Duration::from_secs(20);
/// How long a stopping agent may take to save its world before it is killed.
const STOP_DEADLINE: Duration = Duration::from_secs(5);
/// How long a restarted agent stays "starting", so the phone can show it (SPEC H3).
const RESTART_READY_AFTER_MS: u64 = 2000;
/// How often the demo looks whether its agent still runs.
const HEAL_LOOK: Duration = Duration::from_millis(250);

#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    #[command(flatten)]
    pub(crate) world: WorldFlags,
    /// Restart the agent this often, e.g. 90s or 2m, to show starting and a new epoch.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub(crate) restart_every: Option<Duration>,
    /// Make the agent fail now and then on purpose, to watch the failure paths in the phone,
    /// e.g. `drop-after-apply=0.2,expire-early=0.3,dup-events=0.2` (see `agent --chaos`).
    #[arg(long, value_name = "SPEC")]
    pub(crate) chaos: Option<String>,
    /// Also start the reference DSH bridge with its demo desktop (three workspaces, one in
    /// Chinese) and show it beside the Collie agent.
    #[arg(long)]
    pub(crate) dsh: bool,
    /// Show the ACP host instead of the demo world: our own scripted ACP agent streams,
    /// runs tools, asks permission and makes a plan, with no account anywhere.
    #[arg(long)]
    pub(crate) acp: bool,
    /// With --acp: the ACP version the host offers the scripted agent, 1 (the default, as for
    /// every ACP agent) or 2, the draft the agent then speaks (docs/ACP.md, "ACP v1 and v2").
    #[arg(long, value_name = "VERSION", requires = "acp", value_parser = clap::value_parser!(u16).range(1..=2))]
    pub(crate) protocol: Option<u16>,
    /// auto (light or dark by the terminal's background; the default), a built-in theme
    /// (dark, light, high-contrast) or a theme file.
    #[arg(long, value_name = "NAME|PATH")]
    pub(crate) theme: Option<String>,
    /// The config file for theme, bell and keys.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) record: super::connect::RecordArgs,
    /// Write the phone's log here instead of $XDG_STATE_HOME/collie-phone/phone.log.
    #[arg(long, value_name = "FILE")]
    pub(crate) log: Option<PathBuf>,
}

/// "90s", "2m", "1500ms", "1h", or a number of seconds.
pub(crate) fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{text} is not a duration like 90s or 2m"))?;
    let seconds = match unit {
        "" | "s" => number,
        "ms" => number / 1000.0,
        "m" => number * 60.0,
        "h" => number * 3600.0,
        other => return Err(format!("unknown unit {other}: use ms, s, m or h")),
    };
    if !seconds.is_finite() || seconds < 1.0 {
        return Err("give at least one second".into());
    }
    Ok(Duration::from_secs_f64(seconds))
}

pub(crate) fn run(args: DemoArgs) -> anyhow::Result<()> {
    // A bad spec is said here, before the screen opens, not in the agent's log.
    if let Some(spec) = &args.chaos {
        crate::rigs::chaos::Chaos::parse(spec).map_err(anyhow::Error::msg)?;
        if args.acp {
            bail!("--chaos plays failures of the demo world; it does not apply with --acp");
        }
    }
    let _log = start_log(args.log.as_deref())?;
    let config = super::connect::read_config_at(args.config.as_deref())?;
    let mut setup = PhoneSetup::load(&config, args.theme.as_deref())?;
    setup.engine.record = args.record.record.clone();
    super::runtime()?.block_on(async {
        let folder = DemoFolder::create()?;
        // The demo's intents stay with the demo: a real journal never sees them.
        setup.journal = folder.path.join("intents.jsonl");
        let acp = args.acp.then_some(args.protocol.unwrap_or(1));
        let agent = DemoAgent::new(&folder.path, &args.world, args.chaos.as_deref(), acp)?;
        let child = Arc::new(Mutex::new(Some(agent.start(false).await?)));
        let socket = folder.path.join(SOCKET_NAME);
        let (tell, news) = tokio::sync::mpsc::unbounded_channel();
        setup.demo = Some(DemoSide {
            agent: DEMO_AGENT.into(),
            socket: socket.clone(),
            news,
        });
        // An agent that stops on its own (a crash, a kill) is started again, as a restart
        // would be: same socket, same state (SPEC H5); the log and the screen say why.
        let healer = {
            let (agent, child) = (agent.clone(), Arc::clone(&child));
            tokio::spawn(async move { agent.heal(child, tell).await })
        };
        let restarts = args.restart_every.map(|every| {
            let (agent, child) = (agent.clone(), Arc::clone(&child));
            tokio::spawn(async move { agent.restart_every(every, child).await })
        });
        let spec = AgentSpec {
            name: DEMO_AGENT.into(),
            endpoint: Endpoint::socket(socket),
        };
        let bridge = if args.dsh {
            match DemoBridge::start(&folder.path, &args.world).await {
                Ok(bridge) => Some(bridge),
                Err(error) => {
                    if let Some(child) = child.lock().await.take() {
                        stop(child).await;
                    }
                    return Err(error);
                }
            }
        } else {
            None
        };
        let bridges = bridge.iter().map(|b| b.spec.clone()).collect();
        let shown = open_phone_mixed(vec![spec], bridges, setup).await;
        if let Some(bridge) = bridge {
            stop(bridge.child).await;
        }
        healer.abort();
        if let Some(restarts) = restarts {
            restarts.abort();
        }
        if let Some(child) = child.lock().await.take() {
            stop(child).await;
        }
        drop(folder);
        shown
    })
}

/// How to start the reference agent of this demo.
#[derive(Clone)]
struct DemoAgent {
    program: PathBuf,
    args: Vec<String>,
}

impl DemoAgent {
    fn new(
        folder: &Path,
        world: &WorldFlags,
        chaos: Option<&str>,
        acp: Option<u16>,
    ) -> anyhow::Result<Self> {
        let program =
            std::env::current_exe().context("cannot find this program to start the agent")?;
        let path = |name: &str| folder.join(name).display().to_string();
        let kind = world
            .world
            .to_possible_value()
            .map(|v| v.get_name().to_string())
            .unwrap_or_else(|| "demo".into());
        let mut args = vec![
            "agent".to_string(),
            "--socket".into(),
            path(SOCKET_NAME),
            "--state".into(),
            path("state"),
            "--log".into(),
            path("agent.log"),
            "--world".into(),
            kind,
            "--seed".into(),
            world.seed.to_string(),
            "--speed".into(),
            world.speed.to_string(),
        ];
        if let Some(name) = &world.name {
            args.extend(["--name".to_string(), name.clone()]);
        }
        args.extend(["--ready-after".to_string(), world.ready_after.to_string()]);
        if let Some(spec) = chaos {
            args.extend(["--chaos".to_string(), spec.to_string()]);
        }
        if let Some(protocol) = acp {
            let sessions = folder.join("acp-sessions");
            std::fs::create_dir_all(&sessions)
                .context("cannot make the scripted agent's sessions folder")?;
            let command = shell_words::join([
                program.display().to_string(),
                "acp-scripted-agent".into(),
                "--sessions".into(),
                sessions.display().to_string(),
            ]);
            args.extend([
                "--acp".to_string(),
                format!("scripted={command}"),
                "--acp-protocol".into(),
                format!("scripted={protocol}"),
                "--first-prompt".into(),
                "Check this project and run its tests, please.".into(),
                // The demo's config is the phone's; the host needs none of it.
                "--config".into(),
                path("no-config.toml"),
            ]);
        }
        Ok(Self { program, args })
    }

    /// Starts the agent and waits for its `listening` line (SPEC S2).
    async fn start(&self, restarted: bool) -> anyhow::Result<Child> {
        let mut args = self.args.clone();
        if restarted
            && let Some(at) = args.iter().position(|a| a == "--ready-after")
            && args.get(at + 1).is_some_and(|v| v == "0")
        {
            args[at + 1] = RESTART_READY_AFTER_MS.to_string();
        }
        let mut child = Command::new(&self.program)
            .args(&args)
            .env_remove("COLLIE_DURABLE_SOCKET")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("could not start the reference agent")?;
        let stdout = child
            .stdout
            .take()
            .context("the agent's output is not readable")?;
        let mut lines = BufReader::new(stdout).lines();
        let listening = tokio::time::timeout(START_DEADLINE, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.starts_with("listening ") {
                    return true;
                }
            }
            false
        })
        .await;
        match listening {
            Ok(true) => {
                // Keep reading, so nothing the agent prints later meets a closed pipe.
                tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
                tracing::info!(restarted, "the demo agent is listening");
                Ok(child)
            }
            Ok(false) => bail!(
                "the reference agent stopped before listening; see its log in the demo folder"
            ),
            Err(_) => bail!("the reference agent did not start within {START_DEADLINE:?}"),
        }
    }

    /// Watches the agent; when it exits without being asked to, says so in the log with its
    /// exit status, tells the phone (`tell`), and starts it again on the same socket and state.
    /// A restart of `restart_every` holds the slot while it stops the agent, so it is never
    /// taken for one.
    async fn heal(
        self,
        child: Arc<Mutex<Option<Child>>>,
        tell: tokio::sync::mpsc::UnboundedSender<Message>,
    ) {
        let say = |news: DemoNews| {
            let _ = tell.send(Message::Demo {
                agent: DEMO_AGENT.into(),
                news,
            });
        };
        loop {
            tokio::time::sleep(HEAL_LOOK).await;
            let mut slot = child.lock().await;
            let Some(running) = slot.as_mut() else {
                continue;
            };
            let status = match running.try_wait() {
                Ok(Some(status)) => status,
                Ok(None) => continue,
                Err(error) => {
                    tracing::warn!(%error, "cannot tell whether the demo's agent runs");
                    continue;
                }
            };
            slot.take();
            tracing::warn!(
                %status,
                "the demo's agent stopped on its own ({status}); starting it again with its state kept"
            );
            let words = exit_words(status);
            say(DemoNews::Stopped(words.clone()));
            match self.start(true).await {
                Ok(started) => {
                    *slot = Some(started);
                    say(DemoNews::Back(words));
                }
                Err(error) => {
                    tracing::error!("the demo's agent did not come back: {error:#}");
                    return;
                }
            }
        }
    }

    /// Stops and starts the agent every `every`, on the same socket and state.
    async fn restart_every(self, every: Duration, child: Arc<Mutex<Option<Child>>>) {
        loop {
            tokio::time::sleep(every).await;
            let mut slot = child.lock().await;
            if let Some(running) = slot.take() {
                stop(running).await;
            }
            match self.start(true).await {
                Ok(started) => *slot = Some(started),
                Err(error) => {
                    tracing::error!("the demo agent did not come back: {error:#}");
                    return;
                }
            }
        }
    }
}

/// The reference DSH bridge of `demo --dsh`, listening on a loopback port it picked.
struct DemoBridge {
    child: Child,
    spec: BridgeSpec,
}

impl DemoBridge {
    /// Writes a fresh token (mode 0600) into the demo's folder, starts `dsh-bridge --demo` on
    /// 127.0.0.1:0 with its workspaces under the folder, and waits for its `listening` line.
    async fn start(folder: &Path, world: &WorldFlags) -> anyhow::Result<Self> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let program =
            std::env::current_exe().context("cannot find this program to start the bridge")?;
        let token_path = folder.join("dsh-token");
        let secret: String = (0..32)
            .map(|_| format!("{:02x}", rand::random::<u8>()))
            .collect();
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&token_path)
            .and_then(|mut file| file.write_all(secret.as_bytes()))
            .with_context(|| {
                format!(
                    "could not write the bridge's token {}",
                    token_path.display()
                )
            })?;
        let token = Token::from_file(&token_path)
            .map_err(|e| anyhow::anyhow!("the bridge's token: {e}"))?;
        let path = |name: &str| folder.join(name).display().to_string();
        let mut child = Command::new(&program)
            .args([
                "dsh-bridge",
                "--demo",
                "--listen",
                "127.0.0.1:0",
                "--token-file",
                &path("dsh-token"),
                "--root",
                &path("dsh-desktop"),
                "--log",
                &path("dsh-bridge.log"),
                "--seed",
                &world.seed.to_string(),
                "--speed",
                &world.speed.to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("could not start the reference DSH bridge")?;
        let stdout = child
            .stdout
            .take()
            .context("the bridge's output is not readable")?;
        let mut lines = BufReader::new(stdout).lines();
        let url = tokio::time::timeout(START_DEADLINE, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.strip_prefix("listening ") {
                    return Some(url.trim().to_string());
                }
            }
            None
        })
        .await;
        let url = match url {
            Ok(Some(url)) => url,
            Ok(None) => bail!(
                "the reference DSH bridge stopped before listening; see dsh-bridge.log in the demo folder"
            ),
            Err(_) => bail!("the reference DSH bridge did not start within {START_DEADLINE:?}"),
        };
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        tracing::info!(%url, "the demo DSH bridge is listening");
        let url = BridgeUrl::parse(&url)
            .map_err(|e| anyhow::anyhow!("the bridge announced {url}, which is not usable: {e}"))?;
        Ok(Self {
            child,
            spec: BridgeSpec {
                name: "dsh".into(),
                url,
                token,
            },
        })
    }
}

/// An exit status as a person reads it: "killed by signal 9", "exit status 1".
fn exit_words(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => status.to_string(),
    }
}

/// SIGTERM first, so the agent saves its world; a kill if it does not stop in time.
async fn stop(mut child: Child) {
    if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: kill(2) with a pid this program started and has not reaped yet.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
    }
    match tokio::time::timeout(STOP_DEADLINE, child.wait()).await {
        Ok(_) => {}
        Err(_) => {
            tracing::warn!("the demo agent did not stop on SIGTERM; killing it");
            let _ = child.kill().await;
        }
    }
}

/// A fresh folder of mode 0700 for the demo's socket (SPEC S2), removed when dropped.
struct DemoFolder {
    path: PathBuf,
}

impl DemoFolder {
    /// Under `$XDG_RUNTIME_DIR` when there is one, else the system's temp folder, choosing the
    /// first where the socket path stays within 103 bytes (SPEC S1).
    fn create() -> anyhow::Result<Self> {
        for base in super::connect::demo_bases() {
            for _ in 0..8 {
                let path = base.join(format!("collie-phone-demo-{:08x}", rand::random::<u32>()));
                if path.join(SOCKET_NAME).as_os_str().len() > MAX_SOCKET_PATH {
                    break;
                }
                match DirBuilder::new().mode(0o700).create(&path) {
                    Ok(()) => return Ok(Self { path }),
                    Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(error) => {
                        tracing::warn!(%error, base = %base.display(), "cannot make the demo folder here");
                        break;
                    }
                }
            }
        }
        bail!(
            "could not make a private folder for the demo socket under $XDG_RUNTIME_DIR or the temp folder"
        )
    }
}

impl Drop for DemoFolder {
    fn drop(&mut self) {
        if let Err(error) = std::fs::remove_dir_all(&self.path) {
            tracing::warn!(%error, folder = %self.path.display(), "could not remove the demo folder");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_for_restart_every() {
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
        assert_eq!(parse_duration("1500ms"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
    }
}
