//! Keys: what each key does on each screen, the defaults (arrows and vim keys), overrides from
//! the config file's `[keys]` section, and the lines of the `?` help, generated from the same
//! table so the help can never drift from what the keys do. Each screen's defaults are written
//! in its room (`screens/<name>/keys.rs`); this file gathers the parts it is handed into one
//! table.

use std::collections::BTreeMap;
use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// A part of a screen where keys are read (a screen, or a part of one that takes typing),
/// declared by its room in `screens/<name>/keys.rs`: its bindings, whether it takes typing and
/// pastes, the help's title and notes, and the footer's hints. The keymap is built from every
/// room's parts, handed in from above (`screens::key_parts`), so a room cannot be left without
/// keys.
pub struct KeyPart {
    /// Unique among the parts; names the part in logs.
    pub(crate) id: &'static str,
    /// The help's title.
    pub(crate) title: &'static str,
    /// The defaults, before the config's `[keys]`.
    pub(crate) bindings: fn() -> Vec<(Chord, Action)>,
    /// True where unbound printable keys are typed rather than ignored.
    pub(crate) typing: bool,
    /// True where a paste lands as text.
    pub(crate) pastes: bool,
    /// Keys that are not in the table because they belong to a kind of field; shown in help.
    pub(crate) notes: &'static [&'static str],
    /// The actions the footer hints at, most needed first.
    pub(crate) hints: &'static [Hint],
    /// What a key does here when that differs from [`Action::describe`].
    pub(crate) describe: fn(Action) -> Option<String>,
}

/// An action the footer hints at: its words, and shorter words for a narrow terminal.
pub(crate) type Hint = (Action, &'static str, &'static str);

/// For parts whose keys mean what [`Action::describe`] says.
pub(crate) fn plain_words(_: Action) -> Option<String> {
    None
}

/// Where keys go now: one of the rooms' [`KeyPart`]s. Two contexts are the same when their
/// parts' ids are.
#[derive(Clone, Copy)]
pub struct Context(pub(crate) &'static KeyPart);

impl PartialEq for Context {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for Context {}

impl PartialOrd for Context {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Context {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.id.cmp(other.0.id)
    }
}

impl std::hash::Hash for Context {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.id.hash(state);
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Context({})", self.0.id)
    }
}

impl Context {
    /// The help's title of the part: "Home", "Pane input".
    pub fn title(self) -> &'static str {
        self.0.title
    }

    /// True where unbound printable keys are typed rather than ignored.
    pub(crate) fn takes_typing(self) -> bool {
        self.0.typing
    }

    /// True where a paste lands as text.
    pub(crate) fn takes_paste(self) -> bool {
        self.0.pastes
    }

    /// Keys that are not in the table because they belong to a kind of field; shown in help.
    pub(crate) fn notes(self) -> &'static [&'static str] {
        self.0.notes
    }

    /// The actions the footer hints at, most needed first.
    pub(crate) fn hints(self) -> &'static [Hint] {
        self.0.hints
    }
}

/// The editing keys every text field shares (`typing::edit`), for the help; each fits its
/// 74 columns.
pub(crate) const EDIT_MOVES: &str =
    "←/→, Home/End, Ctrl-A/E move; Alt-B/F or Ctrl-←/→ move by word";
pub(crate) const EDIT_KILLS: &str =
    "Ctrl-U/Ctrl-K kill to the line's start/end, Ctrl-W/Alt-D a word";
pub(crate) const EDIT_YANK_UNDO: &str =
    "Ctrl-Y puts back the last kill; Ctrl-Z or Ctrl-_ undoes, Alt-Z redoes";

