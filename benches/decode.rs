//! How much decoding a snapshot at the limits of SPEC L costs over plain JSON parsing.
//!
//! The snapshot is the reply Collie reads most (every poll that is not a 304), and the largest
//! one a pane list can make: 64 workspaces, 256 tabs, 256 panes, open asks, belts and starters
//! at their caps, long-but-legal strings with CJK and emoji, just under the 4 MiB reply cap
//! (SPEC W5). `wire::decode` parses into typed shapes and then cuts, cleans and caps; the goals
//! are to cost at most 1.3× the typed parse alone (what cutting and cleaning add) and at most
//! 1.2× a parse into `serde_json::Value`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use collie_phone::wire::limits::{
    MAX_BELT_BUTTONS, MAX_CHOICE_OPTIONS, MAX_FORM_FIELDS, MAX_OPEN_ASKS_PER_PANE, MAX_PANES,
    MAX_PERMISSION_OPTIONS, MAX_SNAPSHOT_REPLY, MAX_STARTERS, MAX_TABS, MAX_WORKSPACES,
};
use collie_phone::wire::{
    self, Ask, AskKind, AskOption, BeltButton, ChoiceBody, Effect, FieldKind, FormBody, FormField,
    Pane, PaneState, PermissionBody, Snapshot, Starter, Tab, TextBody, Turn, TurnState, Workspace,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;

/// Leaves room under the cap for the JSON that closes the lists after the last ask.
const HEADROOM: usize = 4 * 1024;

/// A title of `chars` characters, mostly CJK (3 bytes each in UTF-8), within SPEC's limits.
fn cjk(seed: usize, chars: usize) -> String {
    const WORDS: [&str; 6] = [
        "重构订单服务",
        "数据库迁移",
        "告警规则",
        "集成测试",
        "支付网关",
        "🚀部署",
    ];
    let mut text = String::new();
    let mut index = seed;
    while text.chars().count() < chars {
        text.push_str(WORDS[index % WORDS.len()]);
        text.push(' ');
        index += 1;
    }
    text.chars().take(chars).collect()
}

fn option(i: usize, effect: Option<Effect>) -> AskOption {
    AskOption {
        id: format!("option-{i}"),
        label: cjk(i, 12),
        effect,
    }
}

/// One open ask of each kind in turn, with its options and fields at their caps.
fn ask(pane: usize, n: usize) -> Ask {
    let kinds = [
        AskKind::Permission,
        AskKind::Choice,
        AskKind::Text,
        AskKind::Form,
    ];
    let kind = kinds[n % kinds.len()].clone();
    let mut ask = Ask {
        id: wire::ask_id(&format!("p-{pane}"), &format!("call-{n}")),
        revision: 1 + (n as u64 % 3),
        kind: kind.clone(),
        title: cjk(pane + n, 40),
        opened_at: Some(wire::Stamp::new("2026-11-29T23:30:00Z")),
        expires_at: n
            .is_multiple_of(5)
            .then(|| wire::Stamp::new("2026-11-29T23:45:00+08:00")),
        permission: None,
        choice: None,
        text: None,
        form: None,
        words_altered: false,
    };
    match kind {
        AskKind::Permission => {
            let effects = [Effect::Allow, Effect::Deny, Effect::AllowAlways];
            ask.permission = Some(PermissionBody {
                tool: "shell".into(),
                arguments: json!({
                    "command": format!("cargo test --package pane-{pane} -- --test-threads 2 # 集成测试 {n}"),
                    "cwd": "/home/dev/src/支付服务",
                    "env": {"RUST_LOG": "debug", "CI": "1"}
                }),
                options: (0..MAX_PERMISSION_OPTIONS)
                    .map(|i| option(i, Some(effects[i % effects.len()].clone())))
                    .collect(),
            });
        }
        AskKind::Choice => {
            ask.choice = Some(ChoiceBody {
                prompt: Some(format!(
                    "{}\n\n{}",
                    cjk(n, 60),
                    "Which way should the migration go?"
                )),
                options: (0..MAX_CHOICE_OPTIONS).map(|i| option(i, None)).collect(),
                url: None,
            });
        }
        AskKind::Text => {
            ask.text = Some(TextBody {
                prompt: Some(cjk(n, 80)),
                placeholder: Some("e.g. Quiet Lake 静湖".into()),
                multiline: n.is_multiple_of(2),
            });
        }
        _ => {
            let kinds = [
                FieldKind::Text,
                FieldKind::Choice,
                FieldKind::Boolean,
                FieldKind::Number,
            ];
            ask.form = Some(FormBody {
                prompt: Some(cjk(n, 30)),
                fields: (0..MAX_FORM_FIELDS)
                    .map(|i| {
                        let kind = kinds[i % kinds.len()].clone();
                        FormField {
                            options: if kind == FieldKind::Choice {
                                (0..MAX_CHOICE_OPTIONS).map(|o| option(o, None)).collect()
                            } else {
                                Vec::new()
                            },
                            default: match kind {
                                FieldKind::Boolean => Some(json!(true)),
                                FieldKind::Number => Some(json!(3)),
                                _ => None,
                            },
                            required: i % 2 == 0,
                            description: Some(cjk(i, 20)),
                            ..FormField::new(&format!("field-{i}"), &cjk(i, 10), kind)
                        }
                    })
                    .collect(),
                options: Vec::new(),
            });
        }
    }
    ask
}

fn json_len<T: serde::Serialize>(value: &T) -> usize {
    serde_json::to_vec(value).map_or(0, |bytes| bytes.len())
}

/// The snapshot: every count at its cap, then open asks (50 a pane, the cap) pane after pane
/// until the next one would pass the 4 MiB reply cap.
fn snapshot_at_the_limits() -> Snapshot {
    let tabs_per_workspace = MAX_TABS / MAX_WORKSPACES;
    let panes_per_tab = MAX_PANES / MAX_TABS;
    let mut snapshot = Snapshot {
        epoch: "8d24d5dcd4cd9329a84d4142f80cacfe".into(),
        rev: 4_096,
        workspaces: (0..MAX_WORKSPACES)
            .map(|w| Workspace {
                id: format!("w-{w}"),
                title: cjk(w, 60),
                tabs: (0..tabs_per_workspace)
                    .map(|t| {
                        let tab = w * tabs_per_workspace + t;
                        Tab {
                            id: format!("t-{tab}"),
                            title: cjk(tab, 30),
                            panes: (0..panes_per_tab)
                                .map(|p| {
                                    let pane = tab * panes_per_tab + p;
                                    Pane {
                                        id: format!("p-{pane}"),
                                        title: cjk(pane, 50),
                                        state: PaneState::Running,
                                        turn: Some(Turn {
                                            id: format!("p-{pane}.turn-7"),
                                            state: TurnState::Running,
                                        }),
                                        conversation_id: Some(format!("c-{pane}")),
                                        belt: (0..MAX_BELT_BUTTONS)
                                            .map(|b| BeltButton {
                                                id: format!("belt-{b}"),
                                                label: cjk(b, 16),
                                            })
                                            .collect(),
                                        asks: Vec::new(),
                                        settings: Vec::new(),
                                        commands: Vec::new(),
                                        usage: None,
                                    }
                                })
                                .collect(),
                        }
                    })
                    .collect(),
            })
            .collect(),
        starters: (0..MAX_STARTERS)
            .map(|s| Starter {
                id: format!("starter-{s}"),
                title: cjk(s, 20),
                description: Some(cjk(s, 120)),
            })
            .collect(),
    };
    let mut size = json_len(&snapshot);
    'fill: for workspace in &mut snapshot.workspaces {
        for tab in &mut workspace.tabs {
            for pane in &mut tab.panes {
                let pane_number: usize = pane.id.trim_start_matches("p-").parse().unwrap_or(0);
                for n in 0..MAX_OPEN_ASKS_PER_PANE {
                    let ask = ask(pane_number, n);
                    let grows = json_len(&ask) + 1;
                    if size + grows + HEADROOM > MAX_SNAPSHOT_REPLY {
                        break 'fill;
                    }
                    size += grows;
                    pane.state = PaneState::Waiting;
                    pane.asks.push(ask);
                }
            }
        }
    }
    snapshot
}

