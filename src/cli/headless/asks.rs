//! `collie-phone asks`: the open asks of every agent dialled, as the phone's inbox has them
//! (SPEC A2): id, pane, kind, title and question, the options the card would offer (A11, A12)
//! and the time left when the ask has `expiresAt` (A13).

use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::args::ScriptArgs;
use super::exit::{self, Exit};
use super::journal_hold::JournalHold;
use super::link::Link;
use super::out::{Failure, Report, run_to_end, warn};
use crate::model::agents::AgentView;
use crate::model::card_state::{CANNOT_ANSWER, CardState};
use crate::model::inbox::AskKey;
use crate::wire::{Ask, AskKind};

#[derive(Debug, Args)]
#[command(after_help = exit::help())]
pub(crate) struct AsksArgs {
    #[command(flatten)]
    pub(crate) common: ScriptArgs,
}

pub(crate) fn run(args: AsksArgs) -> anyhow::Result<ExitCode> {
    run_to_end(args.common.json, asks(&args))
}

async fn asks(args: &AsksArgs) -> Result<Report, Failure> {
    let config = args.common.connect.read_config()?;
    let mut specs = args.common.connect.agents(&config)?;
    if let Some(name) = &args.common.agent {
        specs = vec![args.common.connect.one_agent(&config, Some(name))?];
    }
    // Reading sends nothing, so the shared receipts stay untouched (see journal_hold).
    let journal = JournalHold::scratch()?;
    let mut link = Link::open(specs, journal, args.common.record.record.clone())?;
    let patience = args.common.patience();
    let not_ready = link.wait_ready(patience).await;
    if not_ready.len() == link.views.len() {
        let sentences: Vec<String> = not_ready.iter().map(|n| n.sentence(patience)).collect();
        return Err(Failure::new(Exit::Unreachable, sentences.join("; ")));
    }
    for agent in &not_ready {
        warn(&format!(
            "collie-phone: left out: {}",
            agent.sentence(patience)
        ));
    }
    let now = OffsetDateTime::now_utc();
    let several = link.views.len() > 1;
    let mut lines = Vec::new();
    let mut list = Vec::new();
    for view in link.views.values() {
        if not_ready.iter().any(|n| n.agent == view.name) {
            continue;
        }
        for pane in view.panes() {
            for ask in pane.asks() {
                let row = Row::new(view, &pane.pane.id, &pane.pane.title, ask, now);
                lines.extend(row.lines(several));
                list.push(row.json());
            }
        }
    }
    if lines.is_empty() {
        lines.push("No open asks.".into());
    }
    Ok(Report {
        exit: if not_ready.is_empty() {
            Exit::Done
        } else {
            Exit::Unreachable
        },
        lines,
        json: Value::Array(list),
    })
}

/// One open ask as listed.
struct Row<'a> {
    agent: &'a str,
    pane: &'a str,
    pane_title: &'a str,
    ask: &'a Ask,
    card: CardState,
    /// Why allow-always is held back on this card, when it is (SPEC A11, A12).
    held_back: Option<&'static str>,
    seconds_left: Option<i64>,
}

impl<'a> Row<'a> {
    fn new(
        view: &'a AgentView,
        pane: &'a str,
        pane_title: &'a str,
        ask: &'a Ask,
        now: OffsetDateTime,
    ) -> Self {
        let key = AskKey {
            agent: view.name.clone(),
            pane: pane.to_string(),
            ask_id: ask.id.clone(),
        };
        let card = CardState::new(key, ask.clone(), pane_title.to_string(), now);
        let held_back = card.allow_always(view.offer()).err();
        let seconds_left = ask
            .expires_at
            .as_ref()
            .and_then(crate::wire::Stamp::at)
            .map(|at| (at - now).whole_seconds().max(0));
        Self {
            agent: &view.name,
            pane,
            pane_title,
            ask,
            card,
            held_back,
            seconds_left,
        }
    }

    fn question(&self) -> Option<String> {
        match self.ask.kind {
            AskKind::Permission => self
                .ask
                .permission
                .as_ref()
                .map(|p| format!("{} {}", p.tool, p.arguments)),
            AskKind::Choice => self.ask.choice.as_ref().and_then(|c| c.prompt.clone()),
            AskKind::Text => self.ask.text.as_ref().and_then(|t| t.prompt.clone()),
            AskKind::Form => self.ask.form.as_ref().and_then(|f| f.prompt.clone()),
            AskKind::Unknown(_) => None,
        }
    }

    fn lines(&self, several: bool) -> Vec<String> {
        let mut head = format!(
            "{}  {}  pane {} ({})",
            self.ask.id, self.ask.kind, self.pane, self.pane_title
        );
        if several {
            head.push_str(&format!("  agent {}", self.agent));
        }
        if let Some(left) = self.seconds_left {
            head.push_str(&format!("  expires in {left} s"));
        }
        let mut lines = vec![head, format!("  {}", self.ask.title)];
        if let Some(question) = self.question() {
            lines.push(format!("  {}", question.replace('\n', "\n  ")));
        }
        if !self.ask.is_answerable() {
            lines.push(format!("  {CANNOT_ANSWER}"));
            return lines;
        }
        let options: Vec<String> = self
            .card
            .options(self.held_back.is_none())
            .iter()
            .enumerate()
            .map(|(at, o)| format!("{} ({}: {})", o.id, at + 1, o.label))
            .collect();
        match self.ask.kind {
            AskKind::Permission | AskKind::Choice => {
                lines.push(format!("  options: {}", options.join(", ")));
                if let Some(why) = self.held_back {
                    lines.push(format!("  {why}"));
                }
            }
            AskKind::Text => lines.push("  answer with --text TEXT".into()),
            AskKind::Form => {
                let fields: Vec<String> = self
                    .ask
                    .form
                    .iter()
                    .flat_map(|f| &f.fields)
                    .map(|f| {
                        let mut text = format!("{} ({}", f.id, f.kind);
                        if f.required {
                            text.push_str(", required");
                        }
                        if !f.options.is_empty() {
                            let ids: Vec<&str> = f.options.iter().map(|o| o.id.as_str()).collect();
                            text.push_str(&format!(": {}", ids.join("|")));
                        }
                        if let Some(default) = &f.default {
                            text.push_str(&format!(", default {default}"));
                        }
                        text.push(')');
                        text
                    })
                    .collect();
                lines.push(format!("  fields: {}", fields.join(", ")));
            }
            AskKind::Unknown(_) => {}
        }
        lines
    }

    fn json(&self) -> Value {
        let options: Vec<Value> = self
            .card
            .options(self.held_back.is_none())
            .iter()
            .map(|o| json!(o))
            .collect();
        json!({
            "agent": self.agent,
            "pane": self.pane,
            "paneTitle": self.pane_title,
            "id": self.ask.id,
            "revision": self.ask.revision,
            "kind": self.ask.kind,
            "title": self.ask.title,
            "question": self.question(),
            "options": options,
            "fields": self.ask.form.as_ref().map(|f| &f.fields),
            "openedAt": self.ask.opened_at,
            "expiresAt": self.ask.expires_at,
            "secondsLeft": self.seconds_left,
            "answerable": self.ask.is_answerable(),
            "allowAlwaysHeldBack": self.held_back,
            "wordsAltered": self.ask.words_altered,
            "ask": self.ask,
        })
    }
}
