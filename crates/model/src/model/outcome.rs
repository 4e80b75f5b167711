//! What became of an intent (an answer, a message, a stop, a start …), worded once (SPEC Q7).
//! One table gives each outcome two columns: the few words by the box and in lists (`short`),
//! and the sentence the card, the footer, the headless receipt and `--json`'s `message` all
//! say (`Wording::said`). What the person may do next (`Next`) names a key on the card and a
//! command at the shell, so each surface adds its own way and nothing else.

use time::OffsetDateTime;

use crate::engine::{Decider, IntentKind, IntentRecord, IntentState};
use crate::model::intents::is_retryable;
use crate::wire::{Outcome as Closing, PostReply};

/// What the intent was, for the words that name it: "the answer", "the message" …
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    Answer,
    Message,
    Stop,
    Start,
    /// Anything else: its words say "it".
    Other,
}

impl What {
    pub fn of(kind: &IntentKind) -> Self {
        match kind {
            IntentKind::Answer { .. } => Self::Answer,
            IntentKind::Send { .. } | IntentKind::DshAppend { .. } => Self::Message,
            IntentKind::Abort { .. } | IntentKind::DshCancel { .. } => Self::Stop,
            IntentKind::Starter { .. } => Self::Start,
            _ => Self::Other,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Self::Answer => "the answer",
            Self::Message => "the message",
            Self::Stop => "the stop",
            Self::Start => "the start",
            Self::Other => "it",
        }
    }

    /// "another answer", for a request id taken by another request.
    fn another(self) -> &'static str {
        match self {
            Self::Answer => "another answer",
            Self::Message => "another message",
            _ => "another request",
        }
    }
}

/// What the person may do after an outcome, said by each surface its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Nothing,
    /// The ask changed: read it again, then answer.
    ReadAgain,
    /// Not sure it arrived: the same request id again (SPEC Q4).
    Retry,
    /// It never left: send it again (a new try).
    SendAgain,
    /// Maybe applied: final, never sent again (SPEC Q5).
    Never,
    /// Another phone answered: the card goes by itself.
    CardGoes,
}

impl Next {
    /// The words on a card, whose keys are its footer's.
    pub fn on_card(self) -> Option<&'static str> {
        match self {
            Self::Nothing | Self::Never => None,
            Self::ReadAgain => Some("Read it again and tap an answer."),
            Self::Retry => Some("Retry sends it again."),
            Self::SendAgain => Some("Enter sends it again."),
            Self::CardGoes => Some("This card goes away on the next refresh."),
        }
    }

    /// The words at the shell, before the command a receipt prints on its next line.
    pub fn at_shell(self) -> Option<&'static str> {
        match self {
            Self::Nothing | Self::CardGoes => None,
            Self::ReadAgain => Some("Read it again (collie-phone asks) and answer again."),
            Self::Retry => Some("Retry sends it again with the same request id:"),
            Self::SendAgain => Some("Nothing reached the agent; send it again with:"),
            Self::Never => Some("It is never sent again."),
        }
    }
}

/// The sentence of an outcome and what may come next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wording {
    pub said: String,
    pub next: Next,
}

impl Wording {
    fn new(said: impl Into<String>, next: Next) -> Self {
        Self {
            said: said.into(),
            next,
        }
    }

    /// The sentence with the card's next step.
    pub fn on_card(&self) -> String {
        join(&self.said, self.next.on_card())
    }

    /// The sentence with the shell's next step.
    pub fn at_shell(&self) -> String {
        join(&self.said, self.next.at_shell())
    }
}

fn join(said: &str, next: Option<&str>) -> String {
    match next {
        Some(next) => format!("{said} {next}"),
        None => said.to_string(),
    }
}

/// Every outcome an intent can have, with what its words need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntentOutcome {
    /// On its way (or its receipt written, not left yet).
    Sending,
    /// The phone gave up waiting for a reply that may still come (the headless commands).
    NoReply,
    Done(Done),
    /// The agent had this request id already: the first reply again (SPEC Q3).
    Replayed(Done),
    /// SPEC A3.
    Stale,
    /// SPEC A7: who decided first, and the words of what won.
    Decided(Decider, Option<String>),
    /// SPEC A8.
    TooLate,
    /// SPEC Q4: the engine checks it by itself with the same request id.
    Checking,
    /// SPEC Q4: the person may retry the same request id; why no reply came, and whether a
    /// bridge was asked (its words say who may resend).
    Unknown {
        why: String,
        bridge: bool,
    },
    /// SPEC Q5.
    MaybeApplied,
    RequestIdReused,
    /// The phone could not build the request: nothing left.
    NotBuilt(Option<String>),
    Refused {
        status: u16,
        code: String,
        message: Option<String>,
    },
    /// It never reached the agent.
    NotSent(String),
    /// The ask's time ran out before an answer: nothing was sent (SPEC A13).
    Expired(OffsetDateTime),
    /// A message held by the phone behind the one above it (docs/ENGINE.md).
    HeldBehind,
    /// A message that never left, held until its agent is back (docs/ENGINE.md).
    HeldForAgent,
}

