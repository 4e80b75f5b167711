//! The steps that talk HTTP, the same on both transports: the pinned certificate at the first
//! exchange (SPEC T10), hello (H1, H2, H3, V4), the snapshot with its ETag and a 304 on a second
//! read (H4), each timed. Only GETs: read-only.

use std::time::Instant;

use super::{Step, millis};
use crate::engine::status::AgentStatus;
use crate::transport::pin::Pin;
use crate::transport::{Endpoint, Method, Reply, Request, RouteClass, TransportError};
use crate::wire::{self, ErrorBody, Hello, OUR_PROTOCOL, VERSION_HEADER, limits};

/// The steps this part adds, in order, so a report that could not get here can list them.
pub(crate) const STEPS: &[&str] = &[
    "hello",
    "versions",
    "ready",
    "snapshot",
    "304 on a second read",
];

/// A snapshot that changes between two reads is retried this many times before the 304 step
/// gives up: the demo world moves every second.
const SECOND_READS: usize = 3;

/// The steps from hello on; `pin` is the certificate a pinned URL trusts, judged at hello's
/// handshake and reported as a step of its own before hello.
pub(crate) async fn run(endpoint: &Endpoint, pin: Option<Pin>, steps: &mut Vec<Step>) {
    let Some(hello) = hello_step(endpoint, pin, steps).await else {
        for step in &STEPS[1..] {
            steps.push(Step::not_tried(*step, "hello failed"));
        }
        return;
    };
    let Some(version) = versions_step(&hello, steps) else {
        for step in &STEPS[2..] {
            steps.push(Step::not_tried(
                *step,
                "no version both sides speak (docs/SPEC.md § Versions)",
            ));
        }
        return;
    };
    if hello.ready {
        steps.push(Step::holds("ready", "ready: true"));
    } else {
        steps.push(Step::fails(
            "ready",
            "ready: false — the agent is still laying out its panes (docs/SPEC.md § Hello and the epoch)",
            Some("wait for the agent to finish starting, then run doctor again".into()),
        ));
        for step in &STEPS[3..] {
            steps.push(Step::not_tried(*step, "the agent is not ready"));
        }
        return;
    }
    snapshot_steps(endpoint, version, steps).await;
}

