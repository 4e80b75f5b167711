//! A scripted model endpoint on 127.0.0.1 port 0, for running the real coding agents in the
//! tests with no account and no network: the OpenAI Responses API that Codex speaks
//! (`POST /v1/responses`, SSE), the Anthropic Messages API that Claude Code speaks
//! (`POST /v1/messages?beta=true`, SSE) and the Gemini API that Gemini CLI speaks
//! (`POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`, SSE, and `:generateContent` for
//! its side calls). docs/ACP.md, "Real agents in the tests", says how each agent is pointed here.
//!
//! What the model does is decided from the request alone, so the agents' retries and side
//! calls get the same answer: the newest words of the person in the conversation (the prompt)
//! pick a script, and the tool results after them say how far along it is.
//!
//! | the prompt holds | the model |
//! |---|---|
//! | `touch NAME` | asks its shell tool to run `touch NAME`, then says [`finished`] (or [`refused`] when the tool's result says a person refused it) |
//! | `write NAME` | writes `NAME` with the line `made by the scripted model` (Codex: an `apply_patch` custom tool call; Claude: its `Write` tool; Gemini: `write_file`), then says [`finished`] |
//! | `slow` | streams a long answer, a word every 50 ms for about 30 s, so a stop lands mid-stream |
//! | anything else | streams [`HELLO`] in five pieces |
//!
//! Everything received is kept ([`Received`]), to judge what an agent really sent: the prompt,
//! the tool results (so a deny is seen as the tool's refusal, not only as the host's word), the
//! earlier turns it carried (a loaded session sends its history), and whether it hung up on a
//! stream (a stop). A `CONNECT` is refused and counted: the agents run with this endpoint as
//! their proxy, so nothing they try to send off the machine leaves it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::SinkExt;
use futures::channel::mpsc;
use serde_json::{Value, json};

/// What the model says to a prompt with no script in it.
pub const HELLO: &str = "Hello from the scripted model.";

/// The model's last words after its tool ran (or was refused) for `prompt`.
pub fn finished(step: &str) -> String {
    format!("Finished: {step}.")
}

/// The model's last words when its tool was refused: an agent that tells the model of a
/// Deny (Gemini CLI does) gets these.
pub fn refused(step: &str) -> String {
    format!("Not done: {step} was refused.")
}

/// Whether a tool result is the agent telling the model a person said no.
pub fn is_refusal(result: &str) -> bool {
    let result = result.to_lowercase();
    [
        "canceled by the user",
        "cancelled by the user",
        "rejected",
        "refused",
        "denied",
        "doesn't want",
    ]
    .iter()
    .any(|w| result.contains(w))
}

/// The line the model writes into a file for `write NAME`.
pub const WRITTEN: &str = "made by the scripted model";

/// Which API a request came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// OpenAI Responses: Codex.
    Responses,
    /// Anthropic Messages: Claude Code.
    Messages,
    /// Gemini `generateContent`: Gemini CLI.
    Gemini,
    /// Anything else: a `CONNECT`, another path.
    Other,
}

/// One request as the endpoint saw it.
#[derive(Debug, Clone)]
pub struct Received {
    pub api: Api,
    pub method: String,
    pub path: String,
    /// The newest words of the person, when the request had any.
    pub prompt: Option<String>,
    /// The outputs of the tool calls after the prompt, oldest first.
    pub tool_results: Vec<String>,
    /// Every text the request carried (instructions, history, results), one string, to search.
    pub text: String,
    /// The whole request body, to read a field the agent set (a model, a reasoning effort).
    pub body: Value,
    /// A side call (Claude Code's small calls without tools): answered with plain words.
    pub side: bool,
    /// The agent hung up before the stream ended (a stop).
    pub hung_up: bool,
}

#[derive(Default)]
struct Shared {
    received: Vec<Received>,
    ids: u64,
}

