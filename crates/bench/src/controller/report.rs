//! The controller benchmark's Markdown tables, its verdicts against the targets, and
//! its chart.

use std::fmt::Write;
use std::time::Duration;

use super::svg::{Chart, Series, Svg, side_by_side};
use super::{Backend, BackendResult, Options, SizeResult, percentile};

pub(super) fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 100.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

pub(super) fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

pub(super) fn mb(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / 1e6)
}

/// Writes that count against the operator: on the control plane, kube-apiserver's renewals
/// of its own identity Lease are left out (the benchmark's operator holds no Lease then).
fn operator_writes(backend: Backend, size: &SizeResult) -> super::Requests {
    match backend {
        Backend::ControlPlane => size.idle_writes.except_resource("leases"),
        Backend::TestKube => size.idle_writes.clone(),
    }
}

/// Every table, in the order BENCHMARKS.md shows them.
pub fn markdown(results: &[BackendResult], options: &Options) -> String {
    let mut out = String::new();
    let o = options;
    let _ = writeln!(
        out,
        "### Cold start and memory\n\n\
         Process start until the config Secret holds every scrape job `render` gives the same \
         input; peak RSS (`VmHWM`) over the cold start, the edits and the idle period.\n\n\
         | backend | ServiceMonitors | input objects | load through the API | scrape jobs | config Secrets (bytes stored) | cold start | peak RSS |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in results {
        for s in &r.sizes {
            let rate = s.load.created as f64 / s.load.took.as_secs_f64().max(1e-9);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} new in {} ({rate:.0}/s) | {} | {} ({:.2} MiB) | {} | {} |",
                r.backend,
                s.service_monitors,
                s.objects,
                s.load.created,
                secs(s.load.took),
                s.jobs,
                s.config_secrets.0,
                s.config_secrets.1 as f64 / (1024.0 * 1024.0),
                secs(s.cold_start),
                mb(s.peak_rss)
            );
        }
    }

    let _ = writeln!(
        out,
        "\n### Edit latency\n\n\
         A ServiceMonitor edit (JSON patch) returning until the watched config Secret holds it \
         (the arrival of the watch event; decoding it is not counted). One edit at a time ({:?} \
         after the previous one was seen), then bursts of {} edits spread over {:?}. Config writes (the head and the segment \
         Secrets, each write counted with the bytes of the Secret it left) and reconciles are per edit for \
         single edits and per burst for bursts.\n\n\
         | backend | ServiceMonitors | edits | p50 | p90 | p99 | max | config writes | config bytes written | reconciles |\n\
         |---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
        o.edit_pause, o.burst_size, o.burst_window
    );
    for r in results {
        for s in &r.sizes {
            let n = s.single.len().max(1) as f64;
            let _ = writeln!(
                out,
                "| {} | {} | {} one at a time | {} | {} | {} | {} | {:.2} per edit | {:.0} bytes per edit | {:.2} per edit |",
                r.backend,
                s.service_monitors,
                s.single.len(),
                ms(percentile(&s.single, 50.0)),
                ms(percentile(&s.single, 90.0)),
                ms(percentile(&s.single, 99.0)),
                ms(percentile(&s.single, 100.0)),
                s.single_writes as f64 / n,
                s.single_bytes_written as f64 / n,
                s.single_reconciles / n
            );
            if !s.bursts.is_empty() {
                let all: Vec<Duration> =
                    s.bursts.iter().flat_map(|b| b.latencies.clone()).collect();
                let list = |f: &dyn Fn(&super::BurstResult) -> String| {
                    s.bursts.iter().map(f).collect::<Vec<_>>().join(", ")
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} in {} bursts (issued over {}) | {} | {} | {} | {} | {} per burst | | {} per burst |",
                    r.backend,
                    s.service_monitors,
                    all.len(),
                    s.bursts.len(),
                    list(&|b| ms(b.spread)),
                    ms(percentile(&all, 50.0)),
                    ms(percentile(&all, 90.0)),
                    ms(percentile(&all, 99.0)),
                    ms(percentile(&all, 100.0)),
                    list(&|b| b.config_writes.to_string()),
                    list(&|b| format!("{:.0}", b.reconciles)),
                );
            }
        }
    }

    let _ = writeln!(
        out,
        "\n### API requests per edit\n\n\
         Requests the server answered during the single edits, divided by the edits; the \
         benchmark's own `patch servicemonitors` left out. testkube: its request counters; \
         control plane: kube-apiserver's `apiserver_request_total` (SSA counted as `patch`; \
         other clients, kube-controller-manager included, show up too).\n\n\
         | backend | ServiceMonitors | requests per edit (verb resource) | writes per edit |\n\
         |---|---:|---|---:|"
    );
    for r in results {
        for s in &r.sizes {
            let n = s.single.len().max(1);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:.2} |",
                r.backend,
                s.service_monitors,
                s.single_requests.describe_per(n),
                s.single_requests.writes().total() as f64 / n as f64
            );
        }
    }

    let _ = writeln!(
        out,
        "\n### While idle\n\n\
         Write requests and reconciles over an idle period after the edits (control plane: \
         kube-apiserver's renewals of its own Lease left out).\n\n\
         | backend | ServiceMonitors | idle | write requests | reconciles |\n\
         |---|---:|---:|---|---:|"
    );
    for r in results {
        for s in &r.sizes {
            let writes = operator_writes(r.backend, s);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {:.0} |",
                r.backend,
                s.service_monitors,
                secs(s.idle),
                if writes.0.is_empty() {
                    "0".to_owned()
                } else {
                    writes.describe_per(1)
                },
                s.idle_reconciles
            );
        }
    }

    if results.iter().any(|r| r.unrelated.is_some()) {
        let _ = writeln!(
            out,
            "\n### With unrelated Secrets\n\n\
             The same cluster at the largest size plus Secrets nothing references, in namespaces \
             nothing selects; the operator started again.\n\n\
             | backend | ServiceMonitors | unrelated Secrets | loaded in | cold start | edit p50 | peak RSS | peak RSS without them |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|"
        );
        for r in results {
            if let Some(u) = &r.unrelated {
                let without = r
                    .sizes
                    .iter()
                    .find(|s| s.service_monitors == u.service_monitors)
                    .map_or_else(|| "-".to_owned(), |s| mb(s.peak_rss));
                let _ = writeln!(
                    out,
                    "| {} | {} | {} of {} KiB | {} | {} | {} | {} | {} |",
                    r.backend,
                    u.service_monitors,
                    u.secrets,
                    u.secret_bytes / 1024,
                    secs(u.load.took),
                    secs(u.cold_start),
                    ms(percentile(&u.edits, 50.0)),
                    mb(u.peak_rss),
                    without
                );
            }
        }
    }

    if results
        .iter()
        .any(|r| r.sizes.iter().any(|s| !s.failovers.is_empty()))
    {
        let _ = writeln!(
            out,
            "\n### Leader failover\n\n\
             Two processes with `--leader-election` (lease {}); `kill -9` of the leader, then \
             one ServiceMonitor edit at once. The standby starts its watches when it takes the \
             Lease, so its first write includes a cold start.\n\n\
             | backend | ServiceMonitors | standby holds the Lease | standby's first config write |\n\
             |---|---:|---|---|",
            secs(o.lease_duration)
        );
        for r in results {
            for s in r.sizes.iter().filter(|s| !s.failovers.is_empty()) {
                let list = |f: &dyn Fn(&super::FailoverResult) -> Duration| {
                    s.failovers
                        .iter()
                        .map(|x| secs(f(x)))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    r.backend,
                    s.service_monitors,
                    list(&|f| f.lease_taken),
                    list(&|f| f.first_write)
                );
            }
        }
    }
    out.push_str(&targets(results, options));
    out
}

