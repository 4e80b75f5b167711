//! `collie-phone completions SHELL`, `collie-phone man` and `collie-phone help`: what a shell,
//! `man` and a person asking need, made from the same clap definitions the commands parse with,
//! so they never drift from the flags.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::Cli;

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in: bash, zsh, fish, elvish or powershell.
    pub(crate) shell: Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Write a page per command (collie-phone.1, collie-phone-demo.1, …) into this folder,
    /// instead of the main page to standard output.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(disable_help_flag = true)]
pub(crate) struct HelpArgs {
    /// The command whose help to print, as `COMMAND --help` prints it; none prints the
    /// program's.
    #[arg(value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
    /// Print help (with a COMMAND, that command's help, as without this flag).
    #[arg(short = 'h', long = "help")]
    pub(crate) help: bool,
}

/// `collie-phone help [COMMAND]…`: the help `--help` prints, of the program or of the command
/// named; an unknown name is a usage error (exit 2) with the nearest command.
pub(crate) fn help(args: &HelpArgs) -> ExitCode {
    let mut command = Cli::command();
    command.build();
    let path: Vec<&str> = if args.command.is_empty() && args.help {
        vec!["help"]
    } else {
        args.command.iter().map(String::as_str).collect()
    };
    let mut here = &command;
    for name in &path {
        match here.find_subcommand(name) {
            Some(sub) => here = sub,
            None => {
                crate::out::eprintln(&format!("collie-phone: {}", no_such_command(here, name)));
                return ExitCode::from(2);
            }
        }
    }
    // clap's own `COMMAND --help`, so `help COMMAND` prints exactly what that prints.
    let argv = std::iter::once("collie-phone")
        .chain(path.iter().copied())
        .chain(["--help"]);
    match Cli::command().try_get_matches_from(argv) {
        Err(shown) => {
            // A reader that went away (`| head`) is not an error.
            let _ = shown.print();
            ExitCode::from(u8::try_from(shown.exit_code()).unwrap_or(2))
        }
        // `help --help`: `help`'s --help is its own flag, so clap parsed it rather than
        // printing; the help of `help` is printed here.
        Ok(_) => {
            let _ = crate::out::print(&here.clone().render_help().to_string());
            ExitCode::SUCCESS
        }
    }
}

/// Why `name` names no command under `parent`, with the nearest one (a typo: at most one edit
/// in three letters, as the config's suggestions count), else the list of them.
fn no_such_command(parent: &clap::Command, name: &str) -> String {
    let known: Vec<&str> = parent
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set())
        .map(clap::Command::get_name)
        .collect();
    let near = known
        .iter()
        .map(|candidate| (strsim::damerau_levenshtein(name, candidate), *candidate))
        .filter(|(distance, candidate)| *distance <= candidate.chars().count().max(3) / 3)
        .min_by_key(|(distance, _)| *distance);
    let whose = match parent.get_bin_name() {
        Some(bin) if bin != "collie-phone" => format!(" in {bin}"),
        _ => String::new(),
    };
    match near {
        Some((_, candidate)) => format!(
            "there is no command {name}{whose}; did you mean {candidate}? (`collie-phone help` lists them)"
        ),
        None if known.is_empty() => {
            let bin = parent.get_bin_name().unwrap_or("collie-phone");
            format!(
                "{bin} has no commands under it, so {name} names none; `{}` prints its help",
                bin.replacen("collie-phone", "collie-phone help", 1)
            )
        }
        None => format!(
            "there is no command {name}{whose}; the commands are: {}",
            known.join(", ")
        ),
    }
}

/// Prints the completion script for the shell to standard output.
pub(crate) fn completions(args: CompletionsArgs) -> anyhow::Result<()> {
    let mut command = Cli::command();
    // Made in memory first: clap_complete panics when its writer fails (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "collie-phone", &mut script);
    if args.shell == Shell::Bash {
        script = mend_bash(&script);
    }
    print(&script).context("could not write the completions")
}

/// clap_complete's bash script spells the state of a subcommand two ways when the program's
/// name has a hyphen: its loop arrives at `collie__phone__subcmd__demo`, its case arms read
/// `collie__subcmd__phone__subcmd__demo`, so no subcommand's flags ever complete
/// (clap-rs/clap#6421, still open). The arms are spelt the loop's way here.
fn mend_bash(script: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(script)
        .replace("collie__subcmd__phone", "collie__phone")
        .into_bytes()
}

