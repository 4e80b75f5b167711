//! `collie-phone check --acp COMMAND`: a conformance check of an ACP agent (JSON-RPC 2.0 over
//! the agent's stdio), rule by rule of the P family of docs/SPEC.md, reported like `check`
//! (the same table, `--json`, `--junit` and exit codes: `check::report`).
//!
//! # How it fits together
//!
//! - `driver.rs` starts the agent as the ACP host does (the command split like a shell line,
//!   never through a shell; its stderr to a log file) and speaks JSON-RPC line by line, so the
//!   stream itself can be judged (P1, P2). It answers what the agent asks as a careful client:
//!   every permission rejected (or held, to be cancelled), every question declined, no file
//!   system and no terminal.
//! - `session_rules.rs` runs what needs no model: `initialize`, sessions, modes and options, an
//!   idle cancel, the end of stdin (P3–P11). `turn_rules.rs` runs the turns of `--prompt` (P12–
//!   P15). `shapes.rs` judges shapes with the schema types of `agent-client-protocol`.
//! - Each rule collects what it saw and what broke it in [`Rulings`]; each rule is one line of
//!   the report (one JUnit testcase): failed when anything broke it, passed with what it saw,
//!   or skipped with why it could not run. A rule is never passed unseen: past a sign-in the
//!   rules say "not run: sign in first".

mod driver;
mod session_rules;
mod shapes;
mod turn_rules;
mod v2_rules;
mod v2_shapes;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::check::report::{Report, Tier};
use crate::check::{Finding, Verdict};
use crate::transport::own_files;

/// The rules of the P family, in the order they are reported: (id, tier, what it asks). The
/// tiers are the official kit's (acp-tck) where a rule covers one of its requirements, as
/// the map of the kit in docs/SPEC.md ("ACP agents (P)") says.
pub(crate) const RULES: &[(&str, Tier, &str)] = &[
    (
        "P1",
        Tier::Mandatory,
        "stdout carries only JSON-RPC 2.0 messages, one a line, and notifications carry no id",
    ),
    (
        "P2",
        Tier::Mandatory,
        "every request gets exactly one answer with its id, and error codes are in range",
    ),
    (
        "P3",
        Tier::Mandatory,
        "initialize answers the version asked, else the latest the agent speaks, with capabilities of the right shape",
    ),
    (
        "P4",
        Tier::Advisory,
        "an agent that wants a sign-in names its ways to sign in (authMethods)",
    ),
    (
        "P5",
        Tier::Mandatory,
        "session/new gives a session id, and session/list lists sessions with their cwd",
    ),
    (
        "P6",
        Tier::Capability,
        "session/load and session/resume of an unknown session fail with -32002",
    ),
    (
        "P7",
        Tier::Capability,
        "a loaded session replays its conversation before session/load answers",
    ),
    ("P8", Tier::Capability, "a closed session takes no prompt"),
    (
        "P9",
        Tier::Capability,
        "session/set_mode and session/set_config_option take the values offered and refuse others",
    ),
    (
        "P10",
        Tier::Advisory,
        "session/cancel on an idle session is harmless",
    ),
    (
        "P11",
        Tier::Advisory,
        "closing stdin ends the agent within 5 s",
    ),
    (
        "P12",
        Tier::Mandatory,
        "a turn's updates belong to its session and are well formed",
    ),
    (
        "P13",
        Tier::Capability,
        "permission requests and questions are well formed, and their answers are taken",
    ),
    (
        "P14",
        Tier::Mandatory,
        "session/cancel ends a running turn with stopReason cancelled within 5 s",
    ),
    (
        "P15",
        Tier::Advisory,
        "a late answer, a second cancel and $/cancel_request do not break the agent",
    ),
    (
        "P16",
        Tier::Informational,
        "what the agent wrote on stderr is read and kept for the person, never judged",
    ),
];

/// The rules whose words differ in ACP v2 (`--protocol 2`): v2 has no `session/load` nor
/// `session/set_mode`, and a turn ends with an idle `state_update`, not the prompt's answer.
const V2_TITLES: &[(&str, &str)] = &[
    (
        "P6",
        "session/resume of an unknown session fails with -32002",
    ),
    (
        "P7",
        "a resumed session replays its conversation (replayFrom) before session/resume answers",
    ),
    (
        "P9",
        "session/set_config_option takes the values offered and refuses others",
    ),
    (
        "P12",
        "a turn is acknowledged with a messageId, runs, and goes idle with a stop reason; its updates belong to its session and are well formed",
    ),
    (
        "P14",
        "session/cancel ends a running turn idle with stopReason cancelled within 5 s",
    ),
];

