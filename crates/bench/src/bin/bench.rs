//! The render benchmarks of BENCHMARKS.md; `scripts/bench.sh` builds and runs this.
//!
//! For each size N (ServiceMonitors; N/10 PodMonitors, N/50 Probes and PodLogs, N/20
//! namespaces, one GrafanaAgent):
//! * the whole `agent-operator render -f DIR` process: wall time, and peak RSS and CPU time
//!   as GNU time reports them;
//! * the same path in-process, phase by phase (load, discover, plan, output);
//! * the metrics agent.yml's size, raw, and as stored: how many Secrets (head and segments),
//!   their bytes, the largest one's (each within the 1 MiB limit of a Secret);
//! * `promtool check config --syntax-only` on the same scrape jobs, and the ratio.
//!
//! Then, at one size, what re-rendering costs after one ServiceMonitor edit with the
//! per-monitor cache (`render::render_cache`), against rendering from scratch.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use bench::generate::{Params, generate};
use bench::measure::{
    Phases, ProcessRun, errors, gzip_len, load, loadavg, machine, median, ms, prometheus_config,
    read_inputs, render_in_process, run_measured, run_process, single_stream_gzip_len, size,
};
use clap::Parser;
use render::desired::{PlanOptions, SECRET_SIZE_LIMIT};
use render::plan::{MetricsConfig, plan_with_metrics};
use render::render_cache::MetricsConfigCache;
use render::segments::{self, SegmentCache, StoredSegment};

#[derive(Parser)]
#[command(about = "Benchmarks of agent-operator render at scale; prints Markdown tables")]
struct Args {
    /// ServiceMonitor counts to measure.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,50000")]
    sizes: Vec<usize>,
    /// Runs per measurement (the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Where inputs and outputs are written.
    #[arg(long, default_value = "target/bench")]
    work_dir: PathBuf,
    /// The release binary to measure.
    #[arg(long, default_value = "target/release/agent-operator")]
    agent_operator: PathBuf,
    #[arg(long, default_value = "promtool")]
    promtool: PathBuf,
    /// ServiceMonitor count of the edit benchmark (0: skip it).
    #[arg(long, default_value_t = 10_000)]
    edit_size: usize,
    /// Edits measured (one ServiceMonitor each).
    #[arg(long, default_value_t = 20)]
    edits: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

struct SizeResult {
    n: usize,
    input_bytes: usize,
    objects: usize,
    process: Vec<ProcessRun>,
    phases: Vec<Phases>,
    output_bytes: usize,
    jobs: usize,
    config_bytes: usize,
    config_gzip_bytes: usize,
    single_stream_gzip_bytes: usize,
    /// The head and segment Secrets the config is stored in, their bytes, the largest one's.
    config_secrets: usize,
    stored_bytes: usize,
    largest_secret: usize,
    promtool: Vec<Duration>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    ensure!(
        args.agent_operator.exists(),
        "{} is missing: build it with cargo build --release -p agent-operator",
        args.agent_operator.display()
    );
    std::fs::create_dir_all(&args.work_dir)?;
    let load_before = loadavg();
    let started = Instant::now();

    let mut results = Vec::new();
    for &n in &args.sizes {
        results.push(measure_size(&args, n)?);
    }
    let edit = if args.edit_size > 0 {
        Some(measure_edits(&args)?)
    } else {
        None
    };

