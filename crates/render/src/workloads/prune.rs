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

use super::integrations::workload_name;
use super::logs::daemonset_name;
use super::metrics::{service_name, statefulset_name};
use crate::discover::Hierarchy;
use crate::plan::{DesiredObject, MANAGED_BY_LABEL, MANAGED_BY_VALUE};

/// What the controller knows about an object that exists in the cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct ExistingObject {
    /// `Secret`, `Service`, `StatefulSet`, `DaemonSet` or `Deployment`, as
    /// [`DesiredObject::kind`] names them.
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub owner_references: Vec<OwnerReference>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Subsystem {
    /// The assets Secret: always enabled; planned unless its values exceed the Secret limit.
    Assets,
    Metrics,
    Logs,
    IntegrationsDeployment,
    IntegrationsDaemonSet,
    /// Anything else the agent owns and manages (e.g. from an older operator version).
    Other,
}

fn subsystem(agent: &str, kind: &str, name: &str) -> Subsystem {
    let suffix = name.strip_prefix(agent).unwrap_or("\0");
    match (kind, suffix) {
        ("Secret", "-secrets") => Subsystem::Assets,
        ("Secret", "-config") | ("Service", "-operated") | ("StatefulSet", _) => Subsystem::Metrics,
        ("Secret", "-logs-config") | ("DaemonSet", "-logs") => Subsystem::Logs,
        ("Secret", "-integrations-deploy-config") | ("Deployment", "-integrations-deploy") => {
            Subsystem::IntegrationsDeployment
        }
        ("Secret", "-integrations-ds-config") | ("DaemonSet", "-integrations-ds") => {
            Subsystem::IntegrationsDaemonSet
        }
        _ => Subsystem::Other,
    }
}

/// Whether the subsystem should run: it has instances or integrations.
fn enabled(h: &Hierarchy, s: Subsystem) -> bool {
    match s {
        Subsystem::Assets => true,
        Subsystem::Metrics => !h.metrics.is_empty(),
        Subsystem::Logs => !h.logs.is_empty(),
        Subsystem::IntegrationsDeployment => h.integrations.iter().any(|i| !i.spec.type_.all_nodes),
        Subsystem::IntegrationsDaemonSet => h.integrations.iter().any(|i| i.spec.type_.all_nodes),
        Subsystem::Other => false,
    }
}

/// The objects a completely planned subsystem consists of (the metrics shards past 0 vary
/// with the shard count and are left out).
fn expected(agent: &str, s: Subsystem) -> Vec<(&'static str, String)> {
    match s {
        Subsystem::Assets => vec![("Secret", format!("{agent}-secrets"))],
        Subsystem::Metrics => vec![
            ("Secret", format!("{agent}-config")),
            ("Service", service_name(agent)),
            ("StatefulSet", statefulset_name(agent, 0)),
        ],
        Subsystem::Logs => vec![
            ("Secret", format!("{agent}-logs-config")),
            ("DaemonSet", daemonset_name(agent)),
        ],
        Subsystem::IntegrationsDeployment => {
            let name = workload_name(agent, false);
            vec![("Secret", format!("{name}-config")), ("Deployment", name)]
        }
        Subsystem::IntegrationsDaemonSet => {
            let name = workload_name(agent, true);
            vec![("Secret", format!("{name}-config")), ("DaemonSet", name)]
        }
        Subsystem::Other => Vec::new(),
    }
}

/// The objects of `existing` the controller should delete once `desired` (the plan of the
/// agent of `h`) is applied.
pub fn objects_to_delete<'a>(
    h: &Hierarchy,
    desired: &[DesiredObject],
    existing: &'a [ExistingObject],
) -> Vec<&'a ExistingObject> {
    let agent = h.agent_name();
    let namespace = h.agent_namespace();
    let uid = h.agent.metadata.uid.as_deref().unwrap_or_default();
    let planned: BTreeSet<(&str, &str)> = desired.iter().map(|o| (o.kind(), o.name())).collect();
    let complete = |s: Subsystem| {
        expected(agent, s)
            .iter()
            .all(|(kind, name)| planned.contains(&(*kind, name.as_str())))
    };
    existing
        .iter()
        .filter(|o| {
            let managed =
                o.labels.get(MANAGED_BY_LABEL).map(String::as_str) == Some(MANAGED_BY_VALUE);
            let owned = !uid.is_empty() && o.owner_references.iter().any(|r| r.uid == uid);
            if !managed || !owned || o.namespace != namespace {
                return false;
            }
            if planned.contains(&(o.kind.as_str(), o.name.as_str())) {
                return false;
            }
            let s = subsystem(agent, &o.kind, &o.name);
            !enabled(h, s) || complete(s)
        })
        .collect()
}
