//! prometheus-operator's `ServiceMonitor`, `PodMonitor` and `Probe` (monitoring.coreos.com/v1),
//! as far as their CRDs describe them. The operator only reads these kinds.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::prometheus::{
    BasicAuth, EndpointTlsConfig, ProxySettings, RelabelConfig, SafeAuthorization, ScrapeOAuth2,
    ScrapeTlsConfig, TlsConfig,
};
use crate::selectors::{NamespaceSelector, SecretKeySelector};

/// Extra discovery metadata to attach to targets: written as the discovery's
/// `attach_metadata` (ServiceMonitors and PodMonitors; a Probe's has no effect).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct AttachMetadata {
    /// When true, targets get the labels of their Node (`__meta_kubernetes_node_*`), for use
    /// in relabelings. The agent pods' ServiceAccount then needs `get`, `list` and `watch` on
    /// Nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<bool>,
}

/// Per-scrape label limits, shared by the three kinds. ServiceMonitors and PodMonitors write
/// them into each job (a scrape that breaks one fails); a Probe's have no effect.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LabelLimits {
    /// Most labels a scraped sample may carry (`label_limit`); 0 or unset means no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_limit: Option<i64>,
    /// Longest label name a scraped sample may carry (`label_name_length_limit`); 0 or unset
    /// means no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_name_length_limit: Option<i64>,
    /// Longest label value a scraped sample may carry (`label_value_length_limit`); 0 or
    /// unset means no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_value_length_limit: Option<i64>,
}

/// The formats a scrape can negotiate, as prometheus-operator names them.
pub const SCRAPE_PROTOCOLS: [&str; 5] = [
    "PrometheusProto",
    "OpenMetricsText0.0.1",
    "OpenMetricsText1.0.0",
    "PrometheusText0.0.4",
    "PrometheusText1.0.0",
];

/// prometheus-operator's `ByteSize` pattern (`512MB`, `1.5GiB`, `0`): sizes in powers of 2.
pub const BYTE_SIZE_PATTERN: &str = "(^0|([0-9]*[.])?[0-9]+((K|M|G|T|E|P)i?)?B)$";

/// Kubernetes' quantity pattern (`1.1`, `1100m`, `2`).
pub const QUANTITY_PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

/// Native histogram settings of a ServiceMonitor or PodMonitor (prometheus-operator's
/// `NativeHistogramConfig`, inlined into the spec). The Grafana Agent scrapes only text
/// formats, so it never ingests native histograms; Alloy's static converter turns native
/// histogram scraping off. What each runtime does with each field: docs/compatibility.md.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NativeHistogramConfig {
    /// Whether to scrape native histograms. Neither runtime can (the agent scrapes text
    /// formats only; Alloy's static converter turns it off): true rejects the monitor rather
    /// than scrape classic histograms in their place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrape_native_histograms: Option<bool>,
    /// Whether to keep the classic form of a histogram also exposed as a native one: written
    /// as `scrape_classic_histograms` for the agent, `always_scrape_classic_histograms` for
    /// Alloy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrape_classic_histograms: Option<bool>,
    /// Most buckets a native histogram may keep before they are merged
    /// (`native_histogram_bucket_limit`); 0 or unset means no limit. Alloy's converter
    /// refuses it: left out there, with a warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub native_histogram_bucket_limit: Option<i64>,
    /// Smallest growth factor from one native histogram bucket to the next before buckets are
    /// merged (`native_histogram_min_bucket_factor`), as a Kubernetes quantity (`1.1`). The
    /// agent does not know it: left out there, with a warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = QUANTITY_PATTERN))]
    pub native_histogram_min_bucket_factor: Option<IntOrString>,
    /// Whether to convert classic histograms into native histograms with custom buckets
    /// (`convert_classic_histograms_to_nhcb`, Alloy). The agent cannot: true rejects the
    /// monitor there rather than send series of another shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "convertClassicHistogramsToNHCB")]
    pub convert_classic_histograms_to_nhcb: Option<bool>,
}

