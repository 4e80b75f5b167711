//! The engine's DSH bridge client over real HTTP (SPEC D1–D6), against a scriptable bridge in
//! this file: it can deliver twice, admit a gap, close the stream, refuse with any code of the
//! seed's table, time out with 504, cut a reply short, and change its desktop pid. Each test
//! names the rule it checks.

use crate::common;

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use collie_phone::dsh_wire::{AppendKind, AppendMode};
use collie_phone::engine::dsh::DshChange;
use collie_phone::engine::dsh::pane::DESKTOP_ASK_KIND;
use collie_phone::engine::{
    AgentChange, EngineOptions, FromEngine, IntentKind, IntentState, ToEngine,
};
use collie_phone::wire::{AskKind, EventType, ItemKind};
use common::engine_phone::{EnginePhone as Phone, pane_texts};

const TOKEN: &str = "dsh-test-token-0123456789abcdefghijklmnopqrstuvwxyz";

/// What the fake bridge does and saw.
#[derive(Default)]
struct Fake {
    pid: u64,
    /// Events of task t1 the bridge holds, by seq.
    events: Vec<i64>,
    /// Answers of the next appends, in order: "ok", a seed error code, or "cut" (a reply cut
    /// short after its headers). Empty = ok.
    append_script: VecDeque<&'static str>,
    /// requestId → the first reply's round, for replays (SPEC D5).
    done: HashMap<String, u64>,
    /// Every append seen: (requestId, taskId).
    appends: Vec<(String, String)>,
    /// `sinceSeq` of every /events connection for t1 (None when not given).
    stream_since: Vec<Option<i64>>,
    /// `sinceSeq` of every /transcript read for t1.
    transcript_since: Vec<Option<i64>>,
    /// Authorization headers that were not our token.
    bad_auth: u32,
}

type Shared = Arc<Mutex<Fake>>;

fn envelope(value: Value) -> Response {
    axum::Json(json!({"ok": true, "protocolVersion": 1, "value": value})).into_response()
}

fn failure(status: u16, code: &str, request_id: Option<&str>) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = json!({"ok": false, "protocolVersion": 1, "requestId": request_id,
        "error": {"code": code, "message": format!("scripted {code}"),
                  "details": {"availableModels": ["p/a"]}}});
    (status, axum::Json(body)).into_response()
}

fn authorized(state: &Shared, headers: &HeaderMap) -> bool {
    let ok = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        == Some(&format!("Bearer {TOKEN}"));
    if !ok && let Ok(mut fake) = state.lock() {
        fake.bad_auth += 1;
    }
    ok
}

fn event(seq: i64) -> Value {
    json!({"taskId": "t1", "sessionSeq": seq, "at": 1_700_000_000_000_i64,
           "sessionEventType": "message/assistant", "kind": "message", "role": "assistant",
           "text": format!("reply {seq}"), "model": "m"})
}

fn task(id: &str, session: &str, status: &str) -> Value {
    json!({"taskId": id, "workspaceId": "w1", "workspacePath": "/tmp/w1", "sessionId": session,
           "title": format!("Task {id}"), "status": status,
           "requestedConfig": {"provider": "p", "model": "m"}})
}

async fn health(State(state): State<Shared>, headers: HeaderMap) -> Response {
    if !authorized(&state, &headers) {
        return failure(401, "auth/missing-token", None);
    }
    let pid = state.lock().map(|f| f.pid).unwrap_or_default();
    envelope(
        json!({"bridge": "fake", "protocolVersion": 1, "routePrefix": "/codex-bridge",
        "pid": pid, "sessionsFollowed": 2, "trackedTasks": 2,
        "permissions": {"autoApprove": false}}),
    )
}

async fn capabilities() -> Response {
    envelope(
        json!({"protocolVersion": 1, "capabilities": {"sessions": {"list": true},
        "workspaces": {"create": false}}, "agentPresets": ["standard"],
        "modelCatalog": {"groups": [{"provider": "p", "models": [{"id": "m",
            "reasoning": {"efforts": ["low", "high"]}}]}]}}),
    )
}

async fn workspaces() -> Response {
    envelope(
        json!({"items": [{"workspaceId": "w1", "title": "Work", "path": "/tmp/w1",
        "status": "ok", "sessionCount": 3, "sessionIds": ["s1", "s2", "s9"]}],
        "tokenScope": "all-configured"}),
    )
}

async fn tasks() -> Response {
    envelope(json!({"items": [task("t1", "s1", "idle"), task("t2", "s2", "attention")]}))
}