/// Everything a key can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Action {
    Quit,
    Help,
    Back,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Open,
    Filter,
    JumpExpiring,
    /// Open the ask that needs the person first, across every agent; again, the next one
    /// (docs/KEYS.md, "The ask that needs you first").
    NextAsk,
    /// The next pane in the tree's order across every agent, and the one before it
    /// (docs/KEYS.md, "Moving without going back").
    NextPane,
    PrevPane,
    /// The next pane with news since the person last saw it.
    NextNews,
    /// Back to the pane or card the last move left.
    WhereYouWere,
    NewPage,
    History,
    Rename,
    Close,
    FocusInput,
    Send,
    Newline,
    ToggleThinking,
    Abort,
    Belt(u8),
    Retry,
    /// Bring a held send's words back into the box.
    TakeBack,
    AllowOnce,
    Deny,
    /// Select "Deny, and say why" on a permission card: then letters are its words (SPEC A21).
    DenyWithWords,
    AllowAlways,
    Pick(u8),
    Submit,
    NextField,
    PrevField,
    Reopen,
    OpenAsk,
    Confirm,
    /// Yes to the allow-always question; apart from `Confirm`, so Enter never says it.
    ConfirmAlways,
    Cancel,
    Wire,
    Export,
    /// DSH bridge: choose the kind of the next message (instruction, feedback…).
    MessageKind,
    /// DSH bridge: switch the next message between queue and steer.
    SendMode,
    /// A pane's chat: select the item above or below.
    SelectPrev,
    SelectNext,
    /// Copy the selected chat item (OSC 52), or only its code.
    Copy,
    CopyCode,
    /// Open the selected item's link in a browser.
    OpenLink,
    /// Search in a pane's chat, and go to the next or previous match.
    Search,
    NextMatch,
    PrevMatch,
    /// Take the mouse, or leave it to the terminal (its own selection).
    Mouse,
    /// The rings: mute them for a while, and switch how each event rings.
    Rings,
    /// A pane: switch its agent's mode and options.
    Settings,
    /// A pane's box: complete the command lit in the list of the agent's commands.
    Complete,
    /// Clear the terminal and draw the whole screen again.
    Redraw,
    /// The box's text (or a card's text answer) in the person's own editor, `$VISUAL` or
    /// `$EDITOR` (docs/KEYS.md, "The person's editor").
    EditOutside,
}

impl Action {
    /// The name used in the config file's `[keys]` section.
    pub(crate) fn name(self) -> String {
        let fixed = match self {
            Self::Quit => "quit",
            Self::Help => "help",
            Self::Back => "back",
            Self::Up => "up",
            Self::Down => "down",
            Self::PageUp => "page-up",
            Self::PageDown => "page-down",
            Self::Top => "top",
            Self::Bottom => "bottom",
            Self::Open => "open",
            Self::Filter => "filter",
            Self::JumpExpiring => "jump-expiring",
            Self::NextAsk => "next-ask",
            Self::NextPane => "next-pane",
            Self::PrevPane => "previous-pane",
            Self::NextNews => "next-pane-with-news",
            Self::WhereYouWere => "where-you-were",
            Self::NewPage => "new-page",
            Self::History => "history",
            Self::Rename => "rename",
            Self::Close => "close",
            Self::FocusInput => "focus-input",
            Self::Send => "send",
            Self::Newline => "newline",
            Self::ToggleThinking => "toggle-thinking",
            Self::Abort => "abort",
            Self::Retry => "retry",
            Self::TakeBack => "take-back",
            Self::AllowOnce => "allow-once",
            Self::Deny => "deny",
            Self::DenyWithWords => "deny-and-say",
            Self::AllowAlways => "allow-always",
            Self::Submit => "submit",
            Self::NextField => "next-field",
            Self::PrevField => "previous-field",
            Self::Reopen => "reopen",
            Self::OpenAsk => "open-ask",
            Self::Confirm => "confirm",
            Self::ConfirmAlways => "confirm-allow-always",
            Self::Cancel => "cancel",
            Self::Wire => "wire",
            Self::Export => "export",
            Self::MessageKind => "message-kind",
            Self::SendMode => "send-mode",
            Self::SelectPrev => "select-previous",
            Self::SelectNext => "select-next",
            Self::Copy => "copy",
            Self::CopyCode => "copy-code",
            Self::OpenLink => "open-link",
            Self::Search => "search",
            Self::NextMatch => "next-match",
            Self::PrevMatch => "previous-match",
            Self::Mouse => "mouse",
            Self::Rings => "rings",
            Self::Redraw => "redraw",
            Self::Settings => "settings",
            Self::Complete => "complete",
            Self::EditOutside => "edit-in-editor",
            Self::Belt(n) => return format!("belt-{n}"),
            Self::Pick(n) => return format!("pick-{n}"),
        };
        fixed.to_string()
    }

