//! An ACP `elicitation/create` as a Collie ask, and its answer back (docs/ACP.md,
//! "Questions the agent asks").
//!
//! A form elicitation with one single-select field is a choice ask (its options, then
//! Decline); any other form is a form ask (string, number, integer, boolean, single and
//! multi-select fields, with their titles, descriptions, defaults, bounds and formats) with a
//! Decline option; a url elicitation is a choice ask carrying its `https://` link, with Done and
//! Decline. Past SPEC L's limits (6 fields, 8 options) the elicitation is declined and the
//! notice says why. Property keys and enum values become ids of our own (`f1`, `o1`), so
//! nothing the agent names has to be a wire id; the answer maps them back, typed: an integer
//! field is a JSON number, a boolean a boolean, a multi-select a list.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;
use time::OffsetDateTime;

use super::reply::ElicitationReply;
use agent_client_protocol::v1::schema::{
    CreateElicitationRequest, CreateElicitationResponse, ElicitationAcceptAction,
    ElicitationAction, ElicitationContentValue, ElicitationMode, ElicitationPropertySchema,
    ElicitationScope, EnumOption, MultiSelectItems, StringFormat,
};

use super::text::{clean_line, clean_text};
use crate::durable::cards::{blank_ask, option};
use crate::durable::world::World;
use crate::wire::sanitize::cut_to_columns;
use crate::wire::tool_input::TITLE_COLUMNS;
use crate::wire::{
    Ask, AskKind, AskOption, ChoiceBody, FieldKind, FormBody, FormField, ItemKind, Outcome, limits,
};

/// Our option id of Decline, on every elicitation card.
pub(crate) const DECLINE: &str = "decline";
/// Our option id of Done, on a url card.
pub(crate) const DONE: &str = "done";

/// How one field's value goes back to the agent.
#[derive(Debug, Clone, PartialEq)]
enum Typed {
    Text,
    Number,
    Integer,
    Boolean,
    /// Our option id → the agent's enum value.
    One(Vec<(String, String)>),
    Many(Vec<(String, String)>),
}

/// A field of the card: our id, the agent's property key, and how its value is typed.
#[derive(Debug, Clone, PartialEq)]
struct Field {
    ours: String,
    key: String,
    typed: Typed,
}

/// What the card is, for the answer.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    /// A form ask: every field.
    Form(Vec<Field>),
    /// A choice ask of one single-select field: its key and options.
    Choice(Field),
    /// A form with no fields: Accept or Decline.
    Confirm,
    /// A url ask: Done or Decline.
    Url { elicitation_id: String },
}

/// An elicitation as an ask, and how its answer goes back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ElicitationCard {
    pub(crate) ask: Ask,
    shape: Shape,
}

/// The session an elicitation belongs to, and the tool call it is tied to, if any. One scoped
/// to a request (not a session) has no pane to show it in.
pub(crate) fn scope(request: &CreateElicitationRequest) -> Option<(String, Option<String>)> {
    match request.scope() {
        ElicitationScope::Session(scope) => Some((
            scope.session_id.0.to_string(),
            scope.tool_call_id.as_ref().map(|id| id.0.to_string()),
        )),
        _ => None,
    }
}

impl ElicitationCard {
    /// The url elicitation's id, for `elicitation/complete`.
    pub(crate) fn url_id(&self) -> Option<&str> {
        match &self.shape {
            Shape::Url { elicitation_id } => Some(elicitation_id),
            _ => None,
        }
    }

