//! The host's ACP v2 side, for an agent the person asked v2 of (`--acp-protocol NAME=2`,
//! `protocol = 2` under `[acp.NAME]`; docs/ACP.md, "ACP v1 and v2"). It offers 2 at
//! `initialize`; an agent that answers 1 is handed back to the v1 connection over the same
//! pipes (`super::client`). One that answers 2 is served here: the host's commands become v2
//! requests, and what the agent says becomes the host's own events (`told`), so the host
//! drives a v2 session as it drives a v1 one.
//!
//! What v2 changes here: `initialize` carries `info` and object capabilities, and
//! `capabilities.session` stands for new, list, resume, close, prompt, cancel and update;
//! `session/prompt` is answered at once with the user message's id, and the turn ends with the
//! `idle` of `state_update`, which this side turns into the end of the prompt the host sent; a
//! session the host holds comes back with `session/resume`, and one from the agent's list with
//! `session/resume` and `replayFrom`, whose replay the host makes the pane's history once (v1's
//! `session/load`); modes are config options of the category `mode`, into whose asking-most
//! value a new session is put as v1's are (docs/ACP.md, "The mode a session starts in"); and
//! a permission carries a `title` and a `subject` (`told::permission`).

mod told;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    SessionConfigOption, SessionConfigOptionValue, StopReason,
};
use agent_client_protocol::v2::schema as v2;
use agent_client_protocol::v2::{ConnectionTo, InitializeOutcome};
use agent_client_protocol::{Agent, Client, ConnectTo, Error, ErrorCode, JsonRpcRequest};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

use super::client::{Command, Event, Events, Failure, failure_of};
use super::reply::Reply;
use super::sessions::{Abilities, Listed, Opening};
use super::settings::starting_mode;
use super::sign_in::{Held, Method};
use super::spec::AcpSpec;
use super::stderr_tail::StderrTail;
use super::text::{clean_line, log_line};
use told::{Said, Turn};

/// Each session's turn on its way: the pane and the host's turn its `idle` ends.
type Turns = Arc<Mutex<HashMap<String, (String, String)>>>;

/// A v2 message of ours, built from its wire shape and read through the schema's type, so
/// what goes out is what the schema says.
fn wire<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, Error> {
    serde_json::from_value(value).map_err(Error::into_internal_error)
}

