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
pub fn check_socket_path(path: &Path) -> Result<(), NotPrivate> {
    let uid = current_uid();
    check_with_uid(path, uid)
}

pub fn current_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

pub(crate) fn check_with_uid(path: &Path, uid: u32) -> Result<(), NotPrivate> {
    if !path.is_absolute() {
        return Err(fail(path, "the socket path is not absolute", None));
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
    let Some(folder) = path.parent() else {
        return Err(fail(path, "the socket path has no folder", None));
    };
    // Every folder above the socket's own, from the root down.
    let mut above: Vec<&Path> = folder.ancestors().skip(1).collect();
    above.reverse();
    for part in above {
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
    }
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
    Ok(())
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
        assert!(check_socket_path(Path::new("a.sock")).is_err());
        let long = format!("/tmp/{}", "x".repeat(120));
        assert!(check_socket_path(Path::new(&long)).is_err());
    }

    #[test]
    fn s3_folder_not_0700_fails_with_fix() {
        let dir = private_dir();
        let (path, _l) = socket_in(dir.path());
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o750))
            .expect("chmod");
        let err = check_socket_path(&path).expect_err("must fail");
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
        let err = check_socket_path(&path).expect_err("must fail");
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
        let err = check_socket_path(&link.join("a.sock")).expect_err("must fail");
        assert_eq!(err.part, link);
        assert!(err.why.contains("symlink"));
    }

    #[test]
    fn s3_symlinked_socket_fails() {
        let dir = private_dir();
        let (path, _l) = socket_in(dir.path());
        let link = dir.path().join("b.sock");
        symlink(&path, &link).expect("symlink");
        let err = check_socket_path(&link).expect_err("must fail");
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
        let err = check_socket_path(&path).expect_err("must fail");
        assert_eq!(err.part, shared);
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
        assert_eq!(check_socket_path(&path), Ok(()));
    }

    #[test]
    fn s3_folder_of_another_user_fails() {
        let dir = private_dir();
        let (path, _l) = socket_in(dir.path());
        let err = check_with_uid(&path, current_uid() + 1).expect_err("must fail");
        assert_eq!(err.part, dir.path());
    }
}
