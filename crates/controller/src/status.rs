//! The "status" step: the GrafanaAgent's status subresource, written only when it changes.
//!
//! `Reconciled` says whether every selected object was rendered and applied (its reason is
//! machine-readable: `Reconciled`, `InvalidConfiguration`, `ApplyFailed`); `Available` whether
//! every workload reports all its pods ready, from the workloads' own status.

use api::GrafanaAgent;
use api::status::GrafanaAgentStatus;
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Client, Resource};
use render::desired::DesiredObject;
use render::plan::Plan;

use crate::apply::FIELD_MANAGER;
use crate::error::Error;
use crate::watches::Stores;

pub const REASON_RECONCILED: &str = "Reconciled";
pub const REASON_INVALID: &str = "InvalidConfiguration";
pub const REASON_APPLY_FAILED: &str = "ApplyFailed";
pub const AVAILABLE: &str = "Available";

/// How many rejections the `Reconciled` message spells out; the count covers all.
const LISTED_REJECTIONS: usize = 10;

/// The status `agent` should show after `plan` was applied (`apply_error` when it was not).
pub(crate) fn desired(
    agent: &GrafanaAgent,
    plan: &Plan,
    apply_error: Option<&Error>,
    stores: &Stores,
) -> GrafanaAgentStatus {
    let generation = agent.metadata.generation;
    let (status, reason, message) = match apply_error {
        Some(e) => ("False", REASON_APPLY_FAILED, e.to_string()),
        None if !plan.rejections.is_empty() => {
            let listed: Vec<String> = plan
                .rejections
                .iter()
                .take(LISTED_REJECTIONS)
                .map(ToString::to_string)
                .collect();
            let more = plan.rejections.len().saturating_sub(LISTED_REJECTIONS);
            let mut message = format!(
                "{} rejected (the rest is applied): {}",
                plan.rejections.len(),
                listed.join("; ")
            );
            if more > 0 {
                message.push_str(&format!("; and {more} more"));
            }
            ("False", REASON_INVALID, message)
        }
        None => (
            "True",
            REASON_RECONCILED,
            format!("{} objects applied", plan.objects.len()),
        ),
    };
    let (available, available_reason, available_message) = availability(plan, stores);
    let condition = |type_: &str, status: &str, reason: &str, message: String| Condition {
        type_: type_.to_owned(),
        status: status.to_owned(),
        reason: reason.to_owned(),
        message,
        observed_generation: generation,
        last_transition_time: Time(Timestamp::now()),
    };
    let mut desired = plan.status.clone();
    desired.conditions = vec![
        condition(api::status::condition::RECONCILED, status, reason, message),
        condition(AVAILABLE, available, available_reason, available_message),
    ];
    // A condition whose status did not change keeps the time it last changed.
    if let Some(live) = &agent.status {
        for c in &mut desired.conditions {
            if let Some(old) = live
                .conditions
                .iter()
                .find(|o| o.type_ == c.type_ && o.status == c.status)
            {
                c.last_transition_time = old.last_transition_time.clone();
            }
        }
    }
    desired
}

/// `(status, reason, message)` of `Available`, from the planned workloads' live status.
fn availability(plan: &Plan, stores: &Stores) -> (&'static str, &'static str, String) {
    fn live<K: Resource<DynamicType = ()> + Clone>(
        store: &Store<K>,
        o: &DesiredObject,
    ) -> Option<std::sync::Arc<K>> {
        let ns = o.metadata().namespace.as_deref().unwrap_or_default();
        store.get(&ObjectRef::new(o.name()).within(ns))
    }
    let mut workloads = 0;
    let mut waiting = Vec::new();
    for o in plan.objects.iter().map(|planned| &planned.object) {
        let (ready, wanted) = match o {
            DesiredObject::StatefulSet(_) => {
                let s: Option<std::sync::Arc<StatefulSet>> = live(&stores.stateful_sets, o);
                let wanted = s
                    .as_ref()
                    .and_then(|s| s.spec.as_ref()?.replicas)
                    .unwrap_or(1);
                let ready = s.and_then(|s| s.status.as_ref()?.ready_replicas);
                (ready.unwrap_or(0), wanted)
            }
            DesiredObject::DaemonSet(_) => {
                let d: Option<std::sync::Arc<DaemonSet>> = live(&stores.daemon_sets, o);
                let status = d.and_then(|d| d.status.clone());
                match status {
                    Some(s) => (s.number_ready, s.desired_number_scheduled),
                    None => (0, 1),
                }
            }
            DesiredObject::Deployment(_) => {
                let d: Option<std::sync::Arc<Deployment>> = live(&stores.deployments, o);
                let wanted = d
                    .as_ref()
                    .and_then(|d| d.spec.as_ref()?.replicas)
                    .unwrap_or(1);
                let ready = d.and_then(|d| d.status.as_ref()?.available_replicas);
                (ready.unwrap_or(0), wanted)
            }
            _ => continue,
        };
        workloads += 1;
        if ready < wanted {
            waiting.push(format!("{} {}: {ready}/{wanted} ready", o.kind(), o.name()));
        }
    }
    match (workloads, waiting.is_empty()) {
        (0, _) => (
            "False",
            "NoWorkloads",
            "the agent runs no workload".to_owned(),
        ),
        (_, true) => (
            "True",
            "WorkloadsReady",
            format!("{workloads} workloads ready"),
        ),
        (_, false) => ("False", "WorkloadsNotReady", waiting.join("; ")),
    }
}

/// Writes `desired` to `agent`'s status subresource unless it already shows it. Returns
/// whether it wrote.
pub(crate) async fn write(
    client: &Client,
    agent: &GrafanaAgent,
    desired: GrafanaAgentStatus,
) -> Result<bool, Error> {
    if agent.status.as_ref() == Some(&desired) {
        return Ok(false);
    }
    let namespace = agent.metadata.namespace.as_deref().unwrap_or_default();
    let name = agent.metadata.name.as_deref().unwrap_or_default();
    let api: Api<GrafanaAgent> = Api::namespaced(client.clone(), namespace);
    let patch = serde_json::json!({
        "apiVersion": "monitoring.grafana.com/v1alpha1",
        "kind": "GrafanaAgent",
        "status": desired,
    });
    api.patch_status(
        name,
        &PatchParams::apply(FIELD_MANAGER).force(),
        &Patch::Apply(&patch),
    )
    .await
    .map_err(Error::api(format!(
        "writing the status of GrafanaAgent {namespace}/{name}"
    )))?;
    Ok(true)
}
