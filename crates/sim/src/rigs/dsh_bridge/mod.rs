//! The reference DSH bridge (`collie-phone dsh-bridge`, seed 002, SPEC D1–D7): the bridge's
//! HTTP protocol in front of a fake desktop, for tests and demos. Tokens are kept as hashes and
//! scoped to workspaces (`tokens`), the fake desktop plays sessions on a virtual clock
//! (`desktop`, `plan`, `demo`), and `http` speaks the wire of `dsh_wire`.

mod clock;
mod demo;
mod desktop;
mod http;
mod plan;
mod tail;
mod tokens;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use tokio::sync::broadcast;

pub use desktop::DesktopOptions;
pub(crate) use tokens::TokenStore;

/// How often the desktop's virtual clock is looked at.
const TICK: Duration = Duration::from_millis(50);
/// Signals a slow stream may fall behind before it is ended (it resumes by sinceSeq).
const SIGNAL_BUFFER: usize = 4096;

/// Everything `collie-phone dsh-bridge` was told.
#[derive(Debug, Clone)]
pub struct BridgeOptions {
    pub desktop: DesktopOptions,
    pub listen: String,
    pub token_file: PathBuf,
    pub scoped_tokens: Option<PathBuf>,
    pub ready_after: Duration,
    pub reload_every: Option<Duration>,
}

/// A bridge bound to its address, not yet serving.
pub struct Bound {
    listener: tokio::net::TcpListener,
    /// Installed before `listening` is printed: SIGHUP's default would end the process.
    hangup: Option<tokio::signal::unix::Signal>,
    bridge: Arc<http::Bridge>,
    reload_every: Option<Duration>,
    pub url: String,
}

/// Checks the address is loopback (seed "只用回环地址"), loads the tokens, lays out the demo
/// desktop and binds.
pub async fn bind(options: BridgeOptions) -> anyhow::Result<Bound> {
    let address: SocketAddr = options.listen.parse().with_context(|| {
        format!(
            "--listen {:?} is not an address like 127.0.0.1:19387",
            options.listen
        )
    })?;
    if !address.ip().is_loopback() {
        bail!(
            "--listen {address} is not a loopback address; the bridge only listens on 127.0.0.1 or ::1"
        );
    }
    let tokens = TokenStore::load(&options.token_file, options.scoped_tokens.as_deref())?;
    let (signals, _) = broadcast::channel(SIGNAL_BUFFER);
    let prefix = options.desktop.route_prefix.clone();
    let keep_alive = Duration::from_millis(options.desktop.keep_alive_ms.max(1));
    let max_wait_ms = options.desktop.max_wait_ms;
    let desktop = desktop::FakeDesktop::new(options.desktop, signals.clone())?;
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| format!("could not listen on {address}"))?;
    let local = listener
        .local_addr()
        .context("the listener has no address")?;
    let hangup = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
        Ok(hangup) => Some(hangup),
        Err(error) => {
            tracing::warn!(%error, "cannot listen for SIGHUP; reloads only by --reload-every");
            None
        }
    };
    Ok(Bound {
        hangup,
        url: format!("http://{local}{prefix}"),
        listener,
        reload_every: options.reload_every,
        bridge: Arc::new(http::Bridge {
            desktop: Mutex::new(desktop),
            tokens,
            signals,
            prefix,
            keep_alive,
            max_wait_ms,
            ready_at: Instant::now() + options.ready_after,
        }),
    })
}

impl Bound {
    /// Serves until `stop` resolves; SIGHUP (and `--reload-every`) simulate a desktop reload.
    pub async fn serve(
        self,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let ticker = tokio::spawn(tick(
            Arc::clone(&self.bridge),
            self.hangup,
            self.reload_every,
        ));
        let app = http::router(Arc::clone(&self.bridge));
        let served = axum::serve(self.listener, app)
            .with_graceful_shutdown(stop)
            .await
            .context("the bridge stopped serving");
        ticker.abort();
        served
    }
}

async fn tick(
    bridge: Arc<http::Bridge>,
    mut hangup: Option<tokio::signal::unix::Signal>,
    reload_every: Option<Duration>,
) {
    let mut ticks = tokio::time::interval(TICK);
    let mut next_reload = reload_every.map(|every| tokio::time::Instant::now() + every);
    loop {
        let hung_up = async {
            match hangup.as_mut() {
                Some(hangup) => hangup.recv().await,
                None => std::future::pending().await,
            }
        };
        let reload = tokio::select! {
            _ = ticks.tick() => false,
            _ = hung_up => true,
        };
        let due = next_reload.is_some_and(|at| tokio::time::Instant::now() >= at);
        let Ok(mut desktop) = bridge.desktop.lock() else {
            tracing::error!("the desktop's state is broken; the clock stops");
            return;
        };
        if reload || due {
            desktop.reload();
            if let (Some(at), Some(every)) = (next_reload.as_mut(), reload_every) {
                *at = tokio::time::Instant::now() + every;
            }
        }
        desktop.tick();
    }
}
