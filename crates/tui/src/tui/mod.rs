//! The runner: feeds terminal events, the engine's changes and a one-second clock into the
//! app, carries its commands out, and draws only when something changed. Generic over the
//! backend and the event stream, so whole-app tests drive the real app with a `TestBackend`
//! and scripted keys against a real agent.

pub mod background;
pub(crate) mod burst;
pub(crate) mod clean_screen;
pub(crate) mod export;
pub(crate) mod opener;
pub mod osc;
pub mod outside_editor;
pub mod seen_file;
pub mod terminal;
pub mod woken_stream;

use std::collections::VecDeque;
use std::io;

use crossterm::event::{Event, KeyEventKind};
use std::task::Poll;

use futures::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use time::OffsetDateTime;
use tokio::time::{Duration, Interval, MissedTickBehavior};

use self::burst::{BurstDetector, Input};
use crate::app::notify::Notice;
use crate::app::{Command, Message};
use crate::engine::{Engine, FromEngine, ToEngine};
use crate::shell::App;

/// Messages taken in one go before a frame is drawn, so a burst never starves drawing.
const MAX_BATCH: usize = 512;

/// Where the escapes beside the frames go.
type RawOut = Box<dyn FnMut(&[u8]) + Send>;

/// Whether to keep going after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// The terminal's events, or none while the person's editor has the terminal: the runner
/// must not read a key meant for it.
enum Events<E> {
    Reading(E),
    Lent,
}

impl<E: Stream<Item = io::Result<Event>> + Unpin> Stream for Events<E> {
    type Item = io::Result<Event>;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> Poll<Option<Self::Item>> {
        match self.get_mut() {
            Events::Reading(events) => events.poll_next_unpin(cx),
            Events::Lent => Poll::Pending,
        }
    }
}

/// Runs the person's editor on a text, the screen handed over; what it saved, or why not.
type EditOutside = Box<dyn FnMut(&str) -> Result<String, String> + Send>;

/// How the runner hands the terminal to the person's editor (docs/KEYS.md, "The person's
/// editor"): a real terminal's way, or a test's stand-in.
struct Outside<E> {
    edit: EditOutside,
    /// A new stream of the terminal's events, read again once the editor is done.
    events: Box<dyn FnMut() -> E + Send>,
}

/// The app, its terminal, its inputs and its engine.
pub struct Tui<B: Backend, E> {
    terminal: Terminal<B>,
    events: Events<E>,
    /// How the person's editor gets the terminal; none where the runner cannot hand it over.
    outside: Option<Outside<E>>,
    engine: Engine,
    app: App,
    bell: Box<dyn FnMut() + Send>,
    notifier: Box<dyn FnMut(&Notice) + Send>,
    /// Where escapes beside the frames go (OSC 52, OSC 8): the terminal, or a test's record.
    raw_out: RawOut,
    /// What taking (true) or leaving the mouse does (a real terminal writes its escapes).
    mouse: Box<dyn FnMut(bool) + Send>,
    /// Asked after each copy: whether tmux keeps OSC 52 from the clipboard now (none outside
    /// tmux), so a set-clipboard turned on while the phone runs is seen at the next copy.
    clipboard_check: Box<dyn FnMut() -> Option<bool> + Send>,
    clock: Box<dyn Fn() -> OffsetDateTime + Send>,
    ticker: Interval,
    dirty: bool,
    frames: u64,
    /// Tells an unbracketed paste and bunched keys from keys alone (docs/KEYS.md).
    burst: BurstDetector,
    /// When the runner last knew the terminal had nothing waiting: keys found waiting later came
    /// while it was busy, and are given this time, so its own busy moments (a long frame) never
    /// stretch the gaps the paste rule reads (docs/KEYS.md).
    read_at: std::time::Instant,
    /// The panes on screen as last told to the engine (SPEC S7, T8).
    on_screen: Option<Vec<(String, String)>>,
    /// Messages from the program around the phone (the demo's runner), when it has any.
    side: Option<tokio::sync::mpsc::UnboundedReceiver<Message>>,
    /// Where what the person saw of each pane is kept (SPEC A22); none keeps nothing.
    seen_file: Option<std::path::PathBuf>,
    /// How each run of the person's notify command went, from the task that ran it.
    pushed: (
        tokio::sync::mpsc::UnboundedSender<Message>,
        tokio::sync::mpsc::UnboundedReceiver<Message>,
    ),
}

