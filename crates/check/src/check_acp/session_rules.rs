//! The rules that need no model (SPEC P1–P11, P16): `initialize`, sessions, modes and
//! options, an idle cancel, the end of stdin, and the stream and stderr as a whole. They run against any agent,
//! signed in or not; past a sign-in they say so.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::driver::{Driver, Outcome};
use super::{INITIALIZE, REQUEST, Rulings, SIGN_IN_FIRST, shapes};

/// A session id no agent has. Session ids are opaque strings in ACP, but the agents mint
/// UUIDs (claude-agent-acp, codex-acp, Gemini CLI), and what a host meets is one of those that
/// the agent no longer keeps: so the unknown id has that shape, and the rule judges "not found",
/// not the parsing of a strange id.
const UNKNOWN_SESSION: &str = "00000000-0000-4000-8000-c011e0c0ffee";
/// The version offered to see it come down to one the agent speaks (SPEC P3).
const NEWER_VERSION: u64 = 999;
/// The versions ACP has defined: 1, and the draft 2.
const DEFINED_VERSIONS: std::ops::RangeInclusive<u64> = 1..=2;
/// Why the rules past `initialize` did not run against an agent that answered 2 when offered 1.
const ONLY_V2: &str = "not run: offered ACP v1, the agent answered 2, so it does not speak v1, and the rules past initialize speak v1";
/// How long updates that follow an answer are waited for.
const FOLLOWING: Duration = Duration::from_millis(300);

/// What the agent offered at `initialize`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Abilities {
    pub(crate) load: bool,
    pub(crate) resume: bool,
    pub(crate) list: bool,
    pub(crate) close: bool,
}

/// What the first process set up: the version, what it offers, and the first session.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    pub(crate) version: u16,
    pub(crate) abilities: Abilities,
    /// `session/new` answered auth_required.
    pub(crate) signed_out: bool,
    /// The first session, its modes and its options, as `session/new` gave them.
    pub(crate) session: Option<String>,
    /// The ids of the `authMethods` initialize named.
    pub(crate) auth_methods: Vec<String>,
    modes: Value,
    options: Value,
}

/// The client's `initialize`, as the ACP host sends it: forms and urls asked through the
/// client, boolean options, no file system and no terminal. It also takes terminal sign-ins
/// (`auth.terminal`): the check has the agent's command, which a person can run in a
/// terminal to sign in, and ACP lets an agent name such a method only to a client that says
/// so (the schema's `AuthMethodTerminal`); without it an agent that signs in only that way
/// (Claude Code's adapter) has nothing to name, and SPEC P4 could not be judged.
pub(crate) fn initialize(version: u64) -> Value {
    json!({
        "protocolVersion": version,
        "clientCapabilities": {
            "fs": {"readTextFile": false, "writeTextFile": false},
            "terminal": false,
            "auth": {"terminal": true},
            "elicitation": {"form": {}, "url": {}},
            "session": {"configOptions": {"boolean": {}}}
        },
        "clientInfo": {"name": "collie-phone check", "version": env!("CARGO_PKG_VERSION")}
    })
}

pub(crate) fn new_session(workspace: &Path) -> Value {
    json!({"cwd": workspace, "mcpServers": []})
}

