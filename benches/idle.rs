//! Idle polling cost (SPEC S7; docs/ENGINE.md, "Figures"): the phone's CPU while nothing
//! changes on any agent, whether its panes are quiet or busy.
//!
//! Each reference agent is its own process. A quiet row starts it from a saved world of quiet
//! panes (no turn running, no open ask, three chat items each) written by this bench
//! (`collie-phone agent --world empty --speed 0 --state DIR`); a busy row plays the demo world
//! frozen (`--world demo --speed 0`: each agent holds open asks and turns left running, and
//! nothing changes). The engine runs here as the phone runs it: the person is watching (the
//! fastest cadence, SPEC S7) and the home screen is on screen. Its updates go to the real `App`,
//! which draws a frame (120x40, to a test backend) when the runner would, and on a tick each
//! second: what `App::redraws` says can change the screen. `IDLE_REDRAW=all` draws after every
//! update but exchanges instead, as the runner did before it asked, for a comparison. Over a
//! fixed wall time the bench reads this process's user+system CPU (getrusage) and each agent
//! child's (/proc/PID/stat), and prints them as % of one core, with the cost per pane, the
//! requests per second the engine made and the frames per second drawn.
//!
//! Figures: 1, 8 and 32 agents × 10 quiet panes, 1 agent × 256 quiet panes, and 1 and 32 busy
//! demo agents (the goals: 32 × 10 quiet and 32 busy at most 1 % of a core, 1 × 256 at most
//! 0.5 %, and at most 1.5 requests a second per agent on the busy rows).
//!
//! Last, the phone as a person runs it: the binary itself in tmux (120x40, a private tmux
//! server, its own config and state folders) on 32 frozen demo agents, its process's CPU read
//! from /proc once the log says every agent was reached (the goal: at most 1 % of a core).
//! This row holds what the App alone leaves out: the runner, crossterm's input thread, the
//! tokio runtime's wakes, the log and the escapes written to a terminal. Without tmux the row
//! says it was not measured.
//!
//! `cargo bench --bench idle` (or the bench binary run with `--full`) measures 33 s per row in
//! the bench profile. `cargo test --all-targets` runs it without either flag: a smoke run of
//! small rows for one second each, so the bench cannot rot; its figures mean nothing then and are
//! labelled so. `IDLE_SECONDS` overrides the wall time of a row.
//!
//! Side by side with another build (docs/ENGINE.md's before and after): `IDLE_PHONE=PATH` runs
//! that phone binary in the terminal row (the agents stay this build's, so both phones face the
//! same peers), and `IDLE_TERMINAL_ONLY=1` skips the App's rows, so runs can be interleaved.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[path = "support/quiet_app.rs"]
mod quiet_app;

use serde_json::{Value, json};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use time::OffsetDateTime;

use collie_phone::app::{Command as AppCommand, Message};
use collie_phone::engine::{AgentChange, AgentSpec, Engine, FromEngine, ToEngine};
use collie_phone::shell;
use collie_phone::shell::App;
use collie_phone::transport::Endpoint;
use quiet_app::quiet_app;

const BIN: &str = env!("CARGO_BIN_EXE_collie-phone");
/// The most an agent may take to print `listening`, and the engine to read every pane once.
const START_DEADLINE: Duration = Duration::from_secs(60);
const GOAL_32X10_PERCENT: f64 = 1.0;
const GOAL_1X256_PERCENT: f64 = 0.5;
const GOAL_BUSY_32_PERCENT: f64 = 1.0;
/// The phone binary in a terminal on 32 frozen demo agents, as a person runs it.
const GOAL_TERMINAL_PERCENT: f64 = 1.0;
/// Requests a second per agent where nothing changes: the snapshot once a poll (docs/WIRE.md § 1.5).
const GOAL_BUSY_REQUESTS_PER_AGENT: f64 = 1.5;

/// One row of the table: how many agents, how many panes each (quiet rows), or frozen demo
/// agents (busy rows, whose panes the demo lays out).
#[derive(Debug, Clone, Copy)]
struct Row {
    agents: usize,
    panes: usize,
    busy: bool,
}

const fn quiet(agents: usize, panes: usize) -> Row {
    Row {
        agents,
        panes,
        busy: false,
    }
}

const fn busy(agents: usize) -> Row {
    Row {
        agents,
        panes: 0,
        busy: true,
    }
}

