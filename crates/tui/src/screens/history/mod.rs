//! History: an agent's conversations newest first, one conversation's items oldest first, and
//! reopen (SPEC W5). The next page is read as the selection nears the end.

pub(crate) mod draw;
pub(crate) mod keys;

use crate::app::history::{HistoryStore, LOAD_AHEAD};
use crate::app::keymap::{Action, Context};
use crate::app::list::Filter;
use crate::app::list::ListCursor;
use crate::app::phone::Goto;
use crate::app::phone::Phone;
use crate::app::{Command, geometry};
use crate::chat::pane_log::ChatEntry;
use crate::engine::{HistoryPage, IntentKind};
use crate::look::chat::ChatStyle;
use crate::look::chat_scroll::ChatScroll;
use crate::screens::room::Room;
use crate::wire::ConversationSummary;

#[derive(Debug, Clone)]
pub struct HistoryScreen {
    pub(crate) agent: String,
    pub(crate) cursor: ListCursor,
    pub(crate) filter: Filter,
}

impl HistoryScreen {
    /// An agent's past conversations, from the newest.
    pub(crate) fn new(agent: String) -> Self {
        Self {
            agent,
            cursor: Default::default(),
            filter: Default::default(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct ConversationScreen {
    pub(crate) agent: String,
    pub(crate) conversation: String,
    pub(crate) title: String,
    pub(crate) scroll: ChatScroll,
    pub(crate) thinking_expanded: bool,
    /// Set once the view was placed at the first item; history reads oldest first.
    pub(crate) placed: bool,
}

/// The agent's past conversations the filter lets through.
pub(crate) fn conversation_rows<'a>(
    phone: &'a Phone,
    agent: &str,
    filter: &Filter,
) -> Vec<&'a ConversationSummary> {
    phone
        .history
        .conversations(agent)
        .map(|list| {
            list.rows
                .iter()
                .filter(|row| filter.matches(&format!("{} {}", row.title, row.state.as_str())))
                .collect()
        })
        .unwrap_or_default()
}

/// Shows a conversation again (SPEC W5); its pane opens once the snapshot has it.
pub(crate) fn reopen(phone: &mut Phone, agent: &str, conversation: &str) -> Vec<Command> {
    phone.show_toast("Reopening…", false);
    phone.submit(
        agent,
        IntentKind::Reopen {
            conversation_id: conversation.to_string(),
        },
    )
}

impl Room for HistoryScreen {
    fn key_parts() -> &'static [Context] {
        &[keys::LIST]
    }

    fn keys(&self, _phone: &Phone) -> Context {
        keys::LIST
    }

    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        let (agent, filter, selected) = (
            self.agent.clone(),
            self.filter.clone(),
            self.cursor.selected,
        );
        let rows = conversation_rows(phone, &agent, &filter);
        let len = rows.len();
        let chosen = rows.get(selected).map(|r| (r.id.clone(), r.title.clone()));
        let height = phone.list_height(filter.is_active());
        match action {
            Action::Back => phone.back(),
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                self.cursor.apply(action, len, height);
                let selected = self.cursor.selected;
                // Paging stays invisible: the next page comes before the end is reached.
                let filtered_out = len
                    < phone
                        .history
                        .conversations(&agent)
                        .map_or(0, |l| l.rows.len());
                let position = if filtered_out {
                    usize::MAX - LOAD_AHEAD
                } else {
                    selected
                };
                phone
                    .history
                    .more_conversations(&agent, position)
                    .map(Command::Engine)
                    .into_iter()
                    .collect()
            }
            Action::Open => {
                let Some((conversation, title)) = chosen else {
                    return Vec::new();
                };
                phone.open(Goto::Conversation {
                    agent: agent.clone(),
                    conversation: conversation.clone(),
                    title,
                });
                phone
                    .history
                    .open_items(&agent, &conversation)
                    .map(Command::Engine)
                    .into_iter()
                    .collect()
            }
            Action::Reopen => match chosen {
                Some((conversation, _)) => reopen(phone, &agent, &conversation),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    fn wheel(&mut self, phone: &mut Phone, down: bool, _column: u16, _row: u16) -> Vec<Command> {
        let (len, height) = (self.len(phone), phone.list_height(self.filter.is_active()));
        self.cursor.wheel(down, len, height);
        phone
            .history
            .more_conversations(&self.agent, self.cursor.selected)
            .map(Command::Engine)
            .into_iter()
            .collect()
    }

    fn offers(&self, phone: &Phone, action: Action) -> bool {
        !matches!(action, Action::Open | Action::Reopen) || self.len(phone) > 0
    }

    crate::screens::room::plain_list!();
}

impl HistoryScreen {
    fn len(&self, phone: &Phone) -> usize {
        conversation_rows(phone, &self.agent, &self.filter).len()
    }

    /// What each row shows, as a key that stays with the row.
    fn row_keys(&self, phone: &Phone) -> Vec<String> {
        conversation_rows(phone, &self.agent, &self.filter)
            .iter()
            .map(|row| row.id.clone())
            .collect()
    }
}

impl Room for ConversationScreen {
    fn key_parts() -> &'static [Context] {
        &[keys::CONVERSATION]
    }

    fn keys(&self, _phone: &Phone) -> Context {
        keys::CONVERSATION
    }

    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        match action {
            Action::Back => phone.back(),
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => self.scroll(phone, action),
            Action::ToggleThinking => {
                self.thinking_expanded = !self.thinking_expanded;
                if !self.offers(phone, Action::ToggleThinking) {
                    let words = crate::screens::pane::thinking_words(phone, self.thinking_expanded);
                    phone.show_toast(words, false);
                }
                Vec::new()
            }
            Action::Reopen => {
                let (agent, conversation) = (self.agent.clone(), self.conversation.clone());
                reopen(phone, &agent, &conversation)
            }
            _ => Vec::new(),
        }
    }

