pub mod chat;
pub mod markdown;
pub mod theme;
pub mod wrap;
