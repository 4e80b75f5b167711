//! What the phone knows of the terminal it runs in and keeps for its keys: whether it takes the
//! mouse (`app::mouse`), and whether tmux lets a copy's OSC 52 through (docs/KEYS.md, "Copy").

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminalFacts {
    /// The phone takes the mouse (the config's `mouse`, and `M` while it runs).
    pub(crate) mouse: bool,
    /// The phone runs in tmux whose `set-clipboard` is not `on`: tmux drops the OSC 52 a copy
    /// writes, so a copy says the line that lets it through.
    pub(crate) tmux_keeps_clipboard: bool,
}
