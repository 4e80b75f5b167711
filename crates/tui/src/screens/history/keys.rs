//! The keys of this room's screen, as data: `app::keymap` gathers every room's table, applies
//! the config's `[keys]`, and makes the `?` help from the same table.

use crate::app::keymap::{Action, Chord, Context, KeyPart, common, list_moves, opens, plain_words};
use crate::screens::search::keys::finds;

/// The list of conversations.
pub(crate) fn list() -> Vec<(Chord, Action)> {
    let mut history = common();
    history.extend(list_moves());
    history.extend(opens());
    history.extend([
        (Chord::ch('o'), Action::Reopen),
        (Chord::ch('/'), Action::Filter),
        (Chord::ch('w'), Action::Wire),
    ]);
    history
}

/// One conversation's items.
pub(crate) fn conversation() -> Vec<(Chord, Action)> {
    let mut conversation = common();
    conversation.extend(list_moves());
    conversation.extend([
        (Chord::ch('o'), Action::Reopen),
        (Chord::ch('t'), Action::ToggleThinking),
        (Chord::ch('w'), Action::Wire),
    ]);
    conversation.extend(finds());
    conversation
}

pub(crate) const LIST: Context = Context(&KeyPart {
    id: "history",
    title: "History",
    bindings: list,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::Open, "read", "read"),
        (Action::Reopen, "reopen", "reopen"),
        (Action::Filter, "filter", "filter"),
        (Action::Back, "back", "back"),
        (Action::Help, "help", "help"),
    ],
    describe: plain_words,
});

pub(crate) const CONVERSATION: Context = Context(&KeyPart {
    id: "conversation",
    title: "Conversation",
    bindings: conversation,
    typing: false,
    pastes: false,
    notes: &[],
    hints: &[
        (Action::Reopen, "reopen", "reopen"),
        (Action::ToggleThinking, "thinking", "think"),
        (Action::Back, "back", "back"),
        (Action::Search, "search", "search"),
        (Action::Help, "help", "help"),
    ],
    describe: conversation_words,
});

/// What `/` and `y` do in a conversation, where nothing is selected.
fn conversation_words(action: Action) -> Option<String> {
    let words = match action {
        Action::Search => "Search in the conversation",
        Action::Copy => "Copy the current match's item, else every item read",
        _ => return plain_words(action),
    };
    Some(words.to_string())
}
