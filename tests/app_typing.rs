//! A person's words reach the agent exactly as meant (issue 10; SPEC Q1–Q5, A16, L): the real
//! phone on a TestBackend against the real reference agent, keys pressed as fast as a person
//! can (each key alone, no pause after it) and pastes with and without bracketed-paste markers.
//! Every test reads what the agent received (its pane's user items, through the wire) and the
//! phone's journal, not only the screen.

mod common;

use std::time::Duration;

use collie_phone::transport::Endpoint;
use common::phone::TestPhone;
use common::{Client, eventually, pane_path, panes, snapshot};
use serde_json::Value;

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;

struct Phone {
    phone: TestPhone,
    client: Client,
    dir: tempfile::TempDir,
    _agent: common::AgentProcess,
}

impl std::ops::Deref for Phone {
    type Target = TestPhone;
    fn deref(&self) -> &TestPhone {
        &self.phone
    }
}

impl std::ops::DerefMut for Phone {
    fn deref_mut(&mut self) -> &mut TestPhone {
        &mut self.phone
    }
}

impl Phone {
    /// The phone on a fresh frozen demo agent, in the pane titled `title`, typing.
    async fn in_pane(title: &str) -> Self {
        let dir = common::temp_dir();
        let agent = common::socket_agent(dir.path(), &[]);
        let client = agent.client();
        let endpoint = Endpoint::socket(agent.socket_path());
        let phone = TestPhone::start("demo", endpoint, false, dir.path(), (WIDTH, HEIGHT), |_| {});
        let mut phone = Self {
            phone,
            client,
            dir,
            _agent: agent,
        };
        phone
            .until("the inbox", |s| s.contains("Needs your answer ("))
            .await;
        phone.press(&["g", "enter"]).await;
        phone
            .until("the workspaces", |s| {
                s.contains("workspaces, tabs and panes")
            })
            .await;
        for _ in 0..30 {
            if phone
                .screen()
                .lines()
                .any(|l| l.starts_with('›') && l.contains(title))
            {
                break;
            }
            phone.press(&["j"]).await;
        }
        phone.press(&["enter"]).await;
        let heading = format!("› {title}");
        phone
            .until("the pane", |s| {
                s.lines().nth(1).is_some_and(|l| l.contains(&heading))
            })
            .await;
        phone.press(&["i"]).await;
        phone
    }

    /// The pane's id on the agent.
    async fn pane_id(&self, title: &str) -> String {
        let snapshot = snapshot(&self.client).await;
        panes(&snapshot)
            .into_iter()
            .find(|p| p["title"] == title)
            .and_then(|p| p["id"].as_str().map(str::to_string))
            .expect("the pane is in the snapshot")
    }

    /// The texts of the user items the agent holds for a pane, oldest first.
    async fn received(&self, pane: &str) -> Vec<String> {
        let reply = self
            .client
            .get(&format!("{}?after=0", pane_path(pane, "events")))
            .await
            .expect(200, "");
        let mut texts = Vec::new();
        user_texts(&reply, &mut texts);
        texts
    }

