//! Proof of the native Alloy integrations configuration (`render::alloy_native::integrations`,
//! issue 34) against the real Alloy: for every golden case and the bundled examples, each
//! agent's integrations configs (Deployment and DaemonSet) are written natively and, beside
//! them, the static-mode configs the integrations pods run today go through `alloy convert`.
//! Both are read component by component (`support::alloy_parse`): the exporters, their
//! relabelling and their scrapes must be equal, but for the differences [`DELIBERATE`] names;
//! the instances' `prometheus.remote_write` and `loki.write` must be there under the same labels
//! (their arguments are `alloy_native::metrics` and `alloy_native::logs`, proven in
//! `alloy_native.rs` and `alloy_native_logs.rs`). `alloy fmt` must leave the native text as
//! written, and the fewest configs that hold every construct must load in `alloy run`.

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use render::alloy_native::integrations::{IntegrationsNativeError, integrations_text};
use render::desired::Subsystem;
use render::workloads::integrations::Accepted;
use serde_json::{Map, Value};
use support::alloy_parse::components;
use support::alloy_run::{
    alloy_binary, constructs, convert_static, covering, formatted_as_written, loads, normalized,
    only_host_gaps,
};

/// What the native config says otherwise than the converter's, by component kind and
/// attribute or block, and why.
const DELIBERATE: [(&str, &str, &str); 2] = [
    (
        "prometheus.remote_write",
        "wal",
        "a MetricsInstance's WAL settings (walTruncateFrequency, minWALTime, maxWALTime): the \
         converter drops them (as in the metrics config)",
    ),
    (
        "prometheus.remote_write",
        "endpoint",
        "an instance without remote_write: native writes its prometheus.remote_write without \
         endpoints; the converter writes none and refers to it, which Alloy refuses (as in the \
         metrics config)",
    ),
];

/// Alloy's defaults, by block: an attribute set to its default says nothing more than one
/// left out.
const DEFAULTS: [(&str, &str, &str); 4] = [
    ("prometheus.scrape", "scrape_interval", "60000"),
    ("prometheus.scrape", "scrape_timeout", "10000"),
    ("logging", "level", "\"info\""),
    ("logging", "format", "\"logfmt\""),
];

/// The component kinds compared argument by argument; the others are the instances', checked
/// by label here and by argument in the metrics and logs proofs.
const COMPARED: [&str; 4] = [
    "prometheus.exporter.",
    "discovery.relabel",
    "prometheus.scrape",
    "logging",
];

/// The exporters the native writer translates: each must be in some case.
const EXPORTERS: [&str; 11] = [
    "apache",
    "consul",
    "dnsmasq",
    "github",
    "memcached",
    "mysql",
    "postgres",
    "process",
    "redis",
    "statsd",
    "unix",
];

/// One integrations config, both ways.
struct Case {
    name: String,
    native: Result<String, IntegrationsNativeError>,
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
        let env = support::shard_zero_env(&alloy_agent);
        let (h, _) = render::alloy::without_label_collisions(&discovery.hierarchy);
        let accepted = Accepted::new(&h);
        for all_nodes in [false, true] {
            let subsystem = Subsystem::integrations(all_nodes);
            let Some(config) = plan.configs.iter().find(|c| c.subsystem == subsystem) else {
                continue;
            };
            let expand = |text: &str| {
                support::expand_reloader_env(text, &env)
                    .unwrap_or_else(|e| panic!("{case}: {}: {e}", config.secret_name))
            };
            let rendered = render::config::integrations::render(
                &h,
                &accepted.workload(all_nodes).integrations,
            )
            .expect("an integrations config was planned");
            out.push(Case {
                name: format!("{case}: {}", config.secret_name),
                native: integrations_text(rendered).map(|t| expand(t.text.as_str())),
                static_text: expand(config.text.as_str()),
            });
        }
    }
    out
}

fn every_case() -> Vec<Case> {
    support::alloy_inputs().iter().flat_map(cases_of).collect()
}

