//! References to Secrets, ConfigMaps and namespaces as the prometheus-operator types spell them.
//!
//! These are our own types rather than k8s-openapi's because upstream's CRDs leave `name`
//! optional, and a manifest that omits it must still be accepted.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A key of a Secret in the namespace of the object that holds the selector.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct SecretKeySelector {
    pub key: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// A key of a ConfigMap in the namespace of the object that holds the selector.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct ConfigMapKeySelector {
    pub key: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// Either a Secret key or a ConfigMap key; the Secret wins when both are set.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecretOrConfigMap {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<SecretKeySelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_map: Option<ConfigMapKeySelector>,
}

/// prometheus-operator's namespace selector for the *targets* of a monitor:
/// `any: true` means every namespace, `matchNames` lists them, neither means the monitor's own.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceSelector {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub any: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_names: Vec<String>,
}
