//! Status subresources of the monitoring.grafana.com kinds (upstream has none: quirk Q8).
//!
//! A GrafanaAgent's status is its own. A MetricsInstance, LogsInstance, PodLogs or Integration
//! can be selected by several GrafanaAgents, so its status is a list of entries keyed by agent
//! (`status.agents`, a list-map keyed by `agent`): each agent's reconciler server-side-applies
//! only its own entry under its own field manager, and the API server merges the entries, so two
//! agents never overwrite each other. A PodLogs entry is small (one condition and the selecting
//! LogsInstances) and is written only when it changes, so thousands of PodLogs cost one write
//! each when they appear or change, none otherwise. ServiceMonitors, PodMonitors and Probes
//! belong to the Prometheus Operator's CRDs and have no status the operator may write: what
//! happened to them is in the MetricsInstance entry, the agent's status and Warning Events.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Condition types the operator sets.
pub mod condition {
    /// Everything selected was rendered and applied (`False` names what was not).
    pub const RECONCILED: &str = "Reconciled";
    /// The workloads that run the object report all their pods ready.
    pub const AVAILABLE: &str = "Available";
    /// `True` while the pods do not use some settings of the selected objects: with runtime
    /// alloy, settings Alloy does not use; with either runtime, fields the operator no longer
    /// uses (`spec.configReloaderImage`) and fields our CRDs' schemas lack (a newer CRD in the
    /// cluster). The message names each object and field. On the GrafanaAgent for every
    /// object it selects; in an instance's, PodLogs' or Integration's entry for the object
    /// and what it selects.
    pub const RUNTIME_DIFFERENCES: &str = "RuntimeDifferences";
}

/// Condition reasons shared by the operator's kinds (a rejected object's own reason, in
/// [`RejectedObject::reason`], says more precisely what is wrong with it).
pub mod reason {
    /// `Reconciled=True`: everything was rendered and applied.
    pub const RECONCILED: &str = "Reconciled";
    /// `Reconciled=False`: some objects or fields were rejected; the rest was applied.
    pub const INVALID_CONFIGURATION: &str = "InvalidConfiguration";
    /// `Reconciled=False`: writing the planned objects failed; the operator retries.
    pub const APPLY_FAILED: &str = "ApplyFailed";
    /// `Available=True`: every workload has all its pods ready.
    pub const WORKLOADS_READY: &str = "WorkloadsReady";
    /// `Available=False`: a workload has fewer ready pods than it wants.
    pub const WORKLOADS_NOT_READY: &str = "WorkloadsNotReady";
    /// `Available=False`: a workload has fewer ready pods than it wants, and in some of them
    /// the config loader is not ready: the agent refused the newest config (it runs the last
    /// one it accepted) or the config cannot be read; the message names the pods.
    pub const CONFIG_NOT_LOADED: &str = "ConfigNotLoaded";
    /// `Available=False`: nothing runs (no workload is planned for the object).
    pub const NO_WORKLOADS: &str = "NoWorkloads";
    /// `RuntimeDifferences=True`: Alloy does not use some settings (see the message).
    pub const ALLOY_DIFFERENCE: &str = "AlloyDifference";
    /// `RuntimeDifferences=True`: some settings are not used by the operator any more (see
    /// the message), maybe with some Alloy does not use.
    pub const UNUSED_SETTING: &str = "UnusedSetting";
    /// `RuntimeDifferences=True`: some objects hold fields that the schemas of our CRDs lack
    /// (the cluster serves a newer CRD, e.g. prometheus-operator's): they are ignored, and
    /// the message names each object and field.
    pub const UNKNOWN_FIELD: &str = "UnknownField";
}

/// How many rejected objects a status lists; `rejectedTotal` counts them all.
pub const MAX_LISTED_REJECTIONS: usize = 20;

/// One object (or a field of it) left out of the generated config, and why.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RejectedObject {
    /// Kind of the object at fault, e.g. `ServiceMonitor`.
    pub kind: String,
    /// Namespace of the object at fault (empty for a cluster-scoped one).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Name of the object at fault.
    pub name: String,
    /// The offending field's path, e.g. `spec.endpoints[0].relabelings[0].regex`, when one
    /// field is at fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Machine-readable cause, e.g. `InvalidRegex`, `SecretNotFound`, `KeyNotFound`.
    pub reason: String,
    /// What is wrong and what was left out.
    pub message: String,
}

