//! Keeps the agent's layout in `state_dir/world.json` across restarts (SPEC A9, H3, H5).
//!
//! Writes are atomic (temp file in the same folder, fsync, rename, fsync the folder), so a kill
//! at any moment leaves either the old file or the new one. They happen on a writer thread so a
//! tick under the server's lock only pays for serializing, and at most every
//! [`SAVE_EVERY`], and only when the world changed.

use serde::{Deserialize, Serialize};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use time::OffsetDateTime;

use super::world::{Layout, World};

pub const STATE_FILE: &str = "world.json";
/// The least time between two writes.
pub(crate) const SAVE_EVERY: time::Duration = time::Duration::seconds(1);
/// The shape of `world.json`; a file of another format is moved aside like a corrupt one.
const FORMAT: u32 = 1;
const TEMP_PREFIX: &str = ".world.json.tmp-";

#[derive(Serialize, Deserialize)]
struct StoredWorld {
    format: u32,
    saved_at: String,
    layout: Layout,
}

/// A cheap summary of everything a save would write: every change either moves `rev` or adds
/// an event to some pane (SPEC H4), and a closed pane moves `rev`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    rev: u64,
    events: u64,
    next_id: u64,
}

impl Mark {
    fn of(world: &World) -> Self {
        Self {
            rev: world.rev,
            events: world.layout.panes.values().map(|p| p.last_seq).sum(),
            next_id: world.layout.next_id,
        }
    }
}

/// What was found on disk at start.
#[derive(Debug)]
pub enum Found {
    Nothing,
    Layout(Box<Layout>),
    /// The file could not be read as a layout; it was moved aside (the log says where).
    Corrupt,
}

/// Bytes waiting for the writer, newest wins.
#[derive(Default)]
struct Pending {
    bytes: Option<(u64, Vec<u8>)>,
    stopping: bool,
}

struct Shared {
    pending: Mutex<Pending>,
    wake: Condvar,
    /// The generation on disk. Held while writing, so the writer and a flush never interleave.
    written: Mutex<u64>,
    generations: AtomicU64,
}

pub struct Store {
    dir: PathBuf,
    shared: Arc<Shared>,
    writer: Option<JoinHandle<()>>,
    saved: Option<Mark>,
    last_save: Option<OffsetDateTime>,
}

impl Store {
    /// Opens (and creates, mode 0700) the state folder and clears temp files a killed writer
    /// left behind.
    pub fn open(dir: &Path) -> anyhow::Result<Self> {
        create_private_dir(dir)?;
        remove_stale_temps(dir);
        let shared = Arc::new(Shared {
            pending: Mutex::new(Pending::default()),
            wake: Condvar::new(),
            written: Mutex::new(0),
            generations: AtomicU64::new(0),
        });
        let writer = {
            let shared = Arc::clone(&shared);
            let dir = dir.to_path_buf();
            std::thread::Builder::new()
                .name("agent-store".into())
                .spawn(move || write_loop(&dir, &shared))
                .map_err(|e| anyhow::anyhow!("cannot start the state writer: {e}"))?
        };
        Ok(Self {
            dir: dir.to_path_buf(),
            shared,
            writer: Some(writer),
            saved: None,
            last_save: None,
        })
    }

    pub(crate) fn file(&self) -> PathBuf {
        self.dir.join(STATE_FILE)
    }

