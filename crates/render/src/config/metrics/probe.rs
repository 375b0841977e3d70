//! Probes → one scrape job each (spec 4.9, with the Q2 fix: sharded on the probed target when
//! there is more than one shard).

use std::collections::BTreeMap;

use api::Probe;
use api::monitors::ProbeParam;

use crate::config::common::{
    FieldError, RelabelRule, basic_auth_inline, non_empty, proxy, safe_authorization,
    scrape_oauth2, scrape_tls, sd_namespaces, selector_relabels, user_relabel_rules,
};
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};

use super::monitor_settings;
use super::scrape::{
    ScrapeConfig, ScrapeContext, StaticConfig, check_single_auth, check_tls_pair, rejection,
};
use super::service_monitor::job_name_copy;
use super::validate;

const INGRESS_LABEL: &str = "__meta_kubernetes_ingress_label_";
const INGRESS_LABEL_PRESENT: &str = "__meta_kubernetes_ingress_labelpresent_";

/// The scrape job of `probe`, named `probe/<ns>/<name>`. A Probe with neither static targets
/// nor an ingress is rejected on its own (upstream fails the whole agent, Q2).
pub fn probe_job(ctx: &ScrapeContext<'_>, probe: &Probe) -> Result<ScrapeConfig, Rejection> {
    let object = InputRef::of(Kind::Probe, probe);
    ctx.check_usable(&object)?;
    job(ctx, probe, &object).map_err(|e| rejection(&object, e))
}

