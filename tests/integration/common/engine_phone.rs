//! The engine alone against a DSH bridge, for tests of what it tells the screens (`FromEngine`).
//!
//! It dials the bridge over real HTTP, with no app or terminal in between, so a test reads the
//! engine's own updates against a peer of its choosing.

use std::time::Duration;

use collie_phone::engine::dsh::{BridgeSpec, BridgeUrl};
use collie_phone::engine::{AgentChange, Engine, EngineOptions, FromEngine, ToEngine};
use collie_phone::transport::Token;
use collie_phone::wire::EventType;

/// How long a test waits for what it expects.
pub const DEADLINE: Duration = Duration::from_secs(45);

/// One engine with one bridge named `desk`, and every update it sent.
pub struct EnginePhone {
    pub engine: Engine,
    _dir: tempfile::TempDir,
    pub seen: Vec<FromEngine>,
}

impl EnginePhone {
    pub fn start(url: &str, token: &str) -> Self {
        Self::start_with(url, token, EngineOptions::default())
    }

    /// [`EnginePhone::start`] with these engine options (`record`, say).
    pub fn start_with(url: &str, token: &str, options: EngineOptions) -> Self {
        let dir = tempfile::tempdir().expect("dir");
        let spec = BridgeSpec {
            name: "desk".into(),
            url: BridgeUrl::parse(url).expect("loopback url"),
            token: Token::new(token).expect("token"),
        };
        let engine = Engine::start_mixed(
            Vec::new(),
            vec![spec],
            &dir.path().join("intents.jsonl"),
            options,
        )
        .expect("engine");
        Self {
            engine,
            _dir: dir,
            seen: Vec::new(),
        }
    }

    /// Reads updates until `done` holds over everything seen, or fails after the deadline.
    pub async fn until(&mut self, what: &str, done: impl Fn(&[FromEngine]) -> bool) {
        let deadline = tokio::time::Instant::now() + DEADLINE;
        while !done(&self.seen) {
            match tokio::time::timeout_at(deadline, self.engine.updates.recv()).await {
                Ok(Some(update)) => self.seen.push(update),
                _ => panic!("timed out waiting for {what}; saw {:#?}", self.tail()),
            }
        }
    }

    /// Reads updates for a while, whatever they are.
    pub async fn run_for(&mut self, time: Duration) {
        let deadline = tokio::time::Instant::now() + time;
        while let Ok(Some(update)) =
            tokio::time::timeout_at(deadline, self.engine.updates.recv()).await
        {
            self.seen.push(update);
        }
    }

    /// The last updates, cut, for a failure's message.
    pub fn tail(&self) -> Vec<String> {
        self.seen
            .iter()
            .rev()
            .take(15)
            .map(|u| format!("{u:?}").chars().take(300).collect())
            .collect()
    }

    pub fn send(&self, command: ToEngine) {
        self.engine.commands.send(command).expect("engine alive");
    }
}

/// Every change the engine told of its agents, in order.
pub fn changes(seen: &[FromEngine]) -> impl Iterator<Item = &AgentChange> {
    seen.iter().filter_map(|u| match u {
        FromEngine::Agent { change, .. } => Some(change),
        _ => None,
    })
}

/// Every item text shown in a pane, by views and events, in order.
pub fn pane_texts(seen: &[FromEngine], pane: &str) -> Vec<String> {
    let mut texts = Vec::new();
    for change in changes(seen) {
        match change {
            AgentChange::PaneView { pane: p, view } if p == pane => {
                texts = view.items.iter().map(|i| i.text.clone()).collect();
            }
            AgentChange::PaneEvents { pane: p, events } if p == pane => texts.extend(
                events
                    .iter()
                    .filter(|e| e.kind == EventType::Item)
                    .filter_map(|e| e.item.as_ref().map(|i| i.text.clone())),
            ),
            _ => {}
        }
    }
    texts
}

/// Serves `routes` under `/codex-bridge` on a loopback port; returns the bridge's base URL.
pub async fn serve_bridge(routes: axum::Router) -> String {
    let app = axum::Router::new().nest("/codex-bridge", routes);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://127.0.0.1:{port}/codex-bridge")
}
