//! Where a chat is scrolled to. Following the newest entry by default; once scrolled up, the
//! view is anchored to an entry (by its id) and a line inside it, so new entries arriving or
//! old ones trimmed (SPEC L: 2000 newest) never move what the person is reading. Only the
//! entries passed over are measured, so a long chat scrolls in constant time per step.

use std::collections::VecDeque;

use crate::chat::pane_log::ChatEntry;

/// An entry's identity within one chat.
pub(crate) fn entry_key(entry: &ChatEntry) -> String {
    match entry {
        ChatEntry::Item(item) => item.id.clone(),
        ChatEntry::Closed(closed) => format!("closed:{}", closed.ask_id),
        ChatEntry::LetGo(_) => LET_GO_KEY.to_string(),
    }
}

/// True when `key` is this entry's key; compares without building the key.
fn has_key(entry: &ChatEntry, key: &str) -> bool {
    match entry {
        ChatEntry::Item(item) => item.id == key,
        ChatEntry::Closed(closed) => key.strip_prefix("closed:") == Some(closed.ask_id.as_str()),
        ChatEntry::LetGo(_) => key == LET_GO_KEY,
    }
}

/// The let-go note's key (SPEC L2): one per chat, and no item id, which an id's rules keep
/// free of spaces (SPEC L.id), can be it.
const LET_GO_KEY: &str = "let go";

/// The top of the view: `line` lines into the entry `key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Anchor {
    pub(crate) key: String,
    pub(crate) line: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatScroll {
    /// None follows the newest entry.
    pub(crate) anchor: Option<Anchor>,
}

/// Where drawing starts: an entry index and the lines of it to skip, or the bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewStart {
    Bottom,
    At { index: usize, skip: usize },
}

impl ChatScroll {
    pub(crate) fn is_following(&self) -> bool {
        self.anchor.is_none()
    }

    /// Where to start drawing. An anchor whose entry was trimmed away starts at the oldest.
    pub fn start(&self, entries: &VecDeque<ChatEntry>) -> ViewStart {
        match &self.anchor {
            None => ViewStart::Bottom,
            Some(anchor) => match entries.iter().position(|e| has_key(e, &anchor.key)) {
                Some(index) => ViewStart::At {
                    index,
                    skip: anchor.line,
                },
                None => ViewStart::At { index: 0, skip: 0 },
            },
        }
    }

    /// The view's top as (entry index, line in it), measuring from the bottom when following.
    fn top(
        &self,
        entries: &VecDeque<ChatEntry>,
        height: usize,
        measure: &mut dyn FnMut(&ChatEntry) -> usize,
    ) -> Option<(usize, usize)> {
        if entries.is_empty() {
            return None;
        }
        match self.start(entries) {
            ViewStart::At { index, skip } => Some((index, skip)),
            ViewStart::Bottom => {
                // Walk up from the newest entry until a screenful is above the bottom.
                let mut need = height;
                for index in (0..entries.len()).rev() {
                    let lines = measure(&entries[index]);
                    if lines >= need {
                        return Some((index, lines - need));
                    }
                    need -= lines;
                }
                Some((0, 0))
            }
        }
    }

    /// Scrolls toward older entries by `by` lines.
    pub(crate) fn up(
        &mut self,
        by: usize,
        entries: &VecDeque<ChatEntry>,
        height: usize,
        measure: &mut dyn FnMut(&ChatEntry) -> usize,
    ) {
        let Some((mut index, mut line)) = self.top(entries, height, measure) else {
            return;
        };
        let mut left = by;
        while left > 0 {
            if line >= left {
                line -= left;
                left = 0;
            } else {
                left -= line;
                if index == 0 {
                    line = 0;
                    break;
                }
                index -= 1;
                line = measure(&entries[index]);
            }
        }
        self.anchor = Some(Anchor {
            key: entry_key(&entries[index]),
            line,
        });
    }

    /// Scrolls toward newer entries by `by` lines; reaching the bottom follows again.
    pub(crate) fn down(
        &mut self,
        by: usize,
        entries: &VecDeque<ChatEntry>,
        height: usize,
        measure: &mut dyn FnMut(&ChatEntry) -> usize,
    ) {
        if self.anchor.is_none() {
            return;
        }
        let Some((mut index, mut line)) = self.top(entries, height, measure) else {
            self.anchor = None;
            return;
        };
        line += by;
        loop {
            let lines = measure(&entries[index]);
            if line < lines || index + 1 >= entries.len() {
                break;
            }
            line -= lines;
            index += 1;
        }
        // Follow again once less than a screenful is left below the top.
        let mut below = 0;
        for (i, entry) in entries.iter().enumerate().skip(index) {
            below += measure(entry);
            if i == index {
                below = below.saturating_sub(line);
            }
            if below > height {
                break;
            }
        }
        if below <= height {
            self.anchor = None;
        } else {
            self.anchor = Some(Anchor {
                key: entry_key(&entries[index]),
                line,
            });
        }
    }

    pub(crate) fn jump_to_top(&mut self, entries: &VecDeque<ChatEntry>) {
        self.anchor = entries.front().map(|entry| Anchor {
            key: entry_key(entry),
            line: 0,
        });
    }

    pub(crate) fn jump_to_bottom(&mut self) {
        self.anchor = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Item, ItemKind};

    fn chat(n: usize) -> VecDeque<ChatEntry> {
        (0..n)
            .map(|i| ChatEntry::Item(Item::text(format!("i{i}"), ItemKind::Reply, "x")))
            .collect()
    }

    #[test]
    fn scrolling_up_then_down_follows_again() {
        let entries = chat(100);
        let mut measure = |_: &ChatEntry| 3;
        let mut scroll = ChatScroll::default();
        scroll.up(10, &entries, 20, &mut measure);
        // 20 lines from the bottom is entry 94 (6 entries × 3 = 18, + 2 lines of 93)…
        assert_eq!(
            scroll.anchor,
            Some(Anchor {
                key: "i90".into(),
                line: 0
            })
        );
        scroll.down(5, &entries, 20, &mut measure);
        assert_eq!(
            scroll.anchor,
            Some(Anchor {
                key: "i91".into(),
                line: 2
            })
        );
        scroll.down(50, &entries, 20, &mut measure);
        assert!(scroll.is_following());
    }

    #[test]
    fn new_entries_do_not_move_an_anchored_view() {
        let mut entries = chat(50);
        let mut measure = |_: &ChatEntry| 2;
        let mut scroll = ChatScroll::default();
        scroll.up(30, &entries, 10, &mut measure);
        let before = scroll.start(&entries);
        entries.push_back(ChatEntry::Item(Item::text("new", ItemKind::Reply, "y")));
        assert_eq!(scroll.start(&entries), before);
        scroll.jump_to_top(&entries);
        assert_eq!(scroll.start(&entries), ViewStart::At { index: 0, skip: 0 });
    }
}
