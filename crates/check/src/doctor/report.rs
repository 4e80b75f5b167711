//! What `doctor` found: a line per step, each holding or failing with a fix, as text or JSON.

use serde::Serialize;

/// How one step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Verdict {
    Holds,
    Fails,
    /// Not tried, because an earlier step failed (the line says which).
    NotTried,
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// What was looked at: "socket folder", "hello", "304 on a second read" …
    pub(crate) step: String,
    pub(crate) verdict: Verdict,
    /// What was seen, in plain words.
    pub(crate) detail: String,
    /// A command or an action that fixes a failing step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fix: Option<String>,
    /// The round trip of a step that talked to the agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) millis: Option<u64>,
}

impl Step {
    pub(crate) fn holds(step: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            step: step.into(),
            verdict: Verdict::Holds,
            detail: detail.into(),
            fix: None,
            millis: None,
        }
    }

    pub(crate) fn fails(
        step: impl Into<String>,
        detail: impl Into<String>,
        fix: Option<String>,
    ) -> Self {
        Self {
            step: step.into(),
            verdict: Verdict::Fails,
            detail: detail.into(),
            fix,
            millis: None,
        }
    }

    pub(crate) fn not_tried(step: impl Into<String>, because: impl Into<String>) -> Self {
        Self {
            step: step.into(),
            verdict: Verdict::NotTried,
            detail: format!("not tried: {}", because.into()),
            fix: None,
            millis: None,
        }
    }

    pub(crate) fn timed(mut self, millis: u64) -> Self {
        self.millis = Some(millis);
        self
    }
}

/// Everything found about one agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub(crate) agent: String,
    /// Where it was looked for (never the token).
    pub(crate) at: String,
    /// True when every step holds.
    pub ok: bool,
    pub(crate) steps: Vec<Step>,
}

impl Report {
    pub(crate) fn new(agent: String, at: String, steps: Vec<Step>) -> Self {
        let ok = steps.iter().all(|s| s.verdict == Verdict::Holds);
        Self {
            agent,
            at,
            ok,
            steps,
        }
    }

    /// The report as lines: ✓ or ✗ (· for a step not tried), the step, what was seen, and
    /// under each ✗ its fix.
    pub fn to_text(&self) -> String {
        let width = self
            .steps
            .iter()
            .map(|s| s.step.chars().count())
            .max()
            .unwrap_or(0);
        let mut text = format!("{} ({})\n", crate::out::line(&self.agent), self.at);
        let mut previous_reason: Option<&str> = None;
        for step in &self.steps {
            // A run of steps skipped for one reason says it once.
            let detail = if step.verdict == Verdict::NotTried
                && previous_reason == Some(step.detail.as_str())
            {
                "not tried: as above"
            } else {
                step.detail.as_str()
            };
            previous_reason = (step.verdict == Verdict::NotTried).then_some(step.detail.as_str());
            let mark = match step.verdict {
                Verdict::Holds => '✓',
                Verdict::Fails => '✗',
                Verdict::NotTried => '·',
            };
            let timing = step
                .millis
                .map(|ms| format!(" ({ms} ms)"))
                .unwrap_or_default();
            let pad = width - step.step.chars().count();
            // A detail may quote the agent: one cleaned line, so it cannot forge a step.
            text.push_str(&format!(
                "  {mark} {}{}  {}{timing}\n",
                step.step,
                " ".repeat(pad),
                crate::out::line(detail),
            ));
            if let Some(fix) = &step.fix {
                text.push_str(&format!("      fix: {}\n", crate::out::line(fix)));
            }
        }
        let failed = self
            .steps
            .iter()
            .filter(|s| s.verdict == Verdict::Fails)
            .count();
        if failed == 0 {
            text.push_str(&format!("All {} steps hold.\n", self.steps.len()));
        } else {
            text.push_str(&format!(
                "{failed} of {} steps fail{}.\n",
                self.steps.len(),
                if failed == 1 { "s" } else { "" }
            ));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_step_shows_its_fix_and_the_report_fails() {
        let report = Report::new(
            "agent".into(),
            "unix:/tmp/a/agent.sock".into(),
            vec![
                Step::holds("path", "absolute"),
                Step::fails(
                    "socket folder",
                    "/tmp/a has mode 0755, not 0700",
                    Some("chmod 700 /tmp/a".into()),
                ),
                Step::not_tried(
                    "hello",
                    "the socket is not private (docs/SPEC.md § The socket)",
                ),
                Step::not_tried(
                    "snapshot",
                    "the socket is not private (docs/SPEC.md § The socket)",
                ),
            ],
        );
        assert!(!report.ok);
        let text = report.to_text();
        assert!(
            text.contains("✗ socket folder  /tmp/a has mode 0755"),
            "{text}"
        );
        assert!(text.contains("      fix: chmod 700 /tmp/a"), "{text}");
        assert!(
            text.contains("· hello          not tried: the socket is not private"),
            "{text}"
        );
        assert!(
            text.contains("· snapshot       not tried: as above"),
            "{text}"
        );
        assert!(text.ends_with("1 of 4 steps fails.\n"), "{text}");
    }
}
