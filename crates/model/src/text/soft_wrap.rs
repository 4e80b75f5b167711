//! Text being typed, cut into rows that fit a width: the message box and a card's text answer
//! grow downwards instead of scrolling sideways, so a long prompt is read whole before it is
//! sent (docs/KEYS.md, "The message box").
//!
//! Unlike [`crate::text::wrap::wrap`], which makes lines to read, nothing is dropped or changed
//! here: every byte of a line is in exactly one row, so a cursor in the text is a row and a
//! column on screen and back. Widths are display widths as [`crate::text::wrap::width`]
//! measures them, grapheme by grapheme (CJK and emoji take two columns). A row breaks after
//! whitespace or on either side of a wide grapheme where it can, inside a word only when the
//! word is longer than the row. Whitespace at a break stays at the end of its row, even past
//! the right edge where it is not drawn, so a row never starts with the space that ended the
//! word before it.

use std::ops::Range;

use unicode_segmentation::UnicodeSegmentation;

use crate::text::wrap::width as text_width;

/// One row on screen: a line of the text and the bytes of it the row shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub line: usize,
    pub bytes: Range<usize>,
}

/// The rows of one line at `width` columns (at least one): byte ranges that follow each other
/// and cover the line. When the last row is full, an empty row follows it, so a cursor at the
/// line's end has a column on screen.
pub fn line_rows(line: &str, width: usize) -> Vec<Range<usize>> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut start = 0;
    // Columns from `start` to the grapheme at hand.
    let mut used = 0;
    // The last place the row may break, and its columns from `start`.
    let mut fold: Option<(usize, usize)> = None;
    for (at, grapheme) in line.grapheme_indices(true) {
        let w = text_width(grapheme);
        let space = grapheme.chars().all(char::is_whitespace);
        let wide = w >= 2;
        if wide && at > start {
            fold = Some((at, used));
        }
        // Whitespace never starts a row: it hangs at the end of the one it follows. A grapheme
        // of no width (a lone zero-width char) counts one here, so a full row never ends
        // with a place the cursor could stand past its edge.
        while !space && used + w.max(1) > width && at > start {
            let (end, taken) = match fold {
                Some((end, taken)) if end > start => (end, taken),
                _ => (at, used),
            };
            rows.push(start..end);
            start = end;
            used -= taken;
            fold = None;
        }
        used += w;
        if space || wide {
            fold = Some((at + grapheme.len(), used));
        }
    }
    rows.push(start..line.len());
    if used >= width {
        rows.push(line.len()..line.len());
    }
    rows
}

/// The row a place in the text (a line, a byte in it) is shown on, and its column there. A
/// place where one row ends and the next starts is at the start of the next.
pub fn locate(rows: &[Row], lines: &[String], line: usize, byte: usize) -> (usize, usize) {
    let index = rows
        .iter()
        .rposition(|row| row.line == line && row.bytes.start <= byte)
        .unwrap_or(0);
    let row = &rows[index];
    let column = lines
        .get(row.line)
        .and_then(|text| text.get(row.bytes.start..byte.max(row.bytes.start)))
        .map_or(0, text_width);
    (index, column)
}

/// The byte of `line` nearest `column` on `row`, never past it: on a row that is not its
/// line's last, the byte before its last grapheme at most, as the row's end is the next row's
/// start.
pub fn byte_at(rows: &[Row], lines: &[String], index: usize, column: usize) -> usize {
    let row = &rows[index];
    let text = &lines[row.line][row.bytes.clone()];
    let last_of_line = rows.get(index + 1).is_none_or(|next| next.line != row.line);
    let mut used = 0;
    let mut byte = row.bytes.start;
    let mut graphemes = text.grapheme_indices(true).peekable();
    while let Some((at, grapheme)) = graphemes.next() {
        let w = text_width(grapheme);
        if used + w > column || (!last_of_line && graphemes.peek().is_none()) {
            break;
        }
        used += w;
        byte = row.bytes.start + at + grapheme.len();
    }
    byte
}