/// What a done intent did, as the agent's reply tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Done {
    /// The agent's summary of the answer, when it says more than "answered".
    Answered(Option<String>),
    Queued(Option<String>),
    Sent {
        turn: Option<String>,
        steered: bool,
    },
    Stopped(String),
    Started(Option<String>),
    Pressed,
    Switched,
    Renamed,
    Closed(String),
    /// A bridge's task or workspace: what the bridge did.
    Bridge(&'static str),
    Other,
}

impl Done {
    fn of(kind: &IntentKind, reply: &PostReply) -> Self {
        match kind {
            IntentKind::Answer { .. } => Self::Answered(
                reply
                    .outcome
                    .as_ref()
                    .map(|o| o.summary.trim_end_matches('.').to_string())
                    .filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case("answered")),
            ),
            IntentKind::Send { .. } if reply.queued == Some(true) => {
                Self::Queued(reply.turn_id.clone())
            }
            IntentKind::Send { .. } => Self::Sent {
                turn: reply.turn_id.clone(),
                steered: reply.steered == Some(true),
            },
            IntentKind::Abort { turn_id, .. } => Self::Stopped(turn_id.clone()),
            IntentKind::Starter { .. } => Self::Started(reply.pane_id.clone()),
            IntentKind::Action { .. } => Self::Pressed,
            IntentKind::Setting { .. } => Self::Switched,
            IntentKind::Rename { .. } => Self::Renamed,
            IntentKind::Close { target, .. } => Self::Closed(target.clone()),
            IntentKind::DshCreate { .. } => Self::Bridge("created"),
            IntentKind::DshRegisterWorkspace { .. } => Self::Bridge("registered"),
            IntentKind::DshCancel { .. } => Self::Bridge("cancel taken by the bridge"),
            IntentKind::DshClose { .. } => Self::Bridge("closed"),
            IntentKind::DshAppend { .. } => Self::Bridge("accepted"),
            IntentKind::Reopen { .. } => Self::Other,
        }
    }

    /// The sentence where something beside it names what the agent took (the phone: the
    /// chat's closing line, the card it came from).
    fn said(&self) -> String {
        match self {
            Self::Answered(_) => "Answered.".into(),
            Self::Queued(Some(turn)) => {
                format!("Queued: turn {turn} is running, and the agent reads this when it ends.")
            }
            Self::Queued(None) => "Queued: the agent reads this when its turn ends.".into(),
            Self::Sent {
                turn: Some(turn),
                steered: true,
            } => format!("Sent: it steers turn {turn}."),
            Self::Sent {
                turn: Some(turn), ..
            } => format!("Sent: it started turn {turn}."),
            Self::Sent { turn: None, .. } => "Sent.".into(),
            Self::Stopped(turn) => format!("Stopped turn {turn}."),
            Self::Started(Some(pane)) => format!("Started: the new pane is {pane}."),
            Self::Started(None) => "Started.".into(),
            Self::Pressed => "Pressed.".into(),
            Self::Switched => {
                "Asked the agent to switch; the pane shows the new value once it says yes.".into()
            }
            Self::Renamed => "Renamed.".into(),
            Self::Closed(target) => format!("Closed the {target}."),
            Self::Bridge(done) => format!("{}.", capitalized(done)),
            Self::Other => "Done.".into(),
        }
    }

    fn short(&self) -> String {
        match self {
            Self::Queued(_) => "queued: the agent reads it when this turn ends".into(),
            Self::Bridge(done) => (*done).into(),
            _ => "sent".into(),
        }
    }
}

