//! What floats over a screen: the help generated from the keymap, a yes/no question, a prompt.

use ratatui::Frame;
use ratatui::layout::Position;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::app::geometry;
use crate::app::keymap::{Action, Context};
use crate::app::overlay::help::HelpLines;
use crate::app::overlay::{AllowAlwaysQuestion, Overlay};
use crate::app::phone::Phone;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::ui::popup::{boxed, boxed_to_fit, clear_straddling};

/// The argument lines the allow-always question shows before it points at the card.
const QUESTION_ARGUMENT_LINES: usize = 8;

/// What floats, drawn over the room; `help` is the help's lines where the keys go now (the
/// router knows which room is on top, and so which of its keys the help lists).
pub(crate) fn draw(frame: &mut Frame<'_>, phone: &Phone, help_lines: &HelpLines, theme: &Theme) {
    if let Some(overlay) = &phone.overlay {
        draw_one(frame, phone, overlay, help_lines, theme);
    }
}

/// One thing that floats; the help over a picker draws the picker first, under it.
fn draw_one(
    frame: &mut Frame<'_>,
    phone: &Phone,
    overlay: &Overlay,
    help_lines: &HelpLines,
    theme: &Theme,
) {
    let area = frame.area();
    match overlay {
        Overlay::Help {
            context,
            scroll,
            under,
        } => {
            if let Some(under) = under {
                draw_one(frame, phone, under, &HelpLines::default(), theme);
            }
            help(frame, phone, *context, *scroll, help_lines.clone(), theme)
        }
        Overlay::Confirm { question, .. } => {
            let keys = overlay.keys();
            let (yes_action, yes_words, no_words) =
                if keys == crate::app::overlay::keys::CONFIRM_SETTING {
                    (Action::ConfirmAlways, " switch   ", " keep")
                } else {
                    (Action::Confirm, " yes   ", " no")
                };
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
            let yes = phone
                .keymap()
                .key_label(keys, yes_action)
                .unwrap_or_default();
            let no = phone
                .keymap()
                .key_label(keys, Action::Cancel)
                .unwrap_or_default();
            lines.push(Line::from(vec![
                Span::styled(yes, theme.accent),
                Span::styled(yes_words, theme.dim),
                Span::styled(no, theme.accent),
                Span::styled(no_words, theme.dim),
            ]));
            boxed_to_fit(frame, area, " Are you sure? ", lines, theme);
        }
        Overlay::AllowAlways(question) => allow_always(frame, phone, question, theme),
        Overlay::Setting(picker) => {
            crate::screens::pane::draw_setting::draw(frame, phone, picker, theme)
        }
        Overlay::Rings { selected } => super::draw_rings::draw(frame, phone, *selected, theme),
        Overlay::DshKind { selected, .. } => {
            crate::screens::pane::draw_kind::draw(frame, phone, *selected, theme)
        }
        Overlay::Prompt {
            title,
            editor,
            then,
        } => {
            let width = usize::from(
                geometry::dialog(area.width, area.height, 1)
                    .width
                    .saturating_sub(2),
            );
            // The question wraps; the words typed stay on the last line.
            let mut lines: Vec<Line<'static>> = wrap::wrap(title, width)
                .into_iter()
                .map(|l| Line::from(Span::styled(l, theme.dim)))
                .collect();
            let above = u16::try_from(lines.len()).unwrap_or(1);
            lines.push(Line::from(vec![
                Span::styled("› ", theme.accent),
                Span::styled(editor.text(), theme.text),
            ]));
            let rect = geometry::dialog(area.width, area.height, above + 1);
            let heading = match then {
                crate::app::overlay::Deferred::MuteUntil => " Mute ",
                _ => " Rename ",
            };
            boxed(frame, rect, heading, lines, theme);
            let x = rect.x + 3 + u16::try_from(editor.cursor().1).unwrap_or(0);
            frame.set_cursor_position(Position::new(
                x.min(rect.right().saturating_sub(2)),
                (rect.y + 1 + above).min(rect.bottom().saturating_sub(2)),
            ));
        }
    }
}

