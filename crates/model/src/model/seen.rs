//! What the person last saw of each pane, and which panes have news since (docs/KEYS.md, "News
//! marks"): a pane whose chat grew, whose turn ended, or that asks something new since the
//! person last looked at it is marked, and looking at it clears the mark. What was seen is kept
//! as a small fingerprint per pane ([`Look`]), which the phone keeps in its state folder so the
//! marks outlive a restart; the glass draws the marks and the runner writes the file. Pure: no
//! terminal, no I/O.

use std::collections::HashMap;

use crate::model::agents::{AgentView, PaneRef};
use crate::wire::TurnState;

/// At most this many panes are remembered (the file stays small; a phone with more panes
/// forgets the ones it heard first and takes them as seen when it meets them again).
pub const MAX_REMEMBERED: usize = 4096;

/// The file is read up to this many bytes; what is beyond it is not the phone's.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;

/// The fingerprint of a pane as the person saw it: stable hashes, so the file names no words
/// of the chat and a phone started again compares the same values.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Look {
    /// The chat's newest item: its id and its size (a message that streams grows in place).
    chat: Option<u64>,
    /// The newest turn, when it has ended.
    turn_ended: Option<u64>,
    /// The open asks.
    asks: Vec<u64>,
}

/// Why a pane is marked, the first that holds in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum News {
    /// It asks something the person has not seen.
    Asks,
    /// Its turn ended since.
    TurnEnded,
    /// Its chat grew since.
    ChatGrew,
}

impl News {
    /// In words, for a pane's row: "asks", "turn ended", "new chat".
    pub fn words(self) -> &'static str {
        match self {
            Self::Asks => "asks",
            Self::TurnEnded => "turn ended",
            Self::ChatGrew => "new chat",
        }
    }
}

impl Look {
    /// The pane as it is now; None until its chat was read (a pane only in the snapshot says
    /// nothing of its chat yet, and taking that as seen would mark it as soon as it is read).
    pub fn of(pane: &PaneRef<'_>) -> Option<Self> {
        let log = pane.log?;
        let chat = log.entries.iter().rev().find_map(|entry| match entry {
            crate::chat::pane_log::ChatEntry::Item(item) => Some(hash(&[
                item.id.as_bytes(),
                &(item.text.len() as u64).to_le_bytes(),
            ])),
            _ => None,
        });
        let turn_ended = pane
            .turn()
            .filter(|turn| turn.state != TurnState::Running)
            .map(|turn| hash(&[turn.id.as_bytes()]));
        let asks = pane
            .asks()
            .iter()
            .map(|ask| hash(&[ask.id.as_bytes()]))
            .collect();
        Some(Self {
            chat,
            turn_ended,
            asks,
        })
    }

    /// What is new in this look against the one the person saw, if anything.
    pub fn news_since(&self, seen: &Look) -> Option<News> {
        if self.asks.iter().any(|ask| !seen.asks.contains(ask)) {
            return Some(News::Asks);
        }
        if self.turn_ended.is_some() && self.turn_ended != seen.turn_ended {
            return Some(News::TurnEnded);
        }
        (self.chat != seen.chat).then_some(News::ChatGrew)
    }
}

/// A pane by its agent's name and its id.
type Key = (String, String);

/// What the person saw of each pane, and the panes with news since.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// The last look of each pane the person saw, or the first the phone had of it.
    looks: HashMap<Key, Look>,
    /// In the order the phone met them, so the oldest go first past [`MAX_REMEMBERED`].
    order: Vec<Key>,
    /// The panes with news, and why.
    news: HashMap<Key, News>,
    /// True when `looks` changed since it was last written.
    changed: bool,
}

fn key(agent: &str, pane: &str) -> Key {
    (agent.to_string(), pane.to_string())
}

