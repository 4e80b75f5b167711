//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crossterm::event::KeyCode;

use crate::app::keymap::{
    Action, Chord, Context, EDIT_KILLS, EDIT_MOVES, EDIT_YANK_UNDO, KeyPart, moves, plain_words,
    to_the_asks,
};

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
        to_the_asks()[0],
    ]
    .into_iter()
    .chain(moves())
    .collect()
}

/// The New page's form for a DSH bridge: a task or a workspace to register.
pub(crate) const FORM: Context = Context(&KeyPart {
    id: "dsh-form",
    title: "New on a DSH bridge",
    bindings,
    typing: true,
    pastes: true,
    notes: &[
        "Text fields: type; Backspace, Delete and these edit:",
        EDIT_MOVES,
        EDIT_KILLS,
        EDIT_YANK_UNDO,
        "Choice fields (workspace, session, preset, model, effort): ←/→ cycle the options",
    ],
    hints: &[
        (Action::Submit, "send", "send"),
        (Action::NextField, "next field", "next"),
        (Action::Back, "back", "back"),
    ],
    describe: plain_words,
});
