//! The drawing kit, below the rooms' draw halves: the `Drawn` trait each room's `draw.rs`
//! implements, and the pieces several screens share (`put`, a row of columns, a filter line, a
//! pop-up box). It names no room; the frame's root that dispatches to them is
//! `crate::shell::frame`. Reads the `Phone`; never changes it and never does I/O.

pub(crate) mod countdown;
pub(crate) mod filter;
pub(crate) mod popup;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::keymap::{Context, Hint};
use crate::app::phone::Phone;
use crate::look::theme::Theme;
use crate::look::wrap;

/// The ui's half of a room, written in its `draw.rs`: where the person is, for the title bar,
/// the screen itself, and the footer's keys where the room hints other keys than its key
/// part's.
pub(crate) trait Drawn {
    /// Where the person is: "agent › Workspaces".
    fn place(&self, phone: &Phone) -> String;

    fn draw(&self, frame: &mut Frame<'_>, phone: &Phone, theme: &Theme);

    /// The footer's keys where they differ from the hints of the key part `context` (a
    /// bridge's pane, its layout, a desktop wait); None keeps the key part's own.
    fn hints(&self, _phone: &Phone, _context: Context) -> Option<&'static [Hint]> {
        None
    }
}

/// Writes one line into one row, cut to the row's width.
pub(crate) fn put(frame: &mut Frame<'_>, area: Rect, row: u16, line: Line<'static>) {
    if row >= area.height {
        return;
    }
    let rect = Rect::new(area.x, area.y + row, area.width, 1);
    let line = wrap::fit_line(line, usize::from(area.width));
    frame
        .buffer_mut()
        .set_line(rect.x, rect.y, &line, rect.width);
}

/// Says at the right end of a list's heading how many rows are below the last one shown
/// ("↓ 3 more"), so a list a short screen cuts never hides rows without a sign.
pub(crate) fn more_below(frame: &mut Frame<'_>, heading: Rect, below: usize, theme: &Theme) {
    if below > 0 {
        note_at_end(frame, heading, &format!("↓ {below} more"), theme.dim);
    }
}

/// Writes `note` at the right end of `area`'s first row, over what was drawn there; words it
/// covers end with "…", as every cut sentence does. Left out where the row is too narrow to
/// keep a few of its own words beside it.
pub(crate) fn note_at_end(frame: &mut Frame<'_>, area: Rect, note: &str, style: Style) {
    let note_width = u16::try_from(wrap::width(note)).unwrap_or(u16::MAX);
    // The note, a column for "…" or a blank, a blank, and a few of the row's own words.
    if area.height == 0 || area.width < note_width.saturating_add(12) {
        return;
    }
    let buffer = frame.buffer_mut();
    let y = area.y;
    let start = area.right() - note_width - 2;
    let cut = (start..area.right()).any(|x| buffer[(x, y)].symbol() != " ");
    // A wide character just before the note would cover its first column.
    if start > area.x && wrap::width(buffer[(start - 1, y)].symbol()) > 1 {
        buffer[(start - 1, y)].set_symbol(" ");
    }
    buffer[(start, y)].set_symbol(if cut { "…" } else { " " });
    buffer[(start + 1, y)].set_symbol(" ");
    buffer.set_string(start + 2, y, note, style);
}

/// A row of columns: each text padded or cut to its width (display width, so CJK and emoji
/// line up), the last taking what is left. A text that fills its column is cut one short,
/// with its `…`, when the next column starts with words, so they never run together
/// ("test…waiting", "Store & restartsrunning").
pub(crate) fn columns(cells: &[(String, usize, Style)], width: usize) -> Line<'static> {
    let mut spans = Vec::new();
    let mut used = 0;
    for (i, (text, cell_width, style)) in cells.iter().enumerate() {
        let room = width.saturating_sub(used);
        let cell = if i + 1 == cells.len() {
            wrap::truncate(text, room)
        } else {
            let w = (*cell_width).min(room);
            let next_starts_blank = cells.get(i + 1).is_some_and(|(next, next_width, _)| {
                next.starts_with(' ') || (next.is_empty() && *next_width > 0)
            });
            // A text that fills its column to the last cell would touch the next one's words.
            let fills = wrap::width(text) > w || (wrap::width(text) == w && !text.ends_with(' '));
            let cut_to = if fills && !next_starts_blank {
                w.saturating_sub(1)
            } else {
                w
            };
            wrap::pad_to(&wrap::truncate(text, cut_to), w)
        };
        used += wrap::width(&cell);
        spans.push(Span::styled(cell, *style));
    }
    Line::from(spans)
}

/// "synced 2s ago": in `look`, where the router can read it too (`App::redraws`).
/// A line of parts in `width` columns, each part whole (docs/KEYS.md, "Lines that are cut"):
/// `widths` are the parts' widths, most needed first, `sep` the width between two. The last of
/// the parts not `kept` give way first; the kept ones (the way back, the help, a pane's mode)
/// go only when nothing else is left. Gives the places of the parts kept, in order, and whether
/// any gave way: then the line ends with [`CUT`], which this leaves room for.
pub(crate) fn fit_parts(
    widths: &[usize],
    kept: &[bool],
    sep: usize,
    width: usize,
) -> (Vec<usize>, bool) {
    let mut shown: Vec<usize> = (0..widths.len()).collect();
    let total = |shown: &[usize], cut: bool| {
        shown.iter().map(|&i| widths[i]).sum::<usize>()
            + sep * shown.len().saturating_sub(1)
            + if cut { wrap::width(CUT) } else { 0 }
    };
    while !shown.is_empty() && total(&shown, shown.len() < widths.len()) > width {
        let at = shown
            .iter()
            .rposition(|&i| !kept.get(i).copied().unwrap_or(false))
            .unwrap_or(shown.len() - 1);
        shown.remove(at);
    }
    let cut = shown.len() < widths.len();
    (shown, cut)
}

