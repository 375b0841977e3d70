//! What every generated scrape job shares: the output type, and the context (agent settings,
//! shard count, resolved secrets) each monitor's jobs are a pure function of.

use std::collections::BTreeMap;

use api::grafana_agent::GrafanaAgent;
use api::monitors::ScrapeEndpoint;
use api::{Runtime, ShardingStrategy};
use serde::Serialize;

use crate::assets::Assets;
pub use crate::config::common::check_tls_pair;
use crate::config::common::{
    AuthorizationOut, BasicAuthOut, FieldError, KubernetesSdConfig, OAuth2Out, RelabelRule,
    Secrets, TlsConfigOut, basic_auth_inline, honor_timestamps, kubernetes_sd, non_empty,
    safe_authorization, scrape_oauth2,
};
use crate::expansion::Strings;
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};
use crate::sharding;
use crate::sharding::effective_shards;

use super::validate::{self, DEFAULT_SCRAPE_INTERVAL_MS};

/// One generated Prometheus `scrape_configs` entry (spec 4.7-4.9). Keys in the order people
/// read a job: identity, timing, HTTP, discovery, auth, relabeling, limits.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct ScrapeConfig {
    pub job_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub honor_labels: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub honor_timestamps: Option<bool>,
    /// Only `true` is written (false is Prometheus' default); never for Alloy, whose
    /// converter refuses it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub track_timestamps_staleness: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scrape_interval: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scrape_timeout: Option<String>,
    /// Alloy only: the agent's Prometheus does not know the key.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scrape_protocols: Vec<String>,
    /// Alloy only, as `scrape_protocols`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback_scrape_protocol: Option<String>,
    /// The agent's (Prometheus 2) name of `scrapeClassicHistograms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scrape_classic_histograms: Option<bool>,
    /// Alloy's (Prometheus 3) name of `scrapeClassicHistograms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub always_scrape_classic_histograms: Option<bool>,
    /// Alloy only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub convert_classic_histograms_to_nhcb: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheme: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_proxy: Option<String>,
    /// Only `true` is written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy_from_environment: Option<bool>,
    /// Values inlined from Secrets, as `bearer_token` (Q18).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub proxy_connect_header: BTreeMap<String, Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_http2: Option<bool>,
    /// Only `false` is written: true is Prometheus' default (and upstream writes nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub follow_redirects: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kubernetes_sd_configs: Vec<KubernetesSdConfig>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub static_configs: Vec<StaticConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsConfigOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bearer_token_file: Option<String>,
    /// Inlined from a Secret (upstream's choice, Q18 kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bearer_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuthOut>,
    /// From the monitor's or Probe's `authorization`, credentials inlined (upstream renders
    /// none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization: Option<AuthorizationOut>,
    /// From a monitor's `oauth2` (upstream renders none): client id inlined, client secret a
    /// file of the assets Secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<OAuth2Out>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub relabel_configs: Vec<RelabelRule>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub metric_relabel_configs: Vec<RelabelRule>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_size_limit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_name_length_limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_value_length_limit: Option<u64>,
    /// The agent only: Alloy's converter refuses it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub native_histogram_bucket_limit: Option<u64>,
    /// Alloy only: the agent's Prometheus does not know the key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub native_histogram_min_bucket_factor: Option<Factor>,
    /// The agent only: Alloy's converter refuses it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_dropped_targets: Option<u64>,
    /// A ScrapeConfig's own settings and discoveries (none for the monitors' jobs), written
    /// last.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub scrape_config: Option<Box<super::scrape_config::ScrapeConfigJob>>,
}

/// A float that compares by its bits, so that jobs stay `Eq` (they are cached and compared).
#[derive(Serialize, Clone, Copy, Debug, Default)]
#[serde(transparent)]
pub struct Factor(pub f64);

impl PartialEq for Factor {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Factor {}

/// One `static_configs` entry.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct StaticConfig {
    pub targets: Vec<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
}

