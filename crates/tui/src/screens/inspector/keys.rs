//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crate::app::keymap::{Action, Chord, Context, KeyPart, common, list_moves, opens, plain_words};

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

/// The wire inspector's list of exchanges.
pub(crate) const INSPECTOR: Context = Context(&KeyPart {
    id: "inspector",
    title: "Wire inspector",
    bindings,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::Open, "read", "read"),
        (Action::Filter, "filter", "filter"),
        (Action::Export, "save to a file", "save"),
        (Action::Bottom, "follow", "follow"),
        (Action::Back, "back", "back"),
        (Action::Help, "help", "help"),
    ],
    describe: plain_words,
});