/// `ours` against `theirs`: the components of [`COMPARED`] kinds argument by argument, the
/// others by label; every difference but the deliberate ones (noted in `seen`).
fn differences(
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    seen: &mut BTreeSet<&'static str>,
) -> Vec<String> {
    let mut out = Vec::new();
    let names: BTreeSet<&String> = ours.keys().chain(theirs.keys()).collect();
    for component in names {
        // A top-level block without a label (`logging`) is Alloy's defaults when left out.
        let unset = (!component.contains(' ')).then(|| Value::Object(Map::new()));
        let (Some(our_body), Some(their_body)) = (
            ours.get(component).or(unset.as_ref()),
            theirs.get(component).or(unset.as_ref()),
        ) else {
            // An instance without remote_write: native writes one without endpoints (samples
            // kept in the WAL only, as the agent does); the converter refers to a component
            // it does not write, a config Alloy refuses (as in the metrics config).
            let unsent = component.starts_with("prometheus.remote_write ")
                && ours
                    .get(component)
                    .is_some_and(|b| b.get("endpoint").is_none());
            if unsent {
                seen.insert("endpoint");
                continue;
            }
            let side = if ours.contains_key(component) {
                "not in the converted config"
            } else {
                "missing"
            };
            out.push(format!("{component}: {side}"));
            continue;
        };
        let kind = component.split(' ').next().unwrap_or_default();
        if !COMPARED.iter().any(|c| kind.starts_with(c)) {
            for (k, item, _) in DELIBERATE {
                if k == kind && our_body.get(item) != their_body.get(item) {
                    seen.insert(item);
                }
            }
            continue;
        }
        let (Value::Object(our_items), Value::Object(their_items)) = (
            normalized(kind, our_body, &DEFAULTS),
            normalized(kind, their_body, &DEFAULTS),
        ) else {
            continue;
        };
        let items: BTreeSet<&String> = our_items.keys().chain(their_items.keys()).collect();
        for name in items {
            let (a, b) = (our_items.get(name), their_items.get(name));
            if a != b {
                out.push(format!(
                    "{component}: {name}: native {} / converted {}",
                    a.map_or("(none)".into(), Value::to_string),
                    b.map_or("(none)".into(), Value::to_string)
                ));
            }
        }
    }
    out
}

