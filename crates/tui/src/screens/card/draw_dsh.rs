//! The card of a DSH permission wait (SPEC D6, D7): what the session waits for (the tool and
//! why, or the question), and plainly that it is answered on the desktop. No button pretends
//! otherwise: the bridge has no approval endpoint and never approves by itself.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::app::geometry;
use crate::app::keymap::{Action, Hint};
use crate::app::phone::Phone;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::model::inbox::AskKey;
use crate::wire::{Ask, AskBody};

/// True for an ask no phone can answer because it waits on the desktop.
pub(crate) fn is_desktop_ask(ask: &Ask) -> bool {
    matches!(ask.body(), AskBody::DesktopWait)
}

/// The footer's hints on a card of a desktop wait: no key answers it, so only back and help.
pub(crate) fn hints(phone: &Phone, key: &AskKey) -> Option<&'static [Hint]> {
    (phone.can(&key.agent).desktop_waits && phone.card(key).is_some_and(|c| is_desktop_ask(&c.ask)))
        .then_some(&[
            (Action::Back, "back", "back"),
            (Action::Help, "help", "help"),
        ])
}

/// Draws the card when the ask waits on the desktop; false for any other ask.
pub(crate) fn draw(frame: &mut Frame<'_>, phone: &Phone, key: &AskKey, theme: &Theme) -> bool {
    let Some(card) = phone.card(key) else {
        return false;
    };
    if !is_desktop_ask(&card.ask) {
        return false;
    }
    let area = frame.area();
    let rect = geometry::card(area.width, area.height);
    let width = usize::from(rect.width.saturating_sub(4));
    let ask = &card.ask;
    let mut lines: Vec<Line<'static>> = vec![Line::from(Span::styled(
        format!("{} · {}", key.agent, card.pane_title),
        theme.dim,
    ))];
    for line in wrap::wrap(&ask.title, width) {
        lines.push(Line::from(Span::styled(
            line,
            theme.title.add_modifier(Modifier::BOLD),
        )));
    }
    lines.push(Line::default());
    let mut row = |label: &str, value: &str, style| {
        let label = wrap::pad_to(label, 10);
        for (i, piece) in wrap::wrap(value, width.saturating_sub(10))
            .into_iter()
            .enumerate()
        {
            let label = if i == 0 {
                label.clone()
            } else {
                " ".repeat(10)
            };
            lines.push(Line::from(vec![
                Span::styled(label, theme.dim),
                Span::styled(piece, style),
            ]));
        }
    };
    if let Some(text) = &ask.text {
        row(
            "Question",
            text.prompt
                .as_deref()
                .unwrap_or("(the session gave no question)"),
            theme.text,
        );
    }
    if let Some(permission) = &ask.permission {
        let tool = if permission.tool.trim().is_empty() {
            "(no tool named)"
        } else {
            permission.tool.as_str()
        };
        row("Tool", tool, theme.code);
        if let Some(reason) = permission.arguments.get("reason").and_then(|r| r.as_str()) {
            row("Reason", reason, theme.text);
        }
        if let Some(call) = permission.arguments.get("callId").and_then(|c| c.as_str()) {
            row("Call", call, theme.dim);
        }
    }
    if let Some(stamp) = &ask.opened_at {
        // The wire's timestamp as the person reads a clock: when, and how long ago.
        let since = match stamp.at() {
            Some(when) => format!(
                "{:02}:{:02}:{:02} UTC, {}",
                when.hour(),
                when.minute(),
                when.second(),
                crate::ui::ago((phone.now() - when).whole_seconds())
            ),
            None => stamp.text().to_string(),
        };
        row("Since", &since, theme.dim);
    }
    lines.push(Line::default());
    let auto_approve = phone
        .dsh_view(&key.agent)
        .and_then(|v| v.health.as_ref())
        .is_some_and(|h| h.permissions.auto_approve);
    let mut say = |text: &str, style| {
        for line in wrap::wrap(text, width) {
            lines.push(Line::from(Span::styled(line, style)));
        }
    };
    say(
        "Answer it on the desktop. The bridge offers no way to answer from the phone, and it never approves on its own.",
        theme.warn,
    );
    if auto_approve {
        say(
            "The bridge's health says autoApprove is on, which the protocol never allows; treat that bridge with care.",
            theme.danger,
        );
    }
    say(
        "This card closes by itself once the session goes on.",
        theme.dim,
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border)
        .title(Span::styled(" Waiting on the desktop ", theme.title));
    let wanted = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
    let rect = Rect::new(rect.x, rect.y, rect.width, rect.height.min(wanted));
    let inner = block.inner(rect);
    let inner = Rect::new(
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(2),
        inner.height,
    );
    frame.render_widget(block, rect);
    frame.render_widget(Paragraph::new(lines), inner);
    true
}
