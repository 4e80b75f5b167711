//! The real terminal: raw mode, the alternate screen, bracketed paste, focus reports and the
//! mouse, all undone when the phone stops, panics, or gets SIGTERM, SIGINT or SIGHUP.

use std::io::{self, Stdout, Write};
use std::sync::Once;

use crossterm::cursor::Show;
use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::app::notify::Notice;

/// Puts the terminal back as it was when dropped.
pub(crate) struct TerminalGuard {
    _private: (),
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Takes over the terminal. The panic hook is installed first, so a panic anywhere after this
/// still leaves a usable shell.
pub(crate) fn enter() -> io::Result<(Terminal<CrosstermBackend<Stdout>>, TerminalGuard)> {
    install_panic_hook();
    enable_raw_mode()?;
    let guard = TerminalGuard { _private: () };
    let mut stdout = io::stdout();
    execute!(
        stdout,
        EnterAlternateScreen,
        EnableBracketedPaste,
        EnableFocusChange,
        EnableMouseCapture
    )?;
    let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    Ok((terminal, guard))
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
pub(crate) fn bell() {
    let mut stdout = io::stdout();
    let _ = stdout.write_all(b"\x07");
    let _ = stdout.flush();
}

/// Shows a desktop notification through the terminal's escape (OSC 9 or 777).
pub(crate) fn notify(notice: &Notice) {
    let mut stdout = io::stdout();
    let _ = stdout.write_all(notice.escape().as_bytes());
    let _ = stdout.flush();
}

/// Resolves on SIGTERM, SIGINT or SIGHUP, so the phone stops cleanly and the terminal is
/// restored. If the handlers cannot be set, it never resolves (and says so in the log).
pub(crate) async fn stop_signal() {
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
