//! The key to the ask that needs you first (docs/KEYS.md, SPEC A20), on the whole phone
//! against three reference agents whose asks expire at different times: Ctrl-N walks them
//! soonest deadline first across the agents, then the oldest, says how many more need the
//! person, never answers a card it just opened, and goes on after an answer.

use crate::common;

use collie_phone::engine::{AgentSpec, Engine};
use collie_phone::model::inbox::{self, AskKey};
use collie_phone::screens::Screen;
use collie_phone::transport::Endpoint;
use common::AgentProcess;
use common::phone::TestPhone;
use std::time::Duration;
use time::OffsetDateTime;

/// A demo agent on its own socket at `speed`, its applied requests in its log: the demo's
/// Release notes ask expires 45 s of its time after it opens, so 9 s at speed 5.
fn agent(dir: &std::path::Path, speed: &str) -> AgentProcess {
    let socket = dir.join("run").join("agent.sock");
    let socket = socket.to_str().expect("utf-8 path").to_string();
    AgentProcess::start_with_env(
        &[
            "agent",
            "--socket",
            &socket,
            "--speed",
            speed,
            "--chaos",
            "delay=1:1ms",
        ],
        &[("RUST_LOG", "info")],
    )
}

/// The ask of the card on top.
fn card_key(phone: &TestPhone) -> AskKey {
    match phone.tui.app().nav().top() {
        Screen::Card(card) => card.key.clone(),
        other => panic!("no card on top but {other:?}:\n{}", phone.screen()),
    }
}

/// The deadline of an open ask, as the phone heard it.
fn deadline(phone: &TestPhone, key: &AskKey) -> Option<OffsetDateTime> {
    inbox::rows(phone.tui.app().agents())
        .into_iter()
        .find(|row| row.key() == *key)
        .and_then(|row| row.expires_at)
}

/// Every ask a key can answer now but `key`, with its deadline.
fn others(phone: &TestPhone, key: &AskKey) -> Vec<(AskKey, Option<OffsetDateTime>)> {
    let app = phone.tui.app();
    inbox::rows(app.agents())
        .into_iter()
        .filter(|row| row.key() != *key)
        .filter(|row| !inbox::is_unreachable(row.agent) && !inbox::is_expired(row.ask, app.now()))
        .map(|row| (row.key(), row.expires_at))
        .collect()
}

/// Every ask a key can answer now.
fn answerable(phone: &TestPhone) -> Vec<AskKey> {
    let app = phone.tui.app();
    inbox::rows(app.agents())
        .into_iter()
        .filter(|row| !inbox::is_unreachable(row.agent) && !inbox::is_expired(row.ask, app.now()))
        .map(|row| row.key())
        .collect()
}

/// Presses Ctrl-N; gives whether the asks open stayed the same across the press (the demos
/// ask and decide as they play, so a count is judged only when nothing came or went).
async fn ctrl_n(phone: &mut TestPhone) -> bool {
    let before = answerable(phone);
    phone.press(&["ctrl-n"]).await;
    answerable(phone) == before
}

