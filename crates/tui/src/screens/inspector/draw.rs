//! The wire inspector: every exchange as a row of columns (the least needed ones dropped on a
//! narrow terminal), and one exchange with its bodies. Headers are never recorded, so no token
//! can show here. Everything an agent sent is drawn in `out::visible` form: a character the
//! screens would remove shows as `⟨U+202E⟩`, so a person debugging an agent sees it was sent.

use ratatui::Frame;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::keymap::Action;
use crate::app::phone::Phone;
use crate::app::wire_log::{self, KEPT_EXCHANGES};
use crate::engine::ExchangeRecord;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::out;
use crate::screens::InspectorScreen;
use crate::screens::exchange::{clock, status_style};
use crate::screens::inspector::{inspector_parts, inspector_view};
use crate::ui::{columns, put};
use crate::wire::paths::PREFIX;

const MARKER: usize = 2;
/// "14:30:00.123" and a gap.
const TIME: usize = 13;
/// "14:30:00" and a gap, where even the other columns leave the path too little.
const TIME_SHORT: usize = 9;
const METHOD: usize = 7;
const STATUS: usize = 7;
const BYTES: usize = 6;
const MILLIS: usize = 6;
/// The whole request id ("r-" and 32 hex digits) and a gap.
const REQUEST_ID: usize = 36;
/// The path keeps at least this much; other columns go first.
const PATH_MIN: usize = 24;
/// What the path keeps on a terminal too narrow for the whole time.
const PATH_MIN_SHORT: usize = 12;
const AGENT_MAX: usize = 16;

/// Which of the columns that can go fit at this width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    /// The time column's width: with milliseconds, or without on a narrow terminal.
    time: usize,
    millis: bool,
    bytes: bool,
    agent: Option<usize>,
    request_id: bool,
}

/// Drops columns by how much they are missed: request ids first (the detail shows them; only
/// POSTs have one, so the column is there only when a listed exchange has one), then the
/// agent, the bytes and the milliseconds. Time, method, status and path always stay.
fn plan(width: usize, agent_width: usize, request_ids: bool) -> Plan {
    let short = width < MARKER + TIME + METHOD + STATUS + PATH_MIN;
    let (time, path_min) = if short {
        (TIME_SHORT, PATH_MIN_SHORT)
    } else {
        (TIME, PATH_MIN)
    };
    let mut room = width.saturating_sub(MARKER + time + METHOD + STATUS + path_min);
    let mut take = |cells: usize| {
        let fits = cells <= room;
        if fits {
            room -= cells;
        }
        fits
    };
    let millis = take(MILLIS);
    let bytes = millis && take(BYTES);
    let agent = (bytes && take(agent_width)).then_some(agent_width);
    let request_id = request_ids && agent.is_some() && take(REQUEST_ID);
    Plan {
        time,
        millis,
        bytes,
        agent,
        request_id,
    }
}

/// "812", "8.0K", "12K", "1.5M": the exact count is in the detail.
fn short_bytes(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    match bytes {
        0..=9_999 => bytes.to_string(),
        _ if b < 10.0 * KIB * KIB => {
            let kib = b / KIB;
            if kib < 10.0 {
                format!("{kib:.1}K")
            } else if kib < 1000.0 {
                format!("{kib:.0}K")
            } else {
                format!("{:.1}M", kib / KIB)
            }
        }
        _ => format!("{:.0}M", b / KIB / KIB),
    }
}

/// The path without the protocol's prefix every route shares.
fn short_path(path: &str) -> &str {
    match path.strip_prefix(PREFIX) {
        Some(rest) if rest.starts_with('/') => rest,
        _ => path,
    }
}

