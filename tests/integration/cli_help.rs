//! The binary's help says the truth: arguments a command needs are shown needed (with the other
//! way to call it, --retry), the man page's synopsis names each option's value, and the rules
//! the help points to are printed by the binary itself (`collie-phone rules ID`).

use std::process::Output;

const BIN: &str = env!("CARGO_BIN_EXE_collie-phone");

fn run(args: &[&str]) -> Output {
    std::process::Command::new(BIN)
        .args(args)
        .env_remove("COLLIE_DURABLE_SOCKET")
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The usage lines of `COMMAND --help`, up to the first blank line.
fn usage(command: &str) -> String {
    let help = stdout(&run(&[command, "--help"]));
    let start = help.find("Usage: ").expect("a usage");
    help[start..]
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn needed_arguments_are_shown_needed_with_the_retry_way_beside_them() {
    assert_eq!(
        usage("send"),
        "Usage: collie-phone send [OPTIONS] PANE TEXT\n       collie-phone send [OPTIONS] --retry REQUEST_ID"
    );
    assert_eq!(
        usage("abort"),
        "Usage: collie-phone abort [OPTIONS] PANE\n       collie-phone abort [OPTIONS] --retry REQUEST_ID"
    );
    assert_eq!(
        usage("start"),
        "Usage: collie-phone start [OPTIONS] STARTER\n       collie-phone start [OPTIONS] --retry REQUEST_ID"
    );
    let answer = usage("answer");
    assert!(
        answer.starts_with("Usage: collie-phone answer [OPTIONS] ASK OPTION\n"),
        "{answer}"
    );
    assert!(answer.contains("--retry REQUEST_ID"), "{answer}");
    for command in ["send", "abort", "start", "answer"] {
        assert!(!usage(command).contains("[PANE]"), "{command}");
    }
    // Without them, the command says what is missing.
    let missing = run(&["send", "p1"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("<TEXT>"));
}

#[test]
fn the_man_pages_synopsis_names_each_options_value() {
    let page = stdout(&run(&["man"]));
    let synopsis = page
        .split(".SH SYNOPSIS\n")
        .nth(1)
        .and_then(|rest| rest.split(".SH").next())
        .expect("a synopsis");
    for shown in [
        r"[\-\-url URL...]",
        r"[\-\-token\-file FILE]",
        r"[\-\-ca\-cert FILE]",
        r"[\-h|\-\-help]",
    ] {
        assert!(synopsis.contains(shown), "{shown} in {synopsis}");
    }
    let dir = tempfile::tempdir().expect("dir");
    let dir_shown = dir.path().display().to_string();
    assert!(run(&["man", "--dir", &dir_shown]).status.success());
    let send = std::fs::read_to_string(dir.path().join("collie-phone-send.1")).expect("page");
    assert!(send.contains(r"[\-\-wait SECONDS]"), "{send}");
    assert!(send.contains(r"PANE TEXT"), "{send}");
    // --retry is its own form: not offered beside PANE TEXT, which it cannot stand with.
    let first_form = send
        .lines()
        .find(|line| line.ends_with("PANE TEXT"))
        .expect("the first form");
    assert!(!first_form.contains("retry"), "{first_form}");
    assert!(!dir.path().join("collie-phone-help.1").exists());
}

#[test]
fn rules_prints_an_entry_a_family_the_list_and_says_an_unknown_id_with_close_ones() {
    let one = run(&["rules", "S1"]);
    assert!(one.status.success());
    let shown = stdout(&one);
    assert!(shown.starts_with("S1. The socket path\n"), "{shown}");
    assert!(shown.contains("at most 103 bytes"), "{shown}");
    // Case does not matter, and a limit row is an id too.
    assert!(stdout(&run(&["rules", "s1"])).starts_with("S1. "));
    assert!(stdout(&run(&["rules", "L.layout"])).starts_with("L.layout\n"));
    assert!(stdout(&run(&["rules", "L"])).starts_with("L. The table of limits\n"));
    let family = stdout(&run(&["rules", "S"]));
    assert!(family.starts_with("The socket (S)\n"), "{family}");
    assert!(family.contains("  S4 "), "{family}");
    let list = stdout(&run(&["rules"]));
    for heading in ["The wire (W)", "The socket (S)", "The DSH bridge (D)"] {
        assert!(list.contains(heading), "{heading} in {list}");
    }
    assert!(
        list.contains("  W4                 Request bodies\n"),
        "{list}"
    );
    let unknown = run(&["rules", "S70"]);
    assert_eq!(unknown.status.code(), Some(2));
    let said = String::from_utf8_lossy(&unknown.stderr).into_owned();
    assert!(
        said.starts_with("collie-phone: no rule S70 in the rule book; close ids: "),
        "{said}"
    );
    assert!(said.contains("S7"), "{said}");
    assert!(stdout(&unknown).is_empty());
}

#[test]
fn the_help_points_to_the_rules_command_not_to_a_file() {
    let help = stdout(&run(&["--help"]));
    assert!(help.contains("(`collie-phone rules S`)"), "{help}");
    assert!(!help.contains("docs/SPEC.md"), "{help}");
}

/// Every command's path, from clap's own tree of the binary's command line: the hidden ones and
/// `help` too, and the commands under commands.
fn every_command() -> Vec<Vec<String>> {
    fn walk(command: &clap::Command, path: &[String], all: &mut Vec<Vec<String>>) {
        for sub in command.get_subcommands() {
            let mut here = path.to_vec();
            here.push(sub.get_name().to_string());
            all.push(here.clone());
            walk(sub, &here, all);
        }
    }
    let mut command = <collie_phone::cli::Cli as clap::CommandFactory>::command();
    command.build();
    let mut all = Vec::new();
    walk(&command, &[], &mut all);
    all
}

#[test]
fn every_command_takes_help_and_prints_it() {
    let commands = every_command();
    assert!(
        commands.iter().any(|path| path == &["help"]),
        "{commands:?}"
    );
    for path in &commands {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let output = run(&args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!stdout(&output).trim().is_empty(), "{args:?}");
    }
}

#[test]
fn help_with_a_command_prints_that_commands_help_and_says_an_unknown_one() {
    let asks = run(&["help", "asks"]);
    assert_eq!(asks.status.code(), Some(0));
    assert_eq!(stdout(&asks), stdout(&run(&["asks", "--help"])));
    // `help COMMAND --help` is the same ask: COMMAND's help.
    let asks_help = run(&["help", "asks", "--help"]);
    assert_eq!(asks_help.status.code(), Some(0));
    assert_eq!(stdout(&asks_help), stdout(&asks));
    let top = run(&["help"]);
    assert_eq!(top.status.code(), Some(0));
    assert_eq!(stdout(&top), stdout(&run(&["--help"])));
    let unknown = run(&["help", "aks"]);
    assert_eq!(unknown.status.code(), Some(2));
    let said = String::from_utf8_lossy(&unknown.stderr).into_owned();
    assert!(
        said.starts_with("collie-phone: there is no command aks; did you mean asks?"),
        "{said}"
    );
    assert!(stdout(&unknown).is_empty());
}