/// The first of `total` rows to show in `height` rows so the cursor's row is in view: the
/// last rows while the cursor is among them, else the cursor's row at the top, so the rows do
/// not jump while the cursor moves within the view's bottom part.
pub fn first_shown(total: usize, cursor: usize, height: usize) -> usize {
    let height = height.max(1);
    let last_view = total.saturating_sub(height);
    cursor.min(last_view).max(cursor.saturating_sub(height - 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The rows of every line at `width` columns, in order (the editor keeps its own, by line).
    fn rows(lines: &[String], width: usize) -> Vec<Row> {
        lines
            .iter()
            .enumerate()
            .flat_map(|(line, text)| {
                line_rows(text, width)
                    .into_iter()
                    .map(move |bytes| Row { line, bytes })
            })
            .collect()
    }

    fn cut(line: &str, width: usize) -> Vec<&str> {
        line_rows(line, width)
            .into_iter()
            .map(|range| &line[range])
            .collect()
    }

    #[test]
    fn rows_break_after_spaces_and_the_spaces_stay_at_the_row_end() {
        assert_eq!(cut("the quick brown fox", 10), ["the quick ", "brown fox"]);
        assert_eq!(cut("hello world", 5), ["hello ", "world", ""]);
        assert_eq!(cut("", 10), [""]);
        assert_eq!(cut("short", 10), ["short"]);
    }

    #[test]
    fn a_word_longer_than_the_row_breaks_inside() {
        assert_eq!(cut("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(cut("ab abcdefghij", 4), ["ab ", "abcd", "efgh", "ij"]);
    }

    #[test]
    fn cjk_and_emoji_take_two_columns_and_rows_break_around_them() {
        assert_eq!(cut("日本語のテキスト", 6), ["日本語", "のテキ", "スト"]);
        assert_eq!(cut("日本語のテキスト", 5), ["日本", "語の", "テキ", "スト"]);
        assert_eq!(cut("see 日本語", 7), ["see 日", "本語"]);
        assert_eq!(cut("🦀🦀🦀", 4), ["🦀🦀", "🦀"]);
        // A flag, a skin tone and a family are one grapheme each, never split.
        assert_eq!(cut("🇯🇵👍🏽👨‍👩‍👧", 4), ["🇯🇵👍🏽", "👨‍👩‍👧"]);
        // Wider than the row: alone on its row.
        assert_eq!(cut("日本", 1), ["日", "本", ""]);
    }

    #[test]
    fn a_full_last_row_is_followed_by_an_empty_one_for_the_cursor() {
        assert_eq!(cut("abcd", 4), ["abcd", ""]);
        assert_eq!(cut("abc", 4), ["abc"]);
    }

    #[test]
    fn the_cursor_is_found_and_up_and_down_land_on_the_rows() {
        let lines = vec!["the quick brown fox".to_string(), "日本".to_string()];
        let rows = rows(&lines, 10);
        assert_eq!(rows.len(), 3);
        assert_eq!(locate(&rows, &lines, 0, 0), (0, 0));
        // The end of the first row is the start of the second.
        assert_eq!(locate(&rows, &lines, 0, 10), (1, 0));
        assert_eq!(locate(&rows, &lines, 0, 19), (1, 9));
        assert_eq!(locate(&rows, &lines, 1, 3), (2, 2));
        // Never past the row's end on a row that is not its line's last.
        assert_eq!(byte_at(&rows, &lines, 0, 40), 9);
        assert_eq!(byte_at(&rows, &lines, 1, 40), 19);
        assert_eq!(byte_at(&rows, &lines, 2, 1), 0);
        assert_eq!(byte_at(&rows, &lines, 2, 3), 3);
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                prop::sample::select(vec![
                    "a",
                    "word",
                    " ",
                    "  ",
                    "日本",
                    "🦀",
                    "🇯🇵",
                    "👍🏽",
                    "✍️",
                    "e\u{301}",
                    "\n",
                    "\u{200d}",
                    "longwordlongword",
                ])
                .prop_map(str::to_string),
                any::<String>(),
            ],
            0..20,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn joining_the_rows_gives_back_the_text(line in text(), width in 1usize..30) {
            let line = line.replace('\n', " ");
            let rows = line_rows(&line, width);
            let mut next = 0;
            for row in &rows {
                prop_assert_eq!(row.start, next);
                next = row.end;
            }
            prop_assert_eq!(next, line.len());
            let joined: String = rows.iter().map(|r| &line[r.clone()]).collect();
            prop_assert_eq!(joined, line.clone());
            // Every row fits, but for whitespace hanging at its end or one grapheme wider than
            // the whole row.
            for row in &rows {
                let shown = line[row.clone()].trim_end_matches(char::is_whitespace);
                let graphemes = shown.graphemes(true).count();
                prop_assert!(text_width(shown) <= width || graphemes == 1, "{shown:?} at {width}");
            }
        }
    }
}
