//! The script that makes a world move: turns that stream items at a human pace, asks of all four
//! kinds that keep arriving, and the agent's answers to what a phone does (SPEC A3–A6, A10, A16,
//! A17).
//!
//! Time is virtual: `virtual = origin + real_elapsed * speed`, so tests play minutes in a few
//! ticks and `speed == 0` freezes the script. Everything it does comes from cues on an agenda
//! keyed by virtual milliseconds, so a tick with nothing due costs one map lookup.

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::collections::{BTreeMap, VecDeque};
use time::OffsetDateTime;

use super::WorldKind;
use super::worlds::{self, is_chinese, phrases};
use crate::durable::Driver;
use crate::durable::world::{Closer, Happening, World};
use crate::wire::sanitize::truncate_to;
use crate::wire::{self, Ask, AskKind, DecidedBy, Effect, FieldKind, ItemKind, Outcome, TurnState};

/// How long after the script starts its three scripted asks open (virtual ms), before the
/// first pulse can take their panes.
const EXPIRING_ASK_AT: u64 = 2_000;
const CHANGING_ASK_AT: u64 = 3_000;
const DECIDED_ASK_AT: u64 = 4_000;
/// The scripted ask that times out has `expiresAt` this long after it opens (SPEC A6, A13).
pub(crate) const EXPIRES_AFTER_MS: u64 = 45_000;
/// The scripted ask that is changed in place, this long after it opens (SPEC A3).
pub(crate) const CHANGES_AFTER_MS: u64 = 20_000;
/// The scripted ask the program decides itself, this long after it opens (SPEC A5).
pub(crate) const DECIDES_AFTER_MS: u64 = 30_000;
/// The program decides its choice this long (real ms) before the card's deadline: two of the
/// agent's ticks (100 ms each), so the decision is played in a tick before the one in which
/// the clock closes the ask, and the record says the program decided, as the words promise.
const DECIDES_AHEAD_REAL_MS: f64 = 200.0;
/// The summary of the program's decision on the scripted choice.
pub(crate) const DECIDED_SUMMARY: &str = "Went with cargo nextest";
/// The scripted choice's title, by which a restarted script knows it among the open asks.
const DECIDES_TITLE: &str = "Which runner for the integration tests?";

/// Every this often the demo looks for idle panes to wake and for asks it waited on too long.
const PULSE_EVERY_MS: u64 = 3_000;
const FIRST_PULSE_AT: u64 = 6_000;
/// A waited-on ask nobody answers is decided by the program after this long (SPEC A5), so the
/// demo never stalls with every pane waiting.
const PATIENCE_MS: u64 = 120_000;
/// How often a pane that waits on an ask looks whether it was closed by timeout or program.
const CHECK_EVERY_MS: u64 = 2_000;
/// A new item every 1–4 s in a busy pane.
const STEP_GAP_MS: (u64, u64) = (1_000, 4_000);
/// Answers to the phone come quicker than the pane's own pace.
const REACT_GAP_MS: (u64, u64) = (600, 1_500);
/// No new ask on a pane that already has this many open: a handful, never a pile.
const MAX_OPEN_ASKS_FROM_SCRIPT: usize = 3;
/// No new plain ask while this many panes already wait for one, so the phone's inbox holds a
/// handful, not every pane.
const MAX_WAITING_PANES: usize = 4;
/// Cues played in one tick at most, so one tick stays short even after a long sleep.
const MAX_CUES_PER_TICK: usize = 64;
/// A cue played this much later than its time (the machine slept) continues from now, so a
/// wake-up does not pour out hours of items.
const MAX_LAG_MS: u64 = 30_000;

/// The agent side of a pane the script knows.
#[derive(Debug, Default)]
struct PaneScript {
    /// The running turn the plan belongs to.
    turn: Option<String>,
    plan: VecDeque<Step>,
    waiting: Option<Waiting>,
    /// A `Step` cue for this pane is on the agenda.
    stepping: bool,
}

#[derive(Debug)]
struct Waiting {
    ask_id: String,
    since: u64,
}

/// What a pane does next.
#[derive(Debug, Clone)]
enum Step {
    Say(ItemKind, String),
    Code(String, String),
    Link(String, String),
    Ask(Box<Ask>, Scene),
    End,
}

/// The scripted asks with a fate of their own.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Scene {
    Plain,
    /// Left to time out (SPEC A6, A13).
    Expires,
    /// Changed in place after a while (SPEC A3).
    Changes,
    /// Decided by the program after a while (SPEC A5).
    Decides,
}

#[derive(Debug)]
enum Cue {
    Step {
        pane: String,
        turn: String,
    },
    /// Words said in answer to the phone, one by one; `resume` then carries on the plan.
    React {
        pane: String,
        turn: Option<String>,
        steps: VecDeque<Step>,
        resume: bool,
    },
    Check {
        pane: String,
        ask_id: String,
    },
    Change {
        pane: String,
        ask_id: String,
    },
    Decide {
        pane: String,
        ask_id: String,
    },
    Open(Scene),
    Pulse,
}

pub(crate) struct Script {
    rng: ChaCha8Rng,
    speed: f64,
    origin: OffsetDateTime,
    autonomous: bool,
    agenda: BTreeMap<(u64, u64), Cue>,
    cues_scheduled: u64,
    panes: BTreeMap<String, PaneScript>,
    /// Open asks the script knows, to say something sensible when they are answered.
    asks: BTreeMap<String, (String, Ask)>,
    asks_opened: usize,
}

impl Driver for Script {
    fn tick(&mut self, world: &mut World, now: OffsetDateTime) {
        if world.ready {
            Script::tick(self, world, now);
        } else {
            // Nothing can act on a world that is not ready (every route answers 503).
            world.take_happenings();
        }
    }
}

