//! An agent's workspaces, tabs and panes as a tree, titles aligned by display width so CJK and
//! emoji line up, each pane with its state in words (SPEC A2), a pane with news since the person
//! saw it marked and its tab counting them (SPEC A22).

use ratatui::Frame;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::geometry;
use crate::app::keymap::{Action, Context, Hint};
use crate::app::phone::Phone;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::screens::LayoutScreen;
use crate::screens::layout::TreeRow;
use crate::ui::{columns, put};
use crate::wire::{PaneState, TurnState};

/// The state word of a pane and its style: the known ones, or the agent's own word (SPEC V2).
pub(crate) fn state_word(state: &PaneState, theme: &Theme) -> (String, Style) {
    let style = match state {
        PaneState::Running => theme.accent,
        PaneState::Waiting => theme.warn,
        PaneState::Failed => theme.danger,
        PaneState::Idle | PaneState::Starting => theme.dim,
        PaneState::Unknown(_) => theme.text,
    };
    (state.as_str().to_string(), style)
}

/// "1 ask", "12 asks": the asks column on a narrow terminal.
const ASKS_NARROW: usize = 8;

pub(crate) fn turn_words(state: &TurnState) -> &str {
    state.as_str()
}

pub(crate) fn draw(frame: &mut Frame<'_>, phone: &Phone, screen: &LayoutScreen, theme: &Theme) {
    let area = frame.area();
    let parts = geometry::listing(area.width, area.height, screen.filter.is_active());
    let agent = phone.agents().get(&screen.agent);
    let status = agent.map(|a| a.status.sentence()).unwrap_or_default();
    let narrow = geometry::is_narrow(area.width);
    put(
        frame,
        parts.heading,
        0,
        Line::from(vec![
            Span::styled(
                if narrow {
                    format!("{} — workspaces  ", screen.agent)
                } else {
                    format!("{} — workspaces, tabs and panes  ", screen.agent)
                },
                theme.title,
            ),
            Span::styled(status, theme.dim),
        ]),
    );
    let rows = screen.rows(phone);
    if rows.is_empty() {
        let words = match agent.and_then(|a| a.snapshot.as_ref()) {
            None => "No layout yet: the agent has not sent its snapshot.",
            Some(_) if screen.filter.is_active() => "Nothing matches the filter.",
            Some(_) => "This agent has no workspaces.",
        };
        put(
            frame,
            parts.list,
            0,
            Line::from(Span::styled(format!("  {words}"), theme.dim)),
        );
    }
    // Every title gets the same column, measured in display width.
    let title_width = rows
        .iter()
        .map(|row| {
            let (indent, title) = match row {
                TreeRow::Workspace(w) => (0, w.title.as_str()),
                TreeRow::Tab(t) => (2, t.title.as_str()),
                TreeRow::Pane(p) => (4, p.pane.title.as_str()),
            };
            indent + wrap::width(title)
        })
        .max()
        .unwrap_or(0)
        .clamp(12, 44);
    let width = usize::from(parts.list.width);
    // The state column fits the longest word shown (an agent's own word may be long), at
    // least 10 so the usual words line up the same on every screen.
    let state_width = rows
        .iter()
        .filter_map(|row| match row {
            TreeRow::Pane(p) => Some(wrap::width(p.state().as_str()) + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
        .clamp(if narrow { 9 } else { 10 }, if narrow { 12 } else { 24 });
    // On a narrow terminal the titles give way to the state and the asks, and the turn goes
    // (the pane's heading names it).
    let title_width = if narrow {
        title_width.min(
            width
                .saturating_sub(2 + 2 + state_width + ASKS_NARROW)
                .max(8),
        )
    } else {
        title_width
    };
    let asks_width = if narrow { ASKS_NARROW } else { 9 };
    for (row, entry) in rows
        .iter()
        .skip(screen.cursor.offset)
        .take(usize::from(parts.list.height))
        .enumerate()
    {
        let selected = screen.cursor.offset + row == screen.cursor.selected;
        let marker = if selected { "› " } else { "  " };
        let line = match entry {
            TreeRow::Workspace(w) => columns(
                &[
                    (marker.into(), 2, theme.accent),
                    (w.title.clone(), title_width + 2, theme.title),
                    (
                        if narrow {
                            plural(w.tabs.len(), "1 tab", "tabs", "")
                        } else {
                            plural(w.tabs.len(), "workspace · 1 tab", "tabs", "workspace · ")
                        },
                        30,
                        theme.dim,
                    ),
                ],
                width,
            ),
            TreeRow::Tab(t) => {
                // The tab's panes with news since the person saw them (SPEC A22).
                let news = t
                    .panes
                    .iter()
                    .filter(|p| phone.seen().news(&screen.agent, &p.id).is_some())
                    .count();
                let mut count = if narrow {
                    plural(t.panes.len(), "1 pane", "panes", "")
                } else {
                    plural(t.panes.len(), "tab · 1 pane", "panes", "tab · ")
                };
                if news > 0 {
                    count.push_str(&if narrow {
                        format!(" · {news} new")
                    } else {
                        format!(" · {news} with news")
                    });
                }
                columns(
                    &[
                        (marker.into(), 2, theme.accent),
                        (format!("  {}", t.title), title_width + 2, theme.text),
                        (count, 30, if news > 0 { theme.accent } else { theme.dim }),
                    ],
                    width,
                )
            }
            TreeRow::Pane(p) => {
                let (word, style) = state_word(p.state(), theme);
                let asks = match p.asks().len() {
                    0 => String::new(),
                    1 => "1 ask".into(),
                    n => format!("{n} asks"),
                };
                let turn = p
                    .turn()
                    .map(|t| {
                        format!(
                            "{} {}",
                            crate::app::names::turn_name(&t.id),
                            turn_words(&t.state)
                        )
                    })
                    .unwrap_or_default();
                // A pane with news since the person saw it is marked, and says why after its
                // turn where the line is wide, so a short line cuts the why first (SPEC A22).
                let news = phone.seen().news(&screen.agent, &p.pane.id);
                let mark = if news.is_some() { "●" } else { " " };
                let turn = match news {
                    Some(news) if !turn.is_empty() => format!("{turn} · {}", news.words()),
                    Some(news) => news.words().to_string(),
                    None => turn,
                };
                columns(
                    &[
                        (marker.into(), 2, theme.accent),
                        ("  ".into(), 2, theme.text),
                        (mark.into(), 2, theme.accent),
                        (p.pane.title.clone(), title_width - 2, theme.text),
                        (word, state_width, style),
                        (asks, asks_width, theme.warn),
                        (if narrow { String::new() } else { turn }, 40, theme.dim),
                    ],
                    width,
                )
            }
        };
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
        rows.len()
            .saturating_sub(screen.cursor.offset + usize::from(parts.list.height)),
        theme,
    );
    crate::ui::filter::draw_filter(frame, parts.filter, &screen.filter, theme);
}

/// "tab · 1 pane", "tab · 3 panes".
fn plural(count: usize, one: &str, many: &str, prefix: &str) -> String {
    if count == 1 {
        one.to_string()
    } else {
        format!("{prefix}{count} {many}")
    }
}

impl crate::ui::Drawn for LayoutScreen {
    fn place(&self, _phone: &Phone) -> String {
        format!("{} › Workspaces", self.agent)
    }

    fn draw(&self, frame: &mut Frame<'_>, phone: &Phone, theme: &Theme) {
        draw(frame, phone, self, theme);
    }

    /// A bridge's tasks close and open here: its layout hints those keys.
    fn hints(&self, phone: &Phone, context: Context) -> Option<&'static [Hint]> {
        (phone.can(&self.agent).closes_only_tasks
            && context == crate::screens::layout::keys::LAYOUT)
            .then_some(&[
                (Action::Open, "open", "open"),
                (Action::Close, "close task", "close"),
                (Action::NewPage, "new task", "new"),
                (Action::Filter, "filter", "filter"),
                (Action::Back, "back", "back"),
                (Action::Help, "help", "help"),
            ])
    }
}
