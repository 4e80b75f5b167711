//! Home: every agent with its state in words, how many of its panes have news (SPEC A22) and
//! how fresh it is, then "Needs your answer",
//! the nearest deadline first, then the oldest, with the time left of asks that expire and why
//! the first is first (SPEC A2, A13, H3, H6, S4, T6, V5).

use ratatui::Frame;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::geometry;
use crate::app::phone::Phone;
use crate::engine::AgentStatus;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::model::agents::AgentView;
use crate::model::inbox;
use crate::screens::HomeScreen;
use crate::ui::{ago, columns, put};

/// The state column of an agent's row: its whole sentence when it fits in `room`, else the
/// state word and the code, else the sentence cut with `…`; and how much of it the row holds.
fn row_state(status: &AgentStatus, room: usize) -> (String, Held) {
    let sentence = status.sentence();
    if wrap::width(&sentence) <= room {
        return (sentence, Held::Whole);
    }
    match status.word_and_code() {
        Some(code) if wrap::width(&code) <= room => (code, Held::Code),
        _ => (sentence, Held::Cut),
    }
}

/// How much of an agent's sentence its row holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Held {
    Whole,
    /// The state word and the code.
    Code,
    /// Less than the code: the sentence cut.
    Cut,
}

fn status_style(status: &AgentStatus, theme: &Theme) -> Style {
    match status {
        AgentStatus::Ready => theme.ok,
        AgentStatus::Connecting | AgentStatus::Starting => theme.warn,
        _ => theme.danger,
    }
}

/// "synced 2s ago", or what is known instead.
fn freshness(agent: &AgentView, now: time::OffsetDateTime) -> String {
    match agent.synced {
        Some(at) => format!("synced {}", ago((now - at).whole_seconds())),
        None => "not synced yet".to_string(),
    }
}

/// The state column of a ready agent whose panes have news since the person saw them (SPEC
/// A22): "Ready. · 2 panes with news", shorter where the row is short ("Ready ●2" at 40
/// columns); else as [`row_state`].
fn with_news(app: &Phone, agent: &AgentView, room: usize) -> String {
    let news = app.seen().count(&agent.name);
    let (state, _) = row_state(&agent.status, room);
    if news == 0 || agent.status != AgentStatus::Ready {
        return state;
    }
    let words = [
        format!(
            "{state} · {}",
            crate::out::count(news, "pane with news", "panes with news")
        ),
        format!("{state} · {news} with news"),
        format!("{state} · {news} new"),
        format!("{} ●{news}", state.trim_end_matches('.')),
    ];
    words
        .into_iter()
        .find(|words| wrap::width(words) <= room)
        .unwrap_or(state)
}

/// The state's words keep at least this many columns beside the agent's name.
const STATE_MIN: usize = 8;