impl Script {
    /// A script for `world` as it is now (fresh or restored): running turns carry on, open asks
    /// are waited for, and the demo adds its own life.
    pub(crate) fn new(
        kind: WorldKind,
        seed: u64,
        speed: f64,
        origin: OffsetDateTime,
        world: &World,
    ) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // The world was laid out from stream 0 of the same seed; the script plays its own.
        rng.set_stream(1);
        if !(speed.is_finite() && speed >= 0.0) {
            tracing::warn!(
                speed,
                "a speed must be a finite number of at least 0; the script stays frozen"
            );
        }
        let mut script = Self {
            rng,
            speed: if speed.is_finite() {
                speed.max(0.0)
            } else {
                0.0
            },
            origin,
            autonomous: kind == WorldKind::Demo,
            agenda: BTreeMap::new(),
            cues_scheduled: 0,
            panes: BTreeMap::new(),
            asks: BTreeMap::new(),
            asks_opened: 0,
        };
        for (pane_id, pane) in &world.layout.panes {
            for open in &pane.asks {
                script
                    .asks
                    .insert(open.ask.id.clone(), (pane_id.clone(), open.ask.clone()));
                // The choice that promised to pick nextest when its time is up still does after
                // a restart, at the time its card counts down to (SPEC A5, A13).
                if open.ask.title == DECIDES_TITLE
                    && let Some(expires) = open.ask.expires_at.as_ref().and_then(wire::Stamp::at)
                {
                    let left = (expires - origin).as_seconds_f64().max(0.0);
                    let ahead = DECIDES_AHEAD_REAL_MS / 1000.0;
                    script.schedule(
                        ((left - ahead).max(0.0) * script.speed * 1000.0) as u64,
                        Cue::Decide {
                            pane: pane_id.clone(),
                            ask_id: open.ask.id.clone(),
                        },
                    );
                }
            }
            // The big world stays as laid out for benchmarks: only the phone moves it.
            if kind == WorldKind::Big {
                continue;
            }
            let Some(turn) = pane.turn.as_ref().filter(|t| t.state == TurnState::Running) else {
                continue;
            };
            let mut state = PaneScript {
                turn: Some(turn.id.clone()),
                ..PaneScript::default()
            };
            state.plan = script.finishing_plan(is_chinese(&pane.title));
            match pane.asks.first() {
                Some(open) => {
                    // Patience runs out at different times, so the asks found open at start
                    // are not all decided in the same second.
                    let head_start = script.rng.random_range(0..=PATIENCE_MS / 2);
                    state.waiting = Some(Waiting {
                        ask_id: open.ask.id.clone(),
                        since: head_start,
                    })
                }
                None => state.stepping = true,
            }
            let first_step = script.gap(STEP_GAP_MS);
            if let Some(waiting) = &state.waiting {
                script.schedule(
                    CHECK_EVERY_MS,
                    Cue::Check {
                        pane: pane_id.clone(),
                        ask_id: waiting.ask_id.clone(),
                    },
                );
            } else {
                script.schedule(
                    first_step,
                    Cue::Step {
                        pane: pane_id.clone(),
                        turn: turn.id.clone(),
                    },
                );
            }
            script.panes.insert(pane_id.clone(), state);
        }
        if script.autonomous {
            script.schedule(EXPIRING_ASK_AT, Cue::Open(Scene::Expires));
            script.schedule(CHANGING_ASK_AT, Cue::Open(Scene::Changes));
            script.schedule(DECIDED_ASK_AT, Cue::Open(Scene::Decides));
            script.schedule(FIRST_PULSE_AT, Cue::Pulse);
        }
        script
    }

    /// True unless the speed is 0: a frozen script does nothing at all.
    pub(crate) fn is_playing(&self) -> bool {
        self.speed > 0.0
    }

    /// Virtual milliseconds since the origin at real time `now`.
    pub(crate) fn clock(&self, now: OffsetDateTime) -> u64 {
        let real = (now - self.origin).as_seconds_f64();
        if real <= 0.0 || !self.is_playing() {
            0
        } else {
            (real * self.speed * 1000.0) as u64
        }
    }

    /// Acts on what the phone did and plays every cue that is due. Cheap when nothing is.
    pub(crate) fn tick(&mut self, world: &mut World, now: OffsetDateTime) {
        let happenings = world.take_happenings();
        if !self.is_playing() {
            return;
        }
        let clock = self.clock(now);
        for happening in happenings {
            self.react(world, happening, clock);
        }
        for _ in 0..MAX_CUES_PER_TICK {
            let Some(entry) = self.agenda.first_entry() else {
                break;
            };
            let due = entry.key().0;
            if due > clock {
                break;
            }
            let cue = entry.remove();
            let at = if clock - due > MAX_LAG_MS { clock } else { due };
            self.play(world, cue, at, now);
        }
    }

    fn schedule(&mut self, at: u64, cue: Cue) {
        self.cues_scheduled += 1;
        self.agenda.insert((at, self.cues_scheduled), cue);
    }

    fn gap(&mut self, (low, high): (u64, u64)) -> u64 {
        self.rng.random_range(low..=high)
    }

    /// The real time `virtual_ms` of script time takes at this speed.
    fn real_span(&self, virtual_ms: u64) -> time::Duration {
        time::Duration::seconds_f64(virtual_ms as f64 / 1000.0 / self.speed.max(f64::MIN_POSITIVE))
    }

    // ----- what the phone did ----------------------------------------------------------------

    fn react(&mut self, world: &World, happening: Happening, clock: u64) {
        match happening {
            Happening::AskAnswered {
                pane,
                ask_id,
                outcome,
                ..
            } => {
                let chinese = pane_is_chinese(world, &pane);
                let asked = self.asks.remove(&ask_id).map(|(_, ask)| ask);
                let steps = answer_steps(asked.as_ref(), &outcome, chinese);
                let waited = match self.panes.get_mut(&pane) {
                    Some(state) if state.waiting.as_ref().is_some_and(|w| w.ask_id == ask_id) => {
                        state.waiting = None;
                        true
                    }
                    _ => false,
                };
                let turn = running_turn(world, &pane);
                let at = clock + self.gap(REACT_GAP_MS);
                self.schedule(
                    at,
                    Cue::React {
                        pane,
                        turn,
                        steps: steps.into(),
                        resume: waited,
                    },
                );
            }
            Happening::TextSent {
                pane,
                turn_id,
                text,
                steered,
            } => {
                let chinese = pane_is_chinese(world, &pane);
                let words = phrases(chinese);
                let quote = quote(&text);
                if steered {
                    let ack = if chinese {
                        format!("收到：「{quote}」。我会照这个调整。")
                    } else {
                        format!("Got it: “{quote}”. I'll take that into account.")
                    };
                    let mut steps = vec![Step::Say(ItemKind::Reply, ack)];
                    if !self.has_plan(&pane, &turn_id) {
                        steps.push(Step::End);
                    }
                    let at = clock + self.gap(REACT_GAP_MS);
                    self.schedule(
                        at,
                        Cue::React {
                            pane,
                            turn: Some(turn_id),
                            steps: steps.into(),
                            resume: false,
                        },
                    );
                } else {
                    let answer = if chinese {
                        format!("你问的是：「{quote}」。我查了一下，结果如下。")
                    } else {
                        format!("You asked: “{quote}”. Here is what I found.")
                    };
                    let mut plan = VecDeque::from([
                        Step::Say(ItemKind::Thinking, pick(&mut self.rng, words.thoughts)),
                        Step::Say(ItemKind::Reply, answer),
                    ]);
                    plan.push_back(self.document(chinese));
                    plan.push_back(Step::Say(
                        ItemKind::Reply,
                        pick(&mut self.rng, words.closings),
                    ));
                    plan.push_back(Step::End);
                    self.begin_plan(&pane, &turn_id, plan, clock);
                }
            }
            Happening::Aborted { pane, turn_id } => {
                if self
                    .panes
                    .get(&pane)
                    .is_some_and(|state| state.turn.as_deref() == Some(turn_id.as_str()))
                {
                    self.panes.remove(&pane);
                }
                self.forget_closed_asks(world);
            }
            Happening::ButtonPressed { pane, button_id } => {
                let Some(turn) = running_turn(world, &pane) else {
                    return;
                };
                let mut steps = button_steps(&button_id);
                if !self.has_plan(&pane, &turn) {
                    steps.push(Step::End);
                }
                let at = clock + self.gap(REACT_GAP_MS);
                self.schedule(
                    at,
                    Cue::React {
                        pane,
                        turn: Some(turn),
                        steps: steps.into(),
                        resume: false,
                    },
                );
            }
            Happening::StarterRun { pane, starter_id } => {
                let Some(turn) = running_turn(world, &pane) else {
                    return;
                };
                let chinese = pane_is_chinese(world, &pane) || starter_id.ends_with("-zh");
                let mut plan = starter_intro(&starter_id);
                plan.extend(self.random_plan(chinese, false));
                self.begin_plan(&pane, &turn, plan, clock);
            }
            // The reference world takes a setting itself; only a hosted pane passes it on.
            Happening::Reopened { .. } | Happening::SettingChosen { .. } => {}
            Happening::Closed { pane } => {
                self.panes.remove(&pane);
                self.asks.retain(|_, (owner, _)| *owner != pane);
            }
        }
    }

    /// True when `turn` of `pane` is carried by a plan the script is playing.
    fn has_plan(&self, pane: &str, turn: &str) -> bool {
        self.panes.get(pane).is_some_and(|state| {
            state.turn.as_deref() == Some(turn)
                && (!state.plan.is_empty() || state.waiting.is_some() || state.stepping)
        })
    }

    fn begin_plan(&mut self, pane: &str, turn: &str, plan: VecDeque<Step>, clock: u64) {
        let state = self.panes.entry(pane.to_string()).or_default();
        *state = PaneScript {
            turn: Some(turn.to_string()),
            plan,
            waiting: None,
            stepping: true,
        };
        let at = clock + self.gap(REACT_GAP_MS);
        self.schedule(
            at,
            Cue::Step {
                pane: pane.to_string(),
                turn: turn.to_string(),
            },
        );
    }

    /// Forgets the asks that closed, but not one a pane still waits on: its check names it in
    /// the words that say how it closed.
    fn forget_closed_asks(&mut self, world: &World) {
        let waited: Vec<String> = self
            .panes
            .values()
            .filter_map(|p| p.waiting.as_ref().map(|w| w.ask_id.clone()))
            .collect();
        self.asks.retain(|ask_id, (pane, _)| {
            waited.contains(ask_id)
                || world
                    .layout
                    .panes
                    .get(pane)
                    .is_some_and(|p| p.asks.iter().any(|a| &a.ask.id == ask_id))
        });
    }

    // ----- the agenda ------------------------------------------------------------------------

    fn play(&mut self, world: &mut World, cue: Cue, at: u64, now: OffsetDateTime) {
        match cue {
            Cue::Step { pane, turn } => self.play_step(world, &pane, &turn, at, now),
            Cue::React {
                pane,
                turn,
                mut steps,
                resume,
            } => {
                if turn.is_some() && running_turn(world, &pane) != turn {
                    return;
                }
                if let Some(step) = steps.pop_front() {
                    self.perform(world, &pane, step, now);
                }
                if !steps.is_empty() {
                    let next = at + self.gap(REACT_GAP_MS);
                    self.schedule(
                        next,
                        Cue::React {
                            pane,
                            turn,
                            steps,
                            resume,
                        },
                    );
                } else if resume {
                    self.resume(world, &pane, at);
                }
            }
            Cue::Check { pane, ask_id } => self.check(world, &pane, &ask_id, at, now),
            Cue::Change { pane, ask_id } => self.change(world, &pane, &ask_id, now),
            Cue::Decide { pane, ask_id } => {
                world.decide_ask(&pane, &ask_id, DECIDED_SUMMARY, now);
            }
            Cue::Open(scene) => self.open_scene(world, scene, at, now),
            Cue::Pulse => self.pulse(world, at, now),
        }
    }

    fn play_step(
        &mut self,
        world: &mut World,
        pane: &str,
        turn: &str,
        at: u64,
        now: OffsetDateTime,
    ) {
        let Some(state) = self.panes.get_mut(pane) else {
            return;
        };
        if state.turn.as_deref() != Some(turn) {
            return;
        }
        state.stepping = false;
        if running_turn(world, pane).as_deref() != Some(turn) {
            // The turn ended without the script (stopped, or the pane closed): forget it, so
            // the pane counts as idle again.
            self.panes.remove(pane);
            return;
        }
        if state.waiting.is_some() {
            return;
        }
        let Some(step) = state.plan.pop_front() else {
            return;
        };
        match step {
            Step::Ask(ask, scene) => {
                if self.open(world, pane, *ask, scene, at, now) {
                    return;
                }
            }
            Step::End => {
                world.end_turn(pane, TurnState::Done, now);
                self.panes.remove(pane);
                return;
            }
            other => self.perform(world, pane, other, now),
        }
        let next = at + self.gap(STEP_GAP_MS);
        self.schedule(
            next,
            Cue::Step {
                pane: pane.to_string(),
                turn: turn.to_string(),
            },
        );
        if let Some(state) = self.panes.get_mut(pane) {
            state.stepping = true;
        }
    }

    /// Carries on the pane's plan after an ask closed.
    fn resume(&mut self, world: &World, pane: &str, at: u64) {
        let Some(turn) = running_turn(world, pane) else {
            return;
        };
        let next = at + self.gap(STEP_GAP_MS);
        let Some(state) = self.panes.get_mut(pane) else {
            return;
        };
        if state.turn.as_deref() != Some(turn.as_str()) || state.stepping || state.waiting.is_some()
        {
            return;
        }
        if state.plan.is_empty() {
            state.plan.push_back(Step::End);
        }
        state.stepping = true;
        self.schedule(
            next,
            Cue::Step {
                pane: pane.to_string(),
                turn,
            },
        );
    }

    /// Says one thing. Asks are opened by [`Script::open`], never here.
    fn perform(&mut self, world: &mut World, pane: &str, step: Step, now: OffsetDateTime) {
        match step {
            Step::Say(kind, text) => {
                world.push_item(pane, kind, &text, now);
            }
            Step::Code(language, code) => worlds::push_code(world, pane, (&language, &code), now),
            Step::Link(url, title) => worlds::push_link(world, pane, (&url, &title), now),
            Step::End => world.end_turn(pane, TurnState::Done, now),
            Step::Ask(..) => {}
        }
    }

    /// Opens an ask the pane then waits for. False when the pane already has a handful open.
    fn open(
        &mut self,
        world: &mut World,
        pane: &str,
        mut ask: Ask,
        scene: Scene,
        at: u64,
        now: OffsetDateTime,
    ) -> bool {
        let open_now = world
            .layout
            .panes
            .get(pane)
            .map_or(usize::MAX, |p| p.asks.len());
        let waiting_panes = self.panes.values().filter(|p| p.waiting.is_some()).count();
        if open_now >= MAX_OPEN_ASKS_FROM_SCRIPT
            || (scene == Scene::Plain && waiting_panes >= MAX_WAITING_PANES)
        {
            return false;
        }
        match scene {
            Scene::Expires => {
                ask.expires_at = Some(wire::Stamp::of(now + self.real_span(EXPIRES_AFTER_MS)));
            }
            // Its words promise a pick in 30 seconds: the card counts down to it (SPEC A13),
            // and the program decides then (the `Decide` cue, a tick or two before the clock
            // would close it).
            Scene::Decides => {
                ask.expires_at = Some(wire::Stamp::of(now + self.real_span(DECIDES_AFTER_MS)));
            }
            Scene::Plain | Scene::Changes => {}
        }
        // The tool call id comes from the layout's counter, so it is new across restarts too and
        // the ask id of SPEC A9 never repeats an old one.
        let tool_call_id = world.fresh_id("call");
        let Some(ask_id) = world.open_ask(pane, &tool_call_id, ask, now) else {
            return false;
        };
        if let Some(opened) = world
            .layout
            .panes
            .get(pane)
            .and_then(|p| p.asks.iter().find(|a| a.ask.id == ask_id))
        {
            self.asks
                .insert(ask_id.clone(), (pane.to_string(), opened.ask.clone()));
        }
        if let Some(state) = self.panes.get_mut(pane) {
            state.waiting = Some(Waiting {
                ask_id: ask_id.clone(),
                since: at,
            });
        }
        self.schedule(
            at + CHECK_EVERY_MS,
            Cue::Check {
                pane: pane.to_string(),
                ask_id: ask_id.clone(),
            },
        );
        match scene {
            Scene::Changes => self.schedule(
                at + CHANGES_AFTER_MS,
                Cue::Change {
                    pane: pane.to_string(),
                    ask_id,
                },
            ),
            Scene::Decides => self.schedule(
                (at + DECIDES_AFTER_MS).saturating_sub((DECIDES_AHEAD_REAL_MS * self.speed) as u64),
                Cue::Decide {
                    pane: pane.to_string(),
                    ask_id,
                },
            ),
            Scene::Plain | Scene::Expires => {}
        }
        true
    }

    /// Looks whether the ask a pane waits on was closed without the phone (timeout, program,
    /// a stopped turn), and carries on if so.
    fn check(&mut self, world: &mut World, pane: &str, ask_id: &str, at: u64, now: OffsetDateTime) {
        let waits = self
            .panes
            .get(pane)
            .and_then(|s| s.waiting.as_ref())
            .is_some_and(|w| w.ask_id == ask_id);
        if !waits {
            return;
        }
        let Some(record) = world.layout.panes.get(pane) else {
            self.panes.remove(pane);
            return;
        };
        if record.asks.iter().any(|a| a.ask.id == ask_id) {
            self.schedule(
                at + CHECK_EVERY_MS,
                Cue::Check {
                    pane: pane.to_string(),
                    ask_id: ask_id.to_string(),
                },
            );
            return;
        }
        let closer = record
            .decisions
            .iter()
            .rev()
            .find(|d| d.ask_id == ask_id)
            .map(|d| d.closer.clone());
        let chinese = is_chinese(&record.title);
        let asked = self.asks.remove(ask_id).map(|(_, ask)| ask);
        let what = asked
            .as_ref()
            .map_or_else(|| "the question".to_string(), |a| a.title.clone());
        let picked_nextest = asked.as_ref().is_some_and(|a| a.title == DECIDES_TITLE)
            && closer.as_ref().is_some_and(|c| *c != Closer::Phone);
        let words = match (closer, chinese) {
            // What the question promised, whether the program or the clock closed it.
            _ if picked_nextest && chinese => "30 秒内没有回答，我选了 cargo nextest。".to_string(),
            _ if picked_nextest => {
                "No answer in 30 seconds, so I picked cargo nextest.".to_string()
            }
            (Some(Closer::Agent(DecidedBy::Timeout)), false) => {
                format!("No answer in time, so I skipped it: {what}")
            }
            (Some(Closer::Agent(DecidedBy::Timeout)), true) => {
                format!("超时未回答，已跳过：{what}")
            }
            (_, false) => format!("Went ahead without an answer to: {what}"),
            (_, true) => format!("未等到回答，已自行决定：{what}"),
        };
        world.push_item(pane, ItemKind::Notice, &words, now);
        if let Some(state) = self.panes.get_mut(pane) {
            state.waiting = None;
            if picked_nextest {
                // A restarted script plays a generic ending: the pick is run all the same.
                state.plan = nextest_run(chinese);
            }
        }
        self.resume(world, pane, at);
    }

    /// The scripted change in place (SPEC A3): the command gets safer, the revision rises.
    fn change(&mut self, world: &mut World, pane: &str, ask_id: &str, now: OffsetDateTime) {
        let changed = world.change_ask(
            pane,
            ask_id,
            |ask| {
                if let Some(body) = &mut ask.permission {
                    if let Some(Value::String(command)) = body.arguments.get_mut("command") {
                        *command = command.replace("--force ", "--force-with-lease ");
                    }
                    ask.title = worlds::permission_title(&body.tool, &body.arguments);
                }
            },
            now,
        );
        if !changed {
            return;
        }
        if let Some(open) = world
            .layout
            .panes
            .get(pane)
            .and_then(|p| p.asks.iter().find(|a| a.ask.id == ask_id))
        {
            self.asks
                .insert(ask_id.to_string(), (pane.to_string(), open.ask.clone()));
        }
        world.push_item(
            pane,
            ItemKind::Notice,
            "Changed the command to --force-with-lease: it refuses to overwrite commits someone else pushed.",
            now,
        );
    }

    // ----- the demo's own life ---------------------------------------------------------------

    /// Opens one of the three scripted asks on an idle pane, preferring the one the demo
    /// laid out for it.
    fn open_scene(&mut self, world: &mut World, scene: Scene, at: u64, now: OffsetDateTime) {
        let preferred = match scene {
            Scene::Expires => "Release notes",
            Scene::Changes => "Inbox screen",
            _ => "集成测试",
        };
        let idle: Vec<&crate::durable::world::PaneRecord> = world
            .layout
            .panes
            .values()
            .filter(|p| running_turn_of(p).is_none() && !self.panes.contains_key(&p.id))
            .collect();
        let Some(pane) = idle
            .iter()
            .find(|p| p.title == preferred)
            .or_else(|| idle.first())
            .map(|p| p.id.clone())
        else {
            self.schedule(at + PULSE_EVERY_MS, Cue::Open(scene));
            return;
        };
        let Some(turn) = world.start_turn(&pane, now) else {
            return;
        };
        let plan = scene_plan(scene);
        self.begin_plan(&pane, &turn, plan, at);
    }

    fn pulse(&mut self, world: &mut World, at: u64, now: OffsetDateTime) {
        self.schedule(at + PULSE_EVERY_MS, Cue::Pulse);
        let overdue: Vec<(String, String)> = self
            .panes
            .iter()
            .filter_map(|(pane, state)| state.waiting.as_ref().map(|w| (pane, w)))
            .filter(|(_, w)| at.saturating_sub(w.since) >= PATIENCE_MS)
            .map(|(pane, w)| (pane.clone(), w.ask_id.clone()))
            .collect();
        for (pane, ask_id) in overdue {
            world.decide_ask(&pane, &ask_id, "Went ahead without an answer", now);
        }
        self.forget_closed_asks(world);
        let busy = self
            .panes
            .values()
            .filter(|s| s.turn.is_some() && s.waiting.is_none())
            .count();
        let wanted = self.rng.random_range(2..=3);
        if busy >= wanted {
            return;
        }
        let idle: Vec<String> = world
            .layout
            .panes
            .values()
            .filter(|p| {
                running_turn_of(p).is_none() && p.asks.is_empty() && !self.panes.contains_key(&p.id)
            })
            .map(|p| p.id.clone())
            .collect();
        let Some(pane) = idle.choose(&mut self.rng).cloned() else {
            return;
        };
        let chinese = pane_is_chinese(world, &pane);
        let Some(turn) = world.start_turn(&pane, now) else {
            return;
        };
        let plan = self.random_plan(chinese, true);
        self.begin_plan(&pane, &turn, plan, at);
    }

    /// A turn of 6–9 items: a prompt, thinking, replies, a document, maybe an ask, maybe a link.
    fn random_plan(&mut self, chinese: bool, with_prompt: bool) -> VecDeque<Step> {
        let words = phrases(chinese);
        let rng = &mut self.rng;
        let mut plan = VecDeque::new();
        if with_prompt {
            plan.push_back(Step::Say(ItemKind::User, pick(rng, words.prompts)));
        }
        plan.push_back(Step::Say(ItemKind::Thinking, pick(rng, words.thoughts)));
        plan.push_back(Step::Say(ItemKind::Reply, pick(rng, words.replies)));
        plan.push_back(self.document(chinese));
        if self.rng.random_bool(0.4) {
            plan.push_back(Step::Say(
                ItemKind::Notice,
                pick(&mut self.rng, words.notices),
            ));
        }
        if self.rng.random_bool(0.35) {
            let ask = self.next_ask(chinese);
            plan.push_back(Step::Ask(Box::new(ask), Scene::Plain));
        }
        plan.push_back(Step::Say(
            ItemKind::Reply,
            pick(&mut self.rng, words.replies),
        ));
        if self.rng.random_bool(0.3)
            && let Some((url, title)) = words.links.choose(&mut self.rng)
        {
            plan.push_back(Step::Link(url.to_string(), title.to_string()));
        }
        plan.push_back(Step::Say(
            ItemKind::Reply,
            pick(&mut self.rng, words.closings),
        ));
        plan.push_back(Step::End);
        plan
    }

    /// What a turn found running when the script took it over: a few more words, then done.
    fn finishing_plan(&mut self, chinese: bool) -> VecDeque<Step> {
        let words = phrases(chinese);
        let mut plan = VecDeque::from([Step::Say(
            ItemKind::Reply,
            pick(&mut self.rng, words.replies),
        )]);
        plan.push_back(self.document(chinese));
        plan.push_back(Step::Say(
            ItemKind::Reply,
            pick(&mut self.rng, words.closings),
        ));
        plan.push_back(Step::End);
        plan
    }

    fn document(&mut self, chinese: bool) -> Step {
        let words = phrases(chinese);
        if self.rng.random_bool(0.5)
            && let Some((language, code)) = words.code.choose(&mut self.rng)
        {
            return Step::Code(language.to_string(), code.to_string());
        }
        Step::Say(ItemKind::Markdown, pick(&mut self.rng, words.markdown))
    }

    /// The next ask, the four kinds in turn so every kind keeps arriving (SPEC A15). A
    /// permission is built from a tool and its arguments (SPEC A10).
    fn next_ask(&mut self, chinese: bool) -> Ask {
        let words = phrases(chinese);
        self.asks_opened += 1;
        match self.asks_opened % 4 {
            0 => {
                let (tool, command) = words
                    .permissions
                    .choose(&mut self.rng)
                    .copied()
                    .unwrap_or(("shell", "ls"));
                let cwd = if chinese {
                    "/home/dev/src/payments"
                } else {
                    "/home/dev/src/collie-phone"
                };
                worlds::permission(tool, json!({"command": command, "cwd": cwd}))
            }
            1 => {
                let (title, prompt, labels) = words
                    .choices
                    .choose(&mut self.rng)
                    .copied()
                    .unwrap_or(("Go on?", "", &["Yes", "No", "Later"]));
                worlds::choice(title, prompt, labels)
            }
            2 => {
                let (title, prompt, placeholder) = words
                    .texts
                    .choose(&mut self.rng)
                    .copied()
                    .unwrap_or(("A word", "Say something.", ""));
                worlds::text(title, prompt, placeholder, false)
            }
            _ if chinese => worlds::form(
                "告警设置",
                "新告警规则怎么通知？",
                vec![
                    worlds::choice_field(
                        "channel",
                        "通知渠道",
                        &["邮件", "短信", "企业微信"],
                        Some("企业微信"),
                    ),
                    worlds::field(
                        "work_hours_only",
                        "仅工作时间",
                        FieldKind::Boolean,
                        true,
                        Some(json!(false)),
                    ),
                    worlds::field(
                        "threshold",
                        "阈值（毫秒）",
                        FieldKind::Number,
                        true,
                        Some(json!(500)),
                    ),
                    worlds::field("note", "备注", FieldKind::Text, false, None),
                ],
            ),
            _ => worlds::deploy_form(),
        }
    }
}

