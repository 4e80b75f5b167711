//! Record and replay (docs/RECORDING.md): `--record` writes every exchange whole with the token
//! never in it, and `collie-phone replay` serves a recording so the real phone can be pointed at
//! it (the demo recording kept in tests/fixtures).

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use collie_phone::engine::{
    AgentChange, AgentSpec, AgentStatus, Engine, EngineOptions, FromEngine, IntentKind, ToEngine,
};
use collie_phone::transport::{Endpoint, Token, tls::TlsEndpoint};
use collie_phone::wire::Snapshot;
use collie_phone::wire::recording::{AgentKind, REDACTED, RecordLine, RecordedExchange};
use common::phone::TestPhone;
use common::{AgentProcess, Client, Req};
use serde_json::{Value, json};

const SOON: Duration = Duration::from_secs(15);
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/demo.recording.jsonl"
);
/// What the wire inspector keeps of a body; a recording keeps more.
const INSPECTOR_BYTES: usize = collie_phone::engine::exchange_log::KEPT_BODY_BYTES;

/// The header and every complete exchange line written so far; a line still being written (no
/// newline yet) waits for the next read. Every complete line must parse.
fn read_recording(path: &Path) -> (Option<RecordLine>, Vec<RecordedExchange>) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let complete = match text.rfind('\n') {
        Some(end) => &text[..end],
        None => "",
    };
    let mut header = None;
    let mut exchanges = Vec::new();
    for (number, line) in complete.lines().enumerate() {
        let parsed: RecordLine = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {} does not parse: {e}\n{line}", number + 1));
        match parsed {
            RecordLine::Exchange(exchange) => exchanges.push(exchange),
            header_line => {
                assert_eq!(number, 0, "the header comes first and only once");
                header = Some(header_line);
            }
        }
    }
    (header, exchanges)
}

/// Waits until the recording holds what `enough` wants.
async fn recording_until(
    path: &Path,
    what: &str,
    enough: impl Fn(&[RecordedExchange]) -> bool,
) -> (Option<RecordLine>, Vec<RecordedExchange>) {
    common::eventually(what, SOON, || async {
        let (header, exchanges) = read_recording(path);
        enough(&exchanges).then_some((header, exchanges))
    })
    .await
}

fn body_text(exchange: &RecordedExchange, reply: bool) -> String {
    let body = if reply {
        &exchange.reply_body
    } else {
        &exchange.request_body
    };
    let bytes = body.as_ref().and_then(|b| b.to_bytes()).unwrap_or_default();
    String::from_utf8(bytes).expect("the demo's bodies are text")
}

/// The engine on one agent, recording to `record`.
fn recording_engine(name: &str, endpoint: Endpoint, dir: &Path, record: &Path) -> Engine {
    Engine::start_with(
        vec![AgentSpec {
            name: name.into(),
            endpoint,
        }],
        &dir.join("intents.jsonl"),
        EngineOptions {
            record: Some(record.to_path_buf()),
            ..EngineOptions::default()
        },
    )
    .expect("the engine starts and the recording opens")
}

/// Reads updates until the agent is ready and a snapshot came.
async fn ready_snapshot(engine: &mut Engine) -> Arc<Snapshot> {
    let mut ready = false;
    let mut snapshot = None;
    tokio::time::timeout(SOON, async {
        while !(ready && snapshot.is_some()) {
            match engine.updates.recv().await.expect("the engine runs") {
                FromEngine::Agent {
                    change: AgentChange::Status(AgentStatus::Ready),
                    ..
                } => ready = true,
                FromEngine::Agent {
                    change: AgentChange::Snapshot { snapshot: s, .. },
                    ..
                } => snapshot = Some(s),
                _ => {}
            }
        }
    })
    .await
    .expect("the agent is ready with a snapshot");
    snapshot.expect("a snapshot")
}

