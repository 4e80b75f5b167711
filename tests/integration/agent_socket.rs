//! The reference agent over its private Unix socket: the socket rules (SPEC S1, S2) and every
//! agent-side rule of the wire, hello, asks and request ids, against the real binary.

use crate::common;

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::time::Duration;

use common::*;
use hyper::Method;
use serde_json::{Value, json};

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).expect("stat").permissions().mode() & 0o777
}

// ----- S: the socket -------------------------------------------------------------------------

#[test]
fn s1_relative_socket_path_is_refused() {
    let refused = refused(&["agent", "--socket", "run/agent.sock"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        refused.stderr.contains("not absolute"),
        "{}",
        refused.stderr
    );
}

#[test]
fn s1_socket_path_over_103_bytes_is_refused() {
    let path = format!("/tmp/{}/agent.sock", "x".repeat(90));
    assert!(path.len() > 103);
    let refused = refused(&["agent", "--socket", &path]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(refused.stderr.contains("103"), "{}", refused.stderr);
    assert!(!std::path::Path::new(&path).exists());
}

#[test]
fn s1_socket_path_comes_from_collie_durable_socket() {
    let dir = temp_dir();
    let socket = dir.path().join("run").join("env.sock");
    let agent = AgentProcess::start_with_env(
        &["agent"],
        &[("COLLIE_DURABLE_SOCKET", socket.to_str().expect("utf-8"))],
    );
    assert_eq!(agent.socket_path(), socket);
}

#[tokio::test]
async fn s2_folder_made_0700_socket_0600_and_listening_line() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let socket = agent.socket_path();
    assert_eq!(agent.url, format!("unix:{}", socket.display()));
    assert_eq!(mode(socket.parent().expect("folder")), 0o700);
    assert!(
        std::fs::symlink_metadata(&socket)
            .expect("stat")
            .file_type()
            .is_socket()
    );
    assert_eq!(mode(&socket), 0o600);
    agent.client().get(HELLO).await.expect(200, "");
}

#[tokio::test]
async fn s2_stale_socket_is_removed_before_listening() {
    let dir = temp_dir();
    let folder = dir.path().join("run");
    std::fs::create_dir(&folder).expect("mkdir");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let socket = folder.join("agent.sock");
    // A listener that is gone leaves its socket file behind, as a crashed agent would.
    drop(std::os::unix::net::UnixListener::bind(&socket).expect("bind"));
    assert!(socket.exists());
    let agent = socket_agent(dir.path(), &[]);
    agent.client().get(HELLO).await.expect(200, "");
}

#[test]
fn s2_a_file_that_is_not_a_socket_is_left_alone() {
    let dir = temp_dir();
    let folder = dir.path().join("run");
    std::fs::create_dir(&folder).expect("mkdir");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let socket = folder.join("agent.sock");
    std::fs::write(&socket, "precious").expect("write");
    let refused = refused(&["agent", "--socket", socket.to_str().expect("utf-8")]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        refused.stderr.contains("not a socket"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&socket).expect("still there"),
        "precious"
    );
}

#[test]
fn s2_a_live_socket_is_not_taken_over() {
    let dir = temp_dir();
    let first = socket_agent(dir.path(), &[]);
    let socket = first.socket_path();
    let refused = refused(&["agent", "--socket", socket.to_str().expect("utf-8")]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        refused.stderr.contains("another program is listening"),
        "{}",
        refused.stderr
    );
    assert!(socket.exists());
}

#[test]
fn s2_folder_that_is_not_private_is_refused() {
    let dir = temp_dir();
    let folder = dir.path().join("open");
    std::fs::create_dir(&folder).expect("mkdir");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let socket = folder.join("agent.sock");
    let refused = refused(&["agent", "--socket", socket.to_str().expect("utf-8")]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(refused.stderr.contains("chmod 700"), "{}", refused.stderr);
    assert!(!socket.exists());
}

#[test]
fn s2_sigint_and_sigterm_stop_and_remove_the_socket() {
    for terminate in [false, true] {
        let dir = temp_dir();
        let mut agent = socket_agent(dir.path(), &[]);
        let socket = agent.socket_path();
        assert!(socket.exists());
        let status = agent.stop(terminate);
        assert!(
            status.success(),
            "exit {status:?}, stderr {}",
            agent.stderr()
        );
        assert!(!socket.exists(), "the socket file is gone after the signal");
    }
}

// ----- W: the wire ---------------------------------------------------------------------------

#[tokio::test]
async fn w2_w6_not_found_outside_the_prefix_and_on_unknown_routes() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    for req in [
        Req::get("/hello"),
        Req::get("/"),
        Req::get("/session/v2/hello"),
        Req::get("/session/v1/nothing-here"),
        Req::get("/session/v1/hello/"),
        Req::new(Method::POST, "/session/v1/hello"),
        Req::new(Method::DELETE, "/session/v1/snapshot"),
        Req::get("/session/v1/pane/p-1/answer"),
        Req::new(Method::POST, "/session/v1/pane/p-1/explode"),
        // W6 comes before W3: an unknown path without a version is still not-found.
        Req::get("/session/v1/nothing-here").version(None),
    ] {
        let reply = client.send(req.clone()).await;
        reply.expect(404, "not-found");
        assert_eq!(
            reply.header("content-type").as_deref(),
            Some("application/json"),
            "{req:?}"
        );
    }
}

#[tokio::test]
async fn w3_version_header_required_on_every_route_but_hello() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    client
        .send(Req::get(HELLO).version(None))
        .await
        .expect(200, "");
    for version in [None, Some("one"), Some("")] {
        client
            .send(Req::get(SNAPSHOT).version(version))
            .await
            .expect(400, "version-required");
        client
            .send(Req::post(&pane_path("p-1", "send"), json!({"requestId": "r"})).version(version))
            .await
            .expect(400, "version-required");
    }
}

