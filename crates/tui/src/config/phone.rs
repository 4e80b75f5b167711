//! The phone's part of the config file, checked: the `[keys]` overrides and the theme, each
//! refusal naming its line (how it rings is `rings`).

use std::collections::BTreeMap;

use toml::Spanned;

use super::error::{BadValue, ConfigError, Hint, Place, Section};
use super::explain::Source;
use super::file::Keys;
use crate::app::keymap::{Action, Chord, Clash, Keymap};
use crate::look::theme::{AUTO, BUILTIN_THEMES, Background, Theme, ThemeError};

/// The default keymap with `[keys]` applied; an action name that is not one is an unknown key,
/// a key that does not parse a bad value, and so is a key that would do two things in one part
/// of the phone, or take Ctrl-C from its action ([`Clash`]): a person's way out never goes.
pub(super) fn keymap(
    source: &Source<'_>,
    keys: &BTreeMap<Spanned<String>, Spanned<Keys>>,
) -> Result<Keymap, ConfigError> {
    let section = || vec!["keys".to_string()];
    let bad_value = |name: &Spanned<String>, chords: &Spanned<Keys>, why: String| {
        ConfigError::BadValue(Box::new(BadValue {
            at: source.place(&chords.span()),
            section: Section(section()),
            key: name.get_ref().clone(),
            written: source.written(&chords.span()),
            hint: Hint::Because(why),
        }))
    };
    // In the file's order, so a clash between two lines is told at the later one.
    let mut lines: Vec<_> = keys.iter().collect();
    lines.sort_by_key(|(name, _)| name.span().start);
    let mut overrides = Vec::new();
    for (name, chords) in &lines {
        let Some(action) = Action::from_name(name.get_ref()) else {
            return Err(source.unknown_key(&name.span(), section(), name.get_ref().clone()));
        };
        let parsed = chords
            .get_ref()
            .list()
            .iter()
            .map(|chord| Chord::parse(chord))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|why| bad_value(name, chords, why))?;
        overrides.push((action, parsed));
    }
    Keymap::with_overrides(&crate::screens::key_parts(), &overrides).map_err(|clashes| {
        let mut errors: Vec<ConfigError> = clashes
            .iter()
            .filter_map(|clash| {
                let (name, chords) = lines
                    .iter()
                    .zip(&overrides)
                    .find(|(_, (action, _))| *action == clash.action)
                    .map(|(line, _)| *line)?;
                Some(bad_value(name, chords, clash_words(clash)))
            })
            .collect();
        match errors.len() {
            1 => errors.remove(0),
            _ => ConfigError::Several(errors),
        }
    })
}

/// Why a key of `[keys]` is refused, with what to do instead.
fn clash_words(clash: &Clash) -> String {
    let (action, holder, part) = (
        clash.action.name(),
        clash.holder.name(),
        clash.context.title(),
    );
    if clash.is_way_out() {
        format!(
            "{} always does {holder} in \"{part}\", whatever the file says, so a person can \
             always get out; give {action} another key",
            clash.chord
        )
    } else {
        format!(
            "{} already does {holder} in \"{part}\", and one key does one thing there; give \
             {action} another key, or give {holder} others ({holder} = \"…\")",
            clash.chord
        )
    }
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
