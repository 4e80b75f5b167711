//! A small JSON-RPC 2.0 driver over an ACP agent's stdio, line by line.
//!
//! Why not the `agent-client-protocol` crate's own connection, as the ACP host uses: the check
//! must see what that connection hides on purpose. A stray line on stdout, a notification that
//! carries an id, a second answer to one request, an error code out of range: the crate drops
//! or smooths each of these, and each is what an agent author needs to be told (SPEC P1, P2).
//! So this reads raw lines and keeps every message it read, in order; the rules judge that log.
//! The schema types of the crate still judge the shapes (`check_acp::shapes`).
//!
//! Every wait has a deadline, the child is killed when the driver is dropped (its whole process
//! group: `npx` starts node under it), and nothing the agent writes can make this panic.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// The longest line kept whole; past it the line is read on but not kept.
const LINE_CAP: usize = 16 << 20;
/// How long one write to the agent's stdin may take.
const WRITE_PATIENCE: Duration = Duration::from_secs(5);

/// Methods ACP defines as notifications: sent with an id, they break SPEC P1.
const NOTIFICATIONS: &[&str] = &["session/update", "elicitation/complete", "$/cancel_request"];

/// What the agent's stdout gave, one line at a time.
enum Read {
    Line(Vec<u8>),
    TooLong(usize),
    End,
}

/// One message read from the agent.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) message: Value,
}

/// How a request of ours ended.
#[derive(Debug, Clone)]
pub(crate) enum Outcome {
    Result(Value),
    /// The JSON-RPC error object.
    Error(Value),
    NoAnswer(Duration),
    Exited,
}

impl Outcome {
    /// The error's code, when it is an error with an integer code.
    pub(crate) fn code(&self) -> Option<i64> {
        match self {
            Outcome::Error(error) => error.get("code").and_then(Value::as_i64),
            _ => None,
        }
    }

    /// In words, for a finding: `answered {...}`, `answered the error -32002 "…"`.
    pub(crate) fn describe(&self) -> String {
        match self {
            Outcome::Result(value) => format!("answered {}", quote(&value.to_string())),
            Outcome::Error(error) => format!(
                "answered the error {} {}{}",
                error.get("code").map(Value::to_string).unwrap_or_default(),
                quote(
                    &error
                        .get("message")
                        .map(Value::to_string)
                        .unwrap_or_default()
                ),
                error
                    .get("data")
                    .filter(|data| !data.is_null())
                    .map(|data| format!(" with the data {}", quote(&data.to_string())))
                    .unwrap_or_default()
            ),
            Outcome::NoAnswer(waited) => format!("gave no answer within {} s", waited.as_secs()),
            Outcome::Exited => "exited before it answered".to_string(),
        }
    }
}

/// An answer to a request of ours: how it ended and where in the log the answer stands.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub(crate) outcome: Outcome,
    /// The index in [`Driver::log`] of the response (the log's length when there was none).
    pub(crate) index: usize,
}

/// What the client does with a permission request of the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Permissions {
    /// Answered at once with the first reject option (the check never approves anything).
    Reject,
    /// Answered with a reject option after a pause: a client whose person reads slowly.
    RejectLate(Duration),
    /// Held open, to be answered later (`cancelled` after a `session/cancel`).
    Hold,
    /// Answered `cancelled` at once, as ACP asks of a client once it cancelled the turn.
    Cancelled,
}

/// What one process wrote on its stderr, as it was read (SPEC P16).
#[derive(Debug, Default)]
pub(crate) struct Stderr {
    bytes: AtomicU64,
    lines: AtomicU64,
    /// Its stderr reached its end: everything it wrote there was read.
    ended: AtomicBool,
}

impl Stderr {
    /// The bytes and lines read so far, and whether that was all.
    pub(crate) fn read(&self) -> (u64, u64, bool) {
        (
            self.bytes.load(Ordering::Acquire),
            self.lines.load(Ordering::Acquire),
            self.ended.load(Ordering::Acquire),
        )
    }
}

