//! The New page's form for a DSH bridge: each field on a row, choice fields cycled with ←/→,
//! what the catalog could not list, why the form was not sent, and the receipt of what was
//! sent with its request id (SPEC D3, D5).

use ratatui::Frame;
use ratatui::layout::Position;
use ratatui::text::{Line, Span};

use crate::app::dsh_tasks::dsh_intent_parts;
use crate::app::geometry;
use crate::app::phone::Phone;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::screens::dsh_form::{DshField, DshFormScreen, DshPurpose};
use crate::screens::pane::draw_dsh::{receipt_spans, receipt_style};
use crate::ui::put;

const LABEL_WIDTH: usize = 12;

pub(crate) fn draw(frame: &mut Frame<'_>, phone: &Phone, form: &DshFormScreen, theme: &Theme) {
    let area = frame.area();
    let body = geometry::listing(area.width, area.height, false);
    let heading = match form.purpose {
        DshPurpose::Task => format!(
            "New task on {} — tasks/create, or adopt a session of the workspace",
            form.agent
        ),
        DshPurpose::Register => format!(
            "Register a workspace on {} — an existing directory by its absolute path",
            form.agent
        ),
    };
    put(
        frame,
        body.heading,
        0,
        Line::from(Span::styled(heading, theme.title)),
    );
    let list = body.list;
    let width = usize::from(list.width);
    let choices = super::dsh_choices(phone, form);
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut cursor = None;
    for (index, field) in form.fields().iter().enumerate() {
        let focused = index == form.field.min(form.fields().len() - 1);
        let marker = if focused { "› " } else { "  " };
        let label = wrap::pad_to(field.label(), LABEL_WIDTH);
        let value_room = width.saturating_sub(LABEL_WIDTH + 2);
        let line = if let Some(editor) = form.editor(*field) {
            let text = editor.text();
            if focused {
                let column = editor.cursor().1;
                let shift = column.saturating_sub(value_room.saturating_sub(1));
                let shown: String = wrap::skip_columns(&text, shift);
                cursor = Some((
                    u16::try_from(2 + LABEL_WIDTH + column - shift).unwrap_or(0),
                    u16::try_from(lines.len()).unwrap_or(0),
                ));
                Line::from(vec![
                    Span::styled(marker, theme.accent),
                    Span::styled(label, theme.dim),
                    Span::styled(shown, theme.text),
                ])
            } else if text.is_empty() {
                let hint = match field {
                    DshField::Title => "(none: the desktop names it)",
                    DshField::Objective => "(none)",
                    DshField::Path => "(required) e.g. /home/you/project",
                    _ => "(none: the directory's name)",
                };
                Line::from(vec![
                    Span::styled(marker, theme.accent),
                    Span::styled(label, theme.dim),
                    Span::styled(hint, theme.dim),
                ])
            } else {
                Line::from(vec![
                    Span::styled(marker, theme.accent),
                    Span::styled(label, theme.dim),
                    Span::styled(text, theme.text),
                ])
            }
        } else {
            let value = choices.shown(form, *field);
            let count = choices.count(form, *field);
            let shown = if focused && count > 1 {
                format!("‹ {value} ›")
            } else {
                value
            };
            Line::from(vec![
                Span::styled(marker, theme.accent),
                Span::styled(label, theme.dim),
                Span::styled(shown, if focused { theme.accent } else { theme.text }),
            ])
        };
        lines.push(if focused {
            line.style(theme.selected)
        } else {
            line
        });
    }
    lines.push(Line::default());
    let mut say = |text: String, style| {
        for line in wrap::wrap(&text, width) {
            lines.push(Line::from(Span::styled(line, style)));
        }
    };
    if form.purpose == DshPurpose::Task {
        if let Some((_, _, path, _)) = choices.workspaces.get(form.workspace) {
            say(format!("The workspace's directory: {path}"), theme.dim);
        }
        if let Some(view) = phone.dsh_view(&form.agent) {
            // What the bridge sent that could not be read: the choices above lack it.
            for sentence in view.unread_sentences() {
                say(sentence, theme.warn);
            }
        }
        if let Some(view) = phone.dsh_view(&form.agent)
            && let Some(capabilities) = &view.capabilities
        {
            for failure in &capabilities.model_catalog.failures {
                say(
                    format!(
                        "Not in the catalog this time: {} ({}).",
                        failure.provider.as_deref().unwrap_or("a provider"),
                        failure.message
                    ),
                    theme.dim,
                );
            }
        }
        if choices.presets.is_empty() {
            say(
                "The bridge lists no preset, so none can be chosen.".into(),
                theme.dim,
            );
        }
    }
    if let Some(problem) = &form.problem {
        say(format!("Not sent: {problem}"), theme.warn);
    }
    if super::dsh_form_pending(phone, form) {
        say("Sending…".into(), theme.dim);
    } else if let Some(record) = super::dsh_form_receipt(phone, form) {
        // Whole, request id and all, wrapped: the form has the room the pane does not.
        let receipt: String = receipt_spans(
            phone,
            record,
            crate::screens::dsh_form::keys::FORM,
            usize::MAX,
            theme,
        )
        .iter()
        .map(|span| span.content.as_ref())
        .collect();
        say(receipt, receipt_style(&record.state, theme));
        if let (_, Some(detail)) = dsh_intent_parts(record) {
            say(detail, receipt_style(&record.state, theme));
        }
    }
    for (row, line) in lines.into_iter().take(usize::from(list.height)).enumerate() {
        put(frame, list, u16::try_from(row).unwrap_or(0), line);
    }
    if let Some((x, y)) = cursor
        && phone.overlay.is_none()
        && y < list.height
    {
        frame.set_cursor_position(Position::new(
            (list.x + x).min(list.right().saturating_sub(1)),
            list.y + y,
        ));
    }
}

impl crate::ui::Drawn for Box<DshFormScreen> {
    fn place(&self, _phone: &Phone) -> String {
        format!("{} › New", self.agent)
    }

    fn draw(&self, frame: &mut Frame<'_>, phone: &Phone, theme: &Theme) {
        draw(frame, phone, self, theme);
    }
}
