//! `--record FILE`: every exchange with the agents as one JSON line, bodies whole, with timings,
//! so `collie-phone replay FILE` can play it back (docs/RECORDING.md has the format).
//!
//! The token never reaches this file by construction: the TLS transport adds `Authorization`
//! itself, after the [`Request`] the recorder sees, and an agent's address never holds it (SPEC
//! T1 forbids credentials in the URL). A request that carried the header says so with
//! `"authorization": "[redacted]"`.
//!
//! Writing happens on a thread of its own, fed through a channel, so a poll never waits on the
//! disk; the thread flushes whenever it has caught up, and once more when the engine stops.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Instant;

use anyhow::{Context, bail};
use base64::Engine as _;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use tokio::sync::mpsc::UnboundedSender;

use super::{AgentSpec, ExchangeRecord, FromEngine};
use crate::transport::{Reply, Request, TransportError};

/// The `format` of a recording's first line.
pub const FORMAT: &str = "collie-phone-recording";
/// The version of the format this program writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// What stands in for a secret header's value.
pub const REDACTED: &str = "[redacted]";
/// The header that carries the token over TLS (SPEC T2).
const AUTHORIZATION: &str = "authorization";
/// Most of an existing file read to see whether it is a recording (a header line is far less).
const FIRST_LINE_BYTES: u64 = 64 * 1024;

/// One line of a recording: the header first, then one line per exchange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum RecordLine {
    Header(RecordHeader),
    Exchange(RecordedExchange),
}

/// The first line: what made the recording, when, and of which agents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordHeader {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`] of the program that wrote it.
    pub version: u32,
    /// The collie-phone version that wrote it.
    pub collie_phone: String,
    #[serde(with = "time::serde::rfc3339")]
    pub started: OffsetDateTime,
    pub agents: Vec<RecordedAgent>,
}

/// An agent of the recording: its name and where it was, never its token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedAgent {
    pub name: String,
    pub kind: AgentKind,
    /// `unix:PATH` or the URL as given.
    pub address: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentKind {
    Socket,
    Url,
}