#[tokio::test]
async fn w4_empty_post_body_reads_as_empty_object() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    let reply = client
        .send(Req::new(Method::POST, "/session/v1/rename"))
        .await;
    let body = reply.expect(400, "bad-request");
    // `{}` parsed fine; what is missing is the request id, not valid JSON.
    assert!(
        body["message"]
            .as_str()
            .unwrap_or_default()
            .contains("requestId"),
        "{body}"
    );
    let reply = client
        .send(Req::new(Method::POST, "/session/v1/rename").bytes(b"[1, 2]".to_vec()))
        .await;
    reply.expect(400, "bad-request");
    let reply = client
        .send(Req::new(Method::POST, "/session/v1/rename").bytes(b"{not json".to_vec()))
        .await;
    reply.expect(400, "bad-request");
}

#[tokio::test]
async fn w4_body_over_64_kib_is_too_large_with_or_without_a_length() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    let path = "/session/v1/rename";
    let over = vec![b' '; 64 * 1024 + 1];
    client
        .send(Req::new(Method::POST, path).bytes(over.clone()))
        .await
        .expect(413, "too-large");
    // Without a declared length the cap holds while reading.
    let chunks: Vec<Vec<u8>> = over.chunks(8 * 1024).map(<[u8]>::to_vec).collect();
    client
        .send(Req::new(Method::POST, path).chunked(chunks))
        .await
        .expect(413, "too-large");
    // Exactly 64 KiB is still read.
    let mut body =
        json!({"requestId": "w4-edge", "kind": "workspace", "id": "no-such", "title": "x"})
            .to_string()
            .into_bytes();
    body.resize(64 * 1024, b' ');
    client
        .send(Req::new(Method::POST, path).bytes(body))
        .await
        .expect(404, "no-such-target");
}

// ----- H: hello, readiness, ETag ----------------------------------------------------------

