//! The phone's part of the config file, checked: how new asks are announced (`notify`, or the
//! older `bell`), the `[keys]` overrides and the theme, each refusal naming its line.

use std::collections::BTreeMap;

use toml::Spanned;

use super::error::{BadValue, ConfigError, Hint, Place, Section};
use super::explain::Source;
use super::file::Keys;
use crate::app::keymap::{Action, Chord, Keymap};
use crate::app::notify::NotifyStyle;
use crate::look::theme::{AUTO, BUILTIN_THEMES, Background, Theme, ThemeError};

/// How new asks are announced: `notify` when set (it is the newer, more precise word), else the
/// bell, or nothing under `bell = false`.
pub(super) fn notify_style(
    source: &Source<'_>,
    notify: Option<&Spanned<String>>,
    bell: bool,
) -> Result<NotifyStyle, ConfigError> {
    let Some(notify) = notify else {
        return Ok(if bell {
            NotifyStyle::Bell
        } else {
            NotifyStyle::Off
        });
    };
    NotifyStyle::from_name(notify.get_ref()).ok_or_else(|| {
        ConfigError::BadValue(Box::new(BadValue {
            at: source.place(&notify.span()),
            section: Section(Vec::new()),
            key: "notify".into(),
            written: source.written(&notify.span()),
            hint: Hint::OneOf(
                NotifyStyle::ALL
                    .iter()
                    .map(|style| style.name().to_string())
                    .collect(),
            ),
        }))
    })
}

/// The default keymap with `[keys]` applied; an action name that is not one is an unknown key,
/// a key that does not parse a bad value.
pub(super) fn keymap(
    source: &Source<'_>,
    keys: &BTreeMap<Spanned<String>, Spanned<Keys>>,
) -> Result<Keymap, ConfigError> {
    let section = || vec!["keys".to_string()];
    let mut overrides = Vec::new();
    for (name, chords) in keys {
        let Some(action) = Action::from_name(name.get_ref()) else {
            return Err(source.unknown_key(&name.span(), section(), name.get_ref().clone()));
        };
        let parsed = chords
            .get_ref()
            .list()
            .iter()
            .map(|chord| Chord::parse(chord))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|why| {
                ConfigError::BadValue(Box::new(BadValue {
                    at: source.place(&chords.span()),
                    section: Section(section()),
                    key: name.get_ref().clone(),
                    written: source.written(&chords.span()),
                    hint: Hint::Because(why),
                }))
            })?;
        overrides.push((action, parsed));
    }
    Ok(Keymap::with_overrides(
        &crate::screens::key_parts(),
        &overrides,
    ))
}

/// The file's `theme` with its place, loaded only when the phone opens (a theme may be a file
/// of its own, and `--theme` may stand in for it).
#[derive(Debug, Clone)]
pub(super) struct ThemeSetting {
    pub(crate) name: String,
    pub(crate) at: Place,
    pub(crate) written: String,
}

impl ThemeSetting {
    pub(crate) fn new(source: &Source<'_>, theme: &Spanned<String>) -> Self {
        Self {
            name: theme.get_ref().clone(),
            at: source.place(&theme.span()),
            written: source.written(&theme.span()),
        }
    }

    /// The theme, honouring NO_COLOR (`auto` by `background`); a name that is neither built
    /// in nor a file lists the built-in ones.
    pub(crate) fn load(
        &self,
        background: impl FnOnce() -> Background,
    ) -> Result<Theme, ConfigError> {
        crate::config::theme_from_env(Some(&self.name), background).map_err(|error| {
            let hint = match error {
                ThemeError::NotFound(_) => Hint::OneOf(
                    std::iter::once(&AUTO)
                        .chain(BUILTIN_THEMES.iter())
                        .map(ToString::to_string)
                        .chain(["the path of a theme file".to_string()])
                        .collect(),
                ),
                other => Hint::Because(other.to_string()),
            };
            ConfigError::BadValue(Box::new(BadValue {
                at: self.at.clone(),
                section: Section(Vec::new()),
                key: "theme".into(),
                written: self.written.clone(),
                hint,
            }))
        })
    }
}
