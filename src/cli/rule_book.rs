//! The rule book, docs/SPEC.md, inside the binary: `collie-phone rules [ID]` prints an entry
//! (or a family, or the list), so the help can point to a rule without the repository. The
//! book's one parser: tests/integration/spec_book.rs reads the book through it too.

/// The book as built into the binary.
pub const BOOK: &str = include_str!("../../docs/SPEC.md");

/// One rule: its id (`W4`, `L`, `L.layout`), the title of its heading, the heading's line
/// (from 1), and its body up to the next heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    pub title: String,
    pub line: usize,
    pub body: Vec<String>,
    /// The family's letter, from the `## Title (X)` heading above it.
    pub family: Option<char>,
}

/// A family of rules: `## The socket (S)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    pub letter: char,
    pub title: String,
}

/// The id at the start of a `### ` heading's text, and the title after it: `L.<name>` or a
/// capital letter with digits, then an optional `.`, then a space or the end.
fn heading(rest: &str) -> Option<(String, String)> {
    let limit_row = rest
        .strip_prefix("L.")
        .filter(|name| name.starts_with(|c: char| c.is_ascii_lowercase()));
    let id_len = if let Some(name) = limit_row {
        let name_len = name
            .find(|c: char| !(c.is_ascii_lowercase() || c == '-'))
            .unwrap_or(name.len());
        2 + name[..name_len].trim_end_matches('-').len()
    } else {
        let mut chars = rest.chars();
        if !chars.next()?.is_ascii_uppercase() {
            return None;
        }
        1 + rest[1..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - 1)
    };
    let (id, after) = rest.split_at(id_len);
    let after = after.strip_prefix('.').unwrap_or(after);
    if !(after.is_empty() || after.starts_with(char::is_whitespace)) {
        return None;
    }
    Some((id.to_string(), after.trim().to_string()))
}

/// A family's heading, `## The socket (S)`.
fn family(line: &str) -> Option<Family> {
    let rest = line.strip_prefix("## ")?.trim_end();
    let inner = rest.strip_suffix(')')?;
    let (title, letter) = inner.rsplit_once(" (")?;
    let mut chars = letter.chars();
    let letter = chars.next().filter(char::is_ascii_uppercase)?;
    chars.next().is_none().then(|| Family {
        letter,
        title: title.to_string(),
    })
}

/// The book's rules, in order.
pub fn entries(book: &str) -> Vec<Entry> {
    let mut found: Vec<Entry> = Vec::new();
    let mut letter = None;
    let mut in_rule = false;
    for (index, line) in book.lines().enumerate() {
        if let Some((id, title)) = line.strip_prefix("### ").and_then(heading) {
            found.push(Entry {
                id,
                title,
                line: index + 1,
                body: Vec::new(),
                family: letter,
            });
            in_rule = true;
        } else if line.starts_with("## ") {
            // A family's heading ends the last rule of the family before it.
            letter = family(line).map(|f| f.letter);
            in_rule = false;
        } else if in_rule && let Some(last) = found.last_mut() {
            last.body.push(line.to_string());
        }
    }
    found
}

/// The book's families, in order.
pub fn families(book: &str) -> Vec<Family> {
    book.lines().filter_map(family).collect()
}

/// What `collie-phone rules` prints for `asked` (an id, a family's letter, or nothing for the
/// list), or why nothing matches with the ids close to it.
pub fn look_up(book: &str, asked: Option<&str>) -> Result<String, String> {
    let entries = entries(book);
    let families = families(book);
    let Some(asked) = asked.map(str::trim) else {
        let mut out = String::from(
            "The rules of docs/SPEC.md; `collie-phone rules ID` prints one, `collie-phone rules S` a family.\n",
        );
        for family in &families {
            out.push_str(&format!("\n{} ({})\n", family.title, family.letter));
            for entry in entries.iter().filter(|e| e.family == Some(family.letter)) {
                out.push_str(&format!("  {:<18} {}\n", entry.id, entry.title));
            }
        }
        return Ok(out);
    };
    let same = |id: &str| id.eq_ignore_ascii_case(asked);
    if let Some(entry) = entries.iter().find(|e| same(&e.id)) {
        let mut body = entry.body.clone();
        while body.last().is_some_and(|l| l.trim().is_empty()) {
            body.pop();
        }
        let heading = if entry.title.is_empty() {
            entry.id.clone()
        } else {
            format!("{}. {}", entry.id, entry.title)
        };
        return Ok(format!("{heading}\n{}\n", body.join("\n")));
    }
    if let Some(family) = families.iter().find(|f| same(&f.letter.to_string())) {
        let mut out = format!("{} ({})\n", family.title, family.letter);
        for entry in entries.iter().filter(|e| e.family == Some(family.letter)) {
            out.push_str(&format!("  {:<18} {}\n", entry.id, entry.title));
        }
        out.push_str(&format!(
            "`collie-phone rules {}` prints the first of them whole.\n",
            entries
                .iter()
                .find(|e| e.family == Some(family.letter))
                .map_or("ID", |e| e.id.as_str())
        ));
        return Ok(out);
    }
    let lower = asked.to_lowercase();
    let mut close: Vec<&str> = entries
        .iter()
        .map(|e| e.id.as_str())
        .filter(|id| strsim::damerau_levenshtein(&id.to_lowercase(), &lower) <= 1)
        .collect();
    if close.is_empty() {
        close = entries
            .iter()
            .map(|e| e.id.as_str())
            .filter(|id| id.chars().next() == asked.chars().next().map(|c| c.to_ascii_uppercase()))
            .take(8)
            .collect();
    }
    Err(if close.is_empty() {
        format!(
            "no rule {asked} in the rule book; the families are {} (`collie-phone rules` lists every id)",
            families
                .iter()
                .map(|f| f.letter.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else {
        format!(
            "no rule {asked} in the rule book; close ids: {} (`collie-phone rules` lists every id)",
            close.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_are_read_as_the_book_writes_them() {
        assert_eq!(
            heading("W4. Request bodies"),
            Some(("W4".into(), "Request bodies".into()))
        );
        assert_eq!(
            heading("L.layout"),
            Some(("L.layout".into(), String::new()))
        );
        assert_eq!(
            heading("L. The table of limits"),
            Some(("L".into(), "The table of limits".into()))
        );
        assert_eq!(heading("Why"), None);
    }
}
