//! The fields prometheus-operator added to ServiceMonitors, PodMonitors and Probes after v0.66
//! (issue 36): what each runtime's config takes from them, a warning for each one a runtime cannot
//! apply while the series stay those the target exposes (saying what it does instead), and
//! a rejection where ignoring it would send series of another shape than asked.
//!
//! Which keys each runtime accepts was found with the real binaries (the agent v0.44.8, whose
//! Prometheus is a fork of early 2024, and Alloy v1.19.2's static converter, on Prometheus
//! 3): the agent refuses `scrape_protocols`, `fallback_scrape_protocol`,
//! `native_histogram_min_bucket_factor`, `convert_classic_histograms_to_nhcb`,
//! `scrape_native_histograms`, `extra_scrape_metrics` and `always_scrape_classic_histograms`;
//! Alloy's converter refuses `keep_dropped_targets`, `native_histogram_bucket_limit`,
//! `track_timestamps_staleness` and `scrape_classic_histograms` (its name in Prometheus 2), and
//! drops `scrape_native_histograms` and `extra_scrape_metrics` without a word. A key a runtime
//! refuses is never written for it (the whole config would fail); `agent_loads` and
//! `alloy_convert` prove the rest on every golden case. docs/compatibility.md has the table.

use std::collections::{BTreeMap, BTreeSet};

use api::ProbeSpec;
use api::Runtime;
use api::monitors::{
    AttachMetadata, LabelLimits, MonitorScrapeSettings, NativeHistogramConfig, ScrapeClass,
    ScrapeEndpoint,
};
use api::prometheus::{SafeAuthorization, ScrapeOAuth2, TlsVersions};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::config::common::{
    AttachMetadataOut, AuthorizationOut, FieldError, ProxyOut, RelabelRule, Secrets, TlsConfigOut,
    non_empty, safe_authorization, user_relabel_rules,
};
use crate::discover::Hierarchy;
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};

use super::scrape::{Factor, ScrapeConfig, ScrapeContext};

/// The format the agent parses a response without a known Content-Type as, and Alloy's
/// default fallback.
const AGENT_FALLBACK: &str = "PrometheusText0.0.4";

/// The scrape classes of one MetricsInstance, each resolved once for all its monitors: its
/// relabelings, TLS files and authorization as the jobs write them, or why they cannot be
/// used (the message names the instance's field; a monitor taking the class is rejected).
#[derive(Clone, Debug)]
pub struct InstanceClasses {
    pub instance: InputRef,
    /// In the instance's order; a class whose name an earlier one has is left out.
    pub classes: Vec<ResolvedClass>,
}

/// One scrape class, ready for the jobs of the monitors that take it.
#[derive(Clone, Debug)]
pub struct ResolvedClass {
    pub class: ScrapeClass,
    /// `spec.scrapeClasses[i]` of the instance.
    pub field: String,
    pub relabelings: Result<Vec<RelabelRule>, String>,
    pub metric_relabelings: Result<Vec<RelabelRule>, String>,
    pub tls: Result<Option<TlsConfigOut>, String>,
    pub authorization: Result<Option<AuthorizationOut>, String>,
}

impl ResolvedClass {
    /// Whether the class is the default one.
    fn is_default(&self) -> bool {
        self.class.default == Some(true)
    }

    /// Everything the jobs take from the class, or the first reason it cannot be used.
    fn usable(&self) -> Result<(), String> {
        self.relabelings.as_ref().map_err(Clone::clone)?;
        self.metric_relabelings.as_ref().map_err(Clone::clone)?;
        self.tls.as_ref().map_err(Clone::clone)?;
        self.authorization.as_ref().map_err(Clone::clone)?;
        Ok(())
    }
}

