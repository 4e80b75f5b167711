//! Every text field of the phone: lines of text, a cursor, a kill ring and an undo history.
//! The message box, card answers and form fields, the DSH forms, the rename prompt and the
//! list filters all edit through it, so the same keys do the same everywhere.
//!
//! Hand-written: ratatui-textarea 0.9.4 supports ratatui 0.30 (through ratatui-core), but it
//! places its cursor by char (`chars().count()`), so Backspace after `✍️` (U+270D U+FE0F) would
//! leave a lone U+FE0F. Here the cursor moves by extended grapheme cluster and never stands
//! inside one; columns on screen are display widths as `look::wrap::width` measures them.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::ops::Range;

use unicode_segmentation::{GraphemeCursor, UnicodeSegmentation};

use crate::text::soft_wrap::{self, Row};
use crate::text::wrap::width as text_width;

/// Undo keeps at most this many steps: the oldest go first.
pub const UNDO_STEPS: usize = 200;

/// Undo keeps at most this many bytes of text (removed and inserted, undo and redo together),
/// so a few 40 KiB pastes cannot make one draft hold megabytes. The oldest steps go first; a
/// single step bigger than this is not kept at all, and so cannot be undone.
pub const UNDO_BYTES: usize = 256 * 1024;

/// A place in the text: a line, and a byte offset in it on a grapheme boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    row: usize,
    byte: usize,
}

impl Pos {
    /// Where `text` ends once it is put at `self`.
    fn after(self, text: &str) -> Pos {
        match text.rfind('\n') {
            None => Pos {
                row: self.row,
                byte: self.byte + text.len(),
            },
            Some(last) => Pos {
                row: self.row + text.bytes().filter(|b| *b == b'\n').count(),
                byte: text.len() - last - 1,
            },
        }
    }
}

/// One replacement: at `at`, `removed` gave way to `inserted`.
#[derive(Debug, Clone)]
struct Edit {
    at: Pos,
    removed: String,
    inserted: String,
}

impl Edit {
    fn bytes(&self) -> usize {
        self.removed.len() + self.inserted.len()
    }
}

/// What one undo takes back: edits in the order they were made, the cursor before and after.
#[derive(Debug, Clone)]
struct Step {
    edits: Vec<Edit>,
    before: Pos,
    after: Pos,
}

impl Step {
    fn bytes(&self) -> usize {
        self.edits.iter().map(Edit::bytes).sum()
    }

    /// Adds an edit made right after the others, folded into the last one when it continues
    /// it (a run of typing or of deleting), so a long run stays one edit.
    fn push(&mut self, edit: Edit) {
        if let Some(last) = self.edits.last_mut() {
            let both_insert = last.removed.is_empty() && edit.removed.is_empty();
            if both_insert && last.at.after(&last.inserted) == edit.at {
                last.inserted.push_str(&edit.inserted);
                return;
            }
            let both_remove = last.inserted.is_empty() && edit.inserted.is_empty();
            if both_remove && edit.at.after(&edit.removed) == last.at {
                last.removed.insert_str(0, &edit.removed);
                last.at = edit.at;
                return;
            }
            if both_remove && edit.at == last.at {
                last.removed.push_str(&edit.removed);
                return;
            }
        }
        self.edits.push(edit);
    }
}

/// The kind of a change: it decides which changes share an undo step and which kills share the
/// kill ring's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// One typed char; `space` when it was whitespace. A run of typing is one step, and a word
    /// typed after spaces starts the next one.
    Typing {
        space: bool,
    },
    Backspace,
    Delete,
    /// A kill is a step of its own; kills in a row add to one ring entry.
    Kill,
    /// A paste, a step of its own.
    Paste,
    /// The next piece of the paste before it: a paste without markers comes in pieces (in
    /// chunks, and over a slow link in bursts), and all of them are one step.
    PastePiece,
    /// A step of its own: a new line, a yank, taking the text.
    Single,
}

#[derive(Debug, Clone)]
pub struct Editor {
    /// Never empty: an empty editor has one empty line.
    lines: Vec<String>,
    cursor: Pos,
    /// The display column up and down aim for, kept across short lines.
    goal_column: Option<usize>,
    undo: VecDeque<Step>,
    redo: Vec<Step>,
    /// Text bytes held by `undo` and `redo`, against [`UNDO_BYTES`].
    history_bytes: usize,
    /// The last change, while nothing but changes came after it: typing and deleting runs
    /// continue its undo step, a kill continues its ring entry. A move, an undo or a redo
    /// ends it.
    last: Option<Kind>,
    /// The kill ring's one entry, what Ctrl-Y puts back. One is enough: there is no yank-pop
    /// (Alt-Y) to reach older kills.
    killed: String,
    /// Changes to the text so far, so the rows below know when they are old.
    changes: u64,
    /// The rows last cut ([`Editor::rows`]), so a 32 KiB draft is not cut whole several times a
    /// frame and at every piece of a paste that comes as keys (which made one take minutes).
    rows_memo: RefCell<RowsMemo>,
}

/// What [`Editor::rows`] cut last: at which width and after how many changes, and each line's
/// rows by its text, so a change cuts only the lines it touched.
#[derive(Debug, Clone, Default)]
struct RowsMemo {
    width: usize,
    changes: u64,
    rows: Vec<Row>,
    lines: HashMap<String, Vec<Range<usize>>>,
}

impl Default for Editor {
    fn default() -> Self {
        Editor {
            lines: vec![String::new()],
            cursor: Pos { row: 0, byte: 0 },
            goal_column: None,
            undo: VecDeque::new(),
            redo: Vec::new(),
            history_bytes: 0,
            last: None,
            killed: String::new(),
            changes: 0,
            rows_memo: RefCell::new(RowsMemo::default()),
        }
    }
}

impl Editor {
    pub fn new() -> Self {
        Self::default()
    }

    /// An editor holding `text`, the cursor at its end. Undo stops at `text`: it is where the
    /// field started, not something the person typed.
    pub fn from_text(text: &str) -> Self {
        let mut editor = Self::new();
        editor.insert_str(text);
        editor.undo.clear();
        editor.history_bytes = 0;
        editor.last = None;
        editor
    }

    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// The text, leaving the editor empty. Taking it is an undo step like any change, so the
    /// kill ring and the history stay (unlike [`Editor::clear`]).
    pub fn take_text(&mut self) -> String {
        let text = self.text();
        if !text.is_empty() {
            let end = self.end_of_text();
            self.change(Pos { row: 0, byte: 0 }, end, "", Kind::Single);
        }
        text
    }

