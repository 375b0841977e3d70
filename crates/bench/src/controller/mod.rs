//! The controller benchmark (issue "Controller at scale"): the real `agent-operator run`
//! process against testkube or the real control plane, loaded with the generator's inputs.
//!
//! Per backend, sizes in ascending order on one cluster (a smaller input is a prefix of a
//! larger one, so each size only adds objects):
//! * cold start: process start until the config Secret holds every expected scrape job;
//! * edit latency: a ServiceMonitor edit returning until the config Secret (watched, decoded)
//!   holds it, one at a time and in bursts, with the config writes, reconciles and API
//!   requests they cost;
//! * writes and reconciles while idle; peak RSS;
//! * leader failover: `kill -9` of the leader until the standby holds the Lease, and until it
//!   writes an edit made right after the kill;
//! * at the largest size, peak RSS again with many unrelated Secrets in the cluster.
//!
//! Then, when asked (`--agents-shape 50000x10`), the many-agents shape ([`agents`]): on a
//! cluster of its own, ServiceMonitors over several GrafanaAgents with namespaces of their
//! own plus shared ones every agent selects; cold start until every agent's config is
//! complete, edits to own monitors, edits to shared monitors until every config holds them,
//! peak RSS.

pub mod agents;
mod cluster;
mod operator;
pub mod report;
pub mod requests;
pub mod svg;
pub mod versus;
pub mod versus_agents;
mod watch;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Secret;
use kube::Client;
use kube::api::{Api, DeleteParams};
use render::desired::PlanOptions;
pub use testenv::Backend;

use crate::generate::{
    AGENT_NAMESPACE, Corpus, Params, agent_name, documents, generate, namespace_name,
    service_monitor_name,
};
use crate::measure::{errors, load};
use cluster::{Cluster, Loaded};
use operator::{LeaderElection, OperatorProcess, RECONCILES};
use requests::Requests;
use watch::{ConfigWatch, Timed, job_names};

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    pub backends: Vec<Backend>,
    /// ServiceMonitor counts, measured in ascending order.
    pub sizes: Vec<usize>,
    /// Edits one at a time, per size.
    pub edits: usize,
    /// Pause after each single edit was seen in the config, before the next: single edits
    /// are isolated edits, as a user makes them; edits closer together than the operator's
    /// reconcile spacing are what the bursts measure.
    pub edit_pause: Duration,
    pub bursts: usize,
    pub burst_size: usize,
    /// The edits of a burst are spread evenly over this window.
    pub burst_window: Duration,
    pub idle: Duration,
    /// Failovers per size (0: none).
    pub failovers: usize,
    pub lease_duration: Duration,
    /// Unrelated Secrets added at the largest size for the second RSS figure (0: skip).
    pub unrelated_secrets: usize,
    pub unrelated_secret_bytes: usize,
    /// Requests in flight while loading.
    pub concurrency: usize,
    /// The longest any single wait may take before the run fails.
    pub timeout: Duration,
    pub agent_operator: PathBuf,
    pub work_dir: PathBuf,
    pub seed: u64,
}

/// Everything measured on one backend.
#[derive(Debug, Clone)]
pub struct BackendResult {
    pub backend: Backend,
    pub sizes: Vec<SizeResult>,
    pub unrelated: Option<UnrelatedResult>,
}

/// Everything measured at one size.
#[derive(Debug, Clone)]
pub struct SizeResult {
    pub service_monitors: usize,
    pub objects: usize,
    pub load: Loaded,
    pub jobs: usize,
    pub cold_start: Duration,
    /// The Secrets the config was stored in after the cold start (head and segments), and
    /// the bytes of data they held.
    pub config_secrets: (usize, usize),
    pub single: Vec<Duration>,
    /// Config Secret writes (head and segments) during the single edits (and the settling
    /// after them).
    pub single_writes: usize,
    /// The bytes of the config Secrets those writes left.
    pub single_bytes_written: usize,
    /// API requests of the single edits, the benchmark's own edits left out.
    pub single_requests: Requests,
    pub single_reconciles: f64,
    pub bursts: Vec<BurstResult>,
    pub idle: Duration,
    pub idle_writes: Requests,
    pub idle_reconciles: f64,
    pub peak_rss: u64,
    pub failovers: Vec<FailoverResult>,
}

#[derive(Debug, Clone)]
pub struct BurstResult {
    pub latencies: Vec<Duration>,
    pub config_writes: usize,
    pub reconciles: f64,
    /// How long issuing the burst's edits took.
    pub spread: Duration,
    /// Every edit of the burst is in the final config.
    pub all_in_final_config: bool,
}

