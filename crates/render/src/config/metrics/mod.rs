//! The metrics section of agent.yml: Secret `<agent>-config` (spec 4.2-4.10, 4.17).
//!
//! * [`global`]: `metrics.global`, external labels (4.3);
//! * [`remote_write`]: remote_write entries (4.4);
//! * [`scrape`]: the scrape job type and the [`ScrapeContext`] monitors are rendered with;
//! * [`service_monitor`], [`pod_monitor`], [`probe`]: one monitor's jobs (4.7-4.9), each a
//!   pure function of the monitor and the context;
//! * [`additional`]: `additionalScrapeConfigs`, copied verbatim;
//! * [`validate`]: durations and label names the agent would refuse.
//!
//! One bad object never fails the rest (fix for Q7): a monitor that cannot be rendered is
//! left out, a remote_write that cannot be rendered is dropped from its list, unusable
//! `additionalScrapeConfigs` are ignored; each is reported as a [`Rejection`].

pub mod additional;
pub mod global;
pub mod monitor_settings;
pub mod pod_monitor;
pub mod probe;
pub mod remote_write;
pub mod scrape;
pub mod service_monitor;
pub mod shared;
pub mod validate;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::assets::AssetKey;
use crate::config::common::{Secrets, non_empty};
use crate::config::{AgentConfig, DATA_DIRECTORY, Rendered, ServerConfig};
use crate::discover::{Hierarchy, MetricsInstanceNode};
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};

pub use global::{GlobalConfig, external_labels, global_section};
pub use pod_monitor::pod_monitor_jobs;
pub use probe::probe_job;
pub use remote_write::RemoteWriteConfig;
pub use scrape::{ScrapeConfig, ScrapeContext};
pub use service_monitor::service_monitor_jobs;

/// `metrics:` of agent.yml.
#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct MetricsSection {
    pub wal_directory: String,
    pub global: GlobalConfig,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<InstanceConfig>,
}

/// One `metrics.configs` entry: one MetricsInstance.
#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct InstanceConfig {
    /// `<namespace>/<name>` of the MetricsInstance (runtime alloy: an identifier,
    /// [`crate::alloy::instance_name`]); integrations refer to it by this name.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wal_truncate_frequency: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_wal_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_wal_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote_flush_deadline: Option<String>,
    /// Written only when true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_stale_on_shutdown: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remote_write: Vec<RemoteWriteConfig>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scrape_configs: Vec<ScrapeConfigEntry>,
}

/// A Prometheus scrape config: generated from a monitor, or copied verbatim from
/// `additionalScrapeConfigs`.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum ScrapeConfigEntry {
    Generated(Box<ScrapeConfig>),
    Verbatim(Value),
}

impl ScrapeConfigEntry {
    pub fn job_name(&self) -> &str {
        match self {
            ScrapeConfigEntry::Generated(job) => &job.job_name,
            ScrapeConfigEntry::Verbatim(v) => additional::job_name(v),
        }
    }
}

/// What goes into a `metrics:` section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionOptions {
    /// Add the replica external label (metrics StatefulSets: yes; integrations: no).
    pub with_replica_label: bool,
    /// Render the instances' ServiceMonitors, PodMonitors and Probes.
    pub include_monitors: bool,
    /// Append the instances' `additionalScrapeConfigs`.
    pub include_additional_scrape_configs: bool,
}

impl SectionOptions {
    /// The metrics StatefulSets' config: everything.
    pub const METRICS: SectionOptions = SectionOptions {
        with_replica_label: true,
        include_monitors: true,
        include_additional_scrape_configs: true,
    };
    /// The integrations configs (spec 4.15, Q13 fixed): no replica label, no monitors, no
    /// `additionalScrapeConfigs`.
    pub const INTEGRATIONS: SectionOptions = SectionOptions {
        with_replica_label: false,
        include_monitors: false,
        include_additional_scrape_configs: false,
    };
}

