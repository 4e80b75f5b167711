//! Markdown to terminal lines.
//!
//! A hand-written renderer over pulldown-cmark's events: the ratatui markdown crates lag behind
//! ratatui 0.30, and the phone needs exact control over width (CJK, hanging indents), over
//! links (https only, SPEC L) and over what reaches the terminal (no control characters).

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::theme::Theme;
use super::wrap::{fit_line, split_columns, width as text_width, wrap_spans};
use crate::wire::is_https_url;

const RULE: &str = "─";
const QUOTE_BAR: &str = "│ ";
const BULLETS: [&str; 3] = ["• ", "◦ ", "▪ "];
const TAB_AS_SPACES: &str = "    ";

/// Renders markdown `text` into lines no wider than `width` columns.
pub fn render(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    if width == 0 {
        // Nothing can show; wrapping at one column would only make thousands of empty lines.
        return Vec::new();
    }
    let mut renderer = Renderer::new(usize::from(width), theme);
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for event in Parser::new_ext(text, options) {
        renderer.event(event);
    }
    renderer.finish()
}

/// The mark a wrapped line of code continues with, at the start of each row after its first.
pub(crate) const CODE_CONTINUES: &str = "↪ ";

/// A code block: a dim language header (when known), then every line in the code style. A line
/// wider than `width` is wrapped, never cut: its next rows start with a dim "↪ " so the eye
/// sees one line of code, not two, and every character stays on screen.
pub fn code_block(
    text: &str,
    language: Option<&str>,
    width: u16,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let width = usize::from(width);
    let mut lines = Vec::new();
    if let Some(language) = language.map(clean).filter(|l| !l.trim().is_empty()) {
        lines.push(fit_line(
            Line::from(Span::styled(language, theme.dim)),
            width,
        ));
    }
    for line in code_lines(text) {
        lines.extend(
            code_rows(&line, language, width, theme)
                .into_iter()
                .map(Line::from),
        );
    }
    lines
}

/// The lines of a code text: tabs expanded, other control characters dropped, one trailing
/// newline ignored.
fn code_lines(text: &str) -> Vec<String> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    text.split('\n')
        .map(|line| clean(&line.replace('\t', TAB_AS_SPACES)))
        .collect()
}

/// One line of code as rows of `width` columns, padded so the block's background is even,
/// with a light keyword highlight for a few languages. Too narrow for the mark and some code
/// (under 4 columns), the rows go on without it.
fn code_rows(
    line: &str,
    language: Option<&str>,
    width: usize,
    theme: &Theme,
) -> Vec<Vec<Span<'static>>> {
    let spans = match language.and_then(Syntax::for_language) {
        Some(syntax) => syntax.highlight(line, theme),
        None if language.is_some_and(is_diff) => {
            vec![Span::styled(line.to_string(), diff_line_style(line, theme))]
        }
        None => vec![Span::styled(line.to_string(), theme.code)],
    };
    if text_width(line) <= width {
        return vec![padded(spans, width, theme)];
    }
    let mark = text_width(CODE_CONTINUES);
    if width < mark + 2 {
        return split_columns(&spans, width)
            .into_iter()
            .map(|row| padded(row, width, theme))
            .collect();
    }
    // The first row takes the full width, the next ones what the mark leaves.
    let starts = code_breaks(line, width, width - mark);
    let mut out = Vec::with_capacity(starts.len());
    for (index, start) in starts.iter().enumerate() {
        let end = starts.get(index + 1).copied().unwrap_or(line.len());
        let mut row = Vec::new();
        if index > 0 {
            row.push(Span::styled(CODE_CONTINUES, theme.code.patch(theme.dim)));
        }
        row.extend(slice_spans(&spans, *start, end));
        out.push(padded(row, width, theme));
    }
    out
}

