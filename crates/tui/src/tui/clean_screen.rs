//! The screens' last step before the terminal, their part of the one way out (`crate::out`,
//! SPEC L1): every cell of a frame is cleaned after the UI drew it and before ratatui writes it
//! out. Decoding already cleaned what agents sent, so this normally finds nothing; it is here so
//! that a string some screen forgot to clean still cannot reach the terminal as a control,
//! whichever screen drew it.

use std::borrow::Cow;

use ratatui::buffer::Buffer;

use crate::wire::shown;

/// Cleans every cell of `buffer` in place: a cell keeps its symbol without control or
/// invisible characters (line breaks included: a cell is one place on one line), and one left
/// empty becomes a space, so the layout does not move.
pub(crate) fn clean_buffer(buffer: &mut Buffer) {
    for cell in &mut buffer.content {
        let symbol = cell.symbol();
        // The common case, printable ASCII, costs a byte scan.
        if symbol.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            continue;
        }
        if let Cow::Owned(clean) = shown::line(symbol) {
            let clean = if clean.is_empty() {
                " ".to_string()
            } else {
                clean
            };
            cell.set_symbol(&clean);
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
}
