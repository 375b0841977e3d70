//! Ours side by side with the upstream Grafana Agent Operator (`scripts/bench.sh
//! versus-upstream`): the same generated input, each operator in turn on a fresh real control
//! plane with the audit log on (upstream cannot run against testkube: client-go sends protobuf
//! bodies for Services).
//!
//! Per operator and size: cold start until the config Secret holds every expected scrape job;
//! isolated edits and bursts until the config Secret holds each edit; the operator's requests
//! by verb and resource, read from kube-apiserver's audit log (the operator authenticates as
//! its ServiceAccount, bound to cluster-admin, so its requests are told apart from the
//! benchmark's and kube-controller-manager's); requests while idle; peak and steady RSS; CPU
//! time. Every wait has a limit: where an operator does not get there in time, the run records
//! how far it got and stops measuring that size.

use std::collections::{BTreeSet, HashSet};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use std::fmt::Write;

use anyhow::{Context, Result, bail};
use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, RoleRef, Subject};
use kube::api::{Api, ObjectMeta, PostParams};
use testenv::TestEnv;

use super::cluster::{Cluster, Loaded};
pub use super::operator::Flavor;
use super::operator::OperatorProcess;
use super::requests::Requests;
use super::svg::{Chart, Series, Svg, side_by_side};
use super::watch::{ConfigWatch, job_names};
use super::{apply_edit, config_secret, edit_for, expected_jobs, percentile};
use crate::generate::{AGENT_NAMESPACE, Params, documents};

/// The identity the operators run as (`<kubeconfig>.operator` of `scripts/control-plane`).
pub const OPERATOR_USER: &str = "system:serviceaccount:agent-operator:grafana-agent-operator";

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The operators, in the order they run, with their binaries.
    pub operators: Vec<(Flavor, PathBuf)>,
    /// ServiceMonitor counts, ascending.
    pub sizes: Vec<usize>,
    /// Isolated edits per size, for ours and for upstream.
    pub edits: usize,
    pub upstream_edits: usize,
    /// Pause after each isolated edit was seen, before the next.
    pub edit_pause: Duration,
    pub bursts: usize,
    pub burst_size: usize,
    pub burst_window: Duration,
    pub idle: Duration,
    /// The longest a cold start may take before the size is given up.
    pub cold_timeout: Duration,
    /// The longest one edit (or one burst) may take to reach the config.
    pub edit_timeout: Duration,
    pub concurrency: usize,
    pub work_dir: PathBuf,
    pub seed: u64,
}

/// How far a phase got.
#[derive(Debug, Clone)]
pub enum Reached {
    Done(Duration),
    /// Not within the limit: what the config held by then.
    NotWithin {
        limit: Duration,
        progress: String,
    },
}

