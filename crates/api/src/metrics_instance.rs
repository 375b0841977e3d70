//! `MetricsInstance`: one metrics pipeline (remote_write targets plus selected monitors).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::prometheus::{BasicAuth, OAuth2, RelabelConfig, TlsConfig};
use crate::selectors::SecretKeySelector;
use crate::status::InstanceStatus;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.grafana.com",
    version = "v1alpha1",
    kind = "MetricsInstance",
    plural = "metricsinstances",
    singular = "metricsinstance",
    namespaced,
    category = "agent-operator",
    status = "InstanceStatus",
    derive = "Default",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct MetricsInstanceSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wal_truncate_frequency: Option<String>,
    #[serde(
        default,
        rename = "minWALTime",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_wal_time: Option<String>,
    #[serde(
        default,
        rename = "maxWALTime",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_wal_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_flush_deadline: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_stale_on_shutdown: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_monitor_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_monitor_namespace_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_monitor_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_monitor_namespace_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_namespace_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remote_write: Vec<RemoteWriteSpec>,
    /// A Secret key (in this instance's namespace) holding a YAML list of extra scrape configs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_scrape_configs: Option<SecretKeySelector>,
}

/// One Prometheus remote_write destination.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoteWriteSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_timeout: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_relabel_configs: Vec<RelabelConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<OAuth2>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sigv4: Option<SigV4Config>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_config: Option<QueueConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata_config: Option<MetadataConfig>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SigV4Config {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_key: Option<SecretKeySelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_key: Option<SecretKeySelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(default, rename = "roleARN", skip_serializing_if = "Option::is_none")]
    pub role_arn: Option<String>,
}

/// remote_write queue tuning. `maxRetries` and `retryOnRateLimit` are accepted but, as
/// upstream, never rendered.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_shards: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_shards: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_samples_per_send: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_send_deadline: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_backoff: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_backoff: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_on_rate_limit: Option<bool>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetadataConfig {
    #[serde(default)]
    pub send: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_interval: Option<String>,
}
