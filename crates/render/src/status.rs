//! The status one agent's plan implies: the GrafanaAgent's own, and the agent's entry in each
//! MetricsInstance, LogsInstance, PodLogs and Integration it selects
//! (`status.agents[agent=<ns>/<name>]`).
//!
//! Pure: `Reconciled` comes from the rejections; the controller adds `Available` from the
//! workloads' live status, stamps the transition times and writes each entry.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use api::PodLogs;
use api::status::{
    GrafanaAgentStatus, IntegrationAgentStatus, LogsInstanceAgentStatus, MAX_LISTED_REJECTIONS,
    MetricsInstanceAgentStatus, PodLogsAgentStatus, RejectedObject, agent_key, condition, reason,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;

use crate::desired::Subsystem;
use crate::discover::Hierarchy;
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};
use crate::store::Input;

/// How many rejections a `Reconciled` message spells out; the status lists more.
const REJECTIONS_IN_MESSAGE: usize = 10;
/// The longest message kept in a status (condition or rejected object); the API server caps a
/// condition message at 32768 bytes, and a status is read by people.
const MESSAGE_LIMIT: usize = 1024;

/// One agent's entry in the status of an object several agents may select.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedEntry<S> {
    /// The MetricsInstance, LogsInstance, PodLogs or Integration the entry belongs to.
    pub object: InputRef,
    /// The workloads that run the object, for its `Available` condition; `None` for a kind
    /// without one (PodLogs: its LogsInstance entry says whether the DaemonSet runs).
    pub subsystem: Option<Subsystem>,
    pub entry: S,
}

/// The kinds whose status holds one entry per selecting agent (`status.agents`, a list-map
/// keyed by `agent`): how to read the entries of a live object, and which of an agent's
/// planned entries are of this kind.
pub trait SharedStatus: Input {
    type Entry: serde::Serialize + Clone + PartialEq + std::fmt::Debug + Send + Sync;
    /// The entries of a live object, every agent's.
    fn entries(&self) -> &[Self::Entry];
    /// The `namespace/name` of the agent an entry belongs to.
    fn agent_of(entry: &Self::Entry) -> &str;
    fn conditions(entry: &Self::Entry) -> &[Condition];
    fn conditions_mut(entry: &mut Self::Entry) -> &mut Vec<Condition>;
    /// This kind's entries among what one agent's plan implies.
    fn planned(status: &DesiredStatus) -> &[SharedEntry<Self::Entry>];
}

/// One line per kind with per-agent entries; [`KINDS_WITH_ENTRIES`] lists the same kinds, so
/// a consumer iterating over them cannot miss one.
macro_rules! shared_status {
    ($($kind:ty => $entry:ty, $planned:ident;)*) => {
        $(
            impl SharedStatus for $kind {
                type Entry = $entry;
                fn entries(&self) -> &[$entry] {
                    self.status
                        .as_ref()
                        .map(|s| s.agents.as_slice())
                        .unwrap_or_default()
                }
                fn agent_of(entry: &$entry) -> &str {
                    &entry.agent
                }
                fn conditions(entry: &$entry) -> &[Condition] {
                    &entry.conditions
                }
                fn conditions_mut(entry: &mut $entry) -> &mut Vec<Condition> {
                    &mut entry.conditions
                }
                fn planned(status: &DesiredStatus) -> &[SharedEntry<$entry>] {
                    &status.$planned
                }
            }
        )*

        /// The kinds that implement [`SharedStatus`].
        pub const KINDS_WITH_ENTRIES: &[Kind] = &[$(<$kind as Input>::KIND),*];
    };
}

shared_status! {
    api::MetricsInstance => MetricsInstanceAgentStatus, metrics_instances;
    api::LogsInstance => LogsInstanceAgentStatus, logs_instances;
    api::PodLogs => PodLogsAgentStatus, pod_logs;
    api::Integration => IntegrationAgentStatus, integrations;
}

