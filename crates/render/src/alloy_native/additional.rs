//! A MetricsInstance's `additionalScrapeConfigs` in Alloy components: each item (a raw
//! Prometheus scrape config, kept verbatim in the static config) read into the typed job the
//! monitors' jobs are ([`ScrapeConfig`], its discoveries a ScrapeConfig's
//! [`ScrapeConfigJob`]), then written by the same writer ([`super::metrics`] and
//! [`super::scrape_config`]), so an additional job's components are those Alloy's converter
//! makes of it, under the same labels.
//!
//! Only what that writer says is read: the scrape settings, static, file, HTTP, Kubernetes,
//! DNS, Consul and EC2 discoveries, relabeling, and the HTTP client settings (auth, TLS,
//! proxy). An item holding anything else (another discovery, an inline TLS key, a TLS
//! `max_version`, ...) is [`Untranslated`], naming its field; the agent's metrics then stay in
//! the static format, warned about by `crate::alloy` ([`why_static`]).
//!
//! Upstream documents `$(SHARD)` and `$(SHARDS)` in these jobs for users' own hashmod rules.
//! In any string they stay the loader's, as everywhere in the metrics config; a `modulus` of
//! `$(SHARDS)` is written as the string `"$(SHARDS)"`, which the loader makes `"3"` and Alloy
//! reads as the number (it converts a numeric string where it wants a number).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use thiserror::Error;

use crate::alloy_syntax::{Attribute, Block, Expr, Identifier};
use crate::assets::AssetKey;
use crate::config::common::{
    AuthorizationOut, BasicAuthOut, OAuth2Out, ProxyOut, RelabelRule, Secrets, TlsConfigOut,
};
use crate::config::metrics::additional;
use crate::config::metrics::scrape::{Factor, ScrapeConfig, StaticConfig};
use crate::config::metrics::scrape_config::{
    AttachMetadataOut, ConsulSdOut, DnsSdOut, Ec2FilterOut, Ec2SdOut, FileSdOut, HttpClientOut,
    HttpSdOut, KubernetesSdOut, NamespacesOut, OAuth2WithClientOut, ScrapeConfigJob, SelectorOut,
    TlsOut,
};
use crate::discover::MetricsInstanceNode;
use crate::expansion::{ConfigString, SHARD_VARIABLES};

use super::{NativeError, known};

/// The field of an item that the native writer does not translate, and why.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{field} {why}")]
pub struct Untranslated {
    /// The path in the item (`kubernetes_sd_configs[0].kubeconfig_file`); never a value, which
    /// is a Secret's.
    pub field: String,
    pub why: String,
}

impl Untranslated {
    fn new(field: impl Into<String>, why: impl Into<String>) -> Self {
        Untranslated {
            field: field.into(),
            why: why.into(),
        }
    }

    fn unknown(field: impl Into<String>) -> Self {
        Untranslated::new(
            field,
            "is not translated (natively written: the scrape settings, static, file, HTTP, \
             Kubernetes, DNS, Consul and EC2 discoveries, relabeling, and basic_auth, \
             authorization, bearer_token(_file), oauth2, tls_config's files, server_name, \
             insecure_skip_verify and min_version, proxy and redirect settings)",
        )
    }
}

/// Why the `additionalScrapeConfigs` of `node` keep its agent's metrics static, naming the
/// Secret key, the item and its field; `None` when every item is translated, or when there
/// are none to run (unset, optional and missing, or unusable: rendering reports and leaves
/// out unusable ones under either format).
pub fn why_static(
    assets: &crate::assets::Assets,
    node: &MetricsInstanceNode,
    field: &str,
) -> Option<String> {
    let sel = node.instance.spec.additional_scrape_configs.as_ref()?;
    let namespace = node
        .instance
        .metadata
        .namespace
        .as_deref()
        .unwrap_or_default();
    let secrets = Secrets { assets, namespace };
    let text = secrets.value(sel, field).ok()??;
    let source = AssetKey::secret(namespace, sel);
    let items = additional::parse(&text, field, &source).ok()?;
    items.iter().enumerate().find_map(|(i, item)| {
        let e = translate(item).err()?;
        Some(format!(
            "has no native Alloy translation yet: {source}, item [{i}]: {e}; the GrafanaAgent's metrics config stays in static format (converted by Alloy) while it is selected"
        ))
    })
}

