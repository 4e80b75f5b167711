//! A pane: heading with the turn (SPEC A16), the chat, the open asks, the belt, the input box
//! with its live size against 32 KiB (SPEC L), and the state of the last thing sent.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};
use time::OffsetDateTime;

use crate::app::keymap::{Action, Context};
use crate::app::phone::Phone;
use crate::engine::AgentStatus;
use crate::engine::{IntentKind, IntentState};
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::model::agents::Link;
use crate::model::outbox::{Outgoing, Step};
use crate::model::{intents, outcome};
use crate::screens::layout::draw::{state_word, turn_words};
use crate::screens::pane::{belt_slots, byte_count};
use crate::screens::{PaneFocus, PaneScreen};
use crate::text::soft_wrap;
use crate::ui::put;
use crate::wire::limits;

/// The columns the pane's place keeps in its heading however much the state, turn and mode
/// after it say: enough to know the pane.
const PLACE_AT_LEAST: usize = 16;

pub(crate) fn draw(frame: &mut Frame<'_>, phone: &Phone, screen: &PaneScreen, theme: &Theme) {
    let parts = screen.parts(phone);
    let Some(pane) = phone.agents().pane(&screen.agent, &screen.pane) else {
        put(
            frame,
            parts.heading,
            0,
            Line::from(Span::styled(
                "This pane is not in the agent's layout (any more). Its draft is kept.",
                theme.warn,
            )),
        );
        draw_input(frame, phone, screen, parts.input, theme);
        return;
    };
    let link = phone
        .agents()
        .get(&screen.agent)
        .map_or(Link::Up, |a| a.link());
    // What the pane shows is only as new as the last poll that went through: while the agent
    // does not answer, the heading says so instead of a state that may have changed.
    let (word, word_style) = match link {
        Link::Up => state_word(pane.state(), theme),
        Link::Missed(_) => ("not answering".to_string(), theme.warn),
        Link::Down(_) => ("unreachable".to_string(), theme.danger),
        Link::Waiting(_) => ("connecting".to_string(), theme.dim),
    };
    let turn = match (
        crate::screens::pane::draw_dsh::turn_words(phone, screen),
        pane.turn(),
    ) {
        (Some(words), _) => words,
        (None, Some(turn)) => format!(
            "{} {}",
            crate::app::names::turn_name(&turn.id),
            turn_words(&turn.state)
        ),
        (None, None) => "no turn yet".to_string(),
    };
    let turn = if link == Link::Up {
        format!("  {turn}")
    } else {
        format!("  last heard: {turn}")
    };
    let mode = mode_span(&pane.pane.settings, theme);
    // A narrow terminal names the pane only. Either way the place gives way to the state, the
    // turn and the mode: a long title is cut with … rather than push them off the line.
    let place = if crate::app::geometry::is_narrow(parts.heading.width) {
        pane.pane.title.to_string()
    } else {
        format!(
            "{} › {} › {}",
            pane.workspace.title, pane.tab.title, pane.pane.title
        )
    };
    let after = wrap::width(&word) + wrap::width(&turn) + wrap::width(&mode.content);
    let place_room = usize::from(parts.heading.width)
        .saturating_sub(after + 2)
        .max(PLACE_AT_LEAST);
    put(
        frame,
        parts.heading,
        0,
        Line::from(vec![
            Span::styled(
                format!("{}  ", wrap::truncate(&place, place_room)),
                theme.title,
            ),
            Span::styled(word, word_style),
            Span::styled(turn, theme.dim),
            mode,
        ]),
    );

    if !pane.pane.settings.is_empty() || pane.pane.usage.is_some() {
        draw_settings(frame, phone, pane.pane, parts.settings, theme);
    }

    match pane.log {
        Some(log) => crate::screens::pane::draw_chat::draw_chat(
            frame,
            phone,
            screen,
            &log.entries,
            parts.chat,
            theme,
        ),
        None => {
            screen.drawn_links.replace(Vec::new());
            put(
                frame,
                parts.chat,
                0,
                Line::from(Span::styled("Reading the chat…", theme.dim)),
            );
        }
    }

    draw_outbox(frame, phone, screen, parts.outbox, theme);

    let asks = pane.asks();
    if let Some(first) = asks.first() {
        let key = phone
            .keymap()
            .key_label(crate::screens::pane::keys::CHAT, Action::OpenAsk)
            .unwrap_or_default();
        let narrow = crate::app::geometry::is_narrow(parts.asks.width);
        let count = asks.len();
        let desktop = phone.can(&screen.agent).desktop_waits;
        let line = |title: &str| match count {
            // The key first on a narrow terminal, so a long title never cuts it.
            1 if narrow && desktop => {
                format!("⚑ {key} shows it: {}", title)
            }
            n if narrow && desktop => {
                format!("⚑ {n} waits, {key} shows: {}", title)
            }
            1 if narrow => format!("⚑ {key} to answer: {}", title),
            n if narrow => format!("⚑ {n} asks, {key} to answer: {}", title),
            1 if desktop => format!("⚑ {} — {key} shows it", title),
            n if desktop => format!(
                "⚑ {n} waits on the desktop, oldest: {} — {key} shows it",
                title
            ),
            1 => format!("⚑ Needs your answer: {} — {key} to answer", title),
            n => format!(
                "⚑ {n} asks need your answer, oldest: {} — {key} to answer",
                title
            ),
        };
        // The title gives way, never the key: a line too long for the row cuts the title.
        let mut words = line(&first.title);
        let room = usize::from(parts.asks.width);
        if crate::look::wrap::width(&words) > room {
            let fixed = crate::look::wrap::width(&line(""));
            words = line(&crate::look::wrap::truncate(
                &first.title,
                room.saturating_sub(fixed),
            ));
        }
        put(
            frame,
            parts.asks,
            0,
            Line::from(Span::styled(words, theme.warn)),
        );
    }

    if let Some(line) = connection_line(phone, &screen.agent, link, theme)
        .or_else(|| crate::screens::pane::draw_dsh::info_line(phone, screen, theme))
    {
        put(frame, parts.belt, 0, line);
        draw_input(frame, phone, screen, parts.input, theme);
        draw_status(frame, phone, screen, parts.status, theme);
        crate::screens::pane::draw_commands::draw(frame, phone, screen, parts.input, theme);
        return;
    }
    let slots = belt_slots(&pane.pane.belt, parts.belt.width);
    let mut spans: Vec<Span<'static>> = Vec::new();
    for slot in &slots {
        if !spans.is_empty() {
            spans.push(Span::raw(" "));
        }
        spans.push(Span::styled(slot.text.clone(), theme.accent));
    }
    if slots.is_empty() {
        spans.push(Span::styled("No belt buttons.", theme.dim));
    }
    put(frame, parts.belt, 0, Line::from(spans));

    draw_input(frame, phone, screen, parts.input, theme);
    draw_status(frame, phone, screen, parts.status, theme);
    crate::screens::pane::draw_commands::draw(frame, phone, screen, parts.input, theme);
}

