//! The bridge's event model (seed §3, SPEC D4): the fields every event carries, and the
//! projection of each `kind`. Re-exported by `dsh_wire`.
//!
//! An event whose `kind` this program does not know, or whose known kind has fields of the wrong
//! type, is kept as [`EventBody::Unknown`] with its raw fields: never a decode failure, never
//! dropped, never made up (SPEC D4, V2).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::basics::{ErrorInfo, ModelConfig, clean_name, clean_name_opt, config_opt, error_opt};
use super::lenient::{Unread, read_lenient};
use super::limits;
use super::open_enum::dsh_open_enum;
use crate::wire::sanitize::{Lines, Report, clean, clean_opt};

/// One bridge event (seed §3). `sessionSeq` is the cursor; the pair `(sessionId, sessionSeq)`
/// is the dedupe key (SPEC D4). `taskId` is null for events read from the durable log.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub task_id: Option<String>,
    pub session_seq: i64,
    /// Milliseconds since the epoch.
    pub at: i64,
    /// The host's own event name, shown for debugging.
    pub session_event_type: String,
    pub body: EventBody,
    /// Fields of the projection that could not be read and were left out; the rest of the event
    /// is kept (docs/DSH.md, "How the phone reads a bridge").
    pub unread: Vec<Unread>,
}

/// The `kind` of an event and its projection fields (seed §3 table).
#[derive(Debug, Clone, PartialEq)]
pub enum EventBody {
    Message(MessageEvent),
    Execution(ExecutionEvent),
    Permission(PermissionEvent),
    Status(StatusEvent),
    Log(LogEvent),
    /// A kind this program does not know (or a known kind it could not read): the word and the
    /// fields as sent, after cleaning.
    Unknown {
        kind: String,
        fields: Map<String, Value>,
    },
}

impl EventBody {
    /// The `kind` word of this body.
    pub(crate) fn kind(&self) -> &str {
        match self {
            Self::Message(_) => "message",
            Self::Execution(_) => "execution",
            Self::Permission(_) => "permission",
            Self::Status(_) => "status",
            Self::Log(_) => "log",
            Self::Unknown { kind, .. } => kind,
        }
    }
}

dsh_open_enum! {
    /// Who wrote a message.
    Role {
        User => "user",
        Assistant => "assistant",
    }
}

/// Token usage of an assistant message, as far as the bridge reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Usage {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
}

/// `kind: "message"` (seed §3): a user message (`source` tells desktop from bridge; `requestId`
/// ties it to the append that made it) or a visible assistant message with its model and usage.
/// Internal reasoning is never sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageEvent {
    pub role: Role,
    #[serde(default)]
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<bool>,
}

dsh_open_enum! {
    /// The phase of an `execution` event (seed §3).
    ExecutionPhase {
        TurnStart => "turn-start",
        TurnCompleted => "turn-completed",
        TurnAborted => "turn-aborted",
        TurnFailed => "turn-failed",
        TurnTruncated => "turn-truncated",
        TurnBlocked => "turn-blocked",
        TurnInterrupted => "turn-interrupted",
        TurnForked => "turn-forked",
        StepStart => "step-start",
        StepEnd => "step-end",
        ToolCall => "tool-call",
        ToolResult => "tool-result",
        RequestHeader => "request-header",
        ModelSelection => "model-selection",
    }
}

impl ExecutionPhase {
    /// The host's word for how a turn ended (`lastTurn.reason`, a turn end's `reason`): the
    /// real bridge maps `completed` → `turn-completed`, `error` → `turn-failed`,
    /// `max-tokens` → `turn-truncated`, and so on; this is the way back.
    pub fn end_reason(&self) -> &str {
        match self {
            Self::TurnCompleted => "completed",
            Self::TurnAborted => "aborted",
            Self::TurnFailed => "error",
            Self::TurnTruncated => "max-tokens",
            Self::TurnBlocked => "blocked",
            Self::TurnInterrupted => "interrupted",
            Self::TurnForked => "forked",
            other => other.as_str(),
        }
    }

