//! The "status" step: what `plan` says about the agent and each instance it selects, plus
//! `Available` from the applied workloads' own status, written only where it changed.
//!
//! The GrafanaAgent's status is written with the operator's field manager. A MetricsInstance,
//! LogsInstance, PodLogs or Integration holds one entry per selecting agent in `status.agents` (a list-map
//! keyed by `agent`); each agent's entry is server-side-applied with that agent's own field
//! manager ([`entry_manager`]), so the API server merges the entries of several agents and an
//! agent's write never touches another's. An entry goes away when its agent applies an empty
//! status under the same manager: when the agent stops selecting the object, when it is deleted
//! ([`remove_entries`]), and, for deletions the operator missed while it was down, when a
//! scan finds an entry naming an agent that no longer exists ([`Sweep`]).
//!
//! Which objects may hold an entry the agent no longer wants comes from the reverse index:
//! the objects its latest discovery dropped ([`StaleEntries`]), and, when the agent is deleted,
//! every object it had recorded ([`remove_entries`]). Only an agent's first reconcile in this
//! process, when the index knows nothing of what it selected before, scans every object of the
//! kinds with entries (as does the next reconcile after a removal failed, and the deletion of
//! an agent that never completed such a scan).
//!
//! The kinds are those whose registry line says `entries` (`watches`), visited through
//! [`Stores::each_with_entries`]; `Available` comes from the workloads the apply step reports
//! ([`Applied`]) and their live status.

use std::collections::{BTreeSet, HashSet};
use std::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use api::GrafanaAgent;
use api::status::{agent_key, condition, reason};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Client, Resource};
use md5::{Digest, Md5};
use render::desired::{ManagedKind, Subsystem};
use render::input_ref::InputRef;
use render::status::{DesiredStatus, KINDS_WITH_ENTRIES, planned_condition};
use serde::Serialize;

use crate::apply::{Applied, AppliedObject, Outcome};
use crate::context::Context;
use crate::error::Error;
use crate::metrics::Metrics;
use crate::watches::{EntriesVisitor, Namespaced, Stores, WithEntries};
use crate::writer::FIELD_MANAGER;

/// The longest field manager name the API server accepts.
const MAX_MANAGER_LEN: usize = 128;

/// Which entries naming an agent the operator does not know it may remove: those of agents it
/// would reconcile. With `--agent-selector` another operator may reconcile the agents this one
/// does not see, so nothing is swept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sweep {
    Off,
    /// Agents in any namespace.
    All,
    /// Agents in this namespace (`--namespace`).
    Namespace(String),
}

impl Sweep {
    pub(crate) fn new(namespace: Option<&str>, agent_selector: Option<&str>) -> Sweep {
        match (agent_selector, namespace) {
            (Some(_), _) => Sweep::Off,
            (None, Some(ns)) => Sweep::Namespace(ns.to_owned()),
            (None, None) => Sweep::All,
        }
    }

    pub(crate) fn covers(&self, agent: &str) -> bool {
        match self {
            Sweep::Off => false,
            Sweep::All => true,
            Sweep::Namespace(ns) => agent
                .split_once('/')
                .is_some_and(|(agent_ns, _)| agent_ns == ns),
        }
    }
}

/// Which entries of vanished agents may be removed ([`Sweep`]), and whether a removal failed
/// since: then the next reconcile scans every object for stale entries. Shared by every
/// reconcile.
#[derive(Debug)]
pub(crate) struct Cleanup {
    sweep: Sweep,
    rescan: AtomicBool,
}

impl Cleanup {
    pub(crate) fn new(sweep: Sweep) -> Cleanup {
        Cleanup {
            sweep,
            rescan: AtomicBool::new(false),
        }
    }

    fn failed(&self) {
        self.rescan.store(true, Ordering::Release);
    }
}

/// The objects that may hold an agent's entry though the agent no longer selects them.
#[derive(Debug, Default)]
pub(crate) struct StaleEntries {
    /// Every object of the kinds with entries was looked at once, since this process started.
    scanned: bool,
    /// Objects the agent's discovery dropped whose entry is not known to be gone.
    dropped: BTreeSet<InputRef>,
}

