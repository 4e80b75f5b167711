//! The worlds the reference agent starts with: a lively demo, an empty one, and a big one that
//! fills every limit of SPEC L. The same seed lays out the same world, word for word.
//!
//! Also the cards and words the demo script reuses when it keeps the world moving, so what the
//! script says sounds like what the world was already saying.

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use super::WorldKind;
use crate::durable::world::{Layout, World};
use crate::wire::sanitize::truncate_to;
use crate::wire::{
    Ask, AskOption, BeltButton, Effect, FieldKind, FormField, Item, ItemKind, Starter, TurnState,
    limits,
};

/// Lays out a world of `kind`. `now` stamps every item, so a fixed `now` gives a byte-identical
/// layout for the same seed.
pub fn build(
    kind: WorldKind,
    seed: u64,
    allow_always: bool,
    host_name: &str,
    now: OffsetDateTime,
) -> World {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let layout = Layout {
        host_name: host_name.to_string(),
        ..Layout::default()
    };
    let mut world = World::new(layout, allow_always);
    match kind {
        WorldKind::Demo => lay_out_demo(&mut world, &mut rng, now),
        WorldKind::Empty => world.layout.starters = demo_starters(),
        WorldKind::Big => lay_out_big(&mut world, &mut rng, now),
    }
    world
}

// ----- cards ---------------------------------------------------------------------------------

pub(crate) use crate::durable::cards::{
    ALLOW_ALWAYS, ALLOW_ONCE, DENY, choice, field, form, option,
};
pub use crate::durable::cards::{permission, permission_title, text};

pub(crate) fn choice_field(
    id: &str,
    label: &str,
    labels: &[&str],
    default: Option<&str>,
) -> FormField {
    let options: Vec<AskOption> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            option(
                &slug(l).unwrap_or_else(|| format!("option-{}", i + 1)),
                l,
                None,
            )
        })
        .collect();
    let default = default
        .and_then(|d| options.iter().find(|o| o.label == d))
        .map(|o| Value::String(o.id.clone()));
    FormField {
        required: true,
        options,
        default,
        ..FormField::new(id, label, FieldKind::Choice)
    }
}

/// A lower-case id made of a label's ASCII letters and digits, if it has any.
fn slug(label: &str) -> Option<String> {
    let slug = label
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|part| !part.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("-");
    (!slug.is_empty()).then_some(slug)
}

/// The demo's deploy form: a choice field, a boolean, a number and a free text.
pub fn deploy_form() -> Ask {
    form(
        "Deploy settings",
        "How should the payments service go out?",
        vec![
            choice_field(
                "environment",
                "Environment",
                &["Staging", "Production", "Canary"],
                Some("Staging"),
            ),
            field(
                "dry_run",
                "Dry run first",
                FieldKind::Boolean,
                true,
                Some(json!(true)),
            ),
            field(
                "replicas",
                "Replicas",
                FieldKind::Number,
                false,
                Some(json!(2)),
            ),
            field("notes", "Notes for the team", FieldKind::Text, false, None),
        ],
    )
}

/// True for text with Chinese characters: such a pane talks Chinese.
pub fn is_chinese(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

// ----- words ---------------------------------------------------------------------------------

/// What a pane says in one language.
pub(crate) struct Phrases {
    pub(crate) prompts: &'static [&'static str],
    pub(crate) thoughts: &'static [&'static str],
    pub(crate) replies: &'static [&'static str],
    pub(crate) notices: &'static [&'static str],
    pub(crate) closings: &'static [&'static str],
    pub(crate) markdown: &'static [&'static str],
    /// (language, text)
    pub(crate) code: &'static [(&'static str, &'static str)],
    /// (url, title)
    pub(crate) links: &'static [(&'static str, &'static str)],
    pub(crate) permissions: &'static [(&'static str, &'static str)],
    pub(crate) choices: &'static [(&'static str, &'static str, &'static [&'static str])],
    /// (title, prompt, placeholder)
    pub(crate) texts: &'static [(&'static str, &'static str, &'static str)],
}

pub(crate) fn phrases(chinese: bool) -> &'static Phrases {
    if chinese { &CHINESE } else { &ENGLISH }
}