/// `<agent>-config`'s agent.yml, or `None` when the agent has no MetricsInstance (the Secret
/// is then not wanted, spec 3.4).
pub fn render(h: &Hierarchy) -> Option<Rendered> {
    if h.metrics.is_empty() {
        return None;
    }
    let mut rejections = Vec::new();
    let metrics = section(h, SectionOptions::METRICS, &mut rejections);
    Some(Rendered {
        config: AgentConfig {
            server: ServerConfig::of(&h.agent),
            metrics: Some(metrics),
            ..Default::default()
        },
        rejections,
    })
}

/// The `metrics:` section over every MetricsInstance of `h`, in discovery order.
pub fn section(
    h: &Hierarchy,
    options: SectionOptions,
    rejections: &mut Vec<Rejection>,
) -> MetricsSection {
    let global = global_section(h, options.with_replica_label, rejections);
    let ctx = options
        .include_monitors
        .then(|| ScrapeContext::new(&h.agent, &h.assets, rejections));
    let mut instances: Vec<(&MetricsInstanceNode, InstanceConfig)> = h
        .metrics
        .iter()
        .filter_map(|node| {
            let config = render_instance(
                h,
                node,
                ctx.as_ref(),
                options.include_additional_scrape_configs,
                rejections,
            )?;
            Some((node, config))
        })
        .collect();
    shared::drop_shared_duplicates(&mut instances, rejections);
    MetricsSection {
        wal_directory: DATA_DIRECTORY.to_owned(),
        global,
        configs: instances.into_iter().map(|(_, config)| config).collect(),
    }
}

/// One `metrics.configs` entry for `node` (spec 4.2), or `None` when the instance must be
/// left out (it names remote_writes and none of them could be rendered: without any, the
/// agent would send its samples to the global remote_write instead).
///
/// * `include_monitors`: render its ServiceMonitors, PodMonitors and Probes; a monitor that
///   cannot be rendered is reported and left out.
/// * `include_additional_scrape_configs`: append its `additionalScrapeConfigs`; when they
///   cannot be used they are reported and left out, the instance renders without them.
///
/// The integrations configs call it with both false (spec 4.15, Q13). Problems are appended
/// to `rejections`; the agent's own settings (`spec.apiServer`, the enforced namespace
/// label) are checked once per call when monitors are included.
pub fn instance_config(
    h: &Hierarchy,
    node: &MetricsInstanceNode,
    include_monitors: bool,
    include_additional_scrape_configs: bool,
    rejections: &mut Vec<Rejection>,
) -> Option<InstanceConfig> {
    let ctx = include_monitors.then(|| ScrapeContext::new(&h.agent, &h.assets, rejections));
    render_instance(
        h,
        node,
        ctx.as_ref(),
        include_additional_scrape_configs,
        rejections,
    )
}

/// The scrape jobs of `node`'s monitors, in order: ServiceMonitors × endpoints,
/// PodMonitors × endpoints, Probes. Monitors that cannot be rendered are reported and left
/// out.
pub fn monitor_jobs(
    ctx: &ScrapeContext<'_>,
    node: &MetricsInstanceNode,
    rejections: &mut Vec<Rejection>,
) -> Vec<ScrapeConfig> {
    let mut jobs = Vec::new();
    let mut add = |result: Result<Vec<ScrapeConfig>, Rejection>| match result {
        Ok(list) => jobs.extend(list),
        Err(r) => rejections.push(r),
    };
    for sm in &node.service_monitors {
        add(service_monitor_jobs(ctx, sm));
    }
    for pm in &node.pod_monitors {
        add(pod_monitor_jobs(ctx, pm));
    }
    for p in &node.probes {
        add(probe_job(ctx, p).map(|job| vec![job]));
    }
    jobs
}

