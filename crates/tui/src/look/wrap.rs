//! Styled lines measured in terminal columns: the glass's half of wrapping, on the plain text
//! functions of the model (`crate::text::wrap`), which it re-exports so a drawing names one
//! place for both.

use ratatui::text::{Line, Span};
use unicode_segmentation::UnicodeSegmentation;

use crate::text::wrap::{ELLIPSIS, grapheme_width, take_columns, wrap_pieces};
pub use crate::text::wrap::{around_cursor, pad_to, skip_columns, truncate, width, wrap};

/// [`wrap`] for styled spans: each output line is a list of spans, styles kept.
pub fn wrap_spans(spans: &[Span<'_>], width: usize) -> Vec<Line<'static>> {
    let pieces: Vec<(&str, ratatui::style::Style)> = spans
        .iter()
        .map(|span| (span.content.as_ref(), span.style))
        .collect();
    wrap_pieces(&pieces, width)
        .into_iter()
        .map(|line| {
            Line::from(
                line.into_iter()
                    .map(|(text, style)| Span::styled(text, style))
                    .collect::<Vec<_>>(),
            )
        })
        .collect()
}

/// Cuts a styled line to `width` columns, ending with "…" when something was cut.
pub fn fit_line(line: Line<'static>, width: usize) -> Line<'static> {
    let total: usize = line.spans.iter().map(|s| self::width(&s.content)).sum();
    if total <= width {
        return line;
    }
    let room = width.saturating_sub(self::width(ELLIPSIS));
    let mut used = 0;
    let mut spans = Vec::new();
    let mut last_style = line.style;
    for span in line.spans {
        if used >= room {
            break;
        }
        let kept = take_columns(&span.content, room - used);
        used += self::width(&kept);
        last_style = span.style;
        if !kept.is_empty() {
            spans.push(Span::styled(kept, span.style));
        }
    }
    if width >= self::width(ELLIPSIS) {
        spans.push(Span::styled(ELLIPSIS, last_style));
    }
    Line::from(spans).style(line.style)
}

/// Cuts styled spans into rows of at most `width` columns, grapheme by grapheme, with no
/// regard for words: a line of code keeps every character, in order, spread over rows. Every
/// row but the last is as full as a grapheme boundary allows; an empty input gives one empty
/// row. A grapheme wider than `width` (a CJK character at width 1) becomes "…".
pub(crate) fn split_columns(spans: &[Span<'_>], width: usize) -> Vec<Vec<Span<'static>>> {
    let mut rows: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0;
    for span in spans {
        let mut part = String::new();
        for grapheme in span.content.graphemes(true) {
            let mut grapheme = grapheme;
            let mut w = grapheme_width(grapheme);
            if w > width {
                grapheme = if width == 0 { "" } else { ELLIPSIS };
                w = width.min(1);
            }
            if used + w > width && used > 0 {
                if !part.is_empty()
                    && let Some(row) = rows.last_mut()
                {
                    row.push(Span::styled(std::mem::take(&mut part), span.style));
                }
                rows.push(Vec::new());
                used = 0;
            }
            part.push_str(grapheme);
            used += w;
        }
        if !part.is_empty()
            && let Some(row) = rows.last_mut()
        {
            row.push(Span::styled(part, span.style));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn wrap_spans_keeps_styles() {
        use ratatui::style::Style;
        let bold = Style::new().bold();
        let lines = wrap_spans(&[Span::raw("plain "), Span::styled("bold words", bold)], 11);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].spans[1].style, bold);
        assert_eq!(lines[0].spans[1].content, "bold");
        assert_eq!(lines[1].spans[0].content, "words");
    }

    #[test]
    fn fit_line_cuts_styled_spans() {
        let line = Line::from(vec![Span::raw("ab"), Span::raw("日本語")]);
        let fitted = fit_line(line, 5);
        assert_eq!(fitted.to_string(), "ab日…");
    }

    #[test]
    fn split_columns_keeps_every_character_in_order() {
        use ratatui::style::Style;
        let bold = Style::new().bold();
        let rows = split_columns(&[Span::raw("let x"), Span::styled(" = 日本;", bold)], 4);
        let text: Vec<String> = rows
            .iter()
            .map(|row| row.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(text, ["let ", "x = ", "日本", ";"]);
        assert_eq!(rows[1][1].style, bold);
        assert_eq!(split_columns(&[], 4).len(), 1);
        let narrow = split_columns(&[Span::raw("日a")], 1);
        let narrow: Vec<String> = narrow
            .iter()
            .map(|row| row.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(narrow, ["…", "a"]);
    }

    proptest! {
        #[test]
        fn split_rows_keep_every_character_within_the_width(text in "\\PC{0,80}", w in 1usize..30) {
            if !text.chars().any(char::is_control) {
                    let rows = split_columns(&[Span::raw(text.clone())], w);
                    let joined: String = rows.iter().flatten().map(|s| s.content.as_ref()).collect();
                    if text.graphemes(true).all(|g| grapheme_width(g) <= w) {
                        prop_assert_eq!(joined, text.clone());
                    }
                    for row in &rows {
                        let used: usize = row.iter().map(|s| width(&s.content)).sum();
                        prop_assert!(used <= w);
                    }
                }
        }
    }
}
