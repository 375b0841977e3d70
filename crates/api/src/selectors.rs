//! References to Secrets, ConfigMaps and namespaces as the prometheus-operator types spell them.
//!
//! These are our own types rather than k8s-openapi's because upstream's CRDs leave `name`
//! optional, and a manifest that omits it must still be accepted.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A key of a Secret in the namespace of the object that holds the selector.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct SecretKeySelector {
    /// The key in the Secret's `data` whose value is used.
    pub key: String,
    /// Name of the Secret. Optional in the schema, as upstream, but a selector without a name
    /// refers to nothing.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(extend("default" = ""))]
    pub name: String,
    /// When true, a missing Secret or key leaves out the one setting that refers to it
    /// instead of rejecting the object (upstream ignores the flag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// A key of a ConfigMap in the namespace of the object that holds the selector.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct ConfigMapKeySelector {
    /// The key in the ConfigMap's `data` (or `binaryData`) whose value is used.
    pub key: String,
    /// Name of the ConfigMap. Optional in the schema, as upstream, but a selector without a name
    /// refers to nothing.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(extend("default" = ""))]
    pub name: String,
    /// When true, a missing ConfigMap or key leaves out the one setting that refers to it
    /// instead of rejecting the object (upstream ignores the flag).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
}

/// Either a Secret key or a ConfigMap key; the Secret wins when both are set.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecretOrConfigMap {
    /// A key of a Secret; used whenever it is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<SecretKeySelector>,
    /// A key of a ConfigMap; used only when `secret` is unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_map: Option<ConfigMapKeySelector>,
}

/// prometheus-operator's namespace selector for the *targets* of a monitor:
/// `any: true` means every namespace, `matchNames` lists them, neither means the monitor's own.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceSelector {
    /// When true, discovery covers every namespace and `matchNames` is ignored. Defaults to
    /// false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub any: bool,
    /// Namespaces discovery covers when `any` is false; empty means the namespace of the object
    /// holding this selector.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_names: Vec<String>,
}
