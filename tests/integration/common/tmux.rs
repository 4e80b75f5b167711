//! A tmux server of a test's own: the real binary in a real terminal, driven by keys as a
//! person types, its screen (and, when asked, its raw output) read back. Used by tests/integration/tmux.rs
//! and tests/integration/tmux_terminal.rs.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long a screen may take to show what a test waits for.
pub const SOON: Duration = Duration::from_secs(20);

/// A tmux server of its own, killed when dropped.
pub struct Tmux {
    socket: String,
    pub session: String,
}

/// A fresh home for a phone under test, with its private runtime folder (mode 0700, as
/// `XDG_RUNTIME_DIR` must be): (home, runtime folder).
pub fn private_home(prefix: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in("/tmp")
        .expect("a temp folder");
    let runtime = home.path().join("run");
    std::fs::create_dir(&runtime).expect("runtime folder");
    std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700))
        .expect("private runtime folder");
    (home, runtime)
}

/// True when tmux can be run here; tests that need it skip, with a note, when not.
pub fn tmux_installed() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

impl Tmux {
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// Runs `command` in a new tmux server named after `name` (tests that run at the same
    /// time each have their own), in a window of `width`x`height`.
    pub fn start(name: &str, (width, height): (u16, u16), command: &str) -> Self {
        let tmux = Self {
            socket: format!("collie-phone-test-{name}-{}", std::process::id()),
            session: "phone".into(),
        };
        let (width, height) = (width.to_string(), height.to_string());
        let out = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            &tmux.session,
            "-x",
            &width,
            "-y",
            &height,
            command,
        ]);
        assert!(out.status.success(), "tmux new-session: {out:?}");
        tmux
    }

    /// A tmux whose window style has this background (so it answers OSC 11 with it), then
    /// `command` in its pane.
    pub fn start_with_background(
        name: &str,
        size: (u16, u16),
        background: &str,
        command: &str,
    ) -> Self {
        let style = format!("bg={background}");
        Self::start_with_options(name, size, &[("window-style", &style)], command)
    }

    /// A tmux with these global options set before `command` starts in its pane, so the phone
    /// reads them as a person's tmux.conf would have them (it asks some once, at its start).
    pub fn start_with_options(
        name: &str,
        size: (u16, u16),
        options: &[(&str, &str)],
        command: &str,
    ) -> Self {
        let tmux = Self::start(name, size, "sleep 60");
        for (option, value) in options {
            let out = tmux.run(&["set-option", "-g", option, value]);
            assert!(out.status.success(), "set-option {option}: {out:?}");
        }
        let out = tmux.run(&["respawn-pane", "-k", "-t", &tmux.session, command]);
        assert!(out.status.success(), "respawn-pane: {out:?}");
        tmux
    }

    pub fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", &self.session]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen with its colours, as SGR escapes.
    pub fn coloured_screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-e", "-t", &self.session]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Keys one at a time, as a person types: each lands on the screen it was meant for.
    pub fn keys(&self, keys: &[&str]) {
        for key in keys {
            self.key(key);
            std::thread::sleep(Duration::from_millis(60));
        }
    }

    /// One key, with no pause after it.
    pub fn key(&self, key: &str) {
        let out = self.run(&["send-keys", "-t", &self.session, key]);
        assert!(out.status.success(), "send-keys {key}: {out:?}");
    }

    /// Several keys in one `send-keys`, so they reach the phone in one read, as over ssh.
    pub fn bunch(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", self.session.as_str()];
        args.extend_from_slice(keys);
        let out = self.run(&args);
        assert!(out.status.success(), "send-keys {keys:?}: {out:?}");
    }

    /// Text as one burst, the way a paste without bracketed-paste markers arrives.
    pub fn text(&self, text: &str) {
        let out = self.run(&["send-keys", "-t", &self.session, "-l", text]);
        assert!(out.status.success(), "send-keys -l: {out:?}");
        std::thread::sleep(Duration::from_millis(100));
    }

    /// Text the way ssh hands a person's typing on (docs/KEYS.md): small writes of two keys,
    /// 1–10 ms apart, newlines as Enter (a carriage return, as a terminal sends it).
    pub fn ssh_bunches(&self, text: &str) {
        let keys: Vec<char> = text
            .chars()
            .map(|c| if c == '\n' { '\r' } else { c })
            .collect();
        for (i, piece) in keys.chunks(2).enumerate() {
            let piece: String = piece.iter().collect();
            let out = self.run(&["send-keys", "-t", &self.session, "-l", &piece]);
            assert!(out.status.success(), "send-keys -l: {out:?}");
            std::thread::sleep(Duration::from_millis(1 + (i as u64 * 7) % 10));
        }
    }

    /// Waits until the screen passes `check`.
    pub fn until(&self, what: &str, check: impl Fn(&str) -> bool) {
        self.until_with(what, |tmux| check(&tmux.screen()));
    }

    /// Waits until `check` of the whole terminal passes (its mouse, its colours).
    pub fn until_with(&self, what: &str, check: impl Fn(&Self) -> bool) {
        let deadline = Instant::now() + SOON;
        while !check(self) {
            assert!(
                Instant::now() < deadline,
                "{what} did not show within {SOON:?}; the screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits as a person reading a card would: past its reading time (docs/ASKS.md), after
    /// which Enter answers.
    pub fn read_card(&self) {
        let arming = collie_phone::model::arming::ARMING.unsigned_abs();
        std::thread::sleep(arming + Duration::from_millis(200));
    }

    /// True while the session (the phone) still runs.
    pub fn alive(&self) -> bool {
        self.run(&["has-session", "-t", &self.session])
            .status
            .success()
    }

    /// True when the program in the pane asked for mouse reports.
    pub fn mouse_taken(&self) -> bool {
        let out = self.run(&[
            "display-message",
            "-p",
            "-t",
            &self.session,
            "#{mouse_any_flag}",
        ]);
        String::from_utf8_lossy(&out.stdout).trim() == "1"
    }

    /// Moves the selection down until its row holds `words`, then up, when the row came to
    /// stand above it (Home sorts its asks by deadline, so a new one may go on top).
    pub fn select(&self, words: &str) {
        for key in ["j", "k"] {
            for _ in 0..40 {
                if self
                    .screen()
                    .lines()
                    .any(|l| l.starts_with('›') && l.contains(words))
                {
                    return;
                }
                self.keys(&[key]);
            }
        }
        panic!("no row with {words}:\n{}", self.screen());
    }

    /// The command that attaches a client to this server's session: run in a pane of another
    /// tmux, it makes a client that is attached and focused, so this server sends its panes
    /// focus reports (`focus-events on`) as windows are selected.
    pub fn attach_command(&self) -> String {
        format!("tmux -L {} attach -t {}", self.socket, self.session)
    }

    /// Records every byte the program in the pane writes, raw, to `file` (`pipe-pane -O`).
    pub fn record_output(&self, file: &Path) {
        let command = format!("cat >> '{}'", file.display());
        let out = self.run(&["pipe-pane", "-O", "-t", &self.session, &command]);
        assert!(out.status.success(), "pipe-pane: {out:?}");
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}
