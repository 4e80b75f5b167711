//! The phone's state and how it changes: `App::update(message) -> commands`. No I/O and no
//! drawing here (docs/ARCHITECTURE.md, "The arrows"): the runner in `tui` feeds keys, mouse,
//! paste, resizes, focus, the engine's changes and clock ticks in, and carries the commands
//! out; `ui` draws from `&App`.

pub(crate) mod agents;
pub(crate) mod dsh_state;
pub mod editor;
pub mod geometry;
pub(crate) mod history;
pub mod inbox;
pub(crate) mod intents;
pub mod keymap;
pub(crate) mod list;
pub(crate) mod mouse;
pub mod notify;
pub(crate) mod outbox;
pub(crate) mod pretty_json;
pub mod settings;
pub(crate) mod typing;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crossterm::event::{KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use time::OffsetDateTime;

use self::agents::{AgentView, Agents};
use self::editor::Editor;
use self::history::HistoryStore;
use self::inbox::AskKey;
use self::intents::Intents;
use self::keymap::{Action, Context, Keymap};
use self::notify::{Announcement, Notice, NotifyStyle};
use self::outbox::Outbox;
use self::settings::Settings;
use crate::chat::pane_log::{ChatEntry, ClosedAsk};
use crate::engine::{FromEngine, IntentKind, IntentRecord, IntentState, ToEngine};
use crate::look::chat_view::ChatLayout;
use crate::look::theme::Theme;
use crate::screens::card::state::{AgentOffer, CardState, CardStatus};
use crate::screens::inspector::WireLog;
use crate::screens::overlay::{Deferred, Overlay, TOAST_SECONDS, Toast};
use crate::screens::{Navigation, PaneFocus, PaneScreen, Screen};

/// How long after the last key the person still counts as watching (SPEC S7, T8).
const WATCHING_AFTER_KEY_SECONDS: i64 = 60;

/// Everything that can happen to the phone.
// Each message is moved once into `update` and dropped: boxing the engine's updates would
// cost an allocation per poll for no gain.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Message {
    /// A key that came alone: a person's key press.
    Key(KeyEvent),
    /// Keys that came together, a few of them (docs/KEYS.md): typed one by one where text is
    /// typed, each Enter sending; elsewhere only their moves are taken.
    Bunch(Vec<KeyEvent>),
    Mouse(MouseEvent),
    /// Bracketed paste: the pasted text in one piece.
    Paste(String),
    /// Text that came as keys, too many and too fast for a person, without paste markers
    /// (docs/KEYS.md): pasted where text is typed, elsewhere taken only for its moves.
    KeysPaste(String),
    Resize(u16, u16),
    /// The terminal gained (true) or lost (false) focus.
    Focus(bool),
    Engine(FromEngine),
    /// The clock, once a second: countdowns, "synced 2s ago", messages that time out.
    Tick(OffsetDateTime),
    /// The runner wrote the wire inspector's export to `path`, or says why it could not.
    Exported {
        path: PathBuf,
        result: Result<(), String>,
    },
    /// The runner asked a browser opener to open `url` (its name), or says why it could not.
    LinkOpened {
        url: String,
        result: Result<String, String>,
    },
}

/// What the app asks the runner to do.
#[derive(Debug)]
pub enum Command {
    Engine(ToEngine),
    /// Ring the terminal bell: a new ask arrived.
    Bell,
    /// Show a desktop notification through the terminal: a new ask arrived.
    Notify(Notice),
    /// Write the wire inspector's exchanges (JSON lines) to a new private file.
    ExportInspector(PathBuf, String),
    /// Put cleaned, capped text on the clipboard through the terminal (OSC 52).
    Copy(String),
    /// Open a checked `https://` link with the system's browser opener.
    OpenLink(String),
    /// Take the mouse (true) or leave it to the terminal, so its own selection works (false).
    Mouse(bool),
    /// A line for the log: what the phone chose not to do, and why.
    Log(String),
    Quit,
}

/// What the phone starts with.
pub struct AppSetup {
    /// Each agent's name, and whether it is reached over TLS (SPEC A11).
    pub agents: Vec<(String, bool)>,
    /// The config file's part for the phone: keys, how asks are announced, the mouse.
    pub settings: Settings,
    /// The agents that are DSH bridges, named before they say anything.
    pub bridges: Vec<String>,
    /// The theme the screens are drawn with; also measures chat lines.
    pub theme: Theme,
    pub now: OffsetDateTime,
    pub size: (u16, u16),
}

pub struct App {
    pub agents: Agents,
    pub intents: Intents,
    pub(crate) history: HistoryStore,
    pub nav: Navigation,
    pub overlay: Option<Overlay>,
    /// Cards opened, by ask: what was picked or typed survives leaving the card.
    pub cards: HashMap<AskKey, CardState>,
    /// Unsent text per (agent, pane): a person's words are never lost.
    pub(crate) drafts: HashMap<(String, String), Editor>,
    /// Words that left a box with Enter, until the agent took them (one send = one Enter).
    pub(crate) outbox: Outbox,
    /// What each DSH bridge told beyond its panes, by agent name (SPEC D).
    pub(crate) dsh: HashMap<String, dsh_state::DshView>,
    pub(crate) toast: Option<Toast>,
    /// Chat entries as laid out, kept between frames (a memo, see `look::chat_view`).
    pub chat_layout: ChatLayout,
    pub(crate) keymap: Keymap,
    pub(crate) theme: Theme,
    /// How a new ask is announced.
    pub notify: NotifyStyle,
    /// Whether the phone takes the mouse (`app::mouse`).
    pub(crate) mouse: bool,
    /// The newest exchanges with the agents, for the wire inspector.
    pub wire: WireLog,
    /// Where the wire inspector saves its exports.
    pub export_dir: PathBuf,
    /// The export the runner is writing, and how many exchanges it holds.
    pub(crate) pending_export: Option<(PathBuf, usize)>,
    pub now: OffsetDateTime,
    pub(crate) size: (u16, u16),
    focused: bool,
    last_key: Option<OffsetDateTime>,
    watching: bool,
    /// Open asks already seen, per agent, so only a new one rings the bell.
    known_asks: HashMap<String, HashSet<String>>,
    /// A pane a starter or reopen named, opened as soon as the snapshot has it (SPEC A17, W5).
    pub(crate) awaiting_pane: Option<(String, String)>,
    quitting: bool,
}

