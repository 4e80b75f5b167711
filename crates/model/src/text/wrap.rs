//! Text measured in terminal columns: CJK and emoji take two, combining marks none.
//!
//! Widths are summed grapheme by grapheme, the way ratatui's buffer draws them, so a line this
//! module says fits really fits. Lines are never cut inside a grapheme.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

pub const ELLIPSIS: &str = "…";
/// Tabs become spaces: a terminal cell cannot hold a tab, and its width depends on the column.
const TAB_AS_SPACES: &str = "    ";

/// Columns one grapheme takes. Control characters take none (they are never drawn).
pub fn grapheme_width(grapheme: &str) -> usize {
    if grapheme.chars().any(char::is_control) {
        0
    } else {
        grapheme.width()
    }
}

/// Columns `text` takes on a terminal.
pub fn width(text: &str) -> usize {
    if text.is_ascii() {
        // The common case, without grapheme segmentation: one column per printable byte.
        return text.bytes().filter(|b| !b.is_ascii_control()).count();
    }
    text.graphemes(true).map(grapheme_width).sum()
}

/// `text` cut to at most `max_width` columns, ending with "…" when something was cut.
pub fn truncate(text: &str, max_width: usize) -> String {
    if width(text) <= max_width {
        return text.to_string();
    }
    let room = max_width.saturating_sub(width(ELLIPSIS));
    let mut out = String::new();
    let mut used = 0;
    for grapheme in text.graphemes(true) {
        let w = grapheme_width(grapheme);
        if used + w > room {
            break;
        }
        used += w;
        out.push_str(grapheme);
    }
    if max_width >= width(ELLIPSIS) {
        // "Check this…", not "Check this …": the cut word's blank would read as a gap.
        out.truncate(out.trim_end().len());
        out.push_str(ELLIPSIS);
    }
    out
}

/// The columns of `text` after the first `skip` (a wide character started before them goes
/// whole), so a line scrolled sideways shows its far end: the cursor's, or a code line's.
pub fn skip_columns(text: &str, skip: usize) -> String {
    let mut used = 0;
    let mut out = String::new();
    for c in text.chars() {
        if used >= skip {
            out.push(c);
        }
        used += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
    }
    out
}

/// One line being typed, split at the cursor, shown in `room` columns: the part around the
/// cursor, with "…" on each side where text is out of sight, and the cursor's column in what
/// is shown. The cursor gets a cell of its own at the end of the text. The window starts at the
/// text's start while the cursor is in view there, else it ends just past the cursor, so what
/// was typed last shows (as the pane's box keeps its cursor's row in view, docs/KEYS.md).
/// Graphemes are never split; a wide one that does not fit leaves its column blank.
pub fn around_cursor(before: &str, after: &str, room: usize) -> (String, usize) {
    let pieces: Vec<(&str, usize)> = before
        .graphemes(true)
        .chain(after.graphemes(true))
        .map(|g| (g, grapheme_width(g)))
        .collect();
    let at = before.graphemes(true).count();
    let n = pieces.len();
    let columns = |a: usize, b: usize| pieces[a..b].iter().map(|(_, w)| w).sum::<usize>();
    let dots = width(ELLIPSIS);
    // Columns a window of graphemes a..b takes, with its marks and the cursor's own cell.
    let takes = |a: usize, b: usize| {
        columns(a, b)
            + if a > 0 { dots } else { 0 }
            + if b < n { dots } else { 0 }
            + usize::from(at == n && b == n)
    };
    let shows_cursor = |b: usize| at < b || (at == n && b == n);
    let widest_from = |a: usize| (a..=n).rev().find(|&b| takes(a, b) <= room).unwrap_or(a);
    let (mut a, mut b) = (0, widest_from(0));
    if !shows_cursor(b) {
        b = (at + 1).min(n);
        a = at.min(b);
        while a > 0 && takes(a - 1, b) <= room {
            a -= 1;
        }
        while b < n && takes(a, b + 1) <= room {
            b += 1;
        }
        // Too narrow for the grapheme at the cursor with both marks: the marks and the cursor.
        while b > at && takes(a, b) > room {
            b -= 1;
        }
    }
    let mut shown = String::new();
    if a > 0 {
        shown.push_str(ELLIPSIS);
    }
    for (grapheme, _) in &pieces[a..b] {
        shown.push_str(grapheme);
    }
    if b < n {
        shown.push_str(ELLIPSIS);
    }
    let column = if a > 0 { dots } else { 0 } + columns(a, at.max(a));
    (shown, column)
}

