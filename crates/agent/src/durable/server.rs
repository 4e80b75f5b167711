//! The reference agent's HTTP face. Every request passes the same checks in the same order,
//! each with its rule: the token (SPEC T3), the path (W2, W6), the version (W3, H2, V4),
//! readiness (H3), the body (W4), the request id (Q3); only then does the world see it.
//! Sockets, TLS and connections are `listen`'s business; this file turns a request into a reply.

// Refusals travel as the wire's own `ErrorBody`, made at most once per request and sent as is;
// boxing it would cost an allocation to save a copy nobody notices.
#![allow(clippy::result_large_err)]

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Body;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use time::OffsetDateTime;

use super::faults::{Breaks, Rule};
use super::requests::{Recall, StoredReply, fingerprint};
use super::runtime::Agent;
use super::world::World;
use crate::wire::paths::PaneVerb;
use crate::wire::{
    self, AbortRequest, ActionRequest, AnswerRequest, CloseRequest, ErrorBody, ErrorCode,
    OUR_PROTOCOL, PostReply, ProtocolRange, RANGE_HEADER, Refusal, RenameRequest, ReopenRequest,
    SendRequest, SettingRequest, StarterRequest, VERSION_HEADER, limits,
};

/// How often the world is moved on when no request comes (expiries, the script, readiness).
pub(crate) const TICK_EVERY: Duration = Duration::from_millis(100);
/// A client that sends its body slower than this is cut off, so a slow sender cannot hold a
/// connection and its buffer for ever.
const BODY_DEADLINE: Duration = Duration::from_secs(10);
/// The default page sizes of the history routes when `limit` is absent.
const DEFAULT_CONVERSATIONS_LIMIT: usize = 50;
const DEFAULT_ITEMS_LIMIT: usize = 200;

/// The reply type of every route.
pub type Reply = Response<Full<Bytes>>;

/// What the agent keeps of its bearer token (SPEC T2): only a digest, so its text never sits
/// in memory longer than start-up and never appears in logs.
#[derive(Clone)]
pub struct TokenGate {
    digest: [u8; 32],
}

impl TokenGate {
    pub fn new(token: &crate::transport::Token) -> Self {
        Self {
            digest: Sha256::digest(token.expose().as_bytes()).into(),
        }
    }

    /// True when the request carries `Authorization: Bearer <token>`. Both sides are hashed
    /// first so the comparison takes the same time whatever the length or the first wrong
    /// byte (SPEC T3).
    fn admits(&self, headers: &HeaderMap) -> bool {
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.as_bytes().strip_prefix(b"Bearer "))
            .unwrap_or_default();
        let digest: [u8; 32] = Sha256::digest(presented).into();
        bool::from(digest.ct_eq(&self.digest))
    }
}

impl std::fmt::Debug for TokenGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenGate(…)")
    }
}

/// How the agent is reached, which changes what it checks and offers.
#[derive(Debug, Clone)]
pub struct Access {
    /// Some over TCP: every request must carry it (SPEC T2, T3).
    pub token: Option<TokenGate>,
    /// True behind TLS: hello never offers allow-always (SPEC A11).
    pub tls: bool,
}

/// The state every connection shares: one agent behind a mutex, held only for short
/// critical sections (never across a read or a write of the socket).
pub struct Server {
    agent: Mutex<Agent>,
    access: Access,
    /// Ranges already logged as refused, so each is logged once (SPEC V4, V5).
    refused_ranges: Mutex<HashSet<(u32, u32)>>,
    /// Rules broken on purpose (`--break`), kept here so no request locks the world to read them.
    breaks: Breaks,
}

impl Server {
    pub fn new(mut agent: Agent, access: Access) -> Arc<Self> {
        let breaks = agent.breaks();
        super::broken::lay_out_breaks(&mut agent.world, breaks.clone(), OffsetDateTime::now_utc());
        Arc::new(Self {
            agent: Mutex::new(agent),
            access,
            refused_ranges: Mutex::new(HashSet::new()),
            breaks,
        })
    }

