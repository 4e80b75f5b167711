//! Cutting and cleaning of untrusted strings (SPEC L1).
//!
//! An agent is untrusted input. Every string it sends is cut to its limit (on a character
//! boundary) and cleaned of control and invisible characters: this is what keeps an agent from
//! writing terminal escape sequences to the screen. What was changed is recorded so the phone
//! can refuse allow-always on a card whose words it did not show whole (SPEC A12).

use std::fmt;

/// What a decoder changed in a reply, one entry per changed string or list (SPEC L1, A12).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    pub changes: Vec<Change>,
}

/// One change a decoder made, with the JSON-ish path of the value it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub(crate) path: String,
    pub(crate) what: ChangeKind,
}

/// The kind of a [`Change`] (SPEC L1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// A string over its limit was cut.
    Cut,
    /// Control or invisible characters were removed from a string.
    Cleaned,
    /// A list over its limit lost its last entries.
    Capped,
    /// An entry was dropped because its id or a required value was unusable.
    Dropped,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.what {
            ChangeKind::Cut => "cut",
            ChangeKind::Cleaned => "cleaned",
            ChangeKind::Capped => "capped",
            ChangeKind::Dropped => "dropped",
        };
        write!(f, "{}: {what}", self.path)
    }
}

impl Report {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Notes a change. The path is written out only here, so a reply that needs no change
    /// costs no allocation for the paths of its values.
    pub(crate) fn note(&mut self, path: impl fmt::Display, what: ChangeKind) {
        self.changes.push(Change {
            path: path.to_string(),
            what,
        });
    }

    /// Appends another report's changes under a path prefix.
    pub(crate) fn absorb(&mut self, prefix: impl fmt::Display, other: Report) {
        for change in other.changes {
            self.note(format!("{prefix}.{}", change.path), change.what);
        }
    }
}

/// Whether a string may keep line breaks and tabs (chat text, prompts) or must be one line
/// (titles, labels, names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    Single,
    Multi,
}

/// True for characters that draw nothing or steer the terminal or the text direction: C0/C1
/// controls, format characters (zero-width, bidi overrides, BOM, soft hyphen), tag characters,
/// and noncharacters. Variation selectors and the zero-width joiner stay, because emoji need
/// them and they cannot move the cursor. Written by hand: no small, kept crate offers just this
/// set, and the list is short.
pub fn is_invisible(c: char, lines: Lines) -> bool {
    match c {
        '\n' | '\t' => lines == Lines::Single,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{ad}' // soft hyphen
        | '\u{34f}' // combining grapheme joiner
        | '\u{61c}' // arabic letter mark
        | '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}' // hangul fillers
        | '\u{180e}' // mongolian vowel separator
        | '\u{200b}' | '\u{200c}' | '\u{200e}' | '\u{200f}' // zero-width space/non-joiner, LRM, RLM
        | '\u{2028}' | '\u{2029}' // line and paragraph separators
        | '\u{202a}'..='\u{202e}' // bidi embeddings and overrides
        | '\u{2060}'..='\u{206f}' // word joiner, invisible operators, bidi isolates
        | '\u{feff}' // byte order mark
        | '\u{fff9}'..='\u{fffb}' // interlinear annotations
        | '\u{1bca0}'..='\u{1bca3}' // shorthand format controls
        | '\u{1d173}'..='\u{1d17a}' // musical format controls
        | '\u{e0000}'..='\u{e007f}' // tag characters
        => true,
        c => {
            let n = c as u32;
            // noncharacters: U+FDD0..U+FDEF and the last two of every plane
            (0xfdd0..=0xfdef).contains(&n) || (n & 0xfffe) == 0xfffe
        }
    }
}

/// True when `s` holds a character [`is_invisible`] removes. One pass over the bytes: a
/// character is decoded only where its first byte is one an invisible character can start
/// with, so text in most scripts (CJK starts with 0xE4 to 0xE9) is passed over at byte speed.
/// `tests::the_byte_scan_finds_what_the_character_scan_finds` keeps it equal to the plain scan.
pub(crate) fn has_invisible(s: &str, lines: Lines) -> bool {
    let bytes = s.as_bytes();
    let mut from = 0;
    // One table load a byte instead of a chain of comparisons: the scan runs over every string
    // of every reply (a 4 MiB snapshot is read each poll that is not a 304).
    while let Some(offset) = bytes[from..]
        .iter()
        .position(|&b| MAY_START_INVISIBLE[usize::from(b)])
    {
        let at = from + offset;
        let b = bytes[at];
        let invisible = if b < 0x80 {
            is_invisible(char::from(b), lines)
        } else {
            s[at..]
                .chars()
                .next()
                .is_some_and(|c| is_invisible(c, lines))
        };
        if invisible {
            return true;
        }
        from = at + 1;
    }
    false
}

/// The bytes that may begin an invisible character: the C0 controls and DEL, and the first
/// bytes of U+0080..U+00BF, U+0340.., U+0600.., U+1000.., U+2000.., U+3000.., U+F000.. and of
/// every plane past the first, where the C1 controls, the soft hyphen, the joiners, fillers,
/// bidi controls, the BOM, the noncharacters and the tag characters live.
static MAY_START_INVISIBLE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = b < 0x20
            || b == 0x7f
            || matches!(
                b,
                0xc2 | 0xcd | 0xd8 | 0xe1 | 0xe2 | 0xe3 | 0xef | 0xf0..=0xf4
            );
        b += 1;
    }
    table
};

