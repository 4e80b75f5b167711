//! Lenient, local decoding of a bridge's JSON (docs/DSH.md, "How the phone reads a bridge"):
//! one field this program cannot read never makes a whole reply unreadable. The reply is parsed
//! strictly; when that fails, the smallest part that failed (the field, or the list entry,
//! serde names by its path) is taken out, noted as [`Unread`] with why and its raw value, and
//! the rest is parsed again. A part whose own fields are required goes the same way one level
//! up, so only what cannot be read is lost; a reply is refused whole only when its top level
//! cannot be read at all.
//!
//! Written by hand on `serde_path_to_error` (it names the failing path); no crate does the
//! pruning and retrying.

use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::Segment;

use crate::wire::sanitize::{Lines, Report, clean};

/// Most parts taken out of one reply before it is refused whole: a reply that wrong is not
/// the shape this program reads, and each retry parses the reply again.
const MAX_UNREAD: usize = 64;
/// Bytes of a part's raw JSON kept for the log (cleaned, SPEC L1).
const RAW_KEPT: usize = 512;

/// A part of a reply or an event that could not be read and was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// Where it was, e.g. `value.modelCatalog.groups[0].models[1]`.
    pub path: String,
    /// What serde said, e.g. `invalid type: map, expected a string`.
    pub why: String,
    /// Its compact JSON, cleaned and cut, for the log.
    pub raw: String,
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.path, self.why)
    }
}

/// Reads `tree` as a `T`, leaving out what cannot be read; `base` prefixes the paths noted.
/// Fails only when the top level itself cannot be read.
pub fn read_lenient<T: DeserializeOwned>(
    mut tree: Value,
    base: &str,
    unread: &mut Vec<Unread>,
) -> Result<T, serde_json::Error> {
    let mut taken = 0;
    loop {
        let error = match serde_path_to_error::deserialize::<_, T>(&tree) {
            Ok(value) => return Ok(value),
            Err(error) => error,
        };
        let segments: Vec<Segment> = error.path().iter().cloned().collect();
        if taken >= MAX_UNREAD {
            return Err(error.into_inner());
        }
        let Some(raw) = take_out(&mut tree, &segments) else {
            return Err(error.into_inner());
        };
        taken += 1;
        unread.push(Unread {
            path: join(base, &segments),
            why: short_why(&error.inner().to_string()),
            raw: raw_text(&raw),
        });
    }
}

/// Removes the value at `segments` (its last step must be a key or an index) and returns it.
fn take_out(tree: &mut Value, segments: &[Segment]) -> Option<Value> {
    let (last, parents) = segments.split_last()?;
    let mut here = tree;
    for segment in parents {
        here = match segment {
            Segment::Map { key } => here.get_mut(key.as_str())?,
            Segment::Seq { index } => here.get_mut(*index)?,
            Segment::Enum { .. } | Segment::Unknown => return None,
        };
    }
    match last {
        Segment::Map { key } => here.as_object_mut()?.remove(key.as_str()),
        Segment::Seq { index } => {
            let list = here.as_array_mut()?;
            (*index < list.len()).then(|| list.remove(*index))
        }
        Segment::Enum { .. } | Segment::Unknown => None,
    }
}

fn join(base: &str, segments: &[Segment]) -> String {
    let mut out = base.to_string();
    for segment in segments {
        match segment {
            Segment::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Enum { variant } => out.push_str(&format!("<{variant}>")),
            Segment::Unknown => out.push_str(".?"),
        }
    }
    let mut report = Report::default();
    clean(
        &mut out,
        RAW_KEPT,
        Lines::Single,
        "unread.path",
        &mut report,
    );
    out
}

/// serde's words without its " at line 1 column 7" tail, which means nothing on a tree.
fn short_why(why: &str) -> String {
    let cut = why.find(" at line ").map_or(why, |at| &why[..at]);
    let mut text = cut.to_string();
    let mut report = Report::default();
    clean(
        &mut text,
        RAW_KEPT,
        Lines::Single,
        "unread.why",
        &mut report,
    );
    text
}

fn raw_text(raw: &Value) -> String {
    let mut text = serde_json::to_string(raw).unwrap_or_default();
    let mut report = Report::default();
    clean(
        &mut text,
        RAW_KEPT,
        Lines::Single,
        "unread.raw",
        &mut report,
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Inner {
        id: String,
        #[serde(default)]
        count: u32,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Outer {
        name: String,
        #[serde(default)]
        items: Vec<Inner>,
        #[serde(default)]
        label: Option<String>,
    }

    #[test]
    fn a_mistyped_optional_field_is_left_out_and_the_rest_kept() {
        let tree = serde_json::json!({"name": "n", "label": {"x": 1},
            "items": [{"id": "a", "count": 2}]});
        let mut unread = Vec::new();
        let outer: Outer = read_lenient(tree, "value", &mut unread).expect("read");
        assert_eq!(outer.label, None);
        assert_eq!(outer.items.len(), 1);
        assert_eq!(unread.len(), 1);
        assert_eq!(unread[0].path, "value.label");
        assert!(
            unread[0].why.contains("expected a string"),
            "{}",
            unread[0].why
        );
        assert_eq!(unread[0].raw, r#"{"x":1}"#);
    }

    #[test]
    fn an_entry_whose_required_field_is_wrong_is_dropped_alone() {
        let tree = serde_json::json!({"name": "n",
            "items": [{"id": "a"}, {"id": 7, "count": 1}, {"id": "c", "count": "many"}]});
        let mut unread = Vec::new();
        let outer: Outer = read_lenient(tree, "", &mut unread).expect("read");
        let ids: Vec<&str> = outer.items.iter().map(|i| i.id.as_str()).collect();
        // `count` of c is left out (it has a default); b has no usable id, so b goes.
        assert_eq!(ids, ["a", "c"]);
        let paths: Vec<&str> = unread.iter().map(|u| u.path.as_str()).collect();
        assert!(paths.contains(&"items[1].id"), "{paths:?}");
        assert!(paths.contains(&"items[1]"), "{paths:?}");
        assert!(paths.iter().any(|p| p.ends_with(".count")), "{paths:?}");
    }

    #[test]
    fn the_top_level_that_cannot_be_read_is_refused() {
        let mut unread = Vec::new();
        let result: Result<Outer, _> =
            read_lenient(serde_json::json!({"name": 3}), "", &mut unread);
        assert!(result.is_err());
        let result: Result<Outer, _> = read_lenient(serde_json::json!([1]), "", &mut unread);
        assert!(result.is_err());
    }

    #[test]
    fn raw_values_are_cleaned_and_cut() {
        let tree =
            serde_json::json!({"name": "n", "label": ["\u{1b}]0;PWNED\u{7}", "x".repeat(2000)]});
        let mut unread = Vec::new();
        let _: Outer = read_lenient(tree, "", &mut unread).expect("read");
        assert!(!unread[0].raw.contains('\u{1b}'));
        assert!(unread[0].raw.len() <= RAW_KEPT);
    }
}
