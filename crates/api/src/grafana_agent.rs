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
// kube's `printcolumn(...)` blocks repeat `type_ = ...`, which clippy takes for duplicated attributes.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.grafana.com",
    version = "v1alpha1",
    kind = "GrafanaAgent",
    doc = "A deployment of Grafana Agent: the root from which the operator selects instances, monitors and integrations, and for which it creates config Secrets, StatefulSets, a DaemonSet and a Service.",
    plural = "grafanaagents",
    singular = "grafanaagent",
    namespaced,
    category = "agent-operator",
    status = "GrafanaAgentStatus",
    printcolumn(
        name = "Reconciled",
        type_ = "string",
        json_path = r#".status.conditions[?(@.type=="Reconciled")].status"#,
        description = "Whether every selected object was rendered and applied"
    ),
    printcolumn(
        name = "Available",
        type_ = "string",
        json_path = r#".status.conditions[?(@.type=="Available")].status"#,
        description = "Whether every workload of the agent is ready"
    ),
    printcolumn(
        name = "Shards",
        type_ = "integer",
        json_path = r#".status.shards"#,
        description = "Metrics shards (StatefulSets)"
    ),
    printcolumn(
        name = "Replicas",
        type_ = "integer",
        json_path = r#".status.replicas"#,
        description = "Pods per metrics shard"
    ),
    printcolumn(
        name = "Instances",
        type_ = "integer",
        json_path = r#".status.metricsInstances"#,
        description = "MetricsInstances selected",
        priority = "1"
    ),
    printcolumn(
        name = "Monitors",
        type_ = "integer",
        json_path = r#".status.serviceMonitors"#,
        description = "ServiceMonitors selected",
        priority = "1"
    ),
    printcolumn(
        name = "Rejected",
        type_ = "integer",
        json_path = r#".status.rejectedTotal"#,
        description = "Selected objects that could not be rendered",
        priority = "1"
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
pub struct GrafanaAgentSpec {
    /// Log level of the agents (`server.log_level` in every generated config), e.g. `debug`.
    /// Unset or empty leaves it out, so the agent's own default applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<String>,
    /// Log format of the agents (`server.log_format`), e.g. `logfmt` or `json`. Unset or empty
    /// leaves it out, so the agent's own default applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_format: Option<String>,
    /// How the agents reach the Kubernetes API for service discovery, used in every generated
    /// `kubernetes_sd_configs` entry; its Secrets are read from the agent's namespace.
    /// `authorization` is not rendered. Unset: the pods' in-cluster credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_server: Option<ApiServerConfig>,
    /// Labels and annotations added to every generated pod. The operator's own labels win on a
    /// conflict, and `name` is ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_metadata: Option<EmbeddedObjectMetadata>,
    /// What runs the generated configs: `agent` (Grafana Agent in static mode, the default) or
    /// `alloy` (Grafana Alloy, running configs the operator writes in Alloy's own syntax from
    /// the same resources; `spec.alloy.configFormat` says which). Unset: the operator's
    /// `--runtime` (default `agent`). Switching rolls the workloads over and keeps their data
    /// volumes; see docs/alloy.md for what Alloy does differently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Runtime>,
    /// Settings of runtime `alloy` (ignored with runtime `agent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alloy: Option<AlloySpec>,
    /// When true, strings copied into the generated configs from objects and Secrets are
    /// written as they are, so that the agent expands `${NAME}` in them from the agent pods'
    /// environment and the config loader the operator's own `$(SHARD)`, `$(SHARDS)`,
    /// `$(SHARD_BUCKETS)` and `$(STATEFULSET_ORDINAL_NUMBER)` (any other `$(NAME)` is left as
    /// written; the Grafana Agent Operator's config-reloader expanded every one). Anyone who
    /// can create a selected monitor, PodLogs or Integration can then read the pods'
    /// environment or stop the agents: leave it false unless every such object is trusted.
    /// False (the default): every `$` reaches the agent as written; see docs/security.md.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub expand_user_strings: bool,
    /// Tag of the `grafana/agent` image, used when `image` is unset; defaults to `v0.44.8`.
    /// Not used with runtime `alloy` (its default image is `grafana/alloy:v1.19.2`; `image`
    /// overrides it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Full image reference of the agent container, used as given; takes precedence over `version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Not used: the pods' `config-reloader` container is the operator's own config loader,
    /// run from the operator's image (its `--config-loader-image`), no longer
    /// prometheus-config-reloader. Accepted for compatibility; a Warning says it is ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_reloader_version: Option<String>,
    /// Not used: the pods' `config-reloader` container is the operator's own config loader,
    /// run from the operator's image (its `--config-loader-image`), no longer
    /// prometheus-config-reloader. Accepted for compatibility; a Warning says it is ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_reloader_image: Option<String>,
    /// When true, the operator leaves this agent's objects alone: nothing is created, updated or
    /// deleted until it is unpaused. Defaults to false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
    /// Secrets for pulling the images, added to every generated pod.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_pull_secrets: Vec<LocalObjectReference>,
    /// Where the metrics StatefulSets keep their WAL: an `emptyDir`, or a `volumeClaimTemplate`
    /// that gives each pod a PVC. Unset: an emptyDir. `disableMountSubPath` is ignored, and
    /// `ephemeral` (like `storage: {}`) yields an empty claim template, as upstream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<StorageSpec>,
    /// Extra volumes for every generated pod, added after the operator's own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volumes: Vec<Volume>,
    /// Extra mounts for both operator containers (`config-reloader` and `grafana-agent`) of every
    /// generated pod.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volume_mounts: Vec<VolumeMount>,
    /// Resource requests and limits of the `grafana-agent` container only (not the
    /// config-reloader).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    /// Node selector of every generated pod.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: BTreeMap<String, String>,
    /// Service account every generated pod runs as; it needs read access to the objects the agents
    /// discover.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    /// Secrets in the agent's namespace to mount read-only in every generated pod, each at
    /// `/var/lib/grafana-agent/extra-secrets/<name>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<String>,
    /// ConfigMaps in the agent's namespace to mount read-only in every generated pod, each at
    /// `/var/lib/grafana-agent/extra-configmaps/<name>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config_maps: Vec<String>,
    /// Affinity of every generated pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Affinity>,
    /// Tolerations of every generated pod.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    /// Topology spread constraints of every generated pod.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub topology_spread_constraints: Vec<TopologySpreadConstraint>,
    /// Pod-level security context of every generated pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_context: Option<PodSecurityContext>,
    /// Strategic-merge patches onto the operator's containers, matched by name; other names
    /// are appended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(transform = crate::schema::container_port_protocol_default)]
    pub containers: Vec<Container>,
    /// Init containers of every generated pod, used as given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(transform = crate::schema::container_port_protocol_default)]
    pub init_containers: Vec<Container>,
    /// Priority class of every generated pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class_name: Option<String>,
    /// Runtime class of every generated pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_class_name: Option<String>,
    /// Name of the agent's HTTP port; defaults to `http-metrics`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port_name: Option<String>,
    /// When true, the agents serve their loaded config over HTTP (`-config.enable-read-api`).
    #[serde(default, rename = "enableConfigReadAPI")]
    pub enable_config_read_api: bool,
    /// When true, the agents send no anonymous usage reports (`-disable-reporting`).
    #[serde(default)]
    pub disable_reporting: bool,
    /// When true, the agents' support bundle endpoint is turned off (`-disable-support-bundle`).
    #[serde(default)]
    pub disable_support_bundle: bool,
    /// Metrics collection: which MetricsInstances, how many shards and replicas, and settings
    /// for all their jobs. Unset: no metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<MetricsSubsystemSpec>,
    /// Logs collection: which LogsInstances, and their default clients. Unset: no logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logs: Option<LogsSubsystemSpec>,
    /// Which Integrations the agents run. Unset: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrations: Option<IntegrationsSubsystemSpec>,
}

// What runs the generated static-mode configs. (A `//` comment: a doc comment here would
// replace the field's description in the inlined CRD schema.)
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Runtime {
    /// Grafana Agent in static mode (end of life since 2025-11-01).
    #[default]
    Agent,
    /// Grafana Alloy, configured in its own syntax (`spec.alloy.configFormat`).
    Alloy,
}

/// How runtime `alloy` is configured.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlloySpec {
    /// `native` (the default): the operator writes every workload's config (metrics
    /// StatefulSets, logs DaemonSet, integrations Deployment and DaemonSet) in Alloy's own
    /// syntax, with Alloy's generally available components, and Alloy runs it as it is. A
    /// workload whose inputs have no native translation yet keeps the static format, with a
    /// warning naming the object and field: the metrics of an agent whose MetricsInstances
    /// have `additionalScrapeConfigs`, the logs of one whose LogsInstances have them or with
    /// `expandUserStrings`, the integrations of one with an Integration of an untranslated
    /// kind or setting, or with `expandUserStrings`.
    /// `static`: the rollback, kept for one release: the operator writes static-mode configs
    /// and Alloy converts them at start and on every reload (`--config.format=static`, a
    /// converter Alloy calls "public preview", outside its compatibility promise); a warning
    /// on this field says so. See docs/alloy.md, "Native or static".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_format: Option<AlloyConfigFormat>,
    /// Alloy clustering of the metrics pods: with `enabled: true` (and the native config
    /// format), each of the `spec.metrics.replicas` replicas (default 1) is one Alloy cluster:
    /// a StatefulSet of `spec.metrics.shards` pods that share the scrape targets through the
    /// cluster's consistent-hash ring, instead of one StatefulSet per shard with hashmod rules.
    /// Each cluster scrapes every target once, and its samples carry its replica label
    /// (`__replica__: replica-<r>`, `replicaExternalLabelName`), as each replica's do without
    /// clustering. A cluster's pods find each other through its own headless Service
    /// `<agent>-replica-<r>` and run under their own `--cluster.name`, so clusters never merge.
    /// Changing `shards` changes only the StatefulSets' replica counts (about 1/N of the
    /// targets move, the config stays the same). With `configFormat: static`, or metrics that
    /// stay static, it is not used (a warning says so). See docs/alloy.md, "Clustering".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clustering: Option<AlloyClustering>,
}

