//! The logs of an agent in Alloy components: per LogsInstance one `loki.write` per client
//! (each client has external labels of its own, which Alloy sets per component), per PodLogs
//! job a `discovery.kubernetes` (the pods of the pod's own node), a `discovery.relabel`, a
//! `loki.process` with the job's pipeline when it has one, and a `loki.source.file` tailing
//! the files the relabelled targets name.
//!
//! Component labels are those Alloy's own static converter gives (`logs_<instance>`, with
//! `_2`, `_3` for the second and third client, and `logs_<instance>_<job>`, sanitised). The
//! label is what ties a component to its data directory under `--storage.path`, where
//! `loki.source.file` keeps its read positions: a switch from the static format to this one
//! finds the same directories, so no log line is read twice or skipped. A switch straight from
//! the agent finds none, and each `loki.source.file` imports the agent's positions file, which
//! `legacy_positions_file` names (Alloy reads it only when the component has no positions of
//! its own yet).

use thiserror::Error;

use crate::alloy::identifier;
use crate::alloy_syntax::write_file;
use crate::alloy_syntax::{Block, Body, Expr, Identifier};
use crate::config::common::KubernetesSdConfig;
use crate::config::logs::clients::BackoffConfig;
use crate::config::logs::stages::{
    DropStage, JsonStage, LimitStage, MatchStage, MetricStage, MetricStageConfig, MultilineStage,
    OutputStage, PackStage, RegexStage, ReplaceStage, StageConfig, TemplateStage, TenantStage,
    TimestampStage,
};
use crate::config::logs::{
    ClientConfig, LogsInstanceConfig, LogsSection, PodLogsScrapeConfig, PositionsConfig,
    ScrapeConfig, TargetConfig,
};
use crate::config::{AgentConfig, ServerConfig};
use crate::discover::Hierarchy;
use crate::render_cache::RenderedText;

use super::http::{basic_auth, bearer, oauth2, string_map, tls_config};
use super::metrics::{kubernetes_discovery, rules};
use super::{NativeError, block, component, label, name, optional, reference};

/// What the native syntax cannot say of a logs config, naming the instance and the job.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum LogsNativeError {
    #[error(
        "LogsInstance {instance}: job {job:?} comes from additionalScrapeConfigs, which the \
         native Alloy configuration does not translate"
    )]
    Verbatim { instance: String, job: String },
    #[error("LogsInstance {instance}: job {job:?}: {what} has no native Alloy translation")]
    Unsupported {
        instance: String,
        job: String,
        what: String,
    },
    #[error(
        "GrafanaAgent {agent}: spec.expandUserStrings asks for users' strings to be expanded \
         from the pods' environment, which the native Alloy configuration does not do"
    )]
    ExpandedStrings { agent: String },
    #[error(transparent)]
    Native(#[from] NativeError),
}

/// The logs DaemonSet's config of `h` in Alloy's syntax, with what rendering left out; `None`
/// when the agent has no LogsInstance. For agents of [`crate::alloy::native_logs`].
pub fn logs_text(h: &Hierarchy) -> Result<Option<RenderedText>, LogsNativeError> {
    let Some(rendered) = crate::config::logs::render(h) else {
        return Ok(None);
    };
    if h.agent.spec.expand_user_strings {
        return Err(LogsNativeError::ExpandedStrings {
            agent: h.agent_ref().key(),
        });
    }
    let AgentConfig {
        server,
        logs: section,
        metrics: _,
        integrations: _,
    } = &rendered.config;
    let mut body = match section {
        Some(section) => logs(section)?,
        None => Body::default(),
    };
    logging(&mut body, server);
    Ok(Some(RenderedText {
        // The logs pods set no loader variable a string may use: every `$(` is hidden.
        text: write_file(&body).into(),
        rejections: rendered.rejections,
        largest: Vec::new(),
    }))
}

