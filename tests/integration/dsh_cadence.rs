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

/// Request lines seen at the door, by route (the path without its query).
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
                let route = target.split('?').next().unwrap_or(target);
                let route = route.rsplit('/').next().unwrap_or(route).to_string();
                *seen.lock().expect("seen").entry(route).or_default() += 1;
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

/// The engine on one bridge behind a counting proxy, watched or not, for `how_long`; what the
/// bridge was asked.
async fn requests_over(how_long: Duration, watching: bool) -> BTreeMap<String, usize> {
    let dir = common::temp_dir();
    let (token_path, _) = common::token_file(dir.path());
    let bridge = common::frozen_demo_bridge(dir.path(), &token_path, "127.0.0.1:0");
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
        .send(ToEngine::Watching(watching))
        .expect("the engine listens");
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
    let (idle, looked) = tokio::join!(requests_over(WINDOW, false), requests_over(WINDOW, true));
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
