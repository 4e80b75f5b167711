//! Where the reference agent listens: a private Unix socket (SPEC S1, S2), or TCP with a token,
//! behind TLS or, for a local test, plain http on loopback (SPEC T1–T3). Every accepted
//! connection is served by a [`Handler`] (the agent's [`Server`], or a replay) over HTTP/1.1 or
//! HTTP/2.

use std::fs::{self, DirBuilder, Permissions};
use std::future::Future;
use std::net::SocketAddr;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, UnixListener};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;

use super::server::{Reply, Server};
use crate::wire::limits;

/// A client gets this long to send its request headers before the connection is closed.
const HEADER_DEADLINE: Duration = Duration::from_secs(10);
/// A TLS handshake that takes longer than this is dropped.
const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(10);
/// How long a stopping agent lets running requests finish.
const DRAIN_DEADLINE: Duration = Duration::from_secs(2);
/// A failed accept (say, out of file descriptors) is retried after this pause.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// What answers the requests of a listener: the agent's [`Server`], a wrapper around it (the
/// failures `--chaos` makes on purpose), or a recording played back by `collie-phone replay`,
/// over the same sockets and rules.
///
/// A reply that carries [`DropConnection`] in its extensions is never sent: the listener closes
/// the connection instead, as a peer that crashed after applying a request would.
pub trait Handler: Send + Sync + 'static {
    fn handle(
        self: Arc<Self>,
        request: hyper::Request<hyper::body::Incoming>,
    ) -> impl Future<Output = Result<Reply, std::convert::Infallible>> + Send;
}

impl Handler for Server {
    fn handle(
        self: Arc<Self>,
        request: hyper::Request<hyper::body::Incoming>,
    ) -> impl Future<Output = Result<Reply, std::convert::Infallible>> + Send {
        Server::handle(self, request)
    }
}

/// Marks a reply that must not be sent: the listener closes the connection instead.
#[derive(Debug, Clone, Copy)]
pub struct DropConnection;

/// What the listener gives hyper for a [`DropConnection`] reply, so it closes the connection.
#[derive(Debug, thiserror::Error)]
#[error("the reply was dropped on purpose")]
pub(crate) struct DroppedOnPurpose;

/// A listening socket, ready to serve.
pub enum Binding {
    Unix(UnixBinding),
    Tcp(TcpBinding),
}

impl Binding {
    /// What the agent prints after `listening ` (SPEC S2): `unix:PATH`, `http://…` or `https://…`.
    /// The TCP address it listens on; None for a Unix socket.
    pub fn tcp_address(&self) -> Option<SocketAddr> {
        match self {
            Self::Unix(_) => None,
            Self::Tcp(tcp) => Some(tcp.local),
        }
    }

    pub fn url(&self) -> String {
        match self {
            Self::Unix(unix) => format!("unix:{}", unix.path.display()),
            Self::Tcp(tcp) => {
                let scheme = if tcp.tls.is_some() { "https" } else { "http" };
                format!("{scheme}://{}", tcp.local)
            }
        }
    }

    /// Serves until `shutdown` resolves, then lets running requests finish for a moment. A Unix
    /// socket's file is removed when the binding is dropped.
    pub async fn serve<H: Handler>(self, server: Arc<H>, shutdown: impl Future<Output = ()>) {
        let graceful = GracefulShutdown::new();
        match &self {
            Self::Unix(unix) => unix.accept_until(&server, &graceful, shutdown).await,
            Self::Tcp(tcp) => tcp.accept_until(&server, &graceful, shutdown).await,
        }
        if tokio::time::timeout(DRAIN_DEADLINE, graceful.shutdown())
            .await
            .is_err()
        {
            tracing::info!("some requests were still running at shutdown and were cut");
        }
    }
}

/// A Unix socket this agent bound (SPEC S2). Dropping it removes the socket file, if the
/// file at the path is still the one bound here.
pub struct UnixBinding {
    listener: UnixListener,
    path: PathBuf,
    identity: (u64, u64),
}

