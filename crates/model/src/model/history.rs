//! History as read so far: each agent's conversations (newest first) and the items of the
//! conversations opened (oldest first), page by page (SPEC W5, L). The next page is asked for
//! when the person scrolls near the end, so paging never shows.

use std::collections::{HashMap, VecDeque};

use crate::chat::pane_log::ChatEntry;
use crate::engine::{HistoryPage, ToEngine};
use crate::wire::ConversationSummary;

/// Rows from the end at which the next page is asked for.
pub const LOAD_AHEAD: usize = 20;

/// Pages of one list read so far.
#[derive(Debug, Clone, Default)]
pub struct Paging {
    /// The `after` of the next page; None once the last page came.
    pub next: Option<String>,
    pub loading: bool,
    pub loaded_once: bool,
    pub error: Option<String>,
}

impl Paging {
    /// True when another page exists and none is on its way.
    pub fn can_load_more(&self) -> bool {
        !self.loading && self.next.is_some() && self.error.is_none()
    }

    fn start(&mut self) {
        self.loading = true;
        self.error = None;
    }

    fn arrived(&mut self, next: Option<String>) {
        self.loading = false;
        self.loaded_once = true;
        self.next = next;
    }
}

#[derive(Debug, Clone, Default)]
pub struct ConversationList {
    pub rows: Vec<ConversationSummary>,
    pub paging: Paging,
}

#[derive(Debug, Clone, Default)]
pub struct ItemList {
    pub entries: VecDeque<ChatEntry>,
    pub paging: Paging,
}

#[derive(Debug, Clone, Default)]
pub struct HistoryStore {
    pub lists: HashMap<String, ConversationList>,
    pub items: HashMap<(String, String), ItemList>,
}

impl HistoryStore {
    /// The first page of an agent's conversations, read again each time History opens so it
    /// shows what changed.
    pub fn open_conversations(&mut self, agent: &str) -> Option<ToEngine> {
        let list = self.lists.entry(agent.to_string()).or_default();
        if list.paging.loading {
            return None;
        }
        list.paging.start();
        Some(ToEngine::LoadConversations {
            agent: agent.to_string(),
            after: None,
        })
    }

    /// The next page, when the selection is near the end of what was read.
    pub fn more_conversations(&mut self, agent: &str, selected: usize) -> Option<ToEngine> {
        let list = self.lists.get_mut(agent)?;
        if !list.paging.can_load_more() || selected + LOAD_AHEAD < list.rows.len() {
            return None;
        }
        let after = list.paging.next.clone();
        list.paging.start();
        Some(ToEngine::LoadConversations {
            agent: agent.to_string(),
            after,
        })
    }

    /// The first page of a conversation's items, unless already read.
    pub fn open_items(&mut self, agent: &str, conversation: &str) -> Option<ToEngine> {
        let list = self
            .items
            .entry((agent.to_string(), conversation.to_string()))
            .or_default();
        if list.paging.loading || (list.paging.loaded_once && list.paging.error.is_none()) {
            return None;
        }
        list.paging.start();
        Some(ToEngine::LoadItems {
            agent: agent.to_string(),
            conversation: conversation.to_string(),
            after: None,
        })
    }

    pub fn more_items(&mut self, agent: &str, conversation: &str) -> Option<ToEngine> {
        let list = self
            .items
            .get_mut(&(agent.to_string(), conversation.to_string()))?;
        if !list.paging.can_load_more() {
            return None;
        }
        let after = list.paging.next.clone();
        list.paging.start();
        Some(ToEngine::LoadItems {
            agent: agent.to_string(),
            conversation: conversation.to_string(),
            after,
        })
    }

    /// Takes a page from the engine.
    pub fn apply(&mut self, agent: &str, page: HistoryPage) {
        match page {
            HistoryPage::Conversations { after, page } => {
                let list = self.lists.entry(agent.to_string()).or_default();
                if after.is_none() {
                    list.rows.clear();
                }
                for row in page.conversations {
                    if !list.rows.iter().any(|r| r.id == row.id) {
                        list.rows.push(row);
                    }
                }
                // The list shows each conversation's last change, so it reads in that order,
                // newest first, whatever order the agent's pages came in; a row without a time
                // keeps its place after those with one (the sort is stable).
                list.rows.sort_by_key(|row| {
                    std::cmp::Reverse(row.updated_at.as_deref().and_then(crate::wire::time::parse))
                });
                list.paging.arrived(page.next);
            }
            HistoryPage::Items {
                conversation,
                after,
                page,
            } => {
                let list = self
                    .items
                    .entry((agent.to_string(), conversation))
                    .or_default();
                if after.is_none() {
                    list.entries.clear();
                }
                list.entries
                    .extend(page.items.into_iter().map(ChatEntry::Item));
                list.paging.arrived(page.next);
            }
            HistoryPage::Failed { what, why } => {
                let error = Some(format!("Could not read {what}: {why}."));
                if let Some(conversation) = what.strip_prefix("conversation ") {
                    if let Some(list) = self
                        .items
                        .get_mut(&(agent.to_string(), conversation.to_string()))
                    {
                        list.paging.loading = false;
                        list.paging.error = error;
                    }
                } else if let Some(list) = self.lists.get_mut(agent) {
                    list.paging.loading = false;
                    list.paging.error = error;
                }
            }
        }
    }

    pub fn conversations(&self, agent: &str) -> Option<&ConversationList> {
        self.lists.get(agent)
    }

    pub fn items(&self, agent: &str, conversation: &str) -> Option<&ItemList> {
        self.items
            .get(&(agent.to_string(), conversation.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{ConversationState, ConversationsPage};

    fn row(id: &str) -> ConversationSummary {
        ConversationSummary {
            id: id.into(),
            title: id.into(),
            state: ConversationState::Closed,
            pane_id: None,
            updated_at: None,
            item_count: 1,
        }
    }

    #[test]
    fn w5_next_page_only_near_the_end() {
        let mut store = HistoryStore::default();
        assert!(store.open_conversations("a").is_some());
        store.apply(
            "a",
            HistoryPage::Conversations {
                after: None,
                page: ConversationsPage {
                    conversations: (0..100).map(|i| row(&format!("c{i}"))).collect(),
                    next: Some("cursor-1".into()),
                },
            },
        );
        assert!(store.more_conversations("a", 10).is_none());
        let next = store.more_conversations("a", 85);
        assert!(
            matches!(next, Some(ToEngine::LoadConversations { after: Some(ref c), .. }) if c == "cursor-1")
        );
        // A second ask while the first is on its way sends nothing.
        assert!(store.more_conversations("a", 99).is_none());
    }

    #[test]
    fn w5_conversations_read_newest_change_first_whatever_the_page_order() {
        let mut store = HistoryStore::default();
        let at = |id: &str, when: Option<&str>| ConversationSummary {
            updated_at: when.map(str::to_string),
            ..row(id)
        };
        store.apply(
            "a",
            HistoryPage::Conversations {
                after: None,
                page: ConversationsPage {
                    conversations: vec![
                        at("old", Some("2026-11-29T08:00:00Z")),
                        at("untimed", None),
                        at("new", Some("2026-11-29T12:00:00Z")),
                        at("mid", Some("2026-11-29T10:00:00+01:00")),
                    ],
                    next: None,
                },
            },
        );
        let order: Vec<&str> = store.lists["a"]
            .rows
            .iter()
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(order, ["new", "mid", "old", "untimed"]);
    }
}
