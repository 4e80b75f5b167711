//! The phone from a script (docs/SCRIPTING.md): the real binary's headless commands against the
//! real reference agent (`agent --speed 0`, so its demo clock stands still) and against the
//! faulty agent of tests/common for the outcomes a healthy agent never gives (SPEC Q4, Q5).
//!
//! Not covered here: `stale` (A3) and `too-late` (A8). The demo changes its ask in place only
//! after 20 s of its clock, which `--speed 0` stops, and the faulty agent neither changes
//! asks nor forgets them; `answer` never sends to an ask it does not see or has not answered
//! before. Their exit codes come from the same table (`exit::TABLE`, unit-tested) as the rest.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use common::faulty::{Faulty, PostFault};
use common::{BIN, socket_agent, temp_dir};

/// The exit codes of docs/SCRIPTING.md.
const DONE: i32 = 0;
const BAD_ARGUMENTS: i32 = 2;
const DECIDED: i32 = 4;
const UNKNOWN: i32 = 6;
const MAYBE_APPLIED: i32 = 7;
const UNREACHABLE: i32 = 8;
const NOT_FOUND: i32 = 9;

/// How long a stopped `watch` may take to end.
const STOP_DEADLINE: Duration = Duration::from_secs(10);

/// One test's own state and config folders, so receipts never mix and no real config is read.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        Self { dir: temp_dir() }
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn journal(&self) -> PathBuf {
        self.state().join("collie-phone").join("intents.jsonl")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(BIN);
        command
            .args(args)
            .env("XDG_STATE_HOME", self.state())
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env_remove("COLLIE_DURABLE_SOCKET")
            .env_remove("COLLIE_DURABLE_TOKEN")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null());
        command
    }

    /// Runs `collie-phone ARGS --socket SOCKET` to its end.
    fn run(&self, socket: &Path, args: &[&str]) -> Output {
        let socket = socket.to_str().expect("utf-8 path");
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--socket", socket]);
        self.command(&all).output().expect("the binary runs")
    }

    /// Runs with `--json` and returns the exit code and the one JSON value printed.
    fn json(&self, socket: &Path, args: &[&str]) -> (i32, Value) {
        let mut all: Vec<&str> = args.to_vec();
        all.push("--json");
        let output = self.run(socket, &all);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
            panic!(
                "not one JSON value ({e}): {stdout}\nstderr: {}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
        (output.status.code().expect("an exit code"), value)
    }
}

fn open_asks(home: &Home, socket: &Path) -> Vec<Value> {
    let (code, asks) = home.json(socket, &["asks"]);
    assert_eq!(code, DONE, "{asks}");
    asks.as_array().expect("an array").clone()
}

fn ask_of_kind(asks: &[Value], kind: &str) -> (String, String) {
    let ask = asks
        .iter()
        .find(|a| a["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} ask in {asks:?}"));
    (
        ask["id"].as_str().expect("id").to_string(),
        ask["pane"].as_str().expect("pane").to_string(),
    )
}

#[test]
fn a2_asks_lists_the_demo_open_asks_with_their_options() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path();
    let home = Home::new();
    let asks = open_asks(&home, &socket);
    let mut kinds: Vec<&str> = asks.iter().filter_map(|a| a["kind"].as_str()).collect();
    kinds.sort_unstable();
    assert_eq!(kinds, ["choice", "form", "permission", "text"]);
    for ask in &asks {
        assert!(ask["pane"].as_str().is_some_and(|p| !p.is_empty()));
        assert!(ask["title"].as_str().is_some_and(|t| !t.is_empty()));
        assert_eq!(ask["answerable"], true);
    }
    let (permission, _) = ask_of_kind(&asks, "permission");
    let permission = asks
        .iter()
        .find(|a| a["id"] == permission.as_str())
        .expect("found");
    let options: Vec<&str> = permission["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|o| o["id"].as_str())
        .collect();
    // SPEC A11: allow-always is offered over the private socket when the agent allows it.
    assert_eq!(options, ["allow-once", "deny", "allow-always"]);

    let text = home.run(&socket, &["asks"]);
    assert!(text.status.success());
    let text = String::from_utf8_lossy(&text.stdout);
    for ask in &asks {
        assert!(text.contains(ask["id"].as_str().expect("id")), "{text}");
    }
    // Reading sends nothing, so it writes no receipt.
    assert!(!home.journal().exists());
}