    pub fn is_empty(&self) -> bool {
        self.lines.len() == 1 && self.lines[0].is_empty()
    }

    /// Bytes of [`Editor::text`] as UTF-8, for the 32 KiB limit on what the phone sends (SPEC L).
    pub fn byte_len(&self) -> usize {
        self.lines.iter().map(String::len).sum::<usize>() + self.lines.len() - 1
    }

    /// Types a char. A combining mark, VS16 or ZWJ joins the grapheme before it, and the cursor
    /// stays after the whole of it.
    pub fn insert_char(&mut self, c: char) {
        if c == '\n' {
            self.newline();
            return;
        }
        if c.is_control() {
            return;
        }
        let mut buffer = [0; 4];
        let at = self.cursor;
        self.change(
            at,
            at,
            c.encode_utf8(&mut buffer),
            Kind::Typing {
                space: c.is_whitespace(),
            },
        );
    }

    /// Pastes text as one undo step: newlines stay ('\r\n' and a lone '\r' become '\n'), tabs
    /// become spaces, other control characters are dropped. The text is cleaned in one pass and
    /// put in at once, so a 32 KiB paste costs one pass, not one per char.
    pub fn insert_str(&mut self, s: &str) {
        self.paste_as(s, Kind::Paste);
    }

    /// Pastes the next piece of the paste just before it, in the same undo step when nothing
    /// came between them (else as [`Editor::insert_str`]).
    pub fn insert_piece(&mut self, s: &str) {
        self.paste_as(s, Kind::PastePiece);
    }

    fn paste_as(&mut self, s: &str, kind: Kind) {
        let cleaned = clean(s);
        if cleaned.is_empty() {
            return;
        }
        let at = self.cursor;
        self.change(at, at, &cleaned, kind);
    }

    pub fn newline(&mut self) {
        let at = self.cursor;
        self.change(at, at, "\n", Kind::Single);
    }

    /// Deletes the grapheme before the cursor; at the start of a line, joins it to the line
    /// above. Backspaces in a row are one undo step.
    pub fn backspace(&mut self) {
        let Some(start) = self.before_cursor() else {
            return;
        };
        let end = self.cursor;
        self.change(start, end, "", Kind::Backspace);
    }

    /// Deletes the grapheme under the cursor; at the end of a line, joins the next line to it.
    /// Deletes in a row are one undo step.
    pub fn delete(&mut self) {
        let Some(end) = self.after_cursor() else {
            return;
        };
        let start = self.cursor;
        self.change(start, end, "", Kind::Delete);
    }

    pub fn left(&mut self) {
        if let Some(pos) = self.before_cursor() {
            self.move_to(pos);
        }
    }

    pub fn right(&mut self) {
        if let Some(pos) = self.after_cursor() {
            self.move_to(pos);
        }
    }

    /// Up a line, keeping the display column; on the first line, to its start.
    pub fn up(&mut self) {
        if self.cursor.row == 0 {
            self.home();
            return;
        }
        let goal = self.goal();
        let row = self.cursor.row - 1;
        self.move_to(Pos {
            row,
            byte: byte_at_column(&self.lines[row], goal),
        });
        self.goal_column = Some(goal);
    }

    /// Down a line, keeping the display column; on the last line, to its end.
    pub fn down(&mut self) {
        if self.cursor.row + 1 >= self.lines.len() {
            self.end();
            return;
        }
        let goal = self.goal();
        let row = self.cursor.row + 1;
        self.move_to(Pos {
            row,
            byte: byte_at_column(&self.lines[row], goal),
        });
        self.goal_column = Some(goal);
    }

    /// The text cut into rows of `width` columns (`look::soft_wrap`), and the cursor's row and
    /// display column in them: a box that grows with its text draws these.
    pub fn rows(&self, width: usize) -> (Vec<Row>, (usize, usize)) {
        let mut memo = self.rows_memo.borrow_mut();
        if memo.width != width || memo.changes != self.changes || memo.rows.is_empty() {
            let mut known = std::mem::take(&mut memo.lines);
            if memo.width != width {
                known.clear();
            }
            let mut rows = Vec::with_capacity(self.lines.len());
            let mut lines = HashMap::with_capacity(self.lines.len());
            for (index, text) in self.lines.iter().enumerate() {
                let ranges = match known.remove(text).or_else(|| lines.get(text).cloned()) {
                    Some(ranges) => ranges,
                    None => soft_wrap::line_rows(text, width),
                };
                rows.extend(ranges.iter().map(|bytes| Row {
                    line: index,
                    bytes: bytes.clone(),
                }));
                lines.insert(text.clone(), ranges);
            }
            *memo = RowsMemo {
                width,
                changes: self.changes,
                rows,
                lines,
            };
        }
        let rows = memo.rows.clone();
        let at = soft_wrap::locate(&rows, &self.lines, self.cursor.row, self.cursor.byte);
        (rows, at)
    }

    /// Up a row of the text wrapped at `width` columns, keeping the display column; on the
    /// first row, to its start.
    pub fn up_row(&mut self, width: usize) {
        self.step_row(width, false);
    }

    /// Down a row of the text wrapped at `width` columns, keeping the display column; on the
    /// last row, to the end of the text.
    pub fn down_row(&mut self, width: usize) {
        self.step_row(width, true);
    }

    fn step_row(&mut self, width: usize, down: bool) {
        let (rows, (index, column)) = self.rows(width);
        let goal = self.goal_column.unwrap_or(column);
        let target = if down {
            index + 1
        } else {
            match index.checked_sub(1) {
                Some(target) => target,
                None => return self.home(),
            }
        };
        let Some(row) = rows.get(target) else {
            return self.move_to(self.end_of_text());
        };
        let byte = soft_wrap::byte_at(&rows, &self.lines, target, goal);
        self.move_to(Pos {
            row: row.line,
            byte,
        });
        self.goal_column = Some(goal);
    }

    pub fn home(&mut self) {
        self.move_to(Pos {
            row: self.cursor.row,
            byte: 0,
        });
    }

    pub fn end(&mut self) {
        self.move_to(self.line_end());
    }

    /// To the start of the word before the cursor; at the start of a line, to the end of the
    /// line above. Words are runs of graphemes that are not whitespace, as for Ctrl-W.
    pub fn word_left(&mut self) {
        match self.word_start_before() {
            Some(pos) => self.move_to(pos),
            None => self.left(),
        }
    }

