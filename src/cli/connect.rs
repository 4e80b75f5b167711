//! The flags that say which agents to dial, shared by the phone and every command that talks to
//! agents (`doctor`, `check`, the headless commands).

use std::path::{Path, PathBuf};

use anyhow::bail;
use clap::Args;

use super::ssh_forward::{self, SshTarget};
use crate::config::{self, Config, resolve_agents, resolve_bridges};
use crate::engine::AgentSpec;
use crate::engine::dsh::BridgeSpec;
use crate::transport::pin::Pin;
use crate::transport::token::TokenSource;

#[derive(Debug, Clone, Args, Default)]
pub(crate) struct ConnectArgs {
    /// Dial the durable agent on this Unix socket (`collie-phone rules S`). May be given
    /// more than once.
    #[arg(long = "socket", value_name = "PATH", value_parser = socket_path)]
    pub(crate) sockets: Vec<PathBuf>,
    /// Dial the durable agent on this socket on another machine, through ssh
    /// (`HOST:/PATH/TO/agent.sock`; docs/REMOTE.md). ssh runs as `ssh -N -L`, with your keys or
    /// ssh-agent and no password prompt; `COLLIE_SSH_COMMAND` replaces `ssh`. May be given more
    /// than once.
    #[arg(long = "ssh", value_name = "HOST:SOCKET")]
    pub(crate) ssh: Vec<SshTarget>,
    /// Dial the durable agent at this https:// (or loopback http://) URL
    /// (`collie-phone rules T`).
    #[arg(long = "url", value_name = "URL")]
    pub(crate) urls: Vec<String>,
    /// The bearer token for --url agents, in a file only you can read.
    #[arg(long, value_name = "FILE")]
    pub(crate) token_file: Option<PathBuf>,
    /// Trust this PEM certificate (a CA, or the agent's own) for --url agents.
    #[arg(long, value_name = "FILE", conflicts_with = "pin")]
    pub(crate) ca_cert: Option<PathBuf>,
    /// Trust exactly the certificate with this SHA-256 for --url agents, CA or not, whatever
    /// names it has: sha256: and 64 hex digits, with or without colons
    /// (`collie-phone agent --tls auto` prints it; `collie-phone rules T10`).
    #[arg(long, value_name = "sha256:HEX")]
    pub(crate) pin: Option<Pin>,
    /// Dial the DSH collaboration bridge at this loopback URL (`collie-phone rules D`);
    /// `default` is http://127.0.0.1:19387/codex-bridge. May be given more than once.
    #[arg(long = "dsh", value_name = "URL")]
    pub(crate) dsh: Vec<String>,
    /// The bearer token for --dsh bridges, in a file only you can read. Without it, --token-file
    /// serves the bridges too when no --url agent is named.
    #[arg(long, value_name = "FILE")]
    pub(crate) dsh_token_file: Option<PathBuf>,
    /// The config file (agents, theme, bell, keys); default
    /// $XDG_CONFIG_HOME/collie-phone/config.toml.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
}

/// A `--socket` path of the shape SPEC S1 asks (absolute, short enough, no `.` or `..`): a
/// path of another shape is a bad argument (exit 2), never an agent that cannot be reached.
fn socket_path(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    crate::transport::privacy::check_shape(&path).map_err(|refused| refused.with_fix())?;
    Ok(path)
}

/// Reads the config file once for a command: a refusal goes to the log too (when the command
/// keeps one) before it reaches the person on stderr.
pub(crate) fn read_config_at(flag: Option<&Path>) -> anyhow::Result<Config> {
    let path = match flag {
        Some(path) => path.to_path_buf(),
        None => config::default_path()?,
    };
    read_config(&path)
}

/// Reads the config file at `path`, as [`read_config_at`] does.
fn read_config(path: &Path) -> anyhow::Result<Config> {
    Config::read(path).map_err(|error| {
        tracing::error!(%error, "the config file is refused");
        error.into()
    })
}

impl ConnectArgs {
    /// The config file these flags name (`--config`, else the default), read and checked.
    pub(crate) fn read_config(&self) -> anyhow::Result<Config> {
        read_config_at(self.config.as_deref())
    }

