//! The visible part of a chat: only the entries on screen are laid out, so a pane of 2000
//! items draws as fast as a pane of ten (SPEC L).

use std::collections::VecDeque;

use ratatui::text::Line;

use super::chat::{ChatStyle, entry_lines};
use super::theme::Theme;
use crate::app::chat_scroll::{ChatScroll, ViewStart};
use crate::engine::pane_log::ChatEntry;

/// Lines an entry takes on screen: its own and one blank line after it.
pub fn entry_height(entry: &ChatEntry, style: &ChatStyle, theme: &Theme) -> usize {
    entry_lines(entry, style, theme).len() + 1
}

fn laid_out(entry: &ChatEntry, style: &ChatStyle, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = entry_lines(entry, style, theme);
    lines.push(Line::default());
    lines
}

/// The `height` lines to draw for a chat scrolled to `scroll`.
pub fn visible_lines(
    entries: &VecDeque<ChatEntry>,
    scroll: &ChatScroll,
    style: &ChatStyle,
    height: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    match scroll.start(entries) {
        ViewStart::Bottom => {
            let mut lines: VecDeque<Line<'static>> = VecDeque::new();
            for entry in entries.iter().rev() {
                for line in laid_out(entry, style, theme).into_iter().rev() {
                    lines.push_front(line);
                }
                if lines.len() >= height {
                    break;
                }
            }
            let skip = lines.len().saturating_sub(height);
            lines.into_iter().skip(skip).collect()
        }
        ViewStart::At { index, skip } => {
            let mut lines = Vec::with_capacity(height);
            for (i, entry) in entries.iter().enumerate().skip(index) {
                let entry_lines = laid_out(entry, style, theme);
                let from = if i == index {
                    skip.min(entry_lines.len())
                } else {
                    0
                };
                lines.extend(entry_lines.into_iter().skip(from));
                if lines.len() >= height {
                    break;
                }
            }
            lines.truncate(height);
            lines
        }
    }
}
