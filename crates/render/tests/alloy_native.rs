//! Proof of the native Alloy metrics configuration (`render::alloy_native`, issue 34) against
//! the real Alloy: for every golden case and the bundled examples, each agent's metrics are
//! written natively and, beside them, the static-mode config the pods run today goes through
//! `alloy convert`. Both are read component by component (`support::alloy_parse`: order,
//! layout and empty blocks aside) and must be equal, but for the differences
//! [`DELIBERATE`] names, each one a reason for the native path; and `alloy fmt` must leave the
//! native text as written.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use api::{GrafanaAgent, Runtime};
use render::PlanOptions;
use render::alloy_native::{NativeError, metrics};
use render::alloy_syntax::{Body, Expr, Identifier, write_file_keeping};
use render::desired::Subsystem;
use render::discover::discover;
use render::expansion::SHARD_VARIABLES;
use render::manifest::Loader;
use serde_json::{Map, Value};
use support::alloy_parse::components;

/// The `--config.extra-args` of the pods.
const EXTRA_ARGS: &str = render::workloads::pod_template::ALLOY_EXTRA_ARGS;

/// What the native config says otherwise than the converter's, by component kind and
/// attribute or block, and why.
const DELIBERATE: [(&str, &str, &str); 1] = [(
    "prometheus.remote_write",
    "wal",
    "a MetricsInstance's WAL settings (walTruncateFrequency, minWALTime, maxWALTime): the \
     converter drops them",
)];

/// Alloy's defaults, by block: an attribute set to its default says nothing more than one
/// left out (the converter leaves them out; the native config writes what the objects say).
const DEFAULTS: [(&str, &str, &str); 21] = [
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
];

/// `text` in milliseconds when it is a duration as Prometheus (`1d`, `90s`) or Go
/// (`2562024h0m0s`) writes one, so that equal lengths compare equal.
fn milliseconds(text: &str) -> Option<u64> {
    let units: [(&str, u64); 8] = [
        ("ms", 1),
        ("s", 1_000),
        ("m", 60_000),
        ("h", 3_600_000),
        ("d", 86_400_000),
        ("w", 604_800_000),
        ("y", 31_536_000_000),
        ("ns", 0),
    ];
    let mut rest = text;
    let mut total = 0;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit())?;
        let number: u64 = rest[..digits].parse().ok()?;
        let after = &rest[digits..];
        let (unit, ms) = units.iter().find(|(unit, _)| after.starts_with(unit))?;
        total = number.checked_mul(*ms)?.checked_add(total)?;
        rest = &after[unit.len()..];
    }
    (!text.is_empty()).then_some(total)
}

/// `text` in bytes when it is a size as Prometheus (`10MB`, `1.5GiB`: both powers of 1024)
/// or Alloy's converter (`1GiB512MiB`) writes one.
fn bytes(text: &str) -> Option<u64> {
    const UNITS: [(&str, u32); 13] = [
        ("KiB", 1),
        ("MiB", 2),
        ("GiB", 3),
        ("TiB", 4),
        ("PiB", 5),
        ("EiB", 6),
        ("KB", 1),
        ("MB", 2),
        ("GB", 3),
        ("TB", 4),
        ("PB", 5),
        ("EB", 6),
        ("B", 0),
    ];
    let mut rest = text;
    let mut total = 0.0;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit() && c != '.')?;
        let number: f64 = rest[..digits].parse().ok()?;
        let after = &rest[digits..];
        let (unit, power) = UNITS.iter().find(|(unit, _)| after.starts_with(unit))?;
        total += number * 1024f64.powi(*power as i32);
        rest = &after[unit.len()..];
    }
    // Sizes are whole bytes; the float only carries fractions like 1.5GiB.
    (!text.is_empty()).then_some(total.round() as u64)
}

/// `value` without the attributes [`DEFAULTS`] names for `block`, recursively; endpoints of a
/// remote_write without the name the converter makes up for unnamed ones (`<instance>-<hash
/// of its settings>`: native leaves them unnamed and Alloy names them itself).
fn normalized(block: &str, value: &Value) -> Value {
    let Value::Object(items) = value else {
        return value.clone();
    };
    let mut out = Map::new();
    for (name, item) in items {
        let item = &match item {
            Value::String(text) if name == "body_size_limit" => {
                bytes(text).map_or(item.clone(), |b| b.into())
            }
            Value::String(text) => milliseconds(text).map_or(item.clone(), |ms| ms.into()),
            other => other.clone(),
        };
        let text = item.to_string();
        let default = DEFAULTS
            .iter()
            .any(|(b, n, v)| *b == block && n == name && text == *v);
        if default {
            continue;
        }
        let item = match item {
            // Nested blocks: a list of bodies; one left empty sets nothing.
            Value::Array(bodies) if bodies.iter().all(Value::is_object) && !bodies.is_empty() => {
                let bodies: Vec<Value> = bodies
                    .iter()
                    .map(|b| normalized(name, b))
                    .filter(|b| b.as_object().is_some_and(|o| !o.is_empty()))
                    .collect();
                if bodies.is_empty() {
                    continue;
                }
                Value::Array(bodies)
            }
            other => other.clone(),
        };
        out.insert(name.clone(), item);
    }
    if block == "endpoint"
        && let Some(Value::String(name)) = out.get("name")
        && name
            .rsplit_once('-')
            .is_some_and(|(_, hash)| hash.len() == 6)
    {
        out.remove("name");
    }
    Value::Object(out)
}