/// The components of the additional job `item` (item `index` of `instance`'s), in the order
/// [`super::metrics`] writes a job's.
pub(super) fn components(
    item: &Value,
    instance: &str,
    index: usize,
    write: impl FnOnce(&ScrapeConfig) -> Result<Vec<Block>, NativeError>,
) -> Result<Vec<Block>, NativeError> {
    let Translated { job, moduli } = translate(item).map_err(|e| NativeError::Verbatim {
        instance: instance.to_owned(),
        item: index,
        field: e.field,
        why: e.why,
    })?;
    let mut blocks = write(&job)?;
    for (kind, rule, variable) in moduli {
        let Some(rule) = blocks
            .iter_mut()
            .find(|b| dotted(&b.name) == kind)
            .and_then(|b| b.body.blocks.get_mut(rule))
        else {
            continue;
        };
        // Where the writer puts `modulus`: after the rule's sources and regex.
        let at = rule
            .body
            .attributes
            .iter()
            .position(|a| !matches!(a.name.as_str(), "source_labels" | "separator" | "regex"))
            .unwrap_or(rule.body.attributes.len());
        rule.body.attributes.insert(
            at,
            Attribute {
                name: known("modulus"),
                value: Expr::string(variable),
            },
        );
    }
    Ok(blocks)
}

fn dotted(name: &[Identifier]) -> String {
    name.iter()
        .map(Identifier::as_str)
        .collect::<Vec<_>>()
        .join(".")
}

/// An item as a typed job, and the rules whose `modulus` is a loader variable: (the
/// component kind holding the rule, its index among the component's rules, the variable).
struct Translated {
    job: ScrapeConfig,
    moduli: Vec<(&'static str, usize, String)>,
}

fn translate(item: &Value) -> Result<Translated, Untranslated> {
    match serde_path_to_error::deserialize::<_, RawJob>(item) {
        Ok(raw) => raw.into_job(),
        Err(e) => Err(located(item, &e)),
    }
}

/// The field of `item` that `e` is about. Errors inside a flattened part (the client
/// settings every job and discovery share) carry no path: then each key is read alone, and
/// the first that fails is named.
fn located(item: &Value, e: &serde_path_to_error::Error<serde_json::Error>) -> Untranslated {
    let path = e.path().to_string();
    if path != "." {
        return described(path, e.inner());
    }
    if let Value::Object(map) = item {
        for (key, value) in map.iter().filter(|(key, _)| *key != "job_name") {
            let alone = Value::Object(
                [
                    ("job_name".to_owned(), Value::String("job".to_owned())),
                    (key.clone(), value.clone()),
                ]
                .into_iter()
                .collect(),
            );
            if let Err(e) = serde_path_to_error::deserialize::<_, RawJob>(&alone) {
                let path = e.path().to_string();
                return described(if path == "." { key.clone() } else { path }, e.inner());
            }
        }
    }
    described("job_name".to_owned(), e.inner())
}

/// `path` with why serde refused it: an unknown field is named (a key, never a value).
fn described(path: String, e: &serde_json::Error) -> Untranslated {
    let message = e.to_string();
    let unknown = message
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(field, _)| field);
    match unknown {
        Some(field) => Untranslated::unknown(format!("{path}.{field}")),
        None => Untranslated::new(path, "is not of the type Prometheus reads there"),
    }
}

/// Every key of `other` is one this module does not read.
fn no_other(path: &str, other: &BTreeMap<String, IgnoredAny>) -> Result<(), Untranslated> {
    match other.keys().next() {
        Some(key) if path.is_empty() => Err(Untranslated::unknown(key.clone())),
        Some(key) => Err(Untranslated::unknown(format!("{path}.{key}"))),
        None => Ok(()),
    }
}

