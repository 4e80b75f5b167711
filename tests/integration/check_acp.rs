//! `check --acp` against our scripted ACP agent (`collie-phone acp-scripted-agent`): it passes
//! the agent whole (no rule failed, every rule of SPEC P reported once with its tier, the turn
//! rules run with `--prompt`, the verdict conformant), says "not run: sign in first" past a
//! sign-in, and every `--break ID` of the agent fails exactly that id and nothing else, the
//! verdict and the exit code as the id's tier says. The runs go in parallel threads: each is a few
//! seconds of three short processes.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;

use collie_phone::rigs::acp_scripted::BREAKS;
use common::*;
use serde_json::Value;

/// Checks at once: a run is mostly waiting (a permission answered late, updates that may
/// follow), not work, so more runs than cores overlap well.
const AT_ONCE: usize = 8;
/// What the turn rules prompt: a whole turn (a plan, a tool call, a permission) and a question.
const PROMPTS: [&str; 2] = ["check the tests", "/ask"];
/// The rules of the ADVISORY tier (SPEC P, "Tiers and the verdict"): they never fail a run.
const ADVISORY: [&str; 4] = ["P4", "P10", "P11", "P15"];

/// The scripted agent's command line, as `--acp` takes it.
fn scripted(sessions: &Path, extra: &str) -> String {
    format!(
        "{BIN} acp-scripted-agent --pace 2 --sessions {} {extra}",
        sessions.display()
    )
}

