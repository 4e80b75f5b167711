//! The links of a chat as drawn: every `https://` URL the person can read on screen, with the
//! cells it covers, so the runner can make exactly those cells an OSC 8 hyperlink after the
//! frame is out. A link is only ever what is shown (no hidden target): the URL is read from the
//! drawn, cleaned text, and a URL wrapped over rows is joined from the rows' own text.

use ratatui::text::Line;

use super::chat_search::line_text;
use super::wrap::width as text_width;
use crate::wire::limits::MAX_LINK_CHARS;

const SCHEME: &str = "https://";

/// A piece of a link on one row: the row (0 = the first row given), its first column, its
/// text as drawn and the whole URL it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LinkPiece {
    pub(crate) row: usize,
    pub(crate) column: usize,
    pub(crate) text: String,
    pub(crate) url: String,
}

/// True for a URL that may go into an OSC 8 sequence or to a browser opener (SPEC L1): `https://`,
/// at most the link limit of SPEC L, and nothing but printable ASCII without spaces, so it cannot
/// end the sequence (ESC, BEL, C1), carry another one, or be read as an option by an opener.
/// Beyond that it is read as a URL, not matched as a pattern: every character is one RFC 3986
/// allows (unreserved, gen-delims, sub-delims, or `%` and two hex digits), it parses (WHATWG
/// URL, the `url` crate), it has a host, and no user part, so `https://bank.example@evil.example/`,
/// which names `bank.example` but opens `evil.example`, is no link.
pub(crate) fn is_safe_url(url: &str) -> bool {
    if !(url.len() > SCHEME.len()
        && url.len() <= MAX_LINK_CHARS
        && url.starts_with(SCHEME)
        && !url[SCHEME.len()..].starts_with('/')
        && url.bytes().all(|b| (0x21..=0x7e).contains(&b))
        && rfc3986_chars(url))
    {
        return false;
    }
    let Ok(parsed) = url::Url::parse(url) else {
        return false;
    };
    parsed.scheme() == "https"
        && parsed.host_str().is_some_and(|host| !host.is_empty())
        && parsed.username().is_empty()
        && parsed.password().is_none()
}

/// True when every character of `url` is one RFC 3986 § 2 allows in a URI: unreserved
/// (letters, digits, `- . _ ~`), reserved (gen-delims `: / ? # [ ] @`, sub-delims
/// `! $ & ' ( ) * + , ; =`), or `%` followed by two hex digits (§ 2.1).
fn rfc3986_chars(url: &str) -> bool {
    let bytes = url.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b == b'%' {
            let hex = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_hexdigit);
            if !(hex(at + 1) && hex(at + 2)) {
                return false;
            }
            at += 3;
            continue;
        }
        let allowed = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b':'
                    | b'/'
                    | b'?'
                    | b'#'
                    | b'['
                    | b']'
                    | b'@'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
            );
        if !allowed {
            return false;
        }
        at += 1;
    }
    true
}

/// The host a safe URL opens, as the opener will be given it (an IDN host in its `xn--` form,
/// the form that cannot pass for another), for the words said when a link is opened.
pub(crate) fn url_host(url: &str) -> Option<String> {
    if !is_safe_url(url) {
        return None;
    }
    url::Url::parse(url).ok()?.host_str().map(str::to_string)
}

/// What the phone says as it hands a link to the browser: the host the link really opens.
pub(crate) fn opening_words(url: &str) -> String {
    match url_host(url) {
        Some(host) => format!("Opening {host} in your browser…"),
        None => "Opening the link…".to_string(),
    }
}

/// A character that can be part of a URL as drawn.
fn url_char(c: char) -> bool {
    c.is_ascii_graphic() && !matches!(c, '<' | '>' | '"' | '`' | '{' | '}' | '|' | '\\' | '^')
}

/// The end of a URL that starts at `text[start..]`: its URL characters, less the punctuation
/// that closes a sentence or a bracket around it ("(https://x)." keeps "https://x").
fn url_end(text: &str, start: usize) -> usize {
    let run = text[start..]
        .char_indices()
        .find(|(_, c)| !url_char(*c))
        .map_or(text.len(), |(i, _)| start + i);
    let mut end = run;
    while end > start {
        let Some(last) = text[start..end].chars().last() else {
            break;
        };
        let opened = text[start..end].matches('(').count();
        let closed = text[start..end].matches(')').count();
        let trailing = matches!(last, '.' | ',' | ';' | ':' | '!' | '?' | '\'' | ']')
            || (last == ')' && closed > opened);
        if !trailing {
            break;
        }
        end -= 1;
    }
    end
}

