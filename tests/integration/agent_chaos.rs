//! `collie-phone agent --chaos SPEC` over a real socket: each kind of chaos with probability 1,
//! seen on the wire and in the agent's log, and the refusals of a bad spec
//! (docs/AGENT-AUTHORS.md §5).

use crate::common;

use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{AgentProcess, Client, HELLO, Req, SNAPSHOT};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

use collie_phone::engine::{
    AgentChange, AgentSpec, Engine, FromEngine, IntentKind, IntentState, ToEngine,
};
use collie_phone::transport::Endpoint;

const SOON: Duration = Duration::from_secs(15);

/// An agent on a socket with a frozen demo, the given chaos, and its log at info on stderr.
fn chaotic_agent(dir: &std::path::Path, chaos: &str, extra: &[&str]) -> AgentProcess {
    let socket = dir.join("run").join("agent.sock");
    let socket = socket.to_str().expect("utf-8 path").to_string();
    let mut args = vec![
        "agent", "--socket", &socket, "--speed", "0", "--chaos", chaos,
    ];
    args.extend_from_slice(extra);
    AgentProcess::start_with_env(&args, &[("RUST_LOG", "info")])
}

/// Waits until the agent's log has a line with every one of `parts`, and returns it.
async fn logged(agent: &AgentProcess, parts: &[&str]) -> String {
    common::eventually(&format!("a log line with {parts:?}"), SOON, || async {
        agent
            .stderr()
            .lines()
            .find(|line| parts.iter().all(|part| line.contains(part)))
            .map(str::to_string)
    })
    .await
}

/// A POST whose reply may never come: Err with what the client saw when the connection closed.
async fn post_raw(socket: &std::path::Path, path: &str, body: &Value) -> Result<u16, String> {
    let stream = tokio::net::UnixStream::connect(socket)
        .await
        .expect("connect to the socket");
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(TokioIo::new(stream))
            .await
            .expect("an HTTP handshake");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let request = hyper::Request::builder()
        .method("POST")
        .uri(path)
        .header("host", "agent")
        .header("x-collie-session", "1")
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .expect("a request");
    match sender.send_request(request).await {
        Ok(reply) => {
            let status = reply.status().as_u16();
            let _ = reply.into_body().collect().await;
            Ok(status)
        }
        Err(error) => Err(error.to_string()),
    }
}

fn workspace_title(snapshot: &Value, id: &str) -> Option<String> {
    snapshot["workspaces"]
        .as_array()?
        .iter()
        .find(|w| w["id"] == id)
        .and_then(|w| w["title"].as_str())
        .map(str::to_string)
}

/// Q4: with drop-after-apply=1 a POST runs, then its connection closes with no reply; the
/// effect is in the next snapshot, and the same request id again is only a replay (Q3).
#[tokio::test]
async fn q4_drop_after_apply_runs_the_post_and_closes_with_no_reply() {
    let dir = common::temp_dir();
    let agent = chaotic_agent(dir.path(), "drop-after-apply=1", &[]);
    let client = agent.client();
    common::wait_ready(&client).await;
    let before = common::snapshot(&client).await;
    let workspace = before["workspaces"][0]["id"]
        .as_str()
        .expect("a workspace")
        .to_string();
    let body = json!({"requestId": "r-chaos-drop", "kind": "workspace", "id": workspace, "title": "Renamed in the dark"});
    let seen = post_raw(&agent.socket_path(), "/session/v1/rename", &body).await;
    assert!(seen.is_err(), "no reply should come, got {seen:?}");
    let after = common::snapshot(&client).await;
    assert_eq!(
        workspace_title(&after, &workspace).as_deref(),
        Some("Renamed in the dark"),
        "the rename was applied before the connection closed"
    );
    let again = client
        .post("/session/v1/rename", body)
        .await
        .expect(200, "ok");
    assert_eq!(again["replayed"], true, "Q3: the retry runs nothing");
    logged(&agent, &["applied", "request_id=r-chaos-drop"]).await;
    logged(
        &agent,
        &["chaos", "kind=drop-after-apply", "request_id=r-chaos-drop"],
    )
    .await;
    let applied = agent
        .stderr()
        .lines()
        .filter(|l| l.contains("applied") && l.contains("request_id=r-chaos-drop"))
        .count();
    assert_eq!(applied, 1, "applied once, replayed once");
}