fn pick(rng: &mut ChaCha8Rng, pool: &[&str]) -> String {
    pool.choose(rng).copied().unwrap_or("…").to_string()
}

fn running_turn_of(pane: &crate::durable::world::PaneRecord) -> Option<String> {
    pane.turn
        .as_ref()
        .filter(|t| t.state == TurnState::Running)
        .map(|t| t.id.clone())
}

fn running_turn(world: &World, pane: &str) -> Option<String> {
    world.layout.panes.get(pane).and_then(running_turn_of)
}

fn pane_is_chinese(world: &World, pane: &str) -> bool {
    world
        .layout
        .panes
        .get(pane)
        .is_some_and(|p| is_chinese(&p.title))
}

/// A short quote of what the person wrote, on one line.
fn quote(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = truncate_to(&line, 160);
    if cut.len() < line.len() {
        format!("{cut}…")
    } else {
        cut.to_string()
    }
}

/// The three scripted asks and the turns around them.
fn scene_plan(scene: Scene) -> VecDeque<Step> {
    let say = |kind: ItemKind, text: &str| Step::Say(kind, text.to_string());
    match scene {
        Scene::Expires | Scene::Plain => VecDeque::from([
            say(
                ItemKind::User,
                "Publish the v0.3 release notes to the staging docs.",
            ),
            say(
                ItemKind::Thinking,
                "Publishing is seen by the whole team, so I ask first and skip it if nobody answers.",
            ),
            say(
                ItemKind::Reply,
                "The notes are ready. Publishing needs your OK; I'll wait 45 seconds.",
            ),
            Step::Ask(
                Box::new(worlds::permission(
                    "publish_docs",
                    json!({"path": "docs/releases/0.3.md", "target": "docs-staging", "version": "0.3.0"}),
                )),
                Scene::Expires,
            ),
            say(
                ItemKind::Reply,
                "Release notes are done either way; they are in docs/releases/0.3.md.",
            ),
            Step::End,
        ]),
        Scene::Changes => VecDeque::from([
            say(
                ItemKind::User,
                "Rebase the store branch on main and push it.",
            ),
            say(
                ItemKind::Thinking,
                "The branch was pushed before, so after a rebase the push has to be forced.",
            ),
            say(
                ItemKind::Reply,
                "Rebased cleanly on main: 3 commits replayed.",
            ),
            Step::Ask(
                Box::new(worlds::permission(
                    "shell",
                    json!({"command": "git push --force origin feature/store", "cwd": "/home/dev/src/collie-phone"}),
                )),
                Scene::Changes,
            ),
            say(ItemKind::Reply, "The branch is up to date with main."),
            Step::End,
        ]),
        Scene::Decides => VecDeque::from([
            say(ItemKind::User, "跑一遍集成测试。"),
            say(
                ItemKind::Reply,
                "集成测试有几种跑法，你来选；30 秒内没有回答我就自己决定。",
            ),
            Step::Ask(
                Box::new(worlds::choice(
                    DECIDES_TITLE,
                    "If nobody answers in 30 seconds the agent picks cargo nextest.",
                    &["cargo test", "cargo nextest", "Skip the slow tests"],
                )),
                Scene::Decides,
            ),
        ])
        .into_iter()
        .chain(nextest_run(true))
        .collect(),
    }
}

