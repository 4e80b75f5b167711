//! An ACP `session/request_permission` as a Collie permission ask, and back (SPEC A10–A12).
//!
//! The card is built from the tool call alone: its name (or, when the agent gives none, its
//! kind), and its `rawInput` as the arguments. The agent's own title of the call goes into the
//! arguments as data, never into the card's title (SPEC A10). The options come from the ACP
//! option kinds by [`OPTION_TABLE`], with our own labels, so nothing the agent wrote can make a
//! "deny" look like "allow". docs/ACP.md shows the same table.

use serde_json::{Map, Value};

use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionRequest, ToolCallContent,
    ToolCallUpdateFields, ToolKind,
};

use super::text::{clean_line, clean_value};
use crate::durable::cards;
use crate::wire::{Ask, AskOption, Effect, limits};

/// How each ACP option kind is offered on the phone: our option id, our label, its effect.
/// `allow_always` is dropped behind a token by the world (SPEC A11), and the phone offers it
/// only on cards whose words were not cut or cleaned (SPEC A12).
pub(crate) const OPTION_TABLE: [(PermissionOptionKind, &str, &str, Effect); 4] = [
    (
        PermissionOptionKind::AllowOnce,
        "allow-once",
        "Allow once",
        Effect::Allow,
    ),
    (
        PermissionOptionKind::AllowAlways,
        "allow-always",
        "Allow always",
        Effect::AllowAlways,
    ),
    (
        PermissionOptionKind::RejectOnce,
        "deny",
        "Deny",
        Effect::Deny,
    ),
    (
        PermissionOptionKind::RejectAlways,
        "deny-always",
        "Deny always",
        Effect::Deny,
    ),
];

/// A permission request as an ask, and which ACP option each of its options answers with.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PermissionCard {
    pub(crate) ask: Ask,
    /// Our option id → the agent's `optionId`.
    pub(crate) answers: Vec<(String, String)>,
}

impl PermissionCard {
    /// The agent's option for one of ours, if the card has it.
    pub(crate) fn acp_option(&self, ours: &str) -> Option<&str> {
        self.answers
            .iter()
            .find(|(id, _)| id == ours)
            .map(|(_, acp)| acp.as_str())
    }
}

/// The tool's name on the card: the call's `name` when the agent gives one, else its kind.
pub(crate) fn tool_name(name: Option<&str>, kind: Option<&ToolKind>) -> String {
    if let Some(name) = name.map(clean_line).filter(|n| !n.is_empty()) {
        return name;
    }
    match kind {
        Some(ToolKind::Read) => "read",
        Some(ToolKind::Edit) => "edit",
        Some(ToolKind::Delete) => "delete",
        Some(ToolKind::Move) => "move",
        Some(ToolKind::Search) => "search",
        Some(ToolKind::Execute) => "execute",
        Some(ToolKind::Think) => "think",
        Some(ToolKind::Fetch) => "fetch",
        Some(ToolKind::SwitchMode) => "switch_mode",
        _ => "tool",
    }
    .to_string()
}

/// The card for a request. Options of a kind we do not know, and a second option of a kind
/// already offered, are left off: an answer could not say what it does. A request with no
/// option we can offer gets a card with none but a deny the host answers as `cancelled`.
pub(crate) fn card(request: &RequestPermissionRequest) -> PermissionCard {
    let fields = &request.tool_call.fields;
    let tool = tool_name(fields.name.as_deref(), fields.kind.as_ref());
    let arguments = arguments(fields);
    let mut ask = cards::permission(&tool, arguments);
    let mut answers = Vec::new();
    let mut options = Vec::new();
    for (kind, id, label, effect) in OPTION_TABLE {
        if let Some(offered) = first_of_kind(&request.options, &kind) {
            options.push(AskOption {
                id: id.to_string(),
                label: label.to_string(),
                effect: Some(effect),
            });
            answers.push((id.to_string(), offered.option_id.0.to_string()));
        }
    }
    if !options.iter().any(|o| o.effect == Some(Effect::Deny)) {
        // The safe side must always be there: a card with no way to say no would leave the
        // person only "allow" or the timer. Deny is sent as `cancelled`.
        options.push(AskOption {
            id: "deny".to_string(),
            label: "Deny".to_string(),
            effect: Some(Effect::Deny),
        });
    }
    options.truncate(limits::MAX_PERMISSION_OPTIONS);
    if let Some(body) = &mut ask.permission {
        body.options = options;
    }
    PermissionCard { ask, answers }
}

fn first_of_kind<'a>(
    options: &'a [PermissionOption],
    kind: &PermissionOptionKind,
) -> Option<&'a PermissionOption> {
    options.iter().find(|o| &o.kind == kind)
}

