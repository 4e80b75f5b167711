//! One exchange = one HTTP request with its deadline and reply cap, over a private Unix socket
//! (SPEC S) or TLS with a token (SPEC T). Knows nothing of sessions; a [`Link`] carries the
//! exchanges of one poll cycle over one socket connection.

pub mod cause;
pub mod own_files;
pub mod pin;
pub mod port_owner;
pub mod privacy;
pub(crate) mod socket;
pub mod tls;
pub mod token;

use bytes::Bytes;
use std::path::PathBuf;
use std::time::Duration;

pub use privacy::{NoSocket, NotPrivate};
pub use token::Token;

/// GET or POST: the only methods of the wire (SPEC W5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// What kind of deadline a route has (SPEC S6, T7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteClass {
    /// hello, snapshot, events, history reads.
    Read,
    /// answer, send, abort, action, rename, close, reopen.
    Write,
    /// a starter, which may take a while to lay out its pane.
    Starter,
}

/// One request to send. `path` includes `/session/v1` and any query.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: Method,
    pub path: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Option<Vec<u8>>,
    pub class: RouteClass,
    /// Most bytes of the reply to read (SPEC W5, W7).
    pub reply_cap: usize,
}

/// The reply, read whole within its cap.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub etag: Option<String>,
    pub(crate) location: Option<String>,
    pub body: Bytes,
}

/// Why an exchange did not give a reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// SPEC S4: no connection was made.
    #[error("not connected: {0}")]
    NotPrivate(NotPrivate),
    /// Nothing at the socket's path: no agent there (yet), or a path that is wrong.
    #[error("{0}")]
    NoSocket(NoSocket),
    /// The connection was refused: nothing listens at that address (a TCP host:port, or a
    /// socket file an agent left behind when it stopped).
    #[error("nothing listens on {0}")]
    Refused(String),
    #[error("the process on the socket runs as uid {0}, not as you")]
    PeerNotUs(u32),
    /// Connected, but the agent's certificate was refused (SPEC T1): `why` in plain words,
    /// `fix` what helps, `url` the agent's URL for `doctor`.
    #[error(
        "the agent's certificate is not trusted ({why}): {fix}; `collie-phone doctor --url {url}` tells more"
    )]
    NotTrusted {
        why: String,
        fix: String,
        url: String,
    },
    /// The phone's own words on why no connection was made, with the cause.
    #[error("could not connect: {0}")]
    Connect(String),
    /// SPEC S6, T7, T9: the whole exchange, connect to last byte.
    #[error("no complete reply within {0} ms")]
    Timeout(u128),
    /// SPEC W7: reading stopped at the cap.
    #[error("the reply is larger than {0} bytes, so it was not read")]
    TooLarge(usize),
    #[error("the connection broke: {0}")]
    Broken(String),
}

impl TransportError {
    /// True when the request may have reached the agent, so a POST's outcome is unknown (SPEC Q4).
    pub(crate) fn may_have_arrived(&self) -> bool {
        matches!(self, Self::Timeout(_) | Self::TooLarge(_) | Self::Broken(_))
    }
}

/// Where an agent listens and how to reach it.
#[derive(Clone)]
pub enum Endpoint {
    Socket(socket::SocketEndpoint),
    Tls(tls::TlsEndpoint),
}

impl Endpoint {
    pub fn socket(path: PathBuf) -> Self {
        Endpoint::Socket(socket::SocketEndpoint::new(path))
    }

    /// A local socket that `ssh -L` forwards from `host` (`--ssh`).
    pub fn socket_through_ssh(path: PathBuf, host: &str) -> Self {
        let mut socket = socket::SocketEndpoint::new(path);
        socket.through_ssh = Some(host.to_string());
        Endpoint::Socket(socket)
    }

    /// The host `ssh -L` forwards this socket from, when it is one.
    pub fn through_ssh(&self) -> Option<&str> {
        match self {
            Endpoint::Socket(socket) => socket.through_ssh.as_deref(),
            Endpoint::Tls(_) => None,
        }
    }

    /// The far end is across a network: TLS, or a socket forwarded through ssh (SPEC S6).
    fn crosses_a_network(&self) -> bool {
        match self {
            Endpoint::Socket(socket) => socket.through_ssh.is_some(),
            Endpoint::Tls(_) => true,
        }
    }

