//! An agent's process as the host starts and stops it: the environment it gets, its own
//! process group, and the group's end (docs/ACP.md, "The agent's process").

use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

use super::spec::AcpSpec;

/// The host's own variables are named so; none of them is the agent's business.
const HOST_PREFIX: &str = "COLLIE_";

/// How long an agent whose stdin was closed gets to exit on its own (ACP stdio transport: the
/// client closes stdin to end the connection), as the `agent-client-protocol` crate (5.2) gave it.
pub(crate) const EXIT_GRACE: Duration = Duration::from_secs(1);
/// How long it then gets after `SIGTERM`, before the group is sent `SIGKILL`: long enough for
/// node or python behind `npx`/`uvx` to run their handlers, as the crate gave it.
pub(crate) const TERM_GRACE: Duration = Duration::from_secs(2);

/// The variables of the host's environment the agent does not get: every `COLLIE_*` one
/// (`COLLIE_DURABLE_TOKEN`, `COLLIE_DURABLE_SOCKET`, the tests' `COLLIE_REAL_AGENTS`, …).
/// They say how to reach this host or a phone's agents, and an agent that a prompt talks into
/// running a tool could use them to answer its own permission asks. Everything else passes
/// (`PATH`, `HOME`, the agent's own API keys and settings): the agent starts with the
/// environment the person ran the host in, as in a terminal. `AcpSpec` carries no variables
/// of its own to add. docs/ACP.md, "The agent's process", lists the same.
pub(crate) fn removed_from_environment(
    host: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<OsString> {
    host.into_iter()
        .map(|(name, _)| name)
        .filter(|name| {
            name.to_str()
                .is_some_and(|name| name.starts_with(HOST_PREFIX))
        })
        .collect()
}

/// The command that starts the agent: its program and arguments, run directly (never through
/// a shell), its stdio piped, in the environment of [`removed_from_environment`], the leader of
/// a process group of its own, and killed if the host drops it.
pub(crate) fn command(spec: &AcpSpec, program: &Path) -> Command {
    let mut command = Command::new(program);
    command
        .args(spec.command.iter().skip(1))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Agents run behind launchers (`npx …`, `uvx …`): killing only the launcher would
        // leave the real agent running, so the whole group is ended (`Group`).
        .process_group(0)
        .kill_on_drop(true);
    for name in removed_from_environment(std::env::vars_os()) {
        command.env_remove(name);
    }
    command
}

/// The agent's process group, sent `SIGKILL` when dropped: however the connection ends (the
/// host drops it, the runtime stops, a panic), nothing the agent started is left behind.
pub(crate) struct Group(Option<libc::pid_t>);

impl Group {
    /// The group `child` leads (it was started with `process_group(0)`).
    pub(crate) fn of(child: &Child) -> Self {
        Self(child.id().and_then(|pid| libc::pid_t::try_from(pid).ok()))
    }

    pub(crate) fn signal(&self, signal: libc::c_int) {
        if let Some(group) = self.0 {
            // ESRCH only says the group is gone already.
            // SAFETY: killpg takes plain integers and touches no memory of ours.
            unsafe {
                libc::killpg(group, signal);
            }
        }
    }

    /// Ends the connection's side of the agent: stdin is closed already, so it gets
    /// [`EXIT_GRACE`] to exit, then `SIGTERM` and [`TERM_GRACE`], then `SIGKILL`. Its
    /// launcher may exit and leave a child holding the pipes, so the group is killed in the
    /// end whichever way it went.
    pub(crate) async fn stop(&self, child: &mut Child) {
        if tokio::time::timeout(EXIT_GRACE, child.wait())
            .await
            .is_err()
        {
            tracing::debug!("the agent did not exit when its stdin closed; sending SIGTERM");
            self.signal(libc::SIGTERM);
            if tokio::time::timeout(TERM_GRACE, child.wait())
                .await
                .is_err()
            {
                tracing::debug!("the agent did not exit on SIGTERM; sending SIGKILL");
            }
        }
        self.signal(libc::SIGKILL);
        let _ = child.start_kill();
        let _ = child.wait().await;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.signal(libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hosts_own_variables_are_removed_and_the_rest_pass() {
        let host = [
            ("PATH", "/usr/bin"),
            (
                "COLLIE_DURABLE_TOKEN",
                "a-token-of-the-phone-0123456789abcdef",
            ),
            ("COLLIE_DURABLE_SOCKET", "/run/user/1000/collie/agent.sock"),
            ("COLLIE_REAL_AGENTS", "required"),
            ("OPENAI_API_KEY", "sk-the-persons-own"),
            ("MY_COLLIE_THING", "kept: only the prefix counts"),
        ]
        .map(|(n, v)| (OsString::from(n), OsString::from(v)));
        assert_eq!(
            removed_from_environment(host),
            [
                "COLLIE_DURABLE_TOKEN",
                "COLLIE_DURABLE_SOCKET",
                "COLLIE_REAL_AGENTS"
            ]
        );
    }

    #[tokio::test]
    async fn a_dropped_group_takes_the_launchers_children_with_it() {
        let spec = AcpSpec::new(
            "group",
            vec!["sh".into(), "-c".into(), "sleep 30 & echo $!; wait".into()],
        )
        .expect("a spec");
        let program = spec.resolve().expect("sh is on PATH");
        let mut child = command(&spec, &program).spawn().expect("starts");
        let group = Group::of(&child);
        let mut stdout = tokio::io::BufReader::new(child.stdout.take().expect("piped"));
        let mut pid = String::new();
        tokio::io::AsyncBufReadExt::read_line(&mut stdout, &mut pid)
            .await
            .expect("the pid");
        let sleeper: libc::pid_t = pid.trim().parse().expect("a pid");
        drop(group);
        let _ = child.wait().await;
        // Gone, or a zombie no one reaped yet (a container's first process may never).
        let gone = async {
            loop {
                let stat = std::fs::read_to_string(format!("/proc/{sleeper}/stat"));
                let state = stat.as_deref().ok().and_then(|s| s.rsplit(')').next());
                if state.is_none_or(|s| s.trim_start().starts_with('Z')) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(5), gone)
            .await
            .expect("the launcher's child is gone with its group");
    }
}
