//! Property tests of the wire decoders (SPEC L, L1, A12, H5, V2, V3, W7).
//!
//! An agent is untrusted input: whatever it sends, decoding must not panic, and whatever it
//! decodes to must respect every limit of SPEC L. The generators below build replies full of
//! what a hostile or careless agent sends: escape sequences, bidi overrides, zero-width and tag
//! characters, noncharacters, over-long strings and lists, and ids that break SPEC L.

use collie_phone::wire::limits::*;
use collie_phone::wire::sanitize::{Lines, is_invisible};
use collie_phone::wire::{
    self, Ask, ConversationsPage, DecodeError, ErrorBody, Event, EventType, EventsReply, Hello,
    Item, ItemKind, ItemsPage, Outcome, PostReply, Snapshot, check_cursor, check_id,
};
use proptest::prelude::*;
use serde_json::{Value, json};

// ----- strategies: strings ------------------------------------------------------------------

/// A short run of characters, chosen to hit every class the cleaner knows and some it keeps.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-zA-Z0-9 .,:;!?_-]{0,12}",
        1 => Just("\u{1b}[2J\u{1b}[H".to_string()),        // clear screen, home
        1 => Just("\u{1b}]0;pwned\u{7}".to_string()),       // OSC title
        1 => Just("\u{9b}31m".to_string()),                 // C1 CSI
        1 => Just("\u{202e}evil\u{202c}".to_string()),      // bidi override
        1 => Just("\u{2066}\u{2069}\u{200f}".to_string()),  // isolates, RLM
        1 => Just("\u{200b}\u{feff}\u{ad}\u{2060}".to_string()), // zero-width, BOM, soft hyphen
        1 => Just("\u{e0041}\u{e007f}".to_string()),        // tag characters
        1 => Just("\u{fffe}\u{10ffff}\u{fdd0}".to_string()), // noncharacters
        1 => Just("\u{2028}\u{2029}\u{85}".to_string()),    // line separators, NEL
        1 => Just("\n\t\r\u{0}\u{7f}".to_string()),
        2 => Just("工作区测试".to_string()),
        2 => Just("👩\u{200d}💻✔\u{fe0f}".to_string()),    // joiner and selector stay
        2 => any::<char>().prop_map(String::from),
    ]
}

/// A string of a few pieces.
fn nasty() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..6).prop_map(|pieces| pieces.concat())
}

/// A string that is now and then over the limits of titles, labels and prompts (a few KiB).
fn maybe_long() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => nasty(),
        1 => (nasty(), 1..200usize).prop_map(|(s, n)| s.repeat(n)),
        1 => (piece(), 1..1_000usize).prop_map(|(s, n)| s.repeat(n)),
    ]
}

/// Item text: now and then over the 32 KiB and 64 KiB limits of items (SPEC L).
fn long_text() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => maybe_long(),
        1 => (piece(), 1..12_000usize).prop_map(|(s, n)| s.repeat(n)),
    ]
}

/// A length for a list that is now and then just past its cap.
fn length(small: usize, cap: usize) -> impl Strategy<Value = usize> {
    prop_oneof![6 => 0..small, 1 => cap.saturating_sub(2)..cap + 40]
}

/// Mostly good ids, and every way an id can break SPEC L.
fn id() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "[a-z][a-z0-9-]{0,11}",
        1 => Just(String::new()),
        1 => Just("a b".to_string()),
        1 => Just("a/b".to_string()),
        1 => Just("a?b#c".to_string()),
        1 => Just("a\u{1b}b".to_string()),
        1 => Just("x".repeat(129)),
        1 => Just("x".repeat(128)),
        1 => Just("工作".to_string()),
        1 => Just("a\u{a0}b".to_string()),
    ]
}

fn cursor() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[!-~]{1,40}",
        1 => Just(String::new()),
        1 => Just("a b".to_string()),
        1 => Just("é".to_string()),
        1 => Just("c".repeat(513)),
    ]
}

fn time_text() -> impl Strategy<Value = String> {
    prop_oneof![3 => Just("2026-11-29T23:30:00Z".to_string()), 1 => nasty()]
}

/// A JSON value of any shape, for arguments, form defaults and answer values.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        maybe_long().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(nasty(), inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Repeats a list's entries until it has `len` of them (for lists over their cap). The copies
/// carry short strings: the originals already test the string limits, and hundreds of copies of
/// a 64 KiB text would only make the suite slow.
fn stretch(list: Vec<Value>, len: usize) -> Vec<Value> {
    if list.is_empty() {
        return list;
    }
    let originals = list.len();
    let copies: Vec<Value> = list
        .iter()
        .cycle()
        .take(len.saturating_sub(originals))
        .map(|entry| {
            let mut copy = entry.clone();
            shorten_strings(&mut copy);
            copy
        })
        .collect();
    list.into_iter().chain(copies).collect()
}

fn shorten_strings(value: &mut Value) {
    match value {
        Value::String(s) if s.len() > 64 => {
            let cut = s.char_indices().nth(16).map_or(s.len(), |(at, _)| at);
            s.truncate(cut);
        }
        Value::Array(items) => items.iter_mut().for_each(shorten_strings),
        Value::Object(map) => map.values_mut().for_each(shorten_strings),
        _ => {}
    }
}

// ----- strategies: shapes ------------------------------------------------------------------

