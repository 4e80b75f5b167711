//! The order in which open asks need the person (docs/KEYS.md, "The ask that needs you
//! first"): the nearest `expiresAt` first, then the oldest. Home lists the inbox in it, and
//! one key walks it from any screen. Pure: it reads what each ask says and the phone's clock.

use time::OffsetDateTime;

use super::inbox::{InboxRow, TimeLeft};

/// What the order reads of one ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    pub expires_at: Option<OffsetDateTime>,
    pub opened_at: Option<OffsetDateTime>,
    /// The phone cannot reach its agent now: no answer can go (docs/ASKS.md).
    pub unreachable: bool,
}

impl Facts {
    pub fn of(row: &InboxRow<'_>) -> Self {
        Self {
            expires_at: row.expires_at,
            opened_at: row.opened_at,
            unreachable: super::inbox::is_unreachable(row.agent),
        }
    }

    /// True from the deadline on, by the phone's clock: no key answers it (SPEC A13).
    pub fn expired(&self, now: OffsetDateTime) -> bool {
        self.expires_at.is_some_and(|at| TimeLeft::is_over(at, now))
    }

    /// True when a key can answer it now: its agent is reached and its time is not up.
    pub fn answerable(&self, now: OffsetDateTime) -> bool {
        !self.unreachable && !self.expired(now)
    }

    /// Where it stands: the answerable first, those with a deadline before those without, the
    /// nearest deadline first, then the oldest; then the expired; then those on an agent the
    /// phone cannot reach, in the same order among themselves.
    fn rank(&self, now: OffsetDateTime) -> impl Ord + use<> {
        let far = OffsetDateTime::UNIX_EPOCH;
        (
            self.unreachable,
            self.expired(now),
            self.expires_at.is_none(),
            self.expires_at.unwrap_or(far),
            self.opened_at.is_none(),
            self.opened_at.unwrap_or(far),
        )
    }
}

/// Sorts `items` into the order they need the person at `now`. Stable: asks that tie keep
/// the order they came in (the layout's).
pub fn order<T>(items: &mut [T], now: OffsetDateTime, facts: impl Fn(&T) -> Facts) {
    items.sort_by_cached_key(|item| facts(item).rank(now));
}

/// The inbox's rows in the order they need the person.
pub fn rows_in_order(mut rows: Vec<InboxRow<'_>>, now: OffsetDateTime) -> Vec<InboxRow<'_>> {
    order(&mut rows, now, Facts::of);
    rows
}

/// The next ask of the walk, and how many more need the person besides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Next {
    /// Its index in the ordered items.
    pub index: usize,
    /// The answerable asks besides it, the one on screen included.
    pub more: usize,
}

/// The ask a person should answer next, in `items` already in [`order`]: the first that can
/// be answered and has no answer on its way (`pending`). From a card (`on_screen`, its index)
/// the walk goes on to the one after it, round the end, so pressing the key again and again
/// visits each in turn; it never gives the card on screen back.
pub fn next<T>(
    items: &[T],
    now: OffsetDateTime,
    facts: impl Fn(&T) -> Facts,
    pending: impl Fn(&T) -> bool,
    on_screen: Option<usize>,
) -> Option<Next> {
    let walkable: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, item)| facts(item).answerable(now) && !pending(item))
        .map(|(index, _)| index)
        .collect();
    let index = match on_screen {
        Some(here) => walkable
            .iter()
            .copied()
            .find(|i| *i > here)
            .or_else(|| walkable.iter().copied().find(|i| *i != here))?,
        None => *walkable.first()?,
    };
    Some(Next {
        index,
        more: walkable.len() - 1,
    })
}

/// Why an ask is first, in words for Home's heading: "expires in 0:40", "the oldest, asked
/// 3m ago", "the oldest" (asked less than a minute ago).
pub fn why_first(facts: &Facts, now: OffsetDateTime) -> String {
    match (facts.expires_at, facts.opened_at) {
        (Some(at), _) => match TimeLeft::until(at, now) {
            TimeLeft::Seconds(s) => format!("expires in {}", clock(s)),
            TimeLeft::Expired => "expired".to_string(),
        },
        // Its age where it says more than "just now".
        (None, Some(opened)) if (now - opened).whole_seconds() >= 60 => {
            format!("the oldest, asked {}", ago((now - opened).whole_seconds()))
        }
        (None, _) => "the oldest".to_string(),
    }
}

/// "3 more need you.", "1 more needs you.", "The last one that needs you.": what opening the
/// next ask of the walk says.
pub fn more_words(more: usize) -> String {
    match more {
        0 => "The last ask that needs you.".to_string(),
        1 => "1 more needs you.".to_string(),
        n => format!("{n} more need you."),
    }
}

/// "0:40", "1:05:00": the time left without "left".
fn clock(seconds: i64) -> String {
    TimeLeft::Seconds(seconds)
        .text()
        .trim_end_matches(" left")
        .to_string()
}

