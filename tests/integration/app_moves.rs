//! Moving without going back and the news marks (docs/KEYS.md, SPEC A22, A23), on the whole
//! phone: drawn from the reference agent's demo world with its Chinese workspace and emoji
//! titles at a frozen clock (every frame the same on every run), then against a real reference
//! agent whose panes stream while the person is elsewhere, across a restart of the phone.

use std::sync::Arc;

use collie_phone::app::keymap::Chord;
use collie_phone::app::settings::Settings;
use collie_phone::app::{AppSetup, Command, Message};
use collie_phone::durable::world::World;
use collie_phone::engine::{AgentChange, AgentStatus, Engine, FromEngine};
use collie_phone::look::theme::Theme;
use collie_phone::model::pane_order;
use collie_phone::model::seen::News;
use collie_phone::rigs::WorldKind;
use collie_phone::rigs::worlds;
use collie_phone::screens::Screen;
use collie_phone::shell;
use collie_phone::shell::App;
use collie_phone::transport::Endpoint;
use collie_phone::wire::{self, EventsReply, Hello, Report, Snapshot};
use crossterm::event::KeyEvent;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use time::OffsetDateTime;
use time::macros::datetime;

use crate::common;
use common::phone::TestPhone;

const NOW: OffsetDateTime = datetime!(2026-11-29 14:30:00 UTC);
const SIZES: [(u16, u16); 3] = [(40, 12), (80, 24), (120, 40)];

fn decoded<T: serde::Serialize + serde::de::DeserializeOwned + wire::Sanitize>(value: &T) -> T {
    let bytes = serde_json::to_vec(value).expect("encodes");
    wire::decode::<T>(&bytes).expect("decodes").value
}

fn change(app: &mut App, change: AgentChange) {
    app.update(Message::Engine(FromEngine::Agent {
        agent: "demo".into(),
        change,
    }));
}

/// The phone after its first good poll of the demo world, every pane's chat read; `kept` is
/// what a phone before it kept of the panes the person saw.
fn phone_on(world: &World, size: (u16, u16), kept: Option<&str>) -> App {
    let mut app = App::new(AppSetup {
        agents: vec![("demo".into(), false)],
        settings: Settings::default(),
        bridges: Vec::new(),
        theme: Theme::builtin("dark").expect("the dark theme"),
        now: NOW,
        size,
    });
    if let Some(kept) = kept {
        app.recall_seen(kept);
    }
    change(
        &mut app,
        AgentChange::Hello(decoded::<Hello>(&world.hello(false))),
    );
    change(&mut app, AgentChange::Status(AgentStatus::Ready));
    let snapshot = decoded::<Snapshot>(&world.snapshot());
    let panes: Vec<String> = snapshot.panes().map(|(_, _, p)| p.id.clone()).collect();
    change(
        &mut app,
        AgentChange::Snapshot {
            snapshot: Arc::new(snapshot),
            report: Report::default(),
        },
    );
    for pane in panes {
        let reply = decoded::<EventsReply>(&world.events(&pane, 0, None).expect("events"));
        change(
            &mut app,
            AgentChange::PaneView {
                pane,
                view: reply.view.expect("a whole view"),
            },
        );
    }
    change(&mut app, AgentChange::Synced(NOW));
    app
}

fn press(app: &mut App, keys: &[&str]) -> Vec<Command> {
    keys.iter()
        .flat_map(|text| {
            let chord = Chord::parse(text).expect("a key");
            app.update(Message::Key(KeyEvent::new(chord.code, chord.modifiers)))
        })
        .collect()
}

fn draw(app: &App, (width, height): (u16, u16)) -> TestBackend {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal
        .draw(|frame| shell::frame::draw(frame, app))
        .expect("draws");
    terminal.backend().clone()
}

fn pane_id(world: &World, title: &str) -> String {
    world
        .snapshot()
        .panes()
        .find(|(_, _, p)| p.title == title)
        .map(|(_, _, p)| p.id.clone())
        .unwrap_or_else(|| panic!("no pane {title}"))
}

/// What a phone before kept: these panes seen when they were still empty, so each is news now.
fn kept_before(world: &World, titles: &[&str]) -> String {
    let panes: Vec<serde_json::Value> = titles
        .iter()
        .map(|title| serde_json::json!({"agent": "demo", "pane": pane_id(world, title)}))
        .collect();
    serde_json::json!({"version": 1, "panes": panes}).to_string()
}

/// The pane on top, as (agent, pane).
fn on_top(app: &App) -> Option<(String, String)> {
    match app.nav().top() {
        Screen::Pane(pane) => Some((pane.agent.clone(), pane.pane.clone())),
        _ => None,
    }
}

fn demo() -> World {
    worlds::build(WorldKind::Demo, 1, true, "collie-demo", NOW)
}

