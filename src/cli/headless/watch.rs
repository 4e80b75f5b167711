//! `collie-phone watch`: what happens, as it happens, until stopped by SIGINT or SIGTERM or a
//! closed stdout. With `--json`, one JSON object per line (NDJSON), flushed at once: agent
//! states, hellos, new epochs, layouts, every pane event as the wire has it, and the ask
//! changes derived from them (opened, changed, closed), as the phone's inbox sees them.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use serde_json::{Value, json};

use super::args::ScriptArgs;
use super::journal_hold::JournalHold;
use super::link::Link;
use super::out::{self, Failure};
use super::watch_notify::Notifier;
use crate::chat::pane_log::ChatEntry;
use crate::engine::{AgentChange, AgentSpec, FromEngine};
use crate::model::agents::AgentView;
use crate::transport::Endpoint;
use crate::transport::privacy::missing_socket;
use crate::wire::{Ask, Event, EventType};

/// How often to notice that the reader of stdout went away while nothing was printed.
const STDOUT_CHECK: Duration = Duration::from_secs(1);

const WATCH_HELP: &str = "Exit codes:
  0  stopped by SIGINT or SIGTERM, or stdout was closed
  1  an error (the message says which)
  2  bad arguments
  8  no agent to watch: each socket named is missing and cannot appear (its folder is not there,
     when the watch starts or, for 2 s, while it runs)

With --json every line is one object with a \"type\": status, hello, new-epoch, snapshot,
event, pane-view, ask-opened, ask-changed, ask-closed, or (with --notify) notify.

With --notify the config's [notify] command runs as the phone runs it for a person away from
the screen, with one JSON object on its stdin (docs/CONFIG.md, \"Rings\").";

#[derive(Debug, Args)]
#[command(after_help = WATCH_HELP)]
pub(crate) struct WatchArgs {
    #[command(flatten)]
    pub(crate) common: ScriptArgs,
    /// Ring as the phone does for a person away from it: run the config's `[notify]` command
    /// for each new ask, ask about to expire and whatever else `[notify]` sets to ring.
    #[arg(long)]
    pub(crate) notify: bool,
}

pub(crate) fn run(args: WatchArgs) -> anyhow::Result<ExitCode> {
    let runtime = crate::cli::runtime()?;
    match runtime.block_on(watch(&args)) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(failure) => out::finish(args.common.json, Err(failure)),
    }
}

/// One line of output, in both forms.
struct Entry {
    json: Value,
    text: String,
}

/// The open asks last printed, by agent, pane and ask id.
type Known = BTreeMap<(String, String, String), Ask>;

async fn watch(args: &WatchArgs) -> Result<(), Failure> {
    // Listening before anything is printed, so a signal right after the first line is kept.
    let stop = crate::cli::signal::shutdown_signal();
    tokio::pin!(stop);
    let config = args.common.connect.read_config()?;
    let mut specs = args.common.connect.agents(&config)?;
    if let Some(name) = &args.common.agent {
        specs = vec![args.common.connect.one_agent(&config, Some(name))?];
    }
    let specs = without_sockets_that_cannot_appear(specs).await?;
    let mut notifier = if args.notify {
        let rules = config.settings().rings.clone();
        if rules.command.is_empty() {
            return Err(Failure::new(
                super::exit::Exit::BadArguments,
                format!(
                    "watch --notify needs a command to run: set [notify] command = [\"ntfy\", \"publish\", \"mytopic\"] (an argv) in {}",
                    config.path().display()
                ),
            ));
        }
        Some(Notifier::new(rules, &specs))
    } else {
        None
    };
    let mut folders = FolderWatch::new(&specs);
    // Watching sends nothing, so the shared receipts stay untouched (see journal_hold).
    let journal = JournalHold::scratch()?;
    let mut link = Link::open(specs, journal, args.common.record.record.clone())?;
    let mut known = Known::new();
    let mut check = tokio::time::interval(STDOUT_CHECK);
    loop {
        tokio::select! {
            () = &mut stop => break,
            _ = check.tick() => {
                if stdout_is_closed() {
                    tracing::info!("stdout was closed: stopping");
                    break;
                }
                folders.look()?;
                if let Some(notifier) = notifier.as_mut() {
                    let rang = notifier.tick(time::OffsetDateTime::now_utc());
                    if write(args, rang.into_iter().map(|r| Entry { json: r.json, text: r.text }).collect()).is_err() {
                        tracing::info!("stdout was closed: stopping");
                        break;
                    }
                }
            }
            update = link.next() => {
                let Some(update) = update else {
                    return Err(Failure::new(super::exit::Exit::Error, "the engine stopped unexpectedly"));
                };
                if let FromEngine::Agent { agent, .. } = &update
                    && folders.left_out(agent)
                {
                    continue;
                }
                let mut entries = entries(&update, &link, &mut known);
                if let (Some(notifier), FromEngine::Agent { agent, .. }) = (notifier.as_mut(), &update)
                    && let Some(view) = link.views.get(agent)
                {
                    let rang = notifier.heard(view, time::OffsetDateTime::now_utc());
                    entries.extend(rang.into_iter().map(|r| Entry { json: r.json, text: r.text }));
                }
                if write(args, entries).is_err() {
                    tracing::info!("stdout was closed: stopping");
                    break;
                }
            }
        }
    }
    Ok(())
}