/// Binds the socket of SPEC S1 and S2: an absolute path of at most 103 bytes, in a folder of
/// mode 0700 owned by us (created if missing), a stale socket removed first, mode 0600.
pub fn bind_unix(path: &Path) -> anyhow::Result<Binding> {
    check_socket_path(path)?;
    let folder = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .ok_or_else(|| anyhow!("the socket path {} names no folder", path.display()))?;
    ensure_private_folder(folder)?;
    warn_about_open_ancestors(folder);
    remove_stale_socket(path)?;
    let listener = UnixListener::bind(path)
        .with_context(|| format!("could not listen on {}", path.display()))?;
    let metadata = fs::symlink_metadata(path).with_context(|| {
        format!(
            "the socket {} vanished right after it was made",
            path.display()
        )
    })?;
    let binding = UnixBinding {
        listener,
        path: path.to_path_buf(),
        identity: (metadata.dev(), metadata.ino()),
    };
    fs::set_permissions(path, Permissions::from_mode(0o600)).with_context(|| {
        format!(
            "could not make the socket {} private (mode 0600)",
            path.display()
        )
    })?;
    Ok(Binding::Unix(binding))
}

/// SPEC S1: absolute, at most 103 bytes (the room a socket address has on macOS).
pub(crate) fn check_socket_path(path: &Path) -> anyhow::Result<()> {
    if !path.is_absolute() {
        bail!(
            "the socket path {} is not absolute; give the whole path from / (docs/SPEC.md § The socket)",
            path.display()
        );
    }
    let length = path.as_os_str().len();
    if length > limits::MAX_SOCKET_PATH {
        bail!(
            "the socket path {} is {length} bytes, more than the {} a socket path may have (docs/SPEC.md § The socket)",
            path.display(),
            limits::MAX_SOCKET_PATH
        );
    }
    Ok(())
}

fn effective_uid() -> u32 {
    // SAFETY: geteuid has no preconditions, touches no memory of ours and cannot fail.
    unsafe { libc::geteuid() }
}

/// SPEC S2: the socket's folder is ours with mode 0700. One we create is made so; one that
/// exists and is not is refused rather than changed, since someone else may rely on it.
fn ensure_private_folder(folder: &Path) -> anyhow::Result<()> {
    match fs::symlink_metadata(folder) {
        Ok(_) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(folder)
                .with_context(|| {
                    format!("could not create the socket folder {}", folder.display())
                })?;
            // The umask may have taken bits away; 0700 is what S2 asks for, exactly.
            fs::set_permissions(folder, Permissions::from_mode(0o700))
                .with_context(|| format!("could not set mode 0700 on {}", folder.display()))?;
        }
        Err(error) => {
            return Err(error).with_context(|| {
                format!("could not look at the socket folder {}", folder.display())
            });
        }
    }
    let metadata = fs::symlink_metadata(folder)
        .with_context(|| format!("could not look at the socket folder {}", folder.display()))?;
    if metadata.file_type().is_symlink() {
        bail!(
            "the socket folder {} is a symlink; name the real folder (docs/SPEC.md § The socket)",
            folder.display()
        );
    }
    if !metadata.is_dir() {
        bail!("the socket folder {} is not a folder", folder.display());
    }
    if metadata.uid() != effective_uid() {
        bail!(
            "the socket folder {} belongs to another user (uid {}); use a folder of your own (docs/SPEC.md § The socket)",
            folder.display(),
            metadata.uid()
        );
    }
    let mode = metadata.mode() & 0o777;
    if mode != 0o700 {
        bail!(
            "the socket folder {} has mode {mode:03o}, not 0700, so others could reach the socket; \
             run `chmod 700 {}` or pick another folder (docs/SPEC.md § The socket)",
            folder.display(),
            folder.display()
        );
    }
    Ok(())
}

