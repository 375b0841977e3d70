//! Phase 2b: the objects that run the agents (spec 3.2-3.9).
//!
//! * [`labels`]: labels, annotations, workload metadata, Kubernetes name rules;
//! * [`pod_template`]: the template every workload shares (spec 3.5);
//! * [`strategic_merge`]: `spec.containers` patched onto the operator's containers;
//! * [`metrics`]: the governing Service and the shard StatefulSets (spec 3.6);
//! * [`logs`]: the logs DaemonSet (spec 3.7);
//! * [`integrations`]: the integrations Deployment and DaemonSet (spec 3.8);
//! * [`loader_rbac`]: the config loader's Role and RoleBinding (issue 35);
//! * [`rollout`]: how fast the metrics StatefulSets may roll their pods (issue 35);
//! * [`prune`]: which existing objects the controller deletes (spec 3.9, Q10 fixed).
//!
//! Bad input never yields an object the API server would refuse: the subsystem whose object
//! cannot be built is left out and the cause is reported on the GrafanaAgent (or on the
//! Integration at fault, which alone is left out).

pub mod integrations;
pub mod labels;
pub mod loader_rbac;
pub mod logs;
pub mod metrics;
pub mod pod_template;
pub mod prune;
pub mod rollout;
pub mod strategic_merge;

use api::grafana_agent::MetricsSubsystemSpec;
use api::schema::{MAX_METRICS_REPLICAS, MAX_METRICS_SHARDS};

use crate::desired::{DesiredObject, PlanOptions, PlannedObject, Subsystem};
use crate::discover::Hierarchy;
use crate::rejection::{Reason, Rejection};
use integrations::Accepted;
use labels::rules;
use pod_template::AgentContext;

pub use prune::{ExistingObject, objects_to_delete};

/// Workloads planned for one agent.
#[derive(Debug, Default)]
pub struct WorkloadPlan {
    pub objects: Vec<PlannedObject>,
    pub rejections: Vec<Rejection>,
}

/// Pods per shard: nil gives 1, negative gives 0 (spec 3.6).
pub fn effective_replicas(metrics: Option<&MetricsSubsystemSpec>) -> i32 {
    metrics.and_then(|m| m.replicas).map_or(1, |r| r.max(0))
}

/// Refuses a negative replica count, and a shard or replica count beyond the CRD's `maximum`: the operator plans one
/// StatefulSet per shard, so `shards: 2000000000` would keep it busy for minutes. Checked
/// here too because a value can reach render without passing our CRD (an older CRD in the
/// cluster, a hand-built object).
pub fn check_scale(h: &Hierarchy) -> Result<(), Rejection> {
    let Some(metrics) = h.agent.spec.metrics.as_ref() else {
        return Ok(());
    };
    if let Some(r) = metrics.replicas
        && r < 0
    {
        return Err(Rejection::new(
            h.agent_ref(),
            Reason::InvalidValue,
            "spec.metrics.replicas".to_owned(),
            format!(
                "{r} is negative: write 0 to run no metrics pods (upstream silently reads a negative count as 0); the metrics config and StatefulSets are left as they are"
            ),
        ));
    }
    let bounds = [
        ("spec.metrics.shards", metrics.shards, MAX_METRICS_SHARDS),
        (
            "spec.metrics.replicas",
            metrics.replicas,
            MAX_METRICS_REPLICAS,
        ),
    ];
    for (field, value, max) in bounds {
        if let Some(v) = value
            && v > max
        {
            return Err(Rejection::new(
                h.agent_ref(),
                Reason::InvalidValue,
                field.to_owned(),
                format!(
                    "{v} is too large: at most {max} is allowed; the metrics config and StatefulSets are left as they are"
                ),
            ));
        }
    }
    Ok(())
}

