//! One reconcile of one GrafanaAgent, as a short named pipeline:
//! snapshot -> discover -> plan -> apply -> status (then events).
//!
//! The top of the controller's flow: [`Reconciler`] holds what outlives one reconcile (the
//! per-agent state, the reverse index, the settings) and calls each step (`inputs`, `apply`,
//! `status`, `events`) with the shared [`Context`] and its own part of that state.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use api::GrafanaAgent;
use kube::runtime::controller::Action;
use kube::runtime::reflector::ObjectRef;
use render::Discovery;
use render::desired::PlanOptions;
use render::index::ReverseIndex;
use render::input_ref::{InputRef, Kind};
use render::plan::{MetricsConfig, plan_with_metrics};
use render::render_cache::MetricsConfigCache;
use tracing::Instrument;

use crate::apply;
use crate::backoff::Backoff;
use crate::context::Context;
use crate::error::Error;
use crate::events::{self, Announced};
use crate::inputs::{self, Discovered, Values};
use crate::metrics::Selection;
use crate::status::{self, Cleanup, StaleEntries};
use crate::watches::{self, Readiness};
use crate::writer::Known;

/// When to look again at an agent that arrived before every watch had listed.
const NOT_READY_RETRY: Duration = Duration::from_secs(1);

/// The shortest time between the starts of two reconciles of one agent. A change arriving
/// sooner waits for the rest of it, and all changes of that wait are reconciled together:
/// a burst of edits (a `kubectl apply` of a directory of monitors, a CI pipeline) gives a few
/// config writes instead of one per edit, while a lone edit is reconciled at once. The
/// agents read their config from a Secret volume, which the kubelet refreshes every minute
/// or so: a quarter of a second more is not felt.
const MIN_RECONCILE_SPACING: Duration = Duration::from_millis(250);

/// What the controller keeps per agent between reconciles.
#[derive(Default)]
struct AgentState {
    values: Values,
    metrics_config: MetricsConfigCache,
    announced: Announced,
    /// What the writer learnt of the agent's objects at the last apply.
    known: Known,
    stale_entries: StaleEntries,
    /// When the last reconcile started (see [`MIN_RECONCILE_SPACING`]).
    last_started: Option<Instant>,
    /// The latest discovery, which the next one starts from ([`inputs::discover`]).
    discovery: Option<Discovery>,
}

type AgentStates = Mutex<HashMap<ObjectRef<GrafanaAgent>, Arc<tokio::sync::Mutex<AgentState>>>>;

/// Everything a reconcile reads or writes besides the agent: the steps' shared [`Context`],
/// and what the pipeline keeps between reconciles.
pub(crate) struct Reconciler {
    ctx: Context,
    plan_options: PlanOptions,
    /// How often an agent is reconciled when nothing triggers it (guards against missed events).
    periodic: Duration,
    /// Whether every watch has listed once.
    readiness: Readiness,
    /// What each agent's latest discovery depended on (shared with the mappers).
    index: Arc<RwLock<ReverseIndex>>,
    /// Whose status entries may be removed, and whether a removal failed.
    cleanup: Cleanup,
    states: AgentStates,
    /// The retry backoff of each agent whose last reconcile failed transiently.
    failures: Mutex<HashMap<ObjectRef<GrafanaAgent>, Backoff>>,
}

impl Reconciler {
    pub(crate) fn new(
        ctx: Context,
        plan_options: PlanOptions,
        periodic: Duration,
        readiness: Readiness,
        index: Arc<RwLock<ReverseIndex>>,
        cleanup: Cleanup,
    ) -> Reconciler {
        Reconciler {
            ctx,
            plan_options,
            periodic,
            readiness,
            index,
            cleanup,
            states: Mutex::default(),
            failures: Mutex::default(),
        }
    }

    fn state(&self, agent: &ObjectRef<GrafanaAgent>) -> Arc<tokio::sync::Mutex<AgentState>> {
        self.states
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(agent.clone())
            .or_default()
            .clone()
    }

    /// Forgets what the controller kept for a deleted (or no longer selected) agent, and
    /// removes its entries from the status of the objects that may hold them: those the
    /// reverse index had recorded for it (with those it dropped), or every object when that
    /// is not known ([`StaleEntries::of_deleted_agent`]).
    pub(crate) async fn forget(&self, agent: &ObjectRef<GrafanaAgent>) {
        let recorded = self
            .index
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .forget(&input_ref(agent));
        let state = self
            .states
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(agent);
        self.ctx.metrics.set_managed(&agent.to_string(), None);
        let objects = match state {
            // A reconcile in flight finishes first; what it wrote is then removed too.
            Some(state) => state.lock().await.stale_entries.of_deleted_agent(recorded),
            None => None,
        };
        let key =
            api::status::agent_key(agent.namespace.as_deref().unwrap_or_default(), &agent.name);
        status::remove_entries(&self.ctx, &self.cleanup, &key, objects)
            .instrument(tracing::info_span!("forget", agent = key))
            .await;
    }
}