/// Every status write one agent's plan implies.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DesiredStatus {
    /// The GrafanaAgent's status, with `Reconciled` only.
    pub agent: GrafanaAgentStatus,
    pub metrics_instances: Vec<SharedEntry<MetricsInstanceAgentStatus>>,
    pub logs_instances: Vec<SharedEntry<LogsInstanceAgentStatus>>,
    pub pod_logs: Vec<SharedEntry<PodLogsAgentStatus>>,
    pub integrations: Vec<SharedEntry<IntegrationAgentStatus>>,
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// `text`, cut at a character boundary to [`MESSAGE_LIMIT`] bytes.
fn bounded(mut text: String) -> String {
    if text.len() > MESSAGE_LIMIT {
        let mut end = MESSAGE_LIMIT - 3;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("...");
    }
    text
}

/// A condition as planned. Its transition time is a placeholder (the epoch): the controller
/// keeps the live one while the status is unchanged and stamps the time of writing otherwise.
pub fn planned_condition(
    type_: &str,
    status: bool,
    reason: &str,
    message: String,
    generation: Option<i64>,
) -> Condition {
    Condition {
        type_: type_.to_owned(),
        status: if status { "True" } else { "False" }.to_owned(),
        reason: reason.to_owned(),
        message: bounded(message),
        observed_generation: generation,
        last_transition_time: Time(Timestamp::UNIX_EPOCH),
    }
}

/// `RuntimeDifferences=True` naming the first `warnings` (what Alloy does differently, the
/// settings the operator no longer uses, the fields our schemas lack), or `None` when there
/// is none. Its reason is `AlloyDifference` when every warning is Alloy's, `UnknownField`
/// when every one is an unknown field, `UnusedSetting` otherwise.
pub fn runtime_differences(warnings: &[Rejection], generation: Option<i64>) -> Option<Condition> {
    let first = warnings.first()?;
    let (reason, what) = match first.reason {
        _ if warnings.iter().any(|w| w.reason != first.reason) => {
            (reason::UNUSED_SETTING, "settings the pods do not use")
        }
        Reason::AlloyDifference => (reason::ALLOY_DIFFERENCE, "settings Alloy does not use"),
        Reason::UnknownField => (
            reason::UNKNOWN_FIELD,
            "objects with fields the operator does not know",
        ),
        _ => (reason::UNUSED_SETTING, "settings the pods do not use"),
    };
    let listed: Vec<String> = warnings
        .iter()
        .take(REJECTIONS_IN_MESSAGE)
        .map(ToString::to_string)
        .collect();
    let mut message = format!(
        "{} {what} (the objects run): {}",
        warnings.len(),
        listed.join("; ")
    );
    let more = warnings.len().saturating_sub(REJECTIONS_IN_MESSAGE);
    if more > 0 {
        message.push_str(&format!("; and {more} more"));
    }
    Some(planned_condition(
        condition::RUNTIME_DIFFERENCES,
        true,
        reason,
        message,
        generation,
    ))
}

/// Adds `RuntimeDifferences` ([`runtime_differences`]) to the agent's status and to each entry
/// whose object, or what it selects, has `warnings` (sorted): a MetricsInstance's entry for
/// the instance and its monitors, Probes and ScrapeConfigs, a LogsInstance's for the instance and its
/// PodLogs, a PodLogs' and an Integration's for the object itself. Where a user looks at an
/// object, the status it has says what of it is not used.
pub fn add_runtime_differences(status: &mut DesiredStatus, h: &Hierarchy, warnings: &[Rejection]) {
    if warnings.is_empty() {
        return;
    }
    status
        .agent
        .conditions
        .extend(runtime_differences(warnings, h.agent.metadata.generation));
    let about = |members: &BTreeSet<InputRef>| -> Vec<Rejection> {
        warnings
            .iter()
            .filter(|w| members.contains(&w.object))
            .cloned()
            .collect()
    };
    for (entry, node) in status.metrics_instances.iter_mut().zip(&h.metrics) {
        let members: BTreeSet<InputRef> = std::iter::once(entry.object.clone())
            .chain(refs_of(Kind::ServiceMonitor, &node.service_monitors))
            .chain(refs_of(Kind::PodMonitor, &node.pod_monitors))
            .chain(refs_of(Kind::Probe, &node.probes))
            .chain(refs_of(Kind::ScrapeConfig, &node.scrape_configs))
            .collect();
        let generation = node.instance.metadata.generation;
        entry
            .entry
            .conditions
            .extend(runtime_differences(&about(&members), generation));
    }
    for (entry, node) in status.logs_instances.iter_mut().zip(&h.logs) {
        let members: BTreeSet<InputRef> = std::iter::once(entry.object.clone())
            .chain(refs_of(Kind::PodLogs, &node.pod_logs))
            .collect();
        let generation = node.instance.metadata.generation;
        entry
            .entry
            .conditions
            .extend(runtime_differences(&about(&members), generation));
    }
    for entry in &mut status.pod_logs {
        let generation = entry.entry.observed_generation;
        let own = about(&BTreeSet::from([entry.object.clone()]));
        entry
            .entry
            .conditions
            .extend(runtime_differences(&own, generation));
    }
    for (entry, integration) in status.integrations.iter_mut().zip(&h.integrations) {
        let own = about(&BTreeSet::from([entry.object.clone()]));
        entry
            .entry
            .conditions
            .extend(runtime_differences(&own, integration.metadata.generation));
    }
}

