//! prometheus-operator (v0.66) types that the monitoring.grafana.com kinds embed and that
//! ServiceMonitors, PodMonitors and Probes share.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::selectors::{SecretKeySelector, SecretOrConfigMap};

fn default_relabel_action() -> String {
    "replace".to_owned()
}

/// One relabeling rule. `action` defaults to `replace`, as the CRD declares.
///
/// Empty and zero fields are left out of the rendered rule, so Prometheus' defaults apply to
/// them. A rule the agent would refuse (unknown action, invalid regex, missing `targetLabel`
/// or `modulus`) leaves out the object or remote_write entry that holds it, and is reported.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RelabelConfig {
    /// Labels whose values, joined with `separator`, are matched against `regex`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("items" = {"type": "string", "pattern": crate::schema::LABEL_NAME_PATTERN}))]
    pub source_labels: Vec<String>,
    /// String placed between the values of `sourceLabels`; empty or unset leaves Prometheus'
    /// default, `;`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,
    /// Label the rule writes to (for `keepequal` and `dropequal`, the label compared with).
    /// Required by `replace`, `hashmod`, `lowercase`, `uppercase`, `keepequal` and `dropequal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_label: Option<String>,
    /// RE2 regular expression matched against the joined source values, anchored at both
    /// ends. Empty or unset leaves Prometheus' default, `(.*)`; an empty regex cannot be
    /// expressed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
    /// Modulus of the hash computed by the `hashmod` action, which needs it above 0; 0 is left
    /// out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modulus: Option<u64>,
    /// Value written by `replace` (or the label name built by `labelmap`); `$1` or `${name}`
    /// refer to regex groups. Empty or unset leaves Prometheus' default, `$1`, so an empty
    /// replacement cannot be expressed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    /// What the rule does, in lower case or prometheus-operator's capitalized spelling
    /// (`HashMod`, `LabelMap`, ...), which is written as given.
    #[serde(default = "default_relabel_action")]
    #[schemars(extend("enum" = crate::schema::RELABEL_ACTIONS))]
    pub action: String,
}

impl Default for RelabelConfig {
    fn default() -> Self {
        RelabelConfig {
            source_labels: Vec::new(),
            separator: None,
            target_label: None,
            regex: None,
            modulus: None,
            replacement: None,
            action: default_relabel_action(),
        }
    }
}

/// TLS settings whose files all come from Secrets or ConfigMaps.
///
/// Each referenced key is copied into the agents' secrets volume (mounted at
/// `/var/lib/grafana-agent/secrets`) and the config refers to it by path.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafeTlsConfig {
    /// CA certificate that verifies the server, from a Secret or ConfigMap key; written as
    /// `ca_file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca: Option<SecretOrConfigMap>,
    /// Client certificate, from a Secret or ConfigMap key; written as `cert_file`. It needs a
    /// client key as well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert: Option<SecretOrConfigMap>,
    /// Secret key holding the private key of the client certificate; written as `key_file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_secret: Option<SecretKeySelector>,
    /// Host name expected in the server's certificate, also sent as the TLS server name (SNI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    /// Skip verification of the server's certificate. Only `true` is written; defaults to
    /// verifying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insecure_skip_verify: Option<bool>,
}

/// TLS settings from Secrets or ConfigMaps plus literal file paths inside the agent's pod,
/// which win over the Secret-backed ones.
///
/// In a ServiceMonitor, a file path makes the whole ServiceMonitor rejected when the
/// GrafanaAgent sets `spec.metrics.arbitraryFSAccessThroughSMs.deny`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TlsConfig {
    /// The Secret- and ConfigMap-backed settings; their fields sit directly in this object.
    #[serde(flatten)]
    pub safe: SafeTlsConfig,
    /// Path, inside the agent's pods, of a CA certificate file; when non-empty it replaces
    /// `ca`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<String>,
    /// Path, inside the agent's pods, of a client certificate file; when non-empty it replaces
    /// `cert`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert_file: Option<String>,
    /// Path, inside the agent's pods, of the client key file; when non-empty it replaces
    /// `keySecret`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_file: Option<String>,
}

/// prometheus-operator's TLS versions, lowest first.
pub const TLS_VERSIONS: [&str; 4] = ["TLS10", "TLS11", "TLS12", "TLS13"];

/// The TLS versions prometheus-operator's TLS settings have (v0.95) and the Grafana Agent
/// Operator's do not; only the `monitoring.coreos.com` kinds carry them.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TlsVersions {
    /// Lowest TLS version accepted (`min_version`), on both runtimes. Unset leaves the
    /// runtime's default, TLS 1.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = TLS_VERSIONS))]
    pub min_version: Option<String>,
    /// Highest TLS version accepted (`max_version`); below `minVersion` rejects the object,
    /// as Prometheus refuses it. Written for the agent; Alloy has no such setting (a warning:
    /// it accepts up to TLS 1.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = TLS_VERSIONS))]
    pub max_version: Option<String>,
}

