//! The recording's file format (docs/RECORDING.md): one JSON line per exchange after a header
//! line. Pure shapes and their encoding, no I/O: the engine writes them (`engine::record`), the
//! replay server reads them (`rigs::replay`), and neither layer imports the other.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// The `format` of a recording's first line.
pub const FORMAT: &str = "collie-phone-recording";
/// The version of the format this program writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// What stands in for a secret header's value.
pub const REDACTED: &str = "[redacted]";

/// One line of a recording: the header first, then one line per exchange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum RecordLine {
    Header(RecordHeader),
    Exchange(RecordedExchange),
}

impl RecordLine {
    /// The header `line` holds, when it is a collie-phone recording's first line.
    pub fn header(line: &str) -> Option<RecordHeader> {
        match serde_json::from_str::<Self>(line) {
            Ok(Self::Header(header)) if header.format == FORMAT => Some(header),
            _ => None,
        }
    }
}

/// The first line: what made the recording, when, and of which agents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordHeader {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`] of the program that wrote it.
    pub version: u32,
    /// The collie-phone version that wrote it.
    pub collie_phone: String,
    #[serde(with = "time::serde::rfc3339")]
    pub started: OffsetDateTime,
    pub agents: Vec<RecordedAgent>,
}

/// An agent of the recording: its name and where it was, never its token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedAgent {
    pub name: String,
    pub kind: AgentKind,
    /// `unix:PATH` or the URL as given.
    pub address: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentKind {
    Socket,
    Url,
    /// A DSH bridge (SPEC D1): recorded so a bug can be read, not served by `replay`, which
    /// plays Collie agents only.
    DshBridge,
}

/// One exchange, whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedExchange {
    /// When the request left, in ms since the recording began.
    pub since_start_ms: u64,
    /// When the request left, by the wall clock.
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    pub agent: String,
    pub method: String,
    /// With `/session/v1` and the query.
    pub path: String,
    /// The request's headers by lower-case name; `authorization` only ever as [`REDACTED`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub request_headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_body: Option<RecordedBody>,
    /// None when no reply came; `error` says why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_body: Option<RecordedBody>,
    pub elapsed_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A body as it went: UTF-8 as a string, anything else as `{"base64": "…"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RecordedBody {
    Text(String),
    Binary { base64: String },
}

impl RecordedBody {
    pub fn from_bytes(bytes: &[u8]) -> Self {
        match std::str::from_utf8(bytes) {
            Ok(text) => Self::Text(text.to_string()),
            Err(_) => Self::Binary {
                base64: base64::engine::general_purpose::STANDARD.encode(bytes),
            },
        }
    }

    /// The bytes that went over the wire; None when the base64 does not decode.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        match self {
            Self::Text(text) => Some(text.as_bytes().to_vec()),
            Self::Binary { base64 } => base64::engine::general_purpose::STANDARD
                .decode(base64)
                .ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_keep_text_as_text_and_the_rest_as_base64() {
        let text = RecordedBody::from_bytes("{\"a\":\"é\"}".as_bytes());
        assert_eq!(text, RecordedBody::Text("{\"a\":\"é\"}".into()));
        let binary = RecordedBody::from_bytes(&[0xff, 0x00, 0x41]);
        let line = serde_json::to_string(&binary).expect("encodes");
        assert_eq!(line, r#"{"base64":"/wBB"}"#);
        let back: RecordedBody = serde_json::from_str(&line).expect("decodes");
        assert_eq!(back.to_bytes(), Some(vec![0xff, 0x00, 0x41]));
    }

    #[test]
    fn a_line_names_its_type_first() {
        let header = RecordHeader {
            format: FORMAT.into(),
            version: FORMAT_VERSION,
            collie_phone: "0.1.0".into(),
            started: OffsetDateTime::UNIX_EPOCH,
            agents: vec![],
        };
        let text = serde_json::to_string(&RecordLine::Header(header.clone())).expect("encodes");
        assert!(text.starts_with(r#"{"type":"header","format":"collie-phone-recording""#));
        assert_eq!(
            serde_json::from_str::<RecordLine>(&text).expect("decodes"),
            RecordLine::Header(header.clone())
        );
        assert_eq!(RecordLine::header(&text), Some(header));
    }

    #[test]
    fn only_our_header_is_a_header() {
        assert_eq!(RecordLine::header(r#"{"hello":1}"#), None);
        let other = r#"{"type":"header","format":"someone-else","version":1,"colliePhone":"0.1.0","started":"2026-01-01T00:00:00Z","agents":[]}"#;
        assert_eq!(RecordLine::header(other), None);
    }
}