/// `Reconciled`: `True` with `ok_message` when nothing was rejected, otherwise `False`
/// (`InvalidConfiguration`) naming the first rejections.
fn reconciled(rejections: &[&Rejection], ok_message: String, generation: Option<i64>) -> Condition {
    if rejections.is_empty() {
        return planned_condition(
            condition::RECONCILED,
            true,
            reason::RECONCILED,
            ok_message,
            generation,
        );
    }
    let listed: Vec<String> = rejections
        .iter()
        .take(REJECTIONS_IN_MESSAGE)
        .map(ToString::to_string)
        .collect();
    let mut message = format!(
        "{} rejected (the rest is applied): {}",
        rejections.len(),
        listed.join("; ")
    );
    let more = rejections.len().saturating_sub(REJECTIONS_IN_MESSAGE);
    if more > 0 {
        message.push_str(&format!("; and {more} more"));
    }
    planned_condition(
        condition::RECONCILED,
        false,
        reason::INVALID_CONFIGURATION,
        message,
        generation,
    )
}

/// The first [`MAX_LISTED_REJECTIONS`] of `rejections` (already sorted) and their total.
fn rejected_objects(rejections: &[&Rejection]) -> (Vec<RejectedObject>, i32) {
    let listed = rejections
        .iter()
        .take(MAX_LISTED_REJECTIONS)
        .map(|r| RejectedObject {
            kind: r.object.kind.as_str().to_owned(),
            namespace: r.object.namespace.clone(),
            name: r.object.name.clone(),
            field: r.field.clone(),
            reason: r.reason.as_str().to_owned(),
            message: bounded(r.message.clone()),
        })
        .collect();
    (listed, count(rejections.len()))
}

/// The rejections of the objects in `members`, in the order given.
/// What an agent's entry in an instance or Integration says besides its counts: `Reconciled`
/// from the rejections among `members` (the object and what it selects), and those listed.
struct Verdict {
    conditions: Vec<Condition>,
    rejected_objects: Vec<RejectedObject>,
    rejected_total: i32,
}

/// The names of `objects`, all of `kind`.
fn refs_of<T: kube::core::Resource>(
    kind: Kind,
    objects: &[Arc<T>],
) -> impl Iterator<Item = InputRef> + '_ {
    objects.iter().map(move |o| InputRef::of(kind, o.as_ref()))
}

/// `members` gives the objects whose rejections count: only called when there are
/// rejections (at 10k monitors, the set cost a few ms of every reconcile that has none).
fn verdict(
    rejections: &[Rejection],
    members: impl FnOnce() -> BTreeSet<InputRef>,
    ok_message: &str,
    generation: Option<i64>,
) -> Verdict {
    let mine = if rejections.is_empty() {
        Vec::new()
    } else {
        of_members(rejections, &members())
    };
    let (rejected_objects, rejected_total) = rejected_objects(&mine);
    Verdict {
        conditions: vec![reconciled(&mine, ok_message.to_owned(), generation)],
        rejected_objects,
        rejected_total,
    }
}

