//! A smoke run of the controller benchmark (`scripts/bench.sh controller`, BENCHMARKS.md) at
//! tiny sizes, so that it cannot rot: every scenario runs against this package's
//! `agent-operator` binary on both backends the benchmark measures (testkube's fast runs are
//! what it is for). Timings are
//! printed, never asserted; what is asserted is what must hold at any speed: every edit
//! reaches the config, a burst's edits are all in the final config, nothing is written while
//! idle, the standby takes over.

use std::path::PathBuf;
use std::time::Duration;

use bench::controller::{self, Backend, Options, report};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controller_benchmark_runs_at_tiny_sizes() {
    let work_dir = std::env::temp_dir().join(format!(
        "agent-operator-controller-bench-{}",
        std::process::id()
    ));
    let options = Options {
        backends: vec![Backend::TestKube, Backend::ControlPlane],
        sizes: vec![20, 60],
        edits: 3,
        edit_pause: Duration::from_millis(300),
        bursts: 1,
        burst_size: 5,
        burst_window: Duration::from_millis(200),
        idle: Duration::from_secs(1),
        failovers: 1,
        lease_duration: Duration::from_secs(3),
        unrelated_secrets: 30,
        unrelated_secret_bytes: 1024,
        concurrency: 8,
        timeout: Duration::from_secs(120),
        agent_operator: PathBuf::from(env!("CARGO_BIN_EXE_agent-operator")),
        work_dir: work_dir.clone(),
        seed: 1,
    };
    let results = controller::run(&options).await.expect("the benchmark runs");
    let markdown = report::markdown(&results, &options);
    println!("{markdown}");

    assert_eq!(results.len(), options.backends.len());
    for r in &results {
        assert_eq!(r.sizes.len(), 2, "{}", r.backend);
        for s in &r.sizes {
            let what = format!("{} at {}", r.backend, s.service_monitors);
            assert_eq!(s.single.len(), 3, "{what}");
            assert!(s.single_writes >= 3, "{what}: every edit is a config write");
            assert!(
                s.bursts
                    .iter()
                    .all(|b| b.all_in_final_config && b.latencies.len() == 5),
                "{what}: a burst's edits are all in the final config"
            );
            let idle = match r.backend {
                Backend::ControlPlane => s.idle_writes.except_resource("leases"),
                Backend::TestKube => s.idle_writes.clone(),
            };
            assert_eq!(idle.total(), 0, "{what}: writes while idle: {idle:?}");
            assert!(s.peak_rss > 0, "{what}");
            assert_eq!(s.failovers.len(), 1, "{what}");
        }
        assert!(r.unrelated.is_some(), "{}", r.backend);
    }
    for table in [
        "### Cold start and memory",
        "### Edit latency",
        "### API requests per edit",
        "### While idle",
        "### With unrelated Secrets",
        "### Leader failover",
        "### Targets",
    ] {
        assert!(markdown.contains(table), "{table} missing");
    }
    let chart = report::chart(&results).to_string();
    assert!(chart.starts_with("<svg ") && chart.trim_end().ends_with("</svg>"));
    let _ = std::fs::remove_dir_all(work_dir);
}
