//! Shapes of ACP v2 (the draft of the schema's `v2` module, `unstable_protocol_v2`), judged
//! by the crate's v2 types: a params or result object that does not deserialize into its type
//! is the wrong shape. The v2 types read leniently where the draft says a receiver must (an
//! unknown capability, a boolean where an object belongs, an unknown enum value), so what the
//! draft forbids of a sender is also checked as written: capabilities never booleans, and open
//! enums a defined value or one beginning with `_` (the draft's extensibility rule).

use agent_client_protocol::v2::schema::{
    CloseSessionResponse, CreateElicitationRequest, InitializeResponse, ListSessionsResponse,
    NewSessionResponse, PromptResponse, RequestPermissionRequest, UpdateSessionNotification,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::driver::quote;

/// v2's `ToolKind`, `ToolCallStatus`, `PlanEntryPriority`, `PlanEntryStatus`,
/// `PermissionOptionKind` and `StopReason`: open enums, so a value beginning with `_` is an
/// extension and no fault.
const TOOL_KINDS: &[&str] = &[
    "read",
    "edit",
    "delete",
    "move",
    "search",
    "execute",
    "think",
    "fetch",
    "switch_mode",
    "other",
];
const TOOL_STATUSES: &[&str] = &["pending", "in_progress", "completed", "failed"];
const PLAN_PRIORITIES: &[&str] = &["high", "medium", "low"];
const PLAN_STATUSES: &[&str] = &["pending", "in_progress", "completed"];
const OPTION_KINDS: &[&str] = &["allow_once", "allow_always", "reject_once", "reject_always"];
/// The schema's `StopReason` has `error` (with the failure as a JSON-RPC error object) beside
/// the five acp-tck's ACP-STATE-203 lists; the schema is the reference where they differ.
pub(crate) const STOP_REASONS: &[&str] = &[
    "end_turn",
    "max_tokens",
    "max_turn_requests",
    "refusal",
    "cancelled",
    "error",
];
/// The message updates of v2, each of which carries the `messageId` of its message.
const MESSAGE_KINDS: &[&str] = &[
    "user_message_chunk",
    "user_message",
    "agent_message_chunk",
    "agent_message",
    "agent_thought_chunk",
    "agent_thought",
];

fn reads_as<T: DeserializeOwned>(value: &Value, name: &str) -> Result<T, String> {
    serde_json::from_value(value.clone()).map_err(|error| {
        format!(
            "{} does not read as ACP v2's {name}: {}",
            quote(&value.to_string()),
            quote(&error.to_string())
        )
    })
}

/// A value of an open enum: one the draft defines, or an extension beginning with `_`.
pub(crate) fn defined(value: &str, allowed: &[&str]) -> bool {
    allowed.contains(&value) || value.starts_with('_')
}

/// P3: a v2 answer to `initialize`: `info` with a name and a version, and capabilities that
/// are objects all the way down, never booleans.
pub(crate) fn initialize(reply: &Value) -> Result<String, String> {
    reads_as::<InitializeResponse>(reply, "InitializeResponse")?;
    for field in ["name", "version"] {
        if reply
            .pointer(&format!("/info/{field}"))
            .and_then(Value::as_str)
            .is_none_or(|s| s.trim().is_empty())
        {
            return Err(format!(
                "initialize's info has no {field}: ACP v2 requires info with a name and a version"
            ));
        }
    }
    match reply.get("capabilities") {
        None | Some(Value::Null) => {}
        Some(Value::Object(capabilities)) => {
            fn booleans(path: &str, value: &Value, found: &mut Vec<String>) {
                match value {
                    Value::Bool(_) => found.push(path.to_string()),
                    Value::Object(map) => {
                        for (key, inner) in map.iter().filter(|(k, _)| *k != "_meta") {
                            booleans(&format!("{path}.{key}"), inner, found);
                        }
                    }
                    _ => {}
                }
            }
            let mut found = Vec::new();
            for (key, value) in capabilities.iter().filter(|(k, _)| *k != "_meta") {
                booleans(&format!("capabilities.{key}"), value, &mut found);
            }
            if !found.is_empty() {
                return Err(format!(
                    "{} a boolean: ACP v2 marks a capability with an object, never a boolean",
                    if found.len() == 1 {
                        format!("{} is", found[0])
                    } else {
                        format!("{} are", found.join(", "))
                    }
                ));
            }
        }
        Some(other) => {
            return Err(format!(
                "capabilities is not an object: {}",
                quote(&other.to_string())
            ));
        }
    }
    Ok("its answer reads as ACP v2's InitializeResponse, with info and object capabilities".into())
}

/// Whether the answer offers the session methods (`capabilities.session`, an object).
pub(crate) fn offers_sessions(reply: &Value) -> bool {
    reply
        .pointer("/capabilities/session")
        .is_some_and(Value::is_object)
}

/// P4: the ids of the answer's `authMethods` (v2 names them `methodId`).
pub(crate) fn auth_methods(reply: &Value) -> Vec<String> {
    reply
        .get("authMethods")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|m| {
            m.get("methodId")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// P5: the answer to `session/new`, and its session id.
pub(crate) fn new_session(reply: &Value) -> Result<String, String> {
    let parsed: NewSessionResponse = reads_as(reply, "NewSessionResponse")?;
    let id = parsed.session_id.to_string();
    if id.trim().is_empty() {
        return Err("session/new answered an empty sessionId".into());
    }
    Ok(id)
}

/// P5: one page of `session/list`.
pub(crate) fn listed_page(reply: &Value) -> Result<(), String> {
    reads_as::<ListSessionsResponse>(reply, "ListSessionsResponse").map(|_| ())
}

/// P8: the answer to `session/close`.
pub(crate) fn closed(reply: &Value) -> Result<(), String> {
    reads_as::<CloseSessionResponse>(reply, "CloseSessionResponse").map(|_| ())
}

/// P12: the answer to `session/prompt`, an acknowledgement; `Ok` with its `messageId`.
pub(crate) fn prompt_ack(reply: &Value) -> Result<String, String> {
    reads_as::<PromptResponse>(reply, "PromptResponse")?;
    let id = reply
        .get("messageId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if id.trim().is_empty() {
        return Err("session/prompt answered an empty messageId".into());
    }
    Ok(id.to_string())
}

/// P12: one `session/update`'s params; `Ok` with its kind.
pub(crate) fn update(params: &Value) -> Result<String, String> {
    reads_as::<UpdateSessionNotification>(params, "UpdateSessionNotification")?;
    let update = params.get("update").cloned().unwrap_or(Value::Null);
    let kind = update
        .get("sessionUpdate")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let open_enum = |value: Option<&Value>, what: &str, allowed: &[&str]| -> Result<(), String> {
        match value {
            None | Some(Value::Null) => Ok(()),
            Some(Value::String(value)) if defined(value, allowed) => Ok(()),
            Some(other) => Err(format!(
                "a {kind} update with {what} {}, which is none of ACP v2's {} and does not begin with _",
                quote(&other.to_string()),
                allowed.join(", ")
            )),
        }
    };
    let non_empty = |value: Option<&Value>| {
        value
            .and_then(Value::as_str)
            .is_some_and(|s| !s.trim().is_empty())
    };
    match kind.as_str() {
        kind if MESSAGE_KINDS.contains(&kind) && !non_empty(update.get("messageId")) => {
            return Err(format!("a {kind} update with an empty messageId"));
        }
        "tool_call_update" => {
            if !non_empty(update.get("toolCallId")) {
                return Err("a tool_call_update with an empty toolCallId".into());
            }
            open_enum(update.get("kind"), "kind", TOOL_KINDS)?;
            open_enum(update.get("status"), "status", TOOL_STATUSES)?;
        }
        "plan_update" => {
            if !non_empty(update.pointer("/plan/planId")) {
                return Err("a plan_update whose plan has an empty planId".into());
            }
            for entry in update
                .pointer("/plan/entries")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                open_enum(
                    entry.get("priority"),
                    "a plan entry's priority",
                    PLAN_PRIORITIES,
                )?;
                open_enum(entry.get("status"), "a plan entry's status", PLAN_STATUSES)?;
            }
        }
        _ => {}
    }
    Ok(kind)
}

/// P13: a v2 `session/request_permission`'s params: a title to head the card, and options.
pub(crate) fn permission(params: &Value) -> Result<String, String> {
    let parsed: RequestPermissionRequest = reads_as(params, "RequestPermissionRequest")?;
    if parsed.title.trim().is_empty() {
        return Err(
            "a permission request with an empty title: ACP v2 heads the person's card with it"
                .into(),
        );
    }
    if parsed.options.is_empty() {
        return Err(format!(
            "the permission request {} offers no option",
            quote(&parsed.title)
        ));
    }
    for option in params
        .get("options")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let kind = option
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !defined(kind, OPTION_KINDS) {
            return Err(format!(
                "a permission option of kind {}, which is none of ACP v2's {}",
                quote(kind),
                OPTION_KINDS.join(", ")
            ));
        }
    }
    Ok(parsed.title)
}

/// P13: a v2 `elicitation/create`'s params.
pub(crate) fn elicitation(params: &Value) -> Result<(), String> {
    reads_as::<CreateElicitationRequest>(params, "CreateElicitationRequest").map(|_| ())
}

#[cfg(test)]
mod tests {
    //! The v2 shapes as the draft gives them: our own fixtures, written from the doc comments
    //! and the serde shapes of `agent-client-protocol-schema` 1.17's `v2` module
    //! (`src/v2/agent.rs`: `InitializeResponse`, `PromptResponse`; `src/v2/client.rs`:
    //! `UpdateSessionNotification`, `StateUpdate`, `PlanUpdate`, `RequestPermissionRequest`)
    //! and the requirement texts of acp-tck's v2 registry (`src/tck/v2/requirements.py`,
    //! commit 1314e09: ACP-INIT-203, -204, ACP-PROMPT-201, ACP-PERM-201, ACP-PATCH-201,
    //! -204, -205, ACP-ENUM-201, ACP-STATE-203).
    use super::*;
    use serde_json::json;

    fn params(update: Value) -> Value {
        json!({"sessionId": "s", "update": update})
    }

    #[test]
    fn p3_v2_initialize_needs_info_and_object_capabilities() {
        let answer = |capabilities: Value| {
            initialize(
                &json!({"protocolVersion": 2, "info": {"name": "a", "version": "1"}, "capabilities": capabilities}),
            )
        };
        assert!(answer(json!({"session": {}, "auth": {"logout": {}}})).is_ok());
        let boolean = answer(json!({"session": {"resume": true}})).expect_err("a boolean");
        assert!(
            boolean.contains("capabilities.session.resume is a boolean"),
            "{boolean}"
        );
        assert!(answer(json!({"session": true})).is_err());
        assert!(initialize(&json!({"protocolVersion": 2, "capabilities": {}})).is_err());
        assert!(
            initialize(&json!({"protocolVersion": 2, "info": {"name": "", "version": "1"}}))
                .is_err()
        );
        assert!(offers_sessions(&json!({"capabilities": {"session": {}}})));
        assert!(!offers_sessions(
            &json!({"capabilities": {"session": true}})
        ));
    }

    #[test]
    fn p12_v2_acks_messages_tools_and_plans() {
        assert_eq!(prompt_ack(&json!({"messageId": "m1"})), Ok("m1".into()));
        assert!(prompt_ack(&json!({"stopReason": "end_turn"})).is_err());
        assert!(prompt_ack(&json!({"messageId": ""})).is_err());
        let chunk = json!({"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": "hi"}});
        assert_eq!(update(&params(chunk)), Ok("agent_message_chunk".into()));
        assert!(
            update(&params(
                json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}})
            ))
            .is_err()
        );
        let tool = |kind: &str| {
            update(&params(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "t", "title": "cargo test", "kind": kind, "status": "pending"}),
            ))
        };
        assert!(tool("execute").is_ok());
        assert!(tool("_ours").is_ok());
        assert!(tool("shell").is_err());
        let plan = |id: &str| {
            update(&params(
                json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": id, "entries": [{"content": "x", "priority": "high", "status": "pending"}]}}),
            ))
        };
        assert!(plan("p").is_ok());
        assert!(plan("").is_err());
        let idle =
            json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"});
        assert_eq!(update(&params(idle)), Ok("state_update".into()));
        assert!(defined("_paused", STOP_REASONS));
        assert!(!defined("aborted", STOP_REASONS));
    }

    /// What the real adapters answer ACP v2 with no sign-in (`tests/fixtures/acp/real/`,
    /// README there): both `initialize` answers read as v2's; Claude Code's adapter opens a
    /// session, takes the prompt and ends its turn idle `error` with the -32000 of a sign-in.
    #[test]
    fn the_real_adapters_v2_answers_read_as_v2() {
        for (capture, methods) in [
            (
                include_str!(
                    "../../../../tests/fixtures/acp/real/claude-agent-acp-0.101.0-v2-signed-out.jsonl"
                ),
                vec!["claude-ai-login", "console-login"],
            ),
            (
                include_str!(
                    "../../../../tests/fixtures/acp/real/codex-acp-2.6.0-v2-signed-out.jsonl"
                ),
                vec!["api-key", "chat-gpt", "chat-gpt-device-code"],
            ),
        ] {
            let lines: Vec<Value> = capture
                .lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect();
            let init = &lines[0]["result"];
            assert_eq!(init["protocolVersion"], 2);
            assert!(initialize(init).is_ok(), "{:?}", initialize(init));
            assert!(offers_sessions(init));
            assert_eq!(auth_methods(init), methods);
            for line in lines.iter().filter(|l| l["method"] == "session/update") {
                assert!(update(&line["params"]).is_ok(), "{line}");
            }
        }
        let claude = include_str!(
            "../../../../tests/fixtures/acp/real/claude-agent-acp-0.101.0-v2-signed-out.jsonl"
        );
        let idle = claude
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
            .find(|l| l.pointer("/params/update/state") == Some(&json!("idle")))
            .expect("the turn's idle");
        assert_eq!(idle["params"]["update"]["stopReason"], "error");
        assert_eq!(idle["params"]["update"]["error"]["code"], -32000);
    }

    #[test]
    fn p13_v2_a_permission_has_a_title() {
        let asked = |title: &str| {
            permission(&json!({
                "sessionId": "s", "title": title,
                "subject": {"type": "tool_call", "toolCall": {"toolCallId": "t"}},
                "options": [{"optionId": "r", "name": "No", "kind": "reject_once"}],
            }))
        };
        assert_eq!(asked("Run cargo test?"), Ok("Run cargo test?".into()));
        assert!(asked("").is_err());
        // v1's shape, a toolCall and no title, is not v2's.
        assert!(
            permission(&json!({"sessionId": "s", "toolCall": {"toolCallId": "t"}, "options": [{"optionId": "r", "name": "No", "kind": "reject_once"}]}))
                .is_err()
        );
    }
}
