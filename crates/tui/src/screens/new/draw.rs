//! The New page: each agent's starters as rows (SPEC A17).

use ratatui::Frame;
use ratatui::text::{Line, Span};

use crate::app::geometry;
use crate::app::phone::Phone;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::screens::NewScreen;
use crate::ui::{columns, put};

pub(crate) fn draw(frame: &mut Frame<'_>, phone: &Phone, screen: &NewScreen, theme: &Theme) {
    let area = frame.area();
    let parts = geometry::listing(area.width, area.height, screen.filter.is_active());
    let narrow = geometry::is_narrow(area.width);
    put(
        frame,
        parts.heading,
        0,
        Line::from(Span::styled(
            match (!phone.has_bridges(), narrow) {
                (true, false) => "New — run a starter; its pane opens when it is ready",
                (false, false) => {
                    "New — run a starter or start a DSH task; its pane opens when ready"
                }
                (true, true) => "New — run a starter",
                (false, true) => "New — a starter or a DSH task",
            },
            theme.title,
        )),
    );
    let rows = super::starter_rows(phone, &screen.filter);
    let bridge_rows = crate::screens::dsh_form::dsh_new_rows(phone, &screen.filter);
    // The agent's and the title's columns fit their longest entry, up to a cap; on a narrow
    // terminal the agent goes when there is only one.
    let agents: Vec<&str> = rows
        .iter()
        .map(|r| r.agent)
        .chain(bridge_rows.iter().map(|r| r.agent.as_str()))
        .collect();
    let one_agent = agents.windows(2).all(|pair| pair[0] == pair[1]);
    let agent_width = if narrow && one_agent {
        0
    } else {
        agents
            .iter()
            .map(|a| wrap::width(a))
            .max()
            .unwrap_or(0)
            .min(if narrow { 8 } else { 20 })
            + 2
    };
    let title_width = rows
        .iter()
        .map(|r| wrap::width(&r.starter.title))
        .chain(bridge_rows.iter().map(|r| wrap::width(&r.title)))
        .max()
        .unwrap_or(0)
        .min(if narrow { 18 } else { 40 })
        + 2;
    if rows.is_empty() && bridge_rows.is_empty() {
        put(
            frame,
            parts.list,
            0,
            Line::from(Span::styled(
                "  No starters: no ready agent offers one.",
                theme.dim,
            )),
        );
    }
    let width = usize::from(parts.list.width);
    for (row, starter) in rows
        .iter()
        .skip(screen.cursor.offset)
        .take(usize::from(parts.list.height))
        .enumerate()
    {
        let selected = screen.cursor.offset + row == screen.cursor.selected;
        let line = columns(
            &[
                (
                    if selected { "› ".into() } else { "  ".into() },
                    2,
                    theme.accent,
                ),
                (starter.agent.to_string(), agent_width, theme.dim),
                (starter.starter.title.clone(), title_width, theme.text),
                (
                    starter.starter.description.clone().unwrap_or_default(),
                    width,
                    theme.dim,
                ),
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
    // The DSH bridges' rows follow the starters, in the same list and selection.
    for (index, bridge_row) in bridge_rows.iter().enumerate() {
        let position = rows.len() + index;
        let Some(row) = position.checked_sub(screen.cursor.offset) else {
            continue;
        };
        if row >= usize::from(parts.list.height) {
            break;
        }
        let selected = position == screen.cursor.selected;
        let line = columns(
            &[
                (
                    if selected { "› ".into() } else { "  ".into() },
                    2,
                    theme.accent,
                ),
                (bridge_row.agent.clone(), agent_width, theme.dim),
                (bridge_row.title.clone(), title_width, theme.text),
                (bridge_row.description.clone(), width, theme.dim),
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
    crate::ui::filter::draw_filter(frame, parts.filter, &screen.filter, theme);
}

impl crate::ui::Drawn for NewScreen {
    fn place(&self, _phone: &Phone) -> String {
        "New".to_string()
    }

    fn draw(&self, frame: &mut Frame<'_>, phone: &Phone, theme: &Theme) {
        draw(frame, phone, self, theme);
    }
}
