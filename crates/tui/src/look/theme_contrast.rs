//! How readable a theme is: the WCAG 2 contrast ratio of each style's text against the
//! background it is drawn on (its own, else the theme's `background`). Body text must reach
//! 4.5:1 and muted text (`dim`, `thinking`) 3:1. Borders are lines, not words, and are not
//! judged. A named ANSI colour has no fixed RGB (each terminal has its palette); it is judged as
//! xterm's default palette shows it, so the built-in themes use RGB where that matters.

use ratatui::style::{Color, Modifier, Style};

use super::theme::Theme;

/// The least contrast body text may have (WCAG 2, level AA).
pub(crate) const BODY: f64 = 4.5;
/// The least contrast muted text may have.
pub(crate) const MUTED: f64 = 3.0;

/// xterm's default palette for the 16 ANSI colours.
const XTERM: [(u8, u8, u8); 16] = [
    (0x00, 0x00, 0x00),
    (0xcd, 0x00, 0x00),
    (0x00, 0xcd, 0x00),
    (0xcd, 0xcd, 0x00),
    (0x00, 0x00, 0xee),
    (0xcd, 0x00, 0xcd),
    (0x00, 0xcd, 0xcd),
    (0xe5, 0xe5, 0xe5),
    (0x7f, 0x7f, 0x7f),
    (0xff, 0x00, 0x00),
    (0x00, 0xff, 0x00),
    (0xff, 0xff, 0x00),
    (0x5c, 0x5c, 0xff),
    (0xff, 0x00, 0xff),
    (0x00, 0xff, 0xff),
    (0xff, 0xff, 0xff),
];

/// A colour as RGB, the named and indexed ones by xterm's palette; None for `reset` (the
/// terminal's own, unknown here).
pub(crate) fn rgb(colour: Color) -> Option<(u8, u8, u8)> {
    let index = match colour {
        Color::Reset => return None,
        Color::Rgb(r, g, b) => return Some((r, g, b)),
        Color::Black => 0,
        Color::Red => 1,
        Color::Green => 2,
        Color::Yellow => 3,
        Color::Blue => 4,
        Color::Magenta => 5,
        Color::Cyan => 6,
        Color::Gray => 7,
        Color::DarkGray => 8,
        Color::LightRed => 9,
        Color::LightGreen => 10,
        Color::LightYellow => 11,
        Color::LightBlue => 12,
        Color::LightMagenta => 13,
        Color::LightCyan => 14,
        Color::White => 15,
        Color::Indexed(n) => n,
    };
    Some(match index {
        0..=15 => XTERM[usize::from(index)],
        16..=231 => {
            let step = |n: u8| if n == 0 { 0 } else { 55 + 40 * n };
            let n = index - 16;
            (step(n / 36), step(n / 6 % 6), step(n % 6))
        }
        _ => {
            let grey = 8 + 10 * (index - 232);
            (grey, grey, grey)
        }
    })
}

/// WCAG 2 relative luminance.
fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.040_45 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
}

/// The WCAG 2 contrast ratio of two colours, from 1 to 21.
pub(crate) fn ratio(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
    let (a, b) = (luminance(a), luminance(b));
    let (light, dark) = if a > b { (a, b) } else { (b, a) };
    (light + 0.05) / (dark + 0.05)
}

/// One style judged: its name, its contrast (None when a colour is the terminal's own), and
/// the least it needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Judged {
    pub(crate) key: &'static str,
    pub(crate) ratio: Option<f64>,
    pub(crate) needs: f64,
}

impl Judged {
    pub(crate) fn holds(&self) -> bool {
        self.ratio.is_some_and(|ratio| ratio >= self.needs)
    }
}

/// The contrast of a style's text against what it is drawn on; reversed styles swap.
fn style_ratio(style: &Style, background: Color) -> Option<f64> {
    let mut fg = style.fg?;
    let mut bg = style.bg.unwrap_or(background);
    if style.add_modifier.contains(Modifier::REVERSED) {
        std::mem::swap(&mut fg, &mut bg);
    }
    Some(ratio(rgb(fg)?, rgb(bg)?))
}