/// `text` cut or right-padded with spaces to exactly `width` columns.
pub fn pad_to(text: &str, width: usize) -> String {
    let mut out = truncate(text, width);
    let used = self::width(&out);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
    out
}

/// Word-wraps `text` to `width` columns. Explicit newlines stay line breaks; a word longer than
/// the width is broken inside; a line may break between any two wide (CJK) characters. With a
/// width of 0 every source line becomes one empty line, so callers still see the line count.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    wrap_pieces(&[(text, ())], width)
        .into_iter()
        .map(|line| line.into_iter().map(|(piece, ())| piece).collect())
        .collect()
}

/// The longest prefix of `text` that fits in `columns`, whole graphemes only.
pub fn take_columns(text: &str, columns: usize) -> String {
    let mut used = 0;
    let mut out = String::new();
    for grapheme in text.graphemes(true) {
        let w = grapheme_width(grapheme);
        if used + w > columns {
            break;
        }
        used += w;
        out.push_str(grapheme);
    }
    out
}

/// A unit the wrapper places whole when it can.
#[derive(Debug, PartialEq)]
enum Token<T> {
    /// Spaces: a place to break, dropped at the edges of a wrapped line.
    Space(usize, T),
    /// A word or one wide character, as styled parts, and its width.
    Word(Vec<(String, T)>, usize),
    Newline,
}

/// Appends to the last part when the tag is the same, so a word keeps few parts.
fn push_part<T: Clone + PartialEq>(parts: &mut Vec<(String, T)>, text: &str, tag: &T) {
    match parts.last_mut() {
        Some((last, last_tag)) if last_tag == tag => last.push_str(text),
        _ => parts.push((text.to_string(), tag.clone())),
    }
}

/// Splits pieces into spaces, words and newlines. Wide graphemes are words of their own so a
/// line can break between CJK characters. Control characters other than '\n' are dropped.
fn tokenize<T: Clone + PartialEq>(pieces: &[(&str, T)]) -> Vec<Token<T>> {
    let mut words = Words::default();
    for (piece, tag) in pieces {
        if piece.is_ascii() {
            words.ascii(piece, tag);
        } else {
            words.graphemes(piece, tag);
        }
    }
    words.finish()
}

/// The tokens so far and the word being read, which may go on into the next piece.
struct Words<T> {
    tokens: Vec<Token<T>>,
    word: Vec<(String, T)>,
    word_width: usize,
}

impl<T> Default for Words<T> {
    fn default() -> Self {
        Self {
            tokens: Vec::new(),
            word: Vec::new(),
            word_width: 0,
        }
    }
}

impl<T: Clone + PartialEq> Words<T> {
    fn flush(&mut self) {
        if !self.word.is_empty() {
            self.tokens
                .push(Token::Word(std::mem::take(&mut self.word), self.word_width));
            self.word_width = 0;
        }
    }

    fn finish(mut self) -> Vec<Token<T>> {
        self.flush();
        self.tokens
    }

    /// One piece, grapheme by grapheme: the general path.
    fn graphemes(&mut self, piece: &str, tag: &T) {
        for grapheme in piece.graphemes(true) {
            if grapheme == "\n" || grapheme == "\r\n" {
                self.flush();
                self.tokens.push(Token::Newline);
            } else if grapheme == "\t" {
                self.flush();
                self.tokens
                    .push(Token::Space(TAB_AS_SPACES.len(), tag.clone()));
            } else if grapheme.chars().any(char::is_control) {
                continue;
            } else if grapheme.chars().all(char::is_whitespace) {
                self.flush();
                self.tokens
                    .push(Token::Space(grapheme_width(grapheme).max(1), tag.clone()));
            } else {
                let w = grapheme_width(grapheme);
                if w >= 2 {
                    self.flush();
                    self.tokens
                        .push(Token::Word(vec![(grapheme.to_string(), tag.clone())], w));
                } else {
                    push_part(&mut self.word, grapheme, tag);
                    self.word_width += w;
                }
            }
        }
    }

