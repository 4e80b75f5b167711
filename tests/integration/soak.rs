//! The soak (docs/AGENT-AUTHORS.md §5): the real engine, in process, against `collie-phone agent
//! --chaos …` for a bounded time (`SOAK_SECONDS`, default 20), sending many uniquely worded
//! texts and answering every ask it sees, retrying only what the person may retry: unknown
//! outcomes (SPEC Q4: the engine's checks with the same id, then at most MAX_ATTEMPTS tries,
//! Q5) and tries that never left (not-sent).
//!
//! Then it proves, whatever the dice did:
//! - no intent ran twice: the agent's log names every applied request id at most once, and no
//!   sent text is twice in its pane (SPEC Q1, Q3);
//! - no typed text was lost: each is in its pane exactly when the agent applied it, and each
//!   has a receipt in the journal with its text and a final state the person sees (Q2);
//! - every intent reached a final state;
//! - the engine's view ended consistent with fresh reads: the same snapshot at the same ETag,
//!   and the same sent texts, once each, in every pane (H4, H5);
//! - each kind of chaos happened at least once (from the log), so the paths were walked.
//!
//! It asserts invariants, never counts of chaos or timings, so a loaded machine only makes it
//! slower.

use crate::common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use collie_phone::chat::pane_log::{ChatEntry, PaneLog};
use collie_phone::engine::intent::MAX_ATTEMPTS;
use collie_phone::engine::{
    AgentChange, AgentSpec, Engine, EngineOptions, FromEngine, IntentKind, IntentRecord,
    IntentState, ToEngine,
};
use collie_phone::transport::Endpoint;
use collie_phone::wire::{self, Answer, Ask, AskKind, EventsReply, FieldKind, Snapshot};
use serde_json::Value;

const DEFAULT_SECONDS: u64 = 20;
/// Every kind of chaos at once (docs/AGENT-AUTHORS.md §5), with a hold longer than a POST's
/// deadline (3 s, SPEC S6), so a delayed POST is an unknown outcome and a delayed GET a failed
/// poll.
const CHAOS: &str =
    "drop-after-apply=0.2,delay=0.1:3500ms,restart-every=7s,expire-early=0.2,dup-events=0.2";
/// The kinds of chaos, as the agent logs them (`chaos kind=…`).
const KINDS: &[&str] = &[
    "drop-after-apply",
    "delay",
    "restart",
    "expire-early",
    "dup-events",
];
/// How much longer the soak types when some kind of chaos has not happened yet.
const MORE_FOR_EVERY_KIND: Duration = Duration::from_secs(90);
/// Every text starts so, so the chat's own items are told apart.
const TEXT_PREFIX: &str = "soak text";
const SEND_EVERY: Duration = Duration::from_millis(250);
/// A try that never left is sent again after this pause.
const NOT_SENT_PAUSE: Duration = Duration::from_millis(400);
/// How long the intents still open after the sending stops may take to settle.
const SETTLE_DEADLINE: Duration = Duration::from_secs(120);
/// How long the engine may take to catch up with the agent at the end.
const CATCH_UP_DEADLINE: Duration = Duration::from_secs(90);

fn soak_seconds() -> u64 {
    std::env::var("SOAK_SECONDS")
        .ok()
        .and_then(|text| text.parse().ok())
        .filter(|seconds| *seconds > 0)
        .unwrap_or(DEFAULT_SECONDS)
}

/// The phone without a screen: the engine and what it reported.
struct Phone {
    engine: Engine,
    ready: bool,
    snapshot: Option<Arc<Snapshot>>,
    panes: HashMap<String, PaneLog>,
    intents: HashMap<String, IntentRecord>,
    /// Every text typed, with the request id of its intent once the engine named it.
    texts: BTreeMap<String, Option<String>>,
    /// Asks (id, revision) already answered, so each form is answered once.
    answered: HashSet<(String, u64)>,
    /// Unknown intents whose retry was asked for, by attempts seen, so each is asked once.
    retried: HashSet<(String, u32, bool)>,
    /// Not-sent intents to send again, and when.
    resend: HashMap<String, Instant>,
    sent_count: usize,
    next_pane: usize,
    /// Panes whose chat showed a sent text twice at some moment, with that chat's texts.
    shown_twice: Vec<(String, Vec<String>)>,
}

