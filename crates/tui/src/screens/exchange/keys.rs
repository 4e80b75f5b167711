//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crate::app::keymap::{Action, Chord, Context, KeyPart, common, list_moves, plain_words};

/// One exchange: its lines scroll.
pub(crate) fn bindings() -> Vec<(Chord, Action)> {
    let mut exchange = common();
    exchange.extend(list_moves());
    exchange
}

/// One exchange of the wire inspector, its bodies.
pub(crate) const EXCHANGE: Context = Context(&KeyPart {
    id: "exchange",
    title: "Exchange",
    bindings,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::Down, "scroll", "scroll"),
        (Action::Back, "back", "back"),
        (Action::Help, "help", "help"),
    ],
    describe: plain_words,
});
