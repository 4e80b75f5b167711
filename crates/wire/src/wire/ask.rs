//! Asks: question cards from an agent, their answers and outcomes (SPEC A1–A15, L).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

use super::id::check_id;
use super::kind::open_enum;
use super::limits::{
    MAX_ARGUMENTS, MAX_CHOICE_OPTIONS, MAX_FORM_FIELDS, MAX_FORM_OPTIONS, MAX_LABEL,
    MAX_LINK_CHARS, MAX_PERMISSION_OPTIONS, MAX_PROMPT, MAX_SHORT, MAX_TITLE,
};
use super::sanitize::{ChangeKind, Lines, Report, cap, clean, clean_opt};
use super::time::Stamp;

open_enum! {
    /// The four kinds of ask, each with its own body and answer shape (SPEC A15, V3).
    AskKind {
        Permission => "permission",
        Choice => "choice",
        Text => "text",
        Form => "form",
    }
}

open_enum! {
    /// What choosing a permission option does (SPEC A4, A11, A12).
    Effect {
        Allow => "allow",
        Deny => "deny",
        AllowAlways => "allow-always",
    }
}

open_enum! {
    /// The kind of a form field (SPEC A15).
    FieldKind {
        Text => "text",
        Choice => "choice",
        Boolean => "boolean",
        Number => "number",
    }
}

open_enum! {
    /// Who decided an ask on the agent's side (SPEC A5, A6).
    DecidedBy {
        Program => "program",
        Timeout => "timeout",
    }
}

/// One open question (SPEC A1–A3, A13, A15). Exactly the body named by `kind` is present.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ask {
    /// A hash of the pane id and the tool call id (SPEC A9).
    pub id: String,
    /// Rises with every change in place (SPEC A3).
    pub revision: u64,
    pub kind: AskKind,
    pub title: String,
    /// When it was first asked, ISO 8601 with a zone; inboxes sort by it (SPEC A2). Parsed
    /// once, at decode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opened_at: Option<Stamp>,
    /// When it times out, ISO 8601 with a zone (SPEC A13). Optional (SPEC V2). Parsed once,
    /// at decode; the text stays as sent, so `check` can judge one without a zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<Stamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<PermissionBody>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<ChoiceBody>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<TextBody>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<FormBody>,
    /// Set by [`Ask::sanitize`]: some words of this card were cut or cleaned, so the phone
    /// offers no allow-always on it (SPEC A12). Never on the wire.
    #[serde(skip)]
    pub words_altered: bool,
}

/// A permission ask, built from the tool's name and arguments, never the model's words (SPEC A10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionBody {
    /// The tool's name, e.g. `shell`. Empty means the ask names no tool (SPEC A12).
    #[serde(default)]
    pub tool: String,
    /// The tool's arguments as the tool will receive them.
    #[serde(default)]
    pub arguments: Value,
    /// At most 6 (SPEC L).
    #[serde(default)]
    pub options: Vec<AskOption>,
}

/// One option of a permission or choice ask, or of a form's choice field (SPEC L).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AskOption {
    pub id: String,
    pub label: String,
    /// For permission options: what choosing it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
}

/// A choice ask: pick one of up to 8 options (SPEC L).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChoiceBody {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default)]
    pub options: Vec<AskOption>,
    /// An `https://` page the person opens to do what is asked (sign in, pay, consent), then
    /// answers with an option ("Done"). Any other scheme is dropped (SPEC L1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A text ask: the person types an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextBody {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    #[serde(default)]
    pub multiline: bool,
}

/// A form ask: up to 6 fields (SPEC L).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormBody {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default)]
    pub fields: Vec<FormField>,
    /// Answers besides the filled-in form, e.g. "Decline": at most 2 (SPEC L); the answer
    /// `{"optionId"}` takes one, with no values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<AskOption>,
}

/// One field of a form ask. A choice field has up to 8 options (SPEC L).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormField {
    pub id: String,
    pub label: String,
    pub kind: FieldKind,
    #[serde(default)]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<AskOption>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// What the field asks, in more words than its label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A choice field: any number of its options, the value a list of option ids.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multiple: bool,
    /// A number field: whole numbers only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub integer: bool,
    /// The least and the most: a number field's value, a text field's characters, a multiple
    /// choice field's picks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// A text field's shape: `email`, `uri`, `date` or `date-time`; others are read as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
}

