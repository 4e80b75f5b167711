//! Paste that arrives without bracketed-paste markers (tmux `paste-buffer` without `-p`, many
//! terminals over ssh) reaches us as a burst of key presses: without care every newline in it
//! is an Enter that sends, and every letter on a screen that does not take typing is a command
//! (`q` quits). This tells such a burst from typing and turns it into one paste.
//!
//! A person's keys are tens of milliseconds apart (150 words a minute is ~70 ms a key); a
//! paste's keys come microseconds apart, or in a few chunks over ssh. So each text key is held
//! for [`BURST_GAP`] before it is handed on: if the next one comes sooner, they are a burst. A
//! burst of at least [`PASTE_MIN_KEYS`] keys, or one where text follows an Enter, is a paste;
//! once in a paste, keys that come within [`PASTE_CONTINUES`] still belong to it (the next
//! chunk of a long paste). A short burst is handed on as the keys it was: two quick `j`s on a
//! list still move twice. The cost is [`BURST_GAP`] of delay on each key, below what a person
//! notices.
//!
//! The phone reads the terminal with crossterm's `use-dev-tty` source: its default (mio) source
//! stops reading midway through a long burst of keys and hands over the rest only with the next
//! key press (an edge-triggered read that returns before draining the terminal; crossterm PR
//! 1057, open), which would cut such a paste in two.

use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// Keys closer than this are one burst.
pub(crate) const BURST_GAP: Duration = Duration::from_millis(5);
/// Keys in one burst that only a paste brings.
pub(crate) const PASTE_MIN_KEYS: usize = 8;
/// How long after a paste's last key its next chunk still belongs to it.
pub(crate) const PASTE_CONTINUES: Duration = Duration::from_millis(50);
/// A paste is handed on in pieces of this many characters, so a long one shows as it comes.
const PASTE_PIECE: usize = 4096;

