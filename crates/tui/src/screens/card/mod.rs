//! Keys on an ask card: options are selected (y / n / a, 1–8, arrows) and Enter answers the
//! selected one; allow-always asks again before it is sent; a text answer, a form's fields, and
//! Retry for an answer whose outcome is unknown (SPEC A3–A15, Q4). No key answers a card within
//! the reading time after it opened or changed (docs/ASKS.md).

pub(crate) mod draw;
pub(crate) mod draw_dsh;
pub(crate) mod keys;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::keymap::{Action, Context};
use crate::app::list::step_around;
use crate::app::outside_editor::{self, EditTarget};
use crate::app::overlay::{AllowAlwaysQuestion, Overlay};
use crate::app::phone::Phone;
use crate::app::{Command, typing};
use crate::engine::IntentKind;
use crate::model::arming::{Arming, Why};
use crate::model::card_shape::CardShape;
use crate::model::card_state::{CardInput, CardState, CardStatus, FieldValue};
use crate::model::inbox::AskKey;
use crate::model::news::Heard;
use crate::screens::room::{Heeded, Room};
use crate::wire::{Answer, Effect};

/// A card on screen: which ask it shows. What was picked or typed on it lives in the phone
/// (`Phone::cards`), so it survives leaving the card.
#[derive(Debug, Clone)]
pub struct CardScreen {
    pub key: AskKey,
    /// The link a url card drew, for the runner's OSC 8 (`tui::osc`), as the pane's chat keeps
    /// its own.
    pub(crate) drawn_links: std::cell::RefCell<Vec<crate::screens::pane::select::DrawnLink>>,
    /// The row each option was drawn on, with its place among the options: a click on the
    /// row selects it, as its number does (docs/KEYS.md, "The mouse").
    pub(crate) options_at: std::cell::RefCell<Vec<(u16, usize)>>,
}

impl CardScreen {
    pub(crate) fn new(key: AskKey) -> Self {
        Self {
            key,
            drawn_links: Default::default(),
            options_at: Default::default(),
        }
    }
}

impl Room for CardScreen {
    /// The card goes once its ask was answered, here or elsewhere (SPEC A4, A7).
    fn heard(&self, _phone: &Phone, news: &Heard) -> Heeded {
        match news {
            Heard::AnswerTaken { key } | Heard::AnsweredElsewhere { key, .. }
                if *key == self.key =>
            {
                Heeded::Leave
            }
            _ => Heeded::Nothing,
        }
    }

    fn key_parts() -> &'static [Context] {
        &[
            keys::CHOOSING,
            keys::LINK,
            keys::TEXT,
            keys::TYPING,
            keys::SAY_WHY,
        ]
    }

    fn keys(&self, phone: &Phone) -> Context {
        card_context(phone, &self.key)
    }

    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        card_action(phone, &self.key, action)
    }

    fn typed(&mut self, phone: &mut Phone, key: &KeyEvent) {
        card_typing(phone, &self.key, key);
    }

    fn paste(&mut self, phone: &mut Phone, text: &str) {
        card_paste(phone, &self.key, text);
    }

    fn pane_on_screen(&self) -> Option<(String, String)> {
        Some((self.key.agent.clone(), self.key.pane.clone()))
    }

    fn offers(&self, phone: &Phone, action: Action) -> bool {
        card_footer_offers(phone, &self.key, action)
    }

    fn lists(&self, phone: &Phone, action: Action) -> bool {
        card_lists(phone, &self.key, action)
    }

    /// A click on an option selects it, as its number does; Enter still answers.
    fn click(&mut self, phone: &mut Phone, _column: u16, row: u16) -> Vec<Command> {
        let clicked = self
            .options_at
            .borrow()
            .iter()
            .find(|(y, _)| *y == row)
            .map(|(_, index)| *index);
        match clicked.and_then(|index| u8::try_from(index + 1).ok()) {
            Some(n) => card_action(phone, &self.key, Action::Pick(n)),
            None => Vec::new(),
        }
    }
}

