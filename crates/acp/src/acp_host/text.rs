//! Words from an ACP agent, cut and cleaned before they go anywhere (SPEC L1): into the world
//! the phone reads, into the state file, into the host's log.

use serde_json::Value;

use crate::wire::sanitize::{Lines, Report, clean};

/// One line: no controls, no line breaks, at most `limits::MAX_TITLE` bytes.
pub(crate) fn clean_line(text: &str) -> String {
    cleaned(text, crate::wire::limits::MAX_TITLE, Lines::Single)
}

/// Chat text: line breaks and tabs stay, controls go, cut to `max` bytes.
pub(crate) fn clean_text(text: &str, max: usize) -> String {
    cleaned(text, max, Lines::Multi)
}

/// A terminal's output for its chat item: its colours and other terminal sequences taken out
/// whole (as a log line's), then chat text, cut to `max` bytes.
pub(crate) fn terminal_text(text: &str, max: usize) -> String {
    cleaned(&without_sequences(text), max, Lines::Multi)
}

/// A line of the agent's stderr for the host's log: its colours and other terminal
/// sequences taken out whole, then one line, controls gone, at most 1 KiB.
pub fn log_line(text: &str) -> String {
    cleaned(&without_sequences(text), 1024, Lines::Single)
}

/// Drops ECMA-48 sequences whole: CSI (`ESC [` … final byte, as agents colour their logs),
/// OSC and the other strings (`ESC ]`, `P`, `X`, `^`, `_` … BEL or `ESC \`), and two-byte
/// escapes. Cleaning alone would drop only the ESC and leave `[2m` in the log. By hand: the
/// crates that do this pull in a whole terminal parser for a dozen lines.
fn without_sequences(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                // Parameters and intermediates, then one final byte in @..~.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']' | 'P' | 'X' | '^' | '_') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn cleaned(text: &str, max: usize, lines: Lines) -> String {
    let mut text = text.to_string();
    clean(&mut text, max, lines, "", &mut Report::default());
    text
}

/// Every string of a JSON value, keys included, cleaned (line breaks stay in values).
pub(crate) fn clean_value(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(clean_text(&s, usize::MAX)),
        Value::Array(items) => Value::Array(items.into_iter().map(clean_value).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (clean_line(&k), clean_value(v)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l1_escapes_and_bidi_go_line_breaks_stay_where_allowed() {
        let hostile = "ok\u{1b}]52;c;cHduZWQ=\u{7}\u{202e}\nnext\u{9b}2J";
        assert_eq!(clean_text(hostile, 1000), "ok]52;c;cHduZWQ=\nnext2J");
        assert_eq!(clean_line(hostile), "ok]52;c;cHduZWQ=next2J");
        assert_eq!(log_line(&"x".repeat(5000)).len(), 1024);
        // A coloured log line from an agent (codex-acp's, as seen): the sequences go whole.
        let coloured = "\u{1b}[2m2026-12-01T23:17:03Z\u{1b}[0m \u{1b}[32m INFO\u{1b}[0m reloading \u{1b}]0;t\u{7}auth";
        assert_eq!(
            log_line(coloured),
            "2026-12-01T23:17:03Z  INFO reloading auth"
        );
        let value = clean_value(serde_json::json!({"a\u{1b}": ["b\u{7}", 1]}));
        assert_eq!(value, serde_json::json!({"a": ["b", 1]}));
    }
}
