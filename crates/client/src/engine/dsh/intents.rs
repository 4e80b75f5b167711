//! A person's action on a bridge, sent as the seed says (seed §1 table, §2, §4.5; SPEC D2, D5):
//! the body built once with its `requestId` (a resend sends the same bytes), refusals checked
//! here before anything leaves (presets and models only from `/capabilities`, a non-blank
//! message, an absolute path, the 256 KiB body limit), and each reply read into the engine's
//! [`IntentState`].
//!
//! What is resent without the person, and only this: `session/writer-held`,
//! `session/agent-busy` and `bridge/not-ready` after an exponential back-off (the request was
//! refused, so nothing was applied), and `504 bridge/timeout` with the same `requestId` (the
//! bridge makes that safe). A lost reply becomes `unknown`, which only the person may resend
//! (`ToEngine::Retry`), with the same id and bytes; the bridge answers `replayed: true`, shown
//! as [`IntentState::Replayed`].

use std::time::Duration;

use serde::Serialize;

use super::backoff::Backoff;
use super::http::{BridgeClient, CallError};
use super::session::BridgeShared;
use crate::dsh_wire::{
    self as wire, AppendRequest, AppendValue, CancelValue, ClientBehaviour, CloseValue,
    CreateTaskRequest, CreateTaskValue, ErrorCode, ModelConfig, TaskRef, WorkspaceCreateRequest,
    WorkspaceCreateValue,
};
use crate::engine::intent::{IntentKind, IntentState};
use crate::wire::{PostReply, ReplyCode};

/// Sends of one try when the bridge asks to back off (the first included).
pub(crate) const MAX_BACK_OFF_SENDS: u32 = 5;
/// Sends of one try when the bridge answers 504 bridge/timeout (the first included).
pub(crate) const MAX_TIMEOUT_SENDS: u32 = 3;

/// The route and body bytes of a DSH intent, or why it may not be sent. None for a Collie one.
pub(crate) fn request(
    kind: &IntentKind,
    request_id: &str,
    shared: Option<&BridgeShared>,
) -> Option<Result<(&'static str, Vec<u8>), String>> {
    let request_id = request_id.to_string();
    let built: Result<(&'static str, Vec<u8>), String> = match kind {
        IntentKind::DshAppend {
            task_id,
            message_kind,
            message,
            mode,
            model,
        } => (|| {
            if message.trim().is_empty() {
                return Err("the message is empty; the bridge takes only words".to_string());
            }
            refuse_stopped(shared, task_id)?;
            let (provider, model, reasoning_effort) = split_model(model.as_deref());
            check_model(
                shared,
                provider.as_deref(),
                model.as_deref(),
                reasoning_effort.as_deref(),
            )?;
            encode(
                wire::routes::TASKS_APPEND,
                &AppendRequest {
                    request_id,
                    task_id: task_id.clone(),
                    kind: message_kind.clone(),
                    message: message.clone(),
                    mode: Some(mode.clone()),
                    provider,
                    model,
                    reasoning_effort,
                },
            )
        })(),
        IntentKind::DshCancel { task_id } => refuse_stopped(shared, task_id).and_then(|()| {
            encode(
                wire::routes::TASKS_CANCEL,
                &TaskRef {
                    task_id: task_id.clone(),
                    request_id: Some(request_id),
                },
            )
        }),
        IntentKind::DshClose { task_id } => refuse_stopped(shared, task_id).and_then(|()| {
            encode(
                wire::routes::TASKS_CLOSE,
                &TaskRef {
                    task_id: task_id.clone(),
                    request_id: Some(request_id),
                },
            )
        }),
        IntentKind::DshCreate {
            workspace_id,
            title,
            objective,
            preset,
            model,
            adopt_session,
        } => (|| {
            if let Some(objective) = objective
                && objective.chars().count() > wire::limits::MAX_TASK_TEXT_CHARS
            {
                return Err(format!(
                    "the objective is {} characters; the bridge takes at most {}",
                    objective.chars().count(),
                    wire::limits::MAX_TASK_TEXT_CHARS
                ));
            }
            if let Some(preset) = preset {
                check_preset(shared, preset)?;
            }
            let (provider, model, reasoning_effort) = split_model(model.as_deref());
            check_model(
                shared,
                provider.as_deref(),
                model.as_deref(),
                reasoning_effort.as_deref(),
            )?;
            encode(
                wire::routes::TASKS_CREATE,
                &CreateTaskRequest {
                    request_id,
                    workspace_id: workspace_id.clone(),
                    session_id: adopt_session.clone(),
                    title: title.clone(),
                    objective: objective.clone(),
                    agent_preset: preset.clone(),
                    provider,
                    model,
                    reasoning_effort,
                    ..CreateTaskRequest::default()
                },
            )
        })(),
        IntentKind::DshRegisterWorkspace { path, title } => (|| {
            if !std::path::Path::new(path).is_absolute() {
                return Err(format!(
                    "\"{path}\" is not an absolute path; the bridge registers a directory only by its full path"
                ));
            }
            if let Some(shared) = shared
                && let Some(capabilities) = shared.capabilities()
                && !capabilities.capabilities.workspaces.create
            {
                return Err(
                    "this token may not register workspaces (the bridge's capabilities say so); a token for all workspaces with allowWorkspaceCreate may"
                        .to_string(),
                );
            }
            encode(
                wire::routes::WORKSPACES_CREATE,
                &WorkspaceCreateRequest {
                    request_id,
                    path: path.clone(),
                    title: title.clone(),
                },
            )
        })(),
        _ => return None,
    };
    Some(built)
}

