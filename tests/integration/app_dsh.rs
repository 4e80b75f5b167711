//! The phone's screens for a DSH bridge (SPEC D2–D7): snapshots at 80x24 and 160x48 of a task
//! pane (a gap, a failed tool with its error code, a request that used another effort than
//! asked, a wait that must be answered on the desktop), the wait's card, the kind picker, the
//! New page's form with the Chinese workspace, and a replayed receipt; then the whole phone
//! against the real `collie-phone dsh-bridge --demo` binary: an append with kind feedback and
//! mode steer read back from the bridge, cancel, close, and a create with a listed preset.

use crate::common;

use std::sync::Arc;

use collie_phone::app::keymap::Chord;
use collie_phone::app::notify::NotifyStyle;
use collie_phone::app::settings::Settings;
use collie_phone::app::{AppSetup, Message};
use collie_phone::dsh_wire::{self as dsh, AppendKind, AppendMode};
use collie_phone::engine::dsh::pane::{TaskPane, session_pane_id};
use collie_phone::engine::dsh::{BridgeSpec, BridgeUrl, DshChange};
use collie_phone::engine::{
    AgentChange, AgentStatus, Engine, EngineOptions, FromEngine, IntentKind, IntentRecord,
    IntentState,
};
use collie_phone::look::theme::Theme;
use collie_phone::shell;
use collie_phone::shell::App;
use collie_phone::transport::Token;
use collie_phone::wire::{
    EventType, Item, Pane, PaneView, PostReply, Report, Snapshot, Tab, Workspace,
};
use common::phone::TestPhone;
use common::{Client, Req};
use crossterm::event::KeyEvent;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::macros::datetime;

const NOW: OffsetDateTime = datetime!(2026-11-29 14:30:00 UTC);
/// 2026-11-29 14:29:00 UTC in milliseconds, the time of the snapshots' events.
const AT: i64 = 1_795_962_540_000;
const SIZES: [(u16, u16); 3] = [(40, 12), (80, 24), (160, 48)];
const BRIDGE: &str = "dsh";
const TASK: &str = "task-titanic-eda";

fn theme() -> Theme {
    Theme::builtin("dark").expect("the dark theme")
}

fn key(text: &str) -> Message {
    let chord = Chord::parse(text).expect("a key");
    Message::Key(KeyEvent::new(chord.code, chord.modifiers))
}

fn change(app: &mut App, change: AgentChange) {
    app.update(Message::Engine(FromEngine::Agent {
        agent: BRIDGE.into(),
        change,
    }));
}

fn task_view() -> dsh::TaskView {
    serde_json::from_value(json!({
        "taskId": TASK, "workspaceId": "ws-titanic", "workspacePath": "/d/titanic-eda",
        "sessionId": "session-titanic-eda", "agentPreset": "standard", "title": "数据体检",
        "status": "attention",
        "requestedConfig": {"provider": "deepseek-account", "model": "deepseek-flash",
                            "reasoningEffort": "high"},
        "observedConfig": {"provider": "deepseek-account", "model": "deepseek-flash",
                           "reasoningEffort": "medium"},
        "lastTurn": {"phase": "turn-start", "turn": 4}
    }))
    .expect("a task")
}

fn capabilities() -> dsh::Capabilities {
    serde_json::from_value(json!({
        "protocolVersion": 1, "routePrefix": "/codex-bridge",
        "capabilities": {"workspaces": {"list": true, "create": true},
                         "sessions": {"list": true, "adopt": true, "transcript": true}},
        "modelCatalog": {
            "default": {"provider": "deepseek-account", "model": "deepseek-flash",
                        "reasoningEffort": "medium"},
            "routableProviders": ["deepseek-account", "openai-compatible"],
            "groups": [
                {"provider": "deepseek-account", "models": [
                    {"id": "deepseek-flash", "reasoning": {"efforts": ["low", "medium", "high"]}},
                    {"id": "deepseek-reasoner", "reasoning": {"efforts": ["medium", "high"]}}]},
                {"provider": "openai-compatible", "models": [{"id": "gpt-4.1"}]}
            ],
            "failures": [{"provider": "local-ollama", "message": "connection refused"}]
        },
        "agentPresets": [{"id": "standard", "title": "Standard"},
                         {"id": "ptc", "title": "Plan, then code"}]
    }))
    .expect("capabilities")
}

