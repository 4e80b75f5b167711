//! The demo desktop host and the bridge's memory of it: workspaces, sessions with their durable
//! logs, tasks that follow sessions with a bounded event tail, and the request records that make
//! create and append idempotent (seed §2, §4; SPEC D3–D5). Pure state, no I/O but the clock and
//! the directory checks of /workspaces/create; the HTTP side (`http.rs`) locks it briefly.

mod script;

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::sync::broadcast;

use super::clock::Clock;
use super::demo::{self, Topic};
use super::plan::{Step, TurnShape, plan_turn};
use super::tail::{durable_page, iso, log_summary, tail_of, task_page};
use super::tokens::Caller;
use crate::dsh_wire::{
    AppendMode, AppendRequest, AppendValue, BRIDGE_STATUS, BridgeError, CancelValue, Capabilities,
    CapabilityBits, CloseValue, CreateTaskRequest, CreateTaskValue, ErrorCode, Event, EventBody,
    EventCapabilities, ExecutionEvent, ExecutionPhase, Follower, FollowerStatus, Health, LastTurn,
    LogEvent, MessageEvent, ModelCapabilities, ModelCatalog, ModelConfig, PermissionCapabilities,
    PermissionFacts, PermissionPhase, PresetCapabilities, Role, Round, Session,
    SessionCapabilities, SessionList, Stamp, StatusEvent, TaskGetValue, TaskList, TaskStatus,
    TaskView, TokenScope, TranscriptPage, TranscriptSource, WaitOn, WaitRequest, WaitValue,
    Workspace, WorkspaceCapabilities, WorkspaceCreateRequest, WorkspaceCreateValue, WorkspaceList,
    WorkspaceRef, WorkspaceStatus, limits,
};

pub(crate) use super::tail::SessionTranscript;

/// How the host is set up (`collie-phone dsh-bridge` flags).
#[derive(Debug, Clone)]
pub struct DesktopOptions {
    pub seed: u64,
    pub speed: f64,
    /// Events a task's follower keeps in memory, `eventCacheLimit`.
    pub event_cache: usize,
    /// Events a session's durable log keeps; older ones are gone for good (a gap).
    pub durable_log: usize,
    /// Where the demo's workspace directories are.
    pub root: PathBuf,
    /// The deployment's `workspacePaths` allow-list: workspaces live under these.
    pub workspace_paths: Vec<PathBuf>,
    /// The deployment's `allowWorkspaceCreate`.
    pub allow_workspace_create: bool,
    pub route_prefix: String,
    pub keep_alive_ms: u64,
    pub max_wait_ms: u64,
}

/// What the HTTP side hears from the host: a followed task's event (live, or sent again after
/// a desktop reload: at-least-once, SPEC D4).
#[derive(Debug, Clone)]
pub(crate) enum Signal {
    Event {
        task_id: String,
        event: Box<Event>,
        replay: bool,
    },
}

/// Turns a demo session played before the bridge started, so every session has a history.
const HISTORY_TURNS: u64 = 3;
/// Events sent again to live streams when the desktop reloads.
const RELOAD_REPLAY: usize = 5;
/// Virtual ms between looks for an idle session to wake.
const PULSE_EVERY_MS: i64 = 20_000;
/// Virtual ms before the person answers a permission wait on the desktop.
const DESKTOP_ANSWER_MS: (i64, i64) = (40_000, 90_000);
/// Virtual ms between a new session and its follower being live.
const READY_AFTER_MS: i64 = 500;
/// Cues played in one tick at most.
const MAX_CUES_PER_TICK: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Activity {
    Idle,
    Running,
    Waiting(WaitKind),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WaitKind {
    Input,
    Approval,
}

struct HostWorkspace {
    id: String,
    title: String,
    path: PathBuf,
    created_at: i64,
    updated_at: i64,
}

struct Prompt {
    text: String,
}

struct HostSession {
    id: String,
    workspace_id: String,
    title: String,
    cwd: PathBuf,
    log: VecDeque<Event>,
    next_seq: i64,
    turn: u64,
    activity: Activity,
    plan: VecDeque<Step>,
    queued: VecDeque<Prompt>,
    config: ModelConfig,
    /// Invalidates cues scheduled before the plan changed (cancel, steer).
    cue_token: u64,
    writer_held: bool,
    loses_first_reply: bool,
    lost_once: bool,
    effort_downgraded: bool,
    /// The open task that follows this session.
    task: Option<String>,
    updated_at: i64,
    /// Counts turns to vary their shape.
    turns_planned: u64,
}

struct HostTask {
    id: String,
    workspace_id: String,
    session_id: String,
    preset: Option<String>,
    title: Option<String>,
    objective: Option<String>,
    acceptance: Option<String>,
    external: Option<serde_json::Value>,
    /// What the task's requests asked for (`null` until one names a model), as the real bridge.
    requested: Option<ModelConfig>,
    observed: Option<ModelConfig>,
    last_turn: Option<LastTurn>,
    rounds: Vec<Round>,
    /// The task's status as the real bridge keeps it: set by turn starts and ends, appends and
    /// cancels, never by a permission wait.
    status: TaskStatus,
    /// True until the follower hears its session (a new session's first event).
    starting: bool,
    created_at: i64,
    updated_at: i64,
    cache: VecDeque<Event>,
    /// The highest seq the tail dropped (-1 when none): the real follower's
    /// `truncatedBeforeSeq`.
    truncated_before_seq: i64,
    /// The session's last seq when the task began following: history at or below it is only
    /// read back, never folded into the task's live state (seed GET /transcript).
    front: i64,
    /// The session's last seq before the last round appended through the bridge (-1 before any):
    /// only a turn end or a permission wait after it settles a `tasks/wait` (the real
    /// bridge's `waitFloor`).
    wait_floor: i64,
    closed: bool,
}

enum Record {
    Create {
        task_id: String,
        fingerprint: String,
    },
    Append {
        task_id: String,
        fingerprint: String,
        value: AppendValue,
    },
}

#[derive(Debug)]
enum Cue {
    Step {
        session: String,
        token: u64,
    },
    Answer {
        session: String,
        token: u64,
    },
    Ready {
        session: String,
    },
    Opening {
        session: String,
        permission: PermissionPhase,
    },
    Pulse,
}

pub(crate) struct FakeDesktop {
    options: DesktopOptions,
    clock: Clock,
    rng: ChaCha8Rng,
    pid: u64,
    workspaces: Vec<HostWorkspace>,
    sessions: BTreeMap<String, HostSession>,
    tasks: BTreeMap<String, HostTask>,
    requests: BTreeMap<String, Record>,
    workspace_requests: BTreeMap<(usize, String), (String, WorkspaceCreateValue)>,
    agenda: BTreeMap<(i64, u64), Cue>,
    cues: u64,
    catalog: ModelCatalog,
    signals: broadcast::Sender<Arc<Signal>>,
    made: u64,
}

fn forbidden() -> BridgeError {
    BridgeError::new(
        ErrorCode::WorkspaceForbidden,
        "this token's scope does not cover that workspace; use a token that does, or an in-scope workspace",
    )
}

fn bad(message: impl Into<String>) -> BridgeError {
    BridgeError::new(ErrorCode::BadRequest, message)
}

fn conflict(message: impl Into<String>) -> BridgeError {
    BridgeError::new(ErrorCode::Conflict, message)
}

fn task_not_found() -> BridgeError {
    BridgeError::new(
        ErrorCode::TaskNotFound,
        "no open task has this taskId (unknown or closed); create it again with tasks/create",
    )
}

/// The request without its id, as the idempotency records compare it.
fn fingerprint<T: serde::Serialize>(request: &T) -> String {
    let mut value = serde_json::to_value(request).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.remove("requestId");
    }
    value.to_string()
}

