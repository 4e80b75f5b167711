//! The ACP host on ACP v2 (`--acp-protocol NAME=2`; docs/ACP.md, "ACP v1 and v2") against our
//! scripted ACP agent, which speaks v2 to a client that offers it: the twins of `acp_host`'s
//! turn, ask, stop and history tests, judged on the wire and on what the agent received (the
//! lines the host wrote to it, which the host logs at trace level, and the sessions the agent
//! kept).

use serde_json::{Value, json};

use super::acp_host::{Host, WAIT, host_logging, kept_session, listed, reopen, texts};
use crate::common::{self, *};

/// Every line the host wrote to the agent, and read from it, as JSON.
fn wire_lines(host: &Host, direction: &str) -> Vec<Value> {
    let marker = format!("direction=\"{direction}\"");
    host.log()
        .lines()
        .filter(|l| l.contains(&marker))
        .filter_map(|l| l.find("{\"jsonrpc\"").map(|at| &l[at..]))
        // The line's JSON, then the log's fields.
        .filter_map(|json| {
            serde_json::Deserializer::from_str(json)
                .into_iter::<Value>()
                .next()
                .and_then(Result::ok)
        })
        .collect()
}

/// The requests and notifications of `method` the host wrote to the agent, once there are
/// at least `count` (the log is written behind the host's back, so it is waited for).
async fn sent(host: &Host, method: &str, count: usize) -> Vec<Value> {
    eventually(&format!("{count} {method} in the log"), WAIT, || async {
        let found: Vec<Value> = wire_lines(host, "stdin")
            .into_iter()
            .filter(|m| m["method"] == method)
            .collect();
        (found.len() >= count).then_some(found)
    })
    .await
}

/// The lines of `direction` that `matches`, once there is one.
async fn logged(host: &Host, direction: &str, matches: impl Fn(&Value) -> bool) -> Vec<Value> {
    eventually(&format!("a line on {direction}"), WAIT, || async {
        let found: Vec<Value> = wire_lines(host, direction)
            .into_iter()
            .filter(|m| matches(m))
            .collect();
        (!found.is_empty()).then_some(found)
    })
    .await
}

async fn v2_host(agent: &str) -> Host {
    v2_host_in(temp_dir(), agent).await
}

async fn v2_host_in(dir: tempfile::TempDir, agent: &str) -> Host {
    host_logging(
        dir,
        &[("scripted", agent)],
        &["--acp-protocol", "scripted=2"],
        "info,collie_acp=trace",
    )
    .await
}

#[tokio::test]
async fn on_v2_a_turn_is_told_by_state_updates_and_its_upserts_are_one_item_each() {
    let host = v2_host("").await;
    let pane = host.start("scripted-1").await;
    // The host offered 2 with v2's words, and the agent answered 2.
    let init = sent(&host, "initialize", 1).await;
    assert_eq!(init.len(), 1, "one initialize: {init:?}");
    assert_eq!(init[0]["params"]["protocolVersion"], 2);
    assert_eq!(init[0]["params"]["info"]["name"], "collie-phone");
    assert!(init[0]["params"]["capabilities"]["elicitation"]["form"].is_object());
    assert!(host.log().contains("the agent speaks ACP v2"));
    assert!(
        !host.log().contains("\"method\":\"session/set_mode\""),
        "v2 has no modes"
    );

    let reply = host.send(&pane, "s1", "Check the project").await;
    // requires_action, with its card open: the pane waits for the person.
    let ask = host.ask(&pane).await;
    assert_eq!(
        host.until_state(&pane, "waiting").await["turn"]["state"],
        "running"
    );
    // The permission's subject is the card's tool call, its title the agent's words beside
    // the arguments, never the card's own title (SPEC A10).
    assert_eq!(ask["permission"]["tool"], "execute");
    assert_eq!(ask["title"], "execute: cargo test");
    assert_eq!(
        ask["permission"]["arguments"]["title"],
        "Run the tests (cargo test)?"
    );
    host.answer(&pane, "a1", &ask, "allow-once")
        .await
        .expect(200, "ok");
    let done = host.until_turn_ends(&pane).await;
    assert_eq!(done["turn"]["state"], "done", "idle end_turn");
    assert_eq!(done["turn"]["id"], reply["turnId"]);
    assert_eq!(done["state"], "idle");

    let items = host.items(&pane).await;
    // One reply for the agent's message id, though its tool call and plan came between its
    // chunks; one plan item for its plan id, rewritten; the user's words once, not echoed.
    assert_eq!(
        texts(&items, "reply"),
        ["Let me run the tests. The tests pass."]
    );
    assert_eq!(texts(&items, "user"), ["Check the project"]);
    let plans = texts(&items, "markdown");
    assert_eq!(plans.len(), 1, "{plans:?}");
    assert!(plans[0].contains("- ✓ Run the tests"), "{plans:?}");
    assert!(
        texts(&items, "notice").contains(&"Tool execute: cargo test (done)".to_string()),
        "{:?}",
        texts(&items, "notice")
    );
    // The command's terminal streamed into its own item, its colours taken out (SPEC L1).
    assert!(
        texts(&items, "code").contains(&"running 3 tests\ntest result: ok. 3 passed\n".to_string()),
        "{:?}",
        texts(&items, "code")
    );
    // What the agent received: a v2 prompt, and the Allow as its own option.
    let prompts = sent(&host, "session/prompt", 1).await;
    assert_eq!(
        prompts[0]["params"]["prompt"],
        json!([{"type": "text", "text": "Check the project"}])
    );
    let answers = logged(&host, "stdin", |m| {
        m.pointer("/result/outcome/optionId").is_some()
    })
    .await;
    assert_eq!(answers[0]["result"]["outcome"]["optionId"], "allow");
    assert_eq!(
        host.agent_history(),
        [
            ("user".to_string(), "Check the project".to_string()),
            (
                "agent".to_string(),
                "Let me run the tests. The tests pass.".to_string()
            ),
        ]
    );
}

