//! Rules the reference agent breaks on purpose (`collie-phone agent --break RULE`), so that
//! `collie-phone check` can prove it notices each one. Never set in normal use.

use std::collections::BTreeSet;

/// Every rule `--break` knows, with what breaking it does. Each entry has a `check` that fails
/// on it and a test that proves exactly that id fails (tests/integration/check_breaks.rs).
pub const BREAKABLE: &[(&str, &str)] = &[
    // W, H, T, Q and V (check/wire_rules.rs, hello_rules.rs, token_rules.rs, replay_rules.rs,
    // version_rules.rs).
    (
        "W2",
        "the routes are served without /session/v1 too (GET /hello answers)",
    ),
    (
        "W4",
        "a body over 64 KiB gets 400 bad-request instead of 413 too-large",
    ),
    (
        "W6",
        "an unknown path gets 400 bad-request instead of 404 not-found",
    ),
    ("H1", "hello names the service collie-durable-reference"),
    (
        "H3",
        "while not ready, every route is served instead of 503 starting",
    ),
    ("H4", "the snapshot's ETag leaves out the epoch (\"<rev>\")"),
    (
        "T3",
        "the path is judged before the token: an unknown path gets 404 without a token",
    ),
    (
        "T5",
        "a weakened tag W/\"…\" in If-None-Match never matches, so no 304",
    ),
    (
        "Q3",
        "a repeated request id gets the first reply without replayed: true",
    ),
    (
        "V2",
        "a request body with a field no route has gets 400 bad-request",
    ),
    (
        "V4",
        "409 incompatible carries no refusal with the two ranges",
    ),
    // The A rules and SPEC L (check/asks.rs, check/limits.rs).
    (
        "A3",
        "an answer naming an old revision is taken instead of 409 stale",
    ),
    (
        "A7",
        "a second answer to a decided ask gets 200 ok instead of 409 decided",
    ),
    (
        "A8",
        "an answer to an ask the agent does not know gets 404 instead of 200 too-late",
    ),
    ("A13", "open asks carry an expiresAt with no zone"),
    (
        "A14",
        "a pane forgets its decided asks when its turn ends, so a late tap gets too-late",
    ),
    ("L.layout", "the snapshot holds 65 workspaces"),
    ("L.open-asks", "a pane holds 51 open asks"),
    ("L.ask-options", "a choice ask has 9 options"),
    ("L.form-fields", "a form ask has 7 fields"),
    ("L.starters", "the snapshot holds 51 starters"),
    (
        "L.belt",
        "a pane has 5 belt buttons, one labelled with 18 characters",
    ),
    ("L.id", "a workspace id holds a space"),
    ("L.reply-size", "a conversation's items page is over 8 MiB"),
    ("L.events", "an events reply holds more than 1000 events"),
    ("L.item-text", "a markdown item holds 32 KiB and one byte"),
    ("L.link", "a link item points at http://"),
    (
        "L.history-page",
        "a conversations page holds one row more than asked, 101 for 100",
    ),
    (
        "L.cursor",
        "a conversations page's next cursor holds a space",
    ),
    ("L1", "a notice item holds a terminal escape (ESC [2J)"),
];

/// The rules this agent breaks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Breaks {
    rules: BTreeSet<&'static str>,
}

impl Breaks {
    /// Reads `--break` values; an id `--break` does not know is refused with the known list.
    pub(crate) fn parse(ids: &[String]) -> Result<Self, String> {
        let mut rules = BTreeSet::new();
        for id in ids {
            let id = id.trim();
            match BREAKABLE
                .iter()
                .find(|(known, _)| known.eq_ignore_ascii_case(id))
            {
                Some((known, _)) => {
                    rules.insert(*known);
                }
                None => {
                    let known: Vec<&str> = BREAKABLE.iter().map(|(k, _)| *k).collect();
                    return Err(format!(
                        "--break {id}: not a rule the reference agent can break; it knows {}",
                        if known.is_empty() {
                            "none yet".to_string()
                        } else {
                            known.join(", ")
                        }
                    ));
                }
            }
        }
        Ok(Self { rules })
    }

    /// True when the agent breaks `rule` (a SPEC id such as "W4").
    pub(crate) fn has(&self, rule: &str) -> bool {
        self.rules.contains(rule)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    pub(crate) fn ids(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.rules.iter().copied()
    }
}
