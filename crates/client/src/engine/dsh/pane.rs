//! One bridge task as a phone pane (SPEC D4, D6): its status as the pane's state, each bridge
//! event as the chat items, asks and notices the existing screens already draw. Pure: no I/O.
//!
//! Nothing is invented. Every item says what one event said; a permission wait becomes an ask
//! that cannot be answered here (its kind is [`DESKTOP_ASK_KIND`]), and it closes only when a
//! later event shows the wait ended (the desktop's reply, the tool's result, the turn's end or
//! a new turn), with words that say which. The task's status alone never closes one: the real
//! bridge answers a cancel during a wait with `accepted: true` and `idle` while the desktop
//! still waits (docs/DSH.md).

use std::collections::HashSet;

use time::OffsetDateTime;

use crate::dsh_wire::{
    self as dsh, EventBody, ExecutionPhase, MessageEvent, ModelConfig, PermissionPhase, Role,
    StatusPhase, TaskStatus, TaskView,
};
use crate::wire::{
    Ask, AskKind, EventType, Item, ItemKind, Outcome, PaneState, PermissionBody, Report, TextBody,
    Tone,
};

/// The ask kind of a bridge permission wait. No phone can answer it: the bridge has no approval
/// endpoint and never auto-approves (seed §5, SPEC D6), so it must be answered on the desktop.
/// The wire names it, so an ask's sum type has it as a variant (`wire::AskBody::DesktopWait`).
pub use crate::wire::DESKTOP_ASK_KIND;

/// The pane state word of a task that needs attention with no wait open (a turn that ended
/// otherwise than completed). The phone has no such state, so it is shown as the bridge's word.
pub(crate) const ATTENTION: &str = "attention";

/// A permission wait shown as an ask.
#[derive(Debug, Clone)]
struct OpenAsk {
    /// The tool call id, or `seq-N` when the event named none.
    key: String,
    input: bool,
    ask: Ask,
}

/// What the phone keeps of one task to turn its events into chat.
#[derive(Debug, Clone)]
pub struct TaskPane {
    pub(crate) pane_id: String,
    pub(crate) task_id: String,
    pub(crate) session_id: String,
    pub(crate) status: TaskStatus,
    requested: Option<ModelConfig>,
    open: Vec<OpenAsk>,
    gaps: HashSet<i64>,
    shown_state: PaneState,
    /// The session's title from its `session/title` events (the real bridge's `/sessions`
    /// carries none), for a pane whose task has no title of its own.
    pub(crate) title: Option<String>,
}

impl TaskPane {
    pub fn new(task: &TaskView) -> Self {
        let mut pane = Self {
            pane_id: task.task_id.clone(),
            task_id: task.task_id.clone(),
            session_id: task.session_id.clone(),
            status: task.status.clone(),
            requested: task.requested_config.clone(),
            open: Vec::new(),
            gaps: HashSet::new(),
            shown_state: PaneState::Starting,
            title: None,
        };
        pane.shown_state = pane.state();
        pane
    }

    /// A session no task follows (seed GET /sessions): read-only history until it is adopted.
    pub(crate) fn for_session(session: &dsh::Session) -> Self {
        let mut pane = Self {
            pane_id: session_pane_id(&session.session_id),
            task_id: String::new(),
            session_id: session.session_id.clone(),
            status: TaskStatus::Unknown(NOT_ADOPTED.into()),
            requested: None,
            open: Vec::new(),
            gaps: HashSet::new(),
            shown_state: PaneState::Starting,
            title: None,
        };
        pane.shown_state = pane.state();
        pane
    }

    /// After the history is read. A wait the history opened and no later event closed is
    /// still open, whatever the task's status says: an adopted session whose last event is an
    /// open approval shows its card (the real bridge reports such a task `idle`).
    pub(crate) fn settle_history(&mut self) {
        self.shown_state = self.state();
    }

    /// The pane state: `waiting` while a permission wait is open (whatever the task's status:
    /// the desktop still waits), else the task's status (seed GET /tasks/get), `attention`
    /// as the bridge's own word.
    pub fn state(&self) -> PaneState {
        if !self.open.is_empty() {
            return PaneState::Waiting;
        }
        match &self.status {
            TaskStatus::Starting => PaneState::Starting,
            TaskStatus::Running => PaneState::Running,
            TaskStatus::Idle => PaneState::Idle,
            TaskStatus::Attention => PaneState::Unknown(ATTENTION.into()),
            other => PaneState::Unknown(other.as_str().to_string()),
        }
    }