impl App {
    pub fn new(setup: AppSetup) -> Self {
        Self {
            agents: Agents::new(setup.agents),
            intents: Intents::default(),
            history: HistoryStore::default(),
            nav: Navigation::default(),
            overlay: None,
            cards: HashMap::new(),
            drafts: HashMap::new(),
            outbox: Outbox::default(),
            dsh: setup
                .bridges
                .into_iter()
                .map(|name| (name, dsh_state::DshView::default()))
                .collect(),
            toast: None,
            chat_layout: ChatLayout::default(),
            keymap: setup.settings.keymap,
            theme: setup.theme,
            notify: setup.settings.notify,
            mouse: setup.settings.mouse,
            wire: WireLog::default(),
            export_dir: crate::screens::inspector::default_export_dir(),
            pending_export: None,
            now: setup.now,
            size: setup.size,
            focused: true,
            last_key: None,
            watching: true,
            known_asks: HashMap::new(),
            awaiting_pane: None,
            quitting: false,
        }
    }

    pub fn update(&mut self, message: Message) -> Vec<Command> {
        match message {
            Message::Key(key) => {
                let commands = self.on_key(key);
                self.remember_selections();
                commands
            }
            Message::Mouse(mouse) => {
                let commands = self.on_mouse(mouse);
                self.remember_selections();
                commands
            }
            Message::Bunch(keys) => {
                let commands = self.on_bunch(&keys);
                self.remember_selections();
                commands
            }
            Message::Paste(text) => self.on_paste(&text),
            Message::KeysPaste(text) => {
                let commands = self.on_keys_paste(&text);
                self.remember_selections();
                commands
            }
            Message::Resize(width, height) => {
                self.size = (width, height);
                self.clamp_lists();
                Vec::new()
            }
            Message::Focus(focused) => {
                self.focused = focused;
                self.watching_change()
            }
            Message::Engine(update) => self.on_engine(update),
            Message::Tick(now) => {
                self.set_now(now);
                if self.toast.as_ref().is_some_and(|t| t.until <= now) {
                    self.toast = None;
                }
                self.outbox.tick(now);
                self.watching_change()
            }
            Message::Exported { path, result } => self.exported(path, result),
            Message::LinkOpened { url, result } => {
                self.link_opened(&url, result);
                Vec::new()
            }
        }
    }

    /// Sets the clock. The runner calls this before every message, not only on the one-second
    /// tick, so a key and an ask's change carry the time they were taken: the reading time of
    /// a card is a second (docs/ASKS.md, "The reading time"), and a tick-old clock could be most
    /// of it wrong. A clock that stepped back restarts each reading time from now instead of
    /// stretching it.
    pub(crate) fn set_now(&mut self, now: OffsetDateTime) {
        if now < self.now {
            for card in self.cards.values_mut() {
                card.arming.clock_stepped_back(now);
            }
            if let Some(Overlay::AllowAlways(question)) = &mut self.overlay {
                question.arming.clock_stepped_back(now);
            }
        }
        self.now = now;
    }

    /// SPEC S7, T8: watching while the terminal has focus or a key came in the last minute.
    fn watching_change(&mut self) -> Vec<Command> {
        let recent_key = self
            .last_key
            .is_some_and(|at| (self.now - at).whole_seconds() < WATCHING_AFTER_KEY_SECONDS);
        let watching = self.focused || recent_key;
        if watching == self.watching {
            return Vec::new();
        }
        self.watching = watching;
        vec![Command::Engine(ToEngine::Watching(watching))]
    }

    /// Where keys go now.
    pub(crate) fn context(&self) -> Context {
        if let Some(overlay) = &self.overlay {
            return match overlay {
                Overlay::Help { .. } => Context::Help,
                Overlay::Confirm { .. } => Context::Confirm,
                Overlay::AllowAlways(_) => Context::ConfirmAlways,
                Overlay::Prompt { .. } => Context::Prompt,
                Overlay::DshKind { .. } => Context::KindPicker,
            };
        }
        let top = self.nav.top();
        if top.filter().is_some_and(|f| f.editing) {
            return Context::Filter;
        }
        match top {
            Screen::Home(_) => Context::Home,
            Screen::Layout(_) => Context::Layout,
            Screen::Pane(p) if p.focus == PaneFocus::Input => Context::PaneInput,
            Screen::Pane(p) if p.search.editing => Context::PaneSearch,
            Screen::Pane(_) => Context::PaneChat,
            Screen::Card(key) => self.card_context(key),
            Screen::New(_) => Context::New,
            Screen::History(_) => Context::History,
            Screen::Conversation(_) => Context::Conversation,
            Screen::Inspector(_) => Context::Inspector,
            Screen::Exchange(_) => Context::Exchange,
            Screen::DshForm(_) => Context::DshForm,
        }
    }

