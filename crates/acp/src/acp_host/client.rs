//! One ACP agent process and its JSON-RPC connection, by the official crate
//! (`agent-client-protocol`), run as a task: commands go in, events come out, and the host,
//! which holds the world's lock, never waits on the agent.
//!
//! The host owns the process and its pipes (`process`), and hands the crate only lines
//! (`agent_client_protocol::Lines`): so it decides the agent's environment, reads stdout with a
//! cap (`lines`), and reads stderr to its end on a task of its own, so the words of an agent
//! that went at once still reach the pane and the log.
//!
//! We are the ACP client. We advertise elicitation (form and url: an agent's questions are
//! cards). We advertise no file system and no terminal capability: the host
//! would have to confine every read, write and command to the session's workspace, and an
//! agent that has neither still does its work with its own tools, asking permission first.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    BooleanConfigOptionCapabilities, CancelNotification, ClientCapabilities,
    ClientSessionCapabilities, CompleteElicitationNotification, ContentBlock,
    CreateElicitationRequest, ElicitationCapabilities, ElicitationFormCapabilities,
    ElicitationUrlCapabilities, Implementation, InitializeRequest, PromptRequest,
    RequestPermissionRequest, SessionConfigOption, SessionConfigOptionValue,
    SessionConfigOptionsCapabilities, SessionModeState, SessionNotification,
    SetSessionConfigOptionRequest, SetSessionModeRequest, StopReason, TextContent,
};
use agent_client_protocol::{Agent, Client, ErrorCode};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::lines::{self, MAX_STDERR_LINE, MAX_STDOUT_LINE, Read};
use super::process::{self, Group};
use super::reply::{ElicitationReply, PermissionReply, Reply};
use super::sessions::{self, Abilities, Listed, Opening};
use super::shared_lines::SharedLines;
use super::sign_in::{Held, Method};
use super::spec::{AcpSpec, Protocol};
use super::stderr_tail::StderrTail;
use super::stream::Told;
use super::text::log_line;

/// What the host asks of one agent process.
#[derive(Debug)]
pub(crate) enum Command {
    /// `session/new` in `cwd`, or `session/load` or `session/resume` of a session there.
    Open {
        pane: String,
        cwd: PathBuf,
        how: Opening,
        /// The mode the pane was in, put back after a load or a resume.
        back: Option<String>,
    },
    /// `session/close`: the pane is closed.
    Close { session: String },
    /// `session/list` of the agent's sessions in `cwd`.
    List { cwd: PathBuf },
    /// `session/prompt` for a turn.
    Prompt {
        pane: String,
        turn: String,
        session: String,
        texts: Vec<String>,
    },
    /// `session/cancel`.
    Cancel { session: String },
    /// ACP v2's `auth/login` with the way a person chose (`super::sign_in`).
    Login { pane: String, method: String },
    /// `session/set_mode`, or `session/set_config_option` of `option`: a phone chose `value`
    /// for the pane's setting `setting`.
    Set {
        pane: String,
        session: String,
        setting: String,
        /// The option and its value for `session/set_config_option`; `None` switches the mode.
        option: Option<(String, SessionConfigOptionValue)>,
        value: String,
    },
}

/// Why something the host asked did not happen, in the words a pane's notice uses.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Failure {
    /// The command could not be started at all.
    NotStarted(String),
    /// The agent wants a sign-in first (`auth_required`); the names of its sign-in methods.
    SignIn(Vec<String>),
    /// The agent answered with an error (cleaned, one line).
    Refused(String),
    /// The process went away; the last lines it printed on stderr (`StderrTail::said`),
    /// empty when none. Its stderr is read to the end before this is told, so an agent that
    /// went before it read its first message has its words here too.
    Gone(String),
    /// It wrote a line on its stdout longer than [`MAX_STDOUT_LINE`], and the host stopped it.
    TooLong,
}