    /// Reads `world.json`. A file that is not a layout is moved aside as
    /// `world.json.corrupt-<time>` and the agent starts fresh; it never stops the agent.
    pub fn load(&self, now: OffsetDateTime) -> anyhow::Result<Found> {
        let path = self.file();
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Nothing),
            Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
        };
        let why = match serde_json::from_slice::<StoredWorld>(&bytes) {
            Ok(stored) if stored.format == FORMAT => {
                return Ok(Found::Layout(Box::new(stored.layout)));
            }
            Ok(stored) => format!("format {} is not {FORMAT}", stored.format),
            Err(e) => e.to_string(),
        };
        let aside = self
            .dir
            .join(format!("{STATE_FILE}.corrupt-{}", file_time(now)));
        let aside = unused_path(aside);
        fs::rename(&path, &aside).map_err(|e| {
            anyhow::anyhow!(
                "{} is corrupt ({why}) and cannot be moved aside: {e}",
                path.display()
            )
        })?;
        tracing::error!(file = %path.display(), moved_to = %aside.display(), %why, "the saved world is corrupt; starting fresh");
        Ok(Found::Corrupt)
    }

    /// Hands the layout to the writer if the world changed and the last save is old enough.
    /// Cheap when nothing is due.
    pub(crate) fn save_if_due(&mut self, world: &World, now: OffsetDateTime) {
        if self.last_save.is_some_and(|last| now - last < SAVE_EVERY) {
            return;
        }
        let mark = Mark::of(world);
        if self.saved == Some(mark) {
            return;
        }
        match encode(&world.layout, now) {
            Ok(bytes) => {
                let generation = self.shared.generations.fetch_add(1, Ordering::SeqCst) + 1;
                let mut pending = self
                    .shared
                    .pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                pending.bytes = Some((generation, bytes));
                self.shared.wake.notify_one();
            }
            Err(e) => tracing::error!(error = %e, "cannot encode the world to save it"),
        }
        self.saved = Some(mark);
        self.last_save = Some(now);
    }

    /// Writes the layout now and waits until it is on disk (for a clean stop).
    pub fn flush(&mut self, world: &World, now: OffsetDateTime) -> anyhow::Result<()> {
        let bytes = encode(&world.layout, now)?;
        let generation = self.shared.generations.fetch_add(1, Ordering::SeqCst) + 1;
        {
            // Anything still pending is older than what we write now.
            let mut pending = self
                .shared
                .pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            pending.bytes = None;
        }
        let mut written = self
            .shared
            .written
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if *written < generation {
            write_atomic(&self.dir, &bytes)?;
            *written = generation;
        }
        self.saved = Some(Mark::of(world));
        self.last_save = Some(now);
        Ok(())
    }
}

impl Drop for Store {
    /// Lets the writer finish what is pending, then stops it.
    fn drop(&mut self) {
        {
            let mut pending = self
                .shared
                .pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            pending.stopping = true;
            self.shared.wake.notify_one();
        }
        if let Some(writer) = self.writer.take()
            && writer.join().is_err()
        {
            tracing::error!("the state writer panicked");
        }
    }
}

fn write_loop(dir: &Path, shared: &Shared) {
    loop {
        let (generation, bytes) = {
            let mut pending = shared
                .pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            loop {
                if let Some(next) = pending.bytes.take() {
                    break next;
                }
                if pending.stopping {
                    return;
                }
                pending = shared
                    .wake
                    .wait(pending)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        let mut written = shared
            .written
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if *written >= generation {
            continue;
        }
        match write_atomic(dir, &bytes) {
            Ok(()) => *written = generation,
            Err(e) => tracing::error!(dir = %dir.display(), error = %e, "cannot save the world"),
        }
    }
}

fn encode(layout: &Layout, now: OffsetDateTime) -> anyhow::Result<Vec<u8>> {
    #[derive(Serialize)]
    struct Borrowed<'a> {
        format: u32,
        saved_at: String,
        layout: &'a Layout,
    }
    Ok(serde_json::to_vec(&Borrowed {
        format: FORMAT,
        saved_at: crate::wire::time::format(now),
        layout,
    })?)
}

/// Temp file in the same folder, write, fsync, rename over the state file, fsync the folder:
/// after a crash the file is the old one or the new one, never a mix.
pub(crate) fn write_atomic(dir: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static TEMPS: AtomicU64 = AtomicU64::new(0);
    let temp = dir.join(format!(
        "{TEMP_PREFIX}{}-{}",
        std::process::id(),
        TEMPS.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, dir.join(STATE_FILE))?;
        fs::File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        // The rename may not have happened; a left temp file would only confuse.
        let _ = fs::remove_file(&temp);
    }
    result
}

/// SPEC S8: the state folder is made 0700, and one that was there is used only when it is the
/// caller's and nobody else can write in it (it holds the journal of what people said).
fn create_private_dir(dir: &Path) -> anyhow::Result<()> {
    crate::transport::own_files::make_private_dir(dir)
        .map_err(|refused| anyhow::anyhow!("the state folder is not used: {}", refused.with_fix()))
}

fn remove_stale_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX)
            && let Err(e) = fs::remove_file(entry.path())
        {
            tracing::warn!(file = %entry.path().display(), error = %e, "cannot remove a stale temp file");
        }
    }
}