/// One agent process and everything it said.
pub(crate) struct Driver {
    /// "the first process", for findings.
    pub(crate) label: &'static str,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: UnboundedReceiver<Read>,
    ended: bool,
    next_id: u64,
    /// Every message read, in order.
    pub(crate) log: Vec<Seen>,
    /// What broke SPEC P1: stray lines and messages of no JSON-RPC shape, quoted.
    pub(crate) stream_faults: Vec<String>,
    /// What broke SPEC P2: answers twice or to no request, error codes out of range,
    /// requests never answered while the agent lived.
    pub(crate) answer_faults: Vec<String>,
    /// Our requests: id → method.
    asked: HashMap<u64, String>,
    /// Where in the log each request of ours was sent: its answer is looked for from there.
    sent_at: HashMap<u64, usize>,
    answered: HashSet<u64>,
    pub(crate) permissions: Permissions,
    /// Permission requests held open (their ids and options).
    held: Vec<(Value, Value)>,
    /// Answers due later: (when, id, result).
    due: Vec<(Instant, Value, Value)>,
    /// What it wrote on stderr (SPEC P16).
    pub(crate) stderr: Arc<Stderr>,
    /// A line may carry a batch, a non-empty array of messages (ACP v2; v1 has none).
    pub(crate) batches: bool,
}

