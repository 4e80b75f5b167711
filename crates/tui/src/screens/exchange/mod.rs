//! One exchange of the wire inspector, whole: its fields, then its request and reply bodies laid
//! out for reading (JSON indented), scrolled by lines. Its lines are built here, so the keys know
//! how far a page goes and `draw.rs` paints the same lines.

pub(crate) mod draw;
pub(crate) mod keys;

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::keymap::{Action, Context};
use crate::app::phone::Phone;
use crate::app::wire_log::WireLog;
use crate::app::{Command, geometry, pretty_json};
use crate::engine::ExchangeRecord;
use crate::engine::exchange_log::KEPT_BODY_BYTES;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::out;
use crate::screens::room::Room;

/// The width of a field's label, the value wrapping under itself beside it.
const LABEL: usize = 12;

/// One exchange of the wire inspector, kept whole even after the list lets it go.
#[derive(Debug, Clone)]
pub struct ExchangeScreen {
    pub(crate) record: Box<ExchangeRecord>,
    /// The request body as shown: laid out when it is JSON.
    pub(crate) request_text: String,
    pub(crate) reply_text: String,
    /// Lines scrolled past.
    pub(crate) scroll: usize,
}

impl ExchangeScreen {
    /// The screen of exchange `number` of the wire log, its bodies as JSON laid out when they
    /// are JSON; None when the ring has let it go.
    pub(crate) fn of(wire: &WireLog, number: u64) -> Option<Self> {
        let record = wire.get(number)?;
        let shown = |body: &str| pretty_json::pretty(body).unwrap_or_else(|| body.to_string());
        Some(ExchangeScreen {
            request_text: shown(&record.request_body),
            reply_text: shown(&record.reply_body),
            record: Box::new(record.clone()),
            scroll: 0,
        })
    }
}

impl Room for ExchangeScreen {
    fn key_parts() -> &'static [Context] {
        &[keys::EXCHANGE]
    }

    fn keys(&self, _phone: &Phone) -> Context {
        keys::EXCHANGE
    }

    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        if action == Action::Back {
            return phone.back();
        }
        let (width, height) = phone.size;
        let (_, body) = exchange_parts(width, height);
        let page = usize::from(body.height).max(1);
        let lines = lines(self, body.width, &phone.theme).len();
        let last = lines.saturating_sub(page);
        let scroll = &mut self.scroll;
        match action {
            Action::Up => *scroll = scroll.saturating_sub(1),
            Action::Down => *scroll = scroll.saturating_add(1),
            Action::PageUp => *scroll = scroll.saturating_sub(page),
            Action::PageDown => *scroll = scroll.saturating_add(page),
            Action::Top => *scroll = 0,
            Action::Bottom => *scroll = last,
            _ => {}
        }
        *scroll = (*scroll).min(last);
        Vec::new()
    }

    fn offers(&self, phone: &Phone, action: Action) -> bool {
        let (_, body) = exchange_parts(phone.size.0, phone.size.1);
        action != Action::Down
            || lines(self, body.width, &phone.theme).len() > usize::from(body.height).max(1)
    }

    fn wheel(&mut self, phone: &mut Phone, down: bool, _column: u16, _row: u16) -> Vec<Command> {
        let action = if down { Action::Down } else { Action::Up };
        for _ in 0..3 {
            self.act(phone, action);
        }
        Vec::new()
    }
}

/// Where the detail of one exchange goes: a heading over its lines.
pub(crate) fn exchange_parts(width: u16, height: u16) -> (Rect, Rect) {
    geometry::conversation(width, height)
}

/// "14:30:00.123" (UTC).
pub(crate) fn clock(record: &ExchangeRecord) -> String {
    let at = record.at.to_offset(time::UtcOffset::UTC);
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        at.hour(),
        at.minute(),
        at.second(),
        at.millisecond()
    )
}

pub(crate) fn status_style(record: &ExchangeRecord, theme: &Theme) -> Style {
    match record.status {
        // 304: nothing changed since the last read, the usual answer of a poll.
        Some(100..=399) => theme.ok,
        Some(400..=499) => theme.warn,
        _ => theme.danger,
    }
}

