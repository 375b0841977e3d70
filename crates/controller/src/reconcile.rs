//! One reconcile of one GrafanaAgent, as a short named pipeline:
//! snapshot -> discover -> plan -> apply -> status (then events).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use api::GrafanaAgent;
use kube::Client;
use kube::runtime::controller::Action;
use kube::runtime::reflector::ObjectRef;
use render::desired::PlanOptions;
use render::index::ReverseIndex;
use render::input_ref::{InputRef, Kind};
use render::plan::{MetricsConfig, plan_with_metrics};
use render::render_cache::MetricsConfigCache;
use tracing::Instrument;

use crate::apply::{self, Applied};
use crate::backoff::Backoff;
use crate::error::Error;
use crate::events::{self, Announced};
use crate::inputs::{self, Values};
use crate::metrics::Metrics;
use crate::status;
use crate::watches::{Readiness, Stores};

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
pub(crate) struct AgentState {
    values: Values,
    metrics_config: MetricsConfigCache,
    announced: Announced,
    stale_entries: status::StaleEntries,
    /// When the last reconcile started (see [`MIN_RECONCILE_SPACING`]).
    last_started: Option<Instant>,
}

pub(crate) type AgentStates =
    Arc<Mutex<HashMap<ObjectRef<GrafanaAgent>, Arc<tokio::sync::Mutex<AgentState>>>>>;

/// Everything a reconcile reads or writes besides the agent.
pub(crate) struct Context {
    pub client: Client,
    pub plan_options: PlanOptions,
    pub metrics: Metrics,
    pub stores: Stores,
    pub index: Arc<RwLock<ReverseIndex>>,
    pub recorder: events::Publisher,
    pub states: AgentStates,
    /// The retry backoff of each agent whose last reconcile failed transiently.
    pub failures: Mutex<HashMap<ObjectRef<GrafanaAgent>, Backoff>>,
    /// How often an agent is reconciled when nothing triggers it (guards against missed events).
    pub periodic: Duration,
    /// Whether every watch has listed once.
    pub readiness: Readiness,
    /// Whose entries in instances' status a reconcile may remove when their agent is gone.
    pub sweep: status::Sweep,
    /// A removal of status entries failed: the next reconcile scans every object for stale
    /// entries (see [`status::StaleEntries`]).
    pub rescan_entries: std::sync::atomic::AtomicBool,
    /// What the operator's own writes left, so that their watch events trigger nothing.
    pub own_writes: apply::OwnWrites,
}

impl Context {
    fn state(&self, agent: &ObjectRef<GrafanaAgent>) -> Arc<tokio::sync::Mutex<AgentState>> {
        self.states
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(agent.clone())
            .or_default()
            .clone()
    }
}

/// Forgets what the controller kept for a deleted (or no longer selected) agent.
pub(crate) fn forget(
    agent: &ObjectRef<GrafanaAgent>,
    index: &RwLock<ReverseIndex>,
    states: &AgentStates,
    metrics: &Metrics,
) {
    index
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .forget(&input_ref(agent));
    states
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(agent);
    metrics.set_managed(&agent.to_string(), None);
}

pub(crate) async fn reconcile(
    agent: Arc<GrafanaAgent>,
    ctx: Arc<Context>,
) -> Result<Action, Error> {
    let key = ObjectRef::from_obj(agent.as_ref());
    if !ctx.readiness.is_ready() {
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
    let state = ctx.state(&key);
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
    ctx.metrics.reconcile_started();
    let span = tracing::info_span!("reconcile", agent = %key);
    let result = pipeline(&agent, &key, &ctx, &mut state)
        .instrument(span)
        .await;
    return_freed_memory();
    ctx.metrics.reconcile_took(started.elapsed().as_secs_f64());
    match &result {
        Ok(_) => {
            ctx.failures
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&key);
        }
        Err(e) => ctx.metrics.reconcile_failed(e.category()),
    }
    result
}