/// Whether the card's `?` help lists `action`: only keys that act on this card. A choice card
/// numbers its options and has no permission letters; numbers go as far as its options; the
/// link key only on a card with a link; a new line only in an answer of many lines; the field
/// keys only on a form of more than one row; a retry only while an outcome is unknown.
pub(crate) fn card_lists(phone: &Phone, key: &AskKey, action: Action) -> bool {
    let Some(card) = phone.card(key) else {
        return true;
    };
    let offer = phone.agent_offer(&key.agent);
    let options = card.offered(offer);
    let has = |effect: Effect| options.iter().any(|o| o.effect.as_ref() == Some(&effect));
    let shape = CardShape::of(&card.ask);
    let saying_why = card.saying_why(offer);
    match action {
        Action::AllowOnce => shape.letters && has(Effect::Allow),
        Action::Deny => shape.letters && has(Effect::Deny),
        Action::DenyWithWords => card.say_why_row(offer).is_some(),
        Action::AllowAlways => shape.letters && has(Effect::AllowAlways),
        Action::Pick(n) => usize::from(n) <= card.rows(offer),
        Action::Up | Action::Down => !options.is_empty() || shape.fields,
        Action::OpenLink => shape.link,
        Action::Newline => shape.lines || saying_why,
        Action::NextField | Action::PrevField if saying_why => true,
        // A retry acts only while an answer's outcome is unknown: listed only then.
        Action::NextField | Action::PrevField | Action::Retry => {
            card_footer_offers(phone, key, action)
        }
        _ => true,
    }
}

// What a card does with keys, typing and pastes, on the phone's state of that card
// (`Phone::cards`): the card room's own behaviour, kept here rather than on the phone.

/// True when letters go into the card: a text or form card that may be answered now.
pub(crate) fn card_takes_typing(phone: &Phone, key: &AskKey) -> bool {
    let Some(card) = phone.card(key) else {
        return false;
    };
    (card.takes_typing() || card.saying_why(phone.agent_offer(&key.agent)))
        && card_open_to_answer(phone, key)
}

/// True when a new answer may be given on this card now: open to one, and its agent
/// reached and ready.
pub(crate) fn card_answerable(phone: &Phone, key: &AskKey) -> bool {
    card_open_to_answer(phone, key) && card_unreachable(phone, key).is_none()
}

/// Why no answer can go to this card's agent now, in a sentence for the card's top: it
/// cannot be reached, or it is not ready (None while it is). Typing still goes on.
pub(crate) fn card_unreachable(phone: &Phone, key: &AskKey) -> Option<String> {
    let agent = phone.agents().get(&key.agent)?;
    if !crate::model::inbox::is_unreachable(agent) {
        return None;
    }
    Some(match agent.link() {
        crate::model::agents::Link::Down(crate::engine::AgentStatus::Unreachable {
            reason,
            ..
        }) => format!(
            "{} cannot be reached: {}. No answer can go now; this card answers again once the agent is back.",
            key.agent,
            reason.trim_end_matches('.')
        ),
        crate::model::agents::Link::Waiting(status) => format!(
            "{} is not ready: {} No answer can go until it is.",
            key.agent,
            status.sentence()
        ),
        _ => format!(
            "{} cannot be reached: {} No answer can go now.",
            key.agent,
            agent.status.sentence()
        ),
    })
}

/// True when the card itself takes an answer: open, not past its deadline, not answered.
fn card_open_to_answer(phone: &Phone, key: &AskKey) -> bool {
    let Some(card) = phone.card(key) else {
        return false;
    };
    card.closed.is_none()
        && card.expired_at(phone.now()).is_none()
        && card.ask.is_answerable()
        && CardStatus::allows_answer(CardStatus::of(phone.intents(), key).as_ref())
}