    /// True for the phases that end a turn, the ones `tasks/wait`'s `turn-end` waits for.
    pub fn ends_turn(&self) -> bool {
        matches!(
            self,
            Self::TurnCompleted
                | Self::TurnAborted
                | Self::TurnFailed
                | Self::TurnTruncated
                | Self::TurnBlocked
                | Self::TurnInterrupted
        )
    }
}

/// `kind: "execution"` (seed §3): turn and step boundaries, tool calls and results, the config
/// a request really used, model switches. Which fields are set depends on `phase`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionEvent {
    pub phase: ExecutionPhase,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Cut by the bridge so a log never holds a whole file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_preview: Option<String>,
    /// tool-result: a failure is `failed: true` with `error.code`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<bool>,
    /// turn-failed and failed tool-result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_preview: Option<String>,
    /// A turn end: the host's end kind (`completed`, `error`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// request-header: the config this request really used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_config: Option<ModelConfig>,
    /// model-selection: the config the session switched to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected_config: Option<ModelConfig>,
}

impl ExecutionEvent {
    /// An event of this phase with nothing else set; the bridge fills what the phase needs.
    pub fn new(phase: ExecutionPhase) -> Self {
        Self {
            phase,
            turn: None,
            step: None,
            tool: None,
            call_id: None,
            arguments_preview: None,
            failed: None,
            error: None,
            output_preview: None,
            reason: None,
            observed_config: None,
            selected_config: None,
        }
    }
}

dsh_open_enum! {
    /// The phase of a `permission` event (seed §3, SPEC D6).
    PermissionPhase {
        InputRequested => "input-requested",
        ApprovalRequested => "approval-requested",
    }
}

/// `kind: "permission"` (seed §3, SPEC D6): the session waits for the person. The bridge never
/// answers it and has no endpoint to answer it: it must be answered on the desktop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionEvent {
    pub phase: PermissionPhase,
    /// input-requested: what the session asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// approval-requested: the tool waiting for approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

dsh_open_enum! {
    /// The phase of a `status` event: the follower's state (seed §3).
    StatusPhase {
        AssistantStreaming => "assistant-streaming",
        StreamEnded => "stream-ended",
        FollowerFailed => "follower-failed",
        /// The host's `session/title`: the session was (re)named, `title` says to what.
        Title => "title",
    }
}

/// `kind: "status"` (seed §3). `follower-failed` carries `error`, `title` a `title`. The real
/// bridge's own status lines have `taskId: null`, `sessionEventType: "bridge/status"` and the
/// follower's last `sessionSeq` again (docs/DSH.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusEvent {
    #[serde(alias = "status")]
    pub phase: StatusPhase,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// The `sessionEventType` of the real bridge's own status lines (follower state, not a host
/// event): they repeat the last `sessionSeq`, so they are never deduped by it.
pub const BRIDGE_STATUS: &str = "bridge/status";

/// `kind: "log"` (seed §3): a host event the bridge does not project, passed through with a
/// bounded one-line summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogEvent {
    #[serde(default)]
    pub data: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

