//! The two escapes the runner writes for the chat beside ratatui's frames: OSC 52 (text to the
//! clipboard, which works over ssh since the terminal on the person's side does it) and OSC 8
//! (the `https://` URLs a pane shows become hyperlinks). Both carry agent text, so both are
//! built only from text cleaned again here (SPEC L1), and a URL only after it passed
//! `look::chat_links::is_safe_url`.
//!
//! Why OSC 8 after the frame, not inside ratatui's cells: a cell holding an escape counts its
//! bytes as width when ratatui compares frames, which shifts the rest of the row (the reason
//! ratatui's own hyperlink example writes its link in two-column pieces). Here the frame is
//! drawn and cleaned as always; then, for each link piece, the cells it covers are written
//! again, the same symbols in the same styles, between an OSC 8 opening and closing, with the
//! cursor saved and restored around it. The screen looks the same, nothing moves, and a piece
//! whose cells no longer spell its text (something was drawn over it) is left alone.

use base64::Engine as _;
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::buffer::Buffer;

use crate::look::chat_links::is_safe_url;
use crate::screens::pane::select::DrawnLink;
use crate::screens::search::MAX_COPY_BYTES;

/// Save the cursor (position and attributes), restore it.
const SAVE_CURSOR: &[u8] = b"\x1b7";
const RESTORE_CURSOR: &[u8] = b"\x1b8";
/// The string terminator of OSC 8; BEL ends OSC 52, which more terminals (and older tmux)
/// take for it.
const ST: &[u8] = b"\x1b\\";
const BEL: &[u8] = b"\x07";

