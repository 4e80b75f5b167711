//! The state of the multi-line input box: lines of text and a cursor.
//!
//! Hand-written: tui-textarea does not support ratatui 0.30. The cursor moves by chars;
//! columns on screen are display widths (CJK and emoji take two).

use unicode_width::UnicodeWidthChar;

use crate::ui::wrap::width as text_width;

#[derive(Debug, Clone)]
pub struct Editor {
    /// Never empty: an empty editor has one empty line.
    lines: Vec<String>,
    row: usize,
    /// The cursor's position in the row, in chars.
    col: usize,
    /// The display column up and down aim for, kept across short lines.
    goal_column: Option<usize>,
}

impl Default for Editor {
    fn default() -> Self {
        Editor {
            lines: vec![String::new()],
            row: 0,
            col: 0,
            goal_column: None,
        }
    }
}

impl Editor {
    pub fn new() -> Self {
        Self::default()
    }

    /// An editor holding `text`, the cursor at its end.
    pub fn from_text(text: &str) -> Self {
        let mut editor = Self::new();
        editor.insert_str(text);
        editor
    }

    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    pub fn is_empty(&self) -> bool {
        self.lines.len() == 1 && self.lines[0].is_empty()
    }

    /// Bytes of [`Editor::text`] as UTF-8, for the 32 KiB limit on what the phone sends (SPEC L).
    pub fn byte_len(&self) -> usize {
        self.lines.iter().map(String::len).sum::<usize>() + self.lines.len() - 1
    }

    pub fn insert_char(&mut self, c: char) {
        if c == '\n' {
            self.newline();
            return;
        }
        if c.is_control() {
            return;
        }
        let at = self.byte_index();
        self.current_mut().insert(at, c);
        self.col += 1;
        self.goal_column = None;
    }

    /// Pastes text: newlines stay ('\r\n' and a lone '\r' become '\n'), tabs become spaces,
    /// other control characters are dropped. Each line is inserted at once, so a 32 KiB paste
    /// costs one pass, not one per char.
    pub fn insert_str(&mut self, s: &str) {
        let normalized = s.replace("\r\n", "\n").replace('\r', "\n");
        for (index, segment) in normalized.split('\n').enumerate() {
            if index > 0 {
                self.newline();
            }
            let cleaned: String = segment
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .filter(|c| !c.is_control())
                .collect();
            if cleaned.is_empty() {
                continue;
            }
            let at = self.byte_index();
            self.current_mut().insert_str(at, &cleaned);
            self.col += cleaned.chars().count();
            self.goal_column = None;
        }
    }

    pub fn newline(&mut self) {
        let at = self.byte_index();
        let rest = self.current_mut().split_off(at);
        self.lines.insert(self.row + 1, rest);
        self.row += 1;
        self.col = 0;
        self.goal_column = None;
    }

    /// Deletes the char before the cursor; at the start of a line, joins it to the line above.
    pub fn backspace(&mut self) {
        self.goal_column = None;
        if self.col > 0 {
            self.col -= 1;
            let at = self.byte_index();
            self.current_mut().remove(at);
        } else if self.row > 0 {
            let line = self.lines.remove(self.row);
            self.row -= 1;
            self.col = self.lines[self.row].chars().count();
            self.current_mut().push_str(&line);
        }
    }

    /// Deletes the char under the cursor; at the end of a line, joins the next line to it.
    pub fn delete(&mut self) {
        self.goal_column = None;
        if self.col < self.line_chars() {
            let at = self.byte_index();
            self.current_mut().remove(at);
        } else if self.row + 1 < self.lines.len() {
            let next = self.lines.remove(self.row + 1);
            self.current_mut().push_str(&next);
        }
    }

    pub fn left(&mut self) {
        self.goal_column = None;
        if self.col > 0 {
            self.col -= 1;
        } else if self.row > 0 {
            self.row -= 1;
            self.col = self.line_chars();
        }
    }

    pub fn right(&mut self) {
        self.goal_column = None;
        if self.col < self.line_chars() {
            self.col += 1;
        } else if self.row + 1 < self.lines.len() {
            self.row += 1;
            self.col = 0;
        }
    }

    /// Up a line, keeping the display column; on the first line, to its start.
    pub fn up(&mut self) {
        if self.row == 0 {
            self.home();
            return;
        }
        let goal = self.goal();
        self.row -= 1;
        self.col = self.col_at_display(goal);
        self.goal_column = Some(goal);
    }