fn option() -> BoxedStrategy<Value> {
    (
        id(),
        maybe_long(),
        prop::option::of(prop_oneof![
            Just("allow"),
            Just("deny"),
            Just("allow-always"),
            Just("maybe")
        ]),
    )
        .prop_map(|(id, label, effect)| match effect {
            Some(effect) => json!({"id": id, "label": label, "effect": effect}),
            None => json!({"id": id, "label": label}),
        })
        .boxed()
}

/// Options, now and then past their cap: the stretched ones are copies, as a careless agent sends.
fn options(cap: usize) -> impl Strategy<Value = Vec<Value>> {
    (prop::collection::vec(option(), 0..4), length(4, cap))
        .prop_map(|(list, len)| stretch(list, len))
}

fn fields() -> impl Strategy<Value = Vec<Value>> {
    (
        prop::collection::vec(field(), 0..3),
        length(3, MAX_FORM_FIELDS),
    )
        .prop_map(|(list, len)| stretch(list, len))
}

fn field() -> BoxedStrategy<Value> {
    (
        id(),
        maybe_long(),
        prop_oneof![Just("text"), Just("choice"), Just("boolean"), Just("number"), Just("colour")],
        any::<bool>(),
        options(MAX_CHOICE_OPTIONS),
        prop::option::of(any_json()),
    )
        .prop_map(|(id, label, kind, required, options, default)| {
            let mut field = json!({"id": id, "label": label, "kind": kind, "required": required, "options": options});
            if let Some(default) = default {
                field["default"] = default;
            }
            field
        }).boxed()
}

/// An ask of any kind with every body, so each body's cleaning is exercised (SPEC A15, V3).
fn ask_with(id: BoxedStrategy<String>) -> BoxedStrategy<Value> {
    let bodies = (
        (maybe_long(), any_json(), options(MAX_PERMISSION_OPTIONS)),
        (prop::option::of(maybe_long()), options(MAX_CHOICE_OPTIONS)),
        (
            prop::option::of(maybe_long()),
            prop::option::of(maybe_long()),
            any::<bool>(),
        ),
        (prop::option::of(maybe_long()), fields()),
        0..4usize,
    );
    (
        id,
        any::<u64>(),
        prop_oneof![Just("permission"), Just("choice"), Just("text"), Just("form"), Just("drawing")],
        maybe_long(),
        prop::option::of(time_text()),
        prop::option::of(time_text()),
        bodies,
    )
        .prop_map(|(id, revision, kind, title, opened, expires, bodies)| {
            let ((tool, arguments, perm_options), (cprompt, coptions), (tprompt, placeholder, multiline), (fprompt, fields), which) =
                bodies;
            let mut ask = json!({"id": id, "revision": revision, "kind": kind, "title": title, "extra": {"future": true}});
            if let Some(opened) = opened {
                ask["openedAt"] = json!(opened);
            }
            if let Some(expires) = expires {
                ask["expiresAt"] = json!(expires);
            }
            // Usually the body the kind names, sometimes another one too: a reader must cope.
            let permission = json!({"tool": tool, "arguments": arguments, "options": perm_options});
            let choice = json!({"prompt": cprompt, "options": coptions});
            let text = json!({"prompt": tprompt, "placeholder": placeholder, "multiline": multiline});
            let form = json!({"prompt": fprompt, "fields": fields});
            match (kind, which) {
                ("permission", _) | (_, 0) => ask["permission"] = permission,
                ("choice", _) | (_, 1) => ask["choice"] = choice,
                ("text", _) | (_, 2) => ask["text"] = text,
                _ => ask["form"] = form,
            }
            if which == 3 {
                ask["choice"] = json!({"options": []});
            }
            // JSON null for an optional string is the same as absent.
            strip_nulls(&mut ask);
            ask
        }).boxed()
}

fn ask() -> BoxedStrategy<Value> {
    ask_with(id().boxed())
}

fn strip_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(strip_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_nulls),
        _ => {}
    }
}

fn turn() -> BoxedStrategy<Value> {
    (
        id(),
        prop_oneof![
            Just("running"),
            Just("done"),
            Just("aborted"),
            Just("failed"),
            Just("paused")
        ],
    )
        .prop_map(|(id, state)| json!({"id": id, "state": state}))
        .boxed()
}

fn pane_state() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("starting"),
        Just("running"),
        Just("waiting"),
        Just("idle"),
        Just("failed"),
        Just("dreaming")
    ]
}

fn pane() -> BoxedStrategy<Value> {
    (
        id(),
        maybe_long(),
        pane_state(),
        prop::option::of(turn()),
        prop::option::of(id()),
        prop::collection::vec((id(), maybe_long()).prop_map(|(id, label)| json!({"id": id, "label": label})), 0..7),
        prop::collection::vec(ask(), 0..3),
        prop::collection::vec(setting(), 0..10),
        prop::collection::vec(command(), 0..3),
    )
        .prop_map(|(id, title, state, turn, conversation, belt, asks, settings, commands)| {
            let mut pane = json!({"id": id, "title": title, "state": state, "turn": turn, "belt": belt, "asks": asks,
                                  "settings": settings, "commands": commands});
            if let Some(conversation) = conversation {
                pane["conversationId"] = json!(conversation);
            }
            pane
        }).boxed()
}

