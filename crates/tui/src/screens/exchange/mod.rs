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
use crate::look::chat_search::{find_in, line_text};
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::out;
use crate::screens::room::Room;
use crate::screens::search::keys::SEARCH;
use crate::screens::search::{LineKey, Place, Search, copy, scroll_to_line};
use crossterm::event::KeyEvent;

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
    /// `/`, `n` and `N` over the lines as laid out, as in a pane.
    pub(crate) search: Search,
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
            search: Search::default(),
        })
    }
}

impl Room for ExchangeScreen {
    fn key_parts() -> &'static [Context] {
        &[keys::EXCHANGE, SEARCH]
    }

    fn keys(&self, _phone: &Phone) -> Context {
        if self.search.editing {
            SEARCH
        } else {
            keys::EXCHANGE
        }
    }

    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        if self.search.editing {
            match self.search.key(phone, action) {
                LineKey::Quit => return phone.quit(),
                LineKey::Go(forward) => self.search_moved(phone, Some(forward)),
                LineKey::Done => {}
            }
            return Vec::new();
        }
        match action {
            Action::Back if self.search.escape() => return Vec::new(),
            Action::Back => return phone.back(),
            Action::Search => {
                self.search.open();
                self.search_moved(phone, None);
                return Vec::new();
            }
            Action::NextMatch | Action::PrevMatch => {
                if self.search.again(phone, keys::EXCHANGE, "the exchange") {
                    self.search_moved(phone, Some(action == Action::NextMatch));
                }
                return Vec::new();
            }
            Action::Copy => {
                let text = self.copy_text(phone.theme());
                return copy(phone, &text, "");
            }
            _ => {}
        }
        let body = self.body(phone.size());
        let page = usize::from(body.height).max(1);
        let lines = lines(self, body.width, phone.theme()).len();
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

    fn quit(&mut self, phone: &mut Phone) -> Vec<Command> {
        self.search.editing = false;
        phone.quit()
    }

    fn typed(&mut self, phone: &mut Phone, key: &KeyEvent) {
        if self.search.editing && self.search.typed(key) {
            self.search_moved(phone, None);
        }
    }

    fn paste(&mut self, phone: &mut Phone, text: &str) {
        if self.search.editing {
            self.search.paste(text);
            self.search_moved(phone, None);
        }
    }

    fn offers(&self, phone: &Phone, action: Action) -> bool {
        if matches!(action, Action::NextMatch | Action::PrevMatch) {
            // One match or none: there is no other to go to.
            return self.search.count.1 > 1;
        }
        let body = self.body(phone.size());
        action != Action::Down
            || lines(self, body.width, phone.theme()).len() > usize::from(body.height).max(1)
    }

    fn wheel(&mut self, phone: &mut Phone, down: bool, _column: u16, _row: u16) -> Vec<Command> {
        let action = if down { Action::Down } else { Action::Up };
        for _ in 0..3 {
            self.act(phone, action);
        }
        Vec::new()
    }
}

impl ExchangeScreen {
    /// Where the lines show: under the heading, over the search line while that shows.
    pub(crate) fn body(&self, (width, height): (u16, u16)) -> Rect {
        let (_, body) = exchange_parts(width, height);
        self.search.split(body).0
    }

    /// Counts the matches again and moves to one (`Search::choose`); the lines scroll to it.
    fn search_moved(&mut self, phone: &Phone, step: Option<bool>) {
        let body = self.body(phone.size());
        let lines = lines(self, body.width, phone.theme());
        let query = self.search.query();
        let places: Vec<Place> = lines
            .iter()
            .enumerate()
            .flat_map(|(index, line)| {
                find_in(&line_text(line), &query)
                    .into_iter()
                    .map(move |(column, _)| (String::new(), index, column))
            })
            .collect();
        if let Some(found) = self.search.choose(&places, step) {
            let height = usize::from(body.height);
            self.scroll = scroll_to_line(self.scroll, places[found].1, height, lines.len());
        }
    }

    /// What `y` copies: the whole exchange as read here, its bodies' lines whole (unwrapped).
    fn copy_text(&self, theme: &Theme) -> String {
        lines(self, u16::MAX, theme)
            .iter()
            .map(|line| line_text(line).trim_end().to_string())
            .collect::<Vec<_>>()
            .join("\n")
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
            search: Search::default(),
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

    fn key(code: crossterm::event::KeyCode) -> KeyEvent {
        KeyEvent::new(code, crossterm::event::KeyModifiers::NONE)
    }

    #[test]
    fn slash_finds_words_n_and_n_go_round_and_y_copies_the_whole_exchange() {
        let mut harness = Harness::new();
        let mut room = screen(200);
        harness.act(&mut room, Action::Search);
        assert_eq!(room.keys(&harness.phone), SEARCH, "the line takes the keys");
        for c in "LINE 15".chars() {
            room.typed(&mut harness.phone, &key(crossterm::event::KeyCode::Char(c)));
        }
        // "line 15" and "line 150" to "line 159", case aside; the last is current at first.
        assert_eq!(room.search.count, (11, 11));
        harness.act(&mut room, Action::Confirm);
        assert!(!room.search.editing && room.search.lit);
        assert_eq!(room.keys(&harness.phone), keys::EXCHANGE);
        let body = room.body(harness.phone.size());
        let shows = |room: &ExchangeScreen, line: usize| {
            (room.scroll..room.scroll + usize::from(body.height)).contains(&line)
        };
        let line_of = |room: &ExchangeScreen| room.search.current.as_ref().map(|c| c.1);
        let last = line_of(&room).expect("a match");
        assert!(shows(&room, last), "the view went to it");
        harness.act(&mut room, Action::NextMatch);
        assert_eq!(room.search.count, (1, 11), "wraps to the first");
        let first = line_of(&room).expect("a match");
        assert!(first < last && shows(&room, first));
        harness.act(&mut room, Action::PrevMatch);
        assert_eq!(room.search.count, (11, 11));
        let commands = harness.act(&mut room, Action::Copy);
        let [Command::Copy(text)] = &commands[..] else {
            panic!("{commands:?}");
        };
        assert!(text.contains("GET /v1/snapshot") && text.contains("line 199"));
        let lines = text.lines().count();
        assert_eq!(
            harness.toast(),
            Some(
                format!("Copied {lines} lines to the clipboard (through the terminal, OSC 52).")
                    .as_str()
            )
        );
        // Esc puts the matches out first, then leaves.
        harness.act(&mut room, Action::Back);
        assert!(!room.search.lit && harness.steps().is_empty());
        harness.act(&mut room, Action::Back);
        assert!(matches!(harness.steps()[..], [Step::Back]));
    }

    #[test]
    fn n_before_any_search_says_which_key_searches() {
        let mut harness = Harness::new();
        let mut room = screen(3);
        harness.act(&mut room, Action::NextMatch);
        assert_eq!(
            harness.toast(),
            Some("No search yet: / searches in the exchange.")
        );
    }
}