impl FormField {
    /// A field with nothing but its id, label and kind.
    pub fn new(id: &str, label: &str, kind: FieldKind) -> Self {
        Self {
            id: id.to_string(),
            label: label.to_string(),
            kind,
            required: false,
            options: Vec::new(),
            default: None,
            description: None,
            multiple: false,
            integer: false,
            min: None,
            max: None,
            format: None,
        }
    }
}

/// The answer of `POST /pane/:id/answer`, one shape per kind (SPEC A15):
/// permission and choice `{"optionId"}`, text `{"text"}`, form `{"values":{fieldId: value}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<BTreeMap<String, Value>>,
}

/// How an ask ended: the answer taken (or decided for it) and a line of words for the chat
/// (SPEC A4–A7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<BTreeMap<String, Value>>,
    /// Display words, e.g. "Allow once" or "Denied: timed out".
    #[serde(default)]
    pub summary: String,
}

impl Outcome {
    pub(crate) fn sanitize(&mut self, path: impl fmt::Display, report: &mut Report) {
        clean(
            &mut self.summary,
            MAX_LABEL,
            Lines::Single,
            format_args!("{path}.summary"),
            report,
        );
        clean_opt(
            &mut self.text,
            MAX_PROMPT,
            Lines::Multi,
            format_args!("{path}.text"),
            report,
        );
        clean_opt(
            &mut self.option_id,
            MAX_SHORT,
            Lines::Single,
            format_args!("{path}.optionId"),
            report,
        );
        if let Some(values) = &mut self.values {
            let mut inner = Report::default();
            sanitize_map(values, &mut inner);
            report.absorb(format_args!("{path}.values"), inner);
        }
    }
}

impl Ask {
    /// Cuts, cleans and caps (SPEC L1) and sets [`Ask::words_altered`] (SPEC A12).
    /// Returns false when the ask has no usable id and must be dropped.
    pub(crate) fn sanitize(&mut self, path: impl fmt::Display, report: &mut Report) -> bool {
        if check_id(&self.id).is_err() {
            report.note(path, ChangeKind::Dropped);
            return false;
        }
        let mut mine = Report::default();
        clean(
            &mut self.title,
            MAX_TITLE,
            Lines::Single,
            "title",
            &mut mine,
        );
        if let Some(stamp) = &mut self.opened_at {
            stamp.clean(MAX_SHORT, "openedAt", &mut mine);
        }
        if let Some(stamp) = &mut self.expires_at {
            stamp.clean(MAX_SHORT, "expiresAt", &mut mine);
        }
        if let Some(body) = &mut self.permission {
            clean(
                &mut body.tool,
                MAX_LABEL,
                Lines::Single,
                "permission.tool",
                &mut mine,
            );
            sanitize_arguments(&mut body.arguments, &mut mine);
            cap(
                &mut body.options,
                MAX_PERMISSION_OPTIONS,
                "permission.options",
                &mut mine,
            );
            sanitize_options(&mut body.options, "permission.options", &mut mine);
        }
        if let Some(body) = &mut self.choice {
            clean_opt(
                &mut body.prompt,
                MAX_PROMPT,
                Lines::Multi,
                "choice.prompt",
                &mut mine,
            );
            cap(
                &mut body.options,
                MAX_CHOICE_OPTIONS,
                "choice.options",
                &mut mine,
            );
            sanitize_options(&mut body.options, "choice.options", &mut mine);
            clean_opt(
                &mut body.url,
                MAX_LINK_CHARS,
                Lines::Single,
                "choice.url",
                &mut mine,
            );
            if body
                .url
                .as_deref()
                .is_some_and(|url| !url.starts_with("https://"))
            {
                body.url = None;
                mine.note("choice.url", ChangeKind::Dropped);
            }
        }
        if let Some(body) = &mut self.text {
            clean_opt(
                &mut body.prompt,
                MAX_PROMPT,
                Lines::Multi,
                "text.prompt",
                &mut mine,
            );
            clean_opt(
                &mut body.placeholder,
                MAX_LABEL,
                Lines::Single,
                "text.placeholder",
                &mut mine,
            );
        }
        if let Some(body) = &mut self.form {
            clean_opt(
                &mut body.prompt,
                MAX_PROMPT,
                Lines::Multi,
                "form.prompt",
                &mut mine,
            );
            cap(&mut body.fields, MAX_FORM_FIELDS, "form.fields", &mut mine);
            cap(
                &mut body.options,
                MAX_FORM_OPTIONS,
                "form.options",
                &mut mine,
            );
            sanitize_options(&mut body.options, "form.options", &mut mine);
            let mut index = 0;
            body.fields.retain_mut(|field| {
                let at_index = index;
                index += 1;
                let at = format_args!("form.fields[{at_index}]");
                if check_id(&field.id).is_err() {
                    mine.note(at, ChangeKind::Dropped);
                    return false;
                }
                clean(
                    &mut field.label,
                    MAX_LABEL,
                    Lines::Single,
                    format_args!("{at}.label"),
                    &mut mine,
                );
                cap(
                    &mut field.options,
                    MAX_CHOICE_OPTIONS,
                    format_args!("{at}.options"),
                    &mut mine,
                );
                sanitize_options(&mut field.options, format_args!("{at}.options"), &mut mine);
                if let Some(default) = &mut field.default {
                    sanitize_value(default, &mut mine);
                }
                clean_opt(
                    &mut field.description,
                    MAX_PROMPT,
                    Lines::Multi,
                    format_args!("{at}.description"),
                    &mut mine,
                );
                clean_opt(
                    &mut field.format,
                    MAX_SHORT,
                    Lines::Single,
                    format_args!("{at}.format"),
                    &mut mine,
                );
                true
            });
        }
        self.words_altered = !mine.is_empty();
        report.absorb(path, mine);
        true
    }

