//! Snapshots of every phone screen and every state of an ask card, at 40x12 (a phone held
//! upright, the smallest the phone draws in), 80x24 and 160x48, drawn from app states built out
//! of the reference agent's demo world (with its Chinese workspace) and wire values. The clock
//! is frozen, so every frame is the same on every run.

use std::sync::Arc;

use collie_phone::app::keymap::Chord;
use collie_phone::app::overlay::Overlay;
use collie_phone::app::settings::Settings;
use collie_phone::app::{AppSetup, Command, Message};
use collie_phone::durable::world::World;
use collie_phone::engine::{
    AgentChange, AgentStatus, Decider, FromEngine, HistoryPage, IntentKind, IntentRecord,
    IntentState, ToEngine,
};
use collie_phone::look::theme::Theme;
use collie_phone::model::arming::ARMING;
use collie_phone::model::card_state::FieldValue;
use collie_phone::model::inbox::AskKey;
use collie_phone::rigs::WorldKind;
use collie_phone::rigs::worlds;
use collie_phone::screens::Screen;
use collie_phone::shell;
use collie_phone::shell::App;
use collie_phone::wire::{
    self, Answer, Ask, DecidedBy, Event, EventType, EventsReply, Hello, Outcome, PostReply,
    ProtocolRange, Report, Snapshot, TurnState,
};
use crossterm::event::KeyEvent;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

const NOW: OffsetDateTime = datetime!(2026-11-29 14:30:00 UTC);
const SIZES: [(u16, u16); 4] = [(40, 12), (80, 24), (160, 48), (200, 60)];

fn theme() -> Theme {
    Theme::builtin("dark").expect("the dark theme")
}

/// Round-trips a value through the wire decoder, as the engine would receive it (SPEC L).
fn decoded<T: serde::Serialize + serde::de::DeserializeOwned + wire::Sanitize>(value: &T) -> T {
    let bytes = serde_json::to_vec(value).expect("encodes");
    wire::decode::<T>(&bytes).expect("decodes").value
}

fn demo_world() -> World {
    worlds::build(WorldKind::Demo, 1, true, "collie-demo", NOW)
}

fn key(text: &str) -> Message {
    let chord = Chord::parse(text).expect("a key");
    Message::Key(KeyEvent::new(chord.code, chord.modifiers))
}

fn agent_change(app: &mut App, change: AgentChange) {
    app.update(Message::Engine(FromEngine::Agent {
        agent: "demo".into(),
        change,
    }));
}

/// The phone after its first good poll of `world`.
fn app_on(world: &World, tls: bool, (width, height): (u16, u16)) -> App {
    let mut app = App::new(AppSetup {
        agents: vec![("demo".into(), tls)],
        settings: Settings::default(),
        bridges: Vec::new(),
        theme: theme(),
        now: NOW,
        size: (width, height),
    });
    load(&mut app, world, tls);
    app
}

fn load(app: &mut App, world: &World, tls: bool) {
    agent_change(app, AgentChange::Hello(decoded::<Hello>(&world.hello(tls))));
    agent_change(app, AgentChange::Status(AgentStatus::Ready));
    let snapshot = decoded::<Snapshot>(&world.snapshot());
    let panes: Vec<String> = snapshot.panes().map(|(_, _, p)| p.id.clone()).collect();
    agent_change(
        app,
        AgentChange::Snapshot {
            snapshot: Arc::new(snapshot),
            report: Report::default(),
        },
    );
    for pane in panes {
        let reply = decoded::<EventsReply>(&world.events(&pane, 0, None).expect("events"));
        agent_change(
            app,
            AgentChange::PaneView {
                pane,
                view: reply.view.expect("a whole view"),
            },
        );
    }
    agent_change(app, AgentChange::Synced(NOW - Duration::seconds(2)));
}

fn pane_id(world: &World, title: &str) -> String {
    world
        .snapshot()
        .panes()
        .find(|(_, _, p)| p.title == title)
        .map(|(_, _, p)| p.id.clone())
        .unwrap_or_else(|| panic!("no pane {title}"))
}

fn ask_key(world: &World, pane_title: &str) -> AskKey {
    let pane = pane_id(world, pane_title);
    let snapshot = world.snapshot();
    let ask = snapshot
        .pane(&pane)
        .and_then(|p| p.asks.first())
        .unwrap_or_else(|| panic!("{pane_title} has no ask"));
    AskKey {
        agent: "demo".into(),
        pane,
        ask_id: ask.id.clone(),
    }
}

fn draw(app: &App, (width, height): (u16, u16)) -> TestBackend {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal
        .draw(|frame| shell::frame::draw(frame, app))
        .expect("draws");
    terminal.backend().clone()
}

/// Builds the state at every size of `SIZES` (40x12 to 200x60) and snapshots each.
fn snap(name: &str, build: impl Fn((u16, u16)) -> App) {
    for size in SIZES {
        let app = build(size);
        let backend = draw(&app, size);
        insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), backend);
    }
}

fn screen_text(app: &App, size: (u16, u16)) -> String {
    draw(app, size).to_string()
}

// ----- screens ---------------------------------------------------------------------------------

#[test]
fn home_lists_agents_and_the_inbox_oldest_first() {
    snap("home", |size| app_on(&demo_world(), false, size));
}

#[test]
fn home_with_the_inbox_selected_and_a_filter() {
    snap("home_filter", |size| {
        let mut app = app_on(&demo_world(), false, size);
        for message in [key("/"), key("支"), key("enter"), key("j")] {
            app.update(message);
        }
        app
    });
}

#[test]
fn home_agent_states_in_words() {
    // SPEC H3, H6, S4, T6, V5: every state an agent can be in, in Collie's words.
    snap("home_states", |size| {
        let mut app = App::new(AppSetup {
            agents: ["starting", "down", "socket", "token", "old", "other"]
                .iter()
                .map(|n| (n.to_string(), *n == "token"))
                .collect(),
            settings: Settings::default(),
            bridges: Vec::new(),
            theme: theme(),
            now: NOW,
            size,
        });
        let states = [
            ("starting", AgentStatus::Starting),
            (
                "down",
                AgentStatus::Unreachable {
                    reason: "could not connect: connection refused".into(),
                    last_seen: Some(datetime!(2026-11-29 14:03:00 UTC)),
                },
            ),
            (
                "socket",
                AgentStatus::SocketNotPrivate {
                    part: "/run/user/1000/collie".into(),
                    why: "the folder is writable by others".into(),
                    fix: Some("chmod 700 /run/user/1000/collie".into()),
                },
            ),
            (
                "token",
                AgentStatus::TokenRefused {
                    status: 401,
                    bridge: false,
                },
            ),
            (
                "old",
                AgentStatus::Incompatible {
                    agent: ProtocolRange { min: 2, max: 2 },
                    collie: ProtocolRange { min: 1, max: 1 },
                },
            ),
            (
                "other",
                AgentStatus::OtherServer {
                    service: "nginx".into(),
                },
            ),
        ];
        for (agent, status) in states {
            app.update(Message::Engine(FromEngine::Agent {
                agent: agent.into(),
                change: AgentChange::Status(status),
            }));
        }
        // The incompatible agent's whole sentence shows under the list (SPEC V5).
        for _ in 0..4 {
            app.update(key("j"));
        }
        app
    });
}

#[test]
fn v5_incompatible_sentence_is_on_screen() {
    let mut app = App::new(AppSetup {
        agents: vec![("old".into(), false)],
        settings: Settings::default(),
        bridges: Vec::new(),
        theme: theme(),
        now: NOW,
        size: (80, 24),
    });
    app.update(Message::Engine(FromEngine::Agent {
        agent: "old".into(),
        change: AgentChange::Status(AgentStatus::Incompatible {
            agent: ProtocolRange { min: 2, max: 2 },
            collie: ProtocolRange { min: 1, max: 1 },
        }),
    }));
    let text = screen_text(&app, (160, 48));
    assert!(text.contains(
        "The durable agent speaks wire v2, this Collie speaks v1. Update Collie, or the agent's SDK."
    ));
}

#[test]
fn workspaces_tabs_and_panes_align_cjk_titles() {
    snap("layout", |size| {
        let mut app = app_on(&demo_world(), false, size);
        app.update(key("enter"));
        app
    });
}

#[test]
fn rename_prompt_and_close_confirm() {
    snap("rename_prompt", |size| {
        let mut app = app_on(&demo_world(), false, size);
        for message in [key("enter"), key("r")] {
            app.update(message);
        }
        app
    });
    snap("close_confirm", |size| {
        let mut app = app_on(&demo_world(), false, size);
        for message in [key("enter"), key("j"), key("j"), key("c")] {
            app.update(message);
        }
        app
    });
}

fn showcase(size: (u16, u16)) -> (World, App) {
    let world = demo_world();
    let mut app = app_on(&world, false, size);
    app.open_pane("demo", &pane_id(&world, "HTTP routes 🚀"));
    (world, app)
}

#[test]
fn pane_with_every_item_kind_and_its_belt() {
    snap("pane", |size| showcase(size).1);
}

/// A long prompt as a person writes one: words, CJK, flags, a skin tone, a word longer than a
/// narrow row, and a line of its own.
fn long_prompt() -> String {
    let words: Vec<String> = (0..40).map(|n| format!("word{n:03}")).collect();
    format!(
        "{} 日本語のテキストを読む 🇯🇵 flag and 👍🏽 thumb \
         averyveryverylongwordthatisnotbrokenbyspacesatall\nlast line: end",
        words.join(" ")
    )
}

/// The message box wraps a long prompt by display width at word boundaries and grows, up to
/// about a third of the screen; the chat above shrinks. Past its most rows it scrolls, the
/// cursor's row always in view.
#[test]
fn pane_message_box_wraps_a_long_prompt_and_grows() {
    let build = |size| {
        let (_, mut app) = showcase(size);
        app.update(key("i"));
        app.update(Message::Paste(long_prompt()));
        app
    };
    snap("pane_composer", build);
    // Wide, the whole prompt is on screen, words whole.
    let size = (200, 60);
    let text = screen_text(&build(size), size);
    for word in [
        "word000",
        "word039",
        "日本語のテキストを読む",
        "🇯🇵",
        "👍🏽",
        "last line: end",
    ] {
        assert!(text.contains(word), "{word} in {text}");
    }
    for size in SIZES {
        let mut app = build(size);
        let one_line = {
            let (_, mut app) = showcase(size);
            app.update(key("i"));
            app.update(Message::Paste("short".into()));
            app
        };
        let rows_of = |app: &App| {
            screen_text(app, size)
                .lines()
                .filter(|row| row.contains('│'))
                .count()
        };
        assert!(
            rows_of(&app) > rows_of(&one_line),
            "the box grew at {size:?}"
        );
        // The cursor is inside the box at the end of the text, then at its start.
        let box_rows = |app: &App| {
            let mut backend = draw(app, size);
            let text = backend.to_string();
            let top = text
                .lines()
                .position(|row| row.contains("┌ Message"))
                .expect("the box's top border");
            let cursor =
                ratatui::backend::Backend::get_cursor_position(&mut backend).expect("a cursor");
            (top, usize::from(cursor.y), text)
        };
        let (top, y, text) = box_rows(&app);
        let most = usize::from(size.1 / 3 - 2).max(1);
        assert!(
            y > top && y <= top + most,
            "cursor row {y}, box at {top}: {text}"
        );
        assert!(
            text.contains("last line: end"),
            "the end in view at {size:?}: {text}"
        );
        app.update(key("ctrl-a"));
        for _ in 0..30 {
            app.update(key("up"));
        }
        let (top, y, text) = box_rows(&app);
        assert_eq!(y, top + 1, "the cursor on the first row: {text}");
        assert!(
            text.contains("word000"),
            "the start in view at {size:?}: {text}"
        );
    }
}

/// Ctrl-G in the box asks the runner to open its text in the person's editor; what comes back
/// is in the box, not sent. A failing editor is named and the text stays as it was.
#[test]
fn ctrl_g_opens_the_box_in_the_persons_editor_and_the_text_comes_back_unsent() {
    use collie_phone::app::outside_editor::EditTarget;
    let size = (80, 24);
    let (world, mut app) = showcase(size);
    app.update(key("i"));
    app.update(Message::Paste("draft 日本 🇯🇵".into()));
    // The footer says the key, and the key list's, which moved to Alt-?.
    let footer = rows(&app, size)[23].clone();
    assert!(footer.contains("Ctrl-G editor"), "{footer}");
    assert!(footer.contains("Alt-? keys"), "{footer}");
    let commands = app.update(key("ctrl-g"));
    let (target, text) = match commands.as_slice() {
        [Command::EditOutside { target, text }] => (target.clone(), text.clone()),
        other => panic!("one EditOutside, not {other:?}"),
    };
    let pane = pane_id(&world, "HTTP routes 🚀");
    assert_eq!(
        target,
        EditTarget::Draft {
            agent: "demo".into(),
            pane: pane.clone()
        }
    );
    assert_eq!(text, "draft 日本 🇯🇵");
    let back = app.update(Message::EditedOutside {
        target: target.clone(),
        result: Ok("draft 日本 🇯🇵\nand a line from the editor".into()),
    });
    assert!(back.is_empty(), "nothing is sent: {back:?}");
    let screen = screen_text(&app, size);
    assert!(screen.contains("and a line from the editor"), "{screen}");
    assert!(screen.contains("not sent"), "{screen}");
    assert_eq!(
        app.phone_mut()
            .draft("demo", &pane)
            .map(|d| d.text())
            .as_deref(),
        Some("draft 日本 🇯🇵\nand a line from the editor")
    );
    // Undo takes the editor's text back as one step.
    app.update(key("ctrl-z"));
    assert_eq!(
        app.phone_mut()
            .draft("demo", &pane)
            .map(|d| d.text())
            .as_deref(),
        Some("draft 日本 🇯🇵")
    );
    let failed = app.update(Message::EditedOutside {
        target,
        result: Err("$EDITOR (nano) was not found.".into()),
    });
    assert!(failed.is_empty());
    let screen = screen_text(&app, size);
    assert!(screen.contains("$EDITOR (nano) was not found."), "{screen}");
    assert_eq!(
        app.phone_mut()
            .draft("demo", &pane)
            .map(|d| d.text())
            .as_deref(),
        Some("draft 日本 🇯🇵")
    );
}

/// A text card's answer opens in the editor too; a one-line answer takes the lines joined.
#[test]
fn ctrl_g_on_a_text_card_opens_its_answer_and_it_comes_back_unsent() {
    let size = (80, 24);
    let world = demo_world();
    let mut app = app_on(&world, false, size);
    let card = ask_key(&world, "Docs ✍️");
    app.open_card(card.clone());
    app.update(Message::Paste("静湖".into()));
    let commands = app.update(key("ctrl-g"));
    let (target, text) = match commands.as_slice() {
        [Command::EditOutside { target, text }] => (target.clone(), text.clone()),
        other => panic!("one EditOutside, not {other:?}"),
    };
    assert_eq!(
        target,
        collie_phone::app::outside_editor::EditTarget::Answer(card)
    );
    assert_eq!(text, "静湖");
    let back = app.update(Message::EditedOutside {
        target,
        result: Ok("静湖 Quiet Lake".into()),
    });
    assert!(back.is_empty(), "nothing is answered: {back:?}");
    let screen = screen_text(&app, size);
    assert!(screen.contains("静湖 Quiet Lake"), "{screen}");
}

