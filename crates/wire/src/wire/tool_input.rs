//! A tool call's input as a person reads it: the one home of "tool input → readable form", which
//! the card's title (made on the agent side, `durable::cards`) and the card's body (drawn on the
//! phone, `screens::card::draw`) both use, so the two never tell a different story.
//!
//! It knows the shapes the real agents send as a tool's arguments (docs/ACP.md, "Permission
//! requests", has the table): Codex's `exec_command` (`command` as a list of words) and
//! `apply_patch` (`changes`, a map of path → add, update or delete), Claude Code's tools (`Bash`,
//! `Write`, `Edit`, `MultiEdit`, `Read`, `WebFetch`, `Glob`, `Grep`: `command`, `file_path`,
//! `old_string`/`new_string`, `edits`, `url`, `pattern`…), MCP tools named `mcp__SERVER__TOOL`,
//! and what the card holds of a call with no input of its own (Gemini CLI's: `diffs` and
//! `locations`, `acp_host::permission`). Anything else reads as its JSON text. Only the tool and its
//! arguments are read, never the agent's title of the call (SPEC A10); what comes in is already
//! cleaned and cut (SPEC L1), and the first line is cut again to [`TITLE_COLUMNS`].

use serde_json::{Map, Value};

use crate::wire::sanitize::cut_to_columns;

/// The most terminal columns a card's first line takes.
pub const TITLE_COLUMNS: usize = 80;

/// The readable form of a tool's arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Readable {
    /// What the first line leads with after the tool: the command, the file(s), the address or
    /// the pattern; the arguments' JSON text when they hold none of these; empty when there are
    /// no arguments.
    pub(crate) lead: String,
    /// The command as a person would type it, when the tool runs one.
    pub command: Option<String>,
    /// The change as a unified diff (what the `diff` language reads), when the tool writes files.
    pub diff: Option<String>,
    /// The argument keys the command or the diff already shows: the card's data rows leave
    /// them out. A key only the first line names stays a row, since that line may be cut.
    pub shown: Vec<&'static str>,
}

/// The server and tool of an MCP tool, by Claude Code's naming (`mcp__SERVER__TOOL`). Its own
/// built-in tools served as `mcp__acp__…` (Bash, Edit, Write, Read) are not MCP tools to a person.
pub fn mcp_tool(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty() && server != "acp").then_some((server, tool))
}

/// A card's first line: the tool (or `mcp`), then what it acts on, on one line of at most
/// [`TITLE_COLUMNS`] columns, cut with "…" (SPEC A10: from the tool and the arguments only).
pub fn title(tool: &str, arguments: &Value) -> String {
    let line = if let Some((server, name)) = mcp_tool(tool) {
        format!("mcp: {server} · {name}")
    } else {
        let lead = readable(arguments).lead;
        if lead.is_empty() {
            tool.to_string()
        } else {
            format!("{tool}: {}", one_line(&lead))
        }
    };
    cut_to_columns(&line, TITLE_COLUMNS)
}

/// The readable form of a tool's arguments, by their shape.
pub fn readable(arguments: &Value) -> Readable {
    let Some(map) = arguments.as_object() else {
        return Readable {
            lead: json_lead(arguments),
            ..Readable::default()
        };
    };
    codex_patch(map)
        .or_else(|| command(map))
        .or_else(|| file(map))
        .or_else(|| acp_diffs(map))
        .or_else(|| acp_patch(map))
        .or_else(|| first_of(map, &["url", "path", "target", "query", "notebook_path"]))
        .or_else(|| locations(map))
        .unwrap_or_else(|| Readable {
            lead: json_lead(arguments),
            ..Readable::default()
        })
}

/// The arguments as JSON text, leaving out the agent's title of the call (SPEC A10).
fn json_lead(arguments: &Value) -> String {
    match arguments {
        Value::Object(map) => {
            let rest: Map<String, Value> = map
                .iter()
                .filter(|(key, _)| key.as_str() != "title")
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            if rest.is_empty() {
                String::new()
            } else {
                Value::Object(rest).to_string()
            }
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The first line of a text, marked "…" when more lines follow (the body shows them all).
fn one_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default();
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first.to_string()
    }
}

fn text<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    map.get(key).and_then(Value::as_str)
}

