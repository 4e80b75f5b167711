//! Idle polling against the real reference agent over a real socket: which panes a poll reads
//! (SPEC S7), one socket connection per poll with the S3 check before each (SPEC S3), and a
//! kept-alive connection over TCP (SPEC T8).
//!
//! The engine dials a small counting proxy in front of the agent's socket, so the tests see
//! every connection the engine makes; the engine's exchange records say what it read.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;

use collie_phone::engine::{AgentChange, AgentSpec, AgentStatus, Engine, FromEngine, ToEngine};
use collie_phone::transport::{Endpoint, Token, tls::TlsEndpoint};
use collie_phone::wire::{Pane, PaneState, Snapshot, TurnState};

use common::faulty::Faulty;

const SOON: Duration = Duration::from_secs(10);
/// Long enough for three polls at the watching cadence of the socket (1 s, SPEC S7).
const THREE_POLLS: Duration = Duration::from_millis(3500);

/// A Unix socket in a private folder that passes every connection on to the agent's socket
/// and counts them.
struct CountingProxy {
    path: PathBuf,
    folder: PathBuf,
    accepts: Arc<AtomicUsize>,
    _dir: tempfile::TempDir,
}

impl CountingProxy {
    fn start(target: PathBuf) -> Self {
        let dir = common::temp_dir();
        let folder = dir.path().join("run");
        std::fs::create_dir(&folder).expect("the proxy's folder");
        set_mode(&folder, 0o700);
        let path = folder.join("proxy.sock");
        let listener = tokio::net::UnixListener::bind(&path).expect("bind the proxy");
        set_mode(&path, 0o600);
        let accepts = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&accepts);
        tokio::spawn(async move {
            while let Ok((mut phone, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let target = target.clone();
                tokio::spawn(async move {
                    if let Ok(mut agent) = tokio::net::UnixStream::connect(&target).await {
                        let _ = tokio::io::copy_bidirectional(&mut phone, &mut agent).await;
                    }
                });
            }
        });
        Self {
            path,
            folder,
            accepts,
            _dir: dir,
        }
    }

    fn accepts(&self) -> usize {
        self.accepts.load(Ordering::SeqCst)
    }
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// The engine with one agent, "ref", and what it told so far.
struct Phone {
    engine: Engine,
    seen: Vec<FromEngine>,
    _journal: tempfile::TempDir,
}

impl Phone {
    fn start(endpoint: Endpoint) -> Self {
        let journal = tempfile::tempdir().expect("dir");
        let engine = Engine::start(
            vec![AgentSpec {
                name: "ref".into(),
                endpoint,
            }],
            &journal.path().join("j.jsonl"),
        )
        .expect("engine");
        Self {
            engine,
            seen: Vec::new(),
            _journal: journal,
        }
    }

    fn send(&self, command: ToEngine) {
        self.engine.commands.send(command).expect("engine alive");
    }

    /// Takes updates until `done` holds for one of them.
    async fn until(&mut self, what: &str, within: Duration, done: impl Fn(&FromEngine) -> bool) {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let update = tokio::time::timeout_at(deadline, self.engine.updates.recv())
                .await
                .unwrap_or_else(|_| panic!("{what}: not within {within:?}"))
                .expect("engine alive");
            let found = done(&update);
            self.seen.push(update);
            if found {
                return;
            }
        }
    }

    /// Every update of the next `time`.
    async fn window(&mut self, time: Duration) -> Vec<FromEngine> {
        let deadline = tokio::time::Instant::now() + time;
        let mut got = Vec::new();
        while let Ok(Some(update)) =
            tokio::time::timeout_at(deadline, self.engine.updates.recv()).await
        {
            got.push(update);
        }
        got
    }

    /// Ready, with the snapshot and every pane's first view.
    async fn ready(&mut self) -> Arc<Snapshot> {
        let mut snapshot = None;
        let deadline = tokio::time::Instant::now() + SOON;
        loop {
            let update = tokio::time::timeout_at(deadline, self.engine.updates.recv())
                .await
                .expect("ready with every pane's view in time")
                .expect("engine alive");
            if let FromEngine::Agent {
                change: AgentChange::Snapshot { snapshot: s, .. },
                ..
            } = &update
            {
                snapshot = Some(s.clone());
            }
            self.seen.push(update);
            if let Some(snapshot) = &snapshot {
                let viewed = snapshot.panes().all(|(_, _, pane)| {
                    self.seen.iter().any(|u| {
                        matches!(u, FromEngine::Agent {
                            change: AgentChange::PaneView { pane: p, .. }, ..
                        } if *p == pane.id)
                    })
                });
                if viewed {
                    return snapshot.clone();
                }
            }
        }
    }
}

