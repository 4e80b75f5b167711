//! The rings (docs/KEYS.md, docs/CONFIG.md "Rings"): the mute (30 minutes, until a typed time,
//! whether it holds back expiring asks too) and how each event rings, switched while the phone
//! runs. It floats over any screen, so its keys are the phone's.

use crate::app::Command;
use crate::app::keymap::Action;
use crate::app::notify::NotifyStyle;
use crate::app::overlay::{Deferred, Overlay};
use crate::app::phone::Phone;
use crate::app::ringer::{MUTE_MINUTES, next_time_of_day};
use crate::model::editor::Editor;
use crate::model::inbox::clock_time;
use crate::model::rings::{Event, SET_EVENTS};

/// One row of the rings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RingRow {
    MuteHalfHour,
    MuteUntil,
    Unmute,
    EvenExpiring,
    Style,
    Event(Event),
}

/// The rows, top first.
pub(crate) const ROWS: [RingRow; 9] = [
    RingRow::MuteHalfHour,
    RingRow::MuteUntil,
    RingRow::Unmute,
    RingRow::EvenExpiring,
    RingRow::Style,
    RingRow::Event(SET_EVENTS[0].0),
    RingRow::Event(SET_EVENTS[1].0),
    RingRow::Event(SET_EVENTS[2].0),
    RingRow::Event(SET_EVENTS[3].0),
];

/// What an event's row is called.
pub(crate) fn event_label(event: Event) -> &'static str {
    match event {
        Event::NewAsk => "A new ask",
        Event::Expiring => "An ask about to expire",
        Event::TurnEnded => "A turn that ended",
        _ => "An agent lost or back",
    }
}

impl Phone {
    /// What the row says now: its words and, for a setting, its value.
    pub(crate) fn ring_row(&self, row: RingRow) -> (String, String) {
        let ringer = self.view.ringer();
        match row {
            RingRow::MuteHalfHour => (format!("Mute for {MUTE_MINUTES} minutes"), String::new()),
            RingRow::MuteUntil => ("Mute until a time…".into(), String::new()),
            RingRow::Unmute => (
                "Unmute".into(),
                match ringer.mute_at(self.now()) {
                    // As the title bar says it; the prompt and the status line name the zone.
                    Some(mute) => {
                        format!("until {}", short_time(mute.until).trim_end_matches(" UTC"))
                    }
                    None => "not muted".into(),
                },
            ),
            RingRow::EvenExpiring => (
                "A mute holds expiring asks too".into(),
                if ringer.even_expiring { "yes" } else { "no" }.into(),
            ),
            RingRow::Style => ("Full signal".into(), ringer.style.name().into()),
            RingRow::Event(event) => (
                event_label(event).into(),
                ringer.rules.loudness(event).name().into(),
            ),
        }
    }

    /// A key over the rings.
    pub(crate) fn rings_key(&mut self, action: Option<Action>) -> Vec<Command> {
        let Some(Overlay::Rings { selected }) = self.overlay else {
            return Vec::new();
        };
        let last = ROWS.len() - 1;
        match action {
            Some(Action::Up) => {
                self.overlay = Some(Overlay::Rings {
                    selected: selected.checked_sub(1).unwrap_or(last),
                });
            }
            Some(Action::Down) => {
                self.overlay = Some(Overlay::Rings {
                    selected: if selected >= last { 0 } else { selected + 1 },
                });
            }
            Some(Action::Cancel) => self.overlay = None,
            Some(Action::Confirm) => self.ring_row_chosen(ROWS[selected.min(last)]),
            _ => {}
        }
        Vec::new()
    }

    fn ring_row_chosen(&mut self, row: RingRow) {
        match row {
            RingRow::MuteHalfHour => {
                self.overlay = None;
                // To the next whole minute, so the title bar says a time a person reads.
                let until = self.now() + time::Duration::minutes(MUTE_MINUTES);
                let past =
                    i64::from(until.second()) * 1_000_000_000 + i64::from(until.nanosecond());
                let until = match past {
                    0 => until,
                    past => until + time::Duration::nanoseconds(60_000_000_000 - past),
                };
                self.view.ringer_mut().mute_until(until);
                self.say_muted();
            }
            RingRow::MuteUntil => {
                self.overlay = Some(Overlay::Prompt {
                    title: "Mute until (a time of day, UTC, such as 14:30)".into(),
                    editor: Editor::default(),
                    then: Deferred::MuteUntil,
                });
            }
            RingRow::Unmute => {
                self.overlay = None;
                let was = self.view.ringer().mute_at(self.now()).is_some();
                self.view.ringer_mut().mute = None;
                self.show_toast(
                    if was {
                        "Unmuted: the phone rings again."
                    } else {
                        "The phone was not muted."
                    },
                    false,
                );
            }
            RingRow::EvenExpiring => {
                let ringer = self.view.ringer_mut();
                ringer.even_expiring = !ringer.even_expiring;
                if let Some(mute) = ringer.mute.as_mut() {
                    mute.even_expiring = ringer.even_expiring;
                }
            }
            RingRow::Style => {
                let at = NotifyStyle::ALL
                    .iter()
                    .position(|style| *style == self.view.ringer().style)
                    .unwrap_or(0);
                self.view.ringer_mut().style = NotifyStyle::ALL[(at + 1) % NotifyStyle::ALL.len()];
            }
            RingRow::Event(event) => {
                let next = self.view.ringer().rules.loudness(event).next();
                self.view.ringer_mut().rules.set(event, next);
            }
        }
    }

    /// The prompt's typed time: muted until it next comes, or said why not.
    pub(crate) fn mute_until_typed(&mut self, text: &str) {
        match next_time_of_day(text, self.now()) {
            Some(until) => {
                self.view.ringer_mut().mute_until(until);
                self.say_muted();
            }
            None => self.show_toast(
                format!(
                    "“{}” is not a time of day: type one such as 14:30 (UTC).",
                    crate::out::line(text)
                ),
                true,
            ),
        }
    }

    fn say_muted(&mut self) {
        let Some(mute) = self.view.ringer().mute_at(self.now()).copied() else {
            return;
        };
        let expiring = if mute.even_expiring {
            "expiring asks too"
        } else {
            "asks about to expire still ring"
        };
        self.show_toast(
            format!(
                "Muted until {}: no sound and no push; {expiring}. Home still counts every ask.",
                short_time(mute.until)
            ),
            false,
        );
    }
}

/// "14:30 UTC", or with the seconds when the mute does not end on a minute.
pub(crate) fn short_time(at: time::OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    if at.second() == 0 {
        format!("{:02}:{:02} UTC", at.hour(), at.minute())
    } else {
        clock_time(at)
    }
}