pub(crate) fn draw_list(
    frame: &mut Frame<'_>,
    phone: &Phone,
    screen: &InspectorScreen,
    theme: &Theme,
) {
    let area = frame.area();
    let parts = inspector_parts(area.width, area.height, screen);
    let view = inspector_view(phone.wire(), screen, usize::from(parts.list.height));
    let width = usize::from(parts.list.width);

    let count = if screen.filter.is_blank() {
        exchanges(phone.wire().len())
    } else {
        format!("{} of {}", view.rows.len(), exchanges(phone.wire().len()))
    };
    let kept = if phone.wire().seen() > phone.wire().len() as u64 {
        format!(
            " (the newest {KEPT_EXCHANGES} of {} kept)",
            phone.wire().seen()
        )
    } else {
        String::new()
    };
    let place = if view.following {
        "following the newest".to_string()
    } else {
        match phone
            .keymap()
            .key_label(crate::screens::inspector::keys::INSPECTOR, Action::Bottom)
        {
            Some(key) => format!("paused: {key} follows the newest"),
            None => "paused".to_string(),
        }
    };
    put(
        frame,
        parts.heading,
        0,
        Line::from(vec![
            Span::styled("Wire inspector  ", theme.title),
            Span::styled(format!("{count}{kept} · {place}"), theme.dim),
        ]),
    );

    let agent_width = view
        .rows
        .iter()
        .filter_map(|n| phone.wire().get(*n))
        .map(|r| wrap::width(&r.agent))
        .max()
        .unwrap_or(5)
        .clamp(5, AGENT_MAX)
        + 2;
    let request_ids = view
        .rows
        .iter()
        .filter_map(|n| phone.wire().get(*n))
        .any(|r| r.request_id.is_some());
    let plan = plan(width, agent_width, request_ids);
    let titles = cells(
        plan,
        [
            "",
            if plan.time == TIME {
                "time (UTC)"
            } else {
                "UTC"
            },
            "agent",
            "method",
            "status",
            "bytes",
            "   ms",
            "request id",
            &format!("path ({PREFIX} left out)"),
        ]
        .map(|t| (t.to_string(), theme.dim)),
        width,
    );
    put(frame, parts.columns, 0, columns(&titles, width));

    if view.rows.is_empty() {
        let words = if phone.wire().is_empty() {
            "No exchange yet: every request to an agent shows here."
        } else {
            "No exchange matches the filter."
        };
        put(
            frame,
            parts.list,
            0,
            Line::from(Span::styled(format!("  {words}"), theme.dim)),
        );
    }
    let shown = view
        .rows
        .iter()
        .enumerate()
        .skip(view.cursor.offset)
        .take(usize::from(parts.list.height));
    for (row, (index, number)) in shown.enumerate() {
        let Some(record) = phone.wire().get(*number) else {
            continue;
        };
        let selected = index == view.cursor.selected;
        let line = row_line(record, selected, plan, width, theme);
        let line = if selected {
            line.style(theme.selected)
        } else {
            line
        };
        put(frame, parts.list, u16::try_from(row).unwrap_or(0), line);
    }
    crate::ui::more_below(
        frame,
        parts.heading,
        view.rows
            .len()
            .saturating_sub(view.cursor.offset + usize::from(parts.list.height)),
        theme,
    );

    let note_style = match &screen.note {
        Some(note) if note.trouble => theme.danger,
        _ => theme.ok,
    };
    for (row, text) in crate::screens::inspector::note_lines(screen.note.as_ref(), parts.note.width)
        .into_iter()
        .enumerate()
    {
        put(
            frame,
            parts.note,
            u16::try_from(row).unwrap_or(0),
            Line::from(Span::styled(format!(" {text}"), note_style)),
        );
    }
    crate::ui::filter::draw_filter(frame, parts.filter, &screen.filter, theme);
}

fn exchanges(count: usize) -> String {
    match count {
        1 => "1 exchange".to_string(),
        n => format!("{n} exchanges"),
    }
}

