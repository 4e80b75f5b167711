//! The Collie engine: one session task per agent, and the intents with their journal. Nothing
//! here knows about the terminal: the app sends [`ToEngine`] and reads [`FromEngine`].

pub(crate) mod agent_name;
pub mod dsh;
pub mod exchange_log;
pub mod intent;
pub(crate) mod journal;
pub(crate) mod observer;
mod poll_grid;
pub mod push;
pub(crate) mod record;
mod session;
mod session_core;
pub mod status;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use time::OffsetDateTime;
use tokio::sync::{Notify, mpsc, watch};

use crate::transport::{Endpoint, Method, Request};
use crate::wire::{
    self, ConversationsPage, Event, Hello, ItemsPage, PaneView, Report, Snapshot, VERSION_HEADER,
    limits,
};
pub use agent_name::short_name;
use dsh::intents as dsh_intents;
use dsh::session::{BridgeSession, BridgeShared};
use dsh::{BridgeClient, BridgeSpec, DshChange};
pub use exchange_log::ExchangeRecord;
pub use intent::{Decider, IntentKind, IntentState};
pub use journal::{IntentRecord, Journal};
pub(crate) use record::Recorder;
use session_core::SessionCore;
pub use status::AgentStatus;

/// One agent to dial.
#[derive(Clone)]
pub struct AgentSpec {
    pub name: String,
    pub endpoint: Endpoint,
}

/// What the app asks of the engine.
#[derive(Debug)]
pub enum ToEngine {
    /// A new intent with a fresh request id (SPEC Q1).
    Submit { agent: String, kind: IntentKind },
    /// The person's retry of an unknown (or not sent) intent: same id, same body (SPEC Q4).
    Retry { request_id: String },
    /// Whether the person is watching (SPEC S7, T8).
    Watching(bool),
    /// The panes on screen now, as (agent, pane): their events are read at every poll, the
    /// events of other quiet panes when the snapshot says they changed (SPEC S7, T8). Until
    /// the first of these every pane counts as on screen.
    OnScreen(Vec<(String, String)>),
    /// Poll this agent now (after an intent, or a key that wants fresh data).
    PollNow { agent: String },
    /// Read a page of the agent's conversations, newest first (SPEC W5).
    LoadConversations {
        agent: String,
        after: Option<String>,
    },
    /// Read a page of one conversation's items, oldest first (SPEC W5).
    LoadItems {
        agent: String,
        conversation: String,
        after: Option<String>,
    },
}

/// A history page, or why it could not be read.
#[derive(Debug, Clone)]
pub enum HistoryPage {
    Conversations {
        after: Option<String>,
        page: ConversationsPage,
    },
    Items {
        conversation: String,
        after: Option<String>,
        page: ItemsPage,
    },
    Failed {
        what: String,
        why: String,
    },
}

/// What the engine tells the app.
// Each message is built once and moved through a channel: boxing the intent record would cost
// an allocation per message to save a few hundred bytes of channel slot.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum FromEngine {
    Agent { agent: String, change: AgentChange },
    Intent(IntentRecord),
    Exchange(ExchangeRecord),
    History { agent: String, page: HistoryPage },
}

/// A change in one agent's state.
#[derive(Debug, Clone)]
pub enum AgentChange {
    Status(AgentStatus),
    Hello(Hello),
    /// A new epoch was seen (SPEC H5): keep drawing, the new snapshot and views follow.
    NewEpoch {
        epoch: String,
    },
    Snapshot {
        snapshot: Arc<Snapshot>,
        report: Report,
    },
    PaneEvents {
        pane: String,
        events: Vec<Event>,
    },
    /// Drop what is shown of this pane and take this (SPEC H5).
    PaneView {
        pane: String,
        view: PaneView,
    },
    /// A poll went through.
    Synced(OffsetDateTime),
    /// One poll failed after a good read (SPEC H6): what is shown stays, but it may be old,
    /// and the screens say so until the next poll goes through or the agent is unreachable.
    Missed {
        reason: String,
    },
    /// What only a DSH bridge tells: capabilities, model catalog, workspaces, tasks, desktop
    /// reloads, tasks no longer addressed (SPEC D; `dsh::DshChange`).
    Dsh(DshChange),
}