fn bridge_event(seq: i64, body: Value) -> dsh::Event {
    let mut event = json!({"taskId": TASK, "sessionSeq": seq, "at": AT,
                           "sessionEventType": "host/event"});
    if let (Some(event), Some(body)) = (event.as_object_mut(), body.as_object()) {
        event.extend(body.clone());
    }
    serde_json::from_value(event).expect("an event")
}

/// The phone after the bridge's first good pass: the Chinese workspace's task with a gap, a
/// request header that differs, a failed tool and an approval wait; a session to adopt.
fn bridge_app((width, height): (u16, u16)) -> App {
    let mut app = App::new(AppSetup {
        agents: vec![(BRIDGE.into(), false)],
        settings: Settings {
            notify: NotifyStyle::Off,
            ..Settings::default()
        },
        bridges: vec![BRIDGE.to_string()],
        theme: theme(),
        now: NOW,
        size: (width, height),
    });
    change(&mut app, AgentChange::Status(AgentStatus::Ready));
    let health: dsh::Health = serde_json::from_value(json!({
        "bridge": "dsh-reference", "protocolVersion": 1, "routePrefix": "/codex-bridge",
        "pid": 4242, "permissions": {"autoApprove": false}
    }))
    .expect("health");
    change(
        &mut app,
        AgentChange::Dsh(DshChange::Health(Arc::new(health))),
    );
    change(
        &mut app,
        AgentChange::Dsh(DshChange::Capabilities(Arc::new(capabilities()))),
    );
    let workspaces: dsh::WorkspaceList = serde_json::from_value(json!({
        "items": [{"workspaceId": "ws-collie", "title": "collie-phone", "path": "/d/collie-phone",
                   "status": "ok"},
                  {"workspaceId": "ws-titanic", "title": "泰坦尼克数据分析",
                   "path": "/d/titanic-eda", "status": "ok"}],
        "tokenScope": "all-configured"
    }))
    .expect("workspaces");
    change(
        &mut app,
        AgentChange::Dsh(DshChange::Workspaces(Arc::new(workspaces))),
    );
    let task = task_view();
    change(
        &mut app,
        AgentChange::Dsh(DshChange::Tasks(Arc::new(vec![task.clone()]))),
    );
    let mut mirror = TaskPane::new(&task);
    let mut events = Vec::new();
    events.extend(mirror.gap(40));
    for event in [
        bridge_event(
            41,
            json!({"kind": "message", "role": "user", "source": "bridge",
                   "text": "先做数据体检，再决定怎么建模。"}),
        ),
        bridge_event(
            42,
            json!({"kind": "execution", "phase": "request-header",
                   "observedConfig": {"provider": "deepseek-account", "model": "deepseek-flash",
                                      "reasoningEffort": "medium"}}),
        ),
        bridge_event(
            43,
            json!({"kind": "execution", "phase": "tool-call", "tool": "python",
                   "callId": "c-1", "argumentsPreview": "{\"code\":\"import seaborn\"}"}),
        ),
        bridge_event(
            44,
            json!({"kind": "execution", "phase": "tool-result", "callId": "c-1",
                   "failed": true, "error": {"code": "ModuleNotFoundError",
                                              "message": "No module named 'seaborn'"}}),
        ),
        bridge_event(
            45,
            json!({"kind": "message", "role": "assistant", "model": "deepseek-flash",
                   "text": "缺少 seaborn，需要先安装。",
                   "usage": {"inputTokens": 2602, "outputTokens": 380}}),
        ),
        bridge_event(
            46,
            json!({"kind": "permission", "phase": "approval-requested", "tool": "shell",
                   "callId": "c-2", "reason": "要执行 `pip install seaborn`"}),
        ),
    ] {
        events.extend(mirror.take(&event));
    }
    let snapshot = Snapshot {
        epoch: "pid-4242".into(),
        rev: 1,
        workspaces: vec![
            Workspace {
                id: "ws-collie".into(),
                title: "collie-phone".into(),
                tabs: vec![Tab {
                    id: "sessions:ws-collie".into(),
                    title: "sessions".into(),
                    panes: vec![Pane {
                        id: session_pane_id("session-collie-config"),
                        title: "Refactor the config loader".into(),
                        state: mirror.state(),
                        turn: None,
                        conversation_id: None,
                        belt: Vec::new(),
                        asks: Vec::new(),
                        settings: Vec::new(),
                        commands: Vec::new(),
                        usage: None,
                    }],
                }],
            },
            Workspace {
                id: "ws-titanic".into(),
                title: "泰坦尼克数据分析".into(),
                tabs: vec![
                    Tab {
                        id: "tasks:ws-titanic".into(),
                        title: "tasks".into(),
                        panes: vec![Pane {
                            id: TASK.into(),
                            title: "数据体检".into(),
                            state: mirror.state(),
                            turn: None,
                            conversation_id: None,
                            belt: Vec::new(),
                            asks: mirror.asks(),
                            settings: Vec::new(),
                            commands: Vec::new(),
                            usage: None,
                        }],
                    },
                    Tab {
                        id: "sessions:ws-titanic".into(),
                        title: "sessions".into(),
                        panes: vec![Pane {
                            id: session_pane_id("session-titanic-features"),
                            title: "特征工程".into(),
                            state: collie_phone::wire::PaneState::Unknown("not adopted".into()),
                            turn: None,
                            conversation_id: None,
                            belt: Vec::new(),
                            asks: Vec::new(),
                            settings: Vec::new(),
                            commands: Vec::new(),
                            usage: None,
                        }],
                    },
                ],
            },
        ],
        starters: Vec::new(),
    };
    change(
        &mut app,
        AgentChange::Snapshot {
            snapshot: Arc::new(snapshot),
            report: Report::default(),
        },
    );
    let items: Vec<Item> = events
        .iter()
        .filter(|e| e.kind == EventType::Item)
        .filter_map(|e| e.item.clone())
        .collect();
    change(
        &mut app,
        AgentChange::PaneView {
            pane: TASK.into(),
            view: PaneView {
                state: mirror.state(),
                turn: None,
                items,
                asks: mirror.asks(),
            },
        },
    );
    change(&mut app, AgentChange::Synced(NOW));
    app
}

