//! The metrics of an agent in Alloy components: per MetricsInstance one
//! `prometheus.remote_write` (its endpoints, the external labels, its WAL settings), per scrape
//! job a `discovery.kubernetes` (or inline static targets), a `discovery.relabel`, a
//! `prometheus.scrape` and, when the job relabels samples, a `prometheus.relabel`, written
//! in that order: each instance's components together, each job's in the order they feed
//! each other (Alloy's converter groups components by kind instead; the order means nothing
//! to Alloy, and this one lets a monitor's components be written on their own).
//!
//! Component labels are those Alloy's own static converter gives (`metrics_<instance>` and
//! `metrics_<instance>_<job>`, sanitised), so a switch between the two paths shows the same
//! components; they are unique because `crate::alloy` already keeps instance and job names
//! apart after sanitising.

use rayon::prelude::*;

use crate::alloy::identifier;
use crate::alloy_syntax::{Block, Body, Expr, Identifier, append_top_block};
use crate::config::common::{KubernetesSdConfig, RelabelRule, SdNamespaces};
use crate::config::metrics::global::REPLICA_LABEL_VALUE;
use crate::config::metrics::remote_write::{MetadataConfigOut, QueueConfigOut, SigV4Out};
use crate::config::metrics::scrape::StaticConfig;
use crate::config::metrics::{
    GlobalConfig, InstanceConfig, MetricsSection, RemoteWriteConfig, ScrapeConfig,
    ScrapeConfigEntry, ScrapeContext,
};
use crate::discover::Hierarchy;
use crate::expansion::{ConfigString, SHARD_VARIABLES};
use crate::rejection::Rejection;
use crate::render_cache::{BATCH_MONITORS, Monitor, PARALLEL_THRESHOLD, monitors_by_instance};

use super::http::{
    authorization, basic_auth, bearer, oauth2, proxy_settings, string_map, tls_config,
};
use super::{
    NativeError, block, component, config_string, config_string_into, duration, known, label,
    milliseconds, optional, reference,
};

/// Prometheus' (and Alloy's) defaults for a job that sets neither, nor the GrafanaAgent.
const DEFAULT_SCRAPE_INTERVAL: &str = "1m";
const DEFAULT_SCRAPE_TIMEOUT: &str = "10s";

/// Every component of `section`: per instance its `prometheus.remote_write`, then each of its
/// jobs' components in the order they feed each other (discovery, relabel, scrape, sample
/// relabel), job after job.
pub fn metrics(section: &MetricsSection) -> Result<Body, NativeError> {
    metrics_of(section, false)
}

/// [`metrics`], for pods of an Alloy cluster when `clustered`
/// ([`crate::alloy_native::clustering`]); the instances' `additionalScrapeConfigs` items are
/// written as their other jobs ([`super::additional`]).
pub fn metrics_of(section: &MetricsSection, clustered: bool) -> Result<Body, NativeError> {
    let mut body = Body::default();
    for instance in &section.configs {
        let prefix = label(format!("metrics_{}", identifier(&instance.name)))?;
        let receiver = reference("prometheus.remote_write", &prefix, "receiver");
        body.block(remote_write(section, instance, &prefix, clustered));
        let global = &section.global;
        let write = |job: &ScrapeConfig| {
            Ok(job_components(job, global, &prefix, &receiver, clustered)?.collect())
        };
        let mut items = 0..;
        for entry in &instance.scrape_configs {
            let blocks = match entry {
                ScrapeConfigEntry::Generated(job) => write(job)?,
                ScrapeConfigEntry::Verbatim(item) => {
                    let index = items.next().unwrap_or_default();
                    super::additional::components(item, &instance.name, index, write)?
                }
            };
            for block in blocks {
                body.block(block);
            }
        }
    }
    Ok(body)
}

