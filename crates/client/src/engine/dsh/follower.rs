//! The I/O of one task's events (seed §2 /transcript and /events, §4): the history by
//! `/transcript` pages, then the live `/events` stream from the same cursor; after a drop, the
//! pages from the cursor again (which fill the hole, or admit a gap with `truncatedBefore`) and
//! a new stream. The follower only reads and forwards; the bridge session dedupes by
//! `(sessionId, sessionSeq)` and maps, so overlaps between pages and stream cost nothing.
//!
//! A session no task follows has no stream: its history is read again at the phone's poll
//! cadence. The real bridge answers that read from the durable log whole, ignoring `sinceSeq`
//! and `limit`, so what the follower already holds is dropped here.

use std::collections::VecDeque;

use std::time::Duration;

use futures::StreamExt;
use tokio::sync::{mpsc, watch};

use super::backoff::Backoff;
use super::http::{BridgeClient, CallError, MAX_TRANSCRIPT_REPLY};
use super::sse::{self, Frame};
use crate::dsh_wire::{self as wire, ClientBehaviour, Event, TranscriptPage};
use crate::engine::session::OnScreen;

/// Events asked for in one transcript page: the seed's most. The real bridge answers a page with
/// the NEWEST `limit` events after `sinceSeq`, not the oldest, so a smaller page would skip
/// events between pages; a full page that starts past the cursor is shown as a gap.
pub(crate) const PAGE_LIMIT: usize = 2000;

/// How often a session no task follows is read again (docs/DSH.md, "How often the phone
/// asks"): every 2 s while a person looks at its pane, else every 10 s, as a quiet pane of a
/// Collie agent is not read at every poll (SPEC S7, T8).
const SESSION_EVERY_WATCHED: Duration = Duration::from_secs(2);
const SESSION_EVERY_IDLE: Duration = Duration::from_secs(10);

/// Events of a history kept for the first view: the phone shows at most 2000 items of a pane,
/// and one event makes one or two.
pub(crate) const HISTORY_KEPT: usize = 2000;

/// What a follower tells its bridge session.
#[derive(Debug)]
pub(crate) enum FollowerMsg {
    /// Pages read from the transcript. `initial` is the first read of this pane: the view is
    /// made from it. `gap` is the bridge's `truncatedBefore` when it left a hole after what
    /// the follower held.
    History {
        pane: String,
        initial: bool,
        events: Vec<Event>,
        gap: Option<i64>,
    },
    /// Events from the live stream, in order.
    Live { pane: String, events: Vec<Event> },
    /// The follower stopped for good: the bridge refused in a way the seed says not to retry
    /// (task gone, workspace mismatch, token refused), with its code and words.
    Stopped {
        pane: String,
        code: String,
        why: String,
    },
}

/// Where the follower reads: a bridge task (history and stream), or a session no task follows
/// (its history only, seed GET /transcript by `workspaceId` + `sessionId`).
#[derive(Debug, Clone)]
pub(crate) enum Source {
    Task {
        task_id: String,
    },
    Session {
        workspace_id: String,
        session_id: String,
    },
}

pub(crate) struct Follower {
    pub(crate) client: BridgeClient,
    pub(crate) pane: String,
    pub(crate) source: Source,
    pub(crate) to_session: mpsc::Sender<FollowerMsg>,
    /// Whether a person is looking, and which panes are on screen: the cadence of a
    /// session's re-reads.
    pub(crate) watching: watch::Receiver<bool>,
    pub(in crate::engine) on_screen: watch::Receiver<OnScreen>,
}

impl Follower {
    pub(crate) async fn run(self) {
        let mut cursor: Option<i64> = None;
        let mut backoff = Backoff::for_reads();
        let mut initial = true;
        loop {
            match self.history(cursor, initial).await {
                Ok(next) => {
                    cursor = next.or(cursor);
                    initial = false;
                }
                Err(error) => {
                    if self.stop_for(&error).await {
                        return;
                    }
                    tracing::info!(pane = %self.pane, "the transcript could not be read: {error}");
                    tokio::time::sleep(backoff.next_delay()).await;
                    continue;
                }
            }
            let Source::Task { task_id } = &self.source else {
                // A session without a task has no live stream in this protocol: read it
                // again at the poll cadence.
                if self.to_session.is_closed() {
                    return;
                }
                self.until_read_again().await;
                continue;
            };
            match self.client.open_events(task_id, cursor).await {
                Ok(response) => {
                    backoff.reset();
                    let reason = self.stream(response, &mut cursor).await;
                    tracing::info!(pane = %self.pane, cursor = ?cursor, "the event stream ended: {reason}; resuming from the cursor");
                }
                Err(error) => {
                    if self.stop_for(&error).await {
                        return;
                    }
                    tracing::info!(pane = %self.pane, "the event stream did not open: {error}");
                }
            }
            if self.to_session.is_closed() {
                return;
            }
            tokio::time::sleep(backoff.next_delay()).await;
        }
    }

    /// True when a person looks at this follower's pane.
    fn looked_at(&self) -> bool {
        *self.watching.borrow() && self.on_screen.borrow().shows(&self.pane)
    }

