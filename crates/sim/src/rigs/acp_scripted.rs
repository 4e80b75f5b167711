//! Our own ACP agent, on the official crate's agent side, for `demo --acp` and the tests: a
//! real process speaking ACP on its stdio, so the host is seen working end to end without an
//! account anywhere.
//!
//! Every prompt plays the same turn: it thinks, makes a plan, streams a message, reads a file
//! (the first read of a session fails, once), asks permission to run the tests with all four
//! option kinds, runs them or not as answered, proposes an edit as a diff, and ends. Words in
//! the prompt steer it, so tests can reach every path: `fail` answers the prompt with an error,
//! `crash` exits the process, `slow` streams for a long time (to be cancelled), `/test` only
//! asks and runs the tests, `twice` asks the same permission again while the first card is open,
//! `hostile` says and names things with terminal escapes in them, `/tool` runs one command as
//! claude-code-acp reports it (the same `tool_call` twice, then its updates), `/tool-open` ends
//! the turn with that call still running (`/tool-hold` holds the turn until it is stopped), and
//! `/cancel-self` ends the turn `cancelled` by itself with the call open; `/withdraw` asks a
//! permission and takes it back with `$/cancel_request` three seconds later; `/replay FILE` sends
//! the updates of a fixture of a real agent's notifications and asks its permission requests.
//! A session is kept in the sessions folder only once it was prompted, as the real agents keep
//! theirs.
//!
//! `/ask`, `/pick`, `/link` (and `/link-done`, `/ask-wide`) ask the person through the client
//! (`elicitation/create`) and keep what came back in the session's history as
//! `("elicitation", "{…reply…}")`.
//!
//! It offers modes (`ask`, `plan`, and `yolo`, which stands for the modes that act without
//! asking) and keeps their word: in `ask` and `plan` every command and every edit asks first
//! (an edit's request carries its diff), in `yolo` nothing asks, and an "allow always" or
//! "deny always" answer stands for that kind of tool (`execute`, `edit`) for the rest of the
//! session; what it ran or changed is kept in the session's history as `("done", what)`. It
//! offers a config option (`speed`: `careful`, `quick`, and `refused`, which it refuses with an
//! error), a boolean option (`compact`, on at first) only to a client that says it takes them
//! (`session.configOptions.boolean`, as ACP asks of agents), and six commands (`/test`, `/review`, `/tool`, `/tool-open`, `/explain`, `/mode`;
//! `/mode` says the mode and speed it is in). It answers `session/set_mode` and
//! `session/set_config_option`, sends the matching update, and keeps each switch in the
//! session's history as `("setting", "mode=plan,speed=careful,compact=on")`, so tests judge what
//! it received.

mod v2;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    AgentCapabilities, AuthMethod, AuthMethodAgent, AvailableCommand, AvailableCommandInput,
    AvailableCommandsUpdate, CancelNotification, CloseSessionRequest, CloseSessionResponse,
    ConfigOptionUpdate, ContentBlock, ContentChunk, CurrentModeUpdate, Diff, Implementation,
    InitializeRequest, InitializeResponse, ListSessionsRequest, ListSessionsResponse,
    LoadSessionRequest, LoadSessionResponse, NewSessionRequest, NewSessionResponse,
    PermissionOption, PermissionOptionKind, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus,
    PromptRequest, PromptResponse, RequestPermissionOutcome, RequestPermissionRequest,
    ResumeSessionRequest, ResumeSessionResponse, SessionConfigOption, SessionConfigSelectOption,
    SessionMode, SessionModeState, SessionNotification, SessionUpdate,
    SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, SetSessionModeRequest,
    SetSessionModeResponse, StopReason, TextContent, ToolCall, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind, UnstructuredCommandInput,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, ConnectTo, Error, ErrorCode, Stdio};
use serde::{Deserialize, Serialize};

/// How long `/link-done` leaves its sign-in card open before it says `elicitation/complete`.
const LINK_DONE_AFTER: Duration = Duration::from_secs(2);

/// How the scripted agent behaves.
#[derive(Debug, Clone)]
pub struct ScriptedOptions {
    /// The pause between streamed words.
    pub pace: Duration,
    /// Offer `loadSession`.
    pub load_session: bool,
    /// Offer `session/resume` (with `session/list` and `session/close`, which it always
    /// offers).
    pub resume: bool,
    /// Want a sign-in before any session (`auth_required`).
    pub sign_in: bool,
    /// Keep sessions in this folder, so a new process can load them.
    pub sessions: Option<PathBuf>,
    /// The rules of SPEC P it breaks on purpose (`--break`), so `check --acp` is seen to
    /// catch each; ids of [`BREAKS`].
    pub breaks: Vec<String>,
    /// Speak ACP v1 alone (`--protocol 1`), as agents before v2 do; otherwise a client that
    /// asks for v2 or more gets its v2 side (`acp_scripted::v2`).
    pub v1_only: bool,
}

impl ScriptedOptions {
    pub(super) fn breaks(&self, rule: &str) -> bool {
        self.breaks.iter().any(|b| b == rule)
    }
}

/// The rules of SPEC P the scripted agent can break on purpose, and how.
pub const BREAKS: &[(&str, &str)] = &[
    (
        "P1",
        "prints a line of its own on stdout before it speaks ACP",
    ),
    (
        "P2",
        "refuses an unknown mode with the error code -32500, which no one defines",
    ),
    (
        "P3",
        "answers initialize with version 3, which ACP does not define, whatever it is offered",
    ),
    ("P4", "with --sign-in, names no authMethods"),
    ("P5", "answers session/list with no sessions"),
    (
        "P6",
        "answers a load or resume of an unknown session with an internal error",
    ),
    (
        "P7",
        "answers session/load before it replays the conversation",
    ),
    (
        "P8",
        "keeps a session after session/close, so it still takes prompts",
    ),
    ("P9", "takes a mode it does not offer"),
    (
        "P10",
        "refuses every switch of a session cancelled while idle",
    ),
    ("P11", "keeps running after its stdin closes"),
    (
        "P12",
        "sends updates of its test run without announcing the call with tool_call",
    ),
    (
        "P13",
        "asks permission for a tool call with an empty toolCallId",
    ),
    ("P14", "ends a cancelled turn with end_turn"),
    ("P15", "exits after a turn that was cancelled twice"),
];

