//! One chat entry of a pane to terminal lines, each within the width.

use std::borrow::Cow;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::glyph;
use super::markdown;
use super::theme::Theme;
use super::wrap::{fit_line, truncate, width as text_width, wrap_spans};
use crate::chat::pane_log::{ChatEntry, ClosedAsk};
use crate::wire::{DecidedBy, Item, ItemKind, is_https_url};

const USER_PREFIX: &str = "you › ";
const NOTICE_PREFIX: &str = "• ";
const THINKING_FOLDED: &str = "▸ thinking: ";
const THINKING_EXPANDED: &str = "▾ thinking";
/// Before the let-go note: what was let go lay above it.
const LET_GO_PREFIX: &str = "↑ ";

/// The note at the top of a chat that let its oldest items go to the agent's byte budget
/// (SPEC L2). When the agent keeps a history the phone can read (`has_history`), the items are
/// still there, and the note names the key that opens it (`history_key`, from the keymap) if
/// one is bound; else it says only what happened.
pub(crate) fn let_go_words(has_history: bool, history_key: Option<&str>) -> String {
    match (has_history, history_key) {
        (true, Some(key)) => format!("Older items were let go: {key} opens history"),
        (true, None) => "Older items were let go: the agent's history still has them".into(),
        (false, _) => {
            "Older items were let go; this agent keeps no history the phone can read".into()
        }
    }
}

/// How entries are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChatStyle {
    pub(crate) width: u16,
    /// Thinking items show whole instead of one folded line.
    pub(crate) thinking_expanded: bool,
}

/// The lines of one chat entry; none is wider than `style.width`.
pub(crate) fn entry_lines(
    entry: &ChatEntry,
    style: &ChatStyle,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let width = usize::from(style.width);
    // Laid out in the form every terminal draws at one width (`glyph`, SPEC L1), so `✍️,` is
    // measured as the two cells it will take, not three with a blank between; the item itself
    // keeps what the agent sent, for copy and search.
    let lines = match entry {
        ChatEntry::Item(item) => match glyph::plain_text(&item.text) {
            Cow::Borrowed(_) => item_lines(item, style, theme),
            Cow::Owned(text) => item_lines(
                &Item {
                    text,
                    ..item.clone()
                },
                style,
                theme,
            ),
        },
        ChatEntry::Closed(closed) => plain(
            &glyph::plain_text(&closed_ask_words(closed)),
            theme.notice,
            width,
        ),
        ChatEntry::LetGo(note) => hanging(
            Span::styled(LET_GO_PREFIX, theme.notice),
            &note.words,
            theme.notice,
            width,
        ),
    };
    // The last guard: whatever a branch did, nothing leaves wider than the screen.
    lines
        .into_iter()
        .map(|line| fit_line(line, width))
        .collect()
}

/// Collie's words for an ask that closed without this phone's answer, or with it
/// (SPEC A4, A5, A6).
pub(crate) fn closed_ask_words(closed: &ClosedAsk) -> String {
    let with_answer = |words: String| match &closed.answer {
        Some(answer) => format!("{words} → {answer}"),
        None => words,
    };
    match &closed.decided_by {
        Some(DecidedBy::Program) => {
            with_answer(format!("Decided on the durable agent: {}", closed.title))
        }
        Some(DecidedBy::Timeout) => format!("Timed out before an answer: {}", closed.title),
        Some(DecidedBy::Unknown(other)) => {
            with_answer(format!("Closed ({other}): {}", closed.title))
        }
        // Who answered, as the agent names them: a phone, or someone at the agent's side.
        None => match closed.by.as_deref().map(str::trim) {
            Some("phone") => with_answer(format!("Answered from a phone: {}", closed.title)),
            Some(who) if !who.is_empty() => {
                with_answer(format!("Answered by {who}: {}", closed.title))
            }
            _ => with_answer(format!("Answered: {}", closed.title)),
        },
    }
}

