//! Ids and history cursors (SPEC L).

use super::limits::{MAX_CURSOR_BYTES, MAX_ID_BYTES};

/// Why a string is not a usable id (SPEC L: 1–128 bytes, no control char, no whitespace,
/// none of `/ ? #`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("an id must not be empty")]
    Empty,
    #[error("an id must be at most 128 bytes")]
    TooLong,
    #[error("an id must not hold control characters, whitespace, '/', '?' or '#'")]
    BadChar,
}

/// Checks an id against SPEC L.
pub fn check_id(id: &str) -> Result<(), IdError> {
    if id.is_empty() {
        return Err(IdError::Empty);
    }
    if id.len() > MAX_ID_BYTES {
        return Err(IdError::TooLong);
    }
    if id
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || matches!(c, '/' | '?' | '#'))
    {
        return Err(IdError::BadChar);
    }
    Ok(())
}

/// Checks a history cursor: 1–512 bytes of printable ASCII, no space (SPEC L).
pub fn check_cursor(cursor: &str) -> bool {
    !cursor.is_empty()
        && cursor.len() <= MAX_CURSOR_BYTES
        && cursor.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l_id_rules() {
        assert!(check_id("p-1").is_ok());
        assert!(check_id("工作").is_ok());
        assert_eq!(check_id(""), Err(IdError::Empty));
        assert_eq!(check_id(&"x".repeat(129)), Err(IdError::TooLong));
        assert!(check_id(&"x".repeat(128)).is_ok());
        for bad in ["a b", "a/b", "a?b", "a#b", "a\u{1b}b", "a\u{a0}b"] {
            assert_eq!(check_id(bad), Err(IdError::BadChar), "{bad:?}");
        }
    }

    #[test]
    fn l_cursor_rules() {
        assert!(check_cursor("c:42"));
        assert!(!check_cursor(""));
        assert!(!check_cursor("a b"));
        assert!(!check_cursor("é"));
        assert!(!check_cursor(&"c".repeat(513)));
    }
}
