//! The engine against the real reference agent, over the socket and over http with a token:
//! sessions, snapshot and views, every intent outcome the agent can give.

use crate::common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use collie_phone::engine::{
    AgentChange, AgentSpec, AgentStatus, Decider, Engine, FromEngine, IntentKind, IntentState,
    ToEngine,
};
use collie_phone::transport::{Endpoint, Token, tls::TlsEndpoint};
use collie_phone::wire::{Answer, AskKind, Snapshot, TurnState};

const SOON: Duration = Duration::from_secs(10);

/// The engine with the last snapshot and status it reported.
struct Phone {
    engine: Engine,
    snapshot: Option<Arc<Snapshot>>,
    status: Option<AgentStatus>,
    views: HashMap<String, usize>,
    epochs: Vec<String>,
    hello: Option<collie_phone::wire::Hello>,
    _journal: tempfile::TempDir,
}

impl Phone {
    fn start(endpoint: Endpoint) -> Self {
        let journal = tempfile::tempdir().expect("dir");
        let engine = Engine::start(
            vec![AgentSpec {
                name: "ref".into(),
                endpoint,
            }],
            &journal.path().join("j.jsonl"),
        )
        .expect("engine");
        Self {
            engine,
            snapshot: None,
            status: None,
            views: HashMap::new(),
            epochs: Vec::new(),
            hello: None,
            _journal: journal,
        }
    }

    fn note(&mut self, update: &FromEngine) {
        if let FromEngine::Agent { change, .. } = update {
            match change {
                AgentChange::Snapshot { snapshot, .. } => self.snapshot = Some(snapshot.clone()),
                AgentChange::Status(status) => self.status = Some(status.clone()),
                AgentChange::PaneView { pane, view } => {
                    self.views.insert(pane.clone(), view.items.len());
                }
                AgentChange::NewEpoch { epoch } => self.epochs.push(epoch.clone()),
                AgentChange::Hello(hello) => self.hello = Some(hello.clone()),
                _ => {}
            }
        }
    }

    async fn until<T>(
        &mut self,
        within: Duration,
        mut pick: impl FnMut(&Self, &FromEngine) -> Option<T>,
    ) -> T {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let update = tokio::time::timeout_at(deadline, self.engine.updates.recv())
                .await
                .expect("the awaited update did not come in time")
                .expect("engine alive");
            self.note(&update);
            if let Some(found) = pick(self, &update) {
                return found;
            }
        }
    }

    async fn ready_with_snapshot(&mut self) -> Arc<Snapshot> {
        self.until(SOON, |me, _| {
            me.status.as_ref().filter(|s| s.is_ready())?;
            me.snapshot.clone()
        })
        .await
    }

    async fn intent(&mut self, kind: IntentKind) -> IntentState {
        self.engine
            .commands
            .send(ToEngine::Submit {
                agent: "ref".into(),
                kind,
            })
            .expect("engine alive");
        self.until(SOON, |_, update| match update {
            FromEngine::Intent(record)
                if record.state.is_final()
                    || matches!(record.state, IntentState::Unknown { .. }) =>
            {
                Some(record.state.clone())
            }
            _ => None,
        })
        .await
    }
}

fn answer_ask(snapshot: &Snapshot, kind: AskKind) -> (String, IntentKind) {
    let (pane, ask) = snapshot
        .panes()
        .flat_map(|(_, _, p)| p.asks.iter().map(move |a| (p.id.clone(), a.clone())))
        .find(|(_, a)| a.kind == kind)
        .expect("the demo world has an ask of this kind");
    let answer = match kind {
        AskKind::Permission => Answer {
            option_id: Some("allow-once".into()),
            ..Answer::default()
        },
        AskKind::Choice => Answer {
            option_id: ask.options().first().map(|o| o.id.clone()),
            ..Answer::default()
        },
        AskKind::Text => Answer {
            text: Some("yes, go ahead".into()),
            ..Answer::default()
        },
        _ => unreachable!("only simple kinds here"),
    };
    let id = ask.id.clone();
    (
        id.clone(),
        IntentKind::Answer {
            pane,
            ask_id: id,
            revision: ask.revision,
            answer,
        },
    )
}

#[tokio::test]
async fn a4_a7_answer_over_the_socket_then_a_second_tap_is_already_answered() {
    let dir = common::temp_dir();
    let agent = common::socket_agent(dir.path(), &[]);
    let mut phone = Phone::start(Endpoint::socket(agent.socket_path()));
    let snapshot = phone.ready_with_snapshot().await;
    let (ask_id, kind) = answer_ask(&snapshot, AskKind::Permission);
    let state = phone.intent(kind.clone()).await;
    assert!(matches!(state, IntentState::Done { .. }), "{state:?}");
    // A4: the next snapshot no longer lists it.
    phone
        .until(SOON, |me, _| {
            let s = me.snapshot.as_ref()?;
            (!s.panes()
                .any(|(_, _, p)| p.asks.iter().any(|a| a.id == ask_id)))
            .then_some(())
        })
        .await;
    // A7: a new intent (new request id) for the same ask: decided, by a phone.
    let state = phone.intent(kind).await;
    assert!(
        matches!(
            state,
            IntentState::Decided {
                by: Decider::Phone,
                ..
            }
        ),
        "{state:?}"
    );
}

