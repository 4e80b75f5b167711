//! The visible part of a chat: only the entries on screen are laid out, and each entry's lines
//! are kept once laid out, so a pane of 2000 items — some of them 64 KiB — scrolls and draws
//! as fast as a pane of ten (SPEC L).

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use ratatui::text::Line;

use super::chat::{ChatStyle, entry_lines};
use super::chat_scroll::{ChatScroll, ViewStart, entry_key};
use super::theme::Theme;
use crate::chat::pane_log::ChatEntry;

/// Entries kept laid out; past this the cache starts over.
const MAX_CACHED: usize = 6000;

/// Which entry, laid out how: the chat it is in (agent and pane or conversation), its key,
/// its version, and whether thinking is unfolded. An item can be sent again under its id with
/// more text (a message growing as it streams), so its text's length and end are its version.
type CacheKey = (String, String, (usize, u64), bool);

/// What tells two versions of one entry apart: a grown item has a longer text, a rewritten
/// one almost surely another end. Hashes at most 64 bytes, so a 64 KiB item costs no more.
fn version(entry: &ChatEntry) -> (usize, u64) {
    use std::hash::{Hash, Hasher};
    match entry {
        ChatEntry::Item(item) => {
            let text = item.text.as_bytes();
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            text[text.len().saturating_sub(64)..].hash(&mut hasher);
            (text.len(), hasher.finish())
        }
        ChatEntry::Closed(_) => (0, 0),
        ChatEntry::LetGo(note) => (note.words.len(), note.items),
    }
}

#[derive(Debug, Default)]
struct Cache {
    width: u16,
    theme: String,
    entries: HashMap<CacheKey, Arc<Vec<Line<'static>>>>,
}

/// Laid-out chat entries, shared by the app (to measure while scrolling) and the ui (to draw).
/// A memo only: what it holds can always be computed again from the entry.
#[derive(Debug, Default)]
pub struct ChatLayout {
    cache: RefCell<Cache>,
}

impl Clone for ChatLayout {
    /// A copy starts empty; it fills again on use.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl ChatLayout {
    /// The lines of an entry with the blank line after it.
    pub(crate) fn lines(
        &self,
        scope: &str,
        entry: &ChatEntry,
        style: &ChatStyle,
        theme: &Theme,
    ) -> Arc<Vec<Line<'static>>> {
        let mut cache = self.cache.borrow_mut();
        if cache.width != style.width
            || cache.theme != theme.name
            || cache.entries.len() > MAX_CACHED
        {
            cache.entries.clear();
            cache.width = style.width;
            cache.theme.clone_from(&theme.name);
        }
        let key = (
            scope.to_string(),
            entry_key(entry),
            version(entry),
            style.thinking_expanded,
        );
        if let Some(lines) = cache.entries.get(&key) {
            return Arc::clone(lines);
        }
        let mut lines = entry_lines(entry, style, theme);
        lines.push(Line::default());
        let lines = Arc::new(lines);
        cache.entries.insert(key, Arc::clone(&lines));
        lines
    }

    /// Lines an entry takes on screen: its own and one blank line after it.
    pub(crate) fn height(
        &self,
        scope: &str,
        entry: &ChatEntry,
        style: &ChatStyle,
        theme: &Theme,
    ) -> usize {
        self.lines(scope, entry, style, theme).len()
    }
}

/// One row of a chat on screen: which entry (its index), which of its lines, and the line.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub(crate) entry: usize,
    pub(crate) line: usize,
    pub(crate) text: Line<'static>,
}

/// The `height` rows to draw for a chat scrolled to `scroll`, each knowing its entry and line
/// (for the selection, search matches and links).
pub(crate) fn visible_rows(
    layout: &ChatLayout,
    scope: &str,
    entries: &VecDeque<ChatEntry>,
    scroll: &ChatScroll,
    style: &ChatStyle,
    height: usize,
    theme: &Theme,
) -> Vec<Row> {
    match scroll.start(entries) {
        ViewStart::Bottom => {
            let mut rows: VecDeque<Row> = VecDeque::new();
            for (index, entry) in entries.iter().enumerate().rev() {
                let laid_out = layout.lines(scope, entry, style, theme);
                // Only what can still show is copied out of a long entry.
                let room = height.saturating_sub(rows.len());
                for (line, text) in laid_out.iter().enumerate().rev().take(room) {
                    rows.push_front(Row {
                        entry: index,
                        line,
                        text: text.clone(),
                    });
                }
                if rows.len() >= height {
                    break;
                }
            }
            rows.into_iter().collect()
        }
        ViewStart::At { index, skip } => {
            let mut rows = Vec::with_capacity(height);
            for (i, entry) in entries.iter().enumerate().skip(index) {
                let laid_out = layout.lines(scope, entry, style, theme);
                let from = if i == index {
                    skip.min(laid_out.len())
                } else {
                    0
                };
                let room = height.saturating_sub(rows.len());
                rows.extend(laid_out.iter().enumerate().skip(from).take(room).map(
                    |(line, text)| Row {
                        entry: i,
                        line,
                        text: text.clone(),
                    },
                ));
                if rows.len() >= height {
                    break;
                }
            }
            rows
        }
    }
}
