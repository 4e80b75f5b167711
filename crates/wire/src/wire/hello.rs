//! `GET /session/v1/hello` (SPEC H1, H2, V4).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::limits::{MAX_EPOCH, MAX_HOST_NAME, MAX_SHORT};
use super::sanitize::{Lines, Report, clean};

/// The one service name a durable agent answers with (SPEC H1).
pub const SERVICE: &str = "collie-durable";

/// The versions this program speaks, both as Collie and as the reference agent (SPEC V1).
pub const OUR_PROTOCOL: ProtocolRange = ProtocolRange { min: 1, max: 1 };

/// A range of wire versions, both ends included (SPEC H1, V1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtocolRange {
    pub min: u32,
    pub max: u32,
}

impl ProtocolRange {
    /// The highest version both ranges accept (SPEC H2), if they meet (SPEC V4).
    pub fn highest_common(self, other: ProtocolRange) -> Option<u32> {
        let low = self.min.max(other.min);
        let high = self.max.min(other.max);
        (low <= high && self.min <= self.max && other.min <= other.max).then_some(high)
    }

    pub fn contains(self, version: u32) -> bool {
        (self.min..=self.max).contains(&version)
    }
}

impl std::fmt::Display for ProtocolRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.min == self.max {
            write!(f, "v{}", self.min)
        } else {
            write!(f, "v{}–v{}", self.min, self.max)
        }
    }
}

/// Who the agent is (SPEC H1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Host {
    #[serde(default)]
    pub name: String,
}

/// The reply of `GET /hello` (SPEC H1). A missing cap is false.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    pub service: String,
    pub protocol: ProtocolRange,
    #[serde(default)]
    pub host: Host,
    pub epoch: String,
    pub ready: bool,
    #[serde(default)]
    pub caps: BTreeMap<String, bool>,
}

/// Names of the caps this project's agent and phone know (SPEC H1, A11).
pub mod caps {
    /// The agent may offer allow-always on permission asks (never over TLS: SPEC A11).
    pub const ALLOW_ALWAYS: &str = "allowAlways";
    /// `GET /conversations`, `/conversation/:id/items`, `POST /reopen` work.
    pub const HISTORY: &str = "history";
    /// The snapshot lists starters and `POST /starter/:id` works.
    pub const STARTERS: &str = "starters";
    /// Text sent while a turn runs waits for it to end and starts the next turn; it never
    /// steers the running one (an ACP agent behind the host has no steering).
    pub const QUEUE_SEND: &str = "queueSend";
    /// `POST /rename` works.
    pub const RENAME: &str = "rename";
    /// `POST /close` works.
    pub const CLOSE: &str = "close";
}

impl Hello {
    pub fn cap(&self, name: &str) -> bool {
        self.caps.get(name).copied().unwrap_or(false)
    }

    /// Cleans the display strings (SPEC H1: host.name at most 64 bytes; L1).
    pub(crate) fn sanitize(&mut self, report: &mut Report) {
        clean(
            &mut self.host.name,
            MAX_HOST_NAME,
            Lines::Single,
            "host.name",
            report,
        );
        clean(&mut self.epoch, MAX_EPOCH, Lines::Single, "epoch", report);
        clean(
            &mut self.service,
            MAX_SHORT,
            Lines::Single,
            "service",
            report,
        );
    }
}

/// The body of `409 incompatible` to a telling hello (SPEC V4): both ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// What the agent speaks.
    pub agent: ProtocolRange,
    /// What Collie said it speaks.
    pub collie: ProtocolRange,
}

/// Header carrying the chosen version on every call but the first hello (SPEC W3, H2).
pub const VERSION_HEADER: &str = "x-collie-session";
/// Header a telling hello adds with Collie's whole range as `MIN-MAX` (SPEC V4).
pub const RANGE_HEADER: &str = "x-collie-accepts";

/// Parses `MIN-MAX` (or a single `N`) as sent in [`RANGE_HEADER`].
pub fn parse_range(text: &str) -> Option<ProtocolRange> {
    let (min, max) = match text.split_once('-') {
        Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
        None => {
            let n = text.trim().parse().ok()?;
            (n, n)
        }
    };
    (min <= max).then_some(ProtocolRange { min, max })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h2_highest_common_version() {
        let a = ProtocolRange { min: 1, max: 3 };
        let b = ProtocolRange { min: 2, max: 5 };
        assert_eq!(a.highest_common(b), Some(3));
        assert_eq!(
            OUR_PROTOCOL.highest_common(ProtocolRange { min: 2, max: 2 }),
            None
        );
    }

    #[test]
    fn h1_missing_cap_is_false() {
        let hello: Hello = serde_json::from_str(
            r#"{"service":"collie-durable","protocol":{"min":1,"max":1},"epoch":"e","ready":true,"caps":{"history":true}}"#,
        )
        .expect("decodes");
        assert!(hello.cap(caps::HISTORY));
        assert!(!hello.cap(caps::ALLOW_ALWAYS));
    }

    #[test]
    fn v4_range_header() {
        assert_eq!(parse_range("1-2"), Some(ProtocolRange { min: 1, max: 2 }));
        assert_eq!(parse_range("3"), Some(ProtocolRange { min: 3, max: 3 }));
        assert_eq!(parse_range("2-1"), None);
    }
}
