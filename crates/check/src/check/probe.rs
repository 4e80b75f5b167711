//! The check's one way to talk to an agent: the phone's own transport (deadlines, reply caps,
//! the socket's privacy check, the token), driven synchronously so a rule is a plain function.
//! Over TCP it can also send a request without the token or with a wrong one (SPEC T3), which
//! the transport never does on purpose.

use std::cell::Cell;
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::Value;

use crate::transport::{Endpoint, Method, Reply, Request, RouteClass, Token, TransportError};
use crate::wire::{self, Hello, OUR_PROTOCOL, VERSION_HEADER, limits, paths};

/// One request as a rule wants it sent. Build it with [`Probe::get`]-style helpers or by hand.
#[derive(Debug, Clone)]
pub struct ProbeRequest {
    pub(crate) method: Method,
    /// The whole path, `/session/v1/...` and any query (see `wire::paths`).
    pub(crate) path: String,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) body: Option<Vec<u8>>,
    /// Sends `X-Collie-Session` with the chosen version (SPEC W3); on unless turned off.
    pub(crate) with_version: bool,
}

impl ProbeRequest {
    pub(crate) fn get(path: impl Into<String>) -> Self {
        Self {
            method: Method::Get,
            path: path.into(),
            headers: Vec::new(),
            body: None,
            with_version: true,
        }
    }

    /// A POST with exactly these bytes as its body (they need not be JSON).
    pub(crate) fn post_bytes(path: impl Into<String>, body: Vec<u8>) -> Self {
        Self {
            method: Method::Post,
            path: path.into(),
            headers: Vec::new(),
            body: Some(body),
            with_version: true,
        }
    }

    pub(crate) fn post_json(path: impl Into<String>, body: &Value) -> Self {
        Self::post_bytes(path, body.to_string().into_bytes())
    }

    pub(crate) fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    pub(crate) fn without_version(mut self) -> Self {
        self.with_version = false;
        self
    }

    /// `GET /session/v1/snapshot` says what it is in a finding: method and path.
    pub(crate) fn describe(&self) -> String {
        let body = match &self.body {
            Some(body) if body.is_empty() => " with an empty body".to_string(),
            Some(body) if body.len() > 200 => format!(" with a {}-byte body", body.len()),
            Some(body) => format!(" with {}", String::from_utf8_lossy(body)),
            None => String::new(),
        };
        let headers: String = self
            .headers
            .iter()
            .map(|(name, value)| format!(" ({name}: {value})"))
            .collect();
        format!("{} {}{headers}{body}", self.method.as_str(), self.path)
    }

    fn class(&self) -> RouteClass {
        match self.method {
            Method::Get => RouteClass::Read,
            Method::Post
                if self
                    .path
                    .starts_with(&format!("{}/starter/", paths::PREFIX)) =>
            {
                RouteClass::Starter
            }
            Method::Post => RouteClass::Write,
        }
    }

    /// The most of the reply the phone reads on this route (SPEC W5); unknown paths get the
    /// smallest cap, since only an error is expected there.
    fn reply_cap(&self) -> usize {
        let route = self
            .path
            .split('?')
            .next()
            .unwrap_or_default()
            .strip_prefix(paths::PREFIX)
            .unwrap_or_default();
        match self.method {
            Method::Post => limits::MAX_POST_REPLY,
            Method::Get if route == "/hello" => limits::MAX_HELLO_REPLY,
            Method::Get if route == "/snapshot" => limits::MAX_SNAPSHOT_REPLY,
            Method::Get if route == "/conversations" => limits::MAX_CONVERSATIONS_REPLY,
            Method::Get if route.ends_with("/events") => limits::MAX_EVENTS_REPLY,
            Method::Get if route.ends_with("/items") => limits::MAX_ITEMS_REPLY,
            Method::Get => limits::MAX_HELLO_REPLY,
        }
    }
}

/// What came back: status, ETag and the body as read.
#[derive(Debug, Clone)]
pub struct Answer {
    pub(crate) status: u16,
    pub(crate) etag: Option<String>,
    pub(crate) body: Bytes,
}

impl Answer {
    fn from_reply(reply: Reply) -> Self {
        Self {
            status: reply.status,
            etag: reply.etag,
            body: reply.body,
        }
    }

    /// The body as JSON, when it is.
    pub(crate) fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The body's `code`, when it is a JSON object with a string `code` (SPEC W6).
    pub(crate) fn code(&self) -> Option<String> {
        self.json()?.get("code")?.as_str().map(str::to_string)
    }

    /// True when the status is `status` and the body's code is `code`.
    pub(crate) fn is(&self, status: u16, code: &str) -> bool {
        self.status == status && self.code().as_deref() == Some(code)
    }

    /// `413 too-large`, or the status and the start of the body when it has no code:
    /// what a finding quotes as "what came back".
    pub(crate) fn describe(&self) -> String {
        match self.code() {
            Some(code) => format!("{} {code}", self.status),
            None if self.body.is_empty() => format!("{} with an empty body", self.status),
            None => {
                let text = String::from_utf8_lossy(&self.body);
                let cut: String = text.chars().take(120).collect();
                let more = if cut.len() < text.len() { "…" } else { "" };
                format!("{} {cut}{more}", self.status)
            }
        }
    }
}