fn main() {
    let full = std::env::args().any(|arg| arg == "--full" || arg == "--bench");
    if !full {
        println!("idle: test mode (no --full): a smoke run; these figures are not the bench's");
    }
    let rows: &[Row] = if full {
        &[
            quiet(1, 10),
            quiet(8, 10),
            quiet(32, 10),
            quiet(1, 256),
            busy(1),
            busy(32),
        ]
    } else {
        &[quiet(2, 10), quiet(1, 256), busy(2)]
    };
    let seconds = match std::env::var("IDLE_SECONDS") {
        Ok(text) => text
            .parse::<u64>()
            .ok()
            .filter(|s| *s > 0)
            .unwrap_or_else(|| panic!("IDLE_SECONDS={text} is not a whole number of seconds")),
        // At least the 30 s background interval of the socket (SPEC S7), so a row holds the
        // reads of quiet panes as often as they come.
        Err(_) if full => 33,
        Err(_) => 1,
    };
    let settle = if full {
        Duration::from_secs(3)
    } else {
        Duration::from_millis(300)
    };
    println!(
        "{:>6} {:>6} {:>6} {:>7} {:>12} {:>14} {:>12} {:>12} {:>9} {:>14}",
        "agents",
        "panes",
        "kind",
        "seconds",
        "phone %cpu",
        "per pane %cpu",
        "requests/s",
        "per agent",
        "frames/s",
        "agents %cpu"
    );
    let terminal_only = std::env::var("IDLE_TERMINAL_ONLY").is_ok_and(|v| v == "1");
    for row in rows.iter().filter(|_| !terminal_only) {
        let figures = measure(*row, Duration::from_secs(seconds), settle);
        let per_agent = figures.requests_per_second / row.agents as f64;
        let goal = match (row.busy, row.agents, row.panes) {
            (false, 32, 10) => Some(GOAL_32X10_PERCENT),
            (false, 1, 256) => Some(GOAL_1X256_PERCENT),
            (true, 32, _) => Some(GOAL_BUSY_32_PERCENT),
            _ => None,
        };
        let mut verdict = match (full, goal) {
            (false, _) => String::from("not judged in test mode"),
            (true, Some(goal)) if figures.engine_percent <= goal => format!("goal ≤ {goal} %: met"),
            (true, Some(goal)) => format!("goal ≤ {goal} %: NOT met"),
            (true, None) => String::new(),
        };
        if full && row.busy {
            let met = if per_agent <= GOAL_BUSY_REQUESTS_PER_AGENT {
                "met"
            } else {
                "NOT met"
            };
            verdict.push_str(&format!(
                "{}≤ {GOAL_BUSY_REQUESTS_PER_AGENT} requests/s per agent: {met}",
                if verdict.is_empty() { "" } else { "; " }
            ));
        }
        println!(
            "{:>6} {:>6} {:>6} {:>7} {:>12.3} {:>14.5} {:>12.1} {:>12.2} {:>9.1} {:>14.3}  {verdict}",
            row.agents,
            figures.panes,
            if row.busy { "busy" } else { "quiet" },
            seconds,
            figures.engine_percent,
            figures.engine_percent / figures.panes.max(1) as f64,
            figures.requests_per_second,
            per_agent,
            figures.frames_per_second,
            figures.agents_percent,
        );
    }
    // The whole phone as a person runs it: the release binary in a real terminal, with its
    // runner, terminal input, log and frames written as escapes, not the App alone.
    let agents = if full { 32 } else { 2 };
    let phone = std::env::var("IDLE_PHONE").unwrap_or_else(|_| BIN.to_string());
    match measure_in_terminal(&phone, agents, Duration::from_secs(seconds), settle) {
        Some(percent) => {
            let verdict = if !full {
                String::from("not judged in test mode")
            } else if percent <= GOAL_TERMINAL_PERCENT {
                format!("goal ≤ {GOAL_TERMINAL_PERCENT} %: met")
            } else {
                format!("goal ≤ {GOAL_TERMINAL_PERCENT} %: NOT met")
            };
            let which = if phone == BIN {
                String::from("the phone binary")
            } else {
                format!("the phone {phone}")
            };
            println!(
                "terminal: {which} in tmux 120x40 on {agents} frozen demo agents, {seconds} s: {percent:.3} % of a core  {verdict}"
            );
        }
        None => {
            println!("terminal: not measured: tmux is not installed (bash .ci/run installs it)")
        }
    }
}