pub(crate) fn draw(frame: &mut Frame<'_>, app: &Phone, screen: &HomeScreen, theme: &Theme) {
    let (width, height) = (frame.area().width, frame.area().height);
    let parts = geometry::home(width, height, app.agents().list.len());
    let agents = super::home_agents(app, &screen.filter);
    let heading = if screen.filter.is_active() {
        format!(
            "Agents  (filter: {})",
            crate::ui::filter::filter_text(&screen.filter)
        )
    } else {
        "Agents".to_string()
    };
    put(
        frame,
        parts.agents_heading,
        0,
        Line::from(Span::styled(heading, theme.title)),
    );
    let row_width = usize::from(parts.agents.width);
    let narrow = geometry::is_narrow(width);
    // How fresh: "synced 2s ago" in 16 columns, or "2s ago" in 11 on a narrow terminal.
    let fresh_width = if narrow { 11 } else { 16 };
    // The name column fits the longest name, as long as the state keeps a few columns.
    let name_width = app
        .agents()
        .list
        .iter()
        .map(|a| wrap::width(&crate::screens::home::draw_dsh::name(app, a)))
        .max()
        .unwrap_or(0)
        .max(8)
        .min(row_width.saturating_sub(6 + fresh_width + STATE_MIN));
    let state_room = row_width.saturating_sub(name_width + 6 + fresh_width);
    let selected_agent = agents
        .get(screen.agents.selected.min(agents.len().saturating_sub(1)))
        .and_then(|i| app.agents().list.get(*i));
    for (row, index) in agents
        .iter()
        .skip(screen.agents.offset)
        .take(usize::from(parts.agents.height))
        .enumerate()
    {
        let agent = &app.agents().list[*index];
        let is_selected = !screen.in_inbox && screen.agents.offset + row == screen.agents.selected;
        let fresh = if narrow {
            agent.synced.map_or_else(
                || "not synced".to_string(),
                |at| ago((app.now() - at).whole_seconds()),
            )
        } else {
            freshness(agent, app.now())
        };
        let line = columns(
            &[
                (
                    if is_selected {
                        "› ".into()
                    } else {
                        "  ".into()
                    },
                    2,
                    theme.accent,
                ),
                ("● ".into(), 2, status_style(&agent.status, theme)),
                (
                    crate::screens::home::draw_dsh::name(app, agent),
                    name_width,
                    theme.text,
                ),
                ("  ".into(), 2, theme.text),
                (with_news(app, agent, state_room), state_room, theme.text),
                (
                    format!("{fresh:>width$}", width = fresh_width - 1),
                    fresh_width,
                    theme.dim,
                ),
            ],
            row_width,
        );
        let line = if is_selected {
            line.style(theme.selected)
        } else {
            line
        };
        put(frame, parts.agents, u16::try_from(row).unwrap_or(0), line);
    }
    crate::ui::more_below(
        frame,
        parts.agents_heading,
        agents
            .len()
            .saturating_sub(screen.agents.offset + usize::from(parts.agents.height)),
        theme,
    );
    if agents.is_empty() {
        put(
            frame,
            parts.agents,
            0,
            Line::from(Span::styled("  No agent matches the filter.", theme.dim)),
        );
    }
    // The chosen agent's whole sentence, for the states whose words do not fit in a row.
    if let Some(agent) = selected_agent.filter(|_| !screen.in_inbox) {
        let mut words = match (&agent.status, &agent.snapshot) {
            _ if crate::screens::home::draw_dsh::detail(app, agent).is_some() => {
                crate::screens::home::draw_dsh::detail(app, agent).unwrap_or_default()
            }
            (AgentStatus::Ready, Some(snapshot)) => format!(
                "Ready: {} in {}, {}, reached {}.",
                crate::out::count(snapshot.panes().count(), "pane", "panes"),
                crate::out::count(snapshot.workspaces.len(), "workspace", "workspaces"),
                crate::out::count(snapshot.starters.len(), "starter", "starters"),
                match &agent.through_ssh {
                    Some(host) => format!("through ssh from {host}"),
                    None if agent.is_tls => "over TLS with a token".to_string(),
                    None => "over the private socket".to_string(),
                }
            ),
            // Doctor tells more of an agent the phone cannot use: it says so where it shows.
            // What the row did not hold, said once: the row has the state word and the
            // code, or the whole sentence when it fits.
            (status, _)
                if matches!(agent.link(), crate::model::agents::Link::Down(_))
                    && app.can(&agent.name).doctor =>
            {
                let sentence = match row_state(status, state_room).1 {
                    Held::Whole => String::new(),
                    Held::Code => status.plain(),
                    Held::Cut => status.sentence(),
                };
                let doctor = if status.sentence().contains("collie-phone doctor") {
                    ""
                } else {
                    "`collie-phone doctor` checks each step and says what to fix."
                };
                format!("{sentence} {doctor}").trim().to_string()
            }
            (status, _) => status.sentence(),
        };
        // The demo's runner saw its agent stop: said first, where a person looks.
        if let Some(news) = &agent.demo_news {
            words = format!("{} {words}", news.sentence());
        }
        match agent.epochs {
            0 | 1 => {}
            2 => words.push_str(" Restarted once since collie-phone started."),
            n => words.push_str(&format!(
                " Restarted {} times since collie-phone started.",
                n - 1
            )),
        }
        // Two rows, or the one a short screen has; words past them are cut with `…`, never
        // dropped without a sign.
        let room = row_width.saturating_sub(4);
        let kept = usize::from(parts.detail.height).clamp(1, 2);
        let mut rows = wrap::wrap(&words, room);
        if rows.len() > kept {
            rows.truncate(kept);
            let last = format!("{} …", rows[kept - 1].trim_end());
            rows[kept - 1] = if wrap::width(&last) <= room {
                last
            } else {
                wrap::truncate(&last, room)
            };
        }
        for (row, text) in rows.into_iter().enumerate() {
            put(
                frame,
                parts.detail,
                u16::try_from(row).unwrap_or(0),
                Line::from(Span::styled(format!("    {text}"), theme.dim)),
            );
        }
    }

    let rows = super::home_inbox(app, &screen.filter);
    // The counts leave out an ask from its deadline on, and set apart those on an agent the
    // phone cannot reach (their rows come last, dimmed): no key answers either now.
    let unreachable = rows
        .iter()
        .filter(|r| inbox::is_unreachable(r.agent) && !inbox::is_expired(r.ask, app.now()))
        .count();
    let answerable = rows
        .iter()
        .filter(|r| !inbox::is_unreachable(r.agent) && !inbox::is_expired(r.ask, app.now()))
        .count();
    let mut heading = match (answerable, rows.len()) {
        (_, 0) => "Needs your answer — nothing right now".to_string(),
        (n, _) => format!("Needs your answer ({n})"),
    };
    if unreachable > 0 {
        heading.push_str(&format!(" · {unreachable} on an unreachable agent"));
    }
    // Why the first row is first, once there is an order to read (docs/KEYS.md, "The ask
    // that needs you first"): the whole reason where it fits, else its time alone.
    if answerable > 1
        && let Some(first) = rows.first()
    {
        let facts = crate::model::triage::Facts::of(first);
        if facts.answerable(app.now()) {
            let why = crate::model::triage::why_first(&facts, app.now());
            // The "↓ 7 more" at the heading's end keeps its columns.
            let below = rows
                .len()
                .saturating_sub(screen.inbox.offset + usize::from(parts.inbox.height));
            let note = if below > 0 {
                wrap::width(&format!("↓ {below} more")) + 2
            } else {
                0
            };
            let room = usize::from(parts.inbox_heading.width).saturating_sub(note);
            let short = match why.strip_prefix("expires in ") {
                Some(left) => format!(" · first: {left}"),
                None => " · oldest first".to_string(),
            };
            for words in [format!(" · first: {why}"), short] {
                if wrap::width(&heading) + wrap::width(&words) <= room {
                    heading.push_str(&words);
                    break;
                }
            }
        }
    }
    put(
        frame,
        parts.inbox_heading,
        0,
        Line::from(Span::styled(heading, theme.title)),
    );
    let width = usize::from(parts.inbox.width);
    // Columns as wide as their widest entry (display width). On a narrow terminal the agent
    // goes when there is only one, and the kind goes (the card names it).
    let one_agent = app.agents().list.len() <= 1;
    let agent_width = if narrow && one_agent {
        0
    } else {
        rows.iter()
            .map(|r| wrap::width(&r.agent.name))
            .max()
            .unwrap_or(0)
            .min(if narrow { 8 } else { 14 })
            + 2
    };
    let kind_width = if narrow {
        0
    } else {
        rows.iter()
            .map(|r| wrap::width(r.ask.kind.as_str()))
            .max()
            .unwrap_or(0)
            + 2
    };
    let left_width = if rows.iter().any(|r| r.expires_at.is_some()) {
        if narrow { 9 } else { 13 }
    } else {
        0
    };
    // The titles' column is as wide as the longest title (and its two columns of air), so
    // the kind stays beside the titles however wide the terminal is.
    let longest_title = rows
        .iter()
        .map(|r| wrap::width(&r.ask.title))
        .max()
        .unwrap_or(0);
    // A pane's name takes the room the row has once the ask's title keeps enough to be read
    // (its whole length up to 24 columns): never cut while the row has columns to spare.
    let pane_room = width
        .saturating_sub(2 + agent_width + kind_width + left_width)
        .saturating_sub((longest_title + 2).min(24))
        .saturating_sub(2)
        .max(if narrow { 10 } else { 18 });
    let pane_width = rows
        .iter()
        .map(|r| wrap::width(&r.pane.pane.title))
        .max()
        .unwrap_or(0)
        .min(pane_room)
        + 2;
    let title_width = width
        .saturating_sub(2 + agent_width + pane_width + kind_width + left_width)
        .min(longest_title + 2);
    for (row, ask) in rows
        .iter()
        .skip(screen.inbox.offset)
        .take(usize::from(parts.inbox.height))
        .enumerate()
    {
        let is_selected = screen.in_inbox && screen.inbox.offset + row == screen.inbox.selected;
        let (left, left_style) = crate::ui::countdown::countdown(ask.expires_at, app.now(), theme);
        // "4:10" rather than "4:10 left" where every column counts.
        let left = if narrow {
            left.trim_end_matches(" left").to_string()
        } else {
            left
        };
        let line = columns(
            &[
                (
                    if is_selected {
                        "› ".into()
                    } else {
                        "  ".into()
                    },
                    2,
                    theme.accent,
                ),
                // Cut two columns short of their width, so a cut name keeps its air.
                (
                    wrap::truncate(&ask.agent.name, agent_width.saturating_sub(2)),
                    agent_width,
                    theme.dim,
                ),
                (
                    wrap::truncate(&ask.pane.pane.title, pane_width.saturating_sub(2)),
                    pane_width,
                    theme.text,
                ),
                // Two columns of air after the title, like every other column has.
                (
                    ask.ask.title.clone(),
                    title_width.saturating_sub(2),
                    theme.text,
                ),
                (String::new(), 2.min(title_width), theme.text),
                (
                    if narrow {
                        String::new()
                    } else {
                        ask.ask.kind.as_str().to_string()
                    },
                    kind_width,
                    theme.accent,
                ),
                (
                    format!("{left:>width$}", width = left_width.saturating_sub(1)),
                    left_width,
                    left_style,
                ),
            ],
            width,
        );
        let line = if is_selected {
            line.style(theme.selected)
        } else if inbox::is_unreachable(ask.agent) {
            line.style(theme.dim)
        } else {
            line
        };
        put(frame, parts.inbox, u16::try_from(row).unwrap_or(0), line);
    }
    crate::ui::more_below(
        frame,
        parts.inbox_heading,
        rows.len()
            .saturating_sub(screen.inbox.offset + usize::from(parts.inbox.height)),
        theme,
    );
    if rows.is_empty() && !app.agents().list.iter().any(|a| a.status.is_ready()) {
        put(
            frame,
            parts.inbox,
            0,
            Line::from(Span::styled(
                "  Waiting for an agent to be ready…",
                theme.dim,
            )),
        );
    }
}

impl crate::ui::Drawn for HomeScreen {
    fn place(&self, _app: &Phone) -> String {
        "Home".to_string()
    }

    fn draw(&self, frame: &mut Frame<'_>, app: &Phone, theme: &Theme) {
        draw(frame, app, self, theme);
    }
}
