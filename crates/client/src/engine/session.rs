//! One agent's session: hello, version, epoch, snapshot and events, polled at the cadence of
//! SPEC S7/T8 (docs/ENGINE.md, "A session").
//!
//! Every poll reads the snapshot (a `304` when nothing changed), then the events of the panes
//! that need them (SPEC S7, T8; see [`Session::needs_read`]): a pane on screen, a pane whose
//! entry changed since its last read or is new, a pane never read in this epoch, and any other
//! pane once per background interval ([`crate::transport::Cadence::background`]), busy or not.
//! Asks, pane states and turns are in the snapshot, and every change to them moves its `rev`
//! (docs/WIRE.md § GET /snapshot), so what the inbox, the layout and the cards show is read in
//! the same poll; only the chat items of a pane nobody looks at wait, and a pane that comes on
//! screen is read at once. All exchanges of one poll go over
//! one [`Link`]: one socket connection per poll, after the S3 check.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};
use time::OffsetDateTime;
use tokio::sync::watch;

use super::observer::Observer;
use super::poll_grid::PollGrid;
use super::session_core::{SessionCore, Settled, Stop};
use super::status::AgentStatus;
use super::{AgentChange, SessionInfo};
use crate::transport::{Endpoint, Link, Method, Reply, Request, RouteClass, TransportError};
use crate::wire::{
    self, ErrorBody, ErrorCode, EventsReply, Hello, OUR_PROTOCOL, Pane, RANGE_HEADER, Snapshot,
    VERSION_HEADER, limits,
};

/// Reads of one pane's events in one poll when the agent says `more` (bounded so one busy pane
/// cannot starve the others).
const MAX_EVENT_READS_PER_POLL: usize = 8;

/// A pane's place in its event stream: the epoch the cursor belongs to and the last seq read.
#[derive(Debug, Clone, PartialEq)]
struct Cursor {
    epoch: String,
    after: u64,
}

/// The panes of one agent the person has on screen, as the app last said (SPEC S7, T8).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) enum OnScreen {
    /// Nobody said: every pane counts as watched (a headless command that prints every event).
    #[default]
    Every,
    /// These panes by id; the others are read when the snapshot says they changed.
    Panes(BTreeSet<String>),
}

impl OnScreen {
    pub(super) fn shows(&self, pane: &str) -> bool {
        match self {
            OnScreen::Every => true,
            OnScreen::Panes(panes) => panes.contains(pane),
        }
    }

    /// True when `self` shows a pane that `before` did not: a pane that just came on screen
    /// is read at once.
    pub(super) fn adds_to(&self, before: &OnScreen) -> bool {
        match (self, before) {
            (_, OnScreen::Every) => false,
            (OnScreen::Every, OnScreen::Panes(_)) => true,
            (OnScreen::Panes(now), OnScreen::Panes(before)) => !now.is_subset(before),
        }
    }
}

pub(super) struct Session {
    core: SessionCore,
    /// Where its polls fall, with every other agent's (SPEC S7, T8).
    grid: PollGrid,
    endpoint: Endpoint,
    /// The way to the agent for the exchanges of one poll.
    link: Link,
    on_screen: watch::Receiver<OnScreen>,
    info: watch::Sender<SessionInfo>,
    /// Records and shows every exchange this session makes.
    observer: Observer,
    version: Option<u32>,
    epoch: Option<String>,
    etag: Option<String>,
    /// Pane ids of the last snapshot, in order.
    panes: Vec<String>,
    /// Each pane's entry in the last snapshot, to tell which changed.
    entries: HashMap<String, Pane>,
    /// Panes whose entry changed (or that appeared, or a new epoch) since their events were
    /// last read through.
    due: HashSet<String>,
    /// When each pane's events were last read through (no `more` left).
    read_at: HashMap<String, Instant>,
    cursors: HashMap<String, Cursor>,
    /// Epochs that already got their telling hello (SPEC V4).
    told: HashSet<String>,
    /// Ranges already logged as refused (SPEC V5: one line per refused range).
    logged_ranges: HashSet<(u32, u32)>,
}

