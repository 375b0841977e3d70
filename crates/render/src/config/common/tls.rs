//! `tls_config` blocks.

use api::prometheus::{SafeTlsConfig, TlsConfig};
use api::selectors::SecretOrConfigMap;
use serde::Serialize;

use super::FieldError;
use super::secrets::{Secrets, non_empty};

/// `tls_config` in agent.yml.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsConfigOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cert_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub insecure_skip_verify: Option<bool>,
}

/// SafeTLSConfig: every file comes from a Secret or ConfigMap, by path (spec 4.6).
pub fn safe_tls(
    tls: &SafeTlsConfig,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<TlsConfigOut, FieldError> {
    let path_of = |s: &Option<SecretOrConfigMap>, name: &str| match s {
        Some(s) => secrets.path_of(s, &format!("{field}.{name}")),
        None => Ok(None),
    };
    Ok(TlsConfigOut {
        ca_file: path_of(&tls.ca, "ca")?,
        cert_file: path_of(&tls.cert, "cert")?,
        key_file: match &tls.key_secret {
            Some(k) => secrets.path(k, &format!("{field}.keySecret"))?,
            None => None,
        },
        server_name: non_empty(&tls.server_name),
        insecure_skip_verify: tls.insecure_skip_verify.filter(|v| *v),
    })
}

/// Full TLSConfig: literal files win over the Secret-backed paths (spec 4.6).
pub fn full_tls(
    tls: &TlsConfig,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<TlsConfigOut, FieldError> {
    let mut out = safe_tls(&tls.safe, secrets, field)?;
    let literal = |s: &Option<String>, current: Option<String>| non_empty(s).or(current);
    out.ca_file = literal(&tls.ca_file, out.ca_file);
    out.cert_file = literal(&tls.cert_file, out.cert_file);
    out.key_file = literal(&tls.key_file, out.key_file);
    Ok(out)
}

/// Rejects a client certificate without its key or the reverse: Prometheus refuses it.
pub fn check_tls_pair(tls: Option<&TlsConfigOut>, field: &str) -> Result<(), FieldError> {
    if let Some(t) = tls
        && t.cert_file.is_some() != t.key_file.is_some()
    {
        let (has, lacks) = if t.cert_file.is_some() {
            ("a client certificate", "its key")
        } else {
            ("a client key", "its certificate")
        };
        return Err(FieldError::new(
            field,
            format!("sets {has} without {lacks}; Prometheus refuses it"),
        ));
    }
    Ok(())
}
