//! The logs section of agent.yml: Secret `<agent>-logs-config` (spec 4.11-4.14).
//!
//! * [`clients`]: Loki clients (4.12);
//! * [`pod_logs`]: PodLogs → promtail scrape configs (4.13), and [`path_label`]: no PodLogs
//!   can choose the files it reads;
//! * [`stages`]: pipeline stages (4.14), and [`go_template`]: the functions their Go templates
//!   may call.
//!
//! One bad object never fails the rest: a PodLogs that cannot be rendered is left out, a
//! client that cannot be rendered is dropped from its instance, an unusable
//! `additionalScrapeConfigs` is ignored; each is reported.

pub mod clients;
pub mod go_template;
pub mod path_label;
pub mod pod_logs;
pub mod stages;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::assets::AssetKey;
use crate::config::common::{FieldError, Secrets, non_empty};
use crate::config::metrics::additional;
use crate::config::metrics::validate::{go_duration, is_label_name};
use crate::config::{AgentConfig, DATA_DIRECTORY, Rendered, ServerConfig};
use crate::discover::{Hierarchy, LogsInstanceNode};
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};

pub use clients::ClientConfig;
pub use pod_logs::{PodLogsContext, PodLogsScrapeConfig};

/// `logs:` of agent.yml.
#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct LogsSection {
    pub positions_directory: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<LogsInstanceConfig>,
}

/// One `logs.configs` entry: one LogsInstance.
#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct LogsInstanceConfig {
    /// `<namespace>/<name>` of the LogsInstance (runtime alloy: an identifier,
    /// [`crate::alloy::instance_name`]); integrations refer to it by this name.
    pub name: String,
    /// Runtime alloy only: the agent's positions file of the instance (the agent derives it
    /// from the name), so that the renamed instance keeps its read positions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<PositionsConfig>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<ClientConfig>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scrape_configs: Vec<ScrapeConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_config: Option<TargetConfig>,
}

/// `positions` of a logs instance.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct PositionsConfig {
    pub filename: String,
}

/// A promtail scrape config: generated from a PodLogs, or copied verbatim from
/// `additionalScrapeConfigs`.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum ScrapeConfig {
    PodLogs(Box<PodLogsScrapeConfig>),
    Verbatim(Value),
}

impl ScrapeConfig {
    pub fn job_name(&self) -> &str {
        match self {
            ScrapeConfig::PodLogs(job) => &job.job_name,
            ScrapeConfig::Verbatim(v) => additional::job_name(v),
        }
    }
}

/// `target_config`; `{}` when `targetConfig` is set without a sync period.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync_period: Option<String>,
}

/// `<agent>-logs-config`'s agent.yml, or `None` when the agent has no LogsInstance (the
/// Secret is then not wanted, spec 3.4).
pub fn render(h: &Hierarchy) -> Option<Rendered> {
    if h.logs.is_empty() {
        return None;
    }
    let mut rejections = Vec::new();
    let logs = section(h, true, true, &mut rejections);
    Some(Rendered {
        config: AgentConfig {
            server: ServerConfig::of(&h.agent),
            logs: Some(logs),
            ..Default::default()
        },
        rejections,
    })
}

/// The `logs:` section over every LogsInstance of `h`, in discovery order. The integrations
/// configs call it without PodLogs and without `additionalScrapeConfigs` (spec 4.15, Q13).
pub fn section(
    h: &Hierarchy,
    include_pod_logs: bool,
    include_additional_scrape_configs: bool,
    rejections: &mut Vec<Rejection>,
) -> LogsSection {
    let ctx = if include_pod_logs {
        pod_logs_context(h, rejections)
    } else {
        None
    };
    LogsSection {
        positions_directory: DATA_DIRECTORY.to_owned(),
        configs: h
            .logs
            .iter()
            .filter_map(|node| {
                render_instance(
                    h,
                    node,
                    ctx.as_ref(),
                    include_additional_scrape_configs,
                    rejections,
                )
            })
            .collect(),
    }
}

/// One `logs.configs` entry for `node`, or `None` when the instance must be left out (every
/// client it names failed). PodLogs and `additionalScrapeConfigs` are included on request.
pub fn instance_config(
    h: &Hierarchy,
    node: &LogsInstanceNode,
    include_pod_logs: bool,
    include_additional_scrape_configs: bool,
    rejections: &mut Vec<Rejection>,
) -> Option<LogsInstanceConfig> {
    let ctx = if include_pod_logs {
        pod_logs_context(h, rejections)
    } else {
        None
    };
    render_instance(
        h,
        node,
        ctx.as_ref(),
        include_additional_scrape_configs,
        rejections,
    )
}

