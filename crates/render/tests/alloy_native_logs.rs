//! Proof of the native Alloy logs configuration (`render::alloy_native::logs`, issue 34)
//! against the real Alloy: for every golden case and the bundled examples, each agent's logs
//! config is written natively and, beside it, the static-mode config the logs pods run today
//! goes through `alloy convert`. Both are read component by component
//! (`support::alloy_parse`: order and layout aside, pipeline stages in order) and must be
//! equal (Alloy's defaults written or left out aside: [`DEFAULTS`]); `alloy fmt` must leave the native text as written, the fewest configs that hold every
//! construct must load in `alloy run`, and the agent's positions must be taken over.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use render::alloy_native::logs::{LogsNativeError, logging, logs, logs_text};
use render::alloy_syntax::{Body, Expr, Identifier, write_file};
use render::config::DATA_DIRECTORY;
use render::desired::Subsystem;
use serde_json::{Map, Value};
use support::alloy_parse::components;
use support::alloy_run::{
    EXTRA_ARGS, alloy_binary, constructs, convert_static, covering, formatted_as_written,
    free_port, loads, normalized, only_host_gaps, with_api_server,
};

/// Alloy's defaults, by block: an attribute set to its default says nothing more than one
/// left out (the converter leaves them out; the native config writes what the objects say).
const DEFAULTS: [(&str, &str, &str); 20] = [
    ("rule", "separator", "\";\""),
    ("rule", "replacement", "\"$1\""),
    ("rule", "action", "\"replace\""),
    ("rule", "regex", "\"(.*)\""),
    ("endpoint", "batch_wait", "1000"),
    ("endpoint", "batch_size", "1048576"),
    ("endpoint", "remote_timeout", "10000"),
    ("endpoint", "min_backoff_period", "500"),
    ("endpoint", "max_backoff_period", "300000"),
    ("endpoint", "max_backoff_retries", "10"),
    ("file_match", "sync_period", "10000"),
    ("logging", "level", "\"info\""),
    ("logging", "format", "\"logfmt\""),
    ("loki.write", "external_labels", "{}"),
    ("stage.pack", "ingest_timestamp", "true"),
    // Promtail's defaults, which the static config for Alloy writes out
    // (`stages::with_promtail_defaults`: the converter would copy them unset as zero) and the
    // converter leaves out again as Alloy's own.
    ("stage.multiline", "max_wait_time", "3000"),
    ("stage.multiline", "max_lines", "128"),
    ("metric.counter", "max_idle_duration", "300000"),
    ("metric.gauge", "max_idle_duration", "300000"),
    ("metric.histogram", "max_idle_duration", "300000"),
];

/// One agent's logs, both ways.
struct Case {
    name: String,
    native: Result<String, LogsNativeError>,
    /// The native document itself, to run in Alloy.
    body: Option<Body>,
    static_text: String,
    /// The LogsInstances' keys (`<namespace>/<name>`) by their name in the configs.
    instances: BTreeMap<String, String>,
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
        let Some(config) = plan.configs.iter().find(|c| c.subsystem == Subsystem::Logs) else {
            continue;
        };
        let env = support::shard_zero_env(&alloy_agent);
        let static_text = support::expand_reloader_env(config.text.as_str(), &env)
            .unwrap_or_else(|e| panic!("{case}: {}: {e}", config.secret_name));
        let (h, _) = render::alloy::without_label_collisions(&discovery.hierarchy);
        let rendered = render::config::logs::render(&h).expect("a logs config was planned");
        let native = logs_text(&h).map(|text| {
            text.expect("a logs config was planned")
                .text
                .as_str()
                .to_owned()
        });
        let body = rendered.config.logs.as_ref().and_then(|section| {
            let mut body = logs(section).ok()?;
            logging(&mut body, &rendered.config.server);
            Some(body)
        });
        let instances = h
            .logs
            .iter()
            .map(|node| {
                let key = node.instance_ref();
                (render::alloy::instance_name(&h, &key), key.key())
            })
            .collect();
        out.push(Case {
            name: format!("{case}: {}", config.secret_name),
            native,
            body,
            static_text,
            instances,
        });
    }
    out
}

fn every_case() -> Vec<Case> {
    support::alloy_inputs().iter().flat_map(cases_of).collect()
}