impl Seen {
    /// Goes over the panes of `agent` after news of it: a pane met for the first time is taken
    /// as seen as it is (a phone started for the first time marks nothing); the pane on screen
    /// (`on_screen`) is seen as it is now; every other pane is marked when it changed since.
    /// Panes gone from the layout are forgotten.
    pub fn hear(&mut self, agent: &AgentView, on_screen: Option<&str>) {
        let panes = agent.panes();
        for pane in &panes {
            let Some(look) = Look::of(pane) else {
                continue;
            };
            let id = pane.pane.id.as_str();
            if on_screen == Some(id) {
                self.saw(&agent.name, id, look);
                continue;
            }
            let key = key(&agent.name, id);
            match self.looks.get(&key) {
                None => self.remember(key, look),
                Some(seen) => match look.news_since(seen) {
                    Some(news) => {
                        self.news.insert(key, news);
                    }
                    None => {
                        self.news.remove(&key);
                    }
                },
            }
        }
        if agent.snapshot.is_some() {
            let alive: std::collections::HashSet<&str> =
                panes.iter().map(|p| p.pane.id.as_str()).collect();
            let gone = |(a, p): &Key| a == &agent.name && !alive.contains(p.as_str());
            let before = self.looks.len();
            self.looks.retain(|k, _| !gone(k));
            self.order.retain(|k| !gone(k));
            self.news.retain(|k, _| !gone(k));
            self.changed |= self.looks.len() != before;
        }
    }

    /// The person looks at this pane: what it shows now is seen, and its mark goes.
    pub fn look_at(&mut self, agent: &AgentView, pane: &str) {
        if let Some(look) = agent.pane(pane).as_ref().and_then(Look::of) {
            self.saw(&agent.name, pane, look);
        }
    }

    fn saw(&mut self, agent: &str, pane: &str, look: Look) {
        let key = key(agent, pane);
        self.news.remove(&key);
        if self.looks.get(&key) != Some(&look) {
            self.remember(key, look);
        }
    }

    fn remember(&mut self, key: Key, look: Look) {
        if self.looks.insert(key.clone(), look).is_none() {
            self.order.push(key);
            while self.order.len() > MAX_REMEMBERED {
                let oldest = self.order.remove(0);
                self.looks.remove(&oldest);
                self.news.remove(&oldest);
            }
        }
        self.changed = true;
    }

    /// Why this pane is marked, if it is.
    pub fn news(&self, agent: &str, pane: &str) -> Option<News> {
        self.news.get(&key(agent, pane)).copied()
    }

    /// How many of this agent's panes are marked.
    pub fn count(&self, agent: &str) -> usize {
        self.news.keys().filter(|(a, _)| a == agent).count()
    }

    /// True when what was seen changed since the last [`Seen::to_json`].
    pub fn changed(&self) -> bool {
        self.changed
    }

    /// What the phone keeps in its state folder: each pane's last look, as one JSON object.
    /// The file names agents and panes by their names and ids (checked on the wire, SPEC L1)
    /// and holds hashes, no words of any chat.
    pub fn to_json(&mut self) -> String {
        self.changed = false;
        let panes: Vec<serde_json::Value> = self
            .order
            .iter()
            .filter_map(|k| Some((k, self.looks.get(k)?)))
            .map(|((agent, pane), look)| {
                serde_json::json!({
                    "agent": agent,
                    "pane": pane,
                    "chat": look.chat.map(hex),
                    "turn": look.turn_ended.map(hex),
                    "asks": look.asks.iter().copied().map(hex).collect::<Vec<_>>(),
                })
            })
            .collect();
        serde_json::json!({ "version": 1, "panes": panes }).to_string()
    }

