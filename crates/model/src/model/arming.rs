//! Reading time before a card answers: a key pressed just after a card opened, or just after
//! its ask changed under the person's eyes, must not answer what the person has not read.
//! SPEC A3's `409 stale` cannot catch that case, because the phone already sends the new
//! revision. docs/ASKS.md says why the time is what it is. The same time, by the same rule
//! ([`Arming::refusal`]), holds back every key that acts on an agent: an answer, the yes of a
//! question that lets the agent act without asking, and a key of the screen a card closed onto
//! (docs/KEYS.md, "Keys that act on an agent").

use time::{Duration, OffsetDateTime};

/// How long after a card opens, its ask changes, or the allow-always question appears, before
/// a key answers. Long enough to cover a key already on its way when the screen changed (and a
/// double tap of Enter), short enough that a person who reads is almost never refused.
pub const ARMING: Duration = Duration::milliseconds(1_000);

/// The reading time in words, for help and hints: "1 s", "800 ms".
pub fn words() -> String {
    let ms = ARMING.whole_milliseconds();
    if ms % 1_000 == 0 {
        format!("{} s", ms / 1_000)
    } else {
        format!("{ms} ms")
    }
}

/// What just happened on screen, so the refusal can say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The card was opened (from the inbox, a pane, or the soonest-expiring jump).
    Opened,
    /// The ask changed in place: its revision or its words (SPEC A3).
    Changed,
    /// The ask had left the open list and is open again (SPEC A8, A9).
    Reopened,
    /// A question was just put over the screen: allow always, or a mode that acts without
    /// asking.
    Asked,
    /// A card just closed by itself (answered, or gone) and the screen under it came back:
    /// a key on its way was meant for the card.
    CardClosed,
    /// The person just moved to this pane with a key that walks the panes (docs/KEYS.md,
    /// "Moving without going back"): a key on its way was meant for the pane before.
    Moved,
}

impl Why {
    /// What the program saw, and what the person can do next.
    pub fn sentence(self) -> &'static str {
        match self {
            Self::Opened => "This card just opened. Read it, then answer.",
            Self::Changed => "This ask just changed. Read it, then answer.",
            Self::Reopened => "This ask is open again. Read it, then answer.",
            Self::Asked => "This question just appeared. Read it, then answer it.",
            Self::CardClosed => {
                "The card just closed; that key did nothing. Press it again to act here."
            }
            Self::Moved => "You just came here; that key did nothing. Press it again to act here.",
        }
    }
}

/// Since when, and why, keys do not answer yet (`pub` as what floats that holds one is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arming {
    pub why: Why,
    pub since: OffsetDateTime,
}

impl Arming {
    /// Starts the reading time now.
    pub fn start(why: Why, now: OffsetDateTime) -> Self {
        Self { why, since: now }
    }

    /// The first moment a key answers.
    pub fn until(&self) -> OffsetDateTime {
        self.since + ARMING
    }

    /// True once the reading time is over.
    pub fn is_armed(&self, now: OffsetDateTime) -> bool {
        now >= self.until()
    }

    /// Why a key that acts must wait, while the reading time lasts; None once it is over.
    /// The one test every key that acts on an agent passes (docs/KEYS.md).
    pub fn refusal(&self, now: OffsetDateTime) -> Option<&'static str> {
        (!self.is_armed(now)).then(|| self.why.sentence())
    }

    /// The wall clock went back past the start (a clock step): the reading time starts again
    /// from `now`, so it lasts at most [`ARMING`] more rather than until the clock catches up.
    pub fn clock_stepped_back(&mut self, now: OffsetDateTime) {
        if self.since > now {
            self.since = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    const T0: OffsetDateTime = datetime!(2026-11-29 14:30:00 UTC);

    #[test]
    fn disarmed_for_the_whole_arming_time_then_armed() {
        let arming = Arming::start(Why::Changed, T0);
        assert!(!arming.is_armed(T0));
        assert!(!arming.is_armed(T0 + Duration::milliseconds(1)));
        assert!(!arming.is_armed(T0 + ARMING - Duration::milliseconds(1)));
        assert!(arming.is_armed(T0 + ARMING));
        assert!(arming.is_armed(T0 + Duration::minutes(5)));
    }

    #[test]
    fn the_refusal_says_why_until_the_time_is_over() {
        let arming = Arming::start(Why::CardClosed, T0);
        assert_eq!(
            arming.refusal(T0 + ARMING - Duration::milliseconds(1)),
            Some(Why::CardClosed.sentence())
        );
        assert_eq!(arming.refusal(T0 + ARMING), None);
    }

    #[test]
    fn a_key_stamped_before_the_change_does_not_count_as_read() {
        // A key handled after the change but stamped a moment before it (the runner takes
        // queued engine changes first) is still inside the reading time.
        let arming = Arming::start(Why::Changed, T0);
        assert!(!arming.is_armed(T0 - Duration::milliseconds(5)));
    }

    #[test]
    fn a_clock_step_back_restarts_the_time_instead_of_freezing_the_card() {
        let mut arming = Arming::start(Why::Opened, T0);
        let back = T0 - Duration::hours(1);
        assert!(!arming.is_armed(back));
        arming.clock_stepped_back(back);
        assert!(!arming.is_armed(back + ARMING - Duration::milliseconds(1)));
        assert!(arming.is_armed(back + ARMING));
        // A clock that did not go back changes nothing.
        let mut steady = Arming::start(Why::Opened, T0);
        steady.clock_stepped_back(T0 + Duration::seconds(3));
        assert_eq!(steady.since, T0);
    }

    #[test]
    fn each_reason_says_what_happened_and_what_to_do() {
        for why in [Why::Opened, Why::Changed, Why::Reopened, Why::Asked] {
            let sentence = why.sentence();
            assert!(sentence.contains("Read it"), "{sentence}");
        }
        assert!(Why::CardClosed.sentence().contains("Press it again"));
        assert_eq!(
            Why::Changed.sentence(),
            "This ask just changed. Read it, then answer."
        );
    }
}