fn check_request_id(id: &str) -> Result<(), BridgeError> {
    if id.trim().is_empty() || id.len() > limits::MAX_REQUEST_ID || id.chars().any(char::is_control)
    {
        return Err(bad(format!(
            "requestId must be 1 to {} bytes without control characters",
            limits::MAX_REQUEST_ID
        )));
    }
    Ok(())
}

fn check_text(field: &str, text: &Option<String>) -> Result<(), BridgeError> {
    match text {
        Some(text) if text.chars().count() > limits::MAX_TASK_TEXT_CHARS => Err(bad(format!(
            "{field} is longer than {} characters",
            limits::MAX_TASK_TEXT_CHARS
        ))),
        _ => Ok(()),
    }
}

impl FakeDesktop {
    pub(crate) fn new(
        options: DesktopOptions,
        signals: broadcast::Sender<Arc<Signal>>,
    ) -> anyhow::Result<Self> {
        let clock = Clock::new(options.speed);
        let now = clock.start_ms();
        let mut desktop = Self {
            rng: ChaCha8Rng::seed_from_u64(options.seed),
            pid: u64::from(std::process::id()),
            workspaces: Vec::new(),
            sessions: BTreeMap::new(),
            tasks: BTreeMap::new(),
            requests: BTreeMap::new(),
            workspace_requests: BTreeMap::new(),
            agenda: BTreeMap::new(),
            cues: 0,
            catalog: demo::catalog(),
            signals,
            made: 0,
            clock,
            options,
        };
        desktop.furnish(now)?;
        Ok(desktop)
    }

    fn emit(&mut self, session_id: &str, event_type: &str, body: EventBody) -> Option<i64> {
        let at = self.clock.now_ms();
        self.emit_at(session_id, event_type, body, at)
    }

    /// Appends an event to a session's durable log and to the tail of the task that follows
    /// it, folds it into the task's live state, and tells the live streams.
    fn emit_at(
        &mut self,
        session_id: &str,
        event_type: &str,
        body: EventBody,
        at: i64,
    ) -> Option<i64> {
        if event_type == BRIDGE_STATUS {
            if let EventBody::Status(status) = body {
                self.emit_status(session_id, status, at);
            }
            return None;
        }
        let body = match body {
            EventBody::Log(mut log) => {
                log.summary = log_summary(&log.data);
                EventBody::Log(log)
            }
            other => other,
        };
        let session = self.sessions.get_mut(session_id)?;
        let seq = session.next_seq;
        session.next_seq += 1;
        session.updated_at = at;
        let event = Event {
            task_id: None,
            session_seq: seq,
            at,
            session_event_type: event_type.to_string(),
            body,
            unread: Vec::new(),
        };
        session.log.push_back(event.clone());
        while session.log.len() > self.options.durable_log {
            session.log.pop_front();
        }
        let Some(task_id) = session.task.clone() else {
            return Some(seq);
        };
        let Some(task) = self.tasks.get_mut(&task_id) else {
            return Some(seq);
        };
        let event = Event {
            task_id: Some(task_id.clone()),
            ..event
        };
        fold(task, &event);
        push_tail(task, event.clone(), self.options.event_cache);
        // No receiver is fine: nobody is watching.
        let _ = self.signals.send(Arc::new(Signal::Event {
            task_id,
            event: Box::new(event),
            replay: false,
        }));
        Some(seq)
    }

    /// One of the bridge's own status lines (the real `emit`): `taskId: null`,
    /// `sessionEventType: "bridge/status"`, the session's last seq again; kept in the followed
    /// task's tail and sent to its streams, never written to the session's log.
    fn emit_status(&mut self, session_id: &str, status: StatusEvent, at: i64) {
        let Some(session) = self.sessions.get(session_id) else {
            return;
        };
        let seq = session.next_seq - 1;
        let Some(task_id) = session.task.clone() else {
            return;
        };
        let Some(task) = self.tasks.get_mut(&task_id) else {
            return;
        };
        let event = Event {
            task_id: None,
            session_seq: seq,
            at,
            session_event_type: BRIDGE_STATUS.to_string(),
            body: EventBody::Status(status),
            unread: Vec::new(),
        };
        push_tail(task, event.clone(), self.options.event_cache);
        let _ = self.signals.send(Arc::new(Signal::Event {
            task_id,
            event: Box::new(event),
            replay: false,
        }));
    }