/// What the agent did.
pub(crate) enum Event {
    /// `initialize` answered.
    Initialized {
        abilities: Abilities,
    },
    Opened {
        pane: String,
        session: String,
        /// Loaded or resumed: a session the host knew before.
        loaded: bool,
        /// The session's modes and config options, as its reply gave them.
        modes: Option<SessionModeState>,
        options: Option<Vec<SessionConfigOption>>,
        /// What the pane is told of its starting mode, when it is not what was asked.
        note: Option<String>,
    },
    /// The agent's own sessions in a folder (`session/list`).
    Listed {
        cwd: PathBuf,
        sessions: Result<Vec<Listed>, Failure>,
    },
    OpenFailed {
        pane: String,
        failure: Failure,
    },
    Update(Box<SessionNotification>),
    /// What an ACP v2 session told, in the stream's words (`super::v2`).
    Told {
        session: String,
        told: Told,
    },
    /// ACP v2's `state_update`: the session waits for the person (`requires_action`), or no
    /// longer does.
    Waiting {
        session: String,
        waiting: bool,
    },
    /// ACP v2: the agent refused to open a session before a sign-in it does itself
    /// (`auth/login`), by one of these ways; the opening waits for it.
    SignInWanted {
        pane: String,
        methods: Vec<Method>,
        held: Held,
    },
    /// `auth/login` answered: signed in, or why not.
    SignedIn {
        pane: String,
        outcome: Result<(), Failure>,
    },
    /// A permission request, answered later through its responder.
    Permission {
        key: u64,
        request: Box<RequestPermissionRequest>,
        responder: PermissionReply,
    },
    /// The agent took a permission request or an elicitation back (`$/cancel_request`).
    PermissionWithdrawn {
        key: u64,
    },
    /// An `elicitation/create`, answered later through its responder.
    Elicitation {
        key: u64,
        request: Box<CreateElicitationRequest>,
        responder: ElicitationReply,
    },
    /// `elicitation/complete`: a url elicitation was done out of band.
    ElicitationComplete {
        elicitation_id: String,
    },
    PromptEnded {
        pane: String,
        turn: String,
        outcome: Result<StopReason, Failure>,
    },
    /// The agent answered a [`Command::Set`]: yes (with the options it now has, for a config
    /// option), or why not.
    SetAnswered {
        pane: String,
        setting: String,
        value: String,
        outcome: Result<Option<Vec<SessionConfigOption>>, Failure>,
    },
    /// The connection ended: the process exited, crashed, or never started.
    Exited {
        failure: Failure,
    },
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Event::Permission { key, .. } => write!(f, "Permission({key})"),
            Event::Elicitation { key, .. } => write!(f, "Elicitation({key})"),
            Event::ElicitationComplete { elicitation_id } => {
                write!(f, "ElicitationComplete({elicitation_id})")
            }
            Event::Update(n) => write!(f, "Update({})", n.session_id.0),
            Event::Told { session, .. } => write!(f, "Told({session})"),
            Event::Waiting { session, waiting } => write!(f, "Waiting({session}, {waiting})"),
            Event::SignInWanted { pane, methods, .. } => {
                write!(f, "SignInWanted({pane}, {})", methods.len())
            }
            Event::SignedIn { pane, outcome } => write!(f, "SignedIn({pane}, {})", outcome.is_ok()),
            Event::Initialized { abilities } => write!(f, "Initialized({abilities:?})"),
            Event::Listed { cwd, sessions } => write!(
                f,
                "Listed({}, {:?})",
                cwd.display(),
                sessions.as_ref().map(Vec::len)
            ),
            Event::Opened { pane, session, .. } => write!(f, "Opened({pane}, {})", session),
            Event::OpenFailed { pane, failure } => write!(f, "OpenFailed({pane}, {failure:?})"),
            Event::PermissionWithdrawn { key } => write!(f, "PermissionWithdrawn({key})"),
            Event::PromptEnded { pane, turn, .. } => write!(f, "PromptEnded({pane}, {turn})"),
            Event::SetAnswered {
                pane,
                setting,
                value,
                outcome,
            } => write!(
                f,
                "SetAnswered({pane}, {setting}={value}, {})",
                outcome.is_ok()
            ),
            Event::Exited { failure } => write!(f, "Exited({failure:?})"),
        }
    }
}

/// Events of every agent process go to the host on one channel, named by the agent.
pub(crate) type Events = UnboundedSender<(String, Event)>;

static NEXT_PERMISSION: AtomicU64 = AtomicU64::new(1);

/// The key of a request the agent makes (a permission, a question), unique in the host.
pub(crate) fn next_key() -> u64 {
    NEXT_PERMISSION.fetch_add(1, Ordering::Relaxed)
}

