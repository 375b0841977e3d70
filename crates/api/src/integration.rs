//! `Integration`: one Grafana Agent integration (node_exporter, redis_exporter, ...).

use k8s_openapi::api::core::v1::{Volume, VolumeMount};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::selectors::{ConfigMapKeySelector, SecretKeySelector};
use crate::status::IntegrationStatus;

/// Desired state of an Integration: one integration the selecting agents run, its config, and
/// the files it needs.
// kube's `printcolumn(...)` blocks repeat `type_ = ...`, which clippy takes for duplicated attributes.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.grafana.com",
    version = "v1alpha1",
    kind = "Integration",
    doc = "One Grafana Agent integration (an embedded exporter) run by the GrafanaAgents that select it.",
    plural = "integrations",
    singular = "integration",
    namespaced,
    category = "agent-operator",
    status = "IntegrationStatus",
    printcolumn(
        name = "Agents",
        type_ = "string",
        json_path = r#".status.agents[*].agent"#,
        description = "The GrafanaAgents that run it"
    ),
    printcolumn(
        name = "Reconciled",
        type_ = "string",
        json_path = r#".status.agents[*].conditions[?(@.type=="Reconciled")].status"#,
        description = "Per agent: whether it was rendered and applied"
    ),
    printcolumn(
        name = "Available",
        type_ = "string",
        json_path = r#".status.agents[*].conditions[?(@.type=="Available")].status"#,
        description = "Per agent: whether its workloads are ready"
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        json_path = r#".metadata.creationTimestamp"#,
        description = "Time since the object was created"
    ),
    derive = "Default",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationSpec {
    /// The integration's name; its config goes under `<name>_configs`.
    pub name: String,
    /// Where the integration runs: on every node, or once for the agent.
    #[serde(rename = "type")]
    pub type_: IntegrationType,
    /// The integration's config, copied verbatim into the agent's config.
    #[schemars(schema_with = "crate::schema::preserved_object")]
    pub config: serde_json::Value,
    /// Volumes added to the pods that run this integration, each renamed
    /// `<namespace>-<name>-<volume>` after this Integration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volumes: Vec<Volume>,
    /// Mounts of this Integration's volumes into the agent containers; `name` is the volume's
    /// name as written in `volumes`, before the renaming.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volume_mounts: Vec<VolumeMount>,
    /// Secret keys in this Integration's namespace, mounted as files at
    /// `/etc/grafana-agent/integrations/secrets/<namespace>/<secret>/<key>` for `config` to use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<SecretKeySelector>,
    /// ConfigMap keys in this Integration's namespace, mounted as files at
    /// `/etc/grafana-agent/integrations/configMaps/<namespace>/<configmap>/<key>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config_maps: Vec<ConfigMapKeySelector>,
}

/// Where an integration runs.
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
