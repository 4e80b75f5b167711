//! The rule book, docs/SPEC.md, against what cites it: every rule id that the code, the tests
//! and the docs cite has an entry there; every entry says what keeps it and what proves it, with
//! paths and test functions that exist; and the help a user reads points to `collie-phone rules`,
//! which prints the book, not to bare ids. Reads files and runs `--help`; no network.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use regex::Regex;

const BOOK: &str = "docs/SPEC.md";
const BIN: &str = env!("CARGO_BIN_EXE_collie-phone");

/// Tokens of a rule id's shape that are no rule, each with where it may stand ("" anywhere, else
/// a path prefix) and why. Keep this short: a new entry needs a reason a reader accepts.
const NOT_RULES: &[(&str, &str, &str)] = &[
    (
        "T0",
        "",
        "a test clock's time zero (`const T0`); no rule is numbered 0",
    ),
    (
        "V41",
        "",
        "a model's name in the DSH bridge's catalog (\"V41 Flash\")",
    ),
    (
        "W9",
        "crates/check/src/check/mod.rs",
        "the made-up rule of the how-to for adding a check",
    ),
    (
        "S70",
        "tests/integration/cli_help.rs",
        "an id the book has not, to see `collie-phone rules` say so",
    ),
    (
        "A40",
        "tests/",
        "a test of a 40 KB paste (`a40_kb_paste_…`)",
    ),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The path of `path` inside the repository, with `/` whatever the platform.
fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .components()
        .map(|part| part.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Every file below `folder` whose name ends in `extension`, in a stable order.
fn files_under(folder: &Path, extension: &str, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_under(&path, extension, found);
        } else if path.extension().is_some_and(|e| e == extension) {
            found.push(path);
        }
    }
}

/// One rule of the book, read by the binary's own parser (`collie-phone rules`), so the book
/// has one reader.
use collie_phone::cli::rule_book::Entry;

/// The book's rules, in order. A rule is a `### ID. Title` heading (`### L. …`, `### L.belt`,
/// `### W4. …`).
fn entries(book: &str) -> Vec<Entry> {
    collie_phone::cli::rule_book::entries(book)
}

/// The families of the book: the letters its numbered ids start with.
fn families(ids: &BTreeSet<String>) -> String {
    let letters: BTreeSet<char> = ids
        .iter()
        .filter(|id| id.len() > 1 && !id.contains('.'))
        .filter_map(|id| id.chars().next())
        .collect();
    letters.into_iter().collect()
}

/// What counts as citing a rule, for the book's families `F` (e.g. "WHAQSTLVD"):
/// - a token `F<n>` standing alone (`W4`, `(A10)`, `SPEC S1`, `S7/T8`);
/// - a range `F<n>–F<m>`, `F<n>..<m>`, `F<n>-F<m>` or `F<n> to F<m>` (every id between, both
///   ends included);
/// - a row of the limits table, `L.<name>`;
/// - a test named after rules: `fn a4_a7_…`, `fn l_l1_h5_…` (lower case, up to the first word).
///
/// Hex, key names and the like do not match: `F1` and `U+202E` are of no family, `0xA1` and
/// `A3F2` have no word boundary around the id, and lower case counts only at the start of a
/// test's name.
struct Citations {
    token: Regex,
    range: Regex,
    limit_row: Regex,
    test_name: Regex,
    test_prefix: Regex,
}

impl Citations {
    fn new(families: &str) -> Self {
        let upper = format!("[{families}]");
        let lower = format!("[{}]", families.to_lowercase());
        Self {
            token: Regex::new(&format!(r"\b{upper}\d+\b")).expect("regex"),
            range: Regex::new(&format!(
                r"\b({upper})(\d+)(?:\s*(?:–|—|\.\.)\s*{upper}?|\s+to\s+{upper}|-{upper})(\d+)\b"
            ))
            .expect("regex"),
            limit_row: Regex::new(r"\bL\.[a-z][a-z-]*[a-z]").expect("regex"),
            test_name: Regex::new(&format!(r"\bfn ((?:(?:{lower}\d+|l)_)+)")).expect("regex"),
            test_prefix: Regex::new(&format!(r"({lower}\d+)_")).expect("regex"),
        }
    }

    /// The ids one line cites.
    fn in_line(&self, line: &str) -> BTreeSet<String> {
        let mut ids: BTreeSet<String> = self
            .token
            .find_iter(line)
            .map(|m| m.as_str().to_string())
            .collect();
        for caps in self.range.captures_iter(line) {
            let (Ok(from), Ok(to)) = (caps[2].parse::<u32>(), caps[3].parse::<u32>()) else {
                continue;
            };
            ids.extend((from..=to).map(|n| format!("{}{n}", &caps[1])));
        }
        ids.extend(
            self.limit_row
                .find_iter(line)
                .map(|m| m.as_str().to_string()),
        );
        for caps in self.test_name.captures_iter(line) {
            ids.extend(
                self.test_prefix
                    .captures_iter(&caps[1])
                    .map(|c| c[1].to_uppercase()),
            );
        }
        ids
    }
}

