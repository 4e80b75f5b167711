//! Keys that edit text in an [`Editor`]: what is left of a key after the keymap had its turn
//! in a context that takes typing.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::editor::Editor;

/// Applies an editing key; returns true when the key edited or moved.
pub fn edit(editor: &mut Editor, key: &KeyEvent, multiline: bool) -> bool {
    if key.kind == KeyEventKind::Release {
        return false;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Char('w') if ctrl => editor.delete_word_back(),
        KeyCode::Char('a') if ctrl => editor.home(),
        KeyCode::Char('e') if ctrl => editor.end(),
        KeyCode::Char('u') if ctrl => editor.clear(),
        KeyCode::Char('b') if alt => editor.word_left(),
        KeyCode::Char('f') if alt => editor.word_right(),
        // Other Ctrl and Alt chords are commands somewhere else, never text.
        KeyCode::Char(_) if ctrl || alt => return false,
        KeyCode::Char(c) => editor.insert_char(c),
        KeyCode::Backspace if ctrl || alt => editor.delete_word_back(),
        KeyCode::Backspace => editor.backspace(),
        KeyCode::Delete => editor.delete(),
        KeyCode::Left if ctrl || alt => editor.word_left(),
        KeyCode::Right if ctrl || alt => editor.word_right(),
        KeyCode::Left => editor.left(),
        KeyCode::Right => editor.right(),
        KeyCode::Up if multiline => editor.up(),
        KeyCode::Down if multiline => editor.down(),
        KeyCode::Home => editor.home(),
        KeyCode::End => editor.end(),
        _ => return false,
    }
    true
}

/// Pastes text; a one-line field gets the lines joined with spaces.
pub fn paste(editor: &mut Editor, text: &str, multiline: bool) {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    if multiline {
        editor.insert_str(&text);
    } else {
        editor.insert_str(&text.split('\n').collect::<Vec<_>>().join(" "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_and_paste() {
        let mut editor = Editor::new();
        for c in "héllo".chars() {
            assert!(edit(
                &mut editor,
                &KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
                true
            ));
        }
        edit(
            &mut editor,
            &KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE),
            true,
        );
        paste(&mut editor, " a\r\nb", false);
        assert_eq!(editor.text(), "héll a b");
        assert!(!edit(
            &mut editor,
            &KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL),
            true
        ));
    }
}
