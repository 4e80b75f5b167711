//! The real binary in tmux, for what only a real terminal shows: whether the phone took the
//! mouse (tmux's `mouse_any_flag`, set by the CSI ?1000h family of escapes), the key that turns
//! it off and on with its line on screen, the theme `auto` picks from the terminal's
//! background, and the phone's line for a socket that is not there. Skipped, with a note, where
//! tmux is not installed.

use crate::common;

use common::tmux::{Tmux, private_home, tmux_installed};

const BIN: &str = env!("CARGO_BIN_EXE_collie-phone");

/// A private home with a config file: (home, the command that runs `collie-phone ARGS` there
/// with `env` in front, the config's `--config` flag). `{config}` in `args` becomes that flag,
/// `{home}` the home.
fn home_with(config: &str, env: &str, args: &str) -> (tempfile::TempDir, String) {
    let (home, runtime) = private_home("cp-term-");
    let config_file = home.path().join("config.toml");
    std::fs::write(&config_file, config).expect("write the config");
    let args = args
        .replace("{config}", &format!("--config {}", config_file.display()))
        .replace("{home}", &home.path().display().to_string());
    let command = format!(
        "env {env} XDG_RUNTIME_DIR={run} XDG_STATE_HOME={home}/state XDG_CONFIG_HOME={home}/config {BIN} {args}",
        run = runtime.display(),
        home = home.path().display(),
    );
    (home, command)
}

#[test]
fn mouse_false_leaves_the_mouse_and_m_takes_it_and_leaves_it_again() {
    if !tmux_installed() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let (home, command) = home_with("mouse = false\n", "", "demo {config}");
    let _home = home;
    let tmux = Tmux::start("mouse", (100, 30), &command);
    tmux.until_with("the demo's agent", |t| t.screen().contains("demo"));
    assert!(!tmux.mouse_taken(), "mouse = false, yet the phone took it");
    tmux.key("M");
    tmux.until_with("the mouse taken", Tmux::mouse_taken);
    tmux.until_with("the line saying so", |t| {
        t.screen()
            .contains("Mouse on: wheel and clicks work here; press M for your terminal's selection")
    });
    tmux.key("M");
    tmux.until_with("the mouse left", |t| !t.mouse_taken());
    tmux.until_with("the line saying so", |t| {
        t.screen()
            .contains("Mouse off: your terminal's selection works; press M to turn it back on")
    });
    // Everything goes on by keyboard: help opens and lists the key.
    tmux.key("?");
    tmux.until_with("the help with the mouse key", |t| {
        t.screen()
            .contains("Mouse on or off (off: the terminal's own selection works)")
    });
}

#[test]
fn by_default_the_phone_takes_the_mouse() {
    if !tmux_installed() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let (home, command) = home_with("", "", "demo {config}");
    let _home = home;
    let tmux = Tmux::start("mouse-default", (100, 30), &command);
    tmux.until_with("the demo's agent", |t| t.screen().contains("demo"));
    tmux.until_with("the mouse taken", Tmux::mouse_taken);
}

#[test]
fn theme_auto_is_light_when_the_terminal_answers_osc_11_with_a_light_background() {
    if !tmux_installed() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let (home, command) = home_with("", "", "demo {config} --log {home}/phone.log");
    let log = home.path().join("phone.log");
    // tmux answers OSC 11 with the pane's background when its window style sets one.
    let tmux = Tmux::start_with_background("osc11", (100, 30), "#ffffff", &command);
    tmux.until_with("the demo's agent", |t| t.screen().contains("demo"));
    // The log is written by a thread of its own: the line may land just after the first frame.
    tmux.until_with("the theme's reason in the phone's log", |_| {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("theme auto: light (the terminal's answer to OSC 11;")
    });
    let coloured = tmux.coloured_screen();
    // The light theme's body text, not the dark one's.
    assert!(coloured.contains("38;2;55;96;191"), "{coloured}");
    assert!(!coloured.contains("38;2;192;202;245"), "{coloured}");
    // The terminal's answer was read whole: none of it reached the screens as typing.
    let screen = tmux.screen();
    assert!(
        !screen.contains("rgb:") && !screen.contains("Filter"),
        "{screen}"
    );
}

#[test]
fn theme_auto_falls_back_to_colorfgbg_when_the_terminal_does_not_say() {
    if !tmux_installed() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    // A tmux with no window style and no client cannot answer OSC 11.
    let (home, command) = home_with(
        "",
        "COLORFGBG='0;15'",
        "demo {config} --log {home}/phone.log",
    );
    let log = home.path().join("phone.log");
    let tmux = Tmux::start("colorfgbg", (100, 30), &command);
    tmux.until_with("the demo's agent", |t| t.screen().contains("demo"));
    tmux.until_with("the theme's reason in the phone's log", |_| {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("theme auto: light (COLORFGBG;")
    });
    assert!(tmux.coloured_screen().contains("38;2;55;96;191"));
}