/// The links in `rows` (a chat's rows as drawn, `width` columns wide). A URL that reaches the
/// end of a full row goes on at the start of the next when that row begins with URL characters.
pub(crate) fn find_links(rows: &[Line<'_>], width: usize) -> Vec<LinkPiece> {
    let texts: Vec<String> = rows.iter().map(line_text).collect();
    let mut pieces = Vec::new();
    let mut row = 0;
    // A row whose first characters were taken as the end of a URL from the row above.
    let mut start_at: Vec<usize> = vec![0; texts.len()];
    while row < texts.len() {
        let text = &texts[row];
        let mut search = start_at[row];
        while let Some(found) = text[search..].find(SCHEME) {
            let start = search + found;
            let end = url_end(text, start);
            let mut url = text[start..end].to_string();
            let mut parts = vec![(row, text_width(&text[..start]), url.clone())];
            // Wrapped: the URL filled its row to the edge, and the next row goes on with it.
            let mut at = row;
            while end == texts[at].len()
                && text_width(&texts[at]) == width
                && at + 1 < texts.len()
                && url_end_from_start(&texts[at + 1]) > 0
            {
                let next = &texts[at + 1];
                let cut = url_end_from_start(next);
                url.push_str(&next[..cut]);
                parts.push((at + 1, 0, next[..cut].to_string()));
                start_at[at + 1] = cut;
                at += 1;
                if cut < next.len() {
                    break;
                }
            }
            if is_safe_url(&url) {
                pieces.extend(parts.into_iter().map(|(row, column, text)| LinkPiece {
                    row,
                    column,
                    text,
                    url: url.clone(),
                }));
            }
            search = end.max(start + SCHEME.len());
            if at != row {
                break;
            }
        }
        row += 1;
    }
    pieces
}

/// How far a row's first characters continue a URL (0 when they do not).
fn url_end_from_start(text: &str) -> usize {
    if text.starts_with(|c: char| url_char(c)) {
        url_end(text, 0)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(texts: &[&str]) -> Vec<Line<'static>> {
        texts.iter().map(|t| Line::raw(t.to_string())).collect()
    }

    #[test]
    fn urls_are_found_with_their_columns_and_sentence_ends_left_out() {
        let found = find_links(
            &rows(&[
                "see https://e.com/a. and (https://e.com/b)",
                "日本 https://x.org",
            ]),
            80,
        );
        let got: Vec<(usize, usize, &str)> = found
            .iter()
            .map(|p| (p.row, p.column, p.url.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (0, 4, "https://e.com/a"),
                (0, 26, "https://e.com/b"),
                (1, 5, "https://x.org")
            ]
        );
        let wiki = find_links(&rows(&["https://w.org/A_(b)"]), 80);
        assert_eq!(wiki[0].url, "https://w.org/A_(b)");
    }

    #[test]
    fn a_url_wrapped_over_full_rows_is_one_link() {
        let found = find_links(
            &rows(&["https://exam", "ple.com/path", "/end", "words"]),
            12,
        );
        let urls: Vec<&str> = found.iter().map(|p| p.url.as_str()).collect();
        assert_eq!(urls, ["https://example.com/path/end"; 3]);
        let texts: Vec<&str> = found.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, ["https://exam", "ple.com/path", "/end"]);
        // A row that is not full ends the URL.
        let short = find_links(&rows(&["https://e.co", "next"]), 20);
        assert_eq!(short.len(), 1);
        assert_eq!(short[0].url, "https://e.co");
    }

    #[test]
    fn only_safe_https_urls_are_links() {
        assert!(is_safe_url("https://example.com/a?b=c;d"));
        assert!(!is_safe_url("http://example.com"));
        assert!(!is_safe_url("https://"));
        assert!(!is_safe_url("https://e.com/\u{1b}]52;c;AAAA\u{7}"));
        assert!(!is_safe_url("https://e.com/\u{9c}"));
        assert!(!is_safe_url("https://e.com/a b"));
        assert!(!is_safe_url(&format!("https://e.com/{}", "a".repeat(3000))));
        assert!(find_links(&rows(&["http://plain.example"]), 80).is_empty());
    }

    /// SPEC L1: a link is parsed, so what it names is what it opens, and only characters a
    /// URL may hold pass.
    #[test]
    fn l1_a_link_is_parsed_not_matched() {
        // A user part names one host and opens another.
        assert!(!is_safe_url("https://bank.example@evil.example/"));
        assert!(!is_safe_url("https://bank.example:pin@evil.example/"));
        assert!(!is_safe_url("https://:pin@evil.example/"));
        // Characters outside RFC 3986, and a `%` that escapes nothing.
        assert!(!is_safe_url("https://e.example/<script>"));
        assert!(!is_safe_url("https://e.example/\"a\""));
        assert!(!is_safe_url("https://e.example/a b"));
        assert!(!is_safe_url("https://e.example/%zz"));
        assert!(!is_safe_url("https://e.example/%4"));
        assert!(!is_safe_url("https://e.example/{a}"));
        // No host, or not a URL at all.
        assert!(!is_safe_url("https://:443/"));
        assert!(!is_safe_url("https://e.example:99999/"));
        // Good ones: a query, a fragment, escapes, an IPv6 host.
        let good = "https://e.example:8443/a/b%20c?q=1&r=%E6%97%A5;s=(x)#part-2";
        assert!(is_safe_url(good));
        assert!(is_safe_url("https://[2001:db8::1]/x"));
        // An IDN host passes in its ASCII (`xn--`) form only: the drawn text stays printable
        // ASCII, so a look-alike letter cannot stand in a host.
        assert!(is_safe_url("https://xn--bcher-kva.example/"));
        assert!(!is_safe_url("https://bücher.example/"));
    }

    #[test]
    fn l1_opening_a_link_names_the_host_it_opens() {
        assert_eq!(
            opening_words("https://evil.example/path?q=1"),
            "Opening evil.example in your browser…"
        );
        assert_eq!(
            opening_words("https://xn--bcher-kva.example/"),
            "Opening xn--bcher-kva.example in your browser…"
        );
        assert_eq!(
            opening_words("https://[2001:db8::1]/x"),
            "Opening [2001:db8::1] in your browser…"
        );
        assert_eq!(
            opening_words("https://bank.example@evil.example/"),
            "Opening the link…"
        );
    }
}
