//! Which receipts journal a headless command uses, and how it shares it.
//!
//! The journal (`engine::journal`) appends with O_APPEND, so appends of two processes never tear
//! each other; but opening it compacts it by writing a new file and renaming it over the old
//! one, and a process that already had the old file open goes on appending to a file nobody
//! reads. So every command that sends takes an exclusive advisory lock on `intents.jsonl.lock`
//! for as long as it runs: two scripts take turns instead of losing each other's receipts.
//! Commands that only read (asks, watch) send nothing, so they keep a throwaway journal of
//! their own and never touch the shared one.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::engine::Journal;

/// How long a command waits for another one to let go of the journal.
const LOCK_PATIENCE: Duration = Duration::from_secs(120);
const LOCK_POLL: Duration = Duration::from_millis(50);

/// A journal this process may use, held until dropped.
pub enum JournalHold {
    /// The phone's own receipts, locked against other headless commands.
    Shared { path: PathBuf, _lock: File },
    /// A private folder for a command that sends nothing; removed when dropped.
    Scratch { folder: PathBuf },
}

impl JournalHold {
    /// The phone's journal (`Journal::default_path()`), once no other command holds it.
    pub fn shared() -> anyhow::Result<Self> {
        let path = Journal::default_path();
        let lock_path = path.with_extension("jsonl.lock");
        if let Some(folder) = path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(folder)
                .with_context(|| format!("could not create {}", folder.display()))?;
        }
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&lock_path)
            .with_context(|| format!("could not open {}", lock_path.display()))?;
        let until = Instant::now() + LOCK_PATIENCE;
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if Instant::now() < until => {
                    std::thread::sleep(LOCK_POLL);
                }
                Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
                    "another collie-phone command has held the receipts journal ({}) for {} s; wait for it to finish, then run this again",
                    lock_path.display(),
                    LOCK_PATIENCE.as_secs()
                ),
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(e)
                        .with_context(|| format!("could not lock {}", lock_path.display()));
                }
            }
        }
        Ok(Self::Shared { path, _lock: lock })
    }

    /// A journal of this process alone, in a fresh private folder.
    pub fn scratch() -> anyhow::Result<Self> {
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

    pub fn path(&self) -> PathBuf {
        match self {
            Self::Shared { path, .. } => path.clone(),
            Self::Scratch { folder } => folder.join("intents.jsonl"),
        }
    }

    pub fn shown(&self) -> String {
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