    /// The reply to the agent for how the card closed: the phone's answer, or `None` for a
    /// card decided without one (the turn stopped, the pane closed): `cancel`.
    pub(crate) fn action(&self, outcome: Option<&Outcome>) -> ElicitationAction {
        let Some(outcome) = outcome else {
            return ElicitationAction::Cancel;
        };
        let picked = outcome.option_id.as_deref();
        if picked == Some(DECLINE) {
            return ElicitationAction::Decline;
        }
        let content = match &self.shape {
            Shape::Url { .. } | Shape::Confirm if picked.is_some() => None,
            Shape::Choice(field) => match (&field.typed, picked) {
                (Typed::One(options), Some(id)) => {
                    let Some(value) = agent_value(options, id) else {
                        return ElicitationAction::Cancel;
                    };
                    Some(BTreeMap::from([(
                        field.key.clone(),
                        ElicitationContentValue::String(value),
                    )]))
                }
                _ => return ElicitationAction::Cancel,
            },
            Shape::Form(fields) => {
                let Some(values) = &outcome.values else {
                    return ElicitationAction::Cancel;
                };
                let mut content = BTreeMap::new();
                for field in fields {
                    if let Some(value) = values.get(&field.ours).and_then(|v| typed(field, v)) {
                        content.insert(field.key.clone(), value);
                    }
                }
                Some(content)
            }
            _ => return ElicitationAction::Cancel,
        };
        ElicitationAction::Accept(ElicitationAcceptAction::new().content(content))
    }
}

fn agent_value(options: &[(String, String)], ours: &str) -> Option<String> {
    options
        .iter()
        .find(|(id, _)| id == ours)
        .map(|(_, value)| value.clone())
}

/// A phone's value (already checked by the world against the field, SPEC A15) as the agent's.
fn typed(field: &Field, value: &Value) -> Option<ElicitationContentValue> {
    Some(match (&field.typed, value) {
        (Typed::Text, Value::String(s)) => ElicitationContentValue::String(s.clone()),
        (Typed::Boolean, Value::Bool(b)) => ElicitationContentValue::Boolean(*b),
        (Typed::Integer, Value::Number(n)) => ElicitationContentValue::Integer(
            n.as_i64()
                .or_else(|| n.as_f64().map(|f| f.round() as i64))?,
        ),
        (Typed::Number, Value::Number(n)) => match n.as_i64() {
            Some(i) => ElicitationContentValue::Integer(i),
            None => ElicitationContentValue::Number(n.as_f64()?),
        },
        (Typed::One(options), Value::String(id)) => {
            ElicitationContentValue::String(agent_value(options, id)?)
        }
        (Typed::Many(options), Value::Array(ids)) => ElicitationContentValue::StringArray(
            ids.iter()
                .filter_map(|id| agent_value(options, id.as_str()?))
                .collect(),
        ),
        (Typed::Many(options), Value::String(id)) => {
            ElicitationContentValue::StringArray(vec![agent_value(options, id)?])
        }
        _ => return None,
    })
}

