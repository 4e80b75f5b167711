//! The ACP host (`agent --acp`) against our scripted ACP agent, a real process speaking ACP
//! on its stdio, over a real socket: every mapping of docs/ACP.md, judged on what the wire
//! carries and on what the agent itself received (its sessions folder keeps every prompt and
//! reply, and its answers show in what it says next).

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(20);

/// A host with the scripted agent as `scripted`, in a folder of its own.
struct Host {
    dir: tempfile::TempDir,
    process: AgentProcess,
    client: Client,
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("a utf-8 path")
}

fn scripted(dir: &Path, extra: &str) -> String {
    let sessions = dir.join("sessions");
    std::fs::create_dir_all(&sessions).expect("a sessions folder");
    format!(
        "{BIN} acp-scripted-agent --pace 2 --sessions {} {extra}",
        sessions.display()
    )
}

fn workspace(dir: &Path, name: &str) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).expect("a workspace folder");
    folder
}

async fn host(agents: &[(&str, &str)], extra: &[&str]) -> Host {
    let dir = temp_dir();
    host_in(dir, agents, extra).await
}

async fn host_in(dir: tempfile::TempDir, agents: &[(&str, &str)], extra: &[&str]) -> Host {
    let project = workspace(dir.path(), "project");
    let log = dir.path().join("host.log");
    let config = dir.path().join("none.toml");
    let specs: Vec<String> = agents
        .iter()
        .map(|(name, command)| {
            let command = if command.is_empty() {
                scripted(dir.path(), "")
            } else {
                command.replace("SCRIPTED", &scripted(dir.path(), ""))
            };
            format!("{name}={command}")
        })
        .collect();
    let mut args: Vec<&str> = vec!["--log", arg(&log), "--config", arg(&config)];
    for spec in &specs {
        args.extend(["--acp", spec.as_str()]);
    }
    if !extra.contains(&"--workspace") {
        args.extend(["--workspace", arg(&project)]);
    }
    args.extend_from_slice(extra);
    let socket = dir.path().join("run").join("agent.sock");
    let mut all = vec!["agent", "--socket", arg(&socket)];
    all.extend_from_slice(&args);
    // Info, not the tests' usual warn: the tests read what the host logs.
    let process = AgentProcess::start_with_env(&all, &[("RUST_LOG", "info")]);
    let client = process.client();
    wait_ready(&client).await;
    Host {
        dir,
        process,
        client,
    }
}

impl Host {
    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("host.log")).unwrap_or_default()
    }

    /// What the scripted agent keeps of its sessions: every (who, words) it received and said.
    fn agent_history(&self) -> Vec<(String, String)> {
        let mut all = Vec::new();
        let folder = self.dir.path().join("sessions");
        for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            let saved: Value = serde_json::from_str(&text).unwrap_or_default();
            for pair in saved["history"].as_array().into_iter().flatten() {
                all.push((
                    pair[0].as_str().unwrap_or_default().to_string(),
                    pair[1].as_str().unwrap_or_default().to_string(),
                ));
            }
        }
        all
    }

    async fn start(&self, starter: &str) -> String {
        let pane = common::panes::start(&self.client, starter).await;
        self.until_state(&pane, "idle").await;
        pane
    }

    async fn pane(&self, pane: &str) -> Option<Value> {
        common::panes::find(&self.client, pane).await
    }

    async fn until_state(&self, pane: &str, state: &str) -> Value {
        eventually(&format!("pane {pane} is {state}"), WAIT, || async {
            self.pane(pane).await.filter(|p| p["state"] == state)
        })
        .await
    }

    async fn send(&self, pane: &str, id: &str, text: &str) -> Value {
        common::panes::send(&self.client, pane, id, text).await
    }

    async fn ask(&self, pane: &str) -> Value {
        eventually("a permission ask", WAIT, || async {
            self.pane(pane)
                .await
                .and_then(|p| p["asks"].as_array().and_then(|a| a.first().cloned()))
        })
        .await
    }

    async fn answer(&self, pane: &str, id: &str, ask: &Value, option: &str) -> Reply {
        common::panes::answer(&self.client, pane, id, ask, option).await
    }

    /// The pane's items as the whole view gives them.
    async fn items(&self, pane: &str) -> Vec<Value> {
        common::panes::items(&self.client, pane).await
    }

    /// Answers Allow once to the next permission card: the scripted agent's "Ask first" asks
    /// before every command and edit.
    async fn allow_next(&self, pane: &str, id: &str) {
        let ask = self.ask(pane).await;
        self.answer(pane, id, &ask, "allow-once")
            .await
            .expect(200, "ok");
    }

    async fn until_turn_ends(&self, pane: &str) -> Value {
        eventually("the turn ends", WAIT, || async {
            self.pane(pane)
                .await
                .filter(|p| p["turn"]["state"] != "running" && p["state"] != "starting")
        })
        .await
    }
}