fn pane_app(size: (u16, u16)) -> App {
    let mut app = bridge_app(size);
    app.open_pane(BRIDGE, TASK);
    app
}

fn draw(app: &App, (width, height): (u16, u16)) -> TestBackend {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal
        .draw(|frame| shell::frame::draw(frame, app))
        .expect("draws");
    terminal.backend().clone()
}

fn snap(name: &str, build: impl Fn((u16, u16)) -> App) {
    for size in SIZES {
        let app = build(size);
        insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), draw(&app, size));
    }
}

fn text_of(app: &App, size: (u16, u16)) -> String {
    draw(app, size).to_string()
}

#[test]
fn d4_d6_a_bridge_task_pane_shows_the_gap_the_failure_the_difference_and_the_wait() {
    snap("dsh_pane", pane_app);
    let text = text_of(&pane_app((160, 48)), (160, 48));
    assert!(text.contains("Events before #40"), "the gap (D4)");
    assert!(
        text.contains("ModuleNotFoundError"),
        "the tool's error code"
    );
    assert!(text.contains("used medium ≠"), "the effort differs");
    assert!(
        text.contains("Approve on the desktop: shell"),
        "the wait (D6)"
    );
    assert!(
        text.contains("Message · instruction · queue"),
        "the defaults"
    );
}