/// What ends a line whose parts did not all fit: a sign that more was there.
pub(crate) const CUT: &str = " …";

/// Parts of plain words joined with " · " in `width` columns by [`fit_parts`]: whole parts,
/// the kept ones last to go, and " …" at the end when any gave way. A part wider than the whole
/// line is cut inside, with "…".
pub(crate) fn fit_words(parts: &[(String, bool)], width: usize) -> String {
    let widths: Vec<usize> = parts.iter().map(|(p, _)| wrap::width(p)).collect();
    let kept: Vec<bool> = parts.iter().map(|(_, k)| *k).collect();
    let (shown, cut) = fit_parts(&widths, &kept, 3, width);
    if shown.is_empty() {
        let all: Vec<&str> = parts.iter().map(|(p, _)| p.as_str()).collect();
        return wrap::truncate(&all.join(" · "), width);
    }
    let mut line = shown
        .iter()
        .map(|&i| parts[i].0.as_str())
        .collect::<Vec<_>>()
        .join(" · ");
    if cut {
        line.push_str(CUT);
    }
    line
}

pub(crate) use crate::look::ago;

#[cfg(test)]
mod tests {
    #[test]
    fn a_line_of_parts_drops_whole_parts_from_the_end_keeps_the_kept_and_says_it_was_cut() {
        let parts = |words: &[(&str, bool)]| -> Vec<(String, bool)> {
            words.iter().map(|(w, k)| ((*w).to_string(), *k)).collect()
        };
        let line = parts(&[
            ("↑/↓ select", false),
            ("Enter answers", false),
            ("R retries", false),
            ("Esc back", true),
        ]);
        assert_eq!(
            super::fit_words(&line, 80),
            "↑/↓ select · Enter answers · R retries · Esc back"
        );
        assert_eq!(
            super::fit_words(&line, 40),
            "↑/↓ select · Enter answers · Esc back …"
        );
        assert_eq!(super::fit_words(&line, 12), "Esc back …");
        // Nothing whole fits: the words are cut inside, and still say so.
        assert_eq!(super::fit_words(&line, 6), "↑/↓ s…");
        for width in 1..60 {
            let fitted = super::fit_words(&line, width);
            assert!(
                crate::look::wrap::width(&fitted) <= width,
                "{width}: {fitted}"
            );
        }
    }

    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;

    /// The heading row after `more_below`, as text.
    fn heading_with(words: &str, below: usize) -> String {
        let mut terminal = Terminal::new(TestBackend::new(40, 1)).expect("a test terminal");
        let theme = Theme::builtin("dark").expect("the dark theme");
        terminal
            .draw(|frame| {
                let area = frame.area();
                put(frame, area, 0, Line::from(words.to_string()));
                more_below(frame, area, below, &theme);
            })
            .expect("a frame");
        // Each symbol once: the cells a wide one covers are not read.
        let buffer = terminal.backend().buffer();
        let mut text = String::new();
        let mut x = 0;
        while x < buffer.content.len() {
            let symbol = buffer.content[x].symbol();
            text.push_str(symbol);
            x += wrap::width(symbol).max(1);
        }
        text
    }

    #[test]
    fn a_list_with_rows_below_says_how_many_and_a_heading_it_covers_ends_with_an_ellipsis() {
        assert_eq!(
            heading_with("Needs your answer (7)", 1),
            "Needs your answer (7)           ↓ 1 more"
        );
        assert_eq!(
            heading_with("History of demo  100+ conversations", 91),
            "History of demo  100+ convers… ↓ 91 more"
        );
        assert_eq!(
            heading_with("重构订单服务重构订单服务重构订单服务重构", 3),
            "重构订单服务重构订单服务重构订… ↓ 3 more"
        );
        // A wide character over the note's first column gives way to a blank.
        assert_eq!(
            heading_with("a重构订单服务重构订单服务重构订单服务", 3),
            "a重构订单服务重构订单服务重构 … ↓ 3 more"
        );
        assert_eq!(heading_with("Agents", 0), format!("{:<40}", "Agents"));
    }

    fn row(cells: &[(&str, usize)], width: usize) -> String {
        let cells: Vec<(String, usize, Style)> = cells
            .iter()
            .map(|(text, w)| (text.to_string(), *w, Style::default()))
            .collect();
        columns(&cells, width)
            .spans
            .iter()
            .map(|span| span.content.as_ref())
            .collect()
    }

    #[test]
    fn a_column_cut_short_keeps_a_blank_before_the_next() {
        // As the workspaces' tree drew a long pane title beside its state.
        assert_eq!(
            row(&[("Task: run its tests", 12), ("waiting", 10)], 40),
            "Task: run…  waiting"
        );
        assert_eq!(
            row(&[("重构订单服务重构", 9), ("idle", 6)], 40),
            "重构订…  idle"
        );
        // A text that fits with room to spare is padded; one that fills its column to the
        // last cell gives up a cell, as the workspaces' tree drew "Store & restartsrunning".
        assert_eq!(row(&[("ab", 4), ("x", 2)], 40), "ab  x");
        assert_eq!(row(&[("exactly12345", 12), ("x", 2)], 40), "exactly123… x");
        assert_eq!(row(&[("› ", 2), ("x", 2)], 40), "› x");
        // A column of air after it is air enough.
        assert_eq!(
            row(
                &[("Task: run its tests", 12), ("  ", 2), ("waiting", 10)],
                40
            ),
            "Task: run i…  waiting"
        );
        assert_eq!(
            row(&[("Task: run its tests", 12), ("", 2), ("waiting", 10)], 40),
            "Task: run i…  waiting"
        );
    }
}