fn texts(items: &[Value], kind: &str) -> Vec<String> {
    items
        .iter()
        .filter(|i| i["kind"] == kind)
        .map(|i| i["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test]
async fn a_starter_opens_a_session_and_a_turn_streams_into_items() {
    let host = host(&[("scripted", "")], &[]).await;
    let hello = host
        .client
        .send(Req::get(HELLO).version(None))
        .await
        .expect(200, "");
    assert_eq!(
        hello["caps"]["queueSend"], true,
        "ACP cannot steer: said in caps"
    );
    let snap = snapshot(&host.client).await;
    let starters = snap["starters"].as_array().expect("starters");
    assert_eq!(starters.len(), 1);
    assert!(
        starters[0]["title"]
            .as_str()
            .is_some_and(|t| t.starts_with("scripted in ") && t.ends_with("/project")),
        "{starters:?}"
    );
    let starter = starters[0]["id"].as_str().expect("an id").to_string();
    let pane = host.start(&starter).await;
    // The belt holds the agent's commands.
    let shown = host.pane(&pane).await.expect("the pane");
    assert_eq!(
        shown["belt"][0]["label"], "/test",
        "sent right after session/new, kept"
    );

    host.send(&pane, "s1", "Check the project").await;
    let ask = host.ask(&pane).await;
    assert_eq!(
        ask["title"], "execute: cargo test",
        "A10: from the tool and its input"
    );
    assert_eq!(ask["permission"]["tool"], "execute");
    assert_eq!(ask["permission"]["arguments"]["command"], "cargo test");
    let options: Vec<(&str, &str)> = ask["permission"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|o| {
            (
                o["id"].as_str().unwrap_or(""),
                o["effect"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        options,
        [
            ("allow-once", "allow"),
            ("allow-always", "allow-always"),
            ("deny", "deny"),
            ("deny-always", "deny"),
        ]
    );
    host.answer(&pane, "a1", &ask, "allow-once")
        .await
        .expect(200, "ok");
    // The edit asks too, in "Ask first".
    eventually("the edit's card", WAIT, || async {
        host.ask(&pane).await["id"].ne(&ask["id"]).then_some(())
    })
    .await;
    host.allow_next(&pane, "a1-edit").await;
    let done = host.until_turn_ends(&pane).await;
    assert_eq!(done["turn"]["state"], "done");

    let items = host.items(&pane).await;
    let replies = texts(&items, "reply");
    assert_eq!(
        replies,
        [
            "I'll start by reading the project. 我先读一下项目。",
            "The tests ran: 2 passed, 1 failed (`adds`).",
            "Here is a fix for `add`: it subtracted instead of adding.",
        ],
        "one reply item per message, whole, never one per chunk"
    );
    assert_eq!(texts(&items, "thinking").len(), 1);
    let plans = texts(&items, "markdown");
    assert_eq!(plans.len(), 1, "one plan item, rewritten as it moves");
    assert!(plans[0].contains("- ✓ Propose a fix"), "{plans:?}");
    let notices = texts(&items, "notice");
    assert!(notices.contains(&"Tool read: Read Cargo.lock (failed)".to_string()));
    assert!(notices.contains(&"Tool execute: Run the tests (done)".to_string()));
    let diff = items
        .iter()
        .find(|i| i["language"] == "diff")
        .expect("the edit as a diff");
    assert!(
        diff["text"]
            .as_str()
            .is_some_and(|t| t.contains("-    a - b\n+    a + b"))
    );
    // The agent got the allow: it ran the tests.
    assert!(
        texts(&items, "code")
            .iter()
            .any(|t| t.contains("test result: FAILED. 2 passed"))
    );
    let history = host.agent_history();
    assert_eq!(
        history[0],
        ("user".to_string(), "Check the project".to_string())
    );

    // A grown item keeps two events at most (its first, grown, and its newest), and a reader
    // from the start meets every item first where it belongs in the chat.
    let events = host
        .client
        .get(&format!(
            "{}?after=0&epoch={}",
            pane_path(&pane, "events"),
            hello["epoch"].as_str().expect("an epoch")
        ))
        .await
        .expect(200, "");
    let mut ids: Vec<&str> = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "item")
        .filter_map(|e| e["item"]["id"].as_str())
        .collect();
    let mut firsts: Vec<&str> = Vec::new();
    for id in &ids {
        if !firsts.contains(id) {
            firsts.push(id);
        }
    }
    let in_view: Vec<&str> = items.iter().filter_map(|i| i["id"].as_str()).collect();
    assert_eq!(firsts, in_view, "first events in chat order");
    ids.sort_unstable();
    for id in &firsts {
        let copies = ids.iter().filter(|i| *i == id).count();
        assert!(copies <= 2, "{id} is kept {copies} times");
    }
}

#[tokio::test]
async fn deny_always_reaches_the_agent_as_its_reject_always_option() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    host.send(&pane, "s1", "Check the project").await;
    let ask = host.ask(&pane).await;
    host.answer(&pane, "a1", &ask, "deny-always")
        .await
        .expect(200, "ok");
    eventually("the edit's card", WAIT, || async {
        host.ask(&pane).await["id"].ne(&ask["id"]).then_some(())
    })
    .await;
    host.allow_next(&pane, "a1-edit").await;
    host.until_turn_ends(&pane).await;
    let items = host.items(&pane).await;
    assert!(texts(&items, "reply").contains(&"Understood: I will not run the tests.".to_string()));
    assert!(texts(&items, "notice").contains(&"Tool execute: Run the tests (failed)".to_string()));
    // A second answer to the same ask is refused with the first outcome (SPEC A7).
    let late = host.answer(&pane, "a2", &ask, "allow-once").await;
    let body = late.expect(409, "decided");
    assert_eq!(body["outcome"]["optionId"], "deny-always");
}

#[tokio::test]
async fn a_send_during_a_turn_is_queued_and_becomes_the_next_prompt() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    // A turn held open by its permission card, so the second send surely meets it running.
    let first = host.send(&pane, "s1", "/test").await;
    let turn = first["turnId"].as_str().expect("a turn").to_string();
    let ask = host.ask(&pane).await;
    let queued = host.send(&pane, "s2", "then go slow").await;
    assert_eq!(queued["queued"], true);
    assert_eq!(queued["steered"], false);
    assert_eq!(
        queued["turnId"],
        turn.as_str(),
        "it waits behind the running turn"
    );
    let again = host.send(&pane, "s3", "and slow again").await;
    assert_eq!(
        again["queued"], true,
        "a second send queues behind the same turn"
    );
    host.answer(&pane, "a1", &ask, "allow-once")
        .await
        .expect(200, "ok");
    eventually("the queued texts ran as the next turn", WAIT, || async {
        let pane = host.pane(&pane).await?;
        (pane["turn"]["id"] != turn.as_str() && pane["turn"]["state"] == "done").then_some(())
    })
    .await;
    let users: Vec<String> = host
        .agent_history()
        .into_iter()
        .filter(|(who, _)| who == "user")
        .map(|(_, words)| words)
        .collect();
    assert_eq!(
        users,
        ["/test", "then go slow\nand slow again"],
        "the agent got both queued texts as one prompt, in order"
    );
    let notices = texts(&host.items(&pane).await, "notice");
    assert!(
        notices
            .iter()
            .any(|n| n.starts_with("Queued: scripted reads this"))
    );
}

/// SPEC A21 on the ACP host, from the phone's card: "Deny, and say why" rejects the agent's
/// permission request, and the words become the next prompt, queued while the turn runs
/// (docs/ACP.md, "Sends are queued, never steered"). The agent's own sessions hold the words
/// once, after the first prompt; the phone's journal holds the Deny and then the words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a21_a_deny_with_words_rejects_the_call_and_the_words_are_the_next_prompt() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    host.send(&pane, "s1", "/test").await;
    let ask = host.ask(&pane).await;
    let endpoint = collie_phone::transport::Endpoint::socket(host.process.socket_path());
    let mut phone = common::phone::TestPhone::start(
        "host",
        endpoint,
        false,
        host.dir.path(),
        (100, 30),
        |_| {},
    );
    phone
        .until("the ask on Home", |s| s.contains("execute: cargo test"))
        .await;
    phone.press(&["ctrl-n"]).await;
    phone
        .until("the card", |s| s.contains("Deny, and say why"))
        .await;
    phone.press(&["N"]).await;
    let words = "run only the unit tests";
    phone.type_text(words).await;
    phone.read_card().await;
    phone.press(&["enter"]).await;
    phone
        .until("one receipt of both", |s| {
            s.contains("Denied, and your words were sent.")
        })
        .await;
    // The scripted turn goes on to its edit; once that is allowed, the turn ends and the
    // queued words run as the next one.
    eventually("the edit's card", WAIT, || async {
        host.ask(&pane).await["id"].ne(&ask["id"]).then_some(())
    })
    .await;
    host.allow_next(&pane, "a-edit").await;
    let users = eventually("the words ran as the next prompt", WAIT, || async {
        let users: Vec<String> = host
            .agent_history()
            .into_iter()
            .filter(|(who, _)| who == "user")
            .map(|(_, words)| words)
            .collect();
        (users.len() >= 2).then_some(users)
    })
    .await;
    assert_eq!(users, ["/test", words]);
    let items = host.items(&pane).await;
    assert!(
        texts(&items, "reply").contains(&"Understood: I will not run the tests.".to_string()),
        "{items:?}"
    );
    let created = common::journal_kinds(&host.dir.path().join("intents.jsonl"));
    assert_eq!(created.len(), 2, "{created:?}");
    assert_eq!(created[0]["kind"], "answer");
    assert_eq!(created[0]["answer"]["optionId"], "deny");
    assert_eq!(created[1]["kind"], "send");
    assert_eq!(created[1]["text"], words);
}

#[tokio::test]
async fn abort_cancels_the_turn_and_its_open_permission_is_decided() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    let sent = host.send(&pane, "s1", "Check the project").await;
    let ask = host.ask(&pane).await;
    host.client
        .post(
            &pane_path(&pane, "abort"),
            json!({"requestId": "ab1", "turnId": sent["turnId"]}),
        )
        .await
        .expect(200, "ok");
    let ended = host.until_turn_ends(&pane).await;
    assert_eq!(ended["turn"]["state"], "aborted");
    assert!(ended["asks"].as_array().is_some_and(Vec::is_empty));
    // The agent was answered `cancelled`: it did not run the tests.
    eventually("the agent's tool call failed", WAIT, || async {
        texts(&host.items(&pane).await, "notice")
            .contains(&"Tool execute: Run the tests (failed)".to_string())
            .then_some(())
    })
    .await;
    let late = host.answer(&pane, "a1", &ask, "allow-once").await;
    let body = late.expect(409, "decided");
    assert_eq!(body["decidedBy"], "program");
    // And the next send works on a new turn.
    host.send(&pane, "s2", "/test").await;
    host.ask(&pane).await;
}

#[tokio::test]
async fn a_prompt_error_fails_the_turn_in_plain_words() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    host.send(&pane, "s1", "please fail").await;
    let ended = host.until_turn_ends(&pane).await;
    assert_eq!(ended["turn"]["state"], "failed");
    assert_eq!(ended["state"], "failed");
    let notices = texts(&host.items(&pane).await, "notice");
    assert!(
        notices.contains(
            &"scripted could not finish this turn: the scripted agent fails when a prompt says fail. What it printed is in the host's log."
                .to_string()
        ),
        "{notices:?}"
    );
}

