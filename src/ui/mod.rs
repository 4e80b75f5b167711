pub mod inspector;

mod card;
mod chrome;
mod dsh_card;
mod dsh_form;
mod dsh_home;
mod dsh_kind;
mod dsh_pane;
mod history;
mod home;
mod layout;
mod overlay;
mod pane;
mod starters;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::app::geometry;
use crate::app::navigation::Screen;
use crate::look::theme::Theme;
use crate::look::wrap;

/// Draws the whole phone from the app's state. Reads only.
pub fn draw(frame: &mut Frame<'_>, app: &App, theme: &Theme) {
    let area = frame.area();
    if geometry::is_too_small(area.width, area.height) {
        chrome::too_small(frame, area, theme);
        return;
    }
    let parts = geometry::frame(area.width, area.height);
    chrome::title_bar(frame, parts.title, app, theme);
    match app.nav.top() {
        Screen::Home(screen) => home::draw(frame, app, screen, theme),
        Screen::Layout(screen) => layout::draw(frame, app, screen, theme),
        Screen::Pane(screen) => pane::draw(frame, app, screen, theme),
        Screen::Card(key) => card::draw(frame, app, key, theme),
        Screen::New(screen) => starters::draw(frame, app, screen, theme),
        Screen::History(screen) => history::draw_list(frame, app, screen, theme),
        Screen::Conversation(screen) => history::draw_conversation(frame, app, screen, theme),
        Screen::Inspector(screen) => inspector::draw_list(frame, app, screen, theme),
        Screen::Exchange(screen) => inspector::draw_exchange(frame, screen, theme),
        Screen::DshForm(screen) => dsh_form::draw(frame, app, screen, theme),
    }
    chrome::footer(frame, parts.footer, app, theme);
    overlay::draw(frame, app, theme);
}

/// Writes one line into one row, cut to the row's width.
fn put(frame: &mut Frame<'_>, area: Rect, row: u16, line: Line<'static>) {
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
fn columns(cells: &[(String, usize, Style)], width: usize) -> Line<'static> {
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

/// "synced 2s ago", "synced 3m ago".
pub fn ago(seconds: i64) -> String {
    match seconds {
        s if s < 1 => "just now".into(),
        s if s < 60 => format!("{s}s ago"),
        s if s < 3600 => format!("{}m ago", s / 60),
        s => format!("{}h ago", s / 3600),
    }
}