#[test]
fn native_integrations_equal_the_converters_but_for_the_deliberate_differences() {
    let alloy = alloy_binary();
    let cases = every_case();
    assert!(cases.len() > 15, "only {} configs", cases.len());
    let mut failures = Vec::new();
    let (mut equal, mut untranslated) = (0, Vec::new());
    let mut deliberate_seen = BTreeSet::new();
    let mut exporters = BTreeSet::new();
    for case in &cases {
        if let (Some(dir), Ok(text)) = (std::env::var_os("ALLOY_NATIVE_DUMP"), &case.native) {
            let file = case.name.replace(['/', ' ', ':'], "_");
            std::fs::write(Path::new(&dir).join(format!("{file}.alloy")), text).expect("dump");
        }
        let native = match &case.native {
            Ok(text) => text,
            // What keeps an agent's integrations static (`render::alloy_native::integrations::native_integrations`),
            // warned about.
            Err(e @ IntegrationsNativeError::Untranslated { .. }) => {
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
            (Ok(ours), Ok(theirs)) => {
                exporters.extend(ours.keys().filter_map(|c| {
                    let kind = c.split(' ').next()?;
                    kind.strip_prefix("prometheus.exporter.").map(str::to_owned)
                }));
                differences(&ours, &theirs, &mut deliberate_seen)
            }
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
        "{equal} of {} integrations configs equal the converter's; not translated: {}",
        cases.len(),
        untranslated.len()
    );
    assert!(
        failures.is_empty(),
        "{} configs:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        untranslated
            .iter()
            .any(|u| u.contains("process_names") && u.contains("alloy-native-integrations")),
        "the fallback agent's process_names is not among the untranslated: {untranslated:?}"
    );
    assert!(equal > 10, "only {equal} configs compared");
    for exporter in EXPORTERS {
        assert!(
            exporters.contains(exporter),
            "no case writes prometheus.exporter.{exporter}"
        );
    }
    for (kind, item, why) in DELIBERATE {
        assert!(
            deliberate_seen.contains(item),
            "no case shows the deliberate difference {kind} {item} ({why})"
        );
    }
}

/// The host directories the pods mount for node_exporter and process (`/host/proc` is the
/// node's `/proc`), as this host has them.
const HOST_DIRECTORIES: [(&str, &str); 4] = [
    ("\"/host/proc\"", "\"/proc\""),
    ("\"/host/sys\"", "\"/sys\""),
    ("\"/host/root\"", "\"/\""),
    ("\"/host/run/udev/data\"", "\"/run/udev/data\""),
];

/// The exporters' arguments naming a file the pod has (a Secret's key) and this host lacks,
/// read when the component is built, with what the file holds here.
const FILE_ARGUMENTS: [(&str, &str); 3] = [
    ("redis_password_file", "secret"),
    ("api_token_file", "token"),
    // A CA certificate (consul): a self-signed one parses as the pool's only certificate.
    ("ca_file", include_str!("agent_loads/stand-in.crt")),
];

/// `text` with the pods' host directories as this host has them, and each file of
/// [`FILE_ARGUMENTS`] made in `files`: Alloy builds the exporters, which read them, when it
/// loads the config.
fn on_this_host(text: &str, files: &Path) -> String {
    std::fs::create_dir_all(files).expect("scratch files");
    let mut out = String::new();
    for (n, line) in text.lines().enumerate() {
        let mut line = line.to_owned();
        for (pod, host) in HOST_DIRECTORIES {
            line = line.replace(pod, host);
        }
        let argument = line.trim_start().split(' ').next().unwrap_or_default();
        if let Some((_, content)) = FILE_ARGUMENTS.iter().find(|(a, _)| *a == argument)
            && let Some((head, _)) = line.split_once(" = ")
        {
            let file = files.join(n.to_string());
            std::fs::write(&file, content).expect("scratch file");
            line = format!("{head} = {:?}", file.display().to_string());
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Every construct the native writer produced for any case (component kinds, attributes and
/// blocks) is loaded by the real Alloy at least once: the fewest configs that hold them all
/// are run, each until Alloy reports ready.
#[test]
fn every_native_integrations_construct_loads_in_the_real_alloy() {
    let alloy = alloy_binary();
    let texts: Vec<(String, String)> = every_case()
        .into_iter()
        .filter_map(|c| Some((c.name, c.native.ok()?)))
        .collect();
    let sets: Vec<BTreeSet<String>> = texts.iter().map(|(_, text)| constructs(text)).collect();
    let chosen = covering(&sets);
    let scratch = support::configs::scratch_dir("alloy-native-integrations", "load");
    let mut failures = Vec::new();
    for &i in &chosen {
        let (name, text) = &texts[i];
        let dir = scratch.join(i.to_string());
        let text = on_this_host(text, &dir.join("files"));
        match loads(&alloy, &text, &dir) {
            Ok(()) => {}
            Err(e) if only_host_gaps(&e) => eprintln!("{name}: arguments accepted; {e}"),
            Err(e) => failures.push(format!("{name} (files in {}): {e}", dir.display())),
        }
    }
    let all: BTreeSet<&String> = sets.iter().flatten().collect();
    eprintln!(
        "{} configs hold the {} constructs of {} native integrations configs; each loaded",
        chosen.len(),
        all.len(),
        texts.len()
    );
    for exporter in EXPORTERS {
        assert!(
            all.contains(&format!("prometheus.exporter.{exporter}")),
            "no loaded config has prometheus.exporter.{exporter}"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let _ = std::fs::remove_dir_all(&scratch);
}

/// An agent asking for native integrations with one the writer does not translate keeps both
/// integrations configs static, says which field, and its pods convert (`--config.format`);
/// the other agent's integrations run natively, their pods without it.
#[test]
fn an_untranslated_integration_keeps_its_agents_integrations_static_and_says_why() {
    let dir = support::repo_root().join("testdata/workloads/alloy-native-integrations");
    let out = support::render_case(&dir);
    for plan in &out.plans {
        let native = plan.agent.name == "native";
        let integrations: Vec<_> = plan
            .configs
            .iter()
            .filter(|c| {
                matches!(
                    c.subsystem,
                    Subsystem::IntegrationsDeployment | Subsystem::IntegrationsDaemonSet
                )
            })
            .collect();
        assert!(!integrations.is_empty(), "{}", plan.agent.name);
        for config in integrations {
            assert_eq!(config.alloy_syntax, native, "{}", config.secret_name);
        }
        let warned = plan.warnings.iter().any(|w| {
            let w = w.to_string();
            w.contains("Integration monitoring/processes")
                && w.contains("spec.config.process_names")
        });
        assert_eq!(warned, !native, "{}: {:?}", plan.agent.name, plan.warnings);
        for object in &plan.objects {
            let json = serde_json::to_value(&object.object).expect("serializable");
            let name = object.object.name();
            if !name.contains("-integrations-") || json.pointer("/spec/template").is_none() {
                continue;
            }
            let args = json
                .pointer("/spec/template/spec/containers")
                .and_then(Value::as_array)
                .and_then(|cs| cs.iter().find(|c| c["name"] == "grafana-agent"))
                .and_then(|c| c["args"].as_array())
                .expect("the grafana-agent container's args");
            let static_format = args
                .iter()
                .any(|a| a.as_str() == Some("--config.format=static"));
            assert_eq!(static_format, !native, "{name}: {args:?}");
        }
    }
}
