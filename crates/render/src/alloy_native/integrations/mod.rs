//! The integrations workloads' config in Alloy components: the metrics instances'
//! `prometheus.remote_write`s and the logs instances' `loki.write`s (as the metrics and logs
//! configs write them: an integration ships through them), then per integration the
//! `prometheus.exporter.<kind>` Alloy's static converter makes of it, a `discovery.relabel`
//! giving its targets the `instance` and `job` labels, and a `prometheus.scrape` into its
//! metrics instance (the converter's autoscrape).
//!
//! An Integration's `config` is the agent's, passed through untyped. Only the settings
//! [`exporters::EXPORTERS`] maps (flat ones by table, the others through the typed arguments
//! of [`blackbox`], [`elasticsearch`], [`mongodb`] and [`snmp`]) are written, each under the
//! converter's attribute name, and left out when it holds Alloy's default, as the converter
//! leaves it; an Integration with any other setting, or of another kind, has no native
//! translation ([`untranslated`]), and [`native_integrations`] keeps the agent's integrations
//! static, with a warning naming its field ([`warnings`]), rather than write something else
//! than the converter would.

mod arguments;
mod blackbox;
mod elasticsearch;
mod exporters;
mod mongodb;
mod snmp;

use serde_json::{Map, Value};
use thiserror::Error;

use crate::alloy::identifier;
use crate::alloy_syntax::{Block, Body, Expr, write_file_keeping};
use crate::config::integrations::IntegrationsSection;
use crate::config::metrics::{GlobalConfig, MetricsSection};
use crate::config::{AgentConfig, Rendered};
use crate::discover::Hierarchy;
use crate::expansion::SHARD_VARIABLES;
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};
use crate::render_cache::RenderedText;

use super::logs::{LogsNativeError, logging, logs};
use super::metrics::metrics;
use super::{
    NativeError, block, component, duration, known, label, milliseconds, optional, reference,
};
use exporters::{EXPORTERS, Exporter, Settings, mistyped, table_arguments};

/// A setting without a native translation: its field (`spec.config.<key>`) and why.
type Untranslated = (String, String);

/// The keys every integration takes besides its own settings, read by [`integration`].
const COMMON: [&str; 3] = ["instance", "extra_labels", "autoscrape"];

/// What keeps an integrations config from being written natively, naming the integration and
/// its setting.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum IntegrationsNativeError {
    #[error("{integration} integration: {field}: {why}")]
    Untranslated {
        integration: String,
        field: String,
        why: String,
    },
    #[error(transparent)]
    Native(#[from] NativeError),
    #[error(transparent)]
    Logs(#[from] LogsNativeError),
}

/// The autoscrape settings written natively: the instance it ships through (always named
/// under runtime alloy), `enable`, which Alloy does not read (`crate::alloy::warnings`), and
/// the scrape's interval and timeout.
const AUTOSCRAPE: [&str; 4] = [
    "enable",
    "metrics_instance",
    "scrape_interval",
    "scrape_timeout",
];

/// The autoscrape settings that are durations.
const AUTOSCRAPE_DURATIONS: [&str; 2] = ["scrape_interval", "scrape_timeout"];

/// Whether `h`'s integrations workloads run a config in Alloy's own syntax: runtime `alloy`
/// with `spec.alloy.configFormat: native`, and nothing [`not_native`] names. One answer for
/// both workloads, their configs and their pods' arguments.
pub fn native_integrations(h: &Hierarchy) -> bool {
    crate::alloy::native_requested(h) && not_native(h).next().is_none()
}

/// The warnings of an agent that asks for native integrations and keeps them static: one per
/// [`not_native`] reason, on the object and field.
pub fn warnings(h: &Hierarchy) -> Vec<Rejection> {
    if !crate::alloy::native_requested(h) {
        return Vec::new();
    }
    not_native(h)
        .map(|(object, field, why)| Rejection::new(object, Reason::AlloyDifference, field, why))
        .collect()
}

/// What keeps an agent's integrations static under `configFormat: native`, with the field to
/// name and why: each Integration the Alloy config would run that [`untranslated`] names (its
/// kind or a setting), and `spec.expandUserStrings: true`, as for logs (users' strings
/// expanded from the pods' environment, which only the static format does).
fn not_native(h: &Hierarchy) -> impl Iterator<Item = (InputRef, String, String)> + '_ {
    let untranslated = h.integrations.iter().filter_map(|integration| {
        let (_, config) = crate::config::integrations::entry(integration).ok()?;
        // An Integration Alloy refuses runs in neither format (rejected on its own).
        crate::alloy::integration_config(h, integration, config.clone()).ok()?;
        let (field, why) = untranslated(&integration.spec.name, &config)?;
        Some((
            InputRef::of(Kind::Integration, integration.as_ref()),
            field,
            format!(
                "{why}: the GrafanaAgent's integrations configs stay in static format (converted by Alloy) while it is selected"
            ),
        ))
    });
    let expanded = (h.agent.spec.expand_user_strings && !h.integrations.is_empty()).then(|| {
        (
            h.agent_ref(),
            "spec.expandUserStrings".to_owned(),
            "expands users' strings from the pods' environment, which only the static format does: the integrations configs stay in static format (converted by Alloy)".to_owned(),
        )
    });
    untranslated.chain(expanded)
}

