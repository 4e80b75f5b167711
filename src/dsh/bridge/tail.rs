//! A follower's tail and the transcript pages read from it (seed GET /transcript, §4): the tail
//! is completed from the session's durable log when the asked range is older, and a range older
//! than both is reported as `truncatedBefore`, never filled in.

use std::collections::VecDeque;

use crate::dsh::wire::Event;

/// The last `limit` events of a log, stamped with the task that follows them.
pub fn tail_of(log: &VecDeque<Event>, limit: usize, task_id: &str) -> VecDeque<Event> {
    log.iter()
        .skip(log.len().saturating_sub(limit))
        .map(|event| Event {
            task_id: Some(task_id.to_string()),
            ..event.clone()
        })
        .collect()
}

/// One page after `since`: the tail first, completed from the durable log when the tail starts
/// later than asked. Returns the items, `truncatedBefore`, and whether the log was used.
pub fn page(
    tail: Option<&VecDeque<Event>>,
    log: &VecDeque<Event>,
    since: i64,
    limit: usize,
    task_id: Option<&str>,
) -> (Vec<Event>, Option<i64>, bool) {
    let tail_first = tail.and_then(|t| t.front()).map(|e| e.session_seq);
    let needs_log = tail.is_none() || tail_first.is_none_or(|first| first > since + 1);
    let mut items: Vec<Event> = Vec::new();
    let mut used_log = false;
    if needs_log {
        for event in log.iter().filter(|e| e.session_seq > since) {
            if tail_first.is_some_and(|first| event.session_seq >= first) {
                break;
            }
            used_log = tail.is_some();
            items.push(Event {
                task_id: task_id.map(str::to_string),
                ..event.clone()
            });
        }
    }
    if let Some(tail) = tail {
        items.extend(tail.iter().filter(|e| e.session_seq > since).cloned());
    }
    items.sort_by_key(|e| e.session_seq);
    items.dedup_by_key(|e| e.session_seq);
    let earliest = [log.front(), tail.and_then(|t| t.front())]
        .into_iter()
        .flatten()
        .map(|e| e.session_seq)
        .min();
    let truncated_before = earliest.filter(|first| *first > since + 1);
    items.truncate(limit);
    (items, truncated_before, used_log)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsh::wire::{EventBody, LogEvent};

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

    #[test]
    fn d4_tail_is_completed_from_the_log_and_the_rest_is_a_gap() {
        let durable = log(10..=29);
        let tail = tail_of(&durable, 5, "t");
        let (items, truncated, used) = page(Some(&tail), &durable, -1, 100, Some("t"));
        assert_eq!(items.len(), 20);
        assert_eq!(truncated, Some(10));
        assert!(used);
        assert!(items.iter().all(|e| e.task_id.as_deref() == Some("t")));
        let (items, truncated, used) = page(Some(&tail), &durable, 26, 100, Some("t"));
        assert_eq!(
            items.iter().map(|e| e.session_seq).collect::<Vec<_>>(),
            [27, 28, 29]
        );
        assert_eq!((truncated, used), (None, false));
        let (items, _, _) = page(None, &durable, 9, 3, None);
        assert_eq!(
            items.iter().map(|e| e.session_seq).collect::<Vec<_>>(),
            [10, 11, 12]
        );
    }
}
