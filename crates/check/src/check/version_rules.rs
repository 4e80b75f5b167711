//! SPEC V as seen on the wire: the agent ignores what it does not know in a request (V2), and
//! a hello whose range does not meet gets `409 incompatible` naming both ranges (V4).

use serde_json::{Value, json};

use super::hello_rules::first_tab;
use super::{Finding, NEEDS_WRITES, Phase, Probe, ProbeRequest, Rule, expect};
use crate::wire::{self, caps, paths};

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "V2",
        title: "the agent ignores request fields and headers it does not know",
        phase: Phase::Ready,
        run: v2,
    },
    Rule {
        id: "V4",
        title: "a hello whose range does not meet gets 409 incompatible with both ranges",
        phase: Phase::Ready,
        run: v4,
    },
];

/// A field no version of the wire has, with a nested value so a strict reader trips on it.
const UNKNOWN_FIELD: &str = "collieCheckFutureField";

fn v2(probe: &Probe) -> Vec<Finding> {
    let mut findings = vec![Finding::judge(
        "V2",
        "a snapshot read with an unknown header gets 200",
        || {
            let sent = ProbeRequest::get(paths::snapshot()).header("x-collie-check-future", "yes");
            let answer = probe.send(&sent)?;
            if answer.status == 200 {
                Ok(())
            } else {
                Err(format!(
                    "sent {} with the header X-Collie-Check-Future, got {}, expected 200",
                    sent.describe(),
                    answer.describe()
                ))
            }
        },
    )];
    findings.push(Finding::judge(
        "V2",
        "a send with an unknown field gets the same reply as without it",
        || {
            let path = paths::pane_post(&probe.unknown_id(), paths::PaneVerb::Send);
            let plain = json!({"requestId": probe.request_id(), "turnId": Value::Null, "text": "check"});
            let mut extended = plain.clone();
            extended["requestId"] = json!(probe.request_id());
            extended[UNKNOWN_FIELD] = json!({"nested": [1, "two"]});
            let plain_sent = ProbeRequest::post_json(&path, &plain);
            let extended_sent = ProbeRequest::post_json(&path, &extended);
            let plain_answer = probe.send(&plain_sent)?;
            let extended_answer = probe.send(&extended_sent)?;
            if plain_answer.status == extended_answer.status
                && plain_answer.code() == extended_answer.code()
            {
                Ok(())
            } else {
                Err(format!(
                    "sent {}, got {}; the same with the unknown field {UNKNOWN_FIELD}, got {}: expected the field ignored",
                    plain_sent.describe(),
                    plain_answer.describe(),
                    extended_answer.describe()
                ))
            }
        },
    ));
    findings.push(rename_with_unknown_field(probe));
    findings
}

/// With `--allow-writes`: a rename of a tab to its own title, carrying an unknown field, is
/// done like any rename.
fn rename_with_unknown_field(probe: &Probe) -> Finding {
    const WHAT: &str = "a rename with an unknown field is done (the phone's half of the rule, ignoring what it reads, is Collie's side)";
    if !probe.allow_writes() {
        return Finding::skipped("V2", WHAT, NEEDS_WRITES);
    }
    if !probe.hello().is_some_and(|hello| hello.cap(caps::RENAME)) {
        return Finding::skipped(
            "V2",
            WHAT,
            "the agent offers no rename (caps.rename is not true)",
        );
    }
    let tab = probe.snapshot().map(|(_, snapshot)| first_tab(&snapshot));
    match tab {
        Err(why) => Finding::fail("V2", WHAT, why),
        Ok(None) => Finding::skipped("V2", WHAT, "the snapshot has no tab to rename"),
        Ok(Some((tab, title))) => Finding::judge("V2", WHAT, || {
            let sent = ProbeRequest::post_json(
                paths::rename(),
                &json!({
                    "requestId": probe.request_id(),
                    "kind": "tab",
                    "id": tab,
                    "title": title,
                    UNKNOWN_FIELD: {"nested": [1, "two"]},
                }),
            );
            let answer = probe.send(&sent)?;
            expect(&sent, &answer, 200, "ok")
        }),
    }
}

/// The telling hello of a Collie whose range lies wholly above the agent's.
fn v4(probe: &Probe) -> Vec<Finding> {
    let Some(agent_range) = probe.hello().map(|hello| hello.protocol) else {
        return vec![Finding::skipped(
            "V4",
            "a telling hello gets 409 incompatible",
            "the agent's hello gave no version range to step outside of",
        )];
    };
    let version = agent_range.max.saturating_add(1);
    let caller = format!("{version}-{}", version.saturating_add(1));
    let sent = ProbeRequest::get(paths::hello())
        .without_version()
        .header(wire::VERSION_HEADER, version.to_string())
        .header(wire::RANGE_HEADER, caller.clone());
    let answer = match probe.send(&sent) {
        Ok(answer) => answer,
        Err(why) => {
            return vec![Finding::fail(
                "V4",
                "a telling hello gets 409 incompatible",
                why,
            )];
        }
    };
    let refusal = answer
        .json()
        .and_then(|body| body.get("refusal").cloned())
        .unwrap_or(Value::Null);
    let range = |side: &str| -> Option<(u64, u64)> {
        let range = refusal.get(side)?;
        Some((range.get("min")?.as_u64()?, range.get("max")?.as_u64()?))
    };
    vec![
        Finding::judge("V4", "a telling hello gets 409 incompatible", || {
            expect(&sent, &answer, 409, "incompatible")
        }),
        Finding::judge("V4", "the refusal names the agent's range", || {
            let expected = (u64::from(agent_range.min), u64::from(agent_range.max));
            match range("agent") {
                Some(found) if found == expected => Ok(()),
                _ => Err(format!(
                    "sent {} with X-Collie-Accepts: {caller}, got refusal {refusal}, expected refusal.agent {{\"min\": {}, \"max\": {}}} as in hello",
                    sent.describe(),
                    agent_range.min,
                    agent_range.max
                )),
            }
        }),
        Finding::judge(
            "V4",
            "the refusal names the caller's range",
            || match range("collie") {
                Some((min, max)) if min <= u64::from(version) && u64::from(version) <= max => {
                    Ok(())
                }
                _ => Err(format!(
                    "sent {} with X-Collie-Accepts: {caller}, got refusal {refusal}, expected refusal.collie holding v{version}",
                    sent.describe()
                )),
            },
        ),
    ]
}
