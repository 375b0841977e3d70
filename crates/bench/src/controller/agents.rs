//! The many-agents shape (`controller-bench --agents-shape 50000x10`): ServiceMonitors spread
//! over several GrafanaAgents, each with namespaces of its own, plus shared namespaces whose
//! monitors every agent selects ([`AgentsShape`]). On a cluster of its own per backend:
//! * cold start: process start until every agent's config Secret holds exactly its expected
//!   scrape jobs;
//! * edits to the agents' own monitors, one at a time, round-robin over the agents: until the
//!   edited agent's config holds the edit;
//! * edits to shared monitors: until every agent's config holds the edit (the slowest agent);
//! * the config writes both cost, and the operator's peak RSS.

use std::fmt::Write;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde_json::Value;

use super::cluster::{self, Cluster, Loaded};
use super::operator::OperatorProcess;
use super::report::{mb, ms, secs};
use super::watch::job_names;
use super::{
    Backend, EDIT_STRIDE, Options, apply_edit, config_secret_of, expected_jobs_of,
    fresh_config_watch, load_generated, marker_patch, percentile,
};
use crate::generate::{AgentsShape, Params, documents};

/// The shape to run, beside [`Options`] (whose backends, edits, pause, timeout, concurrency,
/// binary, work dir and seed it shares).
#[derive(Debug, Clone)]
pub struct AgentsOptions {
    /// The agents' own ServiceMonitors, all agents together.
    pub service_monitors: usize,
    pub agents: usize,
    pub namespaces_per_agent: usize,
    /// Namespaces holding one ServiceMonitor every agent selects.
    pub shared_namespaces: usize,
    /// Edits to shared monitors (after the single edits to own ones).
    pub shared_edits: usize,
}

/// The shape's command-line flags, shared by `controller-bench` and `versus-upstream`.
#[derive(clap::Args, Debug, Clone)]
pub struct AgentsShapeArgs {
    /// The many-agents shape, `<ServiceMonitors>x<agents>` (e.g. 50000x10): the agents' own
    /// ServiceMonitors in all, and the GrafanaAgents they are spread over; run after the
    /// sizes, on a cluster of its own. Off when not given.
    #[arg(long, value_parser = parse_shape)]
    pub agents_shape: Option<(usize, usize)>,
    /// Namespaces of its own per agent, in the agents shape.
    #[arg(long, default_value_t = 5)]
    pub namespaces_per_agent: usize,
    /// Namespaces with one ServiceMonitor every agent selects, in the agents shape.
    #[arg(long, default_value_t = 100)]
    pub shared_namespaces: usize,
    /// Edits to shared ServiceMonitors in the agents shape (after the edits to the agents' own
    /// ones; for ours, in `versus-upstream`).
    #[arg(long, default_value_t = 10)]
    pub shared_edits: usize,
}

impl AgentsShapeArgs {
    /// The shape to run, if one was asked for.
    pub fn options(&self) -> Option<AgentsOptions> {
        self.agents_shape
            .map(|(service_monitors, agents)| AgentsOptions {
                service_monitors,
                agents,
                namespaces_per_agent: self.namespaces_per_agent,
                shared_namespaces: self.shared_namespaces,
                shared_edits: self.shared_edits,
            })
    }
}

impl AgentsOptions {
    pub fn shape(&self, seed: u64) -> AgentsShape {
        AgentsShape::new(
            self.service_monitors,
            self.agents,
            self.namespaces_per_agent,
            self.shared_namespaces,
            seed,
        )
    }
}

/// Everything measured for the shape on one backend.
#[derive(Debug, Clone)]
pub struct AgentsResult {
    pub backend: Backend,
    pub shape: AgentsShape,
    pub objects: usize,
    pub load: Loaded,
    /// Expected scrape jobs, per agent.
    pub jobs: Vec<usize>,
    /// Process start until the first agent's config was complete.
    pub first_complete: Duration,
    /// Process start until every agent's config was complete.
    pub cold_start: Duration,
    /// Edits to own monitors: until the edited agent's config held the edit.
    pub own: Vec<Duration>,
    /// Config Secret writes (all agents) during the own edits.
    pub own_writes: usize,
    /// Edits to shared monitors: per edit, until each agent's config held it.
    pub shared: Vec<Vec<Duration>>,
    /// Config Secret writes (all agents) during the shared edits.
    pub shared_writes: usize,
    pub peak_rss: u64,
}