/// A command: Claude's `Bash` gives it as a string, Codex's `exec_command` as a list of words.
fn command(map: &Map<String, Value>) -> Option<Readable> {
    let command = match map.get("command")? {
        Value::String(line) => line.clone(),
        Value::Array(words) => {
            let words: Option<Vec<&str>> = words.iter().map(Value::as_str).collect();
            typed_command(&words?)
        }
        _ => return None,
    };
    Some(Readable {
        lead: command.clone(),
        command: Some(command),
        diff: None,
        // Codex's parse of the same words says nothing the command does not.
        shown: vec!["command", "parsed_cmd"],
    })
}

/// A list of words as a person would type them: `bash -lc SCRIPT` (a system shell, any `-…c`
/// flags) is just the script, since that is what a person would have typed; anything else is
/// the words quoted where a shell needs it. A shell from any other folder is shown whole: the
/// person must see that it is not the system's.
fn typed_command(words: &[&str]) -> String {
    if let [shell, flags, script] = words {
        let name = [
            "/bin/",
            "/usr/bin/",
            "/usr/local/bin/",
            "/opt/homebrew/bin/",
        ]
        .iter()
        .find_map(|folder| shell.strip_prefix(folder))
        .unwrap_or(shell);
        let is_shell = matches!(name, "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish");
        let runs_a_script = flags.len() > 1
            && flags.starts_with('-')
            && flags.ends_with('c')
            && flags[1..].chars().all(|c| c.is_ascii_alphabetic());
        if is_shell && runs_a_script {
            return (*script).to_string();
        }
    }
    shell_words::join(words)
}

/// Codex's `apply_patch`: `changes` maps each path to an add (`content`), an update
/// (`unified_diff`, `move_path`) or a delete (`content`). codex-acp 0.16 tags each change inside
/// it (`{"type": "add", "content": …}`, tests/fixtures/acp/real/); older ones wrapped it
/// (`{"add": {"content": …}}`): both read the same.
fn codex_patch(map: &Map<String, Value>) -> Option<Readable> {
    let changes = map.get("changes")?.as_object()?;
    let mut files = Vec::new();
    let mut diff = String::new();
    for (path, change) in changes {
        let (what, change) = match change.get("type").and_then(Value::as_str) {
            Some(what) => (what, change),
            None => {
                let (what, change) = change.as_object()?.iter().next()?;
                (what.as_str(), change)
            }
        };
        match what {
            "add" => {
                files.push(path.clone());
                diff.push_str(&unified_diff(path, "", text_of(change, "content")));
            }
            "delete" => {
                files.push(path.clone());
                diff.push_str(&unified_diff(path, text_of(change, "content"), ""));
            }
            "update" => {
                let to = change
                    .get("move_path")
                    .and_then(Value::as_str)
                    .unwrap_or(path);
                files.push(if to == path {
                    path.clone()
                } else {
                    format!("{path} → {to}")
                });
                let hunks = text_of(change, "unified_diff");
                if !hunks.starts_with("--- ") {
                    diff.push_str(&format!("--- {path}\n+++ {to}\n"));
                }
                diff.push_str(hunks);
                if !hunks.ends_with('\n') {
                    diff.push('\n');
                }
            }
            _ => return None,
        }
    }
    Some(Readable {
        lead: files.join(", "),
        command: None,
        diff: Some(diff).filter(|d| !d.is_empty()),
        shown: vec!["changes"],
    })
}

fn text_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// Claude's file tools: `Edit` (`old_string` → `new_string`), `MultiEdit` (`edits`), `Write`
/// (`content`, all added), `Read` and the rest (the path alone).
fn file(map: &Map<String, Value>) -> Option<Readable> {
    let path = text(map, "file_path")?;
    let mut readable = Readable {
        lead: path.to_string(),
        ..Readable::default()
    };
    if let Some(new) = text(map, "new_string") {
        let old = text(map, "old_string").unwrap_or_default();
        let (old, new) = snippet_lines(old, new);
        readable.diff = Some(unified_diff(path, &old, &new));
        readable.shown = vec!["file_path", "old_string", "new_string"];
    } else if let Some(edits) = map.get("edits").and_then(Value::as_array) {
        let mut diff = format!("--- {path}\n+++ {path}\n");
        for edit in edits {
            let (old, new) =
                snippet_lines(text_of(edit, "old_string"), text_of(edit, "new_string"));
            let hunks = hunks(&old, &new);
            diff.push_str(&hunks);
        }
        readable.diff = Some(diff);
        readable.shown = vec!["file_path", "edits"];
    } else if let Some(content) = text(map, "content") {
        readable.diff = Some(unified_diff(path, "", content));
        readable.shown = vec!["file_path", "content"];
    }
    Some(readable)
}

