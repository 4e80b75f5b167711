//! Chat items of a pane and of a conversation (SPEC L, W5).

use serde::{Deserialize, Serialize};

use super::id::check_id;
use super::kind::open_enum;
use super::limits::{MAX_CHAT_TEXT, MAX_DOC_TEXT, MAX_LINK_CHARS, MAX_SHORT, MAX_TITLE};
use super::sanitize::{ChangeKind, Lines, Report, clean, clean_chars, clean_opt};

open_enum! {
    /// What an item is, which decides how it is drawn and its text limit (SPEC L, V2).
    ItemKind {
        User => "user",
        Reply => "reply",
        Thinking => "thinking",
        Notice => "notice",
        Markdown => "markdown",
        Code => "code",
        Link => "link",
    }
}

/// How much a notice must stand out. Never on the wire: a Collie agent's items are all plain,
/// and the phone's own client of a DSH bridge says which of its sentences need a second look,
/// so the chat chooses a colour by what a sentence means, not by its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tone {
    /// An ordinary line.
    #[default]
    Plain,
    /// Worth a look: a request used another model than the task asked for.
    Caution,
    /// Something was lost or changed under the chat: a gap, a desktop reload.
    Alert,
    /// Something failed or stopped: a tool, a turn, a followed session, this pane.
    Danger,
}

/// One chat item (SPEC L: text limits per kind; a link is `https://` only, ≤ 2048 characters).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    pub id: String,
    pub kind: ItemKind,
    /// The turn this item belongs to, if any (SPEC A16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// When the agent made it, ISO 8601 with a zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// The words of every kind but link.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// The language of a code item, e.g. `rust`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The address of a link item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The words shown for a link item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// How much this item must stand out; plain for everything read off a wire.
    #[serde(skip)]
    pub tone: Tone,
}

impl Item {
    pub fn text(id: impl Into<String>, kind: ItemKind, text: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            kind,
            turn_id: None,
            at: None,
            text: text.into(),
            language: None,
            url: None,
            title: None,
            tone: Tone::Plain,
        }
    }

    /// This item, standing out as `tone` says.
    pub fn with_tone(mut self, tone: Tone) -> Self {
        self.tone = tone;
        self
    }

    /// The text limit of this kind (SPEC L). Unknown kinds get the chat limit.
    pub fn text_limit(kind: &ItemKind) -> usize {
        match kind {
            ItemKind::Markdown | ItemKind::Code => MAX_DOC_TEXT,
            _ => MAX_CHAT_TEXT,
        }
    }

    /// Cuts and cleans every string (SPEC L1). Returns false when the item is unusable and must
    /// be dropped: a bad id, or a link that is not `https://`.
    pub(crate) fn sanitize(&mut self, path: &str, report: &mut Report) -> bool {
        if check_id(&self.id).is_err() {
            report.note(path, ChangeKind::Dropped);
            return false;
        }
        if let Some(turn) = &self.turn_id
            && check_id(turn).is_err()
        {
            self.turn_id = None;
            report.note(format!("{path}.turnId"), ChangeKind::Dropped);
        }
        let limit = Self::text_limit(&self.kind);
        clean(
            &mut self.text,
            limit,
            Lines::Multi,
            format!("{path}.text"),
            report,
        );
        clean_opt(
            &mut self.at,
            MAX_SHORT,
            Lines::Single,
            format!("{path}.at"),
            report,
        );
        clean_opt(
            &mut self.language,
            MAX_SHORT,
            Lines::Single,
            format!("{path}.language"),
            report,
        );
        clean_opt(
            &mut self.title,
            MAX_TITLE,
            Lines::Single,
            format!("{path}.title"),
            report,
        );
        if self.kind != ItemKind::Link {
            // Only a link's URL is ever shown; another kind's is dropped unread.
            self.url = None;
        } else {
            let Some(url) = &mut self.url else {
                report.note(path, ChangeKind::Dropped);
                return false;
            };
            // A cut URL points somewhere else: drop it rather than show a wrong address.
            if clean_chars(
                url,
                MAX_LINK_CHARS,
                Lines::Single,
                format!("{path}.url"),
                report,
            ) || !is_https_url(url)
            {
                report.note(path, ChangeKind::Dropped);
                return false;
            }
        }
        true
    }
}

/// True for an `https://` URL with a host (SPEC L: links are https only).
pub fn is_https_url(url: &str) -> bool {
    url.len() > "https://".len()
        && url
            .get(..8)
            .is_some_and(|p| p.eq_ignore_ascii_case("https://"))
        && !url[8..].starts_with('/')
}

/// Cleans a list of items in place, dropping unusable ones.
pub(crate) fn sanitize_items(items: &mut Vec<Item>, path: &str, report: &mut Report) {
    let mut index = 0;
    items.retain_mut(|item| {
        let keep = item.sanitize(&format!("{path}[{index}]"), report);
        index += 1;
        keep
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l_link_https_only() {
        let mut report = Report::default();
        let mut item: Item =
            serde_json::from_str(r#"{"id":"i1","kind":"link","url":"http://x.example"}"#)
                .expect("decodes");
        assert!(!item.sanitize("i", &mut report));
        let mut item: Item =
            serde_json::from_str(r#"{"id":"i1","kind":"link","url":"https://x.example/a"}"#)
                .expect("decodes");
        assert!(item.sanitize("i", &mut report));
    }

    #[test]
    fn l_code_text_cut_at_32k() {
        let mut report = Report::default();
        let mut item = Item::text("i", ItemKind::Code, "x".repeat(40_000));
        assert!(item.sanitize("i", &mut report));
        assert_eq!(item.text.len(), MAX_DOC_TEXT);
        let mut reply = Item::text("i", ItemKind::Reply, "x".repeat(40_000));
        assert!(reply.sanitize("i", &mut report));
        assert_eq!(reply.text.len(), 40_000);
    }

    #[test]
    fn v2_unknown_kind_is_kept() {
        let item: Item =
            serde_json::from_str(r#"{"id":"i1","kind":"hologram","text":"hi","extra":1}"#)
                .expect("decodes");
        assert_eq!(item.kind, ItemKind::Unknown("hologram".into()));
    }
}
