//! How the phone finds the person (docs/CONFIG.md, "Rings"): what happened that a person may
//! want to hear of (a new ask, an ask about to expire, a turn that ended, an agent lost or
//! back), how loud each is set to be, where the person is, and so what to do: nothing, the
//! quiet signal in the terminal, the full signal, or the person's own command after a while.
//! Both faces share it: the phone (collie-tui) and `collie-phone watch --notify`. No terminal
//! and no I/O: the faces write the bytes and run the command.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};
use time::OffsetDateTime;

use super::agents::AgentView;
use super::inbox;
use crate::wire::{Ask, TurnState};

/// How long without a key the person counts as gone, where the terminal sends no focus
/// reports (the same minute the polling goes by, SPEC S7).
pub const AWAY_AFTER_KEY_SECONDS: i64 = 60;

/// The default wait before the person's command runs for an event still true.
pub const DEFAULT_AFTER_SECONDS: u64 = 30;

/// The default time limit of one run of the person's command.
pub const DEFAULT_LIMIT_SECONDS: u64 = 10;

/// How many seconds before an ask's deadline it rings again, latest last.
pub const EXPIRING_AT_SECONDS: [i64; 2] = [60, 10];

/// Most bytes of any agent's words in a ring (a title, a name): pushes and desktops cut long
/// ones anyway.
pub const MAX_RING_WORDS_BYTES: usize = 200;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Event {
    /// An ask opened.
    NewAsk,
    /// An open ask's deadline is a minute, then ten seconds, away.
    Expiring,
    /// A pane's turn ended (done, failed or stopped) and the agent waits for the person.
    TurnEnded,
    /// The phone lost the agent.
    Unreachable,
    /// The phone reaches the agent again.
    Back,
    /// What an earlier event said is no longer true (the ask was answered anywhere, expired or
    /// its pane closed; a new turn began; the agent came back): a push can be withdrawn.
    Closed,
}

impl Event {
    /// The word in the JSON the person's command reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::NewAsk => "new-ask",
            Self::Expiring => "expiring",
            Self::TurnEnded => "turn-ended",
            Self::Unreachable => "unreachable",
            Self::Back => "back",
            Self::Closed => "closed",
        }
    }
}

/// How loud one kind of event is set to be (the config's `[notify]`, one key per event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loudness {
    /// Rings by where the person is: nothing while they watch it, the quiet signal while they
    /// are elsewhere in the phone, the full signal and then their command when they are away.
    Ring,
    /// The quiet signal at most, never the full one nor the command.
    Quiet,
    /// Nothing at all.
    Off,
}

impl Loudness {
    pub const ALL: [Loudness; 3] = [Self::Ring, Self::Quiet, Self::Off];

    /// The word the config file uses.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ring => "ring",
            Self::Quiet => "quiet",
            Self::Off => "off",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The next one, for a settings switch that goes round.
    pub fn next(self) -> Self {
        match self {
            Self::Ring => Self::Quiet,
            Self::Quiet => Self::Off,
            Self::Off => Self::Ring,
        }
    }
}

/// The events a person sets, in the order the settings show them, with their config keys.
pub const SET_EVENTS: [(Event, &str); 4] = [
    (Event::NewAsk, "new-ask"),
    (Event::Expiring, "expiring"),
    (Event::TurnEnded, "turn-ended"),
    (Event::Unreachable, "reachability"),
];

/// What the config's `[notify]` says of rings, beside how the full signal sounds in the
/// terminal (the phone's own `style`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    pub new_ask: Loudness,
    pub expiring: Loudness,
    pub turn_ended: Loudness,
    /// Both the agent lost and back.
    pub reachability: Loudness,
    /// The person's command, an argv (never a shell); empty: none.
    pub command: Vec<String>,
    /// Seconds an event stays true, with the phone not watched, before the command runs.
    pub after: u64,
    /// Seconds one run of the command may take before it is ended.
    pub limit: u64,
}