/// Whether the footer may hint `action` on the card shown now: answering only while the
/// card can be answered (not closed, not past its deadline, SPEC A13), retrying only while
/// an outcome is unknown and the card has not expired. Every other key does what it says.
pub(crate) fn card_footer_offers(phone: &Phone, key: &AskKey, action: Action) -> bool {
    match action {
        Action::Submit => card_answerable(phone, key),
        Action::Retry => {
            let live = phone
                .card(key)
                .is_some_and(|card| card.expired_at(phone.now()).is_none())
                && card_unreachable(phone, key).is_none();
            live && CardStatus::of(phone.intents(), key)
                .as_ref()
                .and_then(CardStatus::retry_id)
                .is_some()
        }
        // A text card has one field: there is no next one to go to. The words after a Deny
        // go back to the options.
        Action::NextField | Action::PrevField => phone.card(key).is_some_and(|card| {
            card.saying_why(phone.agent_offer(&key.agent))
                || card.form().is_some_and(|form| form.rows() > 1)
        }),
        _ => true,
    }
}

/// Whether allow-always is offered on a card, and why not (SPEC A11, A12).
pub(crate) fn card_allow_always(phone: &Phone, card: &CardState) -> Result<(), &'static str> {
    card.allow_always(phone.agent_offer(&card.key.agent))
}

/// The keys of a card: typing on a text or form card that may be answered, else commands.
pub(crate) fn card_context(phone: &Phone, key: &AskKey) -> Context {
    if card_takes_typing(phone, key) {
        // A text answer and a form have their own notes in the help: a form's kinds of field.
        let saying_why = phone
            .card(key)
            .is_some_and(|c| c.saying_why(phone.agent_offer(&key.agent)));
        if saying_why {
            keys::SAY_WHY
        } else if phone.card(key).is_some_and(|c| CardShape::of(&c.ask).typed) {
            keys::TEXT
        } else {
            keys::TYPING
        }
    } else if card_link(phone, key).is_some() {
        keys::LINK
    } else {
        keys::CHOOSING
    }
}

/// The link of a url card, if this card is one.
pub(crate) fn card_link(phone: &Phone, key: &AskKey) -> Option<String> {
    phone
        .card(key)
        .and_then(|c| c.ask.choice.as_ref())
        .and_then(|c| c.url.clone())
}

