//! What changed between two forms of one ask, in the words a card shows (SPEC A3; docs/ASKS.md,
//! "What changed"): the title, the tool, each argument, the options, prompts, fields and the
//! time limit, each with what it was and what it is now. An agent that changes an ask in place,
//! honest or hostile, cannot slip a new command under a person who already read the old one.

use serde_json::Value;

use crate::wire::{Ask, AskOption, Effect, FieldKind, FormField};

/// One thing on the card that is not what the person saw before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// What it is: "title", "tool", an argument's name, "options", "prompt"…
    pub what: String,
    pub was: String,
    pub now: String,
}

/// Shown for a part that was not there before, or is not there any more.
const NONE: &str = "(none)";

/// Everything a person reads that differs between `old` and `new`, in card order. The revision
/// is not in the list (the banner names it). `allow_always` says whether allow-always options
/// are shown on this card (SPEC A11, A12), so a hidden option is not listed either.
pub fn changes(old: &Ask, new: &Ask, allow_always: bool) -> Vec<Changed> {
    let mut out = Vec::new();
    let mut push = |what: &str, was: String, now: String| {
        if was != now {
            out.push(Changed {
                what: what.to_string(),
                was,
                now,
            });
        }
    };
    push("kind", old.kind.as_str().into(), new.kind.as_str().into());
    push("title", old.title.clone(), new.title.clone());
    let tool = |ask: &Ask| ask.permission.as_ref().map(|p| p.tool.clone());
    push("tool", or_none(tool(old)), or_none(tool(new)));
    let null = Value::Null;
    let arguments = |ask: &'_ Ask| -> Value {
        ask.permission
            .as_ref()
            .map_or_else(|| null.clone(), |p| p.arguments.clone())
    };
    for (what, was, now) in argument_changes(&arguments(old), &arguments(new)) {
        push(&what, was, now);
    }
    push(
        "options",
        options_text(old, new, allow_always),
        options_text(new, old, allow_always),
    );
    let prompt = |ask: &Ask| {
        ask.choice
            .as_ref()
            .and_then(|c| c.prompt.clone())
            .or_else(|| ask.text.as_ref().and_then(|t| t.prompt.clone()))
            .or_else(|| ask.form.as_ref().and_then(|f| f.prompt.clone()))
    };
    push(
        "prompt",
        or_none(prompt(old).map(|p| one_line(&p))),
        or_none(prompt(new).map(|p| one_line(&p))),
    );
    let placeholder = |ask: &Ask| ask.text.as_ref().and_then(|t| t.placeholder.clone());
    push(
        "placeholder",
        or_none(placeholder(old)),
        or_none(placeholder(new)),
    );
    let lines = |ask: &Ask| match &ask.text {
        Some(text) if text.multiline => "several lines".to_string(),
        Some(_) => "one line".to_string(),
        None => NONE.to_string(),
    };
    push("answer", lines(old), lines(new));
    let fields = |ask: &Ask| {
        ask.form.as_ref().map(|f| {
            f.fields
                .iter()
                .map(field_text)
                .collect::<Vec<_>>()
                .join(" · ")
        })
    };
    push("fields", or_none(fields(old)), or_none(fields(new)));
    push(
        "time limit",
        or_none(old.expires_at.as_ref().map(|at| at.text().to_string())),
        or_none(new.expires_at.as_ref().map(|at| at.text().to_string())),
    );
    out
}

fn or_none(text: Option<String>) -> String {
    text.filter(|t| !t.is_empty())
        .unwrap_or_else(|| NONE.to_string())
}

/// A value on one line: its line breaks shown as ⏎, so "was" and "now" stay side by side.
fn one_line(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\n', " ⏎ ")
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => one_line(s),
        other => other.to_string(),
    }
}

/// Per argument for two flat objects (the card shows them as `key: value` rows), else the
/// arguments whole as compact JSON.
fn argument_changes(old: &Value, new: &Value) -> Vec<(String, String, String)> {
    if old == new {
        return Vec::new();
    }
    let flat = |v: &Value| {
        v.as_object()
            .filter(|map| map.values().all(|v| !v.is_object() && !v.is_array()))
            .cloned()
    };
    match (flat(old), flat(new)) {
        (Some(old), Some(new)) => {
            let mut keys: Vec<&String> = new.keys().collect();
            keys.extend(old.keys().filter(|k| !new.contains_key(*k)));
            keys.into_iter()
                .filter(|k| old.get(*k) != new.get(*k))
                .map(|k| {
                    let text = |map: &serde_json::Map<String, Value>| {
                        map.get(k).map_or_else(|| NONE.to_string(), value_text)
                    };
                    (k.clone(), text(&old), text(&new))
                })
                .collect()
        }
        _ => {
            let text = |v: &Value| {
                if v.is_null() {
                    NONE.to_string()
                } else {
                    v.to_string()
                }
            };
            vec![("arguments".into(), text(old), text(new))]
        }
    }
}

