//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crossterm::event::KeyCode;

use crate::app::keymap::{Action, Chord};

/// The New page's form for a DSH bridge.
pub(crate) fn bindings() -> Vec<(Chord, Action)> {
    vec![
        (Chord::plain(KeyCode::Enter), Action::Submit),
        (Chord::plain(KeyCode::Tab), Action::NextField),
        (Chord::plain(KeyCode::Down), Action::NextField),
        (Chord::plain(KeyCode::BackTab), Action::PrevField),
        (Chord::plain(KeyCode::Up), Action::PrevField),
        (Chord::plain(KeyCode::Esc), Action::Back),
        (Chord::ctrl('r'), Action::Retry),
        (Chord::ctrl('c'), Action::Quit),
    ]
}
