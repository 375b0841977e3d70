//! ScrapeConfigs (prometheus-operator's monitoring.coreos.com/v1alpha1) → one scrape job each,
//! `scrapeConfig/<namespace>/<name>`, as prometheus-operator's generator writes it: the job
//! label copied to `__tmp_prometheus_job_name`, `jobName` as the `job` label, the user's
//! relabelings, the enforced namespace label, then sharding on `__address__`.
//!
//! The job is the same for both runtimes (Alloy converts the static config), so a setting is
//! written only when the agent v0.44.8 (Prometheus 2.x) and Alloy's converter both accept
//! it. The rest is either a warning ([`warnings`], the object runs without it) or rejects the
//! object, when running without it would scrape something other than asked. Discoveries other
//! than static, file, HTTP, Kubernetes, DNS, Consul and EC2 reject it, naming the field.

use std::collections::BTreeMap;

use api::Runtime;
use api::monitors::MonitorScrapeSettings;
use api::prometheus::{BasicAuth, ProxySettings, SafeAuthorization, ScrapeOAuth2, ScrapeTlsConfig};
use api::scrape_config::{
    ConsulSdConfig, DnsSdConfig, Ec2SdConfig, HttpSdConfig, KubernetesSdConfig, ScrapeConfigSpec,
};
use serde::Serialize;

pub use crate::config::common::ProxyOut;
use crate::config::common::{
    AuthorizationOut, BasicAuthOut, FieldError, OAuth2Out, RelabelRule, Secrets, TlsConfigOut,
    basic_auth_inline, check_tls_pair, non_empty, oauth2, proxy, safe_authorization, safe_tls,
    tls_versions, user_relabel_rules,
};
use crate::discover::Hierarchy;
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};

use super::monitor_settings::{
    ResolvedClass, class_relabelings, job_fields_with_class, monitor_warnings, scrape_class,
};
use super::scrape::{ScrapeConfig, ScrapeContext, StaticConfig, limit, rejection};
use super::service_monitor::job_name_copy;
use super::validate;

/// The settings of a ScrapeConfig's job that the monitors' jobs do not have, written after
/// them ([`ScrapeConfig::scrape_config`]).
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct ScrapeConfigJob {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_compression: Option<bool>,
    /// Written under `oauth2` (the monitors' field of that name is empty in a ScrapeConfig's
    /// job): with the token requests' proxy and TLS.
    #[serde(rename = "oauth2", skip_serializing_if = "Option::is_none")]
    pub oauth2_client: Option<OAuth2WithClientOut>,
    /// Written under `tls_config` (the monitors' field is empty): with the TLS versions.
    #[serde(rename = "tls_config", skip_serializing_if = "Option::is_none")]
    pub tls: Option<TlsOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub file_sd_configs: Vec<FileSdOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub http_sd_configs: Vec<HttpSdOut>,
    /// Written under `kubernetes_sd_configs`: the monitors' field of that name is empty in a
    /// ScrapeConfig's job.
    #[serde(
        rename = "kubernetes_sd_configs",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub kubernetes_sd: Vec<KubernetesSdOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub consul_sd_configs: Vec<ConsulSdOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dns_sd_configs: Vec<DnsSdOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ec2_sd_configs: Vec<Ec2SdOut>,
}

/// The HTTP client settings of a discovery.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpClientOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basic_auth: Option<BasicAuthOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization: Option<AuthorizationOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oauth2: Option<OAuth2WithClientOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsOut>,
    #[serde(flatten)]
    pub proxy: ProxyOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub follow_redirects: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_http2: Option<bool>,
}

/// A `tls_config` with the TLS versions.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsOut {
    #[serde(flatten)]
    pub files: TlsConfigOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_version: Option<String>,
}

/// `oauth2` with the proxy and TLS settings of its token requests.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct OAuth2WithClientOut {
    #[serde(flatten)]
    pub client: OAuth2Out,
    #[serde(flatten)]
    pub proxy: ProxyOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<TlsOut>,
}

/// One `file_sd_configs` entry.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSdOut {
    pub files: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_interval: Option<String>,
}

/// One `http_sd_configs` entry.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpSdOut {
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_interval: Option<String>,
    #[serde(flatten)]
    pub client: HttpClientOut,
}

/// One `kubernetes_sd_configs` entry of a ScrapeConfig.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct KubernetesSdOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_server: Option<String>,
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespaces: Option<NamespacesOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub selectors: Vec<SelectorOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attach_metadata: Option<AttachMetadataOut>,
    #[serde(flatten)]
    pub client: HttpClientOut,
}

/// `namespaces` of a Kubernetes discovery.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct NamespacesOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own_namespace: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
}

/// One `selectors` entry of a Kubernetes discovery.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct SelectorOut {
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// `attach_metadata` of a Kubernetes discovery.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct AttachMetadataOut {
    pub node: bool,
}

/// One `consul_sd_configs` entry.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct ConsulSdOut {
    pub server: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_prefix: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub datacenter: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheme: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub services: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag_separator: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub node_meta: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_stale: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_interval: Option<String>,
    #[serde(flatten)]
    pub client: HttpClientOut,
}

/// One `dns_sd_configs` entry.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct DnsSdOut {
    pub names: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_interval: Option<String>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
}

