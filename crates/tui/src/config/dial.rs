//! Which agents and DSH bridges to dial: from the `--socket`/`--url`/`--dsh` flags and the
//! config file's `[agents.NAME]` and `[dsh.NAME]` sections. Tokens come from files or
//! `COLLIE_DURABLE_TOKEN`, never from argv (SPEC T2).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::engine::dsh::{BridgeSpec, BridgeUrl, BridgeUrlError, DEFAULT_BRIDGE_URL};
use crate::engine::{AgentSpec, short_name};
use crate::transport::pin::Pin;
use crate::transport::tls::{TlsEndpoint, TlsSetupError, Trust};
use crate::transport::token::{TokenError, TokenSource};
use crate::transport::{Endpoint, Token};

/// One agent as written in the config file (`[agents.NAME]`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a table with socket, ssh, or url with token-file and ca-cert or pin"
)]
pub struct AgentEntry {
    pub socket: Option<PathBuf>,
    /// `HOST:/PATH` of a socket on another machine, reached through ssh (docs/REMOTE.md). The
    /// phone's command line opens the forward; this layer only names it.
    pub(crate) ssh: Option<String>,
    pub url: Option<String>,
    pub token_file: Option<PathBuf>,
    pub ca_cert: Option<PathBuf>,
    /// Trust exactly the certificate with this fingerprint (SPEC T10).
    pub pin: Option<Pin>,
}

impl AgentEntry {
    /// The keys of `[agents.NAME]`, for the suggestion after a refusal.
    pub(crate) const KEYS: [&str; 6] = ["socket", "ssh", "url", "token-file", "ca-cert", "pin"];

    /// What makes this agent's certificate trusted; None when it names both a CA and a pin.
    pub(crate) fn trust(&self) -> Option<Trust> {
        Trust::from_flags(self.ca_cert.as_deref(), self.pin)
    }
}

/// One DSH bridge as written in the config file (`[dsh.NAME]`, SPEC D1).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a table with url and token-file"
)]
pub struct DshEntry {
    /// The bridge's base URL, loopback only; `default` is `http://127.0.0.1:19387/codex-bridge`.
    #[serde(default = "default_dsh_url")]
    pub(crate) url: String,
    pub(crate) token_file: Option<PathBuf>,
}

impl DshEntry {
    /// The keys of `[dsh.NAME]`, for the suggestion after a refusal.
    pub(crate) const KEYS: [&str; 2] = ["url", "token-file"];
}

/// `[acp.NAME]`: an ACP agent the host (`collie-phone agent`) may start.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(
    deny_unknown_fields,
    rename_all = "kebab-case",
    expecting = "a table with command, a list such as [\"claude-code-acp\"]"
)]
pub struct AcpEntry {
    /// The program and its arguments, run directly (never through a shell).
    pub command: Vec<String>,
    /// The mode its new sessions start in (docs/ACP.md); unset, the one that asks most.
    #[serde(default)]
    pub mode: Option<String>,
    /// The ACP version the host offers it: 1 (the default) or 2, the draft (docs/ACP.md).
    #[serde(default)]
    pub protocol: Option<i64>,
}

impl AcpEntry {
    /// The keys of `[acp.NAME]`, for the suggestion after a refusal.
    pub(crate) const KEYS: [&str; 3] = ["command", "mode", "protocol"];
}

fn default_dsh_url() -> String {
    DEFAULT_BRIDGE_URL.to_string()
}

#[derive(Debug, thiserror::Error)]
pub enum DialError {
    #[error("agent \"{0}\": give one of socket, ssh or url, and only one")]
    SocketOrUrl(String),
    #[error("agent \"{0}\": {1}")]
    Token(String, TokenError),
    #[error("agent \"{0}\" needs a token: --token-file, or COLLIE_DURABLE_TOKEN")]
    NoToken(String),
    /// SPEC T12: a config agent names its own token; the command line's serves only its agents.
    #[error(
        "agent \"{0}\" needs a token of its own: token-file = \"PATH\" in [agents.{0}] (--token-file and COLLIE_DURABLE_TOKEN serve only the agents of the command line, so one agent's token never goes to another)"
    )]
    NoOwnToken(String),
    #[error("agent \"{0}\": {1}")]
    Tls(String, TlsSetupError),
    #[error("agent \"{0}\": give either a CA (ca-cert, --ca-cert) or a pin (pin, --pin), not both")]
    CaAndPin(String),
    #[error("two agents are named \"{0}\"")]
    Duplicate(String),
    #[error("DSH bridge \"{0}\": {1}")]
    DshUrl(String, BridgeUrlError),
    #[error(
        "DSH bridge \"{0}\" needs a token: token-file in its [dsh.{0}] section, --dsh-token-file, or --token-file when no --url agent needs it"
    )]
    DshNoToken(String),
    /// SPEC T12, as for agents: a `[dsh.NAME]` section names its own token.
    #[error(
        "DSH bridge \"{0}\" needs a token of its own: token-file = \"PATH\" in [dsh.{0}] (the command line's token serves only its own --dsh bridge)"
    )]
    DshNoOwnToken(String),
}

