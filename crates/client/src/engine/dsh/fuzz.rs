//! The properties the DSH fuzz target checks (docs/FUZZING.md), in the library so `fuzz/` and
//! the stable replay of its corpus (`tests/integration/fuzz_corpus.rs`) run the same code. Each
//! panics when a property breaks; that is how libFuzzer sees it.
//!
//! The first byte of an input picks what reads the rest: one of the routes' replies through
//! [`wire::decode`], or the event stream through [`SseReader`] (cut into chunks the second byte
//! sizes) and on into a pane's chat ([`TaskPane::take`]).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::pane::TaskPane;
use super::sse::{Frame, read_frame};
use crate::dsh_wire::{self as wire, Envelope, Sanitize, SseItem, SseReader};
use crate::wire::shown;

/// Bytes of one SSE frame the fuzzed reader keeps (the phone's reader keeps more; smaller finds
/// the dropping path sooner).
const FRAME_CAP: usize = 4096;

/// Reads any bytes as a bridge would send them; see the module's words.
pub fn decoders(data: &[u8]) {
    let Some((&which, body)) = data.split_first() else {
        return;
    };
    match which % 15 {
        0 => reply::<wire::Health>(body),
        1 => reply::<wire::Capabilities>(body),
        2 => reply::<wire::WorkspaceList>(body),
        3 => reply::<wire::SessionList>(body),
        4 => reply::<wire::TranscriptPage>(body),
        5 => reply::<wire::TaskGetValue>(body),
        6 => reply::<wire::TaskList>(body),
        7 => reply::<wire::CreateTaskValue>(body),
        8 => reply::<wire::AppendValue>(body),
        9 => reply::<wire::WaitValue>(body),
        10 => reply::<wire::CancelValue>(body),
        11 => reply::<wire::CloseValue>(body),
        12 => reply::<wire::WorkspaceCreateValue>(body),
        _ => stream(body),
    }
}

/// A reply: never a panic; what decoding kept is clean; what it left out is named cleanly; and
/// a reply serde reads strictly loses nothing.
fn reply<T: DeserializeOwned + Sanitize + Serialize>(body: &[u8]) {
    let Ok(decoded) = wire::decode::<T>(body) else {
        return;
    };
    if let Ok(value) = serde_json::to_value(&decoded.value) {
        json_clean(&value);
    }
    for part in &decoded.unread {
        assert!(shown::is_clean(&part.path), "{:?}", part.path);
        assert!(shown::is_clean(&part.why), "{:?}", part.why);
        assert!(shown::is_clean(&part.raw), "{:?}", part.raw);
    }
    if serde_json::from_slice::<Envelope<T>>(body).is_ok() {
        assert!(
            decoded.unread.is_empty(),
            "read strictly, yet parts left out: {:?}",
            decoded.unread
        );
    }
}

/// The event stream: the items do not depend on how the bytes were cut, and every event a
/// frame holds reaches a pane's chat clean.
fn stream(body: &[u8]) {
    let Some((&chunk, bytes)) = body.split_first() else {
        return;
    };
    let chunk = usize::from(chunk).max(1);
    let mut whole = SseReader::new(FRAME_CAP);
    let at_once = whole.feed(bytes);
    let mut cut = SseReader::new(FRAME_CAP);
    let mut in_chunks = Vec::new();
    for piece in bytes.chunks(chunk) {
        in_chunks.extend(cut.feed(piece));
    }
    assert_eq!(
        at_once, in_chunks,
        "the items depend on where the bytes were cut"
    );
    let task: wire::TaskView = match serde_json::from_value(serde_json::json!({
        "taskId": "t", "workspaceId": "w", "sessionId": "s", "status": "attention"
    })) {
        Ok(task) => task,
        Err(_) => return,
    };
    let mut pane = TaskPane::new(&task);
    for item in at_once {
        let SseItem::Frame { data, .. } = item else {
            continue;
        };
        let Frame::Event(event) = read_frame(&data) else {
            continue;
        };
        for shown_event in pane.take(&event) {
            if let Ok(value) = serde_json::to_value(&shown_event) {
                json_clean(&value);
            }
        }
        if let Some(title) = &pane.title {
            assert!(shown::is_clean(title), "{title:?}");
        }
    }
    for ask in pane.asks() {
        assert!(shown::is_clean(&ask.title), "{:?}", ask.title);
    }
}

fn json_clean(value: &Value) {
    match value {
        Value::String(s) => assert!(shown::is_clean(s), "not clean: {s:?}"),
        Value::Array(items) => items.iter().for_each(json_clean),
        Value::Object(map) => {
            for (key, item) in map {
                assert!(shown::is_clean(key), "a key not clean: {key:?}");
                json_clean(item);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}