/// One `ec2_sd_configs` entry.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Ec2SdOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role_arn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_interval: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<Ec2FilterOut>,
    #[serde(flatten)]
    pub client: HttpClientOut,
}

/// One `filters` entry of an EC2 discovery.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Ec2FilterOut {
    pub name: String,
    pub values: Vec<String>,
}

/// The scrape job of `sc`, named `scrapeConfig/<ns>/<name>`, or why it is left out.
pub fn scrape_config_job(
    ctx: &ScrapeContext<'_>,
    sc: &api::ScrapeConfig,
) -> Result<ScrapeConfig, Rejection> {
    let object = InputRef::of(Kind::ScrapeConfig, sc);
    ctx.check_usable(&object)?;
    job(ctx, &sc.spec, &object).map_err(|e| rejection(&object, e))
}

/// The discoveries this operator does not render, by field name.
fn unrendered_discoveries(spec: &ScrapeConfigSpec) -> [(&'static str, usize); 16] {
    [
        ("azureSDConfigs", spec.azure_sd_configs.len()),
        ("gceSDConfigs", spec.gce_sd_configs.len()),
        ("openstackSDConfigs", spec.openstack_sd_configs.len()),
        ("digitalOceanSDConfigs", spec.digital_ocean_sd_configs.len()),
        ("kumaSDConfigs", spec.kuma_sd_configs.len()),
        ("eurekaSDConfigs", spec.eureka_sd_configs.len()),
        ("dockerSDConfigs", spec.docker_sd_configs.len()),
        ("linodeSDConfigs", spec.linode_sd_configs.len()),
        ("hetznerSDConfigs", spec.hetzner_sd_configs.len()),
        ("nomadSDConfigs", spec.nomad_sd_configs.len()),
        ("dockerSwarmSDConfigs", spec.docker_swarm_sd_configs.len()),
        ("puppetDBSDConfigs", spec.puppet_db_sd_configs.len()),
        ("lightSailSDConfigs", spec.light_sail_sd_configs.len()),
        ("ovhcloudSDConfigs", spec.ovhcloud_sd_configs.len()),
        ("scalewaySDConfigs", spec.scaleway_sd_configs.len()),
        ("ionosSDConfigs", spec.ionos_sd_configs.len()),
    ]
}

fn unsupported(field: impl Into<String>, message: impl Into<String>) -> FieldError {
    FieldError::because(Reason::InvalidValue, field, message)
}

fn check_settings_the_runtimes_lack(spec: &ScrapeConfigSpec) -> Result<(), FieldError> {
    if let Some((field, _)) = unrendered_discoveries(spec)
        .into_iter()
        .find(|(_, n)| *n > 0)
    {
        return Err(unsupported(
            format!("spec.{field}"),
            "this discovery is not rendered by agent-operator (static, file, HTTP, Kubernetes, \
             DNS, Consul and EC2 are); the ScrapeConfig is left out rather than scraped without \
             its targets",
        ));
    }
    if spec.name_validation_scheme.as_deref() == Some("UTF8") {
        return Err(unsupported(
            "spec.nameValidationScheme",
            "UTF8: the agent (Prometheus 2.x) accepts only legacy metric and label names; left \
             out rather than drop the samples with UTF-8 names",
        ));
    }
    for (i, c) in spec.consul_sd_configs.iter().enumerate() {
        for (name, value) in [("filter", &c.filter), ("healthFilter", &c.health_filter)] {
            if non_empty(value).is_some() {
                return Err(unsupported(
                    format!("spec.consulSDConfigs[{i}].{name}"),
                    "the agent's Consul discovery (Prometheus 2.x) refuses it and Alloy's \
                     converter drops it; left out rather than discover services the filter \
                     excludes",
                ));
            }
        }
    }
    Ok(())
}

fn job(
    ctx: &ScrapeContext<'_>,
    spec: &ScrapeConfigSpec,
    object: &InputRef,
) -> Result<ScrapeConfig, FieldError> {
    let ns = object.namespace.as_str();
    let secrets = ctx.secrets(ns);
    check_settings_the_runtimes_lack(spec)?;
    // The scrape class (the one named, else the instance's default; a name the instance
    // lacks rejects it) and the settings ServiceMonitors share, rendered as theirs are.
    let class = scrape_class(ctx, spec.scrape_class.as_deref())?;
    let shared = job_fields_with_class(
        ctx,
        &monitor_settings_of(spec),
        &spec.label_limits,
        class.as_ref(),
    )?;
    check_timing(ctx, spec)?;

    // As prometheus-operator's generator: the class's relabelings after the job label's copy.
    let mut relabel = vec![job_name_copy()];
    relabel.extend(class_relabelings(class.as_ref()));
    if let Some(job_name) = &spec.job_name {
        relabel.push(RelabelRule::set("job", job_name));
    }
    relabel.extend(user_relabel_rules(&spec.relabelings, "spec.relabelings")?);
    relabel.extend(ctx.enforced_namespace_rule(ns));
    relabel.extend(ctx.sharding_rules("__address__"));

    let mut client = http_client(
        ctx.runtime,
        secrets,
        "spec",
        spec.basic_auth.as_ref(),
        spec.authorization.as_ref(),
        spec.oauth2.as_ref(),
        spec.tls_config.as_ref(),
        &spec.proxy,
    )?;
    let mut metric_relabel_configs =
        ctx.metric_relabels(Some(&spec.metric_relabelings), "spec.metricRelabelings")?;
    if let Some(class) = &class {
        apply_scrape_class(class, &mut client, &mut metric_relabel_configs);
    }
    let agent = ctx.runtime == Runtime::Agent;
    let extra = ScrapeConfigJob {
        // The agent does not know the key (it always asks for compressed responses).
        enable_compression: spec.enable_compression.filter(|_| !agent),
        oauth2_client: client.oauth2,
        tls: client.tls_config,
        file_sd_configs: spec
            .file_sd_configs
            .iter()
            .enumerate()
            .map(|(i, f)| file_sd(f, &format!("spec.fileSDConfigs[{i}]")))
            .collect::<Result<_, _>>()?,
        http_sd_configs: spec
            .http_sd_configs
            .iter()
            .enumerate()
            .map(|(i, h)| http_sd(ctx.runtime, secrets, h, &format!("spec.httpSDConfigs[{i}]")))
            .collect::<Result<_, _>>()?,
        kubernetes_sd: spec
            .kubernetes_sd_configs
            .iter()
            .enumerate()
            .map(|(i, k)| {
                kubernetes_sd(
                    ctx,
                    secrets,
                    ns,
                    k,
                    &format!("spec.kubernetesSDConfigs[{i}]"),
                )
            })
            .collect::<Result<_, _>>()?,
        consul_sd_configs: spec
            .consul_sd_configs
            .iter()
            .enumerate()
            .map(|(i, c)| consul_sd(ctx, secrets, c, &format!("spec.consulSDConfigs[{i}]")))
            .collect::<Result<_, _>>()?,
        dns_sd_configs: spec
            .dns_sd_configs
            .iter()
            .enumerate()
            .map(|(i, d)| dns_sd(d, &format!("spec.dnsSDConfigs[{i}]")))
            .collect::<Result<_, _>>()?,
        ec2_sd_configs: spec
            .ec2_sd_configs
            .iter()
            .enumerate()
            .map(|(i, e)| ec2_sd(ctx.runtime, secrets, e, &format!("spec.ec2SDConfigs[{i}]")))
            .collect::<Result<_, _>>()?,
    };
    let job = ScrapeConfig {
        job_name: format!("scrapeConfig/{ns}/{}", object.name),
        honor_labels: spec.honor_labels.map(|h| h && !ctx.override_honor_labels),
        honor_timestamps: match (spec.honor_timestamps, ctx.override_honor_timestamps) {
            (None, false) => None,
            (None, true) => Some(false),
            (Some(v), o) => Some(v && !o),
        },
        scrape_interval: non_empty(&spec.scrape_interval),
        scrape_timeout: non_empty(&spec.scrape_timeout),
        metrics_path: non_empty(&spec.metrics_path),
        scheme: non_empty(&spec.scheme).map(|s| s.to_ascii_lowercase()),
        params: spec.params.clone(),
        proxy_url: client.proxy.proxy_url,
        no_proxy: client.proxy.no_proxy,
        proxy_from_environment: client.proxy.proxy_from_environment,
        proxy_connect_header: client.proxy.proxy_connect_header,
        enable_http2: spec.enable_http2,
        track_timestamps_staleness: spec.track_timestamps_staleness.filter(|t| *t && agent),
        static_configs: spec
            .static_configs
            .iter()
            .map(|s| StaticConfig {
                targets: s.targets.clone(),
                labels: s.labels.clone(),
            })
            .collect(),
        basic_auth: client.basic_auth,
        authorization: client.authorization,
        relabel_configs: relabel,
        metric_relabel_configs,
        sample_limit: limit(spec.sample_limit, ctx.enforced_sample_limit),
        target_limit: limit(spec.target_limit, ctx.enforced_target_limit),
        scrape_config: Some(Box::new(extra)),
        ..shared
    };
    Ok(job)
}

/// What a scrape class gives the job, as for monitors ([`super::monitor_settings::apply_class`]):
/// its TLS files where the ScrapeConfig sets none of its own, its authorization when the
/// ScrapeConfig sets no way to authenticate, its metric relabelings before the ScrapeConfig's.
fn apply_scrape_class(
    class: &ResolvedClass,
    client: &mut HttpClientOut,
    metric_relabel_configs: &mut Vec<RelabelRule>,
) {
    if let Ok(Some(tls)) = &class.tls {
        let files = &mut client.tls_config.get_or_insert_with(TlsOut::default).files;
        if files.ca_file.is_none() {
            files.ca_file.clone_from(&tls.ca_file);
        }
        if files.cert_file.is_none() {
            files.cert_file.clone_from(&tls.cert_file);
        }
        if files.key_file.is_none() {
            files.key_file.clone_from(&tls.key_file);
        }
    }
    let authenticates =
        client.basic_auth.is_some() || client.authorization.is_some() || client.oauth2.is_some();
    if !authenticates && let Ok(Some(auth)) = &class.authorization {
        client.authorization = Some(auth.clone());
    }
    if let Ok(rules) = &class.metric_relabelings
        && !rules.is_empty()
    {
        let mut all = rules.clone();
        all.append(metric_relabel_configs);
        *metric_relabel_configs = all;
    }
}

/// The settings a ScrapeConfig shares with ServiceMonitors, in their type.
fn monitor_settings_of(spec: &ScrapeConfigSpec) -> MonitorScrapeSettings {
    MonitorScrapeSettings {
        selector_mechanism: None,
        scrape_protocols: spec.scrape_protocols.clone(),
        fallback_scrape_protocol: spec.fallback_scrape_protocol.clone(),
        extra_scrape_metrics: spec.extra_scrape_metrics,
        native_histograms: spec.native_histograms.clone(),
        keep_dropped_targets: spec.keep_dropped_targets,
        scrape_class: spec.scrape_class.clone(),
        body_size_limit: spec.body_size_limit.clone(),
    }
}

/// The interval and timeout as Prometheus reads them: valid durations, the timeout not above
/// the interval (the job's, else the agent's global one).
fn check_timing(ctx: &ScrapeContext<'_>, spec: &ScrapeConfigSpec) -> Result<(), FieldError> {
    let interval =
        validate::check_prometheus_duration(&spec.scrape_interval, "spec.scrapeInterval")?;
    let timeout = validate::check_prometheus_duration(&spec.scrape_timeout, "spec.scrapeTimeout")?;
    if let Some(t) = timeout
        && t > interval.unwrap_or(ctx.global_scrape_interval_ms)
    {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            "spec.scrapeTimeout",
            "is longer than the scrape interval (the ScrapeConfig's, else the GrafanaAgent's \
             spec.metrics.scrapeInterval, default 1m); Prometheus refuses such a job",
        ));
    }
    Ok(())
}