async fn sessions() -> Response {
    envelope(json!({"items": [{"sessionId": "s1"}, {"sessionId": "s2"},
        {"sessionId": "s9", "title": "Older work"}]}))
}

async fn transcript(
    State(state): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let since: Option<i64> = query.get("sinceSeq").and_then(|s| s.parse().ok());
    let task = query.get("taskId").cloned();
    let Ok(mut fake) = state.lock() else {
        return failure(500, "bridge/internal", None);
    };
    if task.as_deref() == Some("t2") {
        let items = vec![json!({"taskId": "t2", "sessionSeq": 1, "at": 1,
            "sessionEventType": "approval/asked", "kind": "permission",
            "phase": "approval-requested", "tool": "shell", "callId": "c1"})];
        return envelope(json!({"taskId": "t2", "sessionId": "s2", "cursor": 1,
            "truncatedBefore": null, "items": if since.is_some() { vec![] } else { items }}));
    }
    if task.is_none() {
        return envelope(json!({"taskId": null, "sessionId": query.get("sessionId"),
            "cursor": 0, "truncatedBefore": null, "source": "durable-log",
            "items": [{"taskId": null, "sessionSeq": 0, "at": 1, "sessionEventType": "m",
                       "kind": "message", "role": "user", "text": "old question"}]}));
    }
    fake.transcript_since.push(since);
    let items: Vec<Value> = fake
        .events
        .iter()
        .filter(|seq| since.is_none_or(|s| **seq > s))
        .map(|seq| event(*seq))
        .collect();
    let cursor = fake.events.iter().max().copied().unwrap_or(-1);
    // The bridge keeps events from #2 on: a first read from the start meets a gap (seed §4.4).
    let truncated = if since.is_none() {
        json!(2)
    } else {
        Value::Null
    };
    envelope(json!({"taskId": "t1", "sessionId": "s1", "cursor": cursor,
        "truncatedBefore": truncated, "source": "bridge-follower", "items": items}))
}

fn frame(seq: i64) -> Result<Bytes, Infallible> {
    Ok(Bytes::from(format!(
        "event: bridge\ndata: {}\n\n",
        event(seq)
    )))
}

async fn events(
    State(state): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let since: Option<i64> = query.get("sinceSeq").and_then(|s| s.parse().ok());
    let keep_alive = futures::stream::unfold((), |()| async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        Some((
            Ok::<_, Infallible>(Bytes::from_static(b": keep-alive\n\n")),
            (),
        ))
    });
    let body = if query.get("taskId").map(String::as_str) != Some("t1") {
        Body::from_stream(keep_alive)
    } else {
        let Ok(mut fake) = state.lock() else {
            return failure(500, "bridge/internal", None);
        };
        fake.stream_since.push(since);
        if fake.stream_since.len() == 1 {
            // First stream: #3 again (already in the history), #4 twice, #5, then the bridge
            // drops the stream (SPEC D4: at least once).
            fake.events.extend([4, 5]);
            let frames = vec![
                Ok(Bytes::from_static(b": keep-alive\n\n")),
                frame(3),
                frame(4),
                frame(4),
                frame(5),
            ];
            Body::from_stream(futures::stream::iter(frames))
        } else {
            // After the reconnect: #5 once more, then #6 and keep-alives.
            if !fake.events.contains(&6) {
                fake.events.push(6);
            }
            let frames = futures::stream::iter(vec![frame(5), frame(6)]);
            Body::from_stream(futures::StreamExt::chain(frames, keep_alive))
        }
    };
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(body)
        .unwrap_or_else(|_| failure(500, "bridge/internal", None))
}

