//! What a check found, in three forms: a table for a person, JSON and JUnit XML for CI.

use serde::Serialize;

use super::{Finding, Probe, Verdict};

/// Every finding of one run against one agent.
#[derive(Debug, Clone)]
pub struct Report {
    pub(crate) agent: String,
    pub(crate) version: u32,
    pub(crate) allow_writes: bool,
    pub(crate) findings: Vec<Finding>,
    /// Set for a check of an ACP agent (`check --acp`), whose header and hints differ.
    pub(crate) acp: Option<AcpRun>,
}

/// What a check of an ACP agent adds to its report.
#[derive(Debug, Clone)]
pub(crate) struct AcpRun {
    /// Whether the turn rules ran (`--prompt`).
    pub(crate) prompted: bool,
    /// Where the agent's stderr went.
    pub(crate) log: String,
}

/// Counts of each verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub(crate) passed: usize,
    pub failed: usize,
    pub(crate) skipped: usize,
}

impl Report {
    pub(crate) fn new(probe: &Probe, findings: Vec<Finding>) -> Self {
        Self {
            agent: probe.describe(),
            version: probe.version(),
            allow_writes: probe.allow_writes(),
            findings,
            acp: None,
        }
    }

    /// The report of `check --acp`: `version` is the ACP version the agent answered.
    pub(crate) fn acp(
        agent: &str,
        version: u16,
        prompted: bool,
        log: &std::path::Path,
        findings: Vec<Finding>,
    ) -> Self {
        Self {
            agent: agent.to_string(),
            version: u32::from(version),
            allow_writes: false,
            findings,
            acp: Some(AcpRun {
                prompted,
                log: log.display().to_string(),
            }),
        }
    }

    pub fn summary(&self) -> Summary {
        let mut summary = Summary::default();
        for finding in &self.findings {
            match finding.verdict {
                Verdict::Pass => summary.passed += 1,
                Verdict::Fail(_) => summary.failed += 1,
                Verdict::Skipped(_) => summary.skipped += 1,
            }
        }
        summary
    }

