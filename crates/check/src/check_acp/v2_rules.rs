//! The rules of SPEC P as ACP v2 asks them (`check --acp --protocol 2`): the same ids, judged
//! in v2's terms where v2 differs. The first process is offered 2 and runs the session rules
//! and the turns; a second resumes the prompted session with `replayFrom` (P7); a third is
//! offered a version newer than any and a fourth version 1 (P3).
//!
//! What v2 changes, rule by rule (SPEC P says each): P1 lets a line carry a batch; P3 judges
//! `info` and object capabilities; P4 reads `methodId`; P6 and P7 use `session/resume` (v2 has
//! no `session/load`); P8 asks `{}` of `session/close`; P9 has options only (v2 has no
//! `session/set_mode`); P12 judges the acknowledgement (`messageId`), the user message told
//! with it, `state_update` from `running` to an `idle` with a defined `stopReason`, and the
//! upserts' ids; P13 asks a `title`; P14 waits for the idle `cancelled`.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::driver::{Driver, Outcome, Permissions, quote};
use super::{INITIALIZE, REQUEST, Rulings, SIGN_IN_FIRST, session_rules, v2_shapes};

/// A session id no agent has, shaped as the agents mint theirs (see `session_rules`).
const UNKNOWN_SESSION: &str = "00000000-0000-4000-8000-c011e0c0ffee";
const NEWER_VERSION: u64 = 999;
const DEFINED_VERSIONS: std::ops::RangeInclusive<u64> = 1..=2;
/// How long a whole turn may take, up to its idle.
const TURN: Duration = Duration::from_secs(180);
/// How long a cancelled turn may take to go idle (SPEC P14).
const CANCEL: Duration = Duration::from_secs(5);
/// How late the first turn's first permission is answered (SPEC P15).
const LATE: Duration = Duration::from_millis(1500);
const PERMISSION_SOON: Duration = Duration::from_secs(2);
const STARTING: Duration = Duration::from_secs(20);
/// How long updates that follow an answer are waited for.
const FOLLOWING: Duration = Duration::from_millis(300);
const TURN_RULES: [&str; 4] = ["P12", "P13", "P14", "P15"];
const PAST_INITIALIZE: [&str; 11] = [
    "P4", "P5", "P6", "P7", "P8", "P9", "P10", "P12", "P13", "P14", "P15",
];

/// The client's v2 `initialize`: forms and urls asked through the client and terminal
/// sign-ins, as in v1; v2 has no file system nor terminal methods to decline.
pub(crate) fn initialize(version: u64) -> Value {
    json!({
        "protocolVersion": version,
        "info": {"name": "collie-phone check", "version": env!("CARGO_PKG_VERSION")},
        "capabilities": {
            "auth": {"terminal": {}},
            "elicitation": {"form": {}, "url": {}}
        }
    })
}

fn new_session(workspace: &Path) -> Value {
    json!({"cwd": workspace})
}

fn prompt(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The update of `session` a message carries, when it is one.
fn update_of<'a>(message: &'a Value, session: &str) -> Option<&'a Value> {
    (super::shapes::update_of(message) == Some(session))
        .then(|| message.pointer("/params/update"))
        .flatten()
}

fn state_of(update: &Value) -> Option<&str> {
    (update.get("sessionUpdate")? == "state_update")
        .then(|| update.get("state")?.as_str())
        .flatten()
}

/// What the first process set up.
pub(crate) struct Setup {
    signed_out: bool,
    session: Option<String>,
    auth_methods: Vec<String>,
    options: Value,
}