impl Driver {
    /// Starts `command` in `workspace`, its stderr written line by line, cleaned, to `log`.
    pub(crate) fn start(
        label: &'static str,
        command: &[String],
        workspace: &Path,
        log: Arc<Mutex<File>>,
    ) -> Result<Self, String> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| "the command is empty".to_string())?;
        let mut child = Command::new(program)
            .args(args)
            .current_dir(workspace)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0)
            .spawn()
            .map_err(|error| match error.kind() {
                std::io::ErrorKind::NotFound => format!("{program} is not on PATH"),
                _ => format!("{program} could not be started: {error}"),
            })?;
        let (tx, lines) = unbounded_channel();
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(async move {
                let mut reader = BufReader::new(stdout);
                loop {
                    let read = read_line(&mut reader).await;
                    let end = matches!(read, Read::End);
                    if tx.send(read).is_err() || end {
                        return;
                    }
                }
            });
        }
        let tally = Arc::new(Stderr::default());
        match child.stderr.take() {
            Some(stderr) => {
                tokio::spawn(copy_stderr(label, stderr, log, Arc::clone(&tally)));
            }
            None => tally.ended.store(true, Ordering::Release),
        }
        Ok(Self {
            label,
            stdin: child.stdin.take(),
            child,
            lines,
            ended: false,
            next_id: 0,
            log: Vec::new(),
            stream_faults: Vec::new(),
            answer_faults: Vec::new(),
            asked: HashMap::new(),
            sent_at: HashMap::new(),
            answered: HashSet::new(),
            permissions: Permissions::Reject,
            held: Vec::new(),
            due: Vec::new(),
            stderr: tally,
            batches: false,
        })
    }

    /// Sends a request and returns its id, without waiting.
    pub(crate) async fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.asked.insert(id, method.to_string());
        self.sent_at.insert(id, self.log.len());
        self.write(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Sends a request and waits for its answer.
    pub(crate) async fn request(
        &mut self,
        method: &str,
        params: Value,
        within: Duration,
    ) -> Answer {
        let id = self.send(method, params).await;
        self.wait(id, within).await
    }

    /// Waits for the answer to request `id`. A request with no answer in time breaks P2.
    pub(crate) async fn wait(&mut self, id: u64, within: Duration) -> Answer {
        let deadline = Instant::now() + within;
        loop {
            if let Some(index) = self.find_answer(id) {
                let message = &self.log[index].message;
                let outcome = match message.get("error") {
                    Some(error) => Outcome::Error(error.clone()),
                    None => Outcome::Result(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                return Answer { outcome, index };
            }
            if self.ended {
                return Answer {
                    outcome: Outcome::Exited,
                    index: self.log.len(),
                };
            }
            if Instant::now() >= deadline {
                let method = self.asked.get(&id).cloned().unwrap_or_default();
                self.answer_faults.push(format!(
                    "{}: {method} (id {id}) got no answer within {} s",
                    self.label,
                    within.as_secs()
                ));
                return Answer {
                    outcome: Outcome::NoAnswer(within),
                    index: self.log.len(),
                };
            }
            self.pump_once(deadline).await;
        }
    }

    /// Sends a notification.
    pub(crate) async fn notify(&mut self, method: &str, params: Value) {
        self.write(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Reads what comes for `how_long`.
    pub(crate) async fn pump_for(&mut self, how_long: Duration) {
        let deadline = Instant::now() + how_long;
        while Instant::now() < deadline && !self.ended {
            self.pump_once(deadline).await;
        }
    }

    /// Reads until a message read from index `from` on satisfies `seen`, or the deadline.
    pub(crate) async fn pump_until(
        &mut self,
        from: usize,
        within: Duration,
        seen: impl Fn(&Value) -> bool,
    ) -> bool {
        let deadline = Instant::now() + within;
        loop {
            if self.log[from.min(self.log.len())..]
                .iter()
                .any(|s| seen(&s.message))
            {
                return true;
            }
            if self.ended || Instant::now() >= deadline {
                return false;
            }
            self.pump_once(deadline).await;
        }
    }

    /// Answers every permission request held open with `cancelled`.
    pub(crate) async fn cancel_held(&mut self) -> usize {
        let held = std::mem::take(&mut self.held);
        for (id, _) in &held {
            self.reply(id.clone(), json!({"outcome": {"outcome": "cancelled"}}))
                .await;
        }
        held.len()
    }

    /// Whether the process still runs.
    pub(crate) fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Closes the agent's stdin and waits for it to exit; false when it still ran after
    /// `within` (it is killed then).
    pub(crate) async fn close(&mut self, within: Duration) -> bool {
        self.stdin = None;
        let deadline = Instant::now() + within;
        loop {
            if !self.alive() {
                // Read what it wrote before it went.
                self.pump_for(Duration::from_millis(100)).await;
                return true;
            }
            if Instant::now() >= deadline {
                self.kill();
                return false;
            }
            self.pump_once(deadline.min(Instant::now() + Duration::from_millis(50)))
                .await;
        }
    }

    /// Kills the whole process group.
    pub(crate) fn kill(&mut self) {
        if let Some(pid) = self.child.id() {
            // SAFETY: kill(2) on a process group we made (`process_group(0)`); no memory.
            unsafe {
                libc::kill(-(pid as i32), libc::SIGKILL);
            }
        }
        let _ = self.child.start_kill();
    }

    /// The first response with `id` read after the request was sent (one that came before
    /// it answered nothing, and broke P2).
    fn find_answer(&self, id: u64) -> Option<usize> {
        let from = self.sent_at.get(&id).copied().unwrap_or(self.log.len());
        self.log[from.min(self.log.len())..]
            .iter()
            .position(|seen| {
                seen.message.get("method").is_none()
                    && seen.message.get("id").and_then(Value::as_u64) == Some(id)
            })
            .map(|at| from + at)
    }

    /// Reads one line (or sends what is due) before `deadline`.
    async fn pump_once(&mut self, deadline: Instant) {
        self.send_due().await;
        let next_due = self.due.iter().map(|(at, _, _)| *at).min();
        let until = next_due.map_or(deadline, |due| due.min(deadline));
        let wait = until.saturating_duration_since(Instant::now());
        if self.ended {
            tokio::time::sleep(wait).await;
            return;
        }
        match tokio::time::timeout(wait, self.lines.recv()).await {
            Err(_) => {}
            Ok(None | Some(Read::End)) => self.ended = true,
            Ok(Some(Read::TooLong(length))) => self.stream_faults.push(format!(
                "{}: a line of {length} bytes, longer than the check reads",
                self.label
            )),
            Ok(Some(Read::Line(bytes))) => self.take(bytes).await,
        }
    }

    async fn send_due(&mut self) {
        let now = Instant::now();
        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.due)
            .into_iter()
            .partition(|(at, _, _)| *at <= now);
        self.due = later;
        for (_, id, result) in due {
            self.reply(id, result).await;
        }
    }

    /// One line of stdout: judged for P1 and P2, kept, and a request of the agent answered.
    async fn take(&mut self, bytes: Vec<u8>) {
        let text = String::from_utf8_lossy(&bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        let Ok(message) = serde_json::from_str::<Value>(text) else {
            let what = if text.trim().is_empty() {
                "an empty line".to_string()
            } else {
                format!("a line that is not JSON: {}", quote(text))
            };
            self.stream_faults.push(format!("{}: {what}", self.label));
            return;
        };
        if let Value::Array(batch) = &message
            && self.batches
        {
            // ACP v2's transport: a line is one message or a non-empty batch of them.
            if batch.is_empty() {
                self.stream_faults.push(format!(
                    "{}: an empty batch, which ACP v2 does not allow on stdout",
                    self.label
                ));
            }
            for one in batch.clone() {
                let text = one.to_string();
                Box::pin(self.take_message(one, &text)).await;
            }
            return;
        }
        let text = text.to_string();
        self.take_message(message, &text).await;
    }

    /// One message read from stdout: judged for P1 and P2, kept, and a request of the agent
    /// answered.
    async fn take_message(&mut self, message: Value, text: &str) {
        if !message.is_object() {
            self.stream_faults.push(format!(
                "{}: JSON that is not one JSON-RPC object: {}",
                self.label,
                quote(text)
            ));
            return;
        }
        if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            self.stream_faults.push(format!(
                "{}: a message without \"jsonrpc\": \"2.0\": {}",
                self.label,
                quote(text)
            ));
        }
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|id| !id.is_null()).cloned();
        match (method, id) {
            (Some(method), Some(id)) => {
                if NOTIFICATIONS.contains(&method) {
                    self.stream_faults.push(format!(
                        "{}: {method} carries the id {id}, but ACP makes it a notification: {}",
                        self.label,
                        quote(text)
                    ));
                } else {
                    let params = message.get("params").cloned().unwrap_or(Value::Null);
                    self.log.push(Seen {
                        message: message.clone(),
                    });
                    self.answer_request(method, id, params).await;
                    return;
                }
            }
            (Some(_), None) => {}
            (None, Some(id)) => self.judge_response(&message, &id, text),
            (None, None) => self.stream_faults.push(format!(
                "{}: neither a request, a notification nor a response: {}",
                self.label,
                quote(text)
            )),
        }
        self.log.push(Seen { message });
    }

    fn judge_response(&mut self, message: &Value, id: &Value, text: &str) {
        let has_result = message.get("result").is_some();
        let error = message.get("error");
        if has_result == error.is_some() {
            self.stream_faults.push(format!(
                "{}: a response needs exactly one of result and error: {}",
                self.label,
                quote(text)
            ));
        }
        match id.as_u64().filter(|id| self.asked.contains_key(id)) {
            None => self.answer_faults.push(format!(
                "{}: an answer to the id {id}, which the client never used: {}",
                self.label,
                quote(text)
            )),
            Some(id) if !self.answered.insert(id) => self.answer_faults.push(format!(
                "{}: a second answer to {} (id {id}): {}",
                self.label,
                self.asked[&id],
                quote(text)
            )),
            Some(_) => {}
        }
        if let Some(error) = error
            && let Some(fault) = error_fault(error)
        {
            self.answer_faults
                .push(format!("{}: {fault}: {}", self.label, quote(text)));
        }
    }

    /// Answers a request of the agent as a client that offers no file system, no terminal
    /// and declines every question.
    async fn answer_request(&mut self, method: &str, id: Value, params: Value) {
        match method {
            "session/request_permission" => {
                let options = params.get("options").cloned().unwrap_or(Value::Null);
                match self.permissions {
                    Permissions::Reject => self.reply(id, reject(&options)).await,
                    Permissions::RejectLate(pause) => {
                        self.due
                            .push((Instant::now() + pause, id, reject(&options)));
                    }
                    Permissions::Hold => self.held.push((id, options)),
                    Permissions::Cancelled => {
                        self.reply(id, json!({"outcome": {"outcome": "cancelled"}}))
                            .await;
                    }
                }
            }
            "elicitation/create" => self.reply(id, json!({"action": "decline"})).await,
            _ => {
                self.write(json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32601, "message": "Method not found"}}))
                    .await;
            }
        }
    }

    async fn reply(&mut self, id: Value, result: Value) {
        self.write(json!({"jsonrpc": "2.0", "id": id, "result": result}))
            .await;
    }

    async fn write(&mut self, message: Value) {
        let Some(stdin) = self.stdin.as_mut() else {
            return;
        };
        let mut line = message.to_string();
        line.push('\n');
        let written = tokio::time::timeout(WRITE_PATIENCE, async {
            stdin.write_all(line.as_bytes()).await?;
            stdin.flush().await
        })
        .await;
        if !matches!(written, Ok(Ok(()))) {
            // A gone or stuck agent: what it did shows in the rules' waits.
            self.stdin = None;
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if self.alive() {
            self.kill();
        }
    }
}

