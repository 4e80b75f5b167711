//! A session's life on the agent's side (docs/ACP.md, "Sessions the agent keeps"): what the
//! agent said it can do with sessions (`initialize`), opening one — new, in the mode that asks
//! most before acting or the one the person chose, loaded with its replay, or resumed without
//! one, each back in the mode its pane was in — closing it, and the agent's own list of
//! sessions for a folder.

use std::path::PathBuf;

use agent_client_protocol::Agent;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CloseSessionRequest, ListSessionsRequest, LoadSessionRequest,
    NewSessionRequest, ResumeSessionRequest, SessionModeState, SetSessionModeRequest,
};

use super::settings::starting_mode;
use super::text::clean_line;

/// What an agent can do with its sessions, as its `initialize` reply said.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Abilities {
    /// `session/load`: the session again, its conversation replayed.
    pub(crate) load: bool,
    /// `session/resume`: the session again, no replay.
    pub(crate) resume: bool,
    /// `session/list`: the agent's own sessions.
    pub(crate) list: bool,
    /// `session/close`: the agent lets a session go.
    pub(crate) close: bool,
    /// ACP v2's `session/resume` with `replayFrom`: a session from the agent's list comes
    /// back with its conversation replayed (opened as [`Opening::Load`]), where v1 resumes it
    /// with none.
    pub(crate) replay: bool,
}

impl Abilities {
    pub(crate) fn of(capabilities: &AgentCapabilities) -> Self {
        let sessions = &capabilities.session_capabilities;
        Self {
            load: capabilities.load_session,
            resume: sessions.resume.is_some(),
            list: sessions.list.is_some(),
            close: sessions.close.is_some(),
            replay: false,
        }
    }

    /// How a session the host knows comes back: resumed where the agent offers it (the host
    /// holds the conversation already), else loaded; `None` when it can do neither. One whose
    /// history the pane does not hold yet (`unheld`: from the agent's list) is replayed where
    /// the agent can (ACP v2's `replayFrom`).
    pub(crate) fn again(self, session: String, unheld: bool) -> Option<Opening> {
        if unheld && self.replay {
            Some(Opening::Load(session))
        } else if self.resume {
            Some(Opening::Resume(session))
        } else if self.load {
            Some(Opening::Load(session))
        } else {
            None
        }
    }
}

/// How a pane's session opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Opening {
    /// `session/new`, then `session/set_mode` to the mode it should start in.
    New,
    /// `session/load`: the agent replays the conversation.
    Load(String),
    /// `session/resume`: the agent takes the session up again, replaying nothing.
    Resume(String),
}

/// A session as it opened: its id, whether the host knew it before (loaded or resumed), its
/// modes and options, and what the pane is told of its starting mode.
pub(crate) type Opened = (
    String,
    bool,
    Option<SessionModeState>,
    Option<Vec<agent_client_protocol::v1::schema::SessionConfigOption>>,
    Option<String>,
);

/// Opens a pane's session. `mode` is the mode a new session starts in when the person chose
/// one for the agent; `back` the mode the pane was in, which a loaded or resumed session is put
/// back in.
pub(crate) async fn open(
    cx: &ConnectionTo<Agent>,
    agent: &str,
    mode: Option<&str>,
    back: Option<&str>,
    cwd: PathBuf,
    how: Opening,
) -> Result<Opened, agent_client_protocol::Error> {
    match how {
        Opening::Load(session) => {
            let reply = cx
                .send_request(LoadSessionRequest::new(session.clone(), cwd))
                .block_task()
                .await?;
            let (modes, note) = back_in_mode(cx, agent, &session, reply.modes, back, mode).await;
            Ok((session, true, modes, reply.config_options, note))
        }
        Opening::Resume(session) => {
            let reply = cx
                .send_request(ResumeSessionRequest::new(session.clone(), cwd))
                .block_task()
                .await?;
            let (modes, note) = back_in_mode(cx, agent, &session, reply.modes, back, mode).await;
            Ok((session, true, modes, reply.config_options, note))
        }
        Opening::New => match cx
            .send_request(NewSessionRequest::new(cwd))
            .block_task()
            .await
        {
            Ok(reply) => {
                let session = reply.session_id.0.to_string();
                let (modes, note) = start_in_mode(cx, agent, &session, reply.modes, mode).await;
                Ok((session, false, modes, reply.config_options, note))
            }
            Err(error) => Err(error),
        },
    }
}