/// A setting of a pane (docs/WIRE.md § 5.13): hostile names, bad ids, past its caps of choices.
fn setting() -> BoxedStrategy<Value> {
    (
        id(),
        maybe_long(),
        id(),
        prop::collection::vec((id(), maybe_long(), any::<bool>()), 0..36),
    )
        .prop_map(|(id, name, current, choices)| {
            let choices: Vec<Value> = choices
                .into_iter()
                .map(|(id, name, unattended)| json!({"id": id, "name": name, "description": name, "actsWithoutAsking": unattended}))
                .collect();
            json!({"id": id, "name": name, "current": current, "choices": choices})
        })
        .boxed()
}

/// A command of a pane (docs/WIRE.md § 5.14).
fn command() -> BoxedStrategy<Value> {
    (id(), maybe_long(), maybe_long())
        .prop_map(|(name, description, hint)| json!({"name": name, "description": description, "hint": hint}))
        .boxed()
}

fn starter() -> BoxedStrategy<Value> {
    (id(), maybe_long(), prop::option::of(maybe_long()))
        .prop_map(|(id, title, description)| {
            let mut starter = json!({"id": id, "title": title});
            if let Some(description) = description {
                starter["description"] = json!(description);
            }
            starter
        })
        .boxed()
}

/// Which list a generated snapshot stretches past its cap, and to how many entries.
#[derive(Debug, Clone, Copy)]
enum Blow {
    None,
    Workspaces(usize),
    Tabs(usize),
    Panes(usize),
    Asks(usize),
    Starters(usize),
}

fn blow() -> impl Strategy<Value = Blow> {
    prop_oneof![
        3 => Just(Blow::None),
        1 => length(8, MAX_WORKSPACES).prop_map(Blow::Workspaces),
        1 => length(8, MAX_TABS).prop_map(Blow::Tabs),
        1 => length(8, MAX_PANES).prop_map(Blow::Panes),
        1 => length(8, MAX_OPEN_ASKS_PER_PANE).prop_map(Blow::Asks),
        1 => length(8, MAX_STARTERS).prop_map(Blow::Starters),
    ]
}

fn snapshot_json() -> BoxedStrategy<Value> {
    let tab = (id(), maybe_long(), prop::collection::vec(pane(), 0..3))
        .prop_map(|(id, title, panes)| json!({"id": id, "title": title, "panes": panes}));
    let workspace = (id(), maybe_long(), prop::collection::vec(tab, 0..3))
        .prop_map(|(id, title, tabs)| json!({"id": id, "title": title, "tabs": tabs}));
    (
        nasty(),
        any::<u64>(),
        prop::collection::vec(workspace, 1..4),
        prop::collection::vec(starter(), 0..4),
        blow(),
    )
        .prop_map(|(epoch, rev, workspaces, starters, blow)| {
            let mut snapshot = json!({"epoch": epoch, "rev": rev, "workspaces": workspaces, "starters": starters, "v9": [1]});
            let list = |snapshot: &mut Value, pointer: &str, len: usize| {
                if let Some(Value::Array(entries)) = snapshot.pointer_mut(pointer) {
                    *entries = stretch(std::mem::take(entries), len);
                }
            };
            match blow {
                Blow::None => {}
                Blow::Workspaces(n) => list(&mut snapshot, "/workspaces", n),
                Blow::Tabs(n) => list(&mut snapshot, "/workspaces/0/tabs", n),
                Blow::Panes(n) => list(&mut snapshot, "/workspaces/0/tabs/0/panes", n),
                Blow::Asks(n) => list(&mut snapshot, "/workspaces/0/tabs/0/panes/0/asks", n),
                Blow::Starters(n) => list(&mut snapshot, "/starters", n),
            }
            snapshot
        }).boxed()
}

fn item() -> BoxedStrategy<Value> {
    let url = prop_oneof![
        3 => "https://[a-z]{1,10}\\.example/[a-z0-9/]{0,20}",
        1 => Just("http://plain.example/".to_string()),
        1 => Just("https:///nohost".to_string()),
        1 => Just("javascript:alert(1)".to_string()),
        1 => (1..3000usize).prop_map(|n| format!("https://long.example/{}", "a".repeat(n))),
        1 => nasty().prop_map(|s| format!("https://x.example/{s}")),
    ];
    (
        id(),
        prop_oneof![
            Just("user"),
            Just("reply"),
            Just("thinking"),
            Just("notice"),
            Just("markdown"),
            Just("code"),
            Just("link"),
            Just("hologram")
        ],
        prop::option::of(id()),
        prop::option::of(time_text()),
        long_text(),
        prop::option::of(nasty()),
        prop::option::of(url),
        prop::option::of(maybe_long()),
    )
        .prop_map(|(id, kind, turn_id, at, text, language, url, title)| {
            let mut item = json!({"id": id, "kind": kind, "text": text, "turnId": turn_id, "at": at,
                                  "language": language, "url": url, "title": title});
            strip_nulls(&mut item);
            item
        })
        .boxed()
}

fn outcome() -> BoxedStrategy<Value> {
    (
        prop::option::of(nasty()),
        prop::option::of(maybe_long()),
        prop::option::of(prop::collection::btree_map(nasty(), any_json(), 0..4)),
        maybe_long(),
    )
        .prop_map(|(option_id, text, values, summary)| {
            let mut outcome = json!({"optionId": option_id, "effect": "deny", "text": text, "values": values, "summary": summary});
            strip_nulls(&mut outcome);
            outcome
        }).boxed()
}

