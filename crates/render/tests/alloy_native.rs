//! Proof of the native Alloy metrics configuration (`render::alloy_native`, issue 34) against
//! the real Alloy: for every golden case and the bundled examples, each agent's metrics are
//! written natively and, beside them, the static-mode config the pods run today goes through
//! `alloy convert`. Both are read component by component (`support::alloy_parse`: order,
//! layout and empty blocks aside) and must be equal, but for the differences
//! [`DELIBERATE`] names, each one a reason for the native path; and `alloy fmt` must leave the
//! native text as written.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use render::alloy_native::logs::logging;
use render::alloy_native::{NativeError, metrics};
use render::alloy_syntax::{Body, write_file_keeping};
use render::desired::Subsystem;
use render::expansion::SHARD_VARIABLES;
use serde_json::{Map, Value};
use support::alloy_parse::components;
use support::alloy_run::{
    alloy_binary, constructs, convert_static, covering, formatted_as_written, loads, normalized,
    only_host_gaps, with_api_server,
};

/// What the native config says otherwise than the converter's, by component kind and
/// attribute or block, and why.
const DELIBERATE: [(&str, &str, &str); 3] = [
    (
        "prometheus.remote_write",
        "wal",
        "a MetricsInstance's WAL settings (walTruncateFrequency, minWALTime, maxWALTime): the \
         converter drops them",
    ),
    (
        "discovery.http",
        "follow_redirects",
        "an HTTP discovery's followRedirects: false: the converter drops false, leaving \
         Alloy's default, true",
    ),
    (
        "discovery.http",
        "enable_http2",
        "an HTTP discovery's enableHTTP2: false: the converter drops false, leaving Alloy's \
         default, true",
    ),
];

/// Alloy's defaults, by block: an attribute set to its default says nothing more than one
/// left out (the converter leaves them out; the native config writes what the objects say).
const DEFAULTS: [(&str, &str, &str); 42] = [
    ("rule", "separator", "\";\""),
    ("rule", "replacement", "\"$1\""),
    ("rule", "action", "\"replace\""),
    ("rule", "regex", "\"(.*)\""),
    ("prometheus.scrape", "honor_labels", "false"),
    ("prometheus.scrape", "honor_timestamps", "true"),
    ("prometheus.scrape", "scheme", "\"http\""),
    ("prometheus.scrape", "metrics_path", "\"/metrics\""),
    ("prometheus.scrape", "scrape_interval", "60000"),
    ("prometheus.scrape", "scrape_timeout", "10000"),
    ("prometheus.scrape", "sample_limit", "0"),
    ("prometheus.scrape", "target_limit", "0"),
    (
        "prometheus.scrape",
        "scrape_fallback_protocol",
        "\"PrometheusText0.0.4\"",
    ),
    ("endpoint", "remote_timeout", "30000"),
    ("metadata_config", "send", "true"),
    ("metadata_config", "send_interval", "60000"),
    ("queue_config", "min_shards", "1"),
    ("queue_config", "max_samples_per_send", "2000"),
    ("queue_config", "batch_send_deadline", "5000"),
    ("queue_config", "min_backoff", "30"),
    ("queue_config", "max_backoff", "5000"),
    ("logging", "level", "\"info\""),
    ("logging", "format", "\"logfmt\""),
    ("discovery.consul", "server", "\"localhost:8500\""),
    ("discovery.consul", "tag_separator", "\",\""),
    ("discovery.consul", "scheme", "\"http\""),
    ("discovery.consul", "allow_stale", "true"),
    ("discovery.consul", "refresh_interval", "30000"),
    ("discovery.consul", "follow_redirects", "true"),
    ("discovery.consul", "enable_http2", "true"),
    ("discovery.dns", "refresh_interval", "30000"),
    ("discovery.dns", "type", "\"SRV\""),
    ("discovery.ec2", "port", "80"),
    ("discovery.ec2", "refresh_interval", "60000"),
    ("discovery.ec2", "follow_redirects", "true"),
    ("discovery.ec2", "enable_http2", "true"),
    ("discovery.file", "refresh_interval", "300000"),
    ("discovery.http", "refresh_interval", "60000"),
    ("discovery.http", "follow_redirects", "true"),
    ("discovery.http", "enable_http2", "true"),
    ("discovery.kubernetes", "follow_redirects", "true"),
    ("discovery.kubernetes", "enable_http2", "true"),
];

