//! One bridge as an agent of the engine (SPEC D1–D6): reads `/health`, `/capabilities`,
//! `/workspaces`, `/tasks/list` and `/sessions` at the phone's cadence, lays them out as the
//! same [`Snapshot`] a Collie agent sends, runs a [`Follower`] per pane for its events, and
//! sends the same [`FromEngine::Agent`](crate::engine::FromEngine::Agent) changes, so the screens show a bridge without knowing.
//!
//! Layout: one phone workspace per bridge workspace; in it a tab "tasks" (one pane per open
//! task, pane id = task id) and a tab "sessions" (one pane per session no task follows, pane id
//! `session:<id>`, adoptable with `tasks/create` + `sessionId`).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use time::OffsetDateTime;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use super::backoff::Backoff;
use super::follower::{Follower, FollowerMsg, Source};
use super::http::{BridgeClient, CallError, MAX_REPLY};
use super::pane::{TaskPane, clean_events, session_pane_id};
use super::{DshChange, TaskStopped};
use crate::dsh_wire::{
    self as wire, Capabilities, ErrorCode, Health, SessionList, TaskList, WorkspaceList,
};
use crate::engine::session::OnScreen;
use crate::engine::session_core::{SessionCore, Settled, Stop};
use crate::engine::{AgentChange, AgentStatus};
use crate::wire::{EventType, Item, Pane, PaneView, Snapshot, Tab, Tone, Workspace};

/// How often the sessions of each workspace are listed again (they change only when someone
/// opens a session on the desktop).
const SESSIONS_EVERY: Duration = Duration::from_secs(30);
/// After an event that may change a task's status, the task list is read again this soon.
const STATUS_SOON: Duration = Duration::from_millis(300);
/// The pass's cadence while a person looks, and the least time between two passes (SPEC T8,
/// docs/DSH.md).
const WATCHED_EVERY: Duration = Duration::from_secs(2);
/// Items of a pane's first view (the phone keeps 2000).
const VIEW_ITEMS: usize = 2000;

/// What intents and the session share about one bridge.
#[derive(Debug, Default)]
pub(crate) struct BridgeShared {
    /// Tasks no longer addressed (session/workspace-mismatch, SPEC D2), with the reason.
    pub(crate) stopped: Mutex<HashMap<String, String>>,
    /// The last `/capabilities` read: intents check presets and models against it.
    capabilities: Mutex<Option<Arc<Capabilities>>>,
}

impl BridgeShared {
    pub(crate) fn set_capabilities(&self, capabilities: Arc<Capabilities>) {
        if let Ok(mut slot) = self.capabilities.lock() {
            *slot = Some(capabilities);
        }
    }

    pub(crate) fn capabilities(&self) -> Option<Arc<Capabilities>> {
        self.capabilities.lock().ok().and_then(|c| c.clone())
    }

    /// Stops addressing a task; the session shows why in its pane at its next pass.
    pub(crate) fn stop(&self, task_id: &str, why: &str) {
        if let Ok(mut stopped) = self.stopped.lock() {
            stopped.insert(task_id.to_string(), why.to_string());
        }
    }

    pub(crate) fn why_stopped(&self, task_id: &str) -> Option<String> {
        self.stopped
            .lock()
            .ok()
            .and_then(|s| s.get(task_id).cloned())
    }
}

