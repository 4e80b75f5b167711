//! The real coding agents behind the ACP host: `@agentclientprotocol/codex-acp`,
//! `@agentclientprotocol/claude-agent-acp` and `@google/gemini-cli` (`gemini --acp`) at the versions
//! `tests/agents/package.json` pins, each
//! pointed at the scripted model endpoint (`common::model_endpoint`) on 127.0.0.1, with no
//! account and nothing leaving the machine. docs/ACP.md, "Real agents in the tests", gives the
//! setup for each.
//!
//! Each agent runs whole turns: a starter opens a pane, a prompt streams, a command asks
//! permission, Allow once runs it and Deny does not, a long answer is stopped mid-stream, and
//! after a host restart the session is loaded back and the next turn works. Every step is
//! judged by what the model endpoint received and what happened in the workspace, not only by
//! what the host says. Each runs the tier again with the host offering ACP v2
//! (`--acp-protocol NAME=2`): on v2 where the agent answers 2, on v1 where it answers 1
//! (docs/ACP.md, "ACP v1 and v2").
//!
//! `.ci/run` installs the packages (`npm ci --prefix tests/agents`) and sets
//! `COLLIE_REAL_AGENTS=required`, so a missing agent fails the run there. Anywhere else a test
//! whose agent is not installed says so on stderr and how to install it.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::model_endpoint::{
    ASKED, HELLO, ModelEndpoint, Received, WRITTEN, finished, is_refusal,
};
use common::*;
use serde_json::{Value, json};

/// A real agent's turn can take a few seconds (node starting, the model's side calls).
const WAIT: Duration = Duration::from_secs(45);

/// One of the real agents, as the tier runs it.
struct Agent {
    /// Its name behind the host (`--acp NAME=…`), and so in its starters and words.
    name: &'static str,
    /// Its adapter's command in `tests/agents/node_modules/.bin`.
    bin: &'static str,
    /// What the command needs to speak ACP.
    args: &'static str,
    /// How its session comes back after a restart, in the pane's words: resumed
    /// (`session/resume`, claude-agent-acp and codex-acp), or `None`: Gemini CLI 0.61.0 offers
    /// `session/load`, but its load starts the session's record afresh before reading it, so
    /// it finds nothing (docs/ACP.md): the host's fresh session and its notice are tested there.
    again: Option<&'static str>,
    /// A setting of its pane to switch from the phone, the choice, and what shows it took.
    switch: (&'static str, &'static str, Switched),
    /// Offered ACP v2 (`--acp-protocol NAME=2`), whether it answers 2 (else 1, and runs on
    /// v1), and whether it then tells its commands (codex-acp 2.6.0 on v2 sends no
    /// `available_commands_update`; on v1 it does).
    on_v2: (bool, bool),
}

/// How the tier sees that a switch reached the agent.
enum Switched {
    /// The agent writes a file without asking first (an accept-edits mode).
    WritesWithoutAsking,
    /// The model's next request carries this value at this JSON pointer.
    ModelGets(&'static str, &'static str),
}

const CODEX: Agent = Agent {
    name: "codex",
    bin: "codex-acp",
    args: "",
    again: Some("codex resumed this conversation."),
    // codex 0.166 offers no reasoning effort for `gpt-5.4`, whose metadata it lacks: the
    // model is switched instead.
    switch: (
        "model",
        "gpt-6.1-sol",
        Switched::ModelGets("/model", "gpt-6.1-sol"),
    ),
    on_v2: (true, false),
};
const CLAUDE: Agent = Agent {
    name: "claude",
    bin: "claude-agent-acp",
    args: "",
    again: Some("claude resumed this conversation."),
    switch: ("mode", "acceptEdits", Switched::WritesWithoutAsking),
    on_v2: (true, true),
};
const GEMINI: Agent = Agent {
    name: "gemini",
    bin: "gemini",
    args: " --acp",
    again: None,
    switch: ("mode", "autoEdit", Switched::WritesWithoutAsking),
    // Gemini CLI 0.61.0 answers 1 when offered 2.
    on_v2: (false, true),
};

