//! The reference agent's worlds as a phone first sees them: the demo has something of
//! everything at once, the empty world only starters, the big world every limit of SPEC L and
//! still every reply inside its cap (SPEC W5, W7).

use collie_phone::durable::runtime::Agent;
use collie_phone::rigs::worlds::{
    BIG_CROWDED_PANE, BIG_LONG_PANE, BIG_LONG_PANE_ITEMS, is_chinese,
};
use collie_phone::rigs::{WorldKind, WorldOptions};
use collie_phone::wire::{
    self, AskKind, ConversationState, Effect, FieldKind, ItemKind, Report, Snapshot, limits,
};

fn agent(kind: WorldKind) -> Agent {
    let options = WorldOptions {
        kind,
        speed: 0.0,
        ..WorldOptions::default()
    };
    Agent::new(options).expect("the agent starts")
}

fn json_len<T: serde::Serialize>(value: &T) -> usize {
    serde_json::to_vec(value).expect("serializes").len()
}

fn has_emoji(text: &str) -> bool {
    text.chars()
        .any(|c| ('\u{1F300}'..='\u{1FAFF}').contains(&c) || ('\u{2600}'..='\u{27BF}').contains(&c))
}

/// A snapshot an agent inside the limits sends loses nothing on the phone's side (SPEC L1).
fn assert_nothing_cut(snapshot: &Snapshot) {
    let mut copy = snapshot.clone();
    let mut report = Report::default();
    copy.sanitize(&mut report);
    assert!(report.is_empty(), "the snapshot breaks a limit: {report:?}");
}

#[test]
fn a15_demo_at_start_holds_open_asks_of_all_four_kinds() {
    let demo = agent(WorldKind::Demo);
    let snapshot = demo.world.snapshot();
    let asks: Vec<_> = snapshot.panes().flat_map(|(_, _, p)| &p.asks).collect();
    for kind in [
        AskKind::Permission,
        AskKind::Choice,
        AskKind::Text,
        AskKind::Form,
    ] {
        assert!(
            asks.iter().any(|a| a.kind == kind),
            "no {kind} ask at start"
        );
    }

    // A10: built from the tool and its arguments.
    let permission = asks
        .iter()
        .find_map(|a| a.permission.as_ref())
        .expect("a permission");
    assert_eq!(permission.tool, "shell");
    assert_eq!(permission.arguments["command"], "rm -rf build/");
    assert!(permission.arguments["cwd"].is_string());
    let effects: Vec<_> = permission
        .options
        .iter()
        .map(|o| (o.id.as_str(), o.effect.clone()))
        .collect();
    assert_eq!(
        effects,
        vec![
            ("allow-once", Some(Effect::Allow)),
            ("deny", Some(Effect::Deny)),
            ("allow-always", Some(Effect::AllowAlways))
        ]
    );

    let choice = asks
        .iter()
        .find_map(|a| a.choice.as_ref())
        .expect("a choice");
    assert!(choice.options.len() >= 3);
    let form = asks.iter().find_map(|a| a.form.as_ref()).expect("a form");
    assert!(form.fields.len() >= 3);
    assert!(
        form.fields
            .iter()
            .any(|f| f.kind == FieldKind::Choice && !f.options.is_empty())
    );
    assert!(form.fields.iter().any(|f| f.kind == FieldKind::Boolean));
    assert!(asks.iter().all(|a| a.is_answerable()));
    // A2: a pane with an open ask shows waiting.
    for (_, _, pane) in snapshot.panes() {
        assert_eq!(
            pane.asks.is_empty(),
            pane.state != wire::PaneState::Waiting,
            "{}",
            pane.title
        );
    }
}

#[test]
fn demo_layout_feels_alive() {
    let demo = agent(WorldKind::Demo);
    let snapshot = demo.world.snapshot();
    assert_eq!(snapshot.workspaces.len(), 3);
    assert!(snapshot.workspaces.iter().any(|w| is_chinese(&w.title)));
    assert!(
        snapshot
            .workspaces
            .iter()
            .map(|w| w.tabs.len())
            .sum::<usize>()
            >= 5
    );
    let panes: Vec<_> = snapshot.panes().map(|(_, _, p)| p).collect();
    assert!(panes.len() >= 8);
    assert!(panes.iter().any(|p| is_chinese(&p.title)));
    assert!(panes.iter().any(|p| has_emoji(&p.title)));
    for pane in &panes {
        assert!(
            (1..=4).contains(&pane.belt.len()),
            "{} has {} buttons",
            pane.title,
            pane.belt.len()
        );
        assert!(
            pane.belt
                .iter()
                .all(|b| b.label.chars().count() <= limits::MAX_BELT_LABEL_CHARS)
        );
    }
    let starters: Vec<&str> = snapshot.starters.iter().map(|s| s.title.as_str()).collect();
    assert!(starters.len() >= 4);
    for title in [
        "New shell agent",
        "Code review",
        "Write tests",
        "Explain this repo",
    ] {
        assert!(starters.contains(&title), "no starter {title}");
    }
    assert_nothing_cut(&snapshot);
    assert!(json_len(&snapshot) <= limits::MAX_SNAPSHOT_REPLY);
}

