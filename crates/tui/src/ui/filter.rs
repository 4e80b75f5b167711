//! The filter line a list screen shows under its rows after `/`.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::put;
use crate::app::list::Filter;
use crate::look::theme::Theme;

/// The filter line under a list, while a filter is typed or set.
pub(crate) fn draw_filter(frame: &mut Frame<'_>, area: Rect, filter: &Filter, theme: &Theme) {
    if area.height == 0 {
        return;
    }
    put(
        frame,
        area,
        0,
        Line::from(vec![
            Span::styled("/ ", theme.accent),
            Span::styled(filter_text(filter), theme.text),
        ]),
    );
}

/// A filter's words, with a caret where the cursor is while they are typed.
pub(crate) fn filter_text(filter: &Filter) -> String {
    if !filter.editing {
        return filter.text();
    }
    let (before, after) = filter.editor.split_at_cursor();
    format!("{before}▏{after}")
}