    /// The panes on screen, as (agent, pane), for the engine to read at every poll (SPEC S7,
    /// T8): the pane a pane screen shows, or the pane of the ask a card shows. No other screen
    /// shows a pane's chat: their states and asks come with the snapshot, which every poll
    /// reads. The runner hands this to the engine whenever it changes.
    pub fn panes_on_screen(&self) -> Vec<(String, String)> {
        match self.nav.top() {
            Screen::Pane(p) => vec![(p.agent.clone(), p.pane.clone())],
            Screen::Card(key) => vec![(key.agent.clone(), key.pane.clone())],
            _ => Vec::new(),
        }
    }

    pub(crate) fn show_toast(&mut self, text: impl Into<String>, trouble: bool) {
        self.toast = Some(Toast {
            text: text.into(),
            trouble,
            until: self.now + time::Duration::seconds(TOAST_SECONDS),
        });
    }

    // ----- keys ------------------------------------------------------------------------------

    fn on_key(&mut self, key: KeyEvent) -> Vec<Command> {
        self.take_key(key, false).1
    }

    /// Keys that came together (docs/KEYS.md): each is taken as it would be alone when it
    /// types or moves; one that would answer, confirm, open, stop or quit is not acted on, and
    /// the phone says so.
    fn on_bunch(&mut self, keys: &[KeyEvent]) -> Vec<Command> {
        let mut commands = Vec::new();
        let mut left = Vec::new();
        for key in keys {
            let context = self.context();
            let action = self.keymap.action(context, key);
            let (taken, more) = self.take_key(*key, true);
            commands.extend(more);
            if !taken {
                left.push((*key, context, action));
            }
        }
        let Some((first, context, _)) = left.first().copied() else {
            return commands;
        };
        let taken = if context.takes_typing() {
            "only the typing and the moves were taken"
        } else {
            "only the moves were taken"
        };
        let again = if left
            .iter()
            .all(|(key, ..)| keymap::Chord::of(key) == keymap::Chord::of(&first))
        {
            format!("Press {} again.", keymap::Chord::of(&first))
        } else {
            "Press them again, one at a time.".to_string()
        };
        self.show_toast(
            format!("{} keys came together; {taken}. {again}", keys.len()),
            false,
        );
        let actions: Vec<String> = left
            .iter()
            .map(|(_, _, action)| action.map_or_else(|| "none".to_string(), Action::name))
            .collect();
        commands.push(Command::Log(format!(
            "{} keys came together on {}: not acted on: {}",
            keys.len(),
            context.title(),
            actions.join(", ")
        )));
        commands
    }

    /// Text pasted without markers: pasted where text is typed, elsewhere its characters are
    /// keys that came together (docs/KEYS.md), so only their moves are taken.
    fn on_keys_paste(&mut self, text: &str) -> Vec<Command> {
        if self.paste_lands(self.context()) {
            return self.on_paste(text);
        }
        let keys: Vec<KeyEvent> = text
            .chars()
            .map(|c| {
                let code = match c {
                    '\n' => crossterm::event::KeyCode::Enter,
                    '\t' => crossterm::event::KeyCode::Tab,
                    c => crossterm::event::KeyCode::Char(c),
                };
                KeyEvent::new(code, crossterm::event::KeyModifiers::NONE)
            })
            .collect();
        self.on_bunch(&keys)
    }

    /// Where a paste lands as text.
    fn paste_lands(&self, context: Context) -> bool {
        matches!(
            context,
            Context::PaneChat
                | Context::PaneInput
                | Context::PaneSearch
                | Context::CardTyping
                | Context::DshForm
                | Context::Prompt
                | Context::Filter
        )
    }

    /// Takes one key; `bunched` when it came with others (docs/KEYS.md), then only what
    /// types or moves is acted on. Gives whether it was taken, and its commands.
    fn take_key(&mut self, key: KeyEvent, bunched: bool) -> (bool, Vec<Command>) {
        if key.kind == KeyEventKind::Release {
            return (true, Vec::new());
        }
        self.last_key = Some(self.now);
        let mut commands = self.watching_change();
        let context = self.context();
        let action = self.keymap.action(context, &key);
        if bunched && !bunched_key_acts(context, action) {
            return (false, commands);
        }
        if geometry::is_too_small(self.size.0, self.size.1) {
            // Nothing is drawn but the message; only quitting makes sense.
            if action == Some(Action::Quit) {
                commands.extend(self.quit());
            }
            return (true, commands);
        }
        let more = match context {
            Context::Help => self.help_key(action),
            Context::Confirm => self.confirm_key(action),
            Context::ConfirmAlways => self.allow_always_key(action),
            Context::Prompt => self.prompt_key(action, &key),
            Context::Filter => self.filter_key(action, &key),
            Context::PaneSearch => self.pane_search_key(action, &key),
            Context::KindPicker => self.kind_picker_key(action),
            _ => match action {
                Some(Action::Quit) => self.quit(),
                Some(Action::Help) => {
                    self.overlay = Some(Overlay::Help { context, scroll: 0 });
                    Vec::new()
                }
                Some(Action::Filter) => {
                    if let Some(filter) = self.nav.top_mut().filter_mut() {
                        filter.editing = true;
                    }
                    Vec::new()
                }
                Some(Action::Wire) => self.open_inspector(),
                Some(Action::Mouse) => self.toggle_mouse(context),
                // Esc clears a kept filter before it leaves the screen.
                Some(Action::Back) if self.nav.top().filter().is_some_and(|f| f.is_active()) => {
                    if let Some(filter) = self.nav.top_mut().filter_mut() {
                        *filter = Default::default();
                    }
                    self.reset_list_selection();
                    Vec::new()
                }
                Some(action) => self.screen_action(context, action),
                None if context.takes_typing() => self.screen_typing(context, &key),
                None => Vec::new(),
            },
        };
        commands.extend(more);
        (true, commands)
    }