fn event() -> BoxedStrategy<Value> {
    (
        any::<u64>(),
        prop_oneof![
            Just("item"), Just("turn"), Just("state"), Just("ask"), Just("ask-changed"), Just("ask-closed"),
            Just("weather")
        ],
        prop::option::of(time_text()),
        prop::option::of(item()),
        prop::option::of(turn()),
        prop::option::of(pane_state()),
        prop::option::of(ask()),
        (prop::option::of(id()), prop::option::of(maybe_long()), prop::option::of(nasty())),
        (prop::option::of(prop_oneof![Just("program"), Just("timeout"), Just("moon")]), prop::option::of(outcome())),
    )
        .prop_map(|(seq, kind, at, item, turn, state, ask, (ask_id, title, by), (decided_by, outcome))| {
            let mut event = json!({"seq": seq, "type": kind, "at": at, "item": item, "turn": turn, "state": state,
                "ask": ask, "askId": ask_id, "title": title, "by": by, "decidedBy": decided_by, "outcome": outcome});
            strip_nulls(&mut event);
            event
        }).boxed()
}

fn events_json() -> BoxedStrategy<Value> {
    (
        nasty(),
        any::<u64>(),
        prop::collection::vec(event(), 0..8),
        length(8, MAX_EVENTS_PER_REPLY),
        any::<bool>(),
        prop::option::of((pane_state(), prop::option::of(turn()), prop::collection::vec(item(), 0..6),
            length(8, MAX_VIEW_ITEMS), prop::collection::vec(ask(), 0..3), length(4, MAX_OPEN_ASKS_PER_PANE))),
    )
        .prop_map(|(epoch, cursor, events, stretch_to, more, view)| {
            let mut reply = json!({"epoch": epoch, "cursor": cursor, "events": stretch(events, stretch_to), "more": more});
            if let Some((state, turn, items, items_to, asks, asks_to)) = view {
                reply["view"] = json!({"state": state, "turn": turn, "items": stretch(items, items_to),
                                       "asks": stretch(asks, asks_to)});
            }
            reply
        }).boxed()
}

fn conversations_json() -> BoxedStrategy<Value> {
    let row = (
        id(),
        maybe_long(),
        prop_oneof![Just("open"), Just("closed"), Just("archived")],
        prop::option::of(id()),
        prop::option::of(time_text()),
        any::<u64>(),
    )
        .prop_map(|(id, title, state, pane_id, updated_at, item_count)| {
            let mut row = json!({"id": id, "title": title, "state": state, "paneId": pane_id,
                                 "updatedAt": updated_at, "itemCount": item_count});
            strip_nulls(&mut row);
            row
        });
    (
        prop::collection::vec(row, 0..6),
        length(6, MAX_CONVERSATIONS_PAGE),
        prop::option::of(cursor()),
    )
        .prop_map(|(rows, len, next)| {
            let mut page = json!({"conversations": stretch(rows, len), "next": next});
            strip_nulls(&mut page);
            page
        })
        .boxed()
}

fn items_json() -> BoxedStrategy<Value> {
    (
        prop::collection::vec(item(), 0..6),
        length(6, MAX_ITEMS_PAGE),
        prop::option::of(cursor()),
    )
        .prop_map(|(items, len, next)| {
            let mut page = json!({"items": stretch(items, len), "next": next});
            strip_nulls(&mut page);
            page
        })
        .boxed()
}

// ----- checks ------------------------------------------------------------------------------

/// One display string: clean of the characters its kind of field may not hold, within its limit.
fn assert_clean(s: &str, max_bytes: usize, lines: Lines, what: &str) {
    assert!(
        s.len() <= max_bytes,
        "{what}: {} bytes, limit {max_bytes}",
        s.len()
    );
    if let Some(bad) = s.chars().find(|&c| is_invisible(c, lines)) {
        panic!("{what}: holds {:?} ({lines:?})", bad);
    }
}

fn assert_clean_opt(s: &Option<String>, max_bytes: usize, lines: Lines, what: &str) {
    if let Some(s) = s {
        assert_clean(s, max_bytes, lines, what);
    }
}

/// A stamp is cleaned like any short text, and its moment is the one its cleaned text names
/// (parsed once at decode, SPEC A13, L1).
fn assert_stamp(stamp: &Option<wire::Stamp>, what: &str) {
    if let Some(stamp) = stamp {
        assert_clean(stamp.text(), MAX_SHORT, Lines::Single, what);
        assert_eq!(stamp.at(), wire::time::parse(stamp.text()), "{what}");
    }
}

fn assert_id(id: &str, what: &str) {
    assert!(check_id(id).is_ok(), "{what}: bad id {id:?}");
}

/// Every string and key inside a JSON value: values may keep line breaks, keys may not.
fn assert_clean_json(value: &Value, what: &str) {
    match value {
        Value::String(s) => assert_clean(s, MAX_ARGUMENTS, Lines::Multi, what),
        Value::Array(items) => items.iter().for_each(|v| assert_clean_json(v, what)),
        Value::Object(map) => {
            for (key, inner) in map {
                // A clean key is kept whole; only a cleaned one is cut.
                assert_clean(key, usize::MAX, Lines::Single, what);
                assert_clean_json(inner, what);
            }
        }
        _ => {}
    }
}

