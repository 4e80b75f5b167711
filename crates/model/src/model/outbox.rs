//! Words that left a pane's box and are on their way (SPEC Q1–Q5, A16, D5).
//!
//! Enter takes the words out of the box at once: one send is exactly the words in the box when
//! Enter was pressed, and what is typed next is a new draft that never rides along. Each send
//! waits here, drawn as a line above the box with its intent's state, until the agent took it.
//! Sends of one pane leave one at a time, in the order typed, so "alpha", " beta", " gamma"
//! arrive in that order; a send that failed or whose outcome is unknown holds the ones after
//! it until the person retries it (same request id, same words) or takes the words back into
//! the box. Nothing typed is lost: the words stay here, and in the journal's receipt.

use std::collections::{HashMap, VecDeque};

use time::OffsetDateTime;

use crate::engine::{IntentKind, IntentRecord, IntentState};

/// How long a line that was taken stays, saying "sent", so the words do not vanish before
/// the chat shows them on the next poll (1 s on a socket, 2 s over TLS: SPEC S7, T8).
pub const SENT_LINE_SECONDS: i64 = 3;

/// How long a send that never left waits for its agent before its words come back to the box
/// as the draft (docs/ENGINE.md, "Sends that never left go by themselves").
pub const WAIT_FOR_AGENT_SECONDS: i64 = 600;

/// One send, from Enter to the agent's reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// A `Send` or a `DshAppend`, exactly as it goes to the engine.
    pub kind: IntentKind,
    pub step: Step,
    /// The turn on screen when Enter was pressed.
    seen_turn: Option<String>,
    /// Since when it waits for its agent: it provably never left (not-sent, no try counted),
    /// and goes by itself, with its request id, once the agent is connected and ready again.
    waits_since: Option<OffsetDateTime>,
    /// It was handed to the engine again by itself and has not been reported since.
    going_again: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Waits for the sends before it.
    Queued,
    /// Handed to the engine, which has not named its request id yet.
    Submitted,
    /// The engine's intent: its state is in `Intents`.
    Tracked { request_id: String },
    /// Taken by the agent at this time; the line goes after [`SENT_LINE_SECONDS`].
    Sent {
        request_id: String,
        at: OffsetDateTime,
        /// The turn the agent put it in (its reply's `turnId`).
        turn: Option<String>,
    },
}

impl Outgoing {
    /// The words of the send.
    pub fn text(&self) -> &str {
        match &self.kind {
            IntentKind::Send { text, .. } => text,
            IntentKind::DshAppend { message, .. } => message,
            _ => "",
        }
    }

    pub fn request_id(&self) -> Option<&str> {
        match &self.step {
            Step::Tracked { request_id } | Step::Sent { request_id, .. } => Some(request_id),
            Step::Queued | Step::Submitted => None,
        }
    }

    /// True while it waits for its agent and will go by itself.
    pub fn waits_for_agent(&self) -> bool {
        self.waits_since.is_some() && matches!(self.step, Step::Tracked { .. })
    }
}

/// True for a send that provably never left and may go by itself: a Collie send (a bridge's
/// append has its own resends, SPEC D5) that is not-sent with no try counted (SPEC Q5).
fn never_left(record: &IntentRecord) -> bool {
    matches!(record.kind, IntentKind::Send { .. })
        && matches!(record.state, IntentState::NotSent { .. })
        && record.attempts == 0
}

/// The sends of every pane, by (agent, pane).
#[derive(Debug, Clone, Default)]
pub struct Outbox {
    panes: HashMap<(String, String), VecDeque<Outgoing>>,
    /// Words the agent took but holds behind a running turn (the reply said `queued: true`,
    /// WIRE § 4.3), by (agent, pane): (that turn, the words), in the order sent. Stopping that
    /// turn drops them on the agent, so they come back to the box (docs/ACP.md).
    waiting: HashMap<(String, String), Vec<(String, String)>>,
    /// Words that waited too long for their agent and came back to the box, by (agent, pane):
    /// the line above the box says so while the box still holds what came back.
    came_back: HashMap<(String, String), CameBack>,
}

