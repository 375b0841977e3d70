//! Writes a synthetic input for `agent-operator render -f DIR`.
//!
//! `generate --service-monitors 10000 --out /tmp/in` gives the shape: N ServiceMonitors,
//! N/10 PodMonitors, N/50 Probes and PodLogs over N/20 namespaces, one GrafanaAgent.

use std::path::PathBuf;

use anyhow::{Context, Result};
use bench::generate::{Params, generate};
use clap::Parser;

#[derive(Parser)]
#[command(about = "Write deterministic synthetic manifests for agent-operator render")]
struct Args {
    /// ServiceMonitors (2 endpoints each).
    #[arg(long, default_value_t = 1000)]
    service_monitors: usize,
    /// PodMonitors [default: N/10].
    #[arg(long)]
    pod_monitors: Option<usize>,
    /// Probes [default: N/50].
    #[arg(long)]
    probes: Option<usize>,
    /// PodLogs [default: N/50].
    #[arg(long)]
    pod_logs: Option<usize>,
    /// Namespaces [default: N/20, at least 1].
    #[arg(long)]
    namespaces: Option<usize>,
    /// GrafanaAgents sharing the monitors round-robin.
    #[arg(long, default_value_t = 1)]
    agents: usize,
    /// Random text added to every ServiceMonitor endpoint (to make configs large).
    #[arg(long, default_value_t = 0)]
    payload_bytes: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output directory (created; may only hold files this command wrote before).
    #[arg(long)]
    out: PathBuf,
}

fn main() -> Result<()> {
    let a = Args::parse();
    let mut p = Params::scaled(a.service_monitors, a.seed);
    p.pod_monitors = a.pod_monitors.unwrap_or(p.pod_monitors);
    p.probes = a.probes.unwrap_or(p.probes);
    p.pod_logs = a.pod_logs.unwrap_or(p.pod_logs);
    p.namespaces = a.namespaces.unwrap_or(p.namespaces).max(1);
    p.agents = a.agents.max(1);
    p.payload_bytes = a.payload_bytes;
    let corpus = generate(&p);
    let files = corpus
        .write_to(&a.out)
        .with_context(|| format!("writing {}", a.out.display()))?;
    eprintln!(
        "wrote {} files, {} bytes, to {}: {p:?}",
        files.len(),
        corpus.bytes(),
        a.out.display()
    );
    Ok(())
}
