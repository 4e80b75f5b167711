//! The names a person reads for things the wire knows by id (a turn, a belt button), in one
//! home: ids stay in the inspector, `--json` and the logs; sentences use these.

use crate::wire::BeltButton;

/// A turn as a person says it: "turn 3" for an id that ends in its number (`p-3.turn-3`,
/// `turn-3`, `7`), "this turn" for an id that carries none, whose letters mean nothing to a
/// person (WIRE.md keeps turn ids opaque).
pub(crate) fn turn_name(id: &str) -> String {
    let digits_at = id
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_digit())
        .last()
        .map(|(i, _)| i);
    // A count stands alone or after a separator: the digits that end a hex id are not one.
    let counted = digits_at.filter(|&i| {
        id[..i]
            .chars()
            .last()
            .is_none_or(|c| matches!(c, '-' | '.' | '_' | ':' | '/' | ' '))
    });
    match counted.map(|i| &id[i..]) {
        Some(digits) if digits.len() <= 6 => {
            let n = digits.trim_start_matches('0');
            format!("turn {}", if n.is_empty() { "0" } else { n })
        }
        _ => "this turn".to_string(),
    }
}

/// A belt button by its label, as the pane draws it, or "a button" once it is gone from the
/// belt (an agent may change its belt at any snapshot).
pub(crate) fn button_name(belt: &[BeltButton], id: &str) -> String {
    belt.iter()
        .find(|b| b.id == id)
        .map_or_else(|| "a button".to_string(), |b| format!("“{}”", b.label))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_is_named_by_its_number_or_not_at_all() {
        assert_eq!(turn_name("p-3.turn-2"), "turn 2");
        assert_eq!(turn_name("p-4099.turn-3"), "turn 3");
        assert_eq!(turn_name("turn-17"), "turn 17");
        assert_eq!(turn_name("5"), "turn 5");
        assert_eq!(turn_name("t-0"), "turn 0");
        assert_eq!(turn_name("a1b2c3d4e5f60718"), "this turn");
        assert_eq!(turn_name("turn-12345678"), "this turn");
        assert_eq!(turn_name("turn-abc"), "this turn");
        assert_eq!(turn_name(""), "this turn");
    }

    #[test]
    fn a_button_is_named_by_its_label_while_the_belt_has_it() {
        let belt = vec![BeltButton {
            id: "cmd-test".into(),
            label: "Run tests".into(),
        }];
        assert_eq!(button_name(&belt, "cmd-test"), "“Run tests”");
        assert_eq!(button_name(&belt, "cmd-gone"), "a button");
    }
}