fn item_lines(item: &Item, style: &ChatStyle, theme: &Theme) -> Vec<Line<'static>> {
    let width = usize::from(style.width);
    match &item.kind {
        ItemKind::User => hanging(
            Span::styled(USER_PREFIX, theme.user),
            &item.text,
            theme.text,
            width,
        ),
        ItemKind::Reply => plain(&item.text, theme.reply, width),
        ItemKind::Thinking => thinking_lines(&item.text, style, theme),
        ItemKind::Notice => {
            let style = super::dsh_chat::notice_style(item.tone, theme).unwrap_or(theme.notice);
            hanging(Span::styled(NOTICE_PREFIX, style), &item.text, style, width)
        }
        ItemKind::Markdown => markdown::render(&item.text, style.width, theme),
        ItemKind::Code => {
            markdown::code_block(&item.text, item.language.as_deref(), style.width, theme)
        }
        ItemKind::Link => link_lines(item, theme, width),
        ItemKind::Unknown(kind) => plain(&format!("[{kind}] {}", item.text), theme.dim, width),
    }
}

/// Folded: one line with the first words. Expanded: a header, then every word, dimmed.
fn thinking_lines(text: &str, style: &ChatStyle, theme: &Theme) -> Vec<Line<'static>> {
    let width = usize::from(style.width);
    if style.thinking_expanded {
        let mut lines = vec![Line::from(Span::styled(THINKING_EXPANDED, theme.thinking))];
        lines.extend(plain(text, theme.thinking, width));
        return lines;
    }
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let room = width.saturating_sub(text_width(THINKING_FOLDED));
    let first_words = first_words(&flat, room);
    vec![Line::from(vec![
        Span::styled(THINKING_FOLDED, theme.thinking),
        Span::styled(first_words, theme.thinking),
    ])]
}

/// As many whole words of `flat` as fit in `room` columns, with "…" when there is more.
fn first_words(flat: &str, room: usize) -> String {
    if text_width(flat) <= room {
        return flat.to_string();
    }
    let mut shown = String::new();
    for word in flat.split(' ') {
        let candidate = if shown.is_empty() {
            word.to_string()
        } else {
            format!("{shown} {word}")
        };
        // One column stays free for the ellipsis.
        if text_width(&candidate) + 1 > room {
            break;
        }
        shown = candidate;
    }
    if shown.is_empty() {
        // The first word alone is too long (or CJK without spaces): cut inside it.
        return truncate(flat, room);
    }
    shown.push('…');
    shown
}

/// A link: its title, then the URL on lines of its own so the terminal can find and open it.
/// Plain text here: the runner makes the drawn URL an OSC 8 hyperlink once the frame is out
/// (`look::chat_links`, `tui::osc`), since an escape inside a cell would count as width.
fn link_lines(item: &Item, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let title = item
        .title
        .as_deref()
        .map(str::trim)
        .filter(|title| !title.is_empty());
    let url = item.url.as_deref().filter(|url| is_https_url(url));
    let mut lines = Vec::new();
    if let Some(title) = title {
        lines.extend(hanging(
            Span::styled("↗ ", theme.accent),
            title,
            theme.text,
            width,
        ));
    }
    match url {
        Some(url) => lines.extend(plain(url, theme.link, width)),
        None if lines.is_empty() => lines.extend(plain("[link]", theme.dim, width)),
        None => {}
    }
    lines
}

/// `text` wrapped to `width` in one style. Trailing newlines and spaces, common at the end of
/// an agent's reply, would only show as blank lines.
fn plain(text: &str, style: Style, width: usize) -> Vec<Line<'static>> {
    wrap_spans(&[Span::styled(text.trim_end().to_string(), style)], width)
}