impl InstanceClasses {
    /// `instance`'s classes, `None` when it defines none. A later class with an earlier one's
    /// name is left out (reported by [`warnings`]).
    pub fn of(ctx: &ScrapeContext<'_>, instance: &api::MetricsInstance) -> Option<Self> {
        if instance.spec.scrape_classes.is_empty() {
            return None;
        }
        let instance_ref = InputRef::of(Kind::MetricsInstance, instance);
        let secrets = ctx.secrets(&instance_ref.namespace);
        let mut seen = BTreeSet::new();
        let mut classes = Vec::new();
        for (i, class) in instance.spec.scrape_classes.iter().enumerate() {
            if !seen.insert(class.name.as_str()) {
                continue;
            }
            let field = format!("spec.scrapeClasses[{i}]");
            let text = |e: FieldError| e.to_string();
            classes.push(ResolvedClass {
                relabelings: user_relabel_rules(
                    &class.relabelings,
                    &format!("{field}.relabelings"),
                )
                .map_err(text),
                metric_relabelings: user_relabel_rules(
                    &class.metric_relabelings,
                    &format!("{field}.metricRelabelings"),
                )
                .map_err(text),
                tls: class_tls(class, &field),
                authorization: class_authorization(class, secrets, &field).map_err(text),
                class: class.clone(),
                field,
            });
        }
        Some(InstanceClasses {
            instance: instance_ref,
            classes,
        })
    }
}

/// The class's TLS files; any other TLS field is an error, as prometheus-operator supports
/// only these three.
fn class_tls(class: &ScrapeClass, field: &str) -> Result<Option<TlsConfigOut>, String> {
    let Some(tls) = &class.tls_config else {
        return Ok(None);
    };
    let safe = &tls.safe;
    let others = [
        ("ca", safe.ca.is_some()),
        ("cert", safe.cert.is_some()),
        ("keySecret", safe.key_secret.is_some()),
        ("serverName", safe.server_name.is_some()),
        ("insecureSkipVerify", safe.insecure_skip_verify.is_some()),
    ];
    if let Some((name, _)) = others.iter().find(|(_, set)| *set) {
        return Err(format!(
            "{field}.tlsConfig.{name}: a scrape class supports only caFile, certFile and keyFile (as prometheus-operator)"
        ));
    }
    Ok(Some(TlsConfigOut {
        ca_file: non_empty(&tls.ca_file),
        cert_file: non_empty(&tls.cert_file),
        key_file: non_empty(&tls.key_file),
        ..TlsConfigOut::default()
    }))
}