/// The targets at the largest size measured, met or missed.
fn targets(results: &[BackendResult], options: &Options) -> String {
    let mut out = String::from(
        "\n### Targets (largest size measured)\n\n| target | backend | result | |\n|---|---|---|---|\n",
    );
    let verdict = |met: bool| if met { "met" } else { "missed" };
    for r in results {
        let Some(s) = r.sizes.iter().max_by_key(|s| s.service_monitors) else {
            continue;
        };
        let b = r.backend;
        let n = s.service_monitors;
        let mut row = |target: String, result: String, met: bool| {
            let _ = writeln!(out, "| {target} | {b} | {result} | {} |", verdict(met));
        };
        row(
            format!("{n} ServiceMonitors: cold start within 5 s"),
            secs(s.cold_start),
            s.cold_start <= Duration::from_secs(5),
        );
        let limit = match b {
            Backend::TestKube => Duration::from_millis(300),
            Backend::ControlPlane => Duration::from_secs(1),
        };
        let p99 = percentile(&s.single, 99.0);
        row(
            format!("edit p99 under {}", ms(limit)),
            ms(p99),
            p99 < limit,
        );
        row(
            "one config write per edit: the segment holding it, and the head naming it".to_owned(),
            format!("{} writes for {} edits", s.single_writes, s.single.len()),
            s.single_writes <= 2 * s.single.len(),
        );
        let idle = operator_writes(b, s);
        row(
            format!("no writes while idle ({})", secs(s.idle)),
            idle.total().to_string(),
            idle.total() == 0,
        );
        row(
            "peak RSS under 250 MB".to_owned(),
            mb(s.peak_rss),
            s.peak_rss < 250_000_000,
        );
        if let Some(u) = &r.unrelated {
            row(
                format!("peak RSS under 300 MB with {} unrelated Secrets", u.secrets),
                mb(u.peak_rss),
                u.peak_rss < 300_000_000,
            );
        }
        if !s.bursts.is_empty() {
            let writes: Vec<usize> = s.bursts.iter().map(|b| b.config_writes).collect();
            let all = s.bursts.iter().all(|b| b.all_in_final_config);
            row(
                format!(
                    "a burst of {} edits: a handful of config writes (at most 5), all in the final config",
                    options.burst_size
                ),
                format!(
                    "{writes:?} writes; {}",
                    if all {
                        "all in the final config"
                    } else {
                        "EDITS MISSING"
                    }
                ),
                all && writes.iter().all(|&w| w <= 5),
            );
        }
        if let Some(worst) = s.failovers.iter().map(|f| f.first_write).max() {
            let limit = options.lease_duration + Duration::from_secs(2);
            row(
                format!("failover within the lease + 2 s ({})", secs(limit)),
                format!("first write after {}", secs(worst)),
                worst <= limit,
            );
        }
    }
    out
}