static ENGLISH: Phrases = Phrases {
    prompts: &[
        "Make the flaky reconnect test deterministic.",
        "Add paging to the conversations list.",
        "Why does the snapshot ETag move when nothing changed?",
        "Split the config loader into smaller functions.",
        "Find where we leak file descriptors on reconnect.",
        "Write a changelog entry for the socket transport.",
        "Check that every error body carries a code.",
        "Speed up the cold start of the test suite.",
    ],
    thoughts: &[
        "The cursor only moves forward within one epoch, so a reader from an older epoch needs the whole view.",
        "If the retry reuses the request id the agent can answer from memory instead of running it twice.",
        "Two callers take the lock in a different order; that would explain the hang under load.",
        "The test sleeps for 200 ms and hopes. A fake clock would make it exact.",
        "Reading the whole body before checking its size is how we ended up buffering 40 MB.",
        "The fixture rebuilds the world for every case; sharing one would cut a few seconds.",
    ],
    replies: &[
        "I'll start by reading the module and its tests.",
        "Found it: the timeout is measured from the first byte, not from connect.",
        "The change is small. I'll keep the public signature as it is.",
        "Both call sites now go through the same helper.",
        "That test now uses a fixed clock and passes 200 times in a row.",
        "I moved the size check before the read, so a large reply is cut at the limit.",
    ],
    notices: &[
        "Tool `cargo check` finished in 3.8 s.",
        "Read 12 files under src/agent/.",
        "Context compacted: 41% free.",
        "Tool `rg \"etag\"` found 9 matches.",
        "Background job `cargo build` started.",
    ],
    closings: &[
        "Done. All 118 tests pass.",
        "Done. The change is in src/agent/world.rs; nothing else moved.",
        "Finished. I left a note in the PR description about the edge case.",
        "That's it for this one. Want me to open a PR?",
    ],
    markdown: &[
        "## Plan\n\n1. Read the failing test\n2. Replace the sleep with a fake clock\n3. Run it 200 times\n\n### Risk\n- The clock is shared by two modules\n\n```rust\nlet clock = FakeClock::at(start);\nclock.advance(Duration::from_secs(45));\n```\n",
        "## What changed\n\n- `events()` returns the view when the epoch differs\n- `snapshot()` keeps its ETag when nothing moved\n\n> The reader never sees half a layout.\n",
        "### Checklist\n\n- [x] error bodies carry a `code`\n- [x] 413 for bodies over 64 KiB\n- [ ] docs/WIRE.md updated\n",
    ],
    code: &[
        (
            "rust",
            "pub fn etag(epoch: &str, rev: u64) -> String {\n    format!(\"\\\"{epoch}-{rev}\\\"\")\n}\n",
        ),
        (
            "python",
            "def backoff(attempt: int) -> float:\n    return min(30.0, 0.5 * 2 ** attempt)\n",
        ),
        (
            "toml",
            "[profile.test]\nopt-level = 1\ndebug = \"line-tables-only\"\n",
        ),
        ("bash", "cargo nextest run --workspace --retries 0\n"),
        (
            "typescript",
            "export function isReady(hello: Hello): boolean {\n  return hello.service === 'collie-durable' && hello.ready;\n}\n",
        ),
    ],
    links: &[
        (
            "https://docs.rs/axum/latest/axum/struct.Router.html",
            "axum Router docs",
        ),
        (
            "https://www.rfc-editor.org/rfc/rfc3339",
            "RFC 3339: timestamps",
        ),
        (
            "https://doc.rust-lang.org/std/fs/fn.rename.html",
            "std::fs::rename",
        ),
    ],
    permissions: &[
        ("shell", "cargo test --workspace"),
        ("shell", "rm -rf target/debug/incremental"),
        ("shell", "git push origin HEAD"),
        ("shell", "npm install --save-dev vitest"),
        ("shell", "docker compose up -d postgres"),
    ],
    choices: &[
        (
            "Which branch should this go on?",
            "The fix touches shared code.",
            &["main", "release/0.3", "A new branch"],
        ),
        (
            "How should I fix the flaky test?",
            "Pick an approach.",
            &["Fake clock", "Longer timeout", "Mark it ignored"],
        ),
        (
            "Where should the helper live?",
            "Two modules use it.",
            &["wire::time", "agent::world", "A new module"],
        ),
    ],
    texts: &[
        (
            "Name for the release",
            "What should v0.3 be called in the changelog?",
            "e.g. Quiet Lake",
        ),
        (
            "Commit message",
            "Write the commit message for this change.",
            "fix: …",
        ),
        ("Reviewer", "Who should review this PR?", "a GitHub handle"),
    ],
};