/// prometheus-operator's `SafeTLSConfig`: the Secret- and ConfigMap-backed TLS settings plus
/// the TLS versions. Used by PodMonitor endpoints, Probes, ScrapeConfigs and the token
/// requests of their OAuth2.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScrapeTlsConfig {
    /// The Secret- and ConfigMap-backed settings; their fields sit directly in this object.
    #[serde(flatten)]
    pub safe: SafeTlsConfig,
    /// `minVersion` and `maxVersion`; their fields sit directly in this object.
    #[serde(flatten)]
    pub versions: TlsVersions,
}

/// prometheus-operator's `TLSConfig` of ServiceMonitor endpoints: the literal file paths and
/// Secret-backed settings of [`TlsConfig`] plus the TLS versions.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndpointTlsConfig {
    /// The Secret-backed settings and file paths; their fields sit directly in this object.
    #[serde(flatten)]
    pub tls: TlsConfig,
    /// `minVersion` and `maxVersion`; their fields sit directly in this object.
    #[serde(flatten)]
    pub versions: TlsVersions,
}

/// The HTTP proxy of a scrape, a Probe's prober, a discovery or an OAuth2 token request
/// (prometheus-operator's `ProxyConfig`). Combinations Prometheus refuses reject the object.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProxySettings {
    /// URL of the proxy (`http`, `https` or `socks5`), written as `proxy_url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = "^(http|https|socks5)://.+$"))]
    pub proxy_url: Option<String>,
    /// Comma-separated IPs, CIDRs and domain names (with optional ports) reached without the
    /// proxy (`no_proxy`). Needs `proxyUrl`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_proxy: Option<String>,
    /// When true, use the proxy the agent pods' environment names (`HTTP_PROXY`,
    /// `HTTPS_PROXY`, `NO_PROXY`). Cannot be combined with `proxyUrl` or `noProxy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_from_environment: Option<bool>,
    /// Headers sent to the proxy with CONNECT requests, each name with Secret keys (in the
    /// object's namespace) holding its values, written into the config itself. Needs
    /// `proxyUrl` or `proxyFromEnvironment`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub proxy_connect_header: BTreeMap<String, Vec<SecretKeySelector>>,
}

/// prometheus-operator's `OAuth2` (v0.95): the client credentials of [`OAuth2`] plus the
/// proxy and TLS settings of the token requests. Used by the `monitoring.coreos.com` kinds.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = token_url_pattern)]
pub struct ScrapeOAuth2 {
    /// Client ID, client secret, token URL, scopes and endpoint parameters; their fields sit
    /// directly in this object.
    #[serde(flatten)]
    pub client: OAuth2,
    /// The proxy of the token requests; its fields sit directly in this object.
    #[serde(flatten)]
    pub proxy: ProxySettings,
    /// TLS settings of the token requests, from Secrets and ConfigMaps in the object's
    /// namespace. Alloy has no `maxVersion` here: its converter drops it (a warning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<ScrapeTlsConfig>,
}

/// `tokenUrl` must be an http or https URL, as prometheus-operator's newer CRDs declare.
fn token_url_pattern(schema: &mut schemars::Schema) {
    if let Some(url) = schema
        .pointer_mut("/properties/tokenUrl")
        .and_then(serde_json::Value::as_object_mut)
    {
        url.insert("pattern".to_owned(), "^(http|https)://.+$".into());
    }
}

/// HTTP basic authentication, each part read from a Secret key in the namespace of the object
/// that holds it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BasicAuth {
    /// Secret key holding the username, which is written into the config in plain text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<SecretKeySelector>,
    /// Secret key holding the password. remote_write reads it from a mounted file; everywhere
    /// else (scrape jobs, `apiServer`, logs clients) it is written into the config in plain
    /// text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<SecretKeySelector>,
}

/// OAuth 2.0 client credentials, exchanged at `tokenUrl` for the token sent with each request.
///
/// Rendered for remote_write and logs clients. ServiceMonitors, PodMonitors and Probes accept
/// it but it has no effect there (its Secrets are still read, as upstream).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OAuth2 {
    /// Client ID, from a Secret or a ConfigMap key, written into the config in plain text
    /// (upstream renders none from a ConfigMap). The agent refuses oauth2 without one, so an
    /// entry whose client ID cannot be read, even an `optional` one, is left out and reported.
    pub client_id: SecretOrConfigMap,
    /// Secret key holding the client secret, which the agent reads from a mounted file. The
    /// agent refuses oauth2 without one: even an `optional` one that is missing leaves the
    /// entry out (reported).
    pub client_secret: SecretKeySelector,
    /// URL of the token endpoint.
    #[schemars(extend("minLength" = 1))]
    pub token_url: String,
    /// Scopes asked for with the token.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// Extra parameters added to the token request.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub endpoint_params: BTreeMap<String, String>,
}