/// Where each row of a wrapped code line starts (byte offsets, the first 0): a row holds at
/// most `first` columns (the first) or `rest` (the others), and ends after a space or a
/// punctuation mark in its last third when there is one, so `body: Bytes` does not become
/// `body: Byte` and `s`; with none, it is cut at the width, whole graphemes only.
fn code_breaks(line: &str, first: usize, rest: usize) -> Vec<usize> {
    use unicode_segmentation::UnicodeSegmentation;
    let graphemes: Vec<(usize, &str)> = line.grapheme_indices(true).collect();
    let mut starts = vec![0];
    let mut at = 0;
    while at < graphemes.len() {
        let room = if starts.len() == 1 { first } else { rest };
        let mut used = 0;
        let mut end = at;
        let mut soft = None;
        while end < graphemes.len() {
            let w = text_width(graphemes[end].1).max(usize::from(end == at));
            if used + w > room {
                break;
            }
            used += w;
            if used * 3 >= room * 2
                && graphemes[end]
                    .1
                    .chars()
                    .all(|c| c == ' ' || matches!(c, ',' | ';' | '(' | '{' | '[' | '.' | ':'))
            {
                soft = Some(end + 1);
            }
            end += 1;
        }
        if end >= graphemes.len() {
            break;
        }
        let next = match soft {
            Some(soft) if soft < end => soft,
            _ => end.max(at + 1),
        };
        at = next;
        if let Some((offset, _)) = graphemes.get(at) {
            starts.push(*offset);
        }
    }
    starts
}

/// The parts of `spans` between the byte offsets `start` and `end` of their joined text.
fn slice_spans(spans: &[Span<'static>], start: usize, end: usize) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut offset = 0;
    for span in spans {
        let len = span.content.len();
        let (from, to) = (start.max(offset), end.min(offset + len));
        if from < to {
            out.push(Span::styled(
                span.content[from - offset..to - offset].to_string(),
                span.style,
            ));
        }
        offset += len;
    }
    out
}

/// `spans` with spaces in the code style up to `width` columns.
fn padded(mut spans: Vec<Span<'static>>, width: usize, theme: &Theme) -> Vec<Span<'static>> {
    let used: usize = spans.iter().map(|s| text_width(&s.content)).sum();
    if used < width {
        spans.push(Span::styled(" ".repeat(width - used), theme.code));
    }
    spans
}

/// The fenced and indented code blocks of a markdown text, each as its source lines, for
/// copying the code alone.
pub(crate) fn code_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for event in Parser::new_ext(text, Options::empty()) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => current = Some(String::new()),
            Event::Text(text) => {
                if let Some(code) = &mut current {
                    code.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(code) = current.take() {
                    blocks.push(code.strip_suffix('\n').unwrap_or(&code).to_string());
                }
            }
            _ => {}
        }
    }
    blocks
}

fn is_diff(language: &str) -> bool {
    matches!(
        language.trim().to_ascii_lowercase().as_str(),
        "diff" | "patch" | "udiff"
    )
}

/// A unified diff's line coloured by what it is, as a terminal's `git diff` does: added lines
/// in the theme's ok colour, removed ones in its danger colour, hunk heads in its accent.
fn diff_line_style(line: &str, theme: &Theme) -> Style {
    if line.starts_with("+++") || line.starts_with("---") {
        theme.code.add_modifier(Modifier::BOLD)
    } else if line.starts_with('+') {
        theme.code.patch(theme.ok)
    } else if line.starts_with('-') {
        theme.code.patch(theme.danger)
    } else if line.starts_with("@@") {
        theme.code.patch(theme.accent)
    } else {
        theme.code
    }
}

/// Drops control characters (the text should arrive clean, SPEC L1; this is the last guard
/// before the terminal).
fn clean(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
}

/// Enough of a language to colour keywords and line comments; nothing more.
struct Syntax {
    keywords: &'static [&'static str],
    line_comment: &'static str,
}