/// SPEC L2: an agent whose chats go over the phone's budget lets the oldest items go, those of
/// the panes off screen first; the pane read lets go last, and says so at the top of its chat,
/// with the key that opens History, where the agent still has them.
#[test]
fn l2_a_chat_over_the_agents_budget_says_at_its_top_that_older_items_were_let_go() {
    let size = (80, 24);
    let (world, mut app) = showcase(size);
    let pane = pane_id(&world, "HTTP routes 🚀");
    let over = wire::limits::MAX_AGENT_CHAT_BYTES / wire::limits::MAX_CHAT_TEXT + 8;
    let events: Vec<Event> = (0..over)
        .map(|n| {
            let mut event = Event::new(10_000 + n as u64, EventType::Item);
            event.item = Some(wire::Item::text(
                format!("big-{n}"),
                wire::ItemKind::Reply,
                "x".repeat(wire::limits::MAX_CHAT_TEXT),
            ));
            event
        })
        .collect();
    agent_change(
        &mut app,
        AgentChange::PaneEvents {
            pane: pane.clone(),
            events,
        },
    );
    // The chat follows its newest item; its top is the note, and the first item kept is one
    // of the big ones: the pane's own older items went, and so did every other pane's chat.
    assert!(!screen_text(&app, size).contains("let go"));
    app.update(key("g"));
    let text = screen_text(&app, size);
    assert!(
        text.contains("↑ Older items were let go: H opens history"),
        "{text}"
    );
    assert!(!text.contains("axum Router docs"), "{text}");
    // Another pane of the agent, off screen all along, lost its chat first and says so too.
    app.update(key("Esc"));
    let other = world
        .snapshot()
        .panes()
        .find(|(_, _, p)| p.id != pane)
        .map(|(_, _, p)| p.id.clone())
        .expect("another pane");
    app.open_pane("demo", &other);
    app.update(key("g"));
    let text = screen_text(&app, size);
    assert!(text.contains("Older items were let go"), "{text}");
}

#[test]
fn pane_with_thinking_unfolded_scrolled_to_the_top() {
    snap("pane_thinking", |size| {
        let (_, mut app) = showcase(size);
        for message in [key("t"), key("g")] {
            app.update(message);
        }
        app
    });
}

#[test]
fn pane_with_an_item_selected_tinted_and_its_keys_under_the_chat() {
    snap("pane_selected", |size| {
        let (_, mut app) = showcase(size);
        // The newest item first, then the link above it.
        app.update(key("["));
        app.update(key("["));
        app
    });
    let size = (80, 24);
    let (_, mut app) = showcase(size);
    app.update(key("["));
    app.update(key("["));
    let backend = draw(&app, size);
    let text = backend.to_string();
    assert!(text.contains("▌ item 10 of 11 · y copy"), "{text}");
    let buffer = backend.buffer();
    let row_of = |words: &str| {
        (0..size.1)
            .find(|y| {
                (0..size.0)
                    .map(|x| buffer[(x, *y)].symbol().to_string())
                    .collect::<String>()
                    .contains(words)
            })
            .unwrap_or_else(|| panic!("no row with {words}"))
    };
    // The dark theme's `selected` background (themes/dark.toml), across the whole row.
    let tinted = ratatui::style::Color::Rgb(0x28, 0x34, 0x57);
    assert_eq!(buffer[(0, row_of("↗ axum Router docs"))].bg, tinted);
    assert_eq!(buffer[(70, row_of("https://docs.rs/axum"))].bg, tinted);
    assert_ne!(buffer[(0, row_of("The route is in."))].bg, tinted);
    // Esc lets the selection go before it leaves the pane.
    app.update(key("Esc"));
    assert!(!screen_text(&app, size).contains("▌ item"));
    assert!(matches!(
        app.nav().top(),
        collie_phone::screens::Screen::Pane(_)
    ));
}

/// SPEC L1: opening a link says the host it opens, read from the parsed URL.
#[test]
fn l1_o_on_a_link_names_the_host_it_opens() {
    let size = (80, 24);
    let (_, mut app) = showcase(size);
    app.update(key("["));
    app.update(key("["));
    let commands = app.update(key("o"));
    assert!(
        commands.iter().any(|c| matches!(
            c,
            collie_phone::app::Command::OpenLink(url) if url.starts_with("https://docs.rs/axum/")
        )),
        "{commands:?}"
    );
    let text = screen_text(&app, size);
    assert!(text.contains("Opening docs.rs in your browser…"), "{text}");
}