/// The text of [`metrics`] for the agent `h`, whose `section` was rendered without its
/// monitors' jobs ([`SectionOptions::include_monitors`](crate::config::metrics::SectionOptions)):
/// each monitor's jobs rendered and written on every core, a batch at a time, and copied into
/// the text once, so that neither the agent's typed jobs nor its components are ever held
/// whole, as agent.yml is written ([`crate::render_cache`]). A rejected monitor's rejection
/// goes to `rejections`.
pub fn metrics_by_monitor(
    h: &Hierarchy,
    section: &MetricsSection,
    ctx: &ScrapeContext<'_>,
    rejections: &mut Vec<Rejection>,
) -> Result<String, NativeError> {
    let mut text = String::new();
    let clustered = crate::alloy_native::clustering(h);
    let instances = monitors_by_instance(h, &section.configs, ctx);
    for (instance, (ctx, monitors)) in section.configs.iter().zip(&instances) {
        // The section holds no monitor's job; an additional one is checked against the
        // monitors' names only in a whole section, which `metrics_of` writes.
        if let Some(entry) = instance.scrape_configs.first() {
            return Err(NativeError::Unsupported {
                job: entry.job_name().to_owned(),
                what: "a job of the instance itself written monitor by monitor".into(),
            });
        }
        let prefix = label(format!("metrics_{}", identifier(&instance.name)))?;
        let receiver = reference("prometheus.remote_write", &prefix, "receiver");
        append_top_block(
            &mut text,
            &remote_write(section, instance, &prefix, clustered),
            &SHARD_VARIABLES,
        );
        let writer = MonitorWriter {
            ctx,
            global: &section.global,
            prefix: &prefix,
            receiver: &receiver,
            clustered,
        };
        // Each task's text, kept from batch to batch: after the first batch no run's text
        // grows, and none is allocated again (their growth was a sixth of the render).
        let mut runs: Vec<MonitorsText> = Vec::new();
        let mut written = 0;
        for batch in monitors.chunks(BATCH_MONITORS) {
            let tasks = batch.len().div_ceil(RUN_MONITORS);
            if runs.len() < tasks {
                runs.resize_with(tasks, MonitorsText::default);
            }
            batch
                .par_chunks(RUN_MONITORS)
                .zip(runs.par_iter_mut())
                .for_each(|(monitors, run)| {
                    for monitor in monitors {
                        writer.add(run, monitor);
                    }
                });
            for run in &mut runs[..tasks] {
                if let Some(error) = run.error.take() {
                    return Err(error);
                }
                rejections.append(&mut run.rejections);
                if !run.text.is_empty() {
                    // Each run is top-level blocks: a blank line apart from the text's.
                    text.push('\n');
                    text.push_str(&run.text);
                    run.text.clear();
                }
            }
            written += batch.len();
            if written == batch.len() {
                // The rest of the text, at the first batch's bytes per monitor.
                let rest = monitors.len() - written;
                text.reserve(text.len() / written * rest);
            }
        }
    }
    Ok(text)
}

/// What writes one instance's monitors: its context and the labels of its components.
struct MonitorWriter<'w> {
    ctx: &'w ScrapeContext<'w>,
    global: &'w GlobalConfig,
    prefix: &'w Identifier,
    receiver: &'w Expr,
    clustered: bool,
}

/// Monitors one rayon task writes into one text.
const RUN_MONITORS: usize = PARALLEL_THRESHOLD;

/// The components of consecutive monitors, their rejections, or the error that stopped
/// them (the monitors after it are not written).
#[derive(Default)]
struct MonitorsText {
    text: String,
    rejections: Vec<Rejection>,
    error: Option<NativeError>,
}

impl MonitorWriter<'_> {
    /// Appends `monitor`'s components to `run`, or its rejection.
    fn add(&self, run: &mut MonitorsText, monitor: &Monitor<'_>) {
        if run.error.is_some() {
            return;
        }
        let jobs = match monitor.jobs(self.ctx) {
            Ok(jobs) => jobs,
            Err(rejection) => {
                run.rejections.push(rejection);
                return;
            }
        };
        for job in jobs {
            let components =
                job_into_components(job, self.global, self.prefix, self.receiver, self.clustered);
            match components {
                Ok(blocks) => {
                    for block in blocks {
                        append_top_block(&mut run.text, &block, &SHARD_VARIABLES);
                    }
                }
                Err(error) => {
                    run.error = Some(error);
                    return;
                }
            }
        }
    }
}

/// The components of `job` of the instance whose components are labelled `prefix`;
/// `clustered`: for pods of an Alloy cluster ([`crate::alloy_native::clustering`]).
fn job_components(
    job: &ScrapeConfig,
    global: &GlobalConfig,
    prefix: &Identifier,
    receiver: &Expr,
    clustered: bool,
) -> Result<impl Iterator<Item = Block>, NativeError> {
    job_into_components(job.clone(), global, prefix, receiver, clustered)
}

