//! `collie-phone check`: a conformance suite that any durable agent can be run against, rule by
//! SPEC rule, as far as each rule can be seen on the wire.
//!
//! # How it fits together
//!
//! - [`Probe`] (probe.rs) talks to the agent through the phone's own transport: it reads the
//!   first hello, picks the version (SPEC H2) and sends every later request with it. Rules call
//!   it synchronously: `probe.get(path)`, `probe.post(path, &json)`, `probe.send(&ProbeRequest)`
//!   for full control (headers, raw bytes, no version header), `probe.snapshot()`, and over TCP
//!   `probe.send_with_token(&request, None | Some("wrong"))`. Every call gives an [`Answer`]
//!   (`status`, `etag`, `body`, `code()`, `json()`, `is(409, "stale")`, `describe()`) or a
//!   `String` that already says what was sent and that nothing came back.
//! - A [`Rule`] is a SPEC id, a one-line title and a plain function `fn(&Probe) -> Vec<Finding>`.
//!   A rule may check several things: one [`Finding`] per sub-check, each one line of the table.
//! - A [`Finding`] is a [`Verdict`]: `Pass`, `Fail(why)` or `Skipped(why)`. A failure says in
//!   plain words what was sent, what came back and what was expected. A skip says why
//!   ("needs --allow-writes", "only over TCP", "the agent has no open ask"). A part of a rule
//!   that cannot be seen on the wire is said in the finding's text, not silently passed.
//! - [`run`] reads hello, runs the few [`Phase::Starting`] rules (H3 needs an agent that is not
//!   ready yet), waits for `ready`, runs every other rule of [`rules`] in order and gives a
//!   [`Report`] (report.rs prints the table, `--json` and `--junit`).
//!
//! # Adding a rule in five minutes
//!
//! 1. Pick the file of its SPEC letter (`wire_rules.rs` W, `hello_rules.rs` H, `token_rules.rs`
//!    T, `asks.rs` A, `replay_rules.rs` Q, `version_rules.rs` V, `limits.rs` L) or add one and
//!    list it in [`rules`].
//! 2. Write the function and add it to that file's `RULES`:
//!
//! ```ignore
//! pub(super) const RULES: &[Rule] = &[Rule {
//!     id: "W9",
//!     title: "what the rule asks, in a few words",
//!     phase: Phase::Ready,
//!     run: w9,
//! }];
//!
//! fn w9(probe: &Probe) -> Vec<Finding> {
//!     let sent = ProbeRequest::get(paths::snapshot()).without_version();
//!     let mut findings = vec![Finding::judge("W9", "a missing version is refused", || {
//!         let answer = probe.send(&sent)?; // Err: "GET … got no reply: …"
//!         expect(&sent, &answer, 400, "version-required")
//!     })];
//!     // A sub-check that changes the agent's state runs only with --allow-writes.
//!     findings.push(if probe.allow_writes() {
//!         Finding::judge("W9", "a rename is done", || rename_and_back(probe))
//!     } else {
//!         Finding::skipped("W9", "a rename is done", NEEDS_WRITES)
//!     });
//!     findings
//! }
//! ```
//!
//! 3. Make the reference agent able to break it: a line in the `breakable!` table of
//!    `durable::faults` (`W9 = "W9": "what the break does",`) and an
//!    `if breaks.has(Rule::W9) { … }` at the one spot of `durable::server` (or the world) where
//!    the rule lives. `tests/integration/check_breaks.rs` then proves
//!    that `check` against `agent --break W9` fails W9 and nothing else (a break that needs more
//!    agent flags, like H3's `--ready-after`, names them in that file's `extra_flags`). Run
//!    `cargo test --test integration check_breaks::` and `cargo test --test integration check::`.
//!
//! Rules run one after another against one agent, in the order of [`rules`]; a rule that
//! writes (only when `probe.allow_writes()`) must leave nothing behind that another rule trips
//! on (e.g. rename a tab and rename it back).
//!
//! `asks.rs` (the A rules) and `limits.rs` (SPEC L on what the agent sends) started empty here
//! and have their own author; each exposes its `RULES` the same way.

mod asks;
mod hello_rules;
mod limits;
pub(crate) mod probe;
mod replay_rules;
pub(crate) mod report;
mod token_rules;
mod version_rules;
mod wire_rules;

use std::time::Duration;

pub use probe::{Answer, Probe, ProbeRequest, Unreachable};
pub use report::Report;

/// The text of a skip for a check that would change the agent's state.
pub(crate) const NEEDS_WRITES: &str = "changes the agent's state: run with --allow-writes";

/// How long the check waits for an agent that is not ready yet (SPEC H3) before the rules run.
const READY_PATIENCE: Duration = Duration::from_secs(30);

