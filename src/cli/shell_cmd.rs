//! `collie-phone completions SHELL` and `collie-phone man`: what a shell and `man` need, made
//! from the same clap definitions the commands parse with, so they never drift from the flags.

use std::io::Write;
use std::path::PathBuf;

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
    let command = Cli::command();
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