    /// Moves the world on every [`TICK_EVERY`] until the returned task is aborted.
    pub fn spawn_ticker(self: &Arc<Self>) -> tokio::task::JoinHandle<()> {
        let server = Arc::clone(self);
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(TICK_EVERY);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                interval.tick().await;
                match server.agent() {
                    Ok(mut agent) => agent.tick(OffsetDateTime::now_utc()),
                    Err(_) => {
                        tracing::error!("the agent's world is broken; the ticker stops");
                        return;
                    }
                }
            }
        })
    }

    /// Saves the world now (with `--state`), so a stop loses nothing the phone was told.
    pub fn flush(&self) -> anyhow::Result<()> {
        let mut agent = self
            .agent()
            .map_err(|_| anyhow::anyhow!("the agent's world broke earlier and cannot be saved"))?;
        agent.flush()
    }

    /// A poisoned lock means a panic left the world half-changed: say so rather than serve it.
    fn agent(&self) -> Result<MutexGuard<'_, Agent>, ErrorBody> {
        self.agent.lock().map_err(|_| {
            ErrorBody::new(ErrorCode::Internal)
                .with_message("the agent's world broke earlier; restart the agent")
        })
    }

    /// For `--chaos` (`chaos_serve`): acts on the agent under its lock; None once it broke.
    pub fn with_agent<T>(&self, act: impl FnOnce(&mut Agent) -> T) -> Option<T> {
        self.agent().ok().map(|mut agent| act(&mut agent))
    }

    /// For `--chaos`: no chaos for a caller that gets a bare 401 (SPEC T3).
    pub fn admits(&self, headers: &HeaderMap) -> bool {
        self.access.token.as_ref().is_none_or(|t| t.admits(headers))
    }

    /// Answers one request. Never fails: every problem is a JSON error reply (SPEC W6).
    pub async fn handle<B>(
        self: Arc<Self>,
        request: Request<B>,
    ) -> Result<Reply, std::convert::Infallible>
    where
        B: Body<Data = Bytes> + Send,
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        let reply = match self.serve(request).await {
            Ok(reply) => reply,
            Err(error) => error_reply(&error),
        };
        Ok(reply)
    }

    async fn serve<B>(&self, request: Request<B>) -> Result<Reply, ErrorBody>
    where
        B: Body<Data = Bytes> + Send,
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        // `--break T3`: the path is judged before the token.
        if self.breaks.has(Rule::T3) {
            self.route_of(&request)?;
        }
        // SPEC T3: the token comes before everything else, and a refusal says nothing more.
        if let Some(token) = &self.access.token
            && !token.admits(request.headers())
        {
            return Ok(unauthorized());
        }
        let route = self.route_of(&request)?;
        let now = OffsetDateTime::now_utc();
        // Hello is the one route that needs no version and answers while not ready (SPEC H2, H3).
        if route != Route::Hello {
            self.check_version(request.headers())?;
            let mut agent = self.agent()?;
            agent.tick(now);
            if !agent.world.ready && !self.breaks.has(Rule::H3) {
                return Err(ErrorBody::new(ErrorCode::Starting)
                    .with_message("the agent is laying out its panes"));
            }
        }
        let query = request.uri().query().unwrap_or_default().to_string();
        let path = request.uri().path().to_string();
        match route {
            Route::Hello => self.hello(request.headers(), now),
            Route::Snapshot => self.snapshot(request.headers()),
            Route::Events { pane } => self.events(&pane, &query),
            Route::Conversations => self.conversations(&query),
            Route::ConversationItems { conversation } => {
                self.conversation_items(&conversation, &query)
            }
            Route::Post(post) => {
                let body = read_body(request).await.map_err(|error| {
                    if self.breaks.has(Rule::W4) && error.code == ErrorCode::TooLarge {
                        bad_request("the request body is too long")
                    } else {
                        error
                    }
                })?;
                self.post(&post, &path, body)
            }
        }
    }

    /// The route of a request (SPEC W2, W6), or `404 not-found`.
    fn route_of<B>(&self, request: &Request<B>) -> Result<Route, ErrorBody> {
        let path = request.uri().path();
        let route = Route::parse(request.method(), path).or_else(|| {
            // `--break W2`: the routes are served without their prefix too.
            let unprefixed = self.breaks.has(Rule::W2) && !path.starts_with(wire::paths::PREFIX);
            unprefixed
                .then(|| Route::parse(request.method(), &format!("{}{path}", wire::paths::PREFIX)))
                .flatten()
        });
        match route {
            Some(route) => Ok(route),
            // `--break W6`: an unknown route is called a bad request.
            None if self.breaks.has(Rule::W6) => Err(bad_request("no such route")),
            None => Err(ErrorBody::new(ErrorCode::NotFound).with_message("no such route")),
        }
    }

    /// `GET /hello` (SPEC H1, H2); with a version outside our range it is the telling hello
    /// of SPEC V4.
    fn hello(&self, headers: &HeaderMap, now: OffsetDateTime) -> Result<Reply, ErrorBody> {
        if headers.contains_key(VERSION_HEADER) {
            self.check_version(headers)?;
        }
        let mut agent = self.agent()?;
        agent.tick(now);
        let mut hello = agent.world.hello(self.access.tls);
        drop(agent);
        if self.breaks.has(Rule::H1) {
            hello.service = format!("{}-reference", wire::SERVICE);
        }
        Ok(json_reply(StatusCode::OK, &hello))
    }

    /// SPEC W3, H2, V4: the chosen version must be present and one we speak.
    fn check_version(&self, headers: &HeaderMap) -> Result<(), ErrorBody> {
        let version = headers
            .get(VERSION_HEADER)
            .and_then(|value| value.to_str().ok())
            .and_then(|text| text.trim().parse::<u32>().ok())
            .ok_or_else(|| {
                ErrorBody::new(ErrorCode::VersionRequired)
                    .with_message(format!("send the chosen version in {VERSION_HEADER}"))
            })?;
        if OUR_PROTOCOL.contains(version) {
            return Ok(());
        }
        let collie = headers
            .get(RANGE_HEADER)
            .and_then(|value| value.to_str().ok())
            .and_then(wire::parse_range)
            .unwrap_or(ProtocolRange {
                min: version,
                max: version,
            });
        self.log_refused(collie);
        let mut body = ErrorBody::new(ErrorCode::Incompatible).with_message(format!(
            "this agent speaks {OUR_PROTOCOL}, the caller {collie}"
        ));
        // `--break V4`: the refusal is left out.
        if !self.breaks.has(Rule::V4) {
            body.refusal = Some(Refusal {
                agent: OUR_PROTOCOL,
                collie,
            });
        }
        Err(body)
    }

    fn log_refused(&self, collie: ProtocolRange) {
        let first_time = match self.refused_ranges.lock() {
            Ok(mut seen) => seen.insert((collie.min, collie.max)),
            Err(_) => true,
        };
        if first_time {
            tracing::warn!(agent = %OUR_PROTOCOL, collie = %collie, "refused a caller whose wire versions do not meet ours");
        }
    }

    /// `GET /snapshot` with its ETag (SPEC H4, T5).
    fn snapshot(&self, headers: &HeaderMap) -> Result<Reply, ErrorBody> {
        let agent = self.agent()?;
        let mut etag = agent.world.etag();
        if self.breaks.has(Rule::H4)
            && let Some((_, rev)) = wire::parse_etag(&etag)
        {
            etag = format!("\"{rev}\"");
        }
        let unchanged = headers
            .get(header::IF_NONE_MATCH)
            .and_then(|value| value.to_str().ok())
            // `--break T5`: a weakened tag never matches.
            .filter(|seen| !(self.breaks.has(Rule::T5) && seen.contains("W/")))
            .is_some_and(|seen| wire::if_none_match_hits(seen, &etag));
        if unchanged {
            drop(agent);
            let mut reply = Response::new(Full::new(Bytes::new()));
            *reply.status_mut() = StatusCode::NOT_MODIFIED;
            insert_etag(&mut reply, &etag);
            return Ok(reply);
        }
        let snapshot = agent.world.snapshot();
        drop(agent);
        let mut reply = json_reply(StatusCode::OK, &snapshot);
        insert_etag(&mut reply, &etag);
        Ok(reply)
    }

    /// `GET /pane/:id/events?after=N&epoch=E` (SPEC W5, H5).
    fn events(&self, pane: &str, query: &str) -> Result<Reply, ErrorBody> {
        let pane = path_id(pane)?;
        let after = match query_param(query, "after")? {
            None => 0,
            Some(text) => text.parse::<u64>().map_err(|_| {
                bad_request("after is the cursor of the last events reply, a whole number")
            })?,
        };
        let epoch = query_param(query, "epoch")?;
        let reply = self.agent()?.world.events(&pane, after, epoch.as_deref())?;
        Ok(json_reply(StatusCode::OK, &reply))
    }

    /// `GET /conversations?after=C&limit=N` (SPEC W5).
    fn conversations(&self, query: &str) -> Result<Reply, ErrorBody> {
        let after = history_cursor(query)?;
        let limit = page_limit(query, DEFAULT_CONVERSATIONS_LIMIT)?;
        let page = self.agent()?.world.conversations(after.as_deref(), limit)?;
        Ok(json_reply(StatusCode::OK, &page))
    }

    /// `GET /conversation/:id/items?after=C&limit=N` (SPEC W5).
    fn conversation_items(&self, conversation: &str, query: &str) -> Result<Reply, ErrorBody> {
        let conversation = path_id(conversation)?;
        let after = history_cursor(query)?;
        let limit = page_limit(query, DEFAULT_ITEMS_LIMIT)?;
        let page =
            self.agent()?
                .world
                .conversation_items(&conversation, after.as_deref(), limit)?;
        Ok(json_reply(StatusCode::OK, &page))
    }

    /// Every POST: decode, then the request-id memory of SPEC Q3, then the world.
    fn post(&self, post: &PostRoute, path: &str, body: Value) -> Result<Reply, ErrorBody> {
        let request_id = request_id(&body)?;
        if self.breaks.has(Rule::V2) {
            refuse_unknown_fields(&body)?;
        }
        let with_id = |mut error: ErrorBody| {
            error.request_id = Some(request_id.clone());
            error
        };
        let call = PostCall::decode(post, &body).map_err(with_id)?;
        let print = fingerprint(path, &body);
        let mut agent = self.agent()?;
        match agent.world.requests.recall(&request_id, &print) {
            Recall::Replay(mut stored) => {
                drop(agent);
                if self.breaks.has(Rule::Q3)
                    && let Value::Object(map) = &mut stored.body
                {
                    map.remove("replayed");
                }
                let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
                Ok(json_reply(status, &stored.body))
            }
            Recall::Reused => Err(with_id(
                ErrorBody::new(ErrorCode::RequestIdReused)
                    .with_message("this request id was used for another request"),
            )),
            Recall::New => {
                let now = OffsetDateTime::now_utc();
                let (status, reply_body) = match call.run(&mut agent.world, now) {
                    Ok(reply) => (StatusCode::OK.as_u16(), to_value(&reply)?),
                    Err(error) => {
                        let error = with_id(error);
                        (error.code.status(), to_value(&error)?)
                    }
                };
                agent.world.requests.remember(
                    &request_id,
                    print,
                    StoredReply {
                        status,
                        body: reply_body.clone(),
                    },
                );
                agent.tick(now);
                drop(agent);
                let status =
                    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                Ok(json_reply(status, &reply_body))
            }
        }
    }
}