    pub(crate) fn screen_action(&mut self, context: Context, action: Action) -> Vec<Command> {
        match context {
            Context::Home => self.home_action(action),
            Context::Layout => self.layout_action(action),
            Context::PaneChat | Context::PaneInput => self.pane_action(action),
            Context::Card | Context::CardTyping => self.card_action(action),
            Context::New => self.new_action(action),
            Context::History => self.history_action(action),
            Context::Conversation => self.conversation_action(action),
            Context::Inspector => self.inspector_action(action),
            Context::Exchange => self.exchange_action(action),
            Context::DshForm => self.dsh_form_action(action),
            Context::Confirm
            | Context::ConfirmAlways
            | Context::Prompt
            | Context::Filter
            | Context::PaneSearch
            | Context::Help
            | Context::KindPicker => Vec::new(),
        }
    }

    fn screen_typing(&mut self, context: Context, key: &KeyEvent) -> Vec<Command> {
        match context {
            Context::PaneInput => self.pane_typing(key),
            Context::CardTyping => self.card_typing(key),
            Context::DshForm => self.dsh_form_typing(key),
            _ => {}
        }
        Vec::new()
    }

    /// Goes back one screen, forgetting a card whose ask is gone.
    pub(crate) fn back(&mut self) -> Vec<Command> {
        if let Some(Screen::Card(key)) = self.nav.pop()
            && self.cards.get(&key).is_some_and(|c| c.closed.is_some())
        {
            // A person's words are never dropped in silence: what was typed on a card whose
            // ask closed goes to its pane's box.
            if let Some(title) = self.give_back_card_words(&key) {
                self.show_toast(
                    format!("Not sent. Your words are in the pane's box ({title})."),
                    false,
                );
            }
            self.cards.remove(&key);
        }
        Vec::new()
    }