impl Session {
    pub(super) fn new(
        core: SessionCore,
        endpoint: Endpoint,
        info: watch::Sender<SessionInfo>,
        observer: Observer,
        on_screen: watch::Receiver<OnScreen>,
        grid: PollGrid,
    ) -> Self {
        Self {
            core,
            grid,
            link: Link::new(endpoint.clone()),
            endpoint,
            on_screen,
            info,
            observer,
            version: None,
            epoch: None,
            etag: None,
            panes: Vec::new(),
            entries: HashMap::new(),
            due: HashSet::new(),
            read_at: HashMap::new(),
            cursors: HashMap::new(),
            told: HashSet::new(),
            logged_ranges: HashSet::new(),
        }
    }

    /// Polls until the app is gone or the engine stops, or the agent turns out to be another
    /// server.
    pub(super) async fn run(mut self) {
        self.core
            .emit(AgentChange::Status(self.core.status.clone()));
        loop {
            if matches!(self.core.status, AgentStatus::OtherServer { .. }) {
                // SPEC H1: no further call to another server.
                return;
            }
            if self.core.is_ended() {
                return;
            }
            let started = tokio::time::Instant::now();
            self.poll().await;
            let next = self.grid.next(started, self.wait());
            tokio::select! {
                () = tokio::time::sleep_until(next) => {}
                () = self.core.poke.notified() => {}
                () = self.core.ended() => return,
            }
        }
    }

    /// The poll interval now (SPEC S7, T8): faster while the person watches; a down or refused
    /// agent at the down cadence.
    fn wait(&self) -> Duration {
        let cadence = self.endpoint.cadence();
        let watching = self.core.watching();
        let down = matches!(
            self.core.status,
            AgentStatus::Unreachable { .. }
                | AgentStatus::TokenRefused { .. }
                | AgentStatus::SocketNotPrivate { .. }
                | AgentStatus::Incompatible { .. }
        );
        match (down, watching) {
            (true, true) => cadence.down_watching,
            (true, false) => cadence.down_idle,
            (false, true) => cadence.watching,
            (false, false) => cadence.idle,
        }
    }

    /// A new status is published to the intents before the screens hear of it, so an intent
    /// sent on "ready" finds the session's version.
    fn set_status(&mut self, status: AgentStatus) {
        if self.core.note_status(&status) {
            self.publish_info();
            self.core.emit(AgentChange::Status(status));
        }
    }

    fn publish_info(&self) {
        let info = SessionInfo {
            version: if self.core.status.is_ready() {
                self.version
            } else {
                None
            },
            epoch: self.epoch.clone(),
        };
        self.info.send_replace(info);
    }

    /// One poll: hello when needed, then snapshot, then each pane's events.
    async fn poll(&mut self) {
        let result = self.poll_inner().await;
        // One connection per poll: the next poll makes its own, after the S3 check.
        self.link.end_cycle();
        // An agent that answered with a state was seen; a socket that was not dialled and a
        // refused token say nothing of it.
        if let Err(Stop::Status(status)) = &result
            && !matches!(
                status,
                AgentStatus::SocketNotPrivate { .. } | AgentStatus::TokenRefused { .. }
            )
        {
            self.core.reach.seen(OffsetDateTime::now_utc());
        }
        // SPEC H6: one failure after a good read keeps the last snapshot; two in a row (or the
        // first ever) show the agent as unreachable.
        match self.core.settle(result, "poll") {
            Settled::Synced => self
                .core
                .emit(AgentChange::Synced(OffsetDateTime::now_utc())),
            Settled::Status(status) => self.set_status(status),
            Settled::Stale => {}
            Settled::Unreachable(status) => {
                self.version = None;
                self.set_status(status);
            }
        }
    }

    async fn poll_inner(&mut self) -> Result<(), Stop> {
        if !self.core.status.is_ready() || self.version.is_none() {
            self.hello().await?;
        }
        self.snapshot().await?;
        self.all_events().await
    }

