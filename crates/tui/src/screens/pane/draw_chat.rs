//! A pane's chat as drawn: the rows on screen with the selected item tinted, the search's
//! matches lit (the current one brighter), the line under the chat (the search, or what the
//! selection offers), and the links shown, noted for the runner's OSC 8.

use std::collections::VecDeque;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::keymap::Action;
use crate::app::phone::Phone;
use crate::chat::pane_log::ChatEntry;
use crate::look::chat::ChatStyle;
use crate::look::chat_links::find_links;
use crate::look::chat_scroll::entry_key;
use crate::look::chat_search::entry_may_match;
use crate::look::chat_view;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::screens::PaneScreen;
use crate::screens::pane::select::DrawnLink;
use crate::screens::search::draw::{draw_line, light};
use crate::ui::put;

/// The chat of `screen` into the pane's chat part `area` (its last row goes to the line under
/// the chat when that shows).
pub(crate) fn draw_chat(
    frame: &mut Frame<'_>,
    phone: &Phone,
    screen: &PaneScreen,
    entries: &VecDeque<ChatEntry>,
    area: Rect,
    theme: &Theme,
) {
    let chat = screen.chat_area(phone);
    let style = ChatStyle {
        width: chat.width,
        thinking_expanded: screen.thinking_expanded,
    };
    let scope = crate::screens::pane::pane_scope(&screen.agent, &screen.pane);
    let rows = chat_view::visible_rows(
        phone.view.chat_layout(),
        &scope,
        entries,
        &screen.scroll,
        &style,
        usize::from(chat.height),
        theme,
    );
    let selected = screen.selected.as_deref().and_then(|key| {
        let from = rows.first()?.entry;
        let to = rows.last()?.entry;
        (from..=to).find(|i| entries.get(*i).is_some_and(|e| entry_key(e) == key))
    });
    let selected_lines = selected.and_then(|i| entries.get(i)).map_or(0, |entry| {
        phone
            .view
            .chat_layout()
            .height(&scope, entry, &style, theme)
    });
    let query = screen.search.query();
    let lit = screen.search.lit && !query.is_empty();
    // The selection's background and marks; each cell keeps its own colour of text.
    let tint = Style {
        fg: None,
        ..theme.selected
    };
    let mut may_match_last: Option<(usize, bool)> = None;
    for (index, row) in rows.iter().enumerate() {
        let Ok(y) = u16::try_from(index) else {
            break;
        };
        if y >= chat.height {
            break;
        }
        let y = chat.y + y;
        // Each entry is looked at once, however many of its rows show.
        let may_match = match may_match_last {
            Some((entry, answer)) if entry == row.entry => answer,
            _ => {
                let answer = lit
                    && entries
                        .get(row.entry)
                        .is_some_and(|entry| entry_may_match(entry, &query));
                may_match_last = Some((row.entry, answer));
                answer
            }
        };
        let line = if may_match {
            let key = entries.get(row.entry).map(entry_key);
            let current = screen.search.current.as_ref();
            light(
                &row.text,
                &query,
                |column| {
                    key.as_ref()
                        .is_some_and(|key| current == Some(&(key.clone(), row.line, column)))
                },
                theme,
            )
        } else {
            row.text.clone()
        };
        frame.buffer_mut().set_line(chat.x, y, &line, chat.width);
        // The item's own lines, not the blank one after it.
        if Some(row.entry) == selected && row.line + 1 < selected_lines {
            frame
                .buffer_mut()
                .set_style(Rect::new(chat.x, y, chat.width, 1), tint);
        }
    }
    let lines: Vec<Line<'static>> = rows.into_iter().map(|row| row.text).collect();
    let links = find_links(&lines, usize::from(chat.width))
        .into_iter()
        .filter_map(|piece| {
            let row = u16::try_from(piece.row).ok().filter(|r| *r < chat.height)?;
            let column = u16::try_from(piece.column).ok()?;
            Some(DrawnLink {
                x: chat.x.checked_add(column)?,
                y: chat.y + row,
                text: piece.text,
                url: piece.url,
            })
        })
        .collect();
    screen.drawn_links.replace(links);

    if !screen.scroll.is_following() && chat.height > 0 {
        let note = "↓ more below (G)";
        let x = chat
            .right()
            .saturating_sub(u16::try_from(wrap::width(note)).unwrap_or(0));
        // Its own row under the chat (`PaneScreen::chat_area` kept it), or the last row where the
        // chat is too short to give one.
        let bar = u16::from(screen.shows_chat_bar() && area.height > 1);
        let row = if chat.bottom() < area.bottom().saturating_sub(bar) {
            chat.bottom()
        } else {
            chat.bottom() - 1
        };
        frame.render_widget(
            Paragraph::new(Span::styled(note, theme.accent)),
            Rect::new(x, row, chat.right() - x, 1),
        );
    }
    if screen.shows_chat_bar() && area.height > 1 {
        let bar = Rect::new(area.x, area.bottom() - 1, area.width, 1);
        draw_bar(
            frame,
            phone,
            screen,
            entries,
            selected_index(screen, entries),
            bar,
            theme,
        );
    }
}

/// The selected entry's index in the whole chat, for "item 5 of 23".
fn selected_index(screen: &PaneScreen, entries: &VecDeque<ChatEntry>) -> Option<usize> {
    let key = screen.selected.as_deref()?;
    entries.iter().position(|e| entry_key(e) == key)
}

/// The line under the chat: the search line while it is open, the matches' count while they
/// are lit, else what can be done with the selected item.
fn draw_bar(
    frame: &mut Frame<'_>,
    phone: &Phone,
    screen: &PaneScreen,
    entries: &VecDeque<ChatEntry>,
    selected: Option<usize>,
    bar: Rect,
    theme: &Theme,
) {
    let key = |action| {
        phone
            .keymap()
            .key_label(crate::screens::pane::keys::CHAT, action)
            .unwrap_or_default()
    };
    if draw_line(
        frame,
        phone,
        &screen.search,
        crate::screens::pane::keys::CHAT,
        bar,
        theme,
    ) {
        return;
    }
    let Some(index) = selected else {
        return;
    };
    // Only the keys that do something with this item: code to copy, a link to open.
    let entry = &entries[index];
    let mut words = format!(
        "▌ item {} of {} · {} copy",
        index + 1,
        entries.len(),
        key(Action::Copy)
    );
    if crate::screens::pane::select::copy_text(entry, true).is_some() {
        words.push_str(&format!(" · {} code", key(Action::CopyCode)));
    }
    let style = ChatStyle {
        width: screen.chat_area(phone).width,
        thinking_expanded: screen.thinking_expanded,
    };
    let scope = crate::screens::pane::pane_scope(&screen.agent, &screen.pane);
    if crate::screens::pane::select::first_link(
        entry,
        phone.view.chat_layout(),
        &scope,
        &style,
        theme,
    )
    .is_some()
    {
        words.push_str(&format!(" · {} open link", key(Action::OpenLink)));
    }
    words.push_str(&format!(
        " · {} {} move · {} unselect",
        key(Action::SelectPrev),
        key(Action::SelectNext),
        key(Action::Back)
    ));
    put(frame, bar, 0, Line::from(Span::styled(words, theme.accent)));
}