/// The entry of [`NOT_RULES`] that lets `id` stand in `file`, if one does.
fn not_a_rule(id: &str, file: &str) -> Option<usize> {
    NOT_RULES
        .iter()
        .position(|(token, place, _)| *token == id && file.starts_with(place))
}

/// Every file whose citations count: the Rust of src/, crates/, tests/, benches/ and
/// fuzz/fuzz_targets/, the docs and the README. This file is left out: its allow-list names the
/// tokens it allows.
fn citing_files() -> Vec<PathBuf> {
    let root = root();
    let mut files = Vec::new();
    for folder in ["src", "crates", "tests", "benches", "fuzz/fuzz_targets"] {
        files_under(&root.join(folder), "rs", &mut files);
    }
    files_under(&root.join("docs"), "md", &mut files);
    files.push(root.join("README.md"));
    let this_file = root.join("tests/integration/spec_book.rs");
    files.retain(|path| *path != this_file && path.is_file());
    files
}

fn book_ids() -> BTreeSet<String> {
    entries(&read(&root().join(BOOK)))
        .into_iter()
        .map(|entry| entry.id)
        .collect()
}

#[test]
fn every_cited_rule_id_is_in_the_book() {
    let ids = book_ids();
    let families = families(&ids);
    assert_eq!(
        families, "ADHLPQSTVW",
        "the book's families changed: read the citation rules in this file again"
    );
    let citations = Citations::new(&families);
    let mut missing = Vec::new();
    let mut allowed = BTreeSet::new();
    for path in citing_files() {
        let file = relative(&path);
        for (index, line) in read(&path).lines().enumerate() {
            for id in citations.in_line(line) {
                if ids.contains(&id) {
                    continue;
                }
                match not_a_rule(&id, &file) {
                    Some(entry) => {
                        allowed.insert(entry);
                    }
                    None => missing.push(format!("{file}:{}: cites {id}", index + 1)),
                }
            }
        }
    }
    let unused: Vec<&str> = (0..NOT_RULES.len())
        .filter(|entry| !allowed.contains(entry))
        .map(|entry| NOT_RULES[entry].0)
        .collect();
    assert!(
        unused.is_empty(),
        "NOT_RULES in tests/integration/spec_book.rs allows what no file has any more; remove: {unused:?}"
    );
    assert!(
        missing.is_empty(),
        "these cite a rule id that {BOOK} has no entry for (add the rule there, fix the id, or, \
         when it is no rule, add it to NOT_RULES in tests/integration/spec_book.rs with the reason):\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_citations_are_read_as_meant() {
    let citations = Citations::new("ADHLQSTVW");
    let cited = |line: &str| citations.in_line(line).into_iter().collect::<Vec<_>>();
    assert_eq!(cited("(SPEC S1), S7/T8, [W4]"), ["S1", "S7", "T8", "W4"]);
    assert_eq!(cited("SPEC A3–A5"), ["A3", "A4", "A5"]);
    assert_eq!(cited("D1..3"), ["D1", "D2", "D3"]);
    assert_eq!(cited("A3 to A5, Q1-Q2"), ["A3", "A4", "A5", "Q1", "Q2"]);
    assert_eq!(cited("a `L.belt` row of SPEC L"), ["L.belt"]);
    assert_eq!(cited("fn l_l1_h5_events_decode()"), ["H5", "L1"]);
    assert_eq!(cited("async fn a4_a7_answer() {"), ["A4", "A7"]);
    for none in [
        "U+202E",
        "F1 opens help",
        "sha256 of x86_64",
        "0xA1 #A3F2C1",
        "<h2>",
        "fn decode_h2_frame()",
        "URL.parse",
    ] {
        assert!(cited(none).is_empty(), "{none:?} cites {:?}", cited(none));
    }
}

/// Every named file, and every `file::test` whose test function exists nowhere, as one list.
#[test]
fn every_rule_says_what_keeps_it_and_what_proves_it_and_both_exist() {
    let root = root();
    let book = read(&root.join(BOOK));
    let entries = entries(&book);
    assert!(entries.len() > 60, "the book lost its rules");

    let mut sources = Vec::new();
    files_under(&root.join("src"), "rs", &mut sources);
    files_under(&root.join("crates"), "rs", &mut sources);
    files_under(&root.join("tests"), "rs", &mut sources);
    let function = Regex::new(r"\bfn ([a-z0-9_]+)").expect("regex");
    let functions: BTreeSet<String> = sources
        .iter()
        .flat_map(|path| {
            function
                .captures_iter(&read(path))
                .map(|c| c[1].to_string())
                .collect::<Vec<_>>()
        })
        .collect();

    let quoted = Regex::new(r"`([^`]+)`").expect("regex");
    let mut problems = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for entry in &entries {
        let at = format!("{BOOK}:{} {}", entry.line, entry.id);
        if let Some(first) = seen.insert(entry.id.clone(), entry.line) {
            problems.push(format!("{at}: also defined at line {first}"));
        }
        for label in ["Kept by", "Proved by"] {
            let marker = format!("- **{label}:** ");
            let lines: Vec<&String> = entry
                .body
                .iter()
                .filter(|line| line.starts_with(&marker))
                .collect();
            let [line] = lines.as_slice() else {
                problems.push(format!("{at}: needs exactly one line `{marker}…`"));
                continue;
            };
            let named: Vec<&str> = quoted
                .captures_iter(line)
                .filter_map(|c| c.get(1).map(|m| m.as_str()))
                .collect();
            if named.is_empty() {
                problems.push(format!("{at}: {label} names nothing"));
            }
            for name in named {
                let (path, test) = match name.split_once("::") {
                    Some((path, test)) => (path, Some(test)),
                    None => (name, None),
                };
                if label == "Proved by" && test.is_none() {
                    problems.push(format!("{at}: {name} is not `file::test_function`"));
                }
                if !root.join(path).is_file() {
                    problems.push(format!("{at}: {label} {path}: no such file"));
                }
                if let Some(test) = test
                    && !functions.contains(test)
                {
                    problems.push(format!(
                        "{at}: {label} {test}: no such function under tests/ or src/"
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "fix these in {BOOK}:\n{}",
        problems.join("\n")
    );
}

/// A pointer into the book from text a user reads, `docs/SPEC.md § The socket`, names one of its
/// families' sections.
#[test]
fn every_pointer_into_the_book_names_one_of_its_sections() {
    let root = root();
    let book = read(&root.join(BOOK));
    let sections: BTreeSet<String> = book
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .map(|title| match title.rsplit_once(" (") {
            Some((words, _letter)) => words.to_string(),
            None => title.to_string(),
        })
        .collect();
    let pointer = Regex::new(r"SPEC\.md §\s*(.*)").expect("regex");
    // `§ Limits filled`: the section is the title the words start with, up to a word's end.
    let names_a_section = |words: &str| {
        sections.iter().any(|title| {
            words
                .strip_prefix(title.as_str())
                .is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_alphanumeric()))
        })
    };
    let mut files = Vec::new();
    files_under(&root.join("src"), "rs", &mut files);
    files_under(&root.join("crates"), "rs", &mut files);
    files_under(&root.join("docs"), "md", &mut files);
    files.push(root.join("README.md"));
    let mut wrong = Vec::new();
    let mut pointers = 0;
    for path in files {
        for (index, line) in read(&path).lines().enumerate() {
            for caps in pointer.captures_iter(line) {
                pointers += 1;
                if !names_a_section(&caps[1]) {
                    wrong.push(format!("{}:{}: § {}", relative(&path), index + 1, &caps[1]));
                }
            }
        }
    }
    assert!(pointers > 0, "nothing points into the book any more");
    assert!(
        wrong.is_empty(),
        "these point at no section of {BOOK} (its sections: {sections:?}):\n{}",
        wrong.join("\n")
    );
}

/// The subcommands a `--help` lists under "Commands:", `help` left out.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

fn help_of(command: &[String]) -> String {
    let output = Command::new(BIN)
        .args(command)
        .arg("--help")
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{command:?} --help failed");
    String::from_utf8(output.stdout).expect("help is UTF-8")
}

#[test]
fn help_names_the_books_sections_not_bare_rule_ids() {
    let citations = Citations::new(&families(&book_ids()));
    let spec_word = Regex::new(r"\bSPEC [A-Z]").expect("regex");
    let mut bare = Vec::new();
    let mut pending = vec![Vec::<String>::new()];
    let mut read_helps = 0;
    while let Some(command) = pending.pop() {
        let help = help_of(&command);
        read_helps += 1;
        for line in help.lines() {
            let ids = citations.in_line(line);
            // An id beside the command that prints it is a pointer a user can follow.
            let followable = line.contains("collie-phone rules") || command == ["rules"];
            if (!ids.is_empty() || spec_word.is_match(line)) && !followable {
                bare.push(format!(
                    "collie-phone {} --help: {}",
                    command.join(" "),
                    line.trim()
                ));
            }
        }
        for sub in subcommands(&help) {
            let mut deeper = command.clone();
            deeper.push(sub);
            pending.push(deeper);
        }
    }
    assert!(read_helps > 10, "the subcommands were not found in --help");
    assert!(
        bare.is_empty(),
        "help a user reads should point to a rule the binary prints (`collie-phone rules S1`), \
         not name a bare rule id:\n{}",
        bare.join("\n")
    );
}