/// `20260102T030405Z`: sortable, and no `:` for file systems that dislike it.
fn file_time(now: OffsetDateTime) -> String {
    let utc = now.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        utc.year(),
        u8::from(utc.month()),
        utc.day(),
        utc.hour(),
        utc.minute(),
        utc.second()
    )
}

/// `path`, or `path-2`, `path-3`, … if taken.
fn unused_path(path: PathBuf) -> PathBuf {
    if !path.exists() {
        return path;
    }
    (2..)
        .map(|n| PathBuf::from(format!("{}-{n}", path.display())))
        .find(|candidate| !candidate.exists())
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> OffsetDateTime {
        time::macros::datetime!(2026-01-02 03:04:05 UTC)
    }

    /// A world with nothing in it: what is saved matters here, not what plays it (a played
    /// world's round trip is proven beside the play, in `rigs`).
    fn empty_world() -> World {
        World::new(Layout::default(), true)
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .expect("lists")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn atomic_write_leaves_no_temp_files() {
        let dir = tempfile::tempdir().expect("temp dir");
        let world = empty_world();
        {
            let mut store = Store::open(dir.path()).expect("opens");
            store.save_if_due(&world, at());
            store.flush(&world, at()).expect("flushes");
        }
        assert_eq!(names(dir.path()), vec![STATE_FILE.to_string()]);
        write_atomic(dir.path(), b"{}").expect("writes");
        assert_eq!(names(dir.path()), vec![STATE_FILE.to_string()]);
    }

    #[test]
    fn stale_temp_files_are_cleared_on_open() {
        let dir = tempfile::tempdir().expect("temp dir");
        fs::write(dir.path().join(format!("{TEMP_PREFIX}99-0")), b"half a wri").expect("writes");
        let _store = Store::open(dir.path()).expect("opens");
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn corrupt_file_is_moved_aside_and_start_is_fresh() {
        let dir = tempfile::tempdir().expect("temp dir");
        fs::write(dir.path().join(STATE_FILE), b"{\"format\":1,\"layout\":").expect("writes");
        let store = Store::open(dir.path()).expect("opens");
        let found = store.load(at()).expect("never fails on corruption");
        assert!(matches!(found, Found::Corrupt), "expected corruption");
        assert_eq!(names(dir.path()), ["world.json.corrupt-20260102T030405Z"]);
        assert!(!store.file().exists());
        fs::write(
            dir.path().join(STATE_FILE),
            b"{\"format\":99,\"saved_at\":\"\",\"layout\":{}}",
        )
        .expect("writes");
        let found = store.load(at()).expect("loads");
        assert!(
            matches!(found, Found::Corrupt),
            "another format is set aside"
        );
        assert_eq!(names(dir.path()).len(), 2, "{:?}", names(dir.path()));
        assert!(matches!(store.load(at()).expect("loads"), Found::Nothing));
    }

    #[test]
    fn saves_only_on_change_and_not_too_often() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut world = empty_world();
        let mut store = Store::open(dir.path()).expect("opens");
        store.save_if_due(&world, at());
        assert_eq!(store.last_save, Some(at()));
        store.save_if_due(&world, at() + time::Duration::seconds(1));
        assert_eq!(store.last_save, Some(at()), "nothing changed");
        world.add_workspace("New");
        store.save_if_due(&world, at() + time::Duration::milliseconds(1100));
        assert_eq!(
            store.last_save,
            Some(at() + time::Duration::milliseconds(1100))
        );
        world.add_workspace("Newer");
        store.save_if_due(&world, at() + time::Duration::milliseconds(1200));
        assert_eq!(
            store.last_save,
            Some(at() + time::Duration::milliseconds(1100)),
            "too soon"
        );
        drop(store);
        let store = Store::open(dir.path()).expect("opens");
        let Found::Layout(layout) = store.load(at()).expect("loads") else {
            panic!("saved")
        };
        assert_eq!(
            layout.workspaces.len(),
            1,
            "the writer finished before it stopped"
        );
    }

    #[cfg(unix)]
    #[test]
    fn state_folder_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let state = dir.path().join("a").join("state");
        let _store = Store::open(&state).expect("opens");
        let mode = fs::metadata(&state).expect("exists").permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}
