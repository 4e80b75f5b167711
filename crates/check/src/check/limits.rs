//! SPEC L on what the agent sends, checked on its real replies, read raw (never through
//! `wire::decode`, which already cuts and drops). One row of the report per limit, each under
//! its own id so `agent --break` can break exactly one:
//!
//! | id | SPEC L row |
//! |---|---|
//! | `L.layout` | workspaces / tabs / panes per snapshot: 64 / 256 / 256 |
//! | `L.open-asks` | open asks per pane: 50 (snapshot and views) |
//! | `L.ask-options` | options of a permission: 6; of a choice and of a choice field: 8; of a form: 2 |
//! | `L.form-fields` | fields of a form: 6 |
//! | `L.starters` | starters per snapshot: 50 |
//! | `L.belt` | belt buttons per pane: 4, label 16 characters |
//! | `L.settings` | settings per pane: 8, choices per setting: 32; commands per pane: 64; a usage's currency: 8 bytes |
//! | `L.id` | an id: 1–128 bytes, no control char, no whitespace, none of `/ ? #` |
//! | `L.reply-size` | replies: hello 16 KiB, snapshot 4 MiB, events 8 MiB, conversations 1 MiB, items 8 MiB, a POST 16 KiB |
//! | `L.events` | events per reply: 1000; a view: at most the 2000 newest items |
//! | `L.item-text` | text of a user, reply, thinking or notice item: 64 KiB; markdown or code: 32 KiB |
//! | `L.link` | a link item: `https://` only, at most 2048 characters |
//! | `L.history-page` | a history page: 100 conversations, or 1000 items |
//! | `L.cursor` | a history cursor: 512 bytes of printable ASCII, no space |
//! | `L1` | no control or invisible characters in any string (no terminal escapes) |
//!
//! The rows on what the phone sends (a request body of 64 KiB, text of 32 KiB) are the agent's
//! refusals, checked by W4. Everything is read once (limits_sample.rs) and then judged.

#[path = "limits_sample.rs"]
mod sample;
#[path = "limits_scan.rs"]
mod scan;

use serde_json::Value;

use super::{Finding, Phase, Probe, Rule};
use crate::wire::{self, limits};
use sample::{Route, Sample};
use scan::{Found, list};

pub(super) const RULES: &[Rule] = &[Rule {
    id: "L",
    title: "every limit of docs/SPEC.md § Limits on what the agent sends",
    phase: Phase::Ready,
    run: l,
}];

/// How many offenders a failure names before it just counts the rest.
const NAMED_AT_MOST: usize = 3;

fn l(probe: &Probe) -> Vec<Finding> {
    let sample = Sample::collect(probe);
    let mut findings = vec![
        layout(&sample),
        open_asks(&sample),
        ask_options(&sample),
        form_fields(&sample),
        starters(&sample),
        belt(&sample),
        settings(&sample),
        ids(&sample),
        reply_size(&sample),
        events(&sample),
        item_text(&sample),
        link(&sample),
    ];
    if sample.history {
        findings.push(history_page(&sample));
        findings.push(cursor(&sample));
    } else {
        let why = "the agent offers no history (caps.history is not true), so no page was read";
        findings.push(Finding::skipped("L.history-page", HISTORY_PAGE, why));
        findings.push(Finding::skipped("L.cursor", CURSOR, why));
    }
    findings.push(clean_strings(&sample));
    findings
}

/// Pass when nothing broke the limit, else a failure naming the first few offenders. When
/// nothing was there to count, `what` says so (a limit nothing came near is still kept).
fn judged(rule: &'static str, what: String, problems: Vec<String>) -> Finding {
    if problems.is_empty() {
        return Finding::pass(rule, what);
    }
    let mut why: Vec<String> = problems.iter().take(NAMED_AT_MOST).cloned().collect();
    if problems.len() > NAMED_AT_MOST {
        why.push(format!("and {} more", problems.len() - NAMED_AT_MOST));
    }
    Finding::fail(rule, what, why.join("; "))
}

