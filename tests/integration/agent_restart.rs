//! The reference agent across restarts with `--state` (SPEC A9, H3, H5): killed with `kill -9`
//! and started again, it comes back in a new epoch, not ready until every conversation is shown
//! again and every open ask asked again under its old id, and an answer to an old ask id lands.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};

fn arg(path: &Path) -> &str {
    path.to_str().expect("a utf-8 path")
}

fn open_ask_ids(snapshot: &Value) -> BTreeSet<String> {
    panes(snapshot)
        .iter()
        .flat_map(|pane| pane["asks"].as_array().cloned().unwrap_or_default())
        .filter_map(|ask| ask["id"].as_str().map(str::to_string))
        .collect()
}

/// Every conversation id in history, page by page.
async fn conversation_ids(client: &Client) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    let mut path = "/session/v1/conversations?limit=100".to_string();
    loop {
        let page = client.get(&path).await.expect(200, "");
        for row in page["conversations"].as_array().into_iter().flatten() {
            ids.insert(row["id"].as_str().expect("an id").to_string());
        }
        match page["next"].as_str() {
            Some(next) => path = format!("/session/v1/conversations?after={next}&limit=100"),
            None => return ids,
        }
    }
}

async fn answer(client: &Client, pane: &str, request_id: &str, ask: &Value) -> Reply {
    client
        .post(
            &pane_path(pane, "answer"),
            json!({"requestId": request_id, "askId": ask["id"], "revision": ask["revision"], "answer": answer_for(ask)}),
        )
        .await
}

/// Waits until `world.json` holds the decision of `ask_id` (saves come at most once a second).
async fn saved_decision(state: &Path, ask_id: &str) {
    let file = state.join("world.json");
    eventually("the decision is saved", Duration::from_secs(5), || async {
        let text = std::fs::read_to_string(&file).ok()?;
        let saved: Value = serde_json::from_str(&text).ok()?;
        let decided = saved["layout"]["panes"]
            .as_object()?
            .values()
            .flat_map(|pane| pane["decisions"].as_array().cloned().unwrap_or_default())
            .any(|decision| decision["ask_id"] == ask_id);
        decided.then_some(())
    })
    .await
}

#[tokio::test]
async fn a9_h3_h5_after_kill_9_same_asks_new_epoch_and_old_answers_land() {
    let dir = temp_dir();
    let state = dir.path().join("state");

    let first = socket_agent(dir.path(), &["--state", arg(&state)]);
    let client = first.client();
    let hello = client
        .send(Req::get(HELLO).version(None))
        .await
        .expect(200, "");
    let old_epoch = hello["epoch"].as_str().expect("an epoch").to_string();
    let before = snapshot(&client).await;
    let asked_before = open_ask_ids(&before);
    assert!(asked_before.len() >= 4, "the demo starts with open asks");
    let conversations_before = conversation_ids(&client).await;
    // One ask answered before the kill: its outcome must survive (SPEC A7, A14).
    let (choice_pane, choice) = find_ask(&before, "choice").expect("an open choice");
    answer(&client, &choice_pane, "before-kill", &choice)
        .await
        .expect(200, "ok");
    let choice_id = choice["id"].as_str().expect("an id").to_string();
    saved_decision(&state, &choice_id).await;
    let (pane, permission) = find_ask(&before, "permission").expect("an open permission");
    drop(client);
    drop(first); // SIGKILL: nothing is flushed on the way out.

    let second = socket_agent(
        dir.path(),
        &["--state", arg(&state), "--ready-after", "1500"],
    );
    let client = second.client();
    let hello = client
        .send(Req::get(HELLO).version(None))
        .await
        .expect(200, "");
    assert_ne!(
        hello["epoch"],
        old_epoch.as_str(),
        "H5: a restart is a new epoch"
    );
    assert_eq!(hello["ready"], false, "H3");
    client.get(SNAPSHOT).await.expect(503, "starting");
    answer(&client, &pane, "too-soon", &permission)
        .await
        .expect(503, "starting");
    wait_ready(&client).await;

    let after = snapshot(&client).await;
    assert_ne!(after["epoch"], old_epoch.as_str());
    let mut expected = asked_before.clone();
    expected.remove(&choice_id);
    assert_eq!(
        open_ask_ids(&after),
        expected,
        "A9: every open ask is asked again under its id"
    );
    assert_eq!(
        conversation_ids(&client).await,
        conversations_before,
        "conversations are kept"
    );

    // H5: a reader with the old epoch and cursor gets the pane's whole view, asks included.
    let events = client
        .get(&format!(
            "{}?after=7&epoch={old_epoch}",
            pane_path(&pane, "events")
        ))
        .await
        .expect(200, "");
    let view_asks = events["view"]["asks"].as_array().expect("the whole view");
    assert!(view_asks.iter().any(|ask| ask["id"] == permission["id"]));
    assert!(
        !events["view"]["items"]
            .as_array()
            .expect("items")
            .is_empty()
    );

    // A9: the answer sent to the old id lands.
    let landed = answer(&client, &pane, "after-restart", &permission)
        .await
        .expect(200, "ok");
    assert_eq!(
        landed["outcome"]["optionId"],
        permission["permission"]["options"][0]["id"]
    );
    // A7: the ask answered before the kill is still decided, with its first outcome.
    let late = answer(&client, &choice_pane, "late-tap", &choice)
        .await
        .expect(409, "decided");
    assert_eq!(late["by"], "phone");
    assert_eq!(
        late["outcome"]["optionId"],
        choice["choice"]["options"][0]["id"]
    );
}

