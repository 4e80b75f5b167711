//! The properties the fuzzers check (docs/FUZZING.md), one function per target. They live in
//! collie-testkit so the cargo-fuzz targets in `fuzz/` and the stable regression test
//! `tests/integration/fuzz_corpus.rs` run the very same code: CI does not fuzz, but it does
//! replay every corpus file through these. Each panics on a broken property; that is how
//! libFuzzer sees it.

use std::sync::OnceLock;

/// The DSH decoders' target: every route's reply and the event stream (`engine::dsh::fuzz`).
pub use crate::engine::dsh::fuzz::decoders as dsh;

use ratatui::text::Line;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::look::theme::Theme;
use crate::look::wrap;
use crate::model::editor::{Editor, UNDO_BYTES};
use crate::wire::shown;
use crate::wire::{self, Sanitize};

/// The routes whose replies `wire::decode` reads; the first byte of an input picks one.
pub(crate) const ROUTES: [&str; 7] = [
    "hello",
    "snapshot",
    "events",
    "conversations",
    "items",
    "post",
    "error",
];

/// `wire::decode` of any bytes as any route's reply never panics, and what a writer would
/// show of the decoded value (`out::json`) holds no control or invisible character.
pub fn decode(data: &[u8]) {
    let Some((&route, body)) = data.split_first() else {
        return;
    };
    match usize::from(route) % ROUTES.len() {
        0 => decode_one::<wire::Hello>(body),
        1 => decode_one::<wire::Snapshot>(body),
        2 => decode_one::<wire::EventsReply>(body),
        3 => decode_one::<wire::ConversationsPage>(body),
        4 => decode_one::<wire::ItemsPage>(body),
        5 => decode_one::<wire::PostReply>(body),
        _ => decode_one::<wire::ErrorBody>(body),
    }
}

fn decode_one<T: DeserializeOwned + Sanitize + Serialize>(body: &[u8]) {
    let Ok(decoded) = wire::decode::<T>(body) else {
        return;
    };
    for change in &decoded.report.changes {
        // The report's paths are built from the agent's keys and land in logs.
        assert_clean(&crate::out::text(&change.to_string()));
    }
    if let Ok(value) = serde_json::to_value(&decoded.value) {
        assert_json_clean(&crate::out::json(value));
    }
}

/// The cleaning path: its output holds no control or invisible character, cleaning twice
/// changes nothing, a line has no line break, and the inspector's placeholders are clean too.
pub fn clean(data: &[u8]) {
    let s = String::from_utf8_lossy(data);
    let text = crate::out::text(&s);
    assert_clean(&text);
    assert_eq!(crate::out::text(&text), text, "cleaning twice changed it");
    let line = crate::out::line(&s);
    assert_clean(&line);
    assert!(!line.contains(['\n', '\t']), "a line kept a line break");
    assert_eq!(crate::out::line(&line), line);
    let visible = crate::out::visible(&s);
    assert_clean(&visible);
    assert_eq!(
        crate::out::visible(&visible),
        visible,
        "placeholders changed"
    );
    // Removing the placeholders' stand-ins gives back what plain cleaning gives.
    if !crate::out::secrets::holds_secret(&s) {
        assert_eq!(shown::text(&s), text);
    }
    if let Ok(value) = serde_json::from_slice::<Value>(data) {
        let once = crate::out::json(value);
        assert_json_clean(&once);
        assert_eq!(
            crate::out::json(once.clone()),
            once,
            "cleaning JSON twice changed it"
        );
    }
}

/// The markdown renderer: never panics, no line wider than the width it was given, and clean
/// input stays clean.
pub fn markdown(data: &[u8]) {
    let Some((&width, body)) = data.split_first() else {
        return;
    };
    let width = u16::from(width % 160);
    let Some(theme) = theme() else {
        return;
    };
    let raw = String::from_utf8_lossy(body);
    // What reaches the renderer was decoded, so cleaned.
    let text = shown::text(&raw);
    let lines = crate::look::markdown::render(&text, width, theme);
    for line in &lines {
        assert_line_fits(line, usize::from(width));
    }
    let code = crate::look::markdown::code_block(&text, Some("rust"), width, theme);
    for line in &code {
        assert_line_fits(line, usize::from(width));
    }
}

