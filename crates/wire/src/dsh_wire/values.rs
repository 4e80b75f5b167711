//! The values of the bridge's routes and the bodies of its POSTs (seed §2, SPEC D3). Re-exported
//! by `dsh_wire`; read them from there.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::basics::{ErrorInfo, ModelConfig, clean_name, clean_name_opt, config_opt, error_opt};
use super::events::{Event, ExecutionPhase};
use super::open_enum::dsh_open_enum;
use super::{Sanitize, cap_json, limits};
use crate::wire::sanitize::{Lines, Report, cap, clean, clean_opt};

pub(crate) fn clean_names(list: &mut Vec<String>, path: &str, report: &mut Report) {
    cap(list, limits::MAX_SMALL_LIST, path, report);
    list.iter_mut().for_each(|s| clean_name(s, path, report));
}

/// A point in time as a bridge writes it: milliseconds since the epoch (what this bridge sends,
/// and what events' `at` is), or a text timestamp from a bridge that writes ISO 8601.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Stamp {
    Millis(i64),
    Text(String),
}

impl Stamp {
    fn sanitize(&mut self, path: &str, report: &mut Report) {
        if let Self::Text(text) = self {
            clean(text, 64, Lines::Single, path, report);
        }
    }
}

fn stamp_opt(stamp: &mut Option<Stamp>, path: &str, report: &mut Report) {
    if let Some(stamp) = stamp {
        stamp.sanitize(path, report);
    }
}

// ---------------------------------------------------------------- GET /health

/// `permissions` of /health and of the capabilities: `autoApprove` is always false (seed §2,
/// §5, SPEC D6).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionFacts {
    #[serde(default)]
    pub auto_approve: bool,
}

/// The value of `GET /health` (seed §2). A change of `pid` means the desktop reloaded (§4.8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// The bridge's name and version as it states them.
    #[serde(default, deserialize_with = "lenient_text")]
    pub bridge: String,
    #[serde(default)]
    pub protocol_version: u32,
    #[serde(default)]
    pub route_prefix: String,
    /// The desktop host's process id.
    #[serde(default)]
    pub pid: Option<u64>,
    #[serde(default)]
    pub sessions_followed: u64,
    #[serde(default)]
    pub tracked_tasks: u64,
    #[serde(default)]
    pub permissions: PermissionFacts,
}

/// Reads a string, or writes any other JSON value as its text: for fields whose type the seed
/// does not state.
fn lenient_text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(text) => text,
        Value::Null => String::new(),
        other => other.to_string(),
    })
}

impl Sanitize for Health {
    fn sanitize(&mut self, report: &mut Report) {
        clean_name(&mut self.bridge, "bridge", report);
        clean_name(&mut self.route_prefix, "routePrefix", report);
    }
}

// ---------------------------------------------------------------- workspaces

dsh_open_enum! {
    /// A workspace's directory state (seed GET /workspaces).
    WorkspaceStatus {
        Ok => "ok",
        MissingDir => "missing-dir",
        Undetermined => "unknown",
    }
}

/// One workspace (seed GET /workspaces). Names may repeat: choose by `workspaceId` only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Workspace {
    pub workspace_id: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub path: String,
    #[serde(default = "unknown_status")]
    pub status: WorkspaceStatus,
    #[serde(default)]
    pub session_count: u64,
    #[serde(default)]
    pub session_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Stamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Stamp>,
}

fn unknown_status() -> WorkspaceStatus {
    WorkspaceStatus::Undetermined
}

impl Workspace {
    fn sanitize(&mut self, path: &str, report: &mut Report) {
        clean_name(
            &mut self.workspace_id,
            &format!("{path}.workspaceId"),
            report,
        );
        clean_name(&mut self.title, &format!("{path}.title"), report);
        clean_name(&mut self.path, &format!("{path}.path"), report);
        clean_names(&mut self.session_ids, &format!("{path}.sessionIds"), report);
        stamp_opt(&mut self.created_at, &format!("{path}.createdAt"), report);
        stamp_opt(&mut self.updated_at, &format!("{path}.updatedAt"), report);
    }
}