/// What intents need to know of a session: the chosen version while ready.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SessionInfo {
    pub(crate) version: Option<u32>,
    pub(crate) epoch: Option<String>,
}

struct AgentHandle {
    endpoint: Endpoint,
    info: watch::Receiver<SessionInfo>,
    poke: Arc<Notify>,
    on_screen: watch::Sender<session::OnScreen>,
}

/// A DSH bridge as the intents see it.
struct BridgeHandle {
    client: BridgeClient,
    shared: Arc<BridgeShared>,
    poke: Arc<Notify>,
    /// Which of its panes are on screen: a session pane's re-reads follow it (docs/DSH.md).
    on_screen: watch::Sender<session::OnScreen>,
}

/// How the engine runs, apart from its agents.
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    /// Write every exchange to this file as JSON lines (`--record`).
    pub record: Option<PathBuf>,
    /// Leave an unknown outcome to the caller instead of checking it (`intent::CHECKS_AFTER`):
    /// a headless command reports it and exits with its own code, and its caller decides.
    pub leave_unknown: bool,
}

/// The running engine. Dropping every sender of its commands stops it: the intents end, and
/// every session ends at its next wait (as it does when the receiver of the updates is dropped).
pub struct Engine {
    pub commands: mpsc::UnboundedSender<ToEngine>,
    pub updates: mpsc::UnboundedReceiver<FromEngine>,
    /// Intents recovered from the journal at start (SPEC Q2).
    pub recovered: Vec<IntentRecord>,
}

impl Engine {
    /// Starts a session per agent and the intent loop. Needs a tokio runtime.
    pub fn start(agents: Vec<AgentSpec>, journal_path: &Path) -> anyhow::Result<Self> {
        Self::start_with(agents, journal_path, EngineOptions::default())
    }

    /// [`Engine::start`] with options.
    pub fn start_with(
        agents: Vec<AgentSpec>,
        journal_path: &Path,
        options: EngineOptions,
    ) -> anyhow::Result<Self> {
        Self::start_mixed(agents, Vec::new(), journal_path, options)
    }

