//! The host: a world whose panes are ACP sessions. It turns what phones did (the world's
//! happenings) into ACP requests, and what agents did (the client's events) into items, asks,
//! turns and pane states, on every tick of the agent, under the world's lock, never waiting.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{
    RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
    SelectedPermissionOutcome, SessionConfigOption, StopReason,
};
use time::OffsetDateTime;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::AcpHostOptions;
use super::client::{self, Command, Event, Events, Failure};
use super::elicitation::{Asker, Elicitations};
use super::kept_modes::KeptModes;
use super::permission::{PermissionCard, card};
use super::reply::{ElicitationReply, PermissionReply};
use super::sessions::{Abilities, Opening};
use super::settings::Settings;
use super::sign_in::{Chosen, Held, SignIns};
use super::spec::AcpSpec;
use super::stream::{Stream, Told};
use crate::durable::world::{Happening, HostedSession, Layout, World};
use crate::durable::{Drive, Driver};
use crate::wire::{AskOption, Effect, ItemKind, Outcome, Starter, TurnState};

/// One agent process the host started.
struct Running {
    commands: UnboundedSender<Command>,
    /// What it can do with sessions, once `initialize` answered.
    abilities: Option<Abilities>,
    /// Panes to open again once we know whether the agent can load a session.
    reopen: Vec<(String, Reopen)>,
}

/// Why a pane with an old session is opened again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reopen {
    /// The host restarted: load the session, or close the pane into history.
    Restart,
    /// The agent process went away, or the person reopened the conversation: load the
    /// session, or start a fresh one and say so.
    Revive,
}

/// A pane and its ACP session.
struct Bound {
    agent: String,
    session: Option<String>,
    /// The session belongs to the agent process running now.
    live: bool,
    /// `session/new` or `session/load` is on its way.
    opening: bool,
    /// Updates are the agent replaying the conversation we already hold: not shown twice.
    loading: bool,
    /// The opening on its way is a `session/resume`.
    resuming: bool,
    /// The session came from the agent's list and the pane holds none of it yet: a load's
    /// replay is its history, shown once.
    replay: bool,
    /// The turn whose `session/prompt` is on its way.
    prompting: Option<String>,
    /// The turn we sent `session/cancel` for.
    stopping: Option<String>,
    /// A person denied a permission of the running turn: codex gives its turn up then, and
    /// its `cancelled` is the Deny's doing, not a turn it dropped unasked.
    denied: bool,
    /// Texts waiting for the session to open or for the running prompt to end (ACP has no
    /// steering, so a send during a turn becomes the next prompt).
    waiting: Vec<String>,
    stream: Stream,
}

/// A permission request waiting for a person.
struct Pending {
    key: u64,
    pane: String,
    responder: PermissionReply,
    card: PermissionCard,
}

pub(crate) struct AcpHost {
    specs: BTreeMap<String, AcpSpec>,
    /// Starter id → the agent and the folder it starts in.
    starters: BTreeMap<String, (String, PathBuf)>,
    events_in: Events,
    events: UnboundedReceiver<(String, Event)>,
    running: HashMap<String, Running>,
    panes: HashMap<String, Bound>,
    /// By ask id.
    pending: HashMap<String, Pending>,
    /// The agents' questions waiting for a person.
    elicitations: Elicitations,
    /// The demo's first words to its first pane, sent once its session opens.
    opening: Option<String>,
    /// Updates for a session no pane holds yet: an agent may send one (its commands, say)
    /// before the reply to `session/new` reaches us. Shown when the session opens; dropped
    /// when it was a load (they are the history we hold already).
    early: Vec<(String, String, Told)>,
    /// Conversations made from an agent's `session/list` whose replay no pane has shown yet.
    unreplayed: HashSet<String>,
    /// The workspace folders, for `session/list`.
    folders: Vec<PathBuf>,
    /// The mode each conversation's session comes back in.
    modes: KeptModes,
    /// Sign-in cards open (ACP v2's `auth/login`).
    sign_ins: SignIns,
    /// By pane, the way chosen and the opening it holds, while `auth/login` is on its way.
    signing_in: HashMap<String, (String, Held)>,
}

/// Early updates kept at most.
const MAX_EARLY_UPDATES: usize = 256;

/// The host as one driver of the durable agent (docs/ACP.md): its world starts with no
/// workspace, the starters are the host's, and nothing is broken on purpose.
impl Drive for AcpHostOptions {
    fn first_world(&self, allow_always: bool, host_name: &str, _now: OffsetDateTime) -> World {
        let layout = Layout {
            host_name: host_name.to_string(),
            ..Layout::default()
        };
        World::new(layout, allow_always)
    }

    fn start(&self, world: &mut World, restored: bool, now: OffsetDateTime) -> Box<dyn Driver> {
        let mut host = AcpHost::new(self);
        host.adopt(world, self, restored, now);
        Box::new(host)
    }
}

impl Driver for AcpHost {
    /// The agents keep working while the world lays out (they load sessions), so the host
    /// ticks whether or not the world is ready.
    fn tick(&mut self, world: &mut World, now: OffsetDateTime) {
        AcpHost::tick(self, world, now);
    }
}

impl AcpHost {
    pub(crate) fn new(options: &AcpHostOptions) -> Self {
        let (events_in, events) = unbounded_channel();
        let specs = options
            .agents
            .iter()
            .map(|s| (s.name.clone(), s.clone()))
            .collect();
        Self {
            specs,
            starters: BTreeMap::new(),
            events_in,
            events,
            running: HashMap::new(),
            panes: HashMap::new(),
            pending: HashMap::new(),
            elicitations: Elicitations::default(),
            opening: options.opening.clone(),
            early: Vec::new(),
            unreplayed: HashSet::new(),
            folders: options.workspaces.clone(),
            modes: KeptModes::open(options.state.as_deref()),
            sign_ins: SignIns::default(),
            signing_in: HashMap::new(),
        }
    }

    /// Takes the world over: its starters are one per agent and folder, and with a world read
    /// back from `--state`, every pane's session is loaded again (or its pane closed into
    /// history when the agent cannot load sessions).
    pub(crate) fn adopt(
        &mut self,
        world: &mut World,
        options: &AcpHostOptions,
        restored: bool,
        now: OffsetDateTime,
    ) {
        world.outside_agents = true;
        self.lay_out_starters(world, options);
        if restored {
            self.restore(world, now);
        } else if let Some(first) = world.layout.starters.first().map(|s| s.id.clone())
            && self.opening.is_some()
        {
            match world.run_starter(&first, "host-opening", now) {
                Ok(_) => {}
                Err(error) => tracing::warn!(?error, "the demo's first pane could not start"),
            }
        }
    }

    fn lay_out_starters(&mut self, world: &mut World, options: &AcpHostOptions) {
        world.layout.starters.clear();
        world.layout.starter_homes.clear();
        self.starters.clear();
        for folder in &options.workspaces {
            let title = folder_title(folder);
            let workspace = match world.layout.workspaces.iter().find(|w| w.title == title) {
                Some(w) => w.id.clone(),
                None => world.add_workspace(&title),
            };
            for spec in &options.agents {
                if world.layout.starters.len() >= crate::wire::limits::MAX_STARTERS {
                    break;
                }
                let id = format!("{}-{}", spec.name, world.layout.starters.len() + 1);
                world.layout.starters.push(Starter {
                    id: id.clone(),
                    title: format!("{} in {title}", spec.name),
                    description: Some(format!(
                        "Starts `{}` in {}",
                        spec.command.join(" "),
                        folder.display()
                    )),
                });
                world
                    .layout
                    .starter_homes
                    .insert(id.clone(), workspace.clone());
                self.starters
                    .insert(id, (spec.name.clone(), folder.clone()));
            }
        }
    }

