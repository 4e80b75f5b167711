//! "Needs your answer": every open ask of every agent and pane in one list, oldest first
//! (SPEC A2), with the time left of those that expire (SPEC A13).

use time::OffsetDateTime;

use super::agents::{AgentView, Agents, PaneRef};
use crate::wire::{self, Ask};

/// Which ask: its agent, pane and id. The revision is read from the live ask.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AskKey {
    pub agent: String,
    pub pane: String,
    pub ask_id: String,
}

/// One row of the inbox.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InboxRow<'a> {
    pub(crate) agent: &'a AgentView,
    pub(crate) pane: PaneRef<'a>,
    pub(crate) ask: &'a Ask,
    pub(crate) opened_at: Option<OffsetDateTime>,
    pub(crate) expires_at: Option<OffsetDateTime>,
}

impl InboxRow<'_> {
    pub(crate) fn key(&self) -> AskKey {
        AskKey {
            agent: self.agent.name.clone(),
            pane: self.pane.pane.id.clone(),
            ask_id: self.ask.id.clone(),
        }
    }
}

/// Every open ask, oldest first by `openedAt` (SPEC A2); asks without it keep layout order
/// after the dated ones.
pub(crate) fn rows(agents: &Agents) -> Vec<InboxRow<'_>> {
    let mut rows: Vec<InboxRow<'_>> = agents
        .list
        .iter()
        .flat_map(|agent| {
            agent.panes().into_iter().flat_map(move |pane| {
                pane.asks().iter().map(move |ask| InboxRow {
                    agent,
                    pane,
                    ask,
                    opened_at: ask.opened_at.as_deref().and_then(wire::time::parse),
                    expires_at: ask.expires_at.as_deref().and_then(wire::time::parse),
                })
            })
        })
        .collect();
    // A stable sort keeps layout order among equal or missing times.
    rows.sort_by_key(|row| match row.opened_at {
        Some(at) => (0, at),
        None => (1, OffsetDateTime::UNIX_EPOCH),
    });
    rows
}

/// How many asks are open, without sorting them.
pub(crate) fn count(agents: &Agents) -> usize {
    agents
        .list
        .iter()
        .flat_map(|agent| agent.panes())
        .map(|pane| pane.asks().len())
        .sum()
}

/// The row whose ask expires soonest and has not expired yet, else the soonest expired one.
pub(crate) fn soonest_expiring(rows: &[InboxRow<'_>], now: OffsetDateTime) -> Option<usize> {
    let dated = rows
        .iter()
        .enumerate()
        .filter_map(|(i, row)| row.expires_at.map(|at| (i, at)));
    dated
        .clone()
        .filter(|(_, at)| *at > now)
        .min_by_key(|(_, at)| *at)
        .or_else(|| dated.min_by_key(|(_, at)| *at))
        .map(|(i, _)| i)
}

/// The time left of an ask that expires (SPEC A13).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeLeft {
    Seconds(i64),
    Expired,
}

impl TimeLeft {
    /// Rounds up: "0:01 left" until the deadline itself, and "expired" from the deadline on,
    /// the moment the card stops answering (docs/ASKS.md, "When an ask expires"). Rounding
    /// down would read "expired" while up to a second was left and a key still answered.
    pub(crate) fn until(expires_at: OffsetDateTime, now: OffsetDateTime) -> Self {
        let left = expires_at - now;
        if !left.is_positive() {
            return Self::Expired;
        }
        let whole = left.whole_seconds();
        let part = left - time::Duration::seconds(whole);
        Self::Seconds(if part.is_positive() { whole + 1 } else { whole })
    }

    /// True from the deadline on, by the phone's clock: no key answers the ask any more.
    pub(crate) fn is_over(expires_at: OffsetDateTime, now: OffsetDateTime) -> bool {
        Self::until(expires_at, now) == Self::Expired
    }

    /// The last ten seconds are drawn urgent.
    pub(crate) fn is_urgent(self) -> bool {
        matches!(self, Self::Seconds(s) if s <= 10)
    }

    /// "0:42 left", "1:05:00 left", "expired".
    pub(crate) fn text(self) -> String {
        match self {
            Self::Expired => "expired".into(),
            Self::Seconds(s) if s >= 3600 => {
                format!("{}:{:02}:{:02} left", s / 3600, (s % 3600) / 60, s % 60)
            }
            Self::Seconds(s) => format!("{}:{:02} left", s / 60, s % 60),
        }
    }
}

/// "14:02:11 UTC": a moment by the phone's clock, to the second, as the phone shows times
/// elsewhere (UTC, like the wire inspector).
pub(crate) fn clock_time(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    format!("{:02}:{:02}:{:02} UTC", at.hour(), at.minute(), at.second())
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn a13_time_left_counts_down_to_expired() {
        let now = datetime!(2026-11-29 12:00:00 UTC);
        assert_eq!(
            TimeLeft::until(datetime!(2026-11-29 12:01:05 UTC), now).text(),
            "1:05 left"
        );
        let urgent = TimeLeft::until(datetime!(2026-11-29 12:00:09 UTC), now);
        assert!(urgent.is_urgent());
        assert_eq!(
            TimeLeft::until(datetime!(2026-11-29 11:59:00 UTC), now).text(),
            "expired"
        );
    }

    #[test]
    fn a13_time_left_rounds_up_and_is_expired_from_the_deadline_on() {
        let deadline = datetime!(2026-11-29 14:02:11 UTC);
        let left = |ms: i64| TimeLeft::until(deadline, deadline - time::Duration::milliseconds(ms));
        assert_eq!(left(200).text(), "0:01 left");
        assert_eq!(left(999).text(), "0:01 left");
        assert_eq!(left(1_000).text(), "0:01 left");
        assert_eq!(left(1_001).text(), "0:02 left");
        assert_eq!(left(1).text(), "0:01 left");
        assert_eq!(left(0), TimeLeft::Expired);
        assert_eq!(left(-1), TimeLeft::Expired);
        assert!(!TimeLeft::is_over(
            deadline,
            deadline - time::Duration::milliseconds(1)
        ));
        assert!(TimeLeft::is_over(deadline, deadline));
        assert_eq!(clock_time(deadline), "14:02:11 UTC");
    }
}
