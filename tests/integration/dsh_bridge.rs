//! The reference DSH bridge over real HTTP (seed 002, SPEC D1–D7): envelopes and every error
//! code it produces, scopes that reveal nothing, idempotent create and append, tasks/wait,
//! SSE with keep-alives, resume and duplicates after a desktop reload, transcript gaps, and the
//! rules of /workspaces/create.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use collie_phone::dsh_wire::{SseItem, SseReader};
use common::reference_bridge::ReferenceBridge;
use common::{Reply, Req};
use http_body_util::BodyExt;
use serde_json::{Value, json};

const DOCS_TOKEN: &str = "docs-only-token-0123456789abcdefghijklmnop";
const EMPTY_TOKEN: &str = "empty-scope-token-0123456789abcdefghijklm";
const ALL_NO_CREATE_TOKEN: &str = "all-no-create-token-0123456789abcdefghijk";
/// Generous: a loaded 2-core CI box may be slow; nothing waits this long when all is well.
const DEADLINE: Duration = Duration::from_secs(20);

type Bridge = ReferenceBridge;

fn start(extra: &[&str]) -> Bridge {
    let dir = common::temp_dir();
    let tokens = dir.path().join("tokens.jsonl");
    let lines = [
        json!({"token": DOCS_TOKEN, "workspaceIds": ["ws-docs"], "allowWorkspaceCreate": true}),
        json!({"token": EMPTY_TOKEN, "workspaceIds": []}),
        json!({"token": ALL_NO_CREATE_TOKEN, "workspaceIds": null}),
    ]
    .iter()
    .map(Value::to_string)
    .collect::<Vec<_>>()
    .join("\n");
    std::fs::write(&tokens, lines).expect("write tokens");
    std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let tokens = tokens.display().to_string();
    let mut args = vec!["--tokens", tokens.as_str()];
    args.extend_from_slice(extra);
    ReferenceBridge::start_in(dir, &args)
}

impl ReferenceBridge {
    async fn value(&self, route: &str) -> Value {
        let reply = self.get(route).await;
        ok(&reply)
    }

    async fn transcript(&self, query: &str) -> Value {
        self.value(&format!("/transcript?{query}")).await
    }
}

/// Asserts a success envelope and returns its value.
#[track_caller]
fn ok(reply: &Reply) -> Value {
    let body = reply.json();
    assert_eq!(reply.status, 200, "body: {body}");
    assert_eq!(body["ok"], true, "body: {body}");
    assert_eq!(body["protocolVersion"], 1);
    body["value"].clone()
}

/// Asserts a failure envelope with this status and code (SPEC D2) and returns the whole body.
#[track_caller]
fn refused(reply: &Reply, status: u16, code: &str) -> Value {
    let body = reply.json();
    assert_eq!(
        (
            reply.status,
            body["error"]["code"].as_str().unwrap_or_default()
        ),
        (status, code),
        "body: {body}"
    );
    assert_eq!(body["ok"], false);
    assert_eq!(body["protocolVersion"], 1);
    assert!(body.get("value").is_none());
    body
}

fn user_messages_with(page: &Value, request_id: &str) -> usize {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|e| e["kind"] == "message" && e["role"] == "user" && e["requestId"] == request_id)
        .count()
}