pub(crate) struct BridgeSession {
    core: SessionCore,
    client: BridgeClient,
    shared: Arc<BridgeShared>,
    /// 401/403 auth/*: no call until the person asks (SPEC D2: never retried).
    token_refused: bool,
    backoff: Backoff,
    backing_off: bool,
    pid: Option<u64>,
    health: Option<Health>,
    capabilities: Option<Arc<Capabilities>>,
    workspaces: WorkspaceList,
    tasks: TaskList,
    sessions: BTreeMap<String, SessionList>,
    sessions_read: Option<Instant>,
    panes: HashMap<String, TaskPane>,
    followers: HashMap<String, JoinHandle<()>>,
    to_session: mpsc::Sender<FollowerMsg>,
    from_followers: mpsc::Receiver<FollowerMsg>,
    /// The panes on screen, for the followers of sessions no task follows.
    on_screen: watch::Receiver<OnScreen>,
    /// When the last pass began: news brings the next one forward, never nearer than the
    /// cadence of a person looking (docs/DSH.md, "How often the phone asks").
    last_pass: Option<tokio::time::Instant>,
    seen: wire::SeenEvents,
    /// The highest `sessionSeq` seen of each session.
    highest: HashMap<String, i64>,
    shown_stopped: HashMap<String, String>,
    last_layout: Option<Snapshot>,
    rev: u64,
    /// The last unread parts told to the screens, and when capabilities were last tried.
    unread_told: BTreeMap<String, Vec<wire::Unread>>,
    capabilities_failed: Option<(Instant, String)>,
}

impl BridgeSession {
    pub(in crate::engine) fn new(
        core: SessionCore,
        client: BridgeClient,
        shared: Arc<BridgeShared>,
        on_screen: watch::Receiver<OnScreen>,
    ) -> Self {
        let (to_session, from_followers) = mpsc::channel(256);
        Self {
            core,
            client,
            shared,
            token_refused: false,
            backoff: Backoff::for_reads(),
            backing_off: false,
            pid: None,
            health: None,
            capabilities: None,
            workspaces: WorkspaceList {
                items: Vec::new(),
                token_scope: wire::TokenScope::default(),
            },
            tasks: TaskList::default(),
            sessions: BTreeMap::new(),
            sessions_read: None,
            panes: HashMap::new(),
            followers: HashMap::new(),
            to_session,
            from_followers,
            on_screen,
            last_pass: None,
            seen: wire::SeenEvents::default(),
            highest: HashMap::new(),
            shown_stopped: HashMap::new(),
            last_layout: None,
            rev: 0,
            unread_told: BTreeMap::new(),
            capabilities_failed: None,
        }
    }

    /// Passes until the app is gone or the engine stops; its followers end with it.
    pub(crate) async fn run(mut self) {
        self.core
            .emit(AgentChange::Status(self.core.status.clone()));
        while !self.core.is_ended() {
            if !self.token_refused {
                self.last_pass = Some(tokio::time::Instant::now());
                self.pass().await;
            }
            let wait = self.wait();
            let mut deadline = tokio::time::Instant::now() + wait;
            loop {
                tokio::select! {
                    () = tokio::time::sleep_until(deadline), if !self.token_refused => break,
                    () = self.core.ended() => break,
                    () = self.core.poke.notified() => {
                        // The person asked: a refused token is tried once more.
                        self.token_refused = false;
                        break;
                    }
                    message = self.from_followers.recv() => {
                        let Some(message) = message else { break };
                        if self.on_follower(message) {
                            deadline = deadline.min(self.soon());
                        }
                    }
                }
            }
        }
        self.followers.values().for_each(JoinHandle::abort);
    }

    /// When a pass brought forward by a follower's news runs: shortly, but never nearer to the
    /// pass before than the cadence of a person looking (docs/DSH.md: every 2 s at most). A
    /// live desktop sends news all the time, and each one bringing a pass 300 ms nearer read
    /// the lists more often than the rule.
    fn soon(&self) -> tokio::time::Instant {
        let soon = tokio::time::Instant::now() + STATUS_SOON;
        match self.last_pass {
            Some(last) => soon.max(last + WATCHED_EVERY),
            None => soon,
        }
    }

    /// The cadence of Collie's TLS agents (SPEC T8), a back-off while the bridge is not ready.
    fn wait(&mut self) -> Duration {
        if self.backing_off {
            return self.backoff.next_delay();
        }
        let watching = self.core.watching();
        let down = matches!(self.core.status, AgentStatus::Unreachable { .. });
        match (down, watching) {
            (true, _) => Duration::from_secs(10),
            (false, true) => WATCHED_EVERY,
            (false, false) => Duration::from_secs(10),
        }
    }

