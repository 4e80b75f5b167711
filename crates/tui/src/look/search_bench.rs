//! A door for `benches/search.rs`: the chat search of the pane screen over a chat the bench
//! builds, without an app, an engine or a terminal. Not part of the phone's API.

use std::collections::VecDeque;

use super::chat::ChatStyle;
use super::chat_search::{Query, all_matches};
use super::chat_view::ChatLayout;
use super::theme::Theme;
use crate::chat::pane_log::ChatEntry;

/// A chat laid out as the pane screen lays it out, ready to be searched.
#[derive(Debug)]
pub struct SearchBench {
    layout: ChatLayout,
    entries: VecDeque<ChatEntry>,
    style: ChatStyle,
    theme: Theme,
}

impl SearchBench {
    /// A chat of `entries` at `width` columns, nothing laid out yet.
    pub fn new(entries: VecDeque<ChatEntry>, width: u16, theme: Theme) -> Self {
        Self {
            layout: ChatLayout::default(),
            entries,
            style: ChatStyle {
                width,
                thinking_expanded: false,
            },
            theme,
        }
    }

    /// How many matches a search for `query` finds, the way the pane screen counts them (it
    /// lays out the entries not laid out yet, and keeps them).
    pub fn search(&self, query: &str) -> usize {
        all_matches(
            &self.layout,
            "bench",
            &self.entries,
            &self.style,
            &self.theme,
            &Query::new(query),
        )
        .len()
    }

    /// Empties the layout memo, so the next search lays out every entry it looks into.
    pub fn forget_layout(&mut self) {
        self.layout = ChatLayout::default();
    }
}
