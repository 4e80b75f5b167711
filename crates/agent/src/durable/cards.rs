//! The permission card every driver asks with (SPEC A10, A11): its title made from the tool and
//! its arguments only, and its three options. The reference world and the ACP host both ask
//! with it, so a card reads the same whoever drives the world. Also the plain choice, text and
//! form cards the play and the rules broken on purpose (`broken`) lay out.

use serde_json::Value;

use crate::wire::sanitize::truncate_to;
use crate::wire::tool_input;
use crate::wire::{
    Ask, AskKind, AskOption, ChoiceBody, Effect, FieldKind, FormBody, FormField, PermissionBody,
    TextBody, limits,
};

/// Option ids of every permission card a durable agent here asks with.
pub const ALLOW_ONCE: &str = "allow-once";
pub const DENY: &str = "deny";
pub const ALLOW_ALWAYS: &str = "allow-always";

pub fn blank_ask(kind: AskKind, title: &str) -> Ask {
    Ask {
        // World::open_ask gives the id of SPEC A9.
        id: String::new(),
        revision: 1,
        kind,
        title: truncate_to(title, limits::MAX_TITLE).to_string(),
        opened_at: None,
        expires_at: None,
        permission: None,
        choice: None,
        text: None,
        form: None,
        words_altered: false,
    }
}

pub fn option(id: &str, label: &str, effect: Option<Effect>) -> AskOption {
    AskOption {
        id: id.to_string(),
        label: label.to_string(),
        effect,
    }
}

/// Allow once, deny, allow always: the options of every permission card.
pub(crate) fn permission_options() -> Vec<AskOption> {
    vec![
        option(ALLOW_ONCE, "Allow once", Some(Effect::Allow)),
        option(DENY, "Deny", Some(Effect::Deny)),
        option(ALLOW_ALWAYS, "Allow always", Some(Effect::AllowAlways)),
    ]
}

/// The title of a permission card, made from the tool's name and its arguments only, never from
/// anything the model wrote (SPEC A10): the tool, then the command or the path it acts on, in at
/// most 80 columns (`wire::tool_input` reads the shapes the real agents send).
pub fn permission_title(tool: &str, arguments: &Value) -> String {
    truncate_to(&tool_input::title(tool, arguments), limits::MAX_TITLE).to_string()
}

/// A permission card for running `tool` with `arguments` (SPEC A10).
pub fn permission(tool: &str, arguments: Value) -> Ask {
    let mut ask = blank_ask(AskKind::Permission, &permission_title(tool, &arguments));
    ask.permission = Some(PermissionBody {
        tool: tool.to_string(),
        arguments,
        options: permission_options(),
    });
    ask
}

/// A choice card; option ids are `o1`, `o2`, …
pub fn choice(title: &str, prompt: &str, labels: &[&str]) -> Ask {
    let mut ask = blank_ask(AskKind::Choice, title);
    ask.choice = Some(ChoiceBody {
        prompt: Some(prompt.to_string()),
        options: labels
            .iter()
            .enumerate()
            .map(|(i, label)| option(&format!("o{}", i + 1), label, None))
            .collect(),
        url: None,
    });
    ask
}

pub fn text(title: &str, prompt: &str, placeholder: &str, multiline: bool) -> Ask {
    let mut ask = blank_ask(AskKind::Text, title);
    ask.text = Some(TextBody {
        prompt: Some(prompt.to_string()),
        placeholder: Some(placeholder.to_string()),
        multiline,
    });
    ask
}

pub fn form(title: &str, prompt: &str, fields: Vec<FormField>) -> Ask {
    let mut ask = blank_ask(AskKind::Form, title);
    ask.form = Some(FormBody {
        prompt: Some(prompt.to_string()),
        fields,
        options: Vec::new(),
    });
    ask
}

pub fn field(
    id: &str,
    label: &str,
    kind: FieldKind,
    required: bool,
    default: Option<Value>,
) -> FormField {
    FormField {
        required,
        default,
        ..FormField::new(id, label, kind)
    }
}
