//! Why an HTTP exchange failed, in the phone's own words: the error chain of reqwest (hyper,
//! rustls, the OS) is walked and named, so a screen never shows a library's sentence such as
//! "error sending request for url (…)" in place of the cause.

use std::error::Error;
use std::io::ErrorKind;

use rustls::CertificateError;
use rustls::pki_types::UnixTime;

use super::pin::PinMismatch;

/// The cause found in an error's chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cause {
    /// The peer's certificate was refused, with why in plain words and what helps.
    NotTrusted { why: String, fix: String },
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

/// What helps when the certificate is signed by an authority the phone does not know.
const GIVE_CA_OR_PIN: &str = "give its CA with --ca-cert FILE, or trust that one certificate with --pin sha256:… (`collie-phone agent --tls auto` makes a certificate and prints the pin)";

/// What helps when the certificate is one no TLS client accepts as a server's own.
const MAKE_END_ENTITY: &str = "give the agent a certificate that is not a CA: `openssl req -x509` makes a CA one unless you add `-addext basicConstraints=critical,CA:FALSE`; or start the agent with `--tls auto`, which makes a right one and prints the phone command; or trust this one as it is with --pin sha256:… (`openssl x509 -noout -fingerprint -sha256 -in CERT` prints it)";

fn of_rustls(error: &rustls::Error) -> Cause {
    let (why, fix): (String, String) = match error {
        rustls::Error::InvalidCertificate(certificate) => of_certificate(certificate),
        rustls::Error::NoCertificatesPresented => (
            "the agent showed no certificate that can be checked".into(),
            GIVE_CA_OR_PIN.into(),
        ),
        other => return Cause::Tls(other.to_string()),
    };
    Cause::NotTrusted { why, fix }
}

/// Why rustls refused the agent's certificate, and what makes one it accepts.
fn of_certificate(certificate: &CertificateError) -> (String, String) {
    const RENEW: &str = "renew the agent's certificate (`collie-phone agent --tls auto` remakes an expired one when it starts)";
    match certificate {
        CertificateError::UnknownIssuer => (
            "it is signed by an authority this phone does not know, such as itself".into(),
            GIVE_CA_OR_PIN.into(),
        ),
        CertificateError::ExpiredContext { not_after, .. } => {
            (format!("it expired on {}", when(*not_after)), RENEW.into())
        }
        CertificateError::Expired => ("it has expired".into(), RENEW.into()),
        CertificateError::NotValidYetContext { not_before, .. } => (
            format!("it is valid only from {}", when(*not_before)),
            "check the clocks here and on the agent".into(),
        ),
        CertificateError::NotValidYet => (
            "it is not valid yet".into(),
            "check the clocks here and on the agent".into(),
        ),
        CertificateError::NotValidForNameContext {
            expected,
            presented,
        } => {
            let dialed = expected.to_str();
            let names: Vec<String> = presented.iter().map(|name| presented_name(name)).collect();
            let has = if names.is_empty() {
                "no name at all".to_string()
            } else {
                names.join(", ")
            };
            (
                format!("it is made for {has}, not for {dialed}, the address dialed"),
                format!(
                    "dial one of the names it has, or give the agent a certificate for {dialed} (`collie-phone agent --tls auto` names the host's own names and addresses), or trust it with --pin"
                ),
            )
        }
        CertificateError::NotValidForName => (
            "it is made for another host name than the one dialed".into(),
            "dial the host name the certificate names, or trust it with --pin".into(),
        ),
        CertificateError::Revoked => (
            "it was revoked".into(),
            "renew the agent's certificate".into(),
        ),
        // Also what a self-signed certificate gets when a known authority has the same name.
        CertificateError::BadSignature => (
            "its signature does not check against the authority it names".into(),
            GIVE_CA_OR_PIN.into(),
        ),
        CertificateError::Other(other) => {
            if let Some(mismatch) = other.0.downcast_ref::<PinMismatch>() {
                return (
                    format!(
                        "it is {}, not the pinned {}",
                        mismatch.got, mismatch.expected
                    ),
                    "if the certificate was remade on the host, copy the new phone command the agent printed when it started; if not, another server answers at this address".into(),
                );
            }
            match other.0.downcast_ref::<webpki::Error>() {
                Some(webpki::Error::CaUsedAsEndEntity) => (
                    "it is a CA certificate (basicConstraints CA:TRUE), which may sign others but cannot be a server's own".into(),
                    MAKE_END_ENTITY.into(),
                ),
                Some(webpki::Error::EndEntityUsedAsCa) => (
                    "the chain uses a server's own certificate as its CA".into(),
                    GIVE_CA_OR_PIN.into(),
                ),
                _ => (other.0.to_string(), GIVE_CA_OR_PIN.into()),
            }
        }
        other => (format!("{other:?}"), GIVE_CA_OR_PIN.into()),
    }
}

/// A name as webpki lists a certificate's names (`DnsName("localhost")`, `IpAddress(0::1)`),
/// as a person writes it (`localhost`, `::1`).
pub fn presented_name(presented: &str) -> String {
    let bare = presented
        .strip_prefix("DnsName(\"")
        .and_then(|rest| rest.strip_suffix("\")"))
        .or_else(|| {
            presented
                .strip_prefix("IpAddress(")
                .and_then(|rest| rest.strip_suffix(')'))
        })
        .unwrap_or(presented);
    bare.parse::<std::net::IpAddr>()
        .map_or_else(|_| bare.to_string(), |ip| ip.to_string())
}