/// Whether tmux keeps OSC 52 from the clipboard now: true when tmux's `set-clipboard` is not
/// `on` (it takes an application's clipboard escape only when `on`); none outside tmux (`TMUX`
/// unset). Asked at the start and again after each copy; a tmux that does not answer is taken
/// to let copies through.
pub fn tmux_clipboard_now() -> Option<bool> {
    if std::env::var_os("TMUX").is_none_or(|v| v.is_empty()) {
        return None;
    }
    let keeps = std::process::Command::new("tmux")
        .args(["show-options", "-gv", "set-clipboard"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|out| out.status.success())
        .is_some_and(|out| String::from_utf8_lossy(&out.stdout).trim() != "on");
    Some(keeps)
}

/// Writes escapes beside the frames to the terminal (the real runner's `raw_out`).
pub fn write_to_terminal(bytes: &[u8]) {
    use std::io::Write;
    let mut stdout = std::io::stdout();
    let _ = stdout.write_all(bytes);
    let _ = stdout.flush();
}

/// The OSC 52 sequence that puts `text` on the clipboard: cleaned again, capped at
/// `MAX_COPY_BYTES` (the app already did both and told the person; this is the last guard),
/// base64-encoded, so nothing of the text itself can end the sequence.
pub(crate) fn clipboard(text: &str) -> Vec<u8> {
    let copied = crate::screens::search::for_clipboard(text);
    debug_assert!(copied.text.len() <= MAX_COPY_BYTES);
    let encoded = base64::engine::general_purpose::STANDARD.encode(copied.text.as_bytes());
    let mut out = Vec::with_capacity(encoded.len() + 8);
    out.extend_from_slice(b"\x1b]52;c;");
    out.extend_from_slice(encoded.as_bytes());
    out.extend_from_slice(BEL);
    out
}

/// The bytes that make each drawn link piece of `buffer` an OSC 8 hyperlink (empty when there
/// is none to make).
pub(crate) fn hyperlinks(buffer: &Buffer, links: &[DrawnLink]) -> Vec<u8> {
    let mut out = Vec::new();
    for link in links {
        if !is_safe_url(&link.url) {
            continue;
        }
        let Some(cells) = cells_spelling(buffer, link) else {
            continue;
        };
        let mut again: Vec<u8> = Vec::new();
        let drawn = CrosstermBackend::new(&mut again).draw(
            cells
                .iter()
                .enumerate()
                .map(|(i, cell)| (link.x + u16::try_from(i).unwrap_or(0), link.y, *cell)),
        );
        if drawn.is_err() {
            continue;
        }
        out.extend_from_slice(SAVE_CURSOR);
        out.extend_from_slice(b"\x1b]8;;");
        out.extend_from_slice(link.url.as_bytes());
        out.extend_from_slice(ST);
        out.extend_from_slice(&again);
        out.extend_from_slice(b"\x1b]8;;");
        out.extend_from_slice(ST);
        out.extend_from_slice(RESTORE_CURSOR);
    }
    out
}

/// The cells a link piece covers, when they still spell its text, one printable ASCII
/// character each (a URL is ASCII, SPEC L).
fn cells_spelling<'b>(
    buffer: &'b Buffer,
    link: &DrawnLink,
) -> Option<Vec<&'b ratatui::buffer::Cell>> {
    let mut cells = Vec::with_capacity(link.text.len());
    for (i, c) in link.text.chars().enumerate() {
        let x = link.x.checked_add(u16::try_from(i).ok()?)?;
        let cell = buffer.cell((x, link.y))?;
        let mut symbol = cell.symbol().chars();
        if symbol.next() != Some(c) || symbol.next().is_some() || !c.is_ascii_graphic() {
            return None;
        }
        cells.push(cell);
    }
    (!cells.is_empty()).then_some(cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::{Color, Style};

    #[test]
    fn l1_osc_52_carries_only_the_cleaned_text_base64() {
        let hostile = "a\u{1b}]52;c;ZXZpbA==\u{7}b\u{9d}8;;https://evil\u{9c}\nc";
        let bytes = clipboard(hostile);
        let expected =
            base64::engine::general_purpose::STANDARD.encode("a]52;c;ZXZpbA==b8;;https://evil\nc");
        assert_eq!(bytes, format!("\u{1b}]52;c;{expected}\u{7}").into_bytes());
        // One ESC to open and one BEL to end: nothing else steers the terminal.
        assert_eq!(bytes.iter().filter(|b| **b == 0x1b).count(), 1);
        assert_eq!(bytes.iter().filter(|b| **b == 0x07).count(), 1);
    }

    fn buffer_with(text: &str) -> Buffer {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 40, 2));
        buffer.set_string(2, 1, text, Style::new().fg(Color::Blue));
        buffer
    }

    fn link(x: u16, text: &str, url: &str) -> DrawnLink {
        DrawnLink {
            x,
            y: 1,
            text: text.into(),
            url: url.into(),
        }
    }

    #[test]
    fn osc_8_wraps_the_same_cells_and_restores_the_cursor() {
        let buffer = buffer_with("https://e.com/a");
        let bytes = hyperlinks(&buffer, &[link(2, "https://e.com/a", "https://e.com/a")]);
        let text = String::from_utf8(bytes).expect("utf-8");
        assert!(
            text.starts_with("\u{1b}7\u{1b}]8;;https://e.com/a\u{1b}\\"),
            "{text:?}"
        );
        assert!(text.ends_with("\u{1b}]8;;\u{1b}\\\u{1b}8"), "{text:?}");
        // The cells again, at their place (row 2, column 3 counted from 1), in their colour.
        assert!(text.contains("\u{1b}[2;3H"), "{text:?}");
        assert!(text.contains("https://e.com/a\u{1b}[39m"), "{text:?}");
    }

    #[test]
    fn a_piece_drawn_over_or_an_unsafe_url_is_left_alone() {
        let buffer = buffer_with("https://e.com/a");
        assert!(hyperlinks(&buffer, &[link(2, "https://e.com/b", "https://e.com/b")]).is_empty());
        assert!(hyperlinks(&buffer, &[link(3, "https://e.com/a", "https://e.com/a")]).is_empty());
        let hostile = "https://e.com/\u{7}\u{1b}]52;c;AAAA";
        assert!(hyperlinks(&buffer, &[link(2, "https://e.com/a", hostile)]).is_empty());
        assert!(hyperlinks(&buffer, &[link(2, "https://e.com/a", "http://e.com/a")]).is_empty());
    }
}
