//! `collie-phone agent --tls auto` (SPEC T10): the host's own certificate, made once in a private
//! folder and kept across restarts, so the pin a phone was given stays good. An end-entity
//! certificate (not a CA: a CA used as a server's own is refused by every TLS client) for the
//! names and addresses the host answers on. Remade only when a file is missing, does not read, or
//! the certificate has expired.

use std::fs::{self, OpenOptions, Permissions};
use std::io::Write;
use std::net::IpAddr;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, anyhow};
use rcgen::{CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose};
use time::OffsetDateTime;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName, UnixTime};

use super::listen::TlsFiles;
use crate::transport::cause::presented_name;
use crate::transport::pin::Pin;

/// How long a made certificate is good for; the agent makes a new one (and a new pin) at the
/// first start after that.
const LIFETIME: Duration = Duration::from_secs(365 * 24 * 60 * 60);
const CERT_FILE: &str = "cert.pem";
const KEY_FILE: &str = "key.pem";

/// The certificate the agent serves, and how it came to be.
#[derive(Debug, Clone)]
pub struct AutoTls {
    pub files: TlsFiles,
    /// What a phone gives `--pin`.
    pub pin: Pin,
    /// The names and addresses the certificate is for.
    pub names: Vec<String>,
    /// The end of its validity.
    pub not_after: OffsetDateTime,
    pub story: Story,
}

/// Whether the certificate was kept from an earlier start or made now, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Story {
    /// The one of the last start, still good: the pin is unchanged.
    Kept,
    /// There was none.
    Made,
    /// The one there could not be used (why): a new pin.
    Remade(String),
}

/// The certificate in `folder` for an agent listening on `listen`: kept when it is there and
/// good at `now`, else made (the folder 0700, the key 0600).
pub fn ensure(folder: &Path, listen: IpAddr, now: OffsetDateTime) -> anyhow::Result<AutoTls> {
    // The folder holds a private key: it is made 0700, and one that was there is used only
    // when it is ours and nobody else can write in it (SPEC S8).
    crate::transport::own_files::make_private_dir(folder)
        .map_err(|refused| anyhow::anyhow!("the TLS folder is not used: {}", refused.with_fix()))?;
    let files = TlsFiles {
        cert: folder.join(CERT_FILE),
        key: folder.join(KEY_FILE),
    };
    let story = match (files.cert.exists(), files.key.exists()) {
        (false, false) => Story::Made,
        (true, false) => Story::Remade(format!("{} was missing", files.key.display())),
        (false, true) => Story::Remade(format!("{} was missing", files.cert.display())),
        (true, true) => match kept(&files, now) {
            Ok((pin, names, not_after)) => {
                return Ok(AutoTls {
                    files,
                    pin,
                    names,
                    not_after,
                    story: Story::Kept,
                });
            }
            Err(why) => Story::Remade(why),
        },
    };
    let names = names_for(listen);
    let (cert_pem, key_pem, pin, not_after) = make(&names, now)?;
    write_private(&files.key, key_pem.as_bytes())?;
    write_private(&files.cert, cert_pem.as_bytes())?;
    Ok(AutoTls {
        files,
        pin,
        names,
        not_after,
        story,
    })
}