/// Every line of one exchange at this width: its fields, then each body laid out.
pub(crate) fn lines(screen: &ExchangeScreen, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let width = usize::from(width);
    let record = &screen.record;
    let mut lines = Vec::new();
    // The value wraps under itself, clear of the labels.
    let mut field = |label: &str, value: String, style: Style| {
        let room = width.saturating_sub(LABEL).max(1);
        let mut parts = wrap::wrap(&out::visible_line(&value), room);
        if parts.is_empty() {
            parts.push(String::new());
        }
        for (i, part) in parts.into_iter().enumerate() {
            let label = if i == 0 { label } else { "" };
            lines.push(Line::from(vec![
                Span::styled(wrap::pad_to(label, LABEL), theme.dim),
                Span::styled(part, style),
            ]));
        }
    };
    let at = record.at.to_offset(time::UtcOffset::UTC);
    field(
        "Time",
        format!(
            "{}-{:02}-{:02} {} UTC",
            at.year(),
            u8::from(at.month()),
            at.day(),
            clock(record)
        ),
        theme.text,
    );
    field("Agent", record.agent.clone(), theme.text);
    field(
        "Request",
        format!("{} {}", record.method, record.path),
        theme.text,
    );
    field(
        "Request id",
        record
            .request_id
            .clone()
            .unwrap_or_else(|| "none (a read)".to_string()),
        theme.text,
    );
    let status = match (record.status, &record.error) {
        (Some(status), _) => {
            let reason = hyper::StatusCode::from_u16(status)
                .ok()
                .and_then(|code| code.canonical_reason());
            match reason {
                Some(reason) => format!("{status} {reason}"),
                None => status.to_string(),
            }
        }
        (None, Some(error)) => format!("no reply: {error}"),
        (None, None) => "no reply".to_string(),
    };
    field("Status", status, status_style(record, theme));
    field(
        "Reply",
        format!("{} bytes in {} ms", record.reply_bytes, record.millis),
        theme.text,
    );
    lines.extend(wrap::wrap_spans(
        &[Span::styled(
            "Headers are not recorded, so the token never shows here.",
            theme.dim,
        )],
        width,
    ));
    lines.push(Line::default());

    let request_cut = record.request_body.len() >= KEPT_BODY_BYTES;
    let request_note = if request_cut {
        " (its first 8 KiB)".to_string()
    } else {
        String::new()
    };
    body(
        &mut lines,
        &format!("Request body{request_note}"),
        &screen.request_text,
        width,
        theme,
    );
    lines.push(Line::default());
    let reply_note = if record.reply_bytes > KEPT_BODY_BYTES {
        format!(" (its first 8 KiB of {} bytes)", record.reply_bytes)
    } else {
        String::new()
    };
    body(
        &mut lines,
        &format!("Reply body{reply_note}"),
        &screen.reply_text,
        width,
        theme,
    );
    lines
}

fn body(lines: &mut Vec<Line<'static>>, title: &str, text: &str, width: usize, theme: &Theme) {
    lines.push(Line::from(Span::styled(title.to_string(), theme.title)));
    if text.is_empty() {
        lines.push(Line::from(Span::styled("(empty)", theme.dim)));
        return;
    }
    lines.extend(
        wrap::wrap(&out::visible(text), width)
            .into_iter()
            .map(|l| Line::from(Span::styled(l, theme.code))),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::phone::Step;
    use crate::screens::harness::Harness;

    fn screen(lines: usize) -> ExchangeScreen {
        let body = (0..lines)
            .map(|n| format!("line {n}\n"))
            .collect::<String>();
        ExchangeScreen {
            record: Box::new(ExchangeRecord {
                at: time::OffsetDateTime::UNIX_EPOCH,
                agent: "demo".into(),
                method: "GET",
                path: "/v1/snapshot".into(),
                status: Some(200),
                error: None,
                reply_bytes: body.len(),
                millis: 3,
                request_id: None,
                request_body: String::new(),
                reply_body: body.clone(),
            }),
            request_text: String::new(),
            reply_text: body,
            scroll: 0,
        }
    }

    #[test]
    fn the_bodies_scroll_within_their_lines_and_back_leaves() {
        let mut harness = Harness::new();
        let mut room = screen(200);
        harness.act(&mut room, Action::Down);
        assert_eq!(room.scroll, 1);
        harness.act(&mut room, Action::Bottom);
        let last = room.scroll;
        assert!(last > 100, "{last}");
        harness.act(&mut room, Action::PageDown);
        assert_eq!(room.scroll, last, "never past the last page");
        harness.act(&mut room, Action::Top);
        assert_eq!(room.scroll, 0);
        assert!(harness.steps().is_empty());
        harness.act(&mut room, Action::Back);
        assert!(matches!(harness.steps()[..], [Step::Back]));
    }
}