fn job(
    ctx: &ScrapeContext<'_>,
    probe: &Probe,
    object: &InputRef,
) -> Result<ScrapeConfig, FieldError> {
    let spec = &probe.spec;
    let ns = object.namespace.as_str();
    let secrets = ctx.secrets(ns);
    validate::check_scrape_timing(
        &spec.interval,
        &spec.scrape_timeout,
        ctx.global_scrape_interval_ms,
        "spec.",
    )?;
    let prober = spec.prober.clone().unwrap_or_default();
    // The scrape class (the one named, else the instance's default; a name the instance lacks
    // rejects the Probe) and the settings ServiceMonitors share, label limits included,
    // rendered as theirs are (the Grafana Agent Operator ignored a Probe's limits and metric
    // relabelings: issue 36, never silently dropped).
    let class = monitor_settings::scrape_class(ctx, spec.scrape_class.as_deref())?;
    let mut job = monitor_settings::job_fields_with_class(
        ctx,
        &monitor_settings::probe_settings(spec),
        &spec.label_limits,
        class.as_ref(),
    )?;
    job.metric_relabel_configs =
        ctx.metric_relabels(spec.metric_relabelings.as_deref(), "spec.metricRelabelings")?;
    // Only a limit the Probe sets is written (the GrafanaAgent's enforced limit lowers it): a
    // Probe without one keeps the output it had, unlimited, as the Grafana Agent Operator gave.
    job.sample_limit = own_limit(spec.sample_limit, ctx.enforced_sample_limit);
    job.target_limit = own_limit(spec.target_limit, ctx.enforced_target_limit);
    // As prometheus-operator's generator: the class's relabelings after the prober's address.
    let class_relabelings = monitor_settings::class_relabelings(class.as_ref());

    let mut relabel = vec![job_name_copy()];
    if let Some(job_name) = non_empty(&spec.job_name) {
        relabel.push(RelabelRule::set("job", &job_name));
    }
    // The prober's address is not optional: upstream writes `replacement: ""` when it is empty.
    let prober_address = RelabelRule::set("__address__", &prober.url);
    let targets = spec.targets.as_ref();
    if let Some(static_config) = targets.and_then(|t| t.static_config.as_ref()) {
        let mut labels: BTreeMap<String, String> = static_config.labels.clone();
        labels.insert("namespace".to_owned(), ns.to_owned());
        job.static_configs = vec![StaticConfig {
            targets: static_config.targets.clone(),
            labels,
        }];
        relabel.push(RelabelRule::copy("__address__", "__param_target"));
        relabel.push(RelabelRule::copy("__param_target", "instance"));
        relabel.push(prober_address);
        relabel.extend(class_relabelings);
        relabel.extend(user_relabel_rules(
            &static_config.relabeling_configs,
            "spec.targets.staticConfig.relabelingConfigs",
        )?);
    } else if let Some(ingress) = targets.and_then(|t| t.ingress.as_ref()) {
        let namespaces = sd_namespaces(
            ingress.namespace_selector.as_ref(),
            ns,
            ctx.ignore_namespace_selectors,
        );
        job.kubernetes_sd_configs = vec![
            ctx.kubernetes_sd("ingress", namespaces)
                .map_err(|m| FieldError::because(Reason::AgentSettingUnusable, "", m))?,
        ];
        if let Some(selector) = &ingress.selector {
            relabel.extend(selector_relabels(
                selector,
                INGRESS_LABEL,
                INGRESS_LABEL_PRESENT,
                "spec.targets.ingress.selector",
            )?);
        }
        relabel.push(RelabelRule {
            source_labels: vec![
                "__meta_kubernetes_ingress_scheme".to_owned(),
                "__address__".to_owned(),
                "__meta_kubernetes_ingress_path".to_owned(),
            ],
            separator: Some(";".to_owned()),
            regex: Some("(.+);(.+);(.+)".into()),
            target_label: Some("__param_target".to_owned()),
            replacement: Some("$1://$2$3".to_owned()),
            action: Some("replace".to_owned()),
            ..Default::default()
        });
        relabel.push(RelabelRule::copy(
            "__meta_kubernetes_namespace",
            "namespace",
        ));
        relabel.push(RelabelRule::copy(
            "__meta_kubernetes_ingress_name",
            "ingress",
        ));
        relabel.push(RelabelRule::copy("__param_target", "instance"));
        relabel.push(prober_address);
        relabel.extend(class_relabelings);
        relabel.extend(user_relabel_rules(
            &ingress.relabeling_configs,
            "spec.targets.ingress.relabelingConfigs",
        )?);
    } else {
        return Err(FieldError::new(
            "spec.targets",
            "has neither staticConfig nor ingress, so there is nothing to probe",
        ));
    }
    relabel.extend(ctx.enforced_namespace_rule(ns));
    // Q2 fix: with one shard the output stays upstream's; above that, every shard would
    // otherwise probe every target.
    if ctx.shards > 1 {
        relabel.extend(ctx.sharding_rules("__param_target"));
    }

    job.job_name = format!("probe/{ns}/{}", object.name);
    job.honor_timestamps = Some(!ctx.override_honor_timestamps);
    job.metrics_path = Some(if prober.path.is_empty() {
        "/probe".to_owned()
    } else {
        prober.path.clone()
    });
    job.scrape_interval = non_empty(&spec.interval);
    job.scrape_timeout = non_empty(&spec.scrape_timeout);
    // prometheus-operator's CRD accepts `HTTP`/`HTTPS`; Prometheus only the lower case.
    job.scheme = non_empty(&prober.scheme).map(|s| s.to_ascii_lowercase());
    job.params = params(spec.module.as_deref(), &spec.params)?;
    let prober_proxy = proxy(&prober.proxy, secrets, "spec.prober")?;
    job.proxy_url = prober_proxy.proxy_url;
    job.no_proxy = prober_proxy.no_proxy;
    job.proxy_from_environment = prober_proxy.proxy_from_environment;
    job.proxy_connect_header = prober_proxy.proxy_connect_header;
    // Only false is written: true is Prometheus' default.
    job.follow_redirects = (spec.follow_redirects == Some(false)).then_some(false);
    job.enable_http2 = (spec.enable_http2 == Some(false)).then_some(false);
    job.tls_config = spec
        .tls_config
        .as_ref()
        .map(|t| scrape_tls(ctx.runtime, t, secrets, "spec.tlsConfig"))
        .transpose()?;
    job.bearer_token = match &spec.bearer_token_secret {
        Some(sel) if !sel.name.is_empty() => secrets.value(sel, "spec.bearerTokenSecret")?,
        _ => None,
    };
    job.basic_auth = spec
        .basic_auth
        .as_ref()
        .map(|b| basic_auth_inline(b, secrets, "spec.basicAuth"))
        .transpose()?;
    job.authorization = match &spec.authorization {
        Some(a) => safe_authorization(a, secrets, "spec.authorization")?,
        None => None,
    };
    job.oauth2 = spec
        .oauth2
        .as_ref()
        .map(|o| scrape_oauth2(ctx.runtime, o, secrets, "spec.oauth2"))
        .transpose()?;
    job.relabel_configs = relabel;
    if let Some(class) = &class {
        monitor_settings::apply_class(class, &mut job);
    }
    check_single_auth(&job, "spec")?;
    check_tls_pair(job.tls_config.as_ref(), "spec.tlsConfig")?;
    Ok(job)
}