/// A recording made over the socket holds every exchange whole: bodies past the inspector's
/// 8 KiB, the request headers that matter, no authorization (SPEC S5: no token on a socket),
/// a private file, and lines that all parse.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn w1_a_socket_recording_keeps_every_exchange_whole() {
    let dir = common::temp_dir();
    let agent = common::socket_agent(dir.path(), &["--world", "big"]);
    let record = dir.path().join("big.recording.jsonl");
    let mut engine = recording_engine(
        "big",
        Endpoint::socket(agent.socket_path()),
        dir.path(),
        &record,
    );
    let snapshot = ready_snapshot(&mut engine).await;
    let (_, _, pane) = snapshot.panes().next().expect("a pane");
    // Past the inspector's cut, within what the phone may send (SPEC L: 32 KiB).
    let text = "long words ".repeat(2000);
    engine
        .commands
        .send(ToEngine::Submit {
            agent: "big".into(),
            kind: IntentKind::Send {
                pane: pane.id.clone(),
                turn_id: pane.turn.as_ref().map(|t| t.id.clone()),
                text: text.clone(),
            },
        })
        .expect("the engine listens");
    let (header, exchanges) = recording_until(&record, "a POST and a second snapshot", |e| {
        e.iter().any(|x| x.method == "POST")
            && e.iter().filter(|x| x.path.ends_with("/snapshot")).count() >= 2
    })
    .await;

    let Some(RecordLine::Header(header)) = header else {
        panic!("the first line is the header");
    };
    assert_eq!(header.format, "collie-phone-recording");
    assert_eq!(header.agents.len(), 1);
    assert_eq!(header.agents[0].kind, AgentKind::Socket);
    assert_eq!(
        header.agents[0].address,
        format!("unix:{}", agent.socket_path().display())
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&record)
        .expect("meta")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "a recording may hold private chat");

    let hello = &exchanges[0];
    assert_eq!(
        (hello.method.as_str(), hello.path.as_str()),
        ("GET", "/session/v1/hello")
    );
    assert!(
        hello.request_headers.is_empty(),
        "SPEC H2: the first hello has no version"
    );
    for exchange in &exchanges {
        assert!(!exchange.request_headers.contains_key("authorization"));
        assert!(exchange.status.is_some() || exchange.error.is_some());
    }
    let later = exchanges
        .iter()
        .skip(1)
        .find(|x| x.path.ends_with("/snapshot"));
    assert_eq!(
        later
            .and_then(|x| x.request_headers.get("x-collie-session"))
            .map(String::as_str),
        Some("1"),
        "SPEC W3"
    );
    assert!(
        exchanges
            .iter()
            .filter(|x| x.path.ends_with("/snapshot"))
            .nth(1)
            .is_some_and(|x| x.request_headers.contains_key("if-none-match")),
        "SPEC H4: the second snapshot read names the tag it has"
    );
    let first_snapshot = exchanges
        .iter()
        .find(|x| x.path.ends_with("/snapshot") && x.status == Some(200))
        .expect("a snapshot");
    assert!(first_snapshot.etag.is_some());

    let post = exchanges
        .iter()
        .find(|x| x.method == "POST")
        .expect("a POST");
    let sent: Value = serde_json::from_str(&body_text(post, false)).expect("the whole body");
    assert_eq!(sent["text"], text.as_str());
    assert!(sent["requestId"].is_string(), "SPEC Q1");
    assert!(body_text(post, false).len() > INSPECTOR_BYTES);
    assert!(post.status.is_some(), "{post:?}");

    let biggest = exchanges
        .iter()
        .filter(|x| x.path.contains("/events"))
        .map(|x| body_text(x, true))
        .max_by_key(String::len)
        .expect("events");
    assert!(biggest.len() > INSPECTOR_BYTES, "{} bytes", biggest.len());
    serde_json::from_str::<Value>(&biggest).expect("a whole body parses");
    assert!(
        exchanges
            .iter()
            .all(|x| x.since_start_ms < 60_000 && x.elapsed_ms < 60_000),
        "timings in ms since the start"
    );
}

