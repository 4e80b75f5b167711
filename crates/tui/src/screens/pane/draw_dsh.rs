//! What a DSH bridge's pane shows beyond a Collie pane (SPEC D2–D6): the task's last turn in
//! the heading, a line with its preset and the requested config next to the one the desktop
//! really used (a difference highlighted), a stopped task or a desktop reload, the kind and mode
//! of the next message on the input box, and the receipt of the last action with its request id.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::dsh_tasks::{dsh_intent_parts, dsh_verb};
use crate::app::keymap::{Action, Context, Hint};
use crate::app::phone::Phone;
use crate::dsh_wire::ModelConfig;
use crate::engine::{IntentRecord, IntentState};
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::model::dsh_state::DshView;
use crate::model::intents;
use crate::screens::pane::dsh::MAX_BRIDGE_MESSAGE;
use crate::screens::pane::keys;
use crate::screens::{PaneFocus, PaneScreen};
use crate::ui::put;

/// The footer's hints on a bridge's pane; None on a Collie pane.
pub(crate) fn hints(
    phone: &Phone,
    screen: &PaneScreen,
    context: Context,
) -> Option<&'static [Hint]> {
    if !phone.can(&screen.agent).task_actions {
        return None;
    }
    match context {
        c if c == keys::CHAT && DshView::is_session_pane(&screen.pane) => Some(&[
            (Action::Up, "scroll", "scroll"),
            (Action::Back, "back", "back"),
            (Action::Help, "help", "help"),
        ]),
        c if c == keys::CHAT => Some(&[
            (Action::FocusInput, "type", "type"),
            (Action::MessageKind, "kind", "kind"),
            (Action::SendMode, "mode", "mode"),
            (Action::OpenAsk, "wait", "wait"),
            (Action::Abort, "cancel turn", "cancel"),
            (Action::Close, "close task", "close"),
            (Action::Back, "back", "back"),
            (Action::Help, "help", "help"),
        ]),
        c if c == keys::INPUT => Some(&[
            (Action::Send, "send", "send"),
            (Action::MessageKind, "kind", "kind"),
            (Action::SendMode, "mode", "mode"),
            (Action::Back, "leave", "leave"),
            (Action::Newline, "new line", "newline"),
        ]),
        _ => None,
    }
}

/// The heading's words after the state: the task's last turn, or what a session pane is.
pub(crate) fn turn_words(phone: &Phone, screen: &PaneScreen) -> Option<String> {
    let view = phone.dsh_view(&screen.agent)?;
    if DshView::is_session_pane(&screen.pane) {
        return Some("a desktop session no task follows (read-only)".into());
    }
    let task = view.task(&screen.pane)?;
    // The real bridge's lastTurn is `{turn, reason, at}` (reason: completed, aborted, error,
    // …); a phase word is read too, from bridges that send one.
    let turn = task.last_turn.as_ref().and_then(|last| {
        let how = match (&last.reason, &last.phase) {
            (Some(reason), _) => match reason.as_str() {
                "error" => "failed".to_string(),
                "max-tokens" => "truncated".to_string(),
                other => other.trim_start_matches("turn-").to_string(),
            },
            (None, Some(phase)) if phase.as_str() == "turn-start" => "started".to_string(),
            (None, Some(phase)) => phase.as_str().trim_start_matches("turn-").to_string(),
            (None, None) => return None,
        };
        let number = last.turn.map(|t| format!(" {t}")).unwrap_or_default();
        Some(format!("turn{number} {how}"))
    });
    let rounds = match task.rounds.len() {
        0 => String::new(),
        1 => " · 1 round".into(),
        n => format!(" · {n} rounds"),
    };
    Some(format!(
        "{}{rounds}",
        turn.unwrap_or_else(|| "no turn yet".into())
    ))
}

fn config_words(config: &ModelConfig) -> String {
    config.label()
}