    async fn send(&mut self, request: Request) -> Result<Reply, TransportError> {
        let started = Instant::now();
        let result = self.link.exchange(&request).await;
        self.observer
            .collie(&self.core.name, &request, None, result.as_ref(), started);
        result
    }

    fn get(&self, path: String, reply_cap: usize, versioned: bool) -> Request {
        let mut headers = Vec::new();
        if versioned && let Some(version) = self.version {
            headers.push((VERSION_HEADER, version.to_string()));
        }
        Request {
            method: Method::Get,
            path,
            headers,
            body: None,
            class: RouteClass::Read,
            reply_cap,
        }
    }

    /// Maps a transport failure: a socket that is not private is not a failure to count, it is a
    /// state shown at once (SPEC H6, S4).
    fn transport_stop(error: TransportError) -> Stop {
        match error {
            TransportError::NotPrivate(np) => Stop::Status(AgentStatus::SocketNotPrivate {
                part: np.part.display().to_string(),
                why: np.why,
                fix: np.fix,
            }),
            other => Stop::Failed(other.to_string()),
        }
    }

    /// Statuses any route may answer with, whatever it is.
    fn common_refusal(&mut self, reply: &Reply) -> Option<Stop> {
        match reply.status {
            401 | 403 if self.endpoint.is_tls() => Some(Stop::Status(AgentStatus::TokenRefused {
                status: reply.status,
                bridge: false,
            })),
            // Over the socket there is no token: the agent refused this very process (SPEC S5).
            401 | 403 => Some(Stop::Status(AgentStatus::Unreachable {
                reason: format!(
                    "the agent refuses this process ({} {})",
                    reply.status,
                    error_code(reply)
                        .map(|c| c.as_str().to_string())
                        .unwrap_or_default()
                ),
                last_seen: self.core.reach.last_seen(),
            })),
            300..=303 | 305..=399 => Some(Stop::Failed(format!(
                "the agent answered {} (a redirect, which Collie never follows){}",
                reply.status,
                reply
                    .location
                    .as_deref()
                    .map(|l| format!(" to {l}"))
                    .unwrap_or_default()
            ))),
            503 if error_code(reply) == Some(ErrorCode::Starting) => {
                self.version = None;
                Some(Stop::Status(AgentStatus::Starting))
            }
            409 if error_code(reply) == Some(ErrorCode::Incompatible) => {
                self.version = None;
                Some(Stop::Failed("the agent refused our version".into()))
            }
            _ => None,
        }
    }

    /// SPEC H1, H2, H3, V4: hello without the version header; pick the highest common version.
    async fn hello(&mut self) -> Result<(), Stop> {
        let request = self.get(wire::paths::hello(), limits::MAX_HELLO_REPLY, false);
        let reply = self.send(request).await.map_err(Self::transport_stop)?;
        if let Some(stop) = self.common_refusal(&reply) {
            return Err(stop);
        }
        if reply.status != 200 {
            return Err(Stop::Failed(format!("hello answered {}", reply.status)));
        }
        let hello = wire::decode::<Hello>(&reply.body)
            .map_err(|e| Stop::Failed(format!("hello's reply could not be read: {e}")))?
            .value;
        if hello.service != wire::SERVICE {
            return Err(Stop::Status(AgentStatus::OtherServer {
                service: hello.service,
            }));
        }
        // A good read: the next single failure keeps what is shown (SPEC H6).
        self.core.reach.seen(OffsetDateTime::now_utc());
        self.core.emit(AgentChange::Hello(hello.clone()));
        self.note_epoch(&hello.epoch);
        let Some(version) = OUR_PROTOCOL.highest_common(hello.protocol) else {
            self.version = None;
            self.refused_range(hello.protocol);
            if self.told.insert(hello.epoch.clone()) {
                self.telling_hello().await;
            }
            return Err(Stop::Status(AgentStatus::Incompatible {
                agent: hello.protocol,
                collie: OUR_PROTOCOL,
            }));
        };
        self.version = Some(version);
        if !hello.ready {
            return Err(Stop::Status(AgentStatus::Starting));
        }
        self.set_status(AgentStatus::Ready);
        Ok(())
    }