#[tokio::test]
async fn on_v2_a_deny_reaches_the_agent_and_it_runs_nothing() {
    let host = v2_host("").await;
    let pane = host.start("scripted-1").await;
    host.send(&pane, "s1", "Check the project").await;
    let ask = host.ask(&pane).await;
    host.answer(&pane, "d1", &ask, "deny")
        .await
        .expect(200, "ok");
    assert_eq!(host.until_turn_ends(&pane).await["turn"]["state"], "done");
    let items = host.items(&pane).await;
    assert_eq!(
        texts(&items, "reply"),
        ["Let me run the tests. I did not run the tests, as you said."]
    );
    assert!(texts(&items, "notice").contains(&"Tool execute: cargo test (failed)".to_string()));
    assert!(
        texts(&items, "notice")
            .iter()
            .any(|n| n.starts_with("Denied: execute: cargo test")),
        "{:?}",
        texts(&items, "notice")
    );
    let answers = logged(&host, "stdin", |m| {
        m.pointer("/result/outcome/optionId").is_some()
    })
    .await;
    assert_eq!(answers[0]["result"]["outcome"]["optionId"], "reject");
    assert!(
        !texts(&items, "code").iter().any(|t| t.contains("3 passed")),
        "nothing ran"
    );
}

#[tokio::test]
async fn on_v2_a_stop_mid_turn_is_session_cancel_and_the_turn_goes_idle_cancelled() {
    let host = v2_host("").await;
    let pane = host.start("scripted-1").await;
    let sent_turn = host.send(&pane, "s1", "slow, please").await;
    // The reply grows, then the stop.
    eventually("the reply grows", WAIT, || async {
        (!texts(&host.items(&pane).await, "reply").is_empty()).then_some(())
    })
    .await;
    host.client
        .post(
            &pane_path(&pane, "abort"),
            json!({"requestId": "ab1", "turnId": sent_turn["turnId"]}),
        )
        .await
        .expect(200, "ok");
    let ended = host.until_turn_ends(&pane).await;
    assert_eq!(ended["turn"]["state"], "aborted");
    let stopped = "Stopped: scripted ended this turn when asked.";
    eventually("the agent's idle cancelled ends the turn", WAIT, || async {
        texts(&host.items(&pane).await, "notice")
            .contains(&stopped.to_string())
            .then_some(())
    })
    .await;
    // The agent received the cancel, and answered with an idle `cancelled`.
    let cancels = sent(&host, "session/cancel", 1).await;
    assert_eq!(cancels.len(), 1, "{cancels:?}");
    logged(&host, "stdout", |m| {
        m.pointer("/params/update/state") == Some(&json!("idle"))
            && m.pointer("/params/update/stopReason") == Some(&json!("cancelled"))
    })
    .await;
    // Nothing of the stopped turn was kept by the agent, and the next turn runs.
    assert!(host.agent_history().is_empty());
    host.send(&pane, "s2", "Check again").await;
    host.ask(&pane).await;
}