impl Reached {
    pub fn done(&self) -> Option<Duration> {
        match self {
            Reached::Done(d) => Some(*d),
            Reached::NotWithin { .. } => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Burst {
    pub latencies: Vec<Duration>,
    pub config_writes: usize,
    pub spread: Duration,
}

/// Everything measured for one operator at one size.
#[derive(Debug, Clone)]
pub struct Run {
    pub operator: Flavor,
    pub service_monitors: usize,
    pub objects: usize,
    pub jobs: usize,
    pub load: Loaded,
    pub cold_start: Reached,
    /// CPU time of the operator process from its start to the complete config.
    pub cold_cpu: Duration,
    /// Requests from its start to the complete config.
    pub cold_requests: Requests,
    pub edits_planned: usize,
    pub edits: Vec<Duration>,
    pub edit_requests: Requests,
    pub edit_cpu: Duration,
    pub edit_writes: usize,
    pub bursts: Vec<Burst>,
    pub idle: Option<Duration>,
    pub idle_requests: Requests,
    pub idle_cpu: Duration,
    pub peak_rss: u64,
    pub steady_rss: Option<u64>,
    pub cpu_total: Duration,
    pub wall_total: Duration,
    /// Where the run stopped early, and why.
    pub stopped: Option<String>,
}

/// Runs every operator at every size, each on a fresh control plane.
pub async fn run(options: &Options) -> Result<Vec<Run>> {
    std::fs::create_dir_all(&options.work_dir)?;
    let mut sizes = options.sizes.clone();
    sizes.sort_unstable();
    let mut runs = Vec::new();
    for &n in &sizes {
        for (flavor, binary) in &options.operators {
            eprintln!("== {} at {n} ServiceMonitors", flavor.name());
            runs.push(one(options, *flavor, binary, n).await?);
        }
    }
    Ok(runs)
}

/// `scripts/control-plane` with the audit log on, stopped (and its data removed) when dropped.
pub(super) struct ControlPlane {
    child: Child,
    lifeline: Option<ChildStdin>,
    kubeconfig: PathBuf,
    pub(super) audit_log: PathBuf,
}

impl ControlPlane {
    fn start(dir: &Path) -> Result<ControlPlane> {
        let script = testenv::control_plane_script();
        let kubeconfig = dir.join("kubeconfig");
        let audit_log = dir.join("audit.log");
        let mut child = Command::new(&script)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .arg("--audit-log")
            .arg(&audit_log)
            .arg("--stop-on-eof")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting {}", script.display()))?;
        let lifeline = child.stdin.take();
        let stdout = child.stdout.take().context("no stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        if !line.starts_with("control-plane serving at https://") {
            bail!("{} printed {line:?} instead of serving", script.display());
        }
        Ok(ControlPlane {
            child,
            lifeline,
            kubeconfig,
            audit_log,
        })
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        drop(self.lifeline.take());
        let _ = self.child.wait();
    }
}

/// The operator's requests in the audit log, read as it grows.
pub(super) struct AuditLog {
    path: PathBuf,
    offset: u64,
    seen: HashSet<String>,
}

impl AuditLog {
    pub(super) fn new(path: &Path) -> AuditLog {
        AuditLog {
            path: path.to_path_buf(),
            offset: 0,
            seen: HashSet::new(),
        }
    }

    /// The operator's requests first logged since the last call, by (verb, resource).
    pub(super) fn take(&mut self) -> Result<Requests> {
        let mut file = std::fs::File::open(&self.path)
            .with_context(|| format!("opening {}", self.path.display()))?;
        file.seek(SeekFrom::Start(self.offset))?;
        let mut text = String::new();
        file.read_to_string(&mut text)?;
        // Only whole lines: the last one may still be being written.
        let end = text.rfind('\n').map_or(0, |i| i + 1);
        self.offset += end as u64;
        let mut requests = Requests::default();
        for line in text[..end].lines() {
            let event: serde_json::Value = serde_json::from_str(line)
                .with_context(|| format!("an audit event in {}", self.path.display()))?;
            if event["user"]["username"] != OPERATOR_USER {
                continue;
            }
            let id = event["auditID"].as_str().unwrap_or_default().to_owned();
            if !self.seen.insert(id) {
                continue;
            }
            let object = &event["objectRef"];
            let resource = match (object["resource"].as_str(), object["subresource"].as_str()) {
                (Some(resource), Some(sub)) => format!("{resource}/{sub}"),
                (Some(resource), None) => resource.to_owned(),
                // Discovery and other non-resource requests: the path.
                _ => event["requestURI"]
                    .as_str()
                    .unwrap_or("-")
                    .split('?')
                    .next()
                    .unwrap_or("-")
                    .to_owned(),
            };
            let verb = event["verb"].as_str().unwrap_or_default().to_owned();
            *requests.0.entry((verb, resource)).or_default() += 1;
        }
        Ok(requests)
    }
}

/// Gives the operators' ServiceAccount identity cluster-admin: both get the same rights.
async fn bind_operator(cluster: &Cluster) -> Result<()> {
    let binding = ClusterRoleBinding {
        metadata: ObjectMeta {
            name: Some("bench-operator-admin".to_owned()),
            ..ObjectMeta::default()
        },
        role_ref: RoleRef {
            api_group: "rbac.authorization.k8s.io".to_owned(),
            kind: "ClusterRole".to_owned(),
            name: "cluster-admin".to_owned(),
        },
        subjects: Some(vec![Subject {
            kind: "User".to_owned(),
            name: OPERATOR_USER.to_owned(),
            api_group: Some("rbac.authorization.k8s.io".to_owned()),
            namespace: None,
        }]),
    };
    Api::<ClusterRoleBinding>::all(cluster.client())
        .create(&PostParams::default(), &binding)
        .await
        .context("binding the operator identity to cluster-admin")?;
    Ok(())
}

/// What a config holds of `expected`, for a run that did not get there.
fn progress(text: &str, expected: &BTreeSet<&str>) -> String {
    if text.is_empty() {
        return "no config Secret written".to_owned();
    }
    let have = job_names(text);
    format!(
        "{} of {} scrape jobs in the config Secret",
        have.intersection(expected).count(),
        expected.len()
    )
}

/// A fresh control plane (audit log on) with its data in `dir` (emptied first), its client,
/// and the operators' identity bound to cluster-admin.
pub(super) async fn fresh_control_plane(dir: &Path) -> Result<(ControlPlane, Cluster)> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir)?;
    let control_plane = ControlPlane::start(dir)?;
    let env = TestEnv::connect(&control_plane.kubeconfig).await?;
    let cluster = Cluster::with_env(env).await?;
    bind_operator(&cluster).await?;
    Ok((control_plane, cluster))
}

async fn one(options: &Options, flavor: Flavor, binary: &Path, n: usize) -> Result<Run> {
    let o = options;
    let run_started = Instant::now();
    let dir = o.work_dir.join(format!("{}-{n}", flavor.name()));
    let (control_plane, cluster) = fresh_control_plane(&dir).await?;
    let params = Params::scaled(n, o.seed);
    let docs = documents(&params);
    eprintln!("   loading {} objects", docs.len());
    let load = cluster.load(&docs, o.concurrency).await?;
    cluster.ensure_agent_service_account().await?;
    let expected = expected_jobs(&params)?;
    let expected: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
    let mut audit = AuditLog::new(&control_plane.audit_log);
    audit.take()?;

    let mut watch =
        ConfigWatch::start(&cluster.client(), AGENT_NAMESPACE, &config_secret()).await?;
    let kubeconfig = cluster
        .operator_kubeconfig()
        .context("the control plane has an operator kubeconfig")?
        .to_path_buf();
    eprintln!("   cold start ({} scrape jobs expected)", expected.len());
    let started = Instant::now();
    let mut op =
        OperatorProcess::start_flavor(flavor, binary, &kubeconfig, dir.join("operator.log"), None)?;
    let mut run = Run {
        operator: flavor,
        service_monitors: n,
        objects: docs.len(),
        jobs: expected.len(),
        load,
        cold_start: Reached::NotWithin {
            limit: o.cold_timeout,
            progress: String::new(),
        },
        cold_cpu: Duration::ZERO,
        cold_requests: Requests::default(),
        edits_planned: match flavor {
            Flavor::Ours => o.edits,
            Flavor::Upstream => o.upstream_edits,
        },
        edits: Vec::new(),
        edit_requests: Requests::default(),
        edit_cpu: Duration::ZERO,
        edit_writes: 0,
        bursts: Vec::new(),
        idle: None,
        idle_requests: Requests::default(),
        idle_cpu: Duration::ZERO,
        peak_rss: 0,
        steady_rss: None,
        cpu_total: Duration::ZERO,
        wall_total: Duration::ZERO,
        stopped: None,
    };
    let finish = |run: &mut Run, op: &mut OperatorProcess| -> Result<()> {
        run.peak_rss = op.peak_rss()?;
        run.cpu_total = op.cpu_time()?;
        op.stop()?;
        run.wall_total = run_started.elapsed();
        Ok(())
    };

    match watch
        .wait_until(started, o.cold_timeout, |text| job_names(text) == expected)
        .await
    {
        Ok(at) => run.cold_start = Reached::Done(at - started),
        Err(e) => {
            op.check_running()?;
            let got = progress(&watch.text, &expected);
            eprintln!(
                "   cold start not within {:?}: {got} ({e:#})",
                o.cold_timeout
            );
            run.cold_start = Reached::NotWithin {
                limit: o.cold_timeout,
                progress: got,
            };
            run.cold_cpu = op.cpu_time()?;
            run.cold_requests = audit.take()?;
            run.stopped = Some("cold start".to_owned());
            finish(&mut run, &mut op)?;
            return Ok(run);
        }
    }
    run.cold_cpu = op.cpu_time()?;
    watch.settle(Duration::from_secs(2), o.edit_timeout).await?;
    run.cold_requests = audit.take()?;
    op.check_running()?;

    eprintln!("   {} isolated edits", run.edits_planned);
    let cpu_before = op.cpu_time()?;
    let writes_before = watch.writes;
    let mut seq = 0;
    for _ in 0..run.edits_planned {
        let (namespace, name, marker, patch) = edit_for(seq, n, o.seed);
        seq += 1;
        let returned = apply_edit(&cluster.client(), &namespace, &name, &patch).await?;
        match watch
            .wait_markers(returned, std::slice::from_ref(&marker), o.edit_timeout)
            .await
        {
            Ok(reflected) => run
                .edits
                .push(reflected.at[0].saturating_duration_since(returned)),
            Err(_) => {
                run.stopped = Some(format!(
                    "isolated edit {} of {}: not in the config Secret within {:?}",
                    run.edits.len() + 1,
                    run.edits_planned,
                    o.edit_timeout
                ));
                break;
            }
        }
        tokio::time::sleep(o.edit_pause).await;
    }
    if run.stopped.is_none() {
        watch.settle(Duration::from_secs(1), o.edit_timeout).await?;
    }
    run.edit_writes = watch.writes - writes_before;
    run.edit_cpu = op.cpu_time()? - cpu_before;
    run.edit_requests = audit.take()?;
    if run.stopped.is_some() {
        finish(&mut run, &mut op)?;
        return Ok(run);
    }

    for b in 0..o.bursts {
        eprintln!("   burst {} of {} edits", b + 1, o.burst_size);
        let count = o.burst_size.max(1);
        let edits: Vec<_> = (0..count).map(|k| edit_for(seq + k, n, o.seed)).collect();
        seq += count;
        let markers: Vec<String> = edits.iter().map(|e| e.2.clone()).collect();
        let writes_before = watch.writes;
        let burst_started = Instant::now();
        let step = o.burst_window / u32::try_from(count).unwrap_or(u32::MAX);
        let tasks: Vec<_> = edits
            .into_iter()
            .enumerate()
            .map(|(k, (namespace, name, _, patch))| {
                let client = cluster.client();
                let at = burst_started + step * u32::try_from(k).unwrap_or(u32::MAX);
                tokio::spawn(async move {
                    tokio::time::sleep_until(at.into()).await;
                    apply_edit(&client, &namespace, &name, &patch).await
                })
            })
            .collect();
        let reflected = watch
            .wait_markers(burst_started, &markers, o.edit_timeout)
            .await;
        let mut returned = Vec::new();
        for task in tasks {
            returned.push(task.await.context("an edit task failed")??);
        }
        let Ok(reflected) = reflected else {
            run.stopped = Some(format!(
                "burst {}: not every edit in the config Secret within {:?}",
                b + 1,
                o.edit_timeout
            ));
            break;
        };
        watch.settle(Duration::from_secs(1), o.edit_timeout).await?;
        run.bursts.push(Burst {
            latencies: reflected
                .at
                .iter()
                .zip(&returned)
                .map(|(seen, done)| seen.saturating_duration_since(*done))
                .collect(),
            config_writes: watch.writes - writes_before,
            spread: returned
                .iter()
                .max()
                .map_or(Duration::ZERO, |last| *last - burst_started),
        });
    }
    if run.stopped.is_some() {
        audit.take()?;
        finish(&mut run, &mut op)?;
        return Ok(run);
    }

    eprintln!("   idle for {:?}", o.idle);
    watch.settle(Duration::from_secs(1), o.edit_timeout).await?;
    audit.take()?;
    let cpu_before = op.cpu_time()?;
    tokio::time::sleep(o.idle).await;
    run.idle_requests = audit.take()?;
    run.idle_cpu = op.cpu_time()? - cpu_before;
    run.idle = Some(o.idle);
    run.steady_rss = Some(op.rss()?);
    op.check_running()?;
    finish(&mut run, &mut op)?;
    drop(watch);
    drop(cluster);
    drop(control_plane);
    Ok(run)
}

// ---------------------------------------------------------------------------------------------
// Report

pub(super) fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1.0 {
        format!("{:.0} ms", s * 1000.0)
    } else {
        format!("{s:.2} s")
    }
}

