//! JSON laid out with two-space indents for reading, keys in the order they came and numbers
//! as written: `serde_json::Value` would sort the keys and rewrite numbers, and the wire
//! inspector must show what was on the wire.

use serde::de::IgnoredAny;

const INDENT: &str = "  ";

/// The text laid out, or None when it is not one whole JSON value.
pub(crate) fn pretty(text: &str) -> Option<String> {
    serde_json::from_str::<IgnoredAny>(text).ok()?;
    Some(reindent(text))
}

/// Lays out text already known to be valid JSON.
fn reindent(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                while chars.peek().is_some_and(|n| n.is_whitespace()) {
                    chars.next();
                }
                out.push(c);
                // An empty object or array stays on its line.
                if let Some(close @ ('}' | ']')) = chars.peek().copied() {
                    chars.next();
                    out.push(close);
                } else {
                    depth += 1;
                    new_line(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                new_line(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                new_line(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

fn new_line(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str(INDENT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_key_order_numbers_and_strings() {
        let text = r#"{"z":1.50,"a":[1, {"b":"x, y: {z}\" ]"}],"e":{},"f":[ ]}"#;
        let expected = "{\n  \"z\": 1.50,\n  \"a\": [\n    1,\n    {\n      \"b\": \"x, y: {z}\\\" ]\"\n    }\n  ],\n  \"e\": {},\n  \"f\": []\n}";
        assert_eq!(pretty(text).as_deref(), Some(expected));
    }

    #[test]
    fn text_that_is_not_json_is_left_alone() {
        assert_eq!(pretty("not json"), None);
        assert_eq!(pretty(r#"{"cut": "at 8 Ki"#), None);
        assert_eq!(pretty(""), None);
        assert_eq!(pretty("42").as_deref(), Some("42"));
    }
}
