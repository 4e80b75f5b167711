//! The screens, one room each: a room (`screens/<name>/`) holds the screen's state and its key
//! handling in `mod.rs` (the app layer: pure, no drawing) and its drawing in `draw.rs` (the ui
//! layer: reads only). docs/ARCHITECTURE.md lists the rooms; `tests/integration/layering.rs` keeps the two
//! layers apart inside each room.
//!
//! The screens are stacked: Home at the bottom, the screen shown on top. Esc goes back one.

pub mod card;
pub(crate) mod dsh_form;
pub(crate) mod exchange;
pub(crate) mod history;
pub(crate) mod home;
pub(crate) mod inspector;
pub(crate) mod layout;
pub(crate) mod new;
pub mod overlay;
pub mod pane;

pub(crate) use exchange::ExchangeScreen;
pub(crate) use history::{ConversationScreen, HistoryScreen};
pub(crate) use home::HomeScreen;
pub(crate) use inspector::InspectorScreen;
pub(crate) use layout::LayoutScreen;
pub(crate) use new::NewScreen;
pub(crate) use pane::{PaneFocus, PaneScreen};

use crate::app::inbox::AskKey;
use crate::app::list::Filter;

#[derive(Debug, Clone)]
pub enum Screen {
    Home(HomeScreen),
    Layout(LayoutScreen),
    Pane(PaneScreen),
    /// The card's state lives in `App::cards`, so what was typed survives leaving it.
    Card(AskKey),
    New(NewScreen),
    History(HistoryScreen),
    Conversation(ConversationScreen),
    Inspector(InspectorScreen),
    Exchange(ExchangeScreen),
    /// The New page's form for a DSH bridge.
    DshForm(Box<crate::screens::dsh_form::DshFormScreen>),
}

impl Screen {
    pub(crate) fn filter_mut(&mut self) -> Option<&mut Filter> {
        match self {
            Screen::Home(s) => Some(&mut s.filter),
            Screen::Layout(s) => Some(&mut s.filter),
            Screen::New(s) => Some(&mut s.filter),
            Screen::History(s) => Some(&mut s.filter),
            Screen::Inspector(s) => Some(&mut s.filter),
            _ => None,
        }
    }

    pub(crate) fn filter(&self) -> Option<&Filter> {
        match self {
            Screen::Home(s) => Some(&s.filter),
            Screen::Layout(s) => Some(&s.filter),
            Screen::New(s) => Some(&s.filter),
            Screen::History(s) => Some(&s.filter),
            Screen::Inspector(s) => Some(&s.filter),
            _ => None,
        }
    }
}

/// The stack of screens. It cannot be empty: the bottom screen is a field of its own, so
/// there is always a top to show.
#[derive(Debug, Clone)]
pub struct Navigation {
    bottom: Screen,
    above: Vec<Screen>,
}

impl Default for Navigation {
    fn default() -> Self {
        Self {
            bottom: Screen::Home(HomeScreen::default()),
            above: Vec::new(),
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
    }

    /// Goes back one screen; the bottom one stays.
    pub(crate) fn pop(&mut self) -> Option<Screen> {
        self.above.pop()
    }

    pub(crate) fn depth(&self) -> usize {
        1 + self.above.len()
    }

    /// The screen at `index` (0 is the bottom one), if the stack is that deep.
    pub(crate) fn get(&self, index: usize) -> Option<&Screen> {
        match index {
            0 => Some(&self.bottom),
            n => self.above.get(n - 1),
        }
    }

    pub(crate) fn get_mut(&mut self, index: usize) -> Option<&mut Screen> {
        match index {
            0 => Some(&mut self.bottom),
            n => self.above.get_mut(n - 1),
        }
    }

    /// Every screen, mutably, the bottom one first.
    pub(crate) fn screens_mut(&mut self) -> impl Iterator<Item = &mut Screen> {
        std::iter::once(&mut self.bottom).chain(self.above.iter_mut())
    }

    /// Drops every screen above the bottom one that `keep` refuses.
    pub(crate) fn retain(&mut self, keep: impl FnMut(&Screen) -> bool) {
        self.above.retain(keep);
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
        assert!(matches!(nav.get(1), Some(Screen::New(_))));
        assert!(nav.pop().is_some() && nav.get(1).is_none());
    }
}