    /// Starts (or restarts) a task following a session: its tail is filled from the session's
    /// durable log, as the host's first snapshot frame does (seed GET /transcript).
    fn follow(
        &mut self,
        task_id: &str,
        session_id: &str,
        request: Option<&CreateTaskRequest>,
        requested: Option<ModelConfig>,
        at: i64,
    ) {
        let Some(session) = self.sessions.get_mut(session_id) else {
            return;
        };
        session.task = Some(task_id.to_string());
        let front = session.next_seq - 1;
        let (cache, truncated_before_seq) =
            tail_of(&session.log, self.options.event_cache, task_id);
        let fresh = session.log.is_empty();
        let workspace_id = session.workspace_id.clone();
        // A closed task adopted again starts afresh (no rounds, no title), as the real bridge.
        self.tasks.remove(task_id);
        let created_at = at;
        let field = |pick: fn(&CreateTaskRequest) -> Option<String>| request.and_then(pick);
        self.tasks.insert(
            task_id.to_string(),
            HostTask {
                id: task_id.to_string(),
                workspace_id,
                session_id: session_id.to_string(),
                preset: field(|r| r.agent_preset.clone()).or(Some("standard".into())),
                title: field(|r| r.title.clone()),
                objective: field(|r| r.objective.clone()),
                acceptance: field(|r| r.acceptance_criteria.clone()),
                external: request.and_then(|r| r.external.clone()),
                requested,
                observed: None,
                last_turn: None,
                rounds: Vec::new(),
                status: TaskStatus::Idle,
                starting: fresh,
                created_at,
                updated_at: at,
                cache,
                truncated_before_seq,
                front,
                wait_floor: -1,
                closed: false,
            },
        );
    }

    // ------------------------------------------------------------ views

    fn workspace_path_allowed(&self, path: &Path) -> bool {
        self.options
            .workspace_paths
            .iter()
            .any(|allowed| path.starts_with(allowed))
    }

    /// A workspace the caller may reach (seed: scope and the deployment's allow-list first,
    /// then existence: 403 before 404).
    fn workspace_for(
        &self,
        caller: &Caller,
        workspace_id: &str,
    ) -> Result<&HostWorkspace, BridgeError> {
        if !caller.scope.covers(workspace_id) {
            return Err(forbidden());
        }
        let workspace = self
            .workspaces
            .iter()
            .find(|w| w.id == workspace_id)
            .ok_or_else(|| {
                BridgeError::new(
                    ErrorCode::WorkspaceNotFound,
                    "no workspace has this workspaceId; read /workspaces again",
                )
            })?;
        if !self.workspace_path_allowed(&workspace.path) {
            return Err(forbidden());
        }
        Ok(workspace)
    }

    fn visible(&self, caller: &Caller, workspace: &HostWorkspace) -> bool {
        caller.scope.covers(&workspace.id) && self.workspace_path_allowed(&workspace.path)
    }

    /// An open task the caller may reach: unknown or closed → 404; out of scope → 403 that
    /// names nothing of the task.
    fn task_for(&self, caller: &Caller, task_id: &str) -> Result<&HostTask, BridgeError> {
        let task = self
            .tasks
            .get(task_id)
            .filter(|task| !task.closed)
            .ok_or_else(|| {
                BridgeError::new(
                    ErrorCode::TaskNotFound,
                    format!("task {task_id:?} is unknown to this bridge (unknown or closed); create it again with tasks/create"),
                )
                .with_details(serde_json::json!({ "taskId": task_id }))
            })?;
        let allowed = self
            .workspaces
            .iter()
            .find(|w| w.id == task.workspace_id)
            .is_some_and(|w| self.visible(caller, w));
        if !allowed {
            return Err(forbidden());
        }
        Ok(task)
    }

    fn task_visible(&self, caller: &Caller, task_id: &str) -> bool {
        self.tasks.get(task_id).is_some_and(|task| {
            self.workspaces
                .iter()
                .find(|w| w.id == task.workspace_id)
                .is_some_and(|w| self.visible(caller, w))
        })
    }

    fn view(&self, task: &HostTask) -> TaskView {
        let workspace_path = self
            .workspaces
            .iter()
            .find(|w| w.id == task.workspace_id)
            .map(|w| w.path.display().to_string())
            .unwrap_or_default();
        TaskView {
            task_id: task.id.clone(),
            workspace_id: task.workspace_id.clone(),
            workspace_path,
            session_id: task.session_id.clone(),
            agent_preset: task.preset.clone(),
            title: task.title.clone(),
            objective: task.objective.clone(),
            acceptance_criteria: task.acceptance.clone(),
            external: task.external.clone(),
            status: self.status_of(task),
            requested_config: task.requested.clone(),
            observed_config: task.observed.clone(),
            last_turn: task.last_turn.clone(),
            rounds: task.rounds.clone(),
            created_at: Some(Stamp::Text(iso(task.created_at))),
            updated_at: Some(Stamp::Text(iso(task.updated_at))),
        }
    }

    /// The real bridge's status: `running` from a turn start, `idle` after a completed turn,
    /// `attention` after any other turn end, `running`/`starting` on an append, `idle` on a
    /// cancel; a permission wait does not change it.
    fn status_of(&self, task: &HostTask) -> TaskStatus {
        if task.closed {
            return TaskStatus::Closed;
        }
        task.status.clone()
    }

    pub(crate) fn health(&self) -> Health {
        // As the real bridge: one follower per open task's session; every task record counts,
        // closed ones too.
        let open = self.tasks.values().filter(|t| !t.closed).count() as u64;
        Health {
            bridge: "ready".into(),
            protocol_version: crate::dsh_wire::PROTOCOL_VERSION,
            route_prefix: self.options.route_prefix.clone(),
            pid: Some(self.pid),
            sessions_followed: open,
            tracked_tasks: self.tasks.len() as u64,
            permissions: PermissionFacts {
                auto_approve: false,
            },
        }
    }

