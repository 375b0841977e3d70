//! The "status" step: what `plan` says about the agent and each instance it selects, plus
//! `Available` from the workloads' own status, written only where it changed.
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
//! the objects its latest discovery dropped ([`StaleEntries`]). Only an agent's first
//! reconcile in this process, when the index knows nothing of what it selected before,
//! scans every object of the four kinds (as does the next reconcile after a removal failed).

use std::collections::{BTreeSet, HashSet};
use std::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use api::status::{agent_key, condition, reason};
use api::{GrafanaAgent, Integration, LogsInstance, MetricsInstance, PodLogs};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use kube::core::NamespaceResourceScope;
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Client, Resource};
use md5::{Digest, Md5};
use render::desired::{DesiredObject, Subsystem};
use render::input_ref::InputRef;
use render::plan::Plan;
use render::status::{SharedEntry, planned_condition};
use render::store::Input;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::apply::FIELD_MANAGER;
use crate::error::Error;
use crate::metrics::Metrics;
use crate::reconcile::Context;
use crate::watches::Stores;

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

/// The objects that may hold an agent's entry though the agent no longer selects them.
#[derive(Debug, Default)]
pub(crate) struct StaleEntries {
    /// Every object of the four kinds was looked at once, since this process started.
    scanned: bool,
    /// Objects the agent's discovery dropped whose entry is not known to be gone.
    dropped: BTreeSet<InputRef>,
}