fn of_members<'a>(rejections: &'a [Rejection], members: &BTreeSet<InputRef>) -> Vec<&'a Rejection> {
    rejections
        .iter()
        .filter(|r| members.contains(&r.object))
        .collect()
}

/// The status implied by `h` and its plan's (sorted) `rejections`; `planned_objects` is how
/// many objects the plan holds.
pub fn desired(h: &Hierarchy, rejections: &[Rejection], planned_objects: usize) -> DesiredStatus {
    let agent = agent_key(h.agent_namespace(), h.agent_name());
    let all: Vec<&Rejection> = rejections.iter().collect();
    let metrics = h.agent.spec.metrics.as_ref();
    let (rejected_objects_listed, rejected_total) = rejected_objects(&all);
    let generation = h.agent.metadata.generation;
    let agent_status = GrafanaAgentStatus {
        observed_generation: generation,
        conditions: vec![reconciled(
            &all,
            format!("{planned_objects} objects applied"),
            generation,
        )],
        metrics_instances: count(h.metrics.len()),
        logs_instances: count(h.logs.len()),
        integrations: count(h.integrations.len()),
        service_monitors: count(h.metrics.iter().map(|m| m.service_monitors.len()).sum()),
        pod_monitors: count(h.metrics.iter().map(|m| m.pod_monitors.len()).sum()),
        probes: count(h.metrics.iter().map(|m| m.probes.len()).sum()),
        scrape_configs: count(h.metrics.iter().map(|m| m.scrape_configs.len()).sum()),
        pod_logs: count(h.logs.iter().map(|l| l.pod_logs.len()).sum()),
        shards: if h.metrics.is_empty() {
            0
        } else {
            crate::sharding::effective_shards(metrics)
        },
        replicas: if h.metrics.is_empty() {
            0
        } else {
            crate::workloads::effective_replicas(metrics)
        },
        rejected_objects: rejected_objects_listed,
        rejected_total,
    };

    let ok = format!("rendered into the config of GrafanaAgent {agent}");
    let metrics_instances = h
        .metrics
        .iter()
        .map(|node| {
            let object = InputRef::of(Kind::MetricsInstance, node.instance.as_ref());
            let members = || {
                std::iter::once(object.clone())
                    .chain(refs_of(Kind::ServiceMonitor, &node.service_monitors))
                    .chain(refs_of(Kind::PodMonitor, &node.pod_monitors))
                    .chain(refs_of(Kind::Probe, &node.probes))
                    .chain(refs_of(Kind::ScrapeConfig, &node.scrape_configs))
                    .collect()
            };
            let v = verdict(rejections, members, &ok, node.instance.metadata.generation);
            SharedEntry {
                object,
                subsystem: Some(Subsystem::Metrics),
                entry: MetricsInstanceAgentStatus {
                    agent: agent.clone(),
                    conditions: v.conditions,
                    service_monitors: count(node.service_monitors.len()),
                    pod_monitors: count(node.pod_monitors.len()),
                    probes: count(node.probes.len()),
                    scrape_configs: count(node.scrape_configs.len()),
                    rejected_objects: v.rejected_objects,
                    rejected_total: v.rejected_total,
                },
            }
        })
        .collect();

    let logs_instances = h
        .logs
        .iter()
        .map(|node| {
            let object = InputRef::of(Kind::LogsInstance, node.instance.as_ref());
            let members = || {
                std::iter::once(object.clone())
                    .chain(refs_of(Kind::PodLogs, &node.pod_logs))
                    .collect()
            };
            let v = verdict(rejections, members, &ok, node.instance.metadata.generation);
            SharedEntry {
                object,
                subsystem: Some(Subsystem::Logs),
                entry: LogsInstanceAgentStatus {
                    agent: agent.clone(),
                    conditions: v.conditions,
                    pod_logs: count(node.pod_logs.len()),
                    rejected_objects: v.rejected_objects,
                    rejected_total: v.rejected_total,
                },
            }
        })
        .collect();

    let integrations = h
        .integrations
        .iter()
        .map(|integration| {
            let object = InputRef::of(Kind::Integration, integration.as_ref());
            let members = || BTreeSet::from([object.clone()]);
            let v = verdict(rejections, members, &ok, integration.metadata.generation);
            SharedEntry {
                object,
                subsystem: Some(Subsystem::integrations(integration.spec.type_.all_nodes)),
                entry: IntegrationAgentStatus {
                    agent: agent.clone(),
                    conditions: v.conditions,
                    rejected_objects: v.rejected_objects,
                    rejected_total: v.rejected_total,
                },
            }
        })
        .collect();

    DesiredStatus {
        agent: agent_status,
        metrics_instances,
        logs_instances,
        pod_logs: pod_logs_entries(h, rejections, &agent),
        integrations,
    }
}