    pub(crate) fn workspaces(&self, caller: &Caller) -> WorkspaceList {
        let items = self
            .workspaces
            .iter()
            .filter(|w| self.visible(caller, w))
            .map(|w| {
                let session_ids: Vec<String> = self
                    .sessions
                    .values()
                    .filter(|s| s.cwd == w.path)
                    .map(|s| s.id.clone())
                    .collect();
                let status = match std::fs::metadata(&w.path) {
                    Ok(meta) if meta.is_dir() => WorkspaceStatus::Ok,
                    Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                        WorkspaceStatus::MissingDir
                    }
                    _ => WorkspaceStatus::Undetermined,
                };
                Workspace {
                    workspace_id: w.id.clone(),
                    title: w.title.clone(),
                    path: w.path.display().to_string(),
                    status,
                    session_count: session_ids.len() as u64,
                    session_ids,
                    created_at: Some(Stamp::Text(iso(w.created_at))),
                    updated_at: Some(Stamp::Text(iso(w.updated_at))),
                }
            })
            .collect();
        WorkspaceList {
            items,
            token_scope: caller.scope.wire(),
        }
    }

    pub(crate) fn capabilities(&self, caller: &Caller) -> Capabilities {
        Capabilities {
            protocol_version: crate::dsh_wire::PROTOCOL_VERSION,
            route_prefix: self.options.route_prefix.clone(),
            capabilities: CapabilityBits {
                workspaces: WorkspaceCapabilities {
                    list: true,
                    create: caller.may_create_workspaces && self.options.allow_workspace_create,
                    create_directory: false,
                    scope: Some(
                        if matches!(caller.scope.wire(), TokenScope::AllConfigured) {
                            "all-configured"
                        } else {
                            "selected"
                        }
                        .into(),
                    ),
                },
                sessions: SessionCapabilities {
                    create: true,
                    adopt: true,
                    rename: true,
                    list: true,
                    cancel: true,
                },
                models: ModelCapabilities {
                    catalog: true,
                    select: true,
                    verify_observed: true,
                },
                presets: PresetCapabilities {
                    list: true,
                    select: true,
                },
                events: EventCapabilities {
                    long_poll: true,
                    sse: true,
                    replay: true,
                    cursor: Some("sessionSeq".into()),
                },
                permissions: PermissionCapabilities {
                    auto_approve: false,
                    observe_waits: true,
                },
            },
            model_catalog: self.catalog.clone(),
            agent_presets: demo::presets(),
            unavailable: demo::unavailable(),
        }
    }

    pub(crate) fn sessions(
        &self,
        caller: &Caller,
        workspace_id: &str,
    ) -> Result<SessionList, BridgeError> {
        let workspace = self.workspace_for(caller, workspace_id)?;
        let items = self
            .sessions
            .values()
            .filter(|s| s.cwd == workspace.path)
            // The real bridge passes the host's list through: no title, no task id.
            .map(|s| Session {
                session_id: s.id.clone(),
                title: None,
                cwd: Some(s.cwd.display().to_string()),
                task_id: None,
                created_at: None,
                updated_at: Some(Stamp::Millis(s.updated_at)),
                running: Some(!matches!(s.activity, Activity::Idle)),
                blank: Some(s.log.is_empty()),
                agent_available: Some(true),
            })
            .collect();
        Ok(SessionList {
            workspace_id: Some(workspace.id.clone()),
            items,
        })
    }

    pub(crate) fn task_get(
        &self,
        caller: &Caller,
        task_id: &str,
    ) -> Result<TaskGetValue, BridgeError> {
        let task = self.task_for(caller, task_id)?;
        let cursor = self.cursor_of(&task.session_id);
        Ok(TaskGetValue {
            task: self.view(task),
            follower: Some(Follower {
                status: if task.starting {
                    FollowerStatus::Starting
                } else {
                    FollowerStatus::Live
                },
                cursor,
                truncated_before: (task.truncated_before_seq >= 0)
                    .then_some(task.truncated_before_seq),
                failure: None,
            }),
        })
    }

    pub(crate) fn task_list(
        &self,
        caller: &Caller,
        workspace_id: Option<&str>,
    ) -> Result<TaskList, BridgeError> {
        if let Some(id) = workspace_id {
            self.workspace_for(caller, id)?;
        }
        // As the real bridge: every task record, closed ones too (`status: "closed"`).
        let items = self
            .tasks
            .values()
            .filter(|t| workspace_id.is_none_or(|id| t.workspace_id == id))
            .filter(|t| self.task_visible(caller, &t.id))
            .map(|t| self.view(t))
            .collect();
        Ok(TaskList { items })
    }

    fn cursor_of(&self, session_id: &str) -> i64 {
        self.sessions.get(session_id).map_or(-1, |s| s.next_seq - 1)
    }

    /// seed GET /transcript?taskId=: the real bridge's `readTranscript` (see `tail::task_page`).
    pub(crate) fn transcript_task(
        &self,
        caller: &Caller,
        task_id: &str,
        since: i64,
        limit: usize,
    ) -> Result<TranscriptPage, BridgeError> {
        let task = self.task_for(caller, task_id)?;
        let session = self.sessions.get(&task.session_id).ok_or_else(|| {
            BridgeError::new(ErrorCode::SessionNotFound, "the task's session is gone")
        })?;
        let page = task_page(
            &task.cache,
            &session.log,
            session.next_seq - 1,
            task.truncated_before_seq,
            since,
            limit,
            task_id,
        );
        Ok(TranscriptPage {
            task_id: Some(task_id.to_string()),
            session_id: task.session_id.clone(),
            follower_status: Some(if task.starting {
                FollowerStatus::Starting
            } else {
                FollowerStatus::Live
            }),
            follower_failure: None,
            cursor: page.cursor,
            truncated_before: page.truncated_before,
            source: Some(if page.used_log {
                TranscriptSource::BridgeFollowerAndDurable
            } else {
                TranscriptSource::BridgeFollower
            }),
            items: page.items,
        })
    }

    /// seed GET /transcript?workspaceId=&sessionId=: a followed session reads as its task; any
    /// other reads the whole durable log, `sinceSeq` and `limit` ignored, as the real bridge.
    /// Also as the real bridge: a session whose task was closed is `task/not-found` until a
    /// task adopts it again.
    pub(crate) fn transcript_session(
        &self,
        caller: &Caller,
        workspace_id: &str,
        session_id: &str,
        since: i64,
        limit: usize,
    ) -> Result<SessionTranscript, BridgeError> {
        let workspace = self.workspace_for(caller, workspace_id)?;
        let session = self
            .sessions
            .get(session_id)
            .ok_or_else(session_not_found)?;
        if session.cwd != workspace.path {
            return Err(self.mismatch_or_not_found(caller, session));
        }
        if let Some(task_id) = session.task.clone() {
            return self
                .transcript_task(caller, &task_id, since, limit)
                .map(SessionTranscript::Task);
        }
        if self.tasks.values().any(|t| t.session_id == session.id) {
            return Err(task_not_found());
        }
        Ok(SessionTranscript::Durable(durable_page(
            &session.log,
            session.next_seq - 1,
            &session.id,
        )))
    }

    /// A session of another workspace: 409 when the caller may see that workspace, else the
    /// same 404 as an unknown session, so scope is never probed through sessions.
    fn mismatch_or_not_found(&self, caller: &Caller, session: &HostSession) -> BridgeError {
        let visible = self
            .workspaces
            .iter()
            .find(|w| w.id == session.workspace_id)
            .is_some_and(|w| self.visible(caller, w));
        if visible {
            BridgeError::new(
                ErrorCode::SessionWorkspaceMismatch,
                "this session does not belong to that workspace; address it through its own workspace",
            )
        } else {
            session_not_found()
        }
    }

    // ------------------------------------------------------------ actions

    pub(crate) fn create(
        &mut self,
        caller: &Caller,
        request: CreateTaskRequest,
    ) -> Result<CreateTaskValue, BridgeError> {
        check_request_id(&request.request_id)?;
        // Authorization first (seed "授权先于任何回放/读取").
        self.workspace_for(caller, &request.workspace_id)?;
        let print = fingerprint(&request);
        match self.requests.get(&request.request_id) {
            Some(Record::Create {
                task_id,
                fingerprint,
            }) => {
                if !self.task_visible(caller, task_id) || *fingerprint != print {
                    return Err(conflict(
                        "this requestId was already used for a different request; use a new requestId",
                    ));
                }
                let task = self.tasks.get(task_id).ok_or_else(task_not_found)?;
                return Ok(CreateTaskValue {
                    task: self.view(task),
                    replayed: true,
                });
            }
            Some(Record::Append { .. }) => {
                return Err(conflict(
                    "this requestId was already used for a different request; use a new requestId",
                ));
            }
            None => {}
        }
        let mut adopt = request.session_id.clone();
        if let Some(task_id) = &request.task_id {
            check_request_id(task_id)
                .map_err(|_| bad("taskId must be 1 to 128 bytes without control characters"))?;
            if let Some(existing) = self.tasks.get(task_id) {
                if !self.task_visible(caller, task_id) {
                    return Err(forbidden());
                }
                if existing.workspace_id != request.workspace_id {
                    return Err(conflict("this taskId belongs to another workspace"));
                }
                if !existing.closed {
                    // As the real bridge: an open task of this id is answered as a replay.
                    return Ok(CreateTaskValue {
                        task: self.view(existing),
                        replayed: true,
                    });
                }
                match &adopt {
                    Some(session) if *session != existing.session_id => {
                        return Err(conflict(
                            "this closed taskId followed another session; reopen it without sessionId",
                        ));
                    }
                    _ => adopt = Some(existing.session_id.clone()),
                }
            }
        }
        check_text("objective", &request.objective)?;
        check_text("acceptanceCriteria", &request.acceptance_criteria)?;
        if let Some(context) = &request.task_context
            && context.to_string().chars().count() > limits::MAX_TASK_TEXT_CHARS
        {
            return Err(bad(
                "taskContext is longer than 4000 characters once serialized",
            ));
        }
        if let Some(preset) = &request.agent_preset
            && !demo::presets().iter().any(|p| &p.id == preset)
        {
            return Err(bad(format!(
                "agentPreset {preset:?} is not offered; use one that /capabilities lists"
            ))
            .with_details(serde_json::json!({
                "agentPresets": demo::presets().iter().map(|p| p.id.clone()).collect::<Vec<_>>()
            })));
        }
        let config = self.resolve_config(
            None,
            request.provider.as_deref(),
            request.model.as_deref(),
            request.reasoning_effort.as_deref(),
        )?;
        let workspace = self.workspace_for(caller, &request.workspace_id)?;
        let workspace_path = workspace.path.clone();
        let session_id = match adopt {
            Some(session_id) => {
                let session = self
                    .sessions
                    .get(&session_id)
                    .ok_or_else(session_not_found)?;
                if session.cwd != workspace_path {
                    return Err(self.mismatch_or_not_found(caller, session));
                }
                if session.task.is_some() {
                    return Err(conflict(
                        "another open task already follows this session; read it with tasks/list",
                    ));
                }
                session_id
            }
            None => self.new_session(&request, workspace_path),
        };
        self.made += 1;
        let task_id = request
            .task_id
            .clone()
            .unwrap_or_else(|| format!("task-{}", self.made));
        if let Some(config) = &config
            && let Some(session) = self.sessions.get_mut(&session_id)
        {
            session.config = config.clone();
        }
        let now = self.clock.now_ms();
        self.follow(&task_id, &session_id, Some(&request), config, now);
        // The real bridge renames the session to the task's title; the host says so with a
        // `session/title` event.
        if let Some(title) = request.title.clone() {
            if let Some(session) = self.sessions.get_mut(&session_id) {
                session.title = title.clone();
            }
            self.emit(&session_id, "session/title", title_event(&title));
        }
        self.requests.insert(
            request.request_id.clone(),
            Record::Create {
                task_id: task_id.clone(),
                fingerprint: print,
            },
        );
        let task = self.tasks.get(&task_id).ok_or_else(task_not_found)?;
        Ok(CreateTaskValue {
            task: self.view(task),
            replayed: false,
        })
    }

    fn new_session(&mut self, request: &CreateTaskRequest, cwd: PathBuf) -> String {
        self.made += 1;
        let id = format!("session-{}-{}", self.options.seed, self.made);
        let now = self.clock.now_ms();
        self.sessions.insert(
            id.clone(),
            HostSession {
                id: id.clone(),
                workspace_id: request.workspace_id.clone(),
                title: request.title.clone().unwrap_or_else(|| "New task".into()),
                cwd,
                log: VecDeque::new(),
                // The host's seqs start at 1, as the real host's.
                next_seq: 1,
                turn: 0,
                activity: Activity::Idle,
                plan: VecDeque::new(),
                queued: VecDeque::new(),
                config: demo::default_config(),
                cue_token: 0,
                writer_held: false,
                loses_first_reply: false,
                lost_once: false,
                effort_downgraded: false,
                task: None,
                updated_at: now,
                turns_planned: 0,
            },
        );
        self.schedule(
            READY_AFTER_MS,
            Cue::Ready {
                session: id.clone(),
            },
        );
        id
    }

    /// Checks a provider/model/effort choice against the catalog (seed model/* codes).
    fn resolve_config(
        &self,
        current: Option<&ModelConfig>,
        provider: Option<&str>,
        model: Option<&str>,
        effort: Option<&str>,
    ) -> Result<Option<ModelConfig>, BridgeError> {
        let (provider, model) = match (provider, model) {
            (Some(p), Some(m)) => (p.to_string(), m.to_string()),
            (None, None) => {
                if effort.is_none() {
                    return Ok(None);
                }
                let base = current.cloned().unwrap_or_else(demo::default_config);
                (
                    base.provider.unwrap_or_default(),
                    base.model.unwrap_or_default(),
                )
            }
            _ => return Err(bad("provider and model are given together or not at all")),
        };
        let entry = self.catalog.model(&provider, &model).ok_or_else(|| {
            BridgeError::new(
                ErrorCode::ModelUnavailable,
                format!(
                    "{provider}/{model} cannot be routed; choose one of details.availableModels"
                ),
            )
            .with_details(demo::available_models(&self.catalog))
        })?;
        let efforts = entry
            .reasoning
            .as_ref()
            .map(crate::dsh_wire::Reasoning::ids)
            .unwrap_or_default();
        if let Some(effort) = effort
            && !efforts.iter().any(|e| e == effort)
        {
            return Err(BridgeError::new(
                ErrorCode::ReasoningEffortUnavailable,
                format!("{provider}/{model} does not declare reasoning effort {effort:?}"),
            )
            .with_details(serde_json::json!({ "supportedEfforts": efforts })));
        }
        Ok(Some(ModelConfig {
            provider: Some(provider),
            model: Some(model),
            reasoning_effort: effort
                .map(str::to_string)
                .or_else(|| entry.reasoning.as_ref().and_then(|r| r.default.clone())),
        }))
    }

    pub(crate) fn append(
        &mut self,
        caller: &Caller,
        request: AppendRequest,
    ) -> Result<AppendValue, BridgeError> {
        check_request_id(&request.request_id)?;
        if request.message.trim().is_empty() {
            return Err(bad("message is empty; send the words to append"));
        }
        if let crate::dsh_wire::AppendKind::Unknown(kind) = &request.kind {
            return Err(bad(format!(
                "kind {kind:?} is not one of instruction, feedback, question, review, clarification, note"
            )));
        }
        if let Some(AppendMode::Unknown(mode)) = &request.mode {
            return Err(bad(format!("mode {mode:?} is not queue or steer")));
        }
        let task = self.task_for(caller, &request.task_id)?;
        let session_id = task.session_id.clone();
        let print = fingerprint(&request);
        match self.requests.get(&request.request_id) {
            Some(Record::Append {
                task_id,
                fingerprint,
                value,
            }) if *task_id == request.task_id && *fingerprint == print => {
                return Ok(AppendValue {
                    replayed: true,
                    ..value.clone()
                });
            }
            Some(_) => {
                return Err(conflict(
                    "this requestId was already used for a different request; use a new requestId",
                ));
            }
            None => {}
        }
        let session = self
            .sessions
            .get(&session_id)
            .ok_or_else(session_not_found)?;
        if session.writer_held {
            return Err(BridgeError::new(
                ErrorCode::WriterHeld,
                "another runtime holds this session's writer lock; try later or take it over on the desktop",
            ));
        }
        let steer = request.mode == Some(AppendMode::Steer);
        if steer && matches!(session.activity, Activity::Waiting(_)) {
            // The host refuses the prompt; the real bridge reports any host refusal this way.
            return Err(BridgeError::new(
                ErrorCode::Internal,
                "prompt admission failed: Error: the session waits for a permission on the desktop and takes no steer now; queue it or answer on the desktop",
            ));
        }
        let current = session.config.clone();
        let wait_floor = session.next_seq - 1;
        let config = self.resolve_config(
            Some(&current),
            request.provider.as_deref(),
            request.model.as_deref(),
            request.reasoning_effort.as_deref(),
        )?;
        if let Some(config) = config {
            if let Some(session) = self.sessions.get_mut(&session_id) {
                session.config = config.clone();
            }
            if let Some(task) = self.tasks.get_mut(&request.task_id) {
                task.requested = Some(config.clone());
            }
            self.emit(
                &session_id,
                "model/selection",
                EventBody::Execution(ExecutionEvent {
                    selected_config: Some(config),
                    ..ExecutionEvent::new(ExecutionPhase::ModelSelection)
                }),
            );
        }
        self.emit(
            &session_id,
            "user/message",
            user_message(&request.message, Some(&request.request_id)),
        );
        let now = self.clock.now_ms();
        let task = self
            .tasks
            .get_mut(&request.task_id)
            .ok_or_else(task_not_found)?;
        let round = task.rounds.len() as u64 + 1;
        // As the real bridge's rounds: no mode, no message preview.
        task.rounds.push(Round {
            round,
            request_id: Some(request.request_id.clone()),
            kind: Some(request.kind.clone()),
            mode: None,
            message_preview: None,
            at: Some(Stamp::Text(iso(now))),
            accepted: true,
        });
        task.updated_at = now;
        task.wait_floor = wait_floor;
        task.status = if task.starting {
            TaskStatus::Starting
        } else {
            TaskStatus::Running
        };
        self.dispatch_prompt(&session_id, &request.message, steer);
        let value = AppendValue {
            task_id: request.task_id.clone(),
            session_id: session_id.clone(),
            round,
            accepted: true,
            replayed: false,
        };
        self.requests.insert(
            request.request_id.clone(),
            Record::Append {
                task_id: request.task_id.clone(),
                fingerprint: print,
                value: value.clone(),
            },
        );
        if let Some(session) = self.sessions.get_mut(&session_id)
            && session.loses_first_reply
            && !session.lost_once
        {
            session.lost_once = true;
            return Err(BridgeError::new(
                ErrorCode::Timeout,
                "the desktop did not confirm the prompt in time; resend with the same requestId",
            ));
        }
        Ok(value)
    }

    /// Runs a prompt now when the session is idle, after the running turn when queued, or
    /// instead of it when steering.
    fn dispatch_prompt(&mut self, session_id: &str, text: &str, steer: bool) {
        let Some(session) = self.sessions.get_mut(session_id) else {
            return;
        };
        match (session.activity, steer) {
            (Activity::Idle, _) => {
                let reply = self.reply_to(session_id, text);
                self.start_turn(session_id, Some(reply), None, false);
            }
            (Activity::Running, true) => {
                let turn = session.turn;
                session.plan.clear();
                session.cue_token += 1;
                self.emit(
                    session_id,
                    "turn/end",
                    EventBody::Execution(ExecutionEvent {
                        turn: Some(turn),
                        reason: Some(ExecutionPhase::TurnInterrupted.end_reason().into()),
                        ..ExecutionEvent::new(ExecutionPhase::TurnInterrupted)
                    }),
                );
                let reply = self.reply_to(session_id, text);
                self.start_turn(session_id, Some(reply), None, false);
            }
            _ => session.queued.push_back(Prompt { text: text.into() }),
        }
    }

    /// Probes a wait: the events after `sinceSeq`, and whether one meets a condition.
    pub(crate) fn wait_probe(
        &self,
        caller: &Caller,
        request: &WaitRequest,
    ) -> Result<(bool, WaitValue), BridgeError> {
        let task = self.task_for(caller, &request.task_id)?;
        if let Some(WaitOn::Unknown(word)) = request
            .condition
            .on
            .iter()
            .find(|c| matches!(c, WaitOn::Unknown(_)))
        {
            return Err(bad(format!(
                "condition.on holds {word:?}; use turn-end, input-request, message, tool-failure, artifact"
            )));
        }
        // The real bridge's `collectConditions`: only the events that meet a condition are
        // answered; a turn end or a permission wait counts only above the round's floor.
        let since = request.condition.since_seq;
        let wants = |on: WaitOn| {
            if request.condition.on.is_empty() {
                matches!(on, WaitOn::TurnEnd | WaitOn::InputRequest)
            } else {
                request.condition.on.contains(&on)
            }
        };
        let settled_floor = since.max(task.wait_floor);
        let tool_of = |call_id: Option<&String>| {
            task.cache
                .iter()
                .filter_map(|e| match &e.body {
                    EventBody::Execution(x) if x.phase == ExecutionPhase::ToolCall => Some(x),
                    _ => None,
                })
                .find(|x| x.call_id.as_ref() == call_id)
                .and_then(|x| x.tool.clone())
        };
        let events: Vec<Event> = task
            .cache
            .iter()
            .filter(|e| e.session_seq > since && e.session_event_type != BRIDGE_STATUS)
            .filter(|event| {
                let settles = event.session_seq > settled_floor;
                match &event.body {
                    EventBody::Execution(execution) => {
                        (wants(WaitOn::TurnEnd)
                            && settles
                            && (execution.phase.ends_turn()
                                || execution.phase == ExecutionPhase::TurnForked))
                            || (wants(WaitOn::ToolFailure)
                                && execution.phase == ExecutionPhase::ToolResult
                                && execution.failed == Some(true))
                            || (wants(WaitOn::Artifact)
                                && execution.phase == ExecutionPhase::ToolResult
                                && execution.failed != Some(true)
                                && matches!(
                                    tool_of(execution.call_id.as_ref()).as_deref(),
                                    Some("write_file" | "apply_patch")
                                ))
                    }
                    EventBody::Permission(_) => wants(WaitOn::InputRequest) && settles,
                    EventBody::Message(_) => wants(WaitOn::Message),
                    _ => false,
                }
            })
            .cloned()
            .collect();
        let met = !events.is_empty();
        Ok((
            met,
            WaitValue {
                task_id: task.id.clone(),
                session_id: task.session_id.clone(),
                cursor: self.cursor_of(&task.session_id),
                status: self.status_of(task),
                timed_out: !met,
                events,
            },
        ))
    }

    pub(crate) fn cancel(
        &mut self,
        caller: &Caller,
        task_id: &str,
    ) -> Result<CancelValue, BridgeError> {
        let task = self.task_for(caller, task_id)?;
        let session_id = task.session_id.clone();
        let session = self
            .sessions
            .get_mut(&session_id)
            .ok_or_else(session_not_found)?;
        // As the real host: a cancel is accepted while a turn runs or waits for a permission;
        // a permission wait is never touched (no turn end, the desktop still waits). An idle
        // session has nothing to cancel (this host's answer).
        let activity = session.activity;
        let accepted = activity != Activity::Idle;
        let now = self.clock.now_ms();
        if let Some(task) = self.tasks.get_mut(task_id) {
            task.status = TaskStatus::Idle;
            task.updated_at = now;
        }
        if activity == Activity::Running
            && let Some(session) = self.sessions.get_mut(&session_id)
        {
            let turn = session.turn;
            session.plan.clear();
            session.cue_token += 1;
            // The host's turn end comes after the cancel, so it folds into the task's status
            // as any turn end does (`attention`), as with the real host.
            self.emit(
                &session_id,
                "turn/end",
                EventBody::Execution(ExecutionEvent {
                    turn: Some(turn),
                    reason: Some(ExecutionPhase::TurnAborted.end_reason().into()),
                    ..ExecutionEvent::new(ExecutionPhase::TurnAborted)
                }),
            );
            self.turn_over(&session_id);
        }
        Ok(CancelValue {
            task_id: task_id.to_string(),
            session_id,
            accepted,
        })
    }

    pub(crate) fn close(
        &mut self,
        caller: &Caller,
        task_id: &str,
    ) -> Result<CloseValue, BridgeError> {
        let task = self.task_for(caller, task_id)?;
        let session_id = task.session_id.clone();
        if let Some(task) = self.tasks.get_mut(task_id) {
            task.closed = true;
            task.cache.clear();
        }
        if let Some(session) = self.sessions.get_mut(&session_id) {
            session.task = None;
        }
        // Nothing tells the streams: the real bridge leaves a closed task's streams open, with
        // keep-alives only.
        Ok(CloseValue {
            task_id: task_id.to_string(),
            status: TaskStatus::Closed,
            session_kept: true,
        })
    }

    /// seed "全工作区授权与注册": rights first, then the caller's replay record, then the path.
    pub(crate) fn workspace_create(
        &mut self,
        caller: &Caller,
        request: WorkspaceCreateRequest,
    ) -> Result<WorkspaceCreateValue, BridgeError> {
        check_request_id(&request.request_id)?;
        if !(caller.may_create_workspaces && self.options.allow_workspace_create) {
            return Err(BridgeError::new(
                ErrorCode::WorkspaceForbidden,
                "this token may not register workspaces (it needs the null scope and allowWorkspaceCreate, and the desktop must allow it)",
            ));
        }
        let key = (caller.token_index, request.request_id.clone());
        let print = fingerprint(&request);
        if let Some((recorded, value)) = self.workspace_requests.get(&key) {
            if *recorded != print {
                return Err(conflict(
                    "this requestId was already used for a different path or title; use a new requestId",
                ));
            }
            return Ok(WorkspaceCreateValue {
                replayed: true,
                ..value.clone()
            });
        }
        let raw = Path::new(&request.path);
        if !raw.is_absolute() {
            return Err(bad("path must be absolute"));
        }
        let meta = std::fs::metadata(raw)
            .map_err(|_| bad("path does not exist; the bridge never creates directories"))?;
        if !meta.is_dir() {
            return Err(bad("path is not a directory"));
        }
        let path = raw
            .canonicalize()
            .map_err(|_| bad("path cannot be resolved"))?;
        if !self.workspace_path_allowed(&path) {
            return Err(BridgeError::new(
                ErrorCode::WorkspaceForbidden,
                "path is outside the desktop's allowed workspace paths",
            ));
        }
        let now = self.clock.now_ms();
        let (workspace, reused) = match self.workspaces.iter().find(|w| w.path == path) {
            Some(existing) => (
                WorkspaceRef {
                    workspace_id: existing.id.clone(),
                    title: existing.title.clone(),
                    path: existing.path.display().to_string(),
                },
                true,
            ),
            None => {
                self.made += 1;
                let id = format!("ws-{}", self.made);
                let title = request.title.clone().unwrap_or_else(|| {
                    path.file_name()
                        .map(|name| name.to_string_lossy().into_owned())
                        .unwrap_or_else(|| path.display().to_string())
                });
                self.workspaces.push(HostWorkspace {
                    id: id.clone(),
                    title: title.clone(),
                    path: path.clone(),
                    created_at: now,
                    updated_at: now,
                });
                (
                    WorkspaceRef {
                        workspace_id: id,
                        title,
                        path: path.display().to_string(),
                    },
                    false,
                )
            }
        };
        let value = WorkspaceCreateValue {
            workspace,
            replayed: false,
            reused,
        };
        self.workspace_requests.insert(key, (print, value.clone()));
        Ok(value)
    }

    /// The start of an event stream: the task's session and its cached events after `since`.
    pub(crate) fn events_start(
        &self,
        caller: &Caller,
        task_id: &str,
        since: i64,
    ) -> Result<(Vec<Event>, Option<i64>), BridgeError> {
        let task = self.task_for(caller, task_id)?;
        // As the real `streamEvents`: the replay starts after max(sinceSeq, the tail's
        // truncation point), and says so in `x-bridge-truncated-before` when it moved.
        let from = since.max(task.truncated_before_seq);
        let truncated = (since < task.truncated_before_seq).then_some(task.truncated_before_seq);
        Ok((
            task.cache
                .iter()
                .filter(|e| e.session_seq > from)
                .cloned()
                .collect(),
            truncated,
        ))
    }

    /// The desktop reloaded (seed §4.8): a new pid, every follower rebuilt from its session's
    /// durable log, and the last few events delivered again (at least once, SPEC D4).
    pub(crate) fn reload(&mut self) {
        self.pid += 1;
        tracing::info!(pid = self.pid, "simulated a desktop reload");
        let ids: Vec<String> = self
            .tasks
            .values()
            .filter(|t| !t.closed)
            .map(|t| t.id.clone())
            .collect();
        for task_id in ids {
            let Some(task) = self.tasks.get(&task_id) else {
                continue;
            };
            let Some(session) = self.sessions.get(&task.session_id) else {
                continue;
            };
            let (cache, truncated) = tail_of(&session.log, self.options.event_cache, &task_id);
            let again: Vec<Event> = cache
                .iter()
                .rev()
                .take(RELOAD_REPLAY)
                .rev()
                .cloned()
                .collect();
            if let Some(task) = self.tasks.get_mut(&task_id) {
                task.cache = cache;
                task.truncated_before_seq = truncated;
            }
            for event in again {
                let _ = self.signals.send(Arc::new(Signal::Event {
                    task_id: task_id.clone(),
                    event: Box::new(event),
                    replay: true,
                }));
            }
        }
    }
}