/// Writes to standard output; a reader that went away (`| head`) is not an error.
fn print(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Prints the main man page, or writes every command's page into a folder.
pub(crate) fn man(args: ManArgs) -> anyhow::Result<()> {
    let command = man_command();
    match args.dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("could not make the folder {}", dir.display()))?;
            clap_mangen::generate_to(command, &dir)
                .with_context(|| format!("could not write the man pages into {}", dir.display()))?;
            println!("The man pages are in {}.", dir.display());
            Ok(())
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut page)
                .context("could not make the man page")?;
            print(&page).context("could not write the man page")
        }
    }
}

/// The commands as the man pages show them: clap_mangen's synopsis names options without their
/// values (`[--url]`), so every command's synopsis is written here from its flags, with each
/// value's placeholder (`[--url URL]`), and a usage written by hand keeps its forms.
pub(crate) fn man_command() -> clap::Command {
    // Built, a command knows its full name and its -h and -V; the pages are made from an
    // unbuilt one, as before, so no page is made for clap's own `help` subcommand.
    // `help` prints what the pages already hold: no page of its own, as clap's never had one.
    let unbuilt = || Cli::command().mut_subcommand("help", |help| help.hide(true));
    let mut built = unbuilt();
    built.build();
    with_synopses(unbuilt(), &built)
}

fn with_synopses(command: clap::Command, built: &clap::Command) -> clap::Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .collect();
    let mut command = command.override_usage(synopsis(built));
    for name in names {
        if let Some(inner) = built.find_subcommand(&name) {
            command = command.mut_subcommand(name, |sub| with_synopses(sub, inner));
        }
    }
    command
}

/// One command's synopsis: its name, its options with their values, its arguments.
fn synopsis(command: &clap::Command) -> String {
    let name = command
        .get_bin_name()
        .unwrap_or_else(|| command.get_name())
        .to_string();
    // The options a form does not name itself (`--retry REQUEST_ID` is a form of its own).
    let options = |form: &str| {
        let words: Vec<String> = command
            .get_arguments()
            .filter(|arg| !arg.is_hide_set() && !arg.is_positional())
            .filter(|arg| {
                arg.get_long()
                    .is_none_or(|long| !form.contains(&format!("--{long} ")))
            })
            // Nor those that cannot stand with the form's arguments (--retry with PANE).
            .filter(|arg| {
                !command.get_arg_conflicts_with(arg).iter().any(|other| {
                    other.is_positional()
                        && form
                            .split_whitespace()
                            .any(|word| word == value_name(other))
                })
            })
            .map(option_words)
            .collect();
        words.join(" ")
    };
    if let Some(usage) = command.get_overridden_usage() {
        let usage = usage.to_string();
        let forms: Vec<String> = usage
            .lines()
            .map(|form| form.trim().replace("[OPTIONS]", &options(form)))
            .collect();
        return forms.join("\n");
    }
    let options = options("");
    let mut words = vec![name];
    if !options.is_empty() {
        words.push(options);
    }
    for arg in command.get_positionals().filter(|arg| !arg.is_hide_set()) {
        let value = value_name(arg);
        words.push(if arg.is_required_set() {
            value
        } else {
            format!("[{value}]")
        });
    }
    if command.has_subcommands() {
        words.push("[COMMAND]".into());
    }
    words.join(" ")
}

/// `[--url URL]`, `[-h|--help]`, `--listen ADDR` when it is required.
fn option_words(arg: &clap::Arg) -> String {
    let flag = match (arg.get_short(), arg.get_long()) {
        (Some(short), Some(long)) => format!("-{short}|--{long}"),
        (Some(short), None) => format!("-{short}"),
        (None, Some(long)) => format!("--{long}"),
        (None, None) => value_name(arg),
    };
    let takes = arg.get_action().takes_values();
    let mut words = if takes {
        format!("{flag} {}", value_name(arg))
    } else {
        flag
    };
    if matches!(arg.get_action(), clap::ArgAction::Append) {
        words.push_str("...");
    }
    if arg.is_required_set() {
        words
    } else {
        format!("[{words}]")
    }
}

fn value_name(arg: &clap::Arg) -> String {
    match arg.get_value_names() {
        Some(names) if !names.is_empty() => names
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" "),
        _ => arg.get_id().as_str().to_uppercase(),
    }
}
