//! `--ssh HOST:REMOTE_SOCKET`: the phone reaches an agent's private socket on another machine
//! through the system's own ssh, as `ssh -N -L LOCAL:REMOTE HOST` would by hand
//! (docs/REMOTE.md). The local end is a socket in a folder made for it (0700, in
//! `$XDG_RUNTIME_DIR` when there is one), which ssh creates 0600 and holds as the same user, so
//! the phone dials it with every privacy check of a local socket kept (SPEC S3–S5).
//!
//! Before the phone starts, the forward is tried once: a hello goes through it, so a host that
//! does not resolve, refuses the key, has an unknown host key, or has no socket at the far end
//! is said in plain words ([`why_ssh_failed`]) instead of as a dial that keeps failing. ssh runs
//! with `BatchMode=yes`: the phone owns the terminal, so ssh cannot ask for a password or a
//! passphrase; keys and ssh-agent work. It runs in a process group of its own (a Ctrl-C meant
//! for the phone does not reach it) and is told to end when the phone ends, however it ends;
//! [`end_all`] ends it and removes the folder when a command returns.
//!
//! `COLLIE_SSH_COMMAND` replaces `ssh` (split like a shell line, as Git's `GIT_SSH_COMMAND`):
//! `COLLIE_SSH_COMMAND="ssh -F ~/.ssh/work_config"`.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::acp_host::text::log_line;

/// How long ssh may take to log in and open the local socket.
const OPEN_DEADLINE: Duration = Duration::from_secs(20);
/// How long the first hello through the forward may take.
const PROBE_DEADLINE: Duration = Duration::from_secs(10);

/// Where to reach an agent through ssh: the host as ssh names it (`user@host`, an alias of
/// `~/.ssh/config`), and the agent's socket there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SshTarget {
    pub(crate) host: String,
    pub(crate) remote: String,
}

impl FromStr for SshTarget {
    type Err = String;

    /// `HOST:REMOTE_SOCKET`; the host may be `[v6]` or `user@[v6]`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let split = match text.find(']') {
            Some(close) => text[close..].find(':').map(|at| close + at),
            None => text.find(':'),
        };
        let Some(at) = split else {
            return Err(format!(
                "{text}: give the host and the agent's socket there, as HOST:/PATH/TO/agent.sock"
            ));
        };
        let (host, remote) = (&text[..at], &text[at + 1..]);
        if host.is_empty() || host.starts_with('-') {
            return Err(format!("{text}: the host before the ':' is missing"));
        }
        if !remote.starts_with('/') && !remote.starts_with('~') {
            return Err(format!(
                "{text}: the socket after the ':' must be a whole path on {host}, such as /run/user/1000/collie/agent.sock"
            ));
        }
        Ok(Self {
            host: host.to_string(),
            remote: remote.to_string(),
        })
    }
}

impl SshTarget {
    /// The agent's name on the phone: the host, without the user.
    pub(crate) fn name(&self) -> String {
        let host = self.host.rsplit('@').next().unwrap_or(&self.host);
        host.trim_matches(|c| c == '[' || c == ']').to_string()
    }
}

/// Every agent to reach through ssh: the command line's `--ssh` (named after the host) and the
/// config file's `ssh = "HOST:/PATH"` (named as its section), as (from the config, name, target).
pub(crate) fn targets(
    given: &[SshTarget],
    config: &crate::config::Config,
) -> anyhow::Result<Vec<(bool, String, SshTarget)>> {
    let mut all: Vec<(bool, String, SshTarget)> =
        given.iter().map(|t| (false, t.name(), t.clone())).collect();
    for (name, text) in crate::config::ssh_entries(&config.agents) {
        let target = text.parse().map_err(|why| {
            anyhow::anyhow!("{}: agent \"{name}\": ssh = {why}", config.path().display())
        })?;
        all.push((true, name, target));
    }
    Ok(all)
}

/// One running `ssh -N -L`, and the folder of its local socket.
struct Forward {
    child: Child,
    folder: tempfile::TempDir,
}

impl Forward {
    fn end(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = self.folder.close();
    }
}

/// The forwards this process opened: ssh runs as long as the phone dials through it.
static FORWARDS: Mutex<Vec<Forward>> = Mutex::new(Vec::new());

/// Ends every ssh this process started and removes their folders.
pub(crate) fn end_all() {
    let forwards = std::mem::take(&mut *FORWARDS.lock().unwrap_or_else(|e| e.into_inner()));
    for forward in forwards {
        forward.end();
    }
}

/// The ssh command and its own words: `COLLIE_SSH_COMMAND`, else `ssh`.
fn ssh_command() -> Result<Vec<String>, String> {
    match std::env::var("COLLIE_SSH_COMMAND") {
        Ok(line) if !line.trim().is_empty() => shell_words::split(&line)
            .map_err(|e| format!("COLLIE_SSH_COMMAND cannot be read as a command line: {e}")),
        _ => Ok(vec!["ssh".to_string()]),
    }
}

