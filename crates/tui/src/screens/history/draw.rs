//! History: conversations newest first, and one conversation's items oldest first (SPEC W5).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::keys;
use crate::app::geometry;
use crate::app::phone::Phone;
use crate::look::chat::ChatStyle;
use crate::look::chat_scroll::entry_key;
use crate::look::chat_search::entry_may_match;
use crate::look::chat_view;
use crate::look::theme::Theme;
use crate::screens::search::draw::{draw_line, light};
use crate::screens::{ConversationScreen, HistoryScreen};
use crate::ui::{columns, put};
use crate::wire::ConversationState;

/// "2026-11-29 14:05" from an RFC 3339 time ("11-29 14:05" without the year), or the text as
/// given.
fn short_time(text: &str, with_year: bool) -> String {
    match crate::wire::time::parse(text) {
        Some(at) if with_year => format!(
            "{}-{:02}-{:02} {:02}:{:02}",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute()
        ),
        Some(at) => format!(
            "{:02}-{:02} {:02}:{:02}",
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute()
        ),
        None => text.to_string(),
    }
}

pub(crate) fn draw_list(
    frame: &mut Frame<'_>,
    phone: &Phone,
    screen: &HistoryScreen,
    theme: &Theme,
) {
    let area = frame.area();
    let parts = geometry::listing(area.width, area.height, screen.filter.is_active());
    let list = phone.history().conversations(&screen.agent);
    let state = match list {
        Some(l) if l.paging.loading => "reading…".to_string(),
        Some(l) if l.paging.next.is_some() => format!("{}+ conversations", l.rows.len()),
        Some(l) => crate::out::count(l.rows.len(), "conversation", "conversations"),
        None => String::new(),
    };
    // A narrow terminal keeps the state, a shorter time and the title; the count goes.
    let narrow = geometry::is_narrow(area.width);
    put(
        frame,
        parts.heading,
        0,
        Line::from(vec![
            Span::styled(
                if narrow {
                    format!("History of {}  ", screen.agent)
                } else {
                    format!("History of {} — newest first  ", screen.agent)
                },
                theme.title,
            ),
            Span::styled(state, theme.dim),
        ]),
    );
    let rows = super::conversation_rows(phone, &screen.agent, &screen.filter);
    let width = usize::from(parts.list.width);
    let visible = usize::from(parts.list.height);
    for (row, conversation) in rows
        .iter()
        .skip(screen.cursor.offset)
        .take(visible)
        .enumerate()
    {
        let selected = screen.cursor.offset + row == screen.cursor.selected;
        let (state, style) = match conversation.state {
            ConversationState::Open => ("open", theme.ok),
            _ => ("closed", theme.dim),
        };
        let line = columns(
            &[
                (
                    if selected { "› ".into() } else { "  ".into() },
                    2,
                    theme.accent,
                ),
                (state.into(), if narrow { 7 } else { 8 }, style),
                (
                    conversation
                        .updated_at
                        .as_deref()
                        .map(|at| short_time(at, !narrow))
                        .unwrap_or_default(),
                    if narrow { 13 } else { 18 },
                    theme.dim,
                ),
                (
                    if narrow {
                        String::new()
                    } else {
                        format!(
                            "{:>6} {:<5}  ",
                            conversation.item_count,
                            if conversation.item_count == 1 {
                                "item"
                            } else {
                                "items"
                            }
                        )
                    },
                    if narrow { 0 } else { 14 },
                    theme.dim,
                ),
                (conversation.title.clone(), width, theme.text),
            ],
            width,
        );
        let line = if selected {
            line.style(theme.selected)
        } else {
            line
        };
        put(frame, parts.list, u16::try_from(row).unwrap_or(0), line);
    }
    crate::ui::more_below(
        frame,
        parts.heading,
        rows.len().saturating_sub(screen.cursor.offset + visible),
        theme,
    );
    let shown = rows.len().saturating_sub(screen.cursor.offset).min(visible);
    let note = match list {
        None => Some(("Reading the first page…".to_string(), theme.dim)),
        Some(l) if l.paging.error.is_some() => {
            Some((l.paging.error.clone().unwrap_or_default(), theme.danger))
        }
        Some(l) if l.paging.loading => Some(("Reading more…".to_string(), theme.dim)),
        Some(l) if l.rows.is_empty() && l.paging.loaded_once => {
            Some(("No conversations yet.".to_string(), theme.dim))
        }
        _ => None,
    };
    if let Some((words, style)) = note
        && shown < visible
    {
        put(
            frame,
            parts.list,
            u16::try_from(shown).unwrap_or(0),
            Line::from(Span::styled(format!("  {words}"), style)),
        );
    }
    crate::ui::filter::draw_filter(frame, parts.filter, &screen.filter, theme);
}