#[test]
fn demo_has_a_running_turn_with_items_of_every_kind() {
    let demo = agent(WorldKind::Demo);
    let world = &demo.world;
    let showcase = world
        .layout
        .panes
        .values()
        .find(|pane| {
            let Some(conversation) = world.layout.conversations.get(&pane.conversation_id) else {
                return false;
            };
            let running = pane
                .turn
                .as_ref()
                .is_some_and(|t| t.state == wire::TurnState::Running);
            let turn_items: Vec<_> = conversation
                .items
                .iter()
                .filter(|i| i.turn_id == pane.turn.as_ref().map(|t| t.id.clone()))
                .collect();
            running
                && [
                    ItemKind::User,
                    ItemKind::Reply,
                    ItemKind::Thinking,
                    ItemKind::Notice,
                    ItemKind::Markdown,
                    ItemKind::Code,
                    ItemKind::Link,
                ]
                .iter()
                .all(|kind| turn_items.iter().any(|i| &i.kind == kind))
        })
        .expect("a pane whose running turn shows every kind of item");
    let items = &world.layout.conversations[&showcase.conversation_id].items;
    let markdown = items
        .iter()
        .find(|i| i.kind == ItemKind::Markdown)
        .expect("markdown");
    assert!(
        markdown.text.contains("## ")
            && markdown.text.contains("\n1. ")
            && markdown.text.contains("```")
    );
    assert!(
        items
            .iter()
            .any(|i| i.kind == ItemKind::Code && i.language.is_some())
    );
    assert!(
        items
            .iter()
            .any(|i| i.kind == ItemKind::Link && i.url.as_deref().is_some_and(wire::is_https_url))
    );
    let all_items = world.layout.conversations.values().flat_map(|c| &c.items);
    assert!(
        all_items.filter(|i| is_chinese(&i.text)).count() >= 5,
        "some items are in Chinese"
    );
    // The pane view a reader gets loses nothing either.
    let mut view = world.events(&showcase.id, 0, None).expect("events");
    let mut report = Report::default();
    view.sanitize(&mut report);
    assert!(report.is_empty(), "{report:?}");
}

#[test]
fn w5_demo_history_pages_and_reopens() {
    let mut demo = agent(WorldKind::Demo);
    let first = demo
        .world
        .conversations(None, limits::MAX_CONVERSATIONS_PAGE)
        .expect("page 1");
    assert_eq!(first.conversations.len(), limits::MAX_CONVERSATIONS_PAGE);
    let mut all = first.conversations.clone();
    let mut next = first.next.clone();
    while let Some(cursor) = next {
        let page = demo
            .world
            .conversations(Some(&cursor), limits::MAX_CONVERSATIONS_PAGE)
            .expect("next page");
        assert!(json_len(&page) <= limits::MAX_CONVERSATIONS_REPLY);
        all.extend(page.conversations);
        next = page.next;
    }
    assert!(all.len() >= 150 + 8, "{} conversations", all.len());
    assert!(all.iter().any(|c| c.state == ConversationState::Closed));
    assert!(all.iter().any(|c| c.state == ConversationState::Open));
    // A long one needs more than one items page (SPEC L: 1000 a page).
    let long = all
        .iter()
        .find(|c| c.item_count > limits::MAX_ITEMS_PAGE as u64)
        .expect("a long conversation");
    let page = demo
        .world
        .conversation_items(&long.id, None, limits::MAX_ITEMS_PAGE)
        .expect("items");
    assert_eq!(page.items.len(), limits::MAX_ITEMS_PAGE);
    assert!(page.next.is_some());
    assert!(json_len(&page) <= limits::MAX_ITEMS_REPLY);
    let closed = all
        .iter()
        .find(|c| c.state == ConversationState::Closed)
        .expect("closed");
    let request = wire::ReopenRequest {
        request_id: "reopen-1".into(),
        conversation_id: closed.id.clone(),
    };
    let reply = demo
        .world
        .reopen(&request, time::OffsetDateTime::now_utc())
        .expect("reopens");
    assert!(reply.pane_id.is_some());
}

#[test]
fn a17_empty_world_has_only_starters() {
    let empty = agent(WorldKind::Empty);
    let snapshot = empty.world.snapshot();
    assert!(snapshot.workspaces.is_empty());
    assert!(snapshot.starters.len() >= 4);
    let page = empty.world.conversations(None, 100).expect("history");
    assert!(page.conversations.is_empty());
}

