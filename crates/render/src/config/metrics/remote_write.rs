//! `remote_write` entries (spec 4.4), for the GrafanaAgent's global list and each
//! MetricsInstance's own.

use std::collections::BTreeMap;

use api::metrics_instance::RemoteWriteSpec;
use serde::Serialize;

use crate::config::common::{
    AuthorizationOut, BasicAuthOut, FieldError, OAuth2Out, RelabelRule, Secrets, TlsConfigOut,
    basic_auth_password_file, bearer_authorization, full_tls, non_empty, oauth2, optional_value,
    user_relabel_rules,
};
use crate::rejection::{Reason, Rejection};

use super::scrape::check_tls_pair;
use super::validate::check_prometheus_duration;

/// One `remote_write` entry of agent.yml.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct RemoteWriteConfig {
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote_timeout: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub write_relabel_configs: Vec<RelabelRule>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfigOut>,
    /// Username inlined, password as a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuthOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<OAuth2Out>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization: Option<AuthorizationOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigv4: Option<SigV4Out>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_config: Option<QueueConfigOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_config: Option<MetadataConfigOut>,
}

/// `sigv4`; `{}` when `sigv4` is set without fields (the agent then uses its defaults).
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct SigV4Out {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Inlined from a Secret (upstream's choice, Q18 kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_key: Option<String>,
    /// Inlined from a Secret (upstream's choice, Q18 kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role_arn: Option<String>,
}

/// `queue_config`: zero and empty values are omitted; `maxRetries` and `retryOnRateLimit`
/// are never rendered (as upstream).
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueConfigOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_shards: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_shards: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_samples_per_send: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_send_deadline: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_backoff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_backoff: Option<String>,
}

/// `metadata_config`; `send` is always written.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct MetadataConfigOut {
    pub send: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_interval: Option<String>,
}

/// Headers Prometheus sets itself and refuses in `remote_write.headers` (with the whole
/// config), compared without regard to case.
const RESERVED_HEADERS: [&str; 16] = [
    "host",
    "content-encoding",
    "content-length",
    "content-type",
    "user-agent",
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "www-authenticate",
    "accept-encoding",
    "x-prometheus-remote-write-version",
    "x-prometheus-remote-read-version",
    "x-amz-date",
    "x-amz-security-token",
    "x-amz-content-sha256",
];

/// Rejects the headers Prometheus would refuse: `Authorization` (set through basicAuth,
/// bearer tokens, oauth2 or sigv4 instead) and the ones it sets itself.
fn check_headers(headers: &BTreeMap<String, String>, field: &str) -> Result<(), FieldError> {
    for name in headers.keys() {
        let lower = name.to_ascii_lowercase();
        if lower == "authorization" {
            return Err(FieldError::new(
                format!("{field}.{name}"),
                "cannot be set as a header; use basicAuth, bearerToken, oauth2 or sigv4",
            ));
        }
        if RESERVED_HEADERS.contains(&lower.as_str()) {
            return Err(FieldError::new(
                format!("{field}.{name}"),
                "is a header Prometheus sets itself and refuses to let a config change",
            ));
        }
    }
    Ok(())
}

/// Renders `rw`, whose secrets resolve in `secrets.namespace`; `field` is its path
/// (e.g. `spec.remoteWrite[0]`). Fails on a missing secret value, an invalid rule or
/// duration, or a combination Prometheus refuses.
pub fn remote_write(
    rw: &RemoteWriteSpec,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<RemoteWriteConfig, FieldError> {
    if rw.url.is_empty() {
        return Err(FieldError::new(format!("{field}.url"), "must not be empty"));
    }
    check_headers(&rw.headers, &format!("{field}.headers"))?;
    let duration = |v: &Option<String>, name: &str| {
        check_prometheus_duration(v, &format!("{field}.{name}")).map(|_| non_empty(v))
    };
    let sigv4 = match &rw.sigv4 {
        None => None,
        Some(s) => {
            let key = |sel: &Option<api::selectors::SecretKeySelector>, name: &str| {
                optional_value(sel.as_ref(), secrets, &format!("{field}.sigv4.{name}"))
            };
            Some(SigV4Out {
                region: non_empty(&s.region),
                access_key: key(&s.access_key, "accessKey")?,
                secret_key: key(&s.secret_key, "secretKey")?,
                profile: non_empty(&s.profile),
                role_arn: non_empty(&s.role_arn),
            })
        }
    };
    let queue_config = match &rw.queue_config {
        None => None,
        Some(q) => {
            // Prometheus sizes its queues from these without checking them: a negative one
            // would stop the agent, so it leaves out this entry instead.
            let number = |n: Option<i64>, name: &str| match n {
                Some(n) if n < 0 => Err(FieldError::new(
                    format!("{field}.queueConfig.{name}"),
                    format!("{n} is negative"),
                )),
                n => Ok(n.filter(|n| *n != 0)),
            };
            Some(QueueConfigOut {
                capacity: number(q.capacity, "capacity")?,
                max_shards: number(q.max_shards, "maxShards")?,
                min_shards: number(q.min_shards, "minShards")?,
                max_samples_per_send: number(q.max_samples_per_send, "maxSamplesPerSend")?,
                batch_send_deadline: duration(
                    &q.batch_send_deadline,
                    "queueConfig.batchSendDeadline",
                )?,
                min_backoff: duration(&q.min_backoff, "queueConfig.minBackoff")?,
                max_backoff: duration(&q.max_backoff, "queueConfig.maxBackoff")?,
            })
        }
    };
    let out = RemoteWriteConfig {
        url: rw.url.clone(),
        name: non_empty(&rw.name),
        remote_timeout: duration(&rw.remote_timeout, "remoteTimeout")?,
        headers: rw.headers.clone(),
        write_relabel_configs: user_relabel_rules(
            &rw.write_relabel_configs,
            &format!("{field}.writeRelabelConfigs"),
        )?,
        tls_config: rw
            .tls_config
            .as_ref()
            .map(|t| full_tls(t, secrets, &format!("{field}.tlsConfig")))
            .transpose()?,
        basic_auth: rw
            .basic_auth
            .as_ref()
            .map(|b| basic_auth_password_file(b, secrets, &format!("{field}.basicAuth")))
            .transpose()?,
        oauth2: rw
            .oauth2
            .as_ref()
            .map(|o| oauth2(o, secrets, &format!("{field}.oauth2")))
            .transpose()?,
        authorization: bearer_authorization(&rw.bearer_token, &rw.bearer_token_file),
        sigv4,
        proxy_url: non_empty(&rw.proxy_url),
        queue_config,
        metadata_config: match &rw.metadata_config {
            None => None,
            Some(m) => Some(MetadataConfigOut {
                send: m.send,
                send_interval: duration(&m.send_interval, "metadataConfig.sendInterval")?,
            }),
        },
    };
    let auths: Vec<&str> = [
        ("basicAuth", out.basic_auth.is_some()),
        ("oauth2", out.oauth2.is_some()),
        ("bearerToken/bearerTokenFile", out.authorization.is_some()),
        ("sigv4", out.sigv4.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    if auths.len() > 1 {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            field,
            format!(
                "sets {}; Prometheus accepts at most one way to authenticate per remote_write",
                auths.join(" and ")
            ),
        ));
    }
    if let Some(a) = &out.authorization
        && a.credentials.is_some()
        && a.credentials_file.is_some()
    {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            field,
            "sets both bearerToken and bearerTokenFile; Prometheus accepts only one",
        ));
    }
    check_tls_pair(out.tls_config.as_ref(), &format!("{field}.tlsConfig"))?;
    Ok(out)
}

