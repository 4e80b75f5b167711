//! Keys that arrive together: a person's keys bunched by ssh, mosh, key rollover or a busy
//! moment of the phone, or a paste without bracketed-paste markers (tmux `paste-buffer`
//! without `-p`, many terminals over ssh), which reaches us as a run of key presses. The rule
//! and its numbers are docs/KEYS.md; in short:
//!
//! - Keys closer than [`BUNCH_GAP`] are one bunch. Each text key is held that long before it is
//!   handed on, so a bunch is known whole: a key alone is a key; a few keys together are a
//!   [`Input::Bunch`], typed one by one where text is typed (each Enter sends) and taken only
//!   for their moves elsewhere (the app decides, by action).
//! - A paste is told by size, not by an Enter inside it: a bunch that reaches
//!   [`PASTE_MIN_KEYS`] keys is a paste ([`Input::Paste`]), and later keys join it while they
//!   come within [`PASTE_JOINS`] of its last key, which is less than the gap between a person's
//!   keys, so keys typed after a paste are keys again.
//!
//! Time is the runner's to give: keys that were already waiting when it looked (they came while
//! it was busy drawing) are given the time it stopped reading, so its own busy moments never cut
//! a paste in two.
//!
//! The phone reads the terminal with crossterm's `use-dev-tty` source: its default (mio) source
//! stops reading midway through a long burst of keys and hands over the rest only with the next
//! key press (an edge-triggered read that returns before draining the terminal; crossterm PR
//! 1057, open), which would cut such a paste in two.

use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// Keys closer than this are one bunch: ssh and mosh hand on a person's keys in bunches whose
/// keys are 1–10 ms apart; a lone key waits this long before it is handed on.
pub(crate) const BUNCH_GAP: Duration = Duration::from_millis(10);
/// Keys in one bunch that only a paste brings: a person's bunch is a few keys, a word or two.
pub(crate) const PASTE_MIN_KEYS: usize = 24;
/// How long after a paste's last key its next chunk still belongs to it: less than a person's
/// key gap (40 ms a key is fast typing), so keys typed after a paste never join it.
pub(crate) const PASTE_JOINS: Duration = Duration::from_millis(30);
/// A paste is handed on in pieces of this many characters, so a long one shows as it comes.
const PASTE_PIECE: usize = 4096;

/// What the detector hands on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Input {
    /// A terminal event as it came: a key alone, a non-text key, the mouse, a resize…
    Event(Event),
    /// Text keys that came together, a few of them (docs/KEYS.md).
    Bunch(Vec<KeyEvent>),
    /// Text that came as keys too many and too fast for a person: a paste without markers.
    Paste(String),
}

/// Holds the keys of a bunch until it is known whether they are typing or a paste.
#[derive(Debug, Default)]
pub(crate) struct BurstDetector {
    /// Text keys of the current bunch, not handed on yet.
    held: Vec<KeyEvent>,
    /// Text of a paste being gathered.
    paste: Option<String>,
    /// When the last text key came.
    last: Option<Instant>,
}

/// The text a key types: a character (Shift allowed), Enter, Tab or Ctrl-J (a pasted line
/// feed in raw mode), with no other Ctrl or Alt.
fn text_of(key: &KeyEvent) -> Option<char> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.code == KeyCode::Char('j') && key.modifiers == KeyModifiers::CONTROL {
        return Some('\n');
    }
    if key
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
    {
        return None;
    }
    match key.code {
        KeyCode::Char(c) => Some(c),
        KeyCode::Enter => Some('\n'),
        KeyCode::Tab => Some('\t'),
        _ => None,
    }
}

impl BurstDetector {
    /// True when nothing is held.
    pub(crate) fn is_idle(&self) -> bool {
        self.held.is_empty() && self.paste.is_none()
    }

