//! `--record FILE`: every exchange with the agents as one JSON line, bodies whole, with timings,
//! so `collie-phone replay FILE` can play it back. The format itself is [`crate::wire::recording`]
//! (docs/RECORDING.md); this file is the writing: redaction, the file's safety, the writer thread.
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
use bytes::Bytes;
use time::OffsetDateTime;
use tokio::sync::mpsc::UnboundedSender;

use super::dsh::BridgeSpec;
use super::{AgentSpec, ExchangeRecord, FromEngine};
use crate::transport::{Reply, Request, TransportError};
use crate::wire::recording::{
    AgentKind, FORMAT, FORMAT_VERSION, REDACTED, RecordHeader, RecordLine, RecordedAgent,
    RecordedBody, RecordedExchange,
};

/// The header that carries the token over TLS (SPEC T2).
const AUTHORIZATION: &str = "authorization";
/// Most of an existing file read to see whether it is a recording (a header line is far less).
const FIRST_LINE_BYTES: u64 = 64 * 1024;

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
pub(crate) struct Recorder {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    began: Instant,
    /// Agents whose every request carried a token: those reached over TLS (SPEC T2) and
    /// every DSH bridge (its bearer token, SPEC D1).
    tls: HashMap<String, bool>,
    lines: Mutex<Option<mpsc::Sender<Pending>>>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

impl Recorder {
    pub(crate) fn off() -> Self {
        Self { inner: None }
    }

    /// Creates the file (mode 0600: it may hold private chat), writes the header line and starts
    /// the writer. Refuses to overwrite a file that is not a recording.
    pub(crate) fn create(
        path: &Path,
        agents: &[AgentSpec],
        bridges: &[BridgeSpec],
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
                .chain(bridges.iter().map(|b| RecordedAgent {
                    name: b.name.clone(),
                    kind: AgentKind::DshBridge,
                    address: b.url.to_string(),
                }))
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
                    .chain(bridges.iter().map(|b| (b.name.clone(), true)))
                    .collect(),
                lines: Mutex::new(Some(lines)),
                writer: Mutex::new(Some(writer)),
            })),
        })
    }

    /// Records one exchange that began at `started`. Cheap: the encoding and the disk are the
    /// writer's.
    pub(crate) fn exchange(
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
        inner.push(pending);
    }

    /// Records one exchange with a DSH bridge that began at `started`, from its parts: the
    /// reply's status and body, or why none came. Its bearer token is written as redacted.
    /// An event stream is recorded as its opening only: the bridge's events reach the chat
    /// through the stream, not through this file.
    pub(crate) fn bridge_exchange(
        &self,
        agent: &str,
        (method, path, body): (&'static str, &str, Option<&[u8]>),
        reply: Result<(u16, &[u8]), String>,
        started: Instant,
    ) {
        let Some(inner) = &self.inner else { return };
        let elapsed = started.elapsed();
        let request_headers = BTreeMap::from([(AUTHORIZATION.to_string(), REDACTED.to_string())]);
        inner.push(Pending {
            since_start_ms: millis(started.saturating_duration_since(inner.began)),
            at: OffsetDateTime::now_utc() - elapsed,
            agent: agent.to_string(),
            method,
            path: path.to_string(),
            request_headers,
            request_body: body.map(<[u8]>::to_vec),
            outcome: reply.map(|(status, body)| (status, None, None, Bytes::copy_from_slice(body))),
            elapsed_ms: millis(elapsed),
        });
    }
}

impl Inner {
    /// Hands one exchange to the writer. A closed channel means the writer stopped after a
    /// failure it already reported.
    fn push(&self, pending: Pending) {
        if let Ok(lines) = self.lines.lock()
            && let Some(lines) = lines.as_ref()
        {
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
    let ours = RecordLine::header(first.trim_end()).is_some();
    if read > 0 && !ours {
        bail!(
            "{} exists and is not a recording; refusing to overwrite it. Give --record a new file name",
            path.display()
        );
    }
    Ok(())
}

/// Bodies stay whole, so a replay plays the agent back byte for byte; only the phone's own
/// secrets go (SPEC T2; docs/RECORDING.md, "What is redacted"), wherever an agent echoed them.
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
}