impl Default for Rules {
    /// Asks and expiring asks ring; turns' ends and reachability are quiet until chosen.
    fn default() -> Self {
        Self {
            new_ask: Loudness::Ring,
            expiring: Loudness::Ring,
            turn_ended: Loudness::Quiet,
            reachability: Loudness::Quiet,
            command: Vec::new(),
            after: DEFAULT_AFTER_SECONDS,
            limit: DEFAULT_LIMIT_SECONDS,
        }
    }
}

impl Rules {
    pub fn loudness(&self, event: Event) -> Loudness {
        match event {
            Event::NewAsk => self.new_ask,
            Event::Expiring => self.expiring,
            Event::TurnEnded => self.turn_ended,
            Event::Unreachable | Event::Back => self.reachability,
            // A withdrawal follows only a push that went, whatever it is set to now.
            Event::Closed => Loudness::Ring,
        }
    }

    pub fn set(&mut self, event: Event, loudness: Loudness) {
        match event {
            Event::NewAsk => self.new_ask = loudness,
            Event::Expiring => self.expiring = loudness,
            Event::TurnEnded => self.turn_ended = loudness,
            Event::Unreachable | Event::Back => self.reachability = loudness,
            Event::Closed => {}
        }
    }
}

/// Where the person is, as far as one event goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attention {
    /// The phone is watched and shows what the event is about: the screen is enough.
    OnIt,
    /// The phone is watched, on another screen.
    Elsewhere,
    /// The phone is not watched: the terminal lost focus, or, where it sends no focus
    /// reports, no key came for a minute.
    Away,
}

/// True while the phone is watched: focused by the terminal's last report, or, with none
/// heard yet, a key (or the start) less than [`AWAY_AFTER_KEY_SECONDS`] ago.
pub fn watched(focus: Option<bool>, last_key: OffsetDateTime, now: OffsetDateTime) -> bool {
    match focus {
        Some(focused) => focused,
        None => (now - last_key).whole_seconds() < AWAY_AFTER_KEY_SECONDS,
    }
}

/// Where the person is for an event whose subject is on screen or not.
pub fn attention(watched: bool, shows_subject: bool) -> Attention {
    match (watched, shows_subject) {
        (false, _) => Attention::Away,
        (true, true) => Attention::OnIt,
        (true, false) => Attention::Elsewhere,
    }
}

/// What the face does for one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Signal {
    Nothing,
    /// A line on the phone's status line, no sound.
    Quiet,
    /// The terminal's bell or desktop notification, and the line.
    Full,
}

/// A snooze: no full signal and no command until `until`; an ask about to expire still rings
/// unless `even_expiring`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mute {
    pub until: OffsetDateTime,
    pub even_expiring: bool,
}

impl Mute {
    /// True when this mute holds `event` back at `now`.
    pub fn holds(&self, event: Event, now: OffsetDateTime) -> bool {
        now < self.until && (event != Event::Expiring || self.even_expiring)
    }
}

/// The decision: `loudness` of the event, where the person is, and whether a mute holds it.
/// A muted event still gets the quiet signal where it would have rung: Home counts it all the
/// same.
pub fn decide(loudness: Loudness, attention: Attention, muted: bool) -> Signal {
    let signal = match (loudness, attention) {
        (Loudness::Off, _) | (_, Attention::OnIt) => Signal::Nothing,
        (Loudness::Quiet, _) | (Loudness::Ring, Attention::Elsewhere) => Signal::Quiet,
        (Loudness::Ring, Attention::Away) => Signal::Full,
    };
    if muted {
        signal.min(Signal::Quiet)
    } else {
        signal
    }
}

/// What an event is about, to tell whether the screen shows it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Subject {
    /// One ask: its card, or its pane, shows it.
    Ask {
        agent: String,
        pane: String,
        ask_id: String,
    },
    /// One pane.
    Pane { agent: String, pane: String },
    /// One agent.
    Agent(String),
}

impl Subject {
    pub fn agent(&self) -> &str {
        match self {
            Self::Ask { agent, .. } | Self::Pane { agent, .. } | Self::Agent(agent) => agent,
        }
    }

