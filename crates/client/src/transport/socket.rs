//! The socket transport (SPEC S): every connection is made after the S3 privacy check and
//! followed by a peer-uid check. One exchange on a fresh connection ([`SocketEndpoint::exchange`]),
//! or several exchanges of one poll cycle on one connection ([`SocketEndpoint::connect`], used by
//! [`super::Link`]). A small connector of our own instead of hyperlocal's pooled client, because
//! the privacy check must run before every connection (S3), a pool would make connections behind
//! our back, and the peer's uid must be read from the stream itself.

use bytes::Bytes;
use http_body_util::Full;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use std::path::PathBuf;
use tokio::net::UnixStream;

use super::privacy::{SocketCheck, check_socket_path, current_uid, missing_socket};
use super::{Reply, Request, TransportError, read_capped};

#[derive(Debug, Clone)]
pub struct SocketEndpoint {
    pub path: PathBuf,
    /// The host this socket is forwarded from by `ssh -L` (`--ssh`), when it is one: the far
    /// end is across a network, not on this machine.
    pub(crate) through_ssh: Option<String>,
}

/// Aborts the connection task when the connection is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// One HTTP/1.1 connection to the agent, made after the S3 check; closed when dropped.
pub(crate) struct SocketConnection {
    sender: SendRequest<Full<Bytes>>,
    _task: AbortOnDrop,
}

/// Why a request on a connection gave no reply.
#[derive(Debug)]
pub(crate) enum SendError {
    /// The connection was closed before the request left: nothing reached the agent.
    NotSent(TransportError),
    /// The request may have reached the agent.
    Failed(TransportError),
}

impl SendError {
    /// The error as the caller reads it. One that never left is never `Broken`, which says it
    /// may have arrived: a POST whose connection closed before it was written is not sent, not
    /// unknown (docs/ENGINE.md, "Replies that prove nothing was read").
    pub(crate) fn into_error(self) -> TransportError {
        match self {
            SendError::NotSent(TransportError::Broken(why)) => TransportError::Connect(format!(
                "the connection closed before the request left ({why})"
            )),
            SendError::NotSent(error) | SendError::Failed(error) => error,
        }
    }
}

impl SocketEndpoint {
    pub(crate) fn new(path: PathBuf) -> Self {
        Self {
            path,
            through_ssh: None,
        }
    }

    /// One exchange on a fresh connection, after the S3 check (S4: a failed check connects to
    /// nothing). The caller bounds it with the route's deadline.
    pub(crate) async fn exchange(&self, request: &Request) -> Result<Reply, TransportError> {
        let mut connection = self.connect().await?;
        connection
            .send(request)
            .await
            .map_err(SendError::into_error)
    }

    /// A failed connect in plain words: a socket file nobody listens on is an agent that
    /// stopped; one gone since the check is missing.
    fn connect_error(&self, error: &std::io::Error) -> TransportError {
        match error.kind() {
            std::io::ErrorKind::ConnectionRefused => TransportError::Refused(format!(
                "the socket {} (an agent stopped and left it behind?)",
                self.path.display()
            )),
            std::io::ErrorKind::NotFound => match missing_socket(&self.path) {
                Some(missing) => TransportError::NoSocket(missing),
                None => TransportError::Connect(error.to_string()),
            },
            _ => TransportError::Connect(error.to_string()),
        }
    }

    /// A new connection: the S3 check first (S4: a failed check connects to nothing), then the
    /// connect, the peer's uid and the HTTP/1.1 handshake.
    pub(crate) async fn connect(&self) -> Result<SocketConnection, TransportError> {
        check_socket_path(&self.path).map_err(|check| match check {
            SocketCheck::Missing(missing) => TransportError::NoSocket(missing),
            SocketCheck::NotPrivate(not_private) => TransportError::NotPrivate(not_private),
        })?;
        let stream = UnixStream::connect(&self.path)
            .await
            .map_err(|e| self.connect_error(&e))?;
        let peer = stream
            .peer_cred()
            .map_err(|e| TransportError::Connect(e.to_string()))?;
        if peer.uid() != current_uid() {
            return Err(TransportError::PeerNotUs(peer.uid()));
        }
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| TransportError::Connect(e.to_string()))?;
        let task = AbortOnDrop(tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("socket connection ended: {e}");
            }
        }));
        Ok(SocketConnection {
            sender,
            _task: task,
        })
    }
}

impl SocketConnection {
    /// False once the agent closed the connection (it may, between two requests).
    pub(crate) fn is_open(&self) -> bool {
        !self.sender.is_closed()
    }

    /// One request and its whole reply, read within its cap. The caller bounds it with the
    /// route's deadline, and drops the connection after any error.
    pub(crate) async fn send(&mut self, request: &Request) -> Result<Reply, SendError> {
        self.sender
            .ready()
            .await
            .map_err(|e| SendError::NotSent(TransportError::Broken(e.to_string())))?;
        let body = Full::new(Bytes::from(request.body.clone().unwrap_or_default()));
        let mut builder = hyper::Request::builder()
            .method(request.method.as_str())
            .uri(&request.path)
            .header(hyper::header::HOST, "collie-durable");
        if request.body.is_some() {
            builder = builder.header(hyper::header::CONTENT_TYPE, "application/json");
        }
        for (name, value) in &request.headers {
            builder = builder.header(*name, value);
        }
        let http_request = builder.body(body).map_err(|e| {
            SendError::NotSent(TransportError::Connect(format!(
                "could not build the request: {e}"
            )))
        })?;
        let response = self.sender.send_request(http_request).await.map_err(|e| {
            let error = TransportError::Broken(e.to_string());
            if e.is_canceled() {
                SendError::NotSent(error)
            } else {
                SendError::Failed(error)
            }
        })?;
        let status = response.status().as_u16();
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v: &hyper::header::HeaderValue| v.to_str().ok())
                .map(str::to_string)
        };
        let etag = header(hyper::header::ETAG);
        let location = header(hyper::header::LOCATION);
        let declared = header(hyper::header::CONTENT_LENGTH).and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > request.reply_cap) {
            return Err(SendError::Failed(TransportError::TooLarge(
                request.reply_cap,
            )));
        }
        let body = read_capped(response.into_body(), request.reply_cap)
            .await
            .map_err(SendError::Failed)?;
        Ok(Reply {
            status,
            etag,
            location,
            body,
        })
    }
}
