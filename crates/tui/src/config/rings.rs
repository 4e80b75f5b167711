//! The config's `notify`: the older string (`notify = "osc9"`), or the `[notify]` table of
//! rings (docs/CONFIG.md, "Rings"): how the full signal sounds (`style`), how loud each event
//! is, and the person's own command with its wait and time limit. Read here into the phone's
//! style and the model's [`Rules`], each refusal naming its line.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use toml::Spanned;

use super::error::{BadValue, ConfigError, Hint, Section};
use super::explain::Source;
use crate::app::notify::NotifyStyle;
use crate::model::rings::{Loudness, Rules};

/// `notify` as written: a style's name, or a table.
#[derive(Debug)]
pub(crate) enum NotifyEntry {
    Style(Spanned<String>),
    Table(Box<NotifyTable>),
}

/// `[notify]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct NotifyTable {
    pub(crate) style: Option<Spanned<String>>,
    pub(crate) command: Option<Spanned<Vec<String>>>,
    pub(crate) after: Option<u64>,
    pub(crate) limit: Option<Spanned<u64>>,
    pub(crate) new_ask: Option<Spanned<String>>,
    pub(crate) expiring: Option<Spanned<String>>,
    pub(crate) turn_ended: Option<Spanned<String>>,
    pub(crate) reachability: Option<Spanned<String>>,
}

impl<'de> Deserialize<'de> for NotifyEntry {
    /// A string (its place kept) or a table, each read by its own rules, so an unknown key
    /// inside the table is refused at its line as any other is.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<StringOr>::deserialize(deserializer)?;
        let span = spanned.span();
        Ok(match spanned.into_inner() {
            StringOr::Text(text) => NotifyEntry::Style(Spanned::new(span, text)),
            StringOr::Entry(entry) => entry,
        })
    }
}

/// What `notify` holds before its span is put back on a string.
enum StringOr {
    Text(String),
    Entry(NotifyEntry),
}

impl<'de> Deserialize<'de> for StringOr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> Visitor<'de> for Either {
            type Value = StringOr;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a way to ring such as \"bell\", or a [notify] table")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<StringOr, E> {
                Ok(StringOr::Text(text.to_string()))
            }

            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<StringOr, M::Error> {
                NotifyTable::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|table| StringOr::Entry(NotifyEntry::Table(Box::new(table))))
            }
        }
        deserializer.deserialize_any(Either)
    }
}

/// How the full signal sounds and the rules of rings: the table's, the string's style with the
/// default rules, or by the older `bell` when `notify` is not there.
pub(super) fn read(
    source: &Source<'_>,
    notify: Option<&NotifyEntry>,
    bell: bool,
) -> Result<(NotifyStyle, Rules), ConfigError> {
    let by_bell = if bell {
        NotifyStyle::Bell
    } else {
        NotifyStyle::Off
    };
    let table = match notify {
        None => return Ok((by_bell, Rules::default())),
        Some(NotifyEntry::Style(style)) => {
            return Ok((self::style(source, style, &[])?, Rules::default()));
        }
        Some(NotifyEntry::Table(table)) => table,
    };
    let section = ["notify".to_string()];
    let style = match &table.style {
        Some(style) => self::style(source, style, &section)?,
        None => by_bell,
    };
    let mut rules = Rules::default();
    for (written, slot) in [
        (&table.new_ask, &mut rules.new_ask),
        (&table.expiring, &mut rules.expiring),
        (&table.turn_ended, &mut rules.turn_ended),
        (&table.reachability, &mut rules.reachability),
    ] {
        if let Some(written) = written {
            *slot = Loudness::from_name(written.get_ref()).ok_or_else(|| {
                bad(
                    source,
                    written.span(),
                    &section,
                    key_at(source, written.span()),
                    Hint::OneOf(Loudness::ALL.iter().map(|l| l.name().to_string()).collect()),
                )
            })?;
        }
    }
    if let Some(command) = &table.command {
        if command
            .get_ref()
            .first()
            .is_none_or(|program| program.trim().is_empty())
        {
            return Err(bad(
                source,
                command.span(),
                &section,
                "command".into(),
                Hint::Because(
                    "the command is a list of words, its program first, such as [\"notify-send\", \"Collie\"]"
                        .into(),
                ),
            ));
        }
        rules.command = command.get_ref().clone();
    }
    if let Some(after) = table.after {
        rules.after = after;
    }
    if let Some(limit) = &table.limit {
        if *limit.get_ref() == 0 {
            return Err(bad(
                source,
                limit.span(),
                &section,
                "limit".into(),
                Hint::Because("a run needs at least 1 second".into()),
            ));
        }
        rules.limit = *limit.get_ref();
    }
    Ok((style, rules))
}

