//! What a form field takes (SPEC A15, docs/WIRE.md § 5.10): its kind, a whole number, the least
//! and the most, a text's format. The agent checks every answer with it, and the phone checks
//! before sending, so both say the same words.

use serde_json::Value;

use super::ask::{FieldKind, FormField};
use super::limits;

/// Why `value` does not fit `field`, as the words after the field's name ("needs a whole
/// number"); `None` when it fits.
pub fn field_problem(field: &FormField, value: &Value) -> Option<String> {
    let within = |n: f64, what: &str| -> Option<String> {
        match (field.min, field.max) {
            (Some(min), _) if n < min => Some(format!("needs {what} of at least {min}")),
            (_, Some(max)) if n > max => Some(format!("needs {what} of at most {max}")),
            _ => None,
        }
    };
    let is_option = |s: &str| field.options.iter().any(|o| o.id == s);
    match (&field.kind, value) {
        (FieldKind::Text, Value::String(s)) if s.len() <= limits::MAX_ANSWER_TEXT => {
            within(s.chars().count() as f64, "a length").or_else(|| {
                let format = field.format.as_deref()?;
                (!format_fits(format, s)).then(|| format!("needs {}", format_words(format)))
            })
        }
        (FieldKind::Boolean, Value::Bool(_)) => None,
        (FieldKind::Number, Value::Number(n)) => {
            if field.integer && !(n.is_i64() || n.is_u64()) {
                return Some("needs a whole number".into());
            }
            within(n.as_f64().unwrap_or(0.0), "a value")
        }
        // A phone that does not read `multiple` sends one id: one pick.
        (FieldKind::Choice, Value::String(s)) if is_option(s) => {
            field.multiple.then(|| within(1.0, "a number of picks"))?
        }
        (FieldKind::Choice, Value::Array(picks))
            if field.multiple && picks.iter().all(|p| p.as_str().is_some_and(&is_option)) =>
        {
            within(picks.len() as f64, "a number of picks")
        }
        _ => Some("has a value of the wrong kind".into()),
    }
}

/// The words for a text format, after "needs" ("an email address"); a format this side does
/// not know is "text".
pub fn format_words(format: &str) -> &'static str {
    match format {
        "email" => "an email address",
        "uri" => "a link (scheme://…)",
        "date" => "a date (YYYY-MM-DD)",
        "date-time" => "a date and time (YYYY-MM-DDThh:mm:ssZ)",
        _ => "text",
    }
}

/// True when `text` has the shape `format` names; an unknown format takes any text.
pub fn format_fits(format: &str, text: &str) -> bool {
    match format {
        "email" => text.split_once('@').is_some_and(|(name, host)| {
            !name.is_empty() && host.contains('.') && !text.contains(char::is_whitespace)
        }),
        "uri" => text.split_once("://").is_some_and(|(scheme, rest)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                && !rest.is_empty()
                && !text.contains(char::is_whitespace)
        }),
        "date" => time::Date::parse(
            text,
            &time::macros::format_description!("[year]-[month]-[day]"),
        )
        .is_ok(),
        "date-time" => super::time::parse(text).is_some(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(value: Value) -> FormField {
        serde_json::from_value(value).expect("a field")
    }

    #[test]
    fn a15_an_integer_field_takes_whole_numbers_within_its_bounds() {
        let f = field(
            json!({"id": "n", "label": "N", "kind": "number", "integer": true, "min": 1, "max": 9}),
        );
        assert_eq!(field_problem(&f, &json!(3)), None);
        assert_eq!(
            field_problem(&f, &json!(3.5)).as_deref(),
            Some("needs a whole number")
        );
        assert_eq!(
            field_problem(&f, &json!(0)).as_deref(),
            Some("needs a value of at least 1")
        );
        assert_eq!(
            field_problem(&f, &json!("3")).as_deref(),
            Some("has a value of the wrong kind")
        );
    }

    #[test]
    fn a15_a_multiple_choice_takes_a_list_or_one_id_from_an_older_phone() {
        let f = field(
            json!({"id": "m", "label": "M", "kind": "choice", "multiple": true, "max": 2,
            "options": [{"id": "a", "label": "A"}, {"id": "b", "label": "B"}, {"id": "c", "label": "C"}]}),
        );
        assert_eq!(field_problem(&f, &json!(["a", "c"])), None);
        assert_eq!(field_problem(&f, &json!("b")), None);
        assert!(field_problem(&f, &json!(["a", "b", "c"])).is_some());
        assert!(field_problem(&f, &json!(["z"])).is_some());
    }

    #[test]
    fn a15_a_text_field_keeps_its_format_and_length() {
        let f =
            field(json!({"id": "e", "label": "E", "kind": "text", "format": "email", "max": 40}));
        assert_eq!(field_problem(&f, &json!("ann@example.org")), None);
        assert_eq!(
            field_problem(&f, &json!("ann")).as_deref(),
            Some("needs an email address")
        );
        let d = field(json!({"id": "d", "label": "D", "kind": "text", "format": "date"}));
        assert_eq!(field_problem(&d, &json!("2026-12-04")), None);
        assert!(field_problem(&d, &json!("4 Dec")).is_some());
    }
}
