//! Where each part of each screen goes, as a pure function of the terminal's size. The app
//! uses it to keep selections on screen, scroll by pages and map mouse clicks to rows; the ui
//! draws into the same rectangles, so both always agree.

use ratatui::layout::Rect;

/// The smallest terminal the phone draws in: a phone held upright.
pub(crate) const MIN_WIDTH: u16 = 40;
pub(crate) const MIN_HEIGHT: u16 = 12;
/// Below these the screens are drawn compact: one column, shorter labels, fewer blank lines.
const ROOMY_WIDTH: u16 = 80;
const ROOMY_HEIGHT: u16 = 24;

/// The rows of text the pane's message box may grow to on a terminal `height` rows tall: with
/// its border, about a third of the screen, and one row at least; past it the box scrolls
/// (docs/KEYS.md, "The message box").
pub(crate) fn max_input_rows(height: u16) -> u16 {
    (height / 3).saturating_sub(2).max(1)
}

/// The columns of text inside the pane's message box on a terminal `width` columns wide: the
/// box spans the screen, less its border.
pub(crate) fn input_text_width(width: u16) -> usize {
    usize::from(width.saturating_sub(2)).max(1)
}
/// Most lines of sends on their way a pane shows above its box (the last says how many more).
pub(crate) const MAX_OUTBOX_LINES: u16 = 3;
/// Most agents listed on the home screen before their list scrolls.
const MAX_AGENT_ROWS: u16 = 6;

pub(crate) fn is_too_small(width: u16, height: u16) -> bool {
    width < MIN_WIDTH || height < MIN_HEIGHT
}

/// True below 80 columns: the screens drop their least needed columns and use short labels.
pub(crate) fn is_narrow(width: u16) -> bool {
    width < ROOMY_WIDTH
}

/// True below 24 rows: the screens spend no row on a blank line they can do without.
pub(crate) fn is_short(height: u16) -> bool {
    height < ROOMY_HEIGHT
}

/// The frame: a title bar, the body, and a footer for hints and short messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Frame {
    pub(crate) title: Rect,
    pub(crate) body: Rect,
    pub(crate) footer: Rect,
}

pub(crate) fn frame(width: u16, height: u16) -> Frame {
    let title = Rect::new(0, 0, width, 1.min(height));
    let footer = Rect::new(0, height.saturating_sub(1), width, 1.min(height));
    let body = Rect::new(0, 1, width, height.saturating_sub(2));
    Frame {
        title,
        body,
        footer,
    }
}

/// The home screen: agents, the chosen agent's full state, then "Needs your answer".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Home {
    pub(crate) agents_heading: Rect,
    pub(crate) agents: Rect,
    pub(crate) detail: Rect,
    pub(crate) inbox_heading: Rect,
    pub inbox: Rect,
}

pub fn home(width: u16, height: u16, agent_count: usize) -> Home {
    let body = frame(width, height).body;
    let rows = u16::try_from(agent_count)
        .unwrap_or(u16::MAX)
        .clamp(1, MAX_AGENT_ROWS);
    let mut y = body.y;
    let mut take = |h: u16| {
        let h = h.min(body.bottom().saturating_sub(y));
        let rect = Rect::new(body.x, y, body.width, h);
        y += h;
        rect
    };
    let agents_heading = take(1);
    let agents = take(rows);
    // A short terminal gives the inbox the rows of the detail's second line and the gap.
    let short = is_short(height);
    let detail = take(if short { 1 } else { 2 });
    let _gap = take(u16::from(!short));
    let inbox_heading = take(1);
    let inbox = take(u16::MAX);
    Home {
        agents_heading,
        agents,
        detail,
        inbox_heading,
        inbox,
    }
}

/// A screen that is a heading line over a list (workspaces, New, History).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Listing {
    pub(crate) heading: Rect,
    pub(crate) list: Rect,
    /// The filter line, present while a filter is typed or set.
    pub(crate) filter: Rect,
}

pub(crate) fn listing(width: u16, height: u16, filter_shown: bool) -> Listing {
    let body = frame(width, height).body;
    let heading = Rect::new(body.x, body.y, body.width, 1.min(body.height));
    let filter_height = u16::from(filter_shown).min(body.height.saturating_sub(1));
    let list_height = body.height.saturating_sub(1 + filter_height);
    let list = Rect::new(body.x, body.y + 1, body.width, list_height);
    let filter = Rect::new(body.x, list.bottom(), body.width, filter_height);
    Listing {
        heading,
        list,
        filter,
    }
}

/// A pane: heading, its settings (when the agent has any), chat, open asks, belt, the input
/// box and its status line. The box is as tall as its wrapped text, up to
/// [`max_input_rows`]; the chat gets what is left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pane {
    pub(crate) heading: Rect,
    /// The agent's mode and options, under the heading; no row when it has none.
    pub(crate) settings: Rect,
    pub(crate) chat: Rect,
    /// Sends that left the box and are not in the chat yet.
    pub(crate) outbox: Rect,
    pub asks: Rect,
    pub belt: Rect,
    pub(crate) input: Rect,
    pub(crate) status: Rect,
}

