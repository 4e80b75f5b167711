//! The file that keeps what the person saw of each pane (SPEC A22): `seen.json` in the phone's
//! state folder, next to the journal, so the news marks outlive a restart. Written whole to a
//! new file under a random name and renamed over the old (SPEC S9), as the journal is
//! compacted; read back only when it is a plain file of the caller's.

use std::io::{Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::model::seen::MAX_FILE_BYTES;
use crate::transport::own_files;

/// The file's name in the state folder.
pub const FILE_NAME: &str = "seen.json";

/// What the file holds, or why it is not read: none when there is no such file yet.
pub(crate) fn read(path: &Path) -> Result<Option<String>, String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if !meta.is_file() {
        return Err(format!(
            "{} is not a plain file, so it is not read",
            path.display()
        ));
    }
    if meta.uid() != crate::transport::privacy::current_uid() {
        return Err(format!(
            "{} is not yours, so it is not read",
            path.display()
        ));
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|file| {
            file.take(MAX_FILE_BYTES as u64 + 1)
                .read_to_string(&mut text)
        })
        .map_err(|e| e.to_string())?;
    Ok(Some(text))
}

/// Writes `text` over the file: a new private file renamed over the old, its folder made
/// private first.
pub(crate) fn write(path: &Path, text: &str) -> Result<(), String> {
    let folder = path.parent().unwrap_or(Path::new("."));
    own_files::make_private_dir(folder).map_err(|refused| refused.with_fix())?;
    let mut temp = tempfile::Builder::new()
        .prefix(".seen-")
        .suffix(".tmp")
        .tempfile_in(folder)
        .map_err(|e| e.to_string())?;
    temp.write_all(text.as_bytes())
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|e| e.to_string())?;
    temp.persist(path).map_err(|e| e.error.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a22_the_file_is_written_private_and_read_back() {
        let dir = tempfile::tempdir().expect("a temp folder");
        let path = dir.path().join("state").join(FILE_NAME);
        assert_eq!(read(&path), Ok(None));
        write(&path, "{\"version\":1}").expect("written");
        write(&path, "{\"version\":1,\"panes\":[]}").expect("written over");
        assert_eq!(
            read(&path).expect("read").as_deref(),
            Some("{\"version\":1,\"panes\":[]}")
        );
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a22_a_symlink_is_not_read() {
        let dir = tempfile::tempdir().expect("a temp folder");
        let other = dir.path().join("other");
        std::fs::write(&other, "{}").expect("write");
        let path = dir.path().join(FILE_NAME);
        std::os::unix::fs::symlink(&other, &path).expect("symlink");
        assert!(read(&path).is_err());
    }
}
