//! Which open ask the A rules answer, and with what: read from the raw snapshot (so a lenient
//! decoder hides nothing), and answered as gently as the ask allows, since a check may run
//! against a real agent: a choice, a text or a form first, a permission only through its deny
//! option.

use serde_json::{Map, Value, json};

/// The words a check writes into a text answer, so a person reading the agent's log knows
/// where they came from.
const ANSWER_TEXT: &str = "collie-phone check";

/// One open ask as the snapshot lists it, with the pane it waits in.
#[derive(Debug, Clone)]
pub(super) struct OpenAsk {
    pub(crate) pane: String,
    /// The pane's latest turn, when the snapshot names one: (id, state).
    pub(crate) turn: Option<(String, String)>,
    pub(crate) ask: Value,
}

impl OpenAsk {
    pub(crate) fn id(&self) -> &str {
        self.ask.get("id").and_then(Value::as_str).unwrap_or("")
    }

    pub(crate) fn revision(&self) -> Option<u64> {
        self.ask.get("revision").and_then(Value::as_u64)
    }

    pub(crate) fn kind(&self) -> &str {
        self.ask.get("kind").and_then(Value::as_str).unwrap_or("")
    }

    /// True when the pane's latest turn is running, so an abort can end it (SPEC A16).
    pub(crate) fn turn_is_running(&self) -> bool {
        self.turn
            .as_ref()
            .is_some_and(|(_, state)| state == "running")
    }

    /// "the choice ask ask-12 in pane p-3", for findings.
    pub(crate) fn describe(&self) -> String {
        format!(
            "the {} ask {} in pane {}",
            self.kind(),
            self.id(),
            self.pane
        )
    }

    /// The body of `POST /pane/:id/answer` for this ask with `revision` and `answer`.
    pub(crate) fn answer_body(&self, request_id: &str, revision: u64, answer: &Value) -> Value {
        json!({
            "requestId": request_id,
            "askId": self.id(),
            "revision": revision,
            "answer": answer,
        })
    }
}

/// Every open ask of the snapshot, in its order (workspaces, tabs, panes, asks).
pub(super) fn open_asks(snapshot: &Value) -> Vec<OpenAsk> {
    let mut found = Vec::new();
    for pane in panes(snapshot) {
        let Some(pane_id) = pane.get("id").and_then(Value::as_str) else {
            continue;
        };
        let turn = pane.get("turn").and_then(|turn| {
            Some((
                turn.get("id")?.as_str()?.to_string(),
                turn.get("state")?.as_str()?.to_string(),
            ))
        });
        for ask in list(pane, "asks") {
            found.push(OpenAsk {
                pane: pane_id.to_string(),
                turn: turn.clone(),
                ask: ask.clone(),
            });
        }
    }
    found
}

/// Every pane id of the snapshot, in its order.
pub(super) fn pane_ids(snapshot: &Value) -> Vec<String> {
    panes(snapshot)
        .filter_map(|pane| pane.get("id")?.as_str().map(str::to_string))
        .collect()
}

/// Every pane of the snapshot, in its order (workspaces, tabs, panes).
fn panes(snapshot: &Value) -> impl Iterator<Item = &Value> {
    list(snapshot, "workspaces")
        .iter()
        .flat_map(|workspace| list(workspace, "tabs"))
        .flat_map(|tab| list(tab, "panes"))
}

/// The list under `key`, or none when it is missing or not a list.
fn list<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The open asks a check may answer, the gentlest first: choice, text, form, then a permission
/// that has a deny option. Asks without an id or a whole-number revision are left out.
pub(super) fn answerable(snapshot: &Value) -> Vec<OpenAsk> {
    let mut asks: Vec<(usize, OpenAsk)> = open_asks(snapshot)
        .into_iter()
        .filter(|ask| !ask.id().is_empty() && ask.revision().is_some())
        .filter(|ask| answer_for(&ask.ask, 0).is_some())
        .filter_map(|ask| {
            let rank = match ask.kind() {
                "choice" => 0,
                "text" => 1,
                "form" => 2,
                "permission" => 3,
                _ => return None,
            };
            Some((rank, ask))
        })
        .collect();
    asks.sort_by_key(|(rank, _)| *rank);
    asks.into_iter().map(|(_, ask)| ask).collect()
}