/// The class's `authorization`: credentials from the instance's Secret, else its file.
fn class_authorization(
    class: &ScrapeClass,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<Option<AuthorizationOut>, FieldError> {
    let Some(auth) = &class.authorization else {
        return Ok(None);
    };
    let field = format!("{field}.authorization");
    let safe = SafeAuthorization {
        type_: auth.type_.clone(),
        credentials: auth.credentials.clone(),
    };
    match (&auth.credentials, non_empty(&auth.credentials_file)) {
        (None, Some(file)) => {
            let type_ = auth.type_.as_deref().map(str::trim).unwrap_or_default();
            if type_.eq_ignore_ascii_case("basic") {
                return Err(FieldError::new(
                    format!("{field}.type"),
                    format!("{type_:?}: Prometheus refuses the type basic here"),
                ));
            }
            Ok(Some(AuthorizationOut {
                type_: if type_.is_empty() { "Bearer" } else { type_ }.to_owned(),
                credentials: None,
                credentials_file: Some(file),
            }))
        }
        // Credentials from the Secret win over a file, as Prometheus refuses both.
        _ => safe_authorization(&safe, secrets, &field),
    }
}

/// The scrape class a monitor takes: the one `name`d, else the instance's default. Naming a
/// class the instance lacks, or one that cannot be used, rejects the monitor (as
/// prometheus-operator rejects it), naming `spec.scrapeClass` and the instance's field.
pub fn scrape_class(
    ctx: &ScrapeContext<'_>,
    name: Option<&str>,
) -> Result<Option<ResolvedClass>, FieldError> {
    let classes = ctx.scrape_classes.as_deref();
    let found = match (name, classes) {
        (Some(name), Some(c)) => match c.classes.iter().find(|k| k.class.name == name) {
            Some(k) => Some(k),
            None => {
                return Err(FieldError::new(
                    "spec.scrapeClass",
                    format!(
                        "names scrape class {name:?}, which MetricsInstance {} does not define (spec.scrapeClasses)",
                        c.instance.key()
                    ),
                ));
            }
        },
        (Some(name), None) => {
            return Err(FieldError::new(
                "spec.scrapeClass",
                format!(
                    "names scrape class {name:?}, and the selecting MetricsInstance defines no scrape classes (spec.scrapeClasses)"
                ),
            ));
        }
        (None, Some(c)) => c.classes.iter().find(|k| k.is_default()),
        (None, None) => None,
    };
    let Some(class) = found else {
        return Ok(None);
    };
    if let Err(why) = class.usable() {
        let instance = classes.map(|c| c.instance.key()).unwrap_or_default();
        return Err(FieldError::new(
            if name.is_some() {
                "spec.scrapeClass"
            } else {
                ""
            },
            format!(
                "scrape class {:?} of MetricsInstance {instance} cannot be used: {why}",
                class.class.name
            ),
        ));
    }
    Ok(Some(class.clone()))
}

/// Adds what `class` gives a job that the endpoint does not set itself: TLS files where the
/// endpoint has no CA, certificate or key, and the authorization when the endpoint sets no
/// way to authenticate; the class's metric relabelings go before the endpoint's. (Its
/// relabelings are placed by the caller, before the endpoint's.)
pub fn apply_class(class: &ResolvedClass, job: &mut ScrapeConfig) {
    if let Ok(Some(tls)) = &class.tls {
        let out = job.tls_config.get_or_insert_with(TlsConfigOut::default);
        if out.ca_file.is_none() {
            out.ca_file.clone_from(&tls.ca_file);
        }
        if out.cert_file.is_none() {
            out.cert_file.clone_from(&tls.cert_file);
        }
        if out.key_file.is_none() {
            out.key_file.clone_from(&tls.key_file);
        }
    }
    let authenticates = job.basic_auth.is_some()
        || job.bearer_token.is_some()
        || job.bearer_token_file.is_some()
        || job.authorization.is_some()
        || job.oauth2.is_some();
    if !authenticates && let Ok(Some(auth)) = &class.authorization {
        job.authorization = Some(auth.clone());
    }
    if let Ok(rules) = &class.metric_relabelings
        && !rules.is_empty()
    {
        let mut all = rules.clone();
        all.append(&mut job.metric_relabel_configs);
        job.metric_relabel_configs = all;
    }
}

/// The class's relabelings (none when it has none or no class applies).
pub fn class_relabelings(class: Option<&ResolvedClass>) -> Vec<RelabelRule> {
    class
        .and_then(|c| c.relabelings.as_ref().ok())
        .cloned()
        .unwrap_or_default()
}

/// What every job of a monitor takes from its spec and its scrape class (`s.scrape_class`, else
/// the instance's default): limits, body size, protocols and native histogram settings,
/// each written only where `ctx.runtime` accepts it. A value that cannot be used (an
/// unparsable size or factor, a scrape class the instance lacks) rejects the monitor, naming
/// the field.
pub fn job_fields(
    ctx: &ScrapeContext<'_>,
    s: &MonitorScrapeSettings,
    limits: &LabelLimits,
) -> Result<ScrapeConfig, FieldError> {
    let class = scrape_class(ctx, s.scrape_class.as_deref())?;
    job_fields_with_class(ctx, s, limits, class.as_ref())
}

/// [`job_fields`] with the scrape class already resolved ([`scrape_class`]).
pub fn job_fields_with_class(
    ctx: &ScrapeContext<'_>,
    s: &MonitorScrapeSettings,
    limits: &LabelLimits,
    class: Option<&ResolvedClass>,
) -> Result<ScrapeConfig, FieldError> {
    let fallback_scrape_protocol = non_empty(&s.fallback_scrape_protocol)
        .or_else(|| class.and_then(|c| non_empty(&c.class.fallback_scrape_protocol)));
    let alloy = ctx.runtime == Runtime::Alloy;
    let h = &s.native_histograms;
    // Either would send series of another shape than asked (classic histograms instead of
    // native ones): left out rather than scraped so.
    if h.scrape_native_histograms == Some(true) {
        return Err(FieldError::new(
            "spec.scrapeNativeHistograms",
            if alloy {
                "Alloy's static converter turns native histogram scraping off; left out rather than scraped into classic histograms"
            } else {
                "the agent (Prometheus 2.x) scrapes text formats only, never native histograms; left out rather than scraped into classic histograms"
            },
        ));
    }
    if !alloy && h.convert_classic_histograms_to_nhcb == Some(true) {
        return Err(FieldError::new(
            "spec.convertClassicHistogramsToNHCB",
            "the agent (Prometheus 2.x) cannot convert classic histograms; left out rather than send series of another shape",
        ));
    }
    let body_size_limit = match non_empty(&s.body_size_limit) {
        Some(size) => {
            let bytes = byte_size(&size).ok_or_else(|| {
                FieldError::new(
                    "spec.bodySizeLimit",
                    format!(
                        "{size:?} is not a size Prometheus reads (a number with B, KB, KiB, ... EiB, at most 8 EiB)"
                    ),
                )
            })?;
            (bytes > 0.0).then_some(size)
        }
        None => None,
    };
    let min_bucket_factor = match &h.native_histogram_min_bucket_factor {
        Some(q) => Some(quantity(q).ok_or_else(|| {
            FieldError::new(
                "spec.nativeHistogramMinBucketFactor",
                format!("{} is not a number", quantity_text(q)),
            )
        })?),
        None => None,
    };
    Ok(ScrapeConfig {
        scrape_protocols: if alloy {
            s.scrape_protocols.clone()
        } else {
            Vec::new()
        },
        fallback_scrape_protocol: fallback_scrape_protocol.filter(|_| alloy),
        scrape_classic_histograms: (!alloy && h.scrape_classic_histograms == Some(true))
            .then_some(true),
        always_scrape_classic_histograms: (alloy && h.scrape_classic_histograms == Some(true))
            .then_some(true),
        convert_classic_histograms_to_nhcb: (alloy
            && h.convert_classic_histograms_to_nhcb == Some(true))
        .then_some(true),
        body_size_limit,
        label_limit: positive(limits.label_limit),
        label_name_length_limit: positive(limits.label_name_length_limit),
        label_value_length_limit: positive(limits.label_value_length_limit),
        native_histogram_bucket_limit: positive(h.native_histogram_bucket_limit).filter(|_| !alloy),
        native_histogram_min_bucket_factor: min_bucket_factor.filter(|_| alloy).map(Factor),
        keep_dropped_targets: positive(s.keep_dropped_targets).filter(|_| !alloy),
        ..ScrapeConfig::default()
    })
}

/// A limit Prometheus reads as "none" at 0: written only above 0.
fn positive(v: Option<i64>) -> Option<u64> {
    v.and_then(|v| u64::try_from(v).ok()).filter(|v| *v > 0)
}

/// The `attach_metadata` of a monitor's discovery: written only for `node: true`.
pub fn attach_metadata(a: Option<&AttachMetadata>) -> Option<AttachMetadataOut> {
    (a.and_then(|a| a.node) == Some(true)).then_some(AttachMetadataOut { node: true })
}

/// The endpoint's proxy settings, as the job writes them ([`crate::config::common::proxy`]).
pub fn proxy(
    e: &ScrapeEndpoint,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<ProxyOut, FieldError> {
    crate::config::common::proxy(&e.proxy, secrets, field)
}

/// `selector` as a Kubernetes label selector string (`a=b,c in (d,e),!f`), requirements
/// ordered by key and values sorted, as the API machinery prints it; for a discovery's
/// `selectors` (`selectorMechanism: RoleSelector`). An unknown operator is an error, as for
/// the relabeling rules.
pub fn label_selector(selector: &LabelSelector, field: &str) -> Result<String, FieldError> {
    let mut requirements: Vec<(String, String)> = Vec::new();
    for (k, v) in selector.match_labels.iter().flatten() {
        requirements.push((k.clone(), format!("{k}={v}")));
    }
    for (i, req) in selector.match_expressions.iter().flatten().enumerate() {
        let mut values = req.values.clone().unwrap_or_default();
        values.sort();
        let k = &req.key;
        let text = match req.operator.as_str() {
            "In" => format!("{k} in ({})", values.join(",")),
            "NotIn" => format!("{k} notin ({})", values.join(",")),
            "Exists" => k.clone(),
            "DoesNotExist" => format!("!{k}"),
            other => {
                return Err(FieldError::because(
                    Reason::InvalidSelector,
                    format!("{field}.matchExpressions[{i}].operator"),
                    format!("unknown operator {other:?} (want In, NotIn, Exists or DoesNotExist)"),
                ));
            }
        };
        requirements.push((k.clone(), text));
    }
    requirements.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(requirements
        .into_iter()
        .map(|(_, text)| text)
        .collect::<Vec<_>>()
        .join(","))
}

/// The bytes a prometheus-operator `ByteSize` (`512MB`, `1.5GiB`, `0`) stands for, in powers
/// of 2 as Prometheus reads it; `None` when it is not one, or above what Prometheus holds
/// (an int64 of bytes).
pub fn byte_size(text: &str) -> Option<f64> {
    if text == "0" {
        return Some(0.0);
    }
    let number = text.strip_suffix('B')?;
    let (number, unit) = match number.strip_suffix('i') {
        Some(rest) => (rest, rest.chars().last()),
        None => (number, number.chars().last()),
    };
    let (digits, power) = match unit.and_then(|u| "KMGTPE".find(u)) {
        Some(i) => (&number[..number.len() - 1], i32::try_from(i).ok()? + 1),
        None => (number, 0),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let bytes = digits.parse::<f64>().ok()? * 1024f64.powi(power);
    // Prometheus holds the size in an int64: below 2^63.
    (bytes < 2f64.powi(63)).then_some(bytes)
}

/// A Kubernetes quantity (`1.1`, `1100m`, `2`, `1e3`, `1Ki`) as a number.
pub fn quantity(q: &IntOrString) -> Option<f64> {
    let text = match q {
        IntOrString::Int(n) => return Some(f64::from(*n)),
        IntOrString::String(s) => s.as_str(),
    };
    const BINARY: [(&str, i32); 6] = [
        ("Ki", 1),
        ("Mi", 2),
        ("Gi", 3),
        ("Ti", 4),
        ("Pi", 5),
        ("Ei", 6),
    ];
    for (suffix, power) in BINARY {
        if let Some(n) = text.strip_suffix(suffix) {
            return plain_number(n).map(|n| n * 1024f64.powi(power));
        }
    }
    const DECIMAL: [(char, i32); 9] = [
        ('n', -9),
        ('u', -6),
        ('m', -3),
        ('k', 3),
        ('M', 6),
        ('G', 9),
        ('T', 12),
        ('P', 15),
        ('E', 18),
    ];
    for (suffix, power) in DECIMAL {
        if let Some(n) = text.strip_suffix(suffix) {
            return plain_number(n).map(|n| n * 10f64.powi(power));
        }
    }
    // What is left may carry an exponent (`1e3`), which Rust's parser reads.
    text.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// A decimal number without exponent or suffix.
fn plain_number(text: &str) -> Option<f64> {
    let digits = text.trim_start_matches(['+', '-']);
    (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .then(|| text.parse::<f64>().ok())
        .flatten()
}

fn quantity_text(q: &IntOrString) -> String {
    match q {
        IntOrString::Int(n) => n.to_string(),
        IntOrString::String(s) => format!("{s:?}"),
    }
}

/// The warnings of `h`'s ServiceMonitors, PodMonitors and Probes: each field set that the
/// runtime cannot apply, with what it does instead (Reason `AlloyDifference` for Alloy,
/// `UnusedSetting` for the agent). The monitors run; a monitor selected by several instances
/// is warned about once.
pub fn warnings(h: &Hierarchy) -> Vec<Rejection> {
    let runtime = crate::alloy::runtime(h);
    let mut out = BTreeSet::new();
    for node in &h.metrics {
        out.extend(class_warnings(runtime, node.instance.as_ref()));
        // Each monitor's name is made only for a warning: most monitors have none.
        for sm in &node.service_monitors {
            let object = || InputRef::of(Kind::ServiceMonitor, sm.as_ref());
            let endpoints = sm.spec.endpoints.iter().map(|e| &e.common);
            out.extend(monitor_warnings(
                runtime,
                object,
                &sm.spec.scrape,
                endpoints,
                "spec.endpoints",
            ));
        }
        for pm in &node.pod_monitors {
            let object = || InputRef::of(Kind::PodMonitor, pm.as_ref());
            let endpoints = pm.spec.pod_metrics_endpoints.iter().map(|e| &e.common);
            out.extend(monitor_warnings(
                runtime,
                object,
                &pm.spec.scrape,
                endpoints,
                "spec.podMetricsEndpoints",
            ));
        }
        for p in &node.probes {
            let object = InputRef::of(Kind::Probe, p.as_ref());
            out.extend(monitor_warnings(
                runtime,
                || object.clone(),
                &probe_settings(&p.spec),
                std::iter::empty(),
                "",
            ));
            out.extend(probe_module_warning(&object, &p.spec));
        }
        if runtime == Runtime::Alloy {
            out.extend(node.service_monitors.iter().flat_map(|sm| {
                let tls = sm.spec.endpoints.iter().enumerate().map(|(i, e)| {
                    let f = format!("spec.endpoints[{i}]");
                    let own = e.tls_config.as_ref().map(|t| &t.versions);
                    (f, own, e.common.oauth2.as_ref())
                });
                max_version_warnings(InputRef::of(Kind::ServiceMonitor, sm.as_ref()), tls)
            }));
            out.extend(node.pod_monitors.iter().flat_map(|pm| {
                let endpoints = pm.spec.pod_metrics_endpoints.iter().enumerate();
                let tls = endpoints.map(|(i, e)| {
                    let f = format!("spec.podMetricsEndpoints[{i}]");
                    let own = e.tls_config.as_ref().map(|t| &t.versions);
                    (f, own, e.common.oauth2.as_ref())
                });
                max_version_warnings(InputRef::of(Kind::PodMonitor, pm.as_ref()), tls)
            }));
            out.extend(node.probes.iter().flat_map(|p| {
                let own = p.spec.tls_config.as_ref().map(|t| &t.versions);
                let tls = [("spec".to_owned(), own, p.spec.oauth2.as_ref())];
                max_version_warnings(InputRef::of(Kind::Probe, p.as_ref()), tls)
            }));
        }
    }
    out.into_iter().collect()
}

/// The settings a Probe shares with ServiceMonitors, in their type, so that its job takes them
/// (and its warnings) as a monitor's do. A Probe has no `selectorMechanism` nor
/// `bodySizeLimit` (prometheus-operator v0.95).
pub fn probe_settings(spec: &ProbeSpec) -> MonitorScrapeSettings {
    MonitorScrapeSettings {
        selector_mechanism: None,
        scrape_protocols: spec.scrape_protocols.clone(),
        fallback_scrape_protocol: spec.fallback_scrape_protocol.clone(),
        extra_scrape_metrics: spec.extra_scrape_metrics,
        native_histograms: spec.native_histograms.clone(),
        keep_dropped_targets: spec.keep_dropped_targets,
        scrape_class: spec.scrape_class.clone(),
        body_size_limit: None,
    }
}

/// A `params` entry named `module` beside `spec.module`: the module wins (as
/// prometheus-operator's CRD says), so the entry is not sent; said rather than dropped.
fn probe_module_warning(object: &InputRef, spec: &ProbeSpec) -> Option<Rejection> {
    non_empty(&spec.module)?;
    let i = spec.params.iter().position(|p| p.name == "module")?;
    Some(Rejection::new(
        object.clone(),
        Reason::UnusedSetting,
        format!("spec.params[{i}]"),
        "not sent: spec.module is the module parameter sent to the prober".to_owned(),
    ))
}

/// With Alloy, one warning per TLS `maxVersion` of `object`: its HTTP clients, each a field
/// path with its own TLS versions and its OAuth2, whose token requests have TLS too. Alloy
/// has no such setting (`alloy validate` refuses the attribute; its converter refuses it on a
/// job and drops it on an oauth2 block), so the runtime accepts up to TLS 1.3 instead; the
/// lowest version still applies.
fn max_version_warnings<'a>(
    object: InputRef,
    clients: impl IntoIterator<Item = (String, Option<&'a TlsVersions>, Option<&'a ScrapeOAuth2>)>,
) -> Vec<Rejection> {
    let mut out = Vec::new();
    for (field, own, oauth2) in clients {
        let token = oauth2
            .and_then(|o| o.tls_config.as_ref())
            .map(|t| &t.versions);
        for (tls_field, versions) in [
            (format!("{field}.tlsConfig"), own),
            (format!("{field}.oauth2.tlsConfig"), token),
        ] {
            if versions.is_some_and(|v| non_empty(&v.max_version).is_some()) {
                out.push(Rejection::new(
                    object.clone(),
                    Reason::AlloyDifference,
                    format!("{tls_field}.maxVersion"),
                    "not used by Alloy: it has no highest TLS version setting, so TLS up to 1.3 is accepted".to_owned(),
                ));
            }
        }
    }
    out
}

/// What of a MetricsInstance's scrape classes is not used (reason `UnusedSetting`; the
/// instance and its monitors run): a class whose name an earlier one has, a default after the
/// first, and, with the agent, a class's `fallbackScrapeProtocol` other than the one it uses.
fn class_warnings(runtime: Runtime, instance: &api::MetricsInstance) -> Vec<Rejection> {
    let object = InputRef::of(Kind::MetricsInstance, instance);
    let mut out = Vec::new();
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    let mut default: Option<&str> = None;
    for (i, class) in instance.spec.scrape_classes.iter().enumerate() {
        let field = format!("spec.scrapeClasses[{i}]");
        let mut warn = |field: String, message: String| {
            out.push(Rejection::new(
                object.clone(),
                Reason::UnusedSetting,
                field,
                message,
            ));
        };
        if let Some(first) = names.get(class.name.as_str()) {
            warn(
                format!("{field}.name"),
                format!(
                    "ignored: spec.scrapeClasses[{first}] has the name {:?} already, and monitors naming it take that one",
                    class.name
                ),
            );
            continue;
        }
        names.insert(class.name.as_str(), i);
        if class.default == Some(true) {
            match default {
                Some(first) => warn(
                    format!("{field}.default"),
                    format!(
                        "ignored: scrape class {first:?} is the default already (prometheus-operator allows one); monitors naming no class take {first:?}"
                    ),
                ),
                None => default = Some(class.name.as_str()),
            }
        }
        if runtime == Runtime::Agent
            && let Some(p) = non_empty(&class.fallback_scrape_protocol)
            && p != AGENT_FALLBACK
        {
            warn(
                format!("{field}.fallbackScrapeProtocol"),
                "not used by the agent: it parses a response without a known Content-Type as PrometheusText0.0.4".to_owned(),
            );
        }
    }
    out
}

/// One monitor's warnings (see [`warnings`]); a Probe's and a ScrapeConfig's too, with no
/// endpoints.
pub(super) fn monitor_warnings<'e>(
    runtime: Runtime,
    object: impl Fn() -> InputRef,
    s: &MonitorScrapeSettings,
    endpoints: impl Iterator<Item = &'e ScrapeEndpoint>,
    endpoints_field: &str,
) -> Vec<Rejection> {
    let mut out = Vec::new();
    let (reason, who) = match runtime {
        Runtime::Alloy => (Reason::AlloyDifference, "Alloy"),
        Runtime::Agent => (Reason::UnusedSetting, "the agent"),
    };
    let mut warn = |field: String, instead: &str| {
        out.push(Rejection::new(
            object(),
            reason,
            field,
            format!("not used by {who}: {instead}"),
        ));
    };
    let h: &NativeHistogramConfig = &s.native_histograms;
    if s.extra_scrape_metrics == Some(true) {
        warn(
            "spec.extraScrapeMetrics".to_owned(),
            "it cannot add the extra scrape metrics per job: only `up`, `scrape_duration_seconds`, `scrape_samples_scraped`, `scrape_samples_post_metric_relabeling` and `scrape_series_added` are written",
        );
    }
    match runtime {
        Runtime::Agent => {
            if !s.scrape_protocols.is_empty() {
                warn(
                    "spec.scrapeProtocols".to_owned(),
                    "it cannot choose the formats to negotiate: it asks for OpenMetrics 1.0.0, then 0.0.1, then the Prometheus text format 0.0.4",
                );
            }
            if let Some(p) = non_empty(&s.fallback_scrape_protocol)
                && p != AGENT_FALLBACK
            {
                warn(
                    "spec.fallbackScrapeProtocol".to_owned(),
                    "it parses a response without a known Content-Type as PrometheusText0.0.4",
                );
            }
            if h.native_histogram_min_bucket_factor.is_some() {
                warn(
                    "spec.nativeHistogramMinBucketFactor".to_owned(),
                    "it does not know the setting, and scrapes no native histograms to apply it to",
                );
            }
        }
        Runtime::Alloy => {
            if positive(s.keep_dropped_targets).is_some() {
                warn(
                    "spec.keepDroppedTargets".to_owned(),
                    "its static converter refuses the setting: Alloy keeps no dropped targets in memory",
                );
            }
            if positive(h.native_histogram_bucket_limit).is_some() {
                warn(
                    "spec.nativeHistogramBucketLimit".to_owned(),
                    "its static converter refuses the setting, and native histograms are not scraped to apply it to",
                );
            }
            for (i, e) in endpoints.enumerate() {
                if e.track_timestamps_staleness == Some(true) {
                    warn(
                        format!("{endpoints_field}[{i}].trackTimestampsStaleness"),
                        "its static converter refuses the setting: samples with the target's own timestamps get no staleness markers when they disappear",
                    );
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes_are_powers_of_two_and_bounded() {
        assert_eq!(byte_size("0"), Some(0.0));
        assert_eq!(byte_size("512B"), Some(512.0));
        assert_eq!(byte_size("10MB"), Some(10.0 * 1024.0 * 1024.0));
        assert_eq!(byte_size("10MiB"), byte_size("10MB"));
        assert_eq!(byte_size("1.5KB"), Some(1536.0));
        assert_eq!(byte_size("7EB"), Some(7.0 * 1024f64.powi(6)));
        // Above an int64 of bytes, and what the CRD's pattern already refuses.
        assert_eq!(byte_size("8EB"), None);
        assert_eq!(byte_size("10"), None);
        assert_eq!(byte_size("MB"), None);
        assert_eq!(byte_size("10XB"), None);
        assert_eq!(byte_size("-1KB"), None);
    }

    #[test]
    fn quantities_read_as_kubernetes_writes_them() {
        let s = |t: &str| quantity(&IntOrString::String(t.to_owned()));
        assert_eq!(quantity(&IntOrString::Int(2)), Some(2.0));
        assert_eq!(s("1.1"), Some(1.1));
        assert_eq!(s("1100m"), Some(1.1));
        assert_eq!(s("1e3"), Some(1000.0));
        assert_eq!(s("2k"), Some(2000.0));
        assert_eq!(s("1Ki"), Some(1024.0));
        assert_eq!(s("x"), None);
        assert_eq!(s("m"), None);
    }

    #[test]
    fn label_selectors_print_as_the_api_machinery_prints_them() {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;
        let req = |key: &str, operator: &str, values: &[&str]| LabelSelectorRequirement {
            key: key.to_owned(),
            operator: operator.to_owned(),
            values: Some(values.iter().map(|v| (*v).to_owned()).collect()),
        };
        let sel = LabelSelector {
            match_labels: Some([("app".to_owned(), "web".to_owned())].into()),
            match_expressions: Some(vec![
                req("tier", "In", &["front", "back"]),
                req("env", "NotIn", &["dev"]),
                req("canary", "DoesNotExist", &[]),
                req("ab", "Exists", &[]),
            ]),
        };
        assert_eq!(
            label_selector(&sel, "spec.selector").expect("valid"),
            "ab,app=web,!canary,env notin (dev),tier in (back,front)"
        );
        let bad = LabelSelector {
            match_expressions: Some(vec![req("a", "Near", &[])]),
            ..Default::default()
        };
        assert_eq!(
            label_selector(&bad, "spec.selector").unwrap_err().field,
            "spec.selector.matchExpressions[0].operator"
        );
        assert_eq!(
            label_selector(&LabelSelector::default(), "spec.selector").expect("valid"),
            ""
        );
    }

    #[test]
    fn proxy_combinations_prometheus_refuses_are_conflicts() {
        let assets = crate::assets::Assets::default();
        let secrets = Secrets {
            assets: &assets,
            namespace: "ns",
        };
        let e = |url: Option<&str>, no: Option<&str>, env: Option<bool>| ScrapeEndpoint {
            proxy: api::prometheus::ProxySettings {
                proxy_url: url.map(str::to_owned),
                no_proxy: no.map(str::to_owned),
                proxy_from_environment: env,
                ..Default::default()
            },
            ..Default::default()
        };
        for bad in [
            e(None, Some("10.0.0.0/8"), None),
            e(Some("http://p:3128"), None, Some(true)),
            e(None, Some("a"), Some(true)),
        ] {
            let err = proxy(&bad, secrets, "spec.endpoints[0]").expect_err("a conflict");
            assert_eq!(err.reason, Reason::ConflictingSettings);
            assert_eq!(err.field, "spec.endpoints[0]");
        }
        let ok = proxy(
            &e(Some("http://p:3128"), Some("10.0.0.0/8"), None),
            secrets,
            "f",
        )
        .expect("valid");
        assert_eq!(ok.no_proxy.as_deref(), Some("10.0.0.0/8"));
        let env = proxy(&e(None, None, Some(true)), secrets, "f").expect("valid");
        assert_eq!(env.proxy_from_environment, Some(true));
        let header_only = ScrapeEndpoint {
            proxy: api::prometheus::ProxySettings {
                proxy_connect_header: [("X-A".to_owned(), Vec::new())].into(),
                ..Default::default()
            },
            ..Default::default()
        };
        assert!(proxy(&header_only, secrets, "f").is_err());
    }
}
