//! How the full signal sounds in the terminal (the config's `notify`, or `[notify]`'s
//! `style`): the terminal bell, a desktop notification through the terminal, or nothing. OSC 9
//! is read by iTerm2, WezTerm, kitty and Windows Terminal; OSC 777 by foot, Konsole,
//! rxvt-unicode and VTE terminals. The app picks the words; the runner writes the bytes.

/// Most bytes of words a notification carries: terminals and desktops cut or drop long ones.
pub(crate) const MAX_NOTICE_BYTES: usize = 200;

/// The `notify` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NotifyStyle {
    #[default]
    Bell,
    Osc9,
    Osc777,
    Off,
}

impl NotifyStyle {
    pub(crate) const ALL: [NotifyStyle; 4] = [Self::Bell, Self::Osc9, Self::Osc777, Self::Off];

    /// The word the config file uses.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Bell => "bell",
            Self::Osc9 => "osc9",
            Self::Osc777 => "osc777",
            Self::Off => "off",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|style| style.name() == name)
    }
}

/// The terminal escape that carries a desktop notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DesktopProtocol {
    Osc9,
    Osc777,
}

/// A desktop notification: its words, already clean and short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub protocol: DesktopProtocol,
    pub text: String,
}

impl Notice {
    /// The bytes the terminal reads.
    pub fn escape(&self) -> String {
        // The one escape the phone writes around words an agent chose: they go through the
        // same way out as everything else (`crate::out`, SPEC L1), one line, no token.
        let text = crate::out::line(&self.text);
        match self.protocol {
            // OSC 9 has no title. "Collie: " names the sender, and keeps the text from ever
            // starting with a digit, which ConEmu and Windows Terminal read as `9;4` progress
            // or other commands.
            DesktopProtocol::Osc9 => format!("\x1b]9;Collie: {text}\x07"),
            DesktopProtocol::Osc777 => format!("\x1b]777;notify;Collie;{text}\x07"),
        }
    }
}

/// What the full signal means under `style`: nothing, the bell, or a notice with words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Announcement {
    Bell,
    Desktop(Notice),
}

/// How what rang at one moment is announced: `agent` names who the first ring is about and
/// `titles` say what each one is, first first (`app::ringer`). None when the style is off or
/// nothing rang.
pub(crate) fn announce(style: NotifyStyle, agent: &str, titles: &[String]) -> Option<Announcement> {
    let first = titles.first()?;
    let protocol = match style {
        NotifyStyle::Off => return None,
        NotifyStyle::Bell => return Some(Announcement::Bell),
        NotifyStyle::Osc9 => DesktopProtocol::Osc9,
        NotifyStyle::Osc777 => DesktopProtocol::Osc777,
    };
    let words = match titles.len() {
        1 => format!("{agent}: {first}"),
        n => format!("{agent}: {first} (and {} more)", n - 1),
    };
    Some(Announcement::Desktop(Notice {
        protocol,
        text: notice_text(&words),
    }))
}

/// The words cleaned for an escape sequence and cut to [`MAX_NOTICE_BYTES`]: a control
/// character (ESC, BEL, a newline) would end the sequence early or start another, so each run
/// of them and of spaces becomes one space.
pub(crate) fn notice_text(words: &str) -> String {
    let mut clean = String::with_capacity(words.len().min(MAX_NOTICE_BYTES));
    for word in words.split(|c: char| c.is_control() || c.is_whitespace()) {
        if word.is_empty() {
            continue;
        }
        if !clean.is_empty() {
            clean.push(' ');
        }
        clean.push_str(word);
        if clean.len() > MAX_NOTICE_BYTES {
            break;
        }
    }
    cut_to_bytes(&clean, MAX_NOTICE_BYTES)
}

/// `text` cut at a character boundary to at most `max` bytes, ending with "…" when cut.
fn cut_to_bytes(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let ellipsis = "…";
    let mut end = max.saturating_sub(ellipsis.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{ellipsis}", text[..end].trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn titles(list: &[&str]) -> Vec<String> {
        list.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn each_style_announces_its_way() {
        let one = titles(&["shell: rm -rf build/"]);
        assert_eq!(announce(NotifyStyle::Off, "demo", &one), None);
        assert_eq!(
            announce(NotifyStyle::Bell, "demo", &one),
            Some(Announcement::Bell)
        );
        let Some(Announcement::Desktop(notice)) = announce(NotifyStyle::Osc9, "demo", &one) else {
            panic!("a desktop notice");
        };
        assert_eq!(
            notice.escape(),
            "\x1b]9;Collie: demo: shell: rm -rf build/\x07"
        );
        let Some(Announcement::Desktop(notice)) = announce(NotifyStyle::Osc777, "demo", &one)
        else {
            panic!("a desktop notice");
        };
        assert_eq!(
            notice.escape(),
            "\x1b]777;notify;Collie;demo: shell: rm -rf build/\x07"
        );
        assert_eq!(announce(NotifyStyle::Osc9, "demo", &[]), None);
    }

    #[test]
    fn several_new_asks_name_the_first_and_count_the_rest() {
        let Some(Announcement::Desktop(notice)) = announce(
            NotifyStyle::Osc777,
            "laptop",
            &titles(&["Deploy?", "Name?"]),
        ) else {
            panic!("a desktop notice");
        };
        assert_eq!(notice.text, "laptop: Deploy? (and 1 more)");
    }

    #[test]
    fn control_characters_never_reach_the_escape() {
        let text = notice_text("demo: \x1b]0;pwned\x07 next\r\n\tline \u{9b}31m");
        assert_eq!(text, "demo: ]0;pwned next line 31m");
        assert!(!text.chars().any(char::is_control));
    }

    #[test]
    fn words_are_cut_to_200_bytes_at_a_character_boundary() {
        let long = "支".repeat(150);
        let text = notice_text(&long);
        assert!(text.len() <= MAX_NOTICE_BYTES, "{}", text.len());
        assert!(text.ends_with('…'));
        let short = "a".repeat(200);
        assert_eq!(notice_text(&short), short);
        let over = "a".repeat(201);
        assert_eq!(notice_text(&over).len(), MAX_NOTICE_BYTES);
    }
}
