//! The real binary against places where no agent is: each says so in one line on stderr, with
//! the exit code of "unreachable" (docs/SCRIPTING.md, "Exit codes"). A socket that does not
//! exist is said to be missing, not "not private" (SPEC S4), and points at `doctor`; a refused
//! TCP connection says that nothing listens there; a URL agent is named by its host; a socket
//! whose folder is not there is not waited for.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_collie-phone");
/// The headless commands' exit code for "unreachable" (docs/SCRIPTING.md).
const UNREACHABLE: i32 = 8;

fn run(home: &Path, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let output = std::process::Command::new(BIN)
        .args(args)
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env_remove("COLLIE_DURABLE_TOKEN")
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .output()
        .expect("the binary runs");
    (output, started.elapsed())
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A private folder under /tmp, short enough for a socket path.
fn private_dir() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("cp-ce")
        .tempdir_in("/tmp")
        .expect("dir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    dir
}

fn token_file(dir: &Path) -> String {
    let path = dir.join("token");
    std::fs::write(&path, "t".repeat(40)).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    path.display().to_string()
}

#[test]
fn a_socket_whose_folder_does_not_exist_stops_every_headless_command_at_once() {
    let home = private_dir();
    let socket = home.path().join("nowhere").join("agent.sock");
    let socket = socket.display().to_string();
    let folder = home.path().join("nowhere").display().to_string();
    let said = format!(
        "cannot reach the agent \"agent\": no socket at {socket}: the folder {folder} does not exist; is the path right? `collie-phone doctor --socket {socket}` tells more"
    );
    for (command, line) in [
        (vec!["asks"], format!("collie-phone: {said}\n")),
        (vec!["watch"], format!("collie-phone: {said}\n")),
        (
            vec!["send", "p1", "hello"],
            format!("collie-phone: {said}; nothing was sent\n"),
        ),
        (
            vec!["answer", "ask-1", "allow-once"],
            format!("collie-phone: {said}; nothing was sent\n"),
        ),
    ] {
        let mut args = command.clone();
        // A long --wait: the command must not use it. A folder that could still be made (an
        // agent started at the same moment makes it) gets two seconds, no more.
        args.extend(["--socket", &socket, "--wait", "30"]);
        let (output, took) = run(home.path(), &args);
        assert_eq!(stderr(&output), line, "{command:?}");
        assert_eq!(output.status.code(), Some(UNREACHABLE), "{command:?}");
        assert!(took < Duration::from_secs(5), "{command:?} waited {took:?}");
    }
}

#[test]
fn a_socket_under_a_file_cannot_appear_either() {
    let home = private_dir();
    let file = home.path().join("plain");
    std::fs::write(&file, "x").expect("write");
    let socket = file.join("agent.sock").display().to_string();
    let (output, took) = run(home.path(), &["asks", "--socket", &socket, "--wait", "30"]);
    assert_eq!(
        stderr(&output),
        format!(
            "collie-phone: cannot reach the agent \"agent\": no socket at {socket}: {} is not a folder; is the path right? `collie-phone doctor --socket {socket}` tells more\n",
            file.display()
        )
    );
    assert_eq!(output.status.code(), Some(UNREACHABLE));
    // Nothing can ever make a folder where a file is: no grace at all.
    assert!(took < Duration::from_millis(1500), "waited {took:?}");
}

#[test]
fn a_missing_socket_in_a_folder_that_is_there_is_waited_for_then_said_missing() {
    // /tmp is open to others: before, this said "socket-not-private: /tmp …".
    let home = private_dir();
    let socket = home.path().join("agent.sock").display().to_string();
    let (output, took) = run(home.path(), &["asks", "--socket", &socket, "--wait", "1"]);
    assert_eq!(
        stderr(&output),
        format!(
            "collie-phone: cannot reach the agent \"agent\": no socket at {socket}; is the agent running? `collie-phone doctor --socket {socket}` tells more\n"
        )
    );
    assert_eq!(output.status.code(), Some(UNREACHABLE));
    // It waited: the agent may be starting.
    assert!(took >= Duration::from_secs(1), "{took:?}");
}

#[test]
fn a_refused_tcp_connection_says_nothing_listens_and_names_the_agent_by_its_host() {
    let home = private_dir();
    let token = token_file(home.path());
    let (output, _) = run(
        home.path(),
        &[
            "asks",
            "--url",
            "https://127.0.0.1:1",
            "--token-file",
            &token,
            "--wait",
            "1",
        ],
    );
    assert_eq!(
        stderr(&output),
        "collie-phone: cannot reach the agent \"127.0.0.1\": nothing listens on 127.0.0.1:1\n"
    );
    assert_eq!(output.status.code(), Some(UNREACHABLE));
}

#[test]
fn doctor_says_there_is_no_socket_rather_than_not_private() {
    let home = private_dir();
    let socket = home.path().join("agent.sock").display().to_string();
    let (output, _) = run(home.path(), &["doctor", "--socket", &socket]);
    let shown = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        shown.contains(&format!(
            "· connect               not tried: no socket at {socket}, so there is nothing to connect to\n"
        )),
        "{shown}"
    );
    assert!(!shown.contains("not private"), "{shown}");
    assert_eq!(output.status.code(), Some(1));
    let token = token_file(home.path());
    let (output, _) = run(
        home.path(),
        &[
            "doctor",
            "--url",
            "https://127.0.0.1:1",
            "--token-file",
            &token,
        ],
    );
    let shown = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        shown.starts_with("127.0.0.1 (https://127.0.0.1:1)\n"),
        "{shown}"
    );
    assert!(
        shown.contains("✗ hello                 nothing listens on 127.0.0.1:1 ("),
        "{shown}"
    );
}

