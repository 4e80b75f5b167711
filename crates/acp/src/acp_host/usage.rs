//! What an agent says of its session besides the chat: `usage_update` (the context used, the
//! window's size, the cost) as the pane's `usage`, and `session_info_update`'s title as the
//! pane's and its conversation's title, cleaned and cut (SPEC L1; docs/ACP.md, "Usage and
//! titles").

use agent_client_protocol::schema::MaybeUndefined;
use agent_client_protocol::v1::schema::{SessionInfoUpdate, UsageUpdate};

use super::text::clean_line;
use crate::wire::sanitize::cut_to_columns;
use crate::wire::tool_input::TITLE_COLUMNS;
use crate::wire::{Cost, Usage};

/// A `usage_update` as the pane's usage; a cost that is no finite, non-negative amount or has
/// no currency is left out.
pub(crate) fn usage(update: &UsageUpdate) -> Usage {
    let cost = update.cost.as_ref().and_then(|cost| {
        let currency: String = clean_line(&cost.currency).chars().take(8).collect();
        (cost.amount.is_finite() && cost.amount >= 0.0 && !currency.is_empty()).then_some(Cost {
            amount: cost.amount,
            currency,
        })
    });
    Usage {
        used: update.used,
        size: update.size,
        cost,
    }
}

/// The title a `session_info_update` gives, one clean line of at most 80 columns; `None` when
/// it gives none (a `null` title leaves the pane's as it is).
pub(crate) fn title(update: &SessionInfoUpdate) -> Option<String> {
    match &update.title {
        MaybeUndefined::Value(title) => {
            let title = cut_to_columns(clean_line(title).trim(), TITLE_COLUMNS);
            (!title.is_empty()).then_some(title)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_keeps_tokens_and_a_clean_cost() {
        let update: UsageUpdate = serde_json::from_value(serde_json::json!({
            "used": 43000, "size": 200000, "cost": {"amount": 0.42, "currency": "USD"}
        }))
        .expect("a usage update");
        assert_eq!(usage(&update).words(), "43k of 200k tokens · 21 % · $0.42");
        let bad: UsageUpdate = serde_json::from_value(serde_json::json!({
            "used": 1, "size": 2, "cost": {"amount": -3.0, "currency": "USD"}
        }))
        .expect("a usage update");
        assert_eq!(usage(&bad).cost, None);
    }

    #[test]
    fn l1_a_title_is_one_clean_line_of_80_columns() {
        let update: SessionInfoUpdate = serde_json::from_value(serde_json::json!({
            "title": format!("Fix \u{1b}]0;pwned\u{7}the 登录 bug 🐛\n{}", "x".repeat(200))
        }))
        .expect("a session info update");
        let title = title(&update).expect("a title");
        assert!(
            title.starts_with("Fix ]0;pwnedthe 登录 bug 🐛xxx"),
            "{title}"
        );
        assert!(!title.contains('\u{1b}') && !title.contains('\n'));
        assert_eq!(unicode_width::UnicodeWidthStr::width(title.as_str()), 80);
        let null: SessionInfoUpdate =
            serde_json::from_value(serde_json::json!({"title": null})).expect("an update");
        assert_eq!(super::title(&null), None);
    }
}
