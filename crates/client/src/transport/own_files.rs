//! The program's own folders and files (SPEC S8, S9): where they live, and how they are made.
//! A person's config names agents and token files and starts commands; the state folder holds
//! the journal of what they said, their log and the host's TLS key. Each is reached from the
//! person's own home, never from a folder someone else could make first: with `HOME` unset the
//! home comes from the password database (the temp folder was such a folder). A folder is used
//! only when it is the caller's and nobody else can write in it or above it; a file is opened
//! without following a symlink, is the caller's, and is made `0600`.

use std::ffi::{CStr, OsString};
use std::fs::{File, OpenOptions};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::privacy::{NotPrivate, current_uid};

/// The folder under the config and state homes that is this program's.
const OWN_FOLDER: &str = "collie-phone";

/// The person's home: `$HOME` when it names an absolute folder, else the password database's
/// entry for the caller's uid (SPEC S8). Never the temp folder.
pub fn home() -> Result<PathBuf, NotPrivate> {
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from)
        && home.is_absolute()
    {
        return Ok(home);
    }
    let uid = current_uid();
    match password_entry(uid) {
        Some((_, home)) if home.is_absolute() => Ok(home),
        _ => Err(NotPrivate {
            part: PathBuf::from("$HOME"),
            why: format!(
                "is not set, and the password database has no home folder for uid {uid}, so there is no folder of yours to keep the config and the state in"
            ),
            fix: Some("export HOME=/path/to/your/home".into()),
        }),
    }
}

/// The name of the user with `uid`, when the password database knows it.
pub fn user_name(uid: u32) -> Option<String> {
    password_entry(uid).map(|(name, _)| name)
}

/// `(name, home)` of `uid` in the password database.
fn password_entry(uid: u32) -> Option<(String, PathBuf)> {
    let mut buffer = vec![0_u8; 16 * 1024];
    // SAFETY: an all-zero `passwd` is a valid value to be written over by getpwuid_r.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call, the buffer's length is its own, and the
    // strings read below point into `buffer`, which outlives them.
    let status = unsafe {
        libc::getpwuid_r(
            uid,
            &mut entry,
            buffer.as_mut_ptr().cast(),
            buffer.len(),
            &mut found,
        )
    };
    if status != 0 || found.is_null() || entry.pw_dir.is_null() || entry.pw_name.is_null() {
        return None;
    }
    // SAFETY: getpwuid_r succeeded, so both are NUL-terminated strings inside `buffer`.
    let (name, dir) = unsafe { (CStr::from_ptr(entry.pw_name), CStr::from_ptr(entry.pw_dir)) };
    Some((
        name.to_string_lossy().into_owned(),
        PathBuf::from(OsString::from_vec(dir.to_bytes().to_vec())),
    ))
}

/// An XDG base folder: the variable when it names an absolute path (the XDG text: a relative
/// one is ignored), else `fallback` under the home.
fn xdg(variable: &str, fallback: &str) -> Result<PathBuf, NotPrivate> {
    match std::env::var_os(variable).map(PathBuf::from) {
        Some(path) if path.is_absolute() => Ok(path),
        _ => Ok(home()?.join(fallback)),
    }
}

/// `$XDG_CONFIG_HOME/collie-phone` (or `~/.config/collie-phone`).
pub fn config_dir() -> Result<PathBuf, NotPrivate> {
    Ok(xdg("XDG_CONFIG_HOME", ".config")?.join(OWN_FOLDER))
}

/// `$XDG_STATE_HOME/collie-phone` (or `~/.local/state/collie-phone`): the journal, the logs,
/// the host's TLS folder.
pub fn state_dir() -> Result<PathBuf, NotPrivate> {
    Ok(xdg("XDG_STATE_HOME", ".local/state")?.join(OWN_FOLDER))
}

/// Makes `folder` (and what is missing above it) with mode 0700, then checks it as
/// [`check_own_folder`] does: a folder that was there already is used only when it is ours.
/// A folder that cannot be made says the system's reason as `why`.
pub fn make_private_dir(folder: &Path) -> Result<(), NotPrivate> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(folder)
        .map_err(|e| NotPrivate {
            part: folder.to_path_buf(),
            why: e.to_string(),
            fix: None,
        })?;
    check_own_folder(folder)
}

/// SPEC S8: `folder` is a real folder (no symlink) owned by the caller that neither group nor
/// others can write in, and every folder above it is owned by the caller or root and writable
/// by nobody else unless sticky (as `/tmp` is), so nobody else can swap it for one of theirs.
pub fn check_own_folder(folder: &Path) -> Result<(), NotPrivate> {
    let uid = current_uid();
    let fail = |part: &Path, why: String, fix: Option<String>| NotPrivate {
        part: part.to_path_buf(),
        why,
        fix,
    };
    let meta = std::fs::symlink_metadata(folder)
        .map_err(|e| fail(folder, format!("cannot be read: {e}"), None))?;
    if meta.file_type().is_symlink() {
        return Err(fail(folder, "is a symlink".into(), None));
    }
    if !meta.is_dir() {
        return Err(fail(folder, "is not a folder".into(), None));
    }
    owned_and_closed(folder, &meta, uid, Part::Own)?;
    check_folders_above(folder, uid)
}

