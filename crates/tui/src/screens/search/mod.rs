//! Search and copy where text is read: a pane's chat, History's conversation and the wire
//! inspector's exchange. `/` opens a line of words to find, Enter keeps the matches lit, `n` and
//! `N` go from one to the next, `y` copies. The line's state and keys live here once; each room
//! finds the matches in its own lines and scrolls to the current one. What is copied is agent
//! text, so it is cleaned again on its way out and capped (SPEC L1); the runner writes it as
//! OSC 52 (`tui::osc`).

pub(crate) mod draw;
pub(crate) mod keys;

use std::collections::VecDeque;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

use crate::app::keymap::{Action, Context};
use crate::app::phone::Phone;
use crate::app::{Command, typing};
use crate::chat::pane_log::ChatEntry;
use crate::look::chat_scroll::{Anchor, ChatScroll, entry_key};
use crate::look::chat_search::Query;
use crate::model::editor::Editor;

/// The most text one copy sends. Terminals cap what an OSC 52 sequence may carry: hterm (the
/// ChromeOS terminal and Secure Shell) takes 100 000 bytes of base64 and drops a longer one
/// whole, and others sit near it. 72 KiB is 98 304 bytes of base64, inside that, and holds any
/// whole chat item (64 KiB at most, SPEC L), so only a copy of more than one item could be cut.
pub(crate) const MAX_COPY_BYTES: usize = 72 * 1024;

/// The line of ~/.tmux.conf that lets an application's OSC 52 through tmux to the terminal:
/// tmux takes it only with `set-clipboard on` (`external` and `off` drop it).
pub(crate) const TMUX_CLIPBOARD_LINE: &str = "set -g set-clipboard on";

/// Where a match is: the key of what holds it (a chat entry's key, or nothing in one text),
/// the line in it and the column.
pub(crate) type Place = (String, usize, usize);

/// The search of one room's text. Its words stay when the line closes, so `/` brings them back.
#[derive(Debug, Clone, Default)]
pub(crate) struct Search {
    pub(crate) editor: Editor,
    /// The search line is open and takes the keys.
    pub(crate) editing: bool,
    /// The matches are lit (the line is open, or was closed with Enter).
    pub(crate) lit: bool,
    /// The current match.
    pub(crate) current: Option<Place>,
    /// The current match's number and how many there are, as counted after the last key.
    pub(crate) count: (usize, usize),
    /// The line was opened again on the last search's words: they show selected, and the
    /// first character typed takes their place (as a browser's find does), so `/route` after
    /// a search for "route" looks for "route", not "routeroute".
    pub(crate) replaces: bool,
}

/// What a key on the open line asks of the room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineKey {
    /// Nothing more: the line closed, or there was no other match to go to.
    Done,
    /// Go to the next match (true) or the previous one.
    Go(bool),
    /// The quit key.
    Quit,
}

impl Search {
    pub(crate) fn query(&self) -> Query {
        Query::new(&self.editor.text())
    }

    /// The line under the text shows: the search line, or the lit matches' count.
    pub(crate) fn shows_line(&self) -> bool {
        self.editing || self.lit
    }

    /// `area` for the text, and the row under it for the search line while that shows (when
    /// the area has rows to spare).
    pub(crate) fn split(&self, area: Rect) -> (Rect, Option<Rect>) {
        if !self.shows_line() || area.height < 2 {
            return (area, None);
        }
        let text = Rect {
            height: area.height - 1,
            ..area
        };
        (
            text,
            Some(Rect::new(area.x, area.bottom() - 1, area.width, 1)),
        )
    }

    /// `/`: opens the line, with the words of the last search. The room counts again.
    pub(crate) fn open(&mut self) {
        self.editing = true;
        self.lit = true;
        self.replaces = !self.editor.is_empty();
    }

    /// A key bound on the open line (`keys::SEARCH`).
    pub(crate) fn key(&mut self, phone: &mut Phone, action: Action) -> LineKey {
        match action {
            Action::Quit => {
                self.editing = false;
                return LineKey::Quit;
            }
            Action::Confirm => self.editing = false,
            Action::Cancel => {
                self.editing = false;
                self.lit = false;
            }
            Action::NextMatch | Action::PrevMatch if self.count.1 < 2 => {
                phone.show_toast(
                    if self.count.1 == 0 {
                        "No match to go to."
                    } else {
                        "This is the only match."
                    },
                    false,
                );
            }
            Action::NextMatch => return LineKey::Go(true),
            Action::PrevMatch => return LineKey::Go(false),
            _ => {}
        }
        LineKey::Done
    }

    /// A key typed on the open line; true when the words changed, so the room counts again.
    pub(crate) fn typed(&mut self, key: &KeyEvent) -> bool {
        let before = self.editor.text();
        let typed = matches!(key.code, KeyCode::Char(_))
            && !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        if std::mem::take(&mut self.replaces) && typed {
            self.editor.clear();
        }
        typing::edit(&mut self.editor, key, typing::Shape::OneLine);
        let changed = self.editor.text() != before;
        if changed {
            self.current = None;
        }
        changed
    }