    /// [`Words::graphemes`] of a pure-ASCII piece without grapheme segmentation: there every
    /// byte is a grapheme one column wide (or a control character, none), but for "\r\n",
    /// which is one. A run of printable bytes other than a space joins the word whole, so a
    /// word is one part, not one per letter. The same tokens as the general path: a test over
    /// every short input and a proptest hold them to it.
    fn ascii(&mut self, piece: &str, tag: &T) {
        let bytes = piece.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            match bytes[at] {
                b'\n' => {
                    self.flush();
                    self.tokens.push(Token::Newline);
                    at += 1;
                }
                b'\r' if bytes.get(at + 1) == Some(&b'\n') => {
                    self.flush();
                    self.tokens.push(Token::Newline);
                    at += 2;
                }
                b'\t' => {
                    self.flush();
                    self.tokens
                        .push(Token::Space(TAB_AS_SPACES.len(), tag.clone()));
                    at += 1;
                }
                b' ' => {
                    self.flush();
                    self.tokens.push(Token::Space(1, tag.clone()));
                    at += 1;
                }
                // Every other ASCII whitespace is a control character too: dropped, as above.
                b if b.is_ascii_control() => at += 1,
                _ => {
                    let run = bytes[at..]
                        .iter()
                        .position(|&b| b == b' ' || b.is_ascii_control())
                        .map_or(bytes.len(), |n| at + n);
                    push_part(&mut self.word, &piece[at..run], tag);
                    self.word_width += run - at;
                    at = run;
                }
            }
        }
    }
}

/// The line being filled.
struct LineBuilder<T> {
    lines: Vec<Vec<(String, T)>>,
    current: Vec<(String, T)>,
    used: usize,
    /// Spaces seen since the last word, placed only if a word follows on the same line.
    pending_spaces: usize,
    pending_tag: Option<T>,
    width: usize,
}

impl<T: Clone + PartialEq> LineBuilder<T> {
    fn push_part(&mut self, text: &str, tag: &T) {
        push_part(&mut self.current, text, tag);
    }

    fn break_line(&mut self) {
        self.lines.push(std::mem::take(&mut self.current));
        self.used = 0;
        self.pending_spaces = 0;
    }

    fn place_spaces(&mut self, tag: &T) {
        if self.pending_spaces > 0 {
            let spaces = " ".repeat(self.pending_spaces);
            self.used += self.pending_spaces;
            self.pending_spaces = 0;
            self.push_part(&spaces, tag);
        }
    }

    fn place_word(&mut self, parts: Vec<(String, T)>, word_width: usize) {
        let space_tag = self
            .pending_tag
            .clone()
            .or_else(|| parts.first().map(|(_, tag)| tag.clone()));
        if self.used + self.pending_spaces + word_width <= self.width {
            if let Some(tag) = space_tag {
                self.place_spaces(&tag);
            }
            for (text, tag) in &parts {
                self.push_part(text, tag);
            }
            self.used += word_width;
            return;
        }
        if word_width <= self.width {
            if self.used > 0 {
                self.break_line();
            }
            self.pending_spaces = 0;
            for (text, tag) in &parts {
                self.push_part(text, tag);
            }
            self.used = word_width;
            return;
        }
        // Longer than a whole line: fill what is left of this line, then break inside the word.
        if self.used > 0 && self.used + self.pending_spaces < self.width {
            if let Some(tag) = space_tag {
                self.place_spaces(&tag);
            }
        } else if self.used > 0 {
            self.break_line();
        }
        self.pending_spaces = 0;
        for (text, tag) in parts {
            for grapheme in text.graphemes(true) {
                let w = grapheme_width(grapheme);
                if self.used + w > self.width {
                    if self.used > 0 {
                        self.break_line();
                    }
                    if w > self.width {
                        // Wider than the whole line (a CJK character at width 1).
                        let cut = truncate(grapheme, self.width);
                        self.used = width(&cut);
                        self.push_part(&cut, &tag);
                        continue;
                    }
                }
                self.push_part(grapheme, &tag);
                self.used += w;
            }
        }
    }
}

