//! `collie-phone answer ASK OPTION [--say WORDS] | --text T | --field k=v…`: an answer built exactly as the
//! phone's card builds it (`app::card_state::CardState`), sent to the revision this command saw
//! (SPEC A3, A15), with allow-always held back where the card would hold it back (A11, A12).

use std::collections::BTreeMap;
use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use super::args::ScriptArgs;
use super::exit::{self, Exit};
use super::link::{Link, Sending};
use super::out::{Failure, Report, run_to_end};
use super::receipt::report;
use crate::engine::IntentKind;
use crate::model::agents::AgentView;
use crate::model::card_state::{AgentOffer, CANNOT_ANSWER, CardState, FieldValue};
use crate::model::editor::Editor;
use crate::model::inbox::AskKey;
use crate::wire::{Answer, Ask, AskKind, AskOption, FieldKind, FormField};

#[derive(Debug, Args)]
// ASK is needed unless --retry is given, and OPTION unless --text or --field answers; the
// usage names the ways to call it, as clap's own would show everything optional.
#[command(
    after_help = exit::help(),
    override_usage = "collie-phone answer [OPTIONS] ASK OPTION\n       collie-phone answer [OPTIONS] ASK --text TEXT\n       collie-phone answer [OPTIONS] ASK --field NAME=VALUE...\n       collie-phone answer [OPTIONS] --retry REQUEST_ID"
)]
pub(crate) struct AnswerArgs {
    #[command(flatten)]
    pub(crate) common: ScriptArgs,
    /// The ask's id (`collie-phone asks` lists them). Needed unless --retry.
    #[arg(required_unless_present = "retry")]
    pub(crate) ask: Option<String>,
    /// For a permission or choice ask: the option's id, or its number in the list (1, 2, …); for a form, one of its own options (decline).
    /// Needed for those asks; a text ask takes --text, a form ask --field.
    pub(crate) option: Option<String>,
    /// Answer a text ask with this text.
    #[arg(long, value_name = "TEXT", conflicts_with = "option")]
    pub(crate) text: Option<String>,
    /// Answer a form ask, a field at a time: --field name=value (fields left out keep their
    /// defaults).
    #[arg(long = "field", value_name = "NAME=VALUE", conflicts_with_all = ["option", "text"])]
    pub(crate) fields: Vec<String>,
    /// Send the answer with this request id again, from its receipt, after an unknown outcome
    /// (same id, same body; never a third time).
    #[arg(long, value_name = "REQUEST_ID", conflicts_with_all = ["ask", "option", "text", "fields"])]
    pub(crate) retry: Option<String>,
    /// With a permission ask's deny: once the agent took the Deny, send these words to the same
    /// pane, to say what to do instead (one receipt of both; words that cannot go are printed
    /// back).
    #[arg(long, value_name = "TEXT", requires = "option", conflicts_with_all = ["text", "fields", "retry"])]
    pub(crate) say: Option<String>,
}

pub(crate) fn run(args: AnswerArgs) -> anyhow::Result<ExitCode> {
    if let Some(request_id) = &args.retry {
        return super::retry::run(&args.common, "answer", request_id);
    }
    run_to_end(args.common.json, answer(&args))
}

async fn answer(args: &AnswerArgs) -> Result<Report, Failure> {
    let ask_id = args
        .ask
        .clone()
        .ok_or_else(|| Failure::new(Exit::BadArguments, "give the ask's id"))?;
    let Sending {
        mut link,
        agent,
        journal_shown: shown,
    } = Sending::open(&args.common).await?;
    let kind = match find_open(&link, &agent, &ask_id) {
        Some((pane, title, ask)) => {
            let view = link.views.get(&agent);
            let offer = view.map_or_else(AgentOffer::default, AgentView::offer);
            let key = AskKey {
                agent: agent.clone(),
                pane: pane.clone(),
                ask_id: ask_id.clone(),
            };
            // The card only builds the answer here: a script names its answer outright, so the
            // reading time of a card on screen does not apply (docs/ASKS.md, "Where else").
            let card = CardState::new(key, ask, title, time::OffsetDateTime::now_utc());
            let answer = build(args, card.clone(), offer)?;
            // The agent's own check (SPEC A15): what it would refuse is refused before dialing,
            // in its words.
            crate::wire::accepts(&card.ask, &answer).map_err(|problem| {
                Failure::new(
                    Exit::BadArguments,
                    format!("{ask_id} does not take this answer: {problem}"),
                )
            })?;
            if let Some(words) = &args.say {
                super::say::check(&card.ask, &answer, words)?;
            }
            IntentKind::Answer {
                pane,
                ask_id: ask_id.clone(),
                revision: card.ask.revision,
                answer,
            }
        }
        None if args.say.is_some() => {
            return Err(Failure::new(
                Exit::NotFound,
                format!("{ask_id} is not open: nothing was sent, your words neither"),
            ));
        }
        None => closed_again(args, &link, &agent, &ask_id)?,
    };
    let record = link.submit(&agent, kind).await?;
    match &args.say {
        Some(words) => {
            super::say::after(
                &mut link,
                &agent,
                &record,
                words,
                &args.common.dial_flags(),
                &shown,
            )
            .await
        }
        None => Ok(report(&record, &args.common.dial_flags(), &shown)),
    }
}