    println!("## Machine\n");
    println!("{}", machine());
    println!(
        "- load average (1/5/15 min) before: {load_before}, after: {}; {} runs per figure (median), total {:.0} s\n",
        loadavg(),
        args.runs,
        started.elapsed().as_secs_f64()
    );
    print_tables(&results);
    if let Some(e) = edit {
        print_edit(&e);
    }
    Ok(())
}

fn measure_size(args: &Args, n: usize) -> Result<SizeResult> {
    let params = Params::scaled(n, args.seed);
    let dir = args.work_dir.join(format!("input-{n}"));
    eprintln!("== {n} ServiceMonitors: generating into {}", dir.display());
    let corpus = generate(&params);
    corpus.write_to(&dir)?;
    let out = args.work_dir.join(format!("output-{n}.yaml"));

    eprintln!("   render process x{}", args.runs);
    let dir_arg = dir.to_str().context("non-UTF-8 work dir")?;
    let mut process = Vec::new();
    for _ in 0..args.runs {
        process.push(run_measured(
            &args.agent_operator,
            &["render", "-f", dir_arg],
            Some(&out),
            &args.work_dir,
        )?);
    }
    let output_bytes = std::fs::metadata(&out)?.len() as usize;

    eprintln!("   in-process x{}", args.runs);
    let inputs = read_inputs(&dir)?;
    let opts = PlanOptions::default();
    let mut phases = Vec::new();
    for _ in 0..args.runs {
        let facts = render_in_process(&inputs, &opts)?;
        // No size ceiling on a config: stored in as many Secrets as it needs. The assets
        // Secret is one Secret still (at 50k its values pass 1 MiB: BENCHMARKS.md).
        let others: Vec<&String> = facts
            .rejections
            .iter()
            .filter(|r| !r.contains("assets Secret"))
            .collect();
        ensure!(others.is_empty(), "unexpected rejections: {others:#?}");
        phases.push(facts.phases);
    }

    let loaded = load(&inputs);
    let errs = errors(&loaded);
    ensure!(errs.is_empty(), "input errors: {errs:#?}");
    let store = &loaded.store;
    let objects = loaded.accepted;
    let agent = store.agents().next().context("no GrafanaAgent")?;
    let discovery = render::discover(agent, store);
    let rendered = render::config::metrics::render(&discovery.hierarchy)
        .context("the agent has no metrics config")?;
    // As the operator writes agent.yml: strings escaped for the loader's expansion.
    let text = render::expansion::Strings::of(&discovery.hierarchy.agent)
        .to_yaml(render::expansion::ConfigOf::Sharded, &rendered.config)?;
    let config_gzip_bytes = gzip_len(&text)?;
    // plan renders monitor by monitor; it must give the very text of the typed document.
    let planned = render::plan(&discovery, &opts);
    let config_secret = format!("{}-config", discovery.hierarchy.agent_name());
    let c = planned
        .configs
        .iter()
        .find(|c| c.secret_name == config_secret)
        .context("no metrics config planned")?;
    ensure!(
        c.text.as_str() == text,
        "plan's metrics config differs from the full render"
    );
    let config_secrets = 1 + c.segments.len();
    let stored_bytes: usize = planned
        .objects
        .iter()
        .filter(|o| o.name() == config_secret || c.segments.iter().any(|s| s == o.name()))
        .filter_map(|o| match &o.object {
            render::desired::DesiredObject::Secret(s) => s.data.as_ref(),
            _ => None,
        })
        .flat_map(|data| data.values().map(|v| v.0.len()))
        .sum();
    let largest_secret = planned
        .objects
        .iter()
        .filter(|o| o.name() == config_secret || c.segments.iter().any(|s| s == o.name()))
        .filter_map(|o| match &o.object {
            render::desired::DesiredObject::Secret(s) => s.data.as_ref(),
            _ => None,
        })
        .map(|data| data.values().map(|v| v.0.len()).sum::<usize>())
        .max()
        .unwrap_or_default();
    ensure!(
        largest_secret <= SECRET_SIZE_LIMIT,
        "a config Secret of {largest_secret} bytes"
    );

    eprintln!("   promtool x{}", args.runs);
    let (prom, jobs) = prometheus_config(&serde_json::to_value(&rendered.config)?)?;
    // What a shard-0 agent pod loads: the config-reloader expands these.
    let prom = prom
        .replace("$(SHARD)", "0")
        .replace("$(STATEFULSET_ORDINAL_NUMBER)", "0");
    let prom_path = args.work_dir.join(format!("prometheus-{n}.yml"));
    std::fs::write(&prom_path, prom)?;
    let prom_arg = prom_path.to_str().context("non-UTF-8 work dir")?;
    let mut promtool = Vec::new();
    for _ in 0..args.runs {
        promtool.push(
            run_process(
                &args.promtool,
                &["check", "config", "--syntax-only", prom_arg],
                None,
            )?
            .wall,
        );
    }
    Ok(SizeResult {
        n,
        input_bytes: corpus.bytes(),
        objects,
        process,
        phases,
        output_bytes,
        jobs,
        config_bytes: text.len(),
        config_gzip_bytes,
        single_stream_gzip_bytes: single_stream_gzip_len(&text)?,
        config_secrets,
        stored_bytes,
        largest_secret,
        promtool,
    })
}

struct EditResult {
    n: usize,
    monitors: usize,
    cold: Duration,
    full_render: Duration,
    full_plan: Duration,
    discover: Vec<Duration>,
    /// plan_with_metrics with the agent's cache: the controller's path after discovery.
    cached_plan: Vec<Duration>,
    /// The same work split, on a second cache: the config text alone, its segments alone.
    cached_render: Vec<Duration>,
    incremental_store: Vec<Duration>,
    full_store: Duration,
    hits: usize,
    misses: usize,
    /// Segments reused and stored anew by the last edit, of how many.
    segments: (usize, usize, usize),
    /// The bytes of the Secrets an edit writes (the changed segments and the head), median.
    written_bytes: Vec<usize>,
    /// The incremental store reading every part again (as before parts were remembered).
    reread_store: Vec<Duration>,
    /// The bytes of text an edit's store read (the changed parts and the frame), median.
    read_bytes: Vec<usize>,
    /// The bytes of every Secret of the config.
    stored_bytes: usize,
    config_bytes: usize,
}

fn measure_edits(args: &Args) -> Result<EditResult> {
    let n = args.edit_size;
    eprintln!("== edits at {n} ServiceMonitors");
    let corpus = generate(&Params::scaled(n, args.seed));
    let mut loaded = load(&corpus.files);
    ensure!(errors(&loaded).is_empty(), "input errors");
    let store = &mut loaded.store;
    stamp_resource_versions(store);
    let agent = store.agents().next().context("no GrafanaAgent")?.clone();
    let agent_name = agent.metadata.name.clone().unwrap_or_default();
    let opts = PlanOptions::default();

    let t = Instant::now();
    let discovery = render::discover(&agent, store);
    let rendered = render::config::metrics::render(&discovery.hierarchy).context("no config")?;
    let _ = render::yaml::to_string(&rendered.config)?;
    let full_render = t.elapsed();
    let t = Instant::now();
    let _ = render::plan(&discovery, &opts);
    let full_plan = t.elapsed();

    // The controller's cache, used through plan_with_metrics, and a second one to time the
    // text and its compression separately.
    let mut cache = MetricsConfigCache::new();
    let t = Instant::now();
    let cold_plan = plan_with_metrics(&discovery, &opts, MetricsConfig::Cache(&mut cache));
    let cold = t.elapsed();
    ensure!(
        cold_plan.rejections.is_empty(),
        "rejections: {:?}",
        cold_plan.rejections
    );
    let monitors = cache.len();
    let mut split = MetricsConfigCache::new();
    let mut split_segments = SegmentCache::default();
    let head = format!("{agent_name}-config");
    let (first, _) = split.render(&discovery.hierarchy)?.context("no config")?;
    let mut previous = segments::store_chunks(
        &head,
        &first.text.chunks_with_parts(),
        Some(&mut split_segments),
    )?;
    let t = Instant::now();
    segments::store(&head, &first.text.chunks(), None)?;
    let full_store = t.elapsed();
    // The same segments with every part read again at each edit, as before the segment cache
    // remembered parts: timed beside the other, edit for edit.
    let mut reread_segments = SegmentCache::default();
    segments::store(&head, &first.text.chunks(), Some(&mut reread_segments))?;
    let mut reread_t = Vec::new();

    let (mut discover_t, mut plan_t, mut render_t, mut store_t) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut hits, mut misses, mut segment_counts, mut config_bytes) = (0, 0, (0, 0, 0), 0);
    let (mut written_bytes, mut stored_bytes, mut read_bytes) = (Vec::new(), 0, Vec::new());
    for edit in 0..args.edits.max(1) {
        // Spread the edits over the list; each bumps resourceVersion, as the API server does.
        let monitors = store.objects::<api::ServiceMonitor>();
        let i = (edit * 7919) % monitors.len();
        let mut sm = monitors
            .iter()
            .nth(i)
            .context("no ServiceMonitor")?
            .as_ref()
            .clone();
        sm.metadata.resource_version = Some(format!("{}", edit + 2));
        let endpoint = sm.spec.endpoints.first_mut().context("no endpoint")?;
        endpoint.common.interval = Some(if edit % 2 == 0 { "45s" } else { "1m30s" }.to_owned());
        store.apply(Arc::new(sm));

        let t = Instant::now();
        let discovery = render::discover(&agent, store);
        discover_t.push(t.elapsed());
        let t = Instant::now();
        let plan = plan_with_metrics(&discovery, &opts, MetricsConfig::Cache(&mut cache));
        plan_t.push(t.elapsed());

        let t = Instant::now();
        let (text, stats) = split.render(&discovery.hierarchy)?.context("no config")?;
        render_t.push(t.elapsed());
        let t = Instant::now();
        // From the parts, as plan_with_metrics does: the cached text is never laid out, and
        // the parts it held before are not read again.
        let stored = segments::store_chunks(
            &head,
            &text.text.chunks_with_parts(),
            Some(&mut split_segments),
        )?;
        store_t.push(t.elapsed());
        read_bytes.push(split_segments.bytes_read);
        let t = Instant::now();
        let reread = segments::store(&head, &text.text.chunks(), Some(&mut reread_segments))?;
        reread_t.push(t.elapsed());
        ensure!(
            reread == stored,
            "the segments differ when every part is read again"
        );
        (hits, misses, config_bytes) = (stats.hits, stats.misses, text.text.len());
        segment_counts = (split_segments.reused, split_segments.stored, stored.len());
        written_bytes.push(bytes_written(&previous, &stored));
        stored_bytes = stored.iter().map(|s| s.bytes.len()).sum();

        if edit == 0 {
            // What the cache gives must be what rendering from scratch gives.
            let fresh = render::plan(&discovery, &opts);
            let secret = |p: &render::Plan| {
                p.objects
                    .iter()
                    .find(|o| o.name() == format!("{}-config", agent_name))
                    .cloned()
            };
            ensure!(secret(&plan).is_some(), "no config Secret");
            if secret(&plan) != secret(&fresh) {
                bail!("the cached plan's config Secret differs from the one rendered from scratch");
            }
            ensure!(
                stored == segments::store(&head, &[text.text.as_str()], None)?,
                "the segments stored with the cache differ from those stored without"
            );
        }
        previous = stored;
    }
    Ok(EditResult {
        n,
        monitors,
        cold,
        full_render,
        full_plan,
        discover: discover_t,
        cached_plan: plan_t,
        cached_render: render_t,
        incremental_store: store_t,
        reread_store: reread_t,
        full_store,
        hits,
        misses,
        segments: segment_counts,
        written_bytes,
        read_bytes,
        stored_bytes,
        config_bytes,
    })
}