    fn offers(&self, phone: &Phone, action: Action) -> bool {
        action != Action::ToggleThinking
            || phone
                .history
                .items(&self.agent, &self.conversation)
                .is_some_and(|list| {
                    list.entries.iter().any(|e| {
                        matches!(e, ChatEntry::Item(item) if item.kind == crate::wire::ItemKind::Thinking)
                    })
                })
    }

    fn wheel(&mut self, phone: &mut Phone, down: bool, _column: u16, _row: u16) -> Vec<Command> {
        let action = if down { Action::Down } else { Action::Up };
        let mut commands = Vec::new();
        for _ in 0..3 {
            commands.extend(self.scroll(phone, action));
        }
        commands
    }
}

impl ConversationScreen {
    /// The conversation's screen, at its top when its first page is already here.
    pub(crate) fn open(phone: &Phone, agent: String, conversation: String, title: String) -> Self {
        let loaded = phone
            .history
            .items(&agent, &conversation)
            .is_some_and(|l| !l.entries.is_empty());
        let mut screen = ConversationScreen {
            agent: agent.clone(),
            conversation: conversation.clone(),
            title,
            scroll: Default::default(),
            thinking_expanded: false,
            placed: false,
        };
        if let Some(list) = phone
            .history
            .items(&agent, &conversation)
            .filter(|_| loaded)
        {
            screen.scroll.jump_to_top(&list.entries);
            screen.placed = true;
        }
        screen
    }

    /// Moves the conversation's chat; near the end, reads the next page before the person
    /// gets there (SPEC W5).
    fn scroll(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        let (_, chat) = geometry::conversation(phone.size.0, phone.size.1);
        let Some(list) = phone.history.items(&self.agent, &self.conversation) else {
            return Vec::new();
        };
        let style = ChatStyle {
            width: chat.width,
            thinking_expanded: self.thinking_expanded,
        };
        let scope = crate::screens::pane::conversation_scope(&self.agent, &self.conversation);
        crate::screens::pane::scroll(
            &mut self.scroll,
            action,
            crate::screens::pane::ChatView {
                layout: &phone.chat_layout,
                scope: &scope,
                entries: &list.entries,
                style,
                height: usize::from(chat.height),
                theme: &phone.theme,
            },
        );
        if self.scroll.is_following() || action == Action::Bottom {
            return phone
                .history
                .more_items(&self.agent, &self.conversation)
                .map(Command::Engine)
                .into_iter()
                .collect();
        }
        Vec::new()
    }

    /// Before a page of items lands: a view at the bottom of what was read is pinned where
    /// it is, so the new items come in below it instead of moving it.
    pub(crate) fn pin(&mut self, phone: &Phone, agent: &str, page: &HistoryPage) {
        let HistoryPage::Items { conversation, .. } = page else {
            return;
        };
        if self.agent != agent || self.conversation != *conversation {
            return;
        }
        let Some(list) = phone.history.items(agent, conversation) else {
            return;
        };
        if self.scroll.is_following() && !list.entries.is_empty() {
            let (_, chat) = geometry::conversation(phone.size.0, phone.size.1);
            let style = ChatStyle {
                width: chat.width,
                thinking_expanded: self.thinking_expanded,
            };
            let scope = crate::screens::pane::conversation_scope(agent, conversation);
            let mut measure =
                |e: &ChatEntry| phone.chat_layout.height(&scope, e, &style, &phone.theme);
            // Moving up by nothing turns "at the bottom" into an anchor at the same place.
            self.scroll
                .up(0, &list.entries, usize::from(chat.height), &mut measure);
        }
    }

    /// After a page of items landed: a conversation opened for the first time starts at its
    /// first item (history reads oldest first).
    pub(crate) fn place(&mut self, phone: &Phone) {
        if !self.placed
            && let Some(list) = HistoryStore::items(&phone.history, &self.agent, &self.conversation)
            && !list.entries.is_empty()
        {
            self.scroll.jump_to_top(&list.entries);
            self.placed = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::phone::Step;
    use crate::screens::harness::Harness;

    #[test]
    fn a_conversation_folds_its_thinking_and_goes_back() {
        let mut harness = Harness::new();
        let mut room = ConversationScreen {
            agent: "demo".into(),
            conversation: "c-1".into(),
            title: "Routes".into(),
            scroll: Default::default(),
            thinking_expanded: false,
            placed: false,
        };
        harness.act(&mut room, Action::ToggleThinking);
        assert!(room.thinking_expanded);
        // Nothing is read yet: scrolling moves nothing and asks for nothing.
        assert!(harness.act(&mut room, Action::Down).is_empty());
        harness.act(&mut room, Action::Back);
        assert!(matches!(harness.steps()[..], [Step::Back]));
    }
}