/// The line where a Collie pane has its belt: what the task runs with, and anything the person
/// must know first (stopped, desktop reloaded).
pub(crate) fn info_line(
    phone: &Phone,
    screen: &PaneScreen,
    theme: &Theme,
) -> Option<Line<'static>> {
    let view = phone.dsh_view(&screen.agent)?;
    if DshView::is_session_pane(&screen.pane) {
        return Some(Line::from(Span::styled(
            "Read-only: adopt this session on the New page to write to it.",
            theme.dim,
        )));
    }
    // Why the last action was refused or may not have arrived, in the bridge's words: the
    // status line below has room only for its code.
    if phone
        .intents()
        .pane_pending(&screen.agent, &screen.pane)
        .is_none()
        && let Some(record) = phone.intents().latest_for_pane(&screen.agent, &screen.pane)
        && let (_, Some(detail)) = dsh_intent_parts(record)
        && !healed_since(phone, &screen.agent, record)
    {
        return Some(Line::from(Span::styled(
            detail,
            receipt_style(&record.state, theme),
        )));
    }
    if let Some(why) = view.stopped.get(&screen.pane) {
        return Some(Line::from(Span::styled(
            format!(
                "Stopped: the phone no longer addresses this task ({why}). Check it on the desktop."
            ),
            theme.danger,
        )));
    }
    let mut spans: Vec<Span<'static>> = Vec::new();
    let Some(task) = view.task(&screen.pane) else {
        spans.push(Span::styled(
            "This task is not among the bridge's open tasks.",
            theme.dim,
        ));
        return Some(Line::from(spans));
    };
    match (&task.requested_config, &task.observed_config) {
        (Some(asked), Some(used))
            if differs(asked, used)
                && asked.provider == used.provider
                && asked.model == used.model =>
        {
            // Only the effort differs: name the model once so the difference fits at 80.
            spans.push(Span::styled(
                format!(
                    "{}/{} · effort asked ",
                    asked.provider.as_deref().unwrap_or("?"),
                    asked.model.as_deref().unwrap_or("?")
                ),
                theme.dim,
            ));
            spans.push(Span::styled(
                asked.reasoning_effort.clone().unwrap_or_default(),
                theme.text,
            ));
            spans.push(Span::styled(", used ", theme.dim));
            spans.push(Span::styled(
                format!("{} ≠", used.reasoning_effort.as_deref().unwrap_or("?")),
                theme.warn,
            ));
        }
        (Some(asked), Some(used)) => {
            let differs = differs(asked, used);
            spans.push(Span::styled("asked ", theme.dim));
            spans.push(Span::styled(config_words(asked), theme.text));
            spans.push(Span::styled(" · used ", theme.dim));
            spans.push(Span::styled(
                config_words(used),
                if differs { theme.warn } else { theme.text },
            ));
            if differs {
                spans.push(Span::styled(" ≠ not what was asked", theme.warn));
            }
        }
        (Some(asked), None) => {
            spans.push(Span::styled("asked ", theme.dim));
            spans.push(Span::styled(config_words(asked), theme.text));
            spans.push(Span::styled(" · nothing sent yet", theme.dim));
        }
        (None, Some(used)) => {
            spans.push(Span::styled("used ", theme.dim));
            spans.push(Span::styled(config_words(used), theme.text));
        }
        (None, None) => spans.push(Span::styled("the desktop's default model", theme.dim)),
    }
    // Last, so a narrow screen cuts it before the models. A preset this phone asked for and
    // the bridge did not use is flagged as the effort is: the person chose it.
    let asked_preset = asked_preset(phone, &screen.agent, &screen.pane);
    match (&asked_preset, &task.agent_preset) {
        (Some(asked), used) if used.as_ref() != Some(asked) => {
            spans.push(Span::styled(
                format!(" · preset asked {asked}, used "),
                theme.dim,
            ));
            spans.push(Span::styled(
                format!("{} ≠", used.as_deref().unwrap_or("none")),
                theme.warn,
            ));
        }
        (_, Some(preset)) => spans.push(Span::styled(format!(" · preset {preset}"), theme.dim)),
        (_, None) => {}
    }
    // The chat says it too, in its place; here it stays for whoever looks later.
    if let Some(reload) = view.last_reload() {
        spans.push(Span::styled(format!(" · {reload}"), theme.warn));
    }
    Some(Line::from(spans))
}

/// True when the words could not be sent because the bridge was not reached, and a poll has
/// gone through since: the cause is gone, so its sentence gives way to the model line (the
/// status line below still says "not sent", and the words are back in the box).
fn healed_since(phone: &Phone, agent: &str, record: &IntentRecord) -> bool {
    if !matches!(record.state, IntentState::NotSent { .. }) {
        return false;
    }
    let synced = phone.agents().get(agent).and_then(|a| a.synced);
    let created = crate::wire::time::parse(&record.created_at);
    matches!((synced, created), (Some(synced), Some(created)) if synced > created)
}

/// True when a field both name differs (a field one leaves out is not a difference).
fn differs(asked: &ModelConfig, used: &ModelConfig) -> bool {
    let one = |a: &Option<String>, b: &Option<String>| a.is_some() && b.is_some() && a != b;
    one(&asked.provider, &used.provider)
        || one(&asked.model, &used.model)
        || one(&asked.reasoning_effort, &used.reasoning_effort)
}

/// The input box's title: the kind and mode the next message goes with.
pub(crate) fn input_title(phone: &Phone, screen: &PaneScreen) -> Option<String> {
    let view = phone.dsh_view(&screen.agent)?;
    if DshView::is_session_pane(&screen.pane) {
        return Some(" Message (adopt the session first) ".into());
    }
    let prefs = view.prefs(&screen.pane);
    Some(format!(" Message · {} · {} ", prefs.kind, prefs.mode))
}

