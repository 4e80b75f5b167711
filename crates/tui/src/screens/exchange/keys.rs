//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crate::app::keymap::{Action, Chord, Context, KeyPart, common, list_moves, plain_words};
use crate::screens::search::keys::finds;

/// One exchange: its lines scroll.
pub(crate) fn bindings() -> Vec<(Chord, Action)> {
    let mut exchange = common();
    exchange.extend(list_moves());
    exchange.extend(finds());
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
        (Action::Search, "search", "search"),
        (Action::Help, "help", "help"),
    ],
    describe: exchange_words,
});

/// What `/` and `y` do on one exchange, where nothing is selected.
fn exchange_words(action: Action) -> Option<String> {
    let words = match action {
        Action::Search => "Search in the exchange",
        Action::Copy => "Copy the whole exchange (through the terminal)",
        _ => return plain_words(action),
    };
    Some(words.to_string())
}