impl StaleEntries {
    /// Takes the objects the reverse index says the agent's latest discovery dropped.
    pub(crate) fn dropped(&mut self, objects: impl IntoIterator<Item = InputRef>) {
        self.dropped.extend(
            objects
                .into_iter()
                .filter(|o| KINDS_WITH_ENTRIES.contains(&o.kind)),
        );
    }

    /// The objects that may hold a deleted agent's entries, given those it had recorded in
    /// the reverse index: with the ones it dropped whose entries may remain. `None` when the
    /// agent never scanned every object in this process: entries from before may be anywhere.
    pub(crate) fn of_deleted_agent(
        &self,
        recorded: BTreeSet<InputRef>,
    ) -> Option<BTreeSet<InputRef>> {
        self.scanned.then(|| {
            recorded
                .into_iter()
                .chain(self.dropped.iter().cloned())
                .filter(|o| KINDS_WITH_ENTRIES.contains(&o.kind))
                .collect()
        })
    }
}

/// The field manager of one agent's entries: `agent-operator/<namespace>/<name>`, or, when that
/// is longer than the API server allows, `agent-operator/` and a hash of the agent's key (stable
/// across versions, so an upgraded operator still owns the entries it wrote).
pub(crate) fn entry_manager(agent: &str) -> String {
    let manager = format!("{FIELD_MANAGER}/{agent}");
    if manager.len() <= MAX_MANAGER_LEN {
        return manager;
    }
    let digest = Md5::digest(agent.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{FIELD_MANAGER}/{hex}")
}

/// The `Available` condition of an agent or of one object it selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Availability {
    pub available: bool,
    pub reason: &'static str,
    pub message: String,
}

/// `Available` from the live status of the workloads among `objects` (what the apply step
/// did with each planned object) in `namespace`.
fn availability<'a>(
    objects: impl Iterator<Item = &'a AppliedObject>,
    namespace: &str,
    stores: &Stores,
) -> Availability {
    fn live<K: Resource<DynamicType = ()> + Clone>(
        store: &Store<K>,
        namespace: &str,
        name: &str,
    ) -> Option<Arc<K>> {
        store.get(&ObjectRef::new(name).within(namespace))
    }
    let mut workloads = 0;
    let mut waiting = Vec::new();
    let mut loaders_waiting = false;
    for applied in objects {
        let name = applied.object.name.as_str();
        let (ready, wanted, selector) = match applied.object.kind {
            ManagedKind::StatefulSet => {
                let s: Option<Arc<StatefulSet>> = live(&stores.stateful_sets, namespace, name);
                let wanted = s
                    .as_ref()
                    .and_then(|s| s.spec.as_ref()?.replicas)
                    .unwrap_or(1);
                let selector = s
                    .as_ref()
                    .and_then(|s| s.spec.as_ref()?.selector.match_labels.clone());
                let ready = s.and_then(|s| s.status.as_ref()?.ready_replicas);
                (ready.unwrap_or(0), wanted, selector)
            }
            ManagedKind::DaemonSet => {
                let d: Option<Arc<DaemonSet>> = live(&stores.daemon_sets, namespace, name);
                let selector = d
                    .as_ref()
                    .and_then(|d| d.spec.as_ref()?.selector.match_labels.clone());
                match d.and_then(|d| d.status.clone()) {
                    Some(s) => (s.number_ready, s.desired_number_scheduled, selector),
                    None => (0, 1, selector),
                }
            }
            ManagedKind::Deployment => {
                let d: Option<Arc<Deployment>> = live(&stores.deployments, namespace, name);
                let wanted = d
                    .as_ref()
                    .and_then(|d| d.spec.as_ref()?.replicas)
                    .unwrap_or(1);
                let selector = d
                    .as_ref()
                    .and_then(|d| d.spec.as_ref()?.selector.match_labels.clone());
                let ready = d.and_then(|d| d.status.as_ref()?.available_replicas);
                (ready.unwrap_or(0), wanted, selector)
            }
            ManagedKind::Secret
            | ManagedKind::Service
            | ManagedKind::Role
            | ManagedKind::RoleBinding => continue,
        };
        workloads += 1;
        if applied.outcome == Outcome::Refused {
            waiting.push(format!("{}: refused by the API server", applied.object));
        } else if ready < wanted {
            let loaders = selector
                .map(|labels| loaders_not_ready(&stores.pods, namespace, &labels))
                .unwrap_or_default();
            let mut line = format!("{}: {ready}/{wanted} ready", applied.object);
            if !loaders.is_empty() {
                loaders_waiting = true;
                line.push_str(&format!(
                    " (the config loader of pod {} has not had its agent load the newest \
                     config: the agent refused it and runs the last one it accepted, or it \
                     cannot be read; `kubectl logs -n {namespace} POD -c {}` says why)",
                    loaders.join(", "),
                    render::workloads::pod_template::RELOADER_CONTAINER
                ));
            }
            waiting.push(line);
        }
    }
    let (available, reason, message) = match (workloads, waiting.is_empty()) {
        (0, _) => (
            false,
            reason::NO_WORKLOADS,
            "no workload runs it".to_owned(),
        ),
        (_, true) => (
            true,
            reason::WORKLOADS_READY,
            format!("{workloads} workloads ready"),
        ),
        (_, false) if loaders_waiting => (false, reason::CONFIG_NOT_LOADED, waiting.join("; ")),
        (_, false) => (false, reason::WORKLOADS_NOT_READY, waiting.join("; ")),
    };
    Availability {
        available,
        reason,
        message,
    }
}

