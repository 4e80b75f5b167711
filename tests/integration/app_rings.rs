//! The rings on the phone's screen (docs/CONFIG.md, "Rings"; docs/KEYS.md, `Z`): snapshots of
//! the rings over Home and of the title bar's "muted until", at 40x12, 80x24 and 120x40, drawn
//! from the reference agent's demo world (with its Chinese workspace) at a frozen clock; a mute
//! until a typed time; and a failing notify command said once on the status line.

use std::sync::Arc;

use collie_phone::app::keymap::Chord;
use collie_phone::app::settings::Settings;
use collie_phone::app::{AppSetup, Message};
use collie_phone::durable::world::World;
use collie_phone::engine::push::PushFailure;
use collie_phone::engine::{AgentChange, AgentStatus, FromEngine};
use collie_phone::look::theme::Theme;
use collie_phone::model::rings::Rules;
use collie_phone::rigs::WorldKind;
use collie_phone::rigs::worlds;
use collie_phone::shell;
use collie_phone::shell::App;
use collie_phone::wire::{self, Hello, Report, Snapshot};
use crossterm::event::KeyEvent;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

const NOW: OffsetDateTime = datetime!(2026-11-29 14:30:00 UTC);
const SIZES: [(u16, u16); 3] = [(40, 12), (80, 24), (120, 40)];

fn decoded<T: serde::Serialize + serde::de::DeserializeOwned + wire::Sanitize>(value: &T) -> T {
    let bytes = serde_json::to_vec(value).expect("encodes");
    wire::decode::<T>(&bytes).expect("decodes").value
}

fn key(text: &str) -> Message {
    let chord = Chord::parse(text).expect("a key");
    Message::Key(KeyEvent::new(chord.code, chord.modifiers))
}

fn press(app: &mut App, keys: &[&str]) {
    for k in keys {
        app.update(key(k));
    }
}

fn agent_change(app: &mut App, change: AgentChange) {
    app.update(Message::Engine(FromEngine::Agent {
        agent: "demo".into(),
        change,
    }));
}

/// The phone on Home after its first good poll of the demo world, with a notify command.
fn phone((width, height): (u16, u16)) -> App {
    let world: World = worlds::build(WorldKind::Demo, 1, true, "collie-demo", NOW);
    let mut app = App::new(AppSetup {
        agents: vec![("demo".into(), false)],
        settings: Settings {
            rings: Rules {
                command: vec!["ntfy".into(), "publish".into(), "我的主题".into()],
                ..Rules::default()
            },
            ..Settings::default()
        },
        bridges: Vec::new(),
        theme: Theme::builtin("dark").expect("the dark theme"),
        now: NOW,
        size: (width, height),
    });
    agent_change(
        &mut app,
        AgentChange::Hello(decoded::<Hello>(&world.hello(false))),
    );
    agent_change(&mut app, AgentChange::Status(AgentStatus::Ready));
    agent_change(
        &mut app,
        AgentChange::Snapshot {
            snapshot: Arc::new(decoded::<Snapshot>(&world.snapshot())),
            report: Report::default(),
        },
    );
    agent_change(&mut app, AgentChange::Synced(NOW - Duration::seconds(2)));
    app
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

/// Z over Home: the mute's rows, each setting with its value, the person's command.
#[test]
fn the_rings_over_home() {
    snap("rings_overlay", |size| {
        let mut app = phone(size);
        press(&mut app, &["Z"]);
        app
    });
}

/// Muted for 30 minutes from 14:30: the title bar says until when, Home still counts every
/// ask, and the rings say it on their Unmute row.
#[test]
fn muted_for_half_an_hour_the_title_says_until_when() {
    snap("rings_muted_title", |size| {
        let mut app = phone(size);
        press(&mut app, &["Z", "Enter"]);
        app
    });
    let mut app = phone((80, 24));
    press(&mut app, &["Z", "Enter"]);
    let title = screen_text(&app, (80, 24));
    assert!(title.contains("muted until 15:00"), "{title}");
    assert!(title.contains("4 asks need your answer"), "{title}");
    press(&mut app, &["Z"]);
    let rings = screen_text(&app, (80, 24));
    assert!(
        rings
            .lines()
            .any(|l| l.contains("Unmute") && l.contains("until 15:00")),
        "{rings}"
    );
}

/// The rings while muted, a mute that holds expiring asks too, and the new ask's row switched
/// to quiet: each row says its value.
#[test]
fn the_rings_say_what_was_switched() {
    snap("rings_overlay_switched", |size| {
        let mut app = phone(size);
        press(&mut app, &["Z", "Enter", "Z", "j", "j", "j", "Enter"]);
        press(&mut app, &["j", "j", "Enter"]);
        app
    });
}

/// "Mute until a time…" takes a typed time of day: the next 09:05 is tomorrow's; a word that
/// is no time is said so, and nothing is muted.
#[test]
fn a_mute_until_a_typed_time_and_a_word_that_is_none() {
    let mut app = phone((80, 24));
    press(&mut app, &["Z", "j", "Enter"]);
    assert!(screen_text(&app, (80, 24)).contains("Mute until"));
    press(&mut app, &["s", "o", "o", "n", "Enter"]);
    let said = screen_text(&app, (80, 24));
    assert!(said.contains("is not a time of day"), "{said}");
    assert!(!said.contains("muted until"), "{said}");
    press(&mut app, &["Z", "j", "Enter", "9", ":", "0", "5", "Enter"]);
    let muted = screen_text(&app, (80, 24));
    assert!(muted.contains("muted until 09:05"), "{muted}");
    // A day later the mute is over.
    app.update(Message::Tick(NOW + Duration::hours(19)));
    assert!(!screen_text(&app, (80, 24)).contains("muted until"));
}

/// A notify command that cannot start is said on the status line the first time, and not at
/// its next run: the log has each one.
#[test]
fn a_missing_notify_command_is_said_once_on_the_status_line() {
    let mut app = phone((80, 24));
    let sentence = PushFailure::NotStarted {
        program: "/nonexistent/collie-notify".into(),
        why: "No such file or directory (os error 2)".into(),
    }
    .sentence();
    app.update(Message::Pushed {
        failure: Some(sentence.clone()),
    });
    let first = screen_text(&app, (80, 24));
    assert!(
        first.contains("/nonexistent/collie-notify could not start"),
        "{first}"
    );
    // The message's time runs out; the next run fails the same way.
    app.update(Message::Tick(NOW + Duration::seconds(30)));
    assert!(!screen_text(&app, (80, 24)).contains("could not start"));
    app.update(Message::Pushed {
        failure: Some(sentence),
    });
    app.update(Message::Pushed { failure: None });
    let again = screen_text(&app, (80, 24));
    assert!(!again.contains("could not start"), "said once: {again}");
}
