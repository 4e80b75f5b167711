//! A pane's chat as the phone keeps it: items (at most the 2000 newest, SPEC L), open asks,
//! state and turn, built from events and views (SPEC H5, A1–A6), with the bytes its entries
//! hold counted as they come and go, for the budget over all of an agent's panes (SPEC L2). Pure.

use std::collections::VecDeque;

use crate::wire::{
    Ask, DecidedBy, Event, EventType, Item, Outcome, PaneState, PaneView, Turn, limits,
};

/// How an ask left the open list, for the chat lines of SPEC A5 and A6.
#[derive(Debug, Clone, PartialEq)]
pub struct ClosedAsk {
    pub ask_id: String,
    pub title: String,
    /// None when a phone answered (SPEC A4).
    pub decided_by: Option<DecidedBy>,
    pub outcome: Option<Outcome>,
    /// What was answered, in words: the outcome's summary when it says more than
    /// "answered", else the chosen option's label or the words typed.
    pub answer: Option<String>,
    /// Who answered, as the agent says it (`"phone"` for a phone, SPEC A4).
    pub by: Option<String>,
    /// Where in the chat it closed: the number of items seen before it.
    pub after_items: u64,
}

/// The answer of a closed ask in words: a summary that names it, else the label of the option
/// chosen (read from the ask as it was open), else the words typed, cut to a line.
fn answer_words(outcome: Option<&Outcome>, asked: Option<&Ask>) -> Option<String> {
    let outcome = outcome?;
    let summary = outcome.summary.trim();
    if !summary.is_empty()
        && !summary
            .trim_end_matches('.')
            .eq_ignore_ascii_case("answered")
    {
        return Some(summary.to_string());
    }
    let label = outcome.option_id.as_ref().and_then(|chosen| {
        asked?
            .options()
            .iter()
            .find(|o| &o.id == chosen)
            .map(|o| o.label.clone())
    });
    label.or_else(|| {
        outcome
            .text
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| {
                let first = t.lines().next().unwrap_or_default();
                let cut: String = first.chars().take(60).collect();
                if cut.len() < t.len() {
                    format!("“{cut}…”")
                } else {
                    format!("“{cut}”")
                }
            })
    })
}

/// The note at the top of a chat whose oldest entries were let go to keep its agent within the
/// phone's byte budget (SPEC L2): how many, and the words it shows, made by the layer that
/// knows the keys and whether the agent keeps a history.
#[derive(Debug, Clone, PartialEq)]
pub struct LetGo {
    pub items: u64,
    pub words: String,
}

/// A line of a pane's chat: an item, the note that an ask closed, or the note that older
/// entries were let go (always the first entry when present).
#[derive(Debug, Clone, PartialEq)]
pub enum ChatEntry {
    Item(Item),
    Closed(ClosedAsk),
    LetGo(LetGo),
}

/// The bytes an entry holds that the agent sent, as the budget of SPEC L2 counts them: an
/// item's words (text, link, title, language), a closed ask's title and answer. The phone's own
/// note counts nothing.
pub fn entry_bytes(entry: &ChatEntry) -> usize {
    match entry {
        ChatEntry::Item(item) => item_bytes(item),
        ChatEntry::Closed(closed) => {
            closed.title.len() + closed.answer.as_ref().map_or(0, String::len)
        }
        ChatEntry::LetGo(_) => 0,
    }
}

fn item_bytes(item: &Item) -> usize {
    item.text.len()
        + [&item.url, &item.title, &item.language]
            .into_iter()
            .flatten()
            .map(String::len)
            .sum::<usize>()
}

#[derive(Debug, Clone, Default)]
pub struct PaneLog {
    /// The newest entries, at most [`limits::MAX_VIEW_ITEMS`] besides the let-go note.
    pub entries: VecDeque<ChatEntry>,
    /// Open asks, oldest first (SPEC A2).
    pub asks: Vec<Ask>,
    pub state: Option<PaneState>,
    pub turn: Option<Turn>,
    /// Items seen in all, so a scroll position survives the trimming of old ones.
    pub items_seen: u64,
    /// What [`entry_bytes`] gives over `entries`, kept as entries come, grow and go, so the
    /// budget of SPEC L2 never counts a chat again.
    bytes: usize,
}

impl PaneLog {
    /// The bytes the chat holds (SPEC L2).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Entries let go to the budget so far (SPEC L2); 0 when the chat holds all it was sent.
    pub fn let_go(&self) -> u64 {
        match self.entries.front() {
            Some(ChatEntry::LetGo(note)) => note.items,
            _ => 0,
        }
    }

    /// Drops what was shown and takes the pane's whole current view (SPEC H5).
    pub fn reset(&mut self, view: PaneView) {
        self.entries = view.items.into_iter().map(ChatEntry::Item).collect();
        self.bytes = self.entries.iter().map(entry_bytes).sum();
        self.items_seen = self.entries.len() as u64;
        self.asks = view.asks;
        self.state = Some(view.state);
        self.turn = view.turn;
        self.trim();
    }