static CHINESE: Phrases = Phrases {
    prompts: &[
        "把订单服务拆成三个模块：下单、支付、退款。",
        "给退款接口加上幂等键。",
        "为什么支付回调偶尔会重复入账？",
        "把对账脚本改成每小时跑一次。",
        "检查一下数据库迁移能不能回滚。",
    ],
    thoughts: &[
        "回调重试时没有带上原来的请求号，所以被当成了新的支付。",
        "OrderService 同时依赖库存和优惠券，拆分前要先理清依赖。",
        "迁移脚本里有一个不可逆的 DROP COLUMN，需要先备份。",
        "对账任务读的是主库，高峰期会拖慢写入。",
    ],
    replies: &[
        "好的，我先列出现有的依赖关系。",
        "找到原因了：回调处理没有检查幂等键。",
        "改动不大，公开接口保持不变。",
        "三个模块已经拆好，测试全部通过。",
        "迁移可以回滚，但需要先导出 refund_log 表。",
    ],
    notices: &[
        "工具 `cargo check` 用时 4.1 秒。",
        "已读取 src/order/ 下的 9 个文件。",
        "上下文已压缩：剩余 38%。",
    ],
    closings: &[
        "完成。所有 86 个测试通过。",
        "完成。改动都在 src/order/ 里。",
        "好了，要我提交一个 PR 吗？",
    ],
    markdown: &[
        "## 迁移计划\n\n1. 新建 `order_v2` 表\n2. 双写一周\n3. 切换读流量\n\n### 风险\n- 退款记录量大，导出需要约 20 分钟\n\n```sql\nALTER TABLE orders ADD COLUMN idempotency_key TEXT;\n```\n",
        "## 模块划分\n\n- **下单**：库存、优惠券\n- **支付**：渠道、回调\n- **退款**：审核、对账\n",
    ],
    code: &[
        (
            "sql",
            "CREATE UNIQUE INDEX orders_idempotency ON orders (idempotency_key);\n",
        ),
        (
            "rust",
            "pub struct RefundRequest {\n    pub order_id: OrderId,\n    pub idempotency_key: String,\n}\n",
        ),
        (
            "go",
            "func (s *Service) Refund(ctx context.Context, req RefundRequest) error {\n\treturn s.repo.WithTx(ctx, func(tx Tx) error { return tx.Refund(req) })\n}\n",
        ),
    ],
    links: &[
        (
            "https://www.postgresql.org/docs/current/sql-createindex.html",
            "PostgreSQL: CREATE INDEX",
        ),
        (
            "https://stripe.com/docs/api/idempotent_requests",
            "幂等请求说明",
        ),
    ],
    permissions: &[
        ("shell", "psql -f migrations/0042_split_orders.sql"),
        ("shell", "cargo test -p order-service"),
        ("shell", "git push origin refactor/orders"),
    ],
    choices: &[
        (
            "选择迁移策略",
            "订单表有 1200 万行，怎么迁移？",
            &["一次性切换", "双写过渡", "按租户灰度"],
        ),
        (
            "退款接口的幂等键放在哪里？",
            "请选择一种方式。",
            &["请求头", "请求体", "两者都支持"],
        ),
    ],
    texts: &[
        ("提交说明", "请写这次改动的提交说明。", "例如：重构订单模块"),
        ("告警接收人", "告警应该发给谁？", "邮箱或群名"),
    ],
};

// ----- belts and starters --------------------------------------------------------------------

/// Belt buttons the demo picks from (SPEC L: labels of at most 16 characters).
pub(crate) const DEMO_BUTTONS: [(&str, &str); 8] = [
    ("run-tests", "Run tests"),
    ("lint", "Lint"),
    ("deploy-preview", "Deploy preview"),
    ("summarize", "Summarize"),
    ("format", "Format"),
    ("build", "Build"),
    ("open-pr", "Open PR"),
    ("benchmark", "Benchmark"),
];

fn demo_belt(rng: &mut ChaCha8Rng) -> Vec<BeltButton> {
    let count = rng.random_range(1..=limits::MAX_BELT_BUTTONS);
    let mut chosen: Vec<usize> = (0..DEMO_BUTTONS.len())
        .collect::<Vec<_>>()
        .choose_multiple(rng, count)
        .copied()
        .collect();
    chosen.sort_unstable();
    chosen
        .into_iter()
        .map(|i| BeltButton {
            id: DEMO_BUTTONS[i].0.to_string(),
            label: DEMO_BUTTONS[i].1.to_string(),
        })
        .collect()
}