    /// To the end of the word after the cursor; at the end of a line, to the start of the next.
    pub fn word_right(&mut self) {
        match self.word_end_after() {
            Some(pos) => self.move_to(pos),
            None => self.right(),
        }
    }

    /// Ctrl-U: kills from the start of the line to the cursor. At the start of a line it kills
    /// the line break before it, joining the line to the one above, so Ctrl-U held down eats
    /// the text upwards a line at a time (and Ctrl-Y brings it all back).
    pub fn kill_to_line_start(&mut self) {
        let start = if self.cursor.byte > 0 {
            Pos {
                row: self.cursor.row,
                byte: 0,
            }
        } else {
            match self.before_cursor() {
                Some(pos) => pos,
                None => return,
            }
        };
        self.kill(start, self.cursor, true);
    }

    /// Ctrl-K: kills from the cursor to the end of the line; at the end of a line, kills the
    /// line break, joining the next line to it.
    pub fn kill_to_line_end(&mut self) {
        let end = if self.cursor.byte < self.line().len() {
            self.line_end()
        } else {
            match self.after_cursor() {
                Some(pos) => pos,
                None => return,
            }
        };
        self.kill(self.cursor, end, false);
    }

    /// Ctrl-W: kills from the start of the word before the cursor to the cursor; at the start
    /// of a line, kills the line break before it.
    pub fn kill_word_back(&mut self) {
        let Some(start) = self.word_start_before().or_else(|| self.before_cursor()) else {
            return;
        };
        self.kill(start, self.cursor, true);
    }

    /// Alt-D: kills from the cursor to the end of the word after it; at the end of a line,
    /// kills the line break after it.
    pub fn kill_word_forward(&mut self) {
        let Some(end) = self.word_end_after().or_else(|| self.after_cursor()) else {
            return;
        };
        self.kill(self.cursor, end, false);
    }

    /// Ctrl-Y: puts back what the last kills took, at the cursor, the cursor after it.
    pub fn yank(&mut self) {
        if self.killed.is_empty() {
            return;
        }
        let text = self.killed.clone();
        let at = self.cursor;
        self.change(at, at, &text, Kind::Single);
    }

    /// Takes back the last step; false when there is none.
    pub fn undo(&mut self) -> bool {
        let Some(step) = self.undo.pop_back() else {
            return false;
        };
        for edit in step.edits.iter().rev() {
            self.splice(edit.at, edit.at.after(&edit.inserted), &edit.removed);
        }
        self.cursor = step.before;
        self.redo.push(step);
        self.goal_column = None;
        self.last = None;
        true
    }

    /// Makes the last undone step again; false when there is none (any change after an undo
    /// forgets what was undone).
    pub fn redo(&mut self) -> bool {
        let Some(step) = self.redo.pop() else {
            return false;
        };
        for edit in &step.edits {
            self.splice(edit.at, edit.at.after(&edit.removed), &edit.inserted);
        }
        self.cursor = step.after;
        self.undo.push_back(step);
        self.goal_column = None;
        self.last = None;
        true
    }

    /// Puts `text` in place of the whole text as one undo step, the cursor at its end: what the
    /// person's own editor saved (docs/KEYS.md, "The person's editor"). Cleaned as a paste is.
    pub fn replace_text(&mut self, text: &str) {
        let cleaned = clean(text);
        if cleaned == self.text() {
            return;
        }
        let end = self.end_of_text();
        self.change(Pos { row: 0, byte: 0 }, end, &cleaned, Kind::Single);
    }

    /// Empties the editor and forgets its history and kill ring: a fresh field.
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    pub fn lines(&self) -> Vec<String> {
        self.lines.clone()
    }

    /// The cursor's line, split at the cursor: for a one-line field drawn with a caret glyph.
    pub fn split_at_cursor(&self) -> (&str, &str) {
        self.line().split_at(self.cursor.byte)
    }

    /// (row, display column) of the cursor, for placing the terminal cursor.
    pub fn cursor(&self) -> (usize, usize) {
        (self.cursor.row, self.display_col())
    }

    fn line(&self) -> &str {
        &self.lines[self.cursor.row]
    }

    fn line_end(&self) -> Pos {
        Pos {
            row: self.cursor.row,
            byte: self.line().len(),
        }
    }

    fn end_of_text(&self) -> Pos {
        let row = self.lines.len() - 1;
        Pos {
            row,
            byte: self.lines[row].len(),
        }
    }

    fn move_to(&mut self, pos: Pos) {
        self.cursor = pos;
        self.goal_column = None;
        self.last = None;
    }

    /// The place one grapheme (or one line break) before the cursor.
    fn before_cursor(&self) -> Option<Pos> {
        let Pos { row, byte } = self.cursor;
        if byte > 0 {
            Some(Pos {
                row,
                byte: previous_boundary(self.line(), byte),
            })
        } else if row > 0 {
            Some(Pos {
                row: row - 1,
                byte: self.lines[row - 1].len(),
            })
        } else {
            None
        }
    }

    /// The place one grapheme (or one line break) after the cursor.
    fn after_cursor(&self) -> Option<Pos> {
        let Pos { row, byte } = self.cursor;
        if byte < self.line().len() {
            Some(Pos {
                row,
                byte: next_boundary(self.line(), byte),
            })
        } else if row + 1 < self.lines.len() {
            Some(Pos {
                row: row + 1,
                byte: 0,
            })
        } else {
            None
        }
    }

    /// The start of the word before the cursor in its line; None at the line's start.
    fn word_start_before(&self) -> Option<Pos> {
        let Pos { row, byte } = self.cursor;
        if byte == 0 {
            return None;
        }
        let mut start = byte;
        let mut in_word = false;
        for (index, grapheme) in self.line()[..byte].grapheme_indices(true).rev() {
            let blank = is_blank(grapheme);
            if blank && in_word {
                break;
            }
            in_word |= !blank;
            start = index;
        }
        Some(Pos { row, byte: start })
    }

    /// The end of the word after the cursor in its line; None at the line's end.
    fn word_end_after(&self) -> Option<Pos> {
        let Pos { row, byte } = self.cursor;
        let line = self.line();
        if byte >= line.len() {
            return None;
        }
        let mut end = byte;
        let mut in_word = false;
        for (index, grapheme) in line[byte..].grapheme_indices(true) {
            let blank = is_blank(grapheme);
            if blank && in_word {
                break;
            }
            in_word |= !blank;
            end = byte + index + grapheme.len();
        }
        Some(Pos { row, byte: end })
    }

