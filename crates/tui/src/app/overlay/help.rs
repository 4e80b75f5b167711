//! The help's lines as laid out for a terminal: what the help shows, and how far its keys
//! scroll it.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::keymap::{Context, EDIT_KILLS, EDIT_MOVES, EDIT_YANK_UNDO};
use crate::app::phone::Phone;
use crate::app::typing;
use crate::look::wrap;

/// The help as laid out for a terminal of `area`: every line, where its box goes, and how
/// many lines the box shows at once.
pub(crate) struct HelpLayout {
    pub(crate) lines: Vec<Line<'static>>,
    pub(crate) rect: Rect,
    pub(crate) visible: usize,
}

impl HelpLayout {
    /// The furthest the help scrolls: its last line at the box's bottom.
    pub(crate) fn max_scroll(&self) -> usize {
        self.lines.len().saturating_sub(self.visible)
    }
}

/// What the help says: the keys of where the person is, and lines of the room's own after
/// them (the keys of the box a pane's chat leads to, docs/KEYS.md).
#[derive(Debug, Clone, Default)]
pub(crate) struct HelpLines {
    pub(crate) keys: Vec<(String, String)>,
    pub(crate) notes: Vec<String>,
}

/// Every binding of the screen below (`help.keys`, the keymap's lines for `context`) and the
/// room's notes, laid out for `area`.
pub(crate) fn layout(phone: &Phone, context: Context, help: HelpLines, area: Rect) -> HelpLayout {
    let HelpLines {
        keys: bindings,
        notes,
    } = help;
    // A text field's editing keys, from the editor's own table, where the part says it has
    // them; they are the same in every field, so `[keys]` does not change them.
    let edit_notes = [EDIT_MOVES, EDIT_KILLS, EDIT_YANK_UNDO];
    let editing = if context.notes().iter().any(|n| edit_notes.contains(n)) {
        typing::help()
    } else {
        Vec::new()
    };
    let width = area.width.saturating_sub(4).min(76);
    let inner = usize::from(width.saturating_sub(2));
    // The keys' column gives way on a narrow terminal; what a key does wraps under itself.
    let keys_width = bindings
        .iter()
        .chain(&editing)
        .map(|(k, _)| wrap::width(k))
        .max()
        .unwrap_or(0)
        .min(28)
        .min(inner / 3);
    let what_width = inner.saturating_sub(keys_width + 2).max(1);
    let mut lines: Vec<Line<'static>> = Vec::new();
    let dim = phone.theme().dim;
    let said = |text: &str| {
        wrap::wrap(text, inner)
            .into_iter()
            .map(move |piece| Line::from(Span::styled(piece, dim)))
    };
    // The demo's socket first, where it is seen without scrolling (docs/SCRIPTING.md).
    for agent in &phone.agents().list {
        if let Some(socket) = &agent.demo_socket {
            lines.extend(said(&format!(
                "Headless commands reach this demo's agent with --socket {socket}"
            )));
            lines.push(Line::default());
        }
    }
    let row = |lines: &mut Vec<Line<'static>>, keys: String, what: String| {
        // Keys longer than their column get a line of their own.
        let mut keys = Some(if wrap::width(&keys) > keys_width {
            lines.push(Line::from(Span::styled(keys, phone.theme().accent)));
            String::new()
        } else {
            keys
        });
        for piece in wrap::wrap(&what, what_width) {
            lines.push(Line::from(vec![
                Span::styled(
                    wrap::pad_to(&keys.take().unwrap_or_default(), keys_width + 2),
                    phone.theme().accent,
                ),
                Span::styled(piece, phone.theme().text),
            ]));
        }
    };
    for (keys, what) in bindings {
        row(&mut lines, keys, what);
    }
    for note in context.notes().iter().filter(|n| !edit_notes.contains(n)) {
        lines.extend(said(note));
    }
    for note in &notes {
        lines.extend(said(note));
    }
    if !editing.is_empty() {
        lines.push(Line::default());
        lines.extend(said("Editing the text:"));
        for (keys, what) in editing {
            row(&mut lines, keys, what);
        }
    }
    lines.push(Line::default());
    lines.extend(said(
        "Keys can be changed in the [keys] section of config.toml.",
    ));
    let height = area
        .height
        .saturating_sub(2)
        .min(u16::try_from(lines.len() + 2).unwrap_or(u16::MAX));
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    let visible = usize::from(height.saturating_sub(2));
    HelpLayout {
        lines,
        rect,
        visible,
    }
}
