//! When an agent's next poll starts (SPEC S7, T8): on a grid of whole intervals from the
//! moment the engine started, shared by every agent. Agents that each slept an interval after
//! their own poll would wake the phone once per agent a second, 32 times for 32 agents; on one
//! grid their polls fall together, and the phone takes their news in one wake and draws at most
//! once for them (docs/ENGINE.md, "The phone in a terminal").

use std::time::Duration;

use tokio::time::Instant;

/// The grid every agent's polls fall on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PollGrid {
    start: Instant,
}

impl PollGrid {
    pub(crate) fn starting(start: Instant) -> Self {
        Self { start }
    }

    /// The first point of the grid, at this interval, at least half an interval after the poll
    /// that started at `started`: a poll the person or an intent asked for between two points
    /// is not followed by another at once, and a slow poll skips the points it overran.
    pub(crate) fn next(&self, started: Instant, interval: Duration) -> Instant {
        let earliest = started + interval / 2;
        let step = interval.as_nanos().max(1);
        let steps = earliest
            .saturating_duration_since(self.start)
            .as_nanos()
            .div_ceil(step);
        let offset = u64::try_from(steps.saturating_mul(step)).unwrap_or(u64::MAX);
        self.start + Duration::from_nanos(offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    fn at(grid: &PollGrid, millis: u64) -> Instant {
        grid.start + Duration::from_millis(millis)
    }

    #[test]
    fn s7_polls_of_agents_that_started_apart_fall_on_the_same_points() {
        let grid = PollGrid::starting(Instant::now());
        // Two agents whose polls started 370 ms apart and took different times.
        assert_eq!(grid.next(at(&grid, 10), SECOND), at(&grid, 1000));
        assert_eq!(grid.next(at(&grid, 380), SECOND), at(&grid, 1000));
        // After that, both poll on the whole seconds.
        assert_eq!(grid.next(at(&grid, 1000), SECOND), at(&grid, 2000));
    }

    #[test]
    fn s7_a_poll_asked_for_between_points_is_not_followed_by_another_at_once() {
        let grid = PollGrid::starting(Instant::now());
        // An intent poked a poll at 2.9 s: the next is at 4 s, not 3 s.
        assert_eq!(grid.next(at(&grid, 2900), SECOND), at(&grid, 4000));
        // One at 2.4 s still takes 3 s: half an interval away.
        assert_eq!(grid.next(at(&grid, 2400), SECOND), at(&grid, 3000));
    }

    #[test]
    fn s7_the_idle_cadence_keeps_to_its_own_whole_intervals() {
        let grid = PollGrid::starting(Instant::now());
        let three = Duration::from_secs(3);
        assert_eq!(grid.next(at(&grid, 1000), three), at(&grid, 3000));
        assert_eq!(grid.next(at(&grid, 3000), three), at(&grid, 6000));
    }
}