pub(crate) fn pane(
    width: u16,
    height: u16,
    input_lines: usize,
    outbox_lines: usize,
    has_asks: bool,
    has_settings: bool,
) -> Pane {
    let body = frame(width, height).body;
    let outbox_height = u16::try_from(outbox_lines)
        .unwrap_or(MAX_OUTBOX_LINES)
        .min(MAX_OUTBOX_LINES);
    let most = max_input_rows(height);
    let input_lines = u16::try_from(input_lines).unwrap_or(most).clamp(1, most);
    let input_height = input_lines + 2;
    let asks_height = u16::from(has_asks);
    let settings_height = u16::from(has_settings);
    let fixed = 1 + settings_height + outbox_height + asks_height + 1 + input_height + 1;
    let chat_height = body.height.saturating_sub(fixed);
    let mut y = body.y;
    let mut take = |h: u16| {
        let h = h.min(body.bottom().saturating_sub(y));
        let rect = Rect::new(body.x, y, body.width, h);
        y += h;
        rect
    };
    let heading = take(1);
    let settings = take(settings_height);
    let chat = take(chat_height);
    let outbox = take(outbox_height);
    let asks = take(asks_height);
    let belt = take(1);
    let input = take(input_height);
    let status = take(1);
    Pane {
        heading,
        settings,
        chat,
        outbox,
        asks,
        belt,
        input,
        status,
    }
}

/// A conversation from history: a heading over its chat.
pub(crate) fn conversation(width: u16, height: u16) -> (Rect, Rect) {
    let body = frame(width, height).body;
    let heading = Rect::new(body.x, body.y, body.width, 1.min(body.height));
    let chat = Rect::new(
        body.x,
        body.y + 1,
        body.width,
        body.height.saturating_sub(1),
    );
    (heading, chat)
}

/// An ask card: a box in the middle of the body, as wide as fits up to 100 columns.
pub(crate) fn card(width: u16, height: u16) -> Rect {
    let body = frame(width, height).body;
    let card_width = body.width.min(100);
    let x = body.x + (body.width - card_width) / 2;
    Rect::new(x, body.y, card_width, body.height)
}

/// A dialog box centred on the screen.
pub(crate) fn dialog(width: u16, height: u16, lines: u16) -> Rect {
    let dialog_width = width.saturating_sub(4).min(70);
    let dialog_height = (lines + 2).min(height);
    Rect::new(
        (width - dialog_width) / 2,
        (height - dialog_height) / 2,
        dialog_width,
        dialog_height,
    )
}

/// True when the point is inside the rectangle.
pub(crate) fn contains(rect: Rect, column: u16, row: u16) -> bool {
    column >= rect.x && column < rect.right() && row >= rect.y && row < rect.bottom()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pane_parts_fill_the_body_at_80x24() {
        let parts = pane(80, 24, 1, 0, true, false);
        assert_eq!(parts.heading.y, 1);
        assert_eq!(parts.status.bottom(), 23);
        assert_eq!(parts.chat.height, 22 - 1 - 1 - 1 - 3 - 1);
    }

    #[test]
    fn home_inbox_gets_the_rest() {
        let parts = home(80, 24, 2);
        assert_eq!(parts.agents.height, 2);
        assert_eq!(parts.inbox.bottom(), 23);
        assert!(parts.inbox.height >= 10);
    }

    #[test]
    fn at_40x12_every_part_is_on_screen_and_the_inbox_keeps_six_rows() {
        assert!(!is_too_small(40, 12));
        assert!(is_too_small(39, 12) && is_too_small(40, 11));
        let parts = home(40, 12, 1);
        assert_eq!(parts.detail.height, 1);
        assert_eq!(parts.inbox.height, 6);
        assert_eq!(parts.inbox.bottom(), 11);
        let parts = pane(40, 12, 1, 0, true, false);
        assert_eq!(parts.status.bottom(), 11);
        assert_eq!(parts.chat.height, 3);
    }

    #[test]
    fn the_message_box_grows_to_about_a_third_of_the_screen_and_the_chat_shrinks() {
        assert_eq!(max_input_rows(12), 2);
        assert_eq!(max_input_rows(24), 6);
        assert_eq!(max_input_rows(60), 18);
        assert_eq!(max_input_rows(5), 1);
        let one = pane(80, 24, 1, 0, false, false);
        let four = pane(80, 24, 4, 0, false, false);
        let many = pane(80, 24, 100, 0, false, false);
        assert_eq!(four.input.height, 6);
        assert_eq!(four.chat.height, one.chat.height - 3);
        assert_eq!(many.input.height, 8);
        assert_eq!(many.status.bottom(), 23);
        let small = pane(40, 12, 100, 0, true, false);
        assert_eq!(small.input.height, 4);
        assert_eq!(small.status.bottom(), 11);
        assert!(small.chat.height >= 1);
        let wide = pane(200, 60, 100, 0, true, true);
        assert_eq!(wide.input.height, 20);
        assert_eq!(input_text_width(200), 198);
    }
}