/// Why the check could not start at all (the command exits 2).
#[derive(Debug, thiserror::Error)]
pub enum Unreachable {
    #[error("no reply to GET /session/v1/hello from {agent}: {why}")]
    NoReply { agent: String, why: TransportError },
    #[error(
        "{agent} refused the token: GET /session/v1/hello got {status}; check --token-file (docs/SPEC.md § TLS and the token)"
    )]
    TokenRefused { agent: String, status: u16 },
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot set up the requests without a token: {0}")]
    Client(String),
}

/// Over TCP: how to send what the phone's transport never sends: no token or a wrong one
/// (SPEC T3), or a path outside `/session/v1` (SPEC W2), which needs the real token.
struct Bare {
    base: String,
    client: reqwest::Client,
    token: Option<Token>,
}

/// A connection to one agent for the length of a check: its hello, the version chosen from
/// it, and whether rules may change the agent's state.
pub struct Probe {
    runtime: tokio::runtime::Runtime,
    endpoint: Endpoint,
    bare: Option<Bare>,
    hello_answer: Answer,
    hello: Option<Hello>,
    version: u32,
    allow_writes: bool,
    run_tag: String,
    next_id: Cell<u64>,
}

impl Probe {
    /// Reads the first hello (without a version header, SPEC H2). Fails only when nothing
    /// usable came back: no reply at all, or the token was refused. `token` is the one the
    /// endpoint carries, when known: without it over TCP, paths outside `/session/v1` cannot
    /// be tried.
    pub fn connect(
        endpoint: Endpoint,
        token: Option<Token>,
        allow_writes: bool,
    ) -> Result<Self, Unreachable> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(Unreachable::Runtime)?;
        let bare = match &endpoint {
            Endpoint::Tls(tls) => Some(Bare {
                base: tls.base.clone(),
                client: bare_client()?,
                token,
            }),
            Endpoint::Socket(_) => None,
        };
        let run_tag = format!("check-{:08x}", rand::random::<u32>());
        let mut probe = Self {
            runtime,
            endpoint,
            bare,
            hello_answer: Answer {
                status: 0,
                etag: None,
                body: Bytes::new(),
            },
            hello: None,
            version: OUR_PROTOCOL.max,
            allow_writes,
            run_tag,
            next_id: Cell::new(0),
        };
        probe.read_hello()?;
        Ok(probe)
    }

    /// Reads hello again (e.g. while waiting for `ready`), keeping what it says.
    pub(crate) fn read_hello(&mut self) -> Result<(), Unreachable> {
        let request = ProbeRequest::get(paths::hello()).without_version();
        let answer = self
            .exchange(&request)
            .map_err(|why| Unreachable::NoReply {
                agent: self.endpoint.describe(),
                why,
            })?;
        if matches!(answer.status, 401 | 403) {
            return Err(Unreachable::TokenRefused {
                agent: self.endpoint.describe(),
                status: answer.status,
            });
        }
        self.hello = match answer.status {
            200 => wire::decode::<Hello>(&answer.body)
                .ok()
                .map(|decoded| decoded.value),
            _ => None,
        };
        if let Some(hello) = &self.hello
            && let Some(version) = OUR_PROTOCOL.highest_common(hello.protocol)
        {
            self.version = version;
        }
        self.hello_answer = answer;
        Ok(())
    }

    /// The agent's hello as decoded, or None when it was not a usable `collie-durable` hello.
    pub(crate) fn hello(&self) -> Option<&Hello> {
        self.hello
            .as_ref()
            .filter(|hello| hello.service == wire::SERVICE)
    }

    /// The first hello's reply exactly as it came.
    pub(crate) fn hello_answer(&self) -> &Answer {
        &self.hello_answer
    }

    /// The version chosen from hello (SPEC H2), sent in `X-Collie-Session`.
    pub(crate) fn version(&self) -> u32 {
        self.version
    }

    /// True when rules may change the agent's state (`--allow-writes`).
    pub(crate) fn allow_writes(&self) -> bool {
        self.allow_writes
    }

    /// True over TCP (https or loopback http), where a token guards the agent.
    pub(crate) fn is_tcp(&self) -> bool {
        self.endpoint.is_tls()
    }

    /// Where the agent is, for the report (never the token).
    pub(crate) fn describe(&self) -> String {
        self.endpoint.describe()
    }

    /// A request id no earlier request of this run used (SPEC Q1).
    pub(crate) fn request_id(&self) -> String {
        let next = self.next_id.get() + 1;
        self.next_id.set(next);
        format!("{}-{next}", self.run_tag)
    }

    /// An id that names nothing on any agent, for "unknown pane" and the like.
    pub(crate) fn unknown_id(&self) -> String {
        format!("{}-nothing", self.run_tag)
    }

    /// Sends one request as the phone would (token included over TCP). A GET that gets no
    /// reply is tried once more, since reading twice is harmless; a POST never is (SPEC Q4).
    pub(crate) fn send(&self, request: &ProbeRequest) -> Result<Answer, String> {
        if let Some(bare) = &self.bare
            && !request.path.starts_with(paths::PREFIX)
        {
            // The phone's transport only sends paths under the prefix; this one goes around it.
            let Some(token) = &bare.token else {
                return Err(format!(
                    "{} was not sent: the agent's token is not known here (give --token-file)",
                    request.describe()
                ));
            };
            return self
                .send_with_token(request, Some(token.expose()))
                .unwrap_or_else(|| Err("no TCP access".to_string()));
        }
        let first = self.exchange(request);
        let answer = match first {
            Err(error)
                if request.method == Method::Get
                    && !matches!(error, TransportError::TooLarge(_)) =>
            {
                self.exchange(request)
            }
            other => other,
        };
        answer.map_err(|error| format!("{} got no reply: {error}", request.describe()))
    }

    pub(crate) fn get(&self, path: impl Into<String>) -> Result<Answer, String> {
        self.send(&ProbeRequest::get(path))
    }

    /// The snapshot as raw JSON, with its reply (for the ETag).
    pub(crate) fn snapshot(&self) -> Result<(Answer, Value), String> {
        let answer = self.get(paths::snapshot())?;
        if answer.status != 200 {
            return Err(format!(
                "GET {} got {}, expected 200 with the layout",
                paths::snapshot(),
                answer.describe()
            ));
        }
        let value = answer
            .json()
            .ok_or_else(|| format!("GET {} got a body that is not JSON", paths::snapshot()))?;
        Ok((answer, value))
    }

    /// Over TCP, sends `request` with no `Authorization` header, or with `Bearer <token>` when
    /// a token is given. None over a socket, which has no token (SPEC S5).
    pub(crate) fn send_with_token(
        &self,
        request: &ProbeRequest,
        token: Option<&str>,
    ) -> Option<Result<Answer, String>> {
        let bare = self.bare.as_ref()?;
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
        };
        let mut builder = bare
            .client
            .request(method, format!("{}{}", bare.base, request.path))
            .timeout(self.endpoint.deadline(request.class()));
        if let Some(token) = token {
            // SPEC T11: over plain HTTP to this machine, another user's port gets no token.
            if let Ok(base) = reqwest::Url::parse(&bare.base)
                && let Err(refused) = crate::transport::port_owner::check_url(&base)
            {
                return Some(Err(refused.to_string()));
            }
            builder = builder.header(reqwest::header::AUTHORIZATION, format!("Bearer {token}"));
        }
        if request.with_version {
            builder = builder.header(VERSION_HEADER, self.version.to_string());
        }
        for (name, value) in &request.headers {
            builder = builder.header(*name, value);
        }
        if let Some(body) = &request.body {
            builder = builder.body(body.clone());
        }
        let cap = request.reply_cap();
        let result = self.runtime.block_on(async move {
            let response = builder.send().await.map_err(|e| e.to_string())?;
            let status = response.status().as_u16();
            let etag = response
                .headers()
                .get(reqwest::header::ETAG)
                .and_then(|value| value.to_str().ok())
                .map(str::to_string);
            let body = response.bytes().await.map_err(|e| e.to_string())?;
            if body.len() > cap {
                return Err(format!("the reply is larger than {cap} bytes"));
            }
            Ok(Answer { status, etag, body })
        });
        Some(result.map_err(|why| format!("{} got no reply: {why}", request.describe())))
    }

    /// Waits up to `patience` until hello says ready (SPEC H3), reading it every 100 ms.
    pub(crate) fn wait_until_ready(&mut self, patience: Duration) -> Result<bool, Unreachable> {
        let until = Instant::now() + patience;
        loop {
            if self.hello.as_ref().is_some_and(|hello| hello.ready) {
                return Ok(true);
            }
            if Instant::now() >= until {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(100));
            self.read_hello()?;
        }
    }

    fn exchange(&self, request: &ProbeRequest) -> Result<Answer, TransportError> {
        let mut headers = request.headers.clone();
        if request.with_version {
            headers.push((VERSION_HEADER, self.version.to_string()));
        }
        let wire_request = Request {
            method: request.method,
            path: request.path.clone(),
            headers,
            body: request.body.clone(),
            class: request.class(),
            reply_cap: request.reply_cap(),
        };
        self.runtime
            .block_on(self.endpoint.exchange(&wire_request))
            .map(Answer::from_reply)
    }
}

/// A client for the requests that carry no token or a wrong one. It trusts any certificate:
/// those requests carry no secret, and the phone's own transport has already checked the
/// agent's certificate by the time they are sent.
fn bare_client() -> Result<reqwest::Client, Unreachable> {
    // The phone's transport installs the same provider; whichever comes first wins.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .http1_only()
        .tls_danger_accept_invalid_certs(true)
        .build()
        .map_err(|error| Unreachable::Client(error.to_string()))
}