/// Every component of `section`, instance after instance: each PodLogs job's components in
/// the converter's order (discovery, pipeline, relabel, source), then the instance's
/// `loki.write`s.
pub fn logs(section: &LogsSection) -> Result<Body, LogsNativeError> {
    let LogsSection {
        positions_directory,
        configs,
    } = section;
    let mut body = Body::default();
    for instance in configs {
        let LogsInstanceConfig {
            name: instance_name,
            positions,
            clients,
            scrape_configs,
            target_config,
        } = instance;
        let prefix = label(format!("logs_{}", identifier(instance_name)))?;
        let mut writes = Vec::with_capacity(clients.len());
        let mut receivers = Vec::with_capacity(clients.len());
        for (i, client) in clients.iter().enumerate() {
            let write_label = if i == 0 {
                prefix.clone()
            } else {
                label(format!("{}_{}", prefix.as_str(), i + 1))?
            };
            receivers.push(reference("loki.write", &write_label, "receiver"));
            writes.push(loki_write(client, &write_label));
        }
        // The agent keeps one positions file per instance, `<directory>/<name>.yml`, unless
        // the config names another (runtime alloy always does: the agent's own).
        let legacy = match positions {
            Some(PositionsConfig { filename }) => filename.clone(),
            None => format!("{positions_directory}/{instance_name}.yml"),
        };
        let sync_period = target_config
            .as_ref()
            .and_then(|TargetConfig { sync_period }| sync_period.as_deref());
        for job in scrape_configs {
            let job = match job {
                ScrapeConfig::PodLogs(job) => job,
                ScrapeConfig::Verbatim(_) => {
                    return Err(LogsNativeError::Verbatim {
                        instance: instance_name.clone(),
                        job: job.job_name().to_owned(),
                    });
                }
            };
            let job_label = label(format!("{}_{}", prefix.as_str(), identifier(&job.job_name)))?;
            let source = JobSource {
                receivers: &receivers,
                legacy_positions_file: &legacy,
                sync_period,
            };
            for b in pod_logs_job(job, instance_name, &job_label, &source)? {
                body.block(b);
            }
        }
        for write in writes {
            body.block(write);
        }
    }
    Ok(body)
}

/// The agent's `server` settings Alloy has: its log level and format (`logging`), left out
/// when neither is set.
pub fn logging(out: &mut Body, server: &ServerConfig) {
    let ServerConfig {
        log_level,
        log_format,
    } = server;
    let mut b = block("logging");
    optional(&mut b.body, "level", log_level.as_deref().map(Expr::string));
    optional(
        &mut b.body,
        "format",
        log_format.as_deref().map(Expr::string),
    );
    if !b.body.is_empty() {
        out.block(b);
    }
}

/// Where a job's lines go and how its files are tailed: the instance's settings.
struct JobSource<'a> {
    receivers: &'a [Expr],
    legacy_positions_file: &'a str,
    sync_period: Option<&'a str>,
}

/// A PodLogs job's components: `[discovery.kubernetes, loki.process?, discovery.relabel?,
/// loki.source.file]`.
fn pod_logs_job(
    job: &PodLogsScrapeConfig,
    instance: &str,
    label: &Identifier,
    source: &JobSource<'_>,
) -> Result<Vec<Block>, LogsNativeError> {
    let PodLogsScrapeConfig {
        job_name,
        kubernetes_sd_configs,
        pipeline_stages,
        relabel_configs,
    } = job;
    let [sd] = kubernetes_sd_configs.as_slice() else {
        return Err(LogsNativeError::Unsupported {
            instance: instance.to_owned(),
            job: job_name.clone(),
            what: format!(
                "{} Kubernetes discoveries (a PodLogs job has one)",
                kubernetes_sd_configs.len()
            ),
        });
    };
    let mut out = vec![pod_discovery(sd, label)];
    let mut targets = reference("discovery.kubernetes", label, "targets");

    let forward_to = if pipeline_stages.is_empty() {
        Expr::Array(source.receivers.to_vec())
    } else {
        let mut process = component("loki.process", label);
        process
            .body
            .attribute(name("forward_to"), Expr::Array(source.receivers.to_vec()));
        stages(&mut process.body, pipeline_stages);
        out.push(process);
        Expr::Array(vec![reference("loki.process", label, "receiver")])
    };

    if !relabel_configs.is_empty() {
        let mut relabel = component("discovery.relabel", label);
        relabel.body.attribute(name("targets"), targets);
        rules(&mut relabel.body, "rule", relabel_configs);
        out.push(relabel);
        targets = reference("discovery.relabel", label, "output");
    }

    let mut file = component("loki.source.file", label);
    file.body
        .attribute(name("targets"), targets)
        .attribute(name("forward_to"), forward_to)
        .attribute(
            name("legacy_positions_file"),
            Expr::string(source.legacy_positions_file),
        );
    // `__path__` is a glob (`/var/log/pods/*<uid>/*.log`): Alloy expands it only with
    // file_match, re-reading the directories every sync period (target_config's).
    let mut file_match = block("file_match");
    file_match.body.attribute(name("enabled"), Expr::Bool(true));
    optional(
        &mut file_match.body,
        "sync_period",
        source.sync_period.map(Expr::string),
    );
    file.body.block(file_match);
    out.push(file);
    Ok(out)
}

