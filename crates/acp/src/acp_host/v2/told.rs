//! What an agent says over ACP v2, in the host's own words: the events of `super::super::client`
//! and the stream's [`Told`], so everything after this file is one code for both versions.
//! Read from the v2 message as the schema crate parsed it (its JSON, whose shapes v1 shares
//! where v2 kept them), never trusted further: every text is cleaned and capped where v1's is
//! (SPEC L1), in the stream and the card.
//!
//! - `user_message`, `agent_message`, `agent_thought` (whole messages) and the `*_chunk`s of
//!   them, each with its `messageId` → [`Upsert::Message`] and [`Upsert::Chunk`];
//! - `tool_call_update` (the first of an id makes the call) → v1's `tool_call_update`, which
//!   the stream merges by call id; `tool_call_content_chunk` → the same with that content;
//! - `plan_update` → [`Upsert::Plan`] by its `planId`;
//! - `available_commands_update`, `config_option_update` (`configId` read as v1's `id`),
//!   `session_info_update`, `usage_update` → v1's;
//! - `state_update` → [`Turn`]: `running`, `requires_action`, `idle` with its `stopReason`;
//! - `terminal_output_chunk` and a `terminal_update`'s `output` (base64) → [`Upsert::Terminal`];
//! - `session/request_permission` → v1's request: its `subject` (the tool call, or a command)
//!   is the card's tool call, and its `title` the call's title, which the card shows beside the
//!   arguments, never as the card's title (SPEC A10).

use agent_client_protocol::ErrorCode;
use agent_client_protocol::v1::schema::{RequestPermissionRequest, SessionUpdate, StopReason};
use serde_json::{Value, json};

use super::super::client::Failure;
use super::super::stream::{Told, Upsert};
use super::super::text::clean_line;
use crate::wire::ItemKind;

/// Where a v2 session's work stands (`state_update`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Turn {
    Running,
    /// The agent waits for the person: a permission, a question, a sign-in.
    RequiresAction,
    /// No foreground work: the stop reason of the work that ended, when it says one (a
    /// resume's snapshot says none); `error` is the failure.
    Idle(Option<Result<StopReason, Failure>>),
}

/// What one `session/update` of v2 says: for the stream, or of the turn. `None` for what the
/// phone does not show (logged by the caller).
#[derive(Debug, Clone)]
pub(crate) enum Said {
    Told(Told),
    Turn(Turn),
}

/// One v2 `session/update` (its `update`, as JSON): a tool call's file changes come after the
/// call itself, each as a diff of its own ([`Upsert::Diff`]).
pub(crate) fn update(update: &Value) -> Vec<Said> {
    let mut said: Vec<Said> = one(update).into_iter().collect();
    if let (Some("tool_call_update" | "tool_call_content_chunk"), Some(call)) = (
        update.get("sessionUpdate").and_then(Value::as_str),
        update.get("toolCallId").and_then(Value::as_str),
    ) {
        let content = match update.get("content") {
            Some(Value::Array(pieces)) => pieces.clone(),
            Some(piece @ Value::Object(_)) => vec![piece.clone()],
            _ => Vec::new(),
        };
        for piece in content.iter().filter(|p| p["type"] == "diff") {
            said.push(Said::Told(Told::Upsert(Upsert::Diff {
                call: call.to_string(),
                text: diff_text(piece),
            })));
        }
    }
    said
}

