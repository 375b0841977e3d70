//! PodMonitor endpoints → scrape jobs (spec 4.8).

use api::PodMonitor;
use api::monitors::PodMetricsEndpoint;

use crate::assets::sanitize_label;
use crate::config::common::{
    FieldError, KubernetesSdConfig, RelabelRule, SdSelector, non_empty, scrape_tls, sd_namespaces,
    selector_relabels, user_relabel_rules,
};
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};

use super::monitor_settings;
use super::scrape::{
    ScrapeConfig, ScrapeContext, check_single_auth, check_tls_pair, limit, rejection,
};
use super::service_monitor::{
    endpoint_label, job_name_copy, label_copy, meta_label_copies, pod_phase_drop, port_filter,
};
use super::validate;

const POD_LABEL: &str = "__meta_kubernetes_pod_label_";
const POD_LABEL_PRESENT: &str = "__meta_kubernetes_pod_labelpresent_";
const CONTAINER_PORT_NAME: &str = "__meta_kubernetes_pod_container_port_name";

/// One scrape job per `podMetricsEndpoints` entry of `pm`, in order, job names
/// `podMonitor/<ns>/<name>/<index>`. Any problem rejects the whole PodMonitor.
pub fn pod_monitor_jobs(
    ctx: &ScrapeContext<'_>,
    pm: &PodMonitor,
) -> Result<Vec<ScrapeConfig>, Rejection> {
    let object = InputRef::of(Kind::PodMonitor, pm);
    ctx.check_usable(&object)?;
    jobs(ctx, pm, &object).map_err(|e| rejection(&object, e))
}

/// The parts of every endpoint's job that depend on the monitor only.
struct MonitorRules {
    selector: Vec<RelabelRule>,
    sd: KubernetesSdConfig,
    pod_target_labels: Vec<RelabelRule>,
    /// `{TL: job, replacement: <ns>/<name>}` and the optional `jobLabel` rule.
    job: Vec<RelabelRule>,
    /// What every job takes from the spec ([`monitor_settings::job_fields`]).
    monitor_fields: ScrapeConfig,
    /// The scrape class the monitor takes, if any.
    class: Option<monitor_settings::ResolvedClass>,
}

