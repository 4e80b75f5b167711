//! The screens' last step before the terminal, their part of the one way out (`crate::out`,
//! SPEC L1): every cell of a frame is cleaned after the UI drew it and before ratatui writes it
//! out. Decoding already cleaned what agents sent, so this normally finds nothing; it is here so
//! that a string some screen forgot to clean still cannot reach the terminal as a control,
//! whichever screen drew it.

use std::borrow::Cow;

use ratatui::buffer::Buffer;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

use crate::look::glyph;
use crate::wire::shown;

/// Cleans every cell of `buffer` in place: a cell keeps its symbol without control or
/// invisible characters (line breaks included: a cell is one place on one line), and one left
/// empty becomes a space, so the layout does not move. A grapheme terminals may draw at another
/// width than ratatui laid it out is written in its plain form (`look::glyph`, SPEC L1) over
/// the cells the layout gave it: a flag's two letters take its two cells, a form narrower
/// than its cells leaves the rest blank, so ratatui's diff and the terminal agree where every
/// cell is.
pub(crate) fn clean_buffer(buffer: &mut Buffer) {
    let row = usize::from(buffer.area.width).max(1);
    for i in 0..buffer.content.len() {
        let symbol = buffer.content[i].symbol();
        // The common case, printable ASCII, costs a byte scan.
        if symbol.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            continue;
        }
        let laid_out = symbol.width().max(1);
        let clean = shown::line(symbol);
        let shown = match glyph::plain_text(&clean) {
            Cow::Owned(plain) => plain,
            Cow::Borrowed(_) => match clean {
                Cow::Owned(clean) => clean,
                Cow::Borrowed(_) => continue,
            },
        };
        if shown.is_empty() {
            buffer.content[i].set_symbol(" ");
            continue;
        }
        let style = buffer.content[i].style();
        let end = (i + laid_out).min((i / row + 1) * row);
        let mut at = i;
        for grapheme in shown.graphemes(true) {
            if at >= end {
                break;
            }
            buffer.content[at].set_symbol(grapheme).set_style(style);
            at += grapheme.width().max(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;

    #[test]
    fn a_cell_with_a_control_is_cleaned_and_plain_cells_stay() {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 4, 1));
        buffer[(0, 0)].set_symbol("\u{1b}");
        buffer[(1, 0)].set_symbol("e\u{301}");
        buffer[(2, 0)].set_symbol("\u{202e}x");
        buffer[(3, 0)].set_symbol("工");
        clean_buffer(&mut buffer);
        let symbols: Vec<&str> = buffer.content.iter().map(|c| c.symbol()).collect();
        assert_eq!(symbols, [" ", "e\u{301}", "x", "工"]);
    }

    /// What ratatui lays out is what the terminal is sent, cell for cell: a flag's letters
    /// fill its two cells, a selector's base keeps the first and leaves the second blank.
    #[test]
    fn unsure_graphemes_are_written_plain_over_the_cells_they_were_given() {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 12, 1));
        buffer.set_string(0, 0, "🇯🇵✍️,👍🏽a🇺🇸", ratatui::style::Style::default());
        clean_buffer(&mut buffer);
        let symbols: Vec<&str> = buffer.content.iter().map(|c| c.symbol()).collect();
        assert_eq!(
            symbols,
            ["J", "P", "✍", " ", ",", "👍", " ", "a", "U", "S", " ", " "]
        );
    }

    /// Graphemes built from the pieces terminals disagree on, mixed with plain ones.
    fn piece() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop::sample::select(vec![
            "a",
            " ",
            ",",
            "工",
            "🚀",
            "👍",
            "✍",
            "⚙",
            "#",
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
            "\u{1f1fa}",
            "\u{301}",
        ])
        .prop_map(str::to_string)
    }

    proptest::proptest! {
        /// The sum of the cleaned cells' widths, each wide symbol covering the cells after it,
        /// is the width the layout gave the string (nothing after it moves), and no cell keeps
        /// a grapheme a terminal may draw at another width.
        #[test]
        fn a_cleaned_row_is_as_wide_as_its_layout_and_holds_only_sure_graphemes(
            pieces in proptest::collection::vec(piece(), 1..24)
        ) {
            let text = pieces.concat();
            let laid_out = crate::look::wrap::width(&text);
            proptest::prop_assume!(laid_out > 0);
            let mut buffer = Buffer::empty(Rect::new(0, 0, laid_out as u16, 1));
            buffer.set_string(0, 0, &text, ratatui::style::Style::default());
            clean_buffer(&mut buffer);
            let mut x = 0;
            let mut drawn = 0;
            while x < buffer.content.len() {
                let symbol = buffer.content[x].symbol();
                proptest::prop_assert_eq!(
                    glyph::plain(symbol),
                    std::borrow::Cow::Borrowed(symbol),
                    "{:?} kept {:?}", text, symbol
                );
                let w = symbol.width().max(1);
                drawn += w;
                x += w;
            }
            proptest::prop_assert_eq!(drawn, laid_out, "{:?}", text);
        }
    }
}