fn check_options(options: &[wire::AskOption], max: usize, what: &str) {
    assert!(options.len() <= max, "{what}: {} options", options.len());
    for option in options {
        assert_id(&option.id, what);
        assert_clean(&option.label, MAX_LABEL, Lines::Single, what);
    }
}

fn check_outcome(outcome: &Outcome) {
    assert_clean(
        &outcome.summary,
        MAX_LABEL,
        Lines::Single,
        "outcome.summary",
    );
    assert_clean_opt(&outcome.text, MAX_PROMPT, Lines::Multi, "outcome.text");
    assert_clean_opt(
        &outcome.option_id,
        MAX_SHORT,
        Lines::Single,
        "outcome.optionId",
    );
    if let Some(values) = &outcome.values {
        for (key, value) in values {
            assert_clean(key, usize::MAX, Lines::Single, "outcome.values key");
            assert_clean_json(value, "outcome.values");
        }
    }
}

fn check_ask(ask: &Ask) {
    assert_id(&ask.id, "ask.id");
    assert_clean(&ask.title, MAX_TITLE, Lines::Single, "ask.title");
    assert_stamp(&ask.opened_at, "ask.openedAt");
    assert_stamp(&ask.expires_at, "ask.expiresAt");
    if let Some(body) = &ask.permission {
        assert_clean(&body.tool, MAX_LABEL, Lines::Single, "permission.tool");
        let size = serde_json::to_vec(&body.arguments)
            .map(|v| v.len())
            .unwrap_or(usize::MAX);
        // Over the cap the arguments become their own cut text: a string of at most the cap.
        let within = size <= MAX_ARGUMENTS
            || body
                .arguments
                .as_str()
                .is_some_and(|s| s.len() <= MAX_ARGUMENTS);
        assert!(within, "permission.arguments: {size} bytes");
        assert_clean_json(&body.arguments, "permission.arguments");
        check_options(&body.options, MAX_PERMISSION_OPTIONS, "permission.options");
    }
    if let Some(body) = &ask.choice {
        assert_clean_opt(&body.prompt, MAX_PROMPT, Lines::Multi, "choice.prompt");
        check_options(&body.options, MAX_CHOICE_OPTIONS, "choice.options");
    }
    if let Some(body) = &ask.text {
        assert_clean_opt(&body.prompt, MAX_PROMPT, Lines::Multi, "text.prompt");
        assert_clean_opt(
            &body.placeholder,
            MAX_LABEL,
            Lines::Single,
            "text.placeholder",
        );
    }
    if let Some(body) = &ask.form {
        assert_clean_opt(&body.prompt, MAX_PROMPT, Lines::Multi, "form.prompt");
        assert!(
            body.fields.len() <= MAX_FORM_FIELDS,
            "form.fields: {}",
            body.fields.len()
        );
        for field in &body.fields {
            assert_id(&field.id, "form.field.id");
            assert_clean(&field.label, MAX_LABEL, Lines::Single, "form.field.label");
            check_options(&field.options, MAX_CHOICE_OPTIONS, "form.field.options");
            if let Some(default) = &field.default {
                assert_clean_json(default, "form.field.default");
            }
        }
    }
}

fn check_asks(asks: &[Ask]) {
    assert!(
        asks.len() <= MAX_OPEN_ASKS_PER_PANE,
        "{} open asks",
        asks.len()
    );
    asks.iter().for_each(check_ask);
}

fn check_item(item: &Item) {
    assert_id(&item.id, "item.id");
    if let Some(turn) = &item.turn_id {
        assert_id(turn, "item.turnId");
    }
    assert_clean(
        &item.text,
        Item::text_limit(&item.kind),
        Lines::Multi,
        "item.text",
    );
    assert_clean_opt(&item.at, MAX_SHORT, Lines::Single, "item.at");
    assert_clean_opt(&item.language, MAX_SHORT, Lines::Single, "item.language");
    assert_clean_opt(&item.title, MAX_TITLE, Lines::Single, "item.title");
    if item.kind == ItemKind::Link {
        let url = item.url.as_deref().expect("a kept link has a url");
        assert!(
            url.chars().count() <= MAX_LINK_CHARS,
            "link of {} chars",
            url.chars().count()
        );
        assert!(wire::is_https_url(url), "link {url:?} is not https");
        assert_clean(url, usize::MAX, Lines::Single, "item.url");
    }
}