/// Every rule, in the order they can run; the version answered when offered 2.
pub(crate) async fn check(
    start: impl Fn(&'static str) -> Result<Driver, String>,
    workspace: &Path,
    prompts: &[String],
    rulings: &mut Rulings,
) -> u16 {
    let mut first = match start("the first process") {
        Ok(first) => first,
        Err(why) => {
            rulings.fault("P3", format!("the first process: {why}"));
            return 0;
        }
    };
    first.batches = true;
    let (setup, version) = open(&mut first, workspace, rulings).await;
    let mut prompted = None;
    if let Some(setup) = &setup {
        idle(&mut first, setup, rulings).await;
        prompted = turns(&mut first, setup, workspace, prompts, rulings).await;
        if let Some((session, _)) = &prompted {
            listed(&mut first, workspace, session, rulings).await;
            if let Some(text) = prompts.first() {
                cancel(&mut first, session, text, rulings).await;
            }
        }
    }
    session_rules::end_of_stdin(&mut first, rulings).await;
    let mut drivers = vec![first];
    if let Some(setup) = &setup {
        match &prompted {
            Some((session, message)) => match start("the second process") {
                Ok(mut second) => {
                    second.batches = true;
                    resume(&mut second, workspace, session, message, rulings).await;
                    drivers.push(second);
                }
                Err(why) => rulings.fault("P7", format!("a second process: {why}")),
            },
            None => {
                let why = if setup.signed_out {
                    SIGN_IN_FIRST.to_string()
                } else if prompts.is_empty() {
                    "not run: needs a prompted session: run with --prompt TEXT".to_string()
                } else {
                    "not run: no turn went idle, so no session was prompted (P12 says why)"
                        .to_string()
                };
                rulings.not_run("P5", format!("session/list {why}"));
                rulings.not_run("P7", why);
            }
        }
    }
    for (label, offered) in [
        ("the third process", NEWER_VERSION),
        ("the fourth process", 1),
    ] {
        match start(label) {
            Ok(mut other) => {
                other.batches = true;
                other_version(&mut other, offered, u64::from(version), rulings).await;
                drivers.push(other);
            }
            Err(why) => rulings.fault("P3", format!("{label}: {why}")),
        }
    }
    for other in drivers.iter_mut().skip(1) {
        other.close(Duration::from_secs(1)).await;
    }
    session_rules::stream(&drivers, rulings);
    session_rules::stderr_read(&drivers, rulings).await;
    rulings.settle(
        "P4",
        "not run: the agent asked for no sign-in, so it had none to name",
    );
    version
}

/// `initialize` offering 2 and the first session (P3, P4, P5, P6).
async fn open(
    driver: &mut Driver,
    workspace: &Path,
    rulings: &mut Rulings,
) -> (Option<Setup>, u16) {
    let answer = driver
        .request("initialize", initialize(2), INITIALIZE)
        .await;
    let Outcome::Result(reply) = &answer.outcome else {
        rulings.fault(
            "P3",
            format!(
                "initialize offering version 2 {}; nothing else can run before it answers",
                answer.outcome.describe()
            ),
        );
        for rule in PAST_INITIALIZE {
            rulings.not_run(rule, "not run: initialize did not answer");
        }
        return (None, 0);
    };
    let version = reply
        .get("protocolVersion")
        .and_then(Value::as_u64)
        .unwrap_or_default();
    match version {
        2 => rulings.saw("P3", "offered 2, answered 2"),
        // ACP: an agent that does not speak the version asked answers the latest it speaks;
        // one of v1 alone answers 1, no fault of it, and the v2 rules cannot run.
        1 => {
            rulings.saw(
                "P3",
                "offered 2, answered 1: an agent that does not speak 2 answers the latest it speaks",
            );
            for rule in PAST_INITIALIZE {
                rulings.not_run(
                    rule,
                    "not run: offered ACP v2, the agent answered 1, so it does not speak v2; check it with --protocol 1",
                );
            }
            return (None, 1);
        }
        _ => {
            rulings.fault(
                "P3",
                format!(
                    "offered version 2, it answered {}: ACP asks for the version offered when the agent speaks it, else the latest it speaks, and the versions ACP defines are 1 and the draft 2",
                    reply.get("protocolVersion").map(Value::to_string).unwrap_or_else(|| "none".into())
                ),
            );
            // Asked for 2, the rest is judged as v2, as the v1 rules judge past a wrong
            // version as v1.
        }
    }
    rulings.judge("P3", v2_shapes::initialize(reply));
    if !v2_shapes::offers_sessions(reply) {
        for rule in PAST_INITIALIZE.iter().filter(|r| **r != "P4") {
            rulings.not_run(
                rule,
                "not run: the agent does not offer capabilities.session, so it has no sessions",
            );
        }
        return (None, 2);
    }
    // P6: v2 has no session/load; a resume of a session the agent never had is not found.
    let answer = driver
        .request(
            "session/resume",
            json!({"sessionId": UNKNOWN_SESSION, "cwd": workspace}),
            REQUEST,
        )
        .await;
    match answer.outcome.code() {
        Some(-32002) => rulings.saw("P6", "session/resume of an unknown session: -32002"),
        Some(-32000) => rulings.not_run(
            "P6",
            "not run: sign in first (session/resume answered auth_required, -32000)",
        ),
        _ => rulings.fault(
            "P6",
            format!(
                "session/resume of the unknown session {UNKNOWN_SESSION} {}; ACP's error for a resource not found is -32002",
                answer.outcome.describe()
            ),
        ),
    }
    let mut setup = Setup {
        signed_out: false,
        session: None,
        auth_methods: v2_shapes::auth_methods(reply),
        options: Value::Null,
    };
    let answer = driver
        .request("session/new", new_session(workspace), REQUEST)
        .await;
    match &answer.outcome {
        Outcome::Error(_) if answer.outcome.code() == Some(-32000) => {
            setup.signed_out = true;
            sign_in_wanted(&setup, "session/new", rulings);
            for rule in ["P5", "P8", "P9", "P10", "P12", "P13", "P14", "P15"] {
                rulings.not_run(rule, SIGN_IN_FIRST);
            }
        }
        Outcome::Result(session) => match v2_shapes::new_session(session) {
            Ok(id) => {
                rulings.saw("P5", format!("session/new gave {}", quote(&id)));
                setup.session = Some(id);
                setup.options = session.get("configOptions").cloned().unwrap_or(Value::Null);
            }
            Err(why) => rulings.fault("P5", why),
        },
        other => {
            rulings.fault("P5", format!("session/new {}", other.describe()));
            for rule in ["P8", "P9", "P10", "P12", "P13", "P14", "P15"] {
                rulings.not_run(rule, "not run: session/new opened no session");
            }
        }
    }
    (Some(setup), u16::try_from(version).unwrap_or_default())
}

fn sign_in_wanted(setup: &Setup, method: &str, rulings: &mut Rulings) {
    if setup.auth_methods.is_empty() {
        rulings.fault(
            "P4",
            format!("{method} answered auth_required (-32000), but initialize named no authMethods: the client cannot tell the person how to sign in"),
        );
    } else {
        rulings.saw(
            "P4",
            format!(
                "{method} wants a sign-in, and initialize names {}",
                setup.auth_methods.join(", ")
            ),
        );
    }
}

/// The first select option with two values or more: (id, current, values).
fn select(options: &Value) -> Option<(String, String, Vec<String>)> {
    options
        .as_array()
        .into_iter()
        .flatten()
        .filter(|o| o.get("type").and_then(Value::as_str) == Some("select"))
        .filter_map(|o| {
            let id = o.get("configId")?.as_str()?.to_string();
            let current = o.get("currentValue")?.as_str()?.to_string();
            let values = super::shapes::select_values(o.get("options")?);
            Some((id, current, values))
        })
        .find(|(_, _, values)| values.len() >= 2)
}

fn set_option(session: &str, id: &str, value: &str) -> Value {
    json!({"sessionId": session, "configId": id, "type": "id", "value": value})
}

fn option_value(options: Option<&Value>, id: &str) -> Option<String> {
    options?
        .as_array()?
        .iter()
        .find(|o| o.get("configId").and_then(Value::as_str) == Some(id))?
        .get("currentValue")?
        .as_str()
        .map(str::to_string)
}

/// P9, P10 and P8 on the first session.
async fn idle(driver: &mut Driver, setup: &Setup, rulings: &mut Rulings) {
    let Some(session) = setup.session.clone() else {
        return;
    };
    let chosen = select(&setup.options);
    // P9: v2 has no modes (no session/set_mode); the options are what a session switches.
    match &chosen {
        None => rulings.not_run(
            "P9",
            "not run: the session offers no select option with two values (ACP v2 has no modes)",
        ),
        Some((id, current, values)) => {
            if let Some(other) = values.iter().find(|v| *v != current) {
                let mark = driver.log.len();
                let answer = driver
                    .request(
                        "session/set_config_option",
                        set_option(&session, id, other),
                        REQUEST,
                    )
                    .await;
                match &answer.outcome {
                    Outcome::Result(reply) => {
                        driver.pump_for(FOLLOWING).await;
                        let wrong: Vec<String> = driver.log[mark..]
                            .iter()
                            .filter_map(|s| update_of(&s.message, &session))
                            .filter(|u| u.get("sessionUpdate") == Some(&json!("config_option_update")))
                            .filter_map(|u| option_value(u.get("configOptions"), id))
                            .filter(|v| v != other)
                            .collect();
                        if !wrong.is_empty() {
                            rulings.fault(
                                "P9",
                                format!("set_config_option {id} = {other} answered, but the config_option_update after it gives {id} = {}", wrong.join(", ")),
                            );
                        }
                        match option_value(reply.get("configOptions"), id) {
                            Some(now) if now == *other => {
                                rulings.saw("P9", format!("option {id} = {other} taken"))
                            }
                            now => rulings.fault(
                                "P9",
                                format!(
                                    "session/set_config_option {id} = {other} answered, but its configOptions give {id} = {}",
                                    now.unwrap_or_else(|| "nothing".into())
                                ),
                            ),
                        }
                    }
                    other_outcome => rulings.fault(
                        "P9",
                        format!(
                            "session/set_config_option {id} = {other}, a value the session offers, {}",
                            other_outcome.describe()
                        ),
                    ),
                }
            }
            let answer = driver
                .request(
                    "session/set_config_option",
                    set_option(&session, id, "collie-check-no-such-value"),
                    REQUEST,
                )
                .await;
            match answer.outcome {
                Outcome::Error(_) => rulings.saw("P9", format!("an unknown value of {id} refused")),
                other => rulings.fault(
                    "P9",
                    format!(
                        "session/set_config_option {id} = collie-check-no-such-value, a value it does not offer, {}; it must be refused",
                        other.describe()
                    ),
                ),
            }
            let _ = driver
                .request(
                    "session/set_config_option",
                    set_option(&session, id, current),
                    REQUEST,
                )
                .await;
        }
    }

    // P10: a cancel with no turn running, then the session still answers.
    driver
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    driver.pump_for(FOLLOWING).await;
    let (asked, answer) = match &chosen {
        Some((id, current, _)) => (
            format!("session/set_config_option {id} to its own value"),
            driver
                .request(
                    "session/set_config_option",
                    set_option(&session, id, current),
                    REQUEST,
                )
                .await,
        ),
        None => (
            "session/new".to_string(),
            driver
                .request("session/new", json!({"cwd": "/"}), REQUEST)
                .await,
        ),
    };
    match answer.outcome {
        Outcome::Result(_) if driver.alive() => rulings.saw(
            "P10",
            format!("after session/cancel on an idle session, {asked} still answered"),
        ),
        other => rulings.fault(
            "P10",
            format!(
                "after session/cancel on an idle session, {asked} {}",
                other.describe()
            ),
        ),
    }

    // P8: v2's capabilities.session includes session/close; a closed session takes no prompt.
    let answer = driver
        .request("session/close", json!({"sessionId": session}), REQUEST)
        .await;
    match &answer.outcome {
        Outcome::Result(reply) => {
            if let Err(why) = v2_shapes::closed(reply) {
                rulings.fault("P8", why);
            }
        }
        other => {
            rulings.fault(
                "P8",
                format!("session/close of an open session {}", other.describe()),
            );
            return;
        }
    }
    let mark = driver.log.len();
    let answer = driver
        .request(
            "session/prompt",
            prompt(
                &session,
                "collie-phone check: this session was closed, so this prompt must be refused",
            ),
            REQUEST,
        )
        .await;
    driver.pump_for(FOLLOWING).await;
    let streamed = driver.log[mark..]
        .iter()
        .filter(|s| update_of(&s.message, &session).is_some())
        .count();
    match answer.outcome {
        Outcome::Error(_) if streamed == 0 => rulings.saw(
            "P8",
            format!(
                "session/close answered, and a prompt to the closed session was refused ({})",
                answer.outcome.code().map(|c| c.to_string()).unwrap_or_default()
            ),
        ),
        other => rulings.fault(
            "P8",
            format!(
                "after session/close, a prompt to that session {}{}; ACP: a closed session is freed, so it takes no more prompts",
                other.describe(),
                if streamed > 0 {
                    format!(", and {streamed} updates of it followed")
                } else {
                    String::new()
                }
            ),
        ),
    }
}

/// What one v2 turn showed: where it started and ended in the log, and how it ended.
struct Turn {
    mark: usize,
    end: usize,
    /// The prompt's acknowledgement.
    ack: Outcome,
    /// The idle that ended it: its stopReason, if it had one.
    idle: Option<Option<String>>,
    /// A `running` state came before that idle.
    running: bool,
    /// The code of the failure an idle `error` carried.
    error_code: Option<i64>,
}

/// The index just past the turn's idle, scanning from `from`: the first idle after a
/// `running`, or the first idle with a stopReason.
fn turn_end(driver: &Driver, from: usize, session: &str) -> Option<(usize, Option<String>, bool)> {
    turn_end_with(driver, from, session).map(|(end, stop, running, _)| (end, stop, running))
}

/// [`turn_end`], with the code of the failure an idle `error` carries.
fn turn_end_with(
    driver: &Driver,
    from: usize,
    session: &str,
) -> Option<(usize, Option<String>, bool, Option<i64>)> {
    let mut running = false;
    for (at, seen) in driver.log.iter().enumerate().skip(from) {
        let Some(update) = update_of(&seen.message, session) else {
            continue;
        };
        match state_of(update) {
            Some("running") => running = true,
            Some("idle") => {
                let stop = update
                    .get("stopReason")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                if running || stop.is_some() {
                    let code = update.pointer("/error/code").and_then(Value::as_i64);
                    return Some((at + 1, stop, running, code));
                }
            }
            _ => {}
        }
    }
    None
}

/// Sends a prompt and reads up to its idle, or `within`.
async fn play(driver: &mut Driver, session: &str, text: &str, within: Duration) -> Turn {
    let mark = driver.log.len();
    let answer = driver
        .request("session/prompt", prompt(session, text), REQUEST)
        .await;
    let mut turn = Turn {
        mark,
        end: driver.log.len(),
        ack: answer.outcome,
        idle: None,
        running: false,
        error_code: None,
    };
    if !matches!(turn.ack, Outcome::Result(_)) {
        return turn;
    }
    let deadline = Instant::now() + within;
    loop {
        if let Some((end, stop, running, code)) = turn_end_with(driver, mark, session) {
            turn.end = end;
            turn.idle = Some(stop);
            turn.running = running;
            turn.error_code = code;
            return turn;
        }
        if !driver.alive() || Instant::now() >= deadline {
            turn.end = driver.log.len();
            return turn;
        }
        driver.pump_for(Duration::from_millis(50)).await;
    }
}

/// The turns of the prompts in a fresh session (P12, P13, P15's late answer): the session
/// and the first prompt's messageId, when a turn went idle.
async fn turns(
    driver: &mut Driver,
    setup: &Setup,
    workspace: &Path,
    prompts: &[String],
    rulings: &mut Rulings,
) -> Option<(String, String)> {
    let session = super::turn_rules::turns_session(
        driver,
        setup.signed_out,
        prompts,
        new_session(workspace),
        v2_shapes::new_session,
        rulings,
    )
    .await?;
    let mut first_message = None;
    let mut messages = HashSet::new();
    let mut asked_anything = false;
    for (turn_at, text) in prompts.iter().enumerate() {
        let n = turn_at + 1;
        driver.permissions = if turn_at == 0 {
            Permissions::RejectLate(LATE)
        } else {
            Permissions::Reject
        };
        let turn = play(driver, &session, text, TURN).await;
        // A sign-in is wanted before the prompt is taken (an error answer) or after (v2: the
        // turn, the prompt inserted, goes idle `error` with auth_required, as Claude Code's
        // adapter does).
        let signed_out = if turn.ack.code() == Some(-32000) {
            Some("session/prompt answered auth_required, -32000")
        } else if turn.idle == Some(Some("error".into())) && turn.error_code == Some(-32000) {
            Some("the turn went idle with stopReason error and auth_required, -32000")
        } else {
            None
        };
        if let Some(how) = signed_out {
            sign_in_wanted(setup, "session/prompt", rulings);
            for rule in TURN_RULES {
                rulings.not_run(
                    rule,
                    format!("not run: sign in first ({how}); run the agent once in a terminal to sign in, then check again"),
                );
            }
            return None;
        }
        let message = match &turn.ack {
            Outcome::Result(reply) => match v2_shapes::prompt_ack(reply) {
                Ok(id) => Some(id),
                Err(why) => {
                    rulings.fault("P12", format!("the answer to session/prompt: {why}"));
                    None
                }
            },
            other => {
                rulings.fault(
                    "P12",
                    format!("session/prompt of --prompt {n} {}", other.describe()),
                );
                None
            }
        };
        let seen: Vec<Value> = driver.log[turn.mark..turn.end]
            .iter()
            .map(|s| s.message.clone())
            .collect();
        let known: HashSet<String> = driver
            .log
            .iter()
            .filter_map(|s| s.message.pointer("/result/sessionId")?.as_str())
            .map(str::to_string)
            .chain([session.clone()])
            .collect();
        judge_updates(&seen, &known, rulings);
        let asked = judge_requests(&seen, &session, rulings);
        asked_anything |= asked.permissions + asked.questions > 0;
        if let Some(message) = &message {
            if !messages.insert(message.clone()) {
                rulings.fault(
                    "P12",
                    format!("turn {n} was acknowledged with the messageId {} of an earlier prompt; ACP v2: each prompt inserts a new message", quote(message)),
                );
            }
            let told = seen.iter().filter_map(|m| update_of(m, &session)).any(|u| {
                matches!(
                    u.get("sessionUpdate").and_then(Value::as_str),
                    Some("user_message" | "user_message_chunk")
                ) && u.get("messageId").and_then(Value::as_str) == Some(message)
            });
            if !told && turn.idle.is_some() {
                rulings.fault(
                    "P12",
                    format!("turn {n}: no user_message nor user_message_chunk with the prompt's messageId {} before its idle; ACP v2: the agent reports the user message it inserted", quote(message)),
                );
            }
        }
        let stop = match (&turn.idle, turn.running) {
            (None, _) if message.is_some() => {
                rulings.fault(
                    "P12",
                    if driver.alive() {
                        format!("turn {n}: no idle state_update within {} s of the acknowledgement; ACP v2 tells a turn's end by an idle state_update", TURN.as_secs())
                    } else {
                        format!("turn {n}: the agent exited before the turn went idle")
                    },
                );
                None
            }
            (None, _) => None,
            (Some(stop), false) => {
                rulings.fault(
                    "P12",
                    format!("turn {n} went idle (stopReason {}) with no state_update running before it; ACP v2: a turn runs, then goes idle", stop.as_deref().unwrap_or("none")),
                );
                stop.clone()
            }
            (Some(None), true) => {
                rulings.fault(
                    "P12",
                    format!(
                        "turn {n}: the idle state_update that ended the turn carries no stopReason"
                    ),
                );
                None
            }
            (Some(Some(stop)), true) if !v2_shapes::defined(stop, v2_shapes::STOP_REASONS) => {
                rulings.fault(
                    "P12",
                    format!("turn {n} ended with stopReason {}, which is none of ACP v2's {} and does not begin with _", quote(stop), v2_shapes::STOP_REASONS.join(", ")),
                );
                None
            }
            (Some(Some(stop)), true) => Some(stop.clone()),
        };
        if let Some(stop) = &stop {
            rulings.saw("P12", format!("turn {n} ran and went idle {stop}"));
            if turn_at == 0 {
                first_message = message.clone();
            }
        }
        if asked.permissions + asked.questions > 0 {
            let what = format!(
                "{} rejected and {} declined",
                count(asked.permissions, "permission request"),
                count(asked.questions, "question")
            );
            match &stop {
                Some(stop) => rulings.saw(
                    "P13",
                    format!(
                        "turn {n}: {what}; the turn went on and went idle {stop}{}",
                        if asked.waited_in_requires_action {
                            " (requires_action while it waited)"
                        } else {
                            ""
                        }
                    ),
                ),
                None => rulings.fault(
                    "P13",
                    format!("turn {n}: after the client answered ({what}), the turn did not go idle with a stop reason"),
                ),
            }
        }
        if turn_at == 0 && asked.permissions > 0 {
            match &stop {
                Some(_) => rulings.saw(
                    "P15",
                    "a permission answered 1.5 s late, and the turn went on",
                ),
                None => rulings.fault(
                    "P15",
                    "a permission answered 1.5 s late, and the turn did not go idle after it",
                ),
            }
        }
    }
    if !asked_anything {
        rulings.not_run(
            "P13",
            "not run: no turn asked a permission or a question (the scripted agent asks with any prompt, and /ask asks a question)",
        );
    }
    first_message.map(|message| (session, message))
}

/// P12 over the updates of one turn.
fn judge_updates(seen: &[Value], known: &HashSet<String>, rulings: &mut Rulings) {
    let mut updates = 0;
    for message in seen {
        if message.get("method").and_then(Value::as_str) != Some("session/update") {
            continue;
        }
        updates += 1;
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let session = params
            .get("sessionId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !known.contains(session) {
            rulings.fault(
                "P12",
                format!(
                    "an update for the session {}, which the client never opened",
                    quote(session)
                ),
            );
            continue;
        }
        if let Err(why) = v2_shapes::update(&params) {
            rulings.fault("P12", why);
        }
    }
    rulings.saw("P12", format!("{updates} updates"));
}

struct Asked {
    permissions: usize,
    questions: usize,
    /// A `requires_action` state was told while a permission waited (the kit's ADVISORY
    /// ACP-PATCH-209: recorded, not judged).
    waited_in_requires_action: bool,
}

/// P13 over the requests of one turn.
fn judge_requests(seen: &[Value], session: &str, rulings: &mut Rulings) -> Asked {
    let mut asked = Asked {
        permissions: 0,
        questions: 0,
        waited_in_requires_action: false,
    };
    let mut requires_action = false;
    for message in seen {
        if let Some(update) = update_of(message, session)
            && let Some(state) = state_of(update)
        {
            requires_action = state == "requires_action";
        }
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match message.get("method").and_then(Value::as_str) {
            Some("session/request_permission") => {
                asked.permissions += 1;
                asked.waited_in_requires_action |= requires_action;
                if let Err(why) = v2_shapes::permission(&params) {
                    rulings.fault("P13", why);
                }
            }
            Some("elicitation/create") => {
                asked.questions += 1;
                if let Err(why) = v2_shapes::elicitation(&params) {
                    rulings.fault("P13", why);
                }
            }
            _ => {}
        }
    }
    asked
}

/// P5 after a turn: `session/list` for the workspace lists the prompted session.
async fn listed(driver: &mut Driver, workspace: &Path, prompted: &str, rulings: &mut Rulings) {
    let Some(sessions) =
        session_rules::listed_pages(driver, workspace, prompted, v2_shapes::listed_page, rulings)
            .await
    else {
        return;
    };
    let cwd = workspace.display().to_string();
    if let Some(other) = sessions
        .iter()
        .find(|s| s.get("cwd").and_then(Value::as_str) != Some(cwd.as_str()))
    {
        rulings.fault(
            "P5",
            format!(
                "session/list for the cwd {cwd} lists a session of the cwd {}",
                quote(&other.get("cwd").map(Value::to_string).unwrap_or_default())
            ),
        );
    } else if sessions
        .iter()
        .any(|s| s.get("sessionId").and_then(Value::as_str) == Some(prompted))
    {
        rulings.saw(
            "P5",
            format!(
                "session/list lists the prompted session with its cwd ({} listed)",
                sessions.len()
            ),
        );
    } else {
        rulings.fault(
            "P5",
            format!(
                "session/list for the cwd {cwd} lists {} sessions, not the session {} prompted there",
                sessions.len(),
                quote(prompted)
            ),
        );
    }
}

/// P14 and the rest of P15: the first prompt again, cancelled (twice) once it runs; the
/// turn goes idle `cancelled`.
async fn cancel(driver: &mut Driver, session: &str, text: &str, rulings: &mut Rulings) {
    driver.permissions = Permissions::Hold;
    let mark = driver.log.len();
    let id = driver.send("session/prompt", prompt(session, text)).await;
    let is_running = |m: &Value| {
        update_of(m, session).is_some_and(|u| state_of(u) == Some("running"))
            || m.get("method").and_then(Value::as_str) == Some("session/request_permission")
    };
    let running = driver.pump_until(mark, STARTING, is_running).await;
    if running {
        driver
            .pump_until(mark, PERMISSION_SOON, |m| {
                m.get("method").and_then(Value::as_str) == Some("session/request_permission")
                    || update_of(m, session).is_some_and(|u| state_of(u) == Some("idle"))
            })
            .await;
    }
    let done_early = turn_end(driver, mark, session).is_some();
    let acked = driver.wait(id, REQUEST).await;
    if let Outcome::Error(_) | Outcome::NoAnswer(_) | Outcome::Exited = acked.outcome {
        driver.permissions = Permissions::Reject;
        driver.cancel_held().await;
        rulings.fault(
            "P14",
            format!(
                "session/prompt for the turn to cancel {}",
                acked.outcome.describe()
            ),
        );
        return;
    }
    if !running || done_early {
        driver.permissions = Permissions::Reject;
        driver.cancel_held().await;
        let why = if done_early {
            "not run: the turn went idle before it could be cancelled: give a --prompt that takes longer".to_string()
        } else {
            format!(
                "not run: the turn showed no running state within {} s, so it was not cancelled",
                STARTING.as_secs()
            )
        };
        rulings.not_run("P14", why);
        rough_client(driver, session, id, false, rulings).await;
        return;
    }
    let cancelled_at = Instant::now();
    driver
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    driver
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    driver.permissions = Permissions::Cancelled;
    let held = driver.cancel_held().await;
    let deadline = Instant::now() + CANCEL;
    let ended = loop {
        if let Some(end) = turn_end(driver, mark, session) {
            break Some(end);
        }
        if !driver.alive() || Instant::now() >= deadline {
            break None;
        }
        driver.pump_for(Duration::from_millis(50)).await;
    };
    let took = cancelled_at.elapsed().as_millis();
    match ended {
        Some((_, Some(stop), _)) if stop == "cancelled" => rulings.saw(
            "P14",
            format!(
                "the turn went idle cancelled {took} ms after session/cancel, {} answered cancelled",
                count(held, "open permission")
            ),
        ),
        Some((_, stop, _)) => rulings.fault(
            "P14",
            format!(
                "after session/cancel the turn went idle with stopReason {}; ACP v2: a cancelled turn goes idle with stopReason cancelled",
                stop.map(|s| quote(&s)).unwrap_or_else(|| "none".into())
            ),
        ),
        None => rulings.fault(
            "P14",
            format!(
                "after session/cancel ({} answered cancelled) no idle state_update came within {} s",
                count(held, "open permission"),
                CANCEL.as_secs()
            ),
        ),
    }
    if driver.alive() {
        rulings.saw("P15", "session/cancel sent twice");
    }
    driver.permissions = Permissions::Reject;
    rough_client(driver, session, id, true, rulings).await;
}

/// P15: `$/cancel_request` of a request already answered, then the agent still answers.
async fn rough_client(
    driver: &mut Driver,
    session: &str,
    finished: u64,
    cancelled_twice: bool,
    rulings: &mut Rulings,
) {
    driver
        .notify("$/cancel_request", json!({"requestId": finished}))
        .await;
    driver.pump_for(Duration::from_millis(300)).await;
    let answer = driver.request("session/list", json!({}), REQUEST).await;
    let alive = driver.alive();
    let moves = if cancelled_twice {
        "session/cancel sent twice and $/cancel_request of the acknowledged prompt"
    } else {
        "$/cancel_request of the acknowledged prompt"
    };
    match answer.outcome {
        Outcome::Result(_) | Outcome::Error(_) if alive => rulings.saw(
            "P15",
            format!(
                "after {moves}, it still answers (session {})",
                quote(session)
            ),
        ),
        other => rulings.fault(
            "P15",
            format!(
                "after {moves}, a request {}{}",
                other.describe(),
                if alive {
                    ""
                } else {
                    ", and the process is gone"
                }
            ),
        ),
    }
}

/// P7: a second process resumes the prompted session with `replayFrom` and replays its
/// conversation before it answers, the user's message with the id its prompt was given.
async fn resume(
    driver: &mut Driver,
    workspace: &Path,
    session: &str,
    message: &str,
    rulings: &mut Rulings,
) {
    let answer = driver
        .request("initialize", initialize(2), INITIALIZE)
        .await;
    if !matches!(answer.outcome, Outcome::Result(_)) {
        rulings.fault(
            "P7",
            format!(
                "initialize in a second process {}",
                answer.outcome.describe()
            ),
        );
        return;
    }
    let mark = driver.log.len();
    let answer = driver
        .request(
            "session/resume",
            json!({"sessionId": session, "cwd": workspace, "replayFrom": {"type": "start"}}),
            REQUEST,
        )
        .await;
    let messages = |range: &[super::driver::Seen], who: &str| -> Vec<String> {
        range
            .iter()
            .filter_map(|s| update_of(&s.message, session))
            .filter(|u| {
                u.get("sessionUpdate")
                    .and_then(Value::as_str)
                    .is_some_and(|k| {
                        k == format!("{who}_message") || k == format!("{who}_message_chunk")
                    })
            })
            .map(|u| {
                u.get("messageId")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    };
    let before = &driver.log[mark..answer.index.min(driver.log.len())];
    let (users, agents) = (messages(before, "user"), messages(before, "agent"));
    match &answer.outcome {
        Outcome::Result(_) => {
            driver.pump_for(FOLLOWING).await;
            let after = &driver.log[answer.index.min(driver.log.len())..];
            let late = messages(after, "user").len() + messages(after, "agent").len();
            if late > 0 {
                rulings.fault(
                    "P7",
                    format!("session/resume with replayFrom answered first, and {late} updates of the conversation came after it; ACP v2: the history comes before the answer"),
                );
            } else if users.is_empty() || agents.is_empty() {
                rulings.fault(
                    "P7",
                    format!("session/resume with replayFrom of the session prompted in the first process answered after replaying {} user and {} agent updates; ACP v2: the requested history (user and agent messages) comes first", users.len(), agents.len()),
                );
            } else if !users.iter().any(|id| id == message) {
                rulings.fault(
                    "P7",
                    format!("the replay's user messages carry the ids {}, none the messageId {} its prompt was acknowledged with; ACP v2: a replayed message keeps its id", users.iter().map(|id| quote(id)).collect::<Vec<_>>().join(", "), quote(message)),
                );
            } else {
                rulings.saw(
                    "P7",
                    format!("a second process replayed {} user and {} agent updates, the prompt's messageId among them, then answered session/resume", users.len(), agents.len()),
                );
            }
        }
        other => rulings.fault(
            "P7",
            format!(
                "session/resume with replayFrom in a second process of the session prompted in the first {}",
                other.describe()
            ),
        ),
    }
}

/// P3 in a process of its own: offered `offered` (999, or 1), the agent answers a version it
/// speaks, never an error; offered 999, not lower than its answer to 2.
async fn other_version(driver: &mut Driver, offered: u64, asked_two: u64, rulings: &mut Rulings) {
    let answer = driver
        .request("initialize", initialize(offered), INITIALIZE)
        .await;
    let Outcome::Result(reply) = &answer.outcome else {
        rulings.fault(
            "P3",
            format!(
                "initialize offering version {offered} {}; ACP asks an agent that does not speak it for the latest it speaks, never an error",
                answer.outcome.describe()
            ),
        );
        return;
    };
    match reply.get("protocolVersion").and_then(Value::as_u64) {
        Some(version)
            if DEFINED_VERSIONS.contains(&version)
                && offered == NEWER_VERSION
                && asked_two > 0
                && version < asked_two =>
        {
            rulings.fault(
                "P3",
                format!("offered version {offered}, it answered {version}, lower than the {asked_two} it answered when offered 2: the latest version it speaks is at least that"),
            )
        }
        Some(version) if DEFINED_VERSIONS.contains(&version) => {
            rulings.saw("P3", format!("offered {offered}, answered {version}"))
        }
        _ => rulings.fault(
            "P3",
            format!(
                "offered version {offered}, it answered {}: ACP asks for the version offered when the agent speaks it, else the latest it speaks",
                reply.get("protocolVersion").map(Value::to_string).unwrap_or_else(|| "none".into())
            ),
        ),
    }
}