/// Every folder above `path`: the caller's or root's, writable by nobody else unless sticky.
fn check_folders_above(path: &Path, uid: u32) -> Result<(), NotPrivate> {
    let mut above = path.parent();
    while let Some(part) = above.filter(|p| !p.as_os_str().is_empty()) {
        let meta = std::fs::metadata(part).map_err(|e| NotPrivate {
            part: part.to_path_buf(),
            why: format!("cannot be read: {e}"),
            fix: None,
        })?;
        owned_and_closed(part, &meta, uid, Part::Above)?;
        above = part.parent();
    }
    Ok(())
}

/// Who may own a part besides the caller, and whether a sticky folder may be writable by all.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The program's own folder: the caller's alone.
    Own,
    /// A folder above it: the caller's or root's; writable by all only when sticky (`/tmp`).
    Above,
    /// The config file as the link points to it: the caller's or root's.
    Read,
}

/// Owned by `uid` (or root, where `part` allows) and writable by nobody else.
fn owned_and_closed(
    part: &Path,
    meta: &std::fs::Metadata,
    uid: u32,
    role: Part,
) -> Result<(), NotPrivate> {
    let owner = meta.uid();
    let above = role == Part::Above;
    if owner != uid && !(role != Part::Own && owner == 0) {
        let name = user_name(owner).map_or_else(String::new, |name| format!(" ({name})"));
        return Err(NotPrivate {
            part: part.to_path_buf(),
            why: format!(
                "is owned by uid {owner}{name}, not by you (uid {uid}), so it is not used"
            ),
            fix: (role != Part::Above).then(|| {
                format!(
                    "remove it, or move it away: mv {} {0}.not-mine",
                    part.display()
                )
            }),
        });
    }
    let mode = meta.mode();
    let sticky = above && mode & 0o1000 != 0;
    if mode & 0o022 != 0 && !sticky {
        return Err(NotPrivate {
            part: part.to_path_buf(),
            why: format!(
                "is writable by group or others (mode {:04o}), so someone else could change what is in it",
                mode & 0o7777
            ),
            fix: Some(format!("chmod go-w {}", part.display())),
        });
    }
    Ok(())
}

/// SPEC S9: a file the person's own program reads (the config): the caller's (or root's) and
/// writable by nobody else, in a folder of theirs. A symlinked config (a dotfiles folder) is
/// followed, and what it points to is what is checked.
pub fn check_own_file(path: &Path) -> Result<(), NotPrivate> {
    let real = std::fs::canonicalize(path).map_err(|e| NotPrivate {
        part: path.to_path_buf(),
        why: format!("cannot be read: {e}"),
        fix: None,
    })?;
    let meta = std::fs::metadata(&real).map_err(|e| NotPrivate {
        part: real.clone(),
        why: format!("cannot be read: {e}"),
        fix: None,
    })?;
    owned_and_closed(&real, &meta, current_uid(), Part::Read)?;
    check_folders_above(&real, current_uid())
}

/// SPEC S9: a new file, 0600, never one that was there (`O_EXCL`), never through a symlink.
pub fn create_new(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// SPEC S9: a file of the program's that lives on (a log, the journal, a lock): made 0600 when
/// missing, never opened through a symlink, and used only when it is a plain file of the
/// caller's that group and others cannot read.
pub fn open_own(path: &Path, append: bool) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    if append {
        options.append(true);
    } else {
        options.write(true).truncate(false);
    }
    let file = options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) {
            std::io::Error::new(
                e.kind(),
                format!("{} is a symlink, so it is not opened", path.display()),
            )
        } else {
            e
        }
    })?;
    let meta = file.metadata()?;
    let uid = current_uid();
    let refused = if !meta.is_file() {
        Some("is not a plain file".to_string())
    } else if meta.uid() != uid {
        Some(format!(
            "is owned by uid {}, not by you (uid {uid})",
            meta.uid()
        ))
    } else if meta.mode() & 0o077 != 0 {
        Some(format!(
            "has mode {:04o}: group or others can read it (chmod 600 {})",
            meta.mode() & 0o7777,
            path.display()
        ))
    } else {
        None
    };
    match refused {
        Some(why) => Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("{} {why}, so it is not used", path.display()),
        )),
        None => Ok(file),
    }
}