/// Scrape settings ServiceMonitors and PodMonitors share (prometheus-operator v0.95), inlined
/// into their spec. Each applies to every job of the monitor; what each runtime does with each
/// field, and why: docs/compatibility.md.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MonitorScrapeSettings {
    /// How `selector` picks the objects: `RelabelConfig` (the default) discovers every object
    /// of the namespaces and keeps the matching ones by relabeling; `RoleSelector` asks the
    /// API server for the matching ones only (the discovery's `selectors`). The same targets
    /// either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["RelabelConfig", "RoleSelector"]))]
    pub selector_mechanism: Option<String>,
    /// The formats to negotiate, most preferred first (`scrape_protocols`). Alloy uses them;
    /// the agent cannot choose (it asks for OpenMetrics, then the Prometheus text format):
    /// left out there, with a warning.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("items" = {"type": "string", "enum": SCRAPE_PROTOCOLS}, "x-kubernetes-list-type" = "set"))]
    pub scrape_protocols: Vec<String>,
    /// How to parse a response whose Content-Type is missing or unknown
    /// (`fallback_scrape_protocol`; Alloy). The agent always parses it as
    /// `PrometheusText0.0.4`: another value gets a warning there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = SCRAPE_PROTOCOLS))]
    pub fallback_scrape_protocol: Option<String>,
    /// Whether to add the extra scrape metrics (`scrape_timeout_seconds`, ...). Neither
    /// runtime can per job: true gets the monitor a warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_scrape_metrics: Option<bool>,
    /// Native histogram settings; their fields sit directly in the spec.
    #[serde(flatten)]
    pub native_histograms: NativeHistogramConfig,
    /// How many targets dropped by relabeling each job keeps in memory for its targets page
    /// (`keep_dropped_targets`); 0 or unset means all. Alloy's converter refuses it: left out
    /// there, with a warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub keep_dropped_targets: Option<i64>,
    /// The scrape class of the selecting MetricsInstance to apply (`spec.scrapeClasses`):
    /// its TLS settings, authorization, relabelings and metric relabelings. Unset: the class
    /// marked `default`, if any. A class the instance does not define rejects the monitor.
    #[serde(
        default,
        rename = "scrapeClass",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(length(min = 1))]
    pub scrape_class: Option<String>,
    /// Largest uncompressed response body a scrape accepts (`body_size_limit`), in powers of
    /// 2 (`10MB`, `1.5GiB`); a larger one fails the scrape. Unset or 0 means no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = BYTE_SIZE_PATTERN))]
    pub body_size_limit: Option<String>,
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
    /// `labelValueLengthLimit`), written into each job.
    #[serde(flatten)]
    pub label_limits: LabelLimits,
    /// Extra discovery metadata: `node: true` adds the Node's labels to the targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attach_metadata: Option<AttachMetadata>,
    /// The settings ServiceMonitors and PodMonitors share (scrape class, protocols, native
    /// histograms, body size, ...), inlined into this object.
    #[serde(flatten)]
    pub scrape: MonitorScrapeSettings,
    /// Which objects the discovery reads: `Endpoints` (the default) or `EndpointSlice`
    /// (`role: endpointslice`, with its own meta labels). With EndpointSlice, the agent pods'
    /// ServiceAccount needs `get`, `list` and `watch` on `endpointslices` of
    /// `discovery.k8s.io`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["Endpoints", "EndpointSlice"]))]
    pub service_discovery_role: Option<String>,
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
    /// `http` or `https` (prometheus-operator also accepts `HTTP` and `HTTPS`, written in lower
    /// case). Defaults to `http`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["http", "https", "HTTP", "HTTPS"]))]
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
    /// Whether samples with the target's own timestamps get staleness markers when they
    /// disappear (`track_timestamps_staleness`); only matters when timestamps are honored.
    /// Unset means false. Alloy's converter refuses it: left out there, with a warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track_timestamps_staleness: Option<bool>,
    /// Whether to keep the timestamps the target exposes. Unset leaves Prometheus' default
    /// (true); forced to false when the GrafanaAgent sets `spec.metrics.overrideHonorTimestamps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honor_timestamps: Option<bool>,
    /// HTTP basic authentication for the scrape, from Secrets in the monitor's namespace. Both
    /// the username and the password are written into the agent config itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    /// OAuth2 client credentials for the scrape: the job's `oauth2`, the client ID written
    /// into the config, the client secret a file of the assets Secret, with the token
    /// requests' own proxy and TLS settings. Combined with another way to authenticate it
    /// rejects the monitor, as Prometheus refuses the job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<ScrapeOAuth2>,
    /// Relabeling rules applied to scraped samples before they are sent on. Rules that write
    /// the GrafanaAgent's `spec.metrics.enforcedNamespaceLabel` are left out.
    // An Option so that an explicitly empty list survives a round trip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_relabelings: Option<Vec<RelabelConfig>>,
    /// Relabeling rules applied to discovered targets, after the operator's own rules and
    /// before the enforced namespace label and the sharding rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relabelings: Vec<RelabelConfig>,
    /// The proxy of the scrapes (`proxyUrl`, `noProxy`, `proxyFromEnvironment`,
    /// `proxyConnectHeader`); their fields sit directly in this object. Combinations
    /// Prometheus refuses reject the monitor.
    #[serde(flatten)]
    pub proxy: ProxySettings,
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
    pub tls_config: Option<EndpointTlsConfig>,
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
    /// `labelValueLengthLimit`), written into each job.
    #[serde(flatten)]
    pub label_limits: LabelLimits,
    /// Extra discovery metadata: `node: true` adds the Node's labels to the targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attach_metadata: Option<AttachMetadata>,
    /// The settings ServiceMonitors and PodMonitors share (scrape class, protocols, native
    /// histograms, body size, ...), inlined into this object.
    #[serde(flatten)]
    pub scrape: MonitorScrapeSettings,
}