#[tokio::test]
async fn h1_hello_fields() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &["--name", "test bench"]);
    let client = agent.client();
    let reply = client.send(Req::get(HELLO).version(None)).await;
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("application/json")
    );
    let hello = reply.expect(200, "");
    assert_eq!(hello["service"], "collie-durable");
    assert_eq!(hello["protocol"], json!({"min": 1, "max": 1}));
    assert_eq!(hello["host"]["name"], "test bench");
    let epoch = hello["epoch"].as_str().expect("epoch");
    assert!(
        epoch.len() >= 32 && epoch.chars().all(|c| c.is_ascii_hexdigit()),
        "{epoch}"
    );
    assert_eq!(hello["ready"], true);
    let caps = hello["caps"].as_object().expect("caps");
    assert!(caps.values().all(Value::is_boolean));
    // Over the private socket allow-always may be offered (SPEC S5, A11).
    assert_eq!(caps["allowAlways"], true);
    // With the version it chose, Collie may call hello again (SPEC H2).
    assert_eq!(client.get(HELLO).await.expect(200, "")["epoch"], epoch);
    // A fresh epoch per start (SPEC H1, H5).
    let other_dir = temp_dir();
    let again = socket_agent(other_dir.path(), &[]);
    let other = again.client().get(HELLO).await.expect(200, "");
    assert_ne!(other["epoch"], epoch);
}

#[tokio::test]
async fn h3_not_ready_answers_503_starting_until_ready() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &["--ready-after", "1500"]);
    let client = agent.client();
    let hello = client
        .send(Req::get(HELLO).version(None))
        .await
        .expect(200, "");
    assert_eq!(hello["ready"], false);
    client.get(SNAPSHOT).await.expect(503, "starting");
    client
        .get("/session/v1/pane/p-1/events?after=0")
        .await
        .expect(503, "starting");
    client
        .get("/session/v1/conversations")
        .await
        .expect(503, "starting");
    client
        .post("/session/v1/rename", json!({"requestId": "h3"}))
        .await
        .expect(503, "starting");
    wait_ready(&client).await;
    client.get(SNAPSHOT).await.expect(200, "");
}

#[tokio::test]
async fn h4_etag_and_304_and_t5_weak_tag() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    let hello = client.get(HELLO).await.expect(200, "");
    let reply = client.get(SNAPSHOT).await;
    let snapshot = reply.expect(200, "");
    let tag = reply.header("etag").expect("an ETag");
    assert_eq!(
        tag,
        format!(
            "\"{}-{}\"",
            hello["epoch"].as_str().expect("epoch"),
            snapshot["rev"]
        )
    );

    let unchanged = client
        .send(Req::get(SNAPSHOT).header("if-none-match", &tag))
        .await;
    assert_eq!(unchanged.status, 304);
    assert!(unchanged.body.is_empty());
    assert_eq!(unchanged.header("etag"), Some(tag.clone()));
    // SPEC T5: a proxy may weaken the tag.
    let weak = client
        .send(Req::get(SNAPSHOT).header("if-none-match", &format!("W/{tag}")))
        .await;
    assert_eq!(weak.status, 304);

    // A change a reader can see moves the tag.
    let workspace = snapshot["workspaces"][0]["id"]
        .as_str()
        .expect("a workspace")
        .to_string();
    client
        .post(
            "/session/v1/rename",
            json!({"requestId": "h4", "kind": "workspace", "id": workspace, "title": "Renamed"}),
        )
        .await
        .expect(200, "ok");
    let changed = client
        .send(Req::get(SNAPSHOT).header("if-none-match", &tag))
        .await;
    let body = changed.expect(200, "");
    assert!(body["rev"].as_u64() > snapshot["rev"].as_u64());
    assert_ne!(changed.header("etag"), Some(tag));
    assert_eq!(body["workspaces"][0]["title"], "Renamed");
}

// ----- V: the telling hello -----------------------------------------------------------------

#[tokio::test]
async fn v4_telling_hello_gets_409_incompatible_with_both_ranges() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    let telling = Req::get(HELLO)
        .version(Some("2"))
        .header("x-collie-accepts", "2-3");
    for _ in 0..2 {
        let body = client
            .send(telling.clone())
            .await
            .expect(409, "incompatible");
        assert_eq!(
            body["refusal"],
            json!({"agent": {"min": 1, "max": 1}, "collie": {"min": 2, "max": 3}})
        );
    }
    let body = client
        .send(Req::get(HELLO).version(Some("7")))
        .await
        .expect(409, "incompatible");
    assert_eq!(body["refusal"]["collie"], json!({"min": 7, "max": 7}));
    // A later call with a version we do not speak is refused the same way (SPEC W3, H2).
    client
        .send(Req::get(SNAPSHOT).version(Some("2")))
        .await
        .expect(409, "incompatible");
    // SPEC V4/V5: one log line per refused range, not per request.
    let log = eventually("the refusal log", Duration::from_secs(5), || {
        let log = agent.stderr();
        async move { log.contains("v7").then_some(log) }
    })
    .await;
    assert_eq!(log.matches("v2–v3").count(), 1, "{log}");
}