/// Where the folder of a local socket goes: the user's runtime folder when there is one.
fn folder_home() -> PathBuf {
    std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .unwrap_or_else(std::env::temp_dir)
}

/// Opens the forward to `target` and tries it with one hello; gives the local socket to dial.
pub(crate) fn open(target: &SshTarget) -> Result<PathBuf, String> {
    let words = ssh_command()?;
    let folder = tempfile::Builder::new()
        .prefix("collie-ssh-")
        .tempdir_in(folder_home())
        .map_err(|e| format!("could not make a private folder for the ssh forward: {e}"))?;
    // Only we may reach the socket in it (SPEC S3), whatever the umask made of the folder.
    std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o700))
        .map_err(|e| format!("could not make the ssh forward's folder private: {e}"))?;
    let local = folder.path().join("agent.sock");
    let mut command = Command::new(&words[0]);
    command
        .args(&words[1..])
        .args([
            "-N",
            "-T",
            "-o",
            "BatchMode=yes",
            "-o",
            "ExitOnForwardFailure=yes",
            "-o",
            "StreamLocalBindUnlink=yes",
            "-o",
            "StreamLocalBindMask=0177",
            "-o",
            "ConnectTimeout=10",
            "-o",
            "ServerAliveInterval=15",
            "-L",
        ])
        .arg(format!("{}:{}", local.display(), target.remote))
        .arg("--")
        .arg(&target.host)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0);
    // SAFETY: prctl is async-signal-safe and touches only the child being started: it asks
    // the kernel to end ssh when the phone's thread that started it ends, so no ssh outlives
    // a phone that crashed or was killed.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    tracing::info!(host = %target.host, remote = %target.remote, local = %local.display(), "starting the ssh forward");
    let mut child = command.spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "{} is not installed here (not on PATH): install OpenSSH's client, or forward the socket another way (docs/REMOTE.md)",
                words[0]
            )
        } else {
            format!("could not run {}: {e}", words[0])
        }
    })?;
    let said = Arc::new(Mutex::new(String::new()));
    if let Some(mut stderr) = child.stderr.take() {
        let said = said.clone();
        let host = target.host.clone();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                let text = String::from_utf8_lossy(&buffer[..n]).to_string();
                for line in text.lines().filter(|l| !l.trim().is_empty()) {
                    tracing::info!(%host, "ssh: {}", log_line(line));
                }
                let mut said = said.lock().unwrap_or_else(|e| e.into_inner());
                if said.len() < 64 * 1024 {
                    said.push_str(&text);
                }
            }
        });
    }
    let forward = Forward { child, folder };
    match wait_and_try(forward, &local, &said, target) {
        Ok(forward) => {
            FORWARDS
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(forward);
            Ok(local)
        }
        Err(why) => Err(why),
    }
}

/// Waits for ssh to open the local socket, then sends one hello through it.
fn wait_and_try(
    mut forward: Forward,
    local: &Path,
    said: &Mutex<String>,
    target: &SshTarget,
) -> Result<Forward, String> {
    let heard = |said: &Mutex<String>| said.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let until = Instant::now() + OPEN_DEADLINE;
    loop {
        if let Ok(Some(status)) = forward.child.try_wait() {
            // Let the reader take ssh's last words.
            std::thread::sleep(Duration::from_millis(100));
            let why = why_ssh_failed(target, &heard(said), Some(status.code()));
            forward.end();
            return Err(why);
        }
        if local.exists() {
            break;
        }
        if Instant::now() >= until {
            forward.end();
            return Err(format!(
                "ssh to {} did not open the forward within {} s: try `ssh {}` in a terminal to see where it stops",
                target.host,
                OPEN_DEADLINE.as_secs(),
                target.host
            ));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    match probe(local) {
        Ok(()) => Ok(forward),
        Err(error) => {
            std::thread::sleep(Duration::from_millis(200));
            let why = why_ssh_failed(target, &heard(said), None);
            tracing::warn!(host = %target.host, %error, "the first hello through the ssh forward failed");
            forward.end();
            Err(why)
        }
    }
}

/// One hello through the forward: any answer shows the far end is an HTTP server on the
/// socket; the wire's own checks come after, as for any agent.
fn probe(local: &Path) -> std::io::Result<()> {
    let mut stream = UnixStream::connect(local)?;
    stream.set_read_timeout(Some(PROBE_DEADLINE))?;
    stream.write_all(
        b"GET /session/v1/hello HTTP/1.1\r\nHost: collie\r\nConnection: close\r\n\r\n",
    )?;
    let mut first = [0u8; 1];
    match stream.read(&mut first)? {
        0 => Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the far end closed the connection without a word",
        )),
        _ => Ok(()),
    }
}