    /// The journal's send intents, oldest first: (text, the last state written).
    fn journal_sends(&self) -> Vec<(String, String)> {
        let journal =
            std::fs::read_to_string(self.dir.path().join("intents.jsonl")).expect("the journal");
        let mut sends: Vec<(String, String, String)> = Vec::new();
        for line in journal.lines() {
            let entry: Value = serde_json::from_str(line).expect("a journal line is JSON");
            match entry["op"].as_str() {
                Some("created") if entry["record"]["kind"]["kind"] == "send" => {
                    let record = &entry["record"];
                    sends.push((
                        record["requestId"].as_str().unwrap_or_default().to_string(),
                        record["kind"]["text"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string(),
                        "created".to_string(),
                    ));
                }
                Some("outcome") => {
                    let id = entry["requestId"].as_str().unwrap_or_default();
                    if let Some(send) = sends.iter_mut().find(|(i, _, _)| i == id) {
                        send.2 = entry["state"]["state"]
                            .as_str()
                            .map_or_else(|| entry["state"].to_string(), str::to_string);
                    }
                }
                _ => {}
            }
        }
        sends.into_iter().map(|(_, t, s)| (t, s)).collect()
    }
}

/// Every `text` of an object whose `kind` is `user`, anywhere in the reply.
fn user_texts(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if map.get("kind").and_then(Value::as_str) == Some("user")
                && let Some(text) = map.get("text").and_then(Value::as_str)
            {
                out.push(text.to_string());
            }
            for value in map.values() {
                user_texts(value, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| user_texts(v, out)),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn q1_three_quick_enters_are_three_sends_of_their_own_words() {
    let mut phone = Phone::in_pane("Inbox screen").await;
    let pane = phone.pane_id("Inbox screen").await;
    let before = phone.received(&pane).await;
    // Each key alone and at once: what is typed while "alpha" is on its way is a new message.
    phone.type_text("alpha").await;
    phone.press(&["enter"]).await;
    phone.type_text(" beta").await;
    phone.press(&["enter"]).await;
    phone.type_text(" gamma").await;
    phone.press(&["enter"]).await;
    phone
        .until("the three sends in the chat", |s| {
            s.contains("you › alpha") && s.contains("you ›  beta") && s.contains("you ›  gamma")
        })
        .await;
    let client = &phone.client;
    let received = eventually(
        "the agent holds three new texts",
        Duration::from_secs(10),
        || {
            let pane = pane.clone();
            let before = before.len();
            async move {
                let reply = client
                    .get(&format!("{}?after=0", pane_path(&pane, "events")))
                    .await
                    .expect(200, "");
                let mut texts = Vec::new();
                user_texts(&reply, &mut texts);
                (texts.len() >= before + 3).then_some(texts)
            }
        },
    )
    .await;
    assert_eq!(received[before.len()..], ["alpha", " beta", " gamma"]);
    let sends = phone.journal_sends();
    assert_eq!(
        sends.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>(),
        ["alpha", " beta", " gamma"],
        "the journal: {sends:?}"
    );
    // The box is empty: nothing rode along.
    assert!(phone.screen().contains("0 B / 32 KiB"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a40_kb_paste_without_markers_is_text_in_the_box_and_sends_nothing() {
    let mut phone = Phone::in_pane("Inbox screen").await;
    let pane = phone.pane_id("Inbox screen").await;
    let before = phone.received(&pane).await;
    let line = "pasted words 日本語 and more words to fill the line up\n";
    let text = line.repeat(40 * 1024 / line.len());
    phone.paste_unbracketed(&text).await;
    phone
        .until("the pasted text in the box, over the limit", |s| {
            s.contains("pasted words 日本語") && s.contains("KiB / 32 KiB")
        })
        .await;
    // Give the engine time to send anything it was (wrongly) asked to.
    for _ in 0..3 {
        tokio::time::timeout(Duration::from_secs(2), phone.tui.step())
            .await
            .ok();
    }
    assert_eq!(phone.received(&pane).await, before, "the agent got nothing");
    assert!(phone.journal_sends().is_empty());
    let draft = phone
        .tui
        .app()
        .draft("demo", &pane)
        .map(|d| d.text())
        .unwrap_or_default();
    assert_eq!(
        draft, text,
        "every pasted character is in the box, newlines included"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bracketed_paste_with_newlines_stays_in_the_box_until_enter() {
    let mut phone = Phone::in_pane("Inbox screen").await;
    let pane = phone.pane_id("Inbox screen").await;
    let before = phone.received(&pane).await;
    phone.paste_bracketed("first line\nsecond line").await;
    phone
        .until("both lines in the box", |s| {
            s.contains("first line") && s.contains("second line")
        })
        .await;
    assert_eq!(phone.received(&pane).await, before);
    phone.press(&["enter"]).await;
    phone
        .until("one send in the chat", |s| s.contains("you › first line"))
        .await;
    let sends = phone.journal_sends();
    assert_eq!(
        sends.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>(),
        ["first line\nsecond line"]
    );
}
