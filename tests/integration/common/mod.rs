//! The test helpers of the one test binary (`main.rs`); this file runs the real agent binary.
//!
//! Here: start `collie-phone agent` and wait for its `listening` line (SPEC S2), talk to it over
//! the Unix socket, plain loopback http or https, and look at what comes back byte for byte.
//! The peers and harnesses beside it are listed in docs/TESTING.md.

pub mod engine_phone;
pub mod faulty;
pub mod hostile;
pub mod model_endpoint;
pub mod panes;
pub mod phone;
pub mod reference_bridge;
pub mod sshd;
pub mod tmux;

use std::convert::Infallible;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::{Body, Frame};
use hyper::header::HeaderMap;
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_collie-phone");
/// How long the binary may take to print `listening`.
const START_DEADLINE: Duration = Duration::from_secs(20);
/// How long a refused start may take to exit.
const EXIT_DEADLINE: Duration = Duration::from_secs(10);

/// A running agent process, killed when dropped.
pub struct AgentProcess {
    child: Child,
    /// What followed `listening ` on stdout: `unix:PATH`, `http://…` or `https://…`.
    pub url: String,
    stderr: Arc<Mutex<String>>,
    stdout: Arc<Mutex<Vec<String>>>,
}

/// How a start that should fail ended.
#[derive(Debug)]
pub struct Refused {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

fn command(args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Drains a pipe into a shared string on its own thread, so a chatty child never blocks.
fn drain(mut pipe: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&text);
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(read) = pipe.read(&mut buffer) {
            if read == 0 {
                break;
            }
            sink.lock()
                .expect("stderr buffer")
                .push_str(&String::from_utf8_lossy(&buffer[..read]));
        }
    });
    text
}

impl AgentProcess {
    /// Starts `collie-phone ARGS` and waits for its `listening` line; panics, with the
    /// child's stderr, if it exits or stays silent.
    pub fn start(args: &[&str]) -> Self {
        match Self::try_start(args) {
            Ok(agent) => agent,
            Err(refused) => panic!("the agent did not start: {refused:?}"),
        }
    }

    /// Starts with extra environment variables, e.g. `COLLIE_DURABLE_SOCKET` (SPEC S1).
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Self {
        match Self::try_start_with_env(args, env) {
            Ok(agent) => agent,
            Err(refused) => panic!("the agent did not start: {refused:?}"),
        }
    }

    pub fn try_start(args: &[&str]) -> Result<Self, Refused> {
        Self::try_start_with_env(args, &[])
    }