#[derive(Debug, Clone)]
pub struct FailoverResult {
    /// Kill until the standby holds the Lease.
    pub lease_taken: Duration,
    /// Kill until the config holds an edit made right after the kill.
    pub first_write: Duration,
}

#[derive(Debug, Clone)]
pub struct UnrelatedResult {
    pub service_monitors: usize,
    pub secrets: usize,
    pub secret_bytes: usize,
    pub load: Loaded,
    pub cold_start: Duration,
    pub edits: Vec<Duration>,
    pub peak_rss: u64,
}

/// Runs everything in `options`.
pub async fn run(options: &Options) -> Result<Vec<BackendResult>> {
    std::fs::create_dir_all(&options.work_dir)?;
    let mut sizes = options.sizes.clone();
    sizes.sort_unstable();
    let mut results = Vec::new();
    for &backend in &options.backends {
        eprintln!("== controller benchmark on {backend}");
        let cluster = Cluster::start(backend).await?;
        let mut bench = Bench {
            cluster: &cluster,
            options,
            edits: 0,
            loaded: Vec::new(),
        };
        let mut per_size = Vec::new();
        for &n in &sizes {
            per_size.push(bench.size(n).await?);
        }
        let unrelated = match sizes.last() {
            Some(&n) if options.unrelated_secrets > 0 => Some(bench.unrelated(n).await?),
            _ => None,
        };
        results.push(BackendResult {
            backend,
            sizes: per_size,
            unrelated,
        });
    }
    Ok(results)
}

struct Bench<'a> {
    cluster: &'a Cluster,
    options: &'a Options,
    /// Edits made so far: each gets a marker of its own.
    edits: usize,
    /// The generated objects in the cluster now.
    loaded: Vec<serde_json::Value>,
}

/// The agent every generated monitor belongs to, and its config Secret.
fn config_secret() -> String {
    config_secret_of(0)
}

/// The config Secret of agent `a` (in [`AGENT_NAMESPACE`]).
fn config_secret_of(a: usize) -> String {
    format!("{}-config", agent_name(a))
}

/// Deletes config Secret `name` (so the operator must write it) and watches for it.
async fn fresh_config_watch(client: &Client, name: &str) -> Result<ConfigWatch> {
    let secrets: Api<Secret> = Api::namespaced(client.clone(), AGENT_NAMESPACE);
    match secrets.delete(name, &DeleteParams::default()).await {
        Ok(_) => {}
        Err(kube::Error::Api(status)) if status.code == 404 => {}
        Err(e) => return Err(e).with_context(|| format!("deleting {name} before a cold start")),
    }
    ConfigWatch::start(client, AGENT_NAMESPACE, name).await
}

