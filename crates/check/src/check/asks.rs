//! The A rules (asks and answers) as seen on the wire: a stale revision (A3), a tap after the
//! decision (A7), an ask the agent does not know (A8), `expiresAt` (A13) and the memory of
//! decided asks (A14). Answers change the agent's state, so every answer waits for
//! `--allow-writes`; what can be read (the shape of the listed asks, their `expiresAt`) is
//! checked always.

#[path = "asks_pick.rs"]
mod pick;

use std::time::Duration;

use serde_json::{Value, json};
use time::OffsetDateTime;

use super::{Answer, Finding, NEEDS_WRITES, Phase, Probe, ProbeRequest, Rule, expect};
use crate::wire::{self, paths};
use pick::{OpenAsk, answer_for, answerable, open_asks, pane_ids};

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "A3",
        title: "an answer naming an old revision gets 409 stale and runs nothing",
        phase: Phase::Ready,
        run: a3,
    },
    Rule {
        id: "A7",
        title: "a tap after the decision gets 409 decided with the first outcome",
        phase: Phase::Ready,
        run: a7,
    },
    Rule {
        id: "A8",
        title: "an answer to an ask the agent does not know gets 200 too-late",
        phase: Phase::Ready,
        run: a8,
    },
    Rule {
        id: "A13",
        title: "expiresAt has a zone; once it passed the snapshot no longer lists the ask",
        phase: Phase::Ready,
        run: a13,
    },
    Rule {
        id: "A14",
        title: "decided asks keep their first outcome, so a late tap gets decided, not too-late",
        phase: Phase::Ready,
        run: a14,
    },
];

/// Why an answering check was skipped when no open ask suits it.
const NO_GENTLE_ASK: &str = "the agent has no open ask this check can answer gently (a choice, \
     a text, a form, or a permission with a deny option)";
/// A listed ask whose `expiresAt` passed this long ago fails A13: room for the agent's own
/// timer and for clocks a little apart.
const EXPIRY_GRACE: time::Duration = time::Duration::seconds(10);
/// An ask that expires within this long is waited for, to watch the timeout itself (A13).
const WATCH_EXPIRY_AT_MOST: time::Duration = time::Duration::seconds(20);

fn read_snapshot(probe: &Probe) -> Result<Value, String> {
    probe.snapshot().map(|(_, snapshot)| snapshot)
}

/// `POST /pane/:id/answer` for `ask` naming `revision`.
fn post_answer(
    probe: &Probe,
    ask: &OpenAsk,
    revision: u64,
    answer: &Value,
) -> Result<(ProbeRequest, Answer), String> {
    let sent = ProbeRequest::post_json(
        paths::pane_post(&ask.pane, paths::PaneVerb::Answer),
        &ask.answer_body(&probe.request_id(), revision, answer),
    );
    let got = probe.send(&sent)?;
    Ok((sent, got))
}

/// Answers `ask` as listed and gives the reply's outcome (Null when it carries none); an
/// answer that is not taken with `200 ok` is an error quoting what was sent and what came.
fn decide(probe: &Probe, ask: &OpenAsk) -> Result<Value, String> {
    let answer =
        answer_for(&ask.ask, 0).ok_or_else(|| format!("{} cannot be answered", ask.describe()))?;
    let revision = ask
        .revision()
        .ok_or_else(|| format!("{} has no whole-number revision", ask.describe()))?;
    let (sent, got) = post_answer(probe, ask, revision, &answer)?;
    expect(&sent, &got, 200, "ok")?;
    Ok(got
        .json()
        .and_then(|body| body.get("outcome").cloned())
        .unwrap_or(Value::Null))
}

/// True when a fresh snapshot still lists the ask `id` in `pane`.
fn still_listed(probe: &Probe, pane: &str, id: &str) -> Result<Option<OpenAsk>, String> {
    let snapshot = read_snapshot(probe)?;
    Ok(open_asks(&snapshot)
        .into_iter()
        .find(|ask| ask.pane == pane && ask.id() == id))
}

/// What a `409 decided` reply says: who decided first, and the outcome.
fn decided_parts(answer: &Answer) -> (Option<String>, Option<String>, Option<Value>) {
    let body = answer.json().unwrap_or(Value::Null);
    let text = |key: &str| body.get(key).and_then(Value::as_str).map(str::to_string);
    (text("by"), text("decidedBy"), body.get("outcome").cloned())
}