#[test]
fn y_copies_the_selected_item_cleaned_and_says_how_many_lines() {
    let size = (80, 24);
    let (_, mut app) = showcase(size);
    assert!(app.update(key("y")).is_empty());
    assert!(
        screen_text(&app, size).contains("Select an item first: [ and ] move the selection"),
        "{}",
        screen_text(&app, size)
    );
    // The code item above the link: its text, without the trailing newline.
    for _ in 0..3 {
        app.update(key("["));
    }
    let commands = app.update(key("y"));
    let copied: Vec<&String> = commands
        .iter()
        .filter_map(|c| match c {
            collie_phone::app::Command::Copy(text) => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(copied.len(), 1);
    assert!(copied[0].starts_with("async fn abort("), "{:?}", copied[0]);
    assert_eq!(copied[0].lines().count(), 4);
    let text = screen_text(&app, size);
    assert!(text.contains("Copied 4 lines to the clipboard"), "{text}");
    // Y on a reply: no code in it, in words.
    app.update(key("]"));
    app.update(key("]"));
    assert!(app.update(key("Y")).is_empty());
    assert!(screen_text(&app, size).contains("This item has no code block; y copies"));
}

#[test]
fn pane_search_lights_the_matches_and_counts_them() {
    snap("pane_search", |size| {
        let (_, mut app) = showcase(size);
        app.update(key("/"));
        app.update(Message::Paste("ROUTE".into()));
        app
    });
    snap("pane_search_kept", |size| {
        let (_, mut app) = showcase(size);
        app.update(key("/"));
        app.update(Message::Paste("route".into()));
        app.update(key("Enter"));
        app.update(key("N"));
        app
    });
    let size = (80, 24);
    let (_, mut app) = showcase(size);
    app.update(key("/"));
    app.update(Message::Paste("route".into()));
    let count = |app: &App| {
        let text = screen_text(app, size);
        text.lines()
            .find(|l| l.starts_with("\"/ "))
            .map(str::to_string)
            .unwrap_or_else(|| panic!("no count: {text}"))
    };
    let first = count(&app);
    let total: usize = first
        .split(" of ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.trim_matches(|c: char| !c.is_ascii_digit()).parse().ok())
        .expect("a count");
    assert!(first.contains(&format!("{total} of {total}")), "{first}");
    // Down on the line wraps around to the first; typed words are never lost.
    app.update(key("down"));
    assert!(count(&app).contains(&format!("1 of {total}")));
    app.update(key("Esc"));
    assert!(!screen_text(&app, size).contains("/ route"));
    app.update(key("/"));
    assert!(screen_text(&app, size).contains("/ route"));
    // The current match is drawn reversed.
    let backend = draw(&app, size);
    assert!(
        backend
            .buffer()
            .content
            .iter()
            .any(|c| c.modifier.contains(ratatui::style::Modifier::REVERSED)),
    );
    // CJK: the heading 注意 of the markdown item.
    app.update(key("ctrl-u"));
    app.update(Message::Paste("注意".into()));
    assert!(count(&app).contains("1 of 1"), "{}", count(&app));
    app.update(key("Enter"));
    app.update(key("n"));
    assert!(count(&app).contains("1 of 1"));
}

#[test]
fn in_a_pane_plus_opens_the_new_page_and_n_without_a_search_says_so() {
    let size = (80, 24);
    let (_, mut app) = showcase(size);
    app.update(key("n"));
    assert!(screen_text(&app, size).contains("No search yet: / searches in the chat."));
    app.update(key("+"));
    assert!(matches!(
        app.nav().top(),
        collie_phone::screens::Screen::New(_)
    ));
}

#[test]
fn pane_input_with_cjk_text_and_its_size() {
    snap("pane_input", |size| {
        let (_, mut app) = showcase(size);
        app.update(key("i"));
        app.update(Message::Paste(
            "把订单服务拆成三个模块 🚀\nthen run the tests".into(),
        ));
        app
    });
}

#[test]
fn l_pane_input_over_32k_is_refused_and_kept() {
    let size = (80, 24);
    let (_, mut app) = showcase(size);
    app.update(key("i"));
    app.update(Message::Paste("x".repeat(33 * 1024)));
    app.update(key("enter"));
    let text = screen_text(&app, size);
    assert!(text.contains("33.0 KiB / 32 KiB"), "{text}");
    assert!(text.contains("Not sent: the message is 33.0 KiB"), "{text}");
    assert_eq!(app.unsent_drafts(), 1);
}

/// Undo in a pane's box takes back what a person did in one go: a paste is one step, however
/// it came (bracketed, or without markers in pieces), two pastes are two, and typing goes a
/// word at a time (the space after a word belongs to it, so the first undo of "hello world"
/// leaves "hello ").
#[test]
fn undo_takes_back_a_whole_paste_and_typing_a_word_at_a_time() {
    let size = (80, 24);
    // The box and the line under it (its size).
    let box_text = |app: &App| {
        let rows = rows(app, size);
        let at = rows
            .iter()
            .position(|r| r.contains("┌ Message"))
            .expect("the box");
        rows[at..].join("\n")
    };
    let (_, mut app) = showcase(size);
    app.update(key("i"));
    app.update(Message::Paste("paste line\n".repeat(38 * 1024 / 11)));
    assert!(
        box_text(&app).contains("KiB / 32 KiB"),
        "{}",
        box_text(&app)
    );
    app.update(key("ctrl-z"));
    assert_eq!(app.unsent_drafts(), 0, "one Ctrl-Z empties a 38 KB paste");
    app.update(key("alt-z"));
    assert_eq!(app.unsent_drafts(), 1, "and a redo brings it back");
    app.update(key("ctrl-z"));
    // Without markers a paste comes in pieces of 4096 characters: still one step.
    let piece = "x".repeat(4096);
    for _ in 0..10 {
        app.update(Message::KeysPaste(piece.clone()));
    }
    assert!(
        box_text(&app).contains("40.0 KiB / 32 KiB"),
        "{}",
        box_text(&app)
    );
    app.update(key("ctrl-z"));
    assert_eq!(
        app.unsent_drafts(),
        0,
        "one Ctrl-Z empties a paste that came in pieces"
    );
    // Two pastes the person made are two steps.
    app.update(Message::Paste("first ".into()));
    app.update(Message::Paste("second".into()));
    app.update(key("ctrl-z"));
    let text = box_text(&app);
    assert!(text.contains("first") && !text.contains("second"), "{text}");
    app.update(key("ctrl-z"));
    assert_eq!(app.unsent_drafts(), 0);
    for c in "hello world".chars() {
        let name = if c == ' ' {
            "space".to_string()
        } else {
            c.to_string()
        };
        app.update(key(&name));
    }
    assert!(box_text(&app).contains("hello world"), "{}", box_text(&app));
    app.update(key("ctrl-z"));
    let text = box_text(&app);
    assert!(text.contains("hello") && !text.contains("world"), "{text}");
    app.update(key("ctrl-z"));
    assert_eq!(app.unsent_drafts(), 0);
    app.update(key("alt-z"));
    app.update(key("alt-z"));
    assert!(box_text(&app).contains("hello world"), "{}", box_text(&app));
}

#[test]
fn abort_confirm_names_the_turn() {
    snap("abort_confirm", |size| {
        let (_, mut app) = showcase(size);
        app.update(key("x"));
        app
    });
}

/// A question about a turn closes once that turn has ended, and says so: a yes to it would
/// stop nothing the person meant.
#[test]
fn a_stop_question_closes_when_its_turn_ends_and_says_so() {
    let (world, mut app) = showcase((80, 24));
    app.update(key("x"));
    let asked = screen_text(&app, (80, 24));
    assert!(
        asked.contains("Are you sure?") && asked.contains("Stop turn"),
        "{asked}"
    );
    let pane = pane_id(&world, "HTTP routes 🚀");
    // The agent's next event: the turn is done.
    let reply = world.events(&pane, 0, None).expect("events");
    let mut turn = world
        .snapshot()
        .pane(&pane)
        .and_then(|p| p.turn.clone())
        .expect("a turn");
    turn.state = TurnState::Done;
    let mut done = Event::new(reply.cursor + 1, EventType::Turn);
    done.turn = Some(turn);
    agent_change(
        &mut app,
        AgentChange::PaneEvents {
            pane: pane.clone(),
            events: vec![done],
        },
    );
    let after = screen_text(&app, (80, 24));
    assert!(!after.contains("Are you sure?"), "{after}");
    assert!(
        after.contains("ended before you said yes; nothing was stopped"),
        "{after}"
    );
    // The yes key now answers nothing: no stop is sent.
    app.frame_drawn();
    let commands = app.update(key("y"));
    assert!(
        !commands.iter().any(|c| format!("{c:?}").contains("Abort")),
        "{commands:?}"
    );
}

/// Keys that come before a frame shows the question (bunched over ssh, or already on their
/// way): the yes answers nothing; once drawn, the same key answers.
#[test]
fn a_yes_before_the_question_was_drawn_answers_nothing() {
    let (_, mut app) = showcase((80, 24));
    app.update(key("x"));
    let early = app.update(key("y"));
    assert!(early.is_empty(), "{early:?}");
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("Are you sure?"), "{text}");
    assert!(
        text.contains("This question just appeared. Read it, then answer it."),
        "{text}"
    );
    app.frame_drawn();
    let answered = app.update(key("y"));
    assert!(
        answered.iter().any(|c| format!("{c:?}").contains("Abort")),
        "{answered:?}"
    );
}

/// A pane whose agent missed a poll, then is unreachable, says so in its own rows; a poll
/// that goes through clears it.
#[test]
fn a_pane_says_when_its_agent_stops_answering_and_clears_when_it_is_back() {
    let missed = |size| {
        let (_, mut app) = showcase(size);
        agent_change(
            &mut app,
            AgentChange::Missed {
                reason: "poll: the socket refused the connection".into(),
            },
        );
        app
    };
    snap("pane_agent_missed_a_poll", missed);
    snap("pane_agent_unreachable", |size| {
        let (_, mut app) = showcase(size);
        agent_change(
            &mut app,
            AgentChange::Status(AgentStatus::Unreachable {
                reason: "the socket refused the connection".into(),
                last_seen: Some(NOW),
            }),
        );
        app
    });
    let mut app = missed((80, 24));
    assert!(screen_text(&app, (80, 24)).contains("missed a poll; retrying"));
    agent_change(&mut app, AgentChange::Synced(NOW));
    let back = screen_text(&app, (80, 24));
    assert!(!back.contains("missed a poll"), "{back}");
    assert!(!back.contains("last heard"), "{back}");
    assert!(back.contains("[F1 Lint]"), "the belt is back: {back}");
}

#[test]
fn pane_send_refused_keeps_the_words() {
    // A person's words are never lost: a refused send leaves them in the input.
    snap("pane_send_refused", |size| {
        let (world, mut app) = showcase(size);
        let pane = pane_id(&world, "HTTP routes 🚀");
        app.update(key("i"));
        app.update(Message::Paste("please also update the docs".into()));
        app.update(key("enter"));
        app.update(Message::Engine(FromEngine::Intent(IntentRecord {
            request_id: "r-send".into(),
            agent: "demo".into(),
            kind: IntentKind::Send {
                pane,
                turn_id: Some("t-old".into()),
                text: "please also update the docs".into(),
            },
            attempts: 1,
            state: IntentState::Refused {
                status: 409,
                code: "turn-changed".into(),
                message: None,
            },
            created_at: "2026-11-29T14:30:00Z".into(),
            checking: false,
            epoch: None,
        })));
        app
    });
}

/// The showcase pane with its agent down and one send typed there that never left: the
/// engine said not-sent with no try counted, so it waits for the agent (docs/ENGINE.md).
fn waiting_send(size: (u16, u16)) -> App {
    let (_, mut app) = showcase(size);
    agent_change(
        &mut app,
        AgentChange::Status(AgentStatus::Unreachable {
            reason: "the socket refused the connection".into(),
            last_seen: Some(NOW),
        }),
    );
    app.update(key("i"));
    app.update(Message::Paste("please also update the docs".into()));
    let kind = app
        .update(key("enter"))
        .into_iter()
        .find_map(|command| match command {
            Command::Engine(ToEngine::Submit { kind, .. }) => Some(kind),
            _ => None,
        })
        .expect("the send left for the engine");
    for state in [
        IntentState::Created,
        IntentState::NotSent {
            why: "the agent is not connected and ready".into(),
        },
    ] {
        app.update(Message::Engine(FromEngine::Intent(IntentRecord {
            request_id: "r-waits".into(),
            agent: "demo".into(),
            kind: kind.clone(),
            attempts: 0,
            state,
            created_at: "2026-11-29T14:30:00Z".into(),
            checking: false,
            epoch: None,
        })));
    }
    app
}

const CAME_BACK: &str = "Not sent: demo was not ready for 10 minutes";

#[test]
fn pane_words_that_waited_ten_minutes_come_back_with_a_lasting_line() {
    let wait = Duration::seconds(600);
    snap("pane_send_came_back", |size| {
        let mut app = waiting_send(size);
        app.update(Message::Tick(NOW + wait));
        app
    });
    let size = (80, 24);
    let mut app = waiting_send(size);
    let before = screen_text(&app, size);
    assert!(
        before.contains("waits for the agent, goes by itself"),
        "{before}"
    );
    app.update(Message::Tick(NOW + wait - Duration::seconds(1)));
    assert!(!screen_text(&app, size).contains(CAME_BACK));
    app.update(Message::Tick(NOW + wait));
    let back = screen_text(&app, size);
    assert!(
        back.contains(
            "Not sent: demo was not ready for 10 minutes; your words are back in the box."
        ),
        "{back}"
    );
    assert!(!back.contains("waits for the agent"), "{back}");
    assert!(
        back.contains("Back in the box of HTTP routes"),
        "the footer says where: {back}"
    );
    assert!(
        back.contains("│please also update the docs"),
        "in the box: {back}"
    );
    // A person away for hours reads it on return, the footer's short message long gone;
    // moving in the box and leaving it change nothing in it.
    app.update(Message::Tick(NOW + wait + Duration::hours(2)));
    for step in ["home", "left", "esc"] {
        app.update(key(step));
    }
    let later = screen_text(&app, size);
    assert!(later.contains(CAME_BACK), "it lasts: {later}");
    assert!(
        !later.contains("Back in the box of"),
        "the toast went: {later}"
    );
    // Wide enough, it says when.
    let mut wide = app.clone();
    wide.update(Message::Resize(160, 48));
    let wide = screen_text(&wide, (160, 48));
    assert!(
        wide.contains("Not sent: demo was not ready for 10 minutes, so at 14:40:00 UTC your words came back to the box."),
        "{wide}"
    );
    // Sent again: the line has done its work.
    let mut sent = app.clone();
    sent.update(key("i"));
    sent.update(key("enter"));
    let after = screen_text(&sent, size);
    assert!(!after.contains(CAME_BACK), "{after}");
    assert!(after.contains("› please also update the docs"), "{after}");
    // Edited instead: gone too, and an undo back to the same words does not bring it back.
    for step in ["i", "end", "!"] {
        app.update(key(step));
    }
    let edited = screen_text(&app, size);
    assert!(!edited.contains(CAME_BACK), "{edited}");
    assert!(edited.contains("please also update the docs!"), "{edited}");
    app.update(key("backspace"));
    assert!(!screen_text(&app, size).contains(CAME_BACK));
}

#[test]
fn new_page_lists_starters() {
    snap("new", |size| {
        let mut app = app_on(&demo_world(), false, size);
        app.update(key("n"));
        app
    });
}

fn with_history(size: (u16, u16)) -> (World, App) {
    let world = demo_world();
    let mut app = app_on(&world, false, size);
    app.update(key("H"));
    let page = world.conversations(None, 100).expect("a page");
    app.update(Message::Engine(FromEngine::History {
        agent: "demo".into(),
        page: HistoryPage::Conversations {
            after: None,
            page: decoded(&page),
        },
    }));
    (world, app)
}

#[test]
fn history_lists_conversations_newest_first() {
    snap("history", |size| with_history(size).1);
}

#[test]
fn a_conversation_reads_oldest_first() {
    snap("conversation", |size| {
        let (world, mut app) = with_history(size);
        for _ in 0..12 {
            app.update(key("j"));
        }
        app.update(key("enter"));
        let conversation = world
            .conversations(None, 100)
            .expect("a page")
            .conversations[12]
            .id
            .clone();
        let page = world
            .conversation_items(&conversation, None, 1000)
            .expect("items");
        app.update(Message::Engine(FromEngine::History {
            agent: "demo".into(),
            page: HistoryPage::Items {
                conversation,
                after: None,
                page: decoded(&page),
            },
        }));
        app
    });
}

#[test]
fn help_is_generated_for_the_screen() {
    snap("help_home", |size| {
        let mut app = app_on(&demo_world(), false, size);
        app.update(key("?"));
        app
    });
    snap("help_pane", |size| {
        let (_, mut app) = showcase(size);
        app.update(key("?"));
        app
    });
}

/// At 40x12 the help shows a few lines: its border says more lies below and which key shows
/// it, PgDn pages down, and no key scrolls past the last line (one key back up shows more
/// above at once, however many downs came before).
#[test]
fn at_40x12_the_help_says_there_is_more_and_pages_to_its_end() {
    let size = (40, 12);
    let mut app = app_on(&demo_world(), false, size);
    app.update(key("?"));
    let top = rows(&app, size);
    insta::assert_snapshot!("help_home_40x12_top", draw(&app, size));
    let bottom_border = top.iter().rev().find(|r| r.contains('└')).expect("a box");
    assert!(bottom_border.contains("↓ more: PgDn"), "{bottom_border}");
    assert!(
        top[11].contains("PgDn more"),
        "the footer hints it: {}",
        top[11]
    );
    assert!(!top[11].contains("PgUp"), "nothing above yet: {}", top[11]);
    app.update(key("pgdn"));
    let paged = rows(&app, size);
    assert_ne!(paged, top, "PgDn scrolled the help");
    let border = paged.iter().rev().find(|r| r.contains('└')).expect("a box");
    assert!(border.contains("↑↓ more: PgUp PgDn"), "{border}");
    insta::assert_snapshot!("help_home_40x12_paged", draw(&app, size));
    // Past the end, more downs change nothing and the footer stops offering them.
    for _ in 0..50 {
        app.update(key("pgdn"));
        app.update(key("j"));
    }
    let end = rows(&app, size);
    let border = end.iter().rev().find(|r| r.contains('└')).expect("a box");
    assert!(border.contains("↑ more: PgUp"), "{border}");
    assert!(!end[11].contains("PgDn"), "{}", end[11]);
    let box_text = end.join("\n");
    assert!(
        box_text.contains("section of config.toml"),
        "the last line shows: {box_text}"
    );
    app.update(key("end"));
    assert_eq!(rows(&app, size), end, "End is where the downs stopped");
    insta::assert_snapshot!("help_home_40x12_end", draw(&app, size));
    app.update(key("k"));
    assert_ne!(rows(&app, size), end, "one up moves at once");
    app.update(key("home"));
    assert_eq!(rows(&app, size), top, "Home goes back to the first line");
    // A space pages down too, and Esc closes the help.
    app.update(key("space"));
    assert_eq!(rows(&app, size), paged);
    app.update(key("esc"));
    assert!(!rows(&app, size).join("\n").contains("Keys: Home"));
}

/// While typing in a pane's box `?` is text, so Alt-? opens the help (Ctrl-G is the person's
/// editor), and the footer says so; the help lists the box's keys and, from the editor's own
/// table, every editing key.
#[test]
fn alt_question_while_typing_opens_the_help_with_the_editing_keys() {
    let size = (80, 24);
    let (_, mut app) = showcase(size);
    app.update(key("i"));
    app.update(key("?"));
    let typed = rows(&app, size);
    assert!(
        typed.iter().any(|r| r.starts_with("│?")),
        "? is typed: {typed:?}"
    );
    assert!(typed[23].contains("Alt-? keys"), "{}", typed[23]);
    app.update(key("alt-?"));
    let text = rows(&app, size).join("\n");
    assert!(text.contains("Keys: Pane input"), "{text}");
    insta::assert_snapshot!("help_pane_input_80x24", draw(&app, size));
    // Every line of it, paged through.
    let mut seen = text.clone();
    for _ in 0..6 {
        app.update(key("pgdn"));
        seen.push_str(&rows(&app, size).join("\n"));
    }
    for words in [
        "Enter",
        "Send",
        "Alt-Enter Ctrl-J",
        "Editing the text:",
        "Alt-b Ctrl-←",
        "Move a word left",
        "Ctrl-W Alt-Backspace",
        "Cut the word before the cursor",
        "Ctrl-Z Ctrl-_",
        "Undo: a paste at once, typing a word at a time",
        "Alt-z",
        "Redo what was undone",
        "Ctrl-G",
        "Edit the text in $VISUAL or $EDITOR, unsent",
    ] {
        assert!(seen.contains(words), "{words} in {seen}");
    }
    // Alt-? closes it again; the box kept its `?`.
    app.update(key("alt-?"));
    assert_eq!(rows(&app, size), typed);
}

#[test]
fn too_small_says_so() {
    for (width, height) in [(39, 12), (40, 11), (30, 8)] {
        let mut app = app_on(&demo_world(), false, (width, height));
        app.update(Message::Resize(width, height));
        let text = screen_text(&app, (width, height));
        assert!(
            text.replace(['\n', '"', '│'], " ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .contains(&format!(
                    "collie-phone needs at least 40x12; this terminal is {width}x{height}."
                )),
            "{text}"
        );
    }
    let mut app = app_on(&demo_world(), false, (39, 11));
    app.update(Message::Resize(39, 11));
    insta::assert_snapshot!("too_small_39x11", draw(&app, (39, 11)));
}

/// Every row of a screen as text, without the frame insta's text form puts around it.
fn rows(app: &App, size: (u16, u16)) -> Vec<String> {
    screen_text(app, size)
        .lines()
        .map(|l| {
            // insta's form: the row between quotes, then notes about wide characters.
            let row = l.strip_prefix('"').unwrap_or(l);
            let end = row
                .find("\" Hidden by")
                .unwrap_or_else(|| row.trim_end_matches('"').len());
            row[..end].to_string()
        })
        .collect()
}

/// At 40x12, the smallest the phone draws in, the keys that matter show whole in the footer
/// (never cut mid-word, with the help's and the way out's last to go, and `…` when some gave
/// way), the title bar counts the asks in few words, and every row fits.
#[test]
fn at_40x12_the_footer_keeps_whole_hints_and_the_help() {
    let size = (40, 12);
    let app = app_on(&demo_world(), false, size);
    let rows = rows(&app, size);
    for row in &rows {
        assert!(
            unicode_width::UnicodeWidthStr::width(row.as_str()) <= 40,
            "{row}"
        );
    }
    assert!(rows[0].ends_with("4 asks  "), "{}", rows[0]);
    assert!(rows[0].starts_with(" Home"), "{}", rows[0]);
    let footer = &rows[11];
    assert!(footer.contains("? help"), "{footer}");
    assert!(footer.contains("Enter open"), "{footer}");
    assert!(footer.contains("q quit"), "{footer}");
    // Whole hints, and a sign that some gave way: "H history" did not fit.
    assert!(!footer.contains("H history"), "{footer}");
    assert!(footer.trim_end().ends_with(" …"), "{footer}");
}

/// A permission asked at 40x12 shows its tool, its arguments, every option and the keys that
/// answer it, all at once.
#[test]
fn a_permission_at_40x12_shows_what_is_asked_and_every_option() {
    let size = (40, 12);
    let (app, _) = card_app(&world_asking(permission()), false, size);
    let text = rows(&app, size).join("\n");
    for words in [
        "Permission · revision 1",
        "Tool  shell",
        "$ cargo publish --dry-run",
        "1 y  Allow once",
        "2 n  Deny",
        "3 a  Allow always",
        "Enter answers",
    ] {
        assert!(text.contains(words), "{words} is missing:\n{text}");
    }
}

/// The name column fits the agent's whole name, and at 200 columns the inbox's kind stays
/// beside the titles instead of at the far right.
#[test]
fn home_columns_fit_their_contents_at_200_columns() {
    let size = (200, 60);
    let app = app_on(&demo_world(), false, size);
    insta::assert_snapshot!("home_200x60", draw(&app, size));
    let rows = rows(&app, size);
    let agent = rows
        .iter()
        .find(|r| r.starts_with("› ● demo"))
        .expect("the agent's row");
    assert!(!agent.contains('…'), "{agent}");
    let row = rows
        .iter()
        .find(|r| r.contains("Name for the release"))
        .expect("the text ask's row");
    let title_end =
        row.find("Name for the release").expect("the title") + "Name for the release".len();
    let kind = row.find("text").expect("the kind");
    assert!(
        kind - title_end < 30,
        "the kind is far from its title: {row}"
    );
}

/// At 80 columns a breadcrumb too long for the title bar is cut two columns before the ask
/// counter, never running into it.
#[test]
fn the_breadcrumb_never_runs_into_the_ask_counter() {
    let size = (80, 24);
    let (world, mut app) = with_history(size);
    for _ in 0..12 {
        app.update(key("j"));
    }
    app.update(key("enter"));
    let conversation = world
        .conversations(None, 100)
        .expect("a page")
        .conversations[12]
        .clone();
    let page = world
        .conversation_items(&conversation.id, None, 1000)
        .expect("items");
    app.update(Message::Engine(FromEngine::History {
        agent: "demo".into(),
        page: HistoryPage::Items {
            conversation: conversation.id.clone(),
            after: None,
            page: decoded(&page),
        },
    }));
    let rows = rows(&app, size);
    let title = &rows[0];
    assert!(title.ends_with("4 asks need your answer  "), "{title}");
    let left = title.trim_end_matches("4 asks need your answer  ");
    assert!(
        left.ends_with("  "),
        "the breadcrumb touches the counter: {title}"
    );
    insta::assert_snapshot!("breadcrumb_80x24", draw(&app, size));
}

// ----- ask cards -------------------------------------------------------------------------------

/// A world whose "Inbox screen" pane asks `ask`.
fn world_asking(ask: Ask) -> World {
    let mut world = demo_world();
    let pane = pane_id(&world, "Inbox screen");
    world.open_ask(&pane, "call-under-test", ask, NOW);
    world
}

/// The clock moves on by the reading time: keys may answer a card opened or changed before.
fn read(app: &mut App) {
    let now = app.now() + ARMING;
    app.update(Message::Tick(now));
}

fn card_app(world: &World, tls: bool, size: (u16, u16)) -> (App, AskKey) {
    let mut app = app_on(world, tls, size);
    let key = ask_key(world, "Inbox screen");
    app.open_card(key.clone());
    (app, key)
}

fn record(key: &AskKey, revision: u64, state: IntentState, attempts: u32) -> Message {
    Message::Engine(FromEngine::Intent(IntentRecord {
        request_id: "r-0123456789abcdef".into(),
        agent: key.agent.clone(),
        kind: IntentKind::Answer {
            pane: key.pane.clone(),
            ask_id: key.ask_id.clone(),
            revision,
            answer: Answer {
                option_id: Some("allow-once".into()),
                ..Answer::default()
            },
        },
        attempts,
        state,
        created_at: "2026-11-29T14:30:00Z".into(),
        checking: false,
        epoch: None,
    }))
}

fn permission() -> Ask {
    worlds::permission(
        "shell",
        json!({"command": "cargo publish --dry-run", "cwd": "/home/dev/src/支付服务"}),
    )
}

#[test]
fn a10_permission_card_shows_tool_and_arguments_as_data() {
    snap("card_permission", |size| {
        card_app(&world_asking(permission()), false, size).0
    });
}

/// The `rawInput` of the first `session/request_permission` of a captured real agent's
/// exchange (tests/fixtures/acp/real/README.md).
fn captured_input(fixture: &str) -> Value {
    fixture
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("json"))
        .find(|m| m["method"] == "session/request_permission")
        .map(|m| m["params"]["toolCall"]["rawInput"].clone())
        .expect("a permission request")
}

