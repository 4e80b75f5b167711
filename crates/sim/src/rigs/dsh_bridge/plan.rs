//! The shape of one turn of a demo session, as the events it will emit one by one at a human
//! pace: boundaries, the request header, tool calls and results (one may fail), a permission
//! wait now and then, the assistant's message with model and usage, and the turn's end.

use rand::seq::IndexedRandom;
use rand::{Rng, RngCore};
use serde_json::json;

use super::demo::Topic;
use crate::dsh_wire::BRIDGE_STATUS;
use crate::dsh_wire::{
    ErrorInfo, EventBody, ExecutionEvent, ExecutionPhase, LogEvent, MessageEvent, ModelConfig,
    PermissionEvent, PermissionPhase, Role, StatusEvent, StatusPhase, Usage,
};

/// One event to come, `gap_ms` virtual milliseconds after the one before.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub(crate) gap_ms: i64,
    pub(crate) event_type: &'static str,
    pub(crate) body: EventBody,
}

/// Gap between two steps of a busy session, virtual ms.
const STEP_GAP_MS: (i64, i64) = (1_000, 4_000);
/// Gap of the quick bookkeeping events (header, streaming status).
const QUICK_GAP_MS: i64 = 200;

/// What a turn is about and how it goes.
pub(crate) struct TurnShape<'a> {
    pub(crate) turn: u64,
    pub(crate) topic: &'a Topic,
    /// The reply's words; the topic's when none.
    pub(crate) reply: Option<String>,
    pub(crate) observed: &'a ModelConfig,
    /// Ask the person for an approval or an answer midway (never answered by the bridge).
    pub(crate) permission: Option<PermissionPhase>,
    /// One tool call fails (`failed: true` + `error.code`).
    pub(crate) tool_fails: bool,
    /// The turn ends in `turn-failed` instead of `turn-completed`.
    pub(crate) turn_fails: bool,
}

fn gap(rng: &mut dyn RngCore) -> i64 {
    rng.random_range(STEP_GAP_MS.0..=STEP_GAP_MS.1)
}

fn execution(phase: ExecutionPhase, turn: u64) -> ExecutionEvent {
    ExecutionEvent {
        turn: Some(turn),
        ..ExecutionEvent::new(phase)
    }
}

fn step(gap_ms: i64, event_type: &'static str, body: EventBody) -> Step {
    Step {
        gap_ms,
        event_type,
        body,
    }
}