/// `ours` against `theirs`, component by component: every difference.
fn differences(ours: &Map<String, Value>, theirs: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    let names: BTreeSet<&String> = ours.keys().chain(theirs.keys()).collect();
    for component in names {
        // A top-level block without a label (`logging`) is Alloy's defaults when left out,
        // as the converter leaves it when the agent sets nothing else.
        let unset = (!component.contains(' ')).then(|| Value::Object(Map::new()));
        let (Some(our_body), Some(their_body)) = (
            ours.get(component).or(unset.as_ref()),
            theirs.get(component).or(unset.as_ref()),
        ) else {
            let side = if ours.contains_key(component) {
                "not in the converted config"
            } else {
                "missing"
            };
            out.push(format!("{component}: {side}"));
            continue;
        };
        let kind = component.split(' ').next().unwrap_or_default();
        let our_body = normalized(kind, our_body, &DEFAULTS);
        let their_body = normalized(kind, their_body, &DEFAULTS);
        let (Value::Object(our_items), Value::Object(their_items)) = (our_body, their_body) else {
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
fn native_logs_equal_the_converters() {
    let alloy = alloy_binary();
    let cases = every_case();
    assert!(cases.len() > 20, "only {} configs", cases.len());
    let mut failures = Vec::new();
    let (mut equal, mut untranslated) = (0, Vec::new());
    for case in &cases {
        if let (Some(dir), Ok(text)) = (std::env::var_os("ALLOY_NATIVE_DUMP"), &case.native) {
            let file = case.name.replace(['/', ' ', ':'], "_");
            std::fs::write(Path::new(&dir).join(format!("{file}.alloy")), text).expect("dump");
        }
        let native = match &case.native {
            Ok(text) => text,
            // What keeps an agent's logs static (`render::alloy::native_logs`), warned about.
            Err(
                e @ (LogsNativeError::Verbatim { .. } | LogsNativeError::ExpandedStrings { .. }),
            ) => {
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
            (Ok(ours), Ok(theirs)) => differences(&ours, &theirs),
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
        "{equal} of {} logs configs equal the converter's; not translated: {}",
        cases.len(),
        untranslated.len()
    );
    assert!(
        !untranslated.is_empty(),
        "no case keeps its logs static (additionalScrapeConfigs)"
    );
    assert!(
        failures.is_empty(),
        "{} configs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every `loki.source.file` imports the positions file the agent kept for its instance
/// (`<data>/<namespace>/<name>.yml`), and every instance's jobs are labelled after it.
#[test]
fn every_file_source_takes_the_agents_positions_over() {
    let mut sources = 0;
    for case in every_case() {
        let Ok(native) = &case.native else { continue };
        let parsed = components(native).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        for (component, body) in &parsed {
            let Some(label) = component.strip_prefix("loki.source.file ") else {
                continue;
            };
            let (instance, key) = case
                .instances
                .iter()
                .filter(|(instance, _)| label.starts_with(&format!("logs_{instance}_")))
                .max_by_key(|(instance, _)| instance.len())
                .unwrap_or_else(|| panic!("{}: {label} names no instance", case.name));
            let legacy = body.get("legacy_positions_file").and_then(Value::as_str);
            assert_eq!(
                legacy,
                Some(render::alloy::positions_file(DATA_DIRECTORY, key).as_str()),
                "{}: {component} of instance {instance}",
                case.name
            );
            sources += 1;
        }
    }
    assert!(sources > 20, "only {sources} file sources");
}

/// The agent's positions reach Alloy's: a `loki.source.file` of a native config, given the
/// agent's positions file as it leaves it, starts with those offsets in its own positions
/// file (`<storage.path>/loki.source.file.<label>/positions.yml`, the directory the same
/// label gives it under the static format too).
#[test]
fn alloy_imports_the_agents_positions_file() {
    let alloy = alloy_binary();
    let case = every_case()
        .into_iter()
        .find(|c| c.name == "workloads/alloy-native-logs: native-logs-config")
        .expect("the alloy-native-logs case");
    let body = case.body.expect("a native config");
    let scratch = support::configs::scratch_dir("alloy-native-logs", "positions");
    let legacy = scratch.join("agent-positions.yml");
    let log = "/var/log/pods/monitoring_web-0_0000/web/0.log";
    std::fs::write(&legacy, format!("positions:\n  {log}: \"4096\"\n")).expect("legacy positions");
    // The one source, its agent's file moved into the scratch directory.
    let mut sources = Vec::new();
    let mut body = with_api_server(body);
    for block in &mut body.blocks {
        let kind: Vec<&str> = block.name.iter().map(Identifier::as_str).collect();
        if kind == ["loki", "source", "file"] {
            for attribute in &mut block.body.attributes {
                if attribute.name.as_str() == "legacy_positions_file" {
                    attribute.value = Expr::string(legacy.display().to_string());
                }
            }
            sources.extend(block.label.as_ref().map(|l| l.as_str().to_owned()));
        }
    }
    assert!(!sources.is_empty(), "the case has no file source");
    let dir = scratch.join("run");
    // The pod's Secret files are not on this host; Alloy stops on them after every component
    // has been built, the file source and its positions included.
    match loads(&alloy, &write_file(&body), &dir) {
        Ok(()) => {}
        Err(e) if only_host_gaps(&e) => {}
        Err(e) => panic!("files in {}: {e}", dir.display()),
    }
    for label in &sources {
        let positions = dir
            .join("data")
            .join(format!("loki.source.file.{label}"))
            .join("positions.yml");
        let text = std::fs::read_to_string(&positions)
            .unwrap_or_else(|e| panic!("{}: {e}", positions.display()));
        assert!(
            text.contains(log) && text.contains("4096"),
            "{}:\n{text}",
            positions.display()
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A switch from the static format keeps Alloy's own positions: Alloy running the static
/// config (as the pods run it) keeps each file source's positions in
/// `<storage.path>/loki.source.file.<label>`, and the native config's file sources have
/// those same labels, so they find them.
#[test]
fn the_static_formats_file_sources_keep_their_positions_where_the_native_ones_look() {
    let alloy = alloy_binary();
    let case = every_case()
        .into_iter()
        .find(|c| c.name == "workloads/alloy-native-logs: native-logs-config")
        .expect("the alloy-native-logs case");
    let native = case.native.expect("a native config");
    let labels: Vec<String> = components(&native)
        .expect("the native config reads back")
        .keys()
        .filter_map(|c| c.strip_prefix("loki.source.file "))
        .map(str::to_owned)
        .collect();
    assert!(!labels.is_empty(), "the case has no file source");
    let scratch = support::configs::scratch_dir("alloy-native-logs", "static-positions");
    let file = scratch.join("agent.yml");
    std::fs::write(&file, &case.static_text).expect("static config");
    let storage = scratch.join("data");
    let mut child = std::process::Command::new(&alloy)
        .arg("run")
        .arg(&file)
        .arg("--config.format=static")
        .arg(format!("--config.extra-args={EXTRA_ARGS}"))
        .arg(format!(
            "--server.http.listen-addr=127.0.0.1:{}",
            free_port()
        ))
        .arg(format!("--storage.path={}", storage.display()))
        .arg("--disable-reporting")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(scratch.join("alloy.log")).expect("log file"))
        .spawn()
        .expect("alloy runs");
    let directories = |labels: &[String]| {
        labels
            .iter()
            .all(|l| storage.join(format!("loki.source.file.{l}")).is_dir())
    };
    // The pod's files and API server are not on this host: Alloy may stop once it has built
    // the components, the file sources among them.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !directories(&labels)
        && std::time::Instant::now() < deadline
        && child.try_wait().ok().flatten().is_none()
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        directories(&labels),
        "{labels:?} not all under {}:\n{}",
        storage.display(),
        std::fs::read_to_string(scratch.join("alloy.log")).unwrap_or_default()
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Every construct the native writer produced for any case (component kinds, attributes,
/// blocks and pipeline stages at every depth) is loaded by the real Alloy at least once: the
/// fewest configs that hold them all are run, each until Alloy reports ready.
#[test]
fn every_native_logs_construct_loads_in_the_real_alloy() {
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
    let scratch = support::configs::scratch_dir("alloy-native-logs", "load");
    let mut failures = Vec::new();
    for &i in &chosen {
        let case = &cases[i];
        let Some(body) = case.body.clone() else {
            continue;
        };
        let text = write_file(&with_api_server(body));
        let dir = scratch.join(i.to_string());
        match loads(&alloy, &text, &dir) {
            Ok(()) => {}
            Err(e) if only_host_gaps(&e) => {
                eprintln!("{}: arguments accepted; {e}", case.name);
            }
            Err(e) => failures.push(format!("{} (files in {}): {e}", case.name, dir.display())),
        }
    }
    let all: BTreeSet<&String> = sets.iter().flatten().collect();
    eprintln!(
        "{} configs hold the {} constructs of {} native logs configs; each loaded",
        chosen.len(),
        all.len(),
        cases.len()
    );
    // The stages the renderer supports are all among them.
    for stage in [
        "cri",
        "docker",
        "regex",
        "json",
        "replace",
        "template",
        "pack",
        "timestamp",
        "output",
        "label_drop",
        "label_keep",
        "labels",
        "limit",
        "metrics",
        "multiline",
        "tenant",
        "match",
        "drop",
    ] {
        let written = all
            .iter()
            .any(|c| c.starts_with("loki.process/") && c.ends_with(&format!("/stage/{stage}")));
        assert!(written, "no case writes stage.{stage}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let _ = std::fs::remove_dir_all(&scratch);
}
