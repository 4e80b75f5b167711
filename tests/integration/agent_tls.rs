//! The reference agent behind TLS (SPEC T1–T3, A11), with a certificate made for the test.

use crate::common;

use common::*;
use serde_json::Value;

struct TlsAgent {
    _dir: tempfile::TempDir,
    _agent: AgentProcess,
    client: Client,
}

fn tls_agent() -> TlsAgent {
    let dir = temp_dir();
    let agent = https_agent(dir.path());
    let client = Client::https(&agent.process.url, &agent.cert_pem).with_token(&agent.token);
    TlsAgent {
        _dir: dir,
        _agent: agent.process,
        client,
    }
}

#[tokio::test]
async fn a11_over_tls_no_allow_always_anywhere() {
    let tls = tls_agent();
    let hello = tls.client.get(HELLO).await.expect(200, "");
    assert_eq!(hello["service"], "collie-durable");
    assert_eq!(hello["caps"]["allowAlways"], false);
    let world = snapshot(&tls.client).await;
    let mut permissions = 0;
    for pane in panes(&world) {
        for ask in pane["asks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|a| a["kind"] == "permission")
        {
            permissions += 1;
            let options = ask["permission"]["options"].as_array().expect("options");
            assert!(
                options
                    .iter()
                    .all(|o| o["effect"] != "allow-always" && o["id"] != "allow-always"),
                "{options:?}"
            );
        }
    }
    assert!(permissions > 0, "the demo world has a permission ask");
}

#[tokio::test]
async fn t3_over_tls_the_token_comes_first() {
    let tls = tls_agent();
    for authorization in [None, Some("Bearer not-the-token")] {
        let reply = tls
            .client
            .send(Req::get(HELLO).version(None).authorization(authorization))
            .await;
        assert_eq!(reply.status, 401);
        assert_eq!(reply.body.as_ref(), br#"{"code":"unauthorized"}"#);
        let reply = tls
            .client
            .send(Req::get("/elsewhere").authorization(authorization))
            .await;
        assert_eq!(reply.status, 401);
    }
    tls.client.get("/elsewhere").await.expect(404, "not-found");
    let reply = tls.client.get(SNAPSHOT).await;
    reply.expect(200, "");
    assert!(reply.header("etag").is_some());
}

#[tokio::test]
async fn q3_and_a4_work_the_same_over_tls() {
    let tls = tls_agent();
    let world = snapshot(&tls.client).await;
    let (pane, ask) = find_ask(&world, "permission").expect("an open permission");
    let request = serde_json::json!({
        "requestId": "tls-1", "askId": ask["id"], "revision": ask["revision"], "answer": answer_for(&ask)
    });
    let first = tls
        .client
        .post(&pane_path(&pane, "answer"), request.clone())
        .await
        .expect(200, "ok");
    let again = tls
        .client
        .post(&pane_path(&pane, "answer"), request)
        .await
        .expect(200, "ok");
    assert_eq!(again["replayed"], Value::Bool(true));
    assert_eq!(again["outcome"], first["outcome"]);
}