/// A private scratch folder of its own (0700, a random name) in the temp folder, for a
/// command's throwaway files: nobody else can guess its name or plant anything in it.
/// (tempfile makes its folders as the umask says, 0755 as a rule: the mode is asked for.)
pub fn scratch_dir(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }

    #[test]
    fn s8_the_home_without_home_comes_from_the_password_database() {
        // The caller's own entry: a machine that runs the tests has one for its user.
        let (_, home) = password_entry(current_uid()).expect("an entry for this user");
        assert!(home.is_absolute());
    }

    #[test]
    fn s8_a_folder_made_here_is_private_and_passes() {
        let dir = tempfile::tempdir().expect("temp");
        let folder = dir.path().join("state").join("collie-phone");
        make_private_dir(&folder).expect("made");
        let mode = std::fs::metadata(&folder).expect("meta").mode() & 0o777;
        assert_eq!(mode, 0o700);
    }

    #[test]
    fn s8_a_folder_others_can_write_in_is_refused_with_the_fix() {
        let dir = tempfile::tempdir().expect("temp");
        let folder = dir.path().join("collie-phone");
        std::fs::create_dir(&folder).expect("mkdir");
        chmod(&folder, 0o777);
        let refused = make_private_dir(&folder).expect_err("refused");
        assert!(
            refused.why.contains("writable by group or others"),
            "{refused}"
        );
        assert_eq!(
            refused.fix,
            Some(format!("chmod go-w {}", folder.display()))
        );
    }

    #[test]
    fn s8_a_symlinked_folder_is_refused() {
        let dir = tempfile::tempdir().expect("temp");
        let real = dir.path().join("real");
        std::fs::create_dir(&real).expect("mkdir");
        chmod(&real, 0o700);
        let link = dir.path().join("collie-phone");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        let refused = make_private_dir(&link).expect_err("refused");
        assert_eq!(refused.why, "is a symlink");
    }

    #[test]
    fn s8_a_writable_folder_above_without_sticky_is_refused() {
        let dir = tempfile::tempdir().expect("temp");
        let shared = dir.path().join("shared");
        std::fs::create_dir(&shared).expect("mkdir");
        chmod(&shared, 0o777);
        let refused = make_private_dir(&shared.join("collie-phone")).expect_err("refused");
        assert_eq!(refused.part, shared);
        chmod(&shared, 0o1777);
        make_private_dir(&shared.join("collie-phone")).expect("sticky is fine");
    }

    #[test]
    fn s9_a_scratch_folder_is_0700_whatever_the_umask() {
        let scratch = scratch_dir("collie-test-").expect("made");
        let mode = std::fs::metadata(scratch.path()).expect("meta").mode() & 0o777;
        assert_eq!(mode, 0o700);
    }

    #[test]
    fn s9_create_new_never_takes_a_file_or_a_symlink_that_was_there() {
        let dir = tempfile::tempdir().expect("temp");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep me").expect("write");
        let planted = dir.path().join("intents.jsonl.tmp");
        std::os::unix::fs::symlink(&victim, &planted).expect("symlink");
        assert!(create_new(&planted).is_err());
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep me");
        let fresh = dir.path().join("fresh");
        create_new(&fresh).expect("new");
        assert_eq!(
            std::fs::metadata(&fresh).expect("meta").mode() & 0o777,
            0o600
        );
        assert!(create_new(&fresh).is_err(), "a second time: it is there");
    }

    #[test]
    fn s9_open_own_refuses_a_symlink_and_a_readable_file() {
        let dir = tempfile::tempdir().expect("temp");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep me").expect("write");
        let planted = dir.path().join("phone.log");
        std::os::unix::fs::symlink(&victim, &planted).expect("symlink");
        let refused = open_own(&planted, true).expect_err("a symlink");
        assert!(refused.to_string().contains("is a symlink"), "{refused}");
        let open = dir.path().join("open.log");
        std::fs::write(&open, "").expect("write");
        chmod(&open, 0o644);
        let refused = open_own(&open, true).expect_err("readable by others");
        assert!(
            refused.to_string().contains("group or others can read it"),
            "{refused}"
        );
        let made = open_own(&dir.path().join("new.log"), true).expect("made");
        assert_eq!(made.metadata().expect("meta").mode() & 0o777, 0o600);
    }

    #[test]
    fn s9_a_config_others_can_write_is_refused_a_symlinked_one_is_followed() {
        let dir = tempfile::tempdir().expect("temp");
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "").expect("write");
        chmod(&file, 0o644);
        check_own_file(&file).expect("readable by others is fine: it holds no secret");
        let link = dir.path().join("linked.toml");
        std::os::unix::fs::symlink(&file, &link).expect("symlink");
        check_own_file(&link).expect("a dotfiles link is followed");
        chmod(&file, 0o666);
        let refused = check_own_file(&link).expect_err("writable by others");
        assert!(
            refused.why.contains("writable by group or others"),
            "{refused}"
        );
    }
}
