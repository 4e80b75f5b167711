//! A grapheme as every terminal draws it at the same width (SPEC L1, "the glass").
//!
//! ratatui lays a grapheme out at the width `unicode-width` gives it, and its diff then skips
//! the cells that grapheme covers. The terminal does not read that table: it decides by itself,
//! and terminals disagree exactly on the graphemes built from several code points.
//!
//! - A variation selector-16 (U+FE0F) after a text-default character (`✍️`, `⚙️`, `❤️`): xterm,
//!   VTE and tmux 3.3 keep the base's width 1, kitty and tmux 3.4 draw it 2 wide
//!   (tmux/tmux#4287, tmux/tmux#3923, tmux/tmux#4475: "there is no way for tmux to know what
//!   width the terminal is actually going to use").
//! - A skin tone (U+1F3FB–U+1F3FF): tmux 3.3 and older terminals give the modifier its own two
//!   cells after the base (`👍🏽` is four), newer ones join it into one two-cell glyph.
//! - A zero-width-joiner sequence (`👩‍💻`): one two-cell glyph, or each part drawn apart.
//! - A flag, two regional indicators (U+1F1E6–U+1F1FF): tmux keeps each in a cell of its own
//!   (tmux/tmux#3998, tmux/tmux#4853), others draw one glyph; when ratatui then redraws the
//!   flag's first cell and skips the second, the second indicator stays on screen, a lone `🇵`
//!   on the next screen.
//!
//! Since no program can know which table the terminal on the other end uses, [`plain`] writes
//! such a grapheme in the form whose width every terminal agrees on: the variation selector,
//! the skin tone and the joined parts after the first go, a keycap keeps its key, a flag
//! becomes its region's letters (`🇯🇵` → `JP`, the ISO 3166 code the indicators spell, two
//! cells as the flag took). A single code point is left alone: its width is what
//! `unicode-width` and the terminals' own tables (wcwidth) both read from Unicode's East Asian
//! Width, the same for everyone.
//!
//! The screens' last step (`tui::clean_screen`) runs every cell through [`plain`], so whichever
//! screen drew a string, the terminal is sent only graphemes it draws where ratatui thinks.

use std::borrow::Cow;

use unicode_width::UnicodeWidthStr;

/// Variation selectors 15 (text) and 16 (emoji): whether a terminal honours them is its own
/// choice.
const VARIATION_SELECTORS: [char; 2] = ['\u{fe0e}', '\u{fe0f}'];
const ZERO_WIDTH_JOINER: char = '\u{200d}';
/// The enclosing keycap of `#️⃣`, `1️⃣`.
const KEYCAP: char = '\u{20e3}';
const SKIN_TONES: std::ops::RangeInclusive<char> = '\u{1f3fb}'..='\u{1f3ff}';
const REGIONAL_INDICATORS: std::ops::RangeInclusive<char> = '\u{1f1e6}'..='\u{1f1ff}';

/// True when terminals may draw `grapheme` at a width other than `unicode-width`'s.
fn is_unsure(grapheme: &str) -> bool {
    let mut chars = grapheme.chars();
    match (chars.next(), chars.next()) {
        (None, _) => false,
        // A lone regional indicator: a letter for some, half a flag waiting for the other
        // half for others.
        (Some(c), None) => REGIONAL_INDICATORS.contains(&c),
        // A skin tone that starts a grapheme is a swatch, drawn two wide by everyone.
        (Some(_), Some(_)) => grapheme.chars().enumerate().any(|(i, c)| {
            VARIATION_SELECTORS.contains(&c)
                || c == ZERO_WIDTH_JOINER
                || c == KEYCAP
                || (i > 0 && SKIN_TONES.contains(&c))
                || REGIONAL_INDICATORS.contains(&c)
        }),
    }
}