/// What the phone knows of its way to the pane's agent, in the belt's row, while it is not
/// simply up: the person must not read a stale pane as a live one. None while up.
fn connection_line(
    phone: &Phone,
    agent: &str,
    link: Link<'_>,
    theme: &Theme,
) -> Option<Line<'static>> {
    let peer = phone.can(agent).noun;
    let (text, style) = match link {
        Link::Up => return None,
        // The cause last: a narrow screen cuts it, not what the person can count on.
        Link::Missed(reason) => (
            format!(
                "{peer} missed a poll; retrying. What is shown may be old ({}).",
                reason.trim_end_matches('.')
            ),
            theme.warn,
        ),
        Link::Down(AgentStatus::Unreachable { reason, last_seen }) => (
            format!(
                "{peer} is not answering{}; the phone keeps retrying ({}).",
                last_seen
                    .map(|at| format!(" since {:02}:{:02}", at.hour(), at.minute()))
                    .unwrap_or_default(),
                reason.trim_end_matches('.'),
            ),
            theme.danger,
        ),
        Link::Down(status) => (status.sentence(), theme.danger),
        Link::Waiting(status) => (status.sentence(), theme.dim),
    };
    Some(Line::from(Span::styled(text, style)))
}

/// The sends that left the box, one line each, with their state (SPEC Q1–Q5): the words stay
/// on screen until the agent took them; a held one says how to retry it or take it back.
fn draw_outbox(
    frame: &mut Frame<'_>,
    phone: &Phone,
    screen: &PaneScreen,
    area: Rect,
    theme: &Theme,
) {
    if area.height == 0 {
        return;
    }
    let context = if screen.focus == PaneFocus::Input {
        crate::screens::pane::keys::INPUT
    } else {
        crate::screens::pane::keys::CHAT
    };
    // Words that waited too long for their agent and came back to the box: said first, and
    // until the person sends or edits the box (docs/ENGINE.md).
    let told = phone.came_back(&screen.agent, &screen.pane);
    if let Some(at) = told {
        put(
            frame,
            area,
            0,
            came_back_line(&screen.agent, at, usize::from(area.width), theme),
        );
    }
    let area = if told.is_some() {
        Rect {
            y: area.y + 1,
            height: area.height - 1,
            ..area
        }
    } else {
        area
    };
    if area.height == 0 {
        return;
    }
    let lines: Vec<&Outgoing> = phone.outbox().lines(&screen.agent, &screen.pane).collect();
    let room = usize::from(area.height);
    // When they do not all fit, the first ones show (the held one is first) and the last row
    // says how many more wait.
    let shown = if lines.len() > room {
        room - 1
    } else {
        lines.len()
    };
    for (row, outgoing) in lines.iter().take(shown).enumerate() {
        let line = outbox_line(phone, outgoing, context, usize::from(area.width), theme);
        put(frame, area, u16::try_from(row).unwrap_or(u16::MAX), line);
    }
    if lines.len() > shown {
        let more = lines.len() - shown;
        put(
            frame,
            area,
            u16::try_from(shown).unwrap_or(u16::MAX),
            Line::from(Span::styled(
                format!("  … and {more} more waiting, in the order typed"),
                theme.dim,
            )),
        );
    }
}