    pub fn try_start_with_env(args: &[&str], env: &[(&str, &str)]) -> Result<Self, Refused> {
        let mut command = command(args);
        command.envs(env.iter().copied());
        let mut child = command.spawn().expect("the binary starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = drain(child.stderr.take().expect("piped stderr"));
        let (lines_in, lines) = mpsc::channel::<String>();
        let stdout_lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stdout_lines);
        // Keeps reading after `listening`, so what the child prints later never meets a closed pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                sink.lock().expect("stdout buffer").push(line.clone());
                let _ = lines_in.send(line);
            }
        });
        let deadline = Instant::now() + START_DEADLINE;
        let mut seen = String::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines.recv_timeout(left.min(Duration::from_millis(50))) {
                Ok(line) => {
                    if let Some(url) = line.strip_prefix("listening ") {
                        return Ok(Self {
                            child,
                            url: url.to_string(),
                            stderr,
                            stdout: stdout_lines,
                        });
                    }
                    seen.push_str(&line);
                    seen.push('\n');
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = wait_for_exit(&mut child, EXIT_DEADLINE);
                    // Give the stderr thread a moment to read the last bytes.
                    std::thread::sleep(Duration::from_millis(20));
                    let stderr = stderr.lock().expect("stderr buffer").clone();
                    return Err(Refused {
                        status,
                        stdout: seen,
                        stderr,
                    });
                }
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                panic!("no `listening` line within {START_DEADLINE:?}; stdout so far: {seen}");
            }
        }
    }

    /// The socket path of a `unix:` agent.
    pub fn socket_path(&self) -> PathBuf {
        PathBuf::from(self.url.strip_prefix("unix:").expect("a unix agent"))
    }

    pub fn client(&self) -> Client {
        if let Some(path) = self.url.strip_prefix("unix:") {
            Client::unix(Path::new(path))
        } else if let Some(address) = self.url.strip_prefix("http://") {
            Client::tcp(address)
        } else {
            panic!("use Client::https for {}", self.url)
        }
    }

    /// Every line the child printed on stdout so far.
    pub fn stdout(&self) -> String {
        self.stdout.lock().expect("stdout buffer").join("\n")
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr buffer").clone()
    }

    /// Kills the process as `kill -9` does, and waits for it to end: nothing is flushed and its
    /// socket file stays behind.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends SIGINT (SIGTERM with `terminate`) and waits for the process to end.
    pub fn stop(&mut self, terminate: bool) -> ExitStatus {
        let signal = if terminate {
            libc::SIGTERM
        } else {
            libc::SIGINT
        };
        let pid = libc::pid_t::try_from(self.child.id()).expect("a pid fits");
        // SAFETY: kill only sends a signal to our own child, whose pid we hold.
        let sent = unsafe { libc::kill(pid, signal) };
        assert_eq!(sent, 0, "the signal was sent");
        wait_for_exit(&mut self.child, EXIT_DEADLINE)
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_for_exit(child: &mut Child, deadline: Duration) -> ExitStatus {
    let until = Instant::now() + deadline;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if Instant::now() >= until {
            let _ = child.kill();
            panic!("the process did not exit within {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs the binary expecting it to refuse to start.
pub fn refused(args: &[&str]) -> Refused {
    match AgentProcess::try_start(args) {
        Ok(agent) => panic!("the agent started at {} but should have refused", agent.url),
        Err(refused) => refused,
    }
}

/// A fresh folder for one test's sockets and files; short, so socket paths stay under 103 bytes.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("cp-")
        .tempdir_in("/tmp")
        .expect("a temp folder")
}

/// Starts an agent on a socket in `dir` with a frozen demo clock and `extra` flags.
pub fn socket_agent(dir: &Path, extra: &[&str]) -> AgentProcess {
    let socket = dir.join("run").join("agent.sock");
    let socket = socket.to_str().expect("utf-8 path").to_string();
    let mut args = vec!["agent", "--socket", socket.as_str(), "--speed", "0"];
    args.extend_from_slice(extra);
    AgentProcess::start(&args)
}

/// [`socket_agent`] that logs at info, so a test can read each `applied request_id=…` line
/// (what the agent ran, not what the phone believes).
pub fn logging_socket_agent(dir: &Path, extra: &[&str]) -> AgentProcess {
    let socket = dir.join("run").join("agent.sock");
    let socket = socket.to_str().expect("utf-8 path").to_string();
    let mut args = vec!["agent", "--socket", socket.as_str(), "--speed", "0"];
    args.extend_from_slice(extra);
    AgentProcess::start_with_env(&args, &[("RUST_LOG", "info")])
}

/// A certificate for 127.0.0.1 and localhost written to `dir`: (cert path, key path, cert PEM).
pub fn tls_files(dir: &Path) -> (PathBuf, PathBuf, String) {
    let certified =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string(), "localhost".to_string()])
            .expect("a test certificate");
    let cert_pem = certified.cert.pem();
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    std::fs::write(&cert, &cert_pem).expect("write the certificate");
    std::fs::write(&key, certified.signing_key.serialize_pem()).expect("write the key");
    (cert, key, cert_pem)
}

/// The reference agent over https with a token, its files in `dir`.
pub struct HttpsAgent {
    pub process: AgentProcess,
    pub cert: PathBuf,
    pub cert_pem: String,
    pub token: String,
}

/// Starts the reference agent over https with a fresh certificate and token (frozen clock).
pub fn https_agent(dir: &Path) -> HttpsAgent {
    let (cert, key, cert_pem) = tls_files(dir);
    let (token_path, token) = token_file(dir);
    let process = AgentProcess::start(&[
        "agent",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        token_path.to_str().expect("utf-8"),
        "--tls-cert",
        cert.to_str().expect("utf-8"),
        "--tls-key",
        key.to_str().expect("utf-8"),
        "--speed",
        "0",
    ]);
    assert!(
        process.url.starts_with("https://127.0.0.1:"),
        "{}",
        process.url
    );
    HttpsAgent {
        process,
        cert,
        cert_pem,
        token,
    }
}

/// Writes a token file of mode 0600 and returns (path, token).
pub fn token_file(dir: &Path) -> (PathBuf, String) {
    use std::os::unix::fs::PermissionsExt;
    let token = "test-token-0123456789abcdefghijklmnopqrstuvwxyz".to_string();
    let path = dir.join("token");
    std::fs::write(&path, format!("{token}\n")).expect("write the token");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    (path, token)
}

/// An agent started with `--tls auto`, its state in `state`, and the lines it printed after
/// `listening`: the certificate line and the phone command.
pub struct AutoAgent {
    pub process: AgentProcess,
    pub certificate: String,
    /// The arguments of the printed command after `collie-phone`.
    pub dial: Vec<String>,
    pub pin: String,
}

pub fn auto_agent(state: &Path, token: &Path) -> AutoAgent {
    let process = AgentProcess::start(&[
        "agent",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        token.to_str().expect("utf-8"),
        "--tls",
        "auto",
        "--state",
        state.to_str().expect("utf-8"),
        "--speed",
        "0",
    ]);
    assert!(
        process.url.starts_with("https://127.0.0.1:"),
        "{}",
        process.url
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let (certificate, command) = loop {
        let printed = process.stdout();
        let certificate = printed.lines().find(|l| l.starts_with("certificate "));
        let command = printed
            .lines()
            .find_map(|l| l.strip_prefix("dial it with: collie-phone "));
        if let (Some(certificate), Some(command)) = (certificate, command) {
            break (certificate.to_string(), command.to_string());
        }
        assert!(Instant::now() < deadline, "no phone command in: {printed}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let dial = shell_words::split(&command).expect("a shell line");
    let pin = dial
        .iter()
        .skip_while(|word| *word != "--pin")
        .nth(1)
        .expect("the command has --pin")
        .clone();
    assert_eq!(dial[..2], ["--url".to_string(), process.url.clone()]);
    AutoAgent {
        process,
        certificate,
        dial,
        pin,
    }
}

/// What came back: status, headers and the whole body.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }

    pub fn code(&self) -> String {
        self.json()["code"].as_str().unwrap_or_default().to_string()
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    }

    /// Asserts the status and the error code together, showing the body when they differ.
    #[track_caller]
    pub fn expect(&self, status: u16, code: &str) -> Value {
        let body = String::from_utf8_lossy(&self.body).to_string();
        assert_eq!(
            (self.status, self.code()),
            (status, code.to_string()),
            "body: {body}"
        );
        self.json()
    }
}

/// Which token a request carries.
#[derive(Debug, Clone)]
enum Auth {
    Default,
    Raw(Option<String>),
}

/// One request to send. By default it carries `X-Collie-Session: 1` and the client's token.
#[derive(Debug, Clone)]
pub struct Req {
    method: Method,
    path: String,
    headers: Vec<(String, String)>,
    version: Option<String>,
    auth: Auth,
    body: ReqBody,
}

#[derive(Debug, Clone)]
enum ReqBody {
    None,
    Bytes(Bytes),
    /// Sent with no length, in chunks, so the server must cap while reading (SPEC W4).
    Chunked(Vec<Bytes>),
}

impl Req {
    pub fn new(method: Method, path: &str) -> Self {
        Self {
            method,
            path: path.to_string(),
            headers: Vec::new(),
            version: Some("1".into()),
            auth: Auth::Default,
            body: ReqBody::None,
        }
    }

    pub fn get(path: &str) -> Self {
        Self::new(Method::GET, path)
    }

    pub fn post(path: &str, body: Value) -> Self {
        Self::new(Method::POST, path).bytes(body.to_string().into_bytes())
    }

    pub fn bytes(mut self, body: Vec<u8>) -> Self {
        self.body = ReqBody::Bytes(Bytes::from(body));
        self
    }

    pub fn chunked(mut self, chunks: Vec<Vec<u8>>) -> Self {
        self.body = ReqBody::Chunked(chunks.into_iter().map(Bytes::from).collect());
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn version(mut self, version: Option<&str>) -> Self {
        self.version = version.map(str::to_string);
        self
    }

    /// The raw `Authorization` header, or none.
    pub fn authorization(mut self, value: Option<&str>) -> Self {
        self.auth = Auth::Raw(value.map(str::to_string));
        self
    }
}

/// A body whose length is unknown up front.
struct Chunks(std::collections::VecDeque<Bytes>);

impl Body for Chunks {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.0.pop_front().map(|chunk| Ok(Frame::data(chunk))))
    }
}

#[derive(Clone)]
enum Target {
    Unix(PathBuf),
    Tcp(String),
    Https {
        client: reqwest::Client,
        base: String,
    },
}

/// A small client over the agent's real transports.
#[derive(Clone)]
pub struct Client {
    target: Target,
    token: Option<String>,
}

impl Client {
    pub fn unix(path: &Path) -> Self {
        Self {
            target: Target::Unix(path.to_path_buf()),
            token: None,
        }
    }

    pub fn tcp(address: &str) -> Self {
        Self {
            target: Target::Tcp(address.to_string()),
            token: None,
        }
    }

    /// An https client that trusts only `cert_pem` and follows no redirect (SPEC T4).
    pub fn https(url: &str, cert_pem: &str) -> Self {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let cert = reqwest::Certificate::from_pem(cert_pem.as_bytes()).expect("a PEM certificate");
        let client = reqwest::Client::builder()
            .tls_certs_only([cert])
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an https client");
        Self {
            target: Target::Https {
                client,
                base: url.to_string(),
            },
            token: None,
        }
    }

    pub fn with_token(mut self, token: &str) -> Self {
        self.token = Some(token.to_string());
        self
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(Req::get(path)).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.send(Req::post(path, body)).await
    }

    pub async fn send(&self, req: Req) -> Reply {
        let mut headers: Vec<(String, String)> = Vec::new();
        if let Some(version) = &req.version {
            headers.push(("x-collie-session".into(), version.clone()));
        }
        let authorization = match &req.auth {
            Auth::Default => self.token.as_ref().map(|t| format!("Bearer {t}")),
            Auth::Raw(value) => value.clone(),
        };
        if let Some(value) = authorization {
            headers.push(("authorization".into(), value));
        }
        headers.extend(req.headers.iter().cloned());
        match &self.target {
            Target::Unix(path) => {
                let stream = tokio::net::UnixStream::connect(path)
                    .await
                    .expect("connect to the socket");
                send_hyper(stream, &req, &headers).await
            }
            Target::Tcp(address) => {
                let stream = tokio::net::TcpStream::connect(address)
                    .await
                    .expect("connect over TCP");
                send_hyper(stream, &req, &headers).await
            }
            Target::Https { client, base } => {
                let mut builder = client.request(req.method.clone(), format!("{base}{}", req.path));
                for (name, value) in &headers {
                    builder = builder.header(name, value);
                }
                builder = match &req.body {
                    ReqBody::None => builder,
                    ReqBody::Bytes(bytes) => builder.body(bytes.clone()),
                    ReqBody::Chunked(_) => {
                        panic!("chunked bodies go over the socket or plain http")
                    }
                };
                let response = builder.send().await.expect("an https reply");
                let status = response.status().as_u16();
                let headers = response.headers().clone();
                let body = response.bytes().await.expect("the whole body");
                Reply {
                    status,
                    headers,
                    body,
                }
            }
        }
    }
}

async fn send_hyper<S>(stream: S, req: &Req, headers: &[(String, String)]) -> Reply
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake::<
        _,
        BoxBody<Bytes, Infallible>,
    >(TokioIo::new(stream))
    .await
    .expect("an HTTP handshake");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let body: BoxBody<Bytes, Infallible> = match &req.body {
        ReqBody::None => Empty::new().boxed(),
        ReqBody::Bytes(bytes) => Full::new(bytes.clone()).boxed(),
        ReqBody::Chunked(chunks) => Chunks(chunks.iter().cloned().collect()).boxed(),
    };
    let mut builder = Request::builder()
        .method(req.method.clone())
        .uri(&req.path)
        .header("host", "agent");
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    let request = builder.body(body).expect("a request");
    let response = sender.send_request(request).await.expect("a reply");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("the whole body")
        .to_bytes();
    Reply {
        status,
        headers,
        body,
    }
}

/// Polls `check` until it gives a value or the deadline passes.
pub async fn eventually<T, F, Fut>(what: &str, deadline: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let until = Instant::now() + deadline;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            Instant::now() < until,
            "{what} did not happen within {deadline:?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

// ----- reading the world through the wire -------------------------------------------------

pub const HELLO: &str = "/session/v1/hello";
pub const SNAPSHOT: &str = "/session/v1/snapshot";

pub fn pane_path(pane: &str, verb: &str) -> String {
    format!("/session/v1/pane/{pane}/{verb}")
}

/// The kinds of the intents a journal holds (`intents.jsonl`: its `created` records), oldest
/// first, as written: `{"kind": "answer", …}`.
pub fn journal_kinds(journal: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(journal).unwrap_or_default();
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("a journal line is JSON"))
        .filter(|entry| entry["op"] == "created")
        .map(|entry| entry["record"]["kind"].clone())
        .collect()
}

/// Every pane of a snapshot, flattened.
pub fn panes(snapshot: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for workspace in snapshot["workspaces"].as_array().into_iter().flatten() {
        for tab in workspace["tabs"].as_array().into_iter().flatten() {
            out.extend(tab["panes"].as_array().into_iter().flatten().cloned());
        }
    }
    out
}

/// The first open ask of `kind` in the snapshot, with its pane's id.
pub fn find_ask(snapshot: &Value, kind: &str) -> Option<(String, Value)> {
    panes(snapshot).into_iter().find_map(|pane| {
        let id = pane["id"].as_str()?.to_string();
        pane["asks"]
            .as_array()?
            .iter()
            .find(|ask| ask["kind"] == kind)
            .map(|ask| (id, ask.clone()))
    })
}

/// A pane whose latest turn is running, with that turn's id.
pub fn running_pane(snapshot: &Value) -> Option<(String, String)> {
    panes(snapshot).into_iter().find_map(|pane| {
        if pane["turn"]["state"] != "running" {
            return None;
        }
        Some((
            pane["id"].as_str()?.to_string(),
            pane["turn"]["id"].as_str()?.to_string(),
        ))
    })
}

/// The answer of the right shape for an ask (SPEC A15).
pub fn answer_for(ask: &Value) -> Value {
    match ask["kind"].as_str() {
        Some("permission") => json!({"optionId": ask["permission"]["options"][0]["id"]}),
        Some("choice") => json!({"optionId": ask["choice"]["options"][0]["id"]}),
        Some("text") => json!({"text": "from the test"}),
        Some("form") => {
            let mut values = serde_json::Map::new();
            for field in ask["form"]["fields"].as_array().into_iter().flatten() {
                let value = match field["kind"].as_str() {
                    Some("text") => json!("x"),
                    Some("boolean") => json!(true),
                    Some("number") => json!(1),
                    Some("choice") => field["options"][0]["id"].clone(),
                    _ => Value::Null,
                };
                values.insert(field["id"].as_str().unwrap_or_default().to_string(), value);
            }
            json!({"values": values})
        }
        other => panic!("no answer shape for {other:?}"),
    }
}

/// Polls hello until the agent says it is ready (SPEC H3).
pub async fn wait_ready(client: &Client) {
    eventually("ready", Duration::from_secs(10), || async {
        let hello = client.send(Req::get(HELLO).version(None)).await;
        (hello.status == 200 && hello.json()["ready"] == true).then_some(())
    })
    .await
}

pub async fn snapshot(client: &Client) -> Value {
    client.get(SNAPSHOT).await.expect(200, "")
}

/// Our reference DSH bridge over its demo desktop in `dir`, frozen (`--speed 0`), listening on
/// `listen` (`127.0.0.1:0` for any port; the same address again to bring it back after a
/// kill), with the token in `token_path`.
pub fn frozen_demo_bridge(dir: &Path, token_path: &Path, listen: &str) -> AgentProcess {
    let root = dir.join("desktop");
    AgentProcess::start(&[
        "dsh-bridge",
        "--demo",
        "--listen",
        listen,
        "--token-file",
        token_path.to_str().expect("utf-8"),
        "--root",
        root.to_str().expect("utf-8"),
        "--speed",
        "0",
    ])
}
