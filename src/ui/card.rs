//! An ask card: agent, pane and title, a countdown, the body of its kind, its options as keys,
//! and the state of the answer in the exact words of the SPEC (A2–A15, Q4, Q5, V3).

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use serde_json::Value;

use super::theme::Theme;
use super::wrap;
use crate::app::App;
use crate::app::card::{CANNOT_ANSWER, CardState, CardStatus, FieldValue, closed_sentence};
use crate::app::geometry;
use crate::app::inbox::{AskKey, TimeLeft};
use crate::app::keymap::{Action, Context};
use crate::wire::{AskKind, Effect, FieldKind};

/// Where the terminal cursor goes: a row of the card's lines and a column.
struct Cursor {
    row: usize,
    column: usize,
}

fn wrapped(text: &str, width: usize, style: Style, indent: &str) -> Vec<Line<'static>> {
    wrap::wrap(text, width.saturating_sub(wrap::width(indent)))
        .into_iter()
        .map(|l| Line::from(Span::styled(format!("{indent}{l}"), style)))
        .collect()
}

/// A permission's arguments as data, never prose (SPEC A10): `key: value` rows for a flat
/// object, pretty JSON for anything deeper.
pub fn argument_lines(arguments: &Value, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let flat = arguments
        .as_object()
        .filter(|map| map.values().all(|v| !v.is_object() && !v.is_array()));
    match flat {
        Some(map) if !map.is_empty() => {
            let key_width = map
                .keys()
                .map(|k| wrap::width(k))
                .max()
                .unwrap_or(0)
                .min(20);
            let mut lines = Vec::new();
            for (key, value) in map {
                let text = match value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let mut first = true;
                for part in text.split('\n') {
                    let label = if first {
                        wrap::pad_to(key, key_width)
                    } else {
                        " ".repeat(key_width)
                    };
                    first = false;
                    for piece in wrap::wrap(part, width.saturating_sub(key_width + 6)) {
                        lines.push(Line::from(vec![
                            Span::styled(format!("  {label}: "), theme.dim),
                            Span::styled(piece, theme.code),
                        ]));
                    }
                }
            }
            lines
        }
        _ => {
            let pretty =
                serde_json::to_string_pretty(arguments).unwrap_or_else(|_| arguments.to_string());
            pretty
                .lines()
                .flat_map(|line| wrap::wrap(line, width.saturating_sub(2)))
                .map(|line| Line::from(Span::styled(format!("  {line}"), theme.code)))
                .collect()
        }
    }
}

fn option_key(effect: Option<&Effect>) -> Option<char> {
    match effect {
        Some(Effect::Allow) => Some('y'),
        Some(Effect::Deny) => Some('n'),
        Some(Effect::AllowAlways) => Some('a'),
        _ => None,
    }
}

pub fn draw(frame: &mut Frame<'_>, app: &App, key: &AskKey, theme: &Theme) {
    if super::dsh_card::draw(frame, app, key, theme) {
        return;
    }
    let area = frame.area();
    let rect = geometry::card(area.width, area.height);
    let Some(card) = app.cards.get(key) else {
        return;
    };
    let status = CardStatus::of(&app.intents, key);
    let answerable = app.card_answerable(key);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border)
        .title(Span::styled(
            format!(" {} ", kind_title(&card.ask.kind)),
            theme.title,
        ));
    // One column of room on each side inside the border.
    let width = usize::from(rect.width.saturating_sub(4));
    let (mut lines, cursor) = card_lines(app, card, status.as_ref(), answerable, width, theme);
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
    // Keep the state and the keys in view: when the card is long, its body is cut instead.
    let height = usize::from(inner.height);
    let mut cursor = cursor;
    if lines.len() > height {
        let tail = lines.split_off(lines.len().saturating_sub(4).max(height.saturating_sub(4)));
        lines.truncate(height.saturating_sub(tail.len() + 1));
        lines.push(Line::from(Span::styled("  …", theme.dim)));
        if cursor.as_ref().is_some_and(|c| c.row >= lines.len()) {
            cursor = None;
        }
        lines.extend(tail);
    }
    frame.render_widget(Paragraph::new(lines), inner);
    if let Some(cursor) = cursor.filter(|_| app.overlay.is_none()) {
        let x = inner.x + u16::try_from(cursor.column.min(width.saturating_sub(1))).unwrap_or(0);
        let y = inner.y + u16::try_from(cursor.row).unwrap_or(0);
        if y < inner.bottom() {
            frame.set_cursor_position(Position::new(x, y));
        }
    }
}

fn kind_title(kind: &AskKind) -> String {
    match kind {
        AskKind::Permission => "Permission".into(),
        AskKind::Choice => "Choice".into(),
        AskKind::Text => "Text".into(),
        AskKind::Form => "Form".into(),
        AskKind::Unknown(other) => format!("Ask of kind “{other}”"),
    }
}

