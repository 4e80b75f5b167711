//! Shapes judged by the schema of the official `agent-client-protocol` crate (its v1 types):
//! a params or result object that does not deserialize into its type is the wrong shape. The
//! crate reads some fields leniently (an unknown tool kind reads as `other`), so the enums ACP's
//! schema lists are also checked as written.

use std::path::Path;

use agent_client_protocol::v1::schema::{
    CreateElicitationRequest, InitializeResponse, ListSessionsResponse, NewSessionResponse,
    PromptResponse, RequestPermissionRequest, SessionNotification,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::driver::quote;

/// ACP's `ToolKind`.
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
/// ACP's `ToolCallStatus`.
const TOOL_STATUSES: &[&str] = &["pending", "in_progress", "completed", "failed"];
/// ACP's `PlanEntryPriority` and `PlanEntryStatus`.
const PLAN_PRIORITIES: &[&str] = &["high", "medium", "low"];
const PLAN_STATUSES: &[&str] = &["pending", "in_progress", "completed"];
/// ACP's `PermissionOptionKind`.
const OPTION_KINDS: &[&str] = &["allow_once", "allow_always", "reject_once", "reject_always"];
/// The `session/update` kinds of ACP v1 whose shape the schema fixes.
const UPDATE_KINDS: &[&str] = &[
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "available_commands_update",
    "current_mode_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
];

fn reads_as<T: DeserializeOwned>(value: &Value, name: &str) -> Result<T, String> {
    serde_json::from_value(value.clone()).map_err(|error| {
        format!(
            "{} does not read as ACP's {name}: {}",
            quote(&value.to_string()),
            quote(&error.to_string())
        )
    })
}

/// The session a `session/update` notification names, when the message is one.
pub(crate) fn update_of(message: &Value) -> Option<&str> {
    if message.get("method")? != "session/update" {
        return None;
    }
    message.pointer("/params/sessionId")?.as_str()
}

/// The updates of one kind (`sessionUpdate`) that `messages` carry for `session`, in order.
pub(crate) fn updates_of<'a>(
    messages: impl IntoIterator<Item = &'a Value>,
    session: &'a str,
    kind: &'a str,
) -> impl Iterator<Item = &'a Value> {
    messages
        .into_iter()
        .filter(move |message| update_of(message) == Some(session))
        .filter_map(|message| message.pointer("/params/update"))
        .filter(move |update| update.get("sessionUpdate").and_then(Value::as_str) == Some(kind))
}

/// P3: the answer to `initialize`.
pub(crate) fn initialize(reply: &Value) -> Result<String, String> {
    reads_as::<InitializeResponse>(reply, "InitializeResponse")?;
    let capabilities = reply.get("agentCapabilities");
    if let Some(capabilities) = capabilities
        && !capabilities.is_object()
    {
        return Err(format!(
            "agentCapabilities is not an object: {}",
            quote(&capabilities.to_string())
        ));
    }
    if let Some(load) = capabilities.and_then(|c| c.get("loadSession"))
        && !load.is_boolean()
    {
        return Err(format!(
            "agentCapabilities.loadSession is not a boolean: {load}"
        ));
    }
    Ok("its capabilities read as ACP's InitializeResponse".into())
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

/// P5: one page of `session/list` reads as ACP's answer.
pub(crate) fn listed_page(reply: &Value) -> Result<(), String> {
    reads_as::<ListSessionsResponse>(reply, "ListSessionsResponse").map(|_| ())
}

/// P5: `session/list` for `workspace` (its pages together) lists `prompted`, and only
/// sessions of that cwd.
pub(crate) fn listed(reply: &Value, workspace: &Path, prompted: &str) -> Result<String, String> {
    let parsed: ListSessionsResponse = reads_as(reply, "ListSessionsResponse")?;
    if let Some(other) = parsed.sessions.iter().find(|s| s.cwd != workspace) {
        return Err(format!(
            "session/list for the cwd {} lists the session {} of the cwd {}",
            workspace.display(),
            quote(&other.session_id.to_string()),
            quote(&other.cwd.display().to_string())
        ));
    }
    if !parsed
        .sessions
        .iter()
        .any(|s| s.session_id.to_string() == prompted)
    {
        return Err(format!(
            "session/list for the cwd {} lists {} sessions, not the session {} prompted there",
            workspace.display(),
            parsed.sessions.len(),
            quote(prompted)
        ));
    }
    Ok(format!(
        "session/list lists the prompted session with its cwd ({} listed)",
        parsed.sessions.len()
    ))
}

/// The value ids of a select option's `options`: a flat list, or groups of them.
pub(crate) fn select_values(options: &Value) -> Vec<String> {
    let mut values = Vec::new();
    for option in options.as_array().into_iter().flatten() {
        if let Some(value) = option.get("value").and_then(Value::as_str) {
            values.push(value.to_string());
        }
        if let Some(group) = option.get("options") {
            values.extend(select_values(group));
        }
    }
    values
}

/// P12: one `session/update`'s params; `Ok` with its kind.
pub(crate) fn update(params: &Value) -> Result<String, String> {
    let update = params.get("update").cloned().unwrap_or(Value::Null);
    let kind = update
        .get("sessionUpdate")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if !UPDATE_KINDS.contains(&kind.as_str()) {
        return Ok(kind);
    }
    reads_as::<SessionNotification>(params, "SessionNotification")?;
    let enum_field = |field: &str, allowed: &[&str]| -> Result<(), String> {
        match update.get(field) {
            None | Some(Value::Null) => Ok(()),
            Some(Value::String(value)) if allowed.contains(&value.as_str()) => Ok(()),
            Some(other) => Err(format!(
                "a {kind} update with {field} {}, which is none of ACP's {}",
                quote(&other.to_string()),
                allowed.join(", ")
            )),
        }
    };
    match kind.as_str() {
        "tool_call" | "tool_call_update" => {
            enum_field("kind", TOOL_KINDS)?;
            enum_field("status", TOOL_STATUSES)?;
            if update
                .get("toolCallId")
                .and_then(Value::as_str)
                .is_none_or(|id| id.is_empty())
            {
                return Err(format!("a {kind} update with no toolCallId"));
            }
        }
        "plan" => {
            for entry in update
                .get("entries")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                for (field, allowed) in [("priority", PLAN_PRIORITIES), ("status", PLAN_STATUSES)] {
                    match entry.get(field).and_then(Value::as_str) {
                        Some(value) if allowed.contains(&value) => {}
                        _ => {
                            return Err(format!(
                                "a plan entry with {field} {}, which is none of ACP's {}",
                                quote(&entry.get(field).map(Value::to_string).unwrap_or_default()),
                                allowed.join(", ")
                            ));
                        }
                    }
                }
            }
        }
        "usage_update" => {
            let number = |field: &str| update.get(field).and_then(Value::as_u64);
            if let (Some(used), Some(size)) = (number("used"), number("size"))
                && used > size
            {
                return Err(format!(
                    "a usage_update with used {used} over size {size}: more of the context is used than there is"
                ));
            }
        }
        _ => {}
    }
    Ok(kind)
}

