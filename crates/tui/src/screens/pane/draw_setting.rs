//! The picker of a pane's settings: one setting at a time (its agent's mode, then each
//! option), its choices numbered with what each does, the one in effect marked, and the
//! choices that let the agent act without asking marked too (docs/WIRE.md § 5.13).

use ratatui::Frame;
use ratatui::text::{Line, Span};

use crate::app::geometry;
use crate::app::keymap::Action;
use crate::app::overlay::SettingPicker;
use crate::app::phone::Phone;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::ui::popup::boxed_to_fit;

pub(crate) fn draw(frame: &mut Frame<'_>, phone: &Phone, picker: &SettingPicker, theme: &Theme) {
    let area = frame.area();
    let settings = phone
        .agents()
        .pane(&picker.agent, &picker.pane)
        .map(|p| p.pane.settings.clone())
        .unwrap_or_default();
    let Some(setting) = settings.get(picker.setting) else {
        return;
    };
    let width = usize::from(
        geometry::dialog(area.width, area.height, 1)
            .width
            .saturating_sub(2),
    );
    let short = geometry::is_short(area.height);
    let mut lines: Vec<Line<'static>> = Vec::new();
    if settings.len() > 1 {
        let names: Vec<Span<'static>> = settings
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                let style = if i == picker.setting {
                    theme.selected
                } else {
                    theme.dim
                };
                [Span::styled(format!(" {} ", s.name), style), Span::raw(" ")]
            })
            .collect();
        lines.push(Line::from(names));
    }
    let name_width = setting
        .choices
        .iter()
        .map(|c| wrap::width(&c.name))
        .max()
        .unwrap_or(0)
        .min(width / 2);
    // The rows around the lit one, when there are more than the terminal holds.
    let room = usize::from(area.height.saturating_sub(if short { 6 } else { 9 })).max(3);
    let first = picker
        .selected
        .saturating_sub(room.saturating_sub(1))
        .min(setting.choices.len().saturating_sub(room));
    for (index, choice) in setting.choices.iter().enumerate().skip(first).take(room) {
        let lit = index == picker.selected;
        let marker = if lit { "› " } else { "  " };
        let number = if index < 8 {
            format!("{} ", index + 1)
        } else {
            "  ".to_string()
        };
        let now = if choice.id == setting.current {
            "● "
        } else {
            "  "
        };
        let mut about = choice.description.clone().unwrap_or_default();
        if choice.acts_without_asking {
            about = if about.is_empty() {
                "⚠ acts without asking".to_string()
            } else {
                format!("⚠ acts without asking: {about}")
            };
        }
        let used = 2 + 2 + 2 + name_width + 1;
        let line = Line::from(vec![
            Span::styled(format!("{marker}{number}"), theme.accent),
            Span::styled(now.to_string(), theme.ok),
            Span::styled(
                wrap::pad_to(&wrap::truncate(&choice.name, name_width), name_width + 1),
                theme.text,
            ),
            Span::styled(
                wrap::truncate(&about, width.saturating_sub(used)),
                if choice.acts_without_asking {
                    theme.warn
                } else {
                    theme.dim
                },
            ),
        ]);
        lines.push(if lit {
            line.style(theme.selected)
        } else {
            line
        });
    }
    if !short {
        lines.push(Line::default());
    }
    let key = |action| {
        phone
            .keymap()
            .key_label(crate::app::overlay::keys::SETTING_PICKER, action)
            .unwrap_or_default()
    };
    let mut keys: Vec<Vec<Span<'static>>> = vec![vec![
        Span::styled(key(Action::Confirm), theme.accent),
        Span::styled(" switch", theme.dim),
    ]];
    if settings.len() > 1 {
        keys.push(vec![
            Span::styled(key(Action::NextField), theme.accent),
            Span::styled(" next setting", theme.dim),
        ]);
    }
    keys.push(vec![
        Span::styled(key(Action::Cancel), theme.accent),
        Span::styled(" keep", theme.dim),
    ]);
    // One line when they fit, else one each, so no key is cut off.
    let used: usize = keys
        .iter()
        .flatten()
        .map(|s| wrap::width(&s.content))
        .sum::<usize>()
        + 2 * (keys.len() - 1);
    if used <= width {
        let mut one = Vec::new();
        for (i, spans) in keys.into_iter().enumerate() {
            if i > 0 {
                one.push(Span::raw("  "));
            }
            one.extend(spans);
        }
        lines.push(Line::from(one));
    } else {
        lines.extend(keys.into_iter().map(Line::from));
    }
    if !short {
        for line in wrap::wrap(
            "● is in effect now. The pane shows a new value once the agent says yes.",
            width,
        ) {
            lines.push(Line::from(Span::styled(line, theme.dim)));
        }
    }
    boxed_to_fit(frame, area, &format!(" {} ", setting.name), lines, theme);
}
