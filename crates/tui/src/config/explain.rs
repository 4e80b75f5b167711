//! Turns serde's refusal of the file into one that names the key: toml says only where
//! (`toml::de::Error::span()`) and, in English, what. The spanned table of the same text
//! (`toml::de::DeTable`) says which key sits there and in which section, so an unknown key is
//! told apart from a bad value by its place, not by reading serde's words back.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::dial::{AcpEntry, AgentEntry, DshEntry};
use super::error::{BadValue, ConfigError, Hint, Place, Section, UnknownKey};
use super::file::TOP_KEYS;
use crate::app::keymap::Action;

/// The file's text, its name as shown, and its spanned table.
pub(super) struct Source<'a> {
    pub(crate) file: &'a str,
    pub(crate) text: &'a str,
    pub(crate) table: &'a DeTable<'a>,
}

/// What sits at a span of the file.
#[derive(Debug, PartialEq)]
enum Found {
    Key {
        section: Vec<String>,
        key: String,
        whole: Range<usize>,
    },
    Value {
        section: Vec<String>,
        key: String,
        written: Range<usize>,
        whole: Range<usize>,
    },
}

impl Source<'_> {
    pub(crate) fn place(&self, span: &Range<usize>) -> Place {
        Place::of(self.file, self.text, span)
    }

    /// The value as written in the file.
    pub(crate) fn written(&self, span: &Range<usize>) -> String {
        self.text
            .get(span.clone())
            .unwrap_or_default()
            .trim()
            .to_string()
    }

    /// The span of the value at `path` (`["agents", "laptop", "socket"]`), when the file has
    /// one there.
    pub(crate) fn value_span(&self, path: &[&str]) -> Option<Range<usize>> {
        let (last, sections) = path.split_last()?;
        let mut table = self.table;
        for section in sections {
            table = table
                .iter()
                .find(|(key, _)| key.get_ref() == section)?
                .1
                .get_ref()
                .as_table()?;
        }
        table
            .iter()
            .find(|(key, _)| key.get_ref() == last)
            .map(|(_, value)| value.span())
    }

    /// serde's refusal of the file, as a config error, with the span of the whole `key =
    /// value` it is about when it is about one (so the rest of the file can be read without it).
    pub(crate) fn explain(&self, error: &toml::de::Error) -> (ConfigError, Option<Range<usize>>) {
        let Some(span) = error.span() else {
            return (
                ConfigError::Other {
                    at: self.place(&(0..0)),
                    why: error.message().to_string(),
                },
                None,
            );
        };
        match find(self.table, &span, &mut Vec::new()) {
            Some(Found::Key {
                section,
                key,
                whole,
            }) => (self.unknown_key(&span, section, key), Some(whole)),
            Some(Found::Value {
                section,
                key,
                written,
                whole,
            }) => (
                ConfigError::BadValue(Box::new(BadValue {
                    at: self.place(&span),
                    section: Section(section),
                    key,
                    written: self.written(&written),
                    hint: Hint::Because(error.message().to_string()),
                })),
                Some(whole),
            ),
            None => (
                ConfigError::Other {
                    at: self.place(&span),
                    why: error.message().to_string(),
                },
                None,
            ),
        }
    }

    /// An unknown key at `span`, with the nearest key known in its section.
    pub(crate) fn unknown_key(
        &self,
        span: &Range<usize>,
        section: Vec<String>,
        key: String,
    ) -> ConfigError {
        let known = known_keys(&section);
        ConfigError::UnknownKey(Box::new(UnknownKey {
            at: self.place(span),
            hint: nearest(&key, &known),
            section: Section(section),
            key,
        }))
    }
}

/// The keys a section knows: the top level's, an agent's, a bridge's, or the action names of
/// `[keys]`.
fn known_keys(section: &[String]) -> Vec<String> {
    let words: Vec<String> = match section {
        [] => TOP_KEYS.iter().map(ToString::to_string).collect(),
        [top, _] if top == "agents" => AgentEntry::KEYS.iter().map(ToString::to_string).collect(),
        [top, _] if top == "dsh" => DshEntry::KEYS.iter().map(ToString::to_string).collect(),
        [top, _] if top == "acp" => AcpEntry::KEYS.iter().map(ToString::to_string).collect(),
        [top] if top == "keys" => Action::names(),
        [top] if top == "notify" => super::file::NOTIFY_KEYS
            .iter()
            .map(ToString::to_string)
            .collect(),
        _ => Vec::new(),
    };
    words
}

/// The known word nearest to `word` when one is near (a typo: at most one edit in three
/// letters, as cargo counts), else all of them. The distance is strsim's Damerau–Levenshtein, so
/// a swap of two letters counts as one edit.
fn nearest(word: &str, known: &[String]) -> Hint {
    let near = known
        .iter()
        .map(|candidate| (strsim::damerau_levenshtein(word, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= candidate.chars().count().max(3) / 3)
        .min_by_key(|(distance, _)| *distance);
    match near {
        Some((_, candidate)) => Hint::DidYouMean(candidate.clone()),
        None => Hint::OneOf(known.to_vec()),
    }
}

/// The key at `span` (the span of the key itself), or the key whose value holds `span`.
/// Tables are searched first, as their inner keys are the more precise answer.
fn find(table: &DeTable<'_>, span: &Range<usize>, section: &mut Vec<String>) -> Option<Found> {
    for (key, value) in table {
        let whole = key.span().start..value.span().end.max(key.span().end);
        if key.span() == *span {
            return Some(Found::Key {
                section: section.clone(),
                key: key.get_ref().to_string(),
                whole,
            });
        }
        if let Some(inner) = value.get_ref().as_table() {
            section.push(key.get_ref().to_string());
            let found = find(inner, span, section);
            section.pop();
            if found.is_some() {
                return found;
            }
        } else if holds(value, span) {
            return Some(Found::Value {
                section: section.clone(),
                key: key.get_ref().to_string(),
                written: value.span(),
                whole,
            });
        }
    }
    None
}

fn holds(value: &Spanned<DeValue<'_>>, span: &Range<usize>) -> bool {
    let outer = value.span();
    outer.start <= span.start && span.end <= outer.end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_typo_gets_the_nearest_key_and_nonsense_gets_the_list() {
        let known = words(&TOP_KEYS);
        assert_eq!(nearest("thme", &known), Hint::DidYouMean("theme".into()));
        assert_eq!(nearest("agent", &known), Hint::DidYouMean("agents".into()));
        assert_eq!(nearest("nofity", &known), Hint::DidYouMean("notify".into()));
        assert_eq!(nearest("colour", &known), Hint::OneOf(known.clone()));
    }

    #[test]
    fn spans_find_keys_and_values_in_sections() {
        let text = "theme = \"x\"\n[agents.laptop]\nsockt = 1\n";
        let table = DeTable::parse(text).expect("parses");
        let find_at = |span: Range<usize>| find(table.get_ref(), &span, &mut Vec::new());
        assert_eq!(
            find_at(28..33),
            Some(Found::Key {
                section: words(&["agents", "laptop"]),
                key: "sockt".into(),
                whole: 28..37
            })
        );
        assert_eq!(
            find_at(8..11),
            Some(Found::Value {
                section: Vec::new(),
                key: "theme".into(),
                written: 8..11,
                whole: 0..11
            })
        );
        assert_eq!(find_at(5..6), None);
    }
}
