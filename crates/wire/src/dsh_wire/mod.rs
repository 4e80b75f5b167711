//! The wire of the DSH collaboration bridge (seed 002 "接口与事件协议", SPEC D1–D7): the envelope,
//! the error codes with what a client does about each, every route's request and reply, and the
//! event model. Shared by the reference bridge (`rigs::dsh_bridge`) and the phone's client
//! (`engine::dsh`); no I/O here. The contract these types follow is docs/DSH.md.
//!
//! Everything a bridge sends is untrusted input: decode with [`decode`], which parses, then cleans
//! and cuts every string and caps every list in the spirit of SPEC L1, reporting what it changed.
//! Unknown enum words (error codes, statuses, event kinds, phases) decode to `Unknown`, never to
//! a decode failure (SPEC V2).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod basics;
mod events;
mod lenient;
mod open_enum;
mod sse;
mod values;

use self::open_enum::dsh_open_enum;
use crate::wire::DecodeError;
use crate::wire::limits::MAX_SHORT;
use crate::wire::sanitize::{Lines, Report, clean, clean_opt};

pub use self::basics::{ErrorInfo, ModelConfig};
pub use self::events::*;
pub use self::lenient::{Unread, read_lenient};
pub use self::sse::*;
pub use self::values::*;

/// The only protocol version this program speaks (seed §1, SPEC D2).
pub const PROTOCOL_VERSION: u32 = 1;
/// The default route prefix (seed "基址", SPEC D1).
pub const DEFAULT_PREFIX: &str = "/codex-bridge";
/// The SSE event name of every bridge frame (seed §2 GET /events).
pub const SSE_EVENT_NAME: &str = "bridge";

/// Numbers of the seed, and our own caps where the seed names none (documented in docs/DSH.md).
pub mod limits {
    /// Bytes of a request body, `maxRequestBytes` (seed "传输"); past it → 413 request/too-large.
    pub const MAX_REQUEST_BYTES: usize = 256 * 1024;
    /// Events in a transcript page when `limit` is not given (seed GET /transcript).
    pub const DEFAULT_TRANSCRIPT_LIMIT: usize = 200;
    /// Most events in one transcript page (seed GET /transcript).
    pub const MAX_TRANSCRIPT_LIMIT: usize = 2000;
    /// The bridge's default in-memory event tail, `eventCacheLimit` (seed GET /transcript).
    pub const DEFAULT_EVENT_CACHE: usize = 2000;
    /// Upper bound of `waitMs`, `maxWaitMs` (seed POST /tasks/wait).
    pub const DEFAULT_MAX_WAIT_MS: u64 = 30_000;
    /// Seconds between `: keep-alive` comments on /events (seed GET /events).
    pub const KEEP_ALIVE_SECS: u64 = 15;
    /// Characters of `objective`, `acceptanceCriteria` and serialized `taskContext` (seed POST
    /// /tasks/create).
    pub const MAX_TASK_TEXT_CHARS: usize = 4000;

    // Our caps on what a client keeps of a bridge's reply (SPEC L1 in spirit; the seed only
    // says the previews "have a length limit").
    /// Bytes of a message's text.
    pub(crate) const MAX_MESSAGE_TEXT: usize = 64 * 1024;
    /// Bytes of `argumentsPreview`, `outputPreview`, `question`, `reason`, `summary`.
    pub(crate) const MAX_PREVIEW: usize = 4 * 1024;
    /// Bytes of a title, path, id-like name or label.
    pub(crate) const MAX_NAME: usize = 1024;
    /// Bytes of an error message.
    pub(crate) const MAX_ERROR_MESSAGE: usize = 4 * 1024;
    /// Bytes of compact JSON kept of a `log` event's `data`, an error's `details`, a task's
    /// `external` or `taskContext`; anything larger is dropped whole, never cut into bad JSON.
    pub(crate) const MAX_JSON_BLOB: usize = 16 * 1024;
    /// Entries of the workspace, session and task lists.
    pub(crate) const MAX_LIST: usize = 1000;
    /// Entries of small lists (session ids of a workspace, efforts, presets, groups, models).
    pub(crate) const MAX_SMALL_LIST: usize = 256;
    /// Rounds of a task kept.
    pub(crate) const MAX_ROUNDS: usize = 1000;
    /// Bytes of a request id or a task id the client sends.
    pub const MAX_REQUEST_ID: usize = 128;
}

