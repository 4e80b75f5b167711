//! The screens, one room each: a room (`screens/<name>/`) holds the screen's state and its key
//! handling in `mod.rs` (the app layer: pure, no drawing) and its drawing in `draw.rs` (the ui
//! layer: reads only). docs/ARCHITECTURE.md lists the rooms; `tests/integration/layering.rs` keeps the two
//! layers apart inside each room.
//!
//! The screens are stacked: Home at the bottom, the screen shown on top. Esc goes back one.

pub mod card;
pub(crate) mod dsh_form;
pub(crate) mod exchange;
#[cfg(test)]
pub(crate) mod harness;
pub(crate) mod history;
pub(crate) mod home;
pub(crate) mod inspector;
#[cfg(test)]
mod keymap_tests;
pub(crate) mod layout;
pub(crate) mod new;
pub mod overlay;
pub mod pane;
pub(crate) mod room;
pub(crate) mod search;

pub use card::CardScreen;
pub(crate) use dsh_form::DshFormScreen;
pub(crate) use exchange::ExchangeScreen;
pub(crate) use history::{ConversationScreen, HistoryScreen};
pub(crate) use home::HomeScreen;
pub(crate) use inspector::InspectorScreen;
pub(crate) use layout::LayoutScreen;
pub(crate) use new::NewScreen;
pub(crate) use pane::{PaneFocus, PaneScreen};

use crate::app::keymap::{Context, Keymap};
use crate::app::list::Filter;
use crate::app::notify::NotifyStyle;
use crate::app::settings::Settings;
use room::Room;

/// The one list of the screens: each a variant of [`Screen`] and the room's state type, which
/// implements [`Room`] here and `ui::Drawn` in its `draw.rs`. `$then` is a macro that gets the
/// list: [`Screen`] and its dispatch below, the ui's draw dispatch in `ui/mod.rs`. A new screen
/// is a new folder and one line here.
macro_rules! for_each_room {
    ($then:ident) => {
        $then! {
            Home(HomeScreen),
            Layout(LayoutScreen),
            Pane(PaneScreen),
            Card(CardScreen),
            New(NewScreen),
            History(HistoryScreen),
            Conversation(ConversationScreen),
            Inspector(InspectorScreen),
            Exchange(ExchangeScreen),
            DshForm(Box<DshFormScreen>),
        }
    };
}
pub(crate) use for_each_room;

macro_rules! screens {
    ($($variant:ident($state:ty),)*) => {
        /// A screen of the stack: the state of one room.
        #[derive(Debug, Clone)]
        pub enum Screen {
            $($variant($state),)*
        }

        impl Screen {
            /// The room of this screen, to read.
            pub(crate) fn room(&self) -> &dyn Room {
                match self {
                    $(Screen::$variant(state) => state,)*
                }
            }

            /// The room of this screen, to hand a key, a paste or the mouse.
            pub(crate) fn room_mut(&mut self) -> &mut dyn Room {
                match self {
                    $(Screen::$variant(state) => state,)*
                }
            }
        }

        /// Every key part of every room and of what floats over them, for the keymap.
        pub(crate) fn key_parts() -> Vec<Context> {
            let mut parts = Vec::new();
            $(parts.extend_from_slice(<$state as Room>::key_parts());)*
            parts.extend_from_slice(crate::app::overlay::keys::PARTS);
            parts
        }
    };
}
for_each_room!(screens);

impl Screen {
    pub(crate) fn filter_mut(&mut self) -> Option<&mut Filter> {
        self.room_mut().filter_mut()
    }

    pub(crate) fn filter(&self) -> Option<&Filter> {
        self.room().filter()
    }

    /// Whether opening `other` over this screen would show this same screen again.
    pub(crate) fn same_place(&self, other: &Screen) -> bool {
        match (self, other) {
            (Screen::Pane(a), Screen::Pane(b)) => a.agent == b.agent && a.pane == b.pane,
            (Screen::Card(a), Screen::Card(b)) => a.key == b.key,
            _ => false,
        }
    }
}

/// The phone's settings when the config file says nothing: every room's default keys.
impl Default for Settings {
    fn default() -> Self {
        Self {
            keymap: Keymap::defaults(&key_parts()),
            notify: NotifyStyle::default(),
            rings: crate::model::rings::Rules::default(),
            mouse: true,
        }
    }
}

/// The stack of screens. It cannot be empty: the bottom screen is a field of its own, so
/// there is always a top to show.
#[derive(Debug, Clone)]
pub struct Navigation {
    bottom: Screen,
    above: Vec<Screen>,
    /// How many times the screen on top changed: a message shown before a move speaks of the
    /// screen that was left.
    moves: u64,
}

impl Default for Navigation {
    fn default() -> Self {
        Self {
            bottom: Screen::Home(HomeScreen::default()),
            above: Vec::new(),
            moves: 0,
        }
    }
}

impl Navigation {
    pub fn top(&self) -> &Screen {
        self.above.last().unwrap_or(&self.bottom)
    }

    pub(crate) fn top_mut(&mut self) -> &mut Screen {
        self.above.last_mut().unwrap_or(&mut self.bottom)
    }

    pub(crate) fn push(&mut self, screen: Screen) {
        self.above.push(screen);
        self.moves += 1;
    }

    /// How many times the screen on top changed so far.
    pub(crate) fn moves(&self) -> u64 {
        self.moves
    }

    /// How many screens are stacked, the bottom one included.
    pub fn depth(&self) -> usize {
        1 + self.above.len()
    }

    /// Goes back one screen; the bottom one stays.
    pub(crate) fn pop(&mut self) -> Option<Screen> {
        let popped = self.above.pop();
        if popped.is_some() {
            self.moves += 1;
        }
        popped
    }

    /// The pane of `agent` the person reads: the nearest pane of it from the top of the stack,
    /// on screen or the one they go back to (SPEC L2 lets its chat go last).
    pub(crate) fn pane_read(&self, agent: &str) -> Option<&str> {
        self.above
            .iter()
            .rev()
            .chain(std::iter::once(&self.bottom))
            .find_map(|screen| match screen {
                Screen::Pane(pane) if pane.agent == agent => Some(pane.pane.as_str()),
                _ => None,
            })
    }

    /// Every screen, mutably, the bottom one first.
    pub(crate) fn screens_mut(&mut self) -> impl Iterator<Item = &mut Screen> {
        std::iter::once(&mut self.bottom).chain(self.above.iter_mut())
    }

    /// Drops every screen above the bottom one that `keep` refuses.
    pub(crate) fn retain(&mut self, keep: impl FnMut(&Screen) -> bool) {
        let before = self.above.len();
        self.above.retain(keep);
        if self.above.len() != before {
            self.moves += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bottom_screen_stays_whatever_is_popped() {
        let mut nav = Navigation::default();
        assert!(nav.pop().is_none());
        nav.push(Screen::New(NewScreen::default()));
        nav.push(Screen::New(NewScreen::default()));
        nav.retain(|_| false);
        assert_eq!(nav.depth(), 1);
        assert!(matches!(nav.top(), Screen::Home(_)));
        nav.push(Screen::New(NewScreen::default()));
        assert!(matches!(nav.top_mut(), Screen::New(_)));
        assert_eq!(nav.depth(), 2);
        assert!(nav.pop().is_some() && nav.depth() == 1);
    }
}