#[tokio::test]
async fn a3_stale_revision_and_a8_unknown_ask() {
    let dir = common::temp_dir();
    let agent = common::socket_agent(dir.path(), &[]);
    let mut phone = Phone::start(Endpoint::socket(agent.socket_path()));
    let snapshot = phone.ready_with_snapshot().await;
    let (_, kind) = answer_ask(&snapshot, AskKind::Choice);
    let IntentKind::Answer {
        pane,
        ask_id,
        answer,
        ..
    } = kind
    else {
        unreachable!()
    };
    let stale = IntentKind::Answer {
        pane: pane.clone(),
        ask_id,
        revision: 999,
        answer: answer.clone(),
    };
    assert!(matches!(
        phone.intent(stale).await,
        IntentState::Stale { revision: Some(_) }
    ));
    let gone = IntentKind::Answer {
        pane,
        ask_id: "ask-never-asked".into(),
        revision: 1,
        answer,
    };
    assert_eq!(phone.intent(gone).await, IntentState::TooLate);
}

#[tokio::test]
async fn a16_send_and_abort_name_the_turn() {
    let dir = common::temp_dir();
    let agent = common::socket_agent(dir.path(), &[]);
    let mut phone = Phone::start(Endpoint::socket(agent.socket_path()));
    let snapshot = phone.ready_with_snapshot().await;
    let (pane, turn) = snapshot
        .panes()
        .find_map(|(_, _, p)| {
            p.turn
                .as_ref()
                .filter(|t| t.state == TurnState::Running)
                .map(|t| (p.id.clone(), t.id.clone()))
        })
        .expect("a running turn");
    let send = IntentKind::Send {
        pane: pane.clone(),
        turn_id: Some(turn.clone()),
        text: "also run the linter, 谢谢".into(),
    };
    let IntentState::Done { reply } = phone.intent(send).await else {
        panic!("send failed")
    };
    assert_eq!(reply.steered, Some(true));
    let abort = IntentKind::Abort {
        pane: pane.clone(),
        turn_id: turn.clone(),
    };
    assert!(matches!(
        phone.intent(abort.clone()).await,
        IntentState::Done { .. }
    ));
    let again = phone.intent(abort).await;
    assert!(
        matches!(&again, IntentState::Refused { code, .. } if code == "not-running"),
        "{again:?}"
    );
    let old = IntentKind::Send {
        pane,
        turn_id: Some("an-old-turn".into()),
        text: "hello".into(),
    };
    let refused = phone.intent(old).await;
    assert!(
        matches!(&refused, IntentState::Refused { code, status: 409, .. } if code == "turn-changed"),
        "{refused:?}"
    );
}

#[tokio::test]
async fn h5_views_after_start_and_after_an_agent_restart() {
    let dir = common::temp_dir();
    let state = dir.path().join("state");
    let state_arg = state.display().to_string();
    let mut agent = common::socket_agent(dir.path(), &["--state", &state_arg]);
    let socket = agent.socket_path();
    let mut phone = Phone::start(Endpoint::socket(socket.clone()));
    let snapshot = phone.ready_with_snapshot().await;
    let panes = snapshot.panes().count();
    phone
        .until(SOON, |me, _| (me.views.len() == panes).then_some(()))
        .await;
    agent.stop(false);
    let _restarted = common::AgentProcess::start(&[
        "agent",
        "--socket",
        &socket.display().to_string(),
        "--speed",
        "0",
        "--state",
        &state_arg,
    ]);
    phone.views.clear();
    phone
        .until(Duration::from_secs(15), |me, _| {
            (!me.epochs.is_empty() && me.views.len() == panes).then_some(())
        })
        .await;
}

#[tokio::test]
async fn t2_over_http_with_a_token_the_engine_reads_the_agent() {
    let dir = common::temp_dir();
    let (token_path, token) = common::token_file(dir.path());
    let agent = common::AgentProcess::start(&[
        "agent",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        &token_path.display().to_string(),
        "--speed",
        "0",
    ]);
    let endpoint =
        TlsEndpoint::new(&agent.url, Token::new(&token).expect("token"), None).expect("endpoint");
    let mut phone = Phone::start(Endpoint::Tls(endpoint));
    let snapshot = phone.ready_with_snapshot().await;
    assert!(snapshot.panes().count() >= 8);
    let hello = phone.hello.clone().expect("hello came before ready");
    assert!(!hello.cap(collie_phone::wire::caps::ALLOW_ALWAYS), "A11");
}