/// The scrape config keys the native writer translates, under Prometheus' names (as Alloy's
/// converter reads them: Prometheus 3).
#[derive(Deserialize)]
struct RawJob {
    job_name: String,
    honor_labels: Option<bool>,
    honor_timestamps: Option<bool>,
    scrape_interval: Option<String>,
    scrape_timeout: Option<String>,
    scrape_protocols: Option<Vec<String>>,
    fallback_scrape_protocol: Option<String>,
    always_scrape_classic_histograms: Option<bool>,
    convert_classic_histograms_to_nhcb: Option<bool>,
    metrics_path: Option<String>,
    scheme: Option<String>,
    params: Option<BTreeMap<String, Vec<String>>>,
    enable_compression: Option<bool>,
    body_size_limit: Option<String>,
    sample_limit: Option<u64>,
    target_limit: Option<u64>,
    label_limit: Option<u64>,
    label_name_length_limit: Option<u64>,
    label_value_length_limit: Option<u64>,
    native_histogram_min_bucket_factor: Option<f64>,
    relabel_configs: Option<Vec<RawRelabel>>,
    metric_relabel_configs: Option<Vec<RawRelabel>>,
    static_configs: Option<Vec<RawStatic>>,
    file_sd_configs: Option<Vec<RawFileSd>>,
    http_sd_configs: Option<Vec<RawHttpSd>>,
    kubernetes_sd_configs: Option<Vec<RawKubernetesSd>>,
    dns_sd_configs: Option<Vec<RawDnsSd>>,
    consul_sd_configs: Option<Vec<RawConsulSd>>,
    ec2_sd_configs: Option<Vec<RawEc2Sd>>,
    #[serde(flatten)]
    client: RawClient,
    /// Whatever else the item holds: not translated.
    #[serde(flatten)]
    other: BTreeMap<String, IgnoredAny>,
}

