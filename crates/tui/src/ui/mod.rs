//! The drawing kit, below the rooms' draw halves: the `Drawn` trait each room's `draw.rs`
//! implements, and the pieces several screens share (`put`, a row of columns, a filter line, a
//! pop-up box). It names no room; the frame's root that dispatches to them is
//! `crate::shell::frame`. Reads the `Phone`; never changes it and never does I/O.

pub(crate) mod countdown;
pub(crate) mod filter;
pub(crate) mod popup;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::keymap::{Context, Hint};
use crate::app::phone::Phone;
use crate::look::theme::Theme;
use crate::look::wrap;

/// The ui's half of a room, written in its `draw.rs`: where the person is, for the title bar,
/// the screen itself, and the footer's keys where the room hints other keys than its key
/// part's.
pub(crate) trait Drawn {
    /// Where the person is: "agent › Workspaces".
    fn place(&self, phone: &Phone) -> String;

    fn draw(&self, frame: &mut Frame<'_>, phone: &Phone, theme: &Theme);

    /// The footer's keys where they differ from the hints of the key part `context` (a
    /// bridge's pane, its layout, a desktop wait); None keeps the key part's own.
    fn hints(&self, _phone: &Phone, _context: Context) -> Option<&'static [Hint]> {
        None
    }
}

/// Writes one line into one row, cut to the row's width.
pub(crate) fn put(frame: &mut Frame<'_>, area: Rect, row: u16, line: Line<'static>) {
    if row >= area.height {
        return;
    }
    let rect = Rect::new(area.x, area.y + row, area.width, 1);
    let line = wrap::fit_line(line, usize::from(area.width));
    frame
        .buffer_mut()
        .set_line(rect.x, rect.y, &line, rect.width);
}

/// A row of columns: each text padded or cut to its width (display width, so CJK and emoji
/// line up), the last taking what is left.
pub(crate) fn columns(cells: &[(String, usize, Style)], width: usize) -> Line<'static> {
    let mut spans = Vec::new();
    let mut used = 0;
    for (i, (text, cell_width, style)) in cells.iter().enumerate() {
        let room = width.saturating_sub(used);
        let cell = if i + 1 == cells.len() {
            wrap::truncate(text, room)
        } else {
            let w = (*cell_width).min(room);
            wrap::pad_to(&wrap::truncate(text, w), w)
        };
        used += wrap::width(&cell);
        spans.push(Span::styled(cell, *style));
    }
    Line::from(spans)
}

/// "synced 2s ago": in `look`, where the router can read it too (`App::redraws`).
pub(crate) use crate::look::ago;
