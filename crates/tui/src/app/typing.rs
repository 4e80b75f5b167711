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

use super::keymap::Chord;
use crate::model::editor::Editor;

/// What an editing key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edit {
    Left,
    Right,
    WordLeft,
    WordRight,
    Home,
    End,
    Backspace,
    Delete,
    KillWordBack,
    KillWordForward,
    KillToLineStart,
    KillToLineEnd,
    Yank,
    Undo,
    Redo,
}

impl Edit {
    /// What the help says the key does.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Edit::Left => "Move a character left",
            Edit::Right => "Move a character right",
            Edit::WordLeft => "Move a word left",
            Edit::WordRight => "Move a word right",
            Edit::Home => "Go to the start of the line",
            Edit::End => "Go to the end of the line",
            Edit::Backspace => "Delete the character before the cursor",
            Edit::Delete => "Delete the character after the cursor",
            Edit::KillWordBack => "Cut the word before the cursor",
            Edit::KillWordForward => "Cut the word after the cursor",
            Edit::KillToLineStart => "Cut to the start of the line (at it, the line break)",
            Edit::KillToLineEnd => "Cut to the end of the line (at it, the line break)",
            Edit::Yank => "Put back what was cut last",
            Edit::Undo => "Undo: a paste at once, typing a word at a time",
            Edit::Redo => "Redo what was undone",
        }
    }
}

/// The editing keys the help lists, in its order; [`edit_of`] gives each its edit (a test
/// holds them to it). Other spellings terminals send for the same keys work too, unlisted.
pub(crate) fn keys() -> Vec<(Chord, Edit)> {
    let with = |code, modifiers| Chord { code, modifiers };
    let (ctrl, alt) = (KeyModifiers::CONTROL, KeyModifiers::ALT);
    vec![
        (Chord::plain(KeyCode::Left), Edit::Left),
        (Chord::plain(KeyCode::Right), Edit::Right),
        (Chord::alt(KeyCode::Char('b')), Edit::WordLeft),
        (with(KeyCode::Left, ctrl), Edit::WordLeft),
        (Chord::alt(KeyCode::Char('f')), Edit::WordRight),
        (with(KeyCode::Right, ctrl), Edit::WordRight),
        (Chord::plain(KeyCode::Home), Edit::Home),
        (Chord::ctrl('a'), Edit::Home),
        (Chord::plain(KeyCode::End), Edit::End),
        (Chord::ctrl('e'), Edit::End),
        (Chord::plain(KeyCode::Backspace), Edit::Backspace),
        (Chord::plain(KeyCode::Delete), Edit::Delete),
        (Chord::ctrl('w'), Edit::KillWordBack),
        (Chord::alt(KeyCode::Backspace), Edit::KillWordBack),
        (Chord::alt(KeyCode::Char('d')), Edit::KillWordForward),
        (with(KeyCode::Delete, ctrl), Edit::KillWordForward),
        (Chord::ctrl('u'), Edit::KillToLineStart),
        (Chord::ctrl('k'), Edit::KillToLineEnd),
        (Chord::ctrl('y'), Edit::Yank),
        (Chord::ctrl('z'), Edit::Undo),
        (Chord::ctrl('_'), Edit::Undo),
        (with(KeyCode::Char('z'), alt), Edit::Redo),
    ]
}

/// The help's lines for the editing keys: each edit with all its keys, in [`keys`] order.
pub(crate) fn help() -> Vec<(String, String)> {
    let mut lines: Vec<(Edit, Vec<String>)> = Vec::new();
    for (chord, edit) in keys() {
        match lines.iter_mut().find(|(e, _)| *e == edit) {
            Some((_, keys)) => keys.push(chord.to_string()),
            None => lines.push((edit, vec![chord.to_string()])),
        }
    }
    lines
        .into_iter()
        .map(|(edit, keys)| (keys.join(" "), edit.describe().to_string()))
        .collect()
}

/// The edit a key makes in any text field (not ↑/↓, which only a field of many lines takes).
pub(crate) fn edit_of(key: &KeyEvent) -> Option<Edit> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    Some(match key.code {
        KeyCode::Char(c) if ctrl || alt => return chord(c, key.modifiers),
        KeyCode::Backspace if ctrl || alt => Edit::KillWordBack,
        KeyCode::Backspace => Edit::Backspace,
        KeyCode::Delete if ctrl || alt => Edit::KillWordForward,
        KeyCode::Delete => Edit::Delete,
        KeyCode::Left if ctrl || alt => Edit::WordLeft,
        KeyCode::Right if ctrl || alt => Edit::WordRight,
        KeyCode::Left => Edit::Left,
        KeyCode::Right => Edit::Right,
        KeyCode::Home => Edit::Home,
        KeyCode::End => Edit::End,
        _ => return None,
    })
}

/// How a field lays its text out, which decides what ↑/↓ do in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// One line: ↑/↓ are not its keys.
    OneLine,
    /// Lines wrapped into rows of this many columns (`look::soft_wrap`): ↑/↓ move a row.
    Rows(usize),
}

/// Applies an editing key; returns true when the key was one (even if there was nothing to
/// do, like Ctrl-Z with nothing to undo), false when it is no editing key at all.
pub(crate) fn edit(editor: &mut Editor, key: &KeyEvent, shape: Shape) -> bool {
    if key.kind == KeyEventKind::Release {
        return false;
    }
    let plain = !key
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    match key.code {
        KeyCode::Char(c) if plain => editor.insert_char(c),
        KeyCode::Up => match shape {
            Shape::Rows(width) => editor.up_row(width),
            Shape::OneLine => return false,
        },
        KeyCode::Down => match shape {
            Shape::Rows(width) => editor.down_row(width),
            Shape::OneLine => return false,
        },
        _ => match edit_of(key) {
            Some(edit) => apply(editor, edit),
            None => return false,
        },
    }
    true
}