/// The routes of SPEC W5, recognised by method and path alone (SPEC W2, W6). Path ids are
/// kept as sent and checked later, after the version and readiness.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Route {
    Hello,
    Snapshot,
    Events { pane: String },
    Conversations,
    ConversationItems { conversation: String },
    Post(PostRoute),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum PostRoute {
    Answer { pane: String },
    Send { pane: String },
    Abort { pane: String },
    Action { pane: String },
    Setting { pane: String },
    Rename,
    Close,
    Starter { starter: String },
    Reopen,
}

impl Route {
    fn parse(method: &Method, path: &str) -> Option<Self> {
        let rest = path.strip_prefix(wire::paths::PREFIX)?.strip_prefix('/')?;
        let segments: Vec<&str> = rest.split('/').collect();
        if segments.iter().any(|segment| segment.is_empty()) {
            return None;
        }
        let owned = |segment: &str| segment.to_string();
        let route = match (method, segments.as_slice()) {
            (&Method::GET, ["hello"]) => Self::Hello,
            (&Method::GET, ["snapshot"]) => Self::Snapshot,
            (&Method::GET, ["pane", pane, "events"]) => Self::Events { pane: owned(pane) },
            (&Method::GET, ["conversations"]) => Self::Conversations,
            (&Method::GET, ["conversation", id, "items"]) => Self::ConversationItems {
                conversation: owned(id),
            },
            (&Method::POST, ["pane", pane, verb]) => {
                let pane = owned(pane);
                Self::Post(match PaneVerb::parse(verb)? {
                    PaneVerb::Answer => PostRoute::Answer { pane },
                    PaneVerb::Send => PostRoute::Send { pane },
                    PaneVerb::Abort => PostRoute::Abort { pane },
                    PaneVerb::Action => PostRoute::Action { pane },
                    PaneVerb::Setting => PostRoute::Setting { pane },
                })
            }
            (&Method::POST, ["rename"]) => Self::Post(PostRoute::Rename),
            (&Method::POST, ["close"]) => Self::Post(PostRoute::Close),
            (&Method::POST, ["starter", starter]) => Self::Post(PostRoute::Starter {
                starter: owned(starter),
            }),
            (&Method::POST, ["reopen"]) => Self::Post(PostRoute::Reopen),
            _ => return None,
        };
        Some(route)
    }
}

