//! The wire inspector and the ways a new ask is announced: snapshots of the list and of one
//! exchange at 80x24 and 160x48 from fixed records and a frozen clock, the filter, the export's
//! JSON lines, the notification commands of each `notify` setting, and the whole phone against
//! the real reference agent, over its socket and over TLS with a token that must never show.

use crate::common;

use common::phone::TestPhone;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use collie_phone::app::keymap::Chord;
use collie_phone::app::notify::{DesktopProtocol, Notice, NotifyStyle};
use collie_phone::app::settings::Settings;
use collie_phone::app::{AppSetup, Command, Message};
use collie_phone::durable::world::World;
use collie_phone::engine::{AgentChange, AgentStatus, ExchangeRecord, FromEngine};
use collie_phone::look::theme::Theme;
use collie_phone::rigs::WorldKind;
use collie_phone::rigs::worlds;
use collie_phone::screens::Screen;
use collie_phone::shell;
use collie_phone::shell::App;
use collie_phone::transport::{Endpoint, Token, tls::TlsEndpoint};
use collie_phone::wire::{self, EventsReply, Hello, Report, Snapshot};
use crossterm::event::KeyEvent;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use time::OffsetDateTime;
use time::macros::datetime;

const NOW: OffsetDateTime = datetime!(2026-11-29 14:30:00 UTC);
const SIZES: [(u16, u16); 3] = [(40, 12), (80, 24), (160, 48)];
const EXPORT_DIR: &str = "/home/dev/.local/state/collie-phone";

fn theme() -> Theme {
    Theme::builtin("dark").expect("the dark theme")
}

fn key(text: &str) -> Message {
    let chord = Chord::parse(text).expect("a key");
    Message::Key(KeyEvent::new(chord.code, chord.modifiers))
}

fn press(app: &mut App, keys: &[&str]) -> Vec<Command> {
    keys.iter().flat_map(|k| app.update(key(k))).collect()
}

fn draw(app: &App, (width, height): (u16, u16)) -> TestBackend {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal
        .draw(|frame| shell::frame::draw(frame, app))
        .expect("draws");
    terminal.backend().clone()
}

fn screen_text(app: &App, size: (u16, u16)) -> String {
    draw(app, size).to_string()
}

fn snap(name: &str, build: impl Fn((u16, u16)) -> App) {
    for size in SIZES {
        let app = build(size);
        insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), draw(&app, size));
    }
}

// ----- fixed records ---------------------------------------------------------------------------

fn exchange(at_millis: i64, agent: &str, method: &'static str, path: &str) -> ExchangeRecord {
    ExchangeRecord {
        at: NOW - time::Duration::seconds(60) + time::Duration::milliseconds(at_millis),
        agent: agent.into(),
        method,
        path: format!("/session/v1{path}"),
        status: Some(200),
        error: None,
        reply_bytes: 81,
        millis: 1,
        request_id: None,
        request_body: String::new(),
        reply_body: r#"{"epoch":"e1","cursor":4,"events":[],"more":false}"#.into(),
    }
}

