//! An ask card: the ask as last seen, what the person has picked or typed, and the state of
//! the answer in Collie's words (SPEC A2–A15, Q4, Q5, V3).

use std::collections::BTreeMap;

use serde_json::Value;
use time::OffsetDateTime;

use crate::chat::pane_log::ClosedAsk;
use crate::engine::{Decider, IntentState};
use crate::model::arming::{Arming, Why};
use crate::model::ask_diff::{self, Changed};
use crate::model::card_shape::CardShape;
use crate::model::editor::Editor;
use crate::model::inbox::AskKey;
use crate::model::intents::{Intents, is_retryable};
use crate::model::outcome::{Done, IntentOutcome, What, outcome_words};
use crate::wire::{Answer, Ask, AskBody, AskOption, DecidedBy, Effect, FieldKind, FormField};

/// The line a card shows for an ask kind the phone does not know (SPEC V3).
pub const CANNOT_ANSWER: &str = "This kind of question cannot be answered from the phone.";

/// One form field's value as it is being filled in.
#[derive(Debug, Clone)]
pub enum FieldValue {
    Text(Editor),
    Number(Editor),
    /// The index of the chosen option.
    Choice(Option<usize>),
    /// A multiple choice field: which options are picked, and the one the cursor is on.
    Many {
        picked: Vec<bool>,
        at: usize,
    },
    Boolean(bool),
}

impl FieldValue {
    fn initial(field: &FormField) -> Self {
        match field.kind {
            FieldKind::Boolean => Self::Boolean(matches!(field.default, Some(Value::Bool(true)))),
            FieldKind::Choice if field.multiple => {
                let defaults: Vec<&str> = match &field.default {
                    Some(Value::Array(ids)) => ids.iter().filter_map(Value::as_str).collect(),
                    Some(Value::String(id)) => vec![id.as_str()],
                    _ => Vec::new(),
                };
                Self::Many {
                    picked: field
                        .options
                        .iter()
                        .map(|o| defaults.contains(&o.id.as_str()))
                        .collect(),
                    at: 0,
                }
            }
            FieldKind::Choice => Self::Choice(
                field
                    .default
                    .as_ref()
                    .and_then(Value::as_str)
                    .and_then(|id| field.options.iter().position(|o| o.id == id)),
            ),
            FieldKind::Number => Self::Number(Editor::from_text(
                &field
                    .default
                    .as_ref()
                    .filter(|v| v.is_number())
                    .map(Value::to_string)
                    .unwrap_or_default(),
            )),
            // Text, and kinds this phone does not know, are typed as text.
            _ => Self::Text(Editor::from_text(
                field
                    .default
                    .as_ref()
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            )),
        }
    }

    /// The editor of a field that takes typing, to read.
    pub fn editor(&self) -> Option<&Editor> {
        match self {
            Self::Text(editor) | Self::Number(editor) => Some(editor),
            _ => None,
        }
    }

    /// The editor of a field that takes typing.
    pub fn editor_mut(&mut self) -> Option<&mut Editor> {
        match self {
            Self::Text(editor) | Self::Number(editor) => Some(editor),
            _ => None,
        }
    }
}

/// A form being filled in: the focused row and every value. The rows are the fields, then the
/// form's options (e.g. Decline), which answer when Enter is pressed on them.
#[derive(Debug, Clone)]
pub struct FormState {
    pub focus: usize,
    pub values: Vec<FieldValue>,
    /// How many options follow the fields.
    pub buttons: usize,
}

impl FormState {
    /// The rows focus moves over: the fields, then the options.
    pub fn rows(&self) -> usize {
        self.values.len() + self.buttons
    }
}

/// Why the card was left without an answer from this phone.
#[derive(Debug, Clone, PartialEq)]
pub enum ClosedHow {
    /// The pane's chat says how (SPEC A4–A6).
    Known(Box<ClosedAsk>),
    /// The ask left the open list and the chat does not say why.
    Gone,
}

/// What an agent lets its cards offer (SPEC A11): reached over TLS, and whether its hello allows
/// allow-always at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AgentOffer {
    pub tls: bool,
    pub allows_always: bool,
    /// A Deny may carry words to the same pane (SPEC A21).
    pub deny_with_words: bool,
}

/// What the person picked or typed on a card: one model per kind of ask, made from the ask's
/// body (`wire::AskBody`), so a new kind of ask is a compile error here and each kind holds
/// only its own state (docs/ARCHITECTURE.md, "On paper").
#[derive(Debug, Clone)]
pub enum CardInput {
    /// A permission's, a choice's or a link's options: the highlighted row (an index into
    /// [`CardState::offered`], or the row of "Deny, and say why"), and the words under that
    /// Deny (SPEC A21), kept while the selection moves.
    Options { selected: usize, say_why: Editor },
    /// A text ask's answer.
    Text(Editor),
    /// A form being filled in.
    Form(FormState),
    /// Nothing to pick or type: a wait answered on the desktop, or a kind this phone does not
    /// know (SPEC V3).
    Nothing,
}

