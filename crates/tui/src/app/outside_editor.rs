//! The person's own editor for the text being typed (docs/KEYS.md, "The person's editor"):
//! the app asks the runner to open the text in `$VISUAL` or `$EDITOR` and takes back what was
//! saved, into the same field and unsent. The app only names the field and the text; the
//! runner (`crate::tui::outside_editor`) leaves the screen, runs the editor and comes back.

use crate::app::Command;
use crate::app::phone::Phone;
use crate::app::toast::Subject;
use crate::model::editor::Editor;
use crate::model::inbox::AskKey;

/// The field the editor's text goes back to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditTarget {
    /// A pane's message box, its draft.
    Draft { agent: String, pane: String },
    /// A text card's answer.
    Answer(AskKey),
    /// The words after a Deny on a permission card (SPEC A21).
    DenyWords(AskKey),
}

/// The command that opens `text` of `target` in the person's editor.
pub(crate) fn open(target: EditTarget, text: String) -> Command {
    Command::EditOutside { target, text }
}

/// Puts what the editor saved into its field, not sent; or says why it did not come back,
/// the field's text kept as it was.
pub(crate) fn came_back(phone: &mut Phone, target: &EditTarget, result: Result<String, String>) {
    let text = match result {
        Ok(text) => text,
        Err(why) => {
            phone.show_toast(format!("{why} The text is kept as it was."), true);
            return;
        }
    };
    // A one-line answer takes the lines joined, as a paste into it does.
    let one_line = match target {
        EditTarget::Answer(key) => phone
            .card(key)
            .is_some_and(|card| !card.ask.text.as_ref().is_some_and(|t| t.multiline)),
        EditTarget::Draft { .. } | EditTarget::DenyWords(_) => false,
    };
    let text = if one_line {
        text.lines().collect::<Vec<_>>().join(" ")
    } else {
        text
    };
    let Some(editor) = field(phone, target) else {
        phone.show_toast(
            "What the editor saved has no place to go: the field is gone.",
            true,
        );
        return;
    };
    let changed = editor.text() != text;
    editor.replace_text(&text);
    let words = if changed {
        "The editor's text is in the box, not sent."
    } else {
        "The editor saved no change."
    };
    // Words about the box: once its text is sent or changed, they are over.
    let about = match target {
        EditTarget::Draft { agent, pane } => phone.draft_subject(agent, pane),
        EditTarget::Answer(_) | EditTarget::DenyWords(_) => Subject::Screen,
    };
    phone.show_toast_about(words, false, about);
}

fn field<'a>(phone: &'a mut Phone, target: &EditTarget) -> Option<&'a mut Editor> {
    match target {
        EditTarget::Draft { agent, pane } => Some(phone.model.draft_mut(agent, pane)),
        EditTarget::Answer(key) => phone
            .model
            .card_mut(key)
            .and_then(crate::model::card_state::CardState::answer_text_mut),
        EditTarget::DenyWords(key) => phone
            .model
            .card_mut(key)
            .and_then(crate::model::card_state::CardState::say_why_mut),
    }
}