#[tokio::test]
async fn a_crash_fails_the_turn_and_the_next_send_loads_the_session_again() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    host.send(&pane, "s1", "Check the project").await;
    let ask = host.ask(&pane).await;
    host.answer(&pane, "a1", &ask, "allow-once")
        .await
        .expect(200, "ok");
    eventually("the edit's card", WAIT, || async {
        host.ask(&pane).await["id"].ne(&ask["id"]).then_some(())
    })
    .await;
    host.allow_next(&pane, "a1-edit").await;
    host.until_turn_ends(&pane).await;
    host.send(&pane, "s2", "now crash").await;
    let ended = host.until_turn_ends(&pane).await;
    assert_eq!(ended["turn"]["state"], "failed");
    let notices = texts(&host.items(&pane).await, "notice");
    // The last lines it printed on stderr are in the notice; the whole is in the host's log.
    assert!(notices.contains(&"scripted stopped unexpectedly. It printed last: “scripted agent: crashing on purpose, as the prompt asked” (the whole is in the host's log). Send a message to start it again.".to_string()), "{notices:?}");
    eventually("the stderr line is logged", WAIT, || async {
        host.log()
            .contains("stderr: scripted agent: crashing on purpose")
            .then_some(())
    })
    .await;

    host.send(&pane, "s3", "/test").await;
    let ask = host.ask(&pane).await;
    host.answer(&pane, "a2", &ask, "allow-once")
        .await
        .expect(200, "ok");
    let ended = host.until_turn_ends(&pane).await;
    assert_eq!(ended["turn"]["state"], "done");
    let notices = texts(&host.items(&pane).await, "notice");
    assert!(
        notices.contains(&"scripted resumed this conversation.".to_string()),
        "session/resume where offered: {notices:?}"
    );
    eventually("the agent's own word that it resumed", WAIT, || async {
        host.log()
            .contains("stderr: scripted agent: resumed session")
            .then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_restart_loads_sessions_back_into_their_panes() {
    let dir = temp_dir();
    let state = dir.path().join("state");
    let state_arg = state.display().to_string();
    // No session/resume offered: the host loads.
    let agents = [("scripted", "SCRIPTED --no-resume")];
    let first = host_in(dir, &agents, &["--state", &state_arg]).await;
    let pane = first.start("scripted-1").await;
    first.send(&pane, "s1", "/test").await;
    let ask = first.ask(&pane).await;
    first
        .answer(&pane, "a1", &ask, "allow-once")
        .await
        .expect(200, "ok");
    first.until_turn_ends(&pane).await;
    // A mode switched before the restart is the agent's: the load's reply brings it back.
    first
        .client
        .post(
            &pane_path(&pane, "setting"),
            json!({"requestId": "m1", "settingId": "mode", "value": "plan"}),
        )
        .await
        .expect(200, "ok");
    eventually("the agent's yes shows", WAIT, || async {
        first
            .pane(&pane)
            .await
            .filter(|p| p["settings"][0]["current"] == "plan")
    })
    .await;
    let before = first.items(&pane).await.len();
    // A turn left running with an open ask when the host goes down.
    first.send(&pane, "s2", "/test").await;
    first.ask(&pane).await;
    let Host {
        dir, mut process, ..
    } = first;
    process.stop(false);
    drop(process);

    let second = host_in(dir, &agents, &["--state", &state_arg]).await;
    let back = second.until_state(&pane, "failed").await;
    assert!(
        back["asks"].as_array().is_some_and(Vec::is_empty),
        "the old request is gone"
    );
    let items = second.items(&pane).await;
    assert!(
        items.len() > before,
        "the history is back, with what happened since"
    );
    let notices = texts(&items, "notice");
    assert!(notices.contains(
        &"The host restarted during this turn; the agent did not finish it.".to_string()
    ));
    assert!(
        notices.contains(&"scripted loaded this conversation again.".to_string()),
        "{notices:?}"
    );
    let loaded = second.pane(&pane).await.expect("the pane");
    assert_eq!(
        loaded["settings"][0]["current"], "plan",
        "from the session/load reply"
    );
    assert_eq!(
        loaded["commands"].as_array().map(Vec::len),
        Some(9),
        "kept with the layout"
    );
    // The loaded session takes prompts again.
    second.send(&pane, "s3", "/test").await;
    let ask = second.ask(&pane).await;
    second
        .answer(&pane, "a2", &ask, "allow-once")
        .await
        .expect(200, "ok");
    assert_eq!(second.until_turn_ends(&pane).await["turn"]["state"], "done");
}

/// A host killed (`kill -9`) while a call waits on its card: after the restart the turn failed,
/// and its call says it did not finish and why, instead of "waiting" for good (docs/ACP.md,
/// "Tool calls and their notices").
#[tokio::test]
async fn a_host_killed_mid_turn_settles_its_calls_when_it_comes_back() {
    let dir = temp_dir();
    let state = dir.path().join("state");
    let state_arg = state.display().to_string();
    let agents = [("scripted", "")];
    let first = host_in(dir, &agents, &["--state", &state_arg]).await;
    let pane = first.start("scripted-1").await;
    first.send(&pane, "s1", "/test").await;
    first.ask(&pane).await;
    assert_eq!(
        texts_starting(&first.items(&pane).await, "Tool "),
        ["Tool execute: Run the tests (waiting)"]
    );
    // Past the store's second, so what the card and the call say is on disk.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let Host {
        dir, mut process, ..
    } = first;
    process.kill();
    drop(process);

    let second = host_in(dir, &agents, &["--state", &state_arg]).await;
    let back = second.until_state(&pane, "failed").await;
    assert_eq!(back["turn"]["state"], "failed");
    let items = second.items(&pane).await;
    assert_eq!(
        texts_starting(&items, "Tool "),
        ["Tool execute: Run the tests (not finished: the host restarted during the turn)"],
        "nothing waits after its turn ended"
    );
    // Settled before the pane says the turn is over, as a turn that ends does.
    let notices = texts(&items, "notice");
    let settled = notices.iter().position(|t| t.starts_with("Tool "));
    let said = notices
        .iter()
        .position(|t| t == "The host restarted during this turn; the agent did not finish it.");
    assert!(settled.is_some() && settled < said, "{notices:?}");
    // Kept so: a second restart finds nothing open.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let Host {
        dir, mut process, ..
    } = second;
    process.kill();
    drop(process);
    let third = host_in(dir, &agents, &["--state", &state_arg]).await;
    third.until_state(&pane, "failed").await;
    assert_eq!(
        texts_starting(&third.items(&pane).await, "Tool "),
        ["Tool execute: Run the tests (not finished: the host restarted during the turn)"]
    );
}

/// An agent may bring a session back in another mode than it was in (codex-acp 2.6 resumed a
/// read-only session in `workspace-write` and ran `touch` without asking): after a restart the
/// host puts the session back in the mode its pane was in, and the agent is in it. The scripted
/// agent is made to forget its mode while the host is down, as codex did.
#[tokio::test]
async fn a_restart_puts_a_resumed_session_back_in_the_mode_its_pane_was_in() {
    let dir = temp_dir();
    let state = dir.path().join("state");
    let state_arg = state.display().to_string();
    let agents = [("scripted", "")];
    let first = host_in(dir, &agents, &["--state", &state_arg]).await;
    let pane = first.start("scripted-1").await;
    // Prompted once, so the agent keeps the session.
    first.send(&pane, "s1", "/mode").await;
    first.until_turn_ends(&pane).await;
    first
        .client
        .post(
            &pane_path(&pane, "setting"),
            json!({"requestId": "m1", "settingId": "mode", "value": "plan"}),
        )
        .await
        .expect(200, "ok");
    eventually("the agent's yes shows", WAIT, || async {
        first
            .pane(&pane)
            .await
            .filter(|p| p["settings"][0]["current"] == "plan")
    })
    .await;
    let Host {
        dir, mut process, ..
    } = first;
    process.stop(false);
    drop(process);
    // While the host is down, the agent's record of the session loses its mode: it comes back
    // in one that acts without asking.
    for entry in std::fs::read_dir(dir.path().join("sessions"))
        .expect("sessions")
        .flatten()
    {
        let text = std::fs::read_to_string(entry.path()).expect("a kept session");
        let mut kept: Value = serde_json::from_str(&text).expect("json");
        kept["mode"] = json!("yolo");
        std::fs::write(entry.path(), kept.to_string()).expect("written");
    }

    let second = host_in(dir, &agents, &["--state", &state_arg]).await;
    eventually("resumed", WAIT, || async {
        texts(&second.items(&pane).await, "notice")
            .contains(&"scripted resumed this conversation.".to_string())
            .then_some(())
    })
    .await;
    let back = second.pane(&pane).await.expect("the pane");
    assert_eq!(back["settings"][0]["current"], "plan", "{back}");
    eventually("the log says it", WAIT, || async {
        second
            .log()
            .contains("the session is back in its mode")
            .then_some(())
    })
    .await;
    // The agent itself is in it, not only the pane's word.
    second.send(&pane, "s2", "/mode").await;
    second.until_turn_ends(&pane).await;
    let replies = texts(&second.items(&pane).await, "reply");
    assert_eq!(
        replies.last().map(String::as_str),
        Some("I am in mode plan, at speed careful."),
        "{replies:?}"
    );
}