/// "Allow always?": where, the tool it lets run without asking, what runs this time, and the
/// one key that says yes.
fn allow_always(
    frame: &mut Frame<'_>,
    phone: &Phone,
    question: &AllowAlwaysQuestion,
    theme: &Theme,
) {
    let area = frame.area();
    let width = usize::from(
        geometry::dialog(area.width, area.height, 1)
            .width
            .saturating_sub(2),
    );
    let key = &question.key;
    let pane = phone
        .card(key)
        .map_or_else(|| key.pane.clone(), |c| c.pane_title.clone());
    let (tool, arguments) = question
        .ask
        .permission
        .as_ref()
        .map(|p| (p.tool.clone(), p.arguments.clone()))
        .unwrap_or_default();
    let text = |words: String, style| {
        wrap::wrap(&words, width)
            .into_iter()
            .map(move |l| Line::from(Span::styled(l, style)))
    };
    let mut lines: Vec<Line<'static>> = Vec::new();
    lines.extend(text(
        format!("Allow always on {} · {pane}?", key.agent),
        theme.title,
    ));
    lines.extend(text(
        format!("From now on the agent may run {tool} without asking you. This time it runs:"),
        theme.text,
    ));
    let mut arguments = crate::screens::card::draw::argument_lines(&arguments, width, theme);
    // A short terminal keeps as many as leave the keys on screen (two at the least), and no
    // blank line before the keys.
    let short = geometry::is_short(area.height);
    let kept = if short {
        let others = lines.len() + 2 + usize::from(question.notice.is_some());
        usize::from(area.height.saturating_sub(2))
            .saturating_sub(others)
            .clamp(2, QUESTION_ARGUMENT_LINES)
    } else {
        QUESTION_ARGUMENT_LINES
    };
    if arguments.len() > kept {
        let more = arguments.len() - kept + 1;
        arguments.truncate(kept - 1);
        arguments.push(Line::from(Span::styled(
            if geometry::is_narrow(area.width) {
                format!("  … {more} more lines, on the card")
            } else {
                format!("  … {more} more lines: cancel, and read them on the card")
            },
            theme.dim,
        )));
    }
    lines.extend(arguments);
    if !short {
        lines.push(Line::default());
    }
    if let Some(notice) = &question.notice {
        lines.extend(text(notice.clone(), theme.danger));
    }
    let label = |action| {
        phone
            .keymap()
            .key_label(crate::app::overlay::keys::CONFIRM_ALWAYS, action)
            .unwrap_or_default()
    };
    let yes = vec![
        Span::styled(label(Action::ConfirmAlways), theme.accent),
        Span::styled(" allows always", theme.dim),
    ];
    let no = vec![
        Span::styled(label(Action::Cancel), theme.accent),
        Span::styled(" cancels (nothing is sent)", theme.dim),
    ];
    // Both keys on one line when they fit, else one line each, never cut.
    let spans_width =
        |spans: &[Span<'_>]| -> usize { spans.iter().map(|s| wrap::width(&s.content)).sum() };
    if spans_width(&yes) + 3 + spans_width(&no) <= width {
        let mut both = yes;
        both.push(Span::raw("   "));
        both.extend(no);
        lines.push(Line::from(both));
    } else {
        lines.push(Line::from(yes));
        lines.push(Line::from(no));
    }
    boxed_to_fit(frame, area, " Allow always? ", lines, theme);
}

/// The help, from `scroll` on; its bottom border says when more lies above or below, and
/// which keys show it.
fn help(
    frame: &mut Frame<'_>,
    phone: &Phone,
    context: Context,
    scroll: usize,
    help_lines: HelpLines,
    theme: &Theme,
) {
    let crate::app::overlay::help::HelpLayout {
        lines,
        rect,
        visible,
    } = crate::app::overlay::help::layout(phone, context, help_lines, frame.area());
    let scroll = scroll.min(lines.len().saturating_sub(visible));
    let above = scroll > 0;
    let below = scroll + visible < lines.len();
    let label = |action| {
        phone
            .keymap()
            .key_label(crate::app::overlay::keys::HELP, action)
            .unwrap_or_default()
    };
    let more = match (above, below) {
        (false, false) => None,
        (false, true) => Some(format!(" ↓ more: {} ", label(Action::PageDown))),
        (true, false) => Some(format!(" ↑ more: {} ", label(Action::PageUp))),
        (true, true) => Some(format!(
            " ↑↓ more: {} {} ",
            label(Action::PageUp),
            label(Action::PageDown)
        )),
    };
    let lines: Vec<Line<'static>> = lines.into_iter().skip(scroll).collect();
    clear_straddling(frame, rect);
    frame.render_widget(Clear, rect);
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.accent)
        .title(Span::styled(
            format!(" Keys: {} ", context.title()),
            theme.title,
        ));
    if let Some(more) = more {
        block = block.title_bottom(Line::from(Span::styled(more, theme.title)).right_aligned());
    }
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}
