//! An ask card: agent, pane and title, a countdown, the body of its kind, its options as keys,
//! and the state of the answer in the exact words of the SPEC (A2–A15, Q4, Q5, V3).

use std::ops::Range;

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use serde_json::Value;

use crate::app::geometry;
use crate::app::keymap::Action;
use crate::app::phone::Phone;
use crate::look::chat_links::find_links;
use crate::look::theme::Theme;
use crate::look::{markdown, wrap};
use crate::model::ask_diff::Changed;
use crate::model::card_shape::CardShape;
use crate::model::card_state::{
    CANNOT_ANSWER, CardState, CardStatus, FieldValue, closed_sentence, expired_state,
};
use crate::model::editor::Editor;
use crate::model::inbox::AskKey;
use crate::screens::pane::select::DrawnLink;
use crate::wire::{AskKind, AskOption, Effect, FieldKind, tool_input};

/// Where the terminal cursor goes: a row of the card's lines and a column.
struct Cursor {
    row: usize,
    column: usize,
    /// False on a focused field that takes no typing (a choice, a yes/no): its row is kept in
    /// view as a cursor's is, but no terminal cursor is drawn there.
    shown: bool,
}

fn wrapped(text: &str, width: usize, style: Style, indent: &str) -> Vec<Line<'static>> {
    wrap::wrap(text, width.saturating_sub(wrap::width(indent)))
        .into_iter()
        .map(|l| Line::from(Span::styled(format!("{indent}{l}"), style)))
        .collect()
}