/// Why the `integration` with `config` (its `spec.config`) has no native translation, as
/// (field, reason); `None` when [`integrations`] writes it. A config that is not a map is
/// rejected before ([`crate::config::integrations::check`]).
pub fn untranslated(integration: &str, config: &Value) -> Option<(String, String)> {
    let Some(exporter) = EXPORTERS.iter().find(|e| e.integration == integration) else {
        return Some((
            "spec.name".to_owned(),
            format!(
                "the {integration} integration has no native Alloy translation yet (natively written: {})",
                EXPORTERS
                    .iter()
                    .map(|e| e.integration)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    };
    let empty = Map::new();
    let settings = config.as_object().unwrap_or(&empty);
    for (key, value) in settings {
        let problem = match key.as_str() {
            _ if value.is_null() => None,
            "instance" => match value.as_str() {
                Some("") => Some("is empty".to_owned()),
                Some(_) => None,
                None => Some("is not a string".to_owned()),
            },
            "extra_labels" => match value {
                Value::Object(labels) if labels.values().all(Value::is_string) => None,
                _ => Some("is not a map of strings".to_owned()),
            },
            "autoscrape" => match value {
                Value::Object(autoscrape) => autoscrape.iter().find_map(|(k, v)| {
                    if !AUTOSCRAPE.contains(&k.as_str()) {
                        return Some(format!(
                            "holds {k:?}, which the native Alloy configuration does not translate yet (only {})",
                            AUTOSCRAPE.join(", ")
                        ));
                    }
                    let duration = v.as_str().and_then(milliseconds);
                    (AUTOSCRAPE_DURATIONS.contains(&k.as_str()) && !v.is_null() && duration.is_none())
                        .then(|| format!("holds {k:?}, which is not a duration"))
                }),
                _ => Some("is not a map".to_owned()),
            },
            _ if !exporter.settings.keys().contains(&key.as_str()) => Some(format!(
                "the native Alloy configuration does not translate this setting of the {integration} integration yet (only {})",
                exporter.settings.keys().join(", ")
            )),
            _ => match exporter.settings {
                Settings::Table(table) => table
                    .iter()
                    .find(|(k, _, _)| k == key)
                    .and_then(|(_, _, setting)| mistyped(*setting, value)),
                // Read as a whole below: a nested setting is named by its path.
                Settings::Typed { .. } => None,
            },
        };
        if let Some(why) = problem {
            return Some((format!("spec.config.{key}"), why));
        }
    }
    match exporter.settings {
        Settings::Typed { arguments, .. } => arguments(own_settings(config)).err(),
        Settings::Table(_) => None,
    }
}

/// The integration's own settings of `config`: all but [`COMMON`] and nulls (unset).
fn own_settings(config: &Value) -> Map<String, Value> {
    config
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, v)| !COMMON.contains(&k.as_str()) && !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The integrations config of one workload in Alloy's syntax, from its rendered static-mode
/// config (the Integrations it runs, their instances named as Alloy's).
pub fn integrations_text(rendered: Rendered) -> Result<RenderedText, IntegrationsNativeError> {
    let AgentConfig {
        server,
        metrics: metrics_section,
        logs: logs_section,
        integrations: section,
    } = &rendered.config;
    let mut body = match metrics_section {
        Some(section) => metrics(section)?,
        None => Body::default(),
    };
    if let Some(section) = logs_section {
        for b in logs(section)?.blocks {
            body.block(b);
        }
    }
    if let Some(section) = section {
        let global = metrics_section.as_ref().map(|m: &MetricsSection| &m.global);
        integrations(&mut body, section, global)?;
    }
    logging(&mut body, server);
    Ok(RenderedText {
        // `$(SHARD)` and `$(SHARDS)` stay the loader's, as in the static-mode config.
        text: write_file_keeping(&body, &SHARD_VARIABLES).into(),
        rejections: rendered.rejections,
        largest: Vec::new(),
    })
}

/// Every integration of `section`, in the order of the static config: its exporter, its
/// relabelling and its scrape.
pub fn integrations(
    out: &mut Body,
    section: &IntegrationsSection,
    global: Option<&GlobalConfig>,
) -> Result<(), IntegrationsNativeError> {
    for (key, configs) in &section.configs {
        let name = key.strip_suffix("_configs").unwrap_or(key);
        for config in configs {
            if let Some((field, why)) = untranslated(name, config) {
                return Err(IntegrationsNativeError::Untranslated {
                    integration: name.to_owned(),
                    field,
                    why,
                });
            }
            let exporter = EXPORTERS
                .iter()
                .find(|e| e.integration == name)
                .ok_or_else(|| IntegrationsNativeError::Untranslated {
                    integration: name.to_owned(),
                    field: "spec.name".to_owned(),
                    why: "no native Alloy translation".to_owned(),
                })?;
            let settings = match exporter.settings {
                Settings::Table(table) => table_arguments(table, config),
                Settings::Typed { arguments, .. } => {
                    arguments(own_settings(config)).map_err(|(field, why)| {
                        IntegrationsNativeError::Untranslated {
                            integration: name.to_owned(),
                            field,
                            why,
                        }
                    })?
                }
            };
            for b in integration(exporter, config, settings, global)? {
                out.block(b);
            }
        }
    }
    Ok(())
}

/// The three components of one integration, labelled as the converter labels them: the
/// exporter `integrations_<instance or v1 name>`, the relabelling and the scrape
/// `integrations_<instance or name>`.
fn integration(
    exporter: &Exporter,
    config: &Value,
    settings: Body,
    global: Option<&GlobalConfig>,
) -> Result<[Block; 3], IntegrationsNativeError> {
    let get = |key: &str| config.get(key).filter(|v| !v.is_null());
    let instance = get("instance").and_then(Value::as_str);
    let exporter_label = label(format!(
        "integrations_{}",
        identifier(instance.unwrap_or(exporter.config_name))
    ))?;
    let job_name = format!("integrations/{}", instance.unwrap_or(exporter.integration));
    let job_label = label(format!(
        "integrations_{}",
        identifier(instance.unwrap_or(exporter.integration))
    ))?;

    let mut exporter_block = component(
        &format!("prometheus.exporter.{}", exporter.component),
        &exporter_label,
    );
    exporter_block.body = settings;
    if let Some(instance) = instance.filter(|_| exporter.instance_argument) {
        let argument = crate::alloy_syntax::Attribute {
            name: known("instance"),
            value: Expr::string(instance),
        };
        exporter_block.body.attributes.insert(0, argument);
    }

    let mut relabel = component("discovery.relabel", &job_label);
    relabel.body.attribute(
        known("targets"),
        reference(
            &format!("prometheus.exporter.{}", exporter.component),
            &exporter_label,
            "targets",
        ),
    );
    // The converter's order: the extra labels (by name, each set on every target through
    // `__address__`, which every target has), then `instance`, then `job`.
    let mut extra: Vec<(&String, &str)> = get("extra_labels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(name, value)| Some((name, value.as_str()?)))
        .collect();
    extra.sort();
    for (name, value) in extra {
        let mut rule = block("rule");
        rule.body
            .attribute(known("source_labels"), Expr::strings(["__address__"]))
            .attribute(known("target_label"), Expr::string(name.as_str()))
            .attribute(known("replacement"), Expr::string(value));
        relabel.body.block(rule);
    }
    let mut rules = Vec::new();
    if let Some(instance) = instance {
        rules.push(("instance", instance.to_owned()));
    }
    rules.push(("job", format!("integrations/{}", exporter.integration)));
    for (target, replacement) in rules {
        let mut rule = block("rule");
        rule.body
            .attribute(known("target_label"), Expr::string(target))
            .attribute(known("replacement"), Expr::string(replacement));
        relabel.body.block(rule);
    }

    let autoscrape = |key: &str| {
        get("autoscrape")
            .and_then(|a| a.get(key))
            .and_then(Value::as_str)
    };
    let metrics_instance = get("autoscrape")
        .and_then(|a| a.get("metrics_instance"))
        .and_then(Value::as_str)
        .ok_or_else(|| IntegrationsNativeError::Untranslated {
            integration: exporter.integration.to_owned(),
            field: "spec.config.autoscrape.metrics_instance".to_owned(),
            why: "names no metrics instance (runtime alloy always names one)".to_owned(),
        })?;
    let remote_write = label(format!("metrics_{}", identifier(metrics_instance)))?;
    let mut scrape = component("prometheus.scrape", &job_label);
    scrape
        .body
        .attribute(
            known("targets"),
            reference("discovery.relabel", &job_label, "output"),
        )
        .attribute(
            known("forward_to"),
            Expr::Array(vec![reference(
                "prometheus.remote_write",
                &remote_write,
                "receiver",
            )]),
        )
        .attribute(known("job_name"), Expr::string(job_name));
    // Unset in the integration's autoscrape, the agent's inherits the metrics' global
    // interval and timeout.
    optional(
        &mut scrape.body,
        "scrape_interval",
        autoscrape("scrape_interval")
            .or(global.and_then(|g| g.scrape_interval.as_deref()))
            .map(duration),
    );
    optional(
        &mut scrape.body,
        "scrape_timeout",
        autoscrape("scrape_timeout")
            .or(global.and_then(|g| g.scrape_timeout.as_deref()))
            .map(duration),
    );
    Ok([exporter_block, relabel, scrape])
}

#[cfg(test)]
mod tests {
    use super::untranslated;
    use serde_json::json;

    /// A setting the writer would have to guess at keeps the Integration static, by field.
    #[test]
    fn what_is_not_translated_is_named_by_field() {
        let cases = [
            ("eventhandler", json!({}), "spec.name"),
            (
                "process",
                json!({"process_names": []}),
                "spec.config.process_names",
            ),
            (
                "redis",
                json!({"redis_addr": 6379}),
                "spec.config.redis_addr",
            ),
            (
                "node_exporter",
                json!({"include_exporter_metrics": "yes"}),
                "spec.config.include_exporter_metrics",
            ),
            ("mysql", json!({"instance": ""}), "spec.config.instance"),
            (
                "mysql",
                json!({"extra_labels": {"team": 1}}),
                "spec.config.extra_labels",
            ),
            (
                "statsd",
                json!({"autoscrape": {"relabel_configs": []}}),
                "spec.config.autoscrape",
            ),
            (
                "statsd",
                json!({"autoscrape": {"scrape_interval": "often"}}),
                "spec.config.autoscrape",
            ),
            ("consul", json!({"timeout": "soon"}), "spec.config.timeout"),
            (
                "consul",
                json!({"concurrent_request_limit": "4"}),
                "spec.config.concurrent_request_limit",
            ),
            (
                "consul",
                json!({"allow_stale": "no"}),
                "spec.config.allow_stale",
            ),
            (
                "github",
                json!({"repositories": []}),
                "spec.config.repositories",
            ),
            ("github", json!({"users": ["a", 1]}), "spec.config.users"),
            (
                "postgres",
                json!({"autodiscover_databases": true}),
                "spec.config.autodiscover_databases",
            ),
            (
                "elasticsearch",
                json!({"es_uri": "http://es:9200"}),
                "spec.config.es_uri",
            ),
            (
                "elasticsearch",
                json!({"timeout": "soon"}),
                "spec.config.timeout",
            ),
            (
                "elasticsearch",
                json!({"basic_auth": {"username": 1}}),
                "spec.config.basic_auth.username",
            ),
            (
                "elasticsearch",
                json!({"basic_auth": {"username_file": "/u"}}),
                "spec.config.basic_auth.username_file",
            ),
            (
                "blackbox",
                json!({"blackbox_config": {}, "probe_timeout_offset": 0.0005}),
                "spec.config.probe_timeout_offset",
            ),
            (
                "blackbox",
                json!({"config_file": "/b.yml", "probe_timeout_offset": -1.0}),
                "spec.config.probe_timeout_offset",
            ),
            ("blackbox", json!({}), "spec.config.blackbox_config"),
            (
                "snmp",
                json!({"walk_params": {"slow": {"allow_nonincreasing_oids": true}}}),
                "spec.config.walk_params.slow.allow_nonincreasing_oids",
            ),
            (
                "snmp",
                json!({"walk_params": {"slow-links": {"retries": 3}}}),
                "spec.config.walk_params.slow-links",
            ),
            (
                "snmp",
                json!({"snmp_targets": [{"name": "a", "address": "b", "labels": {}}]}),
                "spec.config.snmp_targets[0].labels",
            ),
            (
                "blackbox",
                json!({"blackbox_config": ["modules"]}),
                "spec.config.blackbox_config",
            ),
            (
                "blackbox",
                json!({"blackbox_targets": [{"name": "a", "address": "b", "labels": {}}]}),
                "spec.config.blackbox_targets[0].labels",
            ),
        ];
        for (integration, config, field) in cases {
            let (named, _) = untranslated(integration, &config)
                .unwrap_or_else(|| panic!("{integration} {config} is translated"));
            assert_eq!(named, field, "{integration} {config}");
        }
    }

    #[test]
    fn the_mapped_settings_and_nulls_are_translated() {
        let cases = [
            ("statsd", json!(null)),
            (
                "statsd",
                json!({"autoscrape": {"enable": true, "metrics_instance": "a", "scrape_interval": "1m30s", "scrape_timeout": null}}),
            ),
            (
                "redis",
                json!({"redis_addr": "r:6379", "redis_user": null, "instance": "r", "extra_labels": {"team": "a"}}),
            ),
            (
                "dnsmasq",
                json!({"dnsmasq_address": "d:53", "expose_leases": true}),
            ),
            (
                "consul",
                json!({"timeout": "2s", "concurrent_request_limit": 4, "allow_stale": false}),
            ),
            (
                "github",
                json!({"repositories": ["grafana/alloy"], "api_token_file": "/t"}),
            ),
            (
                "postgres",
                json!({"data_source_names": ["postgresql://db"], "query_path": "/q"}),
            ),
            (
                "elasticsearch",
                json!({"timeout": "10s", "aliases": false, "basic_auth": {"username": "u", "password": null, "password_file": "/p"}}),
            ),
            (
                "blackbox",
                json!({"blackbox_config": {"modules": {}}, "blackbox_targets": [{"name": "a", "address": "b", "module": null}], "probe_timeout_offset": 1.001}),
            ),
            (
                "snmp",
                json!({"config_file": "/s.yml", "snmp_targets": [{"name": "a", "address": "b", "auth": "public_v2"}]}),
            ),
            (
                "snmp",
                json!({"snmp_config": {"auths": {"v2": {"community": "c"}}}, "walk_params": {"slow": {"max_repetitions": 5, "retries": 0, "timeout": "10s", "use_unconnected_udp_socket": true}}}),
            ),
        ];
        for (integration, config) in cases {
            assert_eq!(
                untranslated(integration, &config),
                None,
                "{integration} {config}"
            );
        }
    }
}
