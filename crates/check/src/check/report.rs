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
    /// Each rule's tier, by its id (docs/SPEC.md, "ACP agents (P)", its tiers).
    pub(crate) tiers: Vec<(&'static str, Tier)>,
}

/// How much a rule of `check --acp` weighs in its verdict, the four tiers of the official ACP
/// conformance kit (acp-tck) as docs/SPEC.md words them ("ACP agents (P)"): a MANDATORY
/// rule must pass, and one that did not run is not a pass; a CAPABILITY rule runs only where the
/// agent offered what it judges, and then must pass; an ADVISORY rule (a SHOULD) is reported but
/// never fails the run; an INFORMATIONAL one only records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub(crate) enum Tier {
    Mandatory,
    Capability,
    Advisory,
    Informational,
}

impl Tier {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tier::Mandatory => "MANDATORY",
            Tier::Capability => "CAPABILITY",
            Tier::Advisory => "ADVISORY",
            Tier::Informational => "INFORMATIONAL",
        }
    }

    /// Whether a finding of this tier keeps the run from conforming.
    fn blocks(self, verdict: &Verdict) -> bool {
        matches!(
            (self, verdict),
            (Tier::Mandatory, Verdict::Fail(_) | Verdict::Skipped(_))
                | (Tier::Capability, Verdict::Fail(_))
        )
    }
}

