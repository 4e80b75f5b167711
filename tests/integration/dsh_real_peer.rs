//! The engine's DSH client against a peer with the real bridge's quirks, each as
//! ESROAMER/dsh-codex-bridge's `index.js` showed it when run over its `fake_host.mjs` on
//! 2026-12-01 (docs/DSH.md): pretty-printed JSON with `requestId: null` on GETs, efforts and
//! presets as objects, `lastTurn {turn, reason, at}`, `/events` headers held until the first
//! frame, no end to a closed task's stream, closed tasks still listed, cancel taken during a
//! wait with no event, `truncatedBefore: 1` on a whole history, the durable log read whole
//! whatever `sinceSeq`, `session/title` as a status event, the bridge's status lines repeating
//! the last seq. The peer is this file's own code; each test checks what the peer received (its
//! counters), not only what the phone shows.

use crate::common;

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::header;
use axum::response::Response;
use axum::routing::{get, post};
use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::broadcast;

use collie_phone::engine::dsh::DshChange;
use collie_phone::engine::{
    AgentChange, AgentStatus, FromEngine, IntentKind, IntentState, ToEngine,
};
use collie_phone::wire::EventType;
use common::engine_phone::{EnginePhone, changes, pane_texts};

const TOKEN: &str = "dshb_real-peer-token-0123456789abcdefghijklmnop";
const WS: &str = "11111111-1111-4111-8111-111111111111";

/// The peer's state and what it saw.
struct Peer {
    /// Events of task t1's session `session-3`, projected as the real bridge does, seq from 1.
    t1: Vec<Value>,
    /// t1's status as `/tasks/list` says it.
    t1_status: &'static str,
    /// The durable log of `session-desktop-0001`, which no task follows.
    desktop: Vec<Value>,
    /// Live frames of t1's stream.
    live: broadcast::Sender<Value>,
    /// Seconds of silence before a quiet stream's first keep-alive (the real one: 15).
    keep_alive: Duration,
    /// Whether the capabilities carry one field this program cannot read.
    odd_capabilities: bool,
    events_opened: usize,
    cancels: usize,
    desktop_reads: usize,
}

type Shared = Arc<Mutex<Peer>>;

/// Counts streams the phone let go of: the body is dropped when the connection closes.
static STREAMS_DROPPED: AtomicUsize = AtomicUsize::new(0);

struct DropGuard;

impl Drop for DropGuard {
    fn drop(&mut self) {
        STREAMS_DROPPED.fetch_add(1, Ordering::SeqCst);
    }
}

/// The real bridge's envelope: pretty-printed, `requestId` always present.
fn reply(status: u16, body: &Value, request_id: Option<&str>) -> Response {
    let text = serde_json::to_string_pretty(body).unwrap_or_default();
    let mut builder = Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json; charset=utf-8")
        .header(header::CACHE_CONTROL, "no-store");
    if let Some(id) = request_id {
        builder = builder.header("x-bridge-request-id", id);
    }
    builder
        .body(Body::from(text))
        .unwrap_or_else(|_| Response::new(Body::empty()))
}

fn ok(value: Value, request_id: Option<&str>) -> Response {
    reply(
        200,
        &json!({"ok": true, "protocolVersion": 1, "requestId": request_id, "value": value}),
        request_id,
    )
}

fn not_found(task: &str) -> Response {
    reply(
        404,
        &json!({"ok": false, "protocolVersion": 1, "requestId": null, "error": {
            "code": "task/not-found", "message": format!("task \"{task}\" is unknown to this bridge"),
            "details": {"taskId": task}}}),
        None,
    )
}

fn event(seq: i64, kind: Value) -> Value {
    let mut event = json!({"taskId": "t1", "sessionSeq": seq, "at": 1_796_140_913_296_i64});
    if let (Some(map), Value::Object(extra)) = (event.as_object_mut(), kind) {
        map.extend(extra);
    }
    event
}