fn encode(route: &'static str, body: &impl Serialize) -> Result<(&'static str, Vec<u8>), String> {
    let bytes =
        serde_json::to_vec(body).map_err(|e| format!("could not encode the request: {e}"))?;
    if bytes.len() > wire::limits::MAX_REQUEST_BYTES {
        return Err(format!(
            "the request is {} bytes; the bridge takes at most 256 KiB: split the message",
            bytes.len()
        ));
    }
    Ok((route, bytes))
}

fn split_model(model: Option<&ModelConfig>) -> (Option<String>, Option<String>, Option<String>) {
    match model {
        Some(m) => (
            m.provider.clone(),
            m.model.clone(),
            m.reasoning_effort.clone(),
        ),
        None => (None, None, None),
    }
}

fn refuse_stopped(shared: Option<&BridgeShared>, task_id: &str) -> Result<(), String> {
    match shared.and_then(|s| s.why_stopped(task_id)) {
        Some(why) => Err(format!(
            "the phone no longer addresses task {task_id}: {why}"
        )),
        None => Ok(()),
    }
}

/// Only presets `/capabilities` lists may be asked for (seed §2: never guess one).
fn check_preset(shared: Option<&BridgeShared>, preset: &str) -> Result<(), String> {
    let Some(capabilities) = shared.and_then(BridgeShared::capabilities) else {
        return Err("the bridge's capabilities are not read yet, so no preset can be chosen; wait until the bridge is ready".into());
    };
    if capabilities.offers_preset(preset) {
        return Ok(());
    }
    let listed: Vec<&str> = capabilities
        .agent_presets
        .iter()
        .map(|p| p.id.as_str())
        .collect();
    Err(format!(
        "the bridge offers no preset \"{preset}\"; it lists {}",
        if listed.is_empty() {
            "none".to_string()
        } else {
            listed.join(", ")
        }
    ))
}

/// A model and effort must come from the catalog (seed §2 modelCatalog); provider and model
/// go together (seed POST /tasks/create).
fn check_model(
    shared: Option<&BridgeShared>,
    provider: Option<&str>,
    model: Option<&str>,
    effort: Option<&str>,
) -> Result<(), String> {
    let (provider, model) = match (provider, model) {
        (None, None) if effort.is_none() => return Ok(()),
        (Some(p), Some(m)) => (p, m),
        _ => {
            return Err(
                "give the provider and the model together (and an effort only with them)".into(),
            );
        }
    };
    let Some(capabilities) = shared.and_then(BridgeShared::capabilities) else {
        return Err(
            "the bridge's model catalog is not read yet; wait until the bridge is ready".into(),
        );
    };
    let Some(entry) = capabilities.model_catalog.model(provider, model) else {
        return Err(format!(
            "the bridge's catalog lists no model {provider}/{model}"
        ));
    };
    if let Some(effort) = effort {
        let efforts = entry
            .reasoning
            .as_ref()
            .map(crate::dsh_wire::Reasoning::ids)
            .unwrap_or_default();
        if !efforts.iter().any(|e| e == effort) {
            return Err(format!(
                "{provider}/{model} declares no reasoning effort \"{effort}\"; it declares {}",
                if efforts.is_empty() {
                    "none".to_string()
                } else {
                    efforts.join(", ")
                }
            ));
        }
    }
    Ok(())
}

/// What one send brought back, before it becomes an intent state.
#[derive(Debug, Clone, PartialEq)]
struct Sent {
    replayed: bool,
    /// The pane of a created task (its task id).
    pane_id: Option<String>,
}

