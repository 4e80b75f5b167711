//! Intents: one person's action, sent at most once (SPEC Q1–Q5, A3–A8, A16). Pure: building the
//! request and reading its reply; the journal and the sending live elsewhere.

use serde::{Deserialize, Serialize};

use crate::dsh_wire::{AppendKind, AppendMode, ModelConfig};
use crate::transport::{Reply, RouteClass, TransportError};
use crate::wire::{
    self, AbortRequest, ActionRequest, Answer, AnswerRequest, CloseRequest, DecidedBy, ErrorBody,
    ErrorCode, Outcome, PostReply, RenameRequest, ReopenRequest, ReplyCode, SendRequest,
    SettingRequest, StarterRequest, TargetKind, limits,
};

/// What the person asked for. Each becomes one POST with one request id (SPEC Q1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum IntentKind {
    Answer {
        pane: String,
        ask_id: String,
        revision: u64,
        answer: Answer,
    },
    Send {
        pane: String,
        turn_id: Option<String>,
        text: String,
    },
    Abort {
        pane: String,
        turn_id: String,
    },
    Action {
        pane: String,
        button_id: String,
    },
    /// One value of one of the pane's settings: its mode or an option (docs/WIRE.md § 4.10).
    Setting {
        pane: String,
        setting_id: String,
        value: String,
    },
    Rename {
        target: String,
        id: String,
        title: String,
    },
    Close {
        target: String,
        id: String,
    },
    Starter {
        starter_id: String,
    },
    Reopen {
        conversation_id: String,
    },
    /// DSH bridge: `POST /tasks/append` (SPEC D3, D5). `message_kind` is the bridge's `kind`
    /// (instruction, feedback, question, review, clarification, note); `mode` queue or steer;
    /// `model` switches the session's provider/model/effort (from the catalog only).
    DshAppend {
        task_id: String,
        message_kind: AppendKind,
        message: String,
        mode: AppendMode,
        #[serde(default)]
        model: Option<Box<ModelConfig>>,
    },
    /// DSH bridge: `POST /tasks/cancel`, the running turn only (queue and waits stay).
    DshCancel {
        task_id: String,
    },
    /// DSH bridge: `POST /tasks/close`; the session stays on the desktop.
    DshClose {
        task_id: String,
    },
    /// DSH bridge: `POST /tasks/create` in a workspace, with a preset listed by /capabilities,
    /// a provider/model/effort of the catalog, or adopting an existing session of the workspace.
    DshCreate {
        workspace_id: String,
        #[serde(default)]
        title: Option<String>,
        #[serde(default)]
        objective: Option<String>,
        #[serde(default)]
        preset: Option<String>,
        #[serde(default)]
        model: Option<Box<ModelConfig>>,
        #[serde(default)]
        adopt_session: Option<String>,
    },
    /// DSH bridge: `POST /workspaces/create`, an absolute path of an existing directory.
    DshRegisterWorkspace {
        path: String,
        #[serde(default)]
        title: Option<String>,
    },
}

