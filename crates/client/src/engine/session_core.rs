//! What the two session actors share: the Collie wire's [`super::session::Session`] and the DSH
//! bridge's [`super::dsh::session::BridgeSession`]. Each polls its own protocol; both count
//! failures the same way (SPEC H6), tell the screens the same [`AgentChange`]s, and end on the
//! same two conditions.
//!
//! - [`Stop`]: why one poll (a Collie poll, a bridge pass) ended early.
//! - [`Reach`]: failures in a row and the last good read. One failure after a good read keeps
//!   what is shown (stale, and the log says why); two in a row, or a first poll that fails, show
//!   the agent as unreachable, "last seen HH:MM"; a poll that goes through resets the count.
//! - [`SessionCore`]: the session's name, status and channels, and when it ends: the app is
//!   gone (the receiver of its changes dropped), or the engine asked every session to stop (its
//!   commands ended, see [`super::Engine`]).

use std::sync::Arc;

use time::OffsetDateTime;
use tokio::sync::{Notify, mpsc, watch};

use super::{AgentChange, AgentStatus, FromEngine};

/// Why a poll stopped early.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Stop {
    /// A transport failure or a reply that makes no sense: counts toward unreachable (H6).
    Failed(String),
    /// A state to show that is not a failure to count (starting, incompatible, token refused…).
    Status(AgentStatus),
}

/// What one poll's outcome means for what the screens show.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Settled {
    /// The poll went through.
    Synced,
    /// The poll ended on a state to show, which is not a failure.
    Status(AgentStatus),
    /// A single failure after a good read: what is shown stays, though it may be stale.
    Stale,
    /// Two failures in a row, or a failure before any good read.
    Unreachable(AgentStatus),
}

/// Failures in a row and the last good read of one agent (SPEC H6).
#[derive(Debug, Default)]
pub(super) struct Reach {
    failures: u32,
    last_seen: Option<OffsetDateTime>,
}

impl Reach {
    /// Failures in a row at which an agent that was seen is shown as unreachable.
    const UNREACHABLE_AFTER: u32 = 2;

    pub(super) fn last_seen(&self) -> Option<OffsetDateTime> {
        self.last_seen
    }

    pub(super) fn failures(&self) -> u32 {
        self.failures
    }

    /// A read went through: the next single failure keeps what is shown.
    pub(super) fn seen(&mut self, at: OffsetDateTime) {
        self.last_seen = Some(at);
    }

    /// Counts one poll's outcome.
    pub(super) fn settle(&mut self, outcome: Result<(), Stop>, now: OffsetDateTime) -> Settled {
        match outcome {
            Ok(()) => {
                self.failures = 0;
                self.last_seen = Some(now);
                Settled::Synced
            }
            Err(Stop::Status(status)) => {
                self.failures = 0;
                Settled::Status(status)
            }
            Err(Stop::Failed(reason)) => {
                self.failures += 1;
                if self.failures >= Self::UNREACHABLE_AFTER || self.last_seen.is_none() {
                    Settled::Unreachable(AgentStatus::Unreachable {
                        reason,
                        last_seen: self.last_seen,
                    })
                } else {
                    Settled::Stale
                }
            }
        }
    }
}

/// One session's name, status and channels to the app and the engine.
pub(super) struct SessionCore {
    /// The agent's name, as the engine and the screens know it.
    pub(super) name: String,
    /// What the log calls this kind of peer: "agent", "bridge".
    peer: &'static str,
    updates: mpsc::UnboundedSender<FromEngine>,
    /// Whether the person is watching (SPEC S7, T8): the cadence is faster then.
    watching: watch::Receiver<bool>,
    /// Poll now: after an intent, or when the person asks.
    pub(super) poke: Arc<Notify>,
    /// True once the engine asks every session to stop.
    stop: watch::Receiver<bool>,
    pub(super) status: AgentStatus,
    pub(super) reach: Reach,
}

impl SessionCore {
    pub(super) fn new(
        name: String,
        peer: &'static str,
        updates: mpsc::UnboundedSender<FromEngine>,
        watching: watch::Receiver<bool>,
        poke: Arc<Notify>,
        stop: watch::Receiver<bool>,
    ) -> Self {
        Self {
            name,
            peer,
            updates,
            watching,
            poke,
            stop,
            status: AgentStatus::Connecting,
            reach: Reach::default(),
        }
    }

