//! The small values both the events and the routes' replies carry: an error inside a value,
//! a provider/model/effort triple, and the cleaning of a name. Below both, so neither has to
//! import the other for them.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::limits;
use crate::wire::sanitize::{Lines, Report, clean, clean_opt};

pub(crate) fn clean_name(s: &mut String, path: &str, report: &mut Report) {
    clean(s, limits::MAX_NAME, Lines::Single, path, report);
}

pub(crate) fn clean_name_opt(s: &mut Option<String>, path: &str, report: &mut Report) {
    clean_opt(s, limits::MAX_NAME, Lines::Single, path, report);
}

/// An error inside a value (a turn's failure, a tool result's error, a follower's failure):
/// `{name?, code?, message?}`. A bare string from a bridge is read as the message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl<'de> Deserialize<'de> for ErrorInfo {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Fields {
            #[serde(default)]
            name: Option<Value>,
            #[serde(default)]
            code: Option<Value>,
            #[serde(default)]
            message: Option<Value>,
        }
        fn word(value: Option<Value>) -> Option<String> {
            match value? {
                Value::String(text) => Some(text),
                Value::Null => None,
                other => Some(other.to_string()),
            }
        }
        Ok(match Value::deserialize(d)? {
            Value::String(message) => Self {
                message: Some(message),
                ..Self::default()
            },
            Value::Null => Self::default(),
            object @ Value::Object(_) => {
                let fields: Fields =
                    serde_json::from_value(object).map_err(serde::de::Error::custom)?;
                Self {
                    name: word(fields.name),
                    code: word(fields.code),
                    message: word(fields.message),
                }
            }
            other => Self {
                message: Some(other.to_string()),
                ..Self::default()
            },
        })
    }
}

impl ErrorInfo {
    pub(crate) fn sanitize(&mut self, path: &str, report: &mut Report) {
        clean_name_opt(&mut self.name, &format!("{path}.name"), report);
        clean_name_opt(&mut self.code, &format!("{path}.code"), report);
        clean_opt(
            &mut self.message,
            limits::MAX_ERROR_MESSAGE,
            Lines::Multi,
            format!("{path}.message"),
            report,
        );
    }

    /// One line for the person: the code, then the message.
    pub fn summary(&self) -> String {
        match (&self.code, &self.message, &self.name) {
            (Some(code), Some(message), _) => format!("{code}: {message}"),
            (Some(code), None, _) => code.clone(),
            (None, Some(message), _) => message.clone(),
            (None, None, Some(name)) => name.clone(),
            (None, None, None) => "no details given".to_string(),
        }
    }
}

pub(crate) fn error_opt(error: &mut Option<ErrorInfo>, path: &str, report: &mut Report) {
    if let Some(error) = error {
        error.sanitize(path, report);
    }
}

/// A provider/model/effort triple: `requestedConfig`, `observedConfig`, `selectedConfig`,
/// the catalog's `default`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
}

impl ModelConfig {
    pub(crate) fn sanitize(&mut self, path: &str, report: &mut Report) {
        clean_name_opt(&mut self.provider, &format!("{path}.provider"), report);
        clean_name_opt(&mut self.model, &format!("{path}.model"), report);
        clean_name_opt(
            &mut self.reasoning_effort,
            &format!("{path}.reasoningEffort"),
            report,
        );
    }

    /// `provider/model (effort)`, with `?` for what is not given.
    pub fn label(&self) -> String {
        let provider = self.provider.as_deref().unwrap_or("?");
        let model = self.model.as_deref().unwrap_or("?");
        match &self.reasoning_effort {
            Some(effort) => format!("{provider}/{model} ({effort})"),
            None => format!("{provider}/{model}"),
        }
    }
}

pub(crate) fn config_opt(config: &mut Option<ModelConfig>, path: &str, report: &mut Report) {
    if let Some(config) = config {
        config.sanitize(path, report);
    }
}
