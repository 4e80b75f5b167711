//! The list of the agent's commands over the pane's box, after `/` at its start: each command
//! with what it does and what to type after it, the lit one marked (docs/KEYS.md).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::app::phone::Phone;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::screens::PaneScreen;

/// Rows the list takes at most; the lit one is always among them.
const ROWS: usize = 6;

pub(crate) fn draw(
    frame: &mut Frame<'_>,
    phone: &Phone,
    screen: &PaneScreen,
    input: Rect,
    theme: &Theme,
) {
    let offered = crate::screens::pane::commands::offered(
        phone,
        &screen.agent,
        &screen.pane,
        &screen.commands,
    );
    if offered.is_empty() {
        return;
    }
    let top_of_body = frame.area().y + 1;
    let room = usize::from(input.y.saturating_sub(top_of_body));
    let rows = offered.len().min(ROWS).min(room);
    if rows == 0 {
        return;
    }
    let selected = screen.commands.selected.min(offered.len() - 1);
    let first = selected.saturating_sub(rows - 1);
    let width = usize::from(input.width);
    let name_width = offered
        .iter()
        .map(|c| wrap::width(&c.name) + 1)
        .max()
        .unwrap_or(1)
        .min(width / 3);
    let lines: Vec<Line<'static>> = offered
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(index, command)| {
            let lit = index == selected;
            let mut about = command.description.clone().unwrap_or_default();
            if let Some(hint) = &command.hint {
                about = format!("{about}  ‹{hint}›");
            }
            let used = 2 + name_width + 2;
            let line = Line::from(vec![
                Span::styled(if lit { "› " } else { "  " }, theme.accent),
                Span::styled(
                    wrap::pad_to(&format!("/{}", command.name), name_width + 2),
                    theme.text,
                ),
                Span::styled(
                    wrap::truncate(&about, width.saturating_sub(used)),
                    theme.dim,
                ),
            ]);
            if lit {
                line.style(theme.selected)
            } else {
                line
            }
        })
        .collect();
    let height = u16::try_from(rows).unwrap_or(1);
    let area = Rect::new(input.x, input.y - height, input.width, height);
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).style(theme.text), area);
}
