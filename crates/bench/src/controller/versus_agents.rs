//! The many-agents shape side by side (`versus-upstream --agents-shape 50000x10`): the
//! [`AgentsShape`] input, each operator alone on a fresh real control plane with the audit log
//! on, as [`super::versus`] runs the sizes.
//!
//! Per operator: cold start until each agent's config Secret holds exactly its scrape jobs
//! (when each agent got there, or what its config held at the limit); edits to the agents' own
//! monitors, round-robin over the agents, until the edited agent's config holds the edit;
//! edits to a shared monitor, until every agent's config holds it; the operator's requests (audit
//! log), CPU time and peak RSS. A memory limit guards the machine: an operator whose resident
//! memory passes it is killed, and the run reports where that happened.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::agents::AgentsOptions;
use super::cluster::Loaded;
use super::operator::{self, Flavor, OperatorProcess};
use super::requests::Requests;
use super::versus::{
    AuditLog, Cell, Options, duration_cell, fresh_control_plane, mb, number_cell, one_decimal,
    ratio, secs,
};
use super::watch::{ConfigWatch, job_names};
use super::{
    EDIT_STRIDE, apply_edit, config_secret_of, expected_jobs_of, load_generated, marker_patch,
    percentile,
};
use crate::generate::{AGENT_NAMESPACE, AgentsShape};

/// What to run beside [`Options`] (whose operators, pause, limits, concurrency, work dir and
/// seed it shares; `edits` and `upstream_edits` count the edits to own monitors).
#[derive(Debug, Clone)]
pub struct AgentsVersusOptions {
    pub shape: AgentsOptions,
    /// Edits to shared monitors for upstream (`shape.shared_edits` is ours): each costs a
    /// reconcile of every agent.
    pub upstream_shared_edits: usize,
    /// An operator whose resident memory passes this is killed (bytes).
    pub rss_limit: u64,
}

/// Everything measured for one operator on the shape.
#[derive(Debug, Clone)]
pub struct AgentsRun {
    pub operator: Flavor,
    pub shape: AgentsShape,
    pub objects: usize,
    pub load: Loaded,
    /// Expected scrape jobs, per agent.
    pub jobs: Vec<usize>,
    /// Per agent: process start until its config was complete (`None`: not by the end of the
    /// cold start).
    pub completes: Vec<Option<Duration>>,
    /// Per agent whose config was not complete: what it held.
    pub incomplete: Vec<String>,
    pub cold_cpu: Duration,
    pub cold_requests: Requests,
    pub own_planned: usize,
    pub own: Vec<Duration>,
    pub own_requests: Requests,
    pub own_cpu: Duration,
    pub own_writes: usize,
    pub shared_planned: usize,
    /// Per shared edit: until the last agent's config held it.
    pub shared: Vec<Duration>,
    pub shared_requests: Requests,
    pub shared_cpu: Duration,
    pub shared_writes: usize,
    pub peak_rss: u64,
    pub cpu_total: Duration,
    pub wall_total: Duration,
    /// Where the run stopped early, and why.
    pub stopped: Option<String>,
}

impl AgentsRun {
    fn cold_start(&self) -> Option<Duration> {
        self.completes
            .iter()
            .copied()
            .collect::<Option<Vec<_>>>()
            .and_then(|all| all.into_iter().max())
    }

    fn first_complete(&self) -> Option<Duration> {
        self.completes.iter().flatten().copied().min()
    }
}

/// Runs every operator of `options` on the shape, each on a fresh control plane.
pub async fn run(options: &Options, agents: &AgentsVersusOptions) -> Result<Vec<AgentsRun>> {
    let mut runs = Vec::new();
    for (flavor, binary) in &options.operators {
        eprintln!(
            "== {} on {} ServiceMonitors over {} agents",
            flavor.name(),
            agents.shape.service_monitors,
            agents.shape.agents
        );
        runs.push(one(options, agents, *flavor, binary).await?);
    }
    Ok(runs)
}

