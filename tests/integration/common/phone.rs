//! The real phone on a `TestBackend`, for whole-app tests that drive keys and read the screen.
//!
//! `App` runs in the `Tui` runner, fed keys from a channel, and polls a real agent through the
//! engine.

use std::io;
use std::path::Path;
use std::time::Duration;

use collie_phone::app::AppSetup;
use collie_phone::app::keymap::Chord;
use collie_phone::app::notify::NotifyStyle;
use collie_phone::app::settings::Settings;
use collie_phone::engine::{AgentSpec, Engine};
use collie_phone::look::theme::Theme;
use collie_phone::shell::App;
use collie_phone::transport::Endpoint;
use collie_phone::tui::Tui;
use crossterm::event::{Event, KeyEvent};
use futures::channel::mpsc;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use time::OffsetDateTime;
use unicode_width::UnicodeWidthStr;

/// How long one step of a flow may take to show on screen (a loaded 2-core CI box is slow).
pub const SOON: Duration = Duration::from_secs(20);

type Keys = mpsc::UnboundedReceiver<io::Result<Event>>;

pub struct TestPhone {
    pub tui: Tui<TestBackend, Keys>,
    keys: mpsc::UnboundedSender<io::Result<Event>>,
}

impl TestPhone {
    /// The phone on one agent named `name`; `tls` says whether it is reached over TLS (A11);
    /// the intent journal lives in `dir`; `adjust` may change the app before it runs.
    pub fn start(
        name: &str,
        endpoint: Endpoint,
        tls: bool,
        dir: &Path,
        (width, height): (u16, u16),
        adjust: impl FnOnce(&mut App),
    ) -> Self {
        let engine = Engine::start(
            vec![AgentSpec {
                name: name.into(),
                endpoint,
            }],
            &dir.join("intents.jsonl"),
        )
        .expect("the engine starts");
        Self::on_engine(
            engine,
            vec![(name.into(), tls)],
            Vec::new(),
            (width, height),
            adjust,
        )
    }

    /// The phone on a running engine whose agents are `agents` (name, reached over TLS), of
    /// which `bridges` are DSH bridges; `adjust` may change the app before it runs.
    pub fn on_engine(
        engine: Engine,
        agents: Vec<(String, bool)>,
        bridges: Vec<String>,
        (width, height): (u16, u16),
        adjust: impl FnOnce(&mut App),
    ) -> Self {
        let theme = Theme::builtin("dark").expect("a theme");
        let mut app = App::new(AppSetup {
            agents,
            settings: Settings {
                notify: NotifyStyle::Off,
                ..Settings::default()
            },
            bridges,
            theme: theme.clone(),
            now: OffsetDateTime::now_utc(),
            size: (width, height),
        });
        adjust(&mut app);
        let (keys, stream) = mpsc::unbounded();
        let terminal = Terminal::new(TestBackend::new(width, height)).expect("a terminal");
        Self {
            tui: Tui::new(terminal, stream, engine, app),
            keys,
        }
    }

    /// Keeps what the person saw of each pane in `path`, reading back what a phone before kept
    /// there (SPEC A22), as the phone keeps it in its state folder.
    pub fn keeping_seen_in(mut self, path: std::path::PathBuf) -> Self {
        self.tui = self.tui.with_seen_file(path);
        self
    }

    /// The screen as text, one line per row; the cell after a wide character is skipped.
    pub fn screen(&self) -> String {
        let buffer = self.tui.terminal().backend().buffer();
        let mut text = String::new();
        for y in 0..buffer.area.height {
            let mut skip = 0;
            for x in 0..buffer.area.width {
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                let symbol = buffer[(x, y)].symbol();
                skip = symbol.width().saturating_sub(1);
                text.push_str(symbol);
            }
            text.push('\n');
        }
        text
    }