/// A minute of two agents' polls, an answer, a refused send and a failed read.
fn records() -> Vec<ExchangeRecord> {
    let mut out = Vec::new();
    let mut at = 0;
    for round in 0..6 {
        for agent in ["demo", "笔记本"] {
            at += 137;
            let mut snapshot = exchange(at, agent, "GET", "/snapshot");
            if round > 0 {
                snapshot.status = Some(304);
                snapshot.reply_bytes = 0;
                snapshot.reply_body = String::new();
            } else {
                snapshot.reply_bytes = 4949;
                snapshot.millis = 4;
                snapshot.reply_body = r#"{"epoch":"e1","rev":67,"workspaces":[]}"#.into();
            }
            out.push(snapshot);
            at += 3;
            out.push(exchange(
                at,
                agent,
                "GET",
                &format!("/pane/p-41{round}0/events?after=1{round}&epoch=e1"),
            ));
        }
        if round == 2 {
            at += 11;
            let mut answer = exchange(at, "demo", "POST", "/pane/p-4170/answer");
            answer.request_id = Some("r-4c6457b91a2604ee6a3ce5d0ea44266d".into());
            answer.request_body = r#"{"requestId":"r-4c6457b91a2604ee6a3ce5d0ea44266d","askId":"ask-9220","revision":1,"answer":{"optionId":"allow-once"}}"#.into();
            answer.reply_bytes = 138;
            answer.millis = 72;
            answer.reply_body = r#"{"code":"ok","outcome":{"effect":"allow","optionId":"allow-once","summary":"Allow once"},"requestId":"r-4c6457b91a2604ee6a3ce5d0ea44266d"}"#.into();
            out.push(answer);
        }
        if round == 3 {
            at += 5;
            let mut send = exchange(at, "笔记本", "POST", "/pane/p-5000/send");
            send.request_id = Some("r-0b9e3f1c2d4a5b6c7d8e9f0a1b2c3d4e".into());
            send.request_body =
                r#"{"requestId":"r-0b9e3f1c2d4a5b6c7d8e9f0a1b2c3d4e","text":"重构订单服务"}"#
                    .into();
            send.status = Some(409);
            send.reply_bytes = 64;
            send.reply_body = r#"{"code":"turn-changed","message":"a newer turn runs"}"#.into();
            out.push(send);
        }
        if round == 4 {
            at += 1000;
            let mut failed = exchange(at, "笔记本", "GET", "/snapshot");
            failed.status = None;
            failed.error = Some("no complete reply within 3000 ms".into());
            failed.reply_bytes = 0;
            failed.millis = 3000;
            failed.reply_body = String::new();
            out.push(failed);
        }
    }
    out
}

fn new_app(size: (u16, u16)) -> App {
    let mut app = App::new(AppSetup {
        agents: vec![("demo".into(), false), ("笔记本".into(), true)],
        settings: Settings::default(),
        bridges: Vec::new(),
        theme: theme(),
        now: NOW,
        size,
    });
    app.phone_mut().set_export_dir(PathBuf::from(EXPORT_DIR));
    app
}

/// The phone with the fixed records, the inspector open.
fn inspector_app(size: (u16, u16)) -> App {
    let mut app = new_app(size);
    for record in records() {
        app.update(Message::Engine(FromEngine::Exchange(record)));
    }
    press(&mut app, &["w"]);
    app
}

// ----- screens ---------------------------------------------------------------------------------

#[test]
fn the_list_follows_the_newest_exchange_with_columns_by_width() {
    snap("inspector_list", inspector_app);
    let text = screen_text(&inspector_app((160, 48)), (160, 48));
    for words in [
        "time (UTC)",
        "request id",
        "r-4c6457b91a2604ee6a3ce5d0ea44266d",
        "no complete reply within 3000 ms",
        "following the newest",
    ] {
        assert!(text.contains(words), "{words} at 160x48:\n{text}");
    }
    // At 80 columns the request ids go first; time, method, status and path stay.
    let narrow = screen_text(&inspector_app((80, 24)), (80, 24));
    assert!(!narrow.contains("request id"), "{narrow}");
    assert!(narrow.contains("14:29:01.") && narrow.contains("/snapshot"));
}

#[test]
fn moving_up_pauses_the_list_and_new_exchanges_do_not_move_it() {
    let mut app = inspector_app((80, 24));
    press(&mut app, &["k", "k"]);
    let before = screen_text(&app, (80, 24));
    assert!(before.contains("paused: G follows the newest"), "{before}");
    let mut late = exchange(59_000, "demo", "GET", "/hello");
    late.reply_body = "{}".into();
    app.update(Message::Engine(FromEngine::Exchange(late)));
    let after = screen_text(&app, (80, 24));
    let rows =
        |text: &str| -> Vec<String> { text.lines().skip(3).take(18).map(str::to_string).collect() };
    assert_eq!(rows(&before), rows(&after), "the view moved:\n{after}");
    press(&mut app, &["G"]);
    let following = screen_text(&app, (80, 24));
    assert!(following.contains("following the newest"));
    assert!(following.contains("› 14:29:59.000"), "{following}");
}

