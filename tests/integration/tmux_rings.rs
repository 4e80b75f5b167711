//! The rings in a real terminal (docs/CONFIG.md, "Rings"): tmux with `focus-events on`, the
//! phone in one window and the person's shell in another, a client attached (from a second
//! tmux) so selecting a window sends the phone its focus reports. What the phone wrote to the
//! terminal is read back raw (`pipe-pane`); what the person's command got is read from the
//! file it appends its stdin to. Skipped, with a note, where tmux is not installed.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use common::faulty::Faulty;
use common::tmux::{Tmux, private_home, tmux_installed};
use common::{AgentProcess, BIN, temp_dir};

use crate::rings::{pushed, until_pushed};
use crate::tmux::osc_sequences;

/// The wait before the command runs, in the config.
const AFTER_SECONDS: u64 = 4;

/// The phone's window and the shell's.
const PHONE: &str = "phone:0";
const SHELL: &str = "phone:1";

/// The phone in tmux beside a shell, a client attached, its bytes recorded.
struct Rig {
    tmux: Tmux,
    _client: Tmux,
    _home: tempfile::TempDir,
    raw: std::path::PathBuf,
    out: std::path::PathBuf,
}

impl Rig {
    /// `notify` is the config's `[notify]` table without its command; `socket` the agent's.
    fn start(name: &str, notify: &str, socket: &str) -> Self {
        use std::os::unix::fs::PermissionsExt;
        let (home, runtime) = private_home("cp-rings-");
        let path = home.path().to_path_buf();
        let out = path.join("pushed.jsonl");
        let raw = path.join("raw.bin");
        let config = path.join("config.toml");
        let text = format!(
            "[notify]\ncommand = [\"sh\", \"-c\", \"cat >> {}\"]\n{notify}",
            out.display()
        );
        std::fs::write(&config, text).expect("the config");
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600))
            .expect("a private config");
        let env = format!(
            "env XDG_RUNTIME_DIR={run} XDG_STATE_HOME={home}/state XDG_CONFIG_HOME={home}/config",
            run = runtime.display(),
            home = path.display()
        );
        let phone = format!(
            "{env} {BIN} --config {} --socket {socket}",
            config.display()
        );
        let tmux = Tmux::start_with_options(name, (120, 40), &[("focus-events", "on")], &phone);
        let recorded = format!("cat >> '{}'", raw.display());
        let out_ = tmux.run(&["pipe-pane", "-O", "-t", PHONE, &recorded]);
        assert!(out_.status.success(), "pipe-pane: {out_:?}");
        // The person's shell: the same homes, and `collie-phone` on its PATH, as the JSON's
        // answer lines expect.
        let bin_dir = Path::new(BIN).parent().expect("the binary's folder");
        let shell = format!("{env} PATH={}:\"$PATH\" sh", bin_dir.display());
        let made = tmux.run(&["new-window", "-d", "-t", "phone:1", "-n", "shell", &shell]);
        assert!(made.status.success(), "new-window: {made:?}");
        let client = Tmux::start(&format!("{name}-client"), (120, 40), &tmux.attach_command());
        let deadline = Instant::now() + Duration::from_secs(20);
        while !clients(&tmux).contains("focused") {
            assert!(
                Instant::now() < deadline,
                "no focused client: {}",
                clients(&tmux)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Self {
            tmux,
            _client: client,
            _home: home,
            raw,
            out,
        }
    }

    fn screen_of(&self, target: &str) -> String {
        let out = self.tmux.run(&["capture-pane", "-p", "-t", target]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn until_on(&self, target: &str, what: &str, check: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !check(&self.screen_of(target)) {
            assert!(
                Instant::now() < deadline,
                "{what} did not show; the screen:\n{}",
                self.screen_of(target)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Brings `window` to the front: the phone's pane gets a focus report, in or out.
    fn select(&self, window: &str) {
        let out = self.tmux.run(&["select-window", "-t", window]);
        assert!(out.status.success(), "select-window: {out:?}");
    }

    fn raw(&self) -> Vec<u8> {
        std::fs::read(&self.raw).unwrap_or_default()
    }

    /// The desktop notices (OSC 9 bodies) written from byte `from` on.
    fn notices_since(&self, from: usize) -> Vec<String> {
        let raw = self.raw();
        osc_sequences(&raw[from.min(raw.len())..])
            .into_iter()
            .filter(|(number, _)| number == "9" || number == "777")
            .map(|(number, body)| format!("{number};{}", String::from_utf8_lossy(&body)))
            .collect()
    }

    /// The bells written from byte `from` on that no OSC sequence ends with.
    fn bells_since(&self, from: usize) -> usize {
        let raw = self.raw();
        lone_bells(&raw[from.min(raw.len())..])
    }
}

fn clients(tmux: &Tmux) -> String {
    let out = tmux.run(&["list-clients", "-F", "#{client_flags}"]);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// BEL bytes outside OSC sequences (which may end with one).
fn lone_bells(raw: &[u8]) -> usize {
    let mut bells = 0;
    let mut at = 0;
    while at < raw.len() {
        if raw[at..].starts_with(b"\x1b]") {
            let end = raw[at + 2..]
                .iter()
                .position(|b| *b == 0x07 || *b == 0x1b)
                .map_or(raw.len(), |i| at + 2 + i);
            at = end + 1;
            continue;
        }
        if raw[at] == 0x07 {
            bells += 1;
        }
        at += 1;
    }
    bells
}

/// The lines of `event` for `id` the command got.
fn pushes_of(out: &Path, event: &str, id: &str) -> usize {
    pushed(out)
        .iter()
        .filter(|v| v["event"] == event && v["id"] == id)
        .count()
}

/// The phone away in the other window: a new ask from the reference agent rings the full
/// signal (an OSC 9 naming it), then runs the person's command once, `after` seconds later,
/// with the JSON of docs/CONFIG.md; `collie-phone answer`, typed in the shell from that JSON,
/// brings `closed` for the same id. Back in front with the card of another pushed ask on
/// screen: no signal written and no command run while that ask nears its deadline (its
/// ten-second ring) and ends; the push made of it while away is withdrawn.
#[test]
fn away_a_new_ask_rings_and_pushes_once_and_in_front_with_its_card_nothing_rings() {
    if !tmux_installed() {
        eprintln!(
            "SKIPPED away_a_new_ask_rings_and_pushes_once_and_in_front_with_its_card_nothing_rings: tmux is not installed"
        );
        return;
    }
    let dir = temp_dir();
    let socket = dir.path().join("run").join("agent.sock");
    let socket = socket.to_str().expect("utf-8").to_string();
    // The demo's clock runs: it opens asks of its own a few seconds in.
    let _agent = AgentProcess::start(&["agent", "--socket", &socket, "--speed", "1"]);
    let notify = format!("style = \"osc9\"\nafter = {AFTER_SECONDS}\n");
    let rig = Rig::start("rings-away", &notify, &socket);
    rig.until_on(PHONE, "the inbox", |s| s.contains("Needs your answer (4)"));

    // Away: the shell in front.
    rig.select(SHELL);
    let left_at = rig.raw().len();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut noticed: Option<Value> = None;
    let first = loop {
        let notices = rig.notices_since(left_at);
        // An ask that opened after the person left: its notice is in the bytes; until the
        // wait is over, nothing went to the command.
        let asks_rung: Vec<String> = notices
            .iter()
            .filter_map(|n| n.strip_prefix("9;Collie: agent: ").map(str::to_string))
            .collect();
        if noticed.is_none()
            && let Some(title) = asks_rung.first()
        {
            let pushed_yet = pushed(&rig.out)
                .iter()
                .any(|v| v["event"] == "new-ask" && v["ask"]["title"] == title.as_str());
            assert!(
                !pushed_yet,
                "{title:?} went to the command as soon as it rang, not {AFTER_SECONDS} s later"
            );
            noticed = Some(Value::String(title.clone()));
        }
        if let Some(title) = &noticed
            && let Some(push) = pushed(&rig.out)
                .into_iter()
                .find(|v| v["event"] == "new-ask" && v["ask"]["title"] == *title)
        {
            break push;
        }
        assert!(
            Instant::now() < deadline,
            "no new ask rang and was pushed; notices {notices:?}, pushed {:?}",
            pushed(&rig.out)
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        rig.bells_since(left_at),
        0,
        "osc9 rings with a notice, no bell"
    );

    // The JSON of docs/CONFIG.md.
    let id = first["id"].as_str().expect("an id").to_string();
    let ask_id = first["ask"]["id"]
        .as_str()
        .expect("the ask's id")
        .to_string();
    let pane = first["pane"].as_str().expect("a pane").to_string();
    assert_eq!(id, format!("ask/agent/{pane}/{ask_id}"));
    assert_eq!(first["agent"], "agent");
    assert!(first["paneTitle"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(first["ask"]["kind"].is_string());
    assert!(first["ask"].get("expiresAt").is_some(), "{first}");
    assert_eq!(
        first["text"],
        format!(
            "agent: {}",
            first["ask"]["title"].as_str().expect("a title")
        )
    );
    assert!(
        first["answer"].as_str().is_some_and(
            |a| a.starts_with(&format!("collie-phone answer --socket {socket} {ask_id} "))
        ),
        "{first}"
    );

    // Every new ask that rang after the person left went to the command too, each once.
    let all = pushed(&rig.out);
    for push in all.iter().filter(|v| v["event"] == "new-ask") {
        let id = push["id"].as_str().expect("an id");
        assert_eq!(pushes_of(&rig.out, "new-ask", id), 1, "once: {all:?}");
    }

    // The person answers from the shell, with the JSON's own line for an option: an ask with
    // options, one with no deadline first (those with one are for the card, below).
    let with_options: Vec<&Value> = all
        .iter()
        .filter(|v| v["event"] == "new-ask")
        .filter(|v| {
            v["ask"]["options"]
                .as_array()
                .is_some_and(|o| !o.is_empty())
        })
        .collect();
    let answerable = with_options
        .iter()
        .find(|v| v["ask"]["expiresAt"].is_null())
        .or(with_options.first())
        .map(|v| (*v).clone())
        .expect("a pushed ask with options");
    let answered_id = answerable["id"].as_str().expect("an id").to_string();
    let line = answerable["ask"]["options"][0]["answer"]
        .as_str()
        .expect("an answer line")
        .to_string();
    let typed = rig.tmux.run(&["send-keys", "-t", SHELL, "-l", &line]);
    assert!(typed.status.success(), "{typed:?}");
    rig.tmux.run(&["send-keys", "-t", SHELL, "Enter"]);
    rig.until_on(SHELL, "the answer's receipt", |s| s.contains("Answered"));
    let closed = until_pushed(&rig.out, "the closed event", |v| {
        v["event"] == "closed" && v["id"] == answered_id.as_str()
    });
    assert_eq!(closed["reason"], "answered");
    assert_eq!(pushes_of(&rig.out, "new-ask", &answered_id), 1, "once");

    // In front again, on the card of a pushed ask that is still open and nearest its
    // deadline: the screen is enough.
    let open: Vec<Value> = pushed(&rig.out)
        .into_iter()
        .filter(|v| v["event"] == "new-ask" && v["id"] != answered_id.as_str())
        .filter(|v| v["ask"]["expiresAt"].is_string())
        .collect();
    let watched = open
        .iter()
        .max_by_key(|v| v["ask"]["expiresAt"].as_str().map(str::to_string))
        .cloned()
        .expect("another pushed ask with a deadline");
    let watched_id = watched["id"].as_str().expect("an id").to_string();
    let title = watched["ask"]["title"]
        .as_str()
        .expect("a title")
        .to_string();
    rig.select(PHONE);
    // The focus report is read before anything after it counts.
    std::thread::sleep(Duration::from_millis(500));
    let back_at = rig.raw().len();
    let lines_before = pushed(&rig.out).len();
    rig.tmux.select(&title);
    rig.tmux.keys(&["Enter"]);
    let on_card = |s: &str| s.contains("› Ask") && s.contains(&title);
    rig.until_on(PHONE, "the card", on_card);
    // Until its end (the demo lets one expire and decides another itself), the card stays.
    let deadline = Instant::now() + Duration::from_secs(90);
    let closed = loop {
        let screen = rig.screen_of(PHONE);
        assert!(on_card(&screen), "the card stays on screen:\n{screen}");
        if let Some(closed) = pushed(&rig.out)
            .into_iter()
            .find(|v| v["event"] == "closed" && v["id"] == watched_id.as_str())
        {
            break closed;
        }
        assert!(Instant::now() < deadline, "the ask never ended:\n{screen}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        closed["reason"] == "expired" || closed["reason"] == "answered",
        "{closed}"
    );
    let since: Vec<Value> = pushed(&rig.out).into_iter().skip(lines_before).collect();
    assert!(
        since.iter().all(|v| v["event"] == "closed"),
        "in front, only withdrawals went to the command: {since:?}"
    );
    assert_eq!(
        rig.notices_since(back_at),
        Vec::<String>::new(),
        "no notice in front"
    );
    assert_eq!(rig.bells_since(back_at), 0, "no bell in front");
    rig.tmux.keys(&["Escape", "q"]);
}

/// A hostile agent's title (an escape that would retitle the terminal, a BEL that would end
/// the notice early, a line break, a C1 control) reaches the terminal's OSC 777 notice and
/// the person's command cleaned (SPEC L1): one line, no control byte, the notice ended only by
/// its own BEL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_title_rings_cleaned_in_the_notice_bytes_and_in_the_json() {
    if !tmux_installed() {
        eprintln!(
            "SKIPPED a_hostile_title_rings_cleaned_in_the_notice_bytes_and_in_the_json: tmux is not installed"
        );
        return;
    }
    let faulty = Faulty::new();
    faulty.set(|b| b.ask_open = false);
    let (socket, _dir) = faulty.serve_socket().await;
    let socket = socket.to_str().expect("utf-8").to_string();
    tokio::task::spawn_blocking(move || {
        let rig = Rig::start("rings-hostile", "style = \"osc777\"\nafter = 1\n", &socket);
        rig.until_on(PHONE, "the agent's pane", |s| s.contains("Ready"));
        rig.select(SHELL);
        std::thread::sleep(Duration::from_millis(500));
        let left_at = rig.raw().len();
        faulty.set(|b| {
            b.ask_title = "\u{1b}]0;pwned\u{7}Deploy?\r\nnow \u{9b}31m\u{1b}[2J".into();
            b.ask_open = true;
            b.rev += 1;
        });
        let push = until_pushed(&rig.out, "the new ask", |v| v["event"] == "new-ask");
        let title = push["ask"]["title"].as_str().expect("a title");
        assert!(!title.chars().any(char::is_control), "{title:?}");
        assert_eq!(title, "]0;pwnedDeploy?now 31m[2J");
        assert_eq!(push["text"], format!("agent: {title}"));
        let raw = rig.raw();
        let after = &raw[left_at..];
        let expected = format!("\x1b]777;notify;Collie;agent: {title}\x07");
        assert_eq!(
            rig.notices_since(left_at),
            [format!("777;notify;Collie;agent: {title}")],
            "one notice, cleaned"
        );
        assert!(
            after
                .windows(expected.len())
                .any(|w| w == expected.as_bytes()),
            "the notice's bytes: {:?}",
            String::from_utf8_lossy(after)
        );
        // Nothing of the title's own escapes reached the terminal.
        assert!(
            !after.windows(7).any(|w| w == b"\x1b]0;pwn"),
            "a title escape was written"
        );
        assert!(
            !String::from_utf8_lossy(after).contains('\u{9b}'),
            "a C1 control"
        );
        rig.tmux.keys(&["q"]);
    })
    .await
    .expect("the test ran");
}