pub(crate) fn draw_conversation(
    frame: &mut Frame<'_>,
    phone: &Phone,
    screen: &ConversationScreen,
    theme: &Theme,
) {
    let area = frame.area();
    let (heading, whole) = geometry::conversation(area.width, area.height);
    let (chat, bar) = screen.search.split(whole);
    let list = phone.history().items(&screen.agent, &screen.conversation);
    let count = match list {
        Some(l) if l.paging.next.is_some() => format!("{}+ items", l.entries.len()),
        Some(l) => crate::out::count(l.entries.len(), "item", "items"),
        None => String::new(),
    };
    put(
        frame,
        heading,
        0,
        Line::from(vec![
            Span::styled(format!("{} — oldest first  ", screen.title), theme.title),
            Span::styled(count, theme.dim),
        ]),
    );
    let Some(list) = list else {
        return;
    };
    if list.entries.is_empty() {
        let words = match (&list.paging.error, list.paging.loading) {
            (Some(error), _) => error.clone(),
            (None, true) => "Reading…".to_string(),
            (None, false) => "This conversation has no items.".to_string(),
        };
        put(
            frame,
            chat,
            0,
            Line::from(Span::styled(format!("  {words}"), theme.dim)),
        );
        return;
    }
    let style = ChatStyle {
        width: chat.width,
        thinking_expanded: screen.thinking_expanded,
    };
    let scope = crate::screens::pane::conversation_scope(&screen.agent, &screen.conversation);
    let height = usize::from(chat.height);
    // Read from the top, one row more than fits tells whether the conversation goes on below;
    // following the newest, nothing is below.
    let rows = chat_view::visible_rows(
        phone.view.chat_layout(),
        &scope,
        &list.entries,
        &screen.scroll,
        &style,
        if screen.scroll.is_following() {
            height
        } else {
            height + 1
        },
        theme,
    );
    let query = screen.search.query();
    let lit = screen.search.lit && !query.is_empty();
    let current = screen.search.current.as_ref();
    let mut lines: Vec<Line<'static>> = rows
        .into_iter()
        .map(|row| {
            let key = list.entries.get(row.entry).map(entry_key);
            let may_match = lit
                && list
                    .entries
                    .get(row.entry)
                    .is_some_and(|entry| entry_may_match(entry, &query));
            if !may_match {
                return row.text;
            }
            let is_current = |column: usize| {
                key.as_ref()
                    .is_some_and(|key| current == Some(&(key.clone(), row.line, column)))
            };
            light(&row.text, &query, is_current, theme)
        })
        .collect();
    let more_below = lines.len() > height;
    lines.truncate(height);
    if list.paging.loading && lines.len() < height {
        lines.push(Line::from(Span::styled("Reading more…", theme.dim)));
    }
    frame.render_widget(Paragraph::new(lines), chat);
    if more_below && chat.height > 0 {
        // The pane's words for the same sign (`pane/draw_chat.rs`), on the last row.
        let last = Rect::new(chat.x, chat.bottom() - 1, chat.width, 1);
        crate::ui::note_at_end(frame, last, "↓ more below (G)", theme.accent);
    }
    if let Some(bar) = bar {
        draw_line(frame, phone, &screen.search, keys::CONVERSATION, bar, theme);
    }
}

impl crate::ui::Drawn for HistoryScreen {
    fn place(&self, _phone: &Phone) -> String {
        format!("{} › History", self.agent)
    }

    fn draw(&self, frame: &mut Frame<'_>, phone: &Phone, theme: &Theme) {
        draw_list(frame, phone, self, theme);
    }
}

impl crate::ui::Drawn for ConversationScreen {
    fn place(&self, _phone: &Phone) -> String {
        format!("{} › History › {}", self.agent, self.title)
    }

    fn draw(&self, frame: &mut Frame<'_>, phone: &Phone, theme: &Theme) {
        draw_conversation(frame, phone, self, theme);
    }
}