impl Phone {
    fn new(engine: Engine) -> Self {
        Self {
            engine,
            ready: false,
            snapshot: None,
            panes: HashMap::new(),
            intents: HashMap::new(),
            texts: BTreeMap::new(),
            answered: HashSet::new(),
            retried: HashSet::new(),
            resend: HashMap::new(),
            sent_count: 0,
            next_pane: 0,
            shown_twice: Vec::new(),
        }
    }

    fn command(&self, command: ToEngine) {
        self.engine.commands.send(command).expect("engine alive");
    }

    /// Takes every update waiting, acting as a person would on intents.
    fn drain(&mut self) {
        while let Ok(update) = self.engine.updates.try_recv() {
            self.note(update);
        }
        let now = Instant::now();
        let due: Vec<String> = self
            .resend
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for request_id in due {
            self.resend.remove(&request_id);
            self.command(ToEngine::Retry { request_id });
        }
    }

    fn note(&mut self, update: FromEngine) {
        match update {
            FromEngine::Agent { change, .. } => match change {
                AgentChange::Status(status) => self.ready = status.is_ready(),
                AgentChange::Snapshot { snapshot, .. } => self.snapshot = Some(snapshot),
                AgentChange::PaneEvents { pane, events } => {
                    let log = self.panes.entry(pane.clone()).or_default();
                    log.apply(&events);
                    // The person must never see a text twice, not even for one poll.
                    let texts = log_texts(log);
                    let unique: HashSet<&String> = texts.iter().collect();
                    if unique.len() < texts.len() {
                        self.shown_twice.push((pane, texts));
                    }
                }
                AgentChange::PaneView { pane, view } => {
                    self.panes.entry(pane).or_default().reset(view)
                }
                _ => {}
            },
            FromEngine::Intent(record) => self.intent(record),
            _ => {}
        }
    }

    /// SPEC Q4: the person retries only an unknown (or unsent) intent: while the engine checks
    /// it that is "check now", and once more when the checks end without an answer.
    fn intent(&mut self, record: IntentRecord) {
        if let IntentKind::Send { text, .. } = &record.kind
            && let Some(slot) = self.texts.get_mut(text)
        {
            slot.get_or_insert_with(|| record.request_id.clone());
        }
        match &record.state {
            IntentState::Unknown { .. }
                if record.attempts < MAX_ATTEMPTS
                    && self.retried.insert((
                        record.request_id.clone(),
                        record.attempts,
                        record.checking,
                    )) =>
            {
                self.command(ToEngine::Retry {
                    request_id: record.request_id.clone(),
                });
            }
            IntentState::NotSent { .. } => {
                self.resend
                    .insert(record.request_id.clone(), Instant::now() + NOT_SENT_PAUSE);
            }
            _ => {}
        }
        self.intents.insert(record.request_id.clone(), record);
    }

    /// One more uniquely worded text, to the next pane, naming the turn it saw (SPEC A16).
    fn send_text(&mut self) {
        let Some(snapshot) = self.snapshot.clone() else {
            return;
        };
        let panes: Vec<_> = snapshot.panes().map(|(_, _, p)| p.clone()).collect();
        if panes.is_empty() {
            return;
        }
        let pane = &panes[self.next_pane % panes.len()];
        self.next_pane += 1;
        self.sent_count += 1;
        let text = format!("{TEXT_PREFIX} {:05} for {}", self.sent_count, pane.id);
        self.texts.insert(text.clone(), None);
        self.command(ToEngine::Submit {
            agent: "soak".into(),
            kind: IntentKind::Send {
                pane: pane.id.clone(),
                turn_id: pane.turn.as_ref().map(|t| t.id.clone()),
                text,
            },
        });
    }

