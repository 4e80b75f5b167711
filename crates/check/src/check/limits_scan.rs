//! Finds, in raw replies, the things SPEC L counts: panes, asks, items, ids and every string,
//! each with where it was seen (`GET /session/v1/snapshot: workspaces[0].tabs[1].panes[0]`),
//! so a finding can point at it.

use serde_json::Value;

use super::sample::{Route, Sample};
use crate::wire::sanitize::{Lines, is_invisible};

/// One thing found in a reply, and where.
#[derive(Debug, Clone)]
pub(super) struct Found<'a> {
    pub(crate) place: String,
    pub(crate) value: &'a Value,
}

/// The list under `key`, or none when it is missing or not a list.
pub(super) fn list<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Every pane of a raw snapshot, with its path.
pub(super) fn snapshot_panes(snapshot: &Value) -> Vec<(String, &Value)> {
    let mut panes = Vec::new();
    for (w, workspace) in list(snapshot, "workspaces").iter().enumerate() {
        for (t, tab) in list(workspace, "tabs").iter().enumerate() {
            for (p, pane) in list(tab, "panes").iter().enumerate() {
                panes.push((format!("workspaces[{w}].tabs[{t}].panes[{p}]"), pane));
            }
        }
    }
    panes
}

/// Every pane of every snapshot read.
pub(super) fn panes(sample: &Sample) -> Vec<Found<'_>> {
    sample
        .bodies(Route::Snapshot)
        .flat_map(|seen| {
            snapshot_panes(&seen.body)
                .into_iter()
                .map(move |(path, value)| Found {
                    place: format!("{}: {path}", seen.request),
                    value,
                })
        })
        .collect()
}

/// Every ask sent: the snapshot's open asks, each view's asks, and the ask of every `ask` and
/// `ask-changed` event.
pub(super) fn asks(sample: &Sample) -> Vec<Found<'_>> {
    let mut found = Vec::new();
    for pane in panes(sample) {
        for (a, ask) in list(pane.value, "asks").iter().enumerate() {
            found.push(Found {
                place: format!("{}.asks[{a}]", pane.place),
                value: ask,
            });
        }
    }
    for seen in sample.bodies(Route::Events) {
        if let Some(view) = seen.body.get("view") {
            for (a, ask) in list(view, "asks").iter().enumerate() {
                found.push(Found {
                    place: format!("{}: view.asks[{a}]", seen.request),
                    value: ask,
                });
            }
        }
        for (e, event) in list(&seen.body, "events").iter().enumerate() {
            if let Some(ask) = event.get("ask").filter(|ask| ask.is_object()) {
                found.push(Found {
                    place: format!("{}: events[{e}].ask", seen.request),
                    value: ask,
                });
            }
        }
    }
    found
}

/// Every item sent: each view's items, the item of every `item` event, every history page's
/// items.
pub(super) fn items(sample: &Sample) -> Vec<Found<'_>> {
    let mut found = Vec::new();
    for seen in sample.bodies(Route::Events) {
        if let Some(view) = seen.body.get("view") {
            for (i, item) in list(view, "items").iter().enumerate() {
                found.push(Found {
                    place: format!("{}: view.items[{i}]", seen.request),
                    value: item,
                });
            }
        }
        for (e, event) in list(&seen.body, "events").iter().enumerate() {
            if let Some(item) = event.get("item").filter(|item| item.is_object()) {
                found.push(Found {
                    place: format!("{}: events[{e}].item", seen.request),
                    value: item,
                });
            }
        }
    }
    for seen in sample.bodies(Route::Items) {
        for (i, item) in list(&seen.body, "items").iter().enumerate() {
            found.push(Found {
                place: format!("{}: items[{i}]", seen.request),
                value: item,
            });
        }
    }
    found
}

/// Keys whose value is an id of SPEC L (docs/WIRE.md §5.1, §7.3).
const ID_KEYS: [&str; 5] = ["id", "turnId", "conversationId", "paneId", "askId"];
/// Keys whose value is the agent's or the phone's own JSON, not the wire's shapes: nothing in
/// them is an id, and their strings may hold line breaks.
const FREE_KEYS: [&str; 3] = ["arguments", "default", "values"];
/// Keys whose string may hold line breaks and tabs (docs/WIRE.md §7.2).
const MULTI_LINE_KEYS: [&str; 3] = ["text", "prompt", "description"];

/// Every value under an id key in every reply, outside the agent's free JSON. Error bodies are
/// left out: their `requestId` echoes the check's own.
pub(super) fn ids(sample: &Sample) -> Vec<Found<'_>> {
    let mut found = Vec::new();
    for seen in sample.seen.iter().filter(|seen| seen.status == 200) {
        walk(&seen.body, String::new(), &mut |path, key, value| {
            if FREE_KEYS.contains(&key) {
                return false;
            }
            if ID_KEYS.contains(&key) {
                found.push(Found {
                    place: format!("{}: {path}", seen.request),
                    value,
                });
            }
            true
        });
    }
    found
}