/// `Ok` when a `409 decided` names the phone as the first to decide and carries the first
/// outcome (`first`, when the first reply gave one).
fn decided_by_phone_with(sent: &ProbeRequest, got: &Answer, first: &Value) -> Result<(), String> {
    expect(sent, got, 409, "decided")?;
    let (by, decided_by, outcome) = decided_parts(got);
    if by.as_deref() != Some("phone") {
        return Err(format!(
            "sent {}, got 409 decided with by {by:?} and decidedBy {decided_by:?}, expected by: \"phone\": this check's own answer decided it first",
            sent.describe()
        ));
    }
    match outcome {
        None => Err(format!(
            "sent {}, got 409 decided without an outcome, expected the first outcome {first}",
            sent.describe()
        )),
        Some(outcome) if !first.is_null() && &outcome != first => Err(format!(
            "sent {}, got 409 decided with the outcome {outcome}, expected the first outcome {first}",
            sent.describe()
        )),
        Some(_) => Ok(()),
    }
}

// ----- A3 ---------------------------------------------------------------------------------------

fn a3(probe: &Probe) -> Vec<Finding> {
    const SHAPE: &str = "every listed ask has an id and a whole-number revision";
    const STALE: &str = "an answer naming an old revision gets 409 stale and the ask stays open";
    let snapshot = match read_snapshot(probe) {
        Ok(snapshot) => snapshot,
        Err(why) => return vec![Finding::fail("A3", SHAPE, why)],
    };
    let shape = Finding::judge("A3", SHAPE, || {
        match open_asks(&snapshot)
            .into_iter()
            .find(|ask| ask.id().is_empty() || ask.revision().is_none())
        {
            Some(bad) => Err(format!(
                "pane {} lists the ask {} with id {} and revision {}, expected a string id and a whole number",
                bad.pane,
                bad.ask.get("title").unwrap_or(&Value::Null),
                bad.ask.get("id").unwrap_or(&Value::Null),
                bad.ask.get("revision").unwrap_or(&Value::Null),
            )),
            None => Ok(()),
        }
    });
    if !probe.allow_writes() {
        return vec![shape, Finding::skipped("A3", STALE, NEEDS_WRITES)];
    }
    let Some(ask) = answerable(&snapshot).into_iter().next() else {
        return vec![shape, Finding::skipped("A3", STALE, NO_GENTLE_ASK)];
    };
    let stale = Finding::judge("A3", STALE, || {
        let revision = ask.revision().unwrap_or_default();
        let old = if revision > 0 {
            revision - 1
        } else {
            revision + 1
        };
        let answer = answer_for(&ask.ask, 0).unwrap_or(Value::Null);
        let (sent, got) = post_answer(probe, &ask, old, &answer)?;
        expect(&sent, &got, 409, "stale")?;
        // A live agent may change or decide the ask meanwhile: judge against what it lists now.
        let now = still_listed(probe, &ask.pane, ask.id())?;
        let current = now.as_ref().and_then(OpenAsk::revision);
        let named = got.json().and_then(|body| body.get("revision").cloned());
        if let Some(named) = named
            && named.as_u64() != Some(revision)
            && (current.is_none() || named.as_u64() != current)
        {
            return Err(format!(
                "sent {}, got 409 stale naming revision {named}, but {} is at revision {}",
                sent.describe(),
                ask.describe(),
                current.unwrap_or(revision)
            ));
        }
        if now.is_none() {
            closed_by_the_stale_answer(probe, &ask, revision, &answer, old)?;
        }
        Ok(())
    });
    vec![shape, stale]
}

/// The ask went away after a `409 stale`: the agent may have decided it meanwhile, or taken
/// the stale answer after all. A tap with the revision the check saw tells them apart: `409
/// decided` by the phone means the stale answer ran.
fn closed_by_the_stale_answer(
    probe: &Probe,
    ask: &OpenAsk,
    revision: u64,
    answer: &Value,
    old: u64,
) -> Result<(), String> {
    let (sent, got) = post_answer(probe, ask, revision, answer)?;
    match decided_parts(&got) {
        (Some(by), _, _) if got.is(409, "decided") && by == "phone" => Err(format!(
            "after 409 stale to an answer naming revision {old}, {} was no longer listed, and {} then got 409 decided by the phone: the stale answer was taken",
            ask.describe(),
            sent.describe()
        )),
        _ => Ok(()),
    }
}

// ----- A7 ---------------------------------------------------------------------------------------

