//! prometheus-operator's `ScrapeConfig` (monitoring.coreos.com/v1alpha1): one scrape job with
//! its own service discovery, selected by a MetricsInstance's `scrapeConfigSelector`.
//!
//! The service discoveries that both runtimes run (the agent v0.44.8, on Prometheus 2.x, and
//! Alloy's converter, on Prometheus 3.x) are rendered: static targets, file, HTTP, Kubernetes,
//! DNS, Consul and EC2. Every other discovery is described only as a list of objects: setting
//! one rejects the ScrapeConfig, naming the field, rather than scrape without it. An upstream
//! Grafana Agent Operator has no ScrapeConfig; this kind is a deliberate addition.

use std::collections::BTreeMap;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::monitors::{
    AttachMetadata, BYTE_SIZE_PATTERN, LabelLimits, NativeHistogramConfig, SCRAPE_PROTOCOLS,
};
use crate::prometheus::{
    BasicAuth, ProxySettings, RelabelConfig, SafeAuthorization, ScrapeOAuth2, ScrapeTlsConfig,
};
use crate::selectors::SecretKeySelector;

/// One scrape job, `scrapeConfig/<namespace>/<name>`, with the targets its service discoveries
/// find. Secrets are read from the ScrapeConfig's namespace. With more than one shard, targets
/// are spread over the shards by `__address__`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "monitoring.coreos.com",
    version = "v1alpha1",
    kind = "ScrapeConfig",
    doc = "prometheus-operator's ScrapeConfig: one scrape job with its own service discovery. Read by agent-operator, never written.",
    plural = "scrapeconfigs",
    singular = "scrapeconfig",
    shortname = "scfg",
    namespaced,
    category = "prometheus-operator",
    derive = "Default",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct ScrapeConfigSpec {
    /// Value of the `job` label of the job's targets. Defaults to the job name,
    /// `scrapeConfig/<namespace>/<name>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub job_name: Option<String>,
    /// Fixed lists of targets (`static_configs`). Rendered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub static_configs: Vec<StaticConfig>,
    /// Targets read from files in the agent's pods (`file_sd_configs`). Rendered only when the
    /// GrafanaAgent sets `spec.metrics.arbitraryFSAccessThroughSMs.deny: false`; otherwise
    /// the ScrapeConfig is rejected, as a ServiceMonitor reading a file is.
    #[serde(
        default,
        rename = "fileSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub file_sd_configs: Vec<FileSdConfig>,
    /// Targets fetched from HTTP endpoints (`http_sd_configs`). Rendered.
    #[serde(
        default,
        rename = "httpSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub http_sd_configs: Vec<HttpSdConfig>,
    /// Targets discovered through the Kubernetes API (`kubernetes_sd_configs`). Rendered.
    #[serde(
        default,
        rename = "kubernetesSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub kubernetes_sd_configs: Vec<KubernetesSdConfig>,
    /// Targets from a Consul catalog (`consul_sd_configs`). Rendered.
    #[serde(
        default,
        rename = "consulSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub consul_sd_configs: Vec<ConsulSdConfig>,
    /// Targets from DNS records (`dns_sd_configs`). Rendered.
    #[serde(
        default,
        rename = "dnsSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub dns_sd_configs: Vec<DnsSdConfig>,
    /// Targets from AWS EC2 instances (`ec2_sd_configs`). Rendered.
    #[serde(
        default,
        rename = "ec2SDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub ec2_sd_configs: Vec<Ec2SdConfig>,
    /// Azure VM discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "azureSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub azure_sd_configs: Vec<Value>,
    /// Google Compute Engine discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "gceSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub gce_sd_configs: Vec<Value>,
    /// OpenStack discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "openstackSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub openstack_sd_configs: Vec<Value>,
    /// DigitalOcean discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "digitalOceanSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub digital_ocean_sd_configs: Vec<Value>,
    /// Kuma discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "kumaSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub kuma_sd_configs: Vec<Value>,
    /// Eureka discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "eurekaSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub eureka_sd_configs: Vec<Value>,
    /// Docker discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "dockerSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub docker_sd_configs: Vec<Value>,
    /// Linode discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "linodeSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub linode_sd_configs: Vec<Value>,
    /// Hetzner discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "hetznerSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub hetzner_sd_configs: Vec<Value>,
    /// Nomad discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "nomadSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub nomad_sd_configs: Vec<Value>,
    /// Docker Swarm discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "dockerSwarmSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub docker_swarm_sd_configs: Vec<Value>,
    /// PuppetDB discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "puppetDBSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub puppet_db_sd_configs: Vec<Value>,
    /// AWS Lightsail discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "lightSailSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub light_sail_sd_configs: Vec<Value>,
    /// OVHcloud discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "ovhcloudSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub ovhcloud_sd_configs: Vec<Value>,
    /// Scaleway discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "scalewaySDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub scaleway_sd_configs: Vec<Value>,
    /// IONOS Cloud discovery. Not rendered: a ScrapeConfig that sets it is rejected.
    #[serde(
        default,
        rename = "ionosSDConfigs",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(schema_with = "unrendered_discovery")]
    pub ionos_sd_configs: Vec<Value>,
    /// Relabeling rules for the discovered targets, after the operator's own `job` rules and
    /// before the enforced namespace label and sharding rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relabelings: Vec<RelabelConfig>,
    /// HTTP path to scrape; unset leaves Prometheus' default, `/metrics`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub metrics_path: Option<String>,
    /// How often to scrape, as a Prometheus duration. Defaults to the GrafanaAgent's
    /// `spec.metrics.scrapeInterval`, else 1m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = crate::schema::DURATION_PATTERN))]
    pub scrape_interval: Option<String>,
    /// How long a scrape may take, as a Prometheus duration; a timeout longer than the
    /// interval rejects the ScrapeConfig.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = crate::schema::DURATION_PATTERN))]
    pub scrape_timeout: Option<String>,
    /// Protocols to negotiate, in order of preference (`scrape_protocols`). Written for
    /// Alloy; the agent cannot choose them (a warning: it asks for OpenMetrics, then the
    /// Prometheus text format).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("items" = {"type": "string", "enum": SCRAPE_PROTOCOLS}))]
    pub scrape_protocols: Vec<String>,
    /// Protocol used when a target sends no or an unknown content type
    /// (`fallback_scrape_protocol`). Written for Alloy; the agent parses such a response as
    /// `PrometheusText0.0.4` (a warning for any other value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = SCRAPE_PROTOCOLS))]
    pub fallback_scrape_protocol: Option<String>,
    /// Whether to add the extra scrape metrics (`scrape_body_size_bytes`, ...). Neither runtime
    /// can: true gets a warning, and only the usual scrape metrics are written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_scrape_metrics: Option<bool>,
    /// Whether to keep the timestamps the targets expose (`honor_timestamps`). The
    /// GrafanaAgent's `spec.metrics.overrideHonorTimestamps` forces it off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honor_timestamps: Option<bool>,
    /// Whether series whose target exposes a timestamp are marked stale when they disappear
    /// (`track_timestamps_staleness`). Written for the agent; Alloy's converter refuses it
    /// (a warning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track_timestamps_staleness: Option<bool>,
    /// Whether the target's labels win over the ones the agent attaches (`honor_labels`). The
    /// GrafanaAgent's `spec.metrics.overrideHonorLabels` forces it off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honor_labels: Option<bool>,
    /// URL parameters of every scrape request.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, Vec<String>>,
    /// `http` or `https` (either case); written in lower case. Defaults to `http`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["http", "https", "HTTP", "HTTPS"]))]
    pub scheme: Option<String>,
    /// Whether to ask targets for compressed responses (`enable_compression`). Written for
    /// Alloy; the agent always asks for them (`false` gets a warning there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_compression: Option<bool>,
    /// Whether HTTP/2 may be used for scrapes (`enable_http2`). Rendered.
    #[serde(
        default,
        rename = "enableHTTP2",
        skip_serializing_if = "Option::is_none"
    )]
    pub enable_http2: Option<bool>,
    /// HTTP basic authentication of the scrapes; username and password are written into the
    /// agent config itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    /// An `Authorization` header for the scrapes, its credentials written into the agent
    /// config itself. At most one of `basicAuth`, `authorization` and `oauth2` may be set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<SafeAuthorization>,
    /// OAuth 2.0 client credentials for the scrapes: the client ID written into the config,
    /// the client secret mounted as a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<ScrapeOAuth2>,
    /// TLS settings of the scrapes, from Secrets and ConfigMaps in the ScrapeConfig's
    /// namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<ScrapeTlsConfig>,
    /// Most samples one scrape may return (`sample_limit`); the GrafanaAgent's
    /// `spec.metrics.enforcedSampleLimit` wins when lower.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_limit: Option<i64>,
    /// Most targets the job may have (`target_limit`); the GrafanaAgent's
    /// `spec.metrics.enforcedTargetLimit` wins when lower.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_limit: Option<i64>,
    /// Per-sample label limits (`labelLimit`, `labelNameLengthLimit`,
    /// `labelValueLengthLimit`), written into the job.
    #[serde(flatten)]
    pub label_limits: LabelLimits,
    /// Largest uncompressed response body a scrape accepts (`body_size_limit`), such as
    /// `10MB`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = BYTE_SIZE_PATTERN))]
    pub body_size_limit: Option<String>,
    /// Native histogram settings, written where the runtime takes them, as for
    /// ServiceMonitors (a warning where it does not).
    #[serde(flatten)]
    pub native_histograms: NativeHistogramConfig,
    /// Most targets dropped by relabeling kept in memory for the targets page
    /// (`keep_dropped_targets`). Written for the agent; Alloy's converter refuses it (a
    /// warning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_dropped_targets: Option<i64>,
    /// Relabeling rules for the scraped samples; rules that set the GrafanaAgent's enforced
    /// namespace label are dropped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metric_relabelings: Vec<RelabelConfig>,
    /// The proxy of the scrapes (`proxyUrl`, `noProxy`, `proxyFromEnvironment`,
    /// `proxyConnectHeader`).
    #[serde(flatten)]
    pub proxy: ProxySettings,
    /// Which metric and label names are valid. Neither runtime takes the setting: `Legacy`
    /// gets a warning (legacy names are what both validate); `UTF8` rejects the ScrapeConfig,
    /// as the samples with UTF-8 names it allows would be refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["UTF8", "Legacy"]))]
    pub name_validation_scheme: Option<String>,
    /// How names are escaped when the target cannot take UTF-8 names. Neither runtime
    /// negotiates UTF-8 names with the target: a warning, nothing is escaped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["AllowUTF8", "Underscores", "Dots", "Values"]))]
    pub name_escaping_scheme: Option<String>,
    /// A scrape class of the selecting MetricsInstance (`spec.scrapeClasses`); unset takes the
    /// instance's default class, if any. The class's relabelings come after the operator's
    /// first rule, its metric relabelings before the ScrapeConfig's, its TLS files and
    /// authorization where the ScrapeConfig sets none. A name the instance lacks rejects the
    /// ScrapeConfig, as prometheus-operator does.
    #[serde(
        default,
        rename = "scrapeClass",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(length(min = 1))]
    pub scrape_class: Option<String>,
}