    /// Every agent these flags and the config name (the command line's first, then the
    /// config file's, else `COLLIE_DURABLE_SOCKET`); an error when there is none.
    pub(crate) fn agents(&self, config: &Config) -> anyhow::Result<Vec<AgentSpec>> {
        let agents = self.resolve_agents(config)?;
        if !agents.is_empty() {
            return Ok(agents);
        }
        // With no agent named, the one demo the same person runs is the agent they mean: said,
        // with how to name it. Of several, which one is theirs to say; another person's demo on
        // a shared machine is never dialled (SPEC S3).
        let mut demos = running_demos();
        match demos.ours.len() {
            0 => {}
            1 => {
                let socket = demos.ours.remove(0);
                crate::out::eprintln(&format!(
                    "collie-phone: no agent named: reaching the demo you are running, at {} (name it with --socket {})",
                    socket.display(),
                    socket.display()
                ));
                return Ok(vec![AgentSpec {
                    name: "demo".into(),
                    endpoint: crate::transport::Endpoint::socket(socket),
                }]);
            }
            _ => return Err(SeveralDemos(demos.ours).into()),
        }
        let left_alone: String = demos
            .left_alone
            .iter()
            .map(|(socket, why)| format!("\nleft alone: the demo at {}: {why}", socket.display()))
            .collect();
        bail!(
            "no agent to dial: give --socket PATH or --url URL, set COLLIE_DURABLE_SOCKET, or name agents in {} (try `collie-phone demo`){left_alone}",
            config.path().display()
        );
    }

    /// Every DSH bridge these flags and the config name (SPEC D1); none is not an error.
    pub(crate) fn bridges(&self, config: &Config) -> anyhow::Result<Vec<BridgeSpec>> {
        // --token-file is the Collie agents' token; it stands for the bridges' only when no
        // --url agent needs it, so one file never goes to two kinds of server by accident.
        let token_file = self
            .dsh_token_file
            .as_deref()
            .or_else(|| self.token_file.as_deref().filter(|_| self.urls.is_empty()));
        Ok(resolve_bridges(&self.dsh, token_file, &config.dsh)?)
    }

    /// The Collie agents and the DSH bridges together, for the phone; an error only when there
    /// is neither.
    pub(crate) fn agents_and_bridges(
        &self,
        config: &Config,
    ) -> anyhow::Result<(Vec<AgentSpec>, Vec<BridgeSpec>)> {
        let bridges = self.bridges(config)?;
        let agents = self.resolve_agents(config)?;
        if agents.is_empty() && bridges.is_empty() {
            bail!(
                "no agent to dial: give --socket PATH, --url URL or --dsh URL, set COLLIE_DURABLE_SOCKET, or name agents in {} (try `collie-phone demo`)",
                config.path().display()
            );
        }
        Ok((agents, bridges))
    }

    fn resolve_agents(&self, config: &Config) -> anyhow::Result<Vec<AgentSpec>> {
        let tokens = TokenSource::from_env(self.token_file.clone());
        let mut agents = resolve_agents(
            &self.sockets,
            &self.urls,
            &tokens,
            self.ca_cert.as_deref(),
            self.pin,
            &config.agents,
        )?;
        // Through ssh, an agent is a local socket like any other, with the deadlines of one
        // across a network (SPEC S6): the command line's first, the config file's last.
        for (from_config, name, target) in ssh_forward::targets(&self.ssh, config)? {
            let local = ssh_forward::open(&target).map_err(anyhow::Error::msg)?;
            let spec = AgentSpec {
                name,
                endpoint: crate::transport::Endpoint::socket_through_ssh(local, &target.host),
            };
            if from_config {
                agents.push(spec);
            } else {
                agents.insert(0, spec);
            }
        }
        let names: Vec<&str> = agents.iter().map(|a| a.name.as_str()).collect();
        if let Some(twice) = names
            .iter()
            .enumerate()
            .find_map(|(i, n)| names[..i].contains(n).then_some(*n))
        {
            anyhow::bail!(
                "two agents are called {twice}: name one of them another way in the config file"
            );
        }
        Ok(agents)
    }

    /// The one agent a command talks to: the only one named, or the one called `name`.
    pub(crate) fn one_agent(
        &self,
        config: &Config,
        name: Option<&str>,
    ) -> anyhow::Result<AgentSpec> {
        let mut agents = self.agents(config)?;
        match name {
            Some(name) => match agents.iter().position(|a| a.name == name) {
                Some(at) => Ok(agents.swap_remove(at)),
                None => {
                    let known: Vec<&str> = agents.iter().map(|a| a.name.as_str()).collect();
                    bail!(
                        "no agent called {name}; the agents are {}",
                        known.join(", ")
                    )
                }
            },
            None if agents.len() == 1 => Ok(agents.remove(0)),
            None => {
                let known: Vec<&str> = agents.iter().map(|a| a.name.as_str()).collect();
                bail!(
                    "{} agents are named; say which with --agent NAME ({})",
                    agents.len(),
                    known.join(", ")
                )
            }
        }
    }
}

