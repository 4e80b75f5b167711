//! Writes the wire inspector's export: a new file only this user can read (the bodies hold
//! what the person typed and what the agents said), in a folder only this user can enter.

use std::io::Write;
use std::path::Path;

use crate::transport::own_files;

/// Writes `text` to `path`, never over an existing file; the error in words.
pub(crate) fn write_export(path: &Path, text: &str) -> Result<(), String> {
    if let Some(folder) = path.parent() {
        own_files::make_private_dir(folder)
            .map_err(|refused| format!("could not make the folder {}", refused.with_fix()))?;
    }
    let mut file = own_files::create_new(path).map_err(|error| error.to_string())?;
    // The inspector's form (docs/WIRE.md §7.2): a removed character shows as `⟨U+XXXX⟩`, no
    // token.
    file.write_all(crate::out::visible(text).as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn writes_a_private_new_file_and_never_overwrites() {
        let dir = tempfile::tempdir().expect("a temp folder");
        let path = dir.path().join("state").join("wire-1.jsonl");
        assert_eq!(write_export(&path, "{}\n"), Ok(()));
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "{}\n");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let again = write_export(&path, "other\n");
        assert!(again.is_err(), "{again:?}");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "{}\n");
    }

    #[test]
    fn a_folder_that_cannot_be_made_is_an_error_in_words() {
        let dir = tempfile::tempdir().expect("a temp folder");
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "").expect("write");
        let result = write_export(&blocker.join("wire.jsonl"), "{}\n");
        assert!(
            result
                .as_ref()
                .is_err_and(|e| e.starts_with("could not make the folder")),
            "{result:?}"
        );
    }
}