/// Collie refuses a socket under a symlink or under a folder others may write to without the
/// sticky bit (SPEC S3). The agent still listens, since the operator may fix it, but says why
/// Collie will not connect.
fn warn_about_open_ancestors(folder: &Path) {
    for ancestor in folder.ancestors().skip(1) {
        let Ok(metadata) = fs::symlink_metadata(ancestor) else {
            continue;
        };
        let mode = metadata.mode();
        if metadata.file_type().is_symlink() {
            tracing::warn!(folder = %ancestor.display(), "a folder above the socket is a symlink; Collie will refuse it (docs/SPEC.md § The socket)");
        } else if mode & 0o022 != 0 && mode & 0o1000 == 0 {
            tracing::warn!(folder = %ancestor.display(), "a folder above the socket is writable by others without the sticky bit; Collie will refuse it (docs/SPEC.md § The socket)");
        }
    }
}

/// SPEC S2: a socket file left by an agent that died is removed. A live socket, or anything
/// that is not a socket, is left alone and refused.
fn remove_stale_socket(path: &Path) -> anyhow::Result<()> {
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => {
            return Err(error).with_context(|| format!("could not look at {}", path.display()));
        }
    };
    if !metadata.file_type().is_socket() {
        bail!(
            "{} exists and is not a socket; refusing to replace it",
            path.display()
        );
    }
    if std::os::unix::net::UnixStream::connect(path).is_ok() {
        bail!(
            "another program is listening on {}; stop it or pick another path",
            path.display()
        );
    }
    fs::remove_file(path)
        .with_context(|| format!("could not remove the stale socket {}", path.display()))?;
    tracing::info!(socket = %path.display(), "removed a stale socket");
    Ok(())
}

impl UnixBinding {
    async fn accept_until<H: Handler>(
        &self,
        server: &Arc<H>,
        graceful: &GracefulShutdown,
        shutdown: impl Future<Output = ()>,
    ) {
        accept_loop(
            || self.listener.accept(),
            shutdown,
            |(stream, _)| {
                tokio::spawn(serve_connection(
                    Arc::clone(server),
                    stream,
                    graceful.watcher(),
                ));
            },
        )
        .await;
    }
}

impl Drop for UnixBinding {
    fn drop(&mut self) {
        let still_ours = fs::symlink_metadata(&self.path)
            .is_ok_and(|metadata| (metadata.dev(), metadata.ino()) == self.identity);
        if still_ours && let Err(error) = fs::remove_file(&self.path) {
            tracing::warn!(%error, socket = %self.path.display(), "could not remove the socket");
        }
    }
}

/// A TCP listener with an optional TLS acceptor (SPEC T1).
pub struct TcpBinding {
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    local: SocketAddr,
}

/// The certificate chain and private key of the https listener, both PEM.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// The address `--listen ADDR` names: the first it resolves to.
pub async fn listen_address(address: &str) -> anyhow::Result<SocketAddr> {
    let candidates: Vec<SocketAddr> = tokio::net::lookup_host(address)
        .await
        .with_context(|| format!("{address} is not an address to listen on, like 127.0.0.1:8080"))?
        .collect();
    candidates
        .first()
        .copied()
        .ok_or_else(|| anyhow!("{address} resolves to no address to listen on"))
}

/// Binds TCP. Without TLS only a loopback address is allowed (SPEC T1: plain http is for a
/// local test). Port 0 picks a free port; [`Binding::url`] tells which.
pub async fn bind_tcp(address: &str, tls: Option<&TlsFiles>) -> anyhow::Result<Binding> {
    let chosen = listen_address(address).await?;
    if tls.is_none() && !chosen.ip().is_loopback() {
        bail!(
            "plain http is only for a local test, so it listens on a loopback address like 127.0.0.1 \
             (docs/SPEC.md § TLS and the token); {address} is not one: add --tls auto (or --tls-cert and --tls-key) to serve https there"
        );
    }
    let acceptor = tls.map(tls_acceptor).transpose()?;
    let listener = TcpListener::bind(chosen)
        .await
        .with_context(|| format!("could not listen on {chosen}"))?;
    let local = listener
        .local_addr()
        .context("the listener has no local address")?;
    Ok(Binding::Tcp(TcpBinding {
        listener,
        tls: acceptor,
        local,
    }))
}