fn mouse(kind: crossterm::event::MouseEventKind, column: u16, row: u16) -> Message {
    Message::Mouse(crossterm::event::MouseEvent {
        kind,
        column,
        row,
        modifiers: crossterm::event::KeyModifiers::NONE,
    })
}

#[test]
fn the_wheel_scrolls_and_a_second_click_opens_the_row() {
    use crossterm::event::{MouseButton, MouseEventKind};
    let mut app = inspector_app((80, 24));
    app.update(mouse(MouseEventKind::ScrollUp, 10, 10));
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("paused"), "{text}");
    // Row 3 of the screen is the first row of the list.
    app.update(mouse(MouseEventKind::Down(MouseButton::Left), 10, 3));
    let selected = screen_text(&app, (80, 24));
    let first_row = selected.lines().nth(3).expect("a row");
    assert!(first_row.starts_with("\"›"), "{selected}");
    assert!(matches!(app.nav().top(), Screen::Inspector(_)));
    app.update(mouse(MouseEventKind::Down(MouseButton::Left), 10, 3));
    assert!(matches!(app.nav().top(), Screen::Exchange(_)));
    app.update(mouse(MouseEventKind::ScrollDown, 10, 10));
    app.update(key("esc"));
    for _ in 0..20 {
        app.update(mouse(MouseEventKind::ScrollDown, 10, 10));
    }
    assert!(screen_text(&app, (80, 24)).contains("following the newest"));
}

#[test]
fn one_exchange_shows_its_bodies_laid_out() {
    let open_answer = |size| {
        let mut app = inspector_app(size);
        press(
            &mut app,
            &["/", "a", "n", "s", "w", "e", "r", "enter", "enter"],
        );
        app
    };
    snap("inspector_detail", open_answer);
    let text = screen_text(&open_answer((160, 48)), (160, 48));
    assert!(text.contains("Request id  r-4c6457b91a2604ee6a3ce5d0ea44266d"));
    assert!(text.contains("    \"optionId\": \"allow-once\""), "{text}");
    assert!(text.contains("Headers are not recorded, so the token never shows here."));
    // Keys keep their order: the agent's reply as it came, not sorted.
    let code = text.find("\"code\": \"ok\"").expect("code");
    let outcome = text.find("\"outcome\": {").expect("outcome");
    assert!(code < outcome);
}

#[test]
fn a_failed_read_shows_why_no_reply_came() {
    let open_failed = |size| {
        let mut app = inspector_app(size);
        press(&mut app, &["/"]);
        app.update(Message::Paste("within 3000".into()));
        press(&mut app, &["enter", "enter"]);
        app
    };
    snap("inspector_detail_failed", open_failed);
    let app = open_failed((80, 24));
    let text = screen_text(&app, (80, 24));
    assert!(
        text.contains("Status      no reply: no complete reply within 3000 ms"),
        "{text}"
    );
}

#[test]
fn a_long_body_scrolls() {
    let mut app = new_app((80, 24));
    let mut big = exchange(0, "demo", "GET", "/snapshot");
    let panes: Vec<_> = (0..60)
        .map(|n| json!({"id": format!("p-{n}"), "title": format!("面板 {n}")}))
        .collect();
    big.reply_body = json!({ "panes": panes }).to_string();
    app.update(Message::Engine(FromEngine::Exchange(big)));
    press(&mut app, &["w", "enter"]);
    assert!(screen_text(&app, (80, 24)).contains("Reply body"));
    press(&mut app, &["G"]);
    let bottom = screen_text(&app, (80, 24));
    assert!(bottom.contains("\"title\": \"面板 59\""), "{bottom}");
    assert!(!bottom.contains("Reply body"));
    press(&mut app, &["g"]);
    assert!(screen_text(&app, (80, 24)).contains("Time        2026-11-29 14:29:00.000 UTC"));
}