impl Syntax {
    fn for_language(language: &str) -> Option<Syntax> {
        let (keywords, line_comment): (&'static [&'static str], &'static str) =
            match language.trim().to_ascii_lowercase().as_str() {
                "rust" | "rs" => (
                    &[
                        "as", "async", "await", "break", "const", "continue", "crate", "dyn",
                        "else", "enum", "false", "fn", "for", "if", "impl", "in", "let", "loop",
                        "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self",
                        "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
                        "where", "while",
                    ],
                    "//",
                ),
                "python" | "py" => (
                    &[
                        "and", "as", "assert", "async", "await", "break", "class", "continue",
                        "def", "del", "elif", "else", "except", "False", "finally", "for", "from",
                        "global", "if", "import", "in", "is", "lambda", "None", "not", "or",
                        "pass", "raise", "return", "True", "try", "while", "with", "yield",
                    ],
                    "#",
                ),
                "javascript" | "js" | "typescript" | "ts" | "tsx" | "jsx" => (
                    &[
                        "async",
                        "await",
                        "break",
                        "case",
                        "catch",
                        "class",
                        "const",
                        "continue",
                        "default",
                        "else",
                        "export",
                        "extends",
                        "false",
                        "finally",
                        "for",
                        "function",
                        "if",
                        "import",
                        "interface",
                        "let",
                        "new",
                        "null",
                        "return",
                        "switch",
                        "this",
                        "throw",
                        "true",
                        "try",
                        "type",
                        "typeof",
                        "undefined",
                        "var",
                        "while",
                    ],
                    "//",
                ),
                "go" | "golang" => (
                    &[
                        "break",
                        "case",
                        "chan",
                        "const",
                        "continue",
                        "default",
                        "defer",
                        "else",
                        "false",
                        "for",
                        "func",
                        "go",
                        "if",
                        "import",
                        "interface",
                        "map",
                        "nil",
                        "package",
                        "range",
                        "return",
                        "select",
                        "struct",
                        "switch",
                        "true",
                        "type",
                        "var",
                    ],
                    "//",
                ),
                "sh" | "bash" | "shell" | "zsh" => (
                    &[
                        "case", "do", "done", "elif", "else", "esac", "export", "fi", "for",
                        "function", "if", "in", "local", "return", "then", "until", "while",
                    ],
                    "#",
                ),
                _ => return None,
            };
        Some(Syntax {
            keywords,
            line_comment,
        })
    }

    fn highlight(&self, line: &str, theme: &Theme) -> Vec<Span<'static>> {
        let keyword_style = theme.code.patch(theme.accent).add_modifier(Modifier::BOLD);
        let comment_style = theme.code.patch(theme.dim);
        let mut spans: Vec<Span<'static>> = Vec::new();
        let mut plain = String::new();
        let mut rest = line;
        while let Some(c) = rest.chars().next() {
            if rest.starts_with(self.line_comment) {
                break;
            }
            if c.is_alphanumeric() || c == '_' {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                let word = &rest[..end];
                if self.keywords.contains(&word) {
                    if !plain.is_empty() {
                        spans.push(Span::styled(std::mem::take(&mut plain), theme.code));
                    }
                    spans.push(Span::styled(word.to_string(), keyword_style));
                } else {
                    plain.push_str(word);
                }
                rest = &rest[end..];
            } else {
                plain.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        if !plain.is_empty() {
            spans.push(Span::styled(plain, theme.code));
        }
        if !rest.is_empty() {
            spans.push(Span::styled(rest.to_string(), comment_style));
        }
        spans
    }
}

/// A block that indents the lines inside it.
enum Container {
    Quote,
    /// A list; `next` is the number of the next item of an ordered list.
    List {
        next: Option<u64>,
        depth: usize,
    },
    /// A list item; its marker shows on its first line, spaces of the same width after.
    Item {
        marker: String,
        shown: bool,
    },
}

struct CodeBuffer {
    language: Option<String>,
    text: String,
}

struct Renderer<'t> {
    theme: &'t Theme,
    width: usize,
    lines: Vec<Line<'static>>,
    /// The words of the block being built, styled.
    inline: Vec<Span<'static>>,
    /// Inline styles open now (emphasis, strong, links ...), innermost last.
    styles: Vec<Style>,
    containers: Vec<Container>,
    /// For each open link: its URL when it is shown (https only), and where its text starts.
    links: Vec<(Option<String>, usize)>,
    code: Option<CodeBuffer>,
    /// A blank line is due before the next block.
    gap: bool,
}