/// `own` (a Probe's limit), lowered to `enforced` when that is smaller; nothing when the
/// Probe sets none.
fn own_limit(own: Option<i64>, enforced: Option<u64>) -> Option<u64> {
    own.filter(|n| *n > 0)
        .and_then(|_| crate::config::metrics::scrape::limit(own, enforced))
}

/// The prober's URL parameters: `params` by name, and `module` always present (even as `[""]`,
/// as upstream writes it): `spec.module` when set, else the `module` entry of `params`. A name
/// given twice, or an empty one, rejects the Probe: which values were meant cannot be told (the
/// API server refuses both; `render` reads files it never checked).
fn params(
    module: Option<&str>,
    params: &[ProbeParam],
) -> Result<BTreeMap<String, Vec<String>>, FieldError> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (i, p) in params.iter().enumerate() {
        if p.name.is_empty() {
            return Err(FieldError::new(
                format!("spec.params[{i}].name"),
                "is empty: a URL parameter needs a name",
            ));
        }
        if out.insert(p.name.clone(), p.values.clone()).is_some() {
            return Err(FieldError::because(
                Reason::DuplicateName,
                format!("spec.params[{i}].name"),
                format!("{:?} is given twice; each parameter is listed once", p.name),
            ));
        }
    }
    match module.filter(|m| !m.is_empty()) {
        Some(m) => {
            out.insert("module".to_owned(), vec![m.to_owned()]);
        }
        None => {
            out.entry("module".to_owned())
                .or_insert_with(|| vec![String::new()]);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str, values: &[&str]) -> ProbeParam {
        ProbeParam {
            name: name.to_owned(),
            values: values.iter().map(|v| (*v).to_owned()).collect(),
        }
    }

    fn module_of(module: Option<&str>, given: &[ProbeParam]) -> Vec<String> {
        params(module, given).expect("valid")["module"].clone()
    }

    #[test]
    fn the_module_is_spec_module_else_the_params_entry_else_empty() {
        let with_module = [param("module", &["icmp"]), param("debug", &["true"])];
        assert_eq!(module_of(Some("http_2xx"), &with_module), ["http_2xx"]);
        assert_eq!(module_of(None, &with_module), ["icmp"]);
        assert_eq!(module_of(Some(""), &with_module), ["icmp"]);
        assert_eq!(module_of(None, &[]), [""]);
        let all = params(Some("http_2xx"), &with_module).expect("valid");
        assert_eq!(all["debug"], ["true"]);
        assert_eq!(all.len(), 2);
    }

    #[test]
    fn a_parameter_named_twice_or_without_a_name_is_rejected() {
        let twice = params(None, &[param("a", &["1"]), param("a", &["2"])]).unwrap_err();
        assert_eq!(twice.reason, Reason::DuplicateName);
        assert_eq!(twice.field, "spec.params[1].name");
        let unnamed = params(None, &[param("", &["1"])]).unwrap_err();
        assert_eq!(unnamed.field, "spec.params[0].name");
    }
}