/// `grapheme` as every terminal draws it at one width, never wider than ratatui laid it out:
/// borrowed when it already is. See the module's words for what changes and why.
pub fn plain(grapheme: &str) -> Cow<'_, str> {
    if grapheme.is_ascii() || !is_unsure(grapheme) {
        return Cow::Borrowed(grapheme);
    }
    if grapheme.chars().any(|c| REGIONAL_INDICATORS.contains(&c)) {
        // The region's letters, one cell each; whatever else the grapheme held goes.
        return Cow::Owned(
            grapheme
                .chars()
                .filter(|c| REGIONAL_INDICATORS.contains(c))
                .map(|c| char::from(b'A' + (c as u32 - 0x1f1e6) as u8))
                .collect(),
        );
    }
    let first = grapheme.split(ZERO_WIDTH_JOINER).next().unwrap_or_default();
    let kept: String = first
        .chars()
        .enumerate()
        .filter(|&(i, c)| {
            !VARIATION_SELECTORS.contains(&c) && c != KEYCAP && (i == 0 || !SKIN_TONES.contains(&c))
        })
        .map(|(_, c)| c)
        .collect();
    let laid_out = grapheme.width();
    if kept.is_empty() || kept.width() > laid_out || kept.width() == 0 {
        // Nothing drawable is left at the width the layout gave it (a selector on a wide
        // character that turns narrow without it): a plain replacement character's cells.
        return Cow::Owned("?".repeat(laid_out));
    }
    Cow::Owned(kept)
}

/// `text` with each grapheme written as [`plain`] writes it.
pub fn plain_text(text: &str) -> Cow<'_, str> {
    use unicode_segmentation::UnicodeSegmentation;
    if text.is_ascii() || !text.graphemes(true).any(is_unsure) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.graphemes(true).map(plain).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use unicode_segmentation::UnicodeSegmentation;

    #[test]
    fn each_unsure_grapheme_becomes_its_agreed_form() {
        for (grapheme, shown) in [
            ("🇯🇵", "JP"),
            ("🇺🇸", "US"),
            ("🇸", "S"),
            ("👍🏽", "👍"),
            ("✍️", "✍"),
            ("⚙️", "⚙"),
            ("❤️", "❤"),
            ("👩\u{200d}💻", "👩"),
            ("👨\u{200d}👩\u{200d}👧", "👨"),
            ("🏳️\u{200d}🌈", "🏳"),
            ("#️⃣", "#"),
            ("🏽", "🏽"),
            ("🚀", "🚀"),
            ("工", "工"),
            ("e\u{301}", "e\u{301}"),
            ("a", "a"),
        ] {
            assert_eq!(plain(grapheme), shown, "{grapheme:?}");
        }
    }

    #[test]
    fn a_sentence_keeps_its_words_and_loses_only_the_unsure_parts() {
        assert_eq!(
            plain_text("flag 🇯🇵 here and 🇺🇸 there, 👍🏽 ✍️, 工"),
            "flag JP here and US there, 👍 ✍, 工"
        );
        assert!(matches!(plain_text("plain 工 🚀"), Cow::Borrowed(_)));
    }

    /// Graphemes built from the pieces terminals disagree on, mixed with plain ones.
    fn piece() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "a",
            " ",
            "工",
            "🚀",
            "👍",
            "✍",
            "⚙",
            "#",
            "1",
            "e",
            "🏳",
            "👩",
            "\u{fe0f}",
            "\u{fe0e}",
            "\u{200d}",
            "\u{20e3}",
            "\u{1f3fd}",
            "\u{1f1ef}",
            "\u{1f1f5}",
            "\u{301}",
        ])
        .prop_map(str::to_string)
    }

    proptest! {
        /// What the layout measured is what the cleaned cells take: each grapheme's plain form
        /// is never wider than ratatui laid it out (the rest of its cells are blanks), and it
        /// holds nothing a terminal may draw at another width, so a second pass changes nothing.
        #[test]
        fn the_plain_form_fits_the_cells_the_layout_gave_and_is_sure(
            pieces in prop::collection::vec(piece(), 0..24)
        ) {
            let text = pieces.concat();
            for grapheme in text.graphemes(true) {
                let shown = plain(grapheme);
                prop_assert!(shown.width() <= grapheme.width(), "{grapheme:?} → {shown:?}");
                if grapheme.width() > 0 {
                    prop_assert!(shown.width() > 0, "{grapheme:?} → {shown:?}");
                }
                for part in shown.graphemes(true) {
                    prop_assert!(!is_unsure(part), "{grapheme:?} → {shown:?}");
                }
            }
            let once = plain_text(&text).into_owned();
            prop_assert_eq!(plain_text(&once), Cow::Borrowed(once.as_str()));
        }
    }
}