/// The `phone` binary in tmux (a private server, 120x40) on `agents` frozen demo agents: its
/// process's user+system CPU over `wall`, as % of one core, once every agent is on screen and
/// `settle` has passed; `None` without tmux.
fn measure_in_terminal(
    phone: &str,
    agents: usize,
    wall: Duration,
    settle: Duration,
) -> Option<f64> {
    let dir = tempfile::Builder::new()
        .prefix("cp-idle-tty")
        .tempdir_in("/tmp")
        .expect("a temp folder");
    let server = format!("cp-idle-{}", std::process::id());
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-L", &server, "-f", "/dev/null"])
            .args(args)
            .stdin(Stdio::null())
            .output()
    };
    if tmux(&["-V"]).is_err() {
        return None;
    }
    let row = busy(agents);
    let children: Vec<AgentChild> = (0..agents)
        .map(|n| AgentChild::start(dir.path(), n, &row))
        .collect();
    // The phone's own config, state and log folders, so a person's are never read or written.
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).expect("the phone's home");
    let mut command: Vec<String> = vec![
        "env".into(),
        format!("XDG_CONFIG_HOME={}", home.display()),
        format!("XDG_STATE_HOME={}", home.display()),
        phone.into(),
    ];
    for child in &children {
        command.push("--socket".into());
        command.push(child.socket.display().to_string());
    }
    let mut args = vec!["new-session", "-d", "-x", "120", "-y", "40", "--"];
    args.extend(command.iter().map(String::as_str));
    let started = tmux(&args).expect("tmux runs");
    assert!(
        started.status.success(),
        "tmux did not start the phone: {}",
        String::from_utf8_lossy(&started.stderr)
    );
    // `env` execs the phone, so the pane's process is the phone.
    let pid: u32 = String::from_utf8_lossy(
        &tmux(&["list-panes", "-F", "#{pane_pid}"])
            .expect("tmux runs")
            .stdout,
    )
    .trim()
    .parse()
    .expect("the pane's pid");
    // Every agent reached: the phone's log says so once for each (at its default level).
    let log = home.join("collie-phone").join("phone.log");
    let deadline = Instant::now() + START_DEADLINE;
    loop {
        let ready = std::fs::read_to_string(&log)
            .map(|text| text.matches("agent is ready").count())
            .unwrap_or(0);
        if ready >= agents {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the phone reached {ready} of {agents} agents within {START_DEADLINE:?} (log: {})",
            log.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(settle);
    let before = process_cpu_seconds(pid);
    let clock = Instant::now();
    std::thread::sleep(wall);
    let used = process_cpu_seconds(pid) - before;
    let elapsed = clock.elapsed().as_secs_f64();
    let _ = tmux(&["kill-server"]);
    drop(children);
    Some(100.0 * used / elapsed)
}

struct Figures {
    /// Panes across all agents, as their snapshots laid them out.
    panes: usize,
    engine_percent: f64,
    agents_percent: f64,
    requests_per_second: f64,
    frames_per_second: f64,
}

/// One row: start the agents, the engine, wait for every pane's first read, settle, measure.
fn measure(row: Row, wall: Duration, settle: Duration) -> Figures {
    let dir = tempfile::Builder::new()
        .prefix("cp-idle")
        .tempdir_in("/tmp")
        .expect("a temp folder");
    let mut agents: Vec<AgentChild> = (0..row.agents)
        .map(|n| AgentChild::start(dir.path(), n, &row))
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let figures = runtime.block_on(async {
        let specs = agents
            .iter()
            .map(|agent| AgentSpec {
                name: agent.name.clone(),
                endpoint: Endpoint::socket(agent.socket.clone()),
            })
            .collect();
        let mut engine =
            Engine::start(specs, &dir.path().join("journal.jsonl")).expect("the engine starts");
        let mut phone = Phone::new(&agents);
        // What the phone's runner tells it on the home screen: no pane's chat is on screen.
        engine
            .commands
            .send(ToEngine::OnScreen(Vec::new()))
            .expect("the engine is running");
        // Every pane's first view, so the start's reads are not measured; how many panes each
        // agent has, its first snapshot says.
        let mut views = 0usize;
        let mut laid_out = std::collections::HashMap::new();
        let started = Instant::now();
        while laid_out.len() < row.agents || views < laid_out.values().sum::<usize>() {
            let wanted: usize = laid_out.values().sum();
            let left = START_DEADLINE.saturating_sub(started.elapsed());
            let update = tokio::time::timeout(left, engine.updates.recv())
                .await
                .unwrap_or_else(|_| {
                    panic!("{views} of {wanted} panes read within {START_DEADLINE:?}")
                })
                .expect("the engine is running");
            let seen = match &update {
                FromEngine::Agent {
                    change: AgentChange::PaneView { .. },
                    ..
                } => Some(None),
                FromEngine::Agent {
                    agent,
                    change: AgentChange::Snapshot { snapshot, .. },
                } => Some(Some((agent.clone(), snapshot.panes().count()))),
                _ => None,
            };
            match seen {
                Some(None) => views += 1,
                Some(Some((agent, panes))) => {
                    laid_out.insert(agent, panes);
                }
                None => {}
            }
            phone.take(update, &engine.commands);
        }
        let panes: usize = laid_out.values().sum();
        // The app's side of the channel: take every update, count the exchanges.
        let exchanges = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&exchanges);
        let frames = Arc::clone(&phone.frames);
        let mut updates = engine.updates;
        let commands = engine.commands.clone();
        let drain = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            loop {
                tokio::select! {
                    update = updates.recv() => {
                        let Some(update) = update else { break };
                        if matches!(update, FromEngine::Exchange(_)) {
                            counted.fetch_add(1, Ordering::Relaxed);
                        }
                        phone.take(update, &commands);
                    }
                    _ = tick.tick() => phone.tick(),
                }
            }
        });
        tokio::time::sleep(settle).await;
        let agents_before: Vec<f64> = agents.iter().map(AgentChild::cpu_seconds).collect();
        let before = own_cpu_seconds();
        let exchanges_before = exchanges.load(Ordering::Relaxed);
        let frames_before = frames.load(Ordering::Relaxed);
        let clock = Instant::now();
        tokio::time::sleep(wall).await;
        let elapsed = clock.elapsed().as_secs_f64();
        let used = own_cpu_seconds() - before;
        let requests = exchanges.load(Ordering::Relaxed) - exchanges_before;
        let drawn = frames.load(Ordering::Relaxed) - frames_before;
        let agents_used: f64 = agents
            .iter()
            .zip(agents_before)
            .map(|(agent, before)| agent.cpu_seconds() - before)
            .sum();
        drop(engine.commands);
        drain.abort();
        Figures {
            panes,
            engine_percent: 100.0 * used / elapsed,
            agents_percent: 100.0 * agents_used / elapsed,
            requests_per_second: requests as f64 / elapsed,
            frames_per_second: drawn as f64 / elapsed,
        }
    });
    runtime.shutdown_timeout(Duration::from_secs(2));
    for agent in &mut agents {
        agent.stop();
    }
    figures
}

