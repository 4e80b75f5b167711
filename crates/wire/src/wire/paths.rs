//! Route paths (SPEC W2, W5). Every path starts with `/session/v1`, a fixed name, not the version.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// The fixed prefix of every route (SPEC W2).
pub const PREFIX: &str = "/session/v1";

/// What stays as it is in a path segment or a query value: RFC 3986's unreserved characters.
/// Ids may hold `%`, `&`, `=` or any non-ASCII character (SPEC L), so everything else is encoded.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// One id or cursor, encoded for a path segment or a query value.
pub(crate) fn encode(text: &str) -> String {
    utf8_percent_encode(text, SEGMENT).to_string()
}

pub fn hello() -> String {
    format!("{PREFIX}/hello")
}

pub fn snapshot() -> String {
    format!("{PREFIX}/snapshot")
}

/// `epoch` is the one the cursor belongs to; None on a first read (SPEC H5).
pub fn events(pane: &str, after: u64, epoch: Option<&str>) -> String {
    match epoch {
        Some(epoch) => format!(
            "{PREFIX}/pane/{}/events?after={after}&epoch={}",
            encode(pane),
            encode(epoch)
        ),
        None => format!("{PREFIX}/pane/{}/events?after={after}", encode(pane)),
    }
}

/// The verbs of a pane's POST routes, `POST /pane/{id}/{verb}` (SPEC W2): one list for the
/// client that builds the path and the agent that routes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneVerb {
    Answer,
    Send,
    Abort,
    Action,
    Setting,
}

impl PaneVerb {
    const ALL: [Self; 5] = [
        Self::Answer,
        Self::Send,
        Self::Abort,
        Self::Action,
        Self::Setting,
    ];

    /// The verb as the path spells it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Answer => "answer",
            Self::Send => "send",
            Self::Abort => "abort",
            Self::Action => "action",
            Self::Setting => "setting",
        }
    }

    /// The verb a path segment names; None for any other word.
    pub fn parse(segment: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|verb| verb.as_str() == segment)
    }
}

pub fn pane_post(pane: &str, verb: PaneVerb) -> String {
    format!("{PREFIX}/pane/{}/{}", encode(pane), verb.as_str())
}

pub fn rename() -> String {
    format!("{PREFIX}/rename")
}

pub fn close() -> String {
    format!("{PREFIX}/close")
}

pub fn starter(id: &str) -> String {
    format!("{PREFIX}/starter/{}", encode(id))
}

pub fn reopen() -> String {
    format!("{PREFIX}/reopen")
}

pub fn conversations(after: Option<&str>, limit: usize) -> String {
    match after {
        Some(after) => format!(
            "{PREFIX}/conversations?after={}&limit={limit}",
            encode(after)
        ),
        None => format!("{PREFIX}/conversations?limit={limit}"),
    }
}

pub fn conversation_items(id: &str, after: Option<&str>, limit: usize) -> String {
    match after {
        Some(after) => format!(
            "{PREFIX}/conversation/{}/items?after={}&limit={limit}",
            encode(id),
            encode(after)
        ),
        None => format!("{PREFIX}/conversation/{}/items?limit={limit}", encode(id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pane_verb_reads_back_as_itself() {
        for verb in PaneVerb::ALL {
            assert_eq!(PaneVerb::parse(verb.as_str()), Some(verb));
        }
        assert_eq!(PaneVerb::parse("events"), None);
        assert_eq!(PaneVerb::parse("Answer"), None);
    }

    #[test]
    fn l_ids_with_percent_and_cjk_are_encoded() {
        assert_eq!(
            pane_post("工作%1", PaneVerb::Send),
            "/session/v1/pane/%E5%B7%A5%E4%BD%9C%251/send"
        );
        assert_eq!(
            events("p-1", 3, Some("e&x=1")),
            "/session/v1/pane/p-1/events?after=3&epoch=e%26x%3D1"
        );
        assert_eq!(
            conversations(Some("before-12"), 100),
            "/session/v1/conversations?after=before-12&limit=100"
        );
    }
}
