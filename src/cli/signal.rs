//! How a serving command (`agent`, `replay`, `dsh-bridge`, `watch`) learns it should stop.

/// Listens for SIGINT and SIGTERM from now on, and resolves on the first. Call it before
/// announcing the socket, so a signal sent right after `listening` is not lost. Without signal
/// handlers (which should not happen) it falls back to Ctrl-C alone.
pub(crate) fn shutdown_signal() -> impl Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let handlers = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    );
    async move {
        match handlers {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => tracing::info!("interrupted: stopping"),
                    _ = terminate.recv() => tracing::info!("asked to terminate: stopping"),
                }
            }
            _ => {
                if let Err(error) = tokio::signal::ctrl_c().await {
                    tracing::warn!(%error, "cannot wait for Ctrl-C; stopping");
                }
            }
        }
    }
}
