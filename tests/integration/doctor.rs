//! `collie-phone doctor` against real agents: every line it prints, its JSON and its exit code
//! (docs/AGENT-AUTHORS.md §1). Socket privacy part by part (SPEC S3, S4), the token (T2, T3),
//! hello and versions (H1, H2, H3, V4, V5), the snapshot's ETag and a 304 (H4).

use crate::common;

use common::faulty::Faulty;
use common::*;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

fn doctor(args: &[&str]) -> Output {
    std::process::Command::new(BIN)
        .arg("doctor")
        .args(args)
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env_remove("COLLIE_DURABLE_TOKEN")
        .env("XDG_CONFIG_HOME", "/nonexistent-collie-config")
        .output()
        .expect("doctor runs")
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).expect("doctor --json prints JSON")
}

fn step<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|s| s["step"] == name)
        .unwrap_or_else(|| panic!("no step {name} in {report}"))
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

#[test]
fn a_healthy_socket_agent_holds_on_every_line_and_exits_0() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path();
    let output = doctor(&["--socket", path_str(&socket)]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(0), "{shown}");
    for line in [
        "✓ socket folder",
        "yours",
        "✓ peer uid",
        "✓ hello",
        "service collie-durable",
        "the agent speaks v1, this Collie speaks v1: v1 chosen",
        "✓ snapshot",
        "ETag",
        "✓ 304 on a second read",
    ] {
        assert!(shown.contains(line), "missing {line:?} in\n{shown}");
    }
    let last = shown.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("All ") && last.ends_with(" steps hold."),
        "{shown}"
    );

    let report = json(&doctor(&["--socket", path_str(&socket), "--json"]));
    assert_eq!(report["ok"], true);
    assert_eq!(step(&report, "hello")["verdict"], "holds");
    assert!(step(&report, "snapshot")["millis"].is_u64());
}

#[test]
fn s3_a_folder_open_to_others_fails_with_the_chmod_that_fixes_it() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path();
    let folder = socket.parent().expect("a folder").to_path_buf();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let output = doctor(&["--socket", path_str(&socket)]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("✗ socket folder"), "{shown}");
    assert!(
        shown.contains(&format!("fix: chmod 700 {}", folder.display())),
        "{shown}"
    );
    // SPEC S4: nothing is sent to a socket that is not private.
    assert!(shown.contains("· hello"), "{shown}");
    let report = json(&doctor(&["--socket", path_str(&socket), "--json"]));
    assert_eq!(report["ok"], false);
    assert_eq!(step(&report, "connect")["verdict"], "not-tried");
}

#[test]
fn a_stale_socket_says_nobody_listens() {
    let dir = temp_dir();
    let mut agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path();
    // A kill -9 leaves the socket file behind, as a crashed agent does.
    agent.stop(false);
    if !socket.exists() {
        // The agent removed its socket on the way out: make the stale file it would leave.
        let listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        drop(listener);
    }
    let output = doctor(&["--socket", path_str(&socket)]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("✗ connect"), "{shown}");
    assert!(shown.contains("Start the agent again"), "{shown}");
}

#[test]
fn a_missing_socket_says_to_start_the_agent() {
    let dir = temp_dir();
    let socket = dir.path().join("agent.sock");
    let output = doctor(&["--socket", path_str(&socket)]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("does not exist"), "{shown}");
    assert!(shown.contains("fix: start the agent"), "{shown}");
}

#[test]
fn h3_an_agent_that_is_not_ready_is_named_so() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &["--ready-after", "600000"]);
    let output = doctor(&["--socket", path_str(&agent.socket_path())]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("✗ ready"), "{shown}");
    assert!(shown.contains("still laying out its panes"), "{shown}");
}

fn tcp_agent(dir: &Path) -> (AgentProcess, std::path::PathBuf) {
    let (token_path, _token) = token_file(dir);
    let agent = AgentProcess::start(&[
        "agent",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        path_str(&token_path),
        "--speed",
        "0",
    ]);
    (agent, token_path)
}

#[test]
fn t2_t3_a_url_agent_with_the_right_token_holds_and_a_wrong_one_is_named() {
    let dir = temp_dir();
    let (agent, token_path) = tcp_agent(dir.path());
    let output = doctor(&["--url", &agent.url, "--token-file", path_str(&token_path)]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(0), "{shown}");
    assert!(shown.contains("✓ url"), "{shown}");
    assert!(shown.contains("✓ token"), "{shown}");
    assert!(shown.contains("mode 0600"), "{shown}");
    assert!(
        !shown.contains("test-token-"),
        "the token is never shown: {shown}"
    );

    let wrong = dir.path().join("wrong-token");
    std::fs::write(
        &wrong,
        "another-token-0123456789abcdefghijklmnopqrstuvwxyz\n",
    )
    .expect("write");
    std::fs::set_permissions(&wrong, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let output = doctor(&["--url", &agent.url, "--token-file", path_str(&wrong)]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("the agent refused the token"), "{shown}");
    assert!(
        shown.contains("fix: use the token file the agent was started with"),
        "{shown}"
    );

    std::fs::set_permissions(&token_path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let output = doctor(&["--url", &agent.url, "--token-file", path_str(&token_path)]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("✗ token"), "{shown}");
    assert!(
        shown.contains(&format!("fix: chmod 600 {}", token_path.display())),
        "{shown}"
    );
}

#[test]
fn t1_a_plain_http_url_off_loopback_is_refused_before_any_connection() {
    let output = doctor(&["--url", "http://example.com:8080"]);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("✗ url"), "{shown}");
    assert!(shown.contains("· hello"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn v4_v5_versions_that_do_not_meet_show_both_ranges() {
    let faulty = Faulty::new();
    faulty.set(|b| b.protocol = (2, 2));
    let (socket, _dir) = faulty.serve_socket().await;
    let socket = socket.to_str().expect("utf-8").to_string();
    let output = tokio::task::spawn_blocking(move || doctor(&["--socket", &socket]))
        .await
        .expect("doctor ran");
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("✗ versions"), "{shown}");
    assert!(
        shown.contains("The durable agent speaks wire v2, this Collie speaks v1. Update Collie, or the agent's SDK."),
        "{shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h4_an_agent_that_never_answers_304_is_caught_with_a_fix() {
    let faulty = Faulty::new();
    faulty.set(|b| b.never_not_modified = true);
    let (socket, _dir) = faulty.serve_socket().await;
    let socket = socket.to_str().expect("utf-8").to_string();
    let output = tokio::task::spawn_blocking(move || doctor(&["--socket", &socket, "--json"]))
        .await
        .expect("doctor ran");
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    let second = step(&report, "304 on a second read");
    assert_eq!(second["verdict"], "fails", "{report}");
    assert!(
        second["fix"]
            .as_str()
            .is_some_and(|f| f.contains("answer 304")),
        "{report}"
    );
    assert_eq!(step(&report, "snapshot")["verdict"], "holds", "{report}");
}
