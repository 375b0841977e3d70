//! Loki clients of a logs instance (spec 4.12).

use std::collections::BTreeMap;

use api::logs_instance::LogsClientSpec;
use serde::Serialize;

use crate::config::common::{
    BasicAuthOut, FieldError, OAuth2Out, Secrets, TlsConfigOut, basic_auth_inline, full_tls,
    non_empty, oauth2,
};
use crate::config::metrics::scrape::check_tls_pair;
use crate::config::metrics::validate::{go_duration, is_label_name};
use crate::rejection::Reason;

/// The external label a client adds when `logsExternalLabelName` is unset.
pub const DEFAULT_CLUSTER_LABEL: &str = "cluster";

/// One `clients` entry of a logs instance.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientConfig {
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenant_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batchwait: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batchsize: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuthOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<OAuth2Out>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bearer_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bearer_token_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfigOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backoff_config: Option<BackoffConfig>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub external_labels: BTreeMap<String, String>,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct BackoffConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_period: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_period: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<i64>,
}

/// The `(name, value)` of the label identifying the agent on every client: the name is
/// `logsExternalLabelName` (unset → `cluster`, empty → no label), the value
/// `<agent namespace>/<agent name>`.
pub fn cluster_label(
    logs_external_label_name: Option<&str>,
    agent_namespace: &str,
    agent_name: &str,
) -> Option<(String, String)> {
    let name = logs_external_label_name.unwrap_or(DEFAULT_CLUSTER_LABEL);
    (!name.is_empty()).then(|| (name.to_owned(), format!("{agent_namespace}/{agent_name}")))
}

/// Renders one client; `secrets` resolve in the namespace of the object holding the client
/// (the LogsInstance, or the GrafanaAgent for its global clients), `field` is its JSON path.
///
/// An empty URL, a secret that cannot be read, an oauth2 client id that cannot be read (even
/// an optional one: the agent refuses oauth2 without it), or a client certificate without its
/// key (or the reverse) fails the client. Values the agent would refuse (a duration it cannot
/// parse, an invalid label name) are left out and added to `problems`: the agent's default
/// applies instead of the whole config being refused.
pub fn client(
    c: &LogsClientSpec,
    cluster_label: Option<&(String, String)>,
    secrets: Secrets<'_>,
    field: &str,
    problems: &mut Vec<FieldError>,
) -> Result<ClientConfig, FieldError> {
    if c.url.is_empty() {
        return Err(FieldError::new(format!("{field}.url"), "must not be empty"));
    }
    let mut duration = |value: &Option<String>, name: &str| -> Option<String> {
        let text = non_empty(value)?;
        match go_duration(&text) {
            Ok(_) => Some(text),
            Err(e) => {
                problems.push(FieldError::because(
                    Reason::InvalidDuration,
                    format!("{field}.{name}"),
                    format!("{e}; left out, the agent's default applies"),
                ));
                None
            }
        }
    };
    let batchwait = duration(&c.batch_wait, "batchWait");
    let timeout = duration(&c.timeout, "timeout");
    let backoff_config = c.backoff_config.as_ref().map(|b| BackoffConfig {
        min_period: duration(&b.min_period, "backoffConfig.minPeriod"),
        max_period: duration(&b.max_period, "backoffConfig.maxPeriod"),
        max_retries: b.max_retries.filter(|n| *n != 0),
    });
    // The cluster label goes in first so that the client's own labels can overwrite it.
    let mut external_labels: BTreeMap<String, String> =
        cluster_label.cloned().into_iter().collect();
    for (name, value) in &c.external_labels {
        if is_label_name(name) {
            external_labels.insert(name.clone(), value.clone());
        } else {
            problems.push(FieldError::because(
                Reason::InvalidLabelName,
                crate::config::common::key_path(&format!("{field}.externalLabels"), name),
                format!("{name:?} is not a valid label name; the external label is left out"),
            ));
        }
    }
    let tls_config = c
        .tls_config
        .as_ref()
        .map(|t| full_tls(t, secrets, &format!("{field}.tlsConfig")))
        .transpose()?;
    // The agent fails the whole logs instance on a certificate without its key.
    check_tls_pair(tls_config.as_ref(), &format!("{field}.tlsConfig"))?;
    let out = ClientConfig {
        url: c.url.clone(),
        tenant_id: non_empty(&c.tenant_id),
        batchwait,
        batchsize: c.batch_size.filter(|n| *n != 0),
        timeout,
        basic_auth: c
            .basic_auth
            .as_ref()
            .map(|b| basic_auth_inline(b, secrets, &format!("{field}.basicAuth")))
            .transpose()?,
        oauth2: c
            .oauth2
            .as_ref()
            .map(|o| oauth2(o, secrets, &format!("{field}.oauth2")))
            .transpose()?,
        bearer_token: non_empty(&c.bearer_token),
        bearer_token_file: non_empty(&c.bearer_token_file),
        proxy_url: non_empty(&c.proxy_url),
        tls_config,
        backoff_config,
        external_labels,
    };
    check_auth(&out, field)?;
    Ok(out)
}