/// Gives every monitor the `metadata.resourceVersion` an API server would have given it: a
/// controller's cache identifies versions by it (files have none, and are compared by
/// content, which a one-off `render` never needs).
fn stamp_resource_versions(store: &mut render::store::InputStore) {
    fn stamp<T: render::store::Input + Clone>(
        store: &mut render::store::InputStore,
        meta: impl Fn(&mut T) -> &mut Option<String>,
    ) {
        let stamped: Vec<Arc<T>> = store
            .objects::<T>()
            .iter()
            .map(|item| {
                let mut item = item.as_ref().clone();
                meta(&mut item).get_or_insert_with(|| "1".to_owned());
                Arc::new(item)
            })
            .collect();
        store.reset(stamped);
    }
    stamp::<api::ServiceMonitor>(store, |m| &mut m.metadata.resource_version);
    stamp::<api::PodMonitor>(store, |m| &mut m.metadata.resource_version);
    stamp::<api::Probe>(store, |m| &mut m.metadata.resource_version);
}

fn print_tables(results: &[SizeResult]) {
    println!("## Whole process: `agent-operator render -f <dir>`\n");
    println!(
        "| ServiceMonitors | input objects | input | wall (median) | wall (min) | per 1k SMs | CPU user+sys | peak RSS | output |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in results {
        let walls: Vec<Duration> = r.process.iter().map(|p| p.wall).collect();
        let cpu: Vec<Duration> = r.process.iter().map(|p| p.user + p.system).collect();
        let rss = r.process.iter().map(|p| p.max_rss_kib).max().unwrap_or(0);
        let wall = median(&walls);
        println!(
            "| {} | {} | {} | {} ms | {} ms | {} ms | {} ms | {:.0} MB | {} |",
            r.n,
            r.objects,
            size(r.input_bytes),
            ms(wall),
            ms(walls.iter().min().copied().unwrap_or_default()),
            ms(wall.mul_f64(1000.0 / r.n as f64)),
            ms(median(&cpu)),
            rss as f64 * 1024.0 / 1e6,
            size(r.output_bytes),
        );
    }

    println!("\n## In-process phases (median)\n");
    println!(
        "| ServiceMonitors | load (parse + check) | discover | plan (render + gzip + workloads) | output stream | total |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for r in results {
        let pick = |f: fn(&Phases) -> Duration| median(&r.phases.iter().map(f).collect::<Vec<_>>());
        println!(
            "| {} | {} ms | {} ms | {} ms | {} ms | {} ms |",
            r.n,
            ms(pick(|p| p.load)),
            ms(pick(|p| p.discover)),
            ms(pick(|p| p.plan)),
            ms(pick(|p| p.stream)),
            ms(pick(Phases::total)),
        );
    }

    println!("\n## Metrics config size (one GrafanaAgent)\n");
    println!(
        "| ServiceMonitors | scrape jobs | agent.yml | stored in (head + segments) | stored bytes | largest Secret | gzip of the whole text, for comparison | one gzip stream, for comparison |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in results {
        println!(
            "| {} | {} | {} | {} Secrets | {} | {} | {} | {} |",
            r.n,
            r.jobs,
            size(r.config_bytes),
            r.config_secrets,
            size(r.stored_bytes),
            size(r.largest_secret),
            size(r.config_gzip_bytes),
            size(r.single_stream_gzip_bytes),
        );
    }

    println!("\n## Against promtool (`promtool check config --syntax-only`, same scrape jobs)\n");
    println!(
        "| ServiceMonitors | scrape jobs | promtool wall | render process wall | ratio render / promtool |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for r in results {
        let promtool = median(&r.promtool);
        let render = median(&r.process.iter().map(|p| p.wall).collect::<Vec<_>>());
        println!(
            "| {} | {} | {} ms | {} ms | {:.2} |",
            r.n,
            r.jobs,
            ms(promtool),
            ms(render),
            render.as_secs_f64() / promtool.as_secs_f64(),
        );
    }
}