pub(crate) async fn reconcile(
    agent: Arc<GrafanaAgent>,
    reconciler: Arc<Reconciler>,
) -> Result<Action, Error> {
    let r = reconciler.as_ref();
    let key = ObjectRef::from_obj(agent.as_ref());
    if !r.readiness.is_ready() {
        // The agents' watch has listed but others have not: on this partial view, referenced
        // Secrets would be reported missing (Warning Events for a moment), configs written
        // without the monitors not listed yet, and live objects not seen yet recreated. The
        // last watch to finish its list reconciles every agent; the requeue is a safety net.
        tracing::debug!(agent = %key, "waiting until every watch has listed");
        return Ok(Action::requeue(NOT_READY_RETRY));
    }
    if agent.spec.paused {
        // Frozen: no write of any kind, deletions included, until unpaused (an agent edit).
        tracing::debug!(agent = %key, "paused");
        return Ok(Action::await_change());
    }
    if agent.metadata.deletion_timestamp.is_some() {
        // Being deleted: the garbage collector removes what it owns. In a foreground deletion
        // the agent stays until they are gone, and writing them again would keep it forever.
        tracing::debug!(agent = %key, "being deleted");
        return Ok(Action::await_change());
    }
    let state = r.state(&key);
    let mut state = state.lock().await;
    if let Some(wait) = state
        .last_started
        .and_then(|at| MIN_RECONCILE_SPACING.checked_sub(at.elapsed()))
    {
        // The changes that arrive meanwhile are all taken by that one later reconcile.
        tracing::debug!(agent = %key, ?wait, "reconciled moments ago; deferred");
        return Ok(Action::requeue(wait));
    }
    let started = Instant::now();
    state.last_started = Some(started);
    let metrics = &r.ctx.metrics;
    metrics.reconcile_started();
    let span = tracing::info_span!("reconcile", agent = %key);
    let result = pipeline(&agent, &key, r, &mut state).instrument(span).await;
    return_freed_memory();
    metrics.reconcile_took(started.elapsed().as_secs_f64());
    match &result {
        Ok(_) => {
            r.failures
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&key);
        }
        Err(e) => metrics.reconcile_failed(e.category()),
    }
    result
}

/// The steps, each in a span of its own inside the reconcile's (which names the agent).
async fn pipeline(
    agent: &Arc<GrafanaAgent>,
    key: &ObjectRef<GrafanaAgent>,
    r: &Reconciler,
    state: &mut AgentState,
) -> Result<Action, Error> {
    let ctx = &r.ctx;
    let started = Instant::now();
    // snapshot + discover
    let (discovery, how) = inputs::discover(ctx, agent, &mut state.values, &mut state.discovery)
        .instrument(tracing::debug_span!("discover"))
        .await?;
    if how == Discovered::Whole {
        let dropped = r
            .index
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .record(&input_ref(key), &discovery.dependencies);
        state.stale_entries.dropped(dropped);
    }

    let discovered = Instant::now();
    // plan
    let plan = tracing::debug_span!("plan").in_scope(|| {
        tokio::task::block_in_place(|| {
            plan_with_metrics(
                discovery,
                &r.plan_options,
                MetricsConfig::Cache(&mut state.metrics_config),
            )
        })
    });
    ctx.metrics
        .set_managed(&key.to_string(), Some(managed_counts(discovery, &plan)));

    let planned = Instant::now();
    // apply
    let applied = apply::apply(ctx, &discovery.hierarchy, &plan.objects, &mut state.known)
        .instrument(tracing::debug_span!("apply"))
        .await;
    let written: Vec<String> = applied.written().map(ToString::to_string).collect();
    if !written.is_empty() || !applied.deleted.is_empty() {
        let deleted: Vec<String> = applied.deleted.iter().map(ToString::to_string).collect();
        // Where a reconcile's time went, on the line a user reads after an edit.
        let ms = |from: Instant, to: Instant| to.duration_since(from).as_millis();
        tracing::info!(
            agent = %key,
            ?written,
            ?deleted,
            discover_ms = ms(started, discovered),
            plan_ms = ms(discovered, planned),
            apply_ms = ms(planned, Instant::now()),
            "applied"
        );
    }

    // status
    match status::write(
        ctx,
        &r.cleanup,
        agent,
        &plan.status,
        &applied,
        &mut state.stale_entries,
    )
    .instrument(tracing::debug_span!("status"))
    .await
    {
        Ok(_) => {}
        Err(e) if applied.failure.is_none() => return Err(e),
        Err(e) => tracing::warn!(agent = %key, error = %e, "status not written"),
    }

    let outcome = events::Outcome {
        applied: &applied,
        rejections: &plan.rejections,
        warnings: &plan.warnings,
    };
    events::publish(ctx, agent, &outcome, &mut state.announced)
        .instrument(tracing::debug_span!("events"))
        .await;

    match applied.failure {
        Some(failure) => Err(failure.into_error()),
        None => Ok(Action::requeue(r.periodic)),
    }
}