/// `--record FILE`: every exchange as JSON lines with timings, the token left out.
#[derive(Debug, Clone, Args, Default)]
pub(crate) struct RecordArgs {
    /// Write every exchange with the agents to FILE as JSON lines (the token is never written);
    /// `collie-phone replay FILE` plays it back.
    #[arg(long, value_name = "FILE")]
    pub(crate) record: Option<PathBuf>,
}

/// Where a demo makes its folder, in the order it tries them.
pub(crate) fn demo_bases() -> Vec<PathBuf> {
    [
        std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from),
        Some(std::env::temp_dir()),
        Some(PathBuf::from("/tmp")),
    ]
    .into_iter()
    .flatten()
    .filter(|base| base.is_absolute() && base.is_dir())
    .collect()
}

/// The demos found in the folders a demo makes its own in ([`demo_bases`]).
#[derive(Debug, Default)]
pub(crate) struct RunningDemos {
    /// The socket of each demo of the caller's that answers, the newest first.
    pub(crate) ours: Vec<PathBuf>,
    /// Each other demo socket found, with why it is left alone: another user's folder or
    /// socket, or one that is not private (SPEC S3).
    pub(crate) left_alone: Vec<(PathBuf, String)>,
}

/// Every `collie-phone demo` socket under the demo bases. One is the caller's when its path
/// passes the privacy walk every dial passes (SPEC S3: no symlink, the folder ours with mode
/// 0700, the socket ours and private) and something listens on it: a demo that was killed
/// leaves its folder behind, and that one is not running.
pub(crate) fn running_demos() -> RunningDemos {
    use std::os::unix::fs::MetadataExt;
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    let mut demos = RunningDemos::default();
    let mut bases = demo_bases();
    bases.dedup();
    for base in bases {
        for entry in std::fs::read_dir(&base).into_iter().flatten().flatten() {
            if !entry
                .file_name()
                .to_string_lossy()
                .starts_with("collie-phone-demo-")
            {
                continue;
            }
            let socket = entry.path().join("agent.sock");
            let Ok(meta) = std::fs::symlink_metadata(&socket) else {
                continue;
            };
            if found.iter().any(|(_, known)| *known == socket)
                || demos.left_alone.iter().any(|(known, _)| *known == socket)
            {
                continue;
            }
            if let Some(why) = not_ours(&socket) {
                demos.left_alone.push((socket, why));
                continue;
            }
            if std::os::unix::net::UnixStream::connect(&socket).is_err() {
                continue;
            }
            let made = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
            found.push((made, socket));
        }
    }
    found.sort_by_key(|found| std::cmp::Reverse(found.0));
    demos.ours = found.into_iter().map(|(_, socket)| socket).collect();
    demos.left_alone.sort();
    return demos;

    /// Why the demo socket at `socket` is not the caller's to dial, in words; None when it is.
    fn not_ours(socket: &Path) -> Option<String> {
        let me = crate::transport::privacy::current_uid();
        let owner = |path: &Path| {
            std::fs::symlink_metadata(path)
                .ok()
                .map(|m| m.uid())
                .filter(|uid| *uid != me)
        };
        let named = |uid: u32| {
            crate::transport::own_files::user_name(uid).map_or_else(
                || format!("uid {uid}'s"),
                |name| format!("{name}'s (uid {uid})"),
            )
        };
        let folder = socket.parent()?;
        if let Some(uid) = owner(folder) {
            return Some(format!("its folder is {}, not yours", named(uid)));
        }
        if let Some(uid) = owner(socket) {
            return Some(format!("its socket is {}, not yours", named(uid)));
        }
        crate::transport::privacy::walk_socket_path(socket)
            .into_iter()
            .find_map(|part| part.verdict.err())
            .map(|refused| format!("it is not private: {refused}"))
    }
}

/// No agent was named and several demos of the caller's are running: which one they mean is
/// theirs to say. A bad argument (exit 2), as a missing `--agent NAME` among several agents.
#[derive(Debug)]
pub(crate) struct SeveralDemos(pub(crate) Vec<PathBuf>);

impl std::fmt::Display for SeveralDemos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no agent named, and {} demos of yours are running; name one with --socket:",
            self.0.len()
        )?;
        for socket in &self.0 {
            write!(f, "\n  --socket {}", socket.display())?;
        }
        Ok(())
    }
}

impl std::error::Error for SeveralDemos {}
