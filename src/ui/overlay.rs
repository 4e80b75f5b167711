//! What floats over a screen: the help generated from the keymap, a yes/no question, a prompt.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::theme::Theme;
use super::wrap;
use crate::app::App;
use crate::app::geometry;
use crate::app::keymap::{Action, Context};
use crate::app::overlay::Overlay;

pub fn draw(frame: &mut Frame<'_>, app: &App, theme: &Theme) {
    let Some(overlay) = &app.overlay else {
        return;
    };
    let area = frame.area();
    match overlay {
        Overlay::Help { context, scroll } => help(frame, app, *context, *scroll, theme),
        Overlay::Confirm { question, .. } => {
            let width = usize::from(
                geometry::dialog(area.width, area.height, 1)
                    .width
                    .saturating_sub(2),
            );
            let mut lines: Vec<Line<'static>> = wrap::wrap(question, width)
                .into_iter()
                .map(|l| Line::from(Span::styled(l, theme.text)))
                .collect();
            lines.push(Line::default());
            let yes = app
                .keymap
                .key_label(Context::Confirm, Action::Confirm)
                .unwrap_or_default();
            let no = app
                .keymap
                .key_label(Context::Confirm, Action::Cancel)
                .unwrap_or_default();
            lines.push(Line::from(vec![
                Span::styled(yes, theme.accent),
                Span::styled(" yes   ", theme.dim),
                Span::styled(no, theme.accent),
                Span::styled(" no", theme.dim),
            ]));
            let rect = geometry::dialog(
                area.width,
                area.height,
                u16::try_from(lines.len()).unwrap_or(3),
            );
            boxed(frame, rect, " Are you sure? ", lines, theme);
        }
        Overlay::DshKind { selected, .. } => super::dsh_kind::draw(frame, app, *selected, theme),
        Overlay::Prompt { title, editor, .. } => {
            let text = editor.text();
            let lines = vec![
                Line::from(Span::styled(title.clone(), theme.dim)),
                Line::from(vec![
                    Span::styled("› ", theme.accent),
                    Span::styled(text, theme.text),
                ]),
            ];
            let rect = geometry::dialog(area.width, area.height, 2);
            boxed(frame, rect, " Rename ", lines, theme);
            let x = rect.x + 3 + u16::try_from(editor.cursor().1).unwrap_or(0);
            frame.set_cursor_position(Position::new(
                x.min(rect.right().saturating_sub(2)),
                rect.y + 2,
            ));
        }
    }
}

pub(super) fn boxed(
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
fn clear_straddling(frame: &mut Frame<'_>, rect: Rect) {
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

/// Every binding of the screen below, from the keymap itself.
fn help(frame: &mut Frame<'_>, app: &App, context: Context, scroll: usize, theme: &Theme) {
    let area = frame.area();
    // On a pane, only the keys of its kind of agent.
    let bridge = match app.nav.top() {
        crate::app::navigation::Screen::Pane(pane) => Some(app.is_bridge(&pane.agent)),
        _ => None,
    };
    let bindings = app
        .keymap
        .help_where(context, |action| match (bridge, action) {
            (Some(false), Action::MessageKind | Action::SendMode) => false,
            (Some(true), Action::Belt(_)) => false,
            _ => true,
        });
    let keys_width = bindings
        .iter()
        .map(|(k, _)| wrap::width(k))
        .max()
        .unwrap_or(0)
        .min(28);
    let mut lines: Vec<Line<'static>> = bindings
        .into_iter()
        .map(|(keys, what)| {
            Line::from(vec![
                Span::styled(wrap::pad_to(&keys, keys_width + 2), theme.accent),
                Span::styled(what, theme.text),
            ])
        })
        .collect();
    for note in context.notes() {
        lines.push(Line::from(Span::styled(note.to_string(), theme.dim)));
    }
    lines.push(Line::default());
    lines.push(Line::from(Span::styled(
        "Keys can be changed in the [keys] section of config.toml.",
        theme.dim,
    )));
    let height = area
        .height
        .saturating_sub(2)
        .min(u16::try_from(lines.len() + 2).unwrap_or(u16::MAX));
    let width = area.width.saturating_sub(4).min(76);
    let rect = Rect::new(
        (area.width - width) / 2,
        (area.height - height) / 2,
        width,
        height,
    );
    let visible = usize::from(height.saturating_sub(2));
    let scroll = scroll.min(lines.len().saturating_sub(visible));
    let lines: Vec<Line<'static>> = lines.into_iter().skip(scroll).collect();
    boxed(
        frame,
        rect,
        &format!(" Keys: {} ", context.title()),
        lines,
        theme,
    );
}
