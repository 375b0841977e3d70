//! ServiceMonitor endpoints → scrape jobs (spec 4.7).

use api::ServiceMonitor;
use api::monitors::{Endpoint, ScrapeEndpoint};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::assets::sanitize_label;
use crate::config::common::{
    FieldError, KubernetesSdConfig, RelabelRule, SdSelector, endpoint_tls, non_empty,
    sd_namespaces, selector_relabels, user_relabel_rules,
};
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};

use super::monitor_settings;
use super::scrape::{
    ScrapeConfig, ScrapeContext, check_single_auth, check_tls_pair, limit, rejection,
};
use super::validate;

const SERVICE_LABEL: &str = "__meta_kubernetes_service_label_";
const SERVICE_LABEL_PRESENT: &str = "__meta_kubernetes_service_labelpresent_";
const POD_LABEL: &str = "__meta_kubernetes_pod_label_";

/// One scrape job per endpoint of `sm`, in endpoint order, job names
/// `serviceMonitor/<ns>/<name>/<index>`. Any problem rejects the whole ServiceMonitor (the
/// rejection names the field), so that a monitor is either scraped as written or not at all.
pub fn service_monitor_jobs(
    ctx: &ScrapeContext<'_>,
    sm: &ServiceMonitor,
) -> Result<Vec<ScrapeConfig>, Rejection> {
    let object = InputRef::of(Kind::ServiceMonitor, sm);
    ctx.check_usable(&object)?;
    jobs(ctx, sm, &object).map_err(|e| rejection(&object, e))
}

fn jobs(
    ctx: &ScrapeContext<'_>,
    sm: &ServiceMonitor,
    object: &InputRef,
) -> Result<Vec<ScrapeConfig>, FieldError> {
    let spec = &sm.spec;
    let ns = object.namespace.as_str();
    let role = match spec.service_discovery_role.as_deref() {
        Some("EndpointSlice") => Role::EndpointSlice,
        _ => Role::Endpoints,
    };
    let namespaces = sd_namespaces(
        spec.namespace_selector.as_ref(),
        ns,
        ctx.ignore_namespace_selectors,
    );
    let mut sd = ctx
        .kubernetes_sd(role.name(), namespaces)
        .map_err(|m| FieldError::because(Reason::AgentSettingUnusable, "", m))?;
    let class = monitor_settings::scrape_class(ctx, spec.scrape.scrape_class.as_deref())?;
    // The monitor's own `attachMetadata` wins over its scrape class's.
    sd.attach_metadata = monitor_settings::attach_metadata(
        spec.attach_metadata.as_ref().or(class
            .as_ref()
            .and_then(|c| c.class.attach_metadata.as_ref())),
    );
    // `RoleSelector`: the API server selects the Services (and their endpoints), so no
    // relabeling rule is needed; the same targets as with the rules.
    let selector = if spec.scrape.selector_mechanism.as_deref() == Some("RoleSelector") {
        let label = monitor_settings::label_selector(&spec.selector, "spec.selector")?;
        if !label.is_empty() {
            sd.selectors = [role.name(), "service"]
                .into_iter()
                .map(|r| SdSelector {
                    role: r.to_owned(),
                    label: label.clone(),
                })
                .collect();
        }
        Vec::new()
    } else {
        selector_relabels(
            &spec.selector,
            SERVICE_LABEL,
            SERVICE_LABEL_PRESENT,
            "spec.selector",
        )?
    };
    let mut target_labels = Vec::new();
    for (i, l) in spec.target_labels.iter().enumerate() {
        target_labels.push(label_copy(
            SERVICE_LABEL,
            l,
            &format!("spec.targetLabels[{i}]"),
        )?);
    }
    for (i, l) in spec.pod_target_labels.iter().enumerate() {
        target_labels.push(label_copy(
            POD_LABEL,
            l,
            &format!("spec.podTargetLabels[{i}]"),
        )?);
    }
    let job_label = non_empty(&spec.job_label).map(|l| RelabelRule {
        source_labels: vec![format!("{SERVICE_LABEL}{}", sanitize_label(&l))],
        target_label: Some("job".to_owned()),
        regex: Some("(.+)".into()),
        replacement: Some("$1".to_owned()),
        ..Default::default()
    });
    let shared = MonitorRules {
        selector,
        sd,
        role,
        target_labels,
        job_label,
        monitor_fields: monitor_settings::job_fields_with_class(
            ctx,
            &spec.scrape,
            &spec.label_limits,
            class.as_ref(),
        )?,
        class,
    };
    spec.endpoints
        .iter()
        .enumerate()
        .map(|(i, e)| endpoint_job(ctx, sm, object, &shared, i, e))
        .collect()
}

