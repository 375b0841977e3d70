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
const DELIBERATE: [(&str, &str, &str); 4] = [
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
    (
        "prometheus.exporter.blackbox",
        "probe_timeout_offset",
        "the agent's offset is seconds (a float, 0.5 by default): native writes that length; \
         the converter casts the float to nanoseconds (0.5 becomes 0s, 1.5 becomes 1ns)",
    ),
    (
        "prometheus.exporter.snmp",
        "config",
        "snmp's inline snmp_config (modules and auths): native writes it as the component's \
         config; the converter drops it, so Alloy would run the embedded modules instead",
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
const EXPORTERS: [&str; 16] = [
    "apache",
    "blackbox",
    "consul",
    "dnsmasq",
    "elasticsearch",
    "github",
    "kafka",
    "memcached",
    "mongodb",
    "mysql",
    "postgres",
    "process",
    "redis",
    "snmp",
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
            let deliberate = DELIBERATE
                .iter()
                .find(|(k, i, _)| *k == kind && *i == name.as_str());
            if let Some((_, item, _)) = deliberate {
                if a != b {
                    seen.insert(*item);
                }
                continue;
            }
            let (a, b) = (
                a.map(|v| as_yaml(kind, name, v)),
                b.map(|v| as_yaml(kind, name, v)),
            );
            if a != b {
                out.push(format!(
                    "{component}: {name}: native {} / converted {}",
                    a.map_or("(none)".into(), |v| v.to_string()),
                    b.map_or("(none)".into(), |v| v.to_string())
                ));
            }
        }
    }
    out
}