/// The engine on `agent` with a journal of its own, once it is ready and has a snapshot.
async fn engine_on(
    agent: &AgentProcess,
) -> (
    Engine,
    tempfile::TempDir,
    std::sync::Arc<collie_phone::wire::Snapshot>,
) {
    let journal = tempfile::tempdir().expect("dir");
    let mut engine = Engine::start(
        vec![AgentSpec {
            name: "chaos".into(),
            endpoint: Endpoint::socket(agent.socket_path()),
        }],
        &journal.path().join("intents.jsonl"),
    )
    .expect("engine");
    let mut ready = false;
    let snapshot = next(&mut engine, |update| match update {
        FromEngine::Agent {
            change: AgentChange::Status(status),
            ..
        } => {
            ready = status.is_ready();
            None
        }
        FromEngine::Agent {
            change: AgentChange::Snapshot { snapshot, .. },
            ..
        } if ready => Some(snapshot.clone()),
        _ => None,
    })
    .await;
    (engine, journal, snapshot)
}

/// Q4, Q5 through the engine: the dropped answer is `unknown`, the person's retry is a replay.
#[tokio::test]
async fn q4_the_engine_sees_a_dropped_answer_as_unknown_and_its_retry_as_replayed() {
    let dir = common::temp_dir();
    let agent = chaotic_agent(dir.path(), "drop-after-apply=1", &[]);
    let (mut engine, _journal, snapshot) = engine_on(&agent).await;
    let (pane, ask) = snapshot
        .panes()
        .flat_map(|(_, _, p)| p.asks.iter().map(move |a| (p.id.clone(), a.clone())))
        .find(|(_, a)| a.kind == collie_phone::wire::AskKind::Text)
        .expect("the demo has a text ask");
    engine
        .commands
        .send(ToEngine::Submit {
            agent: "chaos".into(),
            kind: IntentKind::Answer {
                pane,
                ask_id: ask.id.clone(),
                revision: ask.revision,
                answer: collie_phone::wire::Answer {
                    text: Some("through the chaos".into()),
                    ..Default::default()
                },
            },
        })
        .expect("engine alive");
    let request_id = next(&mut engine, |update| match update {
        FromEngine::Intent(record) if matches!(record.state, IntentState::Unknown { .. }) => {
            Some(record.request_id.clone())
        }
        _ => None,
    })
    .await;
    engine
        .commands
        .send(ToEngine::Retry {
            request_id: request_id.clone(),
        })
        .expect("engine alive");
    let state = next(&mut engine, |update| match update {
        FromEngine::Intent(record) if record.state.is_final() => Some(record.state.clone()),
        _ => None,
    })
    .await;
    assert!(matches!(state, IntentState::Replayed { .. }), "{state:?}");
    logged(&agent, &["chaos", "kind=drop-after-apply", &request_id]).await;
}

async fn next<T>(engine: &mut Engine, mut pick: impl FnMut(&FromEngine) -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + SOON;
    loop {
        let update = tokio::time::timeout_at(deadline, engine.updates.recv())
            .await
            .expect("the awaited update did not come in time")
            .expect("engine alive");
        if let Some(found) = pick(&update) {
            return found;
        }
    }
}

/// delay=1:1500ms holds every reply at least that long before it is sent.
#[tokio::test]
async fn delay_holds_the_reply() {
    let dir = common::temp_dir();
    let agent = chaotic_agent(dir.path(), "delay=1:1500ms", &[]);
    let client = agent.client();
    let started = Instant::now();
    let early = tokio::time::timeout(
        Duration::from_millis(500),
        client.send(Req::get(HELLO).version(None)),
    )
    .await;
    assert!(early.is_err(), "the reply came before its hold");
    let started_again = Instant::now();
    let hello = client.send(Req::get(HELLO).version(None)).await;
    assert_eq!(hello.status, 200);
    assert!(started_again.elapsed() >= Duration::from_millis(1500));
    assert!(started.elapsed() >= Duration::from_millis(2000));
    logged(
        &agent,
        &[
            "chaos",
            "kind=delay",
            "path=/session/v1/hello",
            "hold=1s 500ms",
        ],
    )
    .await;
}