/// Wrapping by display width: no wrapped line is wider than the width (but a lone grapheme
/// wider than it, which cannot be split), truncating fits, padding is exact.
pub fn wrap(data: &[u8]) {
    let Some((&width, body)) = data.split_first() else {
        return;
    };
    let width = usize::from(width % 100);
    let raw = String::from_utf8_lossy(body);
    let text = shown::text(&raw);
    for line in wrap::wrap(&text, width) {
        let w = wrap::width(&line);
        assert!(
            w <= width || single_grapheme(&line),
            "wrapped line {line:?} is {w} wide, more than {width}"
        );
        assert!(!line.contains('\n'));
    }
    let cut = wrap::truncate(&text, width);
    assert!(wrap::width(&cut) <= width, "{cut:?} over {width}");
    let first_line = text.lines().next().unwrap_or("");
    let padded = wrap::pad_to(first_line, width);
    assert!(wrap::width(&padded) <= width, "{padded:?} over {width}");
    let spans = vec![
        ratatui::text::Span::raw(text.to_string()),
        ratatui::text::Span::raw(first_line.to_string()),
    ];
    for line in wrap::wrap_spans(&spans, width) {
        let fitted = wrap::fit_line(line, width);
        assert_line_fits(&fitted, width);
    }
}

/// The editor's operations in any order on any text: never panics, its text is its lines
/// joined, the cursor stays inside the text, and it holds no control character but `\n`.
pub fn editor(data: &[u8]) {
    let mut editor = Editor::new();
    let mut bytes = data.iter();
    while let Some(&op) = bytes.next() {
        match op % 24 {
            0..=5 => {
                // Type a char built from the next bytes: any scalar, controls included.
                let a = u32::from(*bytes.next().unwrap_or(&0));
                let b = u32::from(*bytes.next().unwrap_or(&0));
                let c = u32::from(*bytes.next().unwrap_or(&0));
                let scalar = (a << 12 | b << 6 | c) % 0x11_0000;
                if let Some(ch) = char::from_u32(scalar) {
                    editor.insert_char(ch);
                }
            }
            6 => {
                let len = usize::from(*bytes.next().unwrap_or(&0) % 16);
                let taken: Vec<u8> = bytes.by_ref().take(len).copied().collect();
                editor.insert_str(&String::from_utf8_lossy(&taken));
            }
            7 => editor.newline(),
            8 => editor.backspace(),
            9 => editor.delete(),
            10 => editor.left(),
            11 => editor.right(),
            12 => editor.up(),
            13 => editor.down(),
            14 => editor.home(),
            15 => editor.end(),
            16 => editor.word_left(),
            17 => editor.word_right(),
            18 => editor.kill_to_line_start(),
            19 => editor.kill_to_line_end(),
            20 => editor.kill_word_back(),
            21 => editor.kill_word_forward(),
            22 => editor.yank(),
            _ => {
                if op & 0x80 == 0 {
                    editor.undo();
                } else {
                    editor.redo();
                }
            }
        }
        let text = editor.text();
        if text.len() > MAX_EDITOR_BYTES {
            // Kill and yank can double the text every few operations; past this the run
            // measures memory, not the editor.
            break;
        }
        let lines = editor.lines();
        assert_eq!(lines.join("\n"), text);
        assert_eq!(editor.byte_len(), text.len());
        let (row, _) = editor.cursor();
        assert!(
            row < lines.len(),
            "cursor row {row} past {} lines",
            lines.len()
        );
        // Splitting at the cursor panics unless it sits on a character boundary.
        let (before, after) = editor.split_at_cursor();
        assert_eq!(format!("{before}{after}"), lines[row]);
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "the editor holds a control character: {text:?}"
        );
    }
    let taken = editor.take_text();
    assert!(editor.is_empty());
    // Taking the text is an undo step, unless the step alone is over the undo's byte bound,
    // which drops it by design (kills and yanks can double a draft: found by this fuzzer).
    assert!(editor.undo() || taken.is_empty() || taken.len() > UNDO_BYTES);
}

/// Where an editor run stops growing: four times the undo's bound, so that bound is crossed.
const MAX_EDITOR_BYTES: usize = 4 * UNDO_BYTES;

fn theme() -> Option<&'static Theme> {
    static THEME: OnceLock<Option<Theme>> = OnceLock::new();
    THEME.get_or_init(|| Theme::builtin("dark")).as_ref()
}

fn single_grapheme(s: &str) -> bool {
    use unicode_segmentation::UnicodeSegmentation;
    s.graphemes(true).count() <= 1
}

fn assert_line_fits(line: &Line<'_>, width: usize) {
    let mut w = 0;
    for span in &line.spans {
        assert_clean(&span.content);
        w += wrap::width(&span.content);
    }
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    assert!(
        w <= width || single_grapheme(&text),
        "line {text:?} is {w} wide, more than {width}"
    );
}

fn assert_clean(s: &str) {
    assert!(shown::is_clean(s), "not clean: {s:?}");
}

fn assert_json_clean(value: &Value) {
    match value {
        Value::String(s) => assert_clean(s),
        Value::Array(items) => items.iter().for_each(assert_json_clean),
        Value::Object(map) => {
            for (key, item) in map {
                assert_clean(key);
                assert!(!key.contains(['\n', '\t']), "a key kept a line break");
                assert_json_clean(item);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}
