//! The agent's commands in the pane's box (docs/KEYS.md, docs/WIRE.md § 5.14): `/` at the start
//! of the box offers every command the agent takes, with what it does, narrowed as the name is
//! typed; the arrows light one, Tab completes it to `/name `, Esc closes the list and keeps what
//! is typed, and Enter sends the box as it always does.

use crate::app::phone::Phone;
use crate::wire::AgentCommand;

/// The list's state in one pane's box.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CommandList {
    /// The lit row, among the commands that match.
    pub(crate) selected: usize,
    /// Esc closed the list; it opens again once the box no longer starts with `/`.
    pub(crate) closed: bool,
}

/// The name typed so far after `/`, while the box holds only that: one line, no space yet.
pub(crate) fn typed_name(text: &str) -> Option<&str> {
    let name = text.strip_prefix('/')?;
    (!name.contains(char::is_whitespace)).then_some(name)
}

/// The commands that match what is typed: those whose name starts with it first, then those
/// whose name or description holds it, case aside.
pub(crate) fn matching<'a>(commands: &'a [AgentCommand], typed: &str) -> Vec<&'a AgentCommand> {
    let typed = typed.to_lowercase();
    let starts = commands
        .iter()
        .filter(|c| c.name.to_lowercase().starts_with(&typed));
    let holds = commands.iter().filter(|c| {
        !c.name.to_lowercase().starts_with(&typed)
            && (c.name.to_lowercase().contains(&typed)
                || c.description
                    .as_deref()
                    .is_some_and(|d| d.to_lowercase().contains(&typed)))
    });
    starts.chain(holds).collect()
}

/// The commands the list offers now for a pane's box, in order; empty when it shows none.
pub(crate) fn offered(
    phone: &Phone,
    agent: &str,
    pane: &str,
    list: &CommandList,
) -> Vec<AgentCommand> {
    if list.closed || !phone.can(agent).slash_commands {
        return Vec::new();
    }
    let Some(text) = phone.draft(agent, pane).map(|d| d.text()) else {
        return Vec::new();
    };
    let Some(typed) = typed_name(&text) else {
        return Vec::new();
    };
    phone
        .agents()
        .pane(agent, pane)
        .map(|p| {
            matching(&p.pane.commands, typed)
                .into_iter()
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(name: &str, description: &str) -> AgentCommand {
        AgentCommand {
            name: name.into(),
            description: Some(description.into()),
            hint: None,
        }
    }

    #[test]
    fn the_list_narrows_by_the_start_of_the_name_then_by_what_it_holds() {
        let commands = [
            command("test", "Run the tests"),
            command("review", "Review the last change"),
            command("tool", "Run one command"),
        ];
        let names = |typed| -> Vec<&str> {
            matching(&commands, typed)
                .iter()
                .map(|c| c.name.as_str())
                .collect()
        };
        assert_eq!(names(""), ["test", "review", "tool"]);
        assert_eq!(names("t"), ["test", "tool", "review"]);
        assert_eq!(names("run"), ["test", "tool"]);
        assert_eq!(names("REV"), ["review"]);
        assert_eq!(typed_name("/te"), Some("te"));
        assert_eq!(typed_name("/test now"), None);
        assert_eq!(typed_name("hello /test"), None);
    }
}