/// Everything besides the monitor itself that its scrape jobs depend on. Two equal contexts
/// give equal jobs for the same monitor, so jobs can be cached per (context, object).
#[derive(Clone, Debug)]
pub struct ScrapeContext<'a> {
    /// Resolved Secret/ConfigMap values (monitors resolve theirs in their own namespace).
    pub assets: &'a Assets,
    /// The GrafanaAgent, named in messages about its settings.
    pub agent: InputRef,
    /// `spec.metrics.overrideHonorLabels`.
    pub override_honor_labels: bool,
    /// `spec.metrics.overrideHonorTimestamps`.
    pub override_honor_timestamps: bool,
    /// `spec.metrics.ignoreNamespaceSelectors`.
    pub ignore_namespace_selectors: bool,
    /// `spec.metrics.enforcedNamespaceLabel`, when non-empty.
    pub enforced_namespace_label: Option<String>,
    /// `spec.metrics.enforcedSampleLimit`.
    pub enforced_sample_limit: Option<u64>,
    /// `spec.metrics.enforcedTargetLimit`.
    pub enforced_target_limit: Option<u64>,
    /// The effective shard count (at least 1).
    pub shards: u32,
    /// `spec.metrics.shardingStrategy` (default `hashmod`).
    pub sharding_strategy: ShardingStrategy,
    /// The scrape interval jobs without their own get (the agent's, else Prometheus' 1m),
    /// in milliseconds; used to check scrape timeouts.
    pub global_scrape_interval_ms: u64,
    /// The `kubernetes_sd_configs` fields that come from the agent's `spec.apiServer`
    /// (role and namespaces empty). `None` when they could not be rendered: that was
    /// reported against the GrafanaAgent, and jobs that need service discovery are left out.
    pub api_server_sd: Option<KubernetesSdConfig>,
    /// Set when an agent setting every job depends on is unusable (reported against the
    /// GrafanaAgent); then no monitor renders, rather than render them without it.
    pub unusable: Option<String>,
    /// How strings are written: escaped, unless the agent opts out (`expandUserStrings`).
    pub strings: Strings,
    /// What runs the config: which keys each runtime's parser accepts differs.
    pub runtime: Runtime,
    /// The scrape classes of the MetricsInstance whose monitors are rendered, resolved
    /// ([`ScrapeContext::for_instance`]); `None` when it defines none, so that a monitor two
    /// instances without classes select renders (and is cached) once.
    pub scrape_classes: Option<std::sync::Arc<super::monitor_settings::InstanceClasses>>,
}

