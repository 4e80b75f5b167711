//! The config file's shape as serde reads it: every table refuses keys it does not know
//! (`deny_unknown_fields`), and the values checked after reading keep their place in the file
//! (`toml::Spanned`) so a refusal can name the line.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::dial::{AcpEntry, AgentEntry, DshEntry};

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFile {
    /// A built-in theme name or a path to a theme file; checked when the phone loads it.
    pub(crate) theme: Option<Spanned<String>>,
    /// The older switch for announcing new asks (`notify` wins when both are set).
    pub(crate) bell: Option<bool>,
    /// How the phone rings: a [`crate::app::notify::NotifyStyle`]'s name, or the `[notify]`
    /// table of rings.
    pub(crate) notify: Option<super::rings::NotifyEntry>,
    /// Whether the phone takes the mouse (wheel and clicks); false leaves the terminal's own
    /// selection working. The phone's key for it turns it on and off while it runs.
    pub(crate) mouse: Option<bool>,
    /// Action name → its keys, replacing the action's default keys.
    #[serde(default)]
    pub(crate) keys: BTreeMap<Spanned<String>, Spanned<Keys>>,
    #[serde(default)]
    pub(crate) agents: BTreeMap<String, AgentEntry>,
    /// DSH bridges by name (SPEC D1).
    #[serde(default)]
    pub(crate) dsh: BTreeMap<String, DshEntry>,
    /// ACP agents the host may start, by name.
    #[serde(default)]
    pub(crate) acp: BTreeMap<String, AcpEntry>,
}

/// The keys [`RawFile`] knows, for the suggestion after a refusal. A test holds the two together.
pub(super) const TOP_KEYS: [&str; 8] = [
    "theme", "bell", "notify", "mouse", "keys", "agents", "dsh", "acp",
];

/// The keys of `[notify]`, for the suggestion after a refusal.
pub(super) const NOTIFY_KEYS: [&str; 8] = [
    "style",
    "command",
    "after",
    "limit",
    "new-ask",
    "expiring",
    "turn-ended",
    "reachability",
];

/// One or several keys for an action: `quit = "q"` or `quit = ["q", "ctrl-q"]`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(
    untagged,
    expecting = "a key such as \"q\" or a list of keys such as [\"q\", \"ctrl-q\"]"
)]
pub(super) enum Keys {
    One(String),
    Many(Vec<String>),
}

impl Keys {
    pub(crate) fn list(&self) -> Vec<String> {
        match self {
            Keys::One(key) => vec![key.clone()],
            Keys::Many(keys) => keys.clone(),
        }
    }
}