    /// Two failures in a row are unreachable, as SPEC H6 for Collie agents.
    async fn pass(&mut self) {
        let result = self.pass_inner().await;
        match self.core.settle(result, "bridge pass") {
            Settled::Synced => {
                self.backing_off = false;
                self.backoff.reset();
                self.core.set_status(AgentStatus::Ready);
                self.core
                    .emit(AgentChange::Synced(OffsetDateTime::now_utc()));
                self.tell_unread();
            }
            Settled::Status(status) | Settled::Unreachable(status) => self.core.set_status(status),
            Settled::Stale => {}
        }
    }

    /// Maps a failed read to what the seed's table says to do about it (SPEC D2).
    fn stop_of(&mut self, what: &str, error: CallError) -> Stop {
        if let Some(status) = error.token_refused() {
            // Never retried on its own: the next call waits for the person (ToEngine::PollNow).
            self.token_refused = true;
            return Stop::Status(AgentStatus::TokenRefused {
                status,
                bridge: true,
            });
        }
        // The bridge answered, so it is not unreachable: nothing is at this URL's path.
        if what == "health" && error.status() == Some(404) {
            return Stop::Status(AgentStatus::WrongPath {
                url: self.client.url_of(wire::routes::HEALTH),
                status: 404,
            });
        }
        match error.code() {
            Some(ErrorCode::NotReady | ErrorCode::WriterHeld | ErrorCode::AgentBusy) => {
                self.backing_off = true;
                Stop::Status(AgentStatus::Unreachable {
                    reason: format!(
                        "{error}. The bridge is up but not ready; check that its plugin is loaded on the desktop. Trying again after a pause"
                    ),
                    last_seen: self.core.reach.last_seen(),
                })
            }
            _ => Stop::Failed(match read_words(what) {
                Some(reading) => format!("{reading}: {error}"),
                None => error.to_string(),
            }),
        }
    }

    async fn pass_inner(&mut self) -> Result<(), Stop> {
        let health: Health = match self.client.get(wire::routes::HEALTH, MAX_REPLY).await {
            Ok(health) => health,
            Err(error) => return Err(self.stop_of("health", error)),
        };
        self.note_health(health);
        let retry_capabilities = self
            .capabilities_failed
            .as_ref()
            .is_none_or(|(at, _)| at.elapsed() >= SESSIONS_EVERY);
        if self.capabilities.is_none() && retry_capabilities {
            match self
                .client
                .get::<Capabilities>(wire::routes::CAPABILITIES, MAX_REPLY)
                .await
            {
                Ok(capabilities) => {
                    self.capabilities_failed = None;
                    let capabilities = Arc::new(capabilities);
                    self.capabilities = Some(capabilities.clone());
                    self.shared.set_capabilities(capabilities.clone());
                    self.core
                        .emit(AgentChange::Dsh(DshChange::Capabilities(capabilities)));
                }
                // Capabilities that cannot be read are not a bridge that cannot be reached
                // (docs/DSH.md, "How the phone reads a bridge"): the rest works without them;
                // presets and models are not offered until they are read, tried again at the
                // sessions' cadence.
                Err(error @ (CallError::Unreadable { .. } | CallError::Refused { .. }))
                    if error.token_refused().is_none()
                        && !error.code().is_some_and(|c| c.behaviour().may_retry()) =>
                {
                    tracing::warn!(agent = %self.core.name, "the capabilities could not be read: {error}");
                    self.capabilities_failed = Some((Instant::now(), error.to_string()));
                }
                Err(error) => return Err(self.stop_of("capabilities", error)),
            }
        }
        let workspaces: WorkspaceList =
            match self.client.get(wire::routes::WORKSPACES, MAX_REPLY).await {
                Ok(list) => list,
                Err(error) => return Err(self.stop_of("workspaces", error)),
            };
        if workspaces != self.workspaces {
            self.core
                .emit(AgentChange::Dsh(DshChange::Workspaces(Arc::new(
                    workspaces.clone(),
                ))));
            self.workspaces = workspaces;
            self.sessions_read = None;
        }
        let tasks: TaskList = match self.client.get(wire::routes::TASKS_LIST, MAX_REPLY).await {
            Ok(list) => list,
            Err(error) => return Err(self.stop_of("tasks", error)),
        };
        if tasks != self.tasks {
            self.core.emit(AgentChange::Dsh(DshChange::Tasks(Arc::new(
                tasks.items.clone(),
            ))));
            self.tasks = tasks;
        }
        if self
            .sessions_read
            .is_none_or(|at| at.elapsed() >= SESSIONS_EVERY)
        {
            self.read_sessions().await?;
        }
        self.lay_out();
        Ok(())
    }