/// Three panes that changed since a phone before saw them, one CJK and one emoji title: each
/// marked on Workspaces, counted in its tab's row and on Home's agent row; opening one clears
/// its mark, and only its.
#[test]
fn a22_panes_with_news_are_marked_on_home_workspaces_and_their_tabs() {
    let world = demo();
    let marked = ["HTTP routes 🚀", "重构订单服务 🧾", "Docs ✍️"];
    for size in SIZES {
        let (w, h) = size;
        let mut app = phone_on(&world, size, Some(&kept_before(&world, &marked)));
        assert_eq!(app.seen().count("demo"), 3, "{:?}", app.seen());
        insta::assert_snapshot!(format!("marks_home_{w}x{h}"), draw(&app, size));
        press(&mut app, &["Enter"]);
        assert!(matches!(app.nav().top(), Screen::Layout(_)));
        insta::assert_snapshot!(format!("marks_workspaces_{w}x{h}"), draw(&app, size));
        // Alt-n: the first pane with news in the tree's order; its mark goes as it shows.
        press(&mut app, &["alt-n"]);
        let (agent, pane) = on_top(&app).expect("a pane on top");
        assert_eq!(pane, pane_id(&world, "HTTP routes 🚀"));
        assert_eq!(app.seen().news(&agent, &pane), None);
        assert_eq!(app.seen().count("demo"), 2);
        press(&mut app, &["Esc"]);
        insta::assert_snapshot!(
            format!("marks_workspaces_one_seen_{w}x{h}"),
            draw(&app, size)
        );
    }
}

/// Alt-↓ walks every pane in the tree's order, round the end, in place of the pane before (so
/// Esc goes back to where the walk began); Alt-↑ goes the other way; Alt-o goes back to where
/// the last move began, and again back, from Home too.
#[test]
fn a23_alt_down_walks_every_pane_in_order_and_alt_o_goes_back_where_you_were() {
    let world = demo();
    let mut app = phone_on(&world, (80, 24), None);
    let order: Vec<(String, String)> = pane_order::every_pane(app.agents())
        .into_iter()
        .map(|(a, p)| (a.to_string(), p.to_string()))
        .collect();
    assert!(order.len() >= 4, "{order:?}");
    for expected in &order {
        press(&mut app, &["alt-down"]);
        assert_eq!(on_top(&app).as_ref(), Some(expected));
        assert_eq!(app.nav().depth(), 2, "a move takes the place of the pane");
    }
    // Round the end, and back the other way.
    press(&mut app, &["alt-down"]);
    assert_eq!(on_top(&app).as_ref(), Some(&order[0]));
    press(&mut app, &["alt-up"]);
    assert_eq!(on_top(&app).as_ref(), order.last());
    // Back to where the last move began, and back again: two places take turns.
    press(&mut app, &["alt-o"]);
    assert_eq!(on_top(&app).as_ref(), Some(&order[0]));
    press(&mut app, &["alt-o"]);
    assert_eq!(on_top(&app).as_ref(), order.last());
    // Esc goes back to where the walk began; from Home, Alt-o opens the pane over it, and
    // again goes back down to Home.
    press(&mut app, &["Esc"]);
    assert!(matches!(app.nav().top(), Screen::Home(_)));
    press(&mut app, &["alt-o"]);
    assert_eq!(on_top(&app).as_ref(), Some(&order[0]));
    assert_eq!(app.nav().depth(), 2);
    press(&mut app, &["alt-o"]);
    assert!(matches!(app.nav().top(), Screen::Home(_)));
    // From a card, the next pane is the one after the card's pane, in the card's place.
    press(&mut app, &["ctrl-n"]);
    let card = match app.nav().top() {
        Screen::Card(card) => card.key.clone(),
        other => panic!("no card but {other:?}"),
    };
    press(&mut app, &["alt-down"]);
    let at = order
        .iter()
        .position(|(a, p)| *a == card.agent && *p == card.pane)
        .expect("the card's pane");
    assert_eq!(on_top(&app).as_ref(), Some(&order[(at + 1) % order.len()]));
    assert_eq!(app.nav().depth(), 2, "in the card's place");
    // Alt-o brings the card back, with its reading time: an Enter at once answers nothing.
    press(&mut app, &["alt-o"]);
    assert!(matches!(app.nav().top(), Screen::Card(c) if c.key == card));
    let sent = press(&mut app, &["Enter"]);
    assert!(
        !sent.iter().any(|c| matches!(c, Command::Engine(_))),
        "{sent:?}"
    );
}

