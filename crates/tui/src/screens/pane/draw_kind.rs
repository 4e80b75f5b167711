//! The kind picker of a DSH bridge pane: the six kinds the seed names, with what each means,
//! chosen by number or arrows (SPEC D3). The choice is kept for the pane.

use ratatui::Frame;
use ratatui::text::{Line, Span};

use crate::app::geometry;
use crate::app::keymap::Action;
use crate::app::phone::Phone;
use crate::dsh_wire::AppendKind;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::model::dsh_state::kind_words;
use crate::ui::popup::boxed_to_fit;

pub(crate) fn draw(frame: &mut Frame<'_>, phone: &Phone, selected: usize, theme: &Theme) {
    let area = frame.area();
    let mut lines: Vec<Line<'static>> = Vec::new();
    for (index, kind) in AppendKind::ALL.iter().enumerate() {
        let chosen = index == selected;
        let marker = if chosen { "› " } else { "  " };
        let line = Line::from(vec![
            Span::styled(format!("{marker}{} ", index + 1), theme.accent),
            Span::styled(
                wrap::pad_to(
                    kind.as_str(),
                    if geometry::is_narrow(area.width) {
                        12
                    } else {
                        14
                    },
                ),
                theme.text,
            ),
            Span::styled(kind_words(kind).to_string(), theme.dim),
        ]);
        lines.push(if chosen {
            line.style(theme.selected)
        } else {
            line
        });
    }
    // A short terminal spends no row on the blank line nor on the note below the keys.
    let short = geometry::is_short(area.height);
    if !short {
        lines.push(Line::default());
    }
    let key = |action| {
        phone
            .keymap()
            .key_label(crate::app::overlay::keys::KIND_PICKER, action)
            .unwrap_or_default()
    };
    let width = usize::from(
        geometry::dialog(area.width, area.height, 1)
            .width
            .saturating_sub(2),
    );
    // A number lights its kind; Enter chooses (docs/KEYS.md, one rule for numbers).
    let choose = vec![
        Span::styled("1-6", theme.accent),
        Span::styled(" light · ", theme.dim),
        Span::styled(key(Action::Confirm), theme.accent),
        Span::styled(" choose", theme.dim),
    ];
    let keep = vec![
        Span::styled(key(Action::Cancel), theme.accent),
        Span::styled(" keep the kind", theme.dim),
    ];
    // One line when both fit, else one each, so no key is cut off.
    let used: usize = choose
        .iter()
        .chain(&keep)
        .map(|s| wrap::width(&s.content))
        .sum();
    if used + 3 <= width {
        let mut both = choose;
        both.push(Span::raw("   "));
        both.extend(keep);
        lines.push(Line::from(both));
    } else {
        lines.push(Line::from(choose));
        lines.push(Line::from(keep));
    }
    if !short {
        for line in wrap::wrap(
            "The session sees a plain message; the kind goes in the bridge's record.",
            width,
        ) {
            lines.push(Line::from(Span::styled(line, theme.dim)));
        }
    }
    boxed_to_fit(frame, area, " Kind of the next message ", lines, theme);
}
