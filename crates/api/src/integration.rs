//! `Integration`: one Grafana Agent integration (node_exporter, redis_exporter, ...).

use k8s_openapi::api::core::v1::{Volume, VolumeMount};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::selectors::{ConfigMapKeySelector, SecretKeySelector};
use crate::status::SelectionStatus;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.grafana.com",
    version = "v1alpha1",
    kind = "Integration",
    plural = "integrations",
    singular = "integration",
    namespaced,
    category = "agent-operator",
    status = "SelectionStatus",
    derive = "Default",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationSpec {
    /// The integration's name; its config goes under `<name>_configs`.
    pub name: String,
    #[serde(rename = "type")]
    pub type_: IntegrationType,
    /// The integration's config, copied verbatim into the agent's config.
    #[schemars(schema_with = "crate::schema::preserved_object")]
    pub config: serde_json::Value,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volumes: Vec<Volume>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volume_mounts: Vec<VolumeMount>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<SecretKeySelector>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config_maps: Vec<ConfigMapKeySelector>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationType {
    /// true: runs on every node (DaemonSet); false: runs once (Deployment).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all_nodes: bool,
    /// Accepted but not read, as upstream: uniqueness is the agent's business.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unique: bool,
}