/// Cleans then cuts `s` in place to at most `max_bytes` bytes, on a character boundary.
/// Records what it did under `path` in `report`. Returns true when anything changed.
pub fn clean(
    s: &mut String,
    max_bytes: usize,
    lines: Lines,
    path: impl fmt::Display,
    report: &mut Report,
) -> bool {
    let mut changed = false;
    if has_invisible(s, lines) {
        s.retain(|c| !is_invisible(c, lines));
        report.note(&path, ChangeKind::Cleaned);
        changed = true;
    }
    if s.len() > max_bytes {
        let mut cut = max_bytes;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        report.note(path, ChangeKind::Cut);
        changed = true;
    }
    changed
}

/// Like [`clean`] but the limit counts characters, not bytes (belt labels, link URLs).
pub(crate) fn clean_chars(
    s: &mut String,
    max_chars: usize,
    lines: Lines,
    path: impl fmt::Display,
    report: &mut Report,
) -> bool {
    let mut changed = clean(s, usize::MAX, lines, &path, report);
    if let Some((cut, _)) = s.char_indices().nth(max_chars) {
        s.truncate(cut);
        report.note(path, ChangeKind::Cut);
        changed = true;
    }
    changed
}

/// Cleans an optional string; see [`clean`].
pub(crate) fn clean_opt(
    s: &mut Option<String>,
    max_bytes: usize,
    lines: Lines,
    path: impl fmt::Display,
    report: &mut Report,
) -> bool {
    match s {
        Some(s) => clean(s, max_bytes, lines, path, report),
        None => false,
    }
}

/// Keeps the first `max` entries of a list (SPEC L1). Returns true when it cut.
pub(crate) fn cap<T>(
    list: &mut Vec<T>,
    max: usize,
    path: impl fmt::Display,
    report: &mut Report,
) -> bool {
    if list.len() > max {
        list.truncate(max);
        report.note(path, ChangeKind::Capped);
        true
    } else {
        false
    }
}

/// Cuts a string to a byte limit on a character boundary, for text this program writes itself.
pub fn truncate_to(s: &str, max_bytes: usize) -> &str {
    if s.len() <= max_bytes {
        return s;
    }
    let mut cut = max_bytes;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    &s[..cut]
}

/// Cuts one line of text to at most `columns` terminal columns (by display width, as the
/// terminal draws it), ending it with "…" when it was cut.
pub fn cut_to_columns(s: &str, columns: usize) -> String {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    if s.width() <= columns {
        return s.to_string();
    }
    let mut used = 0;
    let mut cut = String::new();
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        // One column stays for the "…".
        if used + w + 1 > columns {
            break;
        }
        used += w;
        cut.push(c);
    }
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_cut_to_columns_by_display_width_with_an_ellipsis() {
        assert_eq!(cut_to_columns("ab漢字", 6), "ab漢字");
        assert_eq!(cut_to_columns("ab漢字", 5), "ab漢…");
        assert_eq!(
            cut_to_columns("ab漢字", 4),
            "ab…",
            "a wide character never half fits"
        );
        assert_eq!(cut_to_columns("", 0), "");
    }

    #[test]
    fn l1_escape_sequences_are_removed() {
        let mut report = Report::default();
        let mut s = "\u{1b}[2Jhello\u{7}\u{202e}dlrow".to_string();
        assert!(clean(&mut s, 100, Lines::Single, "t", &mut report));
        assert_eq!(s, "[2Jhellodlrow");
        assert_eq!(report.changes[0].what, ChangeKind::Cleaned);
    }

    #[test]
    fn l1_multi_line_keeps_newlines_single_line_does_not() {
        let mut report = Report::default();
        let mut multi = "a\nb\tc\r".to_string();
        clean(&mut multi, 100, Lines::Multi, "t", &mut report);
        assert_eq!(multi, "a\nb\tc");
        let mut single = "a\nb".to_string();
        clean(&mut single, 100, Lines::Single, "t", &mut report);
        assert_eq!(single, "ab");
    }

    #[test]
    fn l1_cut_on_char_boundary() {
        let mut report = Report::default();
        let mut s = "工作区工作区".to_string(); // 3 bytes each
        assert!(clean(&mut s, 7, Lines::Single, "t", &mut report));
        assert_eq!(s, "工作");
        assert_eq!(
            report.changes,
            vec![Change {
                path: "t".into(),
                what: ChangeKind::Cut
            }]
        );
    }

    #[test]
    fn emoji_with_joiner_and_selector_stay_whole() {
        let mut report = Report::default();
        let mut s = "👩\u{200d}💻 ok ✔\u{fe0f}".to_string();
        assert!(!clean(&mut s, 100, Lines::Single, "t", &mut report));
        assert!(report.is_empty());
    }

    #[test]
    fn l1_chars_limit_counts_characters() {
        let mut report = Report::default();
        let mut s = "运行测试运行测试运行测试运行测试运行".to_string();
        clean_chars(&mut s, 16, Lines::Single, "t", &mut report);
        assert_eq!(s.chars().count(), 16);
    }

    /// Every character there is, alone and between others, both ways of lines: the byte scan
    /// that skips most first bytes says what the character scan says.
    #[test]
    fn the_byte_scan_finds_what_the_character_scan_finds() {
        for lines in [Lines::Single, Lines::Multi] {
            for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
                let alone = c.to_string();
                let between = format!("工{c}🚀");
                let expected = is_invisible(c, lines);
                assert_eq!(has_invisible(&alone, lines), expected, "{:?}", c);
                assert_eq!(has_invisible(&between, lines), expected, "{:?}", c);
            }
        }
    }
}
