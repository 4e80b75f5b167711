//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crate::app::keymap::{Action, Chord, Context, KeyPart, common, list_moves, opens, plain_words};

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

pub(crate) const LAYOUT: Context = Context(&KeyPart {
    id: "layout",
    title: "Workspaces",
    bindings,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::Open, "open", "open"),
        (Action::Rename, "rename", "rename"),
        (Action::Close, "close", "close"),
        (Action::Filter, "filter", "filter"),
        (Action::Back, "back", "back"),
        (Action::Help, "help", "help"),
    ],
    describe: plain_words,
});
