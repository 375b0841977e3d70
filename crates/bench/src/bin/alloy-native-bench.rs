//! `alloy-native-bench`: the metrics config of runtime alloy written natively
//! (`render::alloy_native`) against the static-mode agent.yml Alloy converts today
//! (`render::render_cache::render_metrics_text`, what a plan renders), on the generated corpus
//! (10k ServiceMonitors by default), as BENCHMARKS.md reports (issue 34's target: native within
//! 1.2x of static). Both are timed interleaved (one run of each per round, so both see the
//! same machine load); the minimum and the median of each are printed, with their ratio.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use api::Runtime;
use api::grafana_agent::{AlloyConfigFormat, AlloySpec};
use bench::generate::{Params, generate};
use bench::measure::{load, loadavg, median, timed, timing_row as row};
use clap::Parser;

#[derive(Parser)]
#[command(about = "native Alloy metrics config against the static-mode one, rendered in-process")]
struct Args {
    /// ServiceMonitors of the generated corpus.
    #[arg(long, default_value_t = 10_000)]
    size: usize,
    /// Rounds (one render of each per round).
    #[arg(long, default_value_t = 11)]
    runs: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let corpus = generate(&Params::scaled(args.size, args.seed));
    let loaded = load(&corpus.files);
    let store = &loaded.store;
    let agent = store
        .agents()
        .next()
        .context("the corpus has no GrafanaAgent")?;
    let mut native_agent = agent.as_ref().clone();
    native_agent.spec.runtime = Some(Runtime::Alloy);
    native_agent.spec.alloy = Some(AlloySpec {
        config_format: Some(AlloyConfigFormat::Native),
        ..Default::default()
    });
    let h = render::discover(&Arc::new(native_agent), store).hierarchy;
    ensure!(
        render::alloy_native::native_metrics(&h),
        "the corpus' agent does not qualify for a native config"
    );
    let load_before = loadavg();

    let (mut static_times, mut native_times) = (Vec::new(), Vec::new());
    let (mut static_len, mut native_len) = (0, 0);
    for _ in 0..args.runs {
        let (t, len) = timed(|| {
            let rendered =
                render::render_cache::render_metrics_text(&h)?.context("no metrics config")?;
            Ok(rendered.text.as_str().len())
        })?;
        static_times.push(t);
        static_len = len;
        let (t, len) = timed(|| {
            let rendered = render::alloy_native::metrics_text(&h)?.context("no metrics config")?;
            Ok(rendered.text.as_str().len())
        })?;
        native_times.push(t);
        native_len = len;
    }

    println!(
        "metrics config of {} ServiceMonitors for runtime alloy, {} interleaved rounds (load average before: {load_before}, after: {}):\n",
        args.size,
        args.runs,
        loadavg()
    );
    println!("| config | min | median | output |");
    println!("|---|---:|---:|---:|");
    row(
        "static agent.yml (converted by Alloy)",
        &static_times,
        static_len,
    );
    row("native Alloy syntax", &native_times, native_len);
    let ratio = |f: fn(&[Duration]) -> Duration| {
        f(&native_times).as_secs_f64() / f(&static_times).as_secs_f64()
    };
    println!(
        "\nnative / static: {:.2}x (min), {:.2}x (median)",
        ratio(|t| t.iter().min().copied().unwrap_or_default()),
        ratio(median)
    );
    Ok(())
}
