//! The real DSH bridge's reply shapes (tests/fixtures/dsh-real/, our own captures of the public
//! bridge running over its fake host; see the README there) against (a) our decoder: every
//! fixture decodes into its type with nothing left unread and the values that matter right, and
//! (b) our reference bridge (`collie-phone dsh-bridge --demo`): the same route answers with the
//! same shape (keys and value types, recursively; our extra keys only where the allow-list below
//! says why), pretty-printed, `requestId: null` on GETs, and /events holds its head until its
//! first frame or keep-alive.

use crate::common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use collie_phone::dsh_wire::{
    AppendValue, BRIDGE_STATUS, CancelValue, Capabilities, CloseValue, CreateTaskValue, ErrorCode,
    Event, EventBody, ExecutionPhase, Health, Reply as WireReply, Sanitize, SessionList, SseItem,
    SseReader, StatusPhase, TaskGetValue, TaskList, TaskStatus, TranscriptPage, TranscriptSource,
    WaitValue, WorkspaceList, decode,
};
use common::reference_bridge::ReferenceBridge;
use common::{Reply, Req};
use http_body_util::BodyExt;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const DEADLINE: Duration = Duration::from_secs(20);

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/dsh-real")
        .join(name)
}

fn fixture_bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture_path(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

fn fixture(name: &str) -> Value {
    serde_json::from_slice(&fixture_bytes(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// Decodes a fixture as `T`, asserting nothing was left unread, and returns the value.
#[track_caller]
fn decoded<T: DeserializeOwned + Sanitize>(name: &str) -> T {
    let reply: WireReply<T> =
        decode(&fixture_bytes(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(reply.unread.is_empty(), "{name}: unread {:?}", reply.unread);
    reply
        .value
        .into_result()
        .unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

#[track_caller]
fn no_unread(events: &[Event], name: &str) {
    for event in events {
        assert!(event.unread.is_empty(), "{name}: {event:?}");
    }
}

// ------------------------------------------------------------------ (a) our decoder

#[test]
fn real_replies_decode_whole() {
    let health: Health = decoded("health.json");
    assert_eq!(health.bridge, "ready");
    assert!(!health.permissions.auto_approve);

    let caps: Capabilities = decoded("capabilities.json");
    let flash = caps
        .model_catalog
        .model("deepseek-account", "deepseek-flash")
        .expect("deepseek-flash");
    assert_eq!(flash.title.as_deref(), Some("V41 Flash"));
    let reasoning = flash.reasoning.as_ref().expect("reasoning");
    assert_eq!(reasoning.ids(), ["off", "low", "high", "max"]);
    assert_eq!(reasoning.default.as_deref(), Some("high"));
    let presets: Vec<_> = caps
        .agent_presets
        .iter()
        .map(|p| (p.id.as_str(), p.title.as_deref()))
        .collect();
    assert_eq!(
        presets,
        [("standard", Some("Standard")), ("creator", Some("Creator"))]
    );
    assert!(caps.unavailable.is_empty());
    assert!(!caps.capabilities.permissions.auto_approve);

    let workspaces: WorkspaceList = decoded("workspaces.json");
    assert_eq!(workspaces.items.len(), 2);
    assert_eq!(workspaces.items[0].session_count, 2);

    let sessions: SessionList = decoded("sessions.json");
    assert_eq!(
        sessions.workspace_id.as_deref(),
        Some("11111111-1111-4111-8111-111111111111")
    );
    assert_eq!(sessions.items[0].running, Some(false));
    assert_eq!(sessions.items[0].agent_available, Some(true));

    let created: CreateTaskValue = decoded("tasks-create.json");
    assert_eq!(created.task.status, TaskStatus::Idle);
    assert_eq!(created.task.title.as_deref(), Some("try it"));
    assert!(!created.replayed);

    let appended: AppendValue = decoded("tasks-append.json");
    assert_eq!((appended.round, appended.accepted), (1, true));

    let got: TaskGetValue = decoded("tasks-get.json");
    let last = got.task.last_turn.as_ref().expect("lastTurn");
    assert_eq!(
        (last.turn, last.reason.as_deref()),
        (Some(1), Some("completed"))
    );
    assert_eq!(
        got.task
            .observed_config
            .as_ref()
            .and_then(|c| c.model.as_deref()),
        Some("deepseek-flash")
    );
    assert_eq!(got.task.rounds[0].request_id.as_deref(), Some("r2"));
    let follower = got.follower.expect("follower");
    assert_eq!((follower.cursor, follower.truncated_before), (9, None));

    let list: TaskList = decoded("tasks-list.json");
    assert_eq!(list.items.len(), 3);

    let page: TranscriptPage = decoded("transcript-task.json");
    no_unread(&page.items, "transcript-task.json");
    assert_eq!(page.truncated_before, Some(1));
    let assistant = page
        .items
        .iter()
        .find_map(|e| match &e.body {
            EventBody::Message(m) if m.model_id.is_some() => Some(m),
            _ => None,
        })
        .expect("an assistant message");
    assert_eq!(assistant.model.as_deref(), Some("deepseek-account"));
    assert_eq!(assistant.model_id.as_deref(), Some("deepseek-flash"));
    assert!(page.items.iter().any(|e| matches!(&e.body,
        EventBody::Execution(x) if x.phase == ExecutionPhase::TurnCompleted
            && x.reason.as_deref() == Some("completed"))));

    let adopted: TranscriptPage = decoded("transcript-adopted.json");
    no_unread(&adopted.items, "transcript-adopted.json");
    assert_eq!(adopted.truncated_before, Some(1));
    assert!(adopted.items.iter().any(|e| matches!(&e.body,
        EventBody::Status(s) if s.phase == StatusPhase::Title
            && s.title.as_deref() == Some("Desktop session about the parser"))));

    let durable: TranscriptPage = decoded("transcript-durable-log.json");
    no_unread(&durable.items, "transcript-durable-log.json");
    assert_eq!(durable.source, Some(TranscriptSource::DurableLog));
    assert_eq!((durable.task_id, durable.cursor), (None, 4));
    assert!(durable.items.iter().all(|e| e.task_id.is_none()));

    let waited: WaitValue = decoded("tasks-wait.json");
    no_unread(&waited.events, "tasks-wait.json");
    assert!(!waited.timed_out);
    assert_eq!(waited.events.len(), 1);

    let cancel: CancelValue = decoded("tasks-cancel-during-wait.json");
    assert!(cancel.accepted);
    let close: CloseValue = decoded("tasks-close.json");
    assert_eq!(
        (close.status, close.session_kept),
        (TaskStatus::Closed, true)
    );
}

#[test]
fn real_errors_decode_with_their_codes() {
    for (name, code, request_id) in [
        ("error-task-not-found.json", ErrorCode::TaskNotFound, None),
        ("error-missing-token.json", ErrorCode::MissingToken, None),
        ("error-invalid-token.json", ErrorCode::InvalidToken, None),
        ("error-bad-json.json", ErrorCode::BadRequest, None),
        ("error-unknown-route.json", ErrorCode::Unsupported, None),
        (
            "error-session-workspace-mismatch.json",
            ErrorCode::SessionWorkspaceMismatch,
            None,
        ),
        (
            "error-with-request-id.json",
            ErrorCode::TaskNotFound,
            Some("r10"),
        ),
        (
            "error-prompt-admission.json",
            ErrorCode::Internal,
            Some("r-fail"),
        ),
    ] {
        let reply: WireReply<Health> =
            decode(&fixture_bytes(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(reply.unread.is_empty(), "{name}");
        assert_eq!(reply.value.request_id.as_deref(), request_id, "{name}");
        let error = reply.value.into_result().expect_err(name);
        assert_eq!(error.code, code, "{name}");
    }
}

fn sse_items(bytes: &[u8]) -> Vec<SseItem> {
    SseReader::new(1024 * 1024).feed(bytes)
}

fn frames(items: &[SseItem]) -> Vec<Value> {
    items
        .iter()
        .filter_map(|item| match item {
            SseItem::Frame { event, data } => {
                assert_eq!(event, "bridge");
                Some(serde_json::from_str(data).expect("JSON data"))
            }
            SseItem::Comment(_) => None,
        })
        .collect()
}

/// The bridge's own status line repeats the seq of the frame before it, with `taskId: null`.
#[track_caller]
fn has_repeated_status_line(frames: &[Value]) {
    let found = frames.windows(2).any(|pair| {
        pair[1]["sessionEventType"] == BRIDGE_STATUS
            && pair[1]["taskId"] == Value::Null
            && pair[1]["sessionSeq"] == pair[0]["sessionSeq"]
    });
    assert!(found, "no bridge/status line repeating a seq: {frames:#?}");
}

#[test]
fn the_real_event_stream_decodes_whole() {
    let items = sse_items(&fixture_bytes("events.sse"));
    assert!(matches!(items.last(), Some(SseItem::Comment(c)) if c == "keep-alive"));
    let frames = frames(&items);
    let events: Vec<Event> = frames
        .iter()
        .map(|f| serde_json::from_value(f.clone()).expect("an event"))
        .collect();
    no_unread(&events, "events.sse");
    has_repeated_status_line(&frames);
    assert!(events.iter().any(|e| matches!(&e.body,
        EventBody::Status(s) if s.phase == StatusPhase::Title)));
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.body, EventBody::Log(l) if l.summary.is_some()))
    );
}

// ------------------------------------------------------------------ (b) our bridge's shapes

/// Keys whose value is the host's own object, passed through whole by the real bridge: not
/// compared inside.
const OPAQUE: [&str; 5] = ["usage", "data", "external", "details", "failures"];

/// Keys the real bridge writes only sometimes (`...(cond ? {key} : {})` in index.js): either
/// side may lack them.
const CONDITIONAL: [&str; 5] = ["requestId", "usage", "summary", "error", "details"];

/// Keys our bridge writes that the real one does not, each with why. Empty: where we had extras
/// (`mode`/`messagePreview` on rounds, `tool` on tool results, `description` on presets) they
/// were dropped to match.
const OUR_EXTRAS: [(&str, &str); 0] = [];

fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// What pairs an event of ours with one of the real bridge's: its kind and phase (or role).
fn event_key(event: &Value) -> (String, String) {
    let word = |key: &str| event[key].as_str().unwrap_or_default().to_string();
    let detail = if event["phase"].is_string() {
        word("phase")
    } else {
        word("role")
    };
    (word("kind"), detail)
}

fn is_event(value: &Value) -> bool {
    value.get("sessionEventType").is_some()
}

/// Differences in shape between the real value and ours: keys and value types, recursively;
/// values are ignored, `null` stands for any type (the real fields are nullable), the first
/// element of a real list is the shape of ours; lists of events are paired by kind and phase,
/// and every real event needs a partner of ours.
fn shape_diff(real: &Value, ours: &Value, path: &str, out: &mut Vec<String>) {
    if real.is_null() || ours.is_null() {
        return;
    }
    if type_of(real) != type_of(ours) {
        out.push(format!(
            "{path}: real {} ours {}",
            type_of(real),
            type_of(ours)
        ));
        return;
    }
    match (real, ours) {
        (Value::Object(real), Value::Object(ours)) => {
            let keys: BTreeSet<&String> = real.keys().chain(ours.keys()).collect();
            for key in keys {
                let here = format!("{path}.{key}");
                match (real.get(key), ours.get(key)) {
                    (Some(r), Some(o)) if !OPAQUE.contains(&key.as_str()) => {
                        shape_diff(r, o, &here, out)
                    }
                    (Some(_), None) if !CONDITIONAL.contains(&key.as_str()) => {
                        out.push(format!("{here}: missing in ours"))
                    }
                    (None, Some(_))
                        if !CONDITIONAL.contains(&key.as_str())
                            && !OUR_EXTRAS.iter().any(|(k, _)| k == key) =>
                    {
                        out.push(format!("{here}: not in the real reply"))
                    }
                    _ => {}
                }
            }
        }
        (Value::Array(real), Value::Array(ours)) => {
            if real.first().is_some_and(is_event) {
                for event in real {
                    let key = event_key(event);
                    let partners: Vec<&Value> =
                        ours.iter().filter(|o| event_key(o) == key).collect();
                    if partners.is_empty() {
                        out.push(format!("{path}: ours has no {key:?} event"));
                    }
                    for partner in partners {
                        shape_diff(event, partner, &format!("{path}[{key:?}]"), out);
                    }
                }
            } else if let Some(first) = real.first() {
                for (i, item) in ours.iter().enumerate() {
                    shape_diff(first, item, &format!("{path}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

#[track_caller]
fn same_shape(name: &str, ours: &Value) {
    let mut out = Vec::new();
    shape_diff(&fixture(name), ours, "", &mut out);
    assert!(out.is_empty(), "{name}: {out:#?}\nours: {ours:#}");
}

type Bridge = ReferenceBridge;

fn start(extra: &[&str]) -> Bridge {
    ReferenceBridge::start(extra)
}

/// Our reply as the real bridge sends one: pretty-printed JSON with its headers; a GET says
/// `requestId: null` and has no `x-bridge-request-id`.
#[track_caller]
fn real_like(reply: &Reply, request_id: Option<&str>) -> Value {
    let text = String::from_utf8_lossy(&reply.body).to_string();
    assert!(
        text.starts_with("{\n  \"") && !text.ends_with('\n'),
        "not pretty-printed like the real bridge: {text}"
    );
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("application/json; charset=utf-8")
    );
    assert_eq!(reply.header("cache-control").as_deref(), Some("no-store"));
    assert_eq!(reply.header("x-bridge-request-id").as_deref(), request_id);
    let body = reply.json();
    assert_eq!(
        body["requestId"],
        request_id.map_or(Value::Null, Value::from)
    );
    body
}

#[tokio::test]
async fn our_bridge_answers_every_route_in_the_real_shapes() {
    // Fast enough that a turn ends within a second or two.
    let bridge = start(&["--speed", "40", "--keep-alive-ms", "300"]);
    for (route, name) in [
        ("/health", "health.json"),
        ("/capabilities", "capabilities.json"),
        ("/workspaces", "workspaces.json"),
        ("/sessions?workspaceId=ws-collie", "sessions.json"),
        ("/tasks/list", "tasks-list.json"),
        (
            "/transcript?taskId=task-sse-fix&sinceSeq=-1",
            "transcript-adopted.json",
        ),
        (
            "/transcript?workspaceId=ws-collie&sessionId=session-collie-config",
            "transcript-durable-log.json",
        ),
    ] {
        let body = real_like(&bridge.get(route).await, None);
        same_shape(name, &body);
    }
    // The quirk: a complete log read from -1 says truncatedBefore 1.
    let adopted = real_like(
        &bridge
            .get("/transcript?taskId=task-sse-fix&sinceSeq=-1")
            .await,
        None,
    );
    assert_eq!(adopted["value"]["truncatedBefore"], 1);
    assert_eq!(adopted["value"]["items"][0]["sessionSeq"], 1);

    let created = real_like(
        &bridge
            .post(
                "/tasks/create",
                json!({"requestId": "r1", "workspaceId": "ws-collie", "title": "try it"}),
            )
            .await,
        Some("r1"),
    );
    same_shape("tasks-create.json", &created);
    let task_id = created["value"]["task"]["taskId"]
        .as_str()
        .expect("taskId")
        .to_string();
    let appended = real_like(
        &bridge
            .post(
                "/tasks/append",
                json!({"requestId": "r2", "taskId": task_id, "kind": "instruction", "message": "hello"}),
            )
            .await,
        Some("r2"),
    );
    same_shape("tasks-append.json", &appended);
    common::eventually("the round's turn ends", DEADLINE, || async {
        let got = bridge
            .get(&format!("/tasks/get?taskId={task_id}"))
            .await
            .json();
        got["value"]["task"]["lastTurn"].is_object().then_some(())
    })
    .await;

    same_shape(
        "tasks-get.json",
        &real_like(
            &bridge.get(&format!("/tasks/get?taskId={task_id}")).await,
            None,
        ),
    );
    let transcript = real_like(
        &bridge
            .get(&format!("/transcript?taskId={task_id}&sinceSeq=-1"))
            .await,
        None,
    );
    same_shape("transcript-task.json", &transcript);
    assert_eq!(transcript["value"]["truncatedBefore"], 1);

    // The event stream: the same frames, a status line repeating a seq with taskId null.
    let (_, body) = read_events(&bridge, &format!("taskId={task_id}&sinceSeq=-1")).await;
    let ours = frames(&sse_items(&body));
    has_repeated_status_line(&ours);
    let real = frames(&sse_items(&fixture_bytes("events.sse")));
    let mut out = Vec::new();
    shape_diff(&Value::from(real), &Value::from(ours), "events", &mut out);
    assert!(out.is_empty(), "events.sse: {out:#?}");

    // A wait answered with the history's permission waits only.
    let waited = real_like(
        &bridge
            .post(
                "/tasks/wait",
                json!({"taskId": "task-titanic-eda", "waitMs": 0,
                    "condition": {"sinceSeq": -1, "on": ["input-request"]}}),
            )
            .await,
        None,
    );
    same_shape("tasks-wait.json", &waited);
    assert!(
        waited["value"]["events"]
            .as_array()
            .expect("events")
            .iter()
            .all(|e| e["kind"] == "permission")
    );

    // A host refusal: steering while a permission wait is open.
    let cursor = bridge
        .get("/tasks/get?taskId=task-titanic-eda")
        .await
        .json()["value"]["follower"]["cursor"]
        .as_i64()
        .expect("cursor");
    common::eventually("a permission wait opens", DEADLINE, || async {
        let waited = bridge
            .post(
                "/tasks/wait",
                json!({"taskId": "task-titanic-eda", "waitMs": 2000,
                    "condition": {"sinceSeq": cursor, "on": ["input-request"]}}),
            )
            .await
            .json();
        (waited["value"]["events"]
            .as_array()
            .is_some_and(|e| !e.is_empty()))
        .then_some(())
    })
    .await;
    let refused = bridge
        .post(
            "/tasks/append",
            json!({"requestId": "r-fail", "taskId": "task-titanic-eda", "kind": "instruction",
                "message": "stop", "mode": "steer"}),
        )
        .await;
    assert_eq!(refused.status, 500);
    same_shape(
        "error-prompt-admission.json",
        &real_like(&refused, Some("r-fail")),
    );
    let cancel = real_like(
        &bridge
            .post(
                "/tasks/cancel",
                json!({"taskId": "task-titanic-eda", "requestId": "r7"}),
            )
            .await,
        Some("r7"),
    );
    same_shape("tasks-cancel-during-wait.json", &cancel);
    assert_eq!(cancel["value"]["accepted"], true);
    let close = real_like(
        &bridge
            .post(
                "/tasks/close",
                json!({"taskId": task_id, "requestId": "r8"}),
            )
            .await,
        Some("r8"),
    );
    same_shape("tasks-close.json", &close);
}

#[tokio::test]
async fn our_errors_are_the_real_ones() {
    let bridge = start(&["--speed", "0"]);
    let cases: Vec<(Reply, u16, &str, Option<&str>)> = vec![
        (
            bridge.get("/tasks/get?taskId=t-missing").await,
            404,
            "error-task-not-found.json",
            None,
        ),
        (
            bridge
                .call_as(None, Req::get(&format!("{}/health", bridge.prefix)))
                .await,
            401,
            "error-missing-token.json",
            None,
        ),
        (
            bridge
                .call_as(
                    Some("not-a-token-0123456789abcdefghijklmnopqrstuv"),
                    Req::get(&format!("{}/health", bridge.prefix)),
                )
                .await,
            403,
            "error-invalid-token.json",
            None,
        ),
        (
            bridge
                .call_as(
                    Some(&bridge.token),
                    Req::new(
                        hyper::Method::POST,
                        &format!("{}/tasks/create", bridge.prefix),
                    )
                    .bytes(b"{".to_vec()),
                )
                .await,
            400,
            "error-bad-json.json",
            None,
        ),
        (
            bridge.get("/nope").await,
            404,
            "error-unknown-route.json",
            None,
        ),
        (
            bridge
                .get("/transcript?workspaceId=ws-collie&sessionId=session-docs-guide")
                .await,
            409,
            "error-session-workspace-mismatch.json",
            None,
        ),
        (
            bridge
                .post(
                    "/tasks/append",
                    json!({"requestId": "r10", "taskId": "nope", "kind": "note", "message": "x"}),
                )
                .await,
            404,
            "error-with-request-id.json",
            Some("r10"),
        ),
    ];
    for (reply, status, name, request_id) in cases {
        assert_eq!(reply.status, status, "{name}");
        let body = real_like(&reply, request_id);
        same_shape(name, &body);
        assert_eq!(
            body["error"]["code"],
            fixture(name)["error"]["code"],
            "{name}"
        );
    }
    let unknown = bridge.get("/nope").await.json();
    assert_eq!(
        unknown["error"]["message"],
        "GET /codex-bridge/nope is not a bridge endpoint"
    );
}

/// Opens /events and reads its body for a short while; the head's status and the bytes.
async fn read_events(bridge: &Bridge, query: &str) -> (u16, Vec<u8>) {
    let response = tokio::time::timeout(DEADLINE, open_events(bridge, query))
        .await
        .expect("the head in time");
    let status = response.status().as_u16();
    let mut body = response.into_body();
    let mut bytes = Vec::new();
    let until = Instant::now() + Duration::from_millis(1500);
    while let Ok(Some(Ok(frame))) = tokio::time::timeout_at(until.into(), body.frame()).await {
        if let Ok(data) = frame.into_data() {
            bytes.extend_from_slice(&data);
        }
    }
    (status, bytes)
}

async fn open_events(bridge: &Bridge, query: &str) -> hyper::Response<hyper::body::Incoming> {
    bridge.open_events(query).await
}

#[tokio::test]
async fn a_quiet_stream_holds_its_head_until_the_keep_alive() {
    // Frozen: nothing happens, so only the keep-alive (every 2 s) can release the head.
    let bridge = start(&["--speed", "0", "--keep-alive-ms", "2000"]);
    let cursor =
        bridge.get("/tasks/get?taskId=task-sse-fix").await.json()["value"]["follower"]["cursor"]
            .as_i64()
            .expect("cursor");
    let query = format!("taskId=task-sse-fix&sinceSeq={cursor}");
    let mut opening = Box::pin(open_events(&bridge, &query));
    let early = tokio::time::timeout(Duration::from_millis(500), &mut opening).await;
    assert!(
        early.is_err(),
        "the head came before any frame or keep-alive"
    );
    let response = tokio::time::timeout(DEADLINE, opening)
        .await
        .expect("the head with the keep-alive");
    assert_eq!(
        response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("text/event-stream; charset=utf-8")
    );
    assert_eq!(
        response
            .headers()
            .get("x-accel-buffering")
            .and_then(|v| v.to_str().ok()),
        Some("no")
    );
    let mut body = response.into_body();
    let first = tokio::time::timeout(DEADLINE, body.frame())
        .await
        .expect("bytes in time")
        .expect("a body frame")
        .expect("no error")
        .into_data()
        .expect("data");
    assert_eq!(&first[..], b": keep-alive\n\n");

    // With something to replay, the head comes at once and the first bytes are a frame.
    let fast = start(&["--speed", "0", "--keep-alive-ms", "300"]);
    let (status, bytes) = read_events(&fast, "taskId=task-sse-fix&sinceSeq=-1").await;
    assert_eq!(status, 200);
    let items = sse_items(&bytes);
    assert!(
        matches!(items.first(), Some(SseItem::Frame { .. })),
        "{items:?}"
    );
    assert!(
        items
            .iter()
            .any(|i| matches!(i, SseItem::Comment(c) if c == "keep-alive"))
    );
}

#[test]
fn the_shape_check_sees_missing_extra_and_mistyped_keys() {
    let real = json!({"a": 1, "b": {"c": "x"}, "items": [{"sessionEventType": "t", "kind": "message", "role": "user", "text": "hi"}], "requestId": "r"});
    let mut out = Vec::new();
    shape_diff(&real, &real, "", &mut out);
    assert!(out.is_empty(), "{out:?}");
    let ours = json!({"a": "1", "b": {"c": "x", "d": 2}, "items": [{"sessionEventType": "t", "kind": "message", "role": "assistant"}]});
    shape_diff(&real, &ours, "", &mut out);
    assert_eq!(
        out,
        [
            ".a: real number ours string",
            ".b.d: not in the real reply",
            ".items: ours has no (\"message\", \"user\") event",
        ]
    );
    // Null stands for any type; conditional keys may be absent on either side.
    let mut out = Vec::new();
    shape_diff(
        &json!({"a": null, "usage": {}}),
        &json!({"a": {"x": 1}}),
        "",
        &mut out,
    );
    assert!(out.is_empty(), "{out:?}");
}
