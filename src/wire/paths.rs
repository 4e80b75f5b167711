//! Route paths (SPEC W2, W5). Every path starts with `/session/v1`, a fixed name, not the version.

/// The fixed prefix of every route (SPEC W2).
pub const PREFIX: &str = "/session/v1";

pub fn hello() -> String {
    format!("{PREFIX}/hello")
}

pub fn snapshot() -> String {
    format!("{PREFIX}/snapshot")
}

/// `epoch` is the one the cursor belongs to; None on a first read (SPEC H5).
pub fn events(pane: &str, after: u64, epoch: Option<&str>) -> String {
    match epoch {
        Some(epoch) => format!("{PREFIX}/pane/{pane}/events?after={after}&epoch={epoch}"),
        None => format!("{PREFIX}/pane/{pane}/events?after={after}"),
    }
}

/// `verb` is one of answer, send, abort, action.
pub fn pane_post(pane: &str, verb: &str) -> String {
    format!("{PREFIX}/pane/{pane}/{verb}")
}

pub fn rename() -> String {
    format!("{PREFIX}/rename")
}

pub fn close() -> String {
    format!("{PREFIX}/close")
}

pub fn starter(id: &str) -> String {
    format!("{PREFIX}/starter/{id}")
}

pub fn reopen() -> String {
    format!("{PREFIX}/reopen")
}

pub fn conversations(after: Option<&str>, limit: usize) -> String {
    match after {
        Some(after) => format!("{PREFIX}/conversations?after={after}&limit={limit}"),
        None => format!("{PREFIX}/conversations?limit={limit}"),
    }
}

pub fn conversation_items(id: &str, after: Option<&str>, limit: usize) -> String {
    match after {
        Some(after) => format!("{PREFIX}/conversation/{id}/items?after={after}&limit={limit}"),
        None => format!("{PREFIX}/conversation/{id}/items?limit={limit}"),
    }
}
