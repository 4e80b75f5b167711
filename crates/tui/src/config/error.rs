//! What is wrong with a config file, said the way a compiler says it: `FILE:LINE:COLUMN:`, then
//! what kind of wrong (not TOML, an unknown key, a value that is not valid) and what would be.

use std::fmt;
use std::ops::Range;

/// A place in the config file, shown as `FILE:LINE:COLUMN` (both counted from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
}

impl Place {
    /// The place where `span` (byte offsets into `text`) starts.
    pub(crate) fn of(file: &str, text: &str, span: &Range<usize>) -> Self {
        let start = floor_char_boundary(text, span.start);
        let before = &text[..start];
        let line_start = before.rfind('\n').map_or(0, |at| at + 1);
        Self {
            file: file.to_string(),
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// The nearest char boundary at or before `at`, so a span from the parser never splits a
/// character of the text.
fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// What would have been right, after a refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Hint {
    /// The known word nearest to the one written.
    DidYouMean(String),
    /// Every word that is known here (when none is near).
    OneOf(Vec<String>),
    /// Why, in the words of the part that refused it.
    Because(String),
}

/// Where a key sits: at the top of the file, or in a `[section]` such as `[agents.laptop]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section(pub Vec<String>);

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, " in [{}]", self.0.join("."))
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {file}: {why}")]
    Read { file: String, why: String },
    /// SPEC S8, S9: the config, or its folder, is not the person's own.
    #[error("the config file is not read: {}", .0.with_fix())]
    NotYours(crate::transport::NotPrivate),
    #[error("{at}: not valid TOML: {why}")]
    Syntax { at: Place, why: String },
    #[error("{0}")]
    UnknownKey(Box<UnknownKey>),
    #[error("{0}")]
    BadValue(Box<BadValue>),
    /// SPEC S1: a socket path of the wrong shape (not absolute, too long, `.` or `..`). The same
    /// path after `--socket` is a usage error, so in the file it is one too ([`Self::is_usage`]).
    #[error("{0}")]
    BadSocket(Box<BadValue>),
    /// A refusal the parser could not tie to one key (kept in its words).
    #[error("{at}: {why}")]
    Other { at: Place, why: String },
    /// Every refusal of one run, in file order, a line each.
    #[error("{}", several(.0))]
    Several(Vec<ConfigError>),
}

impl ConfigError {
    /// Where in the file it is, when it is in one place.
    pub(crate) fn place(&self) -> Option<&Place> {
        match self {
            Self::Syntax { at, .. } | Self::Other { at, .. } => Some(at),
            Self::UnknownKey(unknown) => Some(&unknown.at),
            Self::BadValue(bad) | Self::BadSocket(bad) => Some(&bad.at),
            Self::Read { .. } | Self::NotYours(_) | Self::Several(_) => None,
        }
    }

    /// True when the file holds what the command line refuses as a usage error (exit 2): a
    /// socket path of the wrong shape, so one mistake gets one answer wherever it is written.
    pub fn is_usage(&self) -> bool {
        match self {
            Self::BadSocket(_) => true,
            Self::Several(errors) => errors.iter().all(Self::is_usage),
            _ => false,
        }
    }
}

fn several(errors: &[ConfigError]) -> String {
    let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
    format!(
        "{}\n({} in the file)",
        lines.join("\n"),
        crate::out::count(errors.len(), "error", "errors")
    )
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: unknown key \"{key}\"{section}{}", unknown_key_hint(.hint))]
pub struct UnknownKey {
    pub(crate) at: Place,
    pub(crate) section: Section,
    pub(crate) key: String,
    pub(crate) hint: Hint,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {key} = {written}{section} is not a valid value{}", value_hint(.hint))]
pub struct BadValue {
    pub(crate) at: Place,
    pub(crate) section: Section,
    pub(crate) key: String,
    /// The value as it is written in the file (`"loud"`, `3`, `["q", "ctrl-"]`).
    pub(crate) written: String,
    pub(crate) hint: Hint,
}

fn unknown_key_hint(hint: &Hint) -> String {
    match hint {
        Hint::DidYouMean(near) => format!("; did you mean \"{near}\"?"),
        Hint::OneOf(known) if known.is_empty() => "; nothing is known here".to_string(),
        Hint::OneOf(known) => format!("; the known keys are: {}", known.join(", ")),
        Hint::Because(why) => format!(": {why}"),
    }
}

fn value_hint(hint: &Hint) -> String {
    match hint {
        Hint::DidYouMean(near) => format!("; did you mean \"{near}\"?"),
        Hint::OneOf(known) => format!("; use one of: {}", known.join(", ")),
        Hint::Because(why) => format!(": {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_count_lines_and_characters_from_one() {
        let text = "a = 1\nbé = 2\n";
        let at = |start: usize| Place::of("c.toml", text, &(start..start)).to_string();
        assert_eq!(at(0), "c.toml:1:1");
        assert_eq!(at(6), "c.toml:2:1");
        // The column counts characters, not bytes: `=` after "bé " is the fourth.
        assert_eq!(at(10), "c.toml:2:4");
        assert_eq!(at(999), "c.toml:3:1");
    }
}