/// The HTTP client settings at `field`, checked as Prometheus checks them: one way to
/// authenticate, a client certificate with its key, the proxy settings that go together.
#[allow(clippy::too_many_arguments)]
fn http_client(
    runtime: Runtime,
    secrets: Secrets<'_>,
    field: &str,
    basic_auth: Option<&BasicAuth>,
    authorization: Option<&SafeAuthorization>,
    oauth2_settings: Option<&ScrapeOAuth2>,
    tls_settings: Option<&ScrapeTlsConfig>,
    proxy_settings: &ProxySettings,
) -> Result<HttpClientOut, FieldError> {
    let out = HttpClientOut {
        basic_auth: basic_auth
            .map(|b| basic_auth_inline(b, secrets, &format!("{field}.basicAuth")))
            .transpose()?,
        authorization: match authorization {
            Some(a) => safe_authorization(a, secrets, &format!("{field}.authorization"))?,
            None => None,
        },
        oauth2: oauth2_settings
            .map(|o| {
                let f = format!("{field}.oauth2");
                Ok::<_, FieldError>(OAuth2WithClientOut {
                    client: oauth2(&o.client, secrets, &f)?,
                    proxy: proxy(&o.proxy, secrets, &f)?,
                    tls_config: o
                        .tls_config
                        .as_ref()
                        .map(|t| tls(runtime, secrets, t, &format!("{f}.tlsConfig")))
                        .transpose()?,
                })
            })
            .transpose()?,
        tls_config: tls_settings
            .map(|t| tls(runtime, secrets, t, &format!("{field}.tlsConfig")))
            .transpose()?,
        proxy: proxy(proxy_settings, secrets, field)?,
        follow_redirects: None,
        enable_http2: None,
    };
    let auth: Vec<&str> = [
        ("basicAuth", out.basic_auth.is_some()),
        ("authorization", out.authorization.is_some()),
        ("oauth2", out.oauth2.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, set)| set.then_some(name))
    .collect();
    if auth.len() > 1 {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            field,
            format!(
                "sets {}; Prometheus accepts at most one of them",
                auth.join(" and ")
            ),
        ));
    }
    Ok(out)
}

