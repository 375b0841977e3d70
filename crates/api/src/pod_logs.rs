//! `PodLogs`: which pods' logs a LogsInstance collects and how each line is processed.
//!
//! One CRD serves two versions with one schema: `v1alpha1`, the Grafana Agent Operator's (the
//! stored version), and `v1alpha2`, Grafana Alloy's (read by its `loki.source.podlogs`), whose
//! fields (`selector`, a label-selector `namespaceSelector`, `relabelings`) are all v1alpha1's
//! too. Without a conversion webhook the API server stores an object as it was written and only
//! relabels its apiVersion when it is read in the other version, after pruning it with that
//! version's schema; with two different schemas, a write through one version (even `kubectl
//! label`, which uses v1alpha2, the preferred version) would erase the fields only the other
//! one has. One schema makes that round trip lossless ([`crd`]).

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, CustomResourceDefinition,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};
use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::prometheus::RelabelConfig;
use crate::status::PodLogsStatus;

/// The version the API server stores PodLogs in: the Grafana Agent Operator's.
pub const STORED_VERSION: &str = "v1alpha1";
/// Grafana Alloy's version of PodLogs, served with the same schema.
pub const ALLOY_VERSION: &str = "v1alpha2";
/// The categories Alloy's PodLogs CRD declares (`kubectl get alloy` lists PodLogs).
const ALLOY_CATEGORIES: [&str; 2] = ["grafana-alloy", "alloy"];

/// The PodLogs CRD: [`STORED_VERSION`] and [`ALLOY_VERSION`], both served with the same
/// schema, subresources and columns, `conversion: None` (the API server only rewrites the
/// apiVersion), and Alloy's categories beside ours.
pub fn crd() -> CustomResourceDefinition {
    let mut crd = <PodLogs as CustomResourceExt>::crd();
    let alloy = crd.spec.versions.first().map(|stored| {
        let mut alloy = stored.clone();
        alloy.name = ALLOY_VERSION.to_owned();
        alloy.storage = false;
        alloy
    });
    crd.spec.versions.extend(alloy);
    crd.spec.conversion = Some(CustomResourceConversion {
        strategy: "None".to_owned(),
        webhook: None,
    });
    let categories = crd.spec.names.categories.get_or_insert_with(Vec::new);
    categories.extend(ALLOY_CATEGORIES.map(str::to_owned));
    crd
}

/// Which Pods' logs to collect and how to process each line. Becomes one promtail scrape job,
/// `podLogs/<namespace>/<name>`, in the config of every LogsInstance that selects it.
// kube's `printcolumn(...)` blocks repeat `type_ = ...`, which clippy takes for duplicated attributes.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.grafana.com",
    version = "v1alpha1",
    kind = "PodLogs",
    doc = "Which pods' logs a LogsInstance collects, and how each line is processed. Served as v1alpha1 (the Grafana Agent Operator's, stored) and v1alpha2 (Grafana Alloy's) with the same schema; a v1alpha2 PodLogs written for Alloy is a PodLogs without pipeline stages.",
    plural = "podlogs",
    singular = "podlogs",
    namespaced,
    category = "agent-operator",
    status = "PodLogsStatus",
    printcolumn(
        name = "Agents",
        type_ = "string",
        json_path = r#".status.agents[*].agent"#,
        description = "The GrafanaAgents that collect these logs"
    ),
    printcolumn(
        name = "Reconciled",
        type_ = "string",
        json_path = r#".status.agents[*].conditions[?(@.type=="Reconciled")].status"#,
        description = "Per agent: whether it was rendered and applied"
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
pub struct PodLogsSpec {
    /// A Pod label whose value becomes the `job` label. Without it, or when the Pod lacks that
    /// label, `job` is `<namespace>/<name>` of the PodLogs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_label: Option<String>,
    /// Pod labels copied onto every log stream, each name sanitized into a valid label name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pod_target_labels: Vec<String>,
    /// Selects the pods whose logs are collected. Required.
    pub selector: LabelSelector,
    /// The namespaces to discover Pods in. Unset or `{}`: the PodLogs' own namespace. Ignored
    /// (own namespace only) when the GrafanaAgent sets `spec.logs.ignoreNamespaceSelectors`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<PodLogsNamespaceSelector>,
    /// Processing stages run on every log line, in order. A value promtail would refuse (a bad
    /// regular expression, duration or label name) rejects the PodLogs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pipeline_stages: Vec<PipelineStageSpec>,
    /// Relabeling rules applied to the discovered Pods, after the operator's own rules (which
    /// set `__path__`) and before the enforced namespace label. No node filter is added, so
    /// each agent pod discovers every selected Pod; add a `__host__` rule here to limit that.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relabelings: Vec<RelabelConfig>,
}

/// The namespaces a PodLogs discovers Pods in, in either of two spellings: prometheus-operator's
/// `any`/`matchNames` (the Grafana Agent Operator's v1alpha1), or a label selector on the
/// namespaces' labels, `matchLabels`/`matchExpressions` (Alloy's v1alpha2). Both versions accept
/// both; a PodLogs setting one of each spelling is rejected. Unset or `{}` means the PodLogs' own
/// namespace, where Alloy's `loki.source.podlogs` reads every namespace: `matchLabels: {}`
/// means every namespace to both.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodLogsNamespaceSelector {
    /// When true, Pods are discovered in every namespace and `matchNames` is ignored.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub any: bool,
    /// The namespaces to discover Pods in, when `any` is false; empty means the PodLogs' own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_names: Vec<String>,
    /// Namespace labels, each of which a namespace must carry with this value (Alloy's
    /// spelling, ANDed with `matchExpressions`). Present, even empty, makes this a label
    /// selector: an empty one matches every namespace. Every namespace carries
    /// `kubernetes.io/metadata.name` with its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<BTreeMap<String, String>>,
    /// Requirements on namespace labels (Alloy's spelling, ANDed with `matchLabels`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_expressions: Option<Vec<LabelSelectorRequirement>>,
}

