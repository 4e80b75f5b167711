//! A pop-up box over the screen: what floats (a question, a prompt, the help) and the pane's
//! pickers draw their boxes with it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::app::geometry;
use crate::look::theme::Theme;
use crate::look::wrap;

/// A pop-up as tall as its lines, in the middle of `area`.
pub(crate) fn boxed_to_fit(
    frame: &mut Frame<'_>,
    area: Rect,
    title: &str,
    lines: Vec<Line<'static>>,
    theme: &Theme,
) {
    let rect = geometry::dialog(
        area.width,
        area.height,
        u16::try_from(lines.len()).unwrap_or(u16::MAX),
    );
    boxed(frame, rect, title, lines, theme);
}

pub(crate) fn boxed(
    frame: &mut Frame<'_>,
    rect: Rect,
    title: &str,
    lines: Vec<Line<'static>>,
    theme: &Theme,
) {
    clear_straddling(frame, rect);
    frame.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.accent)
        .title(Span::styled(title.to_string(), theme.title));
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}

/// Blanks the wide characters (CJK, emoji) that lie half under a pop-up's edges: the
/// terminal erases such a character whole when half of it is overwritten, so the cell kept
/// beside the border would show nothing while the buffer still holds the character, and the
/// border's corner would be drawn one cell off (`支付────┘`).
pub(crate) fn clear_straddling(frame: &mut Frame<'_>, rect: Rect) {
    let buffer = frame.buffer_mut();
    let area = buffer.area;
    for y in rect.top()..rect.bottom().min(area.bottom()) {
        if rect.x > area.x {
            let left = &mut buffer[(rect.x - 1, y)];
            if wrap::width(left.symbol()) > 1 {
                left.set_symbol(" ");
            }
        }
        let last = rect.right().saturating_sub(1);
        if rect.right() < area.right() && last >= rect.x {
            let wide = wrap::width(buffer[(last, y)].symbol()) > 1;
            if wide {
                buffer[(rect.right(), y)].set_symbol(" ");
            }
        }
    }
}