fn t1_history() -> Vec<Value> {
    vec![
        event(
            1,
            json!({"sessionEventType": "user/message", "kind": "message", "role": "user",
                "source": "user", "requestId": "r2", "text": "hello"}),
        ),
        event(
            2,
            json!({"sessionEventType": "turn/start", "kind": "execution", "phase": "turn-start", "turn": 1}),
        ),
        event(
            3,
            json!({"sessionEventType": "assistant/message", "kind": "message", "role": "assistant",
                "model": "deepseek-account", "modelId": "deepseek-flash", "interrupted": false,
                "text": "ack: hello"}),
        ),
        event(
            4,
            json!({"sessionEventType": "turn/end", "kind": "execution", "phase": "turn-completed",
                "turn": 1, "reason": "completed"}),
        ),
        // The bridge's own status line: no task id, the last seq again.
        json!({"taskId": null, "sessionSeq": 4, "at": 1_796_140_913_297_i64,
            "sessionEventType": "bridge/status", "kind": "status", "phase": "stream-ended"}),
    ]
}

fn capabilities(odd: bool) -> Value {
    let first_effort = if odd {
        json!({"id": {"future": "off"}, "name": "off"})
    } else {
        json!({"id": "off", "name": "off", "description": null})
    };
    json!({"protocolVersion": 1, "routePrefix": "/codex-bridge",
        "capabilities": {"workspaces": {"list": true, "create": false, "createDirectory": false, "scope": "all-configured"},
            "sessions": {"create": true, "adopt": true, "rename": true, "list": true, "cancel": true},
            "models": {"catalog": true, "select": true, "verifyObserved": true},
            "presets": {"list": true, "select": true},
            "events": {"longPoll": true, "sse": true, "replay": true, "cursor": "sessionSeq"},
            "permissions": {"autoApprove": false, "observeWaits": true}},
        "modelCatalog": {"default": {"provider": "deepseek-account", "model": "deepseek-flash", "reasoningEffort": "high"},
            "routableProviders": ["deepseek-account"],
            "groups": [{"id": "deepseek-account", "name": "DeepSeek", "models": [
                {"id": "deepseek-flash", "name": "V41 Flash", "description": null,
                 "reasoning": {"defaultEffort": "high", "efforts": [first_effort,
                    {"id": "high", "name": "high", "description": null}]}}]}],
            "failures": []},
        "agentPresets": [{"id": "standard", "name": "Standard"}, {"id": "creator", "name": "Creator"}],
        "unavailable": {}})
}

fn task_view(status: &str) -> Value {
    json!({"taskId": "t1", "workspaceId": WS, "workspacePath": "C:\\BridgeTests\\workspace-a",
        "sessionId": "session-3", "agentPreset": "standard", "title": null, "objective": null,
        "acceptanceCriteria": null, "external": null, "status": status, "requestedConfig": null,
        "observedConfig": null, "lastTurn": {"turn": 1, "reason": "completed", "at": 1_796_140_913_296_i64},
        "rounds": [{"round": 1, "kind": "instruction", "requestId": "r2", "at": "2026-12-01T16:01:53.156Z", "accepted": true}],
        "createdAt": "2026-12-01T16:01:53.156Z", "updatedAt": "2026-12-01T16:01:53.156Z"})
}

async fn health() -> Response {
    ok(
        json!({"bridge": "ready", "protocolVersion": 1, "routePrefix": "/codex-bridge",
            "pid": 26273, "sessionsFollowed": 1, "trackedTasks": 1, "permissions": {"autoApprove": false}}),
        None,
    )
}

async fn caps(State(peer): State<Shared>) -> Response {
    let odd = peer.lock().map(|p| p.odd_capabilities).unwrap_or(false);
    ok(capabilities(odd), None)
}

async fn workspaces() -> Response {
    ok(
        json!({"items": [{"workspaceId": WS, "title": "kaggle", "path": "C:\\BridgeTests\\workspace-a",
            "status": "ok", "sessionCount": 2, "sessionIds": ["session-3", "session-desktop-0001"],
            "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-02T00:00:00.000Z"}],
            "tokenScope": "all-configured"}),
        None,
    )
}