#[test]
fn d6_the_wait_card_says_to_answer_on_the_desktop_and_offers_no_button() {
    let build = |size| {
        let mut app = pane_app(size);
        app.update(key("a"));
        app
    };
    snap("dsh_desktop_card", build);
    let mut app = build((80, 24));
    let text = text_of(&app, (80, 24));
    assert!(text.contains("Answer it on the desktop"));
    assert!(!text.contains("allow once"));
    // y and n do nothing that could look like an answer: no intent leaves.
    let commands: Vec<_> = ["y", "n", "a", "Enter"]
        .iter()
        .flat_map(|k| app.update(key(k)))
        .collect();
    assert!(
        !commands
            .iter()
            .any(|c| matches!(c, collie_phone::app::Command::Engine(_))),
        "{commands:?}"
    );
}

#[test]
fn d3_the_kind_picker_and_mode_are_kept_per_pane() {
    snap("dsh_kind_picker", |size| {
        let mut app = pane_app(size);
        app.update(key("K"));
        app.update(key("j"));
        app
    });
    let mut app = pane_app((80, 24));
    app.update(key("K"));
    app.update(key("2"));
    app.update(key("enter"));
    app.update(key("m"));
    let prefs = app.dsh_view(BRIDGE).expect("a bridge").prefs(TASK);
    assert_eq!(
        (prefs.kind, prefs.mode),
        (AppendKind::Feedback, AppendMode::Steer)
    );
    app.update(key("i"));
    for c in "补齐 Age".chars() {
        let text = c.to_string();
        app.update(Message::Paste(text));
    }
    let commands = app.update(key("Enter"));
    let sent = commands.iter().find_map(|c| match c {
        collie_phone::app::Command::Engine(collie_phone::engine::ToEngine::Submit {
            kind, ..
        }) => Some(kind.clone()),
        _ => None,
    });
    assert!(
        matches!(
            &sent,
            Some(IntentKind::DshAppend { message_kind: AppendKind::Feedback, mode: AppendMode::Steer, message, .. })
                if message == "补齐 Age"
        ),
        "{sent:?}"
    );
    // A session no task follows takes no message until it is adopted.
    let mut app = bridge_app((80, 24));
    app.open_pane(BRIDGE, &session_pane_id("session-titanic-features"));
    app.update(key("K"));
    assert!(app.overlay().is_none());
}

#[test]
fn d3_the_new_page_form_for_a_bridge() {
    let build = |size| {
        let mut app = bridge_app(size);
        app.update(key("n"));
        app.update(key("Enter"));
        // The Chinese workspace, adopting its session, the second listed preset, a model.
        app.update(key("right"));
        app.update(key("tab"));
        app.update(key("right"));
        app.update(key("tab"));
        app.update(Message::Paste("缺失值处理".into()));
        app.update(key("tab"));
        app.update(key("tab"));
        app.update(key("right"));
        app.update(key("right"));
        app.update(key("tab"));
        app.update(key("right"));
        app.update(key("right"));
        app.update(key("tab"));
        app.update(key("right"));
        app
    };
    snap("dsh_new_form", build);
    let mut app = build((80, 24));
    let commands = app.update(key("Enter"));
    let sent = commands.iter().find_map(|c| match c {
        collie_phone::app::Command::Engine(collie_phone::engine::ToEngine::Submit {
            kind, ..
        }) => Some(kind.clone()),
        _ => None,
    });
    let Some(IntentKind::DshCreate {
        workspace_id,
        title,
        preset,
        model,
        adopt_session,
        ..
    }) = sent
    else {
        panic!("a create: {sent:?}")
    };
    assert_eq!(workspace_id, "ws-titanic");
    assert_eq!(title.as_deref(), Some("缺失值处理"));
    assert_eq!(adopt_session.as_deref(), Some("session-titanic-features"));
    assert_eq!(preset.as_deref(), Some("ptc"), "only listed presets (D3)");
    let model = model.expect("a model");
    assert_eq!(model.model.as_deref(), Some("deepseek-reasoner"));
    // The reasoner declares medium and high only: the first is medium.
    assert_eq!(model.reasoning_effort.as_deref(), Some("medium"));
}