    /// The open permission waits, oldest first.
    pub fn asks(&self) -> Vec<Ask> {
        self.open.iter().map(|open| open.ask.clone()).collect()
    }

    /// Takes the task's latest view. Its status never closes a wait (see the module's words).
    pub(crate) fn update_task(&mut self, task: &TaskView) -> Vec<crate::wire::Event> {
        self.requested = task.requested_config.clone();
        let mut out = Vec::new();
        self.status = task.status.clone();
        self.note_state(0, &mut out);
        out
    }

    /// A gap the bridge admits (`truncatedBefore`, seed §4.4): shown once, never filled in.
    pub fn gap(&mut self, truncated_before: i64) -> Option<crate::wire::Event> {
        if !self.gaps.insert(truncated_before) {
            return None;
        }
        let text = format!(
            "Events before #{truncated_before} are no longer kept by the bridge; this chat starts after a gap."
        );
        Some(item_event(
            seq_of(truncated_before),
            Item::text(format!("gap-{truncated_before}"), ItemKind::Notice, text)
                .with_tone(Tone::Alert),
        ))
    }

    /// A line of the phone's own, e.g. "desktop reloaded", standing out as `tone` says.
    pub(crate) fn notice(&self, id: &str, text: &str, tone: Tone) -> crate::wire::Event {
        let mut item = Item::text(id, ItemKind::Notice, text).with_tone(tone);
        item.at = Some(crate::wire::time::format(OffsetDateTime::now_utc()));
        item_event(0, item)
    }

