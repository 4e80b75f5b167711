//! The wire inspector: the newest exchanges the engine reports, in a ring; the list with its
//! filter, following the newest unless the person moved up; one exchange's bodies; and the
//! export of the listed exchanges to a file for a bug report (written by the runner).

pub(crate) mod draw;
pub(crate) mod keys;

use ratatui::layout::Rect;
use time::OffsetDateTime;

use crate::app::keymap::{Action, Context};
use crate::app::list::{Filter, ListCursor};
use crate::app::phone::Goto;
use crate::app::phone::Phone;
use crate::app::wire_log::WireLog;
use crate::app::{Command, geometry};
use crate::screens::room::Room;

/// The wire inspector: every exchange with the agents, newest at the bottom.
#[derive(Debug, Clone, Default)]
pub struct InspectorScreen {
    /// The selected exchange by its number; None follows the newest.
    pub(crate) selected: Option<u64>,
    /// The first exchange drawn, by its number, while not following.
    pub(crate) top: Option<u64>,
    pub(crate) filter: Filter,
    /// What the last export came to.
    pub(crate) note: Option<InspectorNote>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InspectorNote {
    pub(crate) text: String,
    pub(crate) trouble: bool,
}

/// Most rows the export's note may take under the list.
const NOTE_ROWS: usize = 3;

/// Where the inspector's parts go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InspectorParts {
    pub(crate) heading: Rect,
    /// The column titles.
    pub(crate) columns: Rect,
    pub(crate) list: Rect,
    /// What the last export came to.
    pub(crate) note: Rect,
    pub(crate) filter: Rect,
}

/// The rows the export's note takes at this width.
pub(crate) fn note_lines(note: Option<&InspectorNote>, width: u16) -> Vec<String> {
    let Some(note) = note else {
        return Vec::new();
    };
    let mut lines = crate::look::wrap::wrap(&note.text, usize::from(width.saturating_sub(1)));
    lines.truncate(NOTE_ROWS);
    lines
}

pub(crate) fn inspector_parts(width: u16, height: u16, screen: &InspectorScreen) -> InspectorParts {
    let body = geometry::frame(width, height).body;
    let note_rows = u16::try_from(note_lines(screen.note.as_ref(), width).len()).unwrap_or(0);
    let filter_rows = u16::from(screen.filter.is_active());
    let mut y = body.y;
    let mut take = |h: u16| {
        let h = h.min(body.bottom().saturating_sub(y));
        let rect = Rect::new(body.x, y, body.width, h);
        y += h;
        rect
    };
    let heading = take(1);
    let columns = take(1);
    let list = take(body.height.saturating_sub(2 + note_rows + filter_rows));
    let note = take(note_rows);
    let filter = take(filter_rows);
    InspectorParts {
        heading,
        columns,
        list,
        note,
        filter,
    }
}

/// The list as shown: its rows, the selection and the first row drawn.
#[derive(Debug, Clone)]
pub(crate) struct InspectorView {
    pub(crate) rows: Vec<u64>,
    pub(crate) cursor: ListCursor,
    pub(crate) following: bool,
}

/// Places the selection and the view over the filtered rows; a selected exchange the ring let
/// go gives way to the oldest one kept.
pub(crate) fn inspector_view(
    wire: &WireLog,
    screen: &InspectorScreen,
    height: usize,
) -> InspectorView {
    let rows = wire.rows(&screen.filter);
    let len = rows.len();
    let place = |number: u64| rows.partition_point(|n| *n < number);
    let mut cursor = match screen.selected {
        None => ListCursor {
            selected: len.saturating_sub(1),
            offset: usize::MAX,
            key: None,
        },
        Some(selected) => ListCursor {
            selected: place(selected),
            offset: screen.top.map_or(0, place),
            key: None,
        },
    };
    cursor.clamp(len, height);
    InspectorView {
        rows,
        cursor,
        following: screen.selected.is_none(),
    }
}

/// `wire-20261129-143000-123.jsonl`, from the phone's clock (UTC, no colons for any file system).
pub(crate) fn export_file_name(now: OffsetDateTime) -> String {
    let at = now.to_offset(time::UtcOffset::UTC);
    format!(
        "wire-{:04}{:02}{:02}-{:02}{:02}{:02}-{:03}.jsonl",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.millisecond()
    )
}

impl InspectorScreen {
    fn list_height(&self, phone: &Phone) -> usize {
        usize::from(
            inspector_parts(phone.size().0, phone.size().1, self)
                .list
                .height,
        )
    }

    /// Moves the selection with `change`, then keeps it as exchange numbers; reaching the last
    /// row follows the newest again.
    fn move_selection(
        &mut self,
        phone: &Phone,
        change: impl FnOnce(&mut ListCursor, usize, usize),
    ) {
        let height = self.list_height(phone);
        let mut view = inspector_view(phone.wire(), self, height);
        let len = view.rows.len();
        change(&mut view.cursor, len, height);
        let (selected, top) = if view.cursor.selected + 1 >= len {
            (None, None)
        } else {
            (
                view.rows.get(view.cursor.selected).copied(),
                view.rows.get(view.cursor.offset).copied(),
            )
        };
        self.selected = selected;
        self.top = top;
    }

