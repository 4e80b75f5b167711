//! An ACP agent's questions (`elicitation/create`) through the host to the wire and back,
//! judged on what the scripted agent received: its sessions folder keeps each reply as
//! `("elicitation", "{…}")` (docs/ACP.md, "Questions the agent asks"); and what it says of its
//! session besides the chat (`usage_update`, `session_info_update`) on the pane.

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(20);

struct Host {
    dir: tempfile::TempDir,
    process: AgentProcess,
    client: Client,
}

async fn host() -> Host {
    let dir = temp_dir();
    let sessions = dir.path().join("sessions");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&sessions).expect("a sessions folder");
    std::fs::create_dir_all(&project).expect("a project folder");
    let spec = format!(
        "scripted={BIN} acp-scripted-agent --pace 2 --sessions {}",
        sessions.display()
    );
    let socket = dir.path().join("run").join("agent.sock");
    let config = dir.path().join("none.toml");
    let args = [
        "agent",
        "--socket",
        socket.to_str().expect("utf-8"),
        "--config",
        config.to_str().expect("utf-8"),
        "--acp",
        &spec,
        "--workspace",
        project.to_str().expect("utf-8"),
    ];
    let process = AgentProcess::start(&args);
    let client = process.client();
    wait_ready(&client).await;
    Host {
        dir,
        process,
        client,
    }
}

impl Host {
    /// The replies the scripted agent got to its elicitations, as JSON.
    fn received(&self) -> Vec<Value> {
        self.history("elicitation")
    }

    /// What the scripted agent kept in its sessions' history under `what`, as JSON where it is.
    fn history(&self, what: &str) -> Vec<Value> {
        let mut all = Vec::new();
        let folder = self.dir.path().join("sessions");
        for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            let saved: Value = serde_json::from_str(&text).unwrap_or_default();
            for pair in saved["history"].as_array().into_iter().flatten() {
                if pair[0] == what {
                    let got = pair[1].as_str().unwrap_or_default();
                    all.push(serde_json::from_str(got).unwrap_or(Value::String(got.into())));
                }
            }
        }
        all
    }

    async fn until_received(&self) -> Value {
        eventually("the agent got its reply", WAIT, || async {
            self.received().first().cloned()
        })
        .await
    }

    async fn pane_with(&self, text: &str) -> (String, Value) {
        let pane = common::panes::start(&self.client, "scripted-1").await;
        eventually("the pane is idle", WAIT, || async {
            common::panes::find(&self.client, &pane)
                .await
                .filter(|p| p["state"] == "idle")
        })
        .await;
        common::panes::send(&self.client, &pane, "s1", text).await;
        let ask = eventually("the question is a card", WAIT, || async {
            common::panes::find(&self.client, &pane)
                .await
                .and_then(|p| p["asks"].as_array().and_then(|a| a.first().cloned()))
        })
        .await;
        (pane, ask)
    }

    async fn answer(&self, pane: &str, ask: &Value, answer: Value) -> Reply {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = format!(
            "a-{}",
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        self.client
            .post(
                &pane_path(pane, "answer"),
                json!({"requestId": id, "askId": ask["id"], "revision": ask["revision"],
                       "answer": answer}),
            )
            .await
    }

    async fn notices(&self, pane: &str) -> Vec<String> {
        common::panes::items(&self.client, pane)
            .await
            .iter()
            .filter(|i| i["kind"] == "notice")
            .map(|i| i["text"].as_str().unwrap_or_default().to_string())
            .collect()
    }
}