pub(super) fn mb(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / 1e6)
}

/// One cell and the number behind it (for the ratio).
pub(super) struct Cell {
    pub(super) text: String,
    pub(super) value: Option<f64>,
}

pub(super) fn duration_cell(d: Option<Duration>) -> Cell {
    Cell {
        text: d.map_or_else(|| "-".to_owned(), secs),
        value: d.map(|d| d.as_secs_f64()),
    }
}

pub(super) fn number_cell(v: Option<f64>, text: fn(f64) -> String) -> Cell {
    Cell {
        text: v.map_or_else(|| "-".to_owned(), text),
        value: v,
    }
}

pub(super) fn ratio(upstream: &Cell, ours: &Cell) -> String {
    match (upstream.value, ours.value) {
        (Some(u), Some(o)) if o > 0.0 => {
            let r = u / o;
            if r >= 10.0 {
                format!("{r:.0}x")
            } else {
                format!("{r:.1}x")
            }
        }
        (Some(u), Some(_)) if u > 0.0 => "ours: 0".to_owned(),
        (Some(_), Some(_)) => "both 0".to_owned(),
        _ => "-".to_owned(),
    }
}

fn latencies(run: &Run, p: f64) -> Option<Duration> {
    (!run.edits.is_empty()).then(|| percentile(&run.edits, p))
}

