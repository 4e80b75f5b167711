//! A message on the footer is a claim about something (a pane's turn, the words in a box, the
//! moment before a question, this run's own sends), and it goes when that thing changes
//! (`crates/tui/src/app/toast.rs`; docs/ARCHITECTURE.md, "What a message is about"). Judged
//! over time: every frame tmux shows from the change on, not only the last one. Skipped, with
//! a note, where tmux is not installed.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::tmux::{Tmux, tmux_installed};
use common::{BIN, socket_agent, temp_dir};

use crate::tmux::demo_home;

const NO_TURN: &str = "No turn is running in this pane.";
const NOT_SENT: &str = "The editor's text is in the box, not sent.";

/// Every frame tmux shows, every 50 ms, until `done` holds for one (that frame last).
fn frames_until(tmux: &Tmux, what: &str, done: impl Fn(&str) -> bool) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut frames = Vec::new();
    loop {
        let screen = tmux.screen();
        let over = done(&screen);
        frames.push(screen);
        if over {
            return frames;
        }
        assert!(
            Instant::now() < deadline,
            "{what} did not show; the screen:\n{}",
            frames.last().expect("a frame")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every frame for `length` from now.
fn frames_for(tmux: &Tmux, length: Duration) -> Vec<String> {
    let end = Instant::now() + length;
    let mut frames = Vec::new();
    while Instant::now() < end {
        frames.push(tmux.screen());
        std::thread::sleep(Duration::from_millis(50));
    }
    frames
}

/// The header row of a pane's screen: its place, its state and its turn.
fn pane_header(screen: &str) -> &str {
    screen.lines().nth(1).unwrap_or_default()
}

/// From the inbox to the workspaces, with the demo's idle pane (告警规则, "alert rules")
/// selected: where each claim below starts.
fn select_the_idle_pane(tmux: &Tmux) {
    tmux.until("the inbox", |s| s.contains("Needs your answer (4)"));
    tmux.keys(&["Enter"]);
    tmux.until("the workspaces", |s| {
        s.contains("workspaces, tabs and panes")
    });
    tmux.select("告警规则");
}

/// "No turn is running in this pane." after a stop key on an idle pane is true until a turn
/// starts: the message sent next starts one, and from the frame whose header shows that turn
/// on, the footer no longer says there is none.
#[test]
fn the_no_turn_message_goes_once_a_sent_message_starts_a_turn() {
    if !tmux_installed() {
        eprintln!(
            "SKIPPED the_no_turn_message_goes_once_a_sent_message_starts_a_turn: tmux is not installed"
        );
        return;
    }
    let (_home, _runtime, command) = demo_home("demo --speed 1");
    let tmux = Tmux::start("claim-turn", (100, 30), &command);
    select_the_idle_pane(&tmux);
    tmux.keys(&["Enter"]);
    tmux.until("the idle pane", |s| {
        pane_header(s).contains("告警规则") && pane_header(s).contains("turn 2 done")
    });
    tmux.keys(&["x"]);
    tmux.until("the stop refused", |s| s.contains(NO_TURN));
    tmux.keys(&["Enter"]);
    tmux.text("check the alert rules");
    tmux.until("the words in the box", |s| {
        s.contains("check the alert rules")
    });
    tmux.keys(&["Enter"]);
    let frames = frames_until(&tmux, "the new turn", |s| pane_header(s).contains("turn 3"));
    let first_turn = frames.len() - 1;
    let later = frames_for(&tmux, Duration::from_millis(1500));
    for frame in frames[first_turn..].iter().chain(&later) {
        assert!(
            !frame.contains(NO_TURN),
            "a turn runs, and the footer still says none does:\n{frame}"
        );
    }
    tmux.keys(&["Escape", "Escape", "q"]);
}

/// "The editor's text is in the box, not sent." is about those words in that box: once Enter
/// sent them, no frame says they are not sent.
#[test]
fn the_editor_message_goes_once_its_words_are_sent() {
    use std::os::unix::fs::PermissionsExt;
    if !tmux_installed() {
        eprintln!("SKIPPED the_editor_message_goes_once_its_words_are_sent: tmux is not installed");
        return;
    }
    let (home, _runtime, command) = demo_home("demo --speed 1");
    // An editor that writes its words into the file and returns at once.
    let editor = home.path().join("editor");
    std::fs::write(&editor, "#!/bin/sh\nprintf 'from the editor' > \"$1\"\n").expect("the editor");
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).expect("executable");
    let command = command.replacen(
        "env ",
        &format!("env VISUAL= EDITOR='{}' ", editor.display()),
        1,
    );
    let tmux = Tmux::start("claim-editor", (100, 30), &command);
    select_the_idle_pane(&tmux);
    tmux.keys(&["Enter"]);
    tmux.until("the pane", |s| pane_header(s).contains("告警规则"));
    tmux.keys(&["Enter", "C-g"]);
    tmux.until("the edited words in the box", |s| {
        s.contains(NOT_SENT) && s.contains("from the editor")
    });
    tmux.keys(&["Enter"]);
    let frames = frames_until(&tmux, "the words in the chat", |s| {
        s.contains("you › from the editor")
    });
    let sent = frames.len() - 1;
    let later = frames_for(&tmux, Duration::from_millis(1000));
    for frame in frames[sent..].iter().chain(&later) {
        assert!(
            !frame.contains(NOT_SENT),
            "the words were sent, and the footer says they were not:\n{frame}"
        );
    }
    tmux.keys(&["Escape", "Escape", "q"]);
}

/// A refusal on the workspaces speaks of the moment before: once the close question floats
/// up, no frame shows the two together.
#[test]
fn a_refusal_goes_when_a_question_floats_up() {
    if !tmux_installed() {
        eprintln!("SKIPPED a_refusal_goes_when_a_question_floats_up: tmux is not installed");
        return;
    }
    let (_home, _runtime, command) = demo_home("demo --speed 0");
    let tmux = Tmux::start("claim-question", (100, 30), &command);
    select_the_idle_pane(&tmux);
    tmux.keys(&["r"]);
    let refusal = "Panes are named by their agent";
    tmux.until("the rename refused", |s| s.contains(refusal));
    tmux.keys(&["c"]);
    let frames = frames_until(&tmux, "the close question", |s| {
        s.contains("Close the pane")
    });
    let later = frames_for(&tmux, Duration::from_millis(800));
    for frame in frames.last().into_iter().chain(&later) {
        assert!(
            !frame.contains(refusal),
            "the refusal stays under the question:\n{frame}"
        );
    }
    // The question is answered no, and nothing of the refusal comes back.
    tmux.keys(&["n"]);
    tmux.until("the question gone", |s| !s.contains("Close the pane"));
    assert!(!tmux.screen().contains(refusal), "{}", tmux.screen());
    tmux.keys(&["Escape", "q"]);
}

/// The journal keeps what an earlier run did (SPEC Q2). A phone started after an answer sent
/// by `collie-phone answer` shows the ask gone, as the agent tells it, and never the old
/// receipt as news: no frame of its first seconds says "Answered.".
#[test]
fn a_phone_just_started_says_nothing_of_an_earlier_runs_answer() {
    if !tmux_installed() {
        eprintln!(
            "SKIPPED a_phone_just_started_says_nothing_of_an_earlier_runs_answer: tmux is not installed"
        );
        return;
    }
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path().to_str().expect("utf-8").to_string();
    let state = dir.path().join("state");
    let config = dir.path().join("config");
    let headless = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .args(["--socket", &socket])
            .env("XDG_STATE_HOME", &state)
            .env("XDG_CONFIG_HOME", &config)
            .env_remove("COLLIE_DURABLE_SOCKET")
            .env_remove("COLLIE_DURABLE_TOKEN")
            .output()
            .expect("the binary runs")
    };
    let asks = headless(&["asks", "--json"]);
    let asks: serde_json::Value = serde_json::from_slice(&asks.stdout).expect("the asks");
    let permission = asks
        .as_array()
        .expect("a list")
        .iter()
        .find(|a| a["kind"] == "permission")
        .and_then(|a| a["id"].as_str())
        .expect("a permission ask")
        .to_string();
    let answered = headless(&["answer", &permission, "deny"]);
    assert!(answered.status.success(), "{answered:?}");
    assert!(
        journal_holds(&state, &permission),
        "the answer is in the journal"
    );

    let command = format!(
        "env XDG_STATE_HOME={} XDG_CONFIG_HOME={} {BIN} --socket {socket}",
        state.display(),
        config.display()
    );
    let tmux = Tmux::start("claim-earlier", (100, 30), &command);
    let frames = frames_until(&tmux, "the phone on the agent", |s| {
        s.contains("Needs your answer (3)")
    });
    let later = frames_for(&tmux, Duration::from_secs(3));
    for frame in frames.iter().chain(&later) {
        assert!(
            !frame.contains("Answered"),
            "a receipt of an earlier run shown as news:\n{frame}"
        );
    }
    tmux.keys(&["q"]);
}

fn journal_holds(state: &Path, ask: &str) -> bool {
    let journal = state.join("collie-phone").join("intents.jsonl");
    std::fs::read_to_string(journal).is_ok_and(|text| text.contains(ask))
}
