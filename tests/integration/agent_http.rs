//! The reference agent over plain loopback http with a token (SPEC T1–T3, A11): the token is
//! checked first, in constant time, and a refusal is a bare `401 {"code":"unauthorized"}`.

use crate::common;

use std::os::unix::fs::PermissionsExt;

use common::*;
use hyper::Method;
use serde_json::json;

const UNAUTHORIZED: &[u8] = br#"{"code":"unauthorized"}"#;

fn http_agent(dir: &std::path::Path, extra: &[&str]) -> (AgentProcess, Client) {
    let (token_path, token) = token_file(dir);
    let token_path = token_path.to_str().expect("utf-8").to_string();
    let mut args = vec![
        "agent",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        token_path.as_str(),
        "--speed",
        "0",
    ];
    args.extend_from_slice(extra);
    let agent = AgentProcess::start(&args);
    assert!(agent.url.starts_with("http://127.0.0.1:"), "{}", agent.url);
    let client = agent.client().with_token(&token);
    (agent, client)
}

#[track_caller]
fn assert_bare_401(reply: &Reply) {
    assert_eq!(
        reply.status,
        401,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.body.as_ref(), UNAUTHORIZED);
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("application/json")
    );
    assert!(reply.header("etag").is_none());
}

#[tokio::test]
async fn t3_missing_or_wrong_token_is_a_bare_401_before_anything_else() {
    let dir = temp_dir();
    let (_agent, client) = http_agent(dir.path(), &[]);
    let (_, token) = token_file(dir.path());
    let wrong_tokens = [
        None,
        Some(String::new()),
        Some("Bearer".to_string()),
        Some("Bearer ".to_string()),
        Some(format!("Bearer {token}x")),
        Some(format!("Bearer {}", &token[..token.len() - 1])),
        Some(format!("bearer {token}")),
        Some(format!("Basic {token}")),
        Some(token.clone()),
    ];
    let requests = [
        Req::get(HELLO).version(None),
        Req::get(HELLO)
            .version(Some("2"))
            .header("x-collie-accepts", "2-3"),
        Req::get(SNAPSHOT),
        Req::get(SNAPSHOT).version(None),
        Req::get(SNAPSHOT).version(Some("nine")),
        Req::get("/not/under/the/prefix"),
        Req::get("/session/v1/nothing-here"),
        Req::new(Method::DELETE, "/session/v1/snapshot"),
        Req::post("/session/v1/close", json!({})),
        Req::new(Method::POST, "/session/v1/close").bytes(vec![b' '; 64 * 1024 + 1]),
    ];
    for authorization in &wrong_tokens {
        for request in &requests {
            let reply = client
                .send(request.clone().authorization(authorization.as_deref()))
                .await;
            assert_bare_401(&reply);
        }
    }
    // The right token passes, and then the other rules speak.
    let hello = client
        .send(Req::get(HELLO).version(None))
        .await
        .expect(200, "");
    assert_eq!(hello["service"], "collie-durable");
    client
        .send(Req::get(SNAPSHOT).version(None))
        .await
        .expect(400, "version-required");
    client
        .get("/session/v1/nothing-here")
        .await
        .expect(404, "not-found");
}

#[tokio::test]
async fn t3_token_is_checked_before_readiness() {
    let dir = temp_dir();
    let (_agent, client) = http_agent(dir.path(), &["--ready-after", "60000"]);
    assert_bare_401(&client.send(Req::get(SNAPSHOT).authorization(None)).await);
    assert_bare_401(
        &client
            .send(Req::get(HELLO).authorization(Some("Bearer nope")))
            .await,
    );
    client.get(SNAPSHOT).await.expect(503, "starting");
    assert_eq!(client.get(HELLO).await.expect(200, "")["ready"], false);
}

#[tokio::test]
async fn a11_no_allow_always_behind_a_token() {
    let dir = temp_dir();
    let (_agent, client) = http_agent(dir.path(), &[]);
    let hello = client.get(HELLO).await.expect(200, "");
    assert_eq!(hello["caps"]["allowAlways"], false);
    let world = snapshot(&client).await;
    let (_, ask) = find_ask(&world, "permission").expect("an open permission");
    let options = ask["permission"]["options"].as_array().expect("options");
    assert!(!options.is_empty());
    assert!(
        options.iter().all(|o| o["effect"] != "allow-always"),
        "{options:?}"
    );
}

#[test]
fn t1_plain_http_only_on_loopback() {
    let dir = temp_dir();
    let (token_path, _) = token_file(dir.path());
    let token_path = token_path.to_str().expect("utf-8");
    let refused = refused(&["agent", "--listen", "0.0.0.0:0", "--token-file", token_path]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(refused.stderr.contains("loopback"), "{}", refused.stderr);
}

#[test]
fn t2_listen_needs_a_token_file() {
    let refused = refused(&["agent", "--listen", "127.0.0.1:0"]);
    assert_eq!(refused.status.code(), Some(2), "a usage error");
    assert!(
        refused.stderr.contains("--token-file"),
        "{}",
        refused.stderr
    );
}

#[test]
fn t2_token_file_open_to_others_is_refused_with_the_fix() {
    let dir = temp_dir();
    let (token_path, _) = token_file(dir.path());
    for mode in [0o644, 0o640, 0o604, 0o620] {
        std::fs::set_permissions(&token_path, std::fs::Permissions::from_mode(mode))
            .expect("chmod");
        let path = token_path.to_str().expect("utf-8");
        let refused = refused(&["agent", "--listen", "127.0.0.1:0", "--token-file", path]);
        assert_eq!(refused.status.code(), Some(1));
        assert!(
            refused.stderr.contains(&format!("chmod 600 {path}")),
            "{}",
            refused.stderr
        );
    }
}

#[test]
fn t2_token_must_be_32_printable_bytes_without_spaces() {
    let dir = temp_dir();
    let path = dir.path().join("token");
    for bad in [
        "short-token\n",
        "a token with spaces that is long enough\n",
        "tab\tinside-a-token-that-is-long-enough\n",
        "\n",
    ] {
        std::fs::write(&path, bad).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let refused = refused(&[
            "agent",
            "--listen",
            "127.0.0.1:0",
            "--token-file",
            path.to_str().expect("utf-8"),
        ]);
        assert_eq!(refused.status.code(), Some(1), "{bad:?}");
        assert!(
            refused.stderr.contains("docs/SPEC.md § TLS and the token"),
            "{}",
            refused.stderr
        );
    }
}