#[tokio::test]
async fn a_restart_without_load_session_keeps_the_conversation_in_history() {
    let dir = temp_dir();
    let state = dir.path().join("state");
    let state_arg = state.display().to_string();
    let agents = [("scripted", "SCRIPTED --no-load")];
    let first = host_in(dir, &agents, &["--state", &state_arg]).await;
    let pane = first.start("scripted-1").await;
    first.send(&pane, "s1", "please fail").await;
    first.until_turn_ends(&pane).await;
    let Host {
        dir, mut process, ..
    } = first;
    process.stop(false);
    drop(process);

    let second = host_in(dir, &agents, &["--state", &state_arg]).await;
    eventually("the pane closed into history", WAIT, || async {
        second.pane(&pane).await.is_none().then_some(())
    })
    .await;
    let history = second
        .client
        .get("/session/v1/conversations?limit=10")
        .await
        .expect(200, "");
    let rows = history["conversations"].as_array().expect("rows");
    assert_eq!(rows.len(), 1);
    assert!(rows[0].get("paneId").is_none_or(Value::is_null), "{rows:?}");
}

#[tokio::test]
async fn two_agents_and_two_sessions_run_at_once() {
    let dir = temp_dir();
    let second_folder = workspace(dir.path(), "second");
    let project = workspace(dir.path(), "project");
    let host = host_in(
        dir,
        &[("alpha", ""), ("beta", "")],
        &[
            "--workspace",
            arg(&project),
            "--workspace",
            arg(&second_folder),
        ],
    )
    .await;
    let snap = snapshot(&host.client).await;
    let titles: Vec<&str> = snap["starters"]
        .as_array()
        .expect("starters")
        .iter()
        .filter_map(|s| s["title"].as_str())
        .collect();
    assert_eq!(titles.len(), 4, "{titles:?}");
    assert_eq!(snap["workspaces"].as_array().map(Vec::len), Some(2));
    let a = host.start("alpha-1").await;
    let b = host.start("beta-4").await;
    host.send(&a, "sa", "/test").await;
    host.send(&b, "sb", "/test").await;
    let ask_a = host.ask(&a).await;
    let ask_b = host.ask(&b).await;
    host.answer(&b, "ab", &ask_b, "deny")
        .await
        .expect(200, "ok");
    host.answer(&a, "aa", &ask_a, "allow-once")
        .await
        .expect(200, "ok");
    host.until_turn_ends(&a).await;
    host.until_turn_ends(&b).await;
    assert!(
        texts(&host.items(&a).await, "reply")
            .iter()
            .any(|t| t.starts_with("The tests ran"))
    );
    assert!(
        texts(&host.items(&b).await, "reply")
            .contains(&"Understood: I will not run the tests.".to_string())
    );
    // One process per agent: two were started, once each (the log is written behind).
    eventually("both starts are logged", WAIT, || async {
        (host.log().matches("starting the ACP agent").count() == 2).then_some(())
    })
    .await;
    assert_eq!(host.log().matches("starting the ACP agent").count(), 2);
}

#[tokio::test]
async fn a_missing_command_and_a_sign_in_are_said_in_the_pane() {
    let host = host(
        &[
            ("ghost", "no-such-acp-agent-here --flag"),
            ("locked", "SCRIPTED --sign-in"),
        ],
        &[],
    )
    .await;
    let reply = host
        .client
        .post("/session/v1/starter/ghost-1", json!({"requestId": "g"}))
        .await
        .expect(200, "ok");
    let ghost = reply["paneId"].as_str().expect("a pane").to_string();
    host.until_state(&ghost, "failed").await;
    let notices = texts(&host.items(&ghost).await, "notice");
    assert!(notices.contains(&"ghost could not start: no-such-acp-agent-here is not on PATH. Check its command (--acp or [acp.ghost]).".to_string()), "{notices:?}");

    let reply = host
        .client
        .post("/session/v1/starter/locked-2", json!({"requestId": "l"}))
        .await
        .expect(200, "ok");
    let locked = reply["paneId"].as_str().expect("a pane").to_string();
    host.until_state(&locked, "failed").await;
    let notices = texts(&host.items(&locked).await, "notice");
    assert!(notices.contains(&"locked needs a sign-in (Log in to the scripted agent): run it once in a terminal, then send again here.".to_string()), "{notices:?}");
}

#[tokio::test]
async fn l1_what_an_agent_says_reaches_the_wire_without_escapes() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    host.send(&pane, "s1", "be hostile").await;
    host.until_turn_ends(&pane).await;
    let raw = host
        .client
        .get(&format!("{}?after=0", pane_path(&pane, "events")))
        .await;
    let bytes = raw.body.clone();
    for bad in [
        b"\x1b".as_slice(),
        b"\x07",
        "\u{9b}".as_bytes(),
        "\u{202e}".as_bytes(),
    ] {
        assert!(
            !bytes.windows(bad.len()).any(|w| w == bad),
            "{bad:?} reached the wire"
        );
    }
    let items = host.items(&pane).await;
    assert!(
        texts(&items, "reply")
            .iter()
            .any(|t| t.contains("copied") && t.contains("fdp.exe"))
    );
    // The log holds cleaned lines too.
    assert!(!host.log().contains('\u{1b}'));
}

#[tokio::test]
async fn a3_the_same_call_asked_again_changes_the_card_in_place() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    host.send(&pane, "s1", "ask twice").await;
    let first = host.ask(&pane).await;
    let changed = eventually("the card changes", WAIT, || async {
        let ask = host.ask(&pane).await;
        (ask["revision"].as_u64() > first["revision"].as_u64()).then_some(ask)
    })
    .await;
    assert_eq!(changed["id"], first["id"], "the same ask, a new revision");
    assert_eq!(
        changed["permission"]["arguments"]["command"],
        "cargo test --release"
    );
    let stale = host.answer(&pane, "old", &first, "allow-once").await;
    stale.expect(409, "stale");
    host.answer(&pane, "new", &changed, "allow-once")
        .await
        .expect(200, "ok");
    eventually("the edit's card", WAIT, || async {
        host.ask(&pane).await["id"].ne(&changed["id"]).then_some(())
    })
    .await;
    host.allow_next(&pane, "new-edit").await;
    assert_eq!(host.until_turn_ends(&pane).await["turn"]["state"], "done");
}