/// The agent's entry in each PodLogs its LogsInstances select. A PodLogs is in the logs config
/// unless it was rejected itself, the agent's `apiServer` (which every PodLogs job uses) could
/// not be rendered, or every LogsInstance selecting it was left out whole.
fn pod_logs_entries(
    h: &Hierarchy,
    rejections: &[Rejection],
    agent: &str,
) -> Vec<SharedEntry<PodLogsAgentStatus>> {
    let mut selected: BTreeMap<InputRef, (&Arc<PodLogs>, BTreeSet<InputRef>)> = BTreeMap::new();
    for node in &h.logs {
        let instance = InputRef::of(Kind::LogsInstance, node.instance.as_ref());
        for p in &node.pod_logs {
            selected
                .entry(InputRef::of(Kind::PodLogs, p.as_ref()))
                .or_insert_with(|| (p, BTreeSet::new()))
                .1
                .insert(instance.clone());
        }
    }
    let agent_ref = h.agent_ref();
    let api_server: Vec<&Rejection> = rejections
        .iter()
        .filter(|r| {
            r.object == agent_ref
                && r.field
                    .as_deref()
                    .is_some_and(|f| f.starts_with("spec.apiServer"))
        })
        .collect();
    let left_out: BTreeSet<&InputRef> = rejections
        .iter()
        .filter(|r| r.object.kind == Kind::LogsInstance && r.reason == Reason::NothingRendered)
        .map(|r| &r.object)
        .collect();

    selected
        .into_iter()
        .map(|(object, (pod_logs, instances))| {
            let generation = pod_logs.metadata.generation;
            let own: Vec<&Rejection> = rejections.iter().filter(|r| r.object == object).collect();
            let reconciled = if let Some(first) = own.first() {
                let messages: Vec<String> = own.iter().map(|r| field_message(r)).collect();
                planned_condition(
                    condition::RECONCILED,
                    false,
                    first.reason.as_str(),
                    format!("left out of the logs config: {}", messages.join("; ")),
                    generation,
                )
            } else if let Some(first) = api_server.first() {
                planned_condition(
                    condition::RECONCILED,
                    false,
                    first.reason.as_str(),
                    format!(
                        "no PodLogs can be rendered for GrafanaAgent {agent}: {}",
                        field_message(first)
                    ),
                    generation,
                )
            } else if instances.iter().all(|i| left_out.contains(i)) {
                let names: Vec<String> = instances.iter().map(instance_key).collect();
                planned_condition(
                    condition::RECONCILED,
                    false,
                    Reason::NothingRendered.as_str(),
                    format!(
                        "every LogsInstance selecting it was left out of GrafanaAgent {agent}'s \
                         logs config: {}",
                        names.join(", ")
                    ),
                    generation,
                )
            } else {
                planned_condition(
                    condition::RECONCILED,
                    true,
                    reason::RECONCILED,
                    format!("rendered into the logs config of GrafanaAgent {agent}"),
                    generation,
                )
            };
            SharedEntry {
                object,
                subsystem: None,
                entry: PodLogsAgentStatus {
                    agent: agent.to_owned(),
                    observed_generation: generation,
                    conditions: vec![reconciled],
                    logs_instances: instances.iter().map(instance_key).collect(),
                },
            }
        })
        .collect()
}