/// The parts of every endpoint's job that depend on the monitor only.
struct MonitorRules {
    selector: Vec<RelabelRule>,
    sd: KubernetesSdConfig,
    role: Role,
    /// `targetLabels` then `podTargetLabels` copies (spec 4.7 steps 12-13).
    target_labels: Vec<RelabelRule>,
    job_label: Option<RelabelRule>,
    /// What every job takes from the spec ([`monitor_settings::job_fields`]).
    monitor_fields: ScrapeConfig,
    /// The scrape class the monitor takes, if any.
    class: Option<monitor_settings::ResolvedClass>,
}

/// `spec.serviceDiscoveryRole`: the discovery role, and the prefix of its meta labels.
#[derive(Clone, Copy)]
enum Role {
    Endpoints,
    EndpointSlice,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Endpoints => "endpoints",
            Role::EndpointSlice => "endpointslice",
        }
    }

    /// `__meta_kubernetes_endpoint_` or `__meta_kubernetes_endpointslice_`.
    fn meta(self) -> &'static str {
        match self {
            Role::Endpoints => "__meta_kubernetes_endpoint_",
            Role::EndpointSlice => "__meta_kubernetes_endpointslice_",
        }
    }
}

/// `{SL: [<prefix><sanitized l>], TL: <sanitized l>, regex: (.+), replacement: $1}`.
pub(super) fn label_copy(
    prefix: &str,
    label: &str,
    field: &str,
) -> Result<RelabelRule, FieldError> {
    let target = sanitize_label(label);
    if !validate::is_label_name(&target) {
        return Err(FieldError::because(
            Reason::InvalidLabelName,
            field,
            format!("{label:?} does not make a valid label name"),
        ));
    }
    Ok(RelabelRule {
        source_labels: vec![format!("{prefix}{target}")],
        target_label: Some(target),
        regex: Some("(.+)".into()),
        replacement: Some("$1".to_owned()),
        ..Default::default()
    })
}

