//! A reference agent in the bench's own process, serving one world over a private socket
//! until told to stop: what the frame benches read with the real engine.

use std::path::Path;

use collie_phone::durable::listen::bind_unix;
use collie_phone::durable::runtime::Agent;
use collie_phone::durable::server::{Access, Server};
use collie_phone::rigs::{WorldKind, WorldOptions};

/// Serves a `kind` world at `socket`, frozen (speed 0), until `stopped` fires.
pub fn start(
    runtime: &tokio::runtime::Runtime,
    socket: &Path,
    kind: WorldKind,
    stopped: tokio::sync::oneshot::Receiver<()>,
) -> tokio::task::JoinHandle<()> {
    let options = WorldOptions {
        kind,
        speed: 0.0,
        ..WorldOptions::default()
    };
    let agent = Agent::new(options).expect("the world");
    let server = Server::new(
        agent,
        Access {
            token: None,
            tls: false,
        },
    );
    let binding = runtime
        .block_on(async { bind_unix(socket) })
        .expect("bind the socket");
    runtime.spawn(async move {
        let ticker = server.spawn_ticker();
        binding
            .serve(server, async {
                let _ = stopped.await;
            })
            .await;
        ticker.abort();
    })
}