/// Paths the engine read in these updates.
fn paths(updates: &[FromEngine]) -> Vec<String> {
    updates
        .iter()
        .filter_map(|u| match u {
            FromEngine::Exchange(record) => Some(record.path.clone()),
            _ => None,
        })
        .collect()
}

fn event_reads(updates: &[FromEngine], pane: &str) -> usize {
    let prefix = format!("/session/v1/pane/{pane}/events");
    paths(updates)
        .iter()
        .filter(|p| p.starts_with(&prefix))
        .count()
}

fn snapshot_reads(updates: &[FromEngine]) -> usize {
    paths(updates)
        .iter()
        .filter(|p| *p == "/session/v1/snapshot")
        .count()
}

/// Busy as the snapshot tells it: an open ask, a running turn, a state other than idle or failed.
fn busy(pane: &Pane) -> bool {
    !pane.asks.is_empty()
        || pane
            .turn
            .as_ref()
            .is_some_and(|t| t.state == TurnState::Running)
        || !matches!(pane.state, PaneState::Idle | PaneState::Failed)
}

struct Running {
    phone: Phone,
    proxy: CountingProxy,
    snapshot: Arc<Snapshot>,
    agent: common::AgentProcess,
    _dir: tempfile::TempDir,
}

/// The frozen demo world behind a counting proxy; `on_screen` is told at once when given.
async fn start(on_screen: Option<Vec<(String, String)>>) -> Running {
    let dir = common::temp_dir();
    let agent = common::socket_agent(dir.path(), &[]);
    let proxy = CountingProxy::start(agent.socket_path());
    let mut phone = Phone::start(Endpoint::socket(proxy.path.clone()));
    if let Some(panes) = on_screen {
        phone.send(ToEngine::OnScreen(panes));
    }
    let snapshot = phone.ready().await;
    Running {
        phone,
        proxy,
        snapshot,
        agent,
        _dir: dir,
    }
}

/// The demo's quiet panes (nothing running, nothing asked) and its busy ones.
fn quiet_and_busy(snapshot: &Snapshot) -> (Vec<String>, Vec<String>) {
    let (busy, quiet): (Vec<&Pane>, Vec<&Pane>) =
        snapshot.panes().map(|(_, _, p)| p).partition(|p| busy(p));
    let ids = |panes: Vec<&Pane>| panes.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
    let (quiet, busy) = (ids(quiet), ids(busy));
    assert!(quiet.len() >= 2, "the demo has quiet panes: {quiet:?}");
    assert!(!busy.is_empty(), "the demo has busy panes");
    (quiet, busy)
}

#[tokio::test]
async fn s7_a_pane_on_screen_is_read_at_every_poll_a_busy_or_quiet_one_off_screen_is_not() {
    // Which pane will be on screen is known once the layout is: the demo lays out the same
    // world every time, so a first run tells it.
    let probe = start(None).await;
    let (quiet, busy) = quiet_and_busy(&probe.snapshot);
    drop(probe);
    let watched = quiet[0].clone();
    let mut running = start(Some(vec![("ref".into(), watched.clone())])).await;
    // A poll that began before the engine heard what is on screen is over by now.
    running.phone.window(Duration::from_millis(1200)).await;
    let window = running.phone.window(THREE_POLLS).await;
    let polls = snapshot_reads(&window);
    assert!(
        polls >= 3,
        "three polls at the watching cadence, got {polls}"
    );
    assert!(
        event_reads(&window, &watched) >= polls - 1,
        "the pane on screen is read at every poll: {} reads in {polls} polls",
        event_reads(&window, &watched)
    );
    // Its asks, state and turn come with the snapshot; its chat waits until someone looks.
    for pane in &busy {
        assert_eq!(
            event_reads(&window, pane),
            0,
            "busy pane {pane} (open ask or running turn) off screen waits for its entry to change"
        );
    }
    for pane in &quiet[1..] {
        assert_eq!(
            event_reads(&window, pane),
            0,
            "quiet pane {pane} off screen waits for its snapshot entry to change"
        );
    }
}

/// The demo frozen with open asks and running turns, nothing on screen and nothing changing:
/// one request a poll, the snapshot, at the watching cadence (docs/WIRE.md § 1.5).
#[tokio::test]
async fn s7_an_agent_where_nothing_changes_costs_one_request_a_poll() {
    let mut running = start(Some(Vec::new())).await;
    let (_, busy) = quiet_and_busy(&running.snapshot);
    assert!(!busy.is_empty());
    running.phone.window(Duration::from_millis(1200)).await;
    let window = running.phone.window(THREE_POLLS).await;
    let all = paths(&window);
    let polls = snapshot_reads(&window);
    assert!(
        (3..=4).contains(&polls),
        "one snapshot a second while watching, got {polls} in 3.5 s: {all:?}"
    );
    assert_eq!(all.len(), polls, "only the snapshot is read: {all:?}");
}