async fn append(State(state): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return failure(400, "request/bad-request", None);
    };
    let request_id = request["requestId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let task_id = request["taskId"].as_str().unwrap_or_default().to_string();
    let Ok(mut fake) = state.lock() else {
        return failure(500, "bridge/internal", None);
    };
    fake.appends.push((request_id.clone(), task_id.clone()));
    if !authorized_quiet(&headers) {
        return failure(403, "auth/invalid-token", Some(&request_id));
    }
    if let Some(round) = fake.done.get(&request_id).copied() {
        return envelope(json!({"taskId": task_id, "sessionId": "s1", "round": round,
            "accepted": true, "replayed": true}));
    }
    let script = fake.append_script.pop_front().unwrap_or("ok");
    let round = fake.done.len() as u64 + 1;
    match script {
        "ok" | "cut" => {
            fake.done.insert(request_id.clone(), round);
            let reply = json!({"ok": true, "protocolVersion": 1, "requestId": request_id,
                "value": {"taskId": task_id, "sessionId": "s1", "round": round,
                          "accepted": true, "replayed": false}})
            .to_string();
            if script == "cut" {
                // The append is applied, but its reply is cut short: the client cannot know.
                let short = reply[..reply.len() / 2].to_string();
                return Response::builder()
                    .header(header::CONTENT_LENGTH, reply.len())
                    .header(header::CONTENT_TYPE, "application/json")
                    .body(Body::from(short))
                    .unwrap_or_else(|_| failure(500, "bridge/internal", None));
            }
            Response::builder()
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(reply))
                .unwrap_or_else(|_| failure(500, "bridge/internal", None))
        }
        code => {
            let status = match code {
                "bridge/timeout" => 504,
                "bridge/not-ready" => 503,
                "task/not-found" => 404,
                "request/bad-request" => 400,
                "auth/workspace-forbidden" => 403,
                _ => 409,
            };
            failure(status, code, Some(&request_id))
        }
    }
}

fn authorized_quiet(headers: &HeaderMap) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        == Some(&format!("Bearer {TOKEN}"))
}

async fn start_fake() -> (Shared, String) {
    let state: Shared = Arc::new(Mutex::new(Fake {
        pid: 4100,
        events: vec![2, 3],
        ..Fake::default()
    }));
    let routes = Router::new()
        .route("/health", get(health))
        .route("/capabilities", get(capabilities))
        .route("/workspaces", get(workspaces))
        .route("/tasks/list", get(tasks))
        .route("/sessions", get(sessions))
        .route("/transcript", get(transcript))
        .route("/events", get(events))
        .route("/tasks/append", post(append))
        .with_state(state.clone());
    let url = common::engine_phone::serve_bridge(routes).await;
    (state, url)
}

fn intent_state(
    seen: &[FromEngine],
    request_id: Option<&str>,
) -> Option<(String, IntentState, u32)> {
    seen.iter().rev().find_map(|u| match u {
        FromEngine::Intent(r) if request_id.is_none_or(|id| id == r.request_id) => {
            Some((r.request_id.clone(), r.state.clone(), r.attempts))
        }
        _ => None,
    })
}

fn final_intents(seen: &[FromEngine]) -> Vec<(String, IntentState)> {
    seen.iter()
        .filter_map(|u| match u {
            FromEngine::Intent(r)
                if r.state.is_final()
                    || matches!(
                        r.state,
                        IntentState::Unknown { .. } | IntentState::NotSent { .. }
                    ) =>
            {
                Some((r.request_id.clone(), r.state.clone()))
            }
            _ => None,
        })
        .collect()
}

fn append_to(task: &str, text: &str) -> ToEngine {
    ToEngine::Submit {
        agent: "desk".into(),
        kind: IntentKind::DshAppend {
            task_id: task.into(),
            message_kind: AppendKind::Instruction,
            message: text.into(),
            mode: AppendMode::Queue,
            model: None,
        },
    }
}

