//! The socket transport (SPEC S): a fresh connection per exchange, each after the S3 privacy
//! check and followed by a peer-uid check. A small connector of our own instead of hyperlocal's
//! pooled client, because the privacy check must run before every connection (S3) and the peer's
//! uid must be read from the stream itself.

use bytes::Bytes;
use http_body_util::Full;
use hyper_util::rt::TokioIo;
use std::path::PathBuf;
use tokio::net::UnixStream;

use super::privacy::{SocketCheck, check_socket_path, current_uid, missing_socket};
use super::{Reply, Request, TransportError, read_capped};

#[derive(Debug, Clone)]
pub struct SocketEndpoint {
    pub(crate) path: PathBuf,
}

/// Aborts the connection task when the exchange ends or its deadline drops it.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl SocketEndpoint {
    pub(crate) fn new(path: PathBuf) -> Self {
        Self { path }
    }

    /// One exchange on a fresh connection, after the S3 check (S4: a failed check connects to
    /// nothing). The caller bounds it with the route's deadline.
    pub(crate) async fn exchange(&self, request: &Request) -> Result<Reply, TransportError> {
        check_socket_path(&self.path).map_err(|check| match check {
            SocketCheck::Missing(missing) => TransportError::NoSocket(missing),
            SocketCheck::NotPrivate(not_private) => TransportError::NotPrivate(not_private),
        })?;
        self.exchange_inner(request).await
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

    async fn exchange_inner(&self, request: &Request) -> Result<Reply, TransportError> {
        let stream = UnixStream::connect(&self.path)
            .await
            .map_err(|e| self.connect_error(&e))?;
        let peer = stream
            .peer_cred()
            .map_err(|e| TransportError::Connect(e.to_string()))?;
        if peer.uid() != current_uid() {
            return Err(TransportError::PeerNotUs(peer.uid()));
        }
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| TransportError::Connect(e.to_string()))?;
        let _connection = AbortOnDrop(tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("socket connection ended: {e}");
            }
        }));
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
        let http_request = builder
            .body(body)
            .map_err(|e| TransportError::Connect(format!("could not build the request: {e}")))?;
        let response = sender
            .send_request(http_request)
            .await
            .map_err(|e| TransportError::Broken(e.to_string()))?;
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
            return Err(TransportError::TooLarge(request.reply_cap));
        }
        let body = read_capped(response.into_body(), request.reply_cap).await?;
        Ok(Reply {
            status,
            etag,
            location,
            body,
        })
    }
}