/// The endpoint, serving until dropped.
pub struct ModelEndpoint {
    pub port: u16,
    shared: Arc<Mutex<Shared>>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for ModelEndpoint {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl ModelEndpoint {
    /// Starts it on 127.0.0.1, on a port the system picks.
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let port = listener.local_addr().expect("its address").port();
        let shared = Arc::new(Mutex::new(Shared::default()));
        let app = Router::new().fallback(serve).with_state(shared.clone());
        let server = tokio::spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("the endpoint serves");
        });
        Self {
            port,
            shared,
            server,
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Everything received so far, oldest first.
    pub fn received(&self) -> Vec<Received> {
        self.shared
            .lock()
            .expect("the endpoint's log")
            .received
            .clone()
    }

    /// The requests of the model's main conversation (not side calls, not `CONNECT`s).
    pub fn turns(&self) -> Vec<Received> {
        self.received()
            .into_iter()
            .filter(|r| r.api != Api::Other && !r.side)
            .collect()
    }

    /// The `CONNECT`s refused: each is an agent trying to reach a host off this machine.
    pub fn connects(&self) -> Vec<String> {
        self.received()
            .into_iter()
            .filter(|r| r.method == "CONNECT")
            .map(|r| r.path)
            .collect()
    }
}

async fn serve(State(shared): State<Arc<Mutex<Shared>>>, request: Request) -> Response {
    let method = request.method().clone();
    let path = request
        .uri()
        .path_and_query()
        .map_or_else(|| request.uri().to_string(), ToString::to_string);
    if method == Method::CONNECT {
        remember(&shared, received(Api::Other, &method, &path, &Value::Null));
        return (
            StatusCode::FORBIDDEN,
            "the scripted model endpoint sends nothing off this machine\n",
        )
            .into_response();
    }
    let body = axum::body::to_bytes(request.into_body(), 64 << 20)
        .await
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let api = if method == Method::POST && path.starts_with("/v1/responses") {
        Api::Responses
    } else if method == Method::POST && path.starts_with("/v1/messages") {
        Api::Messages
    } else if method == Method::POST && path.starts_with("/v1beta/models/") {
        Api::Gemini
    } else {
        Api::Other
    };
    let seen = received(api, &method, &path, &body);
    let script = Script::of(&seen);
    let index = remember(&shared, seen);
    let id = {
        let mut shared = shared.lock().expect("the endpoint's log");
        shared.ids += 1;
        shared.ids
    };
    match api {
        Api::Responses => stream(
            shared,
            index,
            responses_events(&script, id, &CodexTools::of(&body)),
        ),
        Api::Messages if body["stream"] == true => {
            stream(shared, index, messages_events(&script, id))
        }
        Api::Messages => messages_whole(&script, id),
        Api::Gemini if path.contains(":streamGenerateContent") => {
            stream(shared, index, gemini_events(&script))
        }
        Api::Gemini if path.contains(":countTokens") => {
            axum::Json(json!({"totalTokens": 10})).into_response()
        }
        Api::Gemini => axum::Json(gemini_chunk(&script, "{}")).into_response(),
        Api::Other => StatusCode::NOT_FOUND.into_response(),
    }
}

fn remember(shared: &Mutex<Shared>, seen: Received) -> usize {
    let mut shared = shared.lock().expect("the endpoint's log");
    shared.received.push(seen);
    shared.received.len() - 1
}

// ----- reading a request ------------------------------------------------------------------

fn received(api: Api, method: &Method, path: &str, body: &Value) -> Received {
    let (prompt, tool_results, side) = match api {
        Api::Responses => {
            let (prompt, results) = responses_prompt(body);
            (prompt, results, false)
        }
        Api::Messages => {
            let (prompt, results) = messages_prompt(body);
            let side = body["tools"].as_array().is_none_or(Vec::is_empty);
            (prompt, results, side)
        }
        Api::Gemini => {
            let (prompt, results) = gemini_prompt(body);
            // Its routing and checking calls do not stream and offer no tools.
            let side = !path.contains(":streamGenerateContent");
            (prompt, results, side)
        }
        Api::Other => (None, Vec::new(), false),
    };
    let mut text = String::new();
    all_text(body, &mut text);
    Received {
        api,
        method: method.to_string(),
        path: path.to_string(),
        prompt,
        tool_results,
        text,
        body: body.clone(),
        side,
        hung_up: false,
    }
}

fn all_text(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|v| all_text(v, out)),
        Value::Object(map) => map.values().for_each(|v| all_text(v, out)),
        _ => {}
    }
}