/// P13: a `session/request_permission`'s params name a tool call and offer options.
pub(crate) fn permission(params: &Value) -> Result<String, String> {
    let parsed: RequestPermissionRequest = reads_as(params, "RequestPermissionRequest")?;
    let call = parsed.tool_call.tool_call_id.to_string();
    if call.trim().is_empty() {
        return Err("a permission request whose toolCall has an empty toolCallId: the client cannot tell which call it asks about".into());
    }
    if parsed.options.is_empty() {
        return Err(format!(
            "a permission request for {} offers no option",
            quote(&call)
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
        if !OPTION_KINDS.contains(&kind) {
            return Err(format!(
                "a permission option of kind {}, which is none of ACP's {}",
                quote(kind),
                OPTION_KINDS.join(", ")
            ));
        }
    }
    Ok(call)
}

/// P13: an `elicitation/create`'s params.
pub(crate) fn elicitation(params: &Value) -> Result<(), String> {
    reads_as::<CreateElicitationRequest>(params, "CreateElicitationRequest").map(|_| ())
}

/// P12: the answer to `session/prompt`; `Ok` with its stopReason.
pub(crate) fn prompt_answer(reply: &Value) -> Result<String, String> {
    reads_as::<PromptResponse>(reply, "PromptResponse")?;
    Ok(reply
        .get("stopReason")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn update_params(update: Value) -> Value {
        json!({"sessionId": "s", "update": update})
    }

    #[test]
    fn p12_kinds_statuses_plans_and_usage_are_judged() {
        let call = |kind: &str, status: &str| {
            update(&update_params(
                json!({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t", "kind": kind, "status": status}),
            ))
        };
        assert_eq!(call("execute", "pending"), Ok("tool_call".into()));
        assert!(call("shell", "pending").is_err());
        assert!(call("execute", "running").is_err());
        let plan = |priority: &str| {
            update(&update_params(
                json!({"sessionUpdate": "plan", "entries": [{"content": "x", "priority": priority, "status": "pending"}]}),
            ))
        };
        assert!(plan("high").is_ok());
        assert!(plan("urgent").is_err());
        let usage = |used: u64| {
            update(&update_params(
                json!({"sessionUpdate": "usage_update", "used": used, "size": 100}),
            ))
        };
        assert!(usage(100).is_ok());
        assert!(usage(101).is_err());
    }

    #[test]
    fn p13_a_permission_names_its_call() {
        let asked = |id: &str| {
            permission(
                &json!({"sessionId": "s", "toolCall": {"toolCallId": id}, "options": [{"optionId": "r", "name": "No", "kind": "reject_once"}]}),
            )
        };
        assert_eq!(asked("call-1"), Ok("call-1".into()));
        assert!(asked("").is_err());
    }

    #[test]
    fn the_declined_answer_reads_as_acps() {
        let answer: agent_client_protocol::v1::schema::CreateElicitationResponse =
            serde_json::from_value(json!({"action": "decline"})).expect("reads");
        assert_eq!(
            answer.action,
            agent_client_protocol::v1::schema::ElicitationAction::Decline
        );
    }
}