/// Tells the host when the agent takes request `key` back (`$/cancel_request`).
pub(crate) fn withdrawn_on_cancel(
    cancellation: agent_client_protocol::RequestCancellation,
    events: Events,
    name: String,
    key: u64,
) {
    tokio::spawn(async move {
        cancellation.cancelled().await;
        let _ = events.send((name, Event::PermissionWithdrawn { key }));
    });
}

/// Starts the agent's process and its connection; the returned sender takes its commands.
/// Dropping the sender ends the connection, which stops the process (its whole process group).
pub(crate) fn spawn(spec: &AcpSpec, events: Events) -> UnboundedSender<Command> {
    let (commands, receiver) = unbounded_channel();
    let spec = spec.clone();
    tokio::spawn(async move {
        let name = spec.name.clone();
        let failure = match spec.resolve() {
            Err(why) => Failure::NotStarted(why),
            Ok(program) => run(&spec, program, receiver, events.clone()).await,
        };
        tracing::info!(agent = %name, ?failure, "the ACP agent's connection ended");
        let _ = events.send((name, Event::Exited { failure }));
    });
    commands
}

/// How long the host waits for the rest of the agent's stderr once the agent is gone, before it
/// tells what came: a descendant that left the group may hold the pipe open.
const STDERR_WAIT: Duration = Duration::from_secs(1);

/// How the connection's race ended.
enum Ended {
    /// The connection ended first: the host let the agent go, or a pipe failed.
    Connection(Result<(), agent_client_protocol::Error>),
    /// The process exited first.
    Exited(std::io::Result<std::process::ExitStatus>),
}

async fn run(
    spec: &AcpSpec,
    program: PathBuf,
    commands: UnboundedReceiver<Command>,
    events: Events,
) -> Failure {
    let name = spec.name.clone();
    let mut child = match process::command(spec, &program).spawn() {
        Ok(child) => child,
        Err(error) => {
            return Failure::NotStarted(format!(
                "{} could not be run ({})",
                log_line(&program.display().to_string()),
                log_line(&error.to_string())
            ));
        }
    };
    // Made first, so whatever ends this task from here ends the agent's whole group.
    let group = Group::of(&child);
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Failure::NotStarted("its stdin, stdout and stderr could not be piped".into());
    };
    // SPEC L1: the agent's stderr goes to the host's log, one cleaned line at a time; its
    // last lines, cleaned and cut, go with the notice of a pane it stopped under.
    let tail = StderrTail::default();
    let stderr_read = tokio::spawn(read_stderr(stderr, name.clone(), tail.clone()));
    let too_long = Arc::new(AtomicBool::new(false));
    let lines = SharedLines::new(
        outgoing(stdin, name.clone()),
        incoming(stdout, name.clone(), Arc::clone(&too_long)),
    );
    let connection = connect(spec.clone(), lines, commands, events.clone(), tail.clone());
    let mut connection = std::pin::pin!(connection);
    let ended = tokio::select! {
        result = &mut connection => Ended::Connection(result),
        status = child.wait() => Ended::Exited(status),
    };
    match ended {
        Ended::Connection(result) => {
            if let Err(error) = &result {
                tracing::warn!(agent = %name, error = %log_line(&error.to_string()), "the ACP connection failed");
            }
            if too_long.load(Ordering::Acquire) {
                // It is still writing that line: no grace for it.
                group.signal(libc::SIGKILL);
                let _ = child.wait().await;
            } else {
                // The connection is dropped with its sink, so the agent's stdin is closed: the
                // ACP stdio transport's end of a connection.
                group.stop(&mut child).await;
            }
        }
        Ended::Exited(status) => {
            let clean = status.as_ref().is_ok_and(|s| s.success());
            let status = status.map_or_else(|e| log_line(&e.to_string()), |s| s.to_string());
            tracing::info!(agent = %name, %status, "the ACP agent's process exited");
            // Its launcher may be gone with a descendant still holding the pipes.
            group.signal(libc::SIGKILL);
            // A clean exit may come right after its last answers: the connection gets a
            // moment to hand them over, as the crate gave it.
            if clean {
                let _ = tokio::time::timeout(process::EXIT_GRACE, &mut connection).await;
            }
        }
    }
    if tokio::time::timeout(STDERR_WAIT, stderr_read)
        .await
        .is_err()
    {
        tracing::info!(agent = %name, "the agent's stderr stayed open after it went; what came of it is told");
    }
    if too_long.load(Ordering::Acquire) {
        return Failure::TooLong;
    }
    Failure::Gone(tail.said())
}