#[tokio::test]
async fn the_headless_commands_drive_the_host() {
    let host = host(&[("scripted", "")], &[]).await;
    let socket = host.process.socket_path();
    let run = |args: &[&str]| {
        let output = std::process::Command::new(BIN)
            .args(args)
            .args(["--socket", arg(&socket)])
            .output()
            .expect("runs");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).to_string(),
        )
    };
    let (code, out) = run(&["start", "scripted-1"]);
    assert_eq!(code, Some(0), "{out}");
    let pane = out
        .split("the new pane is ")
        .nth(1)
        .and_then(|rest| rest.strip_suffix(".\n"))
        .expect("the pane is named")
        .to_string();
    host.until_state(&pane, "idle").await;
    let (code, out) = run(&["send", &pane, "/test"]);
    assert_eq!(code, Some(0), "{out}");
    let ask = host.ask(&pane).await;
    let (code, out) = run(&["asks"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("execute: cargo test"), "{out}");
    let (code, out) = run(&["answer", ask["id"].as_str().expect("an id"), "allow-once"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("Answered: Allow once."), "{out}");
    host.until_turn_ends(&pane).await;
    let (_, out) = run(&["send", &pane, "/test"]);
    assert!(out.contains("it started turn"), "{out}");
    host.ask(&pane).await;
    let (code, out) = run(&["send", &pane, "and more"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("Queued: turn "), "{out}");
    let (code, out) = run(&["abort", &pane]);
    assert_eq!(code, Some(0), "{out}");
    let ended = host.until_turn_ends(&pane).await;
    assert_eq!(ended["turn"]["state"], "aborted");
    let notices = texts(&host.items(&pane).await, "notice");
    assert!(
        notices.contains(&"1 queued message was not sent: the turn was stopped.".to_string()),
        "{notices:?}"
    );
}

#[tokio::test]
async fn check_with_writes_passes_against_the_host() {
    let host = host(&[("scripted", "")], &[]).await;
    let socket = host.process.socket_path();
    let output = std::process::Command::new(BIN)
        .args(["check", "--socket", arg(&socket), "--allow-writes"])
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{out}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn a_session_the_agent_did_not_keep_starts_fresh_and_the_send_reaches_it() {
    let dir = temp_dir();
    let state = dir.path().join("state");
    let state_arg = state.display().to_string();
    let first = host_in(dir, &[("scripted", "")], &["--state", &state_arg]).await;
    // Opened but never prompted: like codex and claude, the agent keeps nothing of it.
    let pane = first.start("scripted-1").await;
    let Host {
        dir, mut process, ..
    } = first;
    process.stop(false);
    drop(process);

    let second = host_in(dir, &[("scripted", "")], &["--state", &state_arg]).await;
    eventually(
        "the pane says the agent did not keep its session",
        WAIT,
        || async {
            texts(&second.items(&pane).await, "notice")
                .iter()
                .any(|n| n.starts_with("scripted did not keep its earlier session"))
                .then_some(())
        },
    )
    .await;
    second.until_state(&pane, "idle").await;
    let sent = second.send(&pane, "s1", "please fail").await;
    assert!(sent["turnId"].is_string(), "{sent}");
    second.until_turn_ends(&pane).await;
    let users: Vec<String> = second
        .agent_history()
        .into_iter()
        .filter(|(who, _)| who == "user")
        .map(|(_, words)| words)
        .collect();
    assert_eq!(users, ["please fail"], "the fresh session got the prompt");
}

#[tokio::test]
async fn a_send_no_agent_can_take_is_refused_and_the_send_command_fails() {
    let dir = temp_dir();
    let state = dir.path().join("state");
    let state_arg = state.display().to_string();
    let first = host_in(dir, &[("scripted", "")], &["--state", &state_arg]).await;
    let pane = first.start("scripted-1").await;
    let Host {
        dir, mut process, ..
    } = first;
    process.stop(false);
    drop(process);

    // The next host runs another agent: the old conversation can be read, not continued.
    let second = host_in(dir, &[("other", "")], &["--state", &state_arg]).await;
    eventually("the pane closed into history", WAIT, || async {
        second.pane(&pane).await.is_none().then_some(())
    })
    .await;
    let history = second
        .client
        .get("/session/v1/conversations?limit=10")
        .await
        .expect(200, "");
    let conversation = history["conversations"][0]["id"].clone();
    let reopened = second
        .client
        .post(
            "/session/v1/reopen",
            json!({"requestId": "re-1", "conversationId": conversation}),
        )
        .await
        .expect(200, "ok");
    let pane = reopened["paneId"].as_str().expect("a pane").to_string();
    eventually("the host saw the reopen", WAIT, || async {
        texts(&second.items(&pane).await, "notice")
            .iter()
            .any(|n| n.contains("not run by this host"))
            .then_some(())
    })
    .await;
    let turn = second.pane(&pane).await.map(|p| p["turn"]["id"].clone());
    let refused = second
        .client
        .post(
            &pane_path(&pane, "send"),
            json!({"requestId": "s1", "turnId": turn.unwrap_or(Value::Null), "text": "hello"}),
        )
        .await;
    refused.expect(404, "no-such-pane");
    let socket = second.process.socket_path();
    let output = std::process::Command::new(BIN)
        .args(["send", &pane, "hello again", "--socket", arg(&socket)])
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&output.stdout);
    assert_ne!(output.status.code(), Some(0), "{out}");
    assert!(!out.contains("Sent"), "{out}");
    assert!(
        second.agent_history().is_empty(),
        "nothing reached an agent"
    );
}

#[tokio::test]
async fn each_permissions_outcome_stays_in_the_panes_history_across_a_restart() {
    let dir = temp_dir();
    let state = dir.path().join("state");
    let state_arg = state.display().to_string();
    let first = host_in(dir, &[("scripted", "")], &["--state", &state_arg]).await;
    let pane = first.start("scripted-1").await;
    first.send(&pane, "s1", "/test").await;
    let ask = first.ask(&pane).await;
    first
        .answer(&pane, "a1", &ask, "allow-once")
        .await
        .expect(200, "ok");
    first.until_turn_ends(&pane).await;
    first.send(&pane, "s2", "/test").await;
    let ask = first.ask(&pane).await;
    first
        .answer(&pane, "a2", &ask, "deny")
        .await
        .expect(200, "ok");
    first.until_turn_ends(&pane).await;
    // A third left open when the host goes down: the program decides it.
    first.send(&pane, "s3", "/test").await;
    first.ask(&pane).await;
    // What the agent itself received: it ran the tests once and refused once.
    let said: Vec<String> = first
        .agent_history()
        .into_iter()
        .filter(|(who, _)| who == "agent")
        .map(|(_, words)| words)
        .collect();
    assert_eq!(
        said,
        [
            "The tests ran: 2 passed, 1 failed (`adds`).",
            "Understood: I will not run the tests."
        ]
    );
    let Host {
        dir, mut process, ..
    } = first;
    process.stop(false);
    drop(process);

    let second = host_in(dir, &[("scripted", "")], &["--state", &state_arg]).await;
    let notices = eventually("the restart's decision is in the pane", WAIT, || async {
        let notices = texts(&second.items(&pane).await, "notice");
        notices
            .iter()
            .any(|n| n.contains("the host restarted before an answer"))
            .then_some(notices)
    })
    .await;
    let outcomes: Vec<&String> = notices
        .iter()
        .filter(|n| n.starts_with("Allowed: ") || n.starts_with("Denied: "))
        .collect();
    assert_eq!(
        outcomes,
        [
            "Allowed: execute: cargo test (answered Allow once from Collie).",
            "Denied: execute: cargo test (answered Deny from Collie).",
            "Denied: execute: cargo test (the host restarted before an answer).",
        ],
        "{notices:?}"
    );
}

/// The ACP host has no demo world: `--chaos` and `--break` play failures of that world, so
/// with `--acp` they are refused with a sentence, never taken and ignored.
#[test]
fn chaos_and_broken_rules_are_refused_with_acp() {
    let dir = common::temp_dir();
    let socket = dir.path().join("run").join("agent.sock");
    for (flag, value, says) in [
        (
            "--chaos",
            "restart-every=10s",
            "--chaos plays failures of the demo world",
        ),
        ("--break", "W4", "--break breaks rules of the demo world"),
    ] {
        let out = std::process::Command::new(BIN)
            .args(["agent", "--socket"])
            .arg(&socket)
            .args(["--acp", "x=true", flag, value])
            .env_remove("COLLIE_DURABLE_SOCKET")
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{flag} with --acp was taken");
        assert!(
            stderr.contains(says) && stderr.contains("does not apply with --acp"),
            "{stderr}"
        );
    }
}

/// What a phone reading a pane's events receives, in order: every item event as it arrived,
/// read with a cursor as the phone reads (docs/WIRE.md § 3.2), from the moment it is made.
struct Follower {
    pane: String,
    epoch: Option<String>,
    cursor: u64,
    /// (item id, kind, text) per item event, in arrival order.
    seen: Vec<(String, String, String)>,
    turn_states: Vec<String>,
}

impl Follower {
    async fn new(host: &Host, pane: &str) -> Self {
        let mut follower = Follower {
            pane: pane.to_string(),
            epoch: None,
            cursor: 0,
            seen: Vec::new(),
            turn_states: Vec::new(),
        };
        follower.read(host).await;
        follower.seen.clear();
        follower
    }

    async fn read(&mut self, host: &Host) {
        loop {
            let mut path = format!("{}?after={}", pane_path(&self.pane, "events"), self.cursor);
            if let Some(epoch) = &self.epoch {
                path.push_str(&format!("&epoch={epoch}"));
            }
            let reply = host.client.get(&path).await.expect(200, "");
            self.epoch = reply["epoch"].as_str().map(str::to_string);
            self.cursor = reply["cursor"].as_u64().unwrap_or(self.cursor);
            for event in reply["events"].as_array().into_iter().flatten() {
                match event["type"].as_str() {
                    Some("item") => {
                        let item = &event["item"];
                        self.seen.push((
                            item["id"].as_str().unwrap_or_default().to_string(),
                            item["kind"].as_str().unwrap_or_default().to_string(),
                            item["text"].as_str().unwrap_or_default().to_string(),
                        ));
                    }
                    Some("turn") => self
                        .turn_states
                        .push(event["turn"]["state"].as_str().unwrap_or_default().into()),
                    _ => {}
                }
            }
            if reply["more"] != true {
                return;
            }
        }
    }

    /// Reads on until the notices received satisfy `done`.
    async fn until(&mut self, host: &Host, what: &str, done: impl Fn(&Self) -> bool) {
        let start = std::time::Instant::now();
        while !done(self) {
            assert!(start.elapsed() < WAIT, "never saw {what}: {:?}", self.seen);
            tokio::time::sleep(Duration::from_millis(5)).await;
            self.read(host).await;
        }
    }

    /// The tool notices received: each as (item id, text), in arrival order.
    fn tool_notices(&self) -> Vec<(String, String)> {
        self.seen
            .iter()
            .filter(|(_, kind, text)| kind == "notice" && text.starts_with("Tool "))
            .map(|(id, _, text)| (id.clone(), text.clone()))
            .collect()
    }

    fn notices(&self) -> Vec<String> {
        self.seen
            .iter()
            .filter(|(_, kind, _)| kind == "notice")
            .map(|(_, _, text)| text.clone())
            .collect()
    }

    /// The one tool notice's texts in arrival order; fails when more than one id was sent.
    fn one_tool_notice(&self) -> Vec<String> {
        let notices = self.tool_notices();
        let ids: std::collections::BTreeSet<&str> =
            notices.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids.len(), 1, "one notice per tool call: {notices:?}");
        notices.into_iter().map(|(_, text)| text).collect()
    }
}

/// `texts` is in arrival order and each of them is one of `allowed`, in that order (a reader
/// may miss a version in between: the agent keeps an item's first and newest events only).
fn in_order(texts: &[String], allowed: &[&str]) {
    let mut at = 0;
    for text in texts {
        let Some(found) = allowed[at..].iter().position(|a| a == text) else {
            panic!("{text:?} out of order or unexpected in {texts:?}");
        };
        at += found;
    }
}

#[tokio::test]
async fn a_tool_call_sent_twice_under_one_id_is_one_notice_that_ends_done() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    let mut phone = Follower::new(&host, &pane).await;
    host.send(&pane, "s1", "/tool").await;
    host.allow_next(&pane, "a1").await;
    phone
        .until(&host, "the call done", |f| {
            f.tool_notices()
                .last()
                .is_some_and(|(_, t)| t.ends_with("(done)"))
        })
        .await;
    host.until_turn_ends(&pane).await;
    phone.read(&host).await;
    let texts = phone.one_tool_notice();
    in_order(
        &texts,
        &[
            "Tool execute: Terminal (waiting)",
            "Tool execute: `cargo test` (waiting)",
            "Tool execute: `cargo test` (running)",
            "Tool execute: `cargo test` (done)",
        ],
    );
    assert_eq!(phone.turn_states, ["running", "done"]);
    // The whole view holds the one notice too, and nothing of it stayed waiting.
    let notices = texts_starting(&host.items(&pane).await, "Tool ");
    assert_eq!(notices, ["Tool execute: `cargo test` (done)"]);
}

