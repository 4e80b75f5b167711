//! The engine as a headless command uses it: start it on the agents the flags name, keep a
//! view of each agent exactly as the phone does (`app::agents::AgentView`), wait until the
//! agent is connected and ready, and run one intent to its outcome.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use super::exit::Exit;
use super::journal_hold::JournalHold;
use super::out::Failure;
use crate::engine::{
    AgentSpec, AgentStatus, Engine, EngineOptions, FromEngine, IntentKind, IntentRecord,
    IntentState, ToEngine,
};
use crate::model::agents::{AgentView, PaneRef};
use crate::transport::privacy::missing_socket;
use crate::transport::{Endpoint, NoSocket};

/// How long past `--wait` to give an agent that has not answered its first poll at all: the
/// transport's own deadline (at most 5 s over TLS, SPEC T7) says when that poll fails.
const FIRST_POLL_GRACE: Duration = Duration::from_secs(6);
/// How long a socket whose folder is missing, but could be made, is given to appear: an agent
/// started at the same moment as the command makes its folder at once. Past this the command
/// stops, whatever `--wait` says.
pub(crate) const FOLDER_GRACE: Duration = Duration::from_secs(2);
/// How long to wait for an intent's outcome. The transport gives up first (3 s for a write,
/// 30 s for a starter, SPEC S6/T7); this only guards against an engine that went quiet.
const OUTCOME_PATIENCE: Duration = Duration::from_secs(45);

pub(crate) struct Link {
    engine: Engine,
    /// Every agent dialled, by name, as the phone would show it.
    pub(crate) views: BTreeMap<String, AgentView>,
    /// The socket path of each agent dialled over a socket, by name.
    sockets: BTreeMap<String, PathBuf>,
    /// When the engine started, for [`FOLDER_GRACE`].
    opened: Instant,
    /// Kept for as long as the engine may write to the journal (its lock, or its folder).
    _journal: JournalHold,
}

/// An agent that was not ready in time, and what it looked like.
pub(crate) struct NotReady {
    pub(crate) agent: String,
    pub(crate) status: AgentStatus,
    /// The agent's socket is not there, and cannot appear: no use waiting for it.
    pub(crate) cannot_appear: Option<NoSocket>,
}

impl NotReady {
    pub(crate) fn sentence(&self, patience: Duration) -> String {
        if let Some(missing) = &self.cannot_appear {
            return format!("cannot reach the agent \"{}\": {missing}", self.agent);
        }
        match &self.status {
            AgentStatus::Connecting => format!(
                "the agent \"{}\" did not answer within {} s; check that it runs and that the socket or URL is right (try `collie-phone doctor` with the same flags)",
                self.agent,
                patience.as_secs()
            ),
            AgentStatus::Starting => format!(
                "the agent \"{}\" was still starting after {} s (it says it is not ready); try again with a longer --wait",
                self.agent,
                patience.as_secs()
            ),
            // The reason alone: "Unreachable:" again would say the same thing twice.
            AgentStatus::Unreachable { reason, .. } => {
                format!("cannot reach the agent \"{}\": {reason}", self.agent)
            }
            status => format!(
                "cannot reach the agent \"{}\": {}",
                self.agent,
                status.sentence()
            ),
        }
    }
}

/// What a command that sends works with: the one agent named, ready, over the phone's journal.
pub(crate) struct Sending {
    pub(crate) link: Link,
    /// The agent's name.
    pub(crate) agent: String,
    /// Where its receipts go, for the person.
    pub(crate) journal_shown: String,
}

impl Sending {
    /// Dials the one agent the flags name and waits until it is connected and ready.
    pub(crate) async fn open(common: &super::args::ScriptArgs) -> Result<Self, Failure> {
        let config = common.connect.read_config()?;
        let spec = common.connect.one_agent(&config, common.agent.as_deref())?;
        let agent = spec.name.clone();
        let journal = JournalHold::shared()?;
        let journal_shown = journal.shown();
        let mut link = Link::open(vec![spec], journal, common.record.record.clone())?;
        link.wait_for(common.patience()).await?;
        Ok(Self {
            link,
            agent,
            journal_shown,
        })
    }
}

impl Link {
    /// Starts the engine on `specs` with the given journal (and `--record`).
    pub(crate) fn open(
        specs: Vec<AgentSpec>,
        journal: JournalHold,
        record: Option<PathBuf>,
    ) -> anyhow::Result<Self> {
        let views = specs
            .iter()
            .map(|s| (s.name.clone(), AgentView::new(&s.name, s.endpoint.is_tls())))
            .collect();
        let sockets = specs
            .iter()
            .filter_map(|s| match &s.endpoint {
                Endpoint::Socket(socket) => Some((s.name.clone(), socket.path.clone())),
                Endpoint::Tls(_) => None,
            })
            .collect();
        let engine = Engine::start_with(
            specs,
            &journal.path(),
            EngineOptions {
                record,
                leave_unknown: true,
            },
        )?;
        Ok(Self {
            engine,
            views,
            sockets,
            opened: Instant::now(),
            _journal: journal,
        })
    }

    /// The agent's socket when it is missing and cannot appear (its folder is not there, or
    /// is not a folder): waiting for it is no use. A folder an agent could still make is given
    /// [`FOLDER_GRACE`] first.
    pub(crate) fn cannot_appear(&self, agent: &str) -> Option<NoSocket> {
        let in_grace = self.opened.elapsed() < FOLDER_GRACE;
        missing_socket(self.sockets.get(agent)?)
            .filter(|missing| missing.cannot_appear() && !(missing.could_be_made && in_grace))
    }

    /// The intents the journal held when the engine started (SPEC Q2).
    pub(crate) fn receipts(&self) -> &[IntentRecord] {
        &self.engine.recovered
    }