    /// Tells the screens what could not be read of the replies, when that changed.
    fn tell_unread(&mut self) {
        let mut now = self.client.unread().now();
        if let Some((_, why)) = &self.capabilities_failed {
            now.insert(
                wire::routes::CAPABILITIES.to_string(),
                vec![wire::Unread {
                    path: super::UNREADABLE.to_string(),
                    why: why.clone(),
                    raw: String::new(),
                }],
            );
        }
        if now != self.unread_told {
            self.unread_told = now.clone();
            self.core
                .emit(AgentChange::Dsh(DshChange::Unread(Arc::new(now))));
        }
    }

    /// seed §4.8: a new `pid` means the desktop reloaded; the tasks go on by their ids.
    fn note_health(&mut self, health: Health) {
        if let (Some(old), Some(new)) = (self.pid, health.pid)
            && old != new
        {
            tracing::info!(agent = %self.core.name, old, new, "the desktop reloaded");
            self.core.emit(AgentChange::NewEpoch {
                epoch: format!("pid-{new}"),
            });
            self.core.emit(AgentChange::Dsh(DshChange::DesktopReloaded {
                old_pid: old,
                new_pid: new,
            }));
            let text = format!(
                "The desktop reloaded (process {old} is now {new}); this task goes on by its id."
            );
            for pane in self.panes.values() {
                if pane.task_id.is_empty() {
                    continue;
                }
                let events = clean_events(vec![pane.notice(
                    &format!("reload-{new}"),
                    &text,
                    Tone::Alert,
                )]);
                self.core.emit(AgentChange::PaneEvents {
                    pane: pane.pane_id.clone(),
                    events,
                });
            }
            // What the new desktop offers may differ.
            self.capabilities = None;
        }
        if health.pid.is_some() {
            self.pid = health.pid;
        }
        if self.health.as_ref() != Some(&health) {
            self.core.emit(AgentChange::Dsh(DshChange::Health(Arc::new(
                health.clone(),
            ))));
            self.health = Some(health);
        }
    }

    async fn read_sessions(&mut self) -> Result<(), Stop> {
        let listable = self
            .capabilities
            .as_ref()
            .is_none_or(|c| c.capabilities.sessions.list);
        let mut sessions = BTreeMap::new();
        if listable {
            for workspace in &self.workspaces.items {
                let route = wire::routes::with_query(
                    wire::routes::SESSIONS,
                    &[("workspaceId", workspace.workspace_id.as_str())],
                );
                match self.client.get::<SessionList>(&route, MAX_REPLY).await {
                    Ok(list) => {
                        sessions.insert(workspace.workspace_id.clone(), list);
                    }
                    // One workspace's sessions not readable (missing dir, out of scope) is not
                    // the bridge failing: its tab stays empty and the log says why.
                    Err(CallError::Refused { status, error })
                        if error.code.behaviour()
                            != wire::ClientBehaviour::FixCredentialsAndStop =>
                    {
                        tracing::info!(agent = %self.core.name, workspace = %workspace.workspace_id, "sessions not listed: {status} {error}");
                    }
                    Err(error) => return Err(self.stop_of("sessions", error)),
                }
            }
        }
        self.sessions = sessions;
        self.sessions_read = Some(Instant::now());
        Ok(())
    }

