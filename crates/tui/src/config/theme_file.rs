//! A theme as the config or `--theme` names it: a built-in by name, or a theme file by path,
//! read here (the config layer does the reading, so `look` stays pure); without colour when
//! NO_COLOR is set.

use std::path::Path;

use crate::look::theme::{AUTO, Background, DEFAULT_THEME, Theme, ThemeError};
use crate::look::theme_contrast::shortfalls;

/// The theme named (default `auto`), without colour when NO_COLOR is set and not empty. `auto`
/// asks `background` (the terminal's, found by the caller: the config layer does not talk to
/// the terminal) and takes the light or the dark theme; it is asked only then.
pub fn theme_from_env(
    name_or_path: Option<&str>,
    background: impl FnOnce() -> Background,
) -> Result<Theme, ThemeError> {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
    resolve(name_or_path, no_color, background)
}

fn resolve(
    name_or_path: Option<&str>,
    no_color: bool,
    background: impl FnOnce() -> Background,
) -> Result<Theme, ThemeError> {
    let theme = load_theme(name_or_path.unwrap_or(DEFAULT_THEME), background)?;
    Ok(if no_color { theme.no_color() } else { theme })
}

/// A built-in theme by name (`auto` by the background), or a theme file by path. A file whose
/// text falls short of its contrast is taken, and each shortfall logged.
pub(crate) fn load_theme(
    name_or_path: &str,
    background: impl FnOnce() -> Background,
) -> Result<Theme, ThemeError> {
    if name_or_path == AUTO {
        let name = background().theme_name();
        return Theme::builtin(name).ok_or_else(|| ThemeError::NotFound(name.to_string()));
    }
    if let Some(theme) = Theme::builtin(name_or_path) {
        return Ok(theme);
    }
    let path = Path::new(name_or_path);
    let text = std::fs::read_to_string(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            ThemeError::NotFound(name_or_path.to_string())
        } else {
            ThemeError::Read {
                path: name_or_path.to_string(),
                source,
            }
        }
    })?;
    let name = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| name_or_path.to_string());
    let theme = Theme::from_toml(&name, &text)?;
    for shortfall in shortfalls(&theme) {
        tracing::warn!(theme = %name_or_path, "the theme is hard to read: {shortfall}");
    }
    Ok(theme)
}

#[cfg(test)]
mod tests {
    use ratatui::style::Color;

    use super::*;

    fn unasked() -> Background {
        panic!("the background is asked only for auto")
    }

    #[test]
    fn no_color_drops_the_colours_of_the_theme_named() {
        let resolved = resolve(Some("light"), true, unasked).expect("light");
        assert_eq!(resolved.text.fg, None);
        let coloured = resolve(None, false, || Background::Dark).expect("dark");
        assert_eq!(coloured.name, "dark");
        assert!(coloured.text.fg.is_some());
    }

    #[test]
    fn auto_is_the_default_and_takes_the_theme_of_the_background() {
        assert_eq!(
            resolve(None, false, || Background::Light)
                .expect("auto")
                .name,
            "light"
        );
        assert_eq!(
            resolve(Some("auto"), false, || Background::Dark)
                .expect("auto")
                .name,
            "dark"
        );
        // An explicit name never asks the terminal.
        assert_eq!(
            resolve(Some("high-contrast"), false, unasked)
                .expect("named")
                .name,
            "high-contrast"
        );
    }

    #[test]
    fn load_takes_a_name_or_a_path() {
        assert_eq!(load_theme("light", unasked).expect("light").name, "light");
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("sunset.toml");
        std::fs::write(
            &path,
            "accent = { fg = \"#ff8800\", modifiers = [\"bold\"] }",
        )
        .expect("write");
        let theme = load_theme(path.to_str().expect("utf-8 path"), unasked).expect("loads");
        assert_eq!(theme.name, "sunset");
        assert_eq!(theme.accent.fg, Some(Color::Rgb(0xff, 0x88, 0)));
        assert!(matches!(
            load_theme("/no/such/theme.toml", unasked),
            Err(ThemeError::NotFound(_))
        ));
    }
}