/// The card for an elicitation, or why it cannot be one (the words of the notice that says it
/// was declined). `tool` names the tool call it is tied to, if any.
pub(crate) fn card(
    request: &CreateElicitationRequest,
    tool: Option<&str>,
) -> Result<ElicitationCard, String> {
    let message = clean_text(&request.message, limits::MAX_PROMPT);
    let first_line = message.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    match &request.mode {
        ElicitationMode::Url(url) => {
            let link = clean_line_of(&url.url, limits::MAX_LINK_CHARS);
            if !link.starts_with("https://") {
                return Err("it asked to open a link that is not https://".into());
            }
            let title = title(tool, first_line, "Open a link to go on");
            let mut ask = blank_ask(AskKind::Choice, &title);
            ask.choice = Some(ChoiceBody {
                prompt: prompt_of(&message, &title, &[]),
                options: vec![option(DONE, "Done", None), option(DECLINE, "Decline", None)],
                url: Some(link),
            });
            Ok(ElicitationCard {
                ask,
                shape: Shape::Url {
                    elicitation_id: url.elicitation_id.0.to_string(),
                },
            })
        }
        ElicitationMode::Form(form) => {
            let schema = &form.requested_schema;
            let required: Vec<&str> = schema
                .required
                .iter()
                .flatten()
                .map(String::as_str)
                .collect();
            if schema.properties.len() > limits::MAX_FORM_FIELDS {
                return Err(format!(
                    "it asked {} questions in one form, and a card holds {} at most",
                    schema.properties.len(),
                    limits::MAX_FORM_FIELDS
                ));
            }
            let about = schema
                .description
                .as_deref()
                .map(|d| clean_text(d, limits::MAX_PROMPT))
                .unwrap_or_default();
            let schema_title = schema.title.as_deref().map(clean_line);
            let heading = schema_title
                .as_deref()
                .filter(|t| !t.is_empty())
                .unwrap_or(first_line);
            let mut fields = Vec::new();
            let mut shown = Vec::new();
            for (index, (key, property)) in schema.properties.iter().enumerate() {
                let ours = if crate::wire::check_id(key).is_ok() {
                    key.clone()
                } else {
                    format!("f{}", index + 1)
                };
                let (field, typed) =
                    form_field(&ours, key, property, required.contains(&key.as_str()))?;
                shown.push(field);
                fields.push(Field {
                    ours,
                    key: key.clone(),
                    typed,
                });
            }
            let decline = option(DECLINE, "Decline", None);
            let title = title(tool, heading, "A question");
            if fields.is_empty() {
                let mut ask = blank_ask(AskKind::Choice, &title);
                ask.choice = Some(ChoiceBody {
                    prompt: prompt_of(&message, &title, &[&about]),
                    options: vec![option("accept", "Accept", None), decline],
                    url: None,
                });
                return Ok(ElicitationCard {
                    ask,
                    shape: Shape::Confirm,
                });
            }
            if let ([field], [shown_field]) = (&fields[..], &shown[..])
                && matches!(field.typed, Typed::One(_))
            {
                let mut ask = blank_ask(AskKind::Choice, &title);
                let mut options = shown_field.options.clone();
                options.push(decline);
                let field_about = shown_field.description.clone().unwrap_or_default();
                ask.choice = Some(ChoiceBody {
                    prompt: prompt_of(&message, &title, &[&about, &field_about]),
                    options,
                    url: None,
                });
                return Ok(ElicitationCard {
                    ask,
                    shape: Shape::Choice(field.clone()),
                });
            }
            let mut ask = blank_ask(AskKind::Form, &title);
            ask.form = Some(FormBody {
                prompt: prompt_of(&message, &title, &[&about]),
                fields: shown,
                options: vec![decline],
            });
            Ok(ElicitationCard {
                ask,
                shape: Shape::Form(fields),
            })
        }
        _ => Err("it asked in a way this host does not know".into()),
    }
}

/// The card's prompt: the message, unless the title already shows all of it, then what else
/// the agent said of the question; none when that is nothing.
fn prompt_of(message: &str, title: &str, more: &[&str]) -> Option<String> {
    let one_line = message.trim().lines().count() <= 1;
    let mut parts: Vec<&str> = Vec::new();
    if !(one_line && title.ends_with(message.trim())) {
        parts.push(message.trim());
    }
    parts.extend(more.iter().map(|m| m.trim()));
    let prompt = parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    (!prompt.is_empty()).then_some(prompt)
}

fn clean_line_of(text: &str, max: usize) -> String {
    clean_text(text, max)
        .replace(['\n', '\t'], " ")
        .trim()
        .to_string()
}

/// The card's title: the tool it is tied to, then the question's first line, in one line of at
/// most 80 columns.
fn title(tool: Option<&str>, line: &str, otherwise: &str) -> String {
    let line = clean_line(line);
    let line = if line.is_empty() { otherwise } else { &line };
    let text = match tool {
        Some(tool) => format!("{tool}: {line}"),
        None => line.to_string(),
    };
    cut_to_columns(&text, TITLE_COLUMNS)
}

