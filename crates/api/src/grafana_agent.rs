//! `GrafanaAgent`: the root of one deployment of agents.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Affinity, Container, LocalObjectReference, PodSecurityContext, ResourceRequirements,
    Toleration, TopologySpreadConstraint, Volume, VolumeMount,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::logs_instance::LogsClientSpec;
use crate::metrics_instance::RemoteWriteSpec;
use crate::prometheus::{ApiServerConfig, EmbeddedObjectMetadata, StorageSpec};
use crate::status::GrafanaAgentStatus;

/// Desired state of a set of Grafana Agent workloads: metrics StatefulSets, a logs DaemonSet
/// and the integrations Deployment/DaemonSet.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.grafana.com",
    version = "v1alpha1",
    kind = "GrafanaAgent",
    plural = "grafanaagents",
    singular = "grafanaagent",
    namespaced,
    category = "agent-operator",
    status = "GrafanaAgentStatus",
    derive = "Default",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct GrafanaAgentSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_format: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_server: Option<ApiServerConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_metadata: Option<EmbeddedObjectMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_reloader_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_reloader_image: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_pull_secrets: Vec<LocalObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<StorageSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volumes: Vec<Volume>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volume_mounts: Vec<VolumeMount>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config_maps: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Affinity>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub topology_spread_constraints: Vec<TopologySpreadConstraint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_context: Option<PodSecurityContext>,
    /// Strategic-merge patches onto the operator's containers, matched by name; other names
    /// are appended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(transform = crate::schema::container_port_protocol_default)]
    pub containers: Vec<Container>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(transform = crate::schema::container_port_protocol_default)]
    pub init_containers: Vec<Container>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_class_name: Option<String>,
    /// Name of the agent's HTTP port; defaults to `http-metrics`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port_name: Option<String>,
    #[serde(default, rename = "enableConfigReadAPI")]
    pub enable_config_read_api: bool,
    #[serde(default)]
    pub disable_reporting: bool,
    #[serde(default)]
    pub disable_support_bundle: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<MetricsSubsystemSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logs: Option<LogsSubsystemSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrations: Option<IntegrationsSubsystemSpec>,
}

/// How metrics are collected: which MetricsInstances, how many shards and replicas.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricsSubsystemSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remote_write: Vec<RemoteWriteSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<i32>,
    /// How targets are split between shards: `hashmod` (upstream's) or `consistent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sharding_strategy: Option<ShardingStrategy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_external_label_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics_external_label_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrape_interval: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrape_timeout: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub external_labels: BTreeMap<String, String>,
    #[serde(
        default,
        rename = "arbitraryFSAccessThroughSMs",
        skip_serializing_if = "Option::is_none"
    )]
    pub arbitrary_fs_access_through_sms: Option<ArbitraryFsAccessThroughSms>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub override_honor_labels: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub override_honor_timestamps: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_namespace_selectors: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforced_namespace_label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforced_sample_limit: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforced_target_limit: Option<u64>,
    /// Selects MetricsInstances; unset selects none, `{}` selects all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_selector: Option<LabelSelector>,
    /// Namespaces to search for MetricsInstances; unset means the agent's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_namespace_selector: Option<LabelSelector>,
}

/// How scrape targets are assigned to metrics shards.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ShardingStrategy {
    /// `hashmod(__address__) mod shards`, as upstream: changing the shard count moves most targets.
    #[default]
    Hashmod,
    /// Targets hash into fixed buckets that are assigned to shards consistently, so changing
    /// the shard count from N to N+1 moves about 1/(N+1) of them.
    Consistent,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ArbitraryFsAccessThroughSms {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deny: bool,
}

/// How logs are collected: which LogsInstances and the default clients.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsSubsystemSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<LogsClientSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logs_external_label_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_namespace_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_namespace_selectors: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforced_namespace_label: Option<String>,
}

/// Which Integrations this agent runs.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationsSubsystemSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<LabelSelector>,
}