const COMMON_FIELDS: [&str; 5] = ["taskId", "sessionSeq", "at", "sessionEventType", "kind"];

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let projection = match &self.body {
            EventBody::Message(body) => serde_json::to_value(body),
            EventBody::Execution(body) => serde_json::to_value(body),
            EventBody::Permission(body) => serde_json::to_value(body),
            EventBody::Status(body) => serde_json::to_value(body),
            EventBody::Log(body) => serde_json::to_value(body),
            EventBody::Unknown { fields, .. } => Ok(Value::Object(fields.clone())),
        }
        .map_err(S::Error::custom)?;
        let mut map = Map::new();
        map.insert(
            "taskId".into(),
            self.task_id.clone().map_or(Value::Null, Value::String),
        );
        map.insert("sessionSeq".into(), self.session_seq.into());
        map.insert("at".into(), self.at.into());
        map.insert(
            "sessionEventType".into(),
            Value::String(self.session_event_type.clone()),
        );
        map.insert("kind".into(), Value::String(self.body.kind().to_string()));
        if let Value::Object(fields) = projection {
            for (key, value) in fields {
                if !COMMON_FIELDS.contains(&key.as_str()) {
                    map.insert(key, value);
                }
            }
        }
        Value::Object(map).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let Value::Object(mut map) = Value::deserialize(d)? else {
            return Err(D::Error::custom("an event is a JSON object"));
        };
        let session_seq = map
            .get("sessionSeq")
            .and_then(Value::as_i64)
            .ok_or_else(|| D::Error::custom("an event needs an integer sessionSeq"))?;
        let task_id = map
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_string);
        let at = map.get("at").and_then(Value::as_i64).unwrap_or(0);
        let session_event_type = map
            .get("sessionEventType")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let kind = map
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        for field in COMMON_FIELDS {
            map.remove(field);
        }
        let mut unread = Vec::new();
        let body = project(&kind, map, &mut unread);
        Ok(Self {
            task_id,
            session_seq,
            at,
            session_event_type,
            body,
            unread,
        })
    }
}

/// Reads the projection of a kind leniently: a field that cannot be read is left out and noted
/// in `unread`; a kind whose required fields (`role`, `phase`) cannot be read stays `Unknown`
/// with its fields.
fn project(kind: &str, fields: Map<String, Value>, unread: &mut Vec<Unread>) -> EventBody {
    let mut read = |into: fn(&Map<String, Value>, &mut Vec<Unread>) -> Option<EventBody>| {
        into(&fields, unread)
    };
    fn lenient<T: serde::de::DeserializeOwned>(
        fields: &Map<String, Value>,
        unread: &mut Vec<Unread>,
    ) -> Option<T> {
        let mut noted = Vec::new();
        let value = read_lenient(Value::Object(fields.clone()), "", &mut noted).ok()?;
        unread.append(&mut noted);
        Some(value)
    }
    let body = match kind {
        "message" => read(|f, u| lenient(f, u).map(EventBody::Message)),
        "execution" => read(|f, u| lenient(f, u).map(EventBody::Execution)),
        "permission" => read(|f, u| lenient(f, u).map(EventBody::Permission)),
        "status" => read(|f, u| lenient(f, u).map(EventBody::Status)),
        "log" => read(|f, u| lenient(f, u).map(EventBody::Log)),
        _ => None,
    };
    body.unwrap_or_else(|| EventBody::Unknown {
        kind: super::open_enum::clean_word(kind),
        fields,
    })
}