/// The job's pod discovery, limited to the pods of this pod's node as the agent limits it
/// (promtail's file target manager adds the same field selector): the logs DaemonSet sets
/// `HOSTNAME` to the node's name, and a pod tails only its own node's files.
fn pod_discovery(sd: &KubernetesSdConfig, label: &Identifier) -> Block {
    let mut b = kubernetes_discovery(sd, label);
    if sd.role == "pod" {
        let node_name = Expr::Sum(vec![
            Expr::string("spec.nodeName="),
            Expr::Call(
                vec![name("coalesce")],
                vec![
                    Expr::Call(
                        vec![name("sys"), name("env")],
                        vec![Expr::string("HOSTNAME")],
                    ),
                    Expr::Reference(vec![name("constants"), name("hostname")]),
                ],
            ),
        ]);
        let mut selector = block("selectors");
        selector
            .body
            .attribute(name("role"), Expr::string("pod"))
            .attribute(name("field"), node_name);
        b.body.block(selector);
    }
    b
}

/// One `stage.<kind>` block per stage, in pipeline order (an entry holds one stage: the
/// renderer refuses entries with two, as promtail does).
fn stages(out: &mut Body, stages: &[StageConfig]) {
    for stage in stages {
        let StageConfig {
            docker,
            cri,
            regex,
            json,
            replace,
            template,
            pack,
            timestamp,
            output,
            labeldrop,
            labelallow,
            labels,
            limit,
            metrics,
            multiline,
            tenant,
            match_,
            drop,
        } = stage;
        if docker.is_some() {
            out.block(block("stage.docker"));
        }
        if cri.is_some() {
            out.block(block("stage.cri"));
        }
        if let Some(RegexStage { expression, source }) = regex {
            let mut b = block("stage.regex");
            b.body
                .attribute(name("expression"), Expr::string(expression));
            optional(&mut b.body, "source", source.as_deref().map(Expr::string));
            out.block(b);
        }
        if let Some(JsonStage {
            expressions,
            source,
        }) = json
        {
            let mut b = block("stage.json");
            if !expressions.is_empty() {
                b.body
                    .attribute(name("expressions"), string_map(expressions));
            }
            optional(&mut b.body, "source", source.as_deref().map(Expr::string));
            out.block(b);
        }
        if let Some(ReplaceStage {
            expression,
            source,
            replace,
        }) = replace
        {
            let mut b = block("stage.replace");
            b.body
                .attribute(name("expression"), Expr::string(expression));
            optional(&mut b.body, "source", source.as_deref().map(Expr::string));
            optional(&mut b.body, "replace", replace.as_deref().map(Expr::string));
            out.block(b);
        }
        if let Some(TemplateStage { source, template }) = template {
            let mut b = block("stage.template");
            b.body
                .attribute(name("source"), Expr::string(source))
                .attribute(name("template"), Expr::string(template));
            out.block(b);
        }
        if let Some(PackStage {
            labels,
            ingest_timestamp,
        }) = pack
        {
            let mut b = block("stage.pack");
            // Alloy requires the attribute; promtail's is optional (empty: no labels).
            b.body.attribute(name("labels"), Expr::strings(labels));
            optional(
                &mut b.body,
                "ingest_timestamp",
                ingest_timestamp.map(Expr::Bool),
            );
            out.block(b);
        }
        if let Some(t) = timestamp {
            out.block(timestamp_stage(t));
        }
        if let Some(OutputStage { source }) = output {
            let mut b = block("stage.output");
            b.body.attribute(name("source"), Expr::string(source));
            out.block(b);
        }
        if let Some(values) = labeldrop {
            let mut b = block("stage.label_drop");
            b.body.attribute(name("values"), Expr::strings(values));
            out.block(b);
        }
        if let Some(values) = labelallow {
            let mut b = block("stage.label_keep");
            b.body.attribute(name("values"), Expr::strings(values));
            out.block(b);
        }
        if let Some(values) = labels {
            let mut b = block("stage.labels");
            b.body.attribute(name("values"), string_map(values));
            out.block(b);
        }
        if let Some(l) = limit {
            out.block(limit_stage(l));
        }
        if let Some(metrics) = metrics {
            let mut b = block("stage.metrics");
            for (metric_name, metric) in metrics {
                b.body.block(metric_block(metric_name, metric));
            }
            out.block(b);
        }
        if let Some(m) = multiline {
            out.block(multiline_stage(m));
        }
        if let Some(TenantStage {
            label,
            source,
            value,
        }) = tenant
        {
            let mut b = block("stage.tenant");
            let fields = [("label", label), ("source", source), ("value", value)];
            for (key, value) in fields {
                optional(&mut b.body, key, value.as_deref().map(Expr::string));
            }
            out.block(b);
        }
        if let Some(m) = match_ {
            out.block(match_stage(m));
        }
        if let Some(d) = drop {
            out.block(drop_stage(d));
        }
    }
}

