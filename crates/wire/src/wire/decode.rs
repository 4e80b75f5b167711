//! Decoding of untrusted replies: parse, then cut, clean and cap (SPEC L, L1, V2).

use serde::de::DeserializeOwned;

use super::actions::{ErrorBody, PostReply};
use super::events::EventsReply;
use super::hello::Hello;
use super::history::{ConversationsPage, ItemsPage, PageError};
use super::sanitize::Report;
use super::snapshot::Snapshot;

/// A decoded reply and what decoding changed in it (SPEC L1, A12).
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded<T> {
    pub value: T,
    pub report: Report,
}

/// Why a reply could not be used at all.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("the reply is not the JSON this route sends: {0}")]
    Json(#[from] serde_json::Error),
    #[error("the history page was not read: {0}")]
    Page(#[from] PageError),
}

/// A reply body that can be made safe after parsing.
pub trait Sanitize {
    fn sanitize_into(&mut self, report: &mut Report) -> Result<(), DecodeError>;
}

impl Sanitize for Hello {
    fn sanitize_into(&mut self, report: &mut Report) -> Result<(), DecodeError> {
        self.sanitize(report);
        Ok(())
    }
}

impl Sanitize for Snapshot {
    fn sanitize_into(&mut self, report: &mut Report) -> Result<(), DecodeError> {
        self.sanitize(report);
        Ok(())
    }
}

impl Sanitize for EventsReply {
    fn sanitize_into(&mut self, report: &mut Report) -> Result<(), DecodeError> {
        self.sanitize(report);
        Ok(())
    }
}

impl Sanitize for ConversationsPage {
    fn sanitize_into(&mut self, report: &mut Report) -> Result<(), DecodeError> {
        Ok(self.sanitize(report)?)
    }
}

impl Sanitize for ItemsPage {
    fn sanitize_into(&mut self, report: &mut Report) -> Result<(), DecodeError> {
        Ok(self.sanitize(report)?)
    }
}

impl Sanitize for PostReply {
    fn sanitize_into(&mut self, report: &mut Report) -> Result<(), DecodeError> {
        self.sanitize(report);
        Ok(())
    }
}

impl Sanitize for ErrorBody {
    fn sanitize_into(&mut self, report: &mut Report) -> Result<(), DecodeError> {
        self.sanitize(report);
        Ok(())
    }
}

/// Parses `bytes` as `T` and makes it safe to show. Never panics, whatever the bytes.
pub fn decode<T: DeserializeOwned + Sanitize>(bytes: &[u8]) -> Result<Decoded<T>, DecodeError> {
    let mut value: T = serde_json::from_slice(bytes)?;
    let mut report = Report::default();
    value.sanitize_into(&mut report)?;
    Ok(Decoded { value, report })
}