/// Words the agent adds as a person's message but a person did not write: Codex's
/// `<environment_context>` and instructions, Claude Code's `<system-reminder>`s.
fn from_the_agent(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with('<') || text.starts_with("# AGENTS.md")
}

/// Codex: the last `input_text` of a user message, and the tool outputs after it.
fn responses_prompt(body: &Value) -> (Option<String>, Vec<String>) {
    let mut prompt = None;
    let mut results = Vec::new();
    for item in body["input"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("message") if item["role"] == "user" => {
                let words: Vec<&str> = item["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c["text"].as_str())
                    .filter(|t| !from_the_agent(t))
                    .collect();
                if !words.is_empty() {
                    prompt = Some(words.join("\n"));
                    results.clear();
                }
            }
            Some("function_call_output" | "custom_tool_call_output") => {
                let output = &item["output"];
                results.push(
                    output
                        .as_str()
                        .map_or_else(|| output.to_string(), str::to_string),
                );
            }
            _ => {}
        }
    }
    (prompt, results)
}

/// Claude Code: the last text block of a user message, and the tool results after it (Claude
/// Code puts a new prompt in the same message as the last turn's tool result).
fn messages_prompt(body: &Value) -> (Option<String>, Vec<String>) {
    let mut prompt = None;
    let mut results = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        if message["role"] != "user" {
            continue;
        }
        let blocks = match &message["content"] {
            Value::String(text) => vec![json!({"type": "text", "text": text})],
            Value::Array(blocks) => blocks.clone(),
            _ => Vec::new(),
        };
        for block in blocks {
            match block["type"].as_str() {
                Some("text") => {
                    let text = block["text"].as_str().unwrap_or_default();
                    if !from_the_agent(text) {
                        prompt = Some(text.to_string());
                        results.clear();
                    }
                }
                Some("tool_result") => {
                    let mut text = String::new();
                    all_text(&block["content"], &mut text);
                    results.push(text);
                }
                _ => {}
            }
        }
    }
    (prompt, results)
}

/// Gemini CLI: the last text part of a user content, and the function responses after it.
fn gemini_prompt(body: &Value) -> (Option<String>, Vec<String>) {
    let mut prompt = None;
    let mut results = Vec::new();
    for content in body["contents"].as_array().into_iter().flatten() {
        if content["role"] != "user" {
            continue;
        }
        for part in content["parts"].as_array().into_iter().flatten() {
            if let Some(text) = part["text"].as_str() {
                if !from_the_agent(text) {
                    prompt = Some(text.to_string());
                    results.clear();
                }
            } else if part.get("functionResponse").is_some() {
                let mut text = String::new();
                all_text(&part["functionResponse"]["response"], &mut text);
                results.push(text);
            }
        }
    }
    (prompt, results)
}

// ----- the scripts --------------------------------------------------------------------------

/// What the model does next.
#[derive(Debug, Clone, PartialEq)]
enum Script {
    Words(String),
    Slow,
    Run(String),
    Write(String),
    /// Claude's AskUserQuestion: which database, Postgres or SQLite ([`ASKED`]). Only Claude
    /// has the tool; the others answer it in words.
    Ask,
}

/// The question the model asks with Claude's AskUserQuestion, and its options.
pub const ASKED: (&str, [&str; 2]) = (
    "Which database should the service use?",
    ["Postgres", "SQLite"],
);