/// What one update says for itself.
fn one(update: &Value) -> Option<Said> {
    let kind = update.get("sessionUpdate")?.as_str()?;
    let message = |kind: ItemKind| -> Option<Said> {
        let id = update.get("messageId")?.as_str()?.to_string();
        let content = update
            .get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| serde_json::from_value(b.clone()).ok())
                    .collect()
            })?;
        Some(Said::Told(Told::Upsert(Upsert::Message {
            kind,
            id,
            content,
        })))
    };
    let chunk = |kind: ItemKind| -> Option<Said> {
        let id = update.get("messageId")?.as_str()?.to_string();
        let content = serde_json::from_value(update.get("content")?.clone()).ok()?;
        Some(Said::Told(Told::Upsert(Upsert::Chunk {
            kind,
            id,
            content,
        })))
    };
    match kind {
        "user_message" => message(ItemKind::User),
        "agent_message" => message(ItemKind::Reply),
        "agent_thought" => message(ItemKind::Thinking),
        "user_message_chunk" => chunk(ItemKind::User),
        "agent_message_chunk" => chunk(ItemKind::Reply),
        "agent_thought_chunk" => chunk(ItemKind::Thinking),
        "tool_call_update" => v1(json!({
            "sessionUpdate": "tool_call_update",
            "toolCallId": update.get("toolCallId")?,
            "title": update.get("title"),
            "kind": update.get("kind"),
            "status": update.get("status"),
            "content": update.get("content").map(tool_content),
            "rawInput": update.get("rawInput"),
            "rawOutput": update.get("rawOutput"),
            "locations": update.get("locations"),
            "name": update.get("name"),
        })),
        "tool_call_content_chunk" => v1(json!({
            "sessionUpdate": "tool_call_update",
            "toolCallId": update.get("toolCallId")?,
            "content": tool_content(&json!([update.get("content")?])),
        })),
        "plan_update" => {
            let plan = update.get("plan")?;
            let id = plan.get("planId")?.as_str()?.to_string();
            let plan = serde_json::from_value(json!({"entries": plan.get("entries")?})).ok()?;
            Some(Said::Told(Told::Upsert(Upsert::Plan { id, plan })))
        }
        "config_option_update" => v1(json!({
            "sessionUpdate": "config_option_update",
            "configOptions": config_options(update.get("configOptions")?),
        })),
        "available_commands_update" | "session_info_update" | "usage_update" => v1(update.clone()),
        "state_update" => state(update).map(Said::Turn),
        // The agent's own terminals, display-only: their output as it comes (base64 bytes).
        "terminal_output_chunk" => terminal(update, "/data", false),
        "terminal_update" => terminal(update, "/output/data", true),
        _ => None,
    }
}

/// A terminal's output bytes (base64, at `pointer`) as text for its item; `None` when the
/// update carries none (a `terminal_update` of its command or exit only) or they do not read.
fn terminal(update: &Value, pointer: &str, replace: bool) -> Option<Said> {
    use base64::Engine as _;
    let id = update.get("terminalId")?.as_str()?.to_string();
    let data = update.pointer(pointer)?.as_str()?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .ok()?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Some(Said::Told(Told::Upsert(Upsert::Terminal {
        id,
        text,
        replace,
    })))
}

/// Whether it is (a piece of) the user's message.
pub(crate) fn is_user(told: &Told) -> bool {
    matches!(
        told,
        Told::Upsert(
            Upsert::Message {
                kind: ItemKind::User,
                ..
            } | Upsert::Chunk {
                kind: ItemKind::User,
                ..
            }
        )
    )
}

/// A v1 update from its JSON, with the fields v2 left out dropped (`null` is not v1's
/// "absent" for every field).
fn v1(mut value: Value) -> Option<Said> {
    if let Some(map) = value.as_object_mut() {
        map.retain(|_, v| !v.is_null());
    }
    match serde_json::from_value::<SessionUpdate>(value) {
        Ok(update) => Some(Said::Told(Told::Update(Box::new(update)))),
        Err(error) => {
            tracing::debug!(error = %error, "a v2 update that does not read as the host shows it");
            None
        }
    }
}

/// A tool call's v2 content as v1's: text content stays as it is; a diff (v2's file
/// changes) is shown apart, as a diff ([`update`]); a terminal (display-only) is left out
/// here: its output comes as its own updates ([`Upsert::Terminal`]).
fn tool_content(content: &Value) -> Value {
    let pieces = content.as_array().cloned().unwrap_or_default();
    Value::Array(
        pieces
            .into_iter()
            .filter(|piece| piece["type"] == "content")
            .collect(),
    )
}