/// The `authorization` block of ServiceMonitor and PodMonitor endpoints and of Probes: an
/// `Authorization: <type> <credentials>` header sent with every scrape.
///
/// Rendered as the scrape job's `authorization` (the Grafana Agent Operator leaves it out);
/// it cannot be combined with `basicAuth`, `bearerTokenSecret` or `bearerTokenFile`, which
/// Prometheus refuses: such a monitor or Probe is rejected.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafeAuthorization {
    /// Authentication scheme, such as `Bearer` (unset or empty: `Bearer`). `Basic` is refused,
    /// as Prometheus refuses it: use `basicAuth`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// Secret key, in the object's namespace, holding the credentials; the value is written
    /// into the agent config itself. Required: without it the object is rejected. With
    /// `optional: true` and the key missing, no `authorization` is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<SecretKeySelector>,
}

/// The apiServer `authorization` block, which also accepts a literal credentials file.
///
/// Accepted for compatibility; nothing of it is rendered (use `bearerToken` or
/// `bearerTokenFile` instead).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Authorization {
    /// Authentication scheme, such as `Bearer`. Has no effect.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// Secret key holding the credentials. Not rendered, but still read as upstream does: a
    /// missing key is reported against the GrafanaAgent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<SecretKeySelector>,
    /// Path of a file holding the credentials. Has no effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials_file: Option<String>,
}

/// How the agents reach the Kubernetes API for service discovery.
///
/// Applied to every `kubernetes_sd_configs` entry the operator generates (metrics and logs);
/// its Secrets are read from the GrafanaAgent's namespace.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiServerConfig {
    /// Address of the API server (a host, `host:port` or URL), written as `api_server`. Empty
    /// leaves it out (the pods' in-cluster address), and then the credentials and TLS settings
    /// below must be unset too: discovery refuses them without an address, so the agent is
    /// reported instead.
    pub host: String,
    /// Basic authentication; username and password are both written into the config in plain
    /// text. Cannot be combined with a bearer token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    /// Bearer token, written into the config in plain text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token: Option<String>,
    /// Path, inside the agent's pods, of a file holding the bearer token. Set at most one of
    /// `bearerToken` and `bearerTokenFile`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_file: Option<String>,
    /// TLS settings for the connection to the API server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfig>,
    /// Accepted for compatibility; has no effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<Authorization>,
}

/// Metadata of an embedded object (pod template metadata, PVC template metadata).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedObjectMetadata {
    /// Name of the object. Ignored in `podMetadata`; in a volume claim template it names the
    /// claim and the WAL volume, and defaults to `<statefulset name>-wal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Labels added to the object. On pods, the operator's own selector labels win over them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Annotations added to the object.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// A PersistentVolumeClaim template for the metrics WAL.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedPersistentVolumeClaim {
    /// Accepted for compatibility; has no effect (the template is always a v1
    /// PersistentVolumeClaim).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// Accepted for compatibility; has no effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Name, labels and annotations of the claims.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<EmbeddedObjectMetadata>,
    /// Spec of the claims, copied as given except that `accessModes` defaults to
    /// `[ReadWriteOnce]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<k8s_openapi::api::core::v1::PersistentVolumeClaimSpec>,
    /// Copied into the template as given; normally left unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<k8s_openapi::api::core::v1::PersistentVolumeClaimStatus>,
}

/// Where the metrics WAL lives.
///
/// Unset keeps it in an emptyDir. Only the metrics StatefulSets use it; the integrations
/// workloads always keep their WAL in an emptyDir.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StorageSpec {
    /// Accepted for compatibility; has no effect (the WAL volume is always mounted whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_mount_sub_path: Option<bool>,
    /// Keep the WAL in an emptyDir with these settings, and make no volume claim template.
    /// Takes precedence over `volumeClaimTemplate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty_dir: Option<k8s_openapi::api::core::v1::EmptyDirVolumeSource>,
    /// Accepted for compatibility; has no effect. As upstream, `storage` without `emptyDir`
    /// still gets a claim template, built from defaults when `volumeClaimTemplate` is unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ephemeral: Option<k8s_openapi::api::core::v1::EphemeralVolumeSource>,
    /// Template of the PersistentVolumeClaim that holds the WAL of each metrics pod. Used
    /// whenever `storage` is set without `emptyDir`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_claim_template: Option<EmbeddedPersistentVolumeClaim>,
}
