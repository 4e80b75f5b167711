//! A selection in a list with the first row shown, kept so the selected row is always on
//! screen; and the `/` filter of a list.

use super::keymap::Action;
use crate::model::editor::Editor;

/// One step forward or back around a ring of `count` places (a form's fields, a field's
/// choices): past the last comes the first, before the first the last; an empty ring stays at 0.
pub(crate) fn step_around(at: usize, count: usize, forward: bool) -> usize {
    match count {
        0 => 0,
        _ if forward => (at + 1) % count,
        _ => (at % count + count - 1) % count,
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ListCursor {
    pub(crate) selected: usize,
    /// The first row drawn.
    pub(crate) offset: usize,
    /// Which row is selected, by what it shows (not where): when rows come and go, the
    /// selection stays on it, or on the nearest row when it went.
    pub(crate) key: Option<String>,
}

impl ListCursor {
    /// Notes which row is selected now (after the person moved).
    pub(crate) fn remember(&mut self, keys: &[String]) {
        self.key = keys.get(self.selected).cloned();
    }

    /// The rows changed to `keys`: the selection follows its row, or, when that row went,
    /// stays at its place (now the row after it) or on the last row; never off the list.
    pub(crate) fn follow(&mut self, keys: &[String], height: usize) {
        if let Some(at) = self
            .key
            .as_ref()
            .and_then(|key| keys.iter().position(|k| k == key))
        {
            self.selected = at;
        }
        self.clamp(keys.len(), height);
        self.remember(keys);
    }

    /// Applies a move; returns true when it was one.
    pub(crate) fn apply(&mut self, action: Action, len: usize, height: usize) -> bool {
        let page = height.max(1);
        match action {
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::Down => self.selected = self.selected.saturating_add(1),
            Action::PageUp => self.selected = self.selected.saturating_sub(page),
            Action::PageDown => self.selected = self.selected.saturating_add(page),
            Action::Top => self.selected = 0,
            Action::Bottom => self.selected = len.saturating_sub(1),
            _ => return false,
        }
        self.clamp(len, height);
        true
    }

    /// Keeps the selection inside the list and on screen.
    pub(crate) fn clamp(&mut self, len: usize, height: usize) {
        let height = height.max(1);
        self.selected = self.selected.min(len.saturating_sub(1));
        if self.selected < self.offset {
            self.offset = self.selected;
        }
        if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
        let last_page = len.saturating_sub(height);
        self.offset = self.offset.min(last_page);
    }

    /// Selects the row at `row` lines below the list's top, if there is one.
    pub(crate) fn click(&mut self, row: usize, len: usize) -> bool {
        let index = self.offset + row;
        if index < len {
            self.selected = index;
            true
        } else {
            false
        }
    }

    /// A click at (`column`, `row`) of the terminal on a plain list screen of `len` rows (the
    /// listing's geometry at `size`) selects the row under it; gives true when that row was
    /// already selected, so the click opens it.
    pub(crate) fn click_in_listing(
        &mut self,
        size: (u16, u16),
        filter_shown: bool,
        len: usize,
        (column, row): (u16, u16),
    ) -> bool {
        let list = super::geometry::listing(size.0, size.1, filter_shown).list;
        if !super::geometry::contains(list, column, row) {
            return false;
        }
        let before = self.selected;
        self.click(usize::from(row - list.y), len) && self.selected == before
    }

    /// Scrolls the view by the wheel, moving the selection along so it stays visible.
    pub(crate) fn wheel(&mut self, down: bool, len: usize, height: usize) {
        let step = 3;
        if down {
            self.selected = self.selected.saturating_add(step);
        } else {
            self.selected = self.selected.saturating_sub(step);
        }
        self.clamp(len, height);
    }
}

/// The `/` filter of a list: the words typed, and whether they are being typed now.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    /// One line, edited with the keys of every other text field.
    pub(crate) editor: Editor,
    pub(crate) editing: bool,
}

impl Filter {
    pub(crate) fn text(&self) -> String {
        self.editor.text()
    }

    /// True when the filter holds no word, so every row goes through.
    pub(crate) fn is_blank(&self) -> bool {
        self.text().trim().is_empty()
    }

    /// True when `haystack` holds every word of the filter, ignoring case.
    pub(crate) fn matches(&self, haystack: &str) -> bool {
        let text = self.text();
        if text.trim().is_empty() {
            return true;
        }
        let haystack = haystack.to_lowercase();
        text.to_lowercase()
            .split_whitespace()
            .all(|word| haystack.contains(word))
    }

    #[cfg(test)]
    /// A filter holding `text`, not being typed.
    pub(crate) fn with_text(text: &str) -> Self {
        Self {
            editor: Editor::from_text(text),
            editing: false,
        }
    }

    pub(crate) fn is_active(&self) -> bool {
        !self.editor.is_empty() || self.editing
    }
}

#[cfg(test)]
mod selection_tests {
    use super::*;

    fn keys(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_selection_follows_its_row_and_falls_to_the_nearest() {
        let mut cursor = ListCursor::default();
        let rows = keys(&["a", "b", "c", "d"]);
        cursor.selected = 2;
        cursor.remember(&rows);
        // A row above goes: still on "c".
        cursor.follow(&keys(&["b", "c", "d"]), 10);
        assert_eq!(cursor.selected, 1);
        // "c" goes: the row now in its place.
        cursor.follow(&keys(&["b", "d"]), 10);
        assert_eq!((cursor.selected, cursor.key.as_deref()), (1, Some("d")));
        // The last goes: the new last.
        cursor.follow(&keys(&["b"]), 10);
        assert_eq!((cursor.selected, cursor.key.as_deref()), (0, Some("b")));
        cursor.follow(&[], 10);
        assert_eq!((cursor.selected, cursor.key), (0, None));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_around_the_ring_comes_back_from_both_ends() {
        assert_eq!(step_around(2, 3, true), 0);
        assert_eq!(step_around(0, 3, false), 2);
        assert_eq!(step_around(1, 3, true), 2);
        assert_eq!(step_around(0, 0, true), 0);
        assert_eq!(step_around(5, 3, false), 1);
    }

    #[test]
    fn selection_stays_on_screen() {
        let mut cursor = ListCursor::default();
        for _ in 0..12 {
            cursor.apply(Action::Down, 20, 5);
        }
        assert_eq!(cursor.selected, 12);
        assert_eq!(cursor.offset, 8);
        cursor.apply(Action::Top, 20, 5);
        assert_eq!((cursor.selected, cursor.offset), (0, 0));
        cursor.apply(Action::Bottom, 20, 5);
        assert_eq!((cursor.selected, cursor.offset), (19, 15));
        cursor.clamp(3, 5);
        assert_eq!((cursor.selected, cursor.offset), (2, 0));
    }

    #[test]
    fn filter_words_ignore_case_and_order() {
        let filter = Filter::with_text("ORDER 支付");
        assert!(filter.matches("支付服务 / Order module"));
        assert!(!filter.matches("Order module"));
        assert!(Filter::with_text("  ").matches("anything"));
        assert!(Filter::with_text("  ").is_blank());
        assert!(
            Filter::with_text("  ").is_active(),
            "spaces typed still show the line"
        );
        assert!(!Filter::default().is_active());
    }
}