fn apply(editor: &mut Editor, edit: Edit) {
    match edit {
        Edit::Left => editor.left(),
        Edit::Right => editor.right(),
        Edit::WordLeft => editor.word_left(),
        Edit::WordRight => editor.word_right(),
        Edit::Home => editor.home(),
        Edit::End => editor.end(),
        Edit::Backspace => editor.backspace(),
        Edit::Delete => editor.delete(),
        Edit::KillWordBack => editor.kill_word_back(),
        Edit::KillWordForward => editor.kill_word_forward(),
        Edit::KillToLineStart => editor.kill_to_line_start(),
        Edit::KillToLineEnd => editor.kill_to_line_end(),
        Edit::Yank => editor.yank(),
        Edit::Undo => {
            editor.undo();
        }
        Edit::Redo => {
            editor.redo();
        }
    }
}

/// A Ctrl or Alt chord on a char. Terminals differ in how they report these: Ctrl-_ comes as
/// Ctrl-7 from a legacy terminal (it sends 0x1F, which crossterm reads as Ctrl-7) and as Ctrl-_
/// (maybe with Shift) or Ctrl-/ from one with the kitty protocol; Ctrl-Shift-Z only reaches us
/// with the kitty protocol, as Ctrl-Z or Ctrl-z with Shift. Other chords are commands somewhere
/// else, never text.
fn chord(c: char, modifiers: KeyModifiers) -> Option<Edit> {
    let ctrl = modifiers.contains(KeyModifiers::CONTROL);
    let shift = modifiers.contains(KeyModifiers::SHIFT) || c.is_ascii_uppercase();
    Some(match (ctrl, c.to_ascii_lowercase()) {
        (true, 'z') if shift => Edit::Redo,
        (true, 'z' | '_' | '7' | '/') => Edit::Undo,
        (true, 'u') => Edit::KillToLineStart,
        (true, 'k') => Edit::KillToLineEnd,
        (true, 'w') => Edit::KillWordBack,
        (true, 'y') => Edit::Yank,
        (true, 'a') => Edit::Home,
        (true, 'e') => Edit::End,
        (false, 'z') => Edit::Redo,
        (false, 'd') => Edit::KillWordForward,
        (false, 'b') => Edit::WordLeft,
        (false, 'f') => Edit::WordRight,
        _ => return None,
    })
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
        edit(editor, &KeyEvent::new(code, modifiers), Shape::Rows(80))
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
    fn every_key_the_help_lists_makes_its_edit() {
        for (chord, edit) in keys() {
            let key = KeyEvent::new(chord.code, chord.modifiers);
            assert_eq!(edit_of(&key), Some(edit), "{chord}");
            assert_eq!(
                Chord::parse(&chord.to_string()),
                Ok(chord),
                "{chord} reads back"
            );
        }
        let help = help();
        assert!(help.contains(&("Ctrl-Z Ctrl-_".into(), Edit::Undo.describe().into())));
        assert_eq!(help.len(), 15, "one line per edit");
    }

    #[test]
    fn up_and_down_edit_only_a_multiline_field() {
        let mut editor = Editor::from_text("a\nb");
        assert!(!edit(
            &mut editor,
            &KeyEvent::new(KeyCode::Up, KeyModifiers::NONE),
            Shape::OneLine
        ));
        assert!(press(&mut editor, KeyCode::Up, KeyModifiers::NONE));
        assert_eq!(editor.cursor(), (0, 1));
    }

    #[test]
    fn up_and_down_move_between_the_rows_a_long_line_wraps_into() {
        let mut editor = Editor::from_text("the quick brown fox jumps");
        let rows = |editor: &Editor| editor.rows(10).1;
        // "the quick " / "brown fox " / "jumps"
        assert_eq!(rows(&editor), (2, 5));
        let up = KeyEvent::new(KeyCode::Up, KeyModifiers::NONE);
        let down = KeyEvent::new(KeyCode::Down, KeyModifiers::NONE);
        assert!(edit(&mut editor, &up, Shape::Rows(10)));
        assert_eq!(rows(&editor), (1, 5));
        assert_eq!(editor.split_at_cursor().1, " fox jumps");
        assert!(edit(&mut editor, &up, Shape::Rows(10)));
        assert_eq!(rows(&editor), (0, 5));
        assert!(edit(&mut editor, &up, Shape::Rows(10)));
        assert_eq!(rows(&editor), (0, 0), "on the first row, to its start");
        for _ in 0..9 {
            editor.right();
        }
        assert_eq!(rows(&editor), (0, 9));
        // Column 9 is past "jumps": the last row's end; the middle row keeps its own last
        // column, as its end is the next row's start.
        assert!(edit(&mut editor, &down, Shape::Rows(10)));
        assert_eq!(rows(&editor), (1, 9));
        assert!(edit(&mut editor, &down, Shape::Rows(10)));
        assert_eq!(rows(&editor), (2, 5));
        assert!(edit(&mut editor, &down, Shape::Rows(10)));
        assert_eq!(
            editor.split_at_cursor().1,
            "",
            "on the last row, to the end"
        );
    }
}