fn check_snapshot(snapshot: &Snapshot) {
    assert_clean(&snapshot.epoch, 256, Lines::Single, "epoch");
    assert!(snapshot.workspaces.len() <= MAX_WORKSPACES);
    let tabs: usize = snapshot.workspaces.iter().map(|w| w.tabs.len()).sum();
    assert!(tabs <= MAX_TABS, "{tabs} tabs");
    assert!(
        snapshot.panes().count() <= MAX_PANES,
        "{} panes",
        snapshot.panes().count()
    );
    for workspace in &snapshot.workspaces {
        assert_id(&workspace.id, "workspace.id");
        assert_clean(
            &workspace.title,
            MAX_TITLE,
            Lines::Single,
            "workspace.title",
        );
        for tab in &workspace.tabs {
            assert_id(&tab.id, "tab.id");
            assert_clean(&tab.title, MAX_TITLE, Lines::Single, "tab.title");
        }
    }
    for (_, _, pane) in snapshot.panes() {
        assert_id(&pane.id, "pane.id");
        assert_clean(&pane.title, MAX_TITLE, Lines::Single, "pane.title");
        if let Some(turn) = &pane.turn {
            assert_id(&turn.id, "pane.turn.id");
        }
        if let Some(conversation) = &pane.conversation_id {
            assert_id(conversation, "pane.conversationId");
        }
        assert!(
            pane.belt.len() <= MAX_BELT_BUTTONS,
            "{} belt buttons",
            pane.belt.len()
        );
        for button in &pane.belt {
            assert_id(&button.id, "belt.id");
            assert!(
                button.label.chars().count() <= MAX_BELT_LABEL_CHARS,
                "belt label {:?}",
                button.label
            );
            assert_clean(&button.label, usize::MAX, Lines::Single, "belt.label");
        }
        check_asks(&pane.asks);
        assert!(
            pane.settings.len() <= MAX_SETTINGS,
            "{} settings",
            pane.settings.len()
        );
        for setting in &pane.settings {
            assert_id(&setting.id, "setting.id");
            assert_id(&setting.current, "setting.current");
            assert_clean(&setting.name, MAX_LABEL, Lines::Single, "setting.name");
            assert!(setting.choices.len() <= MAX_SETTING_CHOICES);
            for choice in &setting.choices {
                assert_id(&choice.id, "choice.id");
                assert_clean(&choice.name, MAX_LABEL, Lines::Single, "choice.name");
                assert_clean_opt(
                    &choice.description,
                    MAX_TITLE,
                    Lines::Single,
                    "choice.description",
                );
            }
        }
        assert!(pane.commands.len() <= MAX_COMMANDS);
        for command in &pane.commands {
            assert!(
                wire::is_command_name(&command.name),
                "command.name: {:?}",
                command.name
            );
            assert_clean_opt(
                &command.description,
                MAX_TITLE,
                Lines::Single,
                "command.description",
            );
            assert_clean_opt(&command.hint, MAX_LABEL, Lines::Single, "command.hint");
        }
    }
    assert!(
        snapshot.starters.len() <= MAX_STARTERS,
        "{} starters",
        snapshot.starters.len()
    );
    for starter in &snapshot.starters {
        assert_id(&starter.id, "starter.id");
        assert_clean(&starter.title, MAX_TITLE, Lines::Single, "starter.title");
        assert_clean_opt(
            &starter.description,
            MAX_PROMPT,
            Lines::Multi,
            "starter.description",
        );
    }
}

/// The fields each event type carries are usable and clean; the others a reader ignores.
fn check_event(event: &Event) {
    assert_clean_opt(&event.at, MAX_SHORT, Lines::Single, "event.at");
    assert_clean_opt(&event.title, MAX_TITLE, Lines::Single, "event.title");
    assert_clean_opt(&event.by, MAX_SHORT, Lines::Single, "event.by");
    if let Some(outcome) = &event.outcome {
        check_outcome(outcome);
    }
    match &event.kind {
        EventType::Item => check_item(event.item.as_ref().expect("an item event keeps its item")),
        EventType::Turn => assert_id(
            &event.turn.as_ref().expect("a turn event keeps its turn").id,
            "event.turn.id",
        ),
        EventType::State => assert!(event.state.is_some(), "a state event keeps its state"),
        EventType::Ask | EventType::AskChanged => {
            check_ask(event.ask.as_ref().expect("an ask event keeps its ask"))
        }
        EventType::AskClosed => assert_id(
            event.ask_id.as_deref().expect("ask-closed keeps askId"),
            "event.askId",
        ),
        EventType::Unknown(_) => {}
    }
}

fn check_events(reply: &EventsReply) {
    assert_clean(&reply.epoch, 256, Lines::Single, "epoch");
    assert!(
        reply.events.len() <= MAX_EVENTS_PER_REPLY,
        "{} events",
        reply.events.len()
    );
    reply.events.iter().for_each(check_event);
    if let Some(view) = &reply.view {
        assert!(
            view.items.len() <= MAX_VIEW_ITEMS,
            "{} view items",
            view.items.len()
        );
        view.items.iter().for_each(check_item);
        check_asks(&view.asks);
        if let Some(turn) = &view.turn {
            assert_id(&turn.id, "view.turn.id");
        }
    }
}

fn check_conversations(page: &ConversationsPage) {
    assert!(page.conversations.len() <= MAX_CONVERSATIONS_PAGE);
    if let Some(next) = &page.next {
        assert!(check_cursor(next), "next {next:?}");
    }
    for row in &page.conversations {
        assert_id(&row.id, "conversation.id");
        assert_clean(&row.title, MAX_TITLE, Lines::Single, "conversation.title");
        assert_clean_opt(
            &row.updated_at,
            MAX_SHORT,
            Lines::Single,
            "conversation.updatedAt",
        );
        if let Some(pane) = &row.pane_id {
            assert_id(pane, "conversation.paneId");
        }
    }
}

fn check_items_page(page: &ItemsPage) {
    assert!(page.items.len() <= MAX_ITEMS_PAGE);
    if let Some(next) = &page.next {
        assert!(check_cursor(next), "next {next:?}");
    }
    page.items.iter().for_each(check_item);
}