/// Renders every entry of `specs` (at `field`, e.g. `spec.remoteWrite`); each one that fails,
/// or that reuses an earlier entry's name, is left out and reported against `owner`.
/// `None` when entries were given but none could be rendered.
pub fn remote_writes(
    specs: &[RemoteWriteSpec],
    secrets: Secrets<'_>,
    field: &str,
    owner: &crate::input_ref::InputRef,
    rejections: &mut Vec<Rejection>,
) -> Option<Vec<RemoteWriteConfig>> {
    let mut out: Vec<RemoteWriteConfig> = Vec::new();
    for (i, rw) in specs.iter().enumerate() {
        let entry_field = format!("{field}[{i}]");
        match remote_write(rw, secrets, &entry_field) {
            Ok(rendered) => {
                if let Some(name) = &rendered.name
                    && out.iter().any(|o| o.name.as_ref() == Some(name))
                {
                    rejections.push(Rejection::new(
                        owner.clone(), Reason::DuplicateName,
                        format!("{entry_field}.name"),
                        format!(
                            "the name {name:?} is already used by an earlier remote_write; the entry is left out"
                        ),
                    ));
                    continue;
                }
                out.push(rendered);
            }
            // The message as is: a missing secret value then reads exactly as discovery
            // reported it, and the two merge.
            Err(e) => rejections.push(Rejection::of_field(owner.clone(), e)),
        }
    }
    (specs.is_empty() || !out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::Assets;

    fn with_headers(headers: &[(&str, &str)]) -> Result<RemoteWriteConfig, FieldError> {
        let rw = RemoteWriteSpec {
            url: "https://metrics.example/api/v1/push".to_owned(),
            headers: headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            ..Default::default()
        };
        let assets = Assets::default();
        let secrets = Secrets {
            assets: &assets,
            namespace: "ns",
        };
        remote_write(&rw, secrets, "spec.remoteWrite[0]")
    }

    #[test]
    fn headers_prometheus_refuses_reject_the_entry_and_others_pass() {
        let ok = with_headers(&[("X-Scope-OrgID", "tenant-1")]).expect("a custom header");
        assert_eq!(ok.headers["X-Scope-OrgID"], "tenant-1");
        let auth = with_headers(&[("authorization", "Bearer x")]).expect_err("authorization");
        assert_eq!(auth.field, "spec.remoteWrite[0].headers.authorization");
        assert!(auth.message.contains("basicAuth"), "{}", auth.message);
        let reserved = with_headers(&[("User-Agent", "me")]).expect_err("reserved");
        assert_eq!(reserved.field, "spec.remoteWrite[0].headers.User-Agent");
        let version = with_headers(&[("X-Prometheus-Remote-Write-Version", "2.0.0")]);
        assert!(version.is_err());
    }

    #[test]
    fn a_negative_queue_size_rejects_the_entry() {
        let rw = RemoteWriteSpec {
            url: "https://metrics.example/api/v1/push".to_owned(),
            queue_config: Some(api::metrics_instance::QueueConfig {
                max_shards: Some(-1),
                ..Default::default()
            }),
            ..Default::default()
        };
        let assets = Assets::default();
        let secrets = Secrets {
            assets: &assets,
            namespace: "ns",
        };
        let e = remote_write(&rw, secrets, "spec.remoteWrite[0]").expect_err("negative");
        assert_eq!(e.field, "spec.remoteWrite[0].queueConfig.maxShards");
        assert_eq!(e.message, "-1 is negative");
    }
}
