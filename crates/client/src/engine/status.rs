//! What the phone shows about an agent's connection (SPEC H1, H3, H6, S4, T6, V4, V5).

use serde::Serialize;
use time::OffsetDateTime;

use crate::wire::ProtocolRange;

/// An agent's state, in the words SPEC and docs/ENGINE.md use.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum AgentStatus {
    /// Not heard from yet.
    Connecting,
    /// hello says ready is false, or a route answered 503 starting (SPEC H3).
    Starting,
    Ready,
    /// Two failures in a row (SPEC H6), with the last failure's reason.
    Unreachable {
        reason: String,
        #[serde(with = "time::serde::rfc3339::option")]
        last_seen: Option<OffsetDateTime>,
    },
    /// The version ranges do not meet (SPEC V4, V5).
    Incompatible {
        agent: ProtocolRange,
        collie: ProtocolRange,
    },
    /// hello's service is not `collie-durable` (SPEC H1): no further calls.
    OtherServer {
        service: String,
    },
    /// 401 or 403 (SPEC T6); `bridge` when a DSH bridge refused it, whose token comes from
    /// another flag (docs/DSH.md, D1).
    TokenRefused {
        status: u16,
        #[serde(skip)]
        bridge: bool,
    },
    /// A DSH bridge answered, but nothing is at the URL's path (a 404 on its health route):
    /// the bridge is there and the URL is wrong, which waiting does not mend.
    WrongPath {
        url: String,
        status: u16,
    },
    /// The socket path failed the privacy check (SPEC S3, S4): no connection was made.
    SocketNotPrivate {
        part: String,
        why: String,
        fix: Option<String>,
    },
}

impl AgentStatus {
    pub fn name(&self) -> &'static str {
        match self {
            Self::Connecting => "connecting",
            Self::Starting => "starting",
            Self::Ready => "ready",
            Self::Unreachable { .. } => "unreachable",
            Self::Incompatible { .. } => "incompatible",
            Self::OtherServer { .. } => "other-server",
            Self::TokenRefused { .. } => "token-refused",
            Self::WrongPath { .. } => "wrong-path",
            Self::SocketNotPrivate { .. } => "socket-not-private",
        }
    }

    /// The state word and the code a person looks up (`collie-phone rules S4`, doctor,
    /// docs/ENGINE.md) for the states no connection mends by itself:
    /// `unreachable · socket-not-private`. None for the others, whose word says it all.
    pub fn word_and_code(&self) -> Option<String> {
        match self {
            Self::Incompatible { .. }
            | Self::OtherServer { .. }
            | Self::TokenRefused { .. }
            | Self::SocketNotPrivate { .. } => Some(format!("unreachable · {}", self.name())),
            _ => None,
        }
    }

    /// One sentence for the phone's screen, in Collie's voice: the state word and the code
    /// first where there is one (`word_and_code`), then what failed and its fix, once.
    pub fn sentence(&self) -> String {
        let plain = self.plain();
        match self.word_and_code() {
            Some(code) => format!("{code}: {plain}"),
            None => plain,
        }
    }

    /// What the sentence says after the state word and the code.
    pub fn plain(&self) -> String {
        match self {
            Self::Connecting => "Connecting…".into(),
            Self::Starting => "Starting: the agent is laying out its panes.".into(),
            Self::Ready => "Ready.".into(),
            Self::Unreachable { reason, last_seen } => match last_seen {
                Some(at) => format!(
                    "Unreachable: {reason}. Last seen {:02}:{:02}.",
                    at.hour(),
                    at.minute()
                ),
                None => format!("Unreachable: {reason}."),
            },
            Self::Incompatible { agent, collie } if agent.min > collie.max => format!(
                "The durable agent speaks wire {agent}, this Collie speaks {collie}. Update Collie, or the agent's SDK."
            ),
            Self::Incompatible { agent, collie } => format!(
                "The durable agent speaks wire {agent}, this Collie speaks {collie}. Update the agent's SDK, or use an older Collie."
            ),
            Self::OtherServer { service } => {
                format!(
                    "This is not a durable agent: it calls itself \"{service}\". Collie stopped calling it."
                )
            }
            Self::TokenRefused {
                status,
                bridge: false,
            } => format!(
                "The agent refused the token ({status}). Check the token file (--token-file)."
            ),
            Self::TokenRefused {
                status,
                bridge: true,
            } => format!(
                "The bridge refused the token ({status}). Check the token file (--dsh-token-file)."
            ),
            Self::WrongPath { url, status } => format!(
                "The bridge answered {status} at {url}: nothing is there. Check the URL's path (the desktop's bridge is at /codex-bridge)."
            ),
            // No connection was made (SPEC S4): the code says so; then the part that failed.
            Self::SocketNotPrivate { part, why, fix } => {
                let failed = if why.starts_with("is ") {
                    format!("{part} {why}")
                } else {
                    format!("{part}: {why}")
                };
                match fix {
                    Some(fix) => format!("{failed}. Fix: {fix}"),
                    None => format!("{failed}."),
                }
            }
        }
    }

    /// True when the engine keeps reading snapshots and events.
    pub fn is_ready(&self) -> bool {
        matches!(self, Self::Ready)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_token_names_the_flag_of_who_refused_it() {
        let agent = AgentStatus::TokenRefused {
            status: 401,
            bridge: false,
        };
        assert_eq!(
            agent.sentence(),
            "unreachable · token-refused: The agent refused the token (401). Check the token file (--token-file)."
        );
        let bridge = AgentStatus::TokenRefused {
            status: 403,
            bridge: true,
        };
        assert_eq!(
            bridge.sentence(),
            "unreachable · token-refused: The bridge refused the token (403). Check the token file (--dsh-token-file)."
        );
    }

    #[test]
    fn s4_the_state_word_and_the_code_come_first_then_the_part_that_failed() {
        let status = AgentStatus::SocketNotPrivate {
            part: "/tmp/x/link".into(),
            why: "is a symlink".into(),
            fix: None,
        };
        assert_eq!(
            status.sentence(),
            "unreachable · socket-not-private: /tmp/x/link is a symlink."
        );
        let refused = AgentStatus::TokenRefused {
            status: 401,
            bridge: false,
        };
        assert!(
            refused
                .sentence()
                .starts_with("unreachable · token-refused: The agent refused the token (401).")
        );
        assert_eq!(AgentStatus::Ready.word_and_code(), None);
    }

    #[test]
    fn v5_incompatible_sentence() {
        let status = AgentStatus::Incompatible {
            agent: ProtocolRange { min: 2, max: 2 },
            collie: ProtocolRange { min: 1, max: 1 },
        };
        assert_eq!(
            status.sentence(),
            "unreachable · incompatible: The durable agent speaks wire v2, this Collie speaks v1. Update Collie, or the agent's SDK."
        );
    }
}