fn session_not_found() -> BridgeError {
    BridgeError::new(
        ErrorCode::SessionNotFound,
        "no session has this sessionId in a workspace this token reaches; create a task without sessionId",
    )
}

/// A user message as the real bridge projects it: `source` is the host's source kind (`user`
/// whoever typed it); a prompt sent through the bridge carries its `requestId`.
fn user_message(text: &str, request_id: Option<&str>) -> EventBody {
    EventBody::Message(MessageEvent {
        role: Role::User,
        text: text.to_string(),
        source: Some("user".to_string()),
        request_id: request_id.map(str::to_string),
        model: None,
        model_id: None,
        usage: None,
        interrupted: None,
    })
}

/// The config a request header shows: the asked one, or one effort lower on a session whose
/// host downgrades it (so the phone can show requested next to observed).
fn observed_config(requested: &ModelConfig, downgraded: bool) -> ModelConfig {
    if !downgraded {
        return requested.clone();
    }
    let lower = match requested.reasoning_effort.as_deref() {
        Some("high") => "medium",
        _ => "low",
    };
    ModelConfig {
        reasoning_effort: Some(lower.into()),
        ..requested.clone()
    }
}

/// Appends to a task's tail, dropping the oldest beyond the cache size (the real `trimTail`:
/// the highest dropped seq is the tail's truncation point).
fn push_tail(task: &mut HostTask, event: Event, limit: usize) {
    task.cache.push_back(event);
    while task.cache.len() > limit.max(1) {
        if let Some(dropped) = task.cache.pop_front() {
            task.truncated_before_seq = task.truncated_before_seq.max(dropped.session_seq);
        }
    }
}

