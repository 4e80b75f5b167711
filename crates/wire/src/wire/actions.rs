//! POST bodies and replies (SPEC W4, W5, A3–A8, A16, Q1–Q3).

use serde::{Deserialize, Serialize};

use super::ask::{Answer, DecidedBy, Outcome};
use super::hello::Refusal;
use super::kind::open_enum;
use super::limits::{MAX_SHORT, MAX_TITLE};
use super::sanitize::{Lines, Report, clean, clean_opt};

/// `POST /pane/:id/answer` (SPEC A3, A15). `revision` is the one the person saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerRequest {
    pub request_id: String,
    pub ask_id: String,
    pub revision: u64,
    pub answer: Answer,
}

/// `POST /pane/:id/send` (SPEC A16, L: text at most 32 KiB). `turnId` is the pane's latest turn
/// as the phone saw it, null when it saw none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendRequest {
    pub request_id: String,
    pub turn_id: Option<String>,
    pub text: String,
}

/// `POST /pane/:id/abort` (SPEC A16): stops the named turn if it is still the running one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AbortRequest {
    pub request_id: String,
    pub turn_id: String,
}

/// `POST /pane/:id/action`: a press of a belt button.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionRequest {
    pub request_id: String,
    pub button_id: String,
}

open_enum! {
    /// What a rename or close names.
    TargetKind {
        Workspace => "workspace",
        Tab => "tab",
        Pane => "pane",
    }
}

/// `POST /rename`: a new title for a workspace or a tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenameRequest {
    pub request_id: String,
    pub kind: TargetKind,
    pub id: String,
    pub title: String,
}

/// `POST /close`: close a pane, a tab or a workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CloseRequest {
    pub request_id: String,
    pub kind: TargetKind,
    pub id: String,
}

/// `POST /starter/:id` (SPEC A17).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StarterRequest {
    pub request_id: String,
}

/// `POST /reopen` (SPEC W5): show a closed conversation again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReopenRequest {
    pub request_id: String,
    pub conversation_id: String,
}

open_enum! {
    /// The `code` of a 2xx reply to a POST: `ok`, or `too-late` for an ask the agent no longer
    /// knows (SPEC A8).
    ReplyCode {
        Ok => "ok",
        TooLate => "too-late",
    }
}

/// The body of every 2xx reply to a POST (SPEC Q3, A4, A8, A16, A17).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PostReply {
    pub code: ReplyCode,
    pub request_id: String,
    /// True when this is the first reply again for a repeated request id (SPEC Q3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
    /// answer: how the ask closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// send, abort, action: the turn the request went to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// send: true when the text steered the running turn, false when it started a new one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steered: Option<bool>,
    /// send: true when the text waits for the running turn to end and becomes the next turn's
    /// prompt (an agent with `caps.queueSend`, which cannot steer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued: Option<bool>,
    /// starter, reopen: the pane that shows the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<String>,
}

impl PostReply {
    pub fn ok(request_id: &str) -> Self {
        Self {
            code: ReplyCode::Ok,
            request_id: request_id.to_string(),
            replayed: false,
            outcome: None,
            turn_id: None,
            steered: None,
            queued: None,
            pane_id: None,
        }
    }

    pub(crate) fn sanitize(&mut self, report: &mut Report) {
        clean(
            &mut self.request_id,
            MAX_SHORT,
            Lines::Single,
            "requestId",
            report,
        );
        if let Some(outcome) = &mut self.outcome {
            outcome.sanitize("outcome", report);
        }
        clean_opt(
            &mut self.turn_id,
            MAX_SHORT,
            Lines::Single,
            "turnId",
            report,
        );
        clean_opt(
            &mut self.pane_id,
            MAX_SHORT,
            Lines::Single,
            "paneId",
            report,
        );
    }
}

open_enum! {
    /// Every error code this project's agent sends; see docs/WIRE.md for the status of each
    /// (SPEC W6, W4, T3, S5, H3, A3, A7, A16, Q3, V4). Unknown codes are kept (SPEC V2).
    ErrorCode {
        BadRequest => "bad-request",
        BadAnswer => "bad-answer",
        VersionRequired => "version-required",
        TextTooLong => "text-too-long",
        Unauthorized => "unauthorized",
        CallerRefused => "caller-refused",
        NotFound => "not-found",
        NoSuchPane => "no-such-pane",
        NoSuchButton => "no-such-button",
        NoSuchSetting => "no-such-setting",
        NoSuchStarter => "no-such-starter",
        NoSuchTarget => "no-such-target",
        NoSuchConversation => "no-such-conversation",
        TooLarge => "too-large",
        Stale => "stale",
        Decided => "decided",
        TurnChanged => "turn-changed",
        NotRunning => "not-running",
        RequestIdReused => "request-id-reused",
        Incompatible => "incompatible",
        Starting => "starting",
        Internal => "internal",
    }
}

impl ErrorCode {
    /// The HTTP status this code is sent with (docs/WIRE.md, "Errors").
    pub fn status(&self) -> u16 {
        match self {
            Self::BadRequest | Self::BadAnswer | Self::VersionRequired | Self::TextTooLong => 400,
            Self::Unauthorized => 401,
            Self::CallerRefused => 403,
            Self::NotFound
            | Self::NoSuchPane
            | Self::NoSuchButton
            | Self::NoSuchSetting
            | Self::NoSuchStarter
            | Self::NoSuchTarget
            | Self::NoSuchConversation => 404,
            Self::TooLarge => 413,
            Self::Stale
            | Self::Decided
            | Self::TurnChanged
            | Self::NotRunning
            | Self::RequestIdReused
            | Self::Incompatible => 409,
            Self::Starting => 503,
            Self::Internal | Self::Unknown(_) => 500,
        }
    }
}

/// The body of every error reply (SPEC W6). Besides `code`, only the fields its code needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    pub code: ErrorCode,
    /// A sentence for logs and the wire inspector; never needed to act.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) replayed: bool,
    /// stale: the ask's current revision (SPEC A3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    /// decided: `"phone"` when a phone answered first (SPEC A7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// decided: set when the agent decided first (SPEC A7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<DecidedBy>,
    /// decided: the first outcome (SPEC A7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// turn-changed, not-running: the pane's latest turn now (SPEC A16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// incompatible: both ranges (SPEC V4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<Refusal>,
}

impl ErrorBody {
    pub fn new(code: ErrorCode) -> Self {
        Self {
            code,
            message: None,
            request_id: None,
            replayed: false,
            revision: None,
            by: None,
            decided_by: None,
            outcome: None,
            turn_id: None,
            refusal: None,
        }
    }

    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    pub(crate) fn sanitize(&mut self, report: &mut Report) {
        clean_opt(
            &mut self.message,
            MAX_TITLE,
            Lines::Single,
            "message",
            report,
        );
        clean_opt(
            &mut self.request_id,
            MAX_SHORT,
            Lines::Single,
            "requestId",
            report,
        );
        clean_opt(&mut self.by, MAX_SHORT, Lines::Single, "by", report);
        clean_opt(
            &mut self.turn_id,
            MAX_SHORT,
            Lines::Single,
            "turnId",
            report,
        );
        if let Some(outcome) = &mut self.outcome {
            outcome.sanitize("outcome", report);
        }
    }
}
