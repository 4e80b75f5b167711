//! The mode each conversation's session should be in, kept in the host's state folder
//! (`--state DIR`, `acp-modes.json`): the mode a person last switched it to, else the mode the
//! host started its session in. The world keeps no settings across a restart (the agent says
//! them again), and an agent may bring a session back in another mode than it was in, so the
//! host keeps this itself and puts it back after every load and resume (docs/ACP.md, "The mode
//! after a restart or a reload").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::wire::check_id;

/// The file's name in the state folder.
const FILE: &str = "acp-modes.json";

/// Conversation id → mode id; written whole at each change when there is a state folder.
#[derive(Debug, Default)]
pub(crate) struct KeptModes {
    file: Option<PathBuf>,
    modes: BTreeMap<String, String>,
}

impl KeptModes {
    /// What the state folder holds; nothing when it holds no such file or one that cannot be
    /// read (the log says so, and sessions come back in the mode a new one starts in).
    pub(crate) fn open(state: Option<&Path>) -> Self {
        let file = state.map(|dir| dir.join(FILE));
        let modes = match file.as_deref().map(std::fs::read) {
            Some(Ok(bytes)) => serde_json::from_slice(&bytes).unwrap_or_else(|error| {
                tracing::warn!(error = %error, "the kept modes could not be read; sessions come back in the mode a new one starts in");
                BTreeMap::new()
            }),
            _ => BTreeMap::new(),
        };
        Self { file, modes }
    }

    pub(crate) fn get(&self, conversation: &str) -> Option<&str> {
        self.modes.get(conversation).map(String::as_str)
    }

    /// Keeps `mode` for `conversation`: only an id the wire takes (it came from the agent).
    pub(crate) fn keep(&mut self, conversation: &str, mode: &str) {
        if check_id(mode).is_err() || self.get(conversation) == Some(mode) {
            return;
        }
        self.modes
            .insert(conversation.to_string(), mode.to_string());
        self.write();
    }

    fn write(&self) {
        let Some(file) = &self.file else { return };
        let written = serde_json::to_vec(&self.modes)
            .map_err(std::io::Error::other)
            .and_then(|bytes| {
                let next = file.with_extension("json.next");
                std::fs::write(&next, bytes)?;
                std::fs::rename(&next, file)
            });
        if let Err(error) = written {
            tracing::warn!(error = %error, file = %file.display(), "the kept modes could not be written");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_mode_is_there_after_a_restart_and_a_bad_id_is_not_kept() {
        let dir = std::env::temp_dir().join(format!("collie-kept-modes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder");
        let mut kept = KeptModes::open(Some(&dir));
        kept.keep("c-1", "read-only");
        kept.keep("c-1", "plan");
        kept.keep("c-2", "bad id\u{1b}");
        let again = KeptModes::open(Some(&dir));
        assert_eq!(again.get("c-1"), Some("plan"));
        assert_eq!(again.get("c-2"), None);
        std::fs::remove_dir_all(&dir).expect("removed");
        assert_eq!(KeptModes::open(None).get("c-1"), None);
    }
}