    /// What the key does, for the help overlay.
    pub(crate) fn describe(self) -> String {
        let fixed = match self {
            Self::Quit => "Quit collie-phone",
            Self::Help => "Show or hide this help",
            Self::Back => "Go back",
            Self::Up => "Move up",
            Self::Down => "Move down",
            Self::PageUp => "Page up",
            Self::PageDown => "Page down",
            Self::Top => "Go to the top",
            Self::Bottom => "Go to the bottom",
            Self::Open => "Open the selected row",
            Self::Filter => "Filter the list",
            Self::JumpExpiring => "Open the ask that expires soonest",
            Self::NextAsk => "Open the ask that needs you first; again, the next",
            Self::NextPane => "Next pane, across tabs, workspaces and agents",
            Self::PrevPane => "Previous pane",
            Self::NextNews => "Next pane with news since you saw it",
            Self::WhereYouWere => "Back to where you were before the last move",
            Self::NewPage => "New: run a starter",
            Self::History => "History of conversations",
            Self::Rename => "Rename the workspace or tab",
            Self::Close => "Close the pane, tab or workspace",
            Self::FocusInput => "Type a message",
            Self::Send => "Send the message",
            Self::Newline => "New line",
            Self::ToggleThinking => "Fold or unfold thinking",
            Self::Abort => "Stop the running turn",
            Self::Retry => "Retry what may not have arrived",
            Self::TakeBack => "Take a held message back into the box",
            Self::AllowOnce => "Allow once",
            Self::Deny => "Deny",
            Self::DenyWithWords => "Deny, and say why",
            Self::AllowAlways => "Allow always",
            Self::Submit => "Submit the answer",
            Self::NextField => "Next field",
            Self::PrevField => "Previous field",
            Self::Reopen => "Reopen the conversation",
            Self::OpenAsk => "Answer the pane's oldest open ask",
            Self::Confirm => "Yes",
            Self::ConfirmAlways => "Yes: allow always",
            Self::Cancel => "No",
            Self::Wire => "Wire inspector: every exchange with the agents",
            Self::Export => "Save the listed exchanges to a file",
            Self::MessageKind => "DSH task: choose the kind of the next message",
            Self::SendMode => "DSH task: queue the next message, or steer the turn",
            Self::SelectPrev => "Select the chat item above",
            Self::SelectNext => "Select the chat item below",
            Self::Copy => "Copy the selected item to the clipboard (through the terminal)",
            Self::CopyCode => "Copy only the code of the selected item",
            Self::OpenLink => "Open the selected item's link in a browser",
            Self::Search => "Search in the chat",
            Self::NextMatch => "Next match",
            Self::PrevMatch => "Previous match",
            Self::Mouse => "Mouse on or off (off: the terminal's own selection works)",
            Self::Rings => "Rings: mute, and how each event rings",
            Self::Settings => "Switch the agent's mode and options",
            Self::Complete => "Complete the lit command",
            Self::Redraw => "Redraw the whole screen",
            Self::EditOutside => "Edit the text in $VISUAL or $EDITOR, unsent",
            Self::Belt(n) => return format!("Press belt button {n}"),
            Self::Pick(n) => return format!("Pick option {n}"),
        };
        fixed.to_string()
    }