/// A permission's arguments as data, never prose (SPEC A10): first the readable form
/// `wire::tool_input` makes of them (the command as typed, or the files then a unified diff),
/// then the fields it does not show, as `key: value` [`rows`].
pub(crate) fn argument_lines(arguments: &Value, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let readable = tool_input::readable(arguments);
    let mut lines = Vec::new();
    if let Some(command) = &readable.command {
        let mut mark = "  $ ";
        for part in command.split('\n') {
            for piece in wrap::wrap(part, width.saturating_sub(4)) {
                lines.push(Line::from(vec![
                    Span::styled(mark, theme.dim),
                    Span::styled(piece, theme.code),
                ]));
                mark = "    ";
            }
        }
    }
    if let Some(diff) = &readable.diff {
        let room = u16::try_from(width.saturating_sub(2)).unwrap_or(u16::MAX);
        for line in markdown::code_block(diff, Some("diff"), room, theme) {
            let mut spans = vec![Span::raw("  ")];
            spans.extend(line.spans);
            lines.push(Line::from(spans));
        }
    }
    if readable.shown.is_empty() {
        lines.extend(data_lines(arguments, width, theme));
    } else if let Some(map) = arguments.as_object() {
        let rest: serde_json::Map<String, Value> = map
            .iter()
            .filter(|(key, _)| !readable.shown.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        lines.extend(rows(&rest, width, theme));
    }
    lines
}

/// Arguments as data: `key: value` rows for a flat object, pretty JSON for anything deeper.
fn data_lines(arguments: &Value, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let flat = arguments
        .as_object()
        .filter(|map| map.values().all(|v| !v.is_object() && !v.is_array()));
    match flat {
        Some(map) if !map.is_empty() => rows(map, width, theme),
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

/// One `key: value` row per field (wrapped, each line of a text on a row of its own); a list or
/// an object is its JSON text.
fn rows(map: &serde_json::Map<String, Value>, width: usize, theme: &Theme) -> Vec<Line<'static>> {
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
        // The key on the value's first row only: a wrapped or second line reads as more of it.
        let mut label = format!("  {}: ", wrap::pad_to(key, key_width));
        for part in text.split('\n') {
            for piece in wrap::wrap(part, width.saturating_sub(key_width + 6)) {
                lines.push(Line::from(vec![
                    Span::styled(std::mem::take(&mut label), theme.dim),
                    Span::styled(piece, theme.code),
                ]));
                if label.is_empty() {
                    label = " ".repeat(key_width + 4);
                }
            }
        }
    }
    lines
}

/// What a field takes besides its kind, in a few dim words: "whole number, 1–9",
/// "an email address", "at most 2".
fn field_bounds(field: &crate::wire::FormField) -> Option<String> {
    let range = match (field.min, field.max) {
        (Some(min), Some(max)) => Some(format!("{min}–{max}")),
        (Some(min), None) => Some(format!("at least {min}")),
        (None, Some(max)) => Some(format!("at most {max}")),
        (None, None) => None,
    };
    let mut words = Vec::new();
    match field.kind {
        FieldKind::Number if field.integer => words.push("whole number".to_string()),
        FieldKind::Text => {
            if let Some(format) = field.format.as_deref().filter(|f| *f != "text") {
                words.push(crate::wire::form_check::format_words(format).to_string());
            }
            if let Some(range) = range.as_ref() {
                words.push(format!("{range} characters"));
            }
        }
        FieldKind::Choice if field.multiple => {
            words.push(format!(
                "Space picks{}",
                range.as_ref().map_or(String::new(), |r| format!(", {r}"))
            ));
        }
        _ => {}
    }
    if matches!(field.kind, FieldKind::Number)
        && let Some(range) = range
    {
        words.push(range);
    }
    (!words.is_empty()).then(|| words.join(", "))
}

/// The letter key of an option, as the keymap binds it: only the first option with its effect
/// gets it, since the key selects that one (an ACP card's "Deny always" is not `n`).
fn option_key(
    app: &Phone,
    card: &CardState,
    options: &[&AskOption],
    index: usize,
) -> Option<String> {
    let effect = options.get(index)?.effect.as_ref()?;
    let action = match effect {
        Effect::Allow => Action::AllowOnce,
        Effect::Deny => Action::Deny,
        Effect::AllowAlways => Action::AllowAlways,
        _ => return None,
    };
    let first = options
        .iter()
        .position(|o| o.effect.as_ref() == Some(effect))?;
    (first == index)
        .then(|| {
            app.keymap()
                .key_label(super::card_context(app, &card.key), action)
        })
        .flatten()
}

pub(crate) fn draw(
    frame: &mut Frame<'_>,
    app: &Phone,
    key: &AskKey,
    theme: &Theme,
    links: &std::cell::RefCell<Vec<DrawnLink>>,
    options_at: &std::cell::RefCell<Vec<(u16, usize)>>,
) {
    if crate::screens::card::draw_dsh::draw(frame, app, key, theme) {
        return;
    }
    let area = frame.area();
    let rect = geometry::card(area.width, area.height);
    let Some(card) = app.card(key) else {
        return;
    };
    let status = CardStatus::of(app.intents(), key);
    let answerable = super::card_answerable(app, key);
    // A narrow or short terminal draws the card without its border, and without the blank
    // lines between its parts: every row and column goes to the ask.
    let compact = geometry::is_narrow(area.width) || geometry::is_short(area.height);
    // The revision is on the card, so a change in place is never invisible (SPEC A3).
    let heading = format!(
        "{} · revision {}",
        kind_title(&card.ask.kind),
        card.ask.revision
    );
    let block = if compact {
        Block::default()
    } else {
        Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border)
            .title(Span::styled(format!(" {heading} "), theme.title))
    };
    let width = text_width(area.width, area.height);
    // Words before air: a card longer than its room gives up its blank lines first, then the
    // row of "Deny, and say why" while it is not selected (its key still selects it and the
    // row comes back with its box), and only then shortens its words.
    let border = if compact { 0 } else { 2 };
    let room = usize::from(rect.height).saturating_sub(border);
    let fitted = |say_why_row: bool| {
        let mut drawn = card_lines(
            app,
            card,
            status.as_ref(),
            answerable,
            width,
            compact,
            say_why_row,
            theme,
        );
        if drawn.0.len() > room {
            drop_blank_lines(&mut drawn.0, &mut drawn.1, &mut drawn.2);
        }
        drawn
    };
    let mut drawn = fitted(true);
    if drawn.0.len() > room && !card.saying_why(app.agent_offer(&card.key.agent)) {
        drawn = fitted(false);
    }
    let (mut lines, mut cursor, cuttable, options_drawn) = drawn;
    let wanted = u16::try_from(lines.len() + if compact { 0 } else { 2 }).unwrap_or(u16::MAX);
    let rect = Rect::new(rect.x, rect.y, rect.width, rect.height.min(wanted));
    let inner = if compact {
        rect
    } else {
        let inner = block.inner(rect);
        Rect::new(
            inner.x + 1,
            inner.y,
            inner.width.saturating_sub(2),
            inner.height,
        )
    };
    frame.render_widget(block, rect);
    // Keep the options, the state and the keys in view: when the card is long, its arguments or
    // prompt are shortened first (their first lines stay, then "…"), and only then the rest.
    let height = usize::from(inner.height);
    let excess = lines.len().saturating_sub(height);
    // Where the answer part (options, fields, the typed text) starts: right after the part
    // that is shortened first.
    let mut answer_start = if cuttable.is_empty() {
        lines.len()
    } else {
        cuttable.end
    };
    if excess > 0 && cuttable.len() > 2 {
        // One line more than the excess goes, to make room for the "…".
        let remove = (excess + 1).min(cuttable.len() - 1);
        let from = cuttable.end - remove;
        lines.splice(
            from..cuttable.end,
            [Line::from(Span::styled("  …", theme.dim))],
        );
        if let Some(c) = cursor.as_mut()
            && c.row >= cuttable.end
        {
            c.row -= remove - 1;
        }
        answer_start = from + 1;
    }
    if lines.len() > height {
        // The answer part and what follows stay whole when they fit with the "…"; else the
        // last four lines (the state and the keys) do.
        let last_four = lines.len().saturating_sub(4);
        let start = if lines.len().saturating_sub(answer_start) < height {
            answer_start.min(last_four)
        } else {
            last_four
        };
        let tail = lines.split_off(start);
        let kept = height.saturating_sub(tail.len() + 1);
        // The field being typed in stays in view, with the line under it (its bounds when
        // they go below): the lines before it give way (after the card's first line), marked
        // "…", rather than the field itself.
        let after = usize::from(cursor.as_ref().is_some_and(|c| c.row + 1 < start));
        if let Some(c) = cursor.as_mut()
            && c.row < start
            && c.row + after >= kept
            && kept >= 3 + after
        {
            let first = c.row + after + 3 - kept;
            lines.splice(1..first, [Line::from(Span::styled("  …", theme.dim))]);
            c.row = kept - 1 - after;
        }
        let head = lines.len().min(kept);
        if lines.len() > kept {
            lines.truncate(kept);
            lines.push(Line::from(Span::styled("  …", theme.dim)));
        }
        cursor = match cursor {
            Some(c) if c.row >= start => Some(Cursor {
                row: c.row - start + lines.len(),
                ..c
            }),
            Some(c) if c.row < head => Some(c),
            _ => None,
        };
        lines.extend(tail);
    }
    // A url card's link, for the runner's OSC 8, where it was drawn.
    if card.ask.choice.as_ref().is_some_and(|c| c.url.is_some()) {
        let shown = find_links(&lines, width)
            .into_iter()
            .filter_map(|piece| {
                let row = u16::try_from(piece.row)
                    .ok()
                    .filter(|r| *r < inner.height)?;
                Some(DrawnLink {
                    x: inner.x.checked_add(u16::try_from(piece.column).ok()?)?,
                    y: inner.y + row,
                    text: piece.text,
                    url: piece.url,
                })
            })
            .collect();
        links.replace(shown);
    }
    // Where each option was drawn, as the person sees it, for a click (docs/KEYS.md).
    let rows: Vec<(u16, usize)> = options_drawn
        .iter()
        .filter_map(|(line, index)| {
            let row = lines.iter().position(|l| l == line)?;
            let y = inner.y.checked_add(u16::try_from(row).ok()?)?;
            (y < inner.bottom()).then_some((y, *index))
        })
        .collect();
    options_at.replace(rows);
    frame.render_widget(Paragraph::new(lines), inner);
    if let Some(cursor) = cursor.filter(|c| c.shown && app.overlay.is_none()) {
        let x = inner.x + u16::try_from(cursor.column.min(width.saturating_sub(1))).unwrap_or(0);
        let y = inner.y + u16::try_from(cursor.row).unwrap_or(0);
        if y < inner.bottom() {
            frame.set_cursor_position(Position::new(x, y));
        }
    }
}

