//! `MetricsInstance`: one metrics pipeline (remote_write targets plus selected monitors).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::prometheus::{BasicAuth, OAuth2, RelabelConfig, TlsConfig};
use crate::selectors::SecretKeySelector;
use crate::status::MetricsInstanceStatus;

/// Desired state of one metrics pipeline: the monitors it scrapes and where it sends samples.
///
/// Each MetricsInstance a GrafanaAgent selects becomes one entry of the agent's
/// `metrics.configs`, named `<namespace>/<name>`.
// kube's `printcolumn(...)` blocks repeat `type_ = ...`, which clippy takes for duplicated attributes.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.grafana.com",
    version = "v1alpha1",
    kind = "MetricsInstance",
    doc = "A metrics pipeline of the agents' StatefulSets: where samples go and which ServiceMonitors, PodMonitors, Probes and ScrapeConfigs feed it.",
    plural = "metricsinstances",
    singular = "metricsinstance",
    namespaced,
    category = "agent-operator",
    status = "MetricsInstanceStatus",
    printcolumn(
        name = "Agents",
        type_ = "string",
        json_path = r#".status.agents[*].agent"#,
        description = "The GrafanaAgents that select it"
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
        name = "Monitors",
        type_ = "string",
        json_path = r#".status.agents[*].serviceMonitors"#,
        description = "Per agent: ServiceMonitors selected",
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
pub struct MetricsInstanceSpec {
    /// How often the agent truncates this instance's WAL, as a Go duration (e.g. `1h`); written
    /// as `wal_truncate_frequency`. Unset, empty or invalid (reported) leaves the agent's
    /// default, 60m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wal_truncate_frequency: Option<String>,
    /// Age below which WAL data is never truncated, as a Go duration; written as
    /// `min_wal_time`. Unset, empty or invalid (reported) leaves the agent's default, 5m.
    #[serde(
        default,
        rename = "minWALTime",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_wal_time: Option<String>,
    /// Age above which WAL data is truncated even if it was never sent, as a Go duration;
    /// written as `max_wal_time`. Unset, empty or invalid (reported) leaves the agent's
    /// default, 4h.
    #[serde(
        default,
        rename = "maxWALTime",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_wal_time: Option<String>,
    /// How long a stopping agent keeps trying to send pending samples, as a Go duration;
    /// written as `remote_flush_deadline`. Unset, empty or invalid (reported) leaves the
    /// agent's default, 1m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_flush_deadline: Option<String>,
    /// When true, the agent marks all of this instance's series stale as it shuts down.
    /// Only `true` is written to the config; `false` and unset both leave it off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_stale_on_shutdown: Option<bool>,
    /// Labels of the ServiceMonitors this instance scrapes. Unset selects none; `{}` selects
    /// every ServiceMonitor in the namespaces chosen by `serviceMonitorNamespaceSelector`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_monitor_selector: Option<LabelSelector>,
    /// Labels of the namespaces searched for ServiceMonitors. Unset searches only this
    /// instance's namespace; `{}` searches all namespaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_monitor_namespace_selector: Option<LabelSelector>,
    /// Labels of the PodMonitors this instance scrapes. Unset selects none; `{}` selects every
    /// PodMonitor in the namespaces chosen by `podMonitorNamespaceSelector`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_monitor_selector: Option<LabelSelector>,
    /// Labels of the namespaces searched for PodMonitors. Unset searches only this instance's
    /// namespace; `{}` searches all namespaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_monitor_namespace_selector: Option<LabelSelector>,
    /// Labels of the Probes this instance scrapes. Unset selects none; `{}` selects every
    /// Probe in the namespaces chosen by `probeNamespaceSelector`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_selector: Option<LabelSelector>,
    /// Labels of the namespaces searched for Probes. Unset searches only this instance's
    /// namespace; `{}` searches all namespaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_namespace_selector: Option<LabelSelector>,
    /// Labels of the ScrapeConfigs (monitoring.coreos.com/v1alpha1) this instance scrapes,
    /// prometheus-operator's name. Unset selects none; `{}` selects every ScrapeConfig in the
    /// namespaces chosen by `scrapeConfigNamespaceSelector`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrape_config_selector: Option<LabelSelector>,
    /// Labels of the namespaces searched for ScrapeConfigs. Unset searches only this
    /// instance's namespace; `{}` searches all namespaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrape_config_namespace_selector: Option<LabelSelector>,
    /// Where this instance sends its samples; Secrets are read from the instance's namespace.
    /// When empty, the agent uses the GrafanaAgent's `spec.metrics.remoteWrite`. When entries
    /// are given but none can be rendered, the instance is left out and reported.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remote_write: Vec<RemoteWriteSpec>,
    /// A Secret key (in this instance's namespace) holding a YAML list of extra scrape configs.
    /// They are appended as written after the generated jobs, and left out of the integrations
    /// configs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_scrape_configs: Option<SecretKeySelector>,
    /// Settings the selected ServiceMonitors and PodMonitors can take by name (their
    /// `scrapeClass`), prometheus-operator's Prometheus `scrapeClasses`. The class marked
    /// `default` applies to monitors that name none; a monitor naming a class this list lacks
    /// is rejected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub scrape_classes: Vec<crate::monitors::ScrapeClass>,
}

/// One Prometheus remote_write destination.
///
/// An entry that cannot be rendered (a missing Secret key, an invalid duration or relabel
/// rule, conflicting settings) is left out of its list and reported.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoteWriteSpec {
    /// Name of this destination, shown in the agent's metrics and logs. It must be unique
    /// within the list; a later entry reusing a name is left out and reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// URL of the endpoint that receives the samples.
    pub url: String,
    /// Timeout of one request to the endpoint, as a Prometheus duration (e.g. `30s`); empty
    /// or unset leaves the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_timeout: Option<String>,
    /// Extra HTTP headers sent with every request, such as `X-Scope-OrgID`. `Authorization`
    /// and the headers Prometheus sets itself (`Content-Type`, `User-Agent`, ...) are refused:
    /// the entry is left out and reported.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Relabel rules applied to each series before it is sent; a series that a rule drops is
    /// not sent to this destination.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_relabel_configs: Vec<RelabelConfig>,
    /// HTTP basic authentication. The username is written into the config and the password
    /// is read from a file mounted from its Secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    /// OAuth 2.0 client credentials authentication. Only a Secret client ID is supported; an
    /// entry whose client ID comes from a ConfigMap is left out and reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<OAuth2>,
    /// Bearer token sent with every request, written into the config in plain text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token: Option<String>,
    /// Path, inside the agent's pods, of a file holding the bearer token. Set at most one of
    /// `bearerToken` and `bearerTokenFile`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_file: Option<String>,
    /// AWS Signature Version 4 request signing. Only one of `basicAuth`, `oauth2`, a bearer
    /// token and `sigv4` may be set; an entry with more is left out and reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sigv4: Option<SigV4Config>,
    /// TLS settings for the connection to the endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfig>,
    /// URL of the HTTP proxy the requests go through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_url: Option<String>,
    /// Tuning of the queue that buffers samples for this destination.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_config: Option<QueueConfig>,
    /// Sending of metric metadata to this destination.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata_config: Option<MetadataConfig>,
}

