//! The newest exchanges with the agents, as the engine reports them, kept in a ring for the
//! wire inspector (`screens/inspector`), and what an export of them came to.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use crate::app::list::Filter;
use crate::engine::ExchangeRecord;

/// Exchanges kept: a few minutes of polling, a few MiB at most.
pub(crate) const KEPT_EXCHANGES: usize = 1000;

/// The newest exchanges, each with a number that rises by one per exchange.
#[derive(Debug, Default, Clone)]
pub struct WireLog {
    records: VecDeque<ExchangeRecord>,
    /// The number of the oldest record kept; a record's place is its number minus this.
    first: u64,
}

impl WireLog {
    pub(crate) fn push(&mut self, record: ExchangeRecord) {
        if self.records.len() >= KEPT_EXCHANGES {
            self.records.pop_front();
            self.first += 1;
        }
        self.records.push_back(record);
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Every exchange reported since the phone started, kept or not.
    pub(crate) fn seen(&self) -> u64 {
        self.first + self.records.len() as u64
    }

    pub(crate) fn get(&self, number: u64) -> Option<&ExchangeRecord> {
        let place = usize::try_from(number.checked_sub(self.first)?).ok()?;
        self.records.get(place)
    }

    /// The numbers of the kept exchanges the filter lets through, oldest first.
    pub(crate) fn rows(&self, filter: &Filter) -> Vec<u64> {
        let numbers = (self.first..).zip(self.records.iter());
        if filter.is_blank() {
            return numbers.map(|(n, _)| n).collect();
        }
        numbers
            .filter(|(_, record)| filter.matches(&filter_words(record)))
            .map(|(n, _)| n)
            .collect()
    }
}

/// What the `/` filter looks through: agent, method, path, status and request id.
fn filter_words(record: &ExchangeRecord) -> String {
    format!(
        "{} {} {} {} {}",
        record.agent,
        record.method,
        record.path,
        status_words(record),
        record.request_id.as_deref().unwrap_or_default()
    )
}

/// The status, or why no reply came.
pub(crate) fn status_words(record: &ExchangeRecord) -> String {
    match (record.status, &record.error) {
        (Some(status), _) => status.to_string(),
        (None, Some(error)) => error.clone(),
        (None, None) => "no reply".to_string(),
    }
}

/// `$XDG_STATE_HOME/collie-phone` (or `~/.local/state/collie-phone`), next to the journal:
/// an export must outlive `collie-phone demo`, whose folder goes when it quits.
/// Without a home of the person's there is no such folder, and no phone either (its journal and
/// log live there, SPEC S8): the empty path then only keeps the type simple.
pub(crate) fn default_export_dir() -> PathBuf {
    crate::engine::Journal::default_path()
        .ok()
        .and_then(|journal| journal.parent().map(Path::to_path_buf))
        .unwrap_or_default()
}

/// What an export the runner wrote (or could not write) of `exchanges` exchanges came to, and
/// whether it is trouble.
pub(crate) fn export_words(
    path: &Path,
    exchanges: usize,
    result: Result<(), String>,
) -> (String, bool) {
    let shown = path.display();
    match result {
        Ok(()) => {
            let what = if exchanges == 1 {
                "1 exchange".to_string()
            } else {
                format!("{exchanges} exchanges")
            };
            (format!("Saved {what} to {shown}"), false)
        }
        Err(error) => (format!("Could not save to {shown}: {error}"), true),
    }
}

/// An exchange numbered `n`, for the tests of the log and of the inspector that lists it.
#[cfg(test)]
pub(crate) fn record(n: usize) -> ExchangeRecord {
    ExchangeRecord {
        at: time::OffsetDateTime::UNIX_EPOCH,
        agent: "demo".into(),
        method: "GET",
        path: format!("/session/v1/panes/p{n}/events"),
        status: Some(200),
        error: None,
        reply_bytes: 2,
        millis: 1,
        request_id: None,
        request_body: String::new(),
        reply_body: "{}".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_keeps_the_newest_thousand_with_their_numbers() {
        let mut wire = WireLog::default();
        for n in 0..KEPT_EXCHANGES + 5 {
            wire.push(record(n));
        }
        assert_eq!(wire.len(), KEPT_EXCHANGES);
        assert_eq!(wire.seen(), (KEPT_EXCHANGES + 5) as u64);
        assert!(wire.get(4).is_none());
        assert_eq!(
            wire.get(5).map(|r| r.path.as_str()),
            Some("/session/v1/panes/p5/events")
        );
        let rows = wire.rows(&Filter::with_text("p1004/"));
        assert_eq!(rows, vec![1004]);
    }
}
