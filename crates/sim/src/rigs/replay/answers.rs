//! Which recorded reply answers a request, at a moment of the recording's timeline.
//!
//! - hello, snapshot and history reads: the latest reply recorded at or before that moment (the
//!   first one before it began). A snapshot whose ETag the client already has is a `304` (SPEC
//!   H4, T5).
//! - events: the reply recorded for that exact cursor `(pane, after, epoch)`; the replies
//!   recorded for the cursors that follow are joined on, up to that moment and to 1000 events
//!   (SPEC L), so `--speed 0` reaches the end in one read. A cursor whose next read lies in the
//!   future, or that ends the recording, has nothing new: an empty run.
//! - POSTs: the reply recorded for the same path and request id, else for the same path and the
//!   same body without its request id (its `requestId` then made the caller's). Repeats walk
//!   through the recorded replies in order.
//! - Anything else has no recorded reply: [`Served::Missing`], which the server answers honestly.

use std::collections::HashMap;

use bytes::Bytes;
use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};

use crate::wire::limits;
use crate::wire::recording::RecordedExchange;

/// The request as the replay sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Incoming<'a> {
    pub(crate) method: &'a str,
    /// With `/session/v1` and the query.
    pub(crate) path: &'a str,
    pub(crate) if_none_match: Option<&'a str>,
    /// Carries `X-Collie-Session`: on hello, the telling hello (SPEC V4).
    pub(crate) versioned: bool,
    pub(crate) body: &'a [u8],
}

/// A reply to send.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    pub status: u16,
    pub etag: Option<String>,
    pub(crate) location: Option<String>,
    pub body: Bytes,
}

/// What the recording has for a request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Served {
    Recorded(Reply),
    /// The recording holds no reply for it.
    Missing,
}

#[derive(Debug, Clone)]
struct Entry {
    at_ms: u64,
    versioned: bool,
    reply: Reply,
}

/// A pane's place in its event stream, as a request names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Cursor {
    /// The path without the query.
    route: String,
    after: u64,
    epoch: Option<String>,
}

#[derive(Debug, Clone)]
struct Post {
    path: String,
    request_id: Option<String>,
    /// The body without its request id, as a value (so key order and spaces do not matter).
    payload: Option<Value>,
    reply: Reply,
}

/// Every recorded reply of one agent, sorted for lookup.
#[derive(Debug, Default)]
pub struct Answers {
    reads: HashMap<String, Vec<Entry>>,
    events: HashMap<Cursor, Vec<Entry>>,
    /// `(route, epoch, cursor)` of every recorded run of events: the places a reader can be.
    event_ends: std::collections::HashSet<(String, String, u64)>,
    posts: Vec<Post>,
    /// How many times each POST key was asked, to walk repeats through the recorded replies.
    asked: HashMap<String, usize>,
}

impl Answers {
    pub fn new(exchanges: &[RecordedExchange]) -> Self {
        let mut answers = Self::default();
        for exchange in exchanges {
            let Some(status) = exchange.status else {
                continue;
            };
            let body = exchange
                .reply_body
                .as_ref()
                .and_then(|b| b.to_bytes())
                .unwrap_or_default();
            let reply = Reply {
                status,
                etag: exchange.etag.clone(),
                location: exchange.location.clone(),
                body: Bytes::from(body),
            };
            match exchange.method.as_str() {
                "GET" => answers.add_read(exchange, reply),
                "POST" => {
                    let body = exchange
                        .request_body
                        .as_ref()
                        .and_then(|b| b.to_bytes())
                        .unwrap_or_default();
                    let (request_id, payload) = split_request_id(&body);
                    answers.posts.push(Post {
                        path: exchange.path.clone(),
                        request_id,
                        payload,
                        reply,
                    });
                }
                _ => {}
            }
        }
        for entries in answers
            .reads
            .values_mut()
            .chain(answers.events.values_mut())
        {
            entries.sort_by_key(|e| e.at_ms);
        }
        answers
    }