#[test]
fn d5_a_replayed_receipt_says_already_applied_and_a_lost_one_offers_the_same_id() {
    let record = |state| IntentRecord {
        request_id: "r-6f1c0a9b2d3e4f5061728394a5b6c7d8".into(),
        agent: BRIDGE.into(),
        kind: IntentKind::DshAppend {
            task_id: TASK.into(),
            message_kind: AppendKind::Feedback,
            message: "补齐 Age".into(),
            mode: AppendMode::Queue,
            model: None,
        },
        attempts: 2,
        state,
        created_at: "2026-11-29T14:29:30Z".into(),
        checking: false,
        epoch: None,
    };
    let replayed = |size| {
        let mut app = pane_app(size);
        app.update(Message::Engine(FromEngine::Intent(record(
            IntentState::Replayed {
                reply: PostReply::ok("r-6f1c0a9b2d3e4f5061728394a5b6c7d8"),
            },
        ))));
        app
    };
    snap("dsh_receipt_replayed", replayed);
    assert!(text_of(&replayed((80, 24)), (80, 24)).contains("replayed (already applied)"));
    let mut app = pane_app((160, 48));
    let mut lost = record(IntentState::Unknown {
        why: "the connection broke before the reply".into(),
    });
    lost.attempts = 1;
    app.update(Message::Engine(FromEngine::Intent(lost)));
    let text = text_of(&app, (160, 48));
    assert!(
        text.contains("r-6f1c0a9b2d3e4f5061728394a5b6c7d8"),
        "{text}"
    );
    assert!(text.contains("R resends with the same id"), "{text}");
    let commands = app.update(key("R"));
    assert!(commands.iter().any(|c| matches!(c,
        collie_phone::app::Command::Engine(collie_phone::engine::ToEngine::Retry { request_id })
            if request_id == "r-6f1c0a9b2d3e4f5061728394a5b6c7d8")));
}

#[test]
fn d2_a_stopped_task_says_so_and_takes_nothing() {
    let mut app = pane_app((80, 24));
    change(
        &mut app,
        AgentChange::Dsh(DshChange::TaskStopped(
            collie_phone::engine::dsh::TaskStopped {
                task_id: TASK.into(),
                why: "session/workspace-mismatch: the workspace moved".into(),
            },
        )),
    );
    let text = text_of(&app, (80, 24));
    assert!(
        text.contains("Stopped: the phone no longer addresses"),
        "{text}"
    );
    app.update(key("i"));
    app.update(Message::Paste("go on".into()));
    let commands = app.update(key("Enter"));
    assert!(
        !commands
            .iter()
            .any(|c| matches!(c, collie_phone::app::Command::Engine(_)))
    );
}

// ----- the whole phone against the real bridge ----------------------------------------------

/// The whole phone on one bridge, through the engine, at 160x48.
fn bridge_phone(url: &str, token_path: &std::path::Path, dir: &std::path::Path) -> TestPhone {
    let spec = BridgeSpec {
        name: BRIDGE.into(),
        url: BridgeUrl::parse(url).expect("a bridge url"),
        token: Token::from_file(token_path).expect("the token"),
    };
    let engine = Engine::start_mixed(
        Vec::new(),
        vec![spec],
        &dir.join("intents.jsonl"),
        EngineOptions::default(),
    )
    .expect("the engine starts");
    TestPhone::on_engine(
        engine,
        vec![(BRIDGE.into(), false)],
        vec![BRIDGE.to_string()],
        (160, 48),
        |_| {},
    )
}

struct RealBridge {
    _process: common::AgentProcess,
    address: String,
    prefix: String,
    token: String,
}

