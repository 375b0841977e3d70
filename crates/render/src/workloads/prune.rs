//! Which existing objects the controller deletes after applying a plan (spec 3.6 and 3.9),
//! with the fix for Q10: only objects of this agent, in its namespace.
//!
//! An existing object is deleted when all of these hold:
//! * it carries `app.kubernetes.io/managed-by: grafana-agent-operator`;
//! * it is in the agent's namespace;
//! * one of its ownerReferences has the agent's UID;
//! * the plan does not hold an object of the same kind and name;
//! * its subsystem is disabled (no instances or integrations), or the subsystem was planned
//!   completely and the object is left over (a removed shard).
//!
//! The last rule keeps a running subsystem alive when this plan could not build part of it:
//! when, say, the metrics config Secret or the assets Secret is rejected (too large) or a
//! shard's template is invalid, the previous Secret and StatefulSets stay until the input is
//! fixed, instead of being deleted.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use crate::desired::{MANAGED_BY_LABEL, MANAGED_BY_VALUE, ManagedKind, PlannedObject, Subsystem};
use crate::discover::Hierarchy;

/// What the controller knows about an object that exists in the cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct ExistingObject {
    pub kind: ManagedKind,
    pub namespace: String,
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub owner_references: Vec<OwnerReference>,
}

/// Whether the subsystem should run: it has instances or integrations (the config loader's
/// grant: any of them does).
pub fn enabled(h: &Hierarchy, s: Subsystem) -> bool {
    match s {
        Subsystem::Shared => true,
        Subsystem::ConfigLoader => Subsystem::WITH_CONFIG.into_iter().any(|s| enabled(h, s)),
        Subsystem::Metrics => !h.metrics.is_empty(),
        Subsystem::Logs => !h.logs.is_empty(),
        Subsystem::IntegrationsDeployment => h.integrations.iter().any(|i| !i.spec.type_.all_nodes),
        Subsystem::IntegrationsDaemonSet => h.integrations.iter().any(|i| i.spec.type_.all_nodes),
    }
}

/// The objects of `existing` the controller should delete once `desired` (the plan of the
/// agent of `h`) is applied.
pub fn objects_to_delete<'a>(
    h: &Hierarchy,
    desired: &[PlannedObject],
    existing: &'a [ExistingObject],
) -> Vec<&'a ExistingObject> {
    let agent = h.agent_name();
    let namespace = h.agent_namespace();
    let uid = h.agent.metadata.uid.as_deref().unwrap_or_default();
    let planned: BTreeSet<(ManagedKind, &str)> =
        desired.iter().map(|o| (o.kind(), o.name())).collect();
    let planned_kinds: BTreeSet<(Subsystem, ManagedKind)> =
        desired.iter().map(|o| (o.subsystem, o.kind())).collect();
    // Every kind the subsystem consists of is planned: it was built whole.
    let complete = |s: Subsystem| s.kinds().iter().all(|k| planned_kinds.contains(&(s, *k)));
    existing
        .iter()
        .filter(|o| {
            let managed =
                o.labels.get(MANAGED_BY_LABEL).map(String::as_str) == Some(MANAGED_BY_VALUE);
            let owned = !uid.is_empty() && o.owner_references.iter().any(|r| r.uid == uid);
            if !managed || !owned || o.namespace != namespace {
                return false;
            }
            if planned.contains(&(o.kind, o.name.as_str())) {
                return false;
            }
            // Anything else the agent owns and manages (e.g. from an older operator version)
            // belongs to no subsystem and goes.
            Subsystem::of_existing(agent, o.kind, &o.name, &o.labels)
                .is_none_or(|s| !enabled(h, s) || complete(s))
        })
        .collect()
}
