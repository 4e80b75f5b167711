//! The real binary in a real terminal: `collie-phone demo` inside tmux, driven by keys, the
//! screen read back after each step. Answers a permission, a choice, a text and a form ask,
//! sends text, aborts a turn, runs a starter, opens history and reopens a conversation, then
//! quits and checks the demo folder is gone; at 40x12 (a phone held upright), answers a choice
//! from the keyboard. Searches and copies in a hostile agent's pane and reads back the raw
//! bytes the phone wrote (`pipe-pane`). Skipped, with a note, where tmux is not installed.

use crate::common;

use common::tmux::{SOON, Tmux, private_home, tmux_installed};

use std::path::Path;

use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_collie-phone");

/// The OSC sequences in raw terminal output: (number, body without the number, terminator).
pub(crate) fn osc_sequences(raw: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(start) = raw[at..].windows(2).position(|w| w == b"\x1b]") {
        let body_start = at + start + 2;
        let end = raw[body_start..]
            .iter()
            .position(|b| *b == 0x07 || *b == 0x1b)
            .map_or(raw.len(), |i| body_start + i);
        let body = &raw[body_start..end];
        let (number, rest) = match body.iter().position(|b| *b == b';') {
            Some(i) => (&body[..i], &body[i + 1..]),
            None => (body, &[][..]),
        };
        found.push((String::from_utf8_lossy(number).into_owned(), rest.to_vec()));
        at = end.max(body_start);
    }
    found
}

fn demo_folders(runtime: &Path) -> usize {
    std::fs::read_dir(runtime)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with("collie-phone-demo-")
                })
                .count()
        })
        .unwrap_or(0)
}

/// A private home for a demo (its own runtime, state and config folders) and the command that
/// runs `collie-phone ARGS` in it: (home, runtime folder, command).
pub(crate) fn demo_home(args: &str) -> (tempfile::TempDir, std::path::PathBuf, String) {
    let (home, runtime) = private_home("cp-tmux-");
    let command = format!(
        "env XDG_RUNTIME_DIR={run} XDG_STATE_HOME={home}/state XDG_CONFIG_HOME={home}/config {BIN} {args}",
        run = runtime.display(),
        home = home.path().display()
    );
    (home, runtime, command)
}

#[test]
fn demo_in_tmux_every_flow() {
    if !tmux_installed() {
        eprintln!("SKIPPED demo_in_tmux_every_flow: tmux is not installed");
        return;
    }
    let (_home, runtime, command) = demo_home("demo --speed 0");
    let tmux = Tmux::start("demo", (120, 40), &command);
    tmux.until("the inbox", |s| s.contains("Needs your answer (4)"));
    assert_eq!(demo_folders(&runtime), 1);

    // A permission (SPEC A4, A10): from the inbox, tool and arguments as data.
    tmux.keys(&["j"]);
    tmux.select("rm -rf build/");
    tmux.keys(&["Enter"]);
    tmux.until("the permission card", |s| {
        s.contains("Tool  shell") && s.contains("$ rm -rf build/")
    });
    // y selects allow once; read, then Enter answers it (docs/ASKS.md).
    tmux.keys(&["y"]);
    tmux.read_card();
    tmux.keys(&["Enter"]);
    tmux.until("three asks left", |s| s.contains("Needs your answer (3)"));

    // A choice, selected by its number, answered with Enter (SPEC A15).
    tmux.select("选择迁移策略");
    tmux.keys(&["Enter"]);
    tmux.until("the choice card", |s| s.contains("订单表有 1200 万行"));
    tmux.keys(&["2"]);
    tmux.read_card();
    tmux.keys(&["Enter"]);
    tmux.until("two asks left", |s| s.contains("Needs your answer (2)"));

    // A text ask: typed, Enter submits.
    tmux.keys(&["g", "j"]);
    tmux.select("Name for the release");
    tmux.keys(&["Enter"]);
    tmux.until("the text card", |s| {
        s.contains("What should v0.3 be called")
    });
    tmux.text("Quiet Lake");
    tmux.until("the typed answer", |s| s.contains("› Quiet Lake"));
    tmux.read_card();
    tmux.keys(&["Enter"]);
    tmux.until("one ask left", |s| s.contains("Needs your answer (1)"));

    // A form: its defaults are valid; Tab moves, Space toggles, Enter submits.
    tmux.keys(&["g", "j"]);
    tmux.select("Deploy settings");
    tmux.keys(&["Enter"]);
    tmux.until("the form card", |s| {
        s.contains("Environment*") && s.contains("‹ Staging ›")
    });
    tmux.keys(&["Right", "Tab", "Space", "Tab", "Tab"]);
    tmux.text("ship it");
    tmux.until("the form filled", |s| {
        s.contains("‹ Production ›") && s.contains("[ ] no") && s.contains("ship it")
    });
    tmux.read_card();
    tmux.keys(&["Enter"]);
    tmux.until("no asks left", |s| s.contains("nothing needs your answer"));

    // Send text to a pane (SPEC A16).
    tmux.keys(&["g", "Enter"]);
    tmux.until("the workspaces", |s| {
        s.contains("workspaces, tabs and panes")
    });
    tmux.select("Inbox screen");
    tmux.keys(&["Enter", "i"]);
    tmux.until("the box takes the typing", |s| {
        s.contains("Inbox screen") && !s.contains("to type a message")
    });
    tmux.text("hello from tmux");
    tmux.keys(&["Enter"]);
    tmux.until("the words in the chat", |s| {
        s.contains("you › hello from tmux") && s.contains("› hello from tmux  sent")
    });

    // Abort a turn, after a confirm naming it (SPEC A16).
    tmux.keys(&["Escape", "Escape"]);
    tmux.until("the workspaces again", |s| {
        s.contains("workspaces, tabs and panes")
    });
    tmux.keys(&["g"]);
    tmux.select("Store & restarts");
    tmux.keys(&["Enter"]);
    tmux.until("the pane", |s| s.contains("Store & restarts  running"));
    tmux.keys(&["x"]);
    tmux.until("the confirm", |s| {
        s.contains("Stop turn ") && s.contains("y yes")
    });
    tmux.keys(&["y"]);
    tmux.until("the turn stopped", |s| {
        s.contains("Turn stopped from the phone.")
    });

    // Run a starter; its pane opens (SPEC A17).
    tmux.keys(&["Escape", "Escape", "n"]);
    tmux.until("the New page", |s| s.contains("New — run a starter"));
    tmux.select("Write tests");
    tmux.keys(&["Enter"]);
    tmux.until("the new pane", |s| {
        s.contains("Started from “Write tests”.")
    });

    // History, a conversation's items, and reopen (SPEC W5).
    tmux.keys(&["Escape", "H"]);
    tmux.until("the history", |s| {
        s.contains("History of demo — newest first")
    });
    tmux.keys(&["/"]);
    tmux.text("closed");
    tmux.keys(&["Enter", "Enter"]);
    tmux.until("a conversation", |s| s.contains("— oldest first"));
    tmux.keys(&["o"]);
    tmux.until("the reopened pane", |s| {
        s.contains("Conversation reopened.")
    });

    // Quit: the agent stops and its folder goes.
    tmux.keys(&["q"]);
    let deadline = Instant::now() + SOON;
    while tmux.alive() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!tmux.alive(), "the phone did not quit:\n{}", tmux.screen());
    let deadline = Instant::now() + SOON;
    while demo_folders(&runtime) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(demo_folders(&runtime), 0, "the demo folder was left behind");
}

