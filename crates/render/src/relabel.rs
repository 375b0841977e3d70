//! The Prometheus relabel rule as agent.yml writes it: the config renderers and the sharding
//! rules both build them, so the type sits below both.

use serde::Serialize;

use crate::expansion::ConfigString;

/// A Prometheus relabel rule as written in agent.yml. Empty and zero fields are omitted
/// (spec 4.10.6), so an empty regex or replacement cannot be expressed (Q26, kept).
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct RelabelRule {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub source_labels: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regex: Option<ConfigString>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modulus: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

impl RelabelRule {
    /// `{source_labels: [source], target_label: target}`.
    pub fn copy(source: &str, target: &str) -> Self {
        RelabelRule {
            source_labels: vec![source.to_owned()],
            target_label: Some(target.to_owned()),
            ..Default::default()
        }
    }

    /// `{source_labels: [source], regex, action}`.
    pub fn filter(source: &str, regex: &str, action: &str) -> Self {
        RelabelRule {
            source_labels: vec![source.to_owned()],
            regex: Some(regex.into()),
            action: Some(action.to_owned()),
            ..Default::default()
        }
    }

    /// `{target_label: target, replacement}`.
    pub fn set(target: &str, replacement: &str) -> Self {
        RelabelRule {
            target_label: Some(target.to_owned()),
            replacement: Some(replacement.to_owned()),
            ..Default::default()
        }
    }
}
