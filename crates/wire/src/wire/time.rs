//! Timestamps on the wire: ISO 8601 (RFC 3339) with a zone (SPEC A13).

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a13_zone_required() {
        assert!(parse("2026-11-29T23:30:00Z").is_some());
        assert!(parse("2026-11-29T23:30:00+08:00").is_some());
        assert!(parse("2026-11-29T23:30:00").is_none());
    }
}