/// "Not sent: demo was not ready for 10 minutes, so at 14:40:00 UTC your words came back to
/// the box.": the longest that fits whole, the time going first and the agent next, so a
/// narrow screen still says what happened and where the words are.
fn came_back_line(agent: &str, at: OffsetDateTime, width: usize, theme: &Theme) -> Line<'static> {
    let minutes = crate::model::outbox::WAIT_FOR_AGENT_SECONDS / 60;
    let said = [
        format!(
            "Not sent: {agent} was not ready for {minutes} minutes, so at {} your words came back to the box.",
            crate::model::inbox::clock_time(at)
        ),
        format!(
            "Not sent: {agent} was not ready for {minutes} minutes; your words are back in the box."
        ),
        "Not sent: the words are back in the box.".to_string(),
    ];
    let text = said
        .iter()
        .find(|text| wrap::width(text) <= width)
        .unwrap_or(&said[2])
        .clone();
    Line::from(Span::styled(text, theme.warn))
}

fn outbox_line(
    phone: &Phone,
    outgoing: &Outgoing,
    context: Context,
    width: usize,
    theme: &Theme,
) -> Line<'static> {
    let text = outgoing.text();
    let mut first = text.lines().next().unwrap_or("").to_string();
    let more_lines = text.lines().count().saturating_sub(1);
    if more_lines > 0 {
        first.push_str(&format!(" (+{more_lines} lines)"));
    }
    let record = outgoing.request_id().and_then(|id| phone.intents().get(id));
    let (words, style) = match (&outgoing.step, record) {
        (Step::Queued, _) => (outcome::IntentOutcome::HeldBehind.short(), theme.dim),
        (Step::Submitted, _) => ("sending…".to_string(), theme.dim),
        (_, None) => ("sending…".to_string(), theme.dim),
        (_, Some(record)) => {
            let style = match &record.state {
                s if intents::is_in_flight(s) => theme.dim,
                IntentState::Done { .. } | IntentState::Replayed { .. } => theme.ok,
                IntentState::Unknown { .. } | IntentState::MaybeApplied => theme.warn,
                _ => theme.danger,
            };
            (outcome::short(record), style)
        }
    };
    // A send that never left waits for its agent and goes by itself (docs/ENGINE.md): the line
    // says so, and offers only taking it back.
    let waits = outgoing.waits_for_agent()
        && record.is_some_and(|r| matches!(r.state, IntentState::NotSent { .. }));
    let (words, style) = if waits {
        (outcome::IntentOutcome::HeldForAgent.short(), theme.warn)
    } else {
        (words, style)
    };
    let mut hints = Vec::new();
    if waits {
        if let Some(key) = phone.keymap().key_label(context, Action::TakeBack) {
            hints.push(format!("{key} takes it back"));
        }
    } else if let Some(record) = record
        && phone.send_is_held(&record.request_id)
    {
        if intents::is_retryable(record)
            && let Some(key) = phone.keymap().key_label(context, Action::Retry)
        {
            // While the engine checks it, the key asks for the next check at once.
            hints.push(if record.checking {
                format!("{key} checks now")
            } else {
                format!("{key} retries")
            });
        }
        if let Some(key) = phone.keymap().key_label(context, Action::TakeBack) {
            hints.push(format!("{key} takes it back"));
        }
    }
    let hints = if hints.is_empty() {
        String::new()
    } else if waits {
        format!(" · {}", hints.join(" · "))
    } else {
        format!(" — {}", hints.join(" · "))
    };
    // The keys matter most, then the state, then the end of long words: each gives way in
    // that order, the words keeping a few columns so the line still says which send it is.
    let words_min = wrap::width(&first).min(8);
    let state_room = width.saturating_sub(2 + words_min + 2 + wrap::width(&hints));
    let words = if wrap::width(&words) > state_room {
        wrap::truncate(&words, state_room)
    } else {
        words
    };
    let first_room = width.saturating_sub(2 + 2 + wrap::width(&words) + wrap::width(&hints));
    if wrap::width(&first) > first_room {
        first = wrap::truncate(&first, first_room.max(words_min));
    }
    Line::from(vec![
        Span::styled("› ", theme.dim),
        Span::styled(first, theme.text),
        Span::styled("  ", theme.dim),
        Span::styled(words, style),
        Span::styled(hints, theme.accent),
    ])
}