/// Whose token an entry may fall back on (SPEC T12).
#[derive(Clone, Copy)]
enum Given<'a> {
    /// An agent of the command line: the command line's token.
    OnTheCommandLine(&'a TokenSource),
    /// An agent of the config file: only the token its own section names.
    InTheConfig,
}

/// Turns a named entry into an agent to dial.
fn agent_spec(name: &str, entry: &AgentEntry, given: Given<'_>) -> Result<AgentSpec, DialError> {
    let endpoint = match (&entry.socket, &entry.url) {
        (Some(path), None) => Endpoint::socket(path.clone()),
        (None, Some(url)) => {
            let token = match (&entry.token_file, given) {
                (Some(file), _) => Token::from_file(file),
                (None, Given::InTheConfig) => {
                    return Err(DialError::NoOwnToken(name.to_string()));
                }
                (None, Given::OnTheCommandLine(tokens)) => match (&tokens.file, &tokens.env) {
                    (Some(file), _) => Token::from_file(file),
                    (None, Some(text)) => Token::new(text),
                    (None, None) => return Err(DialError::NoToken(name.to_string())),
                },
            }
            .map_err(|e| DialError::Token(name.to_string(), e))?;
            let trust = entry
                .trust()
                .ok_or_else(|| DialError::CaAndPin(name.to_string()))?;
            let tls = TlsEndpoint::trusting(url, token, &trust)
                .map_err(|e| DialError::Tls(name.to_string(), e))?;
            Endpoint::Tls(tls)
        }
        _ => return Err(DialError::SocketOrUrl(name.to_string())),
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
    pin: Option<Pin>,
    configured: &BTreeMap<String, AgentEntry>,
) -> Result<Vec<AgentSpec>, DialError> {
    let mut specs = Vec::new();
    let taken: Vec<&str> = configured.keys().map(String::as_str).collect();
    let names = socket_names(sockets, &taken);
    for (path, name) in sockets.iter().zip(&names) {
        let entry = AgentEntry {
            socket: Some(path.clone()),
            ssh: None,
            url: None,
            token_file: None,
            ca_cert: None,
            pin: None,
        };
        specs.push(agent_spec(name, &entry, Given::OnTheCommandLine(tokens))?);
    }
    for url in urls {
        let entry = AgentEntry {
            socket: None,
            ssh: None,
            url: Some(url.clone()),
            token_file: None,
            ca_cert: ca_cert.map(Path::to_path_buf),
            pin,
        };
        specs.push(agent_spec(
            &url_name(url, urls),
            &entry,
            Given::OnTheCommandLine(tokens),
        )?);
    }
    for (name, entry) in configured {
        if entry.ssh.is_some() {
            // Opened by the command line's ssh forward (`ssh_entries`), named there.
            if entry.socket.is_some() || entry.url.is_some() {
                return Err(DialError::SocketOrUrl(name.clone()));
            }
            continue;
        }
        specs.push(agent_spec(name, entry, Given::InTheConfig)?);
    }
    if specs.is_empty()
        && let Some(path) = std::env::var_os("COLLIE_DURABLE_SOCKET").filter(|p| !p.is_empty())
    {
        let entry = AgentEntry {
            socket: Some(PathBuf::from(path)),
            ssh: None,
            url: None,
            token_file: None,
            ca_cert: None,
            pin: None,
        };
        specs.push(agent_spec(
            "agent",
            &entry,
            Given::OnTheCommandLine(tokens),
        )?);
    }
    refuse_duplicates(specs.iter().map(|spec| spec.name.as_str()))?;
    Ok(specs)
}

/// The config file's agents reached through ssh: (name, `HOST:/PATH`).
pub fn ssh_entries(configured: &BTreeMap<String, AgentEntry>) -> Vec<(String, String)> {
    configured
        .iter()
        .filter_map(|(name, entry)| Some((name.clone(), entry.ssh.clone()?)))
        .collect()
}

/// Every DSH bridge: first the command line's (`--dsh URL`, named `dsh` when it is the only
/// one, else `dsh-PORT`), then the config file's `[dsh.NAME]` sections (SPEC D1). A command
/// line bridge takes `token_file` (the command line's); a section only its own `token-file`
/// (SPEC T12).
pub fn resolve_bridges(
    urls: &[String],
    token_file: Option<&Path>,
    configured: &BTreeMap<String, DshEntry>,
) -> Result<Vec<BridgeSpec>, DialError> {
    let mut specs = Vec::new();
    for text in urls {
        let url = BridgeUrl::parse(text).map_err(|e| DialError::DshUrl(text.clone(), e))?;
        let name = if urls.len() == 1 {
            "dsh".to_string()
        } else {
            format!("dsh-{}", port_of(url.as_str()))
        };
        let file = token_file.ok_or_else(|| DialError::DshNoToken(name.clone()))?;
        let token = Token::from_file(file).map_err(|e| DialError::Token(name.clone(), e))?;
        specs.push(BridgeSpec { name, url, token });
    }
    for (name, entry) in configured {
        let url = BridgeUrl::parse(&entry.url).map_err(|e| DialError::DshUrl(name.clone(), e))?;
        let path = entry
            .token_file
            .as_deref()
            .ok_or_else(|| DialError::DshNoOwnToken(name.clone()))?;
        let token = Token::from_file(path).map_err(|e| DialError::Token(name.clone(), e))?;
        specs.push(BridgeSpec {
            name: name.clone(),
            url,
            token,
        });
    }
    refuse_duplicates(specs.iter().map(|spec| spec.name.as_str()))?;
    Ok(specs)
}

/// The names of the command line's sockets: each by its file name (`agent` for
/// `/run/a/agent.sock`), and where two share one, or a config file's agent has it, by as many
/// of its folders as tell it apart (`a/agent`, `b/agent`). The config file's names are kept.
/// The Home row adds the agent's own `host.name` once it is heard (`AgentView::display_name`).
fn socket_names(sockets: &[PathBuf], taken: &[&str]) -> Vec<String> {
    let parts: Vec<Vec<String>> = sockets
        .iter()
        .map(|path| {
            let mut parts: Vec<String> = path
                .components()
                .filter_map(|c| match c {
                    std::path::Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
                    _ => None,
                })
                .collect();
            if let Some(last) = parts.last_mut() {
                *last = short_name(last);
            }
            parts
        })
        .collect();
    let name_of = |parts: &[String], depth: usize| -> String {
        parts[parts.len().saturating_sub(depth)..].join("/")
    };
    let mut depths = vec![1_usize; sockets.len()];
    loop {
        let names: Vec<String> = parts
            .iter()
            .zip(&depths)
            .map(|(parts, depth)| name_of(parts, *depth))
            .collect();
        let mut grew = false;
        for (i, name) in names.iter().enumerate() {
            let shared = taken.contains(&name.as_str())
                || names
                    .iter()
                    .enumerate()
                    .any(|(j, other)| j != i && other == name);
            if shared && depths[i] < parts[i].len() {
                depths[i] += 1;
                grew = true;
            }
        }
        if !grew {
            // The same path twice, or a config name no folder avoids, stays for
            // `refuse_duplicates` to say.
            return names;
        }
    }
}

/// A command-line URL's agent is named by its host; two URLs on one host are told apart by
/// their ports (`127.0.0.1:8001`, `127.0.0.1:8002`).
fn url_name(url: &str, urls: &[String]) -> String {
    let host = short_name(url);
    let shared = urls
        .iter()
        .filter(|other| short_name(other) == host)
        .count()
        > 1;
    let port = port_of(url);
    if shared && !port.is_empty() && port != host {
        format!("{host}:{port}")
    } else {
        host
    }
}

fn refuse_duplicates<'a>(names: impl Iterator<Item = &'a str>) -> Result<(), DialError> {
    let mut seen = HashSet::new();
    for name in names {
        if !seen.insert(name) {
            return Err(DialError::Duplicate(name.to_string()));
        }
    }
    Ok(())
}

