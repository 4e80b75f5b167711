//! `collie-phone watch --notify`: the phone's rings with no screen (docs/CONFIG.md, "Rings";
//! docs/REMOTE.md, "Rings on a server"). The same events and the same decision as the phone
//! (`model::rings`), with the person never watching: what is set to ring runs the config's
//! `[notify]` command once it stays true for `after` seconds (an ask about to expire at once),
//! and a `closed` follows when it ends. Quiet events say nothing here: there is no screen.

use std::time::Duration;

use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio::sync::mpsc;

use super::out;
use crate::engine::AgentSpec;
use crate::engine::push::{self, Push};
use crate::model::agents::AgentView;
use crate::model::rings::{Attention, Event, Happening, Loudness, Rings, Rules};

/// The rings of a watch, and how its command's runs came out.
pub(super) struct Notifier {
    rings: Rings,
    rules: Rules,
    failures: mpsc::UnboundedSender<String>,
    failed: mpsc::UnboundedReceiver<String>,
    /// A failure was said on stderr already.
    said: bool,
}

/// A line of watch's output for a run of the command: the JSON it was given.
pub(super) struct Rang {
    pub(super) json: Value,
    pub(super) text: String,
}

impl Notifier {
    pub(super) fn new(rules: Rules, specs: &[AgentSpec]) -> Self {
        let mut rings = Rings::default();
        for spec in specs {
            rings.dial_with(&spec.name, crate::cli::rings::answer_dial(spec));
        }
        let (failures, failed) = mpsc::unbounded_channel();
        Self {
            rings,
            rules,
            failures,
            failed,
            said: false,
        }
    }

    /// What an agent's news rings.
    pub(super) fn heard(&mut self, view: &AgentView, now: OffsetDateTime) -> Vec<Rang> {
        let happenings = self.rings.heard(view, now);
        self.take(happenings, now)
    }

    /// The clock: asks about to expire, and what waited long enough.
    pub(super) fn tick(&mut self, now: OffsetDateTime) -> Vec<Rang> {
        let expiring = self.rings.tick(now);
        let mut rang = self.take(expiring, now);
        let due = self
            .rings
            .due(self.rules.after, now, |_| Attention::Away, None);
        rang.extend(due.iter().map(|happening| self.run(happening)));
        while let Ok(sentence) = self.failed.try_recv() {
            if !self.said {
                self.said = true;
                out::warn(&format!(
                    "collie-phone: {sentence} Said once; the log has each run."
                ));
            }
        }
        rang
    }

    fn take(&mut self, happenings: Vec<Happening>, now: OffsetDateTime) -> Vec<Rang> {
        let mut rang = Vec::new();
        for happening in happenings {
            if happening.event == Event::Closed {
                rang.push(self.run(&happening));
            } else if self.rules.loudness(happening.event) == Loudness::Ring {
                self.rings.hold(&happening, now);
            }
        }
        rang
    }

    /// Runs the command for `happening` beside the watch; its failure comes back to `tick`.
    fn run(&self, happening: &Happening) -> Rang {
        let value = happening.json();
        let push = Push {
            argv: self.rules.command.clone(),
            stdin: format!("{value}\n"),
            limit: Duration::from_secs(self.rules.limit),
        };
        let failures = self.failures.clone();
        tokio::spawn(async move {
            if let Err(failure) = push::run(&push).await {
                let _ = failures.send(failure.sentence());
            }
        });
        Rang {
            text: format!("notify {}: {}", happening.event.name(), happening.words()),
            json: json!({"type": "notify", "notify": value}),
        }
    }
}
