//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crossterm::event::KeyCode;

use crate::app::keymap::{Action, Chord, common, list_moves};

/// The New page's keys.
pub(crate) fn bindings() -> Vec<(Chord, Action)> {
    let mut new = common();
    new.extend(list_moves());
    new.extend([
        (Chord::plain(KeyCode::Enter), Action::Open),
        (Chord::ch('/'), Action::Filter),
        (Chord::ch('w'), Action::Wire),
    ]);
    new
}