fn timestamp_stage(t: &TimestampStage) -> Block {
    let TimestampStage {
        source,
        format,
        fallback_formats,
        location,
        action_on_failure,
    } = t;
    let mut b = block("stage.timestamp");
    b.body
        .attribute(name("source"), Expr::string(source))
        .attribute(name("format"), Expr::string(format));
    if !fallback_formats.is_empty() {
        b.body
            .attribute(name("fallback_formats"), Expr::strings(fallback_formats));
    }
    optional(
        &mut b.body,
        "location",
        location.as_deref().map(Expr::string),
    );
    optional(
        &mut b.body,
        "action_on_failure",
        action_on_failure.as_deref().map(Expr::string),
    );
    b
}

fn limit_stage(l: &LimitStage) -> Block {
    let LimitStage { rate, burst, drop } = l;
    let mut b = block("stage.limit");
    optional(&mut b.body, "rate", rate.map(Expr::Int));
    optional(&mut b.body, "burst", burst.map(Expr::Int));
    b.body.attribute(name("drop"), Expr::Bool(*drop));
    b
}

/// A metric of a `metrics` stage: `metric.counter`, `metric.gauge` or `metric.histogram`, by
/// the type the renderer spelled as promtail does (`Counter`, `Gauge`, `Histogram`).
fn metric_block(metric_name: &str, metric: &MetricStage) -> Block {
    let MetricStage {
        type_,
        description,
        prefix,
        source,
        max_idle_duration,
        config:
            MetricStageConfig {
                match_all,
                count_entry_bytes,
                value,
                action,
                buckets,
            },
    } = metric;
    let kind = type_.to_ascii_lowercase();
    let mut b = block(&format!("metric.{kind}"));
    let body = &mut b.body;
    body.attribute(name("name"), Expr::string(metric_name));
    let strings = [
        ("description", description),
        ("prefix", prefix),
        ("source", source),
        ("max_idle_duration", max_idle_duration),
        ("value", value),
    ];
    for (key, text) in strings {
        optional(body, key, text.as_deref().map(Expr::string));
    }
    match kind.as_str() {
        // Promtail reads actions in any case; Alloy's are lower case.
        "counter" => {
            body.attribute(name("action"), Expr::String(action.to_ascii_lowercase()));
            optional(body, "match_all", match_all.map(Expr::Bool));
            optional(body, "count_entry_bytes", count_entry_bytes.map(Expr::Bool));
        }
        "gauge" => {
            body.attribute(name("action"), Expr::String(action.to_ascii_lowercase()));
        }
        // A histogram observes its value and has no action; promtail ignores one. Alloy
        // requires its buckets; none (`[]`) are Prometheus' default buckets there as in
        // promtail.
        _ => {
            let buckets = buckets
                .iter()
                .map(|n| match n.as_i64() {
                    Some(i) => Expr::Int(i),
                    None => Expr::Float(n.as_f64().unwrap_or(f64::NAN)),
                })
                .collect();
            body.attribute(name("buckets"), Expr::Array(buckets));
        }
    }
    b
}

fn multiline_stage(m: &MultilineStage) -> Block {
    let MultilineStage {
        firstline,
        max_wait_time,
        max_lines,
    } = m;
    let mut b = block("stage.multiline");
    b.body.attribute(name("firstline"), Expr::string(firstline));
    optional(
        &mut b.body,
        "max_wait_time",
        max_wait_time.as_deref().map(Expr::string),
    );
    optional(&mut b.body, "max_lines", max_lines.map(Expr::Int));
    b
}

fn match_stage(m: &MatchStage) -> Block {
    let MatchStage {
        selector,
        pipeline_name,
        action,
        drop_counter_reason,
        stages: nested,
    } = m;
    let mut b = block("stage.match");
    b.body.attribute(name("selector"), Expr::string(selector));
    let fields = [
        ("pipeline_name", pipeline_name),
        ("action", action),
        ("drop_counter_reason", drop_counter_reason),
    ];
    for (key, value) in fields {
        optional(&mut b.body, key, value.as_deref().map(Expr::string));
    }
    stages(&mut b.body, nested);
    b
}