/// `tokenScope` of GET /workspaces: `"all-configured"` or the workspace ids the token is bound
/// to (seed GET /workspaces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenScope {
    AllConfigured,
    Workspaces(Vec<String>),
    /// A word this program does not know, cleaned.
    Unknown(String),
}

pub(crate) const ALL_CONFIGURED: &str = "all-configured";

impl Serialize for TokenScope {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::AllConfigured => s.serialize_str(ALL_CONFIGURED),
            Self::Workspaces(ids) => ids.serialize(s),
            Self::Unknown(word) => s.serialize_str(word),
        }
    }
}

impl<'de> Deserialize<'de> for TokenScope {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::String(word) if word == ALL_CONFIGURED => Self::AllConfigured,
            Value::String(word) => Self::Unknown(super::open_enum::clean_word(&word)),
            Value::Array(list) => Self::Workspaces(
                list.into_iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect(),
            ),
            Value::Null => Self::Workspaces(Vec::new()),
            other => Self::Unknown(super::open_enum::clean_word(&other.to_string())),
        })
    }
}

impl Default for TokenScope {
    fn default() -> Self {
        Self::Workspaces(Vec::new())
    }
}

/// The value of `GET /workspaces` (seed §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceList {
    #[serde(default)]
    pub items: Vec<Workspace>,
    #[serde(default)]
    pub token_scope: TokenScope,
}

impl Sanitize for WorkspaceList {
    fn sanitize(&mut self, report: &mut Report) {
        cap(&mut self.items, limits::MAX_LIST, "items", report);
        for (i, item) in self.items.iter_mut().enumerate() {
            item.sanitize(&format!("items[{i}]"), report);
        }
        if let TokenScope::Workspaces(ids) = &mut self.token_scope {
            cap(ids, limits::MAX_LIST, "tokenScope", report);
            ids.iter_mut()
                .for_each(|id| clean_name(id, "tokenScope", report));
        }
    }
}

/// The body of `POST /workspaces/create` (seed "全工作区授权与注册"): an absolute path of an
/// existing directory. The bridge never creates directories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceCreateRequest {
    pub request_id: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// The short workspace of a /workspaces/create reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceRef {
    pub workspace_id: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub path: String,
}

/// The value of `POST /workspaces/create`: `replayed` when the same request was seen before,
/// `reused` when the directory was registered already (no new workspace).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceCreateValue {
    pub workspace: WorkspaceRef,
    #[serde(default)]
    pub replayed: bool,
    #[serde(default)]
    pub reused: bool,
}

impl Sanitize for WorkspaceCreateValue {
    fn sanitize(&mut self, report: &mut Report) {
        clean_name(
            &mut self.workspace.workspace_id,
            "workspace.workspaceId",
            report,
        );
        clean_name(&mut self.workspace.title, "workspace.title", report);
        clean_name(&mut self.workspace.path, "workspace.path", report);
    }
}

// ---------------------------------------------------------------- GET /capabilities

/// Capability bits of the workspaces: `create` is the caller's real right to register
/// (seed "全工作区授权与注册").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WorkspaceCapabilities {
    pub list: bool,
    pub create: bool,
    pub create_directory: bool,
    /// `all-configured` or `selected`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// Capability bits of sessions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionCapabilities {
    pub create: bool,
    /// Whether `tasks/create` with `sessionId` may adopt an existing session.
    pub adopt: bool,
    pub rename: bool,
    pub list: bool,
    pub cancel: bool,
}

/// Capability bits of models.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelCapabilities {
    /// Whether `modelCatalog` holds a catalog.
    pub catalog: bool,
    pub select: bool,
    /// Whether request headers report the config really used (`observedConfig`).
    pub verify_observed: bool,
}

/// Capability bits of agent presets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PresetCapabilities {
    pub list: bool,
    pub select: bool,
}

