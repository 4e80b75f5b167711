//! Rules the reference agent breaks on purpose (`collie-phone agent --break RULE`), so that
//! `collie-phone check` can prove it notices each one. Never set in normal use.
//!
//! A broken rule is a [`Rule`], never a string: the request path asks `breaks.has(Rule::W4)`,
//! so a misspelt rule does not compile, and `--break` reads the ids once, here.

use std::collections::BTreeSet;

/// Writes [`Rule`] from one table: each rule once, with its SPEC id and what breaking it does.
macro_rules! breakable {
    ($($rule:ident = $id:literal: $what:literal,)*) => {
        /// A rule `--break` knows. Each has a `check` that fails on it and a test that proves
        /// exactly that id fails (tests/integration/check_breaks.rs).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $(#[doc = concat!("Breaks SPEC ", $id, "; what it does is [`Rule::what`].")] $rule,)*
        }

        impl Rule {
            /// Every rule `--break` knows, in the order `--help` and the tests list them.
            pub const ALL: &[Rule] = &[$(Rule::$rule),*];

            /// The SPEC id, as `--break` takes it ("W4", "L.events").
            pub fn id(self) -> &'static str {
                match self {
                    $(Rule::$rule => $id,)*
                }
            }

            /// What breaking it does, in a sentence.
            pub fn what(self) -> &'static str {
                match self {
                    $(Rule::$rule => $what,)*
                }
            }
        }
    };
}

breakable! {
    // W, H, T, Q and V (check/wire_rules.rs, hello_rules.rs, token_rules.rs, replay_rules.rs,
    // version_rules.rs).
    W2 = "W2": "the routes are served without /session/v1 too (GET /hello answers)",
    W4 = "W4": "a body over 64 KiB gets 400 bad-request instead of 413 too-large",
    W6 = "W6": "an unknown path gets 400 bad-request instead of 404 not-found",
    H1 = "H1": "hello names the service collie-durable-reference",
    H3 = "H3": "while not ready, every route is served instead of 503 starting",
    H4 = "H4": "the snapshot's ETag leaves out the epoch (\"<rev>\")",
    T3 = "T3": "the path is judged before the token: an unknown path gets 404 without a token",
    T5 = "T5": "a weakened tag W/\"…\" in If-None-Match never matches, so no 304",
    Q3 = "Q3": "a repeated request id gets the first reply without replayed: true",
    V2 = "V2": "a request body with a field no route has gets 400 bad-request",
    V4 = "V4": "409 incompatible carries no refusal with the two ranges",
    // The A rules and SPEC L (check/asks.rs, check/limits.rs).
    A3 = "A3": "an answer naming an old revision is taken instead of 409 stale",
    A7 = "A7": "a second answer to a decided ask gets 200 ok instead of 409 decided",
    A8 = "A8": "an answer to an ask the agent does not know gets 404 instead of 200 too-late",
    A13 = "A13": "open asks carry an expiresAt with no zone",
    A14 = "A14": "a pane forgets its decided asks when its turn ends, so a late tap gets too-late",
    LLayout = "L.layout": "the snapshot holds 65 workspaces",
    LOpenAsks = "L.open-asks": "a pane holds 51 open asks",
    LAskOptions = "L.ask-options": "a choice ask has 9 options",
    LFormFields = "L.form-fields": "a form ask has 7 fields",
    LStarters = "L.starters": "the snapshot holds 51 starters",
    LBelt = "L.belt": "a pane has 5 belt buttons, one labelled with 18 characters",
    LSettings = "L.settings": "a pane has 9 settings, one of 33 choices, and 65 commands",
    LId = "L.id": "a workspace id holds a space",
    LReplySize = "L.reply-size": "a conversation's items page is over 8 MiB",
    LEvents = "L.events": "an events reply holds more than 1000 events",
    LItemText = "L.item-text": "a markdown item holds 32 KiB and one byte",
    LLink = "L.link": "a link item points at http://",
    LHistoryPage = "L.history-page": "a conversations page holds one row more than asked, 101 for 100",
    LCursor = "L.cursor": "a conversations page's next cursor holds a space",
    L1 = "L1": "a notice item holds a terminal escape (ESC [2J)",
}

/// The rules this agent breaks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Breaks {
    rules: BTreeSet<Rule>,
}

impl Breaks {
    /// Reads `--break` values; an id `--break` does not know is refused with the known list.
    pub fn parse(ids: &[String]) -> Result<Self, String> {
        let mut rules = BTreeSet::new();
        for id in ids {
            let id = id.trim();
            match Rule::ALL
                .iter()
                .find(|rule| rule.id().eq_ignore_ascii_case(id))
            {
                Some(rule) => {
                    rules.insert(*rule);
                }
                None => {
                    let known: Vec<&str> = Rule::ALL.iter().map(|rule| rule.id()).collect();
                    return Err(format!(
                        "--break {id}: not a rule the reference agent can break; it knows {}",
                        known.join(", ")
                    ));
                }
            }
        }
        Ok(Self { rules })
    }

    /// True when the agent breaks `rule`.
    pub(crate) fn has(&self, rule: Rule) -> bool {
        self.rules.contains(&rule)
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The SPEC ids of the rules broken, for the startup line.
    pub fn ids(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.rules.iter().map(|rule| rule.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_is_read_back_as_its_rule_in_any_case() {
        for rule in Rule::ALL {
            let lower = rule.id().to_ascii_lowercase();
            let breaks = Breaks::parse(&[lower]).expect("a known id");
            assert!(breaks.has(*rule), "{}", rule.id());
            assert_eq!(breaks.ids().collect::<Vec<_>>(), vec![rule.id()]);
        }
    }

    #[test]
    fn an_unknown_id_is_refused_with_the_known_list() {
        let refused = Breaks::parse(&["Z9".into()]).expect_err("unknown");
        assert!(refused.starts_with("--break Z9: not a rule"), "{refused}");
        assert!(
            refused.contains("W2, W4") && refused.contains("L.cursor, L1"),
            "{refused}"
        );
    }
}
