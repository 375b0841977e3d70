//! PodLogs → promtail scrape config (spec 4.13).
//!
//! [`scrape_config`] is a pure function of one PodLogs and a small [`PodLogsContext`] (the
//! agent-wide settings it depends on), so its result can be cached per (PodLogs, context).

use api::grafana_agent::{GrafanaAgent, LogsSubsystemSpec};
use api::pod_logs::PodLogsNamespaceSelector;
use api::prometheus::RelabelConfig;
use api::selectors::NamespaceSelector;
use api::{PodLogs, PodLogsSpec, Runtime};
use serde::Serialize;

use super::path_label;
use super::stages::{self, StageConfig};
use crate::assets::{Assets, sanitize_label};
use crate::config::common::{
    FieldError, KubernetesSdConfig, RelabelRule, SdNamespaces, Secrets, kubernetes_sd, non_empty,
    sd_namespaces, selector_relabels, user_relabel_rules,
};
use crate::rejection::Reason;
use crate::selector;

/// Where the kubelet writes container logs; `__path__` globs under it.
const POD_LOGS_PATH: &str = "/var/log/pods/*$1/*.log";

/// The agent-wide settings a PodLogs scrape config depends on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodLogsContext {
    /// `role: pod` discovery through the agent's `apiServer`, with no namespaces yet.
    pub sd: KubernetesSdConfig,
    /// `spec.logs.ignoreNamespaceSelectors`.
    pub ignore_namespace_selectors: bool,
    /// `spec.logs.enforcedNamespaceLabel`, when non-empty.
    pub enforced_namespace_label: Option<String>,
    /// Runtime alloy: the stages get promtail's defaults written out
    /// ([`stages::with_promtail_defaults`]).
    pub for_alloy: bool,
}

impl PodLogsContext {
    /// The context of `agent`, whose `apiServer` secrets resolve in its own namespace. An
    /// error names a field of the GrafanaAgent.
    pub fn of(agent: &GrafanaAgent, assets: &Assets) -> Result<Self, FieldError> {
        let namespace = agent.metadata.namespace.as_deref().unwrap_or_default();
        let secrets = Secrets { assets, namespace };
        let logs = agent.spec.logs.as_ref();
        Ok(PodLogsContext {
            sd: kubernetes_sd("pod", Vec::new(), agent.spec.api_server.as_ref(), secrets)?,
            ignore_namespace_selectors: logs.is_some_and(|l| l.ignore_namespace_selectors),
            enforced_namespace_label: logs
                .and_then(|l: &LogsSubsystemSpec| non_empty(&l.enforced_namespace_label)),
            for_alloy: agent.spec.runtime.unwrap_or_default() == Runtime::Alloy,
        })
    }
}

/// One promtail scrape config generated from a PodLogs.
#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct PodLogsScrapeConfig {
    pub job_name: String,
    pub kubernetes_sd_configs: Vec<KubernetesSdConfig>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pipeline_stages: Vec<StageConfig>,
    pub relabel_configs: Vec<RelabelRule>,
}

/// A relabel rule copying a pod label into `target` when it is non-empty.
fn pod_label_rule(label: &str, target: &str) -> RelabelRule {
    RelabelRule {
        source_labels: vec![format!(
            "__meta_kubernetes_pod_label_{}",
            sanitize_label(label)
        )],
        target_label: Some(target.to_owned()),
        regex: Some("(.+)".into()),
        replacement: Some("$1".to_owned()),
        ..Default::default()
    }
}

/// Discovery label families only Alloy's `loki.source.podlogs` sets: the PodLogs' own
/// (`__meta_kubernetes_podlogs_name`, `..._label_<key>`, ...) and the namespace's labels and
/// annotations. Promtail's `role: pod` discovery (Prometheus 2.x in the agent; Alloy's
/// converted static config does not ask for namespace metadata either) sets none of them, so
/// a rule reading one would read an empty value.
const ALLOY_ONLY_FAMILIES: &[(&str, &str)] = &[
    (
        "__meta_kubernetes_podlogs_",
        "the PodLogs' namespace and name are in job's default value, <namespace>/<name>",
    ),
    (
        "__meta_kubernetes_namespace_label",
        "select namespaces by label with spec.namespaceSelector.matchLabels instead",
    ),
    (
        "__meta_kubernetes_namespace_annotation",
        "namespace annotations are not available to the agent",
    ),
];