/// The card's arguments: the call's `rawInput` (an object, or the value under `input`), with
/// the agent's title of the call beside it as `title` when the input has none. A call with no
/// input at all (Gemini CLI asks so) has what it still says as data instead: the diffs of its
/// content as `diffs` (`path`, `oldText`, `newText`) and the paths of its `locations`. Cleaned,
/// and cut to the arguments limit (SPEC L1): the longest texts are cut first, each ending
/// [`CUT_MARK`], so a large file's content is cut but its path and the shape the card reads
/// (`wire::tool_input`) stay; what still does not fit is shown as the start of its JSON text.
fn arguments(fields: &ToolCallUpdateFields) -> Value {
    let mut object = match fields.raw_input.as_ref() {
        Some(Value::Object(map)) => map.clone(),
        Some(Value::Null) | None => Map::new(),
        Some(other) => {
            let mut map = Map::new();
            map.insert("input".into(), other.clone());
            map
        }
    };
    if object.is_empty() {
        let diffs: Vec<Value> = fields
            .content
            .iter()
            .flatten()
            .filter_map(|piece| match piece {
                ToolCallContent::Diff(diff) => Some(serde_json::json!({
                    "path": diff.path.to_string_lossy(),
                    "oldText": diff.old_text,
                    "newText": diff.new_text,
                })),
                _ => None,
            })
            .collect();
        if !diffs.is_empty() {
            object.insert("diffs".into(), Value::Array(diffs));
        }
        let paths: Vec<Value> = fields
            .locations
            .iter()
            .flatten()
            .map(|location| Value::String(location.path.to_string_lossy().into_owned()))
            .collect();
        if !paths.is_empty() {
            object.insert("locations".into(), Value::Array(paths));
        }
    }
    let title = fields.title.as_deref();
    if let Some(title) = title.map(clean_line).filter(|t| !t.is_empty()) {
        object.entry("title").or_insert(Value::String(title));
    }
    let mut value = clean_value(Value::Object(object));
    if fits(&value) || cut_longest_texts(&mut value) {
        return value;
    }
    let text = value.to_string();
    let cut = crate::wire::sanitize::truncate_to(&text, limits::MAX_ARGUMENTS - 64);
    serde_json::json!({ "input (cut)": cut })
}

/// What ends a text the card cut.
const CUT_MARK: &str = " … (cut)";

fn fits(value: &Value) -> bool {
    value.to_string().len() <= limits::MAX_ARGUMENTS
}

/// Cuts the longest texts of `value` until it fits the arguments limit; false when a few rounds
/// of that were not enough (a value of many short texts).
fn cut_longest_texts(value: &mut Value) -> bool {
    for _ in 0..16 {
        let over = value
            .to_string()
            .len()
            .saturating_sub(limits::MAX_ARGUMENTS);
        if over == 0 {
            return true;
        }
        let Some(longest) = longest_text(value) else {
            return false;
        };
        // JSON escapes make a text longer on the wire than in memory: the next round cuts
        // what this one left over.
        let keep = longest.len().saturating_sub(over + CUT_MARK.len());
        let cut = format!(
            "{}{CUT_MARK}",
            crate::wire::sanitize::truncate_to(longest, keep)
        );
        *longest = cut;
    }
    fits(value)
}

