//! What the demo desktop holds: its workspaces and sessions, the model catalog and presets it
//! offers, and the words its sessions say (one topic per workspace, one in Chinese).

use serde_json::json;

use crate::dsh_wire::{
    AgentPreset, CatalogFailure, CatalogModel, Effort, ModelCatalog, ModelConfig, ModelGroup,
    Reasoning, Unavailable,
};

/// The words of one workspace's sessions.
pub(crate) struct Topic {
    /// What the person types on the desktop when a session wakes by itself.
    pub(crate) prompts: &'static [&'static str],
    /// `(tool, argumentsPreview, outputPreview)` of tool calls that work.
    pub(crate) tools: &'static [(&'static str, &'static str, &'static str)],
    /// `(tool, argumentsPreview, error code, error message)` of tool calls that fail.
    pub(crate) failures: &'static [(&'static str, &'static str, &'static str, &'static str)],
    /// The assistant's closing words of a turn.
    pub(crate) replies: &'static [&'static str],
    /// What a session asks the person (input-requested).
    pub(crate) questions: &'static [&'static str],
    /// `(tool, reason)` of approval waits.
    pub(crate) approvals: &'static [(&'static str, &'static str)],
    /// What the person answers on the desktop to a question.
    pub(crate) answers: &'static [&'static str],
    /// How a reply to a bridge message starts.
    pub(crate) ack: &'static str,
}

pub(crate) const RUST: Topic = Topic {
    prompts: &[
        "The SSE reconnect test is flaky on CI; find out why.",
        "Run clippy and fix what it finds in src/dsh.",
        "Add a test for the keep-alive comment.",
    ],
    tools: &[
        (
            "read_file",
            r#"{"path":"tests/dsh_bridge.rs"}"#,
            "412 lines",
        ),
        (
            "shell",
            r#"{"cmd":"cargo test --test dsh_bridge"}"#,
            "test result: ok. 14 passed",
        ),
        (
            "grep",
            r#"{"pattern":"keep-alive","path":"src"}"#,
            "src/dsh/bridge/http.rs:88",
        ),
        (
            "apply_patch",
            r#"{"file":"src/dsh/bridge/http.rs","hunks":2}"#,
            "patched 2 hunks",
        ),
    ],
    failures: &[
        (
            "shell",
            r#"{"cmd":"cargo test sse_resume"}"#,
            "EXIT_101",
            "test sse_resume ... FAILED: timed out after 5s",
        ),
        (
            "read_file",
            r#"{"path":"src/dsh/old.rs"}"#,
            "ENOENT",
            "no such file: src/dsh/old.rs",
        ),
    ],
    replies: &[
        "The flake came from a fixed sleep; the test now polls with a deadline.",
        "Clippy is clean; two needless clones removed.",
        "Added `keep_alive_comes_while_idle`; it passes in 0.3 s.",
    ],
    questions: &["Should the retry budget be 3 or 5 attempts?"],
    approvals: &[("shell", "wants to run `cargo clean`, which deletes target/")],
    answers: &["3 is enough."],
    ack: "Understood",
};

pub(crate) const TITANIC: Topic = Topic {
    prompts: &[
        "先做数据体检，再决定怎么建模。",
        "看看年龄缺失值该怎么补。",
        "画一下船舱等级和生还率的关系。",
    ],
    tools: &[
        (
            "python",
            r#"{"code":"df.isna().sum()"}"#,
            "Age 177, Cabin 687, Embarked 2",
        ),
        (
            "python",
            r#"{"code":"df.groupby('Pclass').Survived.mean()"}"#,
            "1: 0.63, 2: 0.47, 3: 0.24",
        ),
        (
            "read_file",
            r#"{"path":"data/train.csv","rows":5}"#,
            "891 行 × 12 列",
        ),
        (
            "write_file",
            r#"{"path":"reports/体检.md"}"#,
            "已写入 2.1 KB",
        ),
    ],
    failures: &[(
        "python",
        r#"{"code":"import seaborn"}"#,
        "ModuleNotFoundError",
        "No module named 'seaborn'",
    )],
    replies: &[
        "体检完成：Age 缺 177 条，Cabin 大量缺失，建议先丢弃 Cabin。",
        "年龄按称谓分组取中位数补齐，比整体均值更合理。",
        "一等舱生还率 63%，三等舱只有 24%，差异显著。",
    ],
    questions: &["Cabin 缺失太多，直接删掉这一列可以吗？"],
    approvals: &[("shell", "要执行 `pip install seaborn`")],
    answers: &["可以，删掉。"],
    ack: "收到",
};