/// The schema of a discovery this operator does not render: a list of objects, kept as given.
fn unrendered_discovery(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "array",
        "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
    })
}

/// The file names prometheus-operator's CRD accepts for file discovery (Prometheus' rule).
pub const FILE_SD_PATTERN: &str = r"^[^*]*(\*[^/]*)?\.(json|yml|yaml|JSON|YML|YAML)$";

/// A fixed list of targets with the labels they share.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct StaticConfig {
    /// Addresses (`host:port`) to scrape.
    #[serde(default)]
    #[schemars(extend("items" = {"type": "string", "minLength": 1}))]
    pub targets: Vec<String>,
    /// Labels added to every target of this list.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
}

/// Files in the agent's pods listing targets.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileSdConfig {
    /// Paths (the last element may be a glob such as `*.json`) of JSON or YAML target files.
    #[serde(default)]
    #[schemars(extend("items" = {"type": "string", "pattern": FILE_SD_PATTERN}))]
    pub files: Vec<String>,
    /// How often the files are re-read besides on change, as a Prometheus duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = crate::schema::DURATION_PATTERN))]
    pub refresh_interval: Option<String>,
}

/// An HTTP endpoint that returns target groups as JSON.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpSdConfig {
    /// URL of the endpoint.
    #[schemars(extend("pattern" = "^https?://.+$"))]
    pub url: String,
    /// How often the endpoint is asked, as a Prometheus duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = crate::schema::DURATION_PATTERN))]
    pub refresh_interval: Option<String>,
    /// HTTP basic authentication, written into the agent config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    /// An `Authorization` header, its credentials written into the agent config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<SafeAuthorization>,
    /// OAuth 2.0 client credentials (client secret mounted as a file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<ScrapeOAuth2>,
    /// The proxy to the endpoint.
    #[serde(flatten)]
    pub proxy: ProxySettings,
    /// TLS settings, from Secrets and ConfigMaps in the ScrapeConfig's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<ScrapeTlsConfig>,
    /// Whether redirects are followed (default true). Alloy's converter drops `false` (a
    /// warning: Alloy follows them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_redirects: Option<bool>,
    /// Whether HTTP/2 may be used (default true). Alloy's converter drops `false` (a
    /// warning: Alloy may use HTTP/2).
    #[serde(
        default,
        rename = "enableHTTP2",
        skip_serializing_if = "Option::is_none"
    )]
    pub enable_http2: Option<bool>,
}