#[test]
fn a10_an_agents_edit_shows_its_file_then_its_diff_and_a_command_shows_as_typed() {
    let edit = captured_input(include_str!(
        "../fixtures/acp/real/claude-code-acp-0.16.2-edit.jsonl"
    ));
    let world = world_asking(worlds::permission("edit", edit));
    let (app, _) = card_app(&world, false, (80, 24));
    snap_one("card_permission_claude_edit_80x24", &app, (80, 24));
    let text = screen_text(&app, (80, 24));
    for words in [
        "edit: /tmp/disc/claude/ws/notes.md",
        "--- /tmp/disc/claude/ws/notes.md",
        "-first line",
        "+second line",
        "replace_all: false",
    ] {
        assert!(text.contains(words), "{words} is missing:\n{text}");
    }
    assert!(!text.contains("old_string"), "{text}");
    let exec = captured_input(include_str!(
        "../fixtures/acp/real/codex-acp-0.16.0-exec-command.jsonl"
    ));
    let world = world_asking(worlds::permission("execute", exec));
    let (app, _) = card_app(&world, false, (80, 24));
    snap_one("card_permission_codex_exec_80x24", &app, (80, 24));
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("execute: touch proof.txt"), "{text}");
    assert!(text.contains("$ touch proof.txt"), "{text}");
    assert!(
        !text.contains("/bin/bash") && !text.contains("parsed_cmd"),
        "{text}"
    );
}

#[test]
fn a11_no_allow_always_over_tls() {
    snap("card_permission_tls", |size| {
        card_app(&world_asking(permission()), true, size).0
    });
    let (app, _) = card_app(&world_asking(permission()), true, (80, 24));
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("Allow always is not offered: this agent is reached over TLS."));
    assert!(!text.contains("a  Allow always"));
}

#[test]
fn a12_no_allow_always_on_cleaned_words_or_without_a_tool() {
    let mut cleaned = permission();
    cleaned.title = "shell: cargo\u{202e} publish".into();
    let (app, _) = card_app(&world_asking(cleaned), false, (80, 24));
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("Allow always is not offered: this card's words were cut or cleaned."));
    snap("card_permission_no_tool", |size| {
        let mut no_tool = permission();
        if let Some(body) = no_tool.permission.as_mut() {
            body.tool = String::new();
        }
        card_app(&world_asking(no_tool), false, size).0
    });
}

#[test]
fn a15_choice_card_in_chinese() {
    snap("card_choice", |size| {
        let world = demo_world();
        let mut app = app_on(&world, false, size);
        app.open_card(ask_key(&world, "重构订单服务 🧾"));
        app.update(key("j"));
        app
    });
}

#[test]
fn a15_text_card_with_typed_words() {
    snap("card_text", |size| {
        let world = demo_world();
        let mut app = app_on(&world, false, size);
        app.open_card(ask_key(&world, "Docs ✍️"));
        app.update(Message::Paste("静湖 Quiet Lake".into()));
        app
    });
}

/// SPEC A15: the card runs the agent's own check before it sends, so a text over the answer
/// limit is refused on the card in the agent's words and stays in the box.
#[test]
fn a15_a_text_card_keeps_an_answer_its_ask_does_not_take() {
    let size = (80, 24);
    let world = demo_world();
    let mut app = app_on(&world, false, size);
    app.open_card(ask_key(&world, "Docs ✍️"));
    let long = "字".repeat(12 * 1024);
    app.update(Message::Paste(long.clone()));
    read(&mut app);
    let commands = app.update(key("enter"));
    assert!(
        !commands
            .iter()
            .any(|c| matches!(c, Command::Engine(ToEngine::Submit { .. }))),
        "nothing is sent: {commands:?}"
    );
    let screen = screen_text(&app, size);
    assert!(
        screen.contains("Nothing was sent: text over 32 KiB."),
        "{screen}"
    );
    assert!(screen.contains("字字字"), "the words stay: {screen}");
}

#[test]
fn a15_form_card_with_a_missing_required_field() {
    snap("card_form", |size| {
        let world = world_asking({
            let mut form = worlds::deploy_form();
            if let Some(body) = form.form.as_mut() {
                body.fields[0].default = None;
            }
            form
        });
        let (mut app, _) = card_app(&world, false, size);
        read(&mut app);
        for message in [key("tab"), key("space"), key("tab"), key("enter")] {
            app.update(message);
        }
        app
    });
}

/// A form as an ACP agent's elicitation makes it: a whole number in bounds, a pick-several
/// field of at most 2, an email, and Decline.
fn regions_form() -> Ask {
    serde_json::from_value(json!({
        "id": "regions", "revision": 1, "kind": "form", "title": "Roll out",
        "form": {
            "fields": [
                {"id": "replicas", "label": "Replicas", "kind": "number", "integer": true,
                 "min": 1, "max": 9, "default": 2},
                {"id": "regions", "label": "Regions", "kind": "choice", "multiple": true,
                 "max": 2, "options": [
                    {"id": "eu", "label": "Europe 🌍"}, {"id": "us", "label": "Americas"},
                    {"id": "ap", "label": "亚太 Asia-Pacific"}]},
                {"id": "contact", "label": "Contact", "kind": "text", "format": "email"}
            ],
            "options": [{"id": "decline", "label": "Decline"}]
        }
    }))
    .expect("a form ask")
}

fn picks(app: &App, card: &AskKey, field: usize) -> (Vec<bool>, usize) {
    match app.cards().get(card).and_then(|c| c.form()) {
        Some(form) => match &form.values[field] {
            FieldValue::Many { picked, at } => (picked.clone(), *at),
            other => panic!("field {field} is {other:?}"),
        },
        None => panic!("no form"),
    }
}

/// On a pick-several field a number selects (moves the highlight) and Space picks, as a number
/// selects and Enter answers on every card; a field of at most 2 refuses the third pick at the
/// key and says why (docs/KEYS.md, "One rule for numbers").
#[test]
fn a15_a_number_selects_on_a_pick_several_field_and_space_picks_within_its_most() {
    let world = world_asking(regions_form());
    let (mut app, card) = card_app(&world, false, (80, 24));
    read(&mut app);
    app.update(key("tab"));
    app.update(key("2"));
    assert_eq!(
        picks(&app, &card, 1),
        (vec![false, false, false], 1),
        "2 selects only"
    );
    app.update(key("space"));
    assert_eq!(
        picks(&app, &card, 1),
        (vec![false, true, false], 1),
        "Space picks"
    );
    app.update(key("1"));
    app.update(key("space"));
    assert_eq!(picks(&app, &card, 1).0, vec![true, true, false]);
    app.update(key("3"));
    app.update(key("space"));
    assert_eq!(
        picks(&app, &card, 1).0,
        vec![true, true, false],
        "a third pick is refused at the key"
    );
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("Regions takes at most 2"), "{text}");
    // Space on a picked one unpicks it; then the third may go in.
    app.update(key("1"));
    app.update(key("space"));
    app.update(key("3"));
    app.update(key("space"));
    assert_eq!(picks(&app, &card, 1).0, vec![false, true, true]);
    let text = screen_text(&app, (80, 24));
    assert!(!text.contains("takes at most"), "{text}");
}

/// A url card, as an ACP agent's sign-in makes it.
fn url_card() -> Ask {
    serde_json::from_value(json!({
        "id": "signin", "revision": 1, "kind": "choice", "title": "Sign in to 数据库 🔐",
        "choice": {"prompt": "Sign in to let me read the schema.",
                   "url": "https://auth.example.com/device?code=ABCD-1234",
                   "options": [{"id": "done", "label": "Done"}, {"id": "decline", "label": "Decline"}]}
    }))
    .expect("a url ask")
}

/// On a url card the key the card names copies its link, through the terminal as the pane's
/// copy does (OSC 52), and so does the key a failed open names; the help lists it.
#[test]
fn a_url_cards_copy_key_copies_its_link() {
    let size = (80, 24);
    let world = world_asking(url_card());
    let (mut app, _) = card_app(&world, false, size);
    read(&mut app);
    let text = screen_text(&app, size);
    assert!(
        text.contains("y copies it"),
        "the card names the key: {text}"
    );
    let copied = handed(&app.update(key("y")));
    assert!(
        copied.contains("Copy(\"https://auth.example.com/device?code=ABCD-1234\")"),
        "y copies the link: {copied}"
    );
    let text = screen_text(&app, size);
    assert!(text.contains("Copied 1 line"), "{text}");
    // A failed open names the key that copies here, and that key copies.
    app.update(Message::LinkOpened {
        url: "https://auth.example.com/device?code=ABCD-1234".into(),
        result: Err("no display to open a browser on.".into()),
    });
    let text = screen_text(&app, size);
    assert!(text.contains("y copies the link"), "{text}");
    assert!(handed(&app.update(key("y"))).contains("Copy("));
    assert!(
        app.help_now()
            .iter()
            .any(|(keys, words)| keys == "y" && words.contains("link")),
        "{:?}",
        app.help_now()
    );
}

/// The card's own hint line: the keys that act on the focused field.
fn card_hint(app: &App, size: (u16, u16)) -> String {
    let text = screen_text(app, size);
    let inside = |l: &str| {
        l.split(" Hidden by")
            .next()
            .unwrap_or_default()
            .trim_matches(|c| c == ' ' || c == '│' || c == '"')
            .to_string()
    };
    let lines: Vec<String> = text.lines().map(inside).collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("Tab/Shift-Tab"))
        .unwrap_or_else(|| panic!("a hint line: {text}"));
    lines[start..]
        .iter()
        .take_while(|l| !l.is_empty() && !l.starts_with('└'))
        .cloned()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Each field's hint names only keys that act on it, with what they do; each is pressed
/// here and does it (docs/KEYS.md, "A form's fields").
#[test]
fn a_form_hints_the_keys_of_the_focused_field_and_each_does_what_it_says() {
    let size = (80, 24);
    let world = world_asking(regions_form());
    let (mut app, card) = card_app(&world, false, size);
    read(&mut app);
    let number = |app: &App| match app.cards().get(&card).and_then(|c| c.form()) {
        Some(form) => match &form.values[0] {
            FieldValue::Number(editor) => editor.text(),
            other => panic!("the first field is {other:?}"),
        },
        None => panic!("no form"),
    };
    // A whole number: digits, - and +; nothing to change with ←/→ Space.
    let hint = card_hint(&app, size);
    assert!(hint.contains("type digits - +"), "{hint}");
    assert!(!hint.contains("Space"), "{hint}");
    for (k, typed) in [("-", "2-"), ("+", "2-+"), ("7", "2-+7")] {
        app.update(key(k));
        assert_eq!(number(&app), typed, "{k} types");
    }
    for _ in 0..3 {
        app.update(key("backspace"));
    }
    // A pick-several field: numbers and ←/→ select, Space picks.
    app.update(key("tab"));
    let hint = card_hint(&app, size);
    assert!(hint.contains("1–3 ←/→ select · Space picks"), "{hint}");
    app.update(key("right"));
    assert_eq!(picks(&app, &card, 1), (vec![false, false, false], 1));
    app.update(key("left"));
    app.update(key("space"));
    assert_eq!(picks(&app, &card, 1), (vec![true, false, false], 0));
    // A text field: typing, the fields and submit; no ←/→ Space change.
    app.update(key("tab"));
    let hint = card_hint(&app, size);
    assert!(!hint.contains("change"), "{hint}");
    assert!(hint.contains("Tab/Shift-Tab fields"), "{hint}");
    assert!(hint.contains("Enter submits"), "{hint}");
    // Decline: Enter declines, and the hint says so.
    app.update(key("tab"));
    let hint = card_hint(&app, size);
    assert!(hint.contains("Enter answers “Decline”"), "{hint}");
    assert!(
        !hint.contains("submits") && !hint.contains("change"),
        "{hint}"
    );
    let footer = screen_text(&app, size);
    let footer = footer.lines().last().unwrap_or_default();
    assert!(!footer.contains("submit"), "{footer}");
    app.update(key("shift-tab"));
    app.update(key("tab"));
    let sent = handed(&app.update(key("enter")));
    assert!(sent.contains("decline"), "Enter declined: {sent}");
}

/// On a short terminal the field being typed in stays in view, with its bounds, when the card
/// must give lines away.
#[test]
fn a_focused_field_stays_in_view_on_a_short_card() {
    let size = (40, 12);
    // As the ACP agent's form comes: the number last, under the pick-several field.
    let mut ask = regions_form();
    if let Some(body) = ask.form.as_mut() {
        body.fields.rotate_left(1);
        body.fields[2].description = Some("How many copies run at once".into());
        // A long label leaves a pick-several field's bounds no room beside it at 40 columns.
        body.fields[0].label = "Regions 区域 to roll out".into();
    }
    let world = world_asking(ask);
    let (mut app, _) = card_app(&world, false, size);
    read(&mut app);
    let text = screen_text(&app, size);
    assert!(text.contains("› Regions"), "{text}");
    // The lit option of a pick-several field stays in view too.
    app.update(key("3"));
    let text = screen_text(&app, size);
    assert!(text.contains("› 3 [ ] 亚太"), "{text}");
    app.update(key("tab"));
    let text = screen_text(&app, size);
    assert!(text.contains("› Contact"), "{text}");
    assert!(text.contains("an email address"), "{text}");
    app.update(key("tab"));
    let text = screen_text(&app, size);
    assert!(text.contains("› Replicas"), "{text}");
    assert!(text.contains("whole number, 1–9"), "{text}");
    // Every row, round the card, is in view while focused.
    for _ in 0..4 {
        app.update(key("tab"));
        let text = screen_text(&app, size);
        assert!(text.lines().skip(1).any(|l| l.contains("› ")), "{text}");
    }
}

/// The deploy form's pick-one and yes/no fields hint their own keys, and each acts.
#[test]
fn a_forms_choice_and_yes_no_fields_hint_their_own_keys() {
    let size = (80, 24);
    let world = world_asking(worlds::deploy_form());
    let (mut app, card) = card_app(&world, false, size);
    read(&mut app);
    let value = |app: &App, field: usize| match app.cards().get(&card).and_then(|c| c.form()) {
        Some(form) => format!("{:?}", form.values[field]),
        None => panic!("no form"),
    };
    let hint = card_hint(&app, size);
    assert!(hint.contains("1–3 ←/→ Space change"), "{hint}");
    for (k, now) in [
        ("3", "Choice(Some(2))"),
        ("right", "Choice(Some(0))"),
        ("left", "Choice(Some(2))"),
        ("space", "Choice(Some(0))"),
    ] {
        app.update(key(k));
        assert_eq!(value(&app, 0), now, "{k}");
    }
    app.update(key("tab"));
    let hint = card_hint(&app, size);
    assert!(hint.contains("Space ←/→ toggle"), "{hint}");
    for (k, now) in [
        ("space", "Boolean(false)"),
        ("left", "Boolean(true)"),
        ("right", "Boolean(false)"),
    ] {
        app.update(key(k));
        assert_eq!(value(&app, 1), now, "{k}");
    }
}

/// A form's one-line field shows the part around the cursor, with "…" where text is out of
/// sight, at every width: typed text never hides past the box's edge (docs/KEYS.md, "A form's
/// fields").
#[test]
fn a15_a_long_form_field_shows_the_cursors_part_and_marks_the_rest() {
    const LONG: &str = "部署说明：今天下午三点发布支付服务 🚀🚀 check the canary dashboards, \
                        and tell 值班同学 on call 📟 before 末尾END";
    let typed = |size: (u16, u16)| {
        let world = world_asking(worlds::deploy_form());
        let (mut app, card) = card_app(&world, false, size);
        read(&mut app);
        for _ in 0..3 {
            app.update(key("tab"));
        }
        app.update(Message::Paste(LONG.into()));
        (app, card)
    };
    snap("card_form_long_field", |size| typed(size).0);
    for size in [(40, 12), (80, 24), (200, 60)] {
        let (mut app, card) = typed(size);
        let row = |app: &App| {
            let text = screen_text(app, size);
            text.lines()
                .find(|l| l.contains("Notes"))
                .unwrap_or_else(|| panic!("the Notes row: {text}"))
                .to_string()
        };
        let end = row(&app);
        assert!(
            end.contains("末尾END"),
            "the cursor's end shows at {size:?}: {end}"
        );
        assert!(
            end.contains('…'),
            "text before is marked at {size:?}: {end}"
        );
        app.update(key("home"));
        let start = row(&app);
        assert!(
            start.contains("部署"),
            "the start shows at {size:?}: {start}"
        );
        assert!(
            start.contains('…'),
            "text after is marked at {size:?}: {start}"
        );
        // The agent gets the whole text.
        let value = match app.cards().get(&card).and_then(|c| c.form()) {
            Some(form) => match &form.values[3] {
                FieldValue::Text(editor) => editor.text(),
                other => panic!("the fourth field is {other:?}"),
            },
            None => panic!("no form"),
        };
        assert_eq!(value, LONG);
        // Away from the field, its start shows and "…" says there is more.
        app.update(key("tab"));
        let away = row(&app);
        assert!(away.contains("部署") && away.contains('…'), "{away}");
    }
}