#[tokio::test]
async fn d1_d2_auth_envelopes_and_unknown_routes() {
    let bridge = start(&["--speed", "0"]);
    let health = format!("{}/health", bridge.prefix);
    refused(
        &bridge.call_as(None, Req::get(&health)).await,
        401,
        "auth/missing-token",
    );
    refused(
        &bridge
            .call_as(
                Some("not-a-token-we-know-0123456789abcdef"),
                Req::get(&health),
            )
            .await,
        403,
        "auth/invalid-token",
    );
    let value = bridge.value("/health").await;
    assert_eq!(value["permissions"]["autoApprove"], false, "SPEC D6");
    assert!(value["pid"].as_u64().is_some());
    assert_eq!(value["routePrefix"], "/codex-bridge");
    refused(&bridge.get("/nope").await, 404, "request/unsupported");
    refused(
        &bridge.post("/health", json!({"requestId": "r-1"})).await,
        404,
        "request/unsupported",
    );
    // SPEC D2: the requestId of the body is echoed, on errors too.
    let body = refused(
        &bridge
            .post(
                "/tasks/append",
                json!({"requestId": "echo-me", "taskId": "task-nope", "kind": "note", "message": "x"}),
            )
            .await,
        404,
        "task/not-found",
    );
    assert_eq!(body["requestId"], "echo-me");
    let caps = bridge.value("/capabilities").await;
    assert_eq!(caps["capabilities"]["permissions"]["autoApprove"], false);
    let presets: Vec<&str> = caps["agentPresets"]
        .as_array()
        .expect("presets")
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert_eq!(presets, ["standard", "ptc", "minimal", "cordis"]);
    assert_eq!(caps["capabilities"]["workspaces"]["create"], true);
    assert!(caps["modelCatalog"]["groups"][0]["models"][0]["reasoning"]["efforts"].is_array());
    let workspaces = bridge.value("/workspaces").await;
    assert_eq!(workspaces["tokenScope"], "all-configured");
    let titles: Vec<&str> = workspaces["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|w| w["title"].as_str())
        .collect();
    assert!(titles.contains(&"泰坦尼克数据分析"), "{titles:?}");
}

#[test]
fn d1_a_non_loopback_address_is_refused() {
    let dir = common::temp_dir();
    let (token_path, _) = common::token_file(dir.path());
    let token = token_path.display().to_string();
    let refused = common::refused(&[
        "dsh-bridge",
        "--demo",
        "--listen",
        "0.0.0.0:0",
        "--token-file",
        &token,
    ]);
    assert!(!refused.status.success());
    assert!(refused.stderr.contains("loopback"), "{}", refused.stderr);
}

#[tokio::test]
async fn d1_bodies_over_256_kib_get_413() {
    let bridge = start(&["--speed", "0"]);
    let big = json!({"requestId": "big", "taskId": "task-sse-fix", "kind": "note",
        "message": "x".repeat(300 * 1024)});
    let path = format!("{}/tasks/append", bridge.prefix);
    let bytes = serde_json::to_vec(&big).expect("json");
    refused(
        &bridge
            .call_as(
                Some(&bridge.token),
                Req::post(&path, json!({})).bytes(bytes.clone()),
            )
            .await,
        413,
        "request/too-large",
    );
    // Without a length the bridge must cap while reading.
    let chunks: Vec<Vec<u8>> = bytes.chunks(64 * 1024).map(<[u8]>::to_vec).collect();
    refused(
        &bridge
            .call_as(
                Some(&bridge.token),
                Req::post(&path, json!({})).chunked(chunks),
            )
            .await,
        413,
        "request/too-large",
    );
    // Nothing was appended.
    let page = bridge.transcript("taskId=task-sse-fix&limit=2000").await;
    assert_eq!(user_messages_with(&page, "big"), 0);
}

#[tokio::test]
async fn d3_scopes_reveal_nothing_of_out_of_scope_tasks() {
    let bridge = start(&["--speed", "0"]);
    let workspaces = ok(&bridge.get_as(DOCS_TOKEN, "/workspaces").await);
    assert_eq!(workspaces["tokenScope"], json!(["ws-docs"]));
    assert_eq!(workspaces["items"].as_array().expect("items").len(), 1);
    let empty = ok(&bridge.get_as(EMPTY_TOKEN, "/workspaces").await);
    assert_eq!(empty["items"], json!([]), "an empty scope reaches nothing");
    let tasks = ok(&bridge.get_as(DOCS_TOKEN, "/tasks/list").await);
    assert_eq!(tasks["items"], json!([]));
    let secrets = ["task-sse-fix", "ws-collie", "session-collie-sse"];
    let hidden = |body: &Value| {
        let text = body.to_string();
        for secret in secrets {
            assert!(!text.contains(secret), "{secret} leaked: {text}");
        }
    };
    hidden(&refused(
        &bridge
            .get_as(DOCS_TOKEN, "/tasks/get?taskId=task-sse-fix")
            .await,
        403,
        "auth/workspace-forbidden",
    ));
    hidden(&refused(
        &bridge
            .get_as(DOCS_TOKEN, "/events?taskId=task-sse-fix")
            .await,
        403,
        "auth/workspace-forbidden",
    ));
    // Create naming an out-of-scope task: 403 without its ids (seed "授权先于任何回放").
    let body = refused(
        &bridge
            .post_as(
                DOCS_TOKEN,
                "/tasks/create",
                json!({"requestId": "probe-1", "workspaceId": "ws-docs", "taskId": "task-sse-fix"}),
            )
            .await,
        403,
        "auth/workspace-forbidden",
    );
    hidden(&body);
    assert_eq!(body["requestId"], "probe-1");
    // A requestId used for an out-of-scope task: 409 echoing only the requestId.
    let made = ok(&bridge
        .post(
            "/tasks/create",
            json!({"requestId": "shared-1", "workspaceId": "ws-collie", "title": "secret work"}),
        )
        .await);
    let made_task = made["task"]["taskId"].as_str().expect("taskId").to_string();
    let body = refused(
        &bridge
            .post_as(
                DOCS_TOKEN,
                "/tasks/create",
                json!({"requestId": "shared-1", "workspaceId": "ws-docs", "title": "secret work"}),
            )
            .await,
        409,
        "request/conflict",
    );
    assert_eq!(body["requestId"], "shared-1");
    assert!(!body.to_string().contains(&made_task), "{body}");
    hidden(&body);
    // Out of scope workspace by id: 403, never 404, so ids cannot be probed.
    refused(
        &bridge
            .post_as(
                DOCS_TOKEN,
                "/tasks/create",
                json!({"requestId": "p2", "workspaceId": "ws-nope"}),
            )
            .await,
        403,
        "auth/workspace-forbidden",
    );
    // allowWorkspaceCreate counts only with the null scope.
    let caps = ok(&bridge.get_as(DOCS_TOKEN, "/capabilities").await);
    assert_eq!(caps["capabilities"]["workspaces"]["create"], false);
    let caps = ok(&bridge.get_as(ALL_NO_CREATE_TOKEN, "/capabilities").await);
    assert_eq!(caps["capabilities"]["workspaces"]["create"], false);
}

#[tokio::test]
async fn d5_create_and_append_resent_with_the_same_id_replay_without_a_second_message() {
    let bridge = start(&["--speed", "0"]);
    let create = json!({"requestId": "create-1", "workspaceId": "ws-collie", "title": "Titanic EDA",
        "objective": "先做数据体检", "agentPreset": "ptc"});
    let first = ok(&bridge.post("/tasks/create", create.clone()).await);
    assert_eq!(first["replayed"], false);
    // As the real bridge: a new task is idle until a round is appended.
    assert_eq!(first["task"]["status"], "idle");
    assert_eq!(first["task"]["title"], "Titanic EDA");
    assert_eq!(first["task"]["requestedConfig"], Value::Null);
    let again = ok(&bridge.post("/tasks/create", create.clone()).await);
    assert_eq!(again["replayed"], true);
    assert_eq!(again["task"]["taskId"], first["task"]["taskId"]);
    assert_eq!(again["task"]["sessionId"], first["task"]["sessionId"]);
    let mut changed = create.clone();
    changed["title"] = json!("another title");
    refused(
        &bridge.post("/tasks/create", changed).await,
        409,
        "request/conflict",
    );
    let task_id = first["task"]["taskId"]
        .as_str()
        .expect("taskId")
        .to_string();

    let append = json!({"requestId": "round-1", "taskId": task_id, "kind": "instruction",
        "message": "先做数据体检再建模"});
    let sent = ok(&bridge.post("/tasks/append", append.clone()).await);
    assert_eq!(
        (sent["round"].clone(), sent["replayed"].clone()),
        (json!(1), json!(false))
    );
    let resent = ok(&bridge.post("/tasks/append", append.clone()).await);
    assert_eq!(
        (resent["round"].clone(), resent["replayed"].clone()),
        (json!(1), json!(true))
    );
    let page = bridge.transcript(&format!("taskId={task_id}")).await;
    assert_eq!(user_messages_with(&page, "round-1"), 1, "{page}");
    let message = page["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|e| e["requestId"] == "round-1")
        .expect("the user message");
    // The real projection: the host's source kind (`user`), the append's requestId.
    assert_eq!(message["source"], "user");
    assert_eq!(message["sessionEventType"], "user/message");
    // The task renamed its session: the host said so with a session/title event.
    assert!(
        page["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|e| e["kind"] == "status" && e["phase"] == "title" && e["title"] == "Titanic EDA"),
        "{page}"
    );
    // Same id, another kind or another task: 409 (SPEC D5).
    let mut other_kind = append.clone();
    other_kind["kind"] = json!("feedback");
    refused(
        &bridge.post("/tasks/append", other_kind).await,
        409,
        "request/conflict",
    );
    let mut other_task = append.clone();
    other_task["taskId"] = json!("task-sse-fix");
    refused(
        &bridge.post("/tasks/append", other_task).await,
        409,
        "request/conflict",
    );
    // A create id reused for an append: 409.
    refused(
        &bridge
            .post(
                "/tasks/append",
                json!({"requestId": "create-1", "taskId": task_id, "kind": "note", "message": "x"}),
            )
            .await,
        409,
        "request/conflict",
    );
    let task = bridge.value(&format!("/tasks/get?taskId={task_id}")).await;
    assert_eq!(task["task"]["rounds"].as_array().expect("rounds").len(), 1);
    assert_eq!(task["task"]["agentPreset"], "ptc");
}

#[tokio::test]
async fn d2_d5_a_timed_out_append_is_resent_with_the_same_id_and_lands_once() {
    let bridge = start(&["--speed", "0"]);
    let made = ok(&bridge
        .post(
            "/tasks/create",
            json!({"requestId": "adopt-docs", "workspaceId": "ws-docs", "sessionId": "session-docs-guide"}),
        )
        .await);
    let task_id = made["task"]["taskId"].as_str().expect("taskId").to_string();
    // Adopting reads the session's history back at once (seed GET /transcript).
    let page = bridge.transcript(&format!("taskId={task_id}")).await;
    assert!(
        page["items"].as_array().expect("items").len() > 10,
        "{page}"
    );
    let append = json!({"requestId": "lost-1", "taskId": task_id, "kind": "instruction",
        "message": "Proofread chapter 2."});
    let body = refused(
        &bridge.post("/tasks/append", append.clone()).await,
        504,
        "bridge/timeout",
    );
    assert_eq!(body["requestId"], "lost-1");
    let resent = ok(&bridge.post("/tasks/append", append).await);
    assert_eq!(resent["replayed"], true);
    let page = bridge
        .transcript(&format!("taskId={task_id}&limit=2000"))
        .await;
    assert_eq!(user_messages_with(&page, "lost-1"), 1);
}

#[tokio::test]
async fn d2_every_host_error_code() {
    let bridge = start(&["--speed", "0"]);
    let create = |extra: Value| {
        let mut body = json!({"requestId": format!("c-{extra}"), "workspaceId": "ws-collie"});
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        body
    };
    refused(
        &bridge
            .post("/tasks/create", json!({"workspaceId": "ws-collie"}))
            .await,
        400,
        "request/bad-request",
    );
    refused(
        &bridge
            .post("/tasks/create", create(json!({"cwd": "/tmp"})))
            .await,
        400,
        "request/bad-request",
    );
    refused(
        &bridge
            .post("/tasks/create", create(json!({"agentPreset": "turbo"})))
            .await,
        400,
        "request/bad-request",
    );
    refused(
        &bridge
            .post("/tasks/create", create(json!({"workspaceId": "ws-nope"})))
            .await,
        404,
        "workspace/not-found",
    );
    refused(
        &bridge
            .post(
                "/tasks/create",
                create(json!({"sessionId": "session-nope"})),
            )
            .await,
        404,
        "session/not-found",
    );
    refused(
        &bridge
            .post(
                "/tasks/create",
                create(json!({"sessionId": "session-docs-guide"})),
            )
            .await,
        409,
        "session/workspace-mismatch",
    );
    refused(
        &bridge
            .get("/transcript?workspaceId=ws-collie&sessionId=session-docs-guide")
            .await,
        409,
        "session/workspace-mismatch",
    );
    let body = refused(
        &bridge
            .post(
                "/tasks/create",
                create(json!({"provider": "nobody", "model": "nothing"})),
            )
            .await,
        409,
        "model/unavailable",
    );
    assert!(
        body["error"]["details"]["availableModels"]
            .as_array()
            .is_some_and(|m| !m.is_empty())
    );
    let body = refused(
        &bridge
            .post(
                "/tasks/create",
                create(json!({"provider": "deepseek-account", "model": "deepseek-reasoner", "reasoningEffort": "low"})),
            )
            .await,
        409,
        "model/reasoning-effort-unavailable",
    );
    assert_eq!(
        body["error"]["details"]["supportedEfforts"],
        json!(["medium", "high"])
    );
    // As the real bridge: creating an open task's id again answers that task as a replay.
    let open = ok(&bridge
        .post("/tasks/create", create(json!({"taskId": "task-sse-fix"})))
        .await);
    assert_eq!(open["replayed"], true);
    assert_eq!(open["task"]["sessionId"], "session-collie-sse");
    // Another runtime holds the writer lock of this session.
    let held = ok(&bridge
        .post(
            "/tasks/create",
            json!({"requestId": "held", "workspaceId": "ws-titanic", "sessionId": "session-titanic-features"}),
        )
        .await);
    refused(
        &bridge
            .post(
                "/tasks/append",
                json!({"requestId": "h1", "taskId": held["task"]["taskId"], "kind": "note", "message": "hi"}),
            )
            .await,
        409,
        "session/writer-held",
    );
    refused(
        &bridge
            .post("/tasks/append", json!({"requestId": "e1", "taskId": "task-sse-fix", "kind": "note", "message": "  "}))
            .await,
        400,
        "request/bad-request",
    );
    refused(
        &bridge
            .post("/tasks/append", json!({"requestId": "e2", "taskId": "task-sse-fix", "kind": "shout", "message": "x"}))
            .await,
        400,
        "request/bad-request",
    );
    refused(
        &bridge.get("/transcript?taskId=task-sse-fix&limit=0").await,
        400,
        "request/bad-request",
    );
    refused(&bridge.get("/transcript").await, 400, "request/bad-request");
    // Close: the task is no longer addressable; the session stays.
    let closed = ok(&bridge
        .post("/tasks/close", json!({"taskId": "task-sse-fix"}))
        .await);
    assert_eq!(
        closed,
        json!({"taskId": "task-sse-fix", "status": "closed", "sessionKept": true})
    );
    refused(
        &bridge.get("/tasks/get?taskId=task-sse-fix").await,
        404,
        "task/not-found",
    );
    // Re-adopting the closed taskId reuses its session.
    let reopened = ok(&bridge
        .post(
            "/tasks/create",
            json!({"requestId": "reopen", "workspaceId": "ws-collie", "taskId": "task-sse-fix"}),
        )
        .await);
    assert_eq!(reopened["task"]["sessionId"], "session-collie-sse");

    let late = start(&["--speed", "0", "--ready-after", "600000"]);
    refused(&late.get("/tasks/list").await, 503, "bridge/not-ready");
    ok(&late.get("/health").await);
}

#[tokio::test]
async fn d6_permission_waits_are_events_and_steer_is_refused_while_one_is_open() {
    let bridge = start(&["--speed", "10"]);
    let task = bridge.value("/tasks/get?taskId=task-titanic-eda").await;
    let since = task["follower"]["cursor"].as_i64().expect("cursor");
    let deadline = Instant::now() + DEADLINE;
    let approval = loop {
        assert!(Instant::now() < deadline, "no permission wait came");
        let waited = ok(&bridge
            .post(
                "/tasks/wait",
                json!({"taskId": "task-titanic-eda", "waitMs": 5000,
                    "condition": {"sinceSeq": since, "on": ["input-request"]}}),
            )
            .await);
        if let Some(event) = waited["events"]
            .as_array()
            .expect("events")
            .iter()
            .find(|e| e["kind"] == "permission")
        {
            break event.clone();
        }
    };
    assert_eq!(approval["phase"], "approval-requested");
    assert!(approval["tool"].is_string());
    let task = bridge.value("/tasks/get?taskId=task-titanic-eda").await;
    // As the real bridge: a permission wait does not change the status; only turn phases do.
    assert_eq!(task["task"]["status"], "running");
    // The requested effort is high; the header shows what was really used (medium).
    assert_eq!(task["task"]["requestedConfig"]["reasoningEffort"], "high");
    assert_eq!(task["task"]["observedConfig"]["reasoningEffort"], "medium");
    assert_eq!(task["task"]["observedConfig"]["reason"], "initial");
    // The host refuses a steer while it waits: the real bridge's 500 for any host refusal.
    let body = refused(
        &bridge
            .post(
                "/tasks/append",
                json!({"requestId": "steer-1", "taskId": "task-titanic-eda", "kind": "instruction",
                    "message": "停一下", "mode": "steer"}),
            )
            .await,
        500,
        "bridge/internal",
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("prompt admission failed: ")),
        "{body}"
    );
    // Cancel during a permission wait: accepted, the task is idle, and no turn end comes (the
    // desktop still waits), as with the real host.
    let cursor = bridge.value("/tasks/get?taskId=task-titanic-eda").await["follower"]["cursor"]
        .as_i64()
        .expect("cursor");
    let cancel = ok(&bridge
        .post("/tasks/cancel", json!({"taskId": "task-titanic-eda"}))
        .await);
    assert_eq!(cancel["accepted"], true);
    let task = bridge.value("/tasks/get?taskId=task-titanic-eda").await;
    assert_eq!(task["task"]["status"], "idle");
    let after = bridge
        .transcript(&format!("taskId=task-titanic-eda&sinceSeq={cursor}"))
        .await;
    assert!(
        after["items"]
            .as_array()
            .expect("items")
            .iter()
            .all(|e| e["phase"] != "turn-aborted"),
        "{after}"
    );
}

#[tokio::test]
async fn d3_wait_times_out_honestly_and_turn_end_needs_a_new_turn() {
    let bridge = start(&["--speed", "0", "--max-wait-ms", "300"]);
    // As the real bridge: before any round, a wait from -1 is answered at once with the
    // history's turn ends (only an appended round raises the floor), and only matched events.
    let waited = ok(&bridge
        .post(
            "/tasks/wait",
            json!({"taskId": "task-sse-fix", "waitMs": 60000, "condition": {"sinceSeq": -1}}),
        )
        .await);
    assert_eq!(waited["timedOut"], false);
    assert_eq!(waited["status"], "idle");
    let matched = waited["events"].as_array().expect("events");
    assert!(!matched.is_empty());
    assert!(
        matched
            .iter()
            .all(|e| e["kind"] == "permission" || e["reason"].is_string()),
        "{waited}"
    );
    let cursor = waited["cursor"].as_i64().expect("cursor");
    let waited = ok(&bridge
        .post(
            "/tasks/wait",
            json!({"taskId": "task-sse-fix", "waitMs": 100, "condition": {"sinceSeq": cursor}}),
        )
        .await);
    assert_eq!(
        (waited["timedOut"].clone(), waited["events"].clone()),
        (json!(true), json!([]))
    );

    let live = start(&["--speed", "40"]);
    let made = ok(&live
        .post(
            "/tasks/create",
            json!({"requestId": "w-1", "workspaceId": "ws-docs"}),
        )
        .await);
    let task_id = made["task"]["taskId"].as_str().expect("taskId").to_string();
    ok(&live
        .post(
            "/tasks/append",
            json!({"requestId": "w-2", "taskId": task_id, "kind": "question", "message": "Is chapter 3 done?"}),
        )
        .await);
    let deadline = Instant::now() + DEADLINE;
    let end = loop {
        assert!(Instant::now() < deadline, "the turn never ended");
        let waited = ok(&live
            .post(
                "/tasks/wait",
                json!({"taskId": task_id, "waitMs": 5000, "condition": {"sinceSeq": -1, "on": ["turn-end"]}}),
            )
            .await);
        if waited["timedOut"] == false {
            break waited;
        }
    };
    // The wait answers the turn end only; the round's words are in the transcript.
    let finish = end["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| {
            e["kind"] == "execution"
                && e["phase"]
                    .as_str()
                    .is_some_and(|p| p.starts_with("turn-") && p != "turn-start")
        })
        .expect("a turn end")
        .clone();
    assert!(finish["reason"].is_string(), "{finish}");
    let page = live
        .transcript(&format!("taskId={task_id}&limit=2000"))
        .await;
    let events = page["items"].as_array().expect("items");
    let user = events
        .iter()
        .position(|e| e["requestId"] == "w-2")
        .expect("the user message");
    let finish = events
        .iter()
        .position(|e| e["sessionSeq"] == finish["sessionSeq"])
        .expect("the turn end in the transcript");
    assert!(finish > user);
    let reply = events
        .iter()
        .find(|e| e["kind"] == "message" && e["role"] == "assistant")
        .expect("the reply");
    assert!(
        reply["text"]
            .as_str()
            .is_some_and(|t| t.contains("Is chapter 3 done?"))
    );
    assert!(reply["usage"]["outputTokens"].is_u64());
    // As the real projection: `model` is the provider, `modelId` the model.
    assert_eq!(reply["model"], "deepseek-account");
    assert!(reply["modelId"].is_string());
}

/// Reads an SSE response body into items, on its own task.
async fn open_events(
    bridge: &Bridge,
    query: &str,
) -> (u16, tokio::sync::mpsc::UnboundedReceiver<SseItem>) {
    let response = bridge.open_events(query).await;
    let status = response.status().as_u16();
    assert_eq!(
        response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("text/event-stream; charset=utf-8")
    );
    let (items_in, items) = tokio::sync::mpsc::unbounded_channel();
    let mut body = response.into_body();
    tokio::spawn(async move {
        let mut reader = SseReader::new(1024 * 1024);
        while let Some(Ok(frame)) = body.frame().await {
            if let Ok(data) = frame.into_data() {
                for item in reader.feed(&data) {
                    if items_in.send(item).is_err() {
                        return;
                    }
                }
            }
        }
    });
    (status, items)
}

/// The next item, or a panic after the deadline.
async fn next(items: &mut tokio::sync::mpsc::UnboundedReceiver<SseItem>) -> SseItem {
    tokio::time::timeout(DEADLINE, items.recv())
        .await
        .expect("an SSE item in time")
        .expect("the stream is open")
}

fn seq_of(item: &SseItem) -> Option<i64> {
    match item {
        SseItem::Frame { event, data } => {
            assert_eq!(event, "bridge");
            let value: Value = serde_json::from_str(data).expect("JSON data");
            value["sessionSeq"].as_i64()
        }
        SseItem::Comment(_) => None,
    }
}

#[tokio::test]
async fn d4_events_keep_alive_resume_and_duplicates_after_a_reload() {
    let bridge = start(&["--speed", "0", "--keep-alive-ms", "150"]);
    let health = bridge.value("/health").await;
    let pid = health["pid"].as_u64().expect("pid");
    let (status, mut items) = open_events(&bridge, "taskId=task-sse-fix&sinceSeq=-1").await;
    assert_eq!(status, 200);
    // First the tail, in order, then a keep-alive comment.
    let mut seqs = Vec::new();
    loop {
        match next(&mut items).await {
            SseItem::Comment(comment) => {
                assert_eq!(comment, "keep-alive");
                break;
            }
            frame => seqs.push(seq_of(&frame).expect("sessionSeq")),
        }
    }
    assert!(
        seqs.len() > 10 && seqs.windows(2).all(|w| w[0] < w[1]),
        "{seqs:?}"
    );
    let last = *seqs.last().expect("a last seq");

    // The desktop reloads: a new pid, and the last events come again (at least once, SPEC D4).
    // SAFETY: kill(2) with SIGHUP on the bridge's own pid, which /health just reported.
    let sent = unsafe { libc::kill(pid as i32, libc::SIGHUP) };
    assert_eq!(sent, 0);
    let mut again = Vec::new();
    while again.len() < 3 {
        if let Some(seq) = seq_of(&next(&mut items).await) {
            again.push(seq);
        }
    }
    assert!(
        again.iter().all(|seq| *seq <= last),
        "duplicates of seen events: {again:?}"
    );
    let deadline = Instant::now() + DEADLINE;
    while bridge.value("/health").await["pid"] == json!(pid) {
        assert!(Instant::now() < deadline, "the pid never changed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Resume by sinceSeq: nothing at or below it comes; a new event does.
    let (_, mut resumed) =
        open_events(&bridge, &format!("taskId=task-sse-fix&sinceSeq={last}")).await;
    ok(&bridge
        .post(
            "/tasks/append",
            json!({"requestId": "sse-1", "taskId": "task-sse-fix", "kind": "note", "message": "live one"}),
        )
        .await);
    let first = loop {
        if let Some(seq) = seq_of(&next(&mut resumed).await) {
            break seq;
        }
    };
    assert_eq!(first, last + 1);
    // As the real bridge, close does not end the stream: it only sends keep-alives from then
    // on (the client hangs up).
    ok(&bridge
        .post("/tasks/close", json!({"taskId": "task-sse-fix"}))
        .await);
    let mut comments = 0;
    while comments < 3 {
        match next(&mut resumed).await {
            SseItem::Comment(comment) => {
                assert_eq!(comment, "keep-alive");
                comments += 1;
            }
            // Frames written before the close may still be on their way; none after it.
            SseItem::Frame { .. } => assert_eq!(comments, 0, "a frame after the close"),
        }
    }
}

#[tokio::test]
async fn d4_transcript_pages_and_shows_a_gap_it_cannot_fill() {
    // A durable log shorter than the tail: what the tail drops is gone for good.
    let bridge = start(&["--speed", "0", "--event-cache", "10", "--durable-log", "5"]);
    for round in 0..10 {
        ok(&bridge
            .post(
                "/tasks/append",
                json!({"requestId": format!("gap-{round}"), "taskId": "task-sse-fix",
                    "kind": "note", "message": format!("note {round}")}),
            )
            .await);
    }
    let page = bridge.transcript("taskId=task-sse-fix&sinceSeq=-1").await;
    let cursor = page["cursor"].as_i64().expect("cursor");
    let items = page["items"].as_array().expect("items");
    assert_eq!(items.len(), 10, "{page}");
    // The real rule: the durable log does not reach the tail's truncation point, so that
    // point is the gap.
    let point = cursor - 10;
    assert_eq!(page["truncatedBefore"], point);
    assert_eq!(items[0]["sessionSeq"], point + 1);
    assert_eq!(page["source"], "bridge-follower+durable");
    assert!(items.iter().all(|e| e["taskId"] == "task-sse-fix"));
    let task = bridge.value("/tasks/get?taskId=task-sse-fix").await;
    assert_eq!(task["follower"]["truncatedBefore"], point);
    // `limit` keeps the newest items, as the real bridge.
    let small = bridge
        .transcript("taskId=task-sse-fix&sinceSeq=-1&limit=5")
        .await;
    let small = small["items"].as_array().expect("items");
    assert_eq!(small.len(), 5);
    assert_eq!(small[0]["sessionSeq"], cursor - 4);
    // A cursor the tail serves reads the tail only, and (the real quirk) still names the
    // tail's truncation point.
    let recent = bridge
        .transcript(&format!("taskId=task-sse-fix&sinceSeq={}", cursor - 3))
        .await;
    assert_eq!(recent["truncatedBefore"], point);
    assert_eq!(recent["source"], "bridge-follower");
    assert_eq!(recent["items"].as_array().expect("items").len(), 3);
    // A followed session read by workspace is its task's page.
    let by_session = bridge
        .transcript("workspaceId=ws-collie&sessionId=session-collie-sse&sinceSeq=-1")
        .await;
    assert_eq!(by_session["taskId"], "task-sse-fix");
    // A session nobody follows is the whole durable log, sinceSeq and limit not read.
    let durable = bridge
        .transcript("workspaceId=ws-collie&sessionId=session-collie-config")
        .await;
    assert_eq!(durable["source"], "durable-log");
    assert!(durable.get("taskId").is_none(), "{durable}");
    assert!(durable.get("truncatedBefore").is_none(), "{durable}");
    let whole = durable["items"].as_array().expect("items");
    assert_eq!(whole.len(), 5);
    assert!(whole.iter().all(|e| e["taskId"] == Value::Null));
    let ignored = bridge
        .transcript("workspaceId=ws-collie&sessionId=session-collie-config&sinceSeq=3&limit=1")
        .await;
    assert_eq!(ignored, durable);
    let sessions = bridge.value("/sessions?workspaceId=ws-collie").await;
    assert_eq!(sessions["workspaceId"], "ws-collie");
    assert_eq!(sessions["items"].as_array().expect("items").len(), 2);
    // As the real bridge: once its task is closed, a session is task/not-found by workspace.
    ok(&bridge
        .post("/tasks/close", json!({"taskId": "task-sse-fix"}))
        .await);
    refused(
        &bridge
            .get("/transcript?workspaceId=ws-collie&sessionId=session-collie-sse")
            .await,
        404,
        "task/not-found",
    );
}

#[tokio::test]
async fn workspaces_create_takes_only_existing_absolute_allowed_directories() {
    let allowed = common::temp_dir();
    let allowed_path = allowed.path().display().to_string();
    let bridge = start(&["--speed", "0", "--workspace-path", &allowed_path]);
    let create = |id: &str, path: &str| json!({"requestId": id, "path": path});
    refused(
        &bridge
            .post("/workspaces/create", create("w1", "relative/dir"))
            .await,
        400,
        "request/bad-request",
    );
    refused(
        &bridge
            .post(
                "/workspaces/create",
                create("w2", &format!("{allowed_path}/missing")),
            )
            .await,
        400,
        "request/bad-request",
    );
    let file = allowed.path().join("file.txt");
    std::fs::write(&file, "x").expect("write");
    refused(
        &bridge
            .post(
                "/workspaces/create",
                create("w3", &file.display().to_string()),
            )
            .await,
        400,
        "request/bad-request",
    );
    let outside = bridge.dir.path().display().to_string();
    refused(
        &bridge
            .post("/workspaces/create", create("w4", &outside))
            .await,
        403,
        "auth/workspace-forbidden",
    );
    refused(
        &bridge
            .post_as(
                DOCS_TOKEN,
                "/workspaces/create",
                create("w5", &allowed_path),
            )
            .await,
        403,
        "auth/workspace-forbidden",
    );
    refused(
        &bridge
            .post_as(
                ALL_NO_CREATE_TOKEN,
                "/workspaces/create",
                create("w5", &allowed_path),
            )
            .await,
        403,
        "auth/workspace-forbidden",
    );
    let made = ok(&bridge
        .post("/workspaces/create", create("w6", &allowed_path))
        .await);
    assert_eq!(
        (made["replayed"].clone(), made["reused"].clone()),
        (json!(false), json!(false))
    );
    let again = ok(&bridge
        .post("/workspaces/create", create("w6", &allowed_path))
        .await);
    assert_eq!(again["replayed"], true);
    assert_eq!(again["workspace"], made["workspace"]);
    refused(
        &bridge
            .post(
                "/workspaces/create",
                create("w6", &format!("{allowed_path}/.")),
            )
            .await,
        409,
        "request/conflict",
    );
    let reused = ok(&bridge
        .post("/workspaces/create", create("w7", &allowed_path))
        .await);
    assert_eq!(
        (reused["reused"].clone(), reused["replayed"].clone()),
        (json!(true), json!(false))
    );
    assert_eq!(
        reused["workspace"]["workspaceId"],
        made["workspace"]["workspaceId"]
    );
    // The null-scope token sees the new workspace at once.
    let workspaces = ok(&bridge.get_as(ALL_NO_CREATE_TOKEN, "/workspaces").await);
    assert!(
        workspaces
            .to_string()
            .contains(made["workspace"]["workspaceId"].as_str().expect("id"))
    );
    // A new task in it works.
    let id = made["workspace"]["workspaceId"].clone();
    ok(&bridge
        .post(
            "/tasks/create",
            json!({"requestId": "in-new", "workspaceId": id}),
        )
        .await);
}
