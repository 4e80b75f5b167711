//! A pane's chat as something to point at: a selected item that `[` and `]` move, search with
//! `/`, `n` and `N` (the line and the copy shared with the other rooms that read text live in
//! `screens/search`), copying the selected item (the runner writes it as OSC 52) and opening its
//! link (the runner finds a browser opener). Everything copied or opened is agent text, so it
//! is cleaned again on its way out (SPEC L1), and a link must pass the same check as the links
//! drawn on screen.

use crossterm::event::KeyEvent;

use crate::app::Command;
use crate::app::keymap::Action;
use crate::app::phone::Phone;
use crate::chat::pane_log::ChatEntry;
use crate::look::chat::{ChatStyle, closed_ask_words};
use crate::look::chat_links::{find_links, is_safe_url};
use crate::look::chat_scroll::{ChatScroll, entry_key};
use crate::look::chat_search::{Match, all_matches};
use crate::look::chat_view::ChatLayout;
use crate::look::markdown::code_blocks;
use crate::look::theme::Theme;
use crate::screens::PaneScreen;
use crate::screens::search::{LineKey, Place, bring_into_view, copy};
use crate::wire::ItemKind;

/// A piece of a link as the pane last drew it: where its cells are, the text they show and
/// the URL, for the runner to make an OSC 8 hyperlink of (`tui::osc`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DrawnLink {
    pub(crate) x: u16,
    pub(crate) y: u16,
    pub(crate) text: String,
    pub(crate) url: String,
}

/// What `y` copies of an entry, or with `code_only` what `Y` copies (None: no code in it).
pub(crate) fn copy_text(entry: &ChatEntry, code_only: bool) -> Option<String> {
    let ChatEntry::Item(item) = entry else {
        return (!code_only).then(|| match entry {
            ChatEntry::Closed(closed) => closed_ask_words(closed),
            ChatEntry::LetGo(note) => note.words.clone(),
            ChatEntry::Item(item) => item.text.clone(),
        });
    };
    match (&item.kind, code_only) {
        (ItemKind::Code, _) => Some(item.text.strip_suffix('\n').unwrap_or(&item.text).into()),
        (ItemKind::Markdown, true) => {
            let blocks = code_blocks(&item.text);
            (!blocks.is_empty()).then(|| blocks.join("\n\n"))
        }
        (_, true) => None,
        (ItemKind::Link, false) => {
            let url = item.url.as_deref().filter(|url| is_safe_url(url));
            match (url, item.title.as_deref()) {
                (Some(url), _) => Some(url.to_string()),
                (None, Some(title)) => Some(title.to_string()),
                (None, None) => Some(String::new()),
            }
        }
        (ItemKind::Unknown(kind), false) => Some(format!("[{kind}] {}", item.text)),
        (_, false) => Some(item.text.clone()),
    }
}

/// The first link of an entry as shown at this width: a link item's URL, else the first
/// `https://` URL its lines show, checked as the drawn links are.
pub(crate) fn first_link(
    entry: &ChatEntry,
    layout: &ChatLayout,
    scope: &str,
    style: &ChatStyle,
    theme: &Theme,
) -> Option<String> {
    if let ChatEntry::Item(item) = entry
        && item.kind == ItemKind::Link
    {
        return item.url.clone().filter(|url| is_safe_url(url));
    }
    let lines = layout.lines(scope, entry, style, theme);
    find_links(&lines, usize::from(style.width))
        .into_iter()
        .map(|piece| piece.url)
        .next()
}

/// Where the chat of the pane on top is, and how it is laid out.
struct ChatAt {
    agent: String,
    pane: String,
    style: ChatStyle,
    scope: String,
    height: usize,
}

impl PaneScreen {
    fn chat_at(&self, phone: &Phone) -> ChatAt {
        let screen = self;
        let chat = screen.chat_area(phone);
        ChatAt {
            agent: screen.agent.clone(),
            pane: screen.pane.clone(),
            style: ChatStyle {
                width: chat.width,
                thinking_expanded: screen.thinking_expanded,
            },
            scope: super::pane_scope(&screen.agent, &screen.pane),
            height: usize::from(chat.height),
        }
    }

