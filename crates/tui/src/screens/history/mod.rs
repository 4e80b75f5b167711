//! History: an agent's conversations newest first, one conversation's items oldest first, and
//! reopen (SPEC W5). The next page is read as the selection nears the end.

pub(crate) mod draw;
pub(crate) mod keys;

use crate::app::keymap::{Action, Context};
use crate::app::list::Filter;
use crate::app::list::ListCursor;
use crate::app::phone::Goto;
use crate::app::phone::Phone;
use crate::app::{Command, geometry};
use crate::chat::pane_log::ChatEntry;
use crate::engine::{HistoryPage, IntentKind};
use crate::look::chat::ChatStyle;
use crate::look::chat_scroll::{ChatScroll, entry_key};
use crate::look::chat_search::all_matches;
use crate::model::history::{HistoryStore, LOAD_AHEAD};
use crate::model::news::Heard;
use crate::screens::pane::select::copy_text;
use crate::screens::room::{Heeded, Room};
use crate::screens::search::keys::SEARCH;
use crate::screens::search::{LineKey, Place, Search, bring_into_view, copy};
use crate::wire::ConversationSummary;
use crossterm::event::KeyEvent;
use ratatui::layout::Rect;

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
    /// `/`, `n` and `N` over the items as laid out, as in a pane.
    pub(crate) search: Search,
}