fn instance_key(instance: &InputRef) -> String {
    agent_key(&instance.namespace, &instance.name)
}

/// A rejection without its object: `field: message`.
/// `status` of an agent refused whole for `refusals` (its own rejections, issue 38 item 6):
/// nothing of it is applied, so its `Reconciled` condition, and that of its entry in every
/// object it selects, is False with the refusals' reason and messages; the counts and
/// rejected objects stay what was selected.
pub fn refused(mut status: DesiredStatus, refusals: &[Rejection]) -> DesiredStatus {
    let Some(first) = refusals.first() else {
        return status;
    };
    let messages: Vec<String> = refusals.iter().map(field_message).collect();
    let messages = messages.join("; ");
    let set = |conditions: &mut Vec<Condition>, message: &str| {
        for c in conditions
            .iter_mut()
            .filter(|c| c.type_ == condition::RECONCILED)
        {
            c.status = "False".to_owned();
            c.reason = first.reason.as_str().to_owned();
            c.message = bounded(message.to_owned());
        }
    };
    set(
        &mut status.agent.conditions,
        &format!("the agent is left out whole, nothing of it is applied: {messages}"),
    );
    let entry = format!(
        "not rendered: GrafanaAgent {} is left out whole: {messages}",
        first.object.key()
    );
    for e in &mut status.metrics_instances {
        set(&mut e.entry.conditions, &entry);
    }
    for e in &mut status.logs_instances {
        set(&mut e.entry.conditions, &entry);
    }
    for e in &mut status.pod_logs {
        set(&mut e.entry.conditions, &entry);
    }
    for e in &mut status.integrations {
        set(&mut e.entry.conditions, &entry);
    }
    status
}

