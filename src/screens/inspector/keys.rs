//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crate::app::keymap::{Action, Chord, common, list_moves, opens};

/// The wire inspector's list.
pub(crate) fn bindings() -> Vec<(Chord, Action)> {
    let mut inspector = common();
    inspector.extend(list_moves());
    inspector.extend(opens());
    inspector.extend([
        (Chord::ch('/'), Action::Filter),
        (Chord::ch('x'), Action::Export),
    ]);
    inspector
}
