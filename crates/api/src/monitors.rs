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

/// Extra discovery metadata to attach to targets. Accepted for compatibility with
/// prometheus-operator; the agent operator ignores it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct AttachMetadata {
    /// Whether to add the labels of the target's Node. Has no effect here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<bool>,
}

/// Per-scrape label limits, shared by the three kinds (not rendered by the agent operator).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LabelLimits {
    /// Most labels a scraped sample may carry. Accepted for compatibility; has no effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_limit: Option<i64>,
    /// Longest label name a scraped sample may carry. Accepted for compatibility; has no effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_name_length_limit: Option<i64>,
    /// Longest label value a scraped sample may carry. Accepted for compatibility; has no
    /// effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_value_length_limit: Option<i64>,
}

/// Which Services to discover and how to scrape the endpoints behind them. Each entry of
/// `endpoints` becomes one scrape job, `serviceMonitor/<namespace>/<name>/<index>`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.coreos.com",
    version = "v1",
    kind = "ServiceMonitor",
    doc = "prometheus-operator's ServiceMonitor: scrape the endpoints of selected Services. Read by agent-operator, never written.",
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
    /// A Service label whose value becomes the `job` label. Without it, or when the Service
    /// lacks that label, `job` is the Service name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_label: Option<String>,
    /// Service labels copied onto every target, each name sanitized into a valid label name. A
    /// label the Service does not carry adds nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target_labels: Vec<String>,
    /// Pod labels copied onto every target, each name sanitized into a valid label name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pod_target_labels: Vec<String>,
    /// The ports to scrape; each entry becomes its own scrape job.
    pub endpoints: Vec<Endpoint>,
    /// Selects the Services whose endpoints are scraped; an empty selector matches every
    /// Service. An unknown `matchExpressions` operator rejects the ServiceMonitor.
    pub selector: LabelSelector,
    /// The namespaces to discover Services in. Defaults to the ServiceMonitor's own namespace;
    /// ignored (own namespace only) when the GrafanaAgent sets
    /// `spec.metrics.ignoreNamespaceSelectors`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<NamespaceSelector>,
    /// Most samples one scrape may return before it fails; 0 or unset means no limit. When the
    /// GrafanaAgent sets `spec.metrics.enforcedSampleLimit`, the lower of the two applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_limit: Option<i64>,
    /// Most targets each job may discover; 0 or unset means no limit. When the GrafanaAgent
    /// sets `spec.metrics.enforcedTargetLimit`, the lower of the two applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_limit: Option<i64>,
    /// Per-sample label limits (`labelLimit`, `labelNameLengthLimit`,
    /// `labelValueLengthLimit`). Accepted for compatibility; they have no effect.
    #[serde(flatten)]
    pub label_limits: LabelLimits,
    /// Extra discovery metadata. Accepted for compatibility; has no effect (discovery always
    /// uses the `endpoints` role without Node metadata).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attach_metadata: Option<AttachMetadata>,
}

/// Settings shared by ServiceMonitor endpoints and PodMonitor endpoints.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScrapeEndpoint {
    /// Name of the port to scrape: a Service port for a ServiceMonitor, a container port for a
    /// PodMonitor. Wins over `targetPort`, and becomes the `endpoint` label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// The Pod's container port to scrape, by name or number; used only when `port` is empty
    /// (the number 0 adds no port filter). Also becomes the `endpoint` label in that case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_port: Option<IntOrString>,
    /// HTTP path the metrics are served on. Defaults to Prometheus' `/metrics`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `http` or `https`. Defaults to `http`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["http", "https"]))]
    pub scheme: Option<String>,
    /// URL query parameters sent with every scrape, each name with its list of values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, Vec<String>>,
    /// How often to scrape, as a Prometheus duration (`30s`, `1m`). Defaults to the
    /// GrafanaAgent's `spec.metrics.scrapeInterval`, else 1m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = crate::schema::DURATION_PATTERN))]
    pub interval: Option<String>,
    /// How long a scrape may take, as a Prometheus duration. Defaults to the GrafanaAgent's
    /// `spec.metrics.scrapeTimeout`, else 10s; a timeout longer than the interval rejects the
    /// monitor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = crate::schema::DURATION_PATTERN))]
    pub scrape_timeout: Option<String>,
    /// A Secret key, in the monitor's namespace, holding a bearer token for the scrape. The
    /// value is written into the agent config itself. Ignored when the Secret name is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_secret: Option<SecretKeySelector>,
    /// An `Authorization` header for the scrape: its type (default `Bearer`) and credentials
    /// from a Secret key in the monitor's namespace, written into the agent config itself.
    /// Combined with `basicAuth`, `bearerTokenSecret` or `bearerTokenFile` it rejects the
    /// monitor, as Prometheus refuses the job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<SafeAuthorization>,
    /// When true, labels the target exposes win over conflicting labels the scrape adds.
    /// Defaults to false, and is forced to false when the GrafanaAgent sets
    /// `spec.metrics.overrideHonorLabels`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honor_labels: Option<bool>,
    /// Whether to keep the timestamps the target exposes. Unset leaves Prometheus' default
    /// (true); forced to false when the GrafanaAgent sets `spec.metrics.overrideHonorTimestamps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honor_timestamps: Option<bool>,
    /// HTTP basic authentication for the scrape, from Secrets in the monitor's namespace. Both
    /// the username and the password are written into the agent config itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    /// OAuth2 client credentials. Accepted for compatibility; not rendered into the scrape job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<OAuth2>,
    /// Relabeling rules applied to scraped samples before they are sent on. Rules that write
    /// the GrafanaAgent's `spec.metrics.enforcedNamespaceLabel` are left out.
    // An Option so that an explicitly empty list survives a round trip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_relabelings: Option<Vec<RelabelConfig>>,
    /// Relabeling rules applied to discovered targets, after the operator's own rules and
    /// before the enforced namespace label and the sharding rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relabelings: Vec<RelabelConfig>,
    /// URL of an HTTP proxy to scrape through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_url: Option<String>,
    /// Set to false to not follow HTTP redirects (a redirect then fails the scrape); unset or
    /// true keeps Prometheus' default, following them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_redirects: Option<bool>,
    /// Set to false to scrape over HTTP/1.1 only; unset or true keeps Prometheus' default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_http2: Option<bool>,
    /// When true, targets whose Pod has finished (phase `Failed` or `Succeeded`) are dropped.
    /// Unset means false here, unlike prometheus-operator, which filters by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_running: Option<bool>,
}

