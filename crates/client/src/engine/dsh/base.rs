//! The bridge's base URL (seed: "只用回环地址", SPEC D1): `http://` to a loopback address with a
//! port, the route prefix as its path. Anything else is refused before a byte is sent, because
//! the bearer token would otherwise travel in clear text past this machine.

use std::net::IpAddr;

/// The desktop's default bridge (seed §基址: port 19387, prefix `/codex-bridge`).
pub const DEFAULT_BRIDGE_URL: &str = "http://127.0.0.1:19387/codex-bridge";

/// The word that stands for [`DEFAULT_BRIDGE_URL`] in `--dsh default`.
pub(crate) const DEFAULT_WORD: &str = "default";

/// Most bytes of a bridge URL; longer ones are refused rather than cut.
const MAX_URL_BYTES: usize = 2048;

/// A checked base URL, without a trailing slash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeUrl(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BridgeUrlError {
    #[error("the bridge URL is longer than {MAX_URL_BYTES} bytes")]
    TooLong,
    #[error("the bridge URL does not parse: {0}")]
    Unparsable(String),
    #[error(
        "the bridge URL must start with http:// (the bridge speaks plain HTTP on this machine only), e.g. {DEFAULT_BRIDGE_URL}"
    )]
    Scheme,
    #[error(
        "the bridge URL must name this machine (127.0.0.1, ::1 or localhost), not {0}: the bridge listens on loopback only and the token must not leave the machine"
    )]
    NotLoopback(String),
    #[error("the bridge URL needs a port (the desktop's default is 19387)")]
    NoPort,
    #[error("the bridge URL must not carry a user, a password, a query or a fragment")]
    Extra,
}

impl BridgeUrl {
    /// Checks a URL given on the command line or in the config; `default` is the desktop's.
    pub fn parse(text: &str) -> Result<Self, BridgeUrlError> {
        let text = text.trim();
        if text == DEFAULT_WORD {
            return Ok(Self(DEFAULT_BRIDGE_URL.to_string()));
        }
        if text.len() > MAX_URL_BYTES {
            return Err(BridgeUrlError::TooLong);
        }
        let url =
            reqwest::Url::parse(text).map_err(|e| BridgeUrlError::Unparsable(e.to_string()))?;
        if url.scheme() != "http" {
            return Err(BridgeUrlError::Scheme);
        }
        let host = url.host_str().unwrap_or_default();
        let loopback = host.eq_ignore_ascii_case("localhost")
            || host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        if !loopback {
            return Err(BridgeUrlError::NotLoopback(
                url.host_str().unwrap_or("no host").to_string(),
            ));
        }
        if url.port().is_none() {
            return Err(BridgeUrlError::NoPort);
        }
        if !url.username().is_empty()
            || url.password().is_some()
            || url.query().is_some()
            || url.fragment().is_some()
            || text.contains(['?', '#'])
        {
            return Err(BridgeUrlError::Extra);
        }
        Ok(Self(text.trim_end_matches('/').to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The full URL of a route such as `/tasks/list`.
    pub(crate) fn route(&self, route: &str) -> String {
        format!("{}{route}", self.0)
    }
}

impl std::fmt::Display for BridgeUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d1_default_word_and_loopback_urls() {
        assert_eq!(
            BridgeUrl::parse("default").map(|u| u.0),
            Ok(DEFAULT_BRIDGE_URL.to_string())
        );
        for ok in [
            "http://127.0.0.1:19387/codex-bridge/",
            "http://localhost:8080/x",
            "http://[::1]:9/codex-bridge",
            "http://127.0.0.2:9",
        ] {
            assert!(BridgeUrl::parse(ok).is_ok(), "{ok}");
        }
        assert_eq!(
            BridgeUrl::parse("http://127.0.0.1:19387/codex-bridge/").map(|u| u.route("/health")),
            Ok("http://127.0.0.1:19387/codex-bridge/health".to_string())
        );
    }

    #[test]
    fn d1_other_hosts_and_schemes_are_refused() {
        assert_eq!(
            BridgeUrl::parse("http://example.com:19387/codex-bridge"),
            Err(BridgeUrlError::NotLoopback("example.com".into()))
        );
        assert!(matches!(
            BridgeUrl::parse("http://10.0.0.1:19387"),
            Err(BridgeUrlError::NotLoopback(_))
        ));
        assert_eq!(
            BridgeUrl::parse("https://127.0.0.1:19387"),
            Err(BridgeUrlError::Scheme)
        );
        assert_eq!(
            BridgeUrl::parse("http://127.0.0.1/codex-bridge"),
            Err(BridgeUrlError::NoPort)
        );
        assert_eq!(
            BridgeUrl::parse("http://u:p@127.0.0.1:1/"),
            Err(BridgeUrlError::Extra)
        );
    }
}