/// One property as a field of the card, and how its value goes back.
fn form_field(
    ours: &str,
    key: &str,
    property: &ElicitationPropertySchema,
    required: bool,
) -> Result<(FormField, Typed), String> {
    let words = |title: &Option<String>| -> String {
        let title = title.as_deref().map(clean_line).unwrap_or_default();
        if title.is_empty() {
            clean_line(key)
        } else {
            title
        }
    };
    let about = |description: &Option<String>| {
        description
            .as_deref()
            .map(|d| clean_text(d, limits::MAX_PROMPT))
            .filter(|d| !d.trim().is_empty())
    };
    let mut field = FormField {
        required,
        ..FormField::new(ours, "", FieldKind::Text)
    };
    let typed = match property {
        ElicitationPropertySchema::String(s) => {
            field.label = words(&s.title);
            field.description = about(&s.description);
            let enumerated: Option<Vec<(String, String, Option<String>)>> =
                match (&s.one_of, &s.enum_values) {
                    (Some(one_of), _) => Some(one_of.iter().map(enum_option).collect()),
                    (None, Some(values)) => Some(
                        values
                            .iter()
                            .map(|v| (v.clone(), v.clone(), None))
                            .collect(),
                    ),
                    (None, None) => None,
                };
            match enumerated {
                Some(options) => {
                    let (shown, map) = options_of(&field.label, options)?;
                    field.kind = FieldKind::Choice;
                    field.default = s
                        .default
                        .as_ref()
                        .and_then(|d| map.iter().find(|(_, v)| v == d))
                        .map(|(id, _)| Value::String(id.clone()));
                    field.options = shown;
                    Typed::One(map)
                }
                None => {
                    field.default = s.default.clone().map(Value::String);
                    field.min = s.min_length.map(f64::from);
                    field.max = s.max_length.map(f64::from);
                    field.format = s.format.map(|f| {
                        match f {
                            StringFormat::Email => "email",
                            StringFormat::Uri => "uri",
                            StringFormat::Date => "date",
                            StringFormat::DateTime => "date-time",
                            _ => "text",
                        }
                        .to_string()
                    });
                    Typed::Text
                }
            }
        }
        ElicitationPropertySchema::Number(n) => {
            field.label = words(&n.title);
            field.description = about(&n.description);
            field.kind = FieldKind::Number;
            field.min = n.minimum;
            field.max = n.maximum;
            field.default = n
                .default
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number);
            Typed::Number
        }
        ElicitationPropertySchema::Integer(n) => {
            field.label = words(&n.title);
            field.description = about(&n.description);
            field.kind = FieldKind::Number;
            field.integer = true;
            field.min = n.minimum.map(|m| m as f64);
            field.max = n.maximum.map(|m| m as f64);
            field.default = n.default.map(Value::from);
            Typed::Integer
        }
        ElicitationPropertySchema::Boolean(b) => {
            field.label = words(&b.title);
            field.description = about(&b.description);
            field.kind = FieldKind::Boolean;
            field.default = b.default.map(Value::Bool);
            Typed::Boolean
        }
        ElicitationPropertySchema::Array(a) => {
            field.label = words(&a.title);
            field.description = about(&a.description);
            let options: Vec<(String, String, Option<String>)> = match &a.items {
                MultiSelectItems::String(items) => items
                    .values
                    .iter()
                    .map(|v| (v.clone(), v.clone(), None))
                    .collect(),
                MultiSelectItems::Titled(items) => items.options.iter().map(enum_option).collect(),
                _ => {
                    return Err(format!(
                        "its question “{}” offers options of a kind this host does not know",
                        field.label
                    ));
                }
            };
            let (shown, map) = options_of(&field.label, options)?;
            field.kind = FieldKind::Choice;
            field.multiple = true;
            field.min = a.min_items.map(|m| m as f64);
            field.max = a.max_items.map(|m| m as f64);
            let defaults: Vec<Value> = a
                .default
                .iter()
                .flatten()
                .filter_map(|d| map.iter().find(|(_, v)| v == d))
                .map(|(id, _)| Value::String(id.clone()))
                .collect();
            field.default = (!defaults.is_empty()).then_some(Value::Array(defaults));
            field.options = shown;
            Typed::Many(map)
        }
        _ => {
            return Err(format!(
                "its question “{}” is of a kind this host does not know",
                clean_line(key)
            ));
        }
    };
    Ok((field, typed))
}