async fn sessions() -> Response {
    // Passed through from the host: no title, no task id.
    ok(
        json!({"workspaceId": WS, "items": [
            {"sessionId": "session-3", "cwd": "C:\\BridgeTests\\workspace-a", "running": false, "blank": false, "agentAvailable": true, "updatedAt": 1_796_140_905_355_i64},
            {"sessionId": "session-desktop-0001", "cwd": "C:\\BridgeTests\\workspace-a", "running": false, "blank": false, "agentAvailable": true, "updatedAt": 1_796_140_905_355_i64}]}),
        None,
    )
}

async fn tasks(State(peer): State<Shared>) -> Response {
    let status = peer.lock().map(|p| p.t1_status).unwrap_or("idle");
    // Closed tasks are listed too.
    ok(json!({"items": [task_view(status)]}), None)
}

async fn transcript(
    State(peer): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let Ok(mut peer) = peer.lock() else {
        return not_found("?");
    };
    if query.get("taskId").map(String::as_str) == Some("t1") {
        if peer.t1_status == "closed" {
            return not_found("t1");
        }
        let since: i64 = query
            .get("sinceSeq")
            .and_then(|s| s.parse().ok())
            .unwrap_or(-1);
        let items: Vec<Value> = peer
            .t1
            .iter()
            .filter(|e| e["sessionSeq"].as_i64().unwrap_or(0) > since)
            .cloned()
            .collect();
        let cursor = peer
            .t1
            .iter()
            .filter_map(|e| e["sessionSeq"].as_i64())
            .max()
            .unwrap_or(-1);
        // The real rule: the oldest returned seq when it is above max(sinceSeq, -1) + 1; a
        // whole history from seq 1 read with -1 says 1.
        let oldest = items.first().and_then(|e| e["sessionSeq"].as_i64());
        let truncated = oldest.filter(|o| *o > since.max(-1) + 1);
        return ok(
            json!({"taskId": "t1", "sessionId": "session-3", "followerStatus": "live",
                "followerFailure": null, "cursor": cursor, "truncatedBefore": truncated,
                "source": "bridge-follower", "items": items}),
            None,
        );
    }
    // The durable log, whole, whatever sinceSeq and limit say.
    peer.desktop_reads += 1;
    let cursor = peer.desktop.len();
    ok(
        json!({"source": "durable-log", "sessionId": "session-desktop-0001", "cursor": cursor,
            "items": peer.desktop.clone()}),
        None,
    )
}

async fn events(
    State(shared): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let since: i64 = query
        .get("sinceSeq")
        .and_then(|s| s.parse().ok())
        .unwrap_or(-1);
    let (tail, mut live, keep_alive) = {
        let Ok(mut peer) = shared.lock() else {
            return not_found("t1");
        };
        if peer.t1_status == "closed" {
            return not_found("t1");
        }
        peer.events_opened += 1;
        let tail: Vec<Value> = peer
            .t1
            .iter()
            .filter(|e| e["sessionSeq"].as_i64().unwrap_or(0) > since)
            .cloned()
            .collect();
        (tail, peer.live.subscribe(), peer.keep_alive)
    };
    // Node sends the headers with the first write: hold them until a frame or a keep-alive.
    let mut first: Vec<String> = tail
        .iter()
        .map(|e| format!("event: bridge\ndata: {e}\n\n"))
        .collect();
    if first.is_empty() {
        let next = tokio::time::timeout(keep_alive, live.recv()).await;
        first.push(match next {
            Ok(Ok(event)) => format!("event: bridge\ndata: {event}\n\n"),
            _ => ": keep-alive\n\n".to_string(),
        });
    }
    let head = futures::stream::iter(
        first
            .into_iter()
            .map(|f| Ok::<_, Infallible>(Bytes::from(f))),
    );
    // Then live frames and keep-alives, forever: the real bridge never ends a stream, not even
    // a closed task's.
    let rest = futures::stream::unfold(
        (live, keep_alive, DropGuard),
        |(mut live, keep_alive, guard)| async move {
            let frame = match tokio::time::timeout(keep_alive, live.recv()).await {
                Ok(Ok(event)) => format!("event: bridge\ndata: {event}\n\n"),
                _ => ": keep-alive\n\n".to_string(),
            };
            Some((
                Ok::<_, Infallible>(Bytes::from(frame)),
                (live, keep_alive, guard),
            ))
        },
    );
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream; charset=utf-8")
        .header(header::CACHE_CONTROL, "no-store")
        .body(Body::from_stream(futures::StreamExt::chain(head, rest)))
        .unwrap_or_else(|_| Response::new(Body::empty()))
}

