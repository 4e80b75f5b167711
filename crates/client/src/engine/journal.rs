//! The intent journal (SPEC Q2): a receipt of every request id, fsynced before the request
//! leaves, and its outcome after. After a crash, intents without an outcome come back as
//! `unknown` and keep their request id, so a retry is still at most once.
//!
//! Several processes may hold it at once (the phone and a script's `collie-phone answer`).
//! Appends use O_APPEND, so lines never tear each other. Compacting rewrites the file and
//! renames it over the old one, which would leave every other holder appending to a file
//! nobody reads; so each holder keeps a shared lock on `intents.jsonl.lock` while it is open,
//! and only a process that finds no other holder (an exclusive lock) compacts.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use super::intent::{IntentKind, IntentState};
use crate::transport::NotPrivate;
use crate::transport::own_files;

/// Final intents kept when the journal is compacted at start.
const KEEP_FINAL: usize = 500;

/// One intent as the journal knows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntentRecord {
    pub request_id: String,
    /// The agent's name, as configured.
    pub agent: String,
    pub kind: IntentKind,
    /// Tries that reached the agent or may have (SPEC Q5 allows two).
    pub attempts: u32,
    pub state: IntentState,
    pub created_at: String,
    /// True while the engine checks an unknown outcome by itself (SPEC Q4, `intent::CHECKS_AFTER`):
    /// the person need not retry. Never written to the journal: after a restart the engine
    /// decides again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub checking: bool,
    /// The agent's epoch when its last try left, when known: its memory of request ids belongs
    /// to that epoch (SPEC Q3), so the engine checks an unknown outcome only while the agent is
    /// still in it. Absent in journals of earlier versions, which are read as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch: Option<String>,
}

/// One line of the journal.
// Each line is built once and written (or read once and dropped): boxing the record would cost
// an allocation per line for no gain.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
enum Line {
    Created {
        record: IntentRecord,
    },
    Attempt {
        request_id: String,
        attempt: u32,
        /// The agent's epoch the try goes to (absent in earlier journals).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        epoch: Option<String>,
    },
    Outcome {
        request_id: String,
        state: IntentState,
    },
}

pub struct Journal {
    path: PathBuf,
    file: File,
    /// Held shared for as long as this journal is open, so nobody compacts under it.
    _holder: File,
}

#[derive(Debug, thiserror::Error)]
#[error("the intent journal {path}: {source}")]
pub(crate) struct JournalError {
    path: String,
    source: std::io::Error,
}

impl Journal {
    /// The default place: `$XDG_STATE_HOME/collie-phone/intents.jsonl`
    /// (or `~/.local/state/collie-phone/intents.jsonl`), never in a folder someone else could
    /// make first (SPEC S8).
    pub fn default_path() -> Result<PathBuf, NotPrivate> {
        Ok(own_files::state_dir()?.join("intents.jsonl"))
    }