/// The Alloy-only family `label` belongs to, with what to do instead.
fn alloy_only(label: &str) -> Option<&'static str> {
    ALLOY_ONLY_FAMILIES
        .iter()
        .find(|(prefix, _)| label.starts_with(prefix))
        .map(|(_, instead)| *instead)
}

/// Refuses the first rule of `rules` (at `field`) that reads a label only Alloy's
/// `loki.source.podlogs` sets ([`ALLOY_ONLY_FAMILIES`]): as a source label, as the label
/// `keepequal`/`dropequal` compare with, or in a `labelmap` regex.
fn check_alloy_only_labels(rules: &[RelabelConfig], field: &str) -> Result<(), FieldError> {
    let refuse = |at: String, label: &str, instead: &str| {
        Err(FieldError::new(
            at,
            format!(
                "reads {label:?}, which only Alloy's loki.source.podlogs sets; the agent's \
                 Kubernetes discovery does not, so the rule would read an empty value ({instead})"
            ),
        ))
    };
    for (i, rule) in rules.iter().enumerate() {
        for (j, label) in rule.source_labels.iter().enumerate() {
            if let Some(instead) = alloy_only(label) {
                return refuse(format!("{field}[{i}].sourceLabels[{j}]"), label, instead);
            }
        }
        let action = rule.action.to_ascii_lowercase();
        let target = rule.target_label.as_deref().unwrap_or_default();
        if matches!(action.as_str(), "keepequal" | "dropequal")
            && let Some(instead) = alloy_only(target)
        {
            return refuse(format!("{field}[{i}].targetLabel"), target, instead);
        }
        let regex = rule.regex.as_deref().unwrap_or_default();
        if action == "labelmap"
            && let Some((prefix, instead)) = ALLOY_ONLY_FAMILIES
                .iter()
                .find(|(prefix, _)| regex.contains(prefix))
        {
            return refuse(format!("{field}[{i}].regex"), prefix, instead);
        }
    }
    Ok(())
}

/// The namespaces `spec`'s Pods are discovered in (`Some(empty)`: every namespace), or `None`
/// when its label selector matches no namespace. `labelled` is what discovery matched with
/// the label selector ([`crate::discover::Hierarchy::pod_namespaces`]).
fn pod_namespaces(
    spec: &PodLogsSpec,
    own: &str,
    ignore_selectors: bool,
    labelled: Option<&[String]>,
) -> Result<Option<Vec<String>>, FieldError> {
    const FIELD: &str = "spec.namespaceSelector";
    let selector = spec.namespace_selector.as_ref();
    let label_selector = selector.and_then(PodLogsNamespaceSelector::label_selector);
    if let (Some(s), Some(label_selector)) = (selector, &label_selector) {
        if s.names_namespaces() {
            return Err(FieldError::because(
                Reason::ConflictingSettings,
                FIELD,
                "sets any/matchNames and matchLabels/matchExpressions; set one spelling",
            ));
        }
        selector::validate(label_selector)
            .map_err(|e| FieldError::because(Reason::InvalidSelector, FIELD, e.to_string()))?;
    }
    match (label_selector, ignore_selectors) {
        // No requirement: every namespace, those not yet known included.
        (Some(_), false) if selector.is_some_and(|s| s.selects_every_namespace()) => {
            Ok(Some(Vec::new()))
        }
        (Some(_), false) => match labelled {
            Some([]) => Ok(None),
            Some(names) => Ok(Some(names.to_vec())),
            None => Err(FieldError::new(
                FIELD,
                "its namespaces were not looked up (the hierarchy did not come from discovery)",
            )),
        },
        _ => {
            let names = NamespaceSelector {
                any: selector.is_some_and(|s| s.any),
                match_names: selector.map(|s| s.match_names.clone()).unwrap_or_default(),
            };
            Ok(Some(sd_namespaces(Some(&names), own, ignore_selectors)))
        }
    }
}

