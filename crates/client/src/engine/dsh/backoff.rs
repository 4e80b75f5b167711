//! Exponential back-off with a cap, for the seed's "back off and retry" codes
//! (`session/writer-held`, `session/agent-busy`, `bridge/not-ready`) and for a dropped event
//! stream. Each delay is half fixed and half random, so several phones that lost the same
//! bridge do not all come back in the same millisecond.

use std::time::Duration;

#[derive(Debug, Clone)]
pub(crate) struct Backoff {
    first: Duration,
    cap: Duration,
    next: Duration,
    tries: u32,
}

impl Backoff {
    #[cfg(test)]
    /// Delays handed out since the last success.
    pub(crate) fn tries(&self) -> u32 {
        self.tries
    }

    pub(crate) fn new(first: Duration, cap: Duration) -> Self {
        Self {
            first,
            cap,
            next: first,
            tries: 0,
        }
    }

    /// For an intent refused with a back-off code: 0.5 s doubling to 8 s.
    pub(crate) fn for_intents() -> Self {
        Self::new(Duration::from_millis(500), Duration::from_secs(8))
    }

    /// For the bridge's reads and its event streams: 1 s doubling to 30 s.
    pub(crate) fn for_reads() -> Self {
        Self::new(Duration::from_secs(1), Duration::from_secs(30))
    }

    /// The wait before the next try, and doubles the one after, up to the cap.
    pub(crate) fn next_delay(&mut self) -> Duration {
        let full = self.next;
        self.next = (self.next * 2).min(self.cap);
        self.tries += 1;
        let half = full / 2;
        let spread = u64::try_from(half.as_millis()).unwrap_or(u64::MAX);
        half + Duration::from_millis(rand::random_range(0..=spread))
    }

    /// After a success: the next trouble starts again from the first delay.
    pub(crate) fn reset(&mut self) {
        self.next = self.first;
        self.tries = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d2_doubles_up_to_the_cap_and_resets() {
        let mut backoff = Backoff::new(Duration::from_millis(100), Duration::from_millis(400));
        let delays: Vec<Duration> = (0..5).map(|_| backoff.next_delay()).collect();
        let bounds = [100, 200, 400, 400, 400];
        for (delay, full) in delays.iter().zip(bounds) {
            assert!(
                *delay >= Duration::from_millis(full / 2),
                "{delay:?} < half of {full}"
            );
            assert!(*delay <= Duration::from_millis(full), "{delay:?} > {full}");
        }
        assert_eq!(backoff.tries(), 5);
        backoff.reset();
        assert!(backoff.next_delay() <= Duration::from_millis(100));
    }
}