/// Writes entries to stdout in the form asked; an error once the reader is gone.
fn write(args: &WatchArgs, entries: Vec<Entry>) -> std::io::Result<()> {
    entries.iter().try_for_each(|entry| {
        if args.common.json {
            out::json_line(&entry.json)
        } else {
            out::line(&entry.text)
        }
    })
}

/// Leaves out, with a line on stderr, each agent whose socket cannot appear (its folder is not
/// there, or is not a folder): watching it would print "unreachable" until stopped. A folder
/// an agent could still make is given `FOLDER_GRACE` first. None left is a failure.
async fn without_sockets_that_cannot_appear(
    specs: Vec<AgentSpec>,
) -> Result<Vec<AgentSpec>, Failure> {
    let missing_folder = |spec: &AgentSpec, only_makeable: bool| {
        matches!(&spec.endpoint, Endpoint::Socket(socket)
            if missing_socket(&socket.path)
                .is_some_and(|m| m.cannot_appear() && (m.could_be_made || !only_makeable)))
    };
    let grace = tokio::time::Instant::now() + super::link::FOLDER_GRACE;
    while specs.iter().any(|spec| missing_folder(spec, true)) && tokio::time::Instant::now() < grace
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (gone, kept): (Vec<_>, Vec<_>) = specs.into_iter().partition(|spec| {
        matches!(&spec.endpoint, Endpoint::Socket(socket)
            if missing_socket(&socket.path).is_some_and(|m| m.cannot_appear()))
    });
    let sentences: Vec<String> = gone
        .iter()
        .filter_map(|spec| match &spec.endpoint {
            Endpoint::Socket(socket) => missing_socket(&socket.path)
                .map(|missing| format!("cannot reach the agent \"{}\": {missing}", spec.name)),
            Endpoint::Tls(_) => None,
        })
        .collect();
    if kept.is_empty() {
        return Err(Failure::new(
            super::exit::Exit::Unreachable,
            sentences.join("; "),
        ));
    }
    for sentence in &sentences {
        out::warn(&format!("collie-phone: left out: {sentence}"));
    }
    Ok(kept)
}

/// The same rule for a `watch` that runs as for one that starts: an agent whose socket's
/// folder goes away, and stays away for `FOLDER_GRACE`, is left out with a line on stderr;
/// when none is left the command exits 8 (docs/SCRIPTING.md).
struct FolderWatch {
    /// Each agent dialled over a socket: its name, its path, since when its folder is gone.
    sockets: Vec<(String, std::path::PathBuf, Option<tokio::time::Instant>)>,
    left_out: std::collections::BTreeSet<String>,
    /// How many agents the watch began with.
    agents: usize,
}

impl FolderWatch {
    fn new(specs: &[AgentSpec]) -> Self {
        Self {
            sockets: specs
                .iter()
                .filter_map(|spec| match &spec.endpoint {
                    Endpoint::Socket(socket) => {
                        Some((spec.name.clone(), socket.path.clone(), None))
                    }
                    Endpoint::Tls(_) => None,
                })
                .collect(),
            left_out: std::collections::BTreeSet::new(),
            agents: specs.len(),
        }
    }

    fn left_out(&self, agent: &str) -> bool {
        self.left_out.contains(agent)
    }