/// Our option ids and the agent's values they stand for.
type OptionMap = Vec<(String, String)>;

/// An enum option as (value, title, description).
fn enum_option(option: &EnumOption) -> (String, String, Option<String>) {
    (
        option.value.clone(),
        option.title.clone(),
        option.description.clone(),
    )
}

/// A field's options as the card's (`o1`, `o2`, … labelled "Title — description") and the map
/// back to the agent's values; more than SPEC L's 8 is a reason to decline.
fn options_of(
    label: &str,
    options: Vec<(String, String, Option<String>)>,
) -> Result<(Vec<AskOption>, OptionMap), String> {
    if options.len() > limits::MAX_CHOICE_OPTIONS {
        return Err(format!(
            "its question “{label}” has {} options, and a card holds {} at most",
            options.len(),
            limits::MAX_CHOICE_OPTIONS
        ));
    }
    let mut shown = Vec::new();
    let mut map = Vec::new();
    for (index, (value, title, description)) in options.into_iter().enumerate() {
        let id = format!("o{}", index + 1);
        let title = clean_line(&title);
        let title = if title.is_empty() {
            clean_line(&value)
        } else {
            title
        };
        let text = match description
            .as_deref()
            .map(clean_line)
            .filter(|d| !d.is_empty())
        {
            Some(about) => format!("{title} — {about}"),
            None => title,
        };
        shown.push(AskOption {
            id: id.clone(),
            label: crate::wire::sanitize::truncate_to(&text, limits::MAX_LABEL).to_string(),
            effect: None,
        });
        map.push((id, value));
    }
    Ok((shown, map))
}

/// An elicitation waiting for a person.
struct Waiting {
    key: u64,
    pane: String,
    responder: ElicitationReply,
    card: ElicitationCard,
}

/// The elicitations of every pane that wait for a person, by ask id.
#[derive(Default)]
pub(crate) struct Elicitations {
    waiting: HashMap<String, Waiting>,
}

/// Who asks, where, and in which turn.
pub(crate) struct Asker<'a> {
    pub(crate) agent: &'a str,
    pub(crate) pane: &'a str,
    pub(crate) turn: &'a str,
    /// The tool of the call it is tied to, as the stream knows it.
    pub(crate) tool: Option<String>,
}

impl Elicitations {
    /// Shows an elicitation as a card, or declines it with a notice saying why.
    pub(crate) fn ask(
        &mut self,
        world: &mut World,
        asker: Asker<'_>,
        key: u64,
        request: &CreateElicitationRequest,
        responder: ElicitationReply,
        now: OffsetDateTime,
    ) {
        let Asker {
            agent, pane, turn, ..
        } = asker;
        let card = match card(request, asker.tool.as_deref()) {
            Ok(card) => card,
            Err(why) => {
                reply(responder, ElicitationAction::Decline);
                let words = format!(
                    "{agent} asked a question the phone cannot show, so it was declined: {why}."
                );
                world.push_item(pane, ItemKind::Notice, &words, now);
                return;
            }
        };
        // Never the id of an ask decided before (the phone keeps answers by it): the turn's,
        // and this request's.
        let call = format!("{turn}/elicitation/{key}");
        match world.open_ask(pane, &call, card.ask.clone(), now) {
            Some(ask_id) => {
                tracing::info!(pane, ask_id, "an elicitation is a card");
                self.waiting.insert(
                    ask_id,
                    Waiting {
                        key,
                        pane: pane.to_string(),
                        responder,
                        card,
                    },
                );
            }
            None => {
                reply(responder, ElicitationAction::Decline);
                let words = format!(
                    "{agent} asked more than the phone can show at once; that question was declined."
                );
                world.push_item(pane, ItemKind::Notice, &words, now);
            }
        }
    }