impl IntentKind {
    /// A short name for logs and screens.
    pub fn verb(&self) -> &'static str {
        match self {
            Self::Answer { .. } => "answer",
            Self::Send { .. } => "send",
            Self::Abort { .. } => "abort",
            Self::Action { .. } => "action",
            Self::Setting { .. } => "switch",
            Self::Rename { .. } => "rename",
            Self::Close { .. } => "close",
            Self::Starter { .. } => "starter",
            Self::Reopen { .. } => "reopen",
            Self::DshAppend { .. } => "send",
            Self::DshCancel { .. } => "abort",
            Self::DshClose { .. } => "close",
            Self::DshCreate { .. } => "create",
            Self::DshRegisterWorkspace { .. } => "register",
        }
    }

    /// True for an action on a DSH bridge, which `engine::dsh::intents` builds and sends.
    pub fn is_dsh(&self) -> bool {
        matches!(
            self,
            Self::DshAppend { .. }
                | Self::DshCancel { .. }
                | Self::DshClose { .. }
                | Self::DshCreate { .. }
                | Self::DshRegisterWorkspace { .. }
        )
    }

    /// The route and the exact body bytes; a retry sends these same bytes (SPEC Q4).
    pub(crate) fn request(
        &self,
        request_id: &str,
    ) -> Result<(String, Vec<u8>, RouteClass), String> {
        let request_id = request_id.to_string();
        let (path, body, class) = match self {
            Self::Answer {
                pane,
                ask_id,
                revision,
                answer,
            } => (
                wire::paths::pane_post(pane, wire::paths::PaneVerb::Answer),
                serde_json::to_vec(&AnswerRequest {
                    request_id,
                    ask_id: ask_id.clone(),
                    revision: *revision,
                    answer: answer.clone(),
                }),
                RouteClass::Write,
            ),
            Self::Send {
                pane,
                turn_id,
                text,
            } => {
                if text.len() > limits::MAX_SEND_TEXT {
                    return Err(format!(
                        "the text is {} bytes; the limit is 32 KiB",
                        text.len()
                    ));
                }
                (
                    wire::paths::pane_post(pane, wire::paths::PaneVerb::Send),
                    serde_json::to_vec(&SendRequest {
                        request_id,
                        turn_id: turn_id.clone(),
                        text: text.clone(),
                    }),
                    RouteClass::Write,
                )
            }
            Self::Abort { pane, turn_id } => (
                wire::paths::pane_post(pane, wire::paths::PaneVerb::Abort),
                serde_json::to_vec(&AbortRequest {
                    request_id,
                    turn_id: turn_id.clone(),
                }),
                RouteClass::Write,
            ),
            Self::Action { pane, button_id } => (
                wire::paths::pane_post(pane, wire::paths::PaneVerb::Action),
                serde_json::to_vec(&ActionRequest {
                    request_id,
                    button_id: button_id.clone(),
                }),
                RouteClass::Write,
            ),
            Self::Setting {
                pane,
                setting_id,
                value,
            } => (
                wire::paths::pane_post(pane, wire::paths::PaneVerb::Setting),
                serde_json::to_vec(&SettingRequest {
                    request_id,
                    setting_id: setting_id.clone(),
                    value: value.clone(),
                }),
                RouteClass::Write,
            ),
            Self::Rename { target, id, title } => (
                wire::paths::rename(),
                serde_json::to_vec(&RenameRequest {
                    request_id,
                    kind: TargetKind::from(target.as_str()),
                    id: id.clone(),
                    title: title.clone(),
                }),
                RouteClass::Write,
            ),
            Self::Close { target, id } => (
                wire::paths::close(),
                serde_json::to_vec(&CloseRequest {
                    request_id,
                    kind: TargetKind::from(target.as_str()),
                    id: id.clone(),
                }),
                RouteClass::Write,
            ),
            Self::Starter { starter_id } => (
                wire::paths::starter(starter_id),
                serde_json::to_vec(&StarterRequest { request_id }),
                RouteClass::Starter,
            ),
            Self::Reopen { conversation_id } => (
                wire::paths::reopen(),
                serde_json::to_vec(&ReopenRequest {
                    request_id,
                    conversation_id: conversation_id.clone(),
                }),
                RouteClass::Write,
            ),
            Self::DshAppend { .. }
            | Self::DshCancel { .. }
            | Self::DshClose { .. }
            | Self::DshCreate { .. }
            | Self::DshRegisterWorkspace { .. } => {
                return Err("this action goes to a DSH bridge, not to a durable agent".into());
            }
        };
        let body = body.map_err(|e| format!("could not encode the request: {e}"))?;
        if body.len() > limits::MAX_REQUEST_BODY {
            return Err("the request is larger than 64 KiB".into());
        }
        Ok((path, body, class))
    }
}

/// Who decided an ask before this intent's answer (SPEC A7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decider {
    /// Another tap, from this phone or another one.
    Phone,
    Program,
    Timeout,
}

/// Where an intent is (docs/ENGINE.md, "Intents", has the table of states).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum IntentState {
    /// The receipt is written; the request has not left yet (SPEC Q2).
    Created,
    Sending,
    Done {
        reply: PostReply,
    },
    /// The agent had already run this request id: the first reply again (SPEC Q3).
    Replayed {
        reply: PostReply,
    },
    /// SPEC A3: the ask changed; the card must be read again.
    Stale {
        revision: Option<u64>,
    },
    /// SPEC A7: someone decided first; nothing ran.
    Decided {
        by: Decider,
        outcome: Option<Outcome>,
    },
    /// SPEC A8: the agent does not know the ask (now).
    TooLate,
    /// SPEC Q3: this request id was used with another payload.
    RequestIdReused,
    /// Any other refusal, with its status and code.
    Refused {
        status: u16,
        code: String,
        message: Option<String>,
    },
    /// SPEC Q4: timeout, lost connection, cut reply or 5xx. The engine checks a send, an
    /// answer or an abort with the same request id for a while (`IntentRecord::checking`);
    /// then only the person may retry.
    Unknown {
        why: String,
    },
    /// SPEC Q5: a retry found the ask closed or the turn changed. Final: never sent again.
    MaybeApplied,
    /// The request never reached the agent (no connection, or the socket failed its privacy
    /// check): the person may send it again, and this try does not count.
    NotSent {
        why: String,
    },
}

