//! Two figures of the whole phone, printed rather than fed to criterion (one is a single long
//! wait, the other a handful of cold starts):
//!
//! 1. **First connected frame** (goal: under 150 ms). An in-process reference agent (demo
//!    world, frozen clock) is already listening, as after its `listening` line; the clock
//!    starts when the phone does (engine start, app creation, the runner with a 120x40
//!    `TestBackend`) and stops at the first frame drawn that shows the agent Ready with its
//!    inbox. Ten runs, each against a fresh agent and journal; min, median and max.
//! 2. **Idle CPU** (goal: under 1 % of one core for the whole program). The real binary,
//!    `collie-phone demo`, in a real terminal (tmux, 120x40), nobody typing: after the inbox
//!    shows and 5 s pass, utime+stime of the phone and of the agent child it started are read
//!    from /proc over `IDLE_SECONDS` (default 60) and printed as % of one core. Extra demo
//!    flags (say `--speed 0`) come from `IDLE_DEMO_ARGS`. Skipped, with a note, without tmux.
//!
//! `cargo bench --bench startup` builds the binary in the bench profile (release) first and
//! measures that one. `cargo test --all-targets` runs this without `--bench`: two starts and
//! a one-second idle reading of the debug binary, so the bench cannot rot; its figures mean
//! nothing then and are labelled so.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crossterm::event::Event;
use futures::channel::mpsc;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use time::OffsetDateTime;

use collie_phone::app::AppSetup;
use collie_phone::app::notify::NotifyStyle;
use collie_phone::app::settings::Settings;
use collie_phone::durable::listen::bind_unix;
use collie_phone::durable::runtime::Agent;
use collie_phone::durable::server::{Access, Server};
use collie_phone::engine::{AgentSpec, Engine};
use collie_phone::look::theme::Theme;
use collie_phone::rigs::{WorldKind, WorldOptions};
use collie_phone::shell::App;
use collie_phone::transport::Endpoint;
use collie_phone::tui::Tui;

const BIN: &str = env!("CARGO_BIN_EXE_collie-phone");
const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;
/// The most a start may take before the run counts as broken rather than slow.
const START_DEADLINE: Duration = Duration::from_secs(20);
const FIRST_FRAME_GOAL: Duration = Duration::from_millis(150);
const IDLE_GOAL_PERCENT: f64 = 1.0;

type Keys = mpsc::UnboundedReceiver<io::Result<Event>>;

fn main() {
    // Cargo passes `--bench` under `cargo bench`; without it this is the test run.
    let measuring = std::env::args().any(|arg| arg == "--bench");
    if !measuring {
        println!("startup: test mode (no --bench): a smoke run; these figures are not the bench's");
    }
    first_connected_frame(if measuring { 10 } else { 2 }, measuring);
    let idle_seconds = match std::env::var("IDLE_SECONDS") {
        Ok(text) => text
            .parse::<u64>()
            .ok()
            .filter(|s| *s > 0)
            .unwrap_or_else(|| panic!("IDLE_SECONDS={text} is not a whole number of seconds")),
        Err(_) if measuring => 60,
        Err(_) => 1,
    };
    let settle = if measuring {
        Duration::from_secs(5)
    } else {
        Duration::from_secs(1)
    };
    idle_cpu(idle_seconds, settle, measuring);
}

/// Against a goal when measuring; a smoke run is judged by nothing but running.
fn verdict(met: bool, measuring: bool) -> &'static str {
    match (measuring, met) {
        (false, _) => "not judged in test mode",
        (true, true) => "met",
        (true, false) => "MISSED",
    }
}

// ----- the first connected frame ---------------------------------------------------------------

fn first_connected_frame(runs: usize, measuring: bool) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut times: Vec<Duration> = (0..runs).map(|_| runtime.block_on(one_start())).collect();
    times.sort();
    let ms = |d: &Duration| d.as_secs_f64() * 1000.0;
    let median = times[times.len() / 2];
    let max = times[times.len() - 1];
    println!(
        "first connected frame ({runs} runs, demo world, {WIDTH}x{HEIGHT}): min {:.1} ms, median {:.1} ms, max {:.1} ms (goal < {} ms: {})",
        ms(&times[0]),
        ms(&median),
        ms(&max),
        FIRST_FRAME_GOAL.as_millis(),
        verdict(max < FIRST_FRAME_GOAL, measuring)
    );
}

