//! A follower's tail and the transcript pages read from it, by the real bridge's rules
//! (`readTranscript`, `readSessionHistory`; tests/fixtures/dsh-real/README.md): the tail is
//! completed from the session's durable log when the cursor is older than the tail, the page
//! keeps the newest `limit` items, and `truncatedBefore` is the real rule, quirks included.

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;
use serde_json::Value;

use crate::dsh_wire::{BRIDGE_STATUS, Event, TranscriptPage, TranscriptSource};

/// The real bridge's durable window: at most this many events of the log.
const DURABLE_WINDOW: usize = 1000;

/// The last `limit` events of a log, stamped with the task that follows them, and the highest
/// seq left out (-1 when none): the tail's truncation point.
pub(crate) fn tail_of(
    log: &VecDeque<Event>,
    limit: usize,
    task_id: &str,
) -> (VecDeque<Event>, i64) {
    let skip = log.len().saturating_sub(limit.max(1));
    let truncated = if skip == 0 {
        -1
    } else {
        log.get(skip - 1).map_or(-1, |event| event.session_seq)
    };
    let tail = log
        .iter()
        .skip(skip)
        .map(|event| Event {
            task_id: Some(task_id.to_string()),
            ..event.clone()
        })
        .collect();
    (tail, truncated)
}

/// One page of a followed session, as the real `readTranscript` computes it.
pub(crate) struct TaskPage {
    pub(crate) items: Vec<Event>,
    pub(crate) cursor: i64,
    pub(crate) truncated_before: Option<i64>,
    /// Whether the durable log was read (`source: "bridge-follower+durable"`).
    pub(crate) used_log: bool,
}

/// The real rule: the tail serves a cursor at or after its truncation point; an older cursor
/// reads the durable window (events up to the follower's cursor, the last 1000). Items after
/// `since` from both, the tail winning, sorted; the NEWEST `limit` are kept. `truncatedBefore`
/// is null when the durable window reaches the truncation point, else the truncation point
/// when there is one, else the oldest item when it is above `max(since, -1) + 1`: so a log
/// whose seqs start at 1 read from -1 says `truncatedBefore: 1`, as the real bridge does.
///
/// One difference, on purpose: the real bridge keys the page by seq, so one of its own status
/// lines (which repeats the last seq) replaces the host event of that seq; here the host event
/// stays and the status line is left out of the page (it is in the stream).
pub(crate) fn task_page(
    tail: &VecDeque<Event>,
    log: &VecDeque<Event>,
    follower_cursor: i64,
    coverage: i64,
    since: i64,
    limit: usize,
    task_id: &str,
) -> TaskPage {
    let durable: Option<Vec<&Event>> = (since < coverage).then(|| {
        let window: Vec<&Event> = log
            .iter()
            .filter(|e| e.session_seq <= follower_cursor)
            .collect();
        let skip = window.len().saturating_sub(DURABLE_WINDOW);
        window.into_iter().skip(skip).collect()
    });
    let mut by_seq: BTreeMap<i64, Event> = BTreeMap::new();
    for event in durable.iter().flatten() {
        if event.session_seq > since && event.session_seq <= follower_cursor {
            by_seq.insert(
                event.session_seq,
                Event {
                    task_id: Some(task_id.to_string()),
                    ..(*event).clone()
                },
            );
        }
    }
    for event in tail.iter().filter(|e| e.session_seq > since) {
        let status = event.session_event_type == BRIDGE_STATUS;
        if status && by_seq.contains_key(&event.session_seq) {
            continue;
        }
        by_seq.insert(event.session_seq, event.clone());
    }
    let cursor = by_seq
        .keys()
        .next_back()
        .copied()
        .unwrap_or(-1)
        .max(follower_cursor)
        .max(-1);
    let oldest = by_seq.keys().next().copied();
    let mut truncated_before = None;
    if cursor >= 0 {
        let durable_first = durable
            .as_ref()
            .and_then(|window| window.first())
            .map(|e| e.session_seq);
        let durable_reached = durable_first.is_some_and(|first| first <= coverage);
        if durable_reached {
            truncated_before = None;
        } else if coverage >= 0 {
            truncated_before = Some(coverage);
        } else if let Some(oldest) = oldest
            && oldest > since.max(-1) + 1
        {
            truncated_before = Some(oldest);
        }
    }
    let mut items: Vec<Event> = by_seq.into_values().collect();
    let keep_from = items.len().saturating_sub(limit.max(1));
    items.drain(..keep_from);
    TaskPage {
        items,
        cursor,
        truncated_before,
        used_log: durable.is_some(),
    }
}

/// The real bridge's reply for a session no task follows: `{source, sessionId, cursor,
/// items}`, the whole durable log with `taskId: null` (its `sinceSeq` and `limit` are not read).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DurableTranscript {
    pub(crate) source: TranscriptSource,
    pub(crate) session_id: String,
    pub(crate) cursor: i64,
    pub(crate) items: Vec<Event>,
}

/// `GET /transcript?workspaceId=&sessionId=`: a followed session's page, or the durable log.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub(crate) enum SessionTranscript {
    Task(TranscriptPage),
    Durable(DurableTranscript),
}