fn draw_input(
    frame: &mut Frame<'_>,
    phone: &Phone,
    screen: &PaneScreen,
    area: Rect,
    theme: &Theme,
) {
    let focused = screen.focus == PaneFocus::Input && phone.overlay.is_none();
    let border = if focused { theme.accent } else { theme.border };
    let title = crate::screens::pane::draw_dsh::input_title(phone, screen)
        .unwrap_or_else(|| " Message ".to_string());
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(border)
        .title(Span::styled(title, border));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let draft = phone.draft(&screen.agent, &screen.pane);
    let empty = draft.is_none_or(|d| d.is_empty());
    if empty && !focused {
        let key = phone
            .keymap()
            .key_label(crate::screens::pane::keys::CHAT, Action::FocusInput)
            .unwrap_or_default();
        put(
            frame,
            inner,
            0,
            Line::from(Span::styled(format!("{key} to type a message"), theme.dim)),
        );
        return;
    }
    let Some(draft) = draft else {
        if focused {
            frame.set_cursor_position(Position::new(inner.x, inner.y));
        }
        return;
    };
    // The text wrapped into rows as the box's height was worked out (`PaneScreen::parts`);
    // past its most rows the box shows the ones around the cursor (docs/KEYS.md).
    let width = usize::from(inner.width.max(1));
    let (rows, (row, column)) = draft.rows(width);
    let height = usize::from(inner.height.max(1));
    let first = soft_wrap::first_shown(rows.len(), row, height);
    let lines = draft.lines();
    for (i, shown) in rows.iter().skip(first).take(height).enumerate() {
        let mut text = &lines[shown.line][shown.bytes.clone()];
        if wrap::width(text) > width {
            // Whitespace hanging past the edge is not drawn (an ellipsis would stand for it).
            text = text.trim_end_matches(char::is_whitespace);
        }
        put(
            frame,
            inner,
            u16::try_from(i).unwrap_or(0),
            Line::from(Span::styled(text.to_string(), theme.text)),
        );
    }
    if rows.len() > height {
        draw_rows_note(frame, area, first, height, rows.len(), border);
    }
    if focused {
        // Whitespace hanging past the edge keeps the cursor on the last column.
        let x = inner.x + u16::try_from(column.min(width - 1)).unwrap_or(0);
        let y = inner.y + u16::try_from(row - first).unwrap_or(0);
        frame.set_cursor_position(Position::new(x, y));
    }
}