    /// The chat of one bridge event seen for the first time, cleaned (SPEC L1).
    pub fn take(&mut self, event: &dsh::Event) -> Vec<crate::wire::Event> {
        let seq = seq_of(event.session_seq);
        let at = millis_to_text(event.at);
        let mut out = Vec::new();
        let mut items: Vec<(ItemKind, String, Tone)> = Vec::new();
        match &event.body {
            EventBody::Message(message) => self.message(seq, message, &mut items, &mut out),
            EventBody::Execution(execution) => {
                let phase = &execution.phase;
                let turn = execution.turn.map(|t| format!(" {t}")).unwrap_or_default();
                match phase {
                    ExecutionPhase::TurnStart => {
                        items.push((
                            ItemKind::Notice,
                            format!("Turn{turn} started."),
                            Tone::Plain,
                        ));
                        // A turn waiting on the desktop cannot be followed by a new one.
                        self.close_where(seq, "a new turn started", |_| true, &mut out);
                    }
                    ExecutionPhase::TurnForked => items.push((
                        ItemKind::Notice,
                        format!("Turn{turn} was forked."),
                        Tone::Plain,
                    )),
                    p if p.ends_turn() => {
                        let how = p.as_str().trim_start_matches("turn-");
                        let error = execution
                            .error
                            .as_ref()
                            .map(|e| format!(": {}", e.summary()))
                            .unwrap_or_default();
                        let tone = if *p == ExecutionPhase::TurnFailed {
                            Tone::Danger
                        } else {
                            Tone::Plain
                        };
                        items.push((ItemKind::Notice, format!("Turn{turn} {how}{error}."), tone));
                        self.close_where(seq, "the turn ended", |_| true, &mut out);
                    }
                    ExecutionPhase::StepStart | ExecutionPhase::StepEnd => {
                        let step = execution.step.map(|s| format!(" {s}")).unwrap_or_default();
                        let what = if *phase == ExecutionPhase::StepStart {
                            "started"
                        } else {
                            "ended"
                        };
                        items.push((
                            ItemKind::Notice,
                            format!("Step{step} of turn{turn} {what}."),
                            Tone::Plain,
                        ));
                    }
                    ExecutionPhase::ToolCall => {
                        let tool = execution.tool.as_deref().unwrap_or("a tool");
                        let call = call_label(execution.call_id.as_deref());
                        let arguments = execution
                            .arguments_preview
                            .as_deref()
                            .map(|a| format!("\n{a}"))
                            .unwrap_or_default();
                        items.push((
                            ItemKind::Notice,
                            format!("Tool call {tool}{call}{arguments}"),
                            Tone::Plain,
                        ));
                    }
                    ExecutionPhase::ToolResult => {
                        let call = call_label(execution.call_id.as_deref());
                        let failed = execution.failed == Some(true);
                        let head = if failed {
                            let error = execution
                                .error
                                .as_ref()
                                .map_or_else(|| "no error code given".into(), |e| e.summary());
                            format!("Tool result{call}: failed, {error}")
                        } else {
                            format!("Tool result{call}: ok")
                        };
                        let output = execution
                            .output_preview
                            .as_deref()
                            .map(|o| format!("\n{o}"))
                            .unwrap_or_default();
                        let tone = if failed { Tone::Danger } else { Tone::Plain };
                        items.push((ItemKind::Notice, format!("{head}{output}"), tone));
                        if let Some(call_id) = execution.call_id.clone() {
                            self.close_where(
                                seq,
                                "the tool went on",
                                |open| open.key == call_id,
                                &mut out,
                            );
                        }
                    }
                    ExecutionPhase::RequestHeader => {
                        let (line, tone) = self.request_header(execution);
                        items.push((ItemKind::Notice, line, tone));
                    }
                    ExecutionPhase::ModelSelection => {
                        let selected = execution.selected_config.as_ref().map_or_else(
                            || "a model the bridge did not name".into(),
                            |c| c.label(),
                        );
                        items.push((
                            ItemKind::Notice,
                            format!("The session switched to {selected}."),
                            Tone::Plain,
                        ));
                    }
                    other => items.push((
                        ItemKind::Notice,
                        format!("Execution event {other} ({}).", event.session_event_type),
                        Tone::Plain,
                    )),
                }
            }
            EventBody::Permission(permission) => {
                let key = permission
                    .call_id
                    .clone()
                    .unwrap_or_else(|| format!("seq-{}", event.session_seq));
                let input = permission.phase == PermissionPhase::InputRequested;
                let (title, line) = match &permission.phase {
                    PermissionPhase::InputRequested => {
                        let question = permission
                            .question
                            .as_deref()
                            .unwrap_or("(no question given)");
                        (
                            format!("Answer on the desktop: {question}"),
                            format!(
                                "The session waits for an answer: {question}\nAnswer it on the desktop; the bridge offers no way to answer from here."
                            ),
                        )
                    }
                    PermissionPhase::ApprovalRequested => {
                        let tool = permission.tool.as_deref().unwrap_or("a tool");
                        let reason = permission
                            .reason
                            .as_deref()
                            .map(|r| format!(" ({r})"))
                            .unwrap_or_default();
                        (
                            format!("Approve on the desktop: {tool}{reason}"),
                            format!(
                                "The session waits for approval of {tool}{reason}.\nApprove or deny it on the desktop; the bridge never approves and offers no way to approve from here."
                            ),
                        )
                    }
                    PermissionPhase::Unknown(word) => (
                        format!("Look at the desktop: {word}"),
                        format!("The session waits on the desktop ({word})."),
                    ),
                };
                items.push((ItemKind::Notice, line, Tone::Plain));
                if !self.open.iter().any(|open| open.key == key) {
                    let ask = self.desktop_ask(&key, title, at.clone(), permission);
                    let mut ask_event = crate::wire::Event::new(seq, EventType::Ask);
                    ask_event.ask = Some(ask.clone());
                    out.push(ask_event);
                    self.open.push(OpenAsk { key, input, ask });
                }
            }
            EventBody::Status(status) => {
                let tone = if status.phase == StatusPhase::FollowerFailed {
                    Tone::Danger
                } else {
                    Tone::Plain
                };
                let line = match &status.phase {
                    StatusPhase::AssistantStreaming => "The assistant is writing…".to_string(),
                    StatusPhase::StreamEnded => "The assistant's stream ended.".to_string(),
                    StatusPhase::FollowerFailed => format!(
                        "The bridge stopped following this session: {}.",
                        status
                            .error
                            .as_ref()
                            .map_or_else(|| "no reason given".into(), |e| e.summary())
                    ),
                    StatusPhase::Title => match status.title.as_deref() {
                        Some(title) if !title.is_empty() => {
                            self.title = Some(title.to_string());
                            format!("The session is named “{title}”.")
                        }
                        _ => "The session's title was cleared.".to_string(),
                    },
                    other => format!("Status: {other}."),
                };
                items.push((ItemKind::Notice, line, tone));
            }
            EventBody::Log(log) => {
                let summary = log
                    .summary
                    .as_deref()
                    .map(|s| format!(": {s}"))
                    .unwrap_or_default();
                items.push((
                    ItemKind::Notice,
                    format!("Host event {}{summary}", event.session_event_type),
                    Tone::Plain,
                ));
                // The real bridge passes the desktop's reply to a wait through as a `log`
                // event (`approval/replied`): the wait it names is over.
                if is_desktop_reply(&event.session_event_type) {
                    let call_id = log
                        .data
                        .get("callId")
                        .and_then(serde_json::Value::as_str)
                        .map(str::to_string);
                    let decision = log
                        .data
                        .get("decision")
                        .and_then(serde_json::Value::as_str)
                        .map(|d| format!(" ({d})"))
                        .unwrap_or_default();
                    let why = format!("answered on the desktop{decision}");
                    match call_id {
                        Some(call_id) => {
                            self.close_where(seq, &why, |open| open.key == call_id, &mut out)
                        }
                        None => self.close_where(seq, &why, |open| !open.input, &mut out),
                    }
                }
            }
            EventBody::Unknown { kind, .. } => items.push((
                ItemKind::Notice,
                format!(
                    "An event of kind \"{kind}\" ({}) that this phone does not show.",
                    event.session_event_type
                ),
                Tone::Plain,
            )),
        }
        if !event.unread.is_empty() {
            let parts: Vec<String> = event.unread.iter().take(3).map(|u| u.to_string()).collect();
            items.push((
                ItemKind::Notice,
                format!(
                    "Part of this event could not be read and was left out: {}.",
                    parts.join("; ")
                ),
                Tone::Plain,
            ));
        }
        let mut events: Vec<crate::wire::Event> = items
            .into_iter()
            .enumerate()
            .map(|(index, (kind, text, tone))| {
                let id = if index == 0 {
                    format!("e{}", event.session_seq)
                } else {
                    format!("e{}-{index}", event.session_seq)
                };
                let mut item = Item::text(id, kind, text).with_tone(tone);
                item.at = at.clone();
                item_event(seq, item)
            })
            .collect();
        events.append(&mut out);
        self.note_state(seq, &mut events);
        clean_events(events)
    }