    pub fn pane(&self) -> Option<&str> {
        match self {
            Self::Ask { pane, .. } | Self::Pane { pane, .. } => Some(pane),
            Self::Agent(_) => None,
        }
    }
}

/// One thing that happened, with the words every face says of it, cleaned (SPEC L1).
#[derive(Debug, Clone, PartialEq)]
pub struct Happening {
    pub event: Event,
    /// The same for an ask's every event and its `closed`, so a push can be replaced and
    /// withdrawn.
    pub id: String,
    pub subject: Subject,
    /// The JSON the person's command reads, its strings cleaned (without `event`, set when it
    /// is sent).
    facts: Value,
    /// Who it is about: the agent's name.
    pub who: String,
    /// What happened, after the name.
    pub what: String,
}

impl Happening {
    /// The one JSON object the person's command gets on its stdin.
    pub fn json(&self) -> Value {
        let mut value = self.facts.clone();
        value["event"] = json!(self.event.name());
        value["id"] = json!(self.id);
        value["text"] = json!(self.words());
        crate::out::json(value)
    }

    /// The same happening ended: its `closed` event, saying why.
    fn closed(&self, reason: &str) -> Self {
        let mut closed = self.clone();
        closed.event = Event::Closed;
        closed.facts["reason"] = json!(reason);
        closed.what = cut(&format!("{} (closed: {reason})", self.what));
        closed
    }

    /// One line for the status line and the desktop notification: who, then what.
    pub fn words(&self) -> String {
        cut(&format!("{}: {}", self.who, self.what))
    }
}

/// `words` cleaned to one line and cut at a character boundary to [`MAX_RING_WORDS_BYTES`].
pub fn cut(words: &str) -> String {
    // Line breaks and tabs part words; the one way out (SPEC L1) takes every other control
    // and invisible character, and the phone's secrets.
    let spaced: String = words
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    let clean = crate::out::line(&spaced);
    let clean = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    if clean.len() <= MAX_RING_WORDS_BYTES {
        return clean;
    }
    let mut end = MAX_RING_WORDS_BYTES - '…'.len_utf8();
    while !clean.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", clean[..end].trim_end())
}

/// The command line that answers an ask from a shell: `dial` are the flags that reach its
/// agent (`--agent NAME`, `--socket PATH` …), `option` the option's id or a placeholder.
fn answer_line(dial: &str, ask_id: &str, option: &str) -> String {
    format!(
        "collie-phone answer {dial} {} {}",
        quoted(ask_id),
        quoted(option)
    )
}