/// A `tls_config` from Secret and ConfigMap keys with its TLS versions; `max_version` only
/// for the agent (Alloy has none: a warning, [`warnings`]).
fn tls(
    runtime: Runtime,
    secrets: Secrets<'_>,
    t: &ScrapeTlsConfig,
    field: &str,
) -> Result<TlsOut, FieldError> {
    let files = safe_tls(&t.safe, secrets, field)?;
    check_tls_pair(Some(&files), field)?;
    let (min_version, max_version) = tls_versions(runtime, &t.versions, field)?;
    Ok(TlsOut {
        files,
        min_version,
        max_version,
    })
}

fn check_refresh(value: &Option<String>, field: &str) -> Result<Option<String>, FieldError> {
    validate::check_prometheus_duration(value, &format!("{field}.refreshInterval"))?;
    Ok(non_empty(value))
}

/// A path Prometheus' file discovery accepts: a JSON or YAML file, a `*` only in the last
/// element.
fn is_file_sd_path(path: &str) -> bool {
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    let extension_ok = [".json", ".yml", ".yaml", ".JSON", ".YML", ".YAML"]
        .iter()
        .any(|e| file.ends_with(e));
    !dir.contains('*') && file.matches('*').count() <= 1 && extension_ok
}

fn file_sd(f: &api::scrape_config::FileSdConfig, field: &str) -> Result<FileSdOut, FieldError> {
    if f.files.is_empty() {
        return Err(unsupported(
            format!("{field}.files"),
            "is empty; Prometheus refuses a file discovery without files",
        ));
    }
    for (i, path) in f.files.iter().enumerate() {
        if !is_file_sd_path(path) {
            return Err(unsupported(
                format!("{field}.files[{i}]"),
                format!(
                    "{path:?} is not a path Prometheus' file discovery reads (a .json, .yml or \
                     .yaml file, a * only in the last element)"
                ),
            ));
        }
    }
    Ok(FileSdOut {
        files: f.files.clone(),
        refresh_interval: check_refresh(&f.refresh_interval, field)?,
    })
}

