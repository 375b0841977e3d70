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
    /// The `metadata.generation` of the GrafanaAgent this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// The agent's conditions: `Reconciled` and `Degraded`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Number of MetricsInstances this agent selects.
    #[serde(default)]
    pub metrics_instances: i32,
    /// Number of LogsInstances this agent selects.
    #[serde(default)]
    pub logs_instances: i32,
    /// Number of Integrations this agent selects.
    #[serde(default)]
    pub integrations: i32,
    /// Number of ServiceMonitors selected through the agent's MetricsInstances.
    #[serde(default)]
    pub service_monitors: i32,
    /// Number of PodMonitors selected through the agent's MetricsInstances.
    #[serde(default)]
    pub pod_monitors: i32,
    /// Number of Probes selected through the agent's MetricsInstances.
    #[serde(default)]
    pub probes: i32,
    /// Number of PodLogs selected through the agent's LogsInstances.
    #[serde(default)]
    pub pod_logs: i32,
    /// Number of problems found while rendering the agent: selected objects, or fields of them
    /// or of the agent, that were left out. Each also has a Warning Event.
    #[serde(default)]
    pub rejected: i32,
    /// Effective shard count (StatefulSets); 0 when no MetricsInstance is selected.
    #[serde(default)]
    pub shards: i32,
    /// Pods per shard; 0 when no MetricsInstance is selected.
    #[serde(default)]
    pub replicas: i32,
}

/// Status of a MetricsInstance or LogsInstance.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstanceStatus {
    /// The `metadata.generation` of the instance this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// The instance's conditions: `Selected` and `Accepted`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// `namespace/name` of every GrafanaAgent that selects this instance.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    /// ServiceMonitors (metrics) selected.
    #[serde(default)]
    pub service_monitors: i32,
    /// PodMonitors (metrics) selected.
    #[serde(default)]
    pub pod_monitors: i32,
    /// Probes (metrics) selected.
    #[serde(default)]
    pub probes: i32,
    /// PodLogs (logs) selected.
    #[serde(default)]
    pub pod_logs: i32,
    /// Number of objects or fields, in this instance or in what it selects, left out of the config.
    #[serde(default)]
    pub rejected: i32,
}

/// Status of a leaf object (PodLogs, Integration): who selects it and whether it rendered.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectionStatus {
    /// The `metadata.generation` of the object this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// The object's conditions: `Selected` and `Accepted`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// `namespace/name` of every GrafanaAgent that selects this object.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
}