/// A word as a POSIX shell reads it back unchanged.
pub fn quoted(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The facts of an ask for the JSON: its agent, pane, title, kind, options, deadline, and the
/// headless command that answers it.
fn ask_facts(agent: &str, dial: &str, pane_id: &str, pane_title: &str, ask: &Ask) -> Value {
    let options: Vec<Value> = ask
        .options()
        .iter()
        .chain(ask.form.iter().flat_map(|form| form.options.iter()))
        .map(|option| {
            json!({
                "id": cut(&option.id),
                "label": cut(&option.label),
                "answer": answer_line(dial, &ask.id, &option.id),
            })
        })
        .collect();
    let placeholder = match ask.kind {
        crate::wire::AskKind::Text => "--text TEXT",
        crate::wire::AskKind::Form => "--field NAME=VALUE",
        _ => "OPTION",
    };
    let answer = format!(
        "collie-phone answer {dial} {} {placeholder}",
        quoted(&ask.id)
    );
    json!({
        "agent": cut(agent),
        "pane": cut(pane_id),
        "paneTitle": cut(pane_title),
        "ask": {
            "id": cut(&ask.id),
            "kind": ask.kind.to_string(),
            "title": cut(&ask.title),
            "options": options,
            "expiresAt": ask.expires_at.as_ref().map(|at| cut(at.text())),
        },
        "answer": answer,
    })
}

/// An ask as last heard, and which of its deadline rings it had.
#[derive(Debug, Clone)]
struct AskSeen {
    happening: Happening,
    expires_at: Option<OffsetDateTime>,
    /// How many of [`EXPIRING_AT_SECONDS`] it has rung (or were past when it was first heard).
    rung: usize,
}

/// An event held for the person's command.
#[derive(Debug, Clone)]
struct Held {
    happening: Happening,
    /// Since when the person has not been watching it (reset while they are).
    unwatched_since: OffsetDateTime,
    /// The command has been run for what it holds now.
    pushed: bool,
    /// The command has been run for it at least once: its end sends `closed`, even when a
    /// later ring (an ask about to expire) holds it again unpushed.
    went: bool,
    /// Runs at once, not after the wait: an ask about to expire.
    at_once: bool,
}

/// What the rings remember across updates. Each face keeps one.
#[derive(Debug, Clone, Default)]
pub struct Rings {
    /// The agents heard at least once: what is open when an agent is first heard rings nothing.
    primed: BTreeSet<String>,
    /// Each open ask by agent, pane and id.
    asks: BTreeMap<(String, String, String), AskSeen>,
    /// Each pane's latest turn: its id and whether it was running.
    turns: BTreeMap<(String, String), (String, bool)>,
    /// Each agent's turn-ended happenings, by pane, while they are true.
    ended: BTreeMap<(String, String), Happening>,
    /// The agents that could not be reached, with the happening that said so.
    lost: BTreeMap<String, Happening>,
    /// What waits for the person's command, by id.
    held: BTreeMap<String, Held>,
    /// The flags that reach each agent for the answer command (`--agent NAME` when not said).
    dial: BTreeMap<String, String>,
}

impl Rings {
    /// Says how a shell reaches `agent` in the answer command lines (`--socket PATH` for an
    /// agent not in the config file).
    pub fn dial_with(&mut self, agent: &str, flags: String) {
        self.dial.insert(agent.to_string(), flags);
    }

    fn dial(&self, agent: &str) -> String {
        self.dial
            .get(agent)
            .cloned()
            .unwrap_or_else(|| format!("--agent {}", quoted(agent)))
    }

    /// What happened to `view` since it was last heard: asks opened, turns ended, the agent
    /// lost or back, and `closed` for what was pushed and ended. An agent heard for the first
    /// time with nothing behind it yet (no layout) is not primed: its open asks ring nothing.
    pub fn heard(&mut self, view: &AgentView, now: OffsetDateTime) -> Vec<Happening> {
        let agent = view.name.clone();
        let primed = self.primed.contains(&agent);
        let mut out = Vec::new();
        // Reachability first: a lost agent's asks stay as they were.
        let unreachable = inbox::is_unreachable(view);
        // The agent's own name, as the config and the answer command say it (the host's name
        // after it would only lengthen every line).
        let who = cut(&agent);
        match (self.lost.contains_key(&agent), unreachable) {
            (false, true) if view.synced.is_some() => {
                let happening = Happening {
                    event: Event::Unreachable,
                    id: format!("agent/{agent}/{}", now.unix_timestamp()),
                    subject: Subject::Agent(agent.clone()),
                    facts: json!({"agent": cut(&agent)}),
                    who: who.clone(),
                    what: "cannot be reached".into(),
                };
                self.lost.insert(agent.clone(), happening.clone());
                out.push(happening);
            }
            (true, false) => {
                if let Some(lost) = self.lost.remove(&agent) {
                    out.extend(self.end(&lost.id, "back", None));
                }
                out.push(Happening {
                    event: Event::Back,
                    id: format!("agent/{agent}/{}", now.unix_timestamp()),
                    subject: Subject::Agent(agent.clone()),
                    facts: json!({"agent": cut(&agent)}),
                    who: who.clone(),
                    what: "reached again".into(),
                });
            }
            _ => {}
        }
        if unreachable {
            return out;
        }
        if view.snapshot.is_none() {
            return out;
        }
        let dial = self.dial(&agent);
        let mut open = BTreeSet::new();
        let mut panes = BTreeSet::new();
        for pane in view.panes() {
            let pane_id = pane.pane.id.clone();
            panes.insert(pane_id.clone());
            for ask in pane.asks() {
                let key = (agent.clone(), pane_id.clone(), ask.id.clone());
                open.insert(key.clone());
                let expires_at = ask.expires_at.as_ref().and_then(crate::wire::Stamp::at);
                let facts = ask_facts(&agent, &dial, &pane_id, &pane.pane.title, ask);
                let happening = Happening {
                    event: Event::NewAsk,
                    id: format!("ask/{agent}/{pane_id}/{}", ask.id),
                    subject: Subject::Ask {
                        agent: agent.clone(),
                        pane: pane_id.clone(),
                        ask_id: ask.id.clone(),
                    },
                    facts,
                    who: who.clone(),
                    what: cut(&ask.title),
                };
                match self.asks.get_mut(&key) {
                    Some(seen) => {
                        // A change in place keeps its rings; a new deadline may ring again.
                        if seen.expires_at != expires_at {
                            seen.rung = rung_by(expires_at, now);
                            seen.expires_at = expires_at;
                        }
                        seen.happening = happening;
                    }
                    None => {
                        self.asks.insert(
                            key,
                            AskSeen {
                                happening: happening.clone(),
                                expires_at,
                                rung: rung_by(expires_at, now),
                            },
                        );
                        if primed {
                            out.push(happening);
                        }
                    }
                }
            }
            // The pane's turn: one that was running and ended leaves the agent to the person.
            let turn = pane.turn().map(|t| (t.id.clone(), t.state.clone()));
            let slot = (agent.clone(), pane_id.clone());
            if let Some((id, state)) = turn {
                let running = state == TurnState::Running;
                let was = self.turns.insert(slot.clone(), (id.clone(), running));
                // A turn heard running and now over, or a new turn already over (it ran
                // between two polls); a pane first heard says nothing of the turns before.
                let ran = was.as_ref().is_some_and(|(before, r)| *r || *before != id);
                if running {
                    if let Some(ended) = self.ended.remove(&slot) {
                        out.extend(self.end(&ended.id, "a new turn began", None));
                    }
                } else if primed && ran {
                    let how = match state {
                        TurnState::Done => "done",
                        TurnState::Failed => "failed",
                        TurnState::Aborted => "stopped",
                        _ => "ended",
                    };
                    let happening = Happening {
                        event: Event::TurnEnded,
                        id: format!("turn/{agent}/{pane_id}/{id}"),
                        subject: Subject::Pane {
                            agent: agent.clone(),
                            pane: pane_id.clone(),
                        },
                        facts: json!({
                            "agent": cut(&agent),
                            "pane": cut(&pane_id),
                            "paneTitle": cut(&pane.pane.title),
                            "turn": {"id": cut(&id), "state": state.to_string(), "how": how},
                        }),
                        who: who.clone(),
                        what: cut(&format!("{} {how}, waiting for you", pane.pane.title)),
                    };
                    if let Some(before) = self.ended.insert(slot, happening.clone()) {
                        out.extend(self.end(&before.id, "a new turn began", None));
                    }
                    out.push(happening);
                }
            }
        }
        // Asks gone: answered anywhere, decided by the agent, expired or their pane closed.
        let gone: Vec<(String, String, String)> = self
            .asks
            .keys()
            .filter(|key| key.0 == agent && !open.contains(*key))
            .cloned()
            .collect();
        for key in gone {
            if let Some(seen) = self.asks.remove(&key) {
                let reason = if !panes.contains(&key.1) {
                    "its pane closed"
                } else if seen.expires_at.is_some_and(|at| at <= now) {
                    "expired"
                } else {
                    "answered"
                };
                out.extend(self.end(&seen.happening.id, reason, Some(&seen.happening)));
            }
        }
        let closed_panes: Vec<(String, String)> = self
            .ended
            .keys()
            .filter(|(a, pane)| *a == agent && !panes.contains(pane))
            .cloned()
            .collect();
        for slot in closed_panes {
            self.turns.remove(&slot);
            if let Some(ended) = self.ended.remove(&slot) {
                out.extend(self.end(&ended.id, "its pane closed", None));
            }
        }
        self.primed.insert(agent);
        out
    }

    /// Lets go of what is held for `id`; its `closed` when the command ran for it, said of
    /// `latest` (an ask as last heard) when given, else of what was held.
    fn end(&mut self, id: &str, reason: &str, latest: Option<&Happening>) -> Option<Happening> {
        let held = self.held.remove(id)?;
        held.went
            .then(|| latest.unwrap_or(&held.happening).closed(reason))
    }

    /// The clock: each open ask whose deadline came within a minute, then ten seconds, rings
    /// once for each (none that was already past when the ask was first heard).
    pub fn tick(&mut self, now: OffsetDateTime) -> Vec<Happening> {
        let mut out = Vec::new();
        for seen in self.asks.values_mut() {
            let Some(at) = seen.expires_at else { continue };
            let due = rung_by(Some(at), now);
            if due > seen.rung && at > now {
                seen.rung = due;
                let left = (at - now).whole_seconds().max(1);
                let mut happening = seen.happening.clone();
                happening.event = Event::Expiring;
                happening.facts["secondsLeft"] = json!(left);
                happening.what = cut(&format!("{} (expires in {left} s)", seen.happening.what));
                out.push(happening);
            } else if due > seen.rung {
                seen.rung = due;
            }
        }
        out
    }

    /// Holds `happening` for the person's command: it runs when the event is still true after
    /// `after` seconds unwatched (an expiring ask at once, unwatched). A `closed` is not held.
    pub fn hold(&mut self, happening: &Happening, now: OffsetDateTime) {
        if happening.event == Event::Closed {
            return;
        }
        let at_once = happening.event == Event::Expiring;
        match self.held.get_mut(&happening.id) {
            // An ask about to expire runs the command again, under the same id.
            Some(held) if at_once => {
                held.happening = happening.clone();
                held.at_once = true;
                held.pushed = false;
            }
            Some(_) => {}
            None => {
                self.held.insert(
                    happening.id.clone(),
                    Held {
                        happening: happening.clone(),
                        unwatched_since: now,
                        pushed: false,
                        went: false,
                        at_once,
                    },
                );
            }
        }
    }

    /// What the person's command gets now: each held event unwatched for `after` seconds (an
    /// expiring ask at once) that no mute holds back, once. `attention` says where the person
    /// is for a subject; one who saw a turn's end or a lost agent on screen has had it.
    pub fn due(
        &mut self,
        after: u64,
        now: OffsetDateTime,
        attention: impl Fn(&Subject) -> Attention,
        mute: Option<&Mute>,
    ) -> Vec<Happening> {
        let mut out = Vec::new();
        let mut seen = Vec::new();
        for (id, held) in &mut self.held {
            let subject = &held.happening.subject;
            match attention(subject) {
                Attention::OnIt if !matches!(subject, Subject::Ask { .. }) => {
                    seen.push(id.clone());
                    continue;
                }
                Attention::OnIt | Attention::Elsewhere => {
                    held.unwatched_since = now;
                    continue;
                }
                Attention::Away => {}
            }
            if held.pushed || mute.is_some_and(|m| m.holds(held.happening.event, now)) {
                continue;
            }
            let waited = (now - held.unwatched_since).whole_seconds();
            if held.at_once || waited >= i64::try_from(after).unwrap_or(i64::MAX) {
                held.pushed = true;
                held.went = true;
                out.push(held.happening.clone());
            }
        }
        for id in seen {
            if let Some(held) = self.held.get(&id)
                && !held.went
            {
                self.held.remove(&id);
            }
        }
        out
    }
}

/// How many of [`EXPIRING_AT_SECONDS`] a deadline has passed at `now`.
fn rung_by(expires_at: Option<OffsetDateTime>, now: OffsetDateTime) -> usize {
    let Some(at) = expires_at else { return 0 };
    let left = (at - now).whole_seconds();
    EXPIRING_AT_SECONDS
        .iter()
        .filter(|mark| left <= **mark)
        .count()
}

#[cfg(test)]
mod tests;