#[test]
fn a15_a_number_field_edits_with_ctrl_chords_and_takes_only_number_chars() {
    let world = world_asking(worlds::deploy_form());
    let (mut app, card) = card_app(&world, false, (80, 24));
    let replicas = |app: &App| match app.cards().get(&card).and_then(|c| c.form()) {
        Some(form) => match &form.values[2] {
            FieldValue::Number(editor) => editor.text(),
            other => panic!("the third field is {other:?}"),
        },
        None => panic!("no form"),
    };
    for name in ["tab", "tab"] {
        app.update(key(name));
    }
    assert_eq!(replicas(&app), "2");
    app.update(key("ctrl-u"));
    assert_eq!(
        replicas(&app),
        "",
        "Ctrl-U is an edit, not a char to refuse"
    );
    for name in ["x", "1", "2"] {
        app.update(key(name));
    }
    assert_eq!(replicas(&app), "12");
    app.update(key("ctrl-z"));
    assert_eq!(replicas(&app), "");
    app.update(key("ctrl-z"));
    assert_eq!(replicas(&app), "2");
}

#[test]
fn v3_unknown_kind_has_no_buttons() {
    let ask: Ask = serde_json::from_value(json!({
        "id": "x", "revision": 1, "kind": "hologram", "title": "Project the design review",
        "hologram": {"depth": 3}
    }))
    .expect("an ask");
    snap("card_unknown_kind", |size| {
        card_app(&world_asking(ask.clone()), false, size).0
    });
    let (app, _) = card_app(&world_asking(ask), false, (80, 24));
    assert!(
        screen_text(&app, (80, 24))
            .contains("This kind of question cannot be answered from the phone.")
    );
}

#[test]
fn a13_countdown_ticks_and_turns_urgent_then_expired() {
    let expiring = |seconds: i64| {
        let mut ask = permission();
        ask.expires_at = Some(wire::Stamp::of(NOW + Duration::seconds(seconds)));
        ask
    };
    snap("card_countdown", |size| {
        card_app(&world_asking(expiring(95)), false, size).0
    });
    snap("card_countdown_urgent", |size| {
        let (mut app, _) = card_app(&world_asking(expiring(95)), false, size);
        app.update(Message::Tick(NOW + Duration::seconds(87)));
        app
    });
    let (mut app, _) = card_app(&world_asking(expiring(5)), false, (80, 24));
    assert!(screen_text(&app, (80, 24)).contains("0:05 left"));
    app.update(Message::Tick(NOW + Duration::seconds(6)));
    assert!(screen_text(&app, (80, 24)).contains("expired"));
}

#[test]
fn home_jumps_to_the_ask_that_expires_soonest() {
    let mut world = demo_world();
    let later = {
        let mut ask = permission();
        ask.expires_at = Some(wire::Stamp::of(NOW + Duration::seconds(300)));
        ask
    };
    let sooner = {
        let mut ask = worlds::text("Reviewer", "Who should review this PR?", "a handle", false);
        ask.expires_at = Some(wire::Stamp::of(NOW + Duration::seconds(40)));
        ask
    };
    let inbox_pane = pane_id(&world, "Inbox screen");
    let release_pane = pane_id(&world, "Release notes");
    world.open_ask(&inbox_pane, "call-later", later, NOW);
    world.open_ask(&release_pane, "call-sooner", sooner, NOW);
    let mut app = app_on(&world, false, (80, 24));
    app.update(key("e"));
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("Reviewer"), "{text}");
    assert!(text.contains("0:40 left"), "{text}");
}

/// Every answer state of SPEC A3, A7, A8, Q4, Q5 on the card, with its exact sentence.
#[test]
fn answer_states_on_the_card() {
    let world = world_asking(permission());
    let cases: Vec<(&str, IntentState, u32, &str)> = vec![
        ("sending", IntentState::Sending, 1, "Sending…"),
        (
            "stale",
            IntentState::Stale { revision: Some(2) },
            1,
            "This ask changed. Read it again and tap an answer.",
        ),
        (
            "decided_program",
            IntentState::Decided {
                by: Decider::Program,
                outcome: None,
            },
            1,
            "Decided on the durable agent.",
        ),
        (
            "decided_timeout",
            IntentState::Decided {
                by: Decider::Timeout,
                outcome: None,
            },
            1,
            "Timed out before an answer.",
        ),
        (
            "decided_phone",
            IntentState::Decided {
                by: Decider::Phone,
                outcome: None,
            },
            1,
            "Already answered. This card goes away on the next refresh.",
        ),
        (
            "too_late",
            IntentState::TooLate,
            1,
            "Not taken. The question may come back in a moment.",
        ),
        (
            "unknown",
            IntentState::Unknown {
                why: "no complete reply within 3000 ms".into(),
            },
            1,
            "Not sure the answer arrived. Retry sends it again.",
        ),
        (
            "maybe_applied",
            IntentState::MaybeApplied,
            2,
            "May already be applied. Check the chat.",
        ),
    ];
    for (name, state, attempts, sentence) in cases {
        let build = |size| {
            let (mut app, key) = card_app(&world, false, size);
            app.update(record(&key, 1, state.clone(), attempts));
            app
        };
        snap(&format!("card_state_{name}"), build);
        let text = screen_text(&build((160, 48)), (160, 48));
        assert!(text.contains(sentence), "{name}: {text}");
    }
}

#[test]
fn q4_retry_sends_the_same_request_id() {
    let world = world_asking(permission());
    let (mut app, key) = card_app(&world, false, (80, 24));
    app.update(record(
        &key,
        1,
        IntentState::Unknown {
            why: "the connection broke".into(),
        },
        1,
    ));
    // A retry sends an answer again: not inside the reading time either.
    assert!(app.update(self::key("R")).is_empty());
    read(&mut app);
    let commands = app.update(self::key("R"));
    let retried = commands.iter().any(|c| {
        matches!(c, collie_phone::app::Command::Engine(collie_phone::engine::ToEngine::Retry { request_id }) if request_id == "r-0123456789abcdef")
    });
    assert!(retried, "{commands:?}");
}

#[test]
fn a4_done_takes_the_card_away() {
    let world = world_asking(permission());
    let (mut app, key) = card_app(&world, false, (80, 24));
    read(&mut app);
    // y selects allow once; Enter answers it.
    assert!(app.update(self::key("y")).is_empty());
    let commands = app.update(self::key("enter"));
    assert!(matches!(
        commands.as_slice(),
        [collie_phone::app::Command::Engine(
            collie_phone::engine::ToEngine::Submit {
                kind: IntentKind::Answer { revision: 1, .. },
                ..
            }
        )]
    ));
    assert!(screen_text(&app, (80, 24)).contains("Sending…"));
    app.update(record(
        &key,
        1,
        IntentState::Done {
            reply: PostReply::ok("r-0123456789abcdef"),
        },
        1,
    ));
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("Answered."), "{text}");
    assert!(text.contains("Needs your answer"), "{text}");
}

#[test]
fn a_message_stays_on_the_screen_it_speaks_of_and_goes_at_the_next_move() {
    let world = world_asking(permission());
    let (mut app, key) = card_app(&world, false, (80, 24));
    read(&mut app);
    app.update(self::key("y"));
    app.update(self::key("enter"));
    app.update(record(
        &key,
        1,
        IntentState::Done {
            reply: PostReply::ok("r-0123456789abcdef"),
        },
        1,
    ));
    // The card closed and went back: the word about the answer shows where it went back to.
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("Answered."), "{text}");
    let depth = app.nav().depth();
    // The person opens another screen: the answer's word stays behind.
    app.update(self::key("enter"));
    assert_ne!(app.nav().depth(), depth, "Enter opened a screen");
    let text = screen_text(&app, (80, 24));
    assert!(!text.contains("Answered."), "{text}");
    // A word shown on this screen stays on it while the person stays.
    app.update(self::key("esc"));
    let text = screen_text(&app, (80, 24));
    assert!(!text.contains("Answered."), "{text}");
}

#[test]
fn a3_changed_ask_redraws_the_card() {
    let mut world = world_asking(permission());
    let (mut app, key) = card_app(&world, false, (80, 24));
    app.update(record(&key, 1, IntentState::Stale { revision: Some(2) }, 1));
    world.change_ask(
        &key.pane,
        &key.ask_id,
        |ask| {
            if let Some(body) = ask.permission.as_mut() {
                body.arguments = json!({"command": "cargo publish", "cwd": "/home/dev"});
            }
        },
        NOW,
    );
    load(&mut app, &world, false);
    snap_one("card_state_stale_redrawn", &app, (80, 24));
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("cwd: /home/dev "), "{text}");
    // The old folder shows only as what it was, in the change banner (docs/ASKS.md, "What
    // changed").
    assert!(!text.contains("cwd: /home/dev/src/支付服务"), "{text}");
    assert!(text.contains("was /home/dev/src/支付服务"), "{text}");
    // The change came under the person's eyes: Enter answers nothing until it was read.
    assert!(app.update(self::key("enter")).is_empty());
    assert!(screen_text(&app, (80, 24)).contains("This ask just changed. Read it, then answer."));
    read(&mut app);
    // The answer now names the new revision.
    let commands = app.update(self::key("enter"));
    assert!(matches!(
        commands.as_slice(),
        [collie_phone::app::Command::Engine(
            collie_phone::engine::ToEngine::Submit {
                kind: IntentKind::Answer { revision: 2, .. },
                ..
            }
        )]
    ));
}

// ----- cards that cannot be answered unread (docs/ASKS.md) -------------------------------------

/// The engine commands of a batch of messages, in order.
fn engine_commands(app: &mut App, messages: Vec<Message>) -> Vec<collie_phone::engine::ToEngine> {
    messages
        .into_iter()
        .flat_map(|m| app.update(m))
        .filter_map(|c| match c {
            collie_phone::app::Command::Engine(e) => Some(e),
            _ => None,
        })
        .filter(|e| !matches!(e, collie_phone::engine::ToEngine::Watching(_)))
        .collect()
}

/// The option id and revision of the one answer in `commands`.
fn one_answer(commands: &[collie_phone::engine::ToEngine]) -> (String, u64) {
    match commands {
        [
            collie_phone::engine::ToEngine::Submit {
                kind:
                    IntentKind::Answer {
                        revision, answer, ..
                    },
                ..
            },
        ] => (answer.option_id.clone().unwrap_or_default(), *revision),
        other => panic!("one answer, not {other:?}"),
    }
}

fn force_push() -> Ask {
    worlds::permission(
        "shell",
        json!({"command": "git push --force origin feature/store", "cwd": "/home/dev/src/collie-phone"}),
    )
}

/// The card of the force push, read long ago, then changed to --force-with-lease at `at`.
fn changed_under_the_eyes(size: (u16, u16), at: OffsetDateTime) -> (App, AskKey) {
    let mut world = world_asking(force_push());
    let (mut app, ask) = card_app(&world, false, size);
    app.update(Message::Tick(at - Duration::seconds(20)));
    world.change_ask(
        &ask.pane,
        &ask.ask_id,
        |ask| {
            if let Some(body) = ask.permission.as_mut() {
                body.arguments["command"] =
                    json!("git push --force-with-lease origin feature/store");
                ask.title = worlds::permission_title(&body.tool, &body.arguments);
            }
        },
        NOW,
    );
    app.update(Message::Tick(at));
    load(&mut app, &world, false);
    (app, ask)
}

#[test]
fn a_change_under_the_eyes_answers_nothing_within_the_arming_time() {
    let at = NOW + Duration::seconds(30);
    snap("card_changed_under_the_eyes", |size| {
        changed_under_the_eyes(size, at).0
    });
    let (mut app, ask) = changed_under_the_eyes((80, 24), at);
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("Permission · revision 2"), "{text}");
    assert!(
        text.contains("Changed while on screen (revision 1 → 2)"),
        "{text}"
    );
    assert!(text.contains("was git push --force origin"), "{text}");
    assert!(
        text.contains("now git push --force-with-lease origin"),
        "{text}"
    );
    // Enter pressed with the redraw, and again just before the reading time is over: nothing.
    assert!(engine_commands(&mut app, vec![key("enter"), key("enter")]).is_empty());
    app.update(Message::Tick(at + ARMING - Duration::milliseconds(1)));
    assert!(engine_commands(&mut app, vec![key("enter")]).is_empty());
    let text = screen_text(&app, (80, 24));
    assert!(
        text.contains("This ask just changed. Read it, then answer."),
        "{text}"
    );
    // The refused keys were not kept to fire later: the reading time ends and nothing leaves.
    assert!(engine_commands(&mut app, vec![Message::Tick(at + ARMING)]).is_empty());
    assert!(app.cards()[&ask].changes(app.agent_offer("demo")).is_some());
    // After it, Enter answers the revision on screen, and the change counts as seen.
    let commands = engine_commands(&mut app, vec![key("enter")]);
    assert_eq!(one_answer(&commands), ("allow-once".to_string(), 2));
}

#[test]
fn a_move_after_the_arming_time_acknowledges_the_change() {
    let at = NOW + Duration::seconds(30);
    let (mut app, ask) = changed_under_the_eyes((80, 24), at);
    // A move inside the reading time selects, but the change stays marked.
    app.update(key("j"));
    assert_eq!(app.cards()[&ask].selected(), 1);
    assert!(app.cards()[&ask].changes(app.agent_offer("demo")).is_some());
    app.update(Message::Tick(at + ARMING));
    app.update(key("k"));
    assert_eq!(app.cards()[&ask].selected(), 0);
    assert!(app.cards()[&ask].changes(app.agent_offer("demo")).is_none());
    let text = screen_text(&app, (80, 24));
    assert!(!text.contains("Changed while on screen"), "{text}");
    assert!(text.contains("Permission · revision 2"), "{text}");
}

#[test]
fn number_keys_and_letters_only_select() {
    let (mut app, ask) = card_app(&world_asking(force_push()), false, (80, 24));
    read(&mut app);
    assert!(engine_commands(&mut app, vec![key("3")]).is_empty());
    assert_eq!(app.cards()[&ask].selected(), 2);
    let text = screen_text(&app, (80, 24));
    assert!(
        text.contains("Enter asks again before it allows always"),
        "{text}"
    );
    assert!(engine_commands(&mut app, vec![key("n")]).is_empty());
    assert_eq!(app.cards()[&ask].selected(), 1);
    assert!(engine_commands(&mut app, vec![key("2"), key("y")]).is_empty());
    assert_eq!(app.cards()[&ask].selected(), 0);
    let text = screen_text(&app, (80, 24));
    assert!(
        text.contains("↑/↓, 1–4, y/n/a select · Enter answers the selected one"),
        "{text}"
    );
    let commands = engine_commands(&mut app, vec![key("n"), key("enter")]);
    assert_eq!(one_answer(&commands), ("deny".to_string(), 1));
}

#[test]
fn allow_always_asks_again_naming_the_tool_and_enter_never_says_yes() {
    snap("card_allow_always_question", |size| {
        let (mut app, _) = card_app(&world_asking(force_push()), false, size);
        read(&mut app);
        app.update(key("a"));
        app.update(key("enter"));
        app
    });
    let (mut app, ask) = card_app(&world_asking(force_push()), false, (80, 24));
    read(&mut app);
    // a selects; Enter puts the question up; neither sends anything.
    assert!(engine_commands(&mut app, vec![key("a"), key("enter")]).is_empty());
    assert!(matches!(app.overlay(), Some(Overlay::AllowAlways(_))));
    let text = screen_text(&app, (80, 24));
    assert!(
        text.contains("Allow always on demo · Inbox screen"),
        "{text}"
    );
    assert!(
        text.contains("the agent may run shell without asking you"),
        "{text}"
    );
    assert!(
        text.contains("$ git push --force origin feature/store"),
        "{text}"
    );
    // A second Enter, and a y in the same breath, say nothing.
    assert!(engine_commands(&mut app, vec![key("enter"), key("y")]).is_empty());
    assert!(matches!(app.overlay(), Some(Overlay::AllowAlways(_))));
    let text = screen_text(&app, (80, 24));
    assert!(
        text.contains("This question just appeared. Read it, then answer it."),
        "{text}"
    );
    // n cancels: nothing is sent, the card says so.
    read(&mut app);
    assert!(engine_commands(&mut app, vec![key("n")]).is_empty());
    assert!(app.overlay().is_none());
    assert!(
        screen_text(&app, (80, 24))
            .contains("You cancelled allow always, so nothing was sent; the ask is still open.")
    );
    // a, Enter, the reading time, y: exactly one answer, the allow-always option.
    assert!(engine_commands(&mut app, vec![key("a"), key("enter")]).is_empty());
    read(&mut app);
    let commands = engine_commands(&mut app, vec![key("y"), key("y")]);
    assert_eq!(one_answer(&commands), ("allow-always".to_string(), 1));
    assert!(app.overlay().is_none());
    assert!(app.intents().answer_pending(&ask));
}