    fn every() -> Vec<Action> {
        let mut all = vec![
            Self::Quit,
            Self::Help,
            Self::Back,
            Self::Up,
            Self::Down,
            Self::PageUp,
            Self::PageDown,
            Self::Top,
            Self::Bottom,
            Self::Open,
            Self::Filter,
            Self::JumpExpiring,
            Self::NextAsk,
            Self::NextPane,
            Self::PrevPane,
            Self::NextNews,
            Self::WhereYouWere,
            Self::NewPage,
            Self::History,
            Self::Rename,
            Self::Close,
            Self::FocusInput,
            Self::Send,
            Self::Newline,
            Self::ToggleThinking,
            Self::Abort,
            Self::Retry,
            Self::TakeBack,
            Self::AllowOnce,
            Self::Deny,
            Self::DenyWithWords,
            Self::AllowAlways,
            Self::Submit,
            Self::NextField,
            Self::PrevField,
            Self::Reopen,
            Self::OpenAsk,
            Self::Confirm,
            Self::ConfirmAlways,
            Self::Cancel,
            Self::Wire,
            Self::Export,
            Self::MessageKind,
            Self::SendMode,
            Self::SelectPrev,
            Self::SelectNext,
            Self::Copy,
            Self::CopyCode,
            Self::OpenLink,
            Self::Search,
            Self::NextMatch,
            Self::PrevMatch,
            Self::Mouse,
            Self::Rings,
            Self::Settings,
            Self::Complete,
            Self::Redraw,
            Self::EditOutside,
        ];
        all.extend((1..=4).map(Self::Belt));
        all.extend((1..=8).map(Self::Pick));
        all
    }

    /// What the key does in `context`: on a card, option keys only select and Enter answers.
    pub(crate) fn describe_in(self, context: Context) -> String {
        (context.0.describe)(self).unwrap_or_else(|| self.describe())
    }

    pub(crate) fn from_name(name: &str) -> Option<Action> {
        Self::every().into_iter().find(|a| a.name() == name)
    }

    /// Every name the config file's `[keys]` section knows, in table order.
    pub(crate) fn names() -> Vec<String> {
        Self::every().into_iter().map(Action::name).collect()
    }
}

/// One key with its modifiers, as written in the config (`ctrl-r`, `alt-enter`, `f1`, `G`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Chord {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

impl Chord {
    pub(crate) const fn plain(code: KeyCode) -> Self {
        Self {
            code,
            modifiers: KeyModifiers::NONE,
        }
    }

    /// True for a key that is text where letters are typed: a character, with Shift at most.
    pub(crate) fn is_text(&self) -> bool {
        matches!(self.code, KeyCode::Char(_)) && (self.modifiers - KeyModifiers::SHIFT).is_empty()
    }

    pub(crate) const fn ch(c: char) -> Self {
        Self::plain(KeyCode::Char(c))
    }

    pub(crate) const fn ctrl(c: char) -> Self {
        Self {
            code: KeyCode::Char(c),
            modifiers: KeyModifiers::CONTROL,
        }
    }

    pub(crate) const fn alt(code: KeyCode) -> Self {
        Self {
            code,
            modifiers: KeyModifiers::ALT,
        }
    }