/// Sends that waited [`WAIT_FOR_AGENT_SECONDS`] for their agent and came back to the box as
/// the draft. The pane says so on a line above the box until the person sends or edits the
/// box, so a person who was away reads it on return (docs/ENGINE.md).
#[derive(Debug, Clone, PartialEq)]
pub struct CameBack {
    /// When the words came back.
    pub at: OffsetDateTime,
    /// The box as it was then: once it holds anything else, the person acted on it.
    box_text: String,
}

/// What the app must do after the outbox took a change.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Nothing leaves now.
    Wait,
    /// Hand this send to the engine.
    Submit { agent: String, kind: IntentKind },
}

impl Outbox {
    /// The sends of a pane, oldest first.
    pub fn lines(&self, agent: &str, pane: &str) -> impl Iterator<Item = &Outgoing> {
        self.panes
            .get(&(agent.to_string(), pane.to_string()))
            .into_iter()
            .flatten()
    }

    /// How many lines a pane shows.
    pub fn len(&self, agent: &str, pane: &str) -> usize {
        self.lines(agent, pane).count()
    }

    /// Words waiting anywhere that were not taken yet (for the quit question).
    pub fn unsent(&self) -> usize {
        self.panes
            .values()
            .flatten()
            .filter(|o| !matches!(o.step, Step::Sent { .. }))
            .count()
    }

    /// Enter was pressed: the words join the pane's line. Returns what leaves now: this send,
    /// when nothing before it is on its way or held.
    pub fn push(&mut self, agent: &str, pane: &str, kind: IntentKind) -> Next {
        let queue = self
            .panes
            .entry((agent.to_string(), pane.to_string()))
            .or_default();
        let seen_turn = named_turn(&kind);
        // The person sent from this box: what came back before is told.
        self.came_back
            .remove(&(agent.to_string(), pane.to_string()));
        queue.push_back(Outgoing {
            kind,
            step: Step::Queued,
            seen_turn,
            waits_since: None,
            going_again: false,
        });
        Self::advance(agent, queue)
    }

    /// The engine reported an intent: true when it is one of the outbox's, and what leaves now.
    pub fn note(&mut self, record: &IntentRecord, now: OffsetDateTime) -> (bool, Next) {
        let Some(pane) = super::intents::pane_of(&record.kind).map(str::to_string) else {
            return (false, Next::Wait);
        };
        if !matches!(
            record.kind,
            IntentKind::Send { .. } | IntentKind::DshAppend { .. }
        ) {
            return (false, Next::Wait);
        }
        let key = (record.agent.clone(), pane);
        let queue = self.panes.entry(key.clone()).or_default();
        let known = queue
            .iter()
            .position(|o| o.request_id() == Some(record.request_id.as_str()));
        let at = match known {
            Some(at) => Some(at),
            None => {
                // The first submitted send with the same words: the engine names its id.
                let submitted = queue
                    .iter()
                    .position(|o| o.step == Step::Submitted && o.kind == record.kind);
                if let Some(at) = submitted {
                    queue[at].step = Step::Tracked {
                        request_id: record.request_id.clone(),
                    };
                }
                submitted
            }
        };
        let at = match at {
            Some(at) => at,
            // A send the journal still holds from an earlier run (SPEC Q2): its words come
            // back on screen until the person retries it or takes them back.
            None if !record.state.is_final() && !matches!(record.state, IntentState::Sending) => {
                // One that never left has waited since its receipt was written.
                let since = crate::wire::time::parse(&record.created_at).unwrap_or(now);
                queue.push_front(Outgoing {
                    kind: record.kind.clone(),
                    step: Step::Tracked {
                        request_id: record.request_id.clone(),
                    },
                    seen_turn: named_turn(&record.kind),
                    waits_since: never_left(record).then_some(since),
                    going_again: false,
                });
                0
            }
            None => {
                if queue.is_empty() {
                    self.panes.remove(&key);
                }
                return (false, Next::Wait);
            }
        };
        // A send that never left waits for its agent, from the first time it did not go; one
        // that may have arrived is held for the person, as before.
        match &record.state {
            IntentState::Created | IntentState::Sending => {}
            _ if never_left(record) => {
                queue[at].waits_since.get_or_insert(now);
                queue[at].going_again = false;
            }
            _ => {
                queue[at].waits_since = None;
                queue[at].going_again = false;
            }
        }
        if matches!(
            record.state,
            IntentState::Done { .. } | IntentState::Replayed { .. }
        ) {
            let (turn, queued) = match &record.state {
                IntentState::Done { reply } | IntentState::Replayed { reply } => {
                    (reply.turn_id.clone(), reply.queued == Some(true))
                }
                _ => (None, false),
            };
            if let (true, Some(turn), false) =
                (queued, &turn, matches!(queue[at].step, Step::Sent { .. }))
            {
                let words = queue[at].text().to_string();
                self.waiting
                    .entry(key.clone())
                    .or_default()
                    .push((turn.clone(), words));
            }
            queue[at].step = Step::Sent {
                request_id: record.request_id.clone(),
                at: now,
                turn,
            };
        }
        (true, Self::advance(&record.agent, queue))
    }