    /// Collie agents and DSH bridges in one engine, one journal: a bridge is one more agent by
    /// its name (SPEC D). Its name must not be one of the agents'.
    pub fn start_mixed(
        agents: Vec<AgentSpec>,
        bridges: Vec<BridgeSpec>,
        journal_path: &Path,
        options: EngineOptions,
    ) -> anyhow::Result<Self> {
        if let Some(both) = bridges
            .iter()
            .find(|b| agents.iter().any(|a| a.name == b.name))
        {
            anyhow::bail!(
                "an agent and a DSH bridge are both named \"{}\"; name them apart in the config",
                both.name
            );
        }
        let (journal, recovered) = Journal::open(journal_path)?;
        let (updates_tx, updates) = mpsc::unbounded_channel();
        let recorder = match &options.record {
            Some(path) => Recorder::create(path, &agents, &bridges, updates_tx.clone())?,
            None => Recorder::off(),
        };
        let observer = observer::Observer::new(recorder, updates_tx.clone());
        let (commands, commands_rx) = mpsc::unbounded_channel();
        let (watching_tx, watching_rx) = watch::channel(true);
        let (stop_tx, stop_rx) = watch::channel(false);
        let mut handles = HashMap::new();
        let grid = poll_grid::PollGrid::starting(tokio::time::Instant::now());
        for spec in agents {
            let (info_tx, info_rx) = watch::channel(SessionInfo::default());
            let (on_screen_tx, on_screen_rx) = watch::channel(session::OnScreen::Every);
            let poke = Arc::new(Notify::new());
            let core = SessionCore::new(
                spec.name.clone(),
                "agent",
                updates_tx.clone(),
                watching_rx.clone(),
                poke.clone(),
                stop_rx.clone(),
            );
            let session = session::Session::new(
                core,
                spec.endpoint.clone(),
                info_tx,
                observer.clone(),
                on_screen_rx,
                grid,
            );
            tokio::spawn(session.run());
            handles.insert(
                spec.name,
                AgentHandle {
                    endpoint: spec.endpoint,
                    info: info_rx,
                    poke,
                    on_screen: on_screen_tx,
                },
            );
        }
        let mut bridge_handles = HashMap::new();
        for spec in bridges {
            let client = BridgeClient::new(spec.url.clone(), spec.token.clone())
                .map_err(|why| anyhow::anyhow!("DSH bridge {}: {why}", spec.name))?
                .observed_by(&spec.name, observer.clone());
            let shared = Arc::new(BridgeShared::default());
            let poke = Arc::new(Notify::new());
            let (on_screen_tx, on_screen_rx) = watch::channel(session::OnScreen::Every);
            let core = SessionCore::new(
                spec.name.clone(),
                "bridge",
                updates_tx.clone(),
                watching_rx.clone(),
                poke.clone(),
                stop_rx.clone(),
            );
            let session = BridgeSession::new(core, client.clone(), shared.clone(), on_screen_rx);
            tokio::spawn(session.run());
            bridge_handles.insert(
                spec.name,
                BridgeHandle {
                    client,
                    shared,
                    poke,
                    on_screen: on_screen_tx,
                },
            );
        }
        let mut recovered = recovered;
        if !options.leave_unknown {
            // Checks of unknown outcomes go on after a restart of the phone, within their
            // horizon and only toward the epoch the try went to (SPEC Q3, Q4).
            for record in &mut recovered {
                record.checking = will_check(record);
            }
        }
        let intents: HashMap<String, IntentRecord> = recovered
            .iter()
            .map(|r| (r.request_id.clone(), r.clone()))
            .collect();
        let runner = IntentRunner {
            checks: Arc::new(Mutex::new(HashMap::new())),
            self_checks: !options.leave_unknown,
            journal: Arc::new(Mutex::new(journal)),
            agents: Arc::new(handles),
            bridges: Arc::new(bridge_handles),
            intents: Arc::new(Mutex::new(intents)),
            updates: updates_tx,
            watching: watching_tx,
            stop: stop_tx,
            observer,
        };
        for record in recovered.iter().filter(|r| r.checking) {
            runner.start_checks(&record.request_id, since(&record.created_at));
        }
        tokio::spawn(runner.run(commands_rx));
        Ok(Self {
            commands,
            updates,
            recovered,
        })
    }
}

/// Owns the journal and sends intents, each from its own task so a slow starter does not hold
/// up an answer.
#[derive(Clone)]
struct IntentRunner {
    /// The unknown outcomes being checked now, each with its "check now" (the person's Retry).
    checks: Arc<Mutex<HashMap<String, Arc<Notify>>>>,
    /// False when the caller settles unknown outcomes itself (`EngineOptions::leave_unknown`).
    self_checks: bool,
    journal: Arc<Mutex<Journal>>,
    agents: Arc<HashMap<String, AgentHandle>>,
    bridges: Arc<HashMap<String, BridgeHandle>>,
    intents: Arc<Mutex<HashMap<String, IntentRecord>>>,
    updates: mpsc::UnboundedSender<FromEngine>,
    watching: watch::Sender<bool>,
    /// Asks every session to stop, once the commands end.
    stop: watch::Sender<bool>,
    /// Records and shows every exchange the runner makes.
    observer: observer::Observer,
}