fn http_sd(
    runtime: Runtime,
    secrets: Secrets<'_>,
    h: &HttpSdConfig,
    field: &str,
) -> Result<HttpSdOut, FieldError> {
    let scheme_ok = h.url.starts_with("http://") || h.url.starts_with("https://");
    if !scheme_ok
        || h.url
            .split_once("://")
            .is_none_or(|(_, rest)| rest.is_empty())
    {
        return Err(unsupported(
            format!("{field}.url"),
            "is not an http or https URL with a host; Prometheus refuses it",
        ));
    }
    let mut client = http_client(
        runtime,
        secrets,
        field,
        h.basic_auth.as_ref(),
        h.authorization.as_ref(),
        h.oauth2.as_ref(),
        h.tls_config.as_ref(),
        &h.proxy,
    )?;
    client.follow_redirects = h.follow_redirects;
    client.enable_http2 = h.enable_http2;
    Ok(HttpSdOut {
        url: h.url.clone(),
        refresh_interval: check_refresh(&h.refresh_interval, field)?,
        client,
    })
}

/// The selector roles Prometheus allows for each discovery role.
fn selector_roles(role: &str) -> &'static [&'static str] {
    match role {
        "pod" => &["pod"],
        "service" => &["service"],
        "node" => &["node"],
        "ingress" => &["ingress"],
        "endpoints" => &["pod", "service", "endpoints"],
        "endpointslice" => &["pod", "service", "endpointslice"],
        _ => &[],
    }
}

fn kubernetes_sd(
    ctx: &ScrapeContext<'_>,
    secrets: Secrets<'_>,
    own_namespace: &str,
    k: &KubernetesSdConfig,
    field: &str,
) -> Result<KubernetesSdOut, FieldError> {
    let runtime = ctx.runtime;
    let role = k.role.to_ascii_lowercase();
    if selector_roles(&role).is_empty() {
        return Err(unsupported(
            format!("{field}.role"),
            format!("{:?} is not a Kubernetes discovery role", k.role),
        ));
    }
    let mut seen = Vec::new();
    let mut selectors = Vec::new();
    for (i, s) in k.selectors.iter().enumerate() {
        let selector_role = s.role.to_ascii_lowercase();
        if !selector_roles(&role).contains(&selector_role.as_str()) {
            return Err(unsupported(
                format!("{field}.selectors[{i}].role"),
                format!(
                    "{:?} cannot narrow a discovery of role {role}; Prometheus refuses it",
                    s.role
                ),
            ));
        }
        if seen.contains(&selector_role) {
            return Err(unsupported(
                format!("{field}.selectors[{i}].role"),
                format!("{selector_role} is selected twice; Prometheus refuses it"),
            ));
        }
        seen.push(selector_role.clone());
        selectors.push(SelectorOut {
            role: selector_role,
            label: non_empty(&s.label),
            field: non_empty(&s.field),
        });
    }
    let mut client = http_client(
        runtime,
        secrets,
        field,
        k.basic_auth.as_ref(),
        k.authorization.as_ref(),
        k.oauth2.as_ref(),
        k.tls_config.as_ref(),
        &k.proxy,
    )?;
    client.follow_redirects = k.follow_redirects;
    client.enable_http2 = k.enable_http2;
    let api_server = non_empty(&k.api_server);
    // Prometheus compares the whole HTTP client settings with their defaults.
    let custom_client = client.basic_auth.is_some()
        || client.authorization.is_some()
        || client.oauth2.is_some()
        || client
            .tls_config
            .as_ref()
            .is_some_and(|t| *t != TlsOut::default())
        || client.proxy != ProxyOut::default()
        || client.follow_redirects == Some(false)
        || client.enable_http2 == Some(false);
    if api_server.is_none() && custom_client {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            format!("{field}.apiServer"),
            "is unset, but credentials, TLS, proxy, redirect or HTTP/2 settings are; \
             Kubernetes discovery accepts them only with an explicit API server address",
        ));
    }
    let namespaces = if ctx.ignore_namespace_selectors {
        Some(NamespacesOut {
            own_namespace: None,
            names: vec![own_namespace.to_owned()],
        })
    } else {
        k.namespaces.as_ref().map(|n| NamespacesOut {
            own_namespace: n.own_namespace,
            names: n.names.clone(),
        })
    };
    let attach_metadata = k
        .attach_metadata
        .as_ref()
        .filter(|_| matches!(role.as_str(), "pod" | "endpoints" | "endpointslice"))
        .map(|a| AttachMetadataOut {
            node: a.node.unwrap_or(false),
        });
    Ok(KubernetesSdOut {
        api_server,
        role,
        namespaces,
        selectors,
        attach_metadata,
        client,
    })
}