    /// Looks at each socket's folder; an error when no agent is left to watch.
    fn look(&mut self) -> Result<(), Failure> {
        let now = tokio::time::Instant::now();
        let mut sentences = Vec::new();
        for (name, path, gone_since) in &mut self.sockets {
            if self.left_out.contains(name.as_str()) {
                continue;
            }
            match missing_socket(path).filter(|m| m.cannot_appear()) {
                None => *gone_since = None,
                Some(missing) => {
                    let since = *gone_since.get_or_insert(now);
                    if now.duration_since(since) >= super::link::FOLDER_GRACE {
                        self.left_out.insert(name.clone());
                        sentences.push(format!("cannot reach the agent \"{name}\": {missing}"));
                    }
                }
            }
        }
        if self.left_out.len() == self.agents {
            return Err(Failure::new(
                super::exit::Exit::Unreachable,
                sentences.join("; "),
            ));
        }
        for sentence in &sentences {
            out::warn(&format!("collie-phone: left out: {sentence}"));
        }
        Ok(())
    }
}

/// True when stdout is a pipe whose reader has gone (POLLERR or POLLHUP on fd 1).
fn stdout_is_closed() -> bool {
    let mut poll = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: one pollfd on the stack, valid for the call; a zero timeout never blocks.
    let ready = unsafe { libc::poll(&mut poll, 1, 0) };
    ready > 0 && poll.revents & (libc::POLLERR | libc::POLLHUP) != 0
}

fn entries(update: &FromEngine, link: &Link, known: &mut Known) -> Vec<Entry> {
    let mut list = Vec::new();
    match update {
        FromEngine::Agent { agent, change } => {
            list.extend(change_entries(agent, change));
            if let Some(view) = link.views.get(agent) {
                list.extend(ask_changes(view, known));
            }
        }
        // watch sends nothing, so there is no intent of its own; exchanges and history pages
        // belong to the inspector and the history screens.
        FromEngine::Intent(_) | FromEngine::Exchange(_) | FromEngine::History { .. } => {}
    }
    list
}

fn change_entries(agent: &str, change: &AgentChange) -> Vec<Entry> {
    match change {
        AgentChange::Status(status) => vec![Entry {
            json: json!({"type": "status", "agent": agent, "status": status, "sentence": status.sentence()}),
            text: format!("{agent}: {}", status.sentence()),
        }],
        AgentChange::Hello(hello) => vec![Entry {
            json: json!({"type": "hello", "agent": agent, "hello": hello}),
            text: format!(
                "{agent}: hello from {} (epoch {}, {})",
                hello.host.name,
                hello.epoch,
                if hello.ready { "ready" } else { "starting" }
            ),
        }],
        AgentChange::NewEpoch { epoch } => vec![Entry {
            json: json!({"type": "new-epoch", "agent": agent, "epoch": epoch}),
            text: format!("{agent}: the agent restarted (new epoch {epoch})"),
        }],
        AgentChange::Snapshot { snapshot, .. } => {
            let panes: Vec<&str> = snapshot.panes().map(|(_, _, p)| p.id.as_str()).collect();
            // Each pane's usage as its agent last said it (docs/WIRE.md § 5.15).
            let usage: serde_json::Map<String, Value> = snapshot
                .panes()
                .filter_map(|(_, _, p)| {
                    let usage = p.usage.as_ref()?;
                    let mut value = serde_json::to_value(usage).ok()?;
                    value["words"] = Value::String(usage.words());
                    Some((p.id.clone(), value))
                })
                .collect();
            let usage_words: Vec<String> = snapshot
                .panes()
                .filter_map(|(_, _, p)| Some(format!("{}: {}", p.id, p.usage.as_ref()?.words())))
                .collect();
            let starters: Vec<Value> = snapshot
                .starters
                .iter()
                .map(|s| json!({"id": s.id, "title": s.title}))
                .collect();
            let mut text = format!(
                "{agent}: layout rev {}: {}, {}",
                snapshot.rev,
                crate::out::count(panes.len(), "pane", "panes"),
                crate::out::count(starters.len(), "starter", "starters")
            );
            if !usage_words.is_empty() {
                text = format!("{text}; {}", usage_words.join("; "));
            }
            let mut json = json!({"type": "snapshot", "agent": agent, "epoch": snapshot.epoch,
                "rev": snapshot.rev, "panes": panes, "starters": starters});
            if !usage.is_empty() {
                json["usage"] = Value::Object(usage);
            }
            vec![Entry { text, json }]
        }
        AgentChange::PaneEvents { pane, events } => events
            .iter()
            .map(|event| Entry {
                json: json!({"type": "event", "agent": agent, "pane": pane, "event": event}),
                text: format!("{agent} {pane}: {}", event_words(event)),
            })
            .collect(),
        AgentChange::PaneView { pane, view } => vec![Entry {
            text: format!(
                "{agent} {pane}: whole view: {}, {}, {}",
                view.state,
                crate::out::count(view.items.len(), "item", "items"),
                crate::out::count(view.asks.len(), "open ask", "open asks")
            ),
            json: json!({"type": "pane-view", "agent": agent, "pane": pane, "view": view}),
        }],
        // A poll that went through says nothing new; other changes (the DSH bridge's) belong to
        // the screens that show them.
        _ => Vec::new(),
    }
}