/// A decoded POST, ready to run against the world.
enum PostCall {
    Answer(String, AnswerRequest),
    Send(String, SendRequest),
    Abort(String, AbortRequest),
    Action(String, ActionRequest),
    Setting(String, SettingRequest),
    Rename(RenameRequest),
    Close(CloseRequest),
    Starter(String, StarterRequest),
    Reopen(ReopenRequest),
}

impl PostCall {
    fn decode(route: &PostRoute, body: &Value) -> Result<Self, ErrorBody> {
        Ok(match route {
            PostRoute::Answer { pane } => Self::Answer(path_id(pane)?, typed(body)?),
            PostRoute::Send { pane } => Self::Send(path_id(pane)?, typed(body)?),
            PostRoute::Abort { pane } => Self::Abort(path_id(pane)?, typed(body)?),
            PostRoute::Action { pane } => Self::Action(path_id(pane)?, typed(body)?),
            PostRoute::Setting { pane } => Self::Setting(path_id(pane)?, typed(body)?),
            PostRoute::Rename => Self::Rename(typed(body)?),
            PostRoute::Close => Self::Close(typed(body)?),
            PostRoute::Starter { starter } => Self::Starter(path_id(starter)?, typed(body)?),
            PostRoute::Reopen => Self::Reopen(typed(body)?),
        })
    }