#[test]
fn the_filter_looks_at_agent_method_path_status_and_request_id() {
    snap("inspector_filter", |size| {
        let mut app = inspector_app(size);
        press(&mut app, &["/", "4", "0", "9"]);
        app
    });
    let shown = |filter: &str| {
        let mut app = inspector_app((160, 48));
        press(&mut app, &["/"]);
        app.update(Message::Paste(filter.into()));
        press(&mut app, &["enter"]);
        let text = screen_text(&app, (160, 48));
        text.lines().filter(|l| l.contains(" 14:29:")).count()
    };
    assert_eq!(shown("笔记本"), 14, "agent");
    assert_eq!(shown("post"), 2, "method, any case");
    assert_eq!(shown("/answer"), 1, "path");
    assert_eq!(shown("304"), 10, "status");
    assert_eq!(shown("within 3000"), 1, "the error in words");
    assert_eq!(shown("r-0b9e3f"), 1, "request id");
    assert_eq!(shown("nothing-like-this"), 0);
    let mut app = inspector_app((80, 24));
    press(&mut app, &["/"]);
    app.update(Message::Paste("nothing-like-this".into()));
    assert!(screen_text(&app, (80, 24)).contains("No exchange matches the filter."));
}

#[test]
fn the_filter_edits_with_the_keys_of_every_text_field() {
    let size = (160, 48);
    let mut app = inspector_app(size);
    let rows = |app: &App| {
        let text = screen_text(app, size);
        let count = text.lines().filter(|l| l.contains(" 14:29:")).count();
        (count, text)
    };
    press(&mut app, &["/"]);
    app.update(Message::Paste("post nothing-like-this".into()));
    assert_eq!(rows(&app).0, 0);
    // Ctrl-W kills the last word: only "post" is left, the caret after it.
    press(&mut app, &["ctrl-w"]);
    let (count, text) = rows(&app);
    assert_eq!(count, 2, "{text}");
    assert!(text.contains("/ post ▏"), "{text}");
    press(&mut app, &["ctrl-z"]);
    assert_eq!(rows(&app).0, 0, "undo brings the word back");
    press(&mut app, &["ctrl-a", "alt-f"]);
    assert!(rows(&app).1.contains("/ post▏ nothing-like-this"));
    press(&mut app, &["ctrl-k"]);
    assert_eq!(rows(&app).0, 2);
    press(&mut app, &["ctrl-y", "enter"]);
    let (count, text) = rows(&app);
    assert_eq!(count, 0, "{text}");
    assert!(text.contains("/ post nothing-like-this "), "{text}");
}

// ----- export ----------------------------------------------------------------------------------

#[test]
fn export_hands_the_runner_the_listed_exchanges_as_json_lines() {
    let mut app = inspector_app((80, 24));
    press(&mut app, &["/", "p", "o", "s", "t", "enter"]);
    let commands = press(&mut app, &["x"]);
    let [
        Command::ExportInspector {
            path,
            text,
            exchanges,
        },
    ] = commands.as_slice()
    else {
        panic!("one export command: {commands:?}");
    };
    assert_eq!(
        *path,
        Path::new(EXPORT_DIR).join("wire-20261129-143000-000.jsonl")
    );
    let posts: Vec<ExchangeRecord> = records()
        .into_iter()
        .filter(|r| r.method == "POST")
        .collect();
    let expected: String = posts
        .iter()
        .map(|r| serde_json::to_string(r).expect("serializes") + "\n")
        .collect();
    assert_eq!(*text, expected);
    let first: serde_json::Value =
        serde_json::from_str(text.lines().next().expect("a line")).expect("JSON");
    assert_eq!(first["requestId"], "r-4c6457b91a2604ee6a3ce5d0ea44266d");
    assert_eq!(first["at"], "2026-11-29T14:29:00.851Z");
    assert_eq!(first["status"], 200);

    app.update(Message::Exported {
        path: path.clone(),
        exchanges: *exchanges,
        result: Ok(()),
    });
    let saved = screen_text(&app, (160, 48));
    assert!(
        saved.contains(&format!(
            "Saved 2 exchanges to {EXPORT_DIR}/wire-20261129-143000-000.jsonl"
        )),
        "{saved}"
    );
    snap("inspector_saved", |size| {
        let mut app = inspector_app(size);
        let commands = press(&mut app, &["x"]);
        let [Command::ExportInspector { exchanges, .. }] = commands.as_slice() else {
            panic!("one export command: {commands:?}");
        };
        app.update(Message::Exported {
            path: Path::new(EXPORT_DIR).join("wire-20261129-143000-000.jsonl"),
            exchanges: *exchanges,
            result: Ok(()),
        });
        app
    });
}