fn texts_starting(items: &[Value], prefix: &str) -> Vec<String> {
    texts(items, "notice")
        .into_iter()
        .filter(|t| t.starts_with(prefix))
        .collect()
}

#[tokio::test]
async fn a_call_still_running_when_the_turn_ends_is_settled_in_place() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    let mut phone = Follower::new(&host, &pane).await;
    host.send(&pane, "s1", "/tool-open").await;
    host.allow_next(&pane, "a1").await;
    let settled = "Tool execute: `cargo test` (not finished: the turn ended first)";
    phone
        .until(&host, "the call settled", |f| {
            f.tool_notices().last().is_some_and(|(_, t)| t == settled)
        })
        .await;
    let texts = phone.one_tool_notice();
    in_order(
        &texts,
        &[
            "Tool execute: Terminal (waiting)",
            "Tool execute: `cargo test` (waiting)",
            "Tool execute: `cargo test` (running)",
            settled,
        ],
    );
    let ended = host.until_turn_ends(&pane).await;
    assert_eq!(ended["turn"]["state"], "done");
    assert_eq!(
        texts_starting(&host.items(&pane).await, "Tool "),
        [settled],
        "nothing stays running after its turn"
    );
}

#[tokio::test]
async fn a_stopped_turn_settles_its_calls_and_says_it_was_stopped() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    let mut phone = Follower::new(&host, &pane).await;
    let sent = host.send(&pane, "s1", "/tool-hold").await;
    host.allow_next(&pane, "a1").await;
    phone
        .until(&host, "the call running", |f| {
            f.tool_notices()
                .last()
                .is_some_and(|(_, t)| t.ends_with("(running)"))
        })
        .await;
    host.client
        .post(
            &pane_path(&pane, "abort"),
            json!({"requestId": "ab1", "turnId": sent["turnId"]}),
        )
        .await
        .expect(200, "ok");
    let stopped = "Stopped: scripted ended this turn when asked.";
    phone
        .until(&host, "the stop said", |f| {
            f.notices().iter().any(|t| t == stopped)
        })
        .await;
    let texts = phone.one_tool_notice();
    assert_eq!(
        texts.last().map(String::as_str),
        Some("Tool execute: `cargo test` (not finished: the turn was stopped)")
    );
    assert_eq!(phone.turn_states, ["running", "aborted"]);
    // The call was settled before the pane said the turn stopped.
    let notices = phone.notices();
    let settled_at = notices
        .iter()
        .position(|t| t.ends_with("(not finished: the turn was stopped)"))
        .expect("settled");
    let said_at = notices.iter().position(|t| t == stopped).expect("said");
    assert!(settled_at < said_at, "{notices:?}");
    let shown = texts_starting(&host.items(&pane).await, "Tool ");
    assert_eq!(
        shown,
        ["Tool execute: `cargo test` (not finished: the turn was stopped)"]
    );
}

#[tokio::test]
async fn a_turn_the_agent_cancels_itself_says_so_and_settles_its_calls() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    let mut phone = Follower::new(&host, &pane).await;
    host.send(&pane, "s1", "/cancel-self").await;
    let said = "scripted cancelled this turn itself, without finishing it. Send a message to tell it what to do next.";
    phone
        .until(&host, "the cancel said", |f| {
            f.notices().iter().any(|t| t == said)
        })
        .await;
    let texts = phone.one_tool_notice();
    assert_eq!(
        texts.last().map(String::as_str),
        Some("Tool execute: `cargo test` (not finished: scripted cancelled the turn)")
    );
    let ended = host.until_turn_ends(&pane).await;
    assert_eq!(ended["turn"]["state"], "aborted");
    assert!(
        !phone.notices().iter().any(|t| t.starts_with("Stopped:")),
        "not said as a stop from here"
    );
    // And the next send works.
    host.send(&pane, "s2", "/tool").await;
    host.allow_next(&pane, "a2").await;
    host.until_turn_ends(&pane).await;
}

