//! `edit-core-bench`: the pure part of a controller's reconcile after one ServiceMonitor edit
//! (discover, then plan with the agent's render cache), in-process on the generated corpus,
//! without an API server: where the 100 ms of issue 35's edit target go before any write.
//! Each edit adds a relabeling to one monitor (the controller benchmark's edit) and gives it a
//! new resourceVersion; the discover and plan times of every edit are printed as percentiles,
//! discovery both whole and from the last one ([`render::rediscover`], the controller's way),
//! checked equal at each edit.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use api::ServiceMonitor;
use bench::controller::percentile;
use bench::generate::{Params, generate, namespace_name, service_monitor_name};
use bench::measure::{load, loadavg, ms};
use clap::Parser;
use render::PlanOptions;
use render::plan::{MetricsConfig, plan_with_metrics};
use render::render_cache::MetricsConfigCache;

#[derive(Parser)]
#[command(about = "discover + plan of one ServiceMonitor edit, in-process")]
struct Args {
    /// ServiceMonitors of the generated corpus.
    #[arg(long, default_value_t = 10_000)]
    size: usize,
    /// Edits measured (after a cold render and a few warm-up edits).
    #[arg(long, default_value_t = 100)]
    edits: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Edits made and not measured: the first renders fill caches and grow allocations.
const WARM_UP: usize = 5;
/// A prime, as the controller benchmark's: successive edits land far apart.
const EDIT_STRIDE: usize = 7919;

fn main() -> Result<()> {
    let args = Args::parse();
    let params = Params::scaled(args.size, args.seed);
    let corpus = generate(&params);
    let mut store = load(&corpus.files).store;
    let agent = store
        .agents()
        .next()
        .cloned()
        .context("the corpus has no GrafanaAgent")?;
    let opts = PlanOptions::default();
    let mut cache = MetricsConfigCache::new();

    let cold = Instant::now();
    let mut discovery = render::discover(&agent, &store);
    plan_with_metrics(&discovery, &opts, MetricsConfig::Cache(&mut cache));
    let cold = cold.elapsed();

    let load_before = loadavg();
    let (mut whole_times, mut since_times, mut plan_times) = (Vec::new(), Vec::new(), Vec::new());
    let mut declined = 0;
    for seq in 0..WARM_UP + args.edits {
        let i = (seq * EDIT_STRIDE + 13) % args.size.max(1);
        let (namespace, name) = (
            namespace_name(i % params.namespaces.max(1)),
            service_monitor_name(i),
        );
        let edited = edited(&store, &namespace, &name, seq)?;
        store.apply(Arc::new(edited));

        // The whole discovery, for comparison; then the controller's way, from the last one.
        let started = Instant::now();
        let whole = render::discover(&agent, &store);
        let whole_took = started.elapsed();
        let started = Instant::now();
        if !render::rediscover(&agent, &store, &mut discovery) {
            declined += 1;
            discovery = render::discover(&agent, &store);
        }
        let discovered = Instant::now();
        ensure!(
            discovery == whole,
            "edit {seq}: rediscovered differs from discovered"
        );
        let planned_from = Instant::now();
        let plan = plan_with_metrics(&discovery, &opts, MetricsConfig::Cache(&mut cache));
        let planned = Instant::now();
        std::hint::black_box(plan);
        if seq >= WARM_UP {
            whole_times.push(whole_took);
            since_times.push(discovered - started);
            plan_times.push(planned - planned_from);
        }
    }
    let totals: Vec<Duration> = since_times
        .iter()
        .zip(&plan_times)
        .map(|(d, p)| *d + *p)
        .collect();

    println!(
        "{} ServiceMonitors, cold discover + plan {} ms, {} edits ({declined} not taken from the last discovery; load {load_before} -> {})",
        args.size,
        cold.as_millis(),
        args.edits,
        loadavg()
    );
    println!();
    println!("| step | p50 | p99 | max |");
    println!("|---|---|---|---|");
    for (step, times) in [
        ("discover, whole", &whole_times),
        ("discover, from the last one", &since_times),
        ("plan", &plan_times),
        ("discover (from the last one) + plan", &totals),
    ] {
        println!(
            "| {step} | {} ms | {} ms | {} ms |",
            ms(percentile(times, 50.0)),
            ms(percentile(times, 99.0)),
            ms(percentile(times, 100.0))
        );
    }
    Ok(())
}

/// The ServiceMonitor `namespace/name` of `store` with one more relabeling on its first
/// endpoint and a new resourceVersion, as an API server would return it after the edit.
fn edited(
    store: &render::store::InputStore,
    namespace: &str,
    name: &str,
    seq: usize,
) -> Result<ServiceMonitor> {
    let current = store
        .objects::<ServiceMonitor>()
        .get(namespace, name)
        .with_context(|| format!("no ServiceMonitor {namespace}/{name} in the corpus"))?;
    let mut value = serde_json::to_value(current.as_ref())?;
    value["metadata"]["resourceVersion"] = format!("edit-{seq}").into();
    let relabelings = value["spec"]["endpoints"][0]
        .as_object_mut()
        .context("a ServiceMonitor without endpoints")?
        .entry("relabelings")
        .or_insert_with(|| serde_json::json!([]));
    relabelings
        .as_array_mut()
        .context("relabelings is not a list")?
        .push(serde_json::json!({"targetLabel": "bench_edit", "replacement": format!("bench-edit-{seq:08}")}));
    Ok(serde_json::from_value(value)?)
}