/// The next message from the program around the phone; never, when there is none.
async fn side_message(
    side: &mut Option<tokio::sync::mpsc::UnboundedReceiver<Message>>,
) -> Option<Message> {
    match side {
        Some(side) => side.recv().await,
        None => std::future::pending().await,
    }
}

/// How long after a countdown's boundary the runner wakes: the timer never fires early, and
/// this keeps a clock read a hair before the boundary from drawing the old second again.
const COUNTDOWN_MARGIN: Duration = Duration::from_millis(2);

/// Sleeps until `at`; never returns when there is none (its branch is off then).
async fn sleep_until_some(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The app's message for a terminal event; key releases carry none.
pub(crate) fn message_of(event: Event) -> Option<Message> {
    match event {
        Event::Key(key) if key.kind == KeyEventKind::Release => None,
        Event::Key(key) => Some(Message::Key(key)),
        Event::Mouse(mouse) => Some(Message::Mouse(mouse)),
        Event::Paste(text) => Some(Message::Paste(text)),
        Event::Resize(width, height) => Some(Message::Resize(width, height)),
        Event::FocusGained => Some(Message::Focus(true)),
        Event::FocusLost => Some(Message::Focus(false)),
    }
}

impl<B, E> Tui<B, E>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
    E: Stream<Item = io::Result<Event>> + Unpin,
{
    /// Needs a tokio runtime (the clock). Intents the engine recovered from its journal are
    /// shown at once (SPEC Q2).
    pub fn new(terminal: Terminal<B>, events: E, engine: Engine, mut app: App) -> Self {
        for record in engine.recovered.clone() {
            app.update(Message::Engine(FromEngine::Intent(record)));
        }
        if let Ok(size) = terminal.size() {
            app.update(Message::Resize(size.width, size.height));
        }
        let mut ticker = tokio::time::interval(Duration::from_secs(1));
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut tui = Self {
            terminal,
            events: Events::Reading(events),
            outside: None,
            engine,
            app,
            bell: Box::new(|| {}),
            notifier: Box::new(|_| {}),
            raw_out: Box::new(|_| {}),
            mouse: Box::new(|_| {}),
            clipboard_check: Box::new(|| None),
            clock: Box::new(OffsetDateTime::now_utc),
            ticker,
            dirty: true,
            frames: 0,
            burst: BurstDetector::default(),
            read_at: std::time::Instant::now(),
            on_screen: None,
            side: None,
            seen_file: None,
            pushed: tokio::sync::mpsc::unbounded_channel(),
        };
        tui.tell_on_screen();
        tui
    }

    /// What ringing the bell does (a real terminal writes BEL).
    pub fn with_bell(mut self, bell: impl FnMut() + Send + 'static) -> Self {
        self.bell = Box::new(bell);
        self
    }

    /// What showing a desktop notification does (a real terminal writes its escape).
    pub fn with_notifier(mut self, notifier: impl FnMut(&Notice) + Send + 'static) -> Self {
        self.notifier = Box::new(notifier);
        self
    }

    /// Where the escapes written beside the frames go (the clipboard's OSC 52, the links'
    /// OSC 8): a real terminal writes them to stdout; a test records them.
    pub fn with_raw_out(mut self, out: impl FnMut(&[u8]) + Send + 'static) -> Self {
        self.raw_out = Box::new(out);
        self
    }

    /// Keeps what the person saw of each pane in `path` (SPEC A22): what a phone kept there
    /// before is read back now, and each change is written there.
    pub fn with_seen_file(mut self, path: std::path::PathBuf) -> Self {
        match seen_file::read(&path) {
            Ok(Some(kept)) => self.app.recall_seen(&kept),
            Ok(None) => {}
            Err(error) => tracing::warn!(%error, "what was seen of each pane is not read"),
        }
        self.seen_file = Some(path);
        self
    }

    /// Where the program around the phone (the demo's runner) sends what it saw.
    pub fn with_side_messages(
        mut self,
        side: tokio::sync::mpsc::UnboundedReceiver<Message>,
    ) -> Self {
        self.side = Some(side);
        self
    }

    /// How to ask, after a copy, whether tmux keeps OSC 52 from the clipboard now
    /// (`osc::tmux_clipboard_now`); none outside tmux.
    pub fn with_clipboard_check(
        mut self,
        check: impl FnMut() -> Option<bool> + Send + 'static,
    ) -> Self {
        self.clipboard_check = Box::new(check);
        self
    }

    /// What taking or leaving the mouse does (a real terminal writes its escapes).
    pub fn with_mouse_switch(mut self, switch: impl FnMut(bool) + Send + 'static) -> Self {
        self.mouse = Box::new(switch);
        self
    }

    /// How the person's editor runs (`edit`: hand the screen over, run it, take the screen
    /// back) and where the terminal's events come from after it (`events`): the runner drops
    /// its stream while the editor runs, so no key of the editor's is read here.
    pub fn with_outside_editor(
        mut self,
        edit: impl FnMut(&str) -> Result<String, String> + Send + 'static,
        events: impl FnMut() -> E + Send + 'static,
    ) -> Self {
        self.outside = Some(Outside {
            edit: Box::new(edit),
            events: Box::new(events),
        });
        self
    }

    pub fn app(&self) -> &App {
        &self.app
    }

    pub fn terminal(&self) -> &Terminal<B> {
        &self.terminal
    }

    /// Frames drawn so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Runs until the person quits or the input ends.
    pub async fn run(&mut self) -> anyhow::Result<()> {
        self.draw()?;
        while self.step().await? == Flow::Continue {}
        self.keep_seen();
        Ok(())
    }

    /// Writes what the person saw of each pane to its file, when it changed since the last
    /// write (SPEC A22).
    fn keep_seen(&mut self) {
        if let (Some(path), Some(text)) = (&self.seen_file, self.app.seen_to_keep()) {
            write_seen(path, &text);
        }
    }

    /// True when every key that came has been handed to the app (none is held to tell a paste
    /// from typing).
    pub fn input_idle(&self) -> bool {
        self.burst.is_idle()
    }

    /// Waits for the next message, takes every message already queued after it, then draws
    /// once if anything changed. Keys go through `burst` first, which holds each for a few
    /// milliseconds to tell keys alone, bunched keys and an unbracketed paste apart
    /// (docs/KEYS.md).
    pub async fn step(&mut self) -> anyhow::Result<Flow> {
        // Built and taken at once, never stored: boxing the big message would cost an
        // allocation per step for nothing.
        #[allow(clippy::large_enum_variant)]
        enum First {
            Terminal(Event),
            Message(Message),
            HeldKeys,
        }
        // Keys already waiting came while the phone was busy: taken first, at the time it
        // stopped reading (docs/KEYS.md).
        let waiting = match futures::poll!(self.events.next()) {
            Poll::Ready(Some(Ok(event))) => Some(event),
            Poll::Ready(Some(Err(error))) => {
                return Err(anyhow::anyhow!("reading the terminal failed: {error}"));
            }
            Poll::Ready(None) => return Ok(Flow::Quit),
            Poll::Pending => {
                self.read_at = std::time::Instant::now();
                None
            }
        };
        let held_until = self.burst.deadline().map(tokio::time::Instant::from_std);
        // A countdown turns on the second boundaries of its deadline, not on the tick's own
        // second: the runner wakes at the next one, so "0:01 left" turns to "expired" at the
        // deadline and no second is drawn twice or skipped (docs/ASKS.md).
        let turn_at = self.app.next_wake().map(|at| {
            let wait = std::time::Duration::try_from(at - (self.clock)()).unwrap_or_default();
            tokio::time::Instant::now() + wait + COUNTDOWN_MARGIN
        });
        let first = if let Some(event) = waiting {
            First::Terminal(event)
        } else {
            let first = tokio::select! {
            event = self.events.next() => match event {
                Some(Ok(event)) => First::Terminal(event),
                Some(Err(error)) => return Err(anyhow::anyhow!("reading the terminal failed: {error}")),
                // The input is gone: nothing more can be asked of the phone.
                None => return Ok(Flow::Quit),
            },
            update = self.engine.updates.recv() => match update {
                Some(update) => First::Message(Message::Engine(update)),
                None => return Err(anyhow::anyhow!("the engine stopped")),
            },
            _ = self.ticker.tick() => First::Message(Message::Tick((self.clock)())),
            Some(message) = self.pushed.1.recv() => First::Message(message),
            message = side_message(&mut self.side) => match message {
                Some(message) => First::Message(message),
                // The runner is gone: it has nothing more to say.
                None => {
                    self.side = None;
                    First::Message(Message::Tick((self.clock)()))
                }
            },
            _ = sleep_until_some(held_until), if held_until.is_some() => First::HeldKeys,
            _ = sleep_until_some(turn_at), if turn_at.is_some() => {
                First::Message(Message::Tick((self.clock)()))
            }
            };
            // Whatever woke the runner, what is waiting now came about now.
            self.read_at = std::time::Instant::now();
            first
        };
        let flow = match first {
            First::Terminal(event) => self.terminal_event(event),
            First::Message(message) => self.handle(message),
            First::HeldKeys => self.held_keys(),
        };
        if flow == Flow::Quit {
            return Ok(Flow::Quit);
        }
        let mut drained = false;
        for _ in 0..MAX_BATCH {
            let flow = if let Ok(update) = self.engine.updates.try_recv() {
                self.handle(Message::Engine(update))
            } else {
                // Polled with this task's own waker: a stream that parks a waker while it
                // waits (crossterm's does) must be woken for real when the next key comes.
                match futures::poll!(self.events.next()) {
                    Poll::Ready(Some(Ok(event))) => self.terminal_event(event),
                    Poll::Ready(Some(Err(error))) => {
                        return Err(anyhow::anyhow!("reading the terminal failed: {error}"));
                    }
                    Poll::Ready(None) => return Ok(Flow::Quit),
                    Poll::Pending => {
                        self.read_at = std::time::Instant::now();
                        drained = true;
                        break;
                    }
                }
            };
            if flow == Flow::Quit {
                return Ok(Flow::Quit);
            }
        }
        // Keys still waiting may belong to what is held: it waits for them.
        if drained && self.held_keys() == Flow::Quit {
            return Ok(Flow::Quit);
        }
        if self.dirty {
            self.draw()?;
        }
        Ok(Flow::Continue)
    }

    /// A terminal event, through the paste detector, at the time it was known to have come.
    fn terminal_event(&mut self, event: Event) -> Flow {
        let ready = self.burst.push(event, self.read_at);
        self.handle_events(ready)
    }

    /// The held keys whose time is up.
    fn held_keys(&mut self) -> Flow {
        let ready = self.burst.flush(std::time::Instant::now());
        self.handle_events(ready)
    }

    fn handle_events(&mut self, inputs: Vec<Input>) -> Flow {
        for input in inputs {
            let message = match input {
                Input::Event(event) => message_of(event),
                Input::Bunch(keys) => {
                    tracing::debug!(keys = keys.len(), "keys came together");
                    Some(Message::Bunch(keys))
                }
                Input::Paste(text) => Some(Message::KeysPaste(text)),
            };
            if let Some(message) = message
                && self.handle(message) == Flow::Quit
            {
                return Flow::Quit;
            }
        }
        Flow::Continue
    }

    /// Feeds one message to the app and carries out its commands, feeding back what they
    /// came to.
    pub(crate) fn handle(&mut self, message: Message) -> Flow {
        let mut flow = Flow::Continue;
        let mut queue = VecDeque::from([message]);
        while let Some(message) = queue.pop_front() {
            // Every message, not only the tick, carries the time it is taken: a card's reading
            // time is a second (docs/ASKS.md, "The reading time"), so a key must not be judged
            // by a tick-old clock.
            self.app.set_now((self.clock)());
            // A frame only for what can change the screen: not for an exchange away from the
            // wire inspector, nor for a poll that brought nothing new (`App::redraws`).
            if self.app.redraws(&message) {
                self.dirty = true;
            }
            for command in self.app.update(message) {
                match command {
                    Command::Engine(command) => {
                        if self.engine.commands.send(command).is_err() {
                            tracing::error!("the engine is gone; a command was dropped");
                        }
                    }
                    Command::Bell => (self.bell)(),
                    Command::Notify(notice) => (self.notifier)(&notice),
                    Command::Push(push) => {
                        // Beside the loop: a slow command never holds a frame or a key up.
                        let back = self.pushed.0.clone();
                        tokio::spawn(async move {
                            let failure = crate::engine::push::run(&push)
                                .await
                                .err()
                                .map(|failure| failure.sentence());
                            let _ = back.send(Message::Pushed { failure });
                        });
                    }
                    Command::Mouse(captured) => (self.mouse)(captured),
                    Command::ExportInspector {
                        path,
                        text,
                        exchanges,
                    } => {
                        let result = export::write_export(&path, &text);
                        if let Err(error) = &result {
                            tracing::warn!(path = %path.display(), %error, "the wire export failed");
                        }
                        queue.push_back(Message::Exported {
                            path,
                            exchanges,
                            result,
                        });
                    }
                    Command::Copy(text) => {
                        (self.raw_out)(&osc::clipboard(&text));
                        if let Some(keeps) = (self.clipboard_check)() {
                            queue.push_back(Message::ClipboardChecked { keeps, text });
                        }
                    }
                    Command::OpenLink(url) => {
                        let result = opener::open(&url);
                        queue.push_back(Message::LinkOpened { url, result });
                    }
                    Command::EditOutside { target, text } => {
                        let result = self.edit_outside(&text);
                        queue.push_back(Message::EditedOutside { target, result });
                    }
                    Command::Log(line) => tracing::info!("{line}"),
                    Command::Redraw => {
                        // ratatui's `clear` empties the terminal and forgets the last frame,
                        // so the next draw sends every cell, whatever the terminal showed.
                        if let Err(error) = self.terminal.clear() {
                            tracing::warn!(%error, "clearing the terminal failed");
                        }
                        self.dirty = true;
                    }
                    Command::KeepSeen(text) => {
                        if let Some(path) = &self.seen_file {
                            write_seen(path, &text);
                        }
                    }
                    Command::Quit => {
                        // Kept before the phone stops, not only at the next tick.
                        self.keep_seen();
                        flow = Flow::Quit;
                    }
                }
            }
        }
        self.tell_on_screen();
        flow
    }

    /// Hands the terminal to the person's editor on `text` and takes it back, drawn whole at
    /// the next frame; what the editor saved, or why not.
    fn edit_outside(&mut self, text: &str) -> Result<String, String> {
        let Some(outside) = self.outside.as_mut() else {
            return Err("This phone's screen cannot be handed to an editor.".into());
        };
        // Dropped, not paused: crossterm's reader would take the editor's keys.
        self.events = Events::Lent;
        let result = blocking(|| (outside.edit)(text));
        self.events = Events::Reading((outside.events)());
        // The editor drew over the screen: cleared, and the next frame draws every cell. Not
        // `Terminal::clear`, which asks the terminal where its cursor is and waits for the
        // answer on the reader the new stream may hold.
        let cleared = self.terminal.size().and_then(|size| {
            self.terminal
                .resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))
        });
        if let Err(error) = cleared {
            tracing::warn!(%error, "the screen could not be cleared after the editor");
        }
        self.dirty = true;
        result
    }

    /// Tells the engine which panes are on screen, when that changed (SPEC S7, T8): their
    /// events are read at every poll, a quiet pane's only when the snapshot says it changed.
    fn tell_on_screen(&mut self) {
        let shown = self.app.panes_on_screen();
        if self.on_screen.as_ref() == Some(&shown) {
            return;
        }
        if self
            .engine
            .commands
            .send(ToEngine::OnScreen(shown.clone()))
            .is_err()
        {
            tracing::error!("the engine is gone; what is on screen was not told");
        }
        self.on_screen = Some(shown);
    }

    /// Draws a frame now.
    pub fn draw(&mut self) -> anyhow::Result<()> {
        let app = &self.app;
        let frame = self
            .terminal
            .draw(|frame| {
                crate::shell::frame::draw(frame, app);
                // The one way out for the screens (`crate::out`, SPEC L1).
                clean_screen::clean_buffer(frame.buffer_mut());
            })
            .map_err(|error| anyhow::anyhow!("drawing failed: {error}"))?;
        let links = links_of(app, frame.buffer);
        if !links.is_empty() {
            (self.raw_out)(&links);
        }
        self.app.frame_drawn();
        self.dirty = false;
        self.frames += 1;
        Ok(())
    }
}