    /// `[` and `]`: the item above or below the selected one. With none selected, the first
    /// press selects the newest item on screen (or the top one, scrolled up).
    pub(crate) fn select_item(&mut self, phone: &Phone, action: Action) -> Vec<Command> {
        let at = self.chat_at(phone);
        let Phone { model, view, .. } = phone;
        let (theme, chat_layout) = (view.theme(), view.chat_layout());
        let agents = model.agents();
        let Some(log) = agents.get(&at.agent).and_then(|a| a.panes.get(&at.pane)) else {
            return Vec::new();
        };
        let screen = self;
        let entries = &log.entries;
        if entries.is_empty() {
            return Vec::new();
        }
        let last = entries.len() - 1;
        let current = screen
            .selected
            .as_deref()
            .and_then(|key| entries.iter().position(|e| entry_key(e) == key));
        let index = match (current, action) {
            (Some(i), Action::SelectPrev) => i.saturating_sub(1),
            (Some(i), _) => (i + 1).min(last),
            (None, _) => match screen.scroll.start(entries) {
                crate::look::chat_scroll::ViewStart::Bottom => last,
                crate::look::chat_scroll::ViewStart::At { index, .. } => index.min(last),
            },
        };
        screen.selected = Some(entry_key(&entries[index]));
        let style = at.style;
        let mut measure = |entry: &ChatEntry| chat_layout.height(&at.scope, entry, &style, theme);
        let lines = chat_layout
            .lines(&at.scope, &entries[index], &style, theme)
            .len();
        let visible = |scroll: &ChatScroll| {
            let rows = crate::look::chat_view::visible_rows(
                chat_layout,
                &at.scope,
                entries,
                scroll,
                &style,
                at.height,
                theme,
            );
            let shows = |line: usize| rows.iter().any(|r| r.entry == index && r.line == line);
            // Whole, or its top when it is taller than the screen.
            shows(0) && (lines > at.height || shows(lines.saturating_sub(2)))
        };
        bring_into_view(
            &mut screen.scroll,
            entries,
            (index, 0),
            at.height,
            &mut measure,
            &visible,
        );
        Vec::new()
    }

    /// The selected entry of the pane on top, with what to say when there is none.
    fn selected_entry(&self, phone: &Phone) -> Result<(ChatEntry, ChatAt), String> {
        let at = self.chat_at(phone);
        let screen = self;
        let keys = |action| {
            phone
                .keymap()
                .key_label(super::keys::CHAT, action)
                .unwrap_or_default()
        };
        let none = format!(
            "Select an item first: {} and {} move the selection, {} finds words.",
            keys(Action::SelectPrev),
            keys(Action::SelectNext),
            keys(Action::Search)
        );
        let key = screen.selected.as_deref().ok_or_else(|| none.clone())?;
        phone
            .agents()
            .get(&at.agent)
            .and_then(|a| a.panes.get(&at.pane))
            .and_then(|log| log.entries.iter().find(|e| entry_key(e) == key))
            .cloned()
            .map(|entry| (entry, at))
            .ok_or(none)
    }

    /// `y`, and `Y` for the code alone: the selected item to the clipboard through the
    /// terminal (OSC 52, written by the runner).
    pub(crate) fn copy_selected(&self, phone: &mut Phone, code_only: bool) -> Vec<Command> {
        let entry = match self.selected_entry(phone) {
            Ok((entry, _)) => entry,
            Err(why) => {
                phone.show_toast(why, false);
                return Vec::new();
            }
        };
        let Some(text) = copy_text(&entry, code_only) else {
            let key = phone
                .keymap()
                .key_label(super::keys::CHAT, Action::Copy)
                .unwrap_or_default();
            phone.show_toast(
                format!("This item has no code block; {key} copies the whole item."),
                false,
            );
            return Vec::new();
        };
        let what = if code_only { " of code" } else { "" };
        copy(phone, &text, what)
    }

    /// `o`: the selected item's link to a browser, through the runner's opener.
    pub(crate) fn open_selected_link(&self, phone: &mut Phone) -> Vec<Command> {
        let (entry, at) = match self.selected_entry(phone) {
            Ok(found) => found,
            Err(why) => {
                phone.show_toast(why, false);
                return Vec::new();
            }
        };
        match first_link(
            &entry,
            phone.view.chat_layout(),
            &at.scope,
            &at.style,
            phone.theme(),
        ) {
            Some(url) => {
                phone.show_toast(crate::look::chat_links::opening_words(&url), false);
                vec![Command::OpenLink(url)]
            }
            None => {
                phone.show_toast("The selected item has no https:// link to open.", false);
                Vec::new()
            }
        }
    }

    /// `/`: opens the search line, with the words of the last search.
    pub(crate) fn open_search(&mut self, phone: &Phone) -> Vec<Command> {
        self.search.open();
        self.search_moved(phone, None);
        Vec::new()
    }

    /// A key on the open search line.
    pub(crate) fn search_key(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        match self.search.key(phone, action) {
            LineKey::Quit => return phone.quit(),
            LineKey::Go(forward) => self.search_moved(phone, Some(forward)),
            LineKey::Done => {}
        }
        Vec::new()
    }