    /// After a restart: asks and turns of the old processes are over; sessions load again.
    fn restore(&mut self, world: &mut World, now: OffsetDateTime) {
        let panes: Vec<(String, String)> = world
            .layout
            .panes
            .values()
            .map(|p| (p.id.clone(), p.conversation_id.clone()))
            .collect();
        for (pane, conversation) in panes {
            let asks: Vec<(String, String)> = world.layout.panes[&pane]
                .asks
                .iter()
                .map(|a| (a.ask.id.clone(), a.ask.title.clone()))
                .collect();
            for (ask, title) in asks {
                world.decide_ask(&pane, &ask, "The host restarted before an answer; the agent asks again if it still needs to", now);
                outcome_item(
                    world,
                    &pane,
                    &title,
                    false,
                    "the host restarted before an answer",
                    now,
                );
            }
            // The calls the old host's turn left open are over with it; settled before the
            // pane says the turn failed, as a turn that ends settles its calls first.
            super::stream::settle_after_restart(
                world,
                &pane,
                "the host restarted during the turn",
                now,
            );
            if world.layout.panes[&pane]
                .turn
                .as_ref()
                .is_some_and(|t| t.state == TurnState::Running)
            {
                world.end_turn(&pane, TurnState::Failed, now);
                world.push_item(
                    &pane,
                    ItemKind::Notice,
                    "The host restarted during this turn; the agent did not finish it.",
                    now,
                );
            }
            let record = world.layout.held_sessions.get(&conversation).cloned();
            match record {
                Some(HostedSession {
                    agent,
                    session: Some(session),
                    ..
                }) if self.specs.contains_key(&agent) => {
                    world.set_starting(&pane, true, now);
                    self.panes
                        .insert(pane.clone(), Bound::new(&agent, Some(session)));
                    self.when_initialized(world, &agent, pane, Reopen::Restart, now);
                }
                _ => {
                    world.push_item(&pane, ItemKind::Notice, "This conversation's agent is not run by this host any more; it is kept in history.", now);
                    world.close_pane_now(&pane, now);
                }
            }
        }
    }

    /// One tick: what phones did, then what agents did, then what grew.
    pub(crate) fn tick(&mut self, world: &mut World, now: OffsetDateTime) {
        for happening in world.take_happenings() {
            self.on_happening(world, happening, now);
        }
        while let Ok((agent, event)) = self.events.try_recv() {
            self.on_event(world, &agent, event, now);
        }
        for (pane, bound) in &mut self.panes {
            bound.stream.flush(world, pane, now);
        }
        // A send to a pane no agent of ours holds could only be dropped: the world refuses it
        // (WIRE § 4.3) instead of saying it was applied.
        world.unheld = world
            .layout
            .panes
            .keys()
            .filter(|p| !self.panes.contains_key(*p))
            .cloned()
            .collect();
    }

    // ----- what phones did -------------------------------------------------------------------

    fn on_happening(&mut self, world: &mut World, happening: Happening, now: OffsetDateTime) {
        match happening {
            Happening::StarterRun { pane, starter_id } => {
                self.start(world, &pane, &starter_id, now)
            }
            Happening::TextSent { pane, text, .. } => self.send(world, &pane, text, now),
            Happening::ButtonPressed { pane, button_id } => {
                let command = self
                    .panes
                    .get(&pane)
                    .and_then(|b| b.stream.command(&button_id))
                    .map(str::to_string)
                    .unwrap_or_else(|| button_id.trim_start_matches("cmd-").to_string());
                self.send(world, &pane, format!("/{command}"), now);
            }
            Happening::AskAnswered {
                pane,
                ask_id,
                outcome,
                ..
            } => self.answer(world, &pane, &ask_id, &outcome, now),
            Happening::Aborted { pane, turn_id } => self.abort(world, &pane, &turn_id, now),
            Happening::Closed { pane } => self.closed(world, &pane, now),
            Happening::Reopened { pane } => self.reopened(world, &pane, now),
            Happening::SettingChosen {
                pane,
                setting_id,
                value,
            } => self.choose(world, &pane, setting_id, value, now),
        }
    }

    /// A phone chose a value of a setting: the agent is asked, and the pane shows the new
    /// value only once it said yes (docs/ACP.md, "Modes, options and commands").
    fn choose(
        &mut self,
        world: &mut World,
        pane: &str,
        setting: String,
        value: String,
        now: OffsetDateTime,
    ) {
        let Some(bound) = self.panes.get(pane) else {
            return;
        };
        let agent = bound.agent.clone();
        let target = bound.stream.settings.target(&setting);
        let (Some(session), true, Some(target)) = (bound.session.clone(), bound.live, target)
        else {
            world.push_item(pane, ItemKind::Notice, &format!("{agent} has no session open here, so nothing was switched. Send a message to start it again, then switch."), now);
            return;
        };
        let option = target.option_value(&value);
        self.command(
            &agent,
            Command::Set {
                pane: pane.to_string(),
                session,
                setting,
                option,
                value,
            },
        );
    }

    /// The agent answered a switch: the pane's setting follows its yes; a no leaves the old
    /// value and says why.
    fn chosen(
        &mut self,
        world: &mut World,
        pane: &str,
        setting: &str,
        value: &str,
        outcome: Result<Option<Vec<SessionConfigOption>>, Failure>,
        now: OffsetDateTime,
    ) {
        let Some(bound) = self.panes.get_mut(pane) else {
            return;
        };
        let agent = bound.agent.clone();
        let shown = world
            .settings(pane)
            .iter()
            .find(|s| s.id == setting)
            .cloned();
        let name = shown
            .as_ref()
            .map_or(setting, |s| s.name.as_str())
            .to_string();
        let value_name = shown
            .as_ref()
            .and_then(|s| s.choices.iter().find(|c| c.id == value))
            .map_or(value, |c| c.name.as_str())
            .to_string();
        match outcome {
            Ok(options) => {
                match options {
                    Some(options) => bound.stream.settings.set_options(options),
                    None => {
                        bound.stream.settings.set_mode(value);
                        // The person's switch is what the session comes back in.
                        if let Some(conversation) =
                            world.layout.panes.get(pane).map(|p| &p.conversation_id)
                        {
                            self.modes.keep(conversation, value);
                        }
                    }
                }
                world.set_settings(pane, bound.stream.settings.wire());
                world.push_item(
                    pane,
                    ItemKind::Notice,
                    &format!("{name}: {agent} switched to {value_name}."),
                    now,
                );
            }
            Err(failure) => {
                let old = shown.as_ref().map_or("what it was", |s| s.current_name());
                let words = failure_words(
                    &agent,
                    &failure,
                    &format!("did not switch {name} to {value_name}"),
                );
                world.push_item(
                    pane,
                    ItemKind::Notice,
                    &format!("{words} {name} stays {old}."),
                    now,
                );
            }
        }
    }