    /// True when the body named by `kind` is present, so the phone can offer answers (SPEC V3).
    pub fn is_answerable(&self) -> bool {
        match self.kind {
            AskKind::Permission => self
                .permission
                .as_ref()
                .is_some_and(|b| !b.options.is_empty()),
            AskKind::Choice => self.choice.as_ref().is_some_and(|b| !b.options.is_empty()),
            AskKind::Text => self.text.is_some(),
            AskKind::Form => self.form.as_ref().is_some_and(|b| !b.fields.is_empty()),
            AskKind::Unknown(_) => false,
        }
    }

    /// The options the person may pick on a permission or choice card.
    pub fn options(&self) -> &[AskOption] {
        match self.kind {
            AskKind::Permission => self.permission.as_ref().map_or(&[], |b| &b.options[..]),
            AskKind::Choice => self.choice.as_ref().map_or(&[], |b| &b.options[..]),
            _ => &[],
        }
    }
}

fn sanitize_options(options: &mut Vec<AskOption>, path: impl fmt::Display, report: &mut Report) {
    let mut index = 0;
    options.retain_mut(|option| {
        let at_index = index;
        index += 1;
        let at = format_args!("{path}[{at_index}]");
        if check_id(&option.id).is_err() {
            report.note(at, ChangeKind::Dropped);
            return false;
        }
        clean(
            &mut option.label,
            MAX_LABEL,
            Lines::Single,
            format_args!("{at}.label"),
            report,
        );
        true
    });
}

/// Cleans every string and key of a permission's arguments; past 16 KiB of compact JSON the
/// arguments are replaced by their cut text, so the card still shows what it can (SPEC L1, A12).
fn sanitize_arguments(arguments: &mut Value, report: &mut Report) {
    let mut inner = Report::default();
    sanitize_value(arguments, &mut inner);
    if !inner.is_empty() {
        report.note("permission.arguments", ChangeKind::Cleaned);
    }
    let size = compact_json_len(arguments);
    if size > MAX_ARGUMENTS {
        let text = arguments.to_string();
        let cut = super::sanitize::truncate_to(&text, MAX_ARGUMENTS).to_string();
        *arguments = Value::String(cut);
        report.note("permission.arguments", ChangeKind::Cut);
    }
}

/// The length of a value written as compact JSON, counted as it is written: the arguments of
/// every permission ask are measured at every decode, and nothing needs their text.
fn compact_json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}

fn sanitize_map(map: &mut BTreeMap<String, Value>, report: &mut Report) {
    for key in dirty_keys(map.keys()) {
        if let Some(value) = map.remove(&key) {
            map.insert(cleaned_key(key, report), value);
        }
    }
    map.values_mut().for_each(|v| sanitize_value(v, report));
}

