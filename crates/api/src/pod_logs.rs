//! `PodLogs`: which pods' logs a LogsInstance collects and how each line is processed.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::prometheus::RelabelConfig;
use crate::selectors::NamespaceSelector;
use crate::status::SelectionStatus;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.grafana.com",
    version = "v1alpha1",
    kind = "PodLogs",
    plural = "podlogs",
    singular = "podlogs",
    namespaced,
    category = "agent-operator",
    status = "SelectionStatus",
    derive = "Default",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct PodLogsSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_label: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pod_target_labels: Vec<String>,
    /// Selects the pods whose logs are collected. Required.
    pub selector: LabelSelector,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<NamespaceSelector>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pipeline_stages: Vec<PipelineStageSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relabelings: Vec<RelabelConfig>,
}

/// One promtail pipeline stage. Exactly one field is expected to be set (not enforced, as
/// upstream).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PipelineStageSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cri: Option<CriStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docker: Option<DockerStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<DropStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<JsonStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_allow: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_drop: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<LimitStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#match: Option<MatchStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<BTreeMap<String, MetricsStageSpec>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiline: Option<MultilineStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack: Option<PackStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<RegexStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace: Option<ReplaceStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<TemplateStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<TenantStageSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<TimestampStageSpec>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct CriStageSpec {}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct DockerStageSpec {}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DropStageSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub older_than: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longer_than: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_counter_reason: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JsonStageSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub expressions: BTreeMap<String, String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LimitStageSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<bool>,
}

/// A match stage. `stages` is a YAML string holding a nested list of stages, because a CRD
/// schema cannot be recursive.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchStageSpec {
    pub selector: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_counter_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stages: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricsStageSpec {
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_idle_duration: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_all: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count_entry_bytes: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    pub action: String,
    /// Histogram buckets, as strings that must parse as numbers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buckets: Vec<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MultilineStageSpec {
    pub first_line: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wait_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_lines: Option<i64>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct OutputStageSpec {
    pub source: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackStageSpec {
    pub labels: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ingest_timestamp: bool,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct RegexStageSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub expression: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct ReplaceStageSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub expression: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct TemplateStageSpec {
    pub source: String,
    pub template: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct TenantStageSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimestampStageSpec {
    pub source: String,
    pub format: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallback_formats: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_on_failure: Option<String>,
}