fn field_message(r: &Rejection) -> String {
    match &r.field {
        Some(field) => format!("{field}: {}", r.message),
        None => r.message.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Loader;

    const TWO_INSTANCES: &str = "\
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: monitoring, generation: 4}
spec:
  metrics: {instanceSelector: {}}
  logs: {instanceSelector: {}}
  integrations: {selector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: good, namespace: monitoring, generation: 2}
spec:
  remoteWrite: [{url: 'https://remote/push'}]
  serviceMonitorSelector: {matchLabels: {instance: good}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: bad, namespace: monitoring}
spec:
  remoteWrite: [{url: 'https://remote/push'}]
  serviceMonitorSelector: {matchLabels: {instance: bad}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: fine, namespace: monitoring, labels: {instance: good}}
spec:
  selector: {}
  endpoints: [{port: web}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: broken, namespace: monitoring, labels: {instance: bad}}
spec:
  selector: {}
  endpoints:
  - port: web
    metricRelabelings: [{sourceLabels: [__name__], regex: '(unclosed', action: drop}]
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: logs, namespace: monitoring}
spec:
  clients: [{url: 'https://loki/push'}]
  podLogsSelector: {}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {name: app, namespace: monitoring}
spec: {selector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: node, namespace: monitoring}
spec: {name: node_exporter, type: {allNodes: true}, config: {}}
";

    fn planned(text: &str) -> crate::Plan {
        let mut loader = Loader::new();
        loader.add_source("test.yaml", text);
        let loaded = loader.finish();
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let store = loaded.store;
        let agent = store.agents().next().expect("a GrafanaAgent");
        crate::plan(
            &crate::discover(agent, &store),
            &crate::PlanOptions::default(),
        )
    }

    /// Fields our schemas lack (recorded as the loader and the controller's watches record
    /// them) show where a user looks: `RuntimeDifferences` (reason `UnknownField`) on the
    /// agent, in the entry of the instance selecting the monitor and in the PodLogs' own
    /// entry, not in the others; one warning per object naming every field. The objects run.
    #[test]
    fn unknown_fields_show_on_the_agent_and_the_entries_of_their_objects() {
        let text = TWO_INSTANCES
            .replace(
                "metadata: {name: fine, namespace: monitoring, labels: {instance: good}}\nspec:\n",
                "metadata: {name: fine, namespace: monitoring, labels: {instance: good}}\nspec:\n  futureField: x\n",
            )
            .replace(
                "spec: {selector: {}}",
                "spec: {selector: {futureMatch: 1}, futureStage: []}",
            );
        let mut loader = Loader::new();
        loader.add_source("test.yaml", &text);
        let loaded = loader.finish();
        let fields: Vec<_> = loaded.diagnostics.iter().map(|d| d.field.clone()).collect();
        assert_eq!(
            fields,
            [
                Some("spec.futureField".to_owned()),
                Some("spec.selector.futureMatch".to_owned()),
                Some("spec.futureStage".to_owned()),
            ]
        );
        let store = loaded.store;
        let agent = store.agents().next().expect("a GrafanaAgent");
        let plan = crate::plan(&crate::discover(agent, &store), &Default::default());
        let warnings: Vec<String> = plan.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [
                "PodLogs monitoring/app: unknown fields, ignored: spec.futureStage, spec.selector.futureMatch",
                "ServiceMonitor monitoring/fine: unknown field, ignored: spec.futureField",
            ]
        );
        let differences = |conditions: &[Condition]| -> Option<(String, String)> {
            conditions
                .iter()
                .find(|c| c.type_ == condition::RUNTIME_DIFFERENCES)
                .map(|c| (c.reason.clone(), c.message.clone()))
        };
        let (reason, message) = differences(&plan.status.agent.conditions).expect("on the agent");
        assert_eq!(reason, reason::UNKNOWN_FIELD);
        assert!(message.starts_with("2 objects with fields the operator does not know"));
        let by_instance: Vec<(&str, Option<String>)> = plan
            .status
            .metrics_instances
            .iter()
            .map(|e| {
                let d = differences(&e.entry.conditions);
                (e.object.name.as_str(), d.map(|(_, m)| m))
            })
            .collect();
        assert_eq!(
            by_instance,
            [
                ("bad", None),
                (
                    "good",
                    Some("1 objects with fields the operator does not know (the objects run): ServiceMonitor monitoring/fine: unknown field, ignored: spec.futureField".to_owned())
                ),
            ]
        );
        assert!(differences(&plan.status.pod_logs[0].entry.conditions).is_some());
        assert!(differences(&plan.status.logs_instances[0].entry.conditions).is_some());
        assert!(differences(&plan.status.integrations[0].entry.conditions).is_none());
        // A warning, not a rejection: the monitor is in the config.
        let config = plan.configs[0].text.as_str();
        assert!(
            config.contains("serviceMonitor/monitoring/fine/0"),
            "{config}"
        );
    }

    #[test]
    fn each_instance_entry_shows_only_its_own_members_and_rejections() {
        let status = planned(TWO_INSTANCES).status;
        let entries: Vec<(&str, &str, i32, i32, &str)> = status
            .metrics_instances
            .iter()
            .map(|e| {
                (
                    e.object.name.as_str(),
                    e.entry.agent.as_str(),
                    e.entry.service_monitors,
                    e.entry.rejected_total,
                    e.entry.conditions[0].reason.as_str(),
                )
            })
            .collect();
        assert_eq!(
            entries,
            [
                ("bad", "monitoring/agent", 1, 1, "InvalidConfiguration"),
                ("good", "monitoring/agent", 1, 0, "Reconciled"),
            ]
        );
        let bad = &status.metrics_instances[0].entry;
        assert_eq!(
            bad.rejected_objects,
            [RejectedObject {
                kind: "ServiceMonitor".into(),
                namespace: "monitoring".into(),
                name: "broken".into(),
                field: bad.rejected_objects[0].field.clone(),
                reason: "InvalidRegex".into(),
                message: bad.rejected_objects[0].message.clone(),
            }]
        );
        assert!(
            bad.conditions[0]
                .message
                .contains("ServiceMonitor monitoring/broken"),
            "{:?}",
            bad.conditions[0]
        );
        let good = &status.metrics_instances[1];
        assert_eq!(good.entry.conditions[0].observed_generation, Some(2));
        assert_eq!(good.subsystem, Some(Subsystem::Metrics));

        let logs = &status.logs_instances[0];
        assert_eq!((logs.entry.pod_logs, logs.entry.rejected_total), (1, 0));
        assert_eq!(logs.subsystem, Some(Subsystem::Logs));
        let integration = &status.integrations[0];
        assert_eq!(
            integration.subsystem,
            Some(Subsystem::IntegrationsDaemonSet)
        );
        assert_eq!(integration.entry.conditions[0].status, "True");

        let agent = &status.agent;
        assert_eq!(agent.observed_generation, Some(4));
        assert_eq!(
            (
                agent.metrics_instances,
                agent.service_monitors,
                agent.pod_logs
            ),
            (2, 2, 1)
        );
        assert_eq!(agent.rejected_total, 1);
        assert_eq!(agent.conditions[0].status, "False");
    }

    #[test]
    fn a_pod_logs_entry_names_its_instances_and_its_own_rejection() {
        let more = "\
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: second, namespace: monitoring}
spec:
  clients: [{url: 'https://loki/push'}]
  podLogsSelector: {matchLabels: {team: b}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {name: broken, namespace: monitoring, generation: 3, labels: {team: b}}
spec:
  selector: {}
  relabelings: [{sourceLabels: [__meta_kubernetes_pod_name], regex: '(unclosed', action: drop}]
";
        let status = planned(&format!("{TWO_INSTANCES}{more}")).status;
        let entries: Vec<(&str, &str, &str, Vec<&str>)> = status
            .pod_logs
            .iter()
            .map(|e| {
                let reconciled = &e.entry.conditions[0];
                (
                    e.object.name.as_str(),
                    reconciled.status.as_str(),
                    reconciled.reason.as_str(),
                    e.entry.logs_instances.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            entries,
            [
                ("app", "True", "Reconciled", vec!["monitoring/logs"]),
                (
                    "broken",
                    "False",
                    "InvalidRegex",
                    vec!["monitoring/logs", "monitoring/second"]
                ),
            ]
        );
        let broken = &status.pod_logs[1];
        assert_eq!(broken.subsystem, None);
        assert_eq!(broken.entry.agent, "monitoring/agent");
        assert_eq!(broken.entry.observed_generation, Some(3));
        let message = &broken.entry.conditions[0].message;
        assert!(
            message.contains("spec.relabelings[0].regex") && message.contains("(unclosed"),
            "{message}"
        );
    }

    #[test]
    fn pod_logs_of_instances_left_out_whole_are_not_reconciled() {
        let text = TWO_INSTANCES.replace(
            "clients: [{url: 'https://loki/push'}]",
            "clients: [{url: ''}]",
        );
        let status = planned(&text).status;
        let reconciled = &status.pod_logs[0].entry.conditions[0];
        assert_eq!(
            (reconciled.status.as_str(), reconciled.reason.as_str()),
            ("False", "NothingRendered"),
            "{reconciled:?}"
        );
        assert!(
            reconciled.message.contains("monitoring/logs"),
            "{reconciled:?}"
        );
    }

    #[test]
    fn the_rejected_list_is_bounded_and_the_total_counts_all() {
        let monitors: String = (0..30)
            .map(|i| {
                format!(
                    "---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {{name: broken-{i:02}, namespace: monitoring, labels: {{instance: bad}}}}\nspec:\n  selector: {{}}\n  endpoints:\n  - port: web\n    metricRelabelings: [{{sourceLabels: [__name__], regex: '(x', action: drop}}]\n"
                )
            })
            .collect();
        let status = planned(&format!("{TWO_INSTANCES}{monitors}")).status;
        let bad = &status.metrics_instances[0].entry;
        assert_eq!(bad.rejected_total, 31);
        assert_eq!(bad.rejected_objects.len(), MAX_LISTED_REJECTIONS);
        assert_eq!(status.agent.rejected_total, 31);
        assert_eq!(status.agent.rejected_objects.len(), MAX_LISTED_REJECTIONS);
        let message = &bad.conditions[0].message;
        assert!(message.starts_with("31 rejected"), "{message}");
        assert!(message.len() <= MESSAGE_LIMIT, "{}", message.len());
    }
}