fn bytes_of(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).expect("a JSON value serializes")
}

/// Feeds the same bytes to every decoder; none may panic, whatever they hold (SPEC W7, L1).
fn decode_all(bytes: &[u8]) {
    let _ = wire::decode::<Hello>(bytes);
    let _ = wire::decode::<Snapshot>(bytes);
    let _ = wire::decode::<EventsReply>(bytes);
    let _ = wire::decode::<ConversationsPage>(bytes);
    let _ = wire::decode::<ItemsPage>(bytes);
    let _ = wire::decode::<PostReply>(bytes);
    let _ = wire::decode::<ErrorBody>(bytes);
}

// ----- properties --------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn w7_l1_arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        decode_all(&bytes);
    }

    #[test]
    fn w7_l1_arbitrary_json_never_panics(value in any_json()) {
        decode_all(&bytes_of(&value));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn l_l1_snapshot_decodes_within_every_limit(value in snapshot_json()) {
        let decoded = wire::decode::<Snapshot>(&bytes_of(&value)).expect("a well-typed snapshot decodes (V2)");
        check_snapshot(&decoded.value);
    }

    #[test]
    fn h1_l1_hello_strings_are_clean(service in maybe_long(), name in maybe_long(), epoch in maybe_long(),
                                     caps in prop::collection::btree_map("[a-zA-Z]{1,12}", any::<bool>(), 0..6)) {
        let value = json!({"service": service, "protocol": {"min": 1, "max": 1}, "host": {"name": name},
                           "epoch": epoch, "ready": true, "caps": caps, "later": "ignored"});
        let hello = wire::decode::<Hello>(&bytes_of(&value)).expect("a well-typed hello decodes").value;
        assert_clean(&hello.host.name, MAX_HOST_NAME, Lines::Single, "host.name");
        assert_clean(&hello.epoch, MAX_SHORT, Lines::Single, "epoch");
        assert_clean(&hello.service, MAX_SHORT, Lines::Single, "service");
        // A missing cap is false (H1).
        prop_assert_eq!(hello.cap("neverSent"), false);
    }

    #[test]
    fn l1_post_and_error_replies_are_clean(request_id in maybe_long(), text in maybe_long(), outcome in outcome()) {
        let reply = json!({"code": "ok", "requestId": request_id, "replayed": true, "outcome": outcome,
                           "turnId": text, "paneId": text});
        let reply = wire::decode::<PostReply>(&bytes_of(&reply)).expect("a well-typed reply decodes").value;
        assert_clean(&reply.request_id, MAX_SHORT, Lines::Single, "requestId");
        assert_clean_opt(&reply.turn_id, MAX_SHORT, Lines::Single, "turnId");
        assert_clean_opt(&reply.pane_id, MAX_SHORT, Lines::Single, "paneId");
        check_outcome(reply.outcome.as_ref().expect("outcome kept"));

        let error = json!({"code": "decided", "message": text, "requestId": request_id, "by": text,
                           "outcome": outcome, "turnId": text, "revision": 3});
        let error = wire::decode::<ErrorBody>(&bytes_of(&error)).expect("a well-typed error decodes").value;
        assert_clean_opt(&error.message, MAX_TITLE, Lines::Single, "message");
        assert_clean_opt(&error.request_id, MAX_SHORT, Lines::Single, "requestId");
        assert_clean_opt(&error.by, MAX_SHORT, Lines::Single, "by");
        assert_clean_opt(&error.turn_id, MAX_SHORT, Lines::Single, "turnId");
        check_outcome(error.outcome.as_ref().expect("outcome kept"));
    }

    /// A12: the phone offers no allow-always on a card whose words it did not show whole. So an
    /// ask that decoding changed in any way is marked, and an untouched one is not.
    #[test]
    fn a12_an_ask_is_marked_altered_exactly_when_decoding_changed_it(
        asks in prop::collection::vec(ask_with("[a-z]{1,8}".boxed()), 1..6),
    ) {
        // Unique ids, so each decoded ask can be matched with what was sent.
        let asks: Vec<Value> = asks.into_iter().enumerate().map(|(i, mut ask)| {
            ask["id"] = json!(format!("{}-{i}", ask["id"].as_str().unwrap_or("a")));
            ask
        }).collect();
        let snapshot = json!({"epoch": "e", "rev": 1, "workspaces": [{"id": "w", "title": "W", "tabs": [
            {"id": "t", "title": "T", "panes": [{"id": "p", "title": "P", "state": "waiting", "asks": asks}]}]}]});
        let decoded = wire::decode::<Snapshot>(&bytes_of(&snapshot)).expect("decodes").value;
        let pane = decoded.pane("p").expect("the pane stays");
        prop_assert_eq!(pane.asks.len(), asks.len());
        for (sent, kept) in asks.iter().zip(&pane.asks) {
            let raw: Ask = serde_json::from_value(sent.clone()).expect("a well-typed ask");
            let mut shown = kept.clone();
            shown.words_altered = false;
            let changed = shown != raw;
            prop_assert_eq!(kept.words_altered, changed, "ask {} changed={} altered={}", kept.id, changed, kept.words_altered);
        }
    }

    /// L1: other lists keep their first entries.
    #[test]
    fn l1_lists_keep_their_first_entries(count in 0..80usize) {
        let starters: Vec<Value> = (0..count).map(|i| json!({"id": format!("s{i}"), "title": "S"})).collect();
        let snapshot = json!({"epoch": "e", "rev": 1, "starters": starters});
        let decoded = wire::decode::<Snapshot>(&bytes_of(&snapshot)).expect("decodes").value;
        let ids: Vec<String> = decoded.starters.iter().map(|s| s.id.clone()).collect();
        let expected: Vec<String> = (0..count.min(MAX_STARTERS)).map(|i| format!("s{i}")).collect();
        prop_assert_eq!(ids, expected);
    }
}