    fn start(&mut self, world: &mut World, pane: &str, starter: &str, now: OffsetDateTime) {
        let Some((agent, cwd)) = self.starters.get(starter).cloned() else {
            world.push_item(
                pane,
                ItemKind::Notice,
                "This starter's agent is not run by this host any more.",
                now,
            );
            return;
        };
        if let Some(conversation) = world
            .layout
            .panes
            .get(pane)
            .map(|p| p.conversation_id.clone())
        {
            world.layout.held_sessions.insert(
                conversation,
                HostedSession {
                    agent: agent.clone(),
                    cwd: cwd.clone(),
                    session: None,
                },
            );
        }
        let mut bound = Bound::new(&agent, None);
        bound.opening = true;
        if let Some(opening) = self.opening.take() {
            world.start_turn(pane, now);
            world.push_item(pane, ItemKind::User, &opening, now);
            bound.waiting.push(opening);
        }
        self.panes.insert(pane.to_string(), bound);
        self.command(
            &agent,
            Command::Open {
                pane: pane.to_string(),
                cwd,
                how: Opening::New,
                back: None,
            },
        );
    }

    fn send(&mut self, world: &mut World, pane: &str, text: String, now: OffsetDateTime) {
        let Some(bound) = self.panes.get_mut(pane) else {
            world.end_turn(pane, TurnState::Failed, now);
            world.push_item(
                pane,
                ItemKind::Notice,
                "No agent holds this pane any more: start a new one from New.",
                now,
            );
            return;
        };
        if bound.prompting.is_some() {
            bound.waiting.push(text);
            let agent = bound.agent.clone();
            world.push_item(
                pane,
                ItemKind::Notice,
                &format!(
                    "Queued: {agent} reads this when its turn ends (it cannot be steered mid-turn)."
                ),
                now,
            );
            return;
        }
        bound.waiting.push(text);
        if bound.live && bound.session.is_some() {
            self.prompt_waiting(world, pane, None, now);
        } else if !bound.opening {
            let agent = bound.agent.clone();
            bound.opening = true;
            world.set_starting(pane, true, now);
            self.when_initialized(world, &agent, pane.to_string(), Reopen::Revive, now);
        }
    }

    /// Sends what waits as one prompt: on the pane's running turn when there is one that is
    /// not the turn that just ended, else on a new turn.
    fn prompt_waiting(
        &mut self,
        world: &mut World,
        pane: &str,
        ended: Option<&str>,
        now: OffsetDateTime,
    ) {
        let Some(bound) = self.panes.get_mut(pane) else {
            return;
        };
        let Some(session) = bound.session.clone().filter(|_| bound.live) else {
            return;
        };
        if bound.waiting.is_empty() || bound.prompting.is_some() {
            return;
        }
        let running = world
            .turn(pane)
            .filter(|t| t.state == TurnState::Running && Some(t.id.as_str()) != ended)
            .map(|t| t.id.clone());
        let Some(turn) = running.or_else(|| world.start_turn(pane, now)) else {
            return;
        };
        let texts = std::mem::take(&mut bound.waiting);
        bound.prompting = Some(turn.clone());
        bound.denied = false;
        let agent = bound.agent.clone();
        self.command(
            &agent,
            Command::Prompt {
                pane: pane.to_string(),
                turn,
                session,
                texts,
            },
        );
    }