impl<'t> Renderer<'t> {
    fn new(width: usize, theme: &'t Theme) -> Self {
        Renderer {
            theme,
            width,
            lines: Vec::new(),
            inline: Vec::new(),
            styles: Vec::new(),
            containers: Vec::new(),
            links: Vec::new(),
            code: None,
            gap: false,
        }
    }

    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(self.theme.text, |style, inner| style.patch(*inner))
    }

    fn push_text(&mut self, text: &str, style: Style) {
        // '\n' stays: the wrapper turns it into a line break and never emits it.
        let text: String = text
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .filter(|c| *c == '\n' || !c.is_control())
            .collect();
        if !text.is_empty() {
            self.inline.push(Span::styled(text, style));
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => {
                if let Some(code) = &mut self.code {
                    code.text.push_str(&text);
                } else {
                    self.push_text(&text, self.style());
                }
            }
            Event::Code(text) | Event::InlineMath(text) => {
                let style = self.style().patch(self.theme.code);
                self.push_text(&text, style);
            }
            Event::DisplayMath(text) => {
                self.begin_block();
                self.emit_code(&text, None);
                self.gap = true;
            }
            Event::Html(text) | Event::InlineHtml(text) => {
                self.push_text(&text, self.style().patch(self.theme.dim));
            }
            Event::FootnoteReference(label) => {
                self.push_text(&format!("[^{label}]"), self.style().patch(self.theme.dim));
            }
            Event::SoftBreak => self.push_text(" ", self.style()),
            Event::HardBreak => self.push_text("\n", self.style()),
            Event::Rule => {
                self.begin_block();
                let room = self.width.saturating_sub(self.prefix_width());
                let rule = Span::styled(RULE.repeat(room), self.theme.dim);
                let mut spans = self.prefix(true);
                spans.push(rule);
                self.push_line(spans);
                self.gap = true;
            }
            Event::TaskListMarker(checked) => {
                let marker = if checked { "[x] " } else { "[ ] " };
                self.push_text(marker, self.style().patch(self.theme.accent));
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock | Tag::MetadataBlock(_) => self.begin_block(),
            Tag::Heading { level, .. } => {
                self.begin_block();
                let hashes = "#".repeat(heading_level(level));
                self.push_text(&format!("{hashes} "), self.theme.dim);
                self.styles
                    .push(self.theme.accent.add_modifier(Modifier::BOLD));
            }
            Tag::BlockQuote(_) => {
                self.begin_block();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.begin_block();
                let language = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().map(|word| word.to_string())
                    }
                    CodeBlockKind::Indented => None,
                };
                self.code = Some(CodeBuffer {
                    language,
                    text: String::new(),
                });
            }
            Tag::List(start) => {
                self.begin_block();
                let depth = self
                    .containers
                    .iter()
                    .filter(|c| matches!(c, Container::List { .. }))
                    .count();
                self.containers.push(Container::List { next: start, depth });
            }
            Tag::Item => {
                self.begin_block();
                let marker = match self.containers.last_mut() {
                    Some(Container::List {
                        next: Some(number), ..
                    }) => {
                        let marker = format!("{number}. ");
                        *number = number.saturating_add(1);
                        marker
                    }
                    Some(Container::List { depth, .. }) => {
                        BULLETS[*depth % BULLETS.len()].to_string()
                    }
                    _ => BULLETS[0].to_string(),
                };
                self.containers.push(Container::Item {
                    marker,
                    shown: false,
                });
            }
            Tag::Emphasis => self
                .styles
                .push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self
                .styles
                .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => {
                let url = is_https_url(&dest_url).then(|| clean(&dest_url));
                self.links.push((url, self.inline.len()));
                self.styles.push(self.theme.link);
            }
            Tag::Image { .. } => {
                self.push_text("[image: ", self.theme.dim);
                self.styles.push(self.theme.dim);
            }
            Tag::FootnoteDefinition(label) => {
                self.begin_block();
                self.push_text(&format!("[^{label}]: "), self.theme.dim);
            }
            Tag::Table(_)
            | Tag::TableHead
            | Tag::TableRow
            | Tag::TableCell
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::Superscript
            | Tag::Subscript => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph
            | TagEnd::HtmlBlock
            | TagEnd::MetadataBlock(_)
            | TagEnd::FootnoteDefinition => self.end_block(),
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.end_block();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.containers.pop();
                self.gap = true;
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    self.emit_code(&code.text, code.language.as_deref());
                }
                self.gap = true;
            }
            TagEnd::List(_) => {
                self.flush();
                self.containers.pop();
                let nested = self
                    .containers
                    .iter()
                    .any(|c| matches!(c, Container::Item { .. }));
                self.gap = !nested;
            }
            TagEnd::Item => {
                self.flush();
                if let Some(Container::Item { shown: false, .. }) = self.containers.last() {
                    // An empty item still shows its marker.
                    let spans = self.prefix(true);
                    self.push_line(spans);
                }
                self.containers.pop();
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link => {
                self.styles.pop();
                if let Some((Some(url), start)) = self.links.pop() {
                    let text: String = self
                        .inline
                        .get(start..)
                        .unwrap_or_default()
                        .iter()
                        .map(|span| span.content.as_ref())
                        .collect();
                    // An autolink's text is its URL already.
                    if text != url {
                        self.push_text(&format!(" ({url})"), self.theme.dim);
                    }
                }
            }
            TagEnd::Image => {
                self.styles.pop();
                self.push_text("]", self.theme.dim);
            }
            TagEnd::Table
            | TagEnd::TableHead
            | TagEnd::TableRow
            | TagEnd::TableCell
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::Superscript
            | TagEnd::Subscript => {}
        }
    }

    /// Before a block: the words of the enclosing item go out first, then a blank line if due.
    fn begin_block(&mut self) {
        self.flush();
        if self.gap && !self.lines.is_empty() {
            let mut spans = self.prefix(false);
            // A blank line inside a quote keeps its bar, without trailing spaces.
            while spans
                .last()
                .is_some_and(|span| span.content.trim().is_empty())
            {
                spans.pop();
            }
            if let Some(last) = spans.last_mut() {
                last.content = last.content.trim_end().to_string().into();
            }
            self.push_line(spans);
        }
        self.gap = false;
    }

    fn end_block(&mut self) {
        self.flush();
        self.gap = true;
    }

    /// Columns the containers take before the text.
    fn prefix_width(&self) -> usize {
        self.containers
            .iter()
            .map(|container| match container {
                Container::Quote => text_width(QUOTE_BAR),
                Container::List { .. } => 0,
                Container::Item { marker, .. } => text_width(marker),
            })
            .sum()
    }

    /// The indentation of a line: quote bars, and list markers on an item's first line.
    fn prefix(&mut self, first_line: bool) -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        let mut used = 0;
        // Containers past the width cannot show; skipping them keeps deep nesting cheap.
        let shown = self.width / 2 + 1;
        for container in self.containers.iter_mut().take(shown) {
            let span = match container {
                Container::Quote => Span::styled(QUOTE_BAR, self.theme.dim),
                Container::List { .. } => continue,
                Container::Item { marker, shown } => {
                    if first_line && !*shown {
                        *shown = true;
                        Span::styled(marker.clone(), self.theme.accent)
                    } else {
                        Span::raw(" ".repeat(text_width(marker)))
                    }
                }
            };
            used += text_width(&span.content);
            if used <= self.width {
                spans.push(span);
            }
        }
        spans
    }

    /// Columns left for text after the prefix; the full width when the prefix leaves none
    /// (deep nesting on a narrow screen), since such lines are cut anyway.
    fn content_width(&self) -> usize {
        match self.width.saturating_sub(self.prefix_width()) {
            0 => self.width.max(1),
            room => room,
        }
    }

    /// Wraps the words gathered so far and emits them under the current prefix.
    fn flush(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let spans = std::mem::take(&mut self.inline);
        let mut wrapped = wrap_spans(&spans, self.content_width());
        // An HTML block's text ends with its newline; that is not a blank line to show.
        while wrapped.len() > 1 && wrapped.last().is_some_and(|line| line.width() == 0) {
            wrapped.pop();
        }
        for (index, line) in wrapped.into_iter().enumerate() {
            let mut spans = self.prefix(index == 0);
            spans.extend(line.spans);
            self.push_line(spans);
        }
    }

    fn emit_code(&mut self, text: &str, language: Option<&str>) {
        let room = self.content_width();
        let block = code_block(
            text,
            language,
            u16::try_from(room).unwrap_or(u16::MAX),
            self.theme,
        );
        for (index, line) in block.into_iter().enumerate() {
            let mut spans = self.prefix(index == 0);
            spans.extend(line.spans);
            self.push_line(spans);
        }
    }

    fn push_line(&mut self, spans: Vec<Span<'static>>) {
        self.lines.push(fit_line(Line::from(spans), self.width));
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        self.flush();
        if let Some(code) = self.code.take() {
            self.emit_code(&code.text, code.language.as_deref());
        }
        self.lines
    }
}