fn port_of(url: &str) -> String {
    url.split("://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|host| host.rsplit(':').next())
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_by_name_from_the_file() {
        let configured = BTreeMap::from([(
            "laptop".to_string(),
            AgentEntry {
                socket: Some("/run/user/1000/collie/agent.sock".into()),
                ssh: None,
                url: None,
                token_file: None,
                ca_cert: None,
                pin: None,
            },
        )]);
        let specs = resolve_agents(&[], &[], &TokenSource::default(), None, None, &configured)
            .expect("resolves");
        assert_eq!(specs.len(), 1);
        assert_eq!(specs[0].name, "laptop");
    }

    #[test]
    fn sockets_sharing_a_file_name_are_told_apart_by_their_folders() {
        let sockets: Vec<PathBuf> = ["/a/agent.sock", "/b/agent.sock", "/run/other.sock"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(socket_names(&sockets, &[]), ["a/agent", "b/agent", "other"]);
        // The config file's "other" keeps its name; the command line's takes its folder.
        assert_eq!(
            socket_names(&sockets, &["other"]),
            ["a/agent", "b/agent", "run/other"]
        );
        let deep: Vec<PathBuf> = ["/x/a/agent.sock", "/y/a/agent.sock"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(socket_names(&deep, &[]), ["x/a/agent", "y/a/agent"]);
    }

    #[test]
    fn url_agents_are_named_by_host_and_by_port_only_when_hosts_meet() {
        let urls = [
            "https://127.0.0.1:8001".to_string(),
            "https://127.0.0.1:8002/a".to_string(),
            "https://agent.example:8443/x".to_string(),
        ];
        let names: Vec<String> = urls.iter().map(|u| url_name(u, &urls)).collect();
        assert_eq!(names, ["127.0.0.1:8001", "127.0.0.1:8002", "agent.example"]);
        assert_eq!(
            url_name("https://agent.example", &urls[2..]),
            "agent.example"
        );
    }

    /// A token file of 40 characters in `dir`, 0600 as the token rules ask (SPEC T2).
    fn private_token(dir: &Path, name: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let token = dir.join(name);
        std::fs::write(&token, "t".repeat(40)).expect("write");
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        token
    }

    #[test]
    fn t2_url_without_token_is_refused() {
        let entry = AgentEntry {
            socket: None,
            ssh: None,
            url: Some("https://a.example".into()),
            token_file: None,
            ca_cert: None,
            pin: None,
        };
        let none = TokenSource::default();
        assert!(matches!(
            agent_spec("a", &entry, Given::OnTheCommandLine(&none)),
            Err(DialError::NoToken(_))
        ));
    }

    #[test]
    fn t12_the_command_lines_token_never_goes_to_a_config_agent() {
        let dir = tempfile::tempdir().expect("dir");
        let token = private_token(dir.path(), "work.token");
        let tokens = TokenSource {
            file: Some(token.clone()),
            env: Some("e".repeat(40)),
        };
        let test_box = AgentEntry {
            socket: None,
            ssh: None,
            url: Some("http://127.0.0.1:8080".into()),
            token_file: None,
            ca_cert: None,
            pin: None,
        };
        let configured = BTreeMap::from([("test-box".to_string(), test_box.clone())]);
        let Err(refused) = resolve_agents(&[], &[], &tokens, None, None, &configured) else {
            panic!("a config agent with no token of its own was dialled");
        };
        assert!(matches!(refused, DialError::NoOwnToken(ref name) if name == "test-box"));
        assert!(
            refused
                .to_string()
                .contains("token-file = \"PATH\" in [agents.test-box]"),
            "{refused}"
        );
        // The command line's own agent takes the command line's token, as before.
        let specs = resolve_agents(
            &[],
            &["http://127.0.0.1:8080".into()],
            &tokens,
            None,
            None,
            &BTreeMap::new(),
        )
        .expect("the command line's agent");
        assert_eq!(specs.len(), 1);
        // A config agent with a token of its own is dialled with it.
        let own = AgentEntry {
            token_file: Some(token),
            ..test_box
        };
        let configured = BTreeMap::from([("test-box".to_string(), own)]);
        resolve_agents(&[], &[], &TokenSource::default(), None, None, &configured)
            .expect("its own token");
    }

    #[test]
    fn t12_a_dsh_section_names_its_own_token() {
        let dir = tempfile::tempdir().expect("dir");
        let token = private_token(dir.path(), "token");
        let configured = BTreeMap::from([(
            "desk".to_string(),
            DshEntry {
                url: default_dsh_url(),
                token_file: None,
            },
        )]);
        assert!(matches!(
            resolve_bridges(&[], Some(&token), &configured),
            Err(DialError::DshNoOwnToken(ref name)) if name == "desk"
        ));
    }

    #[test]
    fn d1_dsh_sections_and_flags() {
        let dir = tempfile::tempdir().expect("dir");
        let token = private_token(dir.path(), "token");
        let configured = BTreeMap::from([(
            "desk".to_string(),
            DshEntry {
                url: default_dsh_url(),
                token_file: Some(token.clone()),
            },
        )]);
        let none = BTreeMap::new();
        let specs =
            resolve_bridges(&["default".into()], Some(&token), &configured).expect("resolves");
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["dsh", "desk"]);
        assert_eq!(specs[1].url.as_str(), DEFAULT_BRIDGE_URL);
        assert!(matches!(
            resolve_bridges(&["http://example.com:1/x".into()], Some(&token), &none),
            Err(DialError::DshUrl(..))
        ));
        assert!(matches!(
            resolve_bridges(&["default".into()], None, &none),
            Err(DialError::DshNoToken(_))
        ));
        let two = resolve_bridges(
            &["http://127.0.0.1:1/a".into(), "http://127.0.0.1:2/a".into()],
            Some(&token),
            &none,
        )
        .expect("resolves");
        assert_eq!(two[0].name, "dsh-1");
        assert_eq!(two[1].name, "dsh-2");
    }
}
