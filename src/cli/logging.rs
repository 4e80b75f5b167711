//! Where the program's tracing goes: a file with `--log`, else stderr. The agent is a server,
//! so its log is for its operator, never mixed into stdout, which carries the `listening` line.
//! Both go through the cleaning writer (`out::log_writer`): log lines quote agents' words.

use std::path::Path;

use anyhow::Context;
use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

use crate::out::log_writer::CleanMakeWriter;

/// Keeps the log writer running; dropping it flushes what is left.
pub(crate) struct LogGuard {
    _worker: Option<WorkerGuard>,
}

/// Starts tracing at `default_level` unless `RUST_LOG` says otherwise.
pub(crate) fn init(file: Option<&Path>, default_level: &str) -> anyhow::Result<LogGuard> {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_level));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match file {
        Some(path) => {
            let file = crate::transport::own_files::open_own(path, true)
                .with_context(|| format!("could not open the log file {}", path.display()))?;
            let (writer, worker) = tracing_appender::non_blocking(file);
            builder
                .with_writer(CleanMakeWriter(writer))
                .with_ansi(false)
                .try_init()
                .map_err(|error| anyhow::anyhow!("could not start logging: {error}"))?;
            Ok(LogGuard {
                _worker: Some(worker),
            })
        }
        None => {
            builder
                .with_writer(CleanMakeWriter(std::io::stderr))
                .with_ansi(false)
                .try_init()
                .map_err(|error| anyhow::anyhow!("could not start logging: {error}"))?;
            Ok(LogGuard { _worker: None })
        }
    }
}