#[test]
fn demo_dsh_in_tmux_shows_both_agents_and_sends_to_a_bridge_task() {
    if !tmux_installed() {
        eprintln!(
            "SKIPPED demo_dsh_in_tmux_shows_both_agents_and_sends_to_a_bridge_task: tmux is not installed"
        );
        return;
    }
    let (_home, runtime, command) = demo_home("demo --dsh --speed 0");
    let tmux = Tmux::start("dsh", (80, 24), &command);
    // Both agents in one phone (SPEC D): the Collie agent and the bridge, marked as one.
    tmux.until("both agents ready", |s| {
        s.contains("demo (collie-phone") && s.contains("dsh (DSH bridge)")
    });
    tmux.keys(&["j"]);
    tmux.until("the bridge's workspaces named", |s| {
        s.contains("泰坦尼克数据分析")
    });
    tmux.keys(&["Enter"]);
    tmux.select("数据体检");
    tmux.keys(&["Enter"]);
    tmux.until("the task pane", |s| {
        s.contains("Message · instruction · queue")
    });
    // Kind feedback from the picker (SPEC D3: 2 lights it, Enter chooses), queue kept, then
    // the words.
    tmux.keys(&["K", "2", "Enter"]);
    tmux.until("the kind chosen", |s| {
        s.contains("Message · feedback · queue")
    });
    tmux.keys(&["i"]);
    tmux.text("先看缺失值");
    tmux.keys(&["Enter"]);
    tmux.until("the append accepted", |s| {
        s.contains("send feedback (queue)") && s.contains("accepted")
    });
    tmux.until("the words in the chat", |s| s.contains("先看缺失值"));

    // Quit: the agent and the bridge stop, and the demo folder (the bridge's token and
    // desktop with it) goes.
    tmux.keys(&["Escape", "q"]);
    let deadline = Instant::now() + SOON;
    while tmux.alive() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!tmux.alive(), "the phone did not quit:\n{}", tmux.screen());
    let deadline = Instant::now() + SOON;
    while demo_folders(&runtime) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(demo_folders(&runtime), 0, "the demo folder was left behind");
}

/// The running demo's journal (in its private folder under `runtime`), whole.
fn demo_journal(runtime: &Path) -> String {
    std::fs::read_dir(runtime)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("collie-phone-demo-")
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("intents.jsonl")).ok())
        .collect()
}

/// The send texts in the running demo's journal (in its private folder), oldest first: what
/// left for the agent (SPEC Q2).
fn journal_sends(runtime: &Path) -> Vec<String> {
    let journal = demo_journal(runtime);
    journal
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|entry| entry["op"] == "created" && entry["record"]["kind"]["kind"] == "send")
        .filter_map(|entry| entry["record"]["kind"]["text"].as_str().map(str::to_string))
        .collect()
}

/// One Enter, one send (SPEC Q1; docs/KEYS.md), in a real terminal: three quick Enters are
/// three sends of their own words, and a 40 KB paste without bracketed-paste markers
/// (`paste-buffer` without `-p`) lands in the box whole and sends nothing. Read back from the
/// journal, not only the screen.
#[test]
fn demo_in_tmux_quick_enters_and_an_unbracketed_paste() {
    if !tmux_installed() {
        eprintln!(
            "SKIPPED demo_in_tmux_quick_enters_and_an_unbracketed_paste: tmux is not installed"
        );
        return;
    }
    let (home, runtime, command) = demo_home("demo --speed 0");
    let tmux = Tmux::start("typing", (120, 40), &command);
    tmux.until("the inbox", |s| s.contains("Needs your answer (4)"));
    tmux.keys(&["g", "Enter"]);
    tmux.until("the workspaces", |s| {
        s.contains("workspaces, tabs and panes")
    });
    tmux.select("Inbox screen");
    tmux.keys(&["Enter"]);
    tmux.until("the pane", |s| s.contains("› Inbox screen"));
    tmux.keys(&["i"]);
    // Each word in one write, each Enter right after it: as fast as a person types.
    for word in ["alpha", " beta", " gamma"] {
        let out = tmux.run(&["send-keys", "-t", &tmux.session, "-l", word]);
        assert!(out.status.success());
        std::thread::sleep(Duration::from_millis(30));
        tmux.keys(&["Enter"]);
    }
    tmux.until("three sends in the chat", |s| {
        s.contains("you › alpha") && s.contains("you ›  beta") && s.contains("you ›  gamma")
    });
    assert_eq!(journal_sends(&runtime), ["alpha", " beta", " gamma"]);

    let line = "pasted words 日本語 and more words to fill a line\n";
    let text = line.repeat(40 * 1024 / line.len());
    let file = home.path().join("paste.txt");
    std::fs::write(&file, &text).expect("the paste file");
    let file = file.to_str().expect("utf-8 path");
    assert!(tmux.run(&["load-buffer", file]).status.success());
    assert!(
        tmux.run(&["paste-buffer", "-t", &tmux.session])
            .status
            .success()
    );
    let size = collie_phone::screens::pane::size_against(text.len(), 32 * 1024);
    tmux.until("the whole paste in the box", |s| s.contains(&size));
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        journal_sends(&runtime),
        ["alpha", " beta", " gamma"],
        "the paste sent nothing"
    );
    tmux.keys(&["Escape", "q"]);
    tmux.until("the quit question for the words in the box", |s| {
        s.contains("typed but not sent")
    });
    tmux.keys(&["y"]);
}

