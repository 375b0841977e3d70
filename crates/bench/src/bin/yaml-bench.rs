//! `yaml-bench`: our YAML serializer (`render::yaml`) against serde-saphyr's on the metrics
//! agent.yml of the generated corpus (10k ServiceMonitors by default), as BENCHMARKS.md
//! reports. Checks first that both texts read back to the same value, then times the two
//! interleaved (one run of each per round, so both see the same machine load) and prints
//! the minimum and the median of each, and how each writes the strings a YAML 1.1 reader
//! (the agent's yaml.v2) could take for something else.

use std::time::Duration;

use anyhow::{Context, Result, ensure};
use bench::generate::{Params, generate};
use bench::measure::{load, median, timed, timing_row as row};
use clap::Parser;
use render::config::metrics;

#[derive(Parser)]
#[command(about = "render::yaml against serde-saphyr's serializer on the metrics agent.yml")]
struct Args {
    /// ServiceMonitors of the generated corpus.
    #[arg(long, default_value_t = 10_000)]
    size: usize,
    /// Rounds (one run of each serializer per round).
    #[arg(long, default_value_t = 11)]
    runs: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Strings YAML 1.1 reads as booleans, numbers, null or other non-strings.
const AMBIGUOUS: &[&str] = &[
    "yes",
    "No",
    "on",
    "OFF",
    "y",
    "n",
    "~",
    "null",
    "0x1",
    "0o17",
    "017",
    "1_000",
    "1e3",
    ".inf",
    "-.inf",
    ".NaN",
    "1:20",
    "2001-12-14",
    "+1",
    "",
    " x",
    "a: b",
    "#c",
    "true",
];

fn saphyr_options() -> serde_saphyr::SerializerOptions {
    // YAML 1.1-safe quoting (yaml_12 off) is the default; strings stay one scalar each, as
    // ours writes them (no folding of long regexes into `>` blocks).
    serde_saphyr::ser_options! {
        prefer_block_scalars: false,
    }
}

/// The read-back check parses the whole 10k config (~47 MiB, millions of nodes): the default
/// budget (250,000 nodes, 1,000,000 events, 64 MiB of scalars), sized against hostile input,
/// refuses it. Every node, event and scalar byte takes at least one byte of text, so the
/// text's length bounds them all.
fn read_back_options(text: &str) -> serde_saphyr::Options {
    let bound = text.len().max(1);
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_nodes: bound,
            max_events: 2 * bound,
            max_total_scalar_bytes: bound,
            max_reader_input_bytes: Some(bound),
        },
    }
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
    let h = render::discover(agent, store).hierarchy;
    let config = metrics::render(&h)
        .context("the agent has no MetricsInstance")?
        .config;

    let ours = render::yaml::to_string(&config)?;
    let theirs = serde_saphyr::to_string_with_options(&config, saphyr_options())?;
    let read = |text: &str| {
        serde_saphyr::from_str_with_options::<serde_json::Value>(text, read_back_options(text))
    };
    ensure!(
        read(&ours)? == read(&theirs)?,
        "the two serializers' texts read back to different values"
    );

    let (mut ours_times, mut theirs_times) = (Vec::new(), Vec::new());
    let (mut ours_len, mut theirs_len) = (0, 0);
    for _ in 0..args.runs {
        let (t, len) = timed(|| Ok(render::yaml::to_string(&config)?.len()))?;
        ours_times.push(t);
        ours_len = len;
        let (t, len) =
            timed(|| Ok(serde_saphyr::to_string_with_options(&config, saphyr_options())?.len()))?;
        theirs_times.push(t);
        theirs_len = len;
    }

    println!(
        "metrics agent.yml of {} ServiceMonitors, {} interleaved rounds:\n",
        args.size, args.runs
    );
    println!("| serializer | min | median | output |");
    println!("|---|---:|---:|---:|");
    row("render::yaml", &ours_times, ours_len);
    row("serde-saphyr", &theirs_times, theirs_len);
    let ratio = |f: fn(&[Duration]) -> Duration| {
        f(&theirs_times).as_secs_f64() / f(&ours_times).as_secs_f64()
    };
    println!(
        "\nserde-saphyr / render::yaml: {:.2}x (min), {:.2}x (median)\n",
        ratio(|t| t.iter().min().copied().unwrap_or_default()),
        ratio(median)
    );

    println!("YAML 1.1-ambiguous strings (ours | theirs):");
    for s in AMBIGUOUS {
        let ours = render::yaml::to_string(s)?;
        let theirs = serde_saphyr::to_string_with_options(s, saphyr_options())?;
        println!("  {:<12} | {}", ours.trim_end(), theirs.trim_end());
    }
    Ok(())
}