fn a7(probe: &Probe) -> Vec<Finding> {
    const WHAT: &str = "a second answer to a decided ask gets 409 decided, by the phone, with the first outcome, and runs nothing";
    if !probe.allow_writes() {
        return vec![Finding::skipped("A7", WHAT, NEEDS_WRITES)];
    }
    let snapshot = match read_snapshot(probe) {
        Ok(snapshot) => snapshot,
        Err(why) => return vec![Finding::fail("A7", WHAT, why)],
    };
    let Some(ask) = answerable(&snapshot).into_iter().next() else {
        return vec![Finding::skipped("A7", WHAT, NO_GENTLE_ASK)];
    };
    let first = match decide(probe, &ask) {
        Ok(outcome) => outcome,
        Err(why) => {
            return vec![Finding::skipped(
                "A7",
                WHAT,
                format!(
                    "the first answer was not taken, so nothing was decided to tap after: {why}"
                ),
            )];
        }
    };
    vec![Finding::judge("A7", WHAT, || {
        // Another option or other words where the ask has them, so "the first outcome" shows.
        let again = answer_for(&ask.ask, 1).unwrap_or(Value::Null);
        let (sent, got) = post_answer(probe, &ask, ask.revision().unwrap_or_default(), &again)?;
        decided_by_phone_with(&sent, &got, &first)?;
        if still_listed(probe, &ask.pane, ask.id())?.is_some() {
            return Err(format!(
                "after two answers, {} is still listed as open",
                ask.describe()
            ));
        }
        Ok(())
    })]
}

// ----- A8 ---------------------------------------------------------------------------------------

fn a8(probe: &Probe) -> Vec<Finding> {
    const WHAT: &str =
        "an answer to an ask the agent does not know gets 200 too-late with its request id";
    if !probe.allow_writes() {
        return vec![Finding::skipped("A8", WHAT, NEEDS_WRITES)];
    }
    let pane = match read_snapshot(probe).map(|snapshot| pane_ids(&snapshot).into_iter().next()) {
        Err(why) => return vec![Finding::fail("A8", WHAT, why)],
        Ok(None) => {
            return vec![Finding::skipped(
                "A8",
                WHAT,
                "the snapshot has no pane to send the answer to",
            )];
        }
        Ok(Some(pane)) => pane,
    };
    vec![Finding::judge("A8", WHAT, || {
        let request_id = probe.request_id();
        let sent = ProbeRequest::post_json(
            paths::pane_post(&pane, paths::PaneVerb::Answer),
            &json!({
                "requestId": request_id,
                "askId": format!("{}-ask", probe.unknown_id()),
                "revision": 1,
                "answer": {"text": "collie-phone check"},
            }),
        );
        let got = probe.send(&sent)?;
        expect(&sent, &got, 200, "too-late")?;
        let echoed = got.json().and_then(|body| body.get("requestId").cloned());
        if echoed.as_ref().and_then(Value::as_str) != Some(request_id.as_str()) {
            return Err(format!(
                "sent {}, got 200 too-late with requestId {}, expected {request_id:?}",
                sent.describe(),
                echoed.unwrap_or(Value::Null)
            ));
        }
        Ok(())
    })]
}

// ----- A13 --------------------------------------------------------------------------------------

fn a13(probe: &Probe) -> Vec<Finding> {
    let snapshot = match read_snapshot(probe) {
        Ok(snapshot) => snapshot,
        Err(why) => {
            return vec![Finding::fail(
                "A13",
                "every listed expiresAt has a zone and lies ahead",
                why,
            )];
        }
    };
    let now = OffsetDateTime::now_utc();
    let asks = open_asks(&snapshot);
    let mut carrying = 0;
    let mut watchable: Vec<(OffsetDateTime, OpenAsk)> = Vec::new();
    let mut wrong = None;
    for ask in &asks {
        let Some(expires) = ask.ask.get("expiresAt") else {
            continue;
        };
        carrying += 1;
        let at = expires.as_str().and_then(wire::time::parse);
        match at {
            None => {
                wrong.get_or_insert_with(|| {
                    format!(
                        "{} has expiresAt {expires}, expected ISO 8601 with a zone, e.g. \"2026-11-29T23:52:40Z\" or \"…+08:00\"",
                        ask.describe()
                    )
                });
            }
            Some(at) if at + EXPIRY_GRACE < now => {
                wrong.get_or_insert_with(|| {
                    format!(
                        "{} is still listed as open, but its expiresAt {expires} passed {} s ago: after it the ask is decided by timeout",
                        ask.describe(),
                        (now - at).whole_seconds()
                    )
                });
            }
            Some(at) if at > now && at - now <= WATCH_EXPIRY_AT_MOST => {
                watchable.push((at, ask.clone()));
            }
            Some(_) => {}
        }
    }
    watchable.sort_by_key(|(at, _)| *at);
    let what = match (carrying, watchable.is_empty()) {
        (0, _) => "every listed expiresAt has a zone and lies ahead (no open ask carries one now)"
            .to_string(),
        (n, true) => format!(
            "every listed expiresAt has a zone and lies ahead ({n} open asks carry one; none expires within {} s, so the timeout itself was not watched)",
            WATCH_EXPIRY_AT_MOST.whole_seconds()
        ),
        (n, false) => {
            format!("every listed expiresAt has a zone and lies ahead ({n} open asks carry one)")
        }
    };
    let mut findings = vec![match wrong {
        Some(why) => Finding::fail("A13", what, why),
        None => Finding::pass("A13", what),
    }];
    if !watchable.is_empty() {
        findings.push(watch_first_expiry(probe, &watchable));
    }
    findings
}