    pub(crate) fn tell(&self, command: ToEngine) -> Result<(), Failure> {
        self.engine
            .commands
            .send(command)
            .map_err(|_| Failure::new(Exit::Error, "the engine stopped unexpectedly"))
    }

    /// The next update of the engine, already applied to the agents' views.
    pub(crate) async fn next(&mut self) -> Option<FromEngine> {
        let update = self.engine.updates.recv().await?;
        if let FromEngine::Agent { agent, change } = &update
            && let Some(view) = self.views.get_mut(agent)
        {
            view.apply(change.clone());
        }
        Some(update)
    }

    /// Waits until every agent is ready and its first poll (hello, snapshot, every pane's
    /// events) went through, or has failed in a way that waiting cannot mend, or `patience`
    /// is over. Returns the agents that are not ready.
    pub(crate) async fn wait_ready(&mut self, patience: Duration) -> Vec<NotReady> {
        let deadline = Instant::now() + patience;
        let grace = deadline + FIRST_POLL_GRACE;
        loop {
            let now = Instant::now();
            let pending = self.views.values().any(|view| {
                !(is_ready(view)
                    || is_hopeless(&view.status)
                    || self.cannot_appear(&view.name).is_some()
                    || (now >= deadline && view.status != AgentStatus::Connecting)
                    || now >= grace)
            });
            if !pending {
                break;
            }
            let until = if now < deadline { deadline } else { grace };
            // A socket's folder may be made within its grace: look again when it ends.
            let grace_ends = self.opened + FOLDER_GRACE;
            let until = if now < grace_ends {
                until.min(grace_ends)
            } else {
                until
            };
            tokio::select! {
                update = self.next() => {
                    if update.is_none() {
                        break;
                    }
                }
                () = tokio::time::sleep_until(until) => {}
            }
        }
        self.views
            .values()
            .filter(|view| !is_ready(view))
            .map(|view| NotReady {
                agent: view.name.clone(),
                status: view.status.clone(),
                cannot_appear: self.cannot_appear(&view.name),
            })
            .collect()
    }

    /// Waits for the one agent a command talks to; a plain sentence when it is not ready.
    pub(crate) async fn wait_for(&mut self, patience: Duration) -> Result<(), Failure> {
        match self.wait_ready(patience).await.first() {
            None => Ok(()),
            Some(not_ready) => Err(Failure::new(
                Exit::Unreachable,
                format!("{}; nothing was sent", not_ready.sentence(patience)),
            )
            .with(serde_json::json!({
                "agent": not_ready.agent,
                "status": not_ready.status,
            }))),
        }
    }

    /// The pane with this id on this agent, as the phone sees it now.
    pub(crate) fn pane(&self, agent: &str, pane: &str) -> Option<PaneRef<'_>> {
        self.views
            .get(agent)?
            .panes()
            .into_iter()
            .find(|p| p.pane.id == pane)
    }

    /// Submits one intent (a fresh request id, its receipt fsynced first, SPEC Q1, Q2) and
    /// waits for its outcome.
    pub(crate) async fn submit(
        &mut self,
        agent: &str,
        kind: IntentKind,
    ) -> Result<IntentRecord, Failure> {
        self.tell(ToEngine::Submit {
            agent: agent.to_string(),
            kind: kind.clone(),
        })?;
        self.outcome(|record| record.agent == agent && record.kind == kind)
            .await
    }

    /// Sends an unknown (or unsent) intent again with its same request id and body (SPEC Q4).
    /// The caller has checked that the receipt allows it.
    pub(crate) async fn retry(&mut self, request_id: &str) -> Result<IntentRecord, Failure> {
        self.tell(ToEngine::Retry {
            request_id: request_id.to_string(),
        })?;
        self.outcome(|record| record.request_id == request_id).await
    }

    /// Follows the first intent `is_mine` picks until it settles; on no word from the engine
    /// in time, its last known state (unknown: the receipt stays retryable).
    async fn outcome(
        &mut self,
        is_mine: impl Fn(&IntentRecord) -> bool,
    ) -> Result<IntentRecord, Failure> {
        let deadline = Instant::now() + OUTCOME_PATIENCE;
        let mut mine: Option<IntentRecord> = None;
        loop {
            tokio::select! {
                update = self.next() => match update {
                    None => break,
                    Some(FromEngine::Intent(record)) => {
                        let ours = match &mine {
                            Some(known) => known.request_id == record.request_id,
                            None => is_mine(&record),
                        };
                        if ours {
                            let settled = !matches!(record.state, IntentState::Created | IntentState::Sending);
                            mine = Some(record);
                            if settled {
                                break;
                            }
                        }
                    }
                    Some(_) => {}
                },
                () = tokio::time::sleep_until(deadline) => break,
            }
        }
        mine.ok_or_else(|| {
            Failure::new(
                Exit::Error,
                "the engine took no receipt for this request; nothing was sent",
            )
        })
    }
}

fn is_ready(view: &AgentView) -> bool {
    view.status.is_ready() && view.synced.is_some()
}

/// States that waiting does not mend: the wrong server, versions that do not meet, a refused
/// token (SPEC H1, V4, T6). A socket that fails the privacy check (S4), or is not there yet, is
/// waited for: a script may have started the agent a moment ago, and its path or modes may not
/// be there yet. A socket whose folder is missing is not waited for (`Link::cannot_appear`).
fn is_hopeless(status: &AgentStatus) -> bool {
    matches!(
        status,
        AgentStatus::OtherServer { .. }
            | AgentStatus::Incompatible { .. }
            | AgentStatus::TokenRefused { .. }
            | AgentStatus::WrongPath { .. }
    )
}