/// Every string (and object key) of every reply that holds a control or invisible character
/// (SPEC L1), as "where: which character".
pub(super) fn invisible(sample: &Sample) -> Vec<String> {
    let mut found = Vec::new();
    for seen in &sample.seen {
        scan_strings(
            &seen.body,
            String::new(),
            Lines::Single,
            &mut |path, text, lines| {
                if let Some(c) = text.chars().find(|c| is_invisible(*c, lines)) {
                    found.push(format!("{}: {path} holds U+{:04X}", seen.request, c as u32));
                }
            },
        );
    }
    found
}

/// Visits every string value and key under `value`; `lines` says whether the string may hold
/// line breaks where it stands.
fn scan_strings(
    value: &Value,
    path: String,
    lines: Lines,
    visit: &mut impl FnMut(&str, &str, Lines),
) {
    match value {
        Value::String(text) => visit(&path, text, lines),
        Value::Array(entries) => {
            for (index, entry) in entries.iter().enumerate() {
                scan_strings(entry, format!("{path}[{index}]"), lines, visit);
            }
        }
        Value::Object(fields) => {
            for (key, entry) in fields {
                let inner = join(&path, key);
                visit(&format!("{inner} (the key)"), key, Lines::Single);
                let entry_lines = if lines == Lines::Multi
                    || FREE_KEYS.contains(&key.as_str())
                    || (entry.is_string() && MULTI_LINE_KEYS.contains(&key.as_str()))
                {
                    Lines::Multi
                } else {
                    Lines::Single
                };
                scan_strings(entry, inner, entry_lines, visit);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Visits every object field under `value` with its path and key; `visit` returns false to
/// skip what lies under that field.
fn walk<'a>(value: &'a Value, path: String, visit: &mut impl FnMut(&str, &str, &'a Value) -> bool) {
    match value {
        Value::Array(entries) => {
            for (index, entry) in entries.iter().enumerate() {
                walk(entry, format!("{path}[{index}]"), visit);
            }
        }
        Value::Object(fields) => {
            for (key, entry) in fields {
                let inner = join(&path, key);
                if visit(&inner, key, entry) {
                    walk(entry, inner, visit);
                }
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::sample::Seen;
    use super::*;
    use serde_json::json;

    fn sample_of(route: Route, body: Value) -> Sample {
        Sample {
            seen: vec![Seen {
                route,
                request: "GET /x".into(),
                status: 200,
                size: 0,
                body,
                asked: None,
            }],
            ..Sample::default()
        }
    }

    #[test]
    fn l_ids_outside_free_json() {
        let sample = sample_of(
            Route::Snapshot,
            json!({"workspaces": [{"id": "w 1", "tabs": [{"id": "t", "panes": [{"id": "p", "asks": [
                {"id": "a", "permission": {"arguments": {"id": "not an id"}, "options": [{"id": "o"}]}}]}]}]}]}),
        );
        let mut places: Vec<String> = ids(&sample).into_iter().map(|f| f.place).collect();
        places.sort();
        assert_eq!(
            places,
            [
                "GET /x: workspaces[0].id",
                "GET /x: workspaces[0].tabs[0].id",
                "GET /x: workspaces[0].tabs[0].panes[0].asks[0].id",
                "GET /x: workspaces[0].tabs[0].panes[0].asks[0].permission.options[0].id",
                "GET /x: workspaces[0].tabs[0].panes[0].id",
            ]
        );
    }

    #[test]
    fn l1_line_breaks_only_where_they_belong() {
        let sample = sample_of(
            Route::Events,
            json!({"view": {"items": [
                {"id": "i1", "kind": "reply", "text": "two\nlines\tok"},
                {"id": "i2", "kind": "notice", "title": "one\nline"},
                {"id": "i3", "kind": "notice", "text": "escape \u{1b}[2J"}]},
              "ask": {"permission": {"arguments": {"cmd": "a\nb", "k\ney": 1}}}}),
        );
        // The findings follow the agent's own key order; the test does not care which.
        let mut found = invisible(&sample);
        found.sort();
        assert_eq!(
            found,
            [
                "GET /x: ask.permission.arguments.k\ney (the key) holds U+000A",
                "GET /x: view.items[1].title holds U+000A",
                "GET /x: view.items[2].text holds U+001B",
            ]
        );
    }

    #[test]
    fn asks_and_items_from_every_place() {
        let sample = sample_of(
            Route::Events,
            json!({"events": [{"type": "ask", "ask": {"id": "a"}}, {"type": "item", "item": {"id": "i"}}],
                   "view": {"asks": [{"id": "b"}], "items": [{"id": "j"}]}}),
        );
        assert_eq!(asks(&sample).len(), 2);
        assert_eq!(items(&sample).len(), 2);
    }
}