/// A new session is switched to the mode it should start in before anything is prompted
/// (docs/ACP.md, "The mode a session starts in"): the modes as they now are, and what the
/// pane should be told when the person's mode or the switch could not be had.
async fn start_in_mode(
    cx: &ConnectionTo<Agent>,
    agent: &str,
    session: &str,
    modes: Option<SessionModeState>,
    chosen: Option<&str>,
) -> (Option<SessionModeState>, Option<String>) {
    let Some(mut modes) = modes else {
        let note = chosen.map(|mode| {
            format!(
                "{agent} offers no modes, so the mode {} chosen for it was not set.",
                clean_line(mode)
            )
        });
        return (None, note);
    };
    let offered = offered_ids(&modes);
    let (wanted, mut note) = starting_mode(agent, &offered, &modes.current_mode_id.0, chosen);
    if let Some(wanted) = wanted {
        match cx
            .send_request(SetSessionModeRequest::new(
                session.to_string(),
                wanted.clone(),
            ))
            .block_task()
            .await
        {
            Ok(_) => {
                tracing::info!(agent, session, mode = %wanted, "the new session starts in this mode");
                modes.current_mode_id = wanted.into();
            }
            Err(error) => {
                let why = super::text::log_line(&error.to_string());
                tracing::warn!(agent, session, %why, "the starting mode could not be set");
                note = Some(format!(
                    "{agent} did not switch this new session to the mode {}; it stays in {}.",
                    clean_line(&wanted),
                    clean_line(&modes.current_mode_id.0)
                ));
            }
        }
    }
    (Some(modes), note)
}

/// A loaded or resumed session is put back in the mode its pane was in (`back`: the person's
/// last switch, or the mode the host started it in), else, for a pane that showed none, in the
/// mode a new session starts in (docs/ACP.md, "The mode after a restart or a reload"): an agent
/// may bring a session back in another mode than it was in (codex-acp 2.6 resumed a read-only
/// session in `workspace-write`, and ran a command without asking). The modes as they now are,
/// and what the pane is told when the mode could not be put back; the log says it too.
async fn back_in_mode(
    cx: &ConnectionTo<Agent>,
    agent: &str,
    session: &str,
    modes: Option<SessionModeState>,
    back: Option<&str>,
    chosen: Option<&str>,
) -> (Option<SessionModeState>, Option<String>) {
    let Some(mut modes) = modes else {
        let note = back.map(|mode| {
            tracing::warn!(agent, session, mode, "the session came back with no modes; its mode could not be put back");
            format!(
                "{agent} came back with no modes, so the mode {} this pane was in could not be put back.",
                clean_line(mode)
            )
        });
        return (None, note);
    };
    let offered = offered_ids(&modes);
    let current = modes.current_mode_id.0.to_string();
    let (wanted, mut note) = match back {
        Some(mode) if offered.contains(&mode) => {
            ((mode != current).then(|| mode.to_string()), None)
        }
        Some(mode) => {
            tracing::warn!(agent, session, mode, current = %current, "the session came back without the mode its pane was in");
            let (wanted, _) = starting_mode(agent, &offered, &current, chosen);
            let now = wanted.as_deref().unwrap_or(&current);
            let note = format!(
                "{agent} no longer offers the mode {} this pane was in, so it is in {}: check the mode (s) before you send.",
                clean_line(mode),
                clean_line(now)
            );
            (wanted, Some(note))
        }
        None => starting_mode(agent, &offered, &current, chosen),
    };
    if let Some(wanted) = wanted {
        match cx
            .send_request(SetSessionModeRequest::new(
                session.to_string(),
                wanted.clone(),
            ))
            .block_task()
            .await
        {
            Ok(_) => {
                tracing::info!(agent, session, mode = %wanted, came_back_in = %current, "the session is back in its mode");
                modes.current_mode_id = wanted.into();
            }
            Err(error) => {
                let why = super::text::log_line(&error.to_string());
                tracing::warn!(agent, session, mode = %wanted, current = %current, %why, "the session's mode could not be put back");
                note = Some(format!(
                    "{agent} came back in the mode {} and did not go back to {}, the mode this pane was in ({}): check the mode (s) before you send.",
                    clean_line(&current),
                    clean_line(&wanted),
                    clean_line(&error.message)
                ));
            }
        }
    }
    (Some(modes), note)
}

