//! Status subresources of the monitoring.grafana.com kinds (upstream has none: quirk Q8).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Condition types the operator sets.
pub mod condition {
    /// Everything the agent asked for was rendered and applied.
    pub const RECONCILED: &str = "Reconciled";
    /// Some selected objects were rejected; the rest were rendered.
    pub const DEGRADED: &str = "Degraded";
    /// The object is selected by at least one GrafanaAgent.
    pub const SELECTED: &str = "Selected";
    /// The object itself is valid and was rendered.
    pub const ACCEPTED: &str = "Accepted";
}

/// Status of a GrafanaAgent: what it selected, what was rejected, what runs.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrafanaAgentStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    #[serde(default)]
    pub metrics_instances: i32,
    #[serde(default)]
    pub logs_instances: i32,
    #[serde(default)]
    pub integrations: i32,
    #[serde(default)]
    pub service_monitors: i32,
    #[serde(default)]
    pub pod_monitors: i32,
    #[serde(default)]
    pub probes: i32,
    #[serde(default)]
    pub pod_logs: i32,
    /// Selected objects that could not be rendered; each also has a Warning Event.
    #[serde(default)]
    pub rejected: i32,
    /// Effective shard count (StatefulSets).
    #[serde(default)]
    pub shards: i32,
    /// Pods per shard.
    #[serde(default)]
    pub replicas: i32,
}

/// Status of a MetricsInstance or LogsInstance.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstanceStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// `namespace/name` of every GrafanaAgent that selects this instance.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    /// ServiceMonitors (metrics) selected.
    #[serde(default)]
    pub service_monitors: i32,
    #[serde(default)]
    pub pod_monitors: i32,
    #[serde(default)]
    pub probes: i32,
    /// PodLogs (logs) selected.
    #[serde(default)]
    pub pod_logs: i32,
    #[serde(default)]
    pub rejected: i32,
}

/// Status of a leaf object (PodLogs, Integration): who selects it and whether it rendered.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectionStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
}