/// A certificate's time, to the minute, in UTC.
fn when(time: UnixTime) -> String {
    let format = time::macros::format_description!("[year]-[month]-[day] [hour]:[minute] UTC");
    i64::try_from(time.as_secs())
        .ok()
        .and_then(|secs| time::OffsetDateTime::from_unix_timestamp(secs).ok())
        .and_then(|at| at.format(format).ok())
        .unwrap_or_else(|| format!("{} s after 1970", time.as_secs()))
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

    use std::sync::Arc;

    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
    use rustls::client::WebPkiServerVerifier;
    use rustls::client::danger::ServerCertVerifier;
    use rustls::pki_types::{CertificateDer, ServerName};

    /// A self-signed certificate for `names`, shaped by `shape`.
    fn certificate(
        names: &[&str],
        shape: impl FnOnce(&mut CertificateParams),
    ) -> CertificateDer<'static> {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let mut params = CertificateParams::new(names).expect("params");
        shape(&mut params);
        let key = KeyPair::generate().expect("a key");
        params
            .self_signed(&key)
            .expect("a certificate")
            .der()
            .clone()
    }

    /// What rustls says of `presented` dialed as `name`, trusting `root` as the CA (as
    /// `--ca-cert` does), put in the words the phone shows.
    fn refusal(
        presented: &CertificateDer<'static>,
        root: &CertificateDer<'static>,
        name: &str,
    ) -> (String, String) {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(root.clone()).expect("a root");
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .expect("a verifier");
        let name = ServerName::try_from(name.to_string()).expect("a name");
        let error = verifier
            .verify_server_cert(presented, &[], &name, &[], UnixTime::now())
            .expect_err("refused");
        let Cause::NotTrusted { why, fix } = of_rustls(&error) else {
            panic!("not a refusal: {error:?}");
        };
        (why, fix)
    }

    #[test]
    fn t10_a_ca_certificate_as_the_agents_own_says_so_and_how_to_make_one_that_works() {
        let ca = certificate(&["127.0.0.1"], |p| {
            p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        });
        let (why, fix) = refusal(&ca, &ca, "127.0.0.1");
        assert_eq!(
            why,
            "it is a CA certificate (basicConstraints CA:TRUE), which may sign others but cannot be a server's own"
        );
        assert!(
            fix.contains("-addext basicConstraints=critical,CA:FALSE"),
            "{fix}"
        );
        assert!(fix.contains("--tls auto"), "{fix}");
    }

    #[test]
    fn t10_a_name_that_does_not_match_names_the_address_dialed_and_the_certificates_names() {
        let cert = certificate(&["localhost", "127.0.0.1"], |_| {});
        let (why, fix) = refusal(&cert, &cert, "agent.example");
        assert_eq!(
            why,
            "it is made for localhost, 127.0.0.1, not for agent.example, the address dialed"
        );
        assert!(fix.contains("a certificate for agent.example"), "{fix}");
        assert!(fix.contains("--pin"), "{fix}");
    }

    #[test]
    fn t10_an_expired_certificate_says_when() {
        let cert = certificate(&["localhost"], |p| {
            p.not_before = time::macros::datetime!(2020-01-01 00:00 UTC);
            p.not_after = time::macros::datetime!(2021-03-04 05:06 UTC);
        });
        let (why, fix) = refusal(&cert, &cert, "localhost");
        assert_eq!(why, "it expired on 2021-03-04 05:06 UTC");
        assert!(fix.contains("--tls auto"), "{fix}");
    }

    #[test]
    fn t10_an_unknown_issuer_offers_the_ca_and_the_pin() {
        let cert = certificate(&["localhost"], |_| {});
        // Another subject, so the chain is looked for and not found, as for a stranger's CA.
        let other = certificate(&["localhost"], |p| {
            p.distinguished_name
                .push(rcgen::DnType::CommonName, "another authority");
        });
        let (why, fix) = refusal(&cert, &other, "localhost");
        assert_eq!(
            why,
            "it is signed by an authority this phone does not know, such as itself"
        );
        assert!(fix.starts_with("give its CA with --ca-cert FILE"), "{fix}");
        assert!(fix.contains("--pin sha256:"), "{fix}");
        assert!(fix.contains("--tls auto"), "{fix}");
    }

    #[test]
    fn t10_another_certificate_than_the_pinned_one_names_both_fingerprints() {
        use crate::transport::pin::{Pin, PinVerifier};
        let pinned = certificate(&["localhost"], |_| {});
        let shown = certificate(&["localhost"], |_| {});
        let provider = rustls::crypto::ring::default_provider();
        let verifier = PinVerifier::new(
            Pin::of_der(&pinned),
            provider.signature_verification_algorithms,
        );
        let name = ServerName::try_from("localhost").expect("a name");
        let error = verifier
            .verify_server_cert(&shown, &[], &name, &[], UnixTime::now())
            .expect_err("refused");
        let Cause::NotTrusted { why, fix } = of_rustls(&error) else {
            panic!("not a refusal: {error:?}");
        };
        assert_eq!(
            why,
            format!(
                "it is {}, not the pinned {}",
                Pin::of_der(&shown),
                Pin::of_der(&pinned)
            )
        );
        assert!(fix.contains("copy the new phone command"), "{fix}");
    }

    #[test]
    fn a_refused_connection_is_named() {
        let refused = std::io::Error::from(ErrorKind::ConnectionRefused);
        assert_eq!(cause_of(&refused), Cause::Refused);
    }
}
