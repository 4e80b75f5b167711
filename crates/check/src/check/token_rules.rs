//! SPEC T as seen on the wire: the token comes before everything else (T3), and a weakened
//! ETag still matches (T5).

use serde_json::{Value, json};

use super::hello_rules::unchanged_gets_304;
use super::{Finding, Phase, Probe, ProbeRequest, Rule};
use crate::wire::{self, paths};

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "T3",
        title: "a missing or wrong token gets a bare 401 before anything else is looked at",
        phase: Phase::Ready,
        run: t3,
    },
    Rule {
        id: "T5",
        title: "a tag weakened to W/\"…\" by a proxy still matches",
        phase: Phase::Ready,
        run: t5,
    },
];

/// A token of the right form that no agent was given.
const WRONG_TOKEN: &str = "collie-check-wrong-token-0123456789abcdef";

/// Each request goes without a token and with a wrong one; each must get exactly
/// `401 {"code":"unauthorized"}`, whatever else is wrong with it.
fn t3(probe: &Probe) -> Vec<Finding> {
    if !probe.is_tcp() {
        return vec![Finding::skipped(
            "T3",
            "a missing or wrong token gets a bare 401",
            "only over TCP: on a socket there is no token, the private socket is the access control (docs/SPEC.md § The socket)",
        )];
    }
    let unknown = probe.unknown_id();
    let cases = [
        ("hello", ProbeRequest::get(paths::hello()).without_version()),
        (
            "an unknown path",
            ProbeRequest::get(format!("{}/no-such-route", paths::PREFIX)),
        ),
        (
            "a snapshot with a version the agent does not speak",
            ProbeRequest::get(paths::snapshot())
                .without_version()
                .header(wire::VERSION_HEADER, "999"),
        ),
        (
            "a POST whose body is not JSON",
            ProbeRequest::post_bytes(
                paths::pane_post(&unknown, paths::PaneVerb::Send),
                b"not json".to_vec(),
            ),
        ),
        (
            "a send to an unknown pane",
            ProbeRequest::post_json(
                paths::pane_post(&unknown, paths::PaneVerb::Send),
                &json!({"requestId": probe.request_id(), "turnId": Value::Null, "text": "check"}),
            ),
        ),
    ];
    let mut findings = Vec::new();
    for (token, token_words) in [
        (None, "without a token"),
        (Some(WRONG_TOKEN), "with a wrong token"),
    ] {
        for (case, sent) in &cases {
            findings.push(Finding::judge(
                "T3",
                format!("{case} {token_words} gets a bare 401"),
                || {
                    let answer = probe
                        .send_with_token(sent, token)
                        .unwrap_or_else(|| Err("no TCP access to send it".to_string()))?;
                    let bare = answer.status == 401
                        && answer.json() == Some(json!({"code": "unauthorized"}));
                    if bare {
                        Ok(())
                    } else {
                        Err(format!(
                            "sent {} {token_words}, got {}, expected exactly 401 {{\"code\":\"unauthorized\"}}: the token is checked before the path, the version, the body and readiness",
                            sent.describe(),
                            answer.describe()
                        ))
                    }
                },
            ));
        }
    }
    findings.push(Finding::skipped(
        "T3",
        "the token is compared in constant time",
        "how long the comparison takes cannot be judged from the wire",
    ));
    findings
}

fn t5(probe: &Probe) -> Vec<Finding> {
    const WHAT: &str = "If-None-Match: W/\"<epoch>-<rev>\" gets 304";
    let first = probe.snapshot().and_then(|(answer, snapshot)| {
        let tag = answer
            .etag
            .ok_or("GET /session/v1/snapshot got 200 without an ETag header")?;
        let rev = snapshot
            .get("rev")
            .and_then(Value::as_u64)
            .unwrap_or_default();
        Ok((tag, rev))
    });
    vec![match first {
        Err(why) => Finding::fail("T5", WHAT, why),
        Ok((tag, rev)) => Finding::judge("T5", WHAT, || {
            unchanged_gets_304(probe, &tag, rev, |tag| {
                format!("W/{}", tag.trim_start_matches("W/"))
            })
        }),
    }]
}
