//! What the config file says about the phone itself, as one value: the keymap, how a new ask is
//! announced and whether the phone takes the mouse (docs/CONFIG.md). The config reads it once
//! (`Config::settings`); the app starts from it and nothing else carries a piece of it.

use super::keymap::Keymap;
use super::notify::NotifyStyle;

/// The phone's settings. Their default (the config file's defaults, with every room's keys) is
/// made where the rooms are listed, `screens/mod.rs`.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The default keys with the file's `[keys]` applied.
    pub keymap: Keymap,
    /// How the full signal sounds in the terminal (`notify`, or `[notify]`'s `style`; an older
    /// `bell = false` reads as off).
    pub notify: NotifyStyle,
    /// How loud each event is and the person's own command (`[notify]`).
    pub rings: crate::model::rings::Rules,
    /// Whether the phone takes the mouse at its start (`mouse`).
    pub mouse: bool,
}