/// Why a rule past a sign-in did not run.
pub(crate) const SIGN_IN_FIRST: &str = "not run: sign in first (session/new answered auth_required, -32000); run the agent once in a terminal to sign in, then check again";

/// How long a plain request may take.
pub(crate) const REQUEST: Duration = Duration::from_secs(15);
/// How long `initialize` may take: a program started through npx may install first.
pub(crate) const INITIALIZE: Duration = Duration::from_secs(60);

/// What to check and how.
#[derive(Debug, Clone)]
pub struct AcpOptions {
    /// The program and its arguments.
    pub command: Vec<String>,
    /// How the report names the agent (the command as given, or its config name).
    pub shown: String,
    /// The folder its sessions work in; a scratch folder of the check's own when `None`.
    pub workspace: Option<PathBuf>,
    /// The prompts of the turn rules (P12–P15); none skips them.
    pub prompts: Vec<String>,
    /// The mode the turns' session is switched to first (`--mode`), e.g. one that asks
    /// before it acts, so the turns show permission requests.
    pub mode: Option<String>,
    /// The ACP version the check asks for and judges by: 1, or the draft 2 (SPEC P says
    /// what each rule asks in v2's terms).
    pub protocol: u16,
    /// Where the agent's stderr goes; `None` puts it in the check's private scratch folder
    /// (0700, a random name), where it stays for the person to read once the check is done.
    pub log: Option<PathBuf>,
}

/// The agent could not be started at all, so nothing was checked.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct Unstartable(pub String);

/// What each rule saw and what broke it; one finding per rule at the end.
#[derive(Default)]
pub(crate) struct Rulings {
    rules: Vec<(&'static str, Ruling)>,
    /// The rules were asked in ACP v2's terms, and are titled so.
    v2: bool,
}

#[derive(Default)]
struct Ruling {
    seen: Vec<String>,
    faults: Vec<String>,
    not_run: Option<String>,
}

impl Rulings {
    fn ruling(&mut self, rule: &'static str) -> &mut Ruling {
        let at = match self.rules.iter().position(|(id, _)| *id == rule) {
            Some(at) => at,
            None => {
                self.rules.push((rule, Ruling::default()));
                self.rules.len() - 1
            }
        };
        &mut self.rules[at].1
    }

    /// Something the rule checked and found right.
    pub(crate) fn saw(&mut self, rule: &'static str, what: impl Into<String>) {
        self.ruling(rule).seen.push(what.into());
    }

    /// Something that breaks the rule: what was sent, what came back, what ACP asks.
    pub(crate) fn fault(&mut self, rule: &'static str, why: impl Into<String>) {
        self.ruling(rule).faults.push(why.into());
    }

    /// `Ok(seen)` or `Err(fault)`.
    pub(crate) fn judge(&mut self, rule: &'static str, result: Result<String, String>) {
        match result {
            Ok(seen) => self.saw(rule, seen),
            Err(fault) => self.fault(rule, fault),
        }
    }

    /// Why (part of) the rule could not run; the first reason given stays.
    pub(crate) fn not_run(&mut self, rule: &'static str, why: impl Into<String>) {
        let ruling = self.ruling(rule);
        if ruling.not_run.is_none() {
            ruling.not_run = Some(why.into());
        }
    }

    /// Why a rule did not run, when nothing else was said of it.
    pub(crate) fn settle(&mut self, rule: &'static str, why: impl Into<String>) {
        let ruling = self.ruling(rule);
        if ruling.seen.is_empty() && ruling.faults.is_empty() && ruling.not_run.is_none() {
            ruling.not_run = Some(why.into());
        }
    }