async fn cancel(State(peer): State<Shared>, body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let request_id = request["requestId"].as_str().map(str::to_string);
    if let Ok(mut peer) = peer.lock() {
        peer.cancels += 1;
        // The host takes the cancel during a wait; the bridge sets idle; no event comes.
        peer.t1_status = "idle";
    }
    ok(
        json!({"taskId": "t1", "sessionId": "session-3", "accepted": true}),
        request_id.as_deref(),
    )
}

async fn close(State(peer): State<Shared>, body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let request_id = request["requestId"].as_str().map(str::to_string);
    if let Ok(mut peer) = peer.lock() {
        peer.t1_status = "closed";
    }
    ok(
        json!({"taskId": "t1", "status": "closed", "sessionKept": true}),
        request_id.as_deref(),
    )
}

async fn start_peer(keep_alive: Duration, odd_capabilities: bool) -> (Shared, String) {
    let (live, _) = broadcast::channel(64);
    let desktop = vec![
        json!({"taskId": null, "sessionSeq": 1, "at": 1, "sessionEventType": "user/message",
            "kind": "message", "role": "user", "source": "user", "text": "The parser chokes on trailing commas"}),
        json!({"taskId": null, "sessionSeq": 2, "at": 2, "sessionEventType": "session/title",
            "kind": "status", "phase": "title", "title": "Desktop session about the parser"}),
    ];
    let peer: Shared = Arc::new(Mutex::new(Peer {
        t1: t1_history(),
        t1_status: "idle",
        desktop,
        live,
        keep_alive,
        odd_capabilities,
        events_opened: 0,
        cancels: 0,
        desktop_reads: 0,
    }));
    let routes = Router::new()
        .route("/health", get(health))
        .route("/capabilities", get(caps))
        .route("/workspaces", get(workspaces))
        .route("/sessions", get(sessions))
        .route("/tasks/list", get(tasks))
        .route("/transcript", get(transcript))
        .route("/events", get(events))
        .route("/tasks/cancel", post(cancel))
        .route("/tasks/close", post(close))
        .with_state(peer.clone());
    let url = common::engine_phone::serve_bridge(routes).await;
    (peer, url)
}

/// Sends one live event of t1 (appended to its history too).
fn emit(peer: &Shared, event: Value) {
    if let Ok(mut peer) = peer.lock() {
        peer.t1.push(event.clone());
        let _ = peer.live.send(event);
    }
}

fn emit_desktop(peer: &Shared, event: Value) {
    if let Ok(mut peer) = peer.lock() {
        peer.desktop.push(event);
    }
}

fn count(peer: &Shared, what: fn(&Peer) -> usize) -> usize {
    peer.lock().map(|p| what(&p)).unwrap_or(0)
}