impl RealBridge {
    async fn value(&self, route: &str) -> Value {
        let reply = Client::tcp(&self.address)
            .send(
                Req::get(&format!("{}{route}", self.prefix))
                    .authorization(Some(&format!("Bearer {}", self.token))),
            )
            .await;
        let body = reply.json();
        assert_eq!(body["ok"], true, "{route}: {body}");
        body["value"].clone()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn d3_d5_the_phone_appends_cancels_closes_and_creates_on_the_real_bridge() {
    let dir = common::temp_dir();
    let (token_path, token) = common::token_file(dir.path());
    let process = common::frozen_demo_bridge(dir.path(), &token_path, "127.0.0.1:0");
    let url = process.url.clone();
    let rest = url.strip_prefix("http://").expect("an http url");
    let (address, path) = rest.split_once('/').expect("a prefix");
    let bridge = RealBridge {
        address: address.to_string(),
        prefix: format!("/{path}"),
        token,
        _process: process,
    };
    let mut phone = bridge_phone(&url, &token_path, dir.path());
    phone
        .until("the bridge ready on Home", |s| {
            s.contains("dsh (DSH bridge)") && s.contains("Ready on the desktop's process")
        })
        .await;
    // Home → the bridge's workspaces → the first task (collie-phone › tasks › the SSE fix).
    phone.press(&["Enter"]).await;
    phone
        .until("the workspaces", |s| s.contains("Fix the flaky SSE test"))
        .await;
    phone.press(&["j", "j", "Enter"]).await;
    phone
        .until("the task pane", |s| {
            s.contains("Message · instruction · queue")
        })
        .await;
    // Kind feedback (2 in the picker, Enter chooses it), mode steer, then the words.
    phone.press(&["K", "2", "Enter", "m", "i"]).await;
    phone.type_text("Poll with a deadline, not a sleep.").await;
    phone.press(&["Enter"]).await;
    phone
        .until("the append's receipt", |s| {
            s.contains("send feedback (steer)") && s.contains("accepted")
        })
        .await;
    // Read back from the bridge: one round, kind feedback, mode steer (SPEC D3, D5).
    let task = bridge.value("/tasks/get?taskId=task-sse-fix").await;
    let rounds = task["task"]["rounds"].as_array().expect("rounds").clone();
    let round = rounds.last().expect("a round");
    assert_eq!(round["kind"], "feedback", "{task}");
    // The real bridge keeps no mode in its rounds: the request the phone journaled before it
    // left says steer.
    let journal = std::fs::read_to_string(dir.path().join("intents.jsonl")).expect("journal");
    assert!(
        journal
            .lines()
            .any(|line| line.contains("Poll with a deadline, not a sleep.")
                && line.contains(r#""mode":"steer""#)),
        "{journal}"
    );
    let transcript = bridge
        .value("/transcript?taskId=task-sse-fix&sinceSeq=0&limit=2000")
        .await;
    let said = transcript["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|e| e["role"] == "user" && e["text"] == "Poll with a deadline, not a sleep.")
        .count();
    assert_eq!(said, 1, "one user message, never two (D5)");
    // Cancel the running turn, after the confirm.
    phone
        .until("the turn running", |s| s.contains("running"))
        .await;
    phone.press(&["Esc", "x"]).await;
    phone
        .until("the cancel's confirm", |s| {
            s.contains("Cancel the running turn")
        })
        .await;
    phone.press(&["y"]).await;
    phone
        .until("the cancel's receipt", |s| {
            s.contains("cancel taken by the bridge")
        })
        .await;
    // Close the task, after the confirm: the pane goes.
    phone.press(&["c"]).await;
    phone
        .until("the close's confirm", |s| s.contains("Close the task"))
        .await;
    phone.press(&["y"]).await;
    phone
        .until("the closed task gone", |s| {
            !s.contains("Message · feedback · steer")
        })
        .await;
    // The bridge lists it still, as the real one does, but closed.
    let open = bridge.value("/tasks/list").await;
    assert!(
        open["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|t| t["taskId"] == "task-sse-fix" && t["status"] == "closed"),
        "{open}"
    );
    // A new task with a preset /capabilities lists (the first: standard).
    phone.press(&["Esc", "Esc", "n"]).await;
    phone
        .until("the New page", |s| s.contains("New task…"))
        .await;
    phone.press(&["Enter"]).await;
    phone
        .until("the form", |s| s.contains("New task on dsh"))
        .await;
    phone.press(&["Tab", "Tab"]).await;
    phone.type_text("Flow task").await;
    phone.press(&["Tab", "Tab", "Right"]).await;
    phone
        .until("the preset chosen", |s| s.contains("standard (Standard)"))
        .await;
    phone.press(&["Enter"]).await;
    phone
        .until("the new task's pane", |s| {
            s.contains("tasks › Flow task") && s.contains("create task")
        })
        .await;
    let open = bridge.value("/tasks/list").await;
    let created = open["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|t| t["title"] == "Flow task")
        .cloned()
        .expect("the created task");
    assert_eq!(created["agentPreset"], "standard", "{created}");
    assert_eq!(created["workspaceId"], "ws-collie", "{created}");
}

/// From Home to the demo desktop's first task, "Fix the flaky SSE test", once the bridge is
/// ready: Enter on the bridge, then the task's row.
async fn open_the_sse_task(phone: &mut TestPhone) {
    phone
        .until("the bridge ready on Home", |s| {
            s.contains("Ready on the desktop's process")
        })
        .await;
    phone.press(&["Enter"]).await;
    phone
        .until("the workspaces", |s| s.contains("Fix the flaky SSE test"))
        .await;
    phone.press(&["j", "j", "Enter"]).await;
}

/// The pane of a task says in its own rows when its bridge stops answering, from the first
/// missed poll, and says nothing of it once the bridge is back: the frames are judged over
/// time, not only the last one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_pane_says_when_its_bridge_is_down_and_clears_when_it_is_back() {
    let dir = common::temp_dir();
    let (token_path, _) = common::token_file(dir.path());
    let process = common::frozen_demo_bridge(dir.path(), &token_path, "127.0.0.1:0");
    let url = process.url.clone();
    let address = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once('/'))
        .map(|(address, _)| address.to_string())
        .expect("an address");
    let mut phone = bridge_phone(&url, &token_path, dir.path());
    open_the_sse_task(&mut phone).await;
    phone
        .until("the task pane", |s| {
            s.contains("Message · instruction · queue")
        })
        .await;
    let live = phone.screen();
    assert!(!live.contains("not answering"), "{live}");

    // Killed, as a crash or `kill -9` does: no goodbye on its open streams.
    drop(process);
    // From the first missed poll the pane says it; once unreachable, it says that.
    phone
        .until("the pane saying the bridge missed a poll", |s| {
            s.contains("The bridge missed a poll") || s.contains("The bridge is not answering")
        })
        .await;
    let first = phone.screen();
    assert!(
        first.contains("not answering") || first.contains("unreachable"),
        "{first}"
    );
    assert!(first.contains("last heard:"), "{first}");
    phone
        .until("the pane saying the bridge is down", |s| {
            s.contains("The bridge is not answering") && s.contains("unreachable")
        })
        .await;
    let down = phone.screen();
    assert!(down.contains("keeps retrying"), "{down}");
    assert!(
        !down.contains("error sending request"),
        "a library's chain: {down}"
    );

    // The same bridge back on the same port: the pane heals by itself.
    let _back = common::frozen_demo_bridge(dir.path(), &token_path, &address);
    phone
        .until("the pane live again", |s| {
            !s.contains("not answering")
                && !s.contains("unreachable")
                && !s.contains("last heard:")
                && s.contains("Message · instruction · queue")
        })
        .await;
}

/// A closed task's session keeps, in its pane, the history the phone held while the task was
/// open, and says in the pane why no more comes and what works (adopt it again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_tasks_session_keeps_its_history_and_says_why_no_more_comes() {
    let dir = common::temp_dir();
    let (token_path, _) = common::token_file(dir.path());
    let process = common::frozen_demo_bridge(dir.path(), &token_path, "127.0.0.1:0");
    let mut phone = bridge_phone(&process.url, &token_path, dir.path());
    open_the_sse_task(&mut phone).await;
    phone
        .until("the task pane with its history", |s| {
            s.contains("Message · instruction · queue") && s.contains("Clippy is clean")
        })
        .await;
    phone.press(&["Esc", "c"]).await;
    phone
        .until("the close's confirm", |s| s.contains("Close the task"))
        .await;
    phone.press(&["y"]).await;
    phone
        .until("the closed task gone", |s| {
            !s.contains("Message · instruction · queue")
        })
        .await;
    phone
        .until("its session among the sessions", |s| {
            s.contains("Fix the flaky SSE test      not adopted")
        })
        .await;
    phone.press(&["j", "j", "Enter"]).await;
    phone
        .until(
            "the session's pane with the history and why no more comes",
            |s| {
                s.contains("sessions › Fix the flaky SSE test")
                    && s.contains("Clippy is clean")
                    && s.contains("The bridge cannot show this session's history")
                    && s.contains("what the phone held")
            },
        )
        .await;
    let pane = phone.screen();
    assert!(pane.contains("not adopted"), "{pane}");
    assert!(
        !pane.contains("task/not-found)"),
        "the code is not the sentence: {pane}"
    );
}

/// A task that adopted a session mid-turn is listed idle while the desktop's turn goes on:
/// `x` asks to cancel that turn, naming the task; once the turn ends, the question closes.
#[test]
fn x_on_an_adopted_task_mid_turn_asks_to_cancel_and_closes_when_the_turn_ends() {
    let size = (120, 30);
    let mut app = pane_app(size);
    let mut idle = task_view();
    idle.status = dsh::TaskStatus::Idle;
    change(
        &mut app,
        AgentChange::Dsh(DshChange::Tasks(Arc::new(vec![idle]))),
    );
    let state_event = |state: collie_phone::wire::PaneState| {
        let mut event = collie_phone::wire::Event::new(900, EventType::State);
        event.state = Some(state);
        event
    };
    change(
        &mut app,
        AgentChange::PaneEvents {
            pane: TASK.into(),
            events: vec![state_event(collie_phone::wire::PaneState::Running)],
        },
    );
    app.update(key("x"));
    let asked = text_of(&app, size);
    assert!(
        asked.contains("Cancel the running turn of the task “数据体检”?"),
        "{asked}"
    );
    assert!(!asked.contains("No turn is running"), "{asked}");
    change(
        &mut app,
        AgentChange::PaneEvents {
            pane: TASK.into(),
            events: vec![state_event(collie_phone::wire::PaneState::Idle)],
        },
    );
    let after = text_of(&app, size);
    assert!(!after.contains("Cancel the running turn"), "{after}");
    assert!(
        after.contains("The turn ended before you said yes"),
        "{after}"
    );
}

/// A preset this phone asked for and the bridge did not use is flagged beside the model line,
/// as an effort is.
#[test]
fn d3_a_preset_the_bridge_did_not_use_is_flagged() {
    let size = (160, 48);
    let mut app = pane_app(size);
    let mut reply = PostReply::ok("r-create-1");
    reply.pane_id = Some(TASK.into());
    app.update(Message::Engine(FromEngine::Intent(IntentRecord {
        request_id: "r-create-1".into(),
        agent: BRIDGE.into(),
        kind: IntentKind::DshCreate {
            workspace_id: "ws-titanic".into(),
            title: Some("数据体检".into()),
            objective: None,
            preset: Some("ptc".into()),
            model: None,
            adopt_session: None,
        },
        attempts: 1,
        state: IntentState::Done { reply },
        created_at: "2026-11-29T14:29:30Z".into(),
        checking: false,
        epoch: None,
    })));
    let text = text_of(&app, size);
    assert!(text.contains("preset asked ptc, used standard ≠"), "{text}");
}