proptest! {
    // The big generators: fewer cases keep the whole suite quick on CI's two cores.
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Damaged replies: a good reply with bytes flipped or cut, as a broken agent might send.
    #[test]
    fn w7_damaged_replies_never_panic(
        value in prop_oneof![snapshot_json(), events_json()],
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = bytes_of(&value);
        for (at, byte) in flips {
            let at = at.index(bytes.len());
            bytes[at] = byte;
        }
        bytes.truncate(cut.index(bytes.len() + 1));
        decode_all(&bytes);
    }

    #[test]
    fn l_l1_h5_events_decode_within_every_limit(value in events_json()) {
        let decoded = wire::decode::<EventsReply>(&bytes_of(&value)).expect("a well-typed events reply decodes (V2)");
        check_events(&decoded.value);
    }

    #[test]
    fn l_l1_history_pages_within_limits_or_refused(conversations in conversations_json(), items in items_json()) {
        let rows = conversations["conversations"].as_array().map_or(0, Vec::len);
        let next_ok = conversations.get("next").and_then(Value::as_str).is_none_or(check_cursor);
        match wire::decode::<ConversationsPage>(&bytes_of(&conversations)) {
            Ok(page) => {
                prop_assert!(rows <= MAX_CONVERSATIONS_PAGE && next_ok);
                check_conversations(&page.value);
            }
            Err(DecodeError::Page(_)) => prop_assert!(rows > MAX_CONVERSATIONS_PAGE || !next_ok),
            Err(other) => prop_assert!(false, "a well-typed page failed: {other}"),
        }
        let count = items["items"].as_array().map_or(0, Vec::len);
        let next_ok = items.get("next").and_then(Value::as_str).is_none_or(check_cursor);
        match wire::decode::<ItemsPage>(&bytes_of(&items)) {
            Ok(page) => {
                prop_assert!(count <= MAX_ITEMS_PAGE && next_ok);
                check_items_page(&page.value);
            }
            Err(DecodeError::Page(_)) => prop_assert!(count > MAX_ITEMS_PAGE || !next_ok),
            Err(other) => prop_assert!(false, "a well-typed page failed: {other}"),
        }
    }

    /// H5, L: a view over 2000 items keeps the newest 2000, in order.
    #[test]
    fn h5_view_keeps_the_newest_items(count in 0..2_600usize, kinds in prop::collection::vec(
        prop_oneof![Just("user"), Just("reply"), Just("thinking"), Just("notice"), Just("markdown"), Just("code")], 1..7)) {
        let items: Vec<Value> = (0..count)
            .map(|i| json!({"id": format!("i{i}"), "kind": kinds[i % kinds.len()], "text": format!("line {i}\u{1b}[0m")}))
            .collect();
        let reply = json!({"epoch": "e", "cursor": 7, "events": [], "view": {"state": "idle", "items": items, "asks": []}});
        let view = wire::decode::<EventsReply>(&bytes_of(&reply)).expect("decodes").value.view.expect("view kept");
        let kept = count.min(MAX_VIEW_ITEMS);
        prop_assert_eq!(view.items.len(), kept);
        for (offset, item) in view.items.iter().enumerate() {
            let expected = count - kept + offset;
            prop_assert_eq!(&item.id, &format!("i{expected}"));
            prop_assert_eq!(&item.text, &format!("line {expected}[0m"));
        }
    }
}

/// V2, V3: unknown fields, event types, item kinds, ask kinds and codes decode; an unknown ask
/// kind offers no answers.
#[test]
fn v2_v3_unknown_values_are_kept_or_ignored() {
    let reply = json!({"epoch": "e", "cursor": 3, "more": false, "newField": {"x": 1}, "events": [
        {"seq": 1, "type": "telepathy", "mind": "open"},
        {"seq": 2, "type": "item", "item": {"id": "i1", "kind": "hologram", "text": "hi", "depth": 3}},
        {"seq": 3, "type": "ask", "ask": {"id": "a1", "revision": 1, "kind": "drawing", "title": "Sketch", "canvas": {}}}
    ]});
    let decoded = wire::decode::<EventsReply>(&bytes_of(&reply))
        .expect("decodes")
        .value;
    assert_eq!(decoded.events.len(), 3);
    assert_eq!(
        decoded.events[0].kind,
        EventType::Unknown("telepathy".into())
    );
    let ask = decoded.events[2].ask.as_ref().expect("ask kept");
    assert!(!ask.is_answerable());
    let error = wire::decode::<ErrorBody>(br#"{"code":"quota-exceeded","retryIn":3}"#)
        .expect("decodes")
        .value;
    assert_eq!(error.code.status(), 500);
}