/// The reject option of a permission request, else `cancelled` (there is none to pick).
fn reject(options: &Value) -> Value {
    let options = options.as_array().map(Vec::as_slice).unwrap_or_default();
    let pick = ["reject_once", "reject_always"].iter().find_map(|kind| {
        options
            .iter()
            .find(|o| o.get("kind").and_then(Value::as_str) == Some(kind))
            .and_then(|o| o.get("optionId").cloned())
    });
    match pick {
        Some(option) => json!({"outcome": {"outcome": "selected", "optionId": option}}),
        None => json!({"outcome": {"outcome": "cancelled"}}),
    }
}

/// What is wrong with an error object, SPEC P2: an integer code and a string message; a code
/// in the range JSON-RPC reserves (-32768 to -32000) only as it defines one (-32700, -32600 to
/// -32603) or in the server-error range ACP uses (-32099 to -32000).
pub(crate) fn error_fault(error: &Value) -> Option<String> {
    let Some(code) = error.get("code").and_then(Value::as_i64) else {
        return Some("an error without an integer code".to_string());
    };
    if !error.get("message").is_some_and(Value::is_string) {
        return Some(format!("the error {code} has no message text"));
    }
    let reserved = (-32768..=-32000).contains(&code);
    let defined =
        code == -32700 || (-32603..=-32600).contains(&code) || (-32099..=-32000).contains(&code);
    (reserved && !defined).then(|| {
        format!("the error code {code} is in the range JSON-RPC reserves, and neither JSON-RPC nor ACP defines it")
    })
}