impl AgentsResult {
    /// Per shared edit, until the last agent's config held it.
    pub fn shared_all(&self) -> Vec<Duration> {
        self.shared
            .iter()
            .map(|per_agent| per_agent.iter().copied().max().unwrap_or_default())
            .collect()
    }
}

/// Runs the shape on every backend of `options`, each on a cluster of its own. The control
/// plane is shared by the whole process, so what `super::run` left there (the largest size's
/// objects and the unrelated Secrets) is deleted first; namespaces are kept (the shape reuses
/// their names, and deleting them is asynchronous).
pub async fn run(options: &Options, shape_options: &AgentsOptions) -> Result<Vec<AgentsResult>> {
    std::fs::create_dir_all(&options.work_dir)?;
    let mut results = Vec::new();
    for &backend in &options.backends {
        eprintln!("== controller benchmark, agents shape, on {backend}");
        let cluster = Cluster::start(backend).await?;
        if backend == Backend::ControlPlane {
            delete_leftovers(&cluster, options).await?;
        }
        results.push(measure(&cluster, options, shape_options).await?);
    }
    Ok(results)
}

/// Deletes everything but namespaces that [`super::run`] loaded with `options`.
async fn delete_leftovers(cluster: &Cluster, options: &Options) -> Result<()> {
    let mut docs = Vec::new();
    if let Some(&largest) = options.sizes.iter().max() {
        docs = documents(&Params::scaled(largest, options.seed));
        if options.unrelated_secrets > 0 {
            docs.extend(cluster::unrelated_secrets(
                options.unrelated_secrets,
                options.unrelated_secret_bytes,
            ));
        }
    }
    let stale: Vec<&Value> = docs.iter().filter(|d| d["kind"] != "Namespace").collect();
    if !stale.is_empty() {
        eprintln!(
            "   deleting {} objects of the sizes run before",
            stale.len()
        );
        cluster.delete(&stale, options.concurrency).await?;
    }
    Ok(())
}