#[test]
fn l1_search_then_copy_writes_only_clean_osc_52_bytes() {
    use base64::Engine as _;
    use common::hostile::{Hostile, Mode, assert_clean_bytes};
    if !tmux_installed() {
        eprintln!(
            "SKIPPED l1_search_then_copy_writes_only_clean_osc_52_bytes: tmux is not installed"
        );
        return;
    }
    let (_agent, url) = Hostile::start(Mode::Fields);
    let (home, _runtime, _) = demo_home("");
    let (token_path, token) = common::token_file(home.path());
    // The phone's own home (its state, its log) lives as long as the test.
    let (phone_home, _, command) = demo_home(&format!(
        "--url {url} --token-file {}",
        token_path.display()
    ));
    let raw_path = home.path().join("raw-output");
    // The phone asks tmux for set-clipboard once, at its start: it is on before then.
    let tmux = Tmux::start_with_options("osc52", (100, 30), &[("set-clipboard", "on")], &command);
    tmux.record_output(&raw_path);
    tmux.until("home", |s| s.contains("Needs your answer"));
    tmux.keys(&["Enter"]);
    tmux.until("the layout", |s| s.contains("workspaces, tabs and panes"));
    tmux.select("pane]0");
    tmux.keys(&["Enter"]);
    tmux.until("the pane's chat", |s| s.contains("unknownkind"));

    // Search: the reply holds "reply" twice; a new search starts at the newest match.
    tmux.keys(&["/"]);
    tmux.text("REPLY");
    tmux.until("the count", |s| s.contains("2 of 2"));
    tmux.keys(&["Enter", "N"]);
    tmux.until("the previous match", |s| s.contains("1 of 2"));
    tmux.keys(&["y"]);
    let said = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tmux.until("the copy said", |s| s.contains("Copied 1 line"))
    }));
    if said.is_err() {
        let log = std::fs::read_to_string(phone_home.path().join("state/collie-phone/phone.log"))
            .unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(40).collect();
        panic!(
            "y copied nothing that the screen told; the phone's log ends:\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    std::thread::sleep(Duration::from_millis(300));

    let raw = std::fs::read(&raw_path).expect("the recorded output");
    let copies: Vec<Vec<u8>> = osc_sequences(&raw)
        .into_iter()
        .filter(|(number, _)| number == "52")
        .map(|(_, body)| body)
        .collect();
    assert_eq!(copies.len(), 1, "one OSC 52 for one y");
    let payload = copies[0]
        .strip_prefix(b"c;")
        .expect("the clipboard selection");
    let text = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .expect("base64");
    assert_clean_bytes("the copied text", &text, &token);
    let text = String::from_utf8(text).expect("utf-8");
    assert!(
        text.starts_with("reply") && text.ends_with("reply"),
        "{text:?}"
    );
    assert!(text.contains("PWNED"), "the printable rest stays: {text:?}");
    // The exact sequence went out, ended by BEL, as the bytes of the cleaned text.
    let expected = format!(
        "\u{1b}]52;c;{}\u{7}",
        base64::engine::general_purpose::STANDARD.encode(&text)
    );
    assert!(
        raw.windows(expected.len())
            .any(|w| w == expected.as_bytes()),
        "the OSC 52 sequence"
    );
    // Nothing the agent sent set a title or wrote a C1 control: the only OSCs are ours (the
    // copy, the links, and the phone's own question for the background colour, `theme = auto`).
    for (number, body) in osc_sequences(&raw) {
        let ours = ["52", "8"].contains(&number.as_str()) || (number == "11" && body == b"?");
        assert!(ours, "OSC {number} went out");
    }
    let shown = String::from_utf8_lossy(&raw);
    assert!(
        !shown.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c)),
        "a C1 control went out"
    );
    // tmux took the copy as a paste buffer: what reached the clipboard is the clean text.
    let buffer = tmux.run(&["show-buffer"]);
    assert_eq!(String::from_utf8_lossy(&buffer.stdout), text);
}

/// One exchange of the wire inspector searches and copies as a pane does (docs/KEYS.md): `/`, a
/// word, Enter and `n` light and move to a match, and `y` writes one OSC 52 of the whole
/// exchange, cleaned (SPEC L1).
#[test]
fn an_exchange_searches_and_y_copies_it_whole_as_one_osc_52() {
    use base64::Engine as _;
    if !tmux_installed() {
        eprintln!(
            "SKIPPED an_exchange_searches_and_y_copies_it_whole_as_one_osc_52: tmux is not installed"
        );
        return;
    }
    let (home, _runtime, command) = demo_home("demo --speed 0");
    let raw_path = home.path().join("raw-output");
    let tmux = Tmux::start_with_options(
        "exchange-search",
        (80, 24),
        &[("set-clipboard", "on")],
        &command,
    );
    tmux.record_output(&raw_path);
    tmux.until("home", |s| s.contains("Needs your answer"));
    tmux.keys(&["w"]);
    tmux.until("the inspector", |s| s.contains("Wire inspector"));
    tmux.keys(&["Enter"]);
    tmux.until("one exchange", |s| s.contains("Reply body"));
    // "Reply" is a field's label and the reply body's heading: two matches at least.
    tmux.keys(&["/"]);
    tmux.text("REPLY");
    tmux.until("the count", |s| s.contains("/ REPLY") && s.contains(" of "));
    tmux.keys(&["Enter", "n"]);
    tmux.until("the first match", |s| s.contains("/ REPLY  1 of "));
    tmux.keys(&["y"]);
    tmux.until("the copy said", |s| s.contains("lines to the clipboard"));
    std::thread::sleep(Duration::from_millis(300));
    let raw = std::fs::read(&raw_path).expect("the recorded output");
    let copies: Vec<Vec<u8>> = osc_sequences(&raw)
        .into_iter()
        .filter(|(number, _)| number == "52")
        .map(|(_, body)| body)
        .collect();
    assert_eq!(copies.len(), 1, "one OSC 52 for one y");
    let payload = copies[0]
        .strip_prefix(b"c;")
        .expect("the clipboard selection");
    let text = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .expect("base64");
    let text = String::from_utf8(text).expect("utf-8");
    assert!(text.starts_with("Time "), "{text:?}");
    assert!(
        text.contains("Request body") && text.contains("Reply body"),
        "{text:?}"
    );
    assert!(
        text.chars()
            .all(|c| c == '\n' || c == '\t' || !c.is_control()),
        "only cleaned text: {text:?}"
    );
}