/// Runs the v2 connection. `Some(commands)` when the agent answered 1: the caller goes on with
/// v1, the commands not yet read.
pub(crate) async fn connect(
    spec: &AcpSpec,
    transport: impl ConnectTo<Client> + 'static,
    commands: UnboundedReceiver<Command>,
    events: Events,
    tail: StderrTail,
) -> Result<Option<UnboundedReceiver<Command>>, Error> {
    let name = spec.name.clone();
    let mode = spec.mode.clone();
    let turns: Turns = Arc::default();
    let (updates, update_name, update_turns) = (events.clone(), name.clone(), Arc::clone(&turns));
    let (permissions, permission_name) = (events.clone(), name.clone());
    let (elicitations, elicitation_name) = (events.clone(), name.clone());
    let (completions, completion_name) = (events.clone(), name.clone());
    Client
        .v2()
        .name("collie-phone")
        .on_receive_notification(
            async move |notification: v2::UpdateSessionNotification, _cx| {
                let session = notification.session_id.to_string();
                let update = serde_json::to_value(&notification.update).unwrap_or(Value::Null);
                for said in told::update(&update) {
                    let event = match said {
                        // ACP v2 tells the user message of a prompt back (its `messageId` is
                        // the prompt's answer); the pane shows what was sent already, so the
                        // echo of a turn of ours is not shown twice. A replay's are shown.
                        Said::Told(told)
                            if told::is_user(&told)
                                && update_turns.lock().is_ok_and(|t| t.contains_key(&session)) =>
                        {
                            None
                        }
                        Said::Told(told) => Some(Event::Told {
                            session: session.clone(),
                            told,
                        }),
                        Said::Turn(turn) => turn_event(&update_turns, session.clone(), turn),
                    };
                    if let Some(event) = event {
                        let _ = updates.send((update_name.clone(), event));
                    }
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: v2::RequestPermissionRequest,
                        responder: agent_client_protocol::v2::Responder<
                v2::RequestPermissionResponse,
            >,
                        _cx| {
                let key = super::client::next_key();
                let asked = serde_json::to_value(&request).unwrap_or(Value::Null);
                let Some(request) = told::permission(&asked, key) else {
                    // Nothing the host can show: no one could say yes to it.
                    return responder.respond(wire(json!({"outcome": {"outcome": "cancelled"}}))?);
                };
                super::client::withdrawn_on_cancel(
                    responder.cancellation(),
                    permissions.clone(),
                    permission_name.clone(),
                    key,
                );
                let _ = permissions.send((
                    permission_name.clone(),
                    Event::Permission {
                        key,
                        request: Box::new(request),
                        responder: Reply::V2(responder),
                    },
                ));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: v2::CreateElicitationRequest,
                        responder: agent_client_protocol::v2::Responder<
                v2::CreateElicitationResponse,
            >,
                        _cx| {
                let key = super::client::next_key();
                // The same shape as v1's (`sessionId`, `mode`, `message`, its schema or url).
                let asked = serde_json::to_value(&request).unwrap_or(Value::Null);
                let Ok(request) = serde_json::from_value(asked) else {
                    return responder.respond(wire(json!({"action": "decline"}))?);
                };
                super::client::withdrawn_on_cancel(
                    responder.cancellation(),
                    elicitations.clone(),
                    elicitation_name.clone(),
                    key,
                );
                let _ = elicitations.send((
                    elicitation_name.clone(),
                    Event::Elicitation {
                        key,
                        request: Box::new(request),
                        responder: Reply::V2(responder),
                    },
                ));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: v2::CompleteElicitationNotification, _cx| {
                let _ = completions.send((
                    completion_name.clone(),
                    Event::ElicitationComplete {
                        elicitation_id: notification.elicitation_id.to_string(),
                    },
                ));
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
            Ok(serve(cx, commands, events, name, tail, mode, turns).await)
        })
        .await
}

/// What a `state_update` is to the host: the end of the turn on its way (`idle`, once), or the
/// session waiting for the person or not.
fn turn_event(turns: &Turns, session: String, turn: Turn) -> Option<Event> {
    match turn {
        Turn::Running => Some(Event::Waiting {
            session,
            waiting: false,
        }),
        Turn::RequiresAction => Some(Event::Waiting {
            session,
            waiting: true,
        }),
        Turn::Idle(reason) => {
            let ended = turns.lock().ok()?.remove(&session);
            match ended {
                Some((pane, turn)) => Some(Event::PromptEnded {
                    pane,
                    turn,
                    outcome: reason.unwrap_or(Ok(StopReason::EndTurn)),
                }),
                // A resume's snapshot, or an idle after the turn ended: nothing waits.
                None => Some(Event::Waiting {
                    session,
                    waiting: false,
                }),
            }
        }
    }
}

/// `initialize` offering 2, then one command at a time, each request in a task of its own
/// (as v1's `serve`). `Some(commands)` when the agent answered 1.
async fn serve(
    cx: ConnectionTo<Agent>,
    mut commands: UnboundedReceiver<Command>,
    events: Events,
    name: String,
    tail: StderrTail,
    mode: Option<String>,
    turns: Turns,
) -> Option<UnboundedReceiver<Command>> {
    let initialize = wire::<v2::InitializeRequest>(json!({
        "protocolVersion": 2,
        "info": {"name": "collie-phone", "version": env!("CARGO_PKG_VERSION")},
        // Questions the agent asks become cards (docs/ACP.md, "Questions the agent asks").
        "capabilities": {"elicitation": {"form": {}, "url": {}}},
    }));
    let init = match initialize {
        Ok(request) => cx.send_initialize(request).block_task().await,
        Err(error) => Err(error),
    };
    let init = match init {
        Ok(InitializeOutcome::Initialized(init)) => init,
        Ok(InitializeOutcome::LowerVersion(lower)) => {
            tracing::info!(agent = %name, selected = %lower.selected(), "offered ACP v2, the agent chose a lower version");
            return Some(commands);
        }
        Ok(other) => {
            tracing::warn!(agent = %name, outcome = ?other, "initialize answered what this host does not know");
            return None;
        }
        Err(error) => {
            tracing::warn!(agent = %name, error = %log_line(&error.to_string()), "initialize failed");
            return None;
        }
    };
    let init = serde_json::to_value(&init).unwrap_or(Value::Null);
    let sign_in: Vec<String> = init["authMethods"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| clean_line(m["name"].as_str().unwrap_or("a sign-in")))
        .collect();
    let ways = ways_of(&init);
    // ACP v2: `capabilities.session` stands for new, list, resume, close, prompt, cancel and
    // update; a listed session is brought back with its replay by `session/resume` and
    // `replayFrom`, which is the host's "load".
    let sessions = init.pointer("/capabilities/session").is_some();
    let abilities = Abilities {
        load: sessions,
        resume: sessions,
        list: sessions,
        close: sessions,
        replay: sessions,
    };
    tracing::info!(agent = %name, ?abilities, "the agent speaks ACP v2");
    let _ = events.send((name.clone(), Event::Initialized { abilities }));
    while let Some(command) = commands.recv().await {
        let cx2 = cx.clone();
        let events = events.clone();
        let task_name = name.clone();
        let sign_in = sign_in.clone();
        let ways = ways.clone();
        let tail = tail.clone();
        let mode = mode.clone();
        let turns = Arc::clone(&turns);
        let task = async move {
            let known = Known {
                name: &task_name,
                sign_in: &sign_in,
                ways: &ways,
                tail: &tail,
                mode: mode.as_deref(),
                turns: &turns,
            };
            run(&cx2, command, &events, known).await;
            Ok(())
        };
        if let Err(error) = cx.spawn(task) {
            tracing::warn!(agent = %name, error = %log_line(&error.to_string()), "the connection is closing");
            return None;
        }
    }
    None
}

/// The ways an agent signs in itself, through `auth/login`, as its `initialize` answer names
/// them (a `terminal` one is run by the person in a terminal, as v1's are).
fn ways_of(init: &Value) -> Vec<Method> {
    init["authMethods"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["type"] == "agent")
        .filter_map(|m| {
            Some(Method {
                id: m["methodId"].as_str()?.to_string(),
                name: clean_line(m["name"].as_str().unwrap_or("a sign-in")),
            })
        })
        .collect()
}

/// What the connection knows that its commands need.
struct Known<'a> {
    name: &'a str,
    /// The names of every way the agent named to sign in.
    sign_in: &'a [String],
    /// The ways it signs in itself (`auth/login`).
    ways: &'a [Method],
    tail: &'a StderrTail,
    mode: Option<&'a str>,
    turns: &'a Turns,
}

/// One command, as v2 says it.
async fn run(cx: &ConnectionTo<Agent>, command: Command, events: &Events, known: Known<'_>) {
    let Known {
        name,
        sign_in,
        ways,
        tail,
        mode,
        turns,
    } = known;
    let send = |event: Event| {
        let _ = events.send((name.to_string(), event));
    };
    match command {
        Command::Open {
            pane,
            cwd,
            how,
            back,
        } => match open(cx, name, mode, back.as_deref(), &cwd, how.clone()).await {
            Ok((session, loaded, options, note)) => send(Event::Opened {
                pane,
                session,
                loaded,
                modes: None,
                options,
                note,
            }),
            // A sign-in the agent does itself waits for a person's choice of way.
            Err(error) if error.code == ErrorCode::AUTH_REQUIRED && !ways.is_empty() => {
                send(Event::SignInWanted {
                    pane,
                    methods: ways.to_vec(),
                    held: Held { cwd, how, back },
                })
            }
            Err(error) => send(Event::OpenFailed {
                pane,
                failure: failure_of(&error, sign_in),
            }),
        },
        Command::Login { pane, method } => {
            let login = request::<v2::LoginAuthRequest>(cx, json!({"methodId": method})).await;
            if let Err(error) = &login {
                tracing::info!(agent = name, method = %log_line(&method), error = %log_line(&error.to_string()), "auth/login was refused");
            }
            send(Event::SignedIn {
                pane,
                outcome: login.map(|_| ()).map_err(|e| failure_of(&e, sign_in)),
            });
        }
        Command::Close { session } => {
            if let Err(error) =
                request::<v2::CloseSessionRequest>(cx, json!({"sessionId": session})).await
            {
                tracing::info!(agent = name, session, error = %log_line(&error.to_string()), "session/close was refused");
            }
        }
        Command::List { cwd } => {
            let sessions = list(cx, &cwd).await.map_err(|e| failure_of(&e, &[]));
            send(Event::Listed { cwd, sessions });
        }
        Command::Prompt {
            pane,
            turn,
            session,
            texts,
        } => {
            let prompt: Vec<Value> = texts
                .into_iter()
                .map(|t| json!({"type": "text", "text": t}))
                .collect();
            // Kept before it is sent: its `idle` may come before the acknowledgement.
            if let Ok(mut turns) = turns.lock() {
                turns.insert(session.clone(), (pane.clone(), turn.clone()));
            }
            let asked =
                request::<v2::PromptRequest>(cx, json!({"sessionId": session, "prompt": prompt}))
                    .await;
            // ACP v2: the answer is only the acknowledgement (`messageId`); the turn goes on
            // until its `idle`.
            if let Err(error) = asked {
                let mine = turns.lock().ok().and_then(|mut t| t.remove(&session));
                if mine.is_some() {
                    let failure = if cx.is_incoming_closed() {
                        Failure::Gone(tail.settled().await)
                    } else {
                        failure_of(&error, sign_in)
                    };
                    send(Event::PromptEnded {
                        pane,
                        turn,
                        outcome: Err(failure),
                    });
                }
            }
        }
        Command::Set {
            pane,
            session,
            setting,
            option,
            value,
        } => {
            let outcome = match option {
                // ACP v2 has no `session/set_mode`; its modes are options.
                None => {
                    let id = json!({"type": "id", "value": value});
                    set_option(cx, &session, &setting, id).await.map(Some)
                }
                Some((option, option_value)) => {
                    let v2_value = option_value_of(&option_value, &value);
                    set_option(cx, &session, &option, v2_value).await.map(Some)
                }
            }
            .map_err(|e| failure_of(&e, sign_in));
            send(Event::SetAnswered {
                pane,
                setting,
                value,
                outcome,
            });
        }
        Command::Cancel { session } => {
            let cancel = wire::<v2::CancelSessionNotification>(json!({"sessionId": session}));
            if let Err(error) = cancel.and_then(|c| cx.send_notification(c)) {
                tracing::warn!(agent = name, error = %log_line(&error.to_string()), "session/cancel could not be sent");
            }
        }
    }
}

/// A v2 request of type `R`, built from its JSON params and read through the schema's type
/// (so what goes out is what the schema says), answered as the JSON of its typed answer.
async fn request<R>(cx: &ConnectionTo<Agent>, params: Value) -> Result<Value, Error>
where
    R: JsonRpcRequest + serde::de::DeserializeOwned,
    R::Response: serde::Serialize,
{
    let request: R = wire(params)?;
    let reply = cx.send_request(request).block_task().await?;
    serde_json::to_value(reply).map_err(Error::into_internal_error)
}

/// A v1 option value (a select's value id, or a boolean) as v2 says it: `{"type": "id",
/// "value": …}` or `{"type": "boolean", "value": …}`.
fn option_value_of(value: &SessionConfigOptionValue, id: &str) -> Value {
    match value {
        SessionConfigOptionValue::Boolean { value } => json!({"type": "boolean", "value": value}),
        SessionConfigOptionValue::ValueId { value } => json!({"type": "id", "value": value.0}),
        _ => json!({"type": "id", "value": id}),
    }
}

/// `session/set_config_option` of `value` (v2's shape, [`option_value_of`]): the options as
/// the agent answers them, in v1's shape.
async fn set_option(
    cx: &ConnectionTo<Agent>,
    session: &str,
    option: &str,
    value: Value,
) -> Result<Vec<SessionConfigOption>, Error> {
    let mut params = json!({"sessionId": session, "configId": option});
    if let (Some(params), Value::Object(value)) = (params.as_object_mut(), value) {
        params.extend(value);
    }
    let reply = request::<v2::SetSessionConfigOptionRequest>(cx, params).await?;
    Ok(options_of(&reply))
}

/// The config options of a reply, as v1's.
fn options_of(reply: &Value) -> Vec<SessionConfigOption> {
    told::config_options(reply.get("configOptions").unwrap_or(&Value::Null))
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| serde_json::from_value(o.clone()).ok())
        .collect()
}

/// A pane's session: new (then put in its starting mode), resumed as the host holds it, or
/// resumed with its replay for one of the agent's own (`Opening::Load`). Its id, whether it
/// was known, its options, and what the pane is told of its mode.
async fn open(
    cx: &ConnectionTo<Agent>,
    agent: &str,
    mode: Option<&str>,
    back: Option<&str>,
    cwd: &Path,
    how: Opening,
) -> Result<
    (
        String,
        bool,
        Option<Vec<SessionConfigOption>>,
        Option<String>,
    ),
    Error,
> {
    let (session, loaded, reply) = match how {
        Opening::New => {
            let reply = request::<v2::NewSessionRequest>(cx, json!({"cwd": cwd})).await?;
            let session = reply["sessionId"].as_str().unwrap_or_default().to_string();
            (session, false, reply)
        }
        Opening::Resume(session) => {
            let reply =
                request::<v2::ResumeSessionRequest>(cx, json!({"sessionId": session, "cwd": cwd}))
                    .await?;
            (session, true, reply)
        }
        Opening::Load(session) => {
            let reply = request::<v2::ResumeSessionRequest>(
                cx,
                json!({"sessionId": session, "cwd": cwd, "replayFrom": {"type": "start"}}),
            )
            .await?;
            (session, true, reply)
        }
    };
    let mut options = options_of(&reply);
    let note = into_mode(
        cx,
        agent,
        &session,
        &mut options,
        if loaded { back } else { None },
        mode,
    )
    .await;
    Ok((session, loaded, Some(options), note))
}

/// ACP v2's modes are a select option of the category `mode`: a session is put in the value
/// that asks most before acting, or the person's choice (`--acp-mode`), or back in the one its
/// pane was in, as v1's modes are (docs/ACP.md, "The mode a session starts in").
async fn into_mode(
    cx: &ConnectionTo<Agent>,
    agent: &str,
    session: &str,
    options: &mut Vec<SessionConfigOption>,
    back: Option<&str>,
    chosen: Option<&str>,
) -> Option<String> {
    let switch = mode_switch(agent, options, back, chosen)?;
    let Some(wanted) = switch.wanted else {
        return switch.note;
    };
    let value = json!({"type": "id", "value": wanted});
    match set_option(cx, session, &switch.option, value).await {
        Ok(now) if !now.is_empty() => {
            *options = now;
            switch.note
        }
        Ok(_) => switch.note,
        Err(error) => {
            tracing::warn!(agent, session, mode = %log_line(&wanted), error = %log_line(&error.to_string()), "the session's mode could not be set");
            Some(format!(
                "{agent} did not switch this session to the mode {}; it stays in {}.",
                clean_line(&wanted),
                clean_line(&switch.current)
            ))
        }
    }
}

/// The switch of a session's mode option, when it has one ([`into_mode`]).
#[derive(Debug, PartialEq)]
struct ModeSwitch {
    /// The option's id.
    option: String,
    current: String,
    /// The value to switch it to; `None` when it is in it already.
    wanted: Option<String>,
    /// What the pane is told of it.
    note: Option<String>,
}

/// Which value a session's mode option (a select of the category `mode`) should be switched
/// to: back to `back` (the mode its pane was in) where offered, else as a new session's
/// (`settings::starting_mode`: the person's choice, else the value that asks most).
fn mode_switch(
    agent: &str,
    options: &[SessionConfigOption],
    back: Option<&str>,
    chosen: Option<&str>,
) -> Option<ModeSwitch> {
    let as_json = serde_json::to_value(options).ok()?;
    let option = as_json
        .as_array()?
        .iter()
        .find(|o| o["category"] == "mode" && o["type"] == "select")?;
    let id = option["id"].as_str()?.to_string();
    let current = option["currentValue"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let offered: Vec<String> = option["options"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|o| match o.get("options").and_then(Value::as_array) {
            Some(group) => group.clone(),
            None => vec![o.clone()],
        })
        .filter_map(|o| o["value"].as_str().map(str::to_string))
        .collect();
    let offered: Vec<&str> = offered.iter().map(String::as_str).collect();
    let (wanted, note) = match back {
        Some(mode) if offered.contains(&mode) => {
            ((mode != current).then(|| mode.to_string()), None)
        }
        _ => starting_mode(agent, &offered, &current, chosen),
    };
    Some(ModeSwitch {
        option: id,
        current,
        wanted,
        note,
    })
}

/// The agent's sessions in `cwd` (`session/list`), every page up to five.
async fn list(cx: &ConnectionTo<Agent>, cwd: &Path) -> Result<Vec<Listed>, Error> {
    let mut found = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..5 {
        let mut params = json!({"cwd": cwd});
        if let Some(cursor) = &cursor {
            params["cursor"] = json!(cursor);
        }
        let reply = request::<v2::ListSessionsRequest>(cx, params).await?;
        for session in reply["sessions"].as_array().into_iter().flatten() {
            if session["cwd"].as_str().map(PathBuf::from).as_deref() != Some(cwd) {
                continue;
            }
            let Some(id) = session["sessionId"].as_str() else {
                continue;
            };
            found.push(Listed {
                session: id.to_string(),
                title: session["title"]
                    .as_str()
                    .map(clean_line)
                    .filter(|t| !t.is_empty()),
                updated_at: session["updatedAt"].as_str().map(clean_line),
            });
        }
        cursor = reply["nextCursor"].as_str().map(str::to_string);
        if cursor.is_none() {
            break;
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ACP v2 has no modes but a mode option: a new session goes into the value that asks
    /// most (claude-agent-acp starts in `auto` of itself), or the person's; a resumed one back
    /// into its pane's.
    #[test]
    fn a_v2_sessions_mode_option_goes_to_the_value_that_asks_most() {
        let options: Vec<SessionConfigOption> = serde_json::from_value(told::config_options(&json!([{
            "configId": "mode", "name": "Mode", "category": "mode", "type": "select",
            "currentValue": "auto",
            "options": [{"value": "default", "name": "Default"}, {"value": "acceptEdits", "name": "Accept Edits"}, {"value": "auto", "name": "Auto"}]
        }])))
        .expect("v1 options");
        let switch =
            |back, chosen| mode_switch("claude", &options, back, chosen).expect("a mode option");
        assert_eq!(switch(None, None).wanted.as_deref(), Some("default"));
        assert_eq!(
            switch(None, Some("acceptEdits")).wanted.as_deref(),
            Some("acceptEdits")
        );
        assert_eq!(
            switch(Some("acceptEdits"), None).wanted.as_deref(),
            Some("acceptEdits")
        );
        assert_eq!(switch(Some("auto"), None).wanted, None, "in it already");
        let refused = switch(None, Some("fast"));
        assert_eq!(refused.wanted.as_deref(), Some("default"));
        assert!(
            refused
                .note
                .is_some_and(|n| n.contains("claude offers no mode fast"))
        );
        assert_eq!(switch(None, None).option, "mode");
        assert!(mode_switch("claude", &[], None, None).is_none());
    }

    /// The lines of a capture of a real adapter on v2 (tests/fixtures/acp/real/README.md).
    fn captured(jsonl: &str) -> Vec<Value> {
        jsonl
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect()
    }

    /// claude-agent-acp 0.101.0 on v2, signed out: its session's mode option starts in `auto`
    /// ("Claude handles permission decisions") and goes to `default`; its user message, told
    /// before the prompt's answer, and its updates read; its turn ends in an `idle` `error`.
    #[test]
    fn claude_agent_acps_v2_session_reads_and_starts_in_the_mode_that_asks_most() {
        let lines = captured(include_str!(
            "../../../../../tests/fixtures/acp/real/claude-agent-acp-0.101.0-v2-signed-out.jsonl"
        ));
        assert!(
            ways_of(&lines[0]["result"]).is_empty(),
            "its ways are terminal ones"
        );
        let options = options_of(&lines[2]["result"]);
        let switch = mode_switch("claude", &options, None, None).expect("its mode option");
        assert_eq!(
            (
                switch.option.as_str(),
                switch.current.as_str(),
                switch.wanted.as_deref()
            ),
            ("mode", "auto", Some("default"))
        );
        let mut said = Vec::new();
        for line in lines.iter().filter(|l| l["method"] == "session/update") {
            said.extend(told::update(&line["params"]["update"]));
        }
        assert!(
            said.iter()
                .any(|s| matches!(s, Said::Told(t) if told::is_user(t)))
        );
        assert!(matches!(
            said.iter().rev().find(|s| matches!(s, Said::Turn(_))),
            Some(Said::Turn(Turn::Idle(Some(Err(Failure::SignIn(ways)))))) if ways.is_empty()
        ));
    }

    /// codex-acp 2.6.0 on v2, signed out, names three ways it signs in itself: the card's.
    #[test]
    fn codex_acps_v2_ways_to_sign_in_are_its_agent_methods() {
        let lines = captured(include_str!(
            "../../../../../tests/fixtures/acp/real/codex-acp-2.6.0-v2-signed-out.jsonl"
        ));
        let ways: Vec<String> = ways_of(&lines[0]["result"])
            .into_iter()
            .map(|m| format!("{}={}", m.id, m.name))
            .collect();
        assert_eq!(
            ways,
            [
                "api-key=API Key",
                "chat-gpt=ChatGPT",
                "chat-gpt-device-code=ChatGPT (device code)"
            ]
        );
    }

    #[test]
    fn a_v1_value_goes_out_as_v2s() {
        let id = SessionConfigOptionValue::value_id("quick");
        assert_eq!(
            option_value_of(&id, "quick"),
            json!({"type": "id", "value": "quick"})
        );
        let flag = SessionConfigOptionValue::Boolean { value: true };
        assert_eq!(
            option_value_of(&flag, "true"),
            json!({"type": "boolean", "value": true})
        );
    }
}