fn alloy_binary() -> PathBuf {
    support::configs::built_binary("ALLOY_BIN", "build-alloy", "alloy")
}

fn run(alloy: &Path, args: &[&str], stdin: &str) -> Result<String, String> {
    let mut child = Command::new(alloy)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", alloy.display()))?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(stdin.as_bytes())
        .map_err(|e| e.to_string())?;
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if output.status.success() {
        String::from_utf8(output.stdout).map_err(|e| e.to_string())
    } else {
        Err(format!(
            "alloy {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

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

fn cases_of(case: &str, texts: &[(String, String)], opts: &PlanOptions) -> Vec<Case> {
    let mut loader = Loader::new();
    for (source, text) in texts {
        loader.add_source(source, text);
    }
    let store = loader.finish().store;
    let mut out = Vec::new();
    for agent in store.agents() {
        if agent.spec.runtime.is_some_and(|r| r != Runtime::Alloy) {
            continue;
        }
        let mut alloy_agent: GrafanaAgent = agent.as_ref().clone();
        alloy_agent.spec.runtime = Some(Runtime::Alloy);
        // The static config beside the native one: what the pods ran before, or run with
        // `configFormat: static`.
        alloy_agent.spec.alloy = None;
        let alloy_agent = Arc::new(alloy_agent);
        let discovery = discover(&alloy_agent, &store);
        let plan = render::plan::plan(&discovery, opts);
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
        let section = render::config::metrics::render(&h)
            .and_then(|r| r.config.metrics)
            .expect("a metrics config was planned");
        // The text as a plan writes it; the document too, to run it in Alloy.
        let native = render::alloy_native::metrics_text(&h).map(|rendered| {
            let rendered = rendered.expect("a metrics config was planned");
            expand(rendered.text.as_str())
        });
        out.push(Case {
            name: format!("{case}: {}", config.secret_name),
            native,
            body: metrics(&section).ok(),
            static_text: expand(config.text.as_str()),
            env,
        });
    }
    out
}

fn every_case() -> Vec<Case> {
    let opts = PlanOptions {
        runtime: Runtime::Alloy,
        ..Default::default()
    };
    let mut out = Vec::new();
    for dir in support::configs::all_cases() {
        let name = dir
            .strip_prefix(support::repo_root().join("testdata"))
            .unwrap_or(&dir)
            .display()
            .to_string();
        let text = std::fs::read_to_string(dir.join("input.yaml")).expect("input");
        let mut case_opts = support::options(&dir);
        case_opts.runtime = Runtime::Alloy;
        out.extend(cases_of(&name, &[("input.yaml".into(), text)], &case_opts));
    }
    let mut examples = Vec::new();
    for entry in std::fs::read_dir(support::repo_root().join("examples"))
        .expect("examples")
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = std::fs::read_to_string(&path).expect("example");
            examples.push((path.display().to_string(), text));
        }
    }
    examples.sort();
    out.extend(cases_of("examples", &examples, &opts));
    out
}

/// `ours` against `theirs`, component by component: every difference but the deliberate ones.
fn differences(
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    seen: &mut BTreeSet<&'static str>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (component, their_body) in theirs {
        if component == "logging" {
            continue;
        }
        let Some(our_body) = ours.get(component) else {
            out.push(format!("{component}: missing"));
            continue;
        };
        let kind = component.split(' ').next().unwrap_or_default();
        let (Value::Object(our_items), Value::Object(their_items)) =
            (normalized(kind, our_body), normalized(kind, their_body))
        else {
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
        if !theirs.contains_key(component) && !unsent {
            out.push(format!("{component}: not in the converted config"));
        }
    }
    out
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
            Err(e @ (NativeError::Verbatim { .. } | NativeError::ScrapeConfig { .. })) => {
                untranslated.push(format!("{}: {e}", case.name));
                continue;
            }
            Err(e) => {
                failures.push(format!("{}: {e}", case.name));
                continue;
            }
        };
        let converted = match run(
            &alloy,
            &[
                "convert",
                "--source-format=static",
                &format!("--extra-args={EXTRA_ARGS}"),
                "--bypass-errors",
            ],
            &case.static_text,
        ) {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{}: {e}", case.name));
                continue;
            }
        };
        match run(&alloy, &["fmt"], native) {
            Ok(formatted) if formatted == *native => {}
            Ok(_) => failures.push(format!("{}: alloy fmt changes the native text", case.name)),
            Err(e) => failures.push(format!("{}: {e}\n{native}", case.name)),
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

/// Every `kind`, `kind/attribute` and `kind/block/.../attribute` path of a native config.
fn constructs(text: &str) -> BTreeSet<String> {
    fn walk(prefix: &str, value: &Value, out: &mut BTreeSet<String>) {
        let Value::Object(items) = value else { return };
        for (name, item) in items {
            let path = format!("{prefix}/{name}");
            out.insert(path.clone());
            if let Value::Array(bodies) = item {
                for body in bodies.iter().filter(|b| b.is_object()) {
                    walk(&path, body, out);
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    for (component, body) in components(text).unwrap_or_default() {
        let kind = component.split(' ').next().unwrap_or_default().to_owned();
        walk(&kind, &body, &mut out);
        out.insert(kind);
    }
    out
}

/// Indexes of `sets` that together hold every element any of them holds, chosen greedily.
fn covering(sets: &[BTreeSet<String>]) -> Vec<usize> {
    let mut left: BTreeSet<&String> = sets.iter().flatten().collect();
    let mut chosen = Vec::new();
    while !left.is_empty() {
        let (best, _) = sets
            .iter()
            .enumerate()
            .max_by_key(|(i, set)| {
                (
                    set.iter().filter(|c| left.contains(c)).count(),
                    usize::MAX - i,
                )
            })
            .expect("a set holds what is left");
        for c in &sets[best] {
            left.remove(c);
        }
        chosen.push(best);
    }
    chosen.sort_unstable();
    chosen
}

/// `body` with an API server address on every Kubernetes discovery without one: Alloy builds
/// their clients at load, and a host has no in-cluster settings (nothing answers there).
fn with_api_server(mut body: Body) -> Body {
    let discovery = ["discovery", "kubernetes"];
    for block in &mut body.blocks {
        let is_discovery = block.name.iter().map(Identifier::as_str).eq(discovery);
        let has_address = block
            .body
            .attributes
            .iter()
            .any(|a| a.name.as_str() == "api_server");
        if is_discovery && !has_address {
            block.body.attribute(
                Identifier::new("api_server").expect("an identifier"),
                Expr::string("http://127.0.0.1:9"),
            );
        }
    }
    body
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn ready(port: u16) -> bool {
    use std::io::Read as _;
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let request = format!("GET /-/ready HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    let mut answer = String::new();
    stream.write_all(request.as_bytes()).is_ok()
        && stream.read_to_string(&mut answer).is_ok()
        && (answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200"))
}

/// Runs Alloy on `text` until it reports ready; the end of its log when it stops first.
fn loads(alloy: &Path, text: &str, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let file = dir.join("config.alloy");
    std::fs::write(&file, text).map_err(|e| e.to_string())?;
    let log = dir.join("alloy.log");
    let port = free_port();
    let mut child = Command::new(alloy)
        .arg("run")
        .arg(&file)
        .arg(format!("--server.http.listen-addr=127.0.0.1:{port}"))
        .arg(format!("--storage.path={}", dir.join("data").display()))
        .arg("--disable-reporting")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| e.to_string())?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let outcome = loop {
        if ready(port) {
            break Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(&log).unwrap_or_default();
            let errors: Vec<&str> = log
                .lines()
                .filter(|l| l.contains("level=error") || !l.starts_with("ts="))
                .collect();
            break Err(format!("alloy exited ({status}):\n{}", errors.join("\n")));
        }
        if std::time::Instant::now() > deadline {
            break Err("not ready within 60 s".into());
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let _ = child.kill();
    let _ = child.wait();
    outcome
}

/// What stops a component this host lacks and a pod has, once Alloy has decoded its
/// arguments (a config Alloy refuses fails before, on its syntax or arguments): files of the
/// pod's service account or Secrets, and cloud credentials.
const HOST_GAPS: [&str; 2] = [
    "building component: unable to read",
    "building component: could not create new AWS session",
];

/// Whether every error Alloy logged is one of [`HOST_GAPS`].
fn only_host_gaps(log: &str) -> bool {
    let errors: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("level=error") || l.starts_with("Error:"))
        .filter(|l| !l.contains("could not perform the initial load"))
        .collect();
    !errors.is_empty()
        && errors
            .iter()
            .all(|l| HOST_GAPS.iter().any(|gap| l.contains(gap)))
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