    fn add_read(&mut self, exchange: &RecordedExchange, reply: Reply) {
        let entry = Entry {
            at_ms: exchange.since_start_ms,
            versioned: exchange
                .request_headers
                .contains_key(crate::wire::VERSION_HEADER),
            reply,
        };
        if let Some(cursor) = events_cursor(&exchange.path) {
            if entry.reply.status == 200
                && let Ok(run) = serde_json::from_slice::<Value>(&entry.reply.body)
                && let (Some(epoch), Some(end)) = (run["epoch"].as_str(), run["cursor"].as_u64())
            {
                self.event_ends
                    .insert((cursor.route.clone(), epoch.to_string(), end));
            }
            self.events.entry(cursor).or_default().push(entry);
        } else {
            self.reads
                .entry(exchange.path.clone())
                .or_default()
                .push(entry);
        }
    }

    /// The reply for `incoming` at `now_ms` of the recording's timeline.
    pub(crate) fn answer(&mut self, incoming: &Incoming<'_>, now_ms: u64) -> Served {
        match incoming.method {
            "GET" => match events_cursor(incoming.path) {
                Some(cursor) => self.events_reply(&cursor, now_ms),
                None => self.read_reply(incoming, now_ms),
            },
            "POST" => self.post_reply(incoming),
            _ => Served::Missing,
        }
    }

    fn read_reply(&self, incoming: &Incoming<'_>, now_ms: u64) -> Served {
        let Some(entries) = self.reads.get(incoming.path) else {
            return Served::Missing;
        };
        // A 304 holds no body to serve; the 200 before it carries the same tag.
        let mut usable: Vec<&Entry> = entries.iter().filter(|e| e.reply.status != 304).collect();
        if usable.iter().any(|e| e.versioned == incoming.versioned) {
            usable.retain(|e| e.versioned == incoming.versioned);
        }
        let Some(entry) = at_or_before(&usable, now_ms).or_else(|| usable.first().copied()) else {
            return Served::Missing;
        };
        let reply = entry.reply.clone();
        if let (Some(theirs), Some(ours)) = (incoming.if_none_match, reply.etag.as_deref())
            && same_tag(theirs, ours)
        {
            return Served::Recorded(Reply {
                status: 304,
                etag: reply.etag,
                location: None,
                body: Bytes::new(),
            });
        }
        Served::Recorded(reply)
    }

    fn events_reply(&self, cursor: &Cursor, now_ms: u64) -> Served {
        let entries: Vec<&Entry> = self
            .events
            .get(cursor)
            .map(|e| e.iter().collect())
            .unwrap_or_default();
        let first = match at_or_before(&entries, now_ms) {
            Some(entry) => entry,
            // A first read (no epoch) must show the pane: the earliest view it got.
            None if cursor.epoch.is_none() => match entries.first() {
                Some(entry) => entry,
                None => return Served::Missing,
            },
            None => {
                return match &cursor.epoch {
                    Some(epoch) if !entries.is_empty() || self.ends_here(cursor, epoch) => {
                        Served::Recorded(empty_run(epoch, cursor.after))
                    }
                    _ => Served::Missing,
                };
            }
        };
        Served::Recorded(self.join_runs(cursor, first, now_ms))
    }

    fn ends_here(&self, cursor: &Cursor, epoch: &str) -> bool {
        self.event_ends
            .contains(&(cursor.route.clone(), epoch.to_string(), cursor.after))
    }

    /// The first reply and the runs recorded after it, up to `now_ms` and 1000 events.
    fn join_runs(&self, cursor: &Cursor, first: &Entry, now_ms: u64) -> Reply {
        let Some(mut joined) = plain_run(&first.reply) else {
            return self.view_with_more(cursor, first, now_ms);
        };
        let mut links = 0;
        loop {
            let next = Cursor {
                route: cursor.route.clone(),
                after: joined.cursor,
                epoch: Some(joined.epoch.clone()),
            };
            let candidates: Vec<&Entry> = self
                .events
                .get(&next)
                .map(|e| e.iter().collect())
                .unwrap_or_default();
            let Some(run) = at_or_before(&candidates, now_ms).and_then(|e| plain_run(&e.reply))
            else {
                break;
            };
            if run.epoch != joined.epoch || run.events.is_empty() || run.cursor <= joined.cursor {
                break;
            }
            if joined.events.len() + run.events.len() > limits::MAX_EVENTS_PER_REPLY {
                joined.more = true;
                break;
            }
            joined.events.extend(run.events);
            joined.cursor = run.cursor;
            joined.more = run.more;
            links += 1;
        }
        if links == 0 {
            return first.reply.clone();
        }
        let mut body = Map::new();
        body.insert("epoch".into(), Value::String(joined.epoch));
        body.insert("cursor".into(), Value::from(joined.cursor));
        body.insert("events".into(), Value::Array(joined.events));
        body.insert("more".into(), Value::Bool(joined.more));
        Reply {
            status: 200,
            etag: None,
            location: None,
            body: Bytes::from(Value::Object(body).to_string()),
        }
    }

