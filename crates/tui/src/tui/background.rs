//! Is the terminal's background dark or light? For `theme = "auto"`, asked once at the start,
//! before the screens take the terminal over: the terminal's own answer to OSC 11 (its
//! background colour), else `COLORFGBG` (set by rxvt, Konsole and others), else dark.
//!
//! The query is terminal-colorsaurus's: it sends OSC 11 with a DA1 request behind it, which
//! every terminal answers, so a terminal that does not know OSC 11 is told apart at once instead
//! of at the timeout, and it reads both replies whole, so none of their bytes is left in the
//! input for the phone to take as keys. It puts the terminal in raw mode for the query and back.

use std::io::IsTerminal;
use std::time::Duration;

use crate::look::theme::Background;

/// How long the terminal has to answer; a local terminal answers in a few milliseconds.
const QUERY_TIMEOUT: Duration = Duration::from_millis(200);

/// The terminal's background, and how it was found (for the log).
pub fn detect() -> Background {
    let started = std::time::Instant::now();
    let (background, how) = find(query_osc11, std::env::var("COLORFGBG").ok().as_deref());
    tracing::info!(
        "theme auto: {} ({how}; {} ms)",
        background.theme_name(),
        started.elapsed().as_millis()
    );
    background
}

/// The background from the terminal's answer, else from COLORFGBG, else dark.
fn find(
    query: impl FnOnce() -> Result<Background, String>,
    colorfgbg: Option<&str>,
) -> (Background, String) {
    let asked = match query() {
        Ok(background) => return (background, "the terminal's answer to OSC 11".into()),
        Err(why) => why,
    };
    match colorfgbg.and_then(from_colorfgbg) {
        Some(background) => (
            background,
            format!("COLORFGBG; the terminal did not say: {asked}"),
        ),
        None => (
            Background::Dark,
            format!("the default; the terminal did not say ({asked}) and COLORFGBG is not set"),
        ),
    }
}

/// OSC 11 through terminal-colorsaurus, only when both ends are a terminal.
fn query_osc11() -> Result<Background, String> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err("not a terminal".into());
    }
    let mut options = terminal_colorsaurus::QueryOptions::default();
    options.timeout = QUERY_TIMEOUT;
    let colour = terminal_colorsaurus::background_color(options).map_err(|e| e.to_string())?;
    Ok(if colour.perceived_lightness() > 0.5 {
        Background::Light
    } else {
        Background::Dark
    })
}

/// `COLORFGBG` is `FG;BG` (or `FG;default;BG`) in ANSI colour numbers: a background of 0–6 or
/// 8 is dark, 7 or 9–15 light (the rule vim and others use).
fn from_colorfgbg(value: &str) -> Option<Background> {
    let background: u8 = value.rsplit(';').next()?.trim().parse().ok()?;
    match background {
        0..=6 | 8 => Some(Background::Dark),
        7 | 9..=15 => Some(Background::Light),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colorfgbg_says_dark_or_light_by_its_last_number() {
        assert_eq!(from_colorfgbg("15;0"), Some(Background::Dark));
        assert_eq!(from_colorfgbg("0;15"), Some(Background::Light));
        assert_eq!(from_colorfgbg("0;default;7"), Some(Background::Light));
        assert_eq!(from_colorfgbg("7;8"), Some(Background::Dark));
        assert_eq!(from_colorfgbg("default"), None);
        assert_eq!(from_colorfgbg(""), None);
        assert_eq!(from_colorfgbg("0;200"), None);
    }

    #[test]
    fn the_terminal_first_then_colorfgbg_then_dark() {
        let light = || Ok(Background::Light);
        let silent = || Err("timed out".to_string());
        assert_eq!(find(light, Some("15;0")).0, Background::Light);
        let (background, how) = find(silent, Some("0;15"));
        assert_eq!(background, Background::Light);
        assert!(how.starts_with("COLORFGBG"), "{how}");
        let (background, how) = find(silent, None);
        assert_eq!(background, Background::Dark);
        assert!(how.starts_with("the default"), "{how}");
        assert_eq!(find(silent, Some("junk")).0, Background::Dark);
    }
}