    fn answer(
        &mut self,
        world: &mut World,
        pane: &str,
        ask_id: &str,
        outcome: &Outcome,
        now: OffsetDateTime,
    ) {
        if self.elicitations.answer(world, ask_id, outcome, now) {
            return;
        }
        match self.sign_ins.answer(ask_id, outcome) {
            Some(Chosen::Way {
                agent,
                pane,
                method,
                held,
            }) => {
                tracing::info!(agent, pane, method = %method.id, "a sign-in chosen: auth/login");
                self.signing_in.insert(pane.clone(), (method.name, held));
                self.command(
                    &agent,
                    Command::Login {
                        pane,
                        method: method.id,
                    },
                );
                return;
            }
            Some(Chosen::NotNow { agent, pane, names }) => {
                self.open_failed(world, &agent, &pane, &Failure::SignIn(names), now);
                return;
            }
            None => {}
        }
        let Some(pending) = self.pending.remove(ask_id) else {
            tracing::warn!(
                pane,
                ask_id,
                "an answer for a permission request the agent no longer waits on"
            );
            return;
        };
        let option = outcome
            .option_id
            .as_deref()
            .and_then(|o| pending.card.acp_option(o));
        let reply = match option {
            Some(option) => RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(
                option.to_string(),
            )),
            None => RequestPermissionOutcome::Cancelled,
        };
        tracing::info!(pane, ask_id, option = ?option, "answered the agent's permission request");
        respond(pending.responder, reply);
        let chosen = outcome
            .option_id
            .as_deref()
            .and_then(|id| chosen_option(&pending.card, id));
        // Only an option the agent offered as an allow lets it run; anything else went to it
        // as a reject or `cancelled`.
        let allowed = option.is_some()
            && chosen.as_ref().is_some_and(|o| {
                matches!(o.effect, Some(Effect::Allow) | Some(Effect::AllowAlways))
            });
        let label = chosen.map_or_else(|| "Deny".to_string(), |o| o.label);
        let how = format!("answered {label} from Collie");
        if !allowed && let Some(bound) = self.panes.get_mut(pane) {
            bound.denied = true;
        }
        outcome_item(world, pane, &pending.card.ask.title, allowed, &how, now);
    }

    fn abort(&mut self, world: &mut World, pane: &str, turn: &str, now: OffsetDateTime) {
        self.elicitations
            .give_up(world, pane, "the turn was stopped", false, now);
        for (_, pending) in self.take_pending(pane) {
            respond(pending.responder, RequestPermissionOutcome::Cancelled);
            let title = &pending.card.ask.title;
            outcome_item(world, pane, title, false, "the turn was stopped", now);
        }
        let Some(bound) = self.panes.get_mut(pane) else {
            return;
        };
        let dropped = std::mem::take(&mut bound.waiting).len();
        if dropped > 0 {
            world.push_item(
                pane,
                ItemKind::Notice,
                &not_sent(dropped, "the turn was stopped"),
                now,
            );
        }
        if bound.prompting.as_deref() == Some(turn)
            && let Some(session) = bound.session.clone()
        {
            // Its `cancelled` is then ours, not the agent's own.
            bound.stopping = Some(turn.to_string());
            let agent = bound.agent.clone();
            self.command(&agent, Command::Cancel { session });
        }
    }

    /// A closed pane's turn is cancelled, and its session closed where the agent offers
    /// `session/close` (docs/ACP.md, "Sessions the agent keeps").
    fn closed(&mut self, world: &mut World, pane: &str, now: OffsetDateTime) {
        self.cancel_pending(pane);
        self.sign_ins.forget(pane);
        self.signing_in.remove(pane);
        self.elicitations
            .give_up(world, pane, "the pane was closed", false, now);
        let Some(bound) = self.panes.remove(pane) else {
            return;
        };
        let Some(session) = bound.session.filter(|_| bound.live) else {
            return;
        };
        if bound.prompting.is_some() {
            self.command(
                &bound.agent,
                Command::Cancel {
                    session: session.clone(),
                },
            );
        }
        let closes = self
            .running
            .get(&bound.agent)
            .and_then(|r| r.abilities)
            .is_some_and(|a| a.close);
        if closes {
            self.command(&bound.agent, Command::Close { session });
        }
    }

    fn reopened(&mut self, world: &mut World, pane: &str, now: OffsetDateTime) {
        let record = world
            .layout
            .panes
            .get(pane)
            .and_then(|p| world.layout.held_sessions.get(&p.conversation_id))
            .cloned();
        match record {
            Some(record) if self.specs.contains_key(&record.agent) => {
                let mut bound = Bound::new(&record.agent, record.session.clone());
                bound.opening = true;
                bound.replay = world
                    .layout
                    .panes
                    .get(pane)
                    .is_some_and(|p| self.unreplayed.remove(&p.conversation_id));
                self.panes.insert(pane.to_string(), bound);
                world.set_starting(pane, true, now);
                self.when_initialized(world, &record.agent, pane.to_string(), Reopen::Revive, now);
            }
            _ => {
                world.push_item(pane, ItemKind::Notice, "This conversation's agent is not run by this host; it can be read here but not continued.", now);
            }
        }
    }

    /// Every permission request of a pane is answered `cancelled` (its asks were decided by the
    /// world: a stopped turn, a closed pane).
    fn cancel_pending(&mut self, pane: &str) {
        for (_, pending) in self.take_pending(pane) {
            respond(pending.responder, RequestPermissionOutcome::Cancelled);
        }
    }

    /// Takes every permission request of a pane out of the waiting ones, by ask id.
    fn take_pending(&mut self, pane: &str) -> Vec<(String, Pending)> {
        let asks: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| p.pane == pane)
            .map(|(ask, _)| ask.clone())
            .collect();
        asks.into_iter()
            .filter_map(|ask| self.pending.remove(&ask).map(|p| (ask, p)))
            .collect()
    }

    // ----- what agents did -------------------------------------------------------------------

    fn on_event(&mut self, world: &mut World, agent: &str, event: Event, now: OffsetDateTime) {
        tracing::debug!(agent, ?event, "ACP event");
        match event {
            Event::Initialized { abilities } => self.initialized(world, agent, abilities, now),
            Event::Listed { cwd, sessions } => {
                let made = super::history::listed(world, agent, &cwd, sessions, now);
                self.unreplayed.extend(made);
            }
            Event::Opened {
                pane,
                session,
                loaded,
                modes,
                options,
                note,
            } => {
                if let Some(bound) = self.panes.get_mut(&pane) {
                    bound.stream.settings = Settings::new(modes, options);
                    world.set_settings(&pane, bound.stream.settings.wire());
                }
                // A new session's starting mode is kept; a loaded one keeps what was kept, so
                // a mode that could not be put back is tried again next time.
                let conversation = world
                    .layout
                    .panes
                    .get(&pane)
                    .map(|p| p.conversation_id.clone());
                let mode = world
                    .settings(&pane)
                    .iter()
                    .find(|s| s.id == super::settings::MODE)
                    .map(|s| s.current.clone());
                if let (Some(conversation), Some(mode)) = (conversation, mode)
                    && (!loaded || self.modes.get(&conversation).is_none())
                {
                    self.modes.keep(&conversation, &mode);
                }
                if let Some(note) = note {
                    world.push_item(&pane, ItemKind::Notice, &note, now);
                }
                self.opened(world, &pane, session, loaded, now)
            }
            Event::SetAnswered {
                pane,
                setting,
                value,
                outcome,
            } => self.chosen(world, &pane, &setting, &value, outcome, now),
            Event::OpenFailed { pane, failure } => {
                self.open_failed(world, agent, &pane, &failure, now)
            }
            Event::Update(notification) => {
                let session = notification.session_id.0.to_string();
                self.told(
                    world,
                    agent,
                    session,
                    Told::Update(Box::new(notification.update)),
                    now,
                );
            }
            Event::Told { session, told } => self.told(world, agent, session, told, now),
            Event::Waiting { session, waiting } => {
                if let Some((pane, _)) = self.session_pane(agent, &session) {
                    world.set_waiting(&pane, waiting, now);
                }
            }
            Event::Permission {
                key,
                request,
                responder,
            } => self.permission(world, agent, key, *request, responder, now),
            Event::Elicitation {
                key,
                request,
                responder,
            } => self.elicitation(world, agent, key, &request, responder, now),
            Event::ElicitationComplete { elicitation_id } => {
                self.elicitations.complete(world, &elicitation_id, now)
            }
            Event::PermissionWithdrawn { key } if self.elicitations.withdrawn(world, key, now) => {}
            Event::PermissionWithdrawn { key } => {
                let found = self
                    .pending
                    .iter()
                    .find(|(_, p)| p.key == key)
                    .map(|(id, p)| (id.clone(), p.pane.clone()));
                if let Some((ask, pane)) = found
                    && let Some(pending) = self.pending.remove(&ask)
                {
                    world.decide_ask(&pane, &ask, "The agent took the question back", now);
                    let title = &pending.card.ask.title;
                    outcome_item(
                        world,
                        &pane,
                        title,
                        false,
                        "the agent took the question back",
                        now,
                    );
                }
            }
            Event::PromptEnded {
                pane,
                turn,
                outcome,
            } => self.prompt_ended(world, &pane, &turn, outcome, now),
            Event::Exited { failure } => self.exited(world, agent, &failure, now),
            Event::SignInWanted {
                pane,
                methods,
                held,
            } => {
                let names: Vec<String> = methods.iter().map(|m| m.name.clone()).collect();
                if !self.sign_ins.ask(world, agent, &pane, methods, held, now) {
                    self.open_failed(world, agent, &pane, &Failure::SignIn(names), now);
                }
            }
            Event::SignedIn { pane, outcome } => self.signed_in(world, agent, &pane, outcome, now),
        }
    }

    /// The agent answered `auth/login`: the held opening goes again, or the pane says why not.
    fn signed_in(
        &mut self,
        world: &mut World,
        agent: &str,
        pane: &str,
        outcome: Result<(), Failure>,
        now: OffsetDateTime,
    ) {
        let held = self.signing_in.remove(pane);
        match (outcome, held) {
            (Ok(()), Some((method, held))) => {
                world.push_item(
                    pane,
                    ItemKind::Notice,
                    &format!("Signed in: {agent} took the sign-in “{method}”."),
                    now,
                );
                self.command(
                    agent,
                    Command::Open {
                        pane: pane.to_string(),
                        cwd: held.cwd,
                        how: held.how,
                        back: held.back,
                    },
                );
            }
            (Ok(()), None) => {}
            (Err(failure), _) => {
                let words = failure_words(agent, &failure, "did not sign in");
                world.push_item(pane, ItemKind::Notice, &words, now);
                self.open_failed(world, agent, pane, &failure, now);
            }
        }
    }

    /// What a session told goes to its pane's stream; before its session opened, it waits.
    fn told(
        &mut self,
        world: &mut World,
        agent: &str,
        session: String,
        told: Told,
        now: OffsetDateTime,
    ) {
        let Some((pane, bound)) = self.session_pane(agent, &session) else {
            tracing::debug!(agent, session, "an update before its session opened");
            if self.early.len() >= MAX_EARLY_UPDATES {
                self.early.remove(0);
            }
            self.early.push((agent.to_string(), session, told));
            return;
        };
        if !bound.loading {
            bound.stream.tell(world, &pane, told, now);
        }
    }

    fn session_pane(&mut self, agent: &str, session: &str) -> Option<(String, &mut Bound)> {
        self.panes
            .iter_mut()
            .find(|(_, b)| b.agent == agent && b.live && b.session.as_deref() == Some(session))
            .map(|(p, b)| (p.clone(), b))
    }

    fn initialized(
        &mut self,
        world: &mut World,
        agent: &str,
        abilities: Abilities,
        now: OffsetDateTime,
    ) {
        let Some(running) = self.running.get_mut(agent) else {
            return;
        };
        running.abilities = Some(abilities);
        let reopen = std::mem::take(&mut running.reopen);
        if abilities.list {
            for cwd in self.folders.clone() {
                self.command(agent, Command::List { cwd });
            }
        }
        for (pane, why) in reopen {
            self.open_again(world, agent, &pane, why, abilities, now);
        }
    }

    fn open_again(
        &mut self,
        world: &mut World,
        agent: &str,
        pane: &str,
        why: Reopen,
        abilities: Abilities,
        now: OffsetDateTime,
    ) {
        let cwd = world
            .layout
            .panes
            .get(pane)
            .and_then(|p| world.layout.held_sessions.get(&p.conversation_id))
            .map(|r| r.cwd.clone());
        let Some(bound) = self.panes.get_mut(pane) else {
            return;
        };
        let Some(cwd) = cwd else { return };
        // Resumed where the agent offers it (the pane holds the conversation already), else
        // loaded (docs/ACP.md, "Sessions the agent keeps").
        // The mode the pane was in (`KeptModes`): the session comes back in it (docs/ACP.md,
        // "The mode after a restart or a reload").
        let back = world
            .layout
            .panes
            .get(pane)
            .and_then(|p| self.modes.get(&p.conversation_id))
            .map(str::to_string);
        let unheld = bound.replay;
        match (
            bound
                .session
                .clone()
                .and_then(|s| abilities.again(s, unheld)),
            why,
        ) {
            (Some(how), _) => {
                bound.opening = true;
                bound.loading = !(bound.replay && matches!(how, Opening::Load(_)));
                bound.resuming = matches!(how, Opening::Resume(_));
                self.command(
                    agent,
                    Command::Open {
                        pane: pane.to_string(),
                        cwd,
                        how,
                        back,
                    },
                );
            }
            (None, Reopen::Restart) => {
                self.panes.remove(pane);
                world.push_item(pane, ItemKind::Notice, &format!("{agent} cannot load an old session, so this conversation is kept in history."), now);
                world.close_pane_now(pane, now);
            }
            (None, Reopen::Revive) => {
                let had = bound.session.clone();
                bound.opening = true;
                bound.session = None;
                // A pane whose session never opened (a sign-in was missing, say) just tries
                // again; one that had a session says what is lost.
                if had.is_some() {
                    world.push_item(pane, ItemKind::Notice, &format!("{agent} starts a fresh session here: it cannot load the old one, so it does not remember this conversation."), now);
                }
                self.command(
                    agent,
                    Command::Open {
                        pane: pane.to_string(),
                        cwd,
                        how: Opening::New,
                        back: None,
                    },
                );
            }
        }
    }

    fn opened(
        &mut self,
        world: &mut World,
        pane: &str,
        session: String,
        loaded: bool,
        now: OffsetDateTime,
    ) {
        let Some(bound) = self.panes.get_mut(pane) else {
            return;
        };
        bound.session = Some(session.clone());
        bound.live = true;
        bound.opening = false;
        bound.loading = false;
        let resumed = std::mem::take(&mut bound.resuming);
        let replayed = std::mem::take(&mut bound.replay) && loaded && !resumed;
        let agent = bound.agent.clone();
        if let Some(conversation) = world
            .layout
            .panes
            .get(pane)
            .map(|p| p.conversation_id.clone())
            && let Some(record) = world.layout.held_sessions.get_mut(&conversation)
        {
            record.session = Some(session.clone());
        }
        world.set_starting(pane, false, now);
        let (early, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.early)
            .into_iter()
            .partition(|(a, s, _)| a == &agent && s == &session);
        self.early = later;
        if loaded && !replayed {
            let words = if resumed {
                format!("{agent} resumed this conversation.")
            } else {
                format!("{agent} loaded this conversation again.")
            };
            world.push_item(pane, ItemKind::Notice, &words, now);
        } else if let Some(bound) = self.panes.get_mut(pane) {
            // A new session's early updates, or the replay of a session from the agent's
            // list, which becomes the pane's history this once.
            for (_, _, told) in early {
                bound.stream.tell(world, pane, told, now);
            }
            if replayed {
                bound.stream.flush(world, pane, now);
                world.push_item(
                    pane,
                    ItemKind::Notice,
                    &format!("{agent} loaded this session; above is its conversation as {agent} replayed it."),
                    now,
                );
            }
        }
        self.prompt_waiting(world, pane, None, now);
    }

    fn open_failed(
        &mut self,
        world: &mut World,
        agent: &str,
        pane: &str,
        failure: &Failure,
        now: OffsetDateTime,
    ) {
        let Some(bound) = self.panes.get_mut(pane) else {
            return;
        };
        let was_load = bound.loading;
        bound.opening = false;
        bound.loading = false;
        bound.resuming = false;
        bound.live = false;
        if was_load && matches!(failure, Failure::Refused(_)) {
            // The agent did not keep the session (codex answers `-32002 Resource not found`
            // and claude `Session not found` for one that was never prompted): the pane goes
            // on in a fresh session, says what is lost, and what waits is sent there.
            tracing::info!(
                agent,
                pane,
                ?failure,
                "the agent could not load the session; a fresh one starts"
            );
            bound.session = None;
            bound.opening = true;
            world.push_item(pane, ItemKind::Notice, &format!("{agent} did not keep its earlier session of this conversation, so it starts a fresh one here: it does not remember what was said before."), now);
            let cwd = world
                .layout
                .panes
                .get(pane)
                .and_then(|p| world.layout.held_sessions.get(&p.conversation_id))
                .map(|r| r.cwd.clone());
            if let Some(cwd) = cwd {
                world.set_starting(pane, true, now);
                self.command(
                    agent,
                    Command::Open {
                        pane: pane.to_string(),
                        cwd,
                        how: Opening::New,
                        back: None,
                    },
                );
                return;
            }
            if let Some(bound) = self.panes.get_mut(pane) {
                bound.opening = false;
            }
        }
        let Some(bound) = self.panes.get_mut(pane) else {
            return;
        };
        let dropped = std::mem::take(&mut bound.waiting).len();
        fail_pane(world, pane, now);
        let mut words = failure_words(agent, failure, "could not open a session");
        if dropped > 0 {
            words = format!("{words} {}", not_sent(dropped, "there is no session"));
        }
        tracing::warn!(agent, pane, notice = %super::text::log_line(&words), "the agent opened no session");
        world.push_item(pane, ItemKind::Notice, &words, now);
    }

    fn permission(
        &mut self,
        world: &mut World,
        agent: &str,
        key: u64,
        mut request: RequestPermissionRequest,
        responder: PermissionReply,
        now: OffsetDateTime,
    ) {
        let session = request.session_id.0.to_string();
        let Some((pane, bound)) = self.session_pane(agent, &session) else {
            tracing::warn!(
                agent,
                session,
                "a permission request for a session no pane holds: cancelled"
            );
            respond(responder, RequestPermissionOutcome::Cancelled);
            return;
        };
        // Claude Code asks without the kind its `tool_call` gave (docs/ACP.md, "Permission
        // requests").
        bound.stream.fill_permission(&mut request.tool_call);
        let card = card(&request);
        // An ask's id must never come back once decided (the phone keeps answers by it), and
        // some agents use a call id again in a later turn: the id is the turn's and the call's.
        let turn = world.turn(&pane).map(|t| t.id.clone()).unwrap_or_default();
        let tool_call = format!("{turn}/{}", request.tool_call.tool_call_id.0);
        let ask_id = crate::wire::ask_id(&pane, &tool_call);
        let shown = if let Some(old) = self.pending.remove(&ask_id) {
            // The same call asked again while its card is open: the card changes in place
            // and its revision rises, so an answer to the old words is refused (SPEC A3).
            respond(old.responder, RequestPermissionOutcome::Cancelled);
            let fresh = card.ask.clone();
            world.change_ask(
                &pane,
                &ask_id,
                |ask| {
                    ask.title = fresh.title;
                    ask.permission = fresh.permission;
                },
                now,
            );
            Some(ask_id)
        } else {
            world.open_ask(&pane, &tool_call, card.ask.clone(), now)
        };
        match shown {
            Some(ask_id) => {
                let pending = Pending {
                    key,
                    pane,
                    responder,
                    card,
                };
                self.pending.insert(ask_id, pending);
            }
            None => {
                respond(responder, RequestPermissionOutcome::Cancelled);
                world.push_item(&pane, ItemKind::Notice, &format!("{agent} asked more than the phone can show at once; that request was denied."), now);
            }
        }
    }

    /// An agent's question: a card in the pane of its session, or `cancel` when no pane holds
    /// the session (docs/ACP.md, "Questions the agent asks").
    fn elicitation(
        &mut self,
        world: &mut World,
        agent: &str,
        key: u64,
        request: &agent_client_protocol::v1::schema::CreateElicitationRequest,
        responder: ElicitationReply,
        now: OffsetDateTime,
    ) {
        let found = super::elicitation::scope(request).and_then(|(session, call)| {
            let (pane, bound) = self.session_pane(agent, &session)?;
            Some((pane, call.map(|call| bound.stream.tool_of(&call))))
        });
        let Some((pane, tool)) = found else {
            tracing::warn!(agent, "an elicitation for no pane's session: cancelled");
            let action = agent_client_protocol::v1::schema::ElicitationAction::Cancel;
            let reply = agent_client_protocol::v1::schema::CreateElicitationResponse::new(action);
            if let Err(error) = responder.respond(reply) {
                tracing::warn!(error = %super::text::log_line(&error.to_string()), "the answer could not be sent to the agent");
            }
            return;
        };
        let turn = world.turn(&pane).map(|t| t.id.clone()).unwrap_or_default();
        let asker = Asker {
            agent,
            pane: &pane,
            turn: &turn,
            tool,
        };
        self.elicitations
            .ask(world, asker, key, request, responder, now);
    }

    fn prompt_ended(
        &mut self,
        world: &mut World,
        pane: &str,
        turn: &str,
        outcome: Result<StopReason, Failure>,
        now: OffsetDateTime,
    ) {
        let Some(bound) = self.panes.get_mut(pane) else {
            return;
        };
        if bound.prompting.as_deref() == Some(turn) {
            bound.prompting = None;
        }
        let stopped = bound.stopping.take().is_some_and(|t| t == turn);
        let denied = std::mem::take(&mut bound.denied);
        let agent = bound.agent.clone();
        // The turn's state, what the pane says of its end, and why a call it left open will
        // not finish (docs/ACP.md, "Tool calls and their notices").
        let (state, words, unfinished) = match outcome {
            Ok(StopReason::EndTurn) => (TurnState::Done, None, "the turn ended first".to_string()),
            Ok(StopReason::Cancelled) if stopped => (
                TurnState::Aborted,
                Some(format!("Stopped: {agent} ended this turn when asked.")),
                "the turn was stopped".to_string(),
            ),
            // codex 0.137 answers a Deny by giving up the turn: said as the Deny's doing.
            Ok(StopReason::Cancelled) if denied => (
                TurnState::Aborted,
                Some(format!(
                    "{agent} ended this turn after the Deny. Send a message to tell it what to do instead."
                )),
                "the turn ended after a Deny".to_string(),
            ),
            // Not stopped from here and nothing denied: the agent gave the turn up itself.
            // Said, so a turn never ends with nothing shown.
            Ok(StopReason::Cancelled) => (
                TurnState::Aborted,
                Some(format!(
                    "{agent} cancelled this turn itself, without finishing it. Send a message to tell it what to do next."
                )),
                format!("{agent} cancelled the turn"),
            ),
            Ok(StopReason::MaxTokens) => (
                TurnState::Done,
                Some(format!("{agent} stopped: it reached its token limit.")),
                format!("{agent} reached its token limit"),
            ),
            Ok(StopReason::MaxTurnRequests) => (
                TurnState::Done,
                Some(format!(
                    "{agent} stopped: it reached its limit of steps for one turn."
                )),
                format!("{agent} reached its limit of steps"),
            ),
            Ok(StopReason::Refusal) => (
                TurnState::Done,
                Some(format!("{agent} refused to go on with this turn.")),
                format!("{agent} refused to go on"),
            ),
            Ok(_) => (TurnState::Done, None, "the turn ended".to_string()),
            Err(failure) => (
                TurnState::Failed,
                Some(failure_words(
                    &agent,
                    &failure,
                    "could not finish this turn",
                )),
                "the turn failed".to_string(),
            ),
        };
        bound.stream.end_turn(world, pane, &unfinished, now);
        // Nothing waits for the person once the turn is over (ACP v2's `requires_action`).
        world.set_waiting(pane, false, now);
        // A permission request or a question cannot outlive its prompt.
        self.elicitations
            .give_up(world, pane, "the turn ended before an answer", true, now);
        for (ask, pending) in self.take_pending(pane) {
            respond(pending.responder, RequestPermissionOutcome::Cancelled);
            world.decide_ask(pane, &ask, "The turn ended before an answer", now);
            let title = &pending.card.ask.title;
            outcome_item(
                world,
                pane,
                title,
                false,
                "the turn ended before an answer",
                now,
            );
        }
        let running = world
            .turn(pane)
            .is_some_and(|t| t.id == turn && t.state == TurnState::Running);
        if running {
            world.end_turn(pane, state, now);
        }
        if let Some(words) = words {
            world.push_item(pane, ItemKind::Notice, &words, now);
        }
        self.prompt_waiting(world, pane, Some(turn), now);
    }

    fn exited(&mut self, world: &mut World, agent: &str, failure: &Failure, now: OffsetDateTime) {
        self.running.remove(agent);
        let panes: Vec<String> = self
            .panes
            .iter()
            .filter(|(_, b)| b.agent == agent)
            .map(|(p, _)| p.clone())
            .collect();
        for pane in panes {
            // Their responders went with the process: nothing to answer, only to decide.
            self.elicitations.give_up(
                world,
                &pane,
                "the agent stopped before an answer",
                true,
                now,
            );
            for (ask, pending) in self.take_pending(&pane) {
                world.decide_ask(&pane, &ask, "The agent stopped before an answer", now);
                let title = &pending.card.ask.title;
                outcome_item(
                    world,
                    &pane,
                    title,
                    false,
                    "the agent stopped before an answer",
                    now,
                );
            }
            world.set_waiting(&pane, false, now);
            let Some(bound) = self.panes.get_mut(&pane) else {
                continue;
            };
            let was_busy = bound.prompting.take().is_some() || bound.opening;
            bound.stopping = None;
            bound.live = false;
            bound.opening = false;
            bound.loading = false;
            bound
                .stream
                .end_turn(world, &pane, &format!("{agent} stopped unexpectedly"), now);
            let dropped = std::mem::take(&mut bound.waiting).len();
            if !was_busy && dropped == 0 {
                continue;
            }
            fail_pane(world, &pane, now);
            let mut words = failure_words(agent, failure, "stopped");
            if dropped > 0 {
                words = format!("{words} {}", not_sent(dropped, "it stopped"));
            }
            world.push_item(&pane, ItemKind::Notice, &words, now);
        }
    }

    // ----- agent processes -------------------------------------------------------------------

    fn command(&mut self, agent: &str, command: Command) {
        let Some(running) = self.ensure_running(agent) else {
            return;
        };
        if running.commands.send(command).is_err() {
            tracing::warn!(
                agent,
                "the agent's connection is gone; the command is dropped"
            );
        }
    }

    /// Opens a pane's session again once the agent said whether it can load sessions.
    fn when_initialized(
        &mut self,
        world: &mut World,
        agent: &str,
        pane: String,
        why: Reopen,
        now: OffsetDateTime,
    ) {
        let Some(known) = self.ensure_running(agent).map(|r| r.abilities) else {
            fail_pane(world, &pane, now);
            return;
        };
        match known {
            Some(abilities) => self.open_again(world, agent, &pane, why, abilities, now),
            None => {
                if let Some(running) = self.running.get_mut(agent) {
                    running.reopen.push((pane, why));
                }
            }
        }
    }

    fn ensure_running(&mut self, agent: &str) -> Option<&mut Running> {
        if !self.running.contains_key(agent) {
            let spec = self.specs.get(agent)?;
            tracing::info!(agent, command = ?spec.command, "starting the ACP agent");
            let commands = client::spawn(spec, self.events_in.clone());
            self.running.insert(
                agent.to_string(),
                Running {
                    commands,
                    abilities: None,
                    reopen: Vec::new(),
                },
            );
        }
        self.running.get_mut(agent)
    }
}

