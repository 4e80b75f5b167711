//! SPEC H as seen on the wire: the hello's fields (H1), `503 starting` while not ready (H3),
//! and the snapshot's ETag with its 304 (H4).

use serde_json::{Value, json};

use super::{Answer, Finding, Phase, Probe, ProbeRequest, Rule, expect};
use crate::wire::{self, limits, paths};

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "H1",
        title: "hello names the service, its versions, host, epoch, ready and caps",
        phase: Phase::Ready,
        run: h1,
    },
    Rule {
        id: "H3",
        title: "while ready is false every route but hello answers 503 starting",
        phase: Phase::Starting,
        run: h3,
    },
    Rule {
        id: "H4",
        title: "the snapshot ETag is \"<epoch>-<rev>\", with a 304 when unchanged",
        phase: Phase::Ready,
        run: h4,
    },
];

/// The fewest characters 128 random bits take in the densest common text form (base64).
const MIN_EPOCH_CHARS: usize = 22;
/// How many times an ETag check reads again when the agent changed between two reads.
const UNCHANGED_TRIES: usize = 5;

/// Each field of the first hello, read from the raw JSON so a lenient decoder hides nothing.
fn h1(probe: &Probe) -> Vec<Finding> {
    let answer = probe.hello_answer();
    let hello = match (answer.status, answer.json()) {
        (200, Some(Value::Object(hello))) => hello,
        _ => {
            return vec![Finding::fail(
                "H1",
                "hello is a JSON object",
                format!(
                    "sent GET {} without a version, got {}, expected 200 with a JSON object",
                    paths::hello(),
                    answer.describe()
                ),
            )];
        }
    };
    let field = |name: &str| hello.get(name).cloned().unwrap_or(Value::Null);
    let mut findings = vec![Finding::judge(
        "H1",
        format!("service is exactly \"{}\"", wire::SERVICE),
        || match field("service") {
            Value::String(service) if service == wire::SERVICE => Ok(()),
            other => Err(format!(
                "hello's service is {other}; Collie treats such a peer as some other server and makes no further call"
            )),
        },
    )];
    findings.push(Finding::judge(
        "H1",
        "protocol is {min, max} with 1 <= min <= max",
        || {
            let protocol = field("protocol");
            let min = protocol.get("min").and_then(Value::as_u64);
            let max = protocol.get("max").and_then(Value::as_u64);
            match (min, max) {
                (Some(min), Some(max)) if 1 <= min && min <= max => Ok(()),
                _ => Err(format!(
                    "hello's protocol is {protocol}, expected whole numbers {{\"min\": 1, \"max\": 1}} today"
                )),
            }
        },
    ));
    findings.push(Finding::judge(
        "H1",
        format!(
            "host.name is text of at most {} bytes",
            limits::MAX_HOST_NAME
        ),
        || match field("host").get("name") {
            None => Ok(()),
            Some(Value::String(name)) if name.len() <= limits::MAX_HOST_NAME => Ok(()),
            Some(Value::String(name)) => Err(format!(
                "hello's host.name is {} bytes, expected at most {}",
                name.len(),
                limits::MAX_HOST_NAME
            )),
            Some(other) => Err(format!("hello's host.name is {other}, expected a string")),
        },
    ));
    findings.push(Finding::judge(
        "H1",
        "epoch is long enough for 128 bits and the same on every hello of one start (that it is random and never reused cannot be seen on the wire)",
        || {
            let epoch = match field("epoch") {
                Value::String(epoch) => epoch,
                other => return Err(format!("hello's epoch is {other}, expected a string")),
            };
            if epoch.chars().count() < MIN_EPOCH_CHARS {
                return Err(format!(
                    "hello's epoch {epoch:?} has {} characters; 128 random bits take at least {MIN_EPOCH_CHARS} (base64) or 32 (hex)",
                    epoch.chars().count()
                ));
            }
            let again = probe.send(&ProbeRequest::get(paths::hello()).without_version())?;
            let epoch_again = again
                .json()
                .and_then(|hello| hello.get("epoch").and_then(Value::as_str).map(str::to_string));
            if epoch_again.as_deref() == Some(epoch.as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "a second hello said epoch {epoch_again:?}, the first {epoch:?}: a new epoch means the agent restarted (docs/SPEC.md § Hello and the epoch)"
                ))
            }
        },
    ));
    findings.push(Finding::judge("H1", "ready is a boolean", || {
        match field("ready") {
            Value::Bool(_) => Ok(()),
            other => Err(format!("hello's ready is {other}, expected true or false")),
        }
    }));
    findings.push(Finding::judge(
        "H1",
        "caps, when present, is an object of booleans",
        || match field("caps") {
            Value::Null => Ok(()),
            Value::Object(caps) => match caps.iter().find(|(_, value)| !value.is_boolean()) {
                None => Ok(()),
                Some((name, value)) => Err(format!(
                    "hello's caps.{name} is {value}, expected true or false"
                )),
            },
            other => Err(format!(
                "hello's caps is {other}, expected an object of booleans"
            )),
        },
    ));
    findings
}

