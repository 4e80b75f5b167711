//! The rings without a screen (docs/CONFIG.md, "Rings"): `collie-phone watch --notify` against
//! the faulty agent of tests/common, whose one ask a test opens and titles at will. The
//! person's command is a small shell script writing its stdin to a file; a test waits for its
//! lines, never for a time.

use crate::common;

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use common::BIN;
use common::faulty::Faulty;

/// How long a line the test waits for may take.
const SOON: Duration = Duration::from_secs(30);

/// A private home with a config file holding `notify`: (home, config path).
pub(crate) fn home_with_notify(notify: &str) -> (tempfile::TempDir, PathBuf) {
    let home = common::temp_dir();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o700))
        .expect("a private home");
    let config = home.path().join("config.toml");
    std::fs::write(&config, notify).expect("the config");
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600))
        .expect("a private config");
    (home, config)
}

/// The command's lines written so far, each one JSON object.
pub(crate) fn pushed(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).expect("one JSON object a line"))
        .collect()
}

/// Waits until the command has written a line that passes `check`.
pub(crate) fn until_pushed(file: &Path, what: &str, check: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + SOON;
    loop {
        if let Some(found) = pushed(file).into_iter().find(|value| check(value)) {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "{what} was not pushed within {SOON:?}; pushed: {:?}",
            pushed(file)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn watch(home: &Path, config: &Path, socket: &str) -> Child {
    Command::new(BIN)
        .args([
            "watch", "--notify", "--json", "--socket", socket, "--config",
        ])
        .arg(config)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env_remove("COLLIE_DURABLE_SOCKET")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("watch starts")
}

/// Waits for a line of watch's stdout that passes `check`.
fn until_line(
    lines: &std::sync::mpsc::Receiver<String>,
    what: &str,
    check: impl Fn(&Value) -> bool,
) {
    let deadline = Instant::now() + SOON;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = lines
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("watch never printed {what}"));
        let value: Value = serde_json::from_str(&line).expect("one JSON object a line");
        if check(&value) {
            return;
        }
    }
}

fn lines_of(child: &mut Child) -> std::sync::mpsc::Receiver<String> {
    let stdout = child.stdout.take().expect("piped stdout");
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// SIGTERM, then its exit code and its stderr.
fn stop(child: Child) -> (Option<i32>, String) {
    let pid = libc::pid_t::try_from(child.id()).expect("a pid fits");
    // SAFETY: a signal to our own child, whose pid we hold.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let output = child.wait_with_output().expect("watch ends");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn answer(home: &Path, socket: &str, ask: &str) {
    let output = Command::new(BIN)
        .args(["answer", "--socket", socket, ask, "deny"])
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(Stdio::null())
        .output()
        .expect("answer runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_notify_pushes_a_new_ask_once_after_the_wait_cleaned_and_closed_when_answered() {
    let faulty = Faulty::new();
    faulty.set(|b| b.ask_open = false);
    let (socket, _dir) = faulty.serve_socket().await;
    let socket = socket.to_str().expect("utf-8").to_string();
    let (home, _) = home_with_notify("");
    let out = home.path().join("pushed.jsonl");
    let notify = format!(
        "[notify]\ncommand = [\"sh\", \"-c\", \"cat >> {}\"]\nafter = 1\n",
        out.display()
    );
    let config = home.path().join("config.toml");
    std::fs::write(&config, notify).expect("the config");
    let home_path = home.path().to_path_buf();
    tokio::task::spawn_blocking(move || {
        let mut child = watch(&home_path, &config, &socket);
        let lines = lines_of(&mut child);
        until_line(&lines, "the first layout", |v| v["type"] == "snapshot");
        // A hostile agent's title: escapes, a line break, a C1 control.
        faulty.set(|b| {
            b.ask_title = "\u{1b}]0;pwned\u{7}Deploy?\r\nnow \u{9b}31m".into();
            b.ask_open = true;
            b.rev += 1;
        });
        until_line(&lines, "the ask opened", |v| v["type"] == "ask-opened");
        let pushed_ask = until_pushed(&out, "the new ask", |v| v["event"] == "new-ask");
        let title = pushed_ask["ask"]["title"].as_str().expect("a title");
        assert!(!title.chars().any(char::is_control), "{title:?}");
        // The wire's own cleaning (SPEC L1) already took the line break from a title.
        assert_eq!(title, "]0;pwnedDeploy?now 31m");
        assert_eq!(pushed_ask["ask"]["kind"], "permission");
        assert_eq!(pushed_ask["pane"], "p1");
        assert_eq!(pushed_ask["ask"]["options"][1]["id"], "deny");
        assert_eq!(
            pushed_ask["answer"],
            format!("collie-phone answer --socket {socket} ask-1 OPTION")
        );
        until_line(&lines, "the push said", |v| v["type"] == "notify");
        // Answered from a shell: the same id is closed.
        answer(&home_path, &socket, "ask-1");
        let closed = until_pushed(&out, "the closed event", |v| v["event"] == "closed");
        assert_eq!(closed["id"], pushed_ask["id"]);
        assert_eq!(closed["reason"], "answered");
        let all = pushed(&out);
        assert_eq!(all.len(), 2, "one push and one withdrawal: {all:?}");
        let (code, stderr) = stop(child);
        assert_eq!(code, Some(0), "a clean stop on SIGTERM, as watch: {stderr}");
    })
    .await
    .expect("the test ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_notify_says_a_missing_command_once_and_without_a_command_refuses_to_start() {
    let faulty = Faulty::new();
    faulty.set(|b| b.ask_open = false);
    let (socket, _dir) = faulty.serve_socket().await;
    let socket = socket.to_str().expect("utf-8").to_string();
    let (home, config) =
        home_with_notify("[notify]\ncommand = [\"/nonexistent/collie-notify\"]\nafter = 0\n");
    let (bare_home, bare) = home_with_notify("notify = \"bell\"\n");
    let home_path = home.path().to_path_buf();
    tokio::task::spawn_blocking(move || {
        let refused = watch(bare_home.path(), &bare, &socket)
            .wait_with_output()
            .expect("watch ends");
        assert_eq!(refused.status.code(), Some(2), "{refused:?}");
        assert!(
            String::from_utf8_lossy(&refused.stdout).contains("needs a command to run"),
            "{refused:?}"
        );
        let mut child = watch(&home_path, &config, &socket);
        let lines = lines_of(&mut child);
        until_line(&lines, "the first layout", |v| v["type"] == "snapshot");
        faulty.set(|b| {
            b.ask_open = true;
            b.rev += 1;
        });
        until_line(&lines, "the push", |v| v["type"] == "notify");
        // Two runs that fail: the new ask and its closing.
        answer(&home_path, &socket, "ask-1");
        until_line(&lines, "the closed push", |v| {
            v["type"] == "notify" && v["notify"]["event"] == "closed"
        });
        // The failures come back to the watch's next tick: wait for it to say the first.
        std::thread::sleep(Duration::from_millis(2500));
        let (code, stderr) = stop(child);
        assert_eq!(code, Some(0), "{stderr}");
        let said: Vec<&str> = stderr
            .lines()
            .filter(|line| line.contains("/nonexistent/collie-notify could not start"))
            .collect();
        assert_eq!(said.len(), 1, "said once: {stderr}");
    })
    .await
    .expect("the test ran");
}