impl CardInput {
    /// A card's input as it opens: the first option, an empty answer, a form at its defaults.
    fn of(ask: &Ask) -> Self {
        match ask.body() {
            AskBody::Permission(_) | AskBody::Choice(_) | AskBody::Link(..) => Self::Options {
                selected: 0,
                say_why: Editor::new(),
            },
            AskBody::Text(_) => Self::Text(Editor::new()),
            AskBody::Form(form) => Self::Form(FormState {
                focus: 0,
                values: form.fields.iter().map(FieldValue::initial).collect(),
                buttons: form.options.len(),
            }),
            AskBody::DesktopWait | AskBody::Unknown(_) => Self::Nothing,
        }
    }
}

#[derive(Debug, Clone)]
pub struct CardState {
    pub key: AskKey,
    /// The ask as last seen; kept after it closes so the card can still say what happened.
    pub ask: Ask,
    pub pane_title: String,
    /// What the person picked or typed, by the ask's kind.
    pub input: CardInput,
    /// Set once the ask is no longer open.
    pub closed: Option<ClosedHow>,
    /// A line from the phone itself, e.g. a required field left empty.
    pub notice: Option<String>,
    /// Since when keys may answer: the card opened, or its ask changed (docs/ASKS.md, "The
    /// reading time").
    pub arming: Arming,
    /// The ask as the person last saw it settled, while a change since is not acknowledged:
    /// the card shows what changed until the person moves or answers after the reading time.
    pub changed_from: Option<Ask>,
}

impl CardState {
    /// A card opened `now`: no key answers it until the reading time is over.
    pub fn new(key: AskKey, ask: Ask, pane_title: String, now: OffsetDateTime) -> Self {
        Self {
            key,
            input: CardInput::of(&ask),
            ask,
            pane_title,
            closed: None,
            notice: None,
            arming: Arming::start(Why::Opened, now),
            changed_from: None,
        }
    }

    /// The highlighted row of a card with options (0 on any other).
    pub fn selected(&self) -> usize {
        match &self.input {
            CardInput::Options { selected, .. } => *selected,
            _ => 0,
        }
    }

    /// Highlights a row of a card with options; nothing on any other.
    pub fn select(&mut self, row: usize) {
        if let CardInput::Options { selected, .. } = &mut self.input {
            *selected = row;
        }
    }

    /// A text card's answer.
    pub fn answer_text(&self) -> Option<&Editor> {
        match &self.input {
            CardInput::Text(editor) => Some(editor),
            _ => None,
        }
    }

    /// A text card's answer, to type in.
    pub fn answer_text_mut(&mut self) -> Option<&mut Editor> {
        match &mut self.input {
            CardInput::Text(editor) => Some(editor),
            _ => None,
        }
    }

    /// A form card's fields as filled in.
    pub fn form(&self) -> Option<&FormState> {
        match &self.input {
            CardInput::Form(form) => Some(form),
            _ => None,
        }
    }

    /// A form card's fields, to fill in.
    pub fn form_mut(&mut self) -> Option<&mut FormState> {
        match &mut self.input {
            CardInput::Form(form) => Some(form),
            _ => None,
        }
    }

    /// The words under "Deny, and say why" (SPEC A21), on a card with options.
    pub fn say_why(&self) -> Option<&Editor> {
        match &self.input {
            CardInput::Options { say_why, .. } => Some(say_why),
            _ => None,
        }
    }

    /// The words under "Deny, and say why", to type in.
    pub fn say_why_mut(&mut self) -> Option<&mut Editor> {
        match &mut self.input {
            CardInput::Options { say_why, .. } => Some(say_why),
            _ => None,
        }
    }

    /// When the ask expires, if it does (SPEC A13).
    pub fn expires_at(&self) -> Option<OffsetDateTime> {
        self.ask
            .expires_at
            .as_ref()
            .and_then(crate::wire::Stamp::at)
    }

    /// The deadline, once it has passed by the phone's clock: from then on no key answers the
    /// card (docs/ASKS.md, "When an ask expires"). The agent's own refusal stays the last word
    /// for a phone whose clock is behind.
    pub fn expired_at(&self, now: OffsetDateTime) -> Option<OffsetDateTime> {
        self.expires_at()
            .filter(|at| crate::model::inbox::TimeLeft::is_over(*at, now))
    }