/// Gives the heap pages a reconcile freed back to the kernel. glibc keeps freed memory in
/// per-thread arenas for reuse, and reconciles run on whichever worker thread is free, so
/// each arena kept its own high-water mark: at 10k monitors the operator's RSS grew by about
/// 40 MB over 100 edits, and stays flat with this (BENCHMARKS.md).
fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer and only releases free pages of glibc's heaps.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The index's name for an agent.
fn input_ref(agent: &ObjectRef<GrafanaAgent>) -> InputRef {
    InputRef::new(
        Kind::GrafanaAgent,
        agent.namespace.clone().unwrap_or_default(),
        agent.name.clone(),
    )
}

/// `(kind, selected or rejected) -> count` of the input objects `discovery` selected and
/// `plan` rejected: every input kind of the watches' registry that selectors pick.
fn managed_counts(
    discovery: &render::Discovery,
    plan: &render::Plan,
) -> HashMap<(Kind, Selection), i64> {
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    let mut counts: HashMap<(Kind, Selection), i64> = watches::input_kinds()
        .filter_map(|kind| {
            let selected = discovery.hierarchy.selected(kind)?;
            Some(((kind, Selection::Selected), count(selected)))
        })
        .collect();
    let rejected: BTreeSet<&InputRef> = plan.rejections.iter().map(|r| &r.object).collect();
    for object in rejected {
        *counts
            .entry((object.kind, Selection::Rejected))
            .or_default() += 1;
    }
    counts
}

/// Transient errors retry with a growing backoff; others wait for a change (or the periodic
/// requeue). Either way the error is logged with the agent it concerns.
pub(crate) fn error_policy(
    agent: Arc<GrafanaAgent>,
    error: &Error,
    reconciler: Arc<Reconciler>,
) -> Action {
    let key = ObjectRef::from_obj(agent.as_ref());
    if !error.is_transient() {
        tracing::error!(agent = %key, error = %error, "reconcile failed; waiting for a change");
        return Action::requeue(reconciler.periodic);
    }
    let delay = reconciler
        .failures
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(key.clone())
        .or_insert_with(Backoff::reconcile)
        .next_delay();
    tracing::warn!(agent = %key, error = %error, retry_in = ?delay, "reconcile failed; retrying");
    Action::requeue(delay)
}

#[cfg(test)]
mod tests {
    use api::MetricsInstance;
    use kube::api::{Api, Patch, PatchParams};
    use render::status::SharedStatus;
    use serde_json::json;

    use super::*;
    use crate::context::testing::{NS, agent_cluster, context, eventually};
    use crate::status::{Sweep, entry_manager};

