//! The exit codes of the headless commands: one table, so `--help`, docs/SCRIPTING.md and the
//! code can never tell different stories. A script branches on these numbers.

use std::process::ExitCode;

use crate::engine::{IntentRecord, IntentState};
use crate::model::intents::is_retryable;

/// How a headless command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// The agent took it (a replay of the same request id counts: it ran once).
    Done,
    /// The agent refused it (another code), or something else went wrong.
    Error,
    /// The command line does not fit: a wrong option, field or value.
    BadArguments,
    /// SPEC A3: the ask changed before the answer arrived.
    Stale,
    /// SPEC A7: someone or something decided the ask first; nothing ran.
    Decided,
    /// SPEC A8: the agent does not know the ask (now).
    TooLate,
    /// SPEC Q4: not sure it arrived; `--retry REQUEST_ID` sends it once more.
    Unknown,
    /// SPEC Q5: a retry could not tell whether the first try ran; never sent again.
    MaybeApplied,
    /// The agent could not be reached, or was not ready in time; nothing was sent.
    Unreachable,
    /// No open ask, pane, running turn, starter or receipt with that id.
    NotFound,
}

/// Every exit, its number, its name in JSON, and its meaning for `--help` and the docs.
pub(crate) const TABLE: [(Exit, u8, &str, &str); 10] = [
    (
        Exit::Done,
        0,
        "done",
        "done: the agent took it (also when it was replayed: it ran once)",
    ),
    (
        Exit::Error,
        1,
        "error",
        "refused by the agent, or another error (the message says which)",
    ),
    (
        Exit::BadArguments,
        2,
        "bad-arguments",
        "bad arguments: a wrong flag, option, field or value",
    ),
    (
        Exit::Stale,
        3,
        "stale",
        "stale: the ask changed; read it again and answer again",
    ),
    (
        Exit::Decided,
        4,
        "decided",
        "decided: the ask was decided first (another answer, the agent, or a timeout)",
    ),
    (
        Exit::TooLate,
        5,
        "too-late",
        "too late: the agent does not know the ask now; it may come back",
    ),
    (
        Exit::Unknown,
        6,
        "unknown",
        "unknown: not sure it arrived; --retry REQUEST_ID sends it once more",
    ),
    (
        Exit::MaybeApplied,
        7,
        "maybe-applied",
        "maybe applied: check the chat; it is never sent again",
    ),
    (
        Exit::Unreachable,
        8,
        "unreachable",
        "unreachable: the agent was not reached or not ready in time; nothing was sent",
    ),
    (
        Exit::NotFound,
        9,
        "not-found",
        "not found: no open ask, pane, running turn, starter or receipt with that id",
    ),
];

impl Exit {
    fn row(self) -> (Exit, u8, &'static str, &'static str) {
        TABLE
            .iter()
            .copied()
            .find(|(exit, ..)| *exit == self)
            .unwrap_or(TABLE[1])
    }

    pub(crate) fn number(self) -> u8 {
        self.row().1
    }

    pub(crate) fn name(self) -> &'static str {
        self.row().2
    }

    pub(crate) fn code(self) -> ExitCode {
        ExitCode::from(self.number())
    }

    /// The exit of an intent's outcome.
    pub(crate) fn of(record: &IntentRecord) -> Self {
        match &record.state {
            IntentState::Done { .. } | IntentState::Replayed { .. } => Self::Done,
            IntentState::Stale { .. } => Self::Stale,
            IntentState::Decided { .. } => Self::Decided,
            IntentState::TooLate => Self::TooLate,
            IntentState::NotSent { .. } => Self::Unreachable,
            IntentState::Unknown { .. } if is_retryable(record) => Self::Unknown,
            // An unknown second try is as good as maybe applied: it is never sent again (Q5).
            IntentState::Unknown { .. } | IntentState::MaybeApplied => Self::MaybeApplied,
            // Still on its way when we stopped waiting: nobody knows yet (Q4).
            IntentState::Created | IntentState::Sending => Self::Unknown,
            IntentState::RequestIdReused | IntentState::Refused { .. } => Self::Error,
        }
    }
}

/// The exit table as `--help` shows it.
pub(crate) fn help() -> String {
    let mut text = String::from("Exit codes:\n");
    for (_, number, _, meaning) in TABLE {
        text.push_str(&format!("  {number}  {meaning}\n"));
    }
    text.push_str(
        "\nThe receipts are in $XDG_STATE_HOME/collie-phone/intents.jsonl, shared with the phone.",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_names_are_distinct() {
        let mut numbers: Vec<u8> = TABLE.iter().map(|row| row.1).collect();
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(numbers.len(), TABLE.len());
        let mut names: Vec<&str> = TABLE.iter().map(|row| row.2).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TABLE.len());
        for (exit, number, name, _) in TABLE {
            assert_eq!(exit.number(), number);
            assert_eq!(exit.name(), name);
        }
    }

    fn record(state: IntentState, attempts: u32) -> IntentRecord {
        IntentRecord {
            request_id: "r-1".into(),
            agent: "a".into(),
            kind: crate::engine::IntentKind::Abort {
                pane: "p".into(),
                turn_id: "t".into(),
            },
            attempts,
            state,
            created_at: "2026-11-30T00:00:00Z".into(),
            checking: false,
            epoch: None,
        }
    }

    #[test]
    fn every_outcome_has_its_exit() {
        use crate::engine::Decider;
        use crate::wire::PostReply;
        let mut replayed = PostReply::ok("r-1");
        replayed.replayed = true;
        let cases = [
            (
                IntentState::Done {
                    reply: PostReply::ok("r-1"),
                },
                1,
                Exit::Done,
            ),
            // SPEC Q3: a replay ran once, so it is done.
            (IntentState::Replayed { reply: replayed }, 2, Exit::Done),
            (IntentState::Stale { revision: Some(2) }, 1, Exit::Stale),
            (
                IntentState::Decided {
                    by: Decider::Timeout,
                    outcome: None,
                },
                1,
                Exit::Decided,
            ),
            (IntentState::TooLate, 1, Exit::TooLate),
            (IntentState::Unknown { why: "cut".into() }, 1, Exit::Unknown),
            // SPEC Q5: a second try that is itself unknown is never sent again.
            (
                IntentState::Unknown { why: "cut".into() },
                2,
                Exit::MaybeApplied,
            ),
            (IntentState::MaybeApplied, 2, Exit::MaybeApplied),
            (
                IntentState::NotSent { why: "down".into() },
                0,
                Exit::Unreachable,
            ),
            (IntentState::RequestIdReused, 1, Exit::Error),
            (
                IntentState::Refused {
                    status: 409,
                    code: "turn-changed".into(),
                    message: None,
                },
                1,
                Exit::Error,
            ),
            (IntentState::Sending, 1, Exit::Unknown),
        ];
        for (state, attempts, exit) in cases {
            assert_eq!(
                Exit::of(&record(state.clone(), attempts)),
                exit,
                "{state:?}"
            );
        }
    }

    #[test]
    fn help_lists_every_code() {
        let help = help();
        for (_, number, _, meaning) in TABLE {
            assert!(help.contains(&format!("{number}  {meaning}")));
        }
    }
}