/// Prometheus' HTTP client settings, as a job and its discoveries share them.
#[derive(Deserialize, Default)]
struct RawClient {
    basic_auth: Option<RawBasicAuth>,
    authorization: Option<RawAuthorization>,
    oauth2: Option<RawOAuth2>,
    bearer_token: Option<String>,
    bearer_token_file: Option<String>,
    tls_config: Option<RawTls>,
    proxy_url: Option<String>,
    no_proxy: Option<String>,
    proxy_from_environment: Option<bool>,
    proxy_connect_header: Option<BTreeMap<String, Vec<String>>>,
    follow_redirects: Option<bool>,
    enable_http2: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBasicAuth {
    username: Option<String>,
    password: Option<String>,
    password_file: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAuthorization {
    #[serde(rename = "type")]
    type_: Option<String>,
    credentials: Option<String>,
    credentials_file: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOAuth2 {
    client_id: Option<String>,
    client_secret_file: Option<String>,
    endpoint_params: Option<BTreeMap<String, String>>,
    scopes: Option<Vec<String>>,
    token_url: Option<String>,
    proxy_url: Option<String>,
    no_proxy: Option<String>,
    proxy_from_environment: Option<bool>,
    proxy_connect_header: Option<BTreeMap<String, Vec<String>>>,
    tls_config: Option<RawTls>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTls {
    ca_file: Option<String>,
    cert_file: Option<String>,
    key_file: Option<String>,
    server_name: Option<String>,
    insecure_skip_verify: Option<bool>,
    min_version: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRelabel {
    source_labels: Option<Vec<String>>,
    separator: Option<String>,
    regex: Option<String>,
    modulus: Option<Modulus>,
    target_label: Option<String>,
    replacement: Option<String>,
    action: Option<String>,
}

/// A number, or (upstream's documented use) the loader's `$(SHARDS)`.
#[derive(Deserialize)]
#[serde(untagged)]
enum Modulus {
    Number(u64),
    Variable(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStatic {
    targets: Option<Vec<String>>,
    labels: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFileSd {
    files: Vec<String>,
    refresh_interval: Option<String>,
}

#[derive(Deserialize)]
struct RawHttpSd {
    url: String,
    refresh_interval: Option<String>,
    #[serde(flatten)]
    client: RawClient,
    #[serde(flatten)]
    other: BTreeMap<String, IgnoredAny>,
}

#[derive(Deserialize)]
struct RawKubernetesSd {
    api_server: Option<String>,
    role: String,
    namespaces: Option<RawNamespaces>,
    selectors: Option<Vec<RawSelector>>,
    attach_metadata: Option<RawAttachMetadata>,
    #[serde(flatten)]
    client: RawClient,
    #[serde(flatten)]
    other: BTreeMap<String, IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNamespaces {
    own_namespace: Option<bool>,
    names: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSelector {
    role: String,
    label: Option<String>,
    field: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAttachMetadata {
    node: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDnsSd {
    names: Vec<String>,
    refresh_interval: Option<String>,
    #[serde(rename = "type")]
    type_: Option<String>,
    port: Option<i32>,
}

#[derive(Deserialize)]
struct RawConsulSd {
    server: Option<String>,
    token: Option<String>,
    datacenter: Option<String>,
    namespace: Option<String>,
    partition: Option<String>,
    scheme: Option<String>,
    services: Option<Vec<String>>,
    tags: Option<Vec<String>>,
    tag_separator: Option<String>,
    node_meta: Option<BTreeMap<String, String>>,
    allow_stale: Option<bool>,
    refresh_interval: Option<String>,
    #[serde(flatten)]
    client: RawClient,
    #[serde(flatten)]
    other: BTreeMap<String, IgnoredAny>,
}

#[derive(Deserialize)]
struct RawEc2Sd {
    region: Option<String>,
    access_key: Option<String>,
    secret_key: Option<String>,
    role_arn: Option<String>,
    refresh_interval: Option<String>,
    port: Option<i32>,
    filters: Option<Vec<RawEc2Filter>>,
    #[serde(flatten)]
    client: RawClient,
    #[serde(flatten)]
    other: BTreeMap<String, IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEc2Filter {
    name: String,
    values: Vec<String>,
}

/// Alloy's default for `follow_redirects`, `enable_http2` and `enable_compression` is true, as
/// Prometheus': only false is written, as the converter writes it.
fn only_false(value: Option<bool>) -> Option<bool> {
    value.filter(|v| !v)
}

impl RawJob {
    fn into_job(self) -> Result<Translated, Untranslated> {
        let RawJob {
            job_name,
            honor_labels,
            honor_timestamps,
            scrape_interval,
            scrape_timeout,
            scrape_protocols,
            fallback_scrape_protocol,
            always_scrape_classic_histograms,
            convert_classic_histograms_to_nhcb,
            metrics_path,
            scheme,
            params,
            enable_compression,
            body_size_limit,
            sample_limit,
            target_limit,
            label_limit,
            label_name_length_limit,
            label_value_length_limit,
            native_histogram_min_bucket_factor,
            relabel_configs,
            metric_relabel_configs,
            static_configs,
            file_sd_configs,
            http_sd_configs,
            kubernetes_sd_configs,
            dns_sd_configs,
            consul_sd_configs,
            ec2_sd_configs,
            client,
            other,
        } = self;
        no_other("", &other)?;
        let mut moduli = Vec::new();
        let relabel_configs = rules(
            "relabel_configs",
            relabel_configs,
            "discovery.relabel",
            &mut moduli,
        )?;
        let metric_relabel_configs = rules(
            "metric_relabel_configs",
            metric_relabel_configs,
            "prometheus.relabel",
            &mut moduli,
        )?;
        let RawClient {
            basic_auth,
            authorization,
            oauth2,
            bearer_token,
            bearer_token_file,
            tls_config,
            proxy_url,
            no_proxy,
            proxy_from_environment,
            proxy_connect_header,
            follow_redirects,
            enable_http2,
        } = client;
        if authorization.is_some() && (bearer_token.is_some() || bearer_token_file.is_some()) {
            return Err(Untranslated::new(
                "authorization",
                "is set beside a bearer token, which Prometheus refuses",
            ));
        }
        let extra = ScrapeConfigJob {
            enable_compression: only_false(enable_compression),
            oauth2_client: oauth2.map(oauth2_client),
            tls: None,
            file_sd_configs: list(file_sd_configs)
                .into_iter()
                .map(|f| FileSdOut {
                    files: f.files,
                    refresh_interval: f.refresh_interval,
                })
                .collect(),
            http_sd_configs: each("http_sd_configs", http_sd_configs, http_sd)?,
            kubernetes_sd: each(
                "kubernetes_sd_configs",
                kubernetes_sd_configs,
                kubernetes_sd,
            )?,
            consul_sd_configs: each("consul_sd_configs", consul_sd_configs, consul_sd)?,
            dns_sd_configs: list(dns_sd_configs)
                .into_iter()
                .map(|d| DnsSdOut {
                    names: d.names,
                    refresh_interval: d.refresh_interval,
                    type_: d.type_,
                    port: d.port,
                })
                .collect(),
            ec2_sd_configs: each("ec2_sd_configs", ec2_sd_configs, ec2_sd)?,
        };
        let job = ScrapeConfig {
            job_name,
            honor_labels,
            honor_timestamps,
            scrape_interval,
            scrape_timeout,
            scrape_protocols: list(scrape_protocols),
            fallback_scrape_protocol,
            always_scrape_classic_histograms,
            convert_classic_histograms_to_nhcb,
            metrics_path,
            scheme,
            params: params.unwrap_or_default(),
            proxy_url,
            no_proxy,
            proxy_from_environment,
            proxy_connect_header: proxy_connect_header.unwrap_or_default(),
            enable_http2: only_false(enable_http2),
            follow_redirects: only_false(follow_redirects),
            static_configs: list(static_configs)
                .into_iter()
                .map(|s| StaticConfig {
                    targets: list(s.targets),
                    labels: s.labels.unwrap_or_default(),
                })
                .collect(),
            tls_config: tls_config.map(tls),
            bearer_token_file,
            bearer_token,
            basic_auth: basic_auth.map(basic),
            authorization: authorization.map(bearer_by_default),
            relabel_configs,
            metric_relabel_configs,
            sample_limit,
            target_limit,
            body_size_limit,
            label_limit,
            label_name_length_limit,
            label_value_length_limit,
            native_histogram_min_bucket_factor: native_histogram_min_bucket_factor.map(Factor),
            scrape_config: Some(Box::new(extra)),
            ..ScrapeConfig::default()
        };
        Ok(Translated { job, moduli })
    }
}

fn list<T>(items: Option<Vec<T>>) -> Vec<T> {
    items.unwrap_or_default()
}

/// Each of `items` (under `key`) through `f`, which is given the item's path.
fn each<T, U>(
    key: &str,
    items: Option<Vec<T>>,
    f: impl Fn(T, &str) -> Result<U, Untranslated>,
) -> Result<Vec<U>, Untranslated> {
    list(items)
        .into_iter()
        .enumerate()
        .map(|(i, item)| f(item, &format!("{key}[{i}]")))
        .collect()
}

fn rules(
    key: &str,
    raw: Option<Vec<RawRelabel>>,
    component: &'static str,
    moduli: &mut Vec<(&'static str, usize, String)>,
) -> Result<Vec<RelabelRule>, Untranslated> {
    let mut out = Vec::new();
    for (i, rule) in list(raw).into_iter().enumerate() {
        let RawRelabel {
            source_labels,
            separator,
            regex,
            modulus,
            target_label,
            replacement,
            action,
        } = rule;
        let modulus = match modulus {
            None => None,
            Some(Modulus::Number(n)) => Some(n),
            Some(Modulus::Variable(text)) if SHARD_VARIABLES.contains(&text.as_str()) => {
                moduli.push((component, i, text));
                None
            }
            Some(Modulus::Variable(_)) => {
                return Err(Untranslated::new(
                    format!("{key}[{i}].modulus"),
                    "is neither a number nor one of the loader's $(SHARD), $(SHARDS)",
                ));
            }
        };
        out.push(RelabelRule {
            source_labels: list(source_labels),
            separator,
            regex: regex.map(ConfigString::Literal),
            modulus,
            target_label,
            replacement,
            action,
        });
    }
    Ok(out)
}

fn basic(b: RawBasicAuth) -> BasicAuthOut {
    BasicAuthOut {
        username: b.username,
        password: b.password,
        password_file: b.password_file,
    }
}

/// Prometheus reads an `authorization` without a type as a bearer token.
fn bearer_by_default(a: RawAuthorization) -> AuthorizationOut {
    AuthorizationOut {
        type_: a.type_.unwrap_or_else(|| "Bearer".to_owned()),
        credentials: a.credentials,
        credentials_file: a.credentials_file,
    }
}

fn tls(t: RawTls) -> TlsConfigOut {
    let RawTls {
        ca_file,
        cert_file,
        key_file,
        server_name,
        insecure_skip_verify,
        min_version,
    } = t;
    TlsConfigOut {
        ca_file,
        cert_file,
        key_file,
        server_name,
        insecure_skip_verify,
        min_version,
        // Alloy has no highest TLS version: an item with one is not read (RawTls).
        max_version: None,
    }
}

fn proxy(
    proxy_url: Option<String>,
    no_proxy: Option<String>,
    proxy_from_environment: Option<bool>,
    proxy_connect_header: Option<BTreeMap<String, Vec<String>>>,
) -> ProxyOut {
    ProxyOut {
        proxy_url,
        no_proxy,
        proxy_from_environment,
        proxy_connect_header: proxy_connect_header.unwrap_or_default(),
    }
}

fn oauth2_client(o: RawOAuth2) -> OAuth2WithClientOut {
    let RawOAuth2 {
        client_id,
        client_secret_file,
        endpoint_params,
        scopes,
        token_url,
        proxy_url,
        no_proxy,
        proxy_from_environment,
        proxy_connect_header,
        tls_config,
    } = o;
    OAuth2WithClientOut {
        client: OAuth2Out {
            client_id,
            client_secret_file,
            endpoint_params: endpoint_params.unwrap_or_default(),
            scopes: list(scopes),
            token_url: token_url.unwrap_or_default(),
            proxy: proxy(
                proxy_url,
                no_proxy,
                proxy_from_environment,
                proxy_connect_header,
            ),
            tls_config: tls_config.map(tls),
        },
        proxy: ProxyOut::default(),
        tls_config: None,
    }
}

/// A discovery's client settings; a bearer token is an `authorization` of type Bearer, as
/// Prometheus reads it.
fn http_client(c: RawClient, path: &str) -> Result<HttpClientOut, Untranslated> {
    let RawClient {
        basic_auth,
        authorization,
        oauth2,
        bearer_token,
        bearer_token_file,
        tls_config,
        proxy_url,
        no_proxy,
        proxy_from_environment,
        proxy_connect_header,
        follow_redirects,
        enable_http2,
    } = c;
    let bearer =
        (bearer_token.is_some() || bearer_token_file.is_some()).then(|| AuthorizationOut {
            type_: "Bearer".to_owned(),
            credentials: bearer_token,
            credentials_file: bearer_token_file,
        });
    if bearer.is_some() && authorization.is_some() {
        return Err(Untranslated::new(
            format!("{path}.authorization"),
            "is set beside a bearer token, which Prometheus refuses",
        ));
    }
    Ok(HttpClientOut {
        basic_auth: basic_auth.map(basic),
        authorization: authorization.map(bearer_by_default).or(bearer),
        oauth2: oauth2.map(oauth2_client),
        tls_config: tls_config.map(|t| TlsOut {
            files: tls(t),
            min_version: None,
            max_version: None,
        }),
        proxy: proxy(
            proxy_url,
            no_proxy,
            proxy_from_environment,
            proxy_connect_header,
        ),
        follow_redirects: only_false(follow_redirects),
        enable_http2: only_false(enable_http2),
    })
}

fn http_sd(h: RawHttpSd, path: &str) -> Result<HttpSdOut, Untranslated> {
    no_other(path, &h.other)?;
    Ok(HttpSdOut {
        url: h.url,
        refresh_interval: h.refresh_interval,
        client: http_client(h.client, path)?,
    })
}

fn kubernetes_sd(k: RawKubernetesSd, path: &str) -> Result<KubernetesSdOut, Untranslated> {
    no_other(path, &k.other)?;
    Ok(KubernetesSdOut {
        api_server: k.api_server,
        role: k.role,
        namespaces: k.namespaces.map(|n| NamespacesOut {
            own_namespace: n.own_namespace,
            names: list(n.names),
        }),
        selectors: list(k.selectors)
            .into_iter()
            .map(|s| SelectorOut {
                role: s.role,
                label: s.label,
                field: s.field,
            })
            .collect(),
        attach_metadata: k.attach_metadata.map(|a| AttachMetadataOut {
            node: a.node.unwrap_or_default(),
        }),
        client: http_client(k.client, path)?,
    })
}

/// Prometheus' Consul server when none is given.
const CONSUL_DEFAULT_SERVER: &str = "localhost:8500";

fn consul_sd(c: RawConsulSd, path: &str) -> Result<ConsulSdOut, Untranslated> {
    no_other(path, &c.other)?;
    Ok(ConsulSdOut {
        server: c.server.unwrap_or_else(|| CONSUL_DEFAULT_SERVER.to_owned()),
        path_prefix: None,
        token: c.token,
        datacenter: c.datacenter,
        namespace: c.namespace,
        partition: c.partition,
        scheme: c.scheme,
        services: list(c.services),
        tags: list(c.tags),
        tag_separator: c.tag_separator,
        node_meta: c.node_meta.unwrap_or_default(),
        allow_stale: c.allow_stale,
        refresh_interval: c.refresh_interval,
        client: http_client(c.client, path)?,
    })
}

fn ec2_sd(e: RawEc2Sd, path: &str) -> Result<Ec2SdOut, Untranslated> {
    no_other(path, &e.other)?;
    Ok(Ec2SdOut {
        region: e.region,
        access_key: e.access_key,
        secret_key: e.secret_key,
        role_arn: e.role_arn,
        refresh_interval: e.refresh_interval,
        port: e.port,
        filters: list(e.filters)
            .into_iter()
            .map(|f| Ec2FilterOut {
                name: f.name,
                values: f.values,
            })
            .collect(),
        client: http_client(e.client, path)?,
    })
}