/// What the scripted choice's pane does once cargo nextest is its runner.
fn nextest_run(chinese: bool) -> VecDeque<Step> {
    VecDeque::from([
        Step::Code(
            "text".into(),
            "    Starting 64 tests across 3 binaries\n        PASS [   0.412s] orders::refund_is_idempotent\n        PASS [   1.087s] payments::callback_retries\n     Summary [   6.931s] 64 tests run: 64 passed, 0 skipped\n".into(),
        ),
        Step::Say(
            ItemKind::Reply,
            if chinese {
                "集成测试全部通过。"
            } else {
                "The integration tests all passed."
            }
            .to_string(),
        ),
        Step::End,
    ])
}

/// What a new pane started from a starter says first (SPEC A17).
fn starter_intro(starter_id: &str) -> VecDeque<Step> {
    let say = |kind: ItemKind, text: &str| Step::Say(kind, text.to_string());
    match starter_id {
        "new-shell-agent" => VecDeque::from([
            say(ItemKind::Reply, "Shell ready in /home/dev/src/collie-phone."),
            Step::Code("console".into(), "$ git status --short\n M src/agent/world.rs\n?? notes.md\n".into()),
        ]),
        "code-review" => VecDeque::from([
            say(ItemKind::Reply, "Reviewing 6 commits on this branch against main."),
            say(
                ItemKind::Markdown,
                "## Review\n\n### Must fix\n- `answer()` reads the body before checking its size\n\n### Nits\n- a comment says *what*, not *why*\n",
            ),
        ]),
        "write-tests" => VecDeque::from([
            say(ItemKind::Reply, "Three functions in src/wire/etag.rs have no tests. Starting there."),
            Step::Code(
                "rust".into(),
                "#[test]\nfn t5_weak_tag_matches() {\n    assert!(etag_matches(\"W/\\\"e-1\\\"\", \"\\\"e-1\\\"\"));\n}\n".into(),
            ),
        ]),
        "explain-repo" => VecDeque::from([
            say(
                ItemKind::Markdown,
                "## A short tour\n\n- `src/wire`: every shape on the wire\n- `src/agent`: the reference agent\n- `tests/`: one file per rule family\n",
            ),
            Step::Link("https://github.com/".into(), "The repository".into()),
        ]),
        _ => VecDeque::from([say(ItemKind::Reply, "Hello! Starting on it now.")]),
    }
}

