//! Timestamps on the wire: ISO 8601 (RFC 3339) with a zone (SPEC A13).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Formats a moment as RFC 3339 in UTC, e.g. `2026-11-29T23:30:00Z`.
pub fn format(at: OffsetDateTime) -> String {
    at.format(&Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_string())
}

/// Parses an RFC 3339 timestamp; one without a zone is refused (SPEC A13).
pub fn parse(text: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(text, &Rfc3339).ok()
}

/// A moment an agent sent (an ask's `openedAt` or `expiresAt`, docs/WIRE.md): its text as sent,
/// kept for round trips and for `check`, which judges a malformed or zoneless one (SPEC A13),
/// and the moment parsed once, at decode, so no reader parses it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    text: String,
    at: Option<OffsetDateTime>,
}

impl Stamp {
    /// The stamp of a text as an agent wrote it, parsed here (SPEC A13: no zone, no moment).
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        let at = parse(&text);
        Self { text, at }
    }

    /// The stamp of a moment, written as [`format()`] writes it.
    pub fn of(at: OffsetDateTime) -> Self {
        Self::new(format(at))
    }

    /// The text as the agent sent it (after the wire's cleaning, SPEC L1).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The moment, or `None` when the text is not RFC 3339 with a zone (SPEC A13).
    pub fn at(&self) -> Option<OffsetDateTime> {
        self.at
    }

    /// The text, for the wire's cleaning (SPEC L1); the moment is parsed again only when the
    /// cleaning changed the text.
    pub(crate) fn clean(
        &mut self,
        max_bytes: usize,
        path: impl fmt::Display,
        report: &mut super::sanitize::Report,
    ) {
        let mut text = std::mem::take(&mut self.text);
        let changed = super::sanitize::clean(
            &mut text,
            max_bytes,
            super::sanitize::Lines::Single,
            path,
            report,
        );
        *self = if changed {
            Self::new(text)
        } else {
            Self { text, at: self.at }
        };
    }
}

impl fmt::Display for Stamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// On the wire a stamp is the JSON string the agent sent, unchanged.
impl Serialize for Stamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Stamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a13_zone_required() {
        assert!(parse("2026-11-29T23:30:00Z").is_some());
        assert!(parse("2026-11-29T23:30:00+08:00").is_some());
        assert!(parse("2026-11-29T23:30:00").is_none());
    }

    #[test]
    fn a13_stamp_keeps_a_zoneless_text_and_has_no_moment() {
        let stamp: Stamp = serde_json::from_str("\"2026-11-29T23:30:00\"").expect("decodes");
        assert_eq!(stamp.at(), None);
        assert_eq!(
            serde_json::to_string(&stamp).expect("encodes"),
            "\"2026-11-29T23:30:00\""
        );
        let zoned = Stamp::new("2026-11-29T23:30:00+08:00");
        assert_eq!(zoned.at(), parse("2026-11-29T23:30:00+08:00"));
        assert_eq!(zoned.text(), "2026-11-29T23:30:00+08:00");
    }

    #[test]
    fn l1_cleaning_a_stamp_parses_the_cleaned_text() {
        let mut stamp = Stamp::new("2026-11-29T23:30:00Z\u{200b}");
        assert_eq!(stamp.at(), None);
        let mut report = crate::wire::Report::default();
        stamp.clean(64, "expiresAt", &mut report);
        assert_eq!(stamp.text(), "2026-11-29T23:30:00Z");
        assert!(stamp.at().is_some());
        assert!(!report.is_empty());
    }
}
