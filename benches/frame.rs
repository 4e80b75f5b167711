//! One full frame at 200x60 (goal: under 4 ms) drawn from what the phone really holds after
//! reading `--world big` (256 panes, 50 open asks in one pane, 2000 items in another, some of
//! them 64 KiB, with markdown and code): an in-process reference agent serves the big world,
//! the real engine reads it over the private socket, and its updates are fed into the real
//! `App` until every pane's chat is in. The agent and the engine are then stopped, so nothing
//! else runs while frames are timed.
//!
//! Three screens: home with its inbox, the 2000-item pane following its newest item, and the
//! same pane scrolled to its middle. Each is timed twice: "steady", a redraw with the chat
//! layout memo warm and the terminal holding the last frame (every tick and keystroke), and
//! "first", with the memo emptied and a fresh terminal (opening the pane, a resize, a theme
//! change), so every visible entry is laid out and every cell written.
//!
//! Then a busy phone: 32 agents (8 `--world big`, 50 open asks each, and 24 `--world empty`),
//! each an in-process agent on its own socket, read until every ask is in. Home is timed as
//! above, and Ctrl-N on Home (the key to the ask that needs the person first across every
//! agent) with its card's frame, together: the goal is one frame. Esc goes back between
//! tries, untimed.

#[path = "support/quiet_app.rs"]
mod quiet_app;
#[path = "support/world_agent.rs"]
mod world_agent;

use quiet_app::quiet_app;

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use time::OffsetDateTime;

use collie_phone::app::{Command, Message};
use collie_phone::engine::{AgentSpec, Engine};
use collie_phone::look::chat_scroll::ViewStart;
use collie_phone::rigs::WorldKind;
use collie_phone::rigs::worlds::{BIG_LONG_PANE, BIG_LONG_PANE_ITEMS};
use collie_phone::screens::Screen;
use collie_phone::shell;
use collie_phone::shell::App;
use collie_phone::transport::Endpoint;

const WIDTH: u16 = 200;
const HEIGHT: u16 = 60;
const AGENT: &str = "big";
/// The busy phone (docs/KEYS.md, "The ask that needs you first"): 32 agents, 8 serving
/// `--world big` (50 open asks each, 400 in all) and 24 `--world empty`.
const BIG_AGENTS: usize = 8;
const EMPTY_AGENTS: usize = 24;
/// The open asks of one `--world big`.
const BIG_ASKS: usize = 50;
const BUSY_LOAD_DEADLINE: Duration = Duration::from_secs(180);

/// How long the engine may take to read the whole big world (a debug build in `cargo test`).
const LOAD_DEADLINE: Duration = Duration::from_secs(120);

/// The phone's state once it has read all of the big world, and the id of its long pane.
fn big_world_app() -> (App, String) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::Builder::new()
        .prefix("cp-frame")
        .tempdir_in("/tmp")
        .expect("a temp folder");
    let socket = dir.path().join("run").join("agent.sock");
    let (stop_agent, stopped) = tokio::sync::oneshot::channel::<()>();
    let agent_task = world_agent::start(&runtime, &socket, WorldKind::Big, stopped);
    let loaded = runtime.block_on(read_the_world(&socket, dir.path()));
    let _ = stop_agent.send(());
    let _ = runtime.block_on(agent_task);
    // The engine's sessions go with the runtime: nothing polls while frames are timed.
    runtime.shutdown_timeout(Duration::from_secs(1));
    loaded
}

/// Runs the engine against the agent, feeding its updates into a fresh app (and the app's
/// commands back), until the agent is ready and every pane's chat has been read.
async fn read_the_world(socket: &Path, dir: &Path) -> (App, String) {
    let mut engine = Engine::start(
        vec![AgentSpec {
            name: AGENT.into(),
            endpoint: Endpoint::socket(socket.to_path_buf()),
        }],
        &dir.join("intents.jsonl"),
    )
    .expect("the engine starts");
    let mut app = quiet_app(vec![(AGENT.into(), false)], (WIDTH, HEIGHT));
    let deadline = tokio::time::Instant::now() + LOAD_DEADLINE;
    loop {
        if let Some(pane) = everything_read(&app) {
            app.update(Message::Tick(OffsetDateTime::now_utc()));
            return (app, pane);
        }
        let update = tokio::time::timeout_at(deadline, engine.updates.recv())
            .await
            .expect("the big world is read in time")
            .expect("the engine runs");
        for command in app.update(Message::Engine(update)) {
            if let Command::Engine(command) = command {
                let _ = engine.commands.send(command);
            }
        }
    }
}