impl IntentOutcome {
    /// The outcome of `record` as it stands.
    pub fn of(record: &IntentRecord) -> Self {
        match &record.state {
            IntentState::Created | IntentState::Sending => Self::Sending,
            IntentState::Done { reply } => Self::Done(Done::of(&record.kind, reply)),
            IntentState::Replayed { reply } => Self::Replayed(Done::of(&record.kind, reply)),
            IntentState::Stale { .. } => Self::Stale,
            IntentState::Decided { by, outcome } => {
                Self::Decided(by.clone(), outcome.as_ref().and_then(outcome_words))
            }
            IntentState::TooLate => Self::TooLate,
            IntentState::Unknown { .. } if record.checking => Self::Checking,
            IntentState::Unknown { why } if is_retryable(record) => Self::Unknown {
                why: why.clone(),
                bridge: record.kind.is_dsh(),
            },
            IntentState::Unknown { .. } | IntentState::MaybeApplied => Self::MaybeApplied,
            IntentState::RequestIdReused => Self::RequestIdReused,
            IntentState::Refused {
                status: 0, message, ..
            } => Self::NotBuilt(message.clone()),
            IntentState::Refused {
                status,
                code,
                message,
            } => Self::Refused {
                status: *status,
                code: code.clone(),
                message: message.clone(),
            },
            IntentState::NotSent { why } => Self::NotSent(why.clone()),
        }
    }

    /// The outcome a headless command reports once it stops waiting: one still on its way
    /// then is one whose reply did not come in time.
    pub fn when_waiting_ended(record: &IntentRecord) -> Self {
        match Self::of(record) {
            Self::Sending => Self::NoReply,
            other => other,
        }
    }

    /// The table's sentence for a surface where nothing else names what the agent took: a
    /// headless command's line and its `--json` `message` (SPEC Q7). A done answer names the
    /// agent's summary of it ("Answered: Allow once."); every other row is `wording`'s.
    pub fn wording_alone(&self, what: What) -> Wording {
        match self {
            Self::Done(Done::Answered(Some(summary))) => {
                Wording::new(format!("Answered: {summary}."), Next::Nothing)
            }
            Self::Replayed(Done::Answered(Some(summary))) => Wording::new(
                format!(
                    "Answered: {summary}. The agent had this request already and ran nothing again."
                ),
                Next::Nothing,
            ),
            other => other.wording(what),
        }
    }

    /// The table's sentence, for an intent of this kind.
    pub fn wording(&self, what: What) -> Wording {
        use Next::*;
        match self {
            Self::Sending => Wording::new("Sending…", Nothing),
            Self::NoReply => Wording::new("No reply came in time; it may have arrived.", Retry),
            Self::Done(done) => Wording::new(done.said(), Nothing),
            Self::Replayed(done) => Wording::new(
                format!(
                    "{} The agent had this request already and ran nothing again.",
                    done.said()
                ),
                Nothing,
            ),
            Self::Stale => Wording::new("This ask changed.", ReadAgain),
            Self::Decided(by, None) => match by {
                Decider::Program => Wording::new("Decided on the durable agent.", Nothing),
                Decider::Timeout => Wording::new("Timed out before an answer.", Nothing),
                Decider::Phone => Wording::new("Already answered.", CardGoes),
            },
            // The answer that won, named, and that the person's was not the one taken.
            Self::Decided(by, Some(won)) => match by {
                Decider::Program => Wording::new(
                    format!("Decided on the durable agent first: “{won}”. Yours was not taken."),
                    Nothing,
                ),
                // The timeout's own words say no more than this.
                Decider::Timeout => Wording::new("Timed out before an answer.", Nothing),
                Decider::Phone => Wording::new(
                    format!("Answered from another phone first: “{won}”. Yours was not taken."),
                    Nothing,
                ),
            },
            Self::TooLate => Wording::new(
                "Not taken. The question may come back in a moment.",
                Nothing,
            ),
            Self::Checking => Wording::new(
                format!("Not sure {} arrived: checking…", what.noun()),
                Nothing,
            ),
            Self::Unknown { .. } => {
                Wording::new(format!("Not sure {} arrived.", what.noun()), Retry)
            }
            Self::MaybeApplied => Wording::new("May already be applied. Check the chat.", Never),
            Self::RequestIdReused => Wording::new(
                format!(
                    "Refused: the agent already took this request id for {}.",
                    what.another()
                ),
                Nothing,
            ),
            Self::NotBuilt(message) => Wording::new(
                format!(
                    "Not sent: {}.",
                    message
                        .as_deref()
                        .unwrap_or("it could not be built")
                        .trim_end_matches('.')
                ),
                Nothing,
            ),
            Self::Refused {
                status,
                code,
                message,
            } => Wording::new(
                match message {
                    Some(message) => format!(
                        "Refused ({status} {code}): {}.",
                        message.trim_end_matches('.')
                    ),
                    None => format!("Refused ({status} {code})."),
                },
                Nothing,
            ),
            Self::NotSent(why) => Wording::new(
                format!(
                    "{} was not sent: {}.",
                    capitalized(what.noun()),
                    why.trim_end_matches('.')
                ),
                SendAgain,
            ),
            Self::Expired(at) => Wording::new(
                format!(
                    "Expired at {}: nothing was sent.",
                    crate::model::inbox::clock_time(*at)
                ),
                Nothing,
            ),
            Self::HeldBehind => Wording::new("It waits for the message above it.", Nothing),
            Self::HeldForAgent => Wording::new(
                "It never left, and goes by itself once the agent is back.",
                Nothing,
            ),
        }
    }