/// How much a check read, so a limit nothing came near says so rather than passing silently:
/// " (no links seen)", " (1 snapshot read)", " (20 buttons read)".
fn seen(count: usize, one: &str, many: &str) -> String {
    match count {
        0 => format!(" (no {many} seen)"),
        1 => format!(" (1 {one} read)"),
        n => format!(" ({n} {many} read)"),
    }
}

fn count_over(found: &Found<'_>, key: &str, limit: usize, things: &str) -> Option<String> {
    let count = list(found.value, key).len();
    (count > limit).then(|| format!("{} holds {count} {things}, at most {limit}", found.place))
}

fn layout(sample: &Sample) -> Finding {
    let mut problems = Vec::new();
    let mut snapshots = 0;
    for seen in sample.bodies(Route::Snapshot) {
        snapshots += 1;
        let workspaces = list(&seen.body, "workspaces");
        let tabs: usize = workspaces.iter().map(|w| list(w, "tabs").len()).sum();
        let panes = scan::snapshot_panes(&seen.body).len();
        for (count, limit, things) in [
            (workspaces.len(), limits::MAX_WORKSPACES, "workspaces"),
            (tabs, limits::MAX_TABS, "tabs"),
            (panes, limits::MAX_PANES, "panes"),
        ] {
            if count > limit {
                problems.push(format!(
                    "{} holds {count} {things}, at most {limit}",
                    seen.request
                ));
            }
        }
    }
    judged(
        "L.layout",
        format!(
            "a snapshot holds at most 64 workspaces, 256 tabs and 256 panes{}",
            seen(snapshots, "snapshot", "snapshots")
        ),
        problems,
    )
}

fn open_asks(sample: &Sample) -> Finding {
    let mut problems = Vec::new();
    let mut lists = 0;
    let most = limits::MAX_OPEN_ASKS_PER_PANE;
    for pane in scan::panes(sample) {
        lists += 1;
        problems.extend(count_over(&pane, "asks", most, "open asks"));
    }
    for seen in sample.bodies(Route::Events) {
        if let Some(view) = seen.body.get("view") {
            lists += 1;
            let view = Found {
                place: format!("{}: view", seen.request),
                value: view,
            };
            problems.extend(count_over(&view, "asks", most, "open asks"));
        }
    }
    judged(
        "L.open-asks",
        format!(
            "a pane lists at most {most} open asks, in the snapshot and in its view{}",
            seen(lists, "pane or view", "panes and views")
        ),
        problems,
    )
}

fn ask_options(sample: &Sample) -> Finding {
    let mut problems = Vec::new();
    let asks = scan::asks(sample);
    for ask in &asks {
        let kind = ask.value.get("kind").and_then(Value::as_str).unwrap_or("");
        let Some(body) = ask.value.get(kind) else {
            continue;
        };
        let body = Found {
            place: format!("{}.{kind}", ask.place),
            value: body,
        };
        match kind {
            "permission" => problems.extend(count_over(
                &body,
                "options",
                limits::MAX_PERMISSION_OPTIONS,
                "options",
            )),
            "choice" => problems.extend(count_over(
                &body,
                "options",
                limits::MAX_CHOICE_OPTIONS,
                "options",
            )),
            "form" => {
                problems.extend(count_over(
                    &body,
                    "options",
                    limits::MAX_FORM_OPTIONS,
                    "options",
                ));
                for (f, field) in list(body.value, "fields").iter().enumerate() {
                    let field = Found {
                        place: format!("{}.fields[{f}]", body.place),
                        value: field,
                    };
                    problems.extend(count_over(
                        &field,
                        "options",
                        limits::MAX_CHOICE_OPTIONS,
                        "options",
                    ));
                }
            }
            _ => {}
        }
    }
    judged(
        "L.ask-options",
        format!(
            "a permission has at most {} options, a choice and a choice field at most {}, a form at most {}{}",
            limits::MAX_PERMISSION_OPTIONS,
            limits::MAX_CHOICE_OPTIONS,
            limits::MAX_FORM_OPTIONS,
            seen(asks.len(), "ask", "asks")
        ),
        problems,
    )
}