/// One start of the phone against a demo agent that is already listening: the time to the
/// first frame that shows it Ready with its inbox.
async fn one_start() -> Duration {
    let dir = tempfile::Builder::new()
        .prefix("cp-start")
        .tempdir_in("/tmp")
        .expect("a temp folder");
    let socket = dir.path().join("run").join("agent.sock");
    let agent = Agent::new(WorldOptions {
        kind: WorldKind::Demo,
        speed: 0.0,
        ..WorldOptions::default()
    })
    .expect("the demo world");
    let open_asks: usize = agent
        .world
        .layout
        .panes
        .values()
        .map(|p| p.asks.len())
        .sum();
    let server = Server::new(
        agent,
        Access {
            token: None,
            tls: false,
        },
    );
    let binding = bind_unix(&socket).expect("bind the socket");
    let (stop_agent, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        let ticker = server.spawn_ticker();
        binding
            .serve(server, async {
                let _ = stopped.await;
            })
            .await;
        ticker.abort();
    });
    let inbox = format!("Needs your answer ({open_asks})");

    let started = Instant::now();
    let engine = Engine::start(
        vec![AgentSpec {
            name: "demo".into(),
            endpoint: Endpoint::socket(socket.clone()),
        }],
        &dir.path().join("intents.jsonl"),
    )
    .expect("the engine starts");
    let theme = Theme::builtin("dark").expect("a theme");
    let app = App::new(AppSetup {
        agents: vec![("demo".into(), false)],
        settings: Settings {
            notify: NotifyStyle::Off,
            ..Settings::default()
        },
        bridges: Vec::new(),
        theme: theme.clone(),
        now: OffsetDateTime::now_utc(),
        size: (WIDTH, HEIGHT),
    });
    // The sender stays alive: a closed input would quit the phone.
    let (_keys, stream): (_, Keys) = mpsc::unbounded();
    let terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).expect("a terminal");
    let mut tui = Tui::new(terminal, stream, engine, app);
    tui.draw().expect("the first frame");
    let mut drawn_at = started.elapsed();
    let deadline = tokio::time::Instant::now() + START_DEADLINE;
    let mut frames_checked = 0;
    let elapsed = loop {
        if tui.frames() != frames_checked {
            frames_checked = tui.frames();
            let screen = tui.terminal().backend().to_string();
            if screen.contains("Ready: ") && screen.contains(&inbox) {
                break drawn_at;
            }
        }
        tokio::time::timeout_at(deadline, tui.step())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "no frame showed the agent ready with \"{inbox}\" within {START_DEADLINE:?}:\n{}",
                    tui.terminal().backend()
                )
            })
            .expect("the phone runs");
        // Read before the screen is checked: the check is the bench's, not the phone's.
        drawn_at = started.elapsed();
    };
    drop(tui);
    let _ = stop_agent.send(());
    let _ = served.await;
    elapsed
}

// ----- idle CPU of the demo in a real terminal -------------------------------------------------

/// A tmux server of its own, killed when dropped (and the phone with it).
struct Tmux {
    socket: String,
    session: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", &self.session]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn alive(&self) -> bool {
        self.run(&["has-session", "-t", &self.session])
            .status
            .success()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

fn tmux_installed() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// utime+stime of a process, in clock ticks (/proc/PID/stat fields 14 and 15).
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields count from after its last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state), so field N is at index N - 3.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