    /// Pasted words go on the line, as one line. The room counts again.
    pub(crate) fn paste(&mut self, text: &str) {
        if std::mem::take(&mut self.replaces) {
            self.editor.clear();
        }
        typing::paste(&mut self.editor, text, false);
        self.current = None;
    }

    /// `n` and `N` with the line closed: the matches light up again if they were put out.
    /// False, with the words to say so, when there is no search yet; `keys` is the part
    /// whose `/` is named.
    pub(crate) fn again(&mut self, phone: &mut Phone, keys: Context, place: &str) -> bool {
        if self.editor.is_empty() {
            let key = phone
                .keymap()
                .key_label(keys, Action::Search)
                .unwrap_or_default();
            phone.show_toast(format!("No search yet: {key} searches in {place}."), false);
            return false;
        }
        self.lit = true;
        true
    }

    /// Esc: puts out the matches. True when there were some lit.
    pub(crate) fn escape(&mut self) -> bool {
        std::mem::take(&mut self.lit)
    }

    /// Takes the matches found at `places` (in reading order) and moves to one: the next or
    /// previous (wrapping around), or with `None` the current one if it still is, else the
    /// last. Its index in `places`, None when there is no match.
    pub(crate) fn choose(&mut self, places: &[Place], step: Option<bool>) -> Option<usize> {
        if places.is_empty() {
            self.current = None;
            self.count = (0, 0);
            return None;
        }
        let now = self
            .current
            .as_ref()
            .and_then(|current| places.iter().position(|p| p == current));
        let last = places.len() - 1;
        let index = match (now, step) {
            (Some(i), Some(true)) => (i + 1) % places.len(),
            (Some(0), Some(false)) => last,
            (Some(i), Some(false)) => i - 1,
            (Some(i), None) => i,
            (None, _) => last,
        };
        self.current = Some(places[index].clone());
        self.count = (index + 1, places.len());
        Some(index)
    }
}

/// Moves `scroll` so the line `line` of entry `index` shows, a third of the way down when it
/// was out of sight, and follows the newest again when that is where the line is.
pub(crate) fn bring_into_view(
    scroll: &mut ChatScroll,
    entries: &VecDeque<ChatEntry>,
    (index, line): (usize, usize),
    height: usize,
    measure: &mut dyn FnMut(&ChatEntry) -> usize,
    visible: &dyn Fn(&ChatScroll) -> bool,
) {
    if visible(scroll) {
        return;
    }
    let Some(entry) = entries.get(index) else {
        return;
    };
    scroll.anchor = Some(Anchor {
        key: entry_key(entry),
        line,
    });
    scroll.up(height / 3, entries, height, measure);
    scroll.down(0, entries, height, measure);
}

/// The first line shown of `lines` lines scrolled by `scroll` in `height` rows, moved so `line`
/// shows, a third of the way down when it was out of sight.
pub(crate) fn scroll_to_line(scroll: usize, line: usize, height: usize, lines: usize) -> usize {
    let height = height.max(1);
    if (scroll..scroll + height).contains(&line) {
        return scroll;
    }
    line.saturating_sub(height / 3)
        .min(lines.saturating_sub(height))
}

/// What one copy sends: the cleaned text, its lines, and the lines there were when it was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Copied {
    pub(crate) text: String,
    pub(crate) lines: usize,
    pub(crate) cut_from: Option<usize>,
}

/// Cleans `text` (no control character, no escape, no token: SPEC L1) and caps it at
/// [`MAX_COPY_BYTES`], at the end of a line when one is near, else at a character boundary.
pub(crate) fn for_clipboard(text: &str) -> Copied {
    let clean = crate::out::text(text).into_owned();
    let lines = |s: &str| s.lines().count().max(1);
    if clean.len() <= MAX_COPY_BYTES {
        return Copied {
            lines: lines(&clean),
            text: clean,
            cut_from: None,
        };
    }
    let mut end = MAX_COPY_BYTES;
    while !clean.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(newline) = clean[..end].rfind('\n')
        && newline * 10 > end * 9
    {
        end = newline;
    }
    let text = clean[..end].to_string();
    Copied {
        lines: lines(&text),
        cut_from: Some(lines(&clean)),
        text,
    }
}

/// Copies `text` through the terminal: cleaned and capped, the status line says how many
/// lines (and `what` they were, " of code" or nothing), and the runner writes it.
pub(crate) fn copy(phone: &mut Phone, text: &str, what: &str) -> Vec<Command> {
    let copied = for_clipboard(text);
    tell_copy(phone, &copied, what);
    vec![Command::Copy(copied.text)]
}

/// Says again what became of the copy of `text` just made: the shell found, when the runner
/// asked tmux after it, that tmux now keeps the clipboard or lets it through (a person may
/// have followed the line the phone gave them, or turned set-clipboard off).
pub(crate) fn tell_copy_again(phone: &mut Phone, text: &str) {
    tell_copy(phone, &for_clipboard(text), "");
}