impl<'a> ScrapeContext<'a> {
    /// The context of `agent`'s monitors. Problems with the agent's own settings are
    /// appended to `rejections` (against the GrafanaAgent), once.
    pub fn new(
        agent: &GrafanaAgent,
        assets: &'a Assets,
        rejections: &mut Vec<Rejection>,
    ) -> ScrapeContext<'a> {
        let agent_ref = InputRef::of(Kind::GrafanaAgent, agent);
        let metrics = agent.spec.metrics.as_ref();
        let agent_secrets = Secrets {
            assets,
            namespace: &agent_ref.namespace,
        };
        let api_server_sd = match kubernetes_sd(
            "",
            Vec::new(),
            agent.spec.api_server.as_ref(),
            agent_secrets,
        ) {
            Ok(sd) => Some(sd),
            Err(e) => {
                rejections.push(Rejection::new(
                        agent_ref.clone(), e.reason,
                        e.field,
                        format!(
                            "{}; no ServiceMonitor, PodMonitor or ingress Probe can be rendered without it",
                            e.message
                        ),
                    ));
                None
            }
        };
        let enforced_namespace_label = metrics.and_then(|m| non_empty(&m.enforced_namespace_label));
        let mut unusable = None;
        if let Some(label) = &enforced_namespace_label
            && !validate::is_label_name(label)
        {
            let message = format!(
                "{label:?} is not a valid label name; no ServiceMonitor, PodMonitor or Probe is rendered rather than rendered without the enforced label"
            );
            rejections.push(Rejection::new(
                agent_ref.clone(),
                Reason::InvalidLabelName,
                "spec.metrics.enforcedNamespaceLabel".to_owned(),
                message.clone(),
            ));
            unusable = Some(format!(
                "GrafanaAgent {}'s spec.metrics.enforcedNamespaceLabel is invalid (reported there)",
                agent_ref.key()
            ));
        }
        let global_scrape_interval_ms = metrics
            .and_then(|m| non_empty(&m.scrape_interval))
            .and_then(|i| validate::prometheus_duration(&i).ok())
            .unwrap_or(DEFAULT_SCRAPE_INTERVAL_MS);
        ScrapeContext {
            assets,
            override_honor_labels: metrics.is_some_and(|m| m.override_honor_labels),
            override_honor_timestamps: metrics.is_some_and(|m| m.override_honor_timestamps),
            ignore_namespace_selectors: metrics.is_some_and(|m| m.ignore_namespace_selectors),
            enforced_namespace_label,
            enforced_sample_limit: metrics.and_then(|m| m.enforced_sample_limit),
            enforced_target_limit: metrics.and_then(|m| m.enforced_target_limit),
            shards: u32::try_from(effective_shards(metrics)).unwrap_or(1),
            sharding_strategy: metrics
                .and_then(|m| m.sharding_strategy)
                .unwrap_or_default(),
            global_scrape_interval_ms,
            api_server_sd,
            unusable,
            strings: Strings::of(agent),
            runtime: agent.spec.runtime.unwrap_or_default(),
            scrape_classes: None,
            agent: agent_ref,
        }
    }

    /// The context of `instance`'s monitors: this one with the instance's scrape classes.
    pub fn for_instance(&self, instance: &api::MetricsInstance) -> ScrapeContext<'a> {
        ScrapeContext {
            scrape_classes: super::monitor_settings::InstanceClasses::of(self, instance)
                .map(std::sync::Arc::new),
            ..self.clone()
        }
    }

    /// Secret lookups in `namespace` (the monitor's).
    pub fn secrets<'s>(&'s self, namespace: &'s str) -> Secrets<'s> {
        Secrets {
            assets: self.assets,
            namespace,
        }
    }

    /// A `kubernetes_sd_configs` entry for `role` over `namespaces` (empty: all).
    pub fn kubernetes_sd(
        &self,
        role: &str,
        namespaces: Vec<String>,
    ) -> Result<KubernetesSdConfig, String> {
        let base = self.api_server_sd.as_ref().ok_or_else(|| {
            format!(
                "not rendered: GrafanaAgent {}'s spec.apiServer cannot be rendered (reported there)",
                self.agent.key()
            )
        })?;
        Ok(KubernetesSdConfig {
            role: role.to_owned(),
            namespaces: (!namespaces.is_empty())
                .then_some(crate::config::common::SdNamespaces { names: namespaces }),
            ..base.clone()
        })
    }

    /// The two sharding rules every monitor job ends with, hashing `source_label`.
    pub fn sharding_rules(&self, source_label: &str) -> Vec<RelabelRule> {
        sharding::relabel_rules(self.sharding_strategy, self.shards, source_label)
    }

    /// The enforced namespace label rule (spec 4.7 step 18), when configured.
    pub fn enforced_namespace_rule(&self, namespace: &str) -> Option<RelabelRule> {
        self.enforced_namespace_label
            .as_deref()
            .map(|label| RelabelRule::set(label, namespace))
    }

    /// What a ServiceMonitor's or PodMonitor's job takes from the endpoint fields the two
    /// share (spec 4.7/4.8): timing, HTTP settings and proxy, bearer token, basic auth,
    /// authorization and OAuth2 from Secrets, metric relabelings, on top of `monitor` (what
    /// the job takes from the monitor's spec, [`super::monitor_settings::job_fields`]). The
    /// caller adds identity, discovery, TLS, relabeling and limits.
    pub fn endpoint_job_fields(
        &self,
        e: &ScrapeEndpoint,
        secrets: Secrets<'_>,
        field: &str,
        monitor: ScrapeConfig,
    ) -> Result<ScrapeConfig, FieldError> {
        let proxy = super::monitor_settings::proxy(e, secrets, field)?;
        Ok(ScrapeConfig {
            honor_labels: Some(e.honor_labels.unwrap_or(false) && !self.override_honor_labels),
            honor_timestamps: honor_timestamps(e, self.override_honor_timestamps),
            // Alloy's converter refuses the key (the monitor gets a warning instead).
            track_timestamps_staleness: (self.runtime == Runtime::Agent
                && e.track_timestamps_staleness == Some(true))
            .then_some(true),
            scrape_interval: non_empty(&e.interval),
            scrape_timeout: non_empty(&e.scrape_timeout),
            metrics_path: non_empty(&e.path),
            // prometheus-operator's CRDs accept `HTTP` and `HTTPS`; Prometheus only lower case.
            scheme: non_empty(&e.scheme).map(|s| s.to_ascii_lowercase()),
            params: e.params.clone(),
            proxy_url: proxy.proxy_url,
            no_proxy: proxy.no_proxy,
            proxy_from_environment: proxy.proxy_from_environment,
            proxy_connect_header: proxy.proxy_connect_header,
            enable_http2: (e.enable_http2 == Some(false)).then_some(false),
            follow_redirects: (e.follow_redirects == Some(false)).then_some(false),
            bearer_token: match &e.bearer_token_secret {
                Some(sel) if !sel.name.is_empty() => {
                    secrets.value(sel, &format!("{field}.bearerTokenSecret"))?
                }
                _ => None,
            },
            basic_auth: e
                .basic_auth
                .as_ref()
                .map(|b| basic_auth_inline(b, secrets, &format!("{field}.basicAuth")))
                .transpose()?,
            authorization: match &e.authorization {
                Some(a) => safe_authorization(a, secrets, &format!("{field}.authorization"))?,
                None => None,
            },
            oauth2: e
                .oauth2
                .as_ref()
                .map(|o| scrape_oauth2(self.runtime, o, secrets, &format!("{field}.oauth2")))
                .transpose()?,
            metric_relabel_configs: self.metric_relabels(
                e.metric_relabelings.as_deref(),
                &format!("{field}.metricRelabelings"),
            )?,
            ..monitor
        })
    }

    /// `metric_relabel_configs` (spec 4.7): present only when the monitor gave a list; rules
    /// that target the enforced namespace label are dropped; omitted when nothing is left.
    pub fn metric_relabels(
        &self,
        rules: Option<&[api::prometheus::RelabelConfig]>,
        field: &str,
    ) -> Result<Vec<RelabelRule>, FieldError> {
        let Some(rules) = rules else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            let targets_enforced = match (&self.enforced_namespace_label, &rule.target_label) {
                (Some(enforced), Some(target)) => !target.is_empty() && target == enforced,
                _ => false,
            };
            if !targets_enforced {
                out.push(crate::config::common::user_relabel_rule(
                    rule,
                    &format!("{field}[{i}]"),
                )?);
            }
        }
        Ok(out)
    }

    /// Refuses `object` when an agent setting every job depends on is unusable.
    pub fn check_usable(&self, object: &InputRef) -> Result<(), Rejection> {
        match &self.unusable {
            None => Ok(()),
            Some(reason) => Err(Rejection::new(
                object.clone(),
                Reason::AgentSettingUnusable,
                None,
                reason.clone(),
            )),
        }
    }
}