/// The envelope of every reply (seed §1, SPEC D2): `{ok, protocolVersion, requestId?, value}` on
/// success, `{ok: false, protocolVersion, requestId, error}` on failure. `requestId` is the POST
/// body's, else `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope<T> {
    pub(crate) ok: bool,
    pub protocol_version: u32,
    /// Echoed from a POST body; `null` on a GET (what the real bridge sends, docs/DSH.md § The
    /// envelope).
    #[serde(default)]
    pub request_id: Option<String>,
    // No `default` here: serde would then ask `T: Default`; a missing Option is None anyway.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) value: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<BridgeError>,
}

impl<T> Envelope<T> {
    /// A success envelope.
    pub fn success(request_id: Option<String>, value: T) -> Self {
        Self {
            ok: true,
            protocol_version: PROTOCOL_VERSION,
            request_id,
            value: Some(value),
            error: None,
        }
    }

    /// A failure envelope.
    pub fn failure(request_id: Option<String>, error: BridgeError) -> Self {
        Self {
            ok: false,
            protocol_version: PROTOCOL_VERSION,
            request_id,
            value: None,
            error: Some(error),
        }
    }

    /// The value, or the bridge's error. [`decode`] has already refused envelopes that carry
    /// neither, so the `bridge/internal` fallback here is only for hand-built envelopes.
    pub fn into_result(self) -> Result<T, BridgeError> {
        match (self.ok, self.value, self.error) {
            (true, Some(value), _) => Ok(value),
            (false, _, Some(error)) => Err(error),
            (true, None, _) => Err(BridgeError::new(
                ErrorCode::Internal,
                "the bridge said ok but sent no value",
            )),
            (false, _, None) => Err(BridgeError::new(
                ErrorCode::Internal,
                "the bridge said the call failed but sent no error",
            )),
        }
    }
}

/// The `error` of a failure envelope (seed §1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BridgeError {
    pub code: ErrorCode,
    #[serde(default)]
    pub message: String,
    /// Structured extras, e.g. `availableModels` or `supportedEfforts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) details: Option<Value>,
}

impl BridgeError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: None,
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// `details.availableModels` of model/unavailable, as `provider/model` words where the
    /// bridge gave objects.
    pub fn available_models(&self) -> Vec<String> {
        self.detail_words("availableModels")
    }

    /// `details.supportedEfforts` of model/reasoning-effort-unavailable.
    pub fn supported_efforts(&self) -> Vec<String> {
        self.detail_words("supportedEfforts")
    }

    fn detail_words(&self, key: &str) -> Vec<String> {
        let Some(Value::Array(list)) = self.details.as_ref().and_then(|d| d.get(key)) else {
            return Vec::new();
        };
        list.iter()
            .filter_map(|entry| match entry {
                Value::String(word) => Some(word.clone()),
                Value::Object(map) => {
                    let provider = map.get("provider").and_then(Value::as_str);
                    let model = map
                        .get("model")
                        .or_else(|| map.get("id"))
                        .and_then(Value::as_str);
                    match (provider, model) {
                        (Some(p), Some(m)) => Some(format!("{p}/{m}")),
                        (None, Some(m)) => Some(m.to_string()),
                        _ => None,
                    }
                }
                _ => None,
            })
            .take(limits::MAX_SMALL_LIST)
            .map(|word| self::open_enum::clean_word(&word))
            .collect()
    }

    pub(crate) fn sanitize(&mut self, report: &mut Report) {
        clean(
            &mut self.message,
            limits::MAX_ERROR_MESSAGE,
            Lines::Multi,
            "error.message",
            report,
        );
        cap_json(&mut self.details, "error.details", report);
    }
}

impl std::fmt::Display for BridgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for BridgeError {}

