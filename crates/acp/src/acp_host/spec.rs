//! Which ACP agents the host may start: `--acp NAME=COMMAND` or `[acp.NAME] command = [...]`.
//! The command is split like a shell line and run directly, never through a shell.

use std::path::{Path, PathBuf};

/// One agent the host can start: its name on the phone and the command that runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcpSpec {
    pub name: String,
    /// The program, then its arguments.
    pub command: Vec<String>,
    /// The mode its new sessions start in, when the person chose one (`--acp-mode NAME=MODE`,
    /// `mode` under `[acp.NAME]`); else the one that asks most before acting.
    pub mode: Option<String>,
    /// The ACP version the host offers it (`--acp-protocol NAME=2`, `protocol = 2` under
    /// `[acp.NAME]`): v1 unless the person asks for v2, which is a draft (docs/ACP.md, "ACP v1
    /// and v2"). Offered 2, an agent may answer 1, and then it runs on the v1 path.
    pub protocol: Protocol,
}

/// The ACP version the host offers an agent at `initialize`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Protocol {
    /// ACP v1, the stable protocol: offered unless the person asks for more.
    #[default]
    V1,
    /// ACP v2, the draft (the crate's `unstable_protocol_v2`): offered where asked for.
    V2,
}

impl Protocol {
    /// `1` or `2`, as `--acp-protocol` and `protocol = …` give it.
    pub fn from_number(number: i64) -> Result<Self, String> {
        match number {
            1 => Ok(Self::V1),
            2 => Ok(Self::V2),
            other => Err(format!(
                "the ACP protocol is 1 or 2 (the draft v2); got {other}"
            )),
        }
    }
}

impl AcpSpec {
    /// `NAME=COMMAND`, as `--acp` takes it: `claude=npx -y @zed-industries/claude-code-acp`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (name, command) = text.split_once('=').ok_or_else(|| {
            format!("--acp takes NAME=COMMAND, e.g. claude=\"claude-code-acp\"; got {text:?}")
        })?;
        let command = shell_words::split(command)
            .map_err(|e| format!("the command of --acp {name} cannot be read: {e}"))?;
        Self::new(name, command)
    }

    /// A checked spec: a short plain name and a command with a program.
    pub fn new(name: &str, command: Vec<String>) -> Result<Self, String> {
        let name = name.trim();
        let plain = !name.is_empty()
            && name.len() <= 32
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
        if !plain {
            return Err(format!(
                "an ACP agent's name is 1 to 32 letters, digits, '-', '_' or '.'; got {name:?}"
            ));
        }
        if command.first().is_none_or(|p| p.trim().is_empty()) {
            return Err(format!("the ACP agent {name} has an empty command"));
        }
        Ok(Self {
            name: name.to_string(),
            command,
            mode: None,
            protocol: Protocol::V1,
        })
    }

    /// The program to run: a path as given, or the first match on PATH. Looked up here, so a
    /// missing program is said in plain words rather than as an OS error.
    pub(crate) fn resolve(&self) -> Result<PathBuf, String> {
        let program = self.command.first().map(String::as_str).unwrap_or_default();
        if program.contains('/') {
            let path = PathBuf::from(program);
            return if is_executable(&path) {
                Ok(path)
            } else {
                Err(format!("{program} does not exist or cannot be run"))
            };
        }
        std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|dir| dir.join(program))
            .find(|path| is_executable(path))
            .ok_or_else(|| format!("{program} is not on PATH"))
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_split_like_a_shell_line_never_run_by_one() {
        let spec =
            AcpSpec::parse(r#"claude=npx -y "@zed-industries/claude-code-acp" --flag='a b'"#)
                .expect("parses");
        assert_eq!(spec.name, "claude");
        assert_eq!(
            spec.command,
            ["npx", "-y", "@zed-industries/claude-code-acp", "--flag=a b"]
        );
        let spec = AcpSpec::parse("x=echo $(rm -rf /); ls").expect("parses");
        assert_eq!(spec.command, ["echo", "$(rm", "-rf", "/);", "ls"]);
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        assert!(
            AcpSpec::parse("claude")
                .expect_err("refused")
                .contains("NAME=COMMAND")
        );
        assert!(AcpSpec::parse("=ls").expect_err("refused").contains("name"));
        assert!(
            AcpSpec::parse("a b=ls")
                .expect_err("refused")
                .contains("name")
        );
        assert!(
            AcpSpec::parse("x=")
                .expect_err("refused")
                .contains("empty command")
        );
        assert!(
            AcpSpec::parse("x=\"unclosed")
                .expect_err("refused")
                .contains("cannot be read")
        );
    }

    #[test]
    fn the_protocol_is_1_or_2() {
        assert_eq!(Protocol::from_number(1), Ok(Protocol::V1));
        assert_eq!(Protocol::from_number(2), Ok(Protocol::V2));
        assert!(
            Protocol::from_number(3)
                .expect_err("refused")
                .contains("1 or 2")
        );
        assert_eq!(
            AcpSpec::parse("x=ls").expect("parses").protocol,
            Protocol::V1
        );
    }

    #[test]
    fn a_missing_program_is_named() {
        let spec = AcpSpec::parse("x=no-such-program-here-9").expect("parses");
        assert_eq!(
            spec.resolve().expect_err("refused"),
            "no-such-program-here-9 is not on PATH"
        );
        let spec = AcpSpec::parse("x=/no/such/file").expect("parses");
        assert!(
            spec.resolve()
                .expect_err("refused")
                .contains("does not exist")
        );
        let spec = AcpSpec::parse("x=sh").expect("parses");
        assert!(spec.resolve().is_ok());
    }
}