impl Bound {
    fn new(agent: &str, session: Option<String>) -> Self {
        Self {
            agent: agent.to_string(),
            session,
            live: false,
            opening: false,
            loading: false,
            resuming: false,
            replay: false,
            prompting: None,
            stopping: None,
            denied: false,
            waiting: Vec::new(),
            stream: Stream::default(),
        }
    }
}

fn respond(responder: PermissionReply, outcome: RequestPermissionOutcome) {
    if let Err(error) = responder.respond(RequestPermissionResponse::new(outcome)) {
        tracing::warn!(error = %super::text::log_line(&error.to_string()), "the answer could not be sent to the agent");
    }
}

/// A pane whose agent failed: its running turn fails, or a failed turn shows that it did.
fn fail_pane(world: &mut World, pane: &str, now: OffsetDateTime) {
    world.set_starting(pane, false, now);
    let running = world
        .turn(pane)
        .is_some_and(|t| t.state == TurnState::Running);
    if !running {
        world.start_turn(pane, now);
    }
    world.end_turn(pane, TurnState::Failed, now);
}

/// What went wrong, in the words of a pane's notice.
pub(crate) fn failure_words(agent: &str, failure: &Failure, what: &str) -> String {
    match failure {
        Failure::NotStarted(why) => {
            format!("{agent} could not start: {why}. Check its command (--acp or [acp.{agent}]).")
        }
        Failure::SignIn(methods) if methods.is_empty() => {
            format!("{agent} needs a sign-in: run it once in a terminal, then send again here.")
        }
        Failure::SignIn(methods) => format!(
            "{agent} needs a sign-in ({}): run it once in a terminal, then send again here.",
            methods.join(", ")
        ),
        Failure::Refused(why) => {
            let why = why.trim_end_matches('.');
            format!("{agent} {what}: {why}. What it printed is in the host's log.")
        }
        Failure::Gone(said) if said.is_empty() => format!(
            "{agent} stopped unexpectedly; what it printed is in the host's log. Send a message to start it again."
        ),
        Failure::Gone(said) => format!(
            "{agent} stopped unexpectedly. It printed last: “{said}” (the whole is in the host's log). Send a message to start it again."
        ),
        Failure::TooLong => format!(
            "{agent} sent a message longer than {} on its stdout, which no message of ACP needs, so the host stopped it; the host's log says when. Send a message to start it again.",
            super::lines::stdout_cap_words()
        ),
    }
}