fn open_ask_ids(snapshot: &Value) -> Vec<String> {
    let mut ids: Vec<String> = common::panes(snapshot)
        .iter()
        .flat_map(|pane| pane["asks"].as_array().cloned().unwrap_or_default())
        .filter_map(|ask| ask["id"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids
}

/// H3, H5, A9: restart-every restarts the agent in place: a new epoch that starts not ready,
/// then the same open asks under the same ids, without a state folder. Every (re)start stays
/// `starting` for 2 s and is ready for 2 s, windows wide enough for a loaded machine.
#[tokio::test]
async fn h3_h5_a9_restart_every_gives_a_new_epoch_and_the_same_ask_ids() {
    let dir = common::temp_dir();
    let agent = chaotic_agent(dir.path(), "restart-every=4s", &["--ready-after", "2000"]);
    let client = agent.client();
    common::wait_ready(&client).await;
    let hello = client.send(Req::get(HELLO).version(None)).await.json();
    let first_epoch = hello["epoch"].as_str().expect("an epoch").to_string();
    let asks = common::eventually("a snapshot while ready", SOON, || async {
        let reply = client.get(SNAPSHOT).await;
        (reply.status == 200).then(|| open_ask_ids(&reply.json()))
    })
    .await;
    assert!(!asks.is_empty());
    let new_hello = common::eventually("a new epoch", SOON, || async {
        let hello = client.send(Req::get(HELLO).version(None)).await.json();
        (hello["epoch"] != first_epoch.as_str()).then_some(hello)
    })
    .await;
    // The restart answers `starting` for 2 s (ready-after), and hello came within them.
    assert_eq!(new_hello["ready"], false, "H3: {new_hello}");
    let starting = client.get(SNAPSHOT).await;
    if starting.status == 503 {
        starting.expect(503, "starting");
    }
    let again = common::eventually("a snapshot of a later epoch", SOON, || async {
        let reply = client.get(SNAPSHOT).await;
        (reply.status == 200 && reply.json()["epoch"] != first_epoch.as_str()).then(|| reply.json())
    })
    .await;
    assert_eq!(
        open_ask_ids(&again),
        asks,
        "A9: asked again under the same ids"
    );
    logged(
        &agent,
        &["chaos", "kind=restart", &format!("old_epoch={first_epoch}")],
    )
    .await;
}

/// A6, A7: expire-early=1 times an ask out just before the answer lands: the answer gets
/// `409 decided` by timeout, and the ask is gone from the snapshot (A13).
#[tokio::test]
async fn a6_a7_expire_early_times_the_ask_out_before_the_answer() {
    let dir = common::temp_dir();
    let agent = chaotic_agent(dir.path(), "expire-early=1", &[]);
    let client = agent.client();
    common::wait_ready(&client).await;
    let snapshot = common::snapshot(&client).await;
    let (pane, ask) = common::find_ask(&snapshot, "permission").expect("a permission ask");
    let ask_id = ask["id"].as_str().expect("an id").to_string();
    let reply = client
        .post(
            &common::pane_path(&pane, "answer"),
            json!({"requestId": "r-chaos-early", "askId": ask_id, "revision": ask["revision"], "answer": common::answer_for(&ask)}),
        )
        .await;
    let body = reply.expect(409, "decided");
    assert_eq!(body["decidedBy"], "timeout", "{body}");
    let after = common::snapshot(&client).await;
    assert!(
        !open_ask_ids(&after).contains(&ask_id),
        "A13: no longer open"
    );
    logged(
        &agent,
        &[
            "chaos",
            "kind=expire-early",
            "request_id=r-chaos-early",
            &ask_id,
        ],
    )
    .await;
}

fn seqs(reply: &Value) -> Vec<u64> {
    reply["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["seq"].as_u64())
        .collect()
}

/// dup-events=1: an events reply carries one event twice, and later ones repeat events
/// already sent (a seq at or below the reader's cursor), with the cursor unchanged.
#[tokio::test]
async fn dup_events_repeats_events_already_sent() {
    let dir = common::temp_dir();
    let agent = chaotic_agent(dir.path(), "dup-events=1", &[]);
    let client = agent.client();
    common::wait_ready(&client).await;
    let snapshot = common::snapshot(&client).await;
    let (pane, turn) = common::running_pane(&snapshot).expect("a running pane");
    let events = |after: u64, epoch: String| {
        let client = client.clone();
        let pane = pane.clone();
        async move {
            client
                .get(&format!(
                    "/session/v1/pane/{pane}/events?after={after}&epoch={epoch}"
                ))
                .await
                .expect(200, "")
        }
    };
    let view = events(0, "none".into()).await;
    let epoch = view["epoch"].as_str().expect("an epoch").to_string();
    let mut cursor = view["cursor"].as_u64().expect("a cursor");
    let send = |n: u32| {
        let client = client.clone();
        let (pane, turn) = (pane.clone(), turn.clone());
        async move {
            client
                .post(
                    &common::pane_path(&pane, "send"),
                    json!({"requestId": format!("r-dup-{n}"), "turnId": turn, "text": format!("steer {n}")}),
                )
                .await
                .expect(200, "ok");
        }
    };
    send(1).await;
    let first = events(cursor, epoch.clone()).await;
    let first_seqs = seqs(&first);
    let mut unique = first_seqs.clone();
    unique.dedup();
    assert!(
        unique.len() < first_seqs.len(),
        "one event twice: {first_seqs:?}"
    );
    assert_eq!(first["cursor"].as_u64(), first_seqs.iter().max().copied());
    cursor = first["cursor"].as_u64().expect("a cursor");
    send(2).await;
    let second = events(cursor, epoch).await;
    let second_seqs = seqs(&second);
    assert!(
        second_seqs.iter().any(|seq| *seq <= cursor),
        "events already sent come again: {second_seqs:?} after {cursor}"
    );
    assert!(
        second_seqs.iter().any(|seq| *seq > cursor),
        "and the new ones"
    );
    logged(
        &agent,
        &["chaos", "kind=dup-events", "how=twice-in-one-reply"],
    )
    .await;
    logged(&agent, &["chaos", "kind=dup-events", "how=already-sent"]).await;
}

/// A bad spec stops the agent before it listens, naming the bad part.
#[test]
fn a_bad_spec_is_refused_naming_the_part() {
    let dir = common::temp_dir();
    let socket = dir.path().join("run").join("agent.sock");
    let socket = socket.to_str().expect("utf-8");
    for (spec, named) in [
        ("explode=1", "\"explode\" is not a kind of chaos"),
        ("drop-after-apply=1.5", "in \"drop-after-apply=1.5\""),
        ("delay=0.5", "delay is P:DURATION"),
        ("restart-every=10ms", "restart at most once every 1s"),
        ("dup-events=0.1,dup-events=0.2", "given twice"),
    ] {
        let refused = common::refused(&["agent", "--socket", socket, "--chaos", spec]);
        assert!(!refused.status.success(), "{spec}");
        assert!(refused.stderr.contains(named), "{spec}: {}", refused.stderr);
        assert!(!refused.stdout.contains("listening"));
    }
    // The demo says it before its screen opens.
    let output = std::process::Command::new(common::BIN)
        .args(["demo", "--chaos", "explode=1"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a kind of chaos"));
}

/// Without --chaos nothing of this runs, and nothing is logged as applied.
#[tokio::test]
async fn quiet_agent_logs_no_chaos() {
    let dir = common::temp_dir();
    let socket = dir.path().join("run").join("agent.sock");
    let socket = socket.to_str().expect("utf-8").to_string();
    let agent = AgentProcess::start_with_env(
        &["agent", "--socket", &socket, "--speed", "0"],
        &[("RUST_LOG", "info")],
    );
    let client: Client = agent.client();
    common::wait_ready(&client).await;
    let snapshot = common::snapshot(&client).await;
    let workspace = snapshot["workspaces"][0]["id"].clone();
    client
        .post(
            "/session/v1/rename",
            json!({"requestId": "r-quiet", "kind": "workspace", "id": workspace, "title": "Quiet"}),
        )
        .await
        .expect(200, "ok");
    assert!(!agent.stderr().contains("chaos"), "{}", agent.stderr());
}

/// dup-events=1 through the engine: every events reply repeats events, yet the engine passes
/// each event on once, in order, so the person sees the sent text once.
#[tokio::test]
async fn the_engine_passes_repeated_events_on_once() {
    use collie_phone::chat::pane_log::{ChatEntry, PaneLog};
    let dir = common::temp_dir();
    let agent = chaotic_agent(dir.path(), "dup-events=1", &[]);
    let (mut engine, _journal, snapshot) = engine_on(&agent).await;
    let (pane, turn) = snapshot
        .panes()
        .find_map(|(_, _, p)| {
            p.turn
                .as_ref()
                .filter(|t| t.state == collie_phone::wire::TurnState::Running)
                .map(|t| (p.id.clone(), t.id.clone()))
        })
        .expect("a running pane");
    let text = "said once, delivered twice";
    engine
        .commands
        .send(ToEngine::Submit {
            agent: "chaos".into(),
            kind: IntentKind::Send {
                pane: pane.clone(),
                turn_id: Some(turn),
                text: text.into(),
            },
        })
        .expect("engine alive");
    let mut log = PaneLog::default();
    let mut last_seq = 0;
    let mut polls_after = 0;
    let count = |log: &PaneLog| {
        log.entries
            .iter()
            .filter(|e| matches!(e, ChatEntry::Item(item) if item.text == text))
            .count()
    };
    // Three more polls after the text shows, so the repeats of it have come and gone.
    next(&mut engine, |update| match update {
        FromEngine::Agent {
            agent: _,
            change: AgentChange::PaneView { pane: p, view },
        } if *p == pane => {
            log.reset(view.clone());
            last_seq = 0;
            None
        }
        FromEngine::Agent {
            change: AgentChange::PaneEvents { pane: p, events },
            ..
        } if *p == pane => {
            for event in events {
                assert!(event.seq > last_seq, "seq {} after {last_seq}", event.seq);
                last_seq = event.seq;
            }
            log.apply(events);
            None
        }
        FromEngine::Agent {
            change: AgentChange::Synced(_),
            ..
        } if count(&log) > 0 => {
            polls_after += 1;
            (polls_after >= 3).then_some(())
        }
        _ => None,
    })
    .await;
    assert_eq!(count(&log), 1, "the text shows once");
    logged(&agent, &["chaos", "kind=dup-events", "how=already-sent"]).await;
}
