//! The fuzzers' corpus as a regression test (docs/FUZZING.md): CI does not run cargo-fuzz, but
//! every file kept in `fuzz/corpus/<target>/` (the seeds, what the runs found worth keeping,
//! and any input that once crashed) goes through the very function its target calls, on stable.

use std::path::Path;

use collie_testkit::fuzz_checks;

fn replay(target: &str, check: fn(&[u8])) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no corpus for {target}");
    for file in files {
        let data = std::fs::read(&file).expect("a corpus file");
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(
            outcome.is_ok(),
            "{target}: {} broke a property",
            file.display()
        );
    }
}

#[test]
fn decode_corpus() {
    replay("decode", fuzz_checks::decode);
}

#[test]
fn clean_corpus() {
    replay("clean", fuzz_checks::clean);
}

#[test]
fn markdown_corpus() {
    replay("markdown", fuzz_checks::markdown);
}

#[test]
fn wrap_corpus() {
    replay("wrap", fuzz_checks::wrap);
}

#[test]
fn editor_corpus() {
    replay("editor", fuzz_checks::editor);
}

#[test]
fn dsh_corpus() {
    replay("dsh", fuzz_checks::dsh);
}
