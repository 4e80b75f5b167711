//! Search in a long chat (docs/ENGINE.md, "Measured"): the pane screen's count of every match
//! of a query over a chat of 2000 items of 2 KiB each, laid out at 120 columns as the pane lays
//! them out. Goals: a search that finds nothing in at most 20 ms; one that finds 60,000
//! matches in at most 200 ms, the first time (every entry laid out on the way) and again.
//!
//! Three rows: "no match" (the quick look at each item's own words rules every item out),
//! "60k matches, cold" (the layout memo emptied before each search, as after opening the pane
//! or a resize) and "60k matches, warm" (a second search, the memo full).
//!
//! `cargo bench --bench search` measures the full chat. `cargo test --all-targets` runs this
//! without `--bench`, where criterion runs each row once: the chat is then 100 items, so the
//! run stays short in a debug build.

use std::collections::VecDeque;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

use collie_phone::chat::pane_log::ChatEntry;
use collie_phone::look::search_bench::SearchBench;
use collie_phone::look::theme::Theme;
use collie_phone::wire::Item;

const ITEMS: usize = 2000;
const TEST_ITEMS: usize = 100;
const WIDTH: u16 = 120;
/// Each item holds the word this many times: 2000 items, 60,000 matches.
const MATCHES_PER_ITEM: usize = 30;
const FOUND: &str = "Needle";
const MISSING: &str = "zqxwv";

/// About 2 KiB of markdown prose holding [`FOUND`] (in one case or another)
/// [`MATCHES_PER_ITEM`] times, a little different from item to item.
fn item_text(index: usize) -> String {
    let mut text = format!("## Step {index}\n\n");
    for n in 0..MATCHES_PER_ITEM {
        let word = if n % 2 == 0 { "needle" } else { "NEEDLE" };
        text.push_str(&format!(
            "The {word} in item {index}, part {n}, reads the *config* and `writes` a line. "
        ));
        if n % 10 == 9 {
            text.push_str("\n\n");
        }
    }
    while text.len() < 2048 {
        text.push_str("More words about the build and the tests. ");
    }
    text
}

fn chat(items: usize) -> VecDeque<ChatEntry> {
    (0..items)
        .map(|index| {
            let item: Item = serde_json::from_value(serde_json::json!({
                "id": format!("item-{index}"),
                "kind": "reply",
                "text": item_text(index),
            }))
            .expect("an item");
            ChatEntry::Item(item)
        })
        .collect()
}

fn search(c: &mut Criterion) {
    let measuring = std::env::args().any(|arg| arg == "--bench");
    let items = if measuring { ITEMS } else { TEST_ITEMS };
    let mut bench = SearchBench::new(
        chat(items),
        WIDTH,
        Theme::builtin("dark").expect("the dark theme"),
    );
    assert_eq!(bench.search(MISSING), 0);
    assert_eq!(bench.search(FOUND), items * MATCHES_PER_ITEM);

    let mut group = c.benchmark_group(format!("search_{items}_items_of_2k"));
    group.bench_function("no match", |b| {
        b.iter(|| black_box(bench.search(black_box(MISSING))))
    });
    group.bench_function("60k matches, warm", |b| {
        b.iter(|| black_box(bench.search(black_box(FOUND))))
    });
    group.bench_function("60k matches, cold", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                bench.forget_layout();
                let started = Instant::now();
                black_box(bench.search(black_box(FOUND)));
                spent += started.elapsed();
            }
            spent
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    // A cold search lays out 4 MB of markdown: ten samples are enough to read it.
    config = Criterion::default().sample_size(10);
    targets = search
}
criterion_main!(benches);