const COLORS: [&str; 2] = ["#1f77b4", "#d62728"];

/// Edit-latency percentiles and peak RSS against the number of ServiceMonitors.
pub fn chart(results: &[BackendResult]) -> Svg {
    let mut latency = Chart {
        title: "Edit to config Secret, one edit at a time".into(),
        x_label: "ServiceMonitors (log scale)".into(),
        y_label: "milliseconds".into(),
        series: Vec::new(),
        log_y: false,
    };
    let mut memory = Chart {
        title: "Operator peak RSS".into(),
        x_label: "ServiceMonitors (log scale)".into(),
        y_label: "MB".into(),
        series: Vec::new(),
        log_y: false,
    };
    for (k, r) in results.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        for (p, dashed) in [(50.0, true), (99.0, false)] {
            latency.series.push(Series {
                label: format!("{} p{p:.0}", r.backend),
                color,
                dashed,
                points: r
                    .sizes
                    .iter()
                    .map(|s| {
                        let ms = percentile(&s.single, p).as_secs_f64() * 1000.0;
                        (s.service_monitors as f64, ms)
                    })
                    .collect(),
            });
        }
        memory.series.push(Series {
            label: r.backend.to_string(),
            color,
            dashed: false,
            points: r
                .sizes
                .iter()
                .map(|s| (s.service_monitors as f64, s.peak_rss as f64 / 1e6))
                .collect(),
        });
        if let Some(u) = &r.unrelated {
            memory.series.push(Series {
                label: format!("{} + {} unrelated Secrets", r.backend, u.secrets),
                color,
                dashed: true,
                points: vec![(u.service_monitors as f64, u.peak_rss as f64 / 1e6)],
            });
        }
    }
    side_by_side(&[latency, memory])
}
