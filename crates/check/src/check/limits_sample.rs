//! What the agent sends, read once for every SPEC L check: hello, the snapshot, each pane's
//! events (its whole view and its run of events), history pages, and (with writes) one POST
//! reply. Kept as raw JSON, never `wire::decode`d, since decoding already cuts and drops what
//! the checks must see.

use serde_json::{Value, json};

use super::super::{Probe, ProbeRequest};
use super::scan::snapshot_panes;
use crate::transport::TransportError;
use crate::wire::{self, caps, limits, paths};

/// Panes whose events are read at most: the most a snapshot may hold (SPEC L).
const MOST_PANES_READ: usize = limits::MAX_PANES;
/// Conversations whose items are read: the newest few and the longest one.
const NEWEST_CONVERSATIONS_READ: usize = 3;

/// The route a reply came from, with the most of it Collie reads (SPEC W5, L).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Route {
    Hello,
    Snapshot,
    Events,
    Conversations,
    Items,
    Post,
}

impl Route {
    pub(crate) fn cap(self) -> usize {
        match self {
            Route::Hello => limits::MAX_HELLO_REPLY,
            Route::Snapshot => limits::MAX_SNAPSHOT_REPLY,
            Route::Events => limits::MAX_EVENTS_REPLY,
            Route::Conversations => limits::MAX_CONVERSATIONS_REPLY,
            Route::Items => limits::MAX_ITEMS_REPLY,
            Route::Post => limits::MAX_POST_REPLY,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Route::Hello => "hello",
            Route::Snapshot => "snapshot",
            Route::Events => "events",
            Route::Conversations => "conversations",
            Route::Items => "items",
            Route::Post => "a POST",
        }
    }

    pub(crate) const ALL: [Route; 6] = [
        Route::Hello,
        Route::Snapshot,
        Route::Events,
        Route::Conversations,
        Route::Items,
        Route::Post,
    ];
}

/// One reply as it came: where from, its status and size, and its body as JSON (Null when the
/// body was not JSON).
#[derive(Debug, Clone)]
pub(super) struct Seen {
    pub(crate) route: Route,
    /// "GET /session/v1/…", for findings.
    pub(crate) request: String,
    pub(crate) status: u16,
    pub(crate) size: usize,
    pub(crate) body: Value,
    /// For history pages: the `limit` asked.
    pub(crate) asked: Option<usize>,
}

impl Seen {
    /// The body when the reply was a `200` of its route's shape (a JSON object).
    pub(crate) fn ok_body(&self) -> Option<&Value> {
        (self.status == 200 && self.body.is_object()).then_some(&self.body)
    }
}

/// Everything read, and what could not be read.
#[derive(Debug, Default)]
pub(super) struct Sample {
    pub(crate) seen: Vec<Seen>,
    /// Replies Collie would not read because they passed their route's cap: (request, cap).
    pub(crate) over_cap: Vec<(String, usize)>,
    /// Requests that got no reply for another reason (a timeout, a broken connection).
    pub(crate) unread: Vec<String>,
    /// True when hello offers history (`caps.history`), so the history routes were read.
    pub(crate) history: bool,
    /// True when a POST reply was read (only with `--allow-writes`).
    pub(crate) posted: bool,
}

