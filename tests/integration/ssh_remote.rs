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

/// Runs the binary with ssh pointed at `ssh_command` and its forwards' folders in `runtime`.
fn phone(args: &[&str], ssh_command: &str, runtime: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .env("COLLIE_SSH_COMMAND", ssh_command)
        .env("XDG_RUNTIME_DIR", runtime)
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

#[tokio::test]
async fn a_headless_command_answers_through_ssh_and_ssh_ends_with_it() {
    if !sshd_installed("a_headless_command_answers_through_ssh_and_ssh_ends_with_it") {
        return;
    }
    let sshd = Sshd::start();
    let far = temp_dir();
    let agent = socket_agent(far.path(), &[]);
    let socket = agent.socket_path();
    let target = format!("testbox:{}", socket.display());
    let ssh = sshd.ssh_command("id", "known_hosts");
    let runtime = runtime_dir(sshd.dir.path());

    let out = phone(&["asks", "--json", "--ssh", &target], &ssh, &runtime);
    assert!(out.status.success(), "{}", stderr(&out));
    let asks: Value = serde_json::from_slice(&out.stdout).expect("asks as JSON");
    let ask = asks
        .as_array()
        .and_then(|a| a.iter().find(|a| a["kind"] == "permission"))
        .expect("a permission ask through ssh")
        .clone();
    assert_eq!(ask["agent"], "testbox", "the agent is named after its host");

    let id = ask["id"].as_str().expect("an ask id");
    let out = phone(&["answer", "--ssh", &target, id, "deny"], &ssh, &runtime);
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

    assert_eq!(ssh_running(&ssh), 0, "ssh ended with the command");
    let left: Vec<_> = std::fs::read_dir(&runtime)
        .expect("the runtime folder")
        .collect();
    assert!(left.is_empty(), "the forward's folder is gone: {left:?}");
}

#[test]
fn each_way_ssh_fails_is_said_with_what_to_do() {
    if !sshd_installed("each_way_ssh_fails_is_said_with_what_to_do") {
        return;
    }
    let sshd = Sshd::start();
    let far = temp_dir();
    let agent = socket_agent(far.path(), &[]);
    let socket = agent.socket_path();
    let target = format!("testbox:{}", socket.display());
    let runtime = runtime_dir(sshd.dir.path());
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
        let out = phone(&["asks", "--ssh", &target], &ssh, &runtime);
        assert!(!out.status.success(), "{target} with {ssh}");
        let err = stderr(&out);
        assert!(err.contains(said), "{target} with {ssh}: {err}");
        assert_eq!(err.lines().count(), 1, "one sentence: {err}");
        assert_eq!(ssh_running(&ssh), 0, "no ssh is left behind");
    }
    let left: Vec<_> = std::fs::read_dir(&runtime)
        .expect("the runtime folder")
        .collect();
    assert!(left.is_empty(), "no forward's folder is left: {left:?}");
}

#[test]
fn the_phone_shows_an_agent_through_ssh_and_ends_ssh_when_it_quits() {
    if !sshd_installed("the_phone_shows_an_agent_through_ssh_and_ends_ssh_when_it_quits") {
        return;
    }
    if !tmux_installed() {
        eprintln!(
            "SKIPPED the_phone_shows_an_agent_through_ssh_and_ends_ssh_when_it_quits: tmux is not installed"
        );
        return;
    }
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let sshd = Sshd::start();
    let far = temp_dir();
    let agent = socket_agent(far.path(), &[]);
    let target = format!("testbox:{}", agent.socket_path().display());
    let ssh = sshd.ssh_command("id", "known_hosts");
    let runtime = runtime_dir(sshd.dir.path());
    let log = sshd.dir.path().join("phone.log");
    let command = format!(
        "env COLLIE_SSH_COMMAND='{ssh}' XDG_RUNTIME_DIR={} {BIN} --ssh {target} --log {}; sleep 30",
        runtime.display(),
        log.display()
    );
    let tmux = Tmux::start("ssh", (100, 30), &command);
    tmux.until("the agent through ssh", |s| {
        s.contains("testbox") && s.contains("Needs your answer")
    });
    // The local end is private, as every socket the phone dials must be (SPEC S3, S4).
    let folders: Vec<_> = std::fs::read_dir(&runtime)
        .expect("the runtime folder")
        .flatten()
        .collect();
    assert_eq!(folders.len(), 1, "one forward, one folder");
    let folder = folders[0].path();
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
    assert_eq!(ssh_running(&ssh), 1);

    tmux.keys(&["q"]);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while ssh_running(&ssh) > 0 && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(ssh_running(&ssh), 0, "ssh ended with the phone");
    assert!(!folder.exists(), "the forward's folder is gone");
}