    /// Waits until a session no task follows is due to be read again: its cadence counted
    /// from the read just made, as it is now (a person may look away, or come to the pane);
    /// a pane that comes on screen is read at once, as a Collie agent's is (SPEC S7).
    async fn until_read_again(&self) {
        let read = tokio::time::Instant::now();
        let mut watching = self.watching.clone();
        let mut on_screen = self.on_screen.clone();
        loop {
            let looked_at = self.looked_at();
            let every = if looked_at {
                SESSION_EVERY_WATCHED
            } else {
                SESSION_EVERY_IDLE
            };
            tokio::select! {
                () = tokio::time::sleep_until(read + every) => return,
                Ok(()) = watching.changed() => {}
                Ok(()) = on_screen.changed() => {}
            }
            if self.looked_at() && !looked_at {
                return;
            }
        }
    }

    /// Reads every page after `cursor` and sends them; returns the new cursor.
    async fn history(&self, cursor: Option<i64>, initial: bool) -> Result<Option<i64>, CallError> {
        let mut since = cursor;
        let mut kept: VecDeque<Event> = VecDeque::new();
        let mut gap = None;
        loop {
            let mut page = self.page(since).await?;
            // The durable-log read ignores `sinceSeq`: keep only what is new.
            if let Some(held) = since {
                page.items.retain(|event| event.session_seq > held);
            }
            // A gap is events missing after what is held. Sessions count from 1, so nothing
            // held is "0": the real bridge's `truncatedBefore: 1` on a whole history is no gap.
            let held = since.unwrap_or(0).max(0);
            if let Some(earliest) = page.truncated_before
                && gap.is_none()
                && earliest > held + 1
            {
                gap = Some(earliest);
            }
            if page.items.len() >= PAGE_LIMIT
                && let Some(first) = page.items.first().map(|e| e.session_seq)
                && gap.is_none()
                && first > held + 1
            {
                gap = Some(first);
            }
            let last = page.items.last().map(|e| e.session_seq);
            let done = match last {
                None => true,
                Some(last) => last >= page.cursor || since.is_some_and(|s| last <= s),
            };
            for event in page.items {
                kept.push_back(event);
                if kept.len() > HISTORY_KEPT {
                    kept.pop_front();
                }
            }
            if let Some(last) = last {
                since = Some(since.map_or(last, |s| s.max(last)));
            }
            if done {
                break;
            }
        }
        let message = FollowerMsg::History {
            pane: self.pane.clone(),
            initial,
            events: kept.into(),
            gap,
        };
        if self.to_session.send(message).await.is_err() {
            return Ok(since);
        }
        Ok(since)
    }

    async fn page(&self, since: Option<i64>) -> Result<TranscriptPage, CallError> {
        let limit = PAGE_LIMIT.to_string();
        let since_text = since.map(|s| s.to_string());
        let mut pairs: Vec<(&str, &str)> = match &self.source {
            Source::Task { task_id } => vec![("taskId", task_id.as_str())],
            Source::Session {
                workspace_id,
                session_id,
            } => vec![
                ("workspaceId", workspace_id.as_str()),
                ("sessionId", session_id.as_str()),
            ],
        };
        if let Some(since) = &since_text {
            pairs.push(("sinceSeq", since));
        }
        pairs.push(("limit", &limit));
        let route = wire::routes::with_query(wire::routes::TRANSCRIPT, &pairs);
        self.client.get(&route, MAX_TRANSCRIPT_REPLY).await
    }

    /// Forwards the stream's events until it ends; returns why it ended.
    async fn stream(&self, response: reqwest::Response, cursor: &mut Option<i64>) -> String {
        let frames = sse::frames(response, sse::IDLE_LIMIT);
        futures::pin_mut!(frames);
        while let Some(frame) = frames.next().await {
            match frame {
                Ok(Frame::Event(event)) => {
                    *cursor = Some(cursor.map_or(event.session_seq, |c| c.max(event.session_seq)));
                    let message = FollowerMsg::Live {
                        pane: self.pane.clone(),
                        events: vec![*event],
                    };
                    if self.to_session.send(message).await.is_err() {
                        return "the phone stopped following".into();
                    }
                }
                Ok(Frame::Unreadable(why)) => {
                    tracing::warn!(pane = %self.pane, "skipped a bridge frame that is not an event: {why}");
                }
                Err(error) => return error.to_string(),
            }
        }
        "the stream ended".into()
    }

    /// True when the seed says this refusal is not to be retried: the follower reports it and
    /// ends. Everything else (lost replies, not-ready, timeouts) is retried after a pause.
    async fn stop_for(&self, error: &CallError) -> bool {
        let CallError::Refused { error: refusal, .. } = error else {
            return false;
        };
        let behaviour = refusal.code.behaviour();
        if behaviour.may_retry() || behaviour == ClientBehaviour::LogAndReport {
            return false;
        }
        let message = FollowerMsg::Stopped {
            pane: self.pane.clone(),
            code: refusal.code.as_str().to_string(),
            why: format!("{} {}", refusal.message, behaviour.advice()),
        };
        let _ = self.to_session.send(message).await;
        true
    }
}