/// The median of a few timed runs, for the one-line ratio printed before criterion's figures.
fn median_time(runs: usize, mut work: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn decode_snapshot(c: &mut Criterion) {
    let snapshot = snapshot_at_the_limits();
    let bytes = serde_json::to_vec(&snapshot).expect("the snapshot serializes");
    assert!(
        bytes.len() <= MAX_SNAPSHOT_REPLY,
        "the snapshot must fit the 4 MiB cap"
    );
    let decoded = wire::decode::<Snapshot>(&bytes).expect("the snapshot decodes");
    assert!(
        decoded.report.is_empty(),
        "a snapshot inside every limit loses nothing: {:?}",
        decoded.report
    );

    let asks: usize = snapshot.panes().map(|(_, _, pane)| pane.asks.len()).sum();
    let typed = median_time(21, || {
        black_box(wire::decode::<Snapshot>(black_box(&bytes)).ok());
    });
    let untyped = median_time(21, || {
        black_box(serde_json::from_slice::<serde_json::Value>(black_box(&bytes)).ok());
    });
    // The typed parse alone, so the figures show what cutting and cleaning add on top of it.
    let parse_only = median_time(21, || {
        black_box(serde_json::from_slice::<Snapshot>(black_box(&bytes)).ok());
    });
    eprintln!(
        "decode: {} bytes, {} panes, {asks} open asks; wire::decode {:.2} ms, the typed parse alone {:.2} ms: {:.2}x (goal ≤ 1.3x); serde_json::Value {:.2} ms: {:.2}x (goal ≤ 1.2x)",
        bytes.len(),
        snapshot.panes().count(),
        typed.as_secs_f64() * 1e3,
        parse_only.as_secs_f64() * 1e3,
        typed.as_secs_f64() / parse_only.as_secs_f64(),
        untyped.as_secs_f64() * 1e3,
        typed.as_secs_f64() / untyped.as_secs_f64(),
    );

    let mut group = c.benchmark_group("snapshot_4mib");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(30);
    group.bench_function("wire::decode::<Snapshot>", |b| {
        b.iter(|| wire::decode::<Snapshot>(black_box(&bytes)))
    });
    group.bench_function("serde_json::from_slice::<Snapshot> (parse only)", |b| {
        b.iter(|| serde_json::from_slice::<Snapshot>(black_box(&bytes)))
    });
    group.bench_function("serde_json::from_slice::<Value>", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&bytes)))
    });
    group.finish();
}

criterion_group!(benches, decode_snapshot);
criterion_main!(benches);