/// Agent text in a finding: cleaned to one line (SPEC L1), cut to 160 characters.
pub(crate) fn quote(text: &str) -> String {
    let clean = crate::out::visible_line(text);
    let mut cut: String = clean.chars().take(160).collect();
    if clean.chars().count() > 160 {
        cut.push_str("… (cut)");
    }
    format!("«{cut}»")
}

async fn read_line(reader: &mut BufReader<impl AsyncRead + Unpin>) -> Read {
    let mut line = Vec::new();
    let mut length = 0usize;
    loop {
        let buffer = match reader.fill_buf().await {
            Ok(buffer) => buffer,
            Err(_) => return Read::End,
        };
        if buffer.is_empty() {
            return if length == 0 {
                Read::End
            } else if length > LINE_CAP {
                Read::TooLong(length)
            } else {
                Read::Line(line)
            };
        }
        let (taken, done) = match buffer.iter().position(|b| *b == b'\n') {
            Some(at) => (at + 1, true),
            None => (buffer.len(), false),
        };
        if length + taken <= LINE_CAP {
            line.extend_from_slice(&buffer[..taken]);
        }
        length += taken;
        reader.consume(taken);
        if done {
            return if length > LINE_CAP {
                Read::TooLong(length)
            } else {
                Read::Line(line)
            };
        }
    }
}

