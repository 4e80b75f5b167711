//! What a room reads of its surroundings and never writes (as slumber's `ViewContext`): the
//! person's settings (the keymap, the theme, the ringer), the moment (the clock, the
//! terminal's size and facts, whether a paste continues the one before), the wire log the
//! inspector lists, where its exports go, and the chat's layout memo. The shell keeps it, from
//! the runner's messages and the engine's news; the phone's own behaviour (`app/`) changes the
//! settings the person changes there (the mouse, the rings). A room only reads it:
//! `layering.rs` checks that no file under `screens/` calls a method here that takes
//! `&mut self` (docs/ARCHITECTURE.md, "The phone").

use std::path::{Path, PathBuf};

use time::OffsetDateTime;

use super::keymap::Keymap;
use super::ringer::Ringer;
use super::settings::Settings;
use super::terminal_facts::TerminalFacts;
use super::wire_log::{WireLog, default_export_dir};
use crate::engine::ExchangeRecord;
use crate::look::chat_view::ChatLayout;
use crate::look::theme::Theme;

#[derive(Clone)]
pub struct ViewContext {
    keymap: Keymap,
    theme: Theme,
    /// How the phone rings: where the person is, the mute, the rules (`app::ringer`).
    ringer: Ringer,
    now: OffsetDateTime,
    size: (u16, u16),
    /// What the phone knows of its terminal: the mouse, tmux's clipboard.
    terminal: TerminalFacts,
    /// True while a paste without markers is handed on that continues the one before it
    /// (nothing the person did came between): its text joins that paste's undo step.
    paste_continues: bool,
    /// The newest exchanges with the agents, for the wire inspector.
    wire: WireLog,
    /// Where the wire inspector saves its exports.
    export_dir: PathBuf,
    /// Chat entries as laid out, kept between frames (a memo, see `look::chat_view`): it
    /// fills while a frame or a scroll measures, through a shared borrow.
    chat_layout: ChatLayout,
}

impl ViewContext {
    pub(crate) fn new(
        settings: Settings,
        theme: Theme,
        now: OffsetDateTime,
        size: (u16, u16),
    ) -> Self {
        Self {
            keymap: settings.keymap,
            theme,
            ringer: Ringer::new(settings.rings, settings.notify, now),
            now,
            size,
            terminal: TerminalFacts {
                mouse: settings.mouse,
                tmux_keeps_clipboard: false,
            },
            paste_continues: false,
            wire: WireLog::default(),
            export_dir: default_export_dir(),
            chat_layout: ChatLayout::default(),
        }
    }

    pub(crate) fn keymap(&self) -> &Keymap {
        &self.keymap
    }

    pub(crate) fn theme(&self) -> &Theme {
        &self.theme
    }

    pub(crate) fn ringer(&self) -> &Ringer {
        &self.ringer
    }

    /// The phone's clock, set by the shell once a second and at every message.
    pub(crate) fn now(&self) -> OffsetDateTime {
        self.now
    }

    /// The terminal's columns and rows.
    pub(crate) fn size(&self) -> (u16, u16) {
        self.size
    }

    pub(crate) fn terminal(&self) -> TerminalFacts {
        self.terminal
    }

    pub(crate) fn paste_continues(&self) -> bool {
        self.paste_continues
    }

    pub(crate) fn wire(&self) -> &WireLog {
        &self.wire
    }

    pub(crate) fn export_dir(&self) -> &Path {
        &self.export_dir
    }

    pub(crate) fn chat_layout(&self) -> &ChatLayout {
        &self.chat_layout
    }

    // What the shell and the phone's own behaviour keep; never a room.

    pub(crate) fn set_clock(&mut self, now: OffsetDateTime) {
        self.now = now;
    }

    pub(crate) fn set_size(&mut self, size: (u16, u16)) {
        self.size = size;
    }

    pub(crate) fn set_paste_continues(&mut self, continues: bool) {
        self.paste_continues = continues;
    }

    pub(crate) fn terminal_mut(&mut self) -> &mut TerminalFacts {
        &mut self.terminal
    }

    pub(crate) fn ringer_mut(&mut self) -> &mut Ringer {
        &mut self.ringer
    }

    pub(crate) fn heard_exchange(&mut self, record: ExchangeRecord) {
        self.wire.push(record);
    }

    pub(crate) fn set_export_dir(&mut self, dir: PathBuf) {
        self.export_dir = dir;
    }

    /// Forgets every chat entry as laid out, so the next frame lays them out again.
    pub(crate) fn forget_chat_layout(&mut self) {
        self.chat_layout = ChatLayout::default();
    }
}