/// The key written before `span` on its line (the event keys share one check).
fn key_at(source: &Source<'_>, span: std::ops::Range<usize>) -> String {
    let line_start = source.text[..span.start].rfind('\n').map_or(0, |at| at + 1);
    source.text[line_start..span.start]
        .split('=')
        .next()
        .unwrap_or_default()
        .trim()
        .to_string()
}

fn style(
    source: &Source<'_>,
    style: &Spanned<String>,
    section: &[String],
) -> Result<NotifyStyle, ConfigError> {
    NotifyStyle::from_name(style.get_ref()).ok_or_else(|| {
        let key = if section.is_empty() {
            "notify"
        } else {
            "style"
        };
        bad(
            source,
            style.span(),
            section,
            key.into(),
            Hint::OneOf(
                NotifyStyle::ALL
                    .iter()
                    .map(|style| style.name().to_string())
                    .collect(),
            ),
        )
    })
}

fn bad(
    source: &Source<'_>,
    span: std::ops::Range<usize>,
    section: &[String],
    key: String,
    hint: Hint,
) -> ConfigError {
    ConfigError::BadValue(Box::new(BadValue {
        at: source.place(&span),
        section: Section(section.to_vec()),
        key,
        written: source.written(&span),
        hint,
    }))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::Config;
    use crate::app::notify::NotifyStyle;
    use crate::model::rings::{Loudness, Rules};

    fn parse(text: &str) -> Result<Config, super::super::ConfigError> {
        Config::parse(Path::new("config.toml"), text)
    }

    fn refusal(text: &str) -> String {
        match parse(text) {
            Ok(_) => panic!("accepted: {text}"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn the_notify_table_sets_each_event_the_command_and_its_times() {
        let config = parse(
            r#"
            [notify]
            style = "osc777"
            command = ["ntfy", "publish", "mytopic"]
            after = 45
            limit = 5
            new-ask = "quiet"
            turn-ended = "ring"
            reachability = "off"
            "#,
        )
        .expect("parses");
        let settings = config.settings();
        assert_eq!(settings.notify, NotifyStyle::Osc777);
        assert_eq!(
            settings.rings,
            Rules {
                new_ask: Loudness::Quiet,
                expiring: Loudness::Ring,
                turn_ended: Loudness::Ring,
                reachability: Loudness::Off,
                command: vec!["ntfy".into(), "publish".into(), "mytopic".into()],
                after: 45,
                limit: 5,
            }
        );
    }

    #[test]
    fn the_old_string_still_reads_with_the_default_rules() {
        let config = parse(r#"notify = "osc9""#).expect("parses");
        assert_eq!(config.settings().notify, NotifyStyle::Osc9);
        assert_eq!(config.settings().rings, Rules::default());
        // A table without a style keeps the older `bell`.
        let config = parse("bell = false\n[notify]\nafter = 10\n").expect("parses");
        assert_eq!(config.settings().notify, NotifyStyle::Off);
        assert_eq!(config.settings().rings.after, 10);
    }

    #[test]
    fn a_bad_word_in_notify_is_refused_at_its_line() {
        assert_eq!(
            refusal("[notify]\nnew-ask = \"loud\"\n"),
            r#"config.toml:2:11: new-ask = "loud" in [notify] is not a valid value; use one of: ring, quiet, off"#
        );
        assert_eq!(
            refusal("[notify]\nstyle = \"loud\"\n"),
            r#"config.toml:2:9: style = "loud" in [notify] is not a valid value; use one of: bell, osc9, osc777, off"#
        );
        let refused = refusal("[notify]\ncomand = [\"x\"]\n");
        assert!(refused.starts_with("config.toml:2:1: "), "{refused}");
        assert!(refused.contains("did you mean \"command\""), "{refused}");
        let refused = refusal("[notify]\ncommand = []\n");
        assert!(refused.contains("its program first"), "{refused}");
        let refused = refusal("[notify]\ncommand = \"ntfy publish x\"\n");
        assert!(refused.starts_with("config.toml:2:11: "), "{refused}");
    }
}