/// The pods of a workload (those carrying every label of its selector) in `namespace` whose
/// config loader container is not ready while it runs: the loader says so when the agent
/// refused the newest config or it cannot be read (`controller::config_loader`'s `/ready`).
fn loaders_not_ready(
    pods: &Store<Pod>,
    namespace: &str,
    selector: &std::collections::BTreeMap<String, String>,
) -> Vec<String> {
    let mut names: Vec<String> = pods
        .state()
        .iter()
        .filter(|pod| pod.metadata.namespace.as_deref() == Some(namespace))
        .filter(|pod| {
            let labels = pod.metadata.labels.as_ref();
            selector
                .iter()
                .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v))
        })
        .filter(|pod| {
            pod.status
                .as_ref()
                .and_then(|s| s.container_statuses.as_ref())
                .into_iter()
                .flatten()
                .any(|c| {
                    c.name == render::workloads::pod_template::RELOADER_CONTAINER
                        && !c.ready
                        && c.started == Some(true)
                })
        })
        .filter_map(|pod| pod.metadata.name.clone())
        .collect();
    names.sort();
    names
}

/// Completes planned conditions: `Reconciled` says `ApplyFailed` when the apply step failed,
/// `Available` is added when the kind has one, and every condition whose status did not change keeps the time it
/// last changed (the others get `now`).
fn complete(
    conditions: &mut Vec<Condition>,
    live: &[Condition],
    generation: Option<i64>,
    available: Option<&Availability>,
    apply_error: Option<&Error>,
    now: &Time,
) {
    if let Some(e) = apply_error {
        for c in conditions.iter_mut() {
            if c.type_ == condition::RECONCILED {
                *c = planned_condition(
                    condition::RECONCILED,
                    false,
                    reason::APPLY_FAILED,
                    e.to_string(),
                    generation,
                );
            }
        }
    }
    if let Some(available) = available {
        conditions.push(planned_condition(
            condition::AVAILABLE,
            available.available,
            available.reason,
            available.message.clone(),
            generation,
        ));
    }
    for c in conditions.iter_mut() {
        c.last_transition_time = live
            .iter()
            .find(|old| old.type_ == c.type_ && old.status == c.status)
            .map_or_else(|| now.clone(), |old| old.last_transition_time.clone());
    }
}