/// [`job_components`] of a job written once: its strings move into the components, not
/// copied (a job at 10k ServiceMonitors holds about a hundred).
fn job_into_components(
    job: ScrapeConfig,
    global: &GlobalConfig,
    prefix: &Identifier,
    receiver: &Expr,
    clustered: bool,
) -> Result<impl Iterator<Item = Block>, NativeError> {
    let job_label = label(format!("{}_{}", prefix.as_str(), identifier(&job.job_name)))?;
    let blocks = scrape_job(job, global, &job_label, receiver.clone(), clustered)?;
    Ok(blocks.into_iter().flatten())
}

/// The components of one job, by kind: `[discoveries, relabel, scrape, sample relabel]`.
fn scrape_job(
    job: ScrapeConfig,
    global: &GlobalConfig,
    label: &Identifier,
    receiver: Expr,
    clustered: bool,
) -> Result<[Vec<Block>; 4], NativeError> {
    let ScrapeConfig {
        job_name,
        honor_labels,
        honor_timestamps,
        track_timestamps_staleness,
        scrape_interval,
        scrape_timeout,
        scrape_protocols,
        fallback_scrape_protocol,
        scrape_classic_histograms,
        always_scrape_classic_histograms,
        convert_classic_histograms_to_nhcb,
        metrics_path,
        scheme,
        params,
        proxy_url,
        no_proxy,
        proxy_from_environment,
        proxy_connect_header,
        enable_http2,
        follow_redirects,
        kubernetes_sd_configs,
        static_configs,
        tls_config: tls,
        bearer_token_file,
        bearer_token,
        basic_auth: basic,
        authorization: auth,
        oauth2: oauth,
        relabel_configs,
        metric_relabel_configs,
        sample_limit,
        target_limit,
        body_size_limit,
        label_limit,
        label_name_length_limit,
        label_value_length_limit,
        native_histogram_bucket_limit,
        native_histogram_min_bucket_factor,
        keep_dropped_targets,
        scrape_config,
    } = job;
    // The settings the renderer writes for the agent only (Alloy's converter refuses them,
    // and runtime alloy warns about them instead): never set in a config for Alloy.
    let agent_only = [
        (
            "trackTimestampsStaleness",
            track_timestamps_staleness.is_some(),
        ),
        (
            "nativeHistogramBucketLimit",
            native_histogram_bucket_limit.is_some(),
        ),
        ("keepDroppedTargets", keep_dropped_targets.is_some()),
    ];
    if let Some((field, _)) = agent_only.iter().find(|(_, set)| *set) {
        return Err(NativeError::Unsupported {
            job: job_name.clone(),
            what: format!("{field}, a setting of the agent runtime only,"),
        });
    }

    let mut sds = kubernetes_sd_configs.into_iter();
    let sds = (sds.next(), sds.next(), static_configs.as_slice());
    let (discovery, targets) = match (sds, &scrape_config) {
        ((None, _, statics), Some(extra)) => {
            super::scrape_config::discoveries(&job_name, extra, statics, label)?
        }
        ((None, _, statics), None) => (Vec::new(), static_targets(statics)),
        ((Some(sd), None, []), None) => (
            vec![kubernetes_discovery_of(sd, label)],
            reference("discovery.kubernetes", label, "targets"),
        ),
        _ => {
            return Err(NativeError::Unsupported {
                job: job_name.clone(),
                what: "more than one service discovery".into(),
            });
        }
    };
    // A cluster shares the targets through its hash ring: the operator's hashmod rules would
    // make every pod (all of shard 0) keep only shard 0's share.
    let mut relabel_configs = relabel_configs;
    if clustered {
        let kept = crate::sharding::without_sharding_rules(&relabel_configs).len();
        relabel_configs.truncate(kept);
    }
    let (relabel, targets) = if relabel_configs.is_empty() {
        (None, targets)
    } else {
        let mut b = component("discovery.relabel", label);
        b.body.attribute(known("targets"), targets);
        rules_into_blocks(&mut b.body, "rule", relabel_configs);
        (Some(b), reference("discovery.relabel", label, "output"))
    };
    let (sample_relabel, forward_to) = if metric_relabel_configs.is_empty() {
        (None, receiver)
    } else {
        let mut b = component("prometheus.relabel", label);
        b.body
            .attribute(known("forward_to"), Expr::Array(vec![receiver]));
        rules_into_blocks(&mut b.body, "rule", metric_relabel_configs);
        (Some(b), reference("prometheus.relabel", label, "receiver"))
    };

    let mut scrape = component("prometheus.scrape", label);
    let body = &mut scrape.body;
    body.attribute(known("targets"), targets)
        .attribute(known("forward_to"), Expr::Array(vec![forward_to]))
        .attribute(known("job_name"), Expr::string(&job_name));
    optional(body, "honor_labels", honor_labels.map(Expr::Bool));
    optional(body, "honor_timestamps", honor_timestamps.map(Expr::Bool));
    // Prometheus 3's name; the Prometheus 2 one is the agent's, for the same field.
    let classic = always_scrape_classic_histograms.or(scrape_classic_histograms);
    optional(body, "scrape_classic_histograms", classic.map(Expr::Bool));
    optional(
        body,
        "convert_classic_histograms_to_nhcb",
        convert_classic_histograms_to_nhcb.map(Expr::Bool),
    );
    if !scrape_protocols.is_empty() {
        body.attribute(known("scrape_protocols"), Expr::strings(scrape_protocols));
    }
    optional(
        body,
        "scrape_fallback_protocol",
        fallback_scrape_protocol.map(Expr::String),
    );
    if !params.is_empty() {
        let params = params
            .into_iter()
            .map(|(k, values)| (k, Expr::strings(values)))
            .collect();
        body.attribute(known("params"), Expr::Object(params));
    }
    // The agent's defaults for jobs without their own; Alloy's component has no global.
    let interval = scrape_interval.as_ref().or(global.scrape_interval.as_ref());
    optional(body, "scrape_interval", interval.map(|d| duration(d)));
    // A job without a timeout gets the GrafanaAgent's (else 10s), shortened to the interval
    // when longer, as Prometheus does; Alloy would refuse the job instead.
    let timeout = scrape_timeout.as_deref().or_else(|| {
        let interval = interval.map_or(DEFAULT_SCRAPE_INTERVAL, String::as_str);
        let inherited = global.scrape_timeout.as_deref();
        let longer =
            milliseconds(inherited.unwrap_or(DEFAULT_SCRAPE_TIMEOUT))? > milliseconds(interval)?;
        if longer { Some(interval) } else { inherited }
    });
    optional(body, "scrape_timeout", timeout.map(duration));
    optional(body, "metrics_path", metrics_path.map(Expr::String));
    optional(body, "scheme", scheme.map(Expr::String));
    optional(body, "sample_limit", sample_limit.map(int));
    optional(body, "target_limit", target_limit.map(int));
    optional(body, "body_size_limit", body_size_limit.map(Expr::String));
    optional(body, "label_limit", label_limit.map(int));
    optional(
        body,
        "label_name_length_limit",
        label_name_length_limit.map(int),
    );
    optional(
        body,
        "label_value_length_limit",
        label_value_length_limit.map(int),
    );
    optional(
        body,
        "native_histogram_min_bucket_factor",
        native_histogram_min_bucket_factor
            .as_ref()
            .map(|f| Expr::Float(f.0)),
    );
    proxy_settings(
        body,
        proxy_url.as_deref(),
        no_proxy.as_deref(),
        proxy_from_environment,
        &proxy_connect_header,
    );
    optional(body, "follow_redirects", follow_redirects.map(Expr::Bool));
    optional(body, "enable_http2", enable_http2.map(Expr::Bool));
    if let Some(b) = &basic {
        basic_auth(body, b);
    }
    if let Some(a) = &auth {
        authorization(body, a);
    }
    bearer(body, bearer_token.as_deref(), bearer_token_file.as_deref());
    if let Some(o) = &oauth {
        oauth2(body, o);
    }
    if let Some(t) = &tls {
        tls_config(body, t);
    }
    if let Some(extra) = &scrape_config {
        super::scrape_config::scrape_settings(body, &job_name, extra)?;
    }
    if clustered {
        let mut b = block("clustering");
        b.body.attribute(known("enabled"), Expr::Bool(true));
        body.block(b);
    }
    Ok([
        discovery,
        relabel.into_iter().collect(),
        vec![scrape],
        sample_relabel.into_iter().collect(),
    ])
}