/// "3m ago", "2h ago": a minute or more ago.
fn ago(seconds: i64) -> String {
    match seconds {
        s if s < 3600 => format!("{}m ago", s / 60),
        s => format!("{}h ago", s / 3600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::Duration;
    use time::macros::datetime;

    const NOW: OffsetDateTime = datetime!(2026-12-07 12:00:00 UTC);

    /// An ask as (name, seconds to its deadline, seconds since it opened, unreachable).
    type Item = (&'static str, Option<i64>, Option<i64>, bool);

    fn facts(item: &Item) -> Facts {
        Facts {
            expires_at: item.1.map(|s| NOW + Duration::seconds(s)),
            opened_at: item.2.map(|s| NOW - Duration::seconds(s)),
            unreachable: item.3,
        }
    }

    fn names(items: &[Item]) -> Vec<&'static str> {
        items.iter().map(|i| i.0).collect()
    }

    #[test]
    fn the_nearest_deadline_first_then_the_oldest_then_the_expired_then_the_unreachable() {
        let mut items: Vec<Item> = vec![
            ("old", None, Some(600), false),
            ("far", Some(300), Some(10), false),
            ("gone", Some(-5), Some(900), false),
            ("near", Some(40), Some(5), false),
            ("away", Some(1), Some(1000), true),
            ("new", None, Some(60), false),
            ("undated", None, None, false),
            ("tie-old", Some(300), Some(500), false),
        ];
        order(&mut items, NOW, facts);
        assert_eq!(
            names(&items),
            [
                "near", "tie-old", "far", "old", "new", "undated", "gone", "away"
            ]
        );
    }

    #[test]
    fn the_order_is_stable_among_asks_that_tie() {
        let mut items: Vec<Item> = vec![("a", None, None, false), ("b", None, None, false)];
        order(&mut items, NOW, facts);
        assert_eq!(names(&items), ["a", "b"]);
    }

    #[test]
    fn the_walk_goes_soonest_first_and_counts_the_rest() {
        let mut items: Vec<Item> = vec![
            ("c", Some(300), Some(5), false),
            ("a", Some(20), Some(5), false),
            ("b", Some(90), Some(5), false),
        ];
        order(&mut items, NOW, facts);
        let none = |_: &Item| false;
        let first = next(&items, NOW, facts, none, None).expect("an ask");
        assert_eq!((items[first.index].0, first.more), ("a", 2));
        // On a's card the key goes on to b, then c, then round to a.
        let second = next(&items, NOW, facts, none, Some(first.index)).expect("an ask");
        assert_eq!((items[second.index].0, second.more), ("b", 2));
        let third = next(&items, NOW, facts, none, Some(second.index)).expect("an ask");
        assert_eq!(items[third.index].0, "c");
        let round = next(&items, NOW, facts, none, Some(third.index)).expect("an ask");
        assert_eq!(items[round.index].0, "a");
    }

    #[test]
    fn an_answered_ask_leaves_the_walk_and_the_last_one_says_so() {
        let items: Vec<Item> = vec![
            ("a", Some(20), Some(5), false),
            ("b", Some(90), Some(5), false),
        ];
        let answered = |item: &Item| item.0 == "a";
        let only = next(&items, NOW, facts, answered, Some(0)).expect("an ask");
        assert_eq!((items[only.index].0, only.more), ("b", 0));
        assert_eq!(more_words(only.more), "The last ask that needs you.");
        assert_eq!(more_words(1), "1 more needs you.");
        assert_eq!(more_words(3), "3 more need you.");
        // On the last one's own card nothing else needs the person.
        assert_eq!(next(&items, NOW, facts, answered, Some(1)), None);
    }

    #[test]
    fn an_ask_that_expired_or_cannot_be_answered_is_not_walked() {
        let items: Vec<Item> = vec![
            ("a", Some(20), Some(5), false),
            ("b", Some(40), Some(5), true),
            ("c", None, Some(5), false),
        ];
        // Twenty seconds on, a's deadline has come: c is next, alone.
        let later = NOW + Duration::seconds(20);
        let step = next(&items, later, facts, |_| false, None).expect("an ask");
        assert_eq!((items[step.index].0, step.more), ("c", 0));
        let nothing: Vec<Item> = vec![("b", Some(40), Some(5), true)];
        assert_eq!(next(&nothing, NOW, facts, |_| false, None), None);
    }

    #[test]
    fn why_the_first_is_first() {
        let near = facts(&("near", Some(40), Some(5), false));
        assert_eq!(why_first(&near, NOW), "expires in 0:40");
        let hour = facts(&("hour", Some(3_900), Some(5), false));
        assert_eq!(why_first(&hour, NOW), "expires in 1:05:00");
        let old = facts(&("old", None, Some(190), false));
        assert_eq!(why_first(&old, NOW), "the oldest, asked 3m ago");
        let young = facts(&("young", None, Some(20), false));
        assert_eq!(why_first(&young, NOW), "the oldest");
    }
}