fn form_fields(sample: &Sample) -> Finding {
    let forms: Vec<Found<'_>> = scan::asks(sample)
        .into_iter()
        .filter(|ask| ask.value.get("kind").and_then(Value::as_str) == Some("form"))
        .filter_map(|ask| {
            Some(Found {
                place: format!("{}.form", ask.place),
                value: ask.value.get("form")?,
            })
        })
        .collect();
    let problems = forms
        .iter()
        .filter_map(|form| count_over(form, "fields", limits::MAX_FORM_FIELDS, "fields"))
        .collect();
    judged(
        "L.form-fields",
        format!(
            "a form has at most {} fields{}",
            limits::MAX_FORM_FIELDS,
            seen(forms.len(), "form", "forms")
        ),
        problems,
    )
}

fn starters(sample: &Sample) -> Finding {
    let mut problems = Vec::new();
    let mut count = 0;
    for seen in sample.bodies(Route::Snapshot) {
        let snapshot = Found {
            place: seen.request.clone(),
            value: &seen.body,
        };
        count += list(&seen.body, "starters").len();
        problems.extend(count_over(
            &snapshot,
            "starters",
            limits::MAX_STARTERS,
            "starters",
        ));
    }
    judged(
        "L.starters",
        format!(
            "a snapshot holds at most {} starters{}",
            limits::MAX_STARTERS,
            seen(count, "starter", "starters")
        ),
        problems,
    )
}

fn settings(sample: &Sample) -> Finding {
    let mut problems = Vec::new();
    let mut seen_settings = 0;
    for pane in scan::panes(sample) {
        problems.extend(count_over(
            &pane,
            "settings",
            limits::MAX_SETTINGS,
            "settings",
        ));
        problems.extend(count_over(
            &pane,
            "commands",
            limits::MAX_COMMANDS,
            "commands",
        ));
        if let Some(usage) = pane.value.get("usage") {
            problems.extend(usage_problem(&pane.place, usage));
        }
        for (s, setting) in list(pane.value, "settings").iter().enumerate() {
            seen_settings += 1;
            let choices = list(setting, "choices").len();
            if choices > limits::MAX_SETTING_CHOICES {
                problems.push(format!(
                    "{}.settings[{s}] holds {choices} choices, at most {}",
                    pane.place,
                    limits::MAX_SETTING_CHOICES
                ));
            }
        }
    }
    judged(
        "L.settings",
        format!(
            "a pane has at most {} settings of at most {} choices, at most {} commands, and a usage of whole token counts and a cost in a currency of at most 8 bytes{}",
            limits::MAX_SETTINGS,
            limits::MAX_SETTING_CHOICES,
            limits::MAX_COMMANDS,
            seen(seen_settings, "setting", "settings")
        ),
        problems,
    )
}

/// A pane's `usage` (docs/WIRE.md § 5.15): `used` and `size` whole numbers, a cost's amount a
/// number of at least 0 and its currency a string of at most 8 bytes.
fn usage_problem(place: &str, usage: &Value) -> Option<String> {
    let whole = |key: &str| usage.get(key).is_some_and(Value::is_u64);
    if !whole("used") || !whole("size") {
        return Some(format!(
            "{place}.usage needs used and size as whole numbers: {usage}"
        ));
    }
    let cost = usage.get("cost")?;
    let amount = cost.get("amount").and_then(Value::as_f64);
    let currency = cost.get("currency").and_then(Value::as_str);
    match (amount, currency) {
        (Some(a), Some(c)) if a >= 0.0 && !c.is_empty() && c.len() <= 8 => None,
        _ => Some(format!(
            "{place}.usage.cost needs an amount of at least 0 and a currency of 1–8 bytes: {cost}"
        )),
    }
}

