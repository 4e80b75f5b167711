//! The person's intents as the engine reports them (SPEC Q1–Q5), and those submitted but not
//! reported yet, so a second press never sends twice while the first is on its way.

use std::collections::HashMap;

use super::inbox::AskKey;
use crate::engine::{IntentKind, IntentRecord, IntentState};

/// Final intents kept for the screens; older ones are forgotten (the journal keeps them).
const KEEP_FINAL: usize = 1000;

#[derive(Debug, Clone, Default)]
pub struct Intents {
    records: HashMap<String, IntentRecord>,
    /// Request ids, oldest first.
    order: Vec<String>,
    /// Submitted to the engine, not reported back yet: (agent, kind).
    pending: Vec<(String, IntentKind)>,
}

impl Intents {
    /// Notes a submission before the engine has given it a request id.
    pub(crate) fn submitted(&mut self, agent: &str, kind: IntentKind) {
        self.pending.push((agent.to_string(), kind));
    }

    /// Takes a record from the engine; returns the state it had before, if known.
    pub(crate) fn note(&mut self, record: IntentRecord) -> Option<IntentState> {
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
        self.order.retain(|id| {
            let is_final = records.get(id).is_some_and(|r| r.state.is_final());
            if drop > 0 && is_final {
                drop -= 1;
                records.remove(id);
                false
            } else {
                true
            }
        });
    }

    pub(crate) fn get(&self, request_id: &str) -> Option<&IntentRecord> {
        self.records.get(request_id)
    }

    /// The newest intent that matches.
    pub(crate) fn latest(
        &self,
        mut matches: impl FnMut(&IntentRecord) -> bool,
    ) -> Option<&IntentRecord> {
        self.order
            .iter()
            .rev()
            .filter_map(|id| self.records.get(id))
            .find(|r| matches(r))
    }

    /// True while a matching submission has not been reported yet.
    pub(crate) fn is_pending(&self, mut matches: impl FnMut(&str, &IntentKind) -> bool) -> bool {
        self.pending
            .iter()
            .any(|(agent, kind)| matches(agent, kind))
    }

    /// The newest answer to an ask.
    pub fn latest_answer(&self, key: &AskKey) -> Option<&IntentRecord> {
        self.latest(|r| {
            r.agent == key.agent
                && matches!(&r.kind, IntentKind::Answer { pane, ask_id, .. } if *pane == key.pane && *ask_id == key.ask_id)
        })
    }

    pub fn answer_pending(&self, key: &AskKey) -> bool {
        self.is_pending(|agent, kind| {
            agent == key.agent
                && matches!(kind, IntentKind::Answer { pane, ask_id, .. } if *pane == key.pane && *ask_id == key.ask_id)
        })
    }

    /// The newest send, abort or belt press of a pane.
    pub(crate) fn latest_for_pane(&self, agent: &str, pane_id: &str) -> Option<&IntentRecord> {
        self.latest(|r| r.agent == agent && pane_of(&r.kind) == Some(pane_id))
    }

    pub(crate) fn pane_pending(&self, agent: &str, pane_id: &str) -> Option<&'static str> {
        self.pending
            .iter()
            .rev()
            .find(|(a, kind)| a == agent && pane_of(kind) == Some(pane_id))
            .map(|(_, kind)| kind.verb())
    }
}

/// The pane a send, abort or belt press goes to (a DSH task's pane id is its task id).
pub(crate) fn pane_of(kind: &IntentKind) -> Option<&str> {
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
pub(crate) fn is_retryable(record: &IntentRecord) -> bool {
    match record.state {
        IntentState::Unknown { .. } => record.attempts < crate::engine::intent::MAX_ATTEMPTS,
        IntentState::NotSent { .. } => true,
        _ => false,
    }
}

/// True while the intent is on its way.
pub(crate) fn is_in_flight(state: &IntentState) -> bool {
    matches!(state, IntentState::Created | IntentState::Sending)
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
        intents.note(record("r-1", IntentState::Created));
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
}