    /// The chord of a key event: Shift is folded into the character (and BackTab), so `G`
    /// matches whether or not the terminal reports Shift with it.
    pub(crate) fn of(key: &KeyEvent) -> Self {
        let mut modifiers =
            key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match key.code {
            KeyCode::Char(c) => {
                modifiers.remove(KeyModifiers::SHIFT);
                if modifiers.contains(KeyModifiers::CONTROL) {
                    KeyCode::Char(c.to_ascii_lowercase())
                } else {
                    KeyCode::Char(c)
                }
            }
            KeyCode::BackTab => {
                modifiers.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            other => other,
        };
        Self { code, modifiers }
    }

    /// Parses `ctrl-r`, `alt-enter`, `shift-tab`, `f1`, `pgup`, `space`, `?`, `G`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut modifiers = KeyModifiers::NONE;
        let mut rest = text;
        loop {
            let lower = rest.to_ascii_lowercase();
            if let Some(tail) = lower.strip_prefix("ctrl-").filter(|t| !t.is_empty()) {
                modifiers |= KeyModifiers::CONTROL;
                rest = &rest[rest.len() - tail.len()..];
            } else if let Some(tail) = lower.strip_prefix("alt-").filter(|t| !t.is_empty()) {
                modifiers |= KeyModifiers::ALT;
                rest = &rest[rest.len() - tail.len()..];
            } else if let Some(tail) = lower.strip_prefix("shift-").filter(|t| !t.is_empty()) {
                modifiers |= KeyModifiers::SHIFT;
                rest = &rest[rest.len() - tail.len()..];
            } else {
                break;
            }
        }
        let named = match rest.to_ascii_lowercase().as_str() {
            "enter" | "return" => Some(KeyCode::Enter),
            "esc" | "escape" => Some(KeyCode::Esc),
            "tab" if modifiers.contains(KeyModifiers::SHIFT) => {
                modifiers.remove(KeyModifiers::SHIFT);
                Some(KeyCode::BackTab)
            }
            "tab" => Some(KeyCode::Tab),
            "backtab" => Some(KeyCode::BackTab),
            "space" => Some(KeyCode::Char(' ')),
            // The arrows also as the help and the footer write them.
            "up" | "↑" => Some(KeyCode::Up),
            "down" | "↓" => Some(KeyCode::Down),
            "left" | "←" => Some(KeyCode::Left),
            "right" | "→" => Some(KeyCode::Right),
            "home" => Some(KeyCode::Home),
            "end" => Some(KeyCode::End),
            "pgup" | "pageup" => Some(KeyCode::PageUp),
            "pgdn" | "pgdown" | "pagedown" => Some(KeyCode::PageDown),
            "backspace" => Some(KeyCode::Backspace),
            "delete" | "del" => Some(KeyCode::Delete),
            "insert" => Some(KeyCode::Insert),
            lower if lower.len() >= 2 && lower.starts_with('f') => lower[1..]
                .parse::<u8>()
                .ok()
                .filter(|n| (1..=12).contains(n))
                .map(KeyCode::F),
            _ => None,
        };
        let code = match named {
            Some(code) => code,
            None => {
                let mut chars = rest.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if !c.is_control() => {
                        if modifiers.contains(KeyModifiers::SHIFT) {
                            modifiers.remove(KeyModifiers::SHIFT);
                            KeyCode::Char(c.to_ascii_uppercase())
                        } else if modifiers.contains(KeyModifiers::CONTROL) {
                            KeyCode::Char(c.to_ascii_lowercase())
                        } else {
                            KeyCode::Char(c)
                        }
                    }
                    _ => return Err(format!("\"{text}\" is not a key I know")),
                }
            }
        };
        Ok(Self { code, modifiers })
    }
}

