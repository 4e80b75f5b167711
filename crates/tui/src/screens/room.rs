//! What a room is to the app: a screen's state that says where its keys go, takes its keys,
//! typing, pastes and the mouse, and keeps its lists on real rows, touching only itself and
//! the [`Phone`]. The app routes to the room on top through one match (`Screen::room_mut`,
//! made by `for_each_room!`); a room asks for other screens through `Phone::open` and
//! `Phone::back`. Drawing is the ui layer's half of the room (`screens/<name>/draw.rs`).

use crossterm::event::KeyEvent;

use crate::app::Command;
use crate::app::keymap::{Action, Context};
use crate::app::list::Filter;
use crate::app::phone::Phone;
use crate::model::news::Heard;

/// What a screen does with news the model heard ([`Room::heard`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Heeded {
    /// Nothing: the screen draws what changed.
    Nothing,
    /// The screen goes: what it showed is no more (a card answered, a pane closed).
    Leave,
    /// The screen shows it in place (a pane's status line), so the footer need not.
    ShownHere,
}

pub(crate) trait Room {
    /// Every key part of the room, for the keymap: the parts [`Room::keys`] can give.
    fn key_parts() -> &'static [Context]
    where
        Self: Sized;

    /// Where keys go on this screen now: one of the room's key parts (`keys.rs`).
    fn keys(&self, phone: &Phone) -> Context;

    /// A key's action in [`Room::keys`].
    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command>;

    /// The quit key: the phone quits, asking first when words would be dropped.
    fn quit(&mut self, phone: &mut Phone) -> Vec<Command> {
        phone.quit()
    }

    /// Whether `action` does what its words say here now: the footer hints only those
    /// (a key that would only explain why it does nothing is not hinted).
    fn offers(&self, _phone: &Phone, _action: Action) -> bool {
        true
    }

    /// Whether the `?` help lists `action`: only keys that can act on this screen (a pane lists
    /// the keys of its kind of agent, a choice card no permission letters). Unlike
    /// [`Room::offers`], a key that acts only at some moments (a retry) is listed.
    fn lists(&self, _phone: &Phone, _action: Action) -> bool {
        true
    }

    /// News the model heard (`model::news`): the one hook by which a screen learns that
    /// what it shows closed or moved. It reads; the shell applies what it says.
    fn heard(&self, _phone: &Phone, _news: &Heard) -> Heeded {
        Heeded::Nothing
    }

    /// A key bound to nothing where [`Room::keys`] takes typing.
    fn typed(&mut self, _phone: &mut Phone, _key: &KeyEvent) {}

    /// Lines the `?` help says after the keys of where the person is: keys that work one
    /// step further on (a pane's chat names the box's own).
    fn help_notes(&self, _phone: &Phone) -> Vec<String> {
        Vec::new()
    }

    /// A paste where [`Room::keys`] takes one.
    fn paste(&mut self, _phone: &mut Phone, _text: &str) {}

    /// The mouse wheel over the screen.
    fn wheel(&mut self, _phone: &mut Phone, _down: bool, _column: u16, _row: u16) -> Vec<Command> {
        Vec::new()
    }

    /// A left click.
    fn click(&mut self, _phone: &mut Phone, _column: u16, _row: u16) -> Vec<Command> {
        Vec::new()
    }

    /// The list filter the screen keeps, if it has one (`/` on a list).
    fn filter(&self) -> Option<&Filter> {
        None
    }

    fn filter_mut(&mut self) -> Option<&mut Filter> {
        None
    }

    /// Other filter words make another list: the selection goes back to its first row.
    fn filter_changed(&mut self) {}

    /// The pane whose chat the screen shows, for the engine to read at every poll (SPEC S7).
    fn pane_on_screen(&self) -> Option<(String, String)> {
        None
    }

    /// Keeps each list's selection on a real row after the data or the size changed: on the
    /// row it was on, or the nearest when that row went.
    fn follow(&mut self, _phone: &Phone) {}

    /// Notes which row each list has selected, after the person moved.
    fn remember(&mut self, _phone: &Phone) {}

    /// The selected row of the screen's list and how many rows it has.
    fn list_selection(&self, _phone: &Phone) -> Option<(usize, usize)> {
        None
    }
}

/// The `Room` methods every plain list screen (workspaces, New, History) shares: a click
/// selects a row and a click on the selected row opens it; the `/` filter; and the selection
/// kept on its row as the data or the size change. The room has `cursor: ListCursor`, `filter:
/// Filter`, `len(&self, &Phone) -> usize` and `row_keys(&self, &Phone) -> Vec<String>`.
macro_rules! plain_list {
    () => {
        fn click(&mut self, phone: &mut Phone, column: u16, row: u16) -> Vec<Command> {
            let len = self.len(phone);
            if self.cursor.click_in_listing(
                phone.size(),
                self.filter.is_active(),
                len,
                (column, row),
            ) {
                return self.act(phone, Action::Open);
            }
            Vec::new()
        }

        fn filter(&self) -> Option<&Filter> {
            Some(&self.filter)
        }

        fn filter_mut(&mut self) -> Option<&mut Filter> {
            Some(&mut self.filter)
        }

        fn filter_changed(&mut self) {
            self.cursor = Default::default();
        }

        fn follow(&mut self, phone: &Phone) {
            let keys = self.row_keys(phone);
            self.cursor
                .follow(&keys, phone.list_height(self.filter.is_active()));
        }

        fn remember(&mut self, phone: &Phone) {
            let keys = self.row_keys(phone);
            self.cursor.remember(&keys);
        }

        fn list_selection(&self, phone: &Phone) -> Option<(usize, usize)> {
            Some((self.cursor.selected, self.len(phone)))
        }
    };
}
pub(crate) use plain_list;