/// The agent's stderr, one cleaned line at a time, to the log file (SPEC L1): never the
/// terminal, where it would mix with the report. Read as bytes to its end, whatever they are
/// (a line that is not UTF-8, one too long to keep): a pipe nobody reads stalls the agent once
/// it is full (SPEC P16).
async fn copy_stderr(
    label: &'static str,
    stderr: impl AsyncRead + Unpin,
    log: Arc<Mutex<File>>,
    tally: Arc<Stderr>,
) {
    let mut reader = BufReader::new(stderr);
    loop {
        let (length, kept) = match read_line(&mut reader).await {
            Read::End => break,
            Read::Line(line) => (
                line.len(),
                crate::out::line(&String::from_utf8_lossy(&line)).into_owned(),
            ),
            Read::TooLong(length) => (
                length,
                format!("(a line of {length} bytes, too long to keep)"),
            ),
        };
        tally.bytes.fetch_add(length as u64, Ordering::AcqRel);
        tally.lines.fetch_add(1, Ordering::AcqRel);
        if let Ok(mut file) = log.lock() {
            let _ = writeln!(file, "{label}: {kept}");
        }
    }
    tally.ended.store(true, Ordering::Release);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in agent written in sh: it answers before it is asked, writes a stray line and
    /// a notification with an id, answers twice, then goes quiet. None of it may panic the
    /// driver, and each is told.
    #[test]
    fn p1_p2_a_hostile_stream_is_told_and_never_panics() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let dir = std::env::temp_dir();
        let log_path = dir.join(format!("collie-driver-test-{}.log", std::process::id()));
        let log = Arc::new(Mutex::new(
            File::options()
                .create(true)
                .append(true)
                .open(&log_path)
                .expect("log"),
        ));
        let script = r#"printf '{"jsonrpc":"2.0","id":1,"result":{}}\n'
printf 'hello from the agent \033[2J\n'
read line
printf '{"jsonrpc":"2.0","id":7,"method":"session/update","params":{}}\n'
printf '{"jsonrpc":"2.0","id":0,"result":{"ok":1}}\n'
printf '{"jsonrpc":"2.0","id":0,"result":{"ok":2}}\n'
printf '{"jsonrpc":"2.0","id":1,"error":{"code":-32500,"message":"x"}}\n'
sleep 30
"#;
        let command = vec!["sh".to_string(), "-c".to_string(), script.to_string()];
        runtime.block_on(async {
            let mut driver = Driver::start("the test agent", &command, &dir, log).expect("starts");
            let first = driver.request("a", json!({}), Duration::from_secs(5)).await;
            assert!(
                matches!(first.outcome, Outcome::Result(ref r) if r["ok"] == 1),
                "{first:?}"
            );
            let second = driver.request("b", json!({}), Duration::from_secs(5)).await;
            assert!(matches!(second.outcome, Outcome::Error(_)), "{second:?}");
            let third = driver
                .request("c", json!({}), Duration::from_millis(300))
                .await;
            assert!(matches!(third.outcome, Outcome::NoAnswer(_)));
            assert!(
                !driver.close(Duration::from_millis(300)).await,
                "it ran on and was killed"
            );
            let stream = driver.stream_faults.join("\n");
            assert!(
                stream.contains("not JSON: «hello from the agent"),
                "{stream}"
            );
            assert!(!stream.contains('\u{1b}'));
            assert!(
                stream.contains("session/update carries the id 7"),
                "{stream}"
            );
            let answers = driver.answer_faults.join("\n");
            assert!(answers.contains("never used"), "{answers}");
            assert!(answers.contains("a second answer to a (id 0)"), "{answers}");
            assert!(answers.contains("-32500"), "{answers}");
            assert!(answers.contains("c (id 2) got no answer"), "{answers}");
        });
        let _ = std::fs::remove_file(&log_path);
    }

    /// P16: a stderr line that is not UTF-8, then more than a pipe holds, before the answer:
    /// the stderr is read on to its end (an unread pipe would stall the agent, and its answer
    /// would never come), counted and kept.
    #[test]
    fn p16_stderr_is_read_to_its_end_whatever_it_holds() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let dir = std::env::temp_dir();
        let log_path = dir.join(format!("collie-driver-stderr-{}.log", std::process::id()));
        let log = Arc::new(Mutex::new(
            File::options()
                .create(true)
                .write(true)
                .truncate(true)
                .open(&log_path)
                .expect("log"),
        ));
        let script = r#"printf 'bad \377\376 bytes\n' >&2