    /// Kills the text from `start` to `end` into the ring: a kill right after a kill adds to
    /// the same entry, before it when `backward` (Ctrl-U, Ctrl-W), after it otherwise.
    fn kill(&mut self, start: Pos, end: Pos, backward: bool) {
        if start == end {
            return;
        }
        let continues = self.last == Some(Kind::Kill);
        let removed = self.change(start, end, "", Kind::Kill);
        if !continues {
            self.killed.clear();
        }
        if backward {
            self.killed.insert_str(0, &removed);
        } else {
            self.killed.push_str(&removed);
        }
    }

    /// Replaces the text from `start` to `end` with `text` (already clean) as a change of
    /// `kind`, recorded for undo; the cursor goes after the new text, and after the grapheme
    /// the new text may have joined. Returns the text that was there.
    fn change(&mut self, start: Pos, end: Pos, text: &str, kind: Kind) -> String {
        let before = self.cursor;
        let removed = self.splice(start, end, text);
        let end_of_new = start.after(text);
        let after = Pos {
            row: end_of_new.row,
            byte: boundary_at_or_after(&self.lines[end_of_new.row], end_of_new.byte),
        };
        self.cursor = after;
        self.goal_column = None;
        let edit = Edit {
            at: start,
            removed: removed.clone(),
            inserted: text.to_string(),
        };
        self.record(edit, before, after, kind);
        self.last = Some(kind);
        removed
    }

    /// Replaces the text from `start` to `end` with `text`; returns the text that was there.
    fn splice(&mut self, start: Pos, end: Pos, text: &str) -> String {
        self.changes += 1;
        if start.row == end.row && !text.contains('\n') {
            let line = &mut self.lines[start.row];
            let removed = line[start.byte..end.byte].to_string();
            line.replace_range(start.byte..end.byte, text);
            return removed;
        }
        let removed = self.text_between(start, end);
        let tail = self.lines[end.row][end.byte..].to_string();
        let mut pieces = text.split('\n');
        let mut first = self.lines[start.row][..start.byte].to_string();
        first.push_str(pieces.next().unwrap_or_default());
        let mut new_lines = vec![first];
        new_lines.extend(pieces.map(str::to_string));
        if let Some(last) = new_lines.last_mut() {
            last.push_str(&tail);
        }
        self.lines.splice(start.row..=end.row, new_lines);
        removed
    }

    fn text_between(&self, start: Pos, end: Pos) -> String {
        if start.row == end.row {
            return self.lines[start.row][start.byte..end.byte].to_string();
        }
        let mut out = self.lines[start.row][start.byte..].to_string();
        for line in &self.lines[start.row + 1..end.row] {
            out.push('\n');
            out.push_str(line);
        }
        out.push('\n');
        out.push_str(&self.lines[end.row][..end.byte]);
        out
    }

    /// Records an edit: in the last step when it continues a run, else as a new step; then
    /// keeps the history within its bounds.
    fn record(&mut self, edit: Edit, before: Pos, after: Pos, kind: Kind) {
        // A change after an undo makes the undone steps unreachable.
        for step in self.redo.drain(..) {
            self.history_bytes -= step.bytes();
        }
        self.history_bytes += edit.bytes();
        let continues = match (self.last, kind) {
            (Some(Kind::Typing { space: was_space }), Kind::Typing { space }) => {
                !was_space || space
            }
            (Some(Kind::Backspace), Kind::Backspace)
            | (Some(Kind::Delete), Kind::Delete)
            | (Some(Kind::Paste | Kind::PastePiece), Kind::PastePiece) => true,
            _ => false,
        };
        match self.undo.back_mut() {
            Some(step) if continues && step.after == before => {
                step.push(edit);
                step.after = after;
            }
            _ => self.undo.push_back(Step {
                edits: vec![edit],
                before,
                after,
            }),
        }
        while self.undo.len() > UNDO_STEPS || self.history_bytes > UNDO_BYTES {
            let Some(oldest) = self.undo.pop_front() else {
                break;
            };
            self.history_bytes -= oldest.bytes();
        }
    }

    fn display_col(&self) -> usize {
        text_width(&self.line()[..self.cursor.byte])
    }

    fn goal(&self) -> usize {
        self.goal_column.unwrap_or_else(|| self.display_col())
    }
}

/// `s` as an editor holds text: '\r\n' and a lone '\r' become '\n', tabs become spaces, other
/// control characters go.
fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push('\n');
            }
            '\n' => out.push('\n'),
            '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Whether a grapheme separates words.
fn is_blank(grapheme: &str) -> bool {
    grapheme.chars().all(char::is_whitespace)
}

// The grapheme cursors below get the whole line as their one chunk, so they never ask for more
// context; their errors cannot happen, and the fallbacks only keep the types honest.

/// The grapheme boundary after byte `at` of `line` (which must not be its end).
fn next_boundary(line: &str, at: usize) -> usize {
    GraphemeCursor::new(at, line.len(), true)
        .next_boundary(line, 0)
        .ok()
        .flatten()
        .unwrap_or(line.len())
}

/// The grapheme boundary before byte `at` of `line` (which must not be 0).
fn previous_boundary(line: &str, at: usize) -> usize {
    GraphemeCursor::new(at, line.len(), true)
        .prev_boundary(line, 0)
        .ok()
        .flatten()
        .unwrap_or(0)
}

/// `at` when it is a grapheme boundary of `line`, else the boundary after it.
fn boundary_at_or_after(line: &str, at: usize) -> usize {
    match GraphemeCursor::new(at, line.len(), true).is_boundary(line, 0) {
        Ok(false) => next_boundary(line, at),
        _ => at,
    }
}

