//! The demo host's virtual clock: `virtual = start + real_elapsed * speed`, so tests play
//! minutes in a second and `--speed 0` freezes the host (like the agent's script).

use std::time::{Instant, SystemTime, UNIX_EPOCH};

#[derive(Debug, Clone)]
pub(crate) struct Clock {
    started: Instant,
    epoch_ms: i64,
    speed: f64,
}

impl Clock {
    pub(crate) fn new(speed: f64) -> Self {
        let epoch_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        Self {
            started: Instant::now(),
            epoch_ms,
            speed,
        }
    }

    /// Virtual milliseconds since the host started.
    pub(crate) fn elapsed_ms(&self) -> i64 {
        let real = self.started.elapsed().as_secs_f64() * 1000.0;
        (real * self.speed) as i64
    }

    /// The virtual time as milliseconds since the epoch, what events carry in `at`.
    pub(crate) fn now_ms(&self) -> i64 {
        self.epoch_ms + self.elapsed_ms()
    }

    /// The epoch milliseconds of the host's start.
    pub(crate) fn start_ms(&self) -> i64 {
        self.epoch_ms
    }
}
