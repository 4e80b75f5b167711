//! A pane's usage as its agent last said it (docs/WIRE.md § 5.15): the context used and the
//! window's size in tokens, and what the session cost so far. Optional: an agent that says
//! nothing of it sends no `usage`, and a reader that does not know the field ignores it.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::sanitize::{ChangeKind, Lines, Report, clean};

/// Tokens of context used and the window's size, and the cost so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub used: u64,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

/// An amount in a currency (ISO 4217, e.g. `USD`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub amount: f64,
    pub currency: String,
}

/// The longest currency code kept.
const MAX_CURRENCY: usize = 8;

impl Usage {
    /// Cleans the currency (SPEC L1) and drops a cost that is no finite, non-negative amount.
    pub(crate) fn sanitize(&mut self, path: impl fmt::Display, report: &mut Report) {
        if let Some(cost) = &mut self.cost {
            clean(
                &mut cost.currency,
                MAX_CURRENCY,
                Lines::Single,
                format_args!("{path}.usage.cost.currency"),
                report,
            );
            if !cost.amount.is_finite() || cost.amount < 0.0 {
                self.cost = None;
                report.note(format!("{path}.usage.cost"), ChangeKind::Dropped);
            }
        }
    }

    /// "43k of 200k tokens · 22 % · $0.42": the words under a pane's heading.
    pub fn words(&self) -> String {
        let mut words = match self.used.saturating_mul(100).checked_div(self.size) {
            Some(percent) => format!(
                "{} of {} tokens · {} %",
                tokens(self.used),
                tokens(self.size),
                percent.min(999)
            ),
            None => format!("{} tokens", tokens(self.used)),
        };
        if let Some(cost) = &self.cost {
            words.push_str(" · ");
            words.push_str(&money(cost));
        }
        words
    }
}

/// 950, 43k, 1.2M.
fn tokens(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{}k", (n + 500) / 1_000),
        _ => {
            let tenths = (n + 50_000) / 100_000;
            if tenths.is_multiple_of(10) {
                format!("{}M", tenths / 10)
            } else {
                format!("{}.{}M", tenths / 10, tenths % 10)
            }
        }
    }
}

fn money(cost: &Cost) -> String {
    let sign = match cost.currency.as_str() {
        "USD" => Some("$"),
        "EUR" => Some("€"),
        "GBP" => Some("£"),
        _ => None,
    };
    match sign {
        Some(sign) => format!("{sign}{:.2}", cost.amount),
        None => format!("{:.2} {}", cost.amount, cost.currency),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(used: u64, size: u64, cost: Option<(f64, &str)>) -> Usage {
        Usage {
            used,
            size,
            cost: cost.map(|(amount, currency)| Cost {
                amount,
                currency: currency.into(),
            }),
        }
    }

    #[test]
    fn the_words_under_the_heading() {
        assert_eq!(
            usage(43_210, 200_000, Some((0.42, "USD"))).words(),
            "43k of 200k tokens · 21 % · $0.42"
        );
        assert_eq!(usage(950, 0, None).words(), "950 tokens");
        assert_eq!(
            usage(1_250_000, 2_000_000, Some((3.0, "CHF"))).words(),
            "1.3M of 2M tokens · 62 % · 3.00 CHF"
        );
    }

    #[test]
    fn l1_a_hostile_currency_is_cleaned_and_a_bad_amount_dropped() {
        let mut hostile = usage(1, 2, Some((1.0, "\u{1b}[2JUSDXXXXXXXX")));
        let mut report = Report::default();
        hostile.sanitize("p", &mut report);
        let currency = hostile
            .cost
            .as_ref()
            .map(|c| c.currency.clone())
            .unwrap_or_default();
        assert!(
            !currency.contains('\u{1b}') && currency.len() <= MAX_CURRENCY,
            "{currency}"
        );
        let mut negative = usage(1, 2, Some((-1.0, "USD")));
        negative.sanitize("p", &mut report);
        assert_eq!(negative.cost, None);
    }
}