fn card_lines(
    app: &App,
    card: &CardState,
    status: Option<&CardStatus>,
    answerable: bool,
    width: usize,
    theme: &Theme,
) -> (Vec<Line<'static>>, Option<Cursor>) {
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut cursor = None;
    let ask = &card.ask;
    // Who asks, and the time left (SPEC A2, A13).
    let countdown = ask
        .expires_at
        .as_deref()
        .and_then(crate::wire::time::parse)
        .map(|at| TimeLeft::until(at, app.now));
    let (left_text, left_style) = match countdown {
        Some(left) if left.is_urgent() || left == TimeLeft::Expired => {
            (left.text(), theme.countdown_urgent)
        }
        Some(left) => (left.text(), theme.countdown),
        None => (String::new(), theme.dim),
    };
    let who = format!("{} · {}", card.key.agent, card.pane_title);
    let room = width.saturating_sub(wrap::width(&left_text) + 1);
    lines.push(Line::from(vec![
        Span::styled(wrap::pad_to(&wrap::truncate(&who, room), room), theme.dim),
        Span::styled(format!(" {left_text}"), left_style),
    ]));
    lines.extend(wrapped(
        &ask.title,
        width,
        theme.title.add_modifier(Modifier::BOLD),
        "",
    ));
    lines.push(Line::default());

    let always = app.card_allow_always(card);
    match &ask.kind {
        AskKind::Permission => {
            if let Some(body) = &ask.permission {
                let tool = if body.tool.trim().is_empty() {
                    "(no tool named)".to_string()
                } else {
                    body.tool.clone()
                };
                lines.push(Line::from(vec![
                    Span::styled("Tool  ", theme.dim),
                    Span::styled(tool, theme.code.add_modifier(Modifier::BOLD)),
                ]));
                lines.push(Line::from(Span::styled("Arguments", theme.dim)));
                lines.extend(argument_lines(&body.arguments, width, theme));
                lines.push(Line::default());
            }
            let options = card.options(always.is_ok());
            for (i, option) in options.iter().enumerate() {
                let letter = option_key(option.effect.as_ref())
                    .map(|c| format!("{c} "))
                    .unwrap_or_else(|| "  ".into());
                lines.push(option_line(
                    i,
                    &letter,
                    &option.label,
                    i == card.selected && answerable,
                    answerable,
                    theme,
                ));
            }
            if let Err(why) = always {
                lines.push(Line::from(Span::styled(why.to_string(), theme.dim)));
            }
        }
        AskKind::Choice => {
            if let Some(prompt) = ask.choice.as_ref().and_then(|c| c.prompt.as_deref()) {
                lines.extend(wrapped(prompt, width, theme.text, ""));
                lines.push(Line::default());
            }
            for (i, option) in card.options(true).iter().enumerate() {
                lines.push(option_line(
                    i,
                    "",
                    &option.label,
                    i == card.selected && answerable,
                    answerable,
                    theme,
                ));
            }
        }
        AskKind::Text => {
            if let Some(body) = &ask.text {
                if let Some(prompt) = &body.prompt {
                    lines.extend(wrapped(prompt, width, theme.text, ""));
                    lines.push(Line::default());
                }
                let typed = card.text.lines();
                if card.text.is_empty() {
                    let hint = body.placeholder.clone().unwrap_or_default();
                    lines.push(Line::from(vec![
                        Span::styled("› ", theme.accent),
                        Span::styled(hint, theme.dim),
                    ]));
                } else {
                    for (i, line) in typed.iter().enumerate() {
                        let mark = if i == 0 { "› " } else { "  " };
                        lines.push(Line::from(vec![
                            Span::styled(mark, theme.accent),
                            Span::styled(line.clone(), theme.text),
                        ]));
                    }
                }
                if answerable {
                    let (row, column) = card.text.cursor();
                    cursor = Some(Cursor {
                        row: lines.len() - typed.len().max(1) + row,
                        column: 2 + column,
                    });
                }
            }
        }
        AskKind::Form => {
            if let Some(prompt) = ask.form.as_ref().and_then(|f| f.prompt.as_deref()) {
                lines.extend(wrapped(prompt, width, theme.text, ""));
                lines.push(Line::default());
            }
            if let (Some(body), Some(state)) = (&ask.form, &card.form) {
                let label_width = body
                    .fields
                    .iter()
                    .map(|f| wrap::width(&f.label) + usize::from(f.required))
                    .max()
                    .unwrap_or(0)
                    .min(28);
                for (i, (field, value)) in body.fields.iter().zip(&state.values).enumerate() {
                    let focused = i == state.focus && answerable;
                    let label = format!("{}{}", field.label, if field.required { "*" } else { "" });
                    let marker = if focused { "› " } else { "  " };
                    let prefix = format!(
                        "{marker}{}  ",
                        wrap::pad_to(&wrap::truncate(&label, label_width), label_width)
                    );
                    let shown = match value {
                        FieldValue::Text(editor) | FieldValue::Number(editor) => {
                            if focused {
                                cursor = Some(Cursor {
                                    row: lines.len(),
                                    column: wrap::width(&prefix) + editor.cursor().1,
                                });
                            }
                            let text = editor.text();
                            if text.is_empty() && !focused {
                                let kind = if field.kind == FieldKind::Number {
                                    "(a number)"
                                } else {
                                    "(empty)"
                                };
                                Span::styled(kind.to_string(), theme.dim)
                            } else {
                                Span::styled(text, theme.text)
                            }
                        }
                        FieldValue::Choice(choice) => {
                            let label = choice
                                .and_then(|c| field.options.get(c))
                                .map_or_else(|| "(pick one)".to_string(), |o| o.label.clone());
                            Span::styled(format!("‹ {label} ›"), theme.accent)
                        }
                        FieldValue::Boolean(on) => Span::styled(
                            if *on { "[x] yes" } else { "[ ] no" }.to_string(),
                            theme.accent,
                        ),
                    };
                    let line = Line::from(vec![
                        Span::styled(prefix, if focused { theme.selected } else { theme.text }),
                        shown,
                    ]);
                    lines.push(line);
                }
            }
        }
        AskKind::Unknown(_) => {
            // SPEC V3: shown, with no buttons.
            lines.push(Line::from(Span::styled(CANNOT_ANSWER, theme.warn)));
        }
    }
    if matches!(
        ask.kind,
        AskKind::Permission | AskKind::Choice | AskKind::Form | AskKind::Text
    ) && !ask.is_answerable()
    {
        lines.push(Line::from(Span::styled(CANNOT_ANSWER, theme.warn)));
    }

    lines.push(Line::default());
    // The state of the answer, in the SPEC's words.
    if let Some(closed) = &card.closed {
        let words = match status {
            Some(
                status @ (CardStatus::Decided(_)
                | CardStatus::TooLate
                | CardStatus::MaybeApplied
                | CardStatus::Unknown { .. }),
            ) => status.sentence(),
            _ => closed_sentence(closed).to_string(),
        };
        lines.push(Line::from(Span::styled(words, theme.warn)));
    } else if let Some(status) = status {
        let style = if status.is_trouble() {
            theme.warn
        } else {
            theme.ok
        };
        lines.push(Line::from(Span::styled(status.sentence(), style)));
    }
    if let Some(notice) = &card.notice {
        lines.push(Line::from(Span::styled(notice.clone(), theme.danger)));
    }
    lines.push(hint_line(app, card, status, answerable, theme));
    (lines, cursor)
}