    /// What the person's typed words are, to give back when the card goes without taking them:
    /// a text card's answer, or a form's typed fields as "Label: words" lines.
    pub fn typed_words(&self) -> Option<String> {
        let words = match (&self.input, &self.ask.form) {
            (CardInput::Text(editor), _) => editor.text(),
            (CardInput::Form(state), Some(body)) => body
                .fields
                .iter()
                .zip(&state.values)
                .filter_map(|(field, value)| match value {
                    FieldValue::Text(editor) | FieldValue::Number(editor)
                        if !editor.text().trim().is_empty() =>
                    {
                        Some(format!("{}: {}", field.label, editor.text()))
                    }
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
            (CardInput::Options { say_why, .. }, _) => say_why.text(),
            _ => String::new(),
        };
        (!words.trim().is_empty()).then_some(words)
    }

    /// True when the person typed words of their own here: a text answer, or words under a
    /// Deny. A form's fields start at the agent's defaults, so they are not counted.
    pub fn has_own_words(&self) -> bool {
        match &self.input {
            CardInput::Text(editor)
            | CardInput::Options {
                say_why: editor, ..
            } => !editor.text().trim().is_empty(),
            CardInput::Form(_) | CardInput::Nothing => false,
        }
    }

    /// True once the reading time since the card opened or changed is over.
    pub fn is_armed(&self, now: OffsetDateTime) -> bool {
        self.arming.is_armed(now)
    }

    /// The card is on screen again (opened from the inbox or a pane): read it before answering.
    pub fn reopen(&mut self, now: OffsetDateTime) {
        self.arming = Arming::start(Why::Opened, now);
    }

    /// The person moved or answered after the reading time: the change has been seen.
    pub fn acknowledge(&mut self) {
        self.changed_from = None;
        self.notice = None;
    }

    /// A key that would answer came inside the reading time: it does nothing, and says why.
    pub fn refuse_unread(&mut self) {
        self.notice = Some(self.arming.why.sentence().to_string());
    }

    /// What changed since the person last saw the ask settled, if a change is not acknowledged.
    pub fn changes(&self, agent: AgentOffer) -> Option<(u64, Vec<Changed>)> {
        let old = self.changed_from.as_ref()?;
        let shown = self.allow_always(agent).is_ok();
        Some((old.revision, ask_diff::changes(old, &self.ask, shown)))
    }

    /// Takes the live ask. Any change a person could read (a new revision, or new words under
    /// the same one) redraws the card (SPEC A3), keeps what was typed into fields that are still
    /// there and the selection on the same option, starts the reading time again and marks what
    /// changed. Returns true when the card changed under the person's eyes.
    pub fn refresh(
        &mut self,
        live: Option<&Ask>,
        closed: Option<&ClosedAsk>,
        agent: AgentOffer,
        now: OffsetDateTime,
    ) -> bool {
        match live {
            Some(ask) => {
                let reopened = self.closed.take().is_some();
                if !reads_the_same(ask, &self.ask) {
                    self.take_new_form(ask, agent);
                    self.arming = Arming::start(Why::Changed, now);
                    return true;
                }
                if reopened {
                    self.arming = Arming::start(Why::Reopened, now);
                    return true;
                }
                false
            }
            None => {
                if self.closed.is_none() || closed.is_some() {
                    let was_open = self.closed.is_none();
                    self.closed = Some(match closed {
                        Some(closed) => ClosedHow::Known(Box::new(closed.clone())),
                        None => ClosedHow::Gone,
                    });
                    return was_open;
                }
                false
            }
        }
    }

    fn take_new_form(&mut self, ask: &Ask, agent: AgentOffer) {
        let was_saying_why = self.saying_why(agent);
        let picked = self
            .offered(agent)
            .get(self.selected())
            .map(|o| (o.id.clone(), o.effect.clone()));
        let old_fields = self.ask.form.as_ref().map(|f| f.fields.clone());
        let old_input = std::mem::replace(&mut self.input, CardInput::of(ask));
        let before = std::mem::replace(&mut self.ask, ask.clone());
        // The banner compares with what the person last saw settled, across several changes.
        if self.changed_from.is_none() {
            self.changed_from = Some(before);
        }
        // What was typed stays where its place is still there: a text answer, the words under
        // a Deny, the fields of the same id and kind.
        let mut old_form = None;
        match (old_input, &mut self.input) {
            (CardInput::Text(old), CardInput::Text(new)) => *new = old,
            (CardInput::Options { say_why: old, .. }, CardInput::Options { say_why, .. }) => {
                *say_why = old;
            }
            (CardInput::Form(old), CardInput::Form(_)) => old_form = Some(old),
            _ => {}
        }
        if let (Some(fields), Some(old), Some(new), Some(form)) =
            (old_fields, old_form, self.form_mut(), ask.form.as_ref())
        {
            for (i, field) in form.fields.iter().enumerate() {
                let kept = fields
                    .iter()
                    .position(|f| f.id == field.id && f.kind == field.kind)
                    .and_then(|at| old.values.get(at).cloned());
                if let (Some(kept), Some(slot)) = (kept, new.values.get_mut(i)) {
                    *slot = kept;
                }
            }
            new.focus = old.focus.min(new.rows().saturating_sub(1));
        }
        // The same option stays selected only if it still does the same; otherwise the safe
        // one (deny) is, so a reordered list never leaves the selection on another effect.
        let offered = self.offered(agent);
        let row = picked
            .and_then(|(id, effect)| {
                offered
                    .iter()
                    .position(|o| o.id == id && o.effect == effect)
            })
            .or_else(|| offered.iter().position(|o| o.effect == Some(Effect::Deny)))
            .unwrap_or(0);
        self.select(row);
        // The words under the Deny stay where they are typed while the new ask still denies.
        if was_saying_why && let Some(row) = self.say_why_row(agent) {
            self.select(row);
        }
    }

    /// The row of "Deny, and say why" (SPEC A21): after the options, on a permission card
    /// that offers a Deny, of an agent whose Deny may carry words.
    pub fn say_why_row(&self, agent: AgentOffer) -> Option<usize> {
        let offered = self.offered(agent);
        (agent.deny_with_words
            && CardShape::of(&self.ask).letters
            && offered.iter().any(|o| o.effect == Some(Effect::Deny)))
        .then_some(offered.len())
    }

    /// True while "Deny, and say why" is selected: letters go into its words.
    pub fn saying_why(&self, agent: AgentOffer) -> bool {
        self.say_why_row(agent) == Some(self.selected())
    }

    /// The rows the selection moves over: the options, and "Deny, and say why" where offered.
    pub fn rows(&self, agent: AgentOffer) -> usize {
        self.say_why_row(agent)
            .map_or_else(|| self.offered(agent).len(), |row| row + 1)
    }

    /// The option a Deny with words answers with.
    pub fn deny_option(&self, agent: AgentOffer) -> Option<&AskOption> {
        self.offered(agent)
            .into_iter()
            .find(|o| o.effect == Some(Effect::Deny))
    }

    /// Whether allow-always may be offered on this card, and if not, why (SPEC A11, A12).
    pub fn allow_always(&self, agent: AgentOffer) -> Result<(), &'static str> {
        let offered = self.ask.permission.as_ref().is_some_and(|p| {
            p.options
                .iter()
                .any(|o| o.effect == Some(Effect::AllowAlways))
        });
        if !offered {
            return Ok(());
        }
        if agent.tls {
            return Err("Allow always is not offered: this agent is reached over TLS.");
        }
        if self.ask.words_altered {
            return Err("Allow always is not offered: this card's words were cut or cleaned.");
        }
        if self
            .ask
            .permission
            .as_ref()
            .is_none_or(|p| p.tool.trim().is_empty())
        {
            return Err("Allow always is not offered: this card names no tool.");
        }
        if !agent.allows_always {
            return Err("Allow always is not offered: this agent does not allow it.");
        }
        Ok(())
    }

    /// The options shown, with allow-always left out where it may not be offered.
    pub fn options(&self, allow_always: bool) -> Vec<&AskOption> {
        self.ask
            .options()
            .iter()
            .filter(|o| allow_always || o.effect != Some(Effect::AllowAlways))
            .collect()
    }

    /// The options this card offers on this agent (SPEC A11, A12).
    pub fn offered(&self, agent: AgentOffer) -> Vec<&AskOption> {
        self.options(self.allow_always(agent).is_ok())
    }

    /// The selected option, if the card has options.
    pub fn selected_option(&self, agent: AgentOffer) -> Option<&AskOption> {
        self.offered(agent).get(self.selected()).copied()
    }

    /// The form option the focus is on (e.g. Decline), if it is on one.
    pub fn focused_form_option(&self) -> Option<&AskOption> {
        let (body, state) = (self.ask.form.as_ref()?, self.form()?);
        body.options
            .get(state.focus.checked_sub(state.values.len())?)
    }

    /// The answer of picking an option (permission or choice).
    pub fn pick(option: &AskOption) -> Answer {
        Answer {
            option_id: Some(option.id.clone()),
            ..Answer::default()
        }
    }

    /// The answer of a text card.
    pub fn text_answer(&self) -> Answer {
        Answer {
            text: Some(self.answer_text().map(Editor::text).unwrap_or_default()),
            ..Answer::default()
        }
    }

    /// The answer of a form card, or the first field that needs the person (client-side
    /// check; the agent checks again).
    pub fn form_answer(&self) -> Result<Answer, (usize, String)> {
        let (Some(body), Some(state)) = (self.ask.form.as_ref(), self.form()) else {
            return Err((0, "This form has no fields to fill in.".into()));
        };
        let mut values = BTreeMap::new();
        for (i, (field, value)) in body.fields.iter().zip(&state.values).enumerate() {
            let json = match value {
                FieldValue::Text(editor) => {
                    let text = editor.text();
                    (!text.is_empty()).then_some(Value::String(text))
                }
                FieldValue::Number(editor) => {
                    let text = editor.text();
                    let text = text.trim();
                    if text.is_empty() {
                        None
                    } else {
                        let number = text.parse::<i64>().map(Value::from).ok().or_else(|| {
                            text.parse::<f64>()
                                .ok()
                                .and_then(serde_json::Number::from_f64)
                                .map(Value::Number)
                        });
                        match number {
                            Some(number) => Some(number),
                            None => {
                                return Err((i, format!("{} must be a number.", field.label)));
                            }
                        }
                    }
                }
                FieldValue::Choice(choice) => choice
                    .and_then(|at| field.options.get(at))
                    .map(|o| Value::String(o.id.clone())),
                FieldValue::Many { picked, .. } => {
                    let ids: Vec<Value> = field
                        .options
                        .iter()
                        .zip(picked)
                        .filter(|(_, on)| **on)
                        .map(|(o, _)| Value::String(o.id.clone()))
                        .collect();
                    (!ids.is_empty() || field.min.is_some()).then_some(Value::Array(ids))
                }
                FieldValue::Boolean(on) => Some(Value::Bool(*on)),
            };
            match json {
                Some(json) => {
                    // The agent checks again; these are its words (SPEC A15).
                    if let Some(why) = crate::wire::form_check::field_problem(field, &json) {
                        return Err((i, format!("{} {why}.", field.label)));
                    }
                    values.insert(field.id.clone(), json);
                }
                None if field.required => {
                    return Err((i, format!("Fill in {} first.", field.label)));
                }
                None => {}
            }
        }
        Ok(Answer {
            values: Some(values),
            ..Answer::default()
        })
    }

    /// True when the card is a text card or a form: letters are typed, not commands.
    pub fn takes_typing(&self) -> bool {
        CardShape::of(&self.ask).takes_typing()
    }
}

/// True when a person reading both would read the same card. `openedAt` is left out: it is not
/// drawn, and an agent that asks again after a restart may give a new one (SPEC A9).
fn reads_the_same(a: &Ask, b: &Ask) -> bool {
    a.revision == b.revision
        && a.kind == b.kind
        && a.title == b.title
        && a.expires_at == b.expires_at
        && a.permission == b.permission
        && a.choice == b.choice
        && a.text == b.text
        && a.form == b.form
        && a.words_altered == b.words_altered
}

/// The state of a card's answer, each with the exact sentence of the SPEC.
#[derive(Debug, Clone, PartialEq)]
pub enum CardStatus {
    /// Submitted, or on its way.
    Sending,
    /// Taken; `replayed` when the agent had this request id already (SPEC Q3).
    Answered {
        replayed: bool,
    },
    /// SPEC A3.
    Stale,
    /// SPEC A7: who decided first, and the words of the answer that won, if the agent said.
    Decided(Decider, Option<String>),
    /// SPEC A8.
    TooLate,
    /// SPEC Q4: the engine checks it by itself (same request id); Retry checks now.
    Checking {
        request_id: String,
    },
    /// SPEC Q4: the person may retry this request id.
    Unknown {
        request_id: String,
        why: String,
    },
    /// SPEC Q5: final.
    MaybeApplied,
    RequestIdReused,
    Refused {
        status: u16,
        code: String,
        message: Option<String>,
    },
    /// Never reached the agent: the person may send it again.
    NotSent {
        request_id: String,
        why: String,
    },
}

impl CardStatus {
    /// The status of the newest answer to this card, if any.
    pub fn of(intents: &Intents, key: &AskKey) -> Option<Self> {
        if intents.answer_pending(key) {
            return Some(Self::Sending);
        }
        let record = intents.latest_answer(key)?;
        Some(match &record.state {
            IntentState::Created | IntentState::Sending => Self::Sending,
            IntentState::Done { .. } => Self::Answered { replayed: false },
            IntentState::Replayed { .. } => Self::Answered { replayed: true },
            IntentState::Stale { .. } => Self::Stale,
            IntentState::Decided { by, outcome } => {
                Self::Decided(by.clone(), outcome.as_ref().and_then(outcome_words))
            }
            IntentState::TooLate => Self::TooLate,
            IntentState::Unknown { .. } if record.checking => Self::Checking {
                request_id: record.request_id.clone(),
            },
            IntentState::Unknown { why } if is_retryable(record) => Self::Unknown {
                request_id: record.request_id.clone(),
                why: why.clone(),
            },
            IntentState::Unknown { .. } | IntentState::MaybeApplied => Self::MaybeApplied,
            IntentState::RequestIdReused => Self::RequestIdReused,
            IntentState::Refused {
                status,
                code,
                message,
            } => Self::Refused {
                status: *status,
                code: code.clone(),
                message: message.clone(),
            },
            IntentState::NotSent { why } => Self::NotSent {
                request_id: record.request_id.clone(),
                why: why.clone(),
            },
        })
    }