/// The columns of the card's lines on a terminal of this size: the card's width, less its
/// border and one column of room on each side inside it (a compact card has neither).
pub(crate) fn text_width(width: u16, height: u16) -> usize {
    let rect = geometry::card(width, height);
    if geometry::is_narrow(width) || geometry::is_short(height) {
        usize::from(rect.width)
    } else {
        usize::from(rect.width.saturating_sub(4))
    }
}

/// The columns a text answer's rows take: the card's, less the `› ` before them.
pub(crate) fn answer_width(width: u16, height: u16) -> usize {
    text_width(width, height)
        .saturating_sub(ANSWER_MARK_WIDTH)
        .max(1)
}

/// The `› ` before the first row of a text answer, and the room before the others.
const ANSWER_MARK_WIDTH: usize = 2;

fn kind_title(kind: &AskKind) -> String {
    match kind {
        AskKind::Permission => "Permission".into(),
        AskKind::Choice => "Choice".into(),
        AskKind::Text => "Text".into(),
        AskKind::Form => "Form".into(),
        AskKind::Unknown(other) => format!("Ask of kind “{other}”"),
    }
}

/// The card's lines. A `compact` card (drawn without its border) names its kind and revision
/// on its first line, and leaves out the blank lines between its parts.
#[allow(clippy::too_many_arguments)]
fn card_lines(
    app: &Phone,
    card: &CardState,
    status: Option<&CardStatus>,
    answerable: bool,
    width: usize,
    compact: bool,
    say_why_row: bool,
    theme: &Theme,
) -> (
    Vec<Line<'static>>,
    Option<Cursor>,
    Range<usize>,
    OptionLines,
) {
    let (mut lines, mut cursor, mut cuttable, options) = card_parts(
        app,
        card,
        status,
        answerable,
        width,
        compact,
        say_why_row,
        theme,
    );
    if compact {
        drop_blank_lines(&mut lines, &mut cursor, &mut cuttable);
    }
    (lines, cursor, cuttable, options)
}

/// Takes the blank lines between a card's parts out; the rows the cursor and the cuttable part
/// point at move up. A compact card has none, and a card too long for its room gives them up
/// before any of its words.
fn drop_blank_lines(
    lines: &mut Vec<Line<'static>>,
    cursor: &mut Option<Cursor>,
    cuttable: &mut Range<usize>,
) {
    let blanks_before = |row: usize| {
        lines[..row.min(lines.len())]
            .iter()
            .filter(|l| l.spans.is_empty())
            .count()
    };
    if let Some(c) = cursor.as_mut() {
        c.row -= blanks_before(c.row);
    }
    *cuttable =
        cuttable.start - blanks_before(cuttable.start)..cuttable.end - blanks_before(cuttable.end);
    lines.retain(|l| !l.spans.is_empty());
}