/// The steps, each in a span of its own inside the reconcile's (which names the agent).
async fn pipeline(
    agent: &Arc<GrafanaAgent>,
    key: &ObjectRef<GrafanaAgent>,
    ctx: &Context,
    state: &mut AgentState,
) -> Result<Action, Error> {
    // snapshot + discover
    let discovery = inputs::discover(ctx, agent, &mut state.values)
        .instrument(tracing::debug_span!("discover"))
        .await?;
    let dropped = ctx
        .index
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .record(&input_ref(key), &discovery.dependencies);
    state.stale_entries.dropped(dropped);

    // plan
    let plan = tracing::debug_span!("plan").in_scope(|| {
        tokio::task::block_in_place(|| {
            plan_with_metrics(
                &discovery,
                &ctx.plan_options,
                MetricsConfig::Cache(&mut state.metrics_config),
            )
        })
    });
    ctx.metrics
        .set_managed(&key.to_string(), Some(managed_counts(&discovery, &plan)));

    // apply
    let (applied, apply_error) = match apply::apply(ctx, &discovery.hierarchy, &plan.objects)
        .instrument(tracing::debug_span!("apply"))
        .await
    {
        Ok(mut applied) => {
            let refused = Error::refused(std::mem::take(&mut applied.refused));
            (applied, refused)
        }
        Err(e) => (Applied::default(), Some(e)),
    };
    if !applied.is_empty() {
        tracing::info!(agent = %key, written = ?applied.written, deleted = ?applied.deleted, "applied");
    }

    // status
    match status::write(
        ctx,
        agent,
        &plan,
        apply_error.as_ref(),
        &mut state.stale_entries,
    )
    .instrument(tracing::debug_span!("status"))
    .await
    {
        Ok(_) => {}
        Err(e) if apply_error.is_none() => return Err(e),
        Err(e) => tracing::warn!(agent = %key, error = %e, "status not written"),
    }

    let outcome = events::Outcome {
        applied: &applied,
        error: apply_error.as_ref(),
        rejections: &plan.rejections,
        warnings: &plan.warnings,
    };
    events::publish(ctx, agent, &outcome, &mut state.announced)
        .instrument(tracing::debug_span!("events"))
        .await;

    match apply_error {
        Some(e) => Err(e),
        None => Ok(Action::requeue(ctx.periodic)),
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
pub(crate) fn input_ref(agent: &ObjectRef<GrafanaAgent>) -> InputRef {
    InputRef::new(
        Kind::GrafanaAgent,
        agent.namespace.clone().unwrap_or_default(),
        agent.name.clone(),
    )
}

/// `(kind, state) -> count` of the input objects `discovery` selected and `plan` rejected.
fn managed_counts(
    discovery: &render::Discovery,
    plan: &render::Plan,
) -> HashMap<(String, String), i64> {
    let h = &discovery.hierarchy;
    let mut counts: HashMap<(String, String), i64> = HashMap::new();
    let mut add = |kind: &str, state: &str, n: usize| {
        *counts
            .entry((kind.to_owned(), state.to_owned()))
            .or_default() += i64::try_from(n).unwrap_or(i64::MAX);
    };
    add("MetricsInstance", "selected", h.metrics.len());
    add("LogsInstance", "selected", h.logs.len());
    add("Integration", "selected", h.integrations.len());
    add(
        "ServiceMonitor",
        "selected",
        h.metrics.iter().map(|m| m.service_monitors.len()).sum(),
    );
    add(
        "PodMonitor",
        "selected",
        h.metrics.iter().map(|m| m.pod_monitors.len()).sum(),
    );
    add(
        "Probe",
        "selected",
        h.metrics.iter().map(|m| m.probes.len()).sum(),
    );
    add(
        "PodLogs",
        "selected",
        h.logs.iter().map(|l| l.pod_logs.len()).sum(),
    );
    let rejected: std::collections::BTreeSet<_> =
        plan.rejections.iter().map(|r| &r.object).collect();
    for object in rejected {
        add(object.kind.as_str(), "rejected", 1);
    }
    counts
}

/// Transient errors retry with a growing backoff; others wait for a change (or the periodic
/// requeue). Either way the error is logged with the agent it concerns.
pub(crate) fn error_policy(agent: Arc<GrafanaAgent>, error: &Error, ctx: Arc<Context>) -> Action {
    let key = ObjectRef::from_obj(agent.as_ref());
    if !error.is_transient() {
        tracing::error!(agent = %key, error = %error, "reconcile failed; waiting for a change");
        return Action::requeue(ctx.periodic);
    }
    let delay = ctx
        .failures
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(key.clone())
        .or_insert_with(Backoff::reconcile)
        .next_delay();
    tracing::warn!(agent = %key, error = %error, retry_in = ?delay, "reconcile failed; retrying");
    Action::requeue(delay)
}