/// The connection of the version the person asked for: ACP v2 is offered where asked
/// (`super::v2`), and an agent that answers 1 goes on with v1 over the same pipes; otherwise
/// v1 alone. The pipes close when this ends.
async fn connect(
    spec: AcpSpec,
    lines: SharedLines,
    commands: UnboundedReceiver<Command>,
    events: Events,
    tail: StderrTail,
) -> Result<(), agent_client_protocol::Error> {
    let commands = match spec.protocol {
        Protocol::V2 => {
            let negotiated = super::v2::connect(
                &spec,
                lines.transport(),
                commands,
                events.clone(),
                tail.clone(),
            )
            .await?;
            match negotiated {
                Some(commands) => {
                    tracing::info!(agent = %spec.name, "offered ACP v2, the agent answered 1: it runs on v1");
                    commands
                }
                None => return Ok(()),
            }
        }
        Protocol::V1 => commands,
    };
    v1(&spec, lines.transport(), commands, events, tail).await
}

/// Today's ACP v1 connection: the handlers of what the agent sends, and [`serve`].
async fn v1(
    spec: &AcpSpec,
    transport: impl agent_client_protocol::ConnectTo<Client> + 'static,
    commands: UnboundedReceiver<Command>,
    events: Events,
    tail: StderrTail,
) -> Result<(), agent_client_protocol::Error> {
    let name = spec.name.clone();
    let prompt_tail = tail.clone();
    let updates = events.clone();
    let update_name = name.clone();
    let permissions = events.clone();
    let permission_name = name.clone();
    let elicitations = events.clone();
    let elicitation_name = name.clone();
    let completions = events.clone();
    let completion_name = name.clone();
    let foreground_events = events.clone();
    let foreground_name = name.clone();
    let mode = spec.mode.clone();
    Client
        .v1()
        .name("collie-phone")
        .on_receive_notification(
            async move |notification: SessionNotification, _cx| {
                let _ = updates.send((update_name.clone(), Event::Update(Box::new(notification))));
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: RequestPermissionRequest, responder, _cx| {
                let key = next_key();
                withdrawn_on_cancel(
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
                        responder: Reply::V1(responder),
                    },
                ));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: CreateElicitationRequest, responder, _cx| {
                let key = next_key();
                withdrawn_on_cancel(
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
                        responder: Reply::V1(responder),
                    },
                ));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CompleteElicitationNotification, _cx| {
                let _ = completions.send((
                    completion_name.clone(),
                    Event::ElicitationComplete {
                        elicitation_id: notification.elicitation_id.0.to_string(),
                    },
                ));
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
            serve(
                cx,
                commands,
                foreground_events,
                foreground_name,
                prompt_tail,
                mode,
            )
            .await;
            Ok(())
        })
        .await
}

/// The agent's stdout as lines for the crate, each at most [`MAX_STDOUT_LINE`] bytes (logged at
/// trace level, cleaned). A longer one ends the stream with an error, which ends the
/// connection; `too_long` says why. Bytes that are not UTF-8 are replaced, so the line still
/// reaches the JSON parser, which judges it.
fn incoming(
    stdout: ChildStdout,
    name: String,
    too_long: Arc<AtomicBool>,
) -> std::pin::Pin<Box<dyn futures::Stream<Item = std::io::Result<String>> + Send>> {
    let reader = BufReader::new(stdout);
    Box::pin(futures::stream::unfold(
        Some((reader, name, too_long)),
        |state| async move {
            let (mut reader, name, too_long) = state?;
            let mut line = Vec::new();
            match lines::read_line(&mut reader, &mut line, MAX_STDOUT_LINE).await {
                Ok(Read::Line) => {
                    let line = String::from_utf8(line)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                    tracing::trace!(agent = %name, direction = "stdout", "{}", log_line(&line));
                    Some((Ok(line), Some((reader, name, too_long))))
                }
                Ok(Read::End) => None,
                Ok(Read::TooLong) => {
                    too_long.store(true, Ordering::Release);
                    tracing::warn!(
                        agent = %name,
                        "the agent wrote a line longer than {} on its stdout; it is stopped",
                        lines::stdout_cap_words()
                    );
                    let error = std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "a line longer than the host takes",
                    );
                    Some((Err(error), None))
                }
                Err(error) => Some((Err(error), None)),
            }
        },
    ))
}

