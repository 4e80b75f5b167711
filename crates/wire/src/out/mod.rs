//! The one way out: every string this program writes for a person or to a file ends here,
//! cleaned of control and invisible characters (`wire::shown`) and scrubbed of the phone's own
//! secrets ([`secrets`]). An agent is untrusted input (SPEC L1): its words reach stdout,
//! stderr, `--json`, JUnit, logs, the journal and recordings' summaries, and each of those
//! writers calls [`text`], [`line()`], [`json`] or the printers below, never a raw `print!`.
//! The screens get the same cleaning cell by cell in `tui::clean_screen`.
//!
//! Order matters: clean first, then scrub, so a secret split by an invisible character is
//! joined before the scrub looks for it.

pub mod log_writer;
pub mod secrets;
pub mod words;

pub use words::count;

use std::borrow::Cow;
use std::io::Write;

use serde_json::Value;

use crate::wire::shown;

/// Text for a person or a file: line breaks and tabs stay.
pub fn text(s: &str) -> Cow<'_, str> {
    match shown::text(s) {
        Cow::Borrowed(s) => secrets::scrub(s),
        Cow::Owned(s) => Cow::Owned(secrets::scrub(&s).into_owned()),
    }
}

/// One line (a table cell, a name): line breaks and tabs go too, so an agent cannot forge a
/// row of its own.
pub fn line(s: &str) -> Cow<'_, str> {
    match shown::line(s) {
        Cow::Borrowed(s) => secrets::scrub(s),
        Cow::Owned(s) => Cow::Owned(secrets::scrub(&s).into_owned()),
    }
}

/// The inspector's form: removed characters become `⟨U+XXXX⟩` placeholders. A secret is
/// scrubbed first; one that only an invisible character kept apart is scrubbed from the
/// cleaned text instead, losing the placeholders rather than showing the token in two halves.
pub fn visible(s: &str) -> Cow<'_, str> {
    marked(s, shown::visible, shown::text)
}

/// [`visible`] for one line: line breaks and tabs become placeholders too.
pub fn visible_line(s: &str) -> Cow<'_, str> {
    marked(s, shown::visible_line, shown::line)
}

fn marked<'a>(
    s: &'a str,
    mark: fn(&str) -> Cow<'_, str>,
    strip: fn(&str) -> Cow<'_, str>,
) -> Cow<'a, str> {
    let scrubbed = secrets::scrub(s);
    let cleaned = strip(&scrubbed);
    if secrets::holds_secret(&cleaned) {
        return Cow::Owned(secrets::scrub(&cleaned).into_owned());
    }
    match scrubbed {
        Cow::Borrowed(s) => mark(s),
        Cow::Owned(s) => Cow::Owned(mark(&s).into_owned()),
    }
}

/// A JSON value for `--json` output or a file: every key and string cleaned and scrubbed.
pub fn json(mut value: Value) -> Value {
    shown::json(&mut value);
    scrub_json(&mut value);
    value
}

fn scrub_json(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Cow::Owned(clean) = secrets::scrub(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(scrub_json),
        Value::Object(map) => map.values_mut().for_each(scrub_json),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Writes `s` to stdout cleaned, and flushes, so a reader of a pipe sees it at once.
pub fn print(s: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text(s).as_bytes())?;
    stdout.flush()
}

/// [`print()`] with a line break.
pub fn println(s: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text(s).as_bytes())?;
    stdout.write_all(b"\n")?;
    stdout.flush()
}

/// Writes a JSON value as one line to stdout, cleaned by [`json`].
pub fn println_json(value: Value) -> std::io::Result<()> {
    println(&json(value).to_string())
}

/// Writes a line to stderr cleaned; a closed stderr is nothing to stop for.
pub fn eprintln(s: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text(s).as_bytes());
    let _ = stderr.write_all(b"\n");
}

/// Writes a file whose text is cleaned and scrubbed (a JUnit report, an export).
pub fn write_file(path: &std::path::Path, s: &str) -> std::io::Result<()> {
    std::fs::write(path, text(s).as_bytes())
}