    /// Answers every ask of the latest snapshot not answered yet in this form.
    fn answer_asks(&mut self) {
        let Some(snapshot) = self.snapshot.clone() else {
            return;
        };
        for (_, _, pane) in snapshot.panes() {
            for ask in &pane.asks {
                let Some(answer) = answer_for(ask) else {
                    continue;
                };
                if !self.answered.insert((ask.id.clone(), ask.revision)) {
                    continue;
                }
                self.command(ToEngine::Submit {
                    agent: "soak".into(),
                    kind: IntentKind::Answer {
                        pane: pane.id.clone(),
                        ask_id: ask.id.clone(),
                        revision: ask.revision,
                        answer,
                    },
                });
            }
        }
    }

    fn unsettled(&self) -> Vec<&IntentRecord> {
        self.intents
            .values()
            .filter(|r| !r.state.is_final())
            .collect()
    }

    /// A text whose intent the engine has not reported yet is not settled either.
    fn all_texts_named(&self) -> bool {
        self.texts.values().all(Option::is_some)
    }
}

/// The answer of the right shape for an ask (SPEC A15); None for a kind the phone cannot
/// answer (SPEC V3).
fn answer_for(ask: &Ask) -> Option<Answer> {
    let mut answer = Answer::default();
    match ask.kind {
        AskKind::Permission | AskKind::Choice => {
            answer.option_id = Some(ask.options().first()?.id.clone());
        }
        AskKind::Text => answer.text = Some(format!("soak answer to {}", ask.id)),
        AskKind::Form => {
            let form = ask.form.as_ref()?;
            let mut values = BTreeMap::new();
            for field in &form.fields {
                let value = match field.kind {
                    FieldKind::Text => Value::from("soak"),
                    FieldKind::Boolean => Value::from(true),
                    FieldKind::Number => Value::from(1),
                    FieldKind::Choice => Value::from(field.options.first()?.id.clone()),
                    _ => return None,
                };
                values.insert(field.id.clone(), value);
            }
            answer.values = Some(values);
        }
        _ => return None,
    }
    Some(answer)
}

/// Every sent text in a chat, in order.
fn texts_of<'a>(items: impl Iterator<Item = &'a str>) -> Vec<String> {
    items
        .filter(|text| text.starts_with(TEXT_PREFIX))
        .map(str::to_string)
        .collect()
}

fn log_texts(log: &PaneLog) -> Vec<String> {
    texts_of(log.entries.iter().filter_map(|entry| match entry {
        ChatEntry::Item(item) => Some(item.text.as_str()),
        ChatEntry::Closed(_) | ChatEntry::LetGo(_) => None,
    }))
}

/// What the agent holds now, read fresh: the snapshot and every pane's whole view (SPEC H5:
/// an events read in no epoch of the agent's gives the view).
struct Fresh {
    snapshot: Snapshot,
    etag: String,
    texts: BTreeMap<String, Vec<String>>,
}

async fn read_fresh(client: &common::Client) -> Option<Fresh> {
    let reply = client.get(common::SNAPSHOT).await;
    if reply.status != 200 {
        return None;
    }
    let etag = reply.header("etag")?;
    let snapshot = wire::decode::<Snapshot>(&reply.body).ok()?.value;
    let mut texts = BTreeMap::new();
    for (_, _, pane) in snapshot.panes() {
        let reply = client
            .get(&format!(
                "/session/v1/pane/{}/events?after=0&epoch=fresh",
                pane.id
            ))
            .await;
        if reply.status != 200 {
            return None;
        }
        let view = wire::decode::<EventsReply>(&reply.body).ok()?.value.view?;
        texts.insert(
            pane.id.clone(),
            texts_of(view.items.iter().map(|item| item.text.as_str())),
        );
    }
    Some(Fresh {
        snapshot,
        etag,
        texts,
    })
}

/// The journal's receipts: request id → (the intent as created, the last outcome state name).
fn receipts(journal: &Path) -> HashMap<String, (Value, Option<String>)> {
    let text = std::fs::read_to_string(journal).expect("the journal");
    let mut receipts: HashMap<String, (Value, Option<String>)> = HashMap::new();
    for line in text.lines() {
        let Ok(line) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match line["op"].as_str() {
            Some("created") => {
                let id = line["record"]["requestId"]
                    .as_str()
                    .expect("an id")
                    .to_string();
                receipts.insert(id, (line["record"].clone(), None));
            }
            Some("outcome") => {
                let id = line["request_id"].as_str().expect("an id");
                if let Some(receipt) = receipts.get_mut(id) {
                    receipt.1 = line["state"]["state"].as_str().map(str::to_string);
                }
            }
            _ => {}
        }
    }
    receipts
}