    fn run(&self, world: &mut World, now: OffsetDateTime) -> Result<PostReply, ErrorBody> {
        match self {
            Self::Answer(pane, request) => world.answer(pane, request, now),
            Self::Send(pane, request) => world.send(pane, request, now),
            Self::Abort(pane, request) => world.abort(pane, request, now),
            Self::Action(pane, request) => world.action(pane, request, now),
            Self::Setting(pane, request) => world.choose_setting(pane, request, now),
            Self::Rename(request) => world.rename(request),
            Self::Close(request) => world.close(request, now),
            Self::Starter(starter, request) => world.run_starter(starter, &request.request_id, now),
            Self::Reopen(request) => world.reopen(request, now),
        }
    }
}

/// Reads a POST body as SPEC W4 says: at most 64 KiB (refused by its declared length before a
/// byte is read, and capped while reading), empty means `{}`, and it must be a JSON object.
async fn read_body<B>(request: Request<B>) -> Result<Value, ErrorBody>
where
    B: Body<Data = Bytes> + Send,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let too_large = || {
        ErrorBody::new(ErrorCode::TooLarge).with_message(format!(
            "a request body is at most {} bytes",
            limits::MAX_REQUEST_BODY
        ))
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > limits::MAX_REQUEST_BODY as u64) {
        return Err(too_large());
    }
    let limited = Limited::new(request.into_body(), limits::MAX_REQUEST_BODY);
    let collected = match tokio::time::timeout(BODY_DEADLINE, limited.collect()).await {
        Err(_) => return Err(bad_request("the request body did not arrive in time")),
        Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => return Err(too_large()),
        Ok(Err(_)) => return Err(bad_request("the request body could not be read")),
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    if collected.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    match serde_json::from_slice::<Value>(&collected) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err(bad_request("the request body must be one JSON object")),
        Err(error) => Err(bad_request(format!(
            "the request body is not JSON: {error}"
        ))),
    }
}