/// `monitors`: `Some(ctx)` renders the instance's monitors with `ctx`, `None` leaves them out.
fn render_instance(
    h: &Hierarchy,
    node: &MetricsInstanceNode,
    monitors: Option<&ScrapeContext<'_>>,
    include_additional_scrape_configs: bool,
    rejections: &mut Vec<Rejection>,
) -> Option<InstanceConfig> {
    let instance = node.instance.as_ref();
    let instance_ref = InputRef::of(Kind::MetricsInstance, instance);
    let spec = &instance.spec;
    let secrets = Secrets {
        assets: &h.assets,
        namespace: &instance_ref.namespace,
    };

    let Some(remote_write) = remote_write::remote_writes(
        &spec.remote_write,
        secrets,
        "spec.remoteWrite",
        &instance_ref,
        rejections,
    ) else {
        rejections.push(Rejection::new(
            instance_ref, Reason::NothingRendered,
            "spec.remoteWrite".to_owned(),
            "none of its remote_writes could be rendered; the instance is left out rather than send its samples to the GrafanaAgent's remote_write",
        ));
        return None;
    };

    let mut scrape_configs: Vec<ScrapeConfigEntry> = match monitors {
        Some(ctx) => monitor_jobs(ctx, node, rejections)
            .into_iter()
            .map(|job| ScrapeConfigEntry::Generated(Box::new(job)))
            .collect(),
        None => Vec::new(),
    };
    if include_additional_scrape_configs && let Some(sel) = &spec.additional_scrape_configs {
        let field = "spec.additionalScrapeConfigs";
        let parsed = secrets
            .value(sel, field)
            // Optional and missing: no additional jobs (Q17).
            .and_then(|text| {
                let source = AssetKey::secret(&instance_ref.namespace, sel);
                additional::parse(text.as_deref().unwrap_or("[]"), field, &source).and_then(
                    |items| check_unique_job_names(&scrape_configs, items, field, &source),
                )
            });
        match parsed {
            Ok(items) => scrape_configs.extend(items.into_iter().map(ScrapeConfigEntry::Verbatim)),
            // The instance renders without them. The message as is: a missing secret value
            // then reads exactly as discovery reported it, and the two merge.
            Err(e) => rejections.push(Rejection::of_field(instance_ref.clone(), e)),
        }
    }

    let mut wal_duration = |value: &Option<String>, field: &str| -> Option<String> {
        let text = non_empty(value)?;
        match validate::go_duration(&text) {
            Ok(_) => Some(text),
            Err(e) => {
                rejections.push(Rejection::new(
                    instance_ref.clone(),
                    Reason::InvalidDuration,
                    field.to_owned(),
                    format!("{e}; left out, the agent's default applies"),
                ));
                None
            }
        }
    };
    Some(InstanceConfig {
        name: crate::alloy::instance_name(h, &instance_ref),
        wal_truncate_frequency: wal_duration(
            &spec.wal_truncate_frequency,
            "spec.walTruncateFrequency",
        ),
        min_wal_time: wal_duration(&spec.min_wal_time, "spec.minWALTime"),
        max_wal_time: wal_duration(&spec.max_wal_time, "spec.maxWALTime"),
        remote_flush_deadline: wal_duration(
            &spec.remote_flush_deadline,
            "spec.remoteFlushDeadline",
        ),
        write_stale_on_shutdown: (spec.write_stale_on_shutdown == Some(true)).then_some(true),
        remote_write,
        scrape_configs,
    })
}

/// Prometheus refuses two jobs with the same name, so additional jobs must not reuse a
/// generated job's name or each other's.
fn check_unique_job_names(
    generated: &[ScrapeConfigEntry],
    items: Vec<Value>,
    field: &str,
    source: &AssetKey,
) -> Result<Vec<Value>, crate::config::common::FieldError> {
    // Where each name was seen first: `None` for a generated job (its name is ours to print),
    // `Some(i)` for item `i` of the Secret's value (its name is not: the value is a Secret's).
    let mut seen: BTreeMap<&str, Option<usize>> =
        generated.iter().map(|job| (job.job_name(), None)).collect();
    for (i, item) in items.iter().enumerate() {
        let name = additional::job_name(item);
        if let Some(first) = seen.get(name) {
            let message = match first {
                None => format!(
                    "{source}: item [{i}]: its job_name is {name:?}, the name of a scrape job the operator generates"
                ),
                Some(j) => format!("{source}: item [{i}] has the same job_name as item [{j}]"),
            };
            return Err(crate::config::common::FieldError::because(
                Reason::DuplicateName,
                field,
                message,
            ));
        }
        seen.insert(name, Some(i));
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover::discover;
    use crate::manifest::Loader;

    const AGENT_AND_INSTANCE: &str = "
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: operator}
spec:
  metrics:
    instanceSelector: {}
    SHARDS_LINE
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: operator}
spec:
  serviceMonitorSelector: {}
  probeSelector: {}
  additionalScrapeConfigs: {name: extra, key: jobs.yaml}
  remoteWrite:
  - url: http://store/push
    queueConfig: {capacity: 1048576, maxSamplesPerSend: 2000000}