/// A move from a pane's box lands in the next pane's box, the words typed stay in the first;
/// and the Enter of a person who typed on at once is held back on the pane the move landed
/// on: it was on its way before the pane showed (docs/KEYS.md, "Keys that act on an agent").
#[test]
fn a23_a_move_keeps_the_box_and_an_enter_on_its_way_sends_nothing() {
    let world = demo();
    let mut app = phone_on(&world, (80, 24), None);
    press(&mut app, &["alt-down", "i", "h", "i"]);
    let first = on_top(&app).expect("a pane");
    press(&mut app, &["alt-down"]);
    let second = on_top(&app).expect("a pane");
    assert_ne!(first, second);
    assert_eq!(
        app.draft(&first.0, &first.1).map(|d| d.text()),
        Some("hi".to_string())
    );
    press(&mut app, &["o", "k"]);
    assert_eq!(
        app.draft(&second.0, &second.1).map(|d| d.text()),
        Some("ok".to_string()),
        "typed into the next pane's box"
    );
    let sent = press(&mut app, &["Enter"]);
    assert!(
        !sent.iter().any(|c| matches!(c, Command::Engine(_))),
        "{sent:?}"
    );
    insta::assert_snapshot!("moves_enter_held_80x24", draw(&app, (80, 24)));
    // Nothing with news, and a lone move back says where it goes.
    press(&mut app, &["Esc", "Esc"]);
    press(&mut app, &["alt-n"]);
    assert!(matches!(app.nav().top(), Screen::Home(_)));
    let text = draw(&app, (80, 24)).to_string();
    assert!(text.contains("No other pane has news."), "{text}");
}

/// A pane that streamed while the person was elsewhere is marked; opening it clears it; the
/// phone quits and a new one, reading the same state folder, marks the panes not yet seen
/// again, against a real reference agent whose world plays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a22_marks_of_panes_not_yet_seen_outlive_a_restart_of_the_phone() {
    let dir = common::temp_dir();
    let agent = common::AgentProcess::start(&[
        "agent",
        "--socket",
        dir.path()
            .join("run")
            .join("agent.sock")
            .to_str()
            .expect("utf-8"),
        "--speed",
        "6",
    ]);
    let seen_file = dir.path().join("state").join("seen.json");
    let start = |seen_file: &std::path::Path| {
        let engine = Engine::start(
            vec![collie_phone::engine::AgentSpec {
                name: "demo".into(),
                endpoint: Endpoint::socket(agent.socket_path()),
            }],
            &dir.path().join("intents.jsonl"),
        )
        .expect("an engine");
        TestPhone::on_engine(
            engine,
            vec![("demo".into(), false)],
            Vec::new(),
            (120, 40),
            |_| {},
        )
        .keeping_seen_in(seen_file.to_path_buf())
    };
    let chat_grew = |phone: &TestPhone| -> Vec<String> {
        let app = phone.tui.app();
        pane_order::every_pane(app.agents())
            .into_iter()
            .filter(|(a, p)| app.seen().news(a, p) == Some(News::ChatGrew))
            .map(|(_, p)| p.to_string())
            .collect()
    };
    let mut phone = start(&seen_file);
    phone
        .until("a pane that streamed since it was first read", |s| {
            s.contains("with news")
        })
        .await;
    let marked = |phone: &TestPhone| -> Vec<String> {
        let app = phone.tui.app();
        pane_order::every_pane(app.agents())
            .into_iter()
            .filter(|(a, p)| app.seen().news(a, p).is_some())
            .map(|(_, p)| p.to_string())
            .collect()
    };
    let before = marked(&phone);
    assert!(!before.is_empty());
    // Alt-n opens the first; its mark goes as it shows.
    phone.press(&["alt-n"]).await;
    let (agent_name, opened) = on_top(phone.tui.app()).expect("a pane on top");
    assert!(before.contains(&opened), "{opened} of {before:?}");
    assert_eq!(phone.tui.app().seen().news(&agent_name, &opened), None);
    // Home, and a pane whose chat grew while the person was elsewhere; then quit: what was
    // seen is kept.
    phone.press(&["Esc"]).await;
    let mut grew = Vec::new();
    for _ in 0..200 {
        grew = chat_grew(&phone);
        if !grew.is_empty() {
            break;
        }
        phone.run_for(std::time::Duration::from_millis(100)).await;
    }
    assert!(!grew.is_empty(), "no chat grew off screen");
    phone.press(&["q"]).await;
    let kept = std::fs::read_to_string(&seen_file).expect("seen.json kept at quit");
    assert!(kept.contains(&opened), "{kept}");
    drop(phone);
    // A new phone: once it read the chats, every pane not seen is marked again.
    let mut again = start(&seen_file);
    again
        .until("the marks back on Home", |s| s.contains("with news"))
        .await;
    let mut back = Vec::new();
    for _ in 0..50 {
        back = marked(&again);
        if grew.iter().all(|p| back.contains(p)) {
            break;
        }
        again.run_for(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        grew.iter().all(|p| back.contains(p)),
        "grown before the restart: {grew:?}; marked after: {back:?}"
    );
}