/// Capability bits of events.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct EventCapabilities {
    /// `POST /tasks/wait`.
    pub long_poll: bool,
    pub sse: bool,
    pub replay: bool,
    /// The cursor's name: `sessionSeq`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// Capability bits of permissions: the bridge never approves (seed §5, SPEC D6).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PermissionCapabilities {
    /// Always false: the bridge never approves (seed §5).
    pub auto_approve: bool,
    /// Whether permission waits are reported as events.
    pub observe_waits: bool,
}

/// `capabilities` of GET /capabilities (seed §2).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CapabilityBits {
    pub workspaces: WorkspaceCapabilities,
    pub sessions: SessionCapabilities,
    pub models: ModelCapabilities,
    pub presets: PresetCapabilities,
    pub events: EventCapabilities,
    pub permissions: PermissionCapabilities,
}

/// One reasoning effort a model declares: the real bridge sends `{id, name, description}`
/// (docs/DSH.md); a bare word is read as its id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Effort {
    pub(crate) id: String,
    pub(crate) name: Option<String>,
    pub(crate) description: Option<String>,
}

impl Effort {
    /// An effort known only by its id (the name is the id, as the real host writes them).
    pub fn named(id: &str) -> Self {
        Self {
            id: id.to_string(),
            name: Some(id.to_string()),
            description: None,
        }
    }
}

impl<'de> Deserialize<'de> for Effort {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        // By hand rather than an untagged enum, so a bad effort says what was wrong.
        let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_string);
        match Value::deserialize(d)? {
            Value::String(id) => Ok(Self {
                id,
                name: None,
                description: None,
            }),
            Value::Object(map) => Ok(Self {
                id: text(map.get("id"))
                    .ok_or_else(|| D::Error::custom("an effort's id is missing or not a string"))?,
                name: text(map.get("name")),
                description: text(map.get("description")),
            }),
            _ => Err(D::Error::custom(
                "an effort is {id, name, description} or a word",
            )),
        }
    }
}

/// The reasoning efforts a model declares (`groups[].models[].reasoning`): `defaultEffort` and
/// `efforts[]` of `{id, name, description}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Reasoning {
    pub efforts: Vec<Effort>,
    #[serde(rename = "defaultEffort", alias = "default")]
    pub default: Option<String>,
}

impl Reasoning {
    /// The effort ids, in the catalog's order: what a request names.
    pub fn ids(&self) -> Vec<String> {
        self.efforts
            .iter()
            .map(|effort| effort.id.clone())
            .collect()
    }
}

/// One model of a catalog group: `{id, name, description, reasoning}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogModel {
    #[serde(alias = "model", alias = "modelId")]
    pub id: String,
    /// The display name (`name`, e.g. "V41 Flash").
    #[serde(default, rename = "name", alias = "title")]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub reasoning: Option<Reasoning>,
}

/// One provider's models in the catalog: `{id, name, models}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelGroup {
    /// The provider id (`id`, e.g. "deepseek-account").
    #[serde(rename = "id", alias = "provider")]
    pub provider: String,
    #[serde(default, rename = "name", alias = "title")]
    pub title: Option<String>,
    #[serde(default)]
    pub models: Vec<CatalogModel>,
}

/// A provider the host could not list, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CatalogFailure {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(deserialize_with = "lenient_text")]
    pub message: String,
}

/// `modelCatalog` of GET /capabilities (seed §2), or `{unavailable: reason}` when the host could
/// not read its catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelCatalog {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<ModelConfig>,
    /// Always written, empty or not, as the real bridge does (`failures: []`).
    pub routable_providers: Vec<String>,
    pub groups: Vec<ModelGroup>,
    pub failures: Vec<CatalogFailure>,
    /// Why there is no catalog, when the host said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

impl ModelCatalog {
    /// The model of the catalog, if listed.
    pub fn model(&self, provider: &str, model: &str) -> Option<&CatalogModel> {
        self.groups
            .iter()
            .filter(|group| group.provider == provider)
            .flat_map(|group| group.models.iter())
            .find(|entry| entry.id == model)
    }

