//! History: an agent's conversations newest first, one conversation's items oldest first, and
//! reopen (SPEC W5). The next page is read as the selection nears the end.

pub(crate) mod draw;
pub(crate) mod keys;

use crate::app::history::{HistoryStore, LOAD_AHEAD};
use crate::app::keymap::Action;
use crate::app::list::Filter;
use crate::app::list::ListCursor;
use crate::app::{App, Command, geometry};
use crate::chat::pane_log::ChatEntry;
use crate::engine::{HistoryPage, IntentKind};
use crate::look::chat::ChatStyle;
use crate::look::chat_scroll::ChatScroll;
use crate::screens::Screen;
use crate::wire::ConversationSummary;

#[derive(Debug, Clone)]
pub struct HistoryScreen {
    pub(crate) agent: String,
    pub(crate) cursor: ListCursor,
    pub(crate) filter: Filter,
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

impl App {
    pub(crate) fn conversation_rows(
        &self,
        agent: &str,
        filter: &Filter,
    ) -> Vec<&ConversationSummary> {
        self.history
            .conversations(agent)
            .map(|list| {
                list.rows
                    .iter()
                    .filter(|row| filter.matches(&format!("{} {}", row.title, row.state.as_str())))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn history_action(&mut self, action: Action) -> Vec<Command> {
        let Screen::History(screen) = self.nav.top() else {
            return Vec::new();
        };
        let (agent, filter, selected) = (
            screen.agent.clone(),
            screen.filter.clone(),
            screen.cursor.selected,
        );
        let rows = self.conversation_rows(&agent, &filter);
        let len = rows.len();
        let chosen = rows.get(selected).map(|r| (r.id.clone(), r.title.clone()));
        let height = self.list_height(filter.is_active());
        match action {
            Action::Back => self.back(),
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                let mut selected = 0;
                if let Screen::History(screen) = self.nav.top_mut() {
                    screen.cursor.apply(action, len, height);
                    selected = screen.cursor.selected;
                }
                // Paging stays invisible: the next page comes before the end is reached.
                let filtered_out = len
                    < self
                        .history
                        .conversations(&agent)
                        .map_or(0, |l| l.rows.len());
                let position = if filtered_out {
                    usize::MAX - LOAD_AHEAD
                } else {
                    selected
                };
                self.history
                    .more_conversations(&agent, position)
                    .map(Command::Engine)
                    .into_iter()
                    .collect()
            }
            Action::Open => {
                let Some((conversation, title)) = chosen else {
                    return Vec::new();
                };
                let loaded = self
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
                if let Some(list) = self.history.items(&agent, &conversation).filter(|_| loaded) {
                    screen.scroll.jump_to_top(&list.entries);
                    screen.placed = true;
                }
                self.nav.push(Screen::Conversation(screen));
                self.history
                    .open_items(&agent, &conversation)
                    .map(Command::Engine)
                    .into_iter()
                    .collect()
            }
            Action::Reopen => match chosen {
                Some((conversation, _)) => self.reopen(&agent, &conversation),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// Shows a conversation again (SPEC W5); its pane opens once the snapshot has it.
    pub(crate) fn reopen(&mut self, agent: &str, conversation: &str) -> Vec<Command> {
        self.show_toast("Reopening…", false);
        self.submit(
            agent,
            IntentKind::Reopen {
                conversation_id: conversation.to_string(),
            },
        )
    }

    /// Before a page of items lands: a view at the bottom of what was read is pinned where
    /// it is, so the new items come in below it instead of moving it.
    pub(crate) fn pin_conversation_view(&mut self, agent: &str, page: &HistoryPage) {
        let HistoryPage::Items { conversation, .. } = page else {
            return;
        };
        let (_, chat) = geometry::conversation(self.size.0, self.size.1);
        let App {
            nav,
            history,
            theme,
            chat_layout,
            ..
        } = self;
        for screen in nav.screens_mut() {
            let Screen::Conversation(screen) = screen else {
                continue;
            };
            if screen.agent != agent || screen.conversation != *conversation {
                continue;
            }
            let Some(list) = history.items(agent, conversation) else {
                continue;
            };
            if screen.scroll.is_following() && !list.entries.is_empty() {
                let style = ChatStyle {
                    width: chat.width,
                    thinking_expanded: screen.thinking_expanded,
                };
                let scope = crate::screens::pane::conversation_scope(agent, conversation);
                let mut measure = |e: &ChatEntry| chat_layout.height(&scope, e, &style, theme);
                // Moving up by nothing turns "at the bottom" into an anchor at the same place.
                screen
                    .scroll
                    .up(0, &list.entries, usize::from(chat.height), &mut measure);
            }
        }
    }

    /// After a page of items landed: a conversation opened for the first time starts at its
    /// first item (history reads oldest first).
    pub(crate) fn place_conversation_views(&mut self) {
        let App { nav, history, .. } = self;
        for screen in nav.screens_mut() {
            if let Screen::Conversation(screen) = screen
                && !screen.placed
                && let Some(list) =
                    HistoryStore::items(history, &screen.agent, &screen.conversation)
                && !list.entries.is_empty()
            {
                screen.scroll.jump_to_top(&list.entries);
                screen.placed = true;
            }
        }
    }
}