    /// A phone answered one of ours: the agent gets it, typed. False when the ask is not an
    /// elicitation.
    pub(crate) fn answer(
        &mut self,
        world: &mut World,
        ask_id: &str,
        outcome: &Outcome,
        now: OffsetDateTime,
    ) -> bool {
        let Some(waiting) = self.waiting.remove(ask_id) else {
            return false;
        };
        let action = waiting.card.action(Some(outcome));
        let how = match &action {
            ElicitationAction::Accept(_) => "Answered",
            ElicitationAction::Decline => "Declined",
            _ => "Cancelled",
        };
        tracing::info!(ask_id, how, "answered the agent's elicitation");
        reply(waiting.responder, action);
        said(
            world,
            &waiting.pane,
            how,
            &waiting.card.ask.title,
            "from Collie",
            now,
        );
        true
    }

    /// The host gives up on a pane's elicitations: each is answered `cancel`. With `decide`,
    /// the world decides their cards too (when it has not already: a stop or a close did).
    pub(crate) fn give_up(
        &mut self,
        world: &mut World,
        pane: &str,
        why: &str,
        decide: bool,
        now: OffsetDateTime,
    ) {
        let asks: Vec<String> = self
            .waiting
            .iter()
            .filter(|(_, w)| w.pane == pane)
            .map(|(id, _)| id.clone())
            .collect();
        for ask in asks {
            let Some(waiting) = self.waiting.remove(&ask) else {
                continue;
            };
            reply(waiting.responder, ElicitationAction::Cancel);
            if decide {
                world.decide_ask(pane, &ask, &sentence(why), now);
            }
            said(world, pane, "Cancelled", &waiting.card.ask.title, why, now);
        }
    }

    /// The agent took an elicitation back (`$/cancel_request`); false when it is not ours.
    pub(crate) fn withdrawn(&mut self, world: &mut World, key: u64, now: OffsetDateTime) -> bool {
        let Some(ask) = self
            .waiting
            .iter()
            .find(|(_, w)| w.key == key)
            .map(|(id, _)| id.clone())
        else {
            return false;
        };
        if let Some(waiting) = self.waiting.remove(&ask) {
            world.decide_ask(&waiting.pane, &ask, "The agent took the question back", now);
            let title = &waiting.card.ask.title;
            said(
                world,
                &waiting.pane,
                "Withdrawn",
                title,
                "the agent took the question back",
                now,
            );
        }
        true
    }

    /// `elicitation/complete`: the url card it names closes, answered `accept` (what was asked
    /// was done in the browser).
    pub(crate) fn complete(
        &mut self,
        world: &mut World,
        elicitation_id: &str,
        now: OffsetDateTime,
    ) {
        let Some(ask) = self
            .waiting
            .iter()
            .find(|(_, w)| w.card.url_id() == Some(elicitation_id))
            .map(|(id, _)| id.clone())
        else {
            tracing::debug!(elicitation_id, "elicitation/complete for no open card");
            return;
        };
        if let Some(waiting) = self.waiting.remove(&ask) {
            reply(
                waiting.responder,
                ElicitationAction::Accept(ElicitationAcceptAction::new()),
            );
            world.decide_ask(
                &waiting.pane,
                &ask,
                "Done: the agent says it was completed",
                now,
            );
            let title = &waiting.card.ask.title;
            said(
                world,
                &waiting.pane,
                "Done",
                title,
                "the agent says it was completed",
                now,
            );
        }
    }
}

fn reply(responder: ElicitationReply, action: ElicitationAction) {
    if let Err(error) = responder.respond(CreateElicitationResponse::new(action)) {
        tracing::warn!(error = %super::text::log_line(&error.to_string()), "the answer could not be sent to the agent");
    }
}