    /// What a phone kept before it stopped, read back: whatever in it is not as
    /// [`Seen::to_json`] writes it is left out, so a damaged file marks nothing rather than
    /// stopping the phone. Marks come back as each pane is heard again.
    pub fn from_json(text: &str) -> Self {
        let mut seen = Self::default();
        if text.len() > MAX_FILE_BYTES {
            return seen;
        }
        let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
            return seen;
        };
        if value.get("version").and_then(serde_json::Value::as_u64) != Some(1) {
            return seen;
        }
        let panes = value.get("panes").and_then(serde_json::Value::as_array);
        for pane in panes.into_iter().flatten().take(MAX_REMEMBERED) {
            let text_of = |name: &str| {
                pane.get(name)
                    .and_then(serde_json::Value::as_str)
                    .filter(|s| !s.is_empty() && s.len() <= 256)
            };
            let (Some(agent), Some(id)) = (text_of("agent"), text_of("pane")) else {
                continue;
            };
            let hash_of = |v: &serde_json::Value| v.as_str().and_then(unhex);
            let look = Look {
                chat: pane.get("chat").and_then(hash_of),
                turn_ended: pane.get("turn").and_then(hash_of),
                asks: pane
                    .get("asks")
                    .and_then(serde_json::Value::as_array)
                    .map(|asks| asks.iter().filter_map(hash_of).collect())
                    .unwrap_or_default(),
            };
            let key = key(agent, id);
            if seen.looks.insert(key.clone(), look).is_none() {
                seen.order.push(key);
            }
        }
        seen
    }
}