#[test]
fn l_big_world_hits_every_limit() {
    let big = agent(WorldKind::Big);
    let snapshot = big.world.snapshot();
    assert_eq!(snapshot.workspaces.len(), limits::MAX_WORKSPACES);
    assert_eq!(
        snapshot
            .workspaces
            .iter()
            .map(|w| w.tabs.len())
            .sum::<usize>(),
        limits::MAX_TABS
    );
    assert_eq!(snapshot.panes().count(), limits::MAX_PANES);
    assert_eq!(snapshot.starters.len(), limits::MAX_STARTERS);
    for (_, _, pane) in snapshot.panes() {
        assert_eq!(pane.belt.len(), limits::MAX_BELT_BUTTONS);
        assert!(
            pane.belt
                .iter()
                .all(|b| b.label.chars().count() == limits::MAX_BELT_LABEL_CHARS)
        );
    }
    let crowded = snapshot
        .panes()
        .map(|(_, _, p)| p)
        .find(|p| p.title == BIG_CROWDED_PANE)
        .expect("crowded pane");
    assert_eq!(crowded.asks.len(), limits::MAX_OPEN_ASKS_PER_PANE);
    let most = |f: &dyn Fn(&wire::Ask) -> usize| crowded.asks.iter().map(f).max().unwrap_or(0);
    assert_eq!(
        most(&|a| a.permission.as_ref().map_or(0, |p| p.options.len())),
        limits::MAX_PERMISSION_OPTIONS
    );
    assert_eq!(
        most(&|a| a.choice.as_ref().map_or(0, |c| c.options.len())),
        limits::MAX_CHOICE_OPTIONS
    );
    assert_eq!(
        most(&|a| a.form.as_ref().map_or(0, |f| f.fields.len())),
        limits::MAX_FORM_FIELDS
    );
    let choice_field_options = crowded
        .asks
        .iter()
        .filter_map(|a| a.form.as_ref())
        .flat_map(|f| &f.fields)
        .map(|f| f.options.len())
        .max();
    assert_eq!(choice_field_options, Some(limits::MAX_CHOICE_OPTIONS));
    for kind in [
        AskKind::Permission,
        AskKind::Choice,
        AskKind::Text,
        AskKind::Form,
    ] {
        assert!(crowded.asks.iter().any(|a| a.kind == kind));
    }
    let long = big
        .world
        .layout
        .panes
        .values()
        .find(|p| p.title == BIG_LONG_PANE)
        .expect("long pane");
    let items = &big.world.layout.conversations[&long.conversation_id].items;
    assert_eq!(items.len(), BIG_LONG_PANE_ITEMS);
    assert!(
        items
            .iter()
            .any(|i| i.kind == ItemKind::User && i.text.len() == limits::MAX_CHAT_TEXT)
    );
    assert!(
        items
            .iter()
            .any(|i| i.kind == ItemKind::Code && i.text.len() == limits::MAX_DOC_TEXT)
    );
    assert!(items.iter().any(|i| {
        i.url
            .as_ref()
            .is_some_and(|u| u.chars().count() == limits::MAX_LINK_CHARS)
    }));
    assert_nothing_cut(&snapshot);
}

#[test]
fn w5_big_world_stays_inside_the_reply_limits() {
    let big = agent(WorldKind::Big);
    let world = &big.world;
    let snapshot = world.snapshot();
    let snapshot_bytes = json_len(&snapshot);
    assert!(
        snapshot_bytes <= limits::MAX_SNAPSHOT_REPLY,
        "snapshot is {snapshot_bytes} bytes"
    );
    assert!(json_len(&world.hello(false)) <= limits::MAX_HELLO_REPLY);
    for pane in world.layout.panes.values() {
        // A reader of another epoch gets the whole view (SPEC H5); one of ours reads on.
        let view = world.events(&pane.id, 0, None).expect("view");
        let bytes = json_len(&view);
        assert!(
            bytes <= limits::MAX_EVENTS_REPLY,
            "{} view is {bytes} bytes",
            pane.title
        );
        let events = world
            .events(&pane.id, 0, Some(&world.epoch))
            .expect("events");
        assert!(events.events.len() <= limits::MAX_EVENTS_PER_REPLY);
        let bytes = json_len(&events);
        assert!(
            bytes <= limits::MAX_EVENTS_REPLY,
            "{} events are {bytes} bytes",
            pane.title
        );
    }
    let long = world
        .layout
        .panes
        .values()
        .find(|p| p.title == BIG_LONG_PANE)
        .expect("long pane");
    let mut view = world.events(&long.id, 0, None).expect("view");
    assert_eq!(
        view.view.as_ref().map(|v| v.items.len()),
        Some(BIG_LONG_PANE_ITEMS)
    );
    let mut report = Report::default();
    view.sanitize(&mut report);
    assert!(report.is_empty(), "the long view loses nothing: {report:?}");
    let page = world
        .conversation_items(&long.conversation_id, None, limits::MAX_ITEMS_PAGE)
        .expect("items");
    assert!(json_len(&page) <= limits::MAX_ITEMS_REPLY);
    let conversations = world
        .conversations(None, limits::MAX_CONVERSATIONS_PAGE)
        .expect("history");
    assert!(json_len(&conversations) <= limits::MAX_CONVERSATIONS_REPLY);
}

#[test]
fn big_world_tick_is_cheap() {
    let mut big = agent(WorldKind::Big);
    let now = time::OffsetDateTime::now_utc();
    big.tick(now);
    let started = std::time::Instant::now();
    for _ in 0..100 {
        big.tick(now);
    }
    let each = started.elapsed() / 100;
    assert!(
        each < std::time::Duration::from_millis(5),
        "a quiet tick of the big world took {each:?}"
    );
}