    /// One finding per rule of [`RULES`], in their order.
    fn findings(mut self) -> Vec<Finding> {
        RULES
            .iter()
            .map(|(id, _, title)| {
                let title = V2_TITLES
                    .iter()
                    .find(|(rule, _)| self.v2 && rule == id)
                    .map_or(*title, |(_, v2)| *v2);
                let ruling = std::mem::take(self.ruling(id));
                let verdict = if !ruling.faults.is_empty() {
                    Verdict::Fail(ruling.faults.join("; "))
                } else if !ruling.seen.is_empty() {
                    Verdict::Pass
                } else {
                    Verdict::Skipped(
                        ruling
                            .not_run
                            .clone()
                            .unwrap_or_else(|| "not run: the check did not reach it".into()),
                    )
                };
                let what = match (&verdict, ruling.seen.is_empty()) {
                    (Verdict::Pass, false) => {
                        let mut what = format!("{title} ({})", ruling.seen.join("; "));
                        if let Some(partly) = &ruling.not_run {
                            what.push_str(&format!("; {partly}"));
                        }
                        what
                    }
                    _ => title.to_string(),
                };
                Finding {
                    rule: id,
                    what,
                    verdict,
                }
            })
            .collect()
    }
}

/// Runs every rule against the agent `options` names and gives the report.
pub fn run(options: AcpOptions) -> Result<Report, Unstartable> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|error| Unstartable(format!("the check could not start its runtime: {error}")))?;
    let scratch = Scratch::new(options.log.is_none())?;
    let log_path = options
        .log
        .clone()
        .unwrap_or_else(|| scratch.folder.join(LOG_FILE));
    // The agent may print secrets (an API key) on stderr: the log is the person's alone,
    // never opened through a planted symlink (SPEC S9).
    let log = own_files::open_own(&log_path, true).map_err(|error| {
        Unstartable(format!(
            "cannot open the log file {} for the agent's stderr: {error}",
            log_path.display()
        ))
    })?;
    let log = Arc::new(Mutex::new(log));
    let workspace = match &options.workspace {
        Some(dir) => dir.canonicalize().map_err(|error| {
            Unstartable(format!(
                "the workspace {} cannot be used: {error}",
                dir.display()
            ))
        })?,
        None => scratch.workspace()?,
    };
    let (rulings, version) = runtime.block_on(check(&options, &workspace, log))?;
    Ok(Report::acp(
        &options.shown,
        version,
        !options.prompts.is_empty(),
        &log_path,
        rulings.findings(),
        RULES.iter().map(|(id, tier, _)| (*id, *tier)).collect(),
    ))
}

/// Every rule in the order they can run: one process for the session rules and the turns,
/// ended by closing its stdin; then a second to load the prompted session, as a host that
/// restarted does (the first is gone by then, as it would be); a third offered a newer
/// protocol version than any there is.
async fn check(
    options: &AcpOptions,
    workspace: &Path,
    log: Arc<Mutex<File>>,
) -> Result<(Rulings, u16), Unstartable> {
    let mut rulings = Rulings::default();
    let start = |label| driver::Driver::start(label, &options.command, workspace, Arc::clone(&log));
    if options.protocol == 2 {
        rulings.v2 = true;
        let version = v2_rules::check(start, workspace, &options.prompts, &mut rulings).await;
        return Ok((rulings, version));
    }
    let mut first = start("the first process").map_err(Unstartable)?;
    let (setup, version) = session_rules::open(&mut first, workspace, &mut rulings).await;
    let mut turned = None;
    if let Some(setup) = &setup {
        session_rules::idle(&mut first, setup, workspace, &mut rulings).await;
        turned = turn_rules::turns(
            &mut first,
            setup,
            workspace,
            &options.prompts,
            options.mode.as_deref(),
            &mut rulings,
        )
        .await;
        if let Some((session, true)) = &turned {
            session_rules::listed(&mut first, setup, workspace, session, &mut rulings).await;
        }
        if let (Some((session, _)), Some(text)) = (&turned, options.prompts.first()) {
            turn_rules::cancel(&mut first, session, text, &mut rulings).await;
        }
    }
    session_rules::end_of_stdin(&mut first, &mut rulings).await;
    let mut drivers = vec![first];
    if let Some(setup) = &setup {
        match turned {
            Some((session, true)) if setup.abilities.load => match start("the second process") {
                Ok(mut second) => {
                    session_rules::load(&mut second, workspace, &session, &mut rulings).await;
                    drivers.push(second);
                }
                Err(why) => rulings.fault("P7", format!("a second process: {why}")),
            },
            Some((_, true)) => {
                rulings.not_run("P7", "not run: the agent does not offer loadSession");
            }
            _ => {
                let why = if setup.signed_out {
                    SIGN_IN_FIRST.to_string()
                } else if options.prompts.is_empty() {
                    "not run: needs a prompted session: run with --prompt TEXT".to_string()
                } else if turned.is_none() {
                    "not run: no turn ran, so no session was prompted (P12 says why)".to_string()
                } else {
                    "not run: no turn ended, so no session was prompted".to_string()
                };
                rulings.not_run("P5", format!("session/list {why}"));
                rulings.not_run("P7", why);
            }
        }
    }
    match start("the third process") {
        Ok(mut third) => {
            let asked_one = (version > 0).then_some(u64::from(version));
            session_rules::newer_version(&mut third, asked_one, &mut rulings).await;
            drivers.push(third);
        }
        Err(why) => rulings.fault("P3", format!("a third process: {why}")),
    }
    // The first process alone is judged on its end (P11); the others get a moment to end on
    // their own, then are killed.
    for other in drivers.iter_mut().skip(1) {
        other.close(Duration::from_secs(1)).await;
    }
    session_rules::stream(&drivers, &mut rulings);
    session_rules::stderr_read(&drivers, &mut rulings).await;
    rulings.settle(
        "P4",
        "not run: the agent asked for no sign-in, so it had none to name",
    );
    Ok((rulings, version))
}