pub(crate) const DOCS: Topic = Topic {
    prompts: &[
        "Proofread the getting-started guide.",
        "Check every link in docs/.",
    ],
    tools: &[
        (
            "read_file",
            r#"{"path":"docs/getting-started.md"}"#,
            "188 lines",
        ),
        ("link_check", r#"{"root":"docs/"}"#, "57 links, 1 broken"),
        (
            "apply_patch",
            r#"{"file":"docs/getting-started.md","hunks":4}"#,
            "patched 4 hunks",
        ),
    ],
    failures: &[(
        "link_check",
        r#"{"url":"https://example.invalid/old"}"#,
        "HTTP_404",
        "https://example.invalid/old answered 404",
    )],
    replies: &[
        "Fixed four typos and one sentence that said the opposite of the code.",
        "One link was dead; it now points at the archived page.",
    ],
    questions: &["The guide says both `--token-file` and `--token`; which one stays?"],
    approvals: &[(
        "apply_patch",
        "rewrites 40 lines of docs/getting-started.md",
    )],
    answers: &["Keep --token-file."],
    ack: "Noted",
};

/// A workspace of the demo desktop and its sessions.
pub(crate) struct DemoWorkspace {
    pub(crate) id: &'static str,
    pub(crate) title: &'static str,
    pub(crate) dir: &'static str,
    pub(crate) topic: &'static Topic,
    pub(crate) sessions: &'static [DemoSession],
}

/// A session of the demo desktop. `task` names the bridge task that already follows it.
pub(crate) struct DemoSession {
    pub(crate) id: &'static str,
    pub(crate) title: &'static str,
    pub(crate) task: Option<&'static str>,
    /// Another runtime holds the writer lock: appends get 409 session/writer-held.
    pub(crate) writer_held: bool,
    /// The host accepts the first prompt but its answer to the bridge is lost: 504
    /// bridge/timeout, and the same-id resend replays (SPEC D5).
    pub(crate) loses_first_reply: bool,
    /// The request header shows another effort than the one asked for.
    pub(crate) effort_downgraded: bool,
}

pub(crate) const WORKSPACES: &[DemoWorkspace] = &[
    DemoWorkspace {
        id: "ws-collie",
        title: "collie-phone",
        dir: "collie-phone",
        topic: &RUST,
        sessions: &[
            DemoSession {
                id: "session-collie-sse",
                title: "Fix the flaky SSE test",
                task: Some("task-sse-fix"),
                writer_held: false,
                loses_first_reply: false,
                effort_downgraded: false,
            },
            DemoSession {
                id: "session-collie-config",
                title: "Refactor the config loader",
                task: None,
                writer_held: false,
                loses_first_reply: false,
                effort_downgraded: false,
            },
        ],
    },
    DemoWorkspace {
        id: "ws-titanic",
        title: "泰坦尼克数据分析",
        dir: "titanic-eda",
        topic: &TITANIC,
        sessions: &[
            DemoSession {
                id: "session-titanic-eda",
                title: "数据体检",
                task: Some("task-titanic-eda"),
                writer_held: false,
                loses_first_reply: false,
                effort_downgraded: true,
            },
            DemoSession {
                id: "session-titanic-features",
                title: "特征工程",
                task: None,
                writer_held: true,
                loses_first_reply: false,
                effort_downgraded: false,
            },
        ],
    },
    DemoWorkspace {
        id: "ws-docs",
        title: "docs-site",
        dir: "docs-site",
        topic: &DOCS,
        sessions: &[DemoSession {
            id: "session-docs-guide",
            title: "Proofread the guide",
            task: None,
            writer_held: false,
            loses_first_reply: true,
            effort_downgraded: false,
        }],
    },
];

/// The topic of a workspace; a workspace registered later speaks like the first one.
pub(crate) fn topic_of(workspace_id: &str) -> &'static Topic {
    WORKSPACES
        .iter()
        .find(|workspace| workspace.id == workspace_id)
        .map_or(&RUST, |workspace| workspace.topic)
}

