//! Draws one exchange: its request line and status, then the lines `mod.rs` lays out.

use ratatui::Frame;

use crate::app::phone::Phone;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{ExchangeScreen, exchange_parts, lines as detail_lines, status_style};
use crate::look::theme::Theme;
use crate::out;
use crate::ui::put;

pub(crate) fn draw(frame: &mut Frame<'_>, screen: &ExchangeScreen, theme: &Theme) {
    let area = frame.area();
    let (heading, body) = exchange_parts(area.width, area.height);
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
    let shown: Vec<Line<'static>> = lines.into_iter().skip(scroll).take(height).collect();
    frame.render_widget(Paragraph::new(shown), body);
}

impl crate::ui::Drawn for ExchangeScreen {
    fn place(&self, _phone: &Phone) -> String {
        "Wire inspector › Exchange".to_string()
    }

    fn draw(&self, frame: &mut Frame<'_>, phone: &Phone, theme: &Theme) {
        let _ = phone;
        draw(frame, self, theme);
    }
}
