//! The keys of the search line, as data: one part for every room that searches its text.

use crossterm::event::KeyCode;

use crate::app::keymap::{
    Action, Chord, Context, EDIT_KILLS, EDIT_MOVES, EDIT_YANK_UNDO, KeyPart, moves, to_the_asks,
};

/// The search line: letters are typed, Enter keeps the matches lit.
pub(crate) fn search() -> Vec<(Chord, Action)> {
    vec![
        (Chord::plain(KeyCode::Enter), Action::Confirm),
        (Chord::plain(KeyCode::Esc), Action::Cancel),
        (Chord::plain(KeyCode::Down), Action::NextMatch),
        (Chord::plain(KeyCode::Up), Action::PrevMatch),
        (Chord::ctrl('c'), Action::Quit),
        to_the_asks()[0],
    ]
    .into_iter()
    .chain(moves())
    .collect()
}

/// The keys `/`, `n`, `N` and `y` where text is read (a pane's chat has them among its own).
pub(crate) fn finds() -> [(Chord, Action); 4] {
    [
        (Chord::ch('/'), Action::Search),
        (Chord::ch('n'), Action::NextMatch),
        (Chord::ch('N'), Action::PrevMatch),
        (Chord::ch('y'), Action::Copy),
    ]
}

/// Typing words to find after `/`.
pub(crate) const SEARCH: Context = Context(&KeyPart {
    id: "search",
    title: "Search",
    bindings: search,
    typing: true,
    pastes: true,
    notes: &[
        "Type words to find them; case does not matter",
        EDIT_MOVES,
        EDIT_KILLS,
        EDIT_YANK_UNDO,
    ],
    hints: &[
        (Action::Confirm, "keep matches", "keep"),
        (Action::NextMatch, "next", "next"),
        (Action::PrevMatch, "previous", "prev"),
        (Action::Cancel, "close", "close"),
    ],
    describe: search_words,
});

/// On the search line, Enter and Esc close the line; the words stay.
fn search_words(action: Action) -> Option<String> {
    let words = match action {
        Action::Confirm => "Close the line, keep the matches lit",
        Action::Cancel => "Close the search (its words stay for /)",
        _ => return None,
    };
    Some(words.to_string())
}
