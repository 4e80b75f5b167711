//! Keys that edit text in an [`Editor`]: what is left of a key after the keymap had its turn
//! in a context that takes typing. The chords are readline's, so a shell's fingers work here:
//!
//! | keys | does |
//! |---|---|
//! | ←/→, Home/End, Ctrl-A/Ctrl-E | move by grapheme, to the line's start or end |
//! | Alt-B/Alt-F, Ctrl-←/Ctrl-→ (or Alt-) | move by word |
//! | Backspace, Delete | delete a grapheme |
//! | Ctrl-U, Ctrl-K | kill to the line's start or end (at either, the line break) |
//! | Ctrl-W (or Ctrl/Alt-Backspace), Alt-D (or Ctrl/Alt-Delete) | kill the word before, after |
//! | Ctrl-Y | yank: put back what the last kills took |
//! | Ctrl-Z, Ctrl-_ | undo |
//! | Alt-Z, Ctrl-Shift-Z | redo |

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::editor::Editor;

/// Applies an editing key; returns true when the key was one (even if there was nothing to
/// do, like Ctrl-Z with nothing to undo), false when it is no editing key at all.
pub(crate) fn edit(editor: &mut Editor, key: &KeyEvent, multiline: bool) -> bool {
    if key.kind == KeyEventKind::Release {
        return false;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Char(c) if ctrl || alt => return chord(editor, c, key.modifiers),
        KeyCode::Char(c) => editor.insert_char(c),
        KeyCode::Backspace if ctrl || alt => editor.kill_word_back(),
        KeyCode::Backspace => editor.backspace(),
        KeyCode::Delete if ctrl || alt => editor.kill_word_forward(),
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

/// A Ctrl or Alt chord on a char. Terminals differ in how they report these: Ctrl-_ comes as
/// Ctrl-7 from a legacy terminal (it sends 0x1F, which crossterm reads as Ctrl-7) and as Ctrl-_
/// (maybe with Shift) or Ctrl-/ from one with the kitty protocol; Ctrl-Shift-Z only reaches us
/// with the kitty protocol, as Ctrl-Z or Ctrl-z with Shift. Other chords are commands somewhere
/// else, never text.
fn chord(editor: &mut Editor, c: char, modifiers: KeyModifiers) -> bool {
    let ctrl = modifiers.contains(KeyModifiers::CONTROL);
    let shift = modifiers.contains(KeyModifiers::SHIFT) || c.is_ascii_uppercase();
    match (ctrl, c.to_ascii_lowercase()) {
        (true, 'z') if shift => {
            editor.redo();
        }
        (true, 'z' | '_' | '7' | '/') => {
            editor.undo();
        }
        (true, 'u') => editor.kill_to_line_start(),
        (true, 'k') => editor.kill_to_line_end(),
        (true, 'w') => editor.kill_word_back(),
        (true, 'y') => editor.yank(),
        (true, 'a') => editor.home(),
        (true, 'e') => editor.end(),
        (false, 'z') => {
            editor.redo();
        }
        (false, 'd') => editor.kill_word_forward(),
        (false, 'b') => editor.word_left(),
        (false, 'f') => editor.word_right(),
        _ => return false,
    }
    true
}

/// Pastes text; a one-line field gets the lines joined with spaces.
pub(crate) fn paste(editor: &mut Editor, text: &str, multiline: bool) {
    editor.insert_str(&pasted(text, multiline));
}

/// Pastes the next piece of a paste that came in pieces (without markers): one undo step
/// with the pieces before it.
pub(crate) fn paste_piece(editor: &mut Editor, text: &str, multiline: bool) {
    editor.insert_piece(&pasted(text, multiline));
}

fn pasted(text: &str, multiline: bool) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    if multiline {
        text
    } else {
        text.split('\n').collect::<Vec<_>>().join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(editor: &mut Editor, code: KeyCode, modifiers: KeyModifiers) -> bool {
        edit(editor, &KeyEvent::new(code, modifiers), true)
    }

    fn ctrl(editor: &mut Editor, c: char) -> bool {
        press(editor, KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn alt(editor: &mut Editor, c: char) -> bool {
        press(editor, KeyCode::Char(c), KeyModifiers::ALT)
    }

    fn typed(text: &str) -> Editor {
        let mut editor = Editor::new();
        for c in text.chars() {
            assert!(press(&mut editor, KeyCode::Char(c), KeyModifiers::NONE));
        }
        editor
    }

    #[test]
    fn typing_and_paste() {
        let mut editor = typed("héllo");
        press(&mut editor, KeyCode::Backspace, KeyModifiers::NONE);
        paste(&mut editor, " a\r\nb", false);
        assert_eq!(editor.text(), "héll a b");
        assert!(!ctrl(&mut editor, 'r'));
        assert!(!alt(&mut editor, 'x'));
        assert_eq!(editor.text(), "héll a b", "other chords type nothing");
    }

    #[test]
    fn readline_kills_and_yank() {
        let mut editor = Editor::from_text("one\ngit commit -m msg");
        ctrl(&mut editor, 'w');
        assert_eq!(editor.text(), "one\ngit commit -m ");
        ctrl(&mut editor, 'y');
        assert_eq!(editor.text(), "one\ngit commit -m msg");
        alt(&mut editor, 'b');
        alt(&mut editor, 'b');
        ctrl(&mut editor, 'k');
        assert_eq!(editor.text(), "one\ngit commit ");
        ctrl(&mut editor, 'a');
        alt(&mut editor, 'd');
        assert_eq!(editor.text(), "one\n commit ");
        ctrl(&mut editor, 'e');
        ctrl(&mut editor, 'u');
        assert_eq!(
            editor.text(),
            "one\n",
            "Ctrl-U kills the line, not the draft"
        );
        alt(&mut editor, 'f');
        assert_eq!(editor.cursor(), (1, 0));
        press(&mut editor, KeyCode::Left, KeyModifiers::CONTROL);
        assert_eq!(editor.cursor(), (0, 3));
        press(&mut editor, KeyCode::Right, KeyModifiers::CONTROL);
        assert_eq!(editor.cursor(), (1, 0));
        press(&mut editor, KeyCode::Backspace, KeyModifiers::ALT);
        assert_eq!(editor.text(), "one");
        press(&mut editor, KeyCode::Home, KeyModifiers::NONE);
        press(&mut editor, KeyCode::Delete, KeyModifiers::CONTROL);
        assert!(editor.is_empty());
    }

    #[test]
    fn undo_and_redo_however_the_terminal_reports_them() {
        let undos = [
            (KeyCode::Char('z'), KeyModifiers::CONTROL),
            (KeyCode::Char('_'), KeyModifiers::CONTROL),
            (
                KeyCode::Char('_'),
                KeyModifiers::CONTROL | KeyModifiers::SHIFT,
            ),
            (KeyCode::Char('7'), KeyModifiers::CONTROL),
            (KeyCode::Char('/'), KeyModifiers::CONTROL),
        ];
        let redos = [
            (KeyCode::Char('z'), KeyModifiers::ALT),
            (
                KeyCode::Char('Z'),
                KeyModifiers::CONTROL | KeyModifiers::SHIFT,
            ),
            (
                KeyCode::Char('z'),
                KeyModifiers::CONTROL | KeyModifiers::SHIFT,
            ),
            (KeyCode::Char('Z'), KeyModifiers::CONTROL),
        ];
        for (code, modifiers) in undos {
            let mut editor = typed("word");
            assert!(press(&mut editor, code, modifiers));
            assert!(editor.is_empty(), "{code:?} {modifiers:?} undoes");
            for (code, modifiers) in redos {
                assert!(press(&mut editor, code, modifiers));
                assert_eq!(editor.text(), "word", "{code:?} {modifiers:?} redoes");
                editor.undo();
            }
        }
    }

    #[test]
    fn up_and_down_edit_only_a_multiline_field() {
        let mut editor = Editor::from_text("a\nb");
        assert!(!edit(
            &mut editor,
            &KeyEvent::new(KeyCode::Up, KeyModifiers::NONE),
            false
        ));
        assert!(press(&mut editor, KeyCode::Up, KeyModifiers::NONE));
        assert_eq!(editor.cursor(), (0, 1));
    }
}
