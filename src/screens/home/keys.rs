//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crate::app::keymap::{Action, Chord, common, list_moves, opens};

/// Home's keys.
pub(crate) fn bindings() -> Vec<(Chord, Action)> {
    let mut home = common();
    home.retain(|(_, a)| *a != Action::Back);
    home.extend(list_moves());
    home.extend(opens());
    home.extend([
        (Chord::ch('e'), Action::JumpExpiring),
        (Chord::ch('n'), Action::NewPage),
        (Chord::ch('H'), Action::History),
        (Chord::ch('/'), Action::Filter),
        (Chord::ch('w'), Action::Wire),
    ]);
    home
}