/// Discovery through the Kubernetes API.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KubernetesSdConfig {
    /// Address of the API server; unset means the pods' in-cluster configuration (the
    /// GrafanaAgent's `spec.apiServer` does not apply, as prometheus-operator does not apply
    /// its own), and then credentials, TLS, proxy and `false` redirect or HTTP/2 settings
    /// reject the ScrapeConfig, as Prometheus refuses them.
    #[serde(default, rename = "apiServer", skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub api_server: Option<String>,
    /// What to discover, written in lower case.
    #[schemars(extend("enum" = KUBERNETES_ROLES))]
    pub role: String,
    /// The namespaces to discover in; unset means all. When the GrafanaAgent sets
    /// `spec.metrics.ignoreNamespaceSelectors`, discovery covers only the ScrapeConfig's
    /// namespace, whatever this says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespaces: Option<NamespaceDiscovery>,
    /// Node metadata to attach to pod and endpoint targets (`attach_metadata`); for other
    /// roles it is ignored with a warning, as prometheus-operator ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attach_metadata: Option<AttachMetadata>,
    /// Label and field selectors narrowing what the API server returns (`selectors`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selectors: Vec<KubernetesSelector>,
    /// HTTP basic authentication to the API server, written into the agent config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    /// An `Authorization` header to the API server, written into the agent config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<SafeAuthorization>,
    /// OAuth 2.0 client credentials to the API server (client secret mounted as a file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<ScrapeOAuth2>,
    /// The proxy to the API server.
    #[serde(flatten)]
    pub proxy: ProxySettings,
    /// Whether redirects are followed (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_redirects: Option<bool>,
    /// Whether HTTP/2 may be used (default true).
    #[serde(
        default,
        rename = "enableHTTP2",
        skip_serializing_if = "Option::is_none"
    )]
    pub enable_http2: Option<bool>,
    /// TLS settings to the API server, from Secrets and ConfigMaps in the ScrapeConfig's
    /// namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<ScrapeTlsConfig>,
}

