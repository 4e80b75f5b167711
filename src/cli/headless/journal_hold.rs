//! Which receipts journal a headless command uses.
//!
//! A command that sends uses the phone's own journal, even while the phone or another script
//! holds it: the journal takes care of sharing (see `engine::journal`). Commands that only read
//! (asks, watch) send nothing, so they keep a throwaway journal of their own and never touch
//! the shared one.

use std::os::unix::fs::DirBuilderExt;
use std::path::PathBuf;

use anyhow::Context;

use crate::engine::Journal;

/// A journal this process may use, held until dropped.
pub(crate) enum JournalHold {
    /// The phone's own receipts.
    Shared { path: PathBuf },
    /// A private folder for a command that sends nothing; removed when dropped.
    Scratch { folder: PathBuf },
}

impl JournalHold {
    /// The phone's journal (`Journal::default_path()`).
    pub(crate) fn shared() -> anyhow::Result<Self> {
        Ok(Self::Shared {
            path: Journal::default_path().map_err(crate::cli::phone_cmd::not_yours)?,
        })
    }

    /// A journal of this process alone, in a fresh private folder.
    pub(crate) fn scratch() -> anyhow::Result<Self> {
        let name = format!(
            "collie-phone-{}-{}",
            std::process::id(),
            hex::encode(rand::random::<[u8; 6]>())
        );
        let folder = std::env::temp_dir().join(name);
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&folder)
            .with_context(|| format!("could not create {}", folder.display()))?;
        Ok(Self::Scratch { folder })
    }

    pub(crate) fn path(&self) -> PathBuf {
        match self {
            Self::Shared { path, .. } => path.clone(),
            Self::Scratch { folder } => folder.join("intents.jsonl"),
        }
    }

    pub(crate) fn shown(&self) -> String {
        match self {
            Self::Shared { path, .. } => path.display().to_string(),
            Self::Scratch { .. } => "a throwaway journal".into(),
        }
    }
}

impl Drop for JournalHold {
    fn drop(&mut self) {
        if let Self::Scratch { folder } = self
            && let Err(e) = std::fs::remove_dir_all(folder.as_path())
        {
            tracing::warn!("could not remove {}: {e}", folder.display());
        }
    }
}