/// Alloy clustering of the metrics StatefulSets (`spec.alloy.clustering`).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlloyClustering {
    /// Whether each replica's metrics pods form one Alloy cluster that shares the targets
    /// (`alloy run --cluster.enabled`, `clustering { enabled = true }` in every
    /// `prometheus.scrape`). Defaults to false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub enabled: bool,
}

// Which syntax runtime `alloy` reads. (A `//` comment: a doc comment here would replace the
// field's description in the inlined CRD schema.)
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AlloyConfigFormat {
    /// The generated static-mode configs, converted by Alloy: the rollback, for one release.
    Static,
    /// Alloy configuration syntax written by the operator (the default).
    #[default]
    Native,
}

impl GrafanaAgentSpec {
    /// The format runtime `alloy` is asked to read: `spec.alloy.configFormat`, `native` when
    /// it (or `spec.alloy`) is unset.
    pub fn alloy_config_format(&self) -> AlloyConfigFormat {
        self.alloy
            .as_ref()
            .and_then(|a| a.config_format)
            .unwrap_or_default()
    }
}

impl Runtime {
    pub fn as_str(self) -> &'static str {
        match self {
            Runtime::Agent => "agent",
            Runtime::Alloy => "alloy",
        }
    }
}

/// How metrics are collected: which MetricsInstances, how many shards and replicas.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricsSubsystemSpec {
    /// Destinations every metrics instance of this agent sends to (`global.remote_write`);
    /// their Secrets are read from the agent's namespace.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remote_write: Vec<RemoteWriteSpec>,
    /// Pods per metrics StatefulSet; defaults to 1, and a negative value is refused (upstream reads it as 0). Each
    /// replica scrapes every target of its shard again (for high availability), so a handful
    /// is the useful range; the bound keeps a typo from asking the cluster for millions of
    /// pods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("maximum" = crate::schema::MAX_METRICS_REPLICAS))]
    pub replicas: Option<i32>,
    /// Number of metrics StatefulSets the scrape targets are split between; unset or less than
    /// 2 means one, unsharded. Every shard is a StatefulSet the operator plans and applies on
    /// each reconcile, and the consistent strategy splits 4096 buckets between shards, so the
    /// bound keeps a plan to a size one reconcile handles in well under a second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("maximum" = crate::schema::MAX_METRICS_SHARDS))]
    pub shards: Option<i32>,
    /// How targets are split between shards: `hashmod` (upstream's) or `consistent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sharding_strategy: Option<ShardingStrategy>,
    /// Name of the external label that tells the pods of a shard apart (value
    /// `replica-<pod ordinal>`); defaults to `__replica__`, and `""` leaves the label out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_external_label_name: Option<String>,
    /// Name of the external label whose value is `<agent namespace>/<agent name>`; defaults to
    /// `cluster`, and `""` leaves the label out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics_external_label_name: Option<String>,
    /// Default scrape interval of every job (`global.scrape_interval`), e.g. `30s`; unset leaves
    /// the agent's default (1m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrape_interval: Option<String>,
    /// Default scrape timeout of every job (`global.scrape_timeout`); unset leaves the agent's
    /// default. A timeout longer than the interval is reported and left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrape_timeout: Option<String>,
    /// Labels added to every series the agents send. They may overwrite the cluster label, but not
    /// the replica label.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub external_labels: BTreeMap<String, String>,
    /// Whether ServiceMonitors may make the agents read files from their own filesystem. Unset:
    /// they may not (`deny` defaults to true).
    #[serde(
        default,
        rename = "arbitraryFSAccessThroughSMs",
        skip_serializing_if = "Option::is_none"
    )]
    pub arbitrary_fs_access_through_sms: Option<ArbitraryFsAccessThroughSms>,
    /// When true, every ServiceMonitor and PodMonitor job gets `honor_labels: false`, whatever
    /// its endpoint asks for. Defaults to false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub override_honor_labels: bool,
    /// When true, every job gets `honor_timestamps: false`, whatever its endpoint asks for.
    /// Defaults to false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub override_honor_timestamps: bool,
    /// When true, ServiceMonitors, PodMonitors and Probes discover targets only in their own
    /// namespace, whatever their `namespaceSelector` says. Which monitors are selected is not
    /// affected. Defaults to false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_namespace_selectors: bool,
    /// When set, every ServiceMonitor, PodMonitor and Probe job ends with a rule setting this
    /// label to the monitor's namespace; metric relabelings that target it are dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforced_namespace_label: Option<String>,
    /// Upper bound on the sample limit of every ServiceMonitor and PodMonitor job: the lower of
    /// this and the monitor's `sampleLimit` applies. Probes are not limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforced_sample_limit: Option<u64>,
    /// Upper bound on the target limit of every ServiceMonitor and PodMonitor job: the lower of
    /// this and the monitor's `targetLimit` applies. Probes are not limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforced_target_limit: Option<u64>,
    /// Selects MetricsInstances; unset selects none, `{}` selects all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_selector: Option<LabelSelector>,
    /// Namespaces to search for MetricsInstances; unset means the agent's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_namespace_selector: Option<LabelSelector>,
}