/// A v2 diff as the text the phone shows: its `patch` (the `git_patch` text, a unified
/// diff) where given, else the files it changes, one line each.
fn diff_text(diff: &Value) -> String {
    diff.pointer("/patch/text")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| changes_words(diff))
}

/// The paths a v2 diff changes (its `changes`).
fn diff_paths(diff: &Value) -> Vec<String> {
    diff.get("changes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|change| change.get("path").and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// The files a diff without a patch changes, one line each ("modify /src/lib.rs").
fn changes_words(diff: &Value) -> String {
    diff.get("changes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|change| {
            let operation = change
                .get("operation")
                .and_then(Value::as_str)
                .unwrap_or("change");
            let path = change
                .get("path")
                .and_then(Value::as_str)
                .unwrap_or("a file");
            format!("{} {}", clean_line(operation), clean_line(path))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// v2's config options as v1's: the same but for `configId`, which v1 calls `id`.
pub(crate) fn config_options(options: &Value) -> Value {
    Value::Array(
        options
            .as_array()
            .into_iter()
            .flatten()
            .map(|option| {
                let mut option = option.clone();
                if let Some(map) = option.as_object_mut()
                    && let Some(id) = map.remove("configId")
                {
                    map.insert("id".into(), id);
                }
                option
            })
            .collect(),
    )
}

fn state(update: &Value) -> Option<Turn> {
    match update.get("state")?.as_str()? {
        "running" => Some(Turn::Running),
        "requires_action" => Some(Turn::RequiresAction),
        "idle" => Some(Turn::Idle(update.get("stopReason").map(|reason| {
            match reason.as_str() {
                // A turn that fails for want of a sign-in (`auth_required`, -32000: claude
                // signed out ends its first turn so) says so as v1's refusal does, not as a
                // failure of the turn.
                Some("error")
                    if update
                        .get("error")
                        .and_then(|e| e.get("code"))
                        .and_then(Value::as_i64)
                        == Some(i64::from(i32::from(ErrorCode::AUTH_REQUIRED))) =>
                {
                    Err(Failure::SignIn(Vec::new()))
                }
                Some("error") => {
                    let error = update.get("error");
                    let message = error
                        .and_then(|e| e.get("message"))
                        .and_then(Value::as_str)
                        .map(clean_line)
                        .filter(|m| !m.is_empty())
                        .unwrap_or_else(|| "it said only that the turn failed".to_string());
                    Err(Failure::Refused(message))
                }
                // A reason v1 does not know ends the turn as done, as v1's path does.
                _ => Ok(serde_json::from_value(reason.clone()).unwrap_or(StopReason::EndTurn)),
            }
        }))),
        _ => None,
    }
}

/// A v2 `session/request_permission` (as JSON) as v1's: the subject's tool call, or a command
/// as an `execute` call of it (its `cwd` among the arguments), with the permission's `title`
/// as the call's title. A subject the host does not know asks with the title alone.
pub(crate) fn permission(request: &Value, key: u64) -> Option<RequestPermissionRequest> {
    let title = request
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let subject = request.get("subject");
    let mut call = match subject.and_then(|s| s.get("type")).and_then(Value::as_str) {
        Some("tool_call") => subject?.get("toolCall")?.clone(),
        Some("command") => {
            let subject = subject?;
            json!({
                "toolCallId": subject
                    .get("toolCallId")
                    .cloned()
                    .unwrap_or_else(|| json!(format!("command-{key}"))),
                "kind": "execute",
                "rawInput": {"command": subject.get("command"), "cwd": subject.get("cwd")},
            })
        }
        _ => json!({"toolCallId": format!("permission-{key}")}),
    };
    if let Some(map) = call.as_object_mut() {
        if !title.trim().is_empty() {
            map.insert("title".into(), json!(title));
        }
        if let Some(content) = map.get("content").cloned() {
            // The file changes it asks for are the card's arguments when the call sends no
            // input of its own: its files, and the patch the card shows as a diff.
            let diffs: Vec<&Value> = content
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["type"] == "diff")
                .collect();
            let no_input = map
                .get("rawInput")
                .is_none_or(|i| i.is_null() || i.as_object().is_some_and(|o| o.is_empty()));
            if no_input && !diffs.is_empty() {
                let files: Vec<String> = diffs.iter().flat_map(|d| diff_paths(d)).collect();
                let patch: Vec<String> = diffs.iter().map(|d| diff_text(d)).collect();
                map.insert(
                    "rawInput".into(),
                    json!({"files": files, "patch": patch.join("\n")}),
                );
            }
            map.insert("content".into(), tool_content(&content));
        }
        map.retain(|_, v| !v.is_null());
    }
    let v1 = json!({
        "sessionId": request.get("sessionId")?,
        "toolCall": call,
        "options": request.get("options")?,
    });
    serde_json::from_value(v1)
        .map_err(
            |error| tracing::debug!(error = %error, "a v2 permission request that does not read"),
        )
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upsert(value: Value) -> Upsert {
        match update(&value).pop() {
            Some(Said::Told(Told::Upsert(upsert))) => upsert,
            other => panic!("not an upsert: {other:?}"),
        }
    }

    #[test]
    fn messages_and_plans_are_upserts_by_their_ids() {
        let Upsert::Message { kind, id, content } = upsert(json!({
            "sessionUpdate": "agent_message", "messageId": "m1",
            "content": [{"type": "text", "text": "Hello"}]
        })) else {
            panic!("a message")
        };
        assert_eq!(
            (kind, id.as_str(), content.len()),
            (ItemKind::Reply, "m1", 1)
        );
        let Upsert::Chunk { kind, id, .. } = upsert(json!({
            "sessionUpdate": "agent_thought_chunk", "messageId": "t1",
            "content": {"type": "text", "text": "hm"}
        })) else {
            panic!("a chunk")
        };
        assert_eq!((kind, id.as_str()), (ItemKind::Thinking, "t1"));
        let Upsert::Plan { id, plan } = upsert(json!({
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": "p1", "entries": [{"content": "Run the tests", "priority": "high", "status": "pending"}]}
        })) else {
            panic!("a plan")
        };
        assert_eq!((id.as_str(), plan.entries.len()), ("p1", 1));
    }

    #[test]
    fn a_tool_call_update_reads_as_v1s_and_a_patch_is_its_diff() {
        let mut said = update(&json!({
            "sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "cargo test",
            "kind": "execute", "status": "completed",
            "content": [
                {"type": "content", "content": {"type": "text", "text": "ok"}},
                {"type": "diff", "changes": [{"operation": "modify", "path": "/a"}], "patch": {"format": "git_patch", "text": "--- /a\n+++ /a\n"}},
                {"type": "terminal", "terminalId": "t1"}
            ]
        }));
        let Some(Said::Told(Told::Upsert(Upsert::Diff { call, text }))) = said.pop() else {
            panic!("its diff: {said:?}")
        };
        assert_eq!((call.as_str(), text.as_str()), ("c1", "--- /a\n+++ /a\n"));
        let Some(Said::Told(Told::Update(update))) = said.pop() else {
            panic!("a tool call update: {said:?}")
        };
        let SessionUpdate::ToolCallUpdate(call) = *update else {
            panic!("a tool call update: {update:?}")
        };
        assert_eq!(call.tool_call_id.0.as_ref(), "c1");
        assert_eq!(
            call.fields.content.as_ref().map(Vec::len),
            Some(1),
            "its text"
        );
    }

    #[test]
    fn a_terminals_bytes_are_its_text() {
        let Upsert::Terminal { id, text, replace } = upsert(json!({
            "sessionUpdate": "terminal_output_chunk", "terminalId": "t1",
            "data": "cnVubmluZyAzIHRlc3RzChtbMzJtb2sbWzBtCg=="
        })) else {
            panic!("a terminal")
        };
        assert_eq!(
            (id.as_str(), text.as_str(), replace),
            ("t1", "running 3 tests\n\u{1b}[32mok\u{1b}[0m\n", false)
        );
        assert!(update(&json!({"sessionUpdate": "terminal_update", "terminalId": "t1", "exitStatus": {"exitCode": 0}})).is_empty());
        assert!(
            update(
                &json!({"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": "%%"})
            )
            .is_empty()
        );
    }

    #[test]
    fn state_updates_tell_the_turn() {
        let state = |v: Value| match update(&v).pop() {
            Some(Said::Turn(turn)) => turn,
            other => panic!("a state: {other:?}"),
        };
        assert_eq!(
            state(json!({"sessionUpdate": "state_update", "state": "running"})),
            Turn::Running
        );
        assert_eq!(
            state(json!({"sessionUpdate": "state_update", "state": "requires_action"})),
            Turn::RequiresAction
        );
        assert_eq!(
            state(
                json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"})
            ),
            Turn::Idle(Some(Ok(StopReason::Cancelled)))
        );
        assert_eq!(
            state(json!({"sessionUpdate": "state_update", "state": "idle"})),
            Turn::Idle(None)
        );
        assert_eq!(
            state(
                json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "error", "error": {"code": -32603, "message": "model\u{1b}[31m down"}})
            ),
            Turn::Idle(Some(Err(Failure::Refused("model[31m down".into()))))
        );
        // A turn that ends for want of a sign-in is a sign-in, in v1's words.
        assert_eq!(
            state(
                json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "error", "error": {"code": -32000, "message": "Authentication required"}})
            ),
            Turn::Idle(Some(Err(Failure::SignIn(Vec::new()))))
        );
    }

    #[test]
    fn a10_a_v2_permissions_subject_builds_the_card_and_its_title_is_data() {
        let request = permission(
            &json!({
                "sessionId": "s", "title": "Run the tests (cargo test)?",
                "subject": {"type": "tool_call", "toolCall": {"toolCallId": "c1"}},
                "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]
            }),
            1,
        )
        .expect("reads");
        assert_eq!(request.tool_call.tool_call_id.0.as_ref(), "c1");
        assert_eq!(
            request.tool_call.fields.title.as_deref(),
            Some("Run the tests (cargo test)?")
        );
        let request = permission(
            &json!({
                "sessionId": "s", "title": "Run it?",
                "subject": {"type": "command", "command": "rm -rf build", "cwd": "/w"},
                "options": []
            }),
            7,
        )
        .expect("reads");
        assert_eq!(request.tool_call.tool_call_id.0.as_ref(), "command-7");
        assert_eq!(
            request.tool_call.fields.raw_input,
            Some(json!({"command": "rm -rf build", "cwd": "/w"}))
        );
        // An edit asked with its file changes: the card holds its files and the patch.
        let request = permission(
            &json!({
                "sessionId": "s", "title": "Apply the fix?",
                "subject": {"type": "tool_call", "toolCall": {"toolCallId": "e1", "kind": "edit", "content": [
                    {"type": "diff", "changes": [{"operation": "modify", "path": "/w/src/lib.rs"}],
                     "patch": {"format": "git_patch", "text": "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-a - b\n+a + b\n"}}
                ]}},
                "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]
            }),
            8,
        )
        .expect("reads");
        let card = super::super::super::permission::card(&request);
        assert_eq!(card.ask.title, "edit: /w/src/lib.rs");
        let arguments = &card
            .ask
            .permission
            .as_ref()
            .expect("a permission")
            .arguments;
        assert_eq!(arguments["files"], json!(["/w/src/lib.rs"]));
        assert!(
            arguments["patch"]
                .as_str()
                .is_some_and(|p| p.contains("+a + b"))
        );
    }
}