/// The pin, names and end of the certificate already in the folder, or why it cannot be kept.
fn kept(
    files: &TlsFiles,
    now: OffsetDateTime,
) -> Result<(Pin, Vec<String>, OffsetDateTime), String> {
    let cert_pem = fs::read(&files.cert)
        .map_err(|e| format!("{} does not read: {e}", files.cert.display()))?;
    let key_pem =
        fs::read(&files.key).map_err(|e| format!("{} does not read: {e}", files.key.display()))?;
    let cert = rustls_pemfile::certs(&mut cert_pem.as_slice())
        .next()
        .and_then(Result::ok)
        .ok_or_else(|| format!("{} holds no PEM certificate", files.cert.display()))?;
    let key = rustls_pemfile::private_key(&mut key_pem.as_slice())
        .ok()
        .flatten()
        .ok_or_else(|| format!("{} holds no PEM private key", files.key.display()))?;
    let provider = rustls::crypto::ring::default_provider();
    rustls::sign::CertifiedKey::from_der(vec![cert.clone()], key, &provider)
        .map_err(|e| format!("the key does not go with the certificate ({e})"))?;
    let (not_after, names) = validity(&cert, now)?;
    if not_after <= now {
        return Err(format!(
            "the certificate expired on {}",
            shown_time(not_after)
        ));
    }
    if fs::metadata(&files.key).is_ok_and(|m| m.mode() & 0o077 != 0) {
        fs::set_permissions(&files.key, Permissions::from_mode(0o600))
            .map_err(|e| format!("{} could not be made private: {e}", files.key.display()))?;
    }
    Ok((Pin::of_der(&cert), names, not_after))
}

/// The end of `cert`'s validity and its names, as webpki reads them: the certificate is checked
/// as its own trust anchor at the last second of year 9999, when any certificate has expired, and
/// the refusal says when it did. A refusal of another kind means it is not one to keep. The names
/// come from the refusal of a name no certificate has, at `now`.
fn validity(
    cert: &CertificateDer<'static>,
    now: OffsetDateTime,
) -> Result<(OffsetDateTime, Vec<String>), String> {
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(cert.clone())
        .map_err(|e| format!("the certificate does not parse ({e})"))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier =
        rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .map_err(|e| format!("the certificate cannot be checked ({e})"))?;
    let end_of_time = UnixTime::since_unix_epoch(Duration::from_secs(253_402_300_799));
    // webpki checks the dates before the names, so the first refusal is the expiry.
    let nobody = ServerName::try_from("not-a-name.invalid").map_err(|e| e.to_string())?;
    let refusal = rustls::client::danger::ServerCertVerifier::verify_server_cert(
        verifier.as_ref(),
        cert,
        &[],
        &nobody,
        &[],
        end_of_time,
    );
    let not_after = match refusal {
        Err(rustls::Error::InvalidCertificate(rustls::CertificateError::ExpiredContext {
            not_after,
            ..
        })) => not_after,
        Err(other) => return Err(format!("the certificate is not one to serve ({other})")),
        Ok(_) => {
            return Err("the certificate never expires, which is not one this agent made".into());
        }
    };
    let not_after = i64::try_from(not_after.as_secs())
        .ok()
        .and_then(|secs| OffsetDateTime::from_unix_timestamp(secs).ok())
        .ok_or("the certificate's end date is out of range")?;
    let names = match rustls::client::danger::ServerCertVerifier::verify_server_cert(
        verifier.as_ref(),
        cert,
        &[],
        &nobody,
        &[],
        UnixTime::since_unix_epoch(Duration::from_secs(
            u64::try_from(now.unix_timestamp()).unwrap_or_default(),
        )),
    ) {
        Err(rustls::Error::InvalidCertificate(
            rustls::CertificateError::NotValidForNameContext { presented, .. },
        )) => presented.iter().map(|name| presented_name(name)).collect(),
        _ => Vec::new(),
    };
    Ok((not_after, names))
}

/// A self-signed end-entity certificate for `names` valid from a minute before `now` for
/// [`LIFETIME`]: (certificate PEM, key PEM, pin, end).
fn make(
    names: &[String],
    now: OffsetDateTime,
) -> anyhow::Result<(String, String, Pin, OffsetDateTime)> {
    let mut params = CertificateParams::new(names.to_vec())
        .map_err(|e| anyhow!("could not make a certificate for {}: {e}", names.join(", ")))?;
    params.is_ca = IsCa::ExplicitNoCa;
    params.distinguished_name = rcgen::DistinguishedName::new();
    params.distinguished_name.push(
        DnType::CommonName,
        format!(
            "collie-phone agent on {}",
            names.first().map_or("this host", String::as_str)
        ),
    );
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    // Whole seconds: what the certificate holds, so the end said now is the end read later.
    let now = now.replace_nanosecond(0).unwrap_or(now);
    params.not_before = now - time::Duration::minutes(1);
    let not_after = now + LIFETIME;
    params.not_after = not_after;
    let key = KeyPair::generate().map_err(|e| anyhow!("could not make a key: {e}"))?;
    let cert = params
        .self_signed(&key)
        .map_err(|e| anyhow!("could not sign the certificate: {e}"))?;
    Ok((
        cert.pem(),
        key.serialize_pem(),
        Pin::of_der(cert.der()),
        not_after,
    ))
}