impl Script {
    fn of(seen: &Received) -> Self {
        let prompt = seen.prompt.clone().unwrap_or_default();
        if seen.side {
            return Self::Words("ok".into());
        }
        let after = |word: &str| {
            let mut words = prompt.split_whitespace();
            words.find(|w| *w == word)?;
            let name = words.next()?;
            let name = name.trim_matches(|c: char| "\"'`“”‘’,;:".contains(c));
            Some(name.trim_end_matches('.').to_string())
        };
        let last_words = |step: String| {
            if seen.tool_results.iter().any(|r| is_refusal(r)) {
                Self::Words(refused(&step))
            } else {
                Self::Words(finished(&step))
            }
        };
        if let Some(name) = after("touch") {
            return if seen.tool_results.is_empty() {
                Self::Run(format!("touch {name}"))
            } else {
                last_words(format!("touch {name}"))
            };
        }
        if let Some(name) = after("write") {
            return if seen.tool_results.is_empty() {
                Self::Write(name)
            } else {
                last_words(format!("write {name}"))
            };
        }
        if prompt.split_whitespace().any(|w| w == "slow") {
            return Self::Slow;
        }
        if prompt.contains("ask me which database") {
            return if seen.tool_results.is_empty() {
                Self::Ask
            } else {
                Self::Words(finished("ask which database"))
            };
        }
        Self::Words(HELLO.into())
    }
}

/// The pieces a streamed answer comes in, and the pause between them.
fn pieces(script: &Script) -> (Vec<String>, Duration) {
    match script {
        Script::Slow => (
            (0..600).map(|n| format!("word{n} ")).collect(),
            Duration::from_millis(50),
        ),
        Script::Words(words) => {
            let mut pieces: Vec<String> = words.split_inclusive(' ').map(str::to_string).collect();
            if pieces.is_empty() {
                pieces.push(String::new());
            }
            (pieces, Duration::from_millis(20))
        }
        Script::Ask => (vec![HELLO.to_string()], Duration::from_millis(20)),
        Script::Run(_) | Script::Write(_) => (Vec::new(), Duration::ZERO),
    }
}

fn patch(name: &str) -> String {
    format!("*** Begin Patch\n*** Add File: {name}\n+{WRITTEN}\n*** End Patch\n")
}

/// One SSE frame: the event's name (none for Gemini), its data, and the pause before it.
type Event = (String, Value, Duration);

/// What codex's request offers the model, read from its `tools`, so the script calls only
/// tools it was given, as GPT does.
struct CodexTools {
    /// `exec_command` takes `sandbox_permissions`: then, as GPT does in a sandbox that may not
    /// write (codex-acp's `read-only` mode), a command that writes asks to run outside it
    /// (`require_escalated`, with the question for the person), which is what makes codex ask
    /// the person before it runs it.
    escalate: bool,
    /// The freeform `apply_patch` tool (codex 0.166 offers it only to models whose metadata it
    /// has; for `gpt-5.4` it has none, and a file is written with a command instead).
    apply_patch: bool,
}

impl CodexTools {
    fn of(body: &Value) -> Self {
        let tools = body["tools"].as_array().cloned().unwrap_or_default();
        Self {
            escalate: tools.iter().any(|t| {
                t["name"] == "exec_command"
                    && t["parameters"]["properties"]["sandbox_permissions"].is_object()
            }),
            apply_patch: tools.iter().any(|t| t["name"] == "apply_patch"),
        }
    }

    fn exec(&self, id: u64, command: &str) -> Value {
        let arguments = if self.escalate {
            json!({"cmd": command, "sandbox_permissions": "require_escalated",
                   "justification": format!("May I run `{command}`? It writes in the workspace.")})
        } else {
            json!({"cmd": command})
        };
        json!({
            "type": "function_call", "call_id": format!("call_{id}"), "name": "exec_command",
            "arguments": arguments.to_string(),
        })
    }
}