/// `--break V2`: a body field no route of version 1 has is refused, as a strict reader would.
fn refuse_unknown_fields(body: &Value) -> Result<(), ErrorBody> {
    const KNOWN: &[&str] = &[
        "requestId",
        "askId",
        "revision",
        "answer",
        "turnId",
        "text",
        "buttonId",
        "kind",
        "id",
        "title",
        "conversationId",
    ];
    let unknown = body
        .as_object()
        .and_then(|map| map.keys().find(|key| !KNOWN.contains(&key.as_str())));
    match unknown {
        Some(key) => Err(bad_request(format!("unknown field `{key}`"))),
        None => Ok(()),
    }
}

/// Every POST carries a request id (SPEC Q1), itself an id of SPEC L.
fn request_id(body: &Value) -> Result<String, ErrorBody> {
    match body.get("requestId") {
        None | Some(Value::Null) => Err(bad_request("requestId is required: one id per intent")),
        Some(Value::String(id)) => {
            wire::check_id(id).map_err(|why| bad_request(format!("requestId: {why}")))?;
            Ok(id.clone())
        }
        Some(_) => Err(bad_request("requestId must be a string")),
    }
}

fn typed<T: DeserializeOwned>(body: &Value) -> Result<T, ErrorBody> {
    T::deserialize(body)
        .map_err(|error| bad_request(format!("the request body does not fit this route: {error}")))
}

/// A path segment as an id: percent-decoded, then checked against SPEC L. An id that is not
/// one cannot name anything, so it is refused as a bad request rather than looked up.
fn path_id(segment: &str) -> Result<String, ErrorBody> {
    let id =
        percent_decode(segment).ok_or_else(|| bad_request("the path holds a broken %-escape"))?;
    wire::check_id(&id)
        .map_err(|why| bad_request(format!("the id in the path is not usable: {why}")))?;
    Ok(id)
}

/// The first value of `name` in a query string, percent-decoded.
fn query_param(query: &str, name: &str) -> Result<Option<String>, ErrorBody> {
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if key == name {
            return percent_decode(value)
                .map(Some)
                .ok_or_else(|| bad_request(format!("{name} holds a broken %-escape")));
        }
    }
    Ok(None)
}

fn history_cursor(query: &str) -> Result<Option<String>, ErrorBody> {
    let after = query_param(query, "after")?;
    if let Some(cursor) = &after
        && !wire::check_cursor(cursor)
    {
        return Err(bad_request(
            "after is 1–512 bytes of printable ASCII without spaces",
        ));
    }
    Ok(after)
}

fn page_limit(query: &str, default: usize) -> Result<usize, ErrorBody> {
    match query_param(query, "limit")? {
        None => Ok(default),
        Some(text) => text
            .parse::<usize>()
            .map_err(|_| bad_request("limit is a whole number")),
    }
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let high = (*bytes.get(index + 1)? as char).to_digit(16)?;
            let low = (*bytes.get(index + 2)? as char).to_digit(16)?;
            out.push((high * 16 + low) as u8);
            index += 3;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn bad_request(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorCode::BadRequest).with_message(message)
}

fn to_value<T: Serialize>(value: &T) -> Result<Value, ErrorBody> {
    serde_json::to_value(value).map_err(|error| {
        ErrorBody::new(ErrorCode::Internal).with_message(format!("a reply did not encode: {error}"))
    })
}

fn insert_etag(reply: &mut Reply, etag: &str) {
    if let Ok(value) = HeaderValue::from_str(etag) {
        reply.headers_mut().insert(header::ETAG, value);
    }
}