    /// Puts the words typed on a card into the box of its ask's pane, after what is there;
    /// gives the pane's title when there were words.
    fn give_back_card_words(&mut self, key: &AskKey) -> Option<String> {
        let card = self.cards.get(key)?;
        let words = card.typed_words()?;
        let title = card.pane_title.clone();
        let draft = self
            .drafts
            .entry((key.agent.clone(), key.pane.clone()))
            .or_default();
        let mut text = draft.text();
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&words);
        *draft = Editor::from_text(&text);
        Some(title)
    }

    /// Quits, asking first when unsent words would be dropped.
    pub(crate) fn quit(&mut self) -> Vec<Command> {
        let drafts = self.unsent_drafts();
        if drafts == 0 {
            self.quitting = true;
            return vec![Command::Quit];
        }
        let question = if drafts == 1 {
            "One message is typed but not sent. Quit and drop it?".to_string()
        } else {
            format!("{drafts} messages are typed but not sent. Quit and drop them?")
        };
        self.overlay = Some(Overlay::Confirm {
            question,
            then: Deferred::Quit,
        });
        Vec::new()
    }

    /// Pane drafts, sends not taken yet and card answers with words in them.
    pub fn unsent_drafts(&self) -> usize {
        let panes = self.drafts.values().filter(|e| !e.is_empty()).count() + self.outbox.unsent();
        let cards = self
            .cards
            .values()
            .filter(|card| card.closed.is_none() && !card.text.is_empty())
            .count();
        panes + cards
    }

    fn filter_key(&mut self, action: Option<Action>, key: &KeyEvent) -> Vec<Command> {
        let context_below = {
            let top = self.nav.top();
            match top {
                Screen::Home(_) => Context::Home,
                Screen::Layout(_) => Context::Layout,
                Screen::New(_) => Context::New,
                Screen::Inspector(_) => Context::Inspector,
                _ => Context::History,
            }
        };
        match action {
            Some(Action::Confirm) => {
                if let Some(filter) = self.nav.top_mut().filter_mut() {
                    filter.editing = false;
                }
            }
            Some(Action::Cancel) => {
                if let Some(filter) = self.nav.top_mut().filter_mut() {
                    filter.editing = false;
                    filter.editor.clear();
                }
                self.reset_list_selection();
            }
            Some(action @ (Action::Up | Action::Down)) => {
                return self.screen_action(context_below, action);
            }
            _ => {
                let Some(filter) = self.nav.top_mut().filter_mut() else {
                    return Vec::new();
                };
                let before = filter.text();
                typing::edit(&mut filter.editor, key, false);
                // Only other words make another list; a cursor move keeps the selection.
                if filter.text() != before {
                    self.reset_list_selection();
                }
            }
        }
        Vec::new()
    }

    /// A new filter puts the selection back at the first row.
    fn reset_list_selection(&mut self) {
        match self.nav.top_mut() {
            Screen::Home(s) => {
                s.agents = Default::default();
                s.inbox = Default::default();
            }
            Screen::Layout(s) => s.cursor = Default::default(),
            Screen::New(s) => s.cursor = Default::default(),
            Screen::History(s) => s.cursor = Default::default(),
            // A new filter shows the newest matching exchange.
            Screen::Inspector(s) => {
                s.selected = None;
                s.top = None;
            }
            _ => {}
        }
    }

    /// How many rows a list screen shows at this size, with or without its filter line.
    pub(crate) fn list_height(&self, filter_shown: bool) -> usize {
        usize::from(
            geometry::listing(self.size.0, self.size.1, filter_shown)
                .list
                .height,
        )
    }

    pub(crate) fn run_deferred(
        &mut self,
        deferred: Deferred,
        text: Option<String>,
    ) -> Vec<Command> {
        match deferred {
            Deferred::Quit => {
                self.quitting = true;
                vec![Command::Quit]
            }
            Deferred::Submit { agent, kind } => self.submit(&agent, kind),
            Deferred::Rename { agent, target, id } => match text {
                Some(title) => self.submit(&agent, IntentKind::Rename { target, id, title }),
                None => Vec::new(),
            },
        }
    }

    /// Hands a new intent to the engine (SPEC Q1: it gets its own request id there).
    pub(crate) fn submit(&mut self, agent: &str, kind: IntentKind) -> Vec<Command> {
        self.intents.submitted(agent, kind.clone());
        vec![Command::Engine(ToEngine::Submit {
            agent: agent.to_string(),
            kind,
        })]
    }

    /// SPEC Q4: the same request id, the same body, only when the person asks.
    pub(crate) fn retry(&mut self, request_id: &str) -> Vec<Command> {
        vec![Command::Engine(ToEngine::Retry {
            request_id: request_id.to_string(),
        })]
    }

    // ----- mouse and paste ---------------------------------------------------------------------

    fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<Command> {
        if self.overlay.is_some() || geometry::is_too_small(self.size.0, self.size.1) {
            if let (Some(Overlay::Help { scroll, .. }), MouseEventKind::ScrollDown) =
                (&mut self.overlay, mouse.kind)
            {
                *scroll += 1;
            } else if let (Some(Overlay::Help { scroll, .. }), MouseEventKind::ScrollUp) =
                (&mut self.overlay, mouse.kind)
            {
                *scroll = scroll.saturating_sub(1);
            }
            return Vec::new();
        }
        match mouse.kind {
            MouseEventKind::ScrollDown => self.wheel(true, mouse.column, mouse.row),
            MouseEventKind::ScrollUp => self.wheel(false, mouse.column, mouse.row),
            MouseEventKind::Down(MouseButton::Left) => self.click(mouse.column, mouse.row),
            _ => Vec::new(),
        }
    }

    fn wheel(&mut self, down: bool, column: u16, row: u16) -> Vec<Command> {
        match self.nav.top() {
            Screen::Home(_) => self.home_wheel(down, column, row),
            Screen::Pane(_) | Screen::Conversation(_) => {
                let action = if down { Action::Down } else { Action::Up };
                let mut commands = Vec::new();
                for _ in 0..3 {
                    commands.extend(self.scroll_chat(action));
                }
                commands
            }
            Screen::Card(_) | Screen::DshForm(_) => Vec::new(),
            Screen::Inspector(_) => self.inspector_wheel(down),
            Screen::Exchange(_) => self.exchange_wheel(down),
            _ => self.list_wheel(down),
        }
    }

    fn click(&mut self, column: u16, row: u16) -> Vec<Command> {
        match self.nav.top() {
            Screen::Home(_) => self.home_click(column, row),
            Screen::Pane(_) => self.pane_click(column, row),
            Screen::Layout(_) | Screen::New(_) | Screen::History(_) => self.list_click(column, row),
            Screen::Inspector(_) => self.inspector_click(column, row),
            Screen::Card(_)
            | Screen::Conversation(_)
            | Screen::Exchange(_)
            | Screen::DshForm(_) => Vec::new(),
        }
    }

    fn on_paste(&mut self, text: &str) -> Vec<Command> {
        match self.context() {
            Context::PaneChat | Context::PaneInput => self.pane_paste(text),
            Context::PaneSearch => self.pane_search_paste(text),
            Context::CardTyping => self.card_paste(text),
            Context::DshForm => self.dsh_form_paste(text),
            Context::Prompt => {
                if let Some(Overlay::Prompt { editor, .. }) = &mut self.overlay {
                    typing::paste(editor, text, false);
                }
            }
            Context::Filter => {
                if let Some(filter) = self.nav.top_mut().filter_mut() {
                    typing::paste(&mut filter.editor, text, false);
                }
            }
            _ => {}
        }
        Vec::new()
    }

    // ----- the engine --------------------------------------------------------------------------

    fn on_engine(&mut self, update: FromEngine) -> Vec<Command> {
        match update {
            FromEngine::Agent { agent, change } => {
                if let crate::engine::AgentChange::Dsh(dsh) = &change {
                    self.dsh
                        .entry(agent.clone())
                        .or_default()
                        .apply(dsh.clone());
                }
                let Some(view) = self.agents.get_mut(&agent) else {
                    return Vec::new();
                };
                // Asks already open when the phone first hears of an agent ring no bell.
                let primed = view.synced.is_some();
                view.apply(change);
                self.clamp_lists();
                let mut commands = Vec::new();
                let new_asks = self.note_new_asks(&agent);
                if primed {
                    match notify::announce(self.notify, &agent, &new_asks) {
                        Some(Announcement::Bell) => commands.push(Command::Bell),
                        Some(Announcement::Desktop(notice)) => {
                            commands.push(Command::Notify(notice))
                        }
                        None => {}
                    }
                }
                self.refresh_cards();
                self.open_awaited_pane();
                commands
            }
            FromEngine::Intent(record) => self.on_intent(record),
            FromEngine::History { agent, page } => {
                self.pin_conversation_view(&agent, &page);
                self.history.apply(&agent, page);
                self.place_conversation_views();
                self.clamp_lists();
                Vec::new()
            }
            FromEngine::Exchange(record) => {
                self.wire.push(record);
                Vec::new()
            }
        }
    }

    /// Notes the agent's open asks; gives the titles of the new ones, oldest first (SPEC A2).
    fn note_new_asks(&mut self, agent: &str) -> Vec<String> {
        let Some(view) = self.agents.get(agent) else {
            return Vec::new();
        };
        let panes = view.panes();
        let asks: Vec<&crate::wire::Ask> = panes.iter().flat_map(|p| p.asks().iter()).collect();
        let known = self.known_asks.entry(agent.to_string()).or_default();
        let mut new: Vec<&crate::wire::Ask> = asks
            .iter()
            .copied()
            .filter(|a| !known.contains(&a.id))
            .collect();
        // As the inbox sorts: by when asked, layout order among equal or missing times.
        new.sort_by_key(
            |a| match a.opened_at.as_deref().and_then(crate::wire::time::parse) {
                Some(at) => (0, at),
                None => (1, OffsetDateTime::UNIX_EPOCH),
            },
        );
        *known = asks.iter().map(|a| a.id.clone()).collect();
        new.into_iter().map(|a| a.title.clone()).collect()
    }

    /// The live ask of a card, and how it closed if the chat says.
    fn live_ask(&self, key: &AskKey) -> (Option<&crate::wire::Ask>, Option<&ClosedAsk>) {
        let Some(pane) = self.agents.pane(&key.agent, &key.pane) else {
            return (None, None);
        };
        let live = pane.asks().iter().find(|a| a.id == key.ask_id);
        let closed = pane.log.and_then(|log| {
            log.entries.iter().rev().find_map(|entry| match entry {
                ChatEntry::Closed(closed) if closed.ask_id == key.ask_id => Some(closed),
                _ => None,
            })
        });
        (live, closed)
    }

    /// What an agent lets its cards offer (SPEC A11).
    pub fn agent_offer(&self, agent: &str) -> AgentOffer {
        self.agents
            .get(agent)
            .map_or_else(AgentOffer::default, AgentView::offer)
    }

    /// Redraws open cards from the live asks (SPEC A3) and lets answered ones go (SPEC A4, A7).
    /// A card whose ask changed starts its reading time again (docs/ASKS.md, "The reading
    /// time"), and an allow-always question about the ask it was is taken down: a yes to it
    /// would name what no longer is.
    fn refresh_cards(&mut self) {
        let keys: Vec<AskKey> = self.cards.keys().cloned().collect();
        for key in keys {
            // An agent that is not ready keeps showing what it had (SPEC H6).
            let ready = self
                .agents
                .get(&key.agent)
                .is_some_and(|a| a.status.is_ready());
            let (live, closed) = self.live_ask(&key);
            if live.is_none() && !ready {
                continue;
            }
            let (live, closed) = (live.cloned(), closed.cloned());
            let offer = self.agent_offer(&key.agent);
            let now = self.now;
            let changed = self
                .cards
                .get_mut(&key)
                .is_some_and(|card| card.refresh(live.as_ref(), closed.as_ref(), offer, now));
            if changed {
                self.drop_allow_always_question(&key);
            }
        }
        // "Already answered. This card goes away on the next refresh." (SPEC A7)
        if let Screen::Card(key) = self.nav.top() {
            let key = key.clone();
            let closed = self.cards.get(&key).is_some_and(|c| c.closed.is_some());
            let status = CardStatus::of(&self.intents, &key);
            match status {
                Some(CardStatus::Answered) if closed => {
                    self.nav.pop();
                    self.cards.remove(&key);
                }
                // Another phone answered first (SPEC A7): the card goes, never in silence. The
                // answer that won is named, and the person's words go to the pane's box, where
                // the pane now on screen shows them.
                Some(CardStatus::Decided(crate::engine::Decider::Phone, won)) if closed => {
                    let won = won.map_or_else(String::new, |w| format!(": “{w}”"));
                    let mut words = format!("Answered from another phone first{won}.");
                    self.nav.pop();
                    if self.give_back_card_words(&key).is_some() {
                        words.push_str(" Yours was not taken. Your words are in the pane's box.");
                        if self.agents.pane(&key.agent, &key.pane).is_some() {
                            self.open_pane(&key.agent, &key.pane);
                        }
                    }
                    self.cards.remove(&key);
                    self.show_toast(words, true);
                }
                _ => {}
            }
        }
    }

    fn on_intent(&mut self, record: IntentRecord) -> Vec<Command> {
        let before = self.intents.note(record.clone());
        if before.as_ref() == Some(&record.state) {
            return Vec::new();
        }
        let mut commands = Vec::new();
        // The next send of the pane leaves once this one was taken (one at a time, in order).
        if let (_, outbox::Next::Submit { agent, kind }) = self.outbox.note(&record, self.now) {
            commands.extend(self.submit(&agent, kind));
        }
        let agent = record.agent.clone();
        let done_reply = match &record.state {
            IntentState::Done { reply } | IntentState::Replayed { reply } => Some(reply),
            _ => None,
        };
        if let Some(dsh) = self.dsh_on_intent(&record, done_reply) {
            commands.extend(dsh);
            return commands;
        }
        match (&record.kind, done_reply) {
            (IntentKind::Answer { pane, ask_id, .. }, Some(_)) => {
                let key = AskKey {
                    agent: agent.clone(),
                    pane: pane.clone(),
                    ask_id: ask_id.clone(),
                };
                if matches!(self.nav.top(), Screen::Card(k) if *k == key) {
                    self.nav.pop();
                }
                self.cards.remove(&key);
                self.nav
                    .retain(|s| !matches!(s, Screen::Card(k) if *k == key));
                if matches!(record.state, IntentState::Replayed { .. }) {
                    // As the headless `answer` says it: the retry found the first try taken.
                    self.show_toast(
                        "Answered: the agent had this answer already and ran nothing again.",
                        false,
                    );
                } else {
                    self.show_toast("Answered.", false);
                }
            }
            (IntentKind::Starter { .. } | IntentKind::Reopen { .. }, Some(reply)) => {
                if let Some(pane) = &reply.pane_id {
                    self.awaiting_pane = Some((agent.clone(), pane.clone()));
                    self.open_awaited_pane();
                    if self.awaiting_pane.is_some() {
                        commands.push(Command::Engine(ToEngine::PollNow {
                            agent: agent.clone(),
                        }));
                    }
                }
            }
            (IntentKind::Rename { .. }, Some(_)) => self.show_toast("Renamed.", false),
            (IntentKind::Close { target, .. }, Some(_)) => {
                self.show_toast(format!("Closed the {target}."), false)
            }
            (IntentKind::Action { .. }, Some(_)) => self.show_toast("Pressed.", false),
            (IntentKind::Abort { pane, turn_id }, Some(_)) => {
                // The stop dropped what the agent held behind the turn: the words are the
                // person's again, back in the box before the draft (docs/ACP.md).
                let taken = self.outbox.take_waiting(&agent, pane, turn_id);
                if !taken.is_empty() {
                    let (pane, count) = (pane.clone(), taken.len());
                    self.back_into_box(&agent, &pane, &taken);
                    self.show_toast(
                        if count == 1 {
                            "Stopped. The queued message is back in the box.".to_string()
                        } else {
                            format!("Stopped. The {count} queued messages are back in the box.")
                        },
                        false,
                    );
                }
            }
            _ => {}
        }
        // Trouble with anything but answers and pane messages, which show it where they live.
        let shown_in_place = matches!(
            record.kind,
            IntentKind::Answer { .. }
                | IntentKind::Send { .. }
                | IntentKind::Abort { .. }
                | IntentKind::Action { .. }
        );
        if !shown_in_place
            && done_reply.is_none()
            && !intents::is_in_flight(&record.state)
            && !matches!(self.nav.top(), Screen::Pane(_))
        {
            self.show_toast(
                format!(
                    "{}: {}",
                    capitalized(record.kind.verb()),
                    intent_words(&record)
                ),
                true,
            );
        }
        commands
    }

    /// Opens the pane a starter or reopen named once the snapshot has it (SPEC A17).
    pub(crate) fn open_awaited_pane(&mut self) {
        let Some((agent, pane)) = self.awaiting_pane.clone() else {
            return;
        };
        if self.agents.pane(&agent, &pane).is_none() {
            return;
        }
        self.awaiting_pane = None;
        // "Starting …" or "Reopening …" is over: the pane is here.
        self.toast = None;
        self.nav.retain(|s| {
            !matches!(
                s,
                Screen::New(_) | Screen::History(_) | Screen::Conversation(_) | Screen::DshForm(_)
            )
        });
        self.open_pane(&agent, &pane);
    }

    pub fn open_pane(&mut self, agent: &str, pane: &str) {
        if matches!(self.nav.top(), Screen::Pane(p) if p.agent == agent && p.pane == pane) {
            return;
        }
        self.nav.push(Screen::Pane(PaneScreen::new(agent, pane)));
    }

    /// Opens the card of an ask, keeping what was typed on it before. From wherever it opens
    /// (the inbox, a pane, the soonest-expiring jump), no key answers it within the reading
    /// time (docs/ASKS.md, "The reading time").
    pub fn open_card(&mut self, key: AskKey) {
        let Some(pane) = self.agents.pane(&key.agent, &key.pane) else {
            return;
        };
        let Some(ask) = pane.asks().iter().find(|a| a.id == key.ask_id) else {
            return;
        };
        let ask = ask.clone();
        let title = pane.pane.title.clone();
        let now = self.now;
        if !matches!(self.nav.top(), Screen::Card(k) if *k == key) {
            self.cards
                .entry(key.clone())
                .and_modify(|card| card.reopen(now))
                .or_insert_with(|| CardState::new(key.clone(), ask, title, now));
            self.nav.push(Screen::Card(key));
        }
    }

    /// Keeps every list's selection on a real row after the data or the size changed: on the
    /// row it was on, or the nearest when that row went.
    fn clamp_lists(&mut self) {
        let (width, height) = self.size;
        for index in 0..self.nav.depth() {
            let keys = self.list_keys_at(index);
            let agent_count = self.agents.list.len();
            let Some(screen) = self.nav.get_mut(index) else {
                continue;
            };
            let filter_shown = screen.filter().is_some_and(|f| f.is_active());
            let list_height =
                usize::from(geometry::listing(width, height, filter_shown).list.height);
            match (screen, keys) {
                (Screen::Home(s), ListKeys::Home { agents, inbox }) => {
                    let parts = geometry::home(width, height, agent_count);
                    s.agents.follow(&agents, usize::from(parts.agents.height));
                    s.inbox.follow(&inbox, usize::from(parts.inbox.height));
                    // An emptied inbox gives the selection back to the agents.
                    if inbox.is_empty() {
                        s.in_inbox = false;
                    }
                }
                (Screen::Layout(s), ListKeys::One(keys)) => s.cursor.follow(&keys, list_height),
                (Screen::New(s), ListKeys::One(keys)) => s.cursor.follow(&keys, list_height),
                (Screen::History(s), ListKeys::One(keys)) => s.cursor.follow(&keys, list_height),
                _ => {}
            }
        }
    }

    /// Notes which row each list has selected, after the person moved.
    fn remember_selections(&mut self) {
        for index in 0..self.nav.depth() {
            let keys = self.list_keys_at(index);
            let Some(screen) = self.nav.get_mut(index) else {
                continue;
            };
            match (screen, keys) {
                (Screen::Home(s), ListKeys::Home { agents, inbox }) => {
                    s.agents.remember(&agents);
                    s.inbox.remember(&inbox);
                }
                (Screen::Layout(s), ListKeys::One(keys)) => s.cursor.remember(&keys),
                (Screen::New(s), ListKeys::One(keys)) => s.cursor.remember(&keys),
                (Screen::History(s), ListKeys::One(keys)) => s.cursor.remember(&keys),
                _ => {}
            }
        }
    }

    /// What each row of a screen's lists shows, as a key that stays with the row.
    fn list_keys_at(&self, index: usize) -> ListKeys {
        match self.nav.get(index) {
            Some(Screen::Home(s)) => ListKeys::Home {
                agents: self.agents.list.iter().map(|a| a.name.clone()).collect(),
                inbox: self
                    .home_inbox(&s.filter)
                    .iter()
                    .map(|row| {
                        let key = row.key();
                        format!("{}\u{0}{}\u{0}{}", key.agent, key.pane, key.ask_id)
                    })
                    .collect(),
            },
            Some(Screen::Layout(s)) => ListKeys::One(
                self.layout_rows(s)
                    .iter()
                    .map(|row| {
                        let (kind, id, _) = row.target();
                        format!("{kind}\u{0}{id}")
                    })
                    .collect(),
            ),
            Some(Screen::New(s)) => ListKeys::One(
                self.starter_rows(&s.filter)
                    .iter()
                    .map(|row| format!("starter\u{0}{}\u{0}{}", row.agent, row.starter.id))
                    .chain(
                        self.dsh_new_rows(&s.filter)
                            .iter()
                            .map(|row| format!("dsh\u{0}{}\u{0}{}", row.agent, row.title)),
                    )
                    .collect(),
            ),
            Some(Screen::History(s)) => ListKeys::One(
                self.conversation_rows(&s.agent, &s.filter)
                    .iter()
                    .map(|row| row.id.clone())
                    .collect(),
            ),
            _ => ListKeys::None,
        }
    }

    /// The row selected in the list screen on top (workspaces, New, History) and how many
    /// rows it has; none on other screens.
    pub fn list_selection(&self) -> Option<(usize, usize)> {
        let index = self.nav.depth().checked_sub(1)?;
        let selected = match self.nav.get(index)? {
            Screen::Layout(s) => s.cursor.selected,
            Screen::New(s) => s.cursor.selected,
            Screen::History(s) => s.cursor.selected,
            _ => return None,
        };
        Some((selected, self.list_len_at(index)))
    }

    pub(crate) fn list_len_at(&self, index: usize) -> usize {
        match self.nav.get(index) {
            Some(Screen::Layout(s)) => self.layout_rows(s).len(),
            Some(Screen::New(s)) => {
                self.starter_rows(&s.filter).len() + self.dsh_new_rows(&s.filter).len()
            }
            Some(Screen::History(s)) => self.conversation_rows(&s.agent, &s.filter).len(),
            _ => 0,
        }
    }
}