/// The blackbox exporter's `config` is a YAML document in a string: the native writer writes
/// it as JSON, the converter as Go's YAML; compared as the mapping both are.
fn as_yaml(kind: &str, name: &str, value: &Value) -> Value {
    match value {
        Value::String(text) if kind == "prometheus.exporter.blackbox" && name == "config" => {
            serde_saphyr::from_str::<Value>(text)
                .unwrap_or_else(|e| panic!("blackbox config {text:?}: {e}"))
        }
        other => other.clone(),
    }
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
const FILE_ARGUMENTS: [(&str, &str); 10] = [
    ("redis_password_file", "secret"),
    ("api_token_file", "token"),
    // A CA certificate (consul, elasticsearch): a self-signed one parses as the pool's only
    // certificate.
    ("ca_file", include_str!("agent_loads/stand-in.crt")),
    ("ca", include_str!("agent_loads/stand-in.crt")),
    // elasticsearch's client certificate and key, which must make a pair, and its password.
    ("client_cert", include_str!("agent_loads/stand-in.crt")),
    (
        "client_private_key",
        include_str!("agent_loads/stand-in.key"),
    ),
    ("password_file", "secret"),
    // consul's and kafka's client certificate and key.
    ("cert_file", include_str!("agent_loads/stand-in.crt")),
    ("key_file", include_str!("agent_loads/stand-in.key")),
    // snmp's modules and auths (none: the exporter's own are merged in only on request).
    ("config_file", "modules: {}\n"),
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
    let mut kafka_checked = false;
    let scratch = support::configs::scratch_dir("alloy-native-integrations", "load");
    let mut failures = Vec::new();
    for &i in &chosen {
        let (name, text) = &texts[i];
        let dir = scratch.join(i.to_string());
        let text = on_this_host(text, &dir.join("files"));
        match loads(&alloy, &text, &dir) {
            Ok(()) => {}
            Err(e) if only_host_gaps(&e) => eprintln!("{name}: arguments accepted; {e}"),
            Err(e) if only_unreachable_kafka(&e, &text) => {
                kafka_checked = true;
                eprintln!(
                    "{name}: arguments accepted, the kafka exporters fail on their brokers only"
                )
            }
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
    assert!(
        kafka_checked,
        "no loaded config stopped on the kafka exporters' brokers"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// What a kafka exporter says when it cannot reach its brokers or ZooKeeper (none runs here):
/// it connects to be built, after Alloy decoded and validated its arguments and it read its
/// TLS files.
const KAFKA_UNREACHABLE: [&str; 2] = [
    "could not instantiate kafka lag exporter: Error Init Kafka Client: kafka: client has run out of available brokers to talk to",
    "could not instantiate kafka lag exporter: error connecting to zookeeper",
];

/// Whether Alloy, running `text`, stopped on nothing but one such error per kafka exporter
/// (each logged, then reported as the load's `Error:`).
fn only_unreachable_kafka(log: &str, text: &str) -> bool {
    let unreachable = |l: &&str| KAFKA_UNREACHABLE.iter().any(|k| l.contains(k));
    let reported: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("Error:"))
        .filter(|l| !l.contains("could not perform the initial load"))
        .collect();
    let exporters = text.matches("prometheus.exporter.kafka \"").count();
    exporters > 0
        && reported.len() == exporters
        && reported.iter().all(unreachable)
        && log
            .lines()
            .filter(|l| l.contains("level=error"))
            .all(|l| unreachable(&l))
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

/// The exporters that must report healthy in the real Alloy, from the native configs of
/// `integrations/alloy-native-exporters` as this host runs them: their backends are names that
/// do not resolve, and none of these connects to be built (blackbox probes when scraped,
/// elasticsearch, mongodb and snmp connect per scrape, cadvisor reads this host's cgroups). kafka
/// connects to its brokers to be built, so it cannot be healthy here: its case is
/// `alloy-native-kafka`, which [`every_native_integrations_construct_loads_in_the_real_alloy`]
/// runs until Alloy has decoded and validated its arguments and fails on the brokers only.
const HEALTH_CHECKED: [&str; 5] = ["blackbox", "cadvisor", "elasticsearch", "mongodb", "snmp"];

/// `GET path` on Alloy's HTTP server: the body of a 200 answer.
fn http_get(port: u16, path: &str) -> Option<String> {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    let request = format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    let ok = head.starts_with("HTTP/1.1 200") || head.starts_with("HTTP/1.0 200");
    ok.then(|| body.to_owned())
}

/// `(component id, health state)` of every exporter Alloy runs, from its components API.
fn exporter_health(port: u16) -> Option<Vec<(String, String)>> {
    let body = http_get(port, "/api/v0/web/components")?;
    let components: Vec<Value> = serde_json::from_str(&body).ok()?;
    Some(
        components
            .iter()
            .filter_map(|c| {
                let id = c["localID"].as_str()?;
                id.starts_with("prometheus.exporter.").then(|| {
                    let state = c["health"]["state"].as_str().unwrap_or("(none)");
                    (id.to_owned(), state.to_owned())
                })
            })
            .collect(),
    )
}

/// Kills Alloy when dropped, so that a failing assertion leaves nothing running.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What Alloy running `text` (in `dir`) reports of its exporters once every one of
/// [`HEALTH_CHECKED`] kinds is healthy, or within 60 s; with the blackbox exporter's answer to
/// a probe of a port this test listens on, through the case's `tcp_connect` module.
fn run_until_healthy(alloy: &Path, text: &str, dir: &Path) -> (Vec<(String, String)>, String) {
    let text = on_this_host(text, &dir.join("files"));
    std::fs::write(dir.join("config.alloy"), &text).expect("config");
    let port = support::alloy_run::free_port();
    let log = dir.join("alloy.log");
    let child = std::process::Command::new(alloy)
        .arg("run")
        .arg(dir.join("config.alloy"))
        .arg(format!("--server.http.listen-addr=127.0.0.1:{port}"))
        .arg(format!("--storage.path={}", dir.join("data").display()))
        .arg("--disable-reporting")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).expect("log"))
        .spawn()
        .expect("alloy run");
    let mut running = Running(child);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut last = Vec::new();
    loop {
        if let Ok(Some(status)) = running.0.try_wait() {
            panic!(
                "alloy exited ({status}): {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        if let Some(health) = exporter_health(port) {
            let done = health.iter().all(|(id, state)| {
                state == "healthy"
                    || !HEALTH_CHECKED
                        .iter()
                        .any(|kind| id.starts_with(&format!("prometheus.exporter.{kind}.")))
            });
            last = health;
            if done && !last.is_empty() {
                break;
            }
        }
        if std::time::Instant::now() > deadline {
            eprintln!("{}", std::fs::read_to_string(&log).unwrap_or_default());
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port to probe");
    let target = listener.local_addr().expect("its address");
    let probe = http_get(
        port,
        &format!(
            "/api/v0/component/prometheus.exporter.blackbox.integrations_blackbox/metrics?module=tcp_connect&target={target}"
        ),
    );
    (last, probe.unwrap_or_default())
}

/// The native configs of the golden case of the typed kinds run in the real Alloy, and Alloy
/// reports each exporter of [`HEALTH_CHECKED`] kinds healthy (built from its arguments and
/// running), not only the config loaded; the blackbox modules reach the exporter (a probe
/// through one of them succeeds).
#[test]
fn the_new_exporters_report_healthy_in_the_real_alloy() {
    let alloy = alloy_binary();
    let cases: Vec<(String, String)> = every_case()
        .into_iter()
        .filter(|c| c.name.starts_with("integrations/alloy-native-exporters"))
        .filter_map(|c| Some((c.name, c.native.ok()?)))
        .collect();
    assert_eq!(
        cases.len(),
        2,
        "the native agent's Deployment and DaemonSet configs"
    );
    let scratch = support::configs::scratch_dir("alloy-native-integrations", "health");
    let mut health = Vec::new();
    let mut probed = false;
    for (i, (name, text)) in cases.iter().enumerate() {
        let (states, probe) = run_until_healthy(&alloy, text, &scratch.join(i.to_string()));
        eprintln!("{name}: {states:?}");
        if text.contains("prometheus.exporter.blackbox ") {
            assert!(
                probe.lines().any(|l| l == "probe_success 1"),
                "{name}: the blackbox probe through module tcp_connect: {probe}"
            );
            probed = true;
        }
        health.extend(states);
    }
    assert!(probed, "no config has the blackbox exporter");
    for kind in HEALTH_CHECKED {
        let prefix = format!("prometheus.exporter.{kind}.");
        let of_kind: Vec<_> = health
            .iter()
            .filter(|(id, _)| id.starts_with(&prefix))
            .collect();
        assert!(!of_kind.is_empty(), "no {kind} exporter ran: {health:?}");
        for (id, state) in of_kind {
            assert_eq!(state, "healthy", "{id}");
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