/// Writes the status of `agent` and its entries in the objects it selects (`planned`), each
/// only where it changed, from what the apply step did; removes its entries from objects it
/// no longer selects and the entries of deleted agents `cleanup` covers. Returns how many
/// writes it made.
pub(crate) async fn write(
    ctx: &Context,
    cleanup: &Cleanup,
    agent: &GrafanaAgent,
    planned: &DesiredStatus,
    applied: &Applied,
    stale: &mut StaleEntries,
) -> Result<usize, Error> {
    let (client, stores, metrics) = (&ctx.client, &ctx.stores, &ctx.metrics);
    let now = Time(Timestamp::now());
    let namespace = agent.metadata.namespace.as_deref().unwrap_or_default();
    let key = agent_key(
        namespace,
        agent.metadata.name.as_deref().unwrap_or_default(),
    );
    let apply_error = applied.error();
    let mut writes = 0;

    let mut desired = planned.agent.clone();
    let all = availability(applied.objects.iter(), namespace, stores);
    let live_conditions = agent
        .status
        .as_ref()
        .map(|s| s.conditions.as_slice())
        .unwrap_or_default();
    complete(
        &mut desired.conditions,
        live_conditions,
        agent.metadata.generation,
        Some(&all),
        apply_error,
        &now,
    );
    if agent.status.as_ref() != Some(&desired) {
        apply_status(client, metrics, agent, FIELD_MANAGER, &desired).await?;
        writes += 1;
    }

    let scan = !stale.scanned || cleanup.rescan.swap(false, Ordering::AcqRel);
    let mut entries = Entries {
        ctx,
        cleanup,
        planned,
        applied,
        namespace,
        now: &now,
        agent: &key,
        scan,
        stale,
        writes: 0,
    };
    let written = stores.each_with_entries(&mut entries).await;
    let n = entries.writes;
    match written {
        Ok(()) => {
            stale.scanned |= scan;
            Ok(writes + n)
        }
        Err(e) => {
            if scan {
                stale.scanned = false;
            }
            Err(e)
        }
    }
}

/// Removes `agent`'s entries (the agent was deleted or left `--agent-selector`): from
/// `objects` when the caller knows which objects may hold them
/// ([`StaleEntries::of_deleted_agent`]), else from every object the stores hold.
pub(crate) async fn remove_entries(
    ctx: &Context,
    cleanup: &Cleanup,
    agent: &str,
    objects: Option<BTreeSet<InputRef>>,
) {
    let mut removal = Removal {
        ctx,
        agents: BTreeSet::from([agent.to_owned()]),
        objects,
        removed: Removed::default(),
    };
    let Ok(()) = ctx.stores.each_with_entries(&mut removal).await;
    let removed = removal.removed;
    if removed.failed > 0 {
        // Retried by the next reconcile of any agent, which scans every object.
        cleanup.failed();
    }
    if removed.removed > 0 {
        tracing::info!(
            agent,
            removed = removed.removed,
            "removed the agent's status entries"
        );
    }
}

/// Removing some agents' entries from the objects of every kind with entries.
struct Removal<'a> {
    ctx: &'a Context,
    agents: BTreeSet<String>,
    /// Only these objects; `None`: every object in the stores.
    objects: Option<BTreeSet<InputRef>>,
    removed: Removed,
}

impl EntriesVisitor for Removal<'_> {
    type Error = std::convert::Infallible;

    async fn visit<K: WithEntries>(&mut self, store: &Store<K>) -> Result<(), Self::Error> {
        let objects: Vec<Arc<K>> = match &self.objects {
            None => store.state(),
            Some(objects) => objects
                .iter()
                .filter(|o| o.kind == K::KIND)
                .filter_map(|o| store.get(&ObjectRef::new(&o.name).within(&o.namespace)))
                .collect(),
        };
        let (client, metrics) = (&self.ctx.client, &self.ctx.metrics);
        self.removed = self.removed + remove_from(client, metrics, &objects, &self.agents).await;
        Ok(())
    }
}

/// Applies an empty status under each of `agents`' managers to every object of `objects`
/// that holds an entry of theirs; failures are logged (the next reconcile or deletion
/// retries).
async fn remove_from<K: WithEntries>(
    client: &Client,
    metrics: &Metrics,
    objects: &[Arc<K>],
    agents: &BTreeSet<String>,
) -> Removed {
    let mut removed = Removed::default();
    for object in objects {
        for entry in object.entries() {
            let agent = K::agent_of(entry);
            if !agents.contains(agent) {
                continue;
            }
            match apply_status(
                client,
                metrics,
                object.as_ref(),
                &entry_manager(agent),
                &Empty {},
            )
            .await
            {
                Ok(()) => removed.removed += 1,
                Err(e) => {
                    tracing::warn!(agent, error = %e, "removing a status entry failed");
                    removed.failed += 1;
                }
            }
        }
    }
    removed
}

