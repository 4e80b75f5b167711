//! `--ssh HOST:SOCKET` against the real OpenSSH server (`common::sshd`): the phone and the
//! headless commands reach an agent's private socket through `ssh -N -L`, with every privacy
//! check of a local socket kept; each way ssh fails is said in plain words; ssh ends, and its
//! folder goes, when the phone does. Judged on the far side too: the agent's own snapshot shows
//! the answer sent through ssh.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::sshd::{Sshd, sshd_installed};
use common::tmux::{Tmux, tmux_installed};
use common::*;
use serde_json::Value;

/// Runs the binary with ssh pointed at `ssh_command` and its forwards' folders in `runtime`;
/// its journal and config beside it, never the person's.
fn phone(args: &[&str], ssh_command: &str, runtime: &Path) -> Output {
    let home = runtime.parent().expect("the runtime folder's parent");
    Command::new(BIN)
        .args(args)
        .env("COLLIE_SSH_COMMAND", ssh_command)
        .env("XDG_RUNTIME_DIR", runtime)
        .env("XDG_STATE_HOME", home.join("phone-state"))
        .env("XDG_CONFIG_HOME", home.join("phone-config"))
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env("RUST_LOG", "warn")
        .output()
        .expect("the binary runs")
}

/// A runtime folder of the test's own, 0700 as a real one is.
fn runtime_dir(dir: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let runtime = dir.join("runtime");
    std::fs::create_dir_all(&runtime).expect("a runtime folder");
    std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700))
        .expect("a private runtime folder");
    runtime
}

/// The ssh processes still running with this config on their command line.
fn ssh_running(config_words: &str) -> usize {
    let config = config_words.trim_start_matches("ssh -F ");
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .map(|cmdline| String::from_utf8_lossy(&cmdline).replace('\0', " "))
        .filter(|cmdline| cmdline.starts_with("ssh ") && cmdline.contains(config))
        .count()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// The far machine of a test: the real sshd, an agent on its private socket, the `--ssh`
/// target that names it, ssh pointed at the server, and the phone's runtime folder.
struct Far {
    sshd: Sshd,
    _dir: tempfile::TempDir,
    agent: AgentProcess,
    target: String,
    ssh: String,
    runtime: std::path::PathBuf,
}

impl Far {
    /// None, with a note, where sshd (or tmux, when `tmux` is asked for) is not installed.
    fn start(test: &str, tmux: bool) -> Option<Self> {
        if !sshd_installed(test) {
            return None;
        }
        if tmux && !tmux_installed() {
            eprintln!("SKIPPED {test}: tmux is not installed");
            return None;
        }
        let sshd = Sshd::start();
        let dir = temp_dir();
        let agent = socket_agent(dir.path(), &[]);
        let target = format!("testbox:{}", agent.socket_path().display());
        let ssh = sshd.ssh_command("id", "known_hosts");
        let runtime = runtime_dir(sshd.dir.path());
        Some(Self {
            sshd,
            _dir: dir,
            agent,
            target,
            ssh,
            runtime,
        })
    }

    /// The phone in tmux with `args`, its ssh, runtime, journal and config all the test's.
    fn phone_in_tmux(&self, name: &str, args: &str) -> Tmux {
        let at = |p: &str| self.sshd.dir.path().join(p).display().to_string();
        let command = format!(
            "env COLLIE_SSH_COMMAND='{}' XDG_RUNTIME_DIR={} XDG_STATE_HOME={} XDG_CONFIG_HOME={} {BIN} {args} --log {}; sleep 30",
            self.ssh,
            self.runtime.display(),
            at("phone-state"),
            at("phone-config"),
            at("phone.log"),
        );
        Tmux::start(name, (120, 40), &command)
    }

    /// What is left in the runtime folder: a forward's folder that outlived its phone.
    fn left(&self) -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&self.runtime)
            .expect("the runtime folder")
            .flatten()
            .map(|e| e.path())
            .collect()
    }
}