/// An edit's old and new text as whole lines: they are pieces of a file, so a missing last
/// newline is no change to point out ("\ No newline at end of file").
fn snippet_lines(old: &str, new: &str) -> (String, String) {
    let line = |text: &str| {
        if text.is_empty() || text.ends_with('\n') {
            text.to_string()
        } else {
            format!("{text}\n")
        }
    };
    (line(old), line(new))
}

/// The diffs of a call that sends no input of its own, as the card holds them (`diffs`:
/// `[{path, oldText, newText}]`, ACP's own diff; Gemini CLI asks so).
fn acp_diffs(map: &Map<String, Value>) -> Option<Readable> {
    let mut files = Vec::new();
    let mut diff = String::new();
    for change in map.get("diffs")?.as_array()? {
        let path = change.get("path")?.as_str()?;
        files.push(path);
        diff.push_str(&unified_diff(
            path,
            text_of(change, "oldText"),
            text_of(change, "newText"),
        ));
    }
    Some(Readable {
        lead: files.join(", "),
        command: None,
        diff: Some(diff).filter(|d| !d.is_empty()),
        shown: vec!["diffs"],
    })
}

/// The file changes of a call that sends no input of its own, as ACP v2 gives them and the
/// card holds them: `files` (the paths changed) and `patch` (its `git_patch` text, a unified
/// diff of them all).
fn acp_patch(map: &Map<String, Value>) -> Option<Readable> {
    let patch = text(map, "patch")?;
    let files: Vec<&str> = map
        .get("files")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    Some(Readable {
        lead: files.join(", "),
        command: None,
        diff: Some(patch.to_string()).filter(|d| !d.is_empty()),
        shown: vec!["files", "patch"],
    })
}

/// The paths a call that sends no input of its own touches (`locations`, as the card holds
/// them).
fn locations(map: &Map<String, Value>) -> Option<Readable> {
    let paths: Vec<&str> = map
        .get("locations")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    (!paths.is_empty()).then(|| Readable {
        lead: paths.join(", "),
        ..Readable::default()
    })
}

/// A search (`Glob`, `Grep`: `pattern` and where), or the first string of `keys` there is.
fn first_of(map: &Map<String, Value>, keys: &[&str]) -> Option<Readable> {
    if let Some(pattern) = text(map, "pattern") {
        let lead = match text(map, "path") {
            Some(path) => format!("{pattern} in {path}"),
            None => pattern.to_string(),
        };
        return Some(Readable {
            lead,
            ..Readable::default()
        });
    }
    keys.iter().find_map(|key| {
        text(map, key).map(|value| Readable {
            lead: value.to_string(),
            ..Readable::default()
        })
    })
}

/// A change from `old` to `new` as a unified diff with `path` in its header; a new file is all
/// additions, a deleted one all removals.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let text = similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(path, path)
        .to_string();
    if text.is_empty() {
        format!("{path}: no change\n")
    } else {
        text
    }
}

