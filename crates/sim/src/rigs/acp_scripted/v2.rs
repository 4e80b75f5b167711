//! The scripted ACP agent's v2 side: what it answers a client that asks for ACP v2 (the draft
//! of the schema's `v2` module, the crate's `unstable_protocol_v2`). the scripted agent routes a
//! client's `initialize` here when it asks for 2 or more, and to its v1 side otherwise; with
//! `--protocol 1` it speaks v1 alone.
//!
//! The same agent in v2's words: `initialize` answers `info` and the `capabilities.session`
//! marker (new, list, resume, close, prompt, cancel, update); `session/prompt` only
//! acknowledges with the user message's `messageId`, and the turn is told by `state_update`
//! (`running`, `requires_action` while a permission waits, `idle` with its `stopReason`); the
//! messages, the plan and the tool call are upserts keyed by their ids; the command's output
//! comes from a terminal of its own (`terminal_update`, `terminal_output_chunk`); the permission has a
//! `title` and names its tool call as its `subject`; `session/resume` with `replayFrom`
//! replays the conversation as whole messages with the ids they had, then answers. There are no
//! modes (v2 has no `session/set_mode`), only the `speed` option. Sessions are kept in the
//! same folder and shape as the v1 side's, so either side resumes what the other prompted.
//!
//! Each turn thinks nothing and plans one step, says a sentence, asks to run the tests, runs
//! them or not as answered, and ends; `/ask` asks a question (`elicitation/create`) instead;
//! `/edit` proposes a fix as a file change with its `git_patch`, asking first;
//! `slow` streams for long, to be cancelled. The `--break` ids of `BREAKS` are
//! kept here as in v1, in v2's terms where v2 differs (`P9` and `P2` on the option's values,
//! `P12` an idle with no `running` before it, `P13` a permission with an empty title).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agent_client_protocol::v2::schema as v2;
use agent_client_protocol::v2::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, ConnectTo, Error, ErrorCode};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{Remembered, SPEEDS, ScriptedOptions, Shared, recall, remember, sessions};

/// A v2 message of ours, built from its wire shape and read back through the schema's type,
/// so what it sends is what the schema says.
fn wire<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|error| {
        eprintln!("scripted agent: a v2 message of its own does not read: {error}");
        Error::internal_error()
    })
}

/// Its `speed` option, as v2 shapes a select option.
fn option_list(remembered: &Remembered) -> Value {
    json!([{
        "configId": "speed",
        "name": "Speed",
        "description": "How fast it goes",
        "type": "select",
        "currentValue": remembered.speed(),
        "options": SPEEDS.iter().map(|(id, name)| json!({"value": id, "name": name})).collect::<Vec<_>>(),
    }])
}

/// The id of the `n`th message of `who` ("user" or "agent") in a session: the same when the
/// turn tells it and when a resume replays it (ACP v2: a replayed message keeps its id).
fn message_id(session: &str, who: &str, n: usize) -> String {
    format!("{session}-{who}-{n}")
}

fn count(remembered: &Remembered, who: &str) -> usize {
    remembered.history.iter().filter(|(w, _)| w == who).count()
}

fn send(cx: &ConnectionTo<Client>, session: &str, update: Value) {
    let notification =
        wire::<v2::UpdateSessionNotification>(json!({"sessionId": session, "update": update}));
    if let Ok(notification) = notification
        && let Err(error) = cx.send_notification(notification)
    {
        eprintln!("scripted agent: an update could not be sent: {error}");
    }
}

fn tell_state(cx: &ConnectionTo<Client>, session: &str, state: &str, stop: Option<&str>) {
    let mut update = json!({"sessionUpdate": "state_update", "state": state});
    if let Some(stop) = stop {
        update["stopReason"] = json!(stop);
    }
    send(cx, session, update);
}

fn not_found(id: &str) -> Error {
    Error::new(ErrorCode::RESOURCE_NOT_FOUND, "Resource not found").data(json!({ "sessionId": id }))
}

