//! The real terminal: raw mode, the alternate screen, bracketed paste, focus reports and the
//! mouse, all undone when the phone stops, panics, or gets SIGTERM, SIGINT or SIGHUP.

use std::io::{self, Stdout, Write};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::cursor::Show;
use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{execute, queue};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::app::notify::Notice;

/// Whether the phone has the mouse now, so the screen taken back after the person's editor
/// takes it again only if it had it.
static MOUSE_TAKEN: AtomicBool = AtomicBool::new(false);

/// Puts the terminal back as it was when dropped.
pub struct TerminalGuard {
    _private: (),
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Takes over the terminal, taking the mouse too unless `mouse` is false (the config's
/// `mouse = false`: the terminal's own selection works). The panic hook is installed first, so
/// a panic anywhere after this still leaves a usable shell.
pub fn enter(mouse: bool) -> io::Result<(Terminal<CrosstermBackend<Stdout>>, TerminalGuard)> {
    install_panic_hook();
    enable_raw_mode()?;
    let guard = TerminalGuard { _private: () };
    let mut stdout = io::stdout();
    take_over(&mut stdout, mouse)?;
    MOUSE_TAKEN.store(mouse, Ordering::Relaxed);
    let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    Ok((terminal, guard))
}

/// The escapes that take the terminal over, the mouse's only when `mouse`.
fn take_over(out: &mut impl Write, mouse: bool) -> io::Result<()> {
    queue!(
        out,
        EnterAlternateScreen,
        EnableBracketedPaste,
        EnableFocusChange
    )?;
    if mouse {
        queue!(out, EnableMouseCapture)?;
    }
    out.flush()
}

/// Writes the escapes that take the mouse (`captured`) or leave it to the terminal.
fn write_mouse(out: &mut impl Write, captured: bool) -> io::Result<()> {
    if captured {
        queue!(out, EnableMouseCapture)?;
    } else {
        queue!(out, DisableMouseCapture)?;
    }
    out.flush()
}

/// Takes the mouse, or leaves it to the terminal, while the phone runs (its key `M`).
pub fn set_mouse(captured: bool) {
    MOUSE_TAKEN.store(captured, Ordering::Relaxed);
    if let Err(error) = write_mouse(&mut io::stdout(), captured) {
        tracing::warn!(%error, captured, "could not switch the mouse");
    }
}

/// Undoes [`enter`]; safe to call more than once.
pub(crate) fn restore() {
    let mut stdout = io::stdout();
    // Each step on its own: one failing must not keep the others from running.
    let _ = execute!(stdout, DisableMouseCapture);
    let _ = execute!(stdout, DisableFocusChange);
    let _ = execute!(stdout, DisableBracketedPaste);
    let _ = execute!(stdout, LeaveAlternateScreen);
    let _ = execute!(stdout, Show);
    let _ = disable_raw_mode();
    let _ = stdout.flush();
}

/// Runs `work` with the terminal as the shell had it (main screen, cooked mode, no mouse,
/// paste or focus reports), then takes the screen over again: the person's editor runs on the
/// terminal this way (docs/KEYS.md, "The person's editor"). The caller draws the whole screen
/// afterwards; it must have stopped reading the terminal first, or the editor's keys are taken.
pub fn outside<T>(work: impl FnOnce() -> T) -> T {
    restore();
    let result = work();
    let mut stdout = io::stdout();
    if let Err(error) = enable_raw_mode() {
        tracing::warn!(%error, "raw mode could not be taken back");
    }
    if let Err(error) = take_over(&mut stdout, MOUSE_TAKEN.load(Ordering::Relaxed)) {
        tracing::warn!(%error, "the screen could not be taken back");
    }
    result
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// Rings the terminal bell.
pub fn bell() {
    let mut stdout = io::stdout();
    let _ = stdout.write_all(b"\x07");
    let _ = stdout.flush();
}

/// Shows a desktop notification through the terminal's escape (OSC 9 or 777).
pub fn notify(notice: &Notice) {
    let mut stdout = io::stdout();
    let _ = stdout.write_all(notice.escape().as_bytes());
    let _ = stdout.flush();
}

/// Resolves on SIGTERM, SIGINT or SIGHUP, so the phone stops cleanly and the terminal is
/// restored. If the handlers cannot be set, it never resolves (and says so in the log).
pub async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let kinds = [
        SignalKind::terminate(),
        SignalKind::interrupt(),
        SignalKind::hangup(),
    ];
    let mut streams = Vec::new();
    for kind in kinds {
        match signal(kind) {
            Ok(stream) => streams.push(stream),
            Err(error) => tracing::warn!(%error, "cannot watch a stop signal"),
        }
    }
    if streams.is_empty() {
        std::future::pending::<()>().await;
    }
    let waits = streams
        .iter_mut()
        .map(|s| Box::pin(async move { s.recv().await }))
        .collect::<Vec<_>>();
    futures::future::select_all(waits).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xterm's mouse modes as crossterm writes them: clicks, drags, any motion, SGR encoding.
    const MOUSE_ON: &[&str] = &["\x1b[?1000h", "\x1b[?1002h", "\x1b[?1003h", "\x1b[?1006h"];
    const MOUSE_OFF: &[&str] = &["\x1b[?1000l", "\x1b[?1002l", "\x1b[?1003l", "\x1b[?1006l"];

    fn written(write: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> String {
        let mut bytes = Vec::new();
        write(&mut bytes).expect("a Vec takes every byte");
        String::from_utf8(bytes).expect("escapes are ASCII")
    }

    #[test]
    fn the_mouse_is_taken_at_the_start_only_when_asked() {
        let with = written(|out| take_over(out, true));
        let without = written(|out| take_over(out, false));
        for escape in MOUSE_ON {
            assert!(with.contains(escape), "{escape:?} in {with:?}");
            assert!(!without.contains(escape), "{escape:?} in {without:?}");
        }
        // Everything else is the same either way: the alternate screen, paste, focus.
        for other in ["\x1b[?1049h", "\x1b[?2004h", "\x1b[?1004h"] {
            assert!(with.contains(other) && without.contains(other), "{other:?}");
        }
    }

    #[test]
    fn the_mouse_key_writes_exactly_the_escapes_that_take_or_leave_it() {
        let off = written(|out| write_mouse(out, false));
        let on = written(|out| write_mouse(out, true));
        assert!(
            MOUSE_OFF.iter().all(|escape| off.contains(escape)),
            "{off:?}"
        );
        assert!(
            !MOUSE_ON.iter().any(|escape| off.contains(escape)),
            "{off:?}"
        );
        assert!(MOUSE_ON.iter().all(|escape| on.contains(escape)), "{on:?}");
        assert!(
            !MOUSE_OFF.iter().any(|escape| on.contains(escape)),
            "{on:?}"
        );
    }
}
