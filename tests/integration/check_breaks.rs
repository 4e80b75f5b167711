//! `check` catches every rule the reference agent can break on purpose: for each id of
//! `durable::faults::Rule::ALL` (so the A and L rules too, whoever added them), an agent started
//! with `--break ID` makes `check --json --allow-writes` fail exactly that id and nothing else.
//! Every agent listens on loopback TCP with a token, so T3 is checked on each run.

use crate::common;

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use collie_phone::durable::faults::Rule;
use common::*;
use serde_json::Value;

/// Agents checked at once: enough to overlap the agents' start-up, few enough that a loaded
/// 2-core box answers every request well inside the 5 s deadline of SPEC T7.
const AT_ONCE: usize = 4;

/// The agent flags a break needs beyond `--break ID`.
fn extra_flags(id: &str) -> &'static [&'static str] {
    match id {
        // 503 starting can only be seen while the agent is not ready yet (SPEC H3).
        "H3" => &["--ready-after", "4000"],
        _ => &[],
    }
}

/// Starts an agent breaking `id` and returns the rule ids `check` failed, or why it could not.
fn failed_rules(id: &str) -> Result<BTreeSet<String>, String> {
    let dir = temp_dir();
    let (token, _) = token_file(dir.path());
    let token = token.to_str().expect("utf-8");
    let mut args = vec![
        "agent",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        token,
        "--speed",
        "0",
        "--break",
        id,
    ];
    args.extend_from_slice(extra_flags(id));
    let agent = AgentProcess::try_start(&args)
        .map_err(|refused| format!("the agent with --break {id} did not start: {refused:?}"))?;
    let output = Command::new(BIN)
        .args([
            "check",
            "--url",
            &agent.url,
            "--token-file",
            token,
            "--json",
            "--allow-writes",
        ])
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env_remove("COLLIE_DURABLE_TOKEN")
        .env("XDG_CONFIG_HOME", "/nonexistent-collie-check")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Value = serde_json::from_str(&stdout).map_err(|error| {
        format!(
            "--break {id}: check printed no JSON ({error}): {stdout} {}",
            String::from_utf8_lossy(&output.stderr)
        )
    })?;
    if output.status.code() != Some(1) {
        return Err(format!(
            "--break {id}: check exited {:?}, expected 1 for a failure: {stdout}",
            output.status.code()
        ));
    }
    let failed: BTreeSet<String> = report["failedRules"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|rule| rule.as_str().map(str::to_string))
        .collect();
    if failed.len() == 1 && failed.contains(id) {
        Ok(failed)
    } else {
        let fails: Vec<&Value> = report["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|finding| finding["verdict"] == "fail")
            .collect();
        Err(format!(
            "--break {id}: check failed {failed:?}, expected exactly {{{id}}}; the failures: {}",
            serde_json::to_string_pretty(&fails).unwrap_or_default()
        ))
    }
}

#[test]
fn check_fails_exactly_the_rule_each_break_breaks() {
    assert!(!Rule::ALL.is_empty());
    let queue = Mutex::new(Rule::ALL.iter().map(|rule| rule.id()).collect::<Vec<_>>());
    let problems = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..AT_ONCE {
            scope.spawn(|| {
                loop {
                    let Some(id) = queue.lock().expect("queue").pop() else {
                        return;
                    };
                    if let Err(problem) = failed_rules(id) {
                        problems.lock().expect("problems").push(problem);
                    }
                }
            });
        }
    });
    let problems = problems.into_inner().expect("problems");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_break_says_what_it_does() {
    let mut seen = BTreeSet::new();
    for rule in Rule::ALL {
        let (id, what) = (rule.id(), rule.what());
        assert!(seen.insert(id), "{id} is listed twice");
        assert!(!what.trim().is_empty(), "{id} says what the break does");
    }
}