/// The Kubernetes roles prometheus-operator's CRD accepts.
pub const KUBERNETES_ROLES: [&str; 6] = [
    "Pod",
    "Endpoints",
    "Ingress",
    "Service",
    "Node",
    "EndpointSlice",
];

/// The namespaces a Kubernetes discovery covers.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceDiscovery {
    /// Also discover in the namespace of the agent's pods (`own_namespace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_namespace: Option<bool>,
    /// The namespaces to discover in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("items" = {"type": "string", "minLength": 1}))]
    pub names: Vec<String>,
}

/// A label or field selector for one role of a Kubernetes discovery.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct KubernetesSelector {
    /// The role the selector applies to, written in lower case.
    #[schemars(extend("enum" = KUBERNETES_ROLES))]
    pub role: String,
    /// A label selector in the API's string form (`app=web,tier!=db`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub label: Option<String>,
    /// A field selector in the API's string form (`metadata.name=web`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub field: Option<String>,
}

/// Discovery from a Consul catalog.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsulSdConfig {
    /// Address of the Consul server (`host:port`).
    #[schemars(extend("minLength" = 1))]
    pub server: String,
    /// Prefix of the API paths, for a Consul behind a reverse proxy. Alloy's converter drops
    /// it: with runtime alloy the ScrapeConfig is rejected rather than ask another path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub path_prefix: Option<String>,
    /// Secret key holding the Consul ACL token, written into the agent config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_ref: Option<SecretKeySelector>,
    /// Datacenter to query; unset means the agent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub datacenter: Option<String>,
    /// Consul Enterprise namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub namespace: Option<String>,
    /// Consul Enterprise admin partition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub partition: Option<String>,
    /// `http` or `https` (either case) to reach Consul; written in lower case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["http", "https", "HTTP", "HTTPS"]))]
    pub scheme: Option<String>,
    /// Services to discover; empty means all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("items" = {"type": "string", "minLength": 1}))]
    pub services: Vec<String>,
    /// Tags a service must carry to be discovered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("items" = {"type": "string", "minLength": 1}))]
    pub tags: Vec<String>,
    /// String joining the tags in `__meta_consul_tags`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub tag_separator: Option<String>,
    /// Node metadata key/value pairs a node must carry.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_meta: BTreeMap<String, String>,
    /// A Consul filter expression for the catalog query. The agent (Prometheus 2.x) refuses
    /// it and Alloy's converter drops it: a ScrapeConfig setting it is rejected rather than
    /// discover more services than asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub filter: Option<String>,
    /// A Consul filter expression for the health query. Rejected for the same reason as
    /// `filter`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub health_filter: Option<String>,
    /// Allow stale reads from any Consul server (`allow_stale`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_stale: Option<bool>,
    /// How often the catalog is read, as a Prometheus duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = crate::schema::DURATION_PATTERN))]
    pub refresh_interval: Option<String>,
    /// HTTP basic authentication, written into the agent config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    /// An `Authorization` header, its credentials written into the agent config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<SafeAuthorization>,
    /// OAuth 2.0 client credentials (client secret mounted as a file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<ScrapeOAuth2>,
    /// The proxy to Consul.
    #[serde(flatten)]
    pub proxy: ProxySettings,
    /// Whether redirects are followed (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_redirects: Option<bool>,
    /// Whether HTTP/2 may be used (default true).
    #[serde(
        default,
        rename = "enableHTTP2",
        skip_serializing_if = "Option::is_none"
    )]
    pub enable_http2: Option<bool>,
    /// TLS settings, from Secrets and ConfigMaps in the ScrapeConfig's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<ScrapeTlsConfig>,
}

