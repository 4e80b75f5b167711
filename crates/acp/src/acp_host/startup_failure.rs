//! What a person can do when an agent names why it could not start a session.
//!
//! Claude Code's adapter answers `session/new` with `-32603` and the reason in
//! `data.startupFailureReason`; its message alone points at a flag the person never passed.
//! The reasons and what makes them are read from today's adapter and its Claude Code
//! (`tests/fixtures/acp/real/README.md`, "Refusing root").

use super::text::clean_line;

/// One sentence for `reason`, or none for a reason we have no better words for than the
/// agent's. `is_sandbox` is the host's `IS_SANDBOX`, which the agent inherits.
pub(crate) fn advice(reason: &str, is_sandbox: Option<&str>) -> Option<String> {
    match reason {
        // The adapter asks for the bypass mode as root whenever IS_SANDBOX is set at all
        // (`!!process.env.IS_SANDBOX`); Claude Code takes it as root only when it is "1".
        "bypass_root" => Some(match is_sandbox {
            Some(value) if value != "1" => format!(
                "As root, Claude Code takes IS_SANDBOX=1 only, and here it is “{}”: set IS_SANDBOX=1 if this machine is a sandbox, or unset it",
                clean_line(value).chars().take(40).collect::<String>()
            ),
            _ => "As root, Claude Code starts only where IS_SANDBOX=1 says the machine is a sandbox: run the host as another user, or set IS_SANDBOX=1 if this machine is one".to_string(),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusing_root_names_the_value_that_made_it() {
        let yes = advice("bypass_root", Some("yes")).expect("known");
        assert!(yes.contains("here it is “yes”"), "{yes}");
        let unset = advice("bypass_root", None).expect("known");
        assert!(unset.contains("run the host as another user"), "{unset}");
        let hostile = advice("bypass_root", Some("\u{1b}[2J1 2")).expect("known");
        assert!(!hostile.contains('\u{1b}'), "cleaned (SPEC L1): {hostile}");
        assert_eq!(advice("cli_version_too_old", Some("1")), None);
    }
}