/// The PodLogs context of `h`'s agent; when the agent's `apiServer` cannot be rendered, that
/// is reported and no PodLogs can be rendered.
fn pod_logs_context(h: &Hierarchy, rejections: &mut Vec<Rejection>) -> Option<PodLogsContext> {
    match PodLogsContext::of(&h.agent, &h.assets) {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            rejections.push(Rejection::of_field(h.agent_ref(), e));
            None
        }
    }
}

/// `pod_logs`: `Some(ctx)` renders the instance's PodLogs with `ctx`, `None` leaves them out.
fn render_instance(
    h: &Hierarchy,
    node: &LogsInstanceNode,
    pod_logs: Option<&PodLogsContext>,
    include_additional_scrape_configs: bool,
    rejections: &mut Vec<Rejection>,
) -> Option<LogsInstanceConfig> {
    let instance = node.instance.as_ref();
    let instance_ref = InputRef::of(Kind::LogsInstance, instance);
    let spec = &instance.spec;

    let clients = instance_clients(h, node, rejections)?;

    let mut scrape_configs = Vec::new();
    if let Some(ctx) = pod_logs {
        for p in &node.pod_logs {
            let me = InputRef::of(Kind::PodLogs, p.as_ref());
            let labelled = h.pod_namespaces.get(&me).map(Vec::as_slice);
            match pod_logs::scrape_config(p, ctx, labelled) {
                Ok(Some(sc)) => scrape_configs.push(ScrapeConfig::PodLogs(Box::new(sc))),
                // Its namespace selector matches no namespace: no Pods, no job.
                Ok(None) => {}
                Err(e) => rejections.push(Rejection::of_field(me, e)),
            }
        }
    }
    if include_additional_scrape_configs && let Some(sel) = &spec.additional_scrape_configs {
        let secrets = Secrets {
            assets: &h.assets,
            namespace: &instance_ref.namespace,
        };
        let field = "spec.additionalScrapeConfigs";
        let parsed = secrets
            .value(sel, field)
            // Optional and missing: no additional jobs (Q17).
            .and_then(|text| {
                let source = AssetKey::secret(&instance_ref.namespace, sel);
                additional::parse(text.as_deref().unwrap_or("[]"), field, &source)
                    .and_then(|items| check_promtail_jobs(items, field, &source))
                    .and_then(|items| {
                        check_unique_job_names(&scrape_configs, items, field, &source)
                    })
            });
        match parsed {
            Ok(list) => scrape_configs.extend(list.into_iter().map(ScrapeConfig::Verbatim)),
            // The instance renders without them. The message as is: a missing secret value
            // then reads exactly as discovery reported it, and the two merge.
            Err(e) => rejections.push(Rejection::of_field(instance_ref.clone(), e)),
        }
    }

    let target_config = spec.target_config.as_ref().map(|t| TargetConfig {
        sync_period: non_empty(&t.sync_period).filter(|period| match go_duration(period) {
            Ok(_) => true,
            Err(e) => {
                rejections.push(Rejection::new(
                    instance_ref.clone(),
                    Reason::InvalidDuration,
                    "spec.targetConfig.syncPeriod".to_owned(),
                    format!("{e}; left out, the agent's default applies"),
                ));
                false
            }
        }),
    });
    let name = crate::alloy::instance_name(h, &instance_ref);
    let positions = (name != instance_ref.key()).then(|| PositionsConfig {
        filename: crate::alloy::positions_file(DATA_DIRECTORY, &instance_ref.key()),
    });
    Some(LogsInstanceConfig {
        name,
        positions,
        clients,
        scrape_configs,
        target_config,
    })
}

/// The clients of `node` (spec 4.11): its own, with secrets in its namespace; else the
/// GrafanaAgent's, with secrets in the agent's namespace. A client that cannot be rendered is
/// reported against the object holding it and dropped. `None` when clients were given but
/// none could be rendered: the agent cannot run a logs instance without clients.
fn instance_clients(
    h: &Hierarchy,
    node: &LogsInstanceNode,
    rejections: &mut Vec<Rejection>,
) -> Option<Vec<ClientConfig>> {
    let instance = node.instance.as_ref();
    let instance_ref = InputRef::of(Kind::LogsInstance, instance);
    let logs = h.agent.spec.logs.as_ref();
    let cluster_label = clients::cluster_label(
        logs.and_then(|l| l.logs_external_label_name.as_deref()),
        h.agent_namespace(),
        h.agent_name(),
    )
    .filter(|(name, _)| {
        let valid = is_label_name(name);
        if !valid {
            rejections.push(Rejection::new(
                h.agent_ref(),
                Reason::InvalidLabelName,
                "spec.logs.logsExternalLabelName".to_owned(),
                format!("{name:?} is not a valid label name; the external label is left out"),
            ));
        }
        valid
    });
    let (specs, owner, field) = if !instance.spec.clients.is_empty() {
        (&instance.spec.clients, instance_ref.clone(), "spec.clients")
    } else {
        match logs {
            Some(l) if !l.clients.is_empty() => (&l.clients, h.agent_ref(), "spec.logs.clients"),
            _ => return Some(Vec::new()),
        }
    };
    let secrets = Secrets {
        assets: &h.assets,
        namespace: &owner.namespace,
    };
    let mut rendered = Vec::new();
    for (i, c) in specs.iter().enumerate() {
        let mut problems = Vec::new();
        let result = clients::client(
            c,
            cluster_label.as_ref(),
            secrets,
            &format!("{field}[{i}]"),
            &mut problems,
        );
        let errors = problems.into_iter().chain(result.as_ref().err().cloned());
        rejections.extend(errors.map(|e| Rejection::of_field(owner.clone(), e)));
        rendered.extend(result.ok());
    }
    if rendered.is_empty() {
        let message = if owner == instance_ref {
            "none of its clients could be rendered; the instance is left out".to_owned()
        } else {
            format!(
                "none of the clients it takes from GrafanaAgent {} (spec.logs.clients) could be rendered; the instance is left out",
                owner.key()
            )
        };
        rejections.push(Rejection::new(
            instance_ref,
            Reason::NothingRendered,
            "spec.clients".to_owned(),
            message,
        ));
        return None;
    }
    Some(rendered)
}

