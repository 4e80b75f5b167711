//! `collie-phone check` against the real reference agent, over a socket, over https with a
//! token and over plain loopback http with a token: it passes every rule it can see (SPEC W2,
//! W4, W6, H1, H3, H4, T3, T5, Q3, V2, V4 and the A and L rules), its `--json` parses, its
//! `--junit` is valid XML, and its exit code tells pass (0), fail (1) and unreachable (2).

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::*;
use serde_json::Value;

/// Runs `collie-phone check ARGS` to its end.
fn check(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("check")
        .args(args)
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env_remove("COLLIE_DURABLE_TOKEN")
        // No config file of the person running the tests may add agents.
        .env("XDG_CONFIG_HOME", "/nonexistent-collie-check")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// True when a line of the table starts with these words, whatever the column widths.
fn has_line(table: &str, words: &[&str]) -> bool {
    table.lines().any(|line| {
        let mut rest = line;
        words.iter().all(|word| {
            rest = rest.trim_start();
            match rest.strip_prefix(word) {
                Some(after) => {
                    rest = after;
                    true
                }
                None => false,
            }
        })
    })
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The `--json` report, with the whole output in the panic message when it does not parse.
fn report(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "check --json printed no JSON ({error}); stdout: {} stderr: {}",
            text(&output.stdout),
            text(&output.stderr)
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

/// Every finding passed or was skipped, and the report says so.
fn assert_all_pass(output: &Output) -> Value {
    let report = report(output);
    assert_eq!(
        report["failedRules"],
        serde_json::json!([]),
        "failed findings: {}",
        serde_json::to_string_pretty(
            &report["findings"]
                .as_array()
                .expect("findings")
                .iter()
                .filter(|f| f["verdict"] == "fail")
                .collect::<Vec<_>>()
        )
        .expect("json")
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    report
}

fn tls_files(dir: &Path) -> (String, String) {
    let (cert, key, _) = common::tls_files(dir);
    let path = |p: &Path| p.to_str().expect("utf-8").to_string();
    (path(&cert), path(&key))
}

#[test]
fn h3_w4_q3_v4_check_passes_over_a_socket_with_writes_and_a_starting_agent() {
    let dir = temp_dir();
    // Not ready for a while, so H3's 503 starting can be seen (SPEC H3).
    let agent = socket_agent(dir.path(), &["--ready-after", "4000"]);
    let socket = agent.socket_path();
    let output = check(&[
        "--socket",
        socket.to_str().expect("utf-8"),
        "--allow-writes",
        "--json",
    ]);
    let report = assert_all_pass(&output);
    assert_eq!(report["allowWrites"], true);
    assert_eq!(report["version"], 1);
    let h3 = findings(&report, "H3");
    assert!(
        h3.iter().any(|f| f["verdict"] == "pass"
            && f["what"].as_str().is_some_and(|w| w.contains("snapshot"))),
        "H3 was seen while the agent was starting: {h3:?}"
    );
    // Over a socket there is no token: T3 is skipped with the reason (SPEC S5).
    let t3 = findings(&report, "T3");
    assert!(t3.iter().all(|f| f["verdict"] == "skipped"), "{t3:?}");
    assert!(
        t3[0]["why"]
            .as_str()
            .expect("why")
            .contains("only over TCP")
    );
    // With --allow-writes the Q3 replay of a real write ran and passed.
    assert!(findings(&report, "Q3").iter().any(
        |f| f["verdict"] == "pass" && f["what"].as_str().is_some_and(|w| w.contains("rename"))
    ));
    for rule in ["W2", "W4", "W6", "H1", "H4", "T5", "Q3", "V2", "V4"] {
        assert!(
            findings(&report, rule)
                .iter()
                .any(|f| f["verdict"] == "pass"),
            "{rule} has a passing finding"
        );
    }
}

#[test]
fn t3_check_passes_over_https_with_a_token() {
    let dir = temp_dir();
    let (cert, key) = tls_files(dir.path());
    let (token, _) = token_file(dir.path());
    let token = token.to_str().expect("utf-8");
    let agent = AgentProcess::start(&[
        "agent",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        token,
        "--tls-cert",
        &cert,
        "--tls-key",
        &key,
        "--speed",
        "0",
    ]);
    assert!(agent.url.starts_with("https://"), "{}", agent.url);
    let output = check(&[
        "--url",
        &agent.url,
        "--token-file",
        token,
        "--ca-cert",
        &cert,
        "--allow-writes",
        "--json",
    ]);
    let report = assert_all_pass(&output);
    let t3 = findings(&report, "T3");
    let passed = t3.iter().filter(|f| f["verdict"] == "pass").count();
    assert!(
        passed >= 10,
        "every T3 request without and with a wrong token passed: {t3:?}"
    );
    // W2's paths outside /session/v1 went out with the token, so they were judged, not skipped.
    assert!(
        findings(&report, "W2")
            .iter()
            .all(|f| f["verdict"] == "pass")
    );
}

#[test]
fn t3_check_passes_over_loopback_http_with_a_token_and_prints_a_table() {
    let dir = temp_dir();
    let (token, _) = token_file(dir.path());
    let token = token.to_str().expect("utf-8");
    let agent = AgentProcess::start(&[
        "agent",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        token,
        "--speed",
        "0",
    ]);
    let output = check(&["--url", &agent.url, "--token-file", token]);
    let table = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{table}{}",
        text(&output.stderr)
    );
    assert!(
        table.starts_with(&format!("collie-phone check against {}", agent.url)),
        "{table}"
    );
    assert!(has_line(&table, &["rule", "result", "what"]), "{table}");
    assert!(has_line(&table, &["T3", "pass"]), "{table}");
    // Read-only: the writes are skipped, and the table says how to run them.
    assert!(
        table.contains("changes the agent's state: run with --allow-writes"),
        "{table}"
    );
    assert!(table.contains(" 0 failed, "), "{table}");
    assert!(table.contains("add --allow-writes"), "{table}");
}

#[test]
fn w4_a_broken_rule_fails_with_exit_1_and_junit_is_valid_xml() {
    let dir = temp_dir();
    let agent = socket_agent(dir.path(), &["--break", "W4"]);
    let socket = agent.socket_path();
    let junit = dir.path().join("check.xml");
    let output = check(&[
        "--socket",
        socket.to_str().expect("utf-8"),
        "--junit",
        junit.to_str().expect("utf-8"),
    ]);
    let table = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{table}");
    assert!(
        has_line(
            &table,
            &[
                "W4",
                "FAIL",
                "a body of 65537 bytes gets 413 too-large: sent POST /session/v1/rename with a 65537-byte body, got 400 bad-request, expected 413 too-large"
            ]
        ),
        "{table}"
    );
    assert!(table.contains("Failed rules: W4."), "{table}");

    let xml = std::fs::read_to_string(&junit).expect("the JUnit file was written");
    let document = roxmltree::Document::parse(&xml).expect("valid XML");
    let suite = document
        .descendants()
        .find(|node| node.has_tag_name("testsuite"))
        .expect("a testsuite");
    let cases: Vec<_> = suite
        .children()
        .filter(|node| node.has_tag_name("testcase"))
        .collect();
    assert_eq!(
        suite.attribute("tests"),
        Some(cases.len().to_string().as_str())
    );
    let failed: Vec<_> = cases
        .iter()
        .filter(|case| case.children().any(|c| c.has_tag_name("failure")))
        .collect();
    assert_eq!(
        suite.attribute("failures"),
        Some(failed.len().to_string().as_str())
    );
    assert!(!failed.is_empty());
    assert!(
        failed
            .iter()
            .all(|case| case.attribute("classname") == Some("W4"))
    );
    let skipped = cases
        .iter()
        .filter(|case| case.children().any(|c| c.has_tag_name("skipped")))
        .count();
    assert!(skipped > 0, "read-only: the writes are skipped testcases");
}

#[test]
fn an_unreachable_agent_exits_2_and_says_why() {
    let dir = temp_dir();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).expect("mkdir");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let socket = run.join("nobody.sock");
    let output = check(&["--socket", socket.to_str().expect("utf-8")]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("could not reach the agent") && stderr.contains("nothing was checked"),
        "{stderr}"
    );
    assert!(stderr.contains("collie-phone doctor"), "{stderr}");

    // With --json, CI gets the reason as JSON too.
    let output = check(&["--socket", socket.to_str().expect("utf-8"), "--json"]);
    assert_eq!(output.status.code(), Some(2));
    let report = report(&output);
    assert!(
        report["unreachable"]
            .as_str()
            .is_some_and(|why| !why.is_empty()),
        "{report}"
    );
}

#[test]
fn t6_a_refused_token_exits_2() {
    let dir = temp_dir();
    let (token, _) = token_file(dir.path());
    let agent = AgentProcess::start(&[
        "agent",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        token.to_str().expect("utf-8"),
        "--speed",
        "0",
    ]);
    let wrong = dir.path().join("wrong-token");
    std::fs::write(&wrong, "another-token-0123456789abcdefghijklmnop\n").expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrong, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let output = check(&[
        "--url",
        &agent.url,
        "--token-file",
        wrong.to_str().expect("utf-8"),
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("refused the token"), "{stderr}");
}