fn command_line(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| {
            bytes
                .split(|b| *b == 0)
                .filter(|part| !part.is_empty())
                .map(|part| String::from_utf8_lossy(part).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn children_of(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|child| parent_of(*child) == Some(pid))
        .collect()
}

/// The first process at or below `root` whose command line is `BIN` with `word` as its first
/// argument.
fn find_process(root: u32, word: &str) -> Option<u32> {
    let mut queue = vec![root];
    while let Some(pid) = queue.pop() {
        let line = command_line(pid);
        if line.first().is_some_and(|p| Path::new(p) == Path::new(BIN))
            && line.get(1).is_some_and(|a| a == word)
        {
            return Some(pid);
        }
        queue.extend(children_of(pid));
    }
    None
}

fn wait_for<T>(what: &str, mut probe: impl FnMut() -> Option<T>, tmux: &Tmux) -> T {
    let deadline = Instant::now() + START_DEADLINE;
    loop {
        if let Some(found) = probe() {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "{what} did not come within {START_DEADLINE:?}; the screen:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn idle_cpu(seconds: u64, settle: Duration, measuring: bool) {
    if !tmux_installed() {
        println!("idle CPU: SKIPPED, tmux is not installed (apt-get install tmux)");
        return;
    }
    if !Path::new(BIN).is_file() {
        println!(
            "idle CPU: SKIPPED, {BIN} is missing (run `cargo build --release`, or `cargo bench`)"
        );
        return;
    }
    let home = tempfile::Builder::new()
        .prefix("cp-idle-")
        .tempdir_in("/tmp")
        .expect("a temp folder");
    let runtime_dir: PathBuf = home.path().join("run");
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&runtime_dir)
            .expect("a private runtime folder");
    }
    let extra = std::env::var("IDLE_DEMO_ARGS").unwrap_or_default();
    let command = format!(
        "exec env XDG_RUNTIME_DIR={run} XDG_STATE_HOME={home}/state XDG_CONFIG_HOME={home}/config {BIN} demo {extra}",
        run = runtime_dir.display(),
        home = home.path().display(),
    );
    let tmux = Tmux {
        socket: format!("collie-phone-idle-{}", std::process::id()),
        session: "idle".into(),
    };
    let out = tmux.run(&[
        "new-session",
        "-d",
        "-s",
        &tmux.session,
        "-x",
        &WIDTH.to_string(),
        "-y",
        &HEIGHT.to_string(),
        &command,
    ]);
    assert!(out.status.success(), "tmux new-session: {out:?}");
    let pane_pid: u32 = {
        let out = tmux.run(&["list-panes", "-t", &tmux.session, "-F", "#{pane_pid}"]);
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("the pane's pid")
    };
    wait_for(
        "the inbox",
        || tmux.screen().contains("Needs your answer").then_some(()),
        &tmux,
    );
    let phone = wait_for("the phone", || find_process(pane_pid, "demo"), &tmux);
    let agent = wait_for("the agent", || find_process(phone, "agent"), &tmux);
    std::thread::sleep(settle);

    // SAFETY: sysconf only reads a constant of the system.
    let ticks_per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let read = || (cpu_ticks(phone), cpu_ticks(agent), Instant::now());
    let (phone_before, agent_before, from) = read();
    std::thread::sleep(Duration::from_secs(seconds));
    let (phone_after, agent_after, to) = read();
    let wall = (to - from).as_secs_f64();
    let percent = |before: Option<u64>, after: Option<u64>, who: &str| -> f64 {
        let (Some(before), Some(after)) = (before, after) else {
            panic!(
                "the {who} stopped while idle; the screen:\n{}",
                tmux.screen()
            );
        };
        (after - before) as f64 / ticks_per_second / wall * 100.0
    };
    let phone_percent = percent(phone_before, phone_after, "phone");
    let agent_percent = percent(agent_before, agent_after, "agent");
    let whole = phone_percent + agent_percent;
    let flags = if extra.trim().is_empty() {
        String::new()
    } else {
        format!(" {}", extra.trim())
    };
    println!(
        "idle CPU of `collie-phone demo{flags}` over {wall:.1} s ({WIDTH}x{HEIGHT} tmux, nobody typing): phone {phone_percent:.2} %, agent {agent_percent:.2} %, whole program {whole:.2} % of one core (goal < {IDLE_GOAL_PERCENT} %: {})",
        verdict(whole < IDLE_GOAL_PERCENT, measuring)
    );

    // Quit as a person would, so the demo stops its agent and removes its folder.
    let _ = tmux.run(&["send-keys", "-t", &tmux.session, "q"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while tmux.alive() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
}