    /// Down a line, keeping the display column; on the last line, to its end.
    pub fn down(&mut self) {
        if self.row + 1 >= self.lines.len() {
            self.end();
            return;
        }
        let goal = self.goal();
        self.row += 1;
        self.col = self.col_at_display(goal);
        self.goal_column = Some(goal);
    }

    pub fn home(&mut self) {
        self.col = 0;
        self.goal_column = None;
    }

    pub fn end(&mut self) {
        self.col = self.line_chars();
        self.goal_column = None;
    }

    /// To the start of the word before the cursor (across lines).
    pub fn word_left(&mut self) {
        self.goal_column = None;
        if self.col == 0 {
            self.left();
            return;
        }
        self.col = self.word_start_before(self.col);
    }

    /// To the end of the word after the cursor (across lines).
    pub fn word_right(&mut self) {
        self.goal_column = None;
        let chars: Vec<char> = self.lines[self.row].chars().collect();
        if self.col >= chars.len() {
            self.right();
            return;
        }
        let mut col = self.col;
        while col < chars.len() && chars[col].is_whitespace() {
            col += 1;
        }
        while col < chars.len() && !chars[col].is_whitespace() {
            col += 1;
        }
        self.col = col;
    }

    /// Deletes from the start of the word before the cursor to the cursor (Ctrl-W);
    /// at the start of a line, joins it to the line above.
    pub fn delete_word_back(&mut self) {
        self.goal_column = None;
        if self.col == 0 {
            self.backspace();
            return;
        }
        let start = self.word_start_before(self.col);
        let from = self.byte_at(start);
        let to = self.byte_index();
        self.current_mut().replace_range(from..to, "");
        self.col = start;
    }

    pub fn clear(&mut self) {
        *self = Self::default();
    }

    pub fn lines(&self) -> Vec<String> {
        self.lines.clone()
    }

    /// (row, display column) of the cursor, for placing the terminal cursor.
    pub fn cursor(&self) -> (usize, usize) {
        (self.row, self.display_col())
    }

    fn current_mut(&mut self) -> &mut String {
        &mut self.lines[self.row]
    }

    fn line_chars(&self) -> usize {
        self.lines[self.row].chars().count()
    }

    /// The byte offset of char `col` in the current line.
    fn byte_at(&self, col: usize) -> usize {
        let line = &self.lines[self.row];
        line.char_indices()
            .nth(col)
            .map_or(line.len(), |(index, _)| index)
    }

    fn byte_index(&self) -> usize {
        self.byte_at(self.col)
    }

    fn display_col(&self) -> usize {
        let line = &self.lines[self.row];
        text_width(&line[..self.byte_index()])
    }

    fn goal(&self) -> usize {
        self.goal_column.unwrap_or_else(|| self.display_col())
    }

    /// The char index in the current line closest to display column `goal` without passing it.
    fn col_at_display(&self, goal: usize) -> usize {
        let mut used = 0;
        for (index, c) in self.lines[self.row].chars().enumerate() {
            let w = c.width().unwrap_or(0);
            if used + w > goal {
                return index;
            }
            used += w;
        }
        self.line_chars()
    }

    fn word_start_before(&self, col: usize) -> usize {
        let chars: Vec<char> = self.lines[self.row].chars().collect();
        let mut start = col.min(chars.len());
        while start > 0 && chars[start - 1].is_whitespace() {
            start -= 1;
        }
        while start > 0 && !chars[start - 1].is_whitespace() {
            start -= 1;
        }
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // An odd column in CJK text goes to the char boundary before it.
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
    fn word_moves_and_word_delete() {
        let mut editor = Editor::from_text("git commit  -m msg");
        editor.word_left();
        assert_eq!(editor.cursor(), (0, 15));
        editor.word_left();
        editor.word_left();
        assert_eq!(editor.cursor(), (0, 4));
        editor.word_right();
        assert_eq!(editor.cursor(), (0, 10));
        editor.end();
        editor.delete_word_back();
        assert_eq!(editor.text(), "git commit  -m ");
        editor.delete_word_back();
        assert_eq!(editor.text(), "git commit  ");
        let mut lines = Editor::from_text("a\nb");
        lines.home();
        lines.word_left();
        assert_eq!(lines.cursor(), (0, 1));
        lines.word_right();
        assert_eq!(lines.cursor(), (1, 0));
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
}