fn burst_latencies(run: &Run, p: f64) -> Option<Duration> {
    let all: Vec<Duration> = run
        .bursts
        .iter()
        .flat_map(|b| b.latencies.clone())
        .collect();
    (!all.is_empty()).then(|| percentile(&all, p))
}

fn per_edit(run: &Run, total: f64) -> Option<f64> {
    (!run.edits.is_empty()).then(|| total / run.edits.len() as f64)
}

fn per_minute(run: &Run, total: f64) -> Option<f64> {
    run.idle
        .map(|idle| total / idle.as_secs_f64().max(1e-9) * 60.0)
}

/// How one row of the side-by-side table reads a run.
type Measure = fn(&Run) -> Cell;

fn cold_start_cell(r: &Run) -> Cell {
    match &r.cold_start {
        Reached::Done(d) => duration_cell(Some(*d)),
        Reached::NotWithin { limit, progress } => Cell {
            text: format!("not within {}: {progress}", secs(*limit)),
            value: None,
        },
    }
}

fn burst_writes_cell(r: &Run) -> Cell {
    let writes: Vec<String> = r
        .bursts
        .iter()
        .map(|b| b.config_writes.to_string())
        .collect();
    Cell {
        text: if writes.is_empty() {
            "-".to_owned()
        } else {
            writes.join(", ")
        },
        value: (!r.bursts.is_empty()).then(|| {
            r.bursts.iter().map(|b| b.config_writes as f64).sum::<f64>() / r.bursts.len() as f64
        }),
    }
}