fn belt(sample: &Sample) -> Finding {
    let mut problems = Vec::new();
    let mut buttons = 0;
    for pane in scan::panes(sample) {
        problems.extend(count_over(
            &pane,
            "belt",
            limits::MAX_BELT_BUTTONS,
            "belt buttons",
        ));
        for (b, button) in list(pane.value, "belt").iter().enumerate() {
            buttons += 1;
            let label = button.get("label").and_then(Value::as_str).unwrap_or("");
            let chars = label.chars().count();
            if chars > limits::MAX_BELT_LABEL_CHARS {
                problems.push(format!(
                    "{}.belt[{b}].label {label:?} has {chars} characters, at most {}",
                    pane.place,
                    limits::MAX_BELT_LABEL_CHARS
                ));
            }
        }
    }
    judged(
        "L.belt",
        format!(
            "a pane has at most {} belt buttons, each label at most {} characters{}",
            limits::MAX_BELT_BUTTONS,
            limits::MAX_BELT_LABEL_CHARS,
            seen(buttons, "button", "buttons")
        ),
        problems,
    )
}

fn ids(sample: &Sample) -> Finding {
    let ids = scan::ids(sample);
    let problems = ids
        .iter()
        .filter_map(|found| match found.value {
            Value::String(id) => wire::check_id(id)
                .err()
                .map(|why| format!("{} is {id:?}: {why}", found.place)),
            Value::Null => None,
            other => Some(format!("{} is {other}, expected a string id", found.place)),
        })
        .collect();
    judged(
        "L.id",
        format!(
            "every id is 1–{} bytes with no control character, no whitespace and none of / ? #{}",
            limits::MAX_ID_BYTES,
            seen(ids.len(), "id", "ids")
        ),
        problems,
    )
}

fn reply_size(sample: &Sample) -> Finding {
    let problems: Vec<String> = sample
        .over_cap
        .iter()
        .map(|(request, cap)| {
            format!("{request} got a reply over {cap} bytes, which Collie stops reading and never uses (docs/SPEC.md § The wire)")
        })
        .collect();
    let largest: Vec<String> = Route::ALL
        .iter()
        .filter_map(|route| {
            let most = sample
                .seen
                .iter()
                .filter(|seen| seen.route == *route)
                .map(|seen| seen.size)
                .max()?;
            Some(format!("{} {}", route.name(), kib(most)))
        })
        .collect();
    let mut what = "replies stay within hello 16 KiB, snapshot 4 MiB, events 8 MiB, conversations 1 MiB, items 8 MiB, a POST 16 KiB".to_string();
    if !largest.is_empty() {
        what.push_str(&format!(" (largest read: {})", largest.join(", ")));
    }
    if !sample.posted {
        what.push_str(" (no POST reply read: that needs --allow-writes)");
    }
    judged("L.reply-size", what, problems)
}

fn kib(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KiB", bytes as f64 / KIB),
        _ => format!("{:.1} MiB", bytes as f64 / KIB / KIB),
    }
}

fn events(sample: &Sample) -> Finding {
    let mut problems = Vec::new();
    let mut replies = 0;
    for seen in sample.bodies(Route::Events) {
        replies += 1;
        let reply = Found {
            place: seen.request.clone(),
            value: &seen.body,
        };
        problems.extend(count_over(
            &reply,
            "events",
            limits::MAX_EVENTS_PER_REPLY,
            "events",
        ));
        if let Some(view) = seen.body.get("view") {
            let view = Found {
                place: format!("{}: view", seen.request),
                value: view,
            };
            problems.extend(count_over(&view, "items", limits::MAX_VIEW_ITEMS, "items"));
        }
    }
    judged(
        "L.events",
        format!(
            "an events reply holds at most {} events, a view at most {} items{}",
            limits::MAX_EVENTS_PER_REPLY,
            limits::MAX_VIEW_ITEMS,
            seen(replies, "events reply", "events replies")
        ),
        problems,
    )
}