dsh_open_enum! {
    /// The error codes of the seed's table (seed §1 "错误码与 HTTP 状态", SPEC D2).
    ErrorCode {
        MissingToken => "auth/missing-token",
        InvalidToken => "auth/invalid-token",
        WorkspaceForbidden => "auth/workspace-forbidden",
        BadRequest => "request/bad-request",
        TooLarge => "request/too-large",
        Unsupported => "request/unsupported",
        Conflict => "request/conflict",
        WorkspaceNotFound => "workspace/not-found",
        SessionNotFound => "session/not-found",
        SessionWorkspaceMismatch => "session/workspace-mismatch",
        WriterHeld => "session/writer-held",
        AgentBusy => "session/agent-busy",
        TaskNotFound => "task/not-found",
        ModelUnavailable => "model/unavailable",
        ReasoningEffortUnavailable => "model/reasoning-effort-unavailable",
        NotReady => "bridge/not-ready",
        Timeout => "bridge/timeout",
        Internal => "bridge/internal",
    }
}

/// What a client does about an error, as the seed's table says (SPEC D2). The engine follows
/// this and nothing else: it never retries on its own what the seed says not to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientBehaviour {
    /// Supply or renew the credentials; never retry (auth/missing-token, auth/invalid-token).
    FixCredentialsAndStop,
    /// Use another token or an in-scope workspace; never retry, never probe out-of-scope tasks
    /// (auth/workspace-forbidden).
    NeverRetryNeverProbe,
    /// The request itself is wrong: fix it, do not retry (request/bad-request,
    /// request/unsupported).
    FixAndStop,
    /// Split the content and send it again as a new request (request/too-large).
    SplitContent,
    /// Take a new requestId, or read the state first (request/conflict).
    ReadStateOrNewRequestId,
    /// Discover the workspaces again (workspace/not-found).
    RediscoverWorkspaces,
    /// Create the task again, which gives a new session (session/not-found, task/not-found).
    Recreate,
    /// Stop addressing across workspaces; a person must look (session/workspace-mismatch).
    ShowToPersonAndStop,
    /// Back off and retry later, or let the person handle it on the desktop
    /// (session/writer-held, session/agent-busy, bridge/not-ready).
    BackOffAndRetry,
    /// Read the catalog in `details` and choose again (model/*).
    ChooseAnotherModel,
    /// Resend the same request with the same requestId (bridge/timeout).
    ResendSameRequestId,
    /// Log and report; never show it as a result the person asked for (bridge/internal, and
    /// any code this program does not know).
    LogAndReport,
}

impl ClientBehaviour {
    /// True when the client may repeat the call without the person: only backing off and the
    /// same-id resend of a timeout (SPEC D2).
    pub fn may_retry(self) -> bool {
        matches!(self, Self::BackOffAndRetry | Self::ResendSameRequestId)
    }

    /// One sentence for the person: what to do next.
    pub fn advice(self) -> &'static str {
        match self {
            Self::FixCredentialsAndStop => {
                "Check the bridge token (--token-file); issue a new one on the desktop if it was revoked. Not retried."
            }
            Self::NeverRetryNeverProbe => {
                "This token may not reach that workspace: use a token whose scope covers it, or pick an in-scope workspace. Not retried."
            }
            Self::FixAndStop => {
                "The request was refused as malformed or unknown to this bridge; this is a client bug to report. Not retried."
            }
            Self::SplitContent => {
                "The message is too large for the bridge: split it and send the parts."
            }
            Self::ReadStateOrNewRequestId => {
                "The bridge already holds a different request under this id: reload the task's state, then send anew."
            }
            Self::RediscoverWorkspaces => {
                "That workspace is no longer registered: reload the workspace list."
            }
            Self::Recreate => {
                "The task or its session is gone: create the task again (it gets a new session)."
            }
            Self::ShowToPersonAndStop => {
                "The session does not belong to that workspace or the workspace moved: check it on the desktop."
            }
            Self::BackOffAndRetry => {
                "The desktop is busy or not ready: retrying after a pause, or handle it on the desktop."
            }
            Self::ChooseAnotherModel => {
                "That model or reasoning effort is not available: choose one the catalog lists."
            }
            Self::ResendSameRequestId => {
                "The bridge timed out: resending with the same request id is safe."
            }
            Self::LogAndReport => {
                "The bridge failed inside; the log has the details. Report it if it repeats."
            }
        }
    }
}

