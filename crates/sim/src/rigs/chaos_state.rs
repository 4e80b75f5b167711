//! What chaos needs between requests: its dice, seeded from the world's `--seed` so a run can
//! be played again, and the last events each pane sent, so a reply can repeat them.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

use super::chaos::Chaos;

/// Events remembered per pane for `dup-events`: a few are enough to repeat some.
const REMEMBERED_EVENTS: usize = 4;
/// The dice play their own stream of the seed: the world was laid out from stream 0 and the
/// script plays stream 1, so chaos never changes what the world itself does.
const DICE_STREAM: u64 = 2;

/// The dice and memory of one agent's chaos. Lives in [`super::chaos_serve::Chaotic`], behind a
/// lock of its own.
#[derive(Debug)]
pub(crate) struct ChaosState {
    pub(crate) spec: Chaos,
    dice: ChaCha8Rng,
    /// Per pane: the epoch and the last events sent to any reader, oldest first.
    sent: HashMap<String, (String, VecDeque<Value>)>,
}

impl ChaosState {
    pub(crate) fn new(spec: Chaos, seed: u64) -> Self {
        let mut dice = ChaCha8Rng::seed_from_u64(seed);
        dice.set_stream(DICE_STREAM);
        Self {
            spec,
            dice,
            sent: HashMap::new(),
        }
    }

    /// True with probability `p`. A `p` of 0 uses no dice, so turning one kind off leaves the
    /// others' rolls as they were.
    pub(crate) fn roll(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.dice.random_bool(p)
        }
    }

    /// Notes the events a reply of `pane` carried in `epoch`.
    pub(crate) fn note_sent(&mut self, pane: &str, epoch: &str, events: &[Value]) {
        if events.is_empty() {
            return;
        }
        let entry = self
            .sent
            .entry(pane.to_string())
            .or_insert_with(|| (epoch.to_string(), VecDeque::new()));
        if entry.0 != epoch {
            *entry = (epoch.to_string(), VecDeque::new());
        }
        entry.1.extend(events.iter().cloned());
        while entry.1.len() > REMEMBERED_EVENTS {
            entry.1.pop_front();
        }
    }

    /// Events of `pane` in `epoch` already sent, with a seq of at most `after`: what a reader
    /// whose cursor is `after` has seen.
    pub(crate) fn already_sent(&self, pane: &str, epoch: &str, after: u64) -> Vec<Value> {
        match self.sent.get(pane) {
            Some((sent_epoch, events)) if sent_epoch == epoch => events
                .iter()
                .filter(|event| event["seq"].as_u64().is_some_and(|seq| seq <= after))
                .cloned()
                .collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_same_seed_rolls_the_same() {
        let spec = Chaos::default();
        let mut one = ChaosState::new(spec.clone(), 7);
        let mut two = ChaosState::new(spec, 7);
        let a: Vec<bool> = (0..64).map(|_| one.roll(0.5)).collect();
        let b: Vec<bool> = (0..64).map(|_| two.roll(0.5)).collect();
        assert_eq!(a, b);
        assert!(a.contains(&true) && a.contains(&false));
        assert!(!one.roll(0.0) && one.roll(1.0));
    }

    #[test]
    fn remembers_a_few_events_per_pane_and_epoch() {
        let mut state = ChaosState::new(Chaos::default(), 1);
        let events: Vec<Value> = (1..=6).map(|seq| json!({"seq": seq})).collect();
        state.note_sent("p", "e1", &events);
        let seqs =
            |v: Vec<Value>| -> Vec<u64> { v.iter().filter_map(|e| e["seq"].as_u64()).collect() };
        assert_eq!(seqs(state.already_sent("p", "e1", 6)), vec![3, 4, 5, 6]);
        assert_eq!(seqs(state.already_sent("p", "e1", 4)), vec![3, 4]);
        assert!(state.already_sent("p", "e2", 6).is_empty(), "another epoch");
        assert!(state.already_sent("q", "e1", 6).is_empty(), "another pane");
        state.note_sent("p", "e2", &events[..1]);
        assert!(
            state.already_sent("p", "e1", 6).is_empty(),
            "a new epoch forgets"
        );
    }
}