/// The open ask with this id: its pane, the pane's title and the ask as last seen.
fn find_open(link: &Link, agent: &str, ask_id: &str) -> Option<(String, String, Ask)> {
    let view = link.views.get(agent)?;
    view.panes().into_iter().find_map(|pane| {
        pane.asks()
            .iter()
            .find(|a| a.id == ask_id)
            .map(|ask| (pane.pane.id.clone(), pane.pane.title.clone(), ask.clone()))
    })
}

/// An ask that is no longer open but that this phone answered before: send the new answer to
/// the same pane and revision, and let the agent say how it was decided (SPEC A7, A8, A14).
fn closed_again(
    args: &AnswerArgs,
    link: &Link,
    agent: &str,
    ask_id: &str,
) -> Result<IntentKind, Failure> {
    let earlier = link.receipts().iter().rev().find_map(|r| match &r.kind {
        IntentKind::Answer {
            pane,
            ask_id: id,
            revision,
            ..
        } if r.agent == agent && id == ask_id => Some((pane.clone(), *revision)),
        _ => None,
    });
    let Some((pane, revision)) = earlier else {
        let open: Vec<String> = link
            .views
            .get(agent)
            .map(|view| {
                view.panes()
                    .into_iter()
                    .flat_map(|p| p.asks().iter().map(|a| a.id.clone()).collect::<Vec<_>>())
                    .collect()
            })
            .unwrap_or_default();
        let listed = if open.is_empty() {
            "there is no open ask".to_string()
        } else {
            format!("the open asks are {}", open.join(", "))
        };
        return Err(Failure::new(
            Exit::NotFound,
            format!("no open ask {ask_id} on the agent \"{agent}\"; {listed}"),
        )
        .with(json!({ "openAsks": open })));
    };
    // The agent checks the answer's shape only while the ask is open (docs/WIRE.md §4.2), so
    // the words as given are enough to learn how it was decided.
    let answer = if let Some(option) = &args.option {
        Answer {
            option_id: Some(option.clone()),
            ..Answer::default()
        }
    } else if let Some(text) = &args.text {
        Answer {
            text: Some(text.clone()),
            ..Answer::default()
        }
    } else if !args.fields.is_empty() {
        let mut values = BTreeMap::new();
        for field in &args.fields {
            let (name, value) = split_field(field)?;
            values.insert(name.to_string(), Value::String(value.to_string()));
        }
        Answer {
            values: Some(values),
            ..Answer::default()
        }
    } else {
        return Err(Failure::new(
            Exit::BadArguments,
            "give an OPTION, --text TEXT or --field NAME=VALUE",
        ));
    };
    Ok(IntentKind::Answer {
        pane,
        ask_id: ask_id.to_string(),
        revision,
        answer,
    })
}

