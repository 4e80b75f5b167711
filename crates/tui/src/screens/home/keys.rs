//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crate::app::keymap::{Action, Chord, Context, KeyPart, common, list_moves, opens, plain_words};

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

pub(crate) const HOME: Context = Context(&KeyPart {
    id: "home",
    title: "Home",
    bindings,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::Open, "open", "open"),
        (Action::JumpExpiring, "soonest", "soon"),
        (Action::NewPage, "new", "new"),
        (Action::History, "history", "history"),
        (Action::Filter, "filter", "filter"),
        (Action::Help, "help", "help"),
        (Action::Quit, "quit", "quit"),
    ],
    describe: plain_words,
});