/// Every text style of the theme, judged (the border is not text).
pub(crate) fn judge(theme: &Theme) -> Vec<Judged> {
    let styles: [(&'static str, &Style, f64); 16] = [
        ("text", &theme.text, BODY),
        ("dim", &theme.dim, MUTED),
        ("accent", &theme.accent, BODY),
        ("title", &theme.title, BODY),
        ("selected", &theme.selected, BODY),
        ("ok", &theme.ok, BODY),
        ("warn", &theme.warn, BODY),
        ("danger", &theme.danger, BODY),
        ("user", &theme.user, BODY),
        ("reply", &theme.reply, BODY),
        ("thinking", &theme.thinking, MUTED),
        ("notice", &theme.notice, BODY),
        ("code", &theme.code, BODY),
        ("link", &theme.link, BODY),
        ("countdown", &theme.countdown, BODY),
        ("countdown_urgent", &theme.countdown_urgent, BODY),
    ];
    styles
        .into_iter()
        .map(|(key, style, needs)| Judged {
            key,
            ratio: style_ratio(style, theme.background),
            needs,
        })
        .collect()
}

/// The styles below their contrast, in words for the log: "`dim` has 2.8:1 against its
/// background, below 3:1".
pub(crate) fn shortfalls(theme: &Theme) -> Vec<String> {
    judge(theme)
        .into_iter()
        .filter(|judged| !judged.holds())
        .map(|judged| match judged.ratio {
            Some(ratio) => format!(
                "`{}` has {ratio:.1}:1 against its background, below {}:1",
                judged.key, judged.needs
            ),
            None => format!(
                "`{}` uses the terminal's own colour, so its contrast cannot be judged",
                judged.key
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::look::theme::BUILTIN_THEMES;

    #[test]
    fn ratios_are_the_wcag_ones() {
        let black = (0, 0, 0);
        let white = (255, 255, 255);
        assert!((ratio(black, white) - 21.0).abs() < 1e-9);
        assert!((ratio(white, white) - 1.0).abs() < 1e-9);
        // #767676 on white is the classic 4.54:1.
        assert!((ratio((0x76, 0x76, 0x76), white) - 4.54).abs() < 0.01);
        assert_eq!(rgb(Color::Red), Some((0xcd, 0, 0)));
        assert_eq!(rgb(Color::Indexed(196)), Some((255, 0, 0)));
        assert_eq!(rgb(Color::Indexed(244)), Some((128, 128, 128)));
        assert_eq!(rgb(Color::Reset), None);
    }

    /// Every theme file in themes/ and every built-in theme: body text ≥ 4.5:1, muted ≥ 3:1.
    #[test]
    fn every_theme_file_and_builtin_has_readable_text() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../../themes");
        let mut themes = Vec::new();
        for entry in std::fs::read_dir(folder).expect("themes/") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "toml") {
                let text = std::fs::read_to_string(&path).expect("read");
                let name = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                themes.push(Theme::from_toml(&name, &text).expect("parses"));
            }
        }
        assert_eq!(
            themes.len(),
            BUILTIN_THEMES.len(),
            "a theme file is not built in?"
        );
        themes.extend(
            BUILTIN_THEMES
                .iter()
                .map(|name| Theme::builtin(name).expect("built in")),
        );
        let mut table = Vec::new();
        for theme in &themes {
            for judged in judge(theme) {
                table.push(format!(
                    "{} {} {:.2}",
                    theme.name,
                    judged.key,
                    judged.ratio.unwrap_or(0.0)
                ));
            }
            assert_eq!(shortfalls(theme), Vec::<String>::new(), "{}", theme.name);
        }
        println!("{}", table.join("\n"));
    }

    #[test]
    fn a_faint_theme_is_told_what_falls_short() {
        let theme = Theme::from_toml(
            "faint",
            "background = \"#ffffff\"\ntext = \"#aaaaaa\"\ndim = { fg = \"#eeeeee\" }",
        )
        .expect("parses");
        let short = shortfalls(&theme);
        assert!(
            short.iter().any(|s| s.starts_with("`text` has 2.3:1")),
            "{short:?}"
        );
        assert!(
            short
                .iter()
                .any(|s| s.starts_with("`dim` has 1.2:1") && s.ends_with("below 3:1")),
            "{short:?}"
        );
    }
}