#[tokio::test]
async fn a_headless_command_answers_through_ssh_and_ssh_ends_with_it() {
    let Some(far) = Far::start(
        "a_headless_command_answers_through_ssh_and_ssh_ends_with_it",
        false,
    ) else {
        return;
    };
    let Far {
        sshd,
        agent,
        target,
        ssh,
        runtime,
        ..
    } = &far;

    let out = phone(&["asks", "--json", "--ssh", target], ssh, runtime);
    assert!(out.status.success(), "{}", stderr(&out));
    let asks: Value = serde_json::from_slice(&out.stdout).expect("asks as JSON");
    let ask = asks
        .as_array()
        .and_then(|a| a.iter().find(|a| a["kind"] == "permission"))
        .expect("a permission ask through ssh")
        .clone();
    assert_eq!(ask["agent"], "testbox", "the agent is named after its host");

    let id = ask["id"].as_str().expect("an ask id");
    let out = phone(&["answer", "--ssh", target, id, "deny"], ssh, runtime);
    assert!(out.status.success(), "{}", stderr(&out));
    // The far side has it: the agent's own snapshot no longer holds the ask.
    let open: Vec<String> = panes(&snapshot(&agent.client()).await)
        .iter()
        .flat_map(|p| p["asks"].as_array().cloned().unwrap_or_default())
        .filter_map(|a| a["id"].as_str().map(str::to_string))
        .collect();
    assert!(
        !open.contains(&id.to_string()),
        "the answer reached the agent"
    );

    assert_eq!(ssh_running(ssh), 0, "ssh ended with the command");
    assert!(
        far.left().is_empty(),
        "the forward's folder is gone: {:?}",
        far.left()
    );

    // The same agent named in the config file, `ssh = "HOST:/PATH"`, under its section's name.
    let config = sshd.dir.path().join("phone.toml");
    std::fs::write(
        &config,
        format!("[agents.workstation]\nssh = \"{target}\"\n"),
    )
    .expect("a config file");
    let config = config.display().to_string();
    let out = phone(&["asks", "--json", "--config", &config], ssh, runtime);
    assert!(out.status.success(), "{}", stderr(&out));
    let asks: Value = serde_json::from_slice(&out.stdout).expect("asks as JSON");
    assert!(
        asks.as_array()
            .is_some_and(|a| !a.is_empty() && a.iter().all(|a| a["agent"] == "workstation")),
        "{asks}"
    );
    assert_eq!(ssh_running(ssh), 0, "ssh ended with the command");
    assert!(far.left().is_empty());
}

#[test]
fn each_way_ssh_fails_is_said_with_what_to_do() {
    let Some(far) = Far::start("each_way_ssh_fails_is_said_with_what_to_do", false) else {
        return;
    };
    let Far {
        sshd,
        target,
        runtime,
        ..
    } = &far;
    let closed_port = {
        let config = sshd.client_config("id", "known_hosts");
        let text = std::fs::read_to_string(&config).expect("the config");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let port = listener.local_addr().expect("its address").port();
        drop(listener);
        let closed = sshd.dir.path().join("ssh_config-closed");
        std::fs::write(
            &closed,
            text.replace(&format!("Port {}", sshd.port), &format!("Port {port}")),
        )
        .expect("a config with a closed port");
        format!("ssh -F {}", closed.display())
    };
    let cases = [
        (
            sshd.ssh_command("stranger", "known_hosts"),
            target.clone(),
            "testbox refused every key ssh offered (Permission denied). Add your public key to ~/.ssh/authorized_keys there",
        ),
        (
            sshd.ssh_command("id", "no_known_hosts"),
            target.clone(),
            "ssh does not know testbox's host key, or it changed, so it would not log in. Run `ssh testbox` once in a terminal",
        ),
        (
            sshd.ssh_command("id", "known_hosts"),
            "testbox:/nowhere/agent.sock".to_string(),
            "testbox has no agent listening at /nowhere/agent.sock: start it there (`collie-phone agent --socket /nowhere/agent.sock`)",
        ),
        (
            closed_port,
            target.clone(),
            "testbox refused the connection on its ssh port: is sshd running there, and on that port?",
        ),
        (
            "ssh -F /dev/null".to_string(),
            "nowhere.invalid:/tmp/agent.sock".to_string(),
            "ssh could not find the host nowhere.invalid: the name does not resolve.",
        ),
    ];
    for (ssh, target, said) in cases {
        let out = phone(&["asks", "--ssh", &target], &ssh, runtime);
        assert!(!out.status.success(), "{target} with {ssh}");
        let err = stderr(&out);
        assert!(err.contains(said), "{target} with {ssh}: {err}");
        assert_eq!(err.lines().count(), 1, "one sentence: {err}");
        assert_eq!(ssh_running(&ssh), 0, "no ssh is left behind");
    }
    assert!(
        far.left().is_empty(),
        "no forward's folder is left: {:?}",
        far.left()
    );
}

#[test]
fn the_phone_shows_an_agent_through_ssh_and_ends_ssh_when_it_quits() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let Some(far) = Far::start(
        "the_phone_shows_an_agent_through_ssh_and_ends_ssh_when_it_quits",
        true,
    ) else {
        return;
    };
    let ssh = &far.ssh;
    let tmux = far.phone_in_tmux("ssh", &format!("--ssh {}", far.target));
    tmux.until("the agent through ssh", |s| {
        s.contains("testbox") && s.contains("Needs your answer")
    });
    // Home says how it is reached: through ssh, not "the private socket" it dials.
    tmux.until("how it is reached", |s| {
        s.contains("reached through ssh from testbox.")
    });
    // The local end is private, as every socket the phone dials must be (SPEC S3, S4).
    let folders = far.left();
    assert_eq!(folders.len(), 1, "one forward, one folder");
    let folder = folders[0].clone();
    let mode = |p: &Path| {
        std::fs::metadata(p)
            .expect("its metadata")
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(&folder), 0o700);
    let local = folder.join("agent.sock");
    assert!(
        std::fs::metadata(&local)
            .expect("the socket")
            .file_type()
            .is_socket()
    );
    assert_eq!(mode(&local), 0o600);
    assert_eq!(ssh_running(ssh), 1);

    tmux.keys(&["q"]);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while ssh_running(ssh) > 0 && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(ssh_running(ssh), 0, "ssh ended with the phone");
    assert!(!folder.exists(), "the forward's folder is gone");
}

