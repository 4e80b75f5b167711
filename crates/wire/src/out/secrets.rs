//! The phone's own secrets, scrubbed from everything it writes (SPEC T2: a token is never
//! shown or recorded).
//!
//! A token is remembered the moment it is read (`transport::Token::new`), whichever
//! road it came by (config, `--token-file`, the environment, a DSH token file), so a writer
//! needs no token in hand: an agent that echoes the `Authorization` header back, or an error
//! that quotes a request, loses the token at the last step before the bytes leave.

use std::borrow::Cow;
use std::sync::RwLock;

/// What stands in for a scrubbed secret. Plain ASCII without `<`, `&` or quotes, so it is safe
/// inside JSON, XML and a table alike.
pub(crate) const SCRUBBED: &str = "[token hidden]";

/// Shorter strings are not secrets worth scrubbing, and scrubbing them would eat plain words.
/// Tokens are at least 32 bytes (SPEC T2); this is a floor against accidents.
const MIN_SECRET_BYTES: usize = 16;

static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Remembers a secret for [`scrub`], once.
pub fn remember(secret: &str) {
    if secret.len() < MIN_SECRET_BYTES {
        return;
    }
    let mut secrets = SECRETS
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if !secrets.iter().any(|known| known == secret) {
        secrets.push(secret.to_string());
    }
}

/// `s` with every remembered secret replaced by [`SCRUBBED`].
pub fn scrub(s: &str) -> Cow<'_, str> {
    let secrets = SECRETS
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if !secrets.iter().any(|secret| s.contains(secret.as_str())) {
        return Cow::Borrowed(s);
    }
    let mut out = s.to_string();
    for secret in secrets.iter() {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), SCRUBBED);
        }
    }
    Cow::Owned(out)
}

/// True when `s` holds a remembered secret.
pub fn holds_secret(s: &str) -> bool {
    let secrets = SECRETS
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    secrets.iter().any(|secret| s.contains(secret.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_secret_is_scrubbed_wherever_it_stands() {
        let secret = "s3cret-scrub-test-0123456789abcdefghij";
        remember(secret);
        remember(secret);
        assert_eq!(
            scrub(&format!("Authorization: Bearer {secret}, again {secret}")),
            format!("Authorization: Bearer {SCRUBBED}, again {SCRUBBED}")
        );
        assert!(matches!(scrub("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn short_strings_are_never_secrets() {
        remember("short");
        assert_eq!(scrub("a short word"), "a short word");
    }
}