impl ErrorCode {
    /// The HTTP status the seed's table gives this code. Unknown codes have none of their own;
    /// a bridge that sends one is read by its status instead.
    pub fn status(&self) -> u16 {
        match self {
            Self::MissingToken => 401,
            Self::InvalidToken | Self::WorkspaceForbidden => 403,
            Self::BadRequest => 400,
            Self::TooLarge => 413,
            Self::Unsupported
            | Self::WorkspaceNotFound
            | Self::SessionNotFound
            | Self::TaskNotFound => 404,
            Self::Conflict
            | Self::SessionWorkspaceMismatch
            | Self::WriterHeld
            | Self::AgentBusy
            | Self::ModelUnavailable
            | Self::ReasoningEffortUnavailable => 409,
            Self::NotReady => 503,
            Self::Timeout => 504,
            Self::Internal | Self::Unknown(_) => 500,
        }
    }

    /// The client behaviour of the seed's table for this code (SPEC D2).
    pub fn behaviour(&self) -> ClientBehaviour {
        match self {
            Self::MissingToken | Self::InvalidToken => ClientBehaviour::FixCredentialsAndStop,
            Self::WorkspaceForbidden => ClientBehaviour::NeverRetryNeverProbe,
            Self::BadRequest | Self::Unsupported => ClientBehaviour::FixAndStop,
            Self::TooLarge => ClientBehaviour::SplitContent,
            Self::Conflict => ClientBehaviour::ReadStateOrNewRequestId,
            Self::WorkspaceNotFound => ClientBehaviour::RediscoverWorkspaces,
            Self::SessionNotFound | Self::TaskNotFound => ClientBehaviour::Recreate,
            Self::SessionWorkspaceMismatch => ClientBehaviour::ShowToPersonAndStop,
            Self::WriterHeld | Self::AgentBusy | Self::NotReady => ClientBehaviour::BackOffAndRetry,
            Self::ModelUnavailable | Self::ReasoningEffortUnavailable => {
                ClientBehaviour::ChooseAnotherModel
            }
            Self::Timeout => ClientBehaviour::ResendSameRequestId,
            Self::Internal | Self::Unknown(_) => ClientBehaviour::LogAndReport,
        }
    }

    /// Every code of the seed's table, in its order.
    #[cfg(test)]
    pub(crate) const ALL: [ErrorCode; 18] = [
        Self::MissingToken,
        Self::InvalidToken,
        Self::WorkspaceForbidden,
        Self::BadRequest,
        Self::TooLarge,
        Self::Unsupported,
        Self::Conflict,
        Self::WorkspaceNotFound,
        Self::SessionNotFound,
        Self::SessionWorkspaceMismatch,
        Self::WriterHeld,
        Self::AgentBusy,
        Self::TaskNotFound,
        Self::ModelUnavailable,
        Self::ReasoningEffortUnavailable,
        Self::NotReady,
        Self::Timeout,
        Self::Internal,
    ];
}

/// The routes of seed §2 (SPEC D3), relative to the prefix.
pub mod routes {
    pub const HEALTH: &str = "/health";
    pub const WORKSPACES: &str = "/workspaces";
    pub const WORKSPACES_CREATE: &str = "/workspaces/create";
    pub const CAPABILITIES: &str = "/capabilities";
    pub const SESSIONS: &str = "/sessions";
    pub const TRANSCRIPT: &str = "/transcript";
    pub const TASKS_GET: &str = "/tasks/get";
    pub const TASKS_LIST: &str = "/tasks/list";
    pub const TASKS_CREATE: &str = "/tasks/create";
    pub const TASKS_APPEND: &str = "/tasks/append";
    pub const TASKS_WAIT: &str = "/tasks/wait";
    pub const TASKS_CANCEL: &str = "/tasks/cancel";
    pub const TASKS_CLOSE: &str = "/tasks/close";
    pub const EVENTS: &str = "/events";