impl IntentRunner {
    async fn run(self, mut commands: mpsc::UnboundedReceiver<ToEngine>) {
        while let Some(command) = commands.recv().await {
            match command {
                ToEngine::Submit { agent, kind } => self.submit(agent, kind),
                ToEngine::Retry { request_id } => self.retry(&request_id),
                ToEngine::Watching(watching) => {
                    self.watching.send_replace(watching);
                }
                ToEngine::OnScreen(panes) => self.on_screen(&panes),
                ToEngine::PollNow { agent } => {
                    if let Some(handle) = self.agents.get(&agent) {
                        handle.poke.notify_one();
                    }
                    if let Some(handle) = self.bridges.get(&agent) {
                        handle.poke.notify_one();
                    }
                }
                ToEngine::LoadConversations { agent, after } => {
                    let runner = self.clone();
                    tokio::spawn(async move { runner.load_conversations(agent, after).await });
                }
                ToEngine::LoadItems {
                    agent,
                    conversation,
                    after,
                } => {
                    let runner = self.clone();
                    tokio::spawn(
                        async move { runner.load_items(agent, conversation, after).await },
                    );
                }
            }
        }
        // Every sender of commands is gone: nobody can ask anything of the sessions any more.
        self.stop.send_replace(true);
    }

    /// Tells each session which of its panes are on screen; one that gains a pane polls at
    /// once, so a pane just opened shows what is new without waiting for the next poll.
    fn on_screen(&self, panes: &[(String, String)]) {
        for (name, handle) in self.agents.iter() {
            let now = session::OnScreen::Panes(panes_of(panes, name));
            let mut gained = false;
            handle.on_screen.send_if_modified(|before| {
                if *before == now {
                    return false;
                }
                gained = now.adds_to(before);
                *before = now.clone();
                true
            });
            if gained {
                handle.poke.notify_one();
            }
        }
        // A bridge's pass reads lists, not panes: only its session followers heed this, and
        // one whose pane comes on screen reads at once by itself.
        for (name, handle) in self.bridges.iter() {
            let now = session::OnScreen::Panes(panes_of(panes, name));
            handle.on_screen.send_if_modified(|before| {
                let changed = *before != now;
                *before = now;
                changed
            });
        }
    }

    /// One history GET under the session's version, read within its cap (SPEC W5, L).
    async fn history_get(
        &self,
        agent: &str,
        path: String,
        reply_cap: usize,
    ) -> Result<bytes::Bytes, String> {
        if self.bridges.contains_key(agent) {
            return Err(format!(
                "{agent} is a DSH bridge, which keeps no conversation list; its sessions are in each workspace's sessions tab"
            ));
        }
        let handle = self
            .agents
            .get(agent)
            .ok_or_else(|| format!("no agent named {agent}"))?;
        let version = handle
            .info
            .borrow()
            .version
            .ok_or("the agent is not connected and ready")?;
        let request = Request {
            method: Method::Get,
            path,
            headers: vec![(VERSION_HEADER, version.to_string())],
            body: None,
            class: crate::transport::RouteClass::Read,
            reply_cap,
        };
        let started = Instant::now();
        let result = handle.endpoint.exchange(&request).await;
        self.observer
            .collie(agent, &request, None, result.as_ref(), started);
        let reply = result.map_err(|e| e.to_string())?;
        if reply.status != 200 {
            let code = wire::decode::<wire::ErrorBody>(&reply.body)
                .map(|d| d.value.code.as_str().to_string())
                .unwrap_or_default();
            return Err(format!("the agent answered {} {code}", reply.status));
        }
        Ok(reply.body)
    }

    async fn load_conversations(&self, agent: String, after: Option<String>) {
        let path = wire::paths::conversations(after.as_deref(), limits::MAX_CONVERSATIONS_PAGE);
        let page = match self
            .history_get(&agent, path, limits::MAX_CONVERSATIONS_REPLY)
            .await
        {
            Ok(body) => match wire::decode::<ConversationsPage>(&body) {
                Ok(decoded) => HistoryPage::Conversations {
                    after,
                    page: decoded.value,
                },
                Err(e) => HistoryPage::Failed {
                    what: "conversations".into(),
                    why: e.to_string(),
                },
            },
            Err(why) => HistoryPage::Failed {
                what: "conversations".into(),
                why,
            },
        };
        let _ = self.updates.send(FromEngine::History { agent, page });
    }