/// The adapter's command, when the packages are installed. When they are not, the test says
/// so, and fails where `.ci/run` asked for them.
fn installed(agent: &Agent) -> Option<PathBuf> {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/agents/node_modules/.bin")
        .join(agent.bin);
    if bin.exists() {
        return Some(bin);
    }
    let how = "install them with `npm ci --prefix tests/agents` (bash .ci/run does)";
    assert!(
        std::env::var("COLLIE_REAL_AGENTS").as_deref() != Ok("required"),
        "the real agent {} is not installed at {}: {how}",
        agent.bin,
        bin.display()
    );
    eprintln!(
        "SKIPPED the real {} tier: {} is not installed; {how}",
        agent.name, agent.bin
    );
    None
}

/// The environment that points the agent at the endpoint, in a folder of the test's own.
fn environment(
    agent: &Agent,
    dir: &Path,
    workspace: &Path,
    endpoint: &ModelEndpoint,
) -> Vec<(String, String)> {
    let url = endpoint.url();
    let mut env = vec![
        // Both agents honour a proxy; the endpoint refuses CONNECT, so whatever they try to
        // reach off this machine (Claude Code tries its own API host a few times a run) is
        // stopped here and counted.
        ("HTTPS_PROXY".to_string(), url.clone()),
        ("HTTP_PROXY".to_string(), url.clone()),
        ("https_proxy".to_string(), url.clone()),
        ("http_proxy".to_string(), url.clone()),
        ("NO_PROXY".to_string(), "127.0.0.1,localhost".to_string()),
        ("no_proxy".to_string(), "127.0.0.1,localhost".to_string()),
        // Info, not the tests' usual warn: a failure shows what the host saw.
        ("RUST_LOG".to_string(), "info".to_string()),
    ];
    let home = dir.join("home");
    std::fs::create_dir_all(&home).expect("a home folder");
    env.push(("HOME".to_string(), home.display().to_string()));
    match agent.name {
        "codex" => {
            let codex_home = dir.join("codex-home");
            std::fs::create_dir_all(&codex_home).expect("a CODEX_HOME");
            // What a person has: a model (`gpt-5.4`: codex 0.166 offers it `exec_command`
            // with `sandbox_permissions`), its provider, and the project trusted.
            // No approval policy and no sandbox mode: the host starts the session in codex's
            // `read-only` mode, which asks before it edits or runs what is not read-only.
            let config = format!(
                "model = \"gpt-5.4\"\nmodel_provider = \"mock\"\n\
                 check_for_update_on_startup = false\n\n[model_providers.mock]\nname = \"scripted\"\n\
                 base_url = \"{url}/v1\"\nenv_key = \"SCRIPTED_MODEL_KEY\"\nwire_api = \"responses\"\n\n\
                 [projects.\"{}\"]\ntrust_level = \"trusted\"\n",
                workspace.display()
            );
            std::fs::write(codex_home.join("config.toml"), config).expect("codex's config");
            env.push(("CODEX_HOME".into(), codex_home.display().to_string()));
            env.push(("SCRIPTED_MODEL_KEY".into(), "scripted".into()));
        }
        "gemini" => {
            // The API key sign-in, chosen in its settings, so it asks for no other; its base
            // URL may be plain http only on loopback.
            let settings = home.join(".gemini");
            std::fs::create_dir_all(&settings).expect("gemini's settings folder");
            let chosen = json!({
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "general": {"disableAutoUpdate": true},
                "privacy": {"usageStatisticsEnabled": false},
                "telemetry": {"enabled": false},
            });
            std::fs::write(settings.join("settings.json"), chosen.to_string())
                .expect("gemini's settings");
            // Gemini CLI refuses its edit-without-asking mode in a folder it does not trust
            // ("Cannot enable privileged approval modes in an untrusted folder."), as a person
            // who never said to trust it would want.
            let trusted = json!({ workspace.display().to_string(): "TRUST_FOLDER" });
            std::fs::write(settings.join("trustedFolders.json"), trusted.to_string())
                .expect("gemini's trusted folders");
            env.push(("GEMINI_API_KEY".into(), "scripted".into()));
            env.push(("GOOGLE_GEMINI_BASE_URL".into(), url.clone()));
        }
        _ => {
            env.extend(
                [
                    ("ANTHROPIC_BASE_URL", url.as_str()),
                    ("ANTHROPIC_API_KEY", "scripted"),
                    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
                    ("DISABLE_TELEMETRY", "1"),
                    ("DISABLE_ERROR_REPORTING", "1"),
                    ("DISABLE_AUTOUPDATER", "1"),
                ]
                .map(|(k, v)| (k.to_string(), v.to_string())),
            );
            // As root, the adapter asks for Claude Code's bypass mode whenever IS_SANDBOX is
            // set, and Claude Code takes it only when it is 1: a machine's own value (`yes`
            // on some) would fail every session. A test's folder of its own is a sandbox.
            // SAFETY: geteuid has no preconditions and cannot fail.
            if unsafe { libc::geteuid() } == 0 {
                env.push(("IS_SANDBOX".into(), "1".into()));
            }
        }
    }
    env
}