/// The rejection of `object` for `e`; an empty field names no field.
pub fn rejection(object: &InputRef, e: FieldError) -> Rejection {
    let field = (!e.field.is_empty()).then_some(e.field);
    Rejection::new(object.clone(), e.reason, field, e.message)
}

/// A sample or target limit (spec 4.10.3, with the Q4 fix): emitted when the monitor sets
/// one above 0 or the agent enforces one (as upstream); the value is the lower of the two
/// when both are set. An enforced 0 gives 0.
pub fn limit(monitor: Option<i64>, enforced: Option<u64>) -> Option<u64> {
    let monitor = monitor
        .filter(|m| *m > 0)
        .and_then(|m| u64::try_from(m).ok());
    match (monitor, enforced) {
        (None, None) => None,
        (Some(m), None) => Some(m),
        (None, Some(e)) => Some(e),
        (Some(m), Some(e)) => Some(m.min(e)),
    }
}

/// Rejects a job that sets more than one way to authenticate: Prometheus refuses it, and
/// with it the whole agent config.
pub fn check_single_auth(job: &ScrapeConfig, field: &str) -> Result<(), FieldError> {
    let set: Vec<&str> = [
        ("basicAuth", job.basic_auth.is_some()),
        ("bearerTokenSecret", job.bearer_token.is_some()),
        ("bearerTokenFile", job.bearer_token_file.is_some()),
        ("authorization", job.authorization.is_some()),
        ("oauth2", job.oauth2.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    if set.len() > 1 {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            field,
            format!(
                "sets {}; Prometheus accepts at most one of them per job",
                set.join(" and ")
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q4_enforced_limit_keeps_the_lower_monitor_limit() {
        // Upstream always takes the enforced value; we keep the lower one.
        assert_eq!(limit(Some(100), Some(1000)), Some(100));
        assert_eq!(limit(Some(5000), Some(1000)), Some(1000));
        // Emitted exactly when upstream emits it.
        assert_eq!(limit(None, None), None);
        assert_eq!(limit(Some(0), None), None);
        assert_eq!(limit(Some(7), None), Some(7));
        assert_eq!(limit(None, Some(1000)), Some(1000));
        assert_eq!(limit(Some(0), Some(1000)), Some(1000));
        // An enforced 0 renders 0, as upstream.
        assert_eq!(limit(None, Some(0)), Some(0));
        assert_eq!(limit(Some(50), Some(0)), Some(0));
    }
}