pub(crate) fn demo_starters() -> Vec<Starter> {
    let starter = |id: &str, title: &str, description: &str| Starter {
        id: id.to_string(),
        title: title.to_string(),
        description: Some(description.to_string()),
    };
    vec![
        starter(
            "new-shell-agent",
            "New shell agent",
            "A fresh agent in a new tab, with a shell.",
        ),
        starter(
            "code-review",
            "Code review",
            "Reviews the current branch against main.",
        ),
        starter(
            "write-tests",
            "Write tests",
            "Finds untested code and writes tests for it.",
        ),
        starter(
            "explain-repo",
            "Explain this repo",
            "A short tour of the code base.",
        ),
        starter("fix-bug-zh", "修复线上 bug", "根据告警定位并修复问题。"),
    ]
}

// ----- the demo ------------------------------------------------------------------------------

/// One pane of the demo layout and where its story stands at start.
struct DemoPane {
    title: &'static str,
    now: DemoState,
}

enum DemoState {
    /// The last turn is done.
    Idle,
    /// The last turn failed.
    Failed,
    /// A turn streams; the script carries it on.
    Streaming,
    /// A turn waits for the named ask.
    Asking(&'static str, fn() -> Ask),
    /// A turn with an item of every kind, waiting for the `rm -rf build/` permission.
    Showcase,
}

fn clean_build_permission() -> Ask {
    permission(
        "shell",
        json!({"command": "rm -rf build/", "cwd": "/home/dev/src/collie-phone"}),
    )
}

fn migration_choice() -> Ask {
    choice(
        "选择迁移策略",
        "订单表有 1200 万行，怎么迁移？",
        &["一次性切换", "双写过渡", "按租户灰度"],
    )
}

fn release_name_text() -> Ask {
    text(
        "Name for the release",
        "What should v0.3 be called in the changelog?",
        "e.g. Quiet Lake",
        false,
    )
}

/// A tab's title and its panes.
type DemoTab = (&'static str, &'static [DemoPane]);

const DEMO_LAYOUT: [(&str, &[DemoTab]); 3] = [
    (
        "collie-phone",
        &[
            (
                "Server",
                &[
                    DemoPane {
                        title: "HTTP routes 🚀",
                        now: DemoState::Showcase,
                    },
                    DemoPane {
                        title: "Store & restarts",
                        now: DemoState::Streaming,
                    },
                ],
            ),
            (
                "Terminal UI",
                &[
                    DemoPane {
                        title: "Inbox screen",
                        now: DemoState::Idle,
                    },
                    DemoPane {
                        title: "Docs ✍️",
                        now: DemoState::Asking("call-release-name", release_name_text),
                    },
                ],
            ),
        ],
    ),
    (
        "支付服务重构",
        &[
            (
                "订单模块",
                &[
                    DemoPane {
                        title: "重构订单服务 🧾",
                        now: DemoState::Asking("call-migration-strategy", migration_choice),
                    },
                    DemoPane {
                        title: "数据库迁移",
                        now: DemoState::Failed,
                    },
                ],
            ),
            (
                "测试",
                &[DemoPane {
                    title: "集成测试",
                    now: DemoState::Idle,
                }],
            ),
        ],
    ),
    (
        "infra",
        &[
            (
                "CI",
                &[
                    DemoPane {
                        title: "Pipeline ⚙️",
                        now: DemoState::Asking("call-deploy-settings", deploy_form),
                    },
                    DemoPane {
                        title: "Release notes",
                        now: DemoState::Idle,
                    },
                ],
            ),
            (
                "Monitoring",
                &[DemoPane {
                    title: "告警规则 🔔",
                    now: DemoState::Idle,
                }],
            ),
        ],
    ),
];

/// Past conversations in history besides the open panes' own (SPEC W5: paging is 100 a page).
const DEMO_PAST_CONVERSATIONS: usize = 160;

fn lay_out_demo(world: &mut World, rng: &mut ChaCha8Rng, now: OffsetDateTime) {
    world.layout.starters = demo_starters();
    add_demo_history(world, rng, now);
    for (workspace_title, tabs) in DEMO_LAYOUT {
        let workspace = world.add_workspace(workspace_title);
        for (tab_title, panes) in tabs {
            let Some(tab) = world.add_tab(&workspace, tab_title) else {
                continue;
            };
            for spec in *panes {
                let belt = demo_belt(rng);
                if let Some(pane) = world.add_pane(&workspace, &tab, spec.title, belt, now) {
                    lay_out_demo_pane(world, rng, &pane, spec, now);
                }
            }
        }
    }
}

fn lay_out_demo_pane(
    world: &mut World,
    rng: &mut ChaCha8Rng,
    pane: &str,
    spec: &DemoPane,
    now: OffsetDateTime,
) {
    let chinese = is_chinese(spec.title);
    let words = phrases(chinese);
    let earlier_turns = rng.random_range(1..=2);
    for turn in 0..earlier_turns {
        let at = now - Duration::minutes(40 * (earlier_turns - turn));
        world.start_turn(pane, at);
        say(world, rng, pane, ItemKind::User, words.prompts, at);
        say(world, rng, pane, ItemKind::Reply, words.replies, at);
        say(world, rng, pane, ItemKind::Reply, words.closings, at);
        world.end_turn(pane, TurnState::Done, at);
    }
    let at = now - Duration::seconds(30);
    match spec.now {
        DemoState::Idle => {}
        DemoState::Failed => {
            world.start_turn(pane, at);
            say(world, rng, pane, ItemKind::User, words.prompts, at);
            world.push_item(
                pane,
                ItemKind::Notice,
                "迁移脚本失败：relation \"refund_log\" does not exist",
                at,
            );
            world.end_turn(pane, TurnState::Failed, at);
        }
        DemoState::Streaming => {
            world.start_turn(pane, at);
            say(world, rng, pane, ItemKind::User, words.prompts, at);
            say(world, rng, pane, ItemKind::Thinking, words.thoughts, at);
        }
        DemoState::Asking(tool_call_id, ask) => {
            world.start_turn(pane, at);
            say(world, rng, pane, ItemKind::User, words.prompts, at);
            say(world, rng, pane, ItemKind::Thinking, words.thoughts, at);
            say(world, rng, pane, ItemKind::Reply, words.replies, at);
            if chinese {
                say(world, rng, pane, ItemKind::Markdown, words.markdown, at);
                push_code(world, pane, words.code[0], at);
            }
            world.open_ask(pane, tool_call_id, ask(), now);
        }
        DemoState::Showcase => lay_out_showcase(world, pane, at, now),
    }
}

/// The pane that shows one item of every kind (SPEC L: user, reply, thinking, notice,
/// markdown, code, link), then asks to run a command.
fn lay_out_showcase(world: &mut World, pane: &str, at: OffsetDateTime, now: OffsetDateTime) {
    world.start_turn(pane, at);
    world.push_item(
        pane,
        ItemKind::User,
        "Add the abort route, then clean build/ so the tests start fresh.",
        at,
    );
    world.push_item(
        pane,
        ItemKind::Thinking,
        "Abort must name the turn the phone saw, or a late tap could stop a newer turn. 先确认 turn id 的校验。",
        at,
    );
    world.push_item(
        pane,
        ItemKind::Reply,
        "I'll add `POST /pane/:id/abort`, then clean the build folder.",
        at,
    );
    world.push_item(
        pane,
        ItemKind::Notice,
        "Tool `cargo check` finished in 4.2 s.",
        at,
    );
    world.push_item(
        pane,
        ItemKind::Markdown,
        "## Plan\n\n1. Add the route\n2. Check the turn id (A16)\n3. Clean `build/`\n\n### 注意\n- 已结束的 turn 返回 `409 not-running`\n- 其他 turn 返回 `409 turn-changed`\n\n```rust\nrouter.route(\"/pane/{id}/abort\", post(abort));\n```\n",
        at,
    );
    push_code(
        world,
        pane,
        (
            "rust",
            "async fn abort(State(agent): State<Shared>, Path(pane): Path<String>, body: Bytes) -> Reply {\n    let request: AbortRequest = wire::decode(&body)?;\n    agent.lock().world.abort(&pane, &request, now())\n}\n",
        ),
        at,
    );
    push_link(
        world,
        pane,
        (
            "https://docs.rs/axum/latest/axum/struct.Router.html",
            "axum Router docs",
        ),
        at,
    );
    world.push_item(
        pane,
        ItemKind::Reply,
        "The route is in. Before the test run I need to remove build/.",
        at,
    );
    world.open_ask(pane, "call-clean-build", clean_build_permission(), now);
}

fn say(
    world: &mut World,
    rng: &mut ChaCha8Rng,
    pane: &str,
    kind: ItemKind,
    pool: &[&str],
    at: OffsetDateTime,
) {
    if let Some(text) = pool.choose(rng) {
        world.push_item(pane, kind, text, at);
    }
}

pub(crate) fn push_code(
    world: &mut World,
    pane: &str,
    (language, code): (&str, &str),
    at: OffsetDateTime,
) {
    let mut item = Item::text("", ItemKind::Code, truncate_to(code, limits::MAX_DOC_TEXT));
    item.language = Some(language.to_string());
    world.push_built_item(pane, &mut item, at);
}

pub(crate) fn push_link(
    world: &mut World,
    pane: &str,
    (url, title): (&str, &str),
    at: OffsetDateTime,
) {
    let mut item = Item::text("", ItemKind::Link, "");
    item.url = Some(url.to_string());
    item.title = Some(title.to_string());
    world.push_built_item(pane, &mut item, at);
}

const PAST_TOPICS_EN: [&str; 12] = [
    "reconnect backoff",
    "the snapshot ETag",
    "socket permissions",
    "TLS token checks",
    "history paging",
    "the inbox screen",
    "request-id memory",
    "form answers",
    "the release script",
    "flaky CI",
    "config loading",
    "log rotation",
];
const PAST_VERBS_EN: [&str; 6] = ["Fix", "Review", "Refactor", "Document", "Test", "Speed up"];
const PAST_TOPICS_ZH: [&str; 6] = [
    "退款接口",
    "对账脚本",
    "订单表迁移",
    "支付回调",
    "告警规则",
    "库存锁",
];
const PAST_VERBS_ZH: [&str; 4] = ["修复", "重构", "评审", "测试"];

/// 160 closed conversations over the last 80 days, three of them long enough to need several
/// item pages (SPEC L: 1000 items a page).
fn add_demo_history(world: &mut World, rng: &mut ChaCha8Rng, now: OffsetDateTime) {
    for index in 0..DEMO_PAST_CONVERSATIONS {
        let chinese = index % 5 == 3;
        let title = if chinese {
            format!(
                "{}{}",
                PAST_VERBS_ZH.choose(rng).copied().unwrap_or("修复"),
                PAST_TOPICS_ZH.choose(rng).copied().unwrap_or("订单")
            )
        } else {
            format!(
                "{} {}",
                PAST_VERBS_EN.choose(rng).copied().unwrap_or("Fix"),
                PAST_TOPICS_EN.choose(rng).copied().unwrap_or("the build")
            )
        };
        let length = match index {
            20 => 1500,
            75 => 1100,
            130 => 250,
            _ => rng.random_range(2..=12),
        };
        let words = phrases(chinese);
        let items = (0..length)
            .map(|n| {
                let (kind, pool) = match n % 6 {
                    0 => (ItemKind::User, words.prompts),
                    1 => (ItemKind::Thinking, words.thoughts),
                    2 | 4 => (ItemKind::Reply, words.replies),
                    3 => (ItemKind::Notice, words.notices),
                    _ => (ItemKind::Markdown, words.markdown),
                };
                (
                    kind,
                    pool.choose(rng).copied().unwrap_or_default().to_string(),
                )
            })
            .collect();
        let hours_ago = (DEMO_PAST_CONVERSATIONS - index) as i64 * 12;
        world.add_past_conversation(&title, items, now - Duration::hours(hours_ago));
    }
}

// ----- the big world -------------------------------------------------------------------------

/// Titles of the big world's panes that carry the extremes.
pub const BIG_CROWDED_PANE: &str = "Fifty open asks";
pub const BIG_LONG_PANE: &str = "Two thousand items";
/// Items in the big world's long pane: the most a pane view carries (SPEC L).
pub const BIG_LONG_PANE_ITEMS: usize = limits::MAX_VIEW_ITEMS;
const BIG_PAST_CONVERSATIONS: usize = 300;

/// Four labels of exactly 16 characters (SPEC L).
const BIG_BELT: [(&str, &str); limits::MAX_BELT_BUTTONS] = [
    ("run-all-tests", "Run all of tests"),
    ("lint-sources", "Lint the sources"),
    ("deploy-preview", "Deploy a preview"),
    ("summarize-turn", "Summarize a turn"),
];

fn lay_out_big(world: &mut World, rng: &mut ChaCha8Rng, now: OffsetDateTime) {
    world.layout.starters = (1..=limits::MAX_STARTERS)
        .map(|i| Starter {
            id: format!("starter-{i:02}"),
            title: format!("Starter {i:02}"),
            description: Some(format!("Starts agent number {i} in a new tab.")),
        })
        .collect();
    for index in 0..BIG_PAST_CONVERSATIONS {
        let items = vec![
            (ItemKind::User, format!("Old question number {index}.")),
            (ItemKind::Reply, format!("Old answer number {index}.")),
        ];
        world.add_past_conversation(
            &format!("Past conversation {index}"),
            items,
            now - Duration::hours(index as i64 + 1),
        );
    }
    let belt: Vec<BeltButton> = BIG_BELT
        .iter()
        .map(|(id, label)| BeltButton {
            id: id.to_string(),
            label: label.to_string(),
        })
        .collect();
    let tabs_per_workspace = limits::MAX_TABS / limits::MAX_WORKSPACES;
    let panes_per_tab = limits::MAX_PANES / limits::MAX_TABS;
    let mut panes = Vec::with_capacity(limits::MAX_PANES);
    for w in 0..limits::MAX_WORKSPACES {
        let workspace = world.add_workspace(&format!("Workspace {w:02}"));
        for t in 0..tabs_per_workspace {
            let Some(tab) = world.add_tab(&workspace, &format!("Tab {w:02}.{t}")) else {
                continue;
            };
            for p in 0..panes_per_tab {
                let title = match panes.len() {
                    0 => BIG_CROWDED_PANE.to_string(),
                    1 => BIG_LONG_PANE.to_string(),
                    n => format!("Pane {n:03} of {w:02}.{t}.{p}"),
                };
                if let Some(pane) = world.add_pane(&workspace, &tab, &title, belt.clone(), now) {
                    panes.push(pane);
                }
            }
        }
    }
    for (index, pane) in panes.iter().enumerate() {
        match index {
            0 => fill_crowded_pane(world, pane, now),
            1 => fill_long_pane(world, pane, now),
            _ => {
                world.start_turn(pane, now);
                world.push_item(pane, ItemKind::User, &format!("Task number {index}."), now);
                world.push_item(pane, ItemKind::Reply, "Working on it.", now);
                match rng.random_range(0..4) {
                    0 => {}
                    1 => world.end_turn(pane, TurnState::Failed, now),
                    _ => world.end_turn(pane, TurnState::Done, now),
                }
            }
        }
    }
}

/// 50 open asks (SPEC L), the four kinds in turn, each at its own limit: 6 permission options,
/// 8 choice options, 6 form fields with an 8-option choice field.
fn fill_crowded_pane(world: &mut World, pane: &str, now: OffsetDateTime) {
    world.start_turn(pane, now);
    world.push_item(pane, ItemKind::User, "Ask me everything at once.", now);
    let eight: Vec<String> = (1..=limits::MAX_CHOICE_OPTIONS)
        .map(|i| format!("Option {i}"))
        .collect();
    let eight: Vec<&str> = eight.iter().map(String::as_str).collect();
    for index in 0..limits::MAX_OPEN_ASKS_PER_PANE {
        let ask = match index % 4 {
            0 => {
                let mut ask = permission(
                    "shell",
                    json!({"command": format!("make target-{index}"), "cwd": "/srv/big"}),
                );
                if let Some(body) = &mut ask.permission {
                    body.options = vec![
                        option(ALLOW_ONCE, "Allow once", Some(Effect::Allow)),
                        option("allow-turn", "Allow for this turn", Some(Effect::Allow)),
                        option("allow-folder", "Allow in this folder", Some(Effect::Allow)),
                        option(ALLOW_ALWAYS, "Allow always", Some(Effect::AllowAlways)),
                        option(DENY, "Deny", Some(Effect::Deny)),
                        option("deny-stop", "Deny and stop", Some(Effect::Deny)),
                    ];
                }
                ask
            }
            1 => choice(
                &format!("Pick one, number {index}"),
                "Eight ways to go.",
                &eight,
            ),
            2 => text(
                &format!("Say something, number {index}"),
                "Anything at all.",
                "type here",
                true,
            ),
            _ => form(
                &format!("Fill the form, number {index}"),
                "Six fields.",
                vec![
                    choice_field("target", "Target", &eight, Some("Option 1")),
                    field(
                        "dry_run",
                        "Dry run",
                        FieldKind::Boolean,
                        true,
                        Some(json!(true)),
                    ),
                    field(
                        "replicas",
                        "Replicas",
                        FieldKind::Number,
                        false,
                        Some(json!(3)),
                    ),
                    field("notes", "Notes", FieldKind::Text, false, None),
                    field("owner", "Owner", FieldKind::Text, true, None),
                    field(
                        "notify",
                        "Notify the team",
                        FieldKind::Boolean,
                        false,
                        Some(json!(false)),
                    ),
                ],
            ),
        };
        world.open_ask(pane, &format!("call-big-{index:02}"), ask, now);
    }
}

/// 2000 items, with one item at each text limit (SPEC L: 64 KiB chat, 32 KiB markdown and code,
/// 2048-character link); the rest are sized so the pane's view stays far inside 8 MiB.
fn fill_long_pane(world: &mut World, pane: &str, now: OffsetDateTime) {
    world.start_turn(pane, now);
    let filler = "The quick brown fox checks every limit before it jumps. ".repeat(16);
    let link_host = "https://example.com/";
    let long_url = format!(
        "{link_host}{}",
        "a".repeat(limits::MAX_LINK_CHARS - link_host.len())
    );
    for index in 0..BIG_LONG_PANE_ITEMS {
        match index {
            0 => {
                world.push_item(
                    pane,
                    ItemKind::User,
                    &"u".repeat(limits::MAX_CHAT_TEXT),
                    now,
                );
            }
            1 => {
                world.push_item(
                    pane,
                    ItemKind::Markdown,
                    &format!("# Long\n\n{}", "m".repeat(limits::MAX_DOC_TEXT)),
                    now,
                );
            }
            2 => push_code(
                world,
                pane,
                ("text", &"c".repeat(limits::MAX_DOC_TEXT)),
                now,
            ),
            3 => push_link(world, pane, (&long_url, "The longest link"), now),
            n => {
                let kind = match n % 5 {
                    0 => ItemKind::User,
                    1 => ItemKind::Thinking,
                    2 => ItemKind::Notice,
                    _ => ItemKind::Reply,
                };
                world.push_item(pane, kind, &format!("{n}: {filler}"), now);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> OffsetDateTime {
        time::macros::datetime!(2026-01-02 03:04:05 UTC)
    }

    #[test]
    fn same_seed_lays_out_the_same_demo() {
        let a = build(WorldKind::Demo, 7, true, "h", at());
        let b = build(WorldKind::Demo, 7, true, "h", at());
        let json = |w: &World| serde_json::to_string(&w.layout).expect("serializes");
        assert_eq!(json(&a), json(&b));
        let c = build(WorldKind::Demo, 8, true, "h", at());
        assert_ne!(json(&a), json(&c));
    }

    #[test]
    fn a10_permission_title_comes_from_tool_and_arguments() {
        let ask = permission("shell", json!({"command": "rm -rf build/", "cwd": "/x"}));
        assert_eq!(ask.title, "shell: rm -rf build/");
        let ask = permission("fetch", json!({"depth": 2}));
        assert_eq!(ask.title, "fetch: {\"depth\":2}");
    }

    #[test]
    fn l_demo_belts_hold_one_to_four_short_labels() {
        let world = build(WorldKind::Demo, 3, true, "h", at());
        for pane in world.layout.panes.values() {
            assert!((1..=limits::MAX_BELT_BUTTONS).contains(&pane.belt.len()));
            assert!(
                pane.belt
                    .iter()
                    .all(|b| b.label.chars().count() <= limits::MAX_BELT_LABEL_CHARS)
            );
        }
    }

    #[test]
    fn a11_no_allow_always_without_it() {
        let world = build(WorldKind::Demo, 3, false, "h", at());
        let offered = world
            .layout
            .panes
            .values()
            .flat_map(|p| &p.asks)
            .filter_map(|a| a.ask.permission.as_ref())
            .flat_map(|p| &p.options)
            .any(|o| o.effect == Some(Effect::AllowAlways));
        assert!(!offered);
    }

    #[test]
    fn slugs_are_ids() {
        assert_eq!(slug("Staging").as_deref(), Some("staging"));
        assert_eq!(slug("Option 1").as_deref(), Some("option-1"));
        assert_eq!(slug("一次性"), None);
        let field = choice_field("f", "F", &["一", "二"], Some("二"));
        assert_eq!(field.options[1].id, "option-2");
        assert_eq!(field.default, Some(json!("option-2")));
    }
}
