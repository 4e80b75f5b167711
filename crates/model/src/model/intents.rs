//! The person's intents as the engine reports them (SPEC Q1–Q5), and those submitted but not
//! reported yet, so a second press never sends twice while the first is on its way.

use std::collections::HashMap;

use time::OffsetDateTime;

use super::inbox::AskKey;
use crate::engine::{IntentKind, IntentRecord, IntentState};

/// Final intents kept for the screens; older ones are forgotten (the journal keeps them).
const KEEP_FINAL: usize = 1000;

/// How long a receipt ("button Benchmark: sent") stays on a pane's status line, by the phone's
/// clock (SPEC Q6); what needs the person stays until a newer intent of the pane replaces it.
pub const RECEIPT_SECONDS: i64 = 8;

#[derive(Debug, Clone, Default)]
pub struct Intents {
    records: HashMap<String, IntentRecord>,
    /// Request ids, oldest first.
    order: Vec<String>,
    /// Submitted to the engine, not reported back yet: (agent, kind).
    pending: Vec<(String, IntentKind)>,
    /// Each agent's epoch as its hello last said.
    epochs: HashMap<String, String>,
    /// When each receipt came, by the phone's clock (SPEC Q6): a record the engine reported
    /// settled while the phone ran. One read back from the journal at the start has none, so
    /// an old run's receipt never shows as new.
    receipts: HashMap<String, OffsetDateTime>,
}

/// True for a state that only says the intent went (SPEC Q6): a receipt, which fades.
fn is_receipt(state: &IntentState) -> bool {
    matches!(
        state,
        IntentState::Done { .. } | IntentState::Replayed { .. }
    )
}

impl Intents {
    /// Notes a submission before the engine has given it a request id.
    pub fn submitted(&mut self, agent: &str, kind: IntentKind) {
        self.pending.push((agent.to_string(), kind));
    }

    /// Takes a record from the engine at `now`; returns the state it had before, if known.
    pub fn note(&mut self, record: IntentRecord, now: OffsetDateTime) -> Option<IntentState> {
        if is_receipt(&record.state) {
            let known = self.records.get(&record.request_id).map(|r| &r.state);
            // A record first met settled is an old one (the journal's) unless it went this run.
            if known.is_some_and(|s| !is_receipt(s))
                || (known.is_none() && self.pending_matches(&record))
            {
                self.receipts.insert(record.request_id.clone(), now);
            }
        } else {
            self.receipts.remove(&record.request_id);
        }
        if let Some(at) = self
            .pending
            .iter()
            .position(|(agent, kind)| *agent == record.agent && *kind == record.kind)
        {
            self.pending.remove(at);
        }
        let before = self
            .records
            .insert(record.request_id.clone(), record.clone())
            .map(|r| r.state);
        if before.is_none() {
            self.order.push(record.request_id);
            self.forget_old();
        }
        before
    }

    fn forget_old(&mut self) {
        let finals = self
            .order
            .iter()
            .filter(|id| self.records.get(*id).is_some_and(|r| r.state.is_final()))
            .count();
        let mut drop = finals.saturating_sub(KEEP_FINAL);
        if drop == 0 {
            return;
        }
        let records = &mut self.records;
        let receipts = &mut self.receipts;
        self.order.retain(|id| {
            let is_final = records.get(id).is_some_and(|r| r.state.is_final());
            if drop > 0 && is_final {
                drop -= 1;
                records.remove(id);
                receipts.remove(id);
                false
            } else {
                true
            }
        });
    }

    /// Whether `record` is the journal's of an earlier run: met first with its outcome settled,
    /// and not one of this run's submissions. An outcome still open to the person (unknown,
    /// maybe applied) is not settled: it is hers to decide whichever run sent it.
    pub fn from_earlier_run(&self, record: &IntentRecord) -> bool {
        let settled = !is_in_flight(&record.state)
            && !matches!(
                record.state,
                IntentState::Unknown { .. } | IntentState::MaybeApplied
            );
        settled && !self.records.contains_key(&record.request_id) && !self.pending_matches(record)
    }

    fn pending_matches(&self, record: &IntentRecord) -> bool {
        self.pending
            .iter()
            .any(|(agent, kind)| *agent == record.agent && *kind == record.kind)
    }

