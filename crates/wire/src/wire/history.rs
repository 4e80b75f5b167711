//! History: `GET /conversations`, `GET /conversation/:id/items` (SPEC W5, L).

use serde::{Deserialize, Serialize};

use super::id::{check_cursor, check_id};
use super::item::{Item, sanitize_items};
use super::kind::open_enum;
use super::limits::{MAX_CONVERSATIONS_PAGE, MAX_ITEMS_PAGE, MAX_SHORT, MAX_TITLE};
use super::sanitize::{ChangeKind, Lines, Report, clean, clean_opt};

open_enum! {
    /// Whether a conversation is shown in a pane now.
    ConversationState {
        Open => "open",
        Closed => "closed",
    }
}

/// One page of conversations, newest first (SPEC W5). At most 100 (SPEC L); `next` is the
/// `after` of the following page, absent on the last.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationsPage {
    pub conversations: Vec<ConversationSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// One row of history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationSummary {
    pub id: String,
    pub title: String,
    pub state: ConversationState,
    /// The pane showing it, when open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub item_count: u64,
}

/// One page of a conversation's items, oldest first (SPEC W5). At most 1000 (SPEC L).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemsPage {
    pub items: Vec<Item>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// Why a history page was not read (SPEC L1: a page over its limit is not read at all).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    #[error("the page holds {0} entries, more than the limit of {1}")]
    OverLimit(usize, usize),
    #[error("the page's next cursor is not 1–512 bytes of printable ASCII without spaces")]
    BadCursor,
}

impl ConversationsPage {
    pub(crate) fn sanitize(&mut self, report: &mut Report) -> Result<(), PageError> {
        if self.conversations.len() > MAX_CONVERSATIONS_PAGE {
            return Err(PageError::OverLimit(
                self.conversations.len(),
                MAX_CONVERSATIONS_PAGE,
            ));
        }
        if self.next.as_deref().is_some_and(|c| !check_cursor(c)) {
            return Err(PageError::BadCursor);
        }
        let mut index = 0;
        self.conversations.retain_mut(|row| {
            let at = format!("conversations[{index}]");
            index += 1;
            if check_id(&row.id).is_err() {
                report.note(&at, ChangeKind::Dropped);
                return false;
            }
            clean(
                &mut row.title,
                MAX_TITLE,
                Lines::Single,
                format!("{at}.title"),
                report,
            );
            clean_opt(
                &mut row.updated_at,
                MAX_SHORT,
                Lines::Single,
                format!("{at}.updatedAt"),
                report,
            );
            if row.pane_id.as_deref().is_some_and(|p| check_id(p).is_err()) {
                row.pane_id = None;
            }
            true
        });
        Ok(())
    }
}

impl ItemsPage {
    pub(crate) fn sanitize(&mut self, report: &mut Report) -> Result<(), PageError> {
        if self.items.len() > MAX_ITEMS_PAGE {
            return Err(PageError::OverLimit(self.items.len(), MAX_ITEMS_PAGE));
        }
        if self.next.as_deref().is_some_and(|c| !check_cursor(c)) {
            return Err(PageError::BadCursor);
        }
        sanitize_items(&mut self.items, "items", report);
        Ok(())
    }
}
