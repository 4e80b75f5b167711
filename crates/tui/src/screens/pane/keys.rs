//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crossterm::event::{KeyCode, KeyModifiers};

use crate::app::keymap::{
    Action, Chord, Context, EDIT_KILLS, EDIT_MOVES, EDIT_YANK_UNDO, KeyPart, common, list_moves,
    plain_words, text_box, to_the_asks,
};

/// A pane with the chat focused: letters are commands.
pub(crate) fn chat() -> Vec<(Chord, Action)> {
    let mut chat = common();
    chat.extend(list_moves());
    chat.extend([
        (Chord::plain(KeyCode::Enter), Action::FocusInput),
        (Chord::ch('i'), Action::FocusInput),
        (Chord::plain(KeyCode::Tab), Action::FocusInput),
        (Chord::ch('t'), Action::ToggleThinking),
        (Chord::ch('x'), Action::Abort),
        (Chord::ch('R'), Action::Retry),
        (Chord::ch('e'), Action::TakeBack),
        (Chord::ch('a'), Action::OpenAsk),
        (Chord::ch('K'), Action::MessageKind),
        (Chord::ch('m'), Action::SendMode),
        (Chord::ch('s'), Action::Settings),
        (Chord::ch('c'), Action::Close),
        // `n` is the next match here, as in less and vim; the New page is `+`.
        (Chord::ch('+'), Action::NewPage),
        (Chord::ch('H'), Action::History),
        (Chord::ch('['), Action::SelectPrev),
        (Chord::ch(']'), Action::SelectNext),
        (Chord::ch('y'), Action::Copy),
        (Chord::ch('Y'), Action::CopyCode),
        (Chord::ch('o'), Action::OpenLink),
        (Chord::ch('/'), Action::Search),
        (Chord::ch('n'), Action::NextMatch),
        (Chord::ch('N'), Action::PrevMatch),
    ]);
    for n in 1..=4u8 {
        chat.push((Chord::plain(KeyCode::F(n)), Action::Belt(n)));
        chat.push((Chord::ch(char::from(b'0' + n)), Action::Belt(n)));
    }
    chat.push((Chord::ch('w'), Action::Wire));
    chat
}

/// A pane with the input focused: letters are typed, so commands are chords.
pub(crate) fn input() -> Vec<(Chord, Action)> {
    let mut input = vec![(Chord::plain(KeyCode::Enter), Action::Send)];
    input.extend(text_box());
    input.extend([
        (Chord::plain(KeyCode::Esc), Action::Back),
        (Chord::plain(KeyCode::PageUp), Action::PageUp),
        (Chord::plain(KeyCode::PageDown), Action::PageDown),
        (Chord::ctrl('x'), Action::Abort),
        (Chord::ctrl('r'), Action::Retry),
        (
            Chord {
                code: KeyCode::Up,
                modifiers: KeyModifiers::CONTROL,
            },
            Action::TakeBack,
        ),
        // Ctrl-K kills to the end of the line here, as in readline.
        (Chord::ctrl('t'), Action::MessageKind),
        (Chord::ctrl('o'), Action::SendMode),
        (Chord::ctrl('c'), Action::Quit),
    ]);
    input.extend(to_the_asks());
    for n in 1..=4u8 {
        input.push((Chord::plain(KeyCode::F(n)), Action::Belt(n)));
    }
    input
}

/// The box while it offers the agent's commands (`/` at its start): the list takes the arrows,
/// Tab and Esc; every other key of the box works as there.
pub(crate) fn commands() -> Vec<(Chord, Action)> {
    let mut keys = vec![
        (Chord::plain(KeyCode::Up), Action::Up),
        (Chord::plain(KeyCode::Down), Action::Down),
        (Chord::plain(KeyCode::Tab), Action::Complete),
        (Chord::plain(KeyCode::Esc), Action::Cancel),
    ];
    let ours: Vec<Chord> = keys.iter().map(|(c, _)| *c).collect();
    keys.extend(input().into_iter().filter(|(c, _)| !ours.contains(c)));
    keys
}

/// A pane with the chat focused: letters are commands.
pub(crate) const CHAT: Context = Context(&KeyPart {
    id: "pane-chat",
    title: "Pane",
    bindings: chat,
    typing: false,
    pastes: true,
    notes: &[],
    hints: &[
        (Action::FocusInput, "type", "type"),
        (Action::TakeBack, "take back", "take back"),
        (Action::Retry, "retry", "retry"),
        (Action::OpenAsk, "answer", "answer"),
        (Action::ToggleThinking, "thinking", "think"),
        (Action::Abort, "stop turn", "stop"),
        (Action::Back, "back", "back"),
        (Action::Help, "help", "help"),
    ],
    describe: plain_words,
});

/// A pane with the input focused: letters are typed.
pub(crate) const INPUT: Context = Context(&KeyPart {
    id: "pane-input",
    title: "Pane input",
    bindings: input,
    typing: true,
    pastes: true,
    notes: &[
        "Typing puts text in the box; ↑/↓ move a row of it; a paste goes in whole",
        EDIT_MOVES,
        EDIT_KILLS,
        EDIT_YANK_UNDO,
    ],
    hints: &[
        (Action::Send, "send", "send"),
        (Action::TakeBack, "take back", "take back"),
        (Action::Retry, "retry", "retry"),
        // Where the line is short the last give way first: the new line (also in the help)
        // before the editor, which writes a long message whole.
        (Action::Abort, "stop turn", "stop"),
        (Action::EditOutside, "editor", "editor"),
        (Action::Newline, "new line", "newline"),
        (Action::Help, "keys", "keys"),
        (Action::Back, "leave", "leave"),
    ],
    describe: plain_words,
});

/// The box with the list of the agent's commands above it.
pub(crate) const COMMANDS: Context = Context(&KeyPart {
    id: "pane-commands",
    title: "Pane input, the agent's commands",
    bindings: commands,
    typing: true,
    pastes: true,
    notes: &[
        "Typing after / narrows the list to the commands that hold the words",
        EDIT_MOVES,
        EDIT_KILLS,
        EDIT_YANK_UNDO,
    ],
    hints: &[
        (Action::Complete, "complete", "complete"),
        (Action::Down, "next", "next"),
        (Action::Send, "send", "send"),
        (Action::Cancel, "close list", "close"),
    ],
    describe: command_words,
});

/// In the list of commands, the arrows light a command and Esc closes the list only.
fn command_words(action: Action) -> Option<String> {
    let words = match action {
        Action::Up => "Light the command above",
        Action::Down => "Light the command below",
        Action::Complete => "Complete the lit command into the box",
        Action::Cancel => "Close the list; what is typed stays",
        _ => return None,
    };
    Some(words.to_string())
}