#[tokio::test]
async fn offered_2_an_agent_that_answers_1_runs_on_v1_over_the_same_process() {
    let host = v2_host("SCRIPTED --protocol 1").await;
    let pane = host.start("scripted-1").await;
    let init = sent(&host, "initialize", 2).await;
    assert_eq!(init.len(), 2, "v2's, then v1's again: {init:?}");
    assert_eq!(init[0]["params"]["protocolVersion"], 2);
    assert_eq!(init[1]["params"]["protocolVersion"], 1);
    assert!(init[1]["params"]["clientCapabilities"]["elicitation"].is_object());
    assert!(host.log().contains("the agent answered 1: it runs on v1"));
    // Today's v1 path: v1's `session/new` (its `mcpServers` required), v1's card.
    let new = sent(&host, "session/new", 1).await;
    assert_eq!(new[0]["params"]["mcpServers"], json!([]), "{new:?}");
    host.send(&pane, "s1", "/test").await;
    let ask = host.ask(&pane).await;
    assert_eq!(ask["title"], "execute: cargo test");
    host.answer(&pane, "a1", &ask, "allow-once")
        .await
        .expect(200, "ok");
    assert_eq!(host.until_turn_ends(&pane).await["turn"]["state"], "done");
    assert_eq!(host.agent_history()[0].1, "/test");
}

#[tokio::test]
async fn on_v2_a_listed_session_is_resumed_with_its_replay_shown_once() {
    let dir = temp_dir();
    std::fs::create_dir_all(dir.path().join("sessions")).expect("sessions");
    kept_session(dir.path(), "from-its-cli", "Fix the login bug");
    let host = v2_host_in(dir, "").await;
    host.start("scripted-1").await;
    let found = eventually("the kept session is in History", WAIT, || async {
        listed(&host, "Fix the login bug").await.into_iter().next()
    })
    .await;
    assert_eq!(found["title"], "scripted: Fix the login bug");
    let pane = reopen(&host, &found["id"]).await;
    let items = eventually("the replay shows", WAIT, || async {
        let items = host.items(&pane).await;
        texts(&items, "notice")
            .iter()
            .any(|n| n.starts_with("scripted loaded this session; above is its conversation"))
            .then_some(items)
    })
    .await;
    assert_eq!(texts(&items, "user"), ["Fix the login bug"]);
    assert_eq!(
        texts(&items, "reply"),
        ["Fixed it: the token was read twice."]
    );
    let resumed = sent(&host, "session/resume", 1).await;
    assert_eq!(resumed.len(), 1, "{resumed:?}");
    assert_eq!(resumed[0]["params"]["sessionId"], "from-its-cli");
    assert_eq!(resumed[0]["params"]["replayFrom"], json!({"type": "start"}));
    // The resumed session takes a prompt, under the agent's own id.
    host.send(&pane, "s1", "And the logout?").await;
    let ask = host.ask(&pane).await;
    host.answer(&pane, "a1", &ask, "allow-once")
        .await
        .expect(200, "ok");
    assert_eq!(host.until_turn_ends(&pane).await["turn"]["state"], "done");
    let items = host.items(&pane).await;
    assert_eq!(
        texts(&items, "user"),
        ["Fix the login bug", "And the logout?"]
    );
}

#[tokio::test]
async fn on_v2_an_agents_question_is_a_card_and_the_answer_goes_back_in_v2() {
    let host = v2_host("").await;
    let pane = host.start("scripted-1").await;
    host.send(&pane, "s1", "/ask").await;
    let ask = host.ask(&pane).await;
    assert_eq!(ask["kind"], "form", "{ask}");
    assert_eq!(ask["title"], "Which name should the new function have?");
    host.answer(&pane, "q1", &ask, "decline")
        .await
        .expect(200, "ok");
    assert_eq!(host.until_turn_ends(&pane).await["turn"]["state"], "done");
    let answered = logged(&host, "stdin", |m| m.pointer("/result/action").is_some()).await;
    assert_eq!(answered[0]["result"], json!({"action": "decline"}));
    assert_eq!(
        texts(&host.items(&pane).await, "reply"),
        ["A question first. You would rather not say; fine."]
    );
}

#[tokio::test]
async fn on_v2_a_restart_resumes_the_session_without_a_replay_and_it_takes_prompts() {
    let dir = temp_dir();
    let state = dir.path().join("state");
    let state_arg = state.display().to_string();
    let agents = [("scripted", "")];
    let extra = ["--acp-protocol", "scripted=2", "--state", &state_arg];
    let first = host_logging(dir, &agents, &extra, "info,collie_acp=trace").await;
    let pane = first.start("scripted-1").await;
    first.send(&pane, "s1", "Check the project").await;
    first.allow_next(&pane, "a1").await;
    assert_eq!(first.until_turn_ends(&pane).await["turn"]["state"], "done");
    let before = first.items(&pane).await;
    let Host {
        dir, mut process, ..
    } = first;
    process.stop(false);
    drop(process);

    let second = host_logging(dir, &agents, &extra, "info,collie_acp=trace").await;
    let items = eventually("resumed", WAIT, || async {
        let items = second.items(&pane).await;
        texts(&items, "notice")
            .contains(&"scripted resumed this conversation.".to_string())
            .then_some(items)
    })
    .await;
    // The host holds the conversation: resumed with no replay, nothing shown twice.
    let resumed = sent(&second, "session/resume", 1).await;
    assert!(
        resumed[0]["params"].get("replayFrom").is_none(),
        "{resumed:?}"
    );
    assert_eq!(texts(&items, "reply"), texts(&before, "reply"));
    assert_eq!(texts(&items, "user"), ["Check the project"]);
    // The resumed session takes a prompt, and the agent keeps both turns under its id.
    second.send(&pane, "s2", "Once more").await;
    second.allow_next(&pane, "a2").await;
    assert_eq!(second.until_turn_ends(&pane).await["turn"]["state"], "done");
    let said: Vec<String> = second
        .agent_history()
        .into_iter()
        .filter(|(who, _)| who == "user")
        .map(|(_, words)| words)
        .collect();
    assert_eq!(said, ["Check the project", "Once more"]);
}