/// The long pane's id once the agent is ready, its snapshot is in and every pane's chat with
/// it (the long one whole).
fn everything_read(app: &App) -> Option<String> {
    let agent = app.agents().get(AGENT)?;
    if !agent.status.is_ready() {
        return None;
    }
    let panes = agent.panes();
    if panes.is_empty()
        || panes
            .iter()
            .any(|p| p.log.is_none_or(|l| l.state.is_none()))
    {
        return None;
    }
    let long = panes.iter().find(|p| p.pane.title == BIG_LONG_PANE)?;
    let read = long.log.map_or(0, |l| l.entries.len());
    (read == BIG_LONG_PANE_ITEMS).then(|| long.pane.id.clone())
}

fn press(app: &mut App, code: KeyCode) {
    app.update(Message::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// The index of the first entry the pane screen shows, or None while it follows the newest.
fn top_entry(app: &App) -> Option<usize> {
    let Screen::Pane(screen) = app.nav().top() else {
        return None;
    };
    let log = app.agents().get(&screen.agent)?.panes.get(&screen.pane)?;
    match screen.scroll.start(&log.entries) {
        ViewStart::Bottom => None,
        ViewStart::At { index, .. } => Some(index),
    }
}

fn draw(terminal: &mut Terminal<TestBackend>, app: &App) {
    terminal
        .draw(|frame| shell::frame::draw(frame, app))
        .expect("draws");
}

fn new_terminal() -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(WIDTH, HEIGHT)).expect("a terminal")
}

fn screen_text(terminal: &Terminal<TestBackend>) -> String {
    terminal.backend().to_string()
}

/// Times `iters` frames of the app as it is now: steady (warm memo, the last frame on the
/// terminal) or first (empty memo, blank terminal).
fn frames<'a>(app: &'a mut App, first: bool) -> impl FnMut(u64) -> Duration + use<'a> {
    let mut terminal = new_terminal();
    draw(&mut terminal, app);
    move |iters| {
        let mut spent = Duration::ZERO;
        for _ in 0..iters {
            if first {
                app.phone_mut().forget_chat_layout();
                terminal = new_terminal();
            }
            let started = Instant::now();
            draw(&mut terminal, black_box(&*app));
            spent += started.elapsed();
        }
        spent
    }
}

fn frame(c: &mut Criterion) {
    let (mut app, long_pane) = big_world_app();

    let mut terminal = new_terminal();
    draw(&mut terminal, &app);
    let home = screen_text(&terminal);
    assert!(
        home.contains("Needs your answer"),
        "home shows the inbox:\n{home}"
    );

    let mut group = c.benchmark_group("frame_200x60_big_world");
    group.bench_function("home with the inbox, steady", |b| {
        b.iter_custom(frames(&mut app, false))
    });
    group.bench_function("home with the inbox, first", |b| {
        b.iter_custom(frames(&mut app, true))
    });

    app.open_pane(AGENT, &long_pane);
    let mut terminal = new_terminal();
    draw(&mut terminal, &app);
    let bottom = screen_text(&terminal);
    assert!(
        bottom.contains(&format!("{}: ", BIG_LONG_PANE_ITEMS - 1)),
        "the pane shows its newest item:\n{bottom}"
    );
    group.bench_function("2000-item pane at the bottom, steady", |b| {
        b.iter_custom(frames(&mut app, false))
    });
    group.bench_function("2000-item pane at the bottom, first", |b| {
        b.iter_custom(frames(&mut app, true))
    });

    let middle = BIG_LONG_PANE_ITEMS / 2;
    while top_entry(&app).is_none_or(|index| index > middle) {
        press(&mut app, KeyCode::PageUp);
    }
    let mut terminal = new_terminal();
    draw(&mut terminal, &app);
    let shown = screen_text(&terminal);
    let index = top_entry(&app).expect("scrolled");
    assert!(
        (middle - 20..=middle).contains(&index),
        "scrolled to the middle, at entry {index}:\n{shown}"
    );
    group.bench_function("2000-item pane in the middle, steady", |b| {
        b.iter_custom(frames(&mut app, false))
    });
    group.bench_function("2000-item pane in the middle, first", |b| {
        b.iter_custom(frames(&mut app, true))
    });
    group.finish();
}