#[tokio::test]
async fn a_form_elicitation_is_a_form_card_and_its_values_reach_the_agent_typed() {
    let host = host().await;
    let (pane, ask) = host.pane_with("/ask").await;
    assert_eq!(ask["kind"], "form");
    assert_eq!(
        ask["title"],
        "AskUserQuestion: How should the payments service go out? 怎么发布？"
    );
    let fields = ask["form"]["fields"].as_array().expect("fields");
    let replicas = fields
        .iter()
        .find(|f| f["id"] == "replicas")
        .expect("replicas");
    assert_eq!(replicas["integer"], true);
    assert_eq!(replicas["min"], 1.0);
    assert_eq!(replicas["description"], "How many copies run at once");
    let regions = fields
        .iter()
        .find(|f| f["id"] == "regions")
        .expect("regions");
    assert_eq!(regions["multiple"], true);
    assert_eq!(regions["options"][2]["label"], "亚太 Asia-Pacific");
    assert_eq!(ask["form"]["options"][0]["id"], "decline");
    // A value the field does not take is refused, and the card stays open (SPEC A15).
    let refused = host
        .answer(
            &pane,
            &ask,
            json!({"values": {"replicas": 2.5, "environment": "o1"}}),
        )
        .await;
    assert_eq!(
        refused.expect(400, "bad-answer")["message"],
        "field replicas needs a whole number"
    );
    host.answer(
        &pane,
        &ask,
        json!({"values": {"replicas": 3, "environment": "o2", "dry_run": false,
                          "regions": ["o1", "o3"], "contact": "ops@example.org"}}),
    )
    .await
    .expect(200, "ok");
    let got = host.until_received().await;
    assert_eq!(
        got,
        json!({"action": "accept", "content": {"replicas": 3, "environment": "production",
            "dry_run": false, "regions": ["eu", "ap"], "contact": "ops@example.org"}}),
        "an integer arrives as a JSON number, a boolean as a boolean, picks as the agent's values"
    );
}

#[tokio::test]
async fn a_declined_card_arrives_as_decline() {
    let host = host().await;
    let (pane, ask) = host.pane_with("/pick").await;
    assert_eq!(
        ask["kind"], "choice",
        "one single-select field is a choice card"
    );
    let labels: Vec<&str> = ask["choice"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|o| o["label"].as_str())
        .collect();
    assert_eq!(
        labels,
        [
            "一次性切换 — One window, fast",
            "双写过渡 🔁",
            "按租户灰度",
            "Decline"
        ]
    );
    host.answer(&pane, &ask, json!({"optionId": "decline"}))
        .await
        .expect(200, "ok");
    assert_eq!(host.until_received().await, json!({"action": "decline"}));
}

#[tokio::test]
async fn a_stopped_turn_cancels_an_open_elicitation() {
    let host = host().await;
    let (pane, ask) = host.pane_with("/ask").await;
    let turn = common::panes::find(&host.client, &pane)
        .await
        .expect("the pane")["turn"]["id"]
        .clone();
    host.client
        .post(
            &pane_path(&pane, "abort"),
            json!({"requestId": "ab1", "turnId": turn}),
        )
        .await
        .expect(200, "ok");
    assert_eq!(host.until_received().await, json!({"action": "cancel"}));
    let late = host
        .answer(&pane, &ask, json!({"optionId": "decline"}))
        .await;
    late.expect(409, "decided");
    let notices = host.notices(&pane).await;
    assert!(
        notices
            .iter()
            .any(|n| n.starts_with("Cancelled: AskUserQuestion:")
                && n.ends_with("(the turn was stopped).")),
        "{notices:?}"
    );
}

