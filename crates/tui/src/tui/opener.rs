//! Opening a link in the person's browser: `open` on macOS, `xdg-open` elsewhere, looked up on
//! PATH and started with the URL as its one argument, never through a shell, never waited on
//! by the loop. Where none can work (no opener on PATH, no display as over ssh) it says so in
//! words before starting anything.
//!
//! Written here rather than with the `opener` crate: that crate starts `xdg-open` without
//! looking first and reports only that it could not start it, while the phone must tell "no
//! opener" and "no display" apart in plain words, and check the URL itself (SPEC `L.link`).

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::look::chat_links::is_safe_url;

/// Where the program runs, as far as opening a link goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    macos: bool,
    /// DISPLAY or WAYLAND_DISPLAY is set.
    display: bool,
    /// SSH_CONNECTION or SSH_TTY is set.
    ssh: bool,
}

impl Place {
    fn here() -> Self {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        Self {
            macos: cfg!(target_os = "macos"),
            display: set("DISPLAY") || set("WAYLAND_DISPLAY"),
            ssh: set("SSH_CONNECTION") || set("SSH_TTY"),
        }
    }
}

/// Asks the system's opener to open `url`; gives the opener's name, or why not, in words.
pub(crate) fn open(url: &str) -> Result<String, String> {
    if !is_safe_url(url) {
        return Err("it is not a plain https:// address.".into());
    }
    let path = std::env::var_os("PATH");
    let (program, name) = find(path.as_deref(), Place::here())?;
    let mut child = Command::new(&program)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| format!("{name} could not be started ({error})."))?;
    // Reaped on a thread of its own: a browser that takes its time never holds the screen.
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(name.to_string())
}

/// The opener to start in `place`, with `path` as PATH.
fn find(path: Option<&OsStr>, place: Place) -> Result<(PathBuf, &'static str), String> {
    let name = if place.macos { "open" } else { "xdg-open" };
    if place.macos && place.ssh {
        return Err(
            "this is an ssh session, so a browser would open on the far machine, not yours.".into(),
        );
    }
    if !place.macos && !place.display {
        return Err(
            "there is no display here (DISPLAY and WAYLAND_DISPLAY are unset, as over ssh).".into(),
        );
    }
    path.into_iter()
        .flat_map(std::env::split_paths)
        .map(|folder| folder.join(name))
        .find(|candidate| is_executable(candidate))
        .map(|program| (program, name))
        .ok_or_else(|| format!("no browser opener here ({name} is not on PATH)."))
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINUX: Place = Place {
        macos: false,
        display: true,
        ssh: false,
    };

    #[test]
    fn the_opener_is_found_on_path_only_where_it_can_work() {
        let dir = tempfile::tempdir().expect("a folder");
        let program = dir.path().join("xdg-open");
        std::fs::write(&program, "#!/bin/sh\n").expect("write");
        let path = dir.path().as_os_str();
        // Not executable yet: not an opener.
        assert!(find(Some(path), LINUX).is_err());
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert_eq!(find(Some(path), LINUX), Ok((program, "xdg-open")));
        let no_display = find(
            Some(path),
            Place {
                display: false,
                ..LINUX
            },
        );
        assert!(no_display.is_err_and(|why| why.contains("no display")));
        let missing = find(Some(OsStr::new("/nonexistent")), LINUX);
        assert_eq!(
            missing,
            Err("no browser opener here (xdg-open is not on PATH).".into())
        );
        let mac_over_ssh = find(
            Some(path),
            Place {
                macos: true,
                display: false,
                ssh: true,
            },
        );
        assert!(mac_over_ssh.is_err_and(|why| why.contains("ssh")));
    }

    #[test]
    fn an_unchecked_link_is_never_opened() {
        assert!(open("javascript:alert(1)").is_err());
        assert!(open("https://e.com/\u{1b}]52;c;AAAA\u{7}").is_err());
    }
}