// ----- A: asks and answers ------------------------------------------------------------------

async fn answer(
    client: &Client,
    pane: &str,
    request_id: &str,
    ask: &Value,
    revision: u64,
    answer: Value,
) -> Reply {
    client
        .post(
            &pane_path(pane, "answer"),
            json!({"requestId": request_id, "askId": ask["id"], "revision": revision, "answer": answer}),
        )
        .await
}

fn revision(ask: &Value) -> u64 {
    ask["revision"].as_u64().expect("a revision")
}

#[tokio::test]
async fn a3_answer_to_an_old_revision_is_stale() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    let (pane, ask) = find_ask(&snapshot(&client).await, "choice").expect("an open choice");
    let reply = answer(
        &client,
        &pane,
        "a3",
        &ask,
        revision(&ask) + 1,
        answer_for(&ask),
    )
    .await;
    let body = reply.expect(409, "stale");
    assert_eq!(body["revision"], ask["revision"]);
    assert_eq!(body["requestId"], "a3");
    // Nothing was decided: the ask is still open.
    assert!(find_ask(&snapshot(&client).await, "choice").is_some());
}

#[tokio::test]
async fn a4_answer_closes_the_ask_by_phone_and_a7_second_answer_is_decided() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    let before = snapshot(&client).await;
    let (pane, ask) = find_ask(&before, "permission").expect("an open permission");
    let epoch = before["epoch"].as_str().expect("epoch").to_string();
    let events_before = client
        .get(&format!(
            "{}?after=0&epoch={epoch}",
            pane_path(&pane, "events")
        ))
        .await
        .expect(200, "");
    let cursor = events_before["cursor"].as_u64().expect("cursor");

    let first = answer(
        &client,
        &pane,
        "a4-first",
        &ask,
        revision(&ask),
        answer_for(&ask),
    )
    .await
    .expect(200, "ok");
    assert_eq!(first["requestId"], "a4-first");
    let outcome = first["outcome"].clone();
    assert_eq!(outcome["optionId"], ask["permission"]["options"][0]["id"]);

    let after = snapshot(&client).await;
    let pane_now = panes(&after)
        .into_iter()
        .find(|p| p["id"] == pane.as_str())
        .expect("the pane");
    assert!(
        pane_now["asks"]
            .as_array()
            .expect("asks")
            .iter()
            .all(|a| a["id"] != ask["id"])
    );
    if pane_now["asks"].as_array().is_some_and(Vec::is_empty) {
        assert_ne!(pane_now["state"], "waiting");
    }
    let events = client
        .get(&format!(
            "{}?after={cursor}&epoch={epoch}",
            pane_path(&pane, "events")
        ))
        .await
        .expect(200, "");
    let closed = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["type"] == "ask-closed" && e["askId"] == ask["id"])
        .cloned()
        .expect("an ask-closed event");
    assert_eq!(closed["by"], "phone");
    assert_eq!(closed["outcome"], outcome);

    // SPEC A7: a later tap is told who decided and the first outcome; nothing runs.
    let second = answer(
        &client,
        &pane,
        "a7-second",
        &ask,
        revision(&ask),
        answer_for(&ask),
    )
    .await;
    let body = second.expect(409, "decided");
    assert_eq!(body["by"], "phone");
    assert_eq!(body["outcome"], outcome);
    assert_eq!(body["requestId"], "a7-second");
}

#[tokio::test]
async fn a8_unknown_ask_is_200_too_late() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    let (pane, _) = find_ask(&snapshot(&client).await, "text").expect("an open text ask");
    let body = client
        .post(
            &pane_path(&pane, "answer"),
            json!({"requestId": "a8", "askId": "ask-from-before-a-restart", "revision": 1, "answer": {"text": "hi"}}),
        )
        .await
        .expect(200, "too-late");
    assert_eq!(body["requestId"], "a8");
}

