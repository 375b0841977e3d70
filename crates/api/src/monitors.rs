//! prometheus-operator's `ServiceMonitor`, `PodMonitor` and `Probe` (monitoring.coreos.com/v1),
//! as far as their CRDs describe them. The operator only reads these kinds.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::prometheus::{
    BasicAuth, OAuth2, RelabelConfig, SafeAuthorization, SafeTlsConfig, TlsConfig,
};
use crate::selectors::{NamespaceSelector, SecretKeySelector};

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct AttachMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<bool>,
}

/// Per-scrape label limits, shared by the three kinds (not rendered by the agent operator).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LabelLimits {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_limit: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_name_length_limit: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_value_length_limit: Option<i64>,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.coreos.com",
    version = "v1",
    kind = "ServiceMonitor",
    plural = "servicemonitors",
    singular = "servicemonitor",
    shortname = "smon",
    namespaced,
    category = "prometheus-operator",
    derive = "Default",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct ServiceMonitorSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_label: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target_labels: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pod_target_labels: Vec<String>,
    pub endpoints: Vec<Endpoint>,
    pub selector: LabelSelector,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<NamespaceSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_limit: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_limit: Option<i64>,
    #[serde(flatten)]
    pub label_limits: LabelLimits,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attach_metadata: Option<AttachMetadata>,
}

/// Settings shared by ServiceMonitor endpoints and PodMonitor endpoints.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScrapeEndpoint {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_port: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrape_timeout: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_secret: Option<SecretKeySelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<SafeAuthorization>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honor_labels: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honor_timestamps: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<OAuth2>,
    /// `None` means "not written", distinct from an explicitly empty list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_relabelings: Option<Vec<RelabelConfig>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relabelings: Vec<RelabelConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_redirects: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_http2: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_running: Option<bool>,
}

/// A ServiceMonitor endpoint: the shared settings plus the file-based fields only
/// ServiceMonitors have.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    #[serde(flatten)]
    pub common: ScrapeEndpoint,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_file: Option<String>,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.coreos.com",
    version = "v1",
    kind = "PodMonitor",
    plural = "podmonitors",
    singular = "podmonitor",
    shortname = "pmon",
    namespaced,
    category = "prometheus-operator",
    derive = "Default",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct PodMonitorSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_label: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pod_target_labels: Vec<String>,
    pub pod_metrics_endpoints: Vec<PodMetricsEndpoint>,
    pub selector: LabelSelector,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<NamespaceSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_limit: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_limit: Option<i64>,
    #[serde(flatten)]
    pub label_limits: LabelLimits,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attach_metadata: Option<AttachMetadata>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodMetricsEndpoint {
    #[serde(flatten)]
    pub common: ScrapeEndpoint,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<SafeTlsConfig>,
}

fn default_prober_path() -> String {
    "/probe".to_owned()
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.coreos.com",
    version = "v1",
    kind = "Probe",
    plural = "probes",
    singular = "probe",
    shortname = "prb",
    namespaced,
    category = "prometheus-operator",
    derive = "Default",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct ProbeSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prober: Option<ProberSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<ProbeTargets>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrape_timeout: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<SafeTlsConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_secret: Option<SecretKeySelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<OAuth2>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<SafeAuthorization>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_relabelings: Option<Vec<RelabelConfig>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_limit: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_limit: Option<i64>,
    #[serde(flatten)]
    pub label_limits: LabelLimits,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProberSpec {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<String>,
    #[serde(default = "default_prober_path")]
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_url: Option<String>,
}

impl Default for ProberSpec {
    fn default() -> Self {
        ProberSpec {
            url: String::new(),
            scheme: None,
            path: default_prober_path(),
            proxy_url: None,
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeTargets {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_config: Option<ProbeTargetStaticConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingress: Option<ProbeTargetIngress>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeTargetStaticConfig {
    #[serde(default, rename = "static", skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relabeling_configs: Vec<RelabelConfig>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeTargetIngress {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<NamespaceSelector>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relabeling_configs: Vec<RelabelConfig>,
}