/// How many entries [`remove_from`] removed, and how many removals failed.
#[derive(Debug, Default, Clone, Copy)]
struct Removed {
    removed: usize,
    failed: usize,
}

impl std::ops::Add for Removed {
    type Output = Removed;
    fn add(self, other: Removed) -> Removed {
        Removed {
            removed: self.removed + other.removed,
            failed: self.failed + other.failed,
        }
    }
}

/// An empty status: applied under an agent's manager, it removes that agent's entry.
#[derive(Serialize)]
struct Empty {}

/// Writing one agent's entries, kind by kind ([`Stores::each_with_entries`]).
struct Entries<'a> {
    ctx: &'a Context,
    cleanup: &'a Cleanup,
    planned: &'a DesiredStatus,
    applied: &'a Applied,
    /// The agent's namespace, where its workloads run.
    namespace: &'a str,
    now: &'a Time,
    agent: &'a str,
    /// Look at every object (not only the dropped ones) and sweep vanished agents' entries.
    scan: bool,
    stale: &'a mut StaleEntries,
    writes: usize,
}

impl EntriesVisitor for Entries<'_> {
    type Error = Error;

    async fn visit<K: WithEntries>(&mut self, store: &Store<K>) -> Result<(), Error> {
        self.writes += self.write(store).await?;
        Ok(())
    }
}

impl Entries<'_> {
    /// Writes the agent's entry in each object of kind `K` it selects where it changed and
    /// removes its entries from the objects it dropped; with `scan`, from every other object
    /// in `store`, sweeping the entries of vanished agents too.
    async fn write<K: WithEntries>(&mut self, store: &Store<K>) -> Result<usize, Error> {
        let (client, metrics) = (&self.ctx.client, &self.ctx.metrics);
        let apply_error = self.applied.error();
        let mut writes = 0;
        let mut selected = HashSet::new();
        for shared in K::planned(self.planned) {
            let object_ref = ObjectRef::new(&shared.object.name).within(&shared.object.namespace);
            selected.insert(object_ref.clone());
            // Not in the cache yet (or just deleted): its watch event reconciles again.
            let Some(live) = store.get(&object_ref) else {
                continue;
            };
            let live_entry = live.entries().iter().find(|e| K::agent_of(e) == self.agent);
            let mut entry = shared.entry.clone();
            let available = shared.subsystem.map(|s| self.availability(s));
            complete(
                K::conditions_mut(&mut entry),
                live_entry.map(K::conditions).unwrap_or_default(),
                live.meta().generation,
                available.as_ref(),
                apply_error,
                self.now,
            );
            if live_entry == Some(&entry) {
                continue;
            }
            let status = AgentsStatus {
                agents: vec![entry],
            };
            apply_status(
                client,
                metrics,
                live.as_ref(),
                &entry_manager(self.agent),
                &status,
            )
            .await?;
            writes += 1;
        }

        if !self.scan {
            return Ok(writes + self.remove_dropped(store, &selected).await?);
        }
        // This agent's entries in objects it no longer selects, and the entries of agents
        // that are gone (deleted while the operator was not watching).
        let mut vanished = BTreeSet::new();
        let every = store.state();
        for object in &every {
            for entry in object.entries() {
                let agent = K::agent_of(entry);
                if agent != self.agent
                    && self.cleanup.sweep.covers(agent)
                    && !self.agent_exists(agent)
                {
                    vanished.insert(agent.to_owned());
                }
            }
        }
        let swept = remove_from(client, metrics, &every, &vanished).await;
        if swept.failed > 0 {
            self.cleanup.failed();
        }
        let mut removed = swept.removed;
        for object in &every {
            let mine = object
                .entries()
                .iter()
                .any(|e| K::agent_of(e) == self.agent);
            if mine && !selected.contains(&ObjectRef::from_obj(object.as_ref())) {
                apply_status(
                    client,
                    metrics,
                    object.as_ref(),
                    &entry_manager(self.agent),
                    &Empty {},
                )
                .await?;
                removed += 1;
            }
        }
        // The scan covered the objects the agent dropped.
        self.stale.dropped.retain(|o| o.kind != K::KIND);
        Ok(writes + removed)
    }

    /// Removes the agent's entry from the objects of kind `K` it dropped, unless selected
    /// again; each is forgotten once its entry is known to be gone.
    async fn remove_dropped<K: WithEntries>(
        &mut self,
        store: &Store<K>,
        selected: &HashSet<ObjectRef<K>>,
    ) -> Result<usize, Error> {
        let dropped: Vec<InputRef> = self
            .stale
            .dropped
            .iter()
            .filter(|o| o.kind == K::KIND)
            .cloned()
            .collect();
        let mut removed = 0;
        for object in dropped {
            let key = ObjectRef::new(&object.name).within(&object.namespace);
            let live = store.get(&key);
            let mine = live
                .as_ref()
                .is_some_and(|o| o.entries().iter().any(|e| K::agent_of(e) == self.agent));
            if let Some(live) = live.filter(|_| mine && !selected.contains(&key)) {
                apply_status(
                    &self.ctx.client,
                    &self.ctx.metrics,
                    live.as_ref(),
                    &entry_manager(self.agent),
                    &Empty {},
                )
                .await?;
                removed += 1;
            }
            self.stale.dropped.remove(&object);
        }
        Ok(removed)
    }

    fn availability(&self, subsystem: Subsystem) -> Availability {
        let objects = self
            .applied
            .objects
            .iter()
            .filter(|o| o.subsystem == subsystem);
        availability(objects, self.namespace, &self.ctx.stores)
    }

    /// Whether the agents cache holds `agent` (a `namespace/name` key). The cache is filled
    /// whole at the end of each (re)list, and a reconcile runs only for an agent it holds, so
    /// an agent missing here is gone, not merely not listed yet.
    fn agent_exists(&self, agent: &str) -> bool {
        let Some((namespace, name)) = agent.split_once('/') else {
            return false;
        };
        self.ctx
            .stores
            .agents
            .get(&ObjectRef::new(name).within(namespace))
            .is_some()
    }
}