impl Bench<'_> {
    fn client(&self) -> Client {
        self.cluster.client()
    }

    fn log_path(&self, what: &str) -> PathBuf {
        self.options
            .work_dir
            .join(format!("operator-{}-{what}.log", self.cluster.backend()))
    }

    fn start_operator(
        &self,
        what: &str,
        leader_election: Option<&LeaderElection>,
    ) -> Result<OperatorProcess> {
        OperatorProcess::start(
            &self.options.agent_operator,
            self.cluster.kubeconfig(),
            self.log_path(what),
            leader_election,
        )
    }

    async fn size(&mut self, n: usize) -> Result<SizeResult> {
        let o = self.options;
        let params = Params::scaled(n, o.seed);
        let docs = documents(&params);
        // Monitors are spread over n/20 namespaces, so a smaller size's monitor can sit in
        // another namespace than the same monitor at this size: those are deleted first.
        let wanted: BTreeSet<_> = docs.iter().map(cluster::identity).collect();
        let stale: Vec<&serde_json::Value> = self
            .loaded
            .iter()
            .filter(|d| !wanted.contains(&cluster::identity(d)))
            .collect();
        eprintln!(
            "   {n} ServiceMonitors: deleting {} objects of the previous size, loading {}",
            stale.len(),
            docs.len()
        );
        self.cluster.delete(&stale, o.concurrency).await?;
        let loaded = self.cluster.load(&docs, o.concurrency).await?;
        self.loaded.clone_from(&docs);
        self.cluster.ensure_agent_service_account().await?;
        let expected = expected_jobs(&params)?;
        let expected_set: BTreeSet<&str> = expected.iter().map(String::as_str).collect();

        eprintln!("   cold start ({} scrape jobs expected)", expected.len());
        let mut watch = self.fresh_config_watch().await?;
        let started = Instant::now();
        let mut op = self.start_operator(&n.to_string(), None)?;
        let complete = watch
            .wait_until(started, o.timeout, |text| job_names(text) == expected_set)
            .await
            .with_context(|| format!("cold start at {n}; operator log {}", op.log.display()))?;
        let cold_start = complete - started;
        watch.settle(Duration::from_secs(2), o.timeout).await?;
        op.check_running()?;
        let config_secrets = watch.stored();

        eprintln!("   {} single edits", o.edits);
        let requests_before = self.cluster.requests().await?;
        let writes_before = watch.writes;
        let bytes_before = watch.bytes_written;
        let reconciles_before = op.metric(RECONCILES).await?;
        let mut single = Vec::new();
        for _ in 0..o.edits {
            let (marker, returned) = self.edit(n).await?;
            let reflected = watch
                .wait_markers(returned, std::slice::from_ref(&marker), o.timeout)
                .await?;
            single.push(reflected.at[0].saturating_duration_since(returned));
            tokio::time::sleep(o.edit_pause).await;
        }
        watch.settle(Duration::from_secs(1), o.timeout).await?;
        let single_writes = watch.writes - writes_before;
        let single_bytes_written = watch.bytes_written - bytes_before;
        let single_reconciles = op.metric(RECONCILES).await? - reconciles_before;
        let single_requests = self
            .cluster
            .requests()
            .await?
            .since(&requests_before)
            .without("patch", "servicemonitors", o.edits as u64);

        let mut bursts = Vec::new();
        for b in 0..o.bursts {
            eprintln!("   burst {} of {} edits", b + 1, o.burst_size);
            bursts.push(self.burst(n, &mut watch, &op).await?);
        }

        eprintln!("   idle for {:?}", o.idle);
        watch.settle(Duration::from_secs(1), o.timeout).await?;
        let idle_before = self.cluster.requests().await?;
        let reconciles_before = op.metric(RECONCILES).await?;
        tokio::time::sleep(o.idle).await;
        let idle_writes = self.cluster.requests().await?.since(&idle_before).writes();
        let idle_reconciles = op.metric(RECONCILES).await? - reconciles_before;
        op.check_running()?;
        let peak_rss = op.peak_rss()?;
        op.stop()?;

        let mut failovers = Vec::new();
        for k in 0..o.failovers {
            eprintln!("   failover {}", k + 1);
            failovers.push(self.failover(n, k, &expected_set).await?);
        }

        Ok(SizeResult {
            service_monitors: n,
            objects: docs.len(),
            load: loaded,
            jobs: expected.len(),
            cold_start,
            config_secrets,
            single,
            single_writes,
            single_bytes_written,
            single_requests,
            single_reconciles,
            bursts,
            idle: o.idle,
            idle_writes,
            idle_reconciles,
            peak_rss,
            failovers,
        })
    }

    /// Deletes the config Secret (so the operator must write it) and watches for it.
    async fn fresh_config_watch(&self) -> Result<ConfigWatch> {
        fresh_config_watch(&self.client(), &config_secret()).await
    }

    /// Edits one ServiceMonitor (adds a relabeling whose replacement is a marker of its own);
    /// returns the marker and when the update returned.
    async fn edit(&mut self, n: usize) -> Result<(String, Instant)> {
        let (namespace, name, marker, patch) = self.next_edit(n);
        let returned = apply_edit(&self.client(), &namespace, &name, &patch).await?;
        Ok((marker, returned))
    }

    fn next_edit(&mut self, n: usize) -> (String, String, String, serde_json::Value) {
        let seq = self.edits;
        self.edits += 1;
        edit_for(seq, n, self.options.seed)
    }

    async fn burst(
        &mut self,
        n: usize,
        watch: &mut ConfigWatch,
        op: &OperatorProcess,
    ) -> Result<BurstResult> {
        let o = self.options;
        let count = o.burst_size.max(1);
        let edits: Vec<_> = (0..count).map(|_| self.next_edit(n)).collect();
        let markers: Vec<String> = edits.iter().map(|e| e.2.clone()).collect();
        let writes_before = watch.writes;
        let reconciles_before = op.metric(RECONCILES).await?;
        let started = Instant::now();
        let step = o.burst_window / u32::try_from(count).unwrap_or(u32::MAX);
        let tasks: Vec<_> = edits
            .into_iter()
            .enumerate()
            .map(|(k, (namespace, name, _, patch))| {
                let client = self.client();
                let at = started + step * u32::try_from(k).unwrap_or(u32::MAX);
                tokio::spawn(async move {
                    tokio::time::sleep_until(at.into()).await;
                    apply_edit(&client, &namespace, &name, &patch).await
                })
            })
            .collect();
        let reflected = watch.wait_markers(started, &markers, o.timeout).await?;
        let mut returned = Vec::new();
        for task in tasks {
            returned.push(task.await.context("an edit task failed")??);
        }
        let spread = returned
            .iter()
            .max()
            .map_or(Duration::ZERO, |last| *last - started);
        watch.settle(Duration::from_secs(1), o.timeout).await?;
        let all_in_final_config = markers
            .iter()
            .all(|m| memchr::memmem::find(watch.text.as_bytes(), m.as_bytes()).is_some());
        Ok(BurstResult {
            latencies: reflected
                .at
                .iter()
                .zip(&returned)
                .map(|(seen, done)| seen.saturating_duration_since(*done))
                .collect(),
            config_writes: watch.writes - writes_before,
            reconciles: op.metric(RECONCILES).await? - reconciles_before,
            spread,
            all_in_final_config,
        })
    }

    async fn failover(
        &mut self,
        n: usize,
        k: usize,
        expected: &BTreeSet<&str>,
    ) -> Result<FailoverResult> {
        let o = self.options;
        let lease_name = "agent-operator-bench".to_owned();
        let leases: Api<Lease> = Api::namespaced(self.client(), AGENT_NAMESPACE);
        match leases.delete(&lease_name, &DeleteParams::default()).await {
            Ok(_) => {}
            Err(kube::Error::Api(status)) if status.code == 404 => {}
            Err(e) => return Err(e).context("deleting the bench Lease"),
        }
        let election = |who: &str| LeaderElection {
            namespace: AGENT_NAMESPACE.to_owned(),
            lease_name: lease_name.clone(),
            identity: format!("bench-{who}-{n}-{k}"),
            lease_duration: o.lease_duration,
        };
        let (first, second) = (election("a"), election("b"));

        let mut watch = self.fresh_config_watch().await?;
        let started = Instant::now();
        let mut leader = self.start_operator(&format!("{n}-leader-{k}"), Some(&first))?;
        watch
            .wait_until(started, o.timeout, |text| job_names(text) == *expected)
            .await
            .with_context(|| format!("leader's cold start; log {}", leader.log.display()))?;
        watch.settle(Duration::from_secs(1), o.timeout).await?;
        let mut standby = self.start_operator(&format!("{n}-standby-{k}"), Some(&second))?;
        standby.wait_serving(o.timeout).await?;
        // Time for the standby to read the Lease and settle into waiting for it.
        tokio::time::sleep(Duration::from_secs(1)).await;
        let mut lease_watch = Timed::start(leases, &lease_name).await?;

        let killed = Instant::now();
        leader.kill()?;
        let (marker, _) = self.edit(n).await?;
        let first_write = watch
            .wait_markers(killed, std::slice::from_ref(&marker), o.timeout)
            .await
            .with_context(|| format!("standby's first write; log {}", standby.log.display()))?
            .at[0];
        let deadline = Instant::now() + o.timeout;
        let lease_taken = loop {
            let observed = lease_watch
                .next_before(deadline)
                .await?
                .context("the standby never held the Lease")?;
            let holder = observed
                .object
                .and_then(|l| l.spec)
                .and_then(|s| s.holder_identity);
            if holder.as_deref() == Some(second.identity.as_str()) && observed.at >= killed {
                break observed.at;
            }
        };
        standby.stop()?;
        Ok(FailoverResult {
            lease_taken: lease_taken - killed,
            first_write: first_write - killed,
        })
    }

    async fn unrelated(&mut self, n: usize) -> Result<UnrelatedResult> {
        let o = self.options;
        eprintln!(
            "   {} unrelated Secrets of {} bytes",
            o.unrelated_secrets, o.unrelated_secret_bytes
        );
        let docs = cluster::unrelated_secrets(o.unrelated_secrets, o.unrelated_secret_bytes);
        let load = self.cluster.load(&docs, o.concurrency).await?;
        let expected = expected_jobs(&Params::scaled(n, o.seed))?;
        let expected: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
        let mut watch = self.fresh_config_watch().await?;
        let started = Instant::now();
        let mut op = self.start_operator(&format!("{n}-unrelated-secrets"), None)?;
        let complete = watch
            .wait_until(started, o.timeout, |text| job_names(text) == expected)
            .await
            .with_context(|| {
                format!(
                    "cold start with unrelated Secrets; log {}",
                    op.log.display()
                )
            })?;
        watch.settle(Duration::from_secs(2), o.timeout).await?;
        let mut edits = Vec::new();
        for _ in 0..10.min(o.edits.max(1)) {
            let (marker, returned) = self.edit(n).await?;
            let reflected = watch
                .wait_markers(returned, std::slice::from_ref(&marker), o.timeout)
                .await?;
            edits.push(reflected.at[0].saturating_duration_since(returned));
        }
        op.check_running()?;
        let peak_rss = op.peak_rss()?;
        op.stop()?;
        Ok(UnrelatedResult {
            service_monitors: n,
            secrets: o.unrelated_secrets,
            secret_bytes: o.unrelated_secret_bytes,
            load,
            cold_start: complete - started,
            edits,
            peak_rss,
        })
    }
}

