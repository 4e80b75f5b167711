//! A faulty durable agent that misbehaves on request, for engine and headless-command tests.
//!
//! It speaks just enough of docs/WIRE.md (hello, a snapshot with one pane and one open
//! permission ask, empty events, answer with request-id memory) and can be told to drop a
//! connection after applying a POST, stall past a deadline, answer 5xx, send an oversized
//! reply, redirect, lie in hello, or flip its epoch. Raw HTTP/1.1 by hand, because a proper
//! server will not misbehave on request.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What the next POST /answer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostFault {
    None,
    /// Apply it, then close the connection without a reply (SPEC Q4).
    DropAfterApply,
    /// The same for the next POST only; the ones after it are answered.
    DropAfterApplyOnce,
    /// Do not apply; answer only after this long.
    Stall(Duration),
    /// Apply it, answer 502.
    ServerError,
    /// Apply it, answer with a body over the 16 KiB POST cap (SPEC W7).
    Oversized,
    /// Do not apply; answer `503 starting`, as an agent that restarted between the phone's
    /// poll and the POST does before it reads the body (docs/WIRE.md § 1.8, SPEC H3).
    Starting,
}

#[derive(Debug)]
pub struct Behaviour {
    pub service: String,
    pub protocol: (u32, u32),
    pub epoch: String,
    pub ready: bool,
    pub rev: u64,
    pub ask_open: bool,
    pub ask_id: String,
    /// The open ask's title, as the agent sends it (a test may make it hostile).
    pub ask_title: String,
    pub post_fault: PostFault,
    /// Stall every GET this long (SPEC S6 deadline tests).
    pub get_stall: Option<Duration>,
    /// Answer every request with this status and an empty JSON body.
    pub force_status: Option<u16>,
    /// Answer every request with a 307 to this URL (SPEC T4).
    pub redirect_to: Option<String>,
    /// Send the whole snapshot even when If-None-Match holds its ETag (breaks SPEC W4).
    pub never_not_modified: bool,
    /// request id → (body without id, first reply), per epoch (SPEC Q3).
    pub memory: HashMap<String, (Value, Value)>,
}

#[derive(Debug, Clone, Default)]
pub struct Seen {
    pub requests: Vec<(String, String)>,
    pub posts: Vec<Value>,
    pub applied: Vec<String>,
    pub telling_hellos: usize,
    pub authorizations: Vec<String>,
    pub connections: usize,
}

#[derive(Clone)]
pub struct Faulty {
    pub behaviour: Arc<Mutex<Behaviour>>,
    pub seen: Arc<Mutex<Seen>>,
}

impl Faulty {
    pub fn new() -> Self {
        Self {
            behaviour: Arc::new(Mutex::new(Behaviour {
                service: "collie-durable".into(),
                protocol: (1, 1),
                epoch: "epoch-one-0123456789abcdef0123456".into(),
                ready: true,
                rev: 1,
                ask_open: true,
                ask_id: "ask-1".into(),
                ask_title: "Run a command".into(),
                post_fault: PostFault::None,
                get_stall: None,
                force_status: None,
                redirect_to: None,
                never_not_modified: false,
                memory: HashMap::new(),
            })),
            seen: Arc::new(Mutex::new(Seen::default())),
        }
    }

    pub fn set(&self, change: impl FnOnce(&mut Behaviour)) {
        change(&mut self.behaviour.lock().expect("lock"));
    }

    pub fn seen(&self) -> Seen {
        self.seen.lock().expect("lock").clone()
    }

    /// A restart: a new epoch, and the request-id memory of the old one is gone (SPEC Q3).
    pub fn flip_epoch(&self, epoch: &str) {
        self.set(|b| {
            b.epoch = epoch.to_string();
            b.memory.clear();
            b.rev += 1;
        });
    }