/// What the pane says after the phone answered an ask (SPEC A4): the tool runs or is denied as
/// the option says; a choice, text or form answer is used.
fn answer_steps(asked: Option<&Ask>, outcome: &Outcome, chinese: bool) -> Vec<Step> {
    let Some(ask) = asked else {
        return vec![Step::Say(
            ItemKind::Notice,
            format!("Answer received: {}", outcome.summary),
        )];
    };
    match &ask.kind {
        AskKind::Permission => {
            let Some(body) = &ask.permission else {
                return Vec::new();
            };
            match outcome.effect {
                Some(Effect::Allow) | Some(Effect::AllowAlways) => {
                    let mut steps = Vec::new();
                    if outcome.effect == Some(Effect::AllowAlways) {
                        steps.push(Step::Say(
                            ItemKind::Notice,
                            format!(
                                "Allowed always: `{}` runs this without asking from now on.",
                                body.tool
                            ),
                        ));
                    }
                    let (language, output) = tool_output(&body.tool, &body.arguments);
                    steps.push(Step::Code(language.to_string(), output));
                    steps
                }
                _ => vec![
                    Step::Say(
                        ItemKind::Notice,
                        format!("Denied: `{}` did not run.", body.tool),
                    ),
                    Step::Say(
                        ItemKind::Reply,
                        if chinese {
                            "好的，不执行。我换个办法。".into()
                        } else {
                            "OK, I won't run it. I'll find another way.".into()
                        },
                    ),
                ],
            }
        }
        AskKind::Choice => {
            let label = outcome
                .option_id
                .as_deref()
                .and_then(|id| ask.options().iter().find(|o| o.id == id))
                .map_or_else(|| outcome.summary.clone(), |o| o.label.clone());
            let text = if chinese {
                format!("好的，采用「{label}」。")
            } else {
                format!("Going with “{label}”.")
            };
            vec![Step::Say(ItemKind::Reply, text)]
        }
        AskKind::Text => {
            let given = quote(outcome.text.as_deref().unwrap_or_default());
            let text = if chinese {
                format!("好的：「{given}」。")
            } else {
                format!("Using “{given}”.")
            };
            vec![Step::Say(ItemKind::Reply, text)]
        }
        AskKind::Form => {
            let fields = ask.form.as_ref().map_or(&[][..], |f| &f.fields[..]);
            let values = outcome.values.clone().unwrap_or_default();
            let parts: Vec<String> = fields
                .iter()
                .filter_map(|field| {
                    let value = values.get(&field.id)?;
                    let shown = match value {
                        Value::Bool(true) => "yes".to_string(),
                        Value::Bool(false) => "no".to_string(),
                        Value::String(s) => field
                            .options
                            .iter()
                            .find(|o| &o.id == s)
                            .map_or_else(|| quote(s), |o| o.label.clone()),
                        Value::Null => return None,
                        other => other.to_string(),
                    };
                    Some(format!("{}: {shown}", field.label))
                })
                .collect();
            let text = if chinese {
                format!("按这些设置继续：{}。", parts.join("，"))
            } else {
                format!("Going ahead with {}.", parts.join(", "))
            };
            vec![Step::Say(ItemKind::Reply, text)]
        }
        AskKind::Unknown(_) => Vec::new(),
    }
}

