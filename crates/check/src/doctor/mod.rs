//! `collie-phone doctor`: why can the phone not reach an agent? One read-only pass, step by
//! step: the socket's privacy part by part (SPEC S3) or the URL and token (SPEC T1, T2), the
//! connection and the peer's uid (S4), the pinned certificate (T10), hello (H1, H2, V4), the snapshot's ETag and a 304 on the
//! second read (H4), with round-trip times. Nothing it sends changes the agent.

pub(crate) mod report;
mod wire_steps;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

pub use report::{Report, Step};

use crate::engine::short_name;
use crate::transport::pin::Pin;
use crate::transport::privacy::{current_uid, missing_socket, walk_socket_path};
use crate::transport::tls::{TlsEndpoint, Trust, check_url};
use crate::transport::token::TokenSource;
use crate::transport::{Endpoint, Token};

/// One agent to examine, as the person named it.
#[derive(Debug, Clone)]
pub struct Target {
    pub name: String,
    pub place: Place,
}

#[derive(Debug, Clone)]
pub enum Place {
    Socket(PathBuf),
    Url {
        url: String,
        token_file: Option<PathBuf>,
        ca_cert: Option<PathBuf>,
        pin: Option<Pin>,
    },
}

impl Place {
    /// Where a config file's agent entry points: its socket when it names one, else its URL
    /// with the token file and certificate to use there; None when it names neither.
    pub fn named(
        socket: Option<&Path>,
        url: Option<&str>,
        token_file: Option<&Path>,
        ca_cert: Option<&Path>,
        pin: Option<Pin>,
    ) -> Option<Place> {
        match (socket, url) {
            (Some(path), _) => Some(Place::Socket(path.to_path_buf())),
            (None, Some(url)) => Some(Place::Url {
                url: url.to_string(),
                token_file: token_file.map(Path::to_path_buf),
                ca_cert: ca_cert.map(Path::to_path_buf),
                pin,
            }),
            (None, None) => None,
        }
    }
}

impl Target {
    fn at(&self) -> String {
        match &self.place {
            Place::Socket(path) => format!("unix:{}", path.display()),
            Place::Url { url, .. } => url.clone(),
        }
    }
}

/// The agents named by flags, else by the config file (`configured`, in its order), else
/// `COLLIE_DURABLE_SOCKET` (the same order as the phone's). Unlike the phone, a bad entry is
/// examined, not refused.
pub fn targets(
    sockets: &[PathBuf],
    urls: &[String],
    token_file: Option<&Path>,
    ca_cert: Option<&Path>,
    pin: Option<Pin>,
    configured: impl IntoIterator<Item = Target>,
) -> Vec<Target> {
    let mut targets: Vec<Target> = sockets
        .iter()
        .map(|path| Target {
            name: short_name(&path.display().to_string()),
            place: Place::Socket(path.clone()),
        })
        .collect();
    targets.extend(urls.iter().map(|url| Target {
        name: short_name(url),
        place: Place::Url {
            url: url.clone(),
            token_file: token_file.map(Path::to_path_buf),
            ca_cert: ca_cert.map(Path::to_path_buf),
            pin,
        },
    }));
    targets.extend(configured);
    if targets.is_empty()
        && let Some(path) = std::env::var_os("COLLIE_DURABLE_SOCKET").filter(|p| !p.is_empty())
    {
        targets.push(Target {
            name: "agent".into(),
            place: Place::Socket(PathBuf::from(path)),
        });
    }
    targets
}

