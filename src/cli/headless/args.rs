//! The flags every headless command shares.

use std::time::Duration;

use clap::Args;

use crate::cli::connect::{ConnectArgs, RecordArgs};

/// How long to wait for the agent by default: long enough for an agent started by the same
/// script a moment ago, short enough that a wrong socket path fails a CI job quickly.
const DEFAULT_WAIT_SECONDS: u64 = 10;

#[derive(Debug, Clone, Args)]
pub(crate) struct ScriptArgs {
    #[command(flatten)]
    pub(crate) connect: ConnectArgs,
    #[command(flatten)]
    pub(crate) record: RecordArgs,
    /// Which of several agents (by name) to talk to.
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// Print JSON instead of lines (one object; `watch` prints one object per line).
    #[arg(long)]
    pub(crate) json: bool,
    /// How long to wait for the agent to be connected and ready before giving up.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_WAIT_SECONDS)]
    pub(crate) wait: u64,
}

impl ScriptArgs {
    pub(crate) fn patience(&self) -> Duration {
        Duration::from_secs(self.wait)
    }

    /// The flags that dial the same agent again, for the retry line a person can paste.
    pub(crate) fn dial_flags(&self) -> String {
        let mut flags = Vec::new();
        for socket in &self.connect.sockets {
            flags.push(format!(
                "--socket {}",
                quoted(&socket.display().to_string())
            ));
        }
        for url in &self.connect.urls {
            flags.push(format!("--url {}", quoted(url)));
        }
        if let Some(file) = &self.connect.token_file {
            flags.push(format!(
                "--token-file {}",
                quoted(&file.display().to_string())
            ));
        }
        if let Some(file) = &self.connect.ca_cert {
            flags.push(format!("--ca-cert {}", quoted(&file.display().to_string())));
        }
        if let Some(pin) = &self.connect.pin {
            flags.push(format!("--pin {pin}"));
        }
        if let Some(file) = &self.connect.config {
            flags.push(format!("--config {}", quoted(&file.display().to_string())));
        }
        if let Some(agent) = &self.agent {
            flags.push(format!("--agent {}", quoted(agent)));
        }
        flags.join(" ")
    }
}

/// A word as a POSIX shell reads it back unchanged.
pub(crate) fn quoted(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_plain_words_and_wraps_the_rest() {
        assert_eq!(quoted("/tmp/a.sock"), "/tmp/a.sock");
        assert_eq!(quoted("a b"), "'a b'");
        assert_eq!(quoted("it's"), r"'it'\''s'");
        assert_eq!(quoted(""), "''");
    }
}