/// One agent's metrics, both ways (shard 0's text, as its pod reads it).
struct Case {
    name: String,
    native: Result<String, NativeError>,
    /// The native document itself, to run in Alloy.
    body: Option<Body>,
    /// The pod's environment of shard 0, as the config loader reads it.
    env: BTreeMap<String, String>,
    static_text: String,
}

fn cases_of(input: &support::AlloyInput) -> Vec<Case> {
    let case = &input.name;
    let mut out = Vec::new();
    for support::StaticAlloyAgent {
        agent: alloy_agent,
        discovery,
        plan,
    } in input.static_alloy_agents()
    {
        let Some(config) = plan
            .configs
            .iter()
            .find(|c| c.subsystem == Subsystem::Metrics)
        else {
            continue;
        };
        let env = support::shard_zero_env(&alloy_agent);
        let expand = |text: &str| {
            support::expand_reloader_env(text, &env)
                .unwrap_or_else(|e| panic!("{case}: {}: {e}", config.secret_name))
        };
        let (h, _) = render::alloy::without_label_collisions(&discovery.hierarchy);
        let config_of_h = render::config::metrics::render(&h)
            .expect("a metrics config was planned")
            .config;
        let section = config_of_h.metrics.expect("a metrics section");
        // The text as a plan writes it; the document too, to run it in Alloy.
        let native = render::alloy_native::metrics_text(&h).map(|rendered| {
            let rendered = rendered.expect("a metrics config was planned");
            expand(rendered.text.as_str())
        });
        out.push(Case {
            name: format!("{case}: {}", config.secret_name),
            native,
            body: metrics(&section).ok().map(|mut body| {
                logging(&mut body, &config_of_h.server);
                body
            }),
            static_text: expand(config.text.as_str()),
            env,
        });
    }
    out
}

fn every_case() -> Vec<Case> {
    support::alloy_inputs().iter().flat_map(cases_of).collect()
}

/// `ours` against `theirs`, component by component: every difference but the deliberate ones.
fn differences(
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    seen: &mut BTreeSet<&'static str>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (component, their_body) in theirs {
        let Some(our_body) = ours.get(component) else {
            out.push(format!("{component}: missing"));
            continue;
        };
        let kind = component.split(' ').next().unwrap_or_default();
        let (Value::Object(our_items), Value::Object(their_items)) = (
            normalized(kind, our_body, &DEFAULTS),
            normalized(kind, their_body, &DEFAULTS),
        ) else {
            continue;
        };
        let names: BTreeSet<&String> = our_items.keys().chain(their_items.keys()).collect();
        for name in names {
            let deliberate = DELIBERATE
                .iter()
                .find(|(k, item, _)| *k == kind && item == name);
            let (a, b) = (our_items.get(name), their_items.get(name));
            if let (true, Some((_, item, _))) = (a != b, deliberate) {
                seen.insert(item);
            }
            if a != b && deliberate.is_none() {
                out.push(format!(
                    "{component}: {name}: native {} / converted {}",
                    a.map_or("(none)".into(), Value::to_string),
                    b.map_or("(none)".into(), Value::to_string)
                ));
            }
        }
    }
    for component in ours.keys() {
        // An instance without remote_write: native writes one without endpoints (samples
        // kept in the WAL only, as the agent does); the converter refers to a component it
        // does not write, a config Alloy refuses.
        let unsent = component.starts_with("prometheus.remote_write ")
            && ours[component].get("endpoint").is_none();
        // A top-level block without a label (`logging`) that says only Alloy's defaults is
        // one the converter leaves out.
        let only_defaults = !component.contains(' ')
            && normalized(component, &ours[component], &DEFAULTS) == Value::Object(Map::new());
        if !theirs.contains_key(component) && !unsent && !only_defaults {
            out.push(format!("{component}: not in the converted config"));
        }
    }
    out
}