    fn open_exchange(&self, phone: &mut Phone) {
        let view = inspector_view(phone.wire(), self, self.list_height(phone));
        let Some(number) = view.rows.get(view.cursor.selected).copied() else {
            return;
        };
        if phone.wire().get(number).is_none() {
            return;
        }
        phone.open(Goto::Exchange { number });
    }

    /// The listed exchanges as JSON lines, oldest first, for the runner to write.
    fn export(&mut self, phone: &mut Phone) -> Vec<Command> {
        let rows = phone.wire().rows(&self.filter);
        if rows.is_empty() {
            self.note("Nothing to save: no exchange is listed.".into(), true);
            return Vec::new();
        }
        let mut text = String::new();
        for record in rows.iter().filter_map(|n| phone.wire().get(*n)) {
            match serde_json::to_string(record) {
                Ok(line) => {
                    text.push_str(&line);
                    text.push('\n');
                }
                Err(error) => {
                    self.note(format!("Could not save the exchanges: {error}"), true);
                    return Vec::new();
                }
            }
        }
        let path = phone.view.export_dir().join(export_file_name(phone.now()));
        vec![Command::ExportInspector {
            path,
            text,
            exchanges: rows.len(),
        }]
    }

    /// Shows what an export came to under the list.
    pub(crate) fn note(&mut self, text: String, trouble: bool) {
        self.note = Some(InspectorNote { text, trouble });
    }
}

impl Room for InspectorScreen {
    fn key_parts() -> &'static [Context] {
        &[keys::INSPECTOR]
    }

    fn keys(&self, _phone: &Phone) -> Context {
        keys::INSPECTOR
    }

    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        match action {
            Action::Back => phone.back(),
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                self.move_selection(phone, |cursor, len, height| {
                    cursor.apply(action, len, height);
                });
                Vec::new()
            }
            Action::Open => {
                self.open_exchange(phone);
                Vec::new()
            }
            Action::Export => self.export(phone),
            _ => Vec::new(),
        }
    }

    fn wheel(&mut self, phone: &mut Phone, down: bool, _column: u16, _row: u16) -> Vec<Command> {
        self.move_selection(phone, |cursor, len, height| cursor.wheel(down, len, height));
        Vec::new()
    }

    /// A click selects a row; a click on the selected row opens it.
    fn click(&mut self, phone: &mut Phone, column: u16, row: u16) -> Vec<Command> {
        let list = inspector_parts(phone.size().0, phone.size().1, self).list;
        if !geometry::contains(list, column, row) {
            return Vec::new();
        }
        let height = usize::from(list.height);
        let before = inspector_view(phone.wire(), self, height).cursor.selected;
        let mut clicked = false;
        self.move_selection(phone, |cursor, len, _| {
            clicked = cursor.click(usize::from(row - list.y), len)
        });
        let after = inspector_view(phone.wire(), self, height).cursor.selected;
        if clicked && after == before {
            self.open_exchange(phone);
        }
        Vec::new()
    }

    fn offers(&self, phone: &Phone, action: Action) -> bool {
        match action {
            Action::Open | Action::Export => !phone.wire().rows(&self.filter).is_empty(),
            // "follow": the newest is followed already unless a row was chosen.
            Action::Bottom => self.selected.is_some(),
            _ => true,
        }
    }

    fn filter(&self) -> Option<&Filter> {
        Some(&self.filter)
    }

    fn filter_mut(&mut self) -> Option<&mut Filter> {
        Some(&mut self.filter)
    }

    /// A new filter shows the newest matching exchange.
    fn filter_changed(&mut self) {
        self.selected = None;
        self.top = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::wire_log::record;

    #[test]
    fn the_view_follows_the_newest_or_stays_on_the_chosen_exchange() {
        let mut wire = WireLog::default();
        for n in 0..30 {
            wire.push(record(n));
        }
        let following = InspectorScreen::default();
        let view = inspector_view(&wire, &following, 10);
        assert_eq!((view.cursor.selected, view.cursor.offset), (29, 20));
        let paused = InspectorScreen {
            selected: Some(12),
            top: Some(8),
            ..InspectorScreen::default()
        };
        for n in 30..40 {
            wire.push(record(n));
        }
        let view = inspector_view(&wire, &paused, 10);
        assert_eq!((view.cursor.selected, view.cursor.offset), (12, 8));
    }

    #[test]
    fn export_names_sort_by_time() {
        let at = time::macros::datetime!(2026-11-29 14:30:05.042 UTC);
        assert_eq!(export_file_name(at), "wire-20261129-143005-042.jsonl");
    }
}