/// `collie-phone check ARGS` with no config of the user's and the prompts of [`PROMPTS`].
fn check(args: &[&str], prompted: bool) -> Output {
    let mut command = Command::new(BIN);
    command.arg("check").args(args);
    if prompted {
        for prompt in PROMPTS {
            command.args(["--prompt", prompt]);
        }
    }
    command
        .env("XDG_CONFIG_HOME", "/nonexistent-collie-check")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn report(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "check printed no JSON ({error}): {} {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn failed_rules(report: &Value) -> BTreeSet<String> {
    report["failedRules"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|rule| rule.as_str().map(str::to_string))
        .collect()
}

fn verdicts(report: &Value) -> Vec<(String, String)> {
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_string(),
                f["verdict"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn check_acp_passes_the_scripted_agent_whole_named_by_the_config() {
    let dir = temp_dir();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir(&sessions).expect("sessions folder");
    let config = dir.path().join("config.toml");
    let command: Vec<String> = shell_words::split(&scripted(&sessions, "")).expect("splits");
    std::fs::write(
        &config,
        format!(
            "[acp.scripted]\ncommand = {}\n",
            serde_json::to_string(&command).expect("json")
        ),
    )
    .expect("config");
    let junit = dir.path().join("junit.xml");
    let log = dir.path().join("agent.log");
    let config = config.to_str().expect("utf-8");
    let args = [
        "--acp",
        "scripted",
        "--config",
        config,
        "--log",
        log.to_str().expect("utf-8"),
        "--junit",
        junit.to_str().expect("utf-8"),
    ];
    let output = check(&[&args[..], &["--json"]].concat(), true);
    let json = report(&output);
    assert_eq!(output.status.code(), Some(0), "{json:#}");
    assert_eq!(json["protocol"], "acp");
    assert_eq!(json["version"], 1);
    let rules: Vec<String> = verdicts(&json).into_iter().map(|(rule, _)| rule).collect();
    let expected: Vec<String> = (1..=16).map(|n| format!("P{n}")).collect();
    assert_eq!(rules, expected, "one finding per rule, in order");
    assert_eq!(json["conformance"]["conformant"], true, "{json:#}");
    let tier = |n: usize| json["findings"][n]["tier"].as_str().unwrap_or_default();
    assert_eq!(
        (tier(0), tier(3), tier(5), tier(15)),
        ("MANDATORY", "ADVISORY", "CAPABILITY", "INFORMATIONAL")
    );
    // P16 counts what the three processes wrote on stderr.
    let p16 = json["findings"][15]["what"].as_str().unwrap_or_default();
    assert!(
        p16.contains(" on stderr from 3 processes, kept in the log"),
        "{p16}"
    );
    // Only P4 is skipped: the scripted agent wants no sign-in, so it has none to name.
    let skipped: Vec<(String, String)> = verdicts(&json)
        .into_iter()
        .filter(|(_, verdict)| verdict != "pass")
        .collect();
    assert_eq!(
        skipped,
        [("P4".to_string(), "skipped".to_string())],
        "{json:#}"
    );
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    assert_eq!(xml.matches("<testcase ").count(), 16);
    assert_eq!(
        xml.matches("<property name=\"tier\" value=\"MANDATORY\"/>")
            .count(),
        6
    );
    // Its stderr went to the log, not to the terminal.
    assert!(
        std::fs::read_to_string(&log)
            .expect("log")
            .contains("scripted agent"),
        "the agent's stderr is in the log"
    );
    assert!(!String::from_utf8_lossy(&output.stderr).contains("scripted agent:"));

    // The table, as a person reads it.
    let output = check(&args, true);
    let table = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{table}");
    assert!(
        table.starts_with("collie-phone check --acp against "),
        "{table}"
    );
    assert!(
        table.contains("\nP14   MANDATORY     pass     session/cancel ends a running turn"),
        "{table}"
    );
    assert!(table.contains("15 passed, 0 failed, 1 skipped"), "{table}");
    assert!(table.ends_with("\nVerdict: CONFORMANT.\n"), "{table}");
}

/// `check --acp --protocol 2`: the scripted agent's v2 side passes whole (four processes:
/// the rules, a resume with replayFrom, offered 999, offered 1); the same agent speaking v1
/// alone answers 2 with 1, which is no fault, and the v2 rules it cannot take are not a pass.
#[test]
fn check_acp_protocol_2_passes_the_scripted_agent_whole_and_a_v1_agent_is_not_run() {
    let dir = temp_dir();
    let output = check(
        &[
            "--acp",
            &scripted(dir.path(), ""),
            "--protocol",
            "2",
            "--json",
        ],
        true,
    );
    let json = report(&output);
    assert_eq!(output.status.code(), Some(0), "{json:#}");
    assert_eq!(json["version"], 2, "{json:#}");
    assert_eq!(json["conformance"]["conformant"], true, "{json:#}");
    let skipped: Vec<(String, String)> = verdicts(&json)
        .into_iter()
        .filter(|(_, verdict)| verdict != "pass")
        .collect();
    assert_eq!(
        skipped,
        [("P4".to_string(), "skipped".to_string())],
        "{json:#}"
    );
    let what = |n: usize| {
        json["findings"][n]["what"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    for said in [
        "offered 2, answered 2",
        "offered 999, answered 2",
        "offered 1, answered 1",
        "info and object capabilities",
    ] {
        assert!(what(2).contains(said), "P3: {}", what(2));
    }
    assert!(
        what(6).contains("the prompt's messageId among them"),
        "P7: {}",
        what(6)
    );
    assert!(
        what(11).contains("ran and went idle end_turn"),
        "P12: {}",
        what(11)
    );
    assert!(
        what(12).contains("requires_action while it waited"),
        "P13: {}",
        what(12)
    );
    assert!(
        what(13).contains("went idle cancelled"),
        "P14: {}",
        what(13)
    );
    assert!(what(15).contains(" from 4 processes"), "P16: {}", what(15));

    let v1_only = temp_dir();
    let output = check(
        &[
            "--acp",
            &scripted(v1_only.path(), "--protocol 1"),
            "--protocol",
            "2",
            "--json",
        ],
        true,
    );
    let json = report(&output);
    assert_eq!(output.status.code(), Some(1), "{json:#}");
    assert_eq!(json["version"], 1, "{json:#}");
    assert_eq!(
        json["conformance"]["failed"],
        serde_json::json!([]),
        "{json:#}"
    );
    assert_eq!(
        json["conformance"]["notRun"],
        serde_json::json!(["P5", "P12", "P14"]),
        "{json:#}"
    );
    let p3 = json["findings"][2]["what"].as_str().unwrap_or_default();
    assert!(p3.contains("offered 2, answered 1"), "{p3}");
    let p12 = json["findings"][11]["why"].as_str().unwrap_or_default();
    assert!(p12.contains("check it with --protocol 1"), "{p12}");
}

#[test]
fn check_acp_without_a_prompt_or_a_sign_in_says_what_it_did_not_run() {
    let dir = temp_dir();
    let output = check(
        &["--acp", &scripted(dir.path(), "--sign-in"), "--json"],
        false,
    );
    let json = report(&output);
    // The MANDATORY rules past the sign-in did not run, which is not a pass.
    assert_eq!(output.status.code(), Some(1), "{json:#}");
    assert_eq!(
        json["conformance"]["notRun"],
        serde_json::json!(["P5", "P12", "P14"]),
        "{json:#}"
    );
    assert_eq!(json["conformance"]["failed"], serde_json::json!([]));
    for finding in json["findings"].as_array().expect("findings") {
        let rule = finding["rule"].as_str().unwrap_or_default();
        let why = finding["why"].as_str().unwrap_or_default();
        match rule {
            "P1" | "P2" | "P3" | "P4" | "P6" | "P11" | "P16" => {
                assert_eq!(finding["verdict"], "pass", "{finding}")
            }
            _ => {
                assert_eq!(finding["verdict"], "skipped", "{finding}");
                assert!(why.starts_with("not run: sign in first"), "{finding}");
            }
        }
    }
    let output = check(&["--acp", &scripted(dir.path(), "")], false);
    let table = String::from_utf8_lossy(&output.stdout);
    // Without a prompt the MANDATORY rules of a turn do not run: not a pass.
    assert_eq!(output.status.code(), Some(1), "{table}");
    assert!(
        table.ends_with(
            "\nVerdict: NOT CONFORMANT. MANDATORY rules not run, which is not a pass: P12, P14.\n"
        ),
        "{table}"
    );
    assert!(
        table.contains("not run: a turn needs a model: run with --prompt TEXT"),
        "{table}"
    );
    assert!(table.contains("add --prompt TEXT"), "{table}");
}

#[test]
fn check_acp_cannot_start_a_missing_program_and_exits_2() {
    let output = check(&["--acp", "collie-no-such-agent --acp"], false);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("collie-no-such-agent is not on PATH"),
        "{stderr}"
    );
}

/// Runs the check against the scripted agent breaking `id`; the failed rules, or why not just
/// that one, judged as its tier says: an ADVISORY rule broken leaves the run conformant (but
/// for P4, whose break needs a sign-in that keeps the MANDATORY P5, P12 and P14 from running).
fn breaking(id: &str, protocol: &str) -> Result<(), String> {
    let dir = temp_dir();
    // P4 is about a sign-in, which the agent wants only with --sign-in.
    let extra = if id == "P4" {
        format!("--sign-in --break {id}")
    } else {
        format!("--break {id}")
    };
    let output = check(
        &[
            "--acp",
            &scripted(dir.path(), &extra),
            "--protocol",
            protocol,
            "--json",
        ],
        true,
    );
    let json = report(&output);
    let failed = failed_rules(&json);
    let verdict = &json["conformance"];
    let listed = |key: &str| -> Vec<String> {
        verdict[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|rule| rule.as_str().map(str::to_string))
            .collect()
    };
    let (blocking, advisory, not_run) =
        (listed("failed"), listed("advisoryFailed"), listed("notRun"));
    let as_its_tier = if ADVISORY.contains(&id) {
        let not_run_expected: &[&str] = if id == "P4" {
            &["P5", "P12", "P14"]
        } else {
            &[]
        };
        blocking.is_empty() && advisory == [id] && not_run == not_run_expected
    } else {
        blocking == [id] && advisory.is_empty() && not_run.is_empty()
    };
    let exit = if verdict["conformant"] == true { 0 } else { 1 };
    if output.status.code() == Some(exit) && failed.len() == 1 && failed.contains(id) && as_its_tier
    {
        return Ok(());
    }
    let fails: Vec<&Value> = json["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["verdict"] == "fail")
        .collect();
    Err(format!(
        "--break {id} with --protocol {protocol}: check exited {:?} and failed {failed:?}, expected exactly {{{id}}}, with the verdict {verdict}: {}",
        output.status.code(),
        serde_json::to_string_pretty(&fails).unwrap_or_default()
    ))
}

#[test]
fn check_acp_fails_exactly_the_rule_each_break_breaks() {
    every_break_fails_its_rule("1");
}

/// The same breaks, asked for and judged as ACP v2: the scripted agent's v2 side keeps each
/// rule or breaks it in v2's terms (P12: a turn that never says it runs; P13: a permission
/// with no title; P7: a resume that answers before its replay; SPEC P says what each asks).
#[test]
fn check_acp_protocol_2_fails_exactly_the_rule_each_break_breaks() {
    every_break_fails_its_rule("2");
}

fn every_break_fails_its_rule(protocol: &str) {
    let ids: Vec<&str> = BREAKS.iter().map(|(id, _)| *id).collect();
    // P16 only records what the agent wrote on stderr, which no agent can get wrong.
    let expected: Vec<String> = (1..=15).map(|n| format!("P{n}")).collect();
    assert_eq!(
        ids, expected,
        "every rule of SPEC P that judges can be broken"
    );
    let queue = Mutex::new(ids);
    let problems = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..AT_ONCE {
            scope.spawn(|| {
                loop {
                    // Taken in a statement of its own: a `while let` would hold the lock
                    // through the whole run, one run at a time.
                    let next = queue.lock().expect("queue").pop();
                    let Some(id) = next else {
                        return;
                    };
                    if let Err(problem) = breaking(id, protocol) {
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
fn a_break_the_scripted_agent_does_not_know_is_refused_with_the_list() {
    let output = Command::new(BIN)
        .args(["acp-scripted-agent", "--break", "nope"])
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot break nope") && stderr.contains("P1, P2"),
        "{stderr}"
    );
}