fn heading_level(level: HeadingLevel) -> usize {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn theme() -> Theme {
        Theme::builtin("dark").expect("dark")
    }

    fn plain(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|line| line.to_string()).collect()
    }

    #[test]
    fn a_diff_colours_its_added_and_removed_lines_and_its_hunk_heads() {
        let theme = theme();
        let lines = code_block(
            "--- a\n+++ a\n@@ -1 +1 @@\n-old\n+new\n same\n",
            Some("diff"),
            20,
            &theme,
        );
        let first_style = |i: usize| lines[i].spans[0].style;
        assert_eq!(plain(&lines[..1]), ["diff"], "the language header");
        assert_eq!(first_style(3), theme.code.patch(theme.accent));
        assert_eq!(first_style(4), theme.code.patch(theme.danger));
        assert_eq!(first_style(5), theme.code.patch(theme.ok));
        assert_eq!(first_style(6), theme.code);
    }

    #[test]
    fn headings_show_dim_hashes_and_bold_text() {
        let theme = theme();
        let lines = render("## Plan", 40, &theme);
        assert_eq!(plain(&lines), ["## Plan"]);
        assert_eq!(lines[0].spans[0].style, theme.dim);
        assert!(
            lines[0].spans[1]
                .style
                .add_modifier
                .contains(Modifier::BOLD)
        );
    }

    #[test]
    fn paragraphs_wrap_by_display_width_with_a_gap_between() {
        let lines = render("日本語のテキストです\n\nnext", 10, &theme());
        assert_eq!(plain(&lines), ["日本語のテ", "キストです", "", "next"]);
    }

    #[test]
    fn inline_styles_and_code() {
        let theme = theme();
        let lines = render("a *b* **c** ~~d~~ `e`", 40, &theme);
        assert_eq!(plain(&lines), ["a b c d e"]);
        let style_of = |text: &str| {
            lines[0]
                .spans
                .iter()
                .find(|span| span.content == text)
                .map(|span| span.style)
                .expect("span")
        };
        assert!(style_of("b").add_modifier.contains(Modifier::ITALIC));
        assert!(style_of("c").add_modifier.contains(Modifier::BOLD));
        assert!(style_of("d").add_modifier.contains(Modifier::CROSSED_OUT));
        assert_eq!(style_of("e").fg, theme.code.fg);
    }

    #[test]
    fn lists_hang_their_wrapped_lines_under_the_text() {
        let lines = render(
            "- one two three four\n- five\n  1. six seven\n",
            12,
            &theme(),
        );
        assert_eq!(
            plain(&lines),
            [
                "• one two",
                "  three four",
                "• five",
                "  1. six",
                "     seven"
            ]
        );
        let numbered = render("3. a\n4. b", 12, &theme());
        assert_eq!(plain(&numbered), ["3. a", "4. b"]);
        let nested = render("- a\n  - b\n    - c", 12, &theme());
        assert_eq!(plain(&nested), ["• a", "  ◦ b", "    ▪ c"]);
    }

    #[test]
    fn block_quotes_get_a_bar() {
        let lines = render("> quoted words here\n>\n> more", 10, &theme());
        assert_eq!(
            plain(&lines),
            ["│ quoted", "│ words", "│ here", "│", "│ more"]
        );
    }

    #[test]
    fn fenced_code_wraps_with_a_mark_never_cut_with_the_language_dim() {
        let theme = theme();
        let lines = render(
            "```rust\nlet x = 1; // a long comment\n\tfoo\n```",
            16,
            &theme,
        );
        assert_eq!(
            plain(&lines),
            [
                "rust",
                "let x = 1; // a ",
                "↪ long comment  ",
                "    foo         "
            ]
        );
        assert_eq!(lines[0].spans[0].style, theme.dim);
        assert!(
            lines[1]
                .spans
                .iter()
                .any(|s| s.content == "let" && s.style.add_modifier.contains(Modifier::BOLD))
        );
        assert_eq!(lines[2].spans[0].style, theme.code.patch(theme.dim));
    }

    #[test]
    fn a_long_code_line_keeps_every_character_at_any_width() {
        let line = "fn abort(State(agent): State<Shared>, 日本語: Path<String>) -> Reply {";
        for width in [1u16, 3, 4, 10, 20, 79] {
            let lines = code_block(line, Some("rust"), width, &theme());
            let mut shown = String::new();
            for (index, row) in lines.iter().skip(1).enumerate() {
                let text = row.to_string();
                assert!(text_width(&text) <= usize::from(width), "{text:?}");
                let text = if index > 0 && width >= 4 {
                    text.strip_prefix(CODE_CONTINUES)
                        .expect("the mark")
                        .to_string()
                } else {
                    text
                };
                shown.push_str(text.trim_end());
            }
            if width >= 2 {
                assert_eq!(shown.replace(' ', ""), line.replace(' ', ""), "at {width}");
            }
        }
    }

    #[test]
    fn code_blocks_are_found_for_copying() {
        let text = "intro\n\n```rust\nfn a() {}\n```\n\nand\n\n    indented\n";
        assert_eq!(code_blocks(text), ["fn a() {}", "indented"]);
        assert!(code_blocks("no code here").is_empty());
    }

    #[test]
    fn links_show_https_urls_only() {
        let lines = render(
            "[docs](https://example.com/d) and [x](javascript:alert(1)) <https://e.com>",
            80,
            &theme(),
        );
        assert_eq!(
            plain(&lines),
            ["docs (https://example.com/d) and x https://e.com"]
        );
    }

    #[test]
    fn rules_span_the_width() {
        let lines = render("a\n\n---\n\nb", 5, &theme());
        assert_eq!(plain(&lines), ["a", "", "─────", "", "b"]);
    }

    #[test]
    fn html_blocks_show_as_dim_text_without_a_trailing_blank_line() {
        let theme = theme();
        let lines = render("<div>hi</div>\n", 40, &theme);
        assert_eq!(plain(&lines), ["<div>hi</div>"]);
        assert_eq!(lines[0].spans[0].style, theme.text.patch(theme.dim));
    }

    #[test]
    fn control_characters_never_reach_the_terminal() {
        let lines = render("a\u{1b}[31mb\u{7}\n\n```\nx\u{1b}y\n```", 40, &theme());
        for line in plain(&lines) {
            assert!(!line.chars().any(char::is_control), "{line:?}");
        }
    }

    proptest! {
        #[test]
        fn any_input_renders_within_the_width(text in "\\PC{0,300}|[-*>#`\\[\\]()_~ \n1.a-z日本🦀]{0,300}", width in 0u16..200) {
            let theme = theme();
            for line in render(&text, width, &theme) {
                let shown = line.to_string();
                prop_assert!(text_width(&shown) <= usize::from(width), "{shown:?} wider than {width}");
                prop_assert!(!shown.chars().any(char::is_control), "{shown:?}");
            }
        }
    }
}
