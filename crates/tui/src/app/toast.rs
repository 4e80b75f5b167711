//! The footer's message, and what it is a claim about. A message says what the phone saw at one
//! moment; it goes when that moment is over: when its time is up (SPEC Q6), when its screen is
//! left or something floats over it, when a newer message takes its place, and when the thing
//! it speaks of changes (a pane's turn, a bridge task, the words in a box). The shell settles it
//! after every message the app takes (`Phone::settle_toast`, which reads each subject again), so
//! no room has to remember to.

use time::OffsetDateTime;

use crate::wire::TurnState;

/// How long a message stays (SPEC Q6): long enough to read two rows of it.
pub(crate) const TOAST_SECONDS: i64 = 6;
/// How long a message of trouble stays, unless another replaces it: it asks for something.
pub(crate) const TROUBLE_TOAST_SECONDS: i64 = 12;

/// A short message in the footer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Toast {
    pub(crate) text: String,
    pub(crate) trouble: bool,
    pub(crate) until: OffsetDateTime,
    /// What the words are about, as it was when they were shown.
    pub(crate) about: Subject,
}

/// What a message speaks of, with what the phone saw of it then.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Subject {
    /// Only the screen it was shown on.
    Screen,
    /// A pane's turn: "No turn is running in this pane." is over once a turn starts.
    PaneTurn {
        agent: String,
        pane: String,
        /// The pane's turn then: its id and state, or none.
        seen: Option<(String, TurnState)>,
    },
    /// A bridge task's turn, by the task's status.
    TaskTurn {
        agent: String,
        task: String,
        seen: Option<String>,
    },
    /// The words in a pane's box: "… in the box, not sent." is over once they are sent or
    /// changed.
    Draft {
        agent: String,
        pane: String,
        seen: String,
    },
}

impl Toast {
    pub(crate) fn new(text: String, trouble: bool, now: OffsetDateTime, about: Subject) -> Self {
        let seconds = if trouble {
            TROUBLE_TOAST_SECONDS
        } else {
            TOAST_SECONDS
        };
        Self {
            text,
            trouble,
            until: now + time::Duration::seconds(seconds),
            about,
        }
    }

    /// Whether the words are over at `now`, given what their subject is now (`now_seen`, as
    /// the phone reads it; None for a message about the screen only).
    pub(crate) fn is_over(&self, now: OffsetDateTime, now_seen: Option<&Subject>) -> bool {
        self.until <= now || now_seen.is_some_and(|seen| *seen != self.about)
    }
}

/// The footer's message line: the message standing, and how many were shown so far, to tell a
/// new one from one left standing.
#[derive(Debug, Clone, Default)]
pub(crate) struct Footer {
    toast: Option<Toast>,
    shown: u64,
}

impl Footer {
    /// The message standing, if any.
    pub(crate) fn toast(&self) -> Option<&Toast> {
        self.toast.as_ref()
    }

    /// How many messages were shown since the phone started.
    pub(crate) fn shown(&self) -> u64 {
        self.shown
    }

    /// Shows `toast` in the place of the one standing.
    pub(crate) fn show(&mut self, toast: Toast) {
        self.shown += 1;
        self.toast = Some(toast);
    }

    /// Takes the message standing down.
    pub(crate) fn clear(&mut self) {
        self.toast = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn box_subject(seen: &str) -> Subject {
        Subject::Draft {
            agent: "demo".into(),
            pane: "p-1".into(),
            seen: seen.into(),
        }
    }

    #[test]
    fn a_message_about_a_box_is_over_once_its_words_change() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let toast = Toast::new("In the box.".into(), false, now, box_subject("hello"));
        assert!(!toast.is_over(now, Some(&box_subject("hello"))));
        assert!(toast.is_over(now, Some(&box_subject(""))), "sent");
    }

    #[test]
    fn a_message_about_the_screen_stays_its_time_and_no_longer() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let toast = Toast::new("Renamed.".into(), false, now, Subject::Screen);
        assert!(!toast.is_over(now, None));
        let later = now + time::Duration::seconds(TOAST_SECONDS);
        assert!(toast.is_over(later, None));
    }
}