#[test]
fn a4_answer_every_kind_closes_the_ask_and_a7_a_second_answer_is_decided() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path();
    let home = Home::new();
    let asks = open_asks(&home, &socket);
    let (permission, _) = ask_of_kind(&asks, "permission");
    let (choice, _) = ask_of_kind(&asks, "choice");
    let (text, _) = ask_of_kind(&asks, "text");
    let (form, _) = ask_of_kind(&asks, "form");

    // Wrong words are refused before anything is sent, naming what would fit.
    let wrong = home.run(&socket, &["answer", &permission, "maybe"]);
    assert_eq!(wrong.status.code(), Some(BAD_ARGUMENTS));
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        said.contains("allow-once") && said.contains("deny"),
        "{said}"
    );
    let wrong = home.run(&socket, &["answer", &form, "--field", "colour=red"]);
    assert_eq!(wrong.status.code(), Some(BAD_ARGUMENTS));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("environment"));
    let wrong = home.run(&socket, &["answer", &form, "--field", "environment=moon"]);
    assert_eq!(wrong.status.code(), Some(BAD_ARGUMENTS));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("staging"));
    let wrong = home.run(&socket, &["answer", &text, "deny"]);
    assert_eq!(wrong.status.code(), Some(BAD_ARGUMENTS));
    let receipts = std::fs::read_to_string(home.journal()).unwrap_or_default();
    assert!(
        receipts.is_empty(),
        "nothing was sent, so no receipt: {receipts}"
    );

    let answers: [(&str, Vec<&str>); 4] = [
        (permission.as_str(), vec!["allow-once"]),
        // The card's number keys: option 2.
        (choice.as_str(), vec!["2"]),
        (text.as_str(), vec!["--text", "Quiet Lake"]),
        (
            form.as_str(),
            vec!["--field", "environment=canary", "--field", "replicas=3"],
        ),
    ];
    let mut request_ids = Vec::new();
    for (ask, words) in &answers {
        let mut args = vec!["answer", *ask];
        args.extend(words.iter().copied());
        let (code, reply) = home.json(&socket, &args);
        assert_eq!(code, DONE, "{reply}");
        assert_eq!(reply["state"], "done");
        assert_eq!(reply["replayed"], false);
        assert_eq!(reply["askId"], *ask);
        request_ids.push(reply["requestId"].as_str().expect("request id").to_string());
    }
    assert!(open_asks(&home, &socket).is_empty(), "every ask is closed");
    // SPEC Q2: each request id has its receipt in the phone's journal.
    let journal = std::fs::read_to_string(home.journal()).expect("the journal");
    for id in &request_ids {
        assert!(journal.contains(id.as_str()), "{id} in the journal");
    }

    // SPEC A7: a second answer to a closed ask is told who decided first, and nothing runs.
    let (code, reply) = home.json(&socket, &["answer", &permission, "deny"]);
    assert_eq!(code, DECIDED, "{reply}");
    assert_eq!(reply["state"], "decided");
    assert_eq!(reply["decidedBy"], "phone");
    assert_eq!(reply["outcome"]["optionId"], "allow-once");
    assert_ne!(reply["requestId"], request_ids[0].as_str(), "a new intent");

    // An ask this phone never saw nor answered is not found.
    let (code, reply) = home.json(&socket, &["answer", "ask-nobody-knows", "deny"]);
    assert_eq!(code, NOT_FOUND, "{reply}");
}

/// SPEC A15: `answer` runs the agent's own check (`wire::accepts`) before it dials, so an
/// answer the agent would refuse gets the agent's words and never leaves.
#[test]
fn a15_an_answer_the_agent_would_refuse_never_leaves() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path();
    let home = Home::new();
    let asks = open_asks(&home, &socket);
    let (text, _) = ask_of_kind(&asks, "text");
    let long = "字".repeat(12 * 1024);
    let refused = home.run(&socket, &["answer", &text, "--text", &long]);
    assert_eq!(refused.status.code(), Some(BAD_ARGUMENTS));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains(&format!(
            "{text} does not take this answer: text over 32 KiB"
        )),
        "{said}"
    );
    let receipts = std::fs::read_to_string(home.journal()).unwrap_or_default();
    assert!(receipts.is_empty(), "nothing was sent: {receipts}");
    assert!(
        open_asks(&home, &socket)
            .iter()
            .any(|a| a["id"] == text.as_str()),
        "the ask is still open"
    );
}