impl StaleEntries {
    /// Takes the objects the reverse index says the agent's latest discovery dropped.
    pub(crate) fn dropped(&mut self, objects: impl IntoIterator<Item = InputRef>) {
        let with_entries = [
            MetricsInstance::KIND,
            LogsInstance::KIND,
            PodLogs::KIND,
            Integration::KIND,
        ];
        self.dropped.extend(
            objects
                .into_iter()
                .filter(|o| with_entries.contains(&o.kind)),
        );
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

/// `(status, reason, message)` of `Available`, from the live status of the planned workloads
/// among `objects`.
fn availability<'a>(
    objects: impl Iterator<Item = &'a DesiredObject>,
    stores: &Stores,
) -> (bool, &'static str, String) {
    fn live<K: Resource<DynamicType = ()> + Clone>(
        store: &Store<K>,
        o: &DesiredObject,
    ) -> Option<Arc<K>> {
        let ns = o.metadata().namespace.as_deref().unwrap_or_default();
        store.get(&ObjectRef::new(o.name()).within(ns))
    }
    let mut workloads = 0;
    let mut waiting = Vec::new();
    for o in objects {
        let (ready, wanted) = match o {
            DesiredObject::StatefulSet(_) => {
                let s: Option<Arc<StatefulSet>> = live(&stores.stateful_sets, o);
                let wanted = s
                    .as_ref()
                    .and_then(|s| s.spec.as_ref()?.replicas)
                    .unwrap_or(1);
                let ready = s.and_then(|s| s.status.as_ref()?.ready_replicas);
                (ready.unwrap_or(0), wanted)
            }
            DesiredObject::DaemonSet(_) => {
                let d: Option<Arc<DaemonSet>> = live(&stores.daemon_sets, o);
                match d.and_then(|d| d.status.clone()) {
                    Some(s) => (s.number_ready, s.desired_number_scheduled),
                    None => (0, 1),
                }
            }
            DesiredObject::Deployment(_) => {
                let d: Option<Arc<Deployment>> = live(&stores.deployments, o);
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
            false,
            reason::NO_WORKLOADS,
            "no workload runs it".to_owned(),
        ),
        (_, true) => (
            true,
            reason::WORKLOADS_READY,
            format!("{workloads} workloads ready"),
        ),
        (_, false) => (false, reason::WORKLOADS_NOT_READY, waiting.join("; ")),
    }
}

/// Completes planned conditions: `Reconciled` says `ApplyFailed` when the apply step failed,
/// `Available` is added when the kind has one, and every condition whose status did not change keeps the time it
/// last changed (the others get `now`).
fn complete(
    conditions: &mut Vec<Condition>,
    live: &[Condition],
    generation: Option<i64>,
    available: Option<&(bool, &'static str, String)>,
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
    if let Some((ready, why, message)) = available {
        conditions.push(planned_condition(
            condition::AVAILABLE,
            *ready,
            why,
            message.clone(),
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

/// Writes the status of `agent` and its entries in the objects it selects, each only where it
/// changed; removes its entries from objects it no longer selects and the entries of deleted
/// agents `sweep` covers. Returns how many writes it made.
pub(crate) async fn write(
    ctx: &Context,
    agent: &GrafanaAgent,
    plan: &Plan,
    apply_error: Option<&Error>,
    stale: &mut StaleEntries,
) -> Result<usize, Error> {
    let (client, stores, metrics, sweep) = (&ctx.client, &ctx.stores, &ctx.metrics, &ctx.sweep);
    let now = Time(Timestamp::now());
    let key = agent_key(
        agent.metadata.namespace.as_deref().unwrap_or_default(),
        agent.metadata.name.as_deref().unwrap_or_default(),
    );
    let mut writes = 0;

    let mut desired = plan.status.agent.clone();
    let all = availability(plan.objects.iter().map(|p| &p.object), stores);
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

    let scan = !stale.scanned || ctx.rescan_entries.swap(false, Ordering::AcqRel);
    let entries = Entries {
        client,
        stores,
        metrics,
        plan,
        apply_error,
        now: &now,
        agent: &key,
        sweep,
        rescan: &ctx.rescan_entries,
    };
    let written = async {
        let mut writes = 0;
        writes += entries
            .write(
                &stores.metrics_instances,
                &plan.status.metrics_instances,
                scan,
                stale,
            )
            .await?;
        writes += entries
            .write(
                &stores.logs_instances,
                &plan.status.logs_instances,
                scan,
                stale,
            )
            .await?;
        writes += entries
            .write(&stores.pod_logs, &plan.status.pod_logs, scan, stale)
            .await?;
        writes += entries
            .write(&stores.integrations, &plan.status.integrations, scan, stale)
            .await?;
        Ok::<_, Error>(writes)
    }
    .await;
    match written {
        Ok(n) => {
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

/// Removes `agent`'s entries from every object the stores hold (the agent was deleted or left
/// `--agent-selector`).
pub(crate) async fn remove_entries(ctx: &Context, agent: &str) {
    let (client, stores, metrics) = (&ctx.client, &ctx.stores, &ctx.metrics);
    let agents = BTreeSet::from([agent.to_owned()]);
    let removed = remove_from(client, metrics, &stores.metrics_instances, &agents).await;
    let removed = removed + remove_from(client, metrics, &stores.logs_instances, &agents).await;
    let removed = removed + remove_from(client, metrics, &stores.pod_logs, &agents).await;
    let removed = removed + remove_from(client, metrics, &stores.integrations, &agents).await;
    if removed.failed > 0 {
        // Retried by the next reconcile of any agent, which scans every object.
        ctx.rescan_entries.store(true, Ordering::Release);
    }
    let removed = removed.removed;
    if removed > 0 {
        tracing::info!(agent, removed, "removed the agent's status entries");
    }
}

/// Applies an empty status under each of `agents`' managers to every object in `store` that
/// holds an entry of theirs; failures are logged (the next reconcile or deletion retries).
async fn remove_from<K: SharedStatus>(
    client: &Client,
    metrics: &Metrics,
    store: &Store<K>,
    agents: &BTreeSet<String>,
) -> Removed {
    let mut removed = Removed::default();
    for object in store.state() {
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

/// The kinds whose status is one entry per selecting agent.
pub(crate) trait SharedStatus:
    Input
    + Resource<DynamicType = (), Scope = NamespaceResourceScope>
    + Clone
    + DeserializeOwned
    + Serialize
    + Debug
    + Send
    + Sync
    + 'static
{
    type Entry: Serialize + Clone + PartialEq + Debug + Send + Sync;
    fn entries(&self) -> &[Self::Entry];
    fn agent_of(entry: &Self::Entry) -> &str;
    fn conditions(entry: &Self::Entry) -> &[Condition];
    fn conditions_mut(entry: &mut Self::Entry) -> &mut Vec<Condition>;
}

macro_rules! shared_status {
    ($kind:ty, $entry:ty) => {
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
        }
    };
}

shared_status!(MetricsInstance, api::status::MetricsInstanceAgentStatus);
shared_status!(LogsInstance, api::status::LogsInstanceAgentStatus);
shared_status!(PodLogs, api::status::PodLogsAgentStatus);
shared_status!(Integration, api::status::IntegrationAgentStatus);

/// What writing one agent's entries needs.
struct Entries<'a> {
    client: &'a Client,
    stores: &'a Stores,
    metrics: &'a Metrics,
    plan: &'a Plan,
    apply_error: Option<&'a Error>,
    now: &'a Time,
    agent: &'a str,
    sweep: &'a Sweep,
    /// Set when a removal of another agent's entries failed: the next reconcile scans.
    rescan: &'a AtomicBool,
}

impl Entries<'_> {
    /// Writes the agent's entry in each object of `planned` where it changed and removes its
    /// entries from the objects it dropped; with `scan`, from every other object in `store`,
    /// sweeping the entries of vanished agents too.
    async fn write<K: SharedStatus>(
        &self,
        store: &Store<K>,
        planned: &[SharedEntry<K::Entry>],
        scan: bool,
        stale: &mut StaleEntries,
    ) -> Result<usize, Error> {
        let mut writes = 0;
        let mut selected = HashSet::new();
        for shared in planned {
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
                self.apply_error,
                self.now,
            );
            if live_entry == Some(&entry) {
                continue;
            }
            let status = AgentsStatus {
                agents: vec![entry],
            };
            apply_status(
                self.client,
                self.metrics,
                live.as_ref(),
                &entry_manager(self.agent),
                &status,
            )
            .await?;
            writes += 1;
        }

        if !scan {
            return Ok(writes + self.remove_dropped(store, &selected, stale).await?);
        }
        // This agent's entries in objects it no longer selects, and the entries of agents
        // that are gone (deleted while the operator was not watching).
        let mut vanished = BTreeSet::new();
        for object in store.state() {
            for entry in object.entries() {
                let agent = K::agent_of(entry);
                if agent != self.agent && self.sweep.covers(agent) && !self.agent_exists(agent) {
                    vanished.insert(agent.to_owned());
                }
            }
        }
        let swept = remove_from(self.client, self.metrics, store, &vanished).await;
        if swept.failed > 0 {
            self.rescan.store(true, Ordering::Release);
        }
        let mut removed = swept.removed;
        for object in store.state() {
            let mine = object
                .entries()
                .iter()
                .any(|e| K::agent_of(e) == self.agent);
            if mine && !selected.contains(&ObjectRef::from_obj(object.as_ref())) {
                apply_status(
                    self.client,
                    self.metrics,
                    object.as_ref(),
                    &entry_manager(self.agent),
                    &Empty {},
                )
                .await?;
                removed += 1;
            }
        }
        // The scan covered the objects the agent dropped.
        stale.dropped.retain(|o| o.kind != K::KIND);
        Ok(writes + removed)
    }

    /// Removes the agent's entry from the objects of kind `K` it dropped, unless selected
    /// again; each is forgotten once its entry is known to be gone.
    async fn remove_dropped<K: SharedStatus>(
        &self,
        store: &Store<K>,
        selected: &HashSet<ObjectRef<K>>,
        stale: &mut StaleEntries,
    ) -> Result<usize, Error> {
        let dropped: Vec<InputRef> = stale
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
                    self.client,
                    self.metrics,
                    live.as_ref(),
                    &entry_manager(self.agent),
                    &Empty {},
                )
                .await?;
                removed += 1;
            }
            stale.dropped.remove(&object);
        }
        Ok(removed)
    }

    fn availability(&self, subsystem: Subsystem) -> (bool, &'static str, String) {
        availability(
            self.plan
                .objects
                .iter()
                .filter(|p| p.subsystem == subsystem)
                .map(|p| &p.object),
            self.stores,
        )
    }

    /// Whether the agents cache holds `agent` (a `namespace/name` key). The cache is filled
    /// whole at the end of each (re)list, and a reconcile runs only for an agent it holds, so
    /// an agent missing here is gone, not merely not listed yet.
    fn agent_exists(&self, agent: &str) -> bool {
        let Some((namespace, name)) = agent.split_once('/') else {
            return false;
        };
        self.stores
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
    K: Resource<DynamicType = (), Scope = NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Debug,
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
        let available = (
            true,
            reason::WORKLOADS_READY,
            "1 workloads ready".to_owned(),
        );

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