/// The wrapping engine behind [`wrap`] and the glass's `look::wrap::wrap_spans`: pieces of text tagged with a style
/// (or nothing), wrapped to `width`, adjacent parts with equal tags merged.
pub fn wrap_pieces<T: Clone + PartialEq>(
    pieces: &[(&str, T)],
    width: usize,
) -> Vec<Vec<(String, T)>> {
    let mut builder = LineBuilder {
        lines: Vec::new(),
        current: Vec::new(),
        used: 0,
        pending_spaces: 0,
        pending_tag: None,
        width,
    };
    for token in tokenize(pieces) {
        match token {
            Token::Newline => builder.break_line(),
            Token::Space(n, tag) => {
                if builder.pending_spaces == 0 {
                    builder.pending_tag = Some(tag);
                }
                builder.pending_spaces += n;
            }
            Token::Word(parts, w) => {
                if width > 0 {
                    builder.place_word(parts, w);
                }
                builder.pending_tag = None;
                builder.pending_spaces = 0;
            }
        }
    }
    builder.lines.push(builder.current);
    builder.lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn around_cursor_shows_the_cursors_part_and_marks_what_is_out_of_sight() {
        // Short text shows whole, the cursor where it is.
        assert_eq!(around_cursor("ab", "c", 10), ("abc".to_string(), 2));
        // The cursor at the end of a long line: its end shows, "…" before it, and the cursor
        // has the last cell.
        let text = "部署说明：今天下午三点发布🚀 canary";
        let (shown, column) = around_cursor(text, "", 12);
        assert!(
            shown.starts_with('…') && shown.ends_with("canary"),
            "{shown}"
        );
        assert_eq!(column, width(&shown));
        assert!(width(&shown) < 12, "{shown}");
        // At the start: the start shows, "…" after it.
        let (shown, column) = around_cursor("", text, 12);
        assert!(shown.starts_with("部署") && shown.ends_with('…'), "{shown}");
        assert_eq!(column, 0);
        assert!(width(&shown) <= 12);
        // In the middle: both marks, the cursor on the grapheme after `before`.
        let (before, after) = text.split_at("部署说明：今天下午三点".len());
        let (shown, column) = around_cursor(before, after, 10);
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        assert!(width(&shown) <= 10);
        assert!(
            skip_columns(&shown, column).starts_with('发'),
            "{shown} {column}"
        );
    }

    proptest! {
        #[test]
        fn around_cursor_fits_and_keeps_the_cursor_in_view(
            text in "[a-z 日本語🚀👨‍👩‍👧]{0,40}",
            cut in 0usize..60,
            room in 3usize..30,
        ) {
            let graphemes: Vec<&str> = text.graphemes(true).collect();
            let cut = cut.min(graphemes.len());
            let before: String = graphemes[..cut].concat();
            let after: String = graphemes[cut..].concat();
            let (shown, column) = around_cursor(&before, &after, room);
            prop_assert!(width(&shown) <= room, "{} in {}", shown, room);
            prop_assert!(column < room, "cursor {} in {}", column, room);
            // What shows, less its marks, is a piece of the text.
            let inner = shown.trim_start_matches('…').trim_end_matches('…');
            prop_assert!(text.contains(inner));
            if width(&text) < room {
                prop_assert_eq!(shown, text);
            }
        }
    }

    #[test]
    fn width_counts_cjk_and_emoji_as_two_and_combining_marks_as_none() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("日本語"), 6);
        assert_eq!(width("🦀"), 2);
        assert_eq!(width("e\u{301}"), 1);
        assert_eq!(width("👨‍👩‍👧"), 2);
        assert_eq!(width("a\u{7}b"), 2);
    }

    #[test]
    fn truncate_ends_with_an_ellipsis_and_never_splits_a_wide_char() {
        assert_eq!(truncate("hello", 5), "hello");
        assert_eq!(truncate("hello world", 5), "hell…");
        assert_eq!(truncate("日本語です", 6), "日本…");
        assert_eq!(truncate("日本語です", 5), "日本…");
        assert_eq!(truncate("日本", 1), "…");
        // The blank before a cut word goes with it.
        assert_eq!(truncate("Check this project", 12), "Check this…");
        assert_eq!(truncate("重构 订单服务", 6), "重构…");
        assert_eq!(truncate("abc", 0), "");
        assert_eq!(truncate("cafe\u{301}s", 4), "caf…");
        assert_eq!(truncate("cafe\u{301}", 4), "cafe\u{301}");
    }

    #[test]
    fn pad_to_gives_exactly_the_width() {
        assert_eq!(pad_to("ab", 4), "ab  ");
        assert_eq!(pad_to("日本語", 5), "日本…");
        assert_eq!(width(&pad_to("日本語", 5)), 5);
        assert_eq!(pad_to("日本語", 4), "日… ");
        assert_eq!(pad_to("x", 0), "");
    }

    #[test]
    fn wrap_breaks_at_spaces() {
        assert_eq!(wrap("the quick brown fox", 10), ["the quick", "brown fox"]);
        assert_eq!(wrap("", 10), [""]);
        assert_eq!(wrap("a\n\nb", 10), ["a", "", "b"]);
        assert_eq!(wrap("one\r\ntwo", 10), ["one", "two"]);
    }

    #[test]
    fn wrap_breaks_inside_over_long_words() {
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("ab abcdefghij", 4), ["ab a", "bcde", "fghi", "j"]);
    }

    #[test]
    fn wrap_breaks_between_cjk_characters() {
        assert_eq!(wrap("日本語のテキスト", 6), ["日本語", "のテキ", "スト"]);
        assert_eq!(
            wrap("日本語のテキスト", 5),
            ["日本", "語の", "テキ", "スト"]
        );
        assert_eq!(wrap("see 日本語", 7), ["see 日", "本語"]);
    }

    #[test]
    fn wrap_keeps_emoji_and_combining_marks_whole() {
        assert_eq!(wrap("🦀🦀🦀", 4), ["🦀🦀", "🦀"]);
        assert_eq!(
            wrap("e\u{301}e\u{301}e\u{301}", 2),
            ["e\u{301}e\u{301}", "e\u{301}"]
        );
    }

    #[test]
    fn wrap_at_width_one_and_zero_does_not_panic() {
        assert_eq!(wrap("ab", 1), ["a", "b"]);
        assert_eq!(wrap("日本", 1), ["…", "…"]);
        assert_eq!(wrap("a b\nc", 0), ["", ""]);
    }

    /// The tokens of `pieces` through the ASCII fast path where a piece is ASCII, or through
    /// the general path for every piece.
    fn tokens(pieces: &[(&str, u8)], fast: bool) -> Vec<Token<u8>> {
        let mut words = Words::default();
        for (piece, tag) in pieces {
            if fast && piece.is_ascii() {
                words.ascii(piece, tag);
            } else {
                words.graphemes(piece, tag);
            }
        }
        words.finish()
    }

    #[test]
    fn the_ascii_fast_path_tokenizes_every_short_input_as_the_general_path_does() {
        // Every string of up to five of these bytes, whole and cut in two pieces of two tags
        // at every place: letters, each kind of space, "\r\n" and a lone "\r", a control.
        let alphabet = [b'a', b'B', b' ', b'\t', b'\n', b'\r', 0x0b, 0x01, 0x7f];
        let mut inputs: Vec<Vec<u8>> = vec![Vec::new()];
        let mut last: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..5 {
            last = last
                .iter()
                .flat_map(|s| {
                    alphabet.iter().map(move |&b| {
                        let mut longer = s.clone();
                        longer.push(b);
                        longer
                    })
                })
                .collect();
            inputs.extend(last.iter().cloned());
        }
        for input in &inputs {
            let text = std::str::from_utf8(input).expect("ASCII");
            for cut in 0..=text.len() {
                let (a, b) = text.split_at(cut);
                for pieces in [vec![(text, 0)], vec![(a, 0), (b, 1)], vec![(a, 0), (b, 0)]] {
                    assert_eq!(tokens(&pieces, true), tokens(&pieces, false), "{pieces:?}");
                }
            }
        }
    }

    proptest! {
        #[test]
        fn the_ascii_fast_path_wraps_as_the_general_path_does(
            pieces in proptest::collection::vec(("[ -~\t\n\r\x00-\x1f]{0,40}", 0u8..3), 0..4),
            w in 0usize..30,
        ) {
            let pieces: Vec<(&str, u8)> = pieces.iter().map(|(t, tag)| (t.as_str(), *tag)).collect();
            prop_assert_eq!(tokens(&pieces, true), tokens(&pieces, false));
            // And mixed with pieces that are not ASCII, which take the general path.
            let mut mixed = pieces.clone();
            mixed.insert(0, ("é 日本 x", 1));
            prop_assert_eq!(tokens(&mixed, true), tokens(&mixed, false));
            let lines = wrap_pieces(&pieces, w);
            for line in &lines {
                let used: usize = line.iter().map(|(t, _)| width(t)).sum();
                prop_assert!(used <= w);
            }
        }

        #[test]
        fn wrapped_lines_never_exceed_the_width(text in "\\PC{0,80}", w in 0usize..30) {
            for line in wrap(&text, w) {
                prop_assert!(width(&line) <= w, "{line:?} wider than {w}");
                prop_assert!(!line.chars().any(char::is_control));
            }
            prop_assert!(width(&truncate(&text, w)) <= w);
            prop_assert_eq!(width(&pad_to(&text, w)), w);
        }
    }
}