/// One rule of SPEC, checked on the wire.
pub(crate) struct Rule {
    /// The SPEC id, e.g. "W4".
    pub(crate) id: &'static str,
    /// What the rule asks, in a few words.
    pub(crate) title: &'static str,
    /// When it runs; almost every rule is [`Phase::Ready`].
    pub(crate) phase: Phase,
    /// Runs the rule's sub-checks; one finding each.
    pub(crate) run: fn(&Probe) -> Vec<Finding>,
}

/// When a rule runs. An agent may start not ready (SPEC H3); the check waits for `ready`
/// before the rules of [`Phase::Ready`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Right after the first hello, before waiting for `ready` (only what needs a starting agent).
    Starting,
    /// Once hello says `ready: true`.
    Ready,
}

/// How one sub-check went.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "verdict", content = "why", rename_all = "lowercase")]
pub(crate) enum Verdict {
    Pass,
    /// What was sent, what came back, what was expected.
    Fail(String),
    /// Why it was not checked.
    Skipped(String),
}

/// One line of the report: one sub-check of one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub(crate) rule: &'static str,
    /// What was checked, in one line.
    pub(crate) what: String,
    pub(crate) verdict: Verdict,
}

impl Finding {
    pub(crate) fn pass(rule: &'static str, what: impl Into<String>) -> Self {
        Self {
            rule,
            what: what.into(),
            verdict: Verdict::Pass,
        }
    }

    pub(crate) fn fail(
        rule: &'static str,
        what: impl Into<String>,
        why: impl Into<String>,
    ) -> Self {
        Self {
            rule,
            what: what.into(),
            verdict: Verdict::Fail(why.into()),
        }
    }

    pub(crate) fn skipped(
        rule: &'static str,
        what: impl Into<String>,
        why: impl Into<String>,
    ) -> Self {
        Self {
            rule,
            what: what.into(),
            verdict: Verdict::Skipped(why.into()),
        }
    }

    /// Runs one sub-check: `Ok` passes, `Err(why)` fails with that text.
    pub(crate) fn judge(
        rule: &'static str,
        what: impl Into<String>,
        check: impl FnOnce() -> Result<(), String>,
    ) -> Self {
        match check() {
            Ok(()) => Self::pass(rule, what),
            Err(why) => Self::fail(rule, what, why),
        }
    }

    pub(crate) fn failed(&self) -> bool {
        matches!(self.verdict, Verdict::Fail(_))
    }
}

/// `Ok` when `answer` is `status` with `code`, else a sentence with what was sent, what came
/// back and what was expected.
pub(crate) fn expect(
    sent: &ProbeRequest,
    answer: &Answer,
    status: u16,
    code: &str,
) -> Result<(), String> {
    if answer.is(status, code) {
        Ok(())
    } else {
        Err(format!(
            "sent {}, got {}, expected {status} {code}",
            sent.describe(),
            answer.describe()
        ))
    }
}

/// Every rule, in the order they run and are reported: W, H, T, A, Q, V, then SPEC L.
pub(crate) fn rules() -> Vec<&'static Rule> {
    [
        wire_rules::RULES,
        hello_rules::RULES,
        token_rules::RULES,
        asks::RULES,
        replay_rules::RULES,
        version_rules::RULES,
        limits::RULES,
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Runs every rule against the agent behind `probe` and collects the findings, in the order
/// of [`rules`]. When the first hello is no usable `collie-durable` hello, only H1 runs (SPEC
/// H1: Collie makes no further call) and every other rule is skipped.
pub fn run(mut probe: Probe) -> Result<Report, Unreachable> {
    let rules = rules();
    let mut found: Vec<Vec<Finding>> = vec![Vec::new(); rules.len()];
    if probe.hello().is_none() {
        for (rule, slot) in rules.iter().zip(found.iter_mut()) {
            *slot = if rule.id == "H1" {
                (rule.run)(&probe)
            } else {
                vec![Finding::skipped(
                    rule.id,
                    rule.title,
                    "the agent's hello is not a collie-durable hello, so Collie makes no further call (docs/SPEC.md § Hello and the epoch)",
                )]
            };
        }
        return Ok(Report::new(&probe, found.concat()));
    }
    for (rule, slot) in rules.iter().zip(found.iter_mut()) {
        if rule.phase == Phase::Starting {
            *slot = (rule.run)(&probe);
        }
    }
    if !probe.wait_until_ready(READY_PATIENCE)? {
        let mut findings = found.concat();
        findings.push(Finding::fail(
            "H3",
            "the agent becomes ready",
            format!(
                "hello still said ready: false after {} s, so no other rule could run",
                READY_PATIENCE.as_secs()
            ),
        ));
        return Ok(Report::new(&probe, findings));
    }
    for (rule, slot) in rules.iter().zip(found.iter_mut()) {
        if rule.phase == Phase::Ready {
            *slot = (rule.run)(&probe);
        }
    }
    Ok(Report::new(&probe, found.concat()))
}