/// The phone's side of the engine: the app, fed every update as the runner feeds it, and a
/// frame drawn when the runner would draw one (`tui::Runner::handle`).
struct Phone {
    app: App,
    terminal: Terminal<TestBackend>,
    /// The runner's rule before `App::redraws`: every update but an exchange redraws.
    redraw_all: bool,
    frames: Arc<AtomicU64>,
}

impl Phone {
    fn new(agents: &[AgentChild]) -> Self {
        let app = quiet_app(
            agents.iter().map(|a| (a.name.clone(), false)).collect(),
            (120, 40),
        );
        Self {
            app,
            terminal: Terminal::new(TestBackend::new(120, 40)).expect("a terminal"),
            redraw_all: std::env::var("IDLE_REDRAW").is_ok_and(|v| v == "all"),
            frames: Arc::new(AtomicU64::new(0)),
        }
    }

    fn take(
        &mut self,
        update: FromEngine,
        commands: &tokio::sync::mpsc::UnboundedSender<ToEngine>,
    ) {
        self.app.set_now(OffsetDateTime::now_utc());
        let message = Message::Engine(update);
        let redraws = if self.redraw_all {
            !matches!(message, Message::Engine(FromEngine::Exchange(_)))
        } else {
            self.app.redraws(&message)
        };
        for command in self.app.update(message) {
            if let AppCommand::Engine(command) = command {
                let _ = commands.send(command);
            }
        }
        if redraws {
            self.draw();
        }
    }

    fn tick(&mut self) {
        let now = OffsetDateTime::now_utc();
        self.app.set_now(now);
        self.app.update(Message::Tick(now));
        self.draw();
    }

    fn draw(&mut self) {
        self.terminal
            .draw(|frame| shell::frame::draw(frame, &self.app))
            .expect("draws");
        self.app.frame_drawn();
        self.frames.fetch_add(1, Ordering::Relaxed);
    }
}