/// "rows 4–9 of 14" on the box's bottom border, at the right, while the box scrolls: a long
/// prompt shows it has more than the rows in view.
fn draw_rows_note(
    frame: &mut Frame<'_>,
    area: Rect,
    first: usize,
    height: usize,
    total: usize,
    style: Style,
) {
    let note = format!(" rows {}–{} of {total} ", first + 1, first + height);
    let width = u16::try_from(wrap::width(&note)).unwrap_or(u16::MAX);
    if area.height < 2 || width + 2 > area.width {
        return;
    }
    let at = Rect::new(area.right() - width - 1, area.bottom() - 1, width, 1);
    put(frame, at, 0, Line::from(Span::styled(note, style)));
}

/// The agent's mode in the heading line itself (docs/ACP.md, "The mode a session starts
/// in"): how much the agent may do unasked is never scrolled or cut away with the settings
/// line. A mode that acts without asking is a warning.
fn mode_span(settings: &[crate::wire::Setting], theme: &Theme) -> Span<'static> {
    let Some(mode) = settings.iter().find(|s| s.id == "mode") else {
        return Span::raw("");
    };
    if mode.current_choice().is_some_and(|c| c.acts_without_asking) {
        Span::styled(format!("  ⚠ {}", mode.current_name()), theme.warn)
    } else {
        Span::styled(format!("  {}", mode.current_name()), theme.text)
    }
}

/// The agent's mode and options as it last said them, under the heading, and the key that
/// switches them; at the right, its usage ("43k of 200k tokens · 22 % · $0.42"). A choice that
/// lets the agent act without asking is drawn as a warning. On a short row the mode is the last
/// to go: the usage gives way first, then the other settings, whole, and the row ends with "…"
/// (docs/KEYS.md, "Lines that are cut").
fn draw_settings(
    frame: &mut Frame<'_>,
    phone: &Phone,
    pane: &crate::wire::Pane,
    area: Rect,
    theme: &Theme,
) {
    let settings = &pane.settings;
    let (key, groups) = setting_groups(phone, settings, area.width, theme);
    if let Some(usage) = &pane.usage {
        let words = usage.words();
        let width = u16::try_from(wrap::width(&words)).unwrap_or(u16::MAX);
        // The key and the mode, with the sign of a cut, must fit beside it.
        let needed = key.as_ref().map_or(0, |(_, w)| *w)
            + groups.iter().find(|g| g.kept).map_or(0, |g| g.width)
            + wrap::width(crate::ui::CUT);
        let needed = if settings.is_empty() { 0 } else { needed };
        if width < area.width && usize::from(area.width - width - 1) >= needed {
            let right = Rect::new(area.right() - width, area.y, width, 1);
            put(frame, right, 0, Line::from(Span::styled(words, theme.dim)));
            // The settings keep the rest of the row, a column apart.
            let area = Rect::new(area.x, area.y, area.width - width - 1, 1);
            return draw_setting_words(frame, key, groups, area, false, theme);
        }
        return draw_setting_words(frame, key, groups, area, true, theme);
    }
    draw_setting_words(frame, key, groups, area, false, theme);
}