fn drop_stage(d: &DropStage) -> Block {
    let DropStage {
        source,
        expression,
        value,
        older_than,
        longer_than,
        drop_counter_reason,
    } = d;
    let mut b = block("stage.drop");
    let fields = [
        ("source", source),
        ("expression", expression),
        ("value", value),
        ("older_than", older_than),
        ("drop_counter_reason", drop_counter_reason),
    ];
    for (key, value) in fields {
        optional(&mut b.body, key, value.as_deref().map(Expr::string));
    }
    optional(
        &mut b.body,
        "longer_than",
        longer_than
            .as_deref()
            .map(|size| Expr::String(alloy_size(size))),
    );
    b
}

/// A size as promtail reads it (`8KB`, `1mb`: a whole number and a unit of powers of 1024,
/// in any case) written as Alloy reads sizes (`8KiB`, `1MiB`); anything else as it is, for
/// Alloy to refuse by name.
fn alloy_size(text: &str) -> String {
    const UNITS: [(&str, &str); 7] = [
        ("", "B"),
        ("K", "KiB"),
        ("M", "MiB"),
        ("G", "GiB"),
        ("T", "TiB"),
        ("P", "PiB"),
        ("E", "EiB"),
    ];
    let upper = text.trim().to_ascii_uppercase();
    let digits = upper
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(upper.len());
    let (number, unit) = upper.split_at(digits);
    let unit = unit.trim();
    let unit = unit.strip_suffix('B').unwrap_or(unit);
    match (
        number.parse::<u64>(),
        UNITS.iter().find(|(u, _)| *u == unit),
    ) {
        (Ok(n), Some((_, alloy))) => format!("{n}{alloy}"),
        _ => text.to_owned(),
    }
}

/// A byte count as the largest unit that divides it (`1048576` is `1MiB`).
fn base2_bytes(bytes: i64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes;
    let mut unit = "B";
    for next in UNITS {
        if value == 0 || value % 1024 != 0 {
            break;
        }
        value /= 1024;
        unit = next;
    }
    format!("{value}{unit}")
}

/// One client as its own `loki.write`: the endpoint with every setting the client has, and
/// the client's external labels (the cluster label among them).
fn loki_write(client: &ClientConfig, label: &Identifier) -> Block {
    let ClientConfig {
        url,
        tenant_id,
        batchwait,
        batchsize,
        timeout,
        basic_auth: basic,
        oauth2: oauth,
        bearer_token,
        bearer_token_file,
        proxy_url,
        tls_config: tls,
        backoff_config,
        external_labels,
    } = client;
    let mut endpoint = block("endpoint");
    let body = &mut endpoint.body;
    body.attribute(name("url"), Expr::string(url));
    optional(body, "tenant_id", tenant_id.as_deref().map(Expr::string));
    optional(body, "batch_wait", batchwait.as_deref().map(Expr::string));
    optional(
        body,
        "batch_size",
        batchsize.map(|n| Expr::String(base2_bytes(n))),
    );
    optional(body, "remote_timeout", timeout.as_deref().map(Expr::string));
    if let Some(BackoffConfig {
        min_period,
        max_period,
        max_retries,
    }) = backoff_config
    {
        optional(
            body,
            "min_backoff_period",
            min_period.as_deref().map(Expr::string),
        );
        optional(
            body,
            "max_backoff_period",
            max_period.as_deref().map(Expr::string),
        );
        optional(body, "max_backoff_retries", max_retries.map(Expr::Int));
    }
    optional(body, "proxy_url", proxy_url.as_deref().map(Expr::string));
    if let Some(b) = basic {
        basic_auth(body, b);
    }
    bearer(body, bearer_token.as_deref(), bearer_token_file.as_deref());
    if let Some(o) = oauth {
        oauth2(body, o);
    }
    if let Some(t) = tls {
        tls_config(body, t);
    }
    let mut write = component("loki.write", label);
    if !external_labels.is_empty() {
        write
            .body
            .attribute(name("external_labels"), string_map(external_labels));
    }
    write.body.block(endpoint);
    write
}

#[cfg(test)]
mod tests {
    use super::{alloy_size, base2_bytes};

    #[test]
    fn sizes_are_written_in_alloys_units() {
        for (promtail, alloy) in [
            ("8KB", "8KiB"),
            ("8kb", "8KiB"),
            ("1MB", "1MiB"),
            ("3G", "3GiB"),
            ("100", "100B"),
            ("100B", "100B"),
            ("eight", "eight"),
            ("1.5KB", "1.5KB"),
        ] {
            assert_eq!(alloy_size(promtail), alloy, "{promtail}");
        }
        for (bytes, alloy) in [
            (1_048_576, "1MiB"),
            (1_000, "1000B"),
            (2_048, "2KiB"),
            (0, "0B"),
        ] {
            assert_eq!(base2_bytes(bytes), alloy, "{bytes}");
        }
    }
}