    /// Lets the sent lines of every pane go once they have been seen for a while.
    pub fn tick(&mut self, now: OffsetDateTime) {
        for queue in self.panes.values_mut() {
            queue.retain(|o| match o.step {
                Step::Sent { at, .. } => (now - at).whole_seconds() < SENT_LINE_SECONDS,
                _ => true,
            });
        }
        self.panes.retain(|_, queue| !queue.is_empty());
    }

    /// The agent is connected and ready: the request ids of its sends that wait for it and go
    /// now by themselves, the first held one of each pane only (the rest follow it in the
    /// order typed), each once until the engine reports it again.
    pub fn go_again(&mut self, agent: &str) -> Vec<String> {
        let mut ids = Vec::new();
        for ((of, _), queue) in self.panes.iter_mut() {
            if of != agent {
                continue;
            }
            let Some(first) = queue
                .iter_mut()
                .find(|o| !matches!(o.step, Step::Sent { .. }))
            else {
                continue;
            };
            if first.waits_for_agent()
                && !first.going_again
                && let Some(id) = first.request_id().map(str::to_string)
            {
                first.going_again = true;
                ids.push(id);
            }
        }
        ids
    }

    /// Takes back into the box, by pane, the words of sends that waited for their agent for
    /// [`WAIT_FOR_AGENT_SECONDS`] and are not on their way now, with those queued after them,
    /// in the order typed: (agent, pane, the words).
    pub fn waited_too_long(&mut self, now: OffsetDateTime) -> Vec<(String, String, Vec<String>)> {
        let mut back = Vec::new();
        for ((agent, pane), queue) in self.panes.iter_mut() {
            let first = queue.iter().position(|o| {
                o.waits_for_agent()
                    && !o.going_again
                    && o.waits_since.is_some_and(|since| {
                        (now - since).whole_seconds() >= WAIT_FOR_AGENT_SECONDS
                    })
            });
            if let Some(first) = first {
                let words: Vec<String> = queue
                    .drain(first..)
                    .filter(|o| !matches!(o.step, Step::Sent { .. }))
                    .map(|o| o.text().to_string())
                    .collect();
                back.push((agent.clone(), pane.clone(), words));
            }
        }
        self.panes.retain(|_, queue| !queue.is_empty());
        back
    }

    /// Words came back to a pane's box at `at`, which now holds `box_text`.
    pub fn note_came_back(
        &mut self,
        agent: &str,
        pane: &str,
        at: OffsetDateTime,
        box_text: String,
    ) {
        self.came_back.insert(
            (agent.to_string(), pane.to_string()),
            CameBack { at, box_text },
        );
    }

