//! One call to the bridge (seed §1, SPEC D1, D2): the bearer token on every request, the
//! envelope read and cleaned, the error code kept with its status. The token is never logged:
//! it lives only in the `Authorization` header, and [`Token`]'s Debug hides it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;

use super::base::BridgeUrl;
use crate::dsh_wire::{self as wire, BridgeError, ErrorCode, Sanitize};
use crate::engine::observer::Observer;
use crate::transport::Token;
use crate::transport::port_owner::CheckPortLayer;
use crate::transport::tls::install_crypto_provider;

/// Deadline of a read (health, lists, a transcript page), connect to last byte.
pub(crate) const READ_DEADLINE: Duration = Duration::from_secs(15);
/// Deadline of a POST; the bridge answers 504 bridge/timeout itself when the host is slow.
pub(crate) const WRITE_DEADLINE: Duration = Duration::from_secs(45);
/// Deadline to connect to the bridge.
pub(crate) const CONNECT_DEADLINE: Duration = Duration::from_secs(10);
/// Deadline for the event stream's headers once connected. The real bridge sends them with its
/// first frame (Node writes headers lazily): on a quiet task that is the first keep-alive,
/// 15 s later (seed GET /events). Until then the stream is opening, not failed.
pub(crate) const EVENTS_HEADERS_DEADLINE: Duration =
    Duration::from_secs(wire::limits::KEEP_ALIVE_SECS + 15);
/// Most bytes of any reply but a transcript page.
pub(crate) const MAX_REPLY: usize = 4 * 1024 * 1024;
/// Most bytes of a transcript page (the client asks for at most 500 events a page).
pub(crate) const MAX_TRANSCRIPT_REPLY: usize = 32 * 1024 * 1024;

/// Why a call gave no value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum CallError {
    /// Nothing reached the bridge: it is not listening, or the connection was refused. The
    /// phone's whole sentence, with the cause (see [`classify`]).
    #[error("{0}")]
    NotSent(String),
    /// The request left but no whole reply came back (timeout, broken connection, cut reply):
    /// it may have been applied.
    #[error("no complete reply from the bridge: {0}")]
    Lost(String),
    /// The bridge answered with an error envelope.
    #[error("the bridge answered {status} {error}")]
    Refused { status: u16, error: BridgeError },
    /// A reply that is not this protocol's envelope.
    #[error("the bridge answered {status} with a reply that could not be read: {why}")]
    Unreadable { status: u16, why: String },
}

