//! The bridge's HTTP side (seed §1–§2, SPEC D1–D3): one handler that reads the body within
//! `maxRequestBytes`, checks the bearer token, routes by method and path under the prefix, and
//! answers every call in the envelope with the requestId echoed; `/events` is SSE with
//! keep-alive comments; `/tasks/wait` waits on the desktop's signals.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::StreamExt;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::broadcast;

use super::desktop::{FakeDesktop, Signal};
use super::tokens::{Caller, TokenStore};
use crate::dsh_wire::{
    AppendRequest, BRIDGE_STATUS, BridgeError, CreateTaskRequest, Envelope, ErrorCode, Event,
    SSE_EVENT_NAME, TaskRef, WaitRequest, WorkspaceCreateRequest, limits, routes,
};

/// Everything a request handler needs.
pub(crate) struct Bridge {
    pub(crate) desktop: Mutex<FakeDesktop>,
    pub(crate) tokens: TokenStore,
    pub(crate) signals: broadcast::Sender<Arc<Signal>>,
    pub(crate) prefix: String,
    pub(crate) keep_alive: Duration,
    pub(crate) max_wait_ms: u64,
    pub(crate) ready_at: Instant,
}

impl Bridge {
    fn desktop(&self) -> Result<MutexGuard<'_, FakeDesktop>, BridgeError> {
        self.desktop.lock().map_err(|_| {
            BridgeError::new(
                ErrorCode::Internal,
                "the bridge's state was left broken by an earlier failure; restart the bridge",
            )
        })
    }
}

/// The router: every path goes through [`dispatch`], so unknown routes and methods get the
/// envelope too (404 request/unsupported), never axum's plain 404/405.
pub(crate) fn router(bridge: Arc<Bridge>) -> Router {
    Router::new().fallback(dispatch).with_state(bridge)
}

/// The message of every failure that is not one of the bridge's own, as the real bridge's.
const INTERNAL_MESSAGE: &str = "the bridge failed to complete the request";

/// A reply as the real bridge's `sendJson`: the envelope pretty-printed (2 spaces, no trailing
/// newline), `content-type: application/json; charset=utf-8`, `cache-control: no-store`, and
/// `x-bridge-request-id` when the body carried a requestId.
fn envelope<T: Serialize>(request_id: Option<String>, result: Result<T, BridgeError>) -> Response {
    let (status, tree) = match result {
        Ok(value) => (
            StatusCode::OK,
            serde_json::to_value(Envelope::success(request_id.clone(), value)),
        ),
        Err(error) => {
            let status = StatusCode::from_u16(error.code.status())
                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            tracing::debug!(code = %error.code, "refused a call");
            (
                status,
                serde_json::to_value(Envelope::<()>::failure(request_id.clone(), error)),
            )
        }
    };
    let body = tree.and_then(|mut tree| {
        realize(&mut tree);
        serde_json::to_vec_pretty(&tree)
    });
    let bytes = match body {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::error!(%error, "could not write a reply");
            return envelope::<()>(
                request_id,
                Err(BridgeError::new(ErrorCode::Internal, INTERNAL_MESSAGE)),
            );
        }
    };
    let mut response = (
        status,
        [
            (header::CONTENT_TYPE, "application/json; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        bytes,
    )
        .into_response();
    if let Some(value) = request_id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        response.headers_mut().insert("x-bridge-request-id", value);
    }
    response
}

/// What the wire types cannot say but the real bridge writes: every `observedConfig` has
/// `reasoningEffort` (null when unknown) and `reason` (the request header's reason; every
/// request of this demo desktop is a turn's `initial` one); a `selectedConfig` has
/// `reasoningEffort` too.
fn realize(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if let Value::Object(config) = inner {
                    if key == "observedConfig" || key == "selectedConfig" {
                        config.entry("reasoningEffort").or_insert(Value::Null);
                    }
                    if key == "observedConfig" {
                        config
                            .entry("reason")
                            .or_insert_with(|| Value::String("initial".into()));
                    }
                }
                realize(inner);
            }
        }
        Value::Array(list) => list.iter_mut().for_each(realize),
        _ => {}
    }
}

fn unsupported(method: &Method, route: &str) -> BridgeError {
    BridgeError::new(
        ErrorCode::Unsupported,
        format!("{method} {route} is not a bridge endpoint"),
    )
}

fn bad(message: impl Into<String>) -> BridgeError {
    BridgeError::new(ErrorCode::BadRequest, message)
}

fn parse<T: DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, BridgeError> {
    serde_json::from_slice(bytes)
        .map_err(|error| bad(format!("the body is not a {what} request: {error}")))
}

