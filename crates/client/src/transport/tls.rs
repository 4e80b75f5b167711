//! The TLS transport (SPEC T): reqwest with rustls, redirects off (T4), the token on every
//! request (T2), the deadline over the whole exchange (T7, T9), replies read within their cap (W7).
//! The client keeps its connection to the agent alive between polls (T8), so a poll is not a
//! TCP and TLS handshake each time. The agent's certificate is trusted by a CA (`--ca-cert`,
//! else the system's) or by its pin (T10).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Once};

use super::pin::{Pin, PinVerifier};
use super::{Reply, Request, Token, TransportError};
use crate::wire::limits::MAX_URL_BYTES;
use crate::wire::paths::PREFIX;

/// How long an unused connection to the agent is kept open.
const KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(90);

#[derive(Clone)]
pub struct TlsEndpoint {
    /// The agent's URL as given, without `/session/v1`.
    pub base: String,
    token: Token,
    client: reqwest::Client,
}

/// Why a URL is not one Collie dials (SPEC T1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("the URL is longer than {MAX_URL_BYTES} bytes")]
    TooLong,
    #[error("the URL does not parse: {0}")]
    Unparsable(String),
    #[error(
        "the URL must be https://…, or http://127.0.0.1:PORT or http://localhost:PORT for a local test"
    )]
    Scheme,
    #[error("the URL must not carry a user or a password")]
    Credentials,
    #[error("the URL must not carry a query or a fragment")]
    QueryOrFragment,
}

/// Checks SPEC T1 and returns the base without a trailing slash.
pub fn check_url(text: &str) -> Result<String, UrlError> {
    if text.len() > MAX_URL_BYTES {
        return Err(UrlError::TooLong);
    }
    let url = reqwest::Url::parse(text).map_err(|e| UrlError::Unparsable(e.to_string()))?;
    match url.scheme() {
        "https" => {}
        "http" => {
            let local = matches!(url.host_str(), Some("127.0.0.1") | Some("localhost"));
            if !local || url.port().is_none() {
                return Err(UrlError::Scheme);
            }
        }
        _ => return Err(UrlError::Scheme),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(UrlError::Credentials);
    }
    if url.query().is_some() || url.fragment().is_some() || text.contains('?') || text.contains('#')
    {
        return Err(UrlError::QueryOrFragment);
    }
    Ok(text.trim_end_matches('/').to_string())
}

#[derive(Debug, thiserror::Error)]
pub enum TlsSetupError {
    #[error(transparent)]
    Url(#[from] UrlError),
    #[error("cannot read the CA certificate {0}: {1}")]
    CaCert(String, String),
    #[error("cannot set up TLS: {0}")]
    Client(String),
}

/// What makes the agent's certificate trusted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Trust {
    /// A chain to a CA the system trusts, for the name dialed.
    #[default]
    System,
    /// A chain to the CA in this PEM file (or the file's certificate itself), for the name
    /// dialed.
    CaCert(PathBuf),
    /// Exactly the certificate with this fingerprint (SPEC T10).
    Pin(Pin),
}

impl Trust {
    /// The trust `--ca-cert` and `--pin` ask for; None when both are given, which asks for two
    /// things at once.
    pub fn from_flags(ca_cert: Option<&Path>, pin: Option<Pin>) -> Option<Self> {
        match (ca_cert, pin) {
            (Some(_), Some(_)) => None,
            (Some(path), None) => Some(Self::CaCert(path.to_path_buf())),
            (None, Some(pin)) => Some(Self::Pin(pin)),
            (None, None) => Some(Self::System),
        }
    }
}

/// Installs rustls's ring provider once; reqwest needs one before any client is built.
pub(crate) fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Another part of the program may have installed it first; either way one is set.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

impl TlsEndpoint {
    /// An endpoint that trusts `ca_cert`, else the system's CAs.
    pub fn new(url: &str, token: Token, ca_cert: Option<&Path>) -> Result<Self, TlsSetupError> {
        let trust = ca_cert.map_or(Trust::System, |path| Trust::CaCert(path.to_path_buf()));
        Self::trusting(url, token, &trust)
    }

    /// An endpoint whose agent's certificate is trusted as `trust` says.
    pub fn trusting(url: &str, token: Token, trust: &Trust) -> Result<Self, TlsSetupError> {
        let base = check_url(url)?;
        install_crypto_provider();
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .http1_only()
            // Kept alive past the slowest cadence (10 s, SPEC T8), so idle polls reuse it.
            .pool_idle_timeout(KEEP_ALIVE)
            .pool_max_idle_per_host(1)
            .user_agent(concat!("collie-phone/", env!("CARGO_PKG_VERSION")));
        // SPEC T11: over plain HTTP to this machine, another user's port gets no connection,
        // so no token.
        if let Some(layer) = super::port_owner::CheckPortLayer::for_url(&base) {
            builder = builder.connector_layer(layer);
        }
        match trust {
            Trust::System => {}
            Trust::CaCert(path) => {
                let shown = path.display().to_string();
                let pem = std::fs::read(path)
                    .map_err(|e| TlsSetupError::CaCert(shown.clone(), e.to_string()))?;
                let cert = reqwest::Certificate::from_pem(&pem)
                    .map_err(|e| TlsSetupError::CaCert(shown, e.to_string()))?;
                builder = builder.tls_certs_only([cert]);
            }
            Trust::Pin(pin) => builder = builder.tls_backend_preconfigured(pinned_config(*pin)?),
        }
        let client = builder
            .build()
            .map_err(|e| TlsSetupError::Client(e.to_string()))?;
        Ok(Self {
            base,
            token,
            client,
        })
    }