#[test]
fn demo_pane_links_are_osc_8_code_wraps_and_o_says_where_no_browser_can_open() {
    if !tmux_installed() {
        eprintln!(
            "SKIPPED demo_pane_links_are_osc_8_code_wraps_and_o_says_where_no_browser_can_open: tmux is not installed"
        );
        return;
    }
    let (home, _runtime, command) = demo_home("demo --speed 0");
    let command = format!("env -u DISPLAY -u WAYLAND_DISPLAY {command}");
    let raw_path = home.path().join("raw-output");
    let tmux = Tmux::start("links", (80, 24), &command);
    tmux.record_output(&raw_path);
    tmux.until("the inbox", |s| s.contains("Needs your answer (4)"));
    tmux.keys(&["Enter"]);
    tmux.until("the workspaces", |s| {
        s.contains("workspaces, tabs and panes")
    });
    tmux.select("HTTP routes");
    tmux.keys(&["Enter"]);
    tmux.until("the pane", |s| s.contains("axum Router docs"));
    // The long line of code goes on under a mark, nothing cut.
    tmux.until("the wrapped code", |s| {
        s.contains("↪ Bytes) -> Reply {") && !s.contains("Byt…")
    });
    // The link item, found and selected by a search; o says plainly why it cannot open.
    tmux.keys(&["/"]);
    tmux.text("router docs");
    tmux.until("the match", |s| s.contains("1 of 1"));
    tmux.keys(&["Enter", "o"]);
    tmux.until("the opener's absence in words", |s| {
        s.contains("The link was not opened: there is no display here")
    });
    std::thread::sleep(Duration::from_millis(300));
    let raw = std::fs::read(&raw_path).expect("the recorded output");
    let link = b"\x1b]8;;https://docs.rs/axum/latest/axum/struct.Router.html\x1b\\";
    assert!(
        raw.windows(link.len()).any(|w| w == link),
        "the URL went out as an OSC 8 hyperlink"
    );
    assert!(
        raw.windows(7).any(|w| w == b"\x1b]8;;\x1b\\"),
        "and was closed"
    );
    tmux.keys(&["Escape", "Escape", "q"]);
}