/// Watches the operator's resident memory; past the limit, kills it (`SIGKILL`) and reports
/// the peak it saw.
struct MemoryGuard {
    tripped: watch::Receiver<Option<u64>>,
    task: JoinHandle<()>,
}

impl MemoryGuard {
    fn start(pid: u32, limit: u64) -> MemoryGuard {
        let (trip, tripped) = watch::channel(None);
        let task = tokio::spawn(async move {
            loop {
                let Ok(kib) = operator::status_kib(pid, "VmRSS:") else {
                    return;
                };
                if kib * 1024 > limit {
                    let peak = operator::status_kib(pid, "VmHWM:").unwrap_or(kib) * 1024;
                    if let Ok(pid) = libc::pid_t::try_from(pid) {
                        // SAFETY: kill(2) on the benchmark's own child, not reaped before the
                        // OperatorProcess holding it is dropped.
                        unsafe {
                            libc::kill(pid, libc::SIGKILL);
                        }
                    }
                    let _ = trip.send(Some(peak));
                    return;
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        });
        MemoryGuard { tripped, task }
    }

    /// The peak resident memory when the guard killed the operator, `None` while it has not.
    fn tripped_at(&self) -> Option<u64> {
        *self.tripped.borrow()
    }

    /// Runs `work` unless the guard kills the operator first (then `Err(peak)`).
    async fn guard<T>(&mut self, work: impl Future<Output = T>) -> Result<T, u64> {
        if let Some(peak) = self.tripped_at() {
            return Err(peak);
        }
        let mut tripped = self.tripped.clone();
        tokio::select! {
            done = work => Ok(done),
            peak = tripped.wait_for(Option::is_some) => {
                Err(peak.ok().and_then(|p| *p).unwrap_or_default())
            }
        }
    }
}

impl Drop for MemoryGuard {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// For each agent not complete yet: takes in what its watch has buffered (waiting for nothing
/// more), records when its config became complete if it did, and otherwise says what it held.
async fn take_in_the_rest(
    watches: &mut [ConfigWatch],
    expected: &[BTreeSet<String>],
    completes: &mut [Option<Duration>],
    started: Instant,
) -> Vec<String> {
    let mut out = Vec::new();
    for (a, watch) in watches.iter_mut().enumerate() {
        if completes[a].is_some() {
            continue;
        }
        let want: BTreeSet<&str> = expected[a].iter().map(String::as_str).collect();
        if let Ok(at) = watch
            .wait_until(started, Duration::ZERO, |text| job_names(text) == want)
            .await
        {
            completes[a] = Some(at - started);
            continue;
        }
        let have = job_names(&watch.text);
        let held = if watch.text.is_empty() {
            "no config Secret".to_owned()
        } else {
            format!(
                "{} of {} scrape jobs",
                want.iter().filter(|j| have.contains(*j)).count(),
                want.len()
            )
        };
        out.push(format!("{}: {held}", config_secret_of(a)));
    }
    out
}

async fn one(
    o: &Options,
    agents: &AgentsVersusOptions,
    flavor: Flavor,
    binary: &std::path::Path,
) -> Result<AgentsRun> {
    let run_started = Instant::now();
    let shape = agents.shape.shape(o.seed);
    let dir = o.work_dir.join(format!(
        "{}-agents-{}x{}",
        flavor.name(),
        shape.service_monitors,
        shape.agents
    ));
    let (control_plane, cluster) = fresh_control_plane(&dir).await?;
    let docs = shape.documents();
    eprintln!("   loading {} objects", docs.len());
    let load = cluster.load(&docs, o.concurrency).await?;
    cluster.ensure_agent_service_account().await?;
    let loaded = load_generated(&shape.generate())?;
    let expected: Vec<BTreeSet<String>> = (0..shape.agents)
        .map(|a| Ok(expected_jobs_of(&loaded, a)?.into_iter().collect()))
        .collect::<Result<_>>()?;
    drop(loaded);
    let mut audit = AuditLog::new(&control_plane.audit_log);
    audit.take()?;
    let client = cluster.client();
    let mut watches = Vec::new();
    for a in 0..shape.agents {
        watches.push(ConfigWatch::start(&client, AGENT_NAMESPACE, &config_secret_of(a)).await?);
    }
    let kubeconfig = cluster
        .operator_kubeconfig()
        .context("the control plane has an operator kubeconfig")?
        .to_path_buf();
    eprintln!(
        "   cold start ({} scrape jobs expected in all)",
        expected.iter().map(BTreeSet::len).sum::<usize>()
    );
    let started = Instant::now();
    let mut op =
        OperatorProcess::start_flavor(flavor, binary, &kubeconfig, dir.join("operator.log"), None)?;
    let mut guard = MemoryGuard::start(op.pid(), agents.rss_limit);
    let (own_planned, shared_planned) = match flavor {
        Flavor::Ours => (o.edits, agents.shape.shared_edits),
        Flavor::Upstream => (o.upstream_edits, agents.upstream_shared_edits),
    };
    let mut run = AgentsRun {
        operator: flavor,
        objects: docs.len(),
        load,
        jobs: expected.iter().map(BTreeSet::len).collect(),
        completes: vec![None; shape.agents],
        incomplete: Vec::new(),
        cold_cpu: Duration::ZERO,
        cold_requests: Requests::default(),
        own_planned,
        own: Vec::new(),
        own_requests: Requests::default(),
        own_cpu: Duration::ZERO,
        own_writes: 0,
        shared_planned,
        shared: Vec::new(),
        shared_requests: Requests::default(),
        shared_cpu: Duration::ZERO,
        shared_writes: 0,
        peak_rss: 0,
        cpu_total: Duration::ZERO,
        wall_total: Duration::ZERO,
        stopped: None,
        shape: shape.clone(),
    };
    // CPU time as last read: a process the guard killed may have none to read any more.
    let mut cpu = Duration::ZERO;
    let mut cpu_now = |op: &OperatorProcess| {
        if let Ok(now) = op.cpu_time() {
            cpu = now;
        }
        cpu
    };

    // Cold start: each agent in turn, all within one limit from the process start (what
    // arrived while waiting on another agent is buffered, with its arrival time).
    let deadline = started + o.cold_timeout;
    let completes = &mut run.completes;
    let cold = guard
        .guard(async {
            for (a, watch) in watches.iter_mut().enumerate() {
                let want: BTreeSet<&str> = expected[a].iter().map(String::as_str).collect();
                let left = deadline.saturating_duration_since(Instant::now());
                if let Ok(at) = watch
                    .wait_until(started, left, |text| job_names(text) == want)
                    .await
                {
                    completes[a] = Some(at - started);
                }
            }
        })
        .await;
    if let Err(peak) = cold {
        run.stopped = Some(killed(peak, agents.rss_limit, "cold start"));
    }
    run.cold_cpu = cpu_now(&op);
    run.cold_requests = audit.take()?;
    if run.stopped.is_none() && run.completes.iter().any(Option::is_none) {
        run.stopped = Some(format!(
            "cold start: not every config complete within {}",
            secs(o.cold_timeout)
        ));
    }
    if run.stopped.is_some() {
        run.incomplete =
            take_in_the_rest(&mut watches, &expected, &mut run.completes, started).await;
        eprintln!(
            "   {}: {}",
            run.stopped.as_deref().unwrap_or_default(),
            run.incomplete.join("; ")
        );
    } else {
        settle(&mut guard, &mut watches, o.edit_timeout).await;
        audit.take()?;
    }

    if run.stopped.is_none() {
        eprintln!("   {own_planned} edits to own monitors");
        let writes_before: usize = watches.iter().map(|w| w.writes).sum();
        let cpu_before = cpu_now(&op);
        for seq in 0..own_planned {
            let a = seq % shape.agents;
            let (namespace, name) =
                shape.locate(shape.own_monitor(a, (seq / shape.agents) * EDIT_STRIDE + 13));
            let marker = format!("agents-edit-{seq:08}");
            let returned = apply_edit(&client, &namespace, &name, &marker_patch(&marker)).await?;
            let seen = guard
                .guard(watches[a].wait_markers(
                    returned,
                    std::slice::from_ref(&marker),
                    o.edit_timeout,
                ))
                .await;
            match seen {
                Ok(Ok(seen)) => run.own.push(seen.at[0].saturating_duration_since(returned)),
                Ok(Err(_)) => {
                    run.stopped = Some(format!(
                        "edit {} of {own_planned} to an own monitor: not in {} within {}",
                        seq + 1,
                        config_secret_of(a),
                        secs(o.edit_timeout)
                    ));
                    break;
                }
                Err(peak) => {
                    run.stopped = Some(killed(peak, agents.rss_limit, "the edits to own monitors"));
                    break;
                }
            }
            tokio::time::sleep(o.edit_pause).await;
        }
        settle(&mut guard, &mut watches, o.edit_timeout).await;
        run.own_writes = watches.iter().map(|w| w.writes).sum::<usize>() - writes_before;
        run.own_cpu = cpu_now(&op) - cpu_before;
        run.own_requests = audit.take()?;
    }

    if run.stopped.is_none() {
        eprintln!("   {shared_planned} edits to shared monitors");
        let writes_before: usize = watches.iter().map(|w| w.writes).sum();
        let cpu_before = cpu_now(&op);
        'edits: for seq in 0..shared_planned {
            let s = (seq * 37 + 5) % shape.shared_namespaces.max(1);
            let (namespace, name) = shape.locate(shape.shared_monitor(s));
            let marker = format!("shared-edit-{seq:08}");
            let returned = apply_edit(&client, &namespace, &name, &marker_patch(&marker)).await?;
            let limit = returned + o.edit_timeout;
            let mut slowest = Duration::ZERO;
            for (a, watch) in watches.iter_mut().enumerate() {
                let left = limit.saturating_duration_since(Instant::now());
                let seen = guard
                    .guard(watch.wait_markers(returned, std::slice::from_ref(&marker), left))
                    .await;
                match seen {
                    Ok(Ok(seen)) => {
                        slowest = slowest.max(seen.at[0].saturating_duration_since(returned));
                    }
                    Ok(Err(_)) => {
                        run.stopped = Some(format!(
                            "edit {} of {shared_planned} to a shared monitor: not in {} within {}",
                            seq + 1,
                            config_secret_of(a),
                            secs(o.edit_timeout)
                        ));
                        break 'edits;
                    }
                    Err(peak) => {
                        run.stopped = Some(killed(
                            peak,
                            agents.rss_limit,
                            "the edits to shared monitors",
                        ));
                        break 'edits;
                    }
                }
            }
            run.shared.push(slowest);
            tokio::time::sleep(o.edit_pause).await;
        }
        settle(&mut guard, &mut watches, o.edit_timeout).await;
        run.shared_writes = watches.iter().map(|w| w.writes).sum::<usize>() - writes_before;
        run.shared_cpu = cpu_now(&op) - cpu_before;
        run.shared_requests = audit.take()?;
    }

    run.peak_rss = match guard.tripped_at() {
        Some(peak) => peak,
        None => {
            op.check_running()?;
            op.peak_rss()?
        }
    };
    run.cpu_total = cpu_now(&op);
    op.stop()?;
    run.wall_total = run_started.elapsed();
    drop(guard);
    drop(watches);
    drop(cluster);
    drop(control_plane);
    Ok(run)
}

/// Takes in the writes trailing the last change on every watch (at most `limit` each); stops
/// early when the guard has killed the operator (the next wait reports that).
async fn settle(guard: &mut MemoryGuard, watches: &mut [ConfigWatch], limit: Duration) {
    for watch in watches {
        if guard
            .guard(watch.settle(Duration::from_millis(500), limit))
            .await
            .is_err()
        {
            return;
        }
    }
}

fn killed(peak: u64, limit: u64, during: &str) -> String {
    format!(
        "killed during {during}: resident memory {} passed the limit of {}",
        mb(peak),
        mb(limit)
    )
}

type Measure = fn(&AgentsRun) -> Cell;

fn per(count: usize, total: f64) -> Option<f64> {
    (count > 0).then(|| total / count as f64)
}

fn cpu_per(count: usize, total: Duration) -> Cell {
    duration_cell(per(count, total.as_secs_f64()).map(Duration::from_secs_f64))
}

/// Percentile `p` of `values`; none for no values.
fn percentile_cell(values: &[Duration], p: f64) -> Cell {
    duration_cell((!values.is_empty()).then(|| percentile(values, p)))
}

fn count_cell(v: Option<f64>) -> Cell {
    number_cell(v, one_decimal)
}

fn rows() -> Vec<(&'static str, Measure)> {
    let mut rows: Vec<(&'static str, Measure)> = Vec::new();
    rows.push(("first config complete", |r| {
        duration_cell(r.first_complete())
    }));
    rows.push(("cold start: every config complete", |r| {
        let done = r.completes.iter().flatten().count();
        match r.cold_start() {
            Some(d) => duration_cell(Some(d)),
            None => Cell {
                text: format!(
                    "not reached: {done} of {} configs complete",
                    r.completes.len()
                ),
                value: None,
            },
        }
    }));
    rows.push(("CPU time of the cold start", |r| {
        duration_cell(Some(r.cold_cpu))
    }));
    rows.push(("requests during the cold start", |r| {
        number_cell(Some(r.cold_requests.total() as f64), |v| format!("{v:.0}"))
    }));
    rows.push(("own edit -> its agent's config, p50", |r| {
        percentile_cell(&r.own, 50.0)
    }));
    rows.push(("own edit -> its agent's config, p99", |r| {
        percentile_cell(&r.own, 99.0)
    }));
    rows.push(("requests per own edit", |r| {
        count_cell(per(r.own.len(), r.own_requests.total() as f64))
    }));
    rows.push(("config Secret writes per own edit", |r| {
        count_cell(per(r.own.len(), r.own_writes as f64))
    }));
    rows.push(("CPU time per own edit", |r| cpu_per(r.own.len(), r.own_cpu)));
    rows.push(("shared edit -> every agent's config, p50", |r| {
        percentile_cell(&r.shared, 50.0)
    }));
    rows.push(("shared edit -> every agent's config, max", |r| {
        percentile_cell(&r.shared, 100.0)
    }));
    rows.push(("requests per shared edit", |r| {
        count_cell(per(r.shared.len(), r.shared_requests.total() as f64))
    }));
    rows.push(("config Secret writes per shared edit", |r| {
        count_cell(per(r.shared.len(), r.shared_writes as f64))
    }));
    rows.push(("CPU time per shared edit", |r| {
        cpu_per(r.shared.len(), r.shared_cpu)
    }));
    rows.push(("peak RSS", |r| {
        number_cell(Some(r.peak_rss as f64), |v| mb(v as u64))
    }));
    rows.push(("CPU time, whole run", |r| Cell {
        text: format!("{} in {} wall", secs(r.cpu_total), secs(r.wall_total)),
        value: Some(r.cpu_total.as_secs_f64()),
    }));
    rows
}

/// The shape's side-by-side table, and where a run stopped early.
pub fn markdown(runs: &[AgentsRun], options: &Options, agents: &AgentsVersusOptions) -> String {
    let mut out = String::new();
    let find = |f: Flavor| runs.iter().find(|r| r.operator == f);
    let (Some(upstream), Some(ours)) = (find(Flavor::Upstream), find(Flavor::Ours)) else {
        return out;
    };
    let s = &ours.shape;
    let _ = writeln!(
        out,
        "### Side by side: {} ServiceMonitors over {} GrafanaAgents\n\n\
         Each agent {} ServiceMonitors of its own in {} namespaces of its own, plus {} shared \
         namespaces holding one ServiceMonitor each that every agent selects; each operator alone \
         on a fresh control plane. Own edits: {} for ours, {} for upstream, round-robin over the \
         agents, each {:?} after the previous one was seen, until the edited agent's config holds \
         it. Shared edits: {} for ours, {} for upstream, until every agent's config holds it. \
         Limits: cold start {:?}, one edit {:?}; an operator whose resident memory passes {} is \
         killed.\n\n\
         | measure | upstream | ours | upstream / ours |\n|---|---:|---:|---:|",
        s.all_service_monitors(),
        s.agents,
        s.service_monitors / s.agents,
        s.namespaces_per_agent,
        s.shared_namespaces,
        options.edits,
        options.upstream_edits,
        options.edit_pause,
        agents.shape.shared_edits,
        agents.upstream_shared_edits,
        options.cold_timeout,
        options.edit_timeout,
        mb(agents.rss_limit),
    );
    for (measure, cell) in rows() {
        let (u, us) = (cell(upstream), cell(ours));
        let _ = writeln!(
            out,
            "| {measure} | {} | {} | {} |",
            u.text,
            us.text,
            ratio(&u, &us)
        );
    }
    for r in runs {
        let Some(stopped) = &r.stopped else { continue };
        let _ = writeln!(
            out,
            "\n{} stopped early: {stopped}. Own edits done: {} of {}; shared edits done: {} of \
             {}.",
            r.operator.name(),
            r.own.len(),
            r.own_planned,
            r.shared.len(),
            r.shared_planned
        );
        let done: Vec<String> = r
            .completes
            .iter()
            .enumerate()
            .filter_map(|(a, c)| Some(format!("{} at {}", config_secret_of(a), secs((*c)?))))
            .collect();
        if !done.is_empty() {
            let _ = writeln!(out, "Complete: {}.", done.join(", "));
        }
        if !r.incomplete.is_empty() {
            let _ = writeln!(out, "Incomplete: {}.", r.incomplete.join(", "));
        }
    }
    let _ = writeln!(
        out,
        "\n| operator | requests during the cold start | per own edit | per shared edit |\n\
         |---|---|---|---|"
    );
    for r in runs {
        let describe = |requests: &Requests, n: usize| {
            if n == 0 {
                "-".to_owned()
            } else {
                requests.describe_per(n)
            }
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            r.operator.name(),
            r.cold_requests.describe_per(1),
            describe(&r.own_requests, r.own.len()),
            describe(&r.shared_requests, r.shared.len()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// A process that takes `mib` of memory and then waits.
    fn hungry(mib: usize) -> std::process::Child {
        Command::new("python3")
            .arg("-c")
            .arg(format!(
                "import time\nx = bytearray({mib} * 1024 * 1024)\ntime.sleep(60)"
            ))
            .spawn()
            .expect("python3")
    }

    #[tokio::test]
    async fn the_guard_kills_a_process_past_the_limit_and_reports_its_peak() {
        let mut child = hungry(200);
        let mut guard = MemoryGuard::start(child.id(), 100_000_000);
        let outcome = guard
            .guard(tokio::time::sleep(Duration::from_secs(30)))
            .await;
        let peak = outcome.expect_err("the guard trips before 30 s");
        assert!(peak > 100_000_000, "peak {peak}");
        assert_eq!(guard.tripped_at(), Some(peak));
        let status = child.wait().expect("wait");
        assert!(!status.success(), "killed: {status}");
    }

    #[tokio::test]
    async fn the_guard_lets_work_finish_under_the_limit() {
        let mut child = hungry(10);
        let mut guard = MemoryGuard::start(child.id(), 1_000_000_000);
        let outcome = guard
            .guard(tokio::time::sleep(Duration::from_secs(2)))
            .await;
        assert!(outcome.is_ok());
        assert_eq!(guard.tripped_at(), None);
        let _ = child.kill();
        let _ = child.wait();
    }
}
