//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crossterm::event::KeyCode;

use crate::app::keymap::{
    Action, Chord, Context, EDIT_KILLS, EDIT_MOVES, EDIT_YANK_UNDO, KeyPart, plain_words,
};

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

/// The picker of a pane's settings: arrows light a choice, Tab goes to the next setting.
pub(crate) fn setting_picker() -> Vec<(Chord, Action)> {
    let mut keys = vec![
        (Chord::plain(KeyCode::Up), Action::Up),
        (Chord::ch('k'), Action::Up),
        (Chord::plain(KeyCode::Down), Action::Down),
        (Chord::ch('j'), Action::Down),
        (Chord::plain(KeyCode::Tab), Action::NextField),
        (Chord::plain(KeyCode::Right), Action::NextField),
        (Chord::plain(KeyCode::BackTab), Action::PrevField),
        (Chord::plain(KeyCode::Left), Action::PrevField),
        (Chord::plain(KeyCode::Enter), Action::Confirm),
        (Chord::plain(KeyCode::Esc), Action::Cancel),
        (Chord::ch('q'), Action::Cancel),
        (Chord::ctrl('c'), Action::Cancel),
        (Chord::ch('?'), Action::Help),
    ];
    keys.extend((1..=8u8).map(|n| (Chord::ch(char::from(b'0' + n)), Action::Pick(n))));
    keys
}

/// The rings: arrows light a row, Enter mutes or switches it.
pub(crate) fn rings_picker() -> Vec<(Chord, Action)> {
    vec![
        (Chord::plain(KeyCode::Up), Action::Up),
        (Chord::ch('k'), Action::Up),
        (Chord::plain(KeyCode::Down), Action::Down),
        (Chord::ch('j'), Action::Down),
        (Chord::plain(KeyCode::Enter), Action::Confirm),
        (Chord::ch(' '), Action::Confirm),
        (Chord::plain(KeyCode::Esc), Action::Cancel),
        (Chord::ch('q'), Action::Cancel),
        (Chord::ch('Z'), Action::Cancel),
        (Chord::ctrl('c'), Action::Cancel),
        (Chord::ch('?'), Action::Help),
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
        (Chord::ch('?'), Action::Help),
    ];
    kinds.extend((1..=6u8).map(|n| (Chord::ch(char::from(b'0' + n)), Action::Pick(n))));
    kinds
}

/// The `?` help.
pub(crate) fn help() -> Vec<(Chord, Action)> {
    vec![
        (Chord::ch('?'), Action::Help),
        // The key that opened it from a text box closes it too.
        (Chord::alt(KeyCode::Char('?')), Action::Help),
        (Chord::plain(KeyCode::Esc), Action::Back),
        (Chord::ch('q'), Action::Back),
        (Chord::plain(KeyCode::Up), Action::Up),
        (Chord::ch('k'), Action::Up),
        (Chord::plain(KeyCode::Down), Action::Down),
        (Chord::ch('j'), Action::Down),
        (Chord::plain(KeyCode::PageDown), Action::PageDown),
        (Chord::ch(' '), Action::PageDown),
        (Chord::ctrl('f'), Action::PageDown),
        (Chord::plain(KeyCode::PageUp), Action::PageUp),
        (Chord::ctrl('b'), Action::PageUp),
        (Chord::plain(KeyCode::Home), Action::Top),
        (Chord::ch('g'), Action::Top),
        (Chord::plain(KeyCode::End), Action::Bottom),
        (Chord::ch('G'), Action::Bottom),
    ]
}

pub(crate) const CONFIRM: Context = Context(&KeyPart {
    id: "confirm",
    title: "Confirm",
    bindings: confirm,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::Confirm, "yes", "yes"),
        (Action::Cancel, "no", "no"),
    ],
    describe: plain_words,
});

/// The allow-always question over a permission card: only its own key says yes.
pub(crate) const CONFIRM_ALWAYS: Context = Context(&KeyPart {
    id: "confirm-always",
    title: "Allow always?",
    bindings: confirm_always,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::ConfirmAlways, "allow always", "always"),
        (Action::Cancel, "cancel", "cancel"),
    ],
    describe: plain_words,
});

/// The question before a mode that lets the agent act without asking: as allow-always, only
/// its own key says yes (no Enter).
pub(crate) const CONFIRM_SETTING: Context = Context(&KeyPart {
    id: "confirm-setting",
    title: "Act without asking?",
    bindings: confirm_always,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::ConfirmAlways, "switch", "switch"),
        (Action::Cancel, "keep", "keep"),
    ],
    describe: setting_question_words,
});

/// On the question before a mode that acts without asking, `y` switches to it.
fn setting_question_words(action: Action) -> Option<String> {
    let words = match action {
        Action::ConfirmAlways => "Yes: switch to it; the agent acts without asking you",
        Action::Cancel => "No: keep the mode it is in",
        _ => return None,
    };
    Some(words.to_string())
}

