//! `GET /session/v1/pane/:id/events?after=N&epoch=E` (SPEC W5, H5, L, A1–A7).

use serde::{Deserialize, Serialize};

use super::ask::{Ask, DecidedBy, Outcome};
use super::id::check_id;
use super::item::{Item, sanitize_items};
use super::kind::open_enum;
use super::limits::{
    MAX_EVENTS_PER_REPLY, MAX_OPEN_ASKS_PER_PANE, MAX_SHORT, MAX_TITLE, MAX_VIEW_ITEMS,
};
use super::sanitize::{ChangeKind, Lines, Report, cap, clean, clean_opt};
use super::snapshot::{PaneState, Turn};

open_enum! {
    /// The type of one pane event (SPEC V2: unknown types are skipped).
    EventType {
        Item => "item",
        Turn => "turn",
        State => "state",
        Ask => "ask",
        AskChanged => "ask-changed",
        AskClosed => "ask-closed",
    }
}

/// The reply of the events route. Either a run of events after the reader's cursor, or, when
/// the reader's epoch is not the agent's or its cursor fell behind, the pane's whole current
/// view in `view` (SPEC H5, L).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventsReply {
    pub epoch: String,
    /// The `after` to send next time: the seq of the last event this reply covers.
    pub cursor: u64,
    /// At most 1000 (SPEC L), oldest first. Empty when `view` is present.
    #[serde(default)]
    pub events: Vec<Event>,
    /// True when more events wait past `cursor`: read again at once.
    #[serde(default)]
    pub more: bool,
    /// Present when the reader must drop what it has of this pane and take this instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<PaneView>,
}

/// A pane's whole current view (SPEC H5): at most the 2000 newest items and the open asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneView {
    pub state: PaneState,
    #[serde(default)]
    pub turn: Option<Turn>,
    #[serde(default)]
    pub items: Vec<Item>,
    #[serde(default)]
    pub asks: Vec<Ask>,
}

/// One pane event. Which fields are present depends on `type` (see docs/WIRE.md):
/// `item` → item; `turn` → turn; `state` → state; `ask` and `ask-changed` → ask;
/// `ask-closed` → askId, title, `by` or `decidedBy`, outcome (SPEC A4–A6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    pub seq: u64,
    #[serde(rename = "type")]
    pub kind: EventType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<Item>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<Turn>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<PaneState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<Ask>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask_id: Option<String>,
    /// The closed ask's title, for the chat line of SPEC A5/A6.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `"phone"` when a phone's answer closed the ask (SPEC A4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// Set when the agent decided the ask itself (SPEC A5, A6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<DecidedBy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
}

impl Event {
    pub fn new(seq: u64, kind: EventType) -> Self {
        Self {
            seq,
            kind,
            at: None,
            item: None,
            turn: None,
            state: None,
            ask: None,
            ask_id: None,
            title: None,
            by: None,
            decided_by: None,
            outcome: None,
        }
    }

    /// Cleans the event; returns false when it lacks what its type needs and must be skipped.
    pub fn sanitize(&mut self, path: &str, report: &mut Report) -> bool {
        clean_opt(
            &mut self.at,
            MAX_SHORT,
            Lines::Single,
            format!("{path}.at"),
            report,
        );
        clean_opt(
            &mut self.title,
            MAX_TITLE,
            Lines::Single,
            format!("{path}.title"),
            report,
        );
        clean_opt(
            &mut self.by,
            MAX_SHORT,
            Lines::Single,
            format!("{path}.by"),
            report,
        );
        if let Some(outcome) = &mut self.outcome {
            outcome.sanitize(format!("{path}.outcome"), report);
        }
        // Fields that do not belong to this type are dropped unread, so nothing uncleaned can
        // reach the screen through them (SPEC L1, V2).
        let kind = self.kind.clone();
        if kind != EventType::Item {
            self.item = None;
        }
        if kind != EventType::Turn {
            self.turn = None;
        }
        if kind != EventType::State {
            self.state = None;
        }
        if !matches!(kind, EventType::Ask | EventType::AskChanged) {
            self.ask = None;
        }
        if kind != EventType::AskClosed {
            self.ask_id = None;
            self.by = None;
            self.decided_by = None;
            self.outcome = None;
            self.title = None;
        }
        let usable = match self.kind {
            EventType::Item => match &mut self.item {
                Some(item) => item.sanitize(&format!("{path}.item"), report),
                None => false,
            },
            EventType::Turn => self.turn.as_ref().is_some_and(|t| check_id(&t.id).is_ok()),
            EventType::State => self.state.is_some(),
            EventType::Ask | EventType::AskChanged => match &mut self.ask {
                Some(ask) => ask.sanitize(format!("{path}.ask"), report),
                None => false,
            },
            EventType::AskClosed => self
                .ask_id
                .as_deref()
                .is_some_and(|id| check_id(id).is_ok()),
            EventType::Unknown(_) => true,
        };
        if !usable {
            report.note(path, ChangeKind::Dropped);
        }
        usable
    }
}

impl EventsReply {
    /// Cuts, cleans and caps (SPEC L, L1): 1000 events, 2000 newest view items, 50 asks.
    pub fn sanitize(&mut self, report: &mut Report) {
        clean(
            &mut self.epoch,
            super::limits::MAX_EPOCH,
            Lines::Single,
            "epoch",
            report,
        );
        cap(&mut self.events, MAX_EVENTS_PER_REPLY, "events", report);
        let mut index = 0;
        self.events.retain_mut(|event| {
            let keep = event.sanitize(&format!("events[{index}]"), report);
            index += 1;
            keep
        });
        if let Some(view) = &mut self.view {
            // The view keeps the newest items, unlike other lists (SPEC L).
            if view.items.len() > MAX_VIEW_ITEMS {
                let extra = view.items.len() - MAX_VIEW_ITEMS;
                view.items.drain(..extra);
                report.note("view.items", ChangeKind::Capped);
            }
            sanitize_items(&mut view.items, "view.items", report);
            cap(&mut view.asks, MAX_OPEN_ASKS_PER_PANE, "view.asks", report);
            let mut index = 0;
            view.asks.retain_mut(|ask| {
                let keep = ask.sanitize(format!("view.asks[{index}]"), report);
                index += 1;
                keep
            });
            if let Some(turn) = &view.turn
                && check_id(&turn.id).is_err()
            {
                view.turn = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn v2_unknown_event_type_is_kept_as_unknown() {
        let mut reply: EventsReply = serde_json::from_value(json!({
            "epoch": "e", "cursor": 2,
            "events": [{"seq": 1, "type": "weather", "sky": "blue"},
                       {"seq": 2, "type": "item", "item": {"id": "i", "kind": "reply", "text": "hi"}}]
        }))
        .expect("decodes");
        let mut report = Report::default();
        reply.sanitize(&mut report);
        assert_eq!(reply.events.len(), 2);
        assert_eq!(reply.events[0].kind, EventType::Unknown("weather".into()));
    }

    #[test]
    fn h5_view_keeps_newest_2000_items() {
        let items: Vec<_> = (0..2100)
            .map(|i| json!({"id": format!("i{i}"), "kind": "reply", "text": "x"}))
            .collect();
        let mut reply: EventsReply = serde_json::from_value(json!({
            "epoch": "e", "cursor": 9, "events": [],
            "view": {"state": "idle", "items": items, "asks": []}
        }))
        .expect("decodes");
        let mut report = Report::default();
        reply.sanitize(&mut report);
        let view = reply.view.expect("view");
        assert_eq!(view.items.len(), 2000);
        assert_eq!(view.items[0].id, "i100");
    }
}