#[test]
fn the_allow_always_question_goes_when_the_ask_changes_under_it() {
    let mut world = world_asking(force_push());
    let (mut app, ask) = card_app(&world, false, (80, 24));
    read(&mut app);
    app.update(key("a"));
    app.update(key("enter"));
    read(&mut app);
    world.change_ask(
        &ask.pane,
        &ask.ask_id,
        |ask| {
            if let Some(body) = ask.permission.as_mut() {
                body.arguments["command"] = json!("rm -rf ~");
            }
        },
        NOW,
    );
    load(&mut app, &world, false);
    assert!(app.overlay().is_none());
    // The y meant for the old question lands on the card: it only selects allow once.
    assert!(engine_commands(&mut app, vec![key("y")]).is_empty());
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("now rm -rf ~"), "{text}");
}

#[test]
fn text_and_form_cards_submit_only_after_the_arming_time() {
    let world = demo_world();
    let mut app = app_on(&world, false, (80, 24));
    app.open_card(ask_key(&world, "Docs ✍️"));
    app.update(Message::Paste("Quiet Lake".into()));
    assert!(engine_commands(&mut app, vec![key("enter")]).is_empty());
    let text = screen_text(&app, (80, 24));
    assert!(
        text.contains("This card just opened. Read it, then answer."),
        "{text}"
    );
    assert!(text.contains("› Quiet Lake"), "{text}");
    read(&mut app);
    let commands = engine_commands(&mut app, vec![key("enter")]);
    assert!(
        matches!(commands.as_slice(), [collie_phone::engine::ToEngine::Submit { kind: IntentKind::Answer { answer, .. }, .. }] if answer.text.as_deref() == Some("Quiet Lake")),
        "{commands:?}"
    );
    let world = world_asking(worlds::deploy_form());
    let (mut app, _) = card_app(&world, false, (80, 24));
    assert!(engine_commands(&mut app, vec![key("enter")]).is_empty());
    read(&mut app);
    assert_eq!(engine_commands(&mut app, vec![key("enter")]).len(), 1);
}

#[test]
fn a_card_opened_from_the_inbox_is_read_before_it_answers() {
    let mut app = app_on(&demo_world(), false, (80, 24));
    // Down into the inbox, open the first ask, then Enter, a letter and Enter straight after:
    // nothing leaves.
    let commands = engine_commands(
        &mut app,
        vec![key("j"), key("enter"), key("enter"), key("y"), key("enter")],
    );
    assert!(commands.is_empty(), "{commands:?}");
    let text = screen_text(&app, (80, 24));
    assert!(
        text.contains("This card just opened. Read it, then answer."),
        "{text}"
    );
    // Leaving and opening it again starts the reading time again.
    read(&mut app);
    let commands = engine_commands(&mut app, vec![key("esc"), key("enter"), key("enter")]);
    assert!(commands.is_empty(), "{commands:?}");
}

fn snap_one(name: &str, app: &App, size: (u16, u16)) {
    insta::assert_snapshot!(name, draw(app, size));
}

#[test]
fn a5_a6_decided_on_the_agent_shows_on_card_and_in_chat() {
    let world = world_asking(permission());
    let (mut app, key) = card_app(&world, false, (80, 24));
    let mut closed = Event::new(1_000_000, EventType::AskClosed);
    closed.ask_id = Some(key.ask_id.clone());
    closed.decided_by = Some(DecidedBy::Program);
    closed.outcome = Some(Outcome {
        summary: "Denied: the turn was stopped".into(),
        ..Outcome::default()
    });
    agent_change(
        &mut app,
        AgentChange::PaneEvents {
            pane: key.pane.clone(),
            events: vec![closed],
        },
    );
    snap_one("card_closed_by_program", &app, (80, 24));
    assert!(
        screen_text(&app, (80, 24))
            .contains("Decided on the durable agent: “Denied: the turn was stopped”.")
    );
    app.update(self::key("esc"));
    app.open_pane("demo", &key.pane);
    let text = screen_text(&app, (160, 48));
    assert!(
        text.contains("Decided on the durable agent: shell: cargo publish --dry-run"),
        "{text}"
    );
}

#[test]
fn bell_rings_for_a_new_ask_only() {
    let mut world = demo_world();
    let mut app = app_on(&world, false, (80, 24));
    // The person is away: the terminal lost focus (a watched phone rings quietly).
    app.update(Message::Focus(false));
    let pane = pane_id(&world, "Inbox screen");
    world.open_ask(&pane, "call-new", permission(), NOW);
    let snapshot = decoded::<Snapshot>(&world.snapshot());
    let rang = |commands: Vec<collie_phone::app::Command>| {
        commands
            .iter()
            .any(|c| matches!(c, collie_phone::app::Command::Bell))
    };
    let commands = app.update(Message::Engine(FromEngine::Agent {
        agent: "demo".into(),
        change: AgentChange::Snapshot {
            snapshot: Arc::new(snapshot.clone()),
            report: Report::default(),
        },
    }));
    // The pane's chat has not read the ask's event yet: the snapshot alone rings once.
    let view = decoded::<EventsReply>(&world.events(&pane, 0, None).expect("events"))
        .view
        .expect("a view");
    let after_view = app.update(Message::Engine(FromEngine::Agent {
        agent: "demo".into(),
        change: AgentChange::PaneView {
            pane: pane.clone(),
            view,
        },
    }));
    assert!(rang(commands) || rang(after_view));
    let again = app.update(Message::Engine(FromEngine::Agent {
        agent: "demo".into(),
        change: AgentChange::Snapshot {
            snapshot: Arc::new(snapshot),
            report: Report::default(),
        },
    }));
    assert!(!rang(again));
}

#[test]
fn quit_asks_first_when_a_draft_would_be_dropped() {
    let (_, mut app) = showcase((80, 24));
    app.update(key("i"));
    app.update(Message::Paste("half a thought".into()));
    app.update(key("esc"));
    let commands = app.update(key("q"));
    assert!(commands.is_empty());
    snap_one("quit_confirm", &app, (80, 24));
    // The runner tells the app each frame it drew; the question is on screen now.
    app.frame_drawn();
    let commands = app.update(key("y"));
    assert!(matches!(
        commands.as_slice(),
        [collie_phone::app::Command::Quit]
    ));
}

// ----- mouse, watching, paging -----------------------------------------------------------------

fn click(column: u16, row: u16) -> Message {
    Message::Mouse(crossterm::event::MouseEvent {
        kind: crossterm::event::MouseEventKind::Down(crossterm::event::MouseButton::Left),
        column,
        row,
        modifiers: crossterm::event::KeyModifiers::NONE,
    })
}

#[test]
fn a_click_selects_an_inbox_row_and_a_second_click_opens_it() {
    let mut app = app_on(&demo_world(), false, (80, 24));
    let inbox = collie_phone::app::geometry::home(80, 24, 1).inbox;
    app.update(click(10, inbox.y + 1));
    let text = screen_text(&app, (80, 24));
    assert!(text.lines().any(|l| l.contains("› demo  Docs")), "{text}");
    app.update(click(10, inbox.y + 1));
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("What should v0.3 be called"), "{text}");
}

#[test]
fn the_wheel_scrolls_a_pane_and_g_follows_again() {
    let (_, mut app) = showcase((80, 24));
    let bottom = screen_text(&app, (80, 24));
    for _ in 0..3 {
        app.update(Message::Mouse(crossterm::event::MouseEvent {
            kind: crossterm::event::MouseEventKind::ScrollUp,
            column: 10,
            row: 5,
            modifiers: crossterm::event::KeyModifiers::NONE,
        }));
    }
    let scrolled = screen_text(&app, (80, 24));
    assert_ne!(bottom, scrolled);
    assert!(scrolled.contains("↓ more below"), "{scrolled}");
    app.update(key("G"));
    assert_eq!(screen_text(&app, (80, 24)), bottom);
}

#[test]
fn s7_watching_follows_focus_and_the_last_key() {
    use collie_phone::app::Command;
    use collie_phone::engine::ToEngine;
    let mut app = app_on(&demo_world(), false, (80, 24));
    let watching = |commands: &[Command]| {
        commands.iter().find_map(|c| match c {
            Command::Engine(ToEngine::Watching(on)) => Some(*on),
            _ => None,
        })
    };
    assert_eq!(watching(&app.update(Message::Focus(false))), Some(false));
    assert_eq!(watching(&app.update(key("j"))), Some(true));
    assert_eq!(
        watching(&app.update(Message::Tick(NOW + Duration::seconds(30)))),
        None
    );
    assert_eq!(
        watching(&app.update(Message::Tick(NOW + Duration::seconds(61)))),
        Some(false)
    );
    assert_eq!(watching(&app.update(Message::Focus(true))), Some(true));
}

#[test]
fn w5_items_page_as_the_reader_nears_the_end_without_moving_the_view() {
    use collie_phone::app::Command;
    use collie_phone::engine::ToEngine;
    let world = demo_world();
    // The demo keeps one conversation of 1500 items: two pages of SPEC L's 1000.
    let mut after = None;
    let long = loop {
        let page = world.conversations(after.as_deref(), 100).expect("a page");
        if let Some(row) = page.conversations.iter().find(|c| c.item_count == 1500) {
            break row.clone();
        }
        after = Some(page.next.expect("the long conversation is in some page"));
    };
    let (_, mut app) = with_history((80, 24));
    app.update(Message::Engine(FromEngine::History {
        agent: "demo".into(),
        page: HistoryPage::Conversations {
            after: None,
            page: decoded(&collie_phone::wire::ConversationsPage {
                conversations: vec![long.clone()],
                next: None,
            }),
        },
    }));
    app.update(key("enter"));
    let first = world
        .conversation_items(&long.id, None, 1000)
        .expect("items");
    let cursor = first.next.clone().expect("a second page");
    app.update(Message::Engine(FromEngine::History {
        agent: "demo".into(),
        page: HistoryPage::Items {
            conversation: long.id.clone(),
            after: None,
            page: decoded(&first),
        },
    }));
    let commands = app.update(key("G"));
    let asked = commands.iter().any(|c| {
        matches!(c, Command::Engine(ToEngine::LoadItems { after: Some(a), .. }) if *a == cursor)
    });
    assert!(asked, "{commands:?}");
    let before = screen_text(&app, (80, 24));
    let second = world
        .conversation_items(&long.id, Some(&cursor), 1000)
        .expect("items");
    app.update(Message::Engine(FromEngine::History {
        agent: "demo".into(),
        page: HistoryPage::Items {
            conversation: long.id.clone(),
            after: Some(cursor),
            page: decoded(&second),
        },
    }));
    let after_page = screen_text(&app, (80, 24));
    // The heading counts the new items; the chat under it has not moved, and says the new
    // page is below it.
    assert!(after_page.contains("1500 items"), "{after_page}");
    let note = "↓ more below (G)";
    assert!(after_page.contains(note), "{after_page}");
    let without_note = after_page.replace(note, &" ".repeat(note.chars().count()));
    assert_eq!(
        before.lines().skip(2).collect::<Vec<_>>(),
        without_note.lines().skip(2).collect::<Vec<_>>()
    );
}

/// The open ask of the pane titled `title` closes on the agent: timed out (SPEC A6), as its
/// `ask-closed` event says.
fn expire(app: &mut App, world: &World, title: &str, seq: u64) {
    let key = ask_key(world, title);
    let mut closed = Event::new(seq, EventType::AskClosed);
    closed.ask_id = Some(key.ask_id.clone());
    closed.decided_by = Some(DecidedBy::Timeout);
    agent_change(
        app,
        AgentChange::PaneEvents {
            pane: key.pane,
            events: vec![closed],
        },
    );
}

/// The row of Home's inbox marked as selected.
fn selected_inbox_row(app: &App) -> String {
    screen_text(app, (120, 40))
        .lines()
        .map(|l| l.trim_start_matches('"'))
        .skip_while(|l| !l.starts_with("Needs your answer"))
        .find(|l| l.starts_with('›'))
        .unwrap_or_else(|| panic!("no inbox row is selected:\n{}", screen_text(app, (120, 40))))
        .to_string()
}

#[test]
fn the_inbox_selection_stays_on_its_row_and_falls_to_the_nearest() {
    let world = demo_world();
    let mut app = app_on(&world, false, (120, 40));
    // Into the inbox, onto its last row.
    for message in [key("j"), key("j"), key("j"), key("j")] {
        app.update(message);
    }
    assert!(selected_inbox_row(&app).contains("Deploy settings"));
    // An ask above it times out: the selection stays on the same ask.
    expire(&mut app, &world, "HTTP routes 🚀", 1_000_000);
    assert!(screen_text(&app, (120, 40)).contains("Needs your answer (3)"));
    assert!(selected_inbox_row(&app).contains("Deploy settings"));
    // The selected ask itself expires: the nearest row is selected, and Enter opens it.
    expire(&mut app, &world, "Pipeline ⚙️", 1_000_000);
    assert!(selected_inbox_row(&app).contains("选择迁移策略"));
    app.update(key("enter"));
    let text = screen_text(&app, (120, 40));
    assert!(!text.contains("Nothing needs your answer."), "{text}");
    assert!(text.contains("订单表有 1200 万行"), "{text}");
}

// ----- a pane's settings and commands --------------------------------------------------------

/// The showcase pane as an ACP host shows one: a mode (one of whose choices acts without
/// asking), an option, and more commands than the belt holds (docs/WIRE.md § 5.13, § 5.14).
fn with_settings(world: &World, app: &mut App, current_mode: &str) {
    with_settings_used(world, app, current_mode, None);
}

/// The showcase pane with settings, and the usage its agent says (`usage` on the wire).
fn with_settings_used(world: &World, app: &mut App, current_mode: &str, usage: Option<Value>) {
    let mut snapshot = decoded::<Snapshot>(&world.snapshot());
    let id = pane_id(world, "HTTP routes 🚀");
    let pane = snapshot
        .workspaces
        .iter_mut()
        .flat_map(|w| w.tabs.iter_mut())
        .flat_map(|t| t.panes.iter_mut())
        .find(|p| p.id == id)
        .expect("the showcase pane");
    let extra: wire::Pane = serde_json::from_value(json!({
        "id": id, "title": "x", "state": "idle",
        "settings": [
            {"id": "mode", "name": "Mode", "current": current_mode, "choices": [
                {"id": "ask", "name": "Ask first", "description": "Asks before it runs anything"},
                {"id": "plan", "name": "Plan only", "description": "Plans and reads, changes nothing"},
                {"id": "yolo", "name": "Act without asking", "description": "Runs and edits without asking you", "actsWithoutAsking": true}
            ]},
            {"id": "speed", "name": "Speed", "current": "careful", "choices": [
                {"id": "careful", "name": "Careful"}, {"id": "quick", "name": "Quick"}
            ]}
        ],
        "commands": [
            {"name": "test", "description": "Run the tests"},
            {"name": "review", "description": "Review the last change"},
            {"name": "tool", "description": "Run one command"},
            {"name": "tool-open", "description": "End the turn with a command still running"},
            {"name": "explain", "description": "Explain a file", "hint": "the file to explain"},
            {"name": "mode", "description": "Say the mode and speed it is in"}
        ]
    }))
    .expect("a pane");
    pane.settings = extra.settings;
    pane.commands = extra.commands;
    if let Some(usage) = usage {
        pane.usage = Some(serde_json::from_value(usage).expect("a usage"));
    }
    agent_change(
        app,
        AgentChange::Snapshot {
            snapshot: Arc::new(snapshot),
            report: Report::default(),
        },
    );
}

