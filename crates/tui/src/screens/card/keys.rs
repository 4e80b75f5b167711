//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crossterm::event::KeyCode;

use crate::app::keymap::{
    Action, Chord, Context, EDIT_KILLS, EDIT_MOVES, EDIT_YANK_UNDO, KeyPart, common, text_box,
    to_the_asks,
};

/// A permission, choice or unknown ask card (or any card while its answer is out).
pub(crate) fn choosing() -> Vec<(Chord, Action)> {
    let mut card = common();
    card.extend([
        (Chord::ch('y'), Action::AllowOnce),
        (Chord::ch('n'), Action::Deny),
        (Chord::ch('N'), Action::DenyWithWords),
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
    card.push((Chord::ch('o'), Action::OpenLink));
    card
}

/// A url card: a choice card's keys, and its link copied with the pane's copy key (`y`), as
/// the pane copies an item with its link (docs/KEYS.md, "Copy"). A url card has no
/// permission to allow, so `y` is free here.
pub(crate) fn linking() -> Vec<(Chord, Action)> {
    let mut card: Vec<(Chord, Action)> = choosing()
        .into_iter()
        .filter(|(_, action)| *action != Action::AllowOnce)
        .collect();
    card.push((Chord::ch('y'), Action::Copy));
    card
}

/// A text or form card: letters are typed into the focused field.
pub(crate) fn typing() -> Vec<(Chord, Action)> {
    // The box's own keys (a new line, the help), as in a pane's box.
    let mut keys = vec![(Chord::plain(KeyCode::Enter), Action::Submit)];
    keys.extend(text_box());
    keys.extend([
        (Chord::plain(KeyCode::Tab), Action::NextField),
        (Chord::plain(KeyCode::BackTab), Action::PrevField),
        (Chord::plain(KeyCode::Esc), Action::Back),
        (Chord::ctrl('r'), Action::Retry),
        (Chord::ctrl('c'), Action::Quit),
    ]);
    keys.extend(to_the_asks());
    keys
}

/// A permission, choice or unknown ask card, or any card while its answer is out.
pub(crate) const CHOOSING: Context = Context(&KeyPart {
    id: "card",
    title: "Ask card",
    bindings: choosing,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::Submit, "answer", "answer"),
        (Action::Retry, "retry", "retry"),
        (Action::Back, "back", "back"),
        (Action::Help, "help", "help"),
    ],
    describe: choosing_words,
});

/// A url card: a choice card whose link opens in a browser or is copied.
pub(crate) const LINK: Context = Context(&KeyPart {
    id: "card-link",
    title: "Ask card (a link)",
    bindings: linking,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::Submit, "answer", "answer"),
        (Action::Retry, "retry", "retry"),
        (Action::Back, "back", "back"),
        (Action::Help, "help", "help"),
    ],
    describe: choosing_words,
});

/// A text card: letters are typed into its answer.
pub(crate) const TEXT: Context = Context(&KeyPart {
    id: "card-text",
    title: "Ask card (a typed answer)",
    bindings: typing,
    typing: true,
    pastes: true,
    notes: &[
        "Typing puts text in the answer; Backspace, Delete and these edit:",
        EDIT_MOVES,
        EDIT_KILLS,
        EDIT_YANK_UNDO,
    ],
    hints: &[
        (Action::Submit, "submit", "submit"),
        (Action::Back, "back", "back"),
        (Action::Help, "keys", "keys"),
    ],
    describe: typing_words,
});

/// "Deny, and say why" selected on a permission card: letters are the words the agent reads
/// after the Deny (SPEC A21), in a box as a pane's.
pub(crate) const SAY_WHY: Context = Context(&KeyPart {
    id: "card-deny-words",
    title: "Ask card (Deny, and say why)",
    bindings: typing,
    typing: true,
    pastes: true,
    notes: &[
        "Typing puts the words the agent reads after the Deny; Backspace, Delete and these edit:",
        EDIT_MOVES,
        EDIT_KILLS,
        EDIT_YANK_UNDO,
        "↑ on the first line, Tab or Shift-Tab go back to the options; the words stay",
    ],
    hints: &[
        (Action::Submit, "deny and send", "deny"),
        (Action::PrevField, "options", "options"),
        (Action::Back, "back", "back"),
        (Action::Help, "keys", "keys"),
    ],
    describe: say_why_words,
});

/// A form card: letters are typed into the focused field.
pub(crate) const TYPING: Context = Context(&KeyPart {
    id: "card-typing",
    title: "Ask card (a form)",
    bindings: typing,
    typing: true,
    pastes: true,
    notes: &[
        "Text fields: type; Backspace, Delete and these edit:",
        EDIT_MOVES,
        EDIT_KILLS,
        EDIT_YANK_UNDO,
        "Choice fields: a number, ←/→ or Space change the choice",
        "Pick-several fields: a number or ←/→ lights an option, Space picks or unpicks it",
        "Yes/no fields: Space or ←/→ toggle",
        "Number fields: type digits and - + (a decimal also . e)",
        "On an option such as Decline, Enter answers with it",
    ],
    hints: &[
        (Action::Submit, "submit", "submit"),
        (Action::NextField, "next field", "next"),
        (Action::Back, "back", "back"),
        (Action::Help, "keys", "keys"),
    ],
    describe: typing_words,
});

/// On a card, option keys only select and Enter answers, after the reading time.
fn choosing_words(action: Action) -> Option<String> {
    let words = match action {
        Action::AllowOnce => "Select allow once",
        Action::Deny => "Select deny",
        Action::DenyWithWords => "Select deny, and say why: then type the words",
        Action::AllowAlways => "Select allow always (Enter then asks again)",
        Action::Up => "Select the option above",
        Action::Down => "Select the option below",
        Action::Submit => {
            return Some(format!(
                "Answer with the selected option (not within {} of the card opening or changing)",
                crate::model::arming::words()
            ));
        }
        Action::Pick(n) => return Some(format!("Select option {n}")),
        Action::Copy => "Copy the card's link to the clipboard (through the terminal)",
        _ => return None,
    };
    Some(words.to_string())
}

/// A typed answer is submitted only after the reading time.
fn typing_words(action: Action) -> Option<String> {
    match action {
        Action::EditOutside => Some("Edit a text answer in $VISUAL or $EDITOR, unsent".into()),
        Action::Submit => Some(format!(
            "Submit the answer (not within {} of the card opening or changing)",
            crate::model::arming::words()
        )),
        _ => None,
    }
}

/// Enter denies and then sends the words to the same pane; the other keys leave the box.
fn say_why_words(action: Action) -> Option<String> {
    match action {
        Action::Submit => Some(format!(
            "Deny, then send the words to the same pane (not within {} of the card opening or changing)",
            crate::model::arming::words()
        )),
        Action::EditOutside => Some("Edit the words in $VISUAL or $EDITOR, unsent".into()),
        Action::NextField | Action::PrevField => Some("Back to the options; the words stay".into()),
        _ => None,
    }
}