    /// Runs the phone until the screen shows what `check` wants.
    pub async fn until(&mut self, what: &str, check: impl Fn(&str) -> bool) {
        let deadline = tokio::time::Instant::now() + SOON;
        loop {
            if check(&self.screen()) {
                return;
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match tokio::time::timeout(left, self.tui.step()).await {
                Ok(result) => {
                    result.expect("the phone runs");
                }
                Err(_) => panic!(
                    "{what} did not show within {SOON:?}; the screen:\n{}",
                    self.screen()
                ),
            }
        }
    }

    /// Runs the phone for `how_long` of real time (its clock ticks every second, so it never
    /// waits past the end by more than a tick).
    pub async fn run_for(&mut self, how_long: Duration) {
        let end = tokio::time::Instant::now() + how_long;
        loop {
            let left = end.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return;
            }
            if let Ok(result) = tokio::time::timeout(left, self.tui.step()).await {
                result.expect("the phone runs");
            }
        }
    }

    /// Lets the reading time of a card that just opened or changed go by, as a person reading
    /// it would (docs/ASKS.md): a little more than the arming time, so the next key answers.
    pub async fn read_card(&mut self) {
        let arming = collie_phone::model::arming::ARMING.unsigned_abs();
        self.run_for(arming + Duration::from_millis(150)).await;
    }

    /// Types keys as a person does: each arrives alone and is handled before the next (the
    /// phone holds a key a few milliseconds to tell a paste from typing; a person's keys are
    /// further apart than that, so each is taken as a key).
    pub async fn press(&mut self, keys: &[&str]) {
        for key in keys {
            let chord = Chord::parse(key).expect("a key");
            self.send(Event::Key(KeyEvent::new(chord.code, chord.modifiers)));
            self.step_until_taken().await;
        }
    }

    /// Keys that come together, as ssh, mosh or a busy moment hand a person's keys on: all
    /// waiting at once, in one read (docs/KEYS.md).
    pub async fn bunch(&mut self, keys: &[&str]) {
        for key in keys {
            let chord = Chord::parse(key).expect("a key");
            self.send(Event::Key(KeyEvent::new(chord.code, chord.modifiers)));
        }
        self.step_until_taken().await;
    }

    /// Puts an event in the terminal's input.
    fn send(&self, event: Event) {
        self.keys
            .unbounded_send(Ok(event))
            .expect("the phone listens");
    }

    /// One step of the runner.
    async fn step_once(&mut self) {
        tokio::time::timeout(SOON, self.tui.step())
            .await
            .expect("a step")
            .expect("the phone runs");
    }

    /// Steps until every key sent has reached the app.
    async fn step_until_taken(&mut self) {
        loop {
            self.step_once().await;
            if self.tui.input_idle() {
                return;
            }
        }
    }

    /// Pastes `text` as a terminal without bracketed paste does: every character a key press
    /// (newlines as Enter), all waiting at once, in reads of 1024 keys.
    pub async fn paste_unbracketed(&mut self, text: &str) {
        use crossterm::event::{KeyCode, KeyModifiers};
        let keys: Vec<KeyEvent> = text
            .chars()
            .map(|c| match c {
                '\n' => KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
                '\t' => KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE),
                c => KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
            })
            .collect();
        for chunk in keys.chunks(1024) {
            for key in chunk {
                self.send(Event::Key(*key));
            }
            self.step_once().await;
        }
        self.step_until_taken().await;
    }

    /// Pastes text as a terminal with bracketed paste sends it: one event, however long.
    pub async fn paste(&mut self, text: &str) {
        self.send(Event::Paste(text.to_string()));
        self.step_once().await;
    }

    /// Types text a character at a time, as the terminal would send it, letting the runner
    /// take each before the next (a step may take several queued keys at once and then wait
    /// for the next tick).
    pub async fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            let key = if c == ' ' {
                "space".to_string()
            } else {
                c.to_string()
            };
            self.press(&[key.as_str()]).await;
        }
    }
}
