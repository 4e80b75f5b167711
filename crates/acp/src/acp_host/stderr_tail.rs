//! The last lines an ACP agent printed on stderr, kept for the notice of a pane whose agent
//! stopped (before its session opened, or mid-turn): an agent that cannot start says why on
//! stderr, and a person should not have to open the host's log to read it. Every line still
//! goes to the log whole (`client::read_stderr`).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::text::log_line;

/// How many lines a notice carries, at most.
const LINES: usize = 3;
/// How many characters of them, at most: the end is kept, where the reason is.
const CHARS: usize = 240;
/// The stderr lines are read by a task of their own: what the process printed just before it
/// closed its stdout arrives moments later. Past this, what has come is what is told.
const SETTLE: Duration = Duration::from_millis(150);

/// Shared between the stderr reader and whoever tells that the process went.
#[derive(Debug, Clone, Default)]
pub(crate) struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    /// Keeps one line as the log has it (sequences out, cleaned, SPEC L1); blank lines are
    /// not kept.
    pub(crate) fn push(&self, line: &str) {
        let line = log_line(line);
        if line.trim().is_empty() {
            return;
        }
        let mut lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        lines.push_back(line);
        while lines.len() > LINES {
            lines.pop_front();
        }
    }

    /// The last lines, once the reader has had its moment; empty when it printed nothing.
    pub(crate) async fn settled(&self) -> String {
        tokio::time::sleep(SETTLE).await;
        self.said()
    }

    /// The last lines as one line (` ⏎ ` between them), the phone's tokens scrubbed (SPEC T2),
    /// cut at the front to [`CHARS`].
    pub(crate) fn said(&self) -> String {
        let lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let joined = lines
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ⏎ ");
        // Each line is cleaned already (`log_line`); the joined whole is only scrubbed.
        let joined = crate::out::secrets::scrub(&joined).into_owned();
        let count = joined.chars().count();
        if count <= CHARS {
            return joined;
        }
        let kept: String = joined.chars().skip(count - (CHARS - 1)).collect();
        format!("…{kept}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l1_the_last_three_lines_cleaned_and_cut_to_240_characters() {
        let tail = StderrTail::default();
        for line in [
            "one",
            "",
            "\u{1b}[31mtwo\u{1b}[0m",
            "three",
            "Error: four\u{7}",
        ] {
            tail.push(line);
        }
        assert_eq!(tail.said(), "two ⏎ three ⏎ Error: four");
        tail.push(&"x".repeat(500));
        let said = tail.said();
        assert_eq!(said.chars().count(), 240);
        assert!(said.starts_with('…') && said.ends_with("xxx"));
        crate::out::secrets::remember("sk-secret-0123456789abcdef");
        tail.push("key sk-secret-0123456789abcdef refused");
        assert!(
            tail.said().ends_with("key [token hidden] refused"),
            "{}",
            tail.said()
        );
    }
}