pub(super) fn kubernetes_discovery(sd: &KubernetesSdConfig, label: &Identifier) -> Block {
    kubernetes_discovery_of(sd.clone(), label)
}

/// [`kubernetes_discovery`], its strings moved into the component.
fn kubernetes_discovery_of(sd: KubernetesSdConfig, label: &Identifier) -> Block {
    let KubernetesSdConfig {
        role,
        namespaces,
        api_server,
        basic_auth: basic,
        authorization: auth,
        tls_config: tls,
        attach_metadata,
        selectors,
    } = sd;
    let mut b = component("discovery.kubernetes", label);
    let body = &mut b.body;
    body.attribute(known("role"), Expr::String(role));
    optional(body, "api_server", api_server.map(Expr::String));
    if let Some(SdNamespaces { names }) = namespaces {
        let mut n = block("namespaces");
        n.body.attribute(known("names"), Expr::strings(names));
        body.block(n);
    }
    for selector in selectors {
        let mut b = block("selectors");
        b.body
            .attribute(known("role"), Expr::String(selector.role))
            .attribute(known("label"), Expr::String(selector.label));
        body.block(b);
    }
    if let Some(metadata) = attach_metadata {
        let mut b = block("attach_metadata");
        b.body.attribute(known("node"), Expr::Bool(metadata.node));
        body.block(b);
    }
    if let Some(a) = &basic {
        basic_auth(body, a);
    }
    if let Some(a) = &auth {
        authorization(body, a);
    }
    if let Some(t) = &tls {
        tls_config(body, t);
    }
    b
}