/// A ServiceMonitor endpoint: the shared settings plus the file-based fields only
/// ServiceMonitors have.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    /// The settings ServiceMonitor and PodMonitor endpoints share, inlined into this object.
    #[serde(flatten)]
    pub common: ScrapeEndpoint,
    /// TLS settings for the scrape. The `caFile`, `certFile` and `keyFile` paths, inside the
    /// agent's pod, win over the Secret or ConfigMap references.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfig>,
    /// Path, inside the agent's pod, of a file holding a bearer token for the scrape. Like the
    /// TLS file paths, it gets the ServiceMonitor rejected when the GrafanaAgent sets
    /// `spec.metrics.arbitraryFSAccessThroughSMs.deny`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_file: Option<String>,
}

/// Which Pods to discover and how to scrape them. Each entry of `podMetricsEndpoints` becomes
/// one scrape job, `podMonitor/<namespace>/<name>/<index>`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.coreos.com",
    version = "v1",
    kind = "PodMonitor",
    doc = "prometheus-operator's PodMonitor: scrape selected Pods directly. Read by agent-operator, never written.",
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
    /// A Pod label whose value becomes the `job` label. Without it, or when the Pod lacks that
    /// label, `job` is `<namespace>/<name>` of the PodMonitor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_label: Option<String>,
    /// Pod labels copied onto every target, each name sanitized into a valid label name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pod_target_labels: Vec<String>,
    /// The ports to scrape; each entry becomes its own scrape job.
    pub pod_metrics_endpoints: Vec<PodMetricsEndpoint>,
    /// Selects the Pods to scrape; an empty selector matches every Pod. An unknown
    /// `matchExpressions` operator rejects the PodMonitor.
    pub selector: LabelSelector,
    /// The namespaces to discover Pods in. Defaults to the PodMonitor's own namespace; ignored
    /// (own namespace only) when the GrafanaAgent sets `spec.metrics.ignoreNamespaceSelectors`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<NamespaceSelector>,
    /// Most samples one scrape may return before it fails; 0 or unset means no limit. When the
    /// GrafanaAgent sets `spec.metrics.enforcedSampleLimit`, the lower of the two applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_limit: Option<i64>,
    /// Most targets each job may discover; 0 or unset means no limit. When the GrafanaAgent
    /// sets `spec.metrics.enforcedTargetLimit`, the lower of the two applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_limit: Option<i64>,
    /// Per-sample label limits (`labelLimit`, `labelNameLengthLimit`,
    /// `labelValueLengthLimit`). Accepted for compatibility; they have no effect.
    #[serde(flatten)]
    pub label_limits: LabelLimits,
    /// Extra discovery metadata. Accepted for compatibility; has no effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attach_metadata: Option<AttachMetadata>,
}

/// A PodMonitor endpoint: the shared settings plus TLS taken from Secrets and ConfigMaps only.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodMetricsEndpoint {
    /// The settings ServiceMonitor and PodMonitor endpoints share, inlined into this object.
    #[serde(flatten)]
    pub common: ScrapeEndpoint,
    /// TLS settings for the scrape, from Secrets and ConfigMaps in the PodMonitor's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<SafeTlsConfig>,
}

