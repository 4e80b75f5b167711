//! The phone's side of the rings (`model::rings`, docs/CONFIG.md "Rings"): where the person
//! is (the terminal's focus reports, else their last key), the mute, the rules as switched
//! while the phone runs, and what each happening asks of the runner: a line on the status
//! line, the bell or a desktop notification, or a run of the person's command. The decision is
//! the model's; this only gathers what it needs and turns it into commands.

use std::time::Duration;

use time::OffsetDateTime;

use super::Command;
use super::notify::{self, Announcement, NotifyStyle};
use crate::engine::push::Push;
use crate::model::rings::{self, Attention, Event, Happening, Mute, Rings, Rules, Signal};

/// The snooze one key gives.
pub(crate) const MUTE_MINUTES: i64 = 30;

/// What the phone keeps of the rings.
#[derive(Debug, Clone)]
pub struct Ringer {
    pub(crate) rings: Rings,
    pub(crate) rules: Rules,
    /// How the full signal sounds in the terminal.
    pub(crate) style: NotifyStyle,
    pub(crate) mute: Option<Mute>,
    /// Whether the next mute holds expiring asks back too.
    pub(crate) even_expiring: bool,
    /// The terminal's last focus report; none heard yet: the keys tell.
    pub(crate) focus: Option<bool>,
    /// The last key (or the phone's start).
    pub(crate) last_key: OffsetDateTime,
    /// A failure of the person's command was said already: it is not said again.
    pub(crate) failure_said: bool,
}

/// What the shell tells the ringer of the screen: whether it shows a subject.
pub(crate) type Shows<'a> = &'a dyn Fn(&rings::Subject) -> bool;

impl Ringer {
    pub(crate) fn new(rules: Rules, style: NotifyStyle, now: OffsetDateTime) -> Self {
        Self {
            rings: Rings::default(),
            rules,
            style,
            mute: None,
            even_expiring: false,
            focus: None,
            last_key: now,
            failure_said: false,
        }
    }

    /// The mute in force at `now`, if any.
    pub(crate) fn mute_at(&self, now: OffsetDateTime) -> Option<&Mute> {
        self.mute.as_ref().filter(|mute| now < mute.until)
    }

    fn watched(&self, now: OffsetDateTime) -> bool {
        rings::watched(self.focus, self.last_key, now)
    }

    /// What the happenings ask of the runner, and the line for the status line (the quiet
    /// signal), if any. Several rings at once sound once.
    pub(crate) fn ring(
        &mut self,
        happenings: Vec<Happening>,
        now: OffsetDateTime,
        shows: Shows<'_>,
    ) -> (Vec<Command>, Option<String>) {
        let watched = self.watched(now);
        let mut commands = Vec::new();
        let mut full = Vec::new();
        let mut quiet = Vec::new();
        for happening in happenings {
            if happening.event == Event::Closed {
                commands.extend(self.push(&happening));
                continue;
            }
            let loudness = self.rules.loudness(happening.event);
            let on_screen = shows(&happening.subject);
            let attention = rings::attention(watched, on_screen);
            let muted = self
                .mute_at(now)
                .is_some_and(|mute| mute.holds(happening.event, now));
            let signal = rings::decide(loudness, attention, muted);
            tracing::debug!(
                event = happening.event.name(),
                ?attention,
                ?signal,
                "a ring"
            );
            // The command waits for what rings: an ask still open when the person walks away
            // from it, a turn's end they have not seen.
            if loudness == rings::Loudness::Ring
                && !self.rules.command.is_empty()
                && (matches!(happening.subject, rings::Subject::Ask { .. })
                    || attention != Attention::OnIt)
            {
                self.rings.hold(&happening, now);
            }
            match signal {
                Signal::Nothing => {}
                Signal::Quiet => quiet.push((happening, on_screen)),
                Signal::Full => full.push((happening, on_screen)),
            }
        }
        if let Some((first, _)) = full.first() {
            let whats: Vec<String> = full.iter().map(|(h, _)| h.what.clone()).collect();
            match notify::announce(self.style, &first.who, &whats) {
                Some(Announcement::Bell) => commands.push(Command::Bell),
                Some(Announcement::Desktop(notice)) => commands.push(Command::Notify(notice)),
                None => {}
            }
        }
        // The status line speaks of what the screen does not show: a card counting down its
        // own last seconds says so itself (the bell still sounds for a person away).
        let line = full
            .iter()
            .chain(&quiet)
            .find(|(_, on_screen)| !on_screen)
            .map(|(happening, _)| happening.words());
        (commands, line)
    }

    /// The clock: asks about to expire, and the person's command for what waited long enough.
    pub(crate) fn tick(
        &mut self,
        now: OffsetDateTime,
        shows: Shows<'_>,
    ) -> (Vec<Command>, Option<String>) {
        let expiring = self.rings.tick(now);
        let (mut commands, line) = self.ring(expiring, now, shows);
        let watched = self.watched(now);
        let mute = self.mute_at(now).copied();
        let due = self.rings.due(
            self.rules.after,
            now,
            |subject| rings::attention(watched, shows(subject)),
            mute.as_ref(),
        );
        for happening in due {
            commands.extend(self.push(&happening));
        }
        (commands, line)
    }

    /// A run of the person's command for `happening`, when there is a command.
    fn push(&self, happening: &Happening) -> Option<Command> {
        if self.rules.command.is_empty() {
            return None;
        }
        Some(Command::Push(Push {
            argv: self.rules.command.clone(),
            stdin: format!("{}\n", happening.json()),
            limit: Duration::from_secs(self.rules.limit),
        }))
    }

    /// A run of the command went wrong: the words to say, the first time only.
    pub(crate) fn failed(&mut self, sentence: String) -> Option<String> {
        if self.failure_said {
            return None;
        }
        self.failure_said = true;
        Some(format!("{sentence} Said once; the log has each run."))
    }

    /// Mutes until `until`.
    pub(crate) fn mute_until(&mut self, until: OffsetDateTime) {
        self.mute = Some(Mute {
            until,
            even_expiring: self.even_expiring,
        });
    }
}

/// The moment a typed time of day ("14:30", "9:05") next comes, in the zone of `now`; none
/// when the text is not a time.
pub(crate) fn next_time_of_day(text: &str, now: OffsetDateTime) -> Option<OffsetDateTime> {
    let (hours, minutes) = text.trim().split_once(':')?;
    let hours: u8 = hours.trim().parse().ok()?;
    let minutes: u8 = minutes.trim().parse().ok()?;
    let time = time::Time::from_hms(hours, minutes, 0).ok()?;
    let today = now.replace_time(time);
    Some(if today > now {
        today
    } else {
        today + time::Duration::days(1)
    })
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn a_typed_time_is_the_next_one_to_come() {
        let now = datetime!(2026-12-07 14:00:00 UTC);
        assert_eq!(
            next_time_of_day("14:30", now),
            Some(datetime!(2026-12-07 14:30:00 UTC))
        );
        assert_eq!(
            next_time_of_day(" 9:05 ", now),
            Some(datetime!(2026-12-08 09:05:00 UTC))
        );
        assert_eq!(next_time_of_day("25:00", now), None);
        assert_eq!(next_time_of_day("soon", now), None);
    }

    #[test]
    fn a_failing_command_is_said_once() {
        let mut ringer = Ringer::new(
            Rules::default(),
            NotifyStyle::Bell,
            datetime!(2026-12-07 14:00:00 UTC),
        );
        assert!(
            ringer
                .failed("The notify command x failed.".into())
                .is_some()
        );
        assert_eq!(ringer.failed("The notify command x failed.".into()), None);
    }
}