impl fmt::Display for Chord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            f.write_str("Ctrl-")?;
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            f.write_str("Alt-")?;
        }
        if self.modifiers.contains(KeyModifiers::SHIFT) {
            f.write_str("Shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) if self.modifiers.contains(KeyModifiers::CONTROL) => {
                write!(f, "{}", c.to_ascii_uppercase())
            }
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::BackTab => f.write_str("Shift-Tab"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::Backspace => f.write_str("Backspace"),
            KeyCode::Delete => f.write_str("Delete"),
            KeyCode::Insert => f.write_str("Insert"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// Ctrl-C, a person's way out: whatever `[keys]` says, it keeps its built-in action (quit, or
/// no in a question) in every part that has one (docs/CONFIG.md, "What is refused").
pub(crate) const WAY_OUT: Chord = Chord::ctrl('c');

/// A key `[keys]` would give to two actions in one part, found before the phone starts, so it
/// is refused rather than one of the two silently losing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Clash {
    /// The action whose keys in the file take the key.
    pub(crate) action: Action,
    pub(crate) chord: Chord,
    /// The action that has the key there too.
    pub(crate) holder: Action,
    pub(crate) context: Context,
}

impl Clash {
    /// True when the key is [`WAY_OUT`], which no file can take from its action.
    pub(crate) fn is_way_out(&self) -> bool {
        self.chord == WAY_OUT
    }
}

/// Every binding of every context, in the order the help lists them.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: BTreeMap<Context, Vec<(Chord, Action)>>,
    /// What [`WAY_OUT`] does in each part that has it by default, whatever the bindings say.
    way_out: BTreeMap<Context, Action>,
    /// The parts in the order they were handed in.
    order: Vec<Context>,
}

#[cfg(test)]
impl Keymap {
    /// Every context's bindings, for the tests that read the whole map
    /// (`screens/keymap_tests.rs`).
    pub(crate) fn bindings(&self) -> &BTreeMap<Context, Vec<(Chord, Action)>> {
        &self.bindings
    }
}

/// Moving through a list: arrows, vim keys, pages, ends.
pub(crate) fn list_moves() -> Vec<(Chord, Action)> {
    vec![
        (Chord::plain(KeyCode::Up), Action::Up),
        (Chord::ch('k'), Action::Up),
        (Chord::plain(KeyCode::Down), Action::Down),
        (Chord::ch('j'), Action::Down),
        (Chord::plain(KeyCode::PageUp), Action::PageUp),
        (Chord::ctrl('b'), Action::PageUp),
        (Chord::plain(KeyCode::PageDown), Action::PageDown),
        (Chord::ctrl('f'), Action::PageDown),
        (Chord::ch('g'), Action::Top),
        (Chord::plain(KeyCode::Home), Action::Top),
        (Chord::ch('G'), Action::Bottom),
        (Chord::plain(KeyCode::End), Action::Bottom),
    ]
}

/// Enter, → and l open the selected row.
pub(crate) fn opens() -> [(Chord, Action); 3] {
    [
        (Chord::plain(KeyCode::Enter), Action::Open),
        (Chord::plain(KeyCode::Right), Action::Open),
        (Chord::ch('l'), Action::Open),
    ]
}

/// The keys of every box a person writes words in (a pane's box, a card's text and form
/// fields), besides Enter and the editing keys (`typing`): one list, so the box and the card
/// have the same keys and their `?` help lists them alike. The moves between panes are among
/// them ([`moves`]).
pub(crate) fn text_box() -> Vec<(Chord, Action)> {
    vec![
        (Chord::alt(KeyCode::Enter), Action::Newline),
        (Chord::ctrl('j'), Action::Newline),
        // Ctrl-G opens the person's editor, as in Claude Code and codex (docs/KEYS.md, "The
        // person's editor"); the key list is Alt-? here, as `?` alone is text.
        (Chord::ctrl('g'), Action::EditOutside),
        (Chord::alt(KeyCode::Char('?')), Action::Help),
    ]
    .into_iter()
    .chain(moves())
    .collect()
}

/// The keys that move between panes without going back, the same on every screen Ctrl-N is
/// on, in the box and on a card's text too (docs/KEYS.md, "Moving without going back"): Alt
/// chords, so they are never text, and none the box's editing takes (Alt-←/→, Alt-B/F/D/Z,
/// Alt-Backspace are its own). Alt-↓/↑ walk the panes as ↓/↑ walk the workspaces' tree; Alt-n
/// goes to news; Alt-o goes back, as vim's Ctrl-O jumps back (Ctrl-O is a key of the box).
pub(crate) fn moves() -> [(Chord, Action); 4] {
    [
        (Chord::alt(KeyCode::Down), Action::NextPane),
        (Chord::alt(KeyCode::Up), Action::PrevPane),
        (Chord::alt(KeyCode::Char('n')), Action::NextNews),
        (Chord::alt(KeyCode::Char('o')), Action::WhereYouWere),
    ]
}

/// The key to the ask that needs the person first, the same on every screen, in the box and
/// on a card's text too (docs/KEYS.md, "The ask that needs you first"): a chord, so it is never
/// text, and one no box, list or terminal takes (readline's next-history has no place here).
pub(crate) fn to_the_asks() -> [(Chord, Action); 1] {
    [(Chord::ctrl('n'), Action::NextAsk)]
}

/// Keys every screen that does not take typing shares.
pub(crate) fn common() -> Vec<(Chord, Action)> {
    let mut keys = vec![
        (Chord::ch('?'), Action::Help),
        (Chord::ch('q'), Action::Quit),
        (Chord::ctrl('c'), Action::Quit),
        (Chord::plain(KeyCode::Esc), Action::Back),
        (Chord::plain(KeyCode::Left), Action::Back),
        (Chord::ch('h'), Action::Back),
        (Chord::ch('M'), Action::Mouse),
        (Chord::ch('Z'), Action::Rings),
    ];
    keys.extend(to_the_asks());
    keys.extend(moves());
    keys
}

/// Keys every part takes, typing or not. Ctrl-L redraws, as in a shell, vim, less and tmux:
/// for the day a terminal shows something the phone did not draw (a width it disagreed on,
/// another program's output), it clears the terminal and sends every cell again.
pub(crate) fn everywhere() -> Vec<(Chord, Action)> {
    vec![(Chord::ctrl('l'), Action::Redraw)]
}

impl Keymap {
    /// The default keys of `parts`: every room's and what floats, handed in from above
    /// (`screens::key_parts`), so the keymap names no room.
    pub(crate) fn defaults(parts: &[Context]) -> Self {
        let bindings = parts
            .iter()
            .map(|&context| {
                let mut list = (context.0.bindings)();
                for (chord, action) in everywhere() {
                    if !list.iter().any(|(c, _)| *c == chord) {
                        list.push((chord, action));
                    }
                }
                (context, list)
            })
            .collect::<BTreeMap<_, _>>();
        let way_out = bindings
            .iter()
            .filter_map(|(context, list)| {
                let (_, action) = list.iter().find(|(c, _)| *c == WAY_OUT)?;
                Some((*context, *action))
            })
            .collect();
        Self {
            bindings,
            way_out,
            order: parts.to_vec(),
        }
    }

    /// The defaults with the config's `[keys]` applied, `overrides` in the file's order: each
    /// action gets exactly the given keys wherever it had keys before. Where letters are typed
    /// a plain character stays text (an action given only such keys keeps its built-in ones
    /// there), and [`WAY_OUT`] keeps its action. A key that would then do two things in one part
    /// is a [`Clash`], told against the later of the two in the file.
    pub(crate) fn with_overrides(
        parts: &[Context],
        overrides: &[(Action, Vec<Chord>)],
    ) -> Result<Self, Vec<Clash>> {
        let mut keymap = Self::defaults(parts);
        for (action, chords) in overrides {
            let action = *action;
            for (context, list) in &mut keymap.bindings {
                let Some(at) = list.iter().position(|(_, a)| *a == action) else {
                    continue;
                };
                let keys: Vec<Chord> = chords
                    .iter()
                    .filter(|chord| !(context.takes_typing() && chord.is_text()))
                    .copied()
                    .collect();
                if keys.is_empty() {
                    continue;
                }
                list.retain(|(_, a)| *a != action);
                let at = at.min(list.len());
                for (offset, chord) in keys.into_iter().enumerate() {
                    list.insert(at + offset, (chord, action));
                }
            }
        }
        let clashes = keymap.clashes(overrides);
        if clashes.is_empty() {
            Ok(keymap)
        } else {
            Err(clashes)
        }
    }

    /// Every key of `overrides` that does something else too in a part where its action is,
    /// once per action, key and other action.
    fn clashes(&self, overrides: &[(Action, Vec<Chord>)]) -> Vec<Clash> {
        let later =
            |index: usize, holder: Action| overrides[index + 1..].iter().any(|(a, _)| *a == holder);
        let mut clashes: Vec<Clash> = Vec::new();
        for (index, (action, chords)) in overrides.iter().enumerate() {
            // In the order the rooms hand their parts in, so a refusal names the part a
            // person meets first (Home before a card).
            for (context, list) in self
                .order
                .iter()
                .filter_map(|c| Some((c, self.bindings.get(c)?)))
            {
                if !list.iter().any(|(_, a)| a == action) {
                    continue;
                }
                for chord in chords {
                    let holder = match self.way_out.get(context) {
                        Some(way) if *chord == WAY_OUT => Some(*way).filter(|way| way != action),
                        // Two overrides with one key: told at the later one.
                        _ => list
                            .iter()
                            .find(|(c, a)| c == chord && a != action && !later(index, *a))
                            .map(|(_, a)| *a),
                    };
                    let Some(holder) = holder else {
                        continue;
                    };
                    let clash = Clash {
                        action: *action,
                        chord: *chord,
                        holder,
                        context: *context,
                    };
                    // One refusal per key the file gives, naming the first part it clashes in.
                    if !clashes
                        .iter()
                        .any(|c| (c.action, c.chord) == (clash.action, clash.chord))
                    {
                        clashes.push(clash);
                    }
                }
            }
        }
        clashes
    }

    /// Every part keys are read in, in the order of their ids.
    pub fn contexts(&self) -> impl Iterator<Item = Context> + '_ {
        self.bindings.keys().copied()
    }

    /// The action of a key in a context; releases and unbound keys give none.
    pub(crate) fn action(&self, context: Context, key: &KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let chord = Chord::of(key);
        if chord == WAY_OUT
            && let Some(way) = self.way_out.get(&context)
        {
            return Some(*way);
        }
        self.bindings
            .get(&context)?
            .iter()
            .find(|(c, _)| *c == chord)
            .map(|(_, a)| *a)
    }

    /// The keys of an action in a context, for hints on screen ("R retries").
    pub(crate) fn keys_for(&self, context: Context, action: Action) -> Vec<Chord> {
        self.bindings
            .get(&context)
            .map(|list| {
                list.iter()
                    .filter(|(_, a)| *a == action)
                    .map(|(c, _)| *c)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The first key of an action as text, or "?" hints would be wrong to show.
    pub(crate) fn key_label(&self, context: Context, action: Action) -> Option<String> {
        self.keys_for(context, action).first().map(Chord::to_string)
    }

    /// The help of a context: one line per action with all its keys, in table order.
    pub fn help(&self, context: Context) -> Vec<(String, String)> {
        self.help_where(context, |_| true)
    }

    /// The help of a context, listing only the actions `shown` keeps (a Collie pane does not
    /// list the keys of a DSH bridge's tasks, nor a task the keys of a Collie pane).
    pub(crate) fn help_where(
        &self,
        context: Context,
        shown: impl Fn(Action) -> bool,
    ) -> Vec<(String, String)> {
        let mut lines: Vec<(Action, Vec<String>)> = Vec::new();
        for (chord, action) in self
            .bindings
            .get(&context)
            .into_iter()
            .flatten()
            .filter(|(_, action)| shown(*action))
        {
            match lines.iter_mut().find(|(a, _)| a == action) {
                Some((_, keys)) => keys.push(chord.to_string()),
                None => lines.push((*action, vec![chord.to_string()])),
            }
        }
        // The way out is listed with its action even where the file gave that action other keys.
        if let Some(way) = self.way_out.get(&context).filter(|way| shown(**way)) {
            match lines.iter_mut().find(|(a, _)| a == way) {
                Some((_, keys)) if keys.contains(&WAY_OUT.to_string()) => {}
                Some((_, keys)) => keys.push(WAY_OUT.to_string()),
                None => lines.push((*way, vec![WAY_OUT.to_string()])),
            }
        }
        lines
            .into_iter()
            .map(|(action, keys)| (keys.join(" "), action.describe_in(context)))
            .collect()
    }
}