    /// Opens (creating) the journal and recovers what it holds; compacts it when no other
    /// process has it open.
    pub(crate) fn open(path: &Path) -> Result<(Self, Vec<IntentRecord>), JournalError> {
        let fail = |source| JournalError {
            path: path.display().to_string(),
            source,
        };
        if let Some(folder) = path.parent() {
            own_files::make_private_dir(folder)
                .map_err(|refused| fail(std::io::Error::other(refused.to_string())))?;
        }
        let holder =
            own_files::open_own(&path.with_extension("jsonl.lock"), false).map_err(fail)?;
        let alone = match holder.try_lock() {
            Ok(()) => true,
            Err(std::fs::TryLockError::WouldBlock) => false,
            Err(std::fs::TryLockError::Error(e)) => return Err(fail(e)),
        };
        let records = match File::open(path) {
            Ok(file) => recover(BufReader::new(file)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(fail(e)),
        };
        let records = if alone {
            let kept = compact(records);
            rewrite(path, &kept).map_err(fail)?;
            kept
        } else {
            records
        };
        // From exclusive (or none) to shared: another process may compact in the gap, so the
        // file is opened only once the shared lock is held, when nobody can any more.
        holder.lock_shared().map_err(fail)?;
        let file = own_files::open_own(path, true).map_err(fail)?;
        Ok((
            Self {
                path: path.to_path_buf(),
                file,
                _holder: holder,
            },
            records,
        ))
    }

    /// Writes the receipt of a new intent and syncs it to disk before it may be sent (SPEC Q2).
    pub(crate) fn created(&mut self, record: &IntentRecord) -> Result<(), JournalError> {
        self.append(&Line::Created {
            record: record.clone(),
        })
    }

    /// Notes that try number `attempt` is about to leave, synced, so a crash can never lead
    /// to a third send (SPEC Q5).
    pub(crate) fn attempt(
        &mut self,
        request_id: &str,
        attempt: u32,
        epoch: Option<&str>,
    ) -> Result<(), JournalError> {
        self.append(&Line::Attempt {
            request_id: request_id.to_string(),
            attempt,
            epoch: epoch.map(str::to_string),
        })
    }

    pub(crate) fn outcome(
        &mut self,
        request_id: &str,
        state: &IntentState,
    ) -> Result<(), JournalError> {
        self.append(&Line::Outcome {
            request_id: request_id.to_string(),
            state: state.clone(),
        })
    }

    fn append(&mut self, line: &Line) -> Result<(), JournalError> {
        let fail = |source| JournalError {
            path: self.path.display().to_string(),
            source,
        };
        let mut text = clean_line(line).map_err(|e| fail(std::io::Error::other(e)))?;
        text.push('\n');
        self.file.write_all(text.as_bytes()).map_err(fail)?;
        self.file.sync_data().map_err(fail)
    }
}

/// One journal line as JSON, every string cleaned and scrubbed (SPEC L1, T2): an outcome's
/// summary is the agent's words, and an agent that echoes the request's `Authorization` must
/// not get the token into a file.
fn clean_line(line: &Line) -> Result<String, serde_json::Error> {
    let value = crate::out::json(serde_json::to_value(line)?);
    serde_json::to_string(&value)
}

/// Rebuilds every intent from the lines; a torn last line (a crash mid-write) is skipped.
fn recover(reader: impl BufRead) -> Vec<IntentRecord> {
    let mut records: BTreeMap<String, (usize, IntentRecord)> = BTreeMap::new();
    let mut order = 0;
    for line in reader.lines() {
        let Ok(line) = line else { break };
        let Ok(entry) = serde_json::from_str::<Line>(&line) else {
            tracing::warn!("skipping an unreadable line of the intent journal");
            continue;
        };
        match entry {
            Line::Created { record } => {
                order += 1;
                records.insert(record.request_id.clone(), (order, record));
            }
            Line::Attempt {
                request_id,
                attempt,
                epoch,
            } => {
                if let Some((_, record)) = records.get_mut(&request_id) {
                    record.attempts = record.attempts.max(attempt);
                    record.state = IntentState::Sending;
                    record.epoch = epoch;
                }
            }
            Line::Outcome { request_id, state } => {
                if let Some((_, record)) = records.get_mut(&request_id) {
                    if matches!(state, IntentState::NotSent { .. })
                        && matches!(record.state, IntentState::Sending)
                    {
                        // That try never reached the agent, so it does not count (SPEC Q5).
                        // Without an attempt line before it, it never counted at all.
                        record.attempts = record.attempts.saturating_sub(1);
                    }
                    record.state = state;
                }
            }
        }
    }
    let mut list: Vec<(usize, IntentRecord)> = records.into_values().collect();
    list.sort_by_key(|(order, _)| *order);
    list.into_iter()
        .map(|(_, mut record)| {
            record.state = match record.state {
                // Sent, or about to be, when collie-phone stopped: nobody knows (SPEC Q4).
                IntentState::Sending => IntentState::Unknown {
                    why: "collie-phone stopped before the agent's reply arrived".into(),
                },
                IntentState::Created => IntentState::NotSent {
                    why: "collie-phone stopped before sending it".into(),
                },
                other => other,
            };
            record
        })
        .collect()
}

/// Keeps every open intent and the newest final ones.
fn compact(records: Vec<IntentRecord>) -> Vec<IntentRecord> {
    let finals = records.iter().filter(|r| r.state.is_final()).count();
    let mut skip = finals.saturating_sub(KEEP_FINAL);
    records
        .into_iter()
        .filter(|r| {
            if r.state.is_final() && skip > 0 {
                skip -= 1;
                false
            } else {
                true
            }
        })
        .collect()
}

/// Writes the compacted journal atomically: temp file, fsync, rename, fsync the folder.
fn rewrite(path: &Path, records: &[IntentRecord]) -> std::io::Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    // SPEC S9: the new journal is written to a file made new under a random name (O_EXCL),
    // never to a fixed name someone could have planted a symlink at, then renamed over the old.
    let mut temp = tempfile::Builder::new()
        .prefix(".intents-")
        .suffix(".tmp")
        .tempfile_in(folder)?;
    for record in records {
        let mut text = clean_line(&Line::Created {
            record: record.clone(),
        })
        .map_err(std::io::Error::other)?;
        text.push('\n');
        temp.write_all(text.as_bytes())?;
    }
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    File::open(folder)?.sync_all()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> IntentRecord {
        IntentRecord {
            request_id: id.into(),
            agent: "a".into(),
            kind: IntentKind::Abort {
                pane: "p".into(),
                turn_id: "t".into(),
            },
            attempts: 0,
            state: IntentState::Created,
            created_at: "2026-11-29T00:00:00Z".into(),
            checking: false,
            epoch: None,
        }
    }

