//! Our reference DSH bridge on a loopback port, for tests that speak the DSH protocol to it.
//!
//! It runs `collie-phone dsh-bridge --demo` with a full-scope token, and the tests talk to it
//! byte for byte.

use serde_json::Value;

use super::{AgentProcess, Client, Reply, Req};

pub struct ReferenceBridge {
    _process: AgentProcess,
    /// `127.0.0.1:PORT`.
    pub address: String,
    /// The route prefix, `/codex-bridge`.
    pub prefix: String,
    /// The demo's full-scope token.
    pub token: String,
    /// Where its token file and demo desktop live.
    pub dir: tempfile::TempDir,
}

impl ReferenceBridge {
    /// Starts it in a new directory, with `extra` flags.
    pub fn start(extra: &[&str]) -> Self {
        Self::start_in(super::temp_dir(), extra)
    }

    /// Starts it in `dir` (which may already hold files the flags name), with `extra` flags.
    pub fn start_in(dir: tempfile::TempDir, extra: &[&str]) -> Self {
        let (token_path, token) = super::token_file(dir.path());
        let root = dir.path().join("demo");
        let mut args = vec![
            "dsh-bridge".to_string(),
            "--demo".into(),
            "--listen".into(),
            "127.0.0.1:0".into(),
            "--token-file".into(),
            token_path.display().to_string(),
            "--root".into(),
            root.display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let process = AgentProcess::start(&args);
        let rest = process.url.strip_prefix("http://").expect("an http url");
        let (address, path) = rest.split_once('/').expect("a prefix");
        Self {
            address: address.to_string(),
            prefix: format!("/{path}"),
            token,
            dir,
            _process: process,
        }
    }

    /// Sends `req` with this bearer token, or none.
    pub async fn call_as(&self, token: Option<&str>, req: Req) -> Reply {
        let header = token.map(|t| format!("Bearer {t}"));
        Client::tcp(&self.address)
            .send(req.authorization(header.as_deref()))
            .await
    }

    pub async fn get(&self, route: &str) -> Reply {
        self.get_as(&self.token, route).await
    }

    pub async fn get_as(&self, token: &str, route: &str) -> Reply {
        self.call_as(Some(token), Req::get(&format!("{}{route}", self.prefix)))
            .await
    }

    pub async fn post(&self, route: &str, body: Value) -> Reply {
        self.post_as(&self.token, route, body).await
    }

    pub async fn post_as(&self, token: &str, route: &str, body: Value) -> Reply {
        self.call_as(
            Some(token),
            Req::post(&format!("{}{route}", self.prefix), body),
        )
        .await
    }
}

impl ReferenceBridge {
    /// Opens `GET /events?query` with the token on a connection of its own; returns the
    /// response as soon as its head came (the body is the stream).
    pub async fn open_events(&self, query: &str) -> hyper::Response<hyper::body::Incoming> {
        let stream = tokio::net::TcpStream::connect(&self.address)
            .await
            .expect("connect");
        let (mut sender, connection) = hyper::client::conn::http1::handshake::<
            _,
            http_body_util::Empty<bytes::Bytes>,
        >(hyper_util::rt::TokioIo::new(stream))
        .await
        .expect("handshake");
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let request = hyper::Request::get(format!("{}/events?{query}", self.prefix))
            .header("host", "bridge")
            .header("authorization", format!("Bearer {}", self.token))
            .body(http_body_util::Empty::new())
            .expect("request");
        sender.send_request(request).await.expect("response")
    }
}