    /// The deadline of a route class on this transport (SPEC S6, T7).
    pub fn deadline(&self, class: RouteClass) -> Duration {
        match (self.crosses_a_network(), class) {
            (_, RouteClass::Starter) => Duration::from_millis(30_000),
            (false, RouteClass::Read) => Duration::from_millis(1000),
            (false, RouteClass::Write) => Duration::from_millis(3000),
            (true, RouteClass::Read | RouteClass::Write) => Duration::from_millis(5000),
        }
    }

    /// Poll intervals (watching, not watching), how often a down agent is asked, and how often
    /// a quiet pane nobody looks at is read (SPEC S7, T8).
    pub(crate) fn cadence(&self) -> Cadence {
        match self {
            Endpoint::Socket(_) if !self.crosses_a_network() => Cadence {
                watching: Duration::from_secs(1),
                idle: Duration::from_secs(3),
                down_watching: Duration::from_secs(1),
                down_idle: Duration::from_secs(3),
                background: Duration::from_secs(30),
            },
            Endpoint::Socket(_) | Endpoint::Tls(_) => Cadence {
                watching: Duration::from_secs(2),
                idle: Duration::from_secs(10),
                down_watching: Duration::from_secs(10),
                down_idle: Duration::from_secs(10),
                background: Duration::from_secs(60),
            },
        }
    }

    /// Sends one request and reads its reply under the route's deadline and cap.
    /// The deadline covers the whole exchange, connect to last byte (SPEC T9).
    pub async fn exchange(&self, request: &Request) -> Result<Reply, TransportError> {
        let deadline = self.deadline(request.class);
        let exchange = async {
            match self {
                Endpoint::Socket(socket) => socket.exchange(request).await,
                Endpoint::Tls(tls) => tls.exchange(request).await,
            }
        };
        match tokio::time::timeout(deadline, exchange).await {
            Ok(result) => result,
            Err(_) => Err(TransportError::Timeout(deadline.as_millis())),
        }
    }

    /// Where it is, for screens and logs (never the token).
    pub fn describe(&self) -> String {
        match self {
            Endpoint::Socket(socket) => match &socket.through_ssh {
                Some(host) => format!("unix:{} (ssh from {host})", socket.path.display()),
                None => format!("unix:{}", socket.path.display()),
            },
            Endpoint::Tls(tls) => tls.base.clone(),
        }
    }

    pub fn is_tls(&self) -> bool {
        matches!(self, Endpoint::Tls(_))
    }
}

/// How often to poll an agent (SPEC S7, T8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cadence {
    pub(crate) watching: Duration,
    pub(crate) idle: Duration,
    pub(crate) down_watching: Duration,
    pub(crate) down_idle: Duration,
    /// The longest a pane's events go unread when it is not on screen, not busy and its
    /// snapshot entry did not change; every other pane is read at every poll.
    pub(crate) background: Duration,
}

/// The way to one agent for the exchanges of one poll cycle (SPEC S7, T8). Over the socket:
/// one connection, made at the cycle's first exchange after the S3 privacy check and carrying
/// every exchange of the cycle; [`Link::end_cycle`] closes it. A connection the agent closed
/// between two requests, or one that failed, is replaced at the next exchange by a new one,
/// again after the check, so no connection is ever made without it (S3, S4). Over TLS the
/// client keeps its connection alive between exchanges and between cycles (see `tls.rs`).
pub(crate) struct Link {
    endpoint: Endpoint,
    socket: Option<socket::SocketConnection>,
}

impl Link {
    pub(crate) fn new(endpoint: Endpoint) -> Self {
        Self {
            endpoint,
            socket: None,
        }
    }

    /// One exchange under the route's deadline and cap (SPEC T9: the deadline covers the whole
    /// exchange, the connect too when this exchange makes the connection).
    pub(crate) async fn exchange(&mut self, request: &Request) -> Result<Reply, TransportError> {
        let Endpoint::Socket(socket) = &self.endpoint else {
            return self.endpoint.exchange(request).await;
        };
        let socket = socket.clone();
        let deadline = self.endpoint.deadline(request.class);
        let result =
            match tokio::time::timeout(deadline, self.socket_exchange(&socket, request)).await {
                Ok(result) => result,
                Err(_) => Err(TransportError::Timeout(deadline.as_millis())),
            };
        if result.is_err() {
            // After a failure the connection's state is unknown: the next exchange makes a
            // new one.
            self.socket = None;
        }
        result
    }

