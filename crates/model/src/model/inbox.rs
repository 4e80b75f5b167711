//! "Needs your answer": every open ask of every agent and pane in one list, oldest first
//! (SPEC A2), with the time left of those that expire (SPEC A13).

use time::OffsetDateTime;

use super::agents::{AgentView, Agents, Link, PaneRef};
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
pub struct InboxRow<'a> {
    pub agent: &'a AgentView,
    pub pane: PaneRef<'a>,
    pub ask: &'a Ask,
    pub opened_at: Option<OffsetDateTime>,
    pub expires_at: Option<OffsetDateTime>,
}

impl InboxRow<'_> {
    pub fn key(&self) -> AskKey {
        AskKey {
            agent: self.agent.name.clone(),
            pane: self.pane.pane.id.clone(),
            ask_id: self.ask.id.clone(),
        }
    }
}

/// Every open ask, oldest first by `openedAt` (SPEC A2); asks without it keep layout order
/// after the dated ones.
pub fn rows(agents: &Agents) -> Vec<InboxRow<'_>> {
    let mut rows: Vec<InboxRow<'_>> = agents
        .list
        .iter()
        .flat_map(|agent| {
            agent.panes().into_iter().flat_map(move |pane| {
                pane.asks().iter().map(move |ask| InboxRow {
                    agent,
                    pane,
                    ask,
                    opened_at: ask.opened_at.as_ref().and_then(wire::Stamp::at),
                    expires_at: ask.expires_at.as_ref().and_then(wire::Stamp::at),
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

/// The open asks as the counts tell them: those the person can answer now, and those on an
/// agent that cannot be reached, set apart. An ask leaves both at its deadline by the phone's
/// clock, when no key answers it any more (docs/ASKS.md), not when the next poll drops it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub answerable: usize,
    pub unreachable: usize,
}

/// Counts the open asks at `now`, without sorting them.
pub fn tally(agents: &Agents, now: OffsetDateTime) -> Tally {
    let mut tally = Tally::default();
    for agent in &agents.list {
        let open = agent
            .ask_deadlines()
            .iter()
            .filter(|at| !at.is_some_and(|at| TimeLeft::is_over(at, now)))
            .count();
        if is_unreachable(agent) {
            tally.unreachable += open;
        } else {
            tally.answerable += open;
        }
    }
    tally
}

/// True from an ask's deadline on, by the phone's clock (SPEC A13).
pub fn is_expired(ask: &Ask, now: OffsetDateTime) -> bool {
    ask.expires_at
        .as_ref()
        .and_then(wire::Stamp::at)
        .is_some_and(|at| TimeLeft::is_over(at, now))
}

/// True while the phone cannot reach the agent or it is not ready: an answer cannot go, so its
/// asks are not offered as answerable (its cards say so at their top).
pub fn is_unreachable(agent: &AgentView) -> bool {
    !matches!(agent.link(), Link::Up | Link::Missed(_))
}

/// The next moment a countdown on screen changes: the nearest second boundary of an open ask's
/// deadline after `now` (the deadline itself last). The runner wakes then, so "0:01 left" turns
/// to "expired" at the deadline and no second is skipped (docs/ASKS.md).
pub fn next_countdown_change(agents: &Agents, now: OffsetDateTime) -> Option<OffsetDateTime> {
    agents
        .list
        .iter()
        .flat_map(|agent| agent.ask_deadlines())
        .filter_map(|at| TimeLeft::next_change((*at)?, now))
        .min()
}

/// The row whose ask expires soonest and has not expired yet, else the soonest expired one.
pub fn soonest_expiring(rows: &[InboxRow<'_>], now: OffsetDateTime) -> Option<usize> {
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
pub enum TimeLeft {
    Seconds(i64),
    Expired,
}

impl TimeLeft {
    /// Rounds up: "0:01 left" until the deadline itself, and "expired" from the deadline on,
    /// the moment the card stops answering (docs/ASKS.md, "When an ask expires"). Rounding
    /// down would read "expired" while up to a second was left and a key still answered.
    pub fn until(expires_at: OffsetDateTime, now: OffsetDateTime) -> Self {
        let left = expires_at - now;
        if !left.is_positive() {
            return Self::Expired;
        }
        let whole = left.whole_seconds();
        let part = left - time::Duration::seconds(whole);
        Self::Seconds(if part.is_positive() { whole + 1 } else { whole })
    }

    /// When what [`TimeLeft::until`] says next changes: "0:0N left" holds while more than N-1
    /// seconds are left, so it turns at the deadline less N-1 seconds; "expired" never changes.
    pub fn next_change(expires_at: OffsetDateTime, now: OffsetDateTime) -> Option<OffsetDateTime> {
        match Self::until(expires_at, now) {
            Self::Seconds(shown) => Some(expires_at - time::Duration::seconds(shown - 1)),
            Self::Expired => None,
        }
    }

    /// True from the deadline on, by the phone's clock: no key answers the ask any more.
    pub fn is_over(expires_at: OffsetDateTime, now: OffsetDateTime) -> bool {
        Self::until(expires_at, now) == Self::Expired
    }

    /// The last ten seconds are drawn urgent.
    pub fn is_urgent(self) -> bool {
        matches!(self, Self::Seconds(s) if s <= 10)
    }

    /// "0:42 left", "1:05:00 left", "expired".
    pub fn text(self) -> String {
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
pub fn clock_time(at: OffsetDateTime) -> String {
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
    fn a13_the_next_change_is_the_next_second_boundary_of_the_deadline() {
        let deadline = datetime!(2026-11-29 14:02:11.500 UTC);
        let next = |now: OffsetDateTime| TimeLeft::next_change(deadline, now);
        // 2.3 s left shows 0:03 until 2 s are left.
        let now = deadline - time::Duration::milliseconds(2_300);
        assert_eq!(next(now), Some(deadline - time::Duration::seconds(2)));
        // Exactly 2 s left shows 0:02 until 1 s is left; 0.4 s left shows 0:01 until the deadline.
        assert_eq!(
            next(deadline - time::Duration::seconds(2)),
            Some(deadline - time::Duration::seconds(1))
        );
        assert_eq!(
            next(deadline - time::Duration::milliseconds(400)),
            Some(deadline)
        );
        assert_eq!(next(deadline), None);
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