/// The v2 side, ready for the router.
pub(super) fn agent(options: ScriptedOptions, state: Shared) -> impl ConnectTo<Client> {
    let (o_login, s_login) = (options.clone(), Arc::clone(&state));
    let (o_init, o_new, o_resume, o_list, o_option, o_prompt, o_cancel, o_close) = (
        options.clone(),
        options.clone(),
        options.clone(),
        options.clone(),
        options.clone(),
        options.clone(),
        options.clone(),
        options,
    );
    let (s_new, s_resume, s_list, s_option, s_prompt, s_cancel, s_close) = (
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
        state,
    );
    Agent
        .v2()
        .name("collie-scripted-agent")
        .on_receive_request(
            async move |_request: v2::InitializeRequest,
                        responder: Responder<v2::InitializeResponse>,
                        _cx| {
                let mut reply = json!({
                    "protocolVersion": 2,
                    "info": {"name": "collie-scripted-agent", "version": env!("CARGO_PKG_VERSION")},
                    "capabilities": {"session": {}},
                });
                if o_init.sign_in && !o_init.breaks("P4") {
                    reply["authMethods"] = json!([{"type": "agent", "methodId": "login", "name": "Log in to the scripted agent"}]);
                }
                responder.respond(wire(reply)?)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: v2::NewSessionRequest,
                        responder: Responder<v2::NewSessionResponse>,
                        _cx| {
                if o_new.sign_in && !s_new.lock().is_ok_and(|s| s.signed_in) {
                    return responder.respond_with_error(Error::auth_required());
                }
                let id = {
                    let Ok(mut state) = s_new.lock() else {
                        return responder.respond_with_error(Error::internal_error());
                    };
                    state.next += 1;
                    let id = format!("scripted-v2-{}-{}", std::process::id(), state.next);
                    let fresh = Remembered {
                        cwd: request.cwd.into_inner(),
                        ..Remembered::default()
                    };
                    state.sessions.insert(id.clone(), fresh);
                    id
                };
                let fresh = Remembered::default();
                responder.respond(wire(
                    json!({"sessionId": id, "configOptions": option_list(&fresh)}),
                )?)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: v2::ResumeSessionRequest,
                        responder: Responder<v2::ResumeSessionResponse>,
                        cx: ConnectionTo<Client>| {
                let id = request.session_id.to_string();
                let Some(found) = recall(&s_resume, &o_resume, &id) else {
                    if o_resume.breaks("P6") {
                        return responder.respond_with_error(Error::internal_error());
                    }
                    return responder.respond_with_error(not_found(&id));
                };
                let reply: v2::ResumeSessionResponse =
                    wire(json!({"configOptions": option_list(&found)}))?;
                // ACP v2: with `replayFrom` the history comes first, whole messages with the
                // ids they had, then a current `state_update`, then the answer (before it,
                // with `--break P7`).
                let mut responder = Some(responder);
                if o_resume.breaks("P7")
                    && let Some(early) = responder.take()
                {
                    early.respond(reply.clone())?;
                }
                if request.replay_from.is_some() {
                    let (mut users, mut agents) = (0, 0);
                    for (who, words) in &found.history {
                        let (kind, n) = match who.as_str() {
                            "user" => ("user_message", &mut users),
                            "agent" => ("agent_message", &mut agents),
                            _ => continue,
                        };
                        let message = message_id(&id, who, *n);
                        *n += 1;
                        send(
                            &cx,
                            &id,
                            json!({"sessionUpdate": kind, "messageId": message, "content": [{"type": "text", "text": words}]}),
                        );
                    }
                }
                tell_state(&cx, &id, "idle", None);
                eprintln!("scripted agent: resumed session {id} (v2)");
                if let Some(responder) = responder {
                    responder.respond(reply)?;
                }
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: v2::LoginAuthRequest,
                        responder: Responder<v2::LoginAuthResponse>,
                        _cx| {
                // ACP v2: the agent signs in itself; its one way is `login`, done at once.
                let method = request.method_id.to_string();
                if !o_login.sign_in || method != "login" {
                    return responder.respond_with_error(Error::invalid_params());
                }
                if let Ok(mut state) = s_login.lock() {
                    state.signed_in = true;
                }
                eprintln!("scripted agent: signed in with {method} (v2)");
                responder.respond(wire(json!({}))?)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: v2::ListSessionsRequest,
                        responder: Responder<v2::ListSessionsResponse>,
                        _cx| {
                if o_list.breaks("P5") {
                    return responder.respond(wire(json!({"sessions": []}))?);
                }
                // The v1 side's listing, in v2's words (the same fields).
                let asked = agent_client_protocol::v1::schema::ListSessionsRequest::new()
                    .cwd(request.cwd.map(|cwd| cwd.into_inner()));
                let listed = sessions::list(&s_list, &o_list, asked);
                let listed = serde_json::to_value(listed).unwrap_or(Value::Null);
                responder.respond(wire(json!({"sessions": listed["sessions"]}))?)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: v2::SetSessionConfigOptionRequest,
                        responder: Responder<v2::SetSessionConfigOptionResponse>,
                        cx: ConnectionTo<Client>| {
                let id = request.session_id.to_string();
                if s_option.lock().is_ok_and(|s| s.poisoned.contains(&id)) {
                    return responder.respond_with_error(Error::new(
                        ErrorCode::INTERNAL_ERROR,
                        "this session was cancelled",
                    ));
                }
                let asked = serde_json::to_value(&request).unwrap_or(Value::Null);
                let value = asked["value"].as_str().unwrap_or_default().to_string();
                let offered = SPEEDS.iter().any(|(s, _)| *s == value);
                if request.config_id.to_string() != "speed" || !offered {
                    if o_option.breaks("P2") {
                        return responder.respond_with_error(Error::new(-32500, "no such value"));
                    }
                    if !o_option.breaks("P9") {
                        return responder.respond_with_error(Error::invalid_params());
                    }
                }
                if value == "refused" {
                    return responder.respond_with_error(Error::new(
                        ErrorCode::INTERNAL_ERROR,
                        "the scripted agent refuses the speed refused",
                    ));
                }
                let now = {
                    let Ok(mut state) = s_option.lock() else {
                        return responder.respond_with_error(Error::internal_error());
                    };
                    let Some(remembered) = state.sessions.get_mut(&id) else {
                        return responder.respond_with_error(not_found(&id));
                    };
                    remembered.speed = value;
                    option_list(remembered)
                };
                remember(&s_option, &o_option, &id);
                responder.respond(wire(json!({"configOptions": now}))?)?;
                send(
                    &cx,
                    &id,
                    json!({"sessionUpdate": "config_option_update", "configOptions": now}),
                );
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: v2::CloseSessionRequest,
                        responder: Responder<v2::CloseSessionResponse>,
                        _cx| {
                let id = request.session_id.to_string();
                if let Ok(mut state) = s_close.lock()
                    && !o_close.breaks("P8")
                {
                    state.sessions.remove(&id);
                    if let Some(flag) = state.cancelled.get(&id) {
                        flag.store(true, Ordering::SeqCst);
                    }
                }
                eprintln!("scripted agent: closed session {id} (v2)");
                responder.respond(wire(json!({}))?)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: v2::PromptRequest,
                        responder: Responder<v2::PromptResponse>,
                        cx: ConnectionTo<Client>| {
                let session = request.session_id.to_string();
                let words: String = serde_json::to_value(&request.prompt)
                    .unwrap_or(Value::Null)
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|block| block["text"].as_str().map(str::to_string))
                    .collect::<Vec<_>>()
                    .join("\n");
                let cancelled = Arc::new(AtomicBool::new(false));
                let turn = {
                    let Ok(mut state) = s_prompt.lock() else {
                        return responder.respond_with_error(Error::internal_error());
                    };
                    let Some(remembered) = state.sessions.get(&session) else {
                        return responder.respond_with_error(not_found(&session));
                    };
                    let turn = (count(remembered, "user"), count(remembered, "agent"));
                    state.running.insert(session.clone());
                    state.cancels.remove(&session);
                    state
                        .cancelled
                        .insert(session.clone(), Arc::clone(&cancelled));
                    turn
                };
                let user = message_id(&session, "user", turn.0);
                // ACP v2: the prompt is acknowledged at once with the user message's id; the
                // turn is told by state updates.
                responder.respond(wire(json!({"messageId": user}))?)?;
                let task = Turn {
                    cx: cx.clone(),
                    state: Arc::clone(&s_prompt),
                    options: o_prompt.clone(),
                    session,
                    cancelled,
                    user,
                    agent: message_id(&request.session_id.to_string(), "agent", turn.1),
                    words,
                };
                cx.spawn(task.play())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |cancel: v2::CancelSessionNotification, _cx| {
                let id = cancel.session_id.to_string();
                if let Ok(mut state) = s_cancel.lock() {
                    if !state.running.contains(&id) {
                        if o_cancel.breaks("P10") {
                            state.poisoned.insert(id);
                        }
                        return Ok(());
                    }
                    *state.cancels.entry(id.clone()).or_default() += 1;
                    if let Some(flag) = state.cancelled.get(&id) {
                        flag.store(true, Ordering::SeqCst);
                    }
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
}

/// One turn of a v2 session.
struct Turn {
    cx: ConnectionTo<Client>,
    state: Shared,
    options: ScriptedOptions,
    session: String,
    cancelled: Arc<AtomicBool>,
    /// The ids of this turn's user message and the agent's reply.
    user: String,
    agent: String,
    words: String,
}

impl Turn {
    fn stopped(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    fn update(&self, update: Value) {
        send(&self.cx, &self.session, update);
    }

    fn state(&self, state_of: &str, stop: Option<&str>) {
        if state_of == "running" && self.options.breaks("P12") {
            // SPEC P12 broken on purpose in v2's terms: the turn never says it runs.
            return;
        }
        tell_state(&self.cx, &self.session, state_of, stop);
    }

    /// Streams `text` a word at a time as chunks of the agent's message.
    async fn say(&self, text: &str, slow: bool) {
        let words: Vec<&str> = text.split_inclusive(' ').collect();
        let rounds = if slow { 40 } else { 1 };
        for _ in 0..rounds {
            for word in &words {
                if self.stopped() {
                    return;
                }
                self.update(json!({"sessionUpdate": "agent_message_chunk", "messageId": self.agent, "content": {"type": "text", "text": word}}));
                tokio::time::sleep(self.options.pace).await;
            }
        }
    }

    async fn play(self) -> Result<(), Error> {
        let result = self.run().await;
        let cancels = self.state.lock().map_or(0, |mut s| {
            s.running.remove(&self.session);
            s.cancelled.remove(&self.session);
            s.cancels.remove(&self.session).unwrap_or_default()
        });
        if self.options.breaks("P15") && cancels >= 2 {
            // SPEC P15 broken on purpose: a second cancel of one turn ends the agent.
            tokio::spawn(async {
                tokio::time::sleep(Duration::from_millis(200)).await;
                std::process::exit(3);
            });
        }
        let stop = match result {
            Ok(stop) => stop,
            Err(error) => {
                eprintln!("scripted agent: a v2 turn failed: {error}");
                "_failed"
            }
        };
        let stop = match (self.stopped(), self.options.breaks("P14")) {
            // SPEC P14 broken on purpose: a cancelled turn ends as if it had run its course.
            (true, true) => "end_turn",
            (true, false) => "cancelled",
            (false, _) => stop,
        };
        self.state("idle", Some(stop));
        Ok(())
    }

    /// The turn, up to its stop reason.
    async fn run(&self) -> Result<&'static str, Error> {
        self.state("running", None);
        self.update(json!({"sessionUpdate": "user_message", "messageId": self.user, "content": [{"type": "text", "text": self.words}]}));
        let plan = format!("{}-plan", self.user);
        let step = |status: &str| json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": plan, "entries": [{"content": "Run the tests", "priority": "high", "status": status}]}});
        self.update(step("pending"));
        let (opening, reply) = if self.words.contains("/ask") {
            let opening = "A question first. ";
            self.say(opening, false).await;
            (opening, self.ask().await?)
        } else if self.words.contains("/edit") {
            let opening = "Let me fix it. ";
            self.say(opening, false).await;
            (opening, self.edit().await?)
        } else {
            let opening = "Let me run the tests. ";
            self.say(opening, self.words.contains("slow")).await;
            (opening, self.tests().await?)
        };
        if self.stopped() {
            return Ok("cancelled");
        }
        self.update(step("completed"));
        self.say(&reply, false).await;
        if let Ok(mut state) = self.state.lock()
            && let Some(remembered) = state.sessions.get_mut(&self.session)
        {
            remembered.history.push(("user".into(), self.words.clone()));
            remembered
                .history
                .push(("agent".into(), format!("{opening}{reply}")));
        }
        remember(&self.state, &self.options, &self.session);
        Ok("end_turn")
    }

    /// Asks to run the tests, and runs them or not.
    async fn tests(&self) -> Result<String, Error> {
        if self.stopped() {
            return Ok(String::new());
        }
        let call = format!("{}-tests", self.user);
        self.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "title": "cargo test", "kind": "execute", "status": "pending", "rawInput": {"command": "cargo test"}}));
        self.state("requires_action", None);
        let title = if self.options.breaks("P13") {
            ""
        } else {
            "Run the tests (cargo test)?"
        };
        let request: v2::RequestPermissionRequest = wire(json!({
            "sessionId": self.session,
            "title": title,
            "subject": {"type": "tool_call", "toolCall": {"toolCallId": call}},
            "options": [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "allow_always", "name": "Always allow execute", "kind": "allow_always"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
                {"optionId": "reject_always", "name": "Never", "kind": "reject_always"},
            ],
        }))?;
        let allowed = self
            .chosen_option(request)
            .await?
            .is_some_and(|o| o.starts_with("allow"));
        if self.stopped() {
            self.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "failed"}));
            return Ok(String::new());
        }
        self.state("running", None);
        if !allowed {
            self.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "failed", "content": [{"type": "content", "content": {"type": "text", "text": "Not run: you said no."}}]}));
            return Ok("I did not run the tests, as you said.".into());
        }
        // The command runs in a terminal of its own, display-only (ACP v2): the call names
        // it, and its output comes as base64 chunks.
        let terminal = format!("{call}-terminal");
        self.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "in_progress", "content": [{"type": "terminal", "terminalId": terminal}]}));
        self.update(json!({"sessionUpdate": "terminal_update", "terminalId": terminal, "command": "cargo test"}));
        for line in [
            "running 3 tests\n",
            "\u{1b}[32mtest result: ok.\u{1b}[0m 3 passed\n",
        ] {
            use base64::Engine as _;
            let data = base64::engine::general_purpose::STANDARD.encode(line);
            self.update(json!({"sessionUpdate": "terminal_output_chunk", "terminalId": terminal, "data": data}));
            tokio::time::sleep(self.options.pace * 2).await;
        }
        self.update(json!({"sessionUpdate": "terminal_update", "terminalId": terminal, "exitStatus": {"exitCode": 0}}));
        self.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "test result: ok. 3 passed"}}]}));
        Ok("The tests pass.".into())
    }

    /// Asks the client's permission and gives the option chosen: none when the turn was
    /// cancelled under the question.
    async fn chosen_option(
        &self,
        request: v2::RequestPermissionRequest,
    ) -> Result<Option<String>, Error> {
        let answer = self.cx.send_request(request).block_task().await?;
        let answer = serde_json::to_value(&answer).unwrap_or(Value::Null);
        Ok(answer
            .pointer("/outcome/optionId")
            .and_then(Value::as_str)
            .map(str::to_string))
    }

    /// Proposes a fix to `src/lib.rs` as ACP v2's file change (its `git_patch`), asks before
    /// it, and keeps it or not as answered; it writes no file of the workspace.
    async fn edit(&self) -> Result<String, Error> {
        let cwd = self
            .state
            .lock()
            .ok()
            .and_then(|s| s.sessions.get(&self.session).map(|r| r.cwd.clone()))
            .unwrap_or_default();
        let path = cwd.join("src/lib.rs").display().to_string();
        let patch = "diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n pub fn add(a: i32, b: i32) -> i32 {\n-    a - b\n+    a + b\n }\n";
        let call = format!("{}-edit", self.user);
        let diff = json!({"type": "diff", "changes": [{"operation": "modify", "path": path, "fileType": "text"}], "patch": {"format": "git_patch", "text": patch}});
        self.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "title": "Fix add in src/lib.rs", "kind": "edit", "status": "pending", "content": [diff]}));
        self.state("requires_action", None);
        let request: v2::RequestPermissionRequest = wire(json!({
            "sessionId": self.session,
            "title": "Apply the fix to src/lib.rs?",
            "subject": {"type": "tool_call", "toolCall": {"toolCallId": call, "kind": "edit", "content": [diff]}},
            "options": [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
            ],
        }))?;
        let allowed = self
            .chosen_option(request)
            .await?
            .is_some_and(|o| o == "allow");
        self.state("running", None);
        let status = if allowed { "completed" } else { "failed" };
        self.update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": status}),
        );
        Ok(if allowed {
            "The fix is in.".into()
        } else {
            "I left src/lib.rs as it was.".into()
        })
    }

    /// Asks the person one question through the client (`elicitation/create`).
    async fn ask(&self) -> Result<String, Error> {
        let request: v2::CreateElicitationRequest = wire(json!({
            "sessionId": self.session,
            "mode": "form",
            "message": "Which name should the new function have?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}},
        }))?;
        self.state("requires_action", None);
        let answer = self.cx.send_request(request).block_task().await?;
        self.state("running", None);
        let answer = serde_json::to_value(&answer).unwrap_or(Value::Null);
        Ok(match answer["action"].as_str() {
            Some("accept") => "Thanks, that name it is.".into(),
            _ => "You would rather not say; fine.".into(),
        })
    }
}