/// SPEC T2: over https with a token the recording says the header was there and never holds
/// the token, anywhere in the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t2_a_recording_over_https_never_holds_the_token() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dir = common::temp_dir();
    let agent = common::https_agent(dir.path());
    let token = agent.token.clone();
    let endpoint = TlsEndpoint::new(
        &agent.process.url,
        Token::new(&token).expect("token"),
        Some(&agent.cert),
    )
    .expect("endpoint");
    let record = dir.path().join("tls.recording.jsonl");
    let mut engine = recording_engine("tls", Endpoint::Tls(endpoint), dir.path(), &record);
    let snapshot = ready_snapshot(&mut engine).await;
    let (_, _, pane) = snapshot.panes().next().expect("a pane");
    engine
        .commands
        .send(ToEngine::Submit {
            agent: "tls".into(),
            kind: IntentKind::Send {
                pane: pane.id.clone(),
                turn_id: pane.turn.as_ref().map(|t| t.id.clone()),
                text: "over TLS".into(),
            },
        })
        .expect("the engine listens");
    let (header, exchanges) = recording_until(&record, "events and a POST over TLS", |e| {
        e.iter().any(|x| x.method == "POST") && e.iter().any(|x| x.path.contains("/events"))
    })
    .await;
    let Some(RecordLine::Header(header)) = header else {
        panic!("the first line is the header");
    };
    assert_eq!(header.agents[0].kind, AgentKind::Url);
    assert_eq!(header.agents[0].address, agent.process.url);
    for exchange in &exchanges {
        assert_eq!(
            exchange
                .request_headers
                .get("authorization")
                .map(String::as_str),
            Some(REDACTED),
            "every request carried the token, and says so: {exchange:?}"
        );
    }
    let file = std::fs::read_to_string(&record).expect("the recording");
    assert!(!file.contains(&token), "the token is in the recording");
    assert!(!file.contains("Bearer"), "the scheme is in the recording");
    // The token's first half too, in case something cut it.
    assert!(!file.contains(&token[..token.len() / 2]));
    drop(engine);
}

/// Starts `collie-phone replay FIXTURE --socket … ARGS`.
fn replay(dir: &Path, file: &str, args: &[&str]) -> (AgentProcess, PathBuf) {
    let socket = dir.join("run").join("replay.sock");
    let socket_text = socket.to_str().expect("utf-8").to_string();
    let mut all = vec!["replay", file, "--socket", socket_text.as_str()];
    all.extend_from_slice(args);
    let process = AgentProcess::start(&all);
    assert_eq!(process.url, format!("unix:{socket_text}"));
    (process, socket)
}

/// The demo recording at its end state in the real phone: the session goes ready (SPEC H1–H3
/// from recorded replies), the workspaces and the open asks of the recording show.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h3_the_demo_recording_plays_back_in_the_phone() {
    let dir = common::temp_dir();
    let (_replay, socket) = replay(dir.path(), FIXTURE, &["--speed", "0"]);
    let mut phone = TestPhone::start(
        "demo",
        Endpoint::socket(socket),
        false,
        dir.path(),
        (120, 36),
        |_| {},
    );
    phone
        .until("the recorded agent, ready", |s| {
            s.contains("Ready: 10 panes in 3 workspaces")
        })
        .await;
    // Asked after the start of the recording and still open at its end; the first ask,
    // answered during the recording, is gone.
    phone
        .until("the asks open at the end of the recording", |s| {
            s.contains("shell: git push --force origin feature/store")
                && s.contains("Deploy settings")
                && !s.contains("shell: rm -rf build/")
        })
        .await;
    phone.press(&["enter"]).await;
    phone
        .until("the recorded workspaces", |s| {
            s.contains("支付服务重构") && s.contains("infra") && s.contains("Pipeline")
        })
        .await;
}