/// The plan writes the native config monitor by monitor, on every core
/// (`metrics_by_monitor`); the text is that of the whole document written at once.
#[test]
fn the_native_text_written_by_monitor_is_the_whole_documents() {
    let mut compared = 0;
    for case in every_case() {
        let (Ok(native), Some(body)) = (&case.native, &case.body) else {
            continue;
        };
        let whole =
            support::expand_reloader_env(&write_file_keeping(body, &SHARD_VARIABLES), &case.env)
                .expect("expand");
        assert_eq!(native, &whole, "{}", case.name);
        compared += 1;
    }
    assert!(compared > 50, "only {compared} configs compared");
}

#[test]
fn native_metrics_equal_the_converters_but_for_the_deliberate_differences() {
    let alloy = alloy_binary();
    let cases = every_case();
    assert!(cases.len() > 50, "only {} configs", cases.len());
    let mut failures = Vec::new();
    let (mut equal, mut untranslated) = (0, Vec::new());
    let mut deliberate_seen = BTreeSet::new();
    for case in &cases {
        if let (Some(dir), Ok(text)) = (std::env::var_os("ALLOY_NATIVE_DUMP"), &case.native) {
            let file = case.name.replace(['/', ' ', ':'], "_");
            std::fs::write(Path::new(&dir).join(format!("{file}.alloy")), text).expect("dump");
        }
        let native = match &case.native {
            Ok(text) => text,
            // What keeps an agent static (`render::alloy::native_metrics`), warned about.
            Err(e @ NativeError::Verbatim { .. }) => {
                untranslated.push(format!("{}: {e}", case.name));
                continue;
            }
            Err(e) => {
                failures.push(format!("{}: {e}", case.name));
                continue;
            }
        };
        let converted = match convert_static(&alloy, &case.static_text) {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{}: {e}", case.name));
                continue;
            }
        };
        if let Err(e) = formatted_as_written(&alloy, native) {
            failures.push(format!("{}: {e}", case.name));
        }
        let diffs = match (components(native), components(&converted)) {
            (Ok(ours), Ok(theirs)) => differences(&ours, &theirs, &mut deliberate_seen),
            (Err(e), _) => vec![format!("native text: {e}")],
            (_, Err(e)) => vec![format!("converted text: {e}")],
        };
        if diffs.is_empty() {
            equal += 1;
        } else {
            failures.push(format!("{}:\n  {}", case.name, diffs.join("\n  ")));
        }
    }
    eprintln!(
        "{equal} of {} metrics configs equal the converter's; not translated: {}",
        cases.len(),
        untranslated.len()
    );
    // Each deliberate difference is one a case shows: the list says what native changes.
    for (kind, item, why) in DELIBERATE {
        assert!(
            deliberate_seen.contains(item),
            "no case shows the deliberate difference {kind} {item} ({why})"
        );
    }
    assert!(
        failures.is_empty(),
        "{} configs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every construct the native writer produced for any case (component kinds, attributes and
/// blocks at every depth) is loaded by the real Alloy at least once: the fewest configs that
/// hold them all are run, each until Alloy reports ready.
#[test]
fn every_native_construct_loads_in_the_real_alloy() {
    let alloy = alloy_binary();
    let cases: Vec<Case> = every_case()
        .into_iter()
        .filter(|c| c.native.is_ok())
        .collect();
    let sets: Vec<BTreeSet<String>> = cases
        .iter()
        .map(|c| constructs(c.native.as_deref().unwrap_or_default()))
        .collect();
    let chosen = covering(&sets);
    let scratch = support::configs::scratch_dir("alloy-native", "load");
    let mut failures = Vec::new();
    for &i in &chosen {
        let case = &cases[i];
        let Some(body) = case.body.clone() else {
            continue;
        };
        let text = support::expand_reloader_env(
            &write_file_keeping(&with_api_server(body), &SHARD_VARIABLES),
            &case.env,
        )
        .expect("the shard's variables");
        let dir = scratch.join(i.to_string());
        match loads(&alloy, &text, &dir) {
            Ok(()) => {}
            Err(e) if only_host_gaps(&e) => {
                eprintln!("{}: arguments accepted; {e}", case.name);
            }
            Err(e) => failures.push(format!("{} (files in {}): {e}", case.name, dir.display())),
        }
    }
    eprintln!(
        "{} configs hold the {} constructs of {} native configs; each loaded",
        chosen.len(),
        sets.iter().flatten().collect::<BTreeSet<_>>().len(),
        cases.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let _ = std::fs::remove_dir_all(&scratch);
}