    /// One exchange; the caller bounds it with the route's deadline.
    pub(crate) async fn exchange(&self, request: &Request) -> Result<Reply, TransportError> {
        self.exchange_inner(request).await
    }

    async fn exchange_inner(&self, request: &Request) -> Result<Reply, TransportError> {
        debug_assert!(request.path.starts_with(PREFIX));
        let url = format!("{}{}", self.base, request.path);
        let method = match request.method {
            super::Method::Get => reqwest::Method::GET,
            super::Method::Post => reqwest::Method::POST,
        };
        let mut builder = self.client.request(method, url).header(
            reqwest::header::AUTHORIZATION,
            format!("Bearer {}", self.token.expose()),
        );
        for (name, value) in &request.headers {
            builder = builder.header(*name, value);
        }
        if let Some(body) = &request.body {
            builder = builder
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        let mut response = builder.send().await.map_err(|e| classify(&e))?;
        let status = response.status().as_u16();
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
                .map(str::to_string)
        };
        let etag = header(reqwest::header::ETAG);
        let location = header(reqwest::header::LOCATION);
        if response
            .content_length()
            .is_some_and(|n| n > request.reply_cap as u64)
        {
            return Err(TransportError::TooLarge(request.reply_cap));
        }
        let mut buffer = bytes::BytesMut::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| TransportError::Broken(e.to_string()))?
        {
            if buffer.len() + chunk.len() > request.reply_cap {
                return Err(TransportError::TooLarge(request.reply_cap));
            }
            buffer.extend_from_slice(&chunk);
        }
        Ok(Reply {
            status,
            etag,
            location,
            body: buffer.freeze(),
        })
    }
}

/// rustls set up to trust only the pinned certificate, with the ring provider and the ALPN
/// reqwest would offer for HTTP/1.1 (a preconfigured backend gets none from reqwest).
fn pinned_config(pin: Pin) -> Result<rustls::ClientConfig, TlsSetupError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = PinVerifier::new(pin, provider.signature_verification_algorithms);
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsSetupError::Client(e.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

fn classify(error: &reqwest::Error) -> TransportError {
    use super::cause::{Cause, cause_of};
    if let Some(refused) = super::port_owner::refusal_in(error) {
        return TransportError::Connect(refused.to_string());
    }
    let address = error
        .url()
        .map_or_else(|| "the agent".to_string(), host_and_port);
    match cause_of(error) {
        Cause::NotTrusted { why, fix } => TransportError::NotTrusted {
            why,
            fix,
            url: error.url().map_or_else(String::new, |url| {
                url.as_str()
                    .split(PREFIX)
                    .next()
                    .unwrap_or_default()
                    .trim_end_matches('/')
                    .to_string()
            }),
        },
        Cause::Refused => TransportError::Refused(address),
        Cause::NoHost => TransportError::Connect(format!(
            "cannot find the host {} (its name does not resolve)",
            address
                .rsplit_once(':')
                .map_or(address.as_str(), |(host, _)| host)
        )),
        // Before the connection is made nothing was sent, so a POST is known not sent (SPEC Q4).
        Cause::TimedOut if error.is_connect() => {
            TransportError::Connect(format!("{address} did not take the connection in time"))
        }
        Cause::TimedOut => TransportError::Timeout(0),
        Cause::Tls(why) if error.is_connect() => {
            TransportError::Connect(format!("the TLS handshake with {address} failed ({why})"))
        }
        Cause::Tls(why) => TransportError::Broken(format!("TLS with {address} failed ({why})")),
        Cause::Closed if error.is_connect() => {
            TransportError::Connect(format!("{address} closed the connection at once"))
        }
        Cause::Closed => TransportError::Broken(format!("{address} closed the connection")),
        Cause::Other(why) if error.is_connect() => {
            TransportError::Connect(format!("{address}: {why}"))
        }
        Cause::Other(_) if error.is_timeout() => TransportError::Timeout(0),
        Cause::Other(why) => TransportError::Broken(why),
    }
}

/// `host:port` of a URL, the port said even when it is the scheme's own.
fn host_and_port(url: &reqwest::Url) -> String {
    let host = url.host_str().unwrap_or("the agent's host");
    match url.port_or_known_default() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t1_url_rules() {
        assert_eq!(
            check_url("https://agent.example/x/"),
            Ok("https://agent.example/x".into())
        );
        assert!(check_url("http://127.0.0.1:8080").is_ok());
        assert!(check_url("http://localhost:8080").is_ok());
        assert_eq!(
            check_url("http://agent.example:8080"),
            Err(UrlError::Scheme)
        );
        assert_eq!(check_url("http://127.0.0.1"), Err(UrlError::Scheme));
        assert_eq!(
            check_url("https://u:p@agent.example"),
            Err(UrlError::Credentials)
        );
        assert_eq!(
            check_url("https://agent.example/?a=1"),
            Err(UrlError::QueryOrFragment)
        );
        assert_eq!(
            check_url("https://agent.example/#x"),
            Err(UrlError::QueryOrFragment)
        );
        assert_eq!(
            check_url(&format!("https://a.example/{}", "x".repeat(2050))),
            Err(UrlError::TooLong)
        );
    }
}