async fn measure(
    cluster: &Cluster,
    o: &Options,
    shape_options: &AgentsOptions,
) -> Result<AgentsResult> {
    let shape = shape_options.shape(o.seed);
    let agents = shape.agents;
    let docs = shape.documents();
    eprintln!(
        "   {} ServiceMonitors ({} own over {agents} agents, {} shared): loading {} objects",
        shape.all_service_monitors(),
        shape.service_monitors,
        shape.shared_namespaces,
        docs.len()
    );
    let load = cluster.load(&docs, o.concurrency).await?;
    cluster.ensure_agent_service_account().await?;
    let loaded = load_generated(&shape.generate())?;
    let expected: Vec<Vec<String>> = (0..agents)
        .map(|a| expected_jobs_of(&loaded, a))
        .collect::<Result<_>>()?;
    drop(loaded);

    let client = cluster.client();
    let mut watches = Vec::new();
    for a in 0..agents {
        watches.push(fresh_config_watch(&client, &config_secret_of(a)).await?);
    }
    eprintln!(
        "   cold start ({} scrape jobs expected in all)",
        expected.iter().map(Vec::len).sum::<usize>()
    );
    let log = o
        .work_dir
        .join(format!("operator-{}-agents-shape.log", cluster.backend()));
    let started = Instant::now();
    let mut op = OperatorProcess::start(&o.agent_operator, cluster.kubeconfig(), log, None)?;
    let mut completes = Vec::new();
    for (a, watch) in watches.iter_mut().enumerate() {
        let want: std::collections::BTreeSet<&str> =
            expected[a].iter().map(String::as_str).collect();
        let at = watch
            .wait_until(started, o.timeout, |text| job_names(text) == want)
            .await
            .with_context(|| {
                format!(
                    "cold start of {}; operator log {}",
                    config_secret_of(a),
                    op.log.display()
                )
            })?;
        completes.push(at - started);
    }
    for watch in &mut watches {
        watch.settle(Duration::from_millis(500), o.timeout).await?;
    }
    op.check_running()?;

    eprintln!("   {} edits to own monitors", o.edits);
    let writes_before: usize = watches.iter().map(|w| w.writes).sum();
    let mut own = Vec::new();
    for seq in 0..o.edits {
        let a = seq % agents;
        let i = shape.own_monitor(a, (seq / agents) * EDIT_STRIDE + 13);
        let (namespace, name) = shape.locate(i);
        let marker = format!("agents-edit-{seq:08}");
        let returned = apply_edit(&client, &namespace, &name, &marker_patch(&marker)).await?;
        let seen = watches[a]
            .wait_markers(returned, std::slice::from_ref(&marker), o.timeout)
            .await
            .with_context(|| format!("own edit {seq} of {}", config_secret_of(a)))?;
        own.push(seen.at[0].saturating_duration_since(returned));
        tokio::time::sleep(o.edit_pause).await;
    }
    for watch in &mut watches {
        watch.settle(Duration::from_millis(500), o.timeout).await?;
    }
    let own_writes = watches.iter().map(|w| w.writes).sum::<usize>() - writes_before;

    eprintln!("   {} edits to shared monitors", shape_options.shared_edits);
    let writes_before: usize = watches.iter().map(|w| w.writes).sum();
    let mut shared = Vec::new();
    for seq in 0..shape_options.shared_edits {
        let s = (seq * 37 + 5) % shape.shared_namespaces.max(1);
        let (namespace, name) = shape.locate(shape.shared_monitor(s));
        let marker = format!("shared-edit-{seq:08}");
        let returned = apply_edit(&client, &namespace, &name, &marker_patch(&marker)).await?;
        let mut per_agent = Vec::new();
        for (a, watch) in watches.iter_mut().enumerate() {
            let seen = watch
                .wait_markers(returned, std::slice::from_ref(&marker), o.timeout)
                .await
                .with_context(|| format!("shared edit {seq} in {}", config_secret_of(a)))?;
            per_agent.push(seen.at[0].saturating_duration_since(returned));
        }
        shared.push(per_agent);
        tokio::time::sleep(o.edit_pause).await;
    }
    for watch in &mut watches {
        watch.settle(Duration::from_millis(500), o.timeout).await?;
    }
    let shared_writes = watches.iter().map(|w| w.writes).sum::<usize>() - writes_before;
    op.check_running()?;
    let peak_rss = op.peak_rss()?;
    op.stop()?;

    Ok(AgentsResult {
        backend: cluster.backend(),
        objects: docs.len(),
        load,
        jobs: expected.iter().map(Vec::len).collect(),
        first_complete: completes.iter().copied().min().unwrap_or_default(),
        cold_start: completes.iter().copied().max().unwrap_or_default(),
        own,
        own_writes,
        shared,
        shared_writes,
        peak_rss,
        shape,
    })
}

/// `50000x10`: ServiceMonitors and agents.
pub fn parse_shape(text: &str) -> Result<(usize, usize), String> {
    let (monitors, agents) = text
        .split_once('x')
        .ok_or_else(|| format!("{text:?}: expected <ServiceMonitors>x<agents>, e.g. 50000x10"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|e| format!("{s:?} in {text:?}: {e}"))
    };
    let (monitors, agents) = (number(monitors)?, number(agents)?);
    if agents == 0 {
        return Err(format!("{text:?}: at least one agent"));
    }
    Ok((monitors, agents))
}

/// The targets for the shape.
const COLD_START_TARGET: Duration = Duration::from_secs(5);
const EDIT_P99_TARGET: Duration = Duration::from_millis(150);
const SHARED_EDIT_TARGET: Duration = Duration::from_millis(500);
const PEAK_RSS_TARGET: u64 = 500_000_000;