    /// A whole view after which the recording has runs of events up to `now_ms` says `more`, so
    /// the reader asks on at once (SPEC H5) rather than showing the older view for a poll.
    fn view_with_more(&self, cursor: &Cursor, first: &Entry, now_ms: u64) -> Reply {
        let Ok(Value::Object(mut view)) = serde_json::from_slice::<Value>(&first.reply.body) else {
            return first.reply.clone();
        };
        let (Some(epoch), Some(end)) = (
            view.get("epoch").and_then(Value::as_str),
            view.get("cursor").and_then(Value::as_u64),
        ) else {
            return first.reply.clone();
        };
        let next = Cursor {
            route: cursor.route.clone(),
            after: end,
            epoch: Some(epoch.to_string()),
        };
        let candidates: Vec<&Entry> = self
            .events
            .get(&next)
            .map(|e| e.iter().collect())
            .unwrap_or_default();
        let newer = at_or_before(&candidates, now_ms)
            .and_then(|e| plain_run(&e.reply))
            .is_some_and(|run| run.epoch == epoch && run.cursor > end);
        if first.reply.status != 200 || !newer {
            return first.reply.clone();
        }
        view.insert("more".into(), Value::Bool(true));
        Reply {
            body: Bytes::from(Value::Object(view).to_string()),
            ..first.reply.clone()
        }
    }

    fn post_reply(&mut self, incoming: &Incoming<'_>) -> Served {
        let (request_id, payload) = split_request_id(incoming.body);
        let same_path = |p: &&Post| p.path == incoming.path;
        let by_id: Vec<&Post> = match &request_id {
            Some(id) => self
                .posts
                .iter()
                .filter(same_path)
                .filter(|p| p.request_id.as_deref() == Some(id))
                .collect(),
            None => Vec::new(),
        };
        let (key, matches) = if by_id.is_empty() {
            let Some(payload) = payload else {
                return Served::Missing;
            };
            let by_body: Vec<&Post> = self
                .posts
                .iter()
                .filter(same_path)
                .filter(|p| p.payload.as_ref() == Some(&payload))
                .collect();
            (format!("{}\0{payload}", incoming.path), by_body)
        } else {
            (
                format!(
                    "{}\0id\0{}",
                    incoming.path,
                    request_id.as_deref().unwrap_or("")
                ),
                by_id,
            )
        };
        let Some(last) = matches.last() else {
            return Served::Missing;
        };
        let asked = self.asked.get(&key).copied().unwrap_or(0);
        let post = matches.get(asked).unwrap_or(last);
        let mut reply = post.reply.clone();
        if let Some(id) = &request_id
            && post.request_id.as_deref() != Some(id.as_str())
        {
            reply.body = with_request_id(&reply.body, id);
        }
        self.asked.insert(key, asked + 1);
        Served::Recorded(reply)
    }
}

/// An events reply that is a run of events, not a whole view.
struct Run {
    epoch: String,
    cursor: u64,
    events: Vec<Value>,
    more: bool,
}

fn plain_run(reply: &Reply) -> Option<Run> {
    if reply.status != 200 {
        return None;
    }
    let value: Value = serde_json::from_slice(&reply.body).ok()?;
    if value.get("view").is_some_and(|v| !v.is_null()) {
        return None;
    }
    Some(Run {
        epoch: value.get("epoch")?.as_str()?.to_string(),
        cursor: value.get("cursor")?.as_u64()?,
        events: value
            .get("events")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        more: value.get("more").and_then(Value::as_bool).unwrap_or(false),
    })
}

fn empty_run(epoch: &str, after: u64) -> Reply {
    let body = serde_json::json!({"epoch": epoch, "cursor": after, "events": [], "more": false});
    Reply {
        status: 200,
        etag: None,
        location: None,
        body: Bytes::from(body.to_string()),
    }
}

