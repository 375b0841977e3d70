//! Runtime `alloy` in Alloy's own configuration syntax: the typed static-mode config the
//! operator renders (the same jobs, rules, credentials and settings as for the agent) written
//! as Alloy components, instead of handing Alloy a static-mode file to convert with its
//! "public preview" converter (issue 34).
//!
//! One module per concern: [`metrics`] (scrape jobs and remote_write), [`scrape_config`]
//! (ScrapeConfigs' discoveries and client settings), [`logs`] (PodLogs jobs, their pipelines
//! and the Loki clients), [`integrations`] (the exporters and their autoscrape), [`http`]
//! (the client settings every component shares). Pure: functions of the typed config,
//! written with [`crate::alloy_syntax`].

pub mod additional;
pub mod http;
pub mod integrations;
pub mod logs;
pub mod metrics;
pub mod scrape_config;

use std::borrow::Cow;

use thiserror::Error;

use crate::alloy_syntax::{Block, Body, Expr, Identifier, SyntaxError, append_top_block};
use crate::config;
use crate::config::metrics::{ScrapeContext, SectionOptions};
use crate::discover::Hierarchy;
use crate::expansion::{ConfigString, SHARD_VARIABLES};
use crate::input_ref::InputRef;
use crate::render_cache::RenderedText;

pub use metrics::{metrics, metrics_of};

/// What the native syntax cannot say (yet) of a rendered config, naming the instance and job.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum NativeError {
    #[error("MetricsInstance {instance}: additionalScrapeConfigs item [{item}]: {field}: {why}")]
    Verbatim {
        instance: String,
        item: usize,
        field: String,
        why: String,
    },
    #[error("job {job:?}: {what} has no native Alloy translation")]
    Unsupported { job: String, what: String },
    #[error("component label: {0}")]
    Label(#[from] SyntaxError),
}

/// Whether `h`'s metrics StatefulSets run a config in Alloy's own syntax: runtime `alloy`
/// without `spec.alloy.configFormat: static`, and nothing [`metrics_kept_static`] names
/// (such an agent's metrics stay static, `crate::alloy::warnings` says so). The config and
/// the pods' arguments both follow this one answer.
pub fn native_metrics(h: &Hierarchy) -> bool {
    crate::alloy::native_requested(h) && metrics_kept_static(h).next().is_none()
}