    const INPUTS: &str = r#"
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: monitoring}
spec:
  metrics: {instanceSelector: {matchLabels: {agent: agent}}}
  logs: {instanceSelector: {matchLabels: {agent: agent}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: monitoring, labels: {agent: agent}}
spec: {serviceMonitorSelector: {}, podMonitorSelector: {}, probeSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: logs, namespace: monitoring, labels: {agent: agent}}
spec: {podLogsSelector: {}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: monitoring}
spec: {selector: {}, endpoints: [{port: web}]}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: broken, namespace: monitoring}
spec:
  selector: {}
  endpoints: [{port: web, relabelings: [{regex: "(", action: replace, targetLabel: x}]}]
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {name: pods, namespace: monitoring}
spec: {selector: {}}
"#;

    #[test]
    fn managed_counts_cover_every_kind_the_registry_watches_that_selectors_pick() {
        let mut loader = render::manifest::Loader::new();
        loader.add_source("inputs.yaml", INPUTS);
        let loaded = loader.finish();
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let agent = loaded.store.agents().next().expect("the agent");
        let discovery = render::discover(agent, &loaded.store);
        let plan = render::plan::plan(&discovery, &PlanOptions::default());
        let counts = managed_counts(&discovery, &plan);
        let selected = |kind| counts.get(&(kind, Selection::Selected)).copied();
        for kind in watches::input_kinds() {
            assert_eq!(
                selected(kind).is_some(),
                discovery.hierarchy.selected(kind).is_some(),
                "{kind}"
            );
        }
        assert_eq!(selected(Kind::ServiceMonitor), Some(2));
        assert_eq!(selected(Kind::PodLogs), Some(1));
        assert_eq!(selected(Kind::Probe), Some(0), "zero is a count too");
        assert_eq!(selected(Kind::Secret), None);
        assert_eq!(
            counts.get(&(Kind::ServiceMonitor, Selection::Rejected)),
            Some(&1)
        );
    }

    /// Agent `agent` selects MetricsInstance `primary`; `other` is selected by nothing but
    /// holds an entry of `agent` that no reconcile of this process wrote.
    async fn reconciled_agent() -> (testkube::TestKube, Arc<Reconciler>, Api<MetricsInstance>) {
        let (kube, client) = agent_cluster(vec![json!({
            "apiVersion": "monitoring.grafana.com/v1alpha1", "kind": "MetricsInstance",
            "metadata": {"name": "other", "namespace": NS}, "spec": {}})])
        .await;
        let instances: Api<MetricsInstance> = Api::namespaced(client.clone(), NS);
        write_entry_in_other(&instances).await;
        let (ctx, readiness) = context(client).await;
        let reconciler = Arc::new(Reconciler::new(
            ctx,
            PlanOptions::default(),
            Duration::from_secs(3600),
            readiness,
            Arc::default(),
            Cleanup::new(Sweep::new(None, None)),
        ));
        (kube, reconciler, instances)
    }

    /// Writes `agent`'s entry in `other` as an agent's reconcile would, under its manager.
    async fn write_entry_in_other(instances: &Api<MetricsInstance>) {
        let entry = json!({"apiVersion": "monitoring.grafana.com/v1alpha1", "kind": "MetricsInstance",
            "metadata": {"name": "other", "namespace": NS},
            "status": {"agents": [{"agent": "monitoring/agent", "serviceMonitors": 0}]}});
        instances
            .patch_status(
                "other",
                &PatchParams::apply(&entry_manager("monitoring/agent")).force(),
                &Patch::Apply(&entry),
            )
            .await
            .expect("an entry written");
    }

    fn entries(reconciler: &Reconciler, name: &str) -> Vec<String> {
        let key = ObjectRef::new(name).within(NS);
        let live = reconciler.ctx.stores.metrics_instances.get(&key);
        live.map(|o| o.entries().iter().map(|e| e.agent.clone()).collect())
            .unwrap_or_default()
    }

    fn agent_ref() -> ObjectRef<GrafanaAgent> {
        ObjectRef::new("agent").within(NS)
    }

    /// Reconciles the agent once: its first reconcile in the process scans every object, so
    /// `other`'s stale entry goes too.
    async fn reconcile_and_scan(reconciler: &Arc<Reconciler>) {
        let agent = reconciler
            .ctx
            .stores
            .agents
            .get(&agent_ref())
            .expect("the agent");
        reconcile(agent, reconciler.clone())
            .await
            .expect("reconciled");
        eventually("primary holds the agent's entry; other none", || {
            entries(reconciler, "primary") == ["monitoring/agent"]
                && entries(reconciler, "other").is_empty()
        })
        .await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_deleted_agent_loses_its_entries_in_the_objects_the_index_recorded() {
        let (_kube, reconciler, _) = reconciled_agent().await;
        reconcile_and_scan(&reconciler).await;

        reconciler.forget(&agent_ref()).await;
        eventually("primary's entry removed", || {
            entries(&reconciler, "primary").is_empty()
        })
        .await;
        assert!(reconciler.index.read().unwrap().agents().next().is_none());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn only_the_recorded_objects_are_touched_once_the_agent_has_scanned() {
        let (_kube, reconciler, instances) = reconciled_agent().await;
        reconcile_and_scan(&reconciler).await;
        // An entry the index cannot know of (written behind the operator's back after the
        // scan): removal trusts the index, so this one stays.
        write_entry_in_other(&instances).await;
        eventually("other's entry seen", || {
            entries(&reconciler, "other") == ["monitoring/agent"]
        })
        .await;
        reconciler.forget(&agent_ref()).await;
        eventually("primary's entry removed", || {
            entries(&reconciler, "primary").is_empty()
        })
        .await;
        assert_eq!(entries(&reconciler, "other"), ["monitoring/agent"]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_agent_never_reconciled_here_is_removed_from_every_object() {
        let (_kube, reconciler, _) = reconciled_agent().await;
        eventually("other's entry seen", || {
            entries(&reconciler, "other") == ["monitoring/agent"]
        })
        .await;
        reconciler.forget(&agent_ref()).await;
        eventually("other's entry removed by a scan", || {
            entries(&reconciler, "other").is_empty()
        })
        .await;
    }
}
