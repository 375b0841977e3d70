//! An agent's discovery brought up to date after edits of monitors, without walking every
//! object again.
//!
//! Most changes in a large cluster are edits of one ServiceMonitor's endpoints or relabelings.
//! An edit that keeps the monitor's labels and its Secret and ConfigMap references (the store
//! journals it as [`Change::MonitorEdited`]) is selected by the same selectors and resolves
//! the same values: the new discovery is the old one with the monitor's new version in place
//! of the old. At 10k ServiceMonitors that takes microseconds where [`crate::discover`] takes
//! about 40 ms (BENCHMARKS.md, issue 35). A Secret or ConfigMap the agent does not refer to
//! (the operator's own config Secrets, written at every edit) changes nothing either.
//! Anything else since (and an edit of a monitor that was rejected, or that now reads the
//! agent's files) is left to a full discovery.

use std::collections::BTreeSet;
use std::sync::Arc;

use api::grafana_agent::GrafanaAgent;
use api::{PodMonitor, Probe, ScrapeConfig, ServiceMonitor};

use crate::discover::{
    Discovery, denies_file_access, file_access, scrape_config_file_access, unknown_field_warnings,
};
use crate::input_ref::{InputRef, Kind};
use crate::journal::Change;
use crate::store::{Input, InputView};

/// Brings `discovery` (of `agent`, made from `inputs` at its revision) up to date with
/// `inputs` when every change since is one it can take: returns whether it did. On `false`
/// nothing was changed and a full [`crate::discover`] is needed.
///
/// The Secret and ConfigMap values a view lays over the store ([`crate::store::WithContent`])
/// are not journaled: they must be those `discovery` was made with.
pub fn rediscover<V: InputView + ?Sized>(
    agent: &Arc<GrafanaAgent>,
    inputs: &V,
    discovery: &mut Discovery,
) -> bool {
    let (Some(journal), Some(revision)) = (inputs.journal(), discovery.revision) else {
        return false;
    };
    if !discovery.to_load.is_empty() || !same_version(&discovery.hierarchy.agent, agent) {
        return false;
    }
    let Some(changes) = journal.since(revision) else {
        return false;
    };
    let mut edited = BTreeSet::new();
    for change in changes {
        match change {
            Change::MonitorEdited(object) => {
                edited.insert(object);
            }
            // Warnings are worked out again below.
            Change::UnknownFields(_) => {}
            Change::Data(object) if discovery.dependencies.references.contains_key(object) => {
                return false;
            }
            // Discovery reads a Secret or ConfigMap only through a reference to it.
            Change::Data(_) => {}
            Change::Other => return false,
        }
    }
    // A monitor not selected stays out: same labels, same selectors.
    edited.retain(|o| discovery.dependencies.members.contains(*o));
    // Rejected before (a reference, a file), it may not be now, and the other way round.
    if discovery
        .rejections
        .iter()
        .any(|r| edited.contains(&r.object))
    {
        return false;
    }
    let deny_files = denies_file_access(agent);
    let mut replacements = Vec::with_capacity(edited.len());
    for object in edited {
        let Some(replacement) = Replacement::of(inputs, object, deny_files) else {
            return false;
        };
        replacements.push(replacement);
    }

    for replacement in &replacements {
        for node in &mut discovery.hierarchy.metrics {
            match replacement {
                Replacement::Service(m) => replace(&mut node.service_monitors, m),
                Replacement::Pod(m) => replace(&mut node.pod_monitors, m),
                Replacement::Probe(m) => replace(&mut node.probes, m),
                Replacement::ScrapeConfig(m) => replace(&mut node.scrape_configs, m),
            }
        }
    }
    discovery.hierarchy.agent = agent.clone();
    let agent_ref = InputRef::of(Kind::GrafanaAgent, agent.as_ref());
    discovery.warnings = unknown_field_warnings(inputs, &agent_ref, &discovery.dependencies);
    discovery.revision = Some(journal.revision());
    true
}

/// The new version of an edited member.
enum Replacement {
    Service(Arc<ServiceMonitor>),
    Pod(Arc<PodMonitor>),
    Probe(Arc<Probe>),
    ScrapeConfig(Arc<ScrapeConfig>),
}

impl Replacement {
    /// `object`'s version in `inputs`; `None` when it is gone or now reads the agent's files
    /// where the agent denies it (a rejection a full discovery reports).
    fn of<V: InputView + ?Sized>(inputs: &V, object: &InputRef, deny_files: bool) -> Option<Self> {
        fn current<T: Input, V: InputView + ?Sized>(inputs: &V, o: &InputRef) -> Option<Arc<T>> {
            inputs.objects::<T>().get(&o.namespace, &o.name).cloned()
        }
        let replacement = match object.kind {
            Kind::ServiceMonitor => {
                let m = current::<ServiceMonitor, _>(inputs, object)?;
                if deny_files && file_access(&m).is_some() {
                    return None;
                }
                Replacement::Service(m)
            }
            Kind::ScrapeConfig => {
                let m = current::<ScrapeConfig, _>(inputs, object)?;
                if deny_files && scrape_config_file_access(&m).is_some() {
                    return None;
                }
                Replacement::ScrapeConfig(m)
            }
            Kind::PodMonitor => Replacement::Pod(current(inputs, object)?),
            Kind::Probe => Replacement::Probe(current(inputs, object)?),
            _ => return None,
        };
        Some(replacement)
    }
}

/// Puts `new` in place of the object of `objects` with its namespace and name, if any.
fn replace<T: kube::core::Resource>(objects: &mut [Arc<T>], new: &Arc<T>) {
    let (namespace, name) = (&new.meta().namespace, &new.meta().name);
    if let Some(old) = objects
        .iter_mut()
        .find(|o| &o.meta().name == name && &o.meta().namespace == namespace)
    {
        *old = new.clone();
    }
}

/// Whether `a` and `b` are the same version of the agent.
fn same_version(a: &Arc<GrafanaAgent>, b: &Arc<GrafanaAgent>) -> bool {
    Arc::ptr_eq(a, b) || a == b
}