/// FNV-1a over the parts, each followed by a 0xff byte (no part of ours holds one): stable
/// from one build to the next, which the std hasher does not promise.
fn hash(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.iter().chain(std::iter::once(&0xff)) {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

fn hex(value: u64) -> String {
    format!("{value:016x}")
}

fn unhex(text: &str) -> Option<u64> {
    (text.len() == 16)
        .then(|| u64::from_str_radix(text, 16).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::AgentChange;
    use crate::wire::{Event, EventType, Item, ItemKind, Snapshot, Turn};
    use std::sync::Arc;

    /// An agent "a" with panes p1 and p2 in one tab, both read.
    fn agent() -> AgentView {
        let snapshot: Snapshot = serde_json::from_value(serde_json::json!({
            "epoch": "e1", "rev": 1, "starters": [],
            "workspaces": [{"id": "w", "title": "W", "tabs": [{"id": "t", "title": "T",
                "panes": [
                    {"id": "p1", "title": "One", "state": "idle"},
                    {"id": "p2", "title": "Two", "state": "idle"}
                ]}]}]
        }))
        .expect("a snapshot");
        let mut view = AgentView::new("a", false);
        view.apply(AgentChange::Snapshot {
            snapshot: Arc::new(snapshot),
            report: Default::default(),
        });
        say(&mut view, "p1", "i1", "hello");
        say(&mut view, "p2", "j1", "hi");
        view
    }

    /// An item in `pane`'s chat, which has told its state (so its turn is the chat's).
    fn say(view: &mut AgentView, pane: &str, id: &str, text: &str) {
        let mut state = Event::new(1, EventType::State);
        state.state = Some(crate::wire::PaneState::Idle);
        let mut event = Event::new(1, EventType::Item);
        event.item = Some(Item::text(
            id.to_string(),
            ItemKind::Reply,
            text.to_string(),
        ));
        view.apply(AgentChange::PaneEvents {
            pane: pane.into(),
            events: vec![state, event],
        });
    }

    fn turn(view: &mut AgentView, pane: &str, id: &str, state: TurnState) {
        let mut event = Event::new(2, EventType::Turn);
        event.turn = Some(Turn {
            id: id.to_string(),
            state,
        });
        view.apply(AgentChange::PaneEvents {
            pane: pane.into(),
            events: vec![event],
        });
    }

    #[test]
    fn a_pane_met_for_the_first_time_is_taken_as_seen() {
        let mut seen = Seen::default();
        seen.hear(&agent(), None);
        assert_eq!(seen.count("a"), 0);
        assert!(seen.changed());
    }

    #[test]
    fn a_chat_that_grew_or_streamed_off_screen_is_marked_and_looking_clears_it() {
        let mut view = agent();
        let mut seen = Seen::default();
        seen.hear(&view, None);
        // A new item in p1, and p2's message growing in place.
        say(&mut view, "p1", "i2", "more");
        say(&mut view, "p2", "j1", "hi there");
        seen.hear(&view, None);
        assert_eq!(seen.news("a", "p1"), Some(News::ChatGrew));
        assert_eq!(seen.news("a", "p2"), Some(News::ChatGrew));
        assert_eq!(seen.count("a"), 2);
        seen.look_at(&view, "p1");
        assert_eq!(seen.news("a", "p1"), None);
        assert_eq!(seen.count("a"), 1);
        // The pane on screen takes what comes as seen.
        say(&mut view, "p1", "i3", "on screen");
        seen.hear(&view, Some("p1"));
        assert_eq!(seen.news("a", "p1"), None);
    }

    #[test]
    fn a_turn_that_ended_and_a_new_ask_are_news_of_their_own() {
        let mut view = agent();
        turn(&mut view, "p1", "t1", TurnState::Running);
        let mut seen = Seen::default();
        seen.hear(&view, None);
        turn(&mut view, "p1", "t1", TurnState::Done);
        seen.hear(&view, None);
        assert_eq!(seen.news("a", "p1"), Some(News::TurnEnded));
        let mut event = Event::new(3, EventType::Ask);
        event.ask = Some(
            serde_json::from_value(serde_json::json!({
                "id": "ask-1", "revision": 1, "kind": "form", "title": "F",
                "form": {"fields": [{"id": "notes", "label": "Notes", "kind": "text"}]}
            }))
            .expect("an ask"),
        );
        view.apply(AgentChange::PaneEvents {
            pane: "p2".into(),
            events: vec![event],
        });
        seen.hear(&view, None);
        assert_eq!(seen.news("a", "p2"), Some(News::Asks));
        assert_eq!(News::Asks.words(), "asks");
    }

    #[test]
    fn marks_outlive_a_restart_through_the_kept_file() {
        let mut view = agent();
        let mut seen = Seen::default();
        seen.hear(&view, None);
        let kept = seen.to_json();
        assert!(!seen.changed());
        assert!(!kept.contains("hello"), "no words of a chat: {kept}");
        // The phone stops; p1 streams meanwhile; a new phone reads the file back.
        say(&mut view, "p1", "i2", "while you were away");
        let mut again = Seen::from_json(&kept);
        again.hear(&view, None);
        assert_eq!(again.news("a", "p1"), Some(News::ChatGrew));
        assert_eq!(again.news("a", "p2"), None);
    }

    #[test]
    fn a_damaged_file_marks_nothing_and_a_gone_pane_is_forgotten() {
        for text in ["", "{", "[]", r#"{"version":2,"panes":[]}"#] {
            assert_eq!(Seen::from_json(text).looks.len(), 0, "{text}");
        }
        let odd = r#"{"version":1,"panes":[{"agent":"a","pane":"p1","chat":"zz","asks":[1]},{"pane":"x"}]}"#;
        let read = Seen::from_json(odd);
        assert_eq!(read.looks.len(), 1);
        assert_eq!(read.looks[&key("a", "p1")], Look::default());
        let mut seen = Seen::from_json(odd);
        let mut view = agent();
        seen.hear(&view, None);
        assert_eq!(seen.news("a", "p1"), Some(News::ChatGrew));
        // p1 leaves the layout: its look and its mark go.
        let snapshot: Snapshot = serde_json::from_value(serde_json::json!({
            "epoch": "e1", "rev": 2, "starters": [],
            "workspaces": [{"id": "w", "title": "W", "tabs": [{"id": "t", "title": "T",
                "panes": [{"id": "p2", "title": "Two", "state": "idle"}]}]}]
        }))
        .expect("a snapshot");
        view.apply(AgentChange::Snapshot {
            snapshot: Arc::new(snapshot),
            report: Default::default(),
        });
        seen.hear(&view, None);
        assert_eq!(seen.news("a", "p1"), None);
        assert!(!seen.looks.contains_key(&key("a", "p1")));
    }

    #[test]
    fn the_hash_is_the_same_from_one_build_to_the_next() {
        // FNV-1a of "a" then the separator, written down once.
        assert_eq!(hex(hash(&[b"a"])), "089bc907b544c769");
        assert_eq!(unhex(&hex(42)), Some(42));
        assert_eq!(unhex("42"), None);
    }
}
