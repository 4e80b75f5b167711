//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crate::app::keymap::{Action, Chord, common, list_moves};

/// One exchange: its lines scroll.
pub(crate) fn bindings() -> Vec<(Chord, Action)> {
    let mut exchange = common();
    exchange.extend(list_moves());
    exchange
}