    /// The card's sentence: the one wording of the outcome (`model::outcome`, SPEC Q7) and
    /// the card's own next step.
    pub fn sentence(&self) -> String {
        self.outcome().wording(What::Answer).on_card()
    }

    /// The outcome this status shows.
    pub fn outcome(&self) -> IntentOutcome {
        match self {
            Self::Sending => IntentOutcome::Sending,
            Self::Answered { replayed: false } => IntentOutcome::Done(Done::Answered(None)),
            Self::Answered { replayed: true } => IntentOutcome::Replayed(Done::Answered(None)),
            Self::Stale => IntentOutcome::Stale,
            Self::Decided(by, won) => IntentOutcome::Decided(by.clone(), won.clone()),
            Self::TooLate => IntentOutcome::TooLate,
            Self::Checking { .. } => IntentOutcome::Checking,
            Self::Unknown { why, .. } => IntentOutcome::Unknown {
                why: why.clone(),
                bridge: false,
            },
            Self::MaybeApplied => IntentOutcome::MaybeApplied,
            Self::RequestIdReused => IntentOutcome::RequestIdReused,
            Self::Refused {
                status: 0, message, ..
            } => IntentOutcome::NotBuilt(message.clone()),
            Self::Refused {
                status,
                code,
                message,
            } => IntentOutcome::Refused {
                status: *status,
                code: code.clone(),
                message: message.clone(),
            },
            Self::NotSent { why, .. } => IntentOutcome::NotSent(why.clone()),
        }
    }

