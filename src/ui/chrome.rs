//! What frames every screen: the title bar, the footer with key hints or a short message, and
//! the one sentence shown when the terminal is too small.

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::put;
use crate::app::App;
use crate::app::geometry::{MIN_HEIGHT, MIN_WIDTH};
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
    let right = match waiting {
        0 => "nothing needs your answer".to_string(),
        1 => "1 ask needs your answer".to_string(),
        n => format!("{n} asks need your answer"),
    };
    let width = usize::from(area.width);
    let left = format!(" collie-phone › {place}");
    let room = width.saturating_sub(wrap::width(&right) + 2);
    let left = wrap::pad_to(&wrap::truncate(&left, room), room);
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

/// The actions hinted in the footer of each context, in order.
fn hinted(context: Context) -> &'static [(Action, &'static str)] {
    match context {
        Context::Home => &[
            (Action::Open, "open"),
            (Action::JumpExpiring, "soonest"),
            (Action::NewPage, "new"),
            (Action::History, "history"),
            (Action::Filter, "filter"),
            (Action::Help, "help"),
            (Action::Quit, "quit"),
        ],
        Context::Layout => &[
            (Action::Open, "open"),
            (Action::Rename, "rename"),
            (Action::Close, "close"),
            (Action::Filter, "filter"),
            (Action::Back, "back"),
            (Action::Help, "help"),
        ],
        Context::PaneChat => &[
            (Action::FocusInput, "type"),
            (Action::OpenAsk, "answer"),
            (Action::ToggleThinking, "thinking"),
            (Action::Abort, "stop turn"),
            (Action::Back, "back"),
            (Action::Help, "help"),
        ],
        Context::PaneInput => &[
            (Action::Send, "send"),
            (Action::Newline, "new line"),
            (Action::Abort, "stop turn"),
            (Action::Back, "leave input"),
        ],
        Context::Card => &[
            (Action::Submit, "answer"),
            (Action::Retry, "retry"),
            (Action::Back, "back"),
            (Action::Help, "help"),
        ],
        Context::CardTyping => &[
            (Action::Submit, "submit"),
            (Action::NextField, "next field"),
            (Action::Back, "back"),
        ],
        Context::New => &[
            (Action::Open, "run"),
            (Action::Filter, "filter"),
            (Action::Back, "back"),
            (Action::Help, "help"),
        ],
        Context::History => &[
            (Action::Open, "read"),
            (Action::Reopen, "reopen"),
            (Action::Filter, "filter"),
            (Action::Back, "back"),
            (Action::Help, "help"),
        ],
        Context::Conversation => &[
            (Action::Reopen, "reopen"),
            (Action::ToggleThinking, "thinking"),
            (Action::Back, "back"),
            (Action::Help, "help"),
        ],
        Context::Inspector => &[
            (Action::Open, "read"),
            (Action::Filter, "filter"),
            (Action::Export, "save to a file"),
            (Action::Bottom, "follow"),
            (Action::Back, "back"),
            (Action::Help, "help"),
        ],
        Context::Exchange => &[
            (Action::Down, "scroll"),
            (Action::Back, "back"),
            (Action::Help, "help"),
        ],
        Context::Filter => &[(Action::Confirm, "keep filter"), (Action::Cancel, "clear")],
        Context::PaneSearch => &[
            (Action::Confirm, "keep matches"),
            (Action::NextMatch, "next"),
            (Action::PrevMatch, "previous"),
            (Action::Cancel, "close"),
        ],
        Context::Confirm => &[(Action::Confirm, "yes"), (Action::Cancel, "no")],
        Context::ConfirmAlways => &[
            (Action::ConfirmAlways, "allow always"),
            (Action::Cancel, "cancel"),
        ],
        Context::Prompt => &[(Action::Confirm, "save"), (Action::Cancel, "cancel")],
        Context::Help => &[(Action::Back, "close help")],
        Context::KindPicker => &[
            (Action::Confirm, "choose"),
            (Action::Down, "next"),
            (Action::Cancel, "cancel"),
        ],
        Context::DshForm => &[
            (Action::Submit, "send"),
            (Action::NextField, "next field"),
            (Action::Back, "back"),
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
    let mut spans = vec![Span::raw(" ")];
    let hints =
        crate::screens::pane::draw_dsh::hints(app, context).unwrap_or_else(|| hinted(context));
    for (action, words) in hints {
        let Some(key) = app.keymap.key_label(context, *action) else {
            continue;
        };
        if spans.len() > 1 {
            spans.push(Span::styled(" · ", theme.dim));
        }
        spans.push(Span::styled(key, theme.accent));
        spans.push(Span::styled(format!(" {words}"), theme.dim));
    }
    put(frame, area, 0, Line::from(spans));
}