/// `text` after a prefix, its wrapped lines indented under the text. On a screen too narrow
/// for the prefix and a word, the text goes under the prefix instead.
fn hanging(prefix: Span<'static>, text: &str, style: Style, width: usize) -> Vec<Line<'static>> {
    let indent = text_width(&prefix.content);
    if width <= indent + 1 {
        let mut lines = vec![Line::from(prefix)];
        lines.extend(plain(text, style, width));
        return lines;
    }
    let body = plain(text, style, width - indent);
    body.into_iter()
        .enumerate()
        .map(|(index, line)| {
            let lead = if index == 0 {
                prefix.clone()
            } else {
                Span::raw(" ".repeat(indent))
            };
            let mut spans = vec![lead];
            spans.extend(line.spans);
            Line::from(spans)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Outcome;

    fn theme() -> Theme {
        Theme::builtin("dark").expect("dark")
    }

    fn style(width: u16) -> ChatStyle {
        ChatStyle {
            width,
            thinking_expanded: false,
        }
    }

    fn shown(entry: &ChatEntry, style: &ChatStyle) -> Vec<String> {
        entry_lines(entry, style, &theme())
            .iter()
            .map(|line| line.to_string())
            .collect()
    }

    fn item(kind: ItemKind, text: &str) -> ChatEntry {
        ChatEntry::Item(Item::text("i1", kind, text))
    }

    /// SPEC L2: the let-go note says where the items still are only when that is true.
    #[test]
    fn l2_the_let_go_note_names_history_only_where_it_has_the_items() {
        assert_eq!(
            let_go_words(true, Some("H")),
            "Older items were let go: H opens history"
        );
        assert_eq!(
            let_go_words(true, None),
            "Older items were let go: the agent's history still has them"
        );
        assert_eq!(
            let_go_words(false, Some("H")),
            "Older items were let go; this agent keeps no history the phone can read"
        );
        let note = ChatEntry::LetGo(crate::chat::pane_log::LetGo {
            items: 3,
            words: let_go_words(true, Some("H")),
        });
        assert_eq!(
            shown(&note, &style(30)),
            ["↑ Older items were let go: H", "  opens history"]
        );
    }

    fn closed(decided_by: Option<DecidedBy>, summary: Option<&str>) -> ChatEntry {
        ChatEntry::Closed(ClosedAsk {
            ask_id: "a1".into(),
            title: "Run the migration?".into(),
            decided_by,
            outcome: summary.map(|summary| Outcome {
                option_id: None,
                effect: None,
                text: None,
                values: None,
                summary: summary.into(),
            }),
            answer: summary.map(str::to_string),
            by: None,
            after_items: 0,
        })
    }

    fn assert_fits(lines: &[String], width: u16) {
        for line in lines {
            assert!(text_width(line) <= usize::from(width), "{line:?} > {width}");
        }
    }

    const CJK: &str = "これは日本語のテキストです。折り返しを確認します。";

    #[test]
    fn user_text_follows_the_prefix_and_hangs_under_it() {
        let lines = shown(
            &item(ItemKind::User, "make the tests pass please"),
            &style(20),
        );
        assert_eq!(lines, ["you › make the tests", "      pass please"]);
        let lines = shown(&item(ItemKind::User, CJK), &style(20));
        assert_fits(&lines, 20);
        assert!(lines[0].starts_with("you › これは日本語"));
        assert!(lines[1].starts_with("      "));
        let joined: String = lines
            .iter()
            .map(|l| l.trim_start_matches("you › ").trim())
            .collect();
        assert_eq!(joined, CJK);
    }

    #[test]
    fn cjk_replies_fit_at_20_and_80_columns() {
        for width in [20, 80] {
            for kind in [
                ItemKind::Reply,
                ItemKind::Notice,
                ItemKind::Markdown,
                ItemKind::Thinking,
                ItemKind::Code,
                ItemKind::Unknown("hologram".into()),
            ] {
                let lines = shown(&item(kind.clone(), CJK), &style(width));
                assert_fits(&lines, width);
                assert!(!lines.is_empty(), "{kind:?}");
            }
        }
        let lines = shown(&item(ItemKind::Reply, CJK), &style(20));
        assert_eq!(lines.len(), 3);
        assert_eq!(lines.concat(), CJK);
    }

    #[test]
    fn thinking_folds_to_one_line_and_expands_whole() {
        let text = "first I will read the code then I will change the parser and run the tests";
        let folded = shown(&item(ItemKind::Thinking, text), &style(40));
        assert_eq!(folded, ["▸ thinking: first I will read the code…"]);
        let expanded = shown(
            &item(ItemKind::Thinking, text),
            &ChatStyle {
                width: 40,
                thinking_expanded: true,
            },
        );
        assert_eq!(expanded[0], "▾ thinking");
        assert_eq!(expanded[1..].join(" "), text);
        let lines = entry_lines(&item(ItemKind::Thinking, text), &style(40), &theme());
        assert!(lines[0].spans.iter().all(|s| s.style == theme().thinking));
        let cjk = shown(&item(ItemKind::Thinking, CJK), &style(20));
        assert_eq!(cjk.len(), 1);
        assert_fits(&cjk, 20);
    }

    #[test]
    fn notices_and_unknown_kinds() {
        assert_eq!(
            shown(&item(ItemKind::Notice, "tests pass"), &style(40)),
            ["• tests pass"]
        );
        assert_eq!(
            shown(
                &item(ItemKind::Unknown("hologram".into()), "hi"),
                &style(40)
            ),
            ["[hologram] hi"]
        );
    }

    #[test]
    fn code_has_a_language_header_and_is_wrapped_with_a_mark_not_cut() {
        let mut code = Item::text("c", ItemKind::Code, "fn main() { println!(\"hi\"); }\n");
        code.language = Some("rust".into());
        let lines = shown(&ChatEntry::Item(code), &style(20));
        assert_eq!(
            lines,
            ["rust", "fn main() { println!", "↪ (\"hi\"); }         "]
        );
    }

    #[test]
    fn links_show_the_title_and_the_https_url_as_plain_text() {
        let mut link = Item::text("l", ItemKind::Link, "");
        link.title = Some("The docs".into());
        link.url = Some("https://example.com/docs".into());
        let lines = shown(&ChatEntry::Item(link.clone()), &style(40));
        assert_eq!(lines, ["↗ The docs", "https://example.com/docs"]);
        assert!(lines.iter().all(|l| !l.contains('\u{1b}')));
        link.url = Some("javascript:alert(1)".into());
        assert_eq!(shown(&ChatEntry::Item(link), &style(40)), ["↗ The docs"]);
    }

    #[test]
    fn a5_decided_on_the_agent_names_the_title_and_outcome() {
        assert_eq!(
            shown(
                &closed(Some(DecidedBy::Program), Some("Allow once")),
                &style(80)
            ),
            ["Decided on the durable agent: Run the migration? → Allow once"]
        );
        assert_eq!(
            shown(&closed(Some(DecidedBy::Program), None), &style(80)),
            ["Decided on the durable agent: Run the migration?"]
        );
    }

    #[test]
    fn a6_timed_out_names_the_title() {
        assert_eq!(
            shown(
                &closed(Some(DecidedBy::Timeout), Some("Denied: timed out")),
                &style(80)
            ),
            ["Timed out before an answer: Run the migration?"]
        );
    }

    #[test]
    fn a4_says_who_answered() {
        let mut entry = closed(None, Some("Rolling"));
        if let ChatEntry::Closed(c) = &mut entry {
            c.by = Some("phone".into());
        }
        assert_eq!(
            shown(&entry, &style(80)),
            ["Answered from a phone: Run the migration? → Rolling"]
        );
        if let ChatEntry::Closed(c) = &mut entry {
            c.by = Some("Ana at the desk".into());
        }
        assert_eq!(
            shown(&entry, &style(80)),
            ["Answered by Ana at the desk: Run the migration? → Rolling"]
        );
    }

    #[test]
    fn a4_answered_by_a_phone() {
        assert_eq!(
            shown(&closed(None, Some("Yes")), &style(80)),
            ["Answered: Run the migration? → Yes"]
        );
        let narrow = shown(
            &closed(Some(DecidedBy::Program), Some("Allow once")),
            &style(20),
        );
        assert_fits(&narrow, 20);
        assert!(narrow[0].starts_with("Decided on the"));
    }

    #[test]
    fn a_trailing_newline_is_not_a_blank_line() {
        assert_eq!(
            shown(&item(ItemKind::Reply, "done.\n\n"), &style(40)),
            ["done."]
        );
        assert_eq!(
            shown(&item(ItemKind::Reply, "one\n\ntwo"), &style(40)),
            ["one", "", "two"]
        );
    }

    proptest::proptest! {
        #[test]
        fn every_entry_fits_any_width(
            text in "\\PC{0,200}",
            kind in proptest::sample::select(vec!["user", "reply", "thinking", "notice", "markdown", "code", "link", "hologram"]),
            width in 0u16..120,
            expanded in proptest::bool::ANY,
        ) {
            let mut item = Item::text("i", ItemKind::from(kind), text.clone());
            item.url = Some(format!("https://example.com/{}", text.len()));
            item.title = Some(text);
            let style = ChatStyle { width, thinking_expanded: expanded };
            for line in entry_lines(&ChatEntry::Item(item), &style, &theme()) {
                let shown = line.to_string();
                proptest::prop_assert!(text_width(&shown) <= usize::from(width), "{shown:?}");
                proptest::prop_assert!(!shown.chars().any(char::is_control), "{shown:?}");
            }
        }
    }

    #[test]
    fn tiny_widths_never_overflow() {
        for width in 0..8 {
            for entry in [
                item(ItemKind::User, CJK),
                item(ItemKind::Notice, "a notice"),
                item(ItemKind::Thinking, CJK),
                closed(None, Some("Yes")),
            ] {
                assert_fits(&shown(&entry, &style(width)), width);
            }
        }
    }
}