/// The cells of a row in column order, the dropped columns left out; the path takes the rest.
fn cells(plan: Plan, texts: [(String, Style); 9], width: usize) -> Vec<(String, usize, Style)> {
    let [
        marker,
        time,
        agent,
        method,
        status,
        bytes,
        millis,
        request_id,
        path,
    ] = texts;
    let mut out = vec![(marker.0, MARKER, marker.1), (time.0, plan.time, time.1)];
    if let Some(agent_width) = plan.agent {
        out.push((agent.0, agent_width, agent.1));
    }
    out.push((method.0, METHOD, method.1));
    out.push((status.0, STATUS, status.1));
    if plan.bytes {
        out.push((bytes.0, BYTES, bytes.1));
    }
    if plan.millis {
        out.push((millis.0, MILLIS, millis.1));
    }
    if plan.request_id {
        out.push((request_id.0, REQUEST_ID, request_id.1));
    }
    out.push((path.0, width, path.1));
    out
}

fn row_line(
    record: &ExchangeRecord,
    selected: bool,
    plan: Plan,
    width: usize,
    theme: &Theme,
) -> Line<'static> {
    let status = match record.status {
        Some(status) => status.to_string(),
        None => "error".to_string(),
    };
    let texts = [
        (if selected { "› " } else { "  " }.to_string(), theme.accent),
        (
            if plan.time == TIME {
                clock(record)
            } else {
                clock(record).chars().take(8).collect()
            },
            theme.dim,
        ),
        (out::visible_line(&record.agent).into_owned(), theme.text),
        (record.method.to_string(), theme.text),
        (status, status_style(record, theme)),
        (format!("{:>5}", short_bytes(record.reply_bytes)), theme.dim),
        (format!("{:>5}", record.millis), theme.dim),
        (
            out::visible_line(record.request_id.as_deref().unwrap_or_default()).into_owned(),
            theme.dim,
        ),
        (
            out::visible_line(short_path(&record.path)).into_owned(),
            theme.text,
        ),
    ];
    let mut line = columns(&cells(plan, texts, width), width);
    // No reply: why, in words, after the path.
    if record.status.is_none() {
        let used: usize = line.spans.iter().map(|s| wrap::width(&s.content)).sum();
        let why = wire_log::status_words(record);
        line.spans.push(Span::styled(
            wrap::truncate(
                &format!("  {}", out::visible_line(&why)),
                width.saturating_sub(used),
            ),
            theme.danger,
        ));
    }
    line
}

impl crate::ui::Drawn for InspectorScreen {
    fn place(&self, _phone: &Phone) -> String {
        "Wire inspector".to_string()
    }

    fn draw(&self, frame: &mut Frame<'_>, phone: &Phone, theme: &Theme) {
        draw_list(frame, phone, self, theme);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_go_by_priority_as_the_terminal_narrows() {
        let wide = plan(160, 6, true);
        assert!(wide.request_id && wide.agent.is_some() && wide.bytes && wide.millis);
        assert!(!plan(160, 6, false).request_id);
        let narrow = plan(80, 6, true);
        assert!(!narrow.request_id);
        assert!(narrow.agent.is_some() && narrow.bytes && narrow.millis);
        let tiny = plan(70, 6, true);
        assert_eq!(tiny.agent, None);
        assert!(tiny.millis && tiny.bytes);
        assert_eq!(tiny.time, TIME);
        // A phone held upright: the time without milliseconds, the path still readable.
        let phone = plan(40, 6, true);
        assert_eq!(phone.time, TIME_SHORT);
        assert!(phone.agent.is_none() && !phone.bytes && !phone.millis);
    }

    #[test]
    fn sizes_are_short() {
        assert_eq!(short_bytes(812), "812");
        assert_eq!(short_bytes(8192 * 2), "16K");
        assert_eq!(short_bytes(10_000), "9.8K");
        assert_eq!(short_bytes(4 * 1024 * 1024), "4.0M");
        assert_eq!(short_path("/session/v1/snapshot"), "/snapshot");
        assert_eq!(short_path("/session/v1x"), "/session/v1x");
    }
}
