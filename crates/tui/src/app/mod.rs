//! The phone's state and how it changes, below the rooms (docs/ARCHITECTURE.md, "The rooms"):
//! what the phone knows of its agents, the intents, the cards, drafts and outbox, what floats,
//! the keymap and the settings; and the words the runner and the router speak with it,
//! `Message` in and `Command` out. No I/O, no drawing, and no room: the router above the rooms
//! (`crate::shell`) routes.

pub(crate) mod drafts;
pub(crate) mod dsh_tasks;
pub mod geometry;
pub mod keymap;
pub(crate) mod list;
pub(crate) mod mouse;
pub(crate) mod names;
pub mod notify;
pub mod outside_editor;
pub mod overlay;
pub mod phone;
pub(crate) mod pretty_json;
pub mod ringer;
pub mod settings;
pub(crate) mod terminal_facts;
pub(crate) mod toast;
pub(crate) mod triage;
pub(crate) mod typing;
pub mod view_context;
pub(crate) mod wire_log;

use std::path::PathBuf;

use crossterm::event::{KeyEvent, MouseEvent};
use time::OffsetDateTime;

use self::notify::Notice;
use self::settings::Settings;
use crate::engine::{FromEngine, ToEngine};
use crate::look::theme::Theme;

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
        /// How many exchanges the export holds, as the inspector counted them.
        exchanges: usize,
        result: Result<(), String>,
    },
    /// The runner asked a browser opener to open `url` (its name), or says why it could not.
    LinkOpened {
        url: String,
        result: Result<String, String>,
    },
    /// The person's editor closed: what it saved for the field, or why it did not come back.
    EditedOutside {
        target: outside_editor::EditTarget,
        result: Result<String, String>,
    },
    /// After a copy, the runner asked tmux again whether it lets the copy's OSC 52 through
    /// (`keeps`: it does not, its set-clipboard is not on); `text` is what was copied.
    ClipboardChecked {
        keeps: bool,
        text: String,
    },
    /// A run of the person's notify command ended: `failure` says what went wrong, if anything.
    Pushed {
        failure: Option<String>,
    },
    /// `collie-phone demo`'s runner saw its own agent stop or come back.
    Demo {
        agent: String,
        news: crate::model::agents::DemoNews,
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
    /// Run the person's notify command with one JSON object on its stdin; how it went comes
    /// back as [`Message::Pushed`].
    Push(crate::engine::push::Push),
    /// Write the wire inspector's exchanges (JSON lines) to a new private file.
    ExportInspector {
        path: PathBuf,
        /// The exchanges, one JSON line each.
        text: String,
        /// How many exchanges `text` holds, for the words about the export.
        exchanges: usize,
    },
    /// Put cleaned, capped text on the clipboard through the terminal (OSC 52).
    Copy(String),
    /// Open a checked `https://` link with the system's browser opener.
    OpenLink(String),
    /// Take the mouse (true) or leave it to the terminal, so its own selection works (false).
    Mouse(bool),
    /// Open `text` in the person's editor, the phone off the screen while it runs; what it
    /// saves comes back as [`Message::EditedOutside`] for `target` (docs/KEYS.md).
    EditOutside {
        target: outside_editor::EditTarget,
        text: String,
    },
    /// A line for the log: what the phone chose not to do, and why.
    Log(String),
    /// Clear the terminal and send every cell of the next frame (Ctrl-L).
    Redraw,
    /// Keep what the person saw of each pane in the phone's state folder, so the news marks
    /// outlive a restart (SPEC A22): the whole file, as `model::seen` writes it.
    KeepSeen(String),
    Quit,
}

/// What the phone starts with (the router builds its `Phone` from it).
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
