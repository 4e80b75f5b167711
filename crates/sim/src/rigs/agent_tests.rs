//! The durable agent's runtime and store, proven with a world the reference agent plays: a
//! restart is a new epoch with the same asks (SPEC A9, H3, H5), a stop saves what the timer
//! did not, `--chaos restart-every` keeps request ids (Q3). They live here, beside the play,
//! so the agent's own code names no driver, tests included.

use std::path::Path;
use std::time::Duration;

use time::OffsetDateTime;

use super::{WorldKind, WorldOptions, worlds};
use crate::durable::AgentOptions;
use crate::durable::runtime::Agent;
use crate::durable::store::{Found, STATE_FILE, Store};
use crate::durable::world::World;
use crate::wire::{Answer, AnswerRequest, ReplyCode};

fn t0() -> OffsetDateTime {
    time::macros::datetime!(2026-01-02 03:04:05 UTC)
}

fn options(state: &Path, ready_after: Duration) -> AgentOptions {
    AgentOptions {
        state_dir: Some(state.to_path_buf()),
        ready_after,
        ..AgentOptions::from(WorldOptions {
            kind: WorldKind::Demo,
            speed: 0.0,
            ..WorldOptions::default()
        })
    }
}

fn open_asks(world: &World) -> Vec<(String, String, u64)> {
    world
        .layout
        .panes
        .values()
        .flat_map(|p| {
            p.asks
                .iter()
                .map(|a| (p.id.clone(), a.ask.id.clone(), a.ask.revision))
        })
        .collect()
}

#[test]
fn a9_h3_restart_is_a_new_epoch_with_the_same_asks_and_ready_only_later() {
    let dir = tempfile::tempdir().expect("temp dir");
    let first = Agent::new_at(options(dir.path(), Duration::ZERO), t0()).expect("starts");
    assert!(first.world.ready && !first.restored());
    let epoch = first.world.epoch.clone();
    let asks = open_asks(&first.world);
    let conversations = first.world.layout.conversations.len();
    drop(first);

    let later = t0() + time::Duration::minutes(5);
    let mut second =
        Agent::new_at(options(dir.path(), Duration::from_secs(3)), later).expect("restarts");
    assert!(second.restored());
    assert_ne!(second.world.epoch, epoch, "H5: a new epoch");
    assert!(!second.world.ready, "H3: not ready at once");
    assert_eq!(open_asks(&second.world), asks, "A9: the same ids");
    assert_eq!(second.world.layout.conversations.len(), conversations);
    // Every pane's events start over in the new epoch with its state and open asks.
    for pane in second.world.layout.panes.values() {
        assert!(
            pane.last_seq > pane.asks.len() as u64,
            "a state event, then the asks"
        );
    }
    second.tick(later + time::Duration::seconds(1));
    // A monotonic clock that ran 3 s would also do; this test runs well under that.
    assert!(!second.world.ready);
    second.tick(later + time::Duration::seconds(3));
    assert!(second.world.ready);

    let (pane, ask_id, revision) = asks
        .iter()
        .find(|(pane, _, _)| {
            second.world.layout.panes[pane].asks[0].ask.kind == crate::wire::AskKind::Text
        })
        .cloned()
        .expect("the demo has a text ask");
    let answer = Answer {
        text: Some("ok".into()),
        ..Answer::default()
    };
    let request = AnswerRequest {
        request_id: "r".into(),
        ask_id,
        revision,
        answer,
    };
    let reply = second
        .world
        .answer(&pane, &request, later)
        .expect("the old id lands");
    assert_eq!(reply.code, ReplyCode::Ok);
}

#[test]
fn dropping_the_agent_saves_what_the_timer_did_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut first = Agent::new_at(options(dir.path(), Duration::ZERO), t0()).expect("starts");
    let renamed = first.world.layout.workspaces[0].id.clone();
    let request = crate::wire::RenameRequest {
        request_id: "r".into(),
        kind: crate::wire::TargetKind::Workspace,
        id: renamed.clone(),
        title: "Renamed just before the stop".into(),
    };
    first.world.rename(&request).expect("renames");
    // Same instant as the save at start: the timer holds this one back.
    first.tick(t0());
    drop(first);
    let second = Agent::new_at(options(dir.path(), Duration::ZERO), t0()).expect("restarts");
    let title = second
        .world
        .layout
        .workspaces
        .iter()
        .find(|w| w.id == renamed)
        .map(|w| w.title.clone());
    assert_eq!(title.as_deref(), Some("Renamed just before the stop"));
}

#[test]
fn corrupt_state_starts_a_fresh_world() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join(STATE_FILE), b"not json").expect("writes");
    let agent = Agent::new_at(options(dir.path(), Duration::ZERO), t0()).expect("never crashes");
    assert!(!agent.restored());
    assert_eq!(agent.world.layout.workspaces.len(), 3);
}

/// A9, H3, H5, Q3: `--chaos restart-every` without a state folder restarts from the layout
/// kept in memory: a new epoch, the same open asks, `starting` for a moment, and the
/// request ids of the old epoch still answered as replays.
#[test]
fn chaos_restart_in_place_keeps_asks_and_request_ids() {
    use crate::durable::requests::{Recall, StoredReply};
    let options = AgentOptions {
        restart_every: Some(Duration::from_secs(10)),
        ..AgentOptions::from(WorldOptions {
            speed: 0.0,
            ..WorldOptions::default()
        })
    };
    let mut agent = Agent::new_at(options, t0()).expect("starts");
    let epoch = agent.world.epoch.clone();
    let asks = open_asks(&agent.world);
    assert!(!asks.is_empty());
    agent.world.requests.remember(
        "r-1",
        "print".into(),
        StoredReply {
            status: 200,
            body: serde_json::json!({"code": "ok"}),
        },
    );
    agent.tick(t0() + time::Duration::seconds(9));
    assert_eq!(agent.world.epoch, epoch, "not yet");
    let restart = t0() + time::Duration::seconds(10);
    agent.tick(restart);
    assert_ne!(agent.world.epoch, epoch, "H5: a new epoch");
    assert!(!agent.world.ready, "H3: starting for a moment");
    assert!(agent.restored());
    assert_eq!(open_asks(&agent.world), asks, "A9: the same ids");
    assert!(matches!(
        agent.world.requests.recall("r-1", "print"),
        Recall::Replay(_)
    ));
    for pane in agent.world.layout.panes.values() {
        assert!(pane.last_seq >= 1, "every view laid out again");
    }
    agent.tick(restart + time::Duration::milliseconds(500));
    assert!(agent.world.ready);
    let second = agent.world.epoch.clone();
    agent.tick(restart + time::Duration::seconds(10));
    assert_ne!(agent.world.epoch, second, "and again every 10 s");
}

#[test]
fn without_a_state_folder_flush_is_a_no_op() {
    let options = WorldOptions {
        speed: 0.0,
        ..WorldOptions::default()
    };
    let mut agent = Agent::new_at(options, t0()).expect("starts");
    agent.flush().expect("nothing to do");
}

#[test]
fn a9_store_round_trip_keeps_the_layout() {
    let dir = tempfile::tempdir().expect("temp dir");
    let world = worlds::build(WorldKind::Demo, 5, true, "h", t0());
    let mut store = Store::open(dir.path()).expect("opens");
    store.flush(&world, t0()).expect("flushes");
    let Found::Layout(layout) = store.load(t0()).expect("loads") else {
        panic!("expected a layout")
    };
    assert_eq!(
        serde_json::to_value(&*layout).expect("json"),
        serde_json::to_value(&world.layout).expect("json")
    );
}