/// The status line after a copy: how many lines went, or the one line that lets tmux pass it.
fn tell_copy(phone: &mut Phone, copied: &Copied, what: &str) {
    let words = match copied.cut_from {
        None if copied.lines == 1 => {
            format!("Copied 1 line{what} to the clipboard (through the terminal, OSC 52).")
        }
        None => format!(
            "Copied {} lines{what} to the clipboard (through the terminal, OSC 52).",
            copied.lines
        ),
        Some(all) => format!(
            "Copied the first {} of {all} lines: a terminal takes {} KiB at most.",
            copied.lines,
            MAX_COPY_BYTES / 1024
        ),
    };
    if phone.view.terminal().tmux_keeps_clipboard {
        // tmux takes an application's OSC 52 only with `set-clipboard on` (docs/KEYS.md, "Copy").
        phone.show_toast(
            format!(
                "tmux drops the copy (its set-clipboard is not on): add `{TMUX_CLIPBOARD_LINE}` to ~/.tmux.conf, then run `tmux source ~/.tmux.conf`."
            ),
            true,
        );
    } else {
        phone.show_toast(words, copied.cut_from.is_some());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_clipboard_turned_on_while_the_phone_runs_is_seen_at_the_next_copy() {
        let mut harness = crate::screens::harness::Harness::new();
        harness.phone.view.terminal_mut().tmux_keeps_clipboard = true;
        // The copy as the phone first tells it: tmux drops it, and the line that fixes it.
        let commands = copy(&mut harness.phone, "one\ntwo", "");
        assert!(matches!(&commands[..], [Command::Copy(text)] if text == "one\ntwo"));
        assert!(
            harness
                .toast()
                .is_some_and(|t| t.starts_with("tmux drops the copy"))
        );
        // The shell heard from the runner that tmux lets it through now: the copy went through.
        harness.phone.view.terminal_mut().tmux_keeps_clipboard = false;
        tell_copy_again(&mut harness.phone, "one\ntwo");
        assert_eq!(
            harness.toast(),
            Some("Copied 2 lines to the clipboard (through the terminal, OSC 52).")
        );
        // Turned off again: told at once, for the copy just made.
        harness.phone.view.terminal_mut().tmux_keeps_clipboard = true;
        tell_copy_again(&mut harness.phone, "one");
        assert!(
            harness
                .toast()
                .is_some_and(|t| t.starts_with("tmux drops the copy"))
        );
    }

    #[test]
    fn l1_the_clipboard_gets_cleaned_text_only() {
        let hostile = "ok\u{1b}]52;c;ZXZpbA==\u{7}\u{9b}31m\u{202e}\ttab\nnext";
        let copied = for_clipboard(hostile);
        assert_eq!(copied.text, "ok]52;c;ZXZpbA==31m\ttab\nnext");
        assert_eq!(copied.lines, 2);
        assert_eq!(copied.cut_from, None);
    }

    #[test]
    fn a_copy_over_the_cap_is_cut_at_a_line_end_and_says_so() {
        let line = "日本語のテキスト and words\n";
        let text = line.repeat(MAX_COPY_BYTES / line.len() + 50);
        let copied = for_clipboard(&text);
        assert!(copied.text.len() <= MAX_COPY_BYTES);
        assert!(copied.text.ends_with("words"), "cut at a line end");
        assert_eq!(copied.cut_from, Some(text.lines().count()));
        assert!(copied.lines < text.lines().count());
        // One long line is cut on a character boundary.
        let long = "日".repeat(MAX_COPY_BYTES);
        let copied = for_clipboard(&long);
        assert!(copied.text.len() <= MAX_COPY_BYTES);
        assert!(copied.text.chars().all(|c| c == '日'));
    }

    #[test]
    fn choosing_wraps_around_and_keeps_the_current_match() {
        let places: Vec<Place> = (0..3).map(|line| (String::new(), line, 0)).collect();
        let mut search = Search::default();
        assert_eq!(search.choose(&places, None), Some(2), "the last at first");
        assert_eq!(search.choose(&places, Some(true)), Some(0), "wraps");
        assert_eq!(search.choose(&places, Some(false)), Some(2));
        assert_eq!(search.choose(&places, None), Some(2), "stays");
        assert_eq!(search.count, (3, 3));
        assert_eq!(search.choose(&[], None), None);
        assert_eq!((search.count, search.current), ((0, 0), None));
    }

    #[test]
    fn a_line_scrolls_only_when_out_of_sight() {
        assert_eq!(scroll_to_line(0, 5, 10, 100), 0);
        assert_eq!(scroll_to_line(0, 50, 9, 100), 47);
        assert_eq!(
            scroll_to_line(40, 98, 10, 100),
            90,
            "never past the last page"
        );
        assert_eq!(scroll_to_line(40, 2, 10, 100), 0);
    }
}
