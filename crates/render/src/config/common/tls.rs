//! `tls_config` blocks.

use api::Runtime;
use api::prometheus::{
    EndpointTlsConfig, SafeTlsConfig, ScrapeTlsConfig, TLS_VERSIONS, TlsConfig, TlsVersions,
};
use api::selectors::SecretOrConfigMap;
use serde::Serialize;

use super::FieldError;
use super::secrets::{Secrets, non_empty};
use crate::rejection::Reason;

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
    /// From the `monitoring.coreos.com` kinds' `minVersion` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_version: Option<String>,
    /// The agent only: Alloy has no such setting (its converter refuses it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_version: Option<String>,
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
        min_version: None,
        max_version: None,
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

/// A monitor's, Probe's or ScrapeConfig's `tlsConfig` (prometheus-operator's SafeTLSConfig):
/// the Secret-backed files and the TLS versions for `runtime` ([`tls_versions`]).
pub fn scrape_tls(
    runtime: Runtime,
    tls: &ScrapeTlsConfig,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<TlsConfigOut, FieldError> {
    let files = safe_tls(&tls.safe, secrets, field)?;
    with_versions(runtime, &tls.versions, field, files)
}

/// A ServiceMonitor endpoint's `tlsConfig`: [`full_tls`] and the TLS versions for `runtime`.
pub fn endpoint_tls(
    runtime: Runtime,
    tls: &EndpointTlsConfig,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<TlsConfigOut, FieldError> {
    let files = full_tls(&tls.tls, secrets, field)?;
    with_versions(runtime, &tls.versions, field, files)
}

fn with_versions(
    runtime: Runtime,
    versions: &TlsVersions,
    field: &str,
    files: TlsConfigOut,
) -> Result<TlsConfigOut, FieldError> {
    let (min_version, max_version) = tls_versions(runtime, versions, field)?;
    Ok(TlsConfigOut {
        min_version,
        max_version,
        ..files
    })
}

/// `min_version` and `max_version` as written for `runtime`, checked as Prometheus checks
/// them: a version it does not know, or a highest version below the lowest, would make it
/// refuse the whole config, so either fails the object. `max_version` is left out for Alloy,
/// which has no such setting: the object gets a warning instead.
pub fn tls_versions(
    runtime: Runtime,
    versions: &TlsVersions,
    field: &str,
) -> Result<(Option<String>, Option<String>), FieldError> {
    let min_version = non_empty(&versions.min_version);
    let max_version = non_empty(&versions.max_version);
    let rank = |v: &Option<String>, name: &str| -> Result<Option<usize>, FieldError> {
        let Some(v) = v else { return Ok(None) };
        match TLS_VERSIONS.iter().position(|known| known == v) {
            Some(rank) => Ok(Some(rank)),
            None => Err(FieldError::because(
                Reason::InvalidValue,
                format!("{field}.{name}"),
                format!("{v:?} is not a TLS version Prometheus knows (TLS10 to TLS13)"),
            )),
        }
    };
    if let (Some(min), Some(max)) = (
        rank(&min_version, "minVersion")?,
        rank(&max_version, "maxVersion")?,
    ) && max < min
    {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            field,
            "maxVersion is below minVersion; Prometheus refuses it",
        ));
    }
    Ok((
        min_version,
        max_version.filter(|_| runtime == Runtime::Agent),
    ))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn versions(min: Option<&str>, max: Option<&str>) -> TlsVersions {
        TlsVersions {
            min_version: min.map(str::to_owned),
            max_version: max.map(str::to_owned),
        }
    }

    /// Issue 36: the agent takes both versions, Alloy the lowest only; what Prometheus would
    /// refuse fails the object, naming the field, on both runtimes.
    #[test]
    fn tls_versions_are_written_per_runtime_and_checked_as_prometheus_does() {
        let both = versions(Some("TLS12"), Some("TLS13"));
        let agent = tls_versions(Runtime::Agent, &both, "f").expect("valid");
        assert_eq!(agent, (Some("TLS12".into()), Some("TLS13".into())));
        let alloy = tls_versions(Runtime::Alloy, &both, "f").expect("valid");
        assert_eq!(alloy, (Some("TLS12".into()), None));
        let empty = versions(Some(""), None);
        assert_eq!(
            tls_versions(Runtime::Agent, &empty, "f").expect("valid"),
            (None, None)
        );
        for runtime in [Runtime::Agent, Runtime::Alloy] {
            let unknown = tls_versions(runtime, &versions(None, Some("TLS14")), "f")
                .expect_err("unknown version");
            assert_eq!(
                (unknown.reason, unknown.field.as_str()),
                (Reason::InvalidValue, "f.maxVersion")
            );
            let inverted = tls_versions(runtime, &versions(Some("TLS13"), Some("TLS10")), "f")
                .expect_err("max below min");
            assert_eq!(
                (inverted.reason, inverted.field.as_str()),
                (Reason::ConflictingSettings, "f")
            );
        }
    }
}