fn responses_events(script: &Script, id: u64, tools: &CodexTools) -> Vec<Event> {
    let response = format!("resp_{id}");
    let message = format!("msg_{id}");
    let mut events: Vec<Event> = vec![(
        "response.created".into(),
        json!({"type": "response.created", "response": {"id": response}}),
        Duration::ZERO,
    )];
    let done = |item: Value| {
        (
            "response.output_item.done".to_string(),
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
            Duration::ZERO,
        )
    };
    match script {
        Script::Run(command) => events.push(done(tools.exec(id, command))),
        Script::Write(name) if tools.apply_patch => events.push(done(json!({
            "type": "custom_tool_call", "call_id": format!("call_{id}"), "name": "apply_patch",
            "input": patch(name),
        }))),
        Script::Write(name) => {
            let command = format!("printf '%s\\n' '{WRITTEN}' > {name}");
            events.push(done(tools.exec(id, &command)));
        }
        Script::Words(_) | Script::Slow | Script::Ask => {
            let (pieces, pause) = pieces(script);
            events.push((
                "response.output_item.added".into(),
                json!({"type": "response.output_item.added", "output_index": 0,
                       "item": {"type": "message", "role": "assistant", "id": message, "content": []}}),
                Duration::ZERO,
            ));
            for piece in &pieces {
                events.push((
                    "response.output_text.delta".into(),
                    json!({"type": "response.output_text.delta", "item_id": message,
                           "output_index": 0, "content_index": 0, "delta": piece}),
                    pause,
                ));
            }
            events.push(done(json!({
                "type": "message", "role": "assistant", "id": message,
                "content": [{"type": "output_text", "text": pieces.concat()}],
            })));
        }
    }
    events.push((
        "response.completed".into(),
        json!({"type": "response.completed", "response": {"id": response, "usage": {
            "input_tokens": 10, "input_tokens_details": null, "output_tokens": 10,
            "output_tokens_details": null, "total_tokens": 20}}}),
        Duration::ZERO,
    ));
    events
}