/// Runs before the check waits for `ready`: only an agent that is still laying out its panes
/// shows whether it answers `503 starting`.
fn h3(probe: &Probe) -> Vec<Finding> {
    const WHAT: &str = "a starting agent answers 503 starting to a snapshot and to a POST";
    let not_ready = probe.hello().is_some_and(|hello| !hello.ready);
    if !not_ready {
        return vec![Finding::skipped(
            "H3",
            WHAT,
            "the agent was ready at the first hello, so 503 starting could not be seen; run check right after the agent starts (the reference agent can wait: agent --ready-after 5000)",
        )];
    }
    let still_not_ready = || -> Result<bool, String> {
        let hello = probe.send(&ProbeRequest::get(paths::hello()).without_version())?;
        Ok(hello
            .json()
            .and_then(|h| h.get("ready").and_then(Value::as_bool))
            == Some(false))
    };
    let requests = [
        ProbeRequest::get(paths::snapshot()),
        ProbeRequest::post_json(
            paths::pane_post(&probe.unknown_id(), paths::PaneVerb::Send),
            &json!({"requestId": probe.request_id(), "turnId": Value::Null, "text": "check"}),
        ),
    ];
    let mut findings = Vec::new();
    for sent in requests {
        let what = format!(
            "while not ready, {} {} gets 503 starting",
            sent.method.as_str(),
            sent.path
        );
        let answer = match probe.send(&sent) {
            Ok(answer) => answer,
            Err(why) => {
                findings.push(Finding::fail("H3", what, why));
                continue;
            }
        };
        if answer.is(503, "starting") {
            findings.push(Finding::pass("H3", what));
            continue;
        }
        // The agent may have become ready between the hello and this request.
        match still_not_ready() {
            Ok(true) => findings.push(Finding::fail(
                "H3",
                what,
                format!(
                    "sent {} while hello said ready: false, got {}, expected 503 starting",
                    sent.describe(),
                    answer.describe()
                ),
            )),
            Ok(false) => findings.push(Finding::skipped(
                "H3",
                what,
                "the agent became ready before this request, so 503 starting could not be seen",
            )),
            Err(why) => findings.push(Finding::fail("H3", what, why)),
        }
    }
    findings.push(Finding::skipped(
        "H3",
        "ready only after every conversation is shown and every open ask is asked again",
        "what the agent lays out before it says ready cannot be seen on the wire",
    ));
    findings
}

/// The tag of a snapshot reply, checked against the snapshot's own epoch and rev.
fn tag_of(answer: &Answer, snapshot: &Value) -> Result<(String, String, u64), String> {
    let tag = answer
        .etag
        .clone()
        .ok_or("GET /session/v1/snapshot got 200 without an ETag header")?;
    let epoch = snapshot
        .get("epoch")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let rev = snapshot.get("rev").and_then(Value::as_u64);
    let Some(rev) = rev else {
        return Err(format!(
            "the snapshot's rev is {}, expected a whole number",
            snapshot.get("rev").cloned().unwrap_or(Value::Null)
        ));
    };
    let expected = wire::etag(epoch, rev);
    if tag.trim_start_matches("W/") != expected {
        return Err(format!(
            "GET /session/v1/snapshot got ETag {tag}, expected {expected} (\"<epoch>-<rev>\" of the snapshot it came with)"
        ));
    }
    Ok((tag, epoch.to_string(), rev))
}

fn h4(probe: &Probe) -> Vec<Finding> {
    let first = probe.snapshot().and_then(|(answer, snapshot)| {
        let tagged = tag_of(&answer, &snapshot)?;
        Ok((tagged, snapshot))
    });
    let ((tag, epoch, rev), snapshot) = match first {
        Ok(first) => first,
        Err(why) => {
            return vec![Finding::fail(
                "H4",
                "the snapshot carries ETag \"<epoch>-<rev>\"",
                why,
            )];
        }
    };
    let mut findings = vec![Finding::judge(
        "H4",
        "the snapshot carries ETag \"<epoch>-<rev>\" of its own epoch and rev, the epoch of hello",
        || match probe.hello() {
            Some(hello) if hello.epoch != epoch => Err(format!(
                "the snapshot's ETag {tag} names epoch {epoch}, hello said {}",
                hello.epoch
            )),
            _ => Ok(()),
        },
    )];
    findings.push(Finding::judge(
        "H4",
        "If-None-Match with the tag gets 304 with the same tag and no body",
        || unchanged_gets_304(probe, &tag, rev, |tag| tag.to_string()),
    ));
    findings.push(Finding::judge(
        "H4",
        "If-None-Match with another tag gets 200",
        || {
            let other = wire::etag(&epoch, rev + 1_000_000);
            let sent = ProbeRequest::get(paths::snapshot()).header("if-none-match", other);
            let answer = probe.send(&sent)?;
            if answer.status == 200 {
                Ok(())
            } else {
                Err(format!(
                    "sent {}, got {}, expected 200 with the layout",
                    sent.describe(),
                    answer.describe()
                ))
            }
        },
    ));
    findings.push(rev_rises(probe, &snapshot, &tag, rev));
    findings
}

