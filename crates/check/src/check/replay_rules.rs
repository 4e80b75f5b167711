//! SPEC Q3 as seen on the wire: a repeated request id gets the first reply again with
//! `replayed: true` and runs nothing; the same id with another body gets `409
//! request-id-reused`; the agent remembers at least the last 500 ids.

use serde_json::{Value, json};

use super::hello_rules::first_tab;
use super::{Answer, Finding, NEEDS_WRITES, Phase, Probe, ProbeRequest, Rule, expect};
use crate::wire::{caps, paths};

pub(super) const RULES: &[Rule] = &[Rule {
    id: "Q3",
    title: "a repeated request id is replayed, never run again; another body is refused",
    phase: Phase::Ready,
    run: q3,
}];

/// How many request ids the agent must remember (SPEC Q3).
const REMEMBERED_IDS: usize = 500;

fn q3(probe: &Probe) -> Vec<Finding> {
    let mut findings = refusal_is_replayed(probe);
    findings.extend(write_is_replayed(probe));
    findings.push(last_500_remembered(probe));
    findings
}

/// `replayed` as the reply says it; absent means false.
fn replayed(answer: &Answer) -> bool {
    answer
        .json()
        .and_then(|body| body.get("replayed").and_then(Value::as_bool))
        .unwrap_or(false)
}

/// The reply with `replayed` taken out, to compare a replay with the first reply.
fn without_replayed(answer: &Answer) -> Option<Value> {
    let mut body = answer.json()?;
    if let Value::Object(map) = &mut body {
        map.remove("replayed");
    }
    Some(body)
}

/// `Ok` when `again` is `first` replayed: same status, same body, `replayed: true`.
fn is_replay_of(sent: &ProbeRequest, first: &Answer, again: &Answer) -> Result<(), String> {
    if again.status != first.status || without_replayed(again) != without_replayed(first) {
        return Err(format!(
            "sent {} twice, got {} then {}: expected the first reply again",
            sent.describe(),
            first.describe(),
            again.describe()
        ));
    }
    if !replayed(again) {
        return Err(format!(
            "sent {} twice; the second reply {} lacks \"replayed\": true",
            sent.describe(),
            String::from_utf8_lossy(&again.body)
        ));
    }
    if replayed(first) {
        return Err(format!(
            "sent {} once with a fresh id, got \"replayed\": true on the first reply",
            sent.describe()
        ));
    }
    Ok(())
}

/// A send to a pane nobody has changes nothing, so it can be repeated without `--allow-writes`.
fn refusal_is_replayed(probe: &Probe) -> Vec<Finding> {
    let id = probe.request_id();
    let path = paths::pane_post(&probe.unknown_id(), paths::PaneVerb::Send);
    let sent = ProbeRequest::post_json(
        &path,
        &json!({"requestId": id, "turnId": Value::Null, "text": "check"}),
    );
    // The same body with its keys in another order and other spacing: the same request.
    let reordered = ProbeRequest::post_bytes(
        &path,
        format!("{{ \"text\" : \"check\", \"turnId\": null,\n \"requestId\": \"{id}\" }}")
            .into_bytes(),
    );
    let other = ProbeRequest::post_json(
        &path,
        &json!({"requestId": id, "turnId": Value::Null, "text": "another text"}),
    );
    let first = match probe.send(&sent) {
        Ok(first) => first,
        Err(why) => return vec![Finding::fail("Q3", "a refused send is replayed", why)],
    };
    vec![
        Finding::judge(
            "Q3",
            "a refused send repeated (keys reordered) gets the same refusal with replayed: true",
            || is_replay_of(&sent, &first, &probe.send(&reordered)?),
        ),
        Finding::judge(
            "Q3",
            "that id with another text gets 409 request-id-reused",
            || expect(&other, &probe.send(&other)?, 409, "request-id-reused"),
        ),
    ]
}

/// The tab's title as the snapshot says it now.
fn tab_title(probe: &Probe, tab: &str) -> Result<String, String> {
    let (_, snapshot) = probe.snapshot()?;
    snapshot
        .get("workspaces")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|workspace| workspace.get("tabs").and_then(Value::as_array))
        .flatten()
        .find(|t| t.get("id").and_then(Value::as_str) == Some(tab))
        .and_then(|t| t.get("title").and_then(Value::as_str))
        .map(|title| title.trim().to_string())
        .ok_or_else(|| format!("tab {tab} is no longer in the snapshot"))
}

