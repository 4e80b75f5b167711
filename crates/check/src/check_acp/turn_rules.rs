//! The rules of a turn (SPEC P12–P15): each `--prompt` is one turn of a fresh session, whose
//! updates and requests are judged; then the first prompt again, cancelled while it runs; then
//! a rough client's moves. A turn needs a model (the scripted agent needs none), so without
//! `--prompt` these rules say they did not run.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::driver::{Driver, Outcome, Permissions};
use super::session_rules::{Setup, new_session};
use super::{REQUEST, Rulings, SIGN_IN_FIRST, shapes};

/// How long a whole turn may take.
const TURN: Duration = Duration::from_secs(180);
/// How long a cancelled turn may take to end (SPEC P14).
const CANCEL: Duration = Duration::from_secs(5);
/// How late the first turn's first permission is answered (SPEC P15).
const LATE: Duration = Duration::from_millis(1500);
/// How long a running turn is given to ask a permission before it is cancelled anyway.
const PERMISSION_SOON: Duration = Duration::from_secs(2);
/// How long the cancelled turn may take to show it runs.
const STARTING: Duration = Duration::from_secs(20);

const TURN_RULES: [&str; 4] = ["P12", "P13", "P14", "P15"];

/// "1 question", "2 questions".
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn prompt(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

/// The fresh session the turns of P12–P15 run in, on either version (`params` its
/// `session/new`, `read` the version's reading of the answer): none when the agent waits for a
/// sign-in, no prompt was given or the session did not open, each turn rule then saying why it
/// was not run.
pub(crate) async fn turns_session(
    driver: &mut Driver,
    signed_out: bool,
    prompts: &[String],
    params: Value,
    read: fn(&Value) -> Result<String, String>,
    rulings: &mut Rulings,
) -> Option<String> {
    let why = if signed_out {
        Some(SIGN_IN_FIRST.to_string())
    } else if prompts.is_empty() {
        Some(
            "not run: a turn needs a model: run with --prompt TEXT (the scripted agent needs none)"
                .to_string(),
        )
    } else {
        None
    };
    if let Some(why) = why {
        for rule in TURN_RULES {
            rulings.not_run(rule, why.clone());
        }
        return None;
    }
    let answer = driver.request("session/new", params, REQUEST).await;
    let session = match &answer.outcome {
        Outcome::Result(reply) => read(reply).ok(),
        _ => None,
    };
    if session.is_none() {
        for rule in TURN_RULES {
            rulings.not_run(
                rule,
                format!(
                    "not run: session/new for the turns {}",
                    answer.outcome.describe()
                ),
            );
        }
    }
    session
}

/// Runs the turns of the prompts in a fresh session: its id, and whether a turn ended.
pub(crate) async fn turns(
    driver: &mut Driver,
    setup: &Setup,
    workspace: &Path,
    prompts: &[String],
    mode: Option<&str>,
    rulings: &mut Rulings,
) -> Option<(String, bool)> {
    let session = turns_session(
        driver,
        setup.signed_out,
        prompts,
        new_session(workspace),
        shapes::new_session,
        rulings,
    )
    .await?;
    if let Some(mode) = mode {
        let answer = driver
            .request(
                "session/set_mode",
                json!({"sessionId": session, "modeId": mode}),
                REQUEST,
            )
            .await;
        if !matches!(answer.outcome, Outcome::Result(_)) {
            for rule in TURN_RULES {
                rulings.not_run(
                    rule,
                    format!(
                        "not run: session/set_mode to {mode} (--mode) {}",
                        answer.outcome.describe()
                    ),
                );
            }
            return None;
        }
        rulings.saw("P12", format!("the turns ran in the mode {mode} (--mode)"));
    }
    let mut announced: HashSet<String> = HashSet::new();
    let mut ended = false;
    let mut asked_anything = false;
    for (turn, text) in prompts.iter().enumerate() {
        driver.permissions = if turn == 0 {
            Permissions::RejectLate(LATE)
        } else {
            Permissions::Reject
        };
        let mark = driver.log.len();
        let answer = driver
            .request("session/prompt", prompt(&session, text), TURN)
            .await;
        if answer.outcome.code() == Some(-32000) {
            // An agent may open sessions before a sign-in and want one only for a turn.
            super::session_rules::sign_in_wanted(setup, "session/prompt", rulings);
            for rule in TURN_RULES {
                rulings.not_run(
                    rule,
                    "not run: sign in first (session/prompt answered auth_required, -32000); run the agent once in a terminal to sign in, then check again",
                );
            }
            return None;
        }
        let end = answer.index.min(driver.log.len());
        let seen: Vec<Value> = driver.log[mark..end]
            .iter()
            .map(|s| s.message.clone())
            .collect();
        // Every session the client opened in this process: a late update of another one is
        // no fault of this turn's.
        let known: HashSet<String> = driver
            .log
            .iter()
            .filter_map(|s| s.message.pointer("/result/sessionId")?.as_str())
            .map(str::to_string)
            .chain([session.clone()])
            .collect();
        judge_updates(&seen, &known, &mut announced, rulings);
        let asked = judge_requests(&seen, rulings);
        asked_anything |= asked.permissions + asked.questions > 0;
        let stop = match &answer.outcome {
            Outcome::Result(reply) => match shapes::prompt_answer(reply) {
                Ok(stop) => {
                    ended = true;
                    Some(stop)
                }
                Err(why) => {
                    rulings.fault("P12", format!("the answer to session/prompt: {why}"));
                    None
                }
            },
            other => {
                rulings.fault(
                    "P12",
                    format!("the turn of --prompt {} {}", turn + 1, other.describe()),
                );
                None
            }
        };
        if asked.permissions + asked.questions > 0 {
            match &stop {
                Some(stop) => rulings.saw(
                    "P13",
                    format!(
                        "turn {}: {} rejected and {} declined; the turn went on and ended {stop}",
                        turn + 1,
                        count(asked.permissions, "permission request"),
                        count(asked.questions, "question")
                    ),
                ),
                None => rulings.fault(
                    "P13",
                    format!(
                        "turn {} failed after the client answered {} and {}: {}",
                        turn + 1,
                        count(asked.permissions, "permission request"),
                        count(asked.questions, "question"),
                        answer.outcome.describe()
                    ),
                ),
            }
        }
        if turn == 0 && asked.permissions > 0 {
            match &stop {
                Some(_) => rulings.saw(
                    "P15",
                    "a permission answered 1.5 s late, and the turn went on",
                ),
                None => rulings.fault(
                    "P15",
                    format!(
                        "a permission answered 1.5 s late, then the turn {}",
                        answer.outcome.describe()
                    ),
                ),
            }
        }
        if let Some(stop) = stop {
            rulings.saw("P12", format!("turn {} ended {stop}", turn + 1));
        }
    }
    if !asked_anything {
        rulings.not_run(
            "P13",
            "not run: no turn asked a permission or a question (the scripted agent asks with any prompt, and /ask asks a question)",
        );
    }
    Some((session, ended))
}

/// P12 over the messages of one turn.
fn judge_updates(
    seen: &[Value],
    known: &HashSet<String>,
    announced: &mut HashSet<String>,
    rulings: &mut Rulings,
) {
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
                    super::driver::quote(session)
                ),
            );
            continue;
        }
        let kind = match shapes::update(&params) {
            Ok(kind) => kind,
            Err(why) => {
                rulings.fault("P12", why);
                continue;
            }
        };
        let call = params
            .pointer("/update/toolCallId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        match kind.as_str() {
            "tool_call" => {
                announced.insert(call);
            }
            "tool_call_update" if !announced.contains(&call) => rulings.fault(
                "P12",
                format!(
                    "a tool_call_update of the call {}, which no tool_call announced before it",
                    super::driver::quote(&call)
                ),
            ),
            _ => {}
        }
    }
    rulings.saw("P12", format!("{updates} updates"));
}

