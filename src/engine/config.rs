//! Which agents to dial: from `--socket`/`--url` flags and the config file
//! (`$XDG_CONFIG_HOME/collie-phone/config.toml`, agents by name). Tokens come from files or
//! `COLLIE_DURABLE_TOKEN`, never from argv (SPEC T2).

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::AgentSpec;
use crate::engine::dsh::{BridgeSpec, BridgeUrl, BridgeUrlError, DEFAULT_BRIDGE_URL};
use crate::transport::tls::{TlsEndpoint, TlsSetupError};
use crate::transport::token::TokenError;
use crate::transport::{Endpoint, Token};

/// One agent as written in the config file.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AgentEntry {
    pub socket: Option<PathBuf>,
    pub url: Option<String>,
    pub token_file: Option<PathBuf>,
    pub ca_cert: Option<PathBuf>,
}

/// One DSH bridge as written in the config file (`[dsh.NAME]`, SPEC D1).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DshEntry {
    /// The bridge's base URL, loopback only; `default` is `http://127.0.0.1:19387/codex-bridge`.
    #[serde(default = "default_dsh_url")]
    pub url: String,
    pub token_file: Option<PathBuf>,
}

fn default_dsh_url() -> String {
    DEFAULT_BRIDGE_URL.to_string()
}

/// The config file. Sections other than `agents` and `dsh` belong to the phone (keys, theme,
/// …) and are read by it; the engine reads only what it dials.
#[derive(Debug, Clone, Deserialize, Default)]
pub struct AgentsFile {
    #[serde(default)]
    pub agents: BTreeMap<String, AgentEntry>,
    /// DSH bridges by name (SPEC D).
    #[serde(default)]
    pub dsh: BTreeMap<String, DshEntry>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {0}: {1}")]
    Read(String, String),
    #[error("{0} is not valid TOML: {1}")]
    Toml(String, String),
    #[error("agent \"{0}\": give either socket or url, not both and not neither")]
    SocketOrUrl(String),
    #[error("agent \"{0}\": {1}")]
    Token(String, TokenError),
    #[error(
        "agent \"{0}\" needs a token: token-file in the config, --token-file, or COLLIE_DURABLE_TOKEN"
    )]
    NoToken(String),
    #[error("agent \"{0}\": {1}")]
    Tls(String, TlsSetupError),
    #[error("two agents are named \"{0}\"")]
    Duplicate(String),
    #[error("DSH bridge \"{0}\": {1}")]
    DshUrl(String, BridgeUrlError),
    #[error(
        "DSH bridge \"{0}\" needs a token: token-file in its [dsh.{0}] section, --dsh-token-file, or --token-file when no --url agent needs it"
    )]
    DshNoToken(String),
}

/// The default config path.
pub fn default_config_path() -> PathBuf {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .unwrap_or_else(std::env::temp_dir)
        .join("collie-phone")
        .join("config.toml")
}

/// Reads the agents of a config file; a missing file is an empty one.
pub fn read_agents_file(path: &Path) -> Result<AgentsFile, ConfigError> {
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(AgentsFile::default()),
        Err(e) => return Err(ConfigError::Read(shown, e.to_string())),
    };
    toml::from_str(&text).map_err(|e| ConfigError::Toml(shown, e.to_string()))
}

/// Where the token of an agent comes from when its entry names none.
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

/// Turns a named entry into an agent to dial.
pub fn agent_spec(
    name: &str,
    entry: &AgentEntry,
    fallback: &TokenSource,
) -> Result<AgentSpec, ConfigError> {
    let endpoint = match (&entry.socket, &entry.url) {
        (Some(path), None) => Endpoint::socket(path.clone()),
        (None, Some(url)) => {
            let token = match (&entry.token_file, &fallback.file, &fallback.env) {
                (Some(file), _, _) | (None, Some(file), _) => Token::from_file(file),
                (None, None, Some(text)) => Token::new(text),
                (None, None, None) => return Err(ConfigError::NoToken(name.to_string())),
            }
            .map_err(|e| ConfigError::Token(name.to_string(), e))?;
            let tls = TlsEndpoint::new(url, token, entry.ca_cert.as_deref())
                .map_err(|e| ConfigError::Tls(name.to_string(), e))?;
            Endpoint::Tls(tls)
        }
        _ => return Err(ConfigError::SocketOrUrl(name.to_string())),
    };
    Ok(AgentSpec {
        name: name.to_string(),
        endpoint,
    })
}

/// Every agent: first the command line's (named after their socket or URL), then the config
/// file's by name. With neither, `COLLIE_DURABLE_SOCKET` (SPEC S1).
pub fn resolve_agents(
    sockets: &[PathBuf],
    urls: &[String],
    tokens: &TokenSource,
    ca_cert: Option<&Path>,
    file: &AgentsFile,
) -> Result<Vec<AgentSpec>, ConfigError> {
    let mut specs = Vec::new();
    for path in sockets {
        let entry = AgentEntry {
            socket: Some(path.clone()),
            url: None,
            token_file: None,
            ca_cert: None,
        };
        specs.push(agent_spec(
            &short_name(&path.display().to_string()),
            &entry,
            tokens,
        )?);
    }
    for url in urls {
        let entry = AgentEntry {
            socket: None,
            url: Some(url.clone()),
            token_file: None,
            ca_cert: ca_cert.map(Path::to_path_buf),
        };
        specs.push(agent_spec(&short_name(url), &entry, tokens)?);
    }
    for (name, entry) in &file.agents {
        specs.push(agent_spec(name, entry, tokens)?);
    }
    if specs.is_empty()
        && let Some(path) = std::env::var_os("COLLIE_DURABLE_SOCKET").filter(|p| !p.is_empty())
    {
        let entry = AgentEntry {
            socket: Some(PathBuf::from(path)),
            url: None,
            token_file: None,
            ca_cert: None,
        };
        specs.push(agent_spec("agent", &entry, tokens)?);
    }
    let mut seen = std::collections::HashSet::new();
    for spec in &specs {
        if !seen.insert(spec.name.clone()) {
            return Err(ConfigError::Duplicate(spec.name.clone()));
        }
    }
    Ok(specs)
}