/// Keys that hold a character [`clean`] would remove.
fn dirty_keys<'a>(keys: impl Iterator<Item = &'a String>) -> Vec<String> {
    keys.filter(|k| super::sanitize::has_invisible(k, Lines::Single))
        .cloned()
        .collect()
}

fn cleaned_key(mut key: String, report: &mut Report) -> String {
    clean(&mut key, MAX_LABEL, Lines::Single, "key", report);
    key
}

/// Cleans every string inside a JSON value (keys too), keeping line breaks in values.
pub(crate) fn sanitize_value(value: &mut Value, report: &mut Report) {
    match value {
        Value::String(s) => {
            clean(s, MAX_ARGUMENTS, Lines::Multi, "value", report);
        }
        Value::Array(items) => items.iter_mut().for_each(|v| sanitize_value(v, report)),
        Value::Object(map) => {
            for key in dirty_keys(map.keys()) {
                if let Some(inner) = map.remove(&key) {
                    map.insert(cleaned_key(key, report), inner);
                }
            }
            map.values_mut().for_each(|v| sanitize_value(v, report));
        }
        _ => {}
    }
}

/// The ask id of SPEC A9: a hash of the pane id and the tool call id, so the same call asked
/// again after a restart has the same id.
pub fn ask_id(pane_id: &str, tool_call_id: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(pane_id.as_bytes());
    hasher.update([0u8]);
    hasher.update(tool_call_id.as_bytes());
    let digest = hasher.finalize();
    format!("ask-{}", hex::encode(&digest[..16]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn permission(tool: &str, command: &str) -> Ask {
        serde_json::from_value(serde_json::json!({
            "id": "a1", "revision": 1, "kind": "permission", "title": "Run a command",
            "permission": {"tool": tool, "arguments": {"command": command}, "options": [
                {"id": "allow-once", "label": "Allow once", "effect": "allow"},
                {"id": "deny", "label": "Deny", "effect": "deny"},
                {"id": "allow-always", "label": "Allow always", "effect": "allow-always"}
            ]}
        }))
        .expect("decodes")
    }

    #[test]
    fn a9_ask_id_is_stable_hash_of_pane_and_call() {
        assert_eq!(ask_id("p1", "call-7"), ask_id("p1", "call-7"));
        assert_ne!(ask_id("p1", "call-7"), ask_id("p2", "call-7"));
        assert_ne!(ask_id("p1", "call-7"), ask_id("p1", "call-8"));
        assert!(check_id(&ask_id("p1", "call-7")).is_ok());
    }

    #[test]
    fn a12_clean_card_is_not_altered() {
        let mut ask = permission("shell", "rm -rf build/");
        let mut report = Report::default();
        assert!(ask.sanitize("a", &mut report));
        assert!(!ask.words_altered);
    }

    #[test]
    fn a12_escape_in_arguments_marks_card_altered() {
        let mut ask = permission("shell", "rm -rf /\u{1b}[8m hidden");
        let mut report = Report::default();
        assert!(ask.sanitize("a", &mut report));
        assert!(ask.words_altered);
        assert_eq!(
            ask.permission
                .as_ref()
                .map(|p| p.arguments["command"].clone()),
            Some(Value::String("rm -rf /[8m hidden".into()))
        );
    }

    #[test]
    fn l_options_capped_keep_first() {
        let mut ask: Ask = serde_json::from_value(serde_json::json!({
            "id": "a1", "revision": 1, "kind": "choice", "title": "Pick",
            "choice": {"options": (0..12).map(|i| serde_json::json!({"id": format!("o{i}"), "label": format!("O{i}")})).collect::<Vec<_>>()}
        }))
        .expect("decodes");
        let mut report = Report::default();
        ask.sanitize("a", &mut report);
        let ids: Vec<_> = ask.options().iter().map(|o| o.id.clone()).collect();
        assert_eq!(ids, (0..8).map(|i| format!("o{i}")).collect::<Vec<_>>());
        assert!(ask.words_altered);
    }

    #[test]
    fn v3_unknown_kind_is_not_answerable() {
        let ask: Ask = serde_json::from_value(serde_json::json!({
            "id": "a1", "revision": 1, "kind": "drawing", "title": "Sketch it"
        }))
        .expect("decodes");
        assert!(!ask.is_answerable());
    }
}