fn name(index: usize) -> String {
    if index < BIG_AGENTS {
        format!("big-{index}")
    } else {
        format!("empty-{index}")
    }
}

/// The busy phone's state once it has read every agent's asks; the agents and the engine are
/// stopped then, as for the big world.
fn busy_app() -> App {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::Builder::new()
        .prefix("cp-busy")
        .tempdir_in("/tmp")
        .expect("a temp folder");
    let mut stops = Vec::new();
    let mut tasks = Vec::new();
    let mut specs = Vec::new();
    for index in 0..BIG_AGENTS + EMPTY_AGENTS {
        let kind = if index < BIG_AGENTS {
            WorldKind::Big
        } else {
            WorldKind::Empty
        };
        let socket = dir.path().join(format!("run-{index}")).join("agent.sock");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tasks.push(world_agent::start(&runtime, &socket, kind, stopped));
        stops.push(stop);
        specs.push(AgentSpec {
            name: name(index),
            endpoint: Endpoint::socket(socket),
        });
    }
    let app = runtime.block_on(read_the_asks(specs, dir.path()));
    for stop in stops {
        let _ = stop.send(());
    }
    for task in tasks {
        let _ = runtime.block_on(task);
    }
    runtime.shutdown_timeout(Duration::from_secs(1));
    app
}

/// Runs the engine against the agents, feeding its updates into a fresh app (and the app's
/// commands back), until every agent is ready and every big one's asks are in.
async fn read_the_asks(specs: Vec<AgentSpec>, dir: &Path) -> App {
    let names: Vec<(String, bool)> = specs.iter().map(|s| (s.name.clone(), false)).collect();
    let mut engine = Engine::start(specs, &dir.join("intents.jsonl")).expect("the engine starts");
    let mut app = quiet_app(names, (WIDTH, HEIGHT));
    let deadline = tokio::time::Instant::now() + BUSY_LOAD_DEADLINE;
    loop {
        if all_asks_in(&app) {
            app.update(Message::Tick(OffsetDateTime::now_utc()));
            return app;
        }
        let update = tokio::time::timeout_at(deadline, engine.updates.recv())
            .await
            .expect("every agent is read in time")
            .expect("the engine runs");
        for command in app.update(Message::Engine(update)) {
            if let Command::Engine(command) = command {
                let _ = engine.commands.send(command);
            }
        }
    }
}

fn all_asks_in(app: &App) -> bool {
    (0..BIG_AGENTS + EMPTY_AGENTS).all(|index| {
        let Some(agent) = app.agents().get(&name(index)) else {
            return false;
        };
        let asks: usize = agent.panes().iter().map(|p| p.pane.asks.len()).sum();
        agent.status.is_ready() && (index >= BIG_AGENTS || asks >= BIG_ASKS)
    })
}

fn key(app: &mut App, code: KeyCode, modifiers: KeyModifiers) {
    app.update(Message::Key(KeyEvent::new(code, modifiers)));
}

fn on_a_card(app: &App) -> bool {
    matches!(app.nav().top(), Screen::Card(_))
}

fn busy(c: &mut Criterion) {
    let mut app = busy_app();
    let mut terminal = new_terminal();
    draw(&mut terminal, &app);
    let home = screen_text(&terminal);
    let asks = BIG_AGENTS * BIG_ASKS;
    assert!(
        home.contains(&format!("Needs your answer ({asks})")),
        "home shows every ask:\n{home}"
    );

    let mut group = c.benchmark_group("frame_200x60_32_agents_400_asks");
    group.bench_function("home with the inbox, steady", |b| {
        b.iter_custom(frames(&mut app, false))
    });
    group.bench_function("home with the inbox, first", |b| {
        b.iter_custom(frames(&mut app, true))
    });
    group.bench_function("ctrl-n on home and its card's frame", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                draw(&mut terminal, &app);
                let started = Instant::now();
                key(&mut app, KeyCode::Char('n'), KeyModifiers::CONTROL);
                draw(&mut terminal, black_box(&app));
                spent += started.elapsed();
                assert!(on_a_card(&app), "ctrl-n opens a card");
                key(&mut app, KeyCode::Esc, KeyModifiers::NONE);
            }
            spent
        })
    });
    group.finish();
}

criterion_group!(benches, frame, busy);
criterion_main!(benches);
