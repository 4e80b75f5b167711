//! What the phone's text looks like, worked out without a terminal: display widths and
//! wrapping, markdown, the theme's styles, a chat's entries as styled lines and where a chat
//! view starts. Pure: text in, `ratatui::text` lines out; nothing here touches a frame.
//!
//! It sits between the engine and the app (docs/ARCHITECTURE.md): the app measures with it (how
//! far a page scrolls, how tall a card is), and `ui` paints what it lays out.

pub(crate) mod chat;
pub(crate) mod chat_links;
pub mod chat_scroll;
pub(crate) mod chat_search;
pub mod chat_view;
pub(crate) mod dsh_chat;
pub mod glyph;
pub mod markdown;
// A door for `benches/search.rs`, not in the product.
#[cfg(feature = "bench")]
pub mod search_bench;
pub mod theme;
pub(crate) mod theme_contrast;
pub mod wrap;

/// "synced 2s ago", "synced 3m ago": how long ago, to the second at most. The app asks it too,
/// to know whether a poll changed the words on screen (`App::redraws`).
pub(crate) fn ago(seconds: i64) -> String {
    match seconds {
        s if s < 1 => "just now".into(),
        s if s < 60 => format!("{s}s ago"),
        s if s < 3600 => format!("{}m ago", s / 60),
        s => format!("{}h ago", s / 3600),
    }
}