/// The agent's check of a client's HTTP settings (Prometheus' `HTTPClientConfig.Validate`,
/// which promtail's client config calls on load): it refuses the whole config, and with it
/// every logs instance of the agent, over a client that sets two ways to authenticate.
fn check_auth(out: &ClientConfig, field: &str) -> Result<(), FieldError> {
    let conflict = |message: &str, agent: &str| {
        Err(FieldError::because(
            Reason::ConflictingSettings,
            field,
            format!("{message} (the agent refuses the whole config over it: {agent:?})"),
        ))
    };
    if out.bearer_token.is_some() && out.bearer_token_file.is_some() {
        return conflict(
            "sets both bearerToken and bearerTokenFile; the agent accepts only one",
            "at most one of bearer_token & bearer_token_file must be configured",
        );
    }
    let bearer = out.bearer_token.is_some() || out.bearer_token_file.is_some();
    let auths: Vec<&str> = [
        ("basicAuth", out.basic_auth.is_some()),
        ("oauth2", out.oauth2.is_some()),
        ("bearerToken/bearerTokenFile", bearer),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    if auths.len() > 1 {
        return conflict(
            &format!(
                "sets {}; the agent accepts at most one way to authenticate per client",
                auths.join(" and ")
            ),
            "at most one of basic_auth, oauth2, bearer_token & bearer_token_file must be configured",
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::Assets;

    #[test]
    fn cluster_label_name_defaults_to_cluster_and_empty_disables_it() {
        assert_eq!(
            cluster_label(None, "telemetry", "grafana-agent"),
            Some(("cluster".into(), "telemetry/grafana-agent".into()))
        );
        assert_eq!(
            cluster_label(Some("k8s"), "a", "b"),
            Some(("k8s".into(), "a/b".into()))
        );
        assert_eq!(cluster_label(Some(""), "a", "b"), None);
    }

    #[test]
    fn client_labels_overwrite_the_cluster_label() {
        let assets = Assets::default();
        let secrets = Secrets {
            assets: &assets,
            namespace: "ns",
        };
        let spec = LogsClientSpec {
            url: "http://loki".into(),
            external_labels: BTreeMap::from([("cluster".into(), "mine".into())]),
            batch_size: Some(0),
            ..Default::default()
        };
        let label = cluster_label(None, "a", "b");
        let mut problems = Vec::new();
        let out = client(
            &spec,
            label.as_ref(),
            secrets,
            "spec.clients[0]",
            &mut problems,
        )
        .expect("renders");
        assert_eq!(out.external_labels["cluster"], "mine");
        assert_eq!(out.batchsize, None);
        assert!(problems.is_empty());
    }

    #[test]
    fn unusable_durations_and_label_names_are_left_out_and_reported() {
        let assets = Assets::default();
        let secrets = Secrets {
            assets: &assets,
            namespace: "ns",
        };
        let spec = LogsClientSpec {
            url: "http://loki".into(),
            batch_wait: Some("5 minutes".into()),
            timeout: Some("10s".into()),
            external_labels: BTreeMap::from([
                ("bad-name".into(), "x".into()),
                ("good".into(), "y".into()),
            ]),
            ..Default::default()
        };
        let mut problems = Vec::new();
        let out = client(&spec, None, secrets, "spec.clients[1]", &mut problems).expect("renders");
        assert_eq!(out.batchwait, None);
        assert_eq!(out.timeout.as_deref(), Some("10s"));
        assert_eq!(
            out.external_labels,
            BTreeMap::from([("good".to_string(), "y".to_string())])
        );
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.clients[1].batchWait",
                "spec.clients[1].externalLabels.bad-name"
            ]
        );
    }
}
