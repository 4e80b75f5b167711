//! The socket privacy check of SPEC S3, run before every connection (S4).

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Component, Path, PathBuf};

use crate::wire::limits::MAX_SOCKET_PATH;

/// The part of a socket path that failed SPEC S1/S3, and why, in words a person can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{part}: {why}")]
pub struct NotPrivate {
    pub part: PathBuf,
    pub why: String,
    /// A command that fixes it, when there is one.
    pub fix: Option<String>,
}

impl NotPrivate {
    /// The whole sentence a person acts on: the part, why, and the command that fixes it.
    pub fn with_fix(&self) -> String {
        match &self.fix {
            Some(fix) => format!("{self}; {fix}"),
            None => self.to_string(),
        }
    }
}

/// No socket at the path: nothing to check and nothing to dial. Told apart from a socket that
/// is not private, because the fix is another one: start the agent, or mend the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoSocket {
    pub(crate) path: PathBuf,
    /// Why the socket cannot appear there at all (its folder is missing, or is not a folder),
    /// when that is so; a socket whose folder is there may still come once the agent starts.
    pub(crate) cannot_appear: Option<String>,
    /// The missing folder could still be made by an agent started now (`agent --socket` makes
    /// it): the nearest folder above that is there is one we may write in.
    pub could_be_made: bool,
}

impl NoSocket {
    /// True when waiting cannot help: the folder the socket would be in is not there.
    pub fn cannot_appear(&self) -> bool {
        self.cannot_appear.is_some()
    }
}

impl NoSocket {
    /// What is missing, without what to do: "no socket at PATH", and why it cannot appear.
    pub fn what(&self) -> String {
        match &self.cannot_appear {
            Some(why) => format!("no socket at {}: {why}", self.path.display()),
            None => format!("no socket at {}", self.path.display()),
        }
    }
}

/// The one line a person reads: what is missing, what to ask oneself, where to look further.
impl std::fmt::Display for NoSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let question = if self.cannot_appear() {
            "is the path right?"
        } else {
            "is the agent running?"
        };
        write!(
            f,
            "{}; {question} `collie-phone doctor --socket {}` tells more",
            self.what(),
            self.path.display()
        )
    }
}

impl std::error::Error for NoSocket {}

/// Why a socket path is not dialled: there is no socket there, or it is not private (SPEC S3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SocketCheck {
    #[error(transparent)]
    Missing(NoSocket),
    #[error(transparent)]
    NotPrivate(NotPrivate),
}

impl From<NotPrivate> for SocketCheck {
    fn from(not_private: NotPrivate) -> Self {
        Self::NotPrivate(not_private)
    }
}