/// "3 more need you." as the footer says it, as a number; the last one as 0.
fn more_said(screen: &str) -> Option<usize> {
    if screen.contains("The last ask that needs you.") {
        return Some(0);
    }
    let line = screen
        .lines()
        .find(|l| l.contains(" more need you.") || l.contains(" more needs you."))?;
    let before = line.split(" more need").next()?;
    before.split_whitespace().last()?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a18_ctrl_n_walks_three_agents_asks_soonest_deadline_first_and_counts_the_rest() {
    let dirs = [common::temp_dir(), common::temp_dir(), common::temp_dir()];
    let names = ["fast", "mid", "slow"];
    let agents: Vec<AgentProcess> = dirs
        .iter()
        .zip(["5", "4", "3"])
        .map(|(dir, speed)| agent(dir.path(), speed))
        .collect();
    let specs = names
        .iter()
        .zip(&agents)
        .map(|(name, agent)| AgentSpec {
            name: (*name).to_string(),
            endpoint: Endpoint::socket(agent.socket_path()),
        })
        .collect();
    let engine = Engine::start(specs, &dirs[0].path().join("intents.jsonl")).expect("an engine");
    let mut phone = TestPhone::on_engine(
        engine,
        names.iter().map(|n| ((*n).to_string(), false)).collect(),
        Vec::new(),
        (120, 40),
        |_| {},
    );
    phone
        .until("every agent's expiring ask on Home", |s| {
            s.matches("publish_docs").count() >= 3
        })
        .await;
    // Home lists them soonest first and says why the first is first.
    assert!(
        phone.screen().contains("· first: expires in "),
        "{}",
        phone.screen()
    );

    // From Home the key opens the ask with the nearest deadline of all; on its card the same
    // key goes on to the next, never back to an earlier one, until the dated ones are walked.
    let mut steady = ctrl_n(&mut phone).await;
    let mut walked: Vec<(AskKey, OffsetDateTime)> = Vec::new();
    for _ in 0..12 {
        let key = card_key(&phone);
        let Some(at) = deadline(&phone, &key) else {
            // The first without a deadline comes after every dated one.
            for (other, at) in others(&phone, &key) {
                assert!(
                    at.is_none() || walked.iter().any(|(seen, _)| *seen == other),
                    "{other:?} has a deadline and was not walked before {key:?}: {walked:?}"
                );
            }
            break;
        };
        if walked.is_empty() {
            assert!(
                others(&phone, &key)
                    .iter()
                    .filter_map(|(_, other)| *other)
                    .all(|other| other >= at),
                "the first opened is the soonest to expire"
            );
        }
        if let Some((_, before)) = walked.last() {
            assert!(at >= *before, "soonest first: {at} after {before}");
        }
        let more = more_said(&phone.screen()).expect("the footer says how many more");
        if steady {
            assert_eq!(more, others(&phone, &key).len(), "{}", phone.screen());
        }
        walked.push((key, at));
        steady = ctrl_n(&mut phone).await;
    }
    for name in names {
        assert!(
            walked.iter().any(|(key, _)| key.agent == name),
            "{name}'s expiring ask is walked: {walked:?}"
        );
    }
    // The walk put each card in place of the one before: Esc is back on Home.
    phone.press(&["esc"]).await;
    assert!(
        matches!(phone.tui.app().nav().top(), Screen::Home(_)),
        "{}",
        phone.screen()
    );

    // A card the key opened takes no answer in its reading time (docs/ASKS.md): the Enter
    // meant for the card before is dropped.
    phone.press(&["ctrl-n"]).await;
    let first = card_key(&phone);
    phone.press(&["enter"]).await;
    assert!(
        phone.screen().contains("This card just opened"),
        "{}",
        phone.screen()
    );
    assert!(phone.tui.app().intents().latest_answer(&first).is_none());
    // Read, then answered: the card goes, and the same key opens the next, one fewer.
    phone.read_card().await;
    phone.press(&["enter"]).await;
    let deadline_at = tokio::time::Instant::now() + common::phone::SOON;
    while matches!(phone.tui.app().nav().top(), Screen::Card(_)) {
        assert!(
            tokio::time::Instant::now() < deadline_at,
            "{}",
            phone.screen()
        );
        phone.run_for(Duration::from_millis(50)).await;
    }
    let steady = ctrl_n(&mut phone).await;
    let next = card_key(&phone);
    assert_ne!(next, first, "the answered ask left the walk");
    assert!(
        !answerable(&phone).contains(&first),
        "the answered ask is no longer open"
    );
    let more = more_said(&phone.screen()).expect("the footer says how many more");
    if steady {
        assert_eq!(more, others(&phone, &next).len(), "{}", phone.screen());
    }
}