/// Edit number `seq` at size `n`: the ServiceMonitor's namespace and name, the edit's marker
/// and the JSON patch (a relabeling whose replacement is the marker).
fn edit_for(seq: usize, n: usize, seed: u64) -> (String, String, String, serde_json::Value) {
    // A stride coprime with the sizes spreads edits over monitors and namespaces.
    let i = (seq * EDIT_STRIDE + 13) % n.max(1);
    let namespaces = Params::scaled(n, seed).namespaces.max(1);
    let marker = format!("bench-edit-{seq:08}");
    let patch = marker_patch(&marker);
    (
        namespace_name(i % namespaces),
        service_monitor_name(i),
        marker,
        patch,
    )
}

/// A prime: successive edits `seq * EDIT_STRIDE` land on monitors far apart.
const EDIT_STRIDE: usize = 7919;

/// The JSON patch of an edit: a relabeling of the first endpoint whose replacement is `marker`.
fn marker_patch(marker: &str) -> serde_json::Value {
    serde_json::json!([{
        "op": "add",
        "path": "/spec/endpoints/0/relabelings/-",
        "value": {"targetLabel": "bench_edit", "replacement": marker},
    }])
}

/// JSON-patches one ServiceMonitor; returns when the update returned.
async fn apply_edit(
    client: &Client,
    namespace: &str,
    name: &str,
    patch: &serde_json::Value,
) -> Result<Instant> {
    let url =
        format!("/apis/monitoring.coreos.com/v1/namespaces/{namespace}/servicemonitors/{name}");
    let request = http::Request::patch(url)
        .header(http::header::CONTENT_TYPE, "application/json-patch+json")
        .body(serde_json::to_vec(patch)?)
        .context("building an edit request")?;
    client
        .request::<serde_json::Value>(request)
        .await
        .with_context(|| format!("editing ServiceMonitor {namespace}/{name}"))?;
    Ok(Instant::now())
}