/// The scrape config of `p` (spec 4.13), or `None` when its label `namespaceSelector` matches
/// no namespace (no Pods to discover). `labelled` is what discovery found that selector to
/// match ([`crate::discover::Hierarchy::pod_namespaces`]). An error names a field of the
/// PodLogs.
pub fn scrape_config(
    p: &PodLogs,
    ctx: &PodLogsContext,
    labelled: Option<&[String]>,
) -> Result<Option<PodLogsScrapeConfig>, FieldError> {
    let namespace = p.metadata.namespace.as_deref().unwrap_or_default();
    let name = p.metadata.name.as_deref().unwrap_or_default();
    let spec = &p.spec;

    selector::validate(&spec.selector).map_err(|e| {
        FieldError::because(Reason::InvalidSelector, "spec.selector", e.to_string())
    })?;
    let names = pod_namespaces(spec, namespace, ctx.ignore_namespace_selectors, labelled)?;
    let mut rules = vec![RelabelRule::copy("job", "__tmp_prometheus_job_name")];
    rules.extend(selector_relabels(
        &spec.selector,
        "__meta_kubernetes_pod_label_",
        "__meta_kubernetes_pod_labelpresent_",
        "spec.selector",
    )?);
    rules.extend([
        RelabelRule::copy("__meta_kubernetes_namespace", "namespace"),
        RelabelRule::copy("__meta_kubernetes_service_name", "service"),
        RelabelRule::copy("__meta_kubernetes_pod_name", "pod"),
        RelabelRule::copy("__meta_kubernetes_pod_container_name", "container"),
    ]);
    rules.extend(
        spec.pod_target_labels
            .iter()
            .map(|l| pod_label_rule(l, &sanitize_label(l))),
    );
    rules.push(RelabelRule::set("job", &format!("{namespace}/{name}")));
    if let Some(job_label) = non_empty(&spec.job_label) {
        rules.push(pod_label_rule(&job_label, "job"));
    }
    // Before the user's rules, from discovery labels none has touched yet; no user rule can
    // write `__path__` (path_label), so it only ever names the pod's own log files.
    rules.push(RelabelRule {
        source_labels: vec![
            "__meta_kubernetes_pod_uid".to_owned(),
            "__meta_kubernetes_pod_container_name".to_owned(),
        ],
        separator: Some("/".to_owned()),
        target_label: Some(path_label::PATH_LABEL.to_owned()),
        replacement: Some(POD_LOGS_PATH.to_owned()),
        ..Default::default()
    });
    rules.extend(user_relabel_rules(&spec.relabelings, "spec.relabelings")?);
    check_alloy_only_labels(&spec.relabelings, "spec.relabelings")?;
    path_label::check_user_rules(&spec.relabelings, "spec.relabelings")?;
    if let Some(label) = &ctx.enforced_namespace_label {
        rules.push(RelabelRule::set(label, namespace));
    }
    let mut pipeline_stages = stages::stages(&spec.pipeline_stages, "spec.pipelineStages")?;
    if ctx.for_alloy {
        stages::with_promtail_defaults(&mut pipeline_stages);
    }

    let Some(names) = names else {
        return Ok(None);
    };
    let sd = KubernetesSdConfig {
        namespaces: (!names.is_empty()).then_some(SdNamespaces { names }),
        ..ctx.sd.clone()
    };
    Ok(Some(PodLogsScrapeConfig {
        job_name: format!("podLogs/{namespace}/{name}"),
        kubernetes_sd_configs: vec![sd],
        pipeline_stages,
        relabel_configs: rules,
    }))
}