#[test]
fn a_failed_export_shows_the_error_and_an_empty_list_saves_nothing() {
    let mut app = inspector_app((80, 24));
    let commands = press(&mut app, &["x"]);
    let [
        Command::ExportInspector {
            path, exchanges, ..
        },
    ] = commands.as_slice()
    else {
        panic!("one export command: {commands:?}");
    };
    app.update(Message::Exported {
        path: path.clone(),
        exchanges: *exchanges,
        result: Err("Permission denied (os error 13)".into()),
    });
    let text = screen_text(&app, (160, 48));
    assert!(
        text.contains("Could not save to") && text.contains("Permission denied (os error 13)"),
        "{text}"
    );
    let mut empty = new_app((80, 24));
    press(&mut empty, &["w"]);
    assert!(press(&mut empty, &["x"]).is_empty());
    assert!(screen_text(&empty, (80, 24)).contains("Nothing to save: no exchange is listed."));
}

#[test]
fn every_screen_reaches_the_inspector_and_help_lists_its_keys() {
    let mut app = inspector_app((80, 24));
    press(&mut app, &["?"]);
    let help = screen_text(&app, (80, 24));
    assert!(help.contains("Keys: Wire inspector"), "{help}");
    assert!(
        help.contains("Save the listed exchanges to a file"),
        "{help}"
    );
    let keymap = Settings::default().keymap;
    let screens = [
        "Home",
        "Workspaces",
        "Pane",
        "Ask card",
        "New",
        "History",
        "Conversation",
    ];
    let contexts: Vec<_> = keymap
        .contexts()
        .filter(|context| screens.contains(&context.title()))
        .collect();
    assert_eq!(contexts.len(), screens.len(), "{contexts:?}");
    for context in contexts {
        assert!(
            keymap
                .help(context)
                .iter()
                .any(|(keys, what)| keys == "w" && what.starts_with("Wire inspector")),
            "{context:?}"
        );
    }
    // Only the inspector on screen needs a frame per exchange.
    let mut app = new_app((80, 24));
    assert!(!app.shows_exchanges());
    press(&mut app, &["w"]);
    assert!(app.shows_exchanges());
    press(&mut app, &["esc"]);
    assert!(matches!(app.nav().top(), Screen::Home(_)));
}

#[test]
fn the_ring_keeps_the_newest_thousand() {
    let mut app = new_app((80, 24));
    for n in 0..1005 {
        app.update(Message::Engine(FromEngine::Exchange(exchange(
            n,
            "demo",
            "GET",
            &format!("/pane/p-{n}/events"),
        ))));
    }
    assert_eq!(app.wire().len(), 1000);
    press(&mut app, &["w"]);
    let text = screen_text(&app, (80, 24));
    assert!(
        text.contains("1000 exchanges (the newest 1000 of 1005 kept)"),
        "{text}"
    );
    press(&mut app, &["g"]);
    assert!(screen_text(&app, (80, 24)).contains("/pane/p-5/events"));
}

