//! Running the person's editor on a text (docs/KEYS.md, "The person's editor"): `$VISUAL`,
//! else `$EDITOR`, split into words as a shell would split the line (shell-words) but never
//! run through a shell, on a private temporary file holding the text, with the terminal
//! handed to it. What it saved comes back; a missing editor, one that cannot start or one
//! that exits with a failure says so by name, and the caller keeps the text it had.
//!
//! Leaving and taking back the screen is the caller's (`crate::tui::terminal::outside`): this
//! file only runs the program.

use std::io::ErrorKind;
use std::io::Write;
use std::process::Command;

use crate::transport::own_files;

/// The editor to run: the variable that named it, its program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chosen {
    /// `$VISUAL (code --wait)`: how the messages name it.
    pub(crate) name: String,
    pub(crate) program: String,
    pub(crate) args: Vec<String>,
}

/// The editor `VISUAL` or else `EDITOR` names (each as the environment gave it; an empty or
/// blank one counts as unset, as in git), or why there is none.
pub(crate) fn choose(visual: Option<String>, editor: Option<String>) -> Result<Chosen, String> {
    let (variable, line) = [("VISUAL", visual), ("EDITOR", editor)]
        .into_iter()
        .find_map(|(variable, value)| {
            value
                .filter(|v| !v.trim().is_empty())
                .map(|value| (variable, value))
        })
        .ok_or_else(|| {
            "No editor to open: set $VISUAL or $EDITOR (for example EDITOR=nano).".to_string()
        })?;
    let name = format!("${variable} ({})", line.trim());
    let mut words = shell_words::split(&line)
        .map_err(|error| format!("{name} cannot be read as a command line ({error})."))?
        .into_iter();
    let program = words
        .next()
        .ok_or_else(|| format!("{name} names no program."))?;
    Ok(Chosen {
        name,
        program,
        args: words.collect(),
    })
}

/// The editor the environment names, or why there is none.
pub(crate) fn from_environment() -> Result<Chosen, String> {
    let read = |name: &str| std::env::var(name).ok();
    choose(read("VISUAL"), read("EDITOR"))
}

/// What the phone's runner does for the person's editor on a real terminal: the editor the
/// environment names (or why there is none, before the screen is left), run with the screen
/// handed over, the screen taken back after it.
pub fn edit_on_terminal(text: &str) -> Result<String, String> {
    let chosen = from_environment()?;
    crate::tui::terminal::outside(|| run(&chosen, text))
}

/// Runs `chosen` on a temporary file holding `text`, on the terminal as it is (the caller has
/// left the screen), and waits for it: what it saved, or why not. The file is in a private
/// directory of its own and goes when this returns.
pub(crate) fn run(chosen: &Chosen, text: &str) -> Result<String, String> {
    let name = &chosen.name;
    // The person's words: a folder of theirs alone, the file made new, 0600 (SPEC S9).
    let folder = own_files::scratch_dir("collie-phone-")
        .map_err(|error| format!("No temporary file for {name} ({error})."))?;
    // Markdown, so an editor that colours it does; the agents read markdown.
    let path = folder.path().join("message.md");
    own_files::create_new(&path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|error| format!("No temporary file for {name} ({error})."))?;
    let status = Command::new(&chosen.program)
        .args(&chosen.args)
        .arg(&path)
        .status()
        .map_err(|error| match error.kind() {
            ErrorKind::NotFound => format!("{name} was not found."),
            ErrorKind::PermissionDenied => format!("{name} may not be run here ({error})."),
            _ => format!("{name} could not be started ({error})."),
        })?;
    if !status.success() {
        let how = status.code().map_or_else(
            || "was stopped".to_string(),
            |code| format!("exited with {code}"),
        );
        return Err(format!("{name} {how}, so what it saved is not taken."));
    }
    let saved = std::fs::read(&path)
        .map_err(|error| format!("What {name} saved cannot be read ({error})."))?;
    let saved = String::from_utf8(saved)
        .map_err(|_| format!("What {name} saved is not UTF-8 text, so it is not taken."))?;
    Ok(without_final_newline(saved, text))
}

/// Editors end a file with a newline; the box's text gets it only if it had one.
fn without_final_newline(mut saved: String, before: &str) -> String {
    if !before.ends_with('\n') {
        if saved.ends_with("\r\n") {
            saved.truncate(saved.len() - 2);
        } else if saved.ends_with('\n') {
            saved.pop();
        }
    }
    saved
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn some(text: &str) -> Option<String> {
        Some(text.to_string())
    }

    #[test]
    fn visual_comes_before_editor_and_the_line_is_split_as_a_shell_would_never_run_by_one() {
        let chosen = choose(some("code --wait"), some("vi")).expect("an editor");
        assert_eq!(chosen.program, "code");
        assert_eq!(chosen.args, ["--wait"]);
        assert_eq!(chosen.name, "$VISUAL (code --wait)");
        let chosen = choose(some("  "), some("'my editor' -n 'two words'")).expect("an editor");
        assert_eq!(chosen.program, "my editor");
        assert_eq!(chosen.args, ["-n", "two words"]);
        assert!(chosen.name.starts_with("$EDITOR"));
        // A shell's `;` is a word here, never a second command.
        let chosen = choose(None, some("vi; rm -rf x")).expect("an editor");
        assert_eq!(chosen.program, "vi;");
    }

    #[test]
    fn no_editor_or_an_unreadable_line_says_so_plainly() {
        let none = choose(None, some("")).expect_err("no editor");
        assert!(none.contains("$VISUAL or $EDITOR"), "{none}");
        let quote = choose(None, some("vi 'open")).expect_err("an open quote");
        assert!(quote.contains("$EDITOR (vi 'open)"), "{quote}");
    }

    fn script(folder: &std::path::Path, body: &str) -> String {
        let path = folder.join("editor");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("the script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .expect("executable");
        path.display().to_string()
    }

    #[test]
    fn what_the_editor_saved_comes_back_without_the_newline_it_added() {
        let folder = tempfile::tempdir().expect("a folder");
        let program = script(folder.path(), r#"printf '\nadded line\n' >> "$1""#);
        let chosen = choose(None, Some(program)).expect("an editor");
        assert_eq!(
            run(&chosen, "日本 🇯🇵").as_deref(),
            Ok("日本 🇯🇵\nadded line")
        );
        assert_eq!(
            run(&chosen, "ends\n").as_deref(),
            Ok("ends\n\nadded line\n")
        );
    }

    #[test]
    fn a_failing_or_missing_editor_is_named_and_nothing_comes_back() {
        let folder = tempfile::tempdir().expect("a folder");
        let failing = script(folder.path(), r#"echo changed > "$1"; exit 3"#);
        let chosen = choose(Some(failing), None).expect("an editor");
        let why = run(&chosen, "kept").expect_err("it failed");
        assert!(
            why.contains("$VISUAL") && why.contains("exited with 3"),
            "{why}"
        );
        let missing = folder.path().join("no-such-editor").display().to_string();
        let chosen = choose(None, Some(missing)).expect("an editor");
        let why = run(&chosen, "kept").expect_err("not there");
        assert!(
            why.contains("no-such-editor") && why.contains("was not found"),
            "{why}"
        );
    }
}