impl PodLogsNamespaceSelector {
    /// The label selector (Alloy's spelling), when `matchLabels` or `matchExpressions` is
    /// present, even empty.
    pub fn label_selector(&self) -> Option<LabelSelector> {
        (self.match_labels.is_some() || self.match_expressions.is_some()).then(|| LabelSelector {
            match_labels: self.match_labels.clone(),
            match_expressions: self.match_expressions.clone(),
        })
    }

    /// Whether the label selector is present with no requirement: every namespace.
    pub fn selects_every_namespace(&self) -> bool {
        self.label_selector().is_some()
            && self.match_labels.iter().flatten().next().is_none()
            && self.match_expressions.iter().flatten().next().is_none()
    }

    /// Whether prometheus-operator's spelling (`any: true` or `matchNames`) is used.
    pub fn names_namespaces(&self) -> bool {
        self.any || !self.match_names.is_empty()
    }
}

/// One promtail pipeline stage. Exactly one field is expected to be set (not enforced, as
/// upstream).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PipelineStageSpec {
    /// Parses lines written in the CRI log format (containerd, CRI-O).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cri: Option<CriStageSpec>,
    /// Parses lines written in Docker's JSON log format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docker: Option<DockerStageSpec>,
    /// Discards lines that meet the given conditions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<DropStageSpec>,
    /// Reads values out of a JSON log line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<JsonStageSpec>,
    /// Keeps only these labels and removes every other. An empty list is not written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_allow: Option<Vec<String>>,
    /// Removes these labels. An empty list is not written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_drop: Option<Vec<String>>,
    /// Sets labels from extracted values: label name to the name of the extracted value, where
    /// an empty value means the same name as the label. Each key must be a valid label name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    /// Rate-limits the lines that pass through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<LimitStageSpec>,
    /// Runs nested stages, or drops the line, for entries whose labels match a selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#match: Option<MatchStageSpec>,
    /// Metrics derived from log lines, keyed by metric name; the agent exposes them on its
    /// own metrics endpoint. An empty map is not written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<BTreeMap<String, MetricsStageSpec>>,
    /// Joins lines that belong together (such as a stack trace) into one entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiline: Option<MultilineStageSpec>,
    /// Replaces the log line with an extracted value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputStageSpec>,
    /// Moves labels into the log line, which becomes a JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack: Option<PackStageSpec>,
    /// Extracts values from the line with a regular expression's named groups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<RegexStageSpec>,
    /// Rewrites the parts of the line a regular expression captures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace: Option<ReplaceStageSpec>,
    /// Computes an extracted value with a Go template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<TemplateStageSpec>,
    /// Sets the tenant the entry is sent as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<TenantStageSpec>,
    /// Sets the entry's timestamp from an extracted value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<TimestampStageSpec>,
}

/// Parses CRI-format lines, taking the timestamp, the stream and the message from each. Has no
/// settings.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct CriStageSpec {}

/// Parses Docker JSON-format lines, taking the timestamp, the stream and the message from
/// each. Has no settings.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct DockerStageSpec {}

/// Discards log lines. The conditions that are set must all hold for a line to be dropped.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DropStageSpec {
    /// The extracted value to test instead of the log line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// A regular expression (RE2); lines it matches are dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
    /// Drops the line when `source` holds exactly this value. Promtail refuses it together
    /// with `expression`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Drops lines whose timestamp is older than this Go duration (`1h`) before now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub older_than: Option<String>,
    /// Drops lines longer than this size, in bytes or with a unit (`8KB`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longer_than: Option<String>,
    /// The `reason` label counted for dropped lines. Promtail's default is `drop_stage`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_counter_reason: Option<String>,
}

/// Parses a log line (or an extracted value) as JSON and extracts values from it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JsonStageSpec {
    /// The extracted value to parse instead of the log line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Name of each value to extract, to the JMESPath expression that finds it; an empty
    /// expression looks up the name itself.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub expressions: BTreeMap<String, String>,
}