/// What keeps an agent's metrics static under `configFormat: native`: each selected
/// MetricsInstance whose `additionalScrapeConfigs` (raw Prometheus jobs) hold a field this
/// writer does not translate, with why ([`additional::why_static`]).
pub fn metrics_kept_static(
    h: &Hierarchy,
) -> impl Iterator<Item = (InputRef, &'static str, String)> + '_ {
    const FIELD: &str = "spec.additionalScrapeConfigs";
    h.metrics.iter().filter_map(|node| {
        let why = additional::why_static(&h.assets, node, FIELD)?;
        Some((node.instance_ref(), FIELD, why))
    })
}

/// Whether `h`'s metrics pods form one Alloy cluster that shares the targets
/// (`spec.alloy.clustering.enabled`, docs/alloy.md "Clustering"): only when the metrics
/// config is native ([`native_metrics`]), since the static converter always writes clustering
/// off. The StatefulSet plan, the pods' flags and the scrape components follow this one answer.
pub fn clustering(h: &Hierarchy) -> bool {
    crate::alloy::clustering_requested(h) && native_metrics(h)
}

/// The metrics StatefulSets' config of `h` in Alloy's syntax, with what rendering left out;
/// `None` when the agent has no MetricsInstance. For agents of
/// [`native_metrics`].
pub fn metrics_text(h: &Hierarchy) -> Result<Option<RenderedText>, NativeError> {
    if h.metrics.is_empty() {
        return Ok(None);
    }
    let mut rejections = Vec::new();
    // `$(SHARD)` and `$(SHARDS)` in any string stay the loader's, as in the static-mode
    // metrics config (upstream documents them for users' own hashmod rules).
    let mut text = if uses_additional_scrape_configs(h) {
        // Additional jobs are checked against the monitors' job names: the whole section is
        // rendered, as the static config is for such an agent.
        let section = config::metrics::section(h, SectionOptions::METRICS, &mut rejections);
        let body = metrics::metrics_of(&section, clustering(h))?;
        crate::alloy_syntax::write_file_keeping(&body, &SHARD_VARIABLES)
    } else {
        let options = SectionOptions {
            include_monitors: false,
            ..SectionOptions::METRICS
        };
        let section = config::metrics::section(h, options, &mut rejections);
        let ctx = ScrapeContext::new(&h.agent, &h.assets, &mut rejections);
        metrics::metrics_by_monitor(h, &section, &ctx, &mut rejections)?
    };
    // The agent's log level and format, as the logs and integrations configs carry them.
    let mut server = Body::default();
    logs::logging(&mut server, &config::ServerConfig::of(&h.agent));
    for block in &server.blocks {
        append_top_block(&mut text, block, &SHARD_VARIABLES);
    }
    Ok(Some(RenderedText {
        text: text.into(),
        rejections,
        largest: Vec::new(),
    }))
}

/// Whether an instance of `h` has `additionalScrapeConfigs`.
fn uses_additional_scrape_configs(h: &Hierarchy) -> bool {
    h.metrics
        .iter()
        .any(|node| node.instance.spec.additional_scrape_configs.is_some())
}

/// A component label made of sanitised names.
fn label(text: String) -> Result<Identifier, NativeError> {
    Ok(Identifier::new(text)?)
}

/// An identifier the operator writes itself (attribute and block names).
fn name(text: &str) -> Identifier {
    Identifier::new(text).unwrap_or_else(|e| panic!("operator-written name: {e}"))
}

/// [`name`] for a name in the code, without a copy (the hot path: every attribute).
fn known(text: &'static str) -> Identifier {
    Identifier::of_static(text).unwrap_or_else(|e| panic!("operator-written name: {e}"))
}

/// A block without a label: `a.b { }`.
fn block(dotted: &str) -> Block {
    Block::new(path_of(dotted), None)
}

/// A component: `kind "label" { }`.
fn component(kind: &str, label: &Identifier) -> Block {
    Block::new(path_of(kind), Some(label.clone()))
}

/// The names of a block or component kind: borrowed for those every scrape job has (a job
/// of 20 relabel rules has 20 `rule` blocks), made for the others.
fn path_of(dotted: &str) -> Cow<'static, [Identifier]> {
    const RULE: &[Identifier] = &[Identifier::known("rule")];
    const DISCOVERY_KUBERNETES: &[Identifier] = &[
        Identifier::known("discovery"),
        Identifier::known("kubernetes"),
    ];
    const DISCOVERY_RELABEL: &[Identifier] =
        &[Identifier::known("discovery"), Identifier::known("relabel")];
    const PROMETHEUS_SCRAPE: &[Identifier] =
        &[Identifier::known("prometheus"), Identifier::known("scrape")];
    const PROMETHEUS_RELABEL: &[Identifier] = &[
        Identifier::known("prometheus"),
        Identifier::known("relabel"),
    ];
    const TLS_CONFIG: &[Identifier] = &[Identifier::known("tls_config")];
    const BASIC_AUTH: &[Identifier] = &[Identifier::known("basic_auth")];
    const AUTHORIZATION: &[Identifier] = &[Identifier::known("authorization")];
    const SELECTORS: &[Identifier] = &[Identifier::known("selectors")];
    const NAMESPACES: &[Identifier] = &[Identifier::known("namespaces")];
    let known = match dotted {
        "rule" => RULE,
        "discovery.kubernetes" => DISCOVERY_KUBERNETES,
        "discovery.relabel" => DISCOVERY_RELABEL,
        "prometheus.scrape" => PROMETHEUS_SCRAPE,
        "prometheus.relabel" => PROMETHEUS_RELABEL,
        "tls_config" => TLS_CONFIG,
        "basic_auth" => BASIC_AUTH,
        "authorization" => AUTHORIZATION,
        "selectors" => SELECTORS,
        "namespaces" => NAMESPACES,
        _ => return Cow::Owned(dotted.split('.').map(name).collect()),
    };
    Cow::Borrowed(known)
}