/// Every DSH bridge: first the command line's (`--dsh URL`, named `dsh` when it is the only
/// one, else `dsh-PORT`), then the config file's `[dsh.NAME]` sections (SPEC D1). The token
/// comes from the section's `token-file`, else `token_file` (the command line's).
pub fn resolve_bridges(
    urls: &[String],
    token_file: Option<&Path>,
    file: &AgentsFile,
) -> Result<Vec<BridgeSpec>, ConfigError> {
    let mut specs = Vec::new();
    for text in urls {
        let url = BridgeUrl::parse(text).map_err(|e| ConfigError::DshUrl(text.clone(), e))?;
        let name = if urls.len() == 1 {
            "dsh".to_string()
        } else {
            format!("dsh-{}", port_of(url.as_str()))
        };
        let file = token_file.ok_or_else(|| ConfigError::DshNoToken(name.clone()))?;
        let token = Token::from_file(file).map_err(|e| ConfigError::Token(name.clone(), e))?;
        specs.push(BridgeSpec { name, url, token });
    }
    for (name, entry) in &file.dsh {
        let url = BridgeUrl::parse(&entry.url).map_err(|e| ConfigError::DshUrl(name.clone(), e))?;
        let path = entry
            .token_file
            .as_deref()
            .or(token_file)
            .ok_or_else(|| ConfigError::DshNoToken(name.clone()))?;
        let token = Token::from_file(path).map_err(|e| ConfigError::Token(name.clone(), e))?;
        specs.push(BridgeSpec {
            name: name.clone(),
            url,
            token,
        });
    }
    let mut seen = std::collections::HashSet::new();
    for spec in &specs {
        if !seen.insert(spec.name.clone()) {
            return Err(ConfigError::Duplicate(spec.name.clone()));
        }
    }
    Ok(specs)
}

fn port_of(url: &str) -> String {
    url.split("://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|host| host.rsplit(':').next())
        .unwrap_or_default()
        .to_string()
}

/// A short name for an agent given by path or URL: its last meaningful part.
pub(crate) fn short_name(text: &str) -> String {
    let trimmed = text.trim_end_matches('/');
    let last = trimmed
        .rsplit(['/', ':'])
        .find(|p| !p.is_empty())
        .unwrap_or(trimmed);
    last.trim_end_matches(".sock").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_by_name_from_toml() {
        let file: AgentsFile = toml::from_str(
            r#"
            [agents.laptop]
            socket = "/run/user/1000/collie/agent.sock"
            "#,
        )
        .expect("parses");
        let specs =
            resolve_agents(&[], &[], &TokenSource::default(), None, &file).expect("resolves");
        assert_eq!(specs.len(), 1);
        assert_eq!(specs[0].name, "laptop");
    }

    #[test]
    fn t2_url_without_token_is_refused() {
        let entry = AgentEntry {
            socket: None,
            url: Some("https://a.example".into()),
            token_file: None,
            ca_cert: None,
        };
        assert!(matches!(
            agent_spec("a", &entry, &TokenSource::default()),
            Err(ConfigError::NoToken(_))
        ));
    }

    #[test]
    fn d1_dsh_sections_and_flags() {
        let dir = tempfile::tempdir().expect("dir");
        let token = dir.path().join("token");
        std::fs::write(&token, "t".repeat(40)).expect("write");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let file: AgentsFile = toml::from_str(&format!(
            "[dsh.desk]\ntoken-file = \"{}\"\n",
            token.display()
        ))
        .expect("parses");
        let specs = resolve_bridges(&["default".into()], Some(&token), &file).expect("resolves");
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["dsh", "desk"]);
        assert_eq!(specs[1].url.as_str(), DEFAULT_BRIDGE_URL);
        assert!(matches!(
            resolve_bridges(
                &["http://example.com:1/x".into()],
                Some(&token),
                &AgentsFile::default()
            ),
            Err(ConfigError::DshUrl(..))
        ));
        assert!(matches!(
            resolve_bridges(&["default".into()], None, &AgentsFile::default()),
            Err(ConfigError::DshNoToken(_))
        ));
        let two = resolve_bridges(
            &["http://127.0.0.1:1/a".into(), "http://127.0.0.1:2/a".into()],
            Some(&token),
            &AgentsFile::default(),
        )
        .expect("resolves");
        assert_eq!(two[0].name, "dsh-1");
        assert_eq!(two[1].name, "dsh-2");
    }

    #[test]
    fn names_from_paths() {
        assert_eq!(short_name("/tmp/x/agent.sock"), "agent");
        assert_eq!(short_name("https://agent.example/"), "agent.example");
    }
}
