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
    let integrations = section(&subset, &mut rejections);
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
        Value::Null | Value::Object(_) => Ok(()),
        other => Err(FieldError::new(
            "spec.config",
            format!(
                "must be a map (the integration's settings), not {}",
                kind_of(other)
            ),
        )),
    }
}

/// Integration names become config keys (`<name>_configs`). Every integration the agent
/// knows is named in lowercase snake case (`node_exporter`, `mysqld_exporter`, `cadvisor`,
/// `app_agent_receiver`, ...), so a name outside `[a-z][a-z0-9_]*` can never match one: the
/// agent would refuse the whole config over the unknown key. Rejecting it here keeps the
/// other integrations running and tells the user which object is wrong.
pub fn check_name(name: &str) -> Result<(), FieldError> {
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if valid {
        Ok(())
    } else {
        Err(FieldError::new(
            "spec.name",
            format!(
                "{name:?} is not an integration name: integration names are lowercase letters, digits and underscores, starting with a letter (e.g. node_exporter)"
            ),
        ))
    }
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
    fn names_are_lowercase_snake_case() {
        for ok in [
            "node_exporter",
            "cadvisor",
            "mysqld_exporter",
            "a1",
            "statsd_exporter",
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
        ] {
            let err = check_name(bad).expect_err(bad);
            assert_eq!(err.field, "spec.name");
        }
    }

    #[test]
    fn configs_are_verbatim_and_missing_ones_are_empty_maps() {
        let config = json!({"b": null, "a": {}, "list": [], "n": 1, "f": 0.5});
        let (key, out) = entry(&integration("redis_exporter", config.clone())).expect("valid");
        assert_eq!(key, "redis_exporter_configs");
        assert_eq!(out, config);
        let (_, empty) = entry(&integration("node_exporter", Value::Null)).expect("valid");
        assert_eq!(empty, json!({}));
    }

    #[test]
    fn config_keys_come_out_sorted_at_every_level_whatever_the_input_order() {
        let written = json!({"z": {"y": 1, "b": [{"k2": 0, "k1": 0}]}, "a": true});
        let (_, out) = entry(&integration("redis_exporter", written)).expect("valid");
        let keys =
            |v: &Value| -> Vec<String> { v.as_object().expect("map").keys().cloned().collect() };
        assert_eq!(keys(&out), ["a", "z"]);
        assert_eq!(keys(&out["z"]), ["b", "y"]);
        assert_eq!(keys(&out["z"]["b"][0]), ["k1", "k2"]);
    }

    #[test]
    fn a_config_that_is_not_a_map_is_rejected_and_the_others_render() {
        let good = integration("node_exporter", json!({"x": 1}));
        let list = integration("node_exporter", json!([1, 2]));
        let text = integration("redis_exporter", json!("redis_addr: x"));
        let mut rejections = Vec::new();
        let out = section(&[&list, &good, &text], &mut rejections);
        assert_eq!(
            out.configs,
            BTreeMap::from([("node_exporter_configs".to_string(), vec![json!({"x": 1})])])
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