/// Static targets as Alloy takes them: one object per target, its group's labels beside its
/// `__address__`.
pub(super) fn static_targets(groups: &[StaticConfig]) -> Expr {
    Expr::Array(
        groups
            .iter()
            .flat_map(|group| {
                group.targets.iter().map(|target| {
                    let mut labels = vec![("__address__".to_owned(), Expr::string(target))];
                    labels.extend(
                        group
                            .labels
                            .iter()
                            .map(|(k, v)| (k.clone(), Expr::string(v))),
                    );
                    Expr::Object(labels)
                })
            })
            .collect(),
    )
}

/// One `block_name` block per rule, its fields under Alloy's names.
pub(super) fn rules(out: &mut Body, block_name: &'static str, rules: &[RelabelRule]) {
    rules_into_blocks(out, block_name, rules.to_vec());
}

/// [`rules`], the rules' strings moved into the blocks.
fn rules_into_blocks(out: &mut Body, block_name: &'static str, rules: Vec<RelabelRule>) {
    out.blocks.reserve_exact(rules.len());
    for rule in rules {
        let RelabelRule {
            source_labels,
            separator,
            regex,
            modulus,
            target_label,
            replacement,
            action,
        } = rule;
        let mut b = block(block_name);
        let fields = [
            !source_labels.is_empty(),
            separator.is_some(),
            regex.is_some(),
            modulus.is_some(),
            target_label.is_some(),
            replacement.is_some(),
            action.is_some(),
        ];
        b.body
            .attributes
            .reserve_exact(fields.iter().filter(|set| **set).count());
        if !source_labels.is_empty() {
            b.body
                .attribute(known("source_labels"), Expr::strings(source_labels));
        }
        optional(&mut b.body, "separator", separator.map(Expr::String));
        optional(&mut b.body, "regex", regex.map(config_string_into));
        optional(&mut b.body, "modulus", modulus.map(int));
        optional(&mut b.body, "target_label", target_label.map(Expr::String));
        optional(&mut b.body, "replacement", replacement.map(Expr::String));
        // Prometheus reads actions in any case; Alloy's names are lower case.
        let action = action.map(|mut action| {
            action.make_ascii_lowercase();
            Expr::String(action)
        });
        optional(&mut b.body, "action", action);
        out.block(b);
    }
}

/// The replica label's value in an Alloy cluster: the pods of one cluster are one replica
/// between them, so a target that moves to another pod keeps its series (by pod ordinal, a
/// remote store deduplicating HA pairs would keep only one pod's samples), and each replica's
/// cluster (`spec.metrics.replicas` of them, one StatefulSet each) sets its own number in
/// [`CLUSTER_REPLICA`](crate::loader_variables::CLUSTER_REPLICA). One text for every pod.
pub const CLUSTER_REPLICA_VALUE: &str = "replica-$(CLUSTER_REPLICA)";

