//! What frames every screen: the title bar, the footer with key hints or a short message, and
//! the one sentence shown when the terminal is too small.

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::App;
use crate::app::geometry::{self, MIN_HEIGHT, MIN_WIDTH};
use crate::app::keymap::Action;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::model::inbox;
use crate::ui::{Drawn, put};

pub(crate) fn too_small(frame: &mut Frame<'_>, area: Rect, theme: &Theme) {
    let text = format!(
        "collie-phone needs at least {MIN_WIDTH}x{MIN_HEIGHT}; this terminal is {}x{}.",
        area.width, area.height
    );
    let y = area.height / 2;
    let rect = Rect::new(area.x, area.y + y, area.width, area.height - y);
    frame.render_widget(
        Paragraph::new(text)
            .style(theme.warn)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true }),
        rect,
    );
}

/// Where the person is (the room on top, `top`, says it), and how many asks wait.
pub(crate) fn title_bar(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    top: &dyn Drawn,
    theme: &Theme,
) {
    let place = top.place(app);
    let tally = inbox::tally(app.agents(), app.now());
    let waiting = tally.answerable;
    let narrow = geometry::is_narrow(area.width);
    let mut right = match (waiting, narrow) {
        (0, false) => "nothing needs your answer".to_string(),
        (1, false) => "1 ask needs your answer".to_string(),
        (n, false) => format!("{n} asks need your answer"),
        (0, true) => "no asks".to_string(),
        (1, true) => "1 ask".to_string(),
        (n, true) => format!("{n} asks"),
    };
    // Asks on an agent the phone cannot reach are set apart: no key answers them now.
    match (tally.unreachable, narrow) {
        (0, _) => {}
        (n, false) => right.push_str(&format!(" · {n} on an unreachable agent")),
        (n, true) => right.push_str(&format!(" · {n} unreachable")),
    }
    // A mute is said where the count is: the asks are still all counted.
    if let Some(mute) = app.view.ringer().mute_at(app.now()) {
        let until = crate::app::overlay::rings_picker::short_time(mute.until);
        let until = until.trim_end_matches(" UTC");
        right.push_str(&if narrow {
            format!(" · muted {until}")
        } else {
            format!(" · muted until {until}")
        });
    }
    let width = usize::from(area.width);
    // On a narrow terminal every column goes to where the person is.
    let left = if narrow {
        format!(" {place}")
    } else {
        format!(" collie-phone › {place}")
    };
    // The breadcrumb is cut two columns short of the counter, so the two never touch.
    let room = width.saturating_sub(wrap::width(&right) + 2);
    let left = wrap::pad_to(&wrap::truncate(&left, room.saturating_sub(2)), room);
    let right_style = if waiting > 0 { theme.warn } else { theme.dim };
    put(
        frame,
        area,
        0,
        Line::from(vec![
            Span::styled(left, theme.title),
            Span::styled(format!("{right}  "), right_style),
        ]),
    );
}

/// A short message when there is one, else the main keys of where the person is.
pub(crate) fn footer(frame: &mut Frame<'_>, area: Rect, app: &App, top: &dyn Drawn, theme: &Theme) {
    if let Some(toast) = app.footer.toast() {
        let style = if toast.trouble { theme.warn } else { theme.ok };
        let rows = message_rows(&toast.text, usize::from(area.width).saturating_sub(1));
        // A message wider than the line takes the row above too (SPEC Q6), over the last row
        // of the screen, which it hides only while it shows.
        let above = u16::try_from(rows.len() - 1)
            .unwrap_or(0)
            .min(area.y.saturating_sub(1));
        let rect = Rect::new(area.x, area.y - above, area.width, area.height + above);
        frame.render_widget(ratatui::widgets::Clear, rect);
        for (row, text) in (0..).zip(rows) {
            put(
                frame,
                rect,
                row,
                Line::from(Span::styled(format!(" {text}"), style)),
            );
        }
        return;
    }
    let context = app.context();
    let hints = top.hints(app, context).unwrap_or(context.hints());
    // What floats over the screen hints its own keys; the room on top only those that do
    // something now.
    let room = app.nav().top().room();
    let in_room = app.overlay.is_none() && context != crate::app::overlay::keys::FILTER;
    let narrow = geometry::is_narrow(area.width);
    let hints: Vec<(String, &str, bool)> = hints
        .iter()
        .filter(|(action, _, _)| {
            if in_room {
                room.offers(app, *action)
            } else {
                app.help_offers(*action)
            }
        })
        .filter_map(|(action, words, short)| {
            let key = app.keymap().key_label(context, *action)?;
            Some((
                key,
                if narrow { *short } else { *words },
                matches!(action, Action::Help | Action::Back | Action::Quit),
            ))
        })
        .collect();
    let (kept, cut) = fitting(&hints, usize::from(area.width).saturating_sub(1));
    let mut spans = vec![Span::raw(" ")];
    for (key, words, _) in kept {
        if spans.len() > 1 {
            spans.push(Span::styled(" · ", theme.dim));
        }
        spans.push(Span::styled(key.clone(), theme.accent));
        spans.push(Span::styled(format!(" {words}"), theme.dim));
    }
    if cut {
        spans.push(Span::styled(CUT_SIGN, theme.dim));
    }
    put(frame, area, 0, Line::from(spans));
}

/// Ends a footer that left hints out, so a person knows there are more keys (in the help).
const CUT_SIGN: &str = " …";

/// The rows of a message in `width` columns: one when it fits, else two, the second cut with
/// "…" when even two cannot hold it.
fn message_rows(text: &str, width: usize) -> Vec<String> {
    let mut rows = wrap::wrap(text, width.max(1));
    if rows.len() > 2 {
        let rest = rows[1..].join(" ");
        rows.truncate(1);
        rows.push(wrap::truncate(&rest, width));
    }
    if rows.is_empty() {
        rows.push(String::new());
    }
    rows
}

/// The hints that fit in `width`, whole, and whether some were left out (then the line keeps
/// room for the cut sign). The last ones give way first; the help's hint and the key that
/// leaves the screen (the sticky ones) go last, since the help lists every key of the screen and
/// the way out is what a person must never lose (docs/KEYS.md).
fn fitting<'a>(
    hints: &'a [(String, &'a str, bool)],
    width: usize,
) -> (Vec<&'a (String, &'a str, bool)>, bool) {
    let cost = |hint: &(String, &str, bool)| wrap::width(&hint.0) + 1 + wrap::width(hint.1);
    let mut kept: Vec<&(String, &str, bool)> = hints.iter().collect();
    let total = |kept: &[&(String, &str, bool)]| {
        kept.iter().map(|&h| cost(h)).sum::<usize>() + 3 * kept.len().saturating_sub(1)
    };
    if total(&kept) <= width {
        return (kept, false);
    }
    let room = width.saturating_sub(wrap::width(CUT_SIGN));
    while total(&kept) > room {
        let give = kept
            .iter()
            .rposition(|h| !h.2)
            .or_else(|| (kept.len() > 1).then_some(0));
        match give {
            Some(i) => {
                kept.remove(i);
            }
            None => break,
        }
    }
    (kept, true)
}