/// `answer ASK deny --say WORDS` (docs/SCRIPTING.md, "Deny, and say why"): the Deny, then the
/// words to the same pane, each once and in that order, on the journal and in what the agent
/// applied; refused before anything leaves when the option does not deny or the ask is a choice.
#[test]
fn deny_with_words_sends_the_deny_then_the_words_to_the_same_pane_once_each() {
    let dir = temp_dir();
    let agent = common::logging_socket_agent(dir.path(), &["--chaos", "delay=1:1ms"]);
    let socket = agent.socket_path();
    let home = Home::new();
    let asks = open_asks(&home, &socket);
    let (permission, pane) = ask_of_kind(&asks, "permission");
    let (choice, _) = ask_of_kind(&asks, "choice");
    for (ask, option) in [(&permission, "allow-once"), (&choice, "1")] {
        let refused = home.run(&socket, &["answer", ask, option, "--say", "x"]);
        assert_eq!(refused.status.code(), Some(BAD_ARGUMENTS));
        let said = String::from_utf8_lossy(&refused.stderr);
        assert!(said.contains("--say follows a Deny"), "{said}");
    }
    let receipts = std::fs::read_to_string(home.journal()).unwrap_or_default();
    assert!(receipts.is_empty(), "nothing was sent: {receipts}");

    let words = "Use cargo clean instead; 别删 build/ 🙏";
    let denied = home.run(&socket, &["answer", &permission, "deny", "--say", words]);
    let said = String::from_utf8_lossy(&denied.stdout);
    assert_eq!(denied.status.code(), Some(DONE), "{said}");
    assert_eq!(
        said.lines().next(),
        Some("Denied, and your words were sent."),
        "{said}"
    );
    // The journal: the Deny, then the words to the same pane, each once.
    let journal = std::fs::read_to_string(home.journal()).expect("a journal");
    let created: Vec<Value> = journal
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .filter(|e| e["op"] == "created")
        .map(|e| e["record"].clone())
        .collect();
    assert_eq!(created.len(), 2, "{journal}");
    assert_eq!(created[0]["kind"]["kind"], "answer");
    assert_eq!(created[0]["kind"]["answer"]["optionId"], "deny");
    assert_eq!(created[1]["kind"]["kind"], "send");
    assert_eq!(created[1]["kind"]["pane"], pane.as_str());
    assert_eq!(created[1]["kind"]["text"], words);
    // What the agent applied, in its own log: the answer, then the send, once each.
    let ids: Vec<String> = created
        .iter()
        .map(|r| r["requestId"].as_str().expect("an id").to_string())
        .collect();
    let deadline = Instant::now() + Duration::from_secs(10);
    let applied = loop {
        let log = agent.stderr();
        let applied: Vec<String> = log
            .lines()
            .filter(|l| l.contains(" applied "))
            .filter_map(|l| l.split("request_id=").nth(1))
            .map(|rest| rest.split_whitespace().next().unwrap_or("").to_string())
            .collect();
        if applied.len() >= 2 || Instant::now() > deadline {
            break applied;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(applied, ids, "the agent applied the Deny, then the words");
    // The ask is closed now: words for it are refused whole, nothing leaves.
    let again = home.run(&socket, &["answer", &permission, "deny", "--say", words]);
    assert_eq!(again.status.code(), Some(NOT_FOUND));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("your words neither"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    // The journal is compacted when a command opens it: its records are the same two.
    let after = std::fs::read_to_string(home.journal()).expect("a journal");
    let ids_after: Vec<String> = after
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .filter(|e| e["op"] == "created")
        .filter_map(|e| e["record"]["requestId"].as_str().map(str::to_string))
        .collect();
    assert_eq!(ids_after, ids, "nothing more on the journal");
}

#[test]
fn a16_send_names_the_turn_and_abort_stops_it() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path();
    let home = Home::new();
    // A wrong pane lists the panes there are; one whose last turn is done starts a new turn.
    let (code, failure) = home.json(&socket, &["send", "p-none", "hello"]);
    assert_eq!(code, NOT_FOUND, "{failure}");
    let idle = failure["panes"]
        .as_array()
        .expect("the panes")
        .iter()
        .find(|p| p["state"] == "idle" && p["turn"]["state"] == "done")
        .and_then(|p| p["id"].as_str())
        .map(str::to_string);
    let (code, refused) = home.json(&socket, &["abort", idle.as_deref().unwrap_or("p-none")]);
    // Nothing runs there, so the abort is refused before it is sent.
    assert_eq!(code, NOT_FOUND, "{refused}");
    let idle = idle.expect("the demo has an idle pane");
    let (code, sent) = home.json(&socket, &["send", &idle, "Add a test for the empty inbox."]);
    assert_eq!(code, DONE, "{sent}");
    assert_eq!(sent["reply"]["steered"], false);
    let turn = sent["reply"]["turnId"]
        .as_str()
        .expect("the new turn")
        .to_string();

    // Steering the running turn names it (SPEC A16).
    let (code, steered) = home.json(&socket, &["send", &idle, "And keep it short."]);
    assert_eq!(code, DONE, "{steered}");
    assert_eq!(steered["reply"]["steered"], true);
    assert_eq!(steered["turnId"], turn.as_str());

    let (code, stopped) = home.json(&socket, &["abort", &idle]);
    assert_eq!(code, DONE, "{stopped}");
    assert_eq!(stopped["turnId"], turn.as_str());
    let (code, again) = home.json(&socket, &["abort", &idle]);
    assert_eq!(code, NOT_FOUND, "no running turn now: {again}");

    let empty = home.run(&socket, &["send", &idle, "   "]);
    assert_eq!(empty.status.code(), Some(BAD_ARGUMENTS));
}

#[test]
fn a17_start_runs_a_starter_and_names_the_new_pane() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path();
    let home = Home::new();
    let (code, failure) = home.json(&socket, &["start", "no-such-starter"]);
    assert_eq!(code, NOT_FOUND, "{failure}");
    let starter = failure["starters"][0]
        .as_str()
        .expect("the demo has starters")
        .to_string();
    let (code, started) = home.json(&socket, &["start", &starter]);
    assert_eq!(code, DONE, "{started}");
    let pane = started["reply"]["paneId"].as_str().expect("the new pane");
    let (code, sent) = home.json(&socket, &["send", pane, "hello"]);
    assert_eq!(code, DONE, "the new pane is there: {sent}");
}

#[test]
fn h6_an_agent_out_of_reach_exits_unreachable_and_sends_nothing() {
    let dir = temp_dir();
    let folder = dir.path().join("run");
    std::fs::create_dir(&folder).expect("folder");
    std::fs::set_permissions(&folder, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .expect("chmod");
    let home = Home::new();
    let socket = folder.join("nobody.sock");
    let (code, failure) = home.json(&socket, &["answer", "ask-1", "deny", "--wait", "0"]);
    assert_eq!(code, UNREACHABLE, "{failure}");
    assert!(
        failure["message"]
            .as_str()
            .is_some_and(|m| m.contains("nothing was sent"))
    );
    let output = home.run(&socket, &["asks", "--wait", "0"]);
    assert_eq!(output.status.code(), Some(UNREACHABLE));
    assert!(String::from_utf8_lossy(&output.stderr).contains("nobody"));
}

/// Reads a child's stdout lines on a thread.
fn lines_of(child: &mut std::process::Child) -> mpsc::Receiver<String> {
    let stdout = child.stdout.take().expect("piped stdout");
    let (send, lines) = mpsc::channel();
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

fn wait_for_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    let until = Instant::now() + STOP_DEADLINE;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if Instant::now() >= until {
            let _ = child.kill();
            panic!("watch did not stop within {STOP_DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn watch_json_prints_ndjson_with_ask_changes_and_stops_on_sigterm() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path();
    let home = Home::new();
    let socket_text = socket.to_str().expect("utf-8").to_string();
    let mut child = home
        .command(&["watch", "--json", "--socket", &socket_text])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("watch starts");
    let lines = lines_of(&mut child);
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut opened = Vec::new();
    let mut types = Vec::new();
    let mut closed = None;
    let mut answered = false;
    while closed.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = lines
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("watch went quiet; saw {types:?}"));
        let value: Value = serde_json::from_str(&line).expect("each line is one JSON object");
        let kind = value["type"].as_str().expect("a type").to_string();
        if kind == "ask-opened" {
            opened.push(value["ask"]["id"].as_str().expect("id").to_string());
        }
        if kind == "ask-closed" {
            closed = Some(value.clone());
        }
        types.push(kind);
        // Once the four asks are open, answer one from another process and see it close.
        if opened.len() == 4 && !answered {
            answered = true;
            let asks = open_asks(&home, &socket);
            let (permission, _) = ask_of_kind(&asks, "permission");
            let (code, _) = home.json(&socket, &["answer", &permission, "deny"]);
            assert_eq!(code, DONE);
        }
    }
    let closed = closed.expect("an ask closed");
    assert_eq!(closed["how"], "answered");
    assert!(types.contains(&"status".to_string()));
    assert!(types.contains(&"hello".to_string()));
    assert!(types.contains(&"snapshot".to_string()));
    assert!(
        types.contains(&"event".to_string()),
        "the ask-closed event: {types:?}"
    );

    let pid = libc::pid_t::try_from(child.id()).expect("a pid fits");
    // SAFETY: kill only sends a signal to our own child, whose pid we hold.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = wait_for_exit(&mut child);
    assert_eq!(status.code(), Some(0), "a clean stop on SIGTERM");
}

#[test]
fn watch_stops_cleanly_when_its_reader_goes_away() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path().to_str().expect("utf-8").to_string();
    let home = Home::new();
    let mut child = home
        .command(&["watch", "--socket", &socket])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("watch starts");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("a first line");
    assert!(!first.is_empty());
    drop(stdout);
    let status = wait_for_exit(&mut child);
    assert_eq!(status.code(), Some(0), "a closed stdout is a clean stop");
}

/// Serves the faulty agent on its own runtime for the length of a test.
struct FaultyAgent {
    faulty: Faulty,
    socket: PathBuf,
    _dir: tempfile::TempDir,
    _runtime: tokio::runtime::Runtime,
}

impl FaultyAgent {
    fn start(fault: PostFault) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        let faulty = Faulty::new();
        faulty.set(|b| b.post_fault = fault);
        let (socket, dir) = runtime.block_on(faulty.serve_socket());
        Self {
            faulty,
            socket,
            _dir: dir,
            _runtime: runtime,
        }
    }

    fn posted_ids(&self) -> Vec<String> {
        self.faulty
            .seen()
            .posts
            .iter()
            .filter_map(|p| p["requestId"].as_str().map(str::to_string))
            .collect()
    }
}

