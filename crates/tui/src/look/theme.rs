//! Colour themes read from flat TOML files (one key per style), three built in.
//!
//! A key is either a colour string (the foreground) or an inline table
//! `{ fg = "...", bg = "...", modifiers = ["bold", ...] }`. Colours are names ("red",
//! "dark gray", "reset"), `#rrggbb`, or a 0–255 palette index. A missing key takes the dark
//! theme's value; an unknown key is an error that names it, so a typo never goes unnoticed.

use ratatui::style::{Color, Modifier, Style};

const DARK: &str = include_str!("../../../../themes/dark.toml");
const LIGHT: &str = include_str!("../../../../themes/light.toml");
const HIGH_CONTRAST: &str = include_str!("../../../../themes/high-contrast.toml");

/// The theme used when none is named: light or dark by the terminal's background.
pub(crate) const DEFAULT_THEME: &str = AUTO;
/// The name that picks light or dark by the terminal's background.
pub(crate) const AUTO: &str = "auto";

/// Whether the terminal's background is dark or light (for `theme = "auto"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Background {
    Dark,
    Light,
}

impl Background {
    /// The built-in theme made for this background.
    pub(crate) fn theme_name(self) -> &'static str {
        match self {
            Self::Dark => "dark",
            Self::Light => "light",
        }
    }
}
/// The names [`Theme::builtin`] knows.
pub(crate) const BUILTIN_THEMES: [&str; 3] = ["dark", "light", "high-contrast"];

#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error("theme {theme}: not valid TOML: {message}")]
    Toml { theme: String, message: String },
    #[error("theme {theme}: unknown key `{key}`")]
    UnknownKey { theme: String, key: String },
    #[error("theme {theme}: `{key}`: {message}")]
    BadValue {
        theme: String,
        key: String,
        message: String,
    },
    #[error(
        "no built-in theme named {0:?} (built in: auto, dark, light, high-contrast) and no file there"
    )]
    NotFound(String),
    #[error("theme file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
}

/// Every style the phone draws with.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub(crate) name: String,
    /// The background the theme is made for (its file's `background`): not painted, but what
    /// each style's contrast is judged against (`look::theme_contrast`).
    pub(crate) background: Color,
    pub(crate) text: Style,
    pub(crate) dim: Style,
    pub(crate) accent: Style,
    pub(crate) title: Style,
    pub(crate) border: Style,
    pub(crate) selected: Style,
    pub(crate) ok: Style,
    pub(crate) warn: Style,
    pub(crate) danger: Style,
    pub(crate) user: Style,
    pub(crate) reply: Style,
    pub(crate) thinking: Style,
    pub(crate) notice: Style,
    pub(crate) code: Style,
    pub(crate) link: Style,
    pub(crate) countdown: Style,
    pub(crate) countdown_urgent: Style,
}

impl Theme {
    /// A theme shipped with the program: "dark", "light" or "high-contrast".
    pub fn builtin(name: &str) -> Option<Theme> {
        let text = match name {
            "dark" => DARK,
            "light" => LIGHT,
            "high-contrast" => HIGH_CONTRAST,
            _ => return None,
        };
        match Self::from_toml(name, text) {
            Ok(theme) => Some(theme),
            Err(error) => {
                // The files are checked by the tests; this only guards against a broken build.
                tracing::error!(%error, "built-in theme does not parse");
                None
            }
        }
    }

    /// Reads a theme from TOML text; missing keys take the dark theme's value.
    pub(crate) fn from_toml(name: &str, text: &str) -> Result<Theme, ThemeError> {
        let base = parse_onto(Theme::blank("dark"), "dark", DARK)?;
        let mut theme = parse_onto(base, name, text)?;
        theme.name = name.to_string();
        Ok(theme)
    }

    /// The theme without any colour, for NO_COLOR (<https://no-color.org>): modifiers stay.
    /// The selection and the urgent countdown get a modifier of their own so they stay visible.
    pub(crate) fn no_color(self) -> Theme {
        let strip = |style: Style| Style {
            add_modifier: style.add_modifier,
            sub_modifier: style.sub_modifier,
            ..Style::default()
        };
        Theme {
            name: self.name,
            background: self.background,
            text: strip(self.text),
            dim: strip(self.dim),
            accent: strip(self.accent),
            title: strip(self.title),
            border: strip(self.border),
            selected: strip(self.selected).add_modifier(Modifier::REVERSED),
            ok: strip(self.ok),
            warn: strip(self.warn),
            danger: strip(self.danger),
            user: strip(self.user),
            reply: strip(self.reply),
            thinking: strip(self.thinking),
            notice: strip(self.notice),
            code: strip(self.code),
            link: strip(self.link),
            countdown: strip(self.countdown),
            countdown_urgent: strip(self.countdown_urgent).add_modifier(Modifier::BOLD),
        }
    }