// ----- notifications of a new ask --------------------------------------------------------------

fn decoded<T: serde::Serialize + serde::de::DeserializeOwned + wire::Sanitize>(value: &T) -> T {
    let bytes = serde_json::to_vec(value).expect("encodes");
    wire::decode::<T>(&bytes).expect("decodes").value
}

fn agent_change(app: &mut App, change: AgentChange) -> Vec<Command> {
    app.update(Message::Engine(FromEngine::Agent {
        agent: "demo".into(),
        change,
    }))
}

fn snapshot_of(world: &World) -> AgentChange {
    AgentChange::Snapshot {
        snapshot: Arc::new(decoded::<Snapshot>(&world.snapshot())),
        report: Report::default(),
    }
}

/// What the phone does when a new ask shows up under a `notify` setting.
fn announced(style: NotifyStyle) -> Vec<Command> {
    let mut world = worlds::build(WorldKind::Demo, 1, true, "collie-demo", NOW);
    let mut app = App::new(AppSetup {
        agents: vec![("demo".into(), false)],
        settings: Settings {
            notify: style,
            ..Settings::default()
        },
        bridges: Vec::new(),
        theme: theme(),
        now: NOW,
        size: (80, 24),
    });
    agent_change(
        &mut app,
        AgentChange::Hello(decoded::<Hello>(&world.hello(false))),
    );
    agent_change(&mut app, AgentChange::Status(AgentStatus::Ready));
    // The person is away: the terminal lost focus (a watched phone rings quietly).
    app.update(Message::Focus(false));
    // Asks open before the first snapshot ring nothing.
    let first = agent_change(&mut app, snapshot_of(&world));
    assert!(
        first
            .iter()
            .all(|c| !matches!(c, Command::Bell | Command::Notify(_)))
    );
    agent_change(&mut app, AgentChange::Synced(NOW));
    let pane = world
        .snapshot()
        .panes()
        .find(|(_, _, p)| p.title == "Inbox screen")
        .map(|(_, _, p)| p.id.clone())
        .expect("the pane");
    let ask = worlds::permission(
        "shell",
        json!({"command": "cargo publish\n\x1b[2J--dry-run"}),
    );
    world.open_ask(&pane, "call-new", ask, NOW);
    let mut commands = agent_change(&mut app, snapshot_of(&world));
    let view = decoded::<EventsReply>(&world.events(&pane, 0, None).expect("events"))
        .view
        .expect("a view");
    commands.extend(agent_change(&mut app, AgentChange::PaneView { pane, view }));
    commands
        .into_iter()
        .filter(|c| matches!(c, Command::Bell | Command::Notify(_)))
        .collect()
}

#[test]
fn a_new_ask_is_announced_as_the_notify_setting_says() {
    assert!(matches!(
        announced(NotifyStyle::Bell).as_slice(),
        [Command::Bell]
    ));
    assert!(announced(NotifyStyle::Off).is_empty());
    // The title holds the command's first line only, marked "…" (the card shows it all), so
    // the escape on its next line never reaches the notice (SPEC L1).
    let words = "demo: shell: cargo publish …";
    match announced(NotifyStyle::Osc9).as_slice() {
        [Command::Notify(notice)] => {
            assert_eq!(
                *notice,
                Notice {
                    protocol: DesktopProtocol::Osc9,
                    text: words.into()
                }
            );
            assert_eq!(notice.escape(), format!("\x1b]9;Collie: {words}\x07"));
        }
        other => panic!("one OSC 9 notice: {other:?}"),
    }
    match announced(NotifyStyle::Osc777).as_slice() {
        [Command::Notify(notice)] => {
            assert_eq!(
                notice.escape(),
                format!("\x1b]777;notify;Collie;{words}\x07")
            );
        }
        other => panic!("one OSC 777 notice: {other:?}"),
    }
    // `bell = false` in the config, with no `notify`, still means off: tests in config/.
}