/// The grapheme boundary of `line` closest to display column `goal` without passing it.
fn byte_at_column(line: &str, goal: usize) -> usize {
    let mut used = 0;
    for (index, grapheme) in line.grapheme_indices(true) {
        let w = text_width(grapheme);
        if used + w > goal {
            return index;
        }
        used += w;
    }
    line.len()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const VS16_EMOJI: &str = "✍️"; // U+270D U+FE0F
    const FAMILY: &str = "👨‍👩‍👧"; // three people joined by ZWJ
    const FLAG: &str = "🇯🇵";
    const E_ACUTE: &str = "e\u{301}"; // e + combining acute

    fn typed(text: &str) -> Editor {
        let mut editor = Editor::new();
        for c in text.chars() {
            editor.insert_char(c);
        }
        editor
    }

    /// The cursor is on a grapheme boundary of its line, and no line holds a control char.
    fn assert_sane(editor: &Editor) {
        assert!(!editor.lines.is_empty());
        let Pos { row, byte } = editor.cursor;
        let line = &editor.lines[row];
        assert!(
            byte == line.len() || line.grapheme_indices(true).any(|(i, _)| i == byte),
            "cursor at byte {byte} of {line:?} is inside a grapheme"
        );
        assert!(
            editor
                .lines
                .iter()
                .all(|l| !l.chars().any(char::is_control))
        );
    }

    #[test]
    fn typing_and_reading_back() {
        let mut editor = Editor::new();
        assert!(editor.is_empty());
        for c in "hi".chars() {
            editor.insert_char(c);
        }
        editor.newline();
        editor.insert_str("there");
        assert_eq!(editor.text(), "hi\nthere");
        assert_eq!(editor.lines(), ["hi", "there"]);
        assert_eq!(editor.cursor(), (1, 5));
        assert!(!editor.is_empty());
        editor.clear();
        assert!(editor.is_empty());
        assert_eq!(editor.cursor(), (0, 0));
        assert!(!editor.undo(), "clear forgets the history");
    }

    #[test]
    fn cjk_cursor_columns_are_display_widths() {
        let mut editor = Editor::from_text("日本語");
        assert_eq!(editor.cursor(), (0, 6));
        editor.left();
        assert_eq!(editor.cursor(), (0, 4));
        editor.insert_char('x');
        assert_eq!(editor.text(), "日本x語");
        assert_eq!(editor.cursor(), (0, 5));
        editor.home();
        editor.right();
        assert_eq!(editor.cursor(), (0, 2));
    }

    #[test]
    fn backspace_after_an_emoji_with_vs16_takes_the_whole_grapheme() {
        let mut editor = Editor::from_text(&format!("a{VS16_EMOJI}"));
        assert_eq!(editor.cursor(), (0, 1 + text_width(VS16_EMOJI)));
        editor.backspace();
        assert_eq!(editor.text(), "a", "no lone U+FE0F is left");
        assert_eq!(editor.cursor(), (0, 1));
        let mut editor = Editor::from_text(VS16_EMOJI);
        editor.home();
        editor.delete();
        assert!(editor.is_empty());
    }

    #[test]
    fn the_cursor_steps_over_zwj_sequences_flags_and_combining_marks_whole() {
        let text = format!("x{FAMILY}{FLAG}{E_ACUTE}日y");
        let mut editor = Editor::from_text(&text);
        editor.home();
        let mut columns = vec![editor.cursor().1];
        for _ in 0..6 {
            editor.right();
            assert_sane(&editor);
            columns.push(editor.cursor().1);
        }
        let widths = ["x", FAMILY, FLAG, E_ACUTE, "日", "y"].map(text_width);
        let mut expected = vec![0];
        for w in widths {
            expected.push(expected.last().copied().unwrap_or(0) + w);
        }
        assert_eq!(columns, expected);
        for _ in 0..6 {
            editor.left();
            assert_sane(&editor);
        }
        assert_eq!(editor.cursor(), (0, 0));
        // Deleting takes each grapheme whole, never a part of one.
        editor.right();
        for rest in [
            format!("x{FLAG}{E_ACUTE}日y"),
            format!("x{E_ACUTE}日y"),
            "x日y".to_string(),
        ] {
            editor.delete();
            assert_eq!(editor.text(), rest);
        }
    }

    #[test]
    fn a_combining_mark_joins_the_letter_before_and_the_cursor_stays_after_it() {
        let mut editor = typed("e");
        editor.insert_char('\u{301}');
        assert_eq!(editor.text(), E_ACUTE);
        assert_eq!(editor.cursor(), (0, 1));
        editor.left();
        assert_eq!(editor.cursor(), (0, 0));
        editor.end();
        editor.backspace();
        assert!(editor.is_empty(), "the letter and its mark go together");
        // A ZWJ typed between two people joins them; the cursor goes after the whole family.
        let mut editor = Editor::from_text("👨👩");
        editor.left();
        editor.insert_char('\u{200d}');
        assert_eq!(editor.text(), "👨\u{200d}👩");
        assert_sane(&editor);
        assert_eq!(editor.cursor(), (0, text_width("👨\u{200d}👩")));
        editor.left();
        assert_eq!(editor.cursor(), (0, 0));
        // A second regional indicator makes a flag of the first.
        let mut editor = typed("🇯");
        editor.insert_char('🇵');
        editor.left();
        assert_eq!(editor.cursor(), (0, 0));
    }

    #[test]
    fn up_and_down_keep_the_display_column() {
        let mut editor = Editor::from_text("abcdef\n日本語です\nxy\nabcdefgh");
        // Row 3, column 8; up to "xy" (end), then up to CJK: column 8 lands after 4 chars.
        editor.up();
        assert_eq!(editor.cursor(), (2, 2));
        editor.up();
        assert_eq!(editor.cursor(), (1, 8));
        editor.up();
        assert_eq!(editor.cursor(), (0, 6));
        editor.down();
        assert_eq!(editor.cursor(), (1, 8));
        editor.down();
        editor.down();
        assert_eq!(editor.cursor(), (3, 8));
        // An odd column in CJK text goes to the grapheme boundary before it.
        let mut editor = Editor::from_text("日本語\nabc");
        editor.up();
        assert_eq!(editor.cursor(), (0, 2));
        editor.down();
        editor.down();
        assert_eq!(editor.cursor(), (1, 3));
        editor.up();
        editor.up();
        assert_eq!(editor.cursor(), (0, 0));
    }

    #[test]
    fn up_and_down_land_between_emoji_graphemes() {
        let emoji = text_width(VS16_EMOJI);
        let mut editor = Editor::from_text(&format!("{VS16_EMOJI}{FAMILY}{VS16_EMOJI}\nabcdefgh"));
        editor.home();
        for _ in 0..emoji + 1 {
            editor.right();
        }
        editor.up();
        assert_sane(&editor);
        assert_eq!(editor.cursor(), (0, emoji));
        editor.down();
        assert_eq!(editor.cursor(), (1, emoji + 1), "the goal column is kept");
    }

    #[test]
    fn paste_turns_crlf_into_newlines_and_drops_control_chars() {
        let editor = Editor::from_text("one\r\ntwo\rthree\u{1b}[31m\tfour\u{7}");
        assert_eq!(editor.text(), "one\ntwo\nthree[31m four");
        assert_eq!(editor.lines().len(), 3);
    }

    #[test]
    fn backspace_at_line_start_joins_lines() {
        let mut editor = Editor::from_text("ab\ncd");
        editor.home();
        editor.backspace();
        assert_eq!(editor.text(), "abcd");
        assert_eq!(editor.cursor(), (0, 2));
        editor.backspace();
        assert_eq!(editor.text(), "acd");
        let mut at_start = Editor::new();
        at_start.backspace();
        at_start.delete();
        assert!(at_start.is_empty());
    }

    #[test]
    fn joining_lines_never_leaves_the_cursor_inside_a_grapheme() {
        // The second line starts with a lone combining mark, which joins the "e" above.
        let mut editor = Editor::from_text("e\n\u{301}x");
        editor.up();
        editor.end();
        editor.delete();
        assert_eq!(editor.text(), "e\u{301}x");
        assert_sane(&editor);
        let mut editor = Editor::from_text("e\n\u{301}x");
        editor.home();
        editor.backspace();
        assert_sane(&editor);
        assert_eq!(editor.cursor(), (0, 1));
    }

    #[test]
    fn delete_at_line_end_joins_the_next_line() {
        let mut editor = Editor::from_text("ab\ncd");
        editor.up();
        editor.end();
        editor.delete();
        assert_eq!(editor.text(), "abcd");
        editor.home();
        editor.delete();
        assert_eq!(editor.text(), "bcd");
    }

    #[test]
    fn word_moves_and_word_kill() {
        let mut editor = Editor::from_text("git commit  -m msg");
        editor.word_left();
        assert_eq!(editor.cursor(), (0, 15));
        editor.word_left();
        editor.word_left();
        assert_eq!(editor.cursor(), (0, 4));
        editor.word_right();
        assert_eq!(editor.cursor(), (0, 10));
        editor.end();
        editor.kill_word_back();
        assert_eq!(editor.text(), "git commit  -m ");
        editor.kill_word_back();
        assert_eq!(editor.text(), "git commit  ");
        let mut lines = Editor::from_text("a\nb");
        lines.home();
        lines.word_left();
        assert_eq!(lines.cursor(), (0, 1));
        lines.word_right();
        assert_eq!(lines.cursor(), (1, 0));
    }

    #[test]
    fn words_are_made_of_graphemes() {
        let text = format!("日本 {VS16_EMOJI}{FLAG} {E_ACUTE}x");
        let mut editor = Editor::from_text(&text);
        editor.word_left();
        assert_eq!(editor.split_at_cursor().1, format!("{E_ACUTE}x"));
        editor.word_left();
        assert_eq!(
            editor.split_at_cursor().1,
            format!("{VS16_EMOJI}{FLAG} {E_ACUTE}x")
        );
        editor.word_right();
        assert_eq!(editor.split_at_cursor().1, format!(" {E_ACUTE}x"));
        editor.kill_word_back();
        assert_eq!(editor.text(), format!("日本  {E_ACUTE}x"));
        editor.kill_word_forward();
        assert_eq!(editor.text(), "日本 ");
    }

    #[test]
    fn ctrl_u_kills_to_the_line_start_then_the_line_break_and_yank_brings_it_back() {
        let mut editor = Editor::from_text("one\ntwo three");
        editor.word_left();
        editor.kill_to_line_start();
        assert_eq!(editor.text(), "one\nthree");
        assert_eq!(editor.cursor(), (1, 0));
        // At column 0 of a line that is not the first, the line break goes: it joins above.
        editor.kill_to_line_start();
        assert_eq!(editor.text(), "onethree");
        assert_eq!(editor.cursor(), (0, 3));
        editor.kill_to_line_start();
        assert_eq!(editor.text(), "three");
        editor.kill_to_line_start();
        assert_eq!(editor.text(), "three", "nothing before the first line");
        // The kills in a row are one entry, in the order the text had.
        editor.yank();
        assert_eq!(editor.text(), "one\ntwo three");
        assert_eq!(editor.cursor(), (1, 4));
    }

    #[test]
    fn ctrl_k_kills_to_the_line_end_then_the_line_break() {
        let mut editor = Editor::from_text("abcd\nef");
        editor.up();
        editor.home();
        editor.right();
        editor.right();
        editor.kill_to_line_end();
        assert_eq!(editor.text(), "ab\nef");
        editor.kill_to_line_end();
        assert_eq!(editor.text(), "abef");
        editor.kill_to_line_end();
        assert_eq!(editor.text(), "ab");
        editor.kill_to_line_end();
        assert_eq!(editor.text(), "ab");
        editor.yank();
        assert_eq!(editor.text(), "abcd\nef");
        assert_eq!(editor.cursor(), (1, 2));
    }

    #[test]
    fn alt_d_kills_words_forward_appending_and_a_move_starts_a_new_entry() {
        let mut editor = Editor::from_text("git commit -m msg");
        editor.home();
        editor.word_right();
        editor.kill_word_forward();
        editor.kill_word_forward();
        assert_eq!(editor.text(), "git msg");
        editor.end();
        editor.yank();
        assert_eq!(editor.text(), "git msg commit -m");
        // After a move, a kill is a new entry.
        editor.home();
        editor.kill_word_forward();
        assert_eq!(editor.text(), " msg commit -m");
        editor.end();
        editor.yank();
        assert_eq!(editor.text(), " msg commit -mgit");
        // A kill at the end of a line takes the line break.
        let mut lines = Editor::from_text("a\nb");
        lines.up();
        lines.end();
        lines.kill_word_forward();
        assert_eq!(lines.text(), "ab");
        let mut nothing = Editor::new();
        nothing.kill_word_forward();
        nothing.kill_word_back();
        nothing.yank();
        assert!(nothing.is_empty());
    }

    #[test]
    fn kills_yank_and_undo_keep_graphemes_whole() {
        let line = format!("日本語 {VS16_EMOJI}{FAMILY} {FLAG}{E_ACUTE}");
        let mut editor = Editor::from_text(&format!("{line}\n{line}"));
        editor.kill_word_back();
        assert_eq!(
            editor.text(),
            format!("{line}\n日本語 {VS16_EMOJI}{FAMILY} ")
        );
        editor.kill_word_back();
        assert_eq!(editor.text(), format!("{line}\n日本語 "));
        editor.left();
        editor.left();
        editor.kill_to_line_end();
        assert_eq!(editor.text(), format!("{line}\n日本"));
        assert_sane(&editor);
        editor.home();
        editor.kill_to_line_start();
        editor.kill_to_line_start();
        assert_eq!(editor.text(), "日本");
        editor.end();
        editor.yank();
        assert_eq!(editor.text(), format!("日本{line}\n"));
        for _ in 0..4 {
            assert!(editor.undo());
            assert_sane(&editor);
        }
        assert_eq!(editor.text(), format!("{line}\n日本語 "));
        // Typing an emoji and its VS16, or a letter and its mark, is part of the run.
        let mut editor = typed(&format!("{VS16_EMOJI}{E_ACUTE}x"));
        assert_eq!(editor.cursor(), (0, text_width(VS16_EMOJI) + 2));
        assert!(editor.undo());
        assert!(editor.is_empty());
    }

    #[test]
    fn a_typed_run_is_one_undo_step_and_a_word_after_a_space_the_next() {
        let mut editor = typed("hello world");
        assert!(editor.undo());
        assert_eq!(editor.text(), "hello ");
        assert_eq!(editor.cursor(), (0, 6));
        assert!(editor.undo());
        assert!(editor.is_empty());
        assert!(!editor.undo());
        assert!(editor.redo());
        assert_eq!(editor.text(), "hello ");
        assert!(editor.redo());
        assert_eq!(editor.text(), "hello world");
        assert_eq!(editor.cursor(), (0, 11));
        assert!(!editor.redo());
        // A move ends the run.
        let mut editor = typed("ab");
        editor.left();
        editor.insert_char('x');
        assert_eq!(editor.text(), "axb");
        editor.undo();
        assert_eq!(editor.text(), "ab");
        assert_eq!(editor.cursor(), (0, 1));
    }

    #[test]
    fn a_paste_a_kill_a_yank_and_a_run_of_backspaces_are_one_step_each() {
        let mut editor = Editor::from_text("start ");
        editor.insert_str("pasted\ntwo lines");
        editor.kill_to_line_start();
        editor.yank();
        editor.backspace();
        editor.backspace();
        editor.backspace();
        assert_eq!(editor.text(), "start pasted\ntwo li");
        editor.undo();
        assert_eq!(editor.text(), "start pasted\ntwo lines");
        editor.undo();
        assert_eq!(editor.text(), "start pasted\n");
        editor.undo();
        assert_eq!(editor.text(), "start pasted\ntwo lines");
        editor.undo();
        assert_eq!(editor.text(), "start ");
        assert!(!editor.undo(), "the text the editor started with stays");
        // Deletes forward in a row are one step too.
        let mut editor = Editor::from_text("abcd");
        editor.home();
        editor.delete();
        editor.delete();
        assert_eq!(editor.text(), "cd");
        editor.undo();
        assert_eq!(editor.text(), "abcd");
        assert_eq!(editor.cursor(), (0, 0));
    }

    #[test]
    fn a_paste_in_pieces_is_one_step_and_typing_after_it_the_next() {
        let piece = "0123456789abcdef\n".repeat(240);
        let mut editor = typed("note: ");
        editor.insert_str(&piece);
        for _ in 1..10 {
            editor.insert_piece(&piece);
        }
        for c in "ok".chars() {
            editor.insert_char(c);
        }
        assert_eq!(editor.byte_len(), 6 + piece.len() * 10 + 2);
        assert!(editor.undo());
        assert!(
            editor.text().ends_with("\n"),
            "the typing after the paste goes first"
        );
        assert!(editor.undo());
        assert_eq!(editor.text(), "note: ", "the pieces go in one undo");
        assert!(editor.redo());
        assert_eq!(editor.byte_len(), 6 + piece.len() * 10);
        // Two pastes are two steps; a move between a paste and a piece ends the paste.
        let mut editor = Editor::new();
        editor.insert_str("one ");
        editor.insert_str("two ");
        editor.left();
        editor.right();
        editor.insert_piece("three");
        editor.undo();
        assert_eq!(editor.text(), "one two ");
        editor.undo();
        assert_eq!(editor.text(), "one ");
    }

    #[test]
    fn a_change_after_an_undo_forgets_the_redo() {
        let mut editor = typed("one");
        editor.undo();
        editor.insert_char('x');
        assert!(!editor.redo());
        assert_eq!(editor.text(), "x");
        assert_eq!(editor.history_bytes, 1);
    }

    #[test]
    fn the_history_is_bounded_in_steps_and_bytes() {
        let mut editor = Editor::new();
        for _ in 0..UNDO_STEPS + 50 {
            for c in "word ".chars() {
                editor.insert_char(c);
            }
        }
        assert_eq!(editor.undo.len(), UNDO_STEPS);
        let mut undone = 0;
        while editor.undo() {
            undone += 1;
        }
        assert_eq!(undone, UNDO_STEPS);
        assert_eq!(editor.text(), "word ".repeat(50));

        let paste = "x".repeat(40 * 1024);
        let mut editor = Editor::new();
        for _ in 0..20 {
            editor.insert_str(&paste);
            assert!(editor.history_bytes <= UNDO_BYTES);
        }
        assert_eq!(editor.undo.len(), UNDO_BYTES / paste.len());
        // A step bigger than the whole budget cannot be kept; the text itself stays.
        let mut editor = Editor::new();
        editor.insert_str(&"y".repeat(UNDO_BYTES + 1));
        assert!(!editor.undo());
        assert_eq!(editor.byte_len(), UNDO_BYTES + 1);
        assert_eq!(editor.history_bytes, 0);
    }

    #[test]
    fn take_text_returns_the_text_and_leaves_an_empty_editor() {
        let mut editor = Editor::from_text("one\ntwo");
        editor.up();
        assert_eq!(editor.take_text(), "one\ntwo");
        assert!(editor.is_empty());
        assert_eq!(editor.cursor(), (0, 0));
        assert_eq!(editor.take_text(), "");
        assert!(editor.undo());
        assert_eq!(editor.text(), "one\ntwo");
        assert_eq!(editor.cursor(), (0, 3));
    }

    #[test]
    fn split_at_cursor_gives_the_line_either_side() {
        let mut editor = Editor::from_text("first\n日本語");
        editor.left();
        assert_eq!(editor.split_at_cursor(), ("日本", "語"));
    }

    #[test]
    fn byte_len_counts_utf8_bytes_and_newlines_for_the_32_kib_limit() {
        assert_eq!(Editor::new().byte_len(), 0);
        let editor = Editor::from_text("日本\nab");
        assert_eq!(editor.byte_len(), editor.text().len());
        assert_eq!(editor.byte_len(), 6 + 1 + 2);
        let big = Editor::from_text(&"x".repeat(32 * 1024));
        assert_eq!(big.byte_len(), 32 * 1024);
    }

    /// Pieces of text that trip up code that walks by char.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "a",
                " ",
                "日",
                E_ACUTE,
                "\u{301}",
                "✍",
                "\u{fe0f}",
                VS16_EMOJI,
                "\u{200d}",
                "👨",
                "👩",
                FAMILY,
                "🇯",
                "🇵",
                FLAG,
                "\n",
                "\r\n",
                "\r",
                "\t",
                "\u{1b}",
                "क्ष",
                "x y",
            ])
            .prop_map(str::to_string),
            any::<String>(),
        ]
    }

    fn some_char() -> impl Strategy<Value = char> {
        prop_oneof![
            prop::sample::select(vec![
                'a', ' ', '日', '\u{301}', '\u{fe0f}', '\u{200d}', '✍', '👨', '🇯', '🇵', '\n', '\t',
                '्',
            ]),
            any::<char>(),
        ]
    }

    #[derive(Debug, Clone)]
    enum Op {
        Char(char),
        Paste(String),
        Newline,
        Backspace,
        Delete,
        Left,
        Right,
        Up,
        Down,
        Home,
        End,
        WordLeft,
        WordRight,
        KillToStart,
        KillToEnd,
        KillWordBack,
        KillWordForward,
        Yank,
        Undo,
        Redo,
        Take,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => some_char().prop_map(Op::Char),
            1 => prop::collection::vec(piece(), 0..4).prop_map(|p| Op::Paste(p.concat())),
            8 => prop::sample::select(vec![
                Op::Newline,
                Op::Backspace,
                Op::Delete,
                Op::Left,
                Op::Right,
                Op::Up,
                Op::Down,
                Op::Home,
                Op::End,
                Op::WordLeft,
                Op::WordRight,
                Op::KillToStart,
                Op::KillToEnd,
                Op::KillWordBack,
                Op::KillWordForward,
                Op::Yank,
                Op::Undo,
                Op::Redo,
                Op::Take,
            ]),
        ]
    }

    fn apply(editor: &mut Editor, op: &Op) {
        match op {
            Op::Char(c) => editor.insert_char(*c),
            Op::Paste(text) => editor.insert_str(text),
            Op::Newline => editor.newline(),
            Op::Backspace => editor.backspace(),
            Op::Delete => editor.delete(),
            Op::Left => editor.left(),
            Op::Right => editor.right(),
            Op::Up => editor.up(),
            Op::Down => editor.down(),
            Op::Home => editor.home(),
            Op::End => editor.end(),
            Op::WordLeft => editor.word_left(),
            Op::WordRight => editor.word_right(),
            Op::KillToStart => editor.kill_to_line_start(),
            Op::KillToEnd => editor.kill_to_line_end(),
            Op::KillWordBack => editor.kill_word_back(),
            Op::KillWordForward => editor.kill_word_forward(),
            Op::Yank => editor.yank(),
            Op::Undo => {
                editor.undo();
            }
            Op::Redo => {
                editor.redo();
            }
            Op::Take => {
                editor.take_text();
            }
        }
    }

    proptest! {
        #[test]
        fn random_edits_keep_the_cursor_on_a_grapheme_and_undo_all_of_them(
            start in prop::collection::vec(piece(), 0..6).prop_map(|p| p.concat()),
            ops in prop::collection::vec(op(), 0..80),
        ) {
            let mut editor = Editor::from_text(&start);
            let original = editor.text();
            assert_sane(&editor);
            for op in &ops {
                apply(&mut editor, op);
                assert_sane(&editor);
                prop_assert_eq!(editor.byte_len(), editor.text().len());
                let (row, column) = editor.cursor();
                prop_assert_eq!(column, text_width(editor.split_at_cursor().0));
                prop_assert!(row < editor.lines().len());
            }
            let edited = editor.text();
            let mut undone = 0;
            while editor.undo() {
                assert_sane(&editor);
                undone += 1;
            }
            prop_assert_eq!(editor.text(), original);
            // Redo walks the same steps forward (the ops' own undos left more beyond them).
            for _ in 0..undone {
                prop_assert!(editor.redo());
                assert_sane(&editor);
            }
            prop_assert_eq!(editor.text(), edited);
        }

        #[test]
        fn in_a_box_of_wrapped_rows_the_cursor_is_always_in_view_and_the_rows_are_the_text(
            start in prop::collection::vec(piece(), 0..6).prop_map(|p| p.concat()),
            ops in prop::collection::vec(
                prop_oneof![3 => op(), 1 => Just(Op::Up), 1 => Just(Op::Down)],
                0..60,
            ),
            width in 1usize..24,
            height in 1usize..6,
        ) {
            let mut editor = Editor::from_text(&start);
            for op in &ops {
                match op {
                    Op::Up => editor.up_row(width),
                    Op::Down => editor.down_row(width),
                    other => apply(&mut editor, other),
                }
                assert_sane(&editor);
                let (rows, (row, column)) = editor.rows(width);
                let first = crate::text::soft_wrap::first_shown(rows.len(), row, height);
                prop_assert!(first <= row && row < first + height, "row {row} from {first}");
                prop_assert!(row < rows.len());
                // Past the right edge only on or after whitespace hanging there, or after a
                // grapheme wider than the whole row.
                let lines = editor.lines();
                let shown = &rows[row];
                let before = &lines[shown.line][shown.bytes.start..editor.cursor.byte];
                let after = &lines[shown.line][editor.cursor.byte..shown.bytes.end];
                prop_assert!(
                    column < width
                        || before.ends_with(char::is_whitespace)
                        || (!after.is_empty() && after.chars().all(char::is_whitespace))
                        || before.graphemes(true).count() <= 1,
                    "column {column} of {width} after {before:?} in {:?}, rows {rows:?}",
                    editor.text()
                );
                // Joining each line's rows gives the text back.
                let mut joined = vec![String::new(); lines.len()];
                for r in &rows {
                    joined[r.line].push_str(&lines[r.line][r.bytes.clone()]);
                }
                prop_assert_eq!(joined.join("\n"), editor.text());
                // The rows kept from before are the rows cut afresh.
                prop_assert_eq!(&rows, &Editor::from_text(&editor.text()).rows(width).0);
            }
        }
    }
}