/// AWS Signature Version 4 signing of remote_write requests.
///
/// Set as `{}`, it makes the agent sign with the region and credentials of its AWS environment.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SigV4Config {
    /// AWS region of the endpoint; empty or unset takes it from the agent's AWS environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Secret key holding the AWS access key ID, written into the config in plain text. Unset
    /// takes credentials from the agent's AWS environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_key: Option<SecretKeySelector>,
    /// Secret key holding the AWS secret access key, written into the config in plain text.
    /// Unset takes credentials from the agent's AWS environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_key: Option<SecretKeySelector>,
    /// Named AWS profile to take credentials from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// ARN of an AWS IAM role to assume for signing.
    #[serde(default, rename = "roleARN", skip_serializing_if = "Option::is_none")]
    pub role_arn: Option<String>,
}

/// remote_write queue tuning. `maxRetries` and `retryOnRateLimit` are accepted but, as
/// upstream, never rendered. A negative size leaves the remote_write entry out, reported.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueConfig {
    /// Number of samples buffered per shard before reading from the WAL pauses; 0 or unset
    /// leaves the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<i64>,
    /// Number of shards (parallel senders) the queue starts with and never goes below; 0 or
    /// unset leaves the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_shards: Option<i64>,
    /// Upper bound on the number of shards; 0 or unset leaves the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_shards: Option<i64>,
    /// Largest number of samples in one request; 0 or unset leaves the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_samples_per_send: Option<i64>,
    /// Longest time a sample waits in a shard before a partial batch is sent, as a Prometheus
    /// duration; empty or unset leaves the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_send_deadline: Option<String>,
    /// Accepted for compatibility but never rendered (as upstream); has no effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<i64>,
    /// Initial wait before retrying a failed request, as a Prometheus duration; empty or unset
    /// leaves the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_backoff: Option<String>,
    /// Longest wait between retries, as a Prometheus duration; empty or unset leaves the
    /// agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_backoff: Option<String>,
    /// Accepted for compatibility but never rendered (as upstream); has no effect, the
    /// agent's own default for retrying rate-limited requests applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_on_rate_limit: Option<bool>,
}

/// Sending of metric metadata (type, help and unit) to a remote_write destination.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetadataConfig {
    /// Whether metadata is sent. It is always written, so unset means off; leave out
    /// `metadataConfig` as a whole to keep the agent's default.
    #[serde(default)]
    pub send: bool,
    /// How often metadata is sent, as a Prometheus duration; empty or unset leaves the agent's
    /// default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_interval: Option<String>,
}