    fn blank(name: &str) -> Theme {
        let plain = Style::default();
        Theme {
            name: name.to_string(),
            background: Color::Reset,
            text: plain,
            dim: plain,
            accent: plain,
            title: plain,
            border: plain,
            selected: plain,
            ok: plain,
            warn: plain,
            danger: plain,
            user: plain,
            reply: plain,
            thinking: plain,
            notice: plain,
            code: plain,
            link: plain,
            countdown: plain,
            countdown_urgent: plain,
        }
    }

    fn slot(&mut self, key: &str) -> Option<&mut Style> {
        Some(match key {
            "text" => &mut self.text,
            "dim" => &mut self.dim,
            "accent" => &mut self.accent,
            "title" => &mut self.title,
            "border" => &mut self.border,
            "selected" => &mut self.selected,
            "ok" => &mut self.ok,
            "warn" => &mut self.warn,
            "danger" => &mut self.danger,
            "user" => &mut self.user,
            "reply" => &mut self.reply,
            "thinking" => &mut self.thinking,
            "notice" => &mut self.notice,
            "code" => &mut self.code,
            "link" => &mut self.link,
            "countdown" => &mut self.countdown,
            "countdown_urgent" => &mut self.countdown_urgent,
            _ => return None,
        })
    }
}

/// Sets on `theme` every style `text` names.
fn parse_onto(mut theme: Theme, name: &str, text: &str) -> Result<Theme, ThemeError> {
    let table: toml::Table = toml::from_str(text).map_err(|error| ThemeError::Toml {
        theme: name.to_string(),
        message: error.message().to_string(),
    })?;
    for (key, value) in &table {
        if key == "background" {
            let colour = value.as_str().ok_or_else(|| ThemeError::BadValue {
                theme: name.to_string(),
                key: key.clone(),
                message: "the background is a colour string".into(),
            })?;
            theme.background = parse_colour(colour).map_err(|message| ThemeError::BadValue {
                theme: name.to_string(),
                key: key.clone(),
                message,
            })?;
            continue;
        }
        let style = parse_style(name, key, value)?;
        let slot = theme.slot(key).ok_or_else(|| ThemeError::UnknownKey {
            theme: name.to_string(),
            key: key.clone(),
        })?;
        *slot = style;
    }
    Ok(theme)
}

fn parse_style(theme: &str, key: &str, value: &toml::Value) -> Result<Style, ThemeError> {
    let bad = |message: String| ThemeError::BadValue {
        theme: theme.to_string(),
        key: key.to_string(),
        message,
    };
    match value {
        toml::Value::String(colour) => Ok(Style::default().fg(parse_colour(colour).map_err(bad)?)),
        toml::Value::Table(fields) => {
            let mut style = Style::default();
            for (field, field_value) in fields {
                let field_key = format!("{key}.{field}");
                let bad_field = |message: String| ThemeError::BadValue {
                    theme: theme.to_string(),
                    key: field_key.clone(),
                    message,
                };
                match field.as_str() {
                    "fg" | "bg" => {
                        let colour = field_value
                            .as_str()
                            .ok_or_else(|| bad_field("a colour must be a string".into()))?;
                        let colour = parse_colour(colour).map_err(bad_field)?;
                        style = if field == "fg" {
                            style.fg(colour)
                        } else {
                            style.bg(colour)
                        };
                    }
                    "modifiers" => {
                        let names = field_value.as_array().ok_or_else(|| {
                            bad_field("modifiers must be a list of strings".into())
                        })?;
                        for modifier in names {
                            let modifier = modifier.as_str().ok_or_else(|| {
                                bad_field("modifiers must be a list of strings".into())
                            })?;
                            style =
                                style.add_modifier(parse_modifier(modifier).map_err(bad_field)?);
                        }
                    }
                    _ => {
                        return Err(ThemeError::UnknownKey {
                            theme: theme.to_string(),
                            key: field_key,
                        });
                    }
                }
            }
            Ok(style)
        }
        _ => Err(bad(
            "expected a colour string or a table { fg, bg, modifiers }".into(),
        )),
    }
}

fn parse_colour(text: &str) -> Result<Color, String> {
    text.parse::<Color>()
        .map_err(|_| format!("{text:?} is not a colour (a name, #rrggbb or 0-255)"))
}

