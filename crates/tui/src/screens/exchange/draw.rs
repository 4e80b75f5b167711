//! Draws one exchange: its request line and status, then the lines `mod.rs` lays out.

use ratatui::Frame;

use crate::app::phone::Phone;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{ExchangeScreen, exchange_parts, lines as detail_lines, status_style};
use crate::look::theme::Theme;
use crate::out;
use crate::screens::search::draw::{draw_line, light};
use crate::ui::put;

pub(crate) fn draw(frame: &mut Frame<'_>, phone: &Phone, screen: &ExchangeScreen, theme: &Theme) {
    let area = frame.area();
    let (heading, whole) = exchange_parts(area.width, area.height);
    let (body, bar) = screen.search.split(whole);
    let record = &screen.record;
    put(
        frame,
        heading,
        0,
        Line::from(vec![
            Span::styled(
                format!("{} {}", record.method, out::visible_line(&record.path)),
                theme.title,
            ),
            Span::styled(
                format!(
                    "  → {}",
                    out::visible_line(&crate::app::wire_log::status_words(record))
                ),
                status_style(record, theme),
            ),
        ]),
    );
    let lines = detail_lines(screen, body.width, theme);
    let height = usize::from(body.height);
    let scroll = screen.scroll.min(lines.len().saturating_sub(height));
    let query = screen.search.query();
    let lit = screen.search.lit && !query.is_empty();
    let current = screen.search.current.as_ref();
    let shown: Vec<Line<'static>> = lines
        .into_iter()
        .enumerate()
        .skip(scroll)
        .take(height)
        .map(|(index, line)| {
            if !lit {
                return line;
            }
            let is_current = |column| current == Some(&(String::new(), index, column));
            light(&line, &query, is_current, theme)
        })
        .collect();
    frame.render_widget(Paragraph::new(shown), body);
    if let Some(bar) = bar {
        draw_line(
            frame,
            phone,
            &screen.search,
            super::keys::EXCHANGE,
            bar,
            theme,
        );
    }
}

impl crate::ui::Drawn for ExchangeScreen {
    fn place(&self, _phone: &Phone) -> String {
        "Wire inspector › Exchange".to_string()
    }

    fn draw(&self, frame: &mut Frame<'_>, phone: &Phone, theme: &Theme) {
        draw(frame, phone, self, theme);
    }
}