/// The log's name in the scratch folder.
const LOG_FILE: &str = "agent.log";

/// The check's own folder in the temp folder: 0700 under a random name, so nobody else can
/// read the agent's stderr, guess the name or plant a link in it (SPEC S9). The agents'
/// sessions work in its `workspace/`, removed at the end; the log stays for the person (the
/// report's first line names it), and with the log elsewhere (`--log`) the folder goes whole.
struct Scratch {
    folder: PathBuf,
    keep_folder: bool,
}

impl Scratch {
    fn new(keep_folder: bool) -> Result<Self, Unstartable> {
        let made = own_files::scratch_dir("collie-check-acp-")
            .map_err(|error| Unstartable(format!("cannot make a scratch folder: {error}")))?;
        let folder = made.keep().canonicalize().map_err(|error| {
            Unstartable(format!("cannot find the scratch folder again: {error}"))
        })?;
        Ok(Self {
            folder,
            keep_folder,
        })
    }

    /// The sessions' folder, made 0700 inside the scratch folder.
    fn workspace(&self) -> Result<PathBuf, Unstartable> {
        let dir = self.folder.join("workspace");
        own_files::make_private_dir(&dir)
            .map(|()| dir)
            .map_err(|refused| Unstartable(format!("cannot make a scratch folder: {refused}")))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.folder.join("workspace"));
        if !self.keep_folder {
            let _ = std::fs::remove_dir_all(&self.folder);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_one_finding_in_order_and_never_passed_unseen() {
        let mut rulings = Rulings::default();
        rulings.saw("P3", "answered 1");
        rulings.fault("P1", "a stray line");
        rulings.saw("P1", "12 lines");
        rulings.not_run("P4", "no sign-in");
        let findings = rulings.findings();
        assert_eq!(findings.len(), RULES.len());
        assert_eq!(findings[0].rule, "P1");
        assert!(matches!(findings[0].verdict, Verdict::Fail(_)));
        assert!(matches!(findings[2].verdict, Verdict::Pass));
        assert!(findings[2].what.contains("answered 1"));
        assert_eq!(findings[3].verdict, Verdict::Skipped("no sign-in".into()));
        assert!(matches!(findings[14].verdict, Verdict::Skipped(_)));
        assert_eq!(findings[15].rule, "P16");
    }

    /// SPEC P3 judged by the version asked: a stand-in agent in sh that answers every request
    /// as a v2-only agent answers `initialize` (2, whatever was offered). Offered 1, its 2 is
    /// no fault; nothing past `initialize` speaks v2, so the MANDATORY rules that could not
    /// run keep the run from conforming, and the report names the version it answered.
    #[test]
    fn p3_a_v2_only_agent_answers_2_and_the_v1_rules_it_cannot_take_are_not_a_pass() {
        let script = r#"while read -r line; do
id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
[ -n "$id" ] && printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":2,"info":{"name":"v2-only","version":"0"},"capabilities":{"session":{}},"authMethods":[{"methodId":"x","name":"x"}]}}\n' "$id"
done
"#;
        let report = run(AcpOptions {
            command: vec!["sh".into(), "-c".into(), script.into()],
            shown: "v2-only".into(),
            workspace: None,
            prompts: vec!["hello".into()],
            mode: None,
            protocol: 1,
            log: None,
        })
        .expect("it starts");
        let table = report.table();
        assert!(table.contains("(ACP v2;"), "{table}");
        let finding = |rule: &str| {
            report
                .findings
                .iter()
                .find(|f| f.rule == rule)
                .expect("every rule is reported")
        };
        assert_eq!(finding("P3").verdict, Verdict::Pass, "{table}");
        assert!(
            finding("P3").what.contains("offered 1, answered 2"),
            "{table}"
        );
        assert!(
            finding("P3").what.contains("offered 999, answered 2"),
            "{table}"
        );
        for rule in ["P1", "P2", "P11", "P16"] {
            assert_eq!(finding(rule).verdict, Verdict::Pass, "{table}");
        }
        assert!(
            matches!(&finding("P12").verdict, Verdict::Skipped(why) if why.contains("answered 2")),
            "{table}"
        );
        let verdict = report.conformance().expect("an ACP run");
        assert!(!verdict.conformant);
        assert!(verdict.failed.is_empty(), "{verdict:?}");
        assert_eq!(verdict.not_run, ["P5", "P12", "P14"]);
    }

    /// The tiers and the map of the official kit in docs/SPEC.md say what `check --acp` does:
    /// each rule's tier there is its tier here, and every rule a kit id is mapped to is one
    /// of ours.
    #[test]
    fn the_kit_map_names_our_rules_with_their_tiers() {
        let book = include_str!("../../../../docs/SPEC.md");
        let tier_of = |id: &str| {
            RULES
                .iter()
                .find(|(rule, _, _)| *rule == id)
                .map(|(_, tier, _)| tier.name())
        };
        let rule_ids = rule_ids();
        // The tier table: `| P1 | MANDATORY | | P9 | CAPABILITY (…) |`, two rules a row.
        let mut tiered = Vec::new();
        for line in book.lines().filter(|l| l.starts_with("| P")) {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            for pair in cells[1..].chunks(3).filter(|c| c.len() >= 2) {
                let (rule, tier) = (pair[0], pair[1]);
                if rule_ids(rule) == [rule] {
                    let tier = tier.split(' ').next().unwrap_or_default();
                    assert_eq!(tier_of(rule), Some(tier), "{rule} in the tier table");
                    tiered.push(rule.to_string());
                }
            }
        }
        let mut all: Vec<String> = RULES.iter().map(|(id, _, _)| id.to_string()).collect();
        tiered.sort();
        all.sort();
        assert_eq!(tiered, all, "every rule has its tier in the table, once");
        // The kit's rows: `| ACP-… | TIER | what | ours |`, v1's table then v2's; each id
        // of the kit's registries once in its table, and no other (the ids as the kit's
        // requirements.py files named them when the map was made: SPEC says which).
        let v2_at = book.find("v2 (acp-tck's").expect("the v2 table");
        let mut ids: [Vec<String>; 2] = [Vec::new(), Vec::new()];
        let mut at = 0;
        for line in book.split_inclusive('\n') {
            let version = usize::from(at >= v2_at);
            at += line.len();
            let Some(cell) = line.strip_prefix("| ").and_then(|l| l.split(" |").next()) else {
                continue;
            };
            if !cell.starts_with("ACP-") {
                continue;
            }
            // `ACP-CANCEL-201, -203, ACP-PATCH-208`: a bare number is of the id before it.
            let mut area = "";
            for part in cell.split(", ") {
                if part.starts_with('-') {
                    ids[version].push(format!("{area}{part}"));
                } else {
                    area = &part[..part.rfind('-').unwrap_or_default()];
                    ids[version].push(part.to_string());
                }
            }
        }
        for (version, kit) in [(0, KIT_V1), (1, KIT_V2)] {
            let mut expected: Vec<String> = kit.split(' ').map(|id| format!("ACP-{id}")).collect();
            let mut mapped = ids[version].clone();
            expected.sort();
            mapped.sort();
            assert_eq!(mapped, expected, "the map of v{}", version + 1);
        }
        let mut rows = 0;
        for line in book.lines().filter(|l| l.starts_with("| ACP-")) {
            rows += 1;
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            assert!(
                ["MANDATORY", "CAPABILITY", "ADVISORY", "INFORMATIONAL"].contains(&cells[2]),
                "{line}"
            );
            for id in rule_ids(cells[4]) {
                assert!(
                    tier_of(&id).is_some(),
                    "{id} is no rule of check --acp: {line}"
                );
            }
        }
        assert!(rows >= 100, "the map lost its rows: {rows}");
    }

    /// The requirement ids of acp-tck's v1 registry (`src/tck/v1/requirements.py`), without
    /// their `ACP-`.
    const KIT_V1: &str = "TRANSPORT-001 TRANSPORT-002 JSONRPC-001 JSONRPC-002 JSONRPC-003 JSONRPC-004 JSONRPC-005 INIT-001 INIT-002 INIT-003 INIT-004 SCHEMA-001 SESSION-001 SESSION-002 PROMPT-001 PROMPT-002 PROMPT-003 CANCEL-001 CANCEL-002 LOAD-001 LOAD-002 LOAD-003 RESUME-001 RESUME-002 LIST-001 LIST-002 DELETE-001 DELETE-002 CLOSE-001 CLOSE-002 ADDDIRS-001 MODES-001 MODES-002 CONFIG-001 CONFIG-002 CONFIG-003 PROMPTCAP-001 PROMPTCAP-002 PROMPTCAP-003 AUTH-001 AUTH-002 AUTH-003 AUTH-004 AUTH-005 CLIENTCAP-001 CLIENTCAP-002 CLIENTCAP-003 EXT-001 META-001 ERROR-001 SHUTDOWN-001 SCHEMA-002 STDERR-001 INFO-PARSE-001 INFO-INVALIDREQ-001 INFO-UNKNOWNSESSION-001";
    /// The requirement ids of acp-tck's v2 registry (`src/tck/v2/requirements.py`).
    const KIT_V2: &str = "INIT-001 INIT-201 INIT-003 INIT-202 INIT-203 INIT-204 SCHEMA-001 SESSION-001 SESSION-002 PROMPT-205 PROMPT-201 PROMPT-203 STATE-201 STATE-202 STATE-203 PROMPTCAP-001 PROMPTCAP-002 PROMPTCAP-003 PROMPT-003 PERM-201 CLIENTCAP-201 CLIENTCAP-202 INFO-CONCURRENT-201 INFO-UNKNOWNSESSION-001 CANCEL-201 CANCEL-202 CANCEL-203 CANCEL-204 CANCEL-205 CANCEL-206 CANCEL-207 CANCEL-208 INFO-CANCEL-201 INFO-CANCEL-202 TRANSPORT-201 TRANSPORT-002 TRANSPORT-203 JSONRPC-001 JSONRPC-002 JSONRPC-003 JSONRPC-004 JSONRPC-005 BATCH-201 BATCH-202 BATCH-203 BATCH-204 BATCH-205 BATCH-206 BATCH-207 BATCH-208 INFO-BATCH-201 INFO-BATCH-202 SESSION-203 RESUME-201 RESUME-202 RESUME-203 RESUME-204 RESUME-205 LIST-201 LIST-202 LIST-203 LIST-204 CLOSE-201 CLOSE-202 DELETE-201 DELETE-202 DELETE-203 ADDDIRS-201 ADDDIRS-202 MCP-201 MCP-202 CONFIG-201 CONFIG-202 CONFIG-203 CONFIG-204 CONFIG-206 AUTH-201 AUTH-202 AUTH-203 AUTH-204 AUTH-205 AUTH-206 AUTH-207 PATCH-201 PATCH-203 PATCH-204 PATCH-205 PATCH-206 PATCH-207 PATCH-208 PATCH-209 ENUM-201 ENUM-202 ENUM-203 EXT-001 META-001 META-201 EXT-201 EXT-202 EXT-203 ERROR-001 SHUTDOWN-001 SCHEMA-002 STDERR-001 INFO-PARSE-001 INFO-INVALIDREQ-001";

    /// The rule ids (`P<n>`) a cell names.
    fn rule_ids() -> impl Fn(&str) -> Vec<String> {
        |cell: &str| {
            cell.split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|word| {
                    word.len() > 1
                        && word.starts_with('P')
                        && word[1..].chars().all(|c| c.is_ascii_digit())
                })
                .map(str::to_string)
                .collect()
        }
    }
}
