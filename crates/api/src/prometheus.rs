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
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RelabelConfig {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_labels: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modulus: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    #[serde(default = "default_relabel_action")]
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
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafeTlsConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca: Option<SecretOrConfigMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert: Option<SecretOrConfigMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_secret: Option<SecretKeySelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insecure_skip_verify: Option<bool>,
}

/// [`SafeTlsConfig`] plus literal file paths inside the agent's pod, which win over the
/// Secret-backed ones.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TlsConfig {
    #[serde(flatten)]
    pub safe: SafeTlsConfig,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_file: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BasicAuth {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<SecretKeySelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<SecretKeySelector>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OAuth2 {
    pub client_id: SecretOrConfigMap,
    pub client_secret: SecretKeySelector,
    pub token_url: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub endpoint_params: BTreeMap<String, String>,
}

/// The `authorization` block of monitors and Probes (read by upstream only for asset collection).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SafeAuthorization {
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<SecretKeySelector>,
}

/// The apiServer `authorization` block, which also accepts a literal credentials file.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Authorization {
    #[serde(flatten)]
    pub safe: SafeAuthorization,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials_file: Option<String>,
}

/// How the agents reach the Kubernetes API for service discovery.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiServerConfig {
    pub host: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuth>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_token_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<Authorization>,
}

/// Metadata of an embedded object (pod template metadata, PVC template metadata).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedObjectMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// A PersistentVolumeClaim template for the metrics WAL.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedPersistentVolumeClaim {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<EmbeddedObjectMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<k8s_openapi::api::core::v1::PersistentVolumeClaimSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<k8s_openapi::api::core::v1::PersistentVolumeClaimStatus>,
}

/// Where the metrics WAL lives.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StorageSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_mount_sub_path: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty_dir: Option<k8s_openapi::api::core::v1::EmptyDirVolumeSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ephemeral: Option<k8s_openapi::api::core::v1::EphemeralVolumeSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_claim_template: Option<EmbeddedPersistentVolumeClaim>,
}