    /// SPEC S9: a link planted where the old rewrite wrote (`intents.jsonl.tmp`) or at the
    /// journal itself never makes the journal write into another file.
    #[test]
    fn s9_a_planted_link_never_takes_the_journals_writes() {
        let dir = tempfile::tempdir().expect("dir");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep me").expect("write");
        let folder = dir.path().join("state");
        std::fs::create_dir(&folder).expect("mkdir");
        let path = folder.join("intents.jsonl");
        std::os::unix::fs::symlink(&victim, folder.join("intents.jsonl.tmp")).expect("link");
        {
            let (mut journal, _) = Journal::open(&path).expect("open");
            journal.created(&record("r-1")).expect("created");
        }
        // The compaction on the next open rewrites the journal under a fresh name.
        let (_journal, records) = Journal::open(&path).expect("reopen");
        assert_eq!(records.len(), 1);
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep me");
        drop(_journal);
        std::fs::remove_file(&path).expect("rm");
        std::os::unix::fs::symlink(&victim, &path).expect("link");
        // Alone, the compaction renames a new journal over the link (not through it); with
        // another holder, the link is refused when opened to append.
        let (mut journal, _) = Journal::open(&path).expect("open");
        journal.created(&record("r-2")).expect("created");
        assert!(
            !path
                .symlink_metadata()
                .expect("meta")
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep me");
    }

    #[test]
    fn q2_crash_after_send_comes_back_unknown_with_same_id() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("state/intents.jsonl");
        {
            let (mut journal, old) = Journal::open(&path).expect("open");
            assert!(old.is_empty());
            journal.created(&record("r-1")).expect("created");
            journal.attempt("r-1", 1, None).expect("attempt");
            journal.created(&record("r-2")).expect("created");
            journal.created(&record("r-3")).expect("created");
            journal.attempt("r-3", 1, None).expect("attempt");
            journal
                .outcome("r-3", &IntentState::TooLate)
                .expect("outcome");
        }
        let (_journal, records) = Journal::open(&path).expect("reopen");
        assert_eq!(records.len(), 3);
        assert!(matches!(records[0].state, IntentState::Unknown { .. }));
        assert_eq!(records[0].request_id, "r-1");
        assert_eq!(records[0].attempts, 1);
        assert!(matches!(records[1].state, IntentState::NotSent { .. }));
        assert_eq!(records[2].state, IntentState::TooLate);
    }