/// The row keys of a screen's lists (see [`list::ListCursor::follow`]).
enum ListKeys {
    Home {
        agents: Vec<String>,
        inbox: Vec<String>,
    },
    One(Vec<String>),
    None,
}

/// What a key that came with others may do (docs/KEYS.md), decided by its action: move, type,
/// and in a pane's box send (each Enter of a person's bunched words is a send of its own).
/// Answering, confirming, opening, stopping and quitting wait for a key that comes alone.
fn bunched_key_acts(context: Context, action: Option<Action>) -> bool {
    match action {
        Some(
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom
            | Action::SelectPrev
            | Action::SelectNext,
        ) => true,
        Some(Action::NextField | Action::PrevField) => context.takes_typing(),
        Some(Action::Send | Action::Newline) => context == Context::PaneInput,
        // Typed where text is typed; nothing at all elsewhere.
        None => true,
        Some(_) => false,
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// An intent's state in a few words, for the line next to the input and for messages.
pub(crate) fn intent_words(record: &IntentRecord) -> String {
    match &record.state {
        IntentState::Created | IntentState::Sending => "sending…".into(),
        IntentState::Done { reply } if reply.queued == Some(true) => {
            "queued: the agent reads it when this turn ends".into()
        }
        IntentState::Done { .. } => "sent".into(),
        IntentState::Replayed { .. } => "sent (the agent had it already)".into(),
        IntentState::Stale { .. } => "refused: the ask changed".into(),
        IntentState::Decided { .. } => "refused: already decided".into(),
        IntentState::TooLate => "not taken: the agent no longer knows it".into(),
        IntentState::RequestIdReused => "refused: request-id-reused".into(),
        IntentState::Refused { code, message, .. } => match message {
            Some(message) => format!("refused: {code}: {message}"),
            None => format!("refused: {code}"),
        },
        // SPEC Q4: the engine resends it with the same request id; the reply settles it.
        IntentState::Unknown { .. } if record.checking => "not sure it arrived: checking…".into(),
        IntentState::Unknown { why } if intents::is_retryable(record) => {
            format!("unknown: {why}")
        }
        IntentState::Unknown { .. } | IntentState::MaybeApplied => {
            "maybe applied: check the chat".into()
        }
        IntentState::NotSent { why } => format!("not sent: {why}"),
    }
}
