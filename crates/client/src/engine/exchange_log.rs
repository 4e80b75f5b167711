//! A record of every exchange, for the wire inspector and `--record` (the token is never in it:
//! headers are not recorded, only the route, the bodies and the figures).

use serde::Serialize;
use time::OffsetDateTime;

use crate::transport::{Reply, Request, TransportError};

/// Bytes of each body kept in a record: enough to read, small enough to keep a thousand.
pub const KEPT_BODY_BYTES: usize = 8 * 1024;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExchangeRecord {
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    pub agent: String,
    pub method: &'static str,
    pub path: String,
    /// The status, or None when no reply came.
    pub status: Option<u16>,
    /// Why no reply came.
    pub error: Option<String>,
    pub reply_bytes: usize,
    pub millis: u128,
    pub request_id: Option<String>,
    pub request_body: String,
    pub reply_body: String,
}

fn kept(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(KEPT_BODY_BYTES)]);
    text.into_owned()
}

impl ExchangeRecord {
    pub(crate) fn new(
        agent: &str,
        request: &Request,
        request_id: Option<&str>,
        result: Result<&Reply, &TransportError>,
        millis: u128,
    ) -> Self {
        let (status, error, reply_bytes, reply_body) = match result {
            Ok(reply) => (
                Some(reply.status),
                None,
                reply.body.len(),
                kept(&reply.body),
            ),
            Err(error) => (None, Some(error.to_string()), 0, String::new()),
        };
        Self {
            at: OffsetDateTime::now_utc(),
            agent: agent.to_string(),
            method: request.method.as_str(),
            path: request.path.clone(),
            status,
            error,
            reply_bytes,
            millis,
            request_id: request_id.map(str::to_string),
            request_body: request.body.as_deref().map(kept).unwrap_or_default(),
            reply_body,
        }
    }

    /// An exchange made outside the Collie transport (a DSH bridge's call), from its parts:
    /// the reply's status and body, or why none came.
    pub(crate) fn from_parts(
        agent: &str,
        method: &'static str,
        path: String,
        request_body: Option<&[u8]>,
        reply: Result<(u16, &[u8]), String>,
        millis: u128,
    ) -> Self {
        let request_id = request_body
            .and_then(|body| serde_json::from_slice::<serde_json::Value>(body).ok())
            .and_then(|value| value.get("requestId")?.as_str().map(str::to_string));
        let (status, error, reply_bytes, reply_body) = match reply {
            Ok((status, body)) => (Some(status), None, body.len(), kept(body)),
            Err(why) => (None, Some(why), 0, String::new()),
        };
        Self {
            at: OffsetDateTime::now_utc(),
            agent: agent.to_string(),
            method,
            path,
            status,
            error,
            reply_bytes,
            millis,
            request_id,
            request_body: request_body.map(kept).unwrap_or_default(),
            reply_body,
        }
    }
}