impl IntentState {
    /// True once nothing more will happen to the intent.
    pub fn is_final(&self) -> bool {
        !matches!(
            self,
            Self::Created | Self::Sending | Self::Unknown { .. } | Self::NotSent { .. }
        )
    }

    pub fn name(&self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Sending => "sending",
            Self::Done { .. } => "done",
            Self::Replayed { .. } => "replayed",
            Self::Stale { .. } => "stale",
            Self::Decided { .. } => "decided",
            Self::TooLate => "too-late",
            Self::RequestIdReused => "request-id-reused",
            Self::Refused { .. } => "refused",
            Self::Unknown { .. } => "unknown",
            Self::MaybeApplied => "maybe-applied",
            Self::NotSent { .. } => "not-sent",
        }
    }
}

/// How many times an intent may be sent: the first try and one retry by the person (SPEC Q5).
/// The engine's own checks of an unknown outcome ([`CHECKS_AFTER`]) resend the same request id
/// while the agent still remembers it, so they are not tries of their own and do not count.
pub const MAX_ATTEMPTS: u32 = 2;

/// When the engine checks an unknown outcome by itself (SPEC Q4): seconds after the try whose
/// reply was lost (after its receipt, for one read back from the journal at start), each time
/// with the same request id and the same bytes. A check's reply settles it (the agent answers a remembered id with its first reply, `replayed: true`, and
/// runs nothing: SPEC Q3). 1, 2 and 4 s apart, then every 10 s up to [`CHECK_HORIZON_SECONDS`].
pub const CHECKS_AFTER: [u64; 8] = [1, 3, 7, 17, 27, 37, 47, 57];

/// How long after the lost reply an unknown outcome is still checked by the engine: well inside
/// the agent's memory of request ids (at least the last 500 of its epoch, SPEC Q3) for a phone
/// that sends a few a minute. Past it the outcome stays unknown and the person decides.
pub const CHECK_HORIZON_SECONDS: u64 = 60;

/// The kinds the engine checks by itself: a send, an answer, an abort. The others (starters,
/// renames, belt buttons, DSH actions, which have their own resends: SPEC D5) wait for the person.
pub(crate) fn checks_itself(kind: &IntentKind) -> bool {
    matches!(
        kind,
        IntentKind::Send { .. } | IntentKind::Answer { .. } | IntentKind::Abort { .. }
    )
}

/// The checks still ahead, as waits from now, for an unknown outcome `elapsed` into its
/// schedule: those of [`CHECKS_AFTER`] not yet due, within [`CHECK_HORIZON_SECONDS`].
pub(crate) fn checks_ahead(elapsed: std::time::Duration) -> Vec<std::time::Duration> {
    let mut at = elapsed;
    CHECKS_AFTER
        .iter()
        .map(|s| std::time::Duration::from_secs(*s))
        .filter(|due| *due > elapsed && due.as_secs() <= CHECK_HORIZON_SECONDS)
        .map(|due| {
            let wait = due - at;
            at = due;
            wait
        })
        .collect()
}

/// Reads the reply to the engine's own check of an unknown outcome: None while it is still
/// unknown (the check's reply was lost too, or it did not reach the agent), else the settled
/// state, read as a retry is (SPEC Q5: finding the ask closed or the turn changed is
/// maybe-applied).
pub(crate) fn check_outcome(result: Result<&Reply, &TransportError>) -> Option<IntentState> {
    match outcome_of(1, result) {
        IntentState::Unknown { .. } | IntentState::NotSent { .. } => None,
        _ => Some(outcome_of(2, result)),
    }
}

