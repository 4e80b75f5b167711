//! How often the DSH client reads a bridge (docs/DSH.md, "Cadence"): counted at the bridge's
//! door, by a proxy that reads every request line the phone's engine sends to our reference
//! bridge, over 30 s with nobody looking and with a person looking, side by side.

use crate::common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use collie_phone::engine::dsh::{BridgeSpec, BridgeUrl};
use collie_phone::engine::{Engine, EngineOptions, ToEngine};
use collie_phone::transport::Token;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Request lines seen at the door, by route (the path's last part, without its query); a
/// transcript read is counted under `transcript` and again under `transcript SESSION-OR-TASK`,
/// so each pane's reads are counted apart.
type Seen = Arc<Mutex<BTreeMap<String, usize>>>;

/// Counts the request lines in what the phone writes: a line that starts a request begins the
/// stream or follows a blank line's `\r\n\r\n`, or ends a body; scanning for `GET /` and
/// `POST /` at a line start is enough for the JSON bodies the DSH client sends.
fn count_requests(bytes: &[u8], seen: &Seen) {
    let text = String::from_utf8_lossy(bytes);
    for line in text.split("\r\n") {
        for method in ["GET ", "POST "] {
            if let Some(rest) = line.strip_prefix(method)
                && let Some(target) = rest.split(' ').next()
                && target.starts_with('/')
            {
                let (path, query) = target.split_once('?').unwrap_or((target, ""));
                let route = path.rsplit('/').next().unwrap_or(path).to_string();
                let mut seen = seen.lock().expect("seen");
                if route == "transcript"
                    && let Some(whose) = query.split('&').find_map(|pair| {
                        pair.strip_prefix("sessionId=")
                            .or_else(|| pair.strip_prefix("taskId="))
                    })
                {
                    // The ids are query-encoded; the demo's have only `-` to decode.
                    let whose = whose.replace("%2D", "-");
                    *seen.entry(format!("transcript {whose}")).or_default() += 1;
                }
                *seen.entry(route).or_default() += 1;
            }
        }
    }
}

/// A proxy in front of `upstream` that counts what passes; its address.
async fn counting_proxy(upstream: String, seen: Seen) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let address = listener.local_addr().expect("an address").to_string();
    tokio::spawn(async move {
        while let Ok((mut phone, _)) = listener.accept().await {
            let upstream = upstream.clone();
            let seen = seen.clone();
            tokio::spawn(async move {
                let Ok(mut bridge) = TcpStream::connect(&upstream).await else {
                    return;
                };
                let (mut from_phone, mut to_phone) = phone.split();
                let (mut from_bridge, mut to_bridge) = bridge.split();
                let up = async {
                    let mut buffer = vec![0u8; 16 * 1024];
                    loop {
                        let n = match from_phone.read(&mut buffer).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => n,
                        };
                        count_requests(&buffer[..n], &seen);
                        if to_bridge.write_all(&buffer[..n]).await.is_err() {
                            break;
                        }
                    }
                    let _ = to_bridge.shutdown().await;
                };
                let down = async {
                    let _ = tokio::io::copy(&mut from_bridge, &mut to_phone).await;
                    let _ = to_phone.shutdown().await;
                };
                tokio::join!(up, down);
            });
        }
    });
    address
}

/// Where the phone is while it is counted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phone {
    /// Nobody looks at it.
    Away,
    /// A person looks at it, and the engine was never told which panes are on screen (every
    /// pane counts as on screen then).
    Looked,
    /// A person looks at Home: no pane on screen, as the phone tells the engine there.
    Home,
}

/// The engine on one bridge (the demo desktop frozen, or live at `speed`) behind a counting
/// proxy, with the phone as `phone` says, for `how_long`; what the bridge was asked.
async fn requests_over(how_long: Duration, phone: Phone, speed: &str) -> BTreeMap<String, usize> {
    let dir = common::temp_dir();
    let (token_path, _) = common::token_file(dir.path());
    let root = dir.path().join("desktop");
    let bridge = common::AgentProcess::start(&[
        "dsh-bridge",
        "--demo",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        token_path.to_str().expect("utf-8"),
        "--root",
        root.to_str().expect("utf-8"),
        "--speed",
        speed,
    ]);
    let rest = bridge.url.strip_prefix("http://").expect("an http url");
    let (address, prefix) = rest.split_once('/').expect("a prefix");
    let seen: Seen = Arc::default();
    let proxy = counting_proxy(address.to_string(), seen.clone()).await;
    let spec = BridgeSpec {
        name: "dsh".into(),
        url: BridgeUrl::parse(&format!("http://{proxy}/{prefix}")).expect("a bridge url"),
        token: Token::from_file(&token_path).expect("the token"),
    };
    let mut engine = Engine::start_mixed(
        Vec::new(),
        vec![spec],
        &dir.path().join("intents.jsonl"),
        EngineOptions::default(),
    )
    .expect("the engine starts");
    engine
        .commands
        .send(ToEngine::Watching(phone != Phone::Away))
        .expect("the engine listens");
    if phone == Phone::Home {
        // What the phone sends on Home: no pane is on screen.
        engine
            .commands
            .send(ToEngine::OnScreen(Vec::new()))
            .expect("the engine listens");
    }
    // The app's half: take every change, as the phone does, so the sessions run on.
    let end = tokio::time::Instant::now() + how_long;
    while tokio::time::timeout_at(end, engine.updates.recv())
        .await
        .is_ok_and(|update| update.is_some())
    {}
    let counted = seen.lock().expect("seen").clone();
    drop(engine);
    counted
}