/// Examines one agent, read-only, and says what holds.
pub async fn examine(target: &Target) -> Report {
    let mut steps = Vec::new();
    let (endpoint, pin) = match &target.place {
        Place::Socket(path) => (socket_steps(path, &mut steps).await, None),
        Place::Url {
            url,
            token_file,
            ca_cert,
            pin,
        } => {
            let trust = Trust::from_flags(ca_cert.as_deref(), *pin);
            (
                url_steps(url, token_file.as_deref(), trust.as_ref(), &mut steps),
                *pin,
            )
        }
    };
    match endpoint {
        Ok(endpoint) => wire_steps::run(&endpoint, pin, &mut steps).await,
        Err(because) => {
            if pin.is_some() {
                steps.push(Step::not_tried("pin", because.clone()));
            }
            for step in wire_steps::STEPS {
                steps.push(Step::not_tried(*step, because.clone()));
            }
        }
    }
    Report::new(target.name.clone(), target.at(), steps)
}

/// SPEC S1, S3, S4: every part of the path, then a connection and the peer's uid.
async fn socket_steps(path: &Path, steps: &mut Vec<Step>) -> Result<Endpoint, String> {
    let mut private = true;
    for part in walk_socket_path(path) {
        let name = part.role;
        match part.verdict {
            Ok(detail) => steps.push(Step::holds(
                name,
                format!("{}: {detail}", part.part.display()),
            )),
            Err(not_private) => {
                private = false;
                let fix = not_private.fix.clone().or_else(|| {
                    (not_private.why == "does not exist").then(|| {
                        "start the agent, or check the path (collie-phone agent --socket PATH makes the folder private)".to_string()
                    })
                });
                steps.push(Step::fails(
                    name,
                    format!("{}: {}", not_private.part.display(), not_private.why),
                    fix,
                ));
            }
        }
    }
    if let Some(missing) = missing_socket(path) {
        let because = format!("{}, so there is nothing to connect to", missing.what());
        steps.push(Step::not_tried("connect", because.clone()));
        steps.push(Step::not_tried("peer uid", "as above"));
        return Err("as above".into());
    }
    if !private {
        // A path of the wrong shape is no question of privacy (SPEC S1): say which it is.
        let because = if path.is_absolute() {
            "the socket is not private, so the phone connects to nothing (docs/SPEC.md § The socket)"
        } else {
            "the socket path is not absolute, so the phone connects to nothing (docs/SPEC.md § The socket)"
        };
        steps.push(Step::not_tried("connect", because));
        steps.push(Step::not_tried("peer uid", because));
        return Err(because.into());
    }
    let started = std::time::Instant::now();
    let stream = match tokio::net::UnixStream::connect(path).await {
        Ok(stream) => stream,
        Err(e) => {
            let fix = if e.kind() == std::io::ErrorKind::ConnectionRefused {
                "no program listens on it: the agent stopped and left its socket file. Start the agent again (it removes a stale socket)"
            } else {
                "check that the agent is running and listening on this path"
            };
            steps.push(Step::fails(
                "connect",
                format!("could not connect: {e}"),
                Some(fix.into()),
            ));
            steps.push(Step::not_tried("peer uid", "no connection"));
            return Err("no connection".into());
        }
    };
    steps.push(
        Step::holds("connect", "a program listens on the socket").timed(millis(started.elapsed())),
    );
    let ours = current_uid();
    match stream.peer_cred() {
        Ok(peer) if peer.uid() == ours => steps.push(Step::holds(
            "peer uid",
            format!("{} (you), pid {}", peer.uid(), peer_pid(&peer)),
        )),
        Ok(peer) => {
            steps.push(Step::fails(
                "peer uid",
                format!(
                    "the program on the socket runs as uid {}, not as you (uid {ours})",
                    peer.uid()
                ),
                Some("run the agent as your own user".into()),
            ));
            return Err(
                "the program on the socket is not yours (docs/SPEC.md § The socket)".into(),
            );
        }
        Err(e) => {
            steps.push(Step::fails(
                "peer uid",
                format!("could not read the peer's uid: {e}"),
                None,
            ));
            return Err("the peer's uid is unknown".into());
        }
    }
    drop(stream);
    Ok(Endpoint::socket(path.to_path_buf()))
}

fn peer_pid(peer: &tokio::net::unix::UCred) -> String {
    peer.pid()
        .map_or_else(|| "unknown".to_string(), |pid| pid.to_string())
}

