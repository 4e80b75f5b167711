//! Why an HTTP exchange failed, in the phone's own words: the error chain of reqwest (hyper,
//! rustls, the OS) is walked and named, so a screen never shows a library's sentence such as
//! "error sending request for url (…)" in place of the cause.

use std::error::Error;
use std::io::ErrorKind;

use rustls::CertificateError;

/// The cause found in an error's chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cause {
    /// The peer's certificate was refused, with why in plain words and what helps.
    NotTrusted { why: String, fix: &'static str },
    /// Another TLS failure (handshake, protocol), in rustls's words.
    Tls(String),
    /// Nothing listens at the address.
    Refused,
    /// The host's name does not resolve.
    NoHost,
    /// No answer in time.
    TimedOut,
    /// The peer closed or reset the connection.
    Closed,
    /// None of the above: the innermost cause's words, without reqwest's wrapper.
    Other(String),
}

/// Walks `error`'s chain (`source()`, and the error inside an `io::Error`, which its
/// `source()` skips) for the first cause the phone can name.
pub(crate) fn cause_of(error: &(dyn Error + 'static)) -> Cause {
    let mut innermost = error.to_string();
    let mut io_kind = None;
    let mut dns = false;
    let mut next: Option<&(dyn Error + 'static)> = Some(error);
    while let Some(cause) = next {
        if let Some(tls) = cause.downcast_ref::<rustls::Error>() {
            return of_rustls(tls);
        }
        let text = cause.to_string();
        dns |= text.contains("dns error") || text.contains("failed to lookup address");
        innermost = text;
        next = cause.source();
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            if !matches!(io.kind(), ErrorKind::Other | ErrorKind::InvalidData) {
                io_kind.get_or_insert(io.kind());
            }
            // An io::Error's source() is its inner error's source: the inner error itself,
            // where hyper and rustls put the cause, would be skipped.
            if let Some(inner) = io.get_ref() {
                next = Some(inner as &(dyn Error + 'static));
            }
        }
    }
    match io_kind {
        Some(ErrorKind::ConnectionRefused) => Cause::Refused,
        Some(ErrorKind::TimedOut) => Cause::TimedOut,
        Some(
            ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted
            | ErrorKind::BrokenPipe
            | ErrorKind::UnexpectedEof,
        ) => Cause::Closed,
        _ if dns => Cause::NoHost,
        _ if innermost.contains("timed out") => Cause::TimedOut,
        _ => Cause::Other(innermost),
    }
}

/// The cause in a few plain words, for a reply cut off while it was read.
pub(crate) fn plain(error: &(dyn Error + 'static)) -> String {
    match cause_of(error) {
        Cause::NotTrusted { why, .. } => format!("the certificate is not trusted ({why})"),
        Cause::Tls(why) | Cause::Other(why) => why,
        Cause::Refused => "the connection was refused".into(),
        Cause::NoHost => "the host name does not resolve".into(),
        Cause::TimedOut => "no answer in time".into(),
        Cause::Closed => "the other end closed the connection".into(),
    }
}

fn of_rustls(error: &rustls::Error) -> Cause {
    const CA: &str = "give its CA with --ca-cert FILE";
    let (why, fix) = match error {
        rustls::Error::InvalidCertificate(certificate) => match certificate {
            CertificateError::UnknownIssuer => (
                "it is signed by an authority this phone does not know, such as itself".into(),
                CA,
            ),
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                ("it has expired".into(), "renew the agent's certificate")
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => (
                "it is not valid yet".into(),
                "check the clocks here and on the agent",
            ),
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                (
                    "it is made for another host name".into(),
                    "dial the host name the certificate names",
                )
            }
            CertificateError::Revoked => ("it was revoked".into(), "renew the agent's certificate"),
            CertificateError::BadSignature => ("its signature does not check".into(), CA),
            other => (format!("{other:?}"), CA),
        },
        rustls::Error::NoCertificatesPresented => (
            "the agent showed no certificate that can be checked".into(),
            CA,
        ),
        other => return Cause::Tls(other.to_string()),
    };
    Cause::NotTrusted { why, fix }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rustls_error_inside_an_io_error_is_found() {
        let inner = std::io::Error::new(
            ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer),
        );
        let Cause::NotTrusted { why, fix } = cause_of(&inner) else {
            panic!("not found");
        };
        assert!(why.contains("does not know"), "{why}");
        assert!(fix.contains("--ca-cert"), "{fix}");
    }

    #[test]
    fn a_refused_connection_is_named() {
        let refused = std::io::Error::from(ErrorKind::ConnectionRefused);
        assert_eq!(cause_of(&refused), Cause::Refused);
    }
}