/// The answer the card would send for these flags, or why the flags do not fit the ask.
fn build(args: &AnswerArgs, mut card: CardState, offer: AgentOffer) -> Result<Answer, Failure> {
    let ask = card.ask.clone();
    if !ask.is_answerable() {
        let why = match &ask.kind {
            AskKind::Unknown(kind) => format!(
                "{CANNOT_ANSWER} The ask {} is of kind \"{kind}\", which this phone does not know (docs/SPEC.md § Versions).",
                ask.id
            ),
            kind => format!(
                "{CANNOT_ANSWER} The {kind} ask {} came without anything to answer with.",
                ask.id
            ),
        };
        return Err(Failure::new(Exit::Error, why));
    }
    let bad = |text: String| Failure::new(Exit::BadArguments, text);
    match &ask.kind {
        AskKind::Permission | AskKind::Choice => {
            let always = card.allow_always(offer);
            let options: Vec<AskOption> =
                card.options(always.is_ok()).into_iter().cloned().collect();
            let listed = list_options(&options);
            let Some(wanted) = &args.option else {
                return Err(bad(format!(
                    "{} is a {} ask: answer it with one of its options: {listed}",
                    ask.id, ask.kind
                )));
            };
            if let Some(option) = pick(&options, wanted) {
                return Ok(CardState::pick(option));
            }
            let held_back = ask.options().iter().any(|o| o.id == *wanted);
            match (held_back, always) {
                (true, Err(why)) => Err(bad(format!("{why} The options are: {listed}"))),
                _ => Err(bad(format!(
                    "{} has no option \"{wanted}\"; the options are: {listed}",
                    ask.id
                ))),
            }
        }
        AskKind::Text => {
            let Some(text) = &args.text else {
                return Err(bad(format!(
                    "{} is a text ask: answer it with --text TEXT",
                    ask.id
                )));
            };
            if text.trim().is_empty() {
                return Err(bad("Type an answer first: --text is empty.".into()));
            }
            let multiline = ask.text.as_ref().is_some_and(|t| t.multiline);
            if !multiline && text.contains('\n') {
                return Err(bad(format!(
                    "{} takes one line of text; this text has several",
                    ask.id
                )));
            }
            if let Some(answer) = card.answer_text_mut() {
                *answer = Editor::from_text(text);
            }
            Ok(card.text_answer())
        }
        AskKind::Form => {
            let fields: Vec<FormField> = ask
                .form
                .as_ref()
                .map(|f| f.fields.clone())
                .unwrap_or_default();
            let listed = list_fields(&fields);
            // One of the form's own options (Decline) answers it without values.
            let buttons = ask
                .form
                .as_ref()
                .map(|f| f.options.clone())
                .unwrap_or_default();
            if let Some(option) = args.option.as_deref().and_then(|o| pick_by_id(&buttons, o)) {
                return Ok(CardState::pick(option));
            }
            if args.option.is_some() || args.text.is_some() {
                return Err(bad(format!(
                    "{} is a form: give --field NAME=VALUE for its fields: {listed}",
                    ask.id
                )));
            }
            let Some(form) = card.form_mut() else {
                return Err(bad(format!("{} has no fields to fill in", ask.id)));
            };
            let mut given = Vec::new();
            for raw in &args.fields {
                let (name, value) = split_field(raw)?;
                let Some(at) = fields.iter().position(|f| f.id == name) else {
                    return Err(bad(format!(
                        "{} has no field \"{name}\"; the fields are: {listed}",
                        ask.id
                    )));
                };
                if given.contains(&at) {
                    return Err(bad(format!("--field {name} is given twice")));
                }
                given.push(at);
                let field = &fields[at];
                let parsed = field_value(field, value).map_err(bad)?;
                if let Some(slot) = form.values.get_mut(at) {
                    *slot = parsed;
                }
            }
            card.form_answer().map_err(|(at, why)| {
                let hint = fields
                    .get(at)
                    .map(|f| format!(" (--field {}=VALUE)", f.id))
                    .unwrap_or_default();
                bad(format!("{why}{hint} The fields are: {listed}"))
            })
        }
        AskKind::Unknown(_) => Err(Failure::new(Exit::Error, CANNOT_ANSWER)),
    }
}

/// An option by its id only (a form's own options have no numbers on the card).
fn pick_by_id<'a>(options: &'a [AskOption], wanted: &str) -> Option<&'a AskOption> {
    options.iter().find(|o| o.id == wanted)
}

/// An option by its id, or by its number in the list as the card's keys 1–8 pick it.
fn pick<'a>(options: &'a [AskOption], wanted: &str) -> Option<&'a AskOption> {
    options.iter().find(|o| o.id == wanted).or_else(|| {
        wanted
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|at| options.get(at))
    })
}

/// The place of a choice field's option named by `wanted` (trimmed): its id, else its number,
/// else its label when that is exactly the label of one choice, as a person reads the card
/// (`--field channel=beta`). A label two choices share picks neither: it is refused naming
/// their ids, since guessing would answer what the person did not choose.
fn pick_choice(field: &FormField, wanted: &str) -> Result<usize, String> {
    let wanted = wanted.trim();
    let by_number = || {
        wanted
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .filter(|&at| at < field.options.len())
    };
    if let Some(at) = field
        .options
        .iter()
        .position(|o| o.id == wanted)
        .or_else(by_number)
    {
        return Ok(at);
    }
    let labelled: Vec<usize> = (0..field.options.len())
        .filter(|&at| field.options[at].label.trim() == wanted)
        .collect();
    match labelled.as_slice() {
        [at] => Ok(*at),
        [] => Err(format!(
            "{} ({}) has no choice \"{wanted}\"; the choices are: {}",
            field.id,
            field.label,
            list_options(&field.options)
        )),
        several => {
            let ids: Vec<&str> = several
                .iter()
                .map(|&at| field.options[at].id.as_str())
                .collect();
            Err(format!(
                "{} ({}) has {} choices labelled \"{wanted}\" ({}); give the id or the number of the one you mean",
                field.id,
                field.label,
                several.len(),
                ids.join(", ")
            ))
        }
    }
}

fn split_field(raw: &str) -> Result<(&str, &str), Failure> {
    raw.split_once('=').ok_or_else(|| {
        Failure::new(
            Exit::BadArguments,
            format!("--field takes NAME=VALUE, not \"{raw}\""),
        )
    })
}