struct Asked {
    permissions: usize,
    questions: usize,
}

/// P13 over the requests of one turn.
fn judge_requests(seen: &[Value], rulings: &mut Rulings) -> Asked {
    let mut asked = Asked {
        permissions: 0,
        questions: 0,
    };
    for message in seen {
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match message.get("method").and_then(Value::as_str) {
            Some("session/request_permission") => {
                asked.permissions += 1;
                if let Err(why) = shapes::permission(&params) {
                    rulings.fault("P13", why);
                }
            }
            Some("elicitation/create") => {
                asked.questions += 1;
                if let Err(why) = shapes::elicitation(&params) {
                    rulings.fault("P13", why);
                }
            }
            _ => {}
        }
    }
    asked
}

/// P14 and the rest of P15: the first prompt again, cancelled (twice) once it runs, its open
/// permissions answered `cancelled`; then `$/cancel_request` of it, and the agent still
/// answers.
pub(crate) async fn cancel(driver: &mut Driver, session: &str, text: &str, rulings: &mut Rulings) {
    driver.permissions = Permissions::Hold;
    let mark = driver.log.len();
    let id = driver.send("session/prompt", prompt(session, text)).await;
    let running = driver
        .pump_until(mark, STARTING, |m| {
            shapes::update_of(m) == Some(session)
                || m.get("method").and_then(Value::as_str) == Some("session/request_permission")
                || (m.get("method").is_none() && m.get("id").and_then(Value::as_u64) == Some(id))
        })
        .await;
    // A turn that asks a permission soon is cancelled while it waits for the answer, so the
    // client's part of P14 (answering it `cancelled`) is seen too.
    if running {
        driver
            .pump_until(mark, PERMISSION_SOON, |m| {
                m.get("method").and_then(Value::as_str) == Some("session/request_permission")
                    || (m.get("method").is_none()
                        && m.get("id").and_then(Value::as_u64) == Some(id))
            })
            .await;
    }
    let done_early = driver.log[mark..].iter().any(|s| {
        s.message.get("method").is_none() && s.message.get("id").and_then(Value::as_u64) == Some(id)
    });
    if !running || done_early {
        driver.permissions = Permissions::Reject;
        driver.cancel_held().await;
        let answer = driver.wait(id, TURN).await;
        let why = if done_early {
            "not run: the turn ended before it could be cancelled: give a --prompt that takes longer".to_string()
        } else {
            format!(
                "not run: the turn showed nothing within {} s, so it was not cancelled",
                STARTING.as_secs()
            )
        };
        rulings.not_run("P14", why);
        let _ = answer;
        rough_client(driver, session, id, false, rulings).await;
        return;
    }
    let cancelled_at = Instant::now();
    driver
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    // A client that presses stop twice (SPEC P15).
    driver
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    driver.permissions = Permissions::Cancelled;
    let held = driver.cancel_held().await;
    let answer = driver.wait(id, CANCEL).await;
    let took = cancelled_at.elapsed().as_millis();
    match &answer.outcome {
        Outcome::Result(reply) if reply.get("stopReason").and_then(Value::as_str) == Some("cancelled") => {
            rulings.saw(
                "P14",
                format!(
                    "the turn ended cancelled {took} ms after session/cancel, {} answered cancelled",
                    count(held, "open permission")
                ),
            );
        }
        Outcome::Result(reply) => rulings.fault(
            "P14",
            format!(
                "after session/cancel the turn ended with stopReason {}; ACP: an agent MUST answer cancelled once the client cancels",
                reply.get("stopReason").map(Value::to_string).unwrap_or_else(|| "none".into())
            ),
        ),
        other => rulings.fault(
            "P14",
            format!(
                "after session/cancel ({} answered cancelled) the prompt {}; ACP asks for stopReason cancelled",
                count(held, "open permission"),
                other.describe()
            ),
        ),
    }
    if !matches!(answer.outcome, Outcome::NoAnswer(_)) {
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
        "session/cancel sent twice and $/cancel_request of the finished prompt"
    } else {
        "$/cancel_request of the finished prompt"
    };
    match answer.outcome {
        // Any answer will do, even an error for an agent without session/list: it still reads.
        Outcome::Result(_) | Outcome::Error(_) if alive => {
            rulings.saw(
                "P15",
                format!(
                    "after {moves}, it still answers (session {})",
                    super::driver::quote(session)
                ),
            );
        }
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