/// Reads the outcome of one attempt. `attempt` is 1 for the first try that reached the agent
/// (or may have), 2 for the person's retry after an unknown outcome.
pub(crate) fn outcome_of(attempt: u32, result: Result<&Reply, &TransportError>) -> IntentState {
    let state = match result {
        Err(error) if error.may_have_arrived() => IntentState::Unknown {
            why: error.to_string(),
        },
        Err(error) => {
            // Nothing reached the agent (no connection, privacy check): this try does not count.
            return IntentState::NotSent {
                why: error.to_string(),
            };
        }
        Ok(reply) => state_of_reply(reply),
    };
    if attempt < 2 {
        return state;
    }
    // SPEC Q5: a retry cannot tell whether the first try took effect when it finds the ask
    // closed or the turn changed; and a retry that is again unknown may have applied as well.
    match state {
        IntentState::Decided { .. } | IntentState::TooLate | IntentState::Unknown { .. } => {
            IntentState::MaybeApplied
        }
        IntentState::Refused { ref code, .. }
            if code == ErrorCode::TurnChanged.as_str()
                || code == ErrorCode::NotRunning.as_str() =>
        {
            IntentState::MaybeApplied
        }
        other => other,
    }
}

fn state_of_reply(reply: &Reply) -> IntentState {
    if let Some(why) = read_nothing(reply) {
        return IntentState::NotSent { why };
    }
    if reply.status >= 500 {
        return IntentState::Unknown {
            why: format!("the agent answered {}", reply.status),
        };
    }
    if (200..300).contains(&reply.status) {
        return match wire::decode::<PostReply>(&reply.body) {
            Ok(decoded) => {
                let reply = decoded.value;
                match reply.code {
                    ReplyCode::TooLate => IntentState::TooLate,
                    _ if reply.replayed => IntentState::Replayed { reply },
                    _ => IntentState::Done { reply },
                }
            }
            // A 2xx we cannot read: it ran, but we cannot say how (SPEC Q4 treats it as unknown).
            Err(e) => IntentState::Unknown {
                why: format!("the agent's reply could not be read: {e}"),
            },
        };
    }
    if (300..400).contains(&reply.status) {
        // SPEC T4: a redirect is a status, never followed.
        return IntentState::Refused {
            status: reply.status,
            code: "redirect".into(),
            message: reply
                .location
                .clone()
                .map(|l| format!("the agent redirected to {l}")),
        };
    }
    let body = wire::decode::<ErrorBody>(&reply.body).ok().map(|d| d.value);
    let Some(body) = body else {
        return IntentState::Refused {
            status: reply.status,
            code: "unreadable".into(),
            message: None,
        };
    };
    match body.code {
        ErrorCode::Stale => IntentState::Stale {
            revision: body.revision,
        },
        ErrorCode::Decided => IntentState::Decided {
            by: match (&body.by, &body.decided_by) {
                (Some(_), _) => Decider::Phone,
                (None, Some(DecidedBy::Timeout)) => Decider::Timeout,
                _ => Decider::Program,
            },
            outcome: body.outcome,
        },
        ErrorCode::RequestIdReused => IntentState::RequestIdReused,
        code => IntentState::Refused {
            status: reply.status,
            code: code.as_str().to_string(),
            message: body.message,
        },
    }
}

/// A reply that proves the agent read nothing of the request, so nothing ran: why, in the
/// phone's words. The one such reply the wire documents is `503 starting` (docs/WIRE.md § 1.8,
/// SPEC H3): the agent checks it before it reads the body, and gives no other reason a 503.
/// Any other 5xx stays unknown (SPEC Q4), and the 4xx refusals stay refused: they too come
/// before the body, but sending the same bytes again meets the same refusal (docs/ENGINE.md,
/// "Replies that prove nothing was read").
fn read_nothing(reply: &Reply) -> Option<String> {
    if reply.status != 503 {
        return None;
    }
    let body = wire::decode::<ErrorBody>(&reply.body).ok()?.value;
    (body.code == ErrorCode::Starting).then(|| "the agent is starting".to_string())
}