fn print_edit(e: &EditResult) {
    println!(
        "\n## Re-render after one ServiceMonitor edit ({} ServiceMonitors, {} monitors cached, {} edits, median)\n",
        e.n,
        e.monitors,
        e.cached_plan.len()
    );
    let discover = median(&e.discover);
    let plan = median(&e.cached_plan);
    println!("| step | time |");
    println!("|---|---:|");
    println!(
        "| metrics agent.yml text from the cache, in pieces ({} monitors reused, {} rendered, {}) | {} ms |",
        e.hits,
        e.misses,
        size(e.config_bytes),
        ms(median(&e.cached_render))
    );
    println!(
        "| its segments, incremental, from the pieces ({} of {} segments reused, {} stored: {} of text read, {} written per edit, of {} stored) | {} ms |",
        e.segments.0,
        e.segments.2,
        e.segments.1,
        size(median_bytes(&e.read_bytes)),
        size(median_bytes(&e.written_bytes)),
        size(e.stored_bytes),
        ms(median(&e.incremental_store))
    );
    println!(
        "| for comparison: the same, every part read again (hashed and searched: {}) | {} ms |",
        size(e.config_bytes),
        ms(median(&e.reread_store))
    );
    println!(
        "| **re-plan with the cache** (the two above, plus the other configs and workloads) | **{} ms** |",
        ms(plan)
    );
    println!(
        "| discover, whole hierarchy (before the re-plan) | {} ms |",
        ms(discover)
    );
    println!("| discover + re-plan | {} ms |", ms(discover + plan));
    println!(
        "| for comparison: metrics agent.yml rendered from scratch (render + YAML) | {} ms |",
        ms(e.full_render)
    );
    println!(
        "| for comparison: its segments from scratch | {} ms |",
        ms(e.full_store)
    );
    println!(
        "| for comparison: whole plan from scratch | {} ms |",
        ms(e.full_plan)
    );
    println!(
        "| first (cold) plan with an empty cache | {} ms |",
        ms(e.cold)
    );
}

/// The bytes of the Secrets a controller writes to go from the config stored as `before` to
/// the one stored as `after`: each segment whose Secret does not hold its bytes already, and
/// the head whenever anything changed (its manifest names the segments' digests).
fn bytes_written(before: &[StoredSegment], after: &[StoredSegment]) -> usize {
    let changed: usize = after
        .iter()
        .skip(1)
        .filter(|s| !before.contains(s))
        .map(|s| s.bytes.len())
        .sum();
    let head_changed = changed > 0 || before.first() != after.first();
    let head = after.first().map_or(0, |h| h.bytes.len());
    let manifest = segments::manifest_of(after).map_or(0, |m| segments::manifest_bytes(&m).len());
    changed + if head_changed { head + manifest } else { 0 }
}

/// The median of `values` (0 when empty).
fn median_bytes(values: &[usize]) -> usize {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}