#[tokio::test]
async fn claude_code_acps_tool_use_replayed_is_one_notice_that_ends_done() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    let mut phone = Follower::new(&host, &pane).await;
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/acp/claude-code-acp-tool-use.jsonl");
    host.send(&pane, "s1", &format!("/replay {}", fixture.display()))
        .await;
    host.until_turn_ends(&pane).await;
    phone
        .until(&host, "the call done", |f| {
            f.tool_notices()
                .last()
                .is_some_and(|(_, t)| t.ends_with("(done)"))
        })
        .await;
    let received = phone.one_tool_notice();
    in_order(
        &received,
        &[
            "Tool execute: Terminal (waiting)",
            "Tool execute: `cargo test` (waiting)",
            "Tool execute: `cargo test` (running)",
            "Tool execute: `cargo test` (done)",
        ],
    );
    let items = host.items(&pane).await;
    assert_eq!(
        texts_starting(&items, "Tool "),
        ["Tool execute: `cargo test` (done)"]
    );
    assert!(
        texts(&items, "code").iter().any(|t| t.contains("3 passed")),
        "its output shown"
    );
}

/// Modes, options and commands reach the pane's snapshot, and a switch reaches the agent: its
/// own history says what it received, and what it says next is in the new mode. A switch the
/// agent refuses leaves the old value and the pane says why (docs/ACP.md).
#[tokio::test]
async fn a_sessions_modes_options_and_commands_show_and_a_switch_reaches_the_agent() {
    let host = host(&[("scripted", "")], &[]).await;
    let snap = snapshot(&host.client).await;
    let starter = snap["starters"][0]["id"]
        .as_str()
        .expect("a starter")
        .to_string();
    let pane = host.start(&starter).await;
    let shown = eventually("the commands", WAIT, || async {
        host.pane(&pane)
            .await
            .filter(|p| p["commands"].as_array().is_some_and(|c| c.len() == 9))
    })
    .await;
    let settings = shown["settings"].as_array().expect("settings");
    let ids: Vec<&str> = settings.iter().filter_map(|s| s["id"].as_str()).collect();
    assert_eq!(
        ids,
        ["mode", "speed", "compact"],
        "a boolean option is offered since the host takes them"
    );
    assert_eq!(settings[0]["current"], "ask");
    let unattended: Vec<&str> = settings[0]["choices"]
        .as_array()
        .expect("choices")
        .iter()
        .filter(|c| c["actsWithoutAsking"] == true)
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(
        unattended,
        ["yolo"],
        "the host's table says which, not the agent"
    );
    assert_eq!(settings[1]["current"], "careful");
    assert_eq!(
        shown["belt"].as_array().map(Vec::len),
        Some(4),
        "the belt keeps four"
    );
    let explain = shown["commands"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "explain").cloned())
        .expect("every command, past the belt's four");
    assert_eq!(explain["hint"], "the file to explain");

    host.send(&pane, "s1", "/mode").await;
    host.until_turn_ends(&pane).await;
    let choose = |id: &str, setting: &str, value: &str| {
        let body = json!({"requestId": id, "settingId": setting, "value": value});
        let path = pane_path(&pane, "setting");
        let client = &host.client;
        async move { client.post(&path, body).await }
    };
    choose("m1", "mode", "plan").await.expect(200, "ok");
    eventually("the agent's yes shows", WAIT, || async {
        host.pane(&pane)
            .await
            .filter(|p| p["settings"][0]["current"] == "plan")
    })
    .await;
    assert!(
        host.agent_history().contains(&(
            "setting".to_string(),
            "mode=plan,speed=careful,compact=on".to_string()
        )),
        "the agent received the switch: {:?}",
        host.agent_history()
    );
    // The same request id again is the first reply again, and runs nothing (SPEC Q3).
    let again = choose("m1", "mode", "plan").await.expect(200, "ok");
    assert_eq!(again["replayed"], true);
    host.send(&pane, "s2", "/mode").await;
    host.until_turn_ends(&pane).await;
    let switches = host
        .agent_history()
        .iter()
        .filter(|(who, _)| who == "setting")
        .count();
    assert_eq!(switches, 1, "the repeat reached no agent");
    let items = host.items(&pane).await;
    assert!(
        texts(&items, "reply").contains(&"I am in mode plan, at speed careful.".to_string()),
        "{:?}",
        texts(&items, "reply")
    );
    assert!(texts(&items, "notice").contains(&"Mode: scripted switched to Plan only.".to_string()));

    choose("o1", "speed", "refused").await.expect(200, "ok");
    let refused = eventually("the refusal is said", WAIT, || async {
        let items = host.items(&pane).await;
        texts(&items, "notice")
            .into_iter()
            .find(|n| n.contains("did not switch Speed"))
    })
    .await;
    assert!(
        refused.starts_with(
            "scripted did not switch Speed to Refused (it says no): the scripted agent refuses"
        ) && refused.ends_with("Speed stays Careful."),
        "{refused}"
    );
    let after = host.pane(&pane).await.expect("the pane");
    assert_eq!(
        after["settings"][1]["current"], "careful",
        "the old value stays"
    );

    choose("x1", "colour", "blue")
        .await
        .expect(404, "no-such-setting");
    choose("x2", "mode", "turbo")
        .await
        .expect(400, "bad-request");
    choose("o2", "speed", "quick").await.expect(200, "ok");
    eventually("the option follows the agent's answer", WAIT, || async {
        host.pane(&pane)
            .await
            .filter(|p| p["settings"][1]["current"] == "quick")
    })
    .await;

    // A boolean option is a setting of two choices, On and Off, and the switch reaches the
    // agent as a boolean (`{"type": "boolean", "value": false}`), not as a value id.
    let compact = &shown["settings"][2];
    assert_eq!(compact["name"], "Compact by itself");
    assert_eq!(compact["current"], "true");
    let choices: Vec<(&str, &str)> = compact["choices"]
        .as_array()
        .expect("choices")
        .iter()
        .filter_map(|c| Some((c["id"].as_str()?, c["name"].as_str()?)))
        .collect();
    assert_eq!(choices, [("true", "On"), ("false", "Off")]);
    choose("b1", "compact", "false").await.expect(200, "ok");
    eventually("the switch follows the agent's answer", WAIT, || async {
        host.pane(&pane)
            .await
            .filter(|p| p["settings"][2]["current"] == "false")
    })
    .await;
    assert!(
        host.agent_history().contains(&(
            "setting".to_string(),
            "mode=plan,speed=quick,compact=off".to_string()
        )),
        "the agent received a boolean: {:?}",
        host.agent_history()
    );
    choose("b2", "compact", "maybe")
        .await
        .expect(400, "bad-request");
}

#[tokio::test]
async fn a10_claude_code_acps_ask_without_a_kind_takes_it_from_the_tool_call_before_it() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/acp/claude-code-acp-0.16.2-permissions.jsonl");
    let sent = host
        .send(&pane, "s1", &format!("/replay {}", fixture.display()))
        .await;
    // The fixture's first ask is Bash's: its request names no kind, its `tool_call` did.
    let bash = host.ask(&pane).await;
    assert_eq!(bash["title"], "execute: touch proof.txt");
    assert_eq!(bash["permission"]["tool"], "execute");
    assert_eq!(
        bash["permission"]["arguments"]["command"],
        "touch proof.txt"
    );
    assert_eq!(
        bash["permission"]["arguments"]["title"], "`touch proof.txt`",
        "the agent's title is data, not the card's title (SPEC A10)"
    );
    host.answer(&pane, "a1", &bash, "allow-once")
        .await
        .expect(200, "ok");
    // The next, Write's, is an edit of its file.
    let write = eventually("the Write ask", WAIT, || async {
        Some(host.ask(&pane).await).filter(|ask| ask["id"] != bash["id"])
    })
    .await;
    assert_eq!(write["title"], "edit: /home/me/app/notes.md");
    host.client
        .post(
            &pane_path(&pane, "abort"),
            json!({"requestId": "stop", "turnId": sent["turnId"]}),
        )
        .await
        .expect(200, "ok");
    assert_eq!(
        host.until_turn_ends(&pane).await["turn"]["state"],
        "aborted"
    );
}

