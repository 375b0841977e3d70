//! The integrations configs: Secrets `<agent>-integrations-deploy-config` (integrations with
//! `type.allNodes: false`, run by one Deployment) and `<agent>-integrations-ds-config`
//! (`allNodes: true`, run by a DaemonSet) (spec 4.15).
//!
//! Each holds the agent's metrics and logs instances without their monitors and PodLogs, so
//! that integrations can ship through them (`autoscrape.metrics_instance: <ns>/<name>`,
//! `logs_instance: <ns>/<name>`), and one `<name>_configs` list per integration name with
//! each Integration's `config` copied verbatim. Instance `additionalScrapeConfigs` are left
//! out (fix for Q13): they would run again in every integrations pod.

use std::collections::BTreeMap;
use std::sync::Arc;

use api::Integration;
use serde::Serialize;
use serde_json::Value;

use crate::config::common::FieldError;
use crate::config::integration_settings;
use crate::config::metrics::SectionOptions;
use crate::config::{AgentConfig, Rendered, ServerConfig, logs, metrics};
use crate::discover::Hierarchy;
use crate::input_ref::{InputRef, Kind};
use crate::rejection::Rejection;

/// `integrations:` of agent.yml.
#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct IntegrationsSection {
    pub metrics: IntegrationsMetrics,
    /// `<name>_configs` → the configs of the Integrations with that name, in discovery order.
    #[serde(flatten)]
    pub configs: BTreeMap<String, Vec<Value>>,
}

/// `integrations.metrics`.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct IntegrationsMetrics {
    pub autoscrape: Autoscrape,
}

/// `integrations.metrics.autoscrape`: always disabled globally, so that each integration
/// opts in with its own `autoscrape` block.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Autoscrape {
    pub enable: bool,
}

/// The config of one integrations workload, holding `accepted`: the Integrations that
/// workload runs ([`crate::workloads::integrations::Accepted`]: an Integration that fails
/// [`check`] or whose volumes cannot be added is left out of both, and reported by the
/// workload's plan). `None` when there is none (the Secret is then not wanted, spec 3.4).
pub fn render(h: &Hierarchy, accepted: &[Arc<Integration>]) -> Option<Rendered> {
    if accepted.is_empty() {
        return None;
    }
    let subset: Vec<&Integration> = accepted.iter().map(|i| i.as_ref()).collect();
    let mut rejections = Vec::new();
    let metrics = metrics::section(h, SectionOptions::INTEGRATIONS, &mut rejections);
    let logs = logs::section(h, false, false, &mut rejections);
    let mut integrations = section(&subset, &mut rejections);
    if crate::alloy::runtime(h) == api::grafana_agent::Runtime::Alloy {
        integrations.configs = for_alloy(h, &subset, &mut rejections);
    }
    Some(Rendered {
        config: AgentConfig {
            server: ServerConfig::of(&h.agent),
            metrics: Some(metrics),
            logs: Some(logs),
            integrations: Some(integrations),
        },
        rejections,
    })
}

/// The `integrations:` section for `integrations` (in discovery order). An Integration whose
/// name or config cannot be used is reported and left out.
pub fn section(
    integrations: &[&Integration],
    rejections: &mut Vec<Rejection>,
) -> IntegrationsSection {
    let mut configs: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for integration in integrations {
        match entry(integration) {
            Ok((key, config)) => configs.entry(key).or_default().push(config),
            Err(e) => rejections.push(Rejection::of_field(
                InputRef::of(Kind::Integration, *integration),
                e,
            )),
        }
    }
    IntegrationsSection {
        metrics: IntegrationsMetrics::default(),
        configs,
    }
}

/// The `<name>_configs` lists for runtime alloy: each config as
/// [`crate::alloy::integration_config`] makes it (an explicit metrics instance, instance names
/// as Alloy's); an Integration Alloy refuses is reported and left out.
fn for_alloy(
    h: &Hierarchy,
    integrations: &[&Integration],
    rejections: &mut Vec<Rejection>,
) -> BTreeMap<String, Vec<Value>> {
    let mut configs: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for integration in integrations {
        let Ok((key, config)) = entry(integration) else {
            // Reported by `section`.
            continue;
        };
        match crate::alloy::integration_config(h, integration, config) {
            Ok(config) => configs.entry(key).or_default().push(config),
            Err(r) => rejections.push(r),
        }
    }
    configs
}

