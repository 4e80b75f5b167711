//! A sign-in through the phone, where the agent does it itself (ACP v2's `auth/login`;
//! docs/ACP.md, "ACP v1 and v2"): a session the agent refused with `auth_required` becomes a
//! choice card in its pane naming the ways the agent offers (its `authMethods` of the type
//! `agent`, by their names), with "Not now". A way chosen goes to the agent as `auth/login`
//! with its `methodId`, and the session is opened again once it answers; "Not now" fails the
//! pane in v1's words ("claude needs a sign-in (…): run it once in a terminal, then send again
//! here."). The host never signs in on its own: only a person's choice sends `auth/login`.

use std::collections::HashMap;
use std::path::PathBuf;

use time::OffsetDateTime;

use super::sessions::Opening;
use super::text::clean_line;
use crate::durable::cards;
use crate::durable::world::World;
use crate::wire::{Outcome, limits};

/// How the agent would sign in, as its `initialize` named it: its `methodId` and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Method {
    pub(crate) id: String,
    pub(crate) name: String,
}

/// The opening a sign-in holds up, made again once the agent signed in.
#[derive(Debug, Clone)]
pub(crate) struct Held {
    pub(crate) cwd: PathBuf,
    pub(crate) how: Opening,
    pub(crate) back: Option<String>,
}

struct Wanted {
    pane: String,
    agent: String,
    methods: Vec<Method>,
    held: Held,
}

/// What a person chose on a sign-in card.
pub(crate) enum Chosen {
    /// Sign in this way: `auth/login`, then the held opening.
    Way {
        agent: String,
        pane: String,
        method: Method,
        held: Held,
    },
    /// Not now (or an option the card did not have): the pane fails, saying how to sign in.
    NotNow {
        agent: String,
        pane: String,
        names: Vec<String>,
    },
}

/// The sign-in cards open, by ask id.
#[derive(Default)]
pub(crate) struct SignIns {
    open: HashMap<String, Wanted>,
}

/// Option id of "Not now".
const NOT_NOW: &str = "not-now";

impl SignIns {
    /// Opens the card; false when the pane cannot take one more ask.
    pub(crate) fn ask(
        &mut self,
        world: &mut World,
        agent: &str,
        pane: &str,
        methods: Vec<Method>,
        held: Held,
        now: OffsetDateTime,
    ) -> bool {
        let methods: Vec<Method> = methods
            .into_iter()
            .take(limits::MAX_CHOICE_OPTIONS - 1)
            .collect();
        let names: Vec<String> = methods.iter().map(|m| clean_line(&m.name)).collect();
        let mut labels: Vec<&str> = names.iter().map(String::as_str).collect();
        labels.push("Not now");
        let prompt = format!(
            "{agent} asks for a sign-in before it opens a session, and does it itself: choose a way, and {agent} signs in (it may show a link to open here)."
        );
        let mut ask = cards::choice(&format!("{agent} needs a sign-in"), &prompt, &labels);
        if let Some(choice) = &mut ask.choice
            && let Some(last) = choice.options.last_mut()
        {
            last.id = NOT_NOW.to_string();
        }
        let key = format!("sign-in/{}", world.fresh_id("sign-in"));
        let Some(ask_id) = world.open_ask(pane, &key, ask, now) else {
            return false;
        };
        self.open.insert(
            ask_id,
            Wanted {
                pane: pane.to_string(),
                agent: agent.to_string(),
                methods,
                held,
            },
        );
        true
    }

    /// A person's answer to a sign-in card; `None` when the ask is not one.
    pub(crate) fn answer(&mut self, ask_id: &str, outcome: &Outcome) -> Option<Chosen> {
        let wanted = self.open.remove(ask_id)?;
        let way = outcome
            .option_id
            .as_deref()
            .and_then(|o| o.strip_prefix('o'))
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| wanted.methods.get(n.wrapping_sub(1)).cloned());
        Some(match way {
            Some(method) => Chosen::Way {
                agent: wanted.agent,
                pane: wanted.pane,
                method,
                held: wanted.held,
            },
            None => Chosen::NotNow {
                agent: wanted.agent,
                pane: wanted.pane,
                names: wanted.methods.iter().map(|m| clean_line(&m.name)).collect(),
            },
        })
    }

    /// The pane closed or its agent went: its cards are forgotten (the world closes the asks).
    pub(crate) fn forget(&mut self, pane: &str) {
        self.open.retain(|_, w| w.pane != pane);
    }
}
