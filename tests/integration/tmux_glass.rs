//! The glass: what tmux shows is what the phone drew, for the graphemes terminals measure their
//! own way (flags, skin tones, VS16, joiner sequences; `look::glyph`, SPEC L1). A message full
//! of them is sent in a pane, the help opened and closed, Home visited: no lone regional
//! indicator is left on any screen, the words show as the phone wrote them, and Ctrl-L clears
//! the terminal and draws everything again. Read on `capture-pane` and on the raw bytes
//! (`pipe-pane`). Skipped, with a note, where tmux is not installed.

use crate::common;

use common::tmux::{Tmux, tmux_installed};

use crate::tmux::demo_home;

const MESSAGE: &str = "flag 🇯🇵 here and 🇺🇸 there 👍🏽 ✍️, 👩\u{200d}💻 end";

/// True when `screen` holds a regional indicator (half a flag, or a whole one the phone
/// should have written as letters).
fn holds_regional_indicator(screen: &str) -> bool {
    screen
        .chars()
        .any(|c| ('\u{1f1e6}'..='\u{1f1ff}').contains(&c))
}

fn assert_clean(what: &str, screen: &str) {
    assert!(
        !holds_regional_indicator(screen),
        "{what}: a regional indicator is on screen:\n{screen}"
    );
    for unsure in ['\u{fe0f}', '\u{1f3fd}', '\u{200d}'] {
        assert!(
            !screen.contains(unsure),
            "{what}: U+{:04X} reached the terminal:\n{screen}",
            unsure as u32
        );
    }
}

#[test]
fn l1_wide_graphemes_leave_nothing_behind_and_ctrl_l_redraws() {
    if !tmux_installed() {
        eprintln!(
            "SKIPPED l1_wide_graphemes_leave_nothing_behind_and_ctrl_l_redraws: tmux is not installed"
        );
        return;
    }
    let (home, _runtime, command) = demo_home("demo --speed 0");
    let raw_path = home.path().join("raw-output");
    let tmux = Tmux::start("glass", (100, 30), &command);
    tmux.record_output(&raw_path);
    tmux.until("home", |s| s.contains("Needs your answer (4)"));
    assert_clean("home", &tmux.screen());
    tmux.keys(&["Enter"]);
    tmux.until("the layout", |s| s.contains("workspaces, tabs and panes"));
    tmux.select("Store & restarts");
    tmux.keys(&["Enter"]);
    tmux.until("the pane", |s| s.contains("Enter to type a message"));
    tmux.keys(&["Enter"]);
    tmux.text(MESSAGE);
    tmux.until("the message in the box", |s| s.contains("there"));
    tmux.keys(&["Enter"]);
    // As the phone drew it: the flags as their region's letters, the thumb without its tone,
    // the pen without its selector and no blank before the comma, the first part of the join.
    let shown = "flag JP here and US there 👍 ✍, 👩 end";
    tmux.until("the message in the chat", |s| {
        s.lines().any(|l| l.contains(&format!("you › {shown}")))
    });
    let pane = tmux.screen();
    assert_clean("the pane after the send", &pane);

    tmux.keys(&["Escape", "?"]);
    tmux.until("the help", |s| s.contains("Esc close help"));
    assert_clean("the help over the pane", &tmux.screen());
    tmux.keys(&["Escape"]);
    tmux.until("the pane again", |s| !s.contains("Esc close help"));
    assert_clean("the pane after the help", &tmux.screen());
    tmux.keys(&["Escape", "Escape"]);
    tmux.until("home again", |s| s.contains("Needs your answer (4)"));
    let home_screen = tmux.screen();
    assert_clean("home after the pane", &home_screen);
    assert!(
        !home_screen.contains(" JP ") && !home_screen.contains(" US "),
        "the message's letters stayed on Home:\n{home_screen}"
    );

    // Ctrl-L: the terminal is cleared (ESC [2J) and the same screen drawn again.
    let before = std::fs::read(&raw_path).unwrap_or_default().len();
    tmux.keys(&["C-l"]);
    tmux.until("home redrawn", |s| s.contains("Needs your answer (4)"));
    let deadline = std::time::Instant::now() + common::tmux::SOON;
    let cleared = loop {
        let raw = std::fs::read(&raw_path).unwrap_or_default();
        let after = &raw[before.min(raw.len())..];
        if after.windows(4).any(|w| w == b"\x1b[2J") && after.len() > 1000 {
            break true;
        }
        if std::time::Instant::now() > deadline {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(cleared, "Ctrl-L did not clear and redraw the terminal");
    assert_eq!(tmux.screen(), home_screen, "Ctrl-L changed what Home shows");
    tmux.keys(&["q"]);
}
