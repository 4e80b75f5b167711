//! The config file (`$XDG_CONFIG_HOME/collie-phone/config.toml`, docs/CONFIG.md), read once at
//! the start of each command that needs it and checked whole: unknown keys are refused at every
//! level with the file, the line and the nearest known key, and a value that is not valid is
//! called that. The typed parts go on to where they are used: the agents and DSH bridges to
//! dial, the theme, the way new asks are announced and the keymap.
//!
//! Layer: just below `cli`. It uses the types of the layers under it (the theme list, the
//! keymap, the bridge URL); nothing under it imports it.

mod dial;
mod error;
mod explain;
mod file;
mod phone;
mod rings;
mod theme_file;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use dial::{AcpEntry, AgentEntry, DshEntry, resolve_agents, resolve_bridges, ssh_entries};
pub use error::ConfigError;
pub(crate) use error::Place;
use error::{BadValue, Hint, Section};
pub use theme_file::theme_from_env;

use crate::app::settings::Settings;
use crate::look::theme::{Background, Theme};
use crate::transport::own_files;
use explain::Source;
use file::RawFile;
use phone::ThemeSetting;

/// Everything the config file says, checked.
#[derive(Debug, Clone)]
pub struct Config {
    path: PathBuf,
    theme: Option<ThemeSetting>,
    /// The phone's own settings: keys, how asks are announced (an older `bell` folded in
    /// here, once), the mouse.
    settings: Settings,
    /// `[agents.NAME]`, by name.
    pub agents: BTreeMap<String, AgentEntry>,
    /// `[dsh.NAME]`, by name (SPEC D1).
    pub dsh: BTreeMap<String, DshEntry>,
    /// `[acp.NAME]`, by name: the ACP agents `collie-phone agent` may host.
    pub acp: BTreeMap<String, AcpEntry>,
}

/// The default config path, under the person's own home (SPEC S8).
pub fn default_path() -> Result<PathBuf, ConfigError> {
    own_files::config_dir()
        .map(|folder| folder.join("config.toml"))
        .map_err(ConfigError::NotYours)
}

/// Most refusals told in one run: past these, the rest of the file is not worth reading.
const MOST_ERRORS: usize = 20;

/// The file read by serde, with every refusal it makes in one run, in file order: serde stops
/// at its first refusal (not always the first in the file), so the `key = value` it refused is
/// blanked out (with spaces, so every place stays where it is) and the text read again, until
/// it reads or a refusal cannot be tied to one key.
fn read_all(source: &Source<'_>) -> Result<RawFile, ConfigError> {
    let mut errors = Vec::new();
    let mut text = source.text.to_string();
    loop {
        let error = match toml::from_str::<RawFile>(&text) {
            Ok(raw) if errors.is_empty() => return Ok(raw),
            Ok(_) => break,
            // A field missing once a key was blanked may be that key, mistyped: it was told.
            Err(error) if !errors.is_empty() && error.message().starts_with("missing field") => {
                break;
            }
            Err(error) => error,
        };
        let Ok(table) = toml::de::DeTable::parse(&text) else {
            break;
        };
        // Places and written values come from the file as it is; the blanked text keeps its
        // offsets, so its spans are the file's.
        let now = Source {
            file: source.file,
            text: source.text,
            table: table.get_ref(),
        };
        let (refusal, whole) = now.explain(&error);
        errors.push(refusal);
        match whole {
            Some(whole) if errors.len() < MOST_ERRORS && !text[whole.clone()].trim().is_empty() => {
                let blank: String = text[whole.clone()]
                    .chars()
                    .map(|c| match c {
                        '\n' => "\n".to_string(),
                        c => " ".repeat(c.len_utf8()),
                    })
                    .collect();
                text.replace_range(whole, &blank);
            }
            _ => break,
        }
    }
    errors.sort_by_key(|error| error.place().map(|at| (at.line, at.column)));
    errors.dedup();
    match errors.len() {
        1 => Err(errors.remove(0)),
        _ => Err(ConfigError::Several(errors)),
    }
}