    fn message(
        &mut self,
        seq: u64,
        message: &MessageEvent,
        items: &mut Vec<(ItemKind, String, Tone)>,
        out: &mut Vec<crate::wire::Event>,
    ) {
        match &message.role {
            Role::User => {
                items.push((ItemKind::User, message.text.clone(), Tone::Plain));
                self.close_where(seq, "a message was sent", |open| open.input, out);
            }
            Role::Assistant => {
                items.push((ItemKind::Reply, message.text.clone(), Tone::Plain));
                let mut meta = Vec::new();
                // The real bridge: `modelId` is the model, `model` its provider.
                match (&message.model_id, &message.model) {
                    (Some(model), Some(provider)) if model != provider => {
                        meta.push(format!("model {model} ({provider})"))
                    }
                    (Some(model), _) | (None, Some(model)) => meta.push(format!("model {model}")),
                    (None, None) => {}
                }
                if let Some(usage) = &message.usage {
                    let mut parts = Vec::new();
                    for (label, value) in [
                        ("in", usage.input_tokens),
                        ("cached", usage.cached_input_tokens),
                        ("out", usage.output_tokens),
                        ("reasoning", usage.reasoning_tokens),
                        ("total", usage.total_tokens),
                    ] {
                        if let Some(value) = value {
                            parts.push(format!("{value} {label}"));
                        }
                    }
                    if !parts.is_empty() {
                        meta.push(format!("tokens {}", parts.join(", ")));
                    }
                }
                if message.interrupted == Some(true) {
                    meta.push("interrupted".into());
                }
                if !meta.is_empty() {
                    items.push((ItemKind::Notice, meta.join(" · "), Tone::Plain));
                }
            }
            Role::Unknown(role) => {
                items.push((
                    ItemKind::Notice,
                    format!("{role}: {}", message.text),
                    Tone::Plain,
                ));
            }
        }
    }