/// The presets the demo host really offers (seed: `standard/ptc/minimal/cordis`).
pub(crate) fn presets() -> Vec<AgentPreset> {
    // As the real bridge lists them: `{id, name}`, nothing more.
    [
        ("standard", "Standard"),
        ("ptc", "Plan, then code"),
        ("minimal", "Minimal"),
        ("cordis", "Cordis"),
    ]
    .into_iter()
    .map(|(id, title)| AgentPreset {
        id: id.to_string(),
        title: Some(title.to_string()),
        description: None,
    })
    .collect()
}

/// A display name for a model id, as the host's catalog gives one ("deepseek-flash" →
/// "Deepseek Flash").
fn model_name(id: &str) -> String {
    id.split(['-', '.'])
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn model(id: &str, efforts: &[&str]) -> CatalogModel {
    CatalogModel {
        id: id.to_string(),
        title: Some(model_name(id)),
        description: None,
        reasoning: (!efforts.is_empty()).then(|| Reasoning {
            efforts: efforts.iter().map(|e| Effort::named(e)).collect(),
            default: efforts.get(efforts.len() / 2).map(|e| e.to_string()),
        }),
    }
}

/// The demo's model catalog: two routable providers and one that failed to list.
pub(crate) fn catalog() -> ModelCatalog {
    ModelCatalog {
        unavailable: None,
        default: Some(default_config()),
        routable_providers: vec!["deepseek-account".into(), "openai-compatible".into()],
        groups: vec![
            ModelGroup {
                provider: "deepseek-account".into(),
                title: Some("DeepSeek (account)".into()),
                models: vec![
                    model("deepseek-flash", &["low", "medium", "high"]),
                    model("deepseek-reasoner", &["medium", "high"]),
                ],
            },
            ModelGroup {
                provider: "openai-compatible".into(),
                title: Some("OpenAI-compatible endpoint".into()),
                models: vec![
                    model("gpt-4.1", &[]),
                    model("o4-mini", &["low", "medium", "high"]),
                ],
            },
        ],
        failures: vec![CatalogFailure {
            provider: Some("local-ollama".into()),
            message: "connection refused at 127.0.0.1:11434".into(),
        }],
    }
}

/// What a task asks for when it names no model.
pub(crate) fn default_config() -> ModelConfig {
    ModelConfig {
        provider: Some("deepseek-account".into()),
        model: Some("deepseek-flash".into()),
        reasoning_effort: Some("medium".into()),
    }
}

/// What is missing this time, as the real bridge's `unavailable` map: it names only
/// `agentPresets` and `modelCatalog`, and both are there (the failed provider is in the
/// catalog's `failures`).
pub(crate) fn unavailable() -> Vec<Unavailable> {
    Vec::new()
}

/// `details.availableModels` of model/unavailable.
pub(crate) fn available_models(catalog: &ModelCatalog) -> serde_json::Value {
    let list: Vec<_> = catalog
        .groups
        .iter()
        .flat_map(|group| {
            group
                .models
                .iter()
                .map(|m| json!({"provider": group.provider, "model": m.id}))
        })
        .collect();
    json!({ "availableModels": list })
}