#[test]
fn q4_unknown_outcome_names_its_request_id_and_retry_resends_it_once() {
    let agent = FaultyAgent::start(PostFault::DropAfterApply);
    let home = Home::new();
    let (code, first) = home.json(&agent.socket, &["answer", "ask-1", "allow-once"]);
    assert_eq!(code, UNKNOWN, "{first}");
    assert_eq!(first["state"], "unknown");
    let id = first["requestId"].as_str().expect("request id").to_string();
    let retry = first["retry"].as_str().expect("how to retry");
    assert!(retry.contains(&format!("--retry {id}")), "{retry}");
    // SPEC Q2: the receipt was written before the request left.
    assert!(
        std::fs::read_to_string(home.journal())
            .expect("journal")
            .contains(&id)
    );

    agent.faulty.set(|b| b.post_fault = PostFault::None);
    let (code, again) = home.json(&agent.socket, &["answer", "--retry", &id]);
    // SPEC Q3: the agent had it already; the same reply, replayed, and nothing ran twice.
    assert_eq!(code, DONE, "{again}");
    assert_eq!(again["state"], "replayed");
    assert_eq!(again["replayed"], true);
    assert_eq!(again["requestId"], id.as_str());
    assert_eq!(
        agent.posted_ids(),
        [id.clone(), id.clone()],
        "same id both times"
    );
    assert_eq!(agent.faulty.seen().applied.len(), 1, "applied once");

    // A settled receipt is never sent again.
    let (code, third) = home.json(&agent.socket, &["answer", "--retry", &id]);
    assert_eq!(code, DONE, "{third}");
    assert_eq!(third["sentAgain"], false);
    assert_eq!(agent.posted_ids().len(), 2);

    // A retry from the wrong command, or of an id with no receipt, is refused.
    let (code, _) = home.json(&agent.socket, &["send", "--retry", &id]);
    assert_eq!(code, BAD_ARGUMENTS);
    let (code, _) = home.json(&agent.socket, &["answer", "--retry", "r-unheard-of"]);
    assert_eq!(code, NOT_FOUND);
    assert_eq!(agent.posted_ids().len(), 2);
}