    /// Builds the layout, starts and stops followers, and tells the screens what changed.
    fn lay_out(&mut self) {
        let mut workspaces = Vec::new();
        let mut wanted: HashMap<String, Source> = HashMap::new();
        let mut pane_events: Vec<(String, Vec<crate::wire::Event>)> = Vec::new();
        self.show_stopped(&mut pane_events);
        for bridge_workspace in &self.workspaces.items {
            let workspace_id = &bridge_workspace.workspace_id;
            let mut task_panes = Vec::new();
            for task in self
                .tasks
                .items
                .iter()
                .filter(|t| &t.workspace_id == workspace_id)
                // The real bridge lists closed tasks too; nothing of them is addressable any
                // more (every route answers task/not-found), so they are no pane and no
                // follower: their session shows among the adoptable ones.
                .filter(|t| t.status != wire::TaskStatus::Closed)
            {
                if crate::wire::check_id(&task.task_id).is_err() {
                    tracing::warn!(agent = %self.core.name, "a task id the phone cannot use as a pane id was skipped");
                    continue;
                }
                let pane = self
                    .panes
                    .entry(task.task_id.clone())
                    .or_insert_with(|| TaskPane::new(task));
                let events = pane.update_task(task);
                if !events.is_empty() {
                    pane_events.push((pane.pane_id.clone(), clean_events(events)));
                }
                task_panes.push(Pane {
                    id: task.task_id.clone(),
                    title: task
                        .title
                        .clone()
                        .or_else(|| pane.title.clone())
                        .unwrap_or_else(|| task.task_id.clone()),
                    state: pane.state(),
                    turn: None,
                    conversation_id: None,
                    belt: Vec::new(),
                    asks: pane.asks(),
                    settings: Vec::new(),
                    commands: Vec::new(),
                    usage: None,
                });
                if self.shared.why_stopped(&task.task_id).is_none() {
                    wanted.insert(
                        task.task_id.clone(),
                        Source::Task {
                            task_id: task.task_id.clone(),
                        },
                    );
                }
            }
            let followed: std::collections::HashSet<&str> = self
                .tasks
                .items
                .iter()
                .filter(|t| t.status != wire::TaskStatus::Closed)
                .map(|t| t.session_id.as_str())
                .collect();
            let mut session_panes = Vec::new();
            if let Some(list) = self.sessions.get(workspace_id) {
                for session in list
                    .items
                    .iter()
                    .filter(|s| !followed.contains(s.session_id.as_str()))
                {
                    let pane_id = session_pane_id(&session.session_id);
                    if crate::wire::check_id(&pane_id).is_err() {
                        continue;
                    }
                    let pane = self
                        .panes
                        .entry(pane_id.clone())
                        .or_insert_with(|| TaskPane::for_session(session));
                    session_panes.push(Pane {
                        id: pane_id.clone(),
                        title: session
                            .title
                            .clone()
                            .or_else(|| pane.title.clone())
                            .or_else(|| {
                                // A session a closed task named keeps that name: the host's
                                // rename leaves no title event behind.
                                self.tasks
                                    .items
                                    .iter()
                                    .filter(|t| t.session_id == session.session_id)
                                    .find_map(|t| t.title.clone())
                            })
                            .unwrap_or_else(|| session.session_id.clone()),
                        state: pane.state(),
                        turn: None,
                        conversation_id: None,
                        belt: Vec::new(),
                        asks: Vec::new(),
                        settings: Vec::new(),
                        commands: Vec::new(),
                        usage: None,
                    });
                    wanted.insert(
                        pane_id,
                        Source::Session {
                            workspace_id: workspace_id.clone(),
                            session_id: session.session_id.clone(),
                        },
                    );
                }
            }
            if crate::wire::check_id(workspace_id).is_err() {
                continue;
            }
            workspaces.push(Workspace {
                id: workspace_id.clone(),
                title: if bridge_workspace.title.is_empty() {
                    bridge_workspace.path.clone()
                } else {
                    bridge_workspace.title.clone()
                },
                tabs: vec![
                    Tab {
                        id: format!("tasks:{workspace_id}"),
                        title: "tasks".into(),
                        panes: task_panes,
                    },
                    Tab {
                        id: format!("sessions:{workspace_id}"),
                        title: "sessions".into(),
                        panes: session_panes,
                    },
                ],
            });
        }
        self.follow(&wanted);
        let mut snapshot = Snapshot {
            epoch: self
                .pid
                .map_or_else(|| "dsh".into(), |pid| format!("pid-{pid}")),
            rev: self.rev,
            workspaces,
            starters: Vec::new(),
        };
        let mut report = crate::wire::Report::default();
        snapshot.sanitize(&mut report);
        let changed = self.last_layout.as_ref().is_none_or(|last| {
            last.workspaces != snapshot.workspaces || last.epoch != snapshot.epoch
        });
        if changed {
            self.rev += 1;
            snapshot.rev = self.rev;
            self.last_layout = Some(snapshot.clone());
            self.core.emit(AgentChange::Snapshot {
                snapshot: Arc::new(snapshot),
                report,
            });
        }
        for (pane, events) in pane_events {
            self.core.emit(AgentChange::PaneEvents { pane, events });
        }
    }

