//! What frames every screen: the title bar, the footer with key hints or a short message, and
//! the one sentence shown when the terminal is too small.

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::put;
use crate::app::App;
use crate::app::geometry::{self, MIN_HEIGHT, MIN_WIDTH};
use crate::app::inbox;
use crate::app::keymap::{Action, Context};
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::screens::Screen;

pub(crate) fn too_small(frame: &mut Frame<'_>, area: Rect, theme: &Theme) {
    let text = format!(
        "collie-phone needs at least {MIN_WIDTH}x{MIN_HEIGHT}; this terminal is {}x{}.",
        area.width, area.height
    );
    let y = area.height / 2;
    let rect = Rect::new(area.x, area.y + y, area.width, area.height - y);
    frame.render_widget(
        Paragraph::new(text)
            .style(theme.warn)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true }),
        rect,
    );
}

/// Where the person is, and how many asks wait.
pub(crate) fn title_bar(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let place = match app.nav.top() {
        Screen::Home(_) => "Home".to_string(),
        Screen::Layout(s) => format!("{} › Workspaces", s.agent),
        Screen::Pane(s) => {
            let title = app
                .agents
                .pane(&s.agent, &s.pane)
                .map_or_else(|| s.pane.clone(), |p| p.pane.title.clone());
            format!("{} › {title}", s.agent)
        }
        Screen::Card(key) => format!("{} › Ask", key.agent),
        Screen::New(_) => "New".to_string(),
        Screen::History(s) => format!("{} › History", s.agent),
        Screen::Conversation(s) => format!("{} › History › {}", s.agent, s.title),
        Screen::Inspector(_) => "Wire inspector".to_string(),
        Screen::Exchange(_) => "Wire inspector › Exchange".to_string(),
        Screen::DshForm(s) => format!("{} › New", s.agent),
    };
    let waiting = inbox::count(&app.agents);
    let narrow = geometry::is_narrow(area.width);
    let right = match (waiting, narrow) {
        (0, false) => "nothing needs your answer".to_string(),
        (1, false) => "1 ask needs your answer".to_string(),
        (n, false) => format!("{n} asks need your answer"),
        (0, true) => "no asks".to_string(),
        (1, true) => "1 ask".to_string(),
        (n, true) => format!("{n} asks"),
    };
    let width = usize::from(area.width);
    // On a narrow terminal every column goes to where the person is.
    let left = if narrow {
        format!(" {place}")
    } else {
        format!(" collie-phone › {place}")
    };
    // The breadcrumb is cut two columns short of the counter, so the two never touch.
    let room = width.saturating_sub(wrap::width(&right) + 2);
    let left = wrap::pad_to(&wrap::truncate(&left, room.saturating_sub(2)), room);
    let right_style = if waiting > 0 { theme.warn } else { theme.dim };
    put(
        frame,
        area,
        0,
        Line::from(vec![
            Span::styled(left, theme.title),
            Span::styled(format!("{right}  "), right_style),
        ]),
    );
}

/// An action the footer hints at: its words, and shorter words for a narrow terminal.
pub(crate) type Hint = (Action, &'static str, &'static str);