fn parse_modifier(text: &str) -> Result<Modifier, String> {
    Ok(match text {
        "bold" => Modifier::BOLD,
        "dim" => Modifier::DIM,
        "italic" => Modifier::ITALIC,
        "underlined" | "underline" => Modifier::UNDERLINED,
        "reversed" => Modifier::REVERSED,
        "crossed_out" | "strikethrough" => Modifier::CROSSED_OUT,
        "slow_blink" => Modifier::SLOW_BLINK,
        "hidden" => Modifier::HIDDEN,
        other => {
            return Err(format!(
                "{other:?} is not a modifier (bold, dim, italic, underlined, reversed, crossed_out, slow_blink, hidden)"
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn colours(style: &Style) -> [Option<Color>; 2] {
        [style.fg, style.bg]
    }

    fn all_styles(theme: &Theme) -> Vec<Style> {
        vec![
            theme.text,
            theme.dim,
            theme.accent,
            theme.title,
            theme.border,
            theme.selected,
            theme.ok,
            theme.warn,
            theme.danger,
            theme.user,
            theme.reply,
            theme.thinking,
            theme.notice,
            theme.code,
            theme.link,
            theme.countdown,
            theme.countdown_urgent,
        ]
    }

    #[test]
    fn every_builtin_parses_and_sets_every_key() {
        for name in BUILTIN_THEMES {
            let text = match name {
                "dark" => DARK,
                "light" => LIGHT,
                _ => HIGH_CONTRAST,
            };
            let theme = parse_onto(Theme::blank(name), name, text).expect("parses");
            for style in all_styles(&theme) {
                assert_ne!(style, Style::default(), "{name} leaves a key unset");
            }
            assert_eq!(Theme::builtin(name).expect("builtin").name, name);
        }
        assert!(Theme::builtin("neon").is_none());
    }

    #[test]
    fn countdown_urgent_is_red_in_every_builtin() {
        for name in BUILTIN_THEMES {
            let theme = Theme::builtin(name).expect("builtin");
            assert!(
                matches!(
                    theme.countdown_urgent.fg,
                    Some(Color::Red | Color::LightRed | Color::Rgb(160..=255, 0..=128, 0..=128))
                ),
                "{name}: {:?}",
                theme.countdown_urgent.fg
            );
        }
    }

    #[test]
    fn high_contrast_uses_only_black_white_and_yellow() {
        let theme = Theme::builtin("high-contrast").expect("builtin");
        let mut styles = all_styles(&theme);
        // The urgent countdown is red in every theme.
        styles.retain(|style| *style != theme.countdown_urgent);
        for style in styles {
            for colour in colours(&style).into_iter().flatten() {
                assert!(
                    matches!(
                        colour,
                        Color::Black | Color::White | Color::Yellow | Color::Reset
                    ),
                    "{colour:?}"
                );
            }
        }
    }

    #[test]
    fn no_color_leaves_no_colour_but_keeps_modifiers() {
        for name in BUILTIN_THEMES {
            let theme = Theme::builtin(name).expect("builtin");
            let bold_title = theme.title.add_modifier.contains(Modifier::BOLD);
            let plain = theme.no_color();
            for style in all_styles(&plain) {
                assert_eq!(colours(&style), [None, None]);
                assert_eq!(style.underline_color, None);
            }
            assert_eq!(
                plain.title.add_modifier.contains(Modifier::BOLD),
                bold_title
            );
            assert!(plain.selected.add_modifier.contains(Modifier::REVERSED));
        }
    }

    #[test]
    fn a_bad_key_is_reported_by_name() {
        let error = Theme::from_toml("mine", "txet = \"red\"").expect_err("unknown key");
        assert!(error.to_string().contains("txet"), "{error}");
        let error =
            Theme::from_toml("mine", "text = { fg = \"red\", colour = \"x\" }").expect_err("key");
        assert!(error.to_string().contains("text.colour"), "{error}");
        let error = Theme::from_toml("mine", "text = \"reddish\"").expect_err("colour");
        assert!(error.to_string().contains("reddish"), "{error}");
        let error =
            Theme::from_toml("mine", "text = { modifiers = [\"blinky\"] }").expect_err("modifier");
        assert!(error.to_string().contains("blinky"), "{error}");
        let error = Theme::from_toml("mine", "text = 3").expect_err("number");
        assert!(error.to_string().contains("text"), "{error}");
        assert!(Theme::from_toml("mine", "text = ").is_err());
    }

    #[test]
    fn a_missing_key_falls_back_to_dark() {
        let dark = Theme::builtin("dark").expect("dark");
        let theme = Theme::from_toml("mine", "text = \"#010203\"").expect("parses");
        assert_eq!(theme.text.fg, Some(Color::Rgb(1, 2, 3)));
        assert_eq!(theme.accent, dark.accent);
        assert_eq!(theme.name, "mine");
    }
}