/// "the turn was stopped" → "The turn was stopped", an outcome's summary.
fn sentence(why: &str) -> String {
    let mut chars = why.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// How a question ended, as a notice of the pane's history (the title is the card's, cleaned).
fn said(world: &mut World, pane: &str, how: &str, title: &str, why: &str, now: OffsetDateTime) {
    let title = clean_line(title);
    world.push_item(
        pane,
        ItemKind::Notice,
        &format!("{how}: {title} ({why})."),
        now,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(value: Value) -> CreateElicitationRequest {
        serde_json::from_value(value).expect("an elicitation request")
    }

    fn accept(action: ElicitationAction) -> Value {
        serde_json::to_value(
            agent_client_protocol::v1::schema::CreateElicitationResponse::new(action),
        )
        .expect("json")
    }

    /// claude-agent-acp 0.101.0's AskUserQuestion of one question, as `askUserQuestionsToCreateRequest`
    /// builds it (tests/fixtures/acp/README.md).
    fn ask_user_question() -> CreateElicitationRequest {
        request(json!({
            "mode": "form", "sessionId": "s", "toolCallId": "toolu_1",
            "message": "Which database should the service use? 用哪个数据库？",
            "requestedSchema": {"type": "object", "properties": {
                "question_0": {"type": "string", "title": "Database", "oneOf": [
                    {"const": "Postgres", "title": "Postgres", "description": "Relational, the team knows it"},
                    {"const": "SQLite 🚀", "title": "SQLite 🚀"}
                ]},
                "question_0_custom": {"type": "string", "title": "Other",
                    "description": "Type your own answer, or add a note to the option you chose above (optional)."}
            }}
        }))
    }

    #[test]
    fn claudes_ask_user_question_reads_as_its_question_and_options() {
        let card = card(&ask_user_question(), Some("AskUserQuestion")).expect("a card");
        assert_eq!(card.ask.kind, AskKind::Form);
        assert_eq!(
            card.ask.title,
            "AskUserQuestion: Which database should the service use? 用哪个数据库？"
        );
        let form = card.ask.form.clone().expect("a form");
        assert_eq!(form.fields[0].label, "Database");
        let labels: Vec<&str> = form.fields[0]
            .options
            .iter()
            .map(|o| o.label.as_str())
            .collect();
        assert_eq!(
            labels,
            ["Postgres — Relational, the team knows it", "SQLite 🚀"]
        );
        assert_eq!(form.fields[1].label, "Other");
        assert_eq!(form.options[0].id, DECLINE);
        let outcome = Outcome {
            values: Some(BTreeMap::from([("question_0".into(), json!("o2"))])),
            ..Outcome::default()
        };
        assert_eq!(
            accept(card.action(Some(&outcome))),
            json!({"action": "accept", "content": {"question_0": "SQLite 🚀"}})
        );
    }

    #[test]
    fn typed_values_go_back_as_numbers_booleans_and_lists() {
        let req = request(json!({
            "mode": "form", "sessionId": "s", "message": "Deploy",
            "requestedSchema": {"type": "object", "required": ["replicas"], "properties": {
                "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 9, "default": 2},
                "ratio": {"type": "number"},
                "dry run": {"type": "boolean", "default": true},
                "regions": {"type": "array", "items": {"type": "string", "enum": ["eu", "us", "ap"]}, "maxItems": 2}
            }}
        }));
        let card = card(&req, None).expect("a card");
        let form = card.ask.form.clone().expect("a form");
        let replicas = form
            .fields
            .iter()
            .find(|f| f.id == "replicas")
            .expect("replicas");
        assert!(replicas.integer && replicas.required);
        assert_eq!((replicas.min, replicas.max), (Some(1.0), Some(9.0)));
        let dry = form
            .fields
            .iter()
            .find(|f| f.label == "dry run")
            .expect("dry run");
        assert_eq!(dry.id, "f1", "a key that is no wire id gets one of ours");
        let outcome = Outcome {
            values: Some(BTreeMap::from([
                ("replicas".into(), json!(3)),
                ("ratio".into(), json!(0.5)),
                ("f1".into(), json!(false)),
                ("regions".into(), json!(["o1", "o3"])),
            ])),
            ..Outcome::default()
        };
        assert_eq!(
            accept(card.action(Some(&outcome))),
            json!({"action": "accept", "content": {
                "replicas": 3, "ratio": 0.5, "dry run": false, "regions": ["eu", "ap"]}})
        );
        let declined = Outcome {
            option_id: Some(DECLINE.into()),
            ..Outcome::default()
        };
        assert_eq!(
            accept(card.action(Some(&declined))),
            json!({"action": "decline"})
        );
        assert_eq!(accept(card.action(None)), json!({"action": "cancel"}));
    }

    #[test]
    fn one_single_select_field_is_a_choice_with_decline() {
        let req = request(json!({
            "mode": "form", "sessionId": "s", "message": "Retry with the other model?",
            "requestedSchema": {"type": "object", "properties": {
                "choice": {"type": "string", "oneOf": [
                    {"const": "retry_fallback", "title": "Retry"},
                    {"const": "cancelled", "title": "Keep the refusal"}]}}}
        }));
        let card = card(&req, None).expect("a card");
        assert_eq!(card.ask.kind, AskKind::Choice);
        let ids: Vec<&str> = card.ask.options().iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ids, ["o1", "o2", DECLINE]);
        let outcome = Outcome {
            option_id: Some("o1".into()),
            ..Outcome::default()
        };
        assert_eq!(
            accept(card.action(Some(&outcome))),
            json!({"action": "accept", "content": {"choice": "retry_fallback"}})
        );
    }

    #[test]
    fn past_the_limits_it_is_declined_with_the_reason() {
        let properties: serde_json::Map<String, Value> = (0..7)
            .map(|i| (format!("q{i}"), json!({"type": "boolean"})))
            .collect();
        let many = request(json!({"mode": "form", "sessionId": "s", "message": "Many",
            "requestedSchema": {"type": "object", "properties": properties}}));
        assert_eq!(
            card(&many, None).err().as_deref(),
            Some("it asked 7 questions in one form, and a card holds 6 at most")
        );
        let options: Vec<String> = (0..9).map(|i| format!("v{i}")).collect();
        let wide = request(json!({"mode": "form", "sessionId": "s", "message": "Wide",
            "requestedSchema": {"type": "object", "properties": {
                "pick": {"type": "string", "title": "Pick", "enum": options}}}}));
        assert_eq!(
            card(&wide, None).err().as_deref(),
            Some("its question “Pick” has 9 options, and a card holds 8 at most")
        );
    }

    #[test]
    fn a_url_elicitation_is_a_choice_with_its_link_done_and_decline() {
        let req = request(json!({"mode": "url", "sessionId": "s", "toolCallId": "t",
            "elicitationId": "e-1", "url": "https://example.org/auth?x=1",
            "message": "Sign in to \u{1b}[31mGitHub"}));
        let card = card(&req, Some("mcp")).expect("a card");
        assert_eq!(card.ask.title, "mcp: Sign in to [31mGitHub");
        let body = card.ask.choice.clone().expect("a choice");
        assert_eq!(body.url.as_deref(), Some("https://example.org/auth?x=1"));
        assert_eq!(card.url_id(), Some("e-1"));
        let done = Outcome {
            option_id: Some(DONE.into()),
            ..Outcome::default()
        };
        assert_eq!(
            accept(card.action(Some(&done))),
            json!({"action": "accept"})
        );
        let plain = request(
            json!({"mode": "url", "sessionId": "s", "elicitationId": "e-2",
            "url": "http://example.org", "message": "Open"}),
        );
        assert!(super::card(&plain, None).is_err());
    }
}
