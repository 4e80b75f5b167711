//! `collie-phone completions SHELL` and `collie-phone man`, run as the real binary: what each
//! writes is what a shell or `man` reads, so the tests read those bytes.

use std::io::Read;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_collie-phone");

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

/// The subcommands a completion must offer: every one `--help` lists.
const COMMANDS: [&str; 14] = [
    "agent",
    "demo",
    "doctor",
    "check",
    "asks",
    "answer",
    "send",
    "abort",
    "start",
    "watch",
    "replay",
    "dsh-bridge",
    "completions",
    "man",
];

#[test]
fn each_shell_gets_a_script_that_offers_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, script, stderr) = run(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {stderr}");
        assert!(stderr.is_empty(), "{shell}: {stderr}");
        for command in COMMANDS {
            assert!(script.contains(command), "{shell} does not offer {command}");
        }
        assert!(
            !script.contains('\u{1b}'),
            "{shell}: no escape bytes in a script"
        );
    }
    let (_, zsh, _) = run(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef collie-phone"), "{}", &zsh[..40]);
}

#[test]
fn the_bash_script_is_valid_bash_and_completes_the_flags() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("collie-phone.bash");
    let (code, script, _) = run(&["completions", "bash"]);
    assert_eq!(code, 0);
    std::fs::write(&path, &script).expect("writes");
    let check = Command::new("bash")
        .arg("-n")
        .arg(&path)
        .output()
        .expect("bash runs");
    assert!(
        check.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&check.stderr)
    );
    // Sourced, it completes `collie-phone demo --w` to the demo's --world.
    let complete = format!(
        "source {}; COMP_WORDS=(collie-phone demo --w); COMP_CWORD=2; _collie__phone collie-phone --w demo; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        path.display()
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(&complete)
        .output()
        .expect("bash runs");
    let offered = String::from_utf8_lossy(&out.stdout);
    assert!(
        offered.lines().any(|l| l == "--world"),
        "offered: {offered:?} {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn man_prints_the_main_page_and_writes_one_per_command() {
    let (code, page, stderr) = run(&["man"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(page.contains(".TH collie-phone 1"), "{}", &page[..200]);
    assert!(page.contains(".SH NAME") && page.contains(".SH SUBCOMMANDS"));

    let dir = tempfile::tempdir().expect("temp dir");
    let (code, said, stderr) = run(&["man", "--dir", dir.path().to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{stderr}");
    assert!(said.contains("The man pages are in"), "{said}");
    for command in COMMANDS {
        let file = dir.path().join(format!("collie-phone-{command}.1"));
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(text.contains(".TH collie-phone-"), "{}", file.display());
    }
    assert!(dir.path().join("collie-phone.1").exists());
}

#[test]
fn a_reader_that_goes_away_early_is_not_a_crash() {
    for args in [&["completions", "bash"][..], &["man"][..]] {
        let mut child = Command::new(BIN)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawns");
        let mut first = [0u8; 8];
        child
            .stdout
            .take()
            .expect("stdout")
            .read_exact(&mut first)
            .expect("reads a little");
        // The pipe is closed here, long before the script is written whole.
        let out = child.wait_with_output().expect("ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(out.status.success(), "{args:?}: {stderr}");
    }
}

#[test]
fn an_unknown_shell_is_refused_with_the_ones_there_are() {
    let (code, _, stderr) = run(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("possible values: bash, elvish, fish, powershell, zsh"),
        "{stderr}"
    );
}