/// What watching one ask up to its `expiresAt` saw.
enum Watch {
    /// The ask stayed open up to its mark: the finding judges what came after.
    Judged(Finding),
    /// The ask was closed before its mark (the agent decided it, or its turn ended): nothing
    /// about the timeout can be learned from it.
    ClosedEarly(String),
}

/// Watches the asks of `watchable` (soonest first) until one stays open up to its
/// `expiresAt`, and judges that one; an ask the agent closes before its time is the agent's
/// right (SPEC A5) and says nothing about the timeout, so the next one is watched instead.
fn watch_first_expiry(probe: &Probe, watchable: &[(OffsetDateTime, OpenAsk)]) -> Finding {
    let mut closed_early = Vec::new();
    for (at, ask) in watchable {
        if *at <= OffsetDateTime::now_utc() {
            // Its mark passed while an earlier ask was watched: not seen open up to it.
            continue;
        }
        match watch_expiry(probe, *at, ask, &closed_early) {
            Watch::Judged(finding) => return finding,
            Watch::ClosedEarly(described) => closed_early.push(described),
        }
    }
    Finding::skipped(
        "A13",
        "once its expiresAt passed, an ask is no longer listed and a late answer gets 409 decided by timeout",
        format!(
            "the asks with an expiresAt within {} s were closed before it ({}), so the timeout itself was not watched",
            WATCH_EXPIRY_AT_MOST.whole_seconds(),
            closed_early.join("; ")
        ),
    )
}

/// How often the snapshot is read while an ask is watched up to its `expiresAt`: often enough
/// to see an ask the agent decides a moment before its mark leave before it.
const WATCH_EVERY: Duration = Duration::from_millis(100);

/// Watches `ask` up to its `expiresAt` (`at`), then: the snapshot no longer lists it, and
/// (with writes) a late answer gets `409 decided` with `decidedBy: "timeout"` (SPEC A6, A7,
/// A13).
fn watch_expiry(
    probe: &Probe,
    at: OffsetDateTime,
    ask: &OpenAsk,
    closed_early: &[String],
) -> Watch {
    let mut what = if probe.allow_writes() {
        "once its expiresAt passed, an ask is no longer listed and a late answer gets 409 decided by timeout"
    } else {
        "once its expiresAt passed, an ask is no longer listed (the late answer needs --allow-writes)"
    }
    .to_string();
    if !closed_early.is_empty() {
        // Said, so a reader knows why the watch took longer than the soonest mark.
        what = format!(
            "{what} (watched {}: {})",
            ask.describe(),
            closed_early.join("; ")
        );
    }
    loop {
        let left = at - OffsetDateTime::now_utc();
        if left <= time::Duration::ZERO {
            break;
        }
        match still_listed(probe, &ask.pane, ask.id()) {
            Ok(Some(_)) => {}
            Ok(None) => {
                return Watch::ClosedEarly(format!(
                    "{} left the snapshot {} ms before its expiresAt",
                    ask.describe(),
                    left.whole_milliseconds()
                ));
            }
            Err(why) => return Watch::Judged(Finding::fail("A13", what, why)),
        }
        let nap = Duration::try_from(left).unwrap_or(WATCH_EVERY);
        std::thread::sleep(nap.min(WATCH_EVERY));
    }
    // The agent's own timer may lag a little behind the mark.
    let settle = time::Duration::seconds(2);
    let wait = (at + settle - OffsetDateTime::now_utc()).max(time::Duration::ZERO);
    std::thread::sleep(Duration::from_millis(
        wait.whole_milliseconds().max(0) as u64
    ));
    Watch::Judged(Finding::judge("A13", what, || {
        if still_listed(probe, &ask.pane, ask.id())?.is_some() {
            return Err(format!(
                "{} is still listed {} s after its expiresAt",
                ask.describe(),
                settle.whole_seconds()
            ));
        }
        if !probe.allow_writes() {
            return Ok(());
        }
        let Some(answer) = answer_for(&ask.ask, 0) else {
            return Ok(());
        };
        let (sent, got) = post_answer(probe, ask, ask.revision().unwrap_or_default(), &answer)?;
        expect(&sent, &got, 409, "decided")?;
        match decided_parts(&got) {
            (_, Some(by), _) if by == "timeout" => Ok(()),
            (by, decided_by, _) => Err(format!(
                "sent {} after the ask's expiresAt, got 409 decided with by {by:?} and decidedBy {decided_by:?}, expected decidedBy: \"timeout\" (it was listed as open up to its expiresAt)",
                sent.describe()
            )),
        }
    }))
}

