//! The engine against a faulty agent (`common::faulty`), each test named by the SPEC rule it
//! proves: at-most-once POSTs, unknown outcomes and the person's retry, maybe-applied,
//! redirects, failures, the telling hello, other servers.

use crate::common;

use common::faulty::{Faulty, PostFault};
use std::time::Duration;

use collie_phone::engine::{
    AgentChange, AgentSpec, AgentStatus, Engine, FromEngine, IntentKind, IntentState, ToEngine,
};
use collie_phone::transport::{Endpoint, Token, tls::TlsEndpoint};
use collie_phone::wire::Answer;

struct Harness {
    engine: Engine,
    _journal: tempfile::TempDir,
}

impl Harness {
    fn start(endpoint: Endpoint) -> Self {
        let journal = tempfile::tempdir().expect("dir");
        let engine = Engine::start(
            vec![AgentSpec {
                name: "faulty".into(),
                endpoint,
            }],
            &journal.path().join("intents.jsonl"),
        )
        .expect("engine");
        Self {
            engine,
            _journal: journal,
        }
    }

    fn command(&self, command: ToEngine) {
        self.engine.commands.send(command).expect("engine alive");
    }

    /// Reads updates until `pick` returns Some, or fails after `within`.
    async fn wait_for<T>(
        &mut self,
        within: Duration,
        mut pick: impl FnMut(&FromEngine) -> Option<T>,
    ) -> T {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let update = tokio::time::timeout_at(deadline, self.engine.updates.recv())
                .await
                .expect("the awaited update did not come in time")
                .expect("engine stopped");
            if std::env::var_os("DEBUG_UPDATES").is_some() {
                eprintln!("{:?}", update);
            }
            if let Some(found) = pick(&update) {
                return found;
            }
        }
    }

    async fn wait_status(
        &mut self,
        within: Duration,
        want: impl Fn(&AgentStatus) -> bool,
    ) -> AgentStatus {
        self.wait_for(within, |u| match u {
            FromEngine::Agent {
                change: AgentChange::Status(s),
                ..
            } if want(s) => Some(s.clone()),
            _ => None,
        })
        .await
    }

    async fn wait_intent(
        &mut self,
        within: Duration,
        want: impl Fn(&IntentState) -> bool,
    ) -> (String, IntentState) {
        self.wait_for(within, |u| match u {
            FromEngine::Intent(r) if want(&r.state) => {
                Some((r.request_id.clone(), r.state.clone()))
            }
            _ => None,
        })
        .await
    }

    fn answer(&self) {
        self.command(ToEngine::Submit {
            agent: "faulty".into(),
            kind: IntentKind::Answer {
                pane: "p1".into(),
                ask_id: "ask-1".into(),
                revision: 1,
                answer: Answer {
                    option_id: Some("allow-once".into()),
                    ..Answer::default()
                },
            },
        });
    }
}

const SOON: Duration = Duration::from_secs(5);

#[tokio::test]
async fn q4_an_answer_whose_reply_was_lost_settles_itself_with_the_same_id_and_runs_once() {
    let faulty = Faulty::new();
    faulty.set(|b| b.post_fault = PostFault::DropAfterApplyOnce);
    let (path, _dir) = faulty.serve_socket().await;
    let mut h = Harness::start(Endpoint::socket(path));
    h.wait_status(SOON, AgentStatus::is_ready).await;
    h.answer();
    let checking = h
        .wait_for(SOON, |u| match u {
            FromEngine::Intent(r) if matches!(r.state, IntentState::Unknown { .. }) => {
                Some(r.clone())
            }
            _ => None,
        })
        .await;
    assert!(checking.checking, "the engine says it checks by itself");
    let lost = std::time::Instant::now();
    // No key: the engine's own check, one second later, gets the first reply again.
    let (id, state) = h.wait_intent(SOON, |s| s.is_final()).await;
    assert!(
        lost.elapsed() >= Duration::from_millis(900),
        "checked at 1 s"
    );
    assert_eq!(id, checking.request_id);
    assert!(
        matches!(state, IntentState::Replayed { .. }),
        "got {state:?}"
    );
    let seen = faulty.seen();
    assert_eq!(seen.posts.len(), 2);
    assert_eq!(
        seen.posts[0], seen.posts[1],
        "Q4: the check sends the same id and body"
    );
    assert_eq!(seen.applied, [id], "the answer ran once");
}