    fn sanitize(&mut self, report: &mut Report) {
        config_opt(&mut self.default, "modelCatalog.default", report);
        clean_names(
            &mut self.routable_providers,
            "modelCatalog.routableProviders",
            report,
        );
        cap(
            &mut self.groups,
            limits::MAX_SMALL_LIST,
            "modelCatalog.groups",
            report,
        );
        for group in &mut self.groups {
            clean_name(&mut group.provider, "modelCatalog.groups.provider", report);
            clean_name_opt(&mut group.title, "modelCatalog.groups.title", report);
            cap(
                &mut group.models,
                limits::MAX_SMALL_LIST,
                "modelCatalog.groups.models",
                report,
            );
            for model in &mut group.models {
                clean_name(&mut model.id, "modelCatalog.models.id", report);
                clean_name_opt(&mut model.title, "modelCatalog.models.title", report);
                clean_opt(
                    &mut model.description,
                    limits::MAX_PREVIEW,
                    Lines::Multi,
                    "modelCatalog.models.description",
                    report,
                );
                if let Some(reasoning) = &mut model.reasoning {
                    cap(
                        &mut reasoning.efforts,
                        limits::MAX_SMALL_LIST,
                        "modelCatalog.models.efforts",
                        report,
                    );
                    for effort in &mut reasoning.efforts {
                        clean_name(&mut effort.id, "modelCatalog.models.efforts.id", report);
                        clean_name_opt(
                            &mut effort.name,
                            "modelCatalog.models.efforts.name",
                            report,
                        );
                        clean_opt(
                            &mut effort.description,
                            limits::MAX_PREVIEW,
                            Lines::Multi,
                            "modelCatalog.models.efforts.description",
                            report,
                        );
                    }
                    clean_name_opt(
                        &mut reasoning.default,
                        "modelCatalog.models.default",
                        report,
                    );
                }
            }
        }
        cap(
            &mut self.failures,
            limits::MAX_SMALL_LIST,
            "modelCatalog.failures",
            report,
        );
        clean_opt(
            &mut self.unavailable,
            limits::MAX_ERROR_MESSAGE,
            Lines::Single,
            "modelCatalog.unavailable",
            report,
        );
        for failure in &mut self.failures {
            clean_name_opt(
                &mut failure.provider,
                "modelCatalog.failures.provider",
                report,
            );
            clean(
                &mut failure.message,
                limits::MAX_ERROR_MESSAGE,
                Lines::Single,
                "modelCatalog.failures.message",
                report,
            );
        }
    }
}

/// One agent preset the host really offers (seed: only listed presets may be used; never
/// guess). The real bridge sends `{id, name}`; a bare word is read as the id, and an object
/// with only a `name` (or `preset`) uses it as the id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentPreset {
    pub id: String,
    /// The display name (`name`).
    #[serde(rename = "name", skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl<'de> Deserialize<'de> for AgentPreset {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Shape {
            Name(String),
            Full {
                #[serde(default)]
                id: Option<String>,
                #[serde(default)]
                name: Option<String>,
                #[serde(default)]
                preset: Option<String>,
                #[serde(default)]
                title: Option<String>,
                #[serde(default)]
                description: Option<String>,
            },
        }
        use serde::de::Error;
        Ok(match Shape::deserialize(d)? {
            Shape::Name(id) => Self {
                id,
                title: None,
                description: None,
            },
            Shape::Full {
                id,
                name,
                preset,
                title,
                description,
            } => {
                let title = name.clone().or(title);
                let id = id
                    .or(preset)
                    .or(name)
                    .ok_or_else(|| D::Error::custom("a preset needs an id or a name"))?;
                Self {
                    id,
                    title,
                    description,
                }
            }
        })
    }
}

/// A capability that is not available this time, and why (seed `unavailable`). A bridge may
/// send a list of these or a map `{capability: reason}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Unavailable {
    pub(crate) capability: String,
    #[serde(default, deserialize_with = "lenient_text")]
    pub(crate) reason: String,
}

fn lenient_unavailable<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Unavailable>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(list) => list
            .into_iter()
            .filter_map(|entry| serde_json::from_value(entry).ok())
            .collect(),
        Value::Object(map) => map
            .into_iter()
            .map(|(capability, reason)| Unavailable {
                capability,
                reason: match reason {
                    Value::String(text) => text,
                    other => other.to_string(),
                },
            })
            .collect(),
        _ => Vec::new(),
    })
}