/// A fresh request id: 128 random bits, so two phones never pick the same one (SPEC Q1).
pub(crate) fn fresh_request_id() -> String {
    let bytes: [u8; 16] = rand::random();
    format!("r-{}", hex::encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn reply(status: u16, body: serde_json::Value) -> Reply {
        Reply {
            status,
            etag: None,
            location: None,
            body: Bytes::from(body.to_string()),
        }
    }

    #[test]
    fn q4_timeout_and_5xx_are_unknown() {
        assert!(matches!(
            outcome_of(1, Err(&TransportError::Timeout(3000))),
            IntentState::Unknown { .. }
        ));
        assert!(matches!(
            outcome_of(1, Ok(&reply(502, serde_json::json!({})))),
            IntentState::Unknown { .. }
        ));
        assert!(matches!(
            outcome_of(1, Err(&TransportError::TooLarge(16))),
            IntentState::Unknown { .. }
        ));
    }

    #[test]
    fn a7_decided_names_who() {
        let body = serde_json::json!({"code": "decided", "decidedBy": "timeout", "outcome": {"summary": "x"}});
        assert!(matches!(
            outcome_of(1, Ok(&reply(409, body))),
            IntentState::Decided {
                by: Decider::Timeout,
                ..
            }
        ));
        let body = serde_json::json!({"code": "decided", "by": "phone"});
        assert!(matches!(
            outcome_of(1, Ok(&reply(409, body))),
            IntentState::Decided {
                by: Decider::Phone,
                ..
            }
        ));
    }

    #[test]
    fn q5_retry_finding_ask_closed_is_maybe_applied() {
        let body = serde_json::json!({"code": "decided", "by": "phone"});
        assert_eq!(
            outcome_of(2, Ok(&reply(409, body))),
            IntentState::MaybeApplied
        );
        let body = serde_json::json!({"code": "too-late", "requestId": "r"});
        assert_eq!(
            outcome_of(2, Ok(&reply(200, body))),
            IntentState::MaybeApplied
        );
        let body = serde_json::json!({"code": "turn-changed", "turnId": "t2"});
        assert_eq!(
            outcome_of(2, Ok(&reply(409, body))),
            IntentState::MaybeApplied
        );
    }

    #[test]
    fn q3_replayed_is_its_own_state() {
        let body = serde_json::json!({"code": "ok", "requestId": "r", "replayed": true});
        assert!(matches!(
            outcome_of(2, Ok(&reply(200, body))),
            IntentState::Replayed { .. }
        ));
    }

    #[test]
    fn q4_checks_back_off_1_2_4_then_every_10_s_until_the_horizon() {
        let secs = |waits: Vec<std::time::Duration>| -> Vec<u64> {
            waits.iter().map(|w| w.as_secs()).collect()
        };
        let fresh = secs(checks_ahead(std::time::Duration::ZERO));
        assert_eq!(fresh, [1, 2, 4, 10, 10, 10, 10, 10]);
        assert!(fresh.iter().sum::<u64>() <= CHECK_HORIZON_SECONDS);
        // After a restart of the phone 20 s in: only the checks still ahead, from now.
        assert_eq!(
            secs(checks_ahead(std::time::Duration::from_secs(20))),
            [7, 10, 10, 10]
        );
        assert!(checks_ahead(std::time::Duration::from_secs(CHECK_HORIZON_SECONDS)).is_empty());
    }

    #[test]
    fn q4_a_check_settles_on_a_reply_and_stays_unknown_on_none() {
        let body = serde_json::json!({"code": "ok", "requestId": "r", "replayed": true});
        assert!(matches!(
            check_outcome(Ok(&reply(200, body))),
            Some(IntentState::Replayed { .. })
        ));
        assert_eq!(check_outcome(Err(&TransportError::Timeout(3000))), None);
        assert_eq!(check_outcome(Ok(&reply(503, serde_json::json!({})))), None);
        let body = serde_json::json!({"code": "decided", "by": "phone"});
        assert_eq!(
            check_outcome(Ok(&reply(409, body))),
            Some(IntentState::MaybeApplied)
        );
    }

    #[test]
    fn h3_503_starting_is_not_sent_and_never_counts_as_a_try() {
        let starting = serde_json::json!({"code": "starting", "message": "laying out"});
        for attempt in [1, 2] {
            assert_eq!(
                outcome_of(attempt, Ok(&reply(503, starting.clone()))),
                IntentState::NotSent {
                    why: "the agent is starting".into()
                },
                "attempt {attempt}"
            );
        }
        // A check that meets a restart does not settle it.
        assert_eq!(check_outcome(Ok(&reply(503, starting))), None);
        // Another 503, or one whose body is not `starting`, proves nothing: unknown.
        for body in [
            serde_json::json!({"code": "internal"}),
            serde_json::json!({}),
            serde_json::json!({"code": "starting-soon"}),
        ] {
            assert!(
                matches!(
                    outcome_of(1, Ok(&reply(503, body.clone()))),
                    IntentState::Unknown { .. }
                ),
                "{body}"
            );
        }
    }

    #[test]
    fn a8_too_late_first_try() {
        let body = serde_json::json!({"code": "too-late", "requestId": "r"});
        assert_eq!(outcome_of(1, Ok(&reply(200, body))), IntentState::TooLate);
    }

    #[test]
    fn send_over_32k_refused_before_sending() {
        let kind = IntentKind::Send {
            pane: "p".into(),
            turn_id: None,
            text: "x".repeat(40_000),
        };
        assert!(kind.request("r").is_err());
    }
}