#[tokio::test]
async fn a_clean_stop_saves_the_last_change_at_once() {
    let dir = temp_dir();
    let state = dir.path().join("state");
    let mut first = socket_agent(dir.path(), &["--state", arg(&state)]);
    let client = first.client();
    let world = snapshot(&client).await;
    let (pane, ask) = find_ask(&world, "text").expect("an open text ask");
    let workspace = world["workspaces"][0]["id"].clone();
    // The answer is saved by the timer at once (nothing changed for a while); the rename right
    // after it falls inside the second between saves, so only the save on stop keeps it.
    answer(&client, &pane, "just-before-stop", &ask)
        .await
        .expect(200, "ok");
    let rename = json!({"requestId": "rename-before-stop", "kind": "workspace", "id": workspace, "title": "Renamed last"});
    client
        .post("/session/v1/rename", rename)
        .await
        .expect(200, "ok");
    assert!(first.stop(true).success());
    drop(client);

    let second = socket_agent(dir.path(), &["--state", arg(&state)]);
    let client = second.client();
    wait_ready(&client).await;
    let late = answer(&client, &pane, "after-stop", &ask)
        .await
        .expect(409, "decided");
    assert_eq!(late["outcome"]["text"], "from the test");
    let world = snapshot(&client).await;
    let renamed = world["workspaces"]
        .as_array()
        .expect("workspaces")
        .iter()
        .find(|w| w["id"] == workspace);
    assert_eq!(
        renamed.map(|w| w["title"].clone()),
        Some(json!("Renamed last"))
    );
}

#[tokio::test]
async fn a_corrupt_state_file_is_set_aside_and_the_agent_starts_fresh() {
    let dir = temp_dir();
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).expect("a state folder");
    std::fs::write(
        state.join("world.json"),
        b"{\"format\":1,\"layout\":{\"panes\":",
    )
    .expect("a broken file");
    let agent = socket_agent(dir.path(), &["--state", arg(&state)]);
    let client = agent.client();
    wait_ready(&client).await;
    assert!(
        find_ask(&snapshot(&client).await, "permission").is_some(),
        "a fresh demo"
    );
    let names: Vec<String> = std::fs::read_dir(&state)
        .expect("the state folder")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert!(
        names
            .iter()
            .any(|name| name.starts_with("world.json.corrupt-")),
        "{names:?}"
    );
}