head -c 200000 /dev/zero | tr '\0' 'x' >&2
printf '\n' >&2
read line
printf '{"jsonrpc":"2.0","id":0,"result":{"ok":1}}\n'
"#;
        let command = vec!["sh".to_string(), "-c".to_string(), script.to_string()];
        runtime.block_on(async {
            let mut driver = Driver::start("the test agent", &command, &dir, log).expect("starts");
            let answer = driver
                .request("a", json!({}), Duration::from_secs(10))
                .await;
            assert!(matches!(answer.outcome, Outcome::Result(_)), "{answer:?}");
            assert!(driver.close(Duration::from_secs(5)).await);
            let deadline = Instant::now() + Duration::from_secs(5);
            while !driver.stderr.read().2 && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            assert_eq!(driver.stderr.read(), (13 + 200_001, 2, true));
        });
        let kept = std::fs::read_to_string(&log_path).expect("log");
        assert!(kept.starts_with("the test agent: bad "), "{kept:.80}");
        assert!(kept.contains(" bytes\nthe test agent: xxx"), "{kept:.80}");
        let _ = std::fs::remove_file(&log_path);
    }

    /// P1 in ACP v2's transport: a line may carry a non-empty batch of messages, each taken as
    /// if it came alone; an empty batch is a fault, and in v1, which has no batches, any is.
    #[test]
    fn p1_a_v2_line_may_carry_a_batch_and_a_v1_line_may_not() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let dir = std::env::temp_dir();
        let log = Arc::new(Mutex::new(
            File::options()
                .create(true)
                .append(true)
                .open(dir.join(format!("collie-driver-batch-{}.log", std::process::id())))
                .expect("log"),
        ));
        let script = r#"read line
printf '[{"jsonrpc":"2.0","method":"session/update","params":{}},{"jsonrpc":"2.0","id":0,"result":{"ok":1}}]\n'
printf '[]\n'
"#;
        let command = vec!["sh".to_string(), "-c".to_string(), script.to_string()];
        runtime.block_on(async {
            for batches in [true, false] {
                let mut driver = Driver::start("the test agent", &command, &dir, Arc::clone(&log))
                    .expect("starts");
                driver.batches = batches;
                let answer = driver.request("a", json!({}), Duration::from_secs(5)).await;
                driver.close(Duration::from_secs(5)).await;
                let faults = driver.stream_faults.join("\n");
                if batches {
                    assert!(matches!(answer.outcome, Outcome::Result(ref r) if r["ok"] == 1));
                    assert_eq!(driver.log.len(), 2, "{faults}");
                    assert!(faults.contains("an empty batch"), "{faults}");
                    assert_eq!(driver.stream_faults.len(), 1, "{faults}");
                } else {
                    assert!(
                        faults.contains("JSON that is not one JSON-RPC object"),
                        "{faults}"
                    );
                }
            }
        });
        let _ = std::fs::remove_file(
            dir.join(format!("collie-driver-batch-{}.log", std::process::id())),
        );
    }

    #[test]
    fn p2_error_codes_in_and_out_of_range() {
        let code = |code: i64| error_fault(&json!({"code": code, "message": "m"}));
        for fine in [
            -32700, -32600, -32603, -32000, -32002, -32099, -32800, 1, -1,
        ] {
            assert_eq!(code(fine), None, "{fine}");
        }
        for bad in [-32500, -32768, -32100, -32604] {
            assert!(code(bad).is_some(), "{bad}");
        }
        assert!(error_fault(&json!({"code": "x", "message": "m"})).is_some());
        assert!(error_fault(&json!({"code": -32603})).is_some());
    }

    #[test]
    fn p1_quotes_are_one_clean_cut_line() {
        let quoted = quote(&format!("\u{1b}[2Jhi\nthere{}", "x".repeat(400)));
        assert!(!quoted.contains('\u{1b}') && !quoted.contains('\n'));
        assert!(quoted.ends_with("… (cut)»"));
    }

    #[test]
    fn a_reject_option_is_picked_or_the_answer_is_cancelled() {
        let options = json!([{"optionId": "a", "kind": "allow_once"}, {"optionId": "r", "kind": "reject_once"}]);
        assert_eq!(reject(&options)["outcome"]["optionId"], "r");
        assert_eq!(
            reject(&json!([{"optionId": "a", "kind": "allow_once"}]))["outcome"]["outcome"],
            "cancelled"
        );
    }
}