    pub(super) fn watching(&self) -> bool {
        *self.watching.borrow()
    }

    /// A copy of the watching flag, for a task of the session that reads at its own cadence.
    pub(super) fn watching_receiver(&self) -> watch::Receiver<bool> {
        self.watching.clone()
    }

    /// Tells the app something that is not about this agent's state (an exchange's record).
    pub(super) fn tell(&self, message: FromEngine) {
        // A send fails only once the app is gone; the run loop then ends the session.
        let _ = self.updates.send(message);
    }

    pub(super) fn emit(&self, change: AgentChange) {
        self.tell(FromEngine::Agent {
            agent: self.name.clone(),
            change,
        });
    }

    /// Takes a new status and logs it; true when it differs from the last one. The caller
    /// emits it, so that what intents read of the session can be published first.
    pub(super) fn note_status(&mut self, status: &AgentStatus) -> bool {
        if &self.status == status {
            return false;
        }
        tracing::info!(agent = %self.name, "{} is {}: {}", self.peer, status.name(), status.sentence());
        self.status = status.clone();
        true
    }

    /// Takes a new status and tells the screens, when it changed.
    pub(super) fn set_status(&mut self, status: AgentStatus) {
        if self.note_status(&status) {
            self.emit(AgentChange::Status(status));
        }
    }

    /// Counts one poll's outcome; a failure is logged with what failed ("poll", "bridge pass").
    pub(super) fn settle(&mut self, outcome: Result<(), Stop>, what: &str) -> Settled {
        let reason = match &outcome {
            Err(Stop::Failed(reason)) => Some(reason.clone()),
            _ => None,
        };
        let settled = self.reach.settle(outcome, OffsetDateTime::now_utc());
        if let Some(reason) = reason {
            tracing::warn!(agent = %self.name, failures = self.reach.failures(), "{what} failed: {reason}");
            // The pane says it within this poll, not only once the agent is unreachable.
            if settled == Settled::Stale {
                self.emit(AgentChange::Missed { reason });
            }
        }
        settled
    }

    /// True when the session should end: the app is gone, or the engine asked to stop.
    pub(super) fn is_ended(&self) -> bool {
        self.updates.is_closed() || *self.stop.borrow() || self.stop.has_changed().is_err()
    }