/// The `<name>_configs` key and the config of one Integration: its `config` as written
/// (nulls, empty maps and lists kept, numbers keep their type), `{}` when empty or missing.
/// Map keys are sorted at every level: the API server hands the object back with its keys
/// sorted, and upstream writes them sorted, so the same Integration read from a file or from a
/// cluster gives the same config bytes (and no rollout for a reordered manifest).
pub fn entry(integration: &Integration) -> Result<(String, Value), FieldError> {
    check(integration)?;
    let spec = &integration.spec;
    let config = match &spec.config {
        Value::Object(_) => with_sorted_keys(&spec.config),
        _ => Value::Object(serde_json::Map::new()),
    };
    Ok((format!("{}_configs", spec.name), config))
}

fn with_sorted_keys(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), with_sorted_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(with_sorted_keys).collect()),
        other => other.clone(),
    }
}

/// Whether [`entry`] can render `integration`: a usable name and a config that is a map (or
/// missing). The workloads take only the Integrations that pass
/// ([`crate::workloads::integrations::Accepted`]), so the config and the pods agree.
pub fn check(integration: &Integration) -> Result<(), FieldError> {
    let spec = &integration.spec;
    check_name(&spec.name)?;
    match &spec.config {
        Value::Null => Ok(()),
        Value::Object(config) => check_settings(&spec.name, config),
        other => Err(FieldError::new(
            "spec.config",
            format!(
                "must be a map (the integration's settings), not {}",
                kind_of(other)
            ),
        )),
    }
}

/// The integrations the agent knows in integrations-next mode (grafana-agent v0.44.8, which
/// the operator's agents run with `-enable-features=integrations-next`), by their names there,
/// and whether each is a singleton (defined at most once per agent). Read from the agent's
/// registrations (`static/integrations/install`: `integrations_v2.Register` and
/// `RegisterLegacy` with `NewNamedShim`): a v1 name (`redis_exporter`) is not among them, and
/// the agent refuses a config that names it ("field redis_exporter_configs not found in type
/// integrations.SubsystemOptions"), stopping every integration of the agent.
pub const KNOWN_INTEGRATIONS: &[(&str, Singleton)] = &[
    ("agent", Singleton::Yes),
    ("apache_http", Singleton::No),
    ("app_agent_receiver", Singleton::No),
    ("azure", Singleton::No),
    ("blackbox", Singleton::Yes),
    ("cadvisor", Singleton::Yes),
    ("cloudwatch", Singleton::No),
    ("consul", Singleton::No),
    ("dnsmasq", Singleton::No),
    ("elasticsearch", Singleton::No),
    ("eventhandler", Singleton::Yes),
    ("gcp", Singleton::No),
    ("github", Singleton::No),
    ("kafka", Singleton::No),
    ("memcached", Singleton::No),
    ("mongodb", Singleton::No),
    ("mssql", Singleton::No),
    ("mysql", Singleton::No),
    ("node_exporter", Singleton::Yes),
    ("oracledb", Singleton::No),
    ("postgres", Singleton::No),
    ("process", Singleton::Yes),
    ("redis", Singleton::No),
    ("snmp", Singleton::Yes),
    ("snowflake", Singleton::No),
    ("squid", Singleton::No),
    ("statsd", Singleton::Yes),
    ("vsphere", Singleton::No),
    ("windows", Singleton::Yes),
];

/// Whether the agent allows an integration at most once (its `TypeSingleton`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Singleton {
    Yes,
    No,
}

/// v1 integration names whose integrations-next name differs, for the hint of a rejection.
const V1_NAMES: &[(&str, &str)] = &[
    ("apache_exporter", "apache_http"),
    ("azure_exporter", "azure"),
    ("blackbox_exporter", "blackbox"),
    ("cloudwatch_exporter", "cloudwatch"),
    ("consul_exporter", "consul"),
    ("dnsmasq_exporter", "dnsmasq"),
    ("elasticsearch_exporter", "elasticsearch"),
    ("gcp_exporter", "gcp"),
    ("github_exporter", "github"),
    ("kafka_exporter", "kafka"),
    ("memcached_exporter", "memcached"),
    ("mongodb_exporter", "mongodb"),
    ("mysqld_exporter", "mysql"),
    ("oracledb_exporter", "oracledb"),
    ("postgres_exporter", "postgres"),
    ("process_exporter", "process"),
    ("redis_exporter", "redis"),
    ("snmp_exporter", "snmp"),
    ("snowflake_exporter", "snowflake"),
    ("squid_exporter", "squid"),
    ("statsd_exporter", "statsd"),
    ("vmware_exporter", "vsphere"),
    ("windows_exporter", "windows"),
];

/// Whether the agent allows `name` at most once per config; `None` for a name it does not know.
pub fn singleton(name: &str) -> Option<Singleton> {
    KNOWN_INTEGRATIONS
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, s)| *s)
}