/// The socket at `path` when nothing is there (lstat says it does not exist), with why it
/// cannot appear when its folder is missing or is not a folder. None when something is there,
/// or when lstat fails another way (the privacy walk then says what).
pub fn missing_socket(path: &Path) -> Option<NoSocket> {
    // A relative path is refused for its shape (SPEC S1), whatever is at it: "no socket at
    // a.sock: the folder  does not exist" would hide the fix.
    if !path.is_absolute() {
        return None;
    }
    match std::fs::symlink_metadata(path) {
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) => {}
        _ => return None,
    }
    let folder = path.parent()?;
    let cannot_appear = match std::fs::metadata(folder) {
        Ok(meta) if meta.is_dir() => None,
        Ok(_) => Some(format!("{} is not a folder", folder.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Some(format!("the folder {} does not exist", folder.display()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Some(format!(
            "{} is not a folder (a part above it is a file)",
            folder.display()
        )),
        // A folder that is there but cannot be read: the walk says more.
        Err(_) => None,
    };
    let could_be_made = cannot_appear.is_some() && nearest_folder_is_writable(folder);
    Some(NoSocket {
        path: path.to_path_buf(),
        cannot_appear,
        could_be_made,
    })
}

/// True when the nearest part of `folder` that exists is a folder we may write in.
fn nearest_folder_is_writable(folder: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Some(existing) = folder
        .ancestors()
        .find(|part| std::fs::symlink_metadata(part).is_ok())
    else {
        return false;
    };
    if !existing.is_dir() {
        return false;
    }
    let Ok(text) = std::ffi::CString::new(existing.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a valid NUL-terminated path for the call; access only reads it.
    unsafe { libc::access(text.as_ptr(), libc::W_OK) == 0 }
}

fn fail(part: &Path, why: impl Into<String>, fix: Option<String>) -> NotPrivate {
    NotPrivate {
        part: part.to_path_buf(),
        why: why.into(),
        fix,
    }
}

/// Checks SPEC S1 (absolute, ≤ 103 bytes) and S3 with lstat on every part of the path: no part
/// is a symlink; no folder above the socket's is writable by group or others unless sticky; the
/// socket's folder is ours with mode 0700; the socket is ours with no group or other bits.
/// A path where no socket is found is said to be that (not "not private"), before the walk: a
/// missing socket is dialled by nobody, and its fix is to start the agent or mend the path.
pub(crate) fn check_socket_path(path: &Path) -> Result<(), SocketCheck> {
    let uid = current_uid();
    check_with_uid(path, uid)
}

/// One part of a socket path as SPEC S3 sees it, for `doctor`: what it is, and whether it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartVerdict {
    pub part: PathBuf,
    /// "path", "folder above", "socket folder" or "socket".
    pub role: &'static str,
    /// What holds, or what fails and how to fix it.
    pub verdict: Result<String, NotPrivate>,
}

/// Every part of the path with its own verdict, so a person sees all that is wrong at once;
/// [`check_socket_path`] is the same walk stopped at the first failure.
pub fn walk_socket_path(path: &Path) -> Vec<PartVerdict> {
    walk_with_uid(path, current_uid())
}

fn walk_with_uid(path: &Path, uid: u32) -> Vec<PartVerdict> {
    let whole = |verdict| PartVerdict {
        part: path.to_path_buf(),
        role: "path",
        verdict,
    };
    if let Err(not_private) = check_shape(path) {
        return vec![whole(Err(not_private))];
    }
    let mut verdicts = vec![whole(Ok(format!(
        "absolute, {} of at most {MAX_SOCKET_PATH} bytes",
        path.as_os_str().len()
    )))];
    let Some(folder) = path.parent() else {
        return verdicts;
    };
    let mut above: Vec<&Path> = folder.ancestors().skip(1).collect();
    above.reverse();
    for part in above {
        verdicts.push(PartVerdict {
            part: part.to_path_buf(),
            role: "folder above",
            verdict: check_above(part),
        });
    }
    verdicts.push(PartVerdict {
        part: folder.to_path_buf(),
        role: "socket folder",
        verdict: check_folder(folder, uid),
    });
    verdicts.push(PartVerdict {
        part: path.to_path_buf(),
        role: "socket",
        verdict: check_socket(path, uid),
    });
    verdicts
}

pub fn current_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

pub(crate) fn check_with_uid(path: &Path, uid: u32) -> Result<(), SocketCheck> {
    check_shape(path)?;
    if let Some(missing) = missing_socket(path) {
        return Err(SocketCheck::Missing(missing));
    }
    let Some(folder) = path.parent() else {
        return Err(fail(path, "the socket path has no folder", None).into());
    };
    // Every folder above the socket's own, from the root down.
    let mut above: Vec<&Path> = folder.ancestors().skip(1).collect();
    above.reverse();
    for part in above {
        check_above(part)?;
    }
    check_folder(folder, uid)?;
    check_socket(path, uid)?;
    Ok(())
}

/// SPEC S1: absolute, short enough, no `.` or `..`, in a folder.
pub fn check_shape(path: &Path) -> Result<(), NotPrivate> {
    if !path.is_absolute() {
        let whole = std::path::absolute(path).map_or_else(
            |_| "give the whole path from /".to_string(),
            |whole| format!("give the whole path from /, such as {}", whole.display()),
        );
        return Err(fail(path, "the socket path must be absolute", Some(whole)));
    }
    if path.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(fail(
            path,
            format!("the socket path is longer than {MAX_SOCKET_PATH} bytes"),
            None,
        ));
    }
    if path
        .components()
        .any(|c| matches!(c, Component::ParentDir | Component::CurDir))
    {
        return Err(fail(path, "the socket path holds '.' or '..'", None));
    }
    if path.parent().is_none() {
        return Err(fail(path, "the socket path has no folder", None));
    }
    Ok(())
}

/// A folder above the socket's: no symlink, and not writable by others unless sticky.
fn check_above(part: &Path) -> Result<String, NotPrivate> {
    let meta = lstat(part)?;
    if meta.file_type().is_symlink() {
        return Err(fail(part, "is a symlink", None));
    }
    let mode = meta.mode();
    let sticky = mode & 0o1000 != 0;
    if mode & 0o022 != 0 && !sticky {
        return Err(fail(
            part,
            format!(
                "is writable by group or others (mode {:04o}) and has no sticky bit",
                mode & 0o7777
            ),
            Some(format!("chmod go-w {}", part.display())),
        ));
    }
    Ok(format!(
        "mode {:04o}{}",
        mode & 0o7777,
        if sticky && mode & 0o022 != 0 {
            ", sticky"
        } else {
            ""
        }
    ))
}

/// The socket's own folder: a real folder of ours with mode 0700.
fn check_folder(folder: &Path, uid: u32) -> Result<String, NotPrivate> {
    let meta = lstat(folder)?;
    if meta.file_type().is_symlink() {
        return Err(fail(folder, "is a symlink", None));
    }
    if !meta.is_dir() {
        return Err(fail(folder, "is not a folder", None));
    }
    if meta.uid() != uid {
        return Err(fail(
            folder,
            format!("is owned by uid {}, not by you (uid {uid})", meta.uid()),
            None,
        ));
    }
    if meta.mode() & 0o777 != 0o700 {
        return Err(fail(
            folder,
            format!("has mode {:04o}, not 0700", meta.mode() & 0o7777),
            Some(format!("chmod 700 {}", folder.display())),
        ));
    }
    Ok(format!("yours (uid {uid}), mode 0700"))
}

/// The socket: a real socket of ours that group and others cannot use.
fn check_socket(path: &Path, uid: u32) -> Result<String, NotPrivate> {
    let meta = lstat(path)?;
    if meta.file_type().is_symlink() {
        return Err(fail(path, "is a symlink", None));
    }
    if !meta.file_type().is_socket() {
        return Err(fail(path, "is not a socket", None));
    }
    if meta.uid() != uid {
        return Err(fail(
            path,
            format!("is owned by uid {}, not by you (uid {uid})", meta.uid()),
            None,
        ));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(fail(
            path,
            format!(
                "has mode {:04o}: group or others have access",
                meta.mode() & 0o7777
            ),
            Some(format!("chmod 600 {}", path.display())),
        ));
    }
    Ok(format!(
        "a socket, yours, mode {:04o}",
        meta.mode() & 0o7777
    ))
}

fn lstat(part: &Path) -> Result<std::fs::Metadata, NotPrivate> {
    std::fs::symlink_metadata(part).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "does not exist".to_string(),
            std::io::ErrorKind::PermissionDenied => {
                "cannot be read (permission denied)".to_string()
            }
            _ => format!("cannot be read: {e}"),
        };
        fail(part, why, None)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};
    use std::os::unix::net::UnixListener;

    fn private_dir() -> tempfile::TempDir {
        let dir = tempfile::Builder::new()
            .prefix("cp-priv")
            .tempdir_in("/tmp")
            .expect("temp dir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod");
        dir
    }

    fn not_private(result: Result<(), SocketCheck>) -> NotPrivate {
        match result {
            Err(SocketCheck::NotPrivate(not_private)) => not_private,
            other => panic!("must fail the privacy check: {other:?}"),
        }
    }

    fn socket_in(dir: &Path) -> (PathBuf, UnixListener) {
        let path = dir.join("a.sock");
        let listener = UnixListener::bind(&path).expect("bind");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        (path, listener)
    }

    #[test]
    fn s3_private_socket_passes() {
        let dir = private_dir();
        let (path, _l) = socket_in(dir.path());
        assert_eq!(check_socket_path(&path), Ok(()));
    }

    #[test]
    fn s1_relative_and_long_paths_fail() {
        let relative = not_private(check_socket_path(Path::new("a.sock")));
        assert_eq!(relative.why, "the socket path must be absolute");
        let whole = std::env::current_dir().expect("cwd").join("a.sock");
        assert_eq!(
            relative.fix,
            Some(format!(
                "give the whole path from /, such as {}",
                whole.display()
            ))
        );
        let long = format!("/tmp/{}", "x".repeat(120));
        assert!(check_socket_path(Path::new(&long)).is_err());
    }

    #[test]
    fn s3_folder_not_0700_fails_with_fix() {
        let dir = private_dir();
        let (path, _l) = socket_in(dir.path());
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o750))
            .expect("chmod");
        let err = not_private(check_socket_path(&path));
        assert_eq!(err.part, dir.path());
        assert!(
            err.fix
                .as_deref()
                .is_some_and(|f| f.starts_with("chmod 700"))
        );
    }

    #[test]
    fn s3_socket_with_group_bits_fails() {
        let dir = private_dir();
        let (path, _l) = socket_in(dir.path());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o660)).expect("chmod");
        let err = not_private(check_socket_path(&path));
        assert_eq!(err.part, path);
    }

    #[test]
    fn s3_symlinked_folder_fails() {
        let dir = private_dir();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).expect("mkdir");
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let (_path, _l) = socket_in(&real);
        let link = dir.path().join("link");
        symlink(&real, &link).expect("symlink");
        let err = not_private(check_socket_path(&link.join("a.sock")));
        assert_eq!(err.part, link);
        assert!(err.why.contains("symlink"));
    }

    #[test]
    fn s3_symlinked_socket_fails() {
        let dir = private_dir();
        let (path, _l) = socket_in(dir.path());
        let link = dir.path().join("b.sock");
        symlink(&path, &link).expect("symlink");
        let err = not_private(check_socket_path(&link));
        assert_eq!(err.part, link);
    }

    #[test]
    fn s3_group_writable_parent_without_sticky_fails_with_sticky_passes() {
        let outer = private_dir();
        let shared = outer.path().join("shared");
        std::fs::create_dir(&shared).expect("mkdir");
        let inner = shared.join("agent");
        std::fs::create_dir(&inner).expect("mkdir");
        std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let (path, _l) = socket_in(&inner);
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        let err = not_private(check_socket_path(&path));
        assert_eq!(err.part, shared);
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
        assert_eq!(check_socket_path(&path), Ok(()));
    }

    #[test]
    fn s3_walk_names_every_failing_part_with_its_fix() {
        let dir = private_dir();
        let (path, _l) = socket_in(dir.path());
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).expect("chmod");
        let walk = walk_socket_path(&path);
        let failed: Vec<_> = walk.iter().filter(|v| v.verdict.is_err()).collect();
        assert_eq!(failed.len(), 2, "{walk:?}");
        assert_eq!(failed[0].role, "socket folder");
        assert_eq!(failed[1].role, "socket");
        let fixes: Vec<_> = failed
            .iter()
            .filter_map(|v| v.verdict.as_ref().err().and_then(|e| e.fix.clone()))
            .collect();
        assert_eq!(
            fixes,
            [
                format!("chmod 700 {}", dir.path().display()),
                format!("chmod 600 {}", path.display())
            ]
        );
        assert_eq!(walk.first().map(|v| v.role), Some("path"));
    }

    #[test]
    fn s3_folder_of_another_user_fails() {
        let dir = private_dir();
        let (path, _l) = socket_in(dir.path());
        let err = not_private(check_with_uid(&path, current_uid() + 1));
        assert_eq!(err.part, dir.path());
    }

    #[test]
    fn a_missing_socket_is_said_so_before_the_folder_is_judged() {
        // /tmp is open to others (1777): the walk would fail it, yet the socket is missing.
        let dir = private_dir();
        let path = dir.path().join("agent.sock");
        let Err(SocketCheck::Missing(missing)) = check_socket_path(&path) else {
            panic!("a missing socket is missing");
        };
        assert!(!missing.cannot_appear());
        let shown = path.display();
        assert_eq!(
            missing.to_string(),
            format!(
                "no socket at {shown}; is the agent running? `collie-phone doctor --socket {shown}` tells more"
            )
        );
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        assert!(matches!(
            check_socket_path(&path),
            Err(SocketCheck::Missing(_))
        ));
    }

    #[test]
    fn a_socket_whose_folder_is_missing_or_a_file_cannot_appear() {
        let dir = private_dir();
        let gone = dir.path().join("gone").join("agent.sock");
        let Err(SocketCheck::Missing(missing)) = check_socket_path(&gone) else {
            panic!("missing");
        };
        assert!(missing.cannot_appear());
        assert_eq!(
            missing.to_string(),
            format!(
                "no socket at {}: the folder {} does not exist; is the path right? `collie-phone doctor --socket {}` tells more",
                gone.display(),
                dir.path().join("gone").display(),
                gone.display()
            )
        );
        let file = dir.path().join("file");
        std::fs::write(&file, "x").expect("write");
        let inside = file.join("agent.sock");
        let Some(missing) = missing_socket(&inside) else {
            panic!("nothing can be inside a file");
        };
        assert!(missing.cannot_appear());
        assert!(
            missing
                .to_string()
                .contains(&format!("{} is not a folder", file.display())),
            "{missing}"
        );
        // A socket that is there is not missing, whatever its modes.
        let (path, _l) = socket_in(dir.path());
        assert_eq!(missing_socket(&path), None);
    }
}