#[test]
fn q5_a_retry_that_finds_the_ask_closed_is_maybe_applied_and_never_sent_a_third_time() {
    let agent = FaultyAgent::start(PostFault::DropAfterApply);
    let home = Home::new();
    let output = home.run(&agent.socket, &["answer", "ask-1", "allow-once"]);
    assert_eq!(output.status.code(), Some(UNKNOWN));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("collie-phone answer --retry r-"), "{text}");
    let id = agent.posted_ids()[0].clone();

    // The agent restarted: it forgot the request id, and the ask is closed (SPEC Q5).
    agent.faulty.set(|b| b.post_fault = PostFault::None);
    agent.faulty.flip_epoch("epoch-two-0123456789abcdef012345");
    let (code, again) = home.json(&agent.socket, &["answer", "--retry", &id]);
    assert_eq!(code, MAYBE_APPLIED, "{again}");
    assert_eq!(again["state"], "maybe-applied");

    let (code, third) = home.json(&agent.socket, &["answer", "--retry", &id]);
    assert_eq!(code, MAYBE_APPLIED, "{third}");
    assert_eq!(third["sentAgain"], false);
    assert_eq!(agent.posted_ids(), [id.clone(), id], "never a third time");
}

#[test]
fn q2_commands_run_at_once_keep_every_receipt_and_outcome() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path();
    let home = Home::new();
    let asks = open_asks(&home, &socket);
    let (permission, _) = ask_of_kind(&asks, "permission");
    let (choice, _) = ask_of_kind(&asks, "choice");
    let (text, _) = ask_of_kind(&asks, "text");
    let runs: Vec<Vec<String>> = vec![
        vec!["answer".into(), permission, "deny".into()],
        vec!["answer".into(), choice, "o1".into()],
        vec!["answer".into(), text, "--text".into(), "Quiet Lake".into()],
    ];
    let socket_text = socket.to_str().expect("utf-8").to_string();
    let children: Vec<_> = runs
        .iter()
        .map(|run| {
            let mut args: Vec<&str> = run.iter().map(String::as_str).collect();
            args.extend(["--json", "--socket", &socket_text]);
            home.command(&args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("answer starts")
        })
        .collect();
    let mut ids = Vec::new();
    for child in children {
        let output = child.wait_with_output().expect("answer ends");
        let reply: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        assert_eq!(output.status.code(), Some(DONE), "{reply}");
        ids.push(reply["requestId"].as_str().expect("id").to_string());
    }
    // Every outcome reached the shared journal: a retry finds each one settled as done.
    for id in &ids {
        let (code, told) = home.json(&socket, &["answer", "--retry", id]);
        assert_eq!(code, DONE, "{told}");
        assert_eq!(told["state"], "done");
        assert_eq!(told["sentAgain"], false);
    }
}

