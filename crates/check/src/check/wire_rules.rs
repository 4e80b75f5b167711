//! SPEC W as seen on the wire: the fixed path prefix (W2), request bodies (W4), error codes
//! and their statuses (W6).

use serde_json::{Value, json};

use super::{Finding, Phase, Probe, ProbeRequest, Rule, expect};
use crate::wire::{caps, limits, paths};

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "W2",
        title: "every path starts with /session/v1",
        phase: Phase::Ready,
        run: w2,
    },
    Rule {
        id: "W4",
        title: "a request body is one JSON object of at most 64 KiB; empty reads as {}",
        phase: Phase::Ready,
        run: w4,
    },
    Rule {
        id: "W6",
        title: "every error is JSON with a code; any other path gets 404 not-found",
        phase: Phase::Ready,
        run: w6,
    },
];

/// A route is only a route under `/session/v1`: the same route without the prefix, or under
/// a prefix naming another version, is not served.
fn w2(probe: &Probe) -> Vec<Finding> {
    let mut findings = vec![Finding::judge(
        "W2",
        "hello answers under /session/v1",
        || {
            let sent = ProbeRequest::get(paths::hello());
            let answer = probe.send(&sent)?;
            if answer.status == 200 {
                Ok(())
            } else {
                Err(format!(
                    "sent {}, got {}, expected 200",
                    sent.describe(),
                    answer.describe()
                ))
            }
        },
    )];
    for path in ["/hello", "/session/v2/hello", "/v1/hello", "/session/hello"] {
        findings.push(Finding::judge(
            "W2",
            format!("GET {path} is not a route"),
            || {
                let sent = ProbeRequest::get(path);
                let answer = probe.send(&sent)?;
                if (200..300).contains(&answer.status) {
                    Err(format!(
                        "sent {}, got {}: a path outside /session/v1 was served; expected 404 not-found",
                        sent.describe(),
                        answer.describe()
                    ))
                } else {
                    Ok(())
                }
            },
        ));
    }
    findings
}

/// A rename of a tab nobody has, padded with an unknown field to exactly `size` bytes: it
/// changes nothing on any agent, whatever its size.
fn padded_rename(probe: &Probe, size: usize) -> Vec<u8> {
    let head = format!(
        r#"{{"requestId":"{}","kind":"tab","id":"{}","title":"check","pad":""#,
        probe.request_id(),
        probe.unknown_id()
    );
    let tail = "\"}";
    let pad = size.saturating_sub(head.len() + tail.len());
    format!("{head}{}{tail}", "a".repeat(pad)).into_bytes()
}

fn w4(probe: &Probe) -> Vec<Finding> {
    let limit = limits::MAX_REQUEST_BODY;
    vec![
        Finding::judge("W4", "an empty POST body reads as {}", || {
            let empty = ProbeRequest::post_bytes(paths::rename(), Vec::new());
            let braces = ProbeRequest::post_bytes(paths::rename(), b"{}".to_vec());
            let to_empty = probe.send(&empty)?;
            let to_braces = probe.send(&braces)?;
            if to_empty.status == to_braces.status && to_empty.json() == to_braces.json() {
                Ok(())
            } else {
                Err(format!(
                    "sent {}, got {}; sent {}, got {}: expected the same reply to both",
                    empty.describe(),
                    to_empty.describe(),
                    braces.describe(),
                    to_braces.describe()
                ))
            }
        }),
        Finding::judge(
            "W4",
            format!("a body of exactly {limit} bytes is read"),
            || {
                let sent = ProbeRequest::post_bytes(paths::rename(), padded_rename(probe, limit));
                let answer = probe.send(&sent)?;
                if answer.status == 413 {
                    Err(format!(
                        "sent {}, got {}: 64 KiB is allowed, expected it read (here 404 no-such-target)",
                        sent.describe(),
                        answer.describe()
                    ))
                } else {
                    Ok(())
                }
            },
        ),
        Finding::judge(
            "W4",
            format!("a body of {} bytes gets 413 too-large", limit + 1),
            || {
                let sent =
                    ProbeRequest::post_bytes(paths::rename(), padded_rename(probe, limit + 1));
                let answer = probe.send(&sent)?;
                expect(&sent, &answer, 413, "too-large")
            },
        ),
        Finding::judge(
            "W4",
            "a body that is JSON but no object gets 400 bad-request",
            || {
                let sent = ProbeRequest::post_bytes(paths::rename(), b"[1, 2]".to_vec());
                let answer = probe.send(&sent)?;
                expect(&sent, &answer, 400, "bad-request")
            },
        ),
        Finding::judge("W4", "a body that is not JSON gets 400 bad-request", || {
            let sent = ProbeRequest::post_bytes(paths::rename(), b"{\"requestId\": ".to_vec());
            let answer = probe.send(&sent)?;
            expect(&sent, &answer, 400, "bad-request")
        }),
    ]
}

fn w6(probe: &Probe) -> Vec<Finding> {
    let unknown = probe.unknown_id();
    let send_body = |probe: &Probe| json!({"requestId": probe.request_id(), "turnId": Value::Null, "text": "check"});
    let mut checks: Vec<(String, ProbeRequest, u16, &str)> = vec![
        (
            "an unknown path gets 404 not-found".into(),
            ProbeRequest::get(format!("{}/no-such-route", paths::PREFIX)),
            404,
            "not-found",
        ),
        (
            "a POST to an unknown path gets 404 not-found".into(),
            ProbeRequest::post_json(format!("{}/no-such-route", paths::PREFIX), &json!({})),
            404,
            "not-found",
        ),
        (
            "a GET of a POST route gets 404 not-found".into(),
            ProbeRequest::get(paths::pane_post(&unknown, paths::PaneVerb::Send)),
            404,
            "not-found",
        ),
        (
            "events of an unknown pane get 404 no-such-pane".into(),
            ProbeRequest::get(paths::events(&unknown, 0, None)),
            404,
            "no-such-pane",
        ),
        (
            "a send to an unknown pane gets 404 no-such-pane".into(),
            ProbeRequest::post_json(
                paths::pane_post(&unknown, paths::PaneVerb::Send),
                &send_body(probe),
            ),
            404,
            "no-such-pane",
        ),
        (
            "a missing X-Collie-Session gets 400 version-required".into(),
            ProbeRequest::get(paths::snapshot()).without_version(),
            400,
            "version-required",
        ),
    ];
    let starters = probe.hello().is_some_and(|hello| hello.cap(caps::STARTERS));
    if starters {
        checks.push((
            "an unknown starter gets 404 no-such-starter".into(),
            ProbeRequest::post_json(
                paths::starter(&unknown),
                &json!({"requestId": probe.request_id()}),
            ),
            404,
            "no-such-starter",
        ));
    }
    let mut findings: Vec<Finding> = checks
        .into_iter()
        .map(|(what, sent, status, code)| {
            Finding::judge("W6", what, || {
                let answer = probe.send(&sent)?;
                expect(&sent, &answer, status, code)
            })
        })
        .collect();
    if !starters {
        findings.push(Finding::skipped(
            "W6",
            "an unknown starter gets 404 no-such-starter",
            "the agent offers no starters (caps.starters is not true)",
        ));
    }
    findings
}