    /// SPEC V5: one log line per refused range.
    fn refused_range(&mut self, range: wire::ProtocolRange) {
        if self.logged_ranges.insert((range.min, range.max)) {
            tracing::warn!(
                agent = %self.core.name,
                "the durable agent speaks wire {range}, this Collie speaks {OUR_PROTOCOL}; no reads until one side updates"
            );
        }
    }

    /// SPEC V4: once per agent epoch, one more hello with our version, so the agent can log it.
    async fn telling_hello(&mut self) {
        let mut request = self.get(wire::paths::hello(), limits::MAX_HELLO_REPLY, false);
        request
            .headers
            .push((VERSION_HEADER, OUR_PROTOCOL.max.to_string()));
        request.headers.push((
            RANGE_HEADER,
            format!("{}-{}", OUR_PROTOCOL.min, OUR_PROTOCOL.max),
        ));
        match self.send(request).await {
            Ok(reply) => {
                tracing::info!(agent = %self.core.name, status = reply.status, "sent the telling hello")
            }
            Err(e) => tracing::info!(agent = %self.core.name, "the telling hello failed: {e}"),
        }
    }

    /// A new epoch means the agent restarted (SPEC H5): keep what is shown, forget the ETag;
    /// cursors keep their old epoch, so the next events read returns each pane's whole view.
    fn note_epoch(&mut self, epoch: &str) {
        if self.epoch.as_deref() != Some(epoch) {
            if let Some(old) = &self.epoch {
                tracing::info!(agent = %self.core.name, "new epoch {epoch} (was {old}): the agent restarted");
                self.core.emit(AgentChange::NewEpoch {
                    epoch: epoch.to_string(),
                });
            }
            self.epoch = Some(epoch.to_string());
            self.etag = None;
            // Every pane is read again in the new epoch (its whole view, SPEC H5), whatever
            // the next snapshot says of it.
            self.entries.clear();
            self.due.extend(self.panes.iter().cloned());
            self.publish_info();
        }
    }

    /// SPEC H4, T5: the snapshot with `If-None-Match`; 304 keeps what we have.
    async fn snapshot(&mut self) -> Result<(), Stop> {
        let mut request = self.get(wire::paths::snapshot(), limits::MAX_SNAPSHOT_REPLY, true);
        if let Some(tag) = &self.etag {
            request.headers.push(("if-none-match", tag.clone()));
        }
        let reply = self.send(request).await.map_err(Self::transport_stop)?;
        if let Some(stop) = self.common_refusal(&reply) {
            return Err(stop);
        }
        match reply.status {
            304 => Ok(()),
            200 => {
                let decoded = wire::decode::<Snapshot>(&reply.body)
                    .map_err(|e| Stop::Failed(format!("the snapshot could not be read: {e}")))?;
                if !decoded.report.is_empty() {
                    tracing::info!(agent = %self.core.name, changes = decoded.report.changes.len(), "the snapshot was cut or cleaned");
                }
                let snapshot = decoded.value;
                if self.epoch.as_deref() != Some(snapshot.epoch.as_str()) {
                    // A restart between hello and snapshot: take it, and hello again next time.
                    self.note_epoch(&snapshot.epoch);
                    self.version = None;
                }
                self.etag = reply.etag.clone();
                self.take_entries(&snapshot);
                self.core.emit(AgentChange::Snapshot {
                    snapshot: Arc::new(snapshot),
                    report: decoded.report,
                });
                Ok(())
            }
            status => Err(Stop::Failed(format!("the snapshot answered {status}"))),
        }
    }

