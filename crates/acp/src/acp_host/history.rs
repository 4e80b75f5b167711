//! The agent's own sessions as conversations of History (docs/ACP.md, "Sessions the agent
//! keeps"): what `session/list` gave for a workspace folder, those started in the agent's own
//! CLI too, each a conversation with its title and the time it was last updated, held by the
//! host under its session id so reopening it resumes (or loads) that session.

use std::path::Path;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::client::Failure;
use super::sessions::Listed;
use super::text::clean_line;
use crate::durable::world::{HostedSession, World};

/// Conversations made from one listing at most (History shows the newest first).
const MAX_LISTED: usize = 50;

/// Adds the sessions the agent listed for `cwd` that History does not hold yet, and gives
/// the ids of the conversations it made: their first opening shows the agent's replay.
pub(crate) fn listed(
    world: &mut World,
    agent: &str,
    cwd: &Path,
    sessions: Result<Vec<Listed>, Failure>,
    now: OffsetDateTime,
) -> Vec<String> {
    let sessions = match sessions {
        Ok(sessions) => sessions,
        Err(failure) => {
            tracing::info!(agent, cwd = %cwd.display(), ?failure, "session/list was refused");
            return Vec::new();
        }
    };
    let mut made = Vec::new();
    for listed in sessions.into_iter().take(MAX_LISTED) {
        let held = world
            .layout
            .held_sessions
            .values()
            .any(|h| h.agent == agent && h.session.as_deref() == Some(listed.session.as_str()));
        if held {
            continue;
        }
        let title = listed
            .title
            .clone()
            .unwrap_or_else(|| format!("{agent} session {}", short_id(&listed.session)));
        let title = crate::wire::sanitize::truncate_to(
            &clean_line(&format!("{agent}: {title}")),
            crate::wire::limits::MAX_TITLE,
        )
        .to_string();
        let at = listed
            .updated_at
            .as_deref()
            .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok())
            .unwrap_or(now);
        let conversation = world.add_past_conversation(&title, Vec::new(), at);
        world.layout.held_sessions.insert(
            conversation.clone(),
            HostedSession {
                agent: agent.to_string(),
                cwd: cwd.to_path_buf(),
                session: Some(listed.session),
            },
        );
        made.push(conversation);
    }
    if !made.is_empty() {
        world.touch();
    }
    made
}

/// A session id as a reader can tell it apart: its first eight characters.
fn short_id(id: &str) -> String {
    clean_line(&id.chars().take(8).collect::<String>())
}