/// `initialize` and the first session (P3, P4, P5, P6), and the version the agent answered
/// (0 for none). No setup when `initialize` got no usable answer, or one of a version the
/// rules do not speak: then only the stream rules and the end of stdin can run.
pub(crate) async fn open(
    driver: &mut Driver,
    workspace: &Path,
    rulings: &mut Rulings,
) -> (Option<Setup>, u16) {
    let answer = driver
        .request("initialize", initialize(1), INITIALIZE)
        .await;
    let Outcome::Result(reply) = &answer.outcome else {
        rulings.fault(
            "P3",
            format!(
                "initialize offering version 1 {}; nothing else can run before it answers",
                answer.outcome.describe()
            ),
        );
        for rule in [
            "P4", "P5", "P6", "P7", "P8", "P9", "P10", "P12", "P13", "P14", "P15",
        ] {
            rulings.not_run(rule, "not run: initialize did not answer");
        }
        return (None, 0);
    };
    let version = reply
        .get("protocolVersion")
        .and_then(Value::as_u64)
        .unwrap_or_default();
    // Judged by the version asked (ACP initialization: "If the Agent supports the requested
    // version, it MUST respond with the same version. Otherwise, the Agent MUST respond with
    // the latest version it supports"): offered 1, an agent that speaks 1 answers 1, and one
    // that speaks only the draft 2 answers 2, which is no fault of it. Its answer is then of
    // v2's shape, not judged as v1's, and the rules past initialize, which speak v1, cannot
    // run: the MANDATORY ones among them keep the run from conforming (SPEC P3).
    if version == 2 {
        rulings.saw(
            "P3",
            "offered 1, answered 2: an agent that does not speak 1 answers the latest it speaks",
        );
        for rule in [
            "P4", "P5", "P6", "P7", "P8", "P9", "P10", "P12", "P13", "P14", "P15",
        ] {
            rulings.not_run(rule, ONLY_V2);
        }
        return (None, 2);
    }
    rulings.judge("P3", shapes::initialize(reply));
    match version {
        1 => rulings.saw("P3", "offered 1, answered 1"),
        _ => rulings.fault(
            "P3",
            format!(
                "offered version 1, it answered {}: ACP asks for the version offered when the agent speaks it, else the latest it speaks, and the versions ACP defines are 1 and the draft 2",
                reply.get("protocolVersion").map(Value::to_string).unwrap_or_else(|| "none".into())
            ),
        ),
    }
    let capabilities = reply
        .get("agentCapabilities")
        .cloned()
        .unwrap_or(Value::Null);
    let offered = |name: &str| {
        capabilities
            .get("sessionCapabilities")
            .and_then(|s| s.get(name))
            .is_some_and(|v| !v.is_null())
    };
    let abilities = Abilities {
        load: capabilities.get("loadSession").and_then(Value::as_bool) == Some(true),
        resume: offered("resume"),
        list: offered("list"),
        close: offered("close"),
    };
    unknown_sessions(driver, workspace, abilities, rulings).await;
    let mut setup = Setup {
        version: u16::try_from(version).unwrap_or_default(),
        abilities,
        signed_out: false,
        session: None,
        auth_methods: reply
            .get("authMethods")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|m| m.get("id").map(Value::to_string).unwrap_or_default())
            .collect(),
        modes: Value::Null,
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
        Outcome::Result(session) => match shapes::new_session(session) {
            Ok(id) => {
                rulings.saw(
                    "P5",
                    format!("session/new gave {}", super::driver::quote(&id)),
                );
                setup.session = Some(id);
                setup.modes = session.get("modes").cloned().unwrap_or(Value::Null);
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
    let version = setup.version;
    (Some(setup), version)
}

/// P4: `method` answered auth_required; `initialize` must have named how to sign in.
pub(crate) fn sign_in_wanted(setup: &Setup, method: &str, rulings: &mut Rulings) {
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

/// P6: load and resume of a session the agent never had.
async fn unknown_sessions(
    driver: &mut Driver,
    workspace: &Path,
    abilities: Abilities,
    rulings: &mut Rulings,
) {
    let params = json!({"sessionId": UNKNOWN_SESSION, "cwd": workspace, "mcpServers": []});
    let mut tried = false;
    for (method, offered) in [
        ("session/load", abilities.load),
        ("session/resume", abilities.resume),
    ] {
        if !offered {
            continue;
        }
        tried = true;
        let answer = driver.request(method, params.clone(), REQUEST).await;
        match answer.outcome.code() {
            Some(-32002) => rulings.saw("P6", format!("{method} of an unknown session: -32002")),
            Some(-32000) => rulings.not_run(
                "P6",
                format!("not run: sign in first ({method} answered auth_required, -32000)"),
            ),
            _ => rulings.fault(
                "P6",
                format!(
                    "{method} of the unknown session {UNKNOWN_SESSION} {}; ACP's error for a resource not found is -32002",
                    answer.outcome.describe()
                ),
            ),
        }
    }
    if !tried {
        rulings.not_run(
            "P6",
            "not run: the agent offers neither loadSession nor sessionCapabilities.resume",
        );
    }
}

/// P9, P10 and P8 on the first session: switches, an idle cancel, a close.
pub(crate) async fn idle(
    driver: &mut Driver,
    setup: &Setup,
    workspace: &Path,
    rulings: &mut Rulings,
) {
    let Some(session) = setup.session.clone() else {
        return;
    };
    modes(driver, &session, &setup.modes, rulings).await;
    options(driver, &session, &setup.options, rulings).await;

    // P10: a cancel with no turn running, then the session still answers.
    driver
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    driver.pump_for(FOLLOWING).await;
    let current = setup.modes.get("currentModeId").cloned();
    let answer = match &current {
        Some(mode) => {
            driver
                .request(
                    "session/set_mode",
                    json!({"sessionId": session, "modeId": mode}),
                    REQUEST,
                )
                .await
        }
        None => {
            driver
                .request(
                    "session/new",
                    super::session_rules::new_session(workspace),
                    REQUEST,
                )
                .await
        }
    };
    let asked = if current.is_some() {
        "session/set_mode to its own mode"
    } else {
        "session/new"
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

    // P8: a closed session takes no prompt.
    if !setup.abilities.close {
        rulings.not_run(
            "P8",
            "not run: the agent does not offer sessionCapabilities.close",
        );
        return;
    }
    let answer = driver
        .request("session/close", json!({"sessionId": session}), REQUEST)
        .await;
    if !matches!(answer.outcome, Outcome::Result(_)) {
        rulings.fault(
            "P8",
            format!(
                "session/close of an open session {}",
                answer.outcome.describe()
            ),
        );
        return;
    }
    let mark = driver.log.len();
    let answer = driver
        .request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "collie-phone check: this session was closed, so this prompt must be refused"}]}),
            REQUEST,
        )
        .await;
    let streamed = driver.log[mark..answer.index.min(driver.log.len())]
        .iter()
        .filter(|s| shapes::update_of(&s.message) == Some(session.as_str()))
        .count();
    match answer.outcome {
        Outcome::Error(_) if streamed == 0 => rulings.saw(
            "P8",
            format!(
                "a prompt to a closed session was refused ({})",
                answer.outcome.code().map(|c| c.to_string()).unwrap_or_default()
            ),
        ),
        other => rulings.fault(
            "P8",
            format!(
                "after session/close, a prompt to that session {}{}; ACP: a closed session is freed, so it takes no more prompts",
                other.describe(),
                if streamed > 0 {
                    format!(", after {streamed} updates of it")
                } else {
                    String::new()
                }
            ),
        ),
    }
}