/// Two jobs with one name would collide in the agent's target discovery (one silently
/// replaces the other), so additional jobs must not reuse a PodLogs job's name or each
/// other's.
/// The fields of promtail's `scrape_config` (grafana-agent v0.44.8's promtail), which the
/// agent reads strictly: any other field makes it refuse the whole config.
const PROMTAIL_JOB_FIELDS: &[&str] = &[
    "job_name",
    "pipeline_stages",
    "relabel_configs",
    "encoding",
    "decompression",
];

/// The fields that give a promtail job its targets; promtail refuses a job with none of them
/// ("no valid target scrape config defined").
const PROMTAIL_TARGET_FIELDS: &[&str] = &[
    "journal",
    "syslog",
    "gcplog",
    "loki_push_api",
    "windows_events",
    "kafka",
    "azure_event_hubs",
    "gelf",
    "cloudflare",
    "heroku_drain",
    "docker_sd_configs",
    "static_configs",
    "dns_sd_configs",
    "file_sd_configs",
    "consul_sd_configs",
    "consulagent_sd_configs",
    "digitalocean_sd_configs",
    "dockerswarm_sd_configs",
    "serverset_sd_configs",
    "nerve_sd_configs",
    "marathon_sd_configs",
    "kubernetes_sd_configs",
    "gce_sd_configs",
    "ec2_sd_configs",
    "openstack_sd_configs",
    "azure_sd_configs",
    "triton_sd_configs",
];

/// The items of a LogsInstance's `additionalScrapeConfigs` the agent would refuse, found
/// before they reach its config: a field promtail's `scrape_config` does not have
/// (`limits_config` belongs to promtail's top level), or no field that gives targets. Either
/// stops every logs instance of the agent, so the items are left out instead. Field names
/// are printed only when they look like field names: the text is a Secret's value.
fn check_promtail_jobs(
    items: Vec<Value>,
    field: &str,
    source: &AssetKey,
) -> Result<Vec<Value>, FieldError> {
    for (i, item) in items.iter().enumerate() {
        let Value::Object(map) = item else { continue };
        if let Some(unknown) = map.keys().find(|k| {
            !PROMTAIL_JOB_FIELDS.contains(&k.as_str())
                && !PROMTAIL_TARGET_FIELDS.contains(&k.as_str())
        }) {
            let name = if unknown.len() <= 64
                && unknown
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            {
                format!("the field {unknown}")
            } else {
                "a field".to_owned()
            };
            return Err(FieldError::because(
                Reason::InvalidYaml,
                field,
                format!(
                    "{source}: item [{i}] has {name}, which promtail's scrape_config does not have (the agent refuses the whole config over an unknown field)"
                ),
            ));
        }
        let has_target = PROMTAIL_TARGET_FIELDS
            .iter()
            .any(|k| map.get(*k).is_some_and(|v| !v.is_null()));
        if !has_target {
            return Err(FieldError::because(
                Reason::InvalidYaml,
                field,
                format!(
                    "{source}: item [{i}] has no targets: it needs one of static_configs, kubernetes_sd_configs, file_sd_configs, journal, syslog, loki_push_api, ... (the agent refuses the whole config over it: \"no valid target scrape config defined\")"
                ),
            ));
        }
    }
    Ok(items)
}

fn check_unique_job_names(
    generated: &[ScrapeConfig],
    items: Vec<Value>,
    field: &str,
    source: &AssetKey,
) -> Result<Vec<Value>, FieldError> {
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
            return Err(FieldError::because(Reason::DuplicateName, field, message));
        }
        seen.insert(name, Some(i));
    }
    Ok(items)
}