/// An answer that fits the ask's kind (SPEC A15), or None when the check will not answer it.
/// `variant` 1 picks another option or other words where the ask has them, so a second answer
/// differs from the first and "the first outcome" can be told apart (SPEC A7). A permission is
/// only ever denied.
pub(super) fn answer_for(ask: &Value, variant: usize) -> Option<Value> {
    let kind = ask.get("kind")?.as_str()?;
    let body = ask.get(kind)?;
    let options = |body: &Value| -> Vec<String> {
        body.get("options")
            .and_then(Value::as_array)
            .map(|options| {
                options
                    .iter()
                    .filter_map(|o| o.get("id")?.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    match kind {
        "choice" => {
            let options = options(body);
            let pick = options.get(variant).or_else(|| options.first())?;
            Some(json!({"optionId": pick}))
        }
        "text" => Some(json!({"text": format!("{ANSWER_TEXT} ({})", variant + 1)})),
        "permission" => {
            let deny = body
                .get("options")?
                .as_array()?
                .iter()
                .find(|o| o.get("effect").and_then(Value::as_str) == Some("deny"))?;
            Some(json!({"optionId": deny.get("id")?.as_str()?}))
        }
        "form" => {
            let mut values = Map::new();
            for field in body.get("fields")?.as_array()? {
                let id = field.get("id")?.as_str()?;
                let required = field.get("required").and_then(Value::as_bool) == Some(true);
                match field_value(field, variant) {
                    Some(value) => {
                        values.insert(id.to_string(), value);
                    }
                    None if required => return None,
                    None => {}
                }
            }
            Some(json!({"values": values}))
        }
        _ => None,
    }
}

/// A value for one form field: its default when that fits, else a plain one of its kind.
fn field_value(field: &Value, variant: usize) -> Option<Value> {
    let kind = field.get("kind")?.as_str()?;
    let options: Vec<&str> = field
        .get("options")
        .and_then(Value::as_array)
        .map(|options| {
            options
                .iter()
                .filter_map(|o| o.get("id")?.as_str())
                .collect()
        })
        .unwrap_or_default();
    let default = field.get("default").filter(|d| !d.is_null());
    match kind {
        "text" => Some(json!(format!("{ANSWER_TEXT} ({})", variant + 1))),
        "boolean" => Some(
            default
                .filter(|d| d.is_boolean())
                .cloned()
                .unwrap_or(json!(false)),
        ),
        "number" => Some(
            default
                .filter(|d| d.is_number())
                .cloned()
                .unwrap_or(json!(0)),
        ),
        "choice" => {
            let fits = default
                .and_then(Value::as_str)
                .filter(|d| options.contains(d));
            fits.or_else(|| options.first().copied())
                .map(|id| json!(id))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot() -> Value {
        json!({"epoch": "e", "rev": 3, "workspaces": [{"id": "w", "title": "W", "tabs": [{"id": "t", "title": "T", "panes": [
            {"id": "p1", "title": "P", "state": "waiting", "turn": {"id": "p1.t1", "state": "running"}, "asks": [
                {"id": "a-perm", "revision": 1, "kind": "permission", "title": "shell: ls",
                 "permission": {"tool": "shell", "arguments": {}, "options": [
                     {"id": "allow-once", "label": "Allow", "effect": "allow"},
                     {"id": "no", "label": "Deny", "effect": "deny"}]}},
                {"id": "a-allow-only", "revision": 1, "kind": "permission", "title": "shell: rm",
                 "permission": {"tool": "shell", "arguments": {}, "options": [
                     {"id": "allow-once", "label": "Allow", "effect": "allow"}]}}]},
            {"id": "p2", "title": "Q", "state": "waiting", "asks": [
                {"id": "a-form", "revision": 2, "kind": "form", "title": "F", "form": {"fields": [
                    {"id": "env", "label": "Env", "kind": "choice", "required": true,
                     "options": [{"id": "s", "label": "S"}, {"id": "p", "label": "P"}], "default": "p"},
                    {"id": "n", "label": "N", "kind": "number", "required": true},
                    {"id": "x", "label": "X", "kind": "colour"}]}},
                {"id": "a-choice", "revision": 1, "kind": "choice", "title": "C",
                 "choice": {"options": [{"id": "o1", "label": "1"}, {"id": "o2", "label": "2"}]}}]}]}]}]})
    }

    #[test]
    fn a15_gentlest_first_and_never_an_allow() {
        let asks = answerable(&snapshot());
        let ids: Vec<&str> = asks.iter().map(OpenAsk::id).collect();
        assert_eq!(ids, ["a-choice", "a-form", "a-perm"]);
        assert!(asks[2].turn_is_running());
        assert!(!asks[0].turn_is_running());
        assert_eq!(answer_for(&asks[2].ask, 0), Some(json!({"optionId": "no"})));
    }

    #[test]
    fn a7_second_answer_differs_where_it_can() {
        let asks = answerable(&snapshot());
        assert_eq!(answer_for(&asks[0].ask, 0), Some(json!({"optionId": "o1"})));
        assert_eq!(answer_for(&asks[0].ask, 1), Some(json!({"optionId": "o2"})));
        assert_eq!(
            answer_for(&asks[1].ask, 0),
            Some(json!({"values": {"env": "p", "n": 0}}))
        );
    }

    #[test]
    fn panes_in_order() {
        assert_eq!(pane_ids(&snapshot()), ["p1", "p2"]);
        assert_eq!(pane_ids(&json!({})), Vec::<String>::new());
    }
}