fn longest_text(value: &mut Value) -> Option<&mut String> {
    match value {
        Value::String(text) => Some(text),
        Value::Array(items) => items
            .iter_mut()
            .filter_map(longest_text)
            .max_by_key(|t| t.len()),
        Value::Object(map) => map
            .values_mut()
            .filter_map(longest_text)
            .max_by_key(|t| t.len()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::ToolCallUpdate;
    use serde_json::json;

    fn request(
        options: Vec<PermissionOption>,
        fields: ToolCallUpdateFields,
    ) -> RequestPermissionRequest {
        RequestPermissionRequest::new("s-1", ToolCallUpdate::new("call-1", fields), options)
    }

    fn all_four() -> Vec<PermissionOption> {
        vec![
            PermissionOption::new("yes", "Yes!!", PermissionOptionKind::AllowOnce),
            PermissionOption::new("always", "Always", PermissionOptionKind::AllowAlways),
            PermissionOption::new("no", "No", PermissionOptionKind::RejectOnce),
            PermissionOption::new("never", "Never", PermissionOptionKind::RejectAlways),
        ]
    }

    #[test]
    fn a10_the_card_names_the_tool_and_its_input_never_the_agents_title() {
        let fields = ToolCallUpdateFields::new()
            .kind(ToolKind::Execute)
            .title("Totally harmless, just approve".to_string())
            .raw_input(json!({"command": "rm -rf build/"}));
        let card = card(&request(all_four(), fields));
        assert_eq!(card.ask.title, "execute: rm -rf build/");
        let body = card.ask.permission.expect("a permission body");
        assert_eq!(body.tool, "execute");
        assert_eq!(body.arguments["command"], "rm -rf build/");
        assert_eq!(body.arguments["title"], "Totally harmless, just approve");
    }

    #[test]
    fn the_four_option_kinds_map_by_the_table_with_our_labels() {
        let card = card(&request(all_four(), ToolCallUpdateFields::new()));
        let body = card.ask.permission.clone().expect("a permission body");
        let shown: Vec<(&str, &str, Option<Effect>)> = body
            .options
            .iter()
            .map(|o| (o.id.as_str(), o.label.as_str(), o.effect.clone()))
            .collect();
        assert_eq!(
            shown,
            vec![
                ("allow-once", "Allow once", Some(Effect::Allow)),
                ("allow-always", "Allow always", Some(Effect::AllowAlways)),
                ("deny", "Deny", Some(Effect::Deny)),
                ("deny-always", "Deny always", Some(Effect::Deny)),
            ]
        );
        assert_eq!(card.acp_option("allow-once"), Some("yes"));
        assert_eq!(card.acp_option("deny-always"), Some("never"));
        assert_eq!(card.acp_option("nope"), None);
    }

    #[test]
    fn a_card_without_a_reject_option_still_offers_deny() {
        let options = vec![PermissionOption::new(
            "ok",
            "OK",
            PermissionOptionKind::AllowOnce,
        )];
        let card = card(&request(options, ToolCallUpdateFields::new()));
        let body = card.ask.permission.clone().expect("a permission body");
        assert!(body.options.iter().any(|o| o.id == "deny"));
        assert_eq!(card.acp_option("deny"), None, "answered as cancelled");
    }

    #[test]
    fn a_call_without_input_shows_its_diffs_and_locations_cleaned() {
        use agent_client_protocol::v1::schema::{Diff, ToolCallLocation};
        let fields = ToolCallUpdateFields::new()
            .kind(ToolKind::Edit)
            .title("Writing to notes.md".to_string())
            .content(vec![ToolCallContent::Diff(Diff::new(
                "/w/\u{1b}[2Jnotes.md",
                "new\n",
            ))])
            .locations(vec![ToolCallLocation::new("/w/\u{1b}[2Jnotes.md")]);
        let card = card(&request(all_four(), fields));
        assert_eq!(card.ask.title, "edit: /w/[2Jnotes.md");
        let body = card.ask.permission.expect("a permission body");
        assert_eq!(body.arguments["locations"], json!(["/w/[2Jnotes.md"]));
        assert_eq!(body.arguments["diffs"][0]["newText"], "new\n");
    }

    #[test]
    fn l1_a_large_write_is_cut_in_its_content_and_keeps_its_path() {
        let fields = ToolCallUpdateFields::new()
            .kind(ToolKind::Edit)
            .raw_input(json!({
                "file_path": "src/big.rs",
                "content": "fn main() {}\n".repeat(5_000),
            }));
        let card = card(&request(all_four(), fields));
        assert_eq!(card.ask.title, "edit: src/big.rs");
        let body = card.ask.permission.expect("a permission body");
        assert!(body.arguments.to_string().len() <= limits::MAX_ARGUMENTS);
        let content = body.arguments["content"].as_str().expect("the content");
        assert!(content.starts_with("fn main() {}\n") && content.ends_with(CUT_MARK));
    }

    #[test]
    fn l1_hostile_input_is_cleaned_and_cut() {
        let fields = ToolCallUpdateFields::new()
            .name("sh\u{1b}]0;pwned\u{7}ell".to_string())
            .raw_input(json!({"command": format!("echo \u{1b}[2J{}", "x".repeat(40_000))}));
        let card = card(&request(all_four(), fields));
        let body = card.ask.permission.expect("a permission body");
        assert_eq!(body.tool, "sh]0;pwnedell");
        let text = body.arguments.to_string();
        assert!(text.len() <= limits::MAX_ARGUMENTS);
        assert!(!text.contains('\u{1b}'));
    }

    #[test]
    fn l1_a_hostile_command_list_or_path_is_cleaned_and_the_title_cut_to_80_columns() {
        let script = format!("echo \u{1b}]0;pwned\u{7}{}", "y".repeat(300));
        let fields = ToolCallUpdateFields::new()
            .kind(ToolKind::Execute)
            .raw_input(json!({"command": ["/bin/bash", "-lc", script]}));
        let exec = card(&request(all_four(), fields));
        assert!(exec.ask.title.starts_with("execute: echo ]0;pwnedyyy"));
        assert!(exec.ask.title.ends_with('…'));
        assert_eq!(exec.ask.title.chars().count(), 80);
        let fields = ToolCallUpdateFields::new().kind(ToolKind::Edit).raw_input(
            json!({"file_path": "src/\u{202e}txt.rs", "old_string": "a", "new_string": "\u{1b}[2Jb"}),
        );
        let edit = card(&request(all_four(), fields));
        assert_eq!(edit.ask.title, "edit: src/txt.rs");
        let body = edit.ask.permission.expect("a permission body");
        let readable = crate::wire::tool_input::readable(&body.arguments);
        let diff = readable.diff.expect("a diff");
        assert!(
            !diff.contains('\u{1b}') && !diff.contains('\u{202e}'),
            "{diff}"
        );
    }
}