/// SPEC T3: exactly this body and nothing else, whatever else was wrong with the request.
fn unauthorized() -> Reply {
    raw_json_reply(
        StatusCode::UNAUTHORIZED,
        Bytes::from_static(br#"{"code":"unauthorized"}"#),
    )
}

/// An error as the agent answers it: the status its code stands for (WIRE § 6), the body as JSON.
pub fn error_reply(error: &ErrorBody) -> Reply {
    let status =
        StatusCode::from_u16(error.code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_reply(status, error)
}

fn json_reply<T: Serialize + ?Sized>(status: StatusCode, body: &T) -> Reply {
    match serde_json::to_vec(body) {
        Ok(bytes) => raw_json_reply(status, Bytes::from(bytes)),
        Err(error) => {
            tracing::error!(%error, "a reply did not encode");
            raw_json_reply(
                StatusCode::INTERNAL_SERVER_ERROR,
                Bytes::from_static(br#"{"code":"internal"}"#),
            )
        }
    }
}

fn raw_json_reply(status: StatusCode, body: Bytes) -> Reply {
    let mut reply = Response::new(Full::new(body));
    *reply.status_mut() = status;
    reply.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    reply
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn w2_w6_routes_by_method_and_path() {
        assert_eq!(
            Route::parse(&Method::GET, "/session/v1/hello"),
            Some(Route::Hello)
        );
        assert_eq!(
            Route::parse(&Method::GET, "/session/v1/pane/p-1/events"),
            Some(Route::Events { pane: "p-1".into() })
        );
        assert_eq!(
            Route::parse(&Method::POST, "/session/v1/pane/p-1/abort"),
            Some(Route::Post(PostRoute::Abort { pane: "p-1".into() }))
        );
        for (method, path) in [
            (Method::POST, "/session/v1/hello"),
            (Method::GET, "/session/v1/pane/p-1/answer"),
            (Method::GET, "/hello"),
            (Method::GET, "/session/v1/hello/"),
            (Method::GET, "/session/v1//hello"),
            (Method::GET, "/session/v2/hello"),
            (Method::POST, "/session/v1/pane/p-1/explode"),
            (Method::DELETE, "/session/v1/snapshot"),
        ] {
            assert_eq!(Route::parse(&method, path), None, "{method} {path}");
        }
    }

    #[test]
    fn t3_bearer_check() {
        let text = "t".repeat(32);
        let token = TokenGate::new(&crate::transport::Token::new(&text).expect("a good token"));
        let mut headers = HeaderMap::new();
        assert!(!token.admits(&headers));
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(&format!("Bearer {text}")).expect("header"),
        );
        assert!(token.admits(&headers));
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(&format!("Bearer {text}x")).expect("header"),
        );
        assert!(!token.admits(&headers));
        assert_eq!(format!("{token:?}"), "TokenGate(…)");
    }

    #[test]
    fn l_path_ids_are_percent_decoded_and_checked() {
        assert_eq!(
            percent_decode("%E5%B7%A5%E4%BD%9C").as_deref(),
            Some("工作")
        );
        assert_eq!(percent_decode("a%2"), None);
        assert!(path_id("p-1").is_ok());
        assert!(path_id("a%2Fb").is_err());
        assert!(path_id("a%20b").is_err());
    }

    #[test]
    fn q1_request_id_required_and_checked() {
        assert!(request_id(&serde_json::json!({})).is_err());
        assert!(request_id(&serde_json::json!({"requestId": 7})).is_err());
        assert!(request_id(&serde_json::json!({"requestId": "a b"})).is_err());
        assert_eq!(
            request_id(&serde_json::json!({"requestId": "r-1"}))
                .ok()
                .as_deref(),
            Some("r-1")
        );
    }

    #[test]
    fn w5_query_params() {
        assert_eq!(
            query_param("after=3&epoch=e1", "epoch")
                .ok()
                .flatten()
                .as_deref(),
            Some("e1")
        );
        assert_eq!(query_param("after=3", "epoch").ok().flatten(), None);
        assert!(page_limit("limit=x", 5).is_err());
        assert_eq!(page_limit("", 5).ok(), Some(5));
        assert!(history_cursor("after=a%20b").is_err());
    }
}