// How scrape targets are assigned to metrics shards. (A `//` comment: a doc comment here would
// replace the field's description in the inlined CRD schema.)
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

/// Limits on what ServiceMonitors may make the agents read from their own filesystem.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ArbitraryFsAccessThroughSms {
    /// Whether a ServiceMonitor with a `bearerTokenFile` or a TLS `caFile`, `certFile` or
    /// `keyFile` on any endpoint is rejected as a whole: such a file is read by the agent pod,
    /// which can then send the operator's credentials or its service-account token to a target
    /// the monitor's author chooses. Unset means true (the Grafana Agent Operator's default is
    /// false; set false to allow it again, when every ServiceMonitor author is trusted with the
    /// agent pods' files; see docs/security.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny: Option<bool>,
}

/// How logs are collected: which LogsInstances and the default clients.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsSubsystemSpec {
    /// Loki clients for the LogsInstances that define none of their own; their Secrets are read
    /// from the agent's namespace.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<LogsClientSpec>,
    /// Name of the label, with value `<agent namespace>/<agent name>`, that every client adds to
    /// the logs it sends; defaults to `cluster`, and `""` leaves the label out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logs_external_label_name: Option<String>,
    /// Selects LogsInstances; unset selects none, `{}` selects all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_selector: Option<LabelSelector>,
    /// Namespaces to search for LogsInstances; unset means the agent's own, `{}` means all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_namespace_selector: Option<LabelSelector>,
    /// When true, PodLogs discover pods only in their own namespace, whatever their
    /// `namespaceSelector` says. Defaults to false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_namespace_selectors: bool,
    /// When set, every PodLogs job ends with a rule setting this label to the PodLogs'
    /// namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforced_namespace_label: Option<String>,
}

/// Which Integrations this agent runs.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntegrationsSubsystemSpec {
    /// Selects Integrations; unset selects none, `{}` selects all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// Namespaces to search for Integrations; unset means the agent's own, `{}` means all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<LabelSelector>,
    /// When true, an Integration from another namespace than the agent's may add any volume
    /// to the integrations workloads, which run in the agent's namespace: a Secret, ConfigMap,
    /// claim or projected volume of that namespace, or a host path of the node. False (the
    /// default): such an Integration may add `emptyDir` volumes only, and is left out
    /// otherwise; its own `secrets` and `configMaps` (read in its namespace) are mounted as
    /// ever. See docs/security.md.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_volumes_from_other_namespaces: bool,
}