/// The lines of a card's options, each with its option's place, to find where they were drawn
/// for the mouse (a click selects an option, docs/KEYS.md).
type OptionLines = Vec<(Line<'static>, usize)>;

#[allow(clippy::too_many_arguments)]
fn card_parts(
    app: &Phone,
    card: &CardState,
    status: Option<&CardStatus>,
    answerable: bool,
    width: usize,
    compact: bool,
    say_why_row: bool,
    theme: &Theme,
) -> (
    Vec<Line<'static>>,
    Option<Cursor>,
    Range<usize>,
    OptionLines,
) {
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut options_drawn: OptionLines = Vec::new();
    let mut cursor = None;
    // The lines a long card shortens first: a permission's arguments or a prompt, never the
    // options, the change banner, the state or the keys.
    let mut cuttable = 0..0;
    let ask = &card.ask;
    // Who asks, and the time left (SPEC A2, A13).
    let (left_text, left_style) =
        crate::ui::countdown::countdown(card.expires_at(), app.now(), theme);
    // A compact card has no border to name its kind and revision (SPEC A3): they lead its
    // first line, where the title bar already names the agent.
    let (who, who_style) = if compact {
        (
            format!(
                "{} · revision {} · {}",
                kind_title(&ask.kind),
                ask.revision,
                card.pane_title
            ),
            theme.title,
        )
    } else {
        (
            format!("{} · {}", card.key.agent, card.pane_title),
            theme.dim,
        )
    };
    let room = width.saturating_sub(wrap::width(&left_text) + 1);
    lines.push(Line::from(vec![
        Span::styled(wrap::pad_to(&wrap::truncate(&who, room), room), who_style),
        Span::styled(format!(" {left_text}"), left_style),
    ]));
    // An agent the phone cannot reach, or that is not ready, is said at the top, before a key
    // is pressed: no answer is hinted while it lasts.
    if card.closed.is_none()
        && let Some(why) = super::card_unreachable(app, &card.key)
    {
        lines.extend(wrapped(&why, width, theme.danger, ""));
    }
    // What changed under the person's eyes comes first, so it is read before anything else and
    // is never the part a long card cuts (docs/ASKS.md, "What changed").
    if let Some((from, changes)) = card.changes(app.agent_offer(&card.key.agent)) {
        lines.extend(change_lines(from, ask.revision, &changes, width, theme));
    }
    lines.extend(wrapped(
        &ask.title,
        width,
        theme.title.add_modifier(Modifier::BOLD),
        "",
    ));
    lines.push(Line::default());

    let always = super::card_allow_always(app, card);
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
                if !compact {
                    lines.push(Line::from(Span::styled("Arguments", theme.dim)));
                }
                let start = lines.len();
                lines.extend(argument_lines(&body.arguments, width, theme));
                cuttable = start..lines.len();
                lines.push(Line::default());
            }
            let options = card.options(always.is_ok());
            for (i, option) in options.iter().enumerate() {
                let letter = option_key(app, card, &options, i)
                    .map(|key| format!("{key} "))
                    .unwrap_or_else(|| "  ".into());
                let line = option_line(
                    i,
                    &letter,
                    &option.label,
                    i == card.selected() && answerable,
                    answerable,
                    theme,
                );
                options_drawn.push((line.clone(), i));
                lines.push(line);
            }
            // Deny, and say why (SPEC A21): a row after the options, and under it, while it
            // is selected, the words in a box as a pane's.
            let offer = app.agent_offer(&card.key.agent);
            if let Some(row) = card.say_why_row(offer).filter(|_| say_why_row) {
                let letter = app
                    .keymap()
                    .key_label(super::card_context(app, &card.key), Action::DenyWithWords)
                    .map(|key| format!("{key} "))
                    .unwrap_or_else(|| "  ".into());
                let selected = card.selected() == row && answerable;
                let line = option_line(
                    row,
                    &letter,
                    "Deny, and say why",
                    selected,
                    answerable,
                    theme,
                );
                options_drawn.push((line.clone(), row));
                lines.push(line);
                if card.selected() == row
                    && let Some(words) = card.say_why()
                {
                    let hint = "what the agent should do instead";
                    let (words, at) = typed_lines(words, hint, width, answerable, theme);
                    if let Some((row, column)) = at {
                        cursor = Some(Cursor {
                            row: lines.len() + row,
                            column,
                            shown: true,
                        });
                    }
                    lines.extend(words);
                }
            }
            if let Err(why) = always {
                lines.extend(wrapped(why, width, theme.dim, ""));
            }
        }
        AskKind::Choice => {
            if let Some(prompt) = ask.choice.as_ref().and_then(|c| c.prompt.as_deref()) {
                let start = lines.len();
                lines.extend(wrapped(prompt, width, theme.text, ""));
                cuttable = start..lines.len();
                lines.push(Line::default());
            }
            // A url card: its link, whole, on lines of its own (OSC 8 where the terminal has
            // it), then what opens it.
            if let Some(url) = ask.choice.as_ref().and_then(|c| c.url.as_deref()) {
                for piece in wrap::wrap(url, width) {
                    lines.push(Line::from(Span::styled(piece, theme.link)));
                }
                let key = |action| {
                    app.keymap()
                        .key_label(crate::screens::card::keys::LINK, action)
                        .unwrap_or_default()
                };
                let (open, copy) = (key(Action::OpenLink), key(Action::Copy));
                // One line, whole: in fewer words where the full sentence does not fit, and
                // cut with "…" only where not even those do (docs/KEYS.md, "Lines that are
                // cut"); a short card has no row to spare for a second one.
                let long = format!(
                    "{open} opens the link in a browser, {copy} copies it; Done once it is done there."
                );
                let short = format!("{open} opens, {copy} copies the link; then Done.");
                let line = if wrap::width(&long) <= width {
                    long
                } else {
                    wrap::truncate(&short, width)
                };
                lines.push(Line::from(Span::styled(line, theme.dim)));
                lines.push(Line::default());
            }
            for (i, option) in card.options(true).iter().enumerate() {
                let line = option_line(
                    i,
                    "",
                    &option.label,
                    i == card.selected() && answerable,
                    answerable,
                    theme,
                );
                options_drawn.push((line.clone(), i));
                lines.push(line);
            }
        }
        AskKind::Text => {
            if let Some(body) = &ask.text {
                if let Some(prompt) = &body.prompt {
                    let start = lines.len();
                    lines.extend(wrapped(prompt, width, theme.text, ""));
                    cuttable = start..lines.len();
                    lines.push(Line::default());
                }
                if let Some(editor) = card.answer_text() {
                    let hint = body.placeholder.as_deref().unwrap_or_default();
                    let (typed, at) = typed_lines(editor, hint, width, answerable, theme);
                    if let Some((row, column)) = at {
                        cursor = Some(Cursor {
                            row: lines.len() + row,
                            column,
                            shown: true,
                        });
                    }
                    lines.extend(typed);
                }
            }
        }
        AskKind::Form => {
            if let Some(prompt) = ask.form.as_ref().and_then(|f| f.prompt.as_deref()) {
                let start = lines.len();
                lines.extend(wrapped(prompt, width, theme.text, ""));
                cuttable = start..lines.len();
                lines.push(Line::default());
            }
            if let (Some(body), Some(state)) = (&ask.form, card.form()) {
                let label_width = body
                    .fields
                    .iter()
                    .map(|f| wrap::width(&f.label) + usize::from(f.required))
                    .max()
                    .unwrap_or(0)
                    .min(if compact { 14 } else { 28 });
                for (i, (field, value)) in body.fields.iter().zip(&state.values).enumerate() {
                    let focused = i == state.focus && answerable;
                    let label = format!("{}{}", field.label, if field.required { "*" } else { "" });
                    let marker = if focused { "› " } else { "  " };
                    let prefix = format!(
                        "{marker}{}  ",
                        wrap::pad_to(&wrap::truncate(&label, label_width), label_width)
                    );
                    let bounds = field_bounds(field).map(|words| format!("  {words}"));
                    // A typed value gets the row's columns after its label. Its bounds stay
                    // beside it while a dozen columns are left for the value; else the focused
                    // field's go below it, and another's are cut with "…" at the edge.
                    const VALUE_ROOM: usize = 12;
                    let room = width.saturating_sub(wrap::width(&prefix));
                    let tight = |words: &String| {
                        room.saturating_sub(wrap::width(words)) < VALUE_ROOM
                            && value.editor().is_some()
                    };
                    let below = bounds.as_ref().filter(|words| focused && tight(words));
                    let beside = bounds.as_ref().filter(|_| below.is_none());
                    let room = match beside {
                        Some(words) if tight(words) => room.min(VALUE_ROOM),
                        Some(words) => room.saturating_sub(wrap::width(words)),
                        None => room,
                    }
                    .max(1);
                    let shown = match value {
                        FieldValue::Text(editor) | FieldValue::Number(editor) => {
                            let text = editor.text();
                            if focused {
                                // The part around the cursor, "…" where text is out of sight.
                                let (before, after) = editor.split_at_cursor();
                                let (shown, column) = wrap::around_cursor(before, after, room);
                                cursor = Some(Cursor {
                                    row: lines.len(),
                                    column: wrap::width(&prefix) + column,
                                    shown: true,
                                });
                                Span::styled(shown, theme.text)
                            } else if text.is_empty() {
                                let kind = if field.kind == FieldKind::Number {
                                    "(a number)"
                                } else {
                                    "(empty)"
                                };
                                Span::styled(kind.to_string(), theme.dim)
                            } else {
                                Span::styled(wrap::truncate(&text, room), theme.text)
                            }
                        }
                        FieldValue::Choice(choice) => {
                            let label = choice
                                .and_then(|c| field.options.get(c))
                                .map_or_else(|| "(pick one)".to_string(), |o| o.label.clone());
                            Span::styled(format!("‹ {label} ›"), theme.accent)
                        }
                        FieldValue::Many { picked, .. } => {
                            let count = picked.iter().filter(|on| **on).count();
                            Span::styled(format!("{count} picked"), theme.dim)
                        }
                        FieldValue::Boolean(on) => Span::styled(
                            if *on { "[x] yes" } else { "[ ] no" }.to_string(),
                            theme.accent,
                        ),
                    };
                    let mut spans = vec![
                        Span::styled(prefix, if focused { theme.selected } else { theme.text }),
                        shown,
                    ];
                    if let Some(words) = beside {
                        spans.push(Span::styled(words.clone(), theme.dim));
                    }
                    if focused && value.editor().is_none() {
                        cursor = Some(Cursor {
                            row: lines.len(),
                            column: 0,
                            shown: false,
                        });
                    }
                    lines.push(wrap::fit_line(Line::from(spans), width));
                    if let Some(words) = below {
                        lines.extend(wrapped(words.trim_start(), width, theme.dim, "    "));
                    }
                    if let FieldValue::Many { picked, at } = value {
                        for (n, (option, on)) in field.options.iter().zip(picked).enumerate() {
                            let here = focused && n == *at;
                            let mark = if here { "  › " } else { "    " };
                            let text = format!(
                                "{mark}{} [{}] {}",
                                n + 1,
                                if *on { "x" } else { " " },
                                option.label
                            );
                            let style = if here { theme.selected } else { theme.text };
                            if here && let Some(c) = cursor.as_mut() {
                                // The lit option is what must stay in view.
                                c.row = lines.len();
                            }
                            lines.extend(wrapped(&text, width, style, ""));
                        }
                    }
                    if let Some(about) = &field.description {
                        lines.extend(wrapped(about, width, theme.dim, "    "));
                    }
                }
                if !body.options.is_empty() {
                    lines.push(Line::default());
                    let buttons: Vec<Span<'static>> = body
                        .options
                        .iter()
                        .enumerate()
                        .map(|(n, option)| {
                            let here = answerable && state.focus == state.values.len() + n;
                            let style = if here { theme.selected } else { theme.accent };
                            let mark = if here { "› " } else { "  " };
                            Span::styled(format!("{mark}[ {} ]", option.label), style)
                        })
                        .collect();
                    lines.push(Line::from(buttons));
                }
            }
        }
        AskKind::Unknown(_) => {
            // SPEC V3: shown, with no buttons.
            lines.extend(wrapped(CANNOT_ANSWER, width, theme.warn, ""));
        }
    }
    if matches!(
        ask.kind,
        AskKind::Permission | AskKind::Choice | AskKind::Form | AskKind::Text
    ) && !ask.is_answerable()
    {
        lines.extend(wrapped(CANNOT_ANSWER, width, theme.warn, ""));
    }

    lines.push(Line::default());
    // The state of the answer, in the SPEC's words.
    if let Some(closed) = &card.closed {
        let words = match status {
            Some(
                status @ (CardStatus::Decided(..)
                | CardStatus::TooLate
                | CardStatus::MaybeApplied
                | CardStatus::Checking { .. }
                | CardStatus::Unknown { .. }),
            ) => status.sentence(),
            _ => closed_sentence(closed),
        };
        lines.extend(wrapped(&words, width, theme.warn, ""));
    } else if let Some(at) = card
        .expired_at(app.now())
        .filter(|_| CardStatus::allows_answer(status))
    {
        // SPEC A13: the phone answers nothing from the deadline on; the card says so in its
        // state, and its hints offer no answering key.
        lines.extend(wrapped(&expired_state(at), width, theme.warn, ""));
    } else if let Some(status) = status {
        let style = if status.is_trouble() {
            theme.warn
        } else {
            theme.ok
        };
        lines.extend(wrapped(&status.sentence(), width, style, ""));
    }
    if let Some(notice) = &card.notice {
        lines.extend(wrapped(notice, width, theme.danger, ""));
    }
    lines.extend(hint_lines(
        app, card, status, answerable, width, compact, theme,
    ));
    (lines, cursor, cuttable, options_drawn)
}