    /// What came back to a pane's box, while the box still holds `box_text` as it was then.
    pub fn came_back(&self, agent: &str, pane: &str, box_text: &str) -> Option<&CameBack> {
        self.came_back
            .get(&(agent.to_string(), pane.to_string()))
            .filter(|back| back.box_text == box_text)
    }

    /// Forgets what came back to each box that holds something else now (`box_of` gives a
    /// pane's box): the person sent it or edited it, so the line above the box has done.
    pub fn settle_came_back(&mut self, box_of: impl Fn(&str, &str) -> String) {
        self.came_back
            .retain(|(agent, pane), back| back.box_text == box_of(agent, pane));
    }

    /// The first line of a pane that is held (failed, unknown or not sent), with its request id.
    pub fn held(&self, agent: &str, pane: &str, is_held: impl Fn(&str) -> bool) -> Option<&str> {
        self.lines(agent, pane)
            .filter_map(Outgoing::request_id)
            .find(|id| is_held(id))
    }

    /// Takes back into the box the words of the first held send and of every send queued after
    /// it, in the order typed; the lines go. The intent stays in the journal as it was.
    pub fn take_back(
        &mut self,
        agent: &str,
        pane: &str,
        is_held: impl Fn(&str) -> bool,
    ) -> Option<Vec<String>> {
        let key = (agent.to_string(), pane.to_string());
        let queue = self.panes.get_mut(&key)?;
        let first = queue
            .iter()
            .position(|o| o.request_id().is_some_and(&is_held))?;
        let taken: Vec<String> = queue
            .drain(first..)
            .filter(|o| !matches!(o.step, Step::Sent { .. }))
            .map(|o| o.text().to_string())
            .collect();
        if queue.is_empty() {
            self.panes.remove(&key);
        }
        Some(taken)
    }

    /// The words the agent holds behind this running turn, in the order sent.
    pub fn waiting_behind(&self, agent: &str, pane: &str, turn: &str) -> Vec<&str> {
        self.waiting
            .get(&(agent.to_string(), pane.to_string()))
            .into_iter()
            .flatten()
            .filter(|(t, _)| t == turn)
            .map(|(_, words)| words.as_str())
            .collect()
    }

    /// The turn was stopped: the words held behind it are the person's again, in the order
    /// sent. Words held behind older turns went with those turns, and are forgotten.
    pub fn take_waiting(&mut self, agent: &str, pane: &str, turn: &str) -> Vec<String> {
        let Some(all) = self.waiting.remove(&(agent.to_string(), pane.to_string())) else {
            return Vec::new();
        };
        all.into_iter()
            .filter(|(t, _)| t == turn)
            .map(|(_, words)| words)
            .collect()
    }

    /// After a change: the first queued send leaves when everything before it was taken.
    ///
    /// SPEC A16: a send names the turn the person saw. A send typed right after another, with
    /// the same turn on screen at both Enters, follows that one: when the one before it went
    /// to a turn (it started a new one, or steered), this one names that turn, as the phone
    /// now knows from the reply; otherwise the second of two quick messages would be refused
    /// as "turn changed" by the very turn the first one started.
    fn advance(agent: &str, queue: &mut VecDeque<Outgoing>) -> Next {
        // The turn the last taken send was typed under, and the turn it went to.
        let mut before: Option<(Option<String>, Option<String>)> = None;
        for outgoing in queue.iter_mut() {
            match &outgoing.step {
                Step::Sent { turn, .. } => {
                    // A steer's reply may name no turn: it went to the one it named.
                    let went_to = turn.clone().or_else(|| named_turn(&outgoing.kind));
                    before = Some((outgoing.seen_turn.clone(), went_to));
                }
                Step::Queued => {
                    if let (Some((seen, Some(went_to))), IntentKind::Send { turn_id, .. }) =
                        (&before, &mut outgoing.kind)
                        && outgoing.seen_turn == *seen
                    {
                        *turn_id = Some(went_to.clone());
                    }
                    outgoing.step = Step::Submitted;
                    return Next::Submit {
                        agent: agent.to_string(),
                        kind: outgoing.kind.clone(),
                    };
                }
                // On its way, or held: the rest wait.
                Step::Submitted | Step::Tracked { .. } => return Next::Wait,
            }
        }
        Next::Wait
    }
}