#[tokio::test]
async fn q4_retry_while_checking_checks_now_and_keeps_the_persons_retry() {
    let faulty = Faulty::new();
    faulty.set(|b| b.post_fault = PostFault::DropAfterApply);
    let (path, _dir) = faulty.serve_socket().await;
    let mut h = Harness::start(Endpoint::socket(path));
    h.wait_status(SOON, AgentStatus::is_ready).await;
    h.answer();
    let (id, _) = h
        .wait_intent(SOON, |s| matches!(s, IntentState::Unknown { .. }))
        .await;
    faulty.set(|b| b.post_fault = PostFault::None);
    h.command(ToEngine::Retry {
        request_id: id.clone(),
    });
    let asked = std::time::Instant::now();
    let (_, state) = h.wait_intent(SOON, |s| s.is_final()).await;
    assert!(
        asked.elapsed() < Duration::from_millis(800),
        "checked at once, not at the next step of the backoff"
    );
    assert!(matches!(state, IntentState::Replayed { .. }), "{state:?}");
    assert_eq!(faulty.seen().posts.len(), 2);
    assert_eq!(faulty.seen().applied.len(), 1);
}

#[tokio::test]
async fn q3_no_check_goes_to_another_epoch_the_person_decides() {
    let faulty = Faulty::new();
    faulty.set(|b| b.post_fault = PostFault::DropAfterApply);
    let (path, _dir) = faulty.serve_socket().await;
    let mut h = Harness::start(Endpoint::socket(path));
    h.wait_status(SOON, AgentStatus::is_ready).await;
    h.answer();
    h.wait_intent(SOON, |s| matches!(s, IntentState::Unknown { .. }))
        .await;
    // The agent restarts before the first check: it forgot the id, so a check could run it
    // a second time.
    faulty.flip_epoch("epoch-two-0123456789abcdef012345");
    faulty.set(|b| b.post_fault = PostFault::None);
    let record = h
        .wait_for(SOON, |u| match u {
            FromEngine::Intent(r) if !r.checking => Some(r.clone()),
            _ => None,
        })
        .await;
    assert!(matches!(record.state, IntentState::Unknown { .. }));
    assert_eq!(record.attempts, 1, "the person's one retry is still there");
    assert_eq!(
        faulty.seen().posts.len(),
        1,
        "no check went to the new epoch"
    );
}

#[tokio::test]
async fn q5_retry_after_a_restart_finds_the_ask_closed_maybe_applied_and_no_third_send() {
    let faulty = Faulty::new();
    faulty.set(|b| b.post_fault = PostFault::DropAfterApply);
    let (path, _dir) = faulty.serve_socket().await;
    let mut h = Harness::start(Endpoint::socket(path));
    h.wait_status(SOON, AgentStatus::is_ready).await;
    h.answer();
    let (id, _) = h
        .wait_intent(SOON, |s| matches!(s, IntentState::Unknown { .. }))
        .await;
    faulty.set(|b| b.post_fault = PostFault::None);
    faulty.flip_epoch("epoch-two-0123456789abcdef012345");
    h.command(ToEngine::Retry {
        request_id: id.clone(),
    });
    let (_, state) = h.wait_intent(SOON, |s| s.is_final()).await;
    assert_eq!(state, IntentState::MaybeApplied);
    h.command(ToEngine::Retry { request_id: id });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(faulty.seen().posts.len(), 2, "Q5: never sent a third time");
}

#[tokio::test]
async fn h3_503_starting_is_not_sent_never_a_try_and_the_retries_run_it_once() {
    let faulty = Faulty::new();
    faulty.set(|b| b.post_fault = PostFault::Starting);
    let (path, _dir) = faulty.serve_socket().await;
    let mut h = Harness::start(Endpoint::socket(path));
    h.wait_status(SOON, AgentStatus::is_ready).await;
    h.answer();
    // The agent restarted between the poll and the POST, twice: it read nothing either time.
    let mut id = String::new();
    for meeting in 0..2 {
        let record = h
            .wait_for(SOON, |u| match u {
                FromEngine::Intent(r)
                    if !matches!(r.state, IntentState::Created | IntentState::Sending) =>
                {
                    Some(r.clone())
                }
                _ => None,
            })
            .await;
        assert!(
            matches!(record.state, IntentState::NotSent { .. }),
            "not unknown: {:?}",
            record.state
        );
        assert_eq!(
            record.attempts, 0,
            "SPEC Q5: a try nothing read does not count"
        );
        assert!(!record.checking, "nothing to check: nothing arrived");
        id = record.request_id.clone();
        if meeting == 0 {
            h.command(ToEngine::Retry {
                request_id: id.clone(),
            });
        }
    }
    // Ready again: the same request id goes, runs once, and is done, not "maybe applied".
    faulty.set(|b| b.post_fault = PostFault::None);
    h.command(ToEngine::Retry {
        request_id: id.clone(),
    });
    let (done, state) = h.wait_intent(SOON, |s| s.is_final()).await;
    assert_eq!(done, id);
    assert!(matches!(state, IntentState::Done { .. }), "{state:?}");
    let seen = faulty.seen();
    assert_eq!(seen.posts.len(), 3);
    assert!(
        seen.posts
            .iter()
            .all(|p| p["requestId"] == serde_json::json!(id)),
        "one request id throughout"
    );
    assert_eq!(seen.applied, [id], "it ran once");
}