/// Integration names become config keys (`<name>_configs`), which the agent looks up among
/// the integrations it knows: any other name makes it refuse the whole config, stopping every
/// integration of the agent. Rejecting the one Integration here keeps the others running and
/// tells the user which object is wrong, and what to write instead.
pub fn check_name(name: &str) -> Result<(), FieldError> {
    if singleton(name).is_some() {
        return Ok(());
    }
    let hint = match V1_NAMES.iter().find(|(v1, _)| *v1 == name) {
        Some((_, next)) => {
            format!(" (`{name}` is its name outside integrations-next: write `{next}`)")
        }
        None => String::new(),
    };
    let known: Vec<&str> = KNOWN_INTEGRATIONS.iter().map(|(n, _)| *n).collect();
    Err(FieldError::new(
        "spec.name",
        format!(
            "{name:?} is not an integration the agent knows: the operator runs it with -enable-features=integrations-next, where the integrations are {}{hint}",
            known.join(", ")
        ),
    ))
}

/// The agent reads each integration's config strictly (`yaml.UnmarshalStrict`): a key that is
/// not one of its settings makes it refuse the whole integrations config ("field relay_address
/// not found"), stopping every integration of the agent. Only this Integration is rejected.
fn check_settings(name: &str, config: &serde_json::Map<String, Value>) -> Result<(), FieldError> {
    let Some((_, open, known)) = integration_settings::SETTINGS
        .iter()
        .find(|(integration, _, _)| *integration == name)
    else {
        return Ok(());
    };
    if *open {
        return Ok(());
    }
    let mut unknown: Vec<&str> = config
        .keys()
        .map(String::as_str)
        .filter(|key| !known.contains(key))
        .collect();
    unknown.sort_unstable();
    let Some(first) = unknown.first() else {
        return Ok(());
    };
    let hints: Vec<String> = unknown
        .iter()
        .filter_map(|key| {
            let near = known
                .iter()
                .find(|k| k.starts_with(key) || key.starts_with(*k))?;
            Some(format!("`{near}` for `{key}`"))
        })
        .collect();
    let hint = if hints.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", hints.join(", "))
    };
    let quoted: Vec<String> = unknown.iter().map(|k| format!("{k:?}")).collect();
    Err(FieldError::new(
        format!("spec.config.{first}"),
        format!(
            "{} of the {name} integration{hint}: the agent would refuse the whole integrations config, stopping every integration of this agent; its settings are {}",
            if unknown.len() == 1 {
                format!("{} is not a setting", quoted[0])
            } else {
                format!("{} are not settings", quoted.join(", "))
            },
            known.join(", ")
        ),
    ))
}

