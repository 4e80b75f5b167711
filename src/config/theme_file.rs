//! A theme as the config or `--theme` names it: a built-in by name, or a theme file by path,
//! read here (the config layer does the reading, so `look` stays pure); without colour when
//! NO_COLOR is set.

use std::path::Path;

use crate::look::theme::{DEFAULT_THEME, Theme, ThemeError};

/// The theme named (default "dark"), without colour when NO_COLOR is set and not empty.
pub(crate) fn theme_from_env(name_or_path: Option<&str>) -> Result<Theme, ThemeError> {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
    resolve(name_or_path, no_color)
}

fn resolve(name_or_path: Option<&str>, no_color: bool) -> Result<Theme, ThemeError> {
    let theme = load_theme(name_or_path.unwrap_or(DEFAULT_THEME))?;
    Ok(if no_color { theme.no_color() } else { theme })
}

/// A built-in theme by name, or a theme file by path.
pub(crate) fn load_theme(name_or_path: &str) -> Result<Theme, ThemeError> {
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
    Theme::from_toml(&name, &text)
}

#[cfg(test)]
mod tests {
    use ratatui::style::Color;

    use super::*;

    #[test]
    fn no_color_drops_the_colours_of_the_theme_named() {
        let resolved = resolve(Some("light"), true).expect("light");
        assert_eq!(resolved.text.fg, None);
        let coloured = resolve(None, false).expect("dark");
        assert_eq!(coloured.name, "dark");
        assert!(coloured.text.fg.is_some());
    }

    #[test]
    fn load_takes_a_name_or_a_path() {
        assert_eq!(load_theme("light").expect("light").name, "light");
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("sunset.toml");
        std::fs::write(
            &path,
            "accent = { fg = \"#ff8800\", modifiers = [\"bold\"] }",
        )
        .expect("write");
        let theme = load_theme(path.to_str().expect("utf-8 path")).expect("loads");
        assert_eq!(theme.name, "sunset");
        assert_eq!(theme.accent.fg, Some(Color::Rgb(0xff, 0x88, 0)));
        assert!(matches!(
            load_theme("/no/such/theme.toml"),
            Err(ThemeError::NotFound(_))
        ));
    }
}