    /// A request id the person may retry (SPEC Q4).
    pub fn retry_id(&self) -> Option<&str> {
        match self {
            Self::Checking { request_id }
            | Self::Unknown { request_id, .. }
            | Self::NotSent { request_id, .. } => Some(request_id),
            _ => None,
        }
    }

    /// True when a new answer may be given: nothing is on its way and nothing was decided.
    pub fn allows_answer(status: Option<&Self>) -> bool {
        match status {
            None => true,
            Some(status) => matches!(
                status,
                Self::Stale
                    | Self::TooLate
                    | Self::RequestIdReused
                    | Self::Refused { .. }
                    | Self::NotSent { .. }
            ),
        }
    }

    /// True for the outcomes drawn as trouble rather than progress.
    pub fn is_trouble(&self) -> bool {
        !matches!(self, Self::Sending | Self::Answered { .. })
    }
}

/// The refusal of a key that would answer an expired card (SPEC A13).
pub fn expired_refusal(at: OffsetDateTime) -> String {
    IntentOutcome::Expired(at).wording(What::Answer).said
}

/// The state line of an expired card that was not answered (SPEC A13).
pub fn expired_state(at: OffsetDateTime) -> String {
    format!(
        "Expired at {}. It can no longer be answered.",
        crate::model::inbox::clock_time(at)
    )
}

/// The sentence for a card whose ask closed without this phone's answer (SPEC A4–A6), naming
/// the answer that won when the chat says it.
pub fn closed_sentence(closed: &ClosedHow) -> String {
    let ClosedHow::Known(closed) = closed else {
        return "This ask is no longer open.".into();
    };
    let won = closed.outcome.as_ref().and_then(outcome_words);
    match (&closed.decided_by, won) {
        (Some(DecidedBy::Program), Some(won)) => format!("Decided on the durable agent: “{won}”."),
        (Some(DecidedBy::Program), None) => "Decided on the durable agent.".into(),
        (Some(DecidedBy::Timeout), _) => "Timed out before an answer.".into(),
        (None, Some(won)) => format!("Answered from a phone: “{won}”."),
        (None, None) => "Answered from a phone.".into(),
        (Some(DecidedBy::Unknown(_)), _) => "This ask is no longer open.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::arming::ARMING;
    use time::Duration;
    use time::macros::datetime;

    const T0: OffsetDateTime = datetime!(2026-11-29 14:30:00 UTC);
    const LOCAL: AgentOffer = AgentOffer {
        tls: false,
        allows_always: true,
        deny_with_words: true,
    };

    fn ask(json: serde_json::Value) -> Ask {
        serde_json::from_value(json).expect("an ask")
    }

    fn permission(tool: &str) -> Ask {
        ask(serde_json::json!({
            "id": "a1", "revision": 1, "kind": "permission", "title": "shell: ls",
            "permission": {"tool": tool, "arguments": {"command": "ls"}, "options": [
                {"id": "allow-once", "label": "Allow once", "effect": "allow"},
                {"id": "deny", "label": "Deny", "effect": "deny"},
                {"id": "allow-always", "label": "Allow always", "effect": "allow-always"}
            ]}
        }))
    }

    fn key() -> AskKey {
        AskKey {
            agent: "a".into(),
            pane: "p".into(),
            ask_id: "a1".into(),
        }
    }

    #[test]
    fn a11_a12_allow_always_reasons() {
        let card = CardState::new(key(), permission("shell"), "P".into(), T0);
        assert_eq!(
            card.allow_always(AgentOffer {
                tls: false,
                allows_always: true,
                deny_with_words: true,
            }),
            Ok(())
        );
        assert_eq!(
            card.allow_always(AgentOffer {
                tls: true,
                allows_always: true,
                deny_with_words: true,
            }),
            Err("Allow always is not offered: this agent is reached over TLS.")
        );
        let mut altered = permission("shell");
        altered.words_altered = true;
        let card = CardState::new(key(), altered, "P".into(), T0);
        assert!(
            card.allow_always(AgentOffer {
                tls: false,
                allows_always: true,
                deny_with_words: true,
            })
            .is_err()
        );
        let card = CardState::new(key(), permission(""), "P".into(), T0);
        assert_eq!(
            card.allow_always(AgentOffer {
                tls: false,
                allows_always: true,
                deny_with_words: true,
            }),
            Err("Allow always is not offered: this card names no tool.")
        );
        assert_eq!(card.options(false).len(), 2);
    }

    #[test]
    fn a15_form_answer_checks_required_fields() {
        let form = ask(serde_json::json!({
            "id": "a1", "revision": 1, "kind": "form", "title": "Deploy",
            "form": {"fields": [
                {"id": "env", "label": "Environment", "kind": "choice", "required": true,
                 "options": [{"id": "staging", "label": "Staging"}]},
                {"id": "dry", "label": "Dry run", "kind": "boolean", "default": true},
                {"id": "n", "label": "Replicas", "kind": "number", "default": 2},
                {"id": "notes", "label": "Notes", "kind": "text"}
            ]}
        }));
        let mut card = CardState::new(key(), form, "P".into(), T0);
        assert_eq!(card.form_answer().map_err(|e| e.0), Err(0));
        if let Some(state) = card.form_mut() {
            state.values[0] = FieldValue::Choice(Some(0));
        }
        let answer = card.form_answer().expect("complete");
        let values = answer.values.expect("values");
        assert_eq!(values["env"], "staging");
        assert_eq!(values["dry"], true);
        assert_eq!(values["n"], 2);
        assert!(!values.contains_key("notes"));
    }

    #[test]
    fn a3_new_revision_keeps_typed_values() {
        let form = |revision: u64| {
            ask(serde_json::json!({
                "id": "a1", "revision": revision, "kind": "form", "title": "F",
                "form": {"fields": [{"id": "notes", "label": "Notes", "kind": "text"}]}
            }))
        };
        let mut card = CardState::new(key(), form(1), "P".into(), T0);
        if let Some(FieldValue::Text(editor)) = card.form_mut().map(|f| &mut f.values[0]) {
            editor.insert_str("kept");
        }
        assert!(card.refresh(Some(&form(2)), None, LOCAL, T0));
        assert_eq!(card.ask.revision, 2);
        assert!(
            matches!(&card.form().expect("form").values[0], FieldValue::Text(e) if e.text() == "kept")
        );
    }

    fn with_command(revision: u64, command: &str) -> Ask {
        let mut ask = permission("shell");
        ask.revision = revision;
        if let Some(body) = ask.permission.as_mut() {
            body.arguments = serde_json::json!({"command": command});
        }
        ask
    }

    #[test]
    fn a_card_is_disarmed_for_the_arming_time_after_it_opens() {
        let card = CardState::new(key(), permission("shell"), "P".into(), T0);
        assert!(!card.is_armed(T0));
        assert!(!card.is_armed(T0 + ARMING - Duration::milliseconds(1)));
        assert!(card.is_armed(T0 + ARMING));
        let mut card = card;
        card.reopen(T0 + Duration::seconds(30));
        assert!(!card.is_armed(T0 + Duration::seconds(30)));
        assert!(card.is_armed(T0 + Duration::seconds(30) + ARMING));
    }

    #[test]
    fn a3_a_change_under_the_eyes_disarms_and_is_marked_until_acknowledged() {
        let mut card = CardState::new(key(), with_command(1, "git push --force"), "P".into(), T0);
        let later = T0 + Duration::seconds(20);
        assert!(card.is_armed(later));
        // The same ask again changes nothing.
        assert!(!card.refresh(
            Some(&with_command(1, "git push --force")),
            None,
            LOCAL,
            later
        ));
        assert!(card.is_armed(later));
        let changed_at = later + Duration::milliseconds(300);
        assert!(card.refresh(
            Some(&with_command(2, "git push --force-with-lease")),
            None,
            LOCAL,
            changed_at
        ));
        assert!(!card.is_armed(changed_at + Duration::milliseconds(50)));
        assert!(card.is_armed(changed_at + ARMING));
        card.refuse_unread();
        assert_eq!(
            card.notice.as_deref(),
            Some("This ask just changed. Read it, then answer.")
        );
        let (from, changes) = card.changes(LOCAL).expect("marked");
        assert_eq!(from, 1);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].was, "git push --force");
        assert_eq!(changes[0].now, "git push --force-with-lease");
        // A second change before it was seen still compares with what was seen.
        card.refresh(Some(&with_command(3, "git push")), None, LOCAL, changed_at);
        let (from, changes) = card.changes(LOCAL).expect("marked");
        assert_eq!((from, changes[0].was.as_str()), (1, "git push --force"));
        card.acknowledge();
        assert!(card.changes(LOCAL).is_none());
        assert!(card.notice.is_none());
    }

