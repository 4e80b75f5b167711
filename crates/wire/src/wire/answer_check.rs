//! Does this answer fit this ask (SPEC A15): one check, [`accepts`], that the reference agent
//! runs on every answer it is sent, the card runs before it sends, and `collie-phone answer`
//! runs before it dials, so all three refuse the same answers with the same words.

use super::Ask;
use super::ask::{Answer, AskOption};
use super::ask_body::AskBody;
use super::form_check::field_problem;
use super::limits;

/// Why an answer does not fit its ask; its words are the agent's `bad-answer` message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerProblem {
    #[error("this ask needs optionId")]
    NeedsOption,
    #[error("optionId is not one of the ask's options")]
    NotAnOption,
    #[error("this ask needs text")]
    NeedsText,
    #[error("text over 32 KiB")]
    TextTooLong,
    #[error("this ask needs values")]
    NeedsValues,
    #[error("field {0} is required")]
    Required(String),
    #[error("field {field} {why}")]
    Field { field: String, why: String },
    #[error("the form has no field {0}")]
    NoSuchField(String),
    #[error("asks of kind {0} cannot be answered")]
    CannotBeAnswered(String),
}

/// The option of `options` that `answer` picks.
fn picked<'a>(options: &'a [AskOption], answer: &Answer) -> Result<&'a AskOption, AnswerProblem> {
    let id = answer
        .option_id
        .as_deref()
        .ok_or(AnswerProblem::NeedsOption)?;
    options
        .iter()
        .find(|o| o.id == id)
        .ok_or(AnswerProblem::NotAnOption)
}

/// Whether `answer` fits `ask`: its kind's shape, an option it offers, a text within the
/// limit, a form's required fields given and every value as its field takes it. The option
/// picked, when the answer is one.
pub fn accepts<'a>(ask: &'a Ask, answer: &Answer) -> Result<Option<&'a AskOption>, AnswerProblem> {
    match ask.body() {
        AskBody::Permission(body) => picked(&body.options, answer).map(Some),
        AskBody::Choice(body) | AskBody::Link(body, _) => picked(&body.options, answer).map(Some),
        AskBody::Text(_) => {
            let text = answer.text.as_deref().ok_or(AnswerProblem::NeedsText)?;
            if text.len() > limits::MAX_ANSWER_TEXT {
                return Err(AnswerProblem::TextTooLong);
            }
            Ok(None)
        }
        // One of the form's own options (Decline) answers it without values.
        AskBody::Form(body) if answer.option_id.is_some() && answer.values.is_none() => {
            picked(&body.options, answer).map(Some)
        }
        AskBody::Form(body) => {
            let values = answer.values.as_ref().ok_or(AnswerProblem::NeedsValues)?;
            for field in &body.fields {
                match values.get(&field.id) {
                    None | Some(serde_json::Value::Null) if field.required => {
                        return Err(AnswerProblem::Required(field.id.clone()));
                    }
                    None | Some(serde_json::Value::Null) => {}
                    Some(value) => {
                        if let Some(why) = field_problem(field, value) {
                            return Err(AnswerProblem::Field {
                                field: field.id.clone(),
                                why,
                            });
                        }
                    }
                }
            }
            if let Some(extra) = values
                .keys()
                .find(|k| !body.fields.iter().any(|f| &f.id == *k))
            {
                return Err(AnswerProblem::NoSuchField(extra.clone()));
            }
            Ok(None)
        }
        AskBody::DesktopWait => Err(AnswerProblem::CannotBeAnswered(
            super::ask_body::DESKTOP_ASK_KIND.into(),
        )),
        AskBody::Unknown(kind) => Err(AnswerProblem::CannotBeAnswered(kind.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{AskKind, ChoiceBody, FieldKind, FormBody, FormField, TextBody};
    use serde_json::json;

    fn ask(kind: AskKind) -> Ask {
        serde_json::from_value(json!({
            "id": "a-1", "revision": 1, "kind": kind.as_str(), "title": "t"
        }))
        .expect("an ask")
    }

    fn option(id: &str) -> AskOption {
        AskOption {
            id: id.into(),
            label: id.into(),
            effect: None,
        }
    }

    fn pick(id: &str) -> Answer {
        Answer {
            option_id: Some(id.into()),
            ..Answer::default()
        }
    }

    #[test]
    fn a15_an_option_must_be_one_the_ask_offers() {
        let mut choice = ask(AskKind::Choice);
        choice.choice = Some(ChoiceBody {
            prompt: None,
            options: vec![option("o1")],
            url: None,
        });
        assert_eq!(
            accepts(&choice, &pick("o1")).map(|o| o.map(|o| &o.id[..])),
            Ok(Some("o1"))
        );
        assert_eq!(
            accepts(&choice, &pick("o9")),
            Err(AnswerProblem::NotAnOption)
        );
        assert_eq!(
            accepts(&choice, &Answer::default()),
            Err(AnswerProblem::NeedsOption)
        );
    }

    #[test]
    fn a15_a_text_answer_is_text_within_the_limit() {
        let mut text = ask(AskKind::Text);
        text.text = Some(TextBody {
            prompt: None,
            placeholder: None,
            multiline: false,
        });
        assert_eq!(accepts(&text, &pick("o1")), Err(AnswerProblem::NeedsText));
        let long = Answer {
            text: Some("x".repeat(limits::MAX_ANSWER_TEXT + 1)),
            ..Answer::default()
        };
        assert_eq!(accepts(&text, &long), Err(AnswerProblem::TextTooLong));
    }

    #[test]
    fn a15_a_form_takes_its_fields_and_no_others() {
        let mut form = ask(AskKind::Form);
        let mut replicas = FormField::new("replicas", "Replicas", FieldKind::Number);
        replicas.required = true;
        replicas.integer = true;
        form.form = Some(FormBody {
            prompt: None,
            fields: vec![replicas],
            options: vec![option("decline")],
        });
        let values = |v: serde_json::Value| Answer {
            values: Some(serde_json::from_value(v).expect("a map")),
            ..Answer::default()
        };
        assert_eq!(accepts(&form, &values(json!({"replicas": 2}))), Ok(None));
        assert_eq!(
            accepts(&form, &values(json!({}))),
            Err(AnswerProblem::Required("replicas".into()))
        );
        assert_eq!(
            accepts(&form, &values(json!({"replicas": 2.5}))).map_err(|p| p.to_string()),
            Err("field replicas needs a whole number".into())
        );
        assert_eq!(
            accepts(&form, &values(json!({"replicas": 2, "colour": "red"}))),
            Err(AnswerProblem::NoSuchField("colour".into()))
        );
        assert!(accepts(&form, &pick("decline")).is_ok());
    }

    #[test]
    fn v3_a_kind_this_phone_does_not_know_takes_no_answer() {
        let unknown = ask(AskKind::Unknown("date".into()));
        assert_eq!(
            accepts(&unknown, &pick("o1")),
            Err(AnswerProblem::CannotBeAnswered("date".into()))
        );
        let desktop = ask(AskKind::Unknown("desktop".into()));
        assert_eq!(desktop.body(), AskBody::DesktopWait);
    }
}