/// A short line for one pane event.
fn event_words(event: &Event) -> String {
    match &event.kind {
        EventType::Item => match &event.item {
            Some(item) => {
                let first = item.text.lines().next().unwrap_or_default();
                let cut: String = first.chars().take(80).collect();
                format!("{}: {cut}", item.kind)
            }
            None => "item".into(),
        },
        EventType::Turn => match &event.turn {
            Some(turn) => format!("turn {} is {}", turn.id, turn.state),
            None => "turn".into(),
        },
        EventType::State => match &event.state {
            Some(state) => format!("pane is {state}"),
            None => "state".into(),
        },
        EventType::Ask | EventType::AskChanged => match &event.ask {
            Some(ask) => format!(
                "{} {} (revision {}): {}",
                event.kind, ask.id, ask.revision, ask.title
            ),
            None => event.kind.to_string(),
        },
        EventType::AskClosed => format!(
            "ask-closed {}{}",
            event.ask_id.as_deref().unwrap_or("?"),
            event
                .outcome
                .as_ref()
                .map(|o| format!(": {}", o.summary))
                .unwrap_or_default()
        ),
        EventType::Unknown(kind) => format!("an event of type {kind} this phone does not know"),
    }
}

/// The asks opened, changed and closed since the last look at this agent (SPEC A1–A6).
fn ask_changes(view: &AgentView, known: &mut Known) -> Vec<Entry> {
    let agent = view.name.as_str();
    let mut now = Known::new();
    for pane in view.panes() {
        for ask in pane.asks() {
            now.insert(
                (agent.to_string(), pane.pane.id.clone(), ask.id.clone()),
                ask.clone(),
            );
        }
    }
    let mut list = Vec::new();
    for (key, ask) in &now {
        let (_, pane, _) = key;
        match known.get(key) {
            None => list.push(Entry {
                json: json!({"type": "ask-opened", "agent": agent, "pane": pane, "ask": ask}),
                text: format!(
                    "{agent} {pane}: ask opened {} ({}): {}",
                    ask.id, ask.kind, ask.title
                ),
            }),
            Some(before) if before != ask => list.push(Entry {
                json: json!({"type": "ask-changed", "agent": agent, "pane": pane, "ask": ask,
                    "revisionBefore": before.revision}),
                text: format!(
                    "{agent} {pane}: ask changed {} (revision {} → {}): {}",
                    ask.id, before.revision, ask.revision, ask.title
                ),
            }),
            Some(_) => {}
        }
    }
    let gone: Vec<(String, String, String)> = known
        .keys()
        .filter(|key| key.0 == agent && !now.contains_key(*key))
        .cloned()
        .collect();
    for key in gone {
        let (_, pane, ask_id) = &key;
        let closed = view.panes.get(pane).and_then(|log| {
            log.entries.iter().rev().find_map(|entry| match entry {
                ChatEntry::Closed(closed) if closed.ask_id == *ask_id => Some(closed.clone()),
                _ => None,
            })
        });
        let title = known.get(&key).map(|a| a.title.clone()).unwrap_or_default();
        let (how, words) = match &closed {
            Some(closed) => match &closed.decided_by {
                None => ("answered", "answered from a phone".to_string()),
                Some(by) => ("decided", format!("decided by {by}")),
            },
            None => ("gone", "gone from the layout".to_string()),
        };
        list.push(Entry {
            json: json!({"type": "ask-closed", "agent": agent, "pane": pane, "askId": ask_id,
                "title": title, "how": how,
                "decidedBy": closed.as_ref().and_then(|c| c.decided_by.clone()),
                "outcome": closed.as_ref().and_then(|c| c.outcome.clone())}),
            text: format!("{agent} {pane}: ask closed {ask_id} ({words}): {title}"),
        });
    }
    known.retain(|key, _| key.0 != agent);
    known.extend(now);
    list
}