#[test]
fn a_command_waits_for_an_agent_started_a_moment_later() {
    let dir = temp_dir();
    let home = Home::new();
    let socket = dir.path().join("run").join("agent.sock");
    let socket_text = socket.to_str().expect("utf-8").to_string();
    // The socket does not exist yet: --wait gives the agent time to come up.
    let asks = home
        .command(&["asks", "--json", "--wait", "30", "--socket", &socket_text])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("asks starts");
    let _agent = socket_agent(dir.path(), &[]);
    let output = asks.wait_with_output().expect("asks ends");
    assert_eq!(
        output.status.code(),
        Some(DONE),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let listed: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(listed.as_array().map(Vec::len), Some(4));
}

/// A folder as `collie-phone demo` makes one under `runtime` (mode 0700), and its socket's path.
fn demo_folder(runtime: &Path, name: &str) -> PathBuf {
    use std::os::unix::fs::DirBuilderExt;
    let folder = runtime.join(format!("collie-phone-demo-{name}"));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&folder)
        .expect("the demo folder");
    folder.join("agent.sock")
}

/// Something listening on `socket`, private as a demo's (mode 0600), until dropped.
fn listening(socket: &Path) -> std::os::unix::net::UnixListener {
    use std::os::unix::fs::PermissionsExt;
    let listener = std::os::unix::net::UnixListener::bind(socket).expect("a socket");
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    listener
}