    /// Notes the panes of a new snapshot: a pane whose entry is new or changed is due.
    fn take_entries(&mut self, snapshot: &Snapshot) {
        self.panes = snapshot.panes().map(|(_, _, p)| p.id.clone()).collect();
        let mut entries = HashMap::with_capacity(self.panes.len());
        for (_, _, pane) in snapshot.panes() {
            if self.entries.get(&pane.id) != Some(pane) {
                self.due.insert(pane.id.clone());
            }
            entries.insert(pane.id.clone(), pane.clone());
        }
        self.entries = entries;
        let alive: HashSet<&String> = self.panes.iter().collect();
        self.cursors.retain(|pane, _| alive.contains(pane));
        self.due.retain(|pane| alive.contains(pane));
        self.read_at.retain(|pane, _| alive.contains(pane));
    }

    /// Whether this poll reads the pane's events (SPEC S7, T8): on screen, changed or new, in
    /// need of its view in this epoch, or not read for a background interval. A busy pane off
    /// screen is not read more often: what it brings is chat nobody sees yet.
    fn needs_read(&self, pane: &str, on_screen: &OnScreen, now: Instant) -> bool {
        let in_epoch = self
            .cursors
            .get(pane)
            .is_some_and(|c| Some(c.epoch.as_str()) == self.epoch.as_deref());
        let background = self.endpoint.cadence().background;
        !in_epoch
            || on_screen.shows(pane)
            || self.due.contains(pane)
            || !self.entries.contains_key(pane)
            || self
                .read_at
                .get(pane)
                .is_none_or(|at| now.duration_since(*at) >= background)
    }

    async fn all_events(&mut self) -> Result<(), Stop> {
        let on_screen = self.on_screen.borrow().clone();
        let now = Instant::now();
        for pane in self.panes.clone() {
            if !self.needs_read(&pane, &on_screen, now) {
                continue;
            }
            if self.events(&pane).await? {
                self.due.remove(&pane);
                self.read_at.insert(pane, now);
            }
        }
        Ok(())
    }

    /// SPEC H5, L: events after the pane's cursor, or its whole current view. True when the
    /// pane was read through (no `more` left), so it is not due any more.
    async fn events(&mut self, pane: &str) -> Result<bool, Stop> {
        for _ in 0..MAX_EVENT_READS_PER_POLL {
            let cursor = self.cursors.get(pane).cloned();
            let path = wire::paths::events(
                pane,
                cursor.as_ref().map_or(0, |c| c.after),
                cursor.as_ref().map(|c| c.epoch.as_str()),
            );
            let request = self.get(path, limits::MAX_EVENTS_REPLY, true);
            let reply = self.send(request).await.map_err(Self::transport_stop)?;
            if let Some(stop) = self.common_refusal(&reply) {
                return Err(stop);
            }
            match reply.status {
                200 => {}
                // The pane closed between snapshot and events: the next snapshot tells.
                404 => return Ok(true),
                status => return Err(Stop::Failed(format!("events of {pane} answered {status}"))),
            }
            let decoded = wire::decode::<EventsReply>(&reply.body)
                .map_err(|e| Stop::Failed(format!("events of {pane} could not be read: {e}")))?;
            let mut events = decoded.value;
            // An agent may deliver at least once: an event at or below the cursor, or one
            // already in this reply, was applied before and would show twice.
            let mut last = cursor
                .as_ref()
                .filter(|c| c.epoch == events.epoch)
                .map_or(0, |c| c.after);
            let before = events.events.len();
            events.events.retain(|event| {
                let fresh = event.seq > last;
                last = last.max(event.seq);
                fresh
            });
            if events.events.len() < before {
                tracing::debug!(agent = %self.core.name, %pane, repeated = before - events.events.len(), "dropped events already applied");
            }
            self.cursors.insert(
                pane.to_string(),
                Cursor {
                    epoch: events.epoch.clone(),
                    after: events.cursor,
                },
            );
            let more = events.more;
            if let Some(view) = events.view {
                self.core.emit(AgentChange::PaneView {
                    pane: pane.to_string(),
                    view,
                });
            } else if !events.events.is_empty() {
                self.core.emit(AgentChange::PaneEvents {
                    pane: pane.to_string(),
                    events: events.events,
                });
            }
            if !more {
                return Ok(true);
            }
        }
        // Events still wait past the cursor: the pane stays due for the next poll.
        Ok(false)
    }
}