impl Event {
    /// Cleans and cuts every string of the event (SPEC L1 in spirit; seed §3: text and previews
    /// have length limits).
    pub fn sanitize(&mut self, path: &str, report: &mut Report) {
        clean_name_opt(&mut self.task_id, &format!("{path}.taskId"), report);
        clean_name(
            &mut self.session_event_type,
            &format!("{path}.sessionEventType"),
            report,
        );
        let preview = |text: &mut Option<String>, field: &str, report: &mut Report| {
            clean_opt(
                text,
                limits::MAX_PREVIEW,
                Lines::Multi,
                format!("{path}.{field}"),
                report,
            );
        };
        match &mut self.body {
            EventBody::Message(message) => {
                clean(
                    &mut message.text,
                    limits::MAX_MESSAGE_TEXT,
                    Lines::Multi,
                    format!("{path}.text"),
                    report,
                );
                clean_name_opt(&mut message.source, &format!("{path}.source"), report);
                clean_name_opt(
                    &mut message.request_id,
                    &format!("{path}.requestId"),
                    report,
                );
                clean_name_opt(&mut message.model, &format!("{path}.model"), report);
                clean_name_opt(&mut message.model_id, &format!("{path}.modelId"), report);
            }
            EventBody::Execution(execution) => {
                clean_name_opt(&mut execution.tool, &format!("{path}.tool"), report);
                clean_name_opt(&mut execution.call_id, &format!("{path}.callId"), report);
                preview(&mut execution.arguments_preview, "argumentsPreview", report);
                preview(&mut execution.output_preview, "outputPreview", report);
                error_opt(&mut execution.error, &format!("{path}.error"), report);
                config_opt(
                    &mut execution.observed_config,
                    &format!("{path}.observedConfig"),
                    report,
                );
                config_opt(
                    &mut execution.selected_config,
                    &format!("{path}.selectedConfig"),
                    report,
                );
            }
            EventBody::Permission(permission) => {
                preview(&mut permission.question, "question", report);
                clean_name_opt(&mut permission.tool, &format!("{path}.tool"), report);
                clean_name_opt(&mut permission.call_id, &format!("{path}.callId"), report);
                preview(&mut permission.reason, "reason", report);
            }
            EventBody::Status(status) => {
                error_opt(&mut status.error, &format!("{path}.error"), report);
                clean_name_opt(&mut status.title, &format!("{path}.title"), report);
            }
            EventBody::Log(log) => {
                preview(&mut log.summary, "summary", report);
                let mut data = Some(std::mem::take(&mut log.data));
                super::cap_json(&mut data, &format!("{path}.data"), report);
                log.data = data.unwrap_or(Value::Null);
            }
            EventBody::Unknown { fields, .. } => {
                let mut blob = Some(Value::Object(std::mem::take(fields)));
                super::cap_json(&mut blob, &format!("{path}.fields"), report);
                if let Some(Value::Object(kept)) = blob {
                    *fields = kept;
                }
            }
        }
    }
}

/// Keeps only events not seen before, by `(sessionId, sessionSeq)` (SPEC D4: delivery is at
/// least once). The client keeps one per pane.
#[derive(Debug, Clone, Default)]
pub struct SeenEvents {
    /// `(session, seq, "")` for a host event; `(session, seq, phase)` for a bridge status line.
    seen: std::collections::BTreeSet<(String, i64, String)>,
}

impl SeenEvents {
    #[cfg(test)]
    /// True the first time this pair is offered.
    pub(crate) fn first_time(&mut self, session_id: &str, session_seq: i64) -> bool {
        self.seen
            .insert((session_id.to_string(), session_seq, String::new()))
    }

    /// True the first time this event is offered. The real bridge's own status lines
    /// (`sessionEventType: "bridge/status"`) repeat the last host event's `sessionSeq`, so
    /// they are keyed by their phase as well: deduping them by seq alone would drop them.
    pub fn first_time_event(&mut self, session_id: &str, event: &Event) -> bool {
        let extra = match &event.body {
            EventBody::Status(status) if event.session_event_type == BRIDGE_STATUS => {
                format!("status:{}", status.phase)
            }
            _ => String::new(),
        };
        self.seen
            .insert((session_id.to_string(), event.session_seq, extra))
    }