    async fn load_items(&self, agent: String, conversation: String, after: Option<String>) {
        let path = wire::paths::conversation_items(
            &conversation,
            after.as_deref(),
            limits::MAX_ITEMS_PAGE,
        );
        let page = match self
            .history_get(&agent, path, limits::MAX_ITEMS_REPLY)
            .await
        {
            Ok(body) => match wire::decode::<ItemsPage>(&body) {
                Ok(decoded) => HistoryPage::Items {
                    conversation,
                    after,
                    page: decoded.value,
                },
                Err(e) => HistoryPage::Failed {
                    what: format!("conversation {conversation}"),
                    why: e.to_string(),
                },
            },
            Err(why) => HistoryPage::Failed {
                what: format!("conversation {conversation}"),
                why,
            },
        };
        let _ = self.updates.send(FromEngine::History { agent, page });
    }

    fn publish(&self, record: &IntentRecord) {
        if let Ok(mut intents) = self.intents.lock() {
            intents.insert(record.request_id.clone(), record.clone());
        }
        let _ = self.updates.send(FromEngine::Intent(record.clone()));
    }

    fn submit(&self, agent: String, kind: IntentKind) {
        let mut record = IntentRecord {
            request_id: intent::fresh_request_id(),
            agent,
            kind,
            attempts: 0,
            state: IntentState::Created,
            created_at: wire::time::format(OffsetDateTime::now_utc()),
            checking: false,
            epoch: None,
        };
        if let Err(why) = self.check(&record) {
            record.state = IntentState::Refused {
                status: 0,
                code: "not-sent".into(),
                message: Some(why),
            };
            self.publish(&record);
            return;
        }
        // SPEC Q2: the receipt is on disk before the request may leave.
        let written = self
            .journal
            .lock()
            .map_err(|_| "the journal lock is poisoned".to_string())
            .and_then(|mut j| j.created(&record).map_err(|e| e.to_string()));
        if let Err(why) = written {
            tracing::error!("{why}");
            record.state = IntentState::NotSent {
                why: format!("its receipt could not be written: {why}"),
            };
            self.publish(&record);
            return;
        }
        self.publish(&record);
        let runner = self.clone();
        tokio::spawn(async move { runner.send(record).await });
    }

    /// Whether an intent may be sent at all, before its receipt is written.
    fn check(&self, record: &IntentRecord) -> Result<(), String> {
        if record.kind.is_dsh() {
            let Some(bridge) = self.bridges.get(&record.agent) else {
                return Err(format!("{} is not a DSH bridge", record.agent));
            };
            return match dsh_intents::request(
                &record.kind,
                &record.request_id,
                Some(&bridge.shared),
            ) {
                Some(result) => result.map(|_| ()),
                None => Err("not a DSH action".into()),
            };
        }
        record.kind.request(&record.request_id).map(|_| ())
    }

    /// SPEC Q4, Q5: only an unknown or unsent intent may go again, and never a third time.
    fn retry(&self, request_id: &str) {
        let record = self
            .intents
            .lock()
            .ok()
            .and_then(|i| i.get(request_id).cloned());
        let Some(record) = record else {
            tracing::warn!("retry of an intent this engine does not know: {request_id}");
            return;
        };
        // While the engine checks it, the person's Retry is "check now": the same request
        // again, which does not use up the one retry SPEC Q5 allows the person.
        let checker = self
            .checks
            .lock()
            .ok()
            .and_then(|c| c.get(request_id).cloned());
        if let Some(checker) = checker {
            checker.notify_one();
            return;
        }
        let allowed = match record.state {
            IntentState::Unknown { .. } => record.attempts < intent::MAX_ATTEMPTS,
            IntentState::NotSent { .. } => true,
            _ => false,
        };
        if !allowed {
            tracing::warn!(
                "refused a retry of {request_id} in state {}",
                record.state.name()
            );
            return;
        }
        let runner = self.clone();
        tokio::spawn(async move { runner.send(record).await });
    }