/// This process's user+system CPU so far, every thread included.
fn own_cpu_seconds() -> f64 {
    // SAFETY: getrusage writes into the struct we own; RUSAGE_SELF is always valid.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// utime+stime of process `pid` so far, from /proc (0 once it is gone).
fn process_cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // The fields after the command name, which is in parentheses and may hold spaces.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of stat(5); `rest` starts at field 3.
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    match (ticks(11), ticks(12)) {
        (Some(user), Some(system)) if per_second > 0.0 => (user + system) / per_second,
        _ => 0.0,
    }
}

/// One reference agent process on its own socket, killed when dropped.
struct AgentChild {
    name: String,
    socket: PathBuf,
    child: Child,
}

impl AgentChild {
    fn start(root: &Path, n: usize, row: &Row) -> Self {
        let home = root.join(format!("a{n}"));
        let socket = home.join("run").join("agent.sock");
        let mut command = Command::new(BIN);
        if row.busy {
            std::fs::create_dir_all(&home).expect("the agent's folder");
            command.args(["agent", "--world", "demo", "--speed", "0", "--socket"]);
            command.arg(&socket);
        } else {
            let state = home.join("state");
            std::fs::create_dir_all(&state).expect("the state folder");
            std::fs::write(
                state.join("world.json"),
                serde_json::to_vec(&quiet_world(row.panes)).expect("json"),
            )
            .expect("the saved world");
            command.args(["agent", "--world", "empty", "--speed", "0", "--socket"]);
            command.arg(&socket).arg("--state").arg(&state);
        }
        let mut child = command
            .env_remove("COLLIE_DURABLE_SOCKET")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the agent binary starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        // Drained, so a chatty agent never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = stderr.read_to_end(&mut sink);
        });
        let (lines_in, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = lines_in.send(line);
            }
        });
        let deadline = Instant::now() + START_DEADLINE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) if line.starts_with("listening ") => break,
                Ok(_) => {}
                Err(e) => panic!("agent {n} printed no `listening` line: {e}"),
            }
        }
        Self {
            name: format!("a{n}"),
            socket,
            child,
        }
    }

    /// utime+stime of the agent process so far, from /proc.
    fn cpu_seconds(&self) -> f64 {
        process_cpu_seconds(self.child.id())
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for AgentChild {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A saved world (the agent's `world.json`, format 1) of `panes` quiet panes: no turn running,
/// no open ask, three chat items each; at most 16 panes to a tab, 16 tabs to a workspace.
fn quiet_world(panes: usize) -> Value {
    let at = "2026-12-01T12:00:00Z";
    let mut next = 1u64;
    let mut id = |prefix: &str| {
        next += 1;
        format!("{prefix}-{next}")
    };
    let mut workspaces = Vec::new();
    let mut records = serde_json::Map::new();
    let mut conversations = serde_json::Map::new();
    let mut made = 0usize;
    while made < panes {
        let workspace = id("w");
        let mut tabs = Vec::new();
        while made < panes && tabs.len() < 16 {
            let tab = id("t");
            let mut ids = Vec::new();
            while made < panes && ids.len() < 16 {
                let pane = id("p");
                let conversation = id("c");
                let items: Vec<Value> = [
                    "What changed since yesterday?",
                    "Nothing: the build is green.",
                ]
                .iter()
                .chain(std::iter::once(&"Waiting for the next task."))
                .enumerate()
                .map(|(i, text)| {
                    json!({
                        "id": format!("{pane}.i{i}"),
                        "kind": if i == 0 { "user" } else { "reply" },
                        "at": at,
                        "text": text,
                    })
                })
                .collect();
                records.insert(
                    pane.clone(),
                    json!({
                        "id": pane,
                        "title": format!("Quiet pane {made}"),
                        "conversation_id": conversation,
                        "belt": [],
                        "turn": null,
                        "turns_started": 0,
                        "starting": false,
                        "asks": [],
                        "decisions": [],
                    }),
                );
                conversations.insert(
                    conversation.clone(),
                    json!({
                        "id": conversation,
                        "title": format!("Quiet pane {made}"),
                        "created": made,
                        "pane_id": pane,
                        "updated_at": at,
                        "items": items,
                    }),
                );
                ids.push(Value::String(pane));
                made += 1;
            }
            tabs.push(json!({"id": tab, "title": format!("Tab {}", tabs.len() + 1), "panes": ids}));
        }
        workspaces.push(json!({"id": workspace, "title": "Quiet", "tabs": tabs}));
    }
    json!({
        "format": 1,
        "saved_at": at,
        "layout": {
            "host_name": "quiet",
            "workspaces": workspaces,
            "panes": records,
            "conversations": conversations,
            "starters": [],
            "next_id": next + 1,
        }
    })
}