/// P9 for modes: the offered ones are taken, an unknown one refused, and an update that
/// follows names the mode set.
async fn modes(driver: &mut Driver, session: &str, modes: &Value, rulings: &mut Rulings) {
    let current = modes.get("currentModeId").and_then(Value::as_str);
    let ids: Vec<&str> = modes
        .get("availableModes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("id").and_then(Value::as_str))
        .collect();
    let (Some(current), Some(other)) = (current, ids.iter().find(|id| Some(**id) != current))
    else {
        rulings.not_run(
            "P9",
            "modes not run: the session offers fewer than two modes",
        );
        return;
    };
    let other = other.to_string();
    let current = current.to_string();
    let set = |mode: &str| json!({"sessionId": session, "modeId": mode});
    let mark = driver.log.len();
    let answer = driver
        .request("session/set_mode", set(&other), REQUEST)
        .await;
    match &answer.outcome {
        Outcome::Result(_) => {
            driver.pump_for(FOLLOWING).await;
            let seen = driver.log[mark..].iter().map(|s| &s.message);
            let wrong: Vec<String> = shapes::updates_of(seen, session, "current_mode_update")
                .filter_map(|u| u.get("currentModeId").and_then(Value::as_str))
                .filter(|mode| *mode != other)
                .map(str::to_string)
                .collect();
            if wrong.is_empty() {
                rulings.saw("P9", format!("set_mode {other} taken"));
            } else {
                rulings.fault(
                    "P9",
                    format!(
                        "set_mode {other} answered, but the current_mode_update after it names {}",
                        wrong.join(", ")
                    ),
                );
            }
        }
        other_outcome => rulings.fault(
            "P9",
            format!(
                "session/set_mode to {other}, a mode the session offers, {}",
                other_outcome.describe()
            ),
        ),
    }
    let answer = driver
        .request(
            "session/set_mode",
            set("collie-check-no-such-mode"),
            REQUEST,
        )
        .await;
    match answer.outcome {
        Outcome::Error(_) => rulings.saw("P9", "an unknown mode refused"),
        other => rulings.fault(
            "P9",
            format!(
                "session/set_mode to collie-check-no-such-mode, a mode the session does not offer, {}; it must be refused",
                other.describe()
            ),
        ),
    }
    let answer = driver
        .request("session/set_mode", set(&current), REQUEST)
        .await;
    if !matches!(answer.outcome, Outcome::Result(_)) {
        rulings.fault(
            "P9",
            format!(
                "session/set_mode back to {current}, the mode it started in, {}",
                answer.outcome.describe()
            ),
        );
    }
}

/// P9 for config options: a select option's other value is taken (the answer's options say
/// so), an unknown value refused.
async fn options(driver: &mut Driver, session: &str, options: &Value, rulings: &mut Rulings) {
    let selects: Vec<(String, String, Vec<String>, bool)> = options
        .as_array()
        .into_iter()
        .flatten()
        .filter(|o| o.get("type").and_then(Value::as_str) == Some("select"))
        .filter_map(|o| {
            let id = o.get("id")?.as_str()?.to_string();
            let current = o.get("currentValue")?.as_str()?.to_string();
            let values = shapes::select_values(o.get("options")?);
            let model = o.get("category").and_then(Value::as_str) == Some("model");
            Some((id, current, values, model))
        })
        .filter(|(_, _, values, _)| values.len() >= 2)
        .collect();
    let Some((id, current, values, _)) = selects
        .iter()
        .find(|s| !s.3)
        .or_else(|| selects.first())
        .cloned()
    else {
        rulings.not_run(
            "P9",
            "options not run: the session offers no select option with two values",
        );
        return;
    };
    let Some(other) = values.iter().find(|v| **v != current).cloned() else {
        return;
    };
    let set = |value: &str| json!({"sessionId": session, "configId": id, "value": value});
    let mark = driver.log.len();
    let answer = driver
        .request("session/set_config_option", set(&other), REQUEST)
        .await;
    match &answer.outcome {
        Outcome::Result(reply) => {
            driver.pump_for(FOLLOWING).await;
            let seen = driver.log[mark..].iter().map(|s| &s.message);
            let wrong: Vec<String> = shapes::updates_of(seen, session, "config_option_update")
                .filter_map(|u| {
                    u.get("configOptions")?
                        .as_array()?
                        .iter()
                        .find(|o| o.get("id").and_then(Value::as_str) == Some(id.as_str()))?
                        .get("currentValue")?
                        .as_str()
                        .map(str::to_string)
                })
                .filter(|value| *value != other)
                .collect();
            if !wrong.is_empty() {
                rulings.fault(
                    "P9",
                    format!(
                        "set_config_option {id} = {other} answered, but the config_option_update after it gives {id} = {}",
                        wrong.join(", ")
                    ),
                );
            }
            let now = reply
                .get("configOptions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .find(|o| o.get("id").and_then(Value::as_str) == Some(id.as_str()))
                .and_then(|o| o.get("currentValue"))
                .and_then(Value::as_str);
            if now == Some(other.as_str()) {
                rulings.saw("P9", format!("option {id} = {other} taken"));
            } else {
                rulings.fault(
                    "P9",
                    format!(
                        "session/set_config_option {id} = {other} answered, but its configOptions give {id} = {}",
                        now.unwrap_or("nothing")
                    ),
                );
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
    let answer = driver
        .request(
            "session/set_config_option",
            set("collie-check-no-such-value"),
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
        .request("session/set_config_option", set(&current), REQUEST)
        .await;
}

/// P5 after a turn: `session/list` for the workspace lists the prompted session, each with
/// that cwd.
pub(crate) async fn listed(
    driver: &mut Driver,
    setup: &Setup,
    workspace: &Path,
    prompted: &str,
    rulings: &mut Rulings,
) {
    if !setup.abilities.list {
        rulings.not_run("P5", "session/list not run: the agent does not offer it");
        return;
    }
    let Some(sessions) =
        listed_pages(driver, workspace, prompted, shapes::listed_page, rulings).await
    else {
        return;
    };
    rulings.judge(
        "P5",
        shapes::listed(&json!({ "sessions": sessions }), workspace, prompted),
    );
}

/// The sessions `session/list` gives for the workspace, page by page as the host reads them
/// (at most 5 pages), until the prompted session shows; each page read with the version's
/// `page` check. None once a page fails, P5 then saying why.
pub(crate) async fn listed_pages(
    driver: &mut Driver,
    workspace: &Path,
    prompted: &str,
    page: fn(&Value) -> Result<(), String>,
    rulings: &mut Rulings,
) -> Option<Vec<Value>> {
    let mut sessions = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..5 {
        let mut params = json!({"cwd": workspace});
        if let Some(cursor) = &cursor {
            params["cursor"] = cursor.clone();
        }
        let answer = driver.request("session/list", params, REQUEST).await;
        let Outcome::Result(reply) = &answer.outcome else {
            rulings.fault(
                "P5",
                format!(
                    "session/list for the workspace {}",
                    answer.outcome.describe()
                ),
            );
            return None;
        };
        if let Err(why) = page(reply) {
            rulings.fault("P5", why);
            return None;
        }
        sessions.extend(reply["sessions"].as_array().cloned().unwrap_or_default());
        let found = sessions
            .iter()
            .any(|s| s.get("sessionId").and_then(Value::as_str) == Some(prompted));
        cursor = reply.get("nextCursor").filter(|c| !c.is_null()).cloned();
        if found || cursor.is_none() {
            break;
        }
    }
    Some(sessions)
}

/// P7: a second process loads the session prompted in the first, and replays it before it
/// answers, as after a host's restart.
pub(crate) async fn load(
    driver: &mut Driver,
    workspace: &Path,
    session: &str,
    rulings: &mut Rulings,
) {
    let answer = driver
        .request("initialize", initialize(1), INITIALIZE)
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
    let answer = driver
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": workspace, "mcpServers": []}),
            REQUEST,
        )
        .await;
    let count = |range: &[super::driver::Seen], kind: &str| {
        shapes::updates_of(range.iter().map(|s| &s.message), session, kind).count()
    };
    let before = &driver.log[..answer.index.min(driver.log.len())];
    let (users, agents) = (
        count(before, "user_message_chunk"),
        count(before, "agent_message_chunk"),
    );
    match &answer.outcome {
        Outcome::Result(_) if users > 0 && agents > 0 => rulings.saw(
            "P7",
            format!("a second process replayed {users} user and {agents} agent chunks, then answered session/load"),
        ),
        Outcome::Result(_) => {
            driver.pump_for(FOLLOWING).await;
            let after = &driver.log[answer.index.min(driver.log.len())..];
            let late = count(after, "user_message_chunk") + count(after, "agent_message_chunk");
            rulings.fault(
                "P7",
                if late > 0 {
                    format!("session/load answered first, and {late} chunks of the conversation came after it; ACP: the agent replays the whole conversation, then answers")
                } else {
                    format!("session/load of the session prompted in the first process answered after replaying {users} user and {agents} agent chunks; ACP: the agent replays the whole conversation (user and agent messages), then answers")
                },
            );
        }
        other => rulings.fault(
            "P7",
            format!(
                "session/load in a second process of the session prompted in the first {}",
                other.describe()
            ),
        ),
    }
}

/// P3 in a process of its own: offered a newer version than any, the agent answers one it
/// speaks, not more than offered.
///
/// `asked_one` is what it answered when offered 1: an agent that speaks more than one version
/// may answer higher here, never lower (the kit's ACP-INIT-003).
pub(crate) async fn newer_version(
    driver: &mut Driver,
    asked_one: Option<u64>,
    rulings: &mut Rulings,
) {
    let answer = driver
        .request("initialize", initialize(NEWER_VERSION), INITIALIZE)
        .await;
    match &answer.outcome {
        Outcome::Result(reply) => match reply.get("protocolVersion").and_then(Value::as_u64) {
            Some(version)
                if DEFINED_VERSIONS.contains(&version)
                    && asked_one.is_some_and(|one| version < one) =>
            {
                rulings.fault(
                    "P3",
                    format!(
                        "offered version {NEWER_VERSION}, it answered {version}, lower than the {} it answered when offered 1: the latest version it speaks is at least that",
                        asked_one.unwrap_or_default()
                    ),
                )
            }
            Some(version) if DEFINED_VERSIONS.contains(&version) => rulings.saw(
                "P3",
                format!("offered {NEWER_VERSION}, answered {version}"),
            ),
            _ => rulings.fault(
                "P3",
                format!(
                    "offered version {NEWER_VERSION}, it answered {}: ACP asks an agent that does not speak the version offered to answer the latest it speaks",
                    reply.get("protocolVersion").map(Value::to_string).unwrap_or_else(|| "none".into())
                ),
            ),
        },
        other => rulings.fault(
            "P3",
            format!(
                "initialize offering version {NEWER_VERSION} {}; ACP asks for the latest version the agent speaks instead",
                other.describe()
            ),
        ),
    }
}

/// P11: the first process ends once its stdin closes.
pub(crate) async fn end_of_stdin(driver: &mut Driver, rulings: &mut Rulings) {
    if !driver.alive() {
        rulings.not_run(
            "P11",
            "not run: the agent had exited before its stdin was closed",
        );
        return;
    }
    let started = Instant::now();
    if driver.close(Duration::from_secs(5)).await {
        rulings.saw(
            "P11",
            format!(
                "it ended {} ms after its stdin closed",
                started.elapsed().as_millis()
            ),
        );
    } else {
        rulings.fault("P11", "it still ran 5 s after its stdin closed, and was killed: a client that goes away leaves it running");
    }
}

/// P1 and P2 over everything every process wrote.
pub(crate) fn stream(drivers: &[Driver], rulings: &mut Rulings) {
    let read: usize = drivers.iter().map(|d| d.log.len()).sum();
    for (rule, faults) in [
        (
            "P1",
            drivers
                .iter()
                .flat_map(|d| d.stream_faults.iter())
                .collect::<Vec<_>>(),
        ),
        (
            "P2",
            drivers
                .iter()
                .flat_map(|d| d.answer_faults.iter())
                .collect(),
        ),
    ] {
        if faults.is_empty() {
            rulings.saw(
                rule,
                format!("{read} messages read from {} processes", drivers.len()),
            );
        } else {
            let mut why: Vec<String> = faults.iter().take(3).map(|f| f.to_string()).collect();
            if faults.len() > 3 {
                why.push(format!("and {} more", faults.len() - 3));
            }
            rulings.fault(rule, why.join("; "));
        }
    }
}

/// P16: what every process wrote on stderr was read to its end and kept in the log. It only
/// records (INFORMATIONAL): ACP lets an agent write anything there, and a client keep it or not.
pub(crate) async fn stderr_read(drivers: &[Driver], rulings: &mut Rulings) {
    // The processes are gone; the last of their stderr may still be on its way to the log.
    let deadline = Instant::now() + Duration::from_secs(2);
    while drivers.iter().any(|d| !d.stderr.read().2) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (mut bytes, mut lines) = (0, 0);
    let mut open = Vec::new();
    for driver in drivers {
        let (b, l, ended) = driver.stderr.read();
        bytes += b;
        lines += l;
        if !ended {
            open.push(driver.label);
        }
    }
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut what = format!(
        "{} in {} on stderr from {}, kept in the log",
        plural(bytes, "byte", "bytes"),
        plural(lines, "line", "lines"),
        plural(drivers.len() as u64, "process", "processes"),
    );
    if !open.is_empty() {
        what.push_str(&format!(
            "; the stderr of {} was still open after it ended, so the log may lack its last lines",
            open.join(", ")
        ));
    }
    rulings.saw("P16", what);
}