/// Discovery from DNS records.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DnsSdConfig {
    /// Names to resolve.
    #[serde(default)]
    #[schemars(extend("items" = {"type": "string", "minLength": 1}))]
    pub names: Vec<String>,
    /// How often the names are resolved, as a Prometheus duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = crate::schema::DURATION_PATTERN))]
    pub refresh_interval: Option<String>,
    /// Record type (default `SRV`). Every type other than `SRV` needs `port`: without it the
    /// ScrapeConfig is rejected, as Prometheus refuses the discovery.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["A", "AAAA", "MX", "NS", "SRV"]))]
    pub type_: Option<String>,
    /// Port of the targets, for record types other than `SRV`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
}

/// Discovery of AWS EC2 instances.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ec2SdConfig {
    /// AWS region; unset means the region of the instance the agent runs on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub region: Option<String>,
    /// Secret key holding the access key ID, written into the agent config. Used only
    /// together with `secretKey`, as prometheus-operator does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_key: Option<SecretKeySelector>,
    /// Secret key holding the secret access key, written into the agent config. Used only
    /// together with `accessKey`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_key: Option<SecretKeySelector>,
    /// ARN of a role to assume.
    #[serde(default, rename = "roleARN", skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub role_arn: Option<String>,
    /// Port of the targets (default 80).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    /// How often instances are listed, as a Prometheus duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = crate::schema::DURATION_PATTERN))]
    pub refresh_interval: Option<String>,
    /// Filters of the instance listing (`filters`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<Ec2Filter>,
    /// The proxy to the EC2 API.
    #[serde(flatten)]
    pub proxy: ProxySettings,
    /// TLS settings, from Secrets and ConfigMaps in the ScrapeConfig's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<ScrapeTlsConfig>,
    /// Whether redirects are followed (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_redirects: Option<bool>,
    /// Whether HTTP/2 may be used (default true).
    #[serde(
        default,
        rename = "enableHTTP2",
        skip_serializing_if = "Option::is_none"
    )]
    pub enable_http2: Option<bool>,
}

/// One filter of an EC2 instance listing.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct Ec2Filter {
    /// Name of the filter, such as `tag:Name` or `instance-state-name`.
    #[schemars(length(min = 1))]
    pub name: String,
    /// Values of the filter; an instance matches when it has any of them.
    #[serde(default)]
    #[schemars(extend("items" = {"type": "string", "minLength": 1}))]
    pub values: Vec<String>,
}