fn settings_pane(size: (u16, u16)) -> App {
    let (world, mut app) = showcase(size);
    with_settings(&world, &mut app, "ask");
    app
}

/// What the runner is handed, as words: an intent to switch names its setting and value.
fn handed(commands: &[collie_phone::app::Command]) -> String {
    format!("{commands:?}")
}

#[test]
fn pane_shows_its_mode_and_options_under_the_heading() {
    snap("pane_settings", settings_pane);
    let text = screen_text(&settings_pane((80, 24)), (80, 24));
    assert!(
        text.contains("Mode Ask first · Speed Careful   s switches"),
        "{text}"
    );
}

#[test]
fn the_settings_picker_lights_the_value_in_effect_and_a_plain_choice_is_sent_at_once() {
    snap("pane_settings_picker", |size| {
        let mut app = settings_pane(size);
        app.update(key("s"));
        app
    });
    let mut app = settings_pane((80, 24));
    app.update(key("s"));
    // A number lights its choice; Enter switches (docs/KEYS.md, one rule for numbers).
    let lit = handed(&app.update(key("2")));
    assert!(!lit.contains("Setting"), "a number only lights: {lit}");
    let commands = app.update(key("enter"));
    let sent = handed(&commands);
    assert!(
        sent.contains("Setting") && sent.contains("\"plan\""),
        "a plain mode needs no question: {sent}"
    );
    assert!(app.overlay().is_none());
    // Tab goes to the next setting, with its own value lit.
    let mut app = settings_pane((80, 24));
    app.update(key("s"));
    app.update(key("tab"));
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("● Careful"), "{text}");
}

/// A mode that lets the agent act without asking needs its own `y`, as Allow always does:
/// not the picker's Enter, not a key that came before the question was drawn (docs/ACP.md).
#[test]
fn a_mode_that_acts_without_asking_asks_first_and_takes_only_its_own_yes() {
    snap("pane_settings_unattended", |size| {
        let mut app = settings_pane(size);
        app.update(key("s"));
        app.update(key("3"));
        app.update(key("enter"));
        app
    });
    let mut app = settings_pane((80, 24));
    app.update(key("s"));
    for _ in 0..2 {
        app.update(key("down"));
    }
    let commands = app.update(key("enter"));
    assert!(!handed(&commands).contains("Setting"), "nothing sent yet");
    let text = screen_text(&app, (80, 24));
    assert!(
        text.contains("Switch Mode to “Act without asking”?") && text.contains("y switch"),
        "{text}"
    );
    // A yes before any frame showed the question answers nothing.
    let early = app.update(key("y"));
    assert!(!handed(&early).contains("Setting"), "{}", handed(&early));
    app.frame_drawn();
    let enter = app.update(key("enter"));
    assert!(
        !handed(&enter).contains("Setting"),
        "Enter never says yes here"
    );
    assert!(app.overlay().is_some());
    // Once the reading time is over (the next test holds it).
    app.update(Message::Tick(NOW + ARMING));
    let yes = app.update(key("y"));
    assert!(
        handed(&yes).contains("Setting") && handed(&yes).contains("\"yolo\""),
        "{}",
        handed(&yes)
    );
    // A question about a choice the agent made meanwhile closes by itself.
    let mut app = settings_pane((80, 24));
    app.update(key("s"));
    app.update(key("3"));
    app.update(key("enter"));
    app.frame_drawn();
    let (world, _) = showcase((80, 24));
    with_settings(&world, &mut app, "yolo");
    assert!(app.overlay().is_none(), "the question is over");
    let text = screen_text(&app, (80, 24));
    assert!(
        text.contains("is in “Act without asking” already; nothing was switched."),
        "{text}"
    );
    assert!(text.contains("Mode ⚠ Act without asking"), "{text}");
}

/// A pane's `?` names the box's keys a newcomer never finds from the chat: the person's editor
/// on Ctrl-G and the box's own help on Alt-? (docs/KEYS.md, "The person's editor").
#[test]
fn the_panes_help_names_the_editor_and_the_boxs_own_keys() {
    for size in [(40, 12), (80, 24), (200, 60)] {
        let (_, mut app) = showcase(size);
        app.update(key("?"));
        app.update(key("G"));
        let text: String = rows(&app, size)
            .iter()
            .map(|r| {
                r.trim_end_matches(['│', ' '])
                    .trim_start_matches(['│', ' '])
            })
            .collect::<Vec<_>>()
            .join(" ");
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for words in [
            "In the box (Enter):",
            "Ctrl-G writes the message in your own editor",
            "Alt-? lists",
        ] {
            assert!(text.contains(words), "{size:?} {words}: {text}");
        }
    }
}

/// A line that does not fit ends with "…" and keeps what matters most (docs/KEYS.md, "Lines
/// that are cut"): the settings row keeps the mode beside the usage, or gives the usage up; a
/// link card's sentence wraps whole; a card's hint line drops whole hints, never the way back.
#[test]
fn cut_lines_end_with_a_sign_and_keep_the_mode_and_the_way_back() {
    let used = || json!({"used": 21_000, "size": 200_000});
    snap("pane_settings_used", |size| {
        let (world, mut app) = showcase(size);
        with_settings_used(&world, &mut app, "yolo", Some(used()));
        app
    });
    let size = (40, 12);
    let (world, mut app) = showcase(size);
    with_settings_used(&world, &mut app, "ask", Some(used()));
    let text = rows(&app, size);
    let row = text
        .iter()
        .find(|r| r.contains("s Mode"))
        .unwrap_or_else(|| panic!("a settings row: {text:?}"));
    assert!(row.contains("s Mode Ask first"), "{row}");
    assert!(row.trim_end().ends_with('…'), "{row}");

    let mut link = collie_phone::durable::cards::choice(
        "Sign in to GitHub",
        "The agent needs a token to open the pull request.",
        &["Done", "Cancel"],
    );
    if let Some(choice) = &mut link.choice {
        choice.url = Some("https://github.com/login/device".into());
    }
    snap("card_link", |size| {
        card_app(&world_asking(link.clone()), false, size).0
    });
    let (app, _) = card_app(&world_asking(link.clone()), false, size);
    let text = rows(&app, size).join("\n");
    assert!(
        text.contains("o opens, y copies the link; then Done."),
        "{text}"
    );

    // The hint line of a permission card whose answer may not have arrived, at 80x24.
    let size = (80, 24);
    let (mut app, key) = card_app(&world_asking(permission()), false, size);
    read(&mut app);
    app.update(record(
        &key,
        1,
        IntentState::Unknown { why: "lost".into() },
        1,
    ));
    let text = rows(&app, size);
    let hint = text
        .iter()
        .find(|r| r.starts_with('│') && r.contains("retries"))
        .unwrap_or_else(|| panic!("a hint line: {text:?}"));
    assert!(hint.contains("Esc back"), "{hint}");
    let inner = hint.trim_end_matches(['│', ' ']);
    assert!(
        inner.ends_with("Esc back") || inner.ends_with("Esc back …"),
        "{hint}"
    );
}

/// The question before a mode that acts without asking and the allow-always question wait one
/// reading time, by one rule (docs/KEYS.md, "Keys that act on an agent"): a `y` 0.4 s after
/// either appeared, drawn, does nothing and says why; after the reading time it is a yes.
#[test]
fn a_yes_inside_the_reading_time_says_nothing_to_the_mode_question_as_to_allow_always() {
    let size = (80, 24);
    let soon = NOW + Duration::milliseconds(400);
    let mut app = settings_pane(size);
    app.update(key("s"));
    app.update(key("3"));
    app.update(key("enter"));
    app.frame_drawn();
    app.update(Message::Tick(soon));
    let early = app.update(key("y"));
    assert!(!handed(&early).contains("Setting"), "{}", handed(&early));
    let text = screen_text(&app, size);
    assert!(
        text.contains("This question just appeared. Read it, then answer it."),
        "{text}"
    );
    assert!(app.overlay().is_some(), "{text}");
    app.update(Message::Tick(NOW + ARMING));
    let yes = app.update(key("y"));
    assert!(handed(&yes).contains("\"yolo\""), "{}", handed(&yes));

    // Allow always: the same key at the same time after its question appeared.
    let (mut app, _) = card_app(&world_asking(permission()), false, size);
    read(&mut app);
    app.update(key("a"));
    app.update(key("enter"));
    assert!(
        matches!(app.overlay(), Some(Overlay::AllowAlways(_))),
        "{}",
        screen_text(&app, size)
    );
    app.frame_drawn();
    let asked = app.now();
    app.update(Message::Tick(asked + Duration::milliseconds(400)));
    let early = app.update(key("y"));
    assert!(!handed(&early).contains("Answer"), "{}", handed(&early));
    app.update(Message::Tick(asked + ARMING));
    let yes = app.update(key("y"));
    assert!(handed(&yes).contains("Answer"), "{}", handed(&yes));
}

/// The picker never floats over settings the agent took away: it closes and says so.
#[test]
fn the_picker_closes_when_the_agent_takes_its_settings_away() {
    let size = (80, 24);
    let (world, mut app) = showcase(size);
    with_settings(&world, &mut app, "ask");
    app.update(key("s"));
    assert!(matches!(app.overlay(), Some(Overlay::Setting(_))));
    load(&mut app, &world, false);
    assert!(app.overlay().is_none());
    let text = screen_text(&app, size);
    assert!(
        text.contains("no longer offers that setting; nothing was switched."),
        "{text}"
    );
    assert!(!text.contains("s switches"), "no settings row: {text}");
}

/// A click on the settings row opens the picker, as `s` does.
#[test]
fn a_click_on_the_settings_row_opens_the_picker() {
    let size = (80, 24);
    let mut app = settings_pane(size);
    // The title bar, the heading, then the settings row.
    app.update(click(3, 2));
    assert!(
        matches!(app.overlay(), Some(Overlay::Setting(_))),
        "{}",
        screen_text(&app, size)
    );
}

/// `/` at the start of the box lists every command with what it does; the arrows light one,
/// Tab completes it, Esc closes the list and keeps what was typed.
#[test]
fn slash_in_the_box_lists_the_commands_and_tab_completes_one() {
    snap("pane_commands", |size| {
        let mut app = settings_pane(size);
        app.update(key("i"));
        app.update(key("/"));
        app
    });
    let size = (80, 24);
    let mut app = settings_pane(size);
    app.update(key("i"));
    app.update(key("/"));
    let text = screen_text(&app, size);
    assert!(
        text.contains("/explain") && text.contains("‹the file to explain›"),
        "{text}"
    );
    assert!(text.contains("/mode"), "past the belt's four: {text}");
    app.update(key("down"));
    app.update(key("tab"));
    let text = screen_text(&app, size);
    assert!(
        text.contains("│/review "),
        "the second match, completed: {text}"
    );
    assert!(
        !text.contains("Run the tests"),
        "the list closed with the space: {text}"
    );
    // Esc closes the list only; the words stay and Esc then leaves the box as before.
    let mut app = settings_pane(size);
    app.update(key("i"));
    for k in ["/", "t"] {
        app.update(key(k));
    }
    app.update(key("esc"));
    let text = screen_text(&app, size);
    assert!(text.contains("│/t "), "{text}");
    assert!(!text.contains("Run one command"), "{text}");
    let commands = app.update(key("enter"));
    assert!(
        handed(&commands).contains("\"/t\""),
        "Enter sends as always"
    );
}

// ----- every hinted key does something --------------------------------------------------------

/// The states the walk below tries: every screen, and the states of a pane and a card that
/// change what their keys do.
fn hint_states(size: (u16, u16)) -> Vec<(String, App)> {
    let world = demo_world();
    let base = || app_on(&world, false, size);
    let keys = |mut app: App, typed: &[&str]| {
        for text in typed {
            app.update(key(text));
        }
        app
    };
    let mut states = vec![
        ("home".to_string(), base()),
        ("home, the inbox".to_string(), keys(base(), &["G"])),
        ("workspaces".to_string(), keys(base(), &["enter"])),
        ("new".to_string(), keys(base(), &["n"])),
        ("history".to_string(), with_history(size).1),
        ("home, the help".to_string(), keys(base(), &["?"])),
    ];
    let snapshot = world.snapshot();
    for (_, _, pane) in snapshot.panes() {
        let mut app = base();
        app.open_pane("demo", &pane.id);
        let title = &pane.title;
        states.push((format!("pane {title}"), app.clone()));
        states.push((format!("pane {title}, the box"), keys(app.clone(), &["i"])));
        let mut typed = keys(app.clone(), &["i"]);
        typed.update(Message::Paste("a few words".into()));
        states.push((format!("pane {title}, words in the box"), typed));
        states.push((
            format!("pane {title}, an item selected"),
            keys(app.clone(), &["["]),
        ));
        states.push((
            format!("pane {title}, the search line"),
            keys(app.clone(), &["/", "r"]),
        ));
        if pane.title == "HTTP routes 🚀" {
            let mut set = base();
            set.open_pane("demo", &pane.id);
            with_settings(&world, &mut set, "ask");
            states.push((format!("pane {title} with settings"), set.clone()));
            states.push((
                format!("pane {title}, the settings picker"),
                keys(set.clone(), &["s"]),
            ));
            states.push((
                format!("pane {title}, the help over the settings picker"),
                keys(set.clone(), &["s", "?"]),
            ));
            let mut question = keys(set.clone(), &["s", "3", "enter"]);
            question.frame_drawn();
            // Read: past the reading time its `y` waits (docs/KEYS.md).
            read(&mut question);
            states.push((
                format!("pane {title}, the question before acting without asking"),
                question,
            ));
            states.push((
                format!("pane {title}, the command list"),
                keys(set.clone(), &["i", "/"]),
            ));
        }
        if let Some(ask) = pane.asks.first() {
            let mut card = base();
            card.open_card(AskKey {
                agent: "demo".into(),
                pane: pane.id.clone(),
                ask_id: ask.id.clone(),
            });
            // Past the reading time, so the keys answer (docs/ASKS.md).
            card.update(Message::Tick(NOW + ARMING + Duration::seconds(1)));
            states.push((format!("card of {title} ({:?})", ask.kind), card));
        }
    }
    states
}

/// A key's label as the footer shows it, as the key a person presses.
fn pressed(label: &str) -> Option<Message> {
    let chord = Chord::parse(label).ok()?;
    Some(Message::Key(KeyEvent::new(chord.code, chord.modifiers)))
}

/// The footer's hints as (key, words); none while it shows a message.
fn footer_hints(app: &App, size: (u16, u16)) -> Vec<(String, String)> {
    let rows = rows(app, size);
    let footer = rows.last().cloned().unwrap_or_default();
    footer
        .trim()
        .split(" · ")
        .filter_map(|hint| {
            let (key, words) = hint.split_once(' ')?;
            Some((key.to_string(), words.to_string()))
        })
        .collect()
}

/// Every key the footer hints does what it says: pressing it changes what is drawn above the
/// footer (the footer's own row may only carry a message saying why nothing happened) or
/// hands the runner a command. A key that only explains that it does nothing is not hinted.
#[test]
fn every_hinted_key_does_something_on_every_screen() {
    let size = (120, 40);
    let mut lies = Vec::new();
    let mut tried = 0;
    // Every cell above the footer, with its style, and the cursor: a focus that moves from
    // the chat to the box changes only colours and the cursor.
    let above_the_footer = |app: &App| {
        let mut terminal = Terminal::new(TestBackend::new(size.0, size.1)).expect("terminal");
        let frame = terminal
            .draw(|frame| shell::frame::draw(frame, app))
            .expect("draws");
        let area = frame.area;
        let cells: Vec<_> = (0..area.height - 1)
            .flat_map(|y| (0..area.width).map(move |x| (x, y)))
            .map(|(x, y)| frame.buffer[(x, y)].clone())
            .collect();
        let cursor = ratatui::backend::Backend::get_cursor_position(terminal.backend_mut()).ok();
        (cells, cursor)
    };
    for (name, app) in hint_states(size) {
        let before = above_the_footer(&app);
        for (label, words) in footer_hints(&app, size) {
            let Some(message) = pressed(&label) else {
                lies.push(format!("{name}: the hint {label} is no key"));
                continue;
            };
            let mut after = app.clone();
            let commands = after.update(message);
            let drawn_changed = above_the_footer(&after) != before;
            let moved = rows(&after, size);
            let commanded = commands
                .iter()
                .any(|c| !matches!(c, collie_phone::app::Command::Log(_)));
            tried += 1;
            if std::env::var("HINT_DEBUG").is_ok() && !drawn_changed && !commanded {
                eprintln!(
                    "{}\n----\n{}",
                    rows(&app, size).join("\n"),
                    moved.join("\n")
                );
            }
            if !drawn_changed && !commanded {
                lies.push(format!(
                    "{name}: “{label} {words}” did nothing; the footer then read: {}",
                    moved.last().map_or("", |r| r.trim())
                ));
            }
        }
    }
    assert!(tried > 100, "only {tried} hints tried");
    assert!(
        lies.is_empty(),
        "hints that are not true:\n{}",
        lies.join("\n")
    );
}