    #[test]
    fn q5_a_retry_that_never_left_keeps_the_first_try_counted() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("intents.jsonl");
        {
            let (mut journal, _) = Journal::open(&path).expect("open");
            journal.created(&record("r-1")).expect("created");
            journal.attempt("r-1", 1, None).expect("attempt");
            let unknown = IntentState::Unknown { why: "cut".into() };
            journal.outcome("r-1", &unknown).expect("outcome");
            // The person's retry found the agent not connected: no attempt line, no try.
            let down = IntentState::NotSent { why: "down".into() };
            journal.outcome("r-1", &down).expect("outcome");
            // A second one met 503 starting after its attempt line: that try does not count.
            journal.attempt("r-1", 2, None).expect("attempt");
            journal.outcome("r-1", &down).expect("outcome");
        }
        let (_journal, records) = Journal::open(&path).expect("reopen");
        assert_eq!(records[0].attempts, 1, "the first try still counts");
    }

    #[test]
    fn q2_a_second_holder_never_compacts_under_the_first() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("intents.jsonl");
        let (mut phone, _) = Journal::open(&path).expect("open");
        phone.created(&record("r-1")).expect("created");
        // A script opens the same journal while the phone holds it, and writes its own.
        let (mut script, seen) = Journal::open(&path).expect("second open");
        assert_eq!(seen.len(), 1);
        script.created(&record("r-2")).expect("created");
        drop(script);
        // The phone's later lines land in the file everyone reads.
        phone.attempt("r-1", 1, None).expect("attempt");
        phone
            .outcome("r-1", &IntentState::TooLate)
            .expect("outcome");
        drop(phone);
        let (_journal, records) = Journal::open(&path).expect("reopen");
        let states: Vec<(&str, &IntentState)> = records
            .iter()
            .map(|r| (r.request_id.as_str(), &r.state))
            .collect();
        assert_eq!(states.len(), 2, "{states:?}");
        assert_eq!(states[0], ("r-1", &IntentState::TooLate));
        assert_eq!(states[1].0, "r-2");
    }

    #[test]
    fn q4_the_epoch_of_a_try_survives_a_restart_and_a_compaction_and_old_lines_still_read() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("intents.jsonl");
        {
            let (mut journal, _) = Journal::open(&path).expect("open");
            journal.created(&record("r-1")).expect("created");
            journal.attempt("r-1", 1, Some("e-1")).expect("attempt");
        }
        // A line as an earlier version wrote it: no epoch.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        let mut old = serde_json::to_value(Line::Created {
            record: record("r-2"),
        })
        .expect("json");
        old["record"]
            .as_object_mut()
            .expect("record")
            .remove("epoch");
        writeln!(file, "{old}").expect("write");
        let old_attempt = serde_json::json!({"op": "attempt", "request_id": "r-2", "attempt": 1});
        writeln!(file, "{old_attempt}").expect("write");
        drop(file);
        // Opened twice: the second open reads the compacted file the first one wrote.
        for _ in 0..2 {
            let (_journal, records) = Journal::open(&path).expect("reopen");
            assert_eq!(records.len(), 2);
            assert_eq!(records[0].epoch.as_deref(), Some("e-1"));
            assert!(!records[0].checking);
            assert!(matches!(records[0].state, IntentState::Unknown { .. }));
            assert_eq!(records[1].epoch, None);
            assert!(matches!(records[1].state, IntentState::Unknown { .. }));
        }
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(!text.contains("checking"), "{text}");
    }

    #[test]
    fn torn_last_line_is_skipped() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("intents.jsonl");
        {
            let (mut journal, _) = Journal::open(&path).expect("open");
            journal.created(&record("r-1")).expect("created");
        }
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        file.write_all(b"{\"op\":\"attempt\",\"requ")
            .expect("write");
        let (_journal, records) = Journal::open(&path).expect("reopen");
        assert_eq!(records.len(), 1);
    }
}