#[tokio::test]
async fn a15_answer_of_the_wrong_shape_is_bad_answer() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    let world = snapshot(&client).await;
    let (text_pane, text_ask) = find_ask(&world, "text").expect("an open text ask");
    let (form_pane, form_ask) = find_ask(&world, "form").expect("an open form");
    let (choice_pane, choice_ask) = find_ask(&world, "choice").expect("an open choice");
    let (perm_pane, perm_ask) = find_ask(&world, "permission").expect("an open permission");
    let cases = [
        (&text_pane, &text_ask, json!({"optionId": "yes"})),
        (&form_pane, &form_ask, json!({"text": "not a form"})),
        (
            &form_pane,
            &form_ask,
            json!({"values": {"no-such-field": 1}}),
        ),
        (
            &choice_pane,
            &choice_ask,
            json!({"optionId": "not-an-option"}),
        ),
        (&perm_pane, &perm_ask, json!({"text": "allow"})),
    ];
    for (index, (pane, ask, wrong)) in cases.into_iter().enumerate() {
        let reply = answer(
            &client,
            pane,
            &format!("a15-{index}"),
            ask,
            revision(ask),
            wrong,
        )
        .await;
        reply.expect(400, "bad-answer");
    }
    // The asks are all still open.
    let after = snapshot(&client).await;
    for kind in ["text", "form", "choice", "permission"] {
        assert!(find_ask(&after, kind).is_some(), "{kind} still open");
    }
    // And the right shape is taken (SPEC A15), for every kind.
    for (index, kind) in ["text", "form", "choice", "permission"]
        .into_iter()
        .enumerate()
    {
        let (pane, ask) = find_ask(&after, kind).expect("open");
        answer(
            &client,
            &pane,
            &format!("a15-ok-{index}"),
            &ask,
            revision(&ask),
            answer_for(&ask),
        )
        .await
        .expect(200, "ok");
    }
}

#[tokio::test]
async fn a16_send_to_an_old_turn_is_refused_and_abort_twice_is_not_running() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    let (pane, turn) = running_pane(&snapshot(&client).await).expect("a running pane");
    let body = client
        .post(
            &pane_path(&pane, "send"),
            json!({"requestId": "a16-send", "turnId": "an-old-turn", "text": "hi"}),
        )
        .await
        .expect(409, "turn-changed");
    assert_eq!(body["turnId"], turn.as_str());
    let body = client
        .post(
            &pane_path(&pane, "abort"),
            json!({"requestId": "a16-abort-1", "turnId": turn}),
        )
        .await
        .expect(200, "ok");
    assert_eq!(body["turnId"], turn.as_str());
    client
        .post(
            &pane_path(&pane, "abort"),
            json!({"requestId": "a16-abort-2", "turnId": turn}),
        )
        .await
        .expect(409, "not-running");
    client
        .post(
            &pane_path(&pane, "abort"),
            json!({"requestId": "a16-abort-3", "turnId": "an-old-turn"}),
        )
        .await
        .expect(409, "turn-changed");
}

// ----- Q: request ids -----------------------------------------------------------------------

/// How many user items with `text` the pane's events hold.
async fn user_items(client: &Client, pane: &str, epoch: &str, text: &str) -> usize {
    let events = client
        .get(&format!(
            "{}?after=0&epoch={epoch}",
            pane_path(pane, "events")
        ))
        .await
        .expect(200, "");
    events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "item" && e["item"]["kind"] == "user" && e["item"]["text"] == text)
        .count()
}