    async fn send(&self, record: IntentRecord) {
        if record.kind.is_dsh() {
            self.send_dsh(record).await;
        } else {
            self.send_collie(record).await;
        }
    }

    /// One try of a DSH action (SPEC D2, D5): its attempt on disk first, then the bridge's
    /// resends as its error table allows (`dsh::intents::deliver`).
    async fn send_dsh(&self, mut record: IntentRecord) {
        let Some(bridge) = self.bridges.get(&record.agent) else {
            record.state = IntentState::NotSent {
                why: format!("no DSH bridge named {}", record.agent),
            };
            self.finish(&record);
            return;
        };
        let built = dsh_intents::request(&record.kind, &record.request_id, Some(&bridge.shared));
        let (route, body) = match built {
            Some(Ok(parts)) => parts,
            Some(Err(why)) => {
                record.state = IntentState::Refused {
                    status: 0,
                    code: "not-sent".into(),
                    message: Some(why),
                };
                self.finish(&record);
                return;
            }
            None => {
                record.state = IntentState::NotSent {
                    why: "not a DSH action".into(),
                };
                self.finish(&record);
                return;
            }
        };
        let Some(attempt) = self.begin_attempt(&mut record, None) else {
            return;
        };
        let state = dsh_intents::deliver(
            &bridge.client,
            &bridge.shared,
            &record.kind,
            &record.request_id,
            route,
            body,
            attempt,
        )
        .await;
        if !matches!(state, IntentState::NotSent { .. }) {
            record.attempts = attempt;
        }
        record.state = state;
        self.finish(&record);
        bridge.poke.notify_one();
    }

    async fn send_collie(&self, mut record: IntentRecord) {
        let Some(agent) = self.agents.get(&record.agent) else {
            record.state = IntentState::NotSent {
                why: format!("no agent named {}", record.agent),
            };
            self.finish(&record);
            return;
        };
        let info = agent.info.borrow().clone();
        let Some(version) = info.version else {
            record.state = IntentState::NotSent {
                why: "the agent is not connected and ready".into(),
            };
            self.finish(&record);
            return;
        };
        let (path, body, class) = match record.kind.request(&record.request_id) {
            Ok(parts) => parts,
            Err(why) => {
                record.state = IntentState::NotSent { why };
                self.finish(&record);
                return;
            }
        };
        let Some(attempt) = self.begin_attempt(&mut record, info.epoch) else {
            return;
        };
        let request = Request {
            method: Method::Post,
            path,
            headers: vec![(VERSION_HEADER, version.to_string())],
            body: Some(body),
            class,
            reply_cap: limits::MAX_POST_REPLY,
        };
        let result = self
            .exchange(&record.agent, agent, &request, Some(&record.request_id))
            .await;
        let state = intent::outcome_of(attempt, result.as_ref());
        if !matches!(state, IntentState::NotSent { .. }) {
            record.attempts = attempt;
        }
        record.state = state;
        record.checking = self.self_checks && will_check(&record);
        self.finish(&record);
        agent.poke.notify_one();
        if record.checking {
            self.start_checks(&record.request_id, std::time::Duration::ZERO);
        }
    }

    /// Notes that an unknown outcome is being checked, before any Retry can come, and checks it;
    /// `elapsed` of its schedule has passed already (after a restart of the phone).
    fn start_checks(&self, request_id: &str, elapsed: std::time::Duration) {
        let now = Arc::new(Notify::new());
        if let Ok(mut checks) = self.checks.lock() {
            if checks.contains_key(request_id) {
                return;
            }
            checks.insert(request_id.to_string(), now.clone());
        }
        let (runner, request_id) = (self.clone(), request_id.to_string());
        tokio::spawn(async move { runner.settle(request_id, now, elapsed).await });
    }

