//! Chaos for the ask lifecycle (`collie-phone agent --chaos SPEC`): the reference agent fails
//! now and then on purpose, so every failure path of a client can be watched: unknown outcomes
//! (SPEC Q4), maybe-applied (Q5), restarts with asks asked again (H3, H5, A9), asks that time
//! out before an answer (A6, A7) and events sent twice.
//!
//! This file is the spec alone. The dice and what they remember are in `chaos_state`, the
//! acts on requests in `chaos_serve`, the restart in `runtime`.

use std::fmt;
use std::time::Duration;

/// The shortest `restart-every`: a restart must leave the agent ready for a while between two.
pub(crate) const MIN_RESTART_EVERY: Duration = Duration::from_secs(1);
/// The longest `delay`: longer holds nothing but a connection.
pub(crate) const MAX_DELAY: Duration = Duration::from_secs(600);

/// What `--chaos` knows, for error messages and `--help`.
pub(crate) const KNOWN: &str = "drop-after-apply=P, delay=P:DURATION, restart-every=DURATION, \
                         expire-early=P, dup-events=P (P is a probability from 0 to 1, \
                         DURATION like 500ms, 3s or 2m)";

/// What goes wrong, and how often. The default is nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chaos {
    /// A POST is applied, then its connection is dropped with no reply (SPEC Q4).
    pub(crate) drop_after_apply: f64,
    /// A reply is held this long before it is sent, with this probability.
    pub(crate) delay: Option<Delay>,
    /// The agent restarts in place this often: a new epoch, `503 starting` for a moment,
    /// every view rebuilt and every open ask asked again under its old id (SPEC H3, H5, A9).
    pub restart_every: Option<Duration>,
    /// An answer finds its ask timed out just before it arrived (SPEC A6, A7).
    pub(crate) expire_early: f64,
    /// An events reply repeats events already sent, or one event twice.
    pub(crate) dup_events: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Delay {
    pub(crate) probability: f64,
    pub(crate) hold: Duration,
}

impl Chaos {
    /// Reads a spec such as `drop-after-apply=0.1,delay=0.05:3s`. Strict: an unknown name, a
    /// name given twice, an empty part or a value out of range is refused, naming the part.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut chaos = Self::default();
        if text.trim().is_empty() {
            return Ok(chaos);
        }
        let mut seen: Vec<&str> = Vec::new();
        for part in text.split(',') {
            let part = part.trim();
            let refuse = |why: String| format!("--chaos {text}: {why}; it knows {KNOWN}");
            if part.is_empty() {
                return Err(refuse(
                    "an empty part (two commas, or one at an end)".into(),
                ));
            }
            let Some((name, value)) = part.split_once('=') else {
                return Err(refuse(format!("\"{part}\" has no =VALUE")));
            };
            let (name, value) = (name.trim(), value.trim());
            if seen.contains(&name) {
                return Err(refuse(format!("{name} is given twice")));
            }
            let in_part = |why: String| refuse(format!("in \"{part}\": {why}"));
            match name {
                "drop-after-apply" => {
                    chaos.drop_after_apply = probability(value).map_err(in_part)?;
                }
                "expire-early" => chaos.expire_early = probability(value).map_err(in_part)?,
                "dup-events" => chaos.dup_events = probability(value).map_err(in_part)?,
                "delay" => {
                    let Some((chance, hold)) = value.split_once(':') else {
                        return Err(in_part(
                            "delay is P:DURATION, e.g. delay=0.05:3s".to_string(),
                        ));
                    };
                    let hold = duration(hold).map_err(in_part)?;
                    if hold > MAX_DELAY {
                        return Err(in_part(format!(
                            "a delay of at most {} is allowed",
                            humantime::format_duration(MAX_DELAY)
                        )));
                    }
                    chaos.delay = Some(Delay {
                        probability: probability(chance).map_err(in_part)?,
                        hold,
                    });
                }
                "restart-every" => {
                    let every = duration(value).map_err(in_part)?;
                    if every < MIN_RESTART_EVERY {
                        return Err(in_part(format!(
                            "restart at most once every {}, so the agent is ready in between",
                            humantime::format_duration(MIN_RESTART_EVERY)
                        )));
                    }
                    chaos.restart_every = Some(every);
                }
                other => return Err(refuse(format!("\"{other}\" is not a kind of chaos"))),
            }
            seen.push(name);
        }
        Ok(chaos)
    }

    /// True when nothing goes wrong on purpose.
    pub fn is_quiet(&self) -> bool {
        self.drop_after_apply == 0.0
            && self.delay.is_none_or(|d| d.probability == 0.0)
            && self.restart_every.is_none()
            && self.expire_early == 0.0
            && self.dup_events == 0.0
    }
}