/// Plausible output of a tool the phone allowed.
fn tool_output(tool: &str, arguments: &Value) -> (&'static str, String) {
    let command = arguments
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if tool != "shell" {
        return (
            "json",
            json!({"tool": tool, "ok": true, "arguments": arguments}).to_string(),
        );
    }
    let output = if command.starts_with("rm ") {
        "removed 214 files (38.2 MB)".to_string()
    } else if command.contains("test") {
        "running 118 tests\n........................................\ntest result: ok. 118 passed; 0 failed; finished in 6.42s".to_string()
    } else if command.starts_with("git push") {
        "To github.com:dev/collie-phone.git\n + 4f2c1e0...9b7d3aa HEAD -> feature/store (forced update)".to_string()
    } else if command.starts_with("psql") {
        "BEGIN\nALTER TABLE\nCREATE INDEX\nCOMMIT".to_string()
    } else {
        "done (exit status 0)".to_string()
    };
    ("console", format!("$ {command}\n{output}"))
}

/// Plausible output of a belt button.
fn button_steps(button_id: &str) -> Vec<Step> {
    let code = |text: &str| Step::Code("text".into(), text.to_string());
    let say = |kind: ItemKind, text: &str| Step::Say(kind, text.to_string());
    match button_id {
        id if id.starts_with("run") => vec![
            say(ItemKind::Notice, "Running the test suite…"),
            code(
                "running 118 tests\ntest wire::etag::t5_weak_tag_matches ... ok\ntest agent::world::a7_late_tap_gets_decided ... ok\n\ntest result: ok. 118 passed; 0 failed; 0 ignored; finished in 6.42s",
            ),
        ],
        id if id.starts_with("lint") => {
            vec![code(
                "    Checking collie-phone v0.1.0\n    Finished `dev` profile in 3.91s\nclippy: 0 warnings",
            )]
        }
        id if id.starts_with("deploy") => vec![
            say(ItemKind::Notice, "Deploying a preview…"),
            Step::Link(
                "https://preview-4821.example.dev/".into(),
                "Preview deployment".into(),
            ),
        ],
        id if id.starts_with("summarize") => vec![say(
            ItemKind::Markdown,
            "## Summary\n\n- Added the abort route\n- Cleaned the build folder\n- 118 tests pass\n",
        )],
        "format" => vec![say(ItemKind::Notice, "Formatted 14 files.")],
        "build" => vec![code(
            "   Compiling collie-phone v0.1.0\n    Finished `release` profile [optimized] in 48.2s",
        )],
        "open-pr" => vec![Step::Link(
            "https://github.com/example/collie-phone/pull/128".into(),
            "PR #128".into(),
        )],
        "benchmark" => vec![code(
            "snapshot/demo   time:   [212.4 µs 214.9 µs 217.8 µs]\nevents/big      time:   [1.873 ms 1.902 ms 1.934 ms]",
        )],
        other => vec![say(ItemKind::Notice, &format!("{other}: done."))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::durable::runtime::Agent;
    use crate::durable::world::PaneRecord;
    use crate::rigs::WorldOptions;
    use crate::wire::{AbortRequest, ActionRequest, Answer, AnswerRequest, Item, SendRequest};

    fn t0() -> OffsetDateTime {
        time::macros::datetime!(2026-01-02 03:04:05 UTC)
    }

    fn demo(speed: f64, seed: u64) -> Agent {
        let options = WorldOptions {
            kind: WorldKind::Demo,
            seed,
            speed,
            ..WorldOptions::default()
        };
        Agent::new_at(options, t0()).expect("starts")
    }

    fn at(ms: u64) -> OffsetDateTime {
        t0() + time::Duration::milliseconds(ms as i64)
    }

    /// Ticks every `step` ms of real time from `from` to `to`, as the server's timer would.
    fn run(agent: &mut Agent, from: u64, to: u64, step: u64) {
        let mut ms = from;
        while ms <= to {
            agent.tick(at(ms));
            ms += step;
        }
    }

    fn pane<'a>(agent: &'a Agent, title: &str) -> &'a PaneRecord {
        agent
            .world
            .layout
            .panes
            .values()
            .find(|p| p.title == title)
            .expect("the demo has this pane")
    }

    fn items<'a>(agent: &'a Agent, pane: &PaneRecord) -> &'a [Item] {
        &agent.world.layout.conversations[&pane.conversation_id].items
    }

    fn layout_json(agent: &Agent) -> String {
        serde_json::to_string(&agent.world.layout).expect("serializes")
    }

    #[test]
    fn same_seed_plays_the_same_script() {
        let mut a = demo(1.0, 11);
        let mut b = demo(1.0, 11);
        run(&mut a, 0, 120_000, 250);
        run(&mut b, 0, 120_000, 250);
        assert_eq!(layout_json(&a), layout_json(&b));
        let mut c = demo(1.0, 12);
        run(&mut c, 0, 120_000, 250);
        assert_ne!(layout_json(&a), layout_json(&c));
    }

    #[test]
    fn speed_zero_freezes_everything() {
        let mut agent = demo(0.0, 1);
        let before = layout_json(&agent);
        let rev = agent.world.rev;
        run(&mut agent, 0, 600_000, 1_000);
        assert_eq!(layout_json(&agent), before);
        assert_eq!(agent.world.rev, rev);
        // A phone's answer is taken by the world, but the frozen script says nothing about it.
        let showcase = pane(&agent, "HTTP routes 🚀").id.clone();
        let ask = pane(&agent, "HTTP routes 🚀").asks[0].ask.clone();
        let count = items(&agent, pane(&agent, "HTTP routes 🚀")).len();
        let request = AnswerRequest {
            request_id: "r1".into(),
            ask_id: ask.id,
            revision: ask.revision,
            answer: Answer {
                option_id: Some(worlds::ALLOW_ONCE.into()),
                ..Answer::default()
            },
        };
        agent
            .world
            .answer(&showcase, &request, at(601_000))
            .expect("answers");
        run(&mut agent, 601_000, 700_000, 1_000);
        assert_eq!(items(&agent, pane(&agent, "HTTP routes 🚀")).len(), count);
    }

    /// Ticks every 100 ms until the pane titled `title` has an open ask; returns the tick's
    /// time and the ask.
    fn run_until_asked(agent: &mut Agent, title: &str, from: u64) -> (u64, Ask) {
        let mut ms = from;
        loop {
            agent.tick(at(ms));
            if let Some(open) = pane(agent, title).asks.first() {
                return (ms, open.ask.clone());
            }
            ms += 100;
            assert!(ms < from + 60_000, "no ask on {title}");
        }
    }

    /// When an ask opened and when it expires.
    fn ask_window(ask: &Ask) -> (time::OffsetDateTime, time::OffsetDateTime) {
        let at = |stamp: &Option<wire::Stamp>| {
            stamp
                .as_ref()
                .and_then(wire::Stamp::at)
                .expect("a timestamp")
        };
        (at(&ask.opened_at), at(&ask.expires_at))
    }

    #[test]
    fn a6_a13_scripted_ask_times_out_45s_after_it_opens() {
        let mut agent = demo(1.0, 1);
        let (opened_ms, ask) = run_until_asked(&mut agent, "Release notes", 0);
        assert!(opened_ms >= EXPIRING_ASK_AT);
        let (opened, expires) = ask_window(&ask);
        assert_eq!(expires - opened, time::Duration::seconds(45));
        run(&mut agent, opened_ms + 100, opened_ms + 44_900, 100);
        assert!(
            pane(&agent, "Release notes")
                .asks
                .iter()
                .any(|a| a.ask.id == ask.id),
            "still open before 45 s"
        );
        run(&mut agent, opened_ms + 45_000, opened_ms + 50_000, 100);
        let notes = pane(&agent, "Release notes");
        assert!(notes.asks.iter().all(|a| a.ask.id != ask.id));
        let decision = notes
            .decisions
            .iter()
            .find(|d| d.ask_id == ask.id)
            .expect("decided");
        assert_eq!(decision.closer, Closer::Agent(DecidedBy::Timeout));
        assert!(
            items(&agent, notes)
                .iter()
                .any(|i| i.text.starts_with("No answer in time"))
        );
    }

    #[test]
    fn a6_expiry_is_scaled_by_speed() {
        let mut agent = demo(10.0, 1);
        let (_, ask) = run_until_asked(&mut agent, "Release notes", 0);
        let (opened, expires) = ask_window(&ask);
        assert_eq!(expires - opened, time::Duration::milliseconds(4_500));
    }

    #[test]
    fn a3_scripted_ask_changes_in_place_after_20s() {
        let mut agent = demo(1.0, 1);
        let (opened_ms, open) = run_until_asked(&mut agent, "Inbox screen", 0);
        assert_eq!(open.revision, 1);
        let command = |ask: &Ask| {
            ask.permission
                .as_ref()
                .map(|p| p.arguments["command"].clone())
        };
        assert_eq!(
            command(&open),
            Some(json!("git push --force origin feature/store"))
        );
        run(&mut agent, opened_ms + 100, opened_ms + 19_000, 100);
        assert_eq!(pane(&agent, "Inbox screen").asks[0].ask.revision, 1);
        run(&mut agent, opened_ms + 19_100, opened_ms + 21_000, 100);
        let changed = pane(&agent, "Inbox screen").asks[0].ask.clone();
        assert_eq!(changed.id, open.id);
        assert_eq!(changed.revision, 2);
        assert_eq!(
            command(&changed),
            Some(json!("git push --force-with-lease origin feature/store"))
        );
        assert!(
            changed.title.contains("--force-with-lease"),
            "the title follows the arguments (A10)"
        );
    }

    #[test]
    fn a5_scripted_ask_is_decided_by_the_program_after_30s() {
        let mut agent = demo(1.0, 1);
        let (opened_ms, open) = run_until_asked(&mut agent, "集成测试", 0);
        assert_eq!(open.kind, AskKind::Choice);
        run(&mut agent, opened_ms + 100, opened_ms + 29_000, 100);
        assert_eq!(pane(&agent, "集成测试").asks.len(), 1);
        run(&mut agent, opened_ms + 29_100, opened_ms + 31_000, 100);
        let tests = pane(&agent, "集成测试");
        assert!(tests.asks.is_empty());
        let decision = tests
            .decisions
            .iter()
            .find(|d| d.ask_id == open.id)
            .expect("decided");
        assert_eq!(decision.closer, Closer::Agent(DecidedBy::Program));
        assert_eq!(decision.outcome.summary, DECIDED_SUMMARY);
    }

    /// The question that names a time has it as its `expiresAt` (SPEC A13), and the demo does
    /// what it promised when the time is up, a restart in between or not: it picks cargo
    /// nextest and runs it, and its words say so.
    #[test]
    fn a13_the_question_that_names_30_seconds_expires_then_and_nextest_is_picked() {
        let options = crate::durable::AgentOptions {
            restart_every: Some(std::time::Duration::from_secs(20)),
            ..crate::durable::AgentOptions::from(WorldOptions::default())
        };
        let mut restarted = Agent::new_at(options, t0()).expect("starts");
        for agent in [&mut demo(1.0, 1), &mut restarted] {
            let (opened_ms, open) = run_until_asked(agent, "集成测试", 0);
            assert!(
                open.choice
                    .as_ref()
                    .and_then(|c| c.prompt.as_deref())
                    .is_some_and(|p| p.contains("30 seconds")),
                "{open:?}"
            );
            let (opened, expires) = ask_window(&open);
            assert_eq!(expires - opened, time::Duration::seconds(30));
            run(agent, opened_ms + 100, opened_ms + 29_000, 100);
            assert_eq!(pane(agent, "集成测试").asks.len(), 1, "open until then");
            run(agent, opened_ms + 29_100, opened_ms + 40_000, 100);
            let tests = pane(agent, "集成测试");
            assert!(tests.asks.is_empty());
            let decision = tests
                .decisions
                .iter()
                .find(|d| d.ask_id == open.id)
                .expect("decided");
            assert_eq!(decision.outcome.summary, DECIDED_SUMMARY);
            let said: Vec<&str> = items(agent, tests)
                .iter()
                .map(|i| i.text.as_str())
                .collect();
            assert!(
                said.contains(&"30 秒内没有回答，我选了 cargo nextest。"),
                "{said:?}"
            );
            assert!(
                said.iter().any(|t| t.contains("64 tests run: 64 passed")),
                "nextest ran: {said:?}"
            );
        }
    }

    /// An ask that timed out is named in the words that say so, whenever the script looks.
    #[test]
    fn a6_the_words_after_a_timeout_name_the_ask() {
        for seed in 1..=4 {
            let mut agent = demo(1.0, seed);
            let (opened_ms, ask) = run_until_asked(&mut agent, "Release notes", 0);
            run(&mut agent, opened_ms + 100, opened_ms + 50_000, 100);
            let notes = pane(&agent, "Release notes");
            let said = format!("No answer in time, so I skipped it: {}", ask.title);
            assert!(
                items(&agent, notes).iter().any(|i| i.text == said),
                "seed {seed}: {:?}",
                items(&agent, notes)
                    .iter()
                    .map(|i| &i.text)
                    .collect::<Vec<_>>()
            );
        }
    }

    fn answer(agent: &mut Agent, title: &str, answer: Answer, ms: u64) {
        let record = pane(agent, title);
        let (pane_id, ask) = (record.id.clone(), record.asks[0].ask.clone());
        let request = AnswerRequest {
            request_id: format!("r-{ms}"),
            ask_id: ask.id,
            revision: ask.revision,
            answer,
        };
        agent
            .world
            .answer(&pane_id, &request, at(ms))
            .expect("answers");
    }

    #[test]
    fn a4_allowed_permission_runs_the_tool() {
        let mut agent = demo(1.0, 1);
        answer(
            &mut agent,
            "HTTP routes 🚀",
            Answer {
                option_id: Some(worlds::ALLOW_ONCE.into()),
                ..Answer::default()
            },
            500,
        );
        run(&mut agent, 500, 5_000, 100);
        let ran = items(&agent, pane(&agent, "HTTP routes 🚀"))
            .iter()
            .any(|i| i.kind == ItemKind::Code && i.text.starts_with("$ rm -rf build/"));
        assert!(ran);
    }

    #[test]
    fn a4_denied_permission_says_so() {
        let mut agent = demo(1.0, 1);
        answer(
            &mut agent,
            "HTTP routes 🚀",
            Answer {
                option_id: Some(worlds::DENY.into()),
                ..Answer::default()
            },
            500,
        );
        run(&mut agent, 500, 5_000, 100);
        let showcase = items(&agent, pane(&agent, "HTTP routes 🚀"));
        assert!(
            showcase
                .iter()
                .any(|i| i.text == "Denied: `shell` did not run.")
        );
        assert!(!showcase.iter().any(|i| i.text.starts_with("$ rm")));
    }

    #[test]
    fn choice_text_and_form_answers_are_used() {
        let mut agent = demo(1.0, 1);
        answer(
            &mut agent,
            "重构订单服务 🧾",
            Answer {
                option_id: Some("o2".into()),
                ..Answer::default()
            },
            500,
        );
        answer(
            &mut agent,
            "Docs ✍️",
            Answer {
                text: Some("Quiet Lake".into()),
                ..Answer::default()
            },
            500,
        );
        let values = [
            ("environment".to_string(), json!("canary")),
            ("dry_run".to_string(), json!(false)),
            ("replicas".to_string(), json!(3)),
        ];
        answer(
            &mut agent,
            "Pipeline ⚙️",
            Answer {
                values: Some(values.into_iter().collect()),
                ..Answer::default()
            },
            500,
        );
        run(&mut agent, 500, 5_000, 100);
        let said = |title: &str, text: &str| {
            items(&agent, pane(&agent, title))
                .iter()
                .any(|i| i.text == text)
        };
        assert!(said("重构订单服务 🧾", "好的，采用「双写过渡」。"));
        assert!(said("Docs ✍️", "Using “Quiet Lake”."));
        assert!(said(
            "Pipeline ⚙️",
            "Going ahead with Environment: Canary, Dry run first: no, Replicas: 3."
        ));
    }

    #[test]
    fn sent_text_gets_a_reply_and_the_turn_ends() {
        let mut agent = demo(1.0, 1);
        let inbox = pane(&agent, "Inbox screen").id.clone();
        let turn_id = agent.world.turn(&inbox).map(|t| t.id.clone());
        let request = SendRequest {
            request_id: "s1".into(),
            turn_id,
            text: "Why is the inbox slow?".into(),
        };
        let reply = agent.world.send(&inbox, &request, at(100)).expect("sends");
        let turn = reply.turn_id.expect("a new turn");
        run(&mut agent, 100, 60_000, 100);
        let record = pane(&agent, "Inbox screen");
        assert!(
            items(&agent, record)
                .iter()
                .any(|i| i.text.contains("“Why is the inbox slow?”"))
        );
        let still_running = record
            .turn
            .as_ref()
            .is_some_and(|t| t.id == turn && t.state == TurnState::Running);
        assert!(!still_running, "the turn the text started has ended");
    }

    #[test]
    fn belt_button_gives_output() {
        let mut agent = demo(1.0, 1);
        let record = pane(&agent, "Inbox screen");
        let (pane_id, button) = (record.id.clone(), record.belt[0].clone());
        let request = ActionRequest {
            request_id: "b1".into(),
            button_id: button.id.clone(),
        };
        agent
            .world
            .action(&pane_id, &request, at(100))
            .expect("presses");
        let before = items(&agent, pane(&agent, "Inbox screen")).len();
        run(&mut agent, 100, 10_000, 100);
        assert!(items(&agent, pane(&agent, "Inbox screen")).len() > before);
    }

    #[test]
    fn a17_starter_pane_starts_talking() {
        let mut agent = demo(1.0, 1);
        let reply = agent
            .world
            .run_starter("new-shell-agent", "st1", at(100))
            .expect("runs");
        let pane_id = reply.pane_id.expect("names the pane");
        run(&mut agent, 100, 30_000, 100);
        let record = &agent.world.layout.panes[&pane_id];
        let said = items(&agent, record);
        assert!(
            said.iter()
                .any(|i| i.text == "Shell ready in /home/dev/src/collie-phone.")
        );
        assert!(said.len() >= 4);
    }

    #[test]
    fn a16_abort_stops_the_turn_for_good() {
        let mut agent = demo(1.0, 1);
        let streaming = pane(&agent, "Store & restarts");
        let (pane_id, turn_id) = (
            streaming.id.clone(),
            streaming
                .turn
                .as_ref()
                .map(|t| t.id.clone())
                .expect("running"),
        );
        agent
            .world
            .abort(
                &pane_id,
                &AbortRequest {
                    request_id: "a1".into(),
                    turn_id: turn_id.clone(),
                },
                at(100),
            )
            .expect("aborts");
        run(&mut agent, 100, 5_900, 100);
        let after_abort = items(&agent, pane(&agent, "Store & restarts"))
            .iter()
            .filter(|i| i.turn_id.as_deref() == Some(&turn_id))
            .count();
        run(&mut agent, 6_000, 60_000, 100);
        let later = items(&agent, pane(&agent, "Store & restarts"))
            .iter()
            .filter(|i| i.turn_id.as_deref() == Some(&turn_id))
            .count();
        assert_eq!(after_abort, later);
        // The stopped pane is idle again, and the demo wakes it some time later.
        let turns_then = pane(&agent, "Store & restarts").turns_started;
        run(&mut agent, 60_100, 900_000, 500);
        assert!(pane(&agent, "Store & restarts").turns_started > turns_then);
    }

    #[test]
    fn demo_never_runs_dry_and_never_piles_up() {
        let mut agent = demo(1.0, 3);
        let mut kinds = std::collections::BTreeSet::new();
        let mut known: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        let mut most_streaming = 0;
        let mut streaming_seen = Vec::new();
        for step in 0..2_400u64 {
            agent.tick(at(step * 500));
            let panes = &agent.world.layout.panes;
            for record in panes.values() {
                assert!(
                    record.asks.len() <= MAX_OPEN_ASKS_FROM_SCRIPT + 1,
                    "{} has {} asks",
                    record.title,
                    record.asks.len()
                );
                for open in &record.asks {
                    if known.insert(open.ask.id.clone()) && step > 0 {
                        kinds.insert(open.ask.kind.as_str().to_string());
                    }
                    if let Some(body) = &open.ask.permission {
                        assert_eq!(
                            open.ask.title,
                            worlds::permission_title(&body.tool, &body.arguments),
                            "A10"
                        );
                    }
                }
            }
            let streaming = panes
                .values()
                .filter(|p| {
                    p.asks.is_empty()
                        && p.turn
                            .as_ref()
                            .is_some_and(|t| t.state == TurnState::Running)
                })
                .count();
            most_streaming = most_streaming.max(streaming);
            streaming_seen.push(streaming);
            // Past the first scripted minutes the inbox holds a handful at most.
            if step > 400 {
                let asking = panes.values().filter(|p| !p.asks.is_empty()).count();
                assert!(asking <= MAX_WAITING_PANES, "{asking} panes wait at {step}");
            }
        }
        assert_eq!(
            kinds.len(),
            4,
            "new asks of every kind keep arriving: {kinds:?}"
        );
        streaming_seen.sort_unstable();
        let median = streaming_seen[streaming_seen.len() / 2];
        assert!(
            (1..=3).contains(&median),
            "two or three panes talk at a time: median {median}"
        );
        assert!(
            most_streaming <= 6,
            "not all panes busy at once: {most_streaming} were"
        );
        let late_items = agent
            .world
            .layout
            .conversations
            .values()
            .flat_map(|c| &c.items)
            .filter(|i| {
                i.at.as_deref()
                    .and_then(wire::time::parse)
                    .is_some_and(|t| t > at(1_000_000))
            })
            .count();
        assert!(
            late_items > 50,
            "still talking after 16 minutes: {late_items}"
        );
    }

    #[test]
    fn busy_panes_add_an_item_every_one_to_four_seconds() {
        let mut agent = demo(1.0, 5);
        run(&mut agent, 0, 300_000, 100);
        let mut gaps = Vec::new();
        for conversation in agent
            .world
            .layout
            .conversations
            .values()
            .filter(|c| c.pane_id.is_some())
        {
            let mut turns: BTreeMap<&str, Vec<OffsetDateTime>> = BTreeMap::new();
            for item in &conversation.items {
                if let (Some(turn), Some(when)) = (
                    item.turn_id.as_deref(),
                    item.at.as_deref().and_then(wire::time::parse),
                ) && when > t0()
                {
                    turns.entry(turn).or_default().push(when);
                }
            }
            for times in turns.values() {
                gaps.extend(
                    times
                        .windows(2)
                        .map(|pair| (pair[1] - pair[0]).whole_milliseconds()),
                );
            }
        }
        gaps.sort_unstable();
        assert!(gaps.len() > 100, "the demo talked: {} gaps", gaps.len());
        // Answers come after 0.6 s at least; the tick is 100 ms.
        assert!(gaps[0] >= 500, "no two items at once: {}", gaps[0]);
        let median = gaps[gaps.len() / 2];
        assert!(
            (1_000..=4_000).contains(&median),
            "a human pace: median gap {median} ms"
        );
    }

    #[test]
    fn a_quiet_tick_is_cheap() {
        let mut agent = demo(1.0, 1);
        agent.tick(at(0));
        let started = std::time::Instant::now();
        for n in 0..1_000 {
            // Inside the first step gap: nothing is due.
            agent.tick(at(1 + n % 500));
        }
        let each = started.elapsed() / 1_000;
        assert!(
            each < std::time::Duration::from_millis(1),
            "a quiet tick took {each:?}"
        );
    }
}
