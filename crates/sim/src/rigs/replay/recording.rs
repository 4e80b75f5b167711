//! Reading a recording: the header line, then every exchange of the chosen agent that got a
//! reply. A line that does not parse (a torn last line, say) is skipped and counted.

use std::path::Path;

use anyhow::{Context, bail};

use crate::wire::recording::{
    AgentKind, FORMAT_VERSION, RecordHeader, RecordLine, RecordedExchange,
};

/// One agent's part of a recording.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The agent whose replies are served.
    pub agent: String,
    /// Its exchanges that got a reply, in the order they were written.
    pub exchanges: Vec<RecordedExchange>,
    /// Lines that did not parse.
    pub skipped: usize,
}

impl Recording {
    /// Reads `path`; `agent` picks one agent of a recording that holds several.
    pub fn load(path: &Path, agent: Option<&str>) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("could not read the recording {}", path.display()))?;
        Self::parse(&text, agent).with_context(|| format!("could not play back {}", path.display()))
    }

    pub(crate) fn parse(text: &str, agent: Option<&str>) -> anyhow::Result<Self> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let Some(header) = lines.next().and_then(|(_, l)| RecordLine::header(l)) else {
            bail!(
                "it is not a collie-phone recording: its first line is not the header that --record writes"
            );
        };
        if header.version > FORMAT_VERSION {
            bail!(
                "it was written by collie-phone {} in recording format v{}, and this collie-phone reads up to v{FORMAT_VERSION}; update collie-phone",
                header.collie_phone,
                header.version
            );
        }
        let agent = pick_agent(&header, agent)?;
        let mut exchanges = Vec::new();
        let mut skipped = 0;
        for (number, line) in lines {
            match serde_json::from_str::<RecordLine>(line) {
                Ok(RecordLine::Exchange(exchange)) => {
                    if exchange.agent == agent && exchange.status.is_some() {
                        exchanges.push(exchange);
                    }
                }
                Ok(RecordLine::Header(_)) => {
                    tracing::warn!(
                        line = number + 1,
                        "a second header line in the recording; skipped"
                    );
                    skipped += 1;
                }
                Err(error) => {
                    tracing::warn!(line = number + 1, %error, "a line of the recording does not parse; skipped");
                    skipped += 1;
                }
            }
        }
        Ok(Self {
            agent,
            exchanges,
            skipped,
        })
    }

    /// How long the recording lasts, in ms from its start to its last request.
    pub fn length_ms(&self) -> u64 {
        self.exchanges
            .iter()
            .map(|e| e.since_start_ms)
            .max()
            .unwrap_or(0)
    }
}

/// The Collie agent to serve: the one named, or the only one. A DSH bridge is recorded to be
/// read, not served (docs/RECORDING.md, "DSH bridges").
fn pick_agent(header: &RecordHeader, wanted: Option<&str>) -> anyhow::Result<String> {
    let is_bridge = |name: &str| {
        header
            .agents
            .iter()
            .any(|a| a.name == name && a.kind == AgentKind::DshBridge)
    };
    let names: Vec<&str> = header
        .agents
        .iter()
        .filter(|a| a.kind != AgentKind::DshBridge)
        .map(|a| a.name.as_str())
        .collect();
    match (wanted, names.as_slice()) {
        (Some(wanted), _) if is_bridge(wanted) => bail!(
            "{wanted} is a DSH bridge: replay serves Collie agents only; its exchanges are in the file to read"
        ),
        (_, []) => bail!("the recording names no Collie agent, so it has nothing to serve"),
        (Some(wanted), _) if names.contains(&wanted) => Ok(wanted.to_string()),
        (Some(wanted), _) => bail!(
            "the recording has no agent called {wanted}; its agents are {}",
            names.join(", ")
        ),
        (None, [only]) => Ok((*only).to_string()),
        (None, _) => bail!(
            "the recording holds {} agents ({}); say which to serve with --agent NAME",
            names.len(),
            names.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"type":"header","format":"collie-phone-recording","version":1,"colliePhone":"0.1.0","started":"2026-01-01T00:00:00Z","agents":[{"name":"a","kind":"socket","address":"unix:/x/a.sock"},{"name":"b","kind":"url","address":"https://b.example"}]}"#;
    const HELLO: &str = r#"{"type":"exchange","sinceStartMs":3,"at":"2026-01-01T00:00:00Z","agent":"a","method":"GET","path":"/session/v1/hello","status":200,"replyBody":"{}","elapsedMs":1}"#;

    #[test]
    fn reads_one_agent_and_skips_torn_lines() {
        let text = format!("{HEADER}\n{HELLO}\n{{\"type\":\"exch");
        let recording = Recording::parse(&text, Some("a")).expect("parses");
        assert_eq!(recording.exchanges.len(), 1);
        assert_eq!(recording.skipped, 1);
        assert_eq!(recording.length_ms(), 3);
    }

    #[test]
    fn a_bridge_is_read_not_served_and_the_one_collie_agent_is_picked() {
        let header = r#"{"type":"header","format":"collie-phone-recording","version":1,"colliePhone":"0.1.0","started":"2026-01-01T00:00:00Z","agents":[{"name":"a","kind":"socket","address":"unix:/x/a.sock"},{"name":"desk","kind":"dsh-bridge","address":"http://127.0.0.1:7/"}]}"#;
        let text = format!("{header}\n{HELLO}\n");
        let refused = Recording::parse(&text, Some("desk")).expect_err("a bridge");
        assert!(
            format!("{refused:#}")
                .contains("desk is a DSH bridge: replay serves Collie agents only"),
            "{refused:#}"
        );
        let served = Recording::parse(&text, None).expect("the one Collie agent");
        assert_eq!(served.agent, "a");
    }

    #[test]
    fn several_agents_need_a_name() {
        let error = Recording::parse(HEADER, None).expect_err("two agents");
        assert!(error.to_string().contains("--agent NAME"), "{error}");
        let error = Recording::parse(HEADER, Some("c")).expect_err("no c");
        assert!(error.to_string().contains("a, b"), "{error}");
    }

    #[test]
    fn other_files_are_refused_plainly() {
        let error = Recording::parse("{\"hello\":1}\n", None).expect_err("not ours");
        assert!(
            error.to_string().contains("not a collie-phone recording"),
            "{error}"
        );
        let newer = HEADER.replace("\"version\":1", "\"version\":9");
        let error = Recording::parse(&newer, Some("a")).expect_err("newer");
        assert!(error.to_string().contains("update collie-phone"), "{error}");
    }
}