/// The last action of this pane with its request id and state, and the input's size against
/// the bridge's limit. False when the pane is not a bridge's.
pub(crate) fn draw_status(
    frame: &mut Frame<'_>,
    phone: &Phone,
    screen: &PaneScreen,
    area: Rect,
    theme: &Theme,
) -> bool {
    if !phone.can(&screen.agent).message_kinds {
        return false;
    }
    let bytes = phone
        .draft(&screen.agent, &screen.pane)
        .map_or(0, |d| d.byte_len());
    let count = crate::screens::pane::size_against(bytes, MAX_BRIDGE_MESSAGE);

    let count_style = if bytes > MAX_BRIDGE_MESSAGE {
        theme.danger
    } else {
        theme.dim
    };
    let context = if screen.focus == PaneFocus::Input {
        crate::screens::pane::keys::INPUT
    } else {
        crate::screens::pane::keys::CHAT
    };
    let mut spans: Vec<Span<'static>> = Vec::new();
    if let Some(verb) = phone.intents().pane_pending(&screen.agent, &screen.pane) {
        spans.push(Span::styled(format!("{verb}: sending…"), theme.dim));
    } else if let Some(record) = latest_for_task(phone, &screen.agent, &screen.pane) {
        spans.extend(receipt_spans(
            phone,
            record,
            context,
            usize::from(area.width),
            theme,
        ));
    }
    let left_width: usize = spans.iter().map(|s| wrap::width(&s.content)).sum();
    let width = usize::from(area.width);
    // The size gives way to the receipt when both do not fit, unless it is over the limit.
    if left_width + wrap::width(&count) + 2 <= width || bytes > MAX_BRIDGE_MESSAGE {
        let room = width.saturating_sub(left_width + wrap::width(&count) + 1);
        spans.push(Span::raw(" ".repeat(room)));
        spans.push(Span::styled(count, count_style));
    }
    put(frame, area, 0, Line::from(spans));
    true
}

/// The preset this phone asked for when it created the task, if it did.
fn asked_preset(phone: &Phone, agent: &str, pane: &str) -> Option<String> {
    phone
        .intents()
        .latest(|r| {
            r.agent == agent
                && matches!(
                    (&r.kind, &r.state),
                    (
                        crate::engine::IntentKind::DshCreate { .. },
                        IntentState::Done { reply } | IntentState::Replayed { reply }
                    ) if reply.pane_id.as_deref() == Some(pane)
                )
        })
        .and_then(|r| match &r.kind {
            crate::engine::IntentKind::DshCreate { preset, .. } => preset.clone(),
            _ => None,
        })
}

/// The newest action on this task, its create included (whose reply named the task).
fn latest_for_task<'a>(phone: &'a Phone, agent: &str, pane: &str) -> Option<&'a IntentRecord> {
    phone.intents().latest(|r| {
        r.agent == agent
            && (intents::pane_of(&r.kind) == Some(pane)
                || matches!(
                    (&r.kind, &r.state),
                    (
                        crate::engine::IntentKind::DshCreate { .. },
                        IntentState::Done { reply } | IntentState::Replayed { reply }
                    ) if reply.pane_id.as_deref() == Some(pane)
                ))
    })
}

/// The style of a receipt's state.
pub(crate) fn receipt_style(state: &IntentState, theme: &Theme) -> Style {
    match state {
        s if intents::is_in_flight(s) => theme.dim,
        IntentState::Done { .. } => theme.ok,
        IntentState::Replayed { .. } | IntentState::Unknown { .. } | IntentState::MaybeApplied => {
            theme.warn
        }
        _ => theme.danger,
    }
}

/// "send feedback (steer) · req 6f1c… · replayed (already applied) — Ctrl-R resends": the request
/// id in full when it fits, else its first 8 characters.
pub(crate) fn receipt_spans(
    phone: &Phone,
    record: &IntentRecord,
    context: Context,
    width: usize,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let verb = dsh_verb(&record.kind);
    let (words, _) = dsh_intent_parts(record);
    let retry = intents::is_retryable(record)
        .then(|| phone.keymap().key_label(context, Action::Retry))
        .flatten()
        .map(|key| format!(" — {key} resends with the same id"));
    // verb · request ID · words — retry, and room for the size at the right.
    let whole = wrap::width(&verb)
        + 3
        + 8
        + record.request_id.len()
        + 3
        + wrap::width(&words)
        + retry.as_deref().map_or(0, wrap::width)
        + 18;
    let id = if whole <= width {
        record.request_id.clone()
    } else {
        let short: String = record.request_id.chars().take(8).collect();
        format!("{short}…")
    };
    let mut spans = vec![
        Span::styled(format!("{verb} · "), theme.dim),
        Span::styled(format!("request {id} · "), theme.dim),
        Span::styled(words, receipt_style(&record.state, theme)),
    ];
    if let Some(retry) = retry {
        spans.push(Span::styled(retry, theme.accent));
    }
    spans
}