fn error_code(reply: &Reply) -> Option<ErrorCode> {
    wire::decode::<ErrorBody>(&reply.body)
        .ok()
        .map(|d| d.value.code)
}

#[cfg(test)]
mod tests {
    use crate::engine::FromEngine;
    use std::sync::Arc;
    use std::time::Duration;

    use tokio::sync::{Notify, mpsc, watch};
    use tokio::task::JoinHandle;

    use super::*;

    /// A session of an agent whose socket is not there, run until its first poll is told.
    struct Running {
        task: JoinHandle<()>,
        updates: mpsc::UnboundedReceiver<FromEngine>,
        stop: watch::Sender<bool>,
        _watching: watch::Sender<bool>,
        _info: watch::Receiver<SessionInfo>,
        _dir: tempfile::TempDir,
    }

    async fn run_until_first_poll() -> Running {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let endpoint = Endpoint::socket(dir.path().join("absent.sock"));
        let (updates_tx, mut updates) = mpsc::unbounded_channel();
        // Not watching: the session then waits the longest between polls.
        let (watching, watching_rx) = watch::channel(false);
        let (stop, stop_rx) = watch::channel(false);
        let (info, info_rx) = watch::channel(SessionInfo::default());
        let core = SessionCore::new(
            "absent".into(),
            "agent",
            updates_tx.clone(),
            watching_rx,
            Arc::new(Notify::new()),
            stop_rx,
        );
        let session = Session::new(
            core,
            endpoint,
            info,
            Observer::new(crate::engine::record::Recorder::off(), updates_tx),
            watch::channel(OnScreen::Every).1,
            PollGrid::starting(tokio::time::Instant::now()),
        );
        let task = tokio::spawn(session.run());
        let first_poll = async {
            while let Some(update) = updates.recv().await {
                if let FromEngine::Agent {
                    change: AgentChange::Status(status),
                    ..
                } = update
                    && status != AgentStatus::Connecting
                {
                    return;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(5), first_poll)
            .await
            .expect("the first poll is told");
        Running {
            task,
            updates,
            stop,
            _watching: watching,
            _info: info_rx,
            _dir: dir,
        }
    }

    async fn ends_soon(task: JoinHandle<()>) -> bool {
        matches!(
            tokio::time::timeout(Duration::from_secs(2), task).await,
            Ok(Ok(()))
        )
    }

    #[tokio::test]
    async fn the_session_ends_when_the_app_is_gone() {
        let running = run_until_first_poll().await;
        assert!(
            !running.task.is_finished(),
            "the session waits for its next poll"
        );
        drop(running.updates);
        assert!(ends_soon(running.task).await);
    }

    fn panes(ids: &[&str]) -> OnScreen {
        OnScreen::Panes(ids.iter().map(|id| id.to_string()).collect())
    }

    #[test]
    fn s7_a_pane_that_comes_on_screen_is_news_one_that_leaves_is_not() {
        assert!(panes(&["p-1"]).adds_to(&panes(&[])));
        assert!(panes(&["p-2"]).adds_to(&panes(&["p-1"])));
        assert!(!panes(&[]).adds_to(&panes(&["p-1"])));
        assert!(!panes(&["p-1"]).adds_to(&panes(&["p-1"])));
        // Every pane was on screen already: narrowing adds nothing.
        assert!(!panes(&["p-1"]).adds_to(&OnScreen::Every));
        assert!(OnScreen::Every.adds_to(&panes(&["p-1"])));
        assert!(OnScreen::Every.shows("any"));
        assert!(!panes(&["p-1"]).shows("p-2"));
    }

    #[tokio::test]
    async fn the_session_ends_on_the_engines_stop_request() {
        let running = run_until_first_poll().await;
        running.stop.send_replace(true);
        assert!(ends_soon(running.task).await);
        drop(running.updates);
    }
}