/// Problems that prevent every object of the agent (the plan refuses the agent whole, so
/// `render` and the operator agree: before, the Secrets were still planned and the API server
/// refused them): its name is the value of a label on every object, and `--labels` go on
/// every config Secret and pod.
pub fn check_agent_names(h: &Hierarchy, opts: &PlanOptions) -> Vec<Rejection> {
    check_agent(&AgentContext::new(h, opts))
}

fn check_agent(cx: &AgentContext<'_>) -> Vec<Rejection> {
    let mut rejections = Vec::new();
    let name = cx.h.agent_name();
    if let Err(e) = rules::label_value(name) {
        rejections.push(cx.reject(Reason::InvalidName,
            "metadata.name".to_owned(),
            format!(
                "the name is the value of a label on every object the operator writes for the agent, and {e}; use a name of at most 63 characters"
            ),
        ));
    }
    for (k, v) in &cx.opts.labels {
        if let Err(e) = rules::label_key(k).and_then(|()| rules::label_value(v)) {
            rejections.push(cx.reject(
                Reason::InvalidLabelName,
                None,
                format!("the operator option --labels has an invalid label {k:?}: {v:?}: {e}"),
            ));
        }
    }
    rejections
}

/// Plans the Service, StatefulSets, logs DaemonSet and integrations workloads of `h`, the
/// integrations workloads running the `integrations` accepted for them.
///
/// A subsystem's workloads are planned when it has instances (metrics, logs) or
/// Integrations (each integrations workload), as upstream, even when its config Secret could
/// not be rendered (that is reported where it fails): [`prune::objects_to_delete`] then keeps
/// the previous config Secret, so running pods keep their last good config.
pub fn plan(h: &Hierarchy, opts: &PlanOptions, integrations: &Accepted) -> WorkloadPlan {
    let cx = AgentContext::new(h, opts);
    let mut out = WorkloadPlan::default();
    let deploy = integrations.workload(false);
    let daemon = integrations.workload(true);
    out.rejections.extend(deploy.rejections.iter().cloned());
    out.rejections.extend(daemon.rejections.iter().cloned());

    let any_workload = !h.metrics.is_empty()
        || !h.logs.is_empty()
        || !deploy.integrations.is_empty()
        || !daemon.integrations.is_empty();
    if !any_workload {
        return out;
    }
    let agent_problems = check_agent(&cx);
    if !agent_problems.is_empty() {
        out.rejections.extend(agent_problems);
        return out;
    }

    let mut add = |subsystem: Subsystem, object: DesiredObject| {
        out.objects.push(PlannedObject::new(subsystem, object));
    };
    let mut rejections = Vec::new();
    if !h.metrics.is_empty() {
        let objects = check_scale(h)
            .map_err(|r| vec![r])
            .and_then(|()| metrics::objects(&cx));
        match objects {
            Ok((services, statefulsets)) => {
                for service in services {
                    add(Subsystem::Metrics, DesiredObject::Service(service));
                }
                for s in statefulsets {
                    add(Subsystem::Metrics, DesiredObject::StatefulSet(s));
                }
            }
            Err(r) => rejections.extend(r),
        }
    }
    if !h.logs.is_empty() {
        match logs::daemonset(&cx) {
            Ok(ds) => add(Subsystem::Logs, DesiredObject::DaemonSet(ds)),
            Err(r) => rejections.extend(r),
        }
    }
    match integrations::deployment(&cx, deploy) {
        Ok(d) => d.into_iter().for_each(|d| {
            add(
                Subsystem::IntegrationsDeployment,
                DesiredObject::Deployment(d),
            )
        }),
        Err(r) => rejections.extend(r),
    }
    match integrations::daemonset(&cx, daemon) {
        Ok(d) => d.into_iter().for_each(|d| {
            add(
                Subsystem::IntegrationsDaemonSet,
                DesiredObject::DaemonSet(d),
            )
        }),
        Err(r) => rejections.extend(r),
    }
    out.rejections.extend(rejections);
    out.rejections.sort();
    out.rejections.dedup();
    out
}