/// The value of `GET /capabilities` (seed §2).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Capabilities {
    pub protocol_version: u32,
    pub route_prefix: String,
    pub capabilities: CapabilityBits,
    pub model_catalog: ModelCatalog,
    /// The real bridge sends `{unavailable: reason}` here when the host has no preset
    /// registry; that reads as no presets (the reason is in `unavailable` too).
    #[serde(deserialize_with = "presets_or_unavailable")]
    pub agent_presets: Vec<AgentPreset>,
    /// Written as the real bridge's map `{capability: reason}` (`{}` when all is there).
    #[serde(
        deserialize_with = "lenient_unavailable",
        serialize_with = "unavailable_map"
    )]
    pub unavailable: Vec<Unavailable>,
}

fn unavailable_map<S: Serializer>(list: &[Unavailable], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(list.len()))?;
    for entry in list {
        map.serialize_entry(&entry.capability, &entry.reason)?;
    }
    map.end()
}

fn presets_or_unavailable<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<AgentPreset>, D::Error> {
    use serde::de::Error;
    match Value::deserialize(d)? {
        Value::Object(map) if map.contains_key("unavailable") => Ok(Vec::new()),
        other => serde_json::from_value(other).map_err(D::Error::custom),
    }
}

impl Capabilities {
    /// Whether a preset may be asked for: only the listed ones (seed GET /capabilities).
    pub fn offers_preset(&self, id: &str) -> bool {
        self.agent_presets.iter().any(|preset| preset.id == id)
    }
}

impl Sanitize for Capabilities {
    fn sanitize(&mut self, report: &mut Report) {
        clean_name(&mut self.route_prefix, "routePrefix", report);
        // The words among the bits (the DSH fuzz target found these two uncleaned).
        clean_name_opt(
            &mut self.capabilities.workspaces.scope,
            "capabilities.workspaces.scope",
            report,
        );
        clean_name_opt(
            &mut self.capabilities.events.cursor,
            "capabilities.events.cursor",
            report,
        );
        self.model_catalog.sanitize(report);
        cap(
            &mut self.agent_presets,
            limits::MAX_SMALL_LIST,
            "agentPresets",
            report,
        );
        for preset in &mut self.agent_presets {
            clean_name(&mut preset.id, "agentPresets.id", report);
            clean_name_opt(&mut preset.title, "agentPresets.title", report);
            clean_opt(
                &mut preset.description,
                limits::MAX_PREVIEW,
                Lines::Multi,
                "agentPresets.description",
                report,
            );
        }
        cap(
            &mut self.unavailable,
            limits::MAX_SMALL_LIST,
            "unavailable",
            report,
        );
        for entry in &mut self.unavailable {
            clean_name(&mut entry.capability, "unavailable.capability", report);
            clean(
                &mut entry.reason,
                limits::MAX_ERROR_MESSAGE,
                Lines::Single,
                "unavailable.reason",
                report,
            );
        }
    }
}

// ---------------------------------------------------------------- GET /sessions

/// One host session of a workspace (seed GET /sessions), which `tasks/create` may adopt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    #[serde(alias = "id")]
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The bridge task that follows this session, when one does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Stamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Stamp>,
    /// The host's own flags (the real bridge passes its session list through).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blank: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_available: Option<bool>,
}

/// The value of `GET /sessions?workspaceId=`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionList {
    /// The workspace asked for, as the real bridge echoes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<String>,
    pub items: Vec<Session>,
}