/// The `endpoint` label value: the port name, else the target port as text (spec 4.7 step 16).
pub(super) fn endpoint_label(
    port: &Option<String>,
    target_port: &Option<IntOrString>,
) -> Option<String> {
    non_empty(port).or_else(|| match target_port {
        Some(IntOrString::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(IntOrString::Int(n)) => Some(n.to_string()),
        _ => None,
    })
}

/// The `keep` rule for the endpoint's port (spec 4.7 step 4, 4.8): its `port` by name under
/// `port_name_label`, else its `targetPort` as a container port name or number; none when
/// neither is set (or the number is 0).
pub(super) fn port_filter(e: &ScrapeEndpoint, port_name_label: &str) -> Option<RelabelRule> {
    if let Some(port) = non_empty(&e.port) {
        return Some(RelabelRule::filter(port_name_label, &port, "keep"));
    }
    match &e.target_port {
        Some(IntOrString::String(s)) if !s.is_empty() => Some(RelabelRule::filter(
            "__meta_kubernetes_pod_container_port_name",
            s,
            "keep",
        )),
        Some(IntOrString::Int(n)) if *n != 0 => Some(RelabelRule::filter(
            "__meta_kubernetes_pod_container_port_number",
            &n.to_string(),
            "keep",
        )),
        _ => None,
    }
}

/// The target-kind rules (spec 4.7 steps 5-6): `node` or `pod` from the endpoint's target.
fn target_kind_rule(role: Role, kind: &str, target: &str) -> RelabelRule {
    let meta = role.meta();
    RelabelRule {
        source_labels: vec![
            format!("{meta}address_target_kind"),
            format!("{meta}address_target_name"),
        ],
        separator: Some(";".to_owned()),
        regex: Some(format!("{kind};(.*)").into()),
        replacement: Some("$1".to_owned()),
        target_label: Some(target.to_owned()),
        ..Default::default()
    }
}

/// The namespace, service, pod and container copies (spec 4.7 steps 7-10).
pub(super) fn meta_label_copies() -> [RelabelRule; 4] {
    [
        RelabelRule::copy("__meta_kubernetes_namespace", "namespace"),
        RelabelRule::copy("__meta_kubernetes_service_name", "service"),
        RelabelRule::copy("__meta_kubernetes_pod_name", "pod"),
        RelabelRule::copy("__meta_kubernetes_pod_container_name", "container"),
    ]
}

/// Drops pods that are no longer running (`filterRunning: true`).
pub(super) fn pod_phase_drop() -> RelabelRule {
    RelabelRule::filter("__meta_kubernetes_pod_phase", "(Failed|Succeeded)", "drop")
}

/// The first rule of every monitor job: remember the configured job name.
pub(super) fn job_name_copy() -> RelabelRule {
    RelabelRule::copy("job", "__tmp_prometheus_job_name")
}

fn endpoint_job(
    ctx: &ScrapeContext<'_>,
    sm: &ServiceMonitor,
    object: &InputRef,
    shared: &MonitorRules,
    index: usize,
    endpoint: &Endpoint,
) -> Result<ScrapeConfig, FieldError> {
    let ns = object.namespace.as_str();
    let field = format!("spec.endpoints[{index}]");
    let e = &endpoint.common;
    let secrets = ctx.secrets(ns);
    validate::check_scrape_timing(
        &e.interval,
        &e.scrape_timeout,
        ctx.global_scrape_interval_ms,
        &format!("{field}."),
    )?;

    let mut relabel = vec![job_name_copy()];
    relabel.extend(shared.selector.iter().cloned());
    let port_name = format!("{}port_name", shared.role.meta());
    relabel.extend(port_filter(e, &port_name));
    relabel.push(target_kind_rule(shared.role, "Node", "node"));
    relabel.push(target_kind_rule(shared.role, "Pod", "pod"));
    relabel.extend(meta_label_copies());
    if e.filter_running == Some(true) {
        relabel.push(pod_phase_drop());
    }
    relabel.extend(shared.target_labels.iter().cloned());
    relabel.push(RelabelRule {
        source_labels: vec!["__meta_kubernetes_service_name".to_owned()],
        target_label: Some("job".to_owned()),
        replacement: Some("$1".to_owned()),
        ..Default::default()
    });
    relabel.extend(shared.job_label.iter().cloned());
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

    // Fields are evaluated in the order written, `..` last: problems are reported in the
    // order of the fields they concern.
    let mut job = ScrapeConfig {
        job_name: format!("serviceMonitor/{ns}/{}/{index}", object.name),
        kubernetes_sd_configs: vec![shared.sd.clone()],
        tls_config: endpoint
            .tls_config
            .as_ref()
            .map(|t| endpoint_tls(ctx.runtime, t, secrets, &format!("{field}.tlsConfig")))
            .transpose()?,
        bearer_token_file: non_empty(&endpoint.bearer_token_file),
        relabel_configs: relabel,
        sample_limit: limit(sm.spec.sample_limit, ctx.enforced_sample_limit),
        target_limit: limit(sm.spec.target_limit, ctx.enforced_target_limit),
        ..ctx.endpoint_job_fields(e, secrets, &field, shared.monitor_fields.clone())?
    };
    if let Some(class) = &shared.class {
        monitor_settings::apply_class(class, &mut job);
    }
    check_single_auth(&job, &field)?;
    check_tls_pair(job.tls_config.as_ref(), &format!("{field}.tlsConfig"))?;
    Ok(job)
}