/// The open asks of a pane after everything seen.
fn open_asks(seen: &[FromEngine], pane: &str) -> Vec<String> {
    let mut open: Vec<String> = Vec::new();
    for change in changes(seen) {
        match change {
            AgentChange::PaneView { pane: p, view } if p == pane => {
                open = view.asks.iter().map(|a| a.id.clone()).collect();
            }
            AgentChange::PaneEvents { pane: p, events } if p == pane => {
                for event in events {
                    match event.kind {
                        EventType::Ask => open.extend(event.ask.as_ref().map(|a| a.id.clone())),
                        EventType::AskClosed => open.retain(|id| Some(id) != event.ask_id.as_ref()),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    open
}

fn pane_titles(seen: &[FromEngine]) -> Vec<(String, String)> {
    changes(seen)
        .filter_map(|c| match c {
            AgentChange::Snapshot { snapshot, .. } => Some(snapshot),
            _ => None,
        })
        .last()
        .map(|s| {
            s.panes()
                .map(|(_, _, pane)| (pane.id.clone(), pane.title.clone()))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn one_unexpected_field_leaves_the_bridge_ready_and_everything_else_shown() {
    let (_peer, url) = start_peer(Duration::from_millis(500), true).await;
    let mut phone = EnginePhone::start(&url, TOKEN);
    phone
        .until("the bridge ready", |seen| {
            changes(seen).any(|c| matches!(c, AgentChange::Status(AgentStatus::Ready)))
        })
        .await;
    phone
        .until("the unread part said", |seen| {
            changes(seen)
                .any(|c| matches!(c, AgentChange::Dsh(DshChange::Unread(u)) if !u.is_empty()))
        })
        .await;
    let capabilities = changes(&phone.seen)
        .find_map(|c| match c {
            AgentChange::Dsh(DshChange::Capabilities(c)) => Some(c.clone()),
            _ => None,
        })
        .expect("capabilities");
    assert_eq!(capabilities.agent_presets.len(), 2, "the presets are kept");
    let model = capabilities
        .model_catalog
        .model("deepseek-account", "deepseek-flash")
        .expect("the model is kept");
    assert_eq!(model.reasoning.as_ref().expect("r").ids(), ["high"]);
    let unread = changes(&phone.seen)
        .find_map(|c| match c {
            AgentChange::Dsh(DshChange::Unread(u)) if !u.is_empty() => Some(u.clone()),
            _ => None,
        })
        .expect("unread");
    let parts = &unread["/capabilities"];
    assert_eq!(
        parts[0].path,
        "value.modelCatalog.groups[0].models[0].reasoning.efforts[0]"
    );
    assert!(parts[0].raw.contains("future"), "{}", parts[0].raw);
    assert!(
        !changes(&phone.seen)
            .any(|c| matches!(c, AgentChange::Status(AgentStatus::Unreachable { .. }))),
        "one odd field never makes the bridge unreachable"
    );
}

#[tokio::test]
async fn a_whole_history_is_no_gap_the_model_is_the_model_id_and_a_repeated_status_seq_is_kept() {
    let (_peer, url) = start_peer(Duration::from_millis(500), false).await;
    let mut phone = EnginePhone::start(&url, TOKEN);
    phone
        .until("t1's history", |seen| {
            pane_texts(seen, "t1")
                .iter()
                .any(|t| t.contains("Turn 1 completed"))
        })
        .await;
    phone
        .until("the status line of the same seq", |seen| {
            pane_texts(seen, "t1")
                .iter()
                .any(|t| t.contains("stream ended"))
        })
        .await;
    let texts = pane_texts(&phone.seen, "t1");
    assert!(
        !texts.iter().any(|t| t.contains("gap")),
        "truncatedBefore 1 on a whole history is no gap: {texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t == "model deepseek-flash (deepseek-account)"),
        "{texts:?}"
    );
}

#[tokio::test]
async fn a_quiet_stream_that_holds_its_headers_is_opening_not_failed() {
    // 11 s of silence before the first keep-alive: more than the 10 s the phone once gave a
    // stream's headers (the real bridge holds them 15 s).
    let (peer, url) = start_peer(Duration::from_secs(11), false).await;
    let mut phone = EnginePhone::start(&url, TOKEN);
    phone
        .until("t1's history", |seen| {
            pane_texts(seen, "t1")
                .iter()
                .any(|t| t.contains("Turn 1 completed"))
        })
        .await;
    phone.run_for(Duration::from_secs(13)).await;
    assert_eq!(
        count(&peer, |p| p.events_opened),
        1,
        "the stream was opened once and waited for, never reopened"
    );
    // A live event reaches the pane through that one stream.
    emit(
        &peer,
        event(
            5,
            json!({"sessionEventType": "turn/start", "kind": "execution", "phase": "turn-start", "turn": 2}),
        ),
    );
    phone
        .until("the live event", |seen| {
            pane_texts(seen, "t1")
                .iter()
                .any(|t| t.contains("Turn 2 started"))
        })
        .await;
    assert_eq!(count(&peer, |p| p.events_opened), 1);
}

#[tokio::test]
async fn a_cancel_taken_during_a_wait_keeps_the_card_until_the_desktop_replies() {
    let (peer, url) = start_peer(Duration::from_millis(500), false).await;
    let mut phone = EnginePhone::start(&url, TOKEN);
    phone
        .until("t1's history", |seen| {
            pane_texts(seen, "t1")
                .iter()
                .any(|t| t.contains("Turn 1 completed"))
        })
        .await;
    emit(
        &peer,
        event(
            5,
            json!({"sessionEventType": "turn/start", "kind": "execution", "phase": "turn-start", "turn": 2}),
        ),
    );
    emit(
        &peer,
        event(
            6,
            json!({"sessionEventType": "approval/asked", "kind": "permission",
                "phase": "approval-requested", "tool": "shell", "callId": "call-77",
                "reason": "run rm -rf build/"}),
        ),
    );
    phone
        .until("the wait's card", |seen| open_asks(seen, "t1").len() == 1)
        .await;
    phone.send(ToEngine::Submit {
        agent: "desk".into(),
        kind: IntentKind::DshCancel {
            task_id: "t1".into(),
        },
    });
    phone
        .until("the cancel taken", |seen| {
            seen.iter().any(|u| matches!(u, FromEngine::Intent(r)
                if matches!(r.kind, IntentKind::DshCancel { .. }) && matches!(r.state, IntentState::Done { .. })))
        })
        .await;
    assert_eq!(
        count(&peer, |p| p.cancels),
        1,
        "the peer received one cancel"
    );
    // The bridge now says idle; a few passes later the desktop still waits, so does the card.
    phone.run_for(Duration::from_secs(5)).await;
    assert_eq!(open_asks(&phone.seen, "t1").len(), 1, "{:#?}", phone.tail());
    emit(
        &peer,
        event(
            7,
            json!({"sessionEventType": "approval/replied", "kind": "log",
                "data": {"callId": "call-77", "decision": "denied"},
                "summary": "callId=call-77 decision=denied"}),
        ),
    );
    phone
        .until("the card closed by the desktop's reply", |seen| {
            open_asks(seen, "t1").is_empty()
        })
        .await;
}

#[tokio::test]
async fn a_closed_task_still_listed_is_no_pane_and_its_endless_stream_is_let_go() {
    let (peer, url) = start_peer(Duration::from_millis(300), false).await;
    let mut phone = EnginePhone::start(&url, TOKEN);
    phone
        .until("t1's stream open", |_| {
            count(&peer, |p| p.events_opened) >= 1
        })
        .await;
    phone.run_for(Duration::from_millis(500)).await;
    let dropped_before = STREAMS_DROPPED.load(Ordering::SeqCst);
    phone.send(ToEngine::Submit {
        agent: "desk".into(),
        kind: IntentKind::DshClose {
            task_id: "t1".into(),
        },
    });
    phone
        .until("t1 gone from the layout", |seen| {
            let titles = pane_titles(seen);
            !titles.is_empty() && !titles.iter().any(|(id, _)| id == "t1")
        })
        .await;
    // The peer never ends the stream: the phone must have let go of it.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while STREAMS_DROPPED.load(Ordering::SeqCst) <= dropped_before {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the closed task's stream is still held"
        );
        phone.run_for(Duration::from_millis(200)).await;
    }
    // Its session is offered for adoption instead.
    let titles = pane_titles(&phone.seen);
    assert!(
        titles.iter().any(|(id, _)| id == "session:session-3"),
        "{titles:?}"
    );
}

#[tokio::test]
async fn a_session_no_task_follows_is_named_by_its_title_and_read_again() {
    let (peer, url) = start_peer(Duration::from_millis(500), false).await;
    let mut phone = EnginePhone::start(&url, TOKEN);
    let pane = "session:session-desktop-0001";
    phone
        .until("the session pane named by its title", |seen| {
            pane_titles(seen)
                .iter()
                .any(|(id, title)| id == pane && title == "Desktop session about the parser")
        })
        .await;
    emit_desktop(
        &peer,
        json!({"taskId": null, "sessionSeq": 3, "at": 3, "sessionEventType": "user/message",
            "kind": "message", "role": "user", "source": "user", "text": "typed on the desktop 你好"}),
    );
    phone
        .until("the new desktop message", |seen| {
            pane_texts(seen, pane)
                .iter()
                .any(|t| t.contains("typed on the desktop"))
        })
        .await;
    phone.run_for(Duration::from_secs(3)).await;
    let texts = pane_texts(&phone.seen, pane);
    let firsts = texts
        .iter()
        .filter(|t| t.contains("trailing commas"))
        .count();
    assert_eq!(
        firsts, 1,
        "the whole log read again adds nothing twice: {texts:?}"
    );
    assert!(count(&peer, |p| p.desktop_reads) >= 2);
}

/// How many exchanges in `seen` went to a path ending with `route` (its query left off).
fn calls_to(seen: &[FromEngine], route: &str) -> usize {
    seen.iter()
        .filter(|u| match u {
            FromEngine::Exchange(record) => record
                .path
                .split('?')
                .next()
                .is_some_and(|p| p.ends_with(route)),
            _ => false,
        })
        .count()
}

/// docs/DSH.md, "How often the phone asks": a pass every 2 s while a person looks, every 10 s while nobody does,
/// whatever the followers of unadopted sessions read meanwhile. Counted by route on the
/// exchanges the engine made, over windows long enough to hold several passes.
#[tokio::test]
async fn d1_the_bridge_is_passed_at_its_documented_cadence_looked_at_or_not() {
    let (_peer, url) = start_peer(Duration::from_millis(500), false).await;
    let mut phone = EnginePhone::start(&url, TOKEN);
    phone
        .until("the session pane", |seen| {
            pane_titles(seen)
                .iter()
                .any(|(id, _)| id == "session:session-desktop-0001")
        })
        .await;
    phone.run_for(Duration::from_millis(500)).await;
    phone.seen.clear();
    phone.run_for(Duration::from_secs(10)).await;
    for route in ["/health", "/workspaces", "/tasks/list"] {
        let calls = calls_to(&phone.seen, route);
        assert!(
            (4..=6).contains(&calls),
            "looked at: {route} every 2 s, {calls} in 10 s"
        );
    }
    let reads = calls_to(&phone.seen, "/transcript");
    assert!(
        reads <= 6,
        "looked at: a session's reads every 2 s, {reads} in 10 s"
    );

    phone.send(ToEngine::Watching(false));
    // The wait under way when the person looked away ends first.
    phone.run_for(Duration::from_secs(3)).await;
    phone.seen.clear();
    phone.run_for(Duration::from_secs(20)).await;
    for route in ["/health", "/workspaces", "/tasks/list"] {
        let calls = calls_to(&phone.seen, route);
        assert!(
            (1..=3).contains(&calls),
            "nobody looking: {route} every 10 s, {calls} in 20 s"
        );
    }
    let reads = calls_to(&phone.seen, "/transcript");
    assert!(
        reads <= 3,
        "nobody looking: a session's reads every 10 s, {reads} in 20 s"
    );
}
