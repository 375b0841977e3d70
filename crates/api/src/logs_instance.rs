//! `LogsInstance`: one logs pipeline (Loki clients plus selected PodLogs).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::prometheus::{BasicAuth, OAuth2, TlsConfig};
use crate::selectors::SecretKeySelector;
use crate::status::InstanceStatus;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.grafana.com",
    version = "v1alpha1",
    kind = "LogsInstance",
    plural = "logsinstances",
    singular = "logsinstance",
    namespaced,
    category = "agent-operator",
    status = "InstanceStatus",
    derive = "Default",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct LogsInstanceSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<LogsClientSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_logs_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_logs_namespace_selector: Option<LabelSelector>,
    /// A Secret key (in this instance's namespace) holding a YAML list of promtail scrape configs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_scrape_configs: Option<SecretKeySelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_config: Option<LogsTargetConfigSpec>,
}

/// One Loki push client.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsClientSpec {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<OAuth2>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_wait: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_size: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_config: Option<LogsBackoffConfigSpec>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub external_labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsBackoffConfigSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_period: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_period: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<i64>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsTargetConfigSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_period: Option<String>,
}