    /// A key typed on the open search line.
    pub(crate) fn search_typed(&mut self, phone: &Phone, key: &KeyEvent) {
        if self.search.typed(key) {
            self.search_moved(phone, None);
        }
    }

    /// Pasted words go on the search line, as one line.
    pub(crate) fn search_paste(&mut self, phone: &Phone, text: &str) {
        self.search.paste(text);
        self.search_moved(phone, None);
    }

    /// `n` and `N` with the line closed: the matches light up again if they were put out.
    pub(crate) fn next_match(&mut self, phone: &mut Phone, forward: bool) -> Vec<Command> {
        if self.search.again(phone, super::keys::CHAT, "the chat") {
            self.search_moved(phone, Some(forward));
        }
        Vec::new()
    }

    /// Counts the matches again and moves to one: the next or previous (wrapping around), or
    /// with `None` the current one if it still is, else the newest. The view follows it and
    /// its item is selected.
    fn search_moved(&mut self, phone: &Phone, step: Option<bool>) {
        let at = self.chat_at(phone);
        let Phone { model, view, .. } = phone;
        let (theme, chat_layout) = (view.theme(), view.chat_layout());
        let agents = model.agents();
        let screen = self;
        let Some(log) = agents.get(&at.agent).and_then(|a| a.panes.get(&at.pane)) else {
            screen.search.count = (0, 0);
            return;
        };
        let entries = &log.entries;
        let matches: Vec<Match> = all_matches(
            chat_layout,
            &at.scope,
            entries,
            &at.style,
            theme,
            &screen.search.query(),
        );
        let places: Vec<Place> = matches
            .iter()
            .map(|m| (entry_key(&entries[m.entry]), m.line, m.column))
            .collect();
        let Some(index) = screen.search.choose(&places, step) else {
            return;
        };
        let found = matches[index];
        screen.selected = Some(entry_key(&entries[found.entry]));
        let style = at.style;
        let mut measure = |entry: &ChatEntry| chat_layout.height(&at.scope, entry, &style, theme);
        let visible = |scroll: &ChatScroll| {
            crate::look::chat_view::visible_rows(
                chat_layout,
                &at.scope,
                entries,
                scroll,
                &style,
                at.height,
                theme,
            )
            .iter()
            .any(|r| r.entry == found.entry && r.line == found.line)
        };
        bring_into_view(
            &mut screen.scroll,
            entries,
            (found.entry, found.line),
            at.height,
            &mut measure,
            &visible,
        );
    }

    /// Esc in the chat: puts out the matches first, then lets the selection go, then leaves.
    /// True when it did one of the first two.
    pub(crate) fn chat_escape(&mut self) -> bool {
        self.search.escape() || self.selected.take().is_some()
    }
}

/// What the runner's opener came to. `copies` is where keys go now and what its copy key
/// copies there, so a failed open names a key that acts where the person is (a url card
/// copies its link, docs/KEYS.md); none names the pane's.
pub(crate) fn link_opened(
    phone: &mut Phone,
    url: &str,
    result: Result<String, String>,
    copies: Option<(crate::app::keymap::Context, &str)>,
) {
    match result {
        Ok(opener) => phone.show_toast(
            format!(
                "Asked {opener} to open {}.",
                crate::look::wrap::truncate(url, 48)
            ),
            false,
        ),
        Err(why) => {
            let (context, what) = copies.unwrap_or((super::keys::CHAT, "the item, link included"));
            let key = phone
                .keymap()
                .key_label(context, Action::Copy)
                .unwrap_or_default();
            phone.show_toast(
                format!("The link was not opened: {why} {key} copies {what}."),
                true,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Item;

    #[test]
    fn what_each_kind_copies() {
        let mut code = Item::text("c", ItemKind::Code, "fn a() {}\n");
        code.language = Some("rust".into());
        let code = ChatEntry::Item(code);
        assert_eq!(copy_text(&code, false).as_deref(), Some("fn a() {}"));
        assert_eq!(copy_text(&code, true).as_deref(), Some("fn a() {}"));
        let md = ChatEntry::Item(Item::text(
            "m",
            ItemKind::Markdown,
            "Do this:\n\n```sh\nmake\n```\n",
        ));
        assert_eq!(copy_text(&md, true).as_deref(), Some("make"));
        assert!(copy_text(&md, false).is_some_and(|t| t.starts_with("Do this:")));
        let reply = ChatEntry::Item(Item::text("r", ItemKind::Reply, "plain"));
        assert_eq!(copy_text(&reply, true), None);
        let mut link = Item::text("l", ItemKind::Link, "");
        link.url = Some("https://example.com/x".into());
        link.title = Some("Docs".into());
        assert_eq!(
            copy_text(&ChatEntry::Item(link), false).as_deref(),
            Some("https://example.com/x")
        );
    }
}