    /// Starts a follower for each wanted pane that has none; ends those no longer wanted.
    fn follow(&mut self, wanted: &HashMap<String, Source>) {
        // A finished follower stays: it ended on a refusal the seed says not to retry, or it
        // read a session's whole history; starting it again would do the same.
        self.followers.retain(|pane, handle| {
            let keep = wanted.contains_key(pane);
            if !keep {
                handle.abort();
            }
            keep
        });
        for (pane, source) in wanted {
            if self.followers.contains_key(pane) {
                continue;
            }
            let follower = Follower {
                client: self.client.clone(),
                pane: pane.clone(),
                source: source.clone(),
                to_session: self.to_session.clone(),
                watching: self.core.watching_receiver(),
                on_screen: self.on_screen.clone(),
            };
            self.followers
                .insert(pane.clone(), tokio::spawn(follower.run()));
        }
        let alive: std::collections::HashSet<&String> = wanted.keys().collect();
        let gone: Vec<String> = self
            .panes
            .keys()
            .filter(|p| !alive.contains(p) && self.shared.why_stopped(p).is_none())
            .cloned()
            .collect();
        for pane in gone {
            if let Some(old) = self.panes.remove(&pane) {
                self.seen.forget_through(&old.session_id, i64::MAX);
                self.highest.remove(&old.session_id);
            }
        }
    }

    /// Tasks stopped since the last pass (session/workspace-mismatch): say so in their pane once.
    fn show_stopped(&mut self, out: &mut Vec<(String, Vec<crate::wire::Event>)>) {
        let stopped = self
            .shared
            .stopped
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default();
        for (task_id, why) in stopped {
            if self.shown_stopped.get(&task_id) == Some(&why) {
                continue;
            }
            if let Some(handle) = self.followers.remove(&task_id) {
                handle.abort();
            }
            if let Some(pane) = self.panes.get(&task_id) {
                let text = format!("The phone stopped addressing this task: {why}");
                out.push((
                    pane.pane_id.clone(),
                    clean_events(vec![pane.notice(
                        &format!("stopped-{}", self.rev),
                        &text,
                        Tone::Danger,
                    )]),
                ));
            }
            self.core
                .emit(AgentChange::Dsh(DshChange::TaskStopped(TaskStopped {
                    task_id: task_id.clone(),
                    why: why.clone(),
                })));
            self.shown_stopped.insert(task_id, why);
        }
    }