#[test]
fn a_tls_agent_whose_certificate_is_not_trusted_says_so_and_names_ca_cert_and_doctor() {
    let home = private_dir();
    let agent = crate::common::https_agent(home.path());
    let (token, _) = crate::common::token_file(home.path());
    let url = agent.process.url.trim_end_matches('/').to_string();
    let (output, _) = run(
        home.path(),
        &[
            "asks",
            "--url",
            &url,
            "--token-file",
            token.to_str().expect("utf-8"),
            "--wait",
            "2",
        ],
    );
    let host = url
        .trim_start_matches("https://")
        .split(':')
        .next()
        .expect("host");
    assert_eq!(
        stderr(&output),
        format!(
            "collie-phone: cannot reach the agent \"{host}\": the agent's certificate is not trusted (it is signed by an authority this phone does not know, such as itself): give its CA with --ca-cert FILE, or trust that one certificate with --pin sha256:… (`collie-phone agent --tls auto` makes a certificate and prints the pin); `collie-phone doctor --url {url}` tells more\n"
        )
    );
    assert_eq!(output.status.code(), Some(UNREACHABLE));
    let (output, _) = run(
        home.path(),
        &[
            "doctor",
            "--url",
            &url,
            "--token-file",
            token.to_str().expect("utf-8"),
        ],
    );
    let shown = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(shown.contains("the agent's certificate is not trusted (it is signed by an authority this phone does not know"), "{shown}");
    assert!(shown.contains("--ca-cert"), "{shown}");
}

#[test]
fn a_relative_socket_path_says_it_must_be_absolute_and_gives_the_whole_path() {
    // A path of the wrong shape is a bad argument (exit 2, docs/SCRIPTING.md), for every
    // command that dials: never "unreachable" (8), which a script would wait and retry on.
    let home = private_dir();
    let whole = home.path().join("agent.sock");
    for command in [
        &["asks", "--socket", "agent.sock", "--wait", "1"][..],
        &["doctor", "--socket", "agent.sock"],
    ] {
        let output = std::process::Command::new(BIN)
            .args(command)
            .current_dir(home.path())
            .env_remove("COLLIE_DURABLE_SOCKET")
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("XDG_STATE_HOME", home.path().join("state"))
            .output()
            .expect("the binary runs");
        assert_eq!(output.status.code(), Some(2), "{command:?}: {output:?}");
        let said = stderr(&output);
        assert!(
            said.contains(&format!(
                "agent.sock: the socket path must be absolute; give the whole path from /, such as {}",
                whole.display()
            )),
            "{command:?}: {said}"
        );
        assert!(!said.contains("not private"), "{said}");
    }
}