/// Limits how many lines per second pass through.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LimitStageSpec {
    /// Lines per second allowed through. 0 or unset is not written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<i64>,
    /// Lines allowed through in one burst above the rate. 0 or unset is not written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<i64>,
    /// When true, lines over the limit are discarded; when false (the default), they wait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<bool>,
}

/// A match stage. `stages` is a YAML string holding a nested list of stages, because a CRD
/// schema cannot be recursive.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchStageSpec {
    /// A LogQL stream selector, optionally with line filters (`{app="web"} |= "error"`), that
    /// picks the entries this stage applies to.
    pub selector: String,
    /// A name for the nested pipeline, shown in promtail's pipeline metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline_name: Option<String>,
    /// `keep` (promtail's default) runs `stages` on matching entries; `drop` discards them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The `reason` label counted for lines dropped by `action: drop`. Promtail's default is
    /// `match_stage`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_counter_reason: Option<String>,
    /// The nested stages, as a YAML list written with the same field names as
    /// `pipelineStages`. Unknown keys are ignored; text that is not such a list rejects the
    /// PodLogs, and so does nesting deeper than 32 levels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stages: Option<String>,
}

/// One metric a `metrics` stage derives from log lines.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricsStageSpec {
    /// `Counter`, `Gauge` or `Histogram`, in any letter case.
    #[serde(rename = "type")]
    pub type_: String,
    /// The metric's help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Prefix of the metric name. Promtail's own prefix is used when empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// The extracted value the metric reads. Defaults to the metric's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// A Go duration after which a series that got no update is removed (promtail's default:
    /// 5m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_idle_duration: Option<String>,
    /// Counters only: when true, every line counts, whether or not `source` was extracted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_all: Option<bool>,
    /// Counters with `matchAll` and `action: add` only: when true, the line's size in bytes is
    /// added instead of one per line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count_entry_bytes: Option<bool>,
    /// Updates the metric only when `source` holds exactly this value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// How the metric changes: `inc` or `add` for counters; `set`, `inc`, `dec`, `add` or
    /// `sub` for gauges.
    pub action: String,
    /// Histogram buckets, as strings that must parse as numbers.
    /// Whole numbers are written as integers; anything else rejects the PodLogs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buckets: Vec<String>,
}

/// Joins the lines of one multi-line message (such as a stack trace) into a single entry.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MultilineStageSpec {
    /// A regular expression (RE2) that matches the first line of each message.
    pub first_line: String,
    /// A Go duration to wait for more lines before the message is sent as it is (promtail's
    /// default: 3s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wait_time: Option<String>,
    /// Most lines one message may hold (promtail's default: 128). 0 is not written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_lines: Option<i64>,
}

/// Replaces the log line with an extracted value.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct OutputStageSpec {
    /// The extracted value that becomes the new log line.
    pub source: String,
}

/// Embeds labels in the log line: the line becomes a JSON object holding those labels and the
/// original line under `_entry`, and the labels are removed from the stream.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackStageSpec {
    /// The labels (or extracted values) to embed.
    pub labels: Vec<String>,
    /// When true, the entry's timestamp becomes the time it was packed. Only `true` is
    /// written, so `false` leaves promtail's default, which is also `true`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ingest_timestamp: bool,
}

/// Extracts values with the named capture groups of a regular expression.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct RegexStageSpec {
    /// The extracted value to match instead of the log line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// A regular expression (RE2); each named group becomes an extracted value of that name.
    pub expression: String,
}

/// Rewrites the parts of a log line (or an extracted value) that a regular expression captures.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct ReplaceStageSpec {
    /// The extracted value to rewrite instead of the log line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// A regular expression (RE2); the text of each capture group is replaced. Named groups
    /// also become extracted values.
    pub expression: String,
    /// The replacement text, a Go template that can use the captured values. Empty removes
    /// the captured text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace: Option<String>,
}

/// Sets an extracted value to the result of a Go template.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct TemplateStageSpec {
    /// The extracted value to set; it is created when missing.
    pub source: String,
    /// A Go text/template; `.Value` is the current value of `source`, and other extracted
    /// values are available by name.
    pub template: String,
}

/// Sets the tenant (the `X-Scope-OrgID` of Loki) an entry is sent as. Set exactly one field.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct TenantStageSpec {
    /// A label whose value is the tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// An extracted value that holds the tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// A fixed tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// Sets an entry's timestamp from an extracted value.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimestampStageSpec {
    /// The extracted value that holds the time.
    pub source: String,
    /// How to read it: a Go time layout, or a name such as `RFC3339`, `Unix` or `UnixMs`.
    pub format: String,
    /// Formats tried in order when `format` does not fit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallback_formats: Vec<String>,
    /// IANA time zone (`Europe/Berlin`) for times written without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// What to do when the time cannot be read: `fudge` (promtail's default) keeps a time just
    /// after the previous entry's, `skip` leaves the timestamp unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_on_failure: Option<String>,
}