/// `applied request_id=…` lines of the agent's log, counted per id.
fn applied_ids(log: &str) -> HashMap<String, usize> {
    let mut applied = HashMap::new();
    for line in log.lines() {
        if let Some(rest) = line.split(" applied request_id=").nth(1) {
            let id = rest.split_whitespace().next().unwrap_or_default();
            *applied.entry(id.to_string()).or_insert(0) += 1;
        }
    }
    applied
}

fn chaos_acts(log: &str) -> BTreeMap<String, usize> {
    let mut acts = BTreeMap::new();
    for line in log.lines() {
        if let Some(rest) = line.split(" chaos kind=").nth(1) {
            let kind = rest.split_whitespace().next().unwrap_or_default();
            *acts.entry(kind.to_string()).or_insert(0) += 1;
        }
    }
    acts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn q1_q5_soak_against_a_chaotic_agent_runs_nothing_twice_and_loses_no_text() {
    let dir = common::temp_dir();
    let socket = dir.path().join("run").join("agent.sock");
    let log_path = dir.path().join("agent.log");
    let state = dir.path().join("state");
    let args: Vec<String> = [
        "agent",
        "--socket",
        &socket.display().to_string(),
        "--speed",
        "4",
        "--seed",
        "7",
        "--state",
        &state.display().to_string(),
        "--log",
        &log_path.display().to_string(),
        "--chaos",
        CHAOS,
    ]
    .iter()
    .map(|arg| arg.to_string())
    .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut agent = common::AgentProcess::start_with_env(&args, &[("RUST_LOG", "info")]);
    let journal = dir.path().join("intents.jsonl");
    let engine = Engine::start_with(
        vec![AgentSpec {
            name: "soak".into(),
            endpoint: Endpoint::socket(agent.socket_path()),
        }],
        &journal,
        EngineOptions::default(),
    )
    .expect("the engine starts");
    let mut phone = Phone::new(engine);

    // Type and answer for the soak's time, and on until the log shows every kind of chaos
    // (the dice are seeded, but how many requests they meet depends on the machine).
    let started = Instant::now();
    let sending_for = Duration::from_secs(soak_seconds());
    let mut next_send = Instant::now();
    loop {
        let elapsed = started.elapsed();
        if elapsed >= sending_for {
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            let acts = chaos_acts(&log);
            if KINDS.iter().all(|kind| acts.contains_key(*kind))
                || elapsed >= sending_for + MORE_FOR_EVERY_KIND
            {
                break;
            }
        }
        phone.drain();
        if phone.snapshot.is_some() && Instant::now() >= next_send {
            phone.send_text();
            phone.answer_asks();
            next_send = Instant::now() + SEND_EVERY;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Settle: every intent final; only unknown and unsent ones go again.
    let settle_until = Instant::now() + SETTLE_DEADLINE;
    loop {
        phone.drain();
        if phone.all_texts_named() && phone.unsettled().is_empty() && phone.resend.is_empty() {
            break;
        }
        assert!(
            Instant::now() < settle_until,
            "intents still open after {SETTLE_DEADLINE:?}: {:?}",
            phone
                .unsettled()
                .iter()
                .map(|r| (&r.request_id, r.state.name(), r.attempts))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // The engine catches up with fresh reads of the agent (the dice still roll meanwhile).
    let client = agent.client();
    let catch_up_until = Instant::now() + CATCH_UP_DEADLINE;
    let fresh = loop {
        phone.drain();
        if let Some(fresh) = read_fresh(&client).await {
            phone.drain();
            let engine_etag = phone.snapshot.as_ref().map(|s| wire::etag(&s.epoch, s.rev));
            let same_snapshot = engine_etag.as_deref() == Some(fresh.etag.as_str())
                && phone.snapshot.as_deref() == Some(&fresh.snapshot);
            let same_texts = fresh
                .texts
                .iter()
                .all(|(pane, texts)| phone.panes.get(pane).map(log_texts).as_ref() == Some(texts));
            if same_snapshot && same_texts {
                break fresh;
            }
            if Instant::now() >= catch_up_until {
                let differ: Vec<_> = fresh
                    .texts
                    .iter()
                    .filter(|(pane, texts)| {
                        phone.panes.get(*pane).map(log_texts).as_ref() != Some(texts)
                    })
                    .map(|(pane, texts)| (pane, texts, phone.panes.get(pane).map(log_texts)))
                    .collect();
                panic!(
                    "the engine did not catch up within {CATCH_UP_DEADLINE:?}: etag {engine_etag:?} vs {}, panes that differ (agent, engine): {differ:#?}",
                    fresh.etag
                );
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    agent.stop(false);
    let log = std::fs::read_to_string(&log_path).expect("the agent's log");

    // No intent ran twice.
    let applied = applied_ids(&log);
    let twice: Vec<_> = applied.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        twice.is_empty(),
        "request ids applied more than once: {twice:?}"
    );
    let mut in_panes: HashMap<&String, usize> = HashMap::new();
    for texts in fresh.texts.values() {
        for text in texts {
            *in_panes.entry(text).or_insert(0) += 1;
        }
    }
    let doubled: Vec<_> = in_panes.iter().filter(|(_, n)| **n > 1).collect();
    assert!(doubled.is_empty(), "texts in a pane twice: {doubled:?}");
    assert!(
        phone.shown_twice.is_empty(),
        "the engine showed a text twice (repeated events applied again): {:#?}",
        phone.shown_twice
    );

    // No typed text lost: in its pane exactly when applied, and a receipt with a final state.
    let receipts = receipts(&journal);
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    for (text, request_id) in &phone.texts {
        let request_id = request_id.as_ref().expect("every text has an intent");
        let record = &phone.intents[request_id];
        assert!(record.state.is_final(), "{text}: {}", record.state.name());
        let was_applied = applied.contains_key(request_id);
        assert_eq!(
            was_applied,
            in_panes.contains_key(text),
            "{text} ({request_id}, {}): applied by the log but not in its pane, or the reverse",
            record.state.name()
        );
        if matches!(
            record.state,
            IntentState::Done { .. } | IntentState::Replayed { .. }
        ) {
            assert!(
                was_applied,
                "{text}: {} but never applied",
                record.state.name()
            );
        }
        let (created, last) = receipts
            .get(request_id)
            .unwrap_or_else(|| panic!("{text}: no receipt in the journal"));
        assert_eq!(
            created["kind"]["text"],
            text.as_str(),
            "the receipt holds the text"
        );
        assert_eq!(
            last.as_deref(),
            Some(record.state.name()),
            "{text}: the journal's outcome"
        );
        *outcomes
            .entry(format!("send {}", record.state.name()))
            .or_insert(0) += 1;
    }
    for record in phone.intents.values() {
        assert!(
            record.state.is_final(),
            "{}: {}",
            record.request_id,
            record.state.name()
        );
        assert!(record.attempts <= MAX_ATTEMPTS, "Q5: never a third send");
        if let IntentKind::Answer { .. } = record.kind {
            *outcomes
                .entry(format!("answer {}", record.state.name()))
                .or_insert(0) += 1;
            if matches!(
                record.state,
                IntentState::Done { .. } | IntentState::Replayed { .. }
            ) {
                assert!(
                    applied.contains_key(&record.request_id),
                    "an answer done but never applied"
                );
            }
        }
    }

    // Every kind of chaos was walked.
    let acts = chaos_acts(&log);
    for kind in KINDS {
        assert!(
            acts.contains_key(*kind),
            "no {kind} in {:?}: {acts:?}",
            started.elapsed()
        );
    }
    eprintln!(
        "soak: typed for {sending_for:?}, {:?} in all: {} texts, {} answers, {} applied; outcomes {outcomes:?}; chaos acts {acts:?}",
        started.elapsed(),
        phone.texts.len(),
        phone.answered.len(),
        applied.len(),
    );
}
