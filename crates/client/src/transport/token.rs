//! The bearer token of the TLS transport (SPEC T2): read from a file or the environment, never
//! from argv, never shown.

use std::fmt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::wire::limits::MIN_TOKEN_BYTES;

/// A token that passed SPEC T2. Its Debug and Display never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error(
        "the token is shorter than {MIN_TOKEN_BYTES} bytes; a token is at least {MIN_TOKEN_BYTES} bytes of printable ASCII without spaces (docs/SPEC.md § TLS and the token)"
    )]
    TooShort,
    #[error(
        "the token holds a space or a character that is not printable ASCII; a token is at least {MIN_TOKEN_BYTES} bytes of printable ASCII without spaces (docs/SPEC.md § TLS and the token)"
    )]
    BadChar,
    #[error("cannot read the token file {0}: {1}")]
    Unreadable(String, String),
    #[error("the token file {0} can be read or changed by group or others; run `chmod 600 {0}`")]
    NotPrivate(String),
}

/// Where the token of the command line's agents comes from: `--token-file`, else
/// `COLLIE_DURABLE_TOKEN` (SPEC T2); never a config agent's, which names its own (SPEC T12).
#[derive(Debug, Clone, Default)]
pub struct TokenSource {
    /// `--token-file` on the command line.
    pub file: Option<PathBuf>,
    /// `COLLIE_DURABLE_TOKEN`.
    pub env: Option<String>,
}

impl TokenSource {
    pub fn from_env(file: Option<PathBuf>) -> Self {
        Self {
            file,
            env: std::env::var("COLLIE_DURABLE_TOKEN")
                .ok()
                .filter(|t| !t.is_empty()),
        }
    }
}

impl Token {
    /// Checks SPEC T2: at least 32 bytes of printable ASCII without spaces.
    pub fn new(text: &str) -> Result<Self, TokenError> {
        let text = text.trim_end_matches(['\n', '\r']);
        if text.len() < MIN_TOKEN_BYTES {
            return Err(TokenError::TooShort);
        }
        if !text.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
            return Err(TokenError::BadChar);
        }
        // Every token this program knows passes here, so every writer can scrub it (SPEC T2).
        crate::out::secrets::remember(text);
        Ok(Self(text.to_string()))
    }

    /// Reads a token file that only its owner can read.
    pub fn from_file(path: &Path) -> Result<Self, TokenError> {
        let shown = path.display().to_string();
        let meta = std::fs::metadata(path)
            .map_err(|e| TokenError::Unreadable(shown.clone(), e.to_string()))?;
        if meta.mode() & 0o077 != 0 {
            return Err(TokenError::NotPrivate(shown));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| TokenError::Unreadable(shown, e.to_string()))?;
        Self::new(&text)
    }

    /// The secret itself, for the Authorization header and the agent's compare only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<hidden>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t2_token_rules() {
        assert_eq!(Token::new("short"), Err(TokenError::TooShort));
        assert_eq!(
            Token::new(&format!("{} x", "a".repeat(40))),
            Err(TokenError::BadChar)
        );
        let token = Token::new(&format!("{}\n", "a".repeat(32))).expect("valid");
        assert_eq!(token.expose().len(), 32);
        assert_eq!(format!("{token:?}"), "Token(<hidden>)");
    }

    #[test]
    fn t2_token_file_must_be_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("token");
        std::fs::write(&path, "b".repeat(40)).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(matches!(
            Token::from_file(&path),
            Err(TokenError::NotPrivate(_))
        ));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        assert!(Token::from_file(&path).is_ok());
    }
}
