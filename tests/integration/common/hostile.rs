//! A hostile durable agent: escapes and invisible characters everywhere, for tests of cleaning.
//!
//! It keeps docs/WIRE.md's shapes, so the phone reads it, but puts terminal escapes, C1
//! controls, bidi overrides, zero-width characters, tag characters and noncharacters in every
//! string that can reach a person, on every route and in every error, and echoes the request's
//! `Authorization` header back in what it says (SPEC L1, T2). Raw HTTP/1.1 on std threads, so a
//! test can run the real binary against it without a runtime. [`assert_clean_bytes`] is what the
//! tests assert on the bytes a command wrote.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// The markers of the payload: an OSC that would set the terminal's title, a C1 CSI and OSC,
/// bidi, zero-width, a line separator, tags, U+034F, an annotation, noncharacters, CR, BS, DEL.
pub const PAYLOAD: &str = "\u{1b}]0;PWNED\u{7}\u{9b}31m\u{9d}0;PWNEDC1\u{9c}\u{202e}rev\u{200b}\u{2028}\u{e0041}\u{e007f}\u{34f}\u{fff9}\u{fdd0}\u{fffe}\u{10ffff}\r\u{8}\u{7f}\u{1b}[2J";

/// `word` with the payload inside it, so each field is told apart in a failure.
pub fn hostile(word: &str) -> String {
    format!("{word}{PAYLOAD}{word}")
}

/// What the agent does on hello (and so on every check and command).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Speaks the protocol, hostile in every field.
    Fields,
    /// Answers every route `200` with a body that is not JSON at all.
    NotJson,
    /// Answers every route with an error status and a hostile error body and header.
    Errors,
}

#[derive(Clone)]
pub struct Hostile {
    mode: Arc<Mutex<Mode>>,
    /// Every `Authorization` header seen, to prove the token was sent (and so could be echoed).
    pub authorizations: Arc<Mutex<Vec<String>>>,
}

impl Hostile {
    /// Serves on 127.0.0.1; returns the agent and its base URL.
    pub fn start(mode: Mode) -> (Self, String) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let me = Self {
            mode: Arc::new(Mutex::new(mode)),
            authorizations: Arc::new(Mutex::new(Vec::new())),
        };
        let server = me.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let server = server.clone();
                std::thread::spawn(move || server.handle(stream));
            }
        });
        (me, format!("http://127.0.0.1:{port}"))
    }

    fn handle(&self, mut stream: TcpStream) {
        while let Some((method, target, headers, body)) = read_request(&mut stream) {
            let auth = headers.get("authorization").cloned().unwrap_or_default();
            if !auth.is_empty() {
                self.authorizations.lock().expect("lock").push(auth.clone());
            }
            let mode = *self.mode.lock().expect("lock");
            let (status, reply, extra) = match mode {
                Mode::NotJson => (
                    200,
                    format!("not json at all {PAYLOAD} {auth}").into_bytes(),
                    vec![],
                ),
                Mode::Errors => {
                    let body = json!({"code": hostile("code"), "message": format!("{} {auth}", hostile("message")),
                        "requestId": hostile("rid")});
                    (
                        500,
                        body.to_string().into_bytes(),
                        // Header values may carry bytes over 0x7f: a bidi override, a C1.
                        vec![("x-collie-error", "\u{202e}\u{9b}hdr".to_string())],
                    )
                }
                Mode::Fields => {
                    let (status, value) = route(&method, &target, &body, &auth);
                    (status, value.to_string().into_bytes(), vec![])
                }
            };
            if !write_reply(&mut stream, status, &extra, &reply) {
                return;
            }
        }
    }
}

