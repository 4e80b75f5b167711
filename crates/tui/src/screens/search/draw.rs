//! The search drawn: the line under the text (the words typed, or the lit matches' count and
//! their keys) and a line of text with its matches lit, the current one brighter.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::Search;
use crate::app::keymap::{Action, Context};
use crate::app::phone::Phone;
use crate::look::chat_search::{Query, find_in, highlight, line_text};
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::ui::put;

/// `line` with the matches of `query` lit; `is_current` says, by column, which is current.
pub(crate) fn light(
    line: &Line<'static>,
    query: &Query,
    is_current: impl Fn(usize) -> bool,
    theme: &Theme,
) -> Line<'static> {
    let found = theme.accent.add_modifier(Modifier::REVERSED);
    let current = theme
        .warn
        .add_modifier(Modifier::REVERSED | Modifier::BOLD | Modifier::UNDERLINED);
    let ranges: Vec<(usize, usize, Style)> = find_in(&line_text(line), query)
        .into_iter()
        .map(|(column, width)| {
            let style = if is_current(column) { current } else { found };
            (column, width, style)
        })
        .collect();
    highlight(line, &ranges)
}

/// The line under the text while the search shows: the search line while it is open (the
/// cursor on it), else the lit matches' count with the keys of `keys` that go on. False when
/// the search does not show.
pub(crate) fn draw_line(
    frame: &mut Frame<'_>,
    phone: &Phone,
    search: &Search,
    keys: Context,
    bar: Rect,
    theme: &Theme,
) -> bool {
    let key = |action| phone.keymap().key_label(keys, action).unwrap_or_default();
    let count = match search.count {
        (_, 0) if search.editor.is_empty() => "type words to find".to_string(),
        (_, 0) => "no match".to_string(),
        (n, all) => format!("{n} of {all}"),
    };
    let width = usize::from(bar.width);
    if search.editing && phone.overlay.is_none() {
        let right = format!("  {count}  ");
        let room = width.saturating_sub(wrap::width(&right) + 2).max(1);
        let text = search.editor.text();
        let (_, column) = search.editor.cursor();
        // The cursor's end of a long query shows.
        let shift = column.saturating_sub(room.saturating_sub(1));
        let shown: String = wrap::truncate(&wrap::skip_columns(&text, shift), room);
        let used = 2 + wrap::width(&shown);
        let count_style = if search.count.1 == 0 && !search.editor.is_empty() {
            theme.warn
        } else {
            theme.dim
        };
        put(
            frame,
            bar,
            0,
            Line::from(vec![
                Span::styled("/ ", theme.accent),
                // The last search's words, which the first character typed replaces.
                Span::styled(
                    shown,
                    if search.replaces {
                        theme.selected
                    } else {
                        theme.text
                    },
                ),
                Span::raw(" ".repeat(width.saturating_sub(used + wrap::width(&right)))),
                Span::styled(right, count_style),
            ]),
        );
        let x = bar.x + u16::try_from(2 + column - shift).unwrap_or(0);
        frame.set_cursor_position(Position::new(x.min(bar.right().saturating_sub(1)), bar.y));
        return true;
    }
    if search.lit && !search.editor.is_empty() {
        let words = format!(
            "/ {}  {count} · {} next · {} previous · {} hides them",
            search.editor.text(),
            key(Action::NextMatch),
            key(Action::PrevMatch),
            key(Action::Back)
        );
        put(frame, bar, 0, Line::from(Span::styled(words, theme.accent)));
        return true;
    }
    false
}