/// `kind.label.export`, the reference to a component's export.
fn reference(kind: &str, label: &Identifier, export: &str) -> Expr {
    let mut path: Vec<Identifier> = kind.split('.').map(name).collect();
    path.push(label.clone());
    path.push(name(export));
    Expr::Reference(path)
}

/// `key = value` when there is a value.
fn optional(body: &mut Body, key: &'static str, value: Option<Expr>) {
    if let Some(value) = value {
        body.attribute(known(key), value);
    }
}

/// A Prometheus duration (`1d12h`, `90s`, `2w`) as Alloy reads durations (Go's, which has
/// no days, weeks or years): the same length in hours, minutes, seconds and milliseconds. The
/// typed config holds only durations its renderer checked; anything else is written as it
/// is, for Alloy to refuse by name.
fn duration(text: &str) -> Expr {
    Expr::String(go_duration(text).unwrap_or_else(|| text.to_owned()))
}

/// The length of a Prometheus duration in milliseconds.
fn milliseconds(text: &str) -> Option<u128> {
    const UNITS_MS: [(&str, u128); 7] = [
        ("ms", 1),
        ("s", 1_000),
        ("m", 60_000),
        ("h", 3_600_000),
        ("d", 86_400_000),
        ("w", 604_800_000),
        ("y", 31_536_000_000),
    ];
    if text.is_empty() {
        return None;
    }
    let mut rest = text;
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit())?;
        let number: u128 = rest[..digits].parse().ok()?;
        let after = &rest[digits..];
        let (unit, ms) = UNITS_MS.iter().find(|(unit, _)| after.starts_with(unit))?;
        total = total.checked_add(number.checked_mul(*ms)?)?;
        rest = &after[unit.len()..];
    }
    Some(total)
}

fn go_duration(text: &str) -> Option<String> {
    let total = milliseconds(text)?;
    let mut out = String::new();
    let parts = [
        (total / 3_600_000, "h"),
        (total / 60_000 % 60, "m"),
        (total / 1_000 % 60, "s"),
        (total % 1_000, "ms"),
    ];
    for (value, unit) in parts {
        if value > 0 {
            out.push_str(&format!("{value}{unit}"));
        }
    }
    Some(if out.is_empty() { "0s".to_owned() } else { out })
}

/// A string of the typed config: the operator's pod variables stay references for the config
/// loader; everything else is a literal.
fn config_string(text: &ConfigString) -> Expr {
    config_string_into(text.clone())
}

/// [`config_string`], its text moved into the value.
fn config_string_into(text: ConfigString) -> Expr {
    match text {
        ConfigString::Literal(s) => Expr::String(s),
        ConfigString::PodVariable(s) => Expr::PodVariable(s),
    }
}

#[cfg(test)]
mod tests {
    use super::go_duration;

    #[test]
    fn prometheus_durations_become_go_durations_of_the_same_length() {
        let cases = [
            ("30s", "30s"),
            ("1m", "1m"),
            ("90s", "1m30s"),
            ("1d12h", "36h"),
            ("2w", "336h"),
            ("292y", "2557920h"),
            ("106751d", "2562024h"),
            ("1h0m30s250ms", "1h30s250ms"),
            ("0s", "0s"),
        ];
        for (prometheus, go) in cases {
            assert_eq!(go_duration(prometheus).as_deref(), Some(go), "{prometheus}");
        }
        for not_a_duration in ["", "s", "1x", "1.5s", "-1s"] {
            assert_eq!(go_duration(not_a_duration), None, "{not_a_duration}");
        }
    }
}