/// The host with one real agent, its workspace and the endpoint it talks to.
struct Tier {
    agent: &'static Agent,
    /// The host offers it ACP v2.
    v2: bool,
    dir: tempfile::TempDir,
    workspace: PathBuf,
    endpoint: ModelEndpoint,
    command: PathBuf,
    process: Option<AgentProcess>,
    client: Client,
}

impl Drop for Tier {
    /// The host is stopped as a person stops it, so it ends its agents' processes: killed
    /// outright it could not, and they would outlive the test.
    fn drop(&mut self) {
        if let Some(mut process) = self.process.take() {
            process.stop(false);
        }
    }
}

impl Tier {
    async fn start(agent: &'static Agent) -> Option<Self> {
        Self::start_on(agent, false).await
    }

    /// [`Tier::start`], the host offering ACP v2 when `v2`.
    async fn start_on(agent: &'static Agent, v2: bool) -> Option<Self> {
        let command = installed(agent)?;
        let dir = temp_dir();
        let workspace = dir.path().join("workspace");
        std::fs::create_dir_all(&workspace).expect("a workspace");
        // The canonical path: codex trusts a project by its real path.
        let workspace = workspace.canonicalize().expect("the workspace's path");
        let endpoint = ModelEndpoint::start().await;
        let (process, client) = host(agent, dir.path(), &workspace, &endpoint, &command, v2).await;
        Some(Self {
            agent,
            v2,
            dir,
            workspace,
            endpoint,
            command,
            process: Some(process),
            client,
        })
    }