/// Holds the keys of a burst until it is known whether they are typing or a paste.
#[derive(Debug, Default)]
pub(crate) struct BurstDetector {
    /// Text keys of the current burst, not handed on yet.
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
            Some(last + PASTE_CONTINUES)
        } else if !self.held.is_empty() {
            Some(last + BURST_GAP)
        } else {
            None
        }
    }

    /// An event came at `now`: returns what is to be handled now, in order.
    pub(crate) fn push(&mut self, event: Event, now: Instant) -> Vec<Event> {
        let mut out = Vec::new();
        let key = match &event {
            Event::Key(key) if text_of(key).is_some() => *key,
            // Anything else ends the burst first, keeping the order.
            _ => {
                out.extend(self.release());
                out.push(event);
                return out;
            }
        };
        let gap = self.last.map(|at| now.saturating_duration_since(at));
        let continues = match (&self.paste, gap) {
            (Some(_), Some(gap)) => gap <= PASTE_CONTINUES,
            (None, Some(gap)) => gap <= BURST_GAP,
            (_, None) => false,
        };
        if !continues {
            out.extend(self.release());
        }
        self.last = Some(now);
        match &mut self.paste {
            Some(text) => text.extend(text_of(&key)),
            None => {
                self.held.push(key);
                if self.looks_like_paste() {
                    let text: String = self.held.drain(..).filter_map(|k| text_of(&k)).collect();
                    self.paste = Some(text);
                }
            }
        }
        if let Some(text) = &mut self.paste
            && text.len() >= PASTE_PIECE
        {
            out.push(Event::Paste(std::mem::take(text)));
        }
        out
    }

    /// Hands on what is held once its deadline passed at `now`.
    pub(crate) fn flush(&mut self, now: Instant) -> Vec<Event> {
        match self.deadline() {
            Some(deadline) if now >= deadline => self.release(),
            _ => Vec::new(),
        }
    }

    /// Ends the burst: a paste as one event, held keys as the keys they were.
    fn release(&mut self) -> Vec<Event> {
        let mut out: Vec<Event> = self.held.drain(..).map(Event::Key).collect();
        if let Some(text) = self.paste.take()
            && !text.is_empty()
        {
            out.push(Event::Paste(text));
        }
        out
    }

    fn looks_like_paste(&self) -> bool {
        if self.held.len() >= PASTE_MIN_KEYS {
            return true;
        }
        let mut seen_enter = false;
        for text in self.held.iter().filter_map(text_of) {
            if text == '\n' {
                seen_enter = true;
            } else if seen_enter {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char) -> Event {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\t' => KeyCode::Tab,
            c => KeyCode::Char(c),
        };
        Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    /// Feeds `text` a key every `step`, then lets the deadline pass; returns what came out.
    fn feed(burst: &mut BurstDetector, text: &str, start: Instant, step: Duration) -> Vec<Event> {
        let mut out = Vec::new();
        let mut at = start;
        for c in text.chars() {
            out.extend(burst.flush(at));
            out.extend(burst.push(key(c), at));
            at += step;
        }
        out.extend(burst.flush(at + PASTE_CONTINUES + BURST_GAP));
        out
    }

    fn pasted(events: &[Event]) -> String {
        events
            .iter()
            .map(|e| match e {
                Event::Paste(text) => text.clone(),
                _ => String::new(),
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
        let expected: Vec<Event> = "alpha\n beta\n".chars().map(key).collect();
        assert_eq!(out, expected);
        assert!(burst.is_idle());
    }

    #[test]
    fn two_quick_moves_stay_two_moves() {
        let mut burst = BurstDetector::default();
        let out = feed(&mut burst, "jj", Instant::now(), Duration::from_micros(50));
        assert_eq!(out, vec![key('j'), key('j')]);
    }

    #[test]
    fn text_after_enter_in_a_burst_is_a_paste() {
        let mut burst = BurstDetector::default();
        let out = feed(
            &mut burst,
            "ls\nrm",
            Instant::now(),
            Duration::from_micros(50),
        );
        assert_eq!(out, vec![Event::Paste("ls\nrm".into())]);
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
            out.extend(burst.push(key(c), at));
        }
        out.extend(burst.flush(at + PASTE_CONTINUES));
        assert!(out.iter().all(|e| matches!(e, Event::Paste(_))));
        assert_eq!(pasted(&out), text);
        assert!(burst.is_idle());
    }

    #[test]
    fn other_keys_end_the_burst_in_order() {
        let mut burst = BurstDetector::default();
        let now = Instant::now();
        let mut out = Vec::new();
        for (i, c) in "0123456789".chars().enumerate() {
            out.extend(burst.push(key(c), now + Duration::from_micros(i as u64)));
        }
        let esc = Event::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
        out.extend(burst.push(esc.clone(), now + Duration::from_micros(20)));
        assert_eq!(out, vec![Event::Paste("0123456789".into()), esc]);
    }

    #[test]
    fn a_pasted_line_feed_is_a_newline_not_a_command() {
        let mut burst = BurstDetector::default();
        let now = Instant::now();
        let mut out = Vec::new();
        for (i, c) in "first".chars().enumerate() {
            out.extend(burst.push(key(c), now + Duration::from_micros(i as u64)));
        }
        let line_feed = Event::Key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::CONTROL));
        out.extend(burst.push(line_feed, now + Duration::from_micros(6)));
        for (i, c) in "second".chars().enumerate() {
            out.extend(burst.push(key(c), now + Duration::from_micros(7 + i as u64)));
        }
        out.extend(burst.flush(now + PASTE_CONTINUES + Duration::from_millis(1)));
        assert_eq!(pasted(&out), "first\nsecond");
    }

    #[test]
    fn a_lone_key_waits_only_for_the_gap() {
        let mut burst = BurstDetector::default();
        let now = Instant::now();
        assert!(burst.push(key('q'), now).is_empty());
        assert_eq!(burst.deadline(), Some(now + BURST_GAP));
        assert!(burst.flush(now + Duration::from_millis(1)).is_empty());
        assert_eq!(burst.flush(now + BURST_GAP), vec![key('q')]);
    }
}