/// A PodMonitor endpoint: the shared settings plus TLS taken from Secrets and ConfigMaps only.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodMetricsEndpoint {
    /// The settings ServiceMonitor and PodMonitor endpoints share, inlined into this object.
    #[serde(flatten)]
    pub common: ScrapeEndpoint,
    /// The container port to scrape, by number: used when `port` is empty, and wins over
    /// `targetPort` (0 adds no port filter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 65535))]
    pub port_number: Option<i32>,
    /// TLS settings for the scrape, from Secrets and ConfigMaps in the PodMonitor's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<ScrapeTlsConfig>,
}

/// A scrape class of a MetricsInstance (`spec.scrapeClasses`): settings its ServiceMonitors,
/// PodMonitors, Probes and ScrapeConfigs take by naming it (`scrapeClass`), or all that name
/// none when it is the `default`. What the monitor sets itself wins.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScrapeClass {
    /// Name the monitors' `scrapeClass` refers to; unique in the list (a later class of the
    /// same name is ignored and reported).
    #[schemars(length(min = 1))]
    pub name: String,
    /// When true, the class applies to every monitor that names none. At most one class may
    /// be the default (a later one is ignored and reported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    /// The monitor's `fallbackScrapeProtocol` when it sets none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = SCRAPE_PROTOCOLS))]
    pub fallback_scrape_protocol: Option<String>,
    /// TLS files for the scrapes, paths inside the agent's pods: `caFile`, `certFile` and
    /// `keyFile` each apply where the endpoint sets no CA, certificate or key of its own. Only
    /// those three are supported, as prometheus-operator: a monitor taking a class that sets
    /// another TLS field is rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfig>,
    /// An `Authorization` header for the scrapes of endpoints that set no way to
    /// authenticate of their own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<ScrapeClassAuthorization>,
    /// Relabeling rules applied to every target, after the operator's own rules and before
    /// the endpoint's `relabelings`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relabelings: Vec<RelabelConfig>,
    /// Relabeling rules applied to every scraped sample, before the endpoint's
    /// `metricRelabelings`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metric_relabelings: Vec<RelabelConfig>,
    /// The monitor's `attachMetadata` when it sets none (not a Probe's: its Ingress discovery
    /// takes none, as prometheus-operator's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attach_metadata: Option<AttachMetadata>,
}