/// The actions hinted in the footer of each context, most needed first.
fn hinted(context: Context) -> &'static [Hint] {
    match context {
        Context::Home => &[
            (Action::Open, "open", "open"),
            (Action::JumpExpiring, "soonest", "soon"),
            (Action::NewPage, "new", "new"),
            (Action::History, "history", "history"),
            (Action::Filter, "filter", "filter"),
            (Action::Help, "help", "help"),
            (Action::Quit, "quit", "quit"),
        ],
        Context::Layout => &[
            (Action::Open, "open", "open"),
            (Action::Rename, "rename", "rename"),
            (Action::Close, "close", "close"),
            (Action::Filter, "filter", "filter"),
            (Action::Back, "back", "back"),
            (Action::Help, "help", "help"),
        ],
        Context::PaneChat => &[
            (Action::FocusInput, "type", "type"),
            (Action::OpenAsk, "answer", "answer"),
            (Action::ToggleThinking, "thinking", "think"),
            (Action::Abort, "stop turn", "stop"),
            (Action::Back, "back", "back"),
            (Action::Help, "help", "help"),
        ],
        Context::PaneInput => &[
            (Action::Send, "send", "send"),
            (Action::Newline, "new line", "newline"),
            (Action::Abort, "stop turn", "stop"),
            (Action::Back, "leave input", "leave"),
        ],
        Context::Card => &[
            (Action::Submit, "answer", "answer"),
            (Action::Retry, "retry", "retry"),
            (Action::Back, "back", "back"),
            (Action::Help, "help", "help"),
        ],
        Context::CardTyping => &[
            (Action::Submit, "submit", "submit"),
            (Action::NextField, "next field", "next"),
            (Action::Back, "back", "back"),
        ],
        Context::New => &[
            (Action::Open, "run", "run"),
            (Action::Filter, "filter", "filter"),
            (Action::Back, "back", "back"),
            (Action::Help, "help", "help"),
        ],
        Context::History => &[
            (Action::Open, "read", "read"),
            (Action::Reopen, "reopen", "reopen"),
            (Action::Filter, "filter", "filter"),
            (Action::Back, "back", "back"),
            (Action::Help, "help", "help"),
        ],
        Context::Conversation => &[
            (Action::Reopen, "reopen", "reopen"),
            (Action::ToggleThinking, "thinking", "think"),
            (Action::Back, "back", "back"),
            (Action::Help, "help", "help"),
        ],
        Context::Inspector => &[
            (Action::Open, "read", "read"),
            (Action::Filter, "filter", "filter"),
            (Action::Export, "save to a file", "save"),
            (Action::Bottom, "follow", "follow"),
            (Action::Back, "back", "back"),
            (Action::Help, "help", "help"),
        ],
        Context::Exchange => &[
            (Action::Down, "scroll", "scroll"),
            (Action::Back, "back", "back"),
            (Action::Help, "help", "help"),
        ],
        Context::Filter => &[
            (Action::Confirm, "keep filter", "keep"),
            (Action::Cancel, "clear", "clear"),
        ],
        Context::Confirm => &[
            (Action::Confirm, "yes", "yes"),
            (Action::Cancel, "no", "no"),
        ],
        Context::PaneSearch => &[
            (Action::Confirm, "keep matches", "keep"),
            (Action::NextMatch, "next", "next"),
            (Action::PrevMatch, "previous", "prev"),
            (Action::Cancel, "close", "close"),
        ],
        Context::ConfirmAlways => &[
            (Action::ConfirmAlways, "allow always", "always"),
            (Action::Cancel, "cancel", "cancel"),
        ],
        Context::Prompt => &[
            (Action::Confirm, "save", "save"),
            (Action::Cancel, "cancel", "cancel"),
        ],
        Context::Help => &[(Action::Back, "close help", "close")],
        Context::KindPicker => &[
            (Action::Confirm, "choose", "choose"),
            (Action::Down, "next", "next"),
            (Action::Cancel, "cancel", "cancel"),
        ],
        Context::DshForm => &[
            (Action::Submit, "send", "send"),
            (Action::NextField, "next field", "next"),
            (Action::Back, "back", "back"),
        ],
    }
}

/// A short message when there is one, else the main keys of where the person is.
pub(crate) fn footer(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    if let Some(toast) = &app.toast {
        let style = if toast.trouble { theme.warn } else { theme.ok };
        put(
            frame,
            area,
            0,
            Line::from(Span::styled(format!(" {}", toast.text), style)),
        );
        return;
    }
    let context = app.context();
    let hints =
        crate::screens::pane::draw_dsh::hints(app, context).unwrap_or_else(|| hinted(context));
    let narrow = geometry::is_narrow(area.width);
    let hints: Vec<(String, &str, bool)> = hints
        .iter()
        .filter(|(action, _, _)| match app.nav.top() {
            // A card hints only the keys that do something on it now.
            Screen::Card(key) => app.card_footer_offers(key, *action),
            _ => true,
        })
        .filter_map(|(action, words, short)| {
            let key = app.keymap.key_label(context, *action)?;
            Some((
                key,
                if narrow { *short } else { *words },
                *action == Action::Help,
            ))
        })
        .collect();
    let kept = fitting(&hints, usize::from(area.width).saturating_sub(1));
    let mut spans = vec![Span::raw(" ")];
    for (key, words, _) in kept {
        if spans.len() > 1 {
            spans.push(Span::styled(" · ", theme.dim));
        }
        spans.push(Span::styled(key.clone(), theme.accent));
        spans.push(Span::styled(format!(" {words}"), theme.dim));
    }
    put(frame, area, 0, Line::from(spans));
}

/// The hints that fit in `width`, whole: the last ones give way first, but the help's hint
/// stays, since the help lists every key of the screen.
fn fitting<'a>(
    hints: &'a [(String, &'a str, bool)],
    width: usize,
) -> Vec<&'a (String, &'a str, bool)> {
    let cost = |hint: &(String, &str, bool)| wrap::width(&hint.0) + 1 + wrap::width(hint.1);
    let mut kept: Vec<&(String, &str, bool)> = hints.iter().collect();
    let total = |kept: &[&(String, &str, bool)]| {
        kept.iter().map(|&h| cost(h)).sum::<usize>() + 3 * kept.len().saturating_sub(1)
    };
    while total(&kept) > width {
        match kept.iter().rposition(|h| !h.2) {
            Some(i) => {
                kept.remove(i);
            }
            None => break,
        }
    }
    kept
}
