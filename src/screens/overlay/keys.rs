//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crossterm::event::KeyCode;

use crate::app::keymap::{Action, Chord};

/// A yes/no question before something that cannot be undone.
pub(crate) fn confirm() -> Vec<(Chord, Action)> {
    vec![
        (Chord::ch('y'), Action::Confirm),
        (Chord::plain(KeyCode::Enter), Action::Confirm),
        (Chord::ch('n'), Action::Cancel),
        (Chord::plain(KeyCode::Esc), Action::Cancel),
        (Chord::ctrl('c'), Action::Cancel),
    ]
}

/// The allow-always question over a permission card.
/// No Enter here: a second Enter after the one that asked must not allow always.
pub(crate) fn confirm_always() -> Vec<(Chord, Action)> {
    vec![
        (Chord::ch('y'), Action::ConfirmAlways),
        (Chord::ch('n'), Action::Cancel),
        (Chord::plain(KeyCode::Esc), Action::Cancel),
        (Chord::ctrl('c'), Action::Cancel),
    ]
}

/// A one-line prompt, e.g. a rename.
pub(crate) fn prompt() -> Vec<(Chord, Action)> {
    vec![
        (Chord::plain(KeyCode::Enter), Action::Confirm),
        (Chord::plain(KeyCode::Esc), Action::Cancel),
        (Chord::ctrl('c'), Action::Cancel),
    ]
}

/// Typing a list filter after `/`.
pub(crate) fn filter() -> Vec<(Chord, Action)> {
    vec![
        (Chord::plain(KeyCode::Enter), Action::Confirm),
        (Chord::plain(KeyCode::Esc), Action::Cancel),
        (Chord::plain(KeyCode::Up), Action::Up),
        (Chord::plain(KeyCode::Down), Action::Down),
    ]
}

/// The kind picker of a DSH bridge pane.
pub(crate) fn kind_picker() -> Vec<(Chord, Action)> {
    let mut kinds = vec![
        (Chord::plain(KeyCode::Up), Action::Up),
        (Chord::ch('k'), Action::Up),
        (Chord::plain(KeyCode::Down), Action::Down),
        (Chord::ch('j'), Action::Down),
        (Chord::plain(KeyCode::Enter), Action::Confirm),
        (Chord::plain(KeyCode::Esc), Action::Cancel),
        (Chord::ch('q'), Action::Cancel),
        (Chord::ctrl('c'), Action::Cancel),
    ];
    kinds.extend((1..=6u8).map(|n| (Chord::ch(char::from(b'0' + n)), Action::Pick(n))));
    kinds
}

/// The `?` help.
pub(crate) fn help() -> Vec<(Chord, Action)> {
    vec![
        (Chord::ch('?'), Action::Help),
        (Chord::plain(KeyCode::Esc), Action::Back),
        (Chord::ch('q'), Action::Back),
        (Chord::plain(KeyCode::Up), Action::Up),
        (Chord::ch('k'), Action::Up),
        (Chord::plain(KeyCode::Down), Action::Down),
        (Chord::ch('j'), Action::Down),
    ]
}