async fn post_once(
    client: &BridgeClient,
    route: &'static str,
    body: Vec<u8>,
) -> Result<Sent, CallError> {
    Ok(match route {
        wire::routes::TASKS_APPEND => {
            let value: AppendValue = client.post(route, body).await?;
            Sent {
                replayed: value.replayed,
                pane_id: Some(value.task_id),
            }
        }
        wire::routes::TASKS_CREATE => {
            let value: CreateTaskValue = client.post(route, body).await?;
            Sent {
                replayed: value.replayed,
                pane_id: Some(value.task.task_id),
            }
        }
        wire::routes::TASKS_CANCEL => {
            let value: CancelValue = client.post(route, body).await?;
            Sent {
                replayed: false,
                pane_id: Some(value.task_id),
            }
        }
        wire::routes::TASKS_CLOSE => {
            let value: CloseValue = client.post(route, body).await?;
            Sent {
                replayed: false,
                pane_id: Some(value.task_id),
            }
        }
        _ => {
            let value: WorkspaceCreateValue = client.post(route, body).await?;
            Sent {
                replayed: value.replayed,
                pane_id: None,
            }
        }
    })
}

/// Sends one try of an intent (`attempt` 1 is the first, 2 the person's retry), with the
/// resends the seed asks for, and reads the outcome.
pub(crate) async fn deliver(
    client: &BridgeClient,
    shared: &BridgeShared,
    kind: &IntentKind,
    request_id: &str,
    route: &'static str,
    body: Vec<u8>,
    attempt: u32,
) -> IntentState {
    let mut backoff = Backoff::for_intents();
    let mut timeouts = 0;
    let mut sends = 0;
    let result = loop {
        sends += 1;
        let result = post_once(client, route, body.clone()).await;
        let behaviour = match &result {
            Err(CallError::Refused { error, .. }) => Some(error.code.behaviour()),
            _ => None,
        };
        match behaviour {
            Some(ClientBehaviour::BackOffAndRetry) if sends < MAX_BACK_OFF_SENDS => {
                let delay = backoff.next_delay();
                tracing::info!(
                    request_id,
                    sends,
                    ?delay,
                    "the bridge asked to back off; sending the same request again after the pause"
                );
                tokio::time::sleep(delay).await;
            }
            Some(ClientBehaviour::ResendSameRequestId) if timeouts + 1 < MAX_TIMEOUT_SENDS => {
                timeouts += 1;
                tracing::info!(
                    request_id,
                    timeouts,
                    "504 bridge/timeout: resending with the same requestId"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            _ => break result,
        }
    };
    let state = state_of(kind, request_id, result, shared);
    if attempt >= 2 && matches!(state, IntentState::Unknown { .. }) {
        // As SPEC Q5 for Collie: a retry that is itself lost is not sent a third time.
        return IntentState::MaybeApplied;
    }
    state
}

fn state_of(
    kind: &IntentKind,
    request_id: &str,
    result: Result<Sent, CallError>,
    shared: &BridgeShared,
) -> IntentState {
    match result {
        Ok(sent) => {
            let mut reply = PostReply::ok(request_id);
            reply.code = ReplyCode::Ok;
            reply.replayed = sent.replayed;
            if matches!(kind, IntentKind::DshCreate { .. }) {
                reply.pane_id = sent.pane_id;
            }
            if sent.replayed {
                IntentState::Replayed { reply }
            } else {
                IntentState::Done { reply }
            }
        }
        Err(CallError::NotSent(why)) => IntentState::NotSent { why },
        Err(CallError::Lost(why)) => IntentState::Unknown { why },
        Err(CallError::Unreadable { status, why })
            if status >= 500 || (200..300).contains(&status) =>
        {
            IntentState::Unknown {
                why: format!(
                    "the bridge answered {status} with a reply that could not be read: {why}"
                ),
            }
        }
        Err(CallError::Unreadable { status, why }) => IntentState::Refused {
            status,
            code: "unreadable".into(),
            message: Some(why),
        },
        Err(CallError::Refused { status, error }) => {
            let behaviour = error.code.behaviour();
            match behaviour {
                // Resent as often as the seed allows and still timing out: only the person
                // may send it again, with the same id.
                ClientBehaviour::ResendSameRequestId => {
                    return IntentState::Unknown {
                        why: format!(
                            "the bridge timed out {MAX_TIMEOUT_SENDS} times ({})",
                            error.message
                        ),
                    };
                }
                ClientBehaviour::LogAndReport if status >= 500 => {
                    tracing::error!(request_id, code = %error.code, "the bridge failed inside: {}", error.message);
                    return IntentState::Unknown {
                        why: format!(
                            "the bridge failed inside ({}); {}",
                            error.code,
                            behaviour.advice()
                        ),
                    };
                }
                ClientBehaviour::ShowToPersonAndStop => {
                    if let Some(task_id) = task_of(kind) {
                        shared.stop(task_id, &format!("{}: {}", error.code, error.message));
                    }
                }
                _ => {}
            }
            let mut message = if error.message.is_empty() {
                String::new()
            } else {
                format!("{}. ", error.message.trim_end_matches('.'))
            };
            match &error.code {
                ErrorCode::ModelUnavailable => {
                    let models = error.available_models();
                    if !models.is_empty() {
                        message.push_str(&format!("Available models: {}. ", models.join(", ")));
                    }
                }
                ErrorCode::ReasoningEffortUnavailable => {
                    let efforts = error.supported_efforts();
                    if !efforts.is_empty() {
                        message.push_str(&format!("Supported efforts: {}. ", efforts.join(", ")));
                    }
                }
                _ => {}
            }
            message.push_str(behaviour.advice());
            IntentState::Refused {
                status,
                code: error.code.as_str().to_string(),
                message: Some(message),
            }
        }
    }
}

/// The task an intent addresses, if any.
pub(crate) fn task_of(kind: &IntentKind) -> Option<&str> {
    match kind {
        IntentKind::DshAppend { task_id, .. }
        | IntentKind::DshCancel { task_id }
        | IntentKind::DshClose { task_id } => Some(task_id),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsh_wire::{AppendKind, AppendMode, BridgeError};

    fn append(message: &str) -> IntentKind {
        IntentKind::DshAppend {
            task_id: "t1".into(),
            message_kind: AppendKind::Instruction,
            message: message.into(),
            mode: AppendMode::Queue,
            model: None,
        }
    }

    #[test]
    fn d5_append_body_carries_the_request_id_and_kind() {
        let (route, body) = request(&append("go"), "r-1", None)
            .expect("dsh")
            .expect("valid");
        assert_eq!(route, "/tasks/append");
        let json: serde_json::Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(json["requestId"], "r-1");
        assert_eq!(json["kind"], "instruction");
        assert_eq!(json["mode"], "queue");
    }

    #[test]
    fn d3_blank_message_relative_path_and_unlisted_preset_are_refused_before_sending() {
        assert!(request(&append("  "), "r", None).expect("dsh").is_err());
        let register = IntentKind::DshRegisterWorkspace {
            path: "projects/x".into(),
            title: None,
        };
        assert!(request(&register, "r", None).expect("dsh").is_err());
        let shared = BridgeShared::default();
        shared.set_capabilities(std::sync::Arc::new(
            serde_json::from_value(serde_json::json!({"agentPresets": ["standard"]}))
                .expect("capabilities"),
        ));
        let create = |preset: &str| IntentKind::DshCreate {
            workspace_id: "w".into(),
            title: None,
            objective: None,
            preset: Some(preset.into()),
            model: None,
            adopt_session: None,
        };
        assert!(
            request(&create("standard"), "r", Some(&shared))
                .expect("dsh")
                .is_ok()
        );
        let refused = request(&create("turbo"), "r", Some(&shared)).expect("dsh");
        assert!(refused.expect_err("refused").contains("standard"));
    }

    #[test]
    fn d2_mismatch_stops_the_task_and_model_refusal_lists_the_catalog() {
        let shared = BridgeShared::default();
        let refused = Err(CallError::Refused {
            status: 409,
            error: BridgeError::new(ErrorCode::SessionWorkspaceMismatch, "moved"),
        });
        let state = state_of(&append("x"), "r", refused, &shared);
        assert!(matches!(state, IntentState::Refused { status: 409, .. }));
        assert!(shared.why_stopped("t1").is_some());
        assert!(
            request(&append("again"), "r2", Some(&shared))
                .expect("dsh")
                .is_err()
        );
        let refused = Err(CallError::Refused {
            status: 409,
            error: BridgeError::new(ErrorCode::ModelUnavailable, "no route")
                .with_details(serde_json::json!({"availableModels": ["p/a", "p/b"]})),
        });
        let IntentState::Refused { message, .. } = state_of(&append("x"), "r", refused, &shared)
        else {
            panic!("refused")
        };
        assert!(message.expect("words").contains("p/a, p/b"));
    }

    #[test]
    fn d5_replayed_is_its_own_state_and_lost_is_unknown() {
        let shared = BridgeShared::default();
        let replayed = Ok(Sent {
            replayed: true,
            pane_id: Some("t1".into()),
        });
        assert!(matches!(
            state_of(&append("x"), "r", replayed, &shared),
            IntentState::Replayed { .. }
        ));
        let lost = Err(CallError::Lost("connection reset".into()));
        assert!(matches!(
            state_of(&append("x"), "r", lost, &shared),
            IntentState::Unknown { .. }
        ));
    }
}