    /// Checks an unknown outcome by itself (SPEC Q3, Q4): the same request id and bytes again
    /// at `intent::CHECKS_AFTER`, each time only if the agent is still in the epoch the try
    /// went to (hello read just before), until a reply settles it or the horizon passes. Then
    /// the record says it is no longer checked, and the person decides.
    async fn settle(self, request_id: String, now: Arc<Notify>, elapsed: std::time::Duration) {
        let mut settled = false;
        // The person asked for a check (Retry) that could not go: theirs is a retry then.
        let mut retry = false;
        for wait in intent::checks_ahead(elapsed) {
            let asked = tokio::select! {
                () = tokio::time::sleep(wait) => false,
                () = now.notified() => true,
            };
            match self.check_once(&request_id).await {
                Check::Unknown => {}
                Check::Settled => {
                    settled = true;
                    break;
                }
                Check::Stop(why) => {
                    tracing::info!(request_id = %request_id, "no more checks: {why}");
                    retry = asked;
                    break;
                }
            }
        }
        if let Ok(mut checks) = self.checks.lock() {
            checks.remove(&request_id);
        }
        if settled {
            return;
        }
        if let Some(mut record) = self.record(&request_id)
            && record.checking
        {
            record.checking = false;
            self.publish(&record);
        }
        if retry {
            self.retry(&request_id);
        }
    }

    /// One check of an unknown outcome: its attempt noted (same number: it is not a try of
    /// its own, SPEC Q5), then the same request again.
    async fn check_once(&self, request_id: &str) -> Check {
        let Some(mut record) = self.record(request_id) else {
            return Check::Stop("the intent is gone".into());
        };
        if !matches!(record.state, IntentState::Unknown { .. }) {
            return Check::Stop(format!("it is {} now", record.state.name()));
        }
        let Some(agent) = self.agents.get(&record.agent) else {
            return Check::Stop(format!("no agent named {}", record.agent));
        };
        let version = agent.info.borrow().version;
        let Some(version) = version else {
            // Not connected and ready: the next check may find it so.
            return Check::Unknown;
        };
        let epoch = match self.epoch_now(&record.agent, agent).await {
            Ok(epoch) => epoch,
            Err(()) => return Check::Unknown,
        };
        // SPEC Q3: the agent remembers request ids within its epoch only. In another one (it
        // restarted), or one nobody noted, the same id could run a second time.
        if record.epoch.as_deref() != Some(epoch.as_str()) {
            return Check::Stop("the agent is not in the epoch the try went to".into());
        }
        let Ok((path, body, class)) = record.kind.request(&record.request_id) else {
            return Check::Stop("the request cannot be built".into());
        };
        let noted = self
            .journal
            .lock()
            .map_err(|_| "the journal lock is poisoned".to_string())
            .and_then(|mut j| {
                j.attempt(&record.request_id, record.attempts, Some(&epoch))
                    .map_err(|e| e.to_string())
            });
        if let Err(why) = noted {
            return Check::Stop(format!("the journal could not note the check: {why}"));
        }
        let request = Request {
            method: Method::Post,
            path,
            headers: vec![(VERSION_HEADER, version.to_string())],
            body: Some(body),
            class,
            reply_cap: limits::MAX_POST_REPLY,
        };
        let result = self
            .exchange(&record.agent, agent, &request, Some(request_id))
            .await;
        let Some(state) = intent::check_outcome(result.as_ref()) else {
            return Check::Unknown;
        };
        record.state = state;
        record.checking = false;
        self.finish(&record);
        agent.poke.notify_one();
        Check::Settled
    }