/// The options of `ask` as the card shows them. When their labels read the same as `other`'s
/// although the options differ (a new id or effect behind the same words), each label carries
/// its id and effect, so the difference shows.
fn options_text(ask: &Ask, other: &Ask, allow_always: bool) -> String {
    let shown = |a: &Ask| -> Vec<AskOption> {
        a.options()
            .iter()
            .filter(|o| allow_always || o.effect != Some(Effect::AllowAlways))
            .cloned()
            .collect()
    };
    let (mine, theirs) = (shown(ask), shown(other));
    if mine.is_empty() {
        return NONE.to_string();
    }
    let labels = |options: &[AskOption]| -> Vec<String> {
        options.iter().map(|o| o.label.clone()).collect()
    };
    let same_words = labels(&mine) == labels(&theirs) && mine != theirs;
    mine.iter()
        .map(|o| {
            if same_words {
                let effect = o.effect.as_ref().map_or("no effect", Effect::as_str);
                format!("{} ({}, {effect})", o.label, o.id)
            } else {
                o.label.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

fn field_text(field: &FormField) -> String {
    let mut text = format!(
        "{}{}: {}",
        field.label,
        if field.required { "*" } else { "" },
        match &field.kind {
            FieldKind::Boolean => "yes/no",
            other => other.as_str(),
        }
    );
    if !field.options.is_empty() {
        let options: Vec<&str> = field.options.iter().map(|o| o.label.as_str()).collect();
        text.push_str(&format!(" [{}]", options.join("/")));
    }
    if let Some(default) = &field.default {
        text.push_str(&format!(" = {}", value_text(default)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ask(value: Value) -> Ask {
        serde_json::from_value(value).expect("an ask")
    }

    fn push(command: &str, revision: u64) -> Ask {
        ask(json!({
            "id": "a1", "revision": revision, "kind": "permission",
            "title": format!("shell: {command}"),
            "permission": {"tool": "shell", "arguments": {"command": command, "cwd": "/src"},
                "options": [
                    {"id": "allow-once", "label": "Allow once", "effect": "allow"},
                    {"id": "deny", "label": "Deny", "effect": "deny"},
                    {"id": "allow-always", "label": "Allow always", "effect": "allow-always"}
                ]}
        }))
    }

    #[test]
    fn a3_a_changed_command_shows_old_and_new() {
        let old = push("git push --force origin main", 1);
        let new = push("git push --force-with-lease origin main", 2);
        let changes = changes(&old, &new, true);
        let what: Vec<&str> = changes.iter().map(|c| c.what.as_str()).collect();
        assert_eq!(what, ["title", "command"]);
        assert_eq!(changes[1].was, "git push --force origin main");
        assert_eq!(changes[1].now, "git push --force-with-lease origin main");
    }

    #[test]
    fn a_revision_alone_lists_nothing() {
        assert!(changes(&push("ls", 1), &push("ls", 2), true).is_empty());
    }

    #[test]
    fn options_behind_the_same_words_show_their_effects() {
        let old = push("ls", 1);
        let mut new = push("ls", 2);
        if let Some(body) = new.permission.as_mut() {
            // A hostile agent: "Deny" now allows always.
            body.options[1].effect = Some(Effect::AllowAlways);
        }
        let changes = changes(&old, &new, true);
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].what, "options");
        assert!(
            changes[0].now.contains("Deny (deny, allow-always)"),
            "{changes:?}"
        );
        assert!(changes[0].was.contains("Deny (deny, deny)"), "{changes:?}");
    }

    #[test]
    fn hidden_allow_always_is_not_listed() {
        let old = push("ls", 1);
        let mut new = push("ls", 2);
        if let Some(body) = new.permission.as_mut() {
            body.options[2].label = "Always, forever".into();
        }
        assert!(changes(&old, &new, false).is_empty());
        assert_eq!(changes(&old, &new, true).len(), 1);
    }

    #[test]
    fn deep_arguments_compare_whole_and_removed_keys_say_none() {
        let mut old = push("ls", 1);
        let mut new = push("ls", 2);
        if let Some(body) = new.permission.as_mut() {
            body.arguments = json!({"command": "ls"});
        }
        let listed = changes(&old, &new, true);
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (listed[0].what.as_str(), listed[0].now.as_str()),
            ("cwd", NONE)
        );
        if let Some(body) = old.permission.as_mut() {
            body.arguments = json!({"argv": ["ls", "-l"]});
        }
        let listed = changes(&old, &new, true);
        assert_eq!(listed[0].what, "arguments");
        assert_eq!(listed[0].was, r#"{"argv":["ls","-l"]}"#);
    }

    #[test]
    fn form_fields_and_prompts() {
        let form = |label: &str, prompt: &str| {
            ask(json!({
                "id": "f", "revision": 1, "kind": "form", "title": "Deploy",
                "form": {"prompt": prompt, "fields": [
                    {"id": "env", "label": label, "kind": "choice", "required": true,
                     "options": [{"id": "s", "label": "Staging"}, {"id": "p", "label": "Production"}],
                     "default": "s"},
                    {"id": "dry", "label": "Dry run", "kind": "boolean", "default": true}
                ]}
            }))
        };
        let listed = changes(
            &form("Environment", "Where?"),
            &form("Target", "Where\nnow?"),
            true,
        );
        let what: Vec<&str> = listed.iter().map(|c| c.what.as_str()).collect();
        assert_eq!(what, ["prompt", "fields"]);
        assert_eq!(listed[0].now, "Where ⏎ now?");
        assert_eq!(
            listed[1].was,
            "Environment*: choice [Staging/Production] = s · Dry run: yes/no = true"
        );
    }
}
