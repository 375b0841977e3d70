//! The controller benchmark of BENCHMARKS.md (`scripts/bench.sh controller` builds and runs
//! this): the real `agent-operator run` process against testkube and the real control plane.
//! Prints Markdown tables on stdout and writes the chart.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use bench::controller::agents::AgentsShapeArgs;
use bench::controller::{self, Backend, Options};
use bench::measure::{loadavg, machine};
use clap::Parser;

#[derive(Parser)]
#[command(about = "Benchmarks of agent-operator run at scale; prints Markdown tables")]
struct Args {
    /// API servers to measure against: testkube, control-plane.
    #[arg(long, value_delimiter = ',', default_value = "testkube,control-plane")]
    backends: Vec<String>,
    /// ServiceMonitor counts (plus the generator's PodMonitors, Probes and PodLogs),
    /// comma-separated; empty: none (e.g. with --agents-shape only).
    #[arg(long, default_value = "1000,10000")]
    sizes: String,
    /// Edits one at a time, per size.
    #[arg(long, default_value_t = 100)]
    edits: usize,
    /// Pause between single edits, in milliseconds (after each one was seen in the config).
    #[arg(long, default_value_t = 300)]
    edit_pause_ms: u64,
    /// Bursts per size.
    #[arg(long, default_value_t = 2)]
    bursts: usize,
    /// Edits per burst.
    #[arg(long, default_value_t = 50)]
    burst_size: usize,
    /// A burst's edits are spread evenly over this many milliseconds.
    #[arg(long, default_value_t = 1000)]
    burst_window_ms: u64,
    /// Seconds of watching for writes while nothing changes.
    #[arg(long, default_value_t = 60)]
    idle_seconds: u64,
    /// Leader failovers per size.
    #[arg(long, default_value_t = 1)]
    failovers: usize,
    /// --leader-election-lease-duration of the failover processes, in seconds.
    #[arg(long, default_value_t = 15)]
    lease_seconds: u64,
    /// Unrelated Secrets added at the largest size for the second RSS figure (0: skip).
    #[arg(long, default_value_t = 20_000)]
    unrelated_secrets: usize,
    #[arg(long, default_value_t = 10 * 1024)]
    unrelated_secret_bytes: usize,
    /// Create requests in flight while loading inputs.
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    /// The longest any single wait may take.
    #[arg(long, default_value_t = 300)]
    timeout_seconds: u64,
    /// The release binary to measure.
    #[arg(long, default_value = "target/release/agent-operator")]
    agent_operator: PathBuf,
    /// Operator logs go here.
    #[arg(long, default_value = "target/bench/controller")]
    work_dir: PathBuf,
    /// Where the chart (SVG) is written.
    #[arg(long, default_value = "benchmarks-controller.svg")]
    chart: PathBuf,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    agents: AgentsShapeArgs,
}

fn main() -> Result<()> {
    let args = Args::parse();
    ensure!(
        args.agent_operator.exists(),
        "{} is missing: build it with cargo build --release -p agent-operator",
        args.agent_operator.display()
    );
    let backends = args
        .backends
        .iter()
        .map(|b| b.parse::<Backend>())
        .collect::<Result<Vec<_>, _>>()?;
    let sizes = controller::parse_sizes(&args.sizes)?;
    let agents = args.agents.options();
    ensure!(
        !sizes.is_empty() || agents.is_some(),
        "nothing to run: give --sizes or --agents-shape"
    );
    let options = Options {
        backends,
        sizes,
        edits: args.edits,
        bursts: args.bursts,
        burst_size: args.burst_size,
        burst_window: Duration::from_millis(args.burst_window_ms),
        edit_pause: Duration::from_millis(args.edit_pause_ms),
        idle: Duration::from_secs(args.idle_seconds),
        failovers: args.failovers,
        lease_duration: Duration::from_secs(args.lease_seconds),
        unrelated_secrets: args.unrelated_secrets,
        unrelated_secret_bytes: args.unrelated_secret_bytes,
        concurrency: args.concurrency,
        timeout: Duration::from_secs(args.timeout_seconds),
        agent_operator: args.agent_operator.clone(),
        work_dir: args.work_dir.clone(),
        seed: args.seed,
    };
    let load_before = loadavg();
    let started = Instant::now();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let results = if options.sizes.is_empty() {
        Vec::new()
    } else {
        runtime.block_on(controller::run(&options))?
    };
    let agents_results = match &agents {
        Some(shape) => runtime.block_on(controller::agents::run(&options, shape))?,
        None => Vec::new(),
    };
    if !results.is_empty() {
        std::fs::write(&args.chart, controller::report::chart(&results).to_string())
            .with_context(|| format!("writing {}", args.chart.display()))?;
    }

    println!("## Machine\n");
    println!("{}", machine());
    println!(
        "- load average (1/5/15 min) before: {load_before}, after: {}; total {:.0} s; chart: {}\n",
        loadavg(),
        started.elapsed().as_secs_f64(),
        if results.is_empty() {
            "none (no sizes)".to_owned()
        } else {
            args.chart.display().to_string()
        }
    );
    if !results.is_empty() {
        print!("{}", controller::report::markdown(&results, &options));
    }
    if !agents_results.is_empty() {
        println!();
        print!(
            "{}",
            controller::agents::markdown(&agents_results, &options)
        );
    }
    Ok(())
}