fn required<'a>(query: &'a HashMap<String, String>, key: &str) -> Result<&'a str, BridgeError> {
    query
        .get(key)
        .map(String::as_str)
        .filter(|value| !value.is_empty())
        .ok_or_else(|| bad(format!("the query needs {key}")))
}

fn since_seq(query: &HashMap<String, String>) -> Result<i64, BridgeError> {
    match query.get("sinceSeq") {
        None => Ok(-1),
        Some(text) => text
            .parse::<i64>()
            .map_err(|_| bad("sinceSeq must be an integer")),
    }
}

fn limit(query: &HashMap<String, String>) -> Result<usize, BridgeError> {
    match query.get("limit") {
        None => Ok(limits::DEFAULT_TRANSCRIPT_LIMIT),
        Some(text) => match text.parse::<usize>() {
            Ok(0) | Err(_) => Err(bad("limit must be a whole number from 1 to 2000")),
            Ok(n) => Ok(n.min(limits::MAX_TRANSCRIPT_LIMIT)),
        },
    }
}

async fn dispatch(State(bridge): State<Arc<Bridge>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let query: HashMap<String, String> = Query::try_from_uri(&parts.uri)
        .map(|Query(query)| query)
        .unwrap_or_default();
    let too_large = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok())
        .is_some_and(|length| length > limits::MAX_REQUEST_BYTES);
    let too_large_error = || {
        BridgeError::new(
            ErrorCode::TooLarge,
            format!(
                "the body is larger than {} bytes (maxRequestBytes); split the content",
                limits::MAX_REQUEST_BYTES
            ),
        )
    };
    if too_large {
        return envelope::<()>(None, Err(too_large_error()));
    }
    let Ok(bytes) = axum::body::to_bytes(body, limits::MAX_REQUEST_BYTES).await else {
        return envelope::<()>(None, Err(too_large_error()));
    };
    // As the real bridge: the POST body's requestId is echoed, on errors too; a GET's body is
    // never read and a `?requestId=` is not looked at, so a GET says `requestId: null`.
    let request_id = (parts.method != Method::GET && parts.method != Method::HEAD)
        .then(|| serde_json::from_slice::<Value>(&bytes).ok())
        .flatten()
        .and_then(|value| {
            value
                .get("requestId")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .map(|id| crate::wire::sanitize::truncate_to(&id, limits::MAX_REQUEST_ID).to_string());
    let caller = match bridge.tokens.authorize(authorization(&parts.headers)) {
        Ok(caller) => caller,
        Err(error) => return envelope::<()>(request_id, Err(error)),
    };
    let Some(route) = parts.uri.path().strip_prefix(bridge.prefix.as_str()) else {
        return envelope::<()>(
            request_id,
            Err(unsupported(&parts.method, parts.uri.path())),
        );
    };
    let route = route.to_string();
    if route != routes::HEALTH && Instant::now() < bridge.ready_at {
        return envelope::<()>(
            request_id,
            Err(BridgeError::new(
                ErrorCode::NotReady,
                "the desktop host is still starting; retry after a pause",
            )),
        );
    }
    let method = parts.method.clone();
    let unknown = || unsupported(&method, parts.uri.path());
    match (method.clone(), route.as_str()) {
        (Method::GET, routes::EVENTS) => events(bridge, caller, request_id, &query).await,
        (Method::POST, routes::TASKS_WAIT) => wait(bridge, caller, request_id, &bytes).await,
        (Method::GET, _) => {
            let result = get(&bridge, &caller, &route, &query);
            respond(request_id, unknown(), result)
        }
        (Method::POST, _) => {
            let result = post(&bridge, &caller, &route, &bytes);
            respond(request_id, unknown(), result)
        }
        _ => envelope::<()>(
            request_id,
            Err(unsupported(&method, &format!("{}{route}", bridge.prefix))),
        ),
    }
}

fn respond(
    request_id: Option<String>,
    unknown: BridgeError,
    result: Result<Option<Value>, BridgeError>,
) -> Response {
    match result {
        Ok(Some(value)) => envelope(request_id, Ok(value)),
        Ok(None) => envelope::<()>(request_id, Err(unknown)),
        Err(error) => envelope::<()>(request_id, Err(error)),
    }
}

fn authorization(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .map(|value| value.to_str().unwrap_or(""))
}

fn to_value<T: Serialize>(value: T) -> Result<Option<Value>, BridgeError> {
    serde_json::to_value(value).map(Some).map_err(|error| {
        tracing::error!(%error, "could not write a reply");
        BridgeError::new(ErrorCode::Internal, INTERNAL_MESSAGE)
    })
}

/// The GET routes but /events; `Ok(None)` when there is no such route.
fn get(
    bridge: &Bridge,
    caller: &Caller,
    route: &str,
    query: &HashMap<String, String>,
) -> Result<Option<Value>, BridgeError> {
    let desktop = bridge.desktop()?;
    match route {
        routes::HEALTH => to_value(desktop.health()),
        routes::WORKSPACES => to_value(desktop.workspaces(caller)),
        routes::CAPABILITIES => to_value(desktop.capabilities(caller)),
        routes::SESSIONS => to_value(desktop.sessions(caller, required(query, "workspaceId")?)?),
        routes::TASKS_GET => to_value(desktop.task_get(caller, required(query, "taskId")?)?),
        routes::TASKS_LIST => to_value(
            desktop.task_list(
                caller,
                query
                    .get("workspaceId")
                    .map(String::as_str)
                    .filter(|id| !id.is_empty()),
            )?,
        ),
        routes::TRANSCRIPT => {
            let since = since_seq(query)?;
            let limit = limit(query)?;
            match (
                query.get("taskId"),
                query.get("workspaceId"),
                query.get("sessionId"),
            ) {
                (Some(task), None, None) => {
                    to_value(desktop.transcript_task(caller, task, since, limit)?)
                }
                (None, Some(workspace), Some(session)) => {
                    to_value(desktop.transcript_session(caller, workspace, session, since, limit)?)
                }
                _ => Err(bad(
                    "give either taskId, or workspaceId and sessionId (not both, not neither)",
                )),
            }
        }
        _ => Ok(None),
    }
}

/// The POST routes but /tasks/wait; `Ok(None)` when there is no such route.
fn post(
    bridge: &Bridge,
    caller: &Caller,
    route: &str,
    bytes: &[u8],
) -> Result<Option<Value>, BridgeError> {
    match route {
        routes::TASKS_CREATE => {
            let raw: Value = parse(bytes, "tasks/create")?;
            // seed §5: the protocol never takes an arbitrary cwd; workspaceId is the only way.
            if raw.get("cwd").is_some() {
                return Err(bad(
                    "cwd is not accepted; name the workspace by workspaceId",
                ));
            }
            let request: CreateTaskRequest = parse(bytes, "tasks/create")?;
            to_value(bridge.desktop()?.create(caller, request)?)
        }
        routes::TASKS_APPEND => {
            let request: AppendRequest = parse(bytes, "tasks/append")?;
            to_value(bridge.desktop()?.append(caller, request)?)
        }
        routes::TASKS_CANCEL => {
            let request: TaskRef = parse(bytes, "tasks/cancel")?;
            to_value(bridge.desktop()?.cancel(caller, &request.task_id)?)
        }
        routes::TASKS_CLOSE => {
            let request: TaskRef = parse(bytes, "tasks/close")?;
            to_value(bridge.desktop()?.close(caller, &request.task_id)?)
        }
        routes::WORKSPACES_CREATE => {
            let request: WorkspaceCreateRequest = parse(bytes, "workspaces/create")?;
            to_value(bridge.desktop()?.workspace_create(caller, request)?)
        }
        _ => Ok(None),
    }
}

/// seed POST /tasks/wait: at once when a condition holds, else until one does or `waitMs`
/// (capped by `maxWaitMs`) passes; a timeout says `timedOut: true` and invents nothing.
async fn wait(
    bridge: Arc<Bridge>,
    caller: Caller,
    request_id: Option<String>,
    bytes: &[u8],
) -> Response {
    let request: WaitRequest = match parse(bytes, "tasks/wait") {
        Ok(request) => request,
        Err(error) => return envelope::<()>(request_id, Err(error)),
    };
    let wait_ms = request
        .wait_ms
        .unwrap_or(bridge.max_wait_ms)
        .min(bridge.max_wait_ms);
    let deadline = tokio::time::Instant::now() + Duration::from_millis(wait_ms);
    // Subscribed before the first look, so an event between the look and the wait still wakes.
    let mut signals = bridge.signals.subscribe();
    loop {
        let probe = bridge
            .desktop()
            .and_then(|desktop| desktop.wait_probe(&caller, &request));
        let (met, value) = match probe {
            Ok(probe) => probe,
            Err(error) => return envelope::<()>(request_id, Err(error)),
        };
        if met || tokio::time::Instant::now() >= deadline {
            return envelope(request_id, Ok(value));
        }
        // A timeout or any signal means: look again.
        if let Ok(Err(broadcast::error::RecvError::Closed)) =
            tokio::time::timeout_at(deadline, signals.recv()).await
        {
            return envelope(request_id, Ok(value));
        }
    }
}

/// One SSE frame as the real bridge writes it: `event: bridge`, the compact JSON, no id.
fn frame(event: &Event) -> Option<Bytes> {
    match serde_json::to_value(event) {
        Ok(mut tree) => {
            realize(&mut tree);
            Some(Bytes::from(format!(
                "event: {SSE_EVENT_NAME}\ndata: {tree}\n\n"
            )))
        }
        Err(error) => {
            tracing::error!(%error, "could not write an event");
            None
        }
    }
}

const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

struct Live {
    task_id: String,
    since: i64,
    signals: broadcast::Receiver<Arc<Signal>>,
    /// The highest seq sent: live copies at or below it were already sent from the tail; a
    /// desktop reload sends some again on purpose (at least once, SPEC D4).
    sent_through: i64,
    keep_alive: tokio::time::Interval,
    /// The stream fell too far behind: only keep-alives from now on.
    lagged: bool,
}

/// The next bytes of a live stream: a followed event, or the keep-alive comment, which comes
/// every `--keep-alive-ms` whatever else is sent (the real bridge's `setInterval`).
async fn next_live(live: &mut Live) -> Bytes {
    loop {
        if live.lagged {
            live.keep_alive.tick().await;
            return Bytes::from_static(KEEP_ALIVE);
        }
        let signal = tokio::select! {
            _ = live.keep_alive.tick() => return Bytes::from_static(KEEP_ALIVE),
            signal = live.signals.recv() => signal,
        };
        let signal = match signal {
            Ok(signal) => signal,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                // Our safety limit (the real bridge has none): events are no longer sent, the
                // client resumes by sinceSeq when it reconnects.
                tracing::info!(
                    missed,
                    "an event stream fell behind; it sends no more events"
                );
                live.lagged = true;
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => {
                live.lagged = true;
                continue;
            }
        };
        // A closed task's stream is not ended, as the real bridge's: its task sends no more
        // events, and it goes on with keep-alives until the client hangs up.
        let Signal::Event {
            task_id,
            event,
            replay,
        } = &*signal;
        if *task_id != live.task_id || event.session_seq <= live.since {
            continue;
        }
        // The bridge's own status lines repeat the last seq: always sent.
        let status = event.session_event_type == BRIDGE_STATUS;
        if !status && !replay && event.session_seq <= live.sent_through {
            continue;
        }
        live.sent_through = live.sent_through.max(event.session_seq);
        if let Some(frame) = frame(event) {
            return frame;
        }
    }
}

/// seed GET /events as the real `streamEvents`: the cached events after
/// max(sinceSeq, the tail's truncation point) (`x-bridge-truncated-before` when that moved it),
/// then live ones, `event: bridge` frames, `: keep-alive` comments, no SSE ids; never ended by
/// the bridge, not even when the task is closed. And the real quirk: the response head is held
/// until the first frame or keep-alive is written (Node sends `writeHead` lazily), so on a
/// quiet task the client waits up to the keep-alive interval for the headers.
async fn events(
    bridge: Arc<Bridge>,
    caller: Caller,
    request_id: Option<String>,
    query: &HashMap<String, String>,
) -> Response {
    let task_id = match required(query, "taskId") {
        Ok(task_id) => task_id.to_string(),
        Err(error) => return envelope::<()>(request_id, Err(error)),
    };
    let since = match since_seq(query) {
        Ok(since) => since,
        Err(error) => return envelope::<()>(request_id, Err(error)),
    };
    let signals = bridge.signals.subscribe();
    let (cached, truncated) = match bridge
        .desktop()
        .and_then(|desktop| desktop.events_start(&caller, &task_id, since))
    {
        Ok(start) => start,
        Err(error) => return envelope::<()>(request_id, Err(error)),
    };
    let since = since.max(truncated.unwrap_or(-1));
    let sent_through = cached.last().map_or(since, |e| e.session_seq.max(since));
    let mut keep_alive = tokio::time::interval_at(
        tokio::time::Instant::now() + bridge.keep_alive,
        bridge.keep_alive,
    );
    keep_alive.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut live = Live {
        task_id,
        since,
        signals,
        sent_through,
        keep_alive,
        lagged: false,
    };
    let mut replay: VecDeque<Bytes> = cached.iter().filter_map(frame).collect();
    // The head waits for the first bytes, as the real bridge's does.
    let first = match replay.pop_front() {
        Some(first) => first,
        None => next_live(&mut live).await,
    };
    let rest = futures::stream::iter(replay)
        .chain(futures::stream::unfold(live, |mut live| async move {
            Some((next_live(&mut live).await, live))
        }));
    let body = futures::stream::once(async move { first })
        .chain(rest)
        .map(Ok::<_, Infallible>);
    let mut response = Response::new(axum::body::Body::from_stream(body));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::CONNECTION, HeaderValue::from_static("keep-alive"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    if let Some(point) = truncated.and_then(|p| HeaderValue::from_str(&p.to_string()).ok()) {
        headers.insert("x-bridge-truncated-before", point);
    }
    response
}