/// Lines for the agent's stdin, each written whole with its `\n` and flushed (logged at trace
/// level, cleaned).
fn outgoing(
    stdin: ChildStdin,
    name: String,
) -> std::pin::Pin<Box<dyn futures::Sink<String, Error = std::io::Error> + Send>> {
    Box::pin(futures::sink::unfold(
        (stdin, name),
        |(mut stdin, name), line: String| async move {
            tracing::trace!(agent = %name, direction = "stdin", "{}", log_line(&line));
            let mut bytes = line.into_bytes();
            bytes.push(b'\n');
            stdin.write_all(&bytes).await?;
            stdin.flush().await?;
            Ok::<_, std::io::Error>((stdin, name))
        },
    ))
}

/// Reads the agent's stderr to its end: each line to the log (cleaned, SPEC L1; the log's
/// writer scrubs the tokens the host knows, SPEC T2) and to the tail a pane's notice quotes. A
/// line longer than [`MAX_STDERR_LINE`] is cut there and the rest of it passed over.
async fn read_stderr(stderr: ChildStderr, name: String, tail: StderrTail) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        let read = lines::read_line(&mut reader, &mut line, MAX_STDERR_LINE).await;
        let cut = matches!(read, Ok(Read::TooLong));
        match read {
            Ok(Read::Line | Read::TooLong) => {
                let text = String::from_utf8_lossy(&line);
                tracing::info!(agent = %name, "stderr: {}", log_line(&text));
                tail.push(&text);
            }
            Ok(Read::End) => return,
            Err(error) => {
                tracing::info!(agent = %name, error = %log_line(&error.to_string()), "the agent's stderr could not be read further");
                return;
            }
        }
        if cut {
            tracing::info!(agent = %name, "that stderr line was longer than 64 KiB; the rest of it was passed over");
            if !matches!(lines::skip_line(&mut reader).await, Ok(true)) {
                return;
            }
        }
    }
}