/// Every key the `?` help lists does something where it is listed: pressing it changes what is
/// drawn (a message saying why nothing happened counts, as the help lists every key of the
/// screen, not only those that act now) or hands the runner a command. Moves are the
/// exception: at the top of a list, up moves nothing, as in every list.
#[test]
fn every_key_the_help_lists_does_something_on_every_screen() {
    let size = (120, 40);
    let moves = [
        "Move up",
        "Move down",
        "Page up",
        "Page down",
        "Go to the top",
        "Go to the bottom",
        "Select the option above",
        "Select the option below",
        "Select the chat item above",
        "Select the chat item below",
    ];
    let mut dead = Vec::new();
    let mut tried = 0;
    for (name, app) in hint_states(size) {
        let before = screen_text(&app, size);
        for (keys, words) in app.help_now() {
            if moves.contains(&words.as_str()) {
                continue;
            }
            let label = keys.split(' ').next().unwrap_or_default();
            let Some(message) = pressed(label) else {
                dead.push(format!("{name}: the help's {label} is no key"));
                continue;
            };
            let mut after = app.clone();
            let commands = after.update(message);
            tried += 1;
            let commanded = commands
                .iter()
                .any(|c| !matches!(c, collie_phone::app::Command::Log(_)));
            if screen_text(&after, size) == before && !commanded {
                dead.push(format!("{name}: “{label}: {words}” did nothing"));
            }
        }
    }
    assert!(tried > 300, "only {tried} keys tried");
    assert!(
        dead.is_empty(),
        "keys the help lists that do nothing:\n{}",
        dead.join("\n")
    );
}

/// Home's ready line counts in the right number: one pane, two panes.
#[test]
fn home_says_one_pane_and_two_panes() {
    let world = demo_world();
    let mut app = app_on(&world, false, (160, 48));
    let whole = decoded::<Snapshot>(&world.snapshot());
    let cut = |panes: usize, starters: usize| {
        let mut snapshot = whole.clone();
        snapshot.workspaces.truncate(1);
        snapshot.workspaces[0].tabs.truncate(1);
        let tab = &mut snapshot.workspaces[0].tabs[0];
        let first = tab.panes[0].clone();
        tab.panes = vec![first; panes];
        for (n, pane) in tab.panes.iter_mut().enumerate() {
            pane.id = format!("{}-{n}", pane.id);
        }
        snapshot.starters.truncate(starters);
        snapshot
    };
    for (panes, starters, said) in [
        (1, 1, "Ready: 1 pane in 1 workspace, 1 starter,"),
        (2, 2, "Ready: 2 panes in 1 workspace, 2 starters,"),
    ] {
        agent_change(
            &mut app,
            AgentChange::Snapshot {
                snapshot: Arc::new(cut(panes, starters)),
                report: Report::default(),
            },
        );
        let text = screen_text(&app, (160, 48));
        assert!(text.contains(said), "{said} in {text}");
    }
}

/// At 100 columns the inbox has room for every pane's name whole: none is cut while the row
/// has spaces to spare.
#[test]
fn home_at_100_columns_names_every_pane_whole() {
    let size = (100, 30);
    let world = demo_world();
    let mut app = app_on(&world, false, size);
    let long = "Refactor the payment gateway's retries";
    let mut snapshot = decoded::<Snapshot>(&world.snapshot());
    for workspace in &mut snapshot.workspaces {
        for tab in &mut workspace.tabs {
            for pane in tab.panes.iter_mut().filter(|p| p.title == "HTTP routes 🚀") {
                pane.title = long.into();
            }
        }
    }
    snapshot.rev += 1;
    agent_change(
        &mut app,
        AgentChange::Snapshot {
            snapshot: Arc::new(snapshot),
            report: Report::default(),
        },
    );
    let text = screen_text(&app, size);
    assert!(text.contains(long), "{text}");
    for row in rows(&app, size).iter().filter(|r| r.contains('…')) {
        let spare = row.len() - row.trim_end().len();
        assert!(spare < 3, "a name cut with room to spare: {row:?}");
    }
}

// ----- help on what floats and on every card ----------------------------------------------------

/// `?` over the settings picker lists the picker's keys; closing the help gives the picker
/// back as it was, its lit choice kept; a number lights, Enter switches (docs/KEYS.md).
#[test]
fn the_help_floats_over_the_settings_picker_and_gives_it_back() {
    snap("pane_settings_picker_help", |size| {
        let mut app = settings_pane(size);
        for k in ["s", "?"] {
            app.update(key(k));
        }
        app
    });
    let mut app = settings_pane((80, 24));
    for k in ["s", "2", "?"] {
        let sent = handed(&app.update(key(k)));
        assert!(!sent.contains("Setting"), "{k} switches nothing: {sent}");
    }
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("Light choice 3"), "{text}");
    assert!(!text.contains("Light choice 4"), "three choices: {text}");
    let text = screen_text(&app, (80, 24));
    assert!(text.contains("Light the choice above"), "{text}");
    app.update(key("esc"));
    assert!(
        matches!(app.overlay(), Some(Overlay::Setting(_))),
        "the picker is back"
    );
    let sent = handed(&app.update(key("enter")));
    assert!(sent.contains("\"plan\""), "choice 2 stayed lit: {sent}");
}

/// The first card of the showcase's asks of `kind`, past its reading time.
fn card_of_kind(kind: &str) -> App {
    let world = demo_world();
    let mut app = app_on(&world, false, (120, 40));
    let (pane, ask) = world
        .snapshot()
        .panes()
        .flat_map(|(_, _, p)| p.asks.iter().map(move |a| (p.id.clone(), a.clone())))
        .find(|(_, a)| format!("{:?}", a.kind) == kind)
        .unwrap_or_else(|| panic!("no {kind} ask in the demo"));
    app.open_card(AskKey {
        agent: "demo".into(),
        pane,
        ask_id: ask.id.clone(),
    });
    app.update(Message::Tick(NOW + ARMING + Duration::seconds(1)));
    app
}

/// A text card takes letters, so its help key is the box's: the same keys as a pane's box
/// (one list, `keymap::text_box`), with the editing keys.
#[test]
fn a_text_card_opens_its_help_with_the_box_keys() {
    let mut app = card_of_kind("Text");
    let box_keys = {
        let (_, mut pane) = showcase((120, 40));
        pane.update(key("i"));
        pane.help_now()
    };
    let help_key = box_keys
        .iter()
        .find(|(_, words)| words == "Show or hide this help")
        .map(|(keys, _)| keys.clone())
        .expect("the box lists its help key");
    let card_help = app.help_now();
    app.update(key(&help_key));
    assert!(
        matches!(app.overlay(), Some(Overlay::Help { .. })),
        "{help_key} opens the card's help"
    );
    let text = screen_text(&app, (120, 40));
    assert!(text.contains("Editing the text:"), "{text}");
    assert!(text.contains("Cut the word before the cursor"), "{text}");
    assert!(
        card_help
            .iter()
            .any(|(keys, words)| *keys == help_key && words == "Show or hide this help"),
        "{card_help:?}"
    );
}

/// A choice card's help lists only the keys that act on it: no permission letters, numbers
/// only as far as its options go.
#[test]
fn a_choice_cards_help_lists_only_keys_that_act_on_it() {
    let app = card_of_kind("Choice");
    let help = app.help_now();
    let keys: Vec<&str> = help.iter().map(|(k, _)| k.as_str()).collect();
    for letter in ["y", "n", "a"] {
        assert!(!keys.contains(&letter), "{letter} in {help:?}");
    }
    assert!(!keys.iter().any(|k| k.contains('8')), "{help:?}");
    assert!(keys.iter().any(|k| k.starts_with('1')), "{help:?}");
    // Every listed key does something on this card.
    let permission = card_of_kind("Permission");
    let letters: Vec<String> = permission.help_now().into_iter().map(|(k, _)| k).collect();
    assert!(letters.iter().any(|k| k == "y"), "{letters:?}");
}

/// A click on a card's option selects it, as its number does; it answers nothing, and Enter
/// still answers with it (docs/KEYS.md, "The mouse").
#[test]
fn a_click_on_a_cards_option_selects_it_and_enter_answers() {
    use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let size = (120, 40);
    let mut app = card_of_kind("Choice");
    let text = screen_text(&app, size);
    let row = text
        .lines()
        .position(|l| l.contains("  2 "))
        .unwrap_or_else(|| panic!("option 2 on screen: {text}"));
    let click = Message::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 10,
        row: u16::try_from(row).expect("a row"),
        modifiers: KeyModifiers::NONE,
    });
    let clicked = handed(&app.update(click));
    assert!(
        !clicked.contains("Answer"),
        "a click answers nothing: {clicked}"
    );
    let text = screen_text(&app, size);
    assert!(
        text.lines().nth(row).is_some_and(|l| l.contains("› 2 ")),
        "option 2 is selected: {text}"
    );
    let sent = handed(&app.update(key("enter")));
    assert!(
        sent.contains("Answer"),
        "Enter answers the clicked option: {sent}"
    );
}

fn bunch(keys: &[&str]) -> Message {
    Message::Bunch(
        keys.iter()
            .map(|k| {
                let chord = Chord::parse(k).expect("a key");
                KeyEvent::new(chord.code, chord.modifiers)
            })
            .collect(),
    )
}

/// Keys that come together may move and open (docs/KEYS.md, "Keys that act on an agent"):
/// `j j Enter` on the workspaces opens the pane moved to; in the pane, a bunched belt number
/// is held back, and the line says to press it again.
#[test]
fn keys_a_bunched_enter_that_opens_a_screen_opens_it_and_a_bunched_belt_key_does_not_press() {
    let size = (80, 24);
    let world = demo_world();
    let mut app = app_on(&world, false, size);
    app.update(key("enter"));
    assert!(matches!(app.nav().top(), Screen::Layout(_)));
    app.update(bunch(&["j", "j", "enter"]));
    let screen = screen_text(&app, size);
    assert!(
        matches!(app.nav().top(), Screen::Pane(_)),
        "the pane opened: {screen}"
    );
    assert!(!screen.contains("came together"), "{screen}");
    let sent = handed(&app.update(bunch(&["2", "2"])));
    assert!(!sent.contains("Action"), "no belt press: {sent}");
    assert!(
        screen_text(&app, size)
            .contains("2 keys came together; only the moves were taken. Press 2 again."),
        "{}",
        screen_text(&app, size)
    );
}

/// SPEC Q6: a message wider than the footer wraps onto the row above it, whole; a receipt on
/// the pane's status line fades 8 s after it came, by the app's clock, and the runner is told
/// when to wake for it; a refusal stays.
#[test]
fn q6_a_long_message_wraps_and_a_receipt_fades_on_the_pane() {
    let size = (80, 24);
    let (world, mut app) = showcase(size);
    let pane = pane_id(&world, "HTTP routes 🚀");
    // Three keys at once on a pane: the phone's sentence is wider than 80 columns.
    app.update(Message::Bunch(
        ["x", "x", "c"]
            .iter()
            .map(|k| {
                let chord = Chord::parse(k).expect("a key");
                KeyEvent::new(chord.code, chord.modifiers)
            })
            .collect(),
    ));
    let toast = "3 keys came together; only the moves were taken. Press them again, one at a time.";
    assert!(toast.chars().count() > 79, "{toast}");
    let rows: Vec<String> = screen_text(&app, size)
        .lines()
        .map(|l| l.trim_matches('"').trim().to_string())
        .collect();
    let last_two = format!("{} {}", rows[rows.len() - 2], rows[rows.len() - 1]);
    assert_eq!(last_two, toast, "the whole message, on two rows");
    let abort = |state: IntentState| {
        Message::Engine(FromEngine::Intent(IntentRecord {
            request_id: "r-abort".into(),
            agent: "demo".into(),
            kind: IntentKind::Abort {
                pane: pane.clone(),
                turn_id: "t-2".into(),
            },
            attempts: 1,
            state,
            created_at: "2026-11-29T14:30:00Z".into(),
            checking: false,
            epoch: None,
        }))
    };
    app.update(Message::Tick(NOW + Duration::seconds(20)));
    app.update(abort(IntentState::Sending));
    app.update(abort(IntentState::Done {
        reply: PostReply::ok("r-abort"),
    }));
    assert!(
        screen_text(&app, size).contains(": sent"),
        "the receipt shows"
    );
    assert_eq!(app.next_wake(), Some(NOW + Duration::seconds(28)));
    app.update(Message::Tick(NOW + Duration::seconds(27)));
    assert!(
        screen_text(&app, size).contains(": sent"),
        "still within 8 s"
    );
    app.update(Message::Tick(NOW + Duration::seconds(28)));
    assert!(!screen_text(&app, size).contains(": sent"), "faded at 8 s");
    app.update(abort(IntentState::Refused {
        status: 409,
        code: "turn-changed".into(),
        message: None,
    }));
    app.update(Message::Tick(NOW + Duration::seconds(600)));
    assert!(
        screen_text(&app, size).contains("refused: turn-changed"),
        "trouble stays until replaced"
    );
}

/// The words of the history's count, a pane's `r` and a pane's ask line say what is true in
/// plain English: one conversation is singular, `r` on a pane names what it does rename, and
/// the ask line names its key as an instruction.
#[test]
fn the_count_the_rename_of_a_pane_and_the_ask_line_read_right() {
    let world = demo_world();
    let page = world.conversations(None, 100).expect("a page");
    let one = |next: Option<String>| {
        let mut app = app_on(&world, false, (80, 24));
        app.update(key("H"));
        app.update(Message::Engine(FromEngine::History {
            agent: "demo".into(),
            page: HistoryPage::Conversations {
                after: None,
                page: decoded(&collie_phone::wire::ConversationsPage {
                    conversations: page.conversations[..1].to_vec(),
                    next,
                }),
            },
        }));
        screen_text(&app, (80, 24))
    };
    let single = one(None);
    assert!(single.contains("1 conversation "), "{single}");
    assert!(!single.contains("1 conversations"), "{single}");
    let more = one(page.next.clone());
    assert!(more.contains("1+ conversations"), "{more}");
    let (_, many) = with_history((80, 24));
    assert!(screen_text(&many, (80, 24)).contains("100+ conversations"));

    // `r` on a pane row: the wire renames workspaces and tabs, and the tab row above does.
    let mut app = app_on(&world, false, (80, 24));
    for message in [key("enter"), key("j"), key("j"), key("r")] {
        app.update(message);
    }
    let said = screen_text(&app, (80, 24));
    assert!(
        said.contains("Panes are named by their agent; r on the tab renames the tab."),
        "{said}"
    );
    let mut app = app_on(&world, false, (80, 24));
    for message in [key("enter"), key("j"), key("r")] {
        app.update(message);
    }
    let tab = screen_text(&app, (80, 24));
    assert!(tab.contains("New title for the tab"), "{tab}");

    let (_, pane) = showcase((80, 24));
    let line = screen_text(&pane, (80, 24));
    assert!(line.contains(" — a to answer"), "{line}");
    let (_, narrow) = showcase((40, 12));
    let line = screen_text(&narrow, (40, 12));
    assert!(line.contains("⚑ a to answer: "), "{line}");
}
