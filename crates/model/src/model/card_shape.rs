//! What a card is made of, by its ask's kind: whether it has options to pick, permission
//! letters, fields, a typed answer of one line or many, a link to open. One exhaustive match
//! on the ask's body (`wire::AskBody`), so a new kind of ask is a compile error here and the
//! card's keys, help and drawing ask this, never the kind (docs/ARCHITECTURE.md, "On paper").

use crate::wire::{Ask, AskBody};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CardShape {
    /// Options to move among and pick by number (a permission, a choice, a link's).
    pub options: bool,
    /// The permission letters: allow once, deny, allow always.
    pub letters: bool,
    /// Fields to fill in, a focus that moves among them.
    pub fields: bool,
    /// An answer typed in the card's box.
    pub typed: bool,
    /// The typed answer may have many lines.
    pub lines: bool,
    /// A page to open first.
    pub link: bool,
}

impl CardShape {
    pub fn of(ask: &Ask) -> Self {
        match ask.body() {
            AskBody::Permission(_) => Self {
                options: true,
                letters: true,
                ..Self::default()
            },
            AskBody::Choice(_) => Self {
                options: true,
                ..Self::default()
            },
            AskBody::Link(..) => Self {
                options: true,
                link: true,
                ..Self::default()
            },
            AskBody::Text(text) => Self {
                typed: true,
                lines: text.multiline,
                ..Self::default()
            },
            AskBody::Form(_) => Self {
                fields: true,
                ..Self::default()
            },
            // Answered on the desktop, or of a kind this phone does not know (SPEC V3):
            // nothing on the card takes a key but leaving it.
            AskBody::DesktopWait | AskBody::Unknown(_) => Self::default(),
        }
    }

    /// Whether letters typed on the card are words, not commands.
    pub fn takes_typing(self) -> bool {
        self.typed || self.fields
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ask(value: serde_json::Value) -> Ask {
        serde_json::from_value(value).expect("an ask")
    }

    #[test]
    fn a15_each_kind_has_its_shape_and_an_unknown_kind_takes_no_key() {
        let permission = ask(
            json!({"id": "a", "revision": 1, "kind": "permission", "title": "t",
            "permission": {"tool": "shell", "options": [{"id": "o", "label": "Allow once", "effect": "allow"}]}}),
        );
        assert!(CardShape::of(&permission).letters);
        let text = ask(
            json!({"id": "a", "revision": 1, "kind": "text", "title": "t",
            "text": {"multiline": true}}),
        );
        assert_eq!(
            CardShape::of(&text),
            CardShape {
                typed: true,
                lines: true,
                ..CardShape::default()
            }
        );
        let future = ask(json!({"id": "a", "revision": 1, "kind": "date", "title": "t"}));
        assert_eq!(CardShape::of(&future), CardShape::default());
        assert!(!CardShape::of(&future).takes_typing());
    }
}