    /// The agent's epoch now, from a hello of its own (SPEC H1).
    async fn epoch_now(&self, name: &str, agent: &AgentHandle) -> Result<String, ()> {
        let request = Request {
            method: Method::Get,
            path: wire::paths::hello(),
            headers: Vec::new(),
            body: None,
            class: crate::transport::RouteClass::Read,
            reply_cap: limits::MAX_HELLO_REPLY,
        };
        let reply = self
            .exchange(name, agent, &request, None)
            .await
            .map_err(|_| ())?;
        if reply.status != 200 {
            return Err(());
        }
        let hello = wire::decode::<Hello>(&reply.body).map_err(|_| ())?.value;
        Ok(hello.epoch)
    }

    /// One exchange, recorded and shown to the inspector like every other.
    async fn exchange(
        &self,
        name: &str,
        agent: &AgentHandle,
        request: &Request,
        request_id: Option<&str>,
    ) -> Result<crate::transport::Reply, crate::transport::TransportError> {
        let started = Instant::now();
        let result = agent.endpoint.exchange(request).await;
        self.observer
            .collie(name, request, request_id, result.as_ref(), started);
        result
    }

    fn record(&self, request_id: &str) -> Option<IntentRecord> {
        self.intents
            .lock()
            .ok()
            .and_then(|i| i.get(request_id).cloned())
    }

    /// Notes the next try in the journal and shows the intent as sending; None (the intent
    /// finished as not sent) when the note could not be written. SPEC Q5: the try is on disk
    /// before it leaves, so a crash can never cause a third.
    fn begin_attempt(&self, record: &mut IntentRecord, epoch: Option<String>) -> Option<u32> {
        let attempt = record.attempts + 1;
        record.epoch = epoch;
        record.checking = false;
        let noted = self
            .journal
            .lock()
            .map_err(|_| "the journal lock is poisoned".to_string())
            .and_then(|mut j| {
                j.attempt(&record.request_id, attempt, record.epoch.as_deref())
                    .map_err(|e| e.to_string())
            });
        if let Err(why) = noted {
            record.state = IntentState::NotSent {
                why: format!("its receipt could not be written: {why}"),
            };
            self.finish(record);
            return None;
        }
        record.state = IntentState::Sending;
        self.publish(record);
        Some(attempt)
    }

    fn finish(&self, record: &IntentRecord) {
        if let Ok(mut journal) = self.journal.lock()
            && let Err(e) = journal.outcome(&record.request_id, &record.state)
        {
            tracing::error!("could not record the outcome of {}: {e}", record.request_id);
        }
        tracing::info!(request_id = %record.request_id, agent = %record.agent, "{} → {}", record.kind.verb(), record.state.name());
        self.publish(record);
    }
}

/// How a check of an unknown outcome went.
enum Check {
    /// Still unknown: the next check may tell.
    Unknown,
    /// The agent's reply settled it.
    Settled,
    /// No more checks: the person decides.
    Stop(String),
}

/// Whether the engine checks this unknown outcome by itself: a send, an answer or an abort
/// after its first try, sent to a known epoch, inside its horizon (SPEC Q3, Q4, Q5).
fn will_check(record: &IntentRecord) -> bool {
    matches!(record.state, IntentState::Unknown { .. })
        && intent::checks_itself(&record.kind)
        && record.attempts < intent::MAX_ATTEMPTS
        && record.epoch.is_some()
        && !intent::checks_ahead(since(&record.created_at)).is_empty()
}

/// How long ago a receipt was written; the horizon when its time cannot be read.
fn since(created_at: &str) -> std::time::Duration {
    wire::time::parse(created_at)
        .map(|at| (OffsetDateTime::now_utc() - at).max(time::Duration::ZERO))
        .and_then(|d| std::time::Duration::try_from(d).ok())
        .unwrap_or(std::time::Duration::from_secs(
            intent::CHECK_HORIZON_SECONDS,
        ))
}

/// The panes of `agent` among the panes on screen (`(agent, pane)` pairs).
fn panes_of(panes: &[(String, String)], agent: &str) -> BTreeSet<String> {
    panes
        .iter()
        .filter(|(name, _)| name == agent)
        .map(|(_, pane)| pane.clone())
        .collect()
}