/// The open permission asks with `words` in their title, as the agent itself lists them.
fn open_permissions(asks: &Value, words: &str) -> usize {
    asks.as_array()
        .into_iter()
        .flatten()
        .filter(|a| {
            a["kind"] == "permission" && a["title"].as_str().is_some_and(|t| t.contains(words))
        })
        .count()
}

#[test]
fn two_hosts_one_through_ssh_one_over_pinned_tls_are_answered_from_one_phone() {
    let Some(far) = Far::start(
        "two_hosts_one_through_ssh_one_over_pinned_tls_are_answered_from_one_phone",
        true,
    ) else {
        return;
    };
    let Far {
        sshd,
        target,
        ssh,
        runtime,
        ..
    } = &far;
    // The second host: `--tls auto` on another port, dialed with the command it printed.
    let second_dir = temp_dir();
    let (token, _) = token_file(second_dir.path());
    let second = auto_agent(&second_dir.path().join("state"), &token);
    let dial = shell_words::join(&second.dial);
    let tls_asks = || {
        let mut args = vec!["asks".to_string(), "--json".to_string()];
        args.extend(shell_words::split(&dial).expect("a shell line"));
        let out = Command::new(BIN)
            .args(&args)
            .env_remove("COLLIE_DURABLE_SOCKET")
            .env("XDG_STATE_HOME", sshd.dir.path().join("phone-state"))
            .env("XDG_CONFIG_HOME", sshd.dir.path().join("phone-config"))
            .output()
            .expect("the binary runs");
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice::<Value>(&out.stdout).expect("asks as JSON")
    };
    assert_eq!(open_permissions(&tls_asks(), "rm -rf build/"), 1);

    let tmux = far.phone_in_tmux("two-hosts", &format!("--ssh {target} {dial}"));
    tmux.until("both hosts' asks", |s| {
        s.lines()
            .any(|l| l.starts_with("  testbox") && l.contains("rm -rf build/"))
            && s.lines()
                .any(|l| l.starts_with("  127.0.0.1") && l.contains("rm -rf build/"))
    });
    let waiting = |screen: &str| -> Option<usize> {
        let at = screen.find("Needs your answer (")? + "Needs your answer (".len();
        screen[at..].split(')').next()?.parse().ok()
    };
    let before = waiting(&tmux.screen()).expect("the count of asks");
    for (host, left) in [("testbox", before - 1), ("127.0.0.1", before - 2)] {
        // The row of this host's `rm -rf build/` permission, then Deny from its card. The
        // selection is walked there one drawn row at a time, back up when it passed the row (a
        // loaded machine draws late, and rows move as the other host's asks come in).
        let row = |line: &str| {
            line.trim_start_matches(['›', ' ']).starts_with(host) && line.contains("rm -rf build/")
        };
        let mut found = false;
        for _ in 0..40 {
            let screen = tmux.screen();
            let lines: Vec<&str> = screen.lines().collect();
            let at = lines.iter().position(|l| l.starts_with('›'));
            let want = lines.iter().position(|l| row(l));
            let key = match (at, want) {
                (Some(at), Some(want)) if at == want => {
                    found = true;
                    break;
                }
                (Some(at), Some(want)) if at > want => "k",
                _ => "j",
            };
            tmux.keys(&[key]);
            let until = std::time::Instant::now() + std::time::Duration::from_secs(3);
            while std::time::Instant::now() < until
                && tmux.screen().lines().position(|l| l.starts_with('›')) == at
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
        assert!(found, "no row of {host}'s permission:\n{}", tmux.screen());
        tmux.keys(&["Enter"]);
        tmux.until("the permission card", |s| s.contains("$ rm -rf build/"));
        tmux.keys(&["n"]);
        tmux.read_card();
        tmux.keys(&["Enter"]);
        tmux.until("the answer taken", |s| s.contains("Answered."));
        tmux.keys(&["Escape"]);
        tmux.until("one ask fewer", |s| {
            s.contains(&format!("Needs your answer ({left})"))
        });
        tmux.keys(&["g"]);
    }
    // Each host has its answer: the agents themselves no longer hold those asks.
    let out = phone(&["asks", "--json", "--ssh", target], ssh, runtime);
    assert!(out.status.success(), "{}", stderr(&out));
    let through_ssh: Value = serde_json::from_slice(&out.stdout).expect("asks as JSON");
    assert_eq!(open_permissions(&through_ssh, "rm -rf build/"), 0);
    assert_eq!(open_permissions(&tls_asks(), "rm -rf build/"), 0);
}