/// The instance's `prometheus.remote_write`: its own endpoints, else the GrafanaAgent's (as
/// the agent falls back to `global.remote_write`), the external labels, and the WAL settings.
fn remote_write(
    section: &MetricsSection,
    instance: &InstanceConfig,
    label: &Identifier,
    clustered: bool,
) -> Block {
    let InstanceConfig {
        name: _,
        wal_truncate_frequency,
        min_wal_time,
        max_wal_time,
        remote_flush_deadline: _,
        write_stale_on_shutdown: _,
        remote_write: own,
        scrape_configs: _,
    } = instance;
    let mut b = component("prometheus.remote_write", label);
    let labels = &section.global.external_labels;
    if !labels.is_empty() {
        let labels = labels
            .iter()
            .map(|(k, v)| match v {
                ConfigString::PodVariable(value) if clustered && value == REPLICA_LABEL_VALUE => (
                    k.clone(),
                    Expr::PodVariable(CLUSTER_REPLICA_VALUE.to_owned()),
                ),
                _ => (k.clone(), config_string(v)),
            })
            .collect();
        b.body
            .attribute(known("external_labels"), Expr::Object(labels));
    }
    let endpoints = if own.is_empty() {
        &section.global.remote_write
    } else {
        own
    };
    for rw in endpoints {
        b.body.block(endpoint(rw));
    }
    if wal_truncate_frequency.is_some() || min_wal_time.is_some() || max_wal_time.is_some() {
        let mut wal = block("wal");
        let durations = [
            ("truncate_frequency", wal_truncate_frequency),
            ("min_keepalive_time", min_wal_time),
            ("max_keepalive_time", max_wal_time),
        ];
        for (key, value) in durations {
            optional(&mut wal.body, key, value.as_deref().map(duration));
        }
        b.body.block(wal);
    }
    b
}

fn endpoint(rw: &RemoteWriteConfig) -> Block {
    let RemoteWriteConfig {
        url,
        name: endpoint_name,
        remote_timeout,
        headers,
        write_relabel_configs,
        tls_config: tls,
        basic_auth: basic,
        oauth2: oauth,
        authorization: auth,
        sigv4,
        proxy_url,
        queue_config,
        metadata_config,
    } = rw;
    let mut b = block("endpoint");
    let body = &mut b.body;
    optional(body, "name", endpoint_name.as_deref().map(Expr::string));
    body.attribute(known("url"), Expr::string(url));
    optional(
        body,
        "remote_timeout",
        remote_timeout.as_deref().map(duration),
    );
    if !headers.is_empty() {
        body.attribute(known("headers"), string_map(headers));
    }
    optional(body, "proxy_url", proxy_url.as_deref().map(Expr::string));
    if let Some(a) = basic {
        basic_auth(body, a);
    }
    if let Some(a) = auth {
        authorization(body, a);
    }
    if let Some(o) = oauth {
        oauth2(body, o);
    }
    if let Some(t) = tls {
        tls_config(body, t);
    }
    if let Some(s) = sigv4 {
        body.block(sigv4_block(s));
    }
    if let Some(q) = queue_config {
        body.block(queue(q));
    }
    if let Some(m) = metadata_config {
        body.block(metadata(m));
    }
    rules(body, "write_relabel_config", write_relabel_configs);
    b
}

fn sigv4_block(s: &SigV4Out) -> Block {
    let SigV4Out {
        region,
        access_key,
        secret_key,
        profile,
        role_arn,
    } = s;
    let mut b = block("sigv4");
    let fields = [
        ("region", region),
        ("access_key", access_key),
        ("secret_key", secret_key),
        ("profile", profile),
        ("role_arn", role_arn),
    ];
    for (key, value) in fields {
        optional(&mut b.body, key, value.as_deref().map(Expr::string));
    }
    b
}

fn queue(q: &QueueConfigOut) -> Block {
    let QueueConfigOut {
        capacity,
        max_shards,
        min_shards,
        max_samples_per_send,
        batch_send_deadline,
        min_backoff,
        max_backoff,
    } = q;
    let mut b = block("queue_config");
    let counts = [
        ("capacity", capacity),
        ("max_shards", max_shards),
        ("min_shards", min_shards),
        ("max_samples_per_send", max_samples_per_send),
    ];
    for (key, value) in counts {
        optional(&mut b.body, key, value.map(Expr::Int));
    }
    let durations = [
        ("batch_send_deadline", batch_send_deadline),
        ("min_backoff", min_backoff),
        ("max_backoff", max_backoff),
    ];
    for (key, value) in durations {
        optional(&mut b.body, key, value.as_deref().map(duration));
    }
    b
}

fn metadata(m: &MetadataConfigOut) -> Block {
    let MetadataConfigOut {
        send,
        send_interval,
    } = m;
    let mut b = block("metadata_config");
    b.body.attribute(known("send"), Expr::Bool(*send));
    optional(
        &mut b.body,
        "send_interval",
        send_interval.as_deref().map(duration),
    );
    b
}

/// Limits and counts are at most `i64::MAX` in any config a user can write; a larger one
/// is written as the largest Alloy reads.
fn int(n: u64) -> Expr {
    Expr::Int(i64::try_from(n).unwrap_or(i64::MAX))
}
