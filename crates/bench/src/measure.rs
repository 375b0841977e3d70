//! Measurements: a child process's wall time and peak RSS, the in-process phases of `render`,
//! config sizes, and the Prometheus config promtool checks for comparison.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use render::PlanOptions;
use render::manifest::{Loaded, Loader, Severity};
use serde_json::{Value, json};

/// What one run of a child process cost.
#[derive(Debug, Clone, Copy)]
pub struct ProcessRun {
    pub wall: Duration,
    /// Peak resident set size, in KiB (`ru_maxrss`).
    pub max_rss_kib: u64,
    pub user: Duration,
    pub system: Duration,
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
}

/// Where GNU time is (Debian package `time`; scripts/bench.sh installs it).
pub const GNU_TIME: &str = "/usr/bin/time";

/// Runs `program args` under GNU time and reports its wall time, and the peak RSS and CPU
/// time GNU time measured. The peak RSS must come from a small parent: Linux carries the
/// peak of the process that forked a child into the child's `ru_maxrss` (the memory map is
/// copied or shared until exec), so a large benchmark process measuring its own children
/// would report its own size for every small child.
pub fn run_measured(
    program: &Path,
    args: &[&str],
    stdout: Option<&Path>,
    scratch: &Path,
) -> Result<ProcessRun> {
    let report = scratch.join("time.txt");
    let report_arg = report.to_str().context("non-UTF-8 work dir")?;
    let program_arg = program.to_str().context("non-UTF-8 program path")?;
    let mut time_args = vec!["-f", "%M %U %S", "-o", report_arg, program_arg];
    time_args.extend_from_slice(args);
    let run = run_process(Path::new(GNU_TIME), &time_args, stdout)?;
    let text = std::fs::read_to_string(&report).with_context(|| format!("{}", report.display()))?;
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [rss, user, system] = fields[..] else {
        bail!("unexpected GNU time output: {text:?}");
    };
    let seconds = |s: &str| -> Result<Duration> {
        Ok(Duration::from_secs_f64(
            s.parse().with_context(|| format!("{s:?}"))?,
        ))
    };
    Ok(ProcessRun {
        wall: run.wall,
        max_rss_kib: rss.parse().with_context(|| format!("{rss:?}"))?,
        user: seconds(user)?,
        system: seconds(system)?,
    })
}

/// Runs `program args`, stdout to `stdout` (or discarded), and measures it with wait4(2): the
/// rusage of exactly this child (but see [`run_measured`] about its peak RSS).
pub fn run_process(program: &Path, args: &[&str], stdout: Option<&Path>) -> Result<ProcessRun> {
    let out = match stdout {
        Some(p) => {
            Stdio::from(std::fs::File::create(p).with_context(|| format!("{}", p.display()))?)
        }
        None => Stdio::null(),
    };
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", program.display()))?;
    // Drain stderr on a thread so a chatty child cannot block on a full pipe.
    let pid = libc::pid_t::try_from(child.id()).context("pid out of range")?;
    let mut stderr = child.stderr.take().context("child stderr")?;
    let drain = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let mut status: libc::c_int = 0;
    // SAFETY: `usage` is a plain C struct wait4 fills in; `pid` is our own unwaited child
    // (std's Child is not used to wait, so it is reaped exactly once, here).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    let stderr_text = drain.join().unwrap_or_default();
    if waited != pid {
        bail!("wait4 failed: {}", std::io::Error::last_os_error());
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        bail!(
            "{} {} failed (status {status}): {}",
            program.display(),
            args.join(" "),
            stderr_text.lines().take(5).collect::<Vec<_>>().join("\n")
        );
    }
    Ok(ProcessRun {
        wall,
        max_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or_default(),
        user: timeval(usage.ru_utime),
        system: timeval(usage.ru_stime),
    })
}

/// The `*.yaml` files under `dir`, sorted, as `render -f DIR` reads them.
pub fn read_inputs(dir: &Path) -> Result<Vec<(String, String)>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("listing {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    paths.retain(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"));
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).with_context(|| format!("{}", p.display()))?;
            Ok((p.display().to_string(), text))
        })
        .collect()
}

/// Parses `inputs` as `render` does.
pub fn load(inputs: &[(String, String)]) -> Loaded {
    let mut loader = Loader::new();
    for (source, text) in inputs {
        loader.add_source(source, text);
    }
    loader.finish()
}

/// The diagnostics of `loaded` at error level, as text.
pub fn errors(loaded: &Loaded) -> Vec<String> {
    loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(ToString::to_string)
        .collect()
}

/// Time of each in-process phase of one `render` (all agents).
#[derive(Debug, Clone, Copy, Default)]
pub struct Phases {
    /// Manifests to store (YAML parse, schema check, typed deserialize).
    pub load: Duration,
    pub discover: Duration,
    /// Config rendering, gzip and workloads, for every agent.
    pub plan: Duration,
    /// The object stream `render` prints.
    pub stream: Duration,
}

impl Phases {
    pub fn total(&self) -> Duration {
        self.load + self.discover + self.plan + self.stream
    }
}

/// What one in-process render produced, besides its timings.
#[derive(Debug, Clone, Default)]
pub struct RenderFacts {
    pub phases: Phases,
    pub objects_stream_bytes: usize,
    pub rejections: Vec<String>,
}

