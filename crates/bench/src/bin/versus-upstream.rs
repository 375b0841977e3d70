//! Ours side by side with the upstream Grafana Agent Operator (`scripts/bench.sh
//! versus-upstream` builds both and runs this). Prints Markdown tables on stdout and writes the
//! chart.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use bench::controller::agents::AgentsShapeArgs;
use bench::controller::parse_sizes;
use bench::controller::versus::{self, Flavor, Options};
use bench::controller::versus_agents::{self, AgentsVersusOptions};
use bench::measure::{loadavg, machine};
use clap::Parser;

#[derive(Parser)]
#[command(about = "agent-operator run and the upstream Grafana Agent Operator on the same input")]
struct Args {
    /// Operators to run, in order: upstream, ours.
    #[arg(long, value_delimiter = ',', default_value = "ours,upstream")]
    operators: Vec<String>,
    /// ServiceMonitor counts (plus the generator's PodMonitors, Probes and PodLogs); '' runs
    /// none.
    #[arg(long, default_value = "1000,10000")]
    sizes: String,
    /// Isolated edits per size for ours.
    #[arg(long, default_value_t = 50)]
    edits: usize,
    /// Isolated edits per size for upstream (each takes a whole reconcile of the agent).
    #[arg(long, default_value_t = 5)]
    upstream_edits: usize,
    /// Pause after each isolated edit was seen, in milliseconds.
    #[arg(long, default_value_t = 300)]
    edit_pause_ms: u64,
    #[arg(long, default_value_t = 1)]
    bursts: usize,
    #[arg(long, default_value_t = 20)]
    burst_size: usize,
    #[arg(long, default_value_t = 1000)]
    burst_window_ms: u64,
    #[arg(long, default_value_t = 60)]
    idle_seconds: u64,
    /// The longest a cold start may take before that size is given up.
    #[arg(long, default_value_t = 600)]
    cold_timeout_seconds: u64,
    /// The longest one edit or one burst may take to reach the config.
    #[arg(long, default_value_t = 600)]
    edit_timeout_seconds: u64,
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    #[arg(long, default_value = "target/release/agent-operator")]
    agent_operator: PathBuf,
    /// The upstream operator (scripts/build-grafana-agent prints its directory).
    #[arg(long)]
    upstream: PathBuf,
    #[arg(long, default_value = "target/bench/versus-upstream")]
    work_dir: PathBuf,
    #[arg(long, default_value = "benchmarks-versus-upstream.svg")]
    chart: PathBuf,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The many-agents shape (`--edits` and `--upstream-edits` count the edits to the agents'
    /// own monitors).
    #[command(flatten)]
    agents: AgentsShapeArgs,
    /// Edits to shared ServiceMonitors for upstream (each one a reconcile of every agent).
    #[arg(long, default_value_t = 1)]
    upstream_shared_edits: usize,
    /// An operator whose resident memory passes this many MB is killed (the machine's guard),
    /// and reported as such.
    #[arg(long, default_value_t = 16000)]
    rss_limit_mb: u64,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let mut operators = Vec::new();
    for name in &args.operators {
        let (flavor, binary) = match name.trim() {
            "ours" => (Flavor::Ours, args.agent_operator.clone()),
            "upstream" => (Flavor::Upstream, args.upstream.clone()),
            other => anyhow::bail!("unknown operator {other:?} (ours, upstream)"),
        };
        ensure!(binary.exists(), "{} is missing", binary.display());
        operators.push((flavor, binary));
    }
    let options = Options {
        operators,
        sizes: parse_sizes(&args.sizes)?,
        edits: args.edits,
        upstream_edits: args.upstream_edits,
        edit_pause: Duration::from_millis(args.edit_pause_ms),
        bursts: args.bursts,
        burst_size: args.burst_size,
        burst_window: Duration::from_millis(args.burst_window_ms),
        idle: Duration::from_secs(args.idle_seconds),
        cold_timeout: Duration::from_secs(args.cold_timeout_seconds),
        edit_timeout: Duration::from_secs(args.edit_timeout_seconds),
        concurrency: args.concurrency,
        work_dir: args.work_dir.clone(),
        seed: args.seed,
    };
    let agents = args.agents.options().map(|shape| AgentsVersusOptions {
        shape,
        upstream_shared_edits: args.upstream_shared_edits,
        rss_limit: args.rss_limit_mb * 1_000_000,
    });
    ensure!(
        !options.sizes.is_empty() || agents.is_some(),
        "nothing to run: give --sizes or --agents-shape"
    );
    let load_before = loadavg();
    let started = Instant::now();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let runs = runtime.block_on(versus::run(&options))?;
    let agents_runs = match &agents {
        Some(agents) => runtime.block_on(versus_agents::run(&options, agents))?,
        None => Vec::new(),
    };
    if !runs.is_empty() {
        std::fs::write(&args.chart, versus::chart(&runs).to_string())
            .with_context(|| format!("writing {}", args.chart.display()))?;
    }
    println!("## Machine\n");
    println!("{}", machine());
    println!(
        "- load average (1/5/15 min) before: {load_before}, after: {}; total {:.0} s; chart: {}\n",
        loadavg(),
        started.elapsed().as_secs_f64(),
        args.chart.display()
    );
    if !runs.is_empty() {
        print!("{}", versus::markdown(&runs, &options));
    }
    if let Some(agents) = &agents {
        println!();
        print!(
            "{}",
            versus_agents::markdown(&agents_runs, &options, agents)
        );
    }
    Ok(())
}
