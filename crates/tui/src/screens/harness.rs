//! A room tested alone, as slumber's `TestHarness` does: a [`Phone`] at a size and a clock, the
//! room's own state, and what the room asked of the stack of screens. No `App`, no other
//! screen: what a room may touch is all a test of it needs.

use crate::app::phone::{Phone, Step};
use crate::app::settings::Settings;
use crate::app::{AppSetup, Command};
use crate::look::theme::Theme;
use crate::screens::room::Room;

use crate::app::keymap::Action;

pub(crate) struct Harness {
    pub(crate) phone: Phone,
}

impl Harness {
    /// A phone at 80x24 that knows one agent, `demo`, and has heard nothing from it yet.
    pub(crate) fn new() -> Self {
        Self {
            phone: Phone::new(AppSetup {
                agents: vec![("demo".into(), false)],
                settings: Settings::default(),
                bridges: Vec::new(),
                theme: Theme::builtin("dark").expect("built in"),
                now: time::OffsetDateTime::UNIX_EPOCH,
                size: (80, 24),
            }),
        }
    }

    /// Hands `room` an action, as the app does with a key bound to it.
    pub(crate) fn act(&mut self, room: &mut impl Room, action: Action) -> Vec<Command> {
        room.act(&mut self.phone, action)
    }

    /// What the room asked of the stack of screens since the last call, oldest first.
    pub(crate) fn steps(&mut self) -> Vec<Step> {
        std::mem::take(&mut self.phone.steps)
    }

    /// The footer's message, if the room left one.
    pub(crate) fn toast(&self) -> Option<&str> {
        self.phone.footer.toast().map(|toast| toast.text.as_str())
    }
}