    /// Forgets pairs at or below `keep_after` of a session, so the set stays small.
    pub fn forget_through(&mut self, session_id: &str, keep_after: i64) {
        self.seen
            .retain(|(session, seq, _)| session != session_id || *seq > keep_after);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d4_every_kind_round_trips_and_unknown_is_kept() {
        let lines = [
            r#"{"taskId":"t","sessionSeq":1,"at":5,"sessionEventType":"message/user","kind":"message","role":"user","source":"bridge","requestId":"r1","text":"hi"}"#,
            r#"{"taskId":"t","sessionSeq":2,"at":6,"sessionEventType":"message/assistant","kind":"message","role":"assistant","model":"m","text":"ok","usage":{"inputTokens":3,"outputTokens":4},"interrupted":false}"#,
            r#"{"taskId":"t","sessionSeq":3,"at":7,"sessionEventType":"tool/result","kind":"execution","phase":"tool-result","callId":"c","failed":true,"error":{"code":"ENOENT","message":"gone"}}"#,
            r#"{"taskId":null,"sessionSeq":4,"at":8,"sessionEventType":"approval/asked","kind":"permission","phase":"approval-requested","tool":"shell"}"#,
            r#"{"taskId":"t","sessionSeq":5,"at":9,"sessionEventType":"x","kind":"hologram","beam":1}"#,
            r#"{"taskId":"t","sessionSeq":6,"at":9,"sessionEventType":"x","kind":"execution","phase":"warp-drive"}"#,
        ];
        for line in lines {
            let event: Event = serde_json::from_str(line).expect("decode");
            let back = serde_json::to_value(&event).expect("encode");
            let original: Value = serde_json::from_str(line).expect("json");
            assert_eq!(back, original, "{line}");
        }
        let unknown: Event = serde_json::from_str(lines[4]).expect("decode");
        assert!(matches!(unknown.body, EventBody::Unknown { ref kind, .. } if kind == "hologram"));
        let phase: Event = serde_json::from_str(lines[5]).expect("decode");
        assert!(matches!(phase.body, EventBody::Execution(ExecutionEvent {
            phase: ExecutionPhase::Unknown(ref p), .. }) if p == "warp-drive"));
    }

    #[test]
    fn d4_a_known_kind_with_bad_fields_is_kept_as_unknown() {
        let line = r#"{"sessionSeq":1,"kind":"message","role":7}"#;
        let event: Event = serde_json::from_str(line).expect("decode");
        assert!(matches!(event.body, EventBody::Unknown { ref kind, .. } if kind == "message"));
    }

    #[test]
    fn l1_event_text_is_cleaned() {
        let line = r#"{"sessionSeq":1,"kind":"message","role":"assistant","text":"a\u001b[2Jb"}"#;
        let mut event: Event = serde_json::from_str(line).expect("decode");
        let mut report = Report::default();
        event.sanitize("e", &mut report);
        let EventBody::Message(message) = event.body else {
            panic!("message")
        };
        assert_eq!(message.text, "a[2Jb");
        assert!(!report.is_empty());
    }

    #[test]
    fn d4_dedupe_by_session_and_seq() {
        let mut seen = SeenEvents::default();
        assert!(seen.first_time("s", 1));
        assert!(!seen.first_time("s", 1));
        assert!(seen.first_time("other", 1));
    }

    #[test]
    fn d4_a_bridge_status_line_repeating_the_last_seq_is_kept() {
        let mut seen = SeenEvents::default();
        let event = |line: &str| -> Event { serde_json::from_str(line).expect("event") };
        let host = event(
            r#"{"taskId":"t","sessionSeq":8,"sessionEventType":"turn/end","kind":"execution","phase":"turn-completed"}"#,
        );
        let status = event(
            r#"{"taskId":null,"sessionSeq":8,"sessionEventType":"bridge/status","kind":"status","phase":"stream-ended"}"#,
        );
        assert!(seen.first_time_event("s", &host));
        assert!(seen.first_time_event("s", &status));
        assert!(!seen.first_time_event("s", &status));
        assert!(!seen.first_time_event("s", &host));
    }

    #[test]
    fn a_mistyped_field_of_an_event_is_left_out_and_the_rest_kept() {
        let line = r#"{"sessionSeq":3,"kind":"execution","phase":"tool-call","turn":"two","tool":"shell","callId":"c1"}"#;
        let event: Event = serde_json::from_str(line).expect("decode");
        let EventBody::Execution(execution) = &event.body else {
            panic!("kept as execution: {:?}", event.body)
        };
        assert_eq!(execution.tool.as_deref(), Some("shell"));
        assert_eq!(execution.turn, None);
        assert_eq!(event.unread.len(), 1);
        assert_eq!(event.unread[0].path, "turn");
    }
}