/// The foreground of the connection: initialize, then one command at a time, each request in
/// a task of its own so a long prompt never holds up a cancel or another session.
async fn serve(
    cx: ConnectionTo<Agent>,
    mut commands: UnboundedReceiver<Command>,
    events: Events,
    name: String,
    tail: StderrTail,
    mode: Option<String>,
) {
    let initialize = InitializeRequest::new(ProtocolVersion::V1)
        // Questions the agent asks become cards (docs/ACP.md, "Questions the agent asks").
        .client_capabilities(
            ClientCapabilities::new()
                .elicitation(
                    ElicitationCapabilities::new()
                        .form(ElicitationFormCapabilities::new())
                        .url(ElicitationUrlCapabilities::new()),
                )
                // Boolean options are on/off settings (docs/ACP.md, "Modes, options and
                // commands").
                .session(
                    ClientSessionCapabilities::new().config_options(
                        SessionConfigOptionsCapabilities::new()
                            .boolean(BooleanConfigOptionCapabilities::new()),
                    ),
                ),
        )
        .client_info(Implementation::new(
            "collie-phone",
            env!("CARGO_PKG_VERSION"),
        ));
    let init = match cx.send_request(initialize).block_task().await {
        Ok(init) => init,
        Err(error) => {
            tracing::warn!(agent = %name, error = %log_line(&error.to_string()), "initialize failed");
            return;
        }
    };
    let sign_in: Vec<String> = init
        .auth_methods
        .iter()
        .map(|m| super::text::clean_line(&auth_method_name(m)))
        .collect();
    let _ = events.send((
        name.clone(),
        Event::Initialized {
            abilities: Abilities::of(&init.agent_capabilities),
        },
    ));
    while let Some(command) = commands.recv().await {
        let cx2 = cx.clone();
        let events = events.clone();
        let task_name = name.clone();
        let sign_in = sign_in.clone();
        let tail = tail.clone();
        let mode = mode.clone();
        let task = async move {
            match command {
                Command::Open {
                    pane,
                    cwd,
                    how,
                    back,
                } => {
                    let opened = sessions::open(
                        &cx2,
                        &task_name,
                        mode.as_deref(),
                        back.as_deref(),
                        cwd,
                        how,
                    );
                    let event = match opened.await {
                        Ok((session, loaded, modes, options, note)) => Event::Opened {
                            pane,
                            session,
                            loaded,
                            modes,
                            options,
                            note,
                        },
                        Err(error) => Event::OpenFailed {
                            pane,
                            failure: failure_of(&error, &sign_in),
                        },
                    };
                    let _ = events.send((task_name, event));
                }
                Command::Close { session } => sessions::close(&cx2, &task_name, session).await,
                Command::List { cwd } => {
                    let sessions = sessions::list(&cx2, cwd.clone())
                        .await
                        .map_err(|e| failure_of(&e, &[]));
                    let _ = events.send((task_name, Event::Listed { cwd, sessions }));
                }
                Command::Prompt {
                    pane,
                    turn,
                    session,
                    texts,
                } => {
                    let prompt: Vec<ContentBlock> = texts
                        .into_iter()
                        .map(|t| ContentBlock::Text(TextContent::new(t)))
                        .collect();
                    let outcome = match cx2
                        .send_request(PromptRequest::new(session, prompt))
                        .block_task()
                        .await
                    {
                        Ok(reply) => Ok(reply.stop_reason),
                        // A prompt cut off by the process going away is a crash, not the
                        // agent's refusal; what it printed last says why.
                        Err(_) if cx2.is_incoming_closed() => {
                            Err(Failure::Gone(tail.settled().await))
                        }
                        Err(e) => Err(failure_of(&e, &sign_in)),
                    };
                    let _ = events.send((
                        task_name,
                        Event::PromptEnded {
                            pane,
                            turn,
                            outcome,
                        },
                    ));
                }
                Command::Set {
                    pane,
                    session,
                    setting,
                    option,
                    value,
                } => {
                    let outcome = match option {
                        None => cx2
                            .send_request(SetSessionModeRequest::new(session, value.clone()))
                            .block_task()
                            .await
                            .map(|_| None),
                        Some((option, option_value)) => cx2
                            .send_request(SetSessionConfigOptionRequest::new(
                                session,
                                option,
                                option_value,
                            ))
                            .block_task()
                            .await
                            .map(|reply| Some(reply.config_options)),
                    }
                    .map_err(|e| failure_of(&e, &sign_in));
                    let _ = events.send((
                        task_name,
                        Event::SetAnswered {
                            pane,
                            setting,
                            value,
                            outcome,
                        },
                    ));
                }
                Command::Cancel { session } => {
                    if let Err(error) = cx2.send_notification(CancelNotification::new(session)) {
                        tracing::warn!(agent = %task_name, error = %log_line(&error.to_string()), "session/cancel could not be sent");
                    }
                }
                // Made only on v2 (no v1 session asks for it): signing in on v1 is done in
                // the agent's own CLI (docs/ACP.md, "Every ACP v1 method and update").
                Command::Login { pane, .. } => {
                    let _ = events.send((
                        task_name,
                        Event::SignedIn {
                            pane,
                            outcome: Err(Failure::SignIn(sign_in.clone())),
                        },
                    ));
                }
            }
            Ok(())
        };
        if let Err(error) = cx.spawn(task) {
            tracing::warn!(agent = %name, error = %log_line(&error.to_string()), "the connection is closing");
            return;
        }
    }
}

pub(crate) fn failure_of(error: &agent_client_protocol::Error, sign_in: &[String]) -> Failure {
    failure_in(error, sign_in, std::env::var("IS_SANDBOX").ok().as_deref())
}