/// The shape's tables: the figures, then the targets, met or not.
pub fn markdown(results: &[AgentsResult], options: &Options) -> String {
    let mut out = String::new();
    let Some(first) = results.first() else {
        return out;
    };
    let s = &first.shape;
    let _ = writeln!(
        out,
        "### Many agents\n\n\
         {} ServiceMonitors over {} GrafanaAgents: each agent {} of its own in {} namespaces of \
         its own, plus {} shared namespaces holding one ServiceMonitor each that every agent \
         selects ({} per agent); no PodMonitors, Probes or PodLogs. Cold start: process start \
         until every agent's config Secret holds exactly its scrape jobs. Own edits: one at a \
         time ({:?} after the previous one was seen), round-robin over the agents, until the \
         edited agent's config holds it. Shared edits: until every agent's config holds it (the \
         slowest agent). Writes: config Secret writes of all agents together.\n\n\
         | backend | input objects | load through the API | scrape jobs per agent | cold start (first / all agents) | own edits p50 / p99 / max | writes per own edit | shared edits p50 / p99 / max (all agents) | writes per shared edit | peak RSS |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        s.all_service_monitors(),
        s.agents,
        s.service_monitors / s.agents,
        s.namespaces_per_agent,
        s.shared_namespaces,
        s.service_monitors / s.agents + s.shared_namespaces,
        options.edit_pause,
    );
    for r in results {
        let rate = r.load.created as f64 / r.load.took.as_secs_f64().max(1e-9);
        let all = r.shared_all();
        let (min_jobs, max_jobs) = (
            r.jobs.iter().min().copied().unwrap_or_default(),
            r.jobs.iter().max().copied().unwrap_or_default(),
        );
        let jobs = if min_jobs == max_jobs {
            min_jobs.to_string()
        } else {
            format!("{min_jobs}-{max_jobs}")
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} new in {} ({rate:.0}/s) | {jobs} | {} / {} | {} / {} / {} ({} edits) | {:.2} | {} / {} / {} ({} edits) | {:.2} | {} |",
            r.backend,
            r.objects,
            r.load.created,
            secs(r.load.took),
            secs(r.first_complete),
            secs(r.cold_start),
            ms(percentile(&r.own, 50.0)),
            ms(percentile(&r.own, 99.0)),
            ms(percentile(&r.own, 100.0)),
            r.own.len(),
            r.own_writes as f64 / r.own.len().max(1) as f64,
            ms(percentile(&all, 50.0)),
            ms(percentile(&all, 99.0)),
            ms(percentile(&all, 100.0)),
            all.len(),
            r.shared_writes as f64 / all.len().max(1) as f64,
            mb(r.peak_rss),
        );
    }

    let _ = writeln!(
        out,
        "\n### Many agents: targets\n\n| target | backend | result | |\n|---|---|---|---|"
    );
    let verdict = |met: bool| if met { "met" } else { "not met" };
    for r in results {
        let b = r.backend;
        let mut row = |target: String, result: String, met: bool| {
            let _ = writeln!(out, "| {target} | {b} | {result} | {} |", verdict(met));
        };
        row(
            format!(
                "{} ServiceMonitors over {} agents: every config complete within {}",
                r.shape.all_service_monitors(),
                r.shape.agents,
                secs(COLD_START_TARGET)
            ),
            secs(r.cold_start),
            r.cold_start <= COLD_START_TARGET,
        );
        let p99 = percentile(&r.own, 99.0);
        row(
            format!("edit p99 within {}", ms(EDIT_P99_TARGET)),
            ms(p99),
            p99 <= EDIT_P99_TARGET,
        );
        row(
            format!("peak RSS within {}", mb(PEAK_RSS_TARGET)),
            mb(r.peak_rss),
            r.peak_rss <= PEAK_RSS_TARGET,
        );
        let worst = percentile(&r.shared_all(), 100.0);
        row(
            format!(
                "a shared monitor's edit in all {} configs within {} (slowest of {} edits)",
                r.shape.agents,
                ms(SHARED_EDIT_TARGET),
                r.shared.len()
            ),
            ms(worst),
            !r.shared.is_empty() && worst <= SHARED_EDIT_TARGET,
        );
    }
    out
}
