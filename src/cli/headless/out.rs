//! What a headless command prints, and how it ends. Lines go to stdout and are flushed one at
//! a time; a closed stdout ends the command quietly instead of panicking as `println!` would.
//! Everything goes out through `crate::out` (SPEC L1): a line is cleaned and scrubbed, and a
//! JSON line is cleaned value by value before it is encoded, since `jq -r` undoes escapes.

use std::process::ExitCode;

use serde_json::{Value, json};

use super::exit::Exit;

/// How a command ended, with what it has to say.
#[derive(Debug)]
pub struct Report {
    pub(crate) exit: Exit,
    /// Lines for a person (text mode).
    pub(crate) lines: Vec<String>,
    /// The same as one JSON value (`--json`).
    pub(crate) json: Value,
}

/// A command that ended before (or instead of) an intent: bad arguments, nothing to act on,
/// an agent out of reach, or an error.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) exit: Exit,
    pub(crate) message: String,
    /// More for `--json`, merged into the object.
    pub(crate) details: Option<Value>,
}

impl Failure {
    pub(crate) fn new(exit: Exit, message: impl Into<String>) -> Self {
        Self {
            exit,
            message: message.into(),
            details: None,
        }
    }

    pub(crate) fn with(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
}

impl From<anyhow::Error> for Failure {
    fn from(error: anyhow::Error) -> Self {
        let exit = if crate::cli::is_usage_error(&error) {
            Exit::BadArguments
        } else {
            Exit::Error
        };
        Self::new(exit, format!("{error:#}"))
    }
}

/// Writes one line to stdout, cleaned, and flushes it, so a reader of a pipe sees it at once.
pub(crate) fn line(text: &str) -> std::io::Result<()> {
    crate::out::println(text)
}

/// Writes one JSON value as a line to stdout, every string in it cleaned.
pub(crate) fn json_line(value: &Value) -> std::io::Result<()> {
    crate::out::println_json(value.clone())
}

/// Writes to stderr, cleaned; a closed stderr is nothing to stop for.
pub(crate) fn warn(text: &str) {
    crate::out::eprintln(text);
}

/// Runs a command's work on the runtime, then prints how it ended and gives its exit code.
pub(crate) fn run_to_end(
    json: bool,
    work: impl Future<Output = Result<Report, Failure>>,
) -> anyhow::Result<ExitCode> {
    let result = crate::cli::runtime()
        .map_err(Failure::from)
        .and_then(|runtime| runtime.block_on(work));
    finish(json, result)
}

/// Prints how the command ended and gives its exit code.
pub(crate) fn finish(json: bool, result: Result<Report, Failure>) -> anyhow::Result<ExitCode> {
    let exit = match result {
        Ok(report) => {
            let written = if json {
                json_line(&report.json)
            } else {
                report.lines.iter().try_for_each(|l| line(l))
            };
            if let Err(e) = written {
                tracing::warn!("could not write the result to stdout: {e}");
            }
            report.exit
        }
        Err(failure) => {
            if json {
                let mut object = json!({
                    "exit": failure.exit.number(),
                    "result": failure.exit.name(),
                    "message": failure.message,
                });
                if let (Some(Value::Object(extra)), Value::Object(map)) =
                    (failure.details, &mut object)
                {
                    map.extend(extra);
                }
                if let Err(e) = json_line(&object) {
                    tracing::warn!("could not write the result to stdout: {e}");
                }
            } else {
                warn(&format!("collie-phone: {}", failure.message));
            }
            failure.exit
        }
    };
    Ok(exit.code())
}