fn item_text(sample: &Sample) -> Finding {
    let items = scan::items(sample);
    let problems = items
        .iter()
        .filter_map(|item| {
            let kind = item.value.get("kind").and_then(Value::as_str).unwrap_or("");
            let text = item.value.get("text").and_then(Value::as_str)?;
            // Links carry no text; unknown kinds get the chat limit (docs/WIRE.md §5.7).
            let limit = match kind {
                "markdown" | "code" => limits::MAX_DOC_TEXT,
                _ => limits::MAX_CHAT_TEXT,
            };
            (text.len() > limit).then(|| {
                format!(
                    "{} ({kind}) has {} bytes of text, at most {limit}",
                    item.place,
                    text.len()
                )
            })
        })
        .collect();
    judged(
        "L.item-text",
        format!(
            "item text is at most 64 KiB (user, reply, thinking, notice) or 32 KiB (markdown, code){}",
            seen(items.len(), "item", "items")
        ),
        problems,
    )
}

fn link(sample: &Sample) -> Finding {
    let links: Vec<Found<'_>> = scan::items(sample)
        .into_iter()
        .filter(|item| item.value.get("kind").and_then(Value::as_str) == Some("link"))
        .collect();
    let problems = links
        .iter()
        .filter_map(|item| match item.value.get("url").and_then(Value::as_str) {
            None => Some(format!("{} has no url", item.place)),
            Some(url) if !wire::is_https_url(url) => Some(format!(
                "{} points at {url:?}, expected https:// with a host",
                item.place
            )),
            Some(url) if url.chars().count() > limits::MAX_LINK_CHARS => Some(format!(
                "{} has a url of {} characters, at most {}",
                item.place,
                url.chars().count(),
                limits::MAX_LINK_CHARS
            )),
            Some(_) => None,
        })
        .collect();
    judged(
        "L.link",
        format!(
            "a link item is https:// with a host and at most {} characters{}",
            limits::MAX_LINK_CHARS,
            seen(links.len(), "link", "links")
        ),
        problems,
    )
}

const HISTORY_PAGE: &str =
    "a history page holds at most 100 conversations or 1000 items, and no more than asked";

fn history_page(sample: &Sample) -> Finding {
    let mut problems = Vec::new();
    let mut pages = 0;
    for (route, key, most) in [
        (
            Route::Conversations,
            "conversations",
            limits::MAX_CONVERSATIONS_PAGE,
        ),
        (Route::Items, "items", limits::MAX_ITEMS_PAGE),
    ] {
        for seen in sample.bodies(route) {
            pages += 1;
            let count = list(&seen.body, key).len();
            let asked = seen.asked.unwrap_or(most).min(most);
            if count > asked {
                problems.push(format!(
                    "{} holds {count} {key} for limit={asked}; a page over the limit is not read at all",
                    seen.request
                ));
            }
        }
    }
    judged(
        "L.history-page",
        format!("{HISTORY_PAGE}{}", seen(pages, "page", "pages")),
        problems,
    )
}

const CURSOR: &str = "a history cursor (next) is 1–512 bytes of printable ASCII without spaces";

fn cursor(sample: &Sample) -> Finding {
    let mut problems = Vec::new();
    let mut cursors = 0;
    for seen in sample
        .bodies(Route::Conversations)
        .chain(sample.bodies(Route::Items))
    {
        match seen.body.get("next") {
            None | Some(Value::Null) => {}
            Some(Value::String(next)) => {
                cursors += 1;
                if !wire::check_cursor(next) {
                    problems.push(format!("{} gave next {next:?}", seen.request));
                }
            }
            Some(other) => {
                cursors += 1;
                problems.push(format!(
                    "{} gave next {other}, expected a string",
                    seen.request
                ));
            }
        }
    }
    judged(
        "L.cursor",
        format!("{CURSOR}{}", seen(cursors, "cursor", "cursors")),
        problems,
    )
}

fn clean_strings(sample: &Sample) -> Finding {
    judged(
        "L1",
        format!(
            "no string holds a control or invisible character (line breaks and tabs only in text, prompts, descriptions and free JSON){}",
            seen(sample.seen.len(), "reply", "replies")
        ),
        scan::invisible(sample),
    )
}