/// Reads the snapshot with `If-None-Match: shape(tag)` until the agent stays unchanged between
/// two reads: a 304 with the tag passes; a 200 with the same tag fails (SPEC H4, T5).
pub(super) fn unchanged_gets_304(
    probe: &Probe,
    tag: &str,
    rev: u64,
    shape: impl Fn(&str) -> String,
) -> Result<(), String> {
    let mut tag = tag.to_string();
    let mut rev = rev;
    for _ in 0..UNCHANGED_TRIES {
        let sent = ProbeRequest::get(paths::snapshot()).header("if-none-match", shape(&tag));
        let answer = probe.send(&sent)?;
        match answer.status {
            304 if !answer.body.is_empty() => {
                return Err(format!(
                    "sent {}, got 304 with a {}-byte body, expected none",
                    sent.describe(),
                    answer.body.len()
                ));
            }
            304 => {
                return match &answer.etag {
                    Some(again)
                        if again.trim_start_matches("W/") == tag.trim_start_matches("W/") =>
                    {
                        Ok(())
                    }
                    other => Err(format!(
                        "sent {}, got 304 with ETag {other:?}, expected {tag}",
                        sent.describe()
                    )),
                };
            }
            200 => {
                let snapshot = answer.json().unwrap_or(Value::Null);
                let (new_tag, _, new_rev) = tag_of(&answer, &snapshot)?;
                if new_tag.trim_start_matches("W/") == tag.trim_start_matches("W/") {
                    return Err(format!(
                        "sent {}, got 200 with that same tag, expected 304 Not Modified",
                        sent.describe()
                    ));
                }
                if new_rev <= rev {
                    return Err(format!(
                        "the snapshot changed but its rev went from {rev} to {new_rev}; rev rises with every change"
                    ));
                }
                // The agent changed in between: try again with the new tag.
                tag = new_tag;
                rev = new_rev;
            }
            _ => {
                return Err(format!(
                    "sent {}, got {}, expected 304 Not Modified",
                    sent.describe(),
                    answer.describe()
                ));
            }
        }
    }
    Err(format!(
        "the snapshot changed on each of {UNCHANGED_TRIES} reads in a row, so a 304 could not be seen"
    ))
}

/// With `--allow-writes`: renames a tab and back; each rename must raise `rev`, and the old tag
/// must no longer get a 304.
fn rev_rises(probe: &Probe, snapshot: &Value, tag: &str, rev: u64) -> Finding {
    const WHAT: &str = "rev rises with a change a reader can see (a tab renamed and back)";
    if !probe.allow_writes() {
        return Finding::skipped("H4", WHAT, super::NEEDS_WRITES);
    }
    let Some((tab, title)) = first_tab(snapshot) else {
        return Finding::skipped("H4", WHAT, "the snapshot has no tab to rename");
    };
    if !probe
        .hello()
        .is_some_and(|hello| hello.cap(wire::caps::RENAME))
    {
        return Finding::skipped(
            "H4",
            WHAT,
            "the agent offers no rename (caps.rename is not true)",
        );
    }
    Finding::judge("H4", WHAT, || {
        let renamed = format!("{title} ·");
        let mut last_rev = rev;
        for new_title in [renamed.as_str(), title.as_str()] {
            rename_tab(probe, &tab, new_title)?;
            let (answer, after) = probe.snapshot()?;
            let (_, _, new_rev) = tag_of(&answer, &after)?;
            if new_rev <= last_rev {
                return Err(format!(
                    "renamed tab {tab} to {new_title:?}; the snapshot's rev went from {last_rev} to {new_rev}, expected it to rise"
                ));
            }
            last_rev = new_rev;
        }
        let sent = ProbeRequest::get(paths::snapshot()).header("if-none-match", tag.to_string());
        let answer = probe.send(&sent)?;
        if answer.status == 304 {
            return Err(format!(
                "after two renames, sent {}, got 304: the old tag still matched",
                sent.describe()
            ));
        }
        Ok(())
    })
}

/// The id and title (as sent) of the snapshot's first tab.
pub(super) fn first_tab(snapshot: &Value) -> Option<(String, String)> {
    let tab = snapshot
        .get("workspaces")?
        .as_array()?
        .iter()
        .filter_map(|workspace| workspace.get("tabs")?.as_array())
        .flatten()
        .next()?;
    Some((
        tab.get("id")?.as_str()?.to_string(),
        tab.get("title")?.as_str()?.trim().to_string(),
    ))
}

/// A rename of a tab that must succeed.
fn rename_tab(probe: &Probe, tab: &str, title: &str) -> Result<(), String> {
    let sent = ProbeRequest::post_json(
        paths::rename(),
        &json!({"requestId": probe.request_id(), "kind": "tab", "id": tab, "title": title}),
    );
    let answer = probe.send(&sent)?;
    expect(&sent, &answer, 200, "ok")
}
