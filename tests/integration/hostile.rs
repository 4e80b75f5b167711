//! SPEC L1 and T2 on raw bytes: the real binary against a hostile agent (`common::hostile`),
//! every command's stdout and stderr, and the files it writes (JUnit, the journal, a recording,
//! a log), read byte for byte. No agent-sent control or invisible character gets out, and the
//! token the phone sent (which the agent echoes back everywhere) is in none of them.

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::hostile::{Hostile, Mode, assert_clean_bytes};
use common::{BIN, temp_dir, token_file};

/// The binary with an empty config and state of its own, and logs on at `info`.
fn command(home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env_remove("COLLIE_DURABLE_TOKEN")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null());
    command
}

fn run(home: &Path, args: &[&str]) -> Output {
    command(home, args).output().expect("the binary runs")
}

fn assert_output_clean(what: &str, output: &Output, token: &str) {
    assert_clean_bytes(&format!("{what}: stdout"), &output.stdout, token);
    assert_clean_bytes(&format!("{what}: stderr"), &output.stderr, token);
}

/// Both streams as one text, for the "the agent's words did show" half of a test.
fn both(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn check_table_json_and_junit_are_clean_for_every_kind_of_hostile_agent() {
    for mode in [Mode::Fields, Mode::NotJson, Mode::Errors] {
        let dir = temp_dir();
        let (token_path, token) = token_file(dir.path());
        let token_arg = token_path.to_str().expect("utf-8");
        let (agent, url) = Hostile::start(mode);
        let junit = dir.path().join("junit.xml");
        let junit_arg = junit.to_str().expect("utf-8");
        let table = run(
            dir.path(),
            &["check", "--url", &url, "--token-file", token_arg],
        );
        assert_output_clean(&format!("check {mode:?}"), &table, &token);
        let json = run(
            dir.path(),
            &[
                "check",
                "--url",
                &url,
                "--token-file",
                token_arg,
                "--json",
                "--allow-writes",
                "--junit",
                junit_arg,
            ],
        );
        assert_output_clean(&format!("check --json {mode:?}"), &json, &token);
        let report: serde_json::Value =
            serde_json::from_slice(&json.stdout).expect("check --json printed JSON");
        assert!(report["findings"].is_array(), "{report}");
        let xml = std::fs::read(&junit).expect("the JUnit file");
        assert_clean_bytes(&format!("check --junit {mode:?}"), &xml, &token);
        assert!(
            !agent.authorizations.lock().expect("lock").is_empty(),
            "the token was sent, so the agent could echo it"
        );
        if mode == Mode::NotJson {
            // The body is quoted, cleaned: the words stay, the escape does not.
            assert!(both(&table).contains("not json at all"), "{}", both(&table));
            assert!(both(&table).contains("]0;PWNED"), "{}", both(&table));
        }
    }
}

#[test]
fn doctor_text_and_json_are_clean_for_every_kind_of_hostile_agent() {
    for mode in [Mode::Fields, Mode::NotJson, Mode::Errors] {
        let dir = temp_dir();
        let (token_path, token) = token_file(dir.path());
        let token_arg = token_path.to_str().expect("utf-8");
        let (_agent, url) = Hostile::start(mode);
        for json in [false, true] {
            let mut args = vec!["doctor", "--url", &url, "--token-file", token_arg];
            if json {
                args.push("--json");
            }
            let output = run(dir.path(), &args);
            assert_output_clean(&format!("doctor {mode:?} json={json}"), &output, &token);
            assert!(!output.stdout.is_empty(), "doctor said something");
        }
    }
}

#[test]
fn asks_answer_and_the_journal_are_clean_and_hold_no_token() {
    let dir = temp_dir();
    let (token_path, token) = token_file(dir.path());
    let token_arg = token_path.to_str().expect("utf-8");
    let (agent, url) = Hostile::start(Mode::Fields);
    let dial = ["--url", url.as_str(), "--token-file", token_arg];
    for json in [false, true] {
        let mut args = vec!["asks"];
        args.extend(dial);
        if json {
            args.push("--json");
        }
        let output = run(dir.path(), &args);
        assert_output_clean(&format!("asks json={json}"), &output, &token);
        let text = both(&output);
        assert!(text.contains("asktitle"), "asks shows the ask: {text}");
        assert!(!text.contains('\u{1b}'));
    }
    for json in [false, true] {
        let mut args = vec!["answer", "a1", "allow"];
        args.extend(dial);
        if json {
            args.push("--json");
        }
        let output = run(dir.path(), &args);
        assert_output_clean(&format!("answer json={json}"), &output, &token);
        if json {
            let value: serde_json::Value =
                serde_json::from_slice(&output.stdout).expect("answer --json is JSON");
            assert!(value.is_object(), "{value}");
        }
    }
    assert!(
        agent
            .authorizations
            .lock()
            .expect("lock")
            .iter()
            .any(|a| a.contains(&token)),
        "the agent saw the token, and echoed it in its outcome"
    );
    let journal = dir.path().join("state/collie-phone/intents.jsonl");
    let bytes = std::fs::read(&journal).expect("the journal");
    assert_clean_bytes("the journal", &bytes, &token);
    assert!(
        String::from_utf8_lossy(&bytes).contains("summary"),
        "the outcome's summary is in the journal"
    );
}

/// Runs `watch` for a while and stops it, as a person would with Ctrl-C.
fn watch_for(home: &Path, args: &[&str], how_long: Duration) -> Output {
    let child = command(home, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("watch starts");
    let pid = child.id();
    let started = Instant::now();
    while started.elapsed() < how_long {
        std::thread::sleep(Duration::from_millis(100));
    }
    // SIGINT, the way a person stops it.
    let _ = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status();
    child.wait_with_output().expect("watch ends")
}

#[test]
fn watch_human_and_json_are_clean_unknown_caps_included() {
    let dir = temp_dir();
    let (token_path, token) = token_file(dir.path());
    let token_arg = token_path.to_str().expect("utf-8");
    let (_agent, url) = Hostile::start(Mode::Fields);
    for json in [false, true] {
        let mut args = vec!["watch", "--url", &url, "--token-file", token_arg];
        if json {
            args.push("--json");
        }
        let output = watch_for(dir.path(), &args, Duration::from_secs(4));
        assert_output_clean(&format!("watch json={json}"), &output, &token);
        assert!(!output.stdout.is_empty(), "watch printed something");
        if json {
            for line in String::from_utf8_lossy(&output.stdout).lines() {
                let value: serde_json::Value =
                    serde_json::from_str(line).expect("each line is JSON");
                // `jq -r` would turn an escape back into the control: there is none to undo.
                assert!(
                    !line.contains("\\u001b") && !line.contains("\\u0007"),
                    "{line}"
                );
                assert!(value.is_object());
            }
        }
    }
}

#[test]
fn a_recording_holds_no_token_and_its_replay_writes_clean_output_and_logs() {
    let dir = temp_dir();
    let (token_path, token) = token_file(dir.path());
    let token_arg = token_path.to_str().expect("utf-8");
    let (_agent, url) = Hostile::start(Mode::Fields);
    let recording = dir.path().join("hostile.recording.jsonl");
    let recording_arg = recording.to_str().expect("utf-8");
    let output = run(
        dir.path(),
        &[
            "answer",
            "a1",
            "allow",
            "--url",
            &url,
            "--token-file",
            token_arg,
            "--record",
            recording_arg,
        ],
    );
    assert_output_clean("answer --record", &output, &token);
    let recorded = std::fs::read_to_string(&recording).expect("the recording");
    assert!(
        recorded.contains("asktitle"),
        "the bodies are recorded whole"
    );
    assert!(!recorded.contains(&token), "the recording holds the token");
    // A recording may come from anywhere: give its agent a hostile name, which the replay
    // logs as it starts.
    let hostile_name = common::hostile::hostile("agentname");
    let renamed: Vec<String> = recorded
        .lines()
        .map(|line| {
            let mut value: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            if let Some(agents) = value["agents"].as_array_mut() {
                for agent in agents {
                    agent["name"] = hostile_name.clone().into();
                }
            }
            if value["type"] == "exchange" {
                value["agent"] = hostile_name.clone().into();
            }
            value.to_string()
        })
        .collect();
    std::fs::write(&recording, renamed.join("\n") + "\n").expect("rewrite the recording");

    let socket_dir = tempfile::Builder::new()
        .prefix("cp-hostile")
        .tempdir_in("/tmp")
        .expect("dir");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(socket_dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod");
    }
    let socket = socket_dir.path().join("replay.sock");
    let socket_arg = socket.to_str().expect("utf-8");
    let log = dir.path().join("replay.log");
    let log_arg = log.to_str().expect("utf-8");
    let mut replay = command(
        dir.path(),
        &[
            "replay",
            recording_arg,
            "--socket",
            socket_arg,
            "--log",
            log_arg,
        ],
    )
    .env("RUST_LOG", "debug")
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("replay starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !socket.exists() {
        assert!(Instant::now() < deadline, "the replay did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    for json in [false, true] {
        let mut args = vec!["asks", "--socket", socket_arg];
        if json {
            args.push("--json");
        }
        let output = run(dir.path(), &args);
        assert_output_clean(&format!("asks on the replay json={json}"), &output, &token);
    }
    let _ = Command::new("kill")
        .args(["-TERM", &replay.id().to_string()])
        .status();
    let _ = replay.wait();
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    use std::io::Read;
    if let Some(mut out) = replay.stdout.take() {
        let _ = out.read_to_end(&mut stdout);
    }
    if let Some(mut err) = replay.stderr.take() {
        let _ = err.read_to_end(&mut stderr);
    }
    assert_clean_bytes("replay: stdout", &stdout, &token);
    assert_clean_bytes("replay: stderr", &stderr, &token);
    let log_bytes = std::fs::read(&log).expect("the replay's log");
    assert!(
        String::from_utf8_lossy(&log_bytes).contains("agentname"),
        "the replay logged the agent's name"
    );
    assert_clean_bytes("replay: log file", &log_bytes, &token);
}

#[test]
fn every_error_a_command_prints_is_clean() {
    // An agent that answers every route with a hostile error: the commands fail, and say why.
    let dir = temp_dir();
    let (token_path, token) = token_file(dir.path());
    let token_arg = token_path.to_str().expect("utf-8");
    for mode in [Mode::Errors, Mode::NotJson] {
        let (_agent, url) = Hostile::start(mode);
        for args in [
            vec!["asks", "--wait", "2"],
            vec!["asks", "--wait", "2", "--json"],
            vec!["answer", "a1", "allow", "--wait", "2"],
            vec!["answer", "a1", "allow", "--wait", "2", "--json"],
            vec!["send", "p1", "hello", "--wait", "2"],
            vec!["start", "s1", "--wait", "2", "--json"],
        ] {
            let mut all = args.clone();
            all.extend(["--url", url.as_str(), "--token-file", token_arg]);
            let output = run(dir.path(), &all);
            assert_output_clean(&format!("{args:?} on {mode:?}"), &output, &token);
        }
    }
}

fn tmux(socket: &str, args: &[&str]) -> Output {
    Command::new("tmux")
        .args(["-L", socket])
        .args(args)
        .output()
        .expect("tmux runs")
}

fn tmux_screen(socket: &str) -> String {
    String::from_utf8_lossy(&tmux(socket, &["capture-pane", "-p", "-t", "phone"]).stdout)
        .into_owned()
}

fn tmux_until(socket: &str, what: &str, check: impl Fn(&str) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let screen = tmux_screen(socket);
        if check(&screen) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what} did not show; the screen:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The phone itself, in a real terminal: every byte it writes to the terminal is captured
/// with `tmux pipe-pane` from before it starts, through Home, a pane, the wire inspector and
/// one exchange's bodies. The program's own escapes (CSI for colour and the cursor) are fine;
/// what must not be there is anything the agent sent: its OSC, C1, bidi and other invisible
/// characters, or the token.
#[test]
fn the_phone_in_tmux_writes_no_agent_control_to_the_terminal() {
    if !Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("SKIPPED the_phone_in_tmux…: tmux is not installed");
        return;
    }
    let dir = tempfile::Builder::new()
        .prefix("cp-hostile-tmux")
        .tempdir_in("/tmp")
        .expect("dir");
    let (token_path, token) = token_file(dir.path());
    let (_agent, url) = Hostile::start(Mode::Fields);
    let capture = dir.path().join("terminal.bytes");
    let log = dir.path().join("phone.log");
    let socket = format!("collie-phone-hostile-{}", std::process::id());
    // A pause before the phone starts, so pipe-pane sees its very first byte.
    let command = format!(
        "sleep 1; env XDG_STATE_HOME={home}/state XDG_CONFIG_HOME={home}/config RUST_LOG=debug {BIN} --url {url} --token-file {token} --log {log}; sleep 30",
        home = dir.path().display(),
        token = token_path.display(),
        log = log.display(),
    );
    let started = tmux(
        &socket,
        &[
            "new-session",
            "-d",
            "-s",
            "phone",
            "-x",
            "120",
            "-y",
            "40",
            &command,
        ],
    );
    assert!(started.status.success(), "tmux: {started:?}");
    struct Kill(String);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = tmux(&self.0, &["kill-server"]);
        }
    }
    let _kill = Kill(socket.clone());
    let piped = tmux(
        &socket,
        &[
            "pipe-pane",
            "-o",
            "-t",
            "phone",
            &format!("cat >> {}", capture.display()),
        ],
    );
    assert!(piped.status.success(), "pipe-pane: {piped:?}");
    tmux_until(&socket, "the hostile pane", |s| s.contains("PWNED"));
    let keys = |keys: &[&str]| {
        for key in keys {
            let _ = tmux(&socket, &["send-keys", "-t", "phone", key]);
            std::thread::sleep(Duration::from_millis(300));
        }
    };
    // Into the first row (an ask or the pane), back, then the wire inspector and an exchange.
    keys(&["Enter"]);
    std::thread::sleep(Duration::from_millis(700));
    keys(&["Escape", "Escape", "w"]);
    tmux_until(&socket, "the wire inspector", |s| {
        s.contains("/hello") || s.contains("/snapshot")
    });
    keys(&["G", "Enter"]);
    tmux_until(&socket, "an exchange's bodies", |s| {
        s.contains("Reply body")
    });
    // The inspector shows what was sent, as placeholders.
    let screen = tmux_screen(&socket);
    assert!(
        screen.contains("⟨U+"),
        "placeholders in the inspector:\n{screen}"
    );
    std::thread::sleep(Duration::from_millis(500));
    keys(&["q"]);
    std::thread::sleep(Duration::from_millis(500));
    let bytes = std::fs::read(&capture).expect("the captured terminal bytes");
    assert!(!bytes.is_empty());
    let text = String::from_utf8_lossy(&bytes);
    // The phone's own question to the terminal at its start (theme auto: OSC 11, "what is your
    // background?", then DA1) is its own escape, not the agent's; exactly that is let through.
    let text = text.replacen("\u{1b}]11;?\u{7}", "", 1);
    assert!(text.contains("PWNED"), "the agent's words were drawn");
    for bad in ["\u{1b}]0;", "\u{1b}]", "PWNED\u{7}", "\u{1b}[2J"] {
        assert!(
            !text.contains(bad),
            "the terminal got {bad:?} from the agent"
        );
    }
    // Everything but the program's own escapes: drop each CSI sequence it wrote (ESC [ params
    // final), then no control but \n, \r and \t may be left, and no payload character at all.
    let mut plain = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    break;
                }
            }
            continue;
        }
        if c == '\u{1b}' {
            // ESC 7 / ESC 8 (save and restore the cursor) and ESC = / > are crossterm's own.
            if let Some(&next) = chars.peek()
                && "78=>()".contains(next)
            {
                chars.next();
                if next == '(' || next == ')' {
                    chars.next();
                }
                continue;
            }
        }
        plain.push(c);
    }
    let plain = plain.replace(['\r', '\u{7}'], "");
    assert_clean_bytes("the phone's terminal output", plain.as_bytes(), &token);
    let log_bytes = std::fs::read(&log).expect("the phone's log");
    assert_clean_bytes("the phone's log file", &log_bytes, &token);
}
