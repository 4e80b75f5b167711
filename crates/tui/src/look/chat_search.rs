//! Search in a chat: the words as the person sees them (the lines as laid out, so markdown's
//! marks and a code line's wrap are what is searched), case-insensitive, grapheme by grapheme,
//! so CJK, emoji and accents match as they show. A match stays inside one line.

use std::collections::VecDeque;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_segmentation::{GraphemeCursor, UnicodeSegmentation};

use super::chat::ChatStyle;
use super::chat_view::ChatLayout;
use super::theme::Theme;
use super::wrap::width as text_width;
use crate::chat::pane_log::ChatEntry;

/// One match: the entry (its index), the line in it, and the columns it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Match {
    pub(crate) entry: usize,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) width: usize,
}

/// A query ready to compare: its characters lowercased. Empty when there is nothing to find.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Query {
    folded: String,
}

/// A character lowercased when that gives one character (so positions stay one for one), as
/// itself otherwise (`İ`, whose lowercase is two).
fn fold(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

impl Query {
    pub(crate) fn new(text: &str) -> Self {
        Self {
            folded: text.chars().map(fold).collect(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.folded.is_empty()
    }

    /// True when `text` holds the query, case aside (a quick look before laying out).
    fn is_in(&self, text: &str) -> bool {
        if text.is_ascii() && self.folded.is_ascii() {
            return find_ascii(text.as_bytes(), self.folded.as_bytes(), 0).is_some();
        }
        text.chars()
            .map(fold)
            .collect::<String>()
            .contains(&self.folded)
    }
}

/// True when an entry's own words hold the query, so its laid-out lines are worth searching.
/// What the chat adds around them ("you ›", bullets, the "↪" of wrapped code) is not searched,
/// so a search for "you" finds what someone wrote, not every message's prefix.
pub(crate) fn entry_may_match(entry: &ChatEntry, query: &Query) -> bool {
    match entry {
        ChatEntry::Item(item) => {
            let mut found = query.is_in(&item.text);
            for extra in [&item.title, &item.url, &item.language]
                .into_iter()
                .flatten()
            {
                found = found || query.is_in(extra);
            }
            if let crate::wire::ItemKind::Unknown(kind) = &item.kind {
                found = found || query.is_in(kind);
            }
            found
        }
        ChatEntry::Closed(closed) => query.is_in(&super::chat::closed_ask_words(closed)),
        ChatEntry::LetGo(note) => query.is_in(&note.words),
    }
}

/// The text of a line, its spans joined.
pub(crate) fn line_text(line: &Line<'_>) -> String {
    let mut text = String::new();
    line_text_into(line, &mut text);
    text
}

/// [`line_text`] into `text`, emptied first: a search over every line of a chat reuses one
/// buffer instead of making a string per line.
fn line_text_into(line: &Line<'_>, text: &mut String) {
    text.clear();
    for span in &line.spans {
        text.push_str(&span.content);
    }
}

/// Where `needle` (ASCII, lowercased) first starts in the ASCII `hay` at or after `from`, case
/// aside. It looks only where the needle's first letter is, in either case, and finds those
/// with `memchr2`, which reads many bytes at a time: most of a chat is not the first letter.
fn find_ascii(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let (&first, _) = needle.split_first()?;
    let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    // The last place a match can start, plus one.
    let end = (hay.len() + 1).checked_sub(needle.len())?;
    let mut at = from;
    while at < end {
        let start = at + memchr::memchr2(lower, upper, &hay[at..end])?;
        if hay[start..start + needle.len()].eq_ignore_ascii_case(needle) {
            return Some(start);
        }
        at = start + 1;
    }
    None
}

/// True when byte `at` of `text` is between two graphemes (an accent stays with its letter).
fn is_boundary(text: &str, at: usize) -> bool {
    GraphemeCursor::new(at, text.len(), true)
        .is_boundary(text, 0)
        .unwrap_or(false)
}

/// Where `query` shows in `text`, as (first column, columns), left to right, not overlapping.
pub(crate) fn find_in(text: &str, query: &Query) -> Vec<(usize, usize)> {
    if query.is_empty() {
        return Vec::new();
    }
    if text.is_ascii() && query.folded.is_ascii() {
        // The common case: a byte is a column.
        let (hay, needle) = (text.as_bytes(), query.folded.as_bytes());
        let mut found = Vec::new();
        let mut at = 0;
        while let Some(start) = find_ascii(hay, needle, at) {
            found.push((start, needle.len()));
            at = start + needle.len();
        }
        return found;
    }
    // Lowercased char for char, with where each folded byte came from in `text`.
    let mut folded = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len() + 1);
    for (at, c) in text.char_indices() {
        let f = fold(c);
        origin.extend(std::iter::repeat_n(at, f.len_utf8()));
        folded.push(f);
    }
    origin.push(text.len());
    let mut found = Vec::new();
    let (mut column, mut seen) = (0, 0);
    for (start, piece) in folded.match_indices(&query.folded) {
        let (from, to) = (origin[start], origin[start + piece.len()]);
        if !is_boundary(text, from) || !is_boundary(text, to) {
            continue;
        }
        column += text_width(&text[seen..from]);
        let width = text_width(&text[from..to]);
        found.push((column, width));
        column += width;
        seen = to;
    }
    found
}

/// Every match of `query` in a chat, oldest first. Lays out the entries not laid out yet (the
/// layout keeps them), so the count is of the whole chat, not of the screen.
pub(crate) fn all_matches(
    layout: &ChatLayout,
    scope: &str,
    entries: &VecDeque<ChatEntry>,
    style: &ChatStyle,
    theme: &Theme,
    query: &Query,
) -> Vec<Match> {
    let mut matches = Vec::new();
    if query.is_empty() {
        return matches;
    }
    let mut text = String::new();
    for (entry_index, entry) in entries.iter().enumerate() {
        if !entry_may_match(entry, query) {
            continue;
        }
        let lines = layout.lines(scope, entry, style, theme);
        for (line_index, line) in lines.iter().enumerate() {
            line_text_into(line, &mut text);
            for (column, width) in find_in(&text, query) {
                matches.push(Match {
                    entry: entry_index,
                    line: line_index,
                    column,
                    width,
                });
            }
        }
    }
    matches
}

/// `line` with the columns of `ranges` drawn in `style` on top of their own.
pub(crate) fn highlight(line: &Line<'static>, ranges: &[(usize, usize, Style)]) -> Line<'static> {
    if ranges.is_empty() {
        return line.clone();
    }
    let style_at = |column: usize| {
        ranges
            .iter()
            .find(|(start, width, _)| column >= *start && column < start + width)
            .map(|(_, _, style)| *style)
    };
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut column = 0;
    for span in &line.spans {
        let mut part = String::new();
        let mut part_style: Option<Style> = None;
        for grapheme in span.content.graphemes(true) {
            let style = style_at(column).map_or(span.style, |s| span.style.patch(s));
            if part_style.is_some_and(|s| s != style) {
                spans.push(Span::styled(
                    std::mem::take(&mut part),
                    part_style.unwrap_or(style),
                ));
            }
            part_style = Some(style);
            part.push_str(grapheme);
            column += text_width(grapheme);
        }
        if let Some(style) = part_style
            && !part.is_empty()
        {
            spans.push(Span::styled(part, style));
        }
    }
    Line::from(spans).style(line.style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Item, ItemKind};
    use ratatui::style::Modifier;

    #[test]
    fn ascii_matches_ignore_case_and_do_not_overlap() {
        let query = Query::new("Ab");
        assert_eq!(
            find_in("ab AB aB xab", &query),
            [(0, 2), (3, 2), (6, 2), (10, 2)]
        );
        assert_eq!(find_in("aaa", &Query::new("aa")), [(0, 2)]);
        assert!(find_in("anything", &Query::new("")).is_empty());
    }

    #[test]
    fn cjk_and_emoji_matches_count_columns() {
        let query = Query::new("模块");
        assert_eq!(find_in("拆成三个模块 🚀", &query), [(8, 4)]);
        assert_eq!(find_in("🚀 Rocket 🚀", &Query::new("rocket 🚀")), [(3, 9)]);
        assert_eq!(
            find_in("ÉCOLE école", &Query::new("école")),
            [(0, 5), (6, 5)]
        );
        // An accent is part of its letter: "e" does not match "é" written as e + U+0301.
        assert!(find_in("e\u{301}", &Query::new("e")).is_empty());
    }

    #[test]
    fn every_match_of_a_chat_is_found_with_its_place() {
        let theme = Theme::builtin("dark").expect("dark");
        let entries: VecDeque<ChatEntry> = ["first Route", "no", "route and ROUTE"]
            .iter()
            .enumerate()
            .map(|(i, text)| ChatEntry::Item(Item::text(format!("i{i}"), ItemKind::Reply, *text)))
            .collect();
        let style = ChatStyle {
            width: 40,
            thinking_expanded: false,
        };
        let layout = ChatLayout::default();
        let found = all_matches(&layout, "s", &entries, &style, &theme, &Query::new("route"));
        let places: Vec<(usize, usize)> = found.iter().map(|m| (m.entry, m.column)).collect();
        assert_eq!(places, [(0, 6), (2, 0), (2, 10)]);
    }

    /// A figure, not a rule: `cargo test --lib chat_search -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement; prints how long a search of a full chat takes"]
    fn a_search_of_a_full_chat_laid_out_and_not() {
        let theme = Theme::builtin("dark").expect("dark");
        let words = "the route checks the turn id before it stops anything 订单服务 ";
        let entries: VecDeque<ChatEntry> = (0..crate::wire::limits::MAX_VIEW_ITEMS)
            .map(|i| {
                let text = words.repeat(2048 / words.len());
                ChatEntry::Item(Item::text(format!("i{i}"), ItemKind::Reply, text))
            })
            .collect();
        let style = ChatStyle {
            width: 80,
            thinking_expanded: false,
        };
        let layout = ChatLayout::default();
        for (what, query) in [
            ("first, laying out", "订单"),
            ("again", "turn id"),
            ("none", "zzz"),
        ] {
            let started = std::time::Instant::now();
            let found = all_matches(&layout, "s", &entries, &style, &theme, &Query::new(query));
            println!("{what}: {} matches in {:?}", found.len(), started.elapsed());
        }
    }

    #[test]
    fn highlight_patches_only_the_matched_columns() {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let line = Line::from(vec![Span::raw("ab"), Span::raw("日本c")]);
        let lit = highlight(&line, &[(1, 3, bold)]);
        let parts: Vec<(String, bool)> = lit
            .spans
            .iter()
            .map(|s| {
                (
                    s.content.to_string(),
                    s.style.add_modifier.contains(Modifier::BOLD),
                )
            })
            .collect();
        assert_eq!(
            parts,
            [
                ("a".into(), false),
                ("b".into(), true),
                ("日".into(), true),
                ("本c".into(), false)
            ]
        );
        assert_eq!(lit.to_string(), line.to_string());
    }

    /// The byte-by-byte scan the first-letter search replaced: every start, case aside.
    fn each_start(text: &str, needle: &str) -> Vec<(usize, usize)> {
        let (hay, needle) = (text.as_bytes(), needle.as_bytes());
        let mut found = Vec::new();
        let mut at = 0;
        while !needle.is_empty() && at + needle.len() <= hay.len() {
            if hay[at..at + needle.len()].eq_ignore_ascii_case(needle) {
                found.push((at, needle.len()));
                at += needle.len();
            } else {
                at += 1;
            }
        }
        found
    }

    #[test]
    fn the_first_letter_search_finds_what_a_byte_by_byte_scan_finds() {
        for (text, query) in [
            ("", "a"),
            ("a", "a"),
            ("A", "a"),
            ("ab", "abc"),
            ("xAbCabc", "abc"),
            ("aaaa", "aa"),
            ("aAaAa", "aa"),
            ("the end", "end"),
            ("end", "END"),
        ] {
            assert_eq!(
                find_in(text, &Query::new(query)),
                each_start(text, &query.to_lowercase())
            );
            assert_eq!(
                Query::new(query).is_in(text),
                !each_start(text, &query.to_lowercase()).is_empty()
            );
        }
        // The Kelvin sign lowercases to an ASCII "k": it still finds both cases of it.
        assert_eq!(find_in("Kk", &Query::new("\u{212a}")), [(0, 1), (1, 1)]);
    }

    proptest::proptest! {
        #[test]
        fn the_first_letter_search_agrees_with_a_byte_by_byte_scan(
            text in "[abAB ]{0,40}",
            query in "[abAB]{1,4}",
        ) {
            let folded = query.to_lowercase();
            proptest::prop_assert_eq!(find_in(&text, &Query::new(&query)), each_start(&text, &folded));
            proptest::prop_assert_eq!(
                Query::new(&query).is_in(&text),
                !each_start(&text, &folded).is_empty()
            );
        }
    }
}