/// Writes `path` whole, mode 0600, through a temporary file renamed over it, so a stop halfway
/// never leaves half a key.
fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let temp = path.with_extension("pem.new");
    let _ = fs::remove_file(&temp);
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written.with_context(|| format!("could not write {}", path.display()))
}

/// The names a certificate for an agent on `listen` covers: that address; with a loopback or
/// unspecified one, 127.0.0.1, ::1 and localhost too; with an unspecified one, every address of
/// the machine's interfaces; and the machine's host name.
pub(crate) fn names_for(listen: IpAddr) -> Vec<String> {
    let mut addresses: Vec<IpAddr> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    if listen.is_loopback() || listen.is_unspecified() {
        addresses.push(IpAddr::from([127, 0, 0, 1]));
        addresses.push(IpAddr::from(std::net::Ipv6Addr::LOCALHOST));
        names.push("localhost".into());
    }
    if listen.is_unspecified() {
        addresses.extend(interface_addresses());
    } else {
        addresses.insert(0, listen);
    }
    if let Some(host) = host_name().filter(|host| host != "localhost") {
        names.push(host);
    }
    let mut all: Vec<String> = Vec::new();
    for name in addresses.iter().map(IpAddr::to_string).chain(names) {
        if !all.contains(&name) {
            all.push(name);
        }
    }
    all
}

/// The machine's host name, when it has one that can be a DNS name.
pub fn host_name() -> Option<String> {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is writable for its whole length, which is what we pass.
    let result = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    if result != 0 {
        return None;
    }
    let end = buffer.iter().position(|b| *b == 0).unwrap_or(buffer.len());
    let name = std::str::from_utf8(&buffer[..end]).ok()?.trim().to_string();
    let usable = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    usable.then_some(name)
}

/// Every address on the machine's interfaces, loopback left out (it is named already), IPv6
/// link-local left out (it needs a zone no URL of a certificate carries).
fn interface_addresses() -> Vec<IpAddr> {
    let mut found = Vec::new();
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs writes a list it allocated to `list`, which freeifaddrs frees below.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return found;
    }
    let mut next = list;
    while !next.is_null() {
        // SAFETY: `next` is a node of the list getifaddrs made, not yet freed.
        let entry = unsafe { &*next };
        next = entry.ifa_next;
        if entry.ifa_addr.is_null() {
            continue;
        }
        // SAFETY: ifa_addr is non-null and points at a sockaddr whose family says its shape.
        let address = unsafe {
            match i32::from((*entry.ifa_addr).sa_family) {
                libc::AF_INET => {
                    let four = &*entry.ifa_addr.cast::<libc::sockaddr_in>();
                    Some(IpAddr::from(
                        u32::from_be(four.sin_addr.s_addr).to_be_bytes(),
                    ))
                }
                libc::AF_INET6 => {
                    let six = &*entry.ifa_addr.cast::<libc::sockaddr_in6>();
                    let six = std::net::Ipv6Addr::from(six.sin6_addr.s6_addr);
                    (!six.is_unicast_link_local()).then_some(IpAddr::from(six))
                }
                _ => None,
            }
        };
        if let Some(address) = address
            && !address.is_loopback()
            && !found.contains(&address)
        {
            found.push(address);
        }
    }
    // SAFETY: `list` came from getifaddrs and is freed once.
    unsafe { libc::freeifaddrs(list) };
    found
}