    /// Whether a pane's status line shows `record` at `now` (SPEC Q6): a receipt for
    /// [`RECEIPT_SECONDS`] after it came, everything else until replaced.
    pub fn shows(&self, record: &IntentRecord, now: OffsetDateTime) -> bool {
        if !is_receipt(&record.state) {
            return true;
        }
        self.receipts
            .get(&record.request_id)
            .is_some_and(|at| now < *at + time::Duration::seconds(RECEIPT_SECONDS))
    }

    /// When the next receipt shown now fades, for the runner to wake and redraw then.
    pub fn next_fade(&self, now: OffsetDateTime) -> Option<OffsetDateTime> {
        self.receipts
            .values()
            .map(|at| *at + time::Duration::seconds(RECEIPT_SECONDS))
            .filter(|fade| *fade > now)
            .min()
    }

    pub fn get(&self, request_id: &str) -> Option<&IntentRecord> {
        self.records.get(request_id)
    }

    /// The newest intent that matches.
    pub fn latest(&self, mut matches: impl FnMut(&IntentRecord) -> bool) -> Option<&IntentRecord> {
        self.order
            .iter()
            .rev()
            .filter_map(|id| self.records.get(id))
            .find(|r| matches(r))
    }

    /// True while a matching submission has not been reported yet.
    pub fn is_pending(&self, mut matches: impl FnMut(&str, &IntentKind) -> bool) -> bool {
        self.pending
            .iter()
            .any(|(agent, kind)| matches(agent, kind))
    }

    /// The agent is in this epoch now (its hello said so).
    pub fn epoch_is(&mut self, agent: &str, epoch: &str) {
        self.epochs.insert(agent.to_string(), epoch.to_string());
    }

    /// The newest answer to an ask, sent in the agent's present epoch. Ids belong to their
    /// epoch (SPEC A9, Q3): an agent that started again may ask under an id an answer of the
    /// journal went to before (a demo world, a host whose agent numbers its calls afresh), and
    /// that answer says nothing of the new ask, so its card must not read "Answered.".
    pub fn latest_answer(&self, key: &AskKey) -> Option<&IntentRecord> {
        let now = self.epochs.get(&key.agent);
        self.latest(|r| {
            r.agent == key.agent
                && matches!(&r.kind, IntentKind::Answer { pane, ask_id, .. } if *pane == key.pane && *ask_id == key.ask_id)
                && match (&r.epoch, now) {
                    (Some(then), Some(now)) => then == now,
                    _ => true,
                }
        })
    }

    pub fn answer_pending(&self, key: &AskKey) -> bool {
        self.is_pending(|agent, kind| {
            agent == key.agent
                && matches!(kind, IntentKind::Answer { pane, ask_id, .. } if *pane == key.pane && *ask_id == key.ask_id)
        })
    }

    /// The newest send, abort or belt press of a pane.
    pub fn latest_for_pane(&self, agent: &str, pane_id: &str) -> Option<&IntentRecord> {
        self.latest(|r| r.agent == agent && pane_of(&r.kind) == Some(pane_id))
    }

    pub fn pane_pending(&self, agent: &str, pane_id: &str) -> Option<&'static str> {
        self.pending
            .iter()
            .rev()
            .find(|(a, kind)| a == agent && pane_of(kind) == Some(pane_id))
            .map(|(_, kind)| kind.verb())
    }
}

/// The pane a send, abort or belt press goes to (a DSH task's pane id is its task id).
pub fn pane_of(kind: &IntentKind) -> Option<&str> {
    match kind {
        IntentKind::Send { pane, .. }
        | IntentKind::Abort { pane, .. }
        | IntentKind::Action { pane, .. }
        | IntentKind::Setting { pane, .. } => Some(pane),
        IntentKind::DshAppend { task_id, .. }
        | IntentKind::DshCancel { task_id }
        | IntentKind::DshClose { task_id } => Some(task_id),
        _ => None,
    }
}

/// SPEC Q4, Q5: an unknown outcome may be retried once; one that never left may go again.
pub fn is_retryable(record: &IntentRecord) -> bool {
    match record.state {
        IntentState::Unknown { .. } => record.attempts < crate::engine::intent::MAX_ATTEMPTS,
        IntentState::NotSent { .. } => true,
        _ => false,
    }
}

/// True while the intent is on its way.
pub fn is_in_flight(state: &IntentState) -> bool {
    matches!(state, IntentState::Created | IntentState::Sending)
}