/// The banner of a changed ask: the revisions, then each change as what it was and what it is.
fn change_lines(
    from: u64,
    to: u64,
    changes: &[Changed],
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let revisions = if from == to {
        format!("still revision {to}")
    } else {
        format!("revision {from} → {to}")
    };
    let head = if changes.is_empty() {
        format!("⚠ Changed while on screen ({revisions}); nothing shown is different.")
    } else {
        format!("⚠ Changed while on screen ({revisions}). Read it again:")
    };
    let mut lines = wrapped(&head, width, theme.warn.add_modifier(Modifier::BOLD), "");
    let label_width = changes
        .iter()
        .map(|c| wrap::width(&c.what))
        .max()
        .unwrap_or(0)
        .min(16);
    for change in changes {
        let label = wrap::pad_to(&wrap::truncate(&change.what, label_width), label_width);
        let blank = " ".repeat(label_width);
        for (i, (word, text, style)) in [
            ("was", &change.was, theme.dim),
            ("now", &change.now, theme.warn),
        ]
        .into_iter()
        .enumerate()
        {
            let room = width.saturating_sub(label_width + 8);
            for (j, piece) in wrap::wrap(text, room).into_iter().enumerate() {
                let left = match (i, j) {
                    (0, 0) => format!("  {label} {word} "),
                    (_, 0) => format!("  {blank} {word} "),
                    _ => format!("  {blank}     "),
                };
                lines.push(Line::from(vec![
                    Span::styled(left, theme.dim),
                    Span::styled(piece, style),
                ]));
            }
        }
    }
    lines
}

