//! An ask as the sum type it is: one variant per kind, each with its own body. On the wire an
//! ask is a `kind` and the one body it names (docs/WIRE.md § 5, SPEC A15), and that JSON stays
//! as it is; code that does something per kind matches on [`Ask::body`], so a new kind is a
//! compile error at each place that must learn it.

use super::ask::{Ask, AskKind, ChoiceBody, FormBody, PermissionBody, TextBody};

/// The kind a DSH bridge's permission wait is shown as: no phone answers it, the desktop does
/// (docs/DSH.md; SPEC D6). It never crosses the Collie wire.
pub const DESKTOP_ASK_KIND: &str = "desktop";

/// One ask, by its kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AskBody<'a> {
    Permission(&'a PermissionBody),
    /// Pick one of its options.
    Choice(&'a ChoiceBody),
    /// A choice whose page the person opens first (`choice.url`), then says done.
    Link(&'a ChoiceBody, &'a str),
    Text(&'a TextBody),
    Form(&'a FormBody),
    /// A bridge's permission wait: answered on the desktop only.
    DesktopWait,
    /// A kind this phone does not know (SPEC V3), or a known kind without its body.
    Unknown(&'a str),
}

impl Ask {
    /// This ask as its kind's variant, with its body.
    pub fn body(&self) -> AskBody<'_> {
        match (&self.kind, self) {
            (
                AskKind::Permission,
                Ask {
                    permission: Some(body),
                    ..
                },
            ) => AskBody::Permission(body),
            (
                AskKind::Choice,
                Ask {
                    choice: Some(body), ..
                },
            ) => match body.url.as_deref() {
                Some(url) => AskBody::Link(body, url),
                None => AskBody::Choice(body),
            },
            (
                AskKind::Text,
                Ask {
                    text: Some(body), ..
                },
            ) => AskBody::Text(body),
            (
                AskKind::Form,
                Ask {
                    form: Some(body), ..
                },
            ) => AskBody::Form(body),
            (AskKind::Unknown(kind), _) if kind == DESKTOP_ASK_KIND => AskBody::DesktopWait,
            (AskKind::Unknown(kind), _) => AskBody::Unknown(kind),
            (kind, _) => AskBody::Unknown(kind.as_str()),
        }
    }
}
