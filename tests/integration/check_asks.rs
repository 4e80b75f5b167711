//! `collie-phone check`'s A rules (SPEC A3, A7, A8, A13, A14) and SPEC L rows against the real
//! reference agent: with `--allow-writes` every one of them is judged and passes (the frozen
//! demo has an open ask of every kind from the start, so none may be skipped); read-only, the
//! answers are skipped and the rest still pass; and on a demo that plays, A13 watches an ask
//! time out. That each `--break` of these rules is caught is tests/integration/check_breaks.rs.

use crate::common;

use std::process::{Command, Output, Stdio};

use common::*;
use serde_json::Value;

/// Every finding id of the A rules and of SPEC L (crates/check/src/check/asks.rs,
/// crates/check/src/check/limits.rs).
const A_AND_L: [&str; 20] = [
    "A3",
    "A7",
    "A8",
    "A13",
    "A14",
    "L.layout",
    "L.open-asks",
    "L.ask-options",
    "L.form-fields",
    "L.starters",
    "L.belt",
    "L.settings",
    "L.id",
    "L.reply-size",
    "L.events",
    "L.item-text",
    "L.link",
    "L.history-page",
    "L.cursor",
    "L1",
];

/// The A rules' sub-checks that answer asks, skipped without `--allow-writes`.
const ANSWERING: [&str; 4] = ["A3", "A7", "A8", "A14"];

fn check_json(socket: &str, writes: bool) -> Value {
    let mut args = vec!["check", "--socket", socket, "--json"];
    if writes {
        args.push("--allow-writes");
    }
    let output: Output = Command::new(BIN)
        .args(&args)
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env("XDG_CONFIG_HOME", "/nonexistent-collie-check")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "check printed no JSON ({error}): {} {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn findings<'a>(report: &'a Value, rule: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .expect("findings is a list")
        .iter()
        .filter(|finding| finding["rule"] == rule)
        .collect()
}

fn socket_of(agent: &AgentProcess) -> String {
    agent.socket_path().to_str().expect("utf-8").to_string()
}

#[test]
fn a_and_l_rules_all_pass_against_the_frozen_demo_with_writes() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let report = check_json(&socket_of(&agent), true);
    for rule in A_AND_L {
        let found = findings(&report, rule);
        assert!(!found.is_empty(), "{rule} has no finding: {report:#}");
        for finding in found {
            assert_eq!(
                finding["verdict"], "pass",
                "{rule} must be judged and pass, not skipped: {finding:#}"
            );
        }
    }
    // A POST reply was read too, so every reply cap of SPEC L was measured.
    let size = &findings(&report, "L.reply-size")[0]["what"];
    assert!(
        size.as_str().is_some_and(|what| what.contains("a POST")),
        "{size}"
    );
}

#[test]
fn read_only_the_answers_are_skipped_and_the_rest_passes() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &[]);
    let report = check_json(&socket_of(&agent), false);
    for rule in A_AND_L {
        for finding in findings(&report, rule) {
            let what = finding["what"].as_str().unwrap_or_default();
            let reads_only = !ANSWERING.contains(&rule) || what.starts_with("every listed ask");
            if reads_only {
                assert_eq!(finding["verdict"], "pass", "{finding:#}");
            } else {
                assert_eq!(finding["verdict"], "skipped", "{finding:#}");
                let why = finding["why"].as_str().unwrap_or_default();
                assert!(why.contains("--allow-writes"), "{finding:#}");
            }
        }
    }
    // The agent's asks are untouched: the four kinds are still open.
    let client = agent.client();
    let reply = tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(client.get(SNAPSHOT));
    assert_eq!(reply.status, 200);
    let snapshot = reply.json();
    let open: usize = panes(&snapshot)
        .iter()
        .map(|pane| pane["asks"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(open, 4, "read-only, no ask was answered");
}

/// SPEC A6, A13: on a demo playing five times faster, the scripted ask with `expiresAt` opens
/// within a second and expires 9 s later; A13 waits for it, sees it leave the snapshot, and a
/// late answer gets `409 decided` by timeout.
#[test]
fn a13_watches_an_ask_time_out() {
    let dir = temp_dir();
    let socket = dir.path().join("run").join("agent.sock");
    let socket = socket.to_str().expect("utf-8").to_string();
    let agent = AgentProcess::start(&["agent", "--socket", &socket, "--speed", "5"]);
    // The check must find the ask open: wait until the script has opened it.
    let client = agent.client();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(eventually(
        "the scripted ask with expiresAt is open",
        std::time::Duration::from_secs(8),
        || async {
            let snapshot = client.get(SNAPSHOT).await.json();
            panes(&snapshot)
                .iter()
                .flat_map(|pane| pane["asks"].as_array().cloned().unwrap_or_default())
                .any(|ask| ask.get("expiresAt").is_some())
                .then_some(())
        },
    ));
    let report = check_json(&socket, true);
    let a13 = findings(&report, "A13");
    assert_eq!(
        a13.len(),
        2,
        "the zone check and the watched timeout: {a13:#?}"
    );
    for finding in a13 {
        assert_eq!(finding["verdict"], "pass", "{finding:#}");
    }
    assert!(
        a13_watched(&report),
        "the second finding watched the late answer: {report:#}"
    );
}

fn a13_watched(report: &Value) -> bool {
    findings(report, "A13").iter().any(|finding| {
        finding["what"]
            .as_str()
            .is_some_and(|what| what.contains("409 decided by timeout"))
    })
}