---
apiVersion: v1
kind: Secret
metadata: {name: extra, namespace: operator}
stringData:
  jobs.yaml: |
    - job_name: extra
      static_configs: [{targets: ['a:1']}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm, namespace: operator}
spec:
  selector: {matchExpressions: [{key: tier, operator: In, values: [front.end, back]}]}
  endpoints:
  - port: web
    relabelings:
    - {sourceLabels: [a], regex: '', replacement: '', targetLabel: b}
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: probe, namespace: operator}
spec:
  prober: {url: 'blackbox:9115'}
  targets: {staticConfig: {static: [example.com]}}
";

    /// The hierarchy of the agent above, with `metrics_line` added to its `spec.metrics` and
    /// `extra` appended to the input.
    fn hierarchy(metrics_line: &str, extra: &str) -> Hierarchy {
        let mut loader = Loader::new();
        loader.add_source(
            "test.yaml",
            &(AGENT_AND_INSTANCE.replace("SHARDS_LINE", metrics_line) + extra),
        );
        let loaded = loader.finish();
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let agent = loaded
            .store
            .agents()
            .next()
            .expect("a GrafanaAgent")
            .clone();
        discover(&agent, &loaded.store).hierarchy
    }

    fn probe_rules(shards: &str) -> Vec<crate::config::common::RelabelRule> {
        let h = hierarchy(shards, "");
        let mut rejections = Vec::new();
        let ctx = ScrapeContext::new(&h.agent, &h.assets, &mut rejections);
        let job = probe_job(&ctx, &h.metrics[0].probes[0]).expect("renders");
        assert!(rejections.is_empty(), "{rejections:?}");
        job.relabel_configs
    }

    #[test]
    fn q2_probes_are_sharded_when_shards_above_one() {
        // One shard: upstream's output, no shard rules.
        let single = probe_rules("shards: 1");
        assert!(
            single
                .iter()
                .all(|r| r.action.as_deref() != Some("hashmod"))
        );
        // Three shards: hash the probed target, keep this shard's.
        let sharded = probe_rules("shards: 3");
        assert_eq!(sharded.len(), single.len() + 2);
        assert_eq!(
            &sharded[single.len()..],
            crate::sharding::relabel_rules(api::ShardingStrategy::Hashmod, 3, "__param_target")
                .as_slice()
        );
        assert_eq!(sharded[single.len()].source_labels, vec!["__param_target"]);
        assert_eq!(sharded[single.len()].modulus, Some(3));
    }

    #[test]
    fn q2_probe_without_targets_is_rejected_alone() {
        let h = hierarchy(
            "",
            "---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: empty, namespace: operator}
spec:
  prober: {url: 'blackbox:9115'}
",
        );
        let rendered = render(&h).expect("a metrics config");
        assert_eq!(rendered.rejections.len(), 1, "{:?}", rendered.rejections);
        let r = &rendered.rejections[0];
        assert_eq!(r.object.to_string(), "Probe operator/empty");
        assert_eq!(r.field.as_deref(), Some("spec.targets"));
        let metrics = rendered.config.metrics.expect("metrics");
        let jobs: Vec<&str> = metrics.configs[0]
            .scrape_configs
            .iter()
            .map(ScrapeConfigEntry::job_name)
            .collect();
        assert_eq!(
            jobs,
            [
                "serviceMonitor/operator/sm/0",
                "probe/operator/probe",
                "extra"
            ]
        );
    }

    #[test]
    fn q13_integrations_instances_have_no_monitors_and_no_additional_scrape_configs() {
        let h = hierarchy("", "");
        let mut rejections = Vec::new();
        let instance =
            instance_config(&h, &h.metrics[0], false, false, &mut rejections).expect("renders");
        assert!(rejections.is_empty(), "{rejections:?}");
        assert_eq!(instance.name, "operator/primary");
        assert!(instance.scrape_configs.is_empty());
        assert_eq!(instance.remote_write.len(), 1);

        let section = section(&h, SectionOptions::INTEGRATIONS, &mut rejections);
        assert!(!section.global.external_labels.contains_key("__replica__"));
        assert_eq!(section.global.external_labels["cluster"], "operator/agent");
        assert!(section.configs[0].scrape_configs.is_empty());

        // The metrics StatefulSets' config keeps both.
        let full =
            instance_config(&h, &h.metrics[0], true, true, &mut rejections).expect("renders");
        assert_eq!(full.scrape_configs.len(), 3);
    }

    #[test]
    fn q23_large_integers_stay_integers() {
        let h = hierarchy("", "");
        let text = crate::yaml::to_string(&render(&h).expect("config").config).expect("yaml");
        assert!(text.contains("capacity: 1048576\n"), "{text}");
        assert!(text.contains("max_samples_per_send: 2000000\n"), "{text}");
        assert!(!text.contains("e+"), "{text}");
    }

    #[test]
    fn q25_in_values_are_joined_unescaped() {
        let h = hierarchy("", "");
        let mut rejections = Vec::new();
        let ctx = ScrapeContext::new(&h.agent, &h.assets, &mut rejections);
        let jobs = service_monitor_jobs(&ctx, &h.metrics[0].service_monitors[0]).expect("ok");
        let selector_rule = &jobs[0].relabel_configs[1];
        assert_eq!(
            selector_rule.source_labels,
            ["__meta_kubernetes_service_label_tier"]
        );
        assert_eq!(selector_rule.regex.as_deref(), Some("front.end|back"));
    }

    #[test]
    fn q26_empty_regex_and_replacement_are_omitted() {
        let h = hierarchy("", "");
        let mut rejections = Vec::new();
        let ctx = ScrapeContext::new(&h.agent, &h.assets, &mut rejections);
        let jobs = service_monitor_jobs(&ctx, &h.metrics[0].service_monitors[0]).expect("ok");
        let user_rule = jobs[0]
            .relabel_configs
            .iter()
            .find(|r| r.target_label.as_deref() == Some("b"))
            .expect("the user rule");
        assert_eq!(user_rule.regex, None);
        assert_eq!(user_rule.replacement, None);
        assert_eq!(user_rule.action.as_deref(), Some("replace"));
    }

    #[test]
    fn monitor_jobs_depend_only_on_the_monitor_and_the_context() {
        let h = hierarchy("shards: 2", "");
        let other = hierarchy(
            "shards: 2",
            "---\napiVersion: monitoring.coreos.com/v1\nkind: PodMonitor\nmetadata: {name: pm, namespace: operator}\nspec:\n  selector: {}\n  podMetricsEndpoints: [{port: web}]\n",
        );
        let mut rejections = Vec::new();
        let ctx = ScrapeContext::new(&h.agent, &h.assets, &mut rejections);
        let other_ctx = ScrapeContext::new(&other.agent, &other.assets, &mut rejections);
        let sm = &h.metrics[0].service_monitors[0];
        assert_eq!(
            service_monitor_jobs(&ctx, sm),
            service_monitor_jobs(&other_ctx, sm)
        );
        let three = hierarchy("shards: 3", "");
        let three_ctx = ScrapeContext::new(&three.agent, &three.assets, &mut rejections);
        assert_ne!(
            service_monitor_jobs(&ctx, sm),
            service_monitor_jobs(&three_ctx, sm)
        );
    }
}