fn consul_sd(
    ctx: &ScrapeContext<'_>,
    secrets: Secrets<'_>,
    c: &ConsulSdConfig,
    field: &str,
) -> Result<ConsulSdOut, FieldError> {
    let runtime = ctx.runtime;
    if runtime == Runtime::Alloy && non_empty(&c.path_prefix).is_some() {
        return Err(unsupported(
            format!("{field}.pathPrefix"),
            "Alloy's converter drops it, so Alloy would ask Consul at another path; left out \
             rather than discover nothing or something else",
        ));
    }
    if c.server.trim().is_empty() {
        return Err(unsupported(
            format!("{field}.server"),
            "is empty; Prometheus refuses a Consul discovery without a server",
        ));
    }
    let token = match &c.token_ref {
        Some(sel) => secrets.value(sel, &format!("{field}.tokenRef"))?,
        None => None,
    };
    let mut client = http_client(
        runtime,
        secrets,
        field,
        c.basic_auth.as_ref(),
        c.authorization.as_ref(),
        c.oauth2.as_ref(),
        c.tls_config.as_ref(),
        &c.proxy,
    )?;
    if token.is_some() && (client.authorization.is_some() || client.oauth2.is_some()) {
        return Err(FieldError::because(
            Reason::ConflictingSettings,
            field,
            "sets tokenRef with authorization or oauth2; Prometheus accepts only one of them",
        ));
    }
    client.follow_redirects = c.follow_redirects;
    client.enable_http2 = c.enable_http2;
    Ok(ConsulSdOut {
        server: c.server.clone(),
        path_prefix: non_empty(&c.path_prefix),
        token,
        datacenter: non_empty(&c.datacenter),
        namespace: non_empty(&c.namespace),
        partition: non_empty(&c.partition),
        scheme: non_empty(&c.scheme).map(|s| s.to_ascii_lowercase()),
        services: c.services.clone(),
        tags: c.tags.clone(),
        tag_separator: c.tag_separator.clone(),
        node_meta: c.node_meta.clone(),
        allow_stale: c.allow_stale,
        refresh_interval: check_refresh(&c.refresh_interval, field)?,
        client,
    })
}

fn dns_sd(d: &DnsSdConfig, field: &str) -> Result<DnsSdOut, FieldError> {
    if d.names.is_empty() {
        return Err(unsupported(
            format!("{field}.names"),
            "is empty; Prometheus refuses a DNS discovery without names",
        ));
    }
    let type_ = non_empty(&d.type_);
    let port = d.port.filter(|p| *p != 0);
    if type_.as_deref().is_some_and(|t| t != "SRV") && port.is_none() {
        return Err(unsupported(
            format!("{field}.port"),
            "is required for record types other than SRV; Prometheus refuses the discovery \
             without it",
        ));
    }
    Ok(DnsSdOut {
        names: d.names.clone(),
        refresh_interval: check_refresh(&d.refresh_interval, field)?,
        type_,
        port,
    })
}

fn ec2_sd(
    runtime: Runtime,
    secrets: Secrets<'_>,
    e: &Ec2SdConfig,
    field: &str,
) -> Result<Ec2SdOut, FieldError> {
    // prometheus-operator uses the keys only as a pair.
    let (access_key, secret_key) = match (&e.access_key, &e.secret_key) {
        (Some(a), Some(s)) => (
            secrets.value(a, &format!("{field}.accessKey"))?,
            secrets.value(s, &format!("{field}.secretKey"))?,
        ),
        _ => (None, None),
    };
    let mut client = http_client(
        runtime,
        secrets,
        field,
        None,
        None,
        None,
        e.tls_config.as_ref(),
        &e.proxy,
    )?;
    client.follow_redirects = e.follow_redirects;
    client.enable_http2 = e.enable_http2;
    Ok(Ec2SdOut {
        region: non_empty(&e.region),
        access_key,
        secret_key,
        role_arn: non_empty(&e.role_arn),
        refresh_interval: check_refresh(&e.refresh_interval, field)?,
        port: e.port,
        filters: e
            .filters
            .iter()
            .map(|f| Ec2FilterOut {
                name: f.name.clone(),
                values: f.values.clone(),
            })
            .collect(),
        client,
    })
}

/// Every TLS block of `spec` with its field path: the job's, its discoveries', and their
/// OAuth2 token requests'.
fn tls_settings(spec: &ScrapeConfigSpec) -> Vec<(String, &ScrapeTlsConfig)> {
    let mut out = Vec::new();
    push_tls(
        &mut out,
        "spec".to_owned(),
        spec.tls_config.as_ref(),
        spec.oauth2.as_ref(),
    );
    for (i, h) in spec.http_sd_configs.iter().enumerate() {
        let f = format!("spec.httpSDConfigs[{i}]");
        push_tls(&mut out, f, h.tls_config.as_ref(), h.oauth2.as_ref());
    }
    for (i, k) in spec.kubernetes_sd_configs.iter().enumerate() {
        let f = format!("spec.kubernetesSDConfigs[{i}]");
        push_tls(&mut out, f, k.tls_config.as_ref(), k.oauth2.as_ref());
    }
    for (i, c) in spec.consul_sd_configs.iter().enumerate() {
        let f = format!("spec.consulSDConfigs[{i}]");
        push_tls(&mut out, f, c.tls_config.as_ref(), c.oauth2.as_ref());
    }
    for (i, e) in spec.ec2_sd_configs.iter().enumerate() {
        let f = format!("spec.ec2SDConfigs[{i}]");
        push_tls(&mut out, f, e.tls_config.as_ref(), None);
    }
    out
}

