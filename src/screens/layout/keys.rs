//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crate::app::keymap::{Action, Chord, common, list_moves, opens};

/// The workspaces screen's keys.
pub(crate) fn bindings() -> Vec<(Chord, Action)> {
    let mut layout = common();
    layout.extend(list_moves());
    layout.extend(opens());
    layout.extend([
        (Chord::ch('r'), Action::Rename),
        (Chord::ch('c'), Action::Close),
        (Chord::ch('n'), Action::NewPage),
        (Chord::ch('H'), Action::History),
        (Chord::ch('/'), Action::Filter),
        (Chord::ch('w'), Action::Wire),
    ]);
    layout
}