/// Writes the file of what was seen (`seen_file`), saying in the log why it could not.
fn write_seen(path: &std::path::Path, text: &str) {
    if let Err(error) = seen_file::write(path, text) {
        tracing::warn!(path = %path.display(), %error, "what was seen of each pane is not kept");
    }
}

/// Runs `work`, which blocks (the person's editor), without holding up the runtime's other
/// tasks where it has other workers: the engine keeps polling meanwhile.
fn blocking<T>(work: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}

/// The OSC 8 bytes for the links the pane on screen drew, read from the cleaned frame; none
/// under an overlay, which may cover them.
fn links_of(app: &App, buffer: &ratatui::buffer::Buffer) -> Vec<u8> {
    match app.nav().top() {
        crate::screens::Screen::Pane(screen) if app.overlay().is_none() => {
            osc::hyperlinks(buffer, &screen.drawn_links.borrow())
        }
        crate::screens::Screen::Card(screen) if app.overlay().is_none() => {
            osc::hyperlinks(buffer, &screen.drawn_links.borrow())
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use ratatui::backend::TestBackend;
    use tokio::sync::mpsc;

    use super::*;
    use crate::app::AppSetup;
    use crate::app::notify::NotifyStyle;
    use crate::app::settings::Settings;
    use crate::engine::ToEngine;
    use crate::look::theme::Theme;

    /// The last `OnScreen` the runner sent since the last look, if any.
    fn told(sent: &mut mpsc::UnboundedReceiver<ToEngine>) -> Option<Vec<(String, String)>> {
        let mut last = None;
        while let Ok(command) = sent.try_recv() {
            if let ToEngine::OnScreen(panes) = command {
                last = Some(panes);
            }
        }
        last
    }

    /// A runner on an 80x24 test terminal with one agent, "a", reading no keys; and what it
    /// sends the engine. Nothing here runs its loop, so the engine's updates are never read.
    fn runner() -> (
        Tui<TestBackend, futures::stream::Pending<io::Result<Event>>>,
        mpsc::UnboundedReceiver<ToEngine>,
    ) {
        let (commands, sent) = mpsc::unbounded_channel();
        let engine = Engine {
            commands,
            updates: mpsc::unbounded_channel().1,
            recovered: Vec::new(),
        };
        let app = App::new(AppSetup {
            agents: vec![("a".into(), false)],
            settings: Settings {
                notify: NotifyStyle::Off,
                ..Settings::default()
            },
            bridges: Vec::new(),
            theme: Theme::builtin("dark").expect("the dark theme is built in"),
            now: OffsetDateTime::UNIX_EPOCH,
            size: (80, 24),
        });
        let terminal = Terminal::new(TestBackend::new(80, 24)).expect("a test terminal");
        let events = futures::stream::pending::<io::Result<Event>>();
        (Tui::new(terminal, events, engine, app), sent)
    }

    /// Ctrl-G in the box: the runner stops reading the terminal, runs the editor (a stand-in
    /// here), reads again from a new stream, and the text is in the box, not sent.
    #[tokio::test]
    async fn the_persons_editor_runs_off_the_terminal_and_its_text_lands_unsent() {
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
        use std::sync::{Arc, Mutex};
        let streams = Arc::new(Mutex::new(0));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (tui, mut sent) = runner();
        let mut tui = tui.with_outside_editor(
            {
                let seen = seen.clone();
                move |text: &str| {
                    seen.lock().expect("not poisoned").push(text.to_string());
                    Ok(format!("{text} and more"))
                }
            },
            {
                let streams = streams.clone();
                move || {
                    *streams.lock().expect("not poisoned") += 1;
                    futures::stream::pending::<io::Result<Event>>()
                }
            },
        );
        tui.app.open_pane("a", "p-1");
        let press = |code| Message::Key(KeyEvent::new(code, KeyModifiers::NONE));
        tui.handle(press(KeyCode::Char('i')));
        for c in "日本 🇯🇵".chars() {
            tui.handle(press(KeyCode::Char(c)));
        }
        while sent.try_recv().is_ok() {}
        tui.handle(Message::Key(KeyEvent::new(
            KeyCode::Char('g'),
            KeyModifiers::CONTROL,
        )));
        assert_eq!(*seen.lock().expect("not poisoned"), ["日本 🇯🇵"]);
        assert_eq!(
            *streams.lock().expect("not poisoned"),
            1,
            "a new stream after"
        );
        assert!(matches!(tui.events, Events::Reading(_)));
        assert_eq!(
            tui.app.phone_mut().draft("a", "p-1").map(|d| d.text()),
            Some("日本 🇯🇵 and more".to_string())
        );
        while let Ok(command) = sent.try_recv() {
            assert!(
                !matches!(command, ToEngine::Submit { .. }),
                "nothing is sent: {command:?}"
            );
        }
        // Without a way to hand the screen over, it says so and keeps the text.
        let (mut plain, _) = runner();
        assert!(plain.edit_outside("kept").is_err());
    }

    #[tokio::test]
    async fn s7_the_runner_tells_the_engine_which_panes_are_on_screen_when_that_changes() {
        let (mut tui, mut sent) = runner();
        // Home: no pane's chat is on screen, so quiet panes may wait for their snapshot.
        assert_eq!(told(&mut sent), Some(Vec::new()));
        tui.app.open_pane("a", "p-1");
        tui.handle(Message::Tick(OffsetDateTime::UNIX_EPOCH));
        assert_eq!(told(&mut sent), Some(vec![("a".into(), "p-1".into())]));
        tui.handle(Message::Tick(OffsetDateTime::UNIX_EPOCH));
        assert_eq!(told(&mut sent), None, "told once, not at every message");
        tui.app.back();
        tui.handle(Message::Tick(OffsetDateTime::UNIX_EPOCH));
        assert_eq!(told(&mut sent), Some(Vec::new()));
    }
}