pub(super) fn one_decimal(v: f64) -> String {
    format!("{v:.1}")
}

/// The rows of the side-by-side table: what is measured, and how a run's cell reads.
fn rows() -> Vec<(&'static str, Measure)> {
    let mut rows: Vec<(&'static str, Measure)> = Vec::new();
    rows.push(("cold start to a complete config", cold_start_cell));
    rows.push(("CPU time of the cold start", |r| {
        duration_cell(Some(r.cold_cpu))
    }));
    rows.push(("requests during the cold start", |r| {
        number_cell(Some(r.cold_requests.total() as f64), |v| format!("{v:.0}"))
    }));
    rows.push(("isolated edit -> config Secret, p50", |r| {
        duration_cell(latencies(r, 50.0))
    }));
    rows.push(("isolated edit -> config Secret, p99", |r| {
        duration_cell(latencies(r, 99.0))
    }));
    rows.push(("edit in a burst -> config Secret, p50", |r| {
        duration_cell(burst_latencies(r, 50.0))
    }));
    rows.push(("edit in a burst -> config Secret, p99", |r| {
        duration_cell(burst_latencies(r, 99.0))
    }));
    rows.push(("config Secret writes per burst", burst_writes_cell));
    rows.push(("requests per isolated edit", |r| {
        number_cell(per_edit(r, r.edit_requests.total() as f64), one_decimal)
    }));
    rows.push(("write requests per isolated edit", |r| {
        number_cell(
            per_edit(r, r.edit_requests.writes().total() as f64),
            one_decimal,
        )
    }));
    rows.push(("CPU time per isolated edit", |r| {
        duration_cell(per_edit(r, r.edit_cpu.as_secs_f64()).map(Duration::from_secs_f64))
    }));
    rows.push(("requests per minute while idle", |r| {
        number_cell(per_minute(r, r.idle_requests.total() as f64), one_decimal)
    }));
    rows.push(("CPU time per minute while idle", |r| {
        duration_cell(per_minute(r, r.idle_cpu.as_secs_f64()).map(Duration::from_secs_f64))
    }));
    rows.push(("peak RSS", |r| {
        number_cell(Some(r.peak_rss as f64), |v| mb(v as u64))
    }));
    rows.push(("steady RSS (after the idle period)", |r| {
        number_cell(r.steady_rss.map(|v| v as f64), |v| mb(v as u64))
    }));
    rows.push(("CPU time, whole run", |r| Cell {
        text: format!("{} in {} wall", secs(r.cpu_total), secs(r.wall_total)),
        value: Some(r.cpu_total.as_secs_f64()),
    }));
    rows
}

/// The Markdown tables of BENCHMARKS.md's side-by-side section.
pub fn markdown(runs: &[Run], options: &Options) -> String {
    let mut out = String::new();
    let o = options;
    let _ = writeln!(
        out,
        "### Side by side\n\n\
         Each operator alone on a fresh control plane, the same generated input. Isolated \
         edits: {} for ours, {} for upstream, each {:?} after the previous one was seen; bursts: \
         {} of {} edits spread over {:?}; idle: {:?}. Limits: cold start {:?}, one edit or \
         burst {:?}.\n\n\
         | ServiceMonitors | measure | upstream | ours | upstream / ours |\n\
         |---:|---|---:|---:|---:|",
        o.edits,
        o.upstream_edits,
        o.edit_pause,
        o.bursts,
        o.burst_size,
        o.burst_window,
        o.idle,
        o.cold_timeout,
        o.edit_timeout,
    );
    let sizes: BTreeSet<usize> = runs.iter().map(|r| r.service_monitors).collect();
    for &n in &sizes {
        let find = |f: Flavor| {
            runs.iter()
                .find(|r| r.service_monitors == n && r.operator == f)
        };
        let (Some(upstream), Some(ours)) = (find(Flavor::Upstream), find(Flavor::Ours)) else {
            continue;
        };
        for (measure, cell) in rows() {
            let (u, us) = (cell(upstream), cell(ours));
            let _ = writeln!(
                out,
                "| {n} | {measure} | {} | {} | {} |",
                u.text,
                us.text,
                ratio(&u, &us)
            );
        }
    }
    let stopped: Vec<&Run> = runs.iter().filter(|r| r.stopped.is_some()).collect();
    if !stopped.is_empty() {
        let _ = writeln!(out, "\nWhere a run stopped early:\n");
        for r in stopped {
            let _ = writeln!(
                out,
                "- {} at {}: {} (isolated edits done: {} of {})",
                r.operator.name(),
                r.service_monitors,
                r.stopped.as_deref().unwrap_or_default(),
                r.edits.len(),
                r.edits_planned
            );
        }
    }

    let _ = writeln!(
        out,
        "\n### Requests by verb and resource\n\n\
         The operator's requests in kube-apiserver's audit log (its own identity; every request \
         once, watches included): during the cold start, per isolated edit, and over the idle \
         period.\n\n\
         | operator | ServiceMonitors | cold start | per isolated edit | while idle |\n\
         |---|---:|---|---|---|"
    );
    for r in runs {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            r.operator.name(),
            r.service_monitors,
            r.cold_requests.describe_per(1),
            if r.edits.is_empty() {
                "-".to_owned()
            } else {
                r.edit_requests.describe_per(r.edits.len())
            },
            if r.idle.is_some() {
                r.idle_requests.describe_per(1)
            } else {
                "-".to_owned()
            }
        );
    }
    out
}