/// The events of one turn, in order.
pub(crate) fn plan_turn(rng: &mut dyn RngCore, shape: &TurnShape<'_>) -> Vec<Step> {
    let turn = shape.turn;
    let topic = shape.topic;
    let mut steps = vec![
        step(
            400,
            "turn/start",
            EventBody::Execution(execution(ExecutionPhase::TurnStart, turn)),
        ),
        step(
            QUICK_GAP_MS,
            "request/header",
            // As the real bridge projects a request header: no turn, only the config.
            EventBody::Execution(ExecutionEvent {
                observed_config: Some(shape.observed.clone()),
                ..ExecutionEvent::new(ExecutionPhase::RequestHeader)
            }),
        ),
        // Not a host event: the bridge's own status line when the host starts streaming (the
        // host plays it with `taskId: null` and the last seq again, see `FakeDesktop::emit_at`).
        step(
            QUICK_GAP_MS,
            BRIDGE_STATUS,
            EventBody::Status(StatusEvent {
                phase: StatusPhase::AssistantStreaming,
                error: None,
                title: None,
            }),
        ),
    ];
    let mut step_number = 0;
    let mut tool_step =
        |rng: &mut dyn RngCore, steps: &mut Vec<Step>, failing: bool, wait: bool| {
            step_number += 1;
            let call_id = format!("call-{turn}-{step_number}");
            let (tool, arguments, result, error) = if failing {
                let (tool, arguments, code, message) = *topic
                    .failures
                    .choose(rng)
                    .unwrap_or(&("shell", "{}", "EXIT_1", "failed"));
                let error = ErrorInfo {
                    name: Some("ToolError".into()),
                    code: Some(code.into()),
                    message: Some(message.into()),
                };
                (tool, arguments, None, Some(error))
            } else {
                let (tool, arguments, output) =
                    *topic.tools.choose(rng).unwrap_or(&("shell", "{}", "ok"));
                (tool, arguments, Some(output), None)
            };
            steps.push(step(
                gap(rng),
                "step/start",
                EventBody::Execution(ExecutionEvent {
                    step: Some(step_number),
                    ..execution(ExecutionPhase::StepStart, turn)
                }),
            ));
            steps.push(step(
                QUICK_GAP_MS,
                "tool/call",
                EventBody::Execution(ExecutionEvent {
                    step: Some(step_number),
                    tool: Some(tool.into()),
                    call_id: Some(call_id.clone()),
                    arguments_preview: Some(arguments.into()),
                    ..execution(ExecutionPhase::ToolCall, turn)
                }),
            ));
            if wait {
                let (approval_tool, reason) = *topic
                    .approvals
                    .choose(rng)
                    .unwrap_or(&("shell", "wants to run a command"));
                steps.push(step(
                    gap(rng),
                    "approval/asked",
                    EventBody::Permission(PermissionEvent {
                        phase: PermissionPhase::ApprovalRequested,
                        question: None,
                        tool: Some(approval_tool.into()),
                        call_id: Some(call_id.clone()),
                        reason: Some(reason.into()),
                    }),
                ));
            }
            steps.push(step(
                gap(rng),
                "tool/result",
                // The real projection of a tool result names no tool, only the callId.
                EventBody::Execution(ExecutionEvent {
                    step: Some(step_number),
                    call_id: Some(call_id),
                    failed: Some(error.is_some()),
                    error,
                    output_preview: result.map(str::to_string),
                    ..execution(ExecutionPhase::ToolResult, turn)
                }),
            ));
            steps.push(step(
                QUICK_GAP_MS,
                "step/end",
                EventBody::Execution(ExecutionEvent {
                    step: Some(step_number),
                    ..execution(ExecutionPhase::StepEnd, turn)
                }),
            ));
        };
    let approval = shape.permission == Some(PermissionPhase::ApprovalRequested);
    tool_step(rng, &mut steps, false, approval);
    if shape.tool_fails {
        tool_step(rng, &mut steps, true, false);
    }
    if shape.permission == Some(PermissionPhase::InputRequested) {
        let question = topic.questions.choose(rng).copied().unwrap_or("Go on?");
        steps.push(step(
            gap(rng),
            "question/asked",
            EventBody::Permission(PermissionEvent {
                phase: PermissionPhase::InputRequested,
                question: Some(question.into()),
                tool: None,
                call_id: Some(format!("ask-{turn}")),
                reason: None,
            }),
        ));
    }
    if rng.random_bool(0.3) {
        steps.push(step(
            QUICK_GAP_MS,
            "session/checkpoint",
            EventBody::Log(LogEvent {
                data: json!({"checkpoint": turn, "files": rng.random_range(1..6)}),
                summary: Some(format!("checkpoint after turn {turn}")),
            }),
        ));
    }
    let text = shape.reply.clone().unwrap_or_else(|| {
        topic
            .replies
            .choose(rng)
            .copied()
            .unwrap_or("Done.")
            .to_string()
    });
    let input_tokens = rng.random_range(800..4_000);
    let output_tokens = rng.random_range(80..600);
    steps.push(step(
        gap(rng),
        "assistant/message",
        EventBody::Message(MessageEvent {
            role: Role::Assistant,
            text,
            source: None,
            request_id: None,
            // As the real bridge: `model` is the provider, `modelId` the model.
            model: shape.observed.provider.clone(),
            model_id: shape.observed.model.clone(),
            usage: Some(Usage {
                input_tokens: Some(input_tokens),
                output_tokens: Some(output_tokens),
                cached_input_tokens: None,
                reasoning_tokens: None,
                total_tokens: Some(input_tokens + output_tokens),
            }),
            interrupted: Some(false),
        }),
    ));
    let end = if shape.turn_fails {
        ExecutionEvent {
            reason: Some(ExecutionPhase::TurnFailed.end_reason().into()),
            error: Some(ErrorInfo {
                name: Some("model".into()),
                code: Some("rate_limited".into()),
                message: Some("the provider answered 429; the turn stopped".into()),
            }),
            ..execution(ExecutionPhase::TurnFailed, turn)
        }
    } else {
        ExecutionEvent {
            reason: Some(ExecutionPhase::TurnCompleted.end_reason().into()),
            ..execution(ExecutionPhase::TurnCompleted, turn)
        }
    };
    steps.push(step(QUICK_GAP_MS, "turn/end", EventBody::Execution(end)));
    steps
}
