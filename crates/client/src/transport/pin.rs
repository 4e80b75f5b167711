//! A pinned certificate (SPEC T10): `--pin sha256:AB:CD:…` trusts exactly the certificate whose
//! DER has that SHA-256, with no CA chain and no name to match. The handshake's signatures are
//! still checked against that certificate's key with the provider's algorithms, so whoever answers
//! must hold its private key: a pin is never "accept anything".

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, OtherError, SignatureScheme};
use sha2::{Digest, Sha256};

/// The SHA-256 of a certificate's DER. Written `sha256:` and 32 bytes of upper-case hex joined
/// by colons (the form `openssl x509 -noout -fingerprint -sha256` prints); read with or without
/// the colons, in either case.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pin([u8; 32]);

impl Pin {
    /// The fingerprint of a certificate, given as DER.
    pub fn of_der(der: &[u8]) -> Self {
        Self(Sha256::digest(der).into())
    }
}

impl fmt::Display for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("sha256:")?;
        for (at, byte) in self.0.iter().enumerate() {
            if at > 0 {
                f.write_str(":")?;
            }
            write!(f, "{byte:02X}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a `--pin` or `pin = "…"` is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a pin: write sha256: and the certificate's 64 hex digits, with or without colons (`collie-phone agent --tls auto` prints it)"
)]
pub struct PinError(String);

impl FromStr for Pin {
    type Err = PinError;

    fn from_str(text: &str) -> Result<Self, PinError> {
        let refuse = || PinError(text.to_string());
        let trimmed = text.trim();
        let digits = trimmed
            .get(..7)
            .filter(|prefix| prefix.eq_ignore_ascii_case("sha256:"))
            .map(|_| &trimmed[7..])
            .ok_or_else(refuse)?;
        let digits: String = digits.chars().filter(|c| *c != ':').collect();
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(&digits, &mut bytes).map_err(|_| refuse())?;
        Ok(Self(bytes))
    }
}

impl<'de> serde::Deserialize<'de> for Pin {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The certificate the agent showed is not the pinned one; carried to `cause.rs` inside
/// rustls's `CertificateError::Other`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the certificate is {got}, not the pinned {expected}")]
pub(crate) struct PinMismatch {
    pub(crate) expected: Pin,
    pub(crate) got: Pin,
}

/// Trusts the one certificate with the pin's fingerprint, and checks the handshake's signatures
/// with its key (SPEC T10).
#[derive(Debug)]
pub(crate) struct PinVerifier {
    pin: Pin,
    algorithms: WebPkiSupportedAlgorithms,
}

impl PinVerifier {
    pub(crate) fn new(pin: Pin, algorithms: WebPkiSupportedAlgorithms) -> Self {
        Self { pin, algorithms }
    }
}

impl ServerCertVerifier for PinVerifier {
    /// The pin names the certificate itself, so neither its issuer nor its names are asked
    /// about: a match is the whole check, and anything else is refused with both fingerprints.
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let got = Pin::of_der(end_entity);
        if got == self.pin {
            return Ok(ServerCertVerified::assertion());
        }
        Err(rustls::Error::InvalidCertificate(CertificateError::Other(
            OtherError(Arc::new(PinMismatch {
                expected: self.pin,
                got,
            })),
        )))
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t10_a_pin_is_read_with_or_without_colons_in_either_case() {
        let pin = Pin::of_der(b"a certificate");
        let written = pin.to_string();
        assert!(written.starts_with("sha256:"), "{written}");
        assert_eq!(written.len(), 7 + 32 * 3 - 1);
        assert_eq!(written.parse::<Pin>(), Ok(pin));
        assert_eq!(written.to_lowercase().parse::<Pin>(), Ok(pin));
        let bare = format!("SHA256:{}", written[7..].replace(':', ""));
        assert_eq!(bare.parse::<Pin>(), Ok(pin));
        for wrong in [
            "",
            "sha256:",
            "AB:CD",
            &written[7..],
            "sha1:ab",
            "sha256:zz",
        ] {
            let refused = wrong.parse::<Pin>().expect_err(wrong);
            assert!(refused.to_string().contains("--tls auto"), "{refused}");
        }
    }

    #[test]
    fn t10_another_certificate_is_refused_with_both_fingerprints() {
        let provider = rustls::crypto::ring::default_provider();
        let ours = CertificateDer::from(b"ours".to_vec());
        let theirs = CertificateDer::from(b"theirs".to_vec());
        let verifier = PinVerifier::new(
            Pin::of_der(&ours),
            provider.signature_verification_algorithms,
        );
        let name = ServerName::try_from("agent.example").expect("a name");
        assert!(
            verifier
                .verify_server_cert(&ours, &[], &name, &[], UnixTime::now())
                .is_ok()
        );
        let refused = verifier
            .verify_server_cert(&theirs, &[], &name, &[], UnixTime::now())
            .expect_err("another certificate");
        let rustls::Error::InvalidCertificate(CertificateError::Other(other)) = refused else {
            panic!("{refused:?}");
        };
        let mismatch = other.0.downcast_ref::<PinMismatch>().expect("a mismatch");
        assert_eq!(mismatch.expected, Pin::of_der(&ours));
        assert_eq!(mismatch.got, Pin::of_der(&theirs));
    }
}