/// Words typed on a card (a text answer, the words under "Deny, and say why"), wrapped as the
/// message box is (`look::soft_wrap`), so ↑/↓ and what is drawn agree on its rows; `hint`
/// while empty. With the cursor's row and column among these lines while the card can be
/// answered.
fn typed_lines(
    editor: &Editor,
    hint: &str,
    width: usize,
    answerable: bool,
    theme: &Theme,
) -> (Vec<Line<'static>>, Option<(usize, usize)>) {
    let room = width.saturating_sub(ANSWER_MARK_WIDTH).max(1);
    let (rows, (row, column)) = editor.rows(room);
    let mut lines = Vec::new();
    if editor.is_empty() {
        lines.push(Line::from(vec![
            Span::styled("› ", theme.accent),
            Span::styled(wrap::truncate(hint, room), theme.dim),
        ]));
    } else {
        let typed = editor.lines();
        for (i, shown) in rows.iter().enumerate() {
            let mark = if i == 0 { "› " } else { "  " };
            let mut text = &typed[shown.line][shown.bytes.clone()];
            if wrap::width(text) > room {
                text = text.trim_end_matches(char::is_whitespace);
            }
            lines.push(Line::from(vec![
                Span::styled(mark, theme.accent),
                Span::styled(text.to_string(), theme.text),
            ]));
        }
    }
    let at = answerable.then(|| (row, ANSWER_MARK_WIDTH + column.min(room - 1)));
    (lines, at)
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

/// The keys that do something on this card now, as they really work: option keys select, Enter
/// answers the selected one (and asks again before allow-always). Wrapped over more lines
/// when they do not fit, in shorter words on a compact card.
fn hint_lines(
    app: &Phone,
    card: &CardState,
    status: Option<&CardStatus>,
    answerable: bool,
    width: usize,
    compact: bool,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let context = super::card_context(app, &card.key);
    let key = |action| app.keymap().key_label(context, action).unwrap_or_default();
    let mut parts: Vec<String> = Vec::new();
    let saying_why = card.saying_why(app.agent_offer(&card.key.agent));
    if answerable && saying_why {
        // The words after a Deny: Enter sends both, and the way back to the options.
        parts.push(if compact {
            format!("{} denies, sends", key(Action::Submit))
        } else {
            format!("{} denies, then sends the words", key(Action::Submit))
        });
        parts.push(format!("{} options", key(Action::PrevField)));
    } else if answerable {
        match card.ask.kind {
            AskKind::Permission | AskKind::Choice => {
                let offer = app.agent_offer(&card.key.agent);
                let options = card.offered(offer);
                let mut ways = vec![format!("{}/{}", key(Action::Up), key(Action::Down))];
                if !options.is_empty() {
                    let first = key(Action::Pick(1));
                    let last = u8::try_from(card.rows(offer).min(8))
                        .map_or_else(|_| String::new(), |n| key(Action::Pick(n)));
                    ways.push(if first == last {
                        first
                    } else {
                        format!("{first}–{last}")
                    });
                }
                let letters: Vec<String> = [
                    (Effect::Allow, Action::AllowOnce),
                    (Effect::Deny, Action::Deny),
                    (Effect::AllowAlways, Action::AllowAlways),
                ]
                .into_iter()
                .filter(|(effect, _)| options.iter().any(|o| o.effect.as_ref() == Some(effect)))
                .map(|(_, action)| key(action))
                .filter(|label| !label.is_empty())
                .collect();
                if CardShape::of(&card.ask).letters && !letters.is_empty() {
                    ways.push(letters.join("/"));
                }
                // A compact card leaves the selecting keys to its option lines, which show
                // each option's number and letter.
                if !compact {
                    parts.push(format!("{} select", ways.join(", ")));
                }
                let always = card
                    .selected_option(offer)
                    .is_some_and(|o| o.effect == Some(Effect::AllowAlways));
                parts.push(match (always, compact) {
                    (true, false) => {
                        format!("{} asks again before it allows always", key(Action::Submit))
                    }
                    (true, true) => format!("{} asks again first", key(Action::Submit)),
                    (false, false) => format!("{} answers the selected one", key(Action::Submit)),
                    (false, true) => format!("{} answers", key(Action::Submit)),
                });
            }
            AskKind::Text => {
                parts.push(format!("{} submits", key(Action::Submit)));
                if card.ask.text.as_ref().is_some_and(|t| t.multiline) {
                    parts.push(format!("{} new line", key(Action::Newline)));
                }
            }
            AskKind::Form => {
                // The footer of a compact card names the field and back keys.
                if !compact {
                    parts.push(format!(
                        "{}/{} fields",
                        key(Action::NextField),
                        key(Action::PrevField)
                    ));
                }
                parts.extend(focused_field_keys(card, &key(Action::Submit)));
            }
            AskKind::Unknown(_) => {}
        }
    }
    // Nothing can go to an agent that cannot be reached: no retry is hinted either.
    let live =
        card.expired_at(app.now()).is_none() && super::card_unreachable(app, &card.key).is_none();
    if live && matches!(status, Some(CardStatus::Checking { .. })) {
        parts.push(format!("{} checks now", key(Action::Retry)));
    } else if live && status.and_then(CardStatus::retry_id).is_some() {
        parts.push(format!("{} retries", key(Action::Retry)));
    }
    let back = !(compact && answerable && CardShape::of(&card.ask).fields);
    if back {
        parts.push(format!("{} back", key(Action::Back)));
    }
    if !compact {
        // Whole hints, the last before the way back giving way first, and a sign when any
        // did (docs/KEYS.md, "Lines that are cut").
        let last = parts.len().saturating_sub(1);
        let parts: Vec<(String, bool)> = parts
            .into_iter()
            .enumerate()
            .map(|(i, p)| (p, back && i == last))
            .collect();
        let text = crate::ui::fit_words(&parts, width);
        return vec![Line::from(Span::styled(text, theme.dim))];
    }
    let text = parts.join(" · ");
    wrap::wrap(&text, width)
        .into_iter()
        .map(|line| Line::from(Span::styled(line, theme.dim)))
        .collect()
}

/// The keys that act on a form's focused row, with what they do there (card_typing's keys):
/// a number's marks, a choice's numbers and arrows, Space on a yes/no or a pick-several field,
/// and Enter, which submits the form on a field and answers with an option (Decline) on one.
fn focused_field_keys(card: &CardState, enter: &str) -> Vec<String> {
    let (Some(body), Some(state)) = (card.ask.form.as_ref(), card.form()) else {
        return Vec::new();
    };
    if let Some(option) = card.focused_form_option() {
        return vec![format!("{enter} answers “{}”", option.label)];
    }
    let numbers = |field: &crate::wire::FormField| match field.options.len().min(9) {
        1 => "1".to_string(),
        n => format!("1–{n}"),
    };
    let mut parts = Vec::new();
    if let (Some(field), Some(value)) =
        (body.fields.get(state.focus), state.values.get(state.focus))
    {
        match value {
            FieldValue::Number(_) if field.integer => parts.push("type digits - +".to_string()),
            FieldValue::Number(_) => parts.push("type digits - + . e".to_string()),
            FieldValue::Choice(_) if !field.options.is_empty() => {
                parts.push(format!("{} ←/→ Space change", numbers(field)));
            }
            FieldValue::Many { .. } if !field.options.is_empty() => {
                parts.push(format!("{} ←/→ select", numbers(field)));
                parts.push("Space picks".to_string());
            }
            FieldValue::Boolean(_) => parts.push("Space ←/→ toggle".to_string()),
            _ => {}
        }
    }
    parts.push(format!("{enter} submits"));
    parts
}

/// The footer's keys while a form's option (Decline) is focused: Enter answers with it.
const ON_A_FORM_OPTION: &[crate::app::keymap::Hint] = &[
    (Action::Submit, "answer with it", "answer"),
    (Action::NextField, "next field", "next"),
    (Action::Back, "back", "back"),
    (Action::Help, "keys", "keys"),
];

impl crate::ui::Drawn for crate::screens::CardScreen {
    fn place(&self, _app: &Phone) -> String {
        format!("{} › Ask", self.key.agent)
    }

    fn draw(&self, frame: &mut Frame<'_>, app: &Phone, theme: &Theme) {
        self.drawn_links.replace(Vec::new());
        self.options_at.replace(Vec::new());
        draw(
            frame,
            app,
            &self.key,
            theme,
            &self.drawn_links,
            &self.options_at,
        );
    }

    fn hints(
        &self,
        app: &Phone,
        _context: crate::app::keymap::Context,
    ) -> Option<&'static [crate::app::keymap::Hint]> {
        super::draw_dsh::hints(app, &self.key).or_else(|| {
            app.card(&self.key)
                .and_then(CardState::focused_form_option)
                .map(|_| ON_A_FORM_OPTION)
        })
    }
}