    /// The rule ids with at least one failed finding, each once, in report order.
    pub fn failed_rules(&self) -> Vec<&'static str> {
        let mut rules: Vec<&'static str> = Vec::new();
        for finding in self.findings.iter().filter(|f| f.failed()) {
            if !rules.contains(&finding.rule) {
                rules.push(finding.rule);
            }
        }
        rules
    }

    /// One line per finding (rule, result, what; then why for a fail or a skip) and a summary.
    pub fn table(&self) -> String {
        let mut out = match &self.acp {
            None => format!(
                "collie-phone check against {} (wire v{}{})\n\n",
                crate::out::line(&self.agent),
                self.version,
                if self.allow_writes {
                    ", writes allowed"
                } else {
                    ", read-only"
                }
            ),
            Some(run) => format!(
                "collie-phone check --acp against {} (ACP v{}; its stderr is in {})\n\n",
                crate::out::line(&self.agent),
                self.version,
                crate::out::line(&run.log)
            ),
        };
        let width = self
            .findings
            .iter()
            .map(|finding| finding.rule.len())
            .chain(["rule".len()])
            .max()
            .unwrap_or(4);
        out.push_str(&format!("{:<width$}  {:<8} what\n", "rule", "result"));
        for finding in &self.findings {
            let (result, why) = match &finding.verdict {
                Verdict::Pass => ("pass", None),
                Verdict::Fail(why) => ("FAIL", Some(why)),
                Verdict::Skipped(why) => ("skipped", Some(why)),
            };
            // A finding quotes the agent (a reply body, a code): one cleaned line each, so
            // it can neither steer the terminal nor forge a row (SPEC L1).
            out.push_str(&format!(
                "{:<width$}  {result:<8} {}",
                finding.rule,
                crate::out::line(&finding.what)
            ));
            if let Some(why) = why {
                out.push_str(&format!(": {}", crate::out::line(why)));
            }
            out.push('\n');
        }
        let summary = self.summary();
        out.push_str(&format!(
            "\n{} passed, {} failed, {} skipped",
            summary.passed, summary.failed, summary.skipped
        ));
        if summary.failed > 0 {
            out.push_str(&format!(
                ". Failed rules: {}. Each failure says what was sent, what came back and what docs/SPEC.md expects.",
                self.failed_rules().join(", ")
            ));
        } else if let Some(run) = &self.acp {
            if !run.prompted {
                out.push_str(". The rules of a turn were not run: add --prompt TEXT (the agent's model answers it).");
            }
        } else if !self.allow_writes {
            out.push_str(". Checks that change the agent's state were skipped: add --allow-writes to run them.");
        }
        out.push('\n');
        out
    }

    /// The report as one JSON object, stable for CI:
    /// `{"agent", "version", "allowWrites", "summary": {passed, failed, skipped}, "failedRules",
    /// "findings": [{"rule", "what", "verdict": "pass"|"fail"|"skipped", "why"?}]}`.
    pub fn json(&self) -> serde_json::Value {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Line<'a> {
            rule: &'a str,
            what: &'a str,
            #[serde(flatten)]
            verdict: &'a Verdict,
        }
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Whole<'a> {
            agent: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            protocol: Option<&'a str>,
            version: u32,
            #[serde(skip_serializing_if = "Option::is_none")]
            allow_writes: Option<bool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            prompted: Option<bool>,
            summary: Summary,
            failed_rules: Vec<&'a str>,
            findings: Vec<Line<'a>>,
        }
        let whole = Whole {
            agent: &self.agent,
            protocol: self.acp.as_ref().map(|_| "acp"),
            version: self.version,
            allow_writes: self.acp.is_none().then_some(self.allow_writes),
            prompted: self.acp.as_ref().map(|run| run.prompted),
            summary: self.summary(),
            failed_rules: self.failed_rules(),
            findings: self
                .findings
                .iter()
                .map(|finding| Line {
                    rule: finding.rule,
                    what: &finding.what,
                    verdict: &finding.verdict,
                })
                .collect(),
        };
        // Cleaned value by value: JSON escapes alone would let `jq -r` write ESC again.
        crate::out::json(serde_json::to_value(&whole).unwrap_or_else(
            |error| serde_json::json!({"error": format!("the report did not encode: {error}")}),
        ))
    }

    /// JUnit XML: one testsuite, one testcase per finding (classname the rule id), with a
    /// `<failure>` or `<skipped>` element carrying the why.
    pub fn junit(&self) -> String {
        let summary = self.summary();
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str(&format!(
            "<testsuites name=\"collie-phone check\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
            self.findings.len(),
            summary.failed,
            summary.skipped
        ));
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
            xml_escape(&format!("collie-phone check {}", self.agent)),
            self.findings.len(),
            summary.failed,
            summary.skipped
        ));
        for finding in &self.findings {
            let open = format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml_escape(finding.rule),
                xml_escape(&format!("{} {}", finding.rule, finding.what))
            );
            match &finding.verdict {
                Verdict::Pass => out.push_str(&format!("{open}/>\n")),
                Verdict::Fail(why) => out.push_str(&format!(
                    "{open}>\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                    xml_escape(why),
                    xml_escape(why)
                )),
                Verdict::Skipped(why) => out.push_str(&format!(
                    "{open}>\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                    xml_escape(why)
                )),
            }
        }
        out.push_str("  </testsuite>\n</testsuites>\n");
        out
    }
}

/// Escapes text for an XML attribute or element, and drops the control characters XML 1.0
/// cannot carry at all (an agent's reply quoted in a finding may hold any byte).
fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Cleaned and scrubbed first, like every other output (`crate::out`); what is left to do
    // here is XML's own escaping.
    for c in crate::out::text(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report {
            agent: "unix:/tmp/a.sock".into(),
            version: 1,
            allow_writes: false,
            findings: vec![
                Finding::pass("W2", "paths outside /session/v1 are not routes"),
                Finding::fail(
                    "W4",
                    "a body over 64 KiB",
                    "sent <65537> bytes & got \"400\"\u{1b}",
                ),
                Finding::skipped("T3", "no token", "only over TCP"),
            ],
            acp: None,
        }
    }

    #[test]
    fn summary_and_failed_rules() {
        let report = report();
        assert_eq!(
            report.summary(),
            Summary {
                passed: 1,
                failed: 1,
                skipped: 1
            }
        );
        assert_eq!(report.failed_rules(), vec!["W4"]);
        assert!(
            report
                .table()
                .contains("\nW4    FAIL     a body over 64 KiB: sent")
        );
    }

    #[test]
    fn json_names_each_verdict() {
        let json = report().json();
        assert_eq!(json["findings"][0]["verdict"], "pass");
        assert_eq!(json["findings"][1]["verdict"], "fail");
        assert!(json["findings"][1]["why"].as_str().is_some());
        assert_eq!(json["findings"][2]["verdict"], "skipped");
        assert_eq!(json["summary"]["failed"], 1);
    }

    #[test]
    fn junit_escapes_what_the_agent_sent() {
        let xml = report().junit();
        // The control is removed, as on every other way out (SPEC L1), then XML escapes.
        assert!(xml.contains("sent &lt;65537&gt; bytes &amp; got &quot;400&quot;\""));
        assert!(!xml.contains('\u{1b}'));
        assert_eq!(xml.matches("<testcase ").count(), 3);
    }
}