/// With `--allow-writes`: rename a tab (id R1), rename it back (R2), then send R1 again: the
/// replay must not rename it a second time; R1 with another title must be refused.
fn write_is_replayed(probe: &Probe) -> Vec<Finding> {
    const REPLAY: &str =
        "a repeated rename gets the first reply with replayed: true and runs nothing";
    const REUSED: &str =
        "a rename with a used id and another title gets 409 request-id-reused and runs nothing";
    let skip = |why: &str| {
        vec![
            Finding::skipped("Q3", REPLAY, why),
            Finding::skipped("Q3", REUSED, why),
        ]
    };
    if !probe.allow_writes() {
        return skip(NEEDS_WRITES);
    }
    if !probe.hello().is_some_and(|hello| hello.cap(caps::RENAME)) {
        return skip("the agent offers no rename (caps.rename is not true)");
    }
    let (tab, title) = match probe.snapshot().map(|(_, snapshot)| first_tab(&snapshot)) {
        Err(why) => return vec![Finding::fail("Q3", REPLAY, why)],
        Ok(None) => return skip("the snapshot has no tab to rename"),
        Ok(Some(tab)) => tab,
    };
    let renamed = format!("{title} ·");
    let rename = |id: &str, to: &str| {
        ProbeRequest::post_json(
            paths::rename(),
            &json!({"requestId": id, "kind": "tab", "id": tab, "title": to}),
        )
    };
    let first_id = probe.request_id();
    let first_sent = rename(&first_id, &renamed);
    let first = match probe.send(&first_sent).and_then(|first| {
        expect(&first_sent, &first, 200, "ok")?;
        let back = rename(&probe.request_id(), &title);
        expect(&back, &probe.send(&back)?, 200, "ok")?;
        Ok(first)
    }) {
        Ok(first) => first,
        Err(why) => return vec![Finding::fail("Q3", REPLAY, why)],
    };
    let unchanged = |after: &str| -> Result<(), String> {
        let now = tab_title(probe, &tab)?;
        if now == title {
            Ok(())
        } else {
            Err(format!(
                "{after}, tab {tab} is titled {now:?}, expected {title:?}: the request ran again"
            ))
        }
    };
    vec![
        Finding::judge("Q3", REPLAY, || {
            is_replay_of(&first_sent, &first, &probe.send(&first_sent)?)?;
            unchanged(&format!(
                "after the rename with id {first_id} was sent again"
            ))
        }),
        Finding::judge("Q3", REUSED, || {
            let other = rename(&first_id, &format!("{title} ··"));
            expect(&other, &probe.send(&other)?, 409, "request-id-reused")?;
            unchanged(&format!("after id {first_id} was sent with another title"))
        }),
    ]
}

/// With `--allow-writes`: the first of 500 ids is still remembered after 499 more. Filling
/// the agent's memory can make it forget a real phone's ids, so it counts as a write.
fn last_500_remembered(probe: &Probe) -> Finding {
    let what = format!("the first of {REMEMBERED_IDS} request ids is still replayed");
    if !probe.allow_writes() {
        return Finding::skipped(
            "Q3",
            what,
            format!("{NEEDS_WRITES} (it fills the agent's memory of request ids)"),
        );
    }
    Finding::judge("Q3", what, || {
        let path = paths::pane_post(&probe.unknown_id(), paths::PaneVerb::Send);
        let send = |id: &str| {
            ProbeRequest::post_json(
                &path,
                &json!({"requestId": id, "turnId": Value::Null, "text": "check"}),
            )
        };
        let first_sent = send(&probe.request_id());
        let first = probe.send(&first_sent)?;
        for _ in 1..REMEMBERED_IDS {
            probe.send(&send(&probe.request_id()))?;
        }
        is_replay_of(&first_sent, &first, &probe.send(&first_sent)?)
            .map_err(|why| format!("after {} more request ids: {why}", REMEMBERED_IDS - 1))
    })
}