#[tokio::test]
async fn a10_the_captured_claude_write_ask_reads_as_an_edit_of_its_file() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    let capture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/acp/real/claude-code-acp-0.16.2-write.jsonl");
    host.send(&pane, "s1", &format!("/replay {}", capture.display()))
        .await;
    // Its request has no kind; the second of its two `tool_call`s said `edit`.
    let ask = host.ask(&pane).await;
    assert_eq!(ask["title"], "edit: /tmp/disc/claude/ws/notes.md");
    assert_eq!(ask["permission"]["tool"], "edit");
    assert_eq!(
        ask["permission"]["arguments"]["content"],
        "# Notes\nfirst line\n"
    );
    host.answer(&pane, "a1", &ask, "allow-once")
        .await
        .expect(200, "ok");
    assert_eq!(host.until_turn_ends(&pane).await["turn"]["state"], "done");
    let items = host.items(&pane).await;
    assert!(
        texts(&items, "notice").contains(
            &"Allowed: edit: /tmp/disc/claude/ws/notes.md (answered Allow once from Collie)."
                .to_string()
        ),
        "{:?}",
        texts(&items, "notice")
    );
}

/// A session the agent kept from before (its own CLI, say), as the scripted agent keeps one.
fn kept_session(dir: &Path, id: &str, first_words: &str) {
    let project = workspace(dir, "project").canonicalize().expect("the path");
    let kept = json!({
        "cwd": project,
        "history": [["user", first_words], ["agent", "Fixed it: the token was read twice."]],
        "reads": 0,
    });
    std::fs::write(
        dir.join("sessions").join(format!("{id}.json")),
        kept.to_string(),
    )
    .expect("a kept session");
}

/// The conversations of History whose title holds `words`.
async fn listed(host: &Host, words: &str) -> Vec<Value> {
    let history = host
        .client
        .get("/session/v1/conversations?limit=50")
        .await
        .expect(200, "");
    history["conversations"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|c| c["title"].as_str().is_some_and(|t| t.contains(words)))
        .collect()
}

async fn reopen(host: &Host, conversation: &Value) -> String {
    let reopened = host
        .client
        .post(
            "/session/v1/reopen",
            json!({"requestId": "re-1", "conversationId": conversation}),
        )
        .await
        .expect(200, "ok");
    reopened["paneId"].as_str().expect("a pane").to_string()
}

#[tokio::test]
async fn the_agents_own_sessions_are_conversations_in_history_and_reopen_resumed() {
    let dir = temp_dir();
    std::fs::create_dir_all(dir.path().join("sessions")).expect("sessions");
    kept_session(dir.path(), "from-its-cli", "Fix the login bug");
    let host = host_in(dir, &[("scripted", "")], &[]).await;
    // The agent's process starts with a first pane; its session/list fills History.
    let first = host.start("scripted-1").await;
    let found = eventually("the kept session is in History", WAIT, || async {
        listed(&host, "Fix the login bug").await.into_iter().next()
    })
    .await;
    assert_eq!(found["title"], "scripted: Fix the login bug");
    assert!(found.get("paneId").is_none_or(Value::is_null), "{found}");
    let pane = reopen(&host, &found["id"]).await;
    eventually("resumed", WAIT, || async {
        texts(&host.items(&pane).await, "notice")
            .contains(&"scripted resumed this conversation.".to_string())
            .then_some(())
    })
    .await;
    // The agent's stderr is read on a task of its own: its line may reach the log just after
    // the answer that made the notice.
    eventually("the agent's own word that it resumed", WAIT, || async {
        host.log()
            .contains("stderr: scripted agent: resumed session from-its-cli")
            .then_some(())
    })
    .await;
    // The resumed session takes a prompt, and the agent holds it under its own id.
    host.send(&pane, "s1", "/test").await;
    let ask = host.ask(&pane).await;
    host.answer(&pane, "a1", &ask, "allow-once")
        .await
        .expect(200, "ok");
    assert_eq!(host.until_turn_ends(&pane).await["turn"]["state"], "done");
    let kept = std::fs::read_to_string(host.dir.path().join("sessions/from-its-cli.json"))
        .expect("the agent kept it");
    assert!(
        kept.contains("Fix the login bug") && kept.contains("/test"),
        "{kept}"
    );
    // A listing again adds nothing twice.
    assert_eq!(listed(&host, "Fix the login bug").await.len(), 1);

    // Closing a pane closes its session on the agent's side.
    host.client
        .post(
            "/session/v1/close",
            json!({"requestId": "c1", "kind": "pane", "id": first}),
        )
        .await
        .expect(200, "ok");
    eventually("session/close reached the agent", WAIT, || async {
        host.log()
            .contains("stderr: scripted agent: closed session scripted-")
            .then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_listed_session_without_resume_is_loaded_and_its_replay_is_the_panes_history_once() {
    let dir = temp_dir();
    std::fs::create_dir_all(dir.path().join("sessions")).expect("sessions");
    kept_session(dir.path(), "from-its-cli", "Fix the login bug");
    let host = host_in(dir, &[("scripted", "SCRIPTED --no-resume")], &[]).await;
    host.start("scripted-1").await;
    let found = eventually("the kept session is in History", WAIT, || async {
        listed(&host, "Fix the login bug").await.into_iter().next()
    })
    .await;
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
}

/// Our scripted agent keeps its modes' word (docs/ACP.md, "Without an account"): in "Ask first"
/// every command and edit asks, an edit's card carrying its diff; a "deny always" stands for
/// that kind of tool for the rest of the session; in "Act without asking" nothing asks. Judged
/// by what the agent itself kept of what it did.
#[tokio::test]
async fn the_scripted_agents_modes_decide_what_asks_and_an_always_answer_is_kept() {
    let host = host(&[("scripted", "")], &[]).await;
    let pane = host.start("scripted-1").await;
    let done = |host: &Host| -> Vec<String> {
        host.agent_history()
            .into_iter()
            .filter(|(who, _)| who == "done")
            .map(|(_, what)| what)
            .collect()
    };
    // Ask first: the one command of /tool asks, and "deny always" runs nothing.
    host.send(&pane, "s1", "/tool").await;
    let ask = host.ask(&pane).await;
    assert_eq!(ask["title"], "execute: cargo test");
    host.answer(&pane, "a1", &ask, "deny-always")
        .await
        .expect(200, "ok");
    host.until_turn_ends(&pane).await;
    // The next command is not asked again: the Deny always stands.
    host.send(&pane, "s2", "/test").await;
    let ended = host.until_turn_ends(&pane).await;
    assert_eq!(ended["turn"]["state"], "done");
    assert!(ended["asks"].as_array().is_some_and(Vec::is_empty));
    assert!(done(&host).is_empty(), "nothing ran: {:?}", done(&host));
    // A whole turn: the tests are not asked, the edit is, with its diff on the card.
    host.send(&pane, "s3", "Check the project").await;
    let ask = host.ask(&pane).await;
    assert!(
        ask["title"]
            .as_str()
            .is_some_and(|t| t.starts_with("edit: ") && t.contains("src/lib.rs")),
        "{ask}"
    );
    let diffs = &ask["permission"]["arguments"]["diffs"][0];
    assert_eq!(diffs["path"], "src/lib.rs", "{ask}");
    assert!(
        diffs["newText"]
            .as_str()
            .is_some_and(|t| t.contains("a + b"))
    );
    assert!(
        diffs["oldText"]
            .as_str()
            .is_some_and(|t| t.contains("a - b"))
    );
    host.answer(&pane, "a2", &ask, "allow-once")
        .await
        .expect(200, "ok");
    host.until_turn_ends(&pane).await;
    assert_eq!(done(&host), ["edited src/lib.rs"]);
    // Act without asking: nothing asks, and the command runs.
    host.client
        .post(
            &pane_path(&pane, "setting"),
            json!({"requestId": "m1", "settingId": "mode", "value": "yolo"}),
        )
        .await
        .expect(200, "ok");
    eventually("the agent's yes shows", WAIT, || async {
        host.pane(&pane)
            .await
            .filter(|p| p["settings"][0]["current"] == "yolo")
    })
    .await;
    host.send(&pane, "s4", "/test").await;
    let ended = host.until_turn_ends(&pane).await;
    assert_eq!(ended["turn"]["state"], "done");
    assert_eq!(done(&host), ["edited src/lib.rs", "ran cargo test"]);
}