impl Sample {
    /// Reads what the agent sends. Never fails: what could not be read is noted.
    pub(crate) fn collect(probe: &Probe) -> Self {
        let mut sample = Self {
            history: probe.hello().is_some_and(|hello| hello.cap(caps::HISTORY)),
            ..Self::default()
        };
        sample.read(probe, Route::Hello, ProbeRequest::get(paths::hello()), None);
        let snapshot = sample
            .read(
                probe,
                Route::Snapshot,
                ProbeRequest::get(paths::snapshot()),
                None,
            )
            .cloned();
        let epoch = snapshot
            .as_ref()
            .and_then(|s| s.get("epoch"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let panes = snapshot.as_ref().map(pane_ids).unwrap_or_default();
        for pane in panes.iter().take(MOST_PANES_READ) {
            // A first read gets the pane's whole view; a read from the start of this epoch
            // gets its run of events (SPEC H5).
            let view = ProbeRequest::get(paths::events(pane, 0, None));
            sample.read(probe, Route::Events, view, None);
            if let Some(epoch) = &epoch {
                let run = ProbeRequest::get(paths::events(pane, 0, Some(epoch)));
                sample.read(probe, Route::Events, run, None);
            }
        }
        if sample.history {
            sample.read_history(probe);
        }
        if probe.allow_writes()
            && let Some(pane) = panes.first()
        {
            sample.read_post(probe, pane);
        }
        sample
    }

    /// Two pages of conversations at the most a page may hold, then the items of the newest
    /// few and of the longest one (SPEC L: 100 conversations, 1000 items a page).
    fn read_history(&mut self, probe: &Probe) {
        let most = limits::MAX_CONVERSATIONS_PAGE;
        let mut rows: Vec<(String, u64)> = Vec::new();
        let mut after: Option<String> = None;
        for _ in 0..2 {
            let request = ProbeRequest::get(paths::conversations(after.as_deref(), most));
            let Some(page) = self.read(probe, Route::Conversations, request, Some(most)) else {
                break;
            };
            rows.extend(
                page.get("conversations")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|row| {
                        let id = row.get("id")?.as_str()?.to_string();
                        let count = row.get("itemCount").and_then(Value::as_u64).unwrap_or(0);
                        Some((id, count))
                    }),
            );
            after = next_cursor(page);
            if after.is_none() {
                break;
            }
        }
        let mut chosen: Vec<String> = rows
            .iter()
            .take(NEWEST_CONVERSATIONS_READ)
            .map(|(id, _)| id.clone())
            .collect();
        if let Some((longest, _)) = rows.iter().max_by_key(|(_, count)| *count)
            && !chosen.contains(longest)
        {
            chosen.push(longest.clone());
        }
        let most = limits::MAX_ITEMS_PAGE;
        for id in chosen {
            let request = ProbeRequest::get(paths::conversation_items(&id, None, most));
            let next = self
                .read(probe, Route::Items, request, Some(most))
                .and_then(next_cursor);
            if let Some(next) = next {
                let request = ProbeRequest::get(paths::conversation_items(&id, Some(&next), most));
                self.read(probe, Route::Items, request, Some(most));
            }
        }
    }

    /// One POST whose reply is small on any agent and changes nothing: an answer to an ask
    /// no agent knows (SPEC A8 says it gets `200 too-late`).
    fn read_post(&mut self, probe: &Probe, pane: &str) {
        let body = json!({
            "requestId": probe.request_id(),
            "askId": format!("{}-ask", probe.unknown_id()),
            "revision": 1,
            "answer": {"text": "collie-phone check"},
        });
        let request =
            ProbeRequest::post_json(paths::pane_post(pane, paths::PaneVerb::Answer), &body);
        self.posted = true;
        self.read(probe, Route::Post, request, None);
    }

    /// Sends one request and keeps its reply; gives the body of a `200` JSON object.
    fn read(
        &mut self,
        probe: &Probe,
        route: Route,
        request: ProbeRequest,
        asked: Option<usize>,
    ) -> Option<&Value> {
        let described = format!("{} {}", request.method.as_str(), request.path);
        match probe.send(&request) {
            Ok(answer) => {
                self.seen.push(Seen {
                    route,
                    request: described,
                    status: answer.status,
                    size: answer.body.len(),
                    body: answer.json().unwrap_or(Value::Null),
                    asked,
                });
                self.seen.last().and_then(Seen::ok_body)
            }
            Err(why) if why.ends_with(&TransportError::TooLarge(route.cap()).to_string()) => {
                self.over_cap.push((described, route.cap()));
                None
            }
            Err(why) => {
                self.unread.push(why);
                None
            }
        }
    }

    /// The replies of `route` that were `200`s of its shape.
    pub(crate) fn bodies(&self, route: Route) -> impl Iterator<Item = &Seen> {
        self.seen
            .iter()
            .filter(move |seen| seen.route == route && seen.ok_body().is_some())
    }
}

/// A page's `next`, when it is a cursor the agent may be asked for again (SPEC L).
fn next_cursor(page: &Value) -> Option<String> {
    page.get("next")
        .and_then(Value::as_str)
        .filter(|next| wire::check_cursor(next))
        .map(str::to_string)
}

/// Every pane id of a raw snapshot, in order.
fn pane_ids(snapshot: &Value) -> Vec<String> {
    snapshot_panes(snapshot)
        .into_iter()
        .filter_map(|(_, pane)| pane.get("id")?.as_str().map(str::to_string))
        .collect()
}