/// The verdict of a `check --acp` run: conformant, or the rules that keep it from being so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Conformance {
    pub conformant: bool,
    /// MANDATORY and CAPABILITY rules that failed.
    pub failed: Vec<&'static str>,
    /// MANDATORY rules that did not run.
    pub not_run: Vec<&'static str>,
    /// ADVISORY rules that failed, which do not count against the run.
    pub advisory_failed: Vec<&'static str>,
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
        tiers: Vec<(&'static str, Tier)>,
    ) -> Self {
        Self {
            agent: agent.to_string(),
            version: u32::from(version),
            allow_writes: false,
            findings,
            acp: Some(AcpRun {
                prompted,
                log: log.display().to_string(),
                tiers,
            }),
        }
    }

    /// The tier of a rule of `check --acp`; `None` for the wire's check, which has none.
    fn tier(&self, rule: &str) -> Option<Tier> {
        self.acp
            .as_ref()?
            .tiers
            .iter()
            .find(|(id, _)| *id == rule)
            .map(|(_, tier)| *tier)
    }

    /// The verdict of a `check --acp` run (`None` for the wire's check): no MANDATORY or
    /// CAPABILITY rule failed and every MANDATORY rule ran.
    pub fn conformance(&self) -> Option<Conformance> {
        self.acp.as_ref()?;
        let mut verdict = Conformance {
            conformant: true,
            failed: Vec::new(),
            not_run: Vec::new(),
            advisory_failed: Vec::new(),
        };
        for finding in &self.findings {
            let tier = self.tier(finding.rule).unwrap_or(Tier::Mandatory);
            if tier.blocks(&finding.verdict) {
                verdict.conformant = false;
                let list = if finding.failed() {
                    &mut verdict.failed
                } else {
                    &mut verdict.not_run
                };
                if !list.contains(&finding.rule) {
                    list.push(finding.rule);
                }
            } else if finding.failed()
                && tier == Tier::Advisory
                && !verdict.advisory_failed.contains(&finding.rule)
            {
                verdict.advisory_failed.push(finding.rule);
            }
        }
        Some(verdict)
    }

    /// Whether the run passed, for its exit code: for `check --acp` its verdict, else no
    /// finding failed.
    pub fn passed(&self) -> bool {
        match self.conformance() {
            Some(verdict) => verdict.conformant,
            None => self.summary().failed == 0,
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
        let tiered = self.acp.is_some();
        if tiered {
            out.push_str(&format!(
                "{:<width$}  {:<13} {:<8} what\n",
                "rule", "tier", "result"
            ));
        } else {
            out.push_str(&format!("{:<width$}  {:<8} what\n", "rule", "result"));
        }
        for finding in &self.findings {
            let (result, why) = match &finding.verdict {
                Verdict::Pass => ("pass", None),
                Verdict::Fail(why) => ("FAIL", Some(why)),
                Verdict::Skipped(why) => ("skipped", Some(why)),
            };
            let tier = match self.tier(finding.rule) {
                Some(tier) => format!("{:<13} ", tier.name()),
                None => String::new(),
            };
            // A finding quotes the agent (a reply body, a code): one cleaned line each, so
            // it can neither steer the terminal nor forge a row (SPEC L1).
            out.push_str(&format!(
                "{:<width$}  {tier}{result:<8} {}",
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
        if let Some(verdict) = self.conformance() {
            out.push_str(&verdict_line(&verdict));
        }
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
            #[serde(skip_serializing_if = "Option::is_none")]
            tier: Option<Tier>,
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
            #[serde(skip_serializing_if = "Option::is_none")]
            conformance: Option<Conformance>,
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
            conformance: self.conformance(),
            failed_rules: self.failed_rules(),
            findings: self
                .findings
                .iter()
                .map(|finding| Line {
                    rule: finding.rule,
                    tier: self.tier(finding.rule),
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

    /// Whether a finding counts against the run: for `check --acp` as its tier says (a
    /// MANDATORY rule failed or not run, a CAPABILITY rule failed), else any failure.
    fn counts_against(&self, finding: &Finding) -> bool {
        match self.tier(finding.rule) {
            Some(tier) => tier.blocks(&finding.verdict),
            None => finding.failed(),
        }
    }

    /// JUnit XML: one testsuite, one testcase per finding (classname the rule id), with a
    /// `<failure>` or `<skipped>` element carrying the why. For `check --acp` each testcase
    /// carries its tier as a property, and its verdict as the tiers give it: a MANDATORY rule
    /// not run is a failure, an ADVISORY or INFORMATIONAL rule not met is its system-out.
    pub fn junit(&self) -> String {
        let failures = self
            .findings
            .iter()
            .filter(|f| self.counts_against(f))
            .count();
        let skipped = self
            .findings
            .iter()
            .filter(|f| matches!(f.verdict, Verdict::Skipped(_)) && !self.counts_against(f))
            .count();
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str(&format!(
            "<testsuites name=\"collie-phone check\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">\n",
            self.findings.len(),
        ));
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n",
            xml_escape(&format!("collie-phone check {}", self.agent)),
            self.findings.len(),
        ));
        for finding in &self.findings {
            let open = format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml_escape(finding.rule),
                xml_escape(&format!("{} {}", finding.rule, finding.what))
            );
            let tier = self.tier(finding.rule);
            let properties = tier
                .map(|tier| {
                    format!(
                        "      <properties><property name=\"tier\" value=\"{}\"/></properties>\n",
                        tier.name()
                    )
                })
                .unwrap_or_default();
            let counts = self.counts_against(finding);
            let inner = match &finding.verdict {
                Verdict::Pass => String::new(),
                Verdict::Fail(why) if counts => format!(
                    "      <failure message=\"{}\">{}</failure>\n",
                    xml_escape(why),
                    xml_escape(why)
                ),
                Verdict::Fail(why) => format!(
                    "      <system-out>{} rule not met, which does not fail the run: {}</system-out>\n",
                    tier.map(Tier::name).unwrap_or_default(),
                    xml_escape(why)
                ),
                Verdict::Skipped(why) if counts => {
                    let why = format!("a MANDATORY rule not run is not a pass: {why}");
                    format!(
                        "      <failure message=\"{}\">{}</failure>\n",
                        xml_escape(&why),
                        xml_escape(&why)
                    )
                }
                Verdict::Skipped(why) => {
                    format!("      <skipped message=\"{}\"/>\n", xml_escape(why))
                }
            };
            if properties.is_empty() && inner.is_empty() {
                out.push_str(&format!("{open}/>\n"));
            } else {
                out.push_str(&format!("{open}>\n{properties}{inner}    </testcase>\n"));
            }
        }
        out.push_str("  </testsuite>\n</testsuites>\n");
        out
    }
}

/// The verdict's line under the table of `check --acp`.
fn verdict_line(verdict: &Conformance) -> String {
    let mut line = if verdict.conformant {
        "Verdict: CONFORMANT.".to_string()
    } else {
        let mut line = "Verdict: NOT CONFORMANT.".to_string();
        if !verdict.failed.is_empty() {
            line.push_str(&format!(" Failed: {}.", verdict.failed.join(", ")));
        }
        if !verdict.not_run.is_empty() {
            line.push_str(&format!(
                " MANDATORY rules not run, which is not a pass: {}.",
                verdict.not_run.join(", ")
            ));
        }
        line
    };
    if !verdict.advisory_failed.is_empty() {
        line.push_str(&format!(
            " ADVISORY rules not met, which do not count against it: {}.",
            verdict.advisory_failed.join(", ")
        ));
    }
    line.push('\n');
    line
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

    #[test]
    fn acp_tiers_decide_the_verdict_and_ride_in_json_and_junit() {
        let findings = vec![
            Finding::pass("P1", "stdout"),
            Finding::fail("P11", "stdin", "it still ran"),
            Finding::skipped("P6", "unknown", "not offered"),
        ];
        let tiers = vec![
            ("P1", Tier::Mandatory),
            ("P11", Tier::Advisory),
            ("P6", Tier::Capability),
        ];
        let log = std::path::Path::new("/tmp/agent.log");
        let acp = Report::acp("agent", 1, true, log, findings.clone(), tiers.clone());
        // An advisory failure and a capability not offered leave it conformant.
        let verdict = acp.conformance().expect("an ACP run");
        assert!(verdict.conformant, "{verdict:?}");
        assert_eq!(verdict.advisory_failed, ["P11"]);
        assert!(acp.passed());
        assert!(
            acp.table().contains("Verdict: CONFORMANT."),
            "{}",
            acp.table()
        );
        let json = acp.json();
        assert_eq!(json["findings"][1]["tier"], "ADVISORY");
        assert_eq!(json["conformance"]["conformant"], true);
        let xml = acp.junit();
        assert!(xml.contains("failures=\"0\""), "{xml}");
        assert!(
            xml.contains("<property name=\"tier\" value=\"ADVISORY\"/>"),
            "{xml}"
        );
        assert!(xml.contains("<system-out>ADVISORY rule not met"), "{xml}");

        // A mandatory rule not run is not a pass; a capability offered and failed fails.
        let mut findings = findings;
        findings[0] = Finding::skipped("P1", "stdout", "not run");
        findings[2] = Finding::fail("P6", "unknown", "answered -32603");
        let acp = Report::acp("agent", 1, true, log, findings, tiers);
        let verdict = acp.conformance().expect("an ACP run");
        assert!(!verdict.conformant);
        assert_eq!(verdict.failed, ["P6"]);
        assert_eq!(verdict.not_run, ["P1"]);
        assert!(!acp.passed());
        assert!(
            acp.table().contains(
                "Verdict: NOT CONFORMANT. Failed: P6. MANDATORY rules not run, which is not a pass: P1."
            ),
            "{}",
            acp.table()
        );
        assert!(
            acp.table()
                .contains("\nP1    MANDATORY     skipped  stdout: not run"),
            "{}",
            acp.table()
        );
        let xml = acp.junit();
        assert!(xml.contains("failures=\"2\" skipped=\"0\""), "{xml}");
        assert!(
            xml.contains("<failure message=\"a MANDATORY rule not run is not a pass: not run\""),
            "{xml}"
        );
        // The wire's check has no tiers: it passes when nothing failed.
        assert!(report().conformance().is_none());
        assert!(!report().passed());
    }
}