/// The latest entry at or before `now_ms`; entries are sorted by time.
fn at_or_before<'a>(entries: &[&'a Entry], now_ms: u64) -> Option<&'a Entry> {
    entries.iter().rev().find(|e| e.at_ms <= now_ms).copied()
}

/// SPEC T5: tags compare without `W/`.
fn same_tag(a: &str, b: &str) -> bool {
    let strip = |t: &str| t.trim().trim_start_matches("W/").to_string();
    strip(a) == strip(b)
}

/// `/session/v1/pane/ID/events?after=N&epoch=E` as a cursor; None for any other path.
fn events_cursor(path: &str) -> Option<Cursor> {
    let (route, query) = path.split_once('?').unwrap_or((path, ""));
    let pane = route
        .strip_prefix(crate::wire::paths::PREFIX)?
        .strip_prefix("/pane/")?
        .strip_suffix("/events")?;
    if pane.is_empty() || pane.contains('/') {
        return None;
    }
    let mut after = 0;
    let mut epoch = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode_str(value).decode_utf8_lossy().into_owned();
        match name {
            "after" => after = value.parse().ok()?,
            "epoch" => epoch = Some(value),
            _ => {}
        }
    }
    Some(Cursor {
        route: route.to_string(),
        after,
        epoch,
    })
}

/// A POST body's request id, and the rest of it as a value (SPEC Q3's fingerprint leaves the id
/// out the same way).
fn split_request_id(body: &[u8]) -> (Option<String>, Option<Value>) {
    let trimmed = body.trim_ascii();
    let parsed = if trimmed.is_empty() {
        Ok(Value::Object(Map::new()))
    } else {
        serde_json::from_slice::<Value>(trimmed)
    };
    match parsed {
        Ok(Value::Object(mut object)) => {
            let id = match object.remove("requestId") {
                Some(Value::String(id)) => Some(id),
                _ => None,
            };
            (id, Some(Value::Object(object)))
        }
        _ => (None, None),
    }
}

