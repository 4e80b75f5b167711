//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crossterm::event::KeyCode;

use crate::app::keymap::{Action, Chord, common};

/// A permission, choice or unknown ask card (or any card while its answer is out).
pub(crate) fn choosing() -> Vec<(Chord, Action)> {
    let mut card = common();
    card.extend([
        (Chord::ch('y'), Action::AllowOnce),
        (Chord::ch('n'), Action::Deny),
        (Chord::ch('a'), Action::AllowAlways),
        (Chord::ch('R'), Action::Retry),
        (Chord::plain(KeyCode::Up), Action::Up),
        (Chord::ch('k'), Action::Up),
        (Chord::plain(KeyCode::Down), Action::Down),
        (Chord::ch('j'), Action::Down),
        (Chord::plain(KeyCode::Enter), Action::Submit),
    ]);
    card.extend((1..=8u8).map(|n| (Chord::ch(char::from(b'0' + n)), Action::Pick(n))));
    card.push((Chord::ch('w'), Action::Wire));
    card
}

/// A text or form card: letters are typed into the focused field.
pub(crate) fn typing() -> Vec<(Chord, Action)> {
    vec![
        (Chord::plain(KeyCode::Enter), Action::Submit),
        (Chord::alt(KeyCode::Enter), Action::Newline),
        (Chord::ctrl('j'), Action::Newline),
        (Chord::plain(KeyCode::Tab), Action::NextField),
        (Chord::plain(KeyCode::BackTab), Action::PrevField),
        (Chord::plain(KeyCode::Esc), Action::Back),
        (Chord::ctrl('r'), Action::Retry),
        (Chord::ctrl('c'), Action::Quit),
    ]
}