/// A scrape class's `Authorization` header: its type (default `Bearer`) and credentials from a
/// Secret key in the MetricsInstance's namespace (written into the config itself) or a file
/// inside the agent's pods.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScrapeClassAuthorization {
    /// Authentication scheme, such as `Bearer` (unset or empty: `Bearer`); `Basic` is refused,
    /// as Prometheus refuses it.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// Secret key, in the MetricsInstance's namespace, holding the credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<SecretKeySelector>,
    /// Path, inside the agent's pods, of a file holding the credentials; used when
    /// `credentials` is unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials_file: Option<String>,
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
    /// The prober module to run, sent as the `module` URL parameter; when unset, the `module`
    /// entry of `params`, else sent empty.
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
    pub tls_config: Option<ScrapeTlsConfig>,
    /// A Secret key, in the Probe's namespace, holding a bearer token for the prober. The
    /// value is written into the agent config itself. Ignored when the Secret name is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_secret: Option<SecretKeySelector>,
    /// HTTP basic authentication for the prober, from Secrets in the Probe's namespace. Both
    /// the username and the password are written into the agent config itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    /// OAuth2 client credentials for the requests to the prober (the job's `oauth2`): the
    /// client ID written into the config, the client secret a file of the assets Secret, with
    /// the token requests' own proxy and TLS settings. Combined with another way to
    /// authenticate it rejects the Probe, as Prometheus refuses the job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<ScrapeOAuth2>,
    /// An `Authorization` header for the requests to the prober: its type (default `Bearer`)
    /// and credentials from a Secret key in the Probe's namespace, written into the agent
    /// config itself. Combined with `basicAuth` or `bearerTokenSecret` it rejects the Probe, as
    /// Prometheus refuses the job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<SafeAuthorization>,
    /// Relabeling rules for the probe's samples (`metric_relabel_configs`), after the scrape
    /// class's. The Grafana Agent Operator ignored them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_relabelings: Option<Vec<RelabelConfig>>,
    /// Most samples one probe may return (0 or unset: none), lowered to the GrafanaAgent's
    /// `enforcedSampleLimit`; unset, the enforced limit does not apply to Probes (the Grafana
    /// Agent Operator ignored Probes' limits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_limit: Option<i64>,
    /// Most targets the job may have (0 or unset: none), lowered to the GrafanaAgent's
    /// `enforcedTargetLimit` as `sampleLimit` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_limit: Option<i64>,
    /// Per-sample label limits (`labelLimit`, `labelNameLengthLimit`,
    /// `labelValueLengthLimit`), rendered as a ServiceMonitor's.
    #[serde(flatten)]
    pub label_limits: LabelLimits,
    /// Set to false to not follow HTTP redirects from the prober (a redirect then fails the
    /// probe); unset or true keeps Prometheus' default, following them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_redirects: Option<bool>,
    /// Set to false to reach the prober over HTTP/1.1 only; unset or true keeps Prometheus'
    /// default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_http2: Option<bool>,
    /// The formats to negotiate with the prober, most preferred first (`scrape_protocols`).
    /// Alloy uses them; the agent cannot choose (it asks for OpenMetrics, then the Prometheus
    /// text format): left out there, with a warning.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("items" = {"type": "string", "enum": SCRAPE_PROTOCOLS}, "x-kubernetes-list-type" = "set"))]
    pub scrape_protocols: Vec<String>,
    /// How to parse a prober response whose Content-Type is missing or unknown
    /// (`fallback_scrape_protocol`; Alloy). Unset: the scrape class's. The agent always parses
    /// it as `PrometheusText0.0.4`: another value gets a warning there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = SCRAPE_PROTOCOLS))]
    pub fallback_scrape_protocol: Option<String>,
    /// Whether to add the extra scrape metrics (`scrape_timeout_seconds`, ...). Neither
    /// runtime can per job: true gets the Probe a warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_scrape_metrics: Option<bool>,
    /// Native histogram settings, handled as a ServiceMonitor's; their fields sit directly in
    /// the spec.
    #[serde(flatten)]
    pub native_histograms: NativeHistogramConfig,
    /// How many targets dropped by relabeling the job keeps in memory for its targets page
    /// (`keep_dropped_targets`); 0 or unset means all. Alloy's converter refuses it: left out
    /// there, with a warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub keep_dropped_targets: Option<i64>,
    /// The scrape class of the selecting MetricsInstance to apply (`spec.scrapeClasses`): its
    /// TLS files and authorization for the requests to the prober (where the Probe sets none),
    /// its relabelings after the prober's address rules, its metric relabelings and its
    /// `fallbackScrapeProtocol`. Unset: the class marked `default`, if any. A class the
    /// instance does not define rejects the Probe.
    #[serde(
        default,
        rename = "scrapeClass",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(length(min = 1))]
    pub scrape_class: Option<String>,
    /// Further URL parameters sent to the prober (the job's `params`), each name once.
    /// `module` wins over a parameter named `module`; without `module`, that parameter is the
    /// module sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(
        length(min = 1),
        extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"])
    )]
    pub params: Vec<ProbeParam>,
}

/// One URL parameter of a Probe's requests to the prober.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeParam {
    /// The parameter's name.
    #[schemars(length(min = 1))]
    pub name: String,
    /// Its values, each sent as `name=value`, in this order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1), extend("items" = {"type": "string", "minLength": 1}))]
    pub values: Vec<String>,
}

/// Where the prober listens and how to reach it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProberSpec {
    /// Address of the prober, `host:port` without a scheme; it becomes the scrape address.
    pub url: String,
    /// `http` or `https` (prometheus-operator's CRD also accepts `HTTP` and `HTTPS`, written
    /// in lower case). Defaults to `http`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["http", "https", "HTTP", "HTTPS"]))]
    pub scheme: Option<String>,
    /// HTTP path of the prober's probe endpoint; an empty path also means `/probe`.
    #[serde(default = "default_prober_path")]
    pub path: String,
    /// The proxy to reach the prober through (`proxyUrl`, `noProxy`, `proxyFromEnvironment`,
    /// `proxyConnectHeader`), written into the job (the Grafana Agent Operator ignores
    /// `proxyUrl`); their fields sit directly in this object.
    #[serde(flatten)]
    pub proxy: ProxySettings,
}

impl Default for ProberSpec {
    fn default() -> Self {
        ProberSpec {
            url: String::new(),
            scheme: None,
            path: default_prober_path(),
            proxy: ProxySettings::default(),
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
