//! The countdown of an ask that expires (SPEC A13): its words and its style, one way for the
//! home screen's inbox and the card alike.

use ratatui::style::Style;
use time::OffsetDateTime;

use crate::look::theme::Theme;
use crate::model::inbox::TimeLeft;

/// The time left until `expires_at`, e.g. "0:42 left", and its style: urgent in the last ten
/// seconds and once expired, the countdown's own before; empty and dim with no deadline.
pub(crate) fn countdown(
    expires_at: Option<OffsetDateTime>,
    now: OffsetDateTime,
    theme: &Theme,
) -> (String, Style) {
    match expires_at.map(|at| TimeLeft::until(at, now)) {
        Some(left) if left.is_urgent() || left == TimeLeft::Expired => {
            (left.text(), theme.countdown_urgent)
        }
        Some(left) => (left.text(), theme.countdown),
        None => (String::new(), theme.dim),
    }
}