#[test]
fn the_phone_says_in_one_line_that_there_is_no_socket() {
    if !tmux_installed() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let (home, command) = home_with("", "", "{config} --socket {home}/gone/agent.sock");
    let socket = home.path().join("gone").join("agent.sock");
    let tmux = Tmux::start("nosocket", (100, 30), &command);
    tmux.until_with("the agent's line", |t| {
        t.screen()
            .contains(&format!("Unreachable: no socket at {}", socket.display()))
    });
    assert!(
        !tmux.screen().contains("socket-not-private"),
        "{}",
        tmux.screen()
    );
}

/// The demo in a tmux whose `set-clipboard` is `mode`, in a pane with its first item selected.
fn demo_with_clipboard(name: &str, mode: &str) -> (tempfile::TempDir, Tmux) {
    let (home, command) = home_with("", "", "demo {config}");
    let tmux = Tmux::start_with_options(name, (100, 30), &[("set-clipboard", mode)], &command);
    tmux.until("home", |s| s.contains("Needs your answer"));
    // The workspaces, then the first pane, then its first item.
    tmux.keys(&["g", "Enter"]);
    tmux.until("the workspaces", |s| s.contains("HTTP routes"));
    tmux.keys(&["Enter"]);
    tmux.until("the pane", |s| s.contains("Enter type"));
    tmux.keys(&["["]);
    (home, tmux)
}

/// tmux passes an application's OSC 52 on only with `set-clipboard on` (tmux's default,
/// `external`, drops it): the phone asks tmux at its start, and a copy names the one line of
/// ~/.tmux.conf that fixes it; with `on`, the copy reaches tmux and says it was copied
/// (docs/KEYS.md, "Copy").
#[test]
fn a_copy_in_tmux_without_set_clipboard_on_names_the_line_that_fixes_it() {
    if !tmux_installed() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    for mode in ["off", "external"] {
        let (_home, tmux) = demo_with_clipboard(&format!("clip-{mode}"), mode);
        tmux.keys(&["y"]);
        tmux.until("the line that fixes it", |s| {
            s.contains("set -g set-clipboard") && s.contains("~/.tmux.conf")
        });
        let buffers = tmux.run(&["list-buffers"]);
        assert!(
            String::from_utf8_lossy(&buffers.stdout).trim().is_empty(),
            "{mode}: tmux took no copy"
        );
        // The person does what the line says, the phone still running; the next y goes
        // through, and the phone says so.
        let out = tmux.run(&["set-option", "-g", "set-clipboard", "on"]);
        assert!(out.status.success(), "set-clipboard on: {out:?}");
        tmux.keys(&["y"]);
        tmux.until(&format!("{mode}, then on: copied"), |s| {
            s.contains("Copied") && s.contains("OSC 52")
        });
        tmux.until_with("the copy in tmux's buffer", |t| {
            !String::from_utf8_lossy(&t.run(&["list-buffers"]).stdout)
                .trim()
                .is_empty()
        });
    }
    let (_home, tmux) = demo_with_clipboard("clip-on", "on");
    tmux.keys(&["y"]);
    tmux.until("copied", |s| s.contains("Copied") && s.contains("OSC 52"));
    assert!(!tmux.screen().contains("set -g set-clipboard"));
    tmux.until_with("the copy in tmux's buffer", |t| {
        !String::from_utf8_lossy(&t.run(&["list-buffers"]).stdout)
            .trim()
            .is_empty()
    });
}

/// A click on a card's option, as a terminal reports it (SGR mouse), selects it; Enter then
/// answers with it (docs/KEYS.md, "The mouse").
#[test]
fn a_click_on_a_cards_option_in_tmux_selects_it() {
    if !tmux_installed() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let (home, command) = home_with("", "", "demo {config}");
    let _home = home;
    let tmux = Tmux::start("click-option", (80, 24), &command);
    tmux.until("home", |s| s.contains("Needs your answer"));
    tmux.until_with("the mouse taken", Tmux::mouse_taken);
    tmux.select("shell: rm -rf build/");
    tmux.keys(&["Enter"]);
    tmux.until("the card", |s| s.contains("Allow once"));
    let screen = tmux.screen();
    let row = screen
        .lines()
        .position(|l| l.contains("2 n  Deny"))
        .expect("the Deny option");
    assert!(!screen.lines().nth(row).is_some_and(|l| l.contains('›')));
    // SGR mouse: press and release of the left button, 1-based column and row.
    for end in ['M', 'm'] {
        let click = format!("\x1b[<0;8;{}{end}", row + 1);
        let out = tmux.run(&["send-keys", "-t", &tmux.session, "-l", &click]);
        assert!(out.status.success(), "send-keys -l: {out:?}");
    }
    tmux.until("Deny selected", |s| {
        s.lines()
            .nth(row)
            .is_some_and(|l| l.contains("› 2 n  Deny"))
    });
    tmux.read_card();
    tmux.keys(&["Enter"]);
    tmux.until("the card answered", |s| !s.contains("Allow once"));
}