/// `session/close` where the agent offers it: the pane is closed, the agent may let the
/// session's resources go.
pub(crate) async fn close(cx: &ConnectionTo<Agent>, agent: &str, session: String) {
    if let Err(error) = cx
        .send_request(CloseSessionRequest::new(session.clone()))
        .block_task()
        .await
    {
        tracing::info!(agent, session, error = %super::text::log_line(&error.to_string()), "session/close was refused");
    }
}

/// One of the agent's own sessions in a folder, as `session/list` gave it, cleaned (SPEC L1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    pub(crate) session: String,
    pub(crate) title: Option<String>,
    /// RFC 3339, as the agent said it.
    pub(crate) updated_at: Option<String>,
}

/// Pages of `session/list` for a folder read at most.
const MAX_LIST_PAGES: usize = 5;

/// The agent's sessions in `cwd`, every page up to [`MAX_LIST_PAGES`].
pub(crate) async fn list(
    cx: &ConnectionTo<Agent>,
    cwd: PathBuf,
) -> Result<Vec<Listed>, agent_client_protocol::Error> {
    let mut found = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_LIST_PAGES {
        let reply = cx
            .send_request(ListSessionsRequest::new().cwd(cwd.clone()).cursor(cursor))
            .block_task()
            .await?;
        found.extend(
            reply
                .sessions
                .into_iter()
                .filter(|s| s.cwd == cwd)
                .map(|s| Listed {
                    session: s.session_id.0.to_string(),
                    title: s.title.as_deref().map(clean_line).filter(|t| !t.is_empty()),
                    updated_at: s.updated_at.as_deref().map(clean_line),
                }),
        );
        cursor = reply.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    Ok(found)
}

/// The ids of the modes a session offers, in its order.
fn offered_ids(modes: &SessionModeState) -> Vec<&str> {
    modes
        .available_modes
        .iter()
        .map(|m| m.id.0.as_ref())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::InitializeResponse;

    fn abilities(jsonl: &str) -> Abilities {
        let first: serde_json::Value =
            serde_json::from_str(jsonl.lines().next().expect("a line")).expect("json");
        let init: InitializeResponse =
            serde_json::from_value(first["result"].clone()).expect("an initialize reply");
        Abilities::of(&init.agent_capabilities)
    }

    #[test]
    fn todays_adapters_offer_list_resume_and_close() {
        let all = Abilities {
            load: true,
            resume: true,
            list: true,
            close: true,
            replay: false,
        };
        for fixture in [
            include_str!("../../../../tests/fixtures/acp/real/claude-agent-acp-0.101.0-open.jsonl"),
            include_str!("../../../../tests/fixtures/acp/real/codex-acp-2.6.0-open.jsonl"),
        ] {
            let offered = abilities(fixture);
            assert_eq!(offered, all);
            // A known session comes back resumed, the host holding its conversation.
            assert_eq!(
                offered.again("s".into(), false),
                Some(Opening::Resume("s".into()))
            );
        }
        let load_only = Abilities {
            load: true,
            ..Abilities::default()
        };
        assert_eq!(
            load_only.again("s".into(), false),
            Some(Opening::Load("s".into()))
        );
        assert_eq!(Abilities::default().again("s".into(), false), None);
    }
}
