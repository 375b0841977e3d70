//! `LogsInstance`: one logs pipeline (Loki clients plus selected PodLogs).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::prometheus::{BasicAuth, OAuth2, TlsConfig};
use crate::selectors::SecretKeySelector;
use crate::status::LogsInstanceStatus;

/// Desired state of a LogsInstance: where logs are sent and which PodLogs are collected.
// kube's `printcolumn(...)` blocks repeat `type_ = ...`, which clippy takes for duplicated attributes.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.grafana.com",
    version = "v1alpha1",
    kind = "LogsInstance",
    doc = "A logs pipeline of the agents' DaemonSet: where logs go and which PodLogs feed it.",
    plural = "logsinstances",
    singular = "logsinstance",
    namespaced,
    category = "agent-operator",
    status = "LogsInstanceStatus",
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
        name = "Age",
        type_ = "date",
        json_path = r#".metadata.creationTimestamp"#,
        description = "Time since the object was created"
    ),
    derive = "Default",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct LogsInstanceSpec {
    /// Loki endpoints this instance sends logs to; their Secrets are read from this instance's
    /// namespace. When empty, the GrafanaAgent's `logs.clients` are used.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<LogsClientSpec>,
    /// Selects the PodLogs this instance collects; unset selects none, `{}` selects all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_logs_selector: Option<LabelSelector>,
    /// Namespaces to search for PodLogs; unset means this instance's own, `{}` means all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_logs_namespace_selector: Option<LabelSelector>,
    /// A Secret key (in this instance's namespace) holding a YAML list of promtail scrape configs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_scrape_configs: Option<SecretKeySelector>,
    /// How the agents look for log files to tail (`target_config`); unset leaves the agent's
    /// defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_config: Option<LogsTargetConfigSpec>,
}

/// One Loki push client.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsClientSpec {
    /// URL of the Loki push endpoint, e.g. `https://loki.example/loki/api/v1/push`.
    pub url: String,
    /// TLS settings for the connection to Loki.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfig>,
    /// Basic authentication; the username and password values are both written into the agent's
    /// config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    /// OAuth2 client credentials. The client id (from a Secret or a ConfigMap) is written into
    /// the agent's config; the client secret is passed to the agent as a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<OAuth2>,
    /// Bearer token sent with every push, written as given into the agent's config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token: Option<String>,
    /// Path, inside the agent's pod, of a file holding the bearer token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_file: Option<String>,
    /// HTTP proxy to send the pushes through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_url: Option<String>,
    /// Tenant the logs are pushed as (Loki's `X-Scope-OrgID` header); unset sends none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_id: Option<String>,
    /// Longest time to wait before sending a batch that is not full, e.g. `1s`; unset leaves the
    /// agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_wait: Option<String>,
    /// Largest batch to gather before sending, in bytes; unset or 0 leaves the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_size: Option<i64>,
    /// How failed pushes are retried; unset leaves the agent's defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_config: Option<LogsBackoffConfigSpec>,
    /// Labels added to every log line sent through this client; they may overwrite the cluster
    /// label (see the GrafanaAgent's `logs.logsExternalLabelName`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub external_labels: BTreeMap<String, String>,
    /// Longest time to wait for Loki to answer a push, e.g. `10s`; unset leaves the agent's
    /// default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
}

/// How a Loki client retries pushes that failed.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsBackoffConfigSpec {
    /// Delay before the first retry, e.g. `500ms`; unset leaves the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_period: Option<String>,
    /// Longest delay between two retries, e.g. `5m`; unset leaves the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_period: Option<String>,
    /// Number of retries before a batch is dropped; unset or 0 leaves the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<i64>,
}

/// How the agents discover the log files to tail.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsTargetConfigSpec {
    /// How often the agents look again for files to tail (`sync_period`), e.g. `10s`; unset
    /// leaves the agent's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_period: Option<String>,
}