/// The replay answers from the recording and says plainly what it lacks (SPEC W6, Q3, H4).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn w6_what_the_recording_lacks_gets_an_honest_not_found() {
    let dir = common::temp_dir();
    let (replay, socket) = replay(dir.path(), FIXTURE, &["--speed", "0"]);
    let client = Client::unix(&socket);

    let hello = client.send(Req::get(common::HELLO).version(None)).await;
    assert_eq!(hello.status, 200);
    assert_eq!(hello.json()["service"], "collie-durable");

    let snapshot = client.get(common::SNAPSHOT).await;
    assert_eq!(snapshot.status, 200);
    let tag = snapshot.header("etag").expect("SPEC H4: a tag");
    let again = client
        .send(Req::get(common::SNAPSHOT).header("if-none-match", &format!("W/{tag}")))
        .await;
    assert_eq!(again.status, 304, "SPEC H4, T5");

    // The recorded answer, with its own id and under a new one.
    let recorded = recorded_post(FIXTURE);
    let path = recorded.path.clone();
    let mut body: Value = serde_json::from_str(&body_text(&recorded, false)).expect("json");
    let same = client.post(&path, body.clone()).await;
    assert_eq!(same.status, 200);
    assert_eq!(same.json()["requestId"], body["requestId"]);
    body["requestId"] = json!("r-replayed-again");
    let renewed = client.post(&path, body.clone()).await;
    assert_eq!(renewed.status, 200);
    assert_eq!(renewed.json()["code"], "ok");
    assert_eq!(renewed.json()["requestId"], "r-replayed-again");

    body["revision"] = json!(999);
    let lacking = client.post(&path, body).await;
    let error = lacking.expect(404, "not-found");
    assert_eq!(
        error["message"],
        format!("this recording has no reply for POST {path}")
    );
    client
        .get("/session/v1/pane/nobody/events?after=0")
        .await
        .expect(404, "not-found");
    // The replay's stderr is read by a thread of its own: give the line time to arrive.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !replay
        .stderr()
        .contains("this recording has no reply for POST")
        && std::time::Instant::now() < until
    {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        replay
            .stderr()
            .contains("this recording has no reply for POST"),
        "a log line says what was missing: {}",
        replay.stderr()
    );
}

fn recorded_post(file: &str) -> RecordedExchange {
    read_recording(Path::new(file))
        .1
        .into_iter()
        .find(|x| x.method == "POST" && x.status == Some(200))
        .expect("the fixture holds an answer")
}

/// The fixture stays small and holds what the tests above rely on.
#[test]
fn the_demo_fixture_is_small_and_whole() {
    let size = std::fs::metadata(FIXTURE).expect("the fixture").len();
    assert!(size < 300 * 1024, "{size} bytes");
    let (header, exchanges) = read_recording(Path::new(FIXTURE));
    assert!(matches!(header, Some(RecordLine::Header(_))));
    assert!(exchanges.iter().any(|x| x.path.ends_with("/hello")));
    assert!(exchanges.iter().any(|x| x.method == "POST"));
}

/// `--record` onto a file that is not a recording refuses rather than destroys it.
#[tokio::test]
async fn record_refuses_to_overwrite_another_file() {
    let dir = common::temp_dir();
    let precious = dir.path().join("notes.txt");
    std::fs::write(&precious, "my notes\n").expect("write");
    let started = Engine::start_with(
        vec![],
        &dir.path().join("intents.jsonl"),
        EngineOptions {
            record: Some(precious.clone()),
            ..EngineOptions::default()
        },
    );
    let Err(error) = started else {
        panic!("the engine started over a foreign file");
    };
    assert!(error.to_string().contains("is not a recording"), "{error}");
    assert_eq!(
        std::fs::read_to_string(&precious).expect("read"),
        "my notes\n"
    );
}
