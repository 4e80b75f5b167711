//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crossterm::event::KeyCode;

use crate::app::keymap::{Action, Chord, Context, KeyPart, common, list_moves, plain_words};

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

pub(crate) const NEW: Context = Context(&KeyPart {
    id: "new",
    title: "New",
    bindings,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::Open, "run", "run"),
        (Action::Filter, "filter", "filter"),
        (Action::Back, "back", "back"),
        (Action::Help, "help", "help"),
    ],
    describe: plain_words,
});