/// SPEC T1, T2: the URL, the token and the CA certificate; `trust` is None when both a CA and
/// a pin were given. The pin is checked at the first exchange (`wire_steps`, SPEC T10).
fn url_steps(
    url: &str,
    token_file: Option<&Path>,
    trust: Option<&Trust>,
    steps: &mut Vec<Step>,
) -> Result<Endpoint, String> {
    match check_url(url) {
        Ok(base) => steps.push(Step::holds(
            "url",
            if base.starts_with("https://") {
                format!("{base}: https")
            } else {
                format!("{base}: plain http on loopback, for local tests only")
            },
        )),
        Err(e) => {
            steps.push(Step::fails(
                "url",
                e.to_string(),
                Some("use https://HOST[:PORT], or http://127.0.0.1:PORT for a local agent".into()),
            ));
            steps.push(Step::not_tried(
                "token",
                "the URL is not one the phone dials",
            ));
            return Err(
                "the URL is not one the phone dials (docs/SPEC.md § TLS and the token)".into(),
            );
        }
    }
    let source = TokenSource::from_env(token_file.map(Path::to_path_buf));
    let token = match (&source.file, &source.env) {
        (Some(file), _) => Token::from_file(file)
            .map(|token| {
                let mode = std::fs::metadata(file).map_or(0, |m| m.mode() & 0o777);
                let detail = format!(
                    "{}: {} bytes, mode {mode:04o}",
                    file.display(),
                    token.expose().len()
                );
                (token, detail)
            })
            .map_err(|e| (e.to_string(), token_fix(&e, file))),
        (None, Some(text)) => Token::new(text)
            .map(|token| (token, "from COLLIE_DURABLE_TOKEN".to_string()))
            .map_err(|e| (e.to_string(), None)),
        (None, None) => Err((
            "no token: a URL agent needs one on every request (docs/SPEC.md § TLS and the token)"
                .to_string(),
            Some("give --token-file FILE (mode 0600) or set COLLIE_DURABLE_TOKEN".to_string()),
        )),
    };
    let token = match token {
        Ok((token, detail)) => {
            steps.push(Step::holds("token", detail));
            token
        }
        Err((why, fix)) => {
            steps.push(Step::fails("token", why, fix));
            return Err("there is no usable token".into());
        }
    };
    let Some(trust) = trust else {
        steps.push(Step::fails(
            "ca certificate",
            "both a CA certificate and a pin are given: a pin trusts one certificate, a CA the ones it signs",
            Some("give either --ca-cert (ca-cert) or --pin (pin), not both".into()),
        ));
        return Err("the certificate would be trusted two ways at once".into());
    };
    match TlsEndpoint::trusting(url, token, trust) {
        Ok(endpoint) => {
            if let Trust::CaCert(ca) = trust {
                steps.push(Step::holds(
                    "ca certificate",
                    format!("{}: read", ca.display()),
                ));
            }
            Ok(Endpoint::Tls(endpoint))
        }
        Err(e) => {
            steps.push(Step::fails(
                "ca certificate",
                e.to_string(),
                Some("give --ca-cert with the agent's PEM certificate".into()),
            ));
            Err("TLS could not be set up".into())
        }
    }
}

fn token_fix(error: &crate::transport::token::TokenError, file: &Path) -> Option<String> {
    use crate::transport::token::TokenError;
    match error {
        TokenError::NotPrivate(_) => Some(format!("chmod 600 {}", file.display())),
        TokenError::TooShort | TokenError::BadChar => Some(
            "write a token of at least 32 printable ASCII bytes, e.g. `openssl rand -hex 32`, to the file, and give the agent the same one"
                .into(),
        ),
        TokenError::Unreadable(..) => Some("check the path of --token-file".into()),
    }
}

pub(crate) fn millis(elapsed: std::time::Duration) -> u64 {
    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
}