    /// Applies events in order. Unknown types are ignored (SPEC V2).
    pub fn apply(&mut self, events: &[Event]) {
        for event in events {
            match &event.kind {
                EventType::Item => {
                    let Some(item) = &event.item else { continue };
                    // An item under an id already shown replaces it in place: an agent's
                    // message growing as it streams (docs/WIRE.md § 5.8).
                    let shown = self.entries.iter_mut().rev().find_map(|entry| match entry {
                        ChatEntry::Item(old) if old.id == item.id => Some(old),
                        _ => None,
                    });
                    match shown {
                        Some(old) => {
                            self.bytes = self.bytes - item_bytes(old) + item_bytes(item);
                            *old = item.clone();
                        }
                        None => {
                            self.push(ChatEntry::Item(item.clone()));
                            self.items_seen += 1;
                        }
                    }
                }
                EventType::Turn => self.turn = event.turn.clone(),
                EventType::State => self.state = event.state.clone(),
                EventType::Ask => {
                    if let Some(ask) = &event.ask
                        && !self.asks.iter().any(|a| a.id == ask.id)
                    {
                        self.asks.push(ask.clone());
                        self.asks.truncate(limits::MAX_OPEN_ASKS_PER_PANE);
                    }
                }
                EventType::AskChanged => {
                    if let Some(ask) = &event.ask
                        && let Some(open) = self.asks.iter_mut().find(|a| a.id == ask.id)
                    {
                        *open = ask.clone();
                    }
                }
                EventType::AskClosed => {
                    let Some(id) = &event.ask_id else { continue };
                    let asked = self.asks.iter().find(|a| &a.id == id);
                    let title = asked
                        .map(|a| a.title.clone())
                        .or_else(|| event.title.clone())
                        .unwrap_or_default();
                    let answer = answer_words(event.outcome.as_ref(), asked);
                    self.asks.retain(|a| &a.id != id);
                    self.push(ChatEntry::Closed(ClosedAsk {
                        ask_id: id.clone(),
                        title,
                        decided_by: if event.by.is_some() {
                            None
                        } else {
                            event.decided_by.clone()
                        },
                        outcome: event.outcome.clone(),
                        answer,
                        by: event.by.clone(),
                        after_items: self.items_seen,
                    }));
                }
                EventType::Unknown(_) => {}
            }
        }
        self.trim();
    }

    fn push(&mut self, entry: ChatEntry) {
        self.bytes += entry_bytes(&entry);
        self.entries.push_back(entry);
    }

    /// Drops the oldest entry, never the let-go note; false when there is none.
    fn pop_oldest(&mut self) -> bool {
        let at = usize::from(matches!(self.entries.front(), Some(ChatEntry::LetGo(_))));
        match self.entries.remove(at) {
            Some(entry) => {
                self.bytes -= entry_bytes(&entry);
                true
            }
            None => false,
        }
    }

    fn trim(&mut self) {
        let note = usize::from(matches!(self.entries.front(), Some(ChatEntry::LetGo(_))));
        let mut over = self
            .entries
            .len()
            .saturating_sub(note + limits::MAX_VIEW_ITEMS);
        while over > 0 && self.pop_oldest() {
            over -= 1;
        }
    }