/// The TLS blocks of one HTTP client at `field`: its own and its OAuth2's.
fn push_tls<'s>(
    out: &mut Vec<(String, &'s ScrapeTlsConfig)>,
    field: String,
    tls: Option<&'s ScrapeTlsConfig>,
    oauth2: Option<&'s ScrapeOAuth2>,
) {
    if let Some(t) = oauth2.and_then(|o| o.tls_config.as_ref()) {
        out.push((format!("{field}.oauth2.tlsConfig"), t));
    }
    if let Some(t) = tls {
        out.push((format!("{field}.tlsConfig"), t));
    }
}

/// The settings of the selected ScrapeConfigs that the runtimes do not run, each a warning
/// (Reason `UnusedSetting`) saying what runs instead; the objects run without them.
/// `native_metrics`: whether the agent's metrics config is in Alloy's syntax
/// (`crate::alloy_native::native_metrics`, asked by the caller: config sits below it).
pub fn warnings(h: &Hierarchy, native_metrics: bool) -> Vec<Rejection> {
    let runtime = crate::alloy::runtime(h);
    let mut out = Vec::new();
    for node in &h.metrics {
        for sc in &node.scrape_configs {
            let object = InputRef::of(Kind::ScrapeConfig, sc.as_ref());
            let spec = &sc.spec;
            // The settings ServiceMonitors share, warned about as theirs are; a ScrapeConfig
            // has no endpoints, its trackTimestampsStaleness is its own.
            out.extend(monitor_warnings(
                runtime,
                || object.clone(),
                &monitor_settings_of(spec),
                std::iter::empty(),
                "",
            ));
            let (reason, who) = match runtime {
                Runtime::Alloy => (Reason::AlloyDifference, "Alloy"),
                Runtime::Agent => (Reason::UnusedSetting, "the agent"),
            };
            let mut unused = |field: &str, instead: &str| {
                out.push(Rejection::new(
                    object.clone(),
                    reason,
                    format!("spec.{field}"),
                    format!("not used by {who}: {instead}"),
                ));
            };
            if spec.name_validation_scheme.as_deref() == Some("Legacy") {
                unused(
                    "nameValidationScheme",
                    "it has no such setting and validates legacy names, as asked",
                );
            }
            if spec.name_escaping_scheme.is_some() {
                unused(
                    "nameEscapingScheme",
                    "it does not negotiate UTF-8 names with the target, so nothing is escaped",
                );
            }
            if runtime == Runtime::Agent && spec.enable_compression == Some(false) {
                unused(
                    "enableCompression",
                    "it does not know the setting and always asks targets for compressed responses",
                );
            }
            if runtime == Runtime::Alloy && spec.track_timestamps_staleness == Some(true) {
                unused(
                    "trackTimestampsStaleness",
                    "its static converter refuses the setting: samples with the target's own timestamps get no staleness markers when they disappear",
                );
            }
            if runtime == Runtime::Alloy {
                for (field, t) in tls_settings(spec) {
                    if non_empty(&t.versions.max_version).is_some() {
                        out.push(Rejection::new(
                            object.clone(),
                            Reason::AlloyDifference,
                            format!("{field}.maxVersion"),
                            "not used by Alloy: its static converter refuses the setting: TLS up to 1.3 is accepted".to_owned(),
                        ));
                    }
                }
                // The native config writes them ([`crate::alloy_native::scrape_config`]).
                let native = native_metrics;
                for (i, sd) in spec.http_sd_configs.iter().enumerate().filter(|_| !native) {
                    for (name, value) in [
                        ("followRedirects", sd.follow_redirects),
                        ("enableHTTP2", sd.enable_http2),
                    ] {
                        if value == Some(false) {
                            out.push(Rejection::new(
                                object.clone(),
                                Reason::AlloyDifference,
                                format!("spec.httpSDConfigs[{i}].{name}"),
                                "not used by Alloy: its static converter drops false for HTTP discovery, so the default, true, applies".to_owned(),
                            ));
                        }
                    }
                }
            }
            let mut warn = |field: String, message: &str| {
                out.push(Rejection::new(
                    object.clone(),
                    Reason::UnusedSetting,
                    field,
                    message.to_owned(),
                ));
            };
            for (i, k) in spec.kubernetes_sd_configs.iter().enumerate() {
                let role = k.role.to_ascii_lowercase();
                if k.attach_metadata.is_some()
                    && !matches!(role.as_str(), "pod" | "endpoints" | "endpointslice")
                {
                    warn(
                        format!("spec.kubernetesSDConfigs[{i}].attachMetadata"),
                        "not rendered: Prometheus attaches node metadata only to pod, endpoints and endpointslice targets (prometheus-operator ignores it too)",
                    );
                }
                if h.agent
                    .spec
                    .metrics
                    .as_ref()
                    .is_some_and(|m| m.ignore_namespace_selectors)
                    && k.namespaces.is_some()
                {
                    warn(
                        format!("spec.kubernetesSDConfigs[{i}].namespaces"),
                        "ignored: the GrafanaAgent sets spec.metrics.ignoreNamespaceSelectors, so discovery covers only the ScrapeConfig's namespace",
                    );
                }
            }
            for (i, e) in spec.ec2_sd_configs.iter().enumerate() {
                if e.access_key.is_some() != e.secret_key.is_some() {
                    warn(
                        format!("spec.ec2SDConfigs[{i}]"),
                        "sets only one of accessKey and secretKey; neither is rendered (as prometheus-operator), the agent's AWS credentials apply",
                    );
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use api::GrafanaAgent;
    use api::scrape_config::{DnsSdConfig, KubernetesSelector, StaticConfig as StaticTargets};

    use super::*;
    use crate::assets::Assets;

    fn scrape_config(spec: ScrapeConfigSpec) -> api::ScrapeConfig {
        let mut sc = api::ScrapeConfig::new("sc", spec);
        sc.metadata.namespace = Some("ns".into());
        sc
    }

    fn render(runtime: Runtime, spec: ScrapeConfigSpec) -> Result<ScrapeConfig, Rejection> {
        let mut agent = GrafanaAgent::new("agent", Default::default());
        agent.metadata.namespace = Some("operator".into());
        agent.spec.runtime = Some(runtime);
        let assets = Assets::default();
        let ctx = ScrapeContext::new(&agent, &assets, &mut Vec::new());
        scrape_config_job(&ctx, &scrape_config(spec))
    }

    #[test]
    fn file_discovery_paths_are_prometheus_ones() {
        for ok in ["/etc/t/*.json", "targets.yaml", "/a/b.YML", "/a/x*y.json"] {
            assert!(is_file_sd_path(ok), "{ok}");
        }
        for bad in [
            "/etc/*/t.json",
            "/etc/t/targets",
            "/etc/t/*.txt",
            "/a/**.json",
        ] {
            assert!(!is_file_sd_path(bad), "{bad}");
        }
    }

    #[test]
    fn a_dns_record_other_than_srv_needs_a_port() {
        let spec = |type_: &str, port| ScrapeConfigSpec {
            dns_sd_configs: vec![DnsSdConfig {
                names: vec!["n.example".into()],
                type_: Some(type_.into()),
                port,
                ..Default::default()
            }],
            ..Default::default()
        };
        let e = render(Runtime::Agent, spec("A", None)).expect_err("no port");
        assert_eq!(e.field.as_deref(), Some("spec.dnsSDConfigs[0].port"));
        assert!(render(Runtime::Agent, spec("A", Some(80))).is_ok());
        assert!(render(Runtime::Agent, spec("SRV", None)).is_ok());
    }

    #[test]
    fn kubernetes_selectors_follow_the_roles_prometheus_allows() {
        let spec = |role: &str, selectors: &[&str]| ScrapeConfigSpec {
            kubernetes_sd_configs: vec![KubernetesSdConfig {
                role: role.into(),
                selectors: selectors
                    .iter()
                    .map(|r| KubernetesSelector {
                        role: (*r).into(),
                        label: Some("app=web".into()),
                        field: None,
                    })
                    .collect(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let job = render(Runtime::Agent, spec("Endpoints", &["Pod", "Service"])).expect("renders");
        let sd = &job.scrape_config.expect("its own part").kubernetes_sd[0];
        assert_eq!(sd.role, "endpoints");
        assert_eq!(sd.selectors[1].role, "service");
        for (role, selectors) in [
            ("Pod", &["Service"][..]),
            ("Service", &["Service", "Service"]),
        ] {
            let e = render(Runtime::Agent, spec(role, selectors)).expect_err("refused");
            assert!(
                e.field.as_deref().is_some_and(|f| f.ends_with(".role")),
                "{e}"
            );
        }
    }

    #[test]
    fn tls_max_version_is_the_agents_only_and_not_below_min_version() {
        let spec = |min: &str, max: &str| ScrapeConfigSpec {
            static_configs: vec![StaticTargets {
                targets: vec!["a:80".into()],
                labels: Default::default(),
            }],
            tls_config: Some(ScrapeTlsConfig {
                versions: api::prometheus::TlsVersions {
                    min_version: Some(min.into()),
                    max_version: Some(max.into()),
                },
                ..Default::default()
            }),
            ..Default::default()
        };
        let tls = |runtime| {
            render(runtime, spec("TLS12", "TLS13"))
                .expect("renders")
                .scrape_config
                .and_then(|j| j.tls)
                .expect("tls")
        };
        assert_eq!(tls(Runtime::Agent).max_version.as_deref(), Some("TLS13"));
        assert_eq!(tls(Runtime::Alloy).max_version, None);
        assert_eq!(tls(Runtime::Alloy).min_version.as_deref(), Some("TLS12"));
        let e = render(Runtime::Agent, spec("TLS13", "TLS12")).expect_err("max below min");
        assert_eq!(e.reason, Reason::ConflictingSettings);
    }

    #[test]
    fn an_unrendered_discovery_rejects_the_scrape_config_naming_it() {
        let spec = ScrapeConfigSpec {
            hetzner_sd_configs: vec![serde_json::json!({"role": "hcloud"})],
            ..Default::default()
        };
        let e = render(Runtime::Alloy, spec).expect_err("not rendered");
        assert_eq!(e.field.as_deref(), Some("spec.hetznerSDConfigs"));
        assert_eq!(e.object.to_string(), "ScrapeConfig ns/sc");
    }
}