    /// The config a request really used, next to the one the task asked for (seed §3).
    fn request_header(&self, execution: &dsh::ExecutionEvent) -> (String, Tone) {
        let Some(observed) = &execution.observed_config else {
            return (
                "A request went out; the bridge did not say with which model.".into(),
                Tone::Plain,
            );
        };
        let mut tone = Tone::Plain;
        let mut line = format!("The request used {}.", observed.label());
        if let Some(requested) = &self.requested {
            let differs = |asked: &Option<String>, used: &Option<String>| {
                asked.is_some() && used.is_some() && asked != used
            };
            if differs(&requested.provider, &observed.provider)
                || differs(&requested.model, &observed.model)
                || differs(&requested.reasoning_effort, &observed.reasoning_effort)
            {
                line.push_str(&format!(
                    " The task asked for {}: they differ.",
                    requested.label()
                ));
                tone = Tone::Caution;
            } else {
                line.push_str(&format!(" The task asked for {}.", requested.label()));
            }
        }
        (line, tone)
    }

    fn desktop_ask(
        &self,
        key: &str,
        title: String,
        at: Option<String>,
        permission: &dsh::PermissionEvent,
    ) -> Ask {
        let (text, permission_body) = match permission.phase {
            PermissionPhase::InputRequested => (
                Some(TextBody {
                    prompt: permission.question.clone(),
                    placeholder: None,
                    multiline: false,
                }),
                None,
            ),
            _ => (
                None,
                Some(PermissionBody {
                    tool: permission.tool.clone().unwrap_or_default(),
                    arguments: serde_json::json!({
                        "reason": permission.reason,
                        "callId": permission.call_id,
                    }),
                    options: Vec::new(),
                }),
            ),
        };
        Ask {
            id: crate::wire::ask_id(&self.pane_id, key),
            revision: 1,
            kind: AskKind::Unknown(DESKTOP_ASK_KIND.into()),
            title,
            opened_at: at.map(crate::wire::Stamp::new),
            expires_at: None,
            permission: permission_body,
            choice: None,
            text,
            form: None,
            words_altered: false,
        }
    }

    fn close_where(
        &mut self,
        seq: u64,
        why: &str,
        which: impl Fn(&OpenAsk) -> bool,
        out: &mut Vec<crate::wire::Event>,
    ) {
        let (closing, open): (Vec<OpenAsk>, Vec<OpenAsk>) =
            std::mem::take(&mut self.open).into_iter().partition(which);
        self.open = open;
        for closed in closing {
            let mut event = crate::wire::Event::new(seq, EventType::AskClosed);
            event.ask_id = Some(closed.ask.id.clone());
            event.title = Some(closed.ask.title.clone());
            event.outcome = Some(Outcome {
                summary: format!("No longer waiting: {why}"),
                ..Outcome::default()
            });
            out.push(event);
        }
    }

    /// Adds a state event when the pane's state changed since it was last shown.
    fn note_state(&mut self, seq: u64, out: &mut Vec<crate::wire::Event>) {
        let state = self.state();
        if state != self.shown_state {
            self.shown_state = state.clone();
            let mut event = crate::wire::Event::new(seq, EventType::State);
            event.state = Some(state);
            out.push(event);
        }
    }
}

/// The pane of a session no task follows yet (seed GET /sessions): it can be adopted with
/// `tasks/create` + `sessionId`.
pub fn session_pane_id(session_id: &str) -> String {
    format!("session:{session_id}")
}

/// The session id of a pane made by [`session_pane_id`].
pub fn session_of_pane(pane_id: &str) -> Option<&str> {
    pane_id.strip_prefix("session:")
}

/// True for the host events that carry the desktop's reply to a wait (`approval/replied`,
/// and the same words for questions).
fn is_desktop_reply(session_event_type: &str) -> bool {
    matches!(
        session_event_type,
        "approval/replied" | "approval/answered" | "question/replied" | "question/answered"
    )
}

/// The state word of a session pane.
pub(crate) const NOT_ADOPTED: &str = "not adopted";