impl Sanitize for SessionList {
    fn sanitize(&mut self, report: &mut Report) {
        clean_name_opt(&mut self.workspace_id, "workspaceId", report);
        cap(&mut self.items, limits::MAX_LIST, "items", report);
        for (i, session) in self.items.iter_mut().enumerate() {
            let path = format!("items[{i}]");
            clean_name(
                &mut session.session_id,
                &format!("{path}.sessionId"),
                report,
            );
            clean_name_opt(&mut session.title, &format!("{path}.title"), report);
            clean_name_opt(&mut session.cwd, &format!("{path}.cwd"), report);
            clean_name_opt(&mut session.task_id, &format!("{path}.taskId"), report);
            stamp_opt(
                &mut session.created_at,
                &format!("{path}.createdAt"),
                report,
            );
            stamp_opt(
                &mut session.updated_at,
                &format!("{path}.updatedAt"),
                report,
            );
        }
    }
}

// ---------------------------------------------------------------- GET /transcript

dsh_open_enum! {
    /// The state of the bridge's follower of a session.
    FollowerStatus {
        Starting => "starting",
        Live => "live",
        Failed => "failed",
        Stopped => "stopped",
        /// Read from the host's durable log; no follower.
        Durable => "durable",
    }
}

dsh_open_enum! {
    /// Where a transcript page came from (seed GET /transcript).
    TranscriptSource {
        BridgeFollower => "bridge-follower",
        BridgeFollowerAndDurable => "bridge-follower+durable",
        DurableLog => "durable-log",
    }
}

/// The value of `GET /transcript` (seed §2): one page of events after `sinceSeq`.
/// `truncatedBefore` is the earliest `sessionSeq` still available when the asked range could not
/// be read whole (a gap the client shows); null means no gap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptPage {
    #[serde(default)]
    pub task_id: Option<String>,
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follower_status: Option<FollowerStatus>,
    #[serde(default)]
    pub follower_failure: Option<ErrorInfo>,
    /// The latest `sessionSeq` the bridge holds (-1 when none).
    pub cursor: i64,
    #[serde(default)]
    pub truncated_before: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<TranscriptSource>,
    #[serde(default)]
    pub items: Vec<Event>,
}

impl Sanitize for TranscriptPage {
    fn sanitize(&mut self, report: &mut Report) {
        clean_name_opt(&mut self.task_id, "taskId", report);
        clean_name(&mut self.session_id, "sessionId", report);
        error_opt(&mut self.follower_failure, "followerFailure", report);
        cap(
            &mut self.items,
            limits::MAX_TRANSCRIPT_LIMIT,
            "items",
            report,
        );
        for (i, event) in self.items.iter_mut().enumerate() {
            event.sanitize(&format!("items[{i}]"), report);
        }
    }
}

// ---------------------------------------------------------------- tasks

dsh_open_enum! {
    /// A task's status (seed GET /tasks/get): `idle` when the last turn completed, `attention`
    /// when it ended otherwise or a permission wait is open.
    TaskStatus {
        Starting => "starting",
        Running => "running",
        Idle => "idle",
        Attention => "attention",
        Closed => "closed",
    }
}

dsh_open_enum! {
    /// What an appended message is, for the bridge's record (seed POST /tasks/append). The
    /// session sees a plain user message whatever the kind.
    AppendKind {
        Instruction => "instruction",
        Feedback => "feedback",
        Question => "question",
        Review => "review",
        Clarification => "clarification",
        Note => "note",
    }
}

impl AppendKind {
    /// Every kind, in the seed's order (for a picker).
    pub const ALL: [AppendKind; 6] = [
        Self::Instruction,
        Self::Feedback,
        Self::Question,
        Self::Review,
        Self::Clarification,
        Self::Note,
    ];
}

dsh_open_enum! {
    /// Whether an appended message waits for the running turn (`queue`, the default) or steers it.
    AppendMode {
        Queue => "queue",
        Steer => "steer",
    }
}

/// The task's last turn as the bridge saw it end: the real bridge sends `{turn, reason, at}`,
/// `reason` being the host's end kind (`completed`, `aborted`, `error`, …) or the phase.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LastTurn {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A phase word, from bridges that send one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<ExecutionPhase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_seq: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
}

/// One appended round of a task (its history as the bridge records it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Round {
    pub round: u64,
    #[serde(default)]
    pub request_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<AppendKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<AppendMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_preview: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Stamp>,
    /// Whether the host admitted the prompt.
    #[serde(default)]
    pub accepted: bool,
}