/// One setting as drawn on the settings row: its spans, their width, and whether it is the
/// mode, the one kept when the row is short.
struct SettingGroup {
    spans: Vec<Span<'static>>,
    width: usize,
    kept: bool,
    /// What stands before it after another: " · " between settings, a wider gap before the
    /// key; both three columns, as `fit_parts` counts them.
    before: &'static str,
}

/// The settings row's pieces: the key first on a narrow terminal (with its width), and each
/// setting, then "s switches" at the end on a wide one.
fn setting_groups(
    phone: &Phone,
    settings: &[crate::wire::Setting],
    width: u16,
    theme: &Theme,
) -> (Option<(Span<'static>, usize)>, Vec<SettingGroup>) {
    if settings.is_empty() {
        return (None, Vec::new());
    }
    let key = phone
        .keymap()
        .key_label(crate::screens::pane::keys::CHAT, Action::Settings);
    // A narrow terminal puts the key first, so a long name never cuts it off.
    let narrow = crate::app::geometry::is_narrow(width);
    let mut groups = Vec::new();
    for setting in settings {
        let unattended = setting
            .current_choice()
            .is_some_and(|c| c.acts_without_asking);
        let value = if unattended {
            Span::styled(format!("⚠ {}", setting.current_name()), theme.warn)
        } else {
            Span::styled(setting.current_name().to_string(), theme.text)
        };
        let name = Span::styled(format!("{} ", setting.name), theme.dim);
        groups.push(SettingGroup {
            width: wrap::width(&name.content) + wrap::width(&value.content),
            spans: vec![name, value],
            kept: setting.id == "mode",
            before: " · ",
        });
    }
    let first = if narrow {
        key.map(|key| {
            let span = Span::styled(format!("{key} "), theme.accent);
            let width = wrap::width(&span.content);
            (span, width)
        })
    } else {
        if let Some(key) = key {
            let spans = vec![
                Span::styled(key, theme.accent),
                Span::styled(" switches", theme.dim),
            ];
            groups.push(SettingGroup {
                width: spans.iter().map(|s| wrap::width(&s.content)).sum(),
                spans,
                kept: false,
                before: "   ",
            });
        }
        None
    };
    (first, groups)
}

fn draw_setting_words(
    frame: &mut Frame<'_>,
    key: Option<(Span<'static>, usize)>,
    groups: Vec<SettingGroup>,
    area: Rect,
    cut_already: bool,
    theme: &Theme,
) {
    if groups.is_empty() {
        return;
    }
    let lead = key.as_ref().map_or(0, |(_, w)| *w);
    let room = usize::from(area.width)
        .saturating_sub(lead)
        .saturating_sub(if cut_already {
            wrap::width(crate::ui::CUT)
        } else {
            0
        });
    let widths: Vec<usize> = groups.iter().map(|g| g.width).collect();
    let kept: Vec<bool> = groups.iter().map(|g| g.kept).collect();
    let (shown, cut) = crate::ui::fit_parts(&widths, &kept, 3, room);
    let mut spans: Vec<Span<'static>> = key.into_iter().map(|(span, _)| span).collect();
    for (n, &i) in shown.iter().enumerate() {
        if n > 0 {
            spans.push(Span::styled(groups[i].before, theme.dim));
        }
        spans.extend(groups[i].spans.iter().cloned());
    }
    if cut || cut_already {
        spans.push(Span::styled(crate::ui::CUT, theme.dim));
    }
    put(frame, area, 0, Line::from(spans));
}

/// The last send, stop or belt press of this pane, and the input's size.
fn draw_status(
    frame: &mut Frame<'_>,
    phone: &Phone,
    screen: &PaneScreen,
    area: Rect,
    theme: &Theme,
) {
    if crate::screens::pane::draw_dsh::draw_status(frame, phone, screen, area, theme) {
        return;
    }
    let bytes = phone
        .draft(&screen.agent, &screen.pane)
        .map_or(0, |d| d.byte_len());
    let count = byte_count(bytes);
    let count_style = if bytes > limits::MAX_SEND_TEXT {
        theme.danger
    } else if bytes * 10 > limits::MAX_SEND_TEXT * 8 {
        theme.warn
    } else {
        theme.dim
    };
    let mut spans: Vec<Span<'static>> = Vec::new();
    if let Some(verb) = phone
        .intents()
        .pane_pending(&screen.agent, &screen.pane)
        .filter(|verb| *verb != "send")
    {
        spans.push(Span::styled(format!("{verb}: sending…"), theme.dim));
    } else if let Some(record) = phone
        .intents()
        .latest(|r| {
            r.agent == screen.agent
                && intents::pane_of(&r.kind) == Some(screen.pane.as_str())
                // Sends show on their own lines above the box.
                && !matches!(r.kind, IntentKind::Send { .. })
        })
        // A receipt fades; what needs the person stays until replaced (SPEC Q6).
        .filter(|r| phone.intents().shows(r, phone.now()))
    {
        let verb = match &record.kind {
            IntentKind::Abort { turn_id, .. } => {
                format!("stop {}", crate::app::names::turn_name(turn_id))
            }
            IntentKind::Setting {
                setting_id, value, ..
            } => {
                let settings = phone
                    .agents()
                    .pane(&screen.agent, &screen.pane)
                    .map(|p| p.pane.settings.clone())
                    .unwrap_or_default();
                let setting = settings.iter().find(|s| s.id == *setting_id);
                let name = setting.map_or(setting_id.as_str(), |s| s.name.as_str());
                let value = setting
                    .and_then(|s| s.choices.iter().find(|c| c.id == *value))
                    .map_or(value.as_str(), |c| c.name.as_str());
                format!("switch {name} to {value}")
            }
            IntentKind::Action { button_id, .. } => format!(
                "button {}",
                crate::app::names::button_name(
                    phone
                        .agents()
                        .pane(&screen.agent, &screen.pane)
                        .map_or(&[][..], |p| &p.pane.belt[..]),
                    button_id
                )
            ),
            other => other.verb().to_string(),
        };
        let style: Style = match &record.state {
            s if intents::is_in_flight(s) => theme.dim,
            crate::engine::IntentState::Done { .. }
            | crate::engine::IntentState::Replayed { .. } => theme.ok,
            crate::engine::IntentState::Unknown { .. }
            | crate::engine::IntentState::MaybeApplied => theme.warn,
            _ => theme.danger,
        };
        spans.push(Span::styled(
            format!("{verb}: {}", outcome::short(record)),
            style,
        ));
        if intents::is_retryable(record) {
            let context = if screen.focus == PaneFocus::Input {
                crate::screens::pane::keys::INPUT
            } else {
                crate::screens::pane::keys::CHAT
            };
            if let Some(key) = phone.keymap().key_label(context, Action::Retry) {
                let does = if record.checking {
                    "checks now"
                } else {
                    "retries"
                };
                spans.push(Span::styled(format!(" — {key} {does}"), theme.accent));
            }
        }
    }
    let left_width: usize = spans.iter().map(|s| wrap::width(&s.content)).sum();
    let width = usize::from(area.width);
    let room = width.saturating_sub(left_width + wrap::width(&count) + 1);
    spans.push(Span::raw(" ".repeat(room)));
    spans.push(Span::styled(count, count_style));
    put(frame, area, 0, Line::from(spans));
}

impl crate::ui::Drawn for PaneScreen {
    fn place(&self, phone: &Phone) -> String {
        let title = phone
            .agents()
            .pane(&self.agent, &self.pane)
            .map_or_else(|| self.pane.clone(), |p| p.pane.title.clone());
        format!("{} › {title}", self.agent)
    }

    fn draw(&self, frame: &mut Frame<'_>, phone: &Phone, theme: &Theme) {
        draw(frame, phone, self, theme);
    }

    fn hints(
        &self,
        phone: &Phone,
        context: Context,
    ) -> Option<&'static [crate::app::keymap::Hint]> {
        super::draw_dsh::hints(phone, self, context)
    }
}
