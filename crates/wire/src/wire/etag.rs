//! The snapshot ETag (SPEC H4, T5).

/// `"<epoch>-<rev>"`, quotes included (SPEC H4).
pub fn etag(epoch: &str, rev: u64) -> String {
    format!("\"{epoch}-{rev}\"")
}

/// Compares two tags as SPEC T5 says: a proxy may weaken a tag to `W/"…"`; compare without it.
pub(crate) fn etag_matches(a: &str, b: &str) -> bool {
    strip_weak(a) == strip_weak(b)
}

/// True when an `If-None-Match` header value names `tag` (a list or `*` too, as HTTP allows).
pub fn if_none_match_hits(header: &str, tag: &str) -> bool {
    header.trim() == "*"
        || header
            .split(',')
            .any(|candidate| etag_matches(candidate, tag))
}

/// Reads the epoch and rev back out of a tag, weak or strong.
pub fn parse_etag(tag: &str) -> Option<(&str, u64)> {
    let inner = strip_weak(tag).strip_prefix('"')?.strip_suffix('"')?;
    let (epoch, rev) = inner.rsplit_once('-')?;
    Some((epoch, rev.parse().ok()?))
}

fn strip_weak(tag: &str) -> &str {
    let tag = tag.trim();
    tag.strip_prefix("W/").unwrap_or(tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t5_weak_tag_compares_equal() {
        let tag = etag("e1", 7);
        assert_eq!(tag, "\"e1-7\"");
        assert!(etag_matches("W/\"e1-7\"", &tag));
        assert!(if_none_match_hits("\"x-1\", W/\"e1-7\"", &tag));
        assert!(!if_none_match_hits("\"e1-8\"", &tag));
    }

    #[test]
    fn h4_parse_back() {
        assert_eq!(parse_etag("W/\"abc-12\""), Some(("abc", 12)));
    }
}