/// The `--break` ids, checked: an unknown one is refused with the list.
pub fn checked_breaks(ids: &[String]) -> Result<Vec<String>, String> {
    for id in ids {
        if !BREAKS
            .iter()
            .any(|(known, _)| known.eq_ignore_ascii_case(id))
        {
            return Err(format!(
                "the scripted agent cannot break {id}; it breaks {}",
                BREAKS
                    .iter()
                    .map(|(id, _)| *id)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    Ok(ids.iter().map(|id| id.to_uppercase()).collect())
}

/// One conversation as the agent remembers it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Remembered {
    pub(super) cwd: PathBuf,
    /// (who, words): "user" or "agent".
    pub(super) history: Vec<(String, String)>,
    reads: u64,
    /// The mode and the speed in effect; empty means the first of each.
    #[serde(default)]
    mode: String,
    #[serde(default)]
    pub(super) speed: String,
    /// The boolean option `compact`; `None` is its first value, on.
    #[serde(default)]
    compact: Option<bool>,
    /// An "allow always" (true) or "deny always" (false) answer, by the kind of tool it was
    /// given for (`execute`, `edit`): what the session asks no more.
    #[serde(default)]
    always: std::collections::BTreeMap<String, bool>,
}

/// The modes it offers: (id, name, description).
const MODES: &[(&str, &str, &str)] = &[
    ("ask", "Ask first", "Asks before it runs anything"),
    ("plan", "Plan only", "Plans and reads, changes nothing"),
    (
        "yolo",
        "Act without asking",
        "Runs and edits without asking you",
    ),
];

/// The values of its `speed` option: (id, name).
pub(super) const SPEEDS: &[(&str, &str)] = &[
    ("careful", "Careful"),
    ("quick", "Quick"),
    ("refused", "Refused (it says no)"),
];

/// Its commands: (name, description, what to type after it).
const COMMANDS: &[(&str, &str, Option<&str>)] = &[
    ("test", "Run the tests", None),
    ("review", "Review the last change", None),
    (
        "tool",
        "Run one command, as claude-code-acp reports it",
        None,
    ),
    (
        "tool-open",
        "End the turn with a command still running",
        None,
    ),
    ("explain", "Explain a file", Some("the file to explain")),
    ("mode", "Say the mode and speed it is in", None),
    ("ask", "Ask a form of questions (an elicitation)", None),
    ("pick", "Ask one question with options", None),
    ("link", "Ask to open a link (a url elicitation)", None),
];

impl Remembered {
    fn mode(&self) -> &str {
        if self.mode.is_empty() {
            MODES[0].0
        } else {
            &self.mode
        }
    }

    pub(super) fn speed(&self) -> &str {
        if self.speed.is_empty() {
            SPEEDS[0].0
        } else {
            &self.speed
        }
    }

    fn modes(&self) -> SessionModeState {
        SessionModeState::new(
            self.mode().to_string(),
            MODES
                .iter()
                .map(|(id, name, about)| {
                    SessionMode::new(*id, *name).description(about.to_string())
                })
                .collect(),
        )
    }

    fn compact(&self) -> bool {
        self.compact.unwrap_or(true)
    }

    /// Its options; the boolean one only when the client takes booleans.
    fn options(&self, booleans: bool) -> Vec<SessionConfigOption> {
        let mut options = vec![
            SessionConfigOption::select(
                "speed",
                "Speed",
                self.speed().to_string(),
                SPEEDS
                    .iter()
                    .map(|(id, name)| SessionConfigSelectOption::new(*id, *name))
                    .collect::<Vec<_>>(),
            )
            .description("How fast it goes".to_string()),
        ];
        if booleans {
            options.push(
                SessionConfigOption::boolean("compact", "Compact by itself", self.compact())
                    .description("Summarises the conversation when the context fills".to_string()),
            );
        }
        options
    }
}

fn commands() -> Vec<AvailableCommand> {
    COMMANDS
        .iter()
        .map(|(name, about, hint)| {
            let command = AvailableCommand::new(*name, *about);
            match hint {
                Some(hint) => command.input(AvailableCommandInput::Unstructured(
                    UnstructuredCommandInput::new(*hint),
                )),
                None => command,
            }
        })
        .collect()
}

#[derive(Default)]
pub(super) struct State {
    pub(super) sessions: HashMap<String, Remembered>,
    pub(super) cancelled: HashMap<String, Arc<AtomicBool>>,
    pub(super) next: u64,
    /// The client said at `initialize` that it takes boolean options.
    booleans: bool,
    /// Sessions with a turn running.
    pub(super) running: std::collections::HashSet<String>,
    /// Sessions cancelled while idle (`--break P10` refuses their switches).
    pub(super) poisoned: std::collections::HashSet<String>,
    /// Cancels of the running turn, by session (`--break P15`).
    pub(super) cancels: HashMap<String, usize>,
    /// `--sign-in`: a v2 client signed in with `auth/login`, so sessions open.
    pub(super) signed_in: bool,
}

pub(super) type Shared = Arc<Mutex<State>>;

/// Whether the client takes boolean options (`session.configOptions.boolean`).
fn takes_booleans(state: &Shared) -> bool {
    state.lock().is_ok_and(|s| s.booleans)
}

/// Serves ACP on stdin and stdout until the client goes away.
pub fn run(options: ScriptedOptions) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(serve(options))
}

async fn serve(options: ScriptedOptions) -> anyhow::Result<()> {
    if options.breaks("P1") {
        // SPEC P1 broken on purpose: a line of its own on stdout, which carries only ACP.
        println!("scripted agent starting (this line breaks P1)");
    }
    let state: Shared = Arc::default();
    let init_options = options.clone();
    let init_state = Arc::clone(&state);
    let new_sign_in = options.sign_in;
    let new_state = Arc::clone(&state);
    let load_options = options.clone();
    let load_state = Arc::clone(&state);
    let prompt_options = options.clone();
    let prompt_state = Arc::clone(&state);
    let cancel_state = Arc::clone(&state);
    let mode_state = Arc::clone(&state);
    let mode_options = options.clone();
    let option_state = Arc::clone(&state);
    let option_options = options.clone();
    let list_state = Arc::clone(&state);
    let list_options = options.clone();
    let resume_state = Arc::clone(&state);
    let resume_options = options.clone();
    let close_state = Arc::clone(&state);
    let close_options = options.clone();
    let cancel_options = options.clone();
    let init_breaks_p3 = options.breaks("P3");
    let init_breaks_p4 = options.breaks("P4");
    let end_options = options.clone();
    let agent = Agent
        .v1()
        .name("collie-scripted-agent")
        .on_receive_request(
            async move |request: ListSessionsRequest,
                        responder: Responder<ListSessionsResponse>,
                        _cx| {
                if list_options.breaks("P5") {
                    return responder.respond(ListSessionsResponse::new(Vec::new()));
                }
                responder.respond(sessions::list(&list_state, &list_options, request))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ResumeSessionRequest,
                        responder: Responder<ResumeSessionResponse>,
                        cx: ConnectionTo<Client>| {
                let id = request.session_id.to_string();
                let found = recall(&resume_state, &resume_options, &id);
                let Some(found) = found.filter(|_| resume_options.resume) else {
                    if resume_options.breaks("P6") {
                        return responder.respond_with_error(Error::internal_error());
                    }
                    return responder.respond_with_error(
                        Error::new(ErrorCode::RESOURCE_NOT_FOUND, "Resource not found")
                            .data(serde_json::json!({ "sessionId": id })),
                    );
                };
                eprintln!("scripted agent: resumed session {id}");
                responder.respond(
                    ResumeSessionResponse::new()
                        .modes(found.modes())
                        .config_options(found.options(takes_booleans(&resume_state))),
                )?;
                send_commands(&cx, &id);
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: CloseSessionRequest,
                        responder: Responder<CloseSessionResponse>,
                        _cx| {
                let id = request.session_id.to_string();
                if let Ok(mut state) = close_state.lock()
                    && !close_options.breaks("P8")
                {
                    state.sessions.remove(&id);
                }
                eprintln!("scripted agent: closed session {id}");
                responder.respond(CloseSessionResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: InitializeRequest,
                        responder: Responder<InitializeResponse>,
                        _cx| {
                let booleans = request
                    .client_capabilities
                    .session
                    .as_ref()
                    .and_then(|s| s.config_options.as_ref())
                    .is_some_and(|c| c.boolean.is_some());
                if let Ok(mut state) = init_state.lock() {
                    state.booleans = booleans;
                }
                // The version offered when it is 1, else the latest it speaks, 1 (SPEC P3).
                let version = if init_breaks_p3 {
                    serde_json::from_value(serde_json::json!(2))
                        .unwrap_or(agent_client_protocol::schema::ProtocolVersion::V1)
                } else {
                    request
                        .protocol_version
                        .min(agent_client_protocol::schema::ProtocolVersion::V1)
                };
                let mut reply = InitializeResponse::new(version)
                    .agent_capabilities(
                        AgentCapabilities::new()
                            .load_session(init_options.load_session)
                            .session_capabilities(sessions::capabilities(init_options.resume)),
                    )
                    .agent_info(Implementation::new(
                        "collie-scripted-agent",
                        env!("CARGO_PKG_VERSION"),
                    ));
                if init_options.sign_in && !init_breaks_p4 {
                    reply = reply.auth_methods(vec![AuthMethod::Agent(AuthMethodAgent::new(
                        "login",
                        "Log in to the scripted agent",
                    ))]);
                }
                responder.respond(reply)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest,
                        responder: Responder<NewSessionResponse>,
                        cx: ConnectionTo<Client>| {
                if new_sign_in {
                    return responder.respond_with_error(Error::auth_required());
                }
                let id = {
                    let Ok(mut state) = new_state.lock() else {
                        return responder.respond_with_error(Error::internal_error());
                    };
                    state.next += 1;
                    let id = format!("scripted-{}-{}", std::process::id(), state.next);
                    state.sessions.insert(
                        id.clone(),
                        Remembered {
                            cwd: request.cwd,
                            ..Remembered::default()
                        },
                    );
                    id
                };
                // Like the real agents, a session is kept on disk only once it was prompted:
                // a new process cannot load one that never was (codex answers `-32002
                // Resource not found`, claude `Session not found`).
                let fresh = Remembered::default();
                responder.respond(
                    NewSessionResponse::new(id.clone())
                        .modes(fresh.modes())
                        .config_options(fresh.options(takes_booleans(&new_state))),
                )?;
                send_commands(&cx, &id);
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest,
                        responder: Responder<LoadSessionResponse>,
                        cx: ConnectionTo<Client>| {
                let id = request.session_id.to_string();
                let found = recall(&load_state, &load_options, &id);
                let Some(found) = found.filter(|_| load_options.load_session) else {
                    if load_options.breaks("P6") {
                        return responder.respond_with_error(Error::internal_error());
                    }
                    // The shape codex answers: -32002 "Resource not found".
                    return responder.respond_with_error(
                        Error::new(ErrorCode::RESOURCE_NOT_FOUND, "Resource not found")
                            .data(serde_json::json!({ "sessionId": id })),
                    );
                };
                // The conversation is replayed to the client before the reply, as ACP says
                // (after it, with `--break P7`).
                let late = load_options.breaks("P7");
                let reply = LoadSessionResponse::new()
                    .modes(found.modes())
                    .config_options(found.options(takes_booleans(&load_state)));
                let mut responder = Some(responder);
                if late && let Some(early) = responder.take() {
                    early.respond(reply.clone())?;
                }
                // Its own notes (switches, what it did) are not the conversation.
                for (who, words) in found
                    .history
                    .iter()
                    .filter(|(who, _)| who != "setting" && who != "done")
                {
                    let chunk =
                        ContentChunk::new(ContentBlock::Text(TextContent::new(words.clone())));
                    let update = if who == "user" {
                        SessionUpdate::UserMessageChunk(chunk)
                    } else {
                        SessionUpdate::AgentMessageChunk(chunk)
                    };
                    send(&cx, &id, update);
                }
                if let Some(responder) = responder {
                    responder.respond(reply)?;
                }
                send_commands(&cx, &id);
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest,
                        responder: Responder<SetSessionModeResponse>,
                        cx: ConnectionTo<Client>| {
                let id = request.session_id.to_string();
                let mode = request.mode_id.to_string();
                if mode_state.lock().is_ok_and(|s| s.poisoned.contains(&id)) {
                    return responder.respond_with_error(Error::new(
                        ErrorCode::INTERNAL_ERROR,
                        "this session was cancelled",
                    ));
                }
                if !MODES.iter().any(|(m, _, _)| *m == mode) && !mode_options.breaks("P9") {
                    if mode_options.breaks("P2") {
                        return responder.respond_with_error(Error::new(-32500, "no such mode"));
                    }
                    return responder.respond_with_error(
                        Error::invalid_params()
                            .data(serde_json::json!({"details": format!("no mode {mode}")})),
                    );
                }
                if !switch(&mode_state, &mode_options, &id, |r| r.mode = mode.clone()) {
                    return responder.respond_with_error(Error::new(
                        ErrorCode::RESOURCE_NOT_FOUND,
                        "Session not found",
                    ));
                }
                responder.respond(SetSessionModeResponse::new())?;
                send(
                    &cx,
                    &id,
                    SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(mode)),
                );
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionConfigOptionRequest,
                        responder: Responder<SetSessionConfigOptionResponse>,
                        cx: ConnectionTo<Client>| {
                let id = request.session_id.to_string();
                let booleans = takes_booleans(&option_state);
                let option = request.config_id.to_string();
                let change: Box<dyn FnOnce(&mut Remembered) + Send> = if option == "compact" {
                    // Only offered to a client that takes booleans, and only a boolean.
                    let (true, Some(on)) = (booleans, request.value.as_bool()) else {
                        return responder.respond_with_error(Error::invalid_params());
                    };
                    Box::new(move |r| r.compact = Some(on))
                } else {
                    let value = request
                        .value
                        .as_value_id()
                        .map(|v| v.to_string())
                        .unwrap_or_default();
                    if option != "speed" || !SPEEDS.iter().any(|(s, _)| *s == value) {
                        return responder.respond_with_error(Error::invalid_params());
                    }
                    if value == "refused" {
                        return responder.respond_with_error(Error::new(
                            ErrorCode::INTERNAL_ERROR,
                            "the scripted agent refuses the speed refused",
                        ));
                    }
                    Box::new(move |r| r.speed = value)
                };
                let mut options = Vec::new();
                if !switch(&option_state, &option_options, &id, |r| {
                    change(r);
                    options = r.options(booleans);
                }) {
                    return responder.respond_with_error(Error::new(
                        ErrorCode::RESOURCE_NOT_FOUND,
                        "Session not found",
                    ));
                }
                responder.respond(SetSessionConfigOptionResponse::new(options.clone()))?;
                send(
                    &cx,
                    &id,
                    SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(options)),
                );
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest,
                        responder: Responder<PromptResponse>,
                        cx: ConnectionTo<Client>| {
                let state = Arc::clone(&prompt_state);
                let options = prompt_options.clone();
                let task_cx = cx.clone();
                cx.spawn(async move {
                    let session = request.session_id.to_string();
                    let words: String = request
                        .prompt
                        .iter()
                        .filter_map(|b| match b {
                            ContentBlock::Text(t) => Some(t.text.as_str()),
                            _ => None,
                        })
                        .collect::<Vec<_>>()
                        .join("\n");
                    if let Ok(mut state) = state.lock() {
                        state.running.insert(session.clone());
                        state.cancels.remove(&session);
                    }
                    let result = play(&task_cx, &state, &options, &session, &words).await;
                    let cancels = state.lock().map_or(0, |mut s| {
                        s.running.remove(&session);
                        s.cancels.remove(&session).unwrap_or_default()
                    });
                    if options.breaks("P15") && cancels >= 2 {
                        // SPEC P15 broken on purpose: a second cancel of one turn ends the
                        // agent once the turn is answered.
                        tokio::spawn(async {
                            tokio::time::sleep(Duration::from_millis(200)).await;
                            std::process::exit(3);
                        });
                    }
                    match result {
                        Ok(stop) => responder.respond(PromptResponse::new(stop)),
                        Err(error) => responder.respond_with_error(error),
                    }
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |cancel: CancelNotification, _cx| {
                let id = cancel.session_id.to_string();
                if let Ok(mut state) = cancel_state.lock() {
                    if !state.running.contains(&id) {
                        if cancel_options.breaks("P10") {
                            state.poisoned.insert(id);
                        }
                        return Ok(());
                    }
                    *state.cancels.entry(id.clone()).or_default() += 1;
                    if let Some(flag) = state.cancelled.get(&id) {
                        flag.store(true, Ordering::SeqCst);
                    }
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        );
    // The version the client asks for picks the side that speaks it (the crate's router:
    // v2 or more to the v2 side, anything else to v1's, which answers 1).
    match (options.v1_only, options.breaks("P3")) {
        (true, true) => agent.connect_to(version_three()).await?,
        (true, false) => agent.connect_to(Stdio::new()).await?,
        (false, broken) => {
            let router = Agent
                .protocol_router()
                .with_v1(agent)
                .with_v2(v2::agent(options.clone(), Arc::clone(&state)));
            if broken {
                router.connect_to(version_three()).await?;
            } else {
                router.connect_to(Stdio::new()).await?;
            }
        }
    }
    if end_options.breaks("P11") {
        // SPEC P11 broken on purpose: the client went away, and it runs on.
        tokio::time::sleep(Duration::from_secs(30)).await;
    }
    Ok(())
}

/// Stdio whose every answer naming a `protocolVersion` says 3, whatever was offered: SPEC P3
/// broken on purpose, below the crate, which would otherwise keep the version right.
fn version_three() -> agent_client_protocol::Lines<
    impl futures::Sink<String, Error = std::io::Error> + Send + 'static,
    impl futures::Stream<Item = std::io::Result<String>> + Send + 'static,
> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let incoming = Box::pin(futures::stream::unfold(
        lines,
        async |mut lines| match lines.next_line().await {
            Ok(Some(line)) => Some((Ok(line), lines)),
            Ok(None) => None,
            Err(error) => Some((Err(error), lines)),
        },
    ));
    let outgoing = Box::pin(futures::sink::unfold(
        tokio::io::stdout(),
        async |mut out, line: String| {
            let mut line = line;
            if let Ok(mut message) = serde_json::from_str::<serde_json::Value>(&line)
                && let Some(version) = message.pointer_mut("/result/protocolVersion")
            {
                *version = serde_json::json!(3);
                line = message.to_string();
            }
            line.push('\n');
            out.write_all(line.as_bytes()).await?;
            out.flush().await?;
            Ok::<_, std::io::Error>(out)
        },
    ));
    agent_client_protocol::Lines::new(outgoing, incoming)
}

/// Its commands, as an agent sends them once a session is open or loaded.
fn send_commands(cx: &ConnectionTo<Client>, session: &str) {
    send(
        cx,
        session,
        SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(commands())),
    );
}

fn send(cx: &ConnectionTo<Client>, session: &str, update: SessionUpdate) {
    if let Err(error) = cx.send_notification(SessionNotification::new(session.to_string(), update))
    {
        eprintln!("scripted agent: an update could not be sent: {error}");
    }
}

/// One turn.
async fn play(
    cx: &ConnectionTo<Client>,
    state: &Shared,
    options: &ScriptedOptions,
    session: &str,
    words: &str,
) -> Result<StopReason, Error> {
    let cancelled = Arc::new(AtomicBool::new(false));
    let first_read = {
        let mut state = state.lock().map_err(|_| Error::internal_error())?;
        state
            .cancelled
            .insert(session.to_string(), Arc::clone(&cancelled));
        let Some(remembered) = state.sessions.get_mut(session) else {
            return Err(Error::new(
                ErrorCode::RESOURCE_NOT_FOUND,
                format!("no session {session}"),
            ));
        };
        remembered.history.push(("user".into(), words.to_string()));
        remembered.reads += 1;
        let first_words = remembered
            .history
            .iter()
            .filter(|(w, _)| w == "user")
            .count()
            == 1;
        (remembered.reads == 1, first_words)
    };
    let (first_read, first_words) = first_read;
    remember(state, options, session);
    let turn = Turn {
        cx,
        state,
        session,
        pace: options.pace,
        cancelled: &cancelled,
        number: turn_number(state, session),
        options,
    };
    if first_read && first_words {
        // As the real agents do, the session is titled after its first prompt (a session
        // begun in the agent's own CLI has its title already).
        let first: String = words.split_whitespace().collect::<Vec<_>>().join(" ");
        let first: String = first.chars().take(48).collect();
        turn.update(SessionUpdate::SessionInfoUpdate(
            agent_client_protocol::v1::schema::SessionInfoUpdate::new()
                .title(format!("Task: {first}")),
        ));
    }
    let lower = words.to_lowercase();
    if lower.contains("crash") {
        eprintln!("scripted agent: crashing on purpose, as the prompt asked");
        std::process::exit(3);
    }
    if lower.contains("fail") {
        return Err(Error::new(
            ErrorCode::INTERNAL_ERROR,
            "the scripted agent fails when a prompt says fail",
        ));
    }
    let reply = if lower.contains("slow") {
        let long: Vec<String> = (1..=400).map(|i| format!("word{i}")).collect();
        turn.say(&long.join(" ")).await;
        "Slow reply done.".to_string()
    } else if lower.contains("hostile") {
        // What a compromised model might print: escapes that copy, clear or retitle a terminal.
        let hostile = "\u{1b}]52;c;cHduZWQ=\u{7}copied \u{1b}[2Jcleared \u{1b}]0;pwned\u{7}titled \u{202e}fdp.exe \u{9b}31m";
        turn.say(hostile).await;
        turn.tool(
            "call-hostile",
            "\u{1b}]8;;https://evil.example\u{7}Read\u{1b}]8;;\u{7}",
            ToolKind::Read,
            serde_json::json!({"path": "\u{1b}[31mred"}),
        );
        hostile.to_string()
    } else if words.trim() == "/mode" {
        let (mode, speed) = state
            .lock()
            .ok()
            .and_then(|s| {
                s.sessions
                    .get(session)
                    .map(|r| (r.mode().to_string(), r.speed().to_string()))
            })
            .unwrap_or_default();
        let words = format!("I am in mode {mode}, at speed {speed}.");
        turn.say(&words).await;
        words
    } else if let Some(what) = ["/ask", "/pick", "/link", "/link-done", "/ask-wide"]
        .iter()
        .find(|w| words.trim() == **w)
    {
        let got = turn.elicit(what).await;
        if let Ok(mut state) = state.lock()
            && let Some(remembered) = state.sessions.get_mut(session)
        {
            remembered.history.push(("elicitation".into(), got.clone()));
        }
        remember(state, options, session);
        let words = format!("You answered: {got}");
        if !cancelled.load(Ordering::SeqCst) {
            turn.say(&words).await;
        }
        words
    } else if words.trim() == "/withdraw" {
        let got = turn
            .withdraw(&format!("call-withdraw-{}", turn.number))
            .await;
        if let Ok(mut state) = state.lock()
            && let Some(remembered) = state.sessions.get_mut(session)
        {
            remembered.history.push(("permission".into(), got.clone()));
        }
        remember(state, options, session);
        let words = format!("I took my question back; the client answered: {got}");
        turn.say(&words).await;
        words
    } else if words.trim() == "/test" {
        turn.run_tests(&format!("call-test-{}", turn.number), false)
            .await?
    } else if words.trim() == "/tool" {
        let id = format!("call-bash-{}", turn.number);
        turn.bash_call(&id);
        if turn.permit(&id, bash_fields()).await? {
            turn.tool_done(&id, ToolCallStatus::InProgress, None);
            tokio::time::sleep(turn.pace * 5).await;
            turn.tool_done(
                &id,
                ToolCallStatus::Completed,
                Some("test result: ok. 3 passed"),
            );
            turn.remember_done("ran cargo test");
            let words = "The tests passed.";
            turn.say(words).await;
            words.to_string()
        } else {
            turn.not_run(&id).await?
        }
    } else if words.trim() == "/tool-open" || words.trim() == "/tool-hold" {
        // A call left running when the turn ends; `/tool-hold` keeps the turn going until it
        // is stopped (30 s at most).
        let id = format!("call-bash-{}", turn.number);
        turn.bash_call(&id);
        if turn.permit(&id, bash_fields()).await? {
            turn.tool_done(&id, ToolCallStatus::InProgress, None);
            if words.trim() == "/tool-hold" {
                for _ in 0..600 {
                    if turn.stopped() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            "I left the command running.".to_string()
        } else {
            turn.not_run(&id).await?
        }
    } else if let Some(path) = words.trim().strip_prefix("/replay ") {
        turn.replay(path.trim()).await
    } else if words.trim() == "/cancel-self" {
        // As codex does after a Deny: the agent gives the turn up itself, a call still open.
        let id = format!("call-bash-{}", turn.number);
        turn.bash_call(&id);
        return Ok(StopReason::Cancelled);
    } else {
        turn.full(first_read, lower.contains("twice")).await?
    };
    if cancelled.load(Ordering::SeqCst) && !options.breaks("P14") {
        return Ok(StopReason::Cancelled);
    }
    turn.usage(state, &reply);
    if let Ok(mut state) = state.lock()
        && let Some(remembered) = state.sessions.get_mut(session)
    {
        remembered.history.push(("agent".into(), reply));
    }
    remember(state, options, session);
    Ok(StopReason::EndTurn)
}

struct Turn<'a> {
    cx: &'a ConnectionTo<Client>,
    state: &'a Shared,
    session: &'a str,
    pace: Duration,
    cancelled: &'a AtomicBool,
    /// Which prompt of the session this is: tool call ids are new in every turn.
    number: usize,
    /// The SPEC P rules it breaks on purpose.
    options: &'a ScriptedOptions,
}

impl Turn<'_> {
    fn stopped(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    fn update(&self, update: SessionUpdate) {
        send(self.cx, self.session, update);
    }

    /// `usage_update` at a turn's end: the context grows by what was said (150 tokens a word,
    /// so the demo's numbers move, and 12k of system prompt), in a 200k window, at $3 a
    /// million tokens.
    fn usage(&self, state: &Shared, reply: &str) {
        let words: usize = state
            .lock()
            .ok()
            .and_then(|s| {
                s.sessions.get(self.session).map(|r| {
                    r.history
                        .iter()
                        .map(|(_, w)| w.split_whitespace().count())
                        .sum()
                })
            })
            .unwrap_or_default();
        let used = 12_000 + (words + reply.split_whitespace().count()) as u64 * 3 / 2 * 100;
        let cost = agent_client_protocol::v1::schema::Cost::new(used as f64 * 3.0 / 1e6, "USD");
        self.update(SessionUpdate::UsageUpdate(
            agent_client_protocol::v1::schema::UsageUpdate::new(used, 200_000).cost(cost),
        ));
    }

    /// Streams words as message chunks, a few words at a time.
    async fn say(&self, text: &str) {
        self.chunks(text, false).await;
    }

    async fn think(&self, text: &str) {
        self.chunks(text, true).await;
    }

    async fn chunks(&self, text: &str, thought: bool) {
        let words: Vec<&str> = text.split_inclusive(' ').collect();
        for piece in words.chunks(3) {
            if self.stopped() {
                return;
            }
            let chunk = ContentChunk::new(ContentBlock::Text(TextContent::new(piece.concat())));
            self.update(if thought {
                SessionUpdate::AgentThoughtChunk(chunk)
            } else {
                SessionUpdate::AgentMessageChunk(chunk)
            });
            tokio::time::sleep(self.pace).await;
        }
    }

    fn plan(&self, done: usize) {
        let steps = ["Read the project", "Run the tests", "Propose a fix"];
        let entries = steps
            .iter()
            .enumerate()
            .map(|(i, step)| {
                let status = if i < done {
                    PlanEntryStatus::Completed
                } else if i == done {
                    PlanEntryStatus::InProgress
                } else {
                    PlanEntryStatus::Pending
                };
                PlanEntry::new(*step, PlanEntryPriority::Medium, status)
            })
            .collect();
        self.update(SessionUpdate::Plan(Plan::new(entries)));
    }

    fn tool(&self, id: &str, title: &str, kind: ToolKind, input: serde_json::Value) {
        let call = ToolCall::new(id.to_string(), title)
            .kind(kind)
            .status(ToolCallStatus::Pending)
            .raw_input(input);
        self.update(SessionUpdate::ToolCall(call));
    }

    /// Sends the `session/update`s of a JSON lines file (a fixture of a real agent's
    /// notifications, tests/fixtures/acp/) as this session's, one per pace; a
    /// `session/request_permission` line is asked as this session's, and the replay waits for
    /// its answer before it goes on, as the agent would.
    async fn replay(&self, path: &str) -> String {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) => return format!("I could not read {path}: {error}"),
        };
        let mut sent = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let message = serde_json::from_str::<serde_json::Value>(line).unwrap_or_default();
            if message["method"] == "session/request_permission" {
                match serde_json::from_value::<RequestPermissionRequest>(message["params"].clone())
                {
                    Ok(mut request) => {
                        request.session_id = self.session.to_string().into();
                        if self.cx.send_request(request).block_task().await.is_ok() {
                            sent += 1;
                        }
                    }
                    Err(_) => eprintln!("scripted agent: not a permission request in {path}"),
                }
                continue;
            }
            match serde_json::from_value(message["params"]["update"].clone()).ok() {
                Some(update) => {
                    self.update(update);
                    sent += 1;
                }
                None => eprintln!("scripted agent: not a session/update line in {path}"),
            }
            tokio::time::sleep(self.pace).await;
        }
        format!("Replayed {sent} updates.")
    }

    /// A Bash call as claude-code-acp sends it (tests/fixtures/acp/README.md): a `tool_call`
    /// with little in it, then the same id again with its title and input.
    fn bash_call(&self, id: &str) {
        self.tool(id, "Terminal", ToolKind::Execute, serde_json::json!({}));
        let input = serde_json::json!({"command": "cargo test", "description": "Run the tests"});
        let call = ToolCall::new(id.to_string(), "`cargo test`")
            .kind(ToolKind::Execute)
            .status(ToolCallStatus::Pending)
            .content(vec!["Run the tests".to_string().into()])
            .raw_input(input);
        self.update(SessionUpdate::ToolCall(call));
    }

    fn tool_done(&self, id: &str, status: ToolCallStatus, output: Option<&str>) {
        let mut fields = ToolCallUpdateFields::new().status(status);
        if let Some(output) = output {
            fields = fields.content(vec![output.to_string().into()]);
        }
        self.update(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            id.to_string(),
            fields,
        )));
    }

    async fn full(&self, first_read: bool, twice: bool) -> Result<String, Error> {
        self.think("The person wants the project checked. I'll read it, run the tests, then propose a fix. 先看项目结构。").await;
        self.plan(0);
        self.say("I'll start by reading the project. 我先读一下项目。")
            .await;
        if first_read {
            self.tool(
                "call-read-lock",
                "Read Cargo.lock",
                ToolKind::Read,
                serde_json::json!({"path": "Cargo.lock"}),
            );
            self.tool_done(
                "call-read-lock",
                ToolCallStatus::Failed,
                Some("Cargo.lock: no such file"),
            );
        }
        self.tool(
            "call-read",
            "Read Cargo.toml",
            ToolKind::Read,
            serde_json::json!({"path": "Cargo.toml"}),
        );
        self.tool_done(
            "call-read",
            ToolCallStatus::Completed,
            Some("[package]\nname = \"demo\"\nversion = \"0.1.0\""),
        );
        if self.stopped() {
            return Ok(String::new());
        }
        self.plan(1);
        let ran = self
            .run_tests(&format!("call-test-{}", self.number), twice)
            .await?;
        if self.stopped() {
            return Ok(ran);
        }
        self.plan(2);
        let diff = Diff::new(
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
        )
        .old_text("pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n".to_string());
        let edit = format!("call-edit-{}", self.number);
        let call = ToolCall::new(edit.clone(), "Fix add in src/lib.rs")
            .kind(ToolKind::Edit)
            .status(ToolCallStatus::Pending)
            .content(vec![diff.clone().into()]);
        self.update(SessionUpdate::ToolCall(call));
        // The request carries the call with its diff, as ACP's do: the card shows what
        // changes (docs/ACP.md, "Permission requests").
        let fields = ToolCallUpdateFields::new()
            .kind(ToolKind::Edit)
            .title("Fix add in src/lib.rs".to_string())
            .content(vec![diff.into()]);
        if !self.permit(&edit, fields).await? {
            self.tool_done(
                &edit,
                ToolCallStatus::Failed,
                Some("not applied: permission denied"),
            );
            self.plan(3);
            let last = "Understood: I left src/lib.rs as it is.".to_string();
            self.say(&last).await;
            return Ok(last);
        }
        self.tool_done(&edit, ToolCallStatus::Completed, None);
        self.remember_done("edited src/lib.rs");
        self.plan(3);
        let last = "Here is a fix for `add`: it subtracted instead of adding.".to_string();
        self.say(&last).await;
        Ok(last)
    }

    /// Asks the person through the client (`elicitation/create`) and returns what came back,
    /// as the JSON of the reply, so tests judge what the agent received: `/ask` a form of every
    /// field type tied to a tool call, `/pick` one single-select question, `/link` a url to
    /// open (`/link-done` says `elicitation/complete` for it after a moment), `/ask-wide`
    /// more options than a card holds.
    async fn elicit(&self, what: &str) -> String {
        use agent_client_protocol::v1::schema::{
            CompleteElicitationNotification, CreateElicitationRequest, ElicitationFormMode,
            ElicitationSchema, ElicitationSessionScope, ElicitationUrlMode,
        };
        let call = format!("call-ask-{}", self.number);
        let scope = ElicitationSessionScope::new(self.session.to_string());
        let request = match what {
            "/link" | "/link-done" => CreateElicitationRequest::new(
                ElicitationUrlMode::new(
                    scope,
                    format!("link-{}", self.number),
                    "https://example.org/authorize?client=collie&state=42",
                ),
                "Sign in to the 数据库 service 🔐 to let me read the schema.",
            ),
            _ => {
                let schema: ElicitationSchema = match what {
                    "/pick" => serde_json::from_value(serde_json::json!({
                        "type": "object", "properties": {"strategy": {
                            "type": "string", "title": "迁移策略",
                            "oneOf": [
                                {"const": "cutover", "title": "一次性切换", "description": "One window, fast"},
                                {"const": "dual-write", "title": "双写过渡 🔁"},
                                {"const": "tenant", "title": "按租户灰度"}]}}
                    })),
                    "/ask-wide" => serde_json::from_value(serde_json::json!({
                        "type": "object", "properties": {"size": {
                            "type": "string", "enum": ["xs", "s", "m", "l", "xl", "2xl", "3xl", "4xl", "5xl"]}}
                    })),
                    _ => serde_json::from_value(serde_json::json!({
                        "type": "object", "required": ["replicas", "environment"],
                        "properties": {
                            "environment": {"type": "string", "title": "环境 Environment",
                                "oneOf": [{"const": "staging", "title": "Staging 🧪"},
                                          {"const": "production", "title": "Production 🚀"}],
                                "default": "staging"},
                            "replicas": {"type": "integer", "title": "Replicas", "minimum": 1,
                                "maximum": 9, "default": 2, "description": "How many copies run at once"},
                            "dry_run": {"type": "boolean", "title": "Dry run first", "default": true},
                            "regions": {"type": "array", "title": "Regions", "maxItems": 2,
                                "items": {"anyOf": [{"const": "eu", "title": "Europe 🌍"},
                                                    {"const": "us", "title": "Americas"},
                                                    {"const": "ap", "title": "亚太 Asia-Pacific"}]}},
                            "contact": {"type": "string", "title": "Contact", "format": "email"}
                        }
                    })),
                }
                .unwrap_or_default();
                let scope = if what == "/ask" {
                    // As claude-agent-acp emits the call before its question: no name, kind
                    // `other`, the tool in `_meta.claudeCode.toolName`.
                    let meta = serde_json::json!({"claudeCode": {"toolName": "AskUserQuestion"}});
                    let tool = ToolCall::new(call.clone(), "AskUserQuestion")
                        .kind(ToolKind::Other)
                        .status(ToolCallStatus::Pending)
                        .meta(meta.as_object().cloned());
                    self.update(SessionUpdate::ToolCall(tool));
                    scope.tool_call_id(agent_client_protocol::v1::schema::ToolCallId::new(
                        call.clone(),
                    ))
                } else {
                    scope
                };
                CreateElicitationRequest::new(
                    ElicitationFormMode::new(scope, schema),
                    "How should the payments service go out? 怎么发布？",
                )
            }
        };
        let asked = self.cx.send_request(request);
        if what == "/link-done" {
            // Long enough for a person, and a test polling a loaded machine, to see the card
            // before it closes; at a fast pace 20 words' time was a few milliseconds.
            tokio::time::sleep(LINK_DONE_AFTER.max(self.pace * 20)).await;
            let done = CompleteElicitationNotification::new(format!("link-{}", self.number));
            if let Err(error) = self.cx.send_notification(done) {
                eprintln!("scripted agent: elicitation/complete could not be sent: {error}");
            }
        }
        let got = match asked.block_task().await {
            Ok(reply) => serde_json::to_string(&reply).unwrap_or_default(),
            Err(error) => format!("error {}", error.message),
        };
        eprintln!("scripted agent: the elicitation got {got}");
        if what == "/ask" {
            let status = if got.contains("\"accept\"") {
                ToolCallStatus::Completed
            } else {
                ToolCallStatus::Failed
            };
            self.tool_done(&call, status, None);
        }
        got
    }

    /// Asks to run a command, then takes the question back with `$/cancel_request` after
    /// three seconds (time for the card to be seen), and returns what the client answered.
    async fn withdraw(&self, id: &str) -> String {
        let input = serde_json::json!({"command": "make deploy", "cwd": "."});
        self.tool(id, "Deploy", ToolKind::Execute, input.clone());
        let fields = ToolCallUpdateFields::new()
            .kind(ToolKind::Execute)
            .title("Deploy".to_string())
            .raw_input(input);
        let request = RequestPermissionRequest::new(
            self.session.to_string(),
            ToolCallUpdate::new(id.to_string(), fields),
            vec![
                PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
                PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
            ],
        );
        let asked = self.cx.send_request(request);
        tokio::time::sleep(Duration::from_secs(3)).await;
        if let Err(error) = asked.cancel() {
            eprintln!("scripted agent: $/cancel_request could not be sent: {error}");
        }
        let got = match asked.block_task().await {
            Ok(reply) => serde_json::to_string(&reply).unwrap_or_default(),
            Err(error) => format!("error {}: {}", i32::from(error.code), error.message),
        };
        eprintln!("scripted agent: the withdrawn permission got {got}");
        self.tool_done(
            id,
            ToolCallStatus::Failed,
            Some("not run: the question was taken back"),
        );
        got
    }

    /// Asks to run the tests with all four option kinds, and does what the answer says.
    async fn run_tests(&self, id: &str, twice: bool) -> Result<String, Error> {
        if !self.options.breaks("P12") {
            self.tool(
                id,
                "Run the tests",
                ToolKind::Execute,
                serde_json::json!({"command": "cargo test", "cwd": "."}),
            );
        }
        // SPEC P13 broken on purpose: the permission names no call.
        let asked_id = if self.options.breaks("P13") { "" } else { id };
        let options = vec![
            PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
            PermissionOption::new(
                "allow_always",
                "Always allow cargo test",
                PermissionOptionKind::AllowAlways,
            ),
            PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
            PermissionOption::new("reject_always", "Never", PermissionOptionKind::RejectAlways),
        ];
        let fields = ToolCallUpdateFields::new()
            .kind(ToolKind::Execute)
            .title("Run the tests".to_string())
            .raw_input(serde_json::json!({"command": "cargo test", "cwd": "."}));
        // The plain ask goes by the mode and the session's "always" answers; the two asks of
        // `twice` and the broken P13 are asked as they are, whatever the mode.
        if !twice && !self.options.breaks("P13") {
            if !self.permit(id, fields).await? {
                return self.not_run(id).await;
            }
            return self.tests_ran(id).await;
        }
        let request = RequestPermissionRequest::new(
            self.session.to_string(),
            ToolCallUpdate::new(asked_id.to_string(), fields.clone()),
            options.clone(),
        );
        let first = self.cx.send_request(request);
        let answer = if twice {
            // The same call asked again with other words while the first card is open.
            tokio::time::sleep(Duration::from_millis(300)).await;
            let changed = fields
                .raw_input(serde_json::json!({"command": "cargo test --release", "cwd": "."}));
            let again = RequestPermissionRequest::new(
                self.session.to_string(),
                ToolCallUpdate::new(id.to_string(), changed),
                options,
            );
            let second = self.cx.send_request(again);
            let _ = first.block_task().await;
            second.block_task().await?
        } else {
            first.block_task().await?
        };
        let allowed = match &answer.outcome {
            RequestPermissionOutcome::Selected(selected) => {
                selected.option_id.to_string().starts_with("allow")
            }
            _ => false,
        };
        if !allowed {
            return self.not_run(id).await;
        }
        self.tests_ran(id).await
    }

    /// A command it was not let run: the call fails, and it says so.
    async fn not_run(&self, id: &str) -> Result<String, Error> {
        self.tool_done(
            id,
            ToolCallStatus::Failed,
            Some("not run: permission denied"),
        );
        let words = "Understood: I will not run the tests.";
        self.say(words).await;
        Ok(words.to_string())
    }

    /// Keeps what it did in the session's history as `("done", what)`, so tests judge what
    /// ran and what changed by the agent's own record.
    fn remember_done(&self, what: &str) {
        if let Ok(mut state) = self.state.lock()
            && let Some(remembered) = state.sessions.get_mut(self.session)
        {
            remembered.history.push(("done".into(), what.to_string()));
        }
        remember(self.state, self.options, self.session);
    }

    /// Whether it may run or apply the call, as its mode says (docs/ACP.md, "Our scripted
    /// agent's modes"): in `yolo` nothing asks; an "always" answer given in this session for
    /// the call's kind stands; else it asks with all four option kinds, and keeps an
    /// "always" answer for the kind.
    async fn permit(&self, id: &str, fields: ToolCallUpdateFields) -> Result<bool, Error> {
        let kind = match fields.kind {
            Some(ToolKind::Edit) => "edit",
            _ => "execute",
        };
        let (mode, always) = self
            .state
            .lock()
            .ok()
            .and_then(|s| {
                s.sessions
                    .get(self.session)
                    .map(|r| (r.mode().to_string(), r.always.get(kind).copied()))
            })
            .unwrap_or_default();
        if mode == "yolo" {
            return Ok(true);
        }
        if let Some(always) = always {
            return Ok(always);
        }
        let options = vec![
            PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
            PermissionOption::new(
                "allow_always",
                format!("Always allow {kind}"),
                PermissionOptionKind::AllowAlways,
            ),
            PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
            PermissionOption::new("reject_always", "Never", PermissionOptionKind::RejectAlways),
        ];
        let request = RequestPermissionRequest::new(
            self.session.to_string(),
            ToolCallUpdate::new(id.to_string(), fields),
            options,
        );
        let answer = self.cx.send_request(request).block_task().await?;
        let chosen = match &answer.outcome {
            RequestPermissionOutcome::Selected(selected) => selected.option_id.to_string(),
            _ => String::new(),
        };
        let allowed = chosen.starts_with("allow");
        if chosen.ends_with("_always") {
            if let Ok(mut state) = self.state.lock()
                && let Some(remembered) = state.sessions.get_mut(self.session)
            {
                remembered.always.insert(kind.to_string(), allowed);
            }
            remember(self.state, self.options, self.session);
        }
        Ok(allowed)
    }

    /// Runs the tests it was let run.
    async fn tests_ran(&self, id: &str) -> Result<String, Error> {
        self.tool_done(id, ToolCallStatus::InProgress, None);
        tokio::time::sleep(self.pace * 5).await;
        self.tool_done(id, ToolCallStatus::Completed, Some("running 3 tests\ntest adds ... FAILED\ntest parses ... ok\ntest prints ... ok\n\ntest result: FAILED. 2 passed; 1 failed"));
        self.remember_done("ran cargo test");
        let words = "The tests ran: 2 passed, 1 failed (`adds`).";
        self.say(words).await;
        Ok(words.to_string())
    }
}

/// The `cargo test` call of `/tool`, as a permission request carries it.
fn bash_fields() -> ToolCallUpdateFields {
    ToolCallUpdateFields::new()
        .kind(ToolKind::Execute)
        .title("`cargo test`".to_string())
        .raw_input(serde_json::json!({"command": "cargo test", "description": "Run the tests"}))
}

/// Applies a switch to a session and keeps it in its history; false when there is no such
/// session. A session never prompted stays off the disk, as before.
fn switch(
    state: &Shared,
    options: &ScriptedOptions,
    session: &str,
    change: impl FnOnce(&mut Remembered),
) -> bool {
    let prompted = {
        let Ok(mut state) = state.lock() else {
            return false;
        };
        let Some(remembered) = state.sessions.get_mut(session) else {
            return false;
        };
        change(remembered);
        let note = format!(
            "mode={},speed={},compact={}",
            remembered.mode(),
            remembered.speed(),
            if remembered.compact() { "on" } else { "off" }
        );
        let prompted = !remembered.history.is_empty();
        remembered.history.push(("setting".into(), note));
        prompted
    };
    if prompted {
        remember(state, options, session);
    }
    true
}

/// How many prompts a session has had, this one included: what makes its tool call ids new.
fn turn_number(state: &Shared, session: &str) -> usize {
    state
        .lock()
        .ok()
        .and_then(|s| s.sessions.get(session).map(|r| r.history.len()))
        .unwrap_or_default()
}

/// Writes a session to the sessions folder, when there is one.
pub(super) fn remember(state: &Shared, options: &ScriptedOptions, session: &str) {
    let Some(folder) = &options.sessions else {
        return;
    };
    let Ok(state) = state.lock() else { return };
    let Some(remembered) = state.sessions.get(session) else {
        return;
    };
    let Ok(bytes) = serde_json::to_vec(remembered) else {
        return;
    };
    if let Err(error) = std::fs::write(folder.join(format!("{session}.json")), bytes) {
        eprintln!("scripted agent: cannot keep session {session}: {error}");
    }
}

/// A session from memory or from the sessions folder.
pub(super) fn recall(
    state: &Shared,
    options: &ScriptedOptions,
    session: &str,
) -> Option<Remembered> {
    let mut state = state.lock().ok()?;
    if let Some(found) = state.sessions.get(session) {
        return Some(found.clone());
    }
    let folder = options.sessions.as_ref()?;
    if session.contains('/') || session.contains("..") {
        return None;
    }
    let bytes = std::fs::read(folder.join(format!("{session}.json"))).ok()?;
    let found: Remembered = serde_json::from_slice(&bytes).ok()?;
    state.sessions.insert(session.to_string(), found.clone());
    Some(found)
}

/// The sessions it keeps, as `session/list` gives them: those in its sessions folder (and
/// in memory) for the folder asked about, titled by their first words, newest first.
pub(super) mod sessions {
    use std::time::SystemTime;

    use agent_client_protocol::v1::schema::{
        ListSessionsRequest, ListSessionsResponse, SessionCapabilities, SessionCloseCapabilities,
        SessionInfo, SessionListCapabilities, SessionResumeCapabilities,
    };

    use super::{Remembered, ScriptedOptions, Shared};

    pub(in crate::rigs) fn capabilities(resume: bool) -> SessionCapabilities {
        SessionCapabilities::new()
            .list(SessionListCapabilities::new())
            .close(SessionCloseCapabilities::new())
            .resume(resume.then(SessionResumeCapabilities::new))
    }

    pub(super) fn list(
        state: &Shared,
        options: &ScriptedOptions,
        request: ListSessionsRequest,
    ) -> ListSessionsResponse {
        let mut found: Vec<(String, Remembered, SystemTime)> = Vec::new();
        if let Some(folder) = &options.sessions
            && let Ok(entries) = std::fs::read_dir(folder)
        {
            for entry in entries.flatten() {
                let path = entry.path();
                let Some(id) = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .filter(|_| path.extension().is_some_and(|e| e == "json"))
                else {
                    continue;
                };
                let Ok(bytes) = std::fs::read(&path) else {
                    continue;
                };
                let Ok(remembered) = serde_json::from_slice::<Remembered>(&bytes) else {
                    continue;
                };
                let at = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                found.push((id.to_string(), remembered, at));
            }
        }
        if let Ok(state) = state.lock() {
            for (id, remembered) in &state.sessions {
                if !remembered.history.is_empty() && !found.iter().any(|(f, _, _)| f == id) {
                    found.push((id.clone(), remembered.clone(), SystemTime::now()));
                }
            }
        }
        found.retain(|(_, r, _)| request.cwd.as_ref().is_none_or(|cwd| &r.cwd == cwd));
        found.sort_by_key(|f| std::cmp::Reverse(f.2));
        let sessions = found
            .into_iter()
            .map(|(id, remembered, at)| {
                let title = remembered
                    .history
                    .iter()
                    .find(|(who, _)| who == "user")
                    .map(|(_, words)| words.chars().take(60).collect::<String>());
                let at = time::OffsetDateTime::from(at)
                    .format(&time::format_description::well_known::Rfc3339)
                    .ok();
                SessionInfo::new(id, remembered.cwd)
                    .title(title)
                    .updated_at(at)
            })
            .collect();
        ListSessionsResponse::new(sessions)
    }
}