    #[test]
    fn new_words_under_the_same_revision_count_as_a_change() {
        // A hostile agent that does not raise the revision is redrawn and marked all the same.
        let mut card = CardState::new(key(), with_command(1, "ls"), "P".into(), T0);
        let at = T0 + Duration::seconds(5);
        assert!(card.refresh(Some(&with_command(1, "rm -rf ~")), None, LOCAL, at));
        assert!(!card.is_armed(at));
        assert_eq!(
            card.ask
                .permission
                .as_ref()
                .map(|p| p.arguments["command"].clone()),
            Some(serde_json::json!("rm -rf ~"))
        );
        assert!(card.changes(LOCAL).is_some());
    }

    /// The quit question counts the person's own words: a form at its defaults has none; a
    /// text answer and the words under a Deny do once typed.
    #[test]
    fn a_form_at_its_defaults_holds_no_words_of_the_persons() {
        let form = ask(serde_json::json!({
            "id": "a1", "revision": 1, "kind": "form", "title": "F",
            "form": {"fields": [{"id": "n", "label": "Notes", "kind": "text", "default": "x"}]}
        }));
        assert!(!CardState::new(key(), form, "P".into(), T0).has_own_words());
        let mut card = CardState::new(key(), permission("shell"), "P".into(), T0);
        assert!(!card.has_own_words());
        if let Some(words) = card.say_why_mut() {
            words.insert_str("no");
        }
        assert!(card.has_own_words());
    }