fn jobs(
    ctx: &ScrapeContext<'_>,
    pm: &PodMonitor,
    object: &InputRef,
) -> Result<Vec<ScrapeConfig>, FieldError> {
    let spec = &pm.spec;
    let ns = object.namespace.as_str();
    let namespaces = sd_namespaces(
        spec.namespace_selector.as_ref(),
        ns,
        ctx.ignore_namespace_selectors,
    );
    let mut sd = ctx
        .kubernetes_sd("pod", namespaces)
        .map_err(|m| FieldError::because(Reason::AgentSettingUnusable, "", m))?;
    let class = monitor_settings::scrape_class(ctx, spec.scrape.scrape_class.as_deref())?;
    // The monitor's own `attachMetadata` wins over its scrape class's.
    sd.attach_metadata = monitor_settings::attach_metadata(
        spec.attach_metadata.as_ref().or(class
            .as_ref()
            .and_then(|c| c.class.attach_metadata.as_ref())),
    );
    // `RoleSelector`: the API server selects the Pods, so no relabeling rule is needed.
    let selector = if spec.scrape.selector_mechanism.as_deref() == Some("RoleSelector") {
        let label = monitor_settings::label_selector(&spec.selector, "spec.selector")?;
        if !label.is_empty() {
            sd.selectors = vec![SdSelector {
                role: "pod".to_owned(),
                label,
            }];
        }
        Vec::new()
    } else {
        selector_relabels(
            &spec.selector,
            POD_LABEL,
            POD_LABEL_PRESENT,
            "spec.selector",
        )?
    };
    let pod_target_labels = spec
        .pod_target_labels
        .iter()
        .enumerate()
        .map(|(i, l)| label_copy(POD_LABEL, l, &format!("spec.podTargetLabels[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut job = vec![RelabelRule::set("job", &object.key())];
    if let Some(l) = non_empty(&spec.job_label) {
        job.push(RelabelRule {
            source_labels: vec![format!("{POD_LABEL}{}", sanitize_label(&l))],
            target_label: Some("job".to_owned()),
            regex: Some("(.+)".into()),
            replacement: Some("$1".to_owned()),
            ..Default::default()
        });
    }
    let shared = MonitorRules {
        selector,
        sd,
        pod_target_labels,
        job,
        monitor_fields: monitor_settings::job_fields_with_class(
            ctx,
            &spec.scrape,
            &spec.label_limits,
            class.as_ref(),
        )?,
        class,
    };
    spec.pod_metrics_endpoints
        .iter()
        .enumerate()
        .map(|(i, e)| endpoint_job(ctx, pm, object, &shared, i, e))
        .collect()
}

fn endpoint_job(
    ctx: &ScrapeContext<'_>,
    pm: &PodMonitor,
    object: &InputRef,
    shared: &MonitorRules,
    index: usize,
    endpoint: &PodMetricsEndpoint,
) -> Result<ScrapeConfig, FieldError> {
    let ns = object.namespace.as_str();
    let field = format!("spec.podMetricsEndpoints[{index}]");
    let e = &endpoint.common;
    let secrets = ctx.secrets(ns);
    validate::check_scrape_timing(
        &e.interval,
        &e.scrape_timeout,
        ctx.global_scrape_interval_ms,
        &format!("{field}."),
    )?;

    let mut relabel = vec![job_name_copy()];
    // Unlike ServiceMonitors, the phase filter comes before everything else.
    if e.filter_running == Some(true) {
        relabel.push(pod_phase_drop());
    }
    relabel.extend(shared.selector.iter().cloned());
    // `port` wins, then `portNumber`, then `targetPort`, as prometheus-operator orders them.
    match endpoint.port_number {
        Some(n) if n != 0 && non_empty(&e.port).is_none() => relabel.push(RelabelRule::filter(
            "__meta_kubernetes_pod_container_port_number",
            &n.to_string(),
            "keep",
        )),
        _ => relabel.extend(port_filter(e, CONTAINER_PORT_NAME)),
    }
    relabel.extend(meta_label_copies());
    relabel.extend(shared.pod_target_labels.iter().cloned());
    relabel.extend(shared.job.iter().cloned());
    if let Some(endpoint_value) = endpoint_label(&e.port, &e.target_port) {
        relabel.push(RelabelRule::set("endpoint", &endpoint_value));
    }
    // The scrape class's rules come after the operator's, before the endpoint's own.
    relabel.extend(monitor_settings::class_relabelings(shared.class.as_ref()));
    relabel.extend(user_relabel_rules(
        &e.relabelings,
        &format!("{field}.relabelings"),
    )?);
    relabel.extend(ctx.enforced_namespace_rule(ns));
    relabel.extend(ctx.sharding_rules("__address__"));

    // As for ServiceMonitors: fields in the order written, `..` last.
    let mut job = ScrapeConfig {
        job_name: format!("podMonitor/{ns}/{}/{index}", object.name),
        kubernetes_sd_configs: vec![shared.sd.clone()],
        tls_config: endpoint
            .tls_config
            .as_ref()
            .map(|t| scrape_tls(ctx.runtime, t, secrets, &format!("{field}.tlsConfig")))
            .transpose()?,
        relabel_configs: relabel,
        sample_limit: limit(pm.spec.sample_limit, ctx.enforced_sample_limit),
        target_limit: limit(pm.spec.target_limit, ctx.enforced_target_limit),
        ..ctx.endpoint_job_fields(e, secrets, &field, shared.monitor_fields.clone())?
    };
    if let Some(class) = &shared.class {
        monitor_settings::apply_class(class, &mut job);
    }
    check_single_auth(&job, &field)?;
    check_tls_pair(job.tls_config.as_ref(), &format!("{field}.tlsConfig"))?;
    Ok(job)
}