/// A permission's outcome as an item of the pane's history, kept with the conversation
/// (`--state`): what was asked, allowed or denied, and who or what decided (docs/ACP.md).
/// The title is the card's, built from the tool call and cleaned (SPEC A10, L1).
fn outcome_item(
    world: &mut World,
    pane: &str,
    title: &str,
    allowed: bool,
    how: &str,
    now: OffsetDateTime,
) {
    let title = super::text::clean_line(title);
    let words = if allowed {
        format!("Allowed: {title} ({how}).")
    } else {
        format!("Denied: {title} ({how}).")
    };
    world.push_item(pane, ItemKind::Notice, &words, now);
}

/// One of a card's options, by our id.
fn chosen_option(card: &PermissionCard, id: &str) -> Option<AskOption> {
    card.ask
        .permission
        .as_ref()?
        .options
        .iter()
        .find(|o| o.id == id)
        .cloned()
}

fn not_sent(count: usize, why: &str) -> String {
    if count == 1 {
        format!("1 queued message was not sent: {why}.")
    } else {
        format!("{count} queued messages were not sent: {why}.")
    }
}

/// A folder as a workspace title: under the home folder as `~/…`.
pub(crate) fn folder_title(folder: &Path) -> String {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let shown = match home.as_deref().and_then(|h| folder.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_string(),
        Some(rest) => format!("~/{}", rest.display()),
        None => folder.display().to_string(),
    };
    super::text::clean_line(&shown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp_host::AcpSpec;
    use agent_client_protocol::v1::schema::{
        AvailableCommand, AvailableCommandsUpdate, SessionNotification, SessionUpdate,
    };

    fn t0() -> OffsetDateTime {
        time::macros::datetime!(2026-01-02 03:04:05 UTC)
    }

    /// A host whose agent never answers (`sleep` speaks no ACP): every event is
    /// the test's, in the order the test chooses.
    fn quiet_host() -> (AcpHost, World) {
        let options = AcpHostOptions {
            agents: vec![AcpSpec::new("quiet", vec!["sleep".into(), "30".into()]).expect("a spec")],
            workspaces: vec![std::env::temp_dir()],
            opening: None,
            state: None,
        };
        let mut world =
            crate::rigs::worlds::build(crate::rigs::WorldKind::Empty, 1, true, "h", t0());
        let mut host = AcpHost::new(&options);
        host.adopt(&mut world, &options, false, t0());
        (host, world)
    }

    #[tokio::test]
    async fn an_update_before_session_news_reply_is_shown_once_the_session_opens() {
        let (mut host, mut world) = quiet_host();
        let reply = world.run_starter("quiet-1", "r", t0()).expect("starts");
        let pane = reply.pane_id.expect("a pane");
        host.tick(&mut world, t0());
        let commands = SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(vec![
            AvailableCommand::new("test", "Run the tests"),
        ]));
        let early = SessionNotification::new("s-1", commands);
        host.events_in
            .send(("quiet".into(), Event::Update(Box::new(early))))
            .expect("sent");
        host.events_in
            .send((
                "quiet".into(),
                Event::Opened {
                    pane: pane.clone(),
                    session: "s-1".into(),
                    loaded: false,
                    modes: None,
                    options: None,
                    note: None,
                },
            ))
            .expect("sent");
        host.tick(&mut world, t0());
        let belt = &world.layout.panes[&pane].belt;
        assert_eq!(belt.len(), 1);
        assert_eq!(belt[0].label, "/test");
        assert!(host.early.is_empty());
    }

    /// The pane's tool notices as a reader sees them now.
    fn notices(world: &World, pane: &str) -> Vec<String> {
        let conversation = &world.layout.panes[pane].conversation_id;
        world.layout.conversations[conversation]
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Notice && i.text.starts_with("Tool "))
            .map(|i| i.text.clone())
            .collect()
    }

    /// A quiet host with a pane whose session `s-1` is open.
    fn open_pane() -> (AcpHost, World, String) {
        let (mut host, mut world) = quiet_host();
        let reply = world.run_starter("quiet-1", "r", t0()).expect("starts");
        let pane = reply.pane_id.expect("a pane");
        host.tick(&mut world, t0());
        let opened = Event::Opened {
            pane: pane.clone(),
            session: "s-1".into(),
            loaded: false,
            modes: None,
            options: None,
            note: None,
        };
        host.events_in.send(("quiet".into(), opened)).expect("sent");
        host.tick(&mut world, t0());
        (host, world, pane)
    }

    #[tokio::test]
    async fn claude_code_acps_tool_use_is_one_notice_rewritten_in_place_until_done() {
        let (mut host, mut world, pane) = open_pane();
        let fixture = include_str!("../../../../tests/fixtures/acp/claude-code-acp-tool-use.jsonl");
        let mut seen = Vec::new();
        for line in fixture.lines().filter(|l| !l.trim().is_empty()) {
            let message: serde_json::Value = serde_json::from_str(line).expect("json");
            let notification: SessionNotification =
                serde_json::from_value(message["params"].clone()).expect("a session/update");
            host.events_in
                .send(("quiet".into(), Event::Update(Box::new(notification))))
                .expect("sent");
            host.tick(&mut world, t0());
            seen.push(notices(&world, &pane));
        }
        assert_eq!(
            seen,
            [
                vec!["Tool execute: Terminal (waiting)"],
                vec!["Tool execute: `cargo test` (waiting)"],
                vec!["Tool execute: `cargo test` (running)"],
                vec!["Tool execute: `cargo test` (done)"],
            ],
            "one notice for the one call, rewritten as it moved"
        );
        // On the wire: every event of that notice carries the same item id.
        let ids: std::collections::BTreeSet<String> = world.layout.panes[&pane]
            .events
            .iter()
            .filter_map(|e| e.item.as_ref())
            .filter(|i| i.kind == ItemKind::Notice && i.text.starts_with("Tool "))
            .map(|i| i.id.clone())
            .collect();
        assert_eq!(ids.len(), 1, "{ids:?}");
        // The output replaced the description in one code item.
        let conversation = &world.layout.panes[&pane].conversation_id;
        let code: Vec<&str> = world.layout.conversations[conversation]
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Code)
            .map(|i| i.text.as_str())
            .collect();
        assert_eq!(code.len(), 1);
        assert!(code[0].contains("3 passed"), "{code:?}");
    }

    /// Claude Code's real commands (tests/fixtures/acp/real) are every command of the pane,
    /// past the belt's four, with their hints; its modes are the pane's setting, and a
    /// `current_mode_update` moves it.
    #[tokio::test]
    async fn claude_codes_real_commands_and_modes_reach_the_pane() {
        let (mut host, mut world, pane) = open_pane();
        let line: serde_json::Value = serde_json::from_str(include_str!(
            "../../../../tests/fixtures/acp/real/claude-code-acp-0.16.2-available-commands.json"
        ))
        .expect("json");
        let notification: SessionNotification =
            serde_json::from_value(line["params"].clone()).expect("a session/update");
        update(&host, notification.update);
        let reply: serde_json::Value = serde_json::from_str(include_str!(
            "../../../../tests/fixtures/acp/real/claude-code-acp-0.16.2-session-new.json"
        ))
        .expect("json");
        let modes = serde_json::from_value(reply["result"]["modes"].clone()).expect("modes");
        host.events_in
            .send((
                "quiet".into(),
                Event::Opened {
                    pane: pane.clone(),
                    session: "s-1".into(),
                    loaded: false,
                    modes: Some(modes),
                    options: None,
                    note: None,
                },
            ))
            .expect("sent");
        host.tick(&mut world, t0());
        let record = &world.layout.panes[&pane];
        assert_eq!(record.belt.len(), 4);
        assert_eq!(record.commands.len(), 8);
        assert_eq!(record.commands[0].name, "debug");
        assert_eq!(
            record.commands[0].hint.as_deref(),
            Some("[issue description]")
        );
        assert_eq!(world.settings(&pane)[0].current, "default");
        update(
            &host,
            SessionUpdate::CurrentModeUpdate(
                agent_client_protocol::v1::schema::CurrentModeUpdate::new("plan"),
            ),
        );
        host.tick(&mut world, t0());
        assert_eq!(world.settings(&pane)[0].current_name(), "Plan Mode");
        // A switch for a pane whose agent went away is not sent, and the pane says so.
        host.panes.get_mut(&pane).expect("bound").live = false;
        host.choose(&mut world, &pane, "mode".into(), "default".into(), t0());
        let conversation = &world.layout.panes[&pane].conversation_id;
        let last = world.layout.conversations[conversation]
            .items
            .last()
            .map(|i| i.text.clone())
            .unwrap_or_default();
        assert!(
            last.starts_with("quiet has no session open here, so nothing was switched."),
            "{last}"
        );
        assert_eq!(world.settings(&pane)[0].current, "plan");
    }

    fn update(host: &AcpHost, update: SessionUpdate) {
        let notification = SessionNotification::new("s-1", update);
        host.events_in
            .send(("quiet".into(), Event::Update(Box::new(notification))))
            .expect("sent");
    }

    #[tokio::test]
    async fn a_repeated_tool_call_keeps_what_it_lacks_and_the_turns_end_settles_it() {
        use agent_client_protocol::v1::schema::{ToolCall, ToolCallStatus, ToolKind};
        let (mut host, mut world, pane) = open_pane();
        let turn = world.start_turn(&pane, t0()).expect("a turn");
        host.panes.get_mut(&pane).expect("bound").prompting = Some(turn.clone());
        let first = ToolCall::new("c1".to_string(), "Run \u{1b}[2Jthe tests")
            .kind(ToolKind::Execute)
            .status(ToolCallStatus::InProgress);
        update(&host, SessionUpdate::ToolCall(first));
        // Again with no title, kind or status: all three stay.
        let again = ToolCall::new("c1".to_string(), "");
        update(&host, SessionUpdate::ToolCall(again));
        host.tick(&mut world, t0());
        assert_eq!(
            notices(&world, &pane),
            ["Tool execute: Run [2Jthe tests (running)"],
            "merged, cleaned (L1)"
        );
        // A newer title wins.
        let titled = ToolCall::new("c1".to_string(), "`cargo test`");
        update(&host, SessionUpdate::ToolCall(titled));
        host.tick(&mut world, t0());
        assert_eq!(
            notices(&world, &pane),
            ["Tool execute: `cargo test` (running)"]
        );
        let ended = Event::PromptEnded {
            pane: pane.clone(),
            turn,
            outcome: Ok(StopReason::MaxTokens),
        };
        host.events_in.send(("quiet".into(), ended)).expect("sent");
        host.tick(&mut world, t0());
        assert_eq!(
            notices(&world, &pane),
            ["Tool execute: `cargo test` (not finished: quiet reached its token limit)"]
        );
        let conversation = &world.layout.panes[&pane].conversation_id;
        let last = world.layout.conversations[conversation]
            .items
            .last()
            .expect("an item");
        assert_eq!(last.text, "quiet stopped: it reached its token limit.");
        assert_eq!(
            world.layout.panes[&pane]
                .turn
                .as_ref()
                .map(|t| t.state.clone()),
            Some(TurnState::Done)
        );
    }
}
