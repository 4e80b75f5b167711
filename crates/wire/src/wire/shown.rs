//! What may be shown of an untrusted string (SPEC L1, docs/WIRE.md §7.2), as pure functions.
//!
//! Decoding cleans what it keeps, but text reaches people by other roads too: a reply body
//! quoted by `check`, an unknown cap name, a header, an error's words. These functions are the
//! cleaning every writer ends with (through `crate::out`, which adds the token scrub), so no
//! road is left raw. They remove exactly what [`is_invisible`] removes, so a string decoding
//! kept shows unchanged.
//!
//! [`visible`] is the inspector's form: a person debugging an agent must see that a character
//! was sent, so a removed one becomes a placeholder such as `⟨U+202E⟩` instead of vanishing.

use std::borrow::Cow;

use serde_json::Value;

use super::sanitize::{Lines, is_invisible};

/// `s` without control or invisible characters; line breaks and tabs stay (a table, a body).
pub fn text(s: &str) -> Cow<'_, str> {
    strip(s, Lines::Multi)
}

/// `s` as one line: also without line breaks and tabs (a name, a title, a table cell).
pub fn line(s: &str) -> Cow<'_, str> {
    strip(s, Lines::Single)
}

fn strip(s: &str, lines: Lines) -> Cow<'_, str> {
    if (!needs_look(s) && (lines == Lines::Multi || !s.contains(['\n', '\t'])))
        || !s.chars().any(|c| is_invisible(c, lines))
    {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.chars().filter(|&c| !is_invisible(c, lines)).collect())
}

/// `s` with every character [`text`] would remove written as `⟨U+XXXX⟩`, so nothing that was
/// sent is hidden and nothing that steers the terminal is drawn. Line breaks and tabs stay.
pub fn visible(s: &str) -> Cow<'_, str> {
    mark(s, Lines::Multi)
}

/// [`visible`] for one line (a column of the inspector): line breaks and tabs are named too.
pub fn visible_line(s: &str) -> Cow<'_, str> {
    mark(s, Lines::Single)
}

fn mark(s: &str, lines: Lines) -> Cow<'_, str> {
    if !needs_look(s) && (lines == Lines::Multi || !s.contains(['\n', '\t'])) {
        return Cow::Borrowed(s);
    }
    if !s.chars().any(|c| is_invisible(c, lines)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if is_invisible(c, lines) {
            out.push_str(&placeholder(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The visible stand-in for a removed character: `⟨U+001B⟩`.
pub(crate) fn placeholder(c: char) -> String {
    format!("⟨U+{:04X}⟩", c as u32)
}

/// Cleans every string of a JSON value in place: keys as one line, values as text. JSON escapes
/// are not enough, since `jq -r` turns `\u001b` back into ESC.
pub fn json(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Cow::Owned(clean) = text(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(json),
        Value::Object(map) => {
            let dirty = map.keys().any(|k| matches!(line(k), Cow::Owned(_)));
            if dirty {
                let old = std::mem::take(map);
                for (key, mut item) in old {
                    json(&mut item);
                    map.insert(line(&key).into_owned(), item);
                }
            } else {
                map.values_mut().for_each(json);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Plain printable ASCII (and `\n`, `\t`) needs no look at its characters: the common case
/// costs one scan of the bytes.
fn needs_look(s: &str) -> bool {
    s.bytes()
        .any(|b| (b < 0x20 && b != b'\n' && b != b'\t') || b >= 0x7f)
}

/// True when `s` holds nothing [`text`] would remove: what the tests and fuzzers assert.
pub fn is_clean(s: &str) -> bool {
    !s.chars().any(|c| is_invisible(c, Lines::Multi))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "a\u{1b}]0;PWNED\u{7}b\u{9b}31m\u{9d}c\u{202e}d\u{200b}e\u{2028}f\u{e0041}\u{34f}\u{fffa}\u{fdd0}\u{10ffff}\r\n\tg";

    #[test]
    fn text_removes_what_decoding_removes_and_keeps_lines() {
        assert_eq!(text(HOSTILE), "a]0;PWNEDb31mcdef\n\tg");
        assert_eq!(line(HOSTILE), "a]0;PWNEDb31mcdefg");
        assert!(is_clean(&text(HOSTILE)));
    }

    #[test]
    fn clean_text_is_borrowed_and_unchanged() {
        for s in [
            "plain",
            "工作区 👩\u{200d}💻 ✔\u{fe0f}",
            "two\nlines\tand tab",
        ] {
            assert!(matches!(text(s), Cow::Borrowed(_)), "{s:?}");
            assert!(matches!(visible(s), Cow::Borrowed(_)), "{s:?}");
        }
    }

    #[test]
    fn visible_names_each_removed_character() {
        assert_eq!(
            visible("x\u{202e}y\u{1b}[2J\u{e007f}"),
            "x⟨U+202E⟩y⟨U+001B⟩[2J⟨U+E007F⟩"
        );
        assert_eq!(visible_line("a\nb"), "a⟨U+000A⟩b");
        let once = visible(HOSTILE).into_owned();
        assert!(is_clean(&once));
        assert_eq!(visible(&once), once);
    }

    #[test]
    fn json_cleans_keys_and_values_at_every_depth() {
        let mut value = serde_json::json!({
            "caps": ["ok", "evil\u{1b}]0;x\u{7}"],
            "k\u{202e}ey": {"deep": "v\u{9b}al\nue"},
            "n": 3
        });
        json(&mut value);
        assert_eq!(
            value,
            serde_json::json!({"caps": ["ok", "evil]0;x"], "key": {"deep": "val\nue"}, "n": 3})
        );
    }
}