#[tokio::test]
async fn q3_same_id_same_body_replays_and_other_body_is_reused() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    let world = snapshot(&client).await;
    let epoch = world["epoch"].as_str().expect("epoch").to_string();
    let (pane, turn) = running_pane(&world).expect("a running pane");
    let request = json!({"requestId": "q3-send", "turnId": turn, "text": "Only once, please."});
    let first = client
        .post(&pane_path(&pane, "send"), request.clone())
        .await
        .expect(200, "ok");
    assert!(first.get("replayed").is_none());
    let again = client
        .post(&pane_path(&pane, "send"), request.clone())
        .await
        .expect(200, "ok");
    assert_eq!(again["replayed"], true);
    assert_eq!(again["turnId"], first["turnId"]);
    assert_eq!(again["steered"], first["steered"]);
    assert_eq!(
        user_items(&client, &pane, &epoch, "Only once, please.").await,
        1,
        "the send ran once"
    );

    let other = json!({"requestId": "q3-send", "turnId": turn, "text": "Something else."});
    let body = client
        .post(&pane_path(&pane, "send"), other)
        .await
        .expect(409, "request-id-reused");
    assert_eq!(body["requestId"], "q3-send");
    assert_eq!(
        user_items(&client, &pane, &epoch, "Something else.").await,
        0
    );

    // A domain refusal is a reply too, and is replayed as it was (SPEC Q3).
    let gone = json!({"requestId": "q3-gone", "turnId": null, "text": "hello?"});
    client
        .post(&pane_path("no-such-pane", "send"), gone.clone())
        .await
        .expect(404, "no-such-pane");
    let replayed = client
        .post(&pane_path("no-such-pane", "send"), gone)
        .await
        .expect(404, "no-such-pane");
    assert_eq!(replayed["replayed"], true);
}

#[tokio::test]
async fn q1_missing_or_bad_request_id_is_bad_request() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    for body in [
        json!({}),
        json!({"requestId": 7}),
        json!({"requestId": ""}),
        json!({"requestId": "has space"}),
    ] {
        let reply = client.post("/session/v1/close", body.clone()).await;
        let error = reply.expect(400, "bad-request");
        assert!(
            error["message"]
                .as_str()
                .unwrap_or_default()
                .contains("requestId"),
            "{body} -> {error}"
        );
    }
}

// ----- events and history -------------------------------------------------------------------

#[tokio::test]
async fn w5_events_paging_cursor_more_and_view_for_another_epoch() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &["--world", "big"]);
    let client = agent.client();
    let world = snapshot(&client).await;
    let epoch = world["epoch"].as_str().expect("epoch").to_string();
    let mut long = None;
    for pane in panes(&world).iter().take(8) {
        let id = pane["id"].as_str().expect("id").to_string();
        let reply = client
            .get(&format!(
                "{}?after=0&epoch={epoch}",
                pane_path(&id, "events")
            ))
            .await
            .expect(200, "");
        if reply["more"] == true {
            long = Some((id, reply));
            break;
        }
    }
    let (pane, first) = long.expect("a pane with more than 1000 events in the big world");
    let events = first["events"].as_array().expect("events");
    assert_eq!(events.len(), 1000, "SPEC L: 1000 events a reply");
    assert_eq!(first["cursor"], events[999]["seq"]);
    assert!(first.get("view").is_none());

    let mut cursor = first["cursor"].as_u64().expect("cursor");
    let mut last_seq = cursor;
    loop {
        let page = client
            .get(&format!(
                "{}?after={cursor}&epoch={epoch}",
                pane_path(&pane, "events")
            ))
            .await
            .expect(200, "");
        for event in page["events"].as_array().expect("events") {
            let seq = event["seq"].as_u64().expect("seq");
            assert_eq!(seq, last_seq + 1, "no gap, no repeat");
            last_seq = seq;
        }
        cursor = page["cursor"].as_u64().expect("cursor");
        if page["more"] == false {
            break;
        }
    }
    let tail = client
        .get(&format!(
            "{}?after={cursor}&epoch={epoch}",
            pane_path(&pane, "events")
        ))
        .await
        .expect(200, "");
    assert!(tail["events"].as_array().expect("events").is_empty());
    assert_eq!(tail["cursor"], cursor);

    // SPEC H5: a reader of another epoch gets the pane's whole view instead of events.
    let stranger = client
        .get(&format!(
            "{}?after=5&epoch=another-epoch",
            pane_path(&pane, "events")
        ))
        .await
        .expect(200, "");
    assert!(stranger["events"].as_array().expect("events").is_empty());
    let view = &stranger["view"];
    assert!(
        view["items"]
            .as_array()
            .is_some_and(|items| !items.is_empty() && items.len() <= 2000)
    );
    assert!(view["state"].is_string());
    assert_eq!(stranger["epoch"], epoch.as_str());

    client
        .get(&format!("{}?after=soon", pane_path(&pane, "events")))
        .await
        .expect(400, "bad-request");
    client
        .get(&format!("{}?after=0", pane_path("no-such-pane", "events")))
        .await
        .expect(404, "no-such-pane");
}

