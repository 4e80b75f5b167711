//! Paste that arrives without bracketed-paste markers (tmux `paste-buffer` without `-p`, many
//! terminals over ssh) reaches us as a burst of key presses: without care every newline in it
//! is an Enter that sends, and every letter on a screen that does not take typing is a command
//! (`q` quits). This tells such a burst from typing and turns it into one paste.
//!
//! A person's keys come one per read of the terminal: even at 150 words a minute there are
//! ~70 ms between them, and the phone reads each long before the next. A paste comes in reads
//! of many keys at once (the terminal writes it in one go; the kernel hands it over in chunks).
//! So a batch of keys that were all waiting at the same moment is a paste when
//! - it holds at least [`PASTE_MIN_KEYS`] text keys (no person types that many in one read), or
//! - an Enter in it is followed by more text (a person never types on after Enter before the
//!   phone read the Enter, unless the phone stalled; then the safe side wins: no send), or
//! - it follows a paste within [`PASTE_CONTINUES`] (the rest of a long paste, in its chunks).
//!
//! A batch of only "alpha" and Enter, as a fast typist or a laggy ssh may deliver, stays keys:
//! the Enter sends, as it would have a moment later.

use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// Text keys in one read that only a paste brings.
pub const PASTE_MIN_KEYS: usize = 12;
/// How soon after a paste's last chunk the next chunk still belongs to it.
pub const PASTE_CONTINUES: Duration = Duration::from_millis(50);

/// Remembers when the last paste-like burst was handled.
#[derive(Debug, Default)]
pub struct BurstDetector {
    last_paste: Option<Instant>,
}

/// A key that types text: a character (Shift allowed), Enter or Tab, with no Ctrl or Alt.
fn text_of(key: &KeyEvent) -> Option<char> {
    if key.kind == KeyEventKind::Release
        || key
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
    /// Sorts a batch of events that were all waiting at `now`: a paste-like batch has its runs
    /// of text keys joined into [`Event::Paste`]; other events keep their place and order.
    pub fn sort(&mut self, batch: Vec<Event>, now: Instant) -> Vec<Event> {
        if !self.is_paste(&batch, now) {
            return batch;
        }
        self.last_paste = Some(now);
        let mut out = Vec::new();
        let mut text = String::new();
        for event in batch {
            match &event {
                Event::Key(key) if key.kind == KeyEventKind::Release => {}
                Event::Key(key) if text_of(key).is_some() => {
                    if let Some(c) = text_of(key) {
                        text.push(c);
                    }
                }
                _ => {
                    if !text.is_empty() {
                        out.push(Event::Paste(std::mem::take(&mut text)));
                    }
                    out.push(event);
                }
            }
        }
        if !text.is_empty() {
            out.push(Event::Paste(text));
        }
        out
    }

    /// The batch was handled at `now`: a long paste's next chunk counts from here, however
    /// long this one took to handle.
    pub fn handled(&mut self, now: Instant) {
        if self.last_paste.is_some() {
            self.last_paste = Some(now);
        }
    }

    fn is_paste(&self, batch: &[Event], now: Instant) -> bool {
        let texts: Vec<Option<char>> = batch
            .iter()
            .map(|event| match event {
                Event::Key(key) => text_of(key),
                _ => None,
            })
            .collect();
        let count = texts.iter().flatten().count();
        if count == 0 {
            return false;
        }
        if self
            .last_paste
            .is_some_and(|at| now.saturating_duration_since(at) <= PASTE_CONTINUES)
        {
            return true;
        }
        if count >= PASTE_MIN_KEYS {
            return true;
        }
        let mut seen_enter = false;
        for text in texts.iter().flatten() {
            if *text == '\n' {
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

    fn keys(text: &str) -> Vec<Event> {
        text.chars()
            .map(|c| {
                let code = match c {
                    '\n' => KeyCode::Enter,
                    '\t' => KeyCode::Tab,
                    c => KeyCode::Char(c),
                };
                Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
            })
            .collect()
    }

    fn pastes(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Paste(text) => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn single_keys_are_keys() {
        let mut burst = BurstDetector::default();
        let now = Instant::now();
        for event in keys("alpha\n beta\n") {
            let out = burst.sort(vec![event.clone()], now);
            assert_eq!(out, vec![event]);
        }
    }

    #[test]
    fn a_short_word_and_enter_in_one_read_still_sends() {
        let mut burst = BurstDetector::default();
        let batch = keys("alpha\n");
        assert_eq!(burst.sort(batch.clone(), Instant::now()), batch);
    }

    #[test]
    fn text_after_enter_in_one_read_is_a_paste() {
        let mut burst = BurstDetector::default();
        let out = burst.sort(keys("ls\nrm x\n"), Instant::now());
        assert_eq!(out, vec![Event::Paste("ls\nrm x\n".into())]);
    }

    #[test]
    fn a_long_paste_in_chunks_is_one_paste_and_never_an_enter() {
        let mut burst = BurstDetector::default();
        let text = "line of pasted words\n".repeat(2000);
        let events = keys(&text);
        let start = Instant::now();
        let mut joined = String::new();
        for (i, chunk) in events.chunks(1024).enumerate() {
            // Chunks a few ms apart, and the last one tiny.
            let at = start + Duration::from_millis(5 * i as u64);
            let out = burst.sort(chunk.to_vec(), at);
            assert!(out.iter().all(|e| matches!(e, Event::Paste(_))));
            joined.push_str(&pastes(&out).concat());
            burst.handled(at + Duration::from_millis(200));
        }
        assert_eq!(joined, text);
    }

    #[test]
    fn typing_resumes_after_the_paste_ended() {
        let mut burst = BurstDetector::default();
        let start = Instant::now();
        burst.sort(keys("0123456789abcdef"), start);
        let later = start + PASTE_CONTINUES + Duration::from_millis(1);
        let enter = keys("\n");
        assert_eq!(burst.sort(enter.clone(), later), enter);
    }

    #[test]
    fn other_keys_keep_their_place_in_a_paste() {
        let mut burst = BurstDetector::default();
        let mut batch = keys("0123456789abcdef");
        batch.insert(
            4,
            Event::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
        );
        batch.push(Event::Key(KeyEvent::new(
            KeyCode::Char('c'),
            KeyModifiers::CONTROL,
        )));
        let out = burst.sort(batch, Instant::now());
        assert_eq!(out.len(), 4);
        assert_eq!(out[0], Event::Paste("0123".into()));
        assert!(matches!(out[1], Event::Key(k) if k.code == KeyCode::Esc));
        assert_eq!(out[2], Event::Paste("456789abcdef".into()));
    }
}