fn option_line(
    index: usize,
    letter: &str,
    label: &str,
    selected: bool,
    enabled: bool,
    theme: &Theme,
) -> Line<'static> {
    let style = if !enabled {
        theme.dim
    } else if selected {
        theme.selected
    } else {
        theme.text
    };
    Line::from(vec![
        Span::styled(if selected { "› " } else { "  " }.to_string(), theme.accent),
        Span::styled(
            format!("{} {letter}", index + 1),
            if enabled { theme.accent } else { theme.dim },
        ),
        Span::styled(format!(" {label}"), style),
    ])
}

/// The keys that do something on this card now.
fn hint_line(
    app: &App,
    card: &CardState,
    status: Option<&CardStatus>,
    answerable: bool,
    theme: &Theme,
) -> Line<'static> {
    let context = app.context();
    let key = |action| app.keymap.key_label(context, action).unwrap_or_default();
    let mut parts: Vec<String> = Vec::new();
    if answerable {
        match card.ask.kind {
            AskKind::Permission | AskKind::Choice => {
                parts.push("number keys pick".into());
                parts.push(format!(
                    "{} answers the highlighted one",
                    key(Action::Submit)
                ));
            }
            AskKind::Text => {
                parts.push(format!("{} submits", key(Action::Submit)));
                if card.ask.text.as_ref().is_some_and(|t| t.multiline) {
                    parts.push(format!("{} new line", key(Action::Newline)));
                }
            }
            AskKind::Form => {
                parts.push(format!(
                    "{}/{} fields",
                    key(Action::NextField),
                    key(Action::PrevField)
                ));
                parts.push("←/→ Space change".into());
                parts.push(format!("{} submits", key(Action::Submit)));
            }
            AskKind::Unknown(_) => {}
        }
    }
    if status.and_then(CardStatus::retry_id).is_some() {
        let retry = app
            .keymap
            .key_label(
                if context == Context::CardTyping {
                    Context::CardTyping
                } else {
                    Context::Card
                },
                Action::Retry,
            )
            .unwrap_or_default();
        parts.push(format!("{retry} retries"));
    }
    parts.push(format!("{} back", key(Action::Back)));
    Line::from(Span::styled(parts.join(" · "), theme.dim))
}