    /// Serves on a fresh private socket; returns its path and the temp dir that holds it.
    pub async fn serve_socket(&self) -> (PathBuf, tempfile::TempDir) {
        let dir = tempfile::Builder::new()
            .prefix("cp-faulty")
            .tempdir_in("/tmp")
            .expect("temp dir");
        let path = dir.path().join("agent.sock");
        let listener = tokio::net::UnixListener::bind(&path).expect("bind");
        set_mode(&path, 0o600);
        set_mode(dir.path(), 0o700);
        let me = self.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let me = me.clone();
                tokio::spawn(async move { me.handle(stream).await });
            }
        });
        (path, dir)
    }

    /// Serves plain http on 127.0.0.1; returns the base URL.
    pub async fn serve_tcp(&self) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let me = self.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let me = me.clone();
                tokio::spawn(async move { me.handle(stream).await });
            }
        });
        format!("http://127.0.0.1:{port}")
    }

    async fn handle<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(&self, mut stream: S) {
        self.seen.lock().expect("lock").connections += 1;
        loop {
            let Some((method, target, headers, body)) = read_request(&mut stream).await else {
                return;
            };
            let keep = self
                .respond(&mut stream, &method, &target, &headers, &body)
                .await;
            if !keep {
                return;
            }
        }
    }

    async fn respond<S: tokio::io::AsyncWrite + Unpin>(
        &self,
        stream: &mut S,
        method: &str,
        target: &str,
        headers: &HashMap<String, String>,
        body: &[u8],
    ) -> bool {
        {
            let mut seen = self.seen.lock().expect("lock");
            seen.requests.push((method.to_string(), target.to_string()));
            if let Some(auth) = headers.get("authorization") {
                seen.authorizations.push(auth.clone());
            }
        }
        let (redirect, forced, get_stall) = {
            let b = self.behaviour.lock().expect("lock");
            (b.redirect_to.clone(), b.force_status, b.get_stall)
        };
        if let Some(to) = redirect {
            return write_reply(stream, 307, &[("location", to.as_str())], b"{}").await;
        }
        if let Some(status) = forced {
            return write_reply(stream, status, &[], b"{\"code\":\"internal\"}").await;
        }
        let path = target.split('?').next().unwrap_or("");
        if method == "GET" {
            if let Some(stall) = get_stall {
                tokio::time::sleep(stall).await;
            }
            let (status, body, extra) = self.get(path, headers);
            let extra: Vec<(&str, &str)> = extra.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let bytes = if body.is_null() {
                Vec::new()
            } else {
                body.to_string().into_bytes()
            };
            return write_reply(stream, status, &extra, &bytes).await;
        }
        self.post(stream, path, body).await
    }

    fn get(
        &self,
        path: &str,
        headers: &HashMap<String, String>,
    ) -> (u16, Value, Vec<(&'static str, String)>) {
        let b = self.behaviour.lock().expect("lock");
        match path {
            "/session/v1/hello" => {
                if let Some(version) = headers.get("x-collie-session") {
                    let in_range = version
                        .parse::<u32>()
                        .is_ok_and(|v| v >= b.protocol.0 && v <= b.protocol.1);
                    if !in_range {
                        self.seen.lock().expect("lock").telling_hellos += 1;
                        let body = json!({"code": "incompatible", "refusal": {
                            "agent": {"min": b.protocol.0, "max": b.protocol.1},
                            "collie": {"min": 1, "max": 1}}});
                        return (409, body, vec![]);
                    }
                }
                let body = json!({"service": b.service, "protocol": {"min": b.protocol.0, "max": b.protocol.1},
                    "host": {"name": "faulty"}, "epoch": b.epoch, "ready": b.ready, "caps": {}});
                (200, body, vec![])
            }
            "/session/v1/snapshot" => {
                let tag = format!("\"{}-{}\"", b.epoch, b.rev);
                if !b.never_not_modified
                    && headers
                        .get("if-none-match")
                        .is_some_and(|h| h.trim_start_matches("W/") == tag)
                {
                    return (304, Value::Null, vec![("etag", tag)]);
                }
                let asks = if b.ask_open {
                    json!([{"id": b.ask_id, "revision": 1, "kind": "permission", "title": b.ask_title,
                        "permission": {"tool": "shell", "arguments": {"command": "ls"}, "options": [
                            {"id": "allow-once", "label": "Allow once", "effect": "allow"},
                            {"id": "deny", "label": "Deny", "effect": "deny"}]}}])
                } else {
                    json!([])
                };
                let body = json!({"epoch": b.epoch, "rev": b.rev, "workspaces": [{"id": "w1", "title": "W",
                    "tabs": [{"id": "t1", "title": "T", "panes": [{"id": "p1", "title": "P",
                        "state": if b.ask_open {"waiting"} else {"idle"}, "turn": null, "belt": [], "asks": asks}]}]}],
                    "starters": []});
                (200, body, vec![("etag", tag)])
            }
            p if p.starts_with("/session/v1/pane/") && p.ends_with("/events") => {
                let body = json!({"epoch": b.epoch, "cursor": 0, "events": []});
                (200, body, vec![])
            }
            _ => (404, json!({"code": "not-found"}), vec![]),
        }
    }

    async fn post<S: tokio::io::AsyncWrite + Unpin>(
        &self,
        stream: &mut S,
        path: &str,
        body: &[u8],
    ) -> bool {
        let value: Value = serde_json::from_slice(body).unwrap_or(json!({}));
        self.seen.lock().expect("lock").posts.push(value.clone());
        let request_id = value["requestId"].as_str().unwrap_or("").to_string();
        let mut payload = value.clone();
        if let Value::Object(map) = &mut payload {
            map.remove("requestId");
        }
        let fault = self.behaviour.lock().expect("lock").post_fault;
        if let PostFault::Stall(stall) = fault {
            tokio::time::sleep(stall).await;
            return false;
        }
        if fault == PostFault::Starting {
            let starting =
                json!({"code": "starting", "message": "the agent is laying out its panes"});
            return write_json(stream, 503, &starting, &[]).await;
        }
        let reply = {
            let mut b = self.behaviour.lock().expect("lock");
            if let Some((seen_payload, first)) = b.memory.get(&request_id) {
                if *seen_payload == payload {
                    let mut again = first.clone();
                    again["replayed"] = json!(true);
                    (200, again)
                } else {
                    (
                        409,
                        json!({"code": "request-id-reused", "requestId": request_id}),
                    )
                }
            } else if path.ends_with("/answer") {
                let reply = if b.ask_open && value["askId"] == json!(b.ask_id) {
                    b.ask_open = false;
                    b.rev += 1;
                    self.seen
                        .lock()
                        .expect("lock")
                        .applied
                        .push(request_id.clone());
                    (
                        200,
                        json!({"code": "ok", "requestId": request_id, "outcome": {"optionId": value["answer"]["optionId"], "summary": "Allowed"}}),
                    )
                } else if value["askId"] == json!(b.ask_id) {
                    (
                        409,
                        json!({"code": "decided", "by": "phone", "requestId": request_id, "outcome": {"summary": "Allowed"}}),
                    )
                } else {
                    (200, json!({"code": "too-late", "requestId": request_id}))
                };
                b.memory
                    .insert(request_id.clone(), (payload, reply.1.clone()));
                reply
            } else {
                (404, json!({"code": "not-found"}))
            }
        };
        match fault {
            PostFault::DropAfterApply => false,
            PostFault::DropAfterApplyOnce => {
                self.behaviour.lock().expect("lock").post_fault = PostFault::None;
                false
            }
            PostFault::ServerError => {
                write_json(stream, 502, &json!({"code": "internal"}), &[]).await
            }
            PostFault::Oversized => {
                let mut big = reply.1.clone();
                big["padding"] = json!("x".repeat(20 * 1024));
                write_json(stream, reply.0, &big, &[]).await
            }
            _ => write_json(stream, reply.0, &reply.1, &[]).await,
        }
    }
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

async fn read_request<S: tokio::io::AsyncRead + Unpin>(
    stream: &mut S,
) -> Option<(String, String, HashMap<String, String>, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let header_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..header_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let target = first.next()?.to_string();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[header_end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((method, target, headers, body))
}

async fn write_json<S: tokio::io::AsyncWrite + Unpin>(
    stream: &mut S,
    status: u16,
    body: &Value,
    headers: &[(&str, &str)],
) -> bool {
    write_reply(stream, status, headers, body.to_string().as_bytes()).await
}

async fn write_reply<S: tokio::io::AsyncWrite + Unpin>(
    stream: &mut S,
    status: u16,
    headers: &[(&str, &str)],
    body: &[u8],
) -> bool {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.is_ok()
        && stream.write_all(body).await.is_ok()
        && stream.flush().await.is_ok()
}