    /// Resolves when the session should end (see [`SessionCore::is_ended`]); for the run loop's
    /// wait, so a session does not sleep through its end.
    pub(super) async fn ended(&self) {
        let mut stop = self.stop.clone();
        tokio::select! {
            () = self.updates.closed() => {}
            // An error is the engine gone without a word: an end too.
            _ = stop.wait_for(|stop| *stop) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use time::macros::datetime;

    use super::*;

    const NOON: OffsetDateTime = datetime!(2026-12-01 12:00 UTC);
    const LATER: OffsetDateTime = datetime!(2026-12-01 12:05 UTC);

    fn failed(reason: &str) -> Result<(), Stop> {
        Err(Stop::Failed(reason.into()))
    }

    #[test]
    fn a_first_poll_that_fails_is_unreachable_at_once() {
        let mut reach = Reach::default();
        let settled = reach.settle(failed("connection refused"), NOON);
        assert_eq!(
            settled,
            Settled::Unreachable(AgentStatus::Unreachable {
                reason: "connection refused".into(),
                last_seen: None,
            })
        );
    }

    #[test]
    fn one_failure_after_a_good_read_keeps_what_is_shown_and_the_second_is_unreachable() {
        let mut reach = Reach::default();
        assert_eq!(reach.settle(Ok(()), NOON), Settled::Synced);
        assert_eq!(reach.settle(failed("timed out"), LATER), Settled::Stale);
        assert_eq!(reach.failures(), 1);
        let Settled::Unreachable(status) = reach.settle(failed("timed out again"), LATER) else {
            panic!("the second failure in a row is unreachable");
        };
        assert_eq!(
            status,
            AgentStatus::Unreachable {
                reason: "timed out again".into(),
                last_seen: Some(NOON),
            }
        );
        assert_eq!(
            status.sentence(),
            "Unreachable: timed out again. Last seen 12:00."
        );
    }

    #[test]
    fn a_poll_that_goes_through_resets_the_count() {
        let mut reach = Reach::default();
        reach.settle(Ok(()), NOON);
        assert_eq!(reach.settle(failed("timed out"), NOON), Settled::Stale);
        assert_eq!(reach.settle(Ok(()), LATER), Settled::Synced);
        assert_eq!(reach.failures(), 0);
        assert_eq!(reach.last_seen(), Some(LATER));
        assert_eq!(reach.settle(failed("timed out"), LATER), Settled::Stale);
    }

    #[test]
    fn a_status_is_not_a_failure_and_resets_the_count() {
        let mut reach = Reach::default();
        reach.settle(Ok(()), NOON);
        reach.settle(failed("timed out"), NOON);
        let settled = reach.settle(Err(Stop::Status(AgentStatus::Starting)), LATER);
        assert_eq!(settled, Settled::Status(AgentStatus::Starting));
        assert_eq!(reach.failures(), 0);
        // A status is no good read: the last one seen stays.
        assert_eq!(reach.last_seen(), Some(NOON));
        assert_eq!(reach.settle(failed("timed out"), LATER), Settled::Stale);
    }

    #[test]
    fn a_read_seen_before_the_poll_failed_keeps_what_is_shown() {
        let mut reach = Reach::default();
        reach.seen(NOON);
        assert_eq!(reach.settle(failed("snapshot cut"), NOON), Settled::Stale);
    }

    struct Parts {
        core: SessionCore,
        updates: mpsc::UnboundedReceiver<FromEngine>,
        stop: watch::Sender<bool>,
        _watching: watch::Sender<bool>,
    }

    fn core() -> Parts {
        let (updates_tx, updates) = mpsc::unbounded_channel();
        let (watching, watching_rx) = watch::channel(true);
        let (stop, stop_rx) = watch::channel(false);
        let core = SessionCore::new(
            "a".into(),
            "agent",
            updates_tx,
            watching_rx,
            Arc::new(Notify::new()),
            stop_rx,
        );
        Parts {
            core,
            updates,
            stop,
            _watching: watching,
        }
    }

    async fn ends_soon(core: &SessionCore) -> bool {
        tokio::time::timeout(Duration::from_secs(2), core.ended())
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn a_session_goes_on_while_the_app_and_the_engine_are_there() {
        let parts = core();
        assert!(!parts.core.is_ended());
        let waited = tokio::time::timeout(Duration::from_millis(50), parts.core.ended()).await;
        assert!(waited.is_err(), "nothing asked the session to end");
        drop(parts.updates);
    }

    #[tokio::test]
    async fn a_session_ends_when_the_app_is_gone() {
        let parts = core();
        drop(parts.updates);
        assert!(parts.core.is_ended());
        assert!(ends_soon(&parts.core).await);
    }

    #[tokio::test]
    async fn a_session_ends_on_the_engines_stop_request() {
        let Parts {
            core,
            updates,
            stop,
            ..
        } = core();
        let waiting = tokio::spawn(async move {
            core.ended().await;
            core.is_ended()
        });
        stop.send_replace(true);
        let ended = tokio::time::timeout(Duration::from_secs(2), waiting).await;
        assert!(matches!(ended, Ok(Ok(true))));
        drop(updates);
    }

    #[tokio::test]
    async fn a_session_ends_when_the_engine_is_gone() {
        let parts = core();
        drop(parts.stop);
        assert!(parts.core.is_ended());
        assert!(ends_soon(&parts.core).await);
    }

    #[test]
    fn a_status_is_told_once_per_change() {
        let mut parts = core();
        parts.core.set_status(AgentStatus::Ready);
        parts.core.set_status(AgentStatus::Ready);
        let mut told = Vec::new();
        while let Ok(FromEngine::Agent { agent, change }) = parts.updates.try_recv() {
            told.push((agent, format!("{change:?}")));
        }
        assert_eq!(told, vec![("a".to_string(), "Status(Ready)".to_string())]);
    }
}