/// One exchange, whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedExchange {
    /// When the request left, in ms since the recording began.
    pub since_start_ms: u64,
    /// When the request left, by the wall clock.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    pub agent: String,
    pub method: String,
    /// With `/session/v1` and the query.
    pub path: String,
    /// The request's headers by lower-case name; `authorization` only ever as [`REDACTED`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub request_headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_body: Option<RecordedBody>,
    /// None when no reply came; `error` says why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_body: Option<RecordedBody>,
    pub elapsed_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A body as it went: UTF-8 as a string, anything else as `{"base64": "…"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RecordedBody {
    Text(String),
    Binary { base64: String },
}

impl RecordedBody {
    pub fn from_bytes(bytes: &[u8]) -> Self {
        match std::str::from_utf8(bytes) {
            Ok(text) => Self::Text(text.to_string()),
            Err(_) => Self::Binary {
                base64: base64::engine::general_purpose::STANDARD.encode(bytes),
            },
        }
    }

    /// The bytes that went over the wire; None when the base64 does not decode.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        match self {
            Self::Text(text) => Some(text.as_bytes().to_vec()),
            Self::Binary { base64 } => base64::engine::general_purpose::STANDARD
                .decode(base64)
                .ok(),
        }
    }
}

/// What the poll loop hands the writer: owned, cheap to clone, not yet encoded.
struct Pending {
    since_start_ms: u64,
    at: OffsetDateTime,
    agent: String,
    method: &'static str,
    path: String,
    request_headers: BTreeMap<String, String>,
    request_body: Option<Vec<u8>>,
    outcome: Result<(u16, Option<String>, Option<String>, Bytes), String>,
    elapsed_ms: u64,
}

impl Pending {
    fn into_line(self) -> RecordLine {
        let (status, etag, location, reply_body, error) = match self.outcome {
            Ok((status, etag, location, body)) => (
                Some(status),
                etag,
                location,
                Some(RecordedBody::from_bytes(&body)),
                None,
            ),
            Err(error) => (None, None, None, None, Some(error)),
        };
        RecordLine::Exchange(RecordedExchange {
            since_start_ms: self.since_start_ms,
            at: self.at,
            agent: self.agent,
            method: self.method.to_string(),
            path: self.path,
            request_headers: self.request_headers,
            request_body: self.request_body.as_deref().map(RecordedBody::from_bytes),
            status,
            etag,
            location,
            reply_body,
            elapsed_ms: self.elapsed_ms,
            error,
        })
    }
}

/// Hands exchanges to the writer thread. Cloned into every session and the intent runner;
/// [`Recorder::off`] records nothing.
#[derive(Clone)]
pub struct Recorder {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    began: Instant,
    /// Agents reached over TLS, whose every request carried the token (SPEC T2).
    tls: HashMap<String, bool>,
    lines: Mutex<Option<mpsc::Sender<Pending>>>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

impl Recorder {
    pub fn off() -> Self {
        Self { inner: None }
    }

    /// Creates the file (mode 0600: it may hold private chat), writes the header line and starts
    /// the writer. Refuses to overwrite a file that is not a recording.
    pub fn create(
        path: &Path,
        agents: &[AgentSpec],
        updates: UnboundedSender<FromEngine>,
    ) -> anyhow::Result<Self> {
        refuse_foreign_file(path)?;
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .with_context(|| format!("could not create the recording {}", path.display()))?;
        // A file that existed keeps its old mode through open(2): make it private too.
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
            .with_context(|| format!("could not make the recording {} private", path.display()))?;
        let header = RecordLine::Header(RecordHeader {
            format: FORMAT.into(),
            version: FORMAT_VERSION,
            collie_phone: env!("CARGO_PKG_VERSION").into(),
            started: OffsetDateTime::now_utc(),
            agents: agents
                .iter()
                .map(|a| RecordedAgent {
                    name: a.name.clone(),
                    kind: if a.endpoint.is_tls() {
                        AgentKind::Url
                    } else {
                        AgentKind::Socket
                    },
                    address: a.endpoint.describe(),
                })
                .collect(),
        });
        let mut out = BufWriter::new(file);
        write_line(&mut out, &header)
            .and_then(|()| out.flush())
            .with_context(|| format!("could not write to the recording {}", path.display()))?;
        let (lines, received) = mpsc::channel();
        let target = path.to_path_buf();
        let writer = std::thread::Builder::new()
            .name("recorder".into())
            .spawn(move || write_all(out, received, &target, &updates))
            .context("could not start the recording's writer")?;
        tracing::info!(file = %path.display(), "recording every exchange");
        Ok(Self {
            inner: Some(Arc::new(Inner {
                began: Instant::now(),
                tls: agents
                    .iter()
                    .map(|a| (a.name.clone(), a.endpoint.is_tls()))
                    .collect(),
                lines: Mutex::new(Some(lines)),
                writer: Mutex::new(Some(writer)),
            })),
        })
    }

    /// Records one exchange that began at `started`. Cheap: the encoding and the disk are the
    /// writer's.
    pub fn exchange(
        &self,
        agent: &str,
        request: &Request,
        result: Result<&Reply, &TransportError>,
        started: Instant,
    ) {
        let Some(inner) = &self.inner else { return };
        let elapsed = started.elapsed();
        let mut request_headers: BTreeMap<String, String> = request
            .headers
            .iter()
            .map(|(name, value)| {
                let name = name.to_ascii_lowercase();
                let value = if name == AUTHORIZATION {
                    REDACTED.to_string()
                } else {
                    value.clone()
                };
                (name, value)
            })
            .collect();
        if inner.tls.get(agent).copied().unwrap_or(false) {
            request_headers.insert(AUTHORIZATION.into(), REDACTED.into());
        }
        let pending = Pending {
            since_start_ms: millis(started.saturating_duration_since(inner.began)),
            at: OffsetDateTime::now_utc() - elapsed,
            agent: agent.to_string(),
            method: request.method.as_str(),
            path: request.path.clone(),
            request_headers,
            request_body: request.body.clone(),
            outcome: match result {
                Ok(reply) => Ok((
                    reply.status,
                    reply.etag.clone(),
                    reply.location.clone(),
                    reply.body.clone(),
                )),
                Err(error) => Err(error.to_string()),
            },
            elapsed_ms: millis(elapsed),
        };
        if let Ok(lines) = inner.lines.lock()
            && let Some(lines) = lines.as_ref()
        {
            // A closed channel means the writer stopped after a failure it already reported.
            let _ = lines.send(pending);
        }
    }
}

impl Drop for Inner {
    /// The last clone is gone: let the writer drain, flush and end before the program does.
    fn drop(&mut self) {
        if let Ok(mut lines) = self.lines.lock() {
            lines.take();
        }
        if let Ok(mut writer) = self.writer.lock()
            && let Some(writer) = writer.take()
            && writer.join().is_err()
        {
            tracing::error!("the recording's writer panicked; its last lines may be missing");
        }
    }
}

fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `--record` onto an existing file that is not a recording is almost surely a slip: refuse
/// rather than destroy it. Only a regular file (or none) may be written.
fn refuse_foreign_file(path: &Path) -> anyhow::Result<()> {
    let Ok(metadata) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    if metadata.file_type().is_symlink() {
        bail!(
            "{} is a symbolic link; give --record the real file's path",
            path.display()
        );
    }
    if !metadata.is_file() {
        bail!(
            "{} is not a regular file; give --record a file name",
            path.display()
        );
    }
    let file = File::open(path)
        .with_context(|| format!("could not read the existing file {}", path.display()))?;
    let mut first = String::new();
    let read = BufReader::new(file.take(FIRST_LINE_BYTES))
        .read_line(&mut first)
        .unwrap_or(0);
    let ours = matches!(
        serde_json::from_str::<RecordLine>(first.trim_end()),
        Ok(RecordLine::Header(header)) if header.format == FORMAT
    );
    if read > 0 && !ours {
        bail!(
            "{} exists and is not a recording; refusing to overwrite it. Give --record a new file name",
            path.display()
        );
    }
    Ok(())
}

/// Bodies stay whole, so a replay plays the agent back byte for byte; only the phone's own
/// secrets go (issue 12), wherever an agent echoed them.
fn write_line(out: &mut impl Write, line: &RecordLine) -> std::io::Result<()> {
    let text = serde_json::to_string(line)?;
    out.write_all(crate::out::secrets::scrub(&text).as_bytes())?;
    out.write_all(b"\n")
}

/// The writer thread: encodes and writes each exchange, flushes whenever it has caught up, and
/// on the first failure says so once (log and the wire inspector) and stops writing.
fn write_all(
    mut out: BufWriter<File>,
    lines: mpsc::Receiver<Pending>,
    path: &Path,
    updates: &UnboundedSender<FromEngine>,
) {
    let mut failed = false;
    while let Ok(first) = lines.recv() {
        let mut batch = vec![first];
        batch.extend(lines.try_iter());
        if failed {
            continue;
        }
        let mut last = None;
        let mut result = Ok(());
        for pending in batch {
            last = Some((pending.agent.clone(), pending.method, pending.path.clone()));
            result = write_line(&mut out, &pending.into_line());
            if result.is_err() {
                break;
            }
        }
        if let Err(error) = result.and_then(|()| out.flush()) {
            failed = true;
            let why = format!(
                "could not write the recording {}: {error}; recording stopped, the phone goes on without it",
                path.display()
            );
            tracing::error!("{why}");
            if let Some((agent, method, path)) = last {
                let _ = updates.send(FromEngine::Exchange(ExchangeRecord {
                    at: OffsetDateTime::now_utc(),
                    agent,
                    method,
                    path,
                    status: None,
                    error: Some(why),
                    reply_bytes: 0,
                    millis: 0,
                    request_id: None,
                    request_body: String::new(),
                    reply_body: String::new(),
                }));
            }
        }
    }
    if !failed && let Err(error) = out.flush() {
        tracing::error!(file = %path.display(), %error, "could not write the end of the recording");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_keep_text_as_text_and_the_rest_as_base64() {
        let text = RecordedBody::from_bytes("{\"a\":\"é\"}".as_bytes());
        assert_eq!(text, RecordedBody::Text("{\"a\":\"é\"}".into()));
        let binary = RecordedBody::from_bytes(&[0xff, 0x00, 0x41]);
        let line = serde_json::to_string(&binary).expect("encodes");
        assert_eq!(line, r#"{"base64":"/wBB"}"#);
        let back: RecordedBody = serde_json::from_str(&line).expect("decodes");
        assert_eq!(back.to_bytes(), Some(vec![0xff, 0x00, 0x41]));
    }

    fn pending(path: &str) -> Pending {
        Pending {
            since_start_ms: 1,
            at: OffsetDateTime::UNIX_EPOCH,
            agent: "a".into(),
            method: "GET",
            path: path.into(),
            request_headers: BTreeMap::new(),
            request_body: None,
            outcome: Ok((200, None, None, Bytes::from_static(b"{}"))),
            elapsed_ms: 1,
        }
    }

    /// A disk that refuses the writes is told once, in the log and the wire inspector, and the
    /// writer then stops writing.
    #[test]
    fn a_failed_write_is_told_once() {
        let Ok(full) = OpenOptions::new().write(true).open("/dev/full") else {
            return;
        };
        let (lines, received) = mpsc::channel();
        let (updates, mut told) = tokio::sync::mpsc::unbounded_channel();
        for _ in 0..3 {
            lines
                .send(pending("/session/v1/hello"))
                .expect("the channel is open");
        }
        drop(lines);
        write_all(
            BufWriter::with_capacity(16, full),
            received,
            Path::new("/dev/full"),
            &updates,
        );
        let Ok(FromEngine::Exchange(notice)) = told.try_recv() else {
            panic!("the failure was told");
        };
        let why = notice.error.expect("an error");
        assert!(
            why.starts_with("could not write the recording /dev/full"),
            "{why}"
        );
        assert!(told.try_recv().is_err(), "told once");
    }

    #[test]
    fn a_line_names_its_type_first() {
        let header = RecordLine::Header(RecordHeader {
            format: FORMAT.into(),
            version: FORMAT_VERSION,
            collie_phone: "0.1.0".into(),
            started: OffsetDateTime::UNIX_EPOCH,
            agents: vec![],
        });
        let text = serde_json::to_string(&header).expect("encodes");
        assert!(text.starts_with(r#"{"type":"header","format":"collie-phone-recording""#));
        assert_eq!(
            serde_json::from_str::<RecordLine>(&text).expect("decodes"),
            header
        );
    }
}