    /// Takes one follower message; true when a task's status may have changed.
    fn on_follower(&mut self, message: FollowerMsg) -> bool {
        match message {
            FollowerMsg::History {
                pane,
                initial,
                events,
                gap,
            } => {
                let Some(mirror) = self.panes.get_mut(&pane) else {
                    return false;
                };
                let session_id = mirror.session_id.clone();
                let title_before = mirror.title.clone();
                let mut out = Vec::new();
                if let Some(earliest) = gap
                    && let Some(event) = mirror.gap(earliest)
                {
                    out.push(event);
                }
                for event in &events {
                    if self.seen.first_time_event(&session_id, event) {
                        out.extend(mirror.take(event));
                    }
                }
                // A new title names the pane: lay out again soon. So does news in a later page.
                let relay = mirror.title != title_before || (!initial && !out.is_empty());
                if initial {
                    mirror.settle_history();
                    let items: Vec<Item> = out
                        .into_iter()
                        .filter(|e| e.kind == EventType::Item)
                        .filter_map(|e| e.item)
                        .collect();
                    let skip = items.len().saturating_sub(VIEW_ITEMS);
                    let view = PaneView {
                        state: mirror.state(),
                        turn: None,
                        items: items.into_iter().skip(skip).collect(),
                        asks: mirror.asks(),
                    };
                    self.core.emit(AgentChange::PaneView { pane, view });
                } else if !out.is_empty() {
                    self.core
                        .emit(AgentChange::PaneEvents { pane, events: out });
                }
                self.note_seen(&session_id, &events);
                relay
            }
            FollowerMsg::Live { pane, events } => {
                let Some(mirror) = self.panes.get_mut(&pane) else {
                    return false;
                };
                let session_id = mirror.session_id.clone();
                let title_before = mirror.title.clone();
                let mut out = Vec::new();
                let mut may_change = false;
                for event in &events {
                    if !self.seen.first_time_event(&session_id, event) {
                        tracing::debug!(pane = %pane, seq = event.session_seq, "dropped a repeated event");
                        continue;
                    }
                    may_change |= matches!(
                        &event.body,
                        wire::EventBody::Execution(x) if x.phase.ends_turn() || x.phase == wire::ExecutionPhase::TurnStart
                    ) || matches!(event.body, wire::EventBody::Permission(_));
                    out.extend(mirror.take(event));
                }
                may_change |= mirror.title != title_before;
                if !out.is_empty() {
                    self.core
                        .emit(AgentChange::PaneEvents { pane, events: out });
                }
                self.note_seen(&session_id, &events);
                may_change
            }
            FollowerMsg::Stopped { pane, code, why } => {
                tracing::warn!(agent = %self.core.name, pane = %pane, "stopped following: {code} {why}");
                if code == ErrorCode::SessionWorkspaceMismatch.as_str() {
                    self.shared.stop(&pane, &format!("{code}: {why}"));
                }
                if let Some(mirror) = self.panes.get(&pane) {
                    // The real bridge reads a session that a closed task once followed through
                    // that task, which is gone: its history cannot be read until it is adopted.
                    let text = if mirror.task_id.is_empty()
                        && code == ErrorCode::TaskNotFound.as_str()
                    {
                        "The bridge cannot show this session's history: a closed task still holds it. Above is what the phone held while the task was open. Adopt the session on the New page to read and write it again.".to_string()
                    } else {
                        format!("The bridge refused to show more of this pane ({code}): {why}")
                    };
                    let events = clean_events(vec![mirror.notice(
                        // An item id takes no `/` (SPEC L1), and codes have one.
                        &format!("refused-{}", code.replace('/', "-")),
                        &text,
                        Tone::Danger,
                    )]);
                    self.core.emit(AgentChange::PaneEvents { pane, events });
                }
                true
            }
        }
    }

    /// Notes the highest seq of a session and keeps the dedupe set small: seqs far below it are
    /// never asked for again (followers resume past their cursor).
    fn note_seen(&mut self, session_id: &str, events: &[wire::Event]) {
        const KEPT: i64 = 8192;
        let Some(top) = events.iter().map(|e| e.session_seq).max() else {
            return;
        };
        let highest = self.highest.entry(session_id.to_string()).or_insert(top);
        *highest = (*highest).max(top);
        let floor = *highest - KEPT;
        self.seen.forget_through(session_id, floor);
    }
}

/// What the phone was reading when a bridge call failed, in words for the sentence (the log
/// names the route): none for `health`, the first call, whose failure is the bridge's own.
fn read_words(route: &str) -> Option<&'static str> {
    match route {
        "capabilities" => Some("reading what the bridge offers"),
        "workspaces" => Some("listing the workspaces"),
        "tasks" => Some("listing the tasks"),
        "sessions" => Some("listing the sessions"),
        _ => None,
    }
}
