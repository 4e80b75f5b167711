//! The bridge's tokens (seed "认证", §5; SPEC D1): kept only as SHA-256 hashes, compared in
//! constant time, each scoped to workspace ids. `workspaceIds: null` covers every workspace,
//! present and future; a missing scope is an empty one (never widened to "all"); an empty list
//! reaches nothing. `allowWorkspaceCreate` counts only with the null scope.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use anyhow::{Context, bail};
use serde_json::Value;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::dsh_wire::{BridgeError, ErrorCode, TokenScope};
use crate::transport::Token;

/// Which workspaces a token reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Every configured workspace and every future one.
    All,
    /// Only these ids; empty reaches nothing.
    Only(Vec<String>),
}

impl Scope {
    pub(crate) fn covers(&self, workspace_id: &str) -> bool {
        match self {
            Self::All => true,
            Self::Only(ids) => ids.iter().any(|id| id == workspace_id),
        }
    }

    /// `tokenScope` of GET /workspaces.
    pub(crate) fn wire(&self) -> TokenScope {
        match self {
            Self::All => TokenScope::AllConfigured,
            Self::Only(ids) => TokenScope::Workspaces(ids.clone()),
        }
    }
}

/// Who is calling: the token's index (the idempotency records of /workspaces/create are per
/// caller) and what it may reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caller {
    pub(crate) token_index: usize,
    pub(crate) scope: Scope,
    /// Effective right to register workspaces: asked for AND null scope.
    pub(crate) may_create_workspaces: bool,
}

struct Entry {
    hash: [u8; 32],
    scope: Scope,
    allow_create: bool,
}

/// Every token the bridge accepts, as hashes.
pub(crate) struct TokenStore {
    entries: Vec<Entry>,
}

fn hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl TokenStore {
    /// The full-scope token of `--token-file` (the demo's own, which may register workspaces),
    /// and the scoped ones of `--tokens`.
    pub(crate) fn load(token_file: &Path, scoped_file: Option<&Path>) -> anyhow::Result<Self> {
        let main = Token::from_file(token_file)?;
        let mut entries = vec![Entry {
            hash: hash(main.expose()),
            scope: Scope::All,
            allow_create: true,
        }];
        if let Some(path) = scoped_file {
            entries.extend(read_scoped(path)?);
        }
        Ok(Self { entries })
    }

    /// Checks the `Authorization` header (seed "认证"): missing → 401 auth/missing-token,
    /// unknown → 403 auth/invalid-token. Every entry is compared, whatever matched first, so
    /// the time taken says nothing about which token is near.
    pub(crate) fn authorize(&self, header: Option<&str>) -> Result<Caller, BridgeError> {
        let Some(header) = header else {
            return Err(BridgeError::new(
                ErrorCode::MissingToken,
                "this request has no Authorization header; send `Authorization: Bearer <token>`",
            ));
        };
        let presented = header
            .strip_prefix("Bearer ")
            .map(|token| hash(token.trim()))
            .unwrap_or([0u8; 32]);
        let mut found: Option<usize> = None;
        for (index, entry) in self.entries.iter().enumerate() {
            if bool::from(entry.hash.ct_eq(&presented)) && found.is_none() {
                found = Some(index);
            }
        }
        let index = found.ok_or_else(|| {
            BridgeError::new(
                ErrorCode::InvalidToken,
                "the bridge does not know this token (or it was revoked); issue a new one on the desktop",
            )
        })?;
        let entry = &self.entries[index];
        Ok(Caller {
            token_index: index,
            may_create_workspaces: entry.allow_create && entry.scope == Scope::All,
            scope: entry.scope.clone(),
        })
    }
}

/// Reads `--tokens FILE`: one JSON object a line, `{"token", "workspaceIds", "allowWorkspaceCreate"}`,
/// in a file only its owner may read (it holds secrets).
fn read_scoped(path: &Path) -> anyhow::Result<Vec<Entry>> {
    let shown = path.display();
    let meta = std::fs::metadata(path).with_context(|| format!("cannot read {shown}"))?;
    if meta.mode() & 0o077 != 0 {
        bail!(
            "the tokens file {shown} can be read or changed by group or others; run `chmod 600 {shown}`"
        );
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {shown}"))?;
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{shown} line {}", number + 1);
        let value: Value = serde_json::from_str(line).with_context(|| {
            format!(
                "{}: not a JSON object like {{\"token\":\"…\",\"workspaceIds\":null}}",
                at()
            )
        })?;
        let token = value
            .get("token")
            .and_then(Value::as_str)
            .with_context(|| format!("{}: no \"token\" string", at()))?;
        let token = Token::new(token).with_context(at)?;
        let scope = match value.get("workspaceIds") {
            Some(Value::Null) => Scope::All,
            Some(Value::Array(ids)) => Scope::Only(
                ids.iter()
                    .map(|id| {
                        id.as_str()
                            .map(str::to_string)
                            .with_context(|| format!("{}: workspaceIds holds a non-string", at()))
                    })
                    .collect::<anyhow::Result<_>>()?,
            ),
            // seed §5: a scope not given is not widened to "all".
            None => Scope::Only(Vec::new()),
            Some(_) => bail!("{}: workspaceIds is null or a list of ids", at()),
        };
        let allow_create = value
            .get("allowWorkspaceCreate")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        entries.push(Entry {
            hash: hash(token.expose()),
            scope,
            allow_create,
        });
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;

    fn store(lines: &str) -> TokenStore {
        let dir = tempfile::tempdir().expect("dir");
        let main = dir.path().join("main");
        std::fs::write(&main, "m".repeat(40)).expect("write");
        std::fs::set_permissions(&main, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let scoped = dir.path().join("scoped");
        let mut file = std::fs::File::create(&scoped).expect("create");
        file.write_all(lines.as_bytes()).expect("write");
        std::fs::set_permissions(&scoped, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        TokenStore::load(&main, Some(&scoped)).expect("load")
    }

    #[test]
    fn d1_scopes_and_create_right() {
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let c = "c".repeat(40);
        let tokens = store(&format!(
            "{{\"token\":\"{a}\",\"workspaceIds\":[\"w1\"],\"allowWorkspaceCreate\":true}}\n\
             {{\"token\":\"{b}\",\"workspaceIds\":null}}\n{{\"token\":\"{c}\"}}\n"
        ));
        let main = tokens
            .authorize(Some(&format!("Bearer {}", "m".repeat(40))))
            .expect("main");
        assert!(main.may_create_workspaces);
        let scoped = tokens.authorize(Some(&format!("Bearer {a}"))).expect("a");
        assert!(scoped.scope.covers("w1") && !scoped.scope.covers("w2"));
        assert!(
            !scoped.may_create_workspaces,
            "create counts only with the null scope"
        );
        let all = tokens.authorize(Some(&format!("Bearer {b}"))).expect("b");
        assert!(all.scope.covers("anything") && !all.may_create_workspaces);
        let none = tokens.authorize(Some(&format!("Bearer {c}"))).expect("c");
        assert!(!none.scope.covers("w1"), "a missing scope is empty");
        assert_eq!(
            tokens.authorize(None).expect_err("missing").code,
            ErrorCode::MissingToken
        );
        assert_eq!(
            tokens
                .authorize(Some("Bearer nope"))
                .expect_err("unknown")
                .code,
            ErrorCode::InvalidToken
        );
    }
}