    /// Lets the oldest entries go until the chat holds at most `bytes` (SPEC L2), and says so
    /// in `words` at its top, where they were; gives the bytes let go.
    pub fn let_go_down_to(&mut self, bytes: usize, words: &str) -> usize {
        let before = self.bytes;
        let mut items = 0;
        while self.bytes > bytes && self.pop_oldest() {
            items += 1;
        }
        if items > 0 {
            let note = LetGo {
                items: self.let_go() + items,
                words: words.to_string(),
            };
            match self.entries.front_mut() {
                Some(ChatEntry::LetGo(old)) => *old = note,
                _ => self.entries.push_front(ChatEntry::LetGo(note)),
            }
        }
        before - self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ItemKind;

    fn item_event(seq: u64) -> Event {
        let mut event = Event::new(seq, EventType::Item);
        event.item = Some(Item::text(format!("i{seq}"), ItemKind::Reply, "hi"));
        event
    }

    #[test]
    fn an_item_sent_again_under_its_id_grows_in_place() {
        let mut log = PaneLog::default();
        let mut first = item_event(1);
        first.item = Some(Item::text("m", ItemKind::Reply, "Hel"));
        let mut other = item_event(2);
        other.item = Some(Item::text("n", ItemKind::Notice, "tool ran"));
        let mut grown = item_event(3);
        grown.item = Some(Item::text("m", ItemKind::Reply, "Hello, world"));
        log.apply(&[first, other, grown]);
        let texts: Vec<&str> = log
            .entries
            .iter()
            .filter_map(|e| match e {
                ChatEntry::Item(i) => Some(i.text.as_str()),
                ChatEntry::Closed(_) | ChatEntry::LetGo(_) => None,
            })
            .collect();
        assert_eq!(texts, ["Hello, world", "tool ran"]);
        assert_eq!(log.items_seen, 2);
    }

    #[test]
    fn l_keeps_the_2000_newest() {
        let mut log = PaneLog::default();
        let events: Vec<Event> = (1..=2500).map(item_event).collect();
        log.apply(&events);
        assert_eq!(log.entries.len(), 2000);
        assert!(matches!(&log.entries[0], ChatEntry::Item(i) if i.id == "i501"));
        assert_eq!(log.items_seen, 2500);
    }

    /// SPEC L2: the running count is what the entries hold, as items come, grow in place, are
    /// trimmed at 2000 and let go, with the note kept first and counting nothing.
    #[test]
    fn l2_the_byte_count_follows_every_change_and_the_note_stays_first() {
        let recount = |log: &PaneLog| log.entries.iter().map(entry_bytes).sum::<usize>();
        let mut log = PaneLog::default();
        let mut grows = item_event(1);
        grows.item = Some(Item::text("m", ItemKind::Reply, "Hel"));
        log.apply(&[grows.clone(), item_event(2)]);
        assert_eq!(log.bytes(), 5);
        grows.item = Some(Item::text("m", ItemKind::Reply, "Hello, world"));
        log.apply(&[grows]);
        assert_eq!((log.bytes(), recount(&log)), (14, 14));

        // Let go down to 3 bytes: "Hello, world" goes, "hi" stays, under the note.
        assert_eq!(log.let_go_down_to(3, "gone"), 12);
        assert_eq!(log.bytes(), 2);
        assert_eq!(log.let_go(), 1);
        assert!(
            matches!(&log.entries[0], ChatEntry::LetGo(note) if note.words == "gone" && note.items == 1)
        );
        assert!(matches!(&log.entries[1], ChatEntry::Item(i) if i.id == "i2"));
        // Nothing over: nothing goes, and the note is not touched.
        assert_eq!(log.let_go_down_to(2, "again"), 0);
        assert!(matches!(&log.entries[0], ChatEntry::LetGo(note) if note.words == "gone"));

        // The 2000 newest items besides the note; the note stays first and counts on.
        let events: Vec<Event> = (3..=2100).map(item_event).collect();
        log.apply(&events);
        assert_eq!(log.entries.len(), 2001);
        assert!(matches!(&log.entries[0], ChatEntry::LetGo(_)));
        assert!(matches!(&log.entries[1], ChatEntry::Item(i) if i.id == "i101"));
        assert_eq!((log.bytes(), recount(&log)), (4000, 4000));
        assert_eq!(log.let_go_down_to(10, "more"), 3990);
        assert_eq!(log.let_go(), 1996);
        assert_eq!((log.bytes(), recount(&log)), (10, 10));
        assert_eq!(log.entries.len(), 6);

        // A whole view starts again: no note, its own count.
        log.reset(PaneView {
            state: PaneState::Idle,
            turn: None,
            items: vec![Item::text("v", ItemKind::Reply, "abc")],
            asks: Vec::new(),
        });
        assert_eq!((log.bytes(), log.let_go()), (3, 0));
    }

    #[test]
    fn a5_a6_closed_asks_leave_a_chat_entry_with_the_title() {
        let mut log = PaneLog::default();
        let ask: Ask = serde_json::from_value(serde_json::json!({
            "id": "a1", "revision": 1, "kind": "text", "title": "Name the branch", "text": {}
        }))
        .expect("ask");
        let mut open = Event::new(1, EventType::Ask);
        open.ask = Some(ask);
        let mut closed = Event::new(2, EventType::AskClosed);
        closed.ask_id = Some("a1".into());
        closed.decided_by = Some(DecidedBy::Timeout);
        log.apply(&[open, closed]);
        assert!(log.asks.is_empty());
        assert!(
            matches!(&log.entries[0], ChatEntry::Closed(c) if c.title == "Name the branch" && c.decided_by == Some(DecidedBy::Timeout))
        );
    }

    /// A phone's answer whose summary only says "Answered" names the option chosen and who
    /// answered (SPEC A4), never "→ Answered".
    #[test]
    fn a4_a_closed_ask_names_its_answer_and_who_gave_it() {
        let mut log = PaneLog::default();
        let ask: Ask = serde_json::from_value(serde_json::json!({
            "id": "a1", "revision": 1, "kind": "choice", "title": "Which strategy?",
            "choice": {"options": [{"id": "o1", "label": "Blue-green"}, {"id": "o2", "label": "Rolling"}]}
        }))
        .expect("ask");
        let mut open = Event::new(1, EventType::Ask);
        open.ask = Some(ask);
        let mut closed = Event::new(2, EventType::AskClosed);
        closed.ask_id = Some("a1".into());
        closed.by = Some("phone".into());
        closed.outcome = Some(
            serde_json::from_value(serde_json::json!({
                "optionId": "o2", "summary": "Answered."
            }))
            .expect("outcome"),
        );
        log.apply(&[open, closed]);
        let ChatEntry::Closed(entry) = &log.entries[0] else {
            panic!("a closed entry")
        };
        assert_eq!(entry.answer.as_deref(), Some("Rolling"));
        assert_eq!(entry.by.as_deref(), Some("phone"));
    }
}