#[tokio::test]
async fn s7_a_quiet_pane_off_screen_whose_snapshot_entry_changed_is_read_in_that_poll() {
    let mut running = start(Some(Vec::new())).await;
    let (quiet, _) = quiet_and_busy(&running.snapshot);
    let pane = running
        .snapshot
        .panes()
        .map(|(_, _, p)| p)
        .find(|p| p.id == quiet[0])
        .cloned()
        .expect("the quiet pane");
    running.phone.window(Duration::from_millis(1200)).await;
    // Someone else (the desktop) types into the pane: a new turn starts, so its snapshot entry
    // changes; the engine was not asked to poll.
    let reply = running
        .agent
        .client()
        .post(
            &format!("/session/v1/pane/{}/send", pane.id),
            json!({
                "requestId": "from-the-desktop-1",
                "turnId": pane.turn.as_ref().map(|t| t.id.clone()),
                "text": "typed on the desktop",
            }),
        )
        .await;
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    let id = pane.id.clone();
    // Well within the 30 s background interval: only the snapshot can have told.
    running
        .phone
        .until(
            "the desktop's words in the pane",
            Duration::from_secs(3),
            |u| {
                matches!(u, FromEngine::Agent {
                    change: AgentChange::PaneEvents { pane, events }, ..
                } if *pane == id && events.iter().any(|e| {
                    e.item.as_ref().is_some_and(|i| i.text == "typed on the desktop")
                }))
            },
        )
        .await;
}

#[tokio::test]
async fn s7_one_socket_connection_per_poll() {
    // Every pane counts as on screen until the engine is told otherwise: ten exchanges a poll.
    let mut running = start(None).await;
    running.phone.window(Duration::from_millis(500)).await;
    let before = running.proxy.accepts();
    let window = running.phone.window(THREE_POLLS).await;
    let connections = running.proxy.accepts() - before;
    let polls = snapshot_reads(&window);
    let exchanges = paths(&window).len();
    assert!(polls >= 3, "three polls, got {polls}");
    assert!(
        exchanges >= polls * 5,
        "each poll reads the snapshot and every pane: {exchanges} exchanges in {polls} polls"
    );
    assert!(
        connections <= polls + 1 && connections >= polls.saturating_sub(1),
        "one connection per poll: {connections} connections for {polls} polls ({exchanges} exchanges)"
    );
}

#[tokio::test]
async fn s3_the_privacy_check_still_runs_before_every_connection() {
    let mut running = start(Some(Vec::new())).await;
    // The socket's folder opens to the group: the next poll connects to nothing (SPEC S4).
    set_mode(&running.proxy.folder, 0o750);
    running
        .phone
        .until("socket-not-private", SOON, |u| {
            matches!(
                u,
                FromEngine::Agent {
                    change: AgentChange::Status(AgentStatus::SocketNotPrivate { .. }),
                    ..
                }
            )
        })
        .await;
    let refused_at = running.proxy.accepts();
    running.phone.window(Duration::from_millis(2500)).await;
    assert_eq!(
        running.proxy.accepts(),
        refused_at,
        "no connection while the check fails"
    );
    set_mode(&running.proxy.folder, 0o700);
    running
        .phone
        .until("ready again", SOON, |u| {
            matches!(
                u,
                FromEngine::Agent {
                    change: AgentChange::Status(AgentStatus::Ready),
                    ..
                }
            )
        })
        .await;
    assert!(running.proxy.accepts() > refused_at);
}

#[tokio::test]
async fn t8_over_tcp_the_connection_is_kept_alive_between_polls() {
    let faulty = Faulty::new();
    let url = faulty.serve_tcp().await;
    let token = Token::new(&"t".repeat(40)).expect("token");
    let endpoint = Endpoint::Tls(TlsEndpoint::new(&url, token, None).expect("endpoint"));
    let mut phone = Phone::start(endpoint);
    // The first poll: hello, snapshot and events back to back may open a second connection
    // while the first is still on its way back to the client's pool.
    phone.window(Duration::from_millis(1000)).await;
    let first = faulty.seen().connections;
    assert!((1..=2).contains(&first), "{first} connections for one poll");
    // Two more polls at the watching cadence over TCP (2 s, SPEC T8): no new connection.
    let window = phone.window(Duration::from_millis(4200)).await;
    let polls = snapshot_reads(&window);
    assert!(polls >= 2, "two more polls, got {polls}");
    assert_eq!(
        faulty.seen().connections,
        first,
        "the connection is kept alive for {polls} more polls"
    );
}