fn call_label(call_id: Option<&str>) -> String {
    call_id.map(|c| format!(" ({c})")).unwrap_or_default()
}

fn seq_of(session_seq: i64) -> u64 {
    u64::try_from(session_seq).unwrap_or(0)
}

fn item_event(seq: u64, item: Item) -> crate::wire::Event {
    let mut event = crate::wire::Event::new(seq, EventType::Item);
    event.at = item.at.clone();
    event.item = Some(item);
    event
}

/// Milliseconds since the epoch as the wire's RFC 3339 text; none for 0 or out of range.
pub(crate) fn millis_to_text(millis: i64) -> Option<String> {
    if millis <= 0 {
        return None;
    }
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .ok()
        .map(crate::wire::time::format)
}

/// Cuts and cleans what the phone will draw (SPEC L1), dropping what its type cannot use.
pub(crate) fn clean_events(mut events: Vec<crate::wire::Event>) -> Vec<crate::wire::Event> {
    let mut report = Report::default();
    let mut index = 0;
    events.retain_mut(|event| {
        let keep = event.sanitize(&format!("dsh[{index}]"), &mut report);
        index += 1;
        keep
    });
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(status: &str) -> TaskView {
        serde_json::from_value(serde_json::json!({
            "taskId": "t1", "workspaceId": "w", "sessionId": "s1", "status": status,
            "requestedConfig": {"provider": "p", "model": "m", "reasoningEffort": "high"}
        }))
        .expect("task")
    }

    fn event(json: serde_json::Value) -> dsh::Event {
        serde_json::from_value(json).expect("event")
    }

    fn texts(events: &[crate::wire::Event]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| e.item.as_ref().map(|i| i.text.clone()))
            .collect()
    }

    #[test]
    fn d3_status_maps_to_pane_state() {
        assert_eq!(TaskPane::new(&task("running")).state(), PaneState::Running);
        assert_eq!(TaskPane::new(&task("idle")).state(), PaneState::Idle);
        assert_eq!(
            TaskPane::new(&task("starting")).state(),
            PaneState::Starting
        );
        assert_eq!(
            TaskPane::new(&task("attention")).state(),
            PaneState::Unknown("attention".into())
        );
    }

    #[test]
    fn d6_permission_wait_is_a_desktop_ask_closed_by_the_tool_result() {
        let mut pane = TaskPane::new(&task("attention"));
        let opened = pane.take(&event(serde_json::json!({
            "taskId": "t1", "sessionSeq": 7, "at": 1, "sessionEventType": "approval/asked",
            "kind": "permission", "phase": "approval-requested", "tool": "shell", "callId": "c1"
        })));
        let ask = opened.iter().find_map(|e| e.ask.clone()).expect("an ask");
        assert_eq!(ask.kind, AskKind::Unknown(DESKTOP_ASK_KIND.into()));
        assert!(!ask.is_answerable());
        assert!(ask.title.contains("desktop"));
        assert_eq!(pane.state(), PaneState::Waiting);
        assert!(opened.iter().any(|e| e.state == Some(PaneState::Waiting)));
        let closed = pane.take(&event(serde_json::json!({
            "taskId": "t1", "sessionSeq": 8, "at": 2, "sessionEventType": "tool/result",
            "kind": "execution", "phase": "tool-result", "callId": "c1", "failed": true,
            "error": {"code": "EACCES", "message": "denied"}
        })));
        assert!(closed.iter().any(|e| e.kind == EventType::AskClosed));
        assert!(texts(&closed)[0].contains("failed, EACCES: denied"));
        assert!(pane.asks().is_empty());
    }

    #[test]
    fn d4_request_header_flags_a_different_model() {
        let mut pane = TaskPane::new(&task("running"));
        let events = pane.take(&event(serde_json::json!({
            "taskId": "t1", "sessionSeq": 3, "at": 1, "sessionEventType": "request",
            "kind": "execution", "phase": "request-header",
            "observedConfig": {"provider": "p", "model": "other", "reasoningEffort": "high"}
        })));
        let text = &texts(&events)[0];
        assert!(text.contains("p/other (high)"), "{text}");
        assert!(text.contains("they differ"), "{text}");
    }

    #[test]
    fn d4_assistant_message_with_model_and_usage() {
        let mut pane = TaskPane::new(&task("running"));
        let events = pane.take(&event(serde_json::json!({
            "taskId": "t1", "sessionSeq": 4, "at": 1_700_000_000_000_i64,
            "sessionEventType": "m", "kind": "message", "role": "assistant", "text": "Done.",
            "model": "m", "usage": {"inputTokens": 10, "outputTokens": 2}
        })));
        assert_eq!(texts(&events), ["Done.", "model m · tokens 10 in, 2 out"]);
        let first = events[0].item.as_ref().expect("item");
        assert_eq!(first.kind, ItemKind::Reply);
        assert_eq!(first.at.as_deref(), Some("2023-11-14T22:13:20Z"));
    }

    #[test]
    fn d4_gap_is_shown_once() {
        let mut pane = TaskPane::new(&task("idle"));
        let gap = pane.gap(40).expect("a gap");
        assert!(gap.item.expect("item").text.contains("before #40"));
        assert!(pane.gap(40).is_none());
    }

    #[test]
    fn a_cancel_that_leaves_the_task_idle_keeps_the_wait_until_the_desktop_replies() {
        let mut pane = TaskPane::new(&task("running"));
        pane.take(&event(serde_json::json!({
            "taskId": "t1", "sessionSeq": 1, "at": 1, "sessionEventType": "approval/asked",
            "kind": "permission", "phase": "approval-requested", "tool": "shell",
            "callId": "call-9", "reason": "run rm -rf build/"
        })));
        assert_eq!(pane.asks().len(), 1);
        // The real bridge: cancel during a wait answers accepted, the task goes idle, and no
        // turn-aborted comes. The desktop still waits, so the card stays.
        let events = pane.update_task(&task("idle"));
        assert!(!events.iter().any(|e| e.kind == EventType::AskClosed));
        assert_eq!(pane.asks().len(), 1);
        assert_eq!(pane.state(), PaneState::Waiting);
        // The desktop's reply arrives as a log event naming the call.
        let events = pane.take(&event(serde_json::json!({
            "taskId": "t1", "sessionSeq": 2, "at": 2, "sessionEventType": "approval/replied",
            "kind": "log", "data": {"callId": "call-9", "decision": "denied"}
        })));
        let closed = events
            .iter()
            .find(|e| e.kind == EventType::AskClosed)
            .expect("closed by the reply");
        let summary = &closed.outcome.as_ref().expect("outcome").summary;
        assert!(
            summary.contains("answered on the desktop (denied)"),
            "{summary}"
        );
        assert_eq!(pane.state(), PaneState::Idle);
    }

    #[test]
    fn a_wait_left_open_by_the_history_stays_open_after_it() {
        let mut pane = TaskPane::new(&task("idle"));
        pane.take(&event(serde_json::json!({
            "taskId": "t1", "sessionSeq": 2, "at": 1, "sessionEventType": "turn/start",
            "kind": "execution", "phase": "turn-start", "turn": 1
        })));
        pane.take(&event(serde_json::json!({
            "taskId": "t1", "sessionSeq": 3, "at": 1, "sessionEventType": "approval/asked",
            "kind": "permission", "phase": "approval-requested", "tool": "shell", "callId": "call-9"
        })));
        pane.settle_history();
        assert_eq!(pane.asks().len(), 1);
        assert_eq!(pane.state(), PaneState::Waiting);
    }

    #[test]
    fn the_session_title_names_the_pane_and_the_model_is_the_model_id() {
        let mut pane = TaskPane::new(&task("idle"));
        pane.take(&event(serde_json::json!({
            "taskId": null, "sessionSeq": 4, "at": 1, "sessionEventType": "session/title",
            "kind": "status", "phase": "title", "title": "Parser work"
        })));
        assert_eq!(pane.title.as_deref(), Some("Parser work"));
        let events = pane.take(&event(serde_json::json!({
            "taskId": "t1", "sessionSeq": 5, "at": 1, "sessionEventType": "assistant/message",
            "kind": "message", "role": "assistant", "text": "ok",
            "model": "deepseek-account", "modelId": "deepseek-flash"
        })));
        assert_eq!(
            texts(&events),
            ["ok", "model deepseek-flash (deepseek-account)"]
        );
    }
}