fn default_prober_path() -> String {
    "/probe".to_owned()
}

/// Targets to check through a prober such as the blackbox exporter, as one scrape job named
/// `probe/<namespace>/<name>`. With more than one shard, targets are spread over the shards by
/// their `__param_target`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.coreos.com",
    version = "v1",
    kind = "Probe",
    doc = "prometheus-operator's Probe: check static targets or Ingresses through a blackbox prober. Read by agent-operator, never written.",
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
    /// Value of the `job` label. Defaults to the job name, `probe/<namespace>/<name>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_name: Option<String>,
    /// The prober to send the checks to. Without it the scrape address is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prober: Option<ProberSpec>,
    /// The prober module to run, sent as the `module` URL parameter; sent empty when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// What to probe: static targets or Ingresses. `staticConfig` wins when both are set; a
    /// Probe with neither is rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<ProbeTargets>,
    /// How often to probe, as a Prometheus duration. Defaults to the GrafanaAgent's
    /// `spec.metrics.scrapeInterval`, else 1m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = crate::schema::DURATION_PATTERN))]
    pub interval: Option<String>,
    /// How long a probe may take, as a Prometheus duration. Defaults to the GrafanaAgent's
    /// `spec.metrics.scrapeTimeout`, else 10s; a timeout longer than the interval rejects the
    /// Probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = crate::schema::DURATION_PATTERN))]
    pub scrape_timeout: Option<String>,
    /// TLS settings for talking to the prober, from Secrets and ConfigMaps in the Probe's
    /// namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<SafeTlsConfig>,
    /// A Secret key, in the Probe's namespace, holding a bearer token for the prober. The
    /// value is written into the agent config itself. Ignored when the Secret name is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_secret: Option<SecretKeySelector>,
    /// HTTP basic authentication for the prober, from Secrets in the Probe's namespace. Both
    /// the username and the password are written into the agent config itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    /// OAuth2 client credentials. Accepted for compatibility; not rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<OAuth2>,
    /// An `Authorization` header for the requests to the prober: its type (default `Bearer`)
    /// and credentials from a Secret key in the Probe's namespace, written into the agent
    /// config itself. Combined with `basicAuth` or `bearerTokenSecret` it rejects the Probe, as
    /// Prometheus refuses the job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<SafeAuthorization>,
    /// Relabeling rules for the probe's samples. Accepted for compatibility; not rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_relabelings: Option<Vec<RelabelConfig>>,
    /// Most samples one probe may return. Accepted for compatibility; not rendered, and the
    /// GrafanaAgent's enforced limits do not apply to Probes either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_limit: Option<i64>,
    /// Most targets the job may have. Accepted for compatibility; not rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_limit: Option<i64>,
    /// Per-sample label limits (`labelLimit`, `labelNameLengthLimit`,
    /// `labelValueLengthLimit`). Accepted for compatibility; they have no effect.
    #[serde(flatten)]
    pub label_limits: LabelLimits,
}

/// Where the prober listens and how to reach it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProberSpec {
    /// Address of the prober, `host:port` without a scheme; it becomes the scrape address.
    pub url: String,
    /// `http` or `https`. Defaults to `http`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["http", "https"]))]
    pub scheme: Option<String>,
    /// HTTP path of the prober's probe endpoint; an empty path also means `/probe`.
    #[serde(default = "default_prober_path")]
    pub path: String,
    /// URL of an HTTP proxy to reach the prober through. Accepted for compatibility; not
    /// rendered.
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

/// The targets of a Probe: a fixed list, or the Ingresses a selector picks.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeTargets {
    /// A fixed list of targets. Wins over `ingress` when both are set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_config: Option<ProbeTargetStaticConfig>,
    /// Ingresses to discover; each one's `<scheme>://<host><path>` becomes a target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingress: Option<ProbeTargetIngress>,
}

/// A fixed list of Probe targets with the labels they share.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeTargetStaticConfig {
    /// The targets to probe (URLs or addresses). Each is passed to the prober as the `target`
    /// URL parameter and becomes the `instance` label.
    #[serde(default, rename = "static", skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<String>,
    /// Labels added to every target. `namespace` is always set to the Probe's namespace,
    /// whatever this map says.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Relabeling rules applied to the targets after the operator's own rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relabeling_configs: Vec<RelabelConfig>,
}

/// Ingresses whose URLs a Probe checks.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeTargetIngress {
    /// Selects the Ingresses by label; unset matches every Ingress. An unknown
    /// `matchExpressions` operator rejects the Probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// The namespaces to discover Ingresses in. Defaults to the Probe's own namespace; ignored
    /// (own namespace only) when the GrafanaAgent sets `spec.metrics.ignoreNamespaceSelectors`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<NamespaceSelector>,
    /// Relabeling rules applied to the discovered targets after the operator's own rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relabeling_configs: Vec<RelabelConfig>,
}