#[tokio::test]
async fn q4_server_error_and_oversized_reply_are_unknown() {
    for fault in [PostFault::ServerError, PostFault::Oversized] {
        let faulty = Faulty::new();
        faulty.set(|b| b.post_fault = fault);
        let (path, _dir) = faulty.serve_socket().await;
        let mut h = Harness::start(Endpoint::socket(path));
        h.wait_status(SOON, AgentStatus::is_ready).await;
        h.answer();
        let (_, state) = h
            .wait_intent(SOON, |s| {
                !matches!(s, IntentState::Created | IntentState::Sending)
            })
            .await;
        assert!(
            matches!(state, IntentState::Unknown { .. }),
            "{fault:?} gave {state:?}"
        );
    }
}

#[tokio::test]
async fn s6_a_post_stalled_past_its_deadline_is_unknown() {
    let faulty = Faulty::new();
    faulty.set(|b| b.post_fault = PostFault::Stall(Duration::from_secs(5)));
    let (path, _dir) = faulty.serve_socket().await;
    let mut h = Harness::start(Endpoint::socket(path));
    h.wait_status(SOON, AgentStatus::is_ready).await;
    h.answer();
    let (_, state) = h
        .wait_intent(Duration::from_secs(6), |s| {
            matches!(s, IntentState::Unknown { .. })
        })
        .await;
    let IntentState::Unknown { why } = state else {
        unreachable!()
    };
    assert!(
        why.contains("3000"),
        "the socket's write deadline is 3000 ms: {why}"
    );
}

#[tokio::test]
async fn h6_one_failure_keeps_ready_two_show_unreachable() {
    let faulty = Faulty::new();
    let (path, _dir) = faulty.serve_socket().await;
    let mut h = Harness::start(Endpoint::socket(path));
    h.wait_status(SOON, AgentStatus::is_ready).await;
    faulty.set(|b| b.get_stall = Some(Duration::from_millis(1500)));
    let started = std::time::Instant::now();
    let status = h
        .wait_status(Duration::from_secs(8), |s| {
            matches!(s, AgentStatus::Unreachable { .. })
        })
        .await;
    // Two read deadlines of 1000 ms and one poll interval had to pass first.
    assert!(
        started.elapsed() >= Duration::from_millis(2000),
        "unreachable after one failure"
    );
    let AgentStatus::Unreachable { last_seen, .. } = status else {
        unreachable!()
    };
    assert!(last_seen.is_some());
    faulty.set(|b| b.get_stall = None);
    h.wait_status(SOON, AgentStatus::is_ready).await;
}

#[tokio::test]
async fn v4_telling_hello_once_per_epoch() {
    let faulty = Faulty::new();
    faulty.set(|b| b.protocol = (2, 2));
    let (path, _dir) = faulty.serve_socket().await;
    let mut h = Harness::start(Endpoint::socket(path));
    let status = h
        .wait_status(SOON, |s| matches!(s, AgentStatus::Incompatible { .. }))
        .await;
    assert_eq!(
        status.sentence(),
        "unreachable · incompatible: The durable agent speaks wire v2, this Collie speaks v1. Update Collie, or the agent's SDK."
    );
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(faulty.seen().telling_hellos, 1);
    let reads: Vec<_> = faulty
        .seen()
        .requests
        .iter()
        .filter(|(_, p)| !p.contains("/hello"))
        .cloned()
        .collect();
    assert!(
        reads.is_empty(),
        "V4: nothing but hello is read from an incompatible agent: {reads:?}"
    );
    faulty.flip_epoch("epoch-two-0123456789abcdef012345");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(faulty.seen().telling_hellos, 2);
}

