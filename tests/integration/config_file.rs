//! The real binary with a config file it must refuse: the exact line on stderr, the exit status,
//! and the line in the log when the command keeps one (docs/CONFIG.md, "What is refused").

use std::path::Path;
use std::process::Output;

const BIN: &str = env!("CARGO_BIN_EXE_collie-phone");

fn run(home: &Path, args: &[&str]) -> Output {
    std::process::Command::new(BIN)
        .args(args)
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env_remove("COLLIE_DURABLE_TOKEN")
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .output()
        .expect("the binary runs")
}

fn write_config(home: &Path, text: &str) -> String {
    let path = home.join("my-config.toml");
    std::fs::write(&path, text).expect("write the config");
    path.display().to_string()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn the_phone_refuses_an_unknown_key_with_its_line_and_the_nearest_key() {
    let home = tempfile::tempdir().expect("dir");
    let config = write_config(home.path(), "bell = false\nthme = \"light\"\n");
    let log = home.path().join("phone.log");
    let output = run(
        home.path(),
        &["--config", &config, "--log", &log.display().to_string()],
    );
    assert_eq!(
        stderr(&output),
        format!("collie-phone: {config}:2:1: unknown key \"thme\"; did you mean \"theme\"?\n")
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let logged = std::fs::read_to_string(&log).expect("the phone keeps a log");
    assert!(
        logged.contains("the config file is refused") && logged.contains("unknown key"),
        "{logged}"
    );
}

#[test]
fn every_command_that_reads_the_config_refuses_it_the_same_way() {
    let home = tempfile::tempdir().expect("dir");
    let config = write_config(home.path(), "thme = \"light\"\n");
    let expected =
        format!("collie-phone: {config}:1:1: unknown key \"thme\"; did you mean \"theme\"?\n");
    for command in [
        vec!["doctor", "--config", &config],
        vec!["asks", "--config", &config],
        vec!["check", "--config", &config],
    ] {
        let output = run(home.path(), &command);
        assert_eq!(stderr(&output), expected, "{command:?}");
        assert_eq!(output.status.code(), Some(1), "{command:?}");
    }
}

#[test]
fn a_bad_value_and_a_bad_theme_are_value_errors_with_their_line() {
    let home = tempfile::tempdir().expect("dir");
    let config = write_config(home.path(), "theme = \"dark\"\nnotify = \"loud\"\n");
    let output = run(home.path(), &["doctor", "--config", &config]);
    assert_eq!(
        stderr(&output),
        format!(
            "collie-phone: {config}:2:10: notify = \"loud\" is not a valid value; use one of: bell, osc9, osc777, off\n"
        )
    );
    assert_eq!(output.status.code(), Some(1));

    let config = write_config(home.path(), "\ntheme = \"neon\"\n");
    let log = home.path().join("phone.log").display().to_string();
    let output = run(home.path(), &["--config", &config, "--log", &log]);
    assert_eq!(
        stderr(&output),
        format!(
            "collie-phone: {config}:2:9: theme = \"neon\" is not a valid value; use one of: auto, dark, light, high-contrast, the path of a theme file\n"
        )
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn the_acp_host_refuses_an_unknown_key_in_an_acp_table_and_a_bad_acp_flag() {
    let home = tempfile::tempdir().expect("dir");
    let config = write_config(
        home.path(),
        "[acp.claude]\ncomand = [\"claude-code-acp\"]\n",
    );
    let socket = home.path().join("a.sock").display().to_string();
    // The agent logs to stderr unless told otherwise; the log is not what is judged here.
    let log = home.path().join("agent.log").display().to_string();
    let output = run(
        home.path(),
        &[
            "agent", "--socket", &socket, "--log", &log, "--config", &config,
        ],
    );
    assert_eq!(
        stderr(&output),
        format!(
            "collie-phone: {config}:2:1: unknown key \"comand\" in [acp.claude]; did you mean \"command\"?\n"
        )
    );
    assert_eq!(output.status.code(), Some(1));

    let empty = write_config(home.path(), "");
    let output = run(
        home.path(),
        &[
            "agent", "--socket", &socket, "--log", &log, "--config", &empty, "--acp", "claude",
        ],
    );
    assert_eq!(
        stderr(&output),
        "collie-phone: --acp takes NAME=COMMAND, e.g. claude=\"claude-code-acp\"; got \"claude\"\n"
    );
    assert_eq!(output.status.code(), Some(1));
}

/// Runs the binary as [`run`] does, but a run still going after 5 s fails the test: a hang is
/// the failure this guards against, not a speed to keep.
fn run_guarded(home: &Path, args: &[&str]) -> Output {
    let mut child = std::process::Command::new(BIN)
        .args(args)
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env_remove("COLLIE_DURABLE_TOKEN")
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let started = std::time::Instant::now();
    while child.try_wait().expect("the child's status").is_none() {
        if started.elapsed() > std::time::Duration::from_secs(5) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} was still running after 5 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().expect("the child's output")
}

#[test]
fn s1_a_socket_path_of_the_wrong_shape_in_the_config_is_a_usage_error_at_its_line() {
    let home = tempfile::tempdir().expect("dir");
    let folder = home.path().join("config").join("collie-phone");
    std::fs::create_dir_all(&folder).expect("the config folder");
    let config = folder.join("config.toml");
    std::fs::write(&config, "[agents.x]\nsocket = \"rel/x.sock\"\n").expect("write the config");
    let config = config.display().to_string();
    for command in [vec!["asks"], vec!["asks", "--json"], vec!["doctor"]] {
        let output = run_guarded(home.path(), &command);
        // `--json` tells it on stdout, as the object's message; the rest on stderr.
        let said = if command.contains(&"--json") {
            let object: serde_json::Value =
                serde_json::from_slice(&output.stdout).expect("one JSON object");
            assert_eq!(object["result"], "bad-arguments", "{object}");
            object["message"].as_str().unwrap_or_default().to_string()
        } else {
            stderr(&output)
        };
        assert_eq!(output.status.code(), Some(2), "{command:?}: {said}");
        assert!(
            said.contains(&format!(
                "{config}:2:10: socket = \"rel/x.sock\" in [agents.x] is not a valid value: the socket path must be absolute; write the whole path from /"
            )),
            "{command:?}: {said}"
        );
        // Refused as the command line's --socket is, never dialled and waited for.
        assert!(!said.contains("unreachable"), "{command:?}: {said}");
    }
}