/// `collie-phone ARGS` with no agent named: the demos it looks through are the ones under
/// `runtime` (both `XDG_RUNTIME_DIR` and the temp folder point there).
fn with_no_agent(home: &Home, runtime: &Path, args: &[&str]) -> (i32, String, String) {
    let output = home
        .command(args)
        .env("XDG_RUNTIME_DIR", runtime)
        .env("TMPDIR", runtime)
        .output()
        .expect("the binary runs");
    (
        output.status.code().expect("an exit code"),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// docs/SCRIPTING.md: with no agent named and two demos of the caller's running, which one
/// is meant is theirs to say: refused as a bad argument, with each socket to give to --socket.
#[test]
fn with_no_agent_named_two_running_demos_are_refused_with_the_list() {
    let home = Home::new();
    let runtime = home.dir.path().join("run");
    std::fs::create_dir(&runtime).expect("the runtime folder");
    let first = demo_folder(&runtime, "0000aaaa");
    let second = demo_folder(&runtime, "0000bbbb");
    let _first = listening(&first);
    let _second = listening(&second);
    for command in ["asks", "watch"] {
        let (code, _, said) = with_no_agent(&home, &runtime, &[command]);
        assert_eq!(code, BAD_ARGUMENTS, "{command}: {said}");
        assert!(
            said.contains("2 demos of yours are running; name one with --socket")
                && said.contains(&format!("--socket {}", first.display()))
                && said.contains(&format!("--socket {}", second.display()))
                && !said.contains("reaching the demo"),
            "{command}: {said}"
        );
    }
}

/// docs/SCRIPTING.md: with no agent named and one demo of the caller's running, the command
/// reaches it and says so on stderr with its socket. A demo that was killed and left its folder
/// behind (nothing listens on its socket) is not running, so it is not a second one.
#[test]
fn with_no_agent_named_the_one_running_demo_is_reached_and_said() {
    let home = Home::new();
    let runtime = home.dir.path().join("run");
    std::fs::create_dir(&runtime).expect("the runtime folder");
    let socket = demo_folder(&runtime, "0000cccc");
    let _agent = common::AgentProcess::start(&[
        "agent",
        "--socket",
        socket.to_str().expect("utf-8"),
        "--speed",
        "0",
    ]);
    let stale = demo_folder(&runtime, "0000dddd");
    drop(listening(&stale));
    assert!(stale.exists(), "a socket left behind");
    let (code, listed, said) = with_no_agent(&home, &runtime, &["asks"]);
    assert_eq!(code, DONE, "{said}");
    let lines: Vec<&str> = said.lines().filter(|l| l.contains("demo")).collect();
    assert_eq!(
        lines,
        [format!(
            "collie-phone: no agent named: reaching the demo you are running, at {} (name it with --socket {})",
            socket.display(),
            socket.display()
        )],
        "{said}"
    );
    assert!(listed.contains("Deploy settings"), "{listed}");
}

/// SPEC S3, docs/SCRIPTING.md: a demo whose folder and socket are another user's is never
/// reached, even as the only one; with one of the caller's beside it, the caller's is the one.
/// Only root can give a folder to another user, so the test needs root.
#[test]
fn with_no_agent_named_another_users_demo_is_never_used() {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: only root can make a demo folder of another user's (uid 65534)");
        return;
    }
    const NOBODY: u32 = 65534;
    let home = Home::new();
    let runtime = home.dir.path().join("run");
    std::fs::create_dir(&runtime).expect("the runtime folder");
    let theirs = demo_folder(&runtime, "0000eeee");
    let _theirs = listening(&theirs);
    std::os::unix::fs::lchown(&theirs, Some(NOBODY), Some(NOBODY)).expect("chown the socket");
    std::os::unix::fs::chown(
        theirs.parent().expect("a folder"),
        Some(NOBODY),
        Some(NOBODY),
    )
    .expect("chown the folder");
    let (code, _, said) = with_no_agent(&home, &runtime, &["asks"]);
    assert_ne!(code, DONE, "{said}");
    assert!(
        !said.contains("reaching the demo")
            && said.contains("no agent to dial")
            && said.contains(&format!("left alone: the demo at {}", theirs.display()))
            && said.contains("(uid 65534), not yours"),
        "{said}"
    );
    let ours = demo_folder(&runtime, "0000ffff");
    let _agent = common::AgentProcess::start(&[
        "agent",
        "--socket",
        ours.to_str().expect("utf-8"),
        "--speed",
        "0",
    ]);
    let (code, listed, said) = with_no_agent(&home, &runtime, &["asks"]);
    assert_eq!(code, DONE, "{said}");
    assert!(
        said.contains(&format!(
            "reaching the demo you are running, at {}",
            ours.display()
        )) && !said.contains(&theirs.display().to_string()),
        "{said}"
    );
    assert!(listed.contains("Deploy settings"), "{listed}");
}
