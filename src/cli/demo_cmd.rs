//! `collie-phone demo`: until the phone screens exist, it starts the reference agent with the
//! demo world on a private socket in a fresh folder, says how to reach it, and cleans up on
//! Ctrl-C.

use std::fs::DirBuilder;
use std::io::Write;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;

use super::{WorldFlags, logging};
use crate::agent::listen;
use crate::agent::runtime::Agent;
use crate::agent::server::{Access, Server};
use crate::wire::limits::MAX_SOCKET_PATH;

const SOCKET_NAME: &str = "agent.sock";

#[derive(Debug, Args)]
pub struct DemoArgs {
    #[command(flatten)]
    pub world: WorldFlags,
    /// Write the log to this file instead of stderr.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
}

pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    // The terminal is the person's here: only warnings reach it unless RUST_LOG asks for more.
    let _log = logging::init(args.log.as_deref(), "warn")?;
    super::runtime()?.block_on(async {
        let folder = DemoFolder::create()?;
        let socket = folder.path.join(SOCKET_NAME);
        let agent =
            Agent::new(args.world.options(true)).context("could not start the demo world")?;
        let binding = listen::bind_unix(&socket)?;
        let server = Server::new(
            agent,
            Access {
                token: None,
                tls: false,
            },
        );
        let stop = listen::shutdown_signal();
        tell_how_to_reach(&binding.url(), &socket)?;
        let served = super::agent_cmd::serve_until_stopped(binding, server, stop).await;
        drop(folder);
        served
    })
}

fn tell_how_to_reach(url: &str, socket: &Path) -> anyhow::Result<()> {
    let socket = shell_quoted(&socket.display().to_string());
    let mut stdout = std::io::stdout().lock();
    write!(
        stdout,
        "collie-phone demo: a reference durable agent is running with the demo world.\n\
         listening {url}\n\
         \n\
         The phone screens are not built yet. Meanwhile, talk to the agent yourself:\n\
         \x20 curl --unix-socket {socket} http://agent/session/v1/hello\n\
         \x20 curl --unix-socket {socket} -H 'X-Collie-Session: 1' http://agent/session/v1/snapshot\n\
         \n\
         Press Ctrl-C to stop; the socket and its folder are removed.\n"
    )
    .context("could not write to stdout")?;
    stdout.flush().context("could not write to stdout")
}

/// Quotes a path for a shell when it holds anything but plain characters.
fn shell_quoted(text: &str) -> String {
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
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
    fn curl_hint_quotes_odd_paths() {
        assert_eq!(
            shell_quoted("/run/user/1000/x/agent.sock"),
            "/run/user/1000/x/agent.sock"
        );
        assert_eq!(shell_quoted("/tmp/it's here"), r"'/tmp/it'\''s here'");
    }
}