    /// Each kind's model keeps what was typed across a new revision (SPEC A3): a text
    /// answer, and the words under "Deny, and say why" with that row still selected (A21).
    #[test]
    fn a3_a21_typed_words_stay_through_a_new_revision() {
        let text = |revision: u64| {
            ask(serde_json::json!({
                "id": "a1", "revision": revision, "kind": "text", "title": "Name?",
                "text": {"multiline": false}
            }))
        };
        let mut card = CardState::new(key(), text(1), "P".into(), T0);
        if let Some(answer) = card.answer_text_mut() {
            answer.insert_str("kept");
        }
        assert!(card.refresh(Some(&text(2)), None, LOCAL, T0));
        assert_eq!(
            card.answer_text().map(Editor::text).as_deref(),
            Some("kept")
        );

        let mut card = CardState::new(key(), permission("shell"), "P".into(), T0);
        let row = card.say_why_row(LOCAL).expect("a permission with a Deny");
        card.select(row);
        if let Some(words) = card.say_why_mut() {
            words.insert_str("use the cache");
        }
        assert!(card.refresh(Some(&with_command(2, "ls -la")), None, LOCAL, T0));
        assert!(card.saying_why(LOCAL));
        assert_eq!(card.typed_words().as_deref(), Some("use the cache"));
    }