/// The hunks alone, for an edit inside a file whose header is already written.
fn hunks(old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_shell_running_a_script_reads_as_the_script_and_other_words_are_quoted() {
        assert_eq!(
            typed_command(&["/bin/bash", "-lc", "touch proof.txt"]),
            "touch proof.txt"
        );
        assert_eq!(typed_command(&["sh", "-c", "ls | wc -l"]), "ls | wc -l");
        assert_eq!(
            typed_command(&["/tmp/x/bash", "-c", "ls"]),
            "/tmp/x/bash -c ls",
            "a shell from elsewhere is shown whole"
        );
        assert_eq!(
            typed_command(&["rg", "-n", "fn main", "src"]),
            "rg -n 'fn main' src"
        );
        assert_eq!(
            typed_command(&["python3", "-c", "print(1)"]),
            "python3 -c 'print(1)'",
            "only a shell's script stands alone"
        );
    }

    #[test]
    fn an_mcp_tool_is_its_server_and_tool_but_claudes_own_tools_are_not() {
        assert_eq!(
            mcp_tool("mcp__github__create_issue"),
            Some(("github", "create_issue"))
        );
        assert_eq!(mcp_tool("mcp__acp__Bash"), None);
        assert_eq!(mcp_tool("mcp____x"), None);
        assert_eq!(
            title("mcp__github__create_issue", &json!({"title": "Bug"})),
            "mcp: github · create_issue"
        );
    }

    #[test]
    fn an_edit_is_a_diff_and_a_write_all_added_lines() {
        let edit = readable(&json!({
            "file_path": "src/main.rs", "old_string": "a - b\n", "new_string": "a + b\n",
            "replace_all": false
        }));
        assert_eq!(edit.lead, "src/main.rs");
        let diff = edit.diff.expect("a diff");
        assert!(diff.starts_with("--- src/main.rs\n+++ src/main.rs\n@@"));
        assert!(diff.contains("\n-a - b\n+a + b\n"));
        assert!(!edit.shown.contains(&"replace_all"), "still a data row");
        let read = readable(&json!({"file_path": "/etc/hosts", "offset": 10}));
        assert_eq!(read.lead, "/etc/hosts");
        assert!(
            read.shown.is_empty(),
            "a path only the title names stays a row"
        );
        let write = readable(&json!({"file_path": "proof.txt", "content": "one\ntwo\n"}));
        assert!(write.diff.expect("a diff").ends_with("+one\n+two\n"));
    }

    #[test]
    fn a_codex_patch_names_each_file_then_shows_each_diff() {
        let patch = readable(&json!({"changes": {
            "a.txt": {"add": {"content": "new\n"}},
            "b.txt": {"update": {"unified_diff": "@@ -1 +1 @@\n-x\n+y\n", "move_path": "c.txt"}},
            "d.txt": {"delete": {"content": "gone\n"}},
        }}));
        assert_eq!(patch.lead, "a.txt, b.txt → c.txt, d.txt");
        let diff = patch.diff.expect("a diff");
        assert!(diff.contains("+++ a.txt\n@@ -0,0 +1 @@\n+new\n"));
        assert!(diff.contains("--- b.txt\n+++ c.txt\n@@ -1 +1 @@\n-x\n+y\n"));
        assert!(diff.contains("--- d.txt\n+++ d.txt\n@@ -1 +0,0 @@\n-gone\n"));
    }

    #[test]
    fn codex_0_16s_tagged_changes_read_as_the_older_wrapped_ones() {
        let tagged = readable(&json!({"changes": {
            "a.txt": {"type": "add", "content": "new\n"},
            "b.txt": {"type": "update", "unified_diff": "@@ -1 +1 @@\n-x\n+y\n", "move_path": null},
        }}));
        let wrapped = readable(&json!({"changes": {
            "a.txt": {"add": {"content": "new\n"}},
            "b.txt": {"update": {"unified_diff": "@@ -1 +1 @@\n-x\n+y\n", "move_path": null}},
        }}));
        assert_eq!(tagged, wrapped);
        assert_eq!(tagged.lead, "a.txt, b.txt");
    }

    #[test]
    fn an_edit_of_a_piece_without_its_last_newline_is_no_newline_change() {
        let edit = readable(
            &json!({"file_path": "n.md", "old_string": "first line", "new_string": "second line"}),
        );
        let diff = edit.diff.expect("a diff");
        assert!(diff.ends_with("-first line\n+second line\n"), "{diff}");
    }

    #[test]
    fn a10_the_title_never_reads_the_agents_title_and_fits_80_columns() {
        assert_eq!(title("fetch", &json!({"title": "Trust me"})), "fetch");
        assert_eq!(
            title("fetch", &json!({"depth": 2, "title": "Trust me"})),
            "fetch: {\"depth\":2}"
        );
        let long = title("execute", &json!({"command": "漢".repeat(100)}));
        assert_eq!(unicode_width::UnicodeWidthStr::width(long.as_str()), 80);
        assert!(long.ends_with('…'));
        assert_eq!(
            title("execute", &json!({"command": "cd src\nmake all"})),
            "execute: cd src …"
        );
    }
}