/// Loads the PEM certificate chain and key for rustls with the ring provider.
fn tls_acceptor(files: &TlsFiles) -> anyhow::Result<TlsAcceptor> {
    let cert_pem = fs::read(&files.cert)
        .with_context(|| format!("could not read the certificate {}", files.cert.display()))?;
    let certs = rustls_pemfile::certs(&mut cert_pem.as_slice())
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("{} is not a PEM certificate chain", files.cert.display()))?;
    if certs.is_empty() {
        bail!("{} holds no PEM certificate", files.cert.display());
    }
    let key_metadata = fs::metadata(&files.key)
        .with_context(|| format!("could not read the key {}", files.key.display()))?;
    if key_metadata.mode() & 0o077 != 0 {
        tracing::warn!(key = %files.key.display(), "the TLS key can be read by others; run chmod 600 on it");
    }
    let key_pem = fs::read(&files.key)
        .with_context(|| format!("could not read the key {}", files.key.display()))?;
    let key = rustls_pemfile::private_key(&mut key_pem.as_slice())
        .with_context(|| format!("{} is not a PEM private key", files.key.display()))?
        .ok_or_else(|| anyhow!("{} holds no PEM private key", files.key.display()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("the TLS provider offers no protocol version")?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .context("the certificate and the key do not make a usable TLS identity")?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

impl TcpBinding {
    async fn accept_until<H: Handler>(
        &self,
        server: &Arc<H>,
        graceful: &GracefulShutdown,
        shutdown: impl Future<Output = ()>,
    ) {
        accept_loop(
            || self.listener.accept(),
            shutdown,
            |(stream, peer)| {
                let server = Arc::clone(server);
                let watcher = graceful.watcher();
                match &self.tls {
                    None => {
                        tokio::spawn(serve_connection(server, stream, watcher));
                    }
                    Some(acceptor) => {
                        let acceptor = acceptor.clone();
                        tokio::spawn(async move {
                            match tokio::time::timeout(HANDSHAKE_DEADLINE, acceptor.accept(stream))
                                .await
                            {
                                Ok(Ok(tls)) => serve_connection(server, tls, watcher).await,
                                Ok(Err(error)) => {
                                    tracing::debug!(%error, %peer, "a TLS handshake failed")
                                }
                                Err(_) => tracing::debug!(%peer, "a TLS handshake took too long"),
                            }
                        });
                    }
                }
            },
        )
        .await;
    }
}

/// Accepts until `shutdown` resolves, handing each connection to `serve`; a failed accept (say,
/// out of file descriptors) is retried after a pause rather than ending the agent.
async fn accept_loop<C, Fut>(
    mut accept: impl FnMut() -> Fut,
    shutdown: impl Future<Output = ()>,
    mut serve: impl FnMut(C),
) where
    Fut: Future<Output = std::io::Result<C>>,
{
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => return,
            accepted = accept() => match accepted {
                Ok(connection) => serve(connection),
                Err(error) => {
                    tracing::warn!(%error, "could not accept a connection");
                    tokio::time::sleep(ACCEPT_RETRY).await;
                }
            },
        }
    }
}

async fn serve_connection<H: Handler, I>(server: Arc<H>, io: I, watcher: Watcher)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_DEADLINE);
    let service = hyper::service::service_fn(move |request| {
        let reply = Arc::clone(&server).handle(request);
        async move {
            let Ok(reply) = reply.await;
            // A reply marked so (`--chaos drop-after-apply`): an error makes hyper close the
            // connection unanswered.
            match reply.extensions().get::<DropConnection>() {
                Some(_) => Err(DroppedOnPurpose),
                None => Ok(reply),
            }
        }
    });
    let connection = builder.serve_connection(TokioIo::new(io), service);
    if let Err(error) = watcher.watch(connection).await {
        tracing::debug!(%error, "a connection ended with an error");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s1_path_must_be_absolute_and_short() {
        assert!(check_socket_path(Path::new("relative/agent.sock")).is_err());
        assert!(check_socket_path(&PathBuf::from(format!("/{}", "x".repeat(102)))).is_ok());
        assert!(check_socket_path(&PathBuf::from(format!("/{}", "x".repeat(103)))).is_err());
    }
}