/// The answers in the running demo's journal that the agent took (SPEC Q2), oldest first: for
/// each answer whose outcome is `done`, the option id the agent's own reply says it applied.
fn journal_answers_done(runtime: &Path) -> Vec<String> {
    let journal = demo_journal(runtime);
    let entries: Vec<serde_json::Value> = journal
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let answers: Vec<&serde_json::Value> = entries
        .iter()
        .filter(|e| e["op"] == "created" && e["record"]["kind"]["kind"] == "answer")
        .map(|e| &e["record"]["requestId"])
        .collect();
    entries
        .iter()
        .filter(|e| {
            e["op"] == "outcome"
                && e["state"]["state"] == "done"
                && answers.contains(&&e["request_id"])
        })
        .filter_map(|e| {
            e["state"]["reply"]["outcome"]["optionId"]
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

/// A real terminal of 40x12, the smallest the phone draws in: the inbox, a choice asked in
/// Chinese, its options and keys all on screen; answered from the keyboard, and the agent took
/// it.
#[test]
fn demo_in_tmux_at_40x12_answers_an_ask_from_the_keyboard() {
    if !tmux_installed() {
        eprintln!(
            "SKIPPED demo_in_tmux_at_40x12_answers_an_ask_from_the_keyboard: tmux is not installed"
        );
        return;
    }
    let (_home, runtime, command) = demo_home("demo --speed 0");
    let tmux = Tmux::start("narrow", (40, 12), &command);
    tmux.until("the inbox at 40x12", |s| {
        s.contains("Needs your answer (4)") && s.contains("4 asks") && s.contains("? help")
    });
    let screen = tmux.screen();
    assert!(
        !screen.contains("needs at least"),
        "40x12 is refused:\n{screen}"
    );
    tmux.keys(&["j"]);
    tmux.select("选择迁移策略");
    tmux.keys(&["Enter"]);
    tmux.until("the choice card, its options and its keys", |s| {
        s.contains("Choice · revision") && s.contains("1 ") && s.contains("Enter answers")
    });
    tmux.keys(&["2"]);
    tmux.until("the second option selected", |s| {
        s.lines().any(|l| l.starts_with("› 2"))
    });
    tmux.read_card();
    tmux.keys(&["Enter"]);
    tmux.until("three asks left", |s| s.contains("Needs your answer (3)"));
    let deadline = Instant::now() + SOON;
    while journal_answers_done(&runtime).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    // The second option, 双写过渡, is what the agent took.
    assert_eq!(journal_answers_done(&runtime), ["o2"]);
    tmux.keys(&["q"]);
}

/// What the scripted ACP agent of `demo --acp` keeps of its sessions: every (who, words).
fn scripted_agent_history(runtime: &Path) -> Vec<(String, String)> {
    let mut all = Vec::new();
    for demo in std::fs::read_dir(runtime).into_iter().flatten().flatten() {
        let sessions = demo.path().join("acp-sessions");
        for file in std::fs::read_dir(sessions).into_iter().flatten().flatten() {
            let text = std::fs::read_to_string(file.path()).unwrap_or_default();
            let saved: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            for pair in saved["history"].as_array().into_iter().flatten() {
                all.push((
                    pair[0].as_str().unwrap_or_default().to_string(),
                    pair[1].as_str().unwrap_or_default().to_string(),
                ));
            }
        }
    }
    all
}

/// Allows the demo's edit from the inbox: in "Ask first" the scripted agent asks before it
/// edits, and its card shows the diff (docs/ACP.md, "Without an account").
fn allow_the_demos_edit(tmux: &Tmux) {
    tmux.until("the edit's card in the inbox", |s| {
        s.contains("edit: src/lib.rs")
    });
    tmux.select("edit: src/lib.rs");
    tmux.keys(&["Enter"]);
    tmux.until("the edit's card with its diff", |s| {
        s.contains("-    a - b") && s.contains("+    a + b")
    });
    tmux.read_card();
    tmux.keys(&["Enter"]);
}

#[test]
fn demo_acp_in_tmux_a_permission_answered_from_the_keyboard_reaches_the_acp_agent() {
    if !tmux_installed() {
        eprintln!("SKIPPED demo_acp_in_tmux_…: tmux is not installed");
        return;
    }
    let (_home, runtime, command) = demo_home("demo --acp");
    let tmux = Tmux::start("acp", (100, 30), &command);
    tmux.until("the ACP agent's permission in the inbox", |s| {
        s.contains("ACP host: scripted") && s.contains("execute: cargo test")
    });
    tmux.select("execute: cargo test");
    tmux.keys(&["Enter"]);
    tmux.until("the card with the four ACP option kinds", |s| {
        s.contains("Allow once") && s.contains("Allow always") && s.contains("Deny always")
    });
    tmux.read_card();
    tmux.keys(&["Enter"]);
    allow_the_demos_edit(&tmux);
    // The other side: the agent ran the tests because it was told "allow".
    let deadline = Instant::now() + SOON;
    let ran = |history: &[(String, String)]| {
        history
            .iter()
            .any(|(who, words)| who == "agent" && words.contains("fix for `add`"))
    };
    while !ran(&scripted_agent_history(&runtime)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let history = scripted_agent_history(&runtime);
    assert!(
        ran(&history),
        "the agent did not finish its turn: {history:?}"
    );
    assert_eq!(
        history.first().map(|(_, w)| w.as_str()),
        Some("Check this project and run its tests, please.")
    );

    // The pane shows the turn, CJK included, and a send during a turn says it is queued.
    tmux.until("back home", |s| s.contains("nothing needs your answer"));
    tmux.select("ACP host");
    tmux.keys(&["Enter"]);
    tmux.select("turn 1");
    tmux.keys(&["Enter"]);
    tmux.until("the chat", |s| {
        s.contains("Here is a fix for `add`") && s.contains("/test")
    });
    tmux.keys(&["F1"]);
    tmux.until("the belt's /test asks again", |s| {
        s.contains("Needs your answer")
    });
    tmux.keys(&["Enter"]);
    // Typed only once the box has the focus: keys that reach the phone in one read with the
    // Enter before them are a bunch outside a text field, where a letter may be a key that
    // acts (docs/KEYS.md, "Keys that act on an agent"); a loaded machine reads them so.
    tmux.until("the box takes the typing", |s| {
        !s.contains("to type a message")
    });
    tmux.text("then explain 你好 🚀");
    tmux.keys(&["Enter"]);
    tmux.until("the send is queued, and says so", |s| {
        s.contains("queued: the agent reads it when this turn ends")
            && s.contains("you › then explain 你好 🚀")
    });
    // A stop that would drop the queued send names it, and its words come back to the box,
    // before the draft typed since: a person's words are never dropped in silence.
    tmux.text("my draft");
    tmux.keys(&["C-x"]);
    tmux.until("the stop question names the queued words", |s| {
        s.contains("1 queued message comes back to your box")
    });
    tmux.keys(&["y"]);
    tmux.until("the queued words are back, before the draft", |s| {
        let (queued, draft) = (s.find("│then explain 你好 🚀"), s.find("│my draft"));
        queued.is_some() && draft.is_some() && queued < draft
    });
    tmux.keys(&["Escape", "Escape", "Escape", "q"]);
}

/// The ACP demo on v2 (`demo --acp --protocol 2`): the host offers 2 and the scripted agent
/// speaks it (the host's own log says so). Its permission is answered from the keyboard with
/// "Deny, and say why": the agent is told no, and the words reach it as its next prompt, once
/// (SPEC A21; docs/ACP.md, "Sends are queued, never steered"). The phone's journal holds the
/// Deny and then the words.
#[test]
fn demo_acp_v2_in_tmux_a_deny_with_words_reaches_the_agent_as_its_next_prompt() {
    if !tmux_installed() {
        eprintln!("SKIPPED demo_acp_v2_in_tmux_…: tmux is not installed");
        return;
    }
    let (home, runtime, command) = demo_home("demo --acp --protocol 2");
    let tmux = Tmux::start("acp-v2", (100, 30), &command);
    tmux.until("the ACP agent's permission in the inbox", |s| {
        s.contains("ACP host: scripted") && s.contains("execute: cargo test")
    });
    tmux.select("execute: cargo test");
    tmux.keys(&["Enter"]);
    tmux.until("the card and its Deny with words", |s| {
        s.contains("Allow once") && s.contains("Deny, and say why")
    });
    tmux.keys(&["N"]);
    tmux.until("the box under the Deny", |s| {
        s.contains("what the agent should do instead")
    });
    let words = "explain the code instead 你好";
    tmux.text(words);
    tmux.read_card();
    tmux.keys(&["Enter"]);
    // The words run as the next turn, and the scripted agent asks before its tests again: that
    // ask (a new id) is denied plainly from a shell, so the turn ends and the agent keeps both
    // prompts.
    let demo = std::fs::read_dir(&runtime)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .find(|path| path.join("acp-sessions").is_dir())
        .expect("the demo's folder");
    let first_ask = common::journal_kinds(&demo.join("intents.jsonl"))
        .first()
        .and_then(|k| k["ask_id"].as_str().map(str::to_string))
        .expect("the Deny is on the journal");
    let shell = |args: &[&str]| {
        let output = std::process::Command::new(BIN)
            .args(args)
            .arg("--socket")
            .arg(demo.join("agent.sock"))
            .env("XDG_STATE_HOME", home.path().join("state"))
            .output()
            .expect("runs");
        String::from_utf8_lossy(&output.stdout).to_string()
    };
    let deadline = Instant::now() + SOON;
    let second_ask = loop {
        let asks: serde_json::Value =
            serde_json::from_str(&shell(&["asks", "--json"])).unwrap_or_default();
        let next = asks
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["id"].as_str())
            .find(|id| *id != first_ask)
            .map(str::to_string);
        if let Some(id) = next {
            break id;
        }
        assert!(
            Instant::now() < deadline,
            "no second ask: {}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    shell(&["answer", &second_ask, "deny"]);
    let deadline = Instant::now() + SOON;
    let users = |history: &[(String, String)]| -> Vec<String> {
        history
            .iter()
            .filter(|(who, _)| who == "user")
            .map(|(_, words)| words.clone())
            .collect()
    };
    while users(&scripted_agent_history(&runtime)).len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let history = scripted_agent_history(&runtime);
    assert_eq!(
        users(&history),
        ["Check this project and run its tests, please.", words],
        "{history:?}"
    );
    assert!(
        history
            .iter()
            .any(|(who, said)| who == "agent" && said.contains("I did not run the tests")),
        "the agent was told no: {history:?}"
    );
    let log = std::fs::read_to_string(demo.join("agent.log")).unwrap_or_default();
    assert!(log.contains("the agent speaks ACP v2"), "{log}");
    let kinds = common::journal_kinds(&demo.join("intents.jsonl"));
    let sent: Vec<(&str, &str)> = kinds
        .iter()
        .map(|k| {
            let kind = k["kind"].as_str().unwrap_or_default();
            let what = k["answer"]["optionId"]
                .as_str()
                .or(k["text"].as_str())
                .unwrap_or_default();
            (kind, what)
        })
        .collect();
    assert_eq!(
        sent[..2],
        [("answer", "deny"), ("send", words)],
        "{kinds:?}"
    );
    tmux.keys(&["q"]);
}

/// A pane's mode from the keyboard in a real terminal, at 80x24: the picker switches it, a mode
/// that acts without asking needs its own `y`, and the agent itself says which mode it is in
/// when asked with a command completed from the `/` list (docs/ACP.md, docs/KEYS.md).
#[test]
fn demo_acp_in_tmux_the_mode_and_a_command_from_the_keyboard_reach_the_acp_agent() {
    if !tmux_installed() {
        eprintln!("SKIPPED demo_acp_in_tmux_the_mode…: tmux is not installed");
        return;
    }
    let (_home, runtime, command) = demo_home("demo --acp");
    let tmux = Tmux::start("acp-modes", (80, 24), &command);
    tmux.until("the ACP agent's permission in the inbox", |s| {
        s.contains("ACP host: scripted") && s.contains("execute: cargo test")
    });
    tmux.select("execute: cargo test");
    tmux.keys(&["Enter"]);
    tmux.until("the card", |s| s.contains("Allow once"));
    tmux.read_card();
    tmux.keys(&["Enter"]);
    allow_the_demos_edit(&tmux);
    tmux.until("back home", |s| s.contains("nothing needs your answer"));
    tmux.select("ACP host");
    tmux.keys(&["Enter"]);
    tmux.select("turn 1");
    tmux.keys(&["Enter"]);
    tmux.until("the pane with its mode under the heading", |s| {
        s.contains("Mode Ask first · Speed Careful")
    });
    tmux.keys(&["s"]);
    tmux.until("the picker", |s| s.contains("Plan only"));
    // `?` over the picker lists its keys; Esc gives the picker back (docs/KEYS.md).
    tmux.keys(&["?"]);
    tmux.until("the picker's help", |s| {
        s.contains("Keys: Mode and options") && s.contains("Light choice 3")
    });
    tmux.keys(&["Escape"]);
    tmux.until("the picker back", |s| {
        s.contains("Plan only") && !s.contains("Keys: Mode and options")
    });
    // A number lights its choice, Enter switches (docs/KEYS.md).
    tmux.keys(&["2", "Enter"]);
    tmux.until("the agent's yes", |s| s.contains("Mode Plan only"));
    let switched = |history: &[(String, String)]| {
        history
            .iter()
            .any(|(who, words)| who == "setting" && words == "mode=plan,speed=careful,compact=on")
    };
    let deadline = Instant::now() + SOON;
    while !switched(&scripted_agent_history(&runtime)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        switched(&scripted_agent_history(&runtime)),
        "the agent did not receive the switch: {:?}",
        scripted_agent_history(&runtime)
    );
    tmux.keys(&["s"]);
    tmux.until("the picker again", |s| s.contains("Act without asking"));
    tmux.keys(&["3", "Enter"]);
    tmux.until("the question", |s| s.contains("“Act without asking”?"));
    tmux.keys(&["Enter"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        tmux.screen().contains("“Act without asking”?"),
        "Enter does not say yes here: {}",
        tmux.screen()
    );
    // Its `y` waits the reading time, as allow-always's does (docs/KEYS.md).
    std::thread::sleep(collie_phone::model::arming::ARMING.unsigned_abs());
    tmux.keys(&["y"]);
    tmux.until("the mode that acts without asking, marked", |s| {
        s.contains("Mode ⚠ Act without asking")
    });
    // A boolean option is a setting of On and Off; Tab twice, in one bunch, is two moves to it.
    tmux.keys(&["s"]);
    tmux.until("the picker once more", |s| s.contains("Act without asking"));
    tmux.keys(&["Tab", "Tab"]);
    tmux.until("the boolean option's choices", |s| {
        s.contains("┌ Compact by itself") && s.contains("Off")
    });
    tmux.keys(&["2", "Enter"]);
    tmux.until("the agent's yes to Off", |s| {
        s.contains("Compact by itself: scripted switched to Off.")
    });
    let turned_off = |history: &[(String, String)]| {
        history
            .iter()
            .any(|(who, words)| who == "setting" && words == "mode=yolo,speed=careful,compact=off")
    };
    let deadline = Instant::now() + SOON;
    while !turned_off(&scripted_agent_history(&runtime)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        turned_off(&scripted_agent_history(&runtime)),
        "the agent did not receive the boolean: {:?}",
        scripted_agent_history(&runtime)
    );
    tmux.keys(&["i"]);
    tmux.until("the box takes the typing", |s| {
        !s.contains("to type a message")
    });
    tmux.keys(&["/"]);
    tmux.until("the list of commands", |s| s.contains("/explain"));
    tmux.keys(&["m", "o", "Tab"]);
    tmux.until("the command completed", |s| s.contains("│/mode "));
    tmux.keys(&["Enter"]);
    tmux.until("the agent says its mode", |s| {
        s.contains("I am in mode yolo, at speed careful.")
    });
    tmux.keys(&["Escape", "Escape", "Escape", "q"]);
}

/// An ACP agent's question from the keyboard in a real terminal: `/ask` sent from the box
/// becomes a form card (docs/ACP.md, "Questions the agent asks"), its fields are changed with
/// keys that arrive in one bunch, and the agent receives the answer typed; the usage the agent
/// reported shows under the pane's heading.
#[test]
fn demo_acp_in_tmux_a_form_question_answered_from_keys_in_a_bunch_reaches_the_acp_agent() {
    if !tmux_installed() {
        eprintln!("SKIPPED demo_acp_in_tmux_a_form_question…: tmux is not installed");
        return;
    }
    let (_home, runtime, command) = demo_home("demo --acp");
    let tmux = Tmux::start("acp-form", (100, 34), &command);
    tmux.until("the ACP agent's permission in the inbox", |s| {
        s.contains("ACP host: scripted") && s.contains("execute: cargo test")
    });
    tmux.select("execute: cargo test");
    tmux.keys(&["Enter"]);
    tmux.until("the card", |s| s.contains("Allow once"));
    tmux.read_card();
    tmux.keys(&["Enter"]);
    allow_the_demos_edit(&tmux);
    tmux.until("back home", |s| s.contains("nothing needs your answer"));
    tmux.select("ACP host");
    tmux.keys(&["Enter"]);
    tmux.select("turn 1");
    tmux.keys(&["Enter"]);
    tmux.until("the usage the agent reported, under the heading", |s| {
        s.contains("of 200k tokens")
    });
    tmux.keys(&["i"]);
    tmux.until("the box takes the typing", |s| {
        !s.contains("to type a message")
    });
    tmux.text("/ask");
    tmux.keys(&["Enter"]);
    tmux.until("the question waits, and says which key answers it", |s| {
        s.contains("Needs your answer") && s.contains("a to answer")
    });
    tmux.keys(&["Escape"]);
    tmux.until("out of the box", |s| s.contains("to type a message"));
    tmux.keys(&["a"]);
    tmux.until("the form card", |s| {
        s.contains("Dry run first") && s.contains("‹ Staging 🧪 ›")
    });
    // Contact, Dry run first, Environment, … : past Contact, Dry run off, Environment on.
    tmux.bunch(&["Tab", "Space", "Tab", "Right"]);
    tmux.until("the form changed", |s| {
        s.contains("‹ Production 🚀 ›") && s.contains("[ ] no")
    });
    tmux.read_card();
    tmux.keys(&["Enter"]);
    let answered = |history: &[(String, String)]| {
        history
            .iter()
            .find(|(who, _)| who == "elicitation")
            .map(|(_, got)| serde_json::from_str::<serde_json::Value>(got).unwrap_or_default())
    };
    let deadline = Instant::now() + SOON;
    while answered(&scripted_agent_history(&runtime)).is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let got = answered(&scripted_agent_history(&runtime)).expect("the agent got its answer");
    assert_eq!(got["action"], "accept", "{got}");
    assert_eq!(got["content"]["environment"], "production", "{got}");
    assert_eq!(got["content"]["dry_run"], false, "{got}");
    assert_eq!(
        got["content"]["replicas"],
        serde_json::json!(2),
        "the default, a number: {got}"
    );
    tmux.until("the agent says what it got", |s| {
        s.contains("You answered:")
    });
    tmux.keys(&["Escape", "Escape", "Escape", "q"]);
}

/// docs/KEYS.md, "A form's fields", in a real terminal: on the ACP agent's form every hinted
/// key is pressed and does what its hint says. On Regions (at most 2) a number lights its
/// option and Space picks it; a third pick is refused at the key with why; on Decline the
/// hint says Enter answers with it, and it does.
#[test]
fn demo_acp_in_tmux_a_forms_hints_name_the_keys_of_the_focused_field() {
    if !tmux_installed() {
        eprintln!("SKIPPED demo_acp_in_tmux_a_forms_hints…: tmux is not installed");
        return;
    }
    let (_home, runtime, command) = demo_home("demo --acp");
    let tmux = Tmux::start("acp-form-hints", (80, 30), &command);
    tmux.until("the ACP agent's permission in the inbox", |s| {
        s.contains("ACP host: scripted") && s.contains("execute: cargo test")
    });
    // The permissions first (the command, then the edit the turn goes on to ask for), so the
    // form is the one ask left.
    tmux.select("execute: cargo test");
    tmux.keys(&["Enter"]);
    tmux.until("the card", |s| s.contains("Allow once"));
    tmux.read_card();
    tmux.keys(&["Enter"]);
    allow_the_demos_edit(&tmux);
    tmux.until("back home", |s| s.contains("nothing needs your answer"));
    tmux.select("ACP host");
    tmux.keys(&["Enter"]);
    tmux.select("turn 1");
    tmux.keys(&["Enter"]);
    tmux.until("the pane", |s| s.contains("to type a message"));
    tmux.keys(&["i"]);
    tmux.until("the box takes the typing", |s| {
        !s.contains("to type a message")
    });
    tmux.text("/ask");
    tmux.keys(&["Enter"]);
    tmux.until("the question waits", |s| {
        s.contains("Needs your answer: AskUserQuestion")
    });
    tmux.keys(&["Escape"]);
    tmux.until("out of the box", |s| s.contains("to type a message"));
    tmux.keys(&["a"]);
    tmux.until("the form card", |s| s.contains("Dry run first"));
    tmux.read_card();
    let focused = |s: &str, label: &str| s.lines().any(|l| l.contains(&format!("› {label}")));
    for _ in 0..8 {
        if focused(&tmux.screen(), "Regions") {
            break;
        }
        tmux.keys(&["Tab"]);
        std::thread::sleep(Duration::from_millis(100));
    }
    tmux.until("Regions hints its keys", |s| {
        focused(s, "Regions") && s.contains("1–3 ←/→ select · Space picks")
    });
    tmux.keys(&["2"]);
    tmux.until("2 lights Americas, unpicked", |s| {
        s.contains("› 2 [ ] Americas")
    });
    tmux.keys(&["Space"]);
    tmux.until("Space picks it", |s| s.contains("› 2 [x] Americas"));
    tmux.keys(&["1", "Space", "3", "Space"]);
    tmux.until("the third pick refused, with why", |s| {
        s.contains("1 [x] Europe") && s.contains("› 3 [ ] 亚太") && s.contains("takes at most 2")
    });
    // Right lights the next option (round the end), Left the one before.
    tmux.keys(&["Right"]);
    tmux.until("Right goes round to 1", |s| s.contains("› 1 [x] Europe"));
    tmux.keys(&["Left"]);
    tmux.until("Left back to 3", |s| s.contains("› 3 [ ] 亚太"));
    // Onto Decline: its hint says what Enter does there, and Enter does it.
    for _ in 0..8 {
        if tmux.screen().contains("› [ Decline ]") {
            break;
        }
        tmux.keys(&["Tab"]);
        std::thread::sleep(Duration::from_millis(100));
    }
    tmux.until("Decline hints Enter", |s| {
        s.contains("Enter answers “Decline”") && !s.contains("Space change")
    });
    tmux.keys(&["Enter"]);
    let declined = || {
        scripted_agent_history(&runtime)
            .iter()
            .any(|(who, got)| who == "elicitation" && got.contains("decline"))
    };
    let deadline = Instant::now() + SOON;
    while !declined() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        declined(),
        "Enter on Decline declined: {:?}",
        scripted_agent_history(&runtime)
    );
    tmux.keys(&["Escape", "Escape", "Escape", "q"]);
}

/// docs/KEYS.md in a real terminal: a person's words written to it the way ssh hands them on
/// (small writes 1–10 ms apart, each Enter straight after its word and the next word straight
/// after it) are three sends of their own words, in order, read back from the journal.
#[test]
fn demo_in_tmux_keys_in_ssh_bunches_are_three_sends() {
    if !tmux_installed() {
        eprintln!(
            "SKIPPED demo_in_tmux_keys_in_ssh_bunches_are_three_sends: tmux is not installed"
        );
        return;
    }
    let (_home, runtime, command) = demo_home("demo --speed 0");
    let tmux = Tmux::start("bunches", (120, 40), &command);
    tmux.until("the inbox", |s| s.contains("Needs your answer (4)"));
    tmux.keys(&["g", "Enter"]);
    tmux.until("the workspaces", |s| {
        s.contains("workspaces, tabs and panes")
    });
    tmux.select("Inbox screen");
    tmux.keys(&["Enter"]);
    tmux.until("the pane", |s| s.contains("› Inbox screen"));
    tmux.keys(&["i"]);
    tmux.ssh_bunches("golf\nhotel\nindia\n");
    tmux.until("three sends in the chat", |s| {
        s.contains("you › golf") && s.contains("you › hotel") && s.contains("you › india")
    });
    assert_eq!(journal_sends(&runtime), ["golf", "hotel", "india"]);
    tmux.keys(&["Escape", "q"]);
}

/// Ctrl-G in the box hands the terminal to the person's editor (docs/KEYS.md, "The person's
/// editor"): `$EDITOR` is a script, run without a shell, that asks for a line on the terminal
/// (so it gets the keys, in cooked mode, off the phone's screen) and appends it to its file.
/// The phone comes back drawn whole, the box holds the edited text, and nothing was sent.
#[test]
fn demo_in_tmux_ctrl_g_edits_the_box_in_the_persons_editor() {
    use std::os::unix::fs::PermissionsExt;
    if !tmux_installed() {
        eprintln!(
            "SKIPPED demo_in_tmux_ctrl_g_edits_the_box_in_the_persons_editor: tmux is not installed"
        );
        return;
    }
    let (home, runtime, command) = demo_home("demo --speed 0");
    let editor = home.path().join("my editor");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf 'editor here: '\nread answer\nprintf '\\n%s\\n' \"$answer\" >> \"$1\"\n",
    )
    .expect("the editor script");
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).expect("executable");
    // Quoted for the line of $EDITOR, which the phone splits as a shell would.
    let command = command.replacen(
        "env ",
        &format!("env VISUAL= EDITOR=\"'{}'\" ", editor.display()),
        1,
    );
    let tmux = Tmux::start("editor", (80, 24), &command);
    tmux.until("the inbox", |s| s.contains("Needs your answer (4)"));
    tmux.keys(&["g", "Enter"]);
    tmux.until("the workspaces", |s| {
        s.contains("workspaces, tabs and panes")
    });
    tmux.select("Inbox screen");
    tmux.keys(&["Enter"]);
    tmux.until("the pane", |s| s.contains("Inbox screen"));
    tmux.keys(&["i"]);
    tmux.text("draft 日本 🇯🇵");
    // The flag is drawn as its region's letters, the form every terminal gives one width
    // (SPEC L1); the box holds the flag itself.
    tmux.until("the draft", |s| s.contains("draft 日本 JP"));
    tmux.keys(&["C-g"]);
    tmux.until("the editor on the terminal", |s| {
        s.contains("editor here:") && !s.contains("draft 日本")
    });
    tmux.text("from the editor 👍🏽");
    tmux.keys(&["Enter"]);
    tmux.until("the phone back with the edited text", |s| {
        s.contains("draft 日本 JP")
            && s.contains("from the editor 👍")
            && s.contains("not sent")
            && !s.contains("editor here:")
    });
    assert!(
        journal_sends(&runtime).is_empty(),
        "nothing was sent: {:?}",
        journal_sends(&runtime)
    );
    // The keys work again: the phone reads the terminal after the editor.
    tmux.keys(&["End"]);
    tmux.text(" ok");
    tmux.until("typing after the editor", |s| {
        s.lines()
            .any(|row| row.contains("from the editor") && row.contains(" ok"))
    });
    assert!(journal_sends(&runtime).is_empty());
    tmux.keys(&["Escape", "q"]);
}