/// The spec again, in the form `parse` reads, for the log.
impl fmt::Display for Chaos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if self.drop_after_apply > 0.0 {
            parts.push(format!("drop-after-apply={}", self.drop_after_apply));
        }
        if let Some(delay) = self.delay {
            parts.push(format!(
                "delay={}:{}",
                delay.probability,
                humantime::format_duration(delay.hold)
            ));
        }
        if let Some(every) = self.restart_every {
            parts.push(format!(
                "restart-every={}",
                humantime::format_duration(every)
            ));
        }
        if self.expire_early > 0.0 {
            parts.push(format!("expire-early={}", self.expire_early));
        }
        if self.dup_events > 0.0 {
            parts.push(format!("dup-events={}", self.dup_events));
        }
        if parts.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&parts.join(","))
        }
    }
}

fn probability(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a probability like 0.1"))?;
    if value.is_finite() && (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{text} is not a probability from 0 to 1"))
    }
}

fn duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let value = humantime::parse_duration(text)
        .map_err(|e| format!("{text:?} is not a duration like 500ms, 3s or 2m ({e})"))?;
    if value.is_zero() {
        return Err(format!("{text} is no time at all"));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_example_of_the_agent_authors_guide() {
        let chaos = Chaos::parse(
            "drop-after-apply=0.1,delay=0.05:3s,restart-every=60s,expire-early=0.1,dup-events=0.05",
        )
        .expect("the example of docs/AGENT-AUTHORS.md");
        assert_eq!(
            chaos,
            Chaos {
                drop_after_apply: 0.1,
                delay: Some(Delay {
                    probability: 0.05,
                    hold: Duration::from_secs(3)
                }),
                restart_every: Some(Duration::from_secs(60)),
                expire_early: 0.1,
                dup_events: 0.05,
            }
        );
        assert_eq!(
            chaos.to_string(),
            "drop-after-apply=0.1,delay=0.05:3s,restart-every=1m,expire-early=0.1,dup-events=0.05"
        );
        assert_eq!(Chaos::parse(&chaos.to_string()), Ok(chaos));
    }

    #[test]
    fn empty_is_quiet_and_spaces_are_fine() {
        assert!(Chaos::parse("").expect("empty").is_quiet());
        assert!(Chaos::parse("  ").expect("blank").is_quiet());
        assert!(Chaos::parse("dup-events=0").expect("zero").is_quiet());
        let chaos = Chaos::parse(" dup-events = 1 , delay = 1 : 500ms ").expect("spaces");
        assert_eq!(chaos.dup_events, 1.0);
        assert_eq!(
            chaos.delay.map(|d| d.hold),
            Some(Duration::from_millis(500))
        );
        assert!(!chaos.is_quiet());
    }

    #[test]
    fn refusals_name_the_bad_part() {
        for (spec, names) in [
            ("explode=1", "\"explode\" is not a kind of chaos"),
            ("dup-events", "\"dup-events\" has no =VALUE"),
            (
                "dup-events=2",
                "in \"dup-events=2\": 2 is not a probability from 0 to 1",
            ),
            ("dup-events=-0.1", "from 0 to 1"),
            ("dup-events=NaN", "from 0 to 1"),
            ("expire-early=often", "\"often\" is not a probability"),
            ("delay=0.5", "delay is P:DURATION"),
            ("delay=0.5:soon", "\"soon\" is not a duration"),
            ("delay=0.5:0s", "no time at all"),
            ("delay=0.5:2h", "a delay of at most"),
            ("delay=x:1s", "in \"delay=x:1s\""),
            ("restart-every=200ms", "restart at most once every 1s"),
            ("restart-every=", "is not a duration"),
            ("dup-events=0.1,,expire-early=0.1", "an empty part"),
            ("dup-events=0.1,", "an empty part"),
            ("dup-events=0.1,dup-events=0.2", "dup-events is given twice"),
        ] {
            let error = Chaos::parse(spec).expect_err(spec);
            assert!(error.contains(names), "{spec}: {error}");
            assert!(error.starts_with(&format!("--chaos {spec}: ")), "{error}");
            assert!(error.contains("drop-after-apply=P"), "lists what it knows");
        }
    }
}