/// `$/cancel_request` goes from the side that sent a request (docs/ACP.md, "Every ACP v1
/// method"): the agent takes its permission request back, the card closes as decided, a late
/// tap gets `409 decided`, and the agent gets its reply, the error `-32800` (Cancelled).
#[tokio::test]
async fn a_permission_the_agent_takes_back_withdraws_its_card() {
    let host = host().await;
    let (pane, ask) = host.pane_with("/withdraw").await;
    assert_eq!(ask["kind"], "permission");
    let got = eventually("the agent got its reply", WAIT, || async {
        host.history("permission").first().cloned()
    })
    .await;
    assert!(
        got.as_str().is_some_and(|g| g.starts_with("error -32800")),
        "{got}"
    );
    let open = common::panes::find(&host.client, &pane)
        .await
        .expect("the pane")["asks"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(open, 0, "the card is withdrawn");
    host.answer(&pane, &ask, json!({"optionId": "allow"}))
        .await
        .expect(409, "decided");
    let notices = host.notices(&pane).await;
    assert!(
        notices.iter().any(
            |n| n.starts_with("Denied: ") && n.ends_with("(the agent took the question back).")
        ),
        "{notices:?}"
    );
}

#[tokio::test]
async fn a_url_elicitation_carries_its_link_and_completes() {
    let host = host().await;
    let (pane, ask) = host.pane_with("/link").await;
    assert_eq!(ask["kind"], "choice");
    assert_eq!(
        ask["choice"]["url"],
        "https://example.org/authorize?client=collie&state=42"
    );
    host.answer(&pane, &ask, json!({"optionId": "done"}))
        .await
        .expect(200, "ok");
    assert_eq!(host.until_received().await, json!({"action": "accept"}));

    let host = self::host().await;
    let (pane, _ask) = host.pane_with("/link-done").await;
    // `elicitation/complete` closes the card: the agent did it out of band.
    assert_eq!(host.until_received().await, json!({"action": "accept"}));
    eventually("the card closed", WAIT, || async {
        common::panes::find(&host.client, &pane)
            .await
            .filter(|p| p["asks"].as_array().is_some_and(Vec::is_empty))
    })
    .await;
}

#[tokio::test]
async fn past_the_cards_limits_it_is_declined_with_a_notice() {
    let host = host().await;
    let pane = common::panes::start(&host.client, "scripted-1").await;
    eventually("the pane is idle", WAIT, || async {
        common::panes::find(&host.client, &pane)
            .await
            .filter(|p| p["state"] == "idle")
    })
    .await;
    common::panes::send(&host.client, &pane, "s1", "/ask-wide").await;
    assert_eq!(host.until_received().await, json!({"action": "decline"}));
    let notices = host.notices(&pane).await;
    assert!(notices.contains(&"scripted asked a question the phone cannot show, so it was declined: its question “size” has 9 options, and a card holds 8 at most.".to_string()), "{notices:?}");
}

#[tokio::test]
async fn asks_json_lists_the_question_and_answer_field_answers_it_typed() {
    let host = host().await;
    let (_pane, ask) = host.pane_with("/ask").await;
    let socket = host.process.socket_path();
    let run = |args: &[&str]| {
        let output = std::process::Command::new(BIN)
            .args(args)
            .args(["--socket", socket.to_str().expect("utf-8")])
            .output()
            .expect("runs");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).to_string(),
        )
    };
    let (code, out) = run(&["asks", "--json"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("\"integer\":true") && out.contains("亚太 Asia-Pacific"),
        "{out}"
    );
    let id = ask["id"].as_str().expect("an id");
    let (code, out) = run(&["answer", id, "--field", "replicas=4.5"]);
    assert_ne!(
        code,
        Some(0),
        "a fraction is refused before it is sent: {out}"
    );
    let (code, out) = run(&[
        "answer",
        id,
        "--field",
        "replicas=4",
        "--field",
        "regions=o2,3",
        "--field",
        "dry_run=no",
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        host.until_received().await,
        json!({"action": "accept", "content": {"replicas": 4, "environment": "staging",
            "dry_run": false, "regions": ["us", "ap"]}})
    );
}

#[tokio::test]
async fn answer_decline_declines_a_form_from_the_command_line() {
    let host = host().await;
    let (_pane, ask) = host.pane_with("/ask").await;
    let socket = host.process.socket_path();
    let output = std::process::Command::new(BIN)
        .args(["answer", ask["id"].as_str().expect("an id"), "decline"])
        .args(["--socket", socket.to_str().expect("utf-8")])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(host.until_received().await, json!({"action": "decline"}));
}

#[tokio::test]
async fn usage_and_the_sessions_title_reach_the_pane() {
    let host = host().await;
    let pane = common::panes::start(&host.client, "scripted-1").await;
    eventually("the pane is idle", WAIT, || async {
        common::panes::find(&host.client, &pane)
            .await
            .filter(|p| p["state"] == "idle")
    })
    .await;
    common::panes::send(&host.client, &pane, "s1", "/mode").await;
    let shown = eventually("the usage and the title", WAIT, || async {
        common::panes::find(&host.client, &pane)
            .await
            .filter(|p| p["usage"].is_object() && p["title"] == "Task: /mode")
    })
    .await;
    assert_eq!(shown["usage"]["size"], 200_000);
    assert!(shown["usage"]["used"].as_u64().is_some_and(|u| u > 12_000));
    assert_eq!(shown["usage"]["cost"]["currency"], "USD");
}