/// An intent's record as the engine reports it, for the model's tests: agent `a`, one
/// attempt, made today, not being checked.
#[cfg(test)]
pub(crate) fn test_record(kind: IntentKind, state: IntentState) -> IntentRecord {
    IntentRecord {
        request_id: "r-1".into(),
        agent: "a".into(),
        kind,
        attempts: 1,
        state,
        created_at: "2026-12-07T00:00:00Z".into(),
        checking: false,
        epoch: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, state: IntentState) -> IntentRecord {
        IntentRecord {
            request_id: id.into(),
            agent: "a".into(),
            kind: IntentKind::Abort {
                pane: "p".into(),
                turn_id: "t".into(),
            },
            attempts: 1,
            state,
            created_at: "2026-11-29T00:00:00Z".into(),
            checking: false,
            epoch: None,
        }
    }

    #[test]
    fn a9_an_answer_of_an_earlier_epoch_is_not_the_answer_of_an_ask_with_its_id() {
        let mut intents = Intents::default();
        let mut answered = record("r-1", IntentState::TooLate);
        answered.kind = IntentKind::Answer {
            pane: "p".into(),
            ask_id: "ask-1".into(),
            revision: 1,
            answer: crate::wire::Answer::default(),
        };
        answered.epoch = Some("e1".into());
        intents.note(answered, OffsetDateTime::UNIX_EPOCH);
        let key = AskKey {
            agent: "a".into(),
            pane: "p".into(),
            ask_id: "ask-1".into(),
        };
        intents.epoch_is("a", "e1");
        assert!(
            intents.latest_answer(&key).is_some(),
            "the same epoch: its answer"
        );
        intents.epoch_is("a", "e2");
        assert!(
            intents.latest_answer(&key).is_none(),
            "the agent started again: the old answer is not this ask's"
        );
    }

    #[test]
    fn q1_pending_until_reported() {
        let mut intents = Intents::default();
        intents.submitted(
            "a",
            IntentKind::Abort {
                pane: "p".into(),
                turn_id: "t".into(),
            },
        );
        assert_eq!(intents.pane_pending("a", "p"), Some("abort"));
        intents.note(
            record("r-1", IntentState::Created),
            OffsetDateTime::UNIX_EPOCH,
        );
        assert_eq!(intents.pane_pending("a", "p"), None);
        assert_eq!(
            intents
                .latest_for_pane("a", "p")
                .map(|r| r.request_id.as_str()),
            Some("r-1")
        );
    }

    #[test]
    fn q4_unknown_is_retryable_once() {
        let mut unknown = record("r", IntentState::Unknown { why: "x".into() });
        assert!(is_retryable(&unknown));
        unknown.attempts = 2;
        assert!(!is_retryable(&unknown));
        assert!(!is_retryable(&record("r", IntentState::MaybeApplied)));
    }

    /// SPEC Q6: a receipt shows for its seconds from when it came, then fades, and the runner
    /// is told when; a refusal stays; a receipt read back from an earlier run never shows.
    #[test]
    fn q6_a_receipt_fades_by_the_phones_clock_and_trouble_stays() {
        let start = OffsetDateTime::UNIX_EPOCH;
        let later = |s: i64| start + time::Duration::seconds(s);
        let done = || IntentState::Done {
            reply: crate::wire::PostReply::ok("r"),
        };
        let mut intents = Intents::default();
        intents.note(record("r-1", IntentState::Sending), start);
        intents.note(record("r-1", done()), later(1));
        let shown = intents.get("r-1").cloned().expect("kept");
        assert!(intents.shows(&shown, later(1 + RECEIPT_SECONDS - 1)));
        assert_eq!(
            intents.next_fade(later(2)),
            Some(later(1 + RECEIPT_SECONDS))
        );
        assert!(!intents.shows(&shown, later(1 + RECEIPT_SECONDS)));
        assert_eq!(intents.next_fade(later(1 + RECEIPT_SECONDS)), None);
        let refused = record(
            "r-2",
            IntentState::Refused {
                status: 409,
                code: "turn-running".into(),
                message: None,
            },
        );
        intents.note(refused.clone(), later(2));
        assert!(
            intents.shows(&refused, later(600)),
            "trouble stays until replaced"
        );
        let old = record("r-3", done());
        intents.note(old.clone(), later(3));
        assert!(
            !intents.shows(&old, later(3)),
            "a receipt of an earlier run"
        );
    }
}