/// A certificate's time, to the minute, in UTC.
pub fn shown_time(at: OffsetDateTime) -> String {
    let format = time::macros::format_description!("[year]-[month]-[day] [hour]:[minute] UTC");
    at.to_offset(time::UtcOffset::UTC)
        .format(format)
        .unwrap_or_else(|_| at.to_string())
}

/// Where `--tls auto` keeps its files: `tls/` in the agent's `--state` folder.
pub fn folder_in(state: &Path) -> PathBuf {
    state.join("tls")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }

    #[test]
    fn t10_a_certificate_is_made_once_kept_on_restart_and_private() {
        let dir = tempfile::tempdir().expect("dir");
        let folder = dir.path().join("tls");
        let first = ensure(&folder, IpAddr::from([127, 0, 0, 1]), at()).expect("made");
        assert_eq!(first.story, Story::Made);
        for name in ["127.0.0.1", "::1", "localhost"] {
            assert!(first.names.iter().any(|n| n == name), "{:?}", first.names);
        }
        let mode = |path: &Path| fs::metadata(path).expect("meta").mode() & 0o777;
        assert_eq!(mode(&folder), 0o700);
        assert_eq!(mode(&first.files.key), 0o600);
        let again = ensure(&folder, IpAddr::from([127, 0, 0, 1]), at()).expect("kept");
        assert_eq!(again.story, Story::Kept);
        assert_eq!(again.pin, first.pin);
        assert_eq!(again.not_after, first.not_after);
        assert_eq!(again.names, first.names);
    }

    #[test]
    fn t10_an_expired_or_half_missing_certificate_is_remade_and_says_why() {
        let dir = tempfile::tempdir().expect("dir");
        let folder = dir.path().join("tls");
        let first = ensure(&folder, IpAddr::from([127, 0, 0, 1]), at()).expect("made");
        let later = at() + LIFETIME + Duration::from_secs(60);
        let remade = ensure(&folder, IpAddr::from([127, 0, 0, 1]), later).expect("remade");
        let Story::Remade(why) = &remade.story else {
            panic!("{:?}", remade.story);
        };
        assert!(why.starts_with("the certificate expired on "), "{why}");
        assert_ne!(remade.pin, first.pin);
        fs::remove_file(&remade.files.key).expect("remove");
        let again = ensure(&folder, IpAddr::from([127, 0, 0, 1]), at()).expect("remade");
        assert!(matches!(&again.story, Story::Remade(why) if why.ends_with("key.pem was missing")));
    }

    #[test]
    fn t10_the_made_certificate_is_no_ca() {
        let names = vec!["localhost".to_string()];
        let (cert_pem, _, _, _) = make(&names, at()).expect("made");
        let cert = rustls_pemfile::certs(&mut cert_pem.as_bytes())
            .next()
            .expect("one")
            .expect("parses");
        // webpki refuses a CA as a server's own with CaUsedAsEndEntity; ours gets to the names.
        let (_, seen) = validity(&cert, at()).expect("usable");
        assert_eq!(seen, names);
    }

    #[test]
    fn t10_names_for_an_unspecified_address_cover_loopback_and_the_host() {
        let names = names_for(IpAddr::from([0, 0, 0, 0]));
        assert!(names.iter().any(|n| n == "127.0.0.1"), "{names:?}");
        assert!(names.iter().any(|n| n == "localhost"), "{names:?}");
        assert!(!names.iter().any(|n| n == "0.0.0.0"), "{names:?}");
        if let Some(host) = host_name() {
            assert!(names.contains(&host), "{names:?}");
        }
        let names = names_for(IpAddr::from([192, 0, 2, 7]));
        assert_eq!(names[0], "192.0.2.7");
        assert!(!names.iter().any(|n| n == "localhost"), "{names:?}");
    }
}