/// Runs the whole render path in-process on `inputs`, timing each phase.
pub fn render_in_process(inputs: &[(String, String)], opts: &PlanOptions) -> Result<RenderFacts> {
    let t = Instant::now();
    let loaded = load(inputs);
    let load_time = t.elapsed();
    let store = &loaded.store;

    let t = Instant::now();
    let discoveries: Vec<_> = store.agents().map(|a| render::discover(a, store)).collect();
    let discover_time = t.elapsed();

    let t = Instant::now();
    let plans: Vec<_> = discoveries.iter().map(|d| render::plan(d, opts)).collect();
    let plan_time = t.elapsed();

    let t = Instant::now();
    let stream = render::output::objects_stream(&plans)?;
    let stream_time = t.elapsed();

    Ok(RenderFacts {
        phases: Phases {
            load: load_time,
            discover: discover_time,
            plan: plan_time,
            stream: stream_time,
        },
        objects_stream_bytes: stream.len(),
        rejections: plans
            .iter()
            .flat_map(|p| &p.rejections)
            .map(ToString::to_string)
            .collect(),
    })
}

/// The size of `text` gzip-compressed as a config Secret stores it.
pub fn gzip_len(text: &str) -> Result<usize> {
    Ok(render::gzip::gzip(text)?.len())
}

/// The size of `text` as one plain gzip stream (default level), for comparison.
pub fn single_stream_gzip_len(text: &str) -> Result<usize> {
    let mut encoder = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::default());
    encoder.write_all(text.as_bytes())?;
    Ok(encoder.finish()?.len())
}

/// A Prometheus config holding every scrape job of the metrics agent.yml `metrics_config`,
/// with each `kubernetes_sd_configs` swapped for one static target: Debian's promtool is
/// built without Kubernetes service discovery. Returns the YAML and the job count.
pub fn prometheus_config(metrics_config: &Value) -> Result<(String, usize)> {
    let mut jobs = Vec::new();
    let instances = metrics_config
        .pointer("/metrics/configs")
        .and_then(Value::as_array)
        .context("no metrics.configs in the rendered config")?;
    for instance in instances {
        for job in instance
            .get("scrape_configs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let mut job = job.clone();
            if let Some(fields) = job.as_object_mut()
                && fields.remove("kubernetes_sd_configs").is_some()
            {
                fields.insert(
                    "static_configs".to_owned(),
                    json!([{"targets": ["127.0.0.1:9090"]}]),
                );
            }
            jobs.push(job);
        }
    }
    let count = jobs.len();
    let config = json!({"global": {"scrape_interval": "30s"}, "scrape_configs": jobs});
    Ok((render::yaml::to_string(&config)?, count))
}

/// Median of `values` (sorted copy; the upper middle for an even count).
pub fn median(values: &[Duration]) -> Duration {
    let mut v = values.to_vec();
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// How long `f` took, with the length it returns (the output's size).
pub fn timed(f: impl FnOnce() -> Result<usize>) -> Result<(Duration, usize)> {
    let start = Instant::now();
    let len = f()?;
    Ok((start.elapsed(), len))
}

/// A Markdown row `| name | min | median | output |` of interleaved timings.
pub fn timing_row(name: &str, times: &[Duration], len: usize) {
    let min = times.iter().min().copied().unwrap_or_default();
    println!(
        "| {name} | {} ms | {} ms | {} |",
        ms(min),
        ms(median(times)),
        size(len)
    );
}

/// Milliseconds with one decimal.
pub fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

/// Bytes as MiB or KiB, two decimals.
pub fn size(bytes: usize) -> String {
    let b = bytes as f64;
    if b >= 1024.0 * 1024.0 {
        format!("{:.2} MiB", b / 1024.0 / 1024.0)
    } else {
        format!("{:.1} KiB", b / 1024.0)
    }
}

/// The machine, for the conditions of a measurement (Markdown list items).
pub fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    let model = read("/proc/cpuinfo")
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let mem_kib: u64 = read("/proc/meminfo")
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    let kernel = read("/proc/sys/kernel/osrelease");
    format!(
        "- CPUs (nproc): {cpus}, model: {model}\n- memory: {:.1} GiB\n- kernel: {}",
        mem_kib as f64 / 1024.0 / 1024.0,
        kernel.trim()
    )
}

/// The load averages over 1, 5 and 15 minutes.
pub fn loadavg() -> String {
    read("/proc/loadavg")
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_discovery_is_swapped_for_a_static_target() {
        let config = json!({"metrics": {"configs": [
            {"name": "a/b", "scrape_configs": [
                {"job_name": "x", "kubernetes_sd_configs": [{"role": "endpoints"}]},
                {"job_name": "y", "static_configs": [{"targets": ["a:1"]}]},
            ]},
            {"name": "a/c"},
        ]}});
        let (text, jobs) = prometheus_config(&config).expect("config");
        assert_eq!(jobs, 2);
        assert!(!text.contains("kubernetes_sd_configs"), "{text}");
        assert!(text.contains("127.0.0.1:9090"), "{text}");
        assert!(text.contains("a:1"), "{text}");
    }

    #[test]
    fn median_takes_the_middle_value() {
        let d = Duration::from_millis;
        assert_eq!(median(&[d(5), d(1), d(3)]), d(3));
        assert_eq!(median(&[]), Duration::ZERO);
    }
}