/// The host's `session/title` event, projected as the real bridge does.
pub(super) fn title_event(title: &str) -> EventBody {
    EventBody::Status(StatusEvent {
        phase: crate::dsh_wire::StatusPhase::Title,
        error: None,
        title: Some(title.to_string()),
    })
}

/// Folds a live event into a task's state as the real `applyTaskState` (never history at or
/// below the front): the observed config, and the status and `lastTurn` from turn phases.
fn fold(task: &mut HostTask, event: &Event) {
    task.starting = false;
    if event.session_seq <= task.front {
        return;
    }
    let EventBody::Execution(execution) = &event.body else {
        return;
    };
    if let Some(observed) = &execution.observed_config {
        task.observed = Some(observed.clone());
    }
    match &execution.phase {
        ExecutionPhase::TurnStart => task.status = TaskStatus::Running,
        phase if phase.ends_turn() || *phase == ExecutionPhase::TurnForked => {
            task.status = if *phase == ExecutionPhase::TurnCompleted {
                TaskStatus::Idle
            } else {
                TaskStatus::Attention
            };
            task.last_turn = Some(LastTurn {
                turn: execution.turn,
                reason: Some(
                    execution
                        .reason
                        .clone()
                        .unwrap_or_else(|| phase.end_reason().to_string()),
                ),
                phase: None,
                session_seq: None,
                at: Some(event.at),
                error: None,
            });
        }
        _ => return,
    }
    task.updated_at = event.at;
}