#[tokio::test]
async fn h1_another_service_gets_no_further_call() {
    let faulty = Faulty::new();
    faulty.set(|b| b.service = "something-else".into());
    let (path, _dir) = faulty.serve_socket().await;
    let mut h = Harness::start(Endpoint::socket(path));
    h.wait_status(SOON, |s| matches!(s, AgentStatus::OtherServer { .. }))
        .await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(faulty.seen().requests.len(), 1);
}

#[tokio::test]
async fn s4_socket_not_private_is_shown_at_once_without_connecting() {
    use std::os::unix::fs::PermissionsExt;
    let faulty = Faulty::new();
    let (path, dir) = faulty.serve_socket().await;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut h = Harness::start(Endpoint::socket(path));
    let status = h
        .wait_status(SOON, |s| matches!(s, AgentStatus::SocketNotPrivate { .. }))
        .await;
    let AgentStatus::SocketNotPrivate { part, fix, .. } = status else {
        unreachable!()
    };
    assert_eq!(part, dir.path().display().to_string());
    assert_eq!(fix, Some(format!("chmod 700 {}", dir.path().display())));
    assert_eq!(faulty.seen().connections, 0, "S4: no connection");
}

#[tokio::test]
async fn t4_redirect_is_a_status_and_the_token_never_reaches_the_target() {
    let target = Faulty::new();
    let target_url = target.serve_tcp().await;
    let faulty = Faulty::new();
    faulty.set(|b| b.redirect_to = Some(format!("{target_url}/session/v1/hello")));
    let url = faulty.serve_tcp().await;
    let token = Token::new(&"t".repeat(40)).expect("token");
    let endpoint = Endpoint::Tls(TlsEndpoint::new(&url, token, None).expect("endpoint"));
    let mut h = Harness::start(endpoint);
    let status = h
        .wait_status(SOON, |s| matches!(s, AgentStatus::Unreachable { .. }))
        .await;
    assert!(status.sentence().contains("307"), "{}", status.sentence());
    assert_eq!(
        faulty.seen().authorizations[0],
        format!("Bearer {}", "t".repeat(40)),
        "T2: token on hello"
    );
    assert_eq!(target.seen().connections, 0, "T4: no redirect is followed");
}

#[tokio::test]
async fn t6_unauthorized_is_token_refused() {
    let faulty = Faulty::new();
    faulty.set(|b| b.force_status = Some(401));
    let url = faulty.serve_tcp().await;
    let token = Token::new(&"t".repeat(40)).expect("token");
    let mut h = Harness::start(Endpoint::Tls(
        TlsEndpoint::new(&url, token, None).expect("endpoint"),
    ));
    h.wait_status(SOON, |s| {
        matches!(s, AgentStatus::TokenRefused { status: 401, .. })
    })
    .await;
}

#[tokio::test]
async fn h5_a_new_epoch_is_told_and_the_snapshot_read_again() {
    let faulty = Faulty::new();
    let (path, _dir) = faulty.serve_socket().await;
    let mut h = Harness::start(Endpoint::socket(path));
    h.wait_status(SOON, AgentStatus::is_ready).await;
    faulty.flip_epoch("epoch-two-0123456789abcdef012345");
    let epoch = h
        .wait_for(SOON, |u| match u {
            FromEngine::Agent {
                change: AgentChange::NewEpoch { epoch },
                ..
            } => Some(epoch.clone()),
            _ => None,
        })
        .await;
    assert_eq!(epoch, "epoch-two-0123456789abcdef012345");
    let snapshot_epoch = h
        .wait_for(SOON, |u| match u {
            FromEngine::Agent {
                change: AgentChange::Snapshot { snapshot, .. },
                ..
            } => Some(snapshot.epoch.clone()),
            _ => None,
        })
        .await;
    assert_eq!(snapshot_epoch, epoch);
}

#[tokio::test]
async fn s5_a_socket_agent_refusing_this_process_is_unreachable_not_token_refused() {
    let faulty = Faulty::new();
    faulty.set(|b| b.force_status = Some(403));
    let (path, _dir) = faulty.serve_socket().await;
    let mut h = Harness::start(Endpoint::socket(path));
    let status = h
        .wait_status(SOON, |s| matches!(s, AgentStatus::Unreachable { .. }))
        .await;
    assert!(
        status.sentence().contains("refuses this process (403"),
        "{}",
        status.sentence()
    );
}