fn messages_events(script: &Script, id: u64) -> Vec<Event> {
    let now = Duration::ZERO;
    let mut events: Vec<Event> = vec![(
        "message_start".into(),
        json!({"type": "message_start", "message": {"id": format!("msg_{id}"), "type": "message",
               "role": "assistant", "model": "scripted", "content": [], "stop_reason": null,
               "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        now,
    )];
    let tool = |name: &str, input: Value| -> Vec<Event> {
        vec![
            (
                "content_block_start".into(),
                json!({"type": "content_block_start", "index": 0, "content_block": {
                    "type": "tool_use", "id": format!("toolu_{id}"), "name": name, "input": {}}}),
                now,
            ),
            (
                "content_block_delta".into(),
                json!({"type": "content_block_delta", "index": 0, "delta": {
                    "type": "input_json_delta", "partial_json": input.to_string()}}),
                now,
            ),
        ]
    };
    let stop_reason = match script {
        Script::Ask => {
            let (question, [first, second]) = ASKED;
            events.extend(tool(
                "AskUserQuestion",
                json!({"questions": [{
                    "question": question, "header": "Database", "multiSelect": false,
                    "options": [
                        {"label": first, "description": "Relational, the team knows it"},
                        {"label": second, "description": "One file, nothing to run"},
                    ],
                }]}),
            ));
            "tool_use"
        }
        Script::Run(command) => {
            events.extend(tool(
                "Bash",
                json!({"command": command, "description": "Run the scripted command"}),
            ));
            "tool_use"
        }
        Script::Write(name) => {
            events.extend(tool(
                "Write",
                json!({"file_path": name, "content": format!("{WRITTEN}\n")}),
            ));
            "tool_use"
        }
        Script::Words(_) | Script::Slow => {
            let (pieces, pause) = pieces(script);
            events.push((
                "content_block_start".into(),
                json!({"type": "content_block_start", "index": 0,
                       "content_block": {"type": "text", "text": ""}}),
                now,
            ));
            for piece in pieces {
                events.push((
                    "content_block_delta".into(),
                    json!({"type": "content_block_delta", "index": 0,
                           "delta": {"type": "text_delta", "text": piece}}),
                    pause,
                ));
            }
            "end_turn"
        }
    };
    events.extend([
        (
            "content_block_stop".into(),
            json!({"type": "content_block_stop", "index": 0}),
            now,
        ),
        (
            "message_delta".into(),
            json!({"type": "message_delta", "delta": {"stop_reason": stop_reason,
                   "stop_sequence": null}, "usage": {"output_tokens": 10}}),
            now,
        ),
        ("message_stop".into(), json!({"type": "message_stop"}), now),
    ]);
    events
}

/// One `GenerateContentResponse`: its model content is `parts`.
fn gemini_response(parts: Value, finish: Option<&str>) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if let Some(finish) = finish {
        candidate["finishReason"] = json!(finish);
    }
    json!({"candidates": [candidate], "usageMetadata": {"promptTokenCount": 10,
        "candidatesTokenCount": 10, "totalTokenCount": 20}, "modelVersion": "scripted"})
}

/// A side call's answer: `words` when the script has none of its own.
fn gemini_chunk(script: &Script, words: &str) -> Value {
    let text = match script {
        Script::Words(w) if w != "ok" => w.clone(),
        _ => words.to_string(),
    };
    gemini_response(json!([{"text": text}]), Some("STOP"))
}

fn gemini_events(script: &Script) -> Vec<Event> {
    let now = Duration::ZERO;
    // Gemini's SSE has no event names; `data:` lines only.
    let call = |name: &str, args: Value| {
        vec![(
            String::new(),
            gemini_response(
                json!([{"functionCall": {"name": name, "args": args}}]),
                Some("STOP"),
            ),
            now,
        )]
    };
    match script {
        Script::Run(command) => call(
            "run_shell_command",
            json!({"command": command, "description": "Run the scripted command"}),
        ),
        Script::Write(name) => call(
            "write_file",
            json!({"file_path": name, "content": format!("{WRITTEN}\n")}),
        ),
        Script::Words(_) | Script::Slow | Script::Ask => {
            let (pieces, pause) = pieces(script);
            let last = pieces.len().saturating_sub(1);
            pieces
                .into_iter()
                .enumerate()
                .map(|(n, piece)| {
                    let finish = (n == last).then_some("STOP");
                    (
                        String::new(),
                        gemini_response(json!([{"text": piece}]), finish),
                        pause,
                    )
                })
                .collect()
        }
    }
}

/// A Messages reply that was not asked to stream.
fn messages_whole(script: &Script, id: u64) -> Response {
    let text = match script {
        Script::Words(words) => words.clone(),
        _ => "ok".into(),
    };
    let body = json!({"id": format!("msg_{id}"), "type": "message", "role": "assistant",
        "model": "scripted", "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 10}});
    ([(header::CONNECTION, "close")], axum::Json(body)).into_response()
}

/// Streams `events` as SSE, each after its pause. Claude Code waits for the body's end, so the
/// reply says `Connection: close`; an agent that hangs up mid-stream is marked on its request.
fn stream(shared: Arc<Mutex<Shared>>, index: usize, events: Vec<Event>) -> Response {
    let (mut tx, rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(4);
    tokio::spawn(async move {
        for (name, data, pause) in events {
            if !pause.is_zero() {
                tokio::time::sleep(pause).await;
            }
            let frame = if name.is_empty() {
                format!("data: {data}\n\n")
            } else {
                format!("event: {name}\ndata: {data}\n\n")
            };
            if tx.send(Ok(Bytes::from(frame))).await.is_err() {
                shared.lock().expect("the endpoint's log").received[index].hung_up = true;
                return;
            }
        }
    });
    let body = Body::from_stream(rx);
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
            (header::CONNECTION, "close"),
        ],
        body,
    )
        .into_response()
}