/// SPEC D3, D4, D6: workspaces, tasks and sessions become panes; the history with its gap, then
/// the live stream resumed by sinceSeq after a drop, each event shown once; a permission wait
/// as a desktop ask; the capabilities for the New page.
#[tokio::test]
async fn d4_snapshot_history_gap_and_resume_without_duplicates() {
    let (fake, url) = start_fake().await;
    let mut phone = Phone::start(&url, TOKEN);
    phone
        .until("the layout with both tasks and the session", |seen| {
            seen.iter().any(|u| {
                matches!(u, FromEngine::Agent { change: AgentChange::Snapshot { snapshot, .. }, .. }
                if snapshot.pane("t1").is_some() && snapshot.pane("t2").is_some()
                    && snapshot.pane("session:s9").is_some())
            })
        })
        .await;
    phone
        .until("#6 from the second stream", |seen| {
            pane_texts(seen, "t1").iter().any(|t| t == "reply 6")
        })
        .await;
    let texts = pane_texts(&phone.seen, "t1");
    let replies: Vec<&String> = texts.iter().filter(|t| t.starts_with("reply")).collect();
    assert_eq!(
        replies,
        ["reply 2", "reply 3", "reply 4", "reply 5", "reply 6"],
        "{texts:?}"
    );
    assert!(
        texts[0].contains("Events before #2 are no longer kept"),
        "the gap comes first: {texts:?}"
    );
    assert!(texts.iter().any(|t| t == "model m"), "{texts:?}");
    {
        let fake = fake.lock().expect("fake");
        assert_eq!(
            fake.stream_since[..2],
            [Some(3), Some(5)],
            "resumed by sinceSeq"
        );
        assert_eq!(
            fake.transcript_since[..2],
            [None, Some(5)],
            "the hole read from the cursor"
        );
        assert_eq!(fake.bad_auth, 0, "the bearer token on every request");
    }
    let snapshot = phone
        .seen
        .iter()
        .rev()
        .find_map(|u| match u {
            FromEngine::Agent {
                change: AgentChange::Snapshot { snapshot, .. },
                ..
            } => Some(snapshot.clone()),
            _ => None,
        })
        .expect("a snapshot");
    assert_eq!(snapshot.workspaces[0].id, "w1");
    let tabs: Vec<&str> = snapshot.workspaces[0]
        .tabs
        .iter()
        .map(|t| t.title.as_str())
        .collect();
    assert_eq!(tabs, ["tasks", "sessions"]);
    assert_eq!(
        snapshot.pane("t1").map(|p| p.state.to_string()),
        Some("idle".to_string())
    );
    // D6: the wait of t2 is an ask the phone cannot answer, to be answered on the desktop.
    phone
        .until("t2's desktop ask", |seen| {
            seen.iter().any(|u| matches!(u, FromEngine::Agent { change: AgentChange::PaneView { pane, view }, .. }
                if pane == "t2" && view.asks.iter().any(|a| a.kind == AskKind::Unknown(DESKTOP_ASK_KIND.into()) && a.title.contains("desktop"))))
        })
        .await;
    phone
        .until("the old session's history", |seen| {
            pane_texts(seen, "session:s9")
                .iter()
                .any(|t| t == "old question")
        })
        .await;
    assert!(phone.seen.iter().any(|u| matches!(u, FromEngine::Agent { change: AgentChange::Dsh(DshChange::Capabilities(c)), .. }
        if c.offers_preset("standard") && !c.capabilities.workspaces.create)));
    let items: Vec<ItemKind> = phone
        .seen
        .iter()
        .filter_map(|u| match u {
            FromEngine::Agent {
                change: AgentChange::PaneView { pane, view },
                ..
            } if pane == "t1" => Some(
                view.items
                    .iter()
                    .map(|i| i.kind.clone())
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        })
        .next()
        .expect("t1's view");
    assert!(items.contains(&ItemKind::Reply));
}

/// SPEC D2, D5: back-off on writer-held and not-ready, 504 resent with the same requestId, a
/// lost reply resent only by the person with the same id and shown as replayed, and the codes
/// the seed says never to retry sent exactly once.
#[tokio::test]
async fn d2_d5_every_refusal_as_the_seed_says() {
    let (fake, url) = start_fake().await;
    let mut phone = Phone::start(&url, TOKEN);
    phone
        .until("the bridge ready", |seen| {
            seen.iter().any(|u| {
                matches!(
                    u,
                    FromEngine::Agent {
                        change: AgentChange::Dsh(DshChange::Capabilities(_)),
                        ..
                    }
                )
            })
        })
        .await;

    // Back off twice, then done: three sends of one request id.
    fake.lock().expect("fake").append_script =
        VecDeque::from(["session/writer-held", "bridge/not-ready", "ok"]);
    phone.send(append_to("t1", "first"));
    phone
        .until("the first append done", |seen| {
            matches!(
                intent_state(seen, None),
                Some((_, IntentState::Done { .. }, 1))
            )
        })
        .await;
    {
        let fake = fake.lock().expect("fake");
        assert_eq!(fake.appends.len(), 3);
        assert!(
            fake.appends.iter().all(|(id, _)| *id == fake.appends[0].0),
            "one requestId"
        );
    }

    // 504: resent at once with the same id.
    fake.lock().expect("fake").append_script = VecDeque::from(["bridge/timeout", "ok"]);
    phone.send(append_to("t1", "second"));
    phone
        .until("the 504 append done", |seen| final_intents(seen).len() >= 2)
        .await;
    {
        let fake = fake.lock().expect("fake");
        assert_eq!(fake.appends.len(), 5);
        assert_eq!(
            fake.appends[3].0, fake.appends[4].0,
            "504 resent with the same requestId"
        );
    }
    assert!(matches!(
        final_intents(&phone.seen)[1].1,
        IntentState::Done { .. }
    ));

    // A reply cut short: unknown, not resent until the person says so, then replayed.
    fake.lock().expect("fake").append_script = VecDeque::from(["cut"]);
    phone.send(append_to("t1", "third"));
    phone
        .until("the cut append unknown", |seen| {
            matches!(
                intent_state(seen, None),
                Some((_, IntentState::Unknown { .. }, 1))
            )
        })
        .await;
    let (lost_id, _, _) = intent_state(&phone.seen, None).expect("the lost intent");
    assert_eq!(
        fake.lock().expect("fake").appends.len(),
        6,
        "a lost reply is not resent alone"
    );
    phone.send(ToEngine::Retry {
        request_id: lost_id.clone(),
    });
    phone
        .until("the retry replayed", |seen| {
            matches!(
                intent_state(seen, Some(&lost_id)),
                Some((_, IntentState::Replayed { .. }, 2))
            )
        })
        .await;
    {
        let fake = fake.lock().expect("fake");
        assert_eq!(fake.appends.len(), 7);
        assert_eq!(
            fake.appends[6].0, lost_id,
            "the person's retry keeps the requestId"
        );
        assert_eq!(fake.done.len(), 3, "no second user message (SPEC D5)");
    }

    // Never retried: task/not-found, request/bad-request, auth/workspace-forbidden.
    for code in [
        "task/not-found",
        "request/bad-request",
        "auth/workspace-forbidden",
    ] {
        let before = fake.lock().expect("fake").appends.len();
        let finals = final_intents(&phone.seen).len();
        fake.lock().expect("fake").append_script = VecDeque::from([code]);
        phone.send(append_to("t1", code));
        phone
            .until(code, |seen| final_intents(seen).len() > finals)
            .await;
        let last = final_intents(&phone.seen).pop().expect("a final intent");
        assert!(
            matches!(&last.1, IntentState::Refused { code: c, .. } if c == code),
            "{code}: {last:?}"
        );
        assert_eq!(
            fake.lock().expect("fake").appends.len(),
            before + 1,
            "{code} sent once"
        );
    }

    // session/workspace-mismatch: shown, and the task is no longer addressed.
    fake.lock().expect("fake").append_script = VecDeque::from(["session/workspace-mismatch"]);
    let before = fake.lock().expect("fake").appends.len();
    let finals = final_intents(&phone.seen).len();
    phone.send(append_to("t2", "across workspaces"));
    phone
        .until("the mismatch refused", |seen| {
            final_intents(seen).len() > finals
        })
        .await;
    phone.send(append_to("t2", "once more"));
    phone
        .until("the second append refused here", |seen| {
            final_intents(seen).len() > finals + 1
        })
        .await;
    let last = final_intents(&phone.seen).pop().expect("final");
    assert!(
        matches!(&last.1, IntentState::Refused { status: 0, message: Some(m), .. } if m.contains("no longer addresses")),
        "{last:?}"
    );
    assert_eq!(
        fake.lock().expect("fake").appends.len(),
        before + 1,
        "not sent again"
    );
    phone.send(ToEngine::PollNow {
        agent: "desk".into(),
    });
    phone
        .until("the stop shown", |seen| {
            seen.iter().any(|u| matches!(u, FromEngine::Agent { change: AgentChange::Dsh(DshChange::TaskStopped(s)), .. } if s.task_id == "t2"))
        })
        .await;
}

/// seed §4.8: a new desktop pid is told, and every task pane says the desktop reloaded.
#[tokio::test]
async fn d3_desktop_reloaded_is_shown() {
    let (fake, url) = start_fake().await;
    let mut phone = Phone::start(&url, TOKEN);
    phone
        .until("t1's view", |seen| {
            seen.iter().any(|u| matches!(u, FromEngine::Agent { change: AgentChange::PaneView { pane, .. }, .. } if pane == "t1"))
        })
        .await;
    fake.lock().expect("fake").pid = 4200;
    phone.send(ToEngine::PollNow {
        agent: "desk".into(),
    });
    phone
        .until("the reload notice", |seen| {
            pane_texts(seen, "t1")
                .iter()
                .any(|t| t.contains("desktop reloaded") && t.contains("4100") && t.contains("4200"))
        })
        .await;
    assert!(phone.seen.iter().any(|u| matches!(
        u,
        FromEngine::Agent {
            change: AgentChange::Dsh(DshChange::DesktopReloaded {
                old_pid: 4100,
                new_pid: 4200
            }),
            ..
        }
    )));
}

/// docs/RECORDING.md, "DSH bridges": `--record` keeps a bridge's calls as it keeps a Collie
/// agent's, from the same place the inspector is told: the bridge in the header, each call with
/// its path, body and status, the event stream as its opening, and the token only as redacted.
#[tokio::test]
async fn d1_a_bridge_is_recorded_like_an_agent_and_its_token_never() {
    let (_fake, url) = start_fake().await;
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("bridge.recording.jsonl");
    let mut phone = Phone::start_with(
        &url,
        TOKEN,
        EngineOptions {
            record: Some(file.clone()),
            ..EngineOptions::default()
        },
    );
    phone
        .until("#3 from the stream", |seen| {
            pane_texts(seen, "t1").iter().any(|t| t == "reply 3")
        })
        .await;
    let deadline = std::time::Instant::now() + common::engine_phone::DEADLINE;
    let lines: Vec<Value> = loop {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(!text.contains(TOKEN), "the token is in the recording");
        let lines: Vec<Value> = text
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        let opened = lines.iter().any(|l| {
            l["path"].as_str().is_some_and(|p| {
                p.ends_with("/events?taskId=t1") || p.contains("/events?taskId=t1&")
            }) && l["status"] == 200
        });
        if opened {
            break lines;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no stream opening recorded: {text}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let header = &lines[0];
    assert_eq!(header["type"], "header");
    assert_eq!(header["agents"][0]["name"], "desk");
    assert_eq!(header["agents"][0]["kind"], "dsh-bridge");
    let calls: Vec<&Value> = lines.iter().filter(|l| l["type"] == "exchange").collect();
    assert!(calls.iter().all(|c| c["agent"] == "desk"));
    assert!(
        calls
            .iter()
            .all(|c| c["requestHeaders"]["authorization"] == "[redacted]"),
        "{calls:?}"
    );
    let health = calls
        .iter()
        .find(|c| c["path"].as_str().is_some_and(|p| p.ends_with("/health")))
        .expect("the health call");
    assert_eq!(health["status"], 200);
    assert!(
        health["replyBody"]
            .as_str()
            .is_some_and(|b| b.contains("protocolVersion")),
        "the reply whole: {health}"
    );
    let stream = calls
        .iter()
        .find(|c| c["path"].as_str().is_some_and(|p| p.contains("/events?")))
        .expect("the stream");
    assert_eq!(stream["replyBody"].as_str().unwrap_or_default(), "");
}

/// SPEC D2: a refused token is shown and not retried until the person asks.
#[tokio::test]
async fn d2_refused_token_is_not_retried() {
    let (fake, url) = start_fake().await;
    let mut phone = Phone::start(&url, &"w".repeat(40));
    phone
        .until("token refused", |seen| {
            seen.iter().any(|u| matches!(u, FromEngine::Agent { change: AgentChange::Status(s), .. } if s.name() == "token-refused"))
        })
        .await;
    let said = phone
        .seen
        .iter()
        .find_map(|u| match u {
            FromEngine::Agent {
                change: AgentChange::Status(s),
                ..
            } if s.name() == "token-refused" => Some(s.sentence()),
            _ => None,
        })
        .expect("the status");
    assert_eq!(
        said,
        "unreachable · token-refused: The bridge refused the token (401). Check the token file (--dsh-token-file)."
    );
    let refusals = fake.lock().expect("fake").bad_auth;
    // Several poll periods pass; no further call is made on its own.
    let (_tx, mut never) = mpsc::channel::<()>(1);
    let _ = tokio::time::timeout(Duration::from_secs(3), never.recv()).await;
    assert_eq!(fake.lock().expect("fake").bad_auth, refusals);
}

/// The first status sentence of this name the phone was told.
fn status_sentence(seen: &[FromEngine], name: &str) -> Option<String> {
    seen.iter().find_map(|u| match u {
        FromEngine::Agent {
            change: AgentChange::Status(s),
            ..
        } if s.name() == name => Some(s.sentence()),
        _ => None,
    })
}

/// A bridge that answers 404 at the URL's path is there: the URL's path is wrong, and the
/// phone says so rather than "unreachable".
#[tokio::test]
async fn a_wrong_path_says_the_bridge_answered_404_there() {
    let (_fake, url) = start_fake().await;
    let wrong = url.replace("/codex-bridge", "/codex-brige");
    let mut phone = Phone::start(&wrong, &"t".repeat(40));
    phone
        .until("wrong path", |seen| {
            status_sentence(seen, "wrong-path").is_some()
        })
        .await;
    assert_eq!(
        status_sentence(&phone.seen, "wrong-path").expect("said"),
        format!(
            "The bridge answered 404 at {wrong}/health: nothing is there. Check the URL's path (the desktop's bridge is at /codex-bridge)."
        )
    );
}

/// Nothing listening at the bridge's URL is said in the phone's words, never reqwest's
/// "error sending request for url (…)".
#[tokio::test]
async fn a_bridge_that_is_not_running_is_said_so() {
    let url = "http://127.0.0.1:1/codex-bridge";
    let mut phone = Phone::start(url, &"t".repeat(40));
    phone
        .until("unreachable", |seen| {
            status_sentence(seen, "unreachable").is_some()
        })
        .await;
    let said = status_sentence(&phone.seen, "unreachable").expect("said");
    assert!(
        said.starts_with(&format!(
            "Unreachable: the bridge is not running at {url}: nothing listens there"
        )),
        "{said}"
    );
    assert!(!said.contains("error sending"), "{said}");
}

/// The reference bridge binary, killed when dropped.
struct BridgeProcess {
    child: std::process::Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl Drop for BridgeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_reference_bridge() -> BridgeProcess {
    use std::io::BufRead;
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("dir");
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).expect("token");
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let root = dir.path().join("root");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_collie-phone"))
        .args([
            "dsh-bridge",
            "--demo",
            "--listen",
            "127.0.0.1:0",
            "--speed",
            "4",
            // The bridge holds a quiet stream's headers until its first keep-alive, as the
            // real one does (15 s there): 1 s here, so the stream shows in the inspector soon.
            "--keep-alive-ms",
            "1000",
        ])
        .arg("--token-file")
        .arg(&token)
        .arg("--root")
        .arg(&root)
        .arg("--log")
        .arg(dir.path().join("bridge.log"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the bridge starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .expect("a listening line");
    let url = line
        .trim()
        .strip_prefix("listening ")
        .expect("`listening URL`")
        .to_string();
    BridgeProcess {
        child,
        url,
        _dir: dir,
    }
}

/// SPEC D1, D3, D5 against the reference bridge: its workspaces laid out, a task created with a
/// preset it lists, and an instruction appended that comes back as the session's user message.
#[tokio::test]
async fn d3_reference_bridge_create_and_append() {
    let bridge = start_reference_bridge();
    let mut phone = Phone::start(&bridge.url, TOKEN);
    phone
        .until("the reference bridge's workspaces and capabilities", |seen| {
            seen.iter().any(|u| matches!(u, FromEngine::Agent { change: AgentChange::Snapshot { snapshot, .. }, .. } if !snapshot.workspaces.is_empty()))
                && seen.iter().any(|u| matches!(u, FromEngine::Agent { change: AgentChange::Dsh(DshChange::Capabilities(_)), .. }))
        })
        .await;
    let (workspace, preset) = phone
        .seen
        .iter()
        .find_map(|u| match u {
            FromEngine::Agent {
                change: AgentChange::Dsh(DshChange::Capabilities(c)),
                ..
            } => c.agent_presets.first().map(|p| p.id.clone()),
            _ => None,
        })
        .and_then(|preset| {
            phone.seen.iter().find_map(|u| match u {
                FromEngine::Agent {
                    change: AgentChange::Snapshot { snapshot, .. },
                    ..
                } => snapshot
                    .workspaces
                    .first()
                    .map(|w| (w.id.clone(), preset.clone())),
                _ => None,
            })
        })
        .expect("a workspace and a preset");
    phone.send(ToEngine::Submit {
        agent: "desk".into(),
        kind: IntentKind::DshCreate {
            workspace_id: workspace,
            title: Some("From the phone".into()),
            objective: Some("Say hello".into()),
            preset: Some(preset),
            model: None,
            adopt_session: None,
        },
    });
    phone
        .until("the task created", |seen| {
            matches!(
                intent_state(seen, None),
                Some((_, IntentState::Done { .. }, 1))
            )
        })
        .await;
    let Some((_, IntentState::Done { reply }, _)) = intent_state(&phone.seen, None) else {
        panic!("done")
    };
    let task = reply.pane_id.expect("the created task's pane");
    phone.send(append_to(&task, "hello from the phone"));
    phone
        .until("the instruction in the task's chat", |seen| {
            pane_texts(seen, &task)
                .iter()
                .any(|t| t == "hello from the phone")
        })
        .await;
    assert!(
        matches!(
            intent_state(&phone.seen, None),
            Some((_, IntentState::Done { .. }, 1))
        ) || final_intents(&phone.seen)
            .iter()
            .any(|(_, s)| matches!(s, IntentState::Done { .. }))
    );
    // The wire inspector sees the bridge's calls like a Collie agent's, never the token; the
    // stream once its headers came.
    phone
        .until("the stream in the inspector", |seen| {
            seen.iter().any(|u| {
                matches!(u, FromEngine::Exchange(r)
                if r.method == "GET" && r.path.starts_with("/codex-bridge/events?taskId="))
            })
        })
        .await;
    let exchanges: Vec<_> = phone
        .seen
        .iter()
        .filter_map(|u| match u {
            FromEngine::Exchange(record) => Some(record),
            _ => None,
        })
        .collect();
    let create = exchanges
        .iter()
        .find(|r| r.method == "POST" && r.path == "/codex-bridge/tasks/create")
        .expect("the create in the inspector");
    assert_eq!(create.status, Some(200));
    assert!(create.request_id.is_some(), "{create:?}");
    assert!(
        exchanges
            .iter()
            .any(|r| r.method == "GET" && r.path.starts_with("/codex-bridge/events?taskId="))
    );
    let all = format!("{exchanges:?}");
    assert!(
        !all.contains(TOKEN),
        "the token never reaches the inspector"
    );
}

/// Every (sessionSeq, text) of a pane's item events since its last whole view.
fn pane_items_by_seq(seen: &[FromEngine], pane: &str) -> Vec<(u64, String)> {
    let mut items = Vec::new();
    for update in seen {
        let FromEngine::Agent { change, .. } = update else {
            continue;
        };
        match change {
            AgentChange::PaneView { pane: p, .. } if p == pane => items.clear(),
            AgentChange::PaneEvents { pane: p, events } if p == pane => items.extend(
                events
                    .iter()
                    .filter(|e| e.kind == EventType::Item)
                    .filter_map(|e| e.item.as_ref().map(|i| (e.seq, i.text.clone()))),
            ),
            _ => {}
        }
    }
    items
}

/// SPEC D3, D4 against the reference bridge: a desktop reload (SIGHUP: a new pid on /health,
/// the last events sent again) is told to the person, and every event still shows once.
#[tokio::test]
async fn d4_reference_bridge_reload_resends_and_nothing_shows_twice() {
    let bridge = start_reference_bridge();
    let mut phone = Phone::start(&bridge.url, TOKEN);
    phone
        .until("a task pane with live events", |seen| {
            seen.iter().any(|u| {
                matches!(u, FromEngine::Agent { change: AgentChange::PaneEvents { events, .. }, .. }
                    if events.iter().any(|e| e.kind == EventType::Item))
            })
        })
        .await;
    let pid = i32::try_from(bridge.child.id()).expect("a pid");
    // SAFETY: kill has no memory preconditions; the pid is our own child's.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGHUP) }, 0);
    phone
        .until("the desktop reloaded", |seen| {
            seen.iter().any(|u| {
                matches!(
                    u,
                    FromEngine::Agent {
                        change: AgentChange::Dsh(DshChange::DesktopReloaded { .. }),
                        ..
                    }
                )
            })
        })
        .await;
    // The resent events arrive on the resumed stream; give them time to come and be dropped.
    let until = tokio::time::Instant::now() + Duration::from_secs(3);
    while let Ok(Some(update)) = tokio::time::timeout_at(until, phone.engine.updates.recv()).await {
        phone.seen.push(update);
    }
    let panes: std::collections::BTreeSet<String> = phone
        .seen
        .iter()
        .filter_map(|u| match u {
            FromEngine::Agent {
                change: AgentChange::PaneEvents { pane, .. },
                ..
            } => Some(pane.clone()),
            _ => None,
        })
        .collect();
    assert!(!panes.is_empty());
    for pane in panes {
        let items = pane_items_by_seq(&phone.seen, &pane);
        let mut unique = std::collections::HashSet::new();
        for item in &items {
            assert!(
                unique.insert(item.clone()),
                "pane {pane} shows {item:?} twice: {items:#?}"
            );
        }
        // Seq 0 marks the phone's own lines (the reload notice), which no bridge event made.
        let from_bridge: Vec<u64> = items.iter().map(|i| i.0).filter(|s| *s > 0).collect();
        assert!(
            from_bridge.windows(2).all(|w| w[0] <= w[1]),
            "pane {pane} goes back in sessionSeq: {items:#?}"
        );
    }
}