/// What went wrong, from what ssh printed, in words that say what to do. `exited` is ssh's
/// exit code when it ended (`None` while it still runs: the forward opened, the far end did
/// not answer).
pub(crate) fn why_ssh_failed(
    target: &SshTarget,
    said: &str,
    exited: Option<Option<i32>>,
) -> String {
    let host = &target.host;
    let remote = &target.remote;
    let has = |words: &str| said.contains(words);
    if has("Could not resolve hostname") || has("Name or service not known") {
        return format!(
            "ssh could not find the host {host}: the name does not resolve. Check it, or give it a HostName in ~/.ssh/config."
        );
    }
    if has("Host key verification failed")
        || has("No ED25519 host key is known")
        || has("host key for")
    {
        return format!(
            "ssh does not know {host}'s host key, or it changed, so it would not log in. Run `ssh {host}` once in a terminal to check the key and accept it, then try again."
        );
    }
    if has("Permission denied (") {
        return format!(
            "{host} refused every key ssh offered (Permission denied). Add your public key to ~/.ssh/authorized_keys there, or load your key into ssh-agent: the phone runs ssh with BatchMode, so it cannot ask for a password or a passphrase."
        );
    }
    if has("Connection refused") && !has("open failed") {
        return format!(
            "{host} refused the connection on its ssh port: is sshd running there, and on that port?"
        );
    }
    if has("timed out") || has("No route to host") || has("Network is unreachable") {
        return format!(
            "ssh could not reach {host}: the connection timed out or found no route. Check the address and that you are on its network."
        );
    }
    if has("open failed") || has("connect failed") || exited.is_none() {
        if has("Permission denied") {
            return format!(
                "{host} has a socket at {remote}, but its sshd may not open it (permission denied): log in as the user who runs the agent there."
            );
        }
        return format!(
            "{host} has no agent listening at {remote}: start it there (`collie-phone agent --socket {remote}`), or check the path."
        );
    }
    if has("forwarding") || has("cannot listen") || has("bind") {
        return format!(
            "ssh logged in to {host} but could not make the local end of the forward: {}",
            last_line(said)
        );
    }
    let code = exited
        .flatten()
        .map_or_else(String::new, |c| format!(" (exit {c})"));
    format!("ssh to {host} failed{code}: {}", last_line(said))
}

fn last_line(said: &str) -> String {
    said.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map_or_else(|| "it printed nothing".to_string(), log_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> SshTarget {
        "me@box:/run/user/1000/collie/agent.sock"
            .parse()
            .expect("a target")
    }

    #[test]
    fn a_target_is_a_host_and_a_whole_path() {
        let t = target();
        assert_eq!(t.host, "me@box");
        assert_eq!(t.remote, "/run/user/1000/collie/agent.sock");
        assert_eq!(t.name(), "box");
        let v6: SshTarget = "me@[::1]:/tmp/a.sock".parse().expect("a v6 target");
        assert_eq!(v6.host, "me@[::1]");
        assert_eq!(v6.name(), "::1");
        assert!("box".parse::<SshTarget>().is_err());
        assert!("box:agent.sock".parse::<SshTarget>().is_err());
        assert!(":/tmp/a.sock".parse::<SshTarget>().is_err());
        assert!("-oProxyCommand=x:/tmp/a.sock".parse::<SshTarget>().is_err());
    }

    // What OpenSSH 9.2 printed here for each case (tests/integration/ssh_remote.rs makes each
    // one happen against a real sshd).
    #[test]
    fn each_failure_is_said_with_what_to_do() {
        let t = target();
        let cases = [
            (
                "ssh: Could not resolve hostname nowhere.invalid: Name or service not known\r\n",
                Some(Some(255)),
                "does not resolve",
            ),
            (
                "Host key verification failed.\r\n",
                Some(Some(255)),
                "host key",
            ),
            (
                "me@127.0.0.1: Permission denied (publickey).\r\n",
                Some(Some(255)),
                "refused every key",
            ),
            (
                "ssh: connect to host 127.0.0.1 port 1: Connection refused\r\n",
                Some(Some(255)),
                "is sshd running",
            ),
            (
                "channel 2: open failed: connect failed: No such file or directory\r\n",
                None,
                "no agent listening at /run/user/1000/collie/agent.sock",
            ),
            ("", None, "no agent listening"),
        ];
        for (said, exited, expected) in cases {
            let why = why_ssh_failed(&t, said, exited);
            assert!(why.contains(expected), "{said:?} → {why}");
            assert!(!why.contains('\r'));
        }
        let other = why_ssh_failed(
            &t,
            "kex_exchange_identification: \u{1b}[2Jread\n",
            Some(Some(255)),
        );
        assert_eq!(
            other,
            "ssh to me@box failed (exit 255): kex_exchange_identification: read"
        );
    }
}