#[tokio::test]
async fn on_v2_a_file_change_shows_its_patch_on_the_card_and_in_the_chat() {
    let host = v2_host("").await;
    let pane = host.start("scripted-1").await;
    host.send(&pane, "s1", "/edit the add").await;
    let ask = host.ask(&pane).await;
    // The subject leads (an edit of its file), the patch is the card's diff.
    let project = host
        .dir
        .path()
        .join("project")
        .canonicalize()
        .expect("a path");
    let file = project.join("src/lib.rs").display().to_string();
    assert_eq!(ask["title"], format!("edit: {file}"));
    assert_eq!(ask["permission"]["arguments"]["files"], json!([file]));
    assert!(
        ask["permission"]["arguments"]["patch"]
            .as_str()
            .is_some_and(|p| p.contains("-    a - b\n+    a + b")),
        "{ask}"
    );
    assert_eq!(
        ask["permission"]["arguments"]["title"],
        "Apply the fix to src/lib.rs?"
    );
    host.answer(&pane, "a1", &ask, "allow-once")
        .await
        .expect(200, "ok");
    assert_eq!(host.until_turn_ends(&pane).await["turn"]["state"], "done");
    let items = host.items(&pane).await;
    let diffs: Vec<&Value> = items.iter().filter(|i| i["language"] == "diff").collect();
    assert_eq!(
        diffs.len(),
        1,
        "once, though the call and the ask both carry it"
    );
    assert!(
        diffs[0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("-    a - b\n+    a + b"))
    );
    assert_eq!(texts(&items, "reply"), ["Let me fix it. The fix is in."]);
    assert!(
        !project.join("src/lib.rs").exists(),
        "the scripted agent writes no file of the workspace"
    );
}

#[tokio::test]
async fn on_v2_a_sign_in_the_agent_does_itself_is_a_card_of_its_ways_and_auth_login() {
    let host = v2_host("SCRIPTED --sign-in").await;
    // Not now fails the pane, saying how to sign in; nothing goes to the agent.
    let first = common::panes::start(&host.client, "scripted-1").await;
    let ask = host.ask(&first).await;
    assert_eq!(ask["kind"], "choice", "{ask}");
    assert_eq!(ask["title"], "scripted needs a sign-in");
    let labels: Vec<&str> = ask["choice"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|o| o["label"].as_str())
        .collect();
    assert_eq!(labels, ["Log in to the scripted agent", "Not now"]);
    host.answer(&first, "g1", &ask, "not-now")
        .await
        .expect(200, "ok");
    host.until_state(&first, "failed").await;
    assert!(
        texts(&host.items(&first).await, "notice").contains(
            &"scripted needs a sign-in (Log in to the scripted agent): run it once in a terminal, then send again here."
                .to_string()
        ),
        "{:?}",
        texts(&host.items(&first).await, "notice")
    );
    assert!(!host.log().contains("\"method\":\"auth/login\""));

    // A send asks again; a way chosen is `auth/login` with its id, and the session opens
    // after it and takes the words that waited.
    let pane = first;
    host.send(&pane, "s1", "Check the project").await;
    let ask = host.ask(&pane).await;
    host.answer(&pane, "g2", &ask, "o1").await.expect(200, "ok");
    let login = sent(&host, "auth/login", 1).await;
    assert_eq!(login.len(), 1);
    assert_eq!(login[0]["params"], json!({"methodId": "login"}));
    host.allow_next(&pane, "a1").await;
    assert_eq!(host.until_turn_ends(&pane).await["turn"]["state"], "done");
    assert!(texts(&host.items(&pane).await, "notice").contains(
        &"Signed in: scripted took the sign-in “Log in to the scripted agent”.".to_string()
    ));
    assert_eq!(host.agent_history()[0].1, "Check the project");
}