/// Choosing a value of a pane's settings: its agent's mode and options.
pub(crate) const SETTING_PICKER: Context = Context(&KeyPart {
    id: "setting-picker",
    title: "Mode and options",
    bindings: setting_picker,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::Confirm, "switch", "switch"),
        (Action::NextField, "next setting", "next"),
        (Action::Cancel, "keep", "keep"),
        (Action::Help, "help", "help"),
    ],
    describe: setting_picker_words,
});

/// In the settings picker the field keys move between settings, and a pick chooses a value.
fn setting_picker_words(action: Action) -> Option<String> {
    let words = match action {
        Action::Up => "Light the choice above",
        Action::Down => "Light the choice below",
        Action::NextField => "Next setting (mode, options)",
        Action::PrevField => "Previous setting",
        Action::Confirm => "Switch to the lit choice",
        Action::Cancel => "Close, keep what is in effect",
        // One rule for numbers on every picker and card: a number lights, Enter says it.
        Action::Pick(n) => return Some(format!("Light choice {n} (Enter switches to it)")),
        _ => return None,
    };
    Some(words.to_string())
}

/// A one-line prompt, e.g. the new title of a rename.
pub(crate) const PROMPT: Context = Context(&KeyPart {
    id: "prompt",
    title: "Prompt",
    bindings: prompt,
    typing: true,
    pastes: true,
    notes: &[
        "Typing, Backspace, Delete edit the text",
        EDIT_MOVES,
        EDIT_KILLS,
        EDIT_YANK_UNDO,
    ],
    hints: &[
        (Action::Confirm, "save", "save"),
        (Action::Cancel, "cancel", "cancel"),
    ],
    describe: plain_words,
});

/// Typing a list filter after `/`.
pub(crate) const FILTER: Context = Context(&KeyPart {
    id: "filter",
    title: "Filter",
    bindings: filter,
    typing: true,
    pastes: true,
    notes: &[
        "Type words to keep the rows holding all of them",
        EDIT_MOVES,
        EDIT_KILLS,
        EDIT_YANK_UNDO,
    ],
    hints: &[
        (Action::Confirm, "keep filter", "keep"),
        (Action::Cancel, "clear", "clear"),
    ],
    describe: plain_words,
});

/// The rings: the mute, and how each event rings (docs/CONFIG.md, "Rings").
pub(crate) const RINGS: Context = Context(&KeyPart {
    id: "rings",
    title: "Rings",
    bindings: rings_picker,
    typing: false,
    pastes: false,
    notes: &[
        "Switched here for this run; the config file's [notify] sets them for every run",
        "Times are UTC, as everywhere in the phone",
    ],
    hints: &[
        (Action::Confirm, "mute / switch", "do"),
        (Action::Down, "next", "next"),
        (Action::Cancel, "close", "close"),
        (Action::Help, "help", "help"),
    ],
    describe: rings_words,
});

/// In the rings, Enter does what the lit row says.
fn rings_words(action: Action) -> Option<String> {
    let words = match action {
        Action::Up => "Light the row above",
        Action::Down => "Light the row below",
        Action::Confirm => "Mute, unmute, or switch the lit row to its next value",
        Action::Cancel => "Close",
        _ => return None,
    };
    Some(words.to_string())
}

/// Choosing the kind of the next message to a DSH bridge task (instruction, feedback…).
pub(crate) const KIND_PICKER: Context = Context(&KeyPart {
    id: "kind-picker",
    title: "Message kind",
    bindings: kind_picker,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::Confirm, "choose", "choose"),
        (Action::Down, "next", "next"),
        (Action::Cancel, "cancel", "cancel"),
        (Action::Help, "help", "help"),
    ],
    describe: kind_picker_words,
});

/// In the kind picker a number lights a kind, and Enter chooses it.
fn kind_picker_words(action: Action) -> Option<String> {
    let words = match action {
        Action::Up => "Light the kind above",
        Action::Down => "Light the kind below",
        Action::Confirm => "Choose the lit kind for the next message",
        Action::Cancel => "Close, keep the kind in effect",
        Action::Pick(n) => return Some(format!("Light kind {n} (Enter chooses it)")),
        _ => return None,
    };
    Some(words.to_string())
}

pub(crate) const HELP: Context = Context(&KeyPart {
    id: "help",
    title: "Help",
    bindings: help,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::PageDown, "more", "more"),
        (Action::PageUp, "back up", "up"),
        (Action::Back, "close help", "close"),
    ],
    describe: plain_words,
});

/// Every part of what floats over the screens, for the keymap.
pub(crate) const PARTS: &[Context] = &[
    CONFIRM,
    CONFIRM_ALWAYS,
    CONFIRM_SETTING,
    PROMPT,
    FILTER,
    KIND_PICKER,
    SETTING_PICKER,
    RINGS,
    HELP,
];