/// The public view of a task (seed GET /tasks/get).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskView {
    pub task_id: String,
    pub workspace_id: String,
    #[serde(default)]
    pub workspace_path: String,
    pub session_id: String,
    #[serde(default)]
    pub agent_preset: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub objective: Option<String>,
    #[serde(default)]
    pub acceptance_criteria: Option<String>,
    #[serde(default)]
    pub external: Option<Value>,
    pub status: TaskStatus,
    #[serde(default)]
    pub requested_config: Option<ModelConfig>,
    #[serde(default)]
    pub observed_config: Option<ModelConfig>,
    #[serde(default)]
    pub last_turn: Option<LastTurn>,
    #[serde(default)]
    pub rounds: Vec<Round>,
    #[serde(default)]
    pub created_at: Option<Stamp>,
    #[serde(default)]
    pub updated_at: Option<Stamp>,
}

impl TaskView {
    pub(crate) fn sanitize(&mut self, path: &str, report: &mut Report) {
        clean_name(&mut self.task_id, &format!("{path}.taskId"), report);
        clean_name(
            &mut self.workspace_id,
            &format!("{path}.workspaceId"),
            report,
        );
        clean_name(
            &mut self.workspace_path,
            &format!("{path}.workspacePath"),
            report,
        );
        clean_name(&mut self.session_id, &format!("{path}.sessionId"), report);
        clean_name_opt(
            &mut self.agent_preset,
            &format!("{path}.agentPreset"),
            report,
        );
        clean_name_opt(&mut self.title, &format!("{path}.title"), report);
        for (field, text) in [
            ("objective", &mut self.objective),
            ("acceptanceCriteria", &mut self.acceptance_criteria),
        ] {
            clean_opt(
                text,
                limits::MAX_TASK_TEXT_CHARS * 4,
                Lines::Multi,
                format!("{path}.{field}"),
                report,
            );
        }
        cap_json(&mut self.external, &format!("{path}.external"), report);
        config_opt(
            &mut self.requested_config,
            &format!("{path}.requestedConfig"),
            report,
        );
        config_opt(
            &mut self.observed_config,
            &format!("{path}.observedConfig"),
            report,
        );
        if let Some(last) = &mut self.last_turn {
            clean_name_opt(&mut last.reason, &format!("{path}.lastTurn.reason"), report);
            error_opt(&mut last.error, &format!("{path}.lastTurn.error"), report);
        }
        cap(
            &mut self.rounds,
            limits::MAX_ROUNDS,
            format!("{path}.rounds"),
            report,
        );
        for round in &mut self.rounds {
            clean_name_opt(
                &mut round.request_id,
                &format!("{path}.rounds.requestId"),
                report,
            );
            clean_opt(
                &mut round.message_preview,
                limits::MAX_PREVIEW,
                Lines::Multi,
                format!("{path}.rounds.messagePreview"),
                report,
            );
            stamp_opt(&mut round.at, &format!("{path}.rounds.at"), report);
        }
        stamp_opt(&mut self.created_at, &format!("{path}.createdAt"), report);
        stamp_opt(&mut self.updated_at, &format!("{path}.updatedAt"), report);
    }
}

/// `follower` of GET /tasks/get.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Follower {
    pub status: FollowerStatus,
    pub cursor: i64,
    /// The seq below which the follower's tail lost events, `null` when it lost none.
    #[serde(default)]
    pub truncated_before: Option<i64>,
    #[serde(default)]
    pub failure: Option<ErrorInfo>,
}

/// The value of `GET /tasks/get?taskId=`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskGetValue {
    pub task: TaskView,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follower: Option<Follower>,
}

impl Sanitize for TaskGetValue {
    fn sanitize(&mut self, report: &mut Report) {
        self.task.sanitize("task", report);
        if let Some(follower) = &mut self.follower {
            error_opt(&mut follower.failure, "follower.failure", report);
        }
    }
}

/// The value of `GET /tasks/list[?workspaceId=]`: the open tasks in the token's scope.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TaskList {
    pub items: Vec<TaskView>,
}