/// [`failure_of`] with the host's `IS_SANDBOX`, which the agent inherits.
fn failure_in(
    error: &agent_client_protocol::Error,
    sign_in: &[String],
    is_sandbox: Option<&str>,
) -> Failure {
    if error.code == ErrorCode::AUTH_REQUIRED {
        return Failure::SignIn(sign_in.to_vec());
    }
    // "Internal error" alone says little; agents put the reason in `data` (Claude Code's
    // adapter: `{"details": "…"}`), so it goes beside it, one short line.
    let detail = error.data.as_ref().and_then(|data| match data {
        serde_json::Value::String(text) => Some(text.clone()),
        serde_json::Value::Object(map) => ["details", "message", "error"]
            .iter()
            .find_map(|key| map.get(*key).and_then(|v| v.as_str()).map(str::to_string)),
        _ => None,
    });
    let message = super::text::clean_line(&error.message);
    let reason = error
        .data
        .as_ref()
        .and_then(|data| data.get("startupFailureReason"))
        .and_then(|reason| reason.as_str());
    if let Some(advice) = reason.and_then(|r| super::startup_failure::advice(r, is_sandbox)) {
        return Failure::Refused(format!("{}. {advice}", message.trim_end_matches('.')));
    }
    match detail
        .map(|d| super::text::clean_line(&d))
        .filter(|d| !d.is_empty())
    {
        Some(detail) => {
            let detail: String = detail.chars().take(200).collect();
            Failure::Refused(format!("{message} ({detail})"))
        }
        None => Failure::Refused(message),
    }
}

fn auth_method_name(method: &agent_client_protocol::v1::schema::AuthMethod) -> String {
    serde_json::to_value(method)
        .ok()
        .and_then(|v| v.get("name").and_then(|n| n.as_str()).map(str::to_string))
        .unwrap_or_else(|| "a sign-in".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::InitializeResponse;

    /// The initialize reply and the session/new error of a real adapter (tests/fixtures/acp);
    /// the notifications between them are passed over.
    fn replies(jsonl: &str) -> (InitializeResponse, agent_client_protocol::Error) {
        let mut answers = jsonl
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
            .filter(|message| message.get("id").is_some());
        let init = answers.next().expect("the initialize reply");
        let error = answers.next().expect("the session/new reply");
        (
            serde_json::from_value(init["result"].clone()).expect("an initialize reply"),
            serde_json::from_value(error["error"].clone()).expect("an error"),
        )
    }

    #[test]
    fn codex_acp_without_an_account_is_a_sign_in_named_by_its_methods() {
        let (init, error) = replies(include_str!(
            "../../../../tests/fixtures/acp/codex-acp-0.16.0-no-account.jsonl"
        ));
        assert!(init.agent_capabilities.load_session);
        let methods: Vec<String> = init.auth_methods.iter().map(auth_method_name).collect();
        let failure = failure_of(&error, &methods);
        assert_eq!(
            super::super::host::failure_words("codex", &failure, "could not open a session"),
            "codex needs a sign-in (Login with ChatGPT, Use CODEX_API_KEY, Use OPENAI_API_KEY): run it once in a terminal, then send again here."
        );
    }

    #[test]
    fn claude_agent_acp_refusing_root_says_what_to_set() {
        let (init, error) = replies(include_str!(
            "../../../../tests/fixtures/acp/real/claude-agent-acp-0.101.0-as-root-is-sandbox-yes.jsonl"
        ));
        assert!(init.auth_methods.is_empty());
        assert_eq!(
            super::super::host::failure_words(
                "claude",
                &failure_in(&error, &[], Some("yes")),
                "could not open a session"
            ),
            "claude could not open a session: Internal error: --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons. As root, Claude Code takes IS_SANDBOX=1 only, and here it is “yes”: set IS_SANDBOX=1 if this machine is a sandbox, or unset it. What it printed is in the host's log."
        );
    }

    #[test]
    fn claude_code_acp_refusing_root_says_its_reason_not_only_internal_error() {
        let (init, error) = replies(include_str!(
            "../../../../tests/fixtures/acp/claude-code-acp-0.16.2-as-root.jsonl"
        ));
        assert!(init.agent_capabilities.load_session);
        let methods: Vec<String> = init.auth_methods.iter().map(auth_method_name).collect();
        assert_eq!(methods, ["Log in with Claude Code"]);
        let failure = failure_of(&error, &methods);
        assert_eq!(
            super::super::host::failure_words("claude", &failure, "could not open a session"),
            "claude could not open a session: Internal error (Query closed before response received). What it printed is in the host's log."
        );
    }
}