/// The status of a kind with per-agent entries, holding one agent's entry.
#[derive(Serialize)]
struct AgentsStatus<E> {
    agents: Vec<E>,
}

/// Server-side-applies `status` to `object`'s status subresource under `manager`. An object
/// deleted meanwhile is not an error.
async fn apply_status<K, S>(
    client: &Client,
    metrics: &Metrics,
    object: &K,
    manager: &str,
    status: &S,
) -> Result<(), Error>
where
    K: Namespaced,
    S: Serialize,
{
    let namespace = object.meta().namespace.as_deref().unwrap_or_default();
    let name = object.meta().name.as_deref().unwrap_or_default();
    let kind = K::kind(&());
    let api: Api<K> = Api::namespaced(client.clone(), namespace);
    let patch = serde_json::json!({
        "apiVersion": K::api_version(&()),
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "status": status,
    });
    match api
        .patch_status(
            name,
            &PatchParams::apply(manager).force(),
            &Patch::Apply(&patch),
        )
        .await
    {
        Ok(_) => {
            metrics.status_updated();
            Ok(())
        }
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
        Err(e) => {
            metrics.status_update_failed();
            Err(Error::api(format!(
                "writing the status of {kind} {namespace}/{name} as {manager}"
            ))(e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agents_manager_names_it_and_stays_within_the_api_limit() {
        assert_eq!(
            entry_manager("monitoring/agent"),
            "agent-operator/monitoring/agent"
        );
        let long = format!("{}/{}", "n".repeat(63), "a".repeat(253));
        let manager = entry_manager(&long);
        assert!(manager.len() <= MAX_MANAGER_LEN, "{manager}");
        assert_eq!(manager, entry_manager(&long), "stable");
        assert_ne!(manager, entry_manager(&format!("{long}b")));
    }

    #[test]
    fn a_deleted_agents_entries_are_where_it_recorded_or_dropped_them_once_it_scanned() {
        use render::input_ref::Kind;
        let object = |kind, name: &str| InputRef::new(kind, "ns", name);
        let recorded = BTreeSet::from([
            object(Kind::MetricsInstance, "selected"),
            object(Kind::ServiceMonitor, "no-status"),
            object(Kind::Secret, "no-status"),
        ]);
        let mut stale = StaleEntries::default();
        stale.dropped([
            object(Kind::PodLogs, "dropped"),
            object(Kind::Probe, "no-status"),
        ]);
        // Before its first scan, entries of an earlier process may be anywhere.
        assert_eq!(stale.of_deleted_agent(recorded.clone()), None);
        stale.scanned = true;
        assert_eq!(
            stale.of_deleted_agent(recorded),
            Some(BTreeSet::from([
                object(Kind::MetricsInstance, "selected"),
                object(Kind::PodLogs, "dropped"),
            ]))
        );
    }

    #[tokio::test]
    async fn availability_comes_from_the_applied_workloads() {
        use crate::apply::ManagedRef;
        // Stores that no watch fills: no workload is live. No request is made.
        let (stores, _, _, _) = crate::watches::build(
            kube::Client::try_from(kube::Config::new("http://127.0.0.1:1".parse().unwrap()))
                .expect("a client"),
            None,
            None,
            Metrics::new(&mut prometheus_client::registry::Registry::default()),
        );
        let object = |kind, name: &str, outcome| AppliedObject {
            object: ManagedRef {
                kind,
                name: name.to_owned(),
            },
            subsystem: Subsystem::Metrics,
            outcome,
        };
        let none = availability([].iter(), "ns", &stores);
        assert_eq!(none.reason, reason::NO_WORKLOADS);
        let applied = [
            object(ManagedKind::Secret, "config", Outcome::Written),
            object(ManagedKind::StatefulSet, "shard-0", Outcome::Written),
            object(ManagedKind::StatefulSet, "shard-1", Outcome::Refused),
        ];
        let waiting = availability(applied.iter(), "ns", &stores);
        assert!(!waiting.available);
        assert_eq!(
            waiting.message,
            "StatefulSet shard-0: 0/1 ready; StatefulSet shard-1: refused by the API server"
        );
    }

    #[test]
    fn the_sweep_covers_only_agents_this_operator_would_reconcile() {
        assert!(Sweep::new(None, None).covers("a/b"));
        assert!(!Sweep::new(None, Some("team=x")).covers("a/b"));
        let ns = Sweep::new(Some("a"), None);
        assert!(ns.covers("a/b"));
        assert!(!ns.covers("c/b"));
    }

    #[test]
    fn a_condition_keeps_its_transition_time_while_its_status_holds() {
        let earlier = Time(Timestamp::UNIX_EPOCH);
        let now = Time(Timestamp::now());
        let reconciled = |status: bool| {
            planned_condition(
                condition::RECONCILED,
                status,
                reason::RECONCILED,
                "m".into(),
                Some(1),
            )
        };
        let mut live = reconciled(true);
        live.last_transition_time = earlier.clone();
        let available = Availability {
            available: true,
            reason: reason::WORKLOADS_READY,
            message: "1 workloads ready".to_owned(),
        };

        let mut same = vec![reconciled(true)];
        complete(
            &mut same,
            &[live.clone()],
            Some(1),
            Some(&available),
            None,
            &now,
        );
        assert_eq!(same[0].last_transition_time, earlier);
        assert_eq!(same[1].type_, condition::AVAILABLE);
        assert_eq!(same[1].last_transition_time, now, "new condition");

        let mut flipped = vec![reconciled(false)];
        complete(&mut flipped, &[live], Some(1), Some(&available), None, &now);
        assert_eq!(flipped[0].last_transition_time, now);

        // A kind without `Available` (PodLogs) keeps only what was planned.
        let mut reconciled_only = vec![reconciled(true)];
        complete(&mut reconciled_only, &[], Some(1), None, None, &now);
        assert_eq!(reconciled_only.len(), 1);
    }
}