impl Sanitize for TaskList {
    fn sanitize(&mut self, report: &mut Report) {
        cap(&mut self.items, limits::MAX_LIST, "items", report);
        for (i, task) in self.items.iter_mut().enumerate() {
            task.sanitize(&format!("items[{i}]"), report);
        }
    }
}

/// The body of `POST /tasks/create` (seed §2). `requestId` is the idempotency key (SPEC D5);
/// `sessionId` adopts an existing session of the same workspace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskRequest {
    pub request_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    pub workspace_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objective: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceptance_criteria: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_context: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_preset: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
}

/// The value of `POST /tasks/create`: `replayed` means the request id was seen and no session
/// was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskValue {
    pub task: TaskView,
    #[serde(default)]
    pub replayed: bool,
}

impl Sanitize for CreateTaskValue {
    fn sanitize(&mut self, report: &mut Report) {
        self.task.sanitize("task", report);
    }
}

/// The body of `POST /tasks/append` (seed §2, SPEC D5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppendRequest {
    pub request_id: String,
    pub task_id: String,
    pub kind: AppendKind,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<AppendMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
}

/// The value of `POST /tasks/append`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppendValue {
    pub task_id: String,
    pub session_id: String,
    pub round: u64,
    #[serde(default)]
    pub accepted: bool,
    #[serde(default)]
    pub replayed: bool,
}

impl Sanitize for AppendValue {
    fn sanitize(&mut self, report: &mut Report) {
        clean_name(&mut self.task_id, "taskId", report);
        clean_name(&mut self.session_id, "sessionId", report);
    }
}

dsh_open_enum! {
    /// What wakes a `tasks/wait` (seed POST /tasks/wait). `turn-end` and `input-request` are
    /// the defaults.
    WaitOn {
        TurnEnd => "turn-end",
        InputRequest => "input-request",
        Message => "message",
        ToolFailure => "tool-failure",
        Artifact => "artifact",
    }
}

/// `condition` of POST /tasks/wait: `sinceSeq` is the cursor the client holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitCondition {
    pub since_seq: i64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on: Vec<WaitOn>,
}

/// The body of `POST /tasks/wait`. `waitMs` is capped by the bridge's `maxWaitMs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitRequest {
    pub task_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
    pub condition: WaitCondition,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) request_id: Option<String>,
}

/// The value of `POST /tasks/wait`: `timedOut` with no invented events when nothing matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitValue {
    pub task_id: String,
    pub session_id: String,
    pub cursor: i64,
    pub status: TaskStatus,
    pub timed_out: bool,
    #[serde(default)]
    pub events: Vec<Event>,
}

impl Sanitize for WaitValue {
    fn sanitize(&mut self, report: &mut Report) {
        clean_name(&mut self.task_id, "taskId", report);
        clean_name(&mut self.session_id, "sessionId", report);
        cap(
            &mut self.events,
            limits::MAX_TRANSCRIPT_LIMIT,
            "events",
            report,
        );
        for (i, event) in self.events.iter_mut().enumerate() {
            event.sanitize(&format!("events[{i}]"), report);
        }
    }
}

/// The body of `POST /tasks/cancel` and `POST /tasks/close`. `requestId` is optional and only
/// echoed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRef {
    pub task_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// The value of `POST /tasks/cancel`: the running turn is aborted; queue and permission waits
/// stay untouched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelValue {
    pub task_id: String,
    pub session_id: String,
    #[serde(default)]
    pub accepted: bool,
}

impl Sanitize for CancelValue {
    fn sanitize(&mut self, report: &mut Report) {
        clean_name(&mut self.task_id, "taskId", report);
        clean_name(&mut self.session_id, "sessionId", report);
    }
}

/// The value of `POST /tasks/close`: following stops; the session stays on the desktop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CloseValue {
    pub task_id: String,
    pub status: TaskStatus,
    #[serde(default)]
    pub session_kept: bool,
}

impl Sanitize for CloseValue {
    fn sanitize(&mut self, report: &mut Report) {
        clean_name(&mut self.task_id, "taskId", report);
    }
}