    #[test]
    fn the_selection_follows_its_option_or_falls_back_to_deny() {
        let mut card = CardState::new(key(), permission("shell"), "P".into(), T0);
        card.select(0);
        // Reordered: allow-once moves to the end; the selection follows it.
        let mut reordered = permission("shell");
        reordered.revision = 2;
        if let Some(body) = reordered.permission.as_mut() {
            body.options.rotate_left(1);
        }
        card.refresh(Some(&reordered), None, LOCAL, T0);
        assert_eq!(
            card.selected_option(LOCAL).map(|o| o.id.as_str()),
            Some("allow-once")
        );
        // The selected option now does something else: the selection goes to deny.
        let mut swapped = reordered.clone();
        swapped.revision = 3;
        if let Some(body) = swapped.permission.as_mut()
            && let Some(option) = body.options.iter_mut().find(|o| o.id == "allow-once")
        {
            option.effect = Some(Effect::AllowAlways);
        }
        card.refresh(Some(&swapped), None, LOCAL, T0);
        assert_eq!(
            card.selected_option(LOCAL).map(|o| o.id.as_str()),
            Some("deny")
        );
    }

    #[test]
    fn an_ask_open_again_after_it_left_is_read_again() {
        let mut card = CardState::new(key(), permission("shell"), "P".into(), T0);
        let later = T0 + Duration::seconds(10);
        assert!(card.refresh(None, None, LOCAL, later));
        assert!(card.closed.is_some());
        assert!(card.refresh(Some(&permission("shell")), None, LOCAL, later));
        assert!(!card.is_armed(later));
        card.refuse_unread();
        assert_eq!(
            card.notice.as_deref(),
            Some("This ask is open again. Read it, then answer.")
        );
    }

    #[test]
    fn exact_sentences() {
        assert_eq!(
            CardStatus::Stale.sentence(),
            "This ask changed. Read it again and tap an answer."
        );
        assert_eq!(
            CardStatus::Decided(Decider::Phone, None).sentence(),
            "Already answered. This card goes away on the next refresh."
        );
        assert_eq!(
            CardStatus::TooLate.sentence(),
            "Not taken. The question may come back in a moment."
        );
        assert_eq!(
            CardStatus::Unknown {
                request_id: "r".into(),
                why: "cut".into()
            }
            .sentence(),
            "Not sure the answer arrived. Retry sends it again."
        );
        assert_eq!(
            CardStatus::MaybeApplied.sentence(),
            "May already be applied. Check the chat."
        );
    }
}