fn get(path: String, reply_cap: usize, headers: Vec<(&'static str, String)>) -> Request {
    Request {
        method: Method::Get,
        path,
        headers,
        body: None,
        class: RouteClass::Read,
        reply_cap,
    }
}

async fn timed(endpoint: &Endpoint, request: &Request) -> (Result<Reply, TransportError>, u64) {
    let started = Instant::now();
    let result = endpoint.exchange(request).await;
    (result, millis(started.elapsed()))
}

/// What a status other than the expected one means, with its fix.
fn refusal(reply: &Reply, route: &str) -> (String, Option<String>) {
    let code = wire::decode::<ErrorBody>(&reply.body)
        .map(|d| d.value.code.as_str().to_string())
        .unwrap_or_default();
    match reply.status {
        401 | 403 => (
            format!(
                "{route} answered {} {code}: the agent refused the token",
                reply.status
            ),
            Some(
                "use the token file the agent was started with (docs/SPEC.md § TLS and the token)"
                    .into(),
            ),
        ),
        503 => (
            format!(
                "{route} answered 503 {code}: the agent is starting (docs/SPEC.md § Hello and the epoch)"
            ),
            Some("wait for the agent to finish starting, then run doctor again".into()),
        ),
        status => (
            format!("{route} answered {status} {code}"),
            Some("see the agent's log for why it refused the request".into()),
        ),
    }
}

fn transport_failure(route: &str, error: &TransportError) -> Step {
    let fix = match error {
        TransportError::NotTrusted { why, fix, .. } => {
            return Step::fails(
                route,
                format!("the agent's certificate is not trusted ({why})"),
                Some(if fix.starts_with("give its CA") {
                    "give --ca-cert with the PEM certificate of its CA (or the certificate itself, when it signs itself), or --pin sha256:… with its fingerprint (`collie-phone agent --tls auto` makes a certificate and prints the pin)".into()
                } else {
                    fix.clone()
                }),
            );
        }
        TransportError::Connect(why) if why.contains("TLS") => {
            "the TLS handshake failed: check that the agent speaks TLS at this URL"
        }
        TransportError::Connect(_) => {
            "check the host and port, and that the agent is running and listening there"
        }
        TransportError::Timeout(_) => {
            "the agent took too long: it may be stuck; look at its log or restart it"
        }
        TransportError::TooLarge(_) => {
            "the agent sent more than the wire allows (docs/SPEC.md § Limits): fix the agent"
        }
        TransportError::PeerNotUs(_) => "run the agent as your own user",
        TransportError::NoSocket(_) => {
            "start the agent, or check the path (collie-phone agent --socket PATH makes the folder private)"
        }
        TransportError::Refused(_) => {
            "start the agent, or check the host and port: the agent must listen there"
        }
        TransportError::NotPrivate(not_private) => {
            return Step::fails(route, error.to_string(), not_private.fix.clone());
        }
        TransportError::Broken(_) => "the agent closed the connection: look at its log",
    };
    Step::fails(route, error.to_string(), Some(fix.into()))
}

async fn hello_step(endpoint: &Endpoint, pin: Option<Pin>, steps: &mut Vec<Step>) -> Option<Hello> {
    let request = get(wire::paths::hello(), limits::MAX_HELLO_REPLY, Vec::new());
    let (result, ms) = timed(endpoint, &request).await;
    if let Some(pin) = pin {
        match &result {
            // A reply came over TLS, so the handshake met the pin (SPEC T10).
            Ok(_) => steps.push(
                Step::holds(
                    "pin",
                    format!("the agent showed the pinned certificate {pin}"),
                )
                .timed(ms),
            ),
            Err(error @ TransportError::NotTrusted { .. }) => {
                steps.push(transport_failure("pin", error).timed(ms));
                steps.push(Step::not_tried(
                    "hello",
                    "the agent's certificate is not the pinned one",
                ));
                return None;
            }
            Err(_) => steps.push(Step::not_tried("pin", "no TLS handshake was made")),
        }
    }
    let reply = match result {
        Ok(reply) => reply,
        Err(error) => {
            steps.push(transport_failure("hello", &error).timed(ms));
            return None;
        }
    };
    if reply.status != 200 {
        let (why, fix) = refusal(&reply, "hello");
        steps.push(Step::fails("hello", why, fix).timed(ms));
        return None;
    }
    let hello = match wire::decode::<Hello>(&reply.body) {
        Ok(decoded) => decoded.value,
        Err(e) => {
            steps.push(
                Step::fails(
                    "hello",
                    format!("the reply is not a hello: {e}"),
                    Some("compare the agent's hello with docs/WIRE.md".into()),
                )
                .timed(ms),
            );
            return None;
        }
    };
    if hello.service != wire::SERVICE {
        steps.push(
            Step::fails(
                "hello",
                AgentStatus::OtherServer {
                    service: hello.service.clone(),
                }
                .sentence(),
                Some(format!(
                    "point the phone at a durable agent: its hello says service \"{}\"",
                    wire::SERVICE
                )),
            )
            .timed(ms),
        );
        return None;
    }
    let caps: Vec<&str> = hello
        .caps
        .iter()
        .filter(|(_, on)| **on)
        .map(|(name, _)| name.as_str())
        .collect();
    steps.push(
        Step::holds(
            "hello",
            format!(
                "service {}, host \"{}\", epoch {}, caps: {}",
                hello.service,
                hello.host.name,
                hello.epoch,
                if caps.is_empty() {
                    "none".to_string()
                } else {
                    caps.join(", ")
                }
            ),
        )
        .timed(ms),
    );
    Some(hello)
}

/// SPEC H2, V4, V5: both ranges and the chosen version.
fn versions_step(hello: &Hello, steps: &mut Vec<Step>) -> Option<u32> {
    match OUR_PROTOCOL.highest_common(hello.protocol) {
        Some(version) => {
            steps.push(Step::holds(
                "versions",
                format!(
                    "the agent speaks {}, this Collie speaks {OUR_PROTOCOL}: v{version} chosen",
                    hello.protocol
                ),
            ));
            Some(version)
        }
        None => {
            let sentence = AgentStatus::Incompatible {
                agent: hello.protocol,
                collie: OUR_PROTOCOL,
            }
            .sentence();
            steps.push(Step::fails(
                "versions",
                format!(
                    "the agent speaks {}, this Collie speaks {OUR_PROTOCOL}: no version in common",
                    hello.protocol
                ),
                Some(sentence),
            ));
            None
        }
    }
}

/// SPEC H4: a snapshot with an ETag, then the same read with If-None-Match answered 304.
async fn snapshot_steps(endpoint: &Endpoint, version: u32, steps: &mut Vec<Step>) {
    let version_header = (VERSION_HEADER, version.to_string());
    let first = get(
        wire::paths::snapshot(),
        limits::MAX_SNAPSHOT_REPLY,
        vec![version_header.clone()],
    );
    let mut etag = match read_snapshot(endpoint, &first, steps).await {
        Some(etag) => etag,
        None => {
            steps.push(Step::not_tried(STEPS[4], "the snapshot could not be read"));
            return;
        }
    };
    for _ in 0..SECOND_READS {
        let second = get(
            wire::paths::snapshot(),
            limits::MAX_SNAPSHOT_REPLY,
            vec![version_header.clone(), ("if-none-match", etag.clone())],
        );
        let (result, ms) = timed(endpoint, &second).await;
        let reply = match result {
            Ok(reply) => reply,
            Err(error) => {
                steps.push(transport_failure(STEPS[4], &error).timed(ms));
                return;
            }
        };
        match (reply.status, reply.etag) {
            (304, _) => {
                steps.push(Step::holds(STEPS[4], "304 Not Modified with the same ETag").timed(ms));
                return;
            }
            (200, Some(new)) if new != etag => {
                // The world moved between the two reads; a fresh ETag is right. Try again.
                etag = new;
            }
            (200, _) => {
                steps.push(
                    Step::fails(
                        STEPS[4],
                        "the agent sent the whole snapshot again although its ETag had not changed",
                        Some(
                            "answer 304 when If-None-Match holds the current ETag (docs/SPEC.md § Hello and the epoch)".into(),
                        ),
                    )
                    .timed(ms),
                );
                return;
            }
            (_, _) => {
                let (why, fix) = refusal_of_status(reply.status);
                steps.push(Step::fails(STEPS[4], why, fix).timed(ms));
                return;
            }
        }
    }
    steps.push(Step::holds(
        STEPS[4],
        format!("not seen: the snapshot changed on each of {SECOND_READS} reads (the agent is busy), each with a new ETag"),
    ));
}

fn refusal_of_status(status: u16) -> (String, Option<String>) {
    (
        format!("the second read answered {status}, not 304 or 200"),
        Some("answer 304 when If-None-Match holds the current ETag (docs/SPEC.md § Hello and the epoch)".into()),
    )
}

async fn read_snapshot(
    endpoint: &Endpoint,
    request: &Request,
    steps: &mut Vec<Step>,
) -> Option<String> {
    let (result, ms) = timed(endpoint, request).await;
    let reply = match result {
        Ok(reply) => reply,
        Err(error) => {
            steps.push(transport_failure("snapshot", &error).timed(ms));
            return None;
        }
    };
    if reply.status != 200 {
        let (why, fix) = refusal(&reply, "snapshot");
        steps.push(Step::fails("snapshot", why, fix).timed(ms));
        return None;
    }
    let Some(etag) = reply.etag.clone() else {
        steps.push(
            Step::fails(
                "snapshot",
                "200 without an ETag, so every poll must read it whole",
                Some(
                    "send an ETag with every snapshot (docs/SPEC.md § Hello and the epoch)".into(),
                ),
            )
            .timed(ms),
        );
        return None;
    };
    match wire::decode::<wire::Snapshot>(&reply.body) {
        Ok(decoded) => {
            let snapshot = decoded.value;
            let panes: Vec<&wire::Pane> = snapshot
                .workspaces
                .iter()
                .flat_map(|w| &w.tabs)
                .flat_map(|t| &t.panes)
                .collect();
            let open_asks: usize = panes.iter().map(|p| p.asks.len()).sum();
            steps.push(
                Step::holds(
                    "snapshot",
                    format!(
                        "{} bytes, ETag {etag}: {}, {}, {}",
                        reply.body.len(),
                        crate::out::count(snapshot.workspaces.len(), "workspace", "workspaces"),
                        crate::out::count(panes.len(), "pane", "panes"),
                        crate::out::count(open_asks, "open ask", "open asks")
                    ),
                )
                .timed(ms),
            );
            Some(etag)
        }
        Err(e) => {
            steps.push(
                Step::fails(
                    "snapshot",
                    format!("the reply is not a snapshot: {e}"),
                    Some("compare the agent's snapshot with docs/WIRE.md".into()),
                )
                .timed(ms),
            );
            None
        }
    }
}