/// One field's value from the command line, checked as the card's editor would check it.
fn field_value(field: &FormField, value: &str) -> Result<FieldValue, String> {
    match field.kind {
        FieldKind::Boolean => match value.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Ok(FieldValue::Boolean(true)),
            "false" | "no" | "off" | "0" => Ok(FieldValue::Boolean(false)),
            _ => Err(format!(
                "{} ({}) is yes or no: give true or false, not \"{value}\"",
                field.id, field.label
            )),
        },
        // Several picks: ids or numbers, comma-separated (`--field regions=o1,o3`).
        FieldKind::Choice if field.multiple => {
            let mut picked = vec![false; field.options.len()];
            for one in value.split(',').map(str::trim).filter(|v| !v.is_empty()) {
                picked[pick_choice(field, one)?] = true;
            }
            Ok(FieldValue::Many { picked, at: 0 })
        }
        FieldKind::Choice => pick_choice(field, value).map(|at| FieldValue::Choice(Some(at))),
        FieldKind::Number => Ok(FieldValue::Number(Editor::from_text(value))),
        // Text, and kinds this phone does not know, are typed as text (as on the card).
        _ => Ok(FieldValue::Text(Editor::from_text(value))),
    }
}

fn list_options(options: &[AskOption]) -> String {
    options
        .iter()
        .enumerate()
        .map(|(at, o)| format!("{} ({}: {})", o.id, at + 1, o.label))
        .collect::<Vec<_>>()
        .join(", ")
}

fn list_fields(fields: &[FormField]) -> String {
    fields
        .iter()
        .map(|f| {
            let mut text = format!("{} ({}, {}", f.id, f.label, f.kind);
            if f.required {
                text.push_str(", required");
            }
            if !f.options.is_empty() {
                let ids: Vec<&str> = f.options.iter().map(|o| o.id.as_str()).collect();
                text.push_str(&format!(": {}", ids.join("|")));
            }
            text.push(')');
            text
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn option(id: &str, label: &str) -> AskOption {
        AskOption {
            id: id.into(),
            label: label.into(),
            effect: None,
        }
    }

    fn channel(labels: &[(&str, &str)], multiple: bool) -> FormField {
        let mut field = FormField::new("channel", "Channel", FieldKind::Choice);
        field.options = labels.iter().map(|(id, label)| option(id, label)).collect();
        field.multiple = multiple;
        field
    }

    fn chosen(field: &FormField, value: &str) -> Result<Option<usize>, String> {
        match field_value(field, value)? {
            FieldValue::Choice(at) => Ok(at),
            other => panic!("not one choice: {other:?}"),
        }
    }

    #[test]
    fn a_choice_is_picked_by_its_id_its_number_or_its_exact_label() {
        let field = channel(&[("o1", "stable"), ("o2", "beta")], false);
        assert_eq!(chosen(&field, "o2"), Ok(Some(1)));
        assert_eq!(chosen(&field, "2"), Ok(Some(1)));
        assert_eq!(chosen(&field, "beta"), Ok(Some(1)));
        assert_eq!(chosen(&field, " beta "), Ok(Some(1)));
        // Exact: a label in another case, or a part of one, is not it.
        assert_eq!(
            chosen(&field, "Beta"),
            Err(
                r#"channel (Channel) has no choice "Beta"; the choices are: o1 (1: stable), o2 (2: beta)"#
                    .to_string()
            )
        );
        assert!(chosen(&field, "bet").is_err());
    }

    #[test]
    fn a_label_two_choices_share_is_refused_naming_their_ids() {
        let field = channel(&[("o1", "stable"), ("o2", "beta"), ("o3", "beta")], false);
        assert_eq!(
            chosen(&field, "beta"),
            Err(
                r#"channel (Channel) has 2 choices labelled "beta" (o2, o3); give the id or the number of the one you mean"#
                    .to_string()
            )
        );
        assert_eq!(chosen(&field, "o3"), Ok(Some(2)));
        // The label no other choice shares still picks.
        assert_eq!(chosen(&field, "stable"), Ok(Some(0)));
    }

    #[test]
    fn several_choices_are_picked_by_ids_numbers_or_labels_alike() {
        let field = channel(&[("o1", "stable"), ("o2", "beta"), ("o3", "nightly")], true);
        match field_value(&field, "stable, 3") {
            Ok(FieldValue::Many { picked, .. }) => assert_eq!(picked, vec![true, false, true]),
            other => panic!("{other:?}"),
        }
        match field_value(&field, "o2,nightly") {
            Ok(FieldValue::Many { picked, .. }) => assert_eq!(picked, vec![false, true, true]),
            other => panic!("{other:?}"),
        }
        assert!(field_value(&field, "stable,gamma").is_err());
    }
}
