//! PodLogs → promtail scrape config (spec 4.13).
//!
//! [`scrape_config`] is a pure function of one PodLogs and a small [`PodLogsContext`] (the
//! agent-wide settings it depends on), so its result can be cached per (PodLogs, context).

use api::PodLogs;
use api::grafana_agent::{GrafanaAgent, LogsSubsystemSpec};
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

/// The scrape config of `p` (spec 4.13). An error names a field of the PodLogs.
pub fn scrape_config(p: &PodLogs, ctx: &PodLogsContext) -> Result<PodLogsScrapeConfig, FieldError> {
    let namespace = p.metadata.namespace.as_deref().unwrap_or_default();
    let name = p.metadata.name.as_deref().unwrap_or_default();
    let spec = &p.spec;

    selector::validate(&spec.selector).map_err(|e| {
        FieldError::because(Reason::InvalidSelector, "spec.selector", e.to_string())
    })?;
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
    path_label::check_user_rules(&spec.relabelings, "spec.relabelings")?;
    if let Some(label) = &ctx.enforced_namespace_label {
        rules.push(RelabelRule::set(label, namespace));
    }

    let names = sd_namespaces(
        spec.namespace_selector.as_ref(),
        namespace,
        ctx.ignore_namespace_selectors,
    );
    let sd = KubernetesSdConfig {
        namespaces: (!names.is_empty()).then_some(SdNamespaces { names }),
        ..ctx.sd.clone()
    };
    Ok(PodLogsScrapeConfig {
        job_name: format!("podLogs/{namespace}/{name}"),
        kubernetes_sd_configs: vec![sd],
        pipeline_stages: stages::stages(&spec.pipeline_stages, "spec.pipelineStages")?,
        relabel_configs: rules,
    })
}