#[tokio::test]
async fn w5_history_pages_and_reopen() {
    use collie_phone::engine::HistoryPage;
    use collie_phone::wire::ConversationState;
    let dir = common::temp_dir();
    let agent = common::socket_agent(dir.path(), &[]);
    let mut phone = Phone::start(Endpoint::socket(agent.socket_path()));
    phone.ready_with_snapshot().await;
    let load = |after: Option<String>| ToEngine::LoadConversations {
        agent: "ref".into(),
        after,
    };
    phone
        .engine
        .commands
        .send(load(None))
        .expect("engine alive");
    let first = phone
        .until(SOON, |_, u| match u {
            FromEngine::History {
                page: HistoryPage::Conversations { page, .. },
                ..
            } => Some(page.clone()),
            _ => None,
        })
        .await;
    assert_eq!(first.conversations.len(), 100, "L: pages of 100");
    let next = first
        .next
        .clone()
        .expect("150+ conversations need a second page");
    phone
        .engine
        .commands
        .send(load(Some(next)))
        .expect("engine alive");
    let second = phone
        .until(SOON, |_, u| match u {
            FromEngine::History {
                page: HistoryPage::Conversations { page, .. },
                ..
            } => Some(page.clone()),
            _ => None,
        })
        .await;
    assert!(!second.conversations.is_empty());
    let closed = first
        .conversations
        .iter()
        .chain(&second.conversations)
        .find(|c| c.state == ConversationState::Closed && c.item_count > 0)
        .expect("a closed conversation")
        .clone();
    phone
        .engine
        .commands
        .send(ToEngine::LoadItems {
            agent: "ref".into(),
            conversation: closed.id.clone(),
            after: None,
        })
        .expect("engine alive");
    let items = phone
        .until(SOON, |_, u| match u {
            FromEngine::History {
                page: HistoryPage::Items { page, .. },
                ..
            } => Some(page.clone()),
            _ => None,
        })
        .await;
    assert!(!items.items.is_empty());
    let IntentState::Done { reply } = phone
        .intent(IntentKind::Reopen {
            conversation_id: closed.id,
        })
        .await
    else {
        panic!("reopen failed")
    };
    let pane = reply.pane_id.expect("reopen names the pane");
    phone
        .until(SOON, |me, _| {
            me.snapshot
                .as_ref()
                .filter(|s| s.pane(&pane).is_some())
                .map(|_| ())
        })
        .await;
}

/// The reference agent's log: how many times it applied each request id (`applied request_id=…`).
fn applied_count(log: &str, request_id: &str) -> usize {
    log.lines()
        .filter(|l| l.contains(" applied ") && l.contains(&format!("request_id={request_id}")))
        .count()
}

#[tokio::test]
async fn q4_lost_replies_of_sends_and_an_abort_settle_themselves_each_applied_once_in_order() {
    let dir = common::temp_dir();
    // Every applied POST loses its reply; a repeat of a remembered id is answered (SPEC Q3).
    let agent = common::logging_socket_agent(dir.path(), &["--chaos", "drop-after-apply=1"]);
    let mut phone = Phone::start(Endpoint::socket(agent.socket_path()));
    let snapshot = phone.ready_with_snapshot().await;
    let (pane, turn) = snapshot
        .panes()
        .find_map(|(_, _, p)| {
            p.turn
                .as_ref()
                .filter(|t| t.state == TurnState::Running)
                .map(|t| (p.id.clone(), t.id.clone()))
        })
        .expect("a running turn");
    let mut ids = Vec::new();
    for (text, kind) in [
        (
            "first words",
            IntentKind::Send {
                pane: pane.clone(),
                turn_id: Some(turn.clone()),
                text: "first words".into(),
            },
        ),
        (
            "second words",
            IntentKind::Send {
                pane: pane.clone(),
                turn_id: Some(turn.clone()),
                text: "second words".into(),
            },
        ),
        (
            "stop",
            IntentKind::Abort {
                pane: pane.clone(),
                turn_id: turn.clone(),
            },
        ),
    ] {
        phone
            .engine
            .commands
            .send(ToEngine::Submit {
                agent: "ref".into(),
                kind,
            })
            .expect("engine alive");
        let mut was_checking = false;
        let (id, state) = phone
            .until(SOON, |_, update| match update {
                FromEngine::Intent(r) if matches!(r.state, IntentState::Unknown { .. }) => {
                    was_checking |= r.checking;
                    None
                }
                FromEngine::Intent(r) if r.state.is_final() => {
                    Some((r.request_id.clone(), r.state.clone()))
                }
                _ => None,
            })
            .await;
        assert!(
            was_checking,
            "{text}: its reply was lost, and the engine said it checks"
        );
        assert!(
            matches!(state, IntentState::Replayed { .. }),
            "{text}: settled by the agent's first reply, got {state:?}"
        );
        ids.push(id);
    }
    let (agent, ids) = (&agent, &ids);
    let log = common::eventually("the agent logs every apply", SOON, move || {
        let log = agent.stderr();
        let all = ids.iter().all(|id| applied_count(&log, id) > 0);
        async move { all.then_some(log) }
    })
    .await;
    for id in ids {
        assert_eq!(applied_count(&log, id), 1, "{id} applied exactly once");
    }
    let at = |id: &String| log.find(&format!("request_id={id}")).expect("logged");
    assert!(
        at(&ids[0]) < at(&ids[1]) && at(&ids[1]) < at(&ids[2]),
        "in order"
    );
}