/// Status of a GrafanaAgent: what it selected, what was rejected, whether its workloads run.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrafanaAgentStatus {
    /// The `metadata.generation` of the GrafanaAgent this status was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// `Reconciled` (everything selected was rendered and applied) and `Available` (every
    /// workload has all its pods ready).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
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
    /// Number of ScrapeConfigs selected through the agent's MetricsInstances.
    #[serde(default)]
    pub scrape_configs: i32,
    /// Number of PodLogs selected through the agent's LogsInstances.
    #[serde(default)]
    pub pod_logs: i32,
    /// Effective shard count (StatefulSets); 0 when no MetricsInstance is selected.
    #[serde(default)]
    pub shards: i32,
    /// Pods per shard; 0 when no MetricsInstance is selected.
    #[serde(default)]
    pub replicas: i32,
    /// The first 20 problems found while rendering the agent (selected objects, or fields of
    /// them or of the agent, left out), in a stable order. Each also has a Warning Event.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected_objects: Vec<RejectedObject>,
    /// Number of problems found, listed or not.
    #[serde(default)]
    pub rejected_total: i32,
}

/// Status of a MetricsInstance: one entry per GrafanaAgent that selects it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricsInstanceStatus {
    /// One entry per selecting GrafanaAgent, each written by that agent's reconciler only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["agent"]))]
    pub agents: Vec<MetricsInstanceAgentStatus>,
}

/// What one GrafanaAgent made of a MetricsInstance.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricsInstanceAgentStatus {
    /// `<namespace>/<name>` of the GrafanaAgent this entry is about.
    pub agent: String,
    /// `Reconciled` (the instance and the monitors it selects were rendered) and `Available`
    /// (the agent's metrics StatefulSets have all their pods ready).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
    pub conditions: Vec<Condition>,
    /// Number of ServiceMonitors the instance selects.
    #[serde(default)]
    pub service_monitors: i32,
    /// Number of PodMonitors the instance selects.
    #[serde(default)]
    pub pod_monitors: i32,
    /// Number of Probes the instance selects.
    #[serde(default)]
    pub probes: i32,
    /// Number of ScrapeConfigs the instance selects.
    #[serde(default)]
    pub scrape_configs: i32,
    /// The first 20 problems in the instance or what it selects, in a stable order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected_objects: Vec<RejectedObject>,
    /// Number of problems found, listed or not.
    #[serde(default)]
    pub rejected_total: i32,
}

/// Status of a LogsInstance: one entry per GrafanaAgent that selects it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsInstanceStatus {
    /// One entry per selecting GrafanaAgent, each written by that agent's reconciler only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["agent"]))]
    pub agents: Vec<LogsInstanceAgentStatus>,
}

/// What one GrafanaAgent made of a LogsInstance.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsInstanceAgentStatus {
    /// `<namespace>/<name>` of the GrafanaAgent this entry is about.
    pub agent: String,
    /// `Reconciled` (the instance and the PodLogs it selects were rendered) and `Available`
    /// (the agent's logs DaemonSet has all its pods ready).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
    pub conditions: Vec<Condition>,
    /// Number of PodLogs the instance selects.
    #[serde(default)]
    pub pod_logs: i32,
    /// The first 20 problems in the instance or the PodLogs it selects, in a stable order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected_objects: Vec<RejectedObject>,
    /// Number of problems found, listed or not.
    #[serde(default)]
    pub rejected_total: i32,
}

/// Status of an Integration: one entry per GrafanaAgent that selects it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationStatus {
    /// One entry per selecting GrafanaAgent, each written by that agent's reconciler only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["agent"]))]
    pub agents: Vec<IntegrationAgentStatus>,
}

/// What one GrafanaAgent made of an Integration.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationAgentStatus {
    /// `<namespace>/<name>` of the GrafanaAgent this entry is about.
    pub agent: String,
    /// `Reconciled` (the integration was rendered) and `Available` (the workload that runs it,
    /// a Deployment or a DaemonSet, has all its pods ready).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
    pub conditions: Vec<Condition>,
    /// The problems found in the integration (at most 20), in a stable order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected_objects: Vec<RejectedObject>,
    /// Number of problems found, listed or not.
    #[serde(default)]
    pub rejected_total: i32,
}

/// Status of a PodLogs: one entry per GrafanaAgent whose LogsInstances select it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodLogsStatus {
    /// One entry per selecting GrafanaAgent, each written by that agent's reconciler only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["agent"]))]
    pub agents: Vec<PodLogsAgentStatus>,
}

/// What one GrafanaAgent made of a PodLogs.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodLogsAgentStatus {
    /// `<namespace>/<name>` of the GrafanaAgent this entry is about.
    pub agent: String,
    /// The `metadata.generation` of the PodLogs this entry was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// `Reconciled`: `True` when the PodLogs is in the agent's logs config; `False` with the
    /// rejection's reason (e.g. `InvalidRegex`) and message when it was left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
    pub conditions: Vec<Condition>,
    /// `<namespace>/<name>` of the agent's LogsInstances that select the PodLogs, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logs_instances: Vec<String>,
}

/// The key of an agent's entry in an instance's, PodLogs' or Integration's `status.agents`.
pub fn agent_key(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}