    /// Stops the host (its agent process with it) and starts it again on the same state.
    async fn restart(&mut self) {
        if let Some(mut process) = self.process.take() {
            process.stop(false);
        }
        let (process, client) = host(
            self.agent,
            self.dir.path(),
            &self.workspace,
            &self.endpoint,
            &self.command,
            self.v2,
        )
        .await;
        self.process = Some(process);
        self.client = client;
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("host.log")).unwrap_or_default()
    }

    async fn pane(&self, pane: &str) -> Option<Value> {
        common::panes::find(&self.client, pane).await
    }

    async fn until_pane(&self, what: &str, pane: &str, check: impl Fn(&Value) -> bool) -> Value {
        let found = tokio::time::timeout(WAIT, async {
            loop {
                if let Some(p) = self.pane(pane).await.filter(|p| check(p)) {
                    return p;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await;
        found.unwrap_or_else(|_| {
            panic!(
                "{what}: not within {WAIT:?}; the pane: {:?}\nitems: {:#?}\nthe host's log:\n{}",
                futures::executor::block_on(self.pane(pane)),
                futures::executor::block_on(self.items(pane)),
                tail(&self.log())
            )
        })
    }

    async fn start_pane(&self) -> String {
        let pane = common::panes::start(&self.client, &format!("{}-1", self.agent.name)).await;
        self.until_pane("the session opens", &pane, |p| p["state"] == "idle")
            .await;
        pane
    }

    async fn send(&self, pane: &str, id: &str, text: &str) -> Value {
        common::panes::send(&self.client, pane, id, text).await
    }

    async fn ask(&self, pane: &str) -> Value {
        let pane = self
            .until_pane("a permission ask", pane, |p| {
                p["asks"].as_array().is_some_and(|a| !a.is_empty())
            })
            .await;
        pane["asks"][0].clone()
    }

    async fn answer(&self, pane: &str, id: &str, ask: &Value, option: &str) {
        common::panes::answer(&self.client, pane, id, ask, option)
            .await
            .expect(200, "ok");
    }

    async fn abort(&self, pane: &str, id: &str) {
        let turn = self.pane(pane).await.map(|p| p["turn"]["id"].clone());
        self.client
            .post(
                &pane_path(pane, "abort"),
                json!({"requestId": id, "turnId": turn.unwrap_or(Value::Null)}),
            )
            .await
            .expect(200, "ok");
    }

    /// Waits for the pane's latest turn, the one started by the send that answered `reply`,
    /// to end, and gives its state.
    async fn turn_ends(&self, pane: &str, reply: &Value) -> String {
        let turn = reply["turnId"].as_str().unwrap_or_default().to_string();
        let pane = self
            .until_pane("the turn ends", pane, |p| {
                p["turn"]["id"] == turn.as_str() && p["turn"]["state"] != "running"
            })
            .await;
        pane["turn"]["state"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    async fn items(&self, pane: &str) -> Vec<Value> {
        common::panes::items(&self.client, pane).await
    }

    async fn texts(&self, pane: &str, kind: &str) -> Vec<String> {
        self.items(pane)
            .await
            .iter()
            .filter(|i| i["kind"] == kind)
            .map(|i| i["text"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// How long the slow script's answer has grown in the pane, once it shows.
    async fn long_answer(&self, pane: &str) -> Option<usize> {
        let replies = self.texts(pane, "reply").await;
        replies
            .last()
            .filter(|r| r.starts_with("word0 "))
            .map(String::len)
    }

    /// The model's requests for the prompt that holds `words`.
    fn turns_for(&self, words: &str) -> Vec<Received> {
        self.endpoint
            .turns()
            .into_iter()
            .filter(|r| r.prompt.as_deref().is_some_and(|p| p.contains(words)))
            .collect()
    }
}

async fn host(
    agent: &Agent,
    dir: &Path,
    workspace: &Path,
    endpoint: &ModelEndpoint,
    command: &Path,
    v2: bool,
) -> (AgentProcess, Client) {
    let env = environment(agent, dir, workspace, endpoint);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let socket = dir.join("run").join("agent.sock");
    let spec = format!("{}={}{}", agent.name, command.display(), agent.args);
    let arg = |p: PathBuf| p.display().to_string();
    let (socket, state, log, config) = (
        arg(socket),
        arg(dir.join("state")),
        arg(dir.join("host.log")),
        arg(dir.join("none.toml")),
    );
    let workspace = arg(workspace.to_path_buf());
    let v2_flag = format!("{}=2", agent.name);
    let mut args = vec![
        "agent",
        "--socket",
        &socket,
        "--state",
        &state,
        "--log",
        &log,
        "--config",
        &config,
        "--acp",
        &spec,
        "--workspace",
        &workspace,
    ];
    if v2 {
        args.extend(["--acp-protocol", v2_flag.as_str()]);
    }
    let process = AgentProcess::start_with_env(&args, &env);
    let client = process.client();
    wait_ready(&client).await;
    (process, client)
}

fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

/// Every step of the tier, for one agent.
async fn whole_turns(agent: &'static Agent) {
    whole_turns_on(agent, false).await;
}

/// [`whole_turns`], the host offering ACP v2 when `v2` (docs/ACP.md, "ACP v1 and v2").
async fn whole_turns_on(agent: &'static Agent, v2: bool) {
    let Some(mut tier) = Tier::start_on(agent, v2).await else {
        return;
    };
    let name = agent.name;
    let (answers_v2, tells_commands) = agent.on_v2;

    // A starter opens a pane, and a prompt streams into a reply.
    let pane = tier.start_pane().await;
    let sent = tier.send(&pane, "hello", "say hello").await;
    assert_eq!(tier.turn_ends(&pane, &sent).await, "done");
    assert!(
        tier.texts(&pane, "reply")
            .await
            .contains(&HELLO.to_string())
    );
    assert_eq!(
        tier.turns_for("say hello").len(),
        1,
        "{name} asked the model once"
    );

    // A command asks permission, and Allow once runs it: the file is there, and the turn ends
    // with the model's last words, which it said after it read the command's result.
    let sent = tier.send(&pane, "run", "please touch proof.txt").await;
    let ask = tier.ask(&pane).await;
    assert_eq!(ask["kind"], "permission");
    // The card's first line names the kind and leads with the command (docs/ACP.md, "What a
    // card says"). Gemini CLI sends the command only in its own title, which a card's first
    // line never takes (SPEC A10): its body shows that title as data.
    let title = ask["title"].as_str().unwrap_or_default();
    if name == "gemini" {
        assert!(title.starts_with("execute"), "{title}");
        assert_eq!(ask["permission"]["arguments"]["title"], "touch proof.txt");
    } else {
        // claude-agent-acp names the tool (`Bash`), which a card leads with over the kind.
        let tool = if name == "claude" { "Bash" } else { "execute" };
        assert_eq!(title, format!("{tool}: touch proof.txt"));
    }
    assert!(
        !tier.workspace.join("proof.txt").exists(),
        "nothing runs before the answer"
    );
    tier.answer(&pane, "allow", &ask, "allow-once").await;
    assert_eq!(tier.turn_ends(&pane, &sent).await, "done");
    // A command codex runs in a terminal of its own may still be finishing when the turn ends
    // on a loaded machine; it must be there soon after all the same.
    let made = tier.workspace.join("proof.txt");
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while !made.exists() && std::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        made.exists(),
        "{name} ran the command; the model got {:?}; the pane: {:#?}\nthe host's log:\n{}",
        tier.turns_for("please touch proof.txt")
            .iter()
            .map(|r| r.tool_results.clone())
            .collect::<Vec<_>>(),
        tier.items(&pane).await,
        tail(&tier.log())
    );
    let after = tier.turns_for("please touch proof.txt");
    assert!(
        after.iter().any(|r| !r.tool_results.is_empty()),
        "the model got the command's result: {after:?}"
    );
    let replies = tier.texts(&pane, "reply").await;
    assert_eq!(
        replies.last(),
        Some(&finished("touch proof.txt")),
        "the turn ends with the model's last words"
    );

    // Deny runs nothing, and the pane says it was denied.
    let sent = tier.send(&pane, "deny", "please touch denied.txt").await;
    let ask = tier.ask(&pane).await;
    tier.answer(&pane, "no", &ask, "deny").await;
    tier.turn_ends(&pane, &sent).await;
    assert!(
        !tier.workspace.join("denied.txt").exists(),
        "a denied command never ran"
    );
    let notices = tier.texts(&pane, "notice").await;
    assert!(
        notices
            .iter()
            .any(|n| n.starts_with("Denied: ") && (n.contains("denied.txt") || name == "gemini")),
        "{notices:?}"
    );
    // The model never got the command's output: codex and Claude Code end the turn at a
    // Deny without asking it again, Gemini CLI tells it the call was refused.
    let told = tier.turns_for("denied.txt");
    assert!(
        told.iter()
            .flat_map(|r| &r.tool_results)
            .all(|result| is_refusal(result)),
        "the model got a result for the denied command: {told:?}"
    );
    if name == "codex" {
        assert!(
            notices.iter().any(|n| n
                == "codex ended this turn after the Deny. Send a message to tell it what to do instead."),
            "{notices:?}"
        );
    }

    // An edit asks too, and Allow once writes the file.
    let notes = tier.workspace.join("notes.md");
    let prompt = format!("please write {}", notes.display());
    let sent = tier.send(&pane, "write", &prompt).await;
    let ask = tier.ask(&pane).await;
    let title = ask["title"].as_str().unwrap_or_default();
    if name == "codex" {
        // codex 0.166 offers `gpt-5.4` no `apply_patch`, so the file is written by a command.
        assert!(title.starts_with("execute: printf"), "{title}");
    } else {
        assert!(
            (title.starts_with("edit: ") || title.starts_with("Write: "))
                && title.contains("notes.md"),
            "an edit's card leads with its file: {title}"
        );
    }
    assert!(
        unicode_width::UnicodeWidthStr::width(title) <= 80,
        "{title}"
    );
    tier.answer(&pane, "allow-write", &ask, "allow-once").await;
    assert_eq!(tier.turn_ends(&pane, &sent).await, "done");
    let written = std::fs::read_to_string(&notes).unwrap_or_default();
    assert!(
        written.contains(WRITTEN),
        "{name} wrote the file: {written:?}"
    );

    // The pane carries the agent's settings and every command it offers, and a switch from
    // the phone reaches the agent: judged by what the agent then does, or what it sends.
    let (setting, value, switched) = &agent.switch;
    let shown = tier.pane(&pane).await.expect("the pane");
    let settings = shown["settings"].as_array().cloned().unwrap_or_default();
    let offered = settings
        .iter()
        .find(|s| s["id"] == *setting)
        .unwrap_or_else(|| panic!("{name} offers no {setting}: {settings:?}"));
    assert!(
        offered["choices"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["id"] == *value)),
        "{offered}"
    );
    if !v2 || tells_commands {
        assert!(
            shown["commands"].as_array().is_some_and(|c| !c.is_empty()),
            "{name}'s commands reach the pane: {shown}"
        );
    }
    if name == "gemini" {
        // Its subcommands keep their words, so `/memory show` is what a phone sends.
        assert!(
            shown["commands"]
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c["name"] == "memory show")),
            "{}",
            shown["commands"]
        );
    }
    tier.client
        .post(
            &pane_path(&pane, "setting"),
            json!({"requestId": "switch", "settingId": setting, "value": value}),
        )
        .await
        .expect(200, "ok");
    tier.until_pane("the agent took the switch", &pane, |p| {
        p["settings"].as_array().is_some_and(|s| {
            s.iter()
                .any(|s| s["id"] == *setting && s["current"] == *value)
        })
    })
    .await;
    match switched {
        Switched::WritesWithoutAsking => {
            let free = tier.workspace.join("unasked.md");
            let prompt = format!("please write {}", free.display());
            let sent = tier.send(&pane, "unasked", &prompt).await;
            assert_eq!(tier.turn_ends(&pane, &sent).await, "done");
            let written = std::fs::read_to_string(&free).unwrap_or_default();
            assert!(
                written.contains(WRITTEN),
                "{name} wrote without asking: {written:?}"
            );
            let notices = tier.texts(&pane, "notice").await;
            assert!(
                !notices
                    .iter()
                    .any(|n| n.starts_with("Allowed: ") && n.contains("unasked.md")),
                "no permission was asked: {notices:?}"
            );
        }
        Switched::ModelGets(pointer, expected) => {
            let sent = tier.send(&pane, "effort", "say hello with effort").await;
            assert_eq!(tier.turn_ends(&pane, &sent).await, "done");
            let asked = tier.turns_for("say hello with effort");
            assert!(
                asked
                    .iter()
                    .any(|r| r.body.pointer(pointer) == Some(&json!(expected))),
                "the model got {pointer} = {expected}: {:?}",
                asked
                    .iter()
                    .map(|r| r.body.pointer(pointer))
                    .collect::<Vec<_>>()
            );
        }
    }

    // A stop lands mid-stream: the reply had grown, then stops growing, the turn is aborted,
    // and the agent hung up on the model's stream.
    let sent = tier.send(&pane, "slow", "answer slow please").await;
    let first = eventually("the long answer's first words", WAIT, || {
        tier.long_answer(&pane)
    })
    .await;
    eventually("the long answer grows", WAIT, || async {
        tier.long_answer(&pane).await.filter(|now| *now > first)
    })
    .await;
    tier.abort(&pane, "stop").await;
    assert_eq!(tier.turn_ends(&pane, &sent).await, "aborted");
    eventually("the agent hangs up on the model", WAIT, || async {
        tier.turns_for("answer slow please")
            .iter()
            .any(|r| r.hung_up)
            .then_some(())
    })
    .await;
    let stopped = tier.long_answer(&pane).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        tier.long_answer(&pane).await,
        stopped,
        "nothing streams after the stop"
    );

    // The person goes back to the mode that asks before the restart (Claude Code's
    // acceptEdits lets `touch` through unasked, as its name says).
    let mode_before = shown["settings"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["id"] == "mode"))
        .map(|s| s["current"].clone());
    if *setting == "mode"
        && let Some(asking) = &mode_before
    {
        tier.client
            .post(
                &pane_path(&pane, "setting"),
                json!({"requestId": "switch-back", "settingId": "mode", "value": asking}),
            )
            .await
            .expect(200, "ok");
        tier.until_pane("the agent took the switch back", &pane, |p| {
            p["settings"].as_array().is_some_and(|s| {
                s.iter()
                    .any(|s| s["id"] == "mode" && s["current"] == *asking)
            })
        })
        .await;
    }

    // A host restart loads the session, and the next turn carries the whole conversation.
    tier.restart().await;
    tier.until_pane("the pane is back", &pane, |p| p["state"] == "idle")
        .await;
    let sent = tier.send(&pane, "again", "say hello again").await;
    assert_eq!(tier.turn_ends(&pane, &sent).await, "done");
    let notices = tier.texts(&pane, "notice").await;
    let next = tier.turns_for("say hello again");
    let remembered = next
        .iter()
        .any(|r| r.text.contains("please touch proof.txt"));
    if let Some(again) = agent.again {
        assert!(notices.iter().any(|n| n == again), "{notices:?}");
        assert!(
            remembered,
            "the loaded session sent the earlier turns to the model"
        );
    } else if notices.contains(&format!("{name} loaded this conversation again.")) {
        // Gemini CLI 0.61.0's load finds the session's record on some runs and not on
        // others (docs/ACP.md): whichever the pane says must be true.
        assert!(
            remembered,
            "the pane says loaded, but the model got no earlier turn"
        );
    } else {
        // The pane's word is true: the fresh session does not carry the earlier turns.
        assert!(
            notices.contains(&format!("{name} did not keep its earlier session of this conversation, so it starts a fresh one here: it does not remember what was said before.")),
            "{notices:?}"
        );
        assert!(
            !remembered,
            "a fresh session that remembers: the notice would be wrong"
        );
    }
    // After the restart the session is in the mode the pane was in, not the one the agent
    // resumes in on its own (codex-acp 2.6.0 resumed a read-only session as workspace-write
    // and ran a command unasked): a command still asks, and runs nothing before the answer.
    if let Some(mode) = mode_before {
        let back = tier.pane(&pane).await.expect("the pane");
        let now = back["settings"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["id"] == "mode"))
            .map(|s| s["current"].clone());
        assert_eq!(now, Some(mode), "{name}'s mode after the restart: {back}");
    }
    let sent = tier
        .send(&pane, "after-restart", "please touch after-restart.txt")
        .await;
    let ask = tier.ask(&pane).await;
    assert_eq!(ask["kind"], "permission", "{name} asks after the restart");
    assert!(
        !tier.workspace.join("after-restart.txt").exists(),
        "nothing runs before the answer, after a restart too"
    );
    tier.answer(&pane, "no-after-restart", &ask, "deny").await;
    tier.turn_ends(&pane, &sent).await;
    assert!(!tier.workspace.join("after-restart.txt").exists());
    if v2 {
        // Offered 2: it ran on the version it answered.
        let spoken = if answers_v2 {
            "the agent speaks ACP v2"
        } else {
            "offered ACP v2, the agent answered 1: it runs on v1"
        };
        assert!(tier.log().contains(spoken), "{name}: {}", tail(&tier.log()));
    }
    eprintln!(
        "{name}: {} requests to the model, {} CONNECTs refused ({:?})",
        tier.endpoint.received().len(),
        tier.endpoint.connects().len(),
        tier.endpoint.connects()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_runs_whole_turns_behind_the_host() {
    whole_turns(&CODEX).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_runs_whole_turns_behind_the_host() {
    whole_turns(&CLAUDE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_runs_whole_turns_behind_the_host() {
    whole_turns(&GEMINI).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_runs_whole_turns_behind_the_host_on_acp_v2() {
    whole_turns_on(&CODEX, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_runs_whole_turns_behind_the_host_on_acp_v2() {
    whole_turns_on(&CLAUDE, true).await;
}

/// Offered 2, Gemini CLI answers 1: the whole tier on v1, over the same process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_offered_acp_v2_runs_whole_turns_on_v1() {
    whole_turns_on(&GEMINI, true).await;
}

/// Claude's AskUserQuestion reaches the phone as a form card (the host offers
/// `elicitation.form`), and the option chosen there is what the model reads as the answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claudes_question_answered_from_a_card_reaches_the_model_as_the_chosen_option() {
    let Some(tier) = Tier::start(&CLAUDE).await else {
        return;
    };
    let pane = tier.start_pane().await;
    let sent = tier
        .send(&pane, "ask", "please ask me which database to use")
        .await;
    let ask = tier.ask(&pane).await;
    let (question, [_, chosen]) = ASKED;
    assert_eq!(ask["kind"], "form", "{ask}");
    assert_eq!(ask["title"], format!("AskUserQuestion: {question}"));
    let field = &ask["form"]["fields"][0];
    let option = field["options"]
        .as_array()
        .and_then(|o| {
            o.iter()
                .find(|o| o["label"].as_str().is_some_and(|l| l.starts_with(chosen)))
        })
        .unwrap_or_else(|| panic!("{chosen} is an option: {field}"))["id"]
        .clone();
    tier.client
        .post(
            &pane_path(&pane, "answer"),
            json!({"requestId": "pick", "askId": ask["id"], "revision": ask["revision"],
                   "answer": {"values": {field["id"].as_str().unwrap_or_default(): option}}}),
        )
        .await
        .expect(200, "ok");
    assert_eq!(tier.turn_ends(&pane, &sent).await, "done");
    let results: Vec<String> = tier
        .turns_for("ask me which database")
        .into_iter()
        .flat_map(|r| r.tool_results)
        .collect();
    assert!(
        results
            .iter()
            .any(|r| r.contains(chosen) && !r.contains("Postgres")),
        "the model read the chosen option, and only it: {results:?}"
    );
    eprintln!("claude's question: the model got {results:?}");
    eprintln!(
        "claude (question): {} requests to the model",
        tier.endpoint.received().len()
    );
}
