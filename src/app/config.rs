//! The phone's part of the config file (`$XDG_CONFIG_HOME/collie-phone/config.toml`): the
//! theme, how new asks are announced (`notify`, or the older `bell`) and the `[keys]` overrides. The `[agents]` section belongs to the engine.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::notify::NotifyStyle;

/// One or several keys for an action: `quit = "q"` or `quit = ["q", "ctrl-q"]`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Keys {
    One(String),
    Many(Vec<String>),
}

impl Keys {
    pub fn list(&self) -> Vec<String> {
        match self {
            Keys::One(key) => vec![key.clone()],
            Keys::Many(keys) => keys.clone(),
        }
    }
}

/// What the phone reads from the config file.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct PhoneConfig {
    /// A built-in theme name (dark, light, high-contrast) or a path to a theme file.
    pub theme: Option<String>,
    /// Ring the terminal bell when a new ask arrives; `false` means no announcement at all
    /// unless `notify` says otherwise.
    pub bell: bool,
    /// How a new ask is announced: "bell", "osc9", "osc777" or "off".
    pub notify: Option<NotifyStyle>,
    /// Action name → keys, replacing that action's default keys.
    pub keys: BTreeMap<String, Keys>,
}

impl Default for PhoneConfig {
    fn default() -> Self {
        Self {
            theme: None,
            bell: true,
            notify: None,
            keys: BTreeMap::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PhoneConfigError {
    #[error("cannot read {0}: {1}")]
    Read(String, String),
    #[error("{0} is not valid TOML: {1}")]
    Toml(String, String),
}

impl PhoneConfig {
    /// Reads the config file; a missing file is the defaults.
    pub fn read(path: &Path) -> Result<Self, PhoneConfigError> {
        let shown = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(PhoneConfigError::Read(shown, e.to_string())),
        };
        Self::parse(&text).map_err(|why| PhoneConfigError::Toml(shown, why))
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    /// How new asks are announced: `notify` when set (it is the newer, more precise word),
    /// else the bell, or nothing under `bell = false`.
    pub fn notify_style(&self) -> NotifyStyle {
        match (self.notify, self.bell) {
            (Some(style), _) => style,
            (None, true) => NotifyStyle::Bell,
            (None, false) => NotifyStyle::Off,
        }
    }

    /// The `[keys]` overrides as lists.
    pub fn key_overrides(&self) -> BTreeMap<String, Vec<String>> {
        self.keys
            .iter()
            .map(|(action, keys)| (action.clone(), keys.list()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_theme_bell_and_keys_next_to_agents() {
        let config = PhoneConfig::parse(
            r#"
            theme = "light"
            bell = false
            [keys]
            quit = "ctrl-q"
            retry = ["R", "ctrl-r"]
            [agents.laptop]
            socket = "/run/user/1000/a.sock"
            "#,
        )
        .expect("parses");
        assert_eq!(config.theme.as_deref(), Some("light"));
        assert!(!config.bell);
        assert_eq!(config.key_overrides()["retry"], vec!["R", "ctrl-r"]);
    }

    #[test]
    fn empty_file_is_the_defaults() {
        let config = PhoneConfig::parse("").expect("parses");
        assert!(config.bell);
        assert_eq!(config.notify_style(), NotifyStyle::Bell);
        assert!(config.keys.is_empty());
    }

    #[test]
    fn notify_picks_the_way_and_bell_false_still_means_off() {
        let style = |text: &str| PhoneConfig::parse(text).expect("parses").notify_style();
        assert_eq!(style(r#"notify = "osc9""#), NotifyStyle::Osc9);
        assert_eq!(style(r#"notify = "osc777""#), NotifyStyle::Osc777);
        assert_eq!(style(r#"notify = "off""#), NotifyStyle::Off);
        assert_eq!(style(r#"notify = "bell""#), NotifyStyle::Bell);
        assert_eq!(style("bell = false"), NotifyStyle::Off);
        assert_eq!(style("bell = false\nnotify = \"osc9\""), NotifyStyle::Osc9);
        assert!(PhoneConfig::parse(r#"notify = "siren""#).is_err());
    }
}