// ----- the whole phone against the reference agent ---------------------------------------------

/// The test phone at 160x48 with its exports in `dir/state`.
fn start_phone(endpoint: Endpoint, tls: bool, dir: &Path) -> TestPhone {
    TestPhone::start("ref", endpoint, tls, dir, (160, 48), |app| {
        app.phone_mut().set_export_dir(dir.join("state"))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exchanges_show_in_the_inspector_after_a_few_polls_and_export_to_a_file() {
    let dir = common::temp_dir();
    let agent = common::socket_agent(dir.path(), &[]);
    let mut phone = start_phone(Endpoint::socket(agent.socket_path()), false, dir.path());
    phone
        .until("the inbox", |s| s.contains("Needs your answer (4)"))
        .await;
    phone.press(&["w"]).await;
    phone
        .until("the polls", |s| {
            s.contains("/hello")
                && s.contains("/snapshot")
                && s.contains("/events?after=")
                && s.contains("following the newest")
        })
        .await;
    assert!(phone.tui.app().wire().len() >= 3);
    phone.press(&["/"]).await;
    for c in ["h", "e", "l", "l", "o"] {
        phone.press(&[c]).await;
    }
    phone.press(&["enter", "enter"]).await;
    phone
        .until("the hello exchange", |s| {
            s.contains("Request     GET /session/v1/hello")
                && s.contains("Status      200 OK")
                && s.contains("\"service\": \"collie-durable\"")
        })
        .await;
    phone.press(&["esc", "x"]).await;
    phone
        .until("the saved note", |s| s.contains("Saved 1 exchange to"))
        .await;
    let saved: Vec<PathBuf> = std::fs::read_dir(dir.path().join("state"))
        .expect("the state folder")
        .map(|e| e.expect("an entry").path())
        .collect();
    let [file] = saved.as_slice() else {
        panic!("one export: {saved:?}");
    };
    let text = std::fs::read_to_string(file).expect("the export");
    let line: serde_json::Value = serde_json::from_str(text.trim_end()).expect("one JSON line");
    assert_eq!(line["path"], "/session/v1/hello");
    assert_eq!(line["agent"], "ref");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(file).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the bodies are the person's");
}

/// SPEC T2: the token rides in a header, and headers are never recorded, so neither the
/// inspector nor its export can show it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t2_the_token_never_shows_after_a_tls_exchange() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dir = common::temp_dir();
    let agent = common::https_agent(dir.path());
    let endpoint = TlsEndpoint::new(
        &agent.process.url,
        Token::new(&agent.token).expect("token"),
        Some(&agent.cert),
    )
    .expect("endpoint");
    let mut phone = start_phone(Endpoint::Tls(endpoint), true, dir.path());
    phone
        .until("the inbox", |s| s.contains("Needs your answer (4)"))
        .await;
    phone.press(&["w"]).await;
    phone
        .until("the polls over TLS", |s| {
            s.contains("/snapshot") && s.contains("/events?after=")
        })
        .await;
    let secret_words = [agent.token.as_str(), "Bearer", "bearer", "authorization"];
    let check = |text: &str, place: &str| {
        for secret in secret_words {
            assert!(!text.contains(secret), "{secret} in {place}:\n{text}");
        }
    };
    check(&phone.screen(), "the list");
    phone.press(&["g", "enter"]).await;
    phone
        .until("an exchange", |s| s.contains("Headers are not recorded"))
        .await;
    check(&phone.screen(), "an exchange");
    phone.press(&["esc", "x"]).await;
    phone
        .until("the saved note", |s| s.contains("exchanges to"))
        .await;
    let records: Vec<String> = std::fs::read_dir(dir.path().join("state"))
        .expect("the state folder")
        .map(|e| std::fs::read_to_string(e.expect("an entry").path()).expect("the export"))
        .collect();
    assert_eq!(records.len(), 1);
    assert!(records[0].lines().count() >= 3);
    check(&records[0], "the export");
}