/// Cold start, edit p50 and peak RSS against the number of ServiceMonitors, log scales.
pub fn chart(runs: &[Run]) -> Svg {
    let panel = |title: &str, y_label: &str| Chart {
        title: title.into(),
        x_label: "ServiceMonitors (log scale)".into(),
        y_label: y_label.into(),
        series: Vec::new(),
        log_y: true,
    };
    let mut cold = panel("Cold start to a complete config", "seconds (log scale)");
    let mut edit = panel("Isolated edit to config Secret, p50", "seconds (log scale)");
    let mut memory = panel("Peak RSS", "MB (log scale)");
    for (flavor, color) in [(Flavor::Upstream, "#d62728"), (Flavor::Ours, "#1f77b4")] {
        let mine: Vec<&Run> = runs.iter().filter(|r| r.operator == flavor).collect();
        let series = |points: Vec<(f64, f64)>| Series {
            label: flavor.name().to_owned(),
            color,
            dashed: false,
            points,
        };
        cold.series.push(series(
            mine.iter()
                .filter_map(|r| {
                    Some((
                        r.service_monitors as f64,
                        r.cold_start.done()?.as_secs_f64(),
                    ))
                })
                .collect(),
        ));
        edit.series.push(series(
            mine.iter()
                .filter_map(|r| {
                    Some((r.service_monitors as f64, latencies(r, 50.0)?.as_secs_f64()))
                })
                .collect(),
        ));
        memory.series.push(series(
            mine.iter()
                .map(|r| (r.service_monitors as f64, r.peak_rss as f64 / 1e6))
                .collect(),
        ));
    }
    side_by_side(&[cold, edit, memory])
}