/// The turn a send names (a bridge's append names none).
fn named_turn(kind: &IntentKind) -> Option<String> {
    match kind {
        IntentKind::Send { turn_id, .. } => turn_id.clone(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::PostReply;

    fn send(text: &str) -> IntentKind {
        IntentKind::Send {
            pane: "p".into(),
            turn_id: Some("t1".into()),
            text: text.into(),
        }
    }

    fn record(id: &str, text: &str, state: IntentState) -> IntentRecord {
        IntentRecord {
            request_id: id.into(),
            agent: "a".into(),
            kind: send(text),
            attempts: 1,
            state,
            created_at: "2026-12-01T00:00:00Z".into(),
            checking: false,
            epoch: None,
        }
    }

    fn done() -> IntentState {
        IntentState::Done {
            reply: PostReply::ok("r"),
        }
    }

    fn now() -> OffsetDateTime {
        OffsetDateTime::UNIX_EPOCH
    }

    #[test]
    fn q1_three_quick_sends_leave_one_at_a_time_in_order() {
        let mut outbox = Outbox::default();
        assert_eq!(
            outbox.push("a", "p", send("alpha")),
            Next::Submit {
                agent: "a".into(),
                kind: send("alpha")
            }
        );
        assert_eq!(outbox.push("a", "p", send(" beta")), Next::Wait);
        assert_eq!(outbox.push("a", "p", send(" gamma")), Next::Wait);
        assert_eq!(outbox.len("a", "p"), 3);
        // The engine names the first, then it is taken: the second leaves.
        let (mine, next) = outbox.note(&record("r1", "alpha", IntentState::Created), now());
        assert!(mine);
        assert_eq!(next, Next::Wait);
        let (_, next) = outbox.note(&record("r1", "alpha", done()), now());
        assert_eq!(
            next,
            Next::Submit {
                agent: "a".into(),
                kind: send(" beta")
            }
        );
        outbox.note(&record("r2", " beta", done()), now());
        let texts: Vec<&str> = outbox.lines("a", "p").map(Outgoing::text).collect();
        assert_eq!(texts, ["alpha", " beta", " gamma"]);
        outbox.tick(now() + time::Duration::seconds(SENT_LINE_SECONDS));
        let texts: Vec<&str> = outbox.lines("a", "p").map(Outgoing::text).collect();
        assert_eq!(texts, [" gamma"]);
    }

    #[test]
    fn a16_a_quick_second_send_follows_the_turn_the_first_one_went_to() {
        let mut outbox = Outbox::default();
        outbox.push("a", "p", send("alpha"));
        outbox.push("a", "p", send(" beta"));
        let mut reply = PostReply::ok("r1");
        reply.turn_id = Some("t2".into());
        outbox.note(&record("r1", "alpha", IntentState::Created), now());
        let (_, next) = outbox.note(&record("r1", "alpha", IntentState::Done { reply }), now());
        assert_eq!(
            next,
            Next::Submit {
                agent: "a".into(),
                kind: IntentKind::Send {
                    pane: "p".into(),
                    turn_id: Some("t2".into()),
                    text: " beta".into(),
                }
            }
        );
    }

    #[test]
    fn q4_an_unknown_send_holds_the_rest_until_taken_back() {
        let mut outbox = Outbox::default();
        outbox.push("a", "p", send("one"));
        outbox.push("a", "p", send("two"));
        outbox.note(
            &record("r1", "one", IntentState::Unknown { why: "cut".into() }),
            now(),
        );
        assert_eq!(outbox.held("a", "p", |id| id == "r1"), Some("r1"));
        let taken = outbox.take_back("a", "p", |id| id == "r1");
        assert_eq!(taken, Some(vec!["one".to_string(), "two".to_string()]));
        assert_eq!(outbox.len("a", "p"), 0);
        assert_eq!(outbox.unsent(), 0);
    }

    #[test]
    fn q4_a_send_the_engine_checks_holds_the_next_until_its_check_settles_it() {
        let mut outbox = Outbox::default();
        outbox.push("a", "p", send("one"));
        assert_eq!(outbox.push("a", "p", send("two")), Next::Wait);
        outbox.note(&record("r1", "one", IntentState::Created), now());
        let mut checking = record("r1", "one", IntentState::Unknown { why: "cut".into() });
        checking.checking = true;
        assert_eq!(outbox.note(&checking, now()), (true, Next::Wait));
        assert_eq!(
            super::super::outcome::short(&checking),
            "not sure it arrived: checking…"
        );
        let replayed = IntentState::Replayed {
            reply: PostReply::ok("r1"),
        };
        let (_, next) = outbox.note(&record("r1", "one", replayed), now());
        assert_eq!(
            next,
            Next::Submit {
                agent: "a".into(),
                kind: send("two")
            }
        );
    }

    fn not_sent() -> IntentState {
        IntentState::NotSent {
            why: "the agent is starting".into(),
        }
    }

    #[test]
    fn h3_a_send_that_never_left_goes_by_itself_once_first_of_its_pane() {
        let mut outbox = Outbox::default();
        outbox.push("a", "p", send("one"));
        outbox.push("a", "p", send("two"));
        outbox.note(&record("r1", "one", IntentState::Created), now());
        let mut first = record("r1", "one", not_sent());
        first.attempts = 0;
        assert_eq!(outbox.note(&first, now()), (true, Next::Wait), "two waits");
        let line = outbox.lines("a", "p").next().expect("a line");
        assert!(line.waits_for_agent());
        // Ready again: the first goes, once, however many polls come before its report.
        assert_eq!(outbox.go_again("a"), ["r1"]);
        assert!(outbox.go_again("a").is_empty(), "once");
        assert!(
            outbox.go_again("b").is_empty(),
            "another agent's polls move nothing"
        );
        // It met another restart: it waits again and goes at the next ready poll.
        outbox.note(&record("r1", "one", IntentState::Sending), now());
        outbox.note(&first, now());
        assert_eq!(outbox.go_again("a"), ["r1"]);
        // Taken: the second leaves after it, in the order typed.
        let (_, next) = outbox.note(&record("r1", "one", done()), now());
        assert_eq!(
            next,
            Next::Submit {
                agent: "a".into(),
                kind: send("two")
            }
        );
    }

    #[test]
    fn h3_a_send_that_may_have_arrived_never_goes_by_itself() {
        let mut outbox = Outbox::default();
        outbox.push("a", "p", send("one"));
        outbox.note(&record("r1", "one", IntentState::Created), now());
        // The person's retry of an unknown try found the agent down: a try counted before.
        let mut retried = record("r1", "one", not_sent());
        retried.attempts = 1;
        outbox.note(&retried, now());
        assert!(outbox.go_again("a").is_empty());
        let unknown = IntentState::Unknown { why: "cut".into() };
        outbox.note(&record("r1", "one", unknown), now());
        assert!(outbox.go_again("a").is_empty());
    }

    #[test]
    fn h3_after_ten_minutes_of_waiting_the_words_come_back_in_order() {
        let mut outbox = Outbox::default();
        outbox.push("a", "p", send("one"));
        outbox.push("a", "p", send("two"));
        outbox.note(&record("r1", "one", IntentState::Created), now());
        let mut first = record("r1", "one", not_sent());
        first.attempts = 0;
        outbox.note(&first, now());
        let almost = now() + time::Duration::seconds(WAIT_FOR_AGENT_SECONDS - 1);
        assert!(outbox.waited_too_long(almost).is_empty());
        let past = now() + time::Duration::seconds(WAIT_FOR_AGENT_SECONDS);
        assert_eq!(
            outbox.waited_too_long(past),
            [(
                "a".to_string(),
                "p".to_string(),
                vec!["one".to_string(), "two".to_string()]
            )]
        );
        assert_eq!(outbox.len("a", "p"), 0);
    }

    #[test]
    fn h3_words_that_came_back_are_told_until_the_box_is_sent_or_edited() {
        let mut outbox = Outbox::default();
        let at = now() + time::Duration::seconds(WAIT_FOR_AGENT_SECONDS);
        outbox.note_came_back("a", "p", at, "one\ntwo".into());
        let back = outbox.came_back("a", "p", "one\ntwo").expect("told");
        assert_eq!(back.at, at);
        assert!(
            outbox.came_back("a", "q", "one\ntwo").is_none(),
            "its pane only"
        );
        // Time passes and boxes elsewhere change: it stays.
        outbox.tick(at + time::Duration::hours(3));
        outbox.settle_came_back(|_, pane| {
            if pane == "p" {
                "one\ntwo".into()
            } else {
                "elsewhere".into()
            }
        });
        assert!(outbox.came_back("a", "p", "one\ntwo").is_some(), "it lasts");
        // Edited: gone, and gone for good even if the box reads the same again (an undo).
        assert!(outbox.came_back("a", "p", "one\ntwo!").is_none());
        outbox.settle_came_back(|_, _| "one\ntwo!".into());
        assert!(outbox.came_back("a", "p", "one\ntwo").is_none());
        // Sent from that box: gone.
        outbox.note_came_back("a", "p", at, "one".into());
        outbox.push("a", "p", send("one"));
        assert!(outbox.came_back("a", "p", "one").is_none());
    }

    #[test]
    fn q2_a_journal_receipt_from_an_earlier_run_shows_its_words() {
        let mut outbox = Outbox::default();
        let (mine, next) = outbox.note(
            &record(
                "old",
                "kept",
                IntentState::Unknown {
                    why: "crash".into(),
                },
            ),
            now(),
        );
        assert!(mine);
        assert_eq!(next, Next::Wait);
        assert_eq!(
            outbox
                .lines("a", "p")
                .map(Outgoing::text)
                .collect::<Vec<_>>(),
            ["kept"]
        );
        // A finished one from an earlier run is not shown again.
        let (mine, _) = outbox.note(&record("older", "gone", done()), now());
        assert!(!mine);
        assert_eq!(outbox.len("a", "p"), 1);
    }

    #[test]
    fn sends_the_agent_queued_behind_a_turn_come_back_in_order_when_it_stops() {
        let queued = |turn: &str| {
            let mut reply = PostReply::ok("r");
            reply.turn_id = Some(turn.into());
            reply.queued = Some(true);
            IntentState::Done { reply }
        };
        let mut outbox = Outbox::default();
        outbox.push("a", "p", send("first"));
        outbox.note(&record("r1", "first", IntentState::Created), now());
        outbox.note(&record("r1", "first", queued("t1")), now());
        outbox.push("a", "p", send("second"));
        outbox.note(&record("r2", "second", IntentState::Created), now());
        outbox.note(&record("r2", "second", queued("t1")), now());
        // The sent lines go after a while; what the agent holds is still known.
        outbox.tick(now() + time::Duration::seconds(SENT_LINE_SECONDS));
        assert_eq!(outbox.len("a", "p"), 0);
        assert_eq!(outbox.waiting_behind("a", "p", "t1"), ["first", "second"]);
        assert!(outbox.waiting_behind("a", "p", "t2").is_empty());
        assert_eq!(outbox.take_waiting("a", "p", "t1"), ["first", "second"]);
        assert!(outbox.take_waiting("a", "p", "t1").is_empty(), "taken once");
    }
}