/// SPEC S1: every `socket = PATH` of `[agents.NAME]` has the shape a socket path must have
/// (absolute, short enough, no `.` or `..`), checked as `--socket` checks it, so a path that
/// can never be dialled is refused at its line at once rather than waited for.
fn check_sockets(
    source: &Source<'_>,
    agents: &BTreeMap<String, AgentEntry>,
) -> Result<(), ConfigError> {
    let mut errors: Vec<ConfigError> = agents
        .iter()
        .filter_map(|(name, entry)| {
            let path = entry.socket.as_ref()?;
            let refused = crate::transport::privacy::check_shape(path).err()?;
            let span = source
                .value_span(&["agents", name, "socket"])
                .unwrap_or(0..0);
            Some(ConfigError::BadSocket(Box::new(BadValue {
                at: source.place(&span),
                section: Section(vec!["agents".into(), name.clone()]),
                key: "socket".into(),
                written: source.written(&span),
                // The command line's fix names the current folder; the file is read from any
                // folder, so here the fix is only the rule.
                hint: Hint::Because(if path.is_relative() {
                    format!("{}; write the whole path from /", refused.why)
                } else {
                    refused.why
                }),
            })))
        })
        .collect();
    errors.sort_by_key(|error| error.place().map(|at| (at.line, at.column)));
    match errors.len() {
        0 => Ok(()),
        1 => Err(errors.remove(0)),
        _ => Err(ConfigError::Several(errors)),
    }
}

impl Config {
    /// Reads and checks the file at `path`; a missing file is the defaults.
    pub fn read(path: &Path) -> Result<Self, ConfigError> {
        let file = path.display().to_string();
        match std::fs::read_to_string(path) {
            // SPEC S9: a config names token files and starts commands as the person, so one
            // that someone else wrote, or could change, is not read.
            Ok(text) => {
                own_files::check_own_file(path).map_err(ConfigError::NotYours)?;
                Self::parse(path, &text)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Self::parse(path, ""),
            Err(e) => Err(ConfigError::Read {
                file,
                why: e.to_string(),
            }),
        }
    }

    /// Checks `text` as the config file at `path` (named in every refusal).
    pub(crate) fn parse(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let file = path.display().to_string();
        let table = toml::de::DeTable::parse(text).map_err(|error| ConfigError::Syntax {
            at: Place::of(&file, text, &error.span().unwrap_or(0..0)),
            why: error.message().to_string(),
        })?;
        let source = Source {
            file: &file,
            text,
            table: table.get_ref(),
        };
        let raw = read_all(&source)?;
        check_sockets(&source, &raw.agents)?;
        let (notify, rings) = rings::read(&source, raw.notify.as_ref(), raw.bell.unwrap_or(true))?;
        let settings = Settings {
            keymap: phone::keymap(&source, &raw.keys)?,
            notify,
            rings,
            mouse: raw.mouse.unwrap_or(true),
        };
        Ok(Self {
            path: path.to_path_buf(),
            theme: raw.theme.as_ref().map(|t| ThemeSetting::new(&source, t)),
            settings,
            agents: raw.agents,
            dsh: raw.dsh,
            acp: raw.acp,
        })
    }

    /// The file this config was read from (or would have been).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's theme, honouring NO_COLOR, when the file names one (`auto` asks
    /// `background`); a theme that cannot be loaded is refused with the line of `theme`.
    pub fn theme(
        &self,
        background: impl FnOnce() -> Background,
    ) -> Option<Result<Theme, ConfigError>> {
        self.theme.as_ref().map(|setting| setting.load(background))
    }

    /// The phone's settings: the keymap with `[keys]` applied, how new asks are announced
    /// (`notify`, else by `bell`), and whether the phone takes the mouse (true when absent).
    pub fn settings(&self) -> &Settings {
        &self.settings
    }
}

#[cfg(test)]
mod tests;
