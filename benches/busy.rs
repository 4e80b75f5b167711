//! A busy phone (docs/KEYS.md, "The ask that needs you first"): 32 agents, 8 of them serving
//! `--world big` (50 open asks each, 400 in all) and 24 `--world empty`, each an in-process
//! reference agent on its own private socket, read by the real engine into the real `App`
//! until every big agent's asks are in. The agents and the engine are then stopped, so nothing
//! else runs while frames are timed.
//!
//! Rows, at 200x60 (the frame budget of benches/frame.rs: under 4 ms):
//! - Home with 32 agents and 400 asks, steady (warm, the last frame on the terminal) and first
//!   (a fresh terminal);
//! - Ctrl-N on Home: the key that opens the ask that needs the person first across every agent,
//!   and the frame of its card, timed together (goal: within one frame); Esc goes back to Home
//!   between tries, untimed.

#[path = "support/world_agent.rs"]
mod world_agent;

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use time::OffsetDateTime;

use collie_phone::app::notify::NotifyStyle;
use collie_phone::app::settings::Settings;
use collie_phone::app::{AppSetup, Command, Message};
use collie_phone::engine::{AgentSpec, Engine};
use collie_phone::look::theme::Theme;
use collie_phone::rigs::WorldKind;
use collie_phone::screens::Screen;
use collie_phone::shell;
use collie_phone::shell::App;
use collie_phone::transport::Endpoint;

const WIDTH: u16 = 200;
const HEIGHT: u16 = 60;
const BIG_AGENTS: usize = 8;
const EMPTY_AGENTS: usize = 24;
/// The open asks of one `--world big`.
const BIG_ASKS: usize = 50;
const LOAD_DEADLINE: Duration = Duration::from_secs(180);

fn name(index: usize) -> String {
    if index < BIG_AGENTS {
        format!("big-{index}")
    } else {
        format!("empty-{index}")
    }
}

/// The phone's state once it has read every agent's asks.
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
    let mut app = App::new(AppSetup {
        agents: names,
        settings: Settings {
            notify: NotifyStyle::Off,
            ..Settings::default()
        },
        bridges: Vec::new(),
        theme: Theme::builtin("dark").expect("the dark theme"),
        now: OffsetDateTime::now_utc(),
        size: (WIDTH, HEIGHT),
    });
    let deadline = tokio::time::Instant::now() + LOAD_DEADLINE;
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

fn draw(terminal: &mut Terminal<TestBackend>, app: &App) {
    terminal
        .draw(|frame| shell::frame::draw(frame, app))
        .expect("draws");
}

fn new_terminal() -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(WIDTH, HEIGHT)).expect("a terminal")
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
    let home = terminal.backend().to_string();
    let asks = BIG_AGENTS * BIG_ASKS;
    assert!(
        home.contains(&format!("Needs your answer ({asks})")),
        "home shows every ask:\n{home}"
    );

    let mut group = c.benchmark_group("busy_200x60_32_agents_400_asks");
    group.bench_function("home, steady", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let started = Instant::now();
                draw(&mut terminal, black_box(&app));
                spent += started.elapsed();
            }
            spent
        })
    });
    group.bench_function("home, first", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let mut fresh = new_terminal();
                let started = Instant::now();
                draw(&mut fresh, black_box(&app));
                spent += started.elapsed();
            }
            spent
        })
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

criterion_group!(benches, busy);
criterion_main!(benches);