impl CallError {
    /// The HTTP status the bridge answered with, when it answered.
    pub(crate) fn status(&self) -> Option<u16> {
        match self {
            Self::Refused { status, .. } | Self::Unreadable { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The bridge's error code, when it gave one.
    pub(crate) fn code(&self) -> Option<&ErrorCode> {
        match self {
            Self::Refused { error, .. } => Some(&error.code),
            _ => None,
        }
    }

    /// True for 401/403 auth/* and any other 401/403: the token is refused (SPEC D2: never
    /// retried without the person).
    pub(crate) fn token_refused(&self) -> Option<u16> {
        match self {
            Self::Refused { status, error }
                if matches!(
                    error.code,
                    ErrorCode::MissingToken | ErrorCode::InvalidToken
                ) =>
            {
                Some(*status)
            }
            Self::Unreadable { status, .. } if matches!(status, 401 | 403) => Some(*status),
            _ => None,
        }
    }
}

/// A client of one bridge.
#[derive(Clone)]
pub(crate) struct BridgeClient {
    url: BridgeUrl,
    token: Token,
    http: reqwest::Client,
    observer: Option<Watched>,
    unread: UnreadParts,
}

/// What could not be read of each route's last reply (docs/DSH.md, "How the phone reads a
/// bridge"), by route without its query: the session shows it, and a reply read whole clears
/// its route.
#[derive(Debug, Clone, Default)]
pub(crate) struct UnreadParts(Arc<Mutex<BTreeMap<String, Vec<wire::Unread>>>>);

impl UnreadParts {
    fn note(&self, route: &str, unread: Vec<wire::Unread>) {
        let key = route.split('?').next().unwrap_or(route).to_string();
        if let Ok(mut parts) = self.0.lock() {
            if unread.is_empty() {
                parts.remove(&key);
            } else {
                parts.insert(key, unread);
            }
        }
    }

    /// Every route whose last reply had parts left out, with those parts.
    pub(crate) fn now(&self) -> BTreeMap<String, Vec<wire::Unread>> {
        self.0.lock().map(|parts| parts.clone()).unwrap_or_default()
    }
}

/// Where every exchange is told: the recording and the wire inspector show a bridge's calls
/// as they show a Collie agent's (never the token: it lives only in a header, written as
/// redacted).
#[derive(Clone)]
struct Watched {
    agent: String,
    observer: Observer,
}

impl Watched {
    fn tell(
        &self,
        method: &'static str,
        path: &str,
        body: Option<&[u8]>,
        reply: Result<(u16, &[u8]), String>,
        started: Instant,
    ) {
        self.observer
            .bridge(&self.agent, (method, path, body), reply, started);
    }
}

impl std::fmt::Debug for BridgeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BridgeClient")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl BridgeClient {
    pub(crate) fn new(url: BridgeUrl, token: Token) -> Result<Self, String> {
        // reqwest is built with rustls and no provider; one must be installed before any
        // client is built, even one that only speaks plain HTTP.
        install_crypto_provider();
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .http1_only()
            .connect_timeout(CONNECT_DEADLINE)
            .user_agent(concat!("collie-phone/", env!("CARGO_PKG_VERSION")));
        // SPEC T11: the bridge's port is the caller's, or the connection is not made.
        if let Some(layer) = CheckPortLayer::for_url(url.as_str()) {
            builder = builder.connector_layer(layer);
        }
        let http = builder
            .build()
            .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
        Ok(Self {
            url,
            token,
            http,
            observer: None,
            unread: UnreadParts::default(),
        })
    }

    /// Tells every exchange to `observer` as the agent `agent`: the recording and the wire
    /// inspector.
    pub(crate) fn observed_by(mut self, agent: &str, observer: Observer) -> Self {
        self.observer = Some(Watched {
            agent: agent.to_string(),
            observer,
        });
        self
    }

    /// The whole URL of a route, to show.
    pub(crate) fn url_of(&self, route: &str) -> String {
        self.url.route(route)
    }

    /// The path (and query) of a route as the bridge sees it, for the inspector.
    fn path_of(&self, route: &str) -> String {
        let url = self.url.route(route);
        match reqwest::Url::parse(&url) {
            Ok(parsed) => match parsed.query() {
                Some(query) => format!("{}?{query}", parsed.path()),
                None => parsed.path().to_string(),
            },
            Err(_) => route.to_string(),
        }
    }

    /// What could not be read of the last reply of each route.
    pub(crate) fn unread(&self) -> &UnreadParts {
        &self.unread
    }

    /// `GET route` (with its query), the envelope's value.
    pub(crate) async fn get<T: DeserializeOwned + Sanitize>(
        &self,
        route: &str,
        reply_cap: usize,
    ) -> Result<T, CallError> {
        let request = self
            .http
            .get(self.url.route(route))
            .bearer_auth(self.token.expose());
        let seen = ("GET", self.path_of(route), None);
        self.call(request, seen, READ_DEADLINE, reply_cap, route)
            .await
    }

    /// `POST route` with these exact body bytes (a resend sends the same bytes, SPEC D5).
    pub(crate) async fn post<T: DeserializeOwned + Sanitize>(
        &self,
        route: &str,
        body: Vec<u8>,
    ) -> Result<T, CallError> {
        let request = self
            .http
            .post(self.url.route(route))
            .bearer_auth(self.token.expose())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.clone());
        let seen = ("POST", self.path_of(route), Some(body));
        self.call(request, seen, WRITE_DEADLINE, MAX_REPLY, route)
            .await
    }

    /// Opens `GET /events?taskId=&sinceSeq=` (no `sinceSeq` when nothing is held yet) and returns the response once its headers say
    /// 200 `text/event-stream`; an error envelope otherwise.
    pub(crate) async fn open_events(
        &self,
        task_id: &str,
        since_seq: Option<i64>,
    ) -> Result<reqwest::Response, CallError> {
        let since = since_seq.map(|s| s.to_string());
        let mut pairs = vec![("taskId", task_id)];
        if let Some(since) = &since {
            pairs.push(("sinceSeq", since));
        }
        let route = wire::routes::with_query(wire::routes::EVENTS, &pairs);
        let request = self
            .http
            .get(self.url.route(&route))
            .bearer_auth(self.token.expose())
            .header(reqwest::header::ACCEPT, "text/event-stream");
        let started = Instant::now();
        let path = self.path_of(&route);
        let tell = |reply: Result<(u16, &[u8]), String>| {
            if let Some(observer) = &self.observer {
                observer.tell("GET", &path, None, reply, started);
            }
        };
        // Connecting has its own deadline (the client's connect_timeout); this one is for the
        // headers, which the real bridge holds until its first frame or keep-alive.
        let response = tokio::time::timeout(EVENTS_HEADERS_DEADLINE, request.send())
            .await
            .map_err(|_| {
                CallError::Lost(format!(
                    "the event stream sent no headers within {} s (not even a keep-alive)",
                    EVENTS_HEADERS_DEADLINE.as_secs()
                ))
            })
            .and_then(|sent| sent.map_err(|e| classify(&e, &self.url)))
            .inspect_err(|e| tell(Err(e.to_string())))?;
        if response.status().as_u16() == 200 {
            // The stream itself is not kept: only that it opened.
            tell(Ok((200, b"")));
            return Ok(response);
        }
        let status = response.status().as_u16();
        let body = read_capped(response, MAX_REPLY)
            .await
            .inspect_err(|e| tell(Err(e.to_string())))?;
        tell(Ok((status, &body)));
        Err(refusal::<wire::Health>(status, &body))
    }

    async fn call<T: DeserializeOwned + Sanitize>(
        &self,
        request: reqwest::RequestBuilder,
        (method, path, sent_body): (&'static str, String, Option<Vec<u8>>),
        deadline: Duration,
        reply_cap: usize,
        route: &str,
    ) -> Result<T, CallError> {
        let started = Instant::now();
        let exchange = async {
            let response = request.send().await.map_err(|e| classify(&e, &self.url))?;
            let status = response.status().as_u16();
            let body = read_capped(response, reply_cap).await?;
            Ok::<_, CallError>((status, body))
        };
        let result = tokio::time::timeout(deadline, exchange)
            .await
            .map_err(|_| {
                CallError::Lost(format!("no complete reply within {} s", deadline.as_secs()))
            })
            .and_then(|inner| inner);
        if let Some(observer) = &self.observer {
            let reply = match &result {
                Ok((status, body)) => Ok((*status, body.as_slice())),
                Err(e) => Err(e.to_string()),
            };
            observer.tell(method, &path, sent_body.as_deref(), reply, started);
        }
        let (status, body) = result?;
        let decoded = wire::decode::<T>(&body).map_err(|e| CallError::Unreadable {
            status,
            why: e.to_string(),
        })?;
        if !decoded.report.is_empty() {
            tracing::debug!(
                changes = decoded.report.changes.len(),
                "a bridge reply was cut or cleaned"
            );
        }
        for part in &decoded.unread {
            // `raw` is cleaned and cut by the decoder (SPEC L1).
            tracing::warn!(route = %path, part = %part.path, raw = %part.raw, "a part of the bridge's reply could not be read and was left out: {}", part.why);
        }
        self.unread.note(route, decoded.unread);
        let envelope = decoded.value;
        if envelope.protocol_version != wire::PROTOCOL_VERSION {
            return Err(CallError::Unreadable {
                status,
                why: format!(
                    "it speaks protocol version {}, this phone speaks {}",
                    envelope.protocol_version,
                    wire::PROTOCOL_VERSION
                ),
            });
        }
        match envelope.into_result() {
            Ok(value) if (200..300).contains(&status) => Ok(value),
            Ok(_) => Err(CallError::Unreadable {
                status,
                why: "an ok envelope with an error status".into(),
            }),
            Err(error) => Err(CallError::Refused { status, error }),
        }
    }
}

/// The error of a non-200 reply, read as an envelope.
fn refusal<T: DeserializeOwned + Sanitize>(status: u16, body: &[u8]) -> CallError {
    match wire::decode::<T>(body).map(|d| d.value.into_result()) {
        Ok(Err(error)) => CallError::Refused { status, error },
        Ok(Ok(_)) => CallError::Unreadable {
            status,
            why: "an ok envelope with an error status".into(),
        },
        Err(e) => CallError::Unreadable {
            status,
            why: e.to_string(),
        },
    }
}

async fn read_capped(mut response: reqwest::Response, cap: usize) -> Result<Vec<u8>, CallError> {
    if response.content_length().is_some_and(|n| n > cap as u64) {
        return Err(CallError::Lost(format!(
            "the reply is larger than {cap} bytes, so it was not read"
        )));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| CallError::Lost(crate::transport::cause::plain(&e)))?
    {
        if body.len() + chunk.len() > cap {
            return Err(CallError::Lost(format!(
                "the reply is larger than {cap} bytes, so it was not read"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A failed send in the phone's words, with its cause: never reqwest's "error sending request
/// for url (…)".
fn classify(error: &reqwest::Error, url: &BridgeUrl) -> CallError {
    use crate::transport::cause::{Cause, cause_of};
    if let Some(refused) = crate::transport::port_owner::refusal_in(error) {
        return CallError::NotSent(format!("the bridge at {url}: {refused}"));
    }
    let cause = cause_of(error);
    if error.is_connect() {
        CallError::NotSent(match cause {
            Cause::Refused => format!(
                "the bridge is not running at {url}: nothing listens there; start the desktop's bridge, or check the URL's port"
            ),
            Cause::NoHost => format!("cannot find the bridge's host in {url}"),
            Cause::TimedOut => format!(
                "the bridge at {url} did not take the connection within {} s",
                CONNECT_DEADLINE.as_secs()
            ),
            Cause::Closed => format!("the bridge at {url} closed the connection at once"),
            Cause::NotTrusted { why, .. } => {
                format!("the bridge's certificate is not trusted ({why})")
            }
            Cause::Tls(why) | Cause::Other(why) => {
                format!("could not connect to the bridge at {url}: {why}")
            }
        })
    } else {
        CallError::Lost(match cause {
            Cause::TimedOut => "the bridge did not answer in time".to_string(),
            Cause::Closed => "the bridge closed the connection".to_string(),
            Cause::Refused => "the connection was refused".to_string(),
            Cause::NoHost => "the bridge's host name does not resolve".to_string(),
            Cause::NotTrusted { why, .. } => {
                format!("the bridge's certificate is not trusted ({why})")
            }
            Cause::Tls(why) | Cause::Other(why) => why,
        })
    }
}