    /// When the held keys must be handed on if nothing more comes.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        let last = self.last?;
        if self.paste.is_some() {
            Some(last + PASTE_JOINS)
        } else if !self.held.is_empty() {
            Some(last + BUNCH_GAP)
        } else {
            None
        }
    }

    /// An event came at `now`: returns what is to be handled now, in order.
    pub(crate) fn push(&mut self, event: Event, now: Instant) -> Vec<Input> {
        let mut out = Vec::new();
        let key = match &event {
            Event::Key(key) if text_of(key).is_some() => *key,
            // Anything else ends the bunch first, keeping the order.
            _ => {
                out.extend(self.release());
                out.push(Input::Event(event));
                return out;
            }
        };
        let gap = self.last.map(|at| now.saturating_duration_since(at));
        let joins = match (&self.paste, gap) {
            (Some(_), Some(gap)) => gap <= PASTE_JOINS,
            (None, Some(gap)) => !self.held.is_empty() && gap <= BUNCH_GAP,
            (_, None) => false,
        };
        if !joins {
            out.extend(self.release());
        }
        self.last = Some(now);
        match &mut self.paste {
            Some(text) => text.extend(text_of(&key)),
            None => {
                self.held.push(key);
                // Told by size alone: Enters anywhere in a few keys are a person's.
                if self.held.len() >= PASTE_MIN_KEYS {
                    let text: String = self.held.drain(..).filter_map(|k| text_of(&k)).collect();
                    self.paste = Some(text);
                }
            }
        }
        if let Some(text) = &mut self.paste
            && text.len() >= PASTE_PIECE
        {
            out.push(Input::Paste(std::mem::take(text)));
        }
        out
    }

    /// Hands on what is held once its deadline passed at `now`.
    pub(crate) fn flush(&mut self, now: Instant) -> Vec<Input> {
        match self.deadline() {
            Some(deadline) if now >= deadline => self.release(),
            _ => Vec::new(),
        }
    }

    /// Ends the bunch: a paste as one input, one key as itself, a few keys as a bunch.
    fn release(&mut self) -> Vec<Input> {
        let mut out = Vec::new();
        match self.held.len() {
            0 => {}
            1 => out.extend(self.held.drain(..).map(|k| Input::Event(Event::Key(k)))),
            _ => out.push(Input::Bunch(std::mem::take(&mut self.held))),
        }
        if let Some(text) = self.paste.take()
            && !text.is_empty()
        {
            out.push(Input::Paste(text));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_event(c: char) -> KeyEvent {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\t' => KeyCode::Tab,
            c => KeyCode::Char(c),
        };
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn key(c: char) -> Input {
        Input::Event(Event::Key(key_event(c)))
    }

    /// Feeds `text` a key every `step`, then lets the deadline pass; returns what came out.
    fn feed(burst: &mut BurstDetector, text: &str, start: Instant, step: Duration) -> Vec<Input> {
        let keys: Vec<(char, Duration)> = text.chars().map(|c| (c, step)).collect();
        feed_timed(burst, &keys, start)
    }

    /// Feeds each key the given time after the one before it (the first that long after
    /// `start`), then lets the deadline pass.
    fn feed_timed(
        burst: &mut BurstDetector,
        keys: &[(char, Duration)],
        start: Instant,
    ) -> Vec<Input> {
        let mut out = Vec::new();
        let mut at = start;
        for (c, after) in keys {
            at += *after;
            out.extend(burst.flush(at));
            out.extend(burst.push(Event::Key(key_event(*c)), at));
        }
        out.extend(burst.flush(at + PASTE_JOINS + BUNCH_GAP));
        assert!(burst.is_idle());
        out
    }

    fn pasted(inputs: &[Input]) -> String {
        inputs
            .iter()
            .map(|e| match e {
                Input::Paste(text) => text.clone(),
                _ => String::new(),
            })
            .collect()
    }

    /// The keys handed on, alone or bunched, as the text they type; none may be a paste.
    fn typed(inputs: &[Input]) -> String {
        inputs
            .iter()
            .flat_map(|e| match e {
                Input::Event(Event::Key(k)) => vec![text_of(k).expect("a text key")],
                Input::Bunch(keys) => keys.iter().map(|k| text_of(k).expect("text")).collect(),
                other => panic!("not a key: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn typing_at_a_persons_pace_is_keys() {
        let mut burst = BurstDetector::default();
        let out = feed(
            &mut burst,
            "alpha\n beta\n",
            Instant::now(),
            Duration::from_millis(30),
        );
        let expected: Vec<Input> = "alpha\n beta\n".chars().map(key).collect();
        assert_eq!(out, expected);
    }

    #[test]
    fn two_quick_moves_are_a_bunch_of_two_keys() {
        let mut burst = BurstDetector::default();
        let out = feed(&mut burst, "jj", Instant::now(), Duration::from_micros(50));
        assert_eq!(
            out,
            vec![Input::Bunch(vec![key_event('j'), key_event('j')])]
        );
    }

    /// Changed on purpose (docs/KEYS.md): a few keys with an Enter inside are a person's, as
    /// ssh hands them on; only size tells a paste.
    #[test]
    fn a_few_keys_with_text_after_enter_are_a_bunch_not_a_paste() {
        let mut burst = BurstDetector::default();
        let out = feed(
            &mut burst,
            "ls\nrm",
            Instant::now(),
            Duration::from_micros(50),
        );
        assert_eq!(
            out,
            vec![Input::Bunch("ls\nrm".chars().map(key_event).collect())]
        );
    }

    /// The typing of docs/KEYS.md: 40 ms a key, the next word's first key within 5 ms of each
    /// Enter.
    #[test]
    fn words_typed_fast_with_the_next_key_right_after_enter_are_keys_and_three_enters() {
        let mut burst = BurstDetector::default();
        let text = "golf\nhotel\nindia\n";
        let mut keys = Vec::new();
        let mut after_enter = false;
        for c in text.chars() {
            let gap = if after_enter {
                Duration::from_millis(4)
            } else {
                Duration::from_millis(40)
            };
            keys.push((c, gap));
            after_enter = c == '\n';
        }
        let out = feed_timed(&mut burst, &keys, Instant::now());
        assert_eq!(typed(&out), text);
        assert_eq!(pasted(&out), "");
        // Each Enter with the key after it is a bunch of two: typed where text is typed.
        assert_eq!(
            out.iter().filter(|i| matches!(i, Input::Bunch(_))).count(),
            2
        );
    }

    /// Over ssh: each word comes as keys 1–10 ms apart, the next word 5 ms after the Enter.
    #[test]
    fn words_in_ssh_bunches_one_to_ten_ms_apart_are_typing_not_a_paste() {
        let mut burst = BurstDetector::default();
        let text = "golf\nhotel\nindia\n";
        let keys: Vec<(char, Duration)> = text
            .chars()
            .enumerate()
            .map(|(i, c)| (c, Duration::from_millis(1 + (i as u64 * 7) % 10)))
            .collect();
        let out = feed_timed(&mut burst, &keys, Instant::now());
        assert_eq!(typed(&out), text);
        assert_eq!(pasted(&out), "");
    }

    /// 22 `j` in one read, then 14 more a person's 40 ms apart: 36 moves (docs/KEYS.md).
    #[test]
    fn twenty_two_bunched_moves_then_fourteen_typed_are_thirty_six_keys() {
        let mut burst = BurstDetector::default();
        let mut keys = vec![('j', Duration::from_micros(10)); 22];
        keys.extend(vec![('j', Duration::from_millis(40)); 14]);
        let out = feed_timed(&mut burst, &keys, Instant::now());
        assert_eq!(typed(&out), "j".repeat(36));
        assert_eq!(out.first(), Some(&Input::Bunch(vec![key_event('j'); 22])));
        assert_eq!(out.len(), 15, "one bunch, then each key alone: {out:?}");
    }

    fn four_hundred_bytes() -> String {
        let line = "a pasted line, with words\n";
        let text = line.repeat(400 / line.len() + 1);
        assert!(text.len() >= 400 && text.matches('\n').count() > 10);
        text
    }

    #[test]
    fn a_400_byte_paste_in_one_read_is_one_paste_never_an_enter() {
        let mut burst = BurstDetector::default();
        let text = four_hundred_bytes();
        let out = feed(&mut burst, &text, Instant::now(), Duration::from_micros(5));
        assert_eq!(out, vec![Input::Paste(text)]);
    }

    #[test]
    fn a_400_byte_paste_in_small_chunks_is_one_paste_never_an_enter() {
        let mut burst = BurstDetector::default();
        let text = four_hundred_bytes();
        // Chunks of 16 keys (fewer than a paste's first chunk needs), 3 ms apart, and once a
        // paste, chunks 25 ms apart still join it.
        let keys: Vec<(char, Duration)> = text
            .chars()
            .enumerate()
            .map(|(i, c)| {
                let gap = match (i % 16, i < 64) {
                    (0, true) => Duration::from_millis(3),
                    (0, false) => Duration::from_millis(25),
                    _ => Duration::from_micros(10),
                };
                (c, gap)
            })
            .collect();
        let out = feed_timed(&mut burst, &keys, Instant::now());
        assert_eq!(out, vec![Input::Paste(text)]);
    }

    #[test]
    fn keys_typed_after_a_paste_are_keys_again() {
        let mut burst = BurstDetector::default();
        let text = four_hundred_bytes();
        let mut keys: Vec<(char, Duration)> = text
            .chars()
            .map(|c| (c, Duration::from_micros(5)))
            .collect();
        keys.extend([
            ('\n', Duration::from_millis(40)),
            ('j', Duration::from_millis(40)),
        ]);
        let out = feed_timed(&mut burst, &keys, Instant::now());
        assert_eq!(out, vec![Input::Paste(text), key('\n'), key('j')]);
    }

    #[test]
    fn a_long_paste_in_chunks_is_pasted_whole_and_never_an_enter() {
        let mut burst = BurstDetector::default();
        let text = "line of pasted words\n".repeat(2000);
        let start = Instant::now();
        let mut out = Vec::new();
        let mut at = start;
        for (i, c) in text.chars().enumerate() {
            // Chunks of 1024 keys, 20 ms apart (ssh), keys inside a chunk 10 µs apart.
            at += if i % 1024 == 0 {
                Duration::from_millis(20)
            } else {
                Duration::from_micros(10)
            };
            out.extend(burst.flush(at));
            out.extend(burst.push(Event::Key(key_event(c)), at));
        }
        out.extend(burst.flush(at + PASTE_JOINS));
        assert!(out.iter().all(|e| matches!(e, Input::Paste(_))));
        assert_eq!(pasted(&out), text);
        assert!(burst.is_idle());
    }

    #[test]
    fn other_keys_end_the_bunch_in_order() {
        let esc = Event::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
        let now = Instant::now();
        // A few keys, then Esc: the bunch, then Esc.
        let mut burst = BurstDetector::default();
        let mut out = Vec::new();
        for (i, c) in "012".chars().enumerate() {
            out.extend(burst.push(
                Event::Key(key_event(c)),
                now + Duration::from_micros(i as u64),
            ));
        }
        out.extend(burst.push(esc.clone(), now + Duration::from_micros(20)));
        let bunch = Input::Bunch("012".chars().map(key_event).collect());
        assert_eq!(out, vec![bunch, Input::Event(esc.clone())]);
        // A paste, then Esc: the paste, then Esc.
        let text = "0123456789".repeat(3);
        let mut out = Vec::new();
        for (i, c) in text.chars().enumerate() {
            out.extend(burst.push(
                Event::Key(key_event(c)),
                now + Duration::from_micros(100 + i as u64),
            ));
        }
        out.extend(burst.push(esc.clone(), now + Duration::from_micros(200)));
        assert_eq!(out, vec![Input::Paste(text), Input::Event(esc)]);
    }

    #[test]
    fn a_pasted_line_feed_is_a_newline_not_a_command() {
        let mut burst = BurstDetector::default();
        let now = Instant::now();
        let first = "the first pasted line";
        let second = "and the second one";
        let mut out = Vec::new();
        let mut at = now;
        for c in first.chars() {
            at += Duration::from_micros(1);
            out.extend(burst.push(Event::Key(key_event(c)), at));
        }
        let line_feed = Event::Key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::CONTROL));
        out.extend(burst.push(line_feed, at + Duration::from_micros(1)));
        for c in second.chars() {
            at += Duration::from_micros(1);
            out.extend(burst.push(Event::Key(key_event(c)), at + Duration::from_micros(1)));
        }
        out.extend(burst.flush(at + PASTE_JOINS + Duration::from_millis(1)));
        assert_eq!(pasted(&out), format!("{first}\n{second}"));
    }

    #[test]
    fn a_lone_key_waits_only_for_the_gap() {
        let mut burst = BurstDetector::default();
        let now = Instant::now();
        assert!(burst.push(Event::Key(key_event('q')), now).is_empty());
        assert_eq!(burst.deadline(), Some(now + BUNCH_GAP));
        assert!(burst.flush(now + Duration::from_millis(1)).is_empty());
        assert_eq!(burst.flush(now + BUNCH_GAP), vec![key('q')]);
    }
}
