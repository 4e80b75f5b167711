//! The `collie-phone` binary: parse the command line and hand over to `cli`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // clap prints usage errors itself and exits with 2.
    let cli = collie_phone::cli::Cli::parse();
    match collie_phone::cli::run(cli) {
        Ok(code) => code,
        Err(error) => {
            // The top of the program: the one place the error is told to the person.
            // Errors quote agents (a reply body, a header), so this goes out cleaned.
            collie_phone::out::eprintln(&format!("collie-phone: {error:#}"));
            collie_phone::cli::failure_code(&error)
        }
    }
}
