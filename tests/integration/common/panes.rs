//! A pane of a durable agent as a test drives it over the wire: find it in the snapshot, run a
//! starter, send to it (naming the turn it sees, SPEC A16), answer an ask, read its whole view.
//! Shared by the tests of the ACP host with our scripted agent and with the real agents.

use serde_json::{Value, json};

use super::{Client, Reply, pane_path, panes, snapshot};

/// The pane as the snapshot has it now.
pub async fn find(client: &Client, pane: &str) -> Option<Value> {
    panes(&snapshot(client).await)
        .into_iter()
        .find(|p| p["id"] == pane)
}

/// Runs a starter; gives the pane its reply names.
pub async fn start(client: &Client, starter: &str) -> String {
    let reply = client
        .post(
            &format!("/session/v1/starter/{starter}"),
            json!({"requestId": format!("start-{starter}")}),
        )
        .await
        .expect(200, "ok");
    reply["paneId"]
        .as_str()
        .expect("the starter names its pane")
        .to_string()
}

/// Sends `text`, naming the pane's latest turn; gives the `ok` reply.
pub async fn send(client: &Client, pane: &str, id: &str, text: &str) -> Value {
    let turn = find(client, pane).await.map(|p| p["turn"]["id"].clone());
    client
        .post(
            &pane_path(pane, "send"),
            json!({"requestId": id, "turnId": turn.unwrap_or(Value::Null), "text": text}),
        )
        .await
        .expect(200, "ok")
}

/// Answers `ask` (as the snapshot gave it) with one of its options.
pub async fn answer(client: &Client, pane: &str, id: &str, ask: &Value, option: &str) -> Reply {
    client
        .post(
            &pane_path(pane, "answer"),
            json!({"requestId": id, "askId": ask["id"], "revision": ask["revision"],
                   "answer": {"optionId": option}}),
        )
        .await
}

/// The pane's items as the whole view gives them.
pub async fn items(client: &Client, pane: &str) -> Vec<Value> {
    let view = client
        .get(&format!("{}?after=0", pane_path(pane, "events")))
        .await
        .expect(200, "");
    view["view"]["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}
