//! The rings over any screen: the mute's rows, then each setting with its value, and the
//! person's command as the config file says it (docs/CONFIG.md, "Rings").

use ratatui::Frame;
use ratatui::text::{Line, Span};

use crate::app::geometry;
use crate::app::keymap::Action;
use crate::app::overlay::keys::RINGS;
use crate::app::overlay::rings_picker::ROWS;
use crate::app::phone::Phone;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::ui::popup::boxed_to_fit;

pub(crate) fn draw(frame: &mut Frame<'_>, phone: &Phone, selected: usize, theme: &Theme) {
    let area = frame.area();
    let width = usize::from(
        geometry::dialog(area.width, area.height, 1)
            .width
            .saturating_sub(2),
    );
    let rows: Vec<(String, String)> = ROWS.iter().map(|row| phone.ring_row(*row)).collect();
    // The values are short and say the state: they get their room first, the labels the rest.
    let value_width = rows
        .iter()
        .map(|(_, value)| wrap::width(value))
        .max()
        .unwrap_or(0);
    let label_width = rows
        .iter()
        .map(|(label, _)| wrap::width(label))
        .max()
        .unwrap_or(0)
        .min(width.saturating_sub(value_width + 4));
    let mut lines: Vec<Line<'static>> = Vec::new();
    for (index, (label, value)) in rows.into_iter().enumerate() {
        let lit = index == selected;
        let marker = if lit { "› " } else { "  " };
        let label = wrap::pad_to(&wrap::truncate(&label, label_width), label_width);
        let room = width.saturating_sub(label_width + 4);
        let line = Line::from(vec![
            Span::styled(marker.to_string(), theme.accent),
            Span::styled(label, theme.text),
            Span::raw("  "),
            Span::styled(wrap::truncate(&value, room), theme.accent),
        ]);
        lines.push(if lit {
            line.style(theme.selected)
        } else {
            line
        });
    }
    let short = geometry::is_short(area.height);
    if !short {
        lines.push(Line::default());
    }
    // The keys before the command's line: on a short screen the box keeps what it must.
    let key = |action| phone.keymap().key_label(RINGS, action).unwrap_or_default();
    lines.push(Line::from(vec![
        Span::styled(key(Action::Confirm), theme.accent),
        Span::styled(" mute / switch · ", theme.dim),
        Span::styled(key(Action::Cancel), theme.accent),
        Span::styled(" close", theme.dim),
    ]));
    let rules = &phone.view.ringer().rules;
    let command = if rules.command.is_empty() {
        "No command of yours: [notify] command in the config file sets one.".to_string()
    } else {
        format!(
            "Your command: {}, after {} s unwatched (ended after {} s).",
            rules.command.join(" "),
            rules.after,
            rules.limit
        )
    };
    for line in wrap::wrap(&crate::out::line(&command), width) {
        lines.push(Line::from(Span::styled(line, theme.dim)));
    }
    boxed_to_fit(frame, area, " Rings ", lines, theme);
}