pub(crate) fn durable_page(
    log: &VecDeque<Event>,
    cursor: i64,
    session_id: &str,
) -> DurableTranscript {
    DurableTranscript {
        source: TranscriptSource::DurableLog,
        session_id: session_id.to_string(),
        cursor,
        items: log
            .iter()
            .map(|event| Event {
                task_id: None,
                ..event.clone()
            })
            .collect(),
    }
}

/// Epoch milliseconds as the real bridge writes its own times (`new Date().toISOString()`):
/// `2026-12-01T16:01:53.156Z`.
pub(crate) fn iso(ms: i64) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|at| at.format(&format).ok())
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".to_string())
}

/// A log event's `summary` as the real bridge digests an unprojected payload: the preferred
/// keys first (`key=value`), then the other scalars and the lengths of lists, one line, at most
/// 300 characters; none when there is nothing to say.
pub(crate) fn log_summary(data: &Value) -> Option<String> {
    const PREFERRED: [&str; 12] = [
        "title", "text", "message", "reason", "question", "toolName", "name", "kind", "mode",
        "policy", "id", "target",
    ];
    let scalar = |value: &Value| match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(_) | Value::Number(_) => Some(value.to_string()),
        _ => None,
    };
    let map = data.as_object()?;
    let mut parts = Vec::new();
    for key in PREFERRED {
        if let Some(text) = map.get(key).and_then(scalar) {
            parts.push(format!("{key}={text}"));
        }
    }
    // In key order, whatever order the data came in.
    let mut rest: Vec<(&String, &Value)> = map.iter().collect();
    rest.sort_by_key(|(key, _)| *key);
    for (key, value) in rest {
        if PREFERRED.contains(&key.as_str()) {
            continue;
        }
        if let Some(text) = scalar(value) {
            parts.push(format!("{key}={text}"));
        } else if let Value::Array(list) = value {
            parts.push(format!("{key}[{}]", list.len()));
        }
    }
    if parts.is_empty() {
        return None;
    }
    let flat = parts
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    Some(if flat.chars().count() > 300 {
        format!("{}…", flat.chars().take(300).collect::<String>())
    } else {
        flat
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsh_wire::{EventBody, LogEvent};

    fn log(seqs: std::ops::RangeInclusive<i64>) -> VecDeque<Event> {
        seqs.map(|seq| Event {
            task_id: None,
            session_seq: seq,
            at: seq,
            session_event_type: "x".into(),
            body: EventBody::Log(LogEvent {
                data: serde_json::Value::Null,
                summary: None,
            }),
            unread: Vec::new(),
        })
        .collect()
    }

    fn seqs(page: &TaskPage) -> Vec<i64> {
        page.items.iter().map(|e| e.session_seq).collect()
    }

    #[test]
    fn a_complete_log_read_from_minus_one_says_truncated_before_one() {
        let durable = log(1..=8);
        let (tail, truncated) = tail_of(&durable, 100, "t");
        assert_eq!(truncated, -1);
        let page = task_page(&tail, &durable, 8, truncated, -1, 200, "t");
        assert_eq!(seqs(&page), (1..=8).collect::<Vec<_>>());
        assert_eq!(
            (page.cursor, page.truncated_before, page.used_log),
            (8, Some(1), false)
        );
        let page = task_page(&tail, &durable, 8, truncated, 4, 200, "t");
        assert_eq!(
            (page.truncated_before, seqs(&page)),
            (None, vec![5, 6, 7, 8])
        );
    }

    #[test]
    fn the_newest_limit_items_are_kept() {
        let durable = log(1..=18);
        let (tail, truncated) = tail_of(&durable, 100, "t");
        let page = task_page(&tail, &durable, 18, truncated, 9, 3, "t");
        assert_eq!(seqs(&page), [16, 17, 18]);
        assert_eq!(page.cursor, 18);
    }

    #[test]
    fn an_old_cursor_reads_the_durable_log_and_a_lost_range_is_a_gap() {
        let durable = log(10..=29);
        let (tail, truncated) = tail_of(&durable, 5, "t");
        assert_eq!(truncated, 24);
        // The log reaches back past the truncation point: no gap.
        let page = task_page(&tail, &durable, 29, truncated, -1, 100, "t");
        assert_eq!(page.items.len(), 20);
        assert_eq!((page.truncated_before, page.used_log), (None, true));
        assert!(page.items.iter().all(|e| e.task_id.as_deref() == Some("t")));
        // A cursor inside the tail reads the tail only, and still names the truncation point
        // (the real rule's quirk: nothing is missing).
        let page = task_page(&tail, &durable, 29, truncated, 26, 100, "t");
        assert_eq!(seqs(&page), [27, 28, 29]);
        assert_eq!((page.truncated_before, page.used_log), (Some(24), false));
        // The log lost what the tail dropped: the truncation point is the gap.
        let short = log(26..=29);
        let page = task_page(&tail, &short, 29, truncated, -1, 100, "t");
        assert_eq!((page.truncated_before, page.used_log), (Some(24), true));
    }

    #[test]
    fn iso_and_summaries_are_the_real_ones() {
        assert_eq!(iso(1_796_140_913_156), "2026-12-01T16:01:53.156Z");
        let data = serde_json::json!({"decision": "approved", "callId": "call-1", "files": [1, 2]});
        assert_eq!(
            log_summary(&data).as_deref(),
            Some("callId=call-1 decision=approved files[2]")
        );
        assert_eq!(log_summary(&serde_json::json!({})), None);
    }
}
