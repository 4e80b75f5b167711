//! One idle poll cycle of the engine over the socket (a snapshot answered 304 and an empty
//! events read for one pane, each on a fresh connection after the S3 privacy check and the
//! peer-uid check, with decoding), against the same two GETs done bare with hyper on the same
//! kind of socket. Goal (docs/ENGINE.md, "Figures"): the cycle costs at most 1.5× the bare
//! GETs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;

use collie_phone::rigs::WorldKind;
use collie_phone::transport::{Endpoint, Method, Request, RouteClass};
use collie_phone::wire::{self, EventsReply, VERSION_HEADER, limits};

#[path = "support/world_agent.rs"]
mod world_agent;

struct Fixture {
    _dir: tempfile::TempDir,
    _stop: tokio::sync::oneshot::Sender<()>,
    socket: PathBuf,
    etag: String,
    events_path: String,
}

fn start_agent(runtime: &tokio::runtime::Runtime) -> Fixture {
    let dir = tempfile::Builder::new()
        .prefix("cp-bench")
        .tempdir_in("/tmp")
        .expect("dir");
    let socket = dir.path().join("run").join("agent.sock");
    // Served for the whole run: the sender is kept in the fixture, so it never fires.
    let (stop, stopped) = tokio::sync::oneshot::channel();
    world_agent::start(runtime, &socket, WorldKind::Demo, stopped);
    let endpoint = Endpoint::socket(socket.clone());
    let (etag, pane) = runtime.block_on(async {
        // Wait for ready, then learn the ETag and a pane.
        for _ in 0..100 {
            let reply = endpoint
                .exchange(&get(
                    wire::paths::snapshot(),
                    limits::MAX_SNAPSHOT_REPLY,
                    None,
                ))
                .await;
            if let Ok(reply) = reply
                && reply.status == 200
            {
                let snapshot = wire::decode::<wire::Snapshot>(&reply.body)
                    .expect("snapshot")
                    .value;
                let pane = snapshot
                    .panes()
                    .next()
                    .map(|(_, _, p)| p.id.clone())
                    .expect("a pane");
                return (reply.etag.expect("etag"), pane);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the agent did not become ready");
    });
    let first = runtime
        .block_on(endpoint.exchange(&get(
            wire::paths::events(&pane, 0, None),
            limits::MAX_EVENTS_REPLY,
            None,
        )))
        .expect("events");
    let view = wire::decode::<EventsReply>(&first.body)
        .expect("events")
        .value;
    let events_path = wire::paths::events(&pane, view.cursor, Some(&view.epoch));
    Fixture {
        _dir: dir,
        _stop: stop,
        socket,
        etag,
        events_path,
    }
}

fn get(path: String, reply_cap: usize, etag: Option<&str>) -> Request {
    let mut headers = vec![(VERSION_HEADER, "1".to_string())];
    if let Some(tag) = etag {
        headers.push(("if-none-match", tag.to_string()));
    }
    Request {
        method: Method::Get,
        path,
        headers,
        body: None,
        class: RouteClass::Read,
        reply_cap,
    }
}

async fn engine_cycle(endpoint: &Endpoint, fixture: &Fixture) {
    let snapshot = endpoint
        .exchange(&get(
            wire::paths::snapshot(),
            limits::MAX_SNAPSHOT_REPLY,
            Some(&fixture.etag),
        ))
        .await
        .expect("snapshot");
    assert_eq!(snapshot.status, 304);
    let events = endpoint
        .exchange(&get(
            fixture.events_path.clone(),
            limits::MAX_EVENTS_REPLY,
            None,
        ))
        .await
        .expect("events");
    let reply = wire::decode::<EventsReply>(&events.body)
        .expect("events")
        .value;
    assert!(reply.events.is_empty() && reply.view.is_none());
}

async fn bare_get(socket: &Path, path: &str, etag: Option<&str>) -> Bytes {
    let stream = tokio::net::UnixStream::connect(socket)
        .await
        .expect("connect");
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    let task = tokio::spawn(connection);
    let mut request = hyper::Request::get(path)
        .header("host", "agent")
        .header(VERSION_HEADER, "1");
    if let Some(tag) = etag {
        request = request.header("if-none-match", tag);
    }
    let response = sender
        .send_request(request.body(Empty::<Bytes>::new()).expect("request"))
        .await
        .expect("send");
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    task.abort();
    body
}

fn poll_cycle(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let fixture = start_agent(&runtime);
    let endpoint = Endpoint::socket(fixture.socket.clone());
    let mut group = c.benchmark_group("idle_poll_cycle");
    group.bench_function("engine: snapshot 304 + empty events", |b| {
        b.to_async(&runtime)
            .iter(|| engine_cycle(&endpoint, &fixture));
    });
    group.bench_function("bare hyper: the same two GETs", |b| {
        b.to_async(&runtime).iter(|| async {
            bare_get(
                &fixture.socket,
                &wire::paths::snapshot(),
                Some(&fixture.etag),
            )
            .await;
            bare_get(&fixture.socket, &fixture.events_path, None).await;
        });
    });
    group.finish();
}

criterion_group!(benches, poll_cycle);
criterion_main!(benches);