pub(crate) fn card_action(phone: &mut Phone, key: &AskKey, action: Action) -> Vec<Command> {
    let key = key.clone();
    let Some(card) = phone.card(&key) else {
        return phone.back();
    };
    let answerable = card_answerable(phone, &key);
    let armed = card.is_armed(phone.now());
    let offer = phone.agent_offer(&key.agent);
    let options: Vec<_> = card.offered(offer).into_iter().cloned().collect();
    let shape = CardShape::of(&card.ask);
    let expired = card.expired_at(phone.now());
    let rows = card.rows(offer);
    let say_why_row = card.say_why_row(offer);
    let saying_why = card.saying_why(offer);
    match action {
        Action::Back => phone.back(),
        // A text answer opens in the person's editor at any time: it comes back unsent.
        Action::EditOutside => match phone.card(&key) {
            Some(card) if let Some(answer) = card.answer_text() => {
                let text = answer.text();
                vec![outside_editor::open(EditTarget::Answer(key), text)]
            }
            Some(card) if saying_why && let Some(words) = card.say_why() => {
                let text = words.text();
                vec![outside_editor::open(EditTarget::DenyWords(key), text)]
            }
            _ => {
                phone.show_toast(
                    "The editor opens a text card's answer; a form's fields are typed here.",
                    false,
                );
                Vec::new()
            }
        },
        // A url card's link is copied as the pane copies (OSC 52, cleaned and capped, SPEC
        // L1), at any time: copying answers nothing.
        Action::Copy => match card_link(phone, &key) {
            Some(url) => crate::screens::search::copy(phone, &url, ""),
            None => Vec::new(),
        },
        // A url card's link opens at any time: opening answers nothing.
        Action::OpenLink => {
            let url = card_link(phone, &key);
            match url {
                Some(url) => {
                    phone.show_toast(crate::look::chat_links::opening_words(&url), false);
                    vec![Command::OpenLink(url)]
                }
                None => {
                    phone.show_toast("This card has no link to open.", false);
                    Vec::new()
                }
            }
        }
        // SPEC A13: from the deadline on, by the phone's clock, nothing answers; a key that
        // would says so, and nothing is sent, now or later.
        Action::Retry | Action::Submit if expired.is_some() => {
            refuse_expired(phone, &key);
            Vec::new()
        }
        // A retry sends an answer again: it waits out the reading time like any answer.
        Action::Retry if !armed => refuse_unread(phone, &key),
        Action::Retry => {
            match CardStatus::of(phone.intents(), &key)
                .as_ref()
                .and_then(CardStatus::retry_id)
            {
                Some(request_id) => {
                    let request_id = request_id.to_string();
                    phone.retry(&request_id)
                }
                None => {
                    phone.show_toast("Nothing on this card needs a retry.", false);
                    Vec::new()
                }
            }
        }
        _ if !answerable => {
            if matches!(
                action,
                Action::AllowOnce
                    | Action::Deny
                    | Action::DenyWithWords
                    | Action::AllowAlways
                    | Action::Pick(_)
                    | Action::Submit
            ) {
                phone.show_toast(why_not_answerable(phone, &key), false);
            }
            Vec::new()
        }
        // Selecting never answers, so it works inside the reading time too; only after it
        // does a move count as having seen a change.
        // Out of the words after a Deny, back to the options: the words stay (SPEC A21).
        Action::NextField | Action::PrevField if saying_why => {
            let deny = options.iter().position(|o| o.effect == Some(Effect::Deny));
            select_option(phone, &key, deny.unwrap_or(0), armed);
            Vec::new()
        }
        Action::Up | Action::Down if shape.options => {
            let last = rows.saturating_sub(1);
            let selected = phone.card(&key).map_or(0, CardState::selected);
            let selected = if action == Action::Up {
                selected.saturating_sub(1)
            } else {
                (selected + 1).min(last)
            };
            select_option(phone, &key, selected, armed);
            Vec::new()
        }
        Action::Up | Action::Down | Action::PrevField | Action::NextField if shape.fields => {
            let forward = matches!(action, Action::Down | Action::NextField);
            if let Some(card) = phone.model.card_mut(&key) {
                if armed {
                    card.acknowledge();
                }
                if let Some(form) = card.form_mut() {
                    form.focus = step_around(form.focus, form.rows(), forward);
                }
            }
            Vec::new()
        }
        Action::AllowOnce | Action::Deny | Action::AllowAlways if shape.letters => {
            let effect = match action {
                Action::AllowOnce => Effect::Allow,
                Action::Deny => Effect::Deny,
                _ => Effect::AllowAlways,
            };
            match options
                .iter()
                .position(|o| o.effect.as_ref() == Some(&effect))
            {
                Some(index) => select_option(phone, &key, index, armed),
                None => {
                    let why = match effect {
                        Effect::AllowAlways => phone
                            .card(&key)
                            .and_then(|c| card_allow_always(phone, c).err())
                            .unwrap_or("This card offers no allow always."),
                        _ => "This card has no such option.",
                    };
                    phone.show_toast(why, false);
                }
            }
            Vec::new()
        }
        Action::DenyWithWords => {
            match say_why_row {
                Some(row) => select_option(phone, &key, row, armed),
                None => phone.show_toast(
                    if shape.letters {
                        "This card has no Deny to say why with."
                    } else {
                        "Only a permission's Deny says why."
                    },
                    false,
                ),
            }
            Vec::new()
        }
        Action::Pick(n) if shape.options => {
            let index = usize::from(n).wrapping_sub(1);
            if index < rows {
                select_option(phone, &key, index, armed);
            } else {
                phone.show_toast(format!("There is no option {n}."), false);
            }
            Vec::new()
        }
        Action::Submit if !armed => refuse_unread(phone, &key),
        Action::Submit => {
            if let Some(card) = phone.model.card_mut(&key) {
                card.acknowledge();
            }
            // Each kind's model builds its answer.
            let Some(card) = phone.card(&key) else {
                return Vec::new();
            };
            let answer = match &card.input {
                CardInput::Options { .. } if saying_why => return deny_with_words(phone, &key),
                CardInput::Options { selected, .. } => match options.get(*selected) {
                    Some(option) if option.effect == Some(Effect::AllowAlways) => {
                        ask_allow_always(phone, &key, option.id.clone());
                        return Vec::new();
                    }
                    Some(option) => CardState::pick(option),
                    None => return Vec::new(),
                },
                CardInput::Text(typed) if typed.is_empty() => {
                    set_card_notice(phone, &key, "Type an answer first.");
                    return Vec::new();
                }
                CardInput::Text(_) => card.text_answer(),
                // Enter on one of the form's options (Decline) answers with it.
                CardInput::Form(_) => match card.focused_form_option() {
                    Some(option) => CardState::pick(option),
                    None => match card.form_answer() {
                        Ok(answer) => answer,
                        Err((field, why)) => {
                            if let Some(form) =
                                phone.model.card_mut(&key).and_then(CardState::form_mut)
                            {
                                form.focus = field;
                            }
                            set_card_notice(phone, &key, &why);
                            return Vec::new();
                        }
                    },
                },
                CardInput::Nothing => return Vec::new(),
            };
            send_answer(phone, &key, answer)
        }
        Action::Newline => {
            let card = phone.model.card_mut(&key);
            let typed = match card {
                Some(card) if saying_why => card.say_why_mut(),
                Some(card) if shape.lines => card.answer_text_mut(),
                _ => None,
            };
            if let Some(typed) = typed {
                typed.newline();
            } else {
                phone.show_toast("This answer takes one line.", false);
            }
            Vec::new()
        }
        // Letters name a permission's effects; other cards number their options.
        Action::AllowOnce | Action::Deny | Action::AllowAlways if !options.is_empty() => {
            let last = options.len().min(8);
            phone.show_toast(
                format!("This card's options have numbers: 1–{last} select one."),
                false,
            );
            Vec::new()
        }
        Action::NextField | Action::PrevField => {
            phone.show_toast("This answer has one field.", false);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Moves the selection; after the reading time, a move also says the change was seen.
/// Selects an option; selecting the one already selected says what answers it, so the key
/// is never silent.
fn select_option(phone: &mut Phone, key: &AskKey, index: usize, armed: bool) {
    let context = card_context(phone, key);
    let enter = phone
        .keymap()
        .key_label(context, Action::Submit)
        .unwrap_or_else(|| "Enter".into());
    let offer = phone.agent_offer(&key.agent);
    let Some(card) = phone.model.card_mut(key) else {
        return;
    };
    if armed {
        card.acknowledge();
    }
    let again = card.selected() == index;
    card.select(index);
    // The label as drawn: among the options offered, where allow-always may be left out.
    let label = card.offered(offer).get(index).map(|o| o.label.clone());
    if again && let Some(label) = label {
        phone.show_toast(format!("“{label}” is selected: {enter} answers."), false);
    }
}

/// A key that would answer an expired card: nothing is sent, and the card says when it
/// expired (SPEC A13).
fn refuse_expired(phone: &mut Phone, key: &AskKey) {
    let now = phone.now();
    if let Some(card) = phone.model.card_mut(key)
        && let Some(at) = card.expired_at(now)
    {
        card.notice = Some(crate::model::card_state::expired_refusal(at));
    }
}

/// A key that would answer inside the reading time: nothing is sent, now or later, and the
/// card says why.
fn refuse_unread(phone: &mut Phone, key: &AskKey) -> Vec<Command> {
    if let Some(card) = phone.model.card_mut(key) {
        card.refuse_unread();
    }
    Vec::new()
}

/// Puts the allow-always question over the card, naming what it allows.
fn ask_allow_always(phone: &mut Phone, key: &AskKey, option_id: String) {
    let Some(card) = phone.card(key) else {
        return;
    };
    phone.overlay = Some(Overlay::AllowAlways(Box::new(AllowAlwaysQuestion {
        key: key.clone(),
        ask: card.ask.clone(),
        option_id,
        arming: Arming::start(Why::Asked, phone.now()),
        notice: None,
    })));
}

/// Keys of the allow-always question: its own yes (never Enter), or no.
pub(crate) fn allow_always_key(phone: &mut Phone, action: Option<Action>) -> Vec<Command> {
    let now = phone.now();
    let Some(Overlay::AllowAlways(question)) = &mut phone.overlay else {
        return Vec::new();
    };
    match action {
        // The one rule of the reading time, as on the question before a mode that acts
        // without asking (docs/KEYS.md, "Keys that act on an agent").
        Some(Action::ConfirmAlways) if let Some(why) = question.arming.refusal(now) => {
            question.notice = Some(why.to_string());
            Vec::new()
        }
        Some(Action::ConfirmAlways) => {
            let Some(Overlay::AllowAlways(question)) = phone.overlay.take() else {
                return Vec::new();
            };
            confirm_allow_always(phone, &question)
        }
        Some(Action::Cancel) => {
            let key = question.key.clone();
            phone.overlay = None;
            set_card_notice(
                phone,
                &key,
                "You cancelled allow always, so nothing was sent; the ask is still open.",
            );
            Vec::new()
        }
        _ => {
            let yes = phone
                .keymap()
                .key_label(
                    crate::app::overlay::keys::CONFIRM_ALWAYS,
                    Action::ConfirmAlways,
                )
                .unwrap_or_default();
            let no = phone
                .keymap()
                .key_label(crate::app::overlay::keys::CONFIRM_ALWAYS, Action::Cancel)
                .unwrap_or_default();
            if let Some(Overlay::AllowAlways(question)) = &mut phone.overlay {
                question.notice = Some(format!(
                    "Only {yes} allows always here; {no} cancels. Nothing was sent."
                ));
            }
            Vec::new()
        }
    }
}

/// Sends allow-always only if the card still shows exactly the ask the question named.
fn confirm_allow_always(phone: &mut Phone, question: &AllowAlwaysQuestion) -> Vec<Command> {
    let key = &question.key;
    if phone
        .card(key)
        .is_some_and(|card| card.expired_at(phone.now()).is_some())
    {
        refuse_expired(phone, key);
        return Vec::new();
    }
    let offer = phone.agent_offer(&key.agent);
    let still = card_answerable(phone, key)
        && phone.card(key).is_some_and(|card| {
            card.ask == question.ask
                && card
                    .offered(offer)
                    .iter()
                    .any(|o| o.id == question.option_id && o.effect == Some(Effect::AllowAlways))
        });
    if !still {
        set_card_notice(
            phone,
            key,
            "This ask changed before you confirmed allow always. Nothing was sent. Read it again.",
        );
        return Vec::new();
    }
    let answer = Answer {
        option_id: Some(question.option_id.clone()),
        ..Answer::default()
    };
    send_answer(phone, key, answer)
}

fn why_not_answerable(phone: &Phone, key: &AskKey) -> String {
    if card_open_to_answer(phone, key)
        && let Some(why) = card_unreachable(phone, key)
    {
        return format!("Nothing was sent: {why}");
    }
    match phone.card(key) {
        Some(card) if card.expired_at(phone.now()).is_some() => card
            .expired_at(phone.now())
            .map(crate::model::card_state::expired_refusal)
            .unwrap_or_default(),
        Some(card) if !card.ask.is_answerable() => {
            crate::model::card_state::CANNOT_ANSWER.to_string()
        }
        // Names the answer that won, when the chat says it (SPEC A4, A7).
        Some(card) if card.closed.is_some() => {
            card.closed.as_ref().map_or_else(String::new, |closed| {
                format!(
                    "{} Nothing was sent.",
                    crate::model::card_state::closed_sentence(closed)
                )
            })
        }
        _ => match CardStatus::of(phone.intents(), key) {
            Some(status @ CardStatus::Unknown { .. }) => status.sentence(),
            Some(status) => status.sentence(),
            None => "This card cannot be answered now.".to_string(),
        },
    }
}

fn set_card_notice(phone: &mut Phone, key: &AskKey, text: &str) {
    if let Some(card) = phone.model.card_mut(key) {
        card.notice = Some(text.to_string());
    }
}

/// Enter on "Deny, and say why" (SPEC A21): the Deny goes to the revision on screen, and the
/// words wait in the model for its outcome; they leave for the same pane only once the agent
/// took the Deny. Words that are empty or too long keep the card as it is and say why.
fn deny_with_words(phone: &mut Phone, key: &AskKey) -> Vec<Command> {
    let offer = phone.agent_offer(&key.agent);
    let Some(card) = phone.card(key) else {
        return Vec::new();
    };
    let text = card.say_why().map(|w| w.text()).unwrap_or_default();
    if text.trim().is_empty() {
        set_card_notice(
            phone,
            key,
            "Type what the agent should do instead first (or pick Deny alone).",
        );
        return Vec::new();
    }
    if text.len() > crate::wire::limits::MAX_SEND_TEXT {
        set_card_notice(
            phone,
            key,
            &format!(
                "Nothing was sent: the words are {:.1} KiB and a message takes 32 KiB. Shorten them first.",
                text.len() as f64 / 1024.0
            ),
        );
        return Vec::new();
    }
    let Some(deny) = card.deny_option(offer).map(CardState::pick) else {
        set_card_notice(phone, key, "This card has no Deny to say why with.");
        return Vec::new();
    };
    let commands = send_answer(phone, key, deny);
    if !commands.is_empty() {
        phone.model.deny_with_words(key, text);
    }
    commands
}

/// Sends an answer to the revision on screen (SPEC A3).
fn send_answer(phone: &mut Phone, key: &AskKey, answer: Answer) -> Vec<Command> {
    let Some(card) = phone.model.card_mut(key) else {
        return Vec::new();
    };
    // The agent's own check (SPEC A15), run here so an answer it would refuse never leaves and
    // the card keeps what the person typed.
    if let Err(problem) = crate::wire::accepts(&card.ask, &answer) {
        tracing::info!(ask = %key.ask_id, %problem, "the card holds an answer its ask does not take");
        card.notice = Some(format!("Nothing was sent: {problem}."));
        return Vec::new();
    }
    card.notice = None;
    let kind = IntentKind::Answer {
        pane: key.pane.clone(),
        ask_id: key.ask_id.clone(),
        revision: card.ask.revision,
        answer,
    };
    let agent = key.agent.clone();
    phone.submit(&agent, kind)
}

pub(crate) fn card_typing(phone: &mut Phone, card_key: &AskKey, key: &KeyEvent) {
    let card_key = card_key.clone();
    let armed = phone
        .card(&card_key)
        .is_some_and(|c| c.is_armed(phone.now()));
    let offer = phone.agent_offer(&card_key.agent);
    let width = draw::answer_width(phone.size().0, phone.size().1);
    let Some(card) = phone.model.card_mut(&card_key) else {
        return;
    };
    // Typing never answers; after the reading time it says a change was seen.
    if armed {
        card.acknowledge();
    }
    card.notice = None;
    let saying_why = card.saying_why(offer);
    let deny_row = card
        .offered(offer)
        .iter()
        .position(|o| o.effect == Some(Effect::Deny))
        .unwrap_or(0);
    let multiline = card.ask.text.as_ref().is_some_and(|t| t.multiline);
    let CardState {
        ask, input, notice, ..
    } = card;
    match input {
        CardInput::Options { selected, say_why } if saying_why => {
            // ↑ on the first row goes back to the options, the words kept (SPEC A21).
            let first_row = say_why.rows(width).1.0 == 0;
            if key.code == KeyCode::Up && key.modifiers.is_empty() && first_row {
                *selected = deny_row;
                return;
            }
            typing::edit(say_why, key, typing::Shape::Rows(width));
        }
        CardInput::Text(editor) => {
            let shape = if multiline {
                typing::Shape::Rows(width)
            } else {
                typing::Shape::OneLine
            };
            typing::edit(editor, key, shape);
        }
        CardInput::Form(form) => {
            if let KeyCode::Down | KeyCode::Up = key.code {
                let forward = key.code == KeyCode::Down;
                form.focus = step_around(form.focus, form.rows(), forward);
                return;
            }
            let focused = ask.form.as_ref().and_then(|f| f.fields.get(form.focus));
            let options = focused.map_or(0, |f| f.options.len());
            let integer = focused.is_some_and(|f| f.integer);
            match form.values.get_mut(form.focus) {
                Some(FieldValue::Text(editor)) => {
                    typing::edit(editor, key, typing::Shape::OneLine);
                }
                Some(FieldValue::Number(editor)) => {
                    // Only typed chars are checked: Ctrl and Alt chords edit (Ctrl-U, Ctrl-Z).
                    let chord = key
                        .modifiers
                        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
                    let marks = if integer { "-+" } else { "-+.eE" };
                    match key.code {
                        KeyCode::Char(c) if !(chord || c.is_ascii_digit() || marks.contains(c)) => {
                            // Typed words are never dropped in silence: say at the key why
                            // this one was not typed.
                            let label = focused.map_or("This field", |f| f.label.as_str());
                            let takes = if integer {
                                "a whole number: digits and - +"
                            } else {
                                "a number: digits and - + . e"
                            };
                            *notice =
                                Some(format!("{label} takes {takes} only; “{c}” was not typed."));
                        }
                        _ => {
                            typing::edit(editor, key, typing::Shape::OneLine);
                        }
                    }
                }
                Some(FieldValue::Boolean(on)) => {
                    if matches!(
                        key.code,
                        KeyCode::Char(' ') | KeyCode::Left | KeyCode::Right
                    ) {
                        *on = !*on;
                    }
                }
                // A number selects (lights) an option and Space picks it, as a number selects
                // and Enter answers on a card (docs/KEYS.md, "One rule for numbers").
                Some(FieldValue::Many { picked, at }) if options > 0 => match key.code {
                    KeyCode::Right => *at = (*at + 1) % options,
                    KeyCode::Left => *at = (*at + options - 1) % options,
                    KeyCode::Char(' ') => {
                        let count = picked.iter().filter(|on| **on).count();
                        // The field's most is kept at the key, not first told at Submit.
                        let most = focused
                            .and_then(|f| f.max)
                            .filter(|most| *most >= 0.0)
                            .map(|most| most as usize);
                        match picked.get_mut(*at) {
                            Some(on) if !*on && most.is_some_and(|most| count >= most) => {
                                let label = focused.map_or("This field", |f| f.label.as_str());
                                let most = most.unwrap_or_default();
                                *notice = Some(format!(
                                    "{label} takes at most {most}: unpick one first (Space on a picked one)."
                                ));
                            }
                            Some(on) => *on = !*on,
                            None => {}
                        }
                    }
                    KeyCode::Char(c) => {
                        if let Some(n) = c.to_digit(10).map(|n| n as usize)
                            && (1..=options).contains(&n)
                        {
                            *at = n - 1;
                        }
                    }
                    _ => {}
                },
                Some(FieldValue::Choice(choice)) if options > 0 => match key.code {
                    KeyCode::Right | KeyCode::Char(' ') => {
                        *choice = Some(choice.map_or(0, |c| (c + 1) % options));
                    }
                    KeyCode::Left => {
                        *choice = Some(choice.map_or(options - 1, |c| (c + options - 1) % options));
                    }
                    KeyCode::Char(c) => {
                        if let Some(n) = c.to_digit(10).map(|n| n as usize)
                            && (1..=options).contains(&n)
                        {
                            *choice = Some(n - 1);
                        }
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        _ => {}
    }
}

pub(crate) fn card_paste(phone: &mut Phone, key: &AskKey, text: &str) {
    let offer = phone.agent_offer(&key.agent);
    let Some(card) = phone.model.card_mut(key) else {
        return;
    };
    let saying_why = card.saying_why(offer);
    let multiline = card.ask.text.as_ref().is_some_and(|t| t.multiline);
    match &mut card.input {
        CardInput::Options { say_why, .. } if saying_why => typing::paste(say_why, text, true),
        CardInput::Text(editor) => typing::paste(editor, text, multiline),
        CardInput::Form(form) => {
            if let Some(editor) = form
                .values
                .get_mut(form.focus)
                .and_then(FieldValue::editor_mut)
            {
                typing::paste(editor, text, false);
            }
        }
        _ => {}
    }
}