// ----- A14 --------------------------------------------------------------------------------------

fn a14(probe: &Probe) -> Vec<Finding> {
    const WHAT: &str = "a decided ask keeps its first outcome after its turn ended: a late tap gets 409 decided, not too-late";
    if !probe.allow_writes() {
        return vec![Finding::skipped("A14", WHAT, NEEDS_WRITES)];
    }
    let snapshot = match read_snapshot(probe) {
        Ok(snapshot) => snapshot,
        Err(why) => return vec![Finding::fail("A14", WHAT, why)],
    };
    // Ending the turn decides the pane's other open asks too (SPEC A5): the pane with the
    // fewest is disturbed least.
    let listed = open_asks(&snapshot);
    let others = |pane: &str| listed.iter().filter(|ask| ask.pane == pane).count();
    let Some(ask) = answerable(&snapshot)
        .into_iter()
        .filter(OpenAsk::turn_is_running)
        .min_by_key(|ask| others(&ask.pane))
    else {
        return vec![Finding::skipped(
            "A14",
            WHAT,
            "the agent has no open ask it can be answered gently in a pane whose turn is running: this rule needs one to decide, then end its turn",
        )];
    };
    let first = match decide(probe, &ask) {
        Ok(outcome) => outcome,
        Err(why) => {
            return vec![Finding::skipped(
                "A14",
                WHAT,
                format!("the answer was not taken, so nothing was decided: {why}"),
            )];
        }
    };
    if let Err(why) = end_turn(probe, &ask) {
        return vec![Finding::skipped("A14", WHAT, why)];
    }
    let again = answer_for(&ask.ask, 1).unwrap_or(Value::Null);
    let revision = ask.revision().unwrap_or_default();
    let sent_and_got = post_answer(probe, &ask, revision, &again);
    match sent_and_got {
        Err(why) => vec![Finding::fail("A14", WHAT, why)],
        Ok((sent, got)) if got.is(200, "too-late") => vec![Finding::fail(
            "A14",
            WHAT,
            format!(
                "sent {} after the ask was answered and its turn ended, got 200 too-late: the agent forgot the decision, expected 409 decided with the first outcome {first}",
                sent.describe()
            ),
        )],
        Ok((sent, got)) if got.status == 409 && got.code().as_deref() == Some("decided") => {
            vec![Finding::judge("A14", WHAT, || {
                decided_by_phone_with(&sent, &got, &first)
            })]
        }
        // Anything else is A7's to judge (a tap after a decision); A14 asks only whether
        // the decision was remembered.
        Ok((sent, got)) => vec![Finding::skipped(
            "A14",
            WHAT,
            format!(
                "sent {}, got {}: neither a remembered decision nor a forgotten one (A7 judges that reply)",
                sent.describe(),
                got.describe()
            ),
        )],
    }
}

/// Ends the running turn of the ask's pane with an abort (SPEC A16). A turn that already
/// ended or moved on (409 not-running, 409 turn-changed) is just as good.
fn end_turn(probe: &Probe, ask: &OpenAsk) -> Result<(), String> {
    let (turn, _) = ask
        .turn
        .clone()
        .ok_or_else(|| format!("pane {} names no turn to end", ask.pane))?;
    let sent = ProbeRequest::post_json(
        paths::pane_post(&ask.pane, paths::PaneVerb::Abort),
        &json!({"requestId": probe.request_id(), "turnId": turn}),
    );
    let got = probe.send(&sent)?;
    if got.is(200, "ok") || got.is(409, "not-running") || got.is(409, "turn-changed") {
        Ok(())
    } else {
        Err(format!(
            "sent {} to end the turn, got {}; this rule needs the turn to end after the decision",
            sent.describe(),
            got.describe()
        ))
    }
}