/// The scrape job names `render` gives the generated input of `params` (one agent).
fn expected_jobs(params: &Params) -> Result<Vec<String>> {
    expected_jobs_of(&load_generated(&generate(params))?, 0)
}

/// Generated input, loaded as `render` reads it; fails on any error.
fn load_generated(corpus: &Corpus) -> Result<render::manifest::Loaded> {
    let loaded = load(&corpus.files);
    let errs = errors(&loaded);
    ensure!(errs.is_empty(), "generated input errors: {errs:#?}");
    Ok(loaded)
}

/// The scrape job names `render` gives agent `a` (named [`agent_name`]`(a)`) of `loaded`.
fn expected_jobs_of(loaded: &render::manifest::Loaded, a: usize) -> Result<Vec<String>> {
    let store = &loaded.store;
    let name = agent_name(a);
    let agent = store
        .agents()
        .find(|agent| agent.metadata.name.as_deref() == Some(name.as_str()))
        .with_context(|| format!("no GrafanaAgent {name}"))?;
    let discovery = render::discover(agent, store);
    let plan = render::plan(&discovery, &PlanOptions::default());
    let text = &plan
        .configs
        .iter()
        .find(|c| c.secret_name == config_secret_of(a))
        .with_context(|| format!("no metrics config planned for {name}"))?
        .text;
    Ok(job_names(text.as_str())
        .into_iter()
        .map(str::to_owned)
        .collect())
}

/// Percentile `p` (0-100) of `values` (nearest rank); zero for none.
pub fn percentile(values: &[Duration], p: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// `--sizes`: comma-separated ServiceMonitor counts; empty runs none.
pub fn parse_sizes(text: &str) -> Result<Vec<usize>> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .with_context(|| format!("--sizes: {s:?}"))
        })
        .collect()
}