/// An Integration that turns autoscrape on ships its metrics through the metrics instance it
/// names (`autoscrape.metrics_instance`, `default` when unset). The agent looks that instance
/// up when it starts and refuses the whole config when this agent has none of that name
/// ("configuring autoscraper failed: instance default does not exist"); the operator names its
/// instances `<namespace>/<name>`, so one must be named.
pub fn check_autoscrape(h: &Hierarchy, integration: &Integration) -> Result<(), FieldError> {
    let Some(autoscrape) = integration.spec.config.get("autoscrape") else {
        return Ok(());
    };
    if autoscrape.get("enable") != Some(&Value::Bool(true)) {
        return Ok(());
    }
    let instances: Vec<String> = h
        .metrics
        .iter()
        .map(|node| node.instance_ref().key())
        .collect();
    let named = autoscrape.get("metrics_instance").and_then(Value::as_str);
    if named.is_some_and(|n| instances.iter().any(|i| i == n)) {
        return Ok(());
    }
    let which = match named {
        Some(n) => format!("names {n:?}, which is not a MetricsInstance of this agent"),
        None => {
            "names no metrics_instance (the agent then looks for one called \"default\")".to_owned()
        }
    };
    let choices = if instances.is_empty() {
        "this agent selects none: select one with spec.metrics.instanceSelector, or turn autoscrape off".to_owned()
    } else {
        format!("name one of {}", instances.join(", "))
    };
    Err(FieldError::new(
        "spec.config.autoscrape.metrics_instance",
        format!(
            "autoscrape is on and {which}; the agent would refuse the whole integrations config over it: {choices}"
        ),
    ))
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::integration::{IntegrationSpec, IntegrationType};
    use serde_json::json;

    fn integration(name: &str, config: Value) -> Integration {
        let mut i = Integration::new(
            "x",
            IntegrationSpec {
                name: name.into(),
                type_: IntegrationType::default(),
                config,
                ..Default::default()
            },
        );
        i.metadata.namespace = Some("ns".into());
        i
    }

    #[test]
    fn only_the_names_the_agent_knows_in_integrations_next_mode_are_accepted() {
        for ok in [
            "node_exporter",
            "cadvisor",
            "mysql",
            "redis",
            "statsd",
            "process",
        ] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "Node_exporter",
            "node-exporter",
            "node exporter",
            "_x",
            "1x",
            "ä",
            "a1",
            "redis_exporter",
            "mysqld_exporter",
            "statsd_exporter",
            "process_exporter",
        ] {
            let err = check_name(bad).expect_err(bad);
            assert_eq!(err.field, "spec.name");
            assert!(err.message.contains("redis, snmp"), "{}", err.message);
        }
        let err = check_name("redis_exporter").expect_err("v1 name");
        assert!(err.message.contains("write `redis`"), "{}", err.message);
    }

    #[test]
    fn configs_are_verbatim_and_missing_ones_are_empty_maps() {
        let config = json!({"redis_user": null, "autoscrape": {}, "check_keys": [], "count_keys": 1, "script_path": 0.5});
        let (key, out) = entry(&integration("redis", config.clone())).expect("valid");
        assert_eq!(key, "redis_configs");
        assert_eq!(out, config);
        let (_, empty) = entry(&integration("node_exporter", Value::Null)).expect("valid");
        assert_eq!(empty, json!({}));
    }

    #[test]
    fn config_keys_come_out_sorted_at_every_level_whatever_the_input_order() {
        let written =
            json!({"redis_user": {"y": 1, "b": [{"k2": 0, "k1": 0}]}, "check_keys": true});
        let (_, out) = entry(&integration("redis", written)).expect("valid");
        let keys =
            |v: &Value| -> Vec<String> { v.as_object().expect("map").keys().cloned().collect() };
        assert_eq!(keys(&out), ["check_keys", "redis_user"]);
        assert_eq!(keys(&out["redis_user"]), ["b", "y"]);
        assert_eq!(keys(&out["redis_user"]["b"][0]), ["k1", "k2"]);
    }

    #[test]
    fn a_setting_the_agent_does_not_know_rejects_that_integration_only() {
        let statsd = integration(
            "statsd",
            json!({"listen_udp": ":9125", "relay_address": null, "ttl_ratio": 0.75}),
        );
        let mysql = integration("mysql", json!({"data_source_names": "root@(db:3306)/"}));
        let good = integration("mysql", json!({"data_source_name": "root@(db:3306)/"}));
        let mut rejections = Vec::new();
        let out = section(&[&statsd, &mysql, &good], &mut rejections);
        assert_eq!(
            out.configs,
            BTreeMap::from([(
                "mysql_configs".to_string(),
                vec![json!({"data_source_name": "root@(db:3306)/"})]
            )])
        );
        let messages: Vec<String> = rejections.iter().map(|r| r.to_string()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[0].contains(
                r#"spec.config.relay_address: "relay_address", "ttl_ratio" are not settings of the statsd integration"#
            ),
            "{messages:?}"
        );
        assert!(
            messages[0].contains("relay_addr, relay_packet_length"),
            "{messages:?}"
        );
        assert!(
            messages[1].contains(
                r#"spec.config.data_source_names: "data_source_names" is not a setting of the mysql integration (did you mean `data_source_name` for `data_source_names`?)"#
            ),
            "{messages:?}"
        );
        // Every integration the agent knows has its settings listed, and each lists
        // `instance` (the agent's own key for every integration).
        for (name, _) in KNOWN_INTEGRATIONS {
            let (_, _, settings) = integration_settings::SETTINGS
                .iter()
                .find(|(n, _, _)| n == name)
                .unwrap_or_else(|| panic!("no settings for {name}"));
            assert!(settings.contains(&"instance"), "{name}: {settings:?}");
        }
    }

    #[test]
    fn a_config_that_is_not_a_map_is_rejected_and_the_others_render() {
        let good = integration("node_exporter", json!({"procfs_path": 1}));
        let list = integration("node_exporter", json!([1, 2]));
        let text = integration("redis", json!("redis_addr: x"));
        let mut rejections = Vec::new();
        let out = section(&[&list, &good, &text], &mut rejections);
        assert_eq!(
            out.configs,
            BTreeMap::from([(
                "node_exporter_configs".to_string(),
                vec![json!({"procfs_path": 1})]
            )])
        );
        let messages: Vec<String> = rejections.iter().map(|r| r.to_string()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[0].contains("spec.config: must be a map"),
            "{messages:?}"
        );
        assert!(messages[1].contains("not a string"), "{messages:?}");
    }

    #[test]
    fn autoscrape_is_disabled_and_lists_follow_it() {
        let a = integration("node_exporter", json!({}));
        let text = crate::yaml::to_string(&section(&[&a], &mut Vec::new())).expect("yaml");
        assert_eq!(
            text,
            "metrics:\n  autoscrape:\n    enable: false\nnode_exporter_configs:\n- {}\n"
        );
    }
}
