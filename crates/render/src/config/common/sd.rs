//! `kubernetes_sd_configs` entries and the namespaces they cover.

use api::prometheus::ApiServerConfig;
use api::selectors::NamespaceSelector;
use serde::Serialize;

use super::FieldError;
use super::auth::{AuthorizationOut, BasicAuthOut, basic_auth_inline, bearer_authorization};
use super::secrets::Secrets;
use super::tls::{TlsConfigOut, check_tls_pair, full_tls};
use crate::rejection::Reason;

/// The namespaces a monitor's service discovery covers (spec 4.5); empty means all.
pub fn sd_namespaces(
    selector: Option<&NamespaceSelector>,
    own: &str,
    ignore_selectors: bool,
) -> Vec<String> {
    match selector {
        _ if ignore_selectors => vec![own.to_owned()],
        Some(s) if s.any => Vec::new(),
        Some(s) if !s.match_names.is_empty() => s.match_names.clone(),
        _ => vec![own.to_owned()],
    }
}

/// `namespaces: {names: [...]}` of a kubernetes_sd_configs entry.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct SdNamespaces {
    pub names: Vec<String>,
}

/// One `kubernetes_sd_configs` entry (spec 4.5).
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct KubernetesSdConfig {
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespaces: Option<SdNamespaces>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_server: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuthOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization: Option<AuthorizationOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfigOut>,
    /// A monitor's `attachMetadata` (only `node: true` is written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attach_metadata: Option<AttachMetadataOut>,
    /// A monitor's selector with `selectorMechanism: RoleSelector`, asked of the API server.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub selectors: Vec<SdSelector>,
}

/// `attach_metadata` of a kubernetes_sd_configs entry.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct AttachMetadataOut {
    pub node: bool,
}

/// One `selectors` entry of a kubernetes_sd_configs entry: a Kubernetes label selector
/// (`a=b,c in (d,e)`) for the objects of `role`.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct SdSelector {
    pub role: String,
    pub label: String,
}

/// A kubernetes_sd_configs entry for `role` over `namespaces` (empty: all), reaching the API
/// through the agent's `apiServer` when set; its secrets resolve in the agent's namespace, so
/// errors here belong to the GrafanaAgent (fields under `spec.apiServer`).
pub fn kubernetes_sd(
    role: &str,
    namespaces: Vec<String>,
    api_server: Option<&ApiServerConfig>,
    agent_secrets: Secrets<'_>,
) -> Result<KubernetesSdConfig, FieldError> {
    let mut sd = KubernetesSdConfig {
        role: role.to_owned(),
        namespaces: (!namespaces.is_empty()).then_some(SdNamespaces { names: namespaces }),
        ..Default::default()
    };
    if let Some(api) = api_server {
        sd.api_server = Some(api.host.clone()).filter(|h| !h.is_empty());
        sd.basic_auth = api
            .basic_auth
            .as_ref()
            .map(|b| basic_auth_inline(b, agent_secrets, "spec.apiServer.basicAuth"))
            .transpose()?;
        sd.authorization = bearer_authorization(&api.bearer_token, &api.bearer_token_file);
        sd.tls_config = api
            .tls_config
            .as_ref()
            .map(|t| full_tls(t, agent_secrets, "spec.apiServer.tlsConfig"))
            .transpose()?;
        check_api_server_sd(&sd)?;
    }
    Ok(sd)
}

/// Rejects `spec.apiServer` settings Prometheus (and promtail, whose discovery is the same
/// code) refuses in a `kubernetes_sd_configs` entry, and with it the whole config.
fn check_api_server_sd(sd: &KubernetesSdConfig) -> Result<(), FieldError> {
    if sd.basic_auth.is_some() && sd.authorization.is_some() {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            "spec.apiServer",
            "sets basicAuth and a bearer token; Prometheus accepts only one",
        ));
    }
    if let Some(a) = &sd.authorization
        && a.credentials.is_some()
        && a.credentials_file.is_some()
    {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            "spec.apiServer",
            "sets both bearerToken and bearerTokenFile; Prometheus accepts only one",
        ));
    }
    let custom_http = sd.basic_auth.is_some()
        || sd.authorization.is_some()
        || sd
            .tls_config
            .as_ref()
            .is_some_and(|t| *t != TlsConfigOut::default());
    if sd.api_server.is_none() && custom_http {
        return Err(FieldError::new(
            "spec.apiServer.host",
            "is empty, but credentials or TLS settings are set; Kubernetes discovery accepts \
             them only with an explicit API server address",
        ));
    }
    check_tls_pair(sd.tls_config.as_ref(), "spec.apiServer.tlsConfig")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_server_credentials_need_an_api_server_address() {
        let bearer = KubernetesSdConfig {
            authorization: bearer_authorization(&Some("t0ken".into()), &None),
            ..Default::default()
        };
        let e = check_api_server_sd(&bearer).expect_err("no host");
        assert_eq!(e.field, "spec.apiServer.host");
        assert!(
            e.message.contains("explicit API server address"),
            "{}",
            e.message
        );
        let with_host = KubernetesSdConfig {
            api_server: Some("https://kubernetes.default.svc".into()),
            ..bearer
        };
        assert!(check_api_server_sd(&with_host).is_ok());
        let empty_tls = KubernetesSdConfig {
            tls_config: Some(TlsConfigOut::default()),
            ..Default::default()
        };
        assert!(
            check_api_server_sd(&empty_tls).is_ok(),
            "an empty tlsConfig is the default"
        );
        let skip_verify = KubernetesSdConfig {
            tls_config: Some(TlsConfigOut {
                insecure_skip_verify: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert!(check_api_server_sd(&skip_verify).is_err());
    }

    #[test]
    fn sd_namespaces_follow_spec_4_5() {
        let any = NamespaceSelector {
            any: true,
            match_names: vec![],
        };
        let names = NamespaceSelector {
            any: false,
            match_names: vec!["b".into(), "a".into()],
        };
        assert_eq!(sd_namespaces(Some(&any), "own", true), vec!["own"]);
        assert!(sd_namespaces(Some(&any), "own", false).is_empty());
        assert_eq!(sd_namespaces(Some(&names), "own", false), vec!["b", "a"]);
        assert_eq!(sd_namespaces(None, "own", false), vec!["own"]);
    }
}