/// A recorded reply given to a new request id names that id, as an agent's reply would.
fn with_request_id(body: &Bytes, id: &str) -> Bytes {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(mut object)) if object.contains_key("requestId") => {
            object.insert("requestId".into(), Value::String(id.to_string()));
            Bytes::from(Value::Object(object).to_string())
        }
        _ => body.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::recording::RecordedBody;
    use std::collections::BTreeMap;
    use time::OffsetDateTime;

    fn exchange(at: u64, method: &str, path: &str, status: u16, reply: &str) -> RecordedExchange {
        RecordedExchange {
            since_start_ms: at,
            at: OffsetDateTime::UNIX_EPOCH,
            agent: "a".into(),
            method: method.into(),
            path: path.into(),
            request_headers: BTreeMap::new(),
            request_body: None,
            status: Some(status),
            etag: None,
            location: None,
            reply_body: Some(RecordedBody::Text(reply.into())),
            elapsed_ms: 1,
            error: None,
        }
    }

    fn get<'a>(path: &'a str, if_none_match: Option<&'a str>) -> Incoming<'a> {
        Incoming {
            method: "GET",
            path,
            if_none_match,
            versioned: true,
            body: b"",
        }
    }

    fn body(served: Served) -> String {
        match served {
            Served::Recorded(reply) => String::from_utf8(reply.body.to_vec()).expect("utf-8"),
            Served::Missing => "missing".into(),
        }
    }

    const SNAP: &str = "/session/v1/snapshot";

    /// SPEC H4, T5: the snapshot of the moment, and 304 for the tag the client holds.
    #[test]
    fn h4_snapshots_follow_the_timeline_with_304() {
        let mut first = exchange(10, "GET", SNAP, 200, "one");
        first.etag = Some("\"e-1\"".into());
        let mut later = exchange(5000, "GET", SNAP, 200, "two");
        later.etag = Some("\"e-2\"".into());
        let unchanged = exchange(6000, "GET", SNAP, 304, "");
        let mut answers = Answers::new(&[first, later, unchanged]);
        assert_eq!(body(answers.answer(&get(SNAP, None), 0)), "one");
        assert_eq!(body(answers.answer(&get(SNAP, None), 4999)), "one");
        assert_eq!(body(answers.answer(&get(SNAP, None), u64::MAX)), "two");
        let Served::Recorded(reply) = answers.answer(&get(SNAP, Some("W/\"e-2\"")), 7000) else {
            panic!("a reply");
        };
        assert_eq!((reply.status, reply.body.len()), (304, 0));
    }

    #[test]
    fn events_join_the_runs_recorded_after_the_cursor() {
        let p = "/session/v1/pane/p1/events";
        let view = exchange(
            1,
            "GET",
            &format!("{p}?after=0"),
            200,
            r#"{"epoch":"E","cursor":3,"events":[],"view":{"state":"idle","items":[],"asks":[]}}"#,
        );
        let quiet = exchange(
            900,
            "GET",
            &format!("{p}?after=3&epoch=E"),
            200,
            r#"{"epoch":"E","cursor":3,"events":[]}"#,
        );
        let run1 = exchange(
            1900,
            "GET",
            &format!("{p}?after=3&epoch=E"),
            200,
            r#"{"epoch":"E","cursor":5,"events":[{"seq":4},{"seq":5}]}"#,
        );
        let run2 = exchange(
            2900,
            "GET",
            &format!("{p}?epoch=E&after=5"),
            200,
            r#"{"epoch":"E","cursor":6,"events":[{"seq":6}]}"#,
        );
        let mut answers = Answers::new(&[view, quiet, run1, run2]);
        let early = body(answers.answer(&get(&format!("{p}?after=0"), None), 0));
        assert!(
            early.contains("view") && !early.contains("\"more\":true"),
            "{early}"
        );
        // At the end a first read still gets the view, told that more waits after it (H5).
        let late = body(answers.answer(&get(&format!("{p}?after=0"), None), u64::MAX));
        assert!(
            late.contains("view") && late.contains("\"more\":true"),
            "{late}"
        );
        // Before anything happened after cursor 3: the quiet reply.
        assert!(
            body(answers.answer(&get(&format!("{p}?after=3&epoch=E"), None), 1000))
                .contains("\"cursor\":3")
        );
        // At the end: both runs joined.
        let end = body(answers.answer(&get(&format!("{p}?after=3&epoch=E"), None), u64::MAX));
        let end: Value = serde_json::from_str(&end).expect("json");
        assert_eq!(end["cursor"], 6);
        assert_eq!(end["events"].as_array().map(Vec::len), Some(3));
        // The last cursor has nothing new; an unknown one has no reply.
        assert!(
            body(answers.answer(&get(&format!("{p}?after=6&epoch=E"), None), u64::MAX))
                .contains("\"events\":[]")
        );
        assert_eq!(
            answers.answer(&get(&format!("{p}?after=99&epoch=E"), None), u64::MAX),
            Served::Missing
        );
    }

    /// SPEC Q3: the same id gets its recorded reply; the same body under a new id gets it too,
    /// naming the new id.
    #[test]
    fn q3_posts_match_by_id_or_by_body() {
        let path = "/session/v1/pane/p1/answer";
        let mut answered = exchange(10, "POST", path, 200, r#"{"code":"ok","requestId":"r-1"}"#);
        answered.request_body = Some(RecordedBody::Text(
            r#"{"requestId":"r-1","askId":"k","revision":1,"answer":{"optionId":"allow-once"}}"#
                .into(),
        ));
        let mut answers = Answers::new(&[answered]);
        let post = |body: &'static str| Incoming {
            method: "POST",
            path,
            if_none_match: None,
            versioned: true,
            body: body.as_bytes(),
        };
        assert!(body(answers.answer(&post(r#"{"requestId":"r-1"}"#), 0)).contains("r-1"));
        let again = body(answers.answer(&post(r#"{"answer":{"optionId":"allow-once"},"revision":1,"askId":"k","requestId":"r-9"}"#), 0));
        assert!(again.contains("\"requestId\":\"r-9\""), "{again}");
        assert_eq!(
            answers.answer(&post(r#"{"requestId":"r-8","askId":"k","revision":2}"#), 0),
            Served::Missing
        );
        assert_eq!(answers.answer(&post("not json"), 0), Served::Missing);
    }
}