    /// Builds `route?key=value&…` with every value percent-encoded (ids may hold any character).
    pub fn with_query(route: &str, pairs: &[(&str, &str)]) -> String {
        use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
        let mut out = route.to_string();
        for (index, (key, value)) in pairs.iter().enumerate() {
            out.push(if index == 0 { '?' } else { '&' });
            out.push_str(key);
            out.push('=');
            out.push_str(&utf8_percent_encode(value, NON_ALPHANUMERIC).to_string());
        }
        out
    }
}

/// A reply value that can be made safe to keep and show after parsing (SPEC L1 in spirit).
pub trait Sanitize {
    fn sanitize(&mut self, report: &mut Report);
}

/// Why a bridge reply could not be used at all.
#[derive(Debug, thiserror::Error)]
pub enum EnvelopeError {
    #[error("the bridge's reply is not the JSON this route sends: {0}")]
    Json(#[from] serde_json::Error),
    #[error("the bridge's reply says ok but carries no value")]
    OkWithoutValue,
    #[error("the bridge's reply says it failed but carries no error")]
    FailureWithoutError,
}

impl From<EnvelopeError> for DecodeError {
    fn from(error: EnvelopeError) -> Self {
        match error {
            EnvelopeError::Json(json) => DecodeError::Json(json),
            other => DecodeError::Json(serde::de::Error::custom(other.to_string())),
        }
    }
}

/// A decoded reply: the envelope, what cleaning changed, and the parts that could not be read
/// and were left out (one bad field never drops the whole reply: docs/DSH.md, "How the phone
/// reads a bridge").
#[derive(Debug, Clone)]
pub struct Reply<T> {
    pub value: Envelope<T>,
    pub report: Report,
    pub unread: Vec<Unread>,
}

/// Parses a reply envelope whose value is `T`, leniently: a part of the value that cannot be
/// read is left out and noted in [`Reply::unread`], the rest is kept ([`read_lenient`]). Then
/// cleans and cuts every string (SPEC L1). Unknown fields are ignored (SPEC V2). Never panics,
/// whatever the bytes. A failure envelope decodes fine: read [`Envelope::into_result`] for the
/// error.
pub fn decode<T: DeserializeOwned + Sanitize>(bytes: &[u8]) -> Result<Reply<T>, EnvelopeError> {
    let tree: Value = serde_json::from_slice(bytes)?;
    let mut unread = Vec::new();
    let mut envelope: Envelope<T> = read_lenient(tree, "", &mut unread)?;
    if envelope.ok && envelope.value.is_none() {
        return Err(EnvelopeError::OkWithoutValue);
    }
    if !envelope.ok && envelope.error.is_none() {
        return Err(EnvelopeError::FailureWithoutError);
    }
    let mut report = Report::default();
    clean_opt(
        &mut envelope.request_id,
        limits::MAX_REQUEST_ID,
        Lines::Single,
        "requestId",
        &mut report,
    );
    if let Some(value) = envelope.value.as_mut() {
        value.sanitize(&mut report);
    }
    if let Some(error) = envelope.error.as_mut() {
        error.sanitize(&mut report);
    }
    Ok(Reply {
        value: envelope,
        report,
        unread,
    })
}

/// Drops a JSON blob whose compact form is larger than [`limits::MAX_JSON_BLOB`], and cleans
/// every string inside what stays. Never cuts JSON in half.
pub(crate) fn cap_json(blob: &mut Option<Value>, path: &str, report: &mut Report) {
    let Some(value) = blob.as_mut() else {
        return;
    };
    let size = serde_json::to_vec(value)
        .map(|bytes| bytes.len())
        .unwrap_or(usize::MAX);
    if size > limits::MAX_JSON_BLOB {
        *blob = None;
        report.note(path, crate::wire::ChangeKind::Cut);
        return;
    }
    clean_json_strings(value, path, report);
}

fn clean_json_strings(value: &mut Value, path: &str, report: &mut Report) {
    match value {
        Value::String(text) => {
            clean(text, MAX_SHORT * 16, Lines::Multi, path, report);
        }
        Value::Array(list) => list
            .iter_mut()
            .for_each(|entry| clean_json_strings(entry, path, report)),
        Value::Object(map) => {
            // Keys are the bridge's words too: cleaned as names, the entry kept under the
            // cleaned key (a later entry whose key cleans the same wins, as JSON's would).
            let entries = std::mem::take(map);
            for (mut key, mut entry) in entries {
                clean(&mut key, limits::MAX_NAME, Lines::Single, path, report);
                clean_json_strings(&mut entry, path, report);
                map.insert(key, entry);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d2_every_code_has_the_seed_status_and_round_trips() {
        for code in ErrorCode::ALL {
            let text = serde_json::to_string(&code).expect("serialize");
            let back: ErrorCode = serde_json::from_str(&text).expect("parse");
            assert_eq!(back, code);
            assert!(!matches!(back, ErrorCode::Unknown(_)));
        }
        assert_eq!(ErrorCode::MissingToken.status(), 401);
        assert_eq!(ErrorCode::TooLarge.status(), 413);
        assert_eq!(ErrorCode::Timeout.status(), 504);
        assert_eq!(ErrorCode::NotReady.status(), 503);
    }

    #[test]
    fn d2_only_back_off_and_same_id_resend_may_retry() {
        let retried: Vec<_> = ErrorCode::ALL
            .iter()
            .filter(|code| code.behaviour().may_retry())
            .map(ErrorCode::as_str)
            .collect();
        assert_eq!(
            retried,
            [
                "session/writer-held",
                "session/agent-busy",
                "bridge/not-ready",
                "bridge/timeout"
            ]
        );
    }

    #[test]
    fn d2_failure_envelope_decodes_and_unknown_code_is_kept() {
        let bytes = br#"{"ok":false,"protocolVersion":1,"requestId":"r\u001b1",
            "error":{"code":"future/thing","message":"no\u202e","details":{"x":1}}}"#;
        let decoded = decode::<Health>(bytes).expect("decode");
        assert_eq!(decoded.value.request_id.as_deref(), Some("r1"));
        let error = decoded.value.into_result().expect_err("failure");
        assert_eq!(error.code, ErrorCode::Unknown("future/thing".into()));
        assert_eq!(error.message, "no");
        assert_eq!(error.code.behaviour(), ClientBehaviour::LogAndReport);
    }

    #[test]
    fn d2_ok_without_value_is_refused() {
        let bytes = br#"{"ok":true,"protocolVersion":1}"#;
        assert!(matches!(
            decode::<Health>(bytes),
            Err(EnvelopeError::OkWithoutValue)
        ));
    }

    #[test]
    fn d2_details_name_models_and_efforts() {
        let error = BridgeError::new(ErrorCode::ModelUnavailable, "no").with_details(
            serde_json::json!({"availableModels": [{"provider": "p", "model": "m"}, "q/n"],
                "supportedEfforts": ["low", "high"]}),
        );
        assert_eq!(error.available_models(), ["p/m", "q/n"]);
        assert_eq!(error.supported_efforts(), ["low", "high"]);
    }

    /// The capabilities the real bridge (ESROAMER/dsh-codex-bridge `capabilities()` over its
    /// fake_host.mjs) sent on 2026-12-01, cut to one group; tests/fixtures/dsh-real holds them whole.
    const REAL_CAPABILITIES: &str = r#"{"ok":true,"protocolVersion":1,"requestId":null,"value":{"protocolVersion":1,"routePrefix":"/codex-bridge","capabilities":{"workspaces":{"list":true,"create":false,"createDirectory":false,"scope":"all-configured"},"sessions":{"create":true,"adopt":true,"rename":true,"list":true,"cancel":true},"models":{"catalog":true,"select":true,"verifyObserved":true},"presets":{"list":true,"select":true},"events":{"longPoll":true,"sse":true,"replay":true,"cursor":"sessionSeq"},"permissions":{"autoApprove":false,"observeWaits":true}},"modelCatalog":{"default":{"provider":"deepseek-account","model":"deepseek-flash","reasoningEffort":"high"},"routableProviders":["deepseek-account"],"groups":[{"id":"deepseek-account","name":"DeepSeek","models":[{"id":"deepseek-flash","name":"V41 Flash","description":null,"reasoning":{"defaultEffort":"high","efforts":[{"id":"off","name":"off","description":null},{"id":"low","name":"low","description":null},{"id":"high","name":"high","description":null}]}},{"id":"deepseek-flash-2","name":"V41 Flash 2","description":null,"reasoning":{"defaultEffort":"high","efforts":[{"id":"high","name":"high","description":null}]}}]}],"failures":[]},"agentPresets":[{"id":"standard","name":"Standard"},{"id":"creator","name":"Creator"}],"unavailable":{}}}"#;

    #[test]
    fn the_real_capabilities_are_read_whole() {
        let reply = decode::<Capabilities>(REAL_CAPABILITIES.as_bytes()).expect("decode");
        assert!(reply.unread.is_empty(), "{:?}", reply.unread);
        let capabilities = reply.value.into_result().expect("ok");
        let model = capabilities
            .model_catalog
            .model("deepseek-account", "deepseek-flash")
            .expect("model");
        assert_eq!(model.title.as_deref(), Some("V41 Flash"));
        let efforts = model.reasoning.as_ref().expect("reasoning");
        assert_eq!(efforts.ids(), ["off", "low", "high"]);
        assert_eq!(efforts.default.as_deref(), Some("high"));
        let presets: Vec<(&str, Option<&str>)> = capabilities
            .agent_presets
            .iter()
            .map(|p| (p.id.as_str(), p.title.as_deref()))
            .collect();
        assert_eq!(
            presets,
            [("standard", Some("Standard")), ("creator", Some("Creator"))]
        );
        assert!(capabilities.capabilities.sessions.adopt);
    }

    #[test]
    fn one_unexpected_field_leaves_everything_else_shown() {
        // A future bridge sends an effort's id as an object and a model name as a number.
        let odd = REAL_CAPABILITIES
            .replacen(
                r#"{"id":"off","name":"off","description":null}"#,
                r#"{"id":{"v":"off"}}"#,
                1,
            )
            .replacen(r#""name":"V41 Flash 2""#, r#""name":2"#, 1);
        let reply = decode::<Capabilities>(odd.as_bytes()).expect("still read");
        let paths: Vec<&str> = reply.unread.iter().map(|u| u.path.as_str()).collect();
        assert!(
            paths.contains(&"value.modelCatalog.groups[0].models[0].reasoning.efforts[0]"),
            "{paths:?}"
        );
        assert!(
            paths.contains(&"value.modelCatalog.groups[0].models[1].name"),
            "{paths:?}"
        );
        let capabilities = reply.value.into_result().expect("ok");
        let group = &capabilities.model_catalog.groups[0];
        assert_eq!(group.models.len(), 2);
        assert_eq!(
            group.models[0].reasoning.as_ref().expect("r").ids(),
            ["low", "high"]
        );
        assert_eq!(capabilities.agent_presets.len(), 2);
    }

    #[test]
    fn presets_unavailable_read_as_none_offered() {
        let text = REAL_CAPABILITIES.replacen(
            r#""agentPresets":[{"id":"standard","name":"Standard"},{"id":"creator","name":"Creator"}],"unavailable":{}"#,
            r#""agentPresets":{"unavailable":"this deployment mounts no agent-preset registry"},"unavailable":{"agentPresets":"this deployment mounts no agent-preset registry"}"#,
            1,
        );
        let reply = decode::<Capabilities>(text.as_bytes()).expect("read");
        assert!(reply.unread.is_empty(), "{:?}", reply.unread);
        let capabilities = reply.value.into_result().expect("ok");
        assert!(capabilities.agent_presets.is_empty());
        assert_eq!(capabilities.unavailable[0].capability, "agentPresets");
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(
            routes::with_query(routes::EVENTS, &[("taskId", "a b/工"), ("sinceSeq", "3")]),
            "/events?taskId=a%20b%2F%E5%B7%A5&sinceSeq=3"
        );
    }
}