/// docs/DSH.md: every 2 s while a person looks, every 10 s otherwise; a read-only session's
/// transcript at the same cadence. Over 30 s, one pass at the start and one per period (a
/// pass or two more for what the first reads bring is allowed, never a faster cadence).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bridge_is_read_at_the_documented_cadence_looked_at_or_not() {
    const WINDOW: Duration = Duration::from_secs(30);
    let (idle, looked) = tokio::join!(
        requests_over(WINDOW, Phone::Away, "0"),
        requests_over(WINDOW, Phone::Looked, "0")
    );
    let health = |seen: &BTreeMap<String, usize>| seen.get("health").copied().unwrap_or(0);
    // Nobody looking: 10 s → at most 1 + 3 passes, and one spare.
    assert!(health(&idle) <= 5, "nobody looking: {idle:?}");
    assert!(
        health(&idle) >= 3,
        "nobody looking, the bridge is still read: {idle:?}"
    );
    // A person looking: 2 s → at most 1 + 15 passes, and two spare.
    assert!(health(&looked) <= 18, "a person looking: {looked:?}");
    assert!(
        health(&looked) >= 12,
        "a person looking, every 2 s: {looked:?}"
    );
    // The lists follow the passes; a session's transcript its own cadence.
    for route in ["workspaces", "list"] {
        let idle_reads = idle.get(route).copied().unwrap_or(0);
        assert!(idle_reads <= health(&idle) + 1, "{route}: {idle:?}");
    }
    let transcripts = idle.get("transcript").copied().unwrap_or(0);
    // The demo desktop's open tasks (two) read their history once (then follow its stream);
    // its three read-only sessions are read again at the cadence: once at the start and once
    // per period each, with a spare.
    assert!(transcripts <= 2 + 3 * 4 + 1, "nobody looking: {idle:?}");
    let looked_transcripts = looked.get("transcript").copied().unwrap_or(0);
    assert!(
        looked_transcripts <= 2 + 3 * 16 + 2,
        "a person looking: {looked:?}"
    );
    eprintln!("nobody looking: {idle:?}\na person looking: {looked:?}");
}

/// docs/DSH.md, "How often the phone asks": with a person on Home, the pass (and so
/// `/tasks/list`) runs every 2 s at most, news from a follower included, and a session no task
/// follows and nobody has on screen is read every 10 s. The demo desktop runs live here, so
/// its tasks' streams bring news (turns that start and end, waits that open and close) the
/// whole time. Counted over 30 s: one pass at the start and one per period.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_home_the_task_list_and_the_sessions_nobody_looks_at_keep_their_cadence() {
    const WINDOW: Duration = Duration::from_secs(30);
    let seen = requests_over(WINDOW, Phone::Home, "1").await;
    eprintln!("on Home: {seen:?}");
    let lists = seen.get("list").copied().unwrap_or(0);
    assert!(
        lists <= 16,
        "on Home, /tasks/list every 2 s at most: {lists} in 30 s; {seen:?}"
    );
    assert!(lists >= 10, "on Home, the tasks are still listed: {seen:?}");
    // The demo desktop's read-only sessions: nobody has them on screen, so every 10 s each,
    // the first read and three more in 30 s.
    let sessions: Vec<(&String, &usize)> = seen
        .iter()
        .filter(|(route, _)| route.starts_with("transcript session-"))
        .collect();
    assert!(!sessions.is_empty(), "the sessions are read: {seen:?}");
    for (route, reads) in sessions {
        assert!(
            *reads <= 4,
            "on Home, {route} every 10 s: {reads} in 30 s; {seen:?}"
        );
    }
}