/// The agent's past conversations the filter lets through.
pub(crate) fn conversation_rows<'a>(
    phone: &'a Phone,
    agent: &str,
    filter: &Filter,
) -> Vec<&'a ConversationSummary> {
    phone
        .history()
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
    /// The pane this page started is here: the page gives way to it (SPEC A17).
    fn heard(&self, _phone: &Phone, news: &Heard) -> Heeded {
        match news {
            Heard::PaneReady { .. } => Heeded::Leave,
            _ => Heeded::Nothing,
        }
    }

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
                        .history()
                        .conversations(&agent)
                        .map_or(0, |l| l.rows.len());
                let position = if filtered_out {
                    usize::MAX - LOAD_AHEAD
                } else {
                    selected
                };
                phone
                    .model
                    .history_mut()
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
                    .model
                    .history_mut()
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
            .model
            .history_mut()
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
    /// The pane this page started is here: the page gives way to it (SPEC A17).
    fn heard(&self, _phone: &Phone, news: &Heard) -> Heeded {
        match news {
            Heard::PaneReady { .. } => Heeded::Leave,
            _ => Heeded::Nothing,
        }
    }

    fn key_parts() -> &'static [Context] {
        &[keys::CONVERSATION, SEARCH]
    }

    fn keys(&self, _phone: &Phone) -> Context {
        if self.search.editing {
            SEARCH
        } else {
            keys::CONVERSATION
        }
    }

    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        if self.search.editing {
            match self.search.key(phone, action) {
                LineKey::Quit => return phone.quit(),
                LineKey::Go(forward) => self.search_moved(phone, Some(forward)),
                LineKey::Done => {}
            }
            return Vec::new();
        }
        match action {
            Action::Back if self.search.escape() => Vec::new(),
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
            Action::Search => {
                self.search.open();
                self.search_moved(phone, None);
                Vec::new()
            }
            Action::NextMatch | Action::PrevMatch => {
                if self
                    .search
                    .again(phone, keys::CONVERSATION, "the conversation")
                {
                    self.search_moved(phone, Some(action == Action::NextMatch));
                }
                Vec::new()
            }
            Action::Copy => self.copy(phone),
            _ => Vec::new(),
        }
    }

    fn quit(&mut self, phone: &mut Phone) -> Vec<Command> {
        self.search.editing = false;
        phone.quit()
    }

    fn typed(&mut self, phone: &mut Phone, key: &KeyEvent) {
        if self.search.editing && self.search.typed(key) {
            self.search_moved(phone, None);
        }
    }

    fn paste(&mut self, phone: &mut Phone, text: &str) {
        if self.search.editing {
            self.search.paste(text);
            self.search_moved(phone, None);
        }
    }

    fn offers(&self, phone: &Phone, action: Action) -> bool {
        if matches!(action, Action::NextMatch | Action::PrevMatch) {
            // One match or none: there is no other to go to.
            return self.search.count.1 > 1;
        }
        action != Action::ToggleThinking
            || phone
                .history()
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
            .history()
            .items(&agent, &conversation)
            .is_some_and(|l| !l.entries.is_empty());
        let mut screen = ConversationScreen {
            agent: agent.clone(),
            conversation: conversation.clone(),
            title,
            scroll: Default::default(),
            thinking_expanded: false,
            placed: false,
            search: Search::default(),
        };
        if let Some(list) = phone
            .history()
            .items(&agent, &conversation)
            .filter(|_| loaded)
        {
            screen.scroll.jump_to_top(&list.entries);
            screen.placed = true;
        }
        screen
    }

    /// Where the items show: under the heading, over the search line while that shows.
    pub(crate) fn chat_area(&self, width: u16, height: u16) -> Rect {
        let (_, chat) = geometry::conversation(width, height);
        self.search.split(chat).0
    }

    /// Counts the matches again and moves to one (`Search::choose`); the view follows it.
    fn search_moved(&mut self, phone: &Phone, step: Option<bool>) {
        let chat = self.chat_area(phone.size().0, phone.size().1);
        let Some(list) = phone.history().items(&self.agent, &self.conversation) else {
            self.search.choose(&[], step);
            return;
        };
        let entries = &list.entries;
        let style = ChatStyle {
            width: chat.width,
            thinking_expanded: self.thinking_expanded,
        };
        let scope = crate::screens::pane::conversation_scope(&self.agent, &self.conversation);
        let (layout, theme) = (phone.view.chat_layout(), phone.theme());
        let matches = all_matches(layout, &scope, entries, &style, theme, &self.search.query());
        let places: Vec<Place> = matches
            .iter()
            .map(|m| (entry_key(&entries[m.entry]), m.line, m.column))
            .collect();
        let Some(index) = self.search.choose(&places, step) else {
            return;
        };
        let found = matches[index];
        let height = usize::from(chat.height);
        let mut measure = |entry: &ChatEntry| layout.height(&scope, entry, &style, theme);
        let visible = |scroll: &ChatScroll| {
            crate::look::chat_view::visible_rows(
                layout, &scope, entries, scroll, &style, height, theme,
            )
            .iter()
            .any(|r| r.entry == found.entry && r.line == found.line)
        };
        bring_into_view(
            &mut self.scroll,
            entries,
            (found.entry, found.line),
            height,
            &mut measure,
            &visible,
        );
    }

    /// `y`: the item of the current match while matches are lit, else every item read so far,
    /// through the terminal (OSC 52, written by the runner).
    fn copy(&self, phone: &mut Phone) -> Vec<Command> {
        let Some(list) = phone.history().items(&self.agent, &self.conversation) else {
            phone.show_toast("Nothing is read yet to copy.", false);
            return Vec::new();
        };
        let current = self
            .search
            .current
            .as_ref()
            .filter(|_| self.search.lit)
            .and_then(|(key, _, _)| list.entries.iter().find(|e| entry_key(e) == *key));
        let text = match current {
            Some(entry) => copy_text(entry, false).unwrap_or_default(),
            None => list
                .entries
                .iter()
                .filter_map(|entry| copy_text(entry, false))
                .collect::<Vec<_>>()
                .join("\n\n"),
        };
        if text.is_empty() {
            phone.show_toast("Nothing is read yet to copy.", false);
            return Vec::new();
        }
        copy(phone, &text, "")
    }

    /// Moves the conversation's chat; near the end, reads the next page before the person
    /// gets there (SPEC W5).
    fn scroll(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        let chat = self.chat_area(phone.size().0, phone.size().1);
        let Some(list) = phone.history().items(&self.agent, &self.conversation) else {
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
                layout: phone.view.chat_layout(),
                scope: &scope,
                entries: &list.entries,
                style,
                height: usize::from(chat.height),
                theme: phone.theme(),
            },
        );
        if self.scroll.is_following() || action == Action::Bottom {
            return phone
                .model
                .history_mut()
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
        let Some(list) = phone.history().items(agent, conversation) else {
            return;
        };
        if self.scroll.is_following() && !list.entries.is_empty() {
            let chat = self.chat_area(phone.size().0, phone.size().1);
            let style = ChatStyle {
                width: chat.width,
                thinking_expanded: self.thinking_expanded,
            };
            let scope = crate::screens::pane::conversation_scope(agent, conversation);
            let mut measure = |e: &ChatEntry| {
                phone
                    .view
                    .chat_layout()
                    .height(&scope, e, &style, phone.theme())
            };
            // Moving up by nothing turns "at the bottom" into an anchor at the same place.
            self.scroll
                .up(0, &list.entries, usize::from(chat.height), &mut measure);
        }
    }

    /// After a page of items landed: a conversation opened for the first time starts at its
    /// first item (history reads oldest first).
    pub(crate) fn place(&mut self, phone: &Phone) {
        if !self.placed
            && let Some(list) =
                HistoryStore::items(phone.history(), &self.agent, &self.conversation)
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
            search: Search::default(),
        };
        harness.act(&mut room, Action::ToggleThinking);
        assert!(room.thinking_expanded);
        // Nothing is read yet: scrolling moves nothing and asks for nothing.
        assert!(harness.act(&mut room, Action::Down).is_empty());
        harness.act(&mut room, Action::Back);
        assert!(matches!(harness.steps()[..], [Step::Back]));
    }

    /// A conversation of `count` replies, read whole.
    fn read(harness: &mut Harness, count: usize) -> ConversationScreen {
        let items = (0..count)
            .map(|n| {
                crate::wire::Item::text(
                    format!("i-{n}"),
                    crate::wire::ItemKind::Reply,
                    format!("reply {n} about routes"),
                )
            })
            .collect();
        harness.phone.model.history_mut().apply(
            "demo",
            HistoryPage::Items {
                conversation: "c-1".into(),
                after: None,
                page: crate::wire::ItemsPage { items, next: None },
            },
        );
        ConversationScreen::open(&harness.phone, "demo".into(), "c-1".into(), "Routes".into())
    }

    #[test]
    fn slash_finds_words_in_a_conversation_n_and_n_go_round_and_y_copies() {
        let mut harness = Harness::new();
        let mut room = read(&mut harness, 40);
        harness.act(&mut room, Action::Search);
        assert_eq!(room.keys(&harness.phone), SEARCH);
        for c in "reply 3".chars() {
            room.typed(
                &mut harness.phone,
                &KeyEvent::new(
                    crossterm::event::KeyCode::Char(c),
                    crossterm::event::KeyModifiers::NONE,
                ),
            );
        }
        // "reply 3" and "reply 30" to "reply 39".
        assert_eq!(room.search.count, (11, 11));
        harness.act(&mut room, Action::Confirm);
        assert_eq!(room.keys(&harness.phone), keys::CONVERSATION);
        harness.act(&mut room, Action::NextMatch);
        assert_eq!(room.search.count, (1, 11), "wraps to the first");
        assert_eq!(
            room.search.current.as_ref().map(|c| c.0.as_str()),
            Some("i-3")
        );
        harness.act(&mut room, Action::PrevMatch);
        assert_eq!(
            room.search.current.as_ref().map(|c| c.0.as_str()),
            Some("i-39")
        );
        // With a match current, `y` copies its item.
        let commands = harness.act(&mut room, Action::Copy);
        assert!(
            matches!(&commands[..], [Command::Copy(text)] if text == "reply 39 about routes"),
            "{commands:?}"
        );
        assert_eq!(
            harness.toast(),
            Some("Copied 1 line to the clipboard (through the terminal, OSC 52).")
        );
        // Esc puts the matches out; then `y` copies every item read.
        harness.act(&mut room, Action::Back);
        assert!(harness.steps().is_empty());
        let commands = harness.act(&mut room, Action::Copy);
        let [Command::Copy(text)] = &commands[..] else {
            panic!("{commands:?}");
        };
        assert!(
            text.starts_with("reply 0 about routes\n\nreply 1"),
            "{text}"
        );
        assert_eq!(text.lines().filter(|l| !l.is_empty()).count(), 40);
    }
}