    async fn socket_exchange(
        &mut self,
        socket: &socket::SocketEndpoint,
        request: &Request,
    ) -> Result<Reply, TransportError> {
        if self.socket.as_ref().is_some_and(|c| !c.is_open()) {
            self.socket = None;
        }
        if let Some(connection) = &mut self.socket {
            match connection.send(request).await {
                Ok(reply) => return Ok(reply),
                // The agent closed the kept connection before the request left: nothing
                // reached it, so a read goes again on a new connection, after the check.
                Err(socket::SendError::NotSent(_)) if request.method == Method::Get => {
                    self.socket = None;
                }
                Err(error) => return Err(error.into_error()),
            }
        }
        let connection = self.socket.insert(socket.connect().await?);
        connection
            .send(request)
            .await
            .map_err(socket::SendError::into_error)
    }

    /// The cycle is over: its socket connection is closed. The next exchange makes a new one.
    pub(crate) fn end_cycle(&mut self) {
        self.socket = None;
    }
}

/// Reads a body frame by frame, stopping as soon as it passes `cap` (SPEC W7): a reply over its
/// limit is never buffered whole.
pub(crate) async fn read_capped<B>(mut body: B, cap: usize) -> Result<Bytes, TransportError>
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    use http_body_util::BodyExt;
    let mut buffer = bytes::BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| TransportError::Broken(e.to_string()))?;
        if let Ok(data) = frame.into_data() {
            if buffer.len() + data.len() > cap {
                return Err(TransportError::TooLarge(cap));
            }
            buffer.extend_from_slice(&data);
        }
    }
    Ok(buffer.freeze())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn socket() -> Endpoint {
        Endpoint::socket(PathBuf::from("/run/user/1000/collie/a.sock"))
    }

    fn tls() -> Endpoint {
        let token = Token::new(&"t".repeat(32)).expect("32 printable bytes are a token");
        Endpoint::Tls(
            tls::TlsEndpoint::new("https://agent.example", token, None)
                .expect("an https URL is one the phone dials"),
        )
    }

    #[test]
    fn s6_a_socket_forwarded_through_ssh_keeps_the_network_deadlines_and_cadence() {
        let forwarded =
            Endpoint::socket_through_ssh(PathBuf::from("/tmp/collie-ssh-x/agent.sock"), "box");
        let tls = tls();
        for class in [RouteClass::Read, RouteClass::Write, RouteClass::Starter] {
            assert_eq!(forwarded.deadline(class), tls.deadline(class));
        }
        assert_eq!(forwarded.cadence(), tls.cadence());
        assert!(
            !forwarded.is_tls(),
            "the token rules of TLS do not apply to it"
        );
        assert_eq!(
            forwarded.describe(),
            "unix:/tmp/collie-ssh-x/agent.sock (ssh from box)"
        );
    }

    #[test]
    fn s6_t7_deadlines_by_transport_and_route() {
        let ms = Duration::from_millis;
        let socket = socket();
        assert_eq!(socket.deadline(RouteClass::Read), ms(1000));
        assert_eq!(socket.deadline(RouteClass::Write), ms(3000));
        assert_eq!(socket.deadline(RouteClass::Starter), ms(30_000));
        let tls = tls();
        assert_eq!(tls.deadline(RouteClass::Read), ms(5000));
        assert_eq!(tls.deadline(RouteClass::Write), ms(5000));
        assert_eq!(tls.deadline(RouteClass::Starter), ms(30_000));
    }

    #[test]
    fn s7_t8_poll_cadence_by_transport() {
        let s = Duration::from_secs;
        assert_eq!(
            socket().cadence(),
            Cadence {
                watching: s(1),
                idle: s(3),
                down_watching: s(1),
                down_idle: s(3),
                background: s(30),
            }
        );
        assert_eq!(
            tls().cadence(),
            Cadence {
                watching: s(2),
                idle: s(10),
                down_watching: s(10),
                down_idle: s(10),
                background: s(60),
            }
        );
    }
}