/// One reply of the protocol-keeping agent, every string hostile.
fn route(method: &str, target: &str, body: &[u8], auth: &str) -> (u16, Value) {
    let path = target.split('?').next().unwrap_or("");
    let h = hostile;
    match (method, path) {
        ("GET", "/session/v1/hello") => (
            200,
            json!({"service": "collie-durable", "protocol": {"min": 1, "max": 1},
                "host": {"name": h("host")}, "epoch": "epoch-hostile-0123456789abcdef", "ready": true,
                "caps": {"allowAlways": true, "history": true, "close": true, "rename": true,
                    "reopen": true, "abort": true, "send": true, "starters": true,
                    h("cap").as_str(): true}}),
        ),
        ("GET", "/session/v1/snapshot") => (
            200,
            json!({"epoch": "epoch-hostile-0123456789abcdef", "rev": 1, "workspaces": [{"id": "w1", "title": h("workspace"),
                "tabs": [{"id": "t1", "title": h("tab"), "panes": [{"id": "p1", "title": h("pane"),
                    "state": h("state"), "turn": {"id": "turn-1", "state": h("turnstate")},
                    "belt": [{"id": "b1", "label": h("belt")}],
                    "asks": asks()}]}]}],
                "starters": [{"id": "s1", "title": h("starter"), "description": h("description")}]}),
        ),
        ("GET", p) if p.starts_with("/session/v1/pane/") && p.ends_with("/events") => (
            200,
            json!({"epoch": "epoch-hostile-0123456789abcdef", "cursor": 4, "events": [
                {"seq": 1, "type": "item", "item": {"id": "i1", "kind": "reply", "text": h("reply")}},
                {"seq": 2, "type": "item", "item": {"id": "i2", "kind": "markdown", "text": format!("# {}\n\n`{}`", h("md"), h("code"))}},
                {"seq": 3, "type": "item", "item": {"id": "i3", "kind": h("kind"), "text": h("unknownkind")}},
                {"seq": 4, "type": h("eventtype"), "title": h("eventtitle")}]}),
        ),
        ("GET", "/session/v1/conversations") => (
            200,
            json!({"conversations": [{"id": "c1", "title": h("conversation"), "state": "closed"}]}),
        ),
        ("GET", p) if p.starts_with("/session/v1/conversation/") => (
            200,
            json!({"items": [{"id": "i9", "kind": "user", "text": h("olditem")}]}),
        ),
        ("POST", _) => {
            let value: Value = serde_json::from_slice(body).unwrap_or(json!({}));
            let request_id = value["requestId"].as_str().unwrap_or("r-0").to_string();
            (
                200,
                json!({"code": "ok", "requestId": request_id,
                    "outcome": {"summary": format!("{} echo {auth}", h("summary")),
                        "text": format!("{} {auth}", h("outcometext"))}}),
            )
        }
        _ => (
            404,
            json!({"code": h("notfound"), "message": format!("{} {auth}", h("nf"))}),
        ),
    }
}

fn asks() -> Value {
    let h = hostile;
    json!([
        {"id": "a1", "revision": 1, "kind": "permission", "title": h("asktitle"), "prompt": h("prompt"),
            "permission": {"tool": h("tool"), "arguments": {h("argkey").as_str(): h("argvalue")},
                "options": [{"id": "allow", "label": h("allowlabel"), "effect": "allow"},
                            {"id": "deny", "label": h("denylabel"), "effect": "deny"}]}},
        {"id": "a2", "revision": 1, "kind": "choice", "title": h("choicetitle"), "prompt": h("choiceprompt"),
            "choice": {"options": [{"id": "o1", "label": h("option")}]}},
        {"id": "a3", "revision": 1, "kind": h("askkind"), "title": h("unknownask")}
    ])
}

/// Method, target, headers (names lower-cased) and body of one request.
type Request = (String, String, HashMap<String, String>, Vec<u8>);

fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let header_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).ok()?;
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
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((method, target, headers, body))
}

fn write_reply(
    stream: &mut TcpStream,
    status: u16,
    headers: &[(&str, String)],
    body: &[u8],
) -> bool {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
        body.len()
    )
    .into_bytes();
    for (name, value) in headers {
        head.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    head.extend_from_slice(b"\r\n");
    stream.write_all(&head).is_ok() && stream.write_all(body).is_ok() && stream.flush().is_ok()
}

/// Code points of the payload that must never be written: each is removed by cleaning.
const FORBIDDEN: &[char] = &[
    '\u{9b}',
    '\u{9c}',
    '\u{9d}',
    '\u{202e}',
    '\u{200b}',
    '\u{2028}',
    '\u{e0041}',
    '\u{e007f}',
    '\u{34f}',
    '\u{fff9}',
    '\u{fdd0}',
    '\u{fffe}',
    '\u{10ffff}',
];

/// Asserts what a command wrote (stdout, stderr, a file) holds no control or invisible
/// character an agent sent and not the token. Checked on the raw bytes: valid UTF-8; no C0
/// control but `\n` and `\t`; no DEL; no C1; none of the payload's invisible characters.
pub fn assert_clean_bytes(what: &str, bytes: &[u8], token: &str) {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => panic!(
            "{what} is not UTF-8 ({error}): {:?}",
            String::from_utf8_lossy(bytes)
        ),
    };
    for (at, c) in text.char_indices() {
        let bad = (c < ' ' && c != '\n' && c != '\t')
            || ('\u{7f}'..='\u{9f}').contains(&c)
            || FORBIDDEN.contains(&c);
        assert!(
            !bad,
            "{what} holds U+{:04X} at byte {at}: …{:?}…",
            c as u32,
            &text[text.floor_char_boundary(at.saturating_sub(40))
                ..text.ceil_char_boundary((at + 40).min(text.len()))]
        );
    }
    assert!(
        token.is_empty() || !text.contains(token),
        "{what} holds the token"
    );
}