#[tokio::test]
async fn w5_history_paging_and_reopen() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    let first = client
        .get("/session/v1/conversations?limit=2")
        .await
        .expect(200, "");
    let rows = first["conversations"].as_array().expect("conversations");
    assert_eq!(rows.len(), 2);
    let next = first["next"].as_str().expect("a next page").to_string();
    let second = client
        .get(&format!("/session/v1/conversations?after={next}&limit=2"))
        .await
        .expect(200, "");
    let more = second["conversations"].as_array().expect("conversations");
    assert!(!more.is_empty());
    assert!(
        more.iter()
            .all(|row| rows.iter().all(|seen| seen["id"] != row["id"])),
        "pages do not overlap"
    );
    client
        .get("/session/v1/conversations?after=a%20b")
        .await
        .expect(400, "bad-request");
    client
        .get("/session/v1/conversations?limit=lots")
        .await
        .expect(400, "bad-request");

    // Items of one conversation, oldest first, a page at a time.
    let default_page = client
        .get("/session/v1/conversations")
        .await
        .expect(200, "");
    let with_items = default_page["conversations"]
        .as_array()
        .expect("conversations")
        .iter()
        .find(|row| row["itemCount"].as_u64().is_some_and(|n| n >= 2))
        .cloned()
        .expect("a conversation with items");
    let id = with_items["id"].as_str().expect("id");
    let page = client
        .get(&format!("/session/v1/conversation/{id}/items?limit=1"))
        .await
        .expect(200, "");
    assert_eq!(page["items"].as_array().map(Vec::len), Some(1));
    let next = page["next"].as_str().expect("a next page").to_string();
    let page2 = client
        .get(&format!(
            "/session/v1/conversation/{id}/items?after={next}&limit=1"
        ))
        .await
        .expect(200, "");
    assert_ne!(page2["items"][0]["id"], page["items"][0]["id"]);
    client
        .get("/session/v1/conversation/no-such/items")
        .await
        .expect(404, "no-such-conversation");

    // Close a pane; its conversation stays as closed; reopen shows it again.
    let world = snapshot(&client).await;
    let pane = panes(&world).into_iter().next().expect("a pane");
    let pane_id = pane["id"].as_str().expect("id").to_string();
    let conversation = pane["conversationId"]
        .as_str()
        .expect("a conversation")
        .to_string();
    client
        .post(
            "/session/v1/close",
            json!({"requestId": "close-1", "kind": "pane", "id": pane_id}),
        )
        .await
        .expect(200, "ok");
    assert!(
        panes(&snapshot(&client).await)
            .iter()
            .all(|p| p["id"] != pane_id.as_str())
    );
    let reopened = client
        .post(
            "/session/v1/reopen",
            json!({"requestId": "reopen-1", "conversationId": conversation}),
        )
        .await
        .expect(200, "ok");
    let new_pane = reopened["paneId"]
        .as_str()
        .expect("the new pane")
        .to_string();
    let after = snapshot(&client).await;
    let shown = panes(&after)
        .into_iter()
        .find(|p| p["id"] == new_pane.as_str())
        .expect("the reopened pane");
    assert_eq!(shown["conversationId"], conversation.as_str());
    client
        .post(
            "/session/v1/reopen",
            json!({"requestId": "reopen-2", "conversationId": "no-such"}),
        )
        .await
        .expect(404, "no-such-conversation");
}

#[tokio::test]
async fn l_ids_in_paths_are_checked() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let client = agent.client();
    // A space (escaped) is never part of an id (SPEC L).
    client
        .get(&format!("{}?after=0", pane_path("a%20b", "events")))
        .await
        .expect(400, "bad-request");
    client
        .get("/session/v1/conversation/a%2Fb/items")
        .await
        .expect(400, "bad-request");
    client
        .get("/session/v1/conversation/bad%zz/items")
        .await
        .expect(400, "bad-request");
    let body = json!({"requestId": "l-1", "turnId": null, "text": "hi"});
    client
        .post(&pane_path("a%20b", "send"), body)
        .await
        .expect(400, "bad-request");
}