    /// What the engine said beside the outcome, for a receipt to name after what the intent
    /// was: why a reply did not come.
    pub fn context(&self) -> Option<String> {
        match self {
            Self::Unknown { why, .. } => Some(why.clone()),
            _ => None,
        }
    }

    /// The table's few words, for the line by the box and a list (SPEC Q6).
    pub fn short(&self) -> String {
        match self {
            Self::Sending => "sending…".into(),
            Self::NoReply => "no reply yet".into(),
            Self::Done(done) => done.short(),
            Self::Replayed(Done::Bridge(_)) => "replayed (already applied)".into(),
            Self::Replayed(_) => "sent (the agent had it already)".into(),
            Self::Stale => "refused: the ask changed".into(),
            Self::Decided(..) => "refused: already decided".into(),
            Self::TooLate => "not taken: the agent no longer knows it".into(),
            Self::RequestIdReused => "refused: request-id-reused".into(),
            Self::NotBuilt(message) => match message {
                Some(message) => format!("refused: not-sent: {message}"),
                None => "refused: not-sent".into(),
            },
            Self::Refused { code, message, .. } => match message {
                Some(message) => format!("refused: {code}: {message}"),
                None => format!("refused: {code}"),
            },
            Self::Checking => "not sure it arrived: checking…".into(),
            Self::Unknown { why, bridge: true } => {
                format!("no reply ({why}); it may or may not have arrived")
            }
            Self::Unknown { why, .. } => format!("unknown: {why}"),
            Self::MaybeApplied => "maybe applied: check the chat".into(),
            Self::NotSent(why) => format!("not sent: {why}"),
            Self::Expired(_) => "expired: nothing was sent".into(),
            Self::HeldBehind => "waits for the one above".into(),
            Self::HeldForAgent => "waits for the agent, goes by itself".into(),
        }
    }
}

/// The words of an outcome for a sentence: the text answered, else the agent's summary, else
/// the option id; on one line and short (the outcome was cleaned on decoding, SPEC L1).
pub fn outcome_words(outcome: &Closing) -> Option<String> {
    let words = [
        outcome.text.as_deref(),
        Some(outcome.summary.as_str()),
        outcome.option_id.as_deref(),
    ]
    .into_iter()
    .flatten()
    .map(str::trim)
    .find(|w| !w.is_empty())?;
    let line = words.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(crate::text::wrap::truncate(&line, MAX_WON_WIDTH))
}

/// How wide the words of the answer that won may be in a sentence.
const MAX_WON_WIDTH: usize = 60;

/// The few words of `record`'s outcome (the table's `short`).
pub fn short(record: &IntentRecord) -> String {
    IntentOutcome::of(record).short()
}

/// The sentence of `record`'s outcome (the table's `said`), as the footer and the receipt say it.
pub fn said(record: &IntentRecord) -> String {
    IntentOutcome::of(record)
        .wording(What::of(&record.kind))
        .said
}

/// What became of a Deny that carries words (SPEC A21), worded once for the phone's footer and
/// the headless `answer --say`. `words` comes quoted the surface's way; `how` says where the
/// words are now, or how to send them again, the surface's way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterDeny<'a> {
    /// The Deny was taken; the words leave next.
    Going,
    /// The Deny was taken, and so were the words.
    Sent,
    /// The Deny was taken; the words were not, and wait.
    Waits { words: &'a str, how: &'a str },
    /// The Deny was not taken, so the words did not go.
    NotDenied {
        words: &'a str,
        how: Option<&'a str>,
    },
}

impl AfterDeny<'_> {
    pub fn said(self) -> String {
        match self {
            Self::Going => "Denied; your words go to the pane next.".into(),
            Self::Sent => "Denied, and your words were sent.".into(),
            Self::Waits { words, how } => format!("Denied; your words wait: {words} ({how})."),
            Self::NotDenied { words, how: None } => {
                format!("Your words were not sent, as the Deny was not taken: {words}")
            }
            Self::NotDenied {
                words,
                how: Some(how),
            } => format!("Your words were not sent, as the Deny was not taken: {words} ({how})."),
        }
    }
}

/// The words with their first letter a capital, for a sentence that starts with them.
pub fn capitalized(words: &str) -> String {
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
